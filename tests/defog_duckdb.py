"""DuckDB copies of the defog databases (and Chinook), for the damaged-reply benchmark and tests on the files backend.

Built from the database loaded into the embedded server: each table (of any PostgreSQL namespace, by its name) with
its columns in DuckDB's types (PostgreSQL's own names mostly; the rest as VARCHAR), its primary key, and every row.
Written to a temporary name and renamed when complete; reused while the source is unchanged.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
from pathlib import Path
from typing import Any

import duckdb
import psycopg

__all__ = ["duckdb_copy"]

_KEEP = ("smallint", "integer", "bigint", "numeric", "real", "double precision", "boolean", "date", "text",
         "character varying", "character", "timestamp without time zone", "timestamp with time zone", "time",
         "interval", "uuid")


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _type(pg_type: str) -> str:
    low = pg_type.lower()
    if low == "timestamp with time zone":
        return "TIMESTAMPTZ"
    if low.startswith(("time without", "time with")):
        return "TIME"
    return pg_type.upper() if low in _KEEP else "VARCHAR"


def _value(value: Any) -> Any:
    if isinstance(value, (list, dict)):
        return str(value)
    if isinstance(value, dt.timedelta):
        return value
    return value


def duckdb_copy(uri: str, name: str, dest: Path, stamp_source: bytes) -> Path:
    """Path of ``dest/<name>-<stamp>.duckdb``: the database at ``uri`` copied into a DuckDB file."""
    stamp = hashlib.sha256(stamp_source).hexdigest()[:16]
    dest.mkdir(parents=True, exist_ok=True)
    path = dest / f"{name}-{stamp}.duckdb"
    if path.exists():
        return path
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.unlink(missing_ok=True)
    out = duckdb.connect(str(tmp))
    try:
        with psycopg.connect(uri) as conn:
            tables = conn.execute(
                "SELECT table_schema, table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE' "
                "AND table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY table_schema <> 'public', "
                "table_schema, table_name").fetchall()  # fmt: skip
            done: set[str] = set()
            for namespace, table in tables:
                if table.lower() in done:
                    continue
                done.add(table.lower())
                qualified = f"{_q(namespace)}.{_q(table)}"
                cols = conn.execute(
                    "SELECT column_name, data_type, is_nullable FROM information_schema.columns "
                    "WHERE table_schema = %s AND table_name = %s ORDER BY ordinal_position", (namespace, table)
                ).fetchall()
                pk = [r[0] for r in conn.execute(
                    "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid "
                    "AND a.attnum = ANY(i.indkey) WHERE i.indrelid = %s::regclass AND i.indisprimary "
                    "ORDER BY array_position(i.indkey, a.attnum)", (qualified,))]  # fmt: skip
                defs = [f"{_q(c)} {_type(t)}" for c, t, _ in cols]
                if pk:
                    defs.append(f"PRIMARY KEY ({', '.join(_q(c) for c in pk)})")
                out.execute(f"CREATE TABLE {_q(table)} ({', '.join(defs)})")
                names = ", ".join(_q(c) for c, _, _ in cols)
                rows = conn.execute(f"SELECT {names} FROM {qualified}").fetchall()  # type: ignore[arg-type]
                if rows:
                    marks = ", ".join("?" for _ in cols)
                    out.executemany(f"INSERT INTO {_q(table)} VALUES ({marks})",
                                    [tuple(_value(v) for v in row) for row in rows])
    finally:
        out.close()
    os.replace(tmp, path)
    return path
