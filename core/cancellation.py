"""A cancellation token shared between the caller (UI thread, Ctrl+C handler) and a running stage."""

from __future__ import annotations

import threading
from collections.abc import Callable

from core.errors import QueryCancelled

__all__ = ["Cancellation"]


class Cancellation:
    """Set once; callbacks registered while work runs (e.g. ``conn.cancel_safe``) fire on ``cancel()``."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[], None]] = []

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def cancel(self) -> None:
        with self._lock:
            self._event.set()
            callbacks = list(self._callbacks)
        for cb in callbacks:
            try:
                cb()
            except Exception:  # noqa: BLE001 - a failing canceller must not stop the others
                pass

    def raise_if_cancelled(self) -> None:
        if self._event.is_set():
            raise QueryCancelled("Cancelled.")

    def register(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Run ``callback`` on cancel (at once if already cancelled). Returns an unregister function."""
        with self._lock:
            already = self._event.is_set()
            if not already:
                self._callbacks.append(callback)
        if already:
            callback()

        def unregister() -> None:
            with self._lock:
                if callback in self._callbacks:
                    self._callbacks.remove(callback)

        return unregister
