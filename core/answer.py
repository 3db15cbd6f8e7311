"""What one question produces: the rows, the SQL that ran, how it was made, and what went wrong."""

from __future__ import annotations

import datetime as _dt
import decimal
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["Answer", "AppliedMemory", "SqlPath", "json_value"]

SqlPath = Literal["llm", "repaired", "fallback", "user"]


@dataclass(frozen=True)
class AppliedMemory:
    """A memory that shaped this answer, and why (shown as a chip; a caller can rerun without it)."""

    id: str
    category: str
    content: str
    similarity: float
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "category": self.category,
            "content": self.content,
            "similarity": round(self.similarity, 4),
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Alternative:
    """Another query the person may have meant, offered beside the answer with why (one click runs it)."""

    label: str
    sql: str
    why: str

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "sql": self.sql, "why": self.why}


@dataclass(frozen=True)
class Answer:
    """``sql`` only ever holds SQL that passed the guard and ran; a refused or failed one is in ``rejected_sql``."""

    question: str
    sql: str | None = None
    columns: tuple[str, ...] = ()
    rows: tuple[tuple[Any, ...], ...] = ()
    truncated: bool = False
    path: SqlPath | None = None
    notes: tuple[str, ...] = ()
    timings: Mapping[str, float] = field(default_factory=dict)
    rejected_sql: str | None = None
    rejected_reason: str | None = None
    error: str | None = None
    error_kind: str | None = None  # the CairnError class name, for exit codes and the UI
    hint: str | None = None
    memories: tuple[AppliedMemory, ...] = ()
    display: Mapping[str, Any] = field(default_factory=dict)  # saved currency/decimals: formatting only
    alternatives: tuple[Alternative, ...] = ()  # what could make this answer wrong, with the other query

    @property
    def row_count(self) -> int:
        return len(self.rows)

    @property
    def ok(self) -> bool:
        return self.error is None and self.sql is not None

    def to_json(self) -> dict[str, Any]:
        """One JSON-ready object with every field the CLI documents."""
        return {
            "question": self.question,
            "sql": self.sql,
            "rejected_sql": self.rejected_sql,
            "rejected_reason": self.rejected_reason,
            "columns": list(self.columns),
            "rows": [[json_value(v) for v in row] for row in self.rows],
            "row_count": self.row_count,
            "truncated": self.truncated,
            "path": self.path,
            "notes": list(self.notes),
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
            "error": self.error,
            "error_kind": self.error_kind,
            "hint": self.hint,
            "memories": [m.to_json() for m in self.memories],
            "display": dict(self.display),
            "alternatives": [a.to_json() for a in self.alternatives],
        }


def json_value(value: Any) -> Any:
    """Database values as JSON: numbers stay numbers, dates ISO strings, bytes hex, the rest text."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() and abs(value) < 2**53 else float(value)
    if isinstance(value, (_dt.date, _dt.datetime, _dt.time)):
        return value.isoformat()
    if isinstance(value, _dt.timedelta):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    return str(value)
