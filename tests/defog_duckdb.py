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

from tests.defog_loader import pg_tables

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
            for t in pg_tables(conn):
                defs = [f"{_q(c)} {_type(ty)}" for c, ty, _ in t.columns]
                if t.primary_key:
                    defs.append(f"PRIMARY KEY ({', '.join(_q(c) for c in t.primary_key)})")
                out.execute(f"CREATE TABLE {_q(t.name)} ({', '.join(defs)})")
                if t.rows:
                    marks = ", ".join("?" for _ in t.columns)
                    out.executemany(f"INSERT INTO {_q(t.name)} VALUES ({marks})",
                                    [tuple(_value(v) for v in row) for row in t.rows])
    finally:
        out.close()
    os.replace(tmp, path)
    return path
