"""PostgreSQL date idioms written for SQLite are rewritten to SQLite's date functions (core.sql.repair._dates_sqlite).

Each idiom is a syntax error or an unknown function in SQLite as written, so the rewrite changes no query that
runs; these tests run the rewritten SQL on a real SQLite database and check the values.
"""

from __future__ import annotations

import sqlite3

import pytest

from core.sql import guard


@pytest.fixture()
def conn():
    with sqlite3.connect(":memory:") as c:
        c.execute("CREATE TABLE orders(order_date TEXT, amount REAL)")
        c.execute("INSERT INTO orders VALUES ('2026-11-20 10:30:00', 5)")  # a Friday, in the fourth quarter
        yield c


@pytest.mark.parametrize(
    ("sql", "row"),
    [
        ("SELECT EXTRACT(YEAR FROM order_date), EXTRACT(MONTH FROM order_date), EXTRACT(DOW FROM order_date) "
         "FROM orders", (2026, 11, 5)),
        ("SELECT EXTRACT(QUARTER FROM order_date), DATE_PART('day', order_date) FROM orders", (4, 20)),
        ("SELECT DATE_TRUNC('month', order_date), DATE_TRUNC('year', order_date), DATE_TRUNC('week', order_date) "
         "FROM orders", ("2026-11-01", "2026-01-01", "2026-11-16")),
        ("SELECT DATE_TRUNC('hour', order_date) FROM orders", ("2026-11-20 10:00:00",)),
        ("SELECT order_date + INTERVAL '2 hours', order_date - INTERVAL '1 week' FROM orders",
         ("2026-11-20 12:30:00", "2026-11-13")),
        ("SELECT COUNT(*) FROM orders WHERE order_date >= DATE '2026-12-01' - INTERVAL 30 DAY", (1,)),
    ],
)
def test_postgres_date_idioms_run_on_sqlite(conn, sql: str, row: tuple) -> None:
    with pytest.raises(sqlite3.Error):
        conn.execute(sql)  # as written, SQLite rejects it
    assert conn.execute(guard(sql, "sqlite").sql).fetchone() == row


def test_relative_to_now(conn) -> None:
    for sql in ("SELECT COUNT(*) FROM orders WHERE order_date >= NOW() - INTERVAL '30 days'",
                "SELECT COUNT(*) FROM orders WHERE order_date >= CURRENT_DATE - INTERVAL '3 years'"):
        out = guard(sql, "sqlite").sql
        assert "'now'" in out and "INTERVAL" not in out
        conn.execute(out).fetchone()


def test_what_has_no_exact_counterpart_is_left_for_the_database() -> None:
    sql = "SELECT * FROM orders WHERE order_date < CURRENT_TIMESTAMP - INTERVAL '1 day 2 hours'"
    assert "INTERVAL" in guard(sql, "sqlite").sql
    assert guard("SELECT EXTRACT(YEAR FROM order_date) FROM orders", "postgres").sql.startswith("SELECT EXTRACT")


def test_fresh25_date_arithmetic_written_for_another_database_is_read_on_sqlite(tmp_path) -> None:
    """STRFTIME's text compared with numbers, two text dates subtracted, a day plus a number of days."""
    import sqlite3

    from core.databases import open_database
    from tests.scripted_asking import ask
    path = tmp_path / "p.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE pay(id INTEGER PRIMARY KEY, paid_on TEXT, hire_date TEXT, end_date TEXT);"
                           "INSERT INTO pay VALUES (1,'2023-04-01','2020-01-01','2020-03-01'),"
                           "(2,'2023-04-02','2021-01-01','2021-01-11'),(3,'2023-04-03','2021-01-01','2022-01-01');")
    db = open_database(str(path))
    try:
        weekend = ask(db, "How many payments were made on weekends?",
                      "SELECT COUNT(*) FROM pay WHERE STRFTIME('%w', paid_on) IN (0, 6)")
        assert [tuple(r) for r in weekend.rows] == [(2,)]  # Saturday 1 April and Sunday 2 April 2023
        shortest = ask(db, "Who was employed for the shortest time?",
                       "SELECT id, end_date - hire_date AS days FROM pay ORDER BY days LIMIT 1")
        assert [tuple(r) for r in shortest.rows] == [(2, 10.0)]
        within = ask(db, "Payments made within a year of hiring",
                     "SELECT id FROM pay WHERE paid_on <= DATE(hire_date) + 365 ORDER BY id")
        assert [tuple(r) for r in within.rows] == []
        assert "DATE(hire_date, '+365 day')" in within.sql
    finally:
        db.close()


def test_epoch_seconds_and_a_year_idiom_stay_as_written() -> None:
    """Attack 17: ``end_ts - start_ts`` may be seconds; ``DATE(x) + 0 < 2027`` is SQLite's year."""
    from core.schema import Column, Schema, Table
    from core.sql import guard, validate_sql
    schema = Schema(dialect="sqlite", tables=(Table("trips", (Column("start_ts", "text"), Column("end_ts", "text"))),))
    assert "JULIANDAY" not in validate_sql("SELECT end_ts - start_ts FROM trips", schema, "sqlite").sql
    assert guard("SELECT COUNT(*) FROM o WHERE DATE(d) + 0 < 2027", "sqlite").sql == \
        "SELECT COUNT(*) FROM o WHERE DATE(d) + 0 < 2027"
    assert guard("SELECT COUNT(*) FROM o WHERE DATE(d) + 1 < 2027", "sqlite").sql == \
        "SELECT COUNT(*) FROM o WHERE DATE(d) + 1 < 2027"
    counted = guard("SELECT id FROM o WHERE paid <= DATE(d) + 365", "sqlite")
    assert "DATE(d, '+365 day')" in counted.sql and "read as days" in counted.mended
