"""Joins and groupings whose rows cannot mean what the query wants (core.evidence: ``_joins``,
``_groups.key_group_evidence``, ``_values.elsewhere_evidence``): rows without a match asked for with an inner join,
a column shown from the side that has no match, a GROUP BY of the key of the very table aggregated, and a value
filtered on the wrong table's column of that name. Each is said with both results and the other query offered; the
query that ran stays the answer. Real SQLite with primary keys and no declared foreign keys; the model is scripted.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.config import Settings
from core.databases import open_database
from core.pipeline import AskPipeline
from tests.fakes.scripted_llm import ScriptedLLM


@pytest.fixture()
def school(tmp_path: Path):
    path = tmp_path / "school.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE tutor(id INTEGER PRIMARY KEY, name TEXT, city TEXT);"
            "CREATE TABLE lesson(id INTEGER PRIMARY KEY, tutor_id INTEGER, fee REAL, name TEXT);"
            "INSERT INTO tutor VALUES (1,'Ira','Pune'),(2,'Om','Agra'),(3,'Lee','Pune');"
            "INSERT INTO lesson VALUES (10,1,5,'Algebra'),(11,1,7,'Poetry'),(12,2,4,'Chess');")
    db = open_database(str(path))
    yield db
    db.close()


def _ask(db, question: str, sql: str):
    return AskPipeline(db, ScriptedLLM(sql, sql, sql, sql), Settings()).ask(question)


def _other(answer, label: str):
    return next(a for a in answer.alternatives if a.label == label)


def test_an_inner_join_asked_for_rows_without_a_match_is_offered_as_a_left_join(school) -> None:
    answer = _ask(school, "Which tutors have no lessons?",
                  "SELECT t.name FROM tutor AS t JOIN lesson AS l ON l.tutor_id = t.id WHERE l.tutor_id IS NULL")
    assert answer.ok and list(answer.rows) == []
    other = _other(answer, "Rows without a match")
    assert "LEFT JOIN" in other.sql.upper() and [tuple(r) for r in school.execute(other.sql).rows] == [("Lee",)]


def test_a_column_shown_from_the_side_with_no_match_is_read_from_the_other_table(school) -> None:
    answer = _ask(school, "Ids of tutors with no lessons", "SELECT l.id FROM tutor AS t LEFT JOIN lesson AS l "
                  "ON l.tutor_id = t.id WHERE l.tutor_id IS NULL")
    assert [tuple(r) for r in answer.rows] == [(None,)]
    other = _other(answer, "Rows without a match")
    assert "t.id" in other.sql and [tuple(r) for r in school.execute(other.sql).rows] == [(3,)]


def test_a_correct_anti_join_is_left(school) -> None:
    answer = _ask(school, "Which tutors have no lessons?", "SELECT t.name FROM tutor AS t LEFT JOIN lesson AS l "
                  "ON l.tutor_id = t.id WHERE l.tutor_id IS NULL")
    assert [tuple(r) for r in answer.rows] == [("Lee",)] and not answer.alternatives


def test_grouping_by_the_key_of_the_table_aggregated_is_offered_by_the_other_table_s_key(school) -> None:
    answer = _ask(school, "Number of lessons per tutor", "SELECT t.name, COUNT(l.id) FROM tutor AS t "
                  "JOIN lesson AS l ON l.tutor_id = t.id GROUP BY t.name, l.id")
    assert sorted(tuple(r) for r in answer.rows) == [("Ira", 1), ("Ira", 1), ("Om", 1)]
    other = _other(answer, "Group by t.id")
    assert sorted(tuple(r) for r in school.execute(other.sql).rows) == [("Ira", 2), ("Om", 1)]


def test_grouping_by_a_key_while_aggregating_another_table_is_left(school) -> None:
    answer = _ask(school, "Number of lessons per tutor", "SELECT t.name, COUNT(l.id) FROM tutor AS t "
                  "JOIN lesson AS l ON l.tutor_id = t.id GROUP BY t.id, t.name")
    assert not any(a.label.startswith("Group by") for a in answer.alternatives)


def test_a_value_no_row_holds_is_offered_on_the_other_table_s_column_of_that_name(school) -> None:
    answer = _ask(school, "Which tutors teach Chess?", "SELECT t.name FROM tutor AS t JOIN lesson AS l "
                  "ON l.tutor_id = t.id WHERE t.name = 'Chess'")
    assert list(answer.rows) == []
    other = _other(answer, "Filter on l.name")
    assert [tuple(r) for r in school.execute(other.sql).rows] == [("Om",)]


def test_a_value_its_own_column_holds_is_left(school) -> None:
    answer = _ask(school, "Lessons by Ira", "SELECT l.name FROM tutor AS t JOIN lesson AS l ON l.tutor_id = t.id "
                  "WHERE t.name = 'Ira'")
    assert not any(a.label.startswith("Filter on") for a in answer.alternatives)


def test_one_column_equal_to_two_values_is_offered_as_either(school) -> None:
    answer = _ask(school, "Tutors in Pune and Agra", "SELECT name FROM tutor WHERE city = 'Pune' AND city = 'Agra'")
    assert list(answer.rows) == []
    other = _other(answer, "Conditions that can hold")
    assert "IN ('Pune', 'Agra')" in other.sql and len(school.execute(other.sql).rows) == 3


def test_bounds_joined_by_or_that_cover_every_row_are_offered_joined_by_and(school) -> None:
    answer = _ask(school, "Lessons with a fee between 4.5 and 6", "SELECT name FROM lesson WHERE fee >= 4.5 OR fee < 6")
    assert len(answer.rows) == 3
    other = _other(answer, "Conditions that can hold")
    assert [tuple(r) for r in school.execute(other.sql).rows] == [("Algebra",)]


def test_two_bounds_from_one_side_are_offered_as_the_range_between_them(school) -> None:
    answer = _ask(school, "Lessons from 2023-01-01 to 2023-06-30", "SELECT name FROM lesson WHERE name >= 'Algebra' "
                  "AND name >= 'Chess'")  # text bounds (dates are text in SQLite)
    assert [tuple(r) for r in answer.rows] == [("Poetry",), ("Chess",)] or sorted(answer.rows) == [("Chess",),
                                                                                               ("Poetry",)]
    other = _other(answer, "As a range")
    assert "name <= 'Chess'" in other.sql and sorted(tuple(r) for r in school.execute(other.sql).rows) == [
        ("Algebra",), ("Chess",)]


def test_computed_bounds_are_compared_by_the_database(tmp_path: Path) -> None:
    path = tmp_path / "sales.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE sale(id INTEGER PRIMARY KEY, sold_on TEXT);"
                           "INSERT INTO sale VALUES (1, date('now', '-3 days')), (2, date('now', '-40 days')),"
                           " (3, date('now', '-5 days'));")
    db = open_database(str(path))
    try:
        answer = _ask(db, "Sales before the last 30 days",
                      "SELECT COUNT(*) FROM sale WHERE sold_on < DATE('now') AND sold_on <= DATE('now', '-30 days')")
        other = _other(answer, "As a range")  # the tighter bound (30 days back) turned round
        assert "sold_on >= DATE('now', '-30 days')" in other.sql and db.execute(other.sql).rows[0][0] == 2
    finally:
        db.close()


@pytest.mark.parametrize("where", ["fee >= 4 AND fee < 6", "fee > 5 AND fee > 5", "fee > 4 AND fee > 5 AND fee > 6",
                                   "fee > 4 AND name > 'C'", "fee > 0 AND fee >= 6"])  # a number guard written twice
def test_a_range_the_same_bound_twice_or_three_bounds_are_not_read_as_a_range(school, where: str) -> None:
    answer = _ask(school, "Some lessons", f"SELECT name FROM lesson WHERE {where}")
    assert not any(a.label == "As a range" for a in answer.alternatives)


def test_a_value_in_other_capitals_is_offered_ignoring_case(school) -> None:
    answer = _ask(school, "Tutors in PUNE", "SELECT name FROM tutor WHERE city = 'PUNE'")
    assert list(answer.rows) == []
    other = next(a for a in answer.alternatives if a.label in ("Ignoring case", "As the data spells it"))
    assert sorted(tuple(r) for r in school.execute(other.sql).rows) == [("Ira",), ("Lee",)]
    assert len(answer.alternatives) == 1  # one offer, not one per check that sees it


def test_bounds_that_leave_out_their_shared_value_are_not_doubted(school) -> None:
    answer = _ask(school, "Lessons whose fee is not 5", "SELECT name FROM lesson WHERE fee > 5 OR fee < 5")
    assert not any(a.label == "Conditions that can hold" for a in answer.alternatives)


def test_a_value_in_other_capitals_of_a_column_with_many_values_is_found_by_a_probe(tmp_path: Path) -> None:
    path = tmp_path / "towns.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE shop(id INTEGER PRIMARY KEY, town TEXT)")
        conn.executemany("INSERT INTO shop VALUES (?, ?)", [(i, f"Town{i}") for i in range(40)])  # no value hints
    db = open_database(str(path))
    try:
        answer = _ask(db, "Shops in TOWN7", "SELECT id FROM shop WHERE town = 'TOWN7'")
        other = _other(answer, "Ignoring case")
        assert [tuple(r) for r in db.execute(other.sql).rows] == [(7,)]
    finally:
        db.close()


def test_a_join_cairn_put_back_is_offered_keeping_the_rows_with_no_match(school) -> None:
    # The model read lesson.id and never joined lesson: the join Cairn puts back is inner, which leaves Lee out.
    answer = _ask(school, "Lessons per tutor", "SELECT t.name, COUNT(lesson.id) FROM tutor AS t GROUP BY t.name")
    assert answer.ok and sorted(tuple(r) for r in answer.rows) == [("Ira", 2), ("Om", 1)]
    other = _other(answer, "Keep rows with no lesson")
    assert "LEFT JOIN" in other.sql.upper()
    assert sorted(tuple(r) for r in school.execute(other.sql).rows) == [("Ira", 2), ("Lee", 0), ("Om", 1)]


def test_a_join_the_model_wrote_is_not_called_put_back(school) -> None:
    answer = _ask(school, "Lessons per tutor", "SELECT t.name, COUNT(l.id) FROM tutor AS t JOIN lesson AS l "
                  "ON l.tutor_id = t.id GROUP BY t.name")
    assert not any(a.label.startswith("Keep rows with no") for a in answer.alternatives)


def test_a_column_cairn_added_to_the_group_by_is_offered_grouped_as_written(tmp_path: Path) -> None:
    # PostgreSQL rejects a column shown but neither grouped nor aggregated; Cairn groups by it too, splitting groups.
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE sale(id INTEGER PRIMARY KEY, city TEXT, clerk TEXT, amount REAL);"
                           "INSERT INTO sale VALUES (1,'Pune','Ira',5),(2,'Pune','Om',7),(3,'Agra','Om',4);")
    db = open_database(str(path))
    try:
        from core.sql import validate_sql  # noqa: F401 - the pipeline's own repair runs below

        from core.evidence import extended_group_evidence

        written = "SELECT city, clerk, SUM(amount) FROM sale GROUP BY city"
        completed = "SELECT city, clerk, SUM(amount) FROM sale GROUP BY city, clerk"
        result = db.execute(completed)
        notes, offered = extended_group_evidence("Total sales per city", written, completed, result, db.schema(),
                                                 db.execute)
        assert "splits the groups" in notes[0] and offered[0].label == "Grouped as written, without clerk"
        assert sorted(tuple(r) for r in db.execute(offered[0].sql).rows) == [("Agra", 4.0), ("Pune", 12.0)]
        said = extended_group_evidence("Total sales per city and clerk", written, completed, result, db.schema(),
                                       db.execute)
        assert said == ([], [])  # the question names the column: grouping by it is asked
    finally:
        db.close()


def test_a_column_cairn_added_to_the_group_by_that_splits_nothing_is_not_doubted(tmp_path: Path) -> None:
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:  # one clerk per city: grouping by clerk too splits no group
        conn.executescript("CREATE TABLE sale(id INTEGER PRIMARY KEY, city TEXT, clerk TEXT, amount REAL);"
                           "INSERT INTO sale VALUES (1,'Pune','Ira',5),(2,'Pune','Ira',7),(3,'Agra','Om',4);")
    db = open_database(str(path))
    try:
        from core.evidence import extended_group_evidence

        completed = "SELECT city, clerk, SUM(amount) FROM sale GROUP BY city, clerk"
        assert extended_group_evidence("Total sales per city", "SELECT city, clerk, SUM(amount) FROM sale GROUP BY "
                                       "city", completed, db.execute(completed), db.schema(), db.execute) == ([], [])
    finally:
        db.close()


def test_a_like_pattern_in_other_capitals_is_offered_ignoring_case(tmp_path: Path) -> None:
    """DuckDB's LIKE minds case, as PostgreSQL's does: ``LIKE '%retail%'`` where the data holds 'Retail Store'."""
    path = tmp_path / "merchants.csv"
    path.write_text("id,category\n1,Retail Store\n2,Food\n3,Online Retail\n")
    db = open_database(str(path))
    try:
        answer = _ask(db, "How many retail merchants are there?",
                      "SELECT COUNT(*) FROM merchants WHERE category LIKE '%retail%'")
        assert [tuple(r) for r in answer.rows] == [(0,)]
        other = _other(answer, "Ignoring case")
        assert [tuple(r) for r in db.execute(other.sql).rows] == [(2,)]
    finally:
        db.close()


def test_an_escaped_like_pattern_is_not_doubted_by_a_probe_without_its_escape(tmp_path: Path) -> None:
    path = tmp_path / "k.csv"
    path.write_text("code\nAB_1\nAB%2\n")
    db = open_database(str(path))
    try:
        answer = _ask(db, "Codes starting with ab%", "SELECT code FROM k WHERE code LIKE 'abQ%%' ESCAPE 'Q'")
        assert not any(a.label == "Ignoring case" for a in answer.alternatives)
    finally:
        db.close()
