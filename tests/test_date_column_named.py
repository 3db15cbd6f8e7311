"""A date column the model invents (``transaction_date``, ``created_at``, ``event_time``) where no spelling rule
reads it: the one date column of its table that the question's words name, as a guess the model is asked about
first (issue 27, fresh13's date_col_invented). Real SQLite through Cairn's pipeline; the model is scripted."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlglot

from core.config import Settings
from core.databases import open_database
from core.errors import SQLValidationError
from core.evidence import column_named, date_column_named
from core.pipeline import AskPipeline
from core.sql import validate
from tests.fakes.scripted_llm import ScriptedLLM


@pytest.fixture()
def shop(tmp_path: Path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE sales(id INTEGER PRIMARY KEY, seller TEXT, amount REAL, sale_date DATE, crtd_ts TIMESTAMP);"
            "INSERT INTO sales VALUES (1,'ann',10,'2024-01-05','2024-03-01 10:00'),(2,'ann',20,'2024-02-07',"
            "'2024-03-01 10:00'),(3,'bo',5,'2024-02-20','2024-03-01 10:00');"
            "CREATE TABLE staff(id INTEGER PRIMARY KEY, name TEXT, hire_date DATE, termination_date DATE);"
            "INSERT INTO staff VALUES (1,'ann','2020-01-01',NULL),(2,'bo','2021-06-01','2023-01-01');"
            "CREATE TABLE shipments(id INTEGER PRIMARY KEY, order_date DATE, ship_date DATE);"
            "CREATE TABLE merchants(id INTEGER PRIMARY KEY, name TEXT, created_at TIMESTAMP);"
            "CREATE TABLE users(id INTEGER PRIMARY KEY, created_at TIMESTAMP, last_login_at TIMESTAMP);")
    db = open_database(str(path))
    yield db
    db.close()


def _read(db, question: str, sql: str) -> str:
    schema = db.schema()
    return validate(sqlglot.parse_one(sql, read="sqlite"), schema, "sqlite", named=date_column_named(question)).sql


def test_an_invented_date_column_is_the_one_the_question_names(shop) -> None:
    assert "s.sale_date >= '2024-02-01'" in _read(
        shop, "sales since February per seller", "SELECT seller, COUNT(*) FROM sales s WHERE s.transaction_date >= "
        "'2024-02-01' GROUP BY seller")  # sale_date is named for its table; crtd_ts has words nobody said
    assert "hire_date" in _read(shop, "who was hired in 2021?", "SELECT name FROM staff WHERE event_date >= '2021-01-01'")


def test_the_same_own_words_in_another_order_or_the_tables_one_date_are_read(shop) -> None:
    assert "created_at" in _read(shop, "users who signed up in 2023", "SELECT id FROM users WHERE date_created >= "
                                 "'2023-01-01'")  # the name's own word, created, is created_at's
    assert "created_at" in _read(shop, "merchants that joined this year", "SELECT name FROM merchants WHERE "
                                 "event_time >= '2024-01-01'")  # its one date column


@pytest.mark.parametrize(("question", "sql"), [
    # a name of another event is never read as some other date, whatever the question says
    ("merchants closed in 2023", "SELECT name FROM merchants WHERE closed_at >= '2023-01-01'"),
    ("sales since March", "SELECT COUNT(*) FROM sales WHERE cancelled_at >= '2024-03-01'"),
    ("active merchants", "SELECT name FROM merchants WHERE event_time IS NULL"),  # IS NULL: a state's flag
    # two date columns with their own words, the question saying neither: no guess
    ("shipments in March", "SELECT COUNT(*) FROM shipments WHERE event_date >= '2024-03-01'"),
    # a name whose last word is no date word is not read as a date, whatever the question says
    ("sales per weekday", "SELECT day_name, COUNT(*) FROM sales GROUP BY day_name"),
])
def test_no_date_column_is_guessed_where_the_words_name_none(shop, question: str, sql: str) -> None:
    with pytest.raises(SQLValidationError, match="Unknown column"):
        _read(shop, question, sql)


def test_the_guess_is_shown_to_the_model_first_and_its_own_fix_wins(shop) -> None:
    invented = "SELECT seller, SUM(amount) FROM sales WHERE transaction_date >= '2024-02-01' GROUP BY seller"
    fixed = "SELECT seller, SUM(amount) FROM sales WHERE sale_date >= '2024-02-01' AND amount > 6 GROUP BY seller"
    llm = ScriptedLLM(invented, fixed)
    answer = AskPipeline(shop, llm, Settings()).ask("sales since February per seller")
    assert answer.ok and answer.sql is not None and "amount > 6" in answer.sql  # the model's rewrite ran
    assert "transaction_date" in llm.history[1].user  # it was shown the query Cairn could only guess at


def test_with_a_model_that_does_no_better_the_guess_runs_and_is_said(shop) -> None:
    invented = "SELECT seller, SUM(amount) FROM sales WHERE transaction_date >= '2024-02-01' GROUP BY seller"
    answer = AskPipeline(shop, ScriptedLLM(invented, invented, invented), Settings()).ask(
        "sales since February per seller")
    assert answer.ok and sorted(answer.rows) == [("ann", 20.0), ("bo", 5.0)]
    assert any("transaction_date -> sales.sale_date (a guess" in n for n in answer.notes)


def test_a_shortened_name_is_the_longer_one_whose_other_words_the_question_says(tmp_path: Path) -> None:
    """``SUM(p.num)`` where publication has citation_num and reference_num: "citations" says which
    (``core.evidence.column_named``); a question that names neither leaves the name unread."""
    path = tmp_path / "papers.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE publication(pid INTEGER, title TEXT, citation_num INTEGER, "
                           "reference_num INTEGER); INSERT INTO publication VALUES (1, 'a', 3, 7);")
    db = open_database(str(path))
    try:
        schema, tree = db.schema(), sqlglot.parse_one("SELECT SUM(p.num) FROM publication p", read="sqlite")
        assert "citation_num" in validate(tree.copy(), schema, "sqlite",
                                          named=column_named("total citations received")).sql
        with pytest.raises(SQLValidationError):
            validate(tree.copy(), schema, "sqlite", named=column_named("the total number"))
    finally:
        db.close()
