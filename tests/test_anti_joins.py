"""A LEFT JOIN anti-join that tests the kept side's key for NULL, read on the joined side (core.sql.repair.filters.
_anti_join): only a key that is never NULL, of a table the query keeps every row of; a nullable column, a table that is
itself optional, or two LEFT JOINs on the column are left as written."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlglot

from core.databases import open_database
from core.sql._validate import validate
from tests.scripted_asking import ask


@pytest.fixture()
def shop(tmp_path: Path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE c(id INTEGER PRIMARY KEY, name TEXT, dept_id INTEGER);"
            "CREATE TABLE o(oid INTEGER PRIMARY KEY, c_id INTEGER); CREATE TABLE p(pid INTEGER, order_id INTEGER);"
            "CREATE TABLE d(id INTEGER PRIMARY KEY, active INTEGER);"
            "INSERT INTO c VALUES (1,'a',1),(2,'b',NULL),(3,'c',9); INSERT INTO o VALUES (10,1),(11,1),(12,3);"
            "INSERT INTO p VALUES (100, 10); INSERT INTO d VALUES (1, 1);")
    db = open_database(str(path))
    yield db
    db.close()


def test_the_kept_sides_key_tested_for_null_is_read_on_the_joined_side(shop) -> None:
    answer = ask(shop, "Which customers have no orders?",
                 "SELECT c.name FROM c LEFT JOIN o ON c.id = o.c_id WHERE c.id IS NULL")
    assert [tuple(r) for r in answer.rows] == [("b",)]
    assert any("(a guess)" in n and "o.c_id IS NULL" in n for n in answer.notes)


@pytest.mark.parametrize("sql", [
    "SELECT c.name FROM c LEFT JOIN o ON c.id = o.c_id WHERE o.c_id IS NULL",  # the anti-join as meant
    "SELECT c.name FROM c LEFT JOIN d ON c.dept_id = d.id WHERE c.dept_id IS NULL",  # nullable: "not assigned"
    "SELECT c.name FROM c LEFT JOIN o ON c.id = o.c_id LEFT JOIN p ON o.oid = p.order_id WHERE o.oid IS NULL",
    "SELECT c.name FROM c LEFT JOIN o ON c.id = o.c_id LEFT JOIN d ON c.id = d.id WHERE c.id IS NULL",  # which one?
    "SELECT c.name FROM c LEFT JOIN o ON c.id = o.c_id WHERE c.id IS NULL OR c.name = 'a'",  # not a plain conjunct
])
def test_other_null_tests_after_a_left_join_are_left(shop, sql: str) -> None:
    checked = validate(sqlglot.parse_one(sql, read="sqlite"), shop.schema(), "sqlite", question="Which customers?")
    assert not any("never NULL" in f for f in checked.fixes)
