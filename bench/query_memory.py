"""Bench: peak memory (RSS) and wall time of the worst queries, each in a fresh process.

Run from the repository root: ``.venv/bin/python -m bench.query_memory [--timeout 30] [--only TEXT]``.

The queries that once grew the CLI to gigabytes or filled the disk: 100 MB cells, millions of rows, a sort
that spills to temporary files, giant SQLite blobs and endless recursive sorts. An embedded PostgreSQL with the
sample database is started in a temporary CAIRN_DATA_DIR; each query runs through ``Database.execute`` with the
product's default ``QueryLimits`` (the timeout from ``--timeout``) in its own child process, and the child's
peak RSS is read from ``os.wait4``. PostgreSQL queries run as the read-only query role (as questions do), the
spill query also as the superuser, the only embedded role that may set ``temp_file_limit``.
For PostgreSQL the temporary files the query wrote are shown too (``pg_stat_database.temp_bytes``).
No targets: the figures are printed, not judged (the goal is under ~1 GB whatever the query).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PG_QUERIES = (
    ("baseline", "SELECT 1"),
    ("50 cells of 100 MB", "SELECT repeat('x', 1e8::int) FROM generate_series(1, 50)"),
    ("1e10 rows", "SELECT * FROM generate_series(1, 1e10)"),
    ("wide rows", "SELECT g, repeat('x', 300000) FROM generate_series(1, 100000) g"),
    ("json of 200 MB", "SELECT json_agg(repeat('j', 1000)) FROM generate_series(1, 200000)"),
    ("sort 1e9 rows", "SELECT * FROM generate_series(1, 1e9) ORDER BY 1 DESC"),
)
PG_SUPERUSER_QUERIES = (("sort 1e9 rows (superuser)", "SELECT * FROM generate_series(1, 1e9) ORDER BY 1 DESC"),)
SQLITE_QUERIES = (
    ("baseline", "SELECT 1"),
    ("randomblob(1e9)", "SELECT randomblob(1000000000)"),
    ("50 blobs of 50 MB", "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 50) "
                          "SELECT x, randomblob(50000000) FROM c"),
    ("endless sort", "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c ORDER BY x DESC"),
    ("group_concat endless", "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                             "SELECT group_concat(x) FROM c"),
)


def child(target: str, sql: str, timeout_s: float) -> None:
    """Run one query and print what came back, as JSON on one line."""
    from core.databases import QueryLimits, open_database
    from core.errors import CairnError

    db = open_database(target)
    started = time.perf_counter()
    try:
        result = db.execute(sql, limits=QueryLimits(timeout_s=timeout_s))
        out: dict[str, Any] = {"rows": len(result.rows), "truncated_by": result.truncated_by,
                               "cut_cells": result.truncated_cells}
    except CairnError as exc:
        out = {"error": type(exc).__name__, "message": str(exc)[:120]}
    out["query_s"] = round(time.perf_counter() - started, 2)
    db.close()
    print(json.dumps(out), flush=True)


def measure(target: str, sql: str, timeout_s: float, env: dict[str, str]) -> tuple[dict[str, Any], float, float]:
    """(outcome, peak RSS in MB, wall seconds) of one query in a fresh interpreter."""
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([sys.executable, "-m", "bench.query_memory", "--child", target, sql,
                                 "--timeout", str(timeout_s)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                stderr=err, text=True)
        assert proc.stdout is not None
        stdout = proc.stdout.read()  # not communicate(): it would reap the child before wait4 sees its usage
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        proc.stdout.close()
        err.seek(0)
        stderr = err.read()
    wall = time.perf_counter() - started
    rss_kib = usage.ru_maxrss // 1024 if sys.platform == "darwin" else usage.ru_maxrss  # bytes on macOS
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    outcome = json.loads(lines[-1]) if lines else {"error": "crashed", "message": stderr.strip()[-200:]}
    return outcome, rss_kib / 1024, wall


def _describe(outcome: dict[str, Any]) -> str:
    if "error" in outcome:
        return f"{outcome['error']}: {outcome['message']}"
    cut = f", {outcome['cut_cells']} cells cut" if outcome["cut_cells"] else ""
    why = f", stopped by {outcome['truncated_by']} cap" if outcome["truncated_by"] else ""
    return f"{outcome['rows']} rows{why}{cut}"


def _temp_bytes(admin_uri: str) -> int:
    """Bytes of temporary files written in the sample database so far (statistics of ended sessions)."""
    import psycopg

    with psycopg.connect(admin_uri, autocommit=True) as conn:
        row = conn.execute("SELECT temp_bytes FROM pg_stat_database WHERE datname = current_database()").fetchone()
    return int(row[0]) if row else 0


def _sqlite_file(folder: Path) -> Path:
    path = folder / "bench.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
        conn.executemany("INSERT INTO t (name) VALUES (?)", [(f"row {i}",) for i in range(1000)])
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=30.0, help="statement timeout per query (s)")
    parser.add_argument("--only", default="", help="run only the queries whose label contains this text")
    parser.add_argument("--child", nargs=2, metavar=("TARGET", "SQL"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], args.child[1], args.timeout)
        return

    with tempfile.TemporaryDirectory(prefix="cairn-bench-") as tmp:
        folder = Path(tmp)
        env = {**os.environ, "CAIRN_DATA_DIR": str(folder / "data"), "PYTHONPATH": str(ROOT)}
        os.environ["CAIRN_DATA_DIR"] = env["CAIRN_DATA_DIR"]
        from core.databases import SAMPLE_DATABASE, EmbeddedPostgres, ensure_sample_database

        server = EmbeddedPostgres(folder / "pg")
        server.start()
        try:
            query_uri = ensure_sample_database(server)
            cases = [("postgres", query_uri, label, sql) for label, sql in PG_QUERIES]
            cases += [("postgres", server.uri(SAMPLE_DATABASE), label, sql) for label, sql in PG_SUPERUSER_QUERIES]
            lite = str(_sqlite_file(folder))
            cases += [("sqlite", lite, label, sql) for label, sql in SQLITE_QUERIES]
            admin_uri = server.uri(SAMPLE_DATABASE)
            print(f"{'backend':9} {'query':28} {'peak RSS':>9} {'wall':>7} {'temp files':>10}  outcome")
            for backend, target, label, sql in cases:
                if args.only and args.only not in label:
                    continue
                before = _temp_bytes(admin_uri) if backend == "postgres" else 0
                outcome, rss_mb, wall = measure(target, sql, args.timeout, env)
                temp = ""
                if backend == "postgres":
                    time.sleep(0.5)  # the ended session's statistics reach pg_stat_database
                    temp = f"{(_temp_bytes(admin_uri) - before) / 2**30:.2f} GB"
                print(f"{backend:9} {label:28} {rss_mb:7.0f} MB {wall:6.1f}s {temp:>10}  {_describe(outcome)}",
                      flush=True)
        finally:
            server.stop()


if __name__ == "__main__":
    main()
