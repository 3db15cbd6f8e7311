"""Brackets left out of a sum that is divided: read with them where the division as written means nothing — a value
over itself, a ratio subtracted from its own denominator, ``6 % 7`` or ``1 / 2`` of two whole numbers
(``core/sql/repair/_arithmetic.py``)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.databases import open_database
from core.schema import Column, Schema, Table
from core.sql import validate_sql
from tests.scripted_asking import ask

SCHEMA = Schema(dialect="sqlite", tables=(Table("sale", (Column("id", "integer"), Column("price", "real"),
                                                          Column("cost", "real"), Column("sold", "text"))),))


@pytest.mark.parametrize(("sql", "read"), [
    ("SELECT SUM(price) - SUM(cost) / SUM(cost) * 100 AS markup FROM sale", "(SUM(price) - SUM(cost)) / SUM(cost) * 100"),
    ("SELECT SUM(price) - SUM(cost) / SUM(price) AS margin FROM sale", "(SUM(price) - SUM(cost)) / SUM(price)"),
    ("SELECT price - LAG(price) OVER (ORDER BY id) / LAG(price) OVER (ORDER BY id) FROM sale",
     "(price - LAG(price) OVER (ORDER BY id)) / LAG(price) OVER (ORDER BY id)"),
    ("SELECT DATE('now', '-' || (STRFTIME('%w', 'now') + 6 % 7) || ' days') FROM sale",
     "((STRFTIME('%w', 'now') + 6) % 7)"),
    ("SELECT price FROM sale ORDER BY price LIMIT 1 OFFSET (SELECT COUNT(*) - 1 / 2 FROM sale)",
     "(COUNT(*) - 1) / 2"),
])
def test_a_division_that_means_nothing_is_read_with_brackets(sql: str, read: str) -> None:
    out = validate_sql(sql, SCHEMA, "sqlite")
    assert read in out.sql, out.sql
    assert any("read with brackets" in f and "(a guess" in f for f in out.fixes)


@pytest.mark.parametrize("sql", [
    "SELECT price - cost / 2 FROM sale",  # three different terms: a formula as written
    "SELECT 1 - cost / price FROM sale",
    "SELECT 1 - price / 1 FROM sale",  # a literal is no term
    "SELECT (price - cost) / price FROM sale",
    "SELECT price + 8 % 7 FROM sale",  # 8 % 7 is 1: it does something
    "SELECT price - 1.0 / 2 FROM sale",  # half, not 0
    "SELECT SUM(price) / SUM(price) FROM sale",  # no sum around it
    "SELECT price + 1.0 / price FROM sale",  # x + 1/x: a term of its own (attack 16)
])
def test_a_formula_as_written_stays(sql: str) -> None:
    assert not any("brackets" in f for f in validate_sql(sql, SCHEMA, "sqlite").fixes)


def test_the_margin_asked_is_answered(tmp_path: Path) -> None:
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE sale(id INTEGER PRIMARY KEY, price REAL, cost REAL);"
                           "INSERT INTO sale VALUES (1, 120, 100), (2, 80, 50);")
    db = open_database(str(path))
    try:
        answer = ask(db, "What is the gross profit margin percentage over all sales?",
                     "SELECT SUM(price) - SUM(cost) / SUM(cost) * 100 AS gpm FROM sale")
        assert [tuple(r) for r in answer.rows] == [(pytest.approx(33.3333, rel=1e-3),)]
        assert any("divides a value by itself" in n for n in answer.notes)
    finally:
        db.close()


def test_duckdb_divides_whole_numbers_to_a_fraction(tmp_path: Path) -> None:
    """Attack 16: DuckDB's ``1 / 2`` is 0.5, so ``FLOOR(score + 1 / 2)`` rounds half up as written."""
    path = tmp_path / "s.csv"
    path.write_text("id,score\n1,7\n2,3\n")
    db = open_database(str(path))
    try:
        answer = ask(db, "Each id with its score rounded", "SELECT id, FLOOR(score + 1 / 2) AS r FROM s ORDER BY id")
        assert [tuple(r) for r in answer.rows] == [(1, 7), (2, 3)]
        assert not any("brackets" in n for n in answer.notes)
        kept = validate_sql("SELECT price + 6 % 7 FROM sale", SCHEMA, "duckdb")  # % is the same everywhere
        assert "(price + 6) % 7" in kept.sql
    finally:
        db.close()
