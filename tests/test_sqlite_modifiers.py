"""SQLite's date modifiers (issue 27, a class of silent wrong answers on SQLite): a modifier SQLite does not know
makes the call NULL on every row — no error, an empty answer. Another notation with one reading is written as
SQLite's; anything else SQLite does not know is an error the model is shown."""

from __future__ import annotations

import sqlite3

import pytest

from core.errors import SQLRejected
from core.sql._guard import guard


@pytest.mark.parametrize(("written", "sqlite"), [
    ("-P7D", "-7 days"), ("P6M", "+6 months"), ("-P1Y", "-1 years"), ("-PT5H", "-5 hours"), ("-P2W", "-14 days"),
    ("30 days ago", "-30 days"), ("3 months ago", "-3 months"), ("2 weeks ago", "-14 days"),
])
def test_another_notation_with_one_reading_is_written_as_sqlites(written: str, sqlite: str) -> None:
    checked = guard(f"SELECT DATE('2024-03-31', '{written}')", "sqlite")
    assert f"'{sqlite}'" in checked.sql and written in checked.mended
    with sqlite3.connect(":memory:") as conn:
        assert conn.execute(f"SELECT DATE('2024-03-31', '{written}')").fetchone() == (None,)  # SQLite's own reading
        assert conn.execute(checked.sql).fetchone()[0] is not None


@pytest.mark.parametrize("modifier", ["next tuesday", "-P1Y2M", "yesterday", "-7 dayz", "last month"])
def test_a_modifier_sqlite_does_not_know_is_an_error_not_a_null_answer(modifier: str) -> None:
    with pytest.raises(SQLRejected, match="does not know the modifier"):
        guard(f"SELECT * FROM t WHERE d >= date('now', '{modifier}')", "sqlite")


@pytest.mark.parametrize("sql", [
    "SELECT date('now', '-1 day', 'start of month', 'weekday 1', 'localtime')",
    "SELECT datetime(d, '+1.5 hours', '-00:30', 'utc') FROM t",
    "SELECT strftime('%Y-%m', d, '-3 months') FROM t",
    "SELECT julianday('now') - julianday(d, 'unixepoch') FROM t",
    "SELECT date(d, '-' || n || ' days') FROM t",  # built at run time: SQLite's to judge
    "SELECT date('now', '+0001-02-03')",
])
def test_sqlites_own_modifiers_are_kept_as_written(sql: str) -> None:
    checked = guard(sql, "sqlite")
    assert not checked.mended


def test_other_dialects_are_not_touched() -> None:
    assert "P7D" in guard("SELECT d FROM t WHERE note = '-P7D'", "sqlite").sql  # a value, not a modifier
    assert "-P7D" in guard("SELECT '-P7D'", "postgres").sql


@pytest.mark.parametrize("sql", [
    "SELECT * FROM t WHERE d BETWEEN '01/03/2023' AND '31/03/2023'",
    "SELECT * FROM t WHERE d >= '03-15-2023'",
    "SELECT * FROM t WHERE '31.12.2023' > d",
])
def test_a_range_over_a_date_written_day_or_month_first_is_an_error_on_sqlite(sql: str) -> None:
    """As text, '01/04/2023' < '31/03/2023': whatever the column holds, the range is not by date."""
    with sqlite3.connect(":memory:") as conn:
        assert conn.execute("SELECT '01/04/2023' < '31/03/2023'").fetchone() == (1,)
    with pytest.raises(SQLRejected, match="compared as text"):
        guard(sql, "sqlite")
    guard(sql, "postgres")  # PostgreSQL reads it as a date or says it cannot: its own error, not this one


@pytest.mark.parametrize("sql", ["SELECT * FROM t WHERE d = '15/03/2023'", "SELECT * FROM t WHERE d >= '2023-03-15'",
                                 "SELECT * FROM t WHERE code > '1/2/2023x'"])
def test_an_equality_or_an_iso_date_is_left_alone(sql: str) -> None:
    assert guard(sql, "sqlite").sql
