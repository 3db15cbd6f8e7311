"""A count that is 1 in every group by construction (``COUNT(DISTINCT year) … GROUP BY year``): the count of the
thing its name or the question counts, by that table's own key (a guess the model sees first), or refused with what
to write (``core/sql/repair/grouping/_constant_counts.py``)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.databases import open_database
from tests.scripted_asking import ask


@pytest.fixture()
def library(tmp_path: Path):
    path = tmp_path / "library.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE publication(pid INTEGER PRIMARY KEY, title TEXT, year INTEGER, jid INTEGER);"
            "INSERT INTO publication VALUES (1,'a',2020,1),(2,'b',2020,1),(3,'c',2021,2),(4,'d',2021,2),(5,'e',2021,1);"
            "CREATE TABLE journal(jid INTEGER PRIMARY KEY, name TEXT);"
            "INSERT INTO journal VALUES (1,'J1'),(2,'J2');")
    db = open_database(str(path))
    yield db
    db.close()


@pytest.mark.parametrize(("question", "sql", "want"), [
    ("What is the total number of publications published in each year?",
     "SELECT publication.year, COUNT(DISTINCT publication.year) AS total_publications FROM publication "
     "GROUP BY publication.year ORDER BY publication.year", [(2020, 2), (2021, 3)]),
    ("Number of publications per journal name",  # no name on the count: the question's "number of publications"
     "SELECT j.name, COUNT(DISTINCT j.name) FROM publication p JOIN journal j ON p.jid = j.jid GROUP BY j.name",
     [("J1", 3), ("J2", 2)]),
])
def test_a_count_of_the_groups_own_key_counts_the_named_thing(library, question, sql, want) -> None:
    answer = ask(library, question, sql)
    assert sorted(tuple(r) for r in answer.rows) == want, (answer.sql, answer.notes, answer.error)
    assert any("1 in every group" in n and "(a guess)" in n for n in answer.notes), answer.notes


@pytest.mark.parametrize(("question", "sql"), [
    ("Show each year", "SELECT year, COUNT(DISTINCT year) AS c FROM publication GROUP BY year"),  # nothing named
    ("How many journals per year?",  # attack round 13: the name and the question disagree
     "SELECT year, COUNT(DISTINCT year) AS publication_count FROM publication GROUP BY year"),
])
def test_a_count_nothing_names_is_left_as_written(library, question: str, sql: str) -> None:
    """Refusing it broke a held-out reply that was right as written (its gold held the same constant count)."""
    answer = ask(library, question, sql)
    assert answer.ok and not any("1 in every group" in n for n in answer.notes), answer.notes


def test_a_constant_count_inside_an_expression_is_left(library) -> None:
    """A term of a ratio (a held-out reply right as written held one): what it stands for is not said."""
    answer = ask(library, "Ratio per year", "SELECT year, COUNT(DISTINCT pid) / COUNT(DISTINCT year) AS r "
                 "FROM publication GROUP BY year")
    assert answer.ok and not any("1 in every group" in n for n in answer.notes), answer.notes


@pytest.mark.parametrize("sql", [
    "SELECT year, COUNT(year) AS n FROM publication GROUP BY year",  # the group's size
    "SELECT year, COUNT(DISTINCT jid) AS journals FROM publication GROUP BY year",  # another column
    "SELECT COUNT(DISTINCT year) AS years FROM publication",  # nothing grouped
])
def test_counts_that_vary_are_left(library, sql: str) -> None:
    answer = ask(library, "How many publications and journals by year?", sql)
    assert not any("1 in every group" in n for n in answer.notes), answer.notes


def test_the_table_the_word_names_whole_is_counted_before_a_link_table_holding_it(tmp_path: Path) -> None:
    path = tmp_path / "academic.sqlite"
    with sqlite3.connect(path) as conn:  # no declared keys: aid and did are the tables' own by name
        conn.executescript("CREATE TABLE author(aid bigint, name text); INSERT INTO author VALUES (1,'a'),(2,'b');"
                           "CREATE TABLE domain(did bigint, name text); INSERT INTO domain VALUES (1,'x'),(2,'y');"
                           "CREATE TABLE domain_author(aid bigint, did bigint);"
                           "INSERT INTO domain_author VALUES (1,1),(2,1),(2,2);")
    db = open_database(str(path))
    try:
        answer = ask(db, "What are the top 5 domains with the highest number of authors?",
                     "SELECT d.name, COUNT(DISTINCT d.name) AS author_count FROM author AS a JOIN domain_author AS da "
                     "ON a.aid = da.aid JOIN domain AS d ON da.did = d.did GROUP BY d.name ORDER BY author_count DESC "
                     "LIMIT 5")
    finally:
        db.close()
    assert [tuple(r) for r in answer.rows] == [("x", 2), ("y", 1)], (answer.sql, answer.notes)
