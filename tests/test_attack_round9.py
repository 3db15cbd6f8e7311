"""Attack round 9 on the readings of held-out fresh19/fresh20 (findings in the closing note): each case broke a
right answer, took a wrong reading, hung, or refused an answer it could give."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.databases import open_database
from core.sql import extract_queries
from core.sql._guard import guard
from tests.scripted_asking import ask


@pytest.fixture()
def shop(tmp_path: Path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE customer(id INTEGER, name TEXT, city TEXT);"
            "INSERT INTO customer VALUES (1,'Ann','Pune'),(2,'Bo','Pune'),(3,'Cy','Goa'),(4,'Di','Agra');"
            "CREATE TABLE orders(oid INTEGER, month TEXT, region TEXT, amount REAL);"
            "INSERT INTO orders VALUES (1,'2023-01','N',5),(2,'2023-02','N',50),(3,'2023-03','S',1),"
            "(4,'2023-04','S',70),(5,'2023-04','W',3),(6,'2023-05','W',2);"
            "CREATE TABLE \"کارمند\"(\"نام‌خانوادگی\" TEXT, \"شهر\" TEXT);"
            "INSERT INTO \"کارمند\" VALUES ('احمدی', 'تهران');"
        )
    db = open_database(str(path))
    yield db
    db.close()


def test_a_joiner_inside_a_persian_name_is_kept(shop) -> None:
    answer = ask(shop, "Last names in Tehran", "SELECT \"نام‌خانوادگی\" FROM \"کارمند\" WHERE \"شهر\" = 'تهران'")
    assert [tuple(r) for r in answer.rows] == [("احمدی",)]


def test_an_agents_last_query_answers_not_its_look_at_the_data() -> None:
    reply = ("Thought: look first.\nAction: sql_db_query\nAction Input: SELECT DISTINCT city FROM customer\n"
             "Observation: [('Pune',), ('Goa',)]\nThought: now count.\nAction: sql_db_query\n"
             "Action Input: SELECT COUNT(*) FROM customer WHERE city = 'Pune'\nObservation: [(2,)]\n"
             "Final Answer: There are 2.")
    assert extract_queries(reply, "sqlite")[0] == "SELECT COUNT(*) FROM customer WHERE city = 'Pune'"


@pytest.mark.parametrize(("question", "sql", "months"), [
    ("Show the revenue for the 3 earliest months",
     "SELECT month, SUM(amount) AS revenue FROM orders GROUP BY month ORDER BY month, revenue DESC LIMIT 3",
     ["2023-01", "2023-02", "2023-03"]),
    ("Revenue for the 2 most recent months",
     "SELECT month, SUM(amount) AS revenue FROM orders GROUP BY month ORDER BY month DESC, revenue DESC LIMIT 2",
     ["2023-05", "2023-04"]),
])
def test_a_time_series_listed_by_its_dates_keeps_its_order(shop, question: str, sql: str, months: list) -> None:
    assert [r[0] for r in ask(shop, question, sql).rows] == months


def test_a_share_the_query_compares_is_kept(shop) -> None:
    sql = ("SELECT region, CASE WHEN 1.0 * COUNT(*) / SUM(COUNT(*)) OVER () > 0.4 THEN 'major' ELSE 'minor' END AS "
           "size FROM orders GROUP BY region ORDER BY region")
    rows = [tuple(r) for r in ask(shop, "Which regions are major markets?", sql).rows]
    assert rows == [("N", "minor"), ("S", "minor"), ("W", "minor")]


@pytest.mark.parametrize(("question", "alias"), [
    ("What per cent of orders comes from each region?", "n"),
    ("How are orders spread across regions?", "pct"),
])
def test_a_share_asked_in_other_words_or_named_so_is_kept(shop, question: str, alias: str) -> None:
    sql = f"SELECT region, 1.0 * COUNT(*) / SUM(COUNT(*)) OVER () AS {alias} FROM orders GROUP BY region ORDER BY region"
    assert [r[1] for r in ask(shop, question, sql).rows] == pytest.approx([1 / 3, 1 / 3, 1 / 3])


def test_a_running_total_by_the_end_of_each_month_is_kept(shop) -> None:
    sql = ("SELECT month, SUM(COUNT(*)) OVER (ORDER BY month) AS orders_to_date FROM orders GROUP BY month "
           "ORDER BY month")
    rows = ask(shop, "How many orders had we received by the end of each month?", sql).rows
    assert [r[1] for r in rows] == [1, 2, 3, 5, 6]


@pytest.mark.parametrize("reply", [
    "```sql\nSELECT name FROM customer WHERE id IN [1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009, 1010\n```",
    "```sql\nSELECT name FROM customer WHERE id IN [20230101, 20230102, 20230103, 20230104)\n```",
])
def test_an_unclosed_python_list_is_read_without_backtracking(reply: str) -> None:
    # the list's regex was exponential in its length (42 s for 8 ids, minutes for 9): this returns at once now
    assert "IN [" in extract_queries(reply, "sqlite")[0]


def test_a_flag_column_is_a_clickhouse_condition() -> None:
    assert guard("SELECT countIf(paid) FROM sale", "sqlite").sql == "SELECT COUNT(CASE WHEN paid THEN 1 END) FROM sale"


def test_a_box_drawn_with_box_characters_keeps_every_line() -> None:
    reply = ("```\n┌──────────────────────────────┐\n│ SELECT name FROM customer    │\n│ WHERE city = 'Pune'          │\n"
             "└──────────────────────────────┘\n```")
    assert extract_queries(reply, "sqlite")[0] == "SELECT name FROM customer\nWHERE city = 'Pune'"


def test_a_powershell_variable_is_not_read_as_a_value() -> None:
    reply = "```powershell\n$city = 'Pune'\nInvoke-Sqlcmd -Query \"SELECT name FROM customer WHERE city = '$city'\"\n```"
    try:
        found = extract_queries(reply, "sqlite")
    except Exception:  # noqa: BLE001 - no query to run is a right outcome
        found = []
    assert all("'$city'" not in q for q in found[:1])


def test_names_between_are_no_range_and_a_span_plus_one_is_no_smoothing(shop) -> None:
    answer = ask(shop, "Compare the revenue between N and W", "SELECT region, SUM(amount) FROM orders "
                 "WHERE region IN ('N', 'W') GROUP BY region")
    assert not any(a.label == "The whole range" for a in answer.alternatives)
    span = ask(shop, "Average revenue per month over the whole period", "SELECT SUM(amount) / (MAX(oid) - MIN(oid) + 1) "
               "FROM orders")
    assert not any(a.label == "The ratio itself" for a in span.alternatives)
    percent = ask(shop, "Orders with a 100% complete amount", "SELECT oid FROM orders WHERE amount = 70")
    assert not any("divides nothing" in n for n in percent.notes)


def test_a_label_on_its_own_line_is_never_an_alias() -> None:
    reply = "Query:\nSELECT name FROM customer\nObservation: Error: no such table"
    assert extract_queries(reply, "sqlite")[0] == "SELECT name FROM customer"
