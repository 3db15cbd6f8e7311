"""A row compared with its own aggregate (``WHERE price = MAX(price)``, ``HAVING COUNT(*) = MAX(COUNT(*))``) means the
rows, or groups, that reach the aggregate over what the query considers: a subquery, never a GROUP BY that makes the
comparison true of every row."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.config import Settings
from core.databases import open_database
from core.pipeline import AskPipeline
from tests.fakes.scripted_llm import ScriptedLLM


@pytest.fixture()
def courses(tmp_path: Path):
    path = tmp_path / "courses.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE course(id INTEGER PRIMARY KEY, name TEXT, dept TEXT, enrolled INTEGER);"
            "INSERT INTO course(name, dept, enrolled) VALUES ('Algebra','math',40),('Calculus','math',55),"
            "('Poetry','arts',70),('Drawing','arts',12),('Logic','math',55),('Music','arts',9),('Film','film',3);"
        )
    db = open_database(str(path))
    yield db
    db.close()


def _ask(db, sql: str):
    return AskPipeline(db, ScriptedLLM(sql, sql, sql), Settings()).ask("which course has the most students?")


def test_the_row_with_the_largest_value_is_the_one_shown(courses) -> None:
    answer = _ask(courses, "SELECT name, enrolled FROM course WHERE enrolled = MAX(enrolled)")
    assert answer.ok and answer.rows == (("Poetry", 70),)
    assert any("aggregate over the rows considered" in n for n in answer.notes)


def test_the_aggregate_is_over_the_rows_the_other_conditions_keep(courses) -> None:
    answer = _ask(courses, "SELECT name FROM course WHERE dept = 'math' AND enrolled = MAX(enrolled) ORDER BY name")
    assert answer.ok and answer.rows == (("Calculus",), ("Logic",))  # ties both shown; the maths maximum, not 70


def test_the_group_with_the_largest_count(courses) -> None:
    answer = _ask(courses, "SELECT dept, COUNT(*) FROM course GROUP BY dept HAVING COUNT(*) = MAX(COUNT(*)) "
                           "ORDER BY dept")
    assert answer.ok and answer.rows == (("arts", 3), ("math", 3))


def test_a_condition_on_an_aggregate_alone_still_moves_to_having(courses) -> None:
    answer = _ask(courses, "SELECT dept FROM course WHERE COUNT(*) > 1 GROUP BY dept ORDER BY dept")
    assert answer.ok and answer.rows == (("arts",), ("math",))


@pytest.mark.parametrize("sql", [
    "SELECT dept, SUM(enrolled) AS students FROM course GROUP BY dept, students",  # by its alias
    "SELECT dept, SUM(enrolled) FROM course GROUP BY dept, SUM(enrolled)",  # by the aggregate itself
    "SELECT dept, SUM(enrolled) FROM course GROUP BY 1, 2",  # by its position
])
def test_an_aggregate_written_into_group_by_leaves_it(courses, sql) -> None:
    """Every database rejects a group keyed by what it aggregates; the grouping without it is the one reading."""
    answer = _ask(courses, sql)
    assert answer.ok and sorted(answer.rows) == [("arts", 91), ("film", 3), ("math", 150)]
    assert any("from GROUP BY (a group cannot be keyed by an aggregate)" in n for n in answer.notes)


def test_a_group_by_holding_only_an_aggregate_is_dropped(courses) -> None:
    answer = _ask(courses, "SELECT SUM(enrolled) AS students FROM course GROUP BY students")
    assert answer.ok and answer.rows == ((244,),)


def test_the_largest_group_where_the_question_asks_for_the_top_n_offers_them(courses) -> None:
    answer = AskPipeline(courses, ScriptedLLM(*[
        "SELECT dept, COUNT(*) AS n FROM course GROUP BY dept HAVING COUNT(*) = MAX(COUNT(*))"] * 3), Settings()).ask(
        "the top 3 departments by number of courses")
    assert answer.ok and sorted(answer.rows) == [("arts", 3), ("math", 3)]  # the groups with the largest count
    (top,) = [a for a in answer.alternatives if a.label == "The top 3 groups"]
    assert "LIMIT 3" in top.sql and "ORDER BY COUNT(*) DESC" in top.sql
