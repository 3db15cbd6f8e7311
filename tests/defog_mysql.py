"""MariaDB copies of the defog databases (and Chinook) on a test MariaDB server, for the damaged-reply benchmark.

Each table of the database loaded into the embedded PostgreSQL (by its bare name) with its columns in MySQL's types
(text keys as VARCHAR(255), numerics as DECIMAL(30,10), timestamps as DATETIME(6)), its primary key and every row.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import psycopg

from tests.defog_loader import pg_tables
from tests.mariadb_server import MariaDB

__all__ = ["mysql_copy"]

_TYPES = (
    ("smallint", "SMALLINT"), ("bigint", "BIGINT"), ("integer", "INT"), ("numeric", "DECIMAL(30,10)"),
    ("double", "DOUBLE"), ("real", "DOUBLE"), ("boolean", "TINYINT(1)"), ("timestamp", "DATETIME(6)"),
    ("date", "DATE"), ("time", "TIME(6)"),
)


def _q(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _type(pg_type: str, key: bool) -> str:
    low = pg_type.lower()
    for needle, mysql in _TYPES:
        if low.startswith(needle):
            return mysql
    return "VARCHAR(255)" if key else "TEXT"


def _value(value: Any) -> Any:
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value.astimezone(dt.timezone.utc).replace(tzinfo=None)
    if isinstance(value, (list, dict)):
        return str(value)
    if isinstance(value, dt.timedelta):
        return str(value)
    return value


def mysql_copy(uri: str, name: str, server: MariaDB) -> str:
    """The URL (as root) of database ``name`` on ``server``, copied from the PostgreSQL database at ``uri`` once."""
    with server.admin() as admin, admin.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = %s", (name,))
        if cur.fetchone()[0]:
            return server.url(name)
        cur.execute(f"CREATE DATABASE {_q(name)} CHARACTER SET utf8mb4")
        cur.execute(f"USE {_q(name)}")
        with psycopg.connect(uri) as conn:
            for t in pg_tables(conn):
                defs = [f"{_q(c)} {_type(ty, c in t.primary_key)}" for c, ty, _ in t.columns]
                if t.primary_key:
                    defs.append(f"PRIMARY KEY ({', '.join(_q(c) for c in t.primary_key)})")
                cur.execute(f"CREATE TABLE {_q(t.name)} ({', '.join(defs)})")
                if t.rows:
                    marks = ", ".join("%s" for _ in t.columns)
                    cur.executemany(f"INSERT INTO {_q(t.name)} VALUES ({marks})",
                                    [tuple(_value(v) for v in row) for row in t.rows])
    return server.url(name)
