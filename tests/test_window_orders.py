"""A ranking window with no ORDER BY (core.sql.repair.grouping._window_order): ranked in the order the SELECT shows,
or a row number per group numbered by the one date column where the question asks for the latest or earliest; a
guess the model sees first, and left as written where neither the query nor the question says the order."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlglot

from core.databases import open_database
from core.sql._validate import validate
from tests.scripted_asking import ask


@pytest.fixture()
def wallet(tmp_path: Path):
    path = tmp_path / "wallet.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE balance(user_id INTEGER, amount REAL, updated_at TIMESTAMP);"
            "INSERT INTO balance VALUES (1, 10, '2024-01-01'), (1, 30, '2024-03-01'), (1, 20, '2024-02-01'),"
            "(2, 5, '2024-02-01'), (2, 7, '2024-01-15');"
            "CREATE TABLE seller(id INTEGER PRIMARY KEY, name TEXT, total REAL);"
            "INSERT INTO seller VALUES (1, 'Ann', 300), (2, 'Bob', 500), (3, 'Cy', 100);"
        )
    db = open_database(str(path))
    yield db
    db.close()


def test_a_rank_with_no_order_is_ranked_as_the_rows_are_shown(wallet) -> None:
    answer = ask(wallet, "Rank the sellers by their total sales",
                 "SELECT name, total, RANK() OVER () AS sales_rank FROM seller ORDER BY total DESC")
    assert [tuple(r) for r in answer.rows] == [("Bob", 500, 1), ("Ann", 300, 2), ("Cy", 100, 3)]
    assert any("(a guess)" in n and "a ranking with no order" in n for n in answer.notes), answer.notes


@pytest.mark.parametrize(("question", "want"), [
    ("What is the latest balance of each user?", [(1, 30.0), (2, 5.0)]),
    ("What was the first balance recorded for each user?", [(1, 10.0), (2, 7.0)]),
])
def test_a_row_number_per_group_is_numbered_by_the_date_asked(wallet, question: str, want: list) -> None:
    sql = ("WITH b AS (SELECT user_id, amount, ROW_NUMBER() OVER (PARTITION BY user_id) AS rn FROM balance) "
           "SELECT user_id, amount FROM b WHERE rn = 1 ORDER BY user_id")
    answer = ask(wallet, question, sql)
    assert [tuple(r) for r in answer.rows] == want
    assert any("(a guess)" in n for n in answer.notes)


@pytest.mark.parametrize(("question", "sql"), [
    ("Any one balance per user",  # no word for the order: left as written
     "WITH b AS (SELECT user_id, amount, ROW_NUMBER() OVER (PARTITION BY user_id) AS rn FROM balance) "
     "SELECT user_id, amount FROM b WHERE rn = 1"),
    ("Number the sellers", "SELECT name, ROW_NUMBER() OVER () FROM seller"),  # nothing orders the rows shown
    ("Latest balance per user, ranked",  # already ordered
     "SELECT user_id, RANK() OVER (PARTITION BY user_id ORDER BY updated_at DESC) FROM balance"),
    ("The first and the last balance of each user",  # both words: which one?
     "WITH b AS (SELECT user_id, amount, ROW_NUMBER() OVER (PARTITION BY user_id) AS rn FROM balance) "
     "SELECT user_id, amount FROM b WHERE rn = 1"),
])
def test_rankings_whose_order_nothing_says_are_left(wallet, question: str, sql: str) -> None:
    checked = validate(sqlglot.parse_one(sql, read="sqlite"), wallet.schema(), "sqlite", question=question)
    assert not any("a ranking with no order" in f for f in checked.fixes)


LATEST = ("WITH b AS (SELECT user_id, amount, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY {key}) AS rn "
          "FROM balance) SELECT user_id, amount FROM b WHERE rn = 1 ORDER BY user_id")


@pytest.mark.parametrize(("question", "key", "want"), [
    ("What is each user's latest balance?", "updated_at ASC", [(1, 30), (2, 5)]),
    ("Show the most recent balance per user", "CASE WHEN updated_at IS NULL THEN 1 ELSE 0 END, updated_at",
     [(1, 30), (2, 5)]),
    ("Each user's first recorded balance", "updated_at DESC", [(1, 10), (2, 7)]),
])
def test_a_row_number_the_other_way_from_the_words_is_turned(wallet, question: str, key: str, want: list) -> None:
    answer = ask(wallet, question, LATEST.format(key=key))
    assert [tuple(r) for r in answer.rows] == want
    assert any("numbers the" in n and "(a guess)" in n for n in answer.notes), answer.notes


@pytest.mark.parametrize(("question", "key"), [
    ("What is each user's latest balance?", "updated_at DESC"),  # the way asked already
    ("Each user's balance, first and latest", "updated_at ASC"),  # words for both
    ("What was each user's balance at the start, last month?", "updated_at ASC"),  # a period: no such word
    ("Give the first name and latest balance of each user", "updated_at DESC"),  # "first name" is no such word
    ("What is each user's latest balance?", "amount ASC"),  # ordered by no date: a smallest, not an earliest
])
def test_a_row_number_the_words_do_not_contradict_stays(wallet, question: str, key: str) -> None:
    checked = validate(sqlglot.parse_one(LATEST.format(key=key), read="sqlite"), wallet.schema(), "sqlite",
                       question=question)
    assert not any("numbers the" in f for f in checked.fixes), checked.fixes



@pytest.mark.parametrize(("question", "sql"), [  # attack 16
    ("For each user, what is the latest balance, and how many balances came before it?",  # a second rn, kept by no one
     "WITH seq AS (SELECT user_id, amount, updated_at, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY updated_at ASC)"
     " AS rn FROM balance), latest AS (SELECT user_id, amount, rn AS so_far, ROW_NUMBER() OVER (PARTITION BY user_id "
     "ORDER BY updated_at DESC) AS rn FROM seq) SELECT user_id, amount, so_far FROM latest WHERE rn = 1"),
    ("Show the first 10 users with their current balance", LATEST.format(key="updated_at DESC")),  # a list's size
    ("For each current user, what was their starting balance?", LATEST.format(key="updated_at ASC")),
    ("Each user's balance in the last ten days, the first one", LATEST.format(key="updated_at ASC")),
    ("What is each user's last-name initial and first balance?", LATEST.format(key="updated_at ASC")),
])
def test_row_numbers_the_words_do_not_turn(wallet, question: str, sql: str) -> None:
    checked = validate(sqlglot.parse_one(sql, read="sqlite"), wallet.schema(), "sqlite", question=question)
    assert not any("numbers the" in f for f in checked.fixes), checked.fixes


def test_a_turned_row_number_puts_rows_with_no_date_last(tmp_path: Path) -> None:
    path = tmp_path / "p.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE prices(product_id INTEGER, price REAL, updated_at DATETIME, lap_time REAL);"
                           "INSERT INTO prices VALUES (1,10,'2023-01-01',3),(1,12,'2023-06-01',2),(2,5,'2023-01-01',1),"
                           "(2,7,NULL,4);")
    db = open_database(str(path))
    try:
        sql = ("WITH c AS (SELECT product_id, price, ROW_NUMBER() OVER (PARTITION BY product_id ORDER BY {key}) AS rn "
               "FROM prices) SELECT product_id, price FROM c WHERE rn = 1 ORDER BY product_id")
        answer = ask(db, "What is the latest price of each product?", sql.format(key="updated_at"))
        assert [tuple(r) for r in answer.rows] == [(1, 12.0), (2, 5.0)]
        for dialect in ("sqlite", "postgres"):
            checked = validate(sqlglot.parse_one(sql.format(key="updated_at"), read="sqlite"), db.schema(), dialect,
                               question="the latest price of each product")
            assert "updated_at DESC NULLS FIRST" not in checked.sql and "updated_at DESC" in checked.sql, checked.sql
        kept = validate(sqlglot.parse_one(sql.format(key="lap_time ASC"), read="sqlite"), db.schema(), "sqlite",
                        question="each product's fastest lap at the most recent race")  # a duration is no when
        assert not any("numbers the" in f for f in kept.fixes)
    finally:
        db.close()
