"""Two tables' own keys joined where only a link table relates them (``author.aid = publication.pid``): joined
through the link table, a guess the model sees first (``core/sql/repair/joins/_bridges.py``)."""

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
            "CREATE TABLE author(aid INTEGER PRIMARY KEY, name TEXT);"
            "INSERT INTO author VALUES (1,'Ann'),(2,'Bo'),(3,'Cy');"
            "CREATE TABLE publication(pid INTEGER PRIMARY KEY, title TEXT, citation_num INTEGER, year INTEGER);"
            "INSERT INTO publication VALUES (1,'p1',10,2021),(2,'p2',20,2021),(3,'p3',5,2020);"
            "CREATE TABLE writes(aid INTEGER, pid INTEGER);"
            "INSERT INTO writes VALUES (1,2),(1,3),(2,1),(3,2);"
            "CREATE TABLE patient(patient_id INTEGER PRIMARY KEY, name TEXT);"
            "INSERT INTO patient VALUES (1,'x'),(2,'y');"
            "CREATE TABLE patient_detail(patient_id INTEGER PRIMARY KEY, blood TEXT);"
            "INSERT INTO patient_detail VALUES (1,'A'),(2,'B');")
    db = open_database(str(path))
    yield db
    db.close()


@pytest.mark.parametrize(("question", "sql", "want"), [
    ("What is the total number of citations received by each author?",
     "SELECT author.name, SUM(publication.citation_num) AS total FROM author JOIN publication ON author.aid = "
     "publication.pid GROUP BY author.name", [("Ann", 25), ("Bo", 10), ("Cy", 20)]),
    ("Authors of 2021 papers", "SELECT DISTINCT a.name FROM publication p JOIN author a ON a.aid = p.pid "
     "WHERE p.year = 2021", [("Ann",), ("Bo",), ("Cy",)]),
])
def test_keys_of_two_tables_meet_through_their_link_table(academic, question, sql, want) -> None:
    answer = ask(academic, question, sql)
    assert sorted(tuple(r) for r in answer.rows) == want, (answer.sql, answer.notes, answer.error)
    assert any("joined through writes" in n and "(a guess)" in n for n in answer.notes), answer.notes


def test_tables_that_share_their_key_are_related(academic) -> None:
    answer = ask(academic, "Blood group of each patient", "SELECT p.name, d.blood FROM patient p JOIN patient_detail d "
                 "ON p.patient_id = d.patient_id")
    assert sorted(tuple(r) for r in answer.rows) == [("x", "A"), ("y", "B")]
    assert not any("joined through" in n for n in answer.notes)


@pytest.mark.parametrize("sql", [
    # attack round 13: an outer join keeps its rows; a link table read already; keys of one name (one row's parts)
    "SELECT author.name, publication.title FROM author LEFT JOIN publication ON author.aid = publication.pid",
    "SELECT author.name FROM author JOIN writes ON writes.aid = author.aid JOIN publication ON author.aid = "
    "publication.pid",
    "SELECT p.name FROM patient p JOIN patient_detail d ON p.patient_id = d.patient_id",
])
def test_joins_that_may_mean_what_they_say_are_left(academic, sql: str) -> None:
    answer = ask(academic, "Authors and their papers", sql)
    assert not any("joined through" in n for n in answer.notes), answer.notes
