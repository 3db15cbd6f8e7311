"""A bare column two joined tables share is qualified only where the query leaves one reading
(``core/sql/repair/joins/_ambiguous.py``): checked on a real SQLite database, where the readings are run side by
side."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlglot

from core.databases import open_database
from core.schema import Schema
from core.sql import validate

DDL = """
create table salespersons(id integer primary key, first_name text);
create table cars(id integer primary key, make text);
create table sales(id integer primary key, car_id integer, salesperson_id integer, price real, note text);
create table stock(id integer primary key, car_id integer, kept integer);
create table patients(patient_id integer primary key, name text, ward text);
create table visits(id integer primary key, patient_id integer, ward text);
create table state(state_name text, population integer);
create table city(city_name text, state_name text, population integer);
insert into salespersons values (1, 'Asha'), (2, 'Ravi'), (3, 'Mei');
insert into cars values (10, 'Tata'), (11, 'Kia'), (12, 'Fiat');
insert into sales values (100, 10, 1, 5.0, null), (101, 10, 1, 7.0, 'x'), (102, 11, 2, 9.0, null);
insert into stock values (1, 10, 1), (2, 12, 0);
insert into patients values (1, 'A', 'north'), (2, 'B', null), (3, 'C', 'south');
insert into visits values (1, 1, 'north'), (2, 1, 'east');
insert into state values ('Goa', 1000), ('Kerala', 5000);
insert into city values ('Panaji', 'Goa', 100), ('Kochi', 'Kerala', 600);
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Schema]:
    path = tmp_path_factory.mktemp("ambiguous") / "shop.db"
    with sqlite3.connect(path) as conn:
        conn.executescript(DDL)
    database = open_database(str(path))
    return path, database.schema()


def _fix(sql: str, schema: Schema) -> tuple[str, tuple[str, ...]]:
    result = validate(sqlglot.parse_one(sql, read="sqlite"), schema, "sqlite")
    return result.sql, result.fixes


def _rows(path: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        return sorted(conn.execute(sql).fetchall(), key=repr)


def test_a_join_condition_reads_only_the_tables_joined_before_it(db) -> None:
    path, schema = db
    sql, fixes = _fix("SELECT c.make FROM cars AS c JOIN sales AS s ON c.id = car_id JOIN stock AS k "
                      "ON c.id = k.car_id", schema)
    assert "ON c.id = s.car_id" in sql and "joined before it" in fixes[0]
    with pytest.raises(sqlite3.OperationalError, match="ambiguous"):  # SQLite's own reading is no reading
        _rows(path, "SELECT c.make FROM cars AS c JOIN sales AS s ON c.id = car_id JOIN stock AS k ON c.id = k.car_id")
    assert _rows(path, sql) == [("Tata",), ("Tata",)]


@pytest.mark.parametrize("query", [
    "SELECT p.first_name, COUNT({}) FROM sales AS s JOIN salespersons AS p ON s.salesperson_id = p.id "
    "GROUP BY p.first_name",
    "SELECT COUNT({}) FROM sales AS s JOIN cars AS c ON s.car_id = c.id WHERE c.make = 'Tata'",
])
def test_count_of_a_key_every_inner_joined_table_has_counts_the_same_rows(db, query: str) -> None:
    path, schema = db
    sql, fixes = _fix(query.format("id"), schema)
    assert "never NULL" in fixes[0]
    readings = {repr(_rows(path, query.format(q))) for q in ("s.id", "p.id" if " p " in query else "c.id")}
    assert len(readings) == 1 and repr(_rows(path, sql)) in readings


@pytest.mark.parametrize("query", [
    # a LEFT JOIN: cars without a sale count 1 by c.id, 0 by s.id
    "SELECT c.make, COUNT(id) FROM cars AS c LEFT JOIN sales AS s ON c.id = s.car_id GROUP BY c.make",
    # DISTINCT: the number of sales or of cars
    "SELECT COUNT(DISTINCT id) FROM sales AS s JOIN cars AS c ON s.car_id = c.id",
    # a column that may hold NULL: the counts differ
    "SELECT COUNT(ward) FROM patients AS p JOIN visits AS v ON v.patient_id = p.patient_id",
    # a column elsewhere than COUNT: which table is meant is the question's
    "SELECT id FROM sales AS s JOIN cars AS c ON s.car_id = c.id",
])
def test_a_reading_that_can_change_the_rows_is_not_chosen(db, query: str) -> None:
    _, schema = db
    sql, fixes = _fix(query, schema)
    assert not fixes and sql == sqlglot.parse_one(query, read="sqlite").sql("sqlite")


def test_the_anti_join_test_is_of_the_joined_table(db) -> None:
    path, schema = db
    sql, fixes = _fix("SELECT p.name FROM patients AS p LEFT JOIN visits AS v ON p.patient_id = v.patient_id "
                      "WHERE patient_id IS NULL", schema)
    assert "WHERE v.patient_id IS NULL" in sql and "never NULL" in fixes[0]
    assert _rows(path, sql) == [("B",), ("C",)]


def test_a_column_beside_an_anti_join_is_the_kept_tables(db) -> None:
    path, schema = db
    sql, fixes = _fix("SELECT id, c.make FROM cars AS c LEFT JOIN sales AS s ON c.id = s.car_id "
                      "WHERE s.car_id IS NULL", schema)
    assert sql.startswith("SELECT c.id") and "NULL on every row" in fixes[0]
    assert _rows(path, sql) == [(12, "Fiat")]


def test_is_null_of_a_column_the_join_does_not_compare_is_not_settled(db) -> None:
    _, schema = db
    # patients.ward may be NULL and the join does not compare wards: either reading may be meant
    sql, fixes = _fix("SELECT p.name FROM patients AS p LEFT JOIN visits AS v ON p.patient_id = v.patient_id "
                      "WHERE ward IS NULL", schema)
    assert not fixes


def test_a_column_is_not_read_as_the_table_it_is_set_against(db) -> None:
    path, schema = db
    sql, fixes = _fix("SELECT city.city_name, CAST(population AS REAL) / NULLIF(state.population, 0) AS share "
                      "FROM city JOIN state ON city.state_name = state.state_name", schema)
    assert "CAST(city.population AS REAL)" in sql and "against itself" in fixes[0]
    assert _rows(path, sql) == [("Kochi", 0.12), ("Panaji", 0.1)]
    # with three owners, ruling one out leaves two: not settled
    _, more = _fix("SELECT population - state.population FROM city JOIN state ON city.state_name = state.state_name "
                   "JOIN state AS s2 ON s2.state_name = city.state_name", schema)
    assert not any("against itself" in f for f in more)


def test_a_repair_beside_a_table_read_only_in_its_join_condition_lets_the_model_see_the_error_first(db) -> None:
    from core.sql import silences_an_error
    _, schema = db
    # stock is joined and read nowhere else: COUNT(id) is the same either way, but the join may be the mistake
    _, fixes = _fix("SELECT COUNT(id) FROM sales AS s JOIN stock AS k ON s.car_id = k.car_id", schema)
    assert "never NULL" in fixes[0] and silences_an_error(fixes[0])
    # both tables read outside the join: the repair is taken at once
    _, fixes = _fix("SELECT c.make, COUNT(id) FROM sales AS s JOIN cars AS c ON s.car_id = c.id GROUP BY c.make",
                    schema)
    assert "never NULL" in fixes[0] and not silences_an_error(fixes[0])
    _, fixes = _fix("SELECT c.make FROM cars AS c JOIN sales AS s ON c.id = car_id JOIN stock AS k "
                    "ON c.id = k.car_id", schema)
    assert not silences_an_error(fixes[0])  # the join's scope is SQL's reading, not a guess


def test_a_wrong_qualifier_on_a_column_the_join_equates_reads_it_there(db) -> None:
    path, schema = db
    # stock.car_id and sales.car_id are joined equal: either reads the same value
    sql, fixes = _fix("SELECT COUNT(DISTINCT c.car_id) FROM cars AS c JOIN sales AS s ON c.id = s.car_id "
                      "JOIN stock AS k ON k.car_id = s.car_id", schema)
    assert "COUNT(DISTINCT s.car_id)" in sql or "COUNT(DISTINCT k.car_id)" in sql
    assert _rows(path, sql) == [(1,)]


def test_a_wrong_qualifier_is_never_read_as_a_look_alike_of_its_own_table(db) -> None:
    from core.errors import SQLValidationError
    _, schema = db
    # sales and stock both have car_id, not joined on it: which one is meant is open, and cars' id is not it
    with pytest.raises(SQLValidationError, match="have it"):
        _fix("SELECT COUNT(DISTINCT c.car_id) FROM cars AS c LEFT JOIN sales AS s ON c.id = s.car_id "
             "LEFT JOIN stock AS k ON k.id = s.id", schema)


def test_a_tables_own_key_called_by_its_name_in_a_join_is_that_key_whoever_else_has_the_name(db) -> None:
    path, schema = db
    # cars has no car_id; sales and stock have one: in the join, c.car_id is the car's own id, never a tautology
    sql, fixes = _fix("SELECT COUNT(*) FROM cars AS c JOIN sales AS s ON c.car_id = s.car_id "
                      "JOIN stock AS k ON k.car_id = c.car_id", schema)
    assert "c.id = s.car_id" in sql and "k.car_id = c.id" in sql
    # beside the table's own key it is another table's column, never a comparison of the key with itself
    sql, fixes = _fix("SELECT COUNT(*) FROM cars AS c JOIN sales AS s ON c.id = c.car_id", schema)
    assert "c.id = s.car_id" in sql


def test_a_key_spelled_out_by_the_name_of_the_table_it_points_to_is_the_column_spelled_as_that_key() -> None:
    from core.errors import SQLValidationError
    from core.schema import Column, Table
    from core.sql import validate_sql
    schema = Schema("sqlite", (
        Table("journal", (Column("jid", "INTEGER"), Column("name", "TEXT")), primary_key=("jid",)),
        Table("publication", (Column("pid", "INTEGER"), Column("jid", "INTEGER"), Column("cid", "INTEGER")),
              primary_key=("pid",))))
    assert "publication.jid = 3" in validate_sql("SELECT pid FROM publication WHERE journal_id = 3", schema,
                                                 "sqlite").sql
    with pytest.raises(SQLValidationError):  # no conference table says what cid is: not guessed
        validate_sql("SELECT pid FROM publication WHERE conference_id = 3", schema, "sqlite")
