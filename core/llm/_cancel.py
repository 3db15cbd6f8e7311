"""Stop a model call when the person presses Stop: the caller binds its :class:`Cancellation` around the work,
and every Ollama call made inside (on the same thread) is cut at once on cancel instead of running to its
deadline. A context variable, so the ``LLM`` protocol stays one plain ``chat`` and fakes need nothing.

The same way, a caller may bind a progress callback (:func:`token_progress`): a streamed model call reports how many
tokens it has received so far, for a "writing SQL… N tokens" line."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from core.cancellation import Cancellation

__all__ = ["TokenProgress", "cancellable", "current_cancel", "current_token_progress", "token_progress"]

TokenProgress = Callable[[int], None]  # tokens received so far in the current model call

_current: ContextVar[Cancellation | None] = ContextVar("cairn_llm_cancel", default=None)
_progress: ContextVar[TokenProgress | None] = ContextVar("cairn_llm_token_progress", default=None)


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


@contextmanager
def token_progress(on_tokens: TokenProgress | None) -> Iterator[None]:
    """Model calls inside report their running token count to ``on_tokens``. It is called on the call's helper
    thread, once per streamed chunk, so it must be quick and thread-safe (emit a Qt signal, set a value); an
    exception from it is logged and ignored, never the end of the call."""
    token = _progress.set(on_tokens)
    try:
        yield
    finally:
        _progress.reset(token)


def current_token_progress() -> TokenProgress | None:
    return _progress.get()
