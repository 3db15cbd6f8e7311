"""Stop a model call when the person presses Stop: the caller binds its :class:`Cancellation` around the work,
and every Ollama call made inside (on the same thread) is cut at once on cancel instead of running to its
deadline. A context variable, so the ``LLM`` protocol stays one plain ``chat`` and fakes need nothing."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from core.cancellation import Cancellation

__all__ = ["cancellable", "current_cancel"]

_current: ContextVar[Cancellation | None] = ContextVar("cairn_llm_cancel", default=None)


@contextmanager
def cancellable(cancel: Cancellation | None) -> Iterator[None]:
    """Model calls inside stop when ``cancel`` is cancelled."""
    token = _current.set(cancel)
    try:
        yield
    finally:
        _current.reset(token)


def current_cancel() -> Cancellation | None:
    return _current.get()
