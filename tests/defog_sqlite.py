"""SQLite copies of the defog databases, the way most real SQLite files are: primary keys kept, **no foreign keys**.

Defog ships PostgreSQL dumps and SQLite gold queries (``questions/*_sqlite.csv``) but no SQLite files. A copy is
built from the database loaded into the embedded server: each table with its columns in SQLite affinities
(dates and timestamps as ISO text, booleans as 0/1, numerics as REAL), its primary key, and every row. The file
is written to a temporary name and renamed when complete, and reused while the dump is unchanged.
"""

from __future__ import annotations

import datetime as dt
import decimal
import hashlib
import os
import sqlite3
from pathlib import Path
from typing import Any

from tests.conftest import shared_data_path
from tests.defog_loader import load_defog, pg_tables

__all__ = ["sqlite_copy"]

_AFFINITY = (
    (("int", "serial"), "INTEGER"),
    (("numeric", "decimal", "real", "double", "float", "money"), "REAL"),
    (("bool",), "INTEGER"),
)


def _affinity(pg_type: str) -> str:
    low = pg_type.lower()
    for needles, affinity in _AFFINITY:
        if any(n in low for n in needles):
            return affinity
    return "TEXT"  # text, varchar, char, date, timestamp, time, interval, uuid, json...


def _value(value: Any) -> Any:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return str(value)
    if isinstance(value, (list, dict)):
        return str(value)
    return value


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def sqlite_copy(server: Any, name: str, dest: Path) -> Path:
    """Path of ``dest/<name>.sqlite``: defog database ``name`` copied out of ``server`` with no foreign keys."""
    import psycopg

    dump = shared_data_path("defog", name, f"{name}.sql")
    stamp = hashlib.sha256(dump.read_bytes()).hexdigest()[:16]
    dest.mkdir(parents=True, exist_ok=True)
    path = dest / f"{name}-{stamp}.sqlite"
    if path.exists():
        return path
    uri = load_defog(server, name)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.unlink(missing_ok=True)
    out = sqlite3.connect(tmp)
    try:
        with psycopg.connect(uri) as conn:
            for t in pg_tables(conn):  # SQLite has one namespace: a table of another schema by its name
                defs = [f"{_q(c)} {_affinity(ty)}{'' if n == 'YES' else ' NOT NULL'}" for c, ty, n in t.columns]
                if t.primary_key:
                    defs.append(f"PRIMARY KEY ({', '.join(_q(c) for c in t.primary_key)})")
                out.execute(f"CREATE TABLE {_q(t.name)} ({', '.join(defs)})")
                names = ", ".join(_q(c) for c, _, _ in t.columns)
                marks = ", ".join("?" for _ in t.columns)
                out.executemany(f"INSERT INTO {_q(t.name)} ({names}) VALUES ({marks})",
                                [tuple(_value(v) for v in row) for row in t.rows])  # fmt: skip
        out.commit()
    finally:
        out.close()
    os.replace(tmp, path)
    return path
