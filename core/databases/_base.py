"""The small interface every database backend implements, and what running a query returns."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Protocol, runtime_checkable

from core.cancellation import Cancellation
from core.schema import Schema

__all__ = ["Database", "QueryLimits", "QueryResult"]

MIB = 1024 * 1024
DEFAULT_TIMEOUT_S = 30.0
MAX_TIMEOUT_S = 3600.0  # a NaN, infinite or absurd timeout never disables the statement timeout
MIN_TIMEOUT_S = 0.001


@dataclass(frozen=True)
class QueryLimits:
    """What one query may use. Backends apply :meth:`clamped`, so a nonsense value never switches a limit off."""

    max_rows: int = 1000  # rows fetched; more sets ``truncated``
    timeout_s: float = DEFAULT_TIMEOUT_S  # statement timeout
    max_bytes: int = 64 * MIB  # bytes of fetched cells (text counted per character); more stops the rows
    max_cell_bytes: int = 1 * MIB  # one longer value is cut to this and marked "… [truncated: 1.2 MB]"
    temp_file_bytes: int = 1024 * MIB  # PostgreSQL temp_file_limit, where the role may set it; <= 0: server's own
    work_mem_bytes: int = 32 * MIB  # PostgreSQL work_mem (memory per sort or hash before it spills)

    def clamped(self) -> QueryLimits:
        """These limits with every value finite and in range (NaN, infinity and negatives replaced)."""
        max_bytes = _int_in(self.max_bytes, 64 * MIB, 1024, 1 << 40)
        return replace(
            self,
            max_rows=_int_in(self.max_rows, 1000, 0, 1 << 31),
            timeout_s=safe_timeout_s(self.timeout_s),
            max_bytes=max_bytes,
            max_cell_bytes=_int_in(self.max_cell_bytes, MIB, 256, max_bytes),
            temp_file_bytes=_int_in(self.temp_file_bytes, 1024 * MIB, -1, 1 << 50),
            work_mem_bytes=_int_in(self.work_mem_bytes, 32 * MIB, 64 * 1024, 1 << 40),
        )


def safe_timeout_s(value: Any) -> float:
    """``value`` as a usable timeout: NaN, negatives and 0 give the default, infinity the maximum."""
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return DEFAULT_TIMEOUT_S
    if math.isnan(seconds) or seconds <= 0:  # 0 would mean "no timeout" to PostgreSQL
        return DEFAULT_TIMEOUT_S
    return min(max(seconds, MIN_TIMEOUT_S), MAX_TIMEOUT_S)


def _int_in(value: Any, default: int, low: int, high: int) -> int:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return default
    if math.isnan(number):
        return default
    return int(min(max(number, low), high))


@dataclass(frozen=True)
class QueryResult:
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    truncated: bool
    elapsed_s: float
    truncated_by: str = ""  # "" | "rows" (the row cap) | "bytes" (the byte cap on fetched data)
    truncated_cells: int = 0  # values cut to ``max_cell_bytes`` and marked
    note: str = ""  # why rows or values are missing, for a person; "" when nothing was cut


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
