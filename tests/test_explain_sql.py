"""Explaining SQL in plain words: the structural reading from the parse tree (joins, filters, groups, order, limit,
CTEs, window functions, DISTINCT) on SQLite and PostgreSQL, the model's words through the real client against the
fake Ollama server, and the fall back to the structure when the model is down, slow, stopped or silent."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from core.cancellation import Cancellation
from core.composition import Services
from core.config import Settings
from core.errors import LLMUnavailable
from core.llm import OllamaLLM, cancellable
from core.replies import Explanation, describe_sql, explain_sql, meta_reply
from core.replies._meta import MetaContext
from core.schema import Column, Schema, Table
from tests.fakes.scripted_llm import ScriptedLLM

MODEL = "qwen2.5-coder:7b"
TABLES = (
    Table("orders", (Column("id", "integer"), Column("customer_id", "integer"), Column("order_date", "date"),
                     Column("status", "text"), Column("total_amount", "numeric"))),
    Table("customers", (Column("id", "integer"), Column("name", "text"), Column("country", "text"))),
)
DIALECTS = ["sqlite", "postgres"]


def schema(dialect: str) -> Schema:
    return Schema(dialect, TABLES)


# -- the structure -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_join_names_both_tables_and_what_they_match_on(dialect: str) -> None:
    text = describe_sql("SELECT c.name, o.total_amount FROM orders o JOIN customers c ON o.customer_id = c.id",
                        schema(dialect))
    assert "It reads orders, joined with customers where orders.customer_id matches customers.id." in text
    assert "It shows customers.name and orders.total_amount." in text

    left = describe_sql("SELECT c.name FROM customers c LEFT JOIN orders o ON o.customer_id = c.id "
                        "WHERE o.id IS NULL", schema(dialect))
    assert "keeping customers rows that have no match" in left
    assert "orders.id is empty (NULL)" in left


@pytest.mark.parametrize("dialect", DIALECTS)
def test_filters_read_as_words(dialect: str) -> None:
    text = describe_sql(
        "SELECT name FROM customers WHERE country IN ('India', 'Nepal') AND name LIKE 'A%' "
        "AND country IS NOT NULL AND id BETWEEN 10 AND 20 AND name <> 'Bob'", schema(dialect))
    assert "keeps only the rows where country is one of 'India', 'Nepal'" in text
    assert "name starts with 'A'" in text
    assert "country is not empty (not NULL)" in text
    assert "id is between 10 and 20 (inclusive)" in text
    assert "name is not 'Bob'" in text


def test_date_ranges_read_as_dates() -> None:
    pg = describe_sql("SELECT id FROM orders WHERE order_date >= DATE '2024-01-01' AND order_date < '2025-01-01'",
                      schema("postgres"))
    assert "order_date is on or after 2024-01-01 and before 2025-01-01" in pg
    recent = describe_sql("SELECT id FROM orders WHERE order_date >= CURRENT_DATE - INTERVAL '30 days'",
                          schema("postgres"))
    assert "order_date is on or after 30 days before today" in recent
    lite = describe_sql("SELECT id FROM orders WHERE order_date >= date('now', '-7 days')", schema("sqlite"))
    assert "order_date is on or after 7 days before today" in lite
    between = describe_sql("SELECT id FROM orders WHERE order_date BETWEEN '2024-01-01' AND '2024-03-31'",
                           schema("sqlite"))
    assert "order_date is from 2024-01-01 to 2024-03-31" in between


@pytest.mark.parametrize("dialect", DIALECTS)
def test_grouping_aggregates_and_having(dialect: str) -> None:
    text = describe_sql(
        "SELECT status, COUNT(*) AS n, SUM(total_amount) AS revenue, AVG(total_amount) FROM orders "
        "GROUP BY status HAVING COUNT(*) > 5", schema(dialect))
    assert "It groups the rows by status." in text
    assert "counts the rows (shown as n), sums total_amount (shown as revenue) and averages total_amount " \
           "for each group" in text
    assert "It keeps only the groups where the number of rows is more than 5." in text


@pytest.mark.parametrize("dialect", DIALECTS)
def test_order_and_limit(dialect: str) -> None:
    text = describe_sql("SELECT name, country FROM customers ORDER BY country DESC, name LIMIT 10 OFFSET 20",
                        schema(dialect))
    assert "It sorts the result by country descending (Z to A), then by name ascending (A to Z)." in text
    assert "It returns only the first 10 rows, skipping the first 20." in text
    top = describe_sql("SELECT SUM(total_amount) AS revenue, customer_id FROM orders GROUP BY customer_id "
                       "ORDER BY revenue DESC LIMIT 3", schema(dialect))
    assert "sorts the result by revenue descending (largest first)" in top
    assert "returns only the first 3 rows" in top
    unsorted = describe_sql("SELECT * FROM orders LIMIT 5", schema(dialect))
    assert "It shows every column." in unsorted and "It returns at most 5 rows." in unsorted


@pytest.mark.parametrize("dialect", DIALECTS)
def test_ctes_and_subqueries_are_named(dialect: str) -> None:
    text = describe_sql(
        "WITH big AS (SELECT customer_id, total_amount FROM orders WHERE total_amount > 500), "
        "counted AS (SELECT customer_id, COUNT(*) AS n FROM big GROUP BY customer_id) "
        "SELECT c.name, counted.n FROM counted JOIN customers c ON c.id = counted.customer_id", schema(dialect))
    assert text.startswith("First it works out a step called big: reads orders, keeps only the rows where "
                           "total_amount is more than 500")
    assert "Next it works out a step called counted: reads big, groups the rows by customer_id" in text
    assert "Then, using those steps: it reads counted, joined with customers" in text

    sub = describe_sql("SELECT name FROM customers WHERE id IN (SELECT customer_id FROM orders WHERE status = "
                       "'returned')", schema(dialect))
    assert "id is among the values of a subquery that reads orders, keeps only the rows where status is " \
           "'returned'" in sub
    exists = describe_sql("SELECT name FROM customers c WHERE NOT EXISTS (SELECT 1 FROM orders o "
                          "WHERE o.customer_id = c.id)", schema(dialect))
    assert "there is no matching row in a subquery that reads orders and keeps only the rows where customer_id " \
           "matches customers.id" in exists


@pytest.mark.parametrize("dialect", DIALECTS)
def test_window_functions_and_distinct(dialect: str) -> None:
    text = describe_sql(
        "SELECT customer_id, ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY order_date DESC) AS rn, "
        "SUM(total_amount) OVER (ORDER BY order_date) AS running FROM orders", schema(dialect))
    assert "numbers the rows 1, 2, 3… (a window function) within each customer_id, in order of order_date " \
           "descending (shown as rn)" in text
    assert "works out a running total of total_amount (a window function), in order of order_date " \
           "(shown as running)" in text
    distinct = describe_sql("SELECT DISTINCT country FROM customers", schema(dialect))
    assert "It keeps each distinct row only once (duplicates removed)." in distinct
    counted = describe_sql("SELECT COUNT(DISTINCT country) FROM customers", schema(dialect))
    assert "counts the distinct values of country over all the rows" in counted


def test_distinct_on_and_union_on_postgres() -> None:
    text = describe_sql("SELECT DISTINCT ON (customer_id) customer_id, total_amount FROM orders "
                        "ORDER BY customer_id, total_amount DESC", schema("postgres"))
    assert "keeps only one row for each customer_id" in text
    union = describe_sql("SELECT country FROM customers UNION ALL SELECT status FROM orders", schema("postgres"))
    assert "puts together the rows of 2 queries, keeping duplicates" in union
    assert "The first query reads customers and shows country." in union


def test_what_is_not_a_query_or_does_not_parse() -> None:
    assert "would change data" in describe_sql("DELETE FROM orders", schema("postgres"))
    assert "could not be read" in describe_sql("SELEC nothing FROM", schema("postgres"))
    assert describe_sql("   ") == "There is no SQL to explain."


def test_the_meta_reply_reads_the_last_sql_the_same_way() -> None:
    sql = "SELECT name FROM customers WHERE country = 'India' ORDER BY name LIMIT 5"
    text = meta_reply("explain the last SQL", MetaContext(schema=schema("sqlite"), last_sql=sql))
    assert text.startswith("The last answer ran this SQL:\n")
    assert describe_sql(sql, schema("sqlite")) in text
    assert "keeps only the rows where country is 'India'" in text


# -- the model, and falling back -----------------------------------------------------------------------------------


def test_the_model_explains_through_the_real_client(fake_ollama) -> None:
    fake_ollama.enqueue_chat("<think>short</think>```\nIt lists the five newest orders from India.\n```")
    llm = OllamaLLM(fake_ollama.url, MODEL, timeout_s=5)
    sql = "SELECT o.id FROM orders o JOIN customers c ON c.id = o.customer_id WHERE c.country = 'India' LIMIT 5"
    got = explain_sql(sql, schema("postgres"), llm)
    assert got == Explanation("It lists the five newest orders from India.", "model")
    (request,) = fake_ollama.chat_requests()
    user = request["messages"][1]["content"]
    assert sql in user
    assert "orders(id integer, customer_id integer" in user and "customers(id integer, name text" in user
    assert "plain English" in request["messages"][0]["content"]


def test_ollama_down_falls_back_to_the_structure(fake_ollama) -> None:
    llm = OllamaLLM(fake_ollama.url, MODEL, timeout_s=5)
    fake_ollama.stop()
    got = explain_sql("SELECT name FROM customers LIMIT 3", schema("sqlite"), llm)
    assert got.source == "structure" and got.note == "the model is not available"
    assert got.text == describe_sql("SELECT name FROM customers LIMIT 3", schema("sqlite"))


def test_a_slow_or_silent_or_missing_model_falls_back(fake_ollama) -> None:
    sql = "SELECT COUNT(*) FROM orders"
    fake_ollama.chat_delay_s = 2.0
    slow = explain_sql(sql, schema("postgres"), OllamaLLM(fake_ollama.url, MODEL, timeout_s=0.3))
    assert (slow.source, slow.note) == ("structure", "the model did not answer in time")
    fake_ollama.chat_delay_s = 0.0
    fake_ollama.enqueue_chat("   ")
    silent = explain_sql(sql, schema("postgres"), OllamaLLM(fake_ollama.url, MODEL, timeout_s=5))
    assert (silent.source, silent.note) == ("structure", "the model gave no explanation")
    assert "counts the rows" in silent.text
    missing = explain_sql(sql, schema("postgres"), OllamaLLM(fake_ollama.url, "no-such-model", timeout_s=5))
    assert (missing.source, missing.note) == ("structure", "the model is not installed")
    fake_ollama.enqueue_chat("SELECT COUNT(*) FROM orders;")
    sql_back = explain_sql(sql, schema("postgres"), OllamaLLM(fake_ollama.url, MODEL, timeout_s=5))
    assert sql_back.source == "structure"


def test_no_model_or_a_failing_one_reads_the_structure() -> None:
    none = explain_sql("SELECT 1", schema("sqlite"), None)
    assert (none.source, none.note) == ("structure", "no model is set up")
    failing = explain_sql("SELECT 1", schema("sqlite"), ScriptedLLM(LLMUnavailable("down")))
    assert failing.source == "structure"
    unparsed = explain_sql("SELEC oops", schema("sqlite"), None)
    assert "could not be read" in unparsed.text


def test_stop_cuts_the_model_call_and_reads_the_structure(fake_ollama) -> None:
    fake_ollama.chat_delay_s = 10.0
    llm = OllamaLLM(fake_ollama.url, MODEL, timeout_s=30)
    cancel = Cancellation()
    threading.Timer(0.3, cancel.cancel).start()
    with cancellable(cancel):  # bound by the caller, as the window's worker does
        got = explain_sql("SELECT name FROM customers", schema("postgres"), llm)
    assert (got.source, got.note) == ("structure", "stopped before the model answered")
    already = Cancellation()
    already.cancel()
    assert explain_sql("SELECT 1", schema("postgres"), llm, cancel=already).note == "stopped before the model answered"


def test_services_explain_uses_the_databases_schema_and_model(fake_ollama, tmp_path: Path) -> None:
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, total_amount REAL, placed_on DATE)")
    services = Services(Settings(ollama_host=fake_ollama.url, model=MODEL, llm_timeout_s=5))
    try:
        fake_ollama.enqueue_chat("It adds up every order's amount.")
        got = services.explain("SELECT SUM(total_amount) FROM orders", str(path))
        assert got == Explanation("It adds up every order's amount.", "model")
        assert "orders(id INTEGER, total_amount REAL, placed_on DATE)" in \
            fake_ollama.chat_requests()[-1]["messages"][1]["content"]
        fake_ollama.stop()
        down = services.explain("SELECT placed_on FROM orders ORDER BY placed_on DESC", str(path))
        assert down.source == "structure"
        assert "sorts the result by placed_on descending (latest first)" in down.text
    finally:
        services.close()
