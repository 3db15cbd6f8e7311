"""Runs core work off the GUI thread: one generic worker and one helper to start it.

Widgets call :func:`run_in_background` with a plain function and callbacks; the callbacks run on the GUI
thread. Workers hold no domain logic. Each running worker is kept referenced until it finishes, and
:func:`wait_for_workers` waits for all of them at quit (superqt / Anki ``QueryOp`` style).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from core.cancellation import Cancellation

__all__ = ["Worker", "WorkerSignals", "run_in_background", "wait_for_workers"]

logger = logging.getLogger(__name__)

_running: set[Worker] = set()
_running_lock = threading.Lock()


class WorkerSignals(QObject):
    started = Signal()
    """The work began on a pool thread."""
    progress = Signal(object)
    """The work reported progress (a stage name, a fraction, or a dict)."""
    finished = Signal(object)
    """The work returned this result."""
    failed = Signal(object)
    """The work raised this exception."""


class Worker(QRunnable):
    """Calls ``fn(cancel, report)`` on a pool thread; results and errors come back as signals."""

    def __init__(self, fn: Callable[[Cancellation, Callable[[Any], None]], Any]) -> None:
        super().__init__()
        self.setAutoDelete(False)
        self.fn = fn
        self.signals = WorkerSignals()
        self.cancellation = Cancellation()

    def cancel(self) -> None:
        self.cancellation.cancel()

    def run(self) -> None:
        self.signals.started.emit()
        try:
            result = self.fn(self.cancellation, self.signals.progress.emit)
        except BaseException as exc:  # noqa: BLE001 - every failure goes to the GUI thread
            logger.debug("worker failed", exc_info=True)
            self.signals.failed.emit(exc)
        else:
            self.signals.finished.emit(result)
        finally:
            with _running_lock:
                _running.discard(self)


def run_in_background(
    fn: Callable[[Cancellation, Callable[[Any], None]], Any],
    *,
    on_success: Callable[[Any], None] | None = None,
    on_failure: Callable[[BaseException], None] | None = None,
    on_progress: Callable[[Any], None] | None = None,
    receiver: QObject | None = None,
) -> Worker:
    """Start ``fn`` on the global thread pool. Callbacks run on the GUI thread (queued signals).

    ``receiver`` ties the callbacks' lifetime to a widget: when it is destroyed they are not called.
    """
    worker = Worker(fn)
    ctx = receiver
    if on_success is not None:
        worker.signals.finished.connect(on_success) if ctx is None else worker.signals.finished.connect(
            _bound(ctx, on_success)
        )
    if on_failure is not None:
        worker.signals.failed.connect(on_failure) if ctx is None else worker.signals.failed.connect(
            _bound(ctx, on_failure)
        )
    if on_progress is not None:
        worker.signals.progress.connect(on_progress) if ctx is None else worker.signals.progress.connect(
            _bound(ctx, on_progress)
        )
    with _running_lock:
        _running.add(worker)
    QThreadPool.globalInstance().start(worker)
    return worker


def _bound(receiver: QObject, callback: Callable[[Any], None]) -> Callable[[Any], None]:
    import shiboken6

    def call(value: Any) -> None:
        if shiboken6.isValid(receiver):
            callback(value)

    return call


def wait_for_workers(timeout_ms: int = 10_000) -> bool:
    """Cancel running workers and wait for the pool to drain (at quit). True when all finished."""
    with _running_lock:
        workers = list(_running)
    for w in workers:
        w.cancel()
    return QThreadPool.globalInstance().waitForDone(timeout_ms)
