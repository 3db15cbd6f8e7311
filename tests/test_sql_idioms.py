"""Idioms one database rejects as written are rewritten to the same meaning (core.sql.repair.idioms and the
date rewrites): each case fails as written on the real database and runs, with the expected rows, after ``guard``."""

from __future__ import annotations

import sqlite3

import psycopg
import pytest

from core.errors import SQLRejected
from core.sql import guard

POSTGRES = [
    ("SELECT TOP 1 WITH TIES status FROM orders ORDER BY status", None),
    ("SELECT name FROM customers WHERE name LIKE 'a%' COLLATE NOCASE ORDER BY name COLLATE NOCASE", None),
    ("SELECT COUNT(*) FROM customers WHERE city = 'PUNE' COLLATE NOCASE", None),
    ("SELECT ROUND(julianday('2024-01-02') - julianday('2024-01-01'))", [(1.0,)]),
    ("SELECT TO_DAYS('2024-03-02') - TO_DAYS('2024-03-01 10:00'), DAYOFWEEK('2024-03-03'), "
     "DAYOFMONTH('2024-03-05')::int, UNIX_TIMESTAMP('1970-01-02 00:00:00+00')::int", None),
    ("SELECT COUNT(DISTINCT x, y), nunique(x) FROM (VALUES (1, 23), (12, 3), (1, 23), (NULL, 2)) AS v(x, y)",
     [(2, 2)]),
]


@pytest.mark.parametrize(("sql", "rows"), POSTGRES)
def test_postgres_runs_the_rewritten_idiom(sample_db_uri: str, sql: str, rows) -> None:
    with psycopg.connect(sample_db_uri) as conn:
        conn.read_only = True
        with pytest.raises(psycopg.Error):
            conn.execute(sql)
    with psycopg.connect(sample_db_uri) as conn:
        conn.read_only = True
        got = conn.execute(guard(sql, "postgres").sql).fetchall()
    if rows is not None:
        assert got == rows


def test_with_ties_keeps_the_ties(sample_db_uri: str) -> None:
    with psycopg.connect(sample_db_uri) as conn:
        conn.read_only = True
        top = conn.execute("SELECT status, COUNT(*) FROM orders GROUP BY status ORDER BY status LIMIT 1").fetchone()
        got = conn.execute(guard("SELECT TOP 1 WITH TIES status FROM orders ORDER BY status", "postgres").sql)
        assert len(got.fetchall()) == top[1]


SQLITE = [
    ("SELECT name FROM customers WHERE city = N'Pune'", [("Asha",)]),
    ("SELECT CONCAT(name, ' (', city, ')') FROM customers WHERE customer_id = 1", [("Asha (Pune)",)]),
    ("SELECT CONCAT(name, email) FROM customers WHERE customer_id = 2", [("Ravi",)]),  # NULL as empty
    ("SELECT YEAR(joined), MONTH(joined), DAY(joined) FROM customers WHERE customer_id = 1", [(2024, 3, 9)]),
    ("SELECT COUNT(*) FROM customers WHERE joined <= CURDATE() AND joined <= GETDATE()", [(2,)]),
    # pandas' and spreadsheets' names of aggregates; MySQL's distinct pairs (a row with a NULL is not counted)
    ("SELECT nunique(city), mean(customer_id), AVERAGE(customer_id) FROM customers", [(2, 1.5, 1.5)]),
    ("SELECT COUNT(DISTINCT city, email) FROM customers", [(1,)]),
    ("SELECT COUNT(DISTINCT *), fillna(email, '-') FROM customers WHERE customer_id = 2", [(1, "-")]),
]


@pytest.mark.parametrize(("sql", "rows"), SQLITE)
def test_sqlite_runs_the_rewritten_idiom(sql: str, rows) -> None:
    with sqlite3.connect(":memory:") as conn:
        conn.executescript(
            "CREATE TABLE customers(customer_id INTEGER PRIMARY KEY, name TEXT, email TEXT, city TEXT, joined TEXT);"
            "INSERT INTO customers VALUES (1, 'Asha', 'a@x.org', 'Pune', '2024-03-09'), (2, 'Ravi', NULL, 'Delhi',"
            " '2025-01-01');"
        )
        if "CONCAT" not in sql or sqlite3.sqlite_version_info < (3, 44):
            with pytest.raises(sqlite3.Error):
                conn.execute(sql)
        assert conn.execute(guard(sql, "sqlite").sql).fetchall() == rows


# --- a borrowed function inside an otherwise native query is translated alone ------------------------------------

def test_a_borrowed_call_is_translated_alone_and_the_native_date_modifiers_stay() -> None:
    from core.sql import guard

    sql = ("SELECT DATE_FORMAT(created_at, '%Y-%m') AS month, COUNT(*) FROM t "
           "WHERE created_at >= date('now', 'start of month', '-2 months') GROUP BY month")
    out = guard(sql, "sqlite").sql
    assert "STRFTIME('%Y-%m', created_at)" in out
    assert "DATE('now', 'start of month', '-2 months')" in out  # MySQL's DATE() would have dropped both


def test_to_char_on_sqlite_keeps_its_format() -> None:
    from core.sql import guard

    out = guard("SELECT TO_CHAR(start_dt, 'YYYY-MM') AS month FROM t", "sqlite").sql
    assert out == "SELECT STRFTIME('%Y-%m', start_dt) AS month FROM t"  # not CAST(start_dt AS TEXT)


def test_a_date_part_of_a_difference_is_refused_on_sqlite_with_the_way_to_write_it() -> None:
    from core.errors import SQLRejected
    from core.sql import guard

    with pytest.raises(SQLRejected, match="julianday"):
        guard("SELECT AVG(DATE_PART('day', paid_at - sold_at)) FROM sales", "sqlite")
    assert "JULIANDAY" in guard("SELECT AVG(julianday(paid_at) - julianday(sold_at)) FROM sales", "sqlite").sql.upper()


def test_mysql_day_functions_are_written_by_their_definitions_for_sqlite_and_postgres() -> None:
    import sqlite3

    sql = ("SELECT TO_DAYS('2024-03-02') - TO_DAYS('2024-03-01 10:00') AS days, DAYOFWEEK('2024-03-03') AS sunday, "
           "DAYOFMONTH('2024-03-05') AS fifth, UNIX_TIMESTAMP('1970-01-02') AS seconds")
    assert sqlite3.connect(":memory:").execute(guard(sql, "sqlite").sql).fetchall() == [(1, 1, 5, 86400)]
    written = guard(sql, "postgres").sql
    assert "EXTRACT(DOW FROM" in written and "EXTRACT(EPOCH FROM" in written and "TO_DAYS" not in written


@pytest.mark.parametrize("dialect", ["sqlite", "postgres"])
def test_tsql_convert_with_the_type_first_is_a_cast_of_the_value(dialect) -> None:
    written = guard("SELECT CONVERT(FLOAT, hits) / visits AS rate FROM t", dialect).sql
    assert guard("SELECT CONVERT(FLOAT, t.hits) FROM t", dialect).sql.startswith("SELECT CAST(t.hits AS ")
    assert written.startswith("SELECT CAST(hits AS ") and "FLOAT AS" not in written
    assert sqlite3.connect(":memory:").execute(
        guard("SELECT CONVERT(FLOAT, x) / 2 FROM (SELECT 3 AS x)", "sqlite").sql).fetchall() == [(1.5,)]
    assert guard("SELECT CONVERT(hits, CHAR) FROM t", dialect).sql == (  # MySQL's order is left as it is
        "SELECT CAST(hits AS TEXT) FROM t" if dialect == "sqlite" else "SELECT CAST(hits AS CHAR) FROM t")


def test_tsql_top_is_a_limit_and_sqlite_s_own_dates_beside_it_stay_as_written() -> None:
    sql = ("SELECT TOP 2 name, SUM(amount) AS total FROM (SELECT 'a' AS name, 5 AS amount, '2999-01-01' AS d "
           "UNION ALL SELECT 'b', 7, '2999-01-01' UNION ALL SELECT 'c', 1, '2999-01-01') "
           "WHERE d >= DATE('now', '-3 months') GROUP BY name ORDER BY total DESC -- the two largest")
    written = guard(sql, "sqlite").sql
    assert "DATE('now', '-3 months')" in written and written.endswith("LIMIT 2")
    assert sqlite3.connect(":memory:").execute(written).fetchall() == [("b", 7), ("a", 5)]
    from core.sql._foreign_calls import top_as_limit
    for kept in ("SELECT TOP 5 PERCENT a FROM t", "WITH x AS (SELECT 1 AS a) SELECT TOP 1 a FROM x",
                 "SELECT a FROM (SELECT TOP 3 b FROM t) AS x"):  # not one reading by this rewrite: read as T-SQL
        assert top_as_limit(kept, "sqlite") == kept


@pytest.mark.parametrize("dialect", ["sqlite", "postgres"])
def test_tsql_convert_of_a_call_is_a_cast_of_the_call(dialect) -> None:
    written = guard("SELECT SUM(x) / CONVERT(FLOAT, COUNT(*)) AS share FROM t", dialect).sql
    assert "CAST(COUNT(*) AS " in written and "FLOAT AS" not in written


def test_today_minus_a_whole_number_is_days_ago_on_sqlite_not_a_year_minus_a_number() -> None:
    conn = sqlite3.connect(":memory:")
    for written in ("CURRENT_DATE - 30", "GETDATE() - 30", "SYSDATE - 30"):
        sql = guard(f"SELECT {written} AS d", "sqlite").sql
        assert conn.execute(sql).fetchone() == conn.execute(
            "SELECT " + ("DATE" if written.startswith("CURRENT_DATE") else "DATETIME") + "('now', '-30 day')").fetchone()
    assert guard("SELECT SYSDATE AS now_at", "postgres").sql == "SELECT CURRENT_TIMESTAMP AS now_at"


def test_oracle_trunc_of_today_is_the_day_on_sqlite() -> None:
    conn = sqlite3.connect(":memory:")
    for written, same in (("TRUNC(SYSDATE) - 30", "DATE('now', '-30 day')"), ("TRUNC(SYSDATE)", "DATE('now')")):
        assert conn.execute(guard(f"SELECT {written}", "sqlite").sql).fetchone() == conn.execute(
            f"SELECT {same}").fetchone()


def test_a_date_minus_a_date_is_the_days_between_them_on_sqlite(tmp_path) -> None:
    import datetime as dt

    from core.databases import open_database
    from core.sql import validate_sql

    path = tmp_path / "sales.sqlite"
    day = [(dt.date.today() - dt.timedelta(days=n)).isoformat() for n in (5, 40, 200)]
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE sale(id INTEGER, amount REAL, sold_on TEXT, shipped DATE, born_year TEXT);"
                           f"INSERT INTO sale VALUES (1, 10, '{day[0]}', '{day[0]}', 1990), (2, 20, '{day[1]}', "
                           f"'{day[0]}', 1990), (3, 30, '{day[2]}', '{day[1]}', 1990);")
    db = open_database(str(path))
    try:
        schema = db.schema()
        # SQLite subtracts the texts as numbers (the years): every sale was "within 30 days"
        recent = validate_sql("SELECT SUM(amount) FROM sale WHERE CURRENT_DATE - sold_on <= 30", schema, "sqlite")
        assert list(db.execute(recent.sql).rows) == [(10.0,)] and "days between two dates" in recent.fixes[0]
        waited = validate_sql("SELECT id, shipped - sold_on AS waited FROM sale ORDER BY id", schema, "sqlite")
        assert list(db.execute(waited.sql).rows) == [(1, 0.0), (2, 35.0), (3, 160.0)]
        # a year, kept as text or as a number, is no date: subtracted from today it is an age, left as written
        assert validate_sql("SELECT CURRENT_DATE - born_year FROM sale", schema, "sqlite").fixes == ()
    finally:
        db.close()


@pytest.mark.parametrize("sql", ["SELECT strftime('%Y-%u', d) FROM t", "SELECT strftime('%w', d) FROM t",
                                 "SELECT strftime('%W', d) FROM t"])
def test_a_strftime_day_or_week_code_postgres_would_number_otherwise_is_refused(sql: str) -> None:
    # %u is Monday = 1, TO_CHAR's 'D' Sunday = 1; %w and %W would be printed as they are
    with pytest.raises(SQLRejected, match="EXTRACT"):
        guard(sql, "postgres")


def test_postgres_own_day_of_week_format_is_its_own() -> None:
    assert guard("SELECT TO_CHAR(d, 'D') FROM t", "postgres").sql == "SELECT TO_CHAR(d, 'D') FROM t"


@pytest.mark.parametrize(("written", "same"), [
    ("TRUNC(DATE('2024-05-17'), 'MM')", "DATE('2024-05-17', 'start of month')"),
    ("TRUNC(DATE('2024-05-17'), 'YYYY')", "DATE('2024-05-17', 'start of year')"),
])
def test_oracle_trunc_on_sqlite(written: str, same: str) -> None:
    conn = sqlite3.connect(":memory:")
    assert conn.execute(guard(f"SELECT {written}", "sqlite").sql).fetchone() == conn.execute(f"SELECT {same}").fetchone()


def test_oracle_trunc_of_a_date_on_postgres_is_date_trunc() -> None:
    assert guard("SELECT TRUNC(d, 'MM') FROM t", "postgres").sql == "SELECT DATE_TRUNC('MONTH', d) FROM t"


@pytest.mark.parametrize("written", ["TRUNC(0.29, 2)", "TRUNC(1234, -2)"])
def test_a_number_cut_to_decimals_is_refused_on_sqlite(written: str) -> None:
    # sqlglot drops the decimals for SQLite, and a CAST cuts 0.29 * 100 to 28 in floating point
    with pytest.raises(SQLRejected, match="takes no number of decimals"):
        guard(f"SELECT {written}", "sqlite")


@pytest.mark.parametrize(("sql", "dialect", "want"), [
    ("SELECT CAST(COUNT(*) AS FLOAT64) / 2 AS r FROM t", "postgres", "CAST(COUNT(*) AS DOUBLE PRECISION)"),  # a type
    ("SELECT DATE_TRUNC(sold_on, MONTH) AS m FROM t", "postgres", "DATE_TRUNC('MONTH', sold_on)"),  # BigQuery's order
    ("SELECT DATE_TRUNC(sold_on, MONTH) AS m FROM t", "sqlite", "DATE(sold_on, 'start of month')"),
    ("SELECT SAFE_DIVIDE(a, b), COUNTIF(a > 1) FROM t", "sqlite", "COUNT(CASE WHEN a > 1 THEN 1 END)"),  # 0, not NULL, over no row
])
def test_bigquery_types_and_argument_orders_are_read_as_bigquery(sql: str, dialect: str, want: str) -> None:
    assert want in guard(sql, dialect).sql


def test_bigquery_project_and_dataset_before_a_table_are_dropped() -> None:
    from core.schema import Column, Schema, Table
    from core.sql import validate_sql

    schema = Schema("postgres", (Table("orders", (Column("id", "integer"),), schema="shop"),))
    for sql in ('SELECT id FROM "my-project.sales.orders"', "SELECT id FROM proj.shop.orders"):
        fixed = validate_sql(guard(sql, "postgres").sql, schema, "postgres")
        assert "FROM shop.orders" in fixed.sql and any("project" in f for f in fixed.fixes)
