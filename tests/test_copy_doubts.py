"""What a query writes twice where it likely meant two things (``evidence._duplicates.copy_doubts``): one computed
value under two names, one condition twice, a range from a value to itself. Nothing says what was meant, so nothing
is offered and the answer stays; the note is shown and the model is asked once (``AskPipeline._review``): its
rewrite is the answer where its rows differ, with the first query offered."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.config import Settings
from core.databases import open_database
from core.pipeline import AskPipeline
from tests.fakes.scripted_llm import ScriptedLLM
from tests.scripted_asking import sorted_rows


@pytest.fixture()
def shop(tmp_path: Path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:  # no declared keys
        conn.executescript(
            "CREATE TABLE client(client_id INTEGER, full_name TEXT, town TEXT);"
            "CREATE TABLE sale(sale_id INTEGER, client_id INTEGER, amount REAL, sold_on TEXT, origin TEXT, "
            "destination TEXT);"
            "INSERT INTO client VALUES (1,'Asha','Pune'),(2,'Bilal','Agra'),(3,'Chen','Pune');"
            "INSERT INTO sale VALUES (1,1,10,'2021-01-02','Pune','Agra'),(2,1,20,'2021-02-01','Agra','Pune'),"
            "(3,2,5,'2021-03-06','Pune','Agra'),(4,3,50,'2021-03-09','Agra','Agra'),(5,1,7,'2022-01-05','Pune','Pune');"
        )
    db = open_database(str(path))
    yield db
    db.close()


def _ask(db, question: str, sql: str, again: str | None = None):
    llm = ScriptedLLM(sql, again or sql, again or sql, again or sql)
    return AskPipeline(db, llm, Settings()).ask(question), llm


TWICE = ("SELECT c.town, COUNT(s.sale_id) AS total_sales, COUNT(s.sale_id) AS total_revenue FROM sale s "
         "JOIN client c ON c.client_id = s.client_id GROUP BY c.town")
MEANT = ("SELECT c.town, COUNT(s.sale_id) AS total_sales, SUM(s.amount) AS total_revenue FROM sale s "
         "JOIN client c ON c.client_id = s.client_id GROUP BY c.town")


def test_one_value_under_two_names_is_said_and_the_model_asked_once(shop) -> None:
    answer, llm = _ask(shop, "Number of sales and total revenue per town", TWICE)
    assert answer.ok and sorted(answer.rows) == [("Agra", 1, 1), ("Pune", 4, 4)]  # the same SQL back: it stays
    assert any("twice, as total_sales and as total_revenue" in n for n in answer.notes)
    assert len(llm.history) == 2 and "total_revenue" in llm.history[1].user  # asked once, with the doubt
    assert not answer.alternatives  # nothing said what was meant: nothing offered

    fixed, _ = _ask(shop, "Number of sales and total revenue per town", TWICE, again=MEANT)
    assert fixed.ok and sorted(fixed.rows) == sorted_rows(shop, MEANT)  # the model's rewrite, its rows differ
    (first,) = fixed.alternatives
    assert first.label == "The first query" and "COUNT(s.sale_id) AS total_revenue" in first.sql
    assert any("rewrote its query" in n for n in fixed.notes)


def test_one_condition_twice_and_a_range_from_a_value_to_itself_are_doubts(shop) -> None:
    twice = "SELECT COUNT(*) AS n FROM sale WHERE origin = 'Pune' AND origin = 'Pune'"
    answer, llm = _ask(shop, "How many sales went from Pune to Agra?", twice,
                       again="SELECT COUNT(*) AS n FROM sale WHERE origin = 'Pune' AND destination = 'Agra'")
    assert answer.ok and list(answer.rows) == [(2,)]  # the model's rewrite
    (first,) = answer.alternatives
    assert "tests origin = 'Pune' twice" in first.why and "origin = 'Pune' AND origin = 'Pune'" in first.sql
    one_day = "SELECT SUM(amount) AS total FROM sale WHERE sold_on BETWEEN '2021-03-01' AND '2021-03-01'"
    answer, llm = _ask(shop, "Total sales amount in March 2021", one_day)
    assert answer.ok and any("a range from a value to itself" in n for n in answer.notes)
    assert len(llm.history) == 2


@pytest.mark.parametrize(("question", "sql"), [
    ("Sales per town", "SELECT c.town, COUNT(s.sale_id) AS n FROM sale s JOIN client c ON c.client_id = s.client_id "
     "GROUP BY c.town"),
    ("How many sales went from Pune back to Pune?",  # one value for two columns
     "SELECT COUNT(*) AS n FROM sale WHERE origin = 'Pune' AND destination = 'Pune'"),
    ("Total sales amount in March 2021",
     "SELECT SUM(amount) AS total FROM sale WHERE sold_on BETWEEN '2021-03-01' AND '2021-03-31'"),
    ("How many sales?", "SELECT COUNT(*) AS n, COUNT(*) AS n FROM sale"),  # one name twice: not two meanings
    ("Sales from Pune to Pune-bound clients",  # attack round 22: one text for two columns is written on purpose
     "SELECT COUNT(*) AS n FROM sale s JOIN client c ON c.client_id = s.client_id WHERE origin = 'Pune' AND "
     "town = 'Pune'"),
])
def test_a_query_that_writes_nothing_twice_asks_nothing(shop, question, sql) -> None:
    answer, llm = _ask(shop, question, sql)
    assert answer.ok and not any("twice" in n or "to itself" in n for n in answer.notes)
    assert len(llm.history) == 1  # no review


@pytest.mark.parametrize(("sql", "said"), [
    ("SELECT SUM(amount) AS total FROM sale WHERE sold_on >= '2021-03-01' AND sold_on < '2021-03-01'",
     "bounded above and below by the same '2021-03-01'"),
])
def test_a_range_from_nothing_to_itself_is_a_doubt(shop, sql, said) -> None:
    answer, llm = _ask(shop, "Total sales amount in March 2021 from Pune to Agra", sql)
    assert answer.ok and any(said in n for n in answer.notes)
    assert len(llm.history) == 2  # the model is asked once
