"""A sort key after the grouped ones can never decide the order (each row is one group): under a LIMIT it was the
ranking, read first as a guess the model is shown first (core.sql.repair.grouping._order). Real SQLite; the model
is scripted and never improves."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.databases import open_database
from core.sql import validate_sql
from tests.scripted_asking import ask


@pytest.fixture()
def shop(tmp_path: Path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE sale(sale_id INTEGER, state TEXT, amount REAL);"
            "INSERT INTO sale VALUES (1,'AK',1),(2,'CA',50),(3,'CA',20),(4,'NY',30),(5,'TX',5);"
        )
    db = open_database(str(path))
    yield db
    db.close()


def test_a_ranking_written_after_the_grouped_label_is_read_first(shop) -> None:
    answer = ask(shop, "Top 2 states by total sales",
                 "SELECT state, SUM(amount) AS total FROM sale GROUP BY state ORDER BY state, total DESC LIMIT 2")
    assert [tuple(r) for r in answer.rows] == [("CA", 70.0), ("NY", 30.0)]
    assert any("never decided the order" in n and "(a guess)" in n for n in answer.notes)


def test_a_question_that_orders_by_the_label_keeps_it_first(shop) -> None:
    answer = ask(shop, "First 2 states alphabetically with their totals",
                 "SELECT state, SUM(amount) AS total FROM sale GROUP BY state ORDER BY state, total DESC LIMIT 2")
    assert [r[0] for r in answer.rows] == ["AK", "CA"]


@pytest.mark.parametrize("sql", [
    "SELECT state, SUM(amount) AS total FROM sale GROUP BY state ORDER BY state, total DESC",  # no LIMIT: same rows
    "SELECT state, amount FROM sale ORDER BY state, amount DESC LIMIT 2",  # not grouped: the second key breaks ties
    "SELECT state, SUM(amount) AS total FROM sale GROUP BY state, sale_id ORDER BY state, total DESC LIMIT 2",
    "SELECT state, SUM(amount) AS total FROM sale GROUP BY state ORDER BY total DESC, state LIMIT 2",
])
def test_keys_that_can_decide_the_order_are_left(sql: str) -> None:
    from core.schema import Column, Schema, Table

    schema = Schema(tables=(Table("sale", (Column("sale_id", "INTEGER"), Column("state", "TEXT"),
                                           Column("amount", "REAL"))),), dialect="sqlite")
    assert not any("never decided" in f for f in validate_sql(sql, schema, "sqlite").fixes)
