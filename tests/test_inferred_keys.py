"""Join keys a database does not declare: inferred by naming convention, kept only when the data agrees."""

from __future__ import annotations

import sqlite3
from datetime import date
from pathlib import Path

import psycopg

from core.databases import open_database
from core.fallback import fallback_sql
from core.sql import validate_sql

_SHOP = """
CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT, city TEXT);
CREATE TABLE stores (id INTEGER PRIMARY KEY, label TEXT);
CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, store_id INTEGER, total REAL);
CREATE TABLE notes (note_id INTEGER PRIMARY KEY, customer_id TEXT, body TEXT);
CREATE TABLE visits (visit_id INTEGER PRIMARY KEY, store_id INTEGER);
INSERT INTO customers VALUES (1, 'Asha', 'Pune'), (2, 'Ravi', 'Delhi');
INSERT INTO stores VALUES (10, 'North'), (20, 'South');
INSERT INTO orders VALUES (100, 1, 10, 5.0), (101, 2, 20, 7.5), (102, 1, NULL, 1.0);
INSERT INTO notes VALUES (1, 'one', 'text ids do not match integer keys');
INSERT INTO visits VALUES (1, 10), (2, 99);
"""


def _keys(schema) -> set[tuple[str, str, str, str, bool]]:
    return {(t.name, fk.columns[0], fk.ref_table, fk.ref_columns[0], fk.inferred)
            for t in schema.tables for fk in t.foreign_keys}


def _shop_schema(tmp_path: Path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(_SHOP)
    db = open_database(str(path))
    try:
        return db.schema()
    finally:
        db.close()


def test_sqlite_keys_inferred_and_checked(tmp_path: Path) -> None:
    keys = _keys(_shop_schema(tmp_path))
    assert ("orders", "customer_id", "customers", "customer_id", True) in keys  # same name as the key
    assert ("orders", "store_id", "stores", "id", True) in keys  # <table>_id -> <table>.id
    assert not any(k[0] == "notes" for k in keys)  # text column, integer key: types disagree
    assert not any(k[0] == "visits" for k in keys)  # store 99 does not exist: the data contradicts it


def test_inferred_keys_let_the_fallback_join_but_prove_no_join_removable(tmp_path: Path) -> None:
    schema = _shop_schema(tmp_path)
    answer = fallback_sql("how many orders per city", schema, today=date(2026, 12, 4))
    assert answer is not None and "JOIN customers" in answer.sql
    sql = "SELECT o.total FROM orders AS o JOIN customers AS c ON c.customer_id = o.customer_id"
    assert validate_sql(sql, schema, "sqlite").fixes == ()  # not enforced by the database: the join stays


def test_postgres_keys_inferred_and_checked(embedded_pg) -> None:
    embedded_pg.ensure_database("cairn_nofk")
    uri = embedded_pg.uri("cairn_nofk")
    with psycopg.connect(uri) as conn:
        conn.execute("DROP TABLE IF EXISTS orders, customers, visits, stores")
        conn.execute("CREATE TABLE customers (customer_id int PRIMARY KEY, name text)")
        conn.execute("CREATE TABLE stores (id int PRIMARY KEY, label text)")
        conn.execute("CREATE TABLE orders (order_id int PRIMARY KEY, customer_id int NOT NULL, store_id int)")
        conn.execute("CREATE TABLE visits (visit_id int PRIMARY KEY, store_id int)")
        conn.execute("INSERT INTO customers VALUES (1, 'Asha'), (2, 'Ravi')")
        conn.execute("INSERT INTO stores VALUES (10, 'North')")
        conn.execute("INSERT INTO orders VALUES (100, 1, 10), (101, 2, NULL)")
        conn.execute("INSERT INTO visits VALUES (1, 10), (2, 99)")
    db = open_database(uri)
    try:
        keys = _keys(db.schema(refresh=True))
    finally:
        db.close()
    assert ("orders", "customer_id", "customers", "customer_id", True) in keys
    assert ("orders", "store_id", "stores", "id", True) in keys
    assert not any(k[0] == "visits" for k in keys)
