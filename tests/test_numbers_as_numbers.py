"""A number the query formats as text (``printf('%.2f', AVG(x))``, ``TO_CHAR(SUM(x), 'FM990.00')``) is shown as the
number: Cairn's display formats numbers, and text sorts and charts as text (core.sql.repair._shown). Real SQLite;
the model is scripted."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.databases import open_database
from core.schema import Column, Schema, Table
from core.sql import validate_sql
from tests.scripted_asking import ask


@pytest.fixture()
def shop(tmp_path: Path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE sale(city TEXT, amount REAL);"
                           "INSERT INTO sale VALUES ('Pune', 9.5), ('Pune', 9.5), ('Agra', 10.25), ('Agra', 10.0);")
    db = open_database(str(path))
    yield db
    db.close()


def test_an_average_printed_as_text_is_shown_and_ordered_as_a_number(shop) -> None:
    answer = ask(shop, "Average sale per city, highest first",
                 "SELECT city, printf('%.1f', AVG(amount)) AS avg_amount FROM sale GROUP BY city ORDER BY avg_amount DESC")
    assert [tuple(r) for r in answer.rows] == [("Agra", 10.125), ("Pune", 9.5)]


def test_decimals_the_question_asks_for_are_kept_as_a_rounded_number(shop) -> None:
    answer = ask(shop, "Average sale per city rounded to 2 decimal places",
                 "SELECT city, printf('%.2f', AVG(amount)) AS avg_amount FROM sale GROUP BY city ORDER BY city")
    (agra, average), pune = [tuple(r) for r in answer.rows]
    assert agra == "Agra" and isinstance(average, float) and abs(average - 10.125) <= 0.0051 and round(average, 2) == average and pune == ("Pune", 9.5)


SCHEMA = Schema(tables=(Table("t", (Column("x", "REAL"), Column("d", "DATE"), Column("g", "TEXT"))),), dialect="postgres")


@pytest.mark.parametrize("sql", [
    "SELECT TO_CHAR(d, 'YYYY-MM') FROM t",  # a date's format: text on purpose
    "SELECT FORMAT('%s: %s', g, SUM(x)) FROM t GROUP BY g",  # words around the number
    "SELECT TO_CHAR(SUM(x), '\"$\"999') FROM t",
])
def test_text_made_on_purpose_is_left(sql: str) -> None:
    assert validate_sql(sql, SCHEMA, "postgres").fixes == ()
