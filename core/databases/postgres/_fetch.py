"""PostgreSQL's side of fetching under the caps: session limits, a server-side cursor read in bounded batches,
and long values cut on the server, so a 100 MB cell never crosses the wire.

A plain query is declared as a cursor (which only plans it); its description says which columns can hold long
values. The query is then declared again inside ``SELECT ... FROM (<query>) AS cairn_q(c1, ...)`` with every
such column cut to the per-cell limit and its original size beside it. When that wrapper cannot be declared
(an odd query shape), the original cursor is read instead, in small batches, and long cells are cut here.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from core.databases._base import MIB, QueryLimits, QueryResult
from core.databases._fetch import RowCollector
from core.errors import QueryTimeout

__all__ = ["DECLARE_PREFIX", "apply_session_limits", "can_limit_temp_files", "run"]

logger = logging.getLogger(__name__)

CURSOR_NAME = "cairn_result"
DECLARE_PREFIX = f'DECLARE "{CURSOR_NAME}" CURSOR FOR '
_TRIMMED_NAME = "cairn_trimmed"
_SAVEPOINT = "cairn_trim"
_FIRST_BATCH_ROWS = 50
_BATCH_TARGET_BYTES = 8 * MIB  # aim per FETCH, from the rows seen so far
_BATCH_WORST_BYTES = 256 * MIB  # never more per FETCH, even if every cell were as long as allowed
_MAX_WORK_MEM_KB = 2_147_483_647

# Types whose values are small (fixed size, or bounded like numeric): never cut on the server.
_BOUNDED_OIDS = frozenset({
    16, 18, 19, 20, 21, 23, 24, 26, 27, 28, 29, 600, 601, 603, 628, 650, 700, 701, 718, 774, 790, 829, 869,
    1082, 1083, 1114, 1184, 1186, 1266, 1700, 2202, 2203, 2204, 2205, 2206, 2278, 2950, 3220, 3734, 3769,
    4089, 4096, 4191, 5069,
})
_TEXT_OIDS = frozenset({25, 1043})  # text, varchar: cut with left(), same type back
_BYTEA_OID = 17
_BPCHAR_OID = 1042
_NUMERIC_OID = 1700
_FIRST_USER_OID = 16384
_typlen_cache: dict[int, int] = {}  # built-in types only; user types may be dropped and their oids reused


# -- session limits -----------------------------------------------------------------------------------------


def can_limit_temp_files(conn: Any) -> bool:
    """Whether this session's role may set ``temp_file_limit`` (a superuser, or GRANT SET ON PARAMETER)."""
    if conn.info.server_version >= 150000:
        sql = "SELECT current_setting('is_superuser') = 'on' OR has_parameter_privilege('temp_file_limit', 'SET')"
    else:
        sql = "SELECT current_setting('is_superuser') = 'on'"
    row = conn.execute(sql).fetchone()
    return bool(row and row[0])


def apply_session_limits(conn: Any, limits: QueryLimits, *, limit_temp: bool) -> bool:
    """``SET LOCAL`` statement_timeout, work_mem and (when ``limit_temp``) temp_file_limit in this transaction.

    Returns whether temp_file_limit is in force: False when it was not asked for, or the server refused it (the
    transaction is then rolled back and started again without it).
    """
    from psycopg import errors as pge

    work_mem_kb = min(max(64, limits.work_mem_bytes // 1024), _MAX_WORK_MEM_KB)
    settings = [("statement_timeout", str(max(1, int(limits.timeout_s * 1000)))), ("work_mem", f"{work_mem_kb}kB")]
    temp = limit_temp and limits.temp_file_bytes > 0
    if temp:
        settings.append(("temp_file_limit", f"{min(max(1, limits.temp_file_bytes // 1024), 2**31 - 1)}kB"))
    try:
        _set_local(conn, settings)
    except pge.InsufficientPrivilege:
        if not temp:
            raise
        conn.rollback()  # the next statement begins a fresh read-only transaction
        _set_local(conn, settings[:2])
        return False
    return temp


def _set_local(conn: Any, settings: list[tuple[str, str]]) -> None:
    calls = ", ".join("set_config(%s, %s, true)" for _ in settings)
    conn.execute(f"SELECT {calls}", [part for pair in settings for part in pair])


# -- fetching -------------------------------------------------------------------------------------------------


def run(conn: Any, sql: str, limits: QueryLimits, *, use_cursor: bool, started: float) -> QueryResult:
    """Run ``sql`` in the open read-only transaction; rows and cells within ``limits``."""
    collector = RowCollector(limits)
    if use_cursor:
        columns = _fetch_cursor(conn, sql, limits, collector, started)
    else:
        columns = _fetch_stream(conn, sql, collector)
    return collector.result(columns, started)


def _fetch_stream(conn: Any, sql: str, collector: RowCollector) -> tuple[str, ...]:
    # Not a plain query (SHOW, EXPLAIN, or a write that the read-only transaction refuses). stream() always uses
    # the extended protocol, which refuses a second statement: "...; COMMIT; DELETE ..." cannot leave the
    # read-only transaction. Rows arrive one at a time (single-row mode): nothing buffers the whole result.
    cur = conn.cursor()
    for row in cur.stream(sql):
        if not collector.add(row):
            break  # stream() cancels the rest; the caller rolls back
    return tuple(d.name for d in cur.description or ())


def _fetch_cursor(
    conn: Any, sql: str, limits: QueryLimits, collector: RowCollector, started: float
) -> tuple[str, ...]:
    from psycopg.pq import TransactionStatus

    cur = conn.cursor(name=CURSOR_NAME)
    trimmed: Any = None
    try:
        cur.execute(sql)  # DECLARE: plans the query, runs nothing yet
        description = cur.description or ()
        plan = plan_trim(conn, description, limits)
        if plan is not None:
            trimmed = _declare_trimmed(conn, sql, plan)
            collector.cell_limit = plan.cell_limit
        if trimmed is not None:
            _read_batches(trimmed, plan, plan.worst_row_bytes, limits, collector, started)
        else:
            worst = _bounded_row_bytes(description) if plan is None else 0  # 0: unknown, grow batches slowly
            _read_batches(cur, None, worst, limits, collector, started)
        return tuple(d.name for d in description)
    finally:
        if conn.info.transaction_status == TransactionStatus.INTRANS:  # after an error, rollback drops them
            cur.close()
            if trimmed is not None:
                trimmed.close()


def _read_batches(
    cur: Any, plan: TrimPlan | None, worst_row: int, limits: QueryLimits, collector: RowCollector, started: float
) -> None:
    batches = 0
    while True:
        size = _batch_rows(collector, worst_row, batches)
        spent = time.perf_counter() - started
        if batches or spent > 0.1 * limits.timeout_s:
            # each FETCH is a statement of its own (the first one runs the query, after the DECLAREs and the
            # planning that already took time): give it only the time the query has left
            left_ms = int((limits.timeout_s - spent) * 1000)
            if left_ms <= 0:
                raise QueryTimeout(f"The query ran past the statement timeout of {limits.timeout_s:g} s and was "
                                   "stopped.")  # fmt: skip
            cur.connection.execute(f"SET LOCAL statement_timeout = {left_ms}")
        rows = cur.fetchmany(size)
        batches += 1
        for row in rows:
            cells, premarked = plan.decode(row, collector) if plan is not None else (row, None)
            if not collector.add(cells, premarked):
                return
        if len(rows) < size:
            return
        if time.perf_counter() - started > limits.timeout_s:  # each FETCH has its own statement_timeout
            raise QueryTimeout(f"The query ran past the statement timeout of {limits.timeout_s:g} s and was stopped.")


def _batch_rows(collector: RowCollector, worst_row: int, batches: int) -> int:
    """Rows for the next FETCH: what is still wanted, about 8 MB by the rows seen, never 256 MB at worst."""
    soft = _FIRST_BATCH_ROWS if not collector.rows else _BATCH_TARGET_BYTES // max(collector.max_row_bytes, 1)
    hard = _BATCH_WORST_BYTES // worst_row if worst_row > 0 else 2**batches  # unknown: 1, 2, 4, ... rows
    return max(1, min(collector.wanted, soft, hard))


def _declare_trimmed(conn: Any, sql: str, plan: TrimPlan) -> Any:
    """The wrapped query as a second cursor; None (and the transaction as it was) when it cannot be declared."""
    import psycopg
    from psycopg import errors as pge

    wrapped = plan.wrap(sql)
    if wrapped is None:
        return None
    conn.execute(f"SAVEPOINT {_SAVEPOINT}")
    cur = conn.cursor(name=_TRIMMED_NAME)
    try:
        cur.execute(wrapped)
    except pge.QueryCanceled:
        raise  # a cancel or the timeout: not a reason to try another way
    except psycopg.Error as exc:
        logger.info("long values of this query are cut after fetching, not on the server: %s", exc)
        conn.execute(f"ROLLBACK TO SAVEPOINT {_SAVEPOINT}")
        cur.close()
        return None
    conn.execute(f"RELEASE SAVEPOINT {_SAVEPOINT}")
    return cur


# -- cutting long values on the server --------------------------------------------------------------------------


@dataclass(frozen=True)
class TrimPlan:
    """Per column: "keep", "cut_text" / "cut_bytes" (cut with left()/substr(), same type back) or "as_text" (any
    other long type: NULL plus its text form's first part when too long, so short values keep their type)."""

    kinds: tuple[str, ...]
    cell_limit: int
    worst_row_bytes: int

    def wrap(self, sql: str) -> str | None:
        inner = _without_trailing_semicolons(sql)
        if inner is None:
            return None
        names = [f'"c{i}"' for i in range(len(self.kinds))]
        exprs = [_expressions(kind, f"cairn_q.{name}", self.cell_limit) for kind, name in zip(self.kinds, names)]
        select = ", ".join(e for group in exprs for e in group)
        return f"SELECT {select} FROM (\n{inner}\n) AS cairn_q({', '.join(names)})"

    def decode(self, row: Any, collector: RowCollector) -> tuple[list[Any], list[bool]]:
        """The original row from the wrapped one; cut cells marked with their original size."""
        cells: list[Any] = []
        premarked: list[bool] = []
        i = 0
        for kind in self.kinds:
            if kind == "keep":
                cells.append(row[i])
                premarked.append(False)
                i += 1
                continue
            value, size = row[i], row[i + 1]
            if kind == "as_text":
                prefix = row[i + 2]
                i += 3
            else:
                prefix = value
                i += 2
            cut = size is not None
            cells.append(collector.mark(prefix, int(size)) if cut else value)
            premarked.append(cut)
        return cells, premarked


def plan_trim(conn: Any, description: Any, limits: QueryLimits) -> TrimPlan | None:
    """How to cut this result's long values on the server; None when no column can hold a long value."""
    if not description:
        return None
    lengths = _type_lengths(conn, {d.type_code for d in description})
    kinds = tuple(_kind(d, lengths, limits.max_cell_bytes) for d in description)
    long_columns = sum(kind != "keep" for kind in kinds)
    if not long_columns:
        return None
    # a row of many long columns must still fit the byte cap, markers and short columns included
    limit = max(256, min(limits.max_cell_bytes, limits.max_bytes // (long_columns + 1)))
    worst = sum(_weight(d) if kind == "keep" else 4 * limit + 32 for d, kind in zip(description, kinds))
    return TrimPlan(kinds, limit, max(worst, 1))


def _kind(column: Any, lengths: dict[int, int], limit: int) -> str:
    oid = column.type_code
    declared = column.display_size  # varchar(n) / char(n): n characters at most
    if oid in _BOUNDED_OIDS:
        return "keep"
    if oid in _TEXT_OIDS or oid == _BPCHAR_OID:
        if declared is not None and 0 < declared <= limit:
            return "keep"
        return "as_text" if oid == _BPCHAR_OID else "cut_text"  # left(char(n)) would drop its padding
    if oid == _BYTEA_OID:
        return "cut_bytes"
    return "keep" if lengths.get(oid, -1) > 0 else "as_text"


def _weight(column: Any) -> int:
    if column.type_code == _NUMERIC_OID:
        return 160 * 1024  # numeric's longest text form
    if column.display_size:
        return 4 * int(column.display_size) + 32
    return 64


def _bounded_row_bytes(description: Any) -> int:
    return max(1, sum(_weight(d) for d in description))


def _expressions(kind: str, col: str, limit: int) -> tuple[str, ...]:
    if kind == "keep":
        return (col,)
    if kind == "cut_text":
        over = f"char_length({col}) > {limit}"
        return (f"CASE WHEN {over} THEN left({col}, {limit}) ELSE {col} END",
                f"CASE WHEN {over} THEN octet_length({col}) END")
    if kind == "cut_bytes":
        over = f"octet_length({col}) > {limit}"
        return (f"CASE WHEN {over} THEN substr({col}, 1, {limit}) ELSE {col} END",
                f"CASE WHEN {over} THEN octet_length({col}) END")
    text = f"({col})::text"
    over = f"octet_length({text}) > {limit}"
    return (f"CASE WHEN {over} THEN NULL ELSE {col} END",
            f"CASE WHEN {over} THEN octet_length({text}) END",
            f"CASE WHEN {over} THEN left({text}, {limit}) END")


def _type_lengths(conn: Any, oids: set[int]) -> dict[int, int]:
    """``pg_type.typlen`` of the types not known here (enums, domains, extensions' types)."""
    wanted = {o for o in oids if o not in _BOUNDED_OIDS and o not in _TEXT_OIDS and o not in (_BYTEA_OID, _BPCHAR_OID)}
    found = {o: _typlen_cache[o] for o in wanted if o in _typlen_cache}
    missing = sorted(wanted - found.keys())
    if missing:
        rows = conn.execute(
            "SELECT oid::int8, typlen FROM pg_catalog.pg_type WHERE oid::int8 = ANY(%s)", (missing,)
        ).fetchall()
        for oid, typlen in rows:
            found[int(oid)] = int(typlen)
            if int(oid) < _FIRST_USER_OID:
                _typlen_cache[int(oid)] = int(typlen)
    return found


def _without_trailing_semicolons(sql: str) -> str | None:
    """``sql`` without its trailing ``;`` (and what follows them); None when it cannot be tokenized."""
    import sqlglot
    from sqlglot.tokens import TokenType

    try:
        tokens = sqlglot.tokenize(sql, read="postgres")
    except sqlglot.errors.SqlglotError:
        return None
    end = len(tokens)
    while end > 0 and tokens[end - 1].token_type == TokenType.SEMICOLON:
        end -= 1
    if end == 0:
        return None
    if end == len(tokens):
        return sql
    return sql[: tokens[end].start]
