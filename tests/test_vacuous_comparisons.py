"""Comparisons that run but hold on every row or on none, read as the one meant, each a guess the model is shown
first (core.sql.repair._vacuous): positions against -1, a pattern on LIKE's left, ``_`` for ``%`` around a word,
COUNT of a condition; and windows over the groups the question does not ask for (grouping._windows)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.databases import open_database
from core.sql._guard import guard
from tests.scripted_asking import ask


@pytest.fixture()
def shop(tmp_path: Path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE place(id INTEGER, name TEXT, food TEXT, city TEXT, rating REAL);"
            "INSERT INTO place VALUES (1,'Roma','Italian food','SF',4.5),(2,'Taj','Indian','SF',3.0),"
            "(3,'Luigi','Italian','LA',4.8),(4,'Wok','Chinese','LA',2.0),(5,'Pasta Italiana','Italian','LA',3.9);"
        )
    db = open_database(str(path))
    yield db
    db.close()


@pytest.mark.parametrize(("sql", "want"), [
    ("SELECT id FROM place WHERE INSTR(food, 'Italian') <> -1 ORDER BY id", [(1,), (3,), (5,)]),
    ("SELECT id FROM place WHERE INSTR(food, 'Italian') = -1 ORDER BY id", [(2,), (4,)]),
    ("SELECT id FROM place WHERE '%Italian%' LIKE food ORDER BY id", [(1,), (3,), (5,)]),
    ("SELECT id FROM place WHERE food LIKE '_Italian_' ORDER BY id", [(1,), (3,), (5,)]),
    ("SELECT COUNT(rating > 4) FROM place", [(2,)]),
])
def test_a_test_that_holds_on_every_row_or_none_is_read_as_meant(shop, sql: str, want: list) -> None:
    answer = ask(shop, "Which places serve Italian food, or how many are rated above 4?", sql)
    assert [tuple(r) for r in answer.rows] == want
    assert any("(a guess)" in n for n in answer.notes)


@pytest.mark.parametrize("sql", [
    "SELECT id FROM place WHERE INSTR(food, 'Italian') > 0",
    "SELECT id FROM place WHERE food LIKE 'J_n'",  # one character meant: a pattern of its own
    "SELECT COUNT(DISTINCT city) FROM place",
])
def test_tests_that_can_mean_what_they_say_are_left(sql: str) -> None:
    assert guard(sql, "sqlite").mended == ""


def test_a_share_of_the_total_unasked_is_read_as_the_groups_count(shop) -> None:
    answer = ask(shop, "How many places are there in each city?",
                 "SELECT city, 1.0 * COUNT(*) / SUM(COUNT(*)) OVER () AS n FROM place GROUP BY city ORDER BY city")
    assert [tuple(r) for r in answer.rows] == [("LA", 3), ("SF", 2)]
    asked = ask(shop, "What share of the places is in each city?",
                "SELECT city, 1.0 * COUNT(*) / SUM(COUNT(*)) OVER () AS share FROM place GROUP BY city ORDER BY city")
    assert [tuple(r) for r in asked.rows] == [("LA", 0.6), ("SF", 0.4)]


def test_a_running_total_unasked_is_read_as_the_groups_count(shop) -> None:
    sql = "SELECT city, SUM(COUNT(*)) OVER (ORDER BY city) AS n FROM place GROUP BY city ORDER BY city"
    assert [tuple(r) for r in ask(shop, "Number of places per city", sql).rows] == [("LA", 3), ("SF", 2)]
    assert [tuple(r) for r in ask(shop, "Cumulative number of places by city", sql).rows] == [("LA", 3), ("SF", 5)]


@pytest.mark.parametrize(("sql", "want"), [
    ("SELECT id FROM place WHERE LOWER('%italian%') LIKE LOWER(food) ORDER BY id", "LIKE LOWER('%italian%')"),
    ("SELECT id FROM place WHERE LOWER(food) LIKE LOWER('_italian_') ORDER BY id", "LIKE LOWER('%italian%')"),
])
def test_folded_sides_of_like_are_read_too(sql: str, want: str) -> None:
    assert want in guard(sql, "sqlite").sql


@pytest.mark.parametrize("sql", [
    "SELECT code FROM sku WHERE code LIKE '_X12_'",  # a code of fixed length
    "SELECT label FROM rules WHERE 'SAVE 50% today' LIKE pattern",  # a text tested against patterns
])
def test_patterns_that_can_hold_are_left(sql: str) -> None:
    assert guard(sql, "sqlite").mended == ""

