"""A count per group read the wrong way round ("the number of authors per domain" answered with a row per author
counting its domains): read as the number of the grouped things per the counted column, a guess the model sees
first, with the query as written one click away (``core/sql/repair/grouping/_inverted.py``)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.databases import open_database
from tests.scripted_asking import ask


@pytest.fixture()
def academic(tmp_path: Path):
    path = tmp_path / "academic.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE author(aid INTEGER, name TEXT);"
            "INSERT INTO author VALUES (1,'Ann'),(2,'Bo'),(3,'Cy'),(4,'Di');"
            "CREATE TABLE domain(did INTEGER PRIMARY KEY, name TEXT);"
            "INSERT INTO domain VALUES (1,'Databases'),(2,'Vision'),(3,'Theory');"
            "CREATE TABLE domain_author(aid INTEGER, did INTEGER);"
            "INSERT INTO domain_author VALUES (1,1),(2,1),(3,1),(1,2),(4,2),(2,3);"
            "CREATE TABLE restaurant(id INTEGER PRIMARY KEY, name TEXT, food_type TEXT);"
            "INSERT INTO restaurant VALUES (1,'Roma','italian'),(2,'Luigi','italian'),(3,'Taj','indian');"
            "CREATE TABLE location(restaurant_id INTEGER, city_name TEXT);"
            "INSERT INTO location VALUES (1,'Oakland'),(2,'Oakland'),(3,'Berkeley');"
            "CREATE TABLE course(course_id INTEGER PRIMARY KEY, name TEXT, department TEXT);"
            "INSERT INTO course VALUES (1,'a','cs'),(2,'b','cs'),(3,'c','ee');"
        )
    db = open_database(str(path))
    yield db
    db.close()


@pytest.mark.parametrize(("question", "sql", "want"), [
    ("How many authors are there in each domain?",
     "SELECT a.aid, COUNT(DISTINCT d.name) AS authors FROM author a JOIN domain_author da ON a.aid = da.aid "
     "JOIN domain d ON da.did = d.did GROUP BY a.aid",
     [("Databases", 3), ("Theory", 1), ("Vision", 2)]),
    ("What is the total number of restaurants serving each type of food?",
     "SELECT restaurant.id, COUNT(DISTINCT restaurant.food_type) AS n FROM restaurant GROUP BY restaurant.id",
     [("indian", 1), ("italian", 2)]),
    ("Number of restaurants per city",
     "SELECT location.restaurant_id, COUNT(location.city_name) AS n FROM location GROUP BY location.restaurant_id",
     [("Berkeley", 1), ("Oakland", 2)]),
    ("How many courses does each department offer?",  # "courses": the plural of a word ending in e
     "SELECT course.course_id, COUNT(DISTINCT course.department) AS num_courses FROM course GROUP BY course.course_id "
     "ORDER BY num_courses DESC", [("cs", 2), ("ee", 1)]),
])
def test_a_count_per_the_thing_counted_is_read_the_other_way_round(academic, question, sql, want) -> None:
    answer = ask(academic, question, sql)
    assert sorted(tuple(r) for r in answer.rows) == want, (answer.sql, answer.notes)
    assert any("(a guess)" in n and "read as the number of" in n for n in answer.notes), answer.notes
    assert any(a.label == "As the model wrote it" for a in answer.alternatives)


@pytest.mark.parametrize(("question", "sql"), [
    # what the question asks, written right
    ("How many authors are there in each domain?",
     "SELECT d.name, COUNT(DISTINCT a.aid) FROM author a JOIN domain_author da ON a.aid = da.aid "
     "JOIN domain d ON da.did = d.did GROUP BY d.name"),
    # per author, the number of domains: grouped by the thing the question groups by
    ("For each author, how many domains do they work in?",
     "SELECT a.aid, COUNT(DISTINCT da.did) FROM author a JOIN domain_author da ON a.aid = da.aid GROUP BY a.aid"),
    # the question counts nothing
    ("Which domains does each author work in?",
     "SELECT a.aid, COUNT(DISTINCT d.name) FROM author a JOIN domain_author da ON a.aid = da.aid "
     "JOIN domain d ON da.did = d.did GROUP BY a.aid"),
    # the counted column is not named by the question
    ("How many authors are there?",
     "SELECT a.aid, COUNT(DISTINCT d.name) FROM author a JOIN domain_author da ON a.aid = da.aid "
     "JOIN domain d ON da.did = d.did GROUP BY a.aid"),
    # attack round 13: "customer" only names the orders; a self-join; a bound on the count per thing
    ("Show the number of customer orders for each customer",
     "SELECT location.restaurant_id, COUNT(location.city_name) FROM location GROUP BY location.restaurant_id"),
    ("How many restaurants are in more than one city?",
     "SELECT location.restaurant_id, COUNT(location.city_name) FROM location GROUP BY location.restaurant_id"),
    # COUNT(*) says nothing of what to group by
    ("Number of restaurants per city", "SELECT restaurant_id, COUNT(*) FROM location GROUP BY restaurant_id"),
])
def test_counts_the_question_asks_for_or_cannot_be_turned_are_left(academic, question, sql) -> None:
    answer = ask(academic, question, sql)
    assert not any("read as the number of" in n for n in answer.notes), answer.notes
