"""A filter value no row holds because a word naming its column or table was written into it, read as the value the
data holds (core.sql.repair.filters._held_values): proven by two bounded queries, a guess the model sees first; a
value the data holds, or one whose extra words name nothing, is left as written."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.databases import open_database
from tests.scripted_asking import ask


@pytest.fixture()
def guide(tmp_path: Path):
    path = tmp_path / "guide.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE domain(did INTEGER PRIMARY KEY, name TEXT);"
            "INSERT INTO domain VALUES (1,'Machine Learning'),(2,'Data Science'),(3,'Sociology');"
            "CREATE TABLE restaurant(id INTEGER PRIMARY KEY, name TEXT, food_type TEXT, city_name TEXT);"
            "INSERT INTO restaurant VALUES (1,'Roma','Italian','San Francisco'),(2,'Taj','Indian','New York City'),"
            "(3,'Luigi','Italian','New York'),(4,'Wok','Chinese','Oakland');"
            "CREATE TABLE fare(id INTEGER PRIMARY KEY, from_airport TEXT, to_airport TEXT, cost REAL);"
            "INSERT INTO fare VALUES (1,'LAX','ORD',300),(2,'LAX','JFK',420),(3,'SFO','ORD',280);"
        )
    db = open_database(str(path))
    yield db
    db.close()


@pytest.mark.parametrize(("question", "sql", "want"), [
    ("Which restaurants serve Italian food?",
     "SELECT name FROM restaurant WHERE food_type = 'Italian food' ORDER BY name", [("Luigi",), ("Roma",)]),
    ("Which restaurants serve Italian food?",
     "SELECT name FROM restaurant WHERE LOWER(food_type) LIKE LOWER('%Italian food%') ORDER BY name",
     [("Luigi",), ("Roma",)]),
    ("How many domains are Machine Learning or Data Science?",
     "SELECT COUNT(*) FROM domain WHERE name IN ('Machine Learning domain', 'Data Science')", [(2,)]),
    ("Average cost of fares from LAX",
     "SELECT AVG(f.cost) FROM fare AS f WHERE f.from_airport = 'LAX from airport'", [(360.0,)]),
    ("Restaurants in the Oakland city",
     "SELECT name FROM restaurant WHERE city_name = 'Oakland city'", [("Wok",)]),
])
def test_a_value_with_its_columns_name_glued_on_is_read_as_the_data_holds_it(guide, question, sql, want) -> None:
    answer = ask(guide, question, sql)
    assert [tuple(r) for r in answer.rows] == want
    assert any("(a guess)" in n and "no row of" in n for n in answer.notes), answer.notes


def test_a_value_the_data_holds_with_the_word_is_left(guide) -> None:
    # 'New York City' is a value of its own: the word "city" is not dropped from it.
    answer = ask(guide, "Restaurants in New York City", "SELECT name FROM restaurant WHERE city_name = 'New York City'")
    assert [tuple(r) for r in answer.rows] == [("Taj",)]
    assert not any("no row of" in n for n in answer.notes)


@pytest.mark.parametrize("sql", [
    "SELECT name FROM restaurant WHERE food_type = 'Italian cuisine'",  # "cuisine" names nothing of the schema
    "SELECT name FROM restaurant WHERE food_type = 'food'",  # nothing would stay
    "SELECT name FROM restaurant WHERE food_type = 'Thai food'",  # no row holds 'Thai' either
])
def test_values_the_data_cannot_prove_are_left_to_fail_visibly(guide, sql: str) -> None:
    answer = ask(guide, "Which restaurants serve this food?", sql)
    assert answer.rows == [] or list(answer.rows) == []
    assert not any("no row of" in n for n in answer.notes)


@pytest.mark.parametrize(("question", "sql"), [
    ("Restaurants in Oakland City", "SELECT name FROM restaurant WHERE city_name = 'Oakland City'"),  # a proper name
    ("Restaurants in oakland City", "SELECT name FROM restaurant WHERE LOWER(city_name) LIKE '%oakland city%'"),
    ("Restaurants not in Oakland", "SELECT name FROM restaurant WHERE NOT city_name IN ('Oakland city')"),
    ("Restaurants in the listed cities",  # more values than the probes allow: none is read, not some
     "SELECT name FROM restaurant WHERE city_name IN ('Oakland city', 'SF city', 'LA city', 'NY city')"),
])
def test_proper_names_negations_and_long_lists_are_left(guide, question: str, sql: str) -> None:
    answer = ask(guide, question, sql)
    assert not any("no row of" in n for n in answer.notes), answer.notes


def test_a_guess_taken_offers_the_query_as_the_model_wrote_it(guide) -> None:
    """A guess is never the only answer: the query as written, which runs, is one click away with what it gives."""
    sql = "SELECT name FROM restaurant WHERE food_type = 'Italian food' ORDER BY name"
    answer = ask(guide, "Which restaurants serve Italian food?", sql)
    assert [tuple(r) for r in answer.rows] == [("Luigi",), ("Roma",)]
    offered = [a for a in answer.alternatives if a.label == "As the model wrote it"]
    assert len(offered) == 1 and "'Italian food'" in offered[0].sql
    assert "no rows" in offered[0].why or "0 rows" in offered[0].why, offered[0].why
    assert any("as the model wrote it" in n for n in answer.notes)


def test_an_answer_with_no_guess_offers_no_query_as_written(tmp_path: Path) -> None:
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE orders(id INTEGER PRIMARY KEY, amount REAL);"
                           "INSERT INTO orders VALUES (1, 10), (2, 20), (3, 30);")
    db = open_database(str(path))
    try:
        answer = ask(db, "How many orders are there?", "SELECT COUNT(*) FROM orders")
        assert not [a for a in answer.alternatives if a.label == "As the model wrote it"]  # no guess, no offer
    finally:
        db.close()


def test_the_query_as_written_is_never_offered_past_a_saved_filter(tmp_path: Path) -> None:
    """A one-click query must not drop what the person's memory enforces: with a saved filter, no as-written offer."""
    from core.config import Settings
    from core.memory import Recall
    from core.memory.kernel._model import Memory
    from core.memory.recall._recall import RecalledMemory
    from core.pipeline import AskPipeline
    from tests.fakes.scripted_llm import ScriptedLLM

    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT, city TEXT, active INTEGER);"
                           "INSERT INTO customers VALUES (1,'Asha','Pune',1),(2,'Bela','Pune',0),(3,'Chitra','Goa',1);")
    memory = Memory(user="u", category="preference", content="Only active customers", structured={
        "kind": "filter", "table": "customers", "column": "active", "op": "=", "value": 1,
        "sql": "customers.active = 1"})
    recall = Recall(memories=(RecalledMemory(memory=memory, similarity=1.0, reason="t", kind="filter"),))
    sql = "SELECT name FROM customers WHERE city = 'Pune city'"
    db = open_database(str(path))
    try:
        answer = AskPipeline(db, ScriptedLLM(sql, sql, sql, sql), Settings()).ask("Customers in Pune city", recall=recall)
    finally:
        db.close()
    assert [tuple(r) for r in answer.rows] == [("Asha",)], (answer.sql, answer.notes)
    assert not [a for a in answer.alternatives if a.label == "As the model wrote it"]
