"""Messages that are not a new SQL question: small talk, questions about Cairn, edits of the previous query.

The Assistant's classifier is injectable; these tests fix the route to test what each route *does* (the router
itself is measured in tests/test_router.py and bench.classifier).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from core.assistant import Assistant
from core.config import Settings
from core.databases import open_database
from core.memory import JsonMemoryStore, MemoryBank, Route, classify
from core.pipeline import AskPipeline
from core.replies import MetaContext, meta_reply, refine_by_rules
from tests.fakes.fake_embedder import FakeEmbedder
from tests.fakes.scripted_llm import ScriptedLLM

TODAY = dt.date.today()


@pytest.fixture
def db(sample_db_uri: str):
    database = open_database(sample_db_uri)
    yield database
    database.close()


def make(db, tmp_path: Path, llm=None, kind: str | None = None) -> Assistant:
    store = JsonMemoryStore(tmp_path / "memory")
    embedder = FakeEmbedder()
    pipeline = AskPipeline(db, llm, Settings(), today=lambda: TODAY)
    bot = Assistant(pipeline, store, embedder, MemoryBank(store, embedder, tmp_path / "journal"))
    if kind is not None:
        bot.classifier = lambda message, **_: Route(kind, False, ("fixed by the test",))  # type: ignore[arg-type,assignment]
    return bot


@pytest.mark.parametrize("message", ["hello!", "hi", "thanks", "ok", "ok thanks!"])
def test_greetings_are_answered_without_sql_or_memory(db, tmp_path: Path, message: str) -> None:
    bot = make(db, tmp_path, llm=None)
    reply = bot.handle("asha", message)
    assert reply.route.kind == "chat"
    assert reply.answer is None and reply.error is None and reply.text
    assert bot.store.list("asha") == []


def test_greeting_routes_to_chat_by_rules_alone() -> None:
    assert classify("hello!").kind == "chat"
    assert classify("ok thanks").kind == "chat"


def test_meta_questions_use_schema_memory_and_last_sql(db, tmp_path: Path) -> None:
    bot = make(db, tmp_path, llm=ScriptedLLM("SELECT name FROM customers WHERE country = 'India' LIMIT 5", "NONE"),
               kind="question")
    bot.handle("ravi", "five customers from India")
    bot.bank.add("ravi", "preference", "Only show customers from India")
    bot.classifier = lambda message, **_: Route("meta", False, ())  # type: ignore[assignment]
    tables = bot.handle("ravi", "which tables are there?")
    assert tables.answer is None and "customers" in tables.text and "orders" in tables.text
    columns = bot.handle("ravi", "what columns does orders have?")
    assert "total_amount" in columns.text and "status" in columns.text
    saved = bot.handle("ravi", "what preferences have you saved?")
    assert "India" in saved.text
    explained = bot.handle("ravi", "explain the last SQL")
    assert "customers" in explained.text and "LIMIT" in explained.text.upper()
    helped = bot.handle("ravi", "what can you do?")
    assert "remember" in helped.text.lower()


def test_meta_reply_without_anything_yet() -> None:
    text = meta_reply("what do you remember about me?", MetaContext(schema=None))
    assert "nothing remembered" in text
    assert "no previous query" in meta_reply("explain the last query", MetaContext(schema=None))


def test_refine_edits_the_last_query_and_stores_nothing(db, tmp_path: Path) -> None:
    first = "SELECT c.name, c.country FROM customers c WHERE c.country = 'India' AND c.segment = 'retail'"
    bot = make(db, tmp_path, llm=ScriptedLLM(first, "NONE"), kind="question")
    before = bot.handle("dev", "retail customers in India").answer
    assert before is not None and before.ok
    bot.classifier = lambda message, **_: Route("refine", False, ())  # type: ignore[assignment]
    reply = bot.handle("dev", "take the country filter off and run it again")
    assert reply.answer is not None and reply.answer.ok
    assert "country" not in (reply.answer.sql or "").split("WHERE")[-1]
    assert "segment" in (reply.answer.sql or "")
    assert len(reply.answer.rows) > len(before.rows)
    assert any("removed the condition on country" in n for n in reply.notes)
    assert bot.store.list("dev") == [] and reply.changes == ()


def test_refine_rules_limit_and_sort(db) -> None:
    schema = db.schema()
    sql = "SELECT o.order_id, o.total_amount, o.order_date FROM orders o WHERE o.order_date >= '2024-01-01'"
    dropped = refine_by_rules("drop the date condition from that query", sql, schema)
    assert dropped is not None and "WHERE" not in dropped.sql.upper()
    top = refine_by_rules("make it top 5 instead", sql, schema)
    assert top is not None and "LIMIT 5" in top.sql
    ordered = refine_by_rules("same but sorted by total amount descending", sql, schema)
    assert ordered is not None and "ORDER BY total_amount DESC" in ordered.sql
    assert refine_by_rules("make it prettier", sql, schema) is None


def test_refine_without_a_previous_query_is_answered_as_a_question(db, tmp_path: Path) -> None:
    bot = make(db, tmp_path, llm=ScriptedLLM("SELECT count(*) FROM orders", "NONE"), kind="refine")
    reply = bot.handle("new", "drop the date condition")
    assert reply.route.kind == "follow_up" and reply.answer is not None


def test_memory_clear_forgets_conversation_and_journal(db, tmp_path: Path) -> None:
    bot = make(db, tmp_path, llm=ScriptedLLM("SELECT 1", "NONE"), kind="question")
    bot.handle("zoe", "how many orders")
    bot.bank.add("zoe", "preference", "Only show customers from India")
    assert bot.store.recent_messages("zoe") and bot.bank.history("zoe")
    bot.bank.clear("zoe")
    assert bot.store.list("zoe") == [] and bot.store.recent_messages("zoe") == []
    assert bot.store.summary("zoe") == "" and bot.bank.history("zoe") == []
    assert not list((tmp_path / "journal").glob("*.json"))
