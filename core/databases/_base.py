"""The small interface every database backend implements, and what running a query returns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from core.cancellation import Cancellation
from core.schema import Schema

__all__ = ["Database", "QueryLimits", "QueryResult"]


@dataclass(frozen=True)
class QueryLimits:
    max_rows: int = 1000  # rows fetched; more sets ``truncated``
    timeout_s: float = 30.0  # statement timeout


@dataclass(frozen=True)
class QueryResult:
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    truncated: bool
    elapsed_s: float


@runtime_checkable
class Database(Protocol):
    """A queryable database. Every query runs read-only; a write fails even if the guard is bypassed."""

    dialect: str  # sqlglot dialect: "postgres" | "sqlite"
    id: str  # stable id with no password in it, e.g. "postgresql://ann@db.local:5432/sales"

    def schema(self, *, refresh: bool = False) -> Schema:
        """Introspected schema, cached until ``refresh``."""
        ...

    def execute(
        self, sql: str, *, limits: QueryLimits = QueryLimits(), cancel: Cancellation | None = None
    ) -> QueryResult:
        """Run one query read-only. Raises QueryFailed / QueryTimeout / QueryCancelled / DatabaseUnavailable."""
        ...

    def close(self) -> None: ...
