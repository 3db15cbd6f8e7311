"""A filter written inside every aggregate of a grouped query, read with the condition in WHERE (core.sql.repair.
grouping._conditional): only the groups with no such row go, which the question's words leave out; never where the
question asks for them or ranks from the smallest up, never where one aggregate reads other rows."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlglot

from core.databases import open_database
from core.sql._validate import validate
from tests.scripted_asking import ask


@pytest.fixture()
def food(tmp_path: Path):
    path = tmp_path / "food.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE restaurant(id INTEGER PRIMARY KEY, name TEXT, food_type TEXT, city TEXT, rating REAL);"
            "INSERT INTO restaurant VALUES (1,'Roma','Italian','SF',4.0),(2,'Taj','Indian','SF',3.0),"
            "(3,'Luigi','Italian','LA',5.0),(4,'Wok','Chinese','Oakland',2.0),(5,'Nonna','Italian','SF',3.0);"
        )
    db = open_database(str(path))
    yield db
    db.close()


@pytest.mark.parametrize(("question", "sql", "want"), [
    ("How many restaurants serve Italian food in each city?",
     "SELECT city, COUNT(CASE WHEN food_type = 'Italian' THEN 1 END) AS n FROM restaurant GROUP BY city ORDER BY city",
     [("LA", 1), ("SF", 2)]),
    ("What is the average rating of Italian restaurants per city?",
     "SELECT city, AVG(CASE WHEN food_type = 'Italian' THEN rating END) AS r, SUM(CASE WHEN food_type = 'Italian' "
     "THEN 1 ELSE 0 END) AS n FROM restaurant GROUP BY city ORDER BY r DESC",
     [("LA", 5.0, 1), ("SF", 3.5, 2)]),
    ("Distinct Italian restaurant names by city",
     "SELECT city, COUNT(DISTINCT CASE WHEN food_type = 'Italian' THEN name END) FROM restaurant WHERE rating > 1 "
     "GROUP BY city ORDER BY 2 DESC",
     [("SF", 2), ("LA", 1)]),
])
def test_a_filter_inside_every_aggregate_is_read_in_where(food, question: str, sql: str, want: list) -> None:
    answer = ask(food, question, sql)
    assert [tuple(r) for r in answer.rows] == want
    assert any("(a guess)" in n and "moved to WHERE" in n for n in answer.notes), answer.notes


@pytest.mark.parametrize(("question", "sql"), [
    ("How many Italian restaurants in each city, including cities with none?",
     "SELECT city, COUNT(CASE WHEN food_type = 'Italian' THEN 1 END) FROM restaurant GROUP BY city"),
    ("Which 2 cities have the fewest Italian restaurants?",
     "SELECT city, COUNT(CASE WHEN food_type = 'Italian' THEN 1 END) AS n FROM restaurant GROUP BY city ORDER BY n "
     "LIMIT 2"),
    ("Italian and all restaurants per city",  # one aggregate reads every row
     "SELECT city, COUNT(CASE WHEN food_type = 'Italian' THEN 1 END), COUNT(*) FROM restaurant GROUP BY city"),
    ("Italian and Indian restaurants per city",  # two conditions: a pivot
     "SELECT city, COUNT(CASE WHEN food_type = 'Italian' THEN 1 END), COUNT(CASE WHEN food_type = 'Indian' THEN 1 "
     "END) FROM restaurant GROUP BY city"),
    ("Italian restaurants per city",  # COUNT of a CASE with ELSE 0 counts every row: another slip, not this one
     "SELECT city, COUNT(CASE WHEN food_type = 'Italian' THEN 1 ELSE 0 END) FROM restaurant GROUP BY city"),
    ("Average Italian rating per city",  # ELSE 0 inside an average changes it
     "SELECT city, AVG(CASE WHEN food_type = 'Italian' THEN rating ELSE 0 END) FROM restaurant GROUP BY city"),
    ("How many Italian restaurants are there?",  # no groups: one row either way
     "SELECT COUNT(CASE WHEN food_type = 'Italian' THEN 1 END) FROM restaurant"),
])
def test_other_conditional_aggregates_are_left(food, question: str, sql: str) -> None:
    checked = validate(sqlglot.parse_one(sql, read="sqlite"), food.schema(), "sqlite", question=question)
    assert not any("moved to WHERE" in f for f in checked.fixes)


@pytest.mark.parametrize(("question", "sql"), [
    ("Which cities have Italian restaurants?",  # a HAVING may ask for the groups with none
     "SELECT city FROM restaurant GROUP BY city HAVING COUNT(CASE WHEN food_type = 'Italian' THEN 1 END) = 0"),
    ("For each city, does it have an Italian restaurant?",  # a flag per group
     "SELECT city, COUNT(CASE WHEN food_type = 'Italian' THEN 1 END) > 0 AS has_it FROM restaurant GROUP BY city"),
    ("Cities and whether they have an Italian place",
     "SELECT city, MAX(CASE WHEN food_type = 'Italian' THEN 'yes' END) FROM restaurant GROUP BY city"),
    ("Cities ranked by Italian restaurants",  # ascending in disguise
     "SELECT city, COUNT(CASE WHEN food_type = 'Italian' THEN 1 END) AS n FROM restaurant GROUP BY city "
     "ORDER BY -n DESC"),
    ("Show all cities with their number of Italian restaurants",
     "SELECT city, COUNT(CASE WHEN food_type = 'Italian' THEN 1 END) FROM restaurant GROUP BY city"),
    ("Italian restaurants per city",  # an outer join keeps every row on purpose
     "SELECT r.city, COUNT(CASE WHEN r.food_type = 'Italian' THEN 1 END) FROM restaurant AS r "
     "LEFT JOIN restaurant AS o ON o.id = r.id GROUP BY r.city"),
])
def test_aggregates_where_a_zero_may_be_the_answer_are_left(food, question: str, sql: str) -> None:
    checked = validate(sqlglot.parse_one(sql, read="sqlite"), food.schema(), "sqlite", question=question)
    assert not any("moved to WHERE" in f for f in checked.fixes)
