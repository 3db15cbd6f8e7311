"""Tables joined to every row by a slip (``core.sql.repair.joins._stray``): a table listed after a comma and never
read, a JOIN whose ON reads nothing of its table (a copy of the condition before it), and per-group results listed
side by side with no condition. Each multiplies the rows with no error; each is mended as a guess the model is shown
first, and the query as written is offered beside the answer. Real SQLite (no declared keys) through Cairn's backend;
the model is scripted and never improves."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.databases import open_database
from core.schema import Column, ForeignKey, Schema, Table
from core.sql import validate_sql
from core.sql.repair import GUESSED
from tests.scripted_asking import ask


@pytest.fixture()
def shop(tmp_path: Path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE cars(id INTEGER PRIMARY KEY, make TEXT, price REAL);"
            "CREATE TABLE reps(id INTEGER PRIMARY KEY, name TEXT);"
            "CREATE TABLE sales(id INTEGER PRIMARY KEY, car_id INTEGER, rep_id INTEGER, amount REAL);"
            "INSERT INTO cars VALUES (1,'Toyota',10),(2,'Honda',20),(3,'Toyota',30);"
            "INSERT INTO reps VALUES (1,'Asha'),(2,'Bilal'),(3,'Chen');"
            "INSERT INTO sales VALUES (1,1,1,5),(2,2,2,7),(3,3,1,9);")
    db = open_database(str(path))
    yield db
    db.close()


def test_a_table_listed_and_never_read_is_dropped_and_the_query_as_written_offered(shop) -> None:
    answer = ask(shop, "Total sales amount per make",
                 "SELECT c.make, SUM(s.amount) FROM sales s JOIN cars c ON c.id = s.car_id, reps GROUP BY c.make")
    assert answer.ok and sorted(answer.rows) == [("Honda", 7.0), ("Toyota", 14.0)]  # not 3 times as much
    (written,) = [a for a in answer.alternatives if a.label == "As the model wrote it"]
    assert sorted(shop.execute(written.sql).rows) == [("Honda", 21.0), ("Toyota", 42.0)]


def test_a_join_whose_on_reads_nothing_of_its_table_is_joined_on_its_key(shop) -> None:
    answer = ask(shop, "Which rep sold each car make?",
                 "SELECT c.make, r.name FROM sales s JOIN cars c ON c.id = s.car_id JOIN reps r ON c.id = s.car_id")
    assert answer.ok and sorted(answer.rows) == [("Honda", "Bilal"), ("Toyota", "Asha"), ("Toyota", "Asha")]


def test_per_group_results_side_by_side_are_joined_on_the_column_both_group_by(shop) -> None:
    answer = ask(shop, "Number of cars and total sales per make",
                 "SELECT a.make, a.n, b.total FROM (SELECT make, COUNT(*) AS n FROM cars GROUP BY make) a, "
                 "(SELECT c.make, SUM(s.amount) AS total FROM sales s JOIN cars c ON c.id = s.car_id GROUP BY c.make) b")
    assert answer.ok and sorted(answer.rows) == [("Honda", 1, 7.0), ("Toyota", 2, 14.0)]


SCHEMA = Schema(dialect="postgres", tables=(
    Table("cars", (Column("id", "integer"), Column("make", "text")), primary_key=("id",)),
    Table("reps", (Column("id", "integer"), Column("name", "text")), primary_key=("id",)),
    Table("sales", (Column("id", "integer"), Column("car_id", "integer"), Column("rep_id", "integer")),
          primary_key=("id",), foreign_keys=(ForeignKey(("car_id",), "cars", ("id",)),
                                             ForeignKey(("rep_id",), "reps", ("id",))))))


@pytest.mark.parametrize("sql", [
    "SELECT c.make, r.name FROM cars c, reps r",  # both read: the pairs are asked for
    "SELECT * FROM cars, reps",  # the star shows every table's columns
    "SELECT COUNT(*) FROM cars, reps WHERE name = 'Asha'",  # a bare column of reps reads it
    "SELECT a.make, b.make FROM (SELECT make FROM cars GROUP BY make) a, (SELECT make FROM cars GROUP BY make) b "
    "WHERE a.make = b.make",  # related already
])
def test_tables_that_are_read_or_related_are_left(sql: str) -> None:
    assert not [f for f in validate_sql(sql, SCHEMA, "postgres").fixes if f.endswith(GUESSED)]


def test_an_output_name_sorted_by_is_no_column_of_the_unread_table(shop) -> None:
    answer = ask(shop, "Total sales amount per make, biggest first",
                 "SELECT c.make, SUM(s.amount) AS total FROM sales s JOIN cars c ON c.id = s.car_id, reps r "
                 "GROUP BY c.make ORDER BY total DESC")
    assert answer.ok and answer.rows == (("Toyota", 14.0), ("Honda", 7.0))


@pytest.mark.parametrize("sql", [
    "SELECT COUNT(*) AS combinations FROM cars CROSS JOIN reps",  # the pairs counted (attack round 18)
    "SELECT a.make FROM (SELECT make, SUM(id) AS total FROM cars GROUP BY make) a, (SELECT make, SUM(id) AS "
    "total FROM cars GROUP BY make) b WHERE b.make = 'Toyota' AND a.total < b.total",  # a benchmark
    "SELECT a.make, b.make FROM (SELECT make FROM cars GROUP BY make) a, (SELECT make, COUNT(*) AS n FROM cars "
    "GROUP BY make) b WHERE a.make < b.make",  # pairs
])
def test_cross_joins_that_are_meant_are_left(sql: str) -> None:
    assert not [f for f in validate_sql(sql, SCHEMA, "postgres").fixes if f.endswith(GUESSED)]


@pytest.mark.parametrize("sql", [
    "SELECT COUNT(DISTINCT cars.id) FROM sales s, cars c",  # read by its name, aliased otherwise
    "SELECT COUNT(DISTINCT id.cars) FROM sales s, cars",  # a qualifier no source has: the column repair's
])
def test_a_table_read_through_a_slip_of_its_qualifier_is_not_stray(sql: str) -> None:
    assert not [f for f in validate_sql(sql, SCHEMA, "postgres").fixes if "never read" in f]


def test_a_table_listed_after_a_cte_and_never_read_is_dropped(shop) -> None:
    answer = ask(shop, "Sales per rep", "WITH per_rep AS (SELECT rep_id, COUNT(*) AS n FROM sales GROUP BY rep_id) "
                 "SELECT rep_id, n FROM per_rep, cars ORDER BY rep_id")
    assert answer.ok and answer.rows == ((1, 2), (2, 1))


def test_attack_round_19_pairs_asked_for_and_a_name_both_hold_keep_the_table(shop) -> None:
    pairs = ask(shop, "How many car-rep combinations are there per make?",
                "SELECT c.make, COUNT(*) FROM cars c CROSS JOIN reps r2 GROUP BY c.make")
    assert pairs.ok and sorted(pairs.rows) == [("Honda", 3), ("Toyota", 6)]
    ambiguous = validate_sql("WITH t AS (SELECT make, 1 AS id FROM cars) SELECT SUM(id) FROM t, reps", SCHEMA,
                             "postgres")
    assert "reps" in ambiguous.sql  # id is reps' column too: left for the error path


def test_a_subquery_s_or_a_cte_s_own_columns_do_not_keep_an_unread_table(shop) -> None:
    """fresh26: the columns of a subquery or a CTE body were read as the outer SELECT's, so a table listed after a
    comma beside them was kept (rows multiplied) — a subquery's bare and own-qualified columns are its own."""
    answer = ask(shop, "Makes of cars sold by Asha",
                 "SELECT c.make FROM cars c, reps r2 WHERE c.id IN (SELECT sales.car_id FROM sales JOIN reps ON "
                 "reps.id = sales.rep_id WHERE reps.name = 'Asha')")
    assert answer.ok and sorted(answer.rows) == [("Toyota",), ("Toyota",)]  # not once per rep
    answer = ask(shop, "Total sales per rep",
                 "WITH per_rep AS (SELECT rep_id, SUM(amount) AS total FROM sales GROUP BY rep_id) "
                 "SELECT r.name, p.total FROM per_rep p JOIN reps r ON r.id = p.rep_id, cars ORDER BY r.name")
    assert answer.ok and answer.rows == (("Asha", 14.0), ("Bilal", 7.0))
    correlated = validate_sql("SELECT c.make FROM cars c, reps r WHERE EXISTS (SELECT 1 FROM sales s WHERE "
                              "s.car_id = c.id AND s.rep_id = r.id)", SCHEMA, "postgres")
    assert "reps" in correlated.sql  # read inside the subquery: kept


def test_per_group_results_on_two_keys_or_three_results_are_all_joined(shop) -> None:
    """fresh26: results grouped by two columns, and a third result beside two, were left side by side."""
    two_keys = ask(shop, "Number of sales and total per rep and make",
                   "SELECT a.name, a.make, a.n, b.total FROM (SELECT r.name, c.make, COUNT(*) AS n FROM sales s JOIN "
                   "reps r ON r.id = s.rep_id JOIN cars c ON c.id = s.car_id GROUP BY r.name, c.make) a, (SELECT "
                   "r.name, c.make, SUM(s.amount) AS total FROM sales s JOIN reps r ON r.id = s.rep_id JOIN cars c ON "
                   "c.id = s.car_id GROUP BY r.name, c.make) b")
    assert two_keys.ok and sorted(two_keys.rows) == [("Asha", "Toyota", 2, 14.0), ("Bilal", "Honda", 1, 7.0)]
    three = ask(shop, "Cars, sales and total per make",
                "SELECT a.make, a.n, b.sold, c.total FROM (SELECT make, COUNT(*) AS n FROM cars GROUP BY make) a, "
                "(SELECT c.make, COUNT(*) AS sold FROM sales s JOIN cars c ON c.id = s.car_id GROUP BY c.make) b, "
                "(SELECT c.make, SUM(s.amount) AS total FROM sales s JOIN cars c ON c.id = s.car_id GROUP BY c.make) c")
    assert three.ok and sorted(three.rows) == [("Honda", 1, 1, 7.0), ("Toyota", 2, 2, 14.0)]
