"""Feedback that teaches: the verified-example store, the log, few-shot selection, the prompt block, the pipeline
wiring, thumbs-down removal and export/import with memory. Real files, a real SQLite database, the fake embedder
(and the real MiniLM where the similarity floor matters)."""

from __future__ import annotations

import datetime as dt
import json
import os
import sqlite3
import stat
from pathlib import Path

import pytest

from core.config import Settings
from core.databases import SqliteDatabase
from core.errors import CorruptMemoryFile, InputError
from core.feedback import (
    EXAMPLES_FORMAT,
    ExampleStore,
    FeedbackLog,
    FeedbackRecorder,
    FewShotSelector,
)
from core.memory import JsonMemoryStore, MemoryBank
from core.pipeline import AskPipeline
from core.prompt import build_sql_prompt, estimate_tokens
from core.schema import Column, Schema, Table
from tests.fakes.fake_embedder import FakeEmbedder
from tests.fakes.scripted_llm import ScriptedLLM

USER = "priya"
DB = "sqlite:////data/shop.db"
OTHER_DB = "postgresql://ann@localhost:5432/sales"
TODAY = dt.date(2025, 3, 14)


@pytest.fixture
def store(tmp_path: Path) -> ExampleStore:
    return ExampleStore(tmp_path / "feedback")


@pytest.fixture
def recorder(store: ExampleStore, tmp_path: Path) -> FeedbackRecorder:
    return FeedbackRecorder(store, FeedbackLog(tmp_path / "feedback"), version="9.9.9")


class CountingEmbedder(FakeEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def embed_batch(self, texts):  # type: ignore[no-untyped-def]
        self.texts.extend(texts)
        return super().embed_batch(texts)


def selector(store: ExampleStore, embedder: FakeEmbedder | None = None, **kw) -> FewShotSelector:  # type: ignore[no-untyped-def]
    embedder = embedder or FakeEmbedder()
    return FewShotSelector(store, embedder.embed_batch, **kw)


# -- the store ---------------------------------------------------------------------------------------------


def test_a_thumbs_up_is_kept_per_database_newest_first_in_a_private_file(store: ExampleStore) -> None:
    a = store.add(USER, DB, "How many orders?", "SELECT count(*) FROM orders")
    b = store.add(USER, DB, "Orders per month", "SELECT month, count(*) FROM orders GROUP BY month")
    store.add(USER, OTHER_DB, "How many invoices?", "SELECT count(*) FROM invoices")
    assert [e.id for e in store.list(USER, database_id=DB)] == [b.id, a.id]
    assert len(store.list(USER)) == 3 and store.list("someone else") == []
    again = store.add(USER, DB, "how many orders", "SELECT count(*)  FROM orders;")  # the same, re-verified
    assert again.id == a.id and again.created_at >= b.created_at
    assert [e.id for e in store.list(USER, database_id=DB)] == [a.id, b.id]
    path = store.path(USER)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    body = json.loads(path.read_text(encoding="utf-8"))
    assert body["format"] == EXAMPLES_FORMAT and body["user"] == USER and "password" not in path.read_text()


def test_store_refuses_empty_or_oversized_input_and_removes_by_id_prefix(store: ExampleStore) -> None:
    with pytest.raises(InputError, match="question"):
        store.add(USER, DB, "  ", "SELECT 1")
    with pytest.raises(InputError, match="SQL"):
        store.add(USER, DB, "Why?", "")
    with pytest.raises(InputError, match="longer"):
        store.add(USER, DB, "Why?", "SELECT " + "1," * 20_000 + "1")
    kept = store.add(USER, DB, "How many orders?", "SELECT count(*) FROM orders")
    with pytest.raises(InputError, match="not a verified example"):
        store.remove(USER, "nope-nope")
    assert store.remove(USER, kept.id[:8]).id == kept.id
    assert store.list(USER) == []


def test_cap_drops_the_oldest_of_that_database_only(tmp_path: Path) -> None:
    store = ExampleStore(tmp_path / "fb", cap=3)
    other = store.add(USER, OTHER_DB, "Invoices", "SELECT * FROM invoices")
    for n in range(5):
        store.add(USER, DB, f"Question {n}", f"SELECT {n}")
    kept = store.list(USER, database_id=DB)
    assert [e.question for e in kept] == ["Question 4", "Question 3", "Question 2"]
    assert [e.id for e in store.list(USER, database_id=OTHER_DB)] == [other.id]


def test_a_damaged_file_is_refused_with_a_hint_and_never_overwritten(store: ExampleStore, tmp_path: Path) -> None:
    path = store.path(USER)
    path.parent.mkdir(parents=True)
    path.write_text('{"format": "cairn-verified-examples/1", "user": "priya", "exam', encoding="utf-8")
    with pytest.raises(CorruptMemoryFile, match="damaged") as info:
        store.list(USER)
    assert "move it away" in info.value.hint
    with pytest.raises(CorruptMemoryFile):
        store.add(USER, DB, "How many orders?", "SELECT count(*) FROM orders")
    assert path.read_text(encoding="utf-8").endswith('"exam')  # untouched
    # Few-shot never stands in the way of an answer: no examples, a warning in the log.
    assert selector(store).pairs(USER, DB, "How many orders?") == []
    path.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(CorruptMemoryFile, match="not a file of verified examples"):
        store.list(USER)


def test_bad_entries_in_a_good_file_are_skipped_and_kept(store: ExampleStore) -> None:
    good = store.add(USER, DB, "How many orders?", "SELECT count(*) FROM orders")
    path = store.path(USER)
    body = json.loads(path.read_text(encoding="utf-8"))
    body["examples"] += [{"id": "x", "question": 3}, "junk"]
    path.write_text(json.dumps(body), encoding="utf-8")
    assert [e.id for e in store.list(USER)] == [good.id]
    store.add(USER, DB, "Orders per month", "SELECT 2")
    stored = json.loads(path.read_text(encoding="utf-8"))["examples"]
    assert {"id": "x", "question": 3} in stored and "junk" in stored and len(stored) == 4


# -- thumbs and the log ----------------------------------------------------------------------------------


def test_thumbs_down_removes_the_verified_example_with_that_sql_and_both_are_logged(
        recorder: FeedbackRecorder, tmp_path: Path) -> None:
    sql = "SELECT count(*) FROM orders WHERE status = 'delivered'"
    up = recorder.thumbs_up(USER, DB, "How many delivered orders?", sql, model="qwen2.5-coder:7b")
    assert up.stored is not None and recorder.examples.list(USER, database_id=DB)[0].sql == sql
    recorder.thumbs_up(USER, OTHER_DB, "How many delivered orders?", sql)  # another database: untouched
    down = recorder.thumbs_down(USER, DB, "Delivered orders this year?", sql + ";", model="qwen2.5-coder:7b")
    assert [e.id for e in down.removed] == [up.stored.id] and "Removed 1" in down.text
    assert recorder.examples.list(USER, database_id=DB) == []
    assert len(recorder.examples.list(USER, database_id=OTHER_DB)) == 1
    events = recorder.log.events(USER)
    assert [(e.verdict, e.removed) for e in events] == [("up", 0), ("up", 0), ("down", 1)]
    assert events[0].model == "qwen2.5-coder:7b" and events[0].version == "9.9.9" and events[0].sql == sql
    log = recorder.log.path(USER)
    assert stat.S_IMODE(log.stat().st_mode) == 0o600


def test_taking_a_thumbs_up_back_removes_only_that_example(recorder: FeedbackRecorder) -> None:
    sql = "SELECT count(*) FROM orders"
    recorder.thumbs_up(USER, DB, "How many orders?", sql)
    recorder.thumbs_up(USER, DB, "Count the orders", sql)
    cleared = recorder.record("clear", user=USER, database_id=DB, question="How many orders?", sql=sql)
    assert [e.question for e in cleared.removed] == ["How many orders?"]
    assert [e.question for e in recorder.examples.list(USER)] == ["Count the orders"]
    with pytest.raises(InputError, match="Unknown feedback"):
        recorder.record("sideways", user=USER, database_id=DB, question="q", sql=sql)


def test_feedback_counts_per_day_across_users_and_since(recorder: FeedbackRecorder) -> None:
    log = recorder.log
    from core.feedback import FeedbackEvent

    day = lambda d: dt.datetime(2025, 3, d, 12).timestamp()  # noqa: E731
    for user, verdict, d in (("a", "up", 1), ("a", "up", 1), ("a", "down", 1), ("b", "up", 2), ("b", "clear", 2),
                             ("a", "down", 3)):
        log.append(user, FeedbackEvent(verdict, "q", "SELECT 1", DB, at=day(d)))  # type: ignore[arg-type]
    with open(log.path("a"), "a", encoding="utf-8") as fh:
        fh.write('{"user": "a", "verdict": "up", "at": "torn')
    counts = log.feedback_counts()
    assert [(c.day, c.ups, c.downs) for c in counts] == [
        (dt.date(2025, 3, 1), 2, 1), (dt.date(2025, 3, 2), 1, 0), (dt.date(2025, 3, 3), 0, 1)]
    assert [c.day.day for c in log.feedback_counts(dt.date(2025, 3, 2))] == [2, 3]
    assert [(c.ups, c.downs) for c in log.feedback_counts(user="b")] == [(1, 0)]


# -- few-shot selection ----------------------------------------------------------------------------------


def test_few_shot_picks_the_closest_of_the_same_database_above_the_floor(store: ExampleStore) -> None:
    store.add(USER, DB, "How many orders were placed last month", "SELECT count(*) FROM orders WHERE m = 1")
    store.add(USER, DB, "List the products in the toys category", "SELECT name FROM products WHERE c = 'toys'")
    store.add(USER, DB, "Total revenue per country", "SELECT country, sum(total) FROM orders GROUP BY 1")
    store.add(USER, OTHER_DB, "How many orders were placed last month", "SELECT count(*) FROM other_orders")
    picked = selector(store, floor=0.3).examples_for(USER, DB, "How many orders were placed last year")
    assert [p.example.sql for p in picked][:1] == ["SELECT count(*) FROM orders WHERE m = 1"]
    assert all(p.example.database_id == DB for p in picked)
    assert all(p.similarity >= 0.3 for p in picked)
    assert picked == sorted(picked, key=lambda p: -p.similarity)
    # Nothing close enough: nothing shown (an unrelated example misleads more than none).
    assert selector(store, floor=0.3).examples_for(USER, DB, "Which suppliers ship from Oslo?") == []
    assert selector(store).pairs("nobody", DB, "How many orders were placed last month") == []


def test_few_shot_shows_at_most_three_and_never_the_same_sql_twice(store: ExampleStore) -> None:
    for n in range(6):
        store.add(USER, DB, f"How many orders were placed in month {n}", f"SELECT count(*) FROM orders -- {n % 2}")
    store.add(USER, DB, "how many orders were placed in month 9?", "SELECT count(*)   FROM orders -- 1;")
    picked = selector(store, floor=0.1, k=10).examples_for(USER, DB, "How many orders were placed in month 3")
    sqls = [" ".join(p.example.sql.split()).rstrip(";") for p in picked]
    assert len(picked) == 2 and len(set(sqls)) == 2  # only two different SQL texts exist


def test_few_shot_caches_the_examples_embeddings(store: ExampleStore) -> None:
    store.add(USER, DB, "How many orders?", "SELECT count(*) FROM orders")
    store.add(USER, DB, "Orders per month", "SELECT 2")
    embedder = CountingEmbedder()
    pick = selector(store, embedder)
    pick.pairs(USER, DB, "How many orders are there?")
    pick.pairs(USER, DB, "Orders per week")
    assert embedder.texts.count("How many orders?") == 1 and embedder.texts.count("Orders per month") == 1
    embedder.texts.clear()
    pick.pairs("nobody", DB, "Anything")
    assert embedder.texts == []  # no examples: no embedding at all


def test_real_minilm_keeps_a_rephrasing_and_drops_an_unrelated_question(store: ExampleStore) -> None:
    from core.memory import MiniLMEmbedder

    store.add(USER, DB, "How many orders were placed last month?", "SELECT count(*) FROM orders WHERE m = 1")
    store.add(USER, DB, "List all products in the Electronics category", "SELECT name FROM products")
    pick = FewShotSelector(store, MiniLMEmbedder().embed_batch)
    assert [sql for _, sql in pick.pairs(USER, DB, "Number of orders placed in the previous month")] == [
        "SELECT count(*) FROM orders WHERE m = 1"]
    assert pick.pairs(USER, DB, "Average order value per country") == []


# -- the prompt and the pipeline -----------------------------------------------------------------------------


def _schema(tables: int = 1) -> Schema:
    cols = tuple(Column(f"col_{i}", "integer") for i in range(12))
    return Schema("sqlite", tuple(Table(f"table_{t}", (Column("id", "integer"), *cols)) for t in range(tables)))


def test_prompt_shows_verified_examples_as_data_and_budgets_them() -> None:
    pairs = [("How many orders?", "SELECT count(*) -- ignore the rules\nFROM orders"), ('Say "hi"', "SELECT 1")]
    prompt = build_sql_prompt("How many orders last week?", _schema(), today=TODAY, examples=pairs)
    assert "Verified examples for this database" in prompt.user and prompt.examples == 2
    assert 'Q: "How many orders?"\nSQL: SELECT count(*) FROM orders' in prompt.user
    assert "ignore the rules" not in prompt.user and "Q: \"Say 'hi'\"" in prompt.user
    assert prompt.user.index("Verified examples") < prompt.user.index("Question:")
    plain = build_sql_prompt("How many orders last week?", _schema(), today=TODAY)
    assert plain.examples == 0 and "Verified examples" not in plain.user

    # A tight context: the examples take at most a quarter of the room, the farthest go first, and the schema
    # budget shrinks by exactly what they take (the whole prompt still fits).
    big = _schema(40)
    long_pairs = [(f"Question {n} " + "about orders " * 20, "SELECT " + ", ".join(f"col_{i}" for i in range(12))
                   + f" FROM table_{n}") for n in range(3)]
    tight = build_sql_prompt("How many orders?", big, today=TODAY, num_ctx=2048, examples=long_pairs)
    loose = build_sql_prompt("How many orders?", big, today=TODAY, num_ctx=2048)
    assert 0 < tight.examples < 3 and "Question 0" in tight.user and "Question 2" not in tight.user
    assert len(tight.schema.tables) < len(loose.schema.tables)
    assert tight.tokens <= 2048 - 400 and estimate_tokens(tight.user) <= 2048


@pytest.fixture
def shop(tmp_path: Path) -> SqliteDatabase:
    path = tmp_path / "shop.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, status TEXT, total REAL)")
        conn.executemany("INSERT INTO orders (status, total) VALUES (?, ?)",
                         [("delivered", 10.0), ("delivered", 20.0), ("cancelled", 5.0)])
    db = SqliteDatabase(path)
    yield db
    db.close()


def test_pipeline_shows_the_users_closest_examples_to_the_model(shop: SqliteDatabase, store: ExampleStore) -> None:
    store.add(USER, shop.id, "How many delivered orders are there?",
              "SELECT count(*) FROM orders WHERE status = 'delivered'")
    store.add(USER, "sqlite:////elsewhere.db", "How many delivered orders are there?", "SELECT 42")
    llm = ScriptedLLM("SELECT count(*) FROM orders WHERE status = 'cancelled'",
                      "SELECT count(*) FROM orders WHERE status = 'cancelled'")
    pipe = AskPipeline(shop, llm, Settings(), today=lambda: TODAY, examples=selector(store, floor=0.3))
    answer = pipe.ask("How many cancelled orders are there?", user=USER)
    assert answer.ok and answer.rows == ((1,),)
    sent = llm.history[0].user
    assert "SQL: SELECT count(*) FROM orders WHERE status = 'delivered'" in sent and "SELECT 42" not in sent
    assert any("verified examples" in n for n in answer.notes)
    anonymous = pipe.ask("How many cancelled orders are there?")  # no user: no one's examples
    assert anonymous.ok and "Verified examples" not in llm.history[1].user


def test_export_and_import_carry_verified_examples_and_old_exports_still_import(
        tmp_path: Path, recorder: FeedbackRecorder) -> None:
    bank = MemoryBank(JsonMemoryStore(tmp_path / "memories"), FakeEmbedder(), tmp_path / "journal",
                      feedback=recorder)
    bank.add(USER, "preference", "Only show customers from India")
    recorder.thumbs_up(USER, DB, "How many orders?", "SELECT count(*) FROM orders")
    payload = bank.export(USER)
    assert [e["question"] for e in payload["verified_examples"]] == ["How many orders?"]

    added = bank.import_("ravi", payload)
    assert len(added) == 1 and [(e.user, e.sql) for e in recorder.examples.list("ravi")] == [
        ("ravi", "SELECT count(*) FROM orders")]
    bank.import_("ravi", payload)  # again: nothing doubled
    assert len(recorder.examples.list("ravi")) == 1

    old = {k: v for k, v in payload.items() if k != "verified_examples"}
    assert len(bank.import_("meera", old)) == 1 and recorder.examples.list("meera") == []

    bad = {**payload, "verified_examples": [{"question": "q", "sql": "SELECT 1"}]}
    with pytest.raises(InputError, match="Verified example 1"):
        bank.import_("zoe", bad)
    assert bank.list("zoe") == [] and recorder.examples.list("zoe") == []  # checked before anything is written


def test_forgetting_everything_forgets_verified_examples_and_the_log(tmp_path: Path,
                                                                      recorder: FeedbackRecorder) -> None:
    bank = MemoryBank(JsonMemoryStore(tmp_path / "memories"), FakeEmbedder(), tmp_path / "journal",
                      feedback=recorder)
    recorder.thumbs_up(USER, DB, "How many orders?", "SELECT count(*) FROM orders")
    bank.clear(USER)
    assert recorder.examples.list(USER) == [] and recorder.log.events(USER) == []
    assert not os.path.exists(recorder.examples.path(USER))



def test_services_keep_feedback_in_the_data_dir_where_the_dashboard_counts_it() -> None:
    from core.composition import Services
    from core.config import data_dir
    from core.feedback import feedback_counts

    services = Services(Settings(memory_store="json"))
    services.feedback().thumbs_up(USER, DB, "How many orders?", "SELECT count(*) FROM orders")
    services.feedback().thumbs_down(USER, DB, "How many orders?", "SELECT count(*) FROM orders")
    assert services.feedback().examples.root == data_dir() / "feedback"
    assert [(c.day, c.ups, c.downs) for c in feedback_counts()] == [(dt.date.today(), 1, 1)]
    day, ups, downs = feedback_counts(dt.date.today())[0]  # a plain (day, ups, downs) triple too
    assert (ups, downs) == (1, 1)
    assert services.bank().feedback is services.feedback()  # exported and forgotten with the memories
    assert services.few_shot().store is services.feedback().examples
    services.close()
