"""A column that holds no dates compared with a date (``c.make BETWEEN date('now', '-30 days') AND date('now')``):
read on the date column the query means — the other end of its range, else the one date column of its tables —
as a guess the model is shown first; refused, naming the date columns, where no one column is meant
(``repair.filters._kinds``). What holds no dates: a yes/no column, text whose known values are none of them dates
or parts of one, and on PostgreSQL (which rejects the comparison anyway) a column declared a number."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.databases import open_database
from core.errors import SQLValidationError
from core.schema import Column, Schema, Table
from core.sql import validate_sql
from tests.scripted_asking import ask


@pytest.fixture()
def dealer(tmp_path: Path):
    path = tmp_path / "dealer.sqlite"
    with sqlite3.connect(path) as conn:  # no declared keys
        conn.executescript(
            "CREATE TABLE cars(id INTEGER, make TEXT, model TEXT, stock_code TEXT);"
            "CREATE TABLE sales(id INTEGER, car_id INTEGER, sale_date DATE, price REAL, batch INTEGER);"
            "CREATE TABLE visits(id INTEGER, car_id INTEGER, seen_on TEXT, seen_by TEXT);"
            "INSERT INTO cars VALUES (1,'Toyota','Camry','2023-07'),(2,'Ford','F150','2024-01'),"
            "(3,'Toyota','Corolla','2022-11');"
            "INSERT INTO sales VALUES (1,1,date('now','-3 days'),100,20230105),"
            "(2,2,date('now','-60 days'),50,20230105),"
            "(3,3,date('now','-10 days'),70,20240101),(4,1,date('now','-90 days'),90,20240101);"
            "INSERT INTO visits VALUES (1,1,'2024-05-01','Ann'),(2,2,'2024-05-03','Raj');"
        )
    db = open_database(str(path))
    yield db
    db.close()


def test_the_other_end_of_a_range_says_which_date_column_was_meant(dealer) -> None:
    schema = dealer.schema()
    sql = ("SELECT COUNT(*) AS n FROM sales s JOIN cars c ON s.car_id = c.id WHERE c.make >= date('now', '-30 days') "
           "AND s.sale_date < date('now', '+1 day')")
    checked = validate_sql(sql, schema, "sqlite")
    assert "s.sale_date >= DATE('now', '-30 days')" in checked.sql
    assert any("c.make holds no dates; read on s.sale_date (a guess" in f for f in checked.fixes)
    answer = ask(dealer, "How many cars were sold in the last 30 days?", sql)
    assert answer.ok and list(answer.rows) == [(2,)]  # SQLite ran it as written: 'Toyota' >= '2024-…', all 4 rows


def test_the_one_date_column_of_the_query_s_tables_is_read(dealer) -> None:
    sql = "SELECT c.model FROM cars c JOIN visits v ON v.car_id = c.id WHERE v.seen_by >= '2024-05-02'"
    checked = validate_sql(sql, dealer.schema(), "sqlite")
    assert "v.seen_on >= '2024-05-02'" in checked.sql  # seen_by holds names; visits' one date column is seen_on


def test_no_one_date_column_is_refused_with_the_ones_there_are(dealer) -> None:
    sql = ("SELECT COUNT(*) FROM sales s JOIN cars c ON s.car_id = c.id JOIN visits v ON v.car_id = c.id "
           "WHERE c.make BETWEEN date('now', '-30 days') AND date('now')")
    with pytest.raises(SQLValidationError) as raised:
        validate_sql(sql, dealer.schema(), "sqlite")
    assert "c.make, which holds no dates" in str(raised.value)
    assert "s.sale_date" in str(raised.value) and "v.seen_on" in str(raised.value)
    with pytest.raises(SQLValidationError, match="none of its tables has a date column"):
        validate_sql("SELECT COUNT(*) FROM cars WHERE model >= '2023-01-01'", dealer.schema(), "sqlite")


@pytest.mark.parametrize("sql", [
    "SELECT COUNT(*) FROM sales WHERE sale_date >= date('now', '-30 days')",  # a date column
    "SELECT COUNT(*) FROM visits WHERE seen_on >= '2024-05-02'",  # text written as dates
    "SELECT COUNT(*) FROM cars WHERE stock_code >= '2023-01-01'",  # text with values like dates ('2023-07')
    "SELECT COUNT(*) FROM sales WHERE batch >= '2023-01-01'",  # a number that may be a date (20230105)
    "SELECT COUNT(*) FROM sales WHERE price >= date('now')",  # a number on SQLite, values unknown
    "SELECT COUNT(*) FROM cars WHERE make = 'Toyota'",  # no date at all
])
def test_what_may_hold_dates_is_left_as_written(dealer, sql) -> None:
    checked = validate_sql(sql, dealer.schema(), "sqlite")
    assert not checked.fixes


def _pg_schema() -> Schema:
    return Schema("postgres", (
        Table("merchants", (Column("mid", "integer"), Column("name", "text"), Column("status", "text"),
                            Column("created_at", "timestamp without time zone")), schema="shop"),
        Table("payments", (Column("id", "integer"), Column("merchant_id", "integer"),
                           Column("receiver_type", "integer"), Column("paid", "boolean"),
                           Column("created_at", "timestamp without time zone")), schema="shop"),
    ))


def test_on_postgres_the_declared_type_decides_against_a_date_that_is_not_quoted_text() -> None:
    schema = _pg_schema()
    sql = ("SELECT COUNT(*) FROM shop.payments p WHERE p.receiver_type = 1 AND p.receiver_type >= CURRENT_DATE - "
           "INTERVAL '150 days' AND p.created_at < CURRENT_DATE")
    checked = validate_sql(sql, schema, "postgres")
    assert ("p.receiver_type = 1 AND p.created_at >= CURRENT_DATE - INTERVAL '150 DAYS' AND p.created_at <"
            in checked.sql)
    # a text column of unknown values against quoted text is a text comparison PostgreSQL runs: left
    kept = validate_sql("SELECT COUNT(*) FROM shop.merchants m WHERE m.name >= '2023-01-01'", schema, "postgres")
    assert not kept.fixes
    with pytest.raises(SQLValidationError, match="m.created_at, p.created_at|p.created_at, m.created_at"):
        validate_sql("SELECT COUNT(*) FROM shop.merchants m JOIN shop.payments p ON p.merchant_id = m.mid "
                     "WHERE p.paid >= NOW() - INTERVAL '7 days'", schema, "postgres")


def test_a_date_copied_from_the_condition_before_is_refused_not_moved(dealer) -> None:
    sql = ("SELECT c.model FROM sales s JOIN cars c ON s.car_id = c.id WHERE CAST(s.sale_date AS DATE) = '2024-05-01' "
           "AND c.make = '2024-05-01'")
    with pytest.raises(SQLValidationError) as raised:  # read on sale_date, it would only repeat the first condition
        validate_sql(sql, dealer.schema(), "sqlite")
    assert "may be a copy" in str(raised.value) and "Toyota, Ford" in str(raised.value)


def test_a_number_column_compared_with_a_word_is_read_on_the_text_column_that_holds_it_on_postgres(tmp_path) -> None:
    schema = Schema("postgres", (
        Table("tx", (Column("id", "integer"), Column("sender_type", "integer"),
                     Column("status", "text", value_hints=("success", "failed")),
                     Column("kind", "text", value_hints=("p2p", "shop"))), schema="w"),
        Table("log", (Column("id", "integer"), Column("tx_id", "integer"),
                      Column("level", "text", value_hints=("critical", "info"))), schema="w"),
    ))
    sql = "SELECT COUNT(*) FROM w.tx WHERE sender_type = 0 AND sender_type = 'Success'"
    checked = validate_sql(sql, schema, "postgres")
    assert "sender_type = 0 AND status = 'success'" in checked.sql  # as the data spells it
    assert any("sender_type holds numbers, not words; read on status" in f and "a guess" in f for f in checked.fixes)
    for kept in ("SELECT COUNT(*) FROM w.tx WHERE sender_type = '0'",  # a number in quotes
                 "SELECT COUNT(*) FROM w.tx WHERE sender_type = 'nowhere'",  # no column holds the word
                 "SELECT COUNT(*) FROM w.tx t JOIN w.log l ON l.tx_id = t.id WHERE t.sender_type = 'critical'"):  # held
        assert not validate_sql(kept, schema, "postgres").fixes  # by another table only: left to the database


def test_on_sqlite_a_number_column_compared_with_a_word_is_left(tmp_path) -> None:
    path = tmp_path / "tickets.sqlite"
    with sqlite3.connect(path) as conn:  # SQLite keeps words in an INTEGER column
        conn.executescript("CREATE TABLE tickets(id INTEGER, severity INTEGER, category TEXT);"
                           "INSERT INTO tickets VALUES (1,1,'critical'),(2,'critical','ui'),(3,'critical','db');")
    db = open_database(str(path))
    try:
        answer = ask(db, "How many critical-severity tickets?",
                     "SELECT COUNT(*) FROM tickets WHERE severity = 'critical'")
        assert answer.ok and list(answer.rows) == [(2,)]
    finally:
        db.close()


@pytest.mark.parametrize("sql", [
    "SELECT SUM(amount) FROM budget WHERE fy = strftime('%Y', 'now')",  # a year as text against a year
    "SELECT SUM(amount) FROM budget WHERE month_label = strftime('%m/%Y', 'now')",
    "SELECT SUM(amount) FROM budget WHERE fy >= '2023-01-01'",  # years: the model may mean this column
    "SELECT SUM(amount) FROM budget WHERE happened >= '2023-03-01'",  # '05-Mar-2023'
])
def test_years_months_and_dates_in_other_formats_are_never_moved(tmp_path, sql) -> None:
    """Attack round 22: a year stored as text compared with ``strftime('%Y', 'now')`` was read on the table's date
    column (a wrong total shown); '05-Mar-2023' was taken for no date."""
    path = tmp_path / "budget.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE budget(fy TEXT, month_label TEXT, happened TEXT, sold_on TEXT, amount REAL);"
                           "INSERT INTO budget VALUES ('2025','03/2025','05-Mar-2025','2025-03-05',100),"
                           "('2024','04/2024','06-Apr-2024','2024-04-06',80);")
    db = open_database(str(path))
    try:
        assert not validate_sql(sql, db.schema(), "sqlite").fixes
    finally:
        db.close()
