"""Resource limits (issue "Hardening, round 2"): byte caps on fetched results, a cap on one cell, PostgreSQL
session limits (work_mem, temp_file_limit), SQLite value and time limits, and a total timeout on model calls.

Every query here would once have eaten gigabytes of memory or disk, or hung for minutes; each must now end with a
truncated, marked result or a clear Cairn error. No timing assertions beyond generous correctness bounds.
"""

from __future__ import annotations

import math
import socket
import threading
import time
from collections.abc import Iterator
from decimal import Decimal

import pytest

from core.databases import SAMPLE_DATABASE, EmbeddedPostgres, PostgresDatabase, QueryLimits, SqliteDatabase
from core.databases._fetch import RowCollector, human_size
from core.databases.postgres import _fetch as _fetch_postgres
from core.databases.sqlite._database import _Deadline
from core.errors import LLMTimeout, QueryFailed, QueryTimeout
from core.llm import OllamaAdmin, OllamaLLM
from core.llm._deadline import MAX_TIMEOUT_S, total_timeout_s

MB = 1024 * 1024
MARK = "… [truncated: "
HUGE_CELLS = "SELECT repeat('x', 100000000) AS big FROM generate_series(1, 50)"
WIDE_ROWS = "SELECT g, repeat('x', 300000) AS pad FROM generate_series(1, 1000) g"
SPILL = "SELECT * FROM generate_series(1, 1e9) ORDER BY 1 DESC"
ENDLESS_SQLITE = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c ORDER BY x DESC"


@pytest.fixture(scope="module")
def pg(sample_db_uri: str) -> Iterator[PostgresDatabase]:
    """The sample database as questions reach it: the read-only query role."""
    db = PostgresDatabase(sample_db_uri)
    yield db
    db.close()


@pytest.fixture(scope="module")
def pg_super(embedded_pg: EmbeddedPostgres, sample_db_uri: str) -> Iterator[PostgresDatabase]:
    """The sample database as the embedded superuser, which may set temp_file_limit."""
    db = PostgresDatabase(embedded_pg.uri(SAMPLE_DATABASE))
    yield db
    db.close()


def _cut(value: object) -> bool:
    if isinstance(value, bytes):
        return MARK.encode() in value
    return isinstance(value, str) and MARK in value


def _settings(db: PostgresDatabase, limits: QueryLimits = QueryLimits()) -> tuple[str, ...]:
    sql = "SELECT current_setting('statement_timeout'), current_setting('work_mem'), current_setting('temp_file_limit')"
    return db.execute(sql, limits=limits).rows[0]


# -- the caps themselves ----------------------------------------------------------------------------------------


def test_collector_stops_at_the_byte_cap_and_says_why() -> None:
    collector = RowCollector(QueryLimits(max_bytes=10_000, max_cell_bytes=1000).clamped())
    kept = 0
    while collector.add((kept, "y" * 900)):
        kept += 1
    assert 0 < kept < 12 and collector.stopped_by == "bytes" and collector.bytes <= 10_000
    result = collector.result(("n", "pad"), time.perf_counter())
    assert result.truncated and result.truncated_by == "bytes" and "limit on fetched data" in result.note
    cut = RowCollector(QueryLimits(max_cell_bytes=1000).clamped())
    assert cut.add(("z" * 5000, b"\0" * 5000, 7))
    text, blob, number = cut.rows[0]
    assert text == "z" * 1000 + "… [truncated: 4.9 KB]" and blob.startswith(b"\0" * 1000) and _cut(blob)
    assert number == 7 and cut.cut_cells == 2 and "cut short" in cut.result(("a", "b", "c"), 0.0).note


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -5.0, 0.0, "soon"])
def test_nonsense_timeouts_never_switch_the_timeout_off(bad: object) -> None:
    limits = QueryLimits(timeout_s=bad, max_bytes=float("nan"), max_rows=-3).clamped()  # type: ignore[arg-type]
    assert 0 < limits.timeout_s <= 3600 and math.isfinite(limits.timeout_s)
    assert limits.max_bytes == 64 * MB and limits.max_rows == 0
    assert math.isfinite(_Deadline(bad)._at)  # type: ignore[arg-type]  # SQLite's progress handler clamps too
    assert 0 < total_timeout_s(bad, 120.0) <= MAX_TIMEOUT_S


# -- PostgreSQL ---------------------------------------------------------------------------------------------------


def test_pg_huge_cells_are_cut_on_the_server(pg: PostgresDatabase) -> None:
    result = pg.execute(HUGE_CELLS)  # 50 x 100 MB: once 5.3 GB of memory and a MemoryError
    assert len(result.rows) == 50 and not result.truncated and result.truncated_cells == 50
    cell = result.rows[0][0]
    assert cell.startswith("xxxx") and cell.endswith(f"{MARK}{human_size(100_000_000)}]")
    assert len(cell) <= MB + 40 and "cut short" in result.note


def test_pg_wide_rows_stop_at_the_byte_cap(pg: PostgresDatabase) -> None:
    result = pg.execute(WIDE_ROWS, limits=QueryLimits(max_bytes=4 * MB))
    assert result.truncated and result.truncated_by == "bytes" and 0 < len(result.rows) < 20
    assert sum(len(r[1]) for r in result.rows) <= 4 * MB and result.truncated_cells == 0
    assert "4.0 MB limit on fetched data" in result.note
    rows = pg.execute("SELECT order_id FROM orders", limits=QueryLimits(max_rows=10))
    assert rows.truncated_by == "rows" and "row limit of 10" in rows.note


def test_pg_short_values_keep_their_types_and_long_ones_of_any_type_are_cut(pg: PostgresDatabase) -> None:
    short = pg.execute("SELECT 'ab'::char(4) AS c, '{\"a\": 1}'::jsonb AS j, '\\x0102'::bytea AS b, "
                       "ARRAY[1, 2] AS a, 'plain' AS t, 1.5::numeric AS n")
    assert short.rows == (("ab  ", {"a": 1}, b"\x01\x02", [1, 2], "plain", Decimal("1.5")),)
    long = pg.execute("SELECT to_jsonb(repeat('j', 2000000)) AS j, decode(repeat('ab', 2000000), 'hex') AS b, "
                      "ARRAY(SELECT repeat('z', 1000) FROM generate_series(1, 3000)) AS a, "
                      "repeat('q', 2000000)::char(2000000) AS c, 1 AS n")
    j, b, a, c, n = long.rows[0]
    assert all(_cut(v) for v in (j, b, a, c)) and isinstance(b, bytes) and n == 1
    assert long.truncated_cells == 4 and all(len(v) <= MB + 40 for v in (j, b, a, c))


def test_pg_many_long_columns_share_the_byte_cap(pg: PostgresDatabase) -> None:
    columns = ", ".join(f"repeat('w', 300000) AS c{i}" for i in range(40))
    result = pg.execute(f"SELECT {columns}", limits=QueryLimits(max_bytes=2 * MB))
    assert len(result.rows) == 1 and result.truncated_cells == 40  # 40 x 300 kB would not fit 2 MB: each cut
    assert sum(len(v) for v in result.rows[0]) <= 2 * MB


def test_pg_query_the_wrapper_cannot_take_is_still_cut_after_fetching(
    pg: PostgresDatabase, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_fetch_postgres.TrimPlan, "wrap", lambda self, sql: "SELECT no_such_column")
    result = pg.execute("SELECT g, repeat('v', 2000000) AS pad FROM generate_series(1, 3) g;  -- trailing")
    assert [r[0] for r in result.rows] == [1, 2, 3] and all(_cut(r[1]) for r in result.rows)
    assert result.truncated_cells == 3


def test_pg_trailing_semicolons_comments_and_duplicate_names(pg: PostgresDatabase) -> None:
    result = pg.execute("SELECT name, name FROM customers ORDER BY customer_id LIMIT 2; -- done")
    assert result.columns == ("name", "name") and len(result.rows) == 2 and result.rows[0][0] == result.rows[0][1]
    assert pg.execute("SELECT $$a;b$$ AS t;").rows == (("a;b",),)


def test_pg_session_limits_in_each_query(pg: PostgresDatabase, pg_super: PostgresDatabase) -> None:
    timeout, work_mem, temp = _settings(pg)
    assert (timeout, work_mem) == ("30s", "32MB")
    # The embedded query role is no superuser, but it was granted SET ON PARAMETER temp_file_limit.
    assert temp == "1GB" and pg._may_limit_temp is True
    assert _settings(pg_super) == ("30s", "32MB", "1GB")
    assert _settings(pg_super, QueryLimits(timeout_s=float("nan"), temp_file_bytes=5 * MB))[::2] == ("30s", "5MB")
    assert _settings(pg_super, QueryLimits(timeout_s=float("inf")))[0] == "1h"
    assert _settings(pg)[1] == "32MB" and pg.execute("SHOW work_mem").rows == (("32MB",),)


def test_the_query_role_spills_no_more_than_its_limit(pg: PostgresDatabase) -> None:
    with pytest.raises(QueryFailed) as info:
        pg.execute(SPILL, limits=QueryLimits(temp_file_bytes=16 * MB, timeout_s=120))
    assert "temporary disk space" in str(info.value)


def test_pg_temp_spill_ends_with_a_clear_error(pg_super: PostgresDatabase) -> None:
    started = time.perf_counter()
    with pytest.raises(QueryFailed) as info:
        pg_super.execute(SPILL, limits=QueryLimits(temp_file_bytes=16 * MB, timeout_s=120))
    assert time.perf_counter() - started < 60  # a bound on correctness: the limit, not the timeout, stopped it
    assert "temporary disk space" in str(info.value) and "16.0 MB" in str(info.value)
    assert "LIMIT" in info.value.hint
    assert pg_super.execute("SELECT 1").rows == ((1,),)


@pytest.mark.parametrize("sql", [
    "INSERT INTO orders (order_id) VALUES (999999)",
    "SELECT lo_create(0)::text AS x",  # a write through a function, in the server-side-cut path
    "WITH d AS (DELETE FROM orders RETURNING 1) SELECT count(*) FROM d",
    "SELECT 1; DELETE FROM orders",
])
def test_pg_still_refuses_writes(pg_super: PostgresDatabase, sql: str) -> None:
    before = pg_super.execute("SELECT count(*) FROM orders").rows
    with pytest.raises(QueryFailed) as info:
        pg_super.execute(sql)  # even as the superuser: the transaction is read-only
    assert "read-only" in str(info.value) or "multiple commands" in str(info.value)
    assert pg_super.execute("SELECT count(*) FROM orders").rows == before


# -- SQLite -------------------------------------------------------------------------------------------------------


def test_sqlite_giant_value_fails_fast(lite: SqliteDatabase) -> None:
    started = time.perf_counter()
    with pytest.raises(QueryFailed) as info:
        lite.execute("SELECT randomblob(1000000000)")
    assert time.perf_counter() - started < 10
    assert "larger than the 64.0 MB limit" in str(info.value) and info.value.hint
    assert lite.execute("SELECT count(*) FROM t").rows == ((100,),)


def test_sqlite_long_cells_are_cut_and_wide_rows_stop(lite: SqliteDatabase) -> None:
    cells = lite.execute("SELECT randomblob(5000000) AS b, printf('%.*c', 3000000, 'x') AS s, 1 AS n")
    b, s, n = cells.rows[0]
    assert isinstance(b, bytes) and _cut(b) and _cut(s) and n == 1 and cells.truncated_cells == 2
    wide = lite.execute("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 200) "
                        "SELECT x, randomblob(2000000) FROM c", limits=QueryLimits(max_bytes=8 * MB))
    assert wide.truncated_by == "bytes" and 0 < len(wide.rows) < 10 and "8.0 MB" in wide.note
    assert wide.truncated_cells == len(wide.rows)


def test_sqlite_endless_sort_hits_the_timeout(lite: SqliteDatabase) -> None:
    started = time.perf_counter()
    with pytest.raises(QueryTimeout):
        lite.execute(ENDLESS_SQLITE, limits=QueryLimits(timeout_s=1.0))
    assert time.perf_counter() - started < 30
    assert lite.execute("SELECT 1").rows == ((1,),)


@pytest.mark.parametrize("sql", ["DELETE FROM t", "PRAGMA query_only = OFF", "ATTACH ':memory:' AS m"])
def test_sqlite_still_refuses_writes(lite: SqliteDatabase, sql: str) -> None:
    with pytest.raises(QueryFailed):
        lite.execute(sql)
    assert lite.execute("SELECT count(*) FROM t").rows == ((100,),)


# -- the model: a total timeout ------------------------------------------------------------------------------------


def test_slow_drip_model_times_out_in_total(fake_ollama) -> None:
    fake_ollama.chat_drip_s = 0.5  # a reply of ~300 bytes, one byte every 0.5 s: minutes if waited for
    llm = OllamaLLM(fake_ollama.url, "qwen2.5-coder:7b", timeout_s=2)
    started = time.perf_counter()
    with pytest.raises(LLMTimeout) as info:
        llm.chat("system", "How many orders?")
    assert time.perf_counter() - started < 20  # far before the server would have finished
    assert "in time" in str(info.value) and "timeout" in info.value.hint.lower()
    fake_ollama.chat_drip_s = 0.0
    fake_ollama.enqueue_chat("SELECT 1")
    assert llm.chat("system", "again") == "SELECT 1"  # the same object answers the next question
    llm.close()


class _HeadersThenNothing:
    """Answers every request with headers and one byte of body, then stays silent until closed."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.stop = threading.Event()
        self.conns: list[socket.socket] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{")

    def close(self) -> None:
        self.stop.set()
        self.sock.close()
        for conn in self.conns:
            conn.close()


@pytest.fixture
def stalled() -> Iterator[_HeadersThenNothing]:
    server = _HeadersThenNothing()
    yield server
    server.close()


def test_headers_then_nothing_times_out_for_chat_and_quick_admin_calls(stalled: _HeadersThenNothing) -> None:
    llm = OllamaLLM(stalled.url, "qwen2.5-coder:7b", timeout_s=1.5)
    started = time.perf_counter()
    with pytest.raises(LLMTimeout):
        llm.chat("system", "question")
    with pytest.raises(LLMTimeout):
        llm.version()
    admin = OllamaAdmin(stalled.url, timeout_s=1.5)
    with pytest.raises(LLMTimeout):
        admin.list_models()
    status = admin.status()  # never raises: says what is wrong
    assert not status.running and "in time" in status.message
    assert time.perf_counter() - started < 30  # four calls of 1.5 s each, not four per-read timeouts or more
    llm.close()
    admin.close()
