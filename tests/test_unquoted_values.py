"""Values written without quotes: a bare word beside a text column that no table has as a column is the string the
writer forgot to quote; a date written without quotes (arithmetic to the database) beside a date or text column is
the date. A bare name that is a column somewhere, or beside a number, is left to the other checks."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.config import Settings
from core.databases import open_database
from core.errors import SQLValidationError
from core.pipeline import AskPipeline
from core.schema import Column, Schema, Table
from core.sql import validate_sql
from tests.fakes.scripted_llm import ScriptedLLM

SCHEMA = Schema("sqlite", (Table("flight", (Column("to_airport", "TEXT"), Column("dep", "TEXT"),
                                            Column("stops", "INTEGER"), Column("LAX", "TEXT"))),))


@pytest.fixture()
def flights(tmp_path: Path):
    path = tmp_path / "flights.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE flight(id INTEGER PRIMARY KEY, to_airport TEXT, dep TEXT, stops INTEGER);"
                           "INSERT INTO flight(to_airport, dep, stops) VALUES ('JFK','2022-12-30',0),"
                           "('JFK','2023-02-01',1),('ORD','2023-03-01',0);")
    db = open_database(str(path))
    yield db
    db.close()


def _ask(db, sql: str):
    return AskPipeline(db, ScriptedLLM(sql, sql, sql), Settings()).ask("flights to JFK this year")


def test_a_bare_word_beside_a_text_column_is_the_value(flights) -> None:
    answer = _ask(flights, "SELECT COUNT(*) FROM flight WHERE to_airport = JFK")
    assert answer.ok and answer.rows == ((2,),)
    assert any("a value written without quotes" in n for n in answer.notes)


def test_a_date_without_quotes_is_the_date_not_2021(flights) -> None:
    answer = _ask(flights, "SELECT COUNT(*) FROM flight WHERE dep >= 2023-01-01")
    assert answer.ok and answer.rows == ((2,),)  # as written SQLite compares with the number 2021: all 3 rows
    between = _ask(flights, "SELECT COUNT(*) FROM flight WHERE dep BETWEEN 2023-01-01 AND 2023-02-15")
    assert between.ok and between.rows == ((1,),)


def test_a_bare_word_that_is_a_column_somewhere_is_not_turned_into_a_value() -> None:
    fixed = validate_sql("SELECT stops FROM flight WHERE to_airport = LAX", SCHEMA, "sqlite")
    assert "'LAX'" not in fixed.sql


def test_a_bare_word_beside_a_number_stays_an_unknown_column() -> None:
    with pytest.raises(SQLValidationError, match="Unknown column"):
        validate_sql("SELECT stops FROM flight WHERE stops = several", SCHEMA, "sqlite")


def test_arithmetic_beside_a_number_is_left_alone() -> None:
    assert validate_sql("SELECT dep FROM flight WHERE stops > 2023-01-01", SCHEMA, "sqlite").fixes == ()


# --- a column name written as a string; a connective left dangling ------------------------------------------------

def test_a_column_name_shown_as_a_string_is_the_column(flights) -> None:
    answer = _ask(flights, "SELECT 'to_airport', COUNT(*) FROM flight GROUP BY to_airport ORDER BY to_airport")
    assert answer.ok and answer.rows == (("JFK", 2), ("ORD", 1))  # not the word 'to_airport' on every row


def test_a_column_name_compared_as_a_string_with_a_value_is_the_column(flights) -> None:
    answer = _ask(flights, "SELECT COUNT(*) FROM flight WHERE 'to_airport' = 'JFK'")
    assert answer.ok and answer.rows == ((2,),)  # as written: 'to_airport' = 'JFK' is false on every row


@pytest.fixture()
def inbox(tmp_path: Path):
    path = tmp_path / "inbox.sqlite"
    with sqlite3.connect(path) as conn:  # two tables with a status, each its own values
        conn.executescript("CREATE TABLE users(uid INTEGER, name TEXT, status TEXT);"
                           "CREATE TABLE notes(id INTEGER, user_id INTEGER, status TEXT);"
                           "INSERT INTO users VALUES (1,'ann','active'),(2,'bo','active');"
                           "INSERT INTO notes VALUES (1,1,'unread'),(2,1,'read'),(3,2,'unread');")
    db = open_database(str(path))
    yield db
    db.close()


@pytest.mark.parametrize(("sql", "rows"), [
    # of two tables with the column, the one whose values hold what it is compared with
    ("SELECT u.name, COUNT(*) FROM users u JOIN notes n ON n.user_id = u.uid WHERE 'status' = 'unread' "
     "GROUP BY u.name", [("ann", 1), ("bo", 1)]),
    ("SELECT COUNT(*) FROM users WHERE 'name' LIKE 'a%'", [(1,)]),  # matched with a pattern: true of all or none
    ("SELECT DISTINCT 'uid' AS user_id FROM users", [(1,), (2,)]),  # named for that column
    ("SELECT 'name', COUNT(*) FROM users u JOIN notes n ON n.user_id = u.uid GROUP BY u.name", [("ann", 2), ("bo", 1)]),
])
def test_a_column_name_in_quotes_is_read_by_what_the_query_says_of_it(inbox, sql, rows) -> None:
    answer = _ask(inbox, sql)
    assert answer.ok and sorted(answer.rows) == rows and any("written as a string" in n for n in answer.notes)


def test_a_named_constant_column_is_kept() -> None:
    assert validate_sql("SELECT 'to_airport' AS kind, stops FROM flight", SCHEMA, "sqlite").fixes == ()


def test_a_dangling_and_closing_the_block_is_dropped(flights) -> None:
    reply = "```sql\nSELECT COUNT(*) FROM flight WHERE to_airport = 'JFK' AND\n```"
    answer = AskPipeline(flights, ScriptedLLM(reply, reply, reply), Settings()).ask("flights to JFK")
    assert answer.ok and answer.rows == ((2,),)


@pytest.mark.parametrize(("sql", "rows"), [
    ("SELECT SUM('stops') FROM flight", [(1,)]),  # SQLite sums the string to 0
    ("SELECT to_airport, COUNT(*) FROM flight GROUP BY 'to_airport'", [("JFK", 2), ("ORD", 1)]),  # one group
    ("SELECT MAX('dep') FROM flight", [("2023-03-01",)]),  # the string itself
    ("SELECT COUNT(*) FROM flight WHERE 'dep' BETWEEN '2023-01-01' AND '2023-12-31'", [(2,)]),
    ("SELECT STRFTIME('%Y', 'dep') AS y, COUNT(*) FROM flight GROUP BY y", [("2022", 1), ("2023", 2)]),
])
def test_a_column_name_in_quotes_where_a_constant_means_nothing_is_the_column(flights, sql, rows) -> None:
    answer = _ask(flights, sql)
    assert answer.ok and sorted(answer.rows) == rows
    assert any("a column name written as a string" in n for n in answer.notes)


def test_a_string_that_is_a_value_stays_a_value(flights) -> None:
    answer = _ask(flights, "SELECT COUNT(*) FROM flight WHERE to_airport = 'dep'")  # compared with a column
    assert answer.ok and answer.rows == ((0,),)
    assert not any("written as a string" in n for n in answer.notes)


def test_a_column_name_in_quotes_grouped_by_in_quotes_is_the_column(flights) -> None:
    answer = _ask(flights, "SELECT 'to_airport', COUNT(*) FROM flight GROUP BY 'to_airport' ORDER BY 1")
    assert answer.ok and answer.rows == (("JFK", 2), ("ORD", 1))


@pytest.mark.parametrize(("sql", "rows"), [
    # a label naming each branch's count, in a UNION: it ran as written, and its rows are the answer
    ("SELECT 'dep' AS what, COUNT(*) FROM flight WHERE dep > '2023-01-01' UNION ALL SELECT 'stops', COUNT(*) "
     "FROM flight WHERE stops > 0", [("dep", 2), ("stops", 1)]),
    ("SELECT 'stops', COUNT(*) FROM flight WHERE stops > 0", [("stops", 1)]),  # beside an aggregate: its label
    ("SELECT 'stops' AS label, to_airport, COUNT(*) FROM flight GROUP BY to_airport",
     [("stops", "JFK", 2), ("stops", "ORD", 1)]),
])
def test_a_column_name_in_quotes_that_labels_a_count_stays_a_label(flights, sql, rows) -> None:
    answer = _ask(flights, sql)
    assert answer.ok and sorted(answer.rows) == rows and not any("written as a string" in n for n in answer.notes)
