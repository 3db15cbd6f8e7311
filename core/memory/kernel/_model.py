"""What Cairn remembers about a person: typed memories, facts to remember, scored search hits, conversation messages."""

from __future__ import annotations

import math
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

__all__ = [
    "ALL_DATABASES",
    "MAX_MEMORY_CHARS",
    "CATEGORIES",
    "Category",
    "Fact",
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
    def from_json(cls, data: Mapping[str, Any], *, repairs: list[str] | None = None) -> Memory:
        """A Memory from its JSON form. Raises ValueError (with the field's name) for a wrong-typed field.

        With ``repairs`` (a list), fields a memory can do without (``structured``, ``source``, timestamps,
        ``embedding``) are dropped instead when wrong, and what was dropped is appended to it; the fields that
        make a memory (id, user, category, content, database) still raise.
        """
        if not isinstance(data, Mapping):
            raise ValueError(f"a memory must be an object, not {type(data).__name__}")
        category = data.get("category")
        if category not in CATEGORIES:
            raise ValueError(f"unknown memory category {_short(category)}")
        fixed: dict[str, Any] = {}
        for name, check in _OPTIONAL_FIELDS.items():
            try:
                fixed[name] = check(data.get(name))
            except ValueError as exc:
                if repairs is None:
                    raise ValueError(f"the memory's {name} is wrong: {exc}") from exc
                repairs.append(f"{name} {_short(data.get(name))} ignored")
                fixed[name] = check(None)
        return cls(
            id=_required_text(data, "id", allow_int=True),
            user=_required_text(data, "user"),
            database_id=_optional_text(data.get("database_id"), "database_id") or ALL_DATABASES,
            category=category,
            content=_required_text(data, "content"),
            **fixed,
        )


def _short(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _required_text(data: Mapping[str, Any], name: str, *, allow_int: bool = False) -> str:
    value = data.get(name)
    if allow_int and isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str) or (name == "id" and not value):
        raise ValueError(f"the memory's {name} must be text, not {_short(value)}")
    return value


def _optional_text(value: Any, name: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise ValueError(f"the memory's {name} must be text, not {_short(value)}")


_SCALAR = (str, int, float, bool, type(None))


def _structured(value: Any) -> Mapping[str, Any] | None:
    """An object of text keys whose values are text, numbers, booleans, null or lists of those (a list may also
    hold flat objects of such values: the tables a filter is also enforced on). A pending (or context-only)
    form's ``readings`` are forms themselves, checked the same way."""
    if value is None or value == {}:
        return None
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise ValueError(f"structured must be an object, not {_short(value)}")
    for key, item in value.items():
        items = item if isinstance(item, list) else [item]
        if value.get("kind") == "pending" and (not isinstance(value.get("readings"), list) or not value["readings"]):
            raise ValueError("a pending form needs its readings")
        if key == "readings" and value.get("kind") in ("pending", "context"):  # context: kept to enforce later
            for reading in items:  # the forms a pending memory could be enforced as, each a form itself
                if not isinstance(reading, Mapping) or reading.get("kind") == "pending" or not _structured(reading):
                    raise ValueError(f"structured[{key!r}] holds {_short(reading)}")
            continue
        if not all(isinstance(x, _SCALAR) or _flat_object(x) for x in items):
            raise ValueError(f"structured[{key!r}] holds {_short(item)}")
        if key in ("kind", "table", "column", "op", "sql", "name") and not isinstance(item, str):
            raise ValueError(f"structured[{key!r}] must be text, not {_short(item)}")
    return value


def _flat_object(value: Any) -> bool:
    """A list item may be one flat object of text keys and scalar values ({"table": …, "column": …})."""
    return isinstance(value, Mapping) and all(isinstance(k, str) and isinstance(v, _SCALAR) for k, v in value.items())


def _timestamp(value: Any) -> float:
    """Seconds since the epoch; missing means now (an import), anything else must be a finite number."""
    if value is None:
        return time.time()
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"a timestamp must be a number, not {_short(value)}")
    return float(value)


def _embedding(value: Any) -> tuple[float, ...] | None:
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or not all(
        isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in value
    ):
        raise ValueError("the embedding must be a list of numbers")
    return tuple(float(x) for x in value)


_OPTIONAL_FIELDS: dict[str, Callable[[Any], Any]] = {
    "structured": _structured,
    "source": lambda v: _optional_text(v, "source") or "",
    "created_at": _timestamp,
    "updated_at": _timestamp,
    "embedding": _embedding,
}


@dataclass(frozen=True)
class Fact:
    """One thing a person said to remember, tagged with its category (what extraction and the bank hand on)."""

    category: Category
    content: str


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
    database_id: str | None = None  # the database the turn was about; None: not recorded (older turns)

    @classmethod
    def from_json(cls, data: Any) -> Message | None:
        """A message from a stored object, or None when it is not one (a missing or bad time reads as 0)."""
        if not isinstance(data, Mapping) or data.get("role") not in ("user", "assistant"):
            return None
        content, sql, at = data.get("content"), data.get("sql"), data.get("created_at")
        if not isinstance(content, str):
            return None
        if isinstance(at, bool) or not isinstance(at, (int, float)) or not math.isfinite(at):
            at = 0.0
        db = data.get("database_id")
        return cls(role=data["role"], content=content, sql=sql if isinstance(sql, str) else None,
                   created_at=float(at), database_id=db if isinstance(db, str) else None)
