"""The seed's walk-through end to end: remember, recall, filter, isolate, replace — on pgvector and on JSON."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.assistant import Assistant
from core.config import Settings
from core.memory import MemoryBank
from core.memory import JsonMemoryStore
from core.memory import PgVectorMemoryStore
from core.pipeline import AskPipeline
from tests.fakes.fake_embedder import FakeEmbedder
from tests.fakes.scripted_llm import ScriptedLLM

TODAY = dt.date.today()
HIGH_VALUE_SQL = (
    "SELECT DISTINCT c.name, c.country, o.total_amount FROM customers c "
    "JOIN orders o ON o.customer_id = c.customer_id WHERE o.total_amount > 10000"
)


@pytest.fixture(params=["pgvector", "json"])
def store(request, embedded_pg, tmp_path: Path) -> Iterator[Any]:
    if request.param == "json":
        yield JsonMemoryStore(tmp_path / "memory")
        return
    name = f"cairn_memory_{uuid.uuid4().hex[:8]}"
    embedded_pg.ensure_database(name)
    s = PgVectorMemoryStore(embedded_pg.uri(name))
    yield s
    s.close()


def make(db, store, tmp_path: Path, llm: ScriptedLLM) -> Assistant:
    embedder = FakeEmbedder()
    pipeline = AskPipeline(db, llm, Settings(), today=lambda: TODAY)
    return Assistant(pipeline, store, embedder, MemoryBank(store, embedder, tmp_path / "journal"))


def test_seed_walkthrough(db, store, tmp_path: Path, sample_db_uri: str) -> None:
    llm = ScriptedLLM()
    bot = make(db, store, tmp_path, llm)

    llm.enqueue("[PREFERENCE] Only show customers from India")
    reply = bot.handle("priya", "Always show me customers from India")
    assert reply.route.kind == "preference" and reply.answer is None
    assert reply.text == "Preference stored — no SQL executed"
    [change] = reply.changes
    assert change.operation == "ADD"
    pref = change.after[0]
    assert pref.category == "preference" and pref.structured["sql"] == "customers.country = 'India'"

    llm.enqueue("[TERM] high value order means total_amount > 10000")
    reply = bot.handle("priya", "High value order means total amount over 10000")
    assert reply.route.kind == "terminology" and reply.text.startswith("Terminology stored")
    term = reply.changes[0].after[0]
    assert term.category == "terminology" and "10000" in term.structured["sql"]

    # The model forgets the India filter; Cairn enforces it anyway and the term is defined in the prompt.
    llm.enqueue(HIGH_VALUE_SQL, "NONE")
    reply = bot.handle("priya", "Show me customers who have a high order value")
    answer = reply.answer
    assert answer is not None and answer.ok, answer
    prompt = llm.history[-2].user
    assert "customers.country = 'India'" in prompt and "high value order" in prompt and "10000" in prompt
    assert "india" in answer.sql.lower() and "10000" in answer.sql
    countries = {row[1] for row in answer.rows}
    assert countries == {"India"} and all(row[2] > 10000 for row in answer.rows) and answer.rows
    assert {m.id for m in answer.memories} == {pref.id, term.id}
    assert any("Applied your memories" in n for n in answer.notes)

    # Rahul has no memories: the same question is not filtered.
    llm.enqueue(HIGH_VALUE_SQL, "NONE")
    other = bot.handle("rahul", "Show me customers who have a high order value").answer
    assert other is not None and other.ok
    assert len({row[1] for row in other.rows}) > 1 and other.memories == ()

    # Contradiction: Germany replaces India (DELETE and replace), whatever the similarity.
    llm.enqueue("[PREFERENCE] Only show customers from Germany")
    reply = bot.handle("priya", "Actually, only show customers from Germany")
    assert reply.route.kind == "preference"
    [change] = reply.changes
    assert change.operation == "DELETE"
    assert change.before[0].id == pref.id and "Germany" in change.after[0].structured["sql"]
    prefs = [m for m in store.list("priya") if m.category == "preference"]
    assert [m.structured["value"] for m in prefs] == ["Germany"]

    # Excluding a memory for one question reruns it without that filter.
    germany = prefs[0]
    llm.enqueue("SELECT DISTINCT country FROM customers", "NONE")
    rerun = bot.handle("priya", "Which countries do customers come from?", exclude=[germany.id]).answer
    assert rerun is not None and len(rerun.rows) == 10


def test_follow_up_uses_the_previous_question_also_after_restart(db, store, tmp_path: Path) -> None:
    llm = ScriptedLLM("SELECT name, segment FROM customers WHERE city = 'Delhi'", "NONE")
    make(db, store, tmp_path, llm).handle("anu", "List customers from Delhi")
    # A new Assistant (a restart days later) over the same store still knows what "those" were.
    llm2 = ScriptedLLM("SELECT count(*) FROM customers WHERE city = 'Delhi' AND segment = 'wholesale'", "NONE")
    reply = make(db, store, tmp_path, llm2).handle("anu", "How many of those were wholesale?")
    assert reply.route.kind == "follow_up"
    assert "List customers from Delhi" in llm2.history[0].user and "city = 'Delhi'" in llm2.history[0].user
    assert reply.answer is not None and reply.answer.ok and reply.answer.rows[0][0] >= 0


def test_forget_deletes_and_stores_nothing(db, store, tmp_path: Path) -> None:
    llm = ScriptedLLM("[PREFERENCE] Only show customers from India")
    bot = make(db, store, tmp_path, llm)
    bot.handle("meera", "Always show me customers from India")
    assert len(store.list("meera")) == 1
    reply = bot.handle("meera", "I no longer care about India")
    assert reply.route.kind == "forget" and reply.changes[0].operation == "DELETE"
    assert store.list("meera") == []
    # The bank's undo brings it back.
    assert bot.bank.undo("meera") is not None and len(store.list("meera")) == 1


def test_learning_after_an_answer(db, store, tmp_path: Path) -> None:
    llm = ScriptedLLM("SELECT count(*) FROM orders WHERE status = 'delivered'", "[PREFERENCE] Only delivered orders")
    reply = make(db, store, tmp_path, llm).handle("ola", "How many delivered orders, I only ever care about those")
    assert reply.answer is not None and reply.answer.ok
    extraction_prompt = llm.history[1]
    assert "delivered" in extraction_prompt.user and "SELECT" not in extraction_prompt.user
    assert [c.operation for c in reply.changes] in (["ADD"], [])


def test_ollama_down_memory_statement_still_stored(db, store, tmp_path: Path) -> None:
    from core.errors import LLMUnavailable

    llm = ScriptedLLM(LLMUnavailable("Ollama is not reachable."))
    reply = make(db, store, tmp_path, llm).handle("kim", "From now on only delivered orders")
    assert reply.route.kind == "preference" and reply.changes and reply.changes[0].operation == "ADD"
    assert reply.changes[0].after[0].structured["sql"] == "orders.status = 'delivered'"
    assert any("unavailable" in n for n in reply.notes)


def test_dry_run_calls_neither_model_nor_database(db, store, tmp_path: Path) -> None:
    llm = ScriptedLLM("[PREFERENCE] Only show customers from India")
    bot = make(db, store, tmp_path, llm)
    bot.handle("zed", "Always show me customers from India")
    calls = len(llm.history)
    report = bot.dry_run("zed", "How many wholesale customers are there?")
    assert len(llm.history) == calls
    assert report["route"] == "question" and report["uncertain"] is False
    [mem] = report["memories"]
    assert mem["applied_as"] == "filter" and "standing preference" in mem["why"]
    assert "customers.country = 'India'" in report["prompt"]["user"]
    assert bot.dry_run("zed", "Stop showing cancelled orders")["route"] == "preference"


def test_a_request_to_see_rows_again_with_nothing_saved_is_answered(db, store, tmp_path: Path) -> None:
    llm = ScriptedLLM("SELECT count(*) FROM orders WHERE status = 'returned'", "NONE")
    reply = make(db, store, tmp_path, llm).handle("ivo", "show returned orders again")
    assert reply.route.kind == "question" and reply.answer is not None and reply.answer.ok
    assert "nothing saved to withdraw" in " ".join(reply.route.reasons)
