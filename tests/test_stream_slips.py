"""A streamed reply whose piece was delivered twice in a row (``core.sql._spoken.pieces_once`` for a query that then
does not parse, ``repair._names`` for a name that then names nothing): written once, only where that is the one
reading — the query as written never runs, so no query that runs changes. Real SQLite through Cairn's backend."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.databases import open_database
from tests.scripted_asking import ask


@pytest.fixture()
def papers(tmp_path: Path):
    path = tmp_path / "papers.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE publication(pid INTEGER PRIMARY KEY, title TEXT, year INT, citation_num INT);"
            "CREATE TABLE domain_publication(did INT, pid INT); CREATE TABLE domain(did INT PRIMARY KEY, name TEXT);"
            "INSERT INTO publication VALUES (1,'A',2020,5),(2,'B',2021,7),(3,'C',2021,1);"
            "INSERT INTO domain VALUES (1,'ML'); INSERT INTO domain_publication VALUES (1,1),(1,2);")
    db = open_database(str(path))
    yield db
    db.close()


@pytest.mark.parametrize(("written", "rows"), [
    ("SELECT year, COUNT(*) FROM publication GROUP BY year ORDER ORDER BY year", ((2020, 1), (2021, 2))),
    ("SELECT title FROM publi FROM publication ORDER BY citation_num DESC LIMIT 1", (("B",),)),
    ("SELECT title, citatcitation_num FROM publication WHERE pid = 1", (("A", 5),)),
    ("SELECT d.name, COUNT(*) FROM domain d JOIN domain_publication dp ON dp ON d.did = dp.did GROUP BY d.name",
     (("ML", 2),)),
    ("SELECT d.name, COUNT(*) FROM domain d JOIN domain_publication dp ON d.did = dp.did JOIN publication p ON "
     "p.pid = dp.pid AND p.year = 2021 GROUP BY d.name", (("ML", 1),)),  # as written: nothing to write once
])
def test_a_piece_delivered_twice_is_written_once(papers, written: str, rows) -> None:
    answer = ask(papers, "Each year's publications", written)
    assert answer.ok and tuple(sorted(answer.rows)) == rows


def test_a_repeated_word_that_runs_is_left_as_written(papers) -> None:
    answer = ask(papers, "Titles", "SELECT title AS title FROM publication WHERE title = 'A'")
    assert answer.ok and answer.rows == (("A",),)
