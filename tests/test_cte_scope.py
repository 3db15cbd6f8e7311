"""A column the outer query reads by the name of a table it only sees through a CTE or derived table that passes
that very column on (``WITH x AS (SELECT a.name … FROM author a) SELECT author.name FROM x``): read there, the same
value on every row (``repair/_scope.passed_through``); anything else stays an error for the model. Real SQLite."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.config import Settings
from core.databases import open_database
from core.pipeline import AskPipeline
from tests.fakes.scripted_llm import ScriptedLLM


@pytest.fixture()
def papers(tmp_path: Path):
    path = tmp_path / "papers.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE author(aid INTEGER PRIMARY KEY, name TEXT);"
            "CREATE TABLE writes(aid INTEGER, pid INTEGER);"
            "INSERT INTO author VALUES (1, 'Ada'), (2, 'Bo'), (3, 'Cy');"
            "INSERT INTO writes VALUES (1, 10), (1, 11), (2, 12);")
    db = open_database(str(path))
    yield db
    db.close()


def _ask(db, sql: str):
    return AskPipeline(db, ScriptedLLM(sql, sql, sql), Settings()).ask("papers per author")


@pytest.mark.parametrize("sql", [
    "WITH x AS (SELECT author.aid, author.name, COUNT(writes.pid) AS n FROM author JOIN writes "
    "ON author.aid = writes.aid GROUP BY author.aid, author.name) SELECT author.name, x.n FROM x",
    "WITH x AS (SELECT a.aid, a.name AS who, COUNT(w.pid) AS n FROM author AS a JOIN writes AS w ON a.aid = w.aid "
    "GROUP BY a.aid, a.name) SELECT author.name, n FROM x",
    "SELECT a.name, t.n FROM (SELECT a.name, COUNT(*) AS n FROM author AS a JOIN writes AS w ON a.aid = w.aid "
    "GROUP BY a.name) AS t",
])
def test_a_column_passed_on_by_a_cte_is_read_there(papers, sql) -> None:
    answer = _ask(papers, sql)
    assert answer.ok and sorted(answer.rows) == [("Ada", 2), ("Bo", 1)]
    assert any("passed on by" in n for n in answer.notes)


def test_a_column_the_cte_does_not_pass_on_stays_an_error(papers) -> None:
    answer = _ask(papers, "WITH x AS (SELECT author.aid, COUNT(writes.pid) AS n FROM author JOIN writes "
                          "ON author.aid = writes.aid GROUP BY author.aid) SELECT author.name, x.n FROM x")
    assert not answer.ok or not any("passed on by" in n for n in answer.notes)
