"""Issue 32, hardening 4 (resources): SQLite's temporary store and rows are capped. A value or stored row over
the byte cap fails before it is built (SQLITE_LIMIT_LENGTH); temporary b-trees and sorts stay in memory under
SQLite's heap limit, so an endless sort or a row of many long values ends with a clear "out of memory" error
instead of writing temporary files until the timeout (about 20 MB a second here) or filling memory. The heap
limit is process-wide and can only be lowered, so the checks that reach it run in a child process with a small
one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.databases import SqliteDatabase
from core.databases.sqlite._database import heap_limit
from core.errors import CairnError, QueryFailed

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("sql", [
    "SELECT zeroblob(1000000000) || 'x'",
    "SELECT replace(hex(zeroblob(40000000)), '0', 'xx')",
    "SELECT randomblob(1000000000)",
    ("SELECT group_concat(printf('%.*c', 1000000, 'x'), '') FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL "
    "SELECT x + 1 FROM c LIMIT 100) SELECT x FROM c)"),
])
def test_a_huge_value_fails_cleanly_before_it_is_built(lite: SqliteDatabase, sql: str) -> None:
    with pytest.raises(QueryFailed) as info:
        lite.execute(sql)
    assert isinstance(info.value, CairnError) and "limit on one value" in str(info.value)
    assert "shorter values" in info.value.hint
    assert lite.execute("SELECT count(*) FROM t").rows[0][0] == 100


def test_printf_past_the_cap_gives_null_not_a_gigabyte(lite: SqliteDatabase) -> None:
    # SQLite's printf stops at SQLITE_LIMIT_LENGTH and answers NULL (no error to report); the guard refuses a
    # width taken from an argument before this is reached (tests/test_guard_bounds.py)
    assert lite.execute("SELECT printf('%.*c', 200000000, 'x') AS s").rows[0][0] is None


def test_the_connection_keeps_temporary_data_in_memory_under_the_heap_limit(lite: SqliteDatabase) -> None:
    lite.execute("SELECT 1")
    conn = lite._conn
    assert conn is not None
    assert conn.execute("PRAGMA temp_store").fetchone()[0] == 2  # MEMORY: no temporary files
    assert 0 < conn.execute("PRAGMA hard_heap_limit").fetchone()[0] <= heap_limit()
    assert 256 * 1024 * 1024 <= heap_limit() <= 1024 * 1024 * 1024


_CHILD = """
import json, sqlite3, sys
from core.databases import QueryLimits, SqliteDatabase
from core.databases.sqlite import _database
from core.errors import CairnError
_database.heap_limit = lambda: 64 * 1024 * 1024
with sqlite3.connect(sys.argv[1]) as conn:
    conn.execute("CREATE TABLE IF NOT EXISTS t (x)")
db = SqliteDatabase(sys.argv[1])
out = []
for sql in sys.argv[2:]:
    try:
        db.execute(sql, limits=QueryLimits(timeout_s=300))
        out.append(["ok", "", ""])
    except CairnError as exc:
        out.append([type(exc).__name__, str(exc), exc.hint])
print(json.dumps(out))
"""


def test_an_endless_sort_and_a_row_of_long_values_stop_at_the_heap_limit(tmp_path: Path) -> None:
    queries = [
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c ORDER BY x DESC",
        "SELECT " + ", ".join("randomblob(30000000)" for _ in range(8)),  # 240 MB in one row, 30 MB a value
        "SELECT count(*) FROM t",
    ]
    done = subprocess.run([sys.executable, "-c", _CHILD, str(tmp_path / "child.sqlite"), *queries], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, check=True)
    sort, row, after = json.loads(done.stdout.splitlines()[-1])
    for kind, message, hint in (sort, row):
        assert kind == "QueryFailed" and "64.0 MB SQLite may use" in message and "LIMIT" in hint
    assert after[0] == "ok"
