"""What both backends share: the schema cache, the rules for value hints and the capped result."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from typing import Any

from core.databases._base import QueryLimits, QueryResult
from core.databases._fetch import RowCollector
from core.schema import Schema

__all__ = [
    "HINT_SAMPLE_ROWS",
    "OneConnection",
    "HINT_TIMEOUT_S",
    "MAX_HINT_VALUE_CHARS",
    "MAX_VALUE_HINTS",
    "cached_schema",
    "capped_result",
    "clean_hints",
    "forget_schema",
]

logger = logging.getLogger(__name__)

MAX_VALUE_HINTS = 20  # a column with more distinct values gets none
HINT_SAMPLE_ROWS = 10_000  # rows read per table when statistics cannot answer
MAX_HINT_VALUE_CHARS = 60  # longer values are prose, not categories
HINT_TIMEOUT_S = 2.0  # per table; a slow table simply gets no hints

_cache: dict[str, Schema] = {}
_cache_lock = threading.Lock()
_build_locks: dict[str, threading.Lock] = {}


def cached_schema(database_id: str, build: Callable[[], Schema], *, refresh: bool) -> Schema:
    """The schema cached under ``database_id``; built once even when threads ask together."""
    with _cache_lock:
        build_lock = _build_locks.setdefault(database_id, threading.Lock())
        if not refresh and database_id in _cache:
            return _cache[database_id]
    with build_lock:
        with _cache_lock:
            if not refresh and database_id in _cache:
                return _cache[database_id]
        schema = build()
        with _cache_lock:
            _cache[database_id] = schema
        return schema


def forget_schema(database_id: str) -> None:
    with _cache_lock:
        _cache.pop(database_id, None)


def clean_hints(values: Iterable[object]) -> tuple[str, ...]:
    """Up to MAX_VALUE_HINTS distinct non-null values as text, or () when there are more or they are prose."""
    out: list[str] = []
    seen: set[str] = set()
    for value in values:
        if value is None:
            continue
        text = str(value)
        if text in seen:
            continue
        if len(text) > MAX_HINT_VALUE_CHARS or "\n" in text:
            return ()
        seen.add(text)
        out.append(text)
        if len(out) > MAX_VALUE_HINTS:
            return ()
    return tuple(out)


def capped_result(
    columns: tuple[str, ...], rows: Iterable[Any], limits: QueryLimits, started: float
) -> QueryResult:
    """``rows`` under the row, byte and per-cell caps of ``limits``, read only as far as the caps allow.

    The backends stream their rows into a :class:`~core.databases._fetch.RowCollector` themselves; this is the
    same rule for rows already at hand.
    """
    collector = RowCollector(limits.clamped())
    for row in rows:
        if not collector.add(row):
            break
    return collector.result(columns, started)


class OneConnection:
    """For a backend holding one connection under ``_lock`` (SQLite, DuckDB): closing it, and forgetting the schema
    cached under its ``id``."""

    id: str
    _lock: threading.Lock
    _conn: Any
    _closed: bool

    def close(self) -> None:
        with self._lock:
            self._closed = True
            conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    def forget_schema(self) -> None:
        forget_schema(self.id)
