"""The configured memory store while it cannot be reached: every call says so, nothing goes elsewhere.

A configured store is never silently swapped for another (memories written to a JSON file during an outage of
the embedded server were invisible once it came back). Instead, every read and write raises
:class:`MemoryStoreError` with the reason and a hint — questions are still answered, with a note that memories
could not be read — and the store is tried again, at most every ``retry_s`` seconds, so the session recovers
by itself when the server is back.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from typing import Any

from core.errors import MemoryStoreError
from core.memory.kernel import Memory, Message, ScoredMemory

__all__ = ["ReconnectingStore"]

logger = logging.getLogger(__name__)


class ReconnectingStore:
    """Stands for the store ``opener`` makes until it opens; then every call goes to the real store."""

    def __init__(self, wanted: str, opener: Callable[[], Any], reason: str, *, retry_s: float = 5.0,
                 hint: str | None = None) -> None:  # fmt: skip
        self.wanted = wanted
        self._opener = opener
        self.reason = reason
        self.hint = hint  # what the failure itself says to do (e.g. the folder to free on a full disk)
        self._retry_s = retry_s
        self._tried = time.monotonic()
        self._inner: Any = None
        self._lock = threading.Lock()

    @property
    def kind(self) -> str:
        return str(getattr(self._inner, "kind", self.wanted)) if self._inner is not None else "unavailable"

    def describe(self) -> str:
        if self._inner is not None:
            return str(getattr(self._inner, "describe", lambda: self.wanted)())
        return f"memory: {self.wanted} store unavailable ({self.reason}); nothing is read or saved until it is back"

    def _store(self) -> Any:
        with self._lock:
            if self._inner is None and time.monotonic() - self._tried >= self._retry_s:
                self._tried = time.monotonic()
                try:
                    self._inner = self._opener()
                    logger.info("memory store %s is available again", self.wanted)
                except Exception as exc:  # noqa: BLE001 - still down: keep the newest reason
                    self.reason = (getattr(exc, "message", None) or str(exc) or type(exc).__name__).splitlines()[0]
                    self.hint = getattr(exc, "hint", None)
            if self._inner is None:
                reason = self.reason.rstrip(".")
                raise MemoryStoreError(
                    f"The memory store ({self.wanted}) is unavailable: {reason}. Nothing was read or saved.",
                    hint=(self.hint + " " if self.hint else "Start it again (or fix memory_store_uri in Settings) "
                          "and retry; ") + "Cairn keeps no copy elsewhere, so nothing is lost or split between stores.",
                )
            return self._inner

    # MemoryStore
    def put(self, memory: Memory) -> None:
        self._store().put(memory)

    def put_many(self, memories: Sequence[Memory]) -> None:
        store = self._store()
        if hasattr(store, "put_many"):
            store.put_many(memories)
        else:
            for memory in memories:
                store.put(memory)

    def delete(self, user: str, memory_ids: Sequence[str]) -> int:
        return int(self._store().delete(user, memory_ids))

    def list(self, user: str, *, database_id: str | None = None) -> list[Memory]:
        return list(self._store().list(user, database_id=database_id))

    def search(self, user: str, vector: Sequence[float], *, k: int = 5,
               database_id: str | None = None) -> list[ScoredMemory]:  # fmt: skip
        return list(self._store().search(user, vector, k=k, database_id=database_id))

    def clear(self, user: str) -> int:
        return int(self._store().clear(user))

    # ConversationStore
    def append_message(self, user: str, message: Message, *, keep: int = 20) -> None:
        self._store().append_message(user, message, keep=keep)

    def recent_messages(self, user: str, *, limit: int = 20) -> list[Message]:
        return list(self._store().recent_messages(user, limit=limit))

    def summary(self, user: str) -> str:
        return str(self._store().summary(user))

    def set_summary(self, user: str, summary: str) -> None:
        self._store().set_summary(user, summary)

    def update_lock(self, user: str) -> Any:
        own = getattr(self._store(), "update_lock", None)
        return own(user) if own is not None else nullcontext()

    def forget_conversation(self, user: str) -> None:
        self._store().forget_conversation(user)

    def close(self) -> None:
        with self._lock:
            inner, self._inner = self._inner, None
        if inner is not None and hasattr(inner, "close"):
            inner.close()
