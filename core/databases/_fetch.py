"""Fetching under the caps, for both backends: a row cap, a byte cap on the cells fetched, a cap on one cell.

Rows are handed over one at a time as they stream in; :class:`RowCollector` keeps them while the caps allow and
says when to stop, so no backend ever holds more than the caps (plus one batch) of a result.
Sizes are counted per cell: text by its characters, bytes by their length, numbers and dates as 8 bytes.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import date, datetime, time as dtime, timedelta
from decimal import Decimal
from typing import Any

from core.databases._base import QueryLimits, QueryResult

__all__ = ["RowCollector", "cell_size", "human_size", "marked"]

_FIXED = (int, float, bool, date, datetime, dtime, timedelta)
_CELL_OVERHEAD = 8  # a NULL or a tiny value still costs something; keeps a million empty cells from being free


def human_size(n: int) -> str:
    """``1.2 MB``-style size (binary multiples, as memory is counted)."""
    if n < 1024:
        return f"{n} bytes"
    size = float(n)
    for unit in ("KB", "MB", "GB"):
        size /= 1024
        if size < 1024:
            return f"{size:.1f} {unit}"
    return f"{size / 1024:.1f} TB"


def cell_size(value: Any) -> int:
    """What one fetched cell weighs, roughly in bytes."""
    if value is None:
        return _CELL_OVERHEAD
    if isinstance(value, (str, bytes, bytearray, memoryview)):
        return _CELL_OVERHEAD + len(value)
    if isinstance(value, _FIXED):
        return _CELL_OVERHEAD + 8
    if isinstance(value, Decimal):
        return _CELL_OVERHEAD + len(str(value))
    if isinstance(value, (dict, list, tuple)):  # json, arrays: measured by their text, as they are shown
        return _CELL_OVERHEAD + len(str(value))
    return _CELL_OVERHEAD + 16


def marked(prefix: Any, original_size: int, limit: int) -> Any:
    """``prefix`` cut to ``limit`` and ended with ``… [truncated: <original size>]`` (bytes stay bytes)."""
    mark = f"… [truncated: {human_size(original_size)}]"
    if isinstance(prefix, (bytes, bytearray, memoryview)):
        return bytes(prefix[:limit]) + mark.encode()
    return str(prefix)[:limit] + mark


class RowCollector:
    """Keeps rows while the row and byte caps allow; cuts any cell longer than the per-cell cap."""

    def __init__(self, limits: QueryLimits) -> None:
        self.limits = limits
        self.rows: list[tuple[Any, ...]] = []
        self.bytes = 0
        self.cut_cells = 0
        self.stopped_by = ""  # "rows" | "bytes" once a cap stopped the rows
        self.max_row_bytes = 0
        self.cell_limit = limits.max_cell_bytes  # a backend may lower it (many long columns share the byte cap)

    @property
    def wanted(self) -> int:
        """Rows still worth fetching: up to the cap, and one more to learn whether there were more."""
        return max(0, self.limits.max_rows + 1 - len(self.rows))

    def add(self, row: Sequence[Any], premarked: Sequence[bool] | None = None) -> bool:
        """Keep ``row`` (long cells cut). False, keeping nothing, once a cap says the rows stop here.

        ``premarked[i]`` says cell ``i`` was already cut (on the server) and marked with :meth:`mark`.
        """
        if self.stopped_by:
            return False
        if len(self.rows) >= self.limits.max_rows:
            self.stopped_by = "rows"
            return False
        cut = 0
        cells: list[Any] = []
        for i, value in enumerate(row):
            if premarked is not None and premarked[i]:
                cells.append(value)
                cut += 1
                continue
            capped = self._capped(value)
            cut += capped is not value
            cells.append(capped)
        size = sum(cell_size(v) for v in cells)
        self.max_row_bytes = max(self.max_row_bytes, size)
        if self.bytes + size > self.limits.max_bytes:
            self.stopped_by = "bytes"
            return False
        self.bytes += size
        self.cut_cells += cut
        self.rows.append(tuple(cells))
        return True

    def mark(self, prefix: Any, original_size: int) -> Any:
        """A cell the server already cut to its first part: that part, marked with the original size."""
        return marked(prefix, original_size, self.cell_limit)

    def _capped(self, value: Any) -> Any:
        limit = self.cell_limit
        if isinstance(value, (str, bytes, bytearray, memoryview)):
            return value if len(value) <= limit else marked(value, len(value), limit)
        if isinstance(value, (dict, list, tuple, Decimal)) and cell_size(value) > limit + _CELL_OVERHEAD:
            text = str(value)
            return marked(text, len(text), limit)
        return value

    def result(self, columns: tuple[str, ...], started: float) -> QueryResult:
        return QueryResult(
            columns=columns,
            rows=tuple(self.rows),
            truncated=bool(self.stopped_by),
            elapsed_s=time.perf_counter() - started,
            truncated_by=self.stopped_by,
            truncated_cells=self.cut_cells,
            note=self.note(),
        )

    def note(self) -> str:
        parts: list[str] = []
        shown = len(self.rows)
        if self.stopped_by == "rows":
            parts.append(f"Showing the first {shown:,} rows: the row limit of {self.limits.max_rows:,} stopped "
                         "the query; there were more.")
        elif self.stopped_by == "bytes" and not shown:
            parts.append(f"No row shown: the first row alone passed the {human_size(self.limits.max_bytes)} limit "
                         "on fetched data.")
        elif self.stopped_by == "bytes":
            parts.append(f"Showing the first {shown:,} rows: the result passed the "
                         f"{human_size(self.limits.max_bytes)} limit on fetched data, so the rest was not fetched.")
        if self.cut_cells:
            plural = "values were" if self.cut_cells > 1 else "value was"
            parts.append(f"{self.cut_cells:,} {plural} longer than {human_size(self.cell_limit)} and "
                         "cut short (ending in '… [truncated: <size>]').")
        return " ".join(parts)
