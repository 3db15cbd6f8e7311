"""First, do no harm: a repair is applied to SQL that already runs only when it keeps the rows.

SQLite runs a SELECT whose column is neither grouped nor aggregated (it shows one row's value per group), so
completing its GROUP BY may change a correct answer; PostgreSQL rejects such a query, so there the completion is
always a repair of a query that could not run.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.config import Settings
from core.databases import open_database
from core.pipeline import AskPipeline
from core.sql import validate_sql
from tests.fakes.scripted_llm import ScriptedLLM


@pytest.fixture()
def places(tmp_path: Path):
    path = tmp_path / "places.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE visits(id INTEGER PRIMARY KEY, state TEXT, city TEXT, zip TEXT);"
            "INSERT INTO visits(state, city, zip) VALUES ('CA','LA','9001'),('CA','SF','9401'),('CA','SD','9210'),"
            "('NY','NYC','1001'),('NY','NYC','1001'),('NY','NYC','1001'),('TX','Austin','7301');"
        )
    db = open_database(str(path))
    yield db
    db.close()


def _ask(db, sql: str):
    return AskPipeline(db, ScriptedLLM(sql, sql, sql), Settings()).ask("a question")


def test_a_completion_that_would_change_the_rows_is_not_applied(places) -> None:
    sql = "SELECT state, city, COUNT(*) AS n FROM visits GROUP BY state HAVING COUNT(*) > 2"
    answer = _ask(places, sql)
    assert answer.ok and answer.sql == sql and answer.path == "llm"
    assert sorted(r[0] for r in answer.rows) == ["CA", "NY"]  # with city grouped too, only NYC passes HAVING
    assert any("Ran as written" in n and "city" in n for n in answer.notes)
    (grouped,) = answer.alternatives  # the completion stays one click away
    assert grouped.label == "Grouped by every column shown" and "GROUP BY state, city" in grouped.sql
    assert places.execute(grouped.sql).rows == (('NY', 'NYC', 3),)


def test_a_completion_that_keeps_the_rows_is_applied(places) -> None:
    answer = _ask(places, "SELECT state, COUNT(*) FROM visits GROUP BY city")  # each city lies in one state
    assert answer.ok and answer.path == "repaired" and "GROUP BY city, state" in (answer.sql or "")
    assert sorted(answer.rows) == [("CA", 1), ("CA", 1), ("CA", 1), ("NY", 3), ("TX", 1)]


def test_postgres_always_completes_a_group_by_it_would_reject() -> None:
    from core.schema import Column, Schema, Table

    schema = Schema("postgres", (Table("visits", (Column("state", "text"), Column("city", "text"))),))
    validated = validate_sql("SELECT state, city, COUNT(*) FROM visits GROUP BY state", schema, "postgres")
    assert validated.as_written is None and "GROUP BY state, city" in validated.sql


def test_sqlite_validation_offers_the_query_as_written() -> None:
    from core.schema import Column, Schema, Table

    schema = Schema("sqlite", (Table("visits", (Column("state", "text"), Column("city", "text"))),))
    validated = validate_sql("SELECT state, city, COUNT(*) FROM visits GROUP BY state", schema, "sqlite")
    assert validated.as_written is not None
    assert validated.as_written.sql == "SELECT state, city, COUNT(*) FROM visits GROUP BY state"
    assert validated.unproven == ("added city to GROUP BY",)


def test_an_aggregate_beside_bare_columns_with_no_group_by_is_completed_on_sqlite_too(places) -> None:
    """Standard SQL rejects it (PostgreSQL says so); SQLite would show one arbitrary state with the total count.
    The question names the split ("per state"): the completion runs."""
    sql = "SELECT state, COUNT(*) AS n FROM visits"
    answer = AskPipeline(places, ScriptedLLM(sql, sql, sql), Settings()).ask("visits per state")
    assert answer.ok and answer.path == "repaired" and "GROUP BY state" in (answer.sql or "")
    assert sorted(answer.rows) == [("CA", 3), ("NY", 3), ("TX", 1)]
    assert any("GROUP BY" in n for n in answer.notes)


def test_a_bare_column_the_question_does_not_name_runs_as_written_with_the_split_offered(places) -> None:
    """"how many visits": the bare state is no split the words ask for (a small model adds such columns); SQLite's
    one row keeps the total the question asks, and the split by state is one click away."""
    answer = _ask(places, "SELECT state, COUNT(*) AS n FROM visits")
    assert answer.ok and len(answer.rows) == 1 and answer.rows[0][1] == 7
    split = next(a for a in answer.alternatives if a.label == "One row per state")
    assert sorted(places.execute(split.sql).rows) == [("CA", 3), ("NY", 3), ("TX", 1)]
    assert any("no GROUP BY" in n for n in answer.notes)


def test_the_lone_max_idiom_of_sqlite_is_left_as_written(places) -> None:
    answer = _ask(places, "SELECT city, MAX(zip) AS z FROM visits")
    assert answer.ok and answer.path == "llm" and list(answer.rows) == [("SF", "9401")]
    (per_city,) = answer.alternatives  # the question may have asked per city: offered, with how many rows
    assert per_city.label == "One row per city" and "GROUP BY city" in per_city.sql
    assert len(places.execute(per_city.sql).rows) == 5 and "(5 rows)" in per_city.why


@pytest.fixture()
def school(tmp_path: Path):
    path = tmp_path / "school.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE teachers(teacher_id INTEGER PRIMARY KEY, name TEXT);"
            "CREATE TABLE courses(course_id INTEGER PRIMARY KEY, teacher_id INTEGER, title TEXT);"
            "INSERT INTO teachers VALUES (1,'Ada'),(2,'Bo'),(3,'Cy');"
            "INSERT INTO courses VALUES (1,1,'Maths'),(2,1,'Logic'),(3,2,'Art'),(4,NULL,'Music');"
        )
    db = open_database(str(path))
    yield db
    db.close()


_AMBIGUOUS = ("SELECT teacher_id, COUNT(*) AS n FROM courses JOIN teachers "
              "ON teachers.teacher_id = courses.teacher_id GROUP BY teacher_id")


def test_a_repair_that_would_silence_an_ambiguity_lets_the_model_go_first(school) -> None:
    llm = ScriptedLLM(_AMBIGUOUS, "SELECT teacher_id, COUNT(*) AS n FROM courses GROUP BY teacher_id")
    answer = AskPipeline(school, llm, Settings(repair_rounds=1)).ask("courses per teacher id")
    assert answer.ok and answer.sql == "SELECT teacher_id, COUNT(*) AS n FROM courses GROUP BY teacher_id"
    assert "ambiguous" in llm.history[-1].user and len(llm.history) == 2
    assert not any("Fixed:" in n for n in answer.notes)  # the silenced repair is not reported as done
    assert sorted(answer.rows, key=str) == sorted([(1, 2), (2, 1), (None, 1)], key=str)


def test_when_the_model_does_no_better_the_repaired_first_query_runs_and_says_so(school) -> None:
    llm = ScriptedLLM(_AMBIGUOUS, "SELEC nothing useful", "SELEC nothing useful")
    answer = AskPipeline(school, llm, Settings(repair_rounds=2)).ask("courses per teacher id")
    assert answer.ok and answer.path == "repaired" and "courses.teacher_id" in (answer.sql or "")
    assert any("ran its first query with Cairn's repairs" in n for n in answer.notes)
    assert sorted(answer.rows) == [(1, 2), (2, 1)]


def test_a_date_bucket_with_no_group_by_is_completed_when_the_words_group_by_a_period(tmp_path: Path) -> None:
    path = tmp_path / "pay.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE pay(id INTEGER, paid_on TEXT, amount REAL);"
                           "INSERT INTO pay VALUES (1,'2024-01-05',10),(2,'2024-01-20',5),(3,'2024-02-02',7);")
    db = open_database(str(path))
    sql = "SELECT strftime('%Y-%m', paid_on) AS ym, SUM(amount) FROM pay"
    answer = AskPipeline(db, ScriptedLLM(sql, sql, sql), Settings()).ask("total paid per month")
    assert answer.ok and sorted(answer.rows) == [("2024-01", 15.0), ("2024-02", 7.0)]
    db.close()


@pytest.mark.parametrize(("question", "split"), [
    ("visits per state", True),                      # a split word and the column's own word
    ("How many visits does each city have?", True),
    ("How many visits are there?", False),           # no split said
    ("ratio of visits in CA to visits in NY", False),
])
def test_a_completion_of_no_group_by_runs_only_when_the_words_split_by_its_columns(places, question, split) -> None:
    sql = "SELECT city, COUNT(*) AS n FROM visits" if "city" in question else "SELECT state, COUNT(*) AS n FROM visits"
    answer = AskPipeline(places, ScriptedLLM(sql, sql, sql), Settings()).ask(question)
    assert answer.ok and (len(answer.rows) > 1) == split


def test_a_label_or_key_named_only_by_its_table_is_no_split(tmp_path: Path) -> None:
    path = tmp_path / "biz.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE business(business_id INTEGER PRIMARY KEY, name TEXT, is_open INTEGER);"
                           "INSERT INTO business VALUES (1,'A',1),(2,'B',0),(3,'C',1);")
    db = open_database(str(path))
    sql = "SELECT business.business_id, SUM(is_open) * 1.0 / SUM(1 - is_open) AS ratio FROM business"
    answer = AskPipeline(db, ScriptedLLM(sql, sql, sql), Settings()).ask("ratio of open businesses to closed ones")
    assert answer.ok and len(answer.rows) == 1 and answer.rows[0][1] == 2.0
    db.close()


@pytest.mark.parametrize("cte", [
    "SELECT state, MIN(zip) AS first_zip FROM visits",  # the lone MIN is no idiom where the rest joins on state
    "SELECT state, COUNT(*) AS n FROM visits",
])
def test_a_cte_the_query_joins_on_its_bare_column_is_grouped_by_it(places, cte: str) -> None:
    sql = (f"WITH per AS ({cte}) SELECT v.state, per.* FROM (SELECT DISTINCT state FROM visits) AS v "
           "JOIN per ON per.state = v.state ORDER BY v.state")
    answer = AskPipeline(places, ScriptedLLM(sql, sql, sql), Settings()).ask("for each state, its first zip and count")
    assert answer.ok and [r[0] for r in answer.rows] == ["CA", "NY", "TX"]  # one row per state, not one in all


def test_a_cte_whose_bare_column_the_query_never_uses_runs_as_written(places) -> None:
    sql = "WITH t AS (SELECT state, COUNT(*) AS n FROM visits) SELECT n FROM t"  # a stray column: one total
    answer = AskPipeline(places, ScriptedLLM(sql, sql, sql), Settings()).ask("how many visits are there?")
    assert answer.ok and list(answer.rows) == [(7,)]
