"""A question that asks which things, answered with one count (core.sql.repair.grouping._collapsed): COUNT(DISTINCT x)
read as the distinct values it counts (a guess the model sees first), any other COUNT refused so the model is asked
again; a question that asks for a number, an extreme or in another script is left as written."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlglot

from core.databases import open_database
from core.errors import SQLValidationError
from core.sql import validate_sql
from core.sql._validate import validate
from tests.scripted_asking import ask


@pytest.fixture()
def library(tmp_path: Path):
    path = tmp_path / "library.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE author(aid INTEGER PRIMARY KEY, name TEXT, oid INTEGER);"
            "INSERT INTO author VALUES (1,'Ada',NULL),(2,'Bo',7),(3,'Cy',NULL),(4,'Ada',NULL);"
        )
    db = open_database(str(path))
    yield db
    db.close()


@pytest.mark.parametrize("question", [
    "Which authors are not part of any organization?",
    "List the authors without an organization",
    "What are the names of authors with no organisation?",
])
def test_a_distinct_count_for_which_is_read_as_the_values_it_counts(library, question: str) -> None:
    answer = ask(library, question, "SELECT COUNT(DISTINCT name) AS total_count FROM author WHERE oid IS NULL")
    assert sorted(tuple(r) for r in answer.rows) == [("Ada",), ("Cy",)]
    assert any("(a guess)" in n and "which ones" in n for n in answer.notes), answer.notes


@pytest.mark.parametrize("question", [
    "Which authors are not part of any organization?",
    "Which organization has the most authors?",  # an extreme asks for the thing, which a count never names
    "Return the first name and last name of authors with an id over 2",  # a number in a filter asks for none
])
def test_another_count_for_which_is_refused_with_what_to_write(library, question: str) -> None:
    with pytest.raises(SQLValidationError, match="only counts them") as raised:
        validate(_parsed("SELECT COUNT(*) AS n FROM author WHERE oid IS NULL"), library.schema(), "sqlite",
                 question=question)
    assert "instead of COUNT" in raised.value.hint


def test_the_model_shown_the_refusal_lists_them(library) -> None:
    # the model, shown the error, lists them: that answer is taken
    answer = ask(library, "Which authors are not part of any organization?",
                 "SELECT COUNT(*) AS n FROM author WHERE oid IS NULL",
                 "SELECT name FROM author WHERE oid IS NULL ORDER BY aid")
    assert [tuple(r) for r in answer.rows] == [("Ada",), ("Cy",), ("Ada",)]


@pytest.mark.parametrize("question", [
    "How many authors are not part of any organization?",
    "Which is the number of authors without an organization?",
    "What are the total authors without an organisation?",
    "kitne authors ka koi organization nahi hai?",
    "लेखक कौन हैं जिनका कोई संगठन नहीं है?",
    "Authors without an organization",  # no word that asks for things: left as written
    "Give me the headcount of authors without an organization",
    "Show the size of the unaffiliated author group",
    "What are the unique authors without an organization?",
    "Which authors: is there any without an organization?",
    "Find out whether any authors lack an organization",
    "What are the # of authors with no organization?",
    "authors bina organization ki tadaad kya hai?",
])
def test_a_count_the_question_may_ask_for_is_left(library, question: str) -> None:
    checked = validate(_parsed("SELECT COUNT(*) AS n FROM author WHERE oid IS NULL"), library.schema(), "sqlite",
                       question=question)
    assert checked.fixes == ()


def test_counts_beside_a_grouping_or_a_limit_are_left(library) -> None:
    for sql in ("SELECT oid, COUNT(*) FROM author GROUP BY oid", "SELECT COUNT(*) FROM author LIMIT 1",
                "SELECT COUNT(CASE WHEN oid IS NULL THEN 1 END), COUNT(oid) FROM author"):  # "which is bigger"
        assert validate(_parsed(sql), library.schema(), "sqlite", question="Which authors write?").fixes == ()


def _parsed(sql: str) -> sqlglot.exp.Expression:
    return sqlglot.parse_one(sql, read="sqlite")


def test_validate_sql_without_a_question_is_unchanged(library) -> None:
    assert validate_sql("SELECT COUNT(DISTINCT name) FROM author", library.schema(), "sqlite").fixes == ()
