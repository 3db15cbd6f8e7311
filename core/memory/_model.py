"""What Cairn remembers about a person: typed memories, scored search hits, conversation messages."""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

__all__ = [
    "ALL_DATABASES",
    "MAX_MEMORY_CHARS",
    "CATEGORIES",
    "Category",
    "Memory",
    "Message",
    "ScoredMemory",
    "new_memory_id",
]

Category = Literal["preference", "terminology", "metric", "entity"]
CATEGORIES: tuple[Category, ...] = ("preference", "terminology", "metric", "entity")
ALL_DATABASES = "*"  # a memory that applies to every database of the user
MAX_MEMORY_CHARS = 2000  # one memory is a sentence or two, not a document


def new_memory_id() -> str:
    return uuid.uuid4().hex


@dataclass(frozen=True)
class Memory:
    """One remembered fact of one user.

    ``structured`` holds the machine form where one exists:
      preference: {"kind": "filter", "table": "customers", "column": "country", "op": "=", "value": "India",
                   "sql": "customers.country = 'India'"}
      terminology / metric: {"kind": "term", "name": "high value order", "sql": "orders.total_amount > 10000"}
    """

    user: str
    category: Category
    content: str
    database_id: str = ALL_DATABASES
    structured: Mapping[str, Any] | None = None
    source: str = ""
    id: str = field(default_factory=new_memory_id)
    created_at: float = field(default_factory=time.time)
    updated_at: float = field(default_factory=time.time)
    embedding: tuple[float, ...] | None = field(default=None, repr=False, compare=False)

    def edited(self, **changes: Any) -> Memory:
        """A copy with ``changes`` and a fresh ``updated_at`` (id, user and created_at stay)."""
        return replace(self, updated_at=time.time(), **changes)

    def to_json(self, *, with_embedding: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "user": self.user,
            "database_id": self.database_id,
            "category": self.category,
            "content": self.content,
            "structured": dict(self.structured) if self.structured else None,
            "source": self.source,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }
        if with_embedding:
            data["embedding"] = list(self.embedding) if self.embedding is not None else None
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Memory:
        emb = data.get("embedding")
        category = data["category"]
        if category not in CATEGORIES:
            raise ValueError(f"unknown memory category {category!r}")
        return cls(
            id=str(data["id"]),
            user=str(data["user"]),
            database_id=str(data.get("database_id") or ALL_DATABASES),
            category=category,
            content=str(data["content"]),
            structured=data.get("structured") or None,
            source=str(data.get("source") or ""),
            created_at=float(data.get("created_at") or time.time()),
            updated_at=float(data.get("updated_at") or time.time()),
            embedding=tuple(float(x) for x in emb) if emb is not None else None,
        )


@dataclass(frozen=True)
class ScoredMemory:
    memory: Memory
    similarity: float  # cosine similarity in [-1, 1]


@dataclass(frozen=True)
class Message:
    """One turn of the conversation, kept so follow-ups ("those") work across restarts."""

    role: Literal["user", "assistant"]
    content: str
    sql: str | None = None
    created_at: float = field(default_factory=time.time)
