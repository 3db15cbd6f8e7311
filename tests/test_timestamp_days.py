"""A timestamp compared with a day by ``=`` keeps only the rows at midnight: read as its day, where the data stores
times of day (``core/sql/repair/filters/_days.py``)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlglot

from core.databases import open_database
from core.sql._validate import validate
from tests.scripted_asking import ask


@pytest.fixture()
def events(tmp_path: Path):
    path = tmp_path / "events.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE sale(id INTEGER PRIMARY KEY, sold_at TIMESTAMP, sold_on DATE, kind TEXT, amount REAL);"
            "CREATE TABLE snapshot(id INTEGER PRIMARY KEY, taken_at DATETIME, total REAL);"
            "INSERT INTO sale VALUES (1,'2023-04-01 09:15:00','2023-04-01','sell',10),"
            "(2,'2023-04-01 17:40:00','2023-04-01','buy',20),(3,'2023-04-02 08:00:00','2023-04-02','sell',40);"
            "INSERT INTO snapshot VALUES (1,'2023-04-01',5),(2,'2023-04-02',7);")
    db = open_database(str(path))
    yield db
    db.close()


def test_a_timestamp_equal_to_a_day_is_read_as_its_day(events) -> None:
    answer = ask(events, "How many sales were made on 2023-04-01?",
                 "SELECT COUNT(*) FROM sale WHERE sold_at = '2023-04-01'")
    assert [tuple(r) for r in answer.rows] == [(2,)]
    assert any("holds times of day" in n and "(a guess)" in n for n in answer.notes)
    assert "SUBSTRING(sold_at, 1, 10) = '2023-04-01'" in answer.sql


@pytest.mark.parametrize(("sql", "read"), [
    ("SELECT SUM(s.amount) FROM sale AS s WHERE s.kind = 'sell' AND s.sold_at IN ('2023-04-01', '2023-04-02')",
     "SUBSTRING(s.sold_at, 1, 10) IN"),
    ("SELECT COUNT(*) FROM sale WHERE sold_at = DATE('now')", "SUBSTRING(sold_at, 1, 10) = DATE('now')"),
    ("SELECT COUNT(*) FROM sale WHERE DATE('now', '-1 day') = sold_at",
     "DATE('now', '-1 day') = SUBSTRING(sold_at, 1, 10)"),
    ("WITH d AS (SELECT id FROM sale WHERE sold_at = CURRENT_DATE) SELECT COUNT(*) FROM d",
     "SUBSTRING(sold_at, 1, 10) ="),
])
def test_every_form_of_a_day(events, sql: str, read: str) -> None:
    checked = validate(sqlglot.parse_one(sql, read="sqlite"), events.schema(), "sqlite", question="sales that day",
                       join_matches=_matches(events))
    assert read in checked.sql, checked.sql


@pytest.mark.parametrize(("sql", "question"), [
    ("SELECT COUNT(*) FROM sale WHERE sold_on = '2023-04-01'", "sales on April 1"),  # a DATE holds days
    ("SELECT total FROM snapshot WHERE taken_at = '2023-04-01'", "the total on April 1"),  # no time stored
    ("SELECT COUNT(*) FROM sale WHERE sold_at = '2023-04-01'", "sales at midnight on April 1"),
    ("SELECT COUNT(*) FROM sale WHERE sold_at = '2023-04-01 09:15:00'", "sales at 9:15 on April 1"),
    ("SELECT COUNT(*) FROM sale WHERE sold_at <> '2023-04-01'", "sales not on April 1"),
    ("SELECT COUNT(*) FROM sale WHERE NOT sold_at IN ('2023-04-01')", "sales not on April 1"),
    ("SELECT COUNT(*) FROM sale WHERE sold_at >= '2023-04-01'", "sales since April 1"),
    ("SELECT COUNT(*) FROM sale WHERE sold_at = DATE(sold_at)", "sales recorded without a time"),  # attack 16
    ("SELECT COUNT(*) FROM sale WHERE sold_at = DATE(sold_at)", "how many sales"),  # its own day: no time stored
    ("SELECT COUNT(*) FROM sale WHERE sold_at = '2023-04-01'", "sales with no time part on April 1"),
])
def test_what_is_no_timestamp_equal_to_a_day_stays(events, sql: str, question: str) -> None:
    checked = validate(sqlglot.parse_one(sql, read="sqlite"), events.schema(), "sqlite", question=question,
                       join_matches=_matches(events))
    assert not any("times of day" in f for f in checked.fixes), checked.fixes


def test_postgres_reads_the_day_as_a_cast(events) -> None:
    checked = validate(sqlglot.parse_one("SELECT COUNT(*) FROM sale WHERE sold_at = CURRENT_DATE - INTERVAL '1 day'",
                                         read="postgres"), events.schema(), "postgres", question="yesterday's sales",
                       join_matches=lambda sql: True)
    assert "CAST(sold_at AS DATE) = CURRENT_DATE - INTERVAL '1 DAY'" in checked.sql
    unknown = validate(sqlglot.parse_one("SELECT COUNT(*) FROM sale WHERE sold_at = CURRENT_DATE", read="postgres"),
                       events.schema(), "postgres", question="today's sales", join_matches=lambda sql: None)
    assert "CAST" not in unknown.sql  # the data could not tell: as written


def _matches(db):
    return lambda sql: bool(db.execute(sql).rows)


def test_sqlite_text_holding_timestamps_is_read_by_its_data(tmp_path: Path) -> None:
    path = tmp_path / "text.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE tx(id INTEGER PRIMARY KEY, happened TEXT, label TEXT, day TEXT, code TEXT);"
                           "INSERT INTO tx VALUES (1,'2023-04-01T09:00:00','2023-04-01','2023-04-01','2459000'),"
                           "(2,'2023-04-01T21:30:00-05:00','x','2023-04-01','123'),"
                           "(3,'2023-04-02T01:00:00+02:00','y','2023-04-02','7');")
    db = open_database(str(path))
    try:
        for sql, read in [("SELECT COUNT(*) FROM tx WHERE happened = '2023-04-01'", True),
                          ("SELECT COUNT(*) FROM tx WHERE day = '2023-04-01'", False),  # days only
                          ("SELECT COUNT(*) FROM tx WHERE label = '2023-04-01'", False),  # 'x' is no date
                          ("SELECT COUNT(*) FROM tx WHERE code = '2023-04-01'", False)]:  # a number is no day
            checked = validate(sqlglot.parse_one(sql, read="sqlite"), db.schema(), "sqlite", question="on April 1",
                               join_matches=_matches(db))
            assert ("SUBSTRING(" in checked.sql) == read, checked.sql
        answer = ask(db, "Which events happened on 2023-04-01?", "SELECT id FROM tx WHERE happened = '2023-04-01'")
        assert sorted(tuple(r) for r in answer.rows) == [(1,), (2,)]  # the day as stored, never moved to UTC
    finally:
        db.close()
