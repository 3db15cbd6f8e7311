"""A reply cut off mid-query (the model's length limit, a dropped stream) is never completed by a guess.

sqlglot reads ``… GROUP BY`` or ``date('now',`` as a finished query, and the GROUP BY repair would then fill in the
columns: an answer to a query nobody wrote. The guard refuses a query that stops where more must follow, the model
is asked again with that error, and a reply Ollama says it cut at ``num_predict`` (``done_reason`` "length") is asked
for once more with room for a long query. Real SQLite, the real ``ollama`` client against the fake server.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.config import Settings
from core.databases import open_database
from core.errors import LLMReplyError, SQLRejected
from core.llm import OllamaLLM
from core.pipeline import LONG_REPLY, AskPipeline
from core.sql import extract_queries, guard
from tests.fakes.scripted_llm import ScriptedLLM


@pytest.fixture()
def shop(tmp_path: Path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE sale(id INTEGER, town TEXT, amount REAL, sold_on TEXT);"
            "INSERT INTO sale VALUES (1,'Pune',10,'2024-01-02'),(2,'Pune',20,'2024-01-03'),(3,'Agra',5,'2024-02-01');"
        )
    db = open_database(str(path))
    yield db
    db.close()


@pytest.mark.parametrize("dialect", ["sqlite", "postgres"])
@pytest.mark.parametrize("text", [
    "SELECT town, SUM(amount) FROM sale GROUP BY",
    "SELECT COUNT(*) FROM sale WHERE sold_on >= DATE('now',",
    "SELECT s.town FROM sale AS s LEFT JOIN sale AS",
    "SELECT town FROM sale ORDER BY amount DESC LIMIT",
    "SELECT town, amount FROM sale WHERE town IN",
])
def test_a_query_that_stops_where_more_must_follow_is_refused(dialect, text) -> None:
    with pytest.raises(SQLRejected, match="looks cut off|could not be parsed"):
        guard(text, dialect)


@pytest.mark.parametrize("reply", [
    "SELECT AVG(amount) FROM sale WHERE sold_on >= '2024-01-01' AND",
    "```sql\nSELECT AVG(amount) FROM sale WHERE town = 'Pune' OR  ",
])
def test_a_reply_that_ends_on_a_connective_was_cut_off(reply) -> None:
    with pytest.raises(LLMReplyError, match="looks cut off"):
        extract_queries(reply, "sqlite")


def test_a_finished_query_and_a_connective_closing_its_block_are_not_taken_for_cut_off(shop) -> None:
    assert guard("SELECT town FROM sale ORDER BY amount DESC LIMIT 2;", "sqlite").sql
    reply = "```sql\nSELECT town, COUNT(*) FROM sale WHERE amount > 1 AND\n```"  # the model closed its block
    answer = AskPipeline(shop, ScriptedLLM(reply), Settings()).ask("sales per town")
    assert answer.ok and sorted(answer.rows) == [("Agra", 1), ("Pune", 2)]


def test_a_cut_off_reply_goes_back_to_the_model_and_never_becomes_a_guessed_answer(shop) -> None:
    cut = "```sql\nSELECT town, SUM(amount) AS total FROM sale GROUP BY"
    whole = "SELECT town, SUM(amount) AS total FROM sale GROUP BY town"
    llm = ScriptedLLM(cut, whole)
    answer = AskPipeline(shop, llm, Settings(repair_rounds=1)).ask("total per town")
    assert answer.ok and answer.sql == whole and "cut off" in llm.history[-1].user
    stuck = AskPipeline(shop, ScriptedLLM(cut, cut, cut), Settings(repair_rounds=2)).ask("total per town")
    assert not stuck.ok and "cut off" in (stuck.error or "")


def test_a_reply_ollama_cut_at_its_length_limit_is_asked_for_again_with_room(shop, fake_ollama) -> None:
    fake_ollama.honour_num_predict = True
    preface = "Let me think about which table holds the sales and how to add them up. " * 40  # ~600 words
    reply = f"{preface}\n```sql\nSELECT town, SUM(amount) AS total FROM sale GROUP BY town\n```"
    fake_ollama.enqueue_chat(reply)
    fake_ollama.enqueue_chat(reply)
    answer = AskPipeline(shop, OllamaLLM(fake_ollama.url, "qwen2.5-coder:7b", timeout_s=10), Settings()).ask(
        "total per town")
    assert answer.ok and sorted(answer.rows) == [("Agra", 5.0), ("Pune", 30.0)]
    first, second = fake_ollama.chat_requests()[:2]
    assert first["options"]["num_predict"] == 400 and second["options"]["num_predict"] == LONG_REPLY


# --- found by attacking the check by hand -------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "SELECT town FROM sale ORDER",                                 # read as an alias "ORDER" otherwise
    "SELECT town, COUNT(*) FROM sale GROUP",
    "SELECT s.town FROM sale s LEFT JOIN sale t",                  # read as a cross join ON TRUE otherwise
    "SELECT town, COUNT(*) FROM sale GROUP BY;",                   # a semicolon does not finish it
    "SELECT town FROM sale WHERE id IN (SELECT id FROM sale",      # a bracket the reply never closed
    "SELECT town FROM sale WHERE town IN ('Pune', 'Agra'",
])
def test_more_ways_a_reply_stops_mid_query_are_refused(text) -> None:
    with pytest.raises(SQLRejected):
        guard(text, "sqlite")


@pytest.mark.parametrize("text", ["SELECT town, filter FROM sale ORDER BY filter", 'SELECT town FROM sale ORDER BY "desc"',
                                  "SELECT town FROM sale -- towns AND"])
def test_names_that_are_key_words_and_comments_are_not_taken_for_a_cut(text) -> None:
    assert guard(text, "sqlite").sql


def test_prose_after_a_closed_block_that_ends_on_and_is_the_prose_s(shop) -> None:
    reply = "```sql\nSELECT town FROM sale ORDER BY amount DESC LIMIT 1\n```\nThis gives the best town, its sales and"
    assert extract_queries(reply, "sqlite")[0] == "SELECT town FROM sale ORDER BY amount DESC LIMIT 1"


def test_a_bracket_left_open_at_the_end_is_closed_only_where_the_writer_ended_the_statement(shop) -> None:
    with pytest.raises(SQLRejected):  # never the one other reading that parses: "... WHERE amount) > 6"
        guard("SELECT town FROM sale WHERE id IN (SELECT id FROM sale WHERE amount > 6", "sqlite")
    assert guard("SELECT town FROM sale WHERE id IN (SELECT id FROM sale;", "sqlite").mended
    ended = "```sql\nSELECT town FROM sale WHERE id IN (SELECT id FROM sale\n```\nThis lists the towns."
    answer = AskPipeline(shop, ScriptedLLM(ended), Settings()).ask("towns with sales")
    assert answer.ok and sorted(answer.rows) == [("Agra",), ("Pune",), ("Pune",)]
    cut = "```sql\nSELECT town FROM sale WHERE id IN (SELECT id FROM sale"
    stopped = AskPipeline(shop, ScriptedLLM(cut, cut, cut), Settings()).ask("towns with sales")
    assert stopped.path != "repaired" and "IN (SELECT" not in (stopped.sql or "")  # never the completed guess
