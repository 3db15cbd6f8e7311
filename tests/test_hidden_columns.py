"""Issue 32, hardening 2: a query that touches a hidden column in any form is narrowed or refused before it runs,
and a hidden column's name never reaches a shared insight.

Hiding ``customers.email`` took it out of the schema the model sees, but ``SELECT *``, ``c.*`` and every way of
using a whole row as a value (``row_to_json(c)``, ``c::text``, ``ROW(c.*)``, DuckDB's struct ``p``…) still
returned the e-mails. Each form below is first run with nothing hidden, to show it really carries the hidden
values; then with the column hidden it is refused (``HiddenColumnRefused``) or its ``*`` narrowed to the visible
columns, and no hidden value is in the rows, the error, the hint or any model prompt. Real databases: the embedded
PostgreSQL sample, a SQLite file and a CSV read by DuckDB.
"""

from __future__ import annotations

import ast
import datetime as dt
import json
import sqlite3
from pathlib import Path
from typing import Any

import psycopg
import pytest

from core.answer import Answer
from core.config import Settings
from core.databases import open_database
from core.errors import HiddenColumnRefused
from core.insights import AgentKey, InsightSharing
from core.insights._store_jsonl import JsonlInsightStore
from core.pipeline import AskPipeline
from core.sharing import share_inputs
from tests.fakes.fake_embedder import FakeEmbedder
from tests.fakes.scripted_llm import ScriptedLLM

TODAY = dt.date(2026, 1, 15)
VISIBLE = ("customer_id", "name", "city", "country", "segment")


def pipeline(db: Any, *replies: str, hidden: list[str] | None = None) -> tuple[AskPipeline, ScriptedLLM]:
    llm = ScriptedLLM(*replies)
    settings = Settings(hidden={db.id: hidden} if hidden else {})
    return AskPipeline(db, llm, settings, today=lambda: TODAY), llm


def everything(answer: Answer, llm: ScriptedLLM | None = None) -> str:
    """Every text of an answer a person or the model could see, and every prompt the model was sent."""
    parts = [answer.sql or "", answer.error or "", answer.hint or "", answer.rejected_reason or "",
             json.dumps(answer.columns), json.dumps([list(map(str, r)) for r in answer.rows]), *answer.notes]
    if llm is not None:
        parts += [t.system + t.user for t in llm.history]
    return "\n".join(parts)


@pytest.fixture(scope="module")
def emails(sample_db_uri: str) -> list[str]:
    with psycopg.connect(sample_db_uri) as conn:
        return [r[0] for r in conn.execute("SELECT email FROM customers").fetchall()]


def leaked(text: str, emails: list[str]) -> list[str]:
    return [e for e in emails if e in text]


# -- PostgreSQL: every whole-row form is refused before it runs --------------------------------------------------

WHOLE_ROW = [
    "SELECT row_to_json(c) FROM customers c",
    "SELECT to_jsonb(c) FROM customers c",
    "SELECT to_json(customers) FROM customers",
    "SELECT c::text FROM customers c",
    "SELECT CAST(c AS text) FROM customers c",
    "SELECT ROW(c.*)::text FROM customers c",
    # (aggregates grouped and limited: the guard refuses one over a whole table for its size, core/sql/_bounds.py)
    "SELECT json_agg(c) FROM customers c GROUP BY c.city LIMIT 5",
    "SELECT string_agg(c::text, ',') FROM customers c GROUP BY c.city LIMIT 5",
    "SELECT array_agg(c.*)::text FROM customers c GROUP BY c.city LIMIT 5",
    "SELECT c FROM customers c",  # an alias used as a value: the whole row
    "SELECT email(c) FROM customers c",  # PostgreSQL's functional notation for c.email
    "SELECT (c).email FROM customers c",
    "SELECT x.j::text FROM customers c, LATERAL (SELECT to_jsonb(c) AS j) x",
    "WITH t AS (SELECT 1) SELECT row_to_json(c) FROM t, customers c",
]


@pytest.mark.parametrize("sql", WHOLE_ROW)
def test_a_whole_row_of_a_table_with_a_hidden_column_is_refused(db, emails, sql: str) -> None:
    open_pipe, _ = pipeline(db)
    before = open_pipe.run_sql(sql)
    assert before.ok and leaked(everything(before), emails), "the form carries the hidden values when not refused"
    pipe, _ = pipeline(db, hidden=["customers.email"])
    answer = pipe.run_sql(sql)
    assert not answer.ok and answer.error_kind == "HiddenColumnRefused", answer.error
    assert "customers" in answer.error and "name the columns you need" in answer.error
    assert "customer_id" in answer.hint and "email" not in answer.error + answer.hint  # the visible columns only
    assert not leaked(everything(answer), emails)


@pytest.mark.parametrize("sql", [
    "SELECT hstore(c) FROM customers c",  # no hstore extension here: refused before the database could say so
    "SELECT name FROM customers NATURAL JOIN (SELECT 'x' AS email) e",  # joins on the hidden column
    "SELECT * FROM customers ORDER BY 3",  # the third column of * is the hidden one
    "SELECT DISTINCT ON (3) * FROM customers",
    "SELECT count(c.*) FROM customers c",
    # validation refuses these already; the check refuses them too, wherever a query skips validation
    "SELECT (SELECT row_to_json(c)) FROM customers c",  # correlated, from a subquery
    "SELECT e FROM customers AS x(i, n, e)",  # a column-alias list renames email by position
    "SELECT name, email FROM customers AS x(customer_id, name, email)",
])
def test_other_ways_to_the_hidden_column_are_refused(db, emails, sql: str) -> None:
    pipe, _ = pipeline(db, hidden=["customers.email"])
    answer = pipe.run_sql(sql)
    assert not answer.ok and answer.error_kind in ("HiddenColumnRefused", "SQLValidationError"), answer.error
    with pytest.raises(HiddenColumnRefused):  # the check alone, as every query meets it before it runs
        pipe.run_query(sql)
    assert not leaked(everything(answer), emails)


def test_a_hidden_column_named_directly_or_in_using_is_unknown(db, emails) -> None:
    pipe, _ = pipeline(db, hidden=["customers.email"])
    for sql in ("SELECT email FROM customers", "SELECT name FROM customers WHERE email LIKE '%a%'",
                "SELECT name FROM customers JOIN (SELECT 'x' AS email) e USING (email)"):
        answer = pipe.run_sql(sql)
        assert not answer.ok and answer.error_kind in ("SQLValidationError", "HiddenColumnRefused"), sql
        assert not leaked(everything(answer), emails)


def test_a_hidden_column_inside_values_is_unknown(db, emails) -> None:
    """Validation does not look inside a VALUES statement: the hidden check does (it read the e-mail before)."""
    sql = "VALUES ((SELECT email FROM customers ORDER BY customer_id LIMIT 1))"
    assert leaked(everything(pipeline(db)[0].run_sql(sql)), emails)
    answer = pipeline(db, hidden=["customers.email"])[0].run_sql(sql)
    assert not answer.ok and answer.error_kind == "SQLValidationError" and not leaked(everything(answer), emails)


# -- PostgreSQL: * is narrowed to the visible columns, same order and names -----------------------------------

def direct(uri: str, sql: str) -> list[tuple]:
    with psycopg.connect(uri) as conn:
        return [tuple(r) for r in conn.execute(sql).fetchall()]


@pytest.mark.parametrize("sql", [
    "SELECT * FROM customers ORDER BY customer_id LIMIT 5",
    "SELECT c.* FROM customers c ORDER BY 1 LIMIT 5",
    "SELECT customers.* FROM customers ORDER BY 2 LIMIT 5",  # a position before the hidden column keeps its meaning
    "TABLE customers ORDER BY customer_id LIMIT 5",
    "WITH x AS (SELECT * FROM customers) SELECT * FROM x ORDER BY customer_id LIMIT 5",
    "SELECT s.* FROM (SELECT * FROM customers) s ORDER BY customer_id LIMIT 5",
])
def test_star_over_a_table_with_a_hidden_column_is_its_visible_columns(db, sample_db_uri, emails, sql: str) -> None:
    pipe, _ = pipeline(db, hidden=["customers.email"])
    answer = pipe.run_sql(sql)
    assert answer.ok, answer.error
    assert answer.columns == VISIBLE
    order = "ORDER BY name" if "ORDER BY 2" in sql else "ORDER BY customer_id"
    assert list(answer.rows) == direct(sample_db_uri, f"SELECT {', '.join(VISIBLE)} FROM customers {order} LIMIT 5")
    assert "*" not in answer.sql.split("FROM")[0] or sql.startswith("SELECT s.*")  # shown as it ran
    assert not leaked(everything(answer), emails)


def test_star_over_a_join_keeps_the_other_tables_columns(db, sample_db_uri, emails) -> None:
    sql = "SELECT * FROM orders o JOIN customers c ON c.customer_id = o.customer_id ORDER BY o.order_id LIMIT 5"
    open_answer = pipeline(db)[0].run_sql(sql)
    answer = pipeline(db, hidden=["customers.email"])[0].run_sql(sql)
    assert answer.ok, answer.error
    width = len(open_answer.columns) - 6  # the orders part
    assert answer.columns == open_answer.columns[:width] + VISIBLE
    assert [r[:width] for r in answer.rows] == [r[:width] for r in open_answer.rows]
    assert leaked(everything(open_answer), emails) and not leaked(everything(answer), emails)


def test_count_star_and_tables_without_hidden_columns_are_untouched(db) -> None:
    pipe, _ = pipeline(db, hidden=["customers.email"])
    count = pipe.run_sql("SELECT COUNT(*) FROM customers")
    assert count.ok and count.rows == ((600,),) and count.sql == "SELECT COUNT(*) FROM customers"
    sql = "SELECT * FROM orders ORDER BY order_id LIMIT 3"
    hidden_answer, open_answer = pipe.run_sql(sql), pipeline(db)[0].run_sql(sql)
    assert hidden_answer.sql == open_answer.sql and "*" in hidden_answer.sql
    assert hidden_answer.columns == open_answer.columns and hidden_answer.rows == open_answer.rows


def test_a_hidden_table_is_unknown_in_every_form(db, emails) -> None:
    pipe, _ = pipeline(db, hidden=["customers"])
    for sql in ("SELECT * FROM customers", "SELECT row_to_json(c) FROM customers c", "TABLE customers",
                "SELECT o.order_id, to_jsonb(c) FROM orders o JOIN customers c ON c.customer_id = o.customer_id",
                "SELECT count(*) FROM orders WHERE customer_id IN (SELECT customer_id FROM customers)"):
        answer = pipe.run_sql(sql)
        assert not answer.ok and answer.error_kind == "SQLValidationError", (sql, answer.error)
        assert not leaked(everything(answer), emails)


def test_the_model_is_told_to_name_columns_and_never_sees_a_hidden_value(db, emails) -> None:
    pipe, llm = pipeline(db, "SELECT row_to_json(c) FROM customers c ORDER BY customer_id LIMIT 3",
                         "SELECT * FROM customers ORDER BY customer_id LIMIT 3", hidden=["customers.email"])
    answer = pipe.ask("show three customers")
    assert answer.ok and answer.columns == VISIBLE and len(llm.history) == 2
    assert "whole row of customers" in llm.history[1].user and "name the columns you need" in llm.history[1].user
    assert not leaked(everything(answer, llm), emails)
    assert "email" not in "".join(t.user for t in llm.history)  # not even the hidden name


def test_every_query_the_pipeline_runs_goes_through_the_hidden_check(db) -> None:
    """Evidence queries, join probes, the no-harm comparison and value look-ups all run through ``run_query``,
    the one place that calls the database (checked in the source), and it refuses a whole row there too."""
    tree = ast.parse(Path("core/pipeline.py").read_text(encoding="utf-8"))
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and n.func.attr == "execute" and ast.unparse(n.func.value) == "self.database"]
    runner = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "run_query")
    assert len(calls) == 1 and calls[0] in list(ast.walk(runner))
    pipe, _ = pipeline(db, hidden=["customers.email"])
    with pytest.raises(HiddenColumnRefused):
        pipe.run_query("SELECT to_jsonb(c) FROM customers c")
    assert pipe.run_query("SELECT * FROM customers LIMIT 1").columns == VISIBLE


# -- SQLite and DuckDB -------------------------------------------------------------------------------------------

SECRETS = ("SECRET-111", "SECRET-222")


@pytest.fixture
def people_sqlite(tmp_path: Path) -> Any:
    path = tmp_path / "people.db"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE people(id INTEGER PRIMARY KEY, name TEXT, ssn TEXT, age INT);"
                           "INSERT INTO people VALUES (1, 'Ann', 'SECRET-111', 30), (2, 'Bob', 'SECRET-222', 40);"
                           "CREATE TABLE pets(id INTEGER PRIMARY KEY, owner_id INT, kind TEXT);"
                           "INSERT INTO pets VALUES (1, 1, 'cat');")
    database = open_database(str(path))
    yield database
    database.close()


def test_sqlite_star_is_narrowed_and_other_forms_refused(people_sqlite) -> None:
    open_pipe, _ = pipeline(people_sqlite)
    pipe, _ = pipeline(people_sqlite, hidden=["people.ssn"])
    narrowed = {
        "SELECT * FROM people ORDER BY id": (("id", "name", "age"), ((1, "Ann", 30), (2, "Bob", 40))),
        "SELECT p.* FROM people p ORDER BY 1": (("id", "name", "age"), ((1, "Ann", 30), (2, "Bob", 40))),
        "SELECT * FROM people JOIN pets ON pets.owner_id = people.id": (
            ("id", "name", "age", "id", "owner_id", "kind"), ((1, "Ann", 30, 1, 1, "cat"),)),
        "WITH c AS (SELECT * FROM people) SELECT * FROM c WHERE id = 2": (("id", "name", "age"), ((2, "Bob", 40),)),
    }
    for sql, (columns, rows) in narrowed.items():
        assert any(s in everything(open_pipe.run_sql(sql)) for s in SECRETS)  # before: the hidden values
        answer = pipe.run_sql(sql)
        assert answer.ok and (answer.columns, answer.rows) == (columns, rows), (sql, answer.error)
        assert not any(s in everything(answer) for s in SECRETS)
    for sql in ("SELECT * FROM people ORDER BY 3", "SELECT * FROM (SELECT 1) JOIN people ON 1 = 1",
                "SELECT p FROM people p", "SELECT name FROM people NATURAL JOIN pets"):
        answer = pipe.run_sql(sql)
        assert answer.error_kind == "HiddenColumnRefused" and not any(s in everything(answer) for s in SECRETS)
    assert pipe.run_sql("SELECT count(*) FROM people").rows == ((2,),)
    assert pipe.run_sql("SELECT * FROM pets").sql == open_pipe.run_sql("SELECT * FROM pets").sql == "SELECT * FROM pets"


@pytest.fixture
def people_csv(tmp_path: Path) -> Any:
    """The people table as a CSV file, read through DuckDB."""
    path = tmp_path / "people.csv"
    path.write_text("id,name,ssn,age\n1,Ann,SECRET-111,30\n2,Bob,SECRET-222,40\n", encoding="utf-8")
    database = open_database(str(path))
    yield database
    database.close()


def test_duckdb_struct_rows_and_column_patterns_are_refused(people_csv) -> None:
    database = people_csv
    open_pipe, _ = pipeline(database)
    pipe, _ = pipeline(database, hidden=["people.ssn"])
    for sql in ("SELECT p FROM people p", "SELECT to_json(p) FROM people p", "SELECT p['ssn'] FROM people p",
                "SELECT COLUMNS('s.*') FROM people", "SELECT * EXCLUDE (age) FROM people",
                "SELECT COLUMNS(*) FROM people", "SELECT #3 FROM people",
                "SELECT * FROM people QUALIFY row_number() OVER (ORDER BY #3) = 1"):
        before = open_pipe.run_sql(sql)
        assert before.ok and any(s in everything(before) for s in SECRETS), (sql, before.error)
        answer = pipe.run_sql(sql)
        assert answer.error_kind in ("HiddenColumnRefused", "SQLValidationError"), (sql, answer.error)
        assert not any(s in everything(answer) for s in SECRETS)
    answer = pipe.run_sql("SELECT * FROM people ORDER BY id")
    assert answer.columns == ("id", "name", "age") and not any(s in everything(answer) for s in SECRETS)


def test_a_table_written_with_its_schema_or_catalog_is_the_same_table(people_sqlite, tmp_path: Path) -> None:
    """`main.people` (SQLite, DuckDB) and a DuckDB file's `catalog.main.people` name the table that hides a
    column: its stars are narrowed and its other routes refused the same way (a hand attack read them whole)."""
    import duckdb

    file = tmp_path / "shop.duckdb"
    with duckdb.connect(str(file)) as conn:
        conn.execute("CREATE TABLE people AS SELECT * FROM (VALUES (1, 'Ann', 'SECRET-111', 30), "
                     "(2, 'Bob', 'SECRET-222', 40)) v(id, name, ssn, age)")
    duck = open_database(str(file))
    try:
        for database, forms in ((people_sqlite, ("main.people", '"main"."people"')),
                                (duck, ("main.people", "shop.main.people"))):
            open_pipe, _ = pipeline(database)
            pipe, _ = pipeline(database, hidden=["people.ssn"])
            for table in forms:
                star = f"SELECT * FROM {table} ORDER BY id"
                assert any(s in everything(open_pipe.run_sql(star)) for s in SECRETS), star  # before: leaked
                answer = pipe.run_sql(star)
                assert answer.ok and answer.columns == ("id", "name", "age"), (star, answer.error)
                for sql in (f"SELECT p.* FROM {table} p ORDER BY 3", f"SELECT * FROM {table} ORDER BY 3",
                            f"SELECT * FROM {table} NATURAL JOIN {table} AS q", f"SELECT p FROM {table} p"):
                    refused = pipe.run_sql(sql)
                    assert not any(s in everything(refused) for s in SECRETS), sql
                    assert refused.error_kind in ("HiddenColumnRefused", "SQLValidationError") or (
                        refused.ok and "ssn" not in refused.columns), (sql, refused.error)
    finally:
        duck.close()


def test_duckdb_summarize_of_a_table_that_hides_a_column_is_refused(people_csv) -> None:
    """SUMMARIZE reports each column's min and max: of a hidden column, its values."""
    database = people_csv
    open_pipe, _ = pipeline(database)
    pipe, _ = pipeline(database, hidden=["people.ssn"])
    for sql in ("SELECT * FROM (SUMMARIZE people)", "SUMMARIZE people", "SELECT * FROM (SUMMARIZE main.people)"):
        before = open_pipe.run_sql(sql)
        if before.ok:
            assert any(s in everything(before) for s in SECRETS), sql
        answer = pipe.run_sql(sql)
        assert not answer.ok and not any(s in everything(answer) for s in SECRETS), (sql, answer.columns)
    assert pipe.run_sql("SELECT * FROM (SUMMARIZE (SELECT * FROM people))").ok  # narrowed first: no ssn


# -- shared insights: a hidden column's name never reaches a stored summary -------------------------------------

def sharing(tmp_path: Path) -> InsightSharing:
    embedder = FakeEmbedder(384)
    return InsightSharing(open_store=lambda: JsonlInsightStore(tmp_path), embed=lambda t: embedder.embed_batch([t])[0],
                          embedding_model="fake", agent_id="agent-a", db_kind="postgresql", key=AgentKey.generate())


def draft(summary: str, *followups: str) -> str:
    return json.dumps({"worth_sharing": True, "insight_summary": summary,
                       "entities": ["table:customers", "column:customers.email", "column:customers.city"],
                       "suggested_followups": list(followups)})


def test_a_hidden_column_name_in_a_draft_rejects_that_part(db, tmp_path: Path) -> None:
    pipe, _ = pipeline(db, hidden=["customers.email"])
    answer = pipe.run_sql("SELECT city, count(*) AS customers FROM customers GROUP BY city ORDER BY city")
    inputs = share_inputs(answer, pipe.load_schema(), hidden=["customers.email"])
    assert inputs is not None and inputs.hidden_names == ("email",)
    assert "email" not in inputs.schema["customers"]  # the vocabulary of allowed names is the visible schema
    clean = ("Compared how many customers each city has.", "Which cities have the most customers?")
    # the same words without the hidden name pass: the refusal below is for the name alone
    ok = sharing(tmp_path / "a").share(ScriptedLLM(draft(*clean)), **inputs.kwargs())
    assert ok.record is not None and ok.record.entities == ("table:customers", "column:customers.city")
    llm = ScriptedLLM(draft("Compared the email coverage of customers in each city.", *clean[1:]))
    outcome = sharing(tmp_path / "b").share(llm, **inputs.kwargs())
    assert outcome.record is None and "hidden column's name" in outcome.reason
    assert "email" not in llm.history[0].user  # the summary's model was shown no hidden name either
    llm = ScriptedLLM(draft(clean[0], "Which cities have customers without an e-mail?",
                            "Do customer emails differ by city?", clean[1]))
    kept = sharing(tmp_path / "c").share(llm, **inputs.kwargs())
    assert kept.record is not None and kept.record.suggested_followups == (clean[1],)
    stored = "".join(p.read_text(encoding="utf-8") for p in tmp_path.rglob("*.jsonl")).lower()
    assert "email" not in stored


def test_result_columns_named_like_a_hidden_column_are_not_passed_to_sharing(db) -> None:
    pipe, _ = pipeline(db, hidden=["customers.email"])
    answer = pipe.run_sql("SELECT name AS email, city FROM customers ORDER BY customer_id LIMIT 2")
    inputs = share_inputs(answer, pipe.load_schema(), hidden=["customers.email"])
    assert inputs is not None and inputs.columns == ("column_1", "city")
    # a name hidden in one table but shown in another is no secret: it stays a name (none here: orders has none)
    assert share_inputs(answer, pipe.load_schema(), hidden=["orders.status"]).hidden_names == ()
