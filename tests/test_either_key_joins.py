"""A join on either of two keys of one table (``core.evidence._joins.either_key_evidence``).

``ON u.uid = t.sender_id OR u.uid = t.receiver_id`` matches a transfer once for each role a user plays; for "the
amount sent by each user" it adds what they received. Where the question says no "or", "either", "both" or
"involving" and its words name one of the two roles, that key alone is offered beside the answer. Real SQLite through Cairn's
backend; the model is scripted.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.config import Settings
from core.databases import open_database
from core.pipeline import AskPipeline
from tests.fakes.scripted_llm import ScriptedLLM


def _ask(db, question: str, sql: str):
    return AskPipeline(db, ScriptedLLM(sql, sql, sql, sql), Settings()).ask(question)


@pytest.fixture()
def wallet(tmp_path: Path):
    path = tmp_path / "wallet.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE users(uid INTEGER PRIMARY KEY, name TEXT);"
            "CREATE TABLE transfers(txid INTEGER PRIMARY KEY, sender_id INTEGER, receiver_id INTEGER, amount REAL);"
            "INSERT INTO users VALUES (1,'Asha'),(2,'Bilal'),(3,'Chen');"
            "INSERT INTO transfers VALUES (1,1,2,10),(2,1,3,20),(3,2,1,5),(4,3,2,7);"
        )
    db = open_database(str(path))
    yield db
    db.close()


def test_a_join_on_either_of_two_keys_is_said_and_each_key_alone_offered(wallet) -> None:
    sql = ("SELECT u.name, SUM(t.amount) FROM users u JOIN transfers t ON (u.uid = t.sender_id OR u.uid = "
           "t.receiver_id) GROUP BY u.name")
    answer = _ask(wallet, "What is the total amount sent by each user?", sql)
    assert answer.ok and sorted(answer.rows) == [("Asha", 35.0), ("Bilal", 22.0), ("Chen", 27.0)]  # it stays
    labels = [a.label for a in answer.alternatives]
    assert labels == ["Joined on t.sender_id only"]  # the role the word "sent" names
    assert sorted(wallet.execute(answer.alternatives[0].sql).rows) == [("Asha", 30.0), ("Bilal", 5.0), ("Chen", 7.0)]
    assert "either of two keys" in answer.alternatives[0].why


@pytest.mark.parametrize("question", ["What amount did each user send or receive?",
                                      "Total amount of the transfers involving each user"])
def test_a_join_on_either_key_the_question_asks_for_is_not_doubted(wallet, question) -> None:
    sql = ("SELECT u.name, SUM(t.amount) FROM users u JOIN transfers t ON u.uid = t.sender_id OR u.uid = "
           "t.receiver_id GROUP BY u.name")
    answer = _ask(wallet, question, sql)
    assert answer.ok and not [a for a in answer.alternatives if a.label.startswith("Joined on")]


def test_a_join_on_either_key_where_the_words_name_no_role_is_not_doubted(tmp_path: Path) -> None:
    path = tmp_path / "league.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE teams(id INTEGER PRIMARY KEY, name TEXT);"
                           "CREATE TABLE matches(id INTEGER PRIMARY KEY, home_team_id INT, away_team_id INT);"
                           "INSERT INTO teams VALUES (1,'A'),(2,'B'); INSERT INTO matches VALUES (1,1,2),(2,2,1),(3,1,2);")
    db = open_database(str(path))
    try:
        answer = _ask(db, "How many matches did each team play?", "SELECT t.name, COUNT(*) FROM teams t JOIN matches m "
                      "ON t.id = m.home_team_id OR t.id = m.away_team_id GROUP BY t.name")  # attack round 18
        assert answer.ok and not [a for a in answer.alternatives if a.label.startswith("Joined on")]
        home = _ask(db, "How many home matches did each team play?", "SELECT t.name, COUNT(*) FROM teams t JOIN "
                    "matches m ON t.id = m.home_team_id OR t.id = m.away_team_id GROUP BY t.name")
        assert [a.label for a in home.alternatives if a.label.startswith("Joined on")] == ["Joined on m.home_team_id only"]
    finally:
        db.close()


@pytest.fixture()
def shipped(tmp_path: Path):
    path = tmp_path / "shipped.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE customers(customer_id INTEGER PRIMARY KEY, name TEXT, city TEXT);"
            "CREATE TABLE orders(order_id INTEGER PRIMARY KEY, customer_id INTEGER, amount REAL, city TEXT);"
            "CREATE TABLE lines(order_id INTEGER, line_no INTEGER, qty INTEGER, PRIMARY KEY (order_id, line_no));"
            "CREATE TABLE notes(order_id INTEGER, line_no INTEGER, note TEXT);"
            "INSERT INTO customers VALUES (1,'Asha','Pune'),(2,'Bilal','Agra');"
            "INSERT INTO orders VALUES (1,1,10,'Pune'),(2,1,30,'Agra'),(3,2,5,'Agra'),(4,2,7,'Delhi');"
            "INSERT INTO lines VALUES (1,1,2),(1,2,3);"
            "INSERT INTO notes VALUES (1,1,'a'),(1,2,'b');")
    db = open_database(str(path))
    yield db
    db.close()


def test_a_join_on_its_key_that_also_equates_a_shared_column_is_offered_on_the_key_alone(shipped) -> None:
    answer = _ask(shipped, "Order amounts with the customer's name", "SELECT c.name, o.amount FROM orders o JOIN "
                  "customers c ON o.customer_id = c.customer_id AND o.city = c.city")
    assert len(answer.rows) == 2  # the query that ran stays the answer
    (other,) = [a for a in answer.alternatives if a.label == "Joined on the key alone"]
    assert "o.city" not in other.sql and len(shipped.execute(other.sql).rows) == 4
    composite = _ask(shipped, "Notes per order line", "SELECT n.note, l.qty FROM notes n JOIN lines l ON n.order_id = "
                     "l.order_id AND n.line_no = l.line_no")  # part of a key of two columns: left
    assert not [a for a in composite.alternatives if a.label == "Joined on the key alone"]


def test_attack_round_20_a_shared_column_the_question_names_is_not_doubted(shipped) -> None:
    answer = _ask(shipped, "Orders shipped to the customer's own city", "SELECT c.name, o.amount FROM orders o JOIN "
                  "customers c ON o.customer_id = c.customer_id AND o.city = c.city")
    assert not [a for a in answer.alternatives if a.label == "Joined on the key alone"]
