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
from core.memory import JsonMemoryStore, MemoryBank, Route, classify
from core.pipeline import AskPipeline
from core.replies import MetaContext, meta_reply, refine_by_rules
from tests.fakes.fake_embedder import FakeEmbedder
from tests.fakes.scripted_llm import ScriptedLLM

TODAY = dt.date.today()


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


# --- one path: memories made by hand are understood and enforced like chat statements ----------------------


def grounded(bot: Assistant) -> Assistant:
    from core.composition import grounding_of

    bot.bank.grounding = lambda: grounding_of(bot.pipeline)
    return bot


def test_bank_add_and_edit_are_enforced(db, tmp_path: Path) -> None:
    bot = grounded(make(db, tmp_path, llm=ScriptedLLM(
        "SELECT name, country FROM customers", "NONE", "SELECT name, country FROM customers", "NONE"),
        kind="question"))
    added = bot.bank.add("kim", "preference", "Only show customers from India", database_id=bot.database_id)
    assert added.structured and added.structured["kind"] == "filter" and added.structured["value"] == "India"
    first = bot.handle("kim", "list customers").answer
    assert first is not None and first.ok and {r[1] for r in first.rows} == {"India"}
    edited = bot.bank.edit("kim", added.id, content="Only show customers from Germany")
    assert edited.structured and edited.structured["value"] == "Germany"
    second = bot.handle("kim", "list customers").answer
    assert second is not None and {r[1] for r in second.rows} == {"Germany"}


def test_bank_understands_live_and_says_when_words_are_context_only(db, tmp_path: Path) -> None:
    bot = grounded(make(db, tmp_path))
    u = bot.bank.understand("terminology", "Tier-1 cities are Mumbai, Delhi and Bengaluru")
    assert u.use == "definition" and "Bengaluru" in str(u.form) and any("Bengaluru" in w for w in u.warnings)
    vague = bot.bank.understand("preference", "I like tidy answers")
    assert vague.use == "context" and "context only" in vague.description


def test_ratio_metric_is_an_expression_and_wins_over_a_standing_filter(db, tmp_path: Path) -> None:
    sql = ("SELECT 1.0 * SUM(CASE WHEN status = 'returned' THEN 1 ELSE 0 END) / COUNT(*) AS refund_rate "
           "FROM orders")
    bot = grounded(make(db, tmp_path, llm=ScriptedLLM(sql, "NONE"), kind="question"))
    bot.bank.add("lee", "preference", "Only count delivered orders", database_id=bot.database_id)
    metric = bot.bank.add("lee", "metric", "Refund rate is returned orders divided by all orders",
                          database_id=bot.database_id)
    assert metric.structured and metric.structured["kind"] == "metric"
    assert "CASE WHEN" in metric.structured["sql"].upper() and "orders.status" in metric.structured["columns"]
    reply = bot.handle("lee", "what is our refund rate?")
    assert reply.answer is not None and reply.answer.ok
    assert 0.0 < float(reply.answer.rows[0][0]) < 1.0  # not 0: the delivered-only filter did not cancel it
    assert any("metric" in n and "own conditions" in n for n in reply.answer.notes)


def test_inclusion_is_never_a_filter(db, tmp_path: Path) -> None:
    bot = grounded(make(db, tmp_path))
    bot.bank.add("mo", "preference", "Exclude cancelled orders", database_id=bot.database_id)
    bot.bank.add("mo", "preference", "include cancelled orders in all results", database_id=bot.database_id)
    forms = [m.structured for m in bot.store.list("mo")]
    assert not any(f and f.get("kind") == "filter" and f.get("op") in ("=", "IN") for f in forms)
    assert not any(f and f.get("kind") == "filter" and "cancelled" in str(f.get("value")) for f in forms)


@pytest.mark.parametrize(("message", "kept_as_nothing"), [("ok", False), ("cool thanks", False),
                                                         ("2022 through 2025", True)])
def test_small_talk_that_carries_something_says_nothing_was_kept(message: str, kept_as_nothing: bool) -> None:
    """Attack 5, finding 7: "2022 through 2025" taken as small talk was answered "Noted." while nothing was
    stored; the reply now says so and how to keep it."""
    from core.replies import chat_reply

    reply = chat_reply(message)
    assert ("did not store" in reply and f'"remember: {message}"' in reply) is kept_as_nothing
