"""SQLite backend: the file is opened read-only (``mode=ro`` plus ``PRAGMA query_only``), never created.

One connection shared by threads under a lock; a progress-handler deadline enforces the timeout (clamped: a
NaN, infinite or negative timeout never switches it off) and ``interrupt()`` cancels from another thread. Rows are
read one at a time under the row and byte caps; ``SQLITE_LIMIT_LENGTH`` stops any single value (``randomblob(1e9)``,
``printf('%.*c', 1e9, 'x')``) or stored row larger than the byte cap before it is built. Temporary b-trees and sorts
stay in memory under SQLite's heap limit (``PRAGMA hard_heap_limit``, process-wide: only this backend uses SQLite
in Cairn): an endless sort or a row of many huge values ends with "out of memory" instead of filling the disk with
temporary files (a spilled sort wrote 20 MB a second until the timeout) or the machine's memory.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from core.cancellation import Cancellation
from core.databases._base import QueryLimits, QueryResult, safe_timeout_s
from core.databases._fetch import RowCollector, human_size
from core.databases._shared import (
    HINT_SAMPLE_ROWS,
    HINT_TIMEOUT_S,
    MAX_HINT_VALUE_CHARS,
    MAX_VALUE_HINTS,
    OneConnection,
    cached_schema,
    clean_hints,
)
from core.databases.connections import TARGET_FORMS_HINT, sqlite_id
from core.databases._inferred_keys import SAMPLE_ROWS, with_inferred_keys
from core.errors import ConfigError, DatabaseError, DatabaseUnavailable, QueryCancelled, QueryFailed, QueryTimeout
from core.schema import Column, ForeignKey, Index, Schema, Table

__all__ = ["SqliteDatabase"]

logger = logging.getLogger(__name__)

_HEADER = b"SQLite format 3\x00"
_PROGRESS_STEPS = 10_000  # VM instructions between deadline checks (~0.1 ms)
_CACHE_KIB = 16 * 1024  # page cache per connection
_MIB = 1024 * 1024
# SQLite's whole heap in this process: a sixteenth of the machine's memory within [256 MiB, 1 GiB] (the process's
# memory grows to about twice it when reached). Sorting or grouping more than this in SQLite fails with a hint.
MIN_HEAP_BYTES, MAX_HEAP_BYTES = 256 * _MIB, 1024 * _MIB


def heap_limit() -> int:
    """Bytes SQLite may allocate in this process (see MIN_HEAP_BYTES)."""
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        total = 0
    return min(max(total // 16, MIN_HEAP_BYTES), MAX_HEAP_BYTES)


def _q(name: str) -> str:
    """A SQLite identifier, quoted."""
    return '"' + name.replace('"', '""') + '"'


def _text_affinity(declared: str) -> bool:
    """SQLite's own rule: a declared type containing CHAR, CLOB or TEXT has TEXT affinity."""
    up = declared.upper()
    return "CHAR" in up or "CLOB" in up or "TEXT" in up


class SqliteDatabase(OneConnection):
    """One SQLite file, read-only."""

    dialect = "sqlite"

    def __init__(self, path: str | Path) -> None:
        resolved = Path(path).expanduser().resolve()
        if not resolved.is_file():
            raise ConfigError(f"No SQLite file at {resolved}.", hint=TARGET_FORMS_HINT)
        try:
            with resolved.open("rb") as fh:
                header = fh.read(len(_HEADER))
        except OSError as exc:
            raise ConfigError(f"Cannot read {resolved}: {exc}", hint="Check the file's permissions.") from exc
        if header != _HEADER:
            raise ConfigError(f"{resolved} is not a SQLite database.", hint=TARGET_FORMS_HINT)
        self.path = resolved
        self.id = sqlite_id(resolved)
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        self._closed = False

    def __repr__(self) -> str:
        return f"SqliteDatabase({self.id!r})"

    def _connection(self) -> sqlite3.Connection:
        """The shared connection (caller holds the lock)."""
        if self._closed:
            raise DatabaseUnavailable(f"The connection to {self.id} was closed.", hint="Open the database again.")
        if self._conn is None:
            try:
                conn = sqlite3.connect(
                    self.path.as_uri() + "?mode=ro",
                    uri=True,
                    check_same_thread=False,
                    isolation_level=None,
                    timeout=5.0,
                )
                conn.execute("PRAGMA query_only = ON")
                conn.execute("PRAGMA temp_store = MEMORY")  # temporary tables and sorts under the heap limit
                conn.execute(f"PRAGMA cache_size = -{_CACHE_KIB}")
                heap = heap_limit()
                conn.execute(f"PRAGMA hard_heap_limit = {heap}")  # only ever lowered, for the whole process
                conn.execute(f"PRAGMA soft_heap_limit = {heap // 2}")  # caches given back before that
                conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)  # no ATTACH of other (writable) files
                conn.set_authorizer(_authorize)
            except sqlite3.Error as exc:
                raise DatabaseUnavailable(f"Cannot open {self.path}: {exc}") from exc
            self._conn = conn
        return self._conn

    # -- Database protocol --------------------------------------------------------------------------------

    def schema(self, *, refresh: bool = False) -> Schema:
        """Introspected schema, cached per database id until ``refresh``."""
        return cached_schema(self.id, self._introspect, refresh=refresh)

    def execute(
        self, sql: str, *, limits: QueryLimits = QueryLimits(), cancel: Cancellation | None = None
    ) -> QueryResult:
        """Run one statement read-only; at most ``limits.max_rows`` rows and ``limits.max_bytes`` of cells
        (``truncated`` and a ``note`` when more), any cell longer than ``limits.max_cell_bytes`` cut and marked."""
        limits = limits.clamped()
        if cancel is not None:
            cancel.raise_if_cancelled()
        started = time.perf_counter()
        collector = RowCollector(limits)
        with self._lock:
            conn = self._connection()
            deadline = _Deadline(limits.timeout_s, cancel)
            interrupter = _Interrupter(conn)
            unregister = cancel.register(interrupter) if cancel is not None else None
            conn.set_progress_handler(deadline, _PROGRESS_STEPS)
            # no single value beyond the byte cap: randomblob(1e9) fails at once instead of filling memory
            conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, min(limits.max_bytes, 2**31 - 1))
            cur: sqlite3.Cursor | None = None
            try:
                cur = conn.execute(sql)
                columns = tuple(d[0] for d in cur.description or ())
                if cur.description:
                    _collect(cur, collector)
            except (sqlite3.Error, ValueError, OverflowError, MemoryError) as exc:
                raise _query_error(exc, cancel, deadline, limits) from exc
            finally:
                interrupter.done()
                if unregister is not None:
                    unregister()
                conn.set_progress_handler(None, 0)
                if cur is not None:
                    cur.close()
                if conn.in_transaction:
                    conn.rollback()
        return collector.result(columns, started)

    # -- introspection ------------------------------------------------------------------------------------

    def _introspect(self) -> Schema:
        started = time.perf_counter()
        with self._lock:
            conn = self._connection()
            try:
                tables = [self._read_table(conn, name) for name in _object_names(conn)]
            except sqlite3.Error as exc:
                raise QueryFailed(f"Cannot read the schema of {self.path}: {exc}") from exc
            schema = Schema(dialect="sqlite", tables=tuple(tables), database_id=self.id)
            schema = _with_inferred_keys(conn, schema)
        logger.info("introspected %s: %d tables in %.2fs", self.id, len(tables), time.perf_counter() - started)
        return schema

    def _read_table(self, conn: sqlite3.Connection, name: str) -> Table:
        info = conn.execute("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?)", (name,))
        raw_cols = info.fetchall()
        pk = tuple(c[0] for c in sorted((c for c in raw_cols if c[4]), key=lambda c: c[4]))
        hints = _value_hints(conn, name, [c[0] for c in raw_cols if _text_affinity(c[1] or "")])
        columns = tuple(
            Column(
                name=c[0],
                type=c[1] or "",
                nullable=not c[2] and c[0] not in pk,
                default=c[3],
                value_hints=hints.get(c[0], ()),
            )
            for c in raw_cols
        )
        return Table(
            name=name,
            columns=columns,
            schema=None,
            primary_key=pk,
            foreign_keys=_foreign_keys(conn, name),
            indexes=_indexes(conn, name),
        )


def _object_names(conn: sqlite3.Connection) -> list[str]:
    """Tables, views and virtual tables of ``main``, without SQLite's own and FTS shadow tables."""
    try:
        rows = conn.execute(
            "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type IN ('table', 'view', 'virtual') "
            "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name"
        ).fetchall()
    except sqlite3.OperationalError:  # SQLite before 3.37
        rows = conn.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
            "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name"
        ).fetchall()
    return [r[0] for r in rows]


def _foreign_keys(conn: sqlite3.Connection, name: str) -> tuple[ForeignKey, ...]:
    grouped: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
    for row in conn.execute('SELECT id, seq, "table", "from", "to" FROM pragma_foreign_key_list(?)', (name,)):
        grouped[row[0]].append(row)
    names = {n.lower(): n for n in _object_names(conn)} if grouped else {}
    out: list[ForeignKey] = []
    for fk_id in sorted(grouped):
        parts = sorted(grouped[fk_id], key=lambda r: r[1])
        ref_table = names.get(str(parts[0][2]).lower(), str(parts[0][2]))
        ref_cols = [p[4] for p in parts]
        if any(c is None for c in ref_cols):  # REFERENCES parent  -> the parent's primary key
            ref_cols = [
                r[0]
                for r in sorted(
                    conn.execute("SELECT name, pk FROM pragma_table_info(?) WHERE pk > 0", (ref_table,)),
                    key=lambda r: r[1],
                )
            ]
        out.append(ForeignKey(tuple(p[3] for p in parts), ref_table, tuple(ref_cols)))
    return tuple(out)


def _indexes(conn: sqlite3.Connection, name: str) -> tuple[Index, ...]:
    out: list[Index] = []
    for _seq, ix_name, unique, _origin, partial in conn.execute(
        "SELECT seq, name, \"unique\", origin, partial FROM pragma_index_list(?) ORDER BY name", (name,)
    ).fetchall():
        cols = tuple(
            r[0] if r[0] is not None else "<expression>"
            for r in conn.execute("SELECT name FROM pragma_index_info(?) ORDER BY seqno", (ix_name,))
        )
        out.append(Index(name=ix_name, columns=cols, unique=bool(unique) and not partial))
    return tuple(out)


def _with_inferred_keys(conn: sqlite3.Connection, schema: Schema) -> Schema:
    """Join keys the file does not declare, each checked on a sample of its values (see ``_inferred_keys``)."""
    deadline = _Deadline(HINT_TIMEOUT_S)

    def orphan_found(table: Table, col: Column, ref: Table, key: Column) -> bool:
        query = (
            f"SELECT 1 FROM (SELECT {_q(col.name)} AS v FROM {_q(table.name)} WHERE {_q(col.name)} IS NOT NULL "
            f"LIMIT {SAMPLE_ROWS}) AS s WHERE NOT EXISTS (SELECT 1 FROM {_q(ref.name)} AS r "
            f"WHERE r.{_q(key.name)} = s.v) LIMIT 1"
        )
        return conn.execute(query).fetchone() is not None

    conn.set_progress_handler(deadline, _PROGRESS_STEPS)
    try:
        return with_inferred_keys(schema, orphan_found)
    finally:
        conn.set_progress_handler(None, 0)


def _value_hints(conn: sqlite3.Connection, table: str, columns: list[str]) -> dict[str, tuple[str, ...]]:
    """Up to MAX_VALUE_HINTS frequent values per text column, from the first HINT_SAMPLE_ROWS rows."""
    out: dict[str, tuple[str, ...]] = {}
    if not columns:
        return out
    deadline = _Deadline(HINT_TIMEOUT_S)
    conn.set_progress_handler(deadline, _PROGRESS_STEPS)
    try:
        for col in columns:
            query = (
                f"SELECT v FROM (SELECT substr(CAST({_q(col)} AS TEXT), 1, {MAX_HINT_VALUE_CHARS + 1}) AS v "
                f"FROM (SELECT {_q(col)} FROM {_q(table)} LIMIT {HINT_SAMPLE_ROWS})) WHERE v IS NOT NULL "
                f"GROUP BY v ORDER BY count(*) DESC, v LIMIT {MAX_VALUE_HINTS + 1}"
            )
            try:
                out[col] = clean_hints(r[0] for r in conn.execute(query))
            except sqlite3.Error as exc:
                logger.info("no value hints for %s.%s: %s", table, col, exc)
                if deadline.expired:
                    break
    finally:
        conn.set_progress_handler(None, 0)
    return out


# Pragmas that may take an argument: they only describe a table or an index.
_DESCRIBING_PRAGMAS = frozenset(
    {"table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo", "foreign_key_list"}
)


def _authorize(action: int, arg1: str | None, arg2: str | None, _db: str | None, _source: str | None) -> int:
    """Refuse what mode=ro does not: setting pragmas (``query_only = OFF``) and ATTACH/DETACH."""
    if action in (sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH):
        return sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_PRAGMA and arg2 is not None and (arg1 or "").lower() not in _DESCRIBING_PRAGMAS:
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK


def _collect(cur: sqlite3.Cursor, collector: RowCollector) -> None:
    """Rows one at a time (SQLite steps them as they are read) until the caps stop them."""
    for row in cur:
        if not collector.add(row):
            return


class _Deadline:
    """Progress handler: a non-zero return makes SQLite stop the statement with 'interrupted'."""

    def __init__(self, seconds: float, cancel: Cancellation | None = None) -> None:
        self._at = time.monotonic() + safe_timeout_s(seconds)  # NaN would never expire
        self._cancel = cancel
        self.expired = False

    def __call__(self) -> int:
        if self._cancel is not None and self._cancel.cancelled:
            return 1  # a cancel that came just before the statement started
        if time.monotonic() > self._at:
            self.expired = True
            return 1
        return 0


class _Interrupter:
    """Interrupts the connection only while this query runs."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._lock = threading.Lock()
        self._active = True

    def __call__(self) -> None:
        with self._lock:
            if self._active:
                self._conn.interrupt()

    def done(self) -> None:
        with self._lock:
            self._active = False


def _query_error(
    exc: Exception, cancel: Cancellation | None, deadline: _Deadline, limits: QueryLimits
) -> DatabaseError:
    interrupted = isinstance(exc, sqlite3.OperationalError) and "interrupted" in str(exc).lower()
    if interrupted and cancel is not None and cancel.cancelled:
        return QueryCancelled("The query was cancelled.")
    if interrupted and deadline.expired:
        return QueryTimeout(f"The query ran past the timeout of {limits.timeout_s:g} s and was stopped.")
    if isinstance(exc, MemoryError) or (isinstance(exc, sqlite3.Error) and "out of memory" in str(exc).lower()):
        return QueryFailed(f"The query needed more than the {human_size(heap_limit())} SQLite may use (sorting, "
                           "grouping or one row of many long values) and was stopped.", hint=_TOO_BIG_HINT)
    if isinstance(exc, sqlite3.Error) and "too big" in str(exc).lower():
        return QueryFailed(f"A value in the query is larger than the {human_size(limits.max_bytes)} limit on one "
                           f"value ({exc}).", hint=_TOO_BIG_HINT)
    return QueryFailed(str(exc) or type(exc).__name__)


_TOO_BIG_HINT = ("Select shorter values (substr(), length()) or fewer rows, filter before sorting or grouping, or add "
                 "a LIMIT; Cairn shows at most a few MB per value.")

