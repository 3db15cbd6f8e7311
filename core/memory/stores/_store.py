"""The two small interfaces every memory backend (pgvector, JSON files) implements.

Every method takes the user explicitly: no code path can read or change another user's rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from core.memory.kernel import Memory, Message, ScoredMemory

__all__ = ["ConversationStore", "MemoryStore"]


@runtime_checkable
class MemoryStore(Protocol):
    """Memories with embeddings. Writes are durable when the call returns (fsync / commit)."""

    def put(self, memory: Memory) -> None:
        """Insert or replace by ``memory.id`` within ``memory.user``. Raises MemoryStoreError."""
        ...

    def delete(self, user: str, memory_ids: Sequence[str]) -> int:
        """Delete some of ``user``'s memories; returns how many existed."""
        ...

    def list(self, user: str, *, database_id: str | None = None) -> list[Memory]:
        """All of ``user``'s memories (for one database: its own plus the all-databases ones), oldest first."""
        ...

    def search(
        self, user: str, vector: Sequence[float], *, k: int = 5, database_id: str | None = None
    ) -> list[ScoredMemory]:
        """The ``k`` most similar of ``user``'s memories by cosine similarity, best first (exact or ~0.99 recall)."""
        ...

    def clear(self, user: str) -> int:
        """Delete all of ``user``'s memories; returns how many."""
        ...


@runtime_checkable
class ConversationStore(Protocol):
    """Recent messages and a rolling summary per user."""

    def append_message(self, user: str, message: Message, *, keep: int = 20) -> None: ...

    def recent_messages(self, user: str, *, limit: int = 20) -> list[Message]:
        """Oldest first."""
        ...

    def summary(self, user: str) -> str: ...

    def set_summary(self, user: str, summary: str) -> None: ...

    def forget_conversation(self, user: str) -> None:
        """Drop ``user``'s recent messages and summary (part of "clear everything")."""
        ...
