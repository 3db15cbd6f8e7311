"""Queries no database runs as written, each with one reading, read so (``repair._tables`` shadowing CTEs,
``grouping._order`` positions and DISTINCT, ``joins._sequence``, ``_aliases.output_names_in_expressions``,
``_dates.bare_intervals``, ``_dates_sqlite`` strftime's order, ``_sqlite_modifiers`` units): a CTE named for the table
it reads (SQLite: a circular reference), GROUP BY / ORDER BY positions counted from 0, SELECT DISTINCT sorted by a
column it does not show (PostgreSQL), inner joins whose ON reads a table joined later, an output name inside an
ORDER BY expression (PostgreSQL), INTERVAL '30' with no unit (PostgreSQL: 30 seconds), STRFTIME(d, '%Y') in
MySQL's order and '-2 weeks' (SQLite: NULL on every row)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.databases import open_database
from core.errors import SQLValidationError
from core.schema import Column, Schema, Table
from core.sql import validate_sql
from core.sql.repair import GUESSED
from tests.scripted_asking import ask

CARS = (Table("cars", (Column("id", "integer"), Column("make", "text"), Column("price", "double precision"))),
        Table("sales", (Column("id", "integer"), Column("car_id", "integer"), Column("rep_id", "integer"),
                        Column("amount", "numeric"), Column("ts", "timestamp"))),
        Table("reps", (Column("id", "integer"), Column("name", "text"))))
PG = Schema(dialect="postgres", tables=CARS)
LITE = Schema(dialect="sqlite", tables=CARS)


@pytest.fixture()
def shop(tmp_path: Path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE cars(id INTEGER PRIMARY KEY, make TEXT, price REAL);"
            "CREATE TABLE sales(id INTEGER PRIMARY KEY, car_id INTEGER, amount REAL, ts TEXT);"
            "INSERT INTO cars VALUES (1,'Toyota',10),(2,'Honda',20),(3,'Toyota',30);"
            "INSERT INTO sales VALUES (1,1,5,'2023-01-05 10:00:00'),(2,2,7,'2023-02-06 11:00:00'),"
            "(3,1,9,'2023-03-07 12:00:00');"
            "INSERT INTO sales VALUES (4,3,2,datetime('now','-3 days'));")
    db = open_database(str(path))
    yield db
    db.close()


def test_a_cte_named_for_the_table_it_reads_is_renamed_as_postgresql_reads_it(shop) -> None:
    answer = ask(shop, "How many sales above 5, and their total?",
                 "WITH sales AS (SELECT * FROM sales WHERE amount > 5) SELECT COUNT(*), SUM(sales.amount) FROM sales")
    assert answer.ok and answer.rows == ((2, 16.0),)
    later = validate_sql("WITH cars AS (SELECT * FROM cars WHERE price > 1), big AS (SELECT * FROM sales s JOIN cars c "
                         "ON c.id = s.car_id) SELECT * FROM big JOIN cars ON cars.id = big.car_id", LITE, "sqlite")
    assert "FROM sales AS s JOIN cars_1 AS c" in later.sql and "JOIN cars_1 AS cars ON" in later.sql
    assert validate_sql("WITH big AS (SELECT * FROM sales) SELECT * FROM big", LITE, "sqlite").fixes == ()


def test_positions_counted_from_zero_are_read_from_one(shop) -> None:
    answer = ask(shop, "How many cars does each make have?", "SELECT make, COUNT(*) FROM cars GROUP BY 0 ORDER BY 1 DESC")
    assert answer.ok and answer.rows == (("Toyota", 2), ("Honda", 1))
    only = validate_sql("SELECT make, price FROM cars GROUP BY 0, 1 ORDER BY 2", LITE, "sqlite")
    assert only.sql.endswith("GROUP BY 1, 2 ORDER BY 2")  # ORDER BY 3 would fall outside: that clause counts from 1
    assert validate_sql("SELECT make FROM cars ORDER BY 1", LITE, "sqlite").fixes == ()


def test_distinct_sorted_by_a_column_it_does_not_show_ranks_each_value_by_its_extreme() -> None:
    fixed = validate_sql("SELECT DISTINCT make FROM cars ORDER BY price DESC LIMIT 1", PG, "postgres")
    assert fixed.sql == "SELECT make FROM cars GROUP BY make ORDER BY MAX(price) DESC LIMIT 1"
    assert any(f.endswith(GUESSED) for f in fixed.fixes)
    assert validate_sql("SELECT DISTINCT make FROM cars ORDER BY make", PG, "postgres").fixes == ()
    assert "DISTINCT" in validate_sql("SELECT DISTINCT make FROM cars ORDER BY price", LITE, "sqlite").sql  # runs


def test_inner_joins_are_put_in_the_order_their_conditions_read() -> None:
    fixed = validate_sql("SELECT r.name, c.make FROM cars c JOIN reps r ON r.id = s.rep_id JOIN sales s ON c.id = "
                         "s.car_id", PG, "postgres")
    assert fixed.sql == ("SELECT r.name, c.make FROM cars AS c JOIN sales AS s ON c.id = s.car_id JOIN reps AS r ON "
                         "r.id = s.rep_id")
    left = ("SELECT r.name FROM cars AS c LEFT JOIN reps AS r ON r.id = s.rep_id JOIN sales AS s ON c.id = s.car_id")
    assert "LEFT JOIN reps AS r ON r.id = s.rep_id JOIN" in validate_sql(left, PG, "postgres").sql  # outer: left


def test_an_output_name_inside_an_order_by_expression_is_read_as_its_item_on_postgresql() -> None:
    sql = "SELECT make, SUM(price) AS total FROM cars GROUP BY make ORDER BY COALESCE(total, 0) DESC"
    assert validate_sql(sql, PG, "postgres").sql.endswith("ORDER BY COALESCE(SUM(price), 0) DESC")
    assert validate_sql(sql, LITE, "sqlite").sql.endswith("ORDER BY COALESCE(total, 0) DESC")  # SQLite reads it
    whole = "SELECT make, SUM(price) AS total FROM cars GROUP BY make ORDER BY total DESC"
    assert validate_sql(whole, PG, "postgres").fixes == ()


def test_an_interval_with_no_unit_takes_the_question_s_unit_or_is_refused() -> None:
    from core.sql import validate

    sql = "SELECT COUNT(*) FROM sales WHERE ts >= CURRENT_DATE - INTERVAL '30'"
    tree = __import__("sqlglot").parse_one(sql, read="postgres")
    read = validate(tree, PG, "postgres", question="sales in the last 30 days")
    assert "INTERVAL '30 day'" in read.sql and any(f.endswith(GUESSED) for f in read.fixes)
    one = __import__("sqlglot").parse_one("SELECT COUNT(*) FROM sales WHERE ts >= CURRENT_DATE - INTERVAL '1'",
                                          read="postgres")
    month = validate(one, PG, "postgres", question="sales of the previous month")
    assert "INTERVAL '1 month'" in month.sql  # one of the one unit of time the question speaks of
    week = validate(__import__("sqlglot").parse_one("SELECT COUNT(*) FROM sales WHERE ts >= CURRENT_DATE - INTERVAL "
                                                    "'6'", read="postgres"), PG, "postgres",
                    question="sales in the past 7 days, inclusive of today")
    assert "INTERVAL '6 day'" in week.sql
    with pytest.raises(SQLValidationError, match="30 seconds"):  # attack 18: 30 months or 30 days? unsaid
        validate(tree, PG, "postgres", question="sales of the last month")
    with pytest.raises(SQLValidationError, match="30 seconds"):
        validate(tree, PG, "postgres", question="recent sales")
    with pytest.raises(SQLValidationError, match="30 seconds"):
        validate(tree, PG, "postgres", question="sales per day over the last year")


def test_strftime_in_mysql_order_and_a_unit_sqlite_lacks_are_read_as_sqlite_writes_them(shop) -> None:
    answer = ask(shop, "Month of each sale", "SELECT id, strftime(ts, '%m') FROM sales WHERE id < 4 ORDER BY id")
    assert answer.ok and answer.rows == ((1, "01"), (2, "02"), (3, "03"))
    recent = ask(shop, "Sales in the last 2 weeks", "SELECT COUNT(*) FROM sales WHERE ts >= date('now', '-2 weeks')")
    assert recent.ok and recent.rows == ((1,),) and "-14 days" in recent.sql
    quarter = ask(shop, "Sales in the last quarter", "SELECT COUNT(*) FROM sales WHERE ts >= date('now', '-1 quarter')")
    assert quarter.ok and "-3 months" in quarter.sql


def test_a_double_rounded_to_places_on_postgresql_is_the_number_unless_decimals_are_asked() -> None:
    from core.sql import validate

    tree = __import__("sqlglot").parse_one("SELECT make, ROUND(CAST(price AS FLOAT) / NULLIF(id, 0), 3) AS r FROM cars",
                                           read="postgres")
    plain = validate(tree, PG, "postgres", question="the ratio of price to id for each car")
    assert plain.sql == "SELECT make, CAST(price AS DOUBLE PRECISION) / NULLIF(id, 0) AS r FROM cars"
    asked = validate(tree, PG, "postgres", question="the ratio of price to id, rounded to 3 decimals")
    assert "ROUND(CAST(CAST(price AS DOUBLE PRECISION) / NULLIF(id, 0) AS DECIMAL), 3)" in asked.sql
    assert validate(tree, LITE, "sqlite", question="the ratio").sql.startswith("SELECT make, ROUND(")  # runs there


def test_a_sqlite_modifier_with_no_unit_takes_the_question_s_unit_or_is_refused(shop) -> None:
    answer = ask(shop, "Sales in the last 30 days", "SELECT COUNT(*) FROM sales WHERE ts >= date('now', '-30')")
    assert answer.ok and answer.rows == ((1,),) and "-30 days" in answer.sql
    refused = ask(shop, "Recent sales", "SELECT COUNT(*) FROM sales WHERE ts >= date('now', '-30')")
    assert not refused.ok and "does not know the modifier '-30'" in (refused.error or "")


def test_strftime_of_now_in_mysql_order_is_read_format_first(shop) -> None:
    answer = ask(shop, "This year's sales", "SELECT COUNT(*) FROM sales WHERE strftime(ts, '%Y') = strftime('now', '%Y')")
    this_year = shop.execute("SELECT COUNT(*) FROM sales WHERE strftime('%Y', ts) = strftime('%Y', 'now')").rows
    assert answer.ok and answer.rows == this_year


def test_attack_round_19_weeks_are_days_on_sqlite_and_two_units_are_no_reading(shop) -> None:
    weeks = ask(shop, "Sales in the last 2 weeks", "SELECT COUNT(*) FROM sales WHERE ts >= date('now', '-2')")
    assert weeks.ok and weeks.rows == ((1,),) and "-14 days" in weeks.sql
    two = ask(shop, "Sales in the last year that are at least 1 day old",
              "SELECT COUNT(*) FROM sales WHERE ts >= date('now', '-1') AND ts <= date('now', '-1 day')")
    assert not two.ok and "does not know the modifier '-1'" in (two.error or "")
