"""Behaviour every memory backend must show; test modules subclass MemoryStoreContract.

A subclass provides a ``make_store`` fixture: a callable returning a new store over the same backing data
(so "survives reopening" can be tested) — the JSON directory or the pgvector database.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from core.memory import ALL_DATABASES, Memory, Message
from core.memory import ConversationStore, MemoryStore
from tests.fakes.fake_embedder import FakeEmbedder

EMBEDDER = FakeEmbedder(384)

ODD_NAMES = [
    "Ålice", "alice", "ALICE", "名前", "../../etc/passwd", "a/b\\c", "..", ".", " ", "", "x" * 300,
    "CON", "x'; DROP TABLE memories; --", "emoji 🧭", "tab\tnew\nline",
]  # fmt: skip


def memory(user: str, content: str, *, database_id: str = ALL_DATABASES, **kw: Any) -> Memory:
    vector = EMBEDDER.embed_batch([content])[0]
    return Memory(user=user, category=kw.pop("category", "preference"), content=content,
                  database_id=database_id, embedding=tuple(vector.tolist()), **kw)  # fmt: skip


def query(text: str) -> list[float]:
    return EMBEDDER.embed_batch([text])[0].tolist()


class MemoryStoreContract:
    @pytest.fixture
    def store(self, make_store: Callable[[], Any]) -> Any:
        return make_store()

    def test_implements_both_protocols(self, store: Any) -> None:
        assert isinstance(store, MemoryStore)
        assert isinstance(store, ConversationStore)
        assert store.kind in ("json", "pgvector")
        assert store.describe().startswith("memory:")

    def test_put_then_list_round_trips_every_field(self, store: Any) -> None:
        m = memory("ann", "orders from India only", database_id="sales", source="chat",
                   structured={"kind": "filter", "column": "country", "value": "India"}, created_at=100.5)  # fmt: skip
        store.put(m)
        [got] = store.list("ann")
        assert got == m  # embedding is compare=False: checked separately
        assert got.embedding is not None
        assert np.allclose(got.embedding, m.embedding, atol=1e-6)

    def test_a_form_waiting_for_the_person_round_trips_with_its_readings(self, store: Any) -> None:
        readings = [{"kind": "filter", "table": "customers", "column": "city", "op": "=", "value": "Lyon",
                     "sql": "customers.city = 'Lyon'"},
                    {"kind": "filter", "table": "customers", "column": "city", "op": "IN", "value": ["Paris", "Lyon"],
                     "sql": "customers.city IN ('Paris', 'Lyon')"}]
        m = memory("ann", "move my focus from Paris to Lyon",
                   structured={"kind": "pending", "readings": readings, "why": "a switch, or both?"})
        store.put(m)
        [got] = store.list("ann")
        assert got == m and got.structured["readings"][1]["value"] == ["Paris", "Lyon"]

    def test_put_same_id_replaces(self, store: Any) -> None:
        m = memory("ann", "first text")
        store.put(m)
        store.put(m.edited(content="second text"))
        [got] = store.list("ann")
        assert got.content == "second text" and got.id == m.id

    def test_list_is_oldest_first(self, store: Any) -> None:
        for i, t in enumerate([30.0, 10.0, 20.0]):
            store.put(memory("ann", f"memory {i}", created_at=t))
        assert [m.created_at for m in store.list("ann")] == [10.0, 20.0, 30.0]

    def test_search_ranks_by_similarity(self, store: Any) -> None:
        texts = ["orders from India", "customer email address", "high value order total above 10000",
                 "payment method card", "segment of the customer"]  # fmt: skip
        for t in texts:
            store.put(memory("ann", t))
        hits = store.search("ann", query("orders from India"), k=3)
        assert len(hits) == 3
        assert hits[0].memory.content == "orders from India"
        assert hits[0].similarity == pytest.approx(1.0, abs=1e-5)
        sims = [h.similarity for h in hits]
        assert sims == sorted(sims, reverse=True)
        assert all(-1.0 - 1e-6 <= s <= 1.0 + 1e-6 for s in sims)

    def test_search_k_bounds(self, store: Any) -> None:
        store.put(memory("ann", "one"))
        store.put(memory("ann", "two"))
        assert len(store.search("ann", query("one"), k=10)) == 2
        assert store.search("ann", query("one"), k=0) == []
        assert store.search("nobody", query("one")) == []

    def test_delete_returns_how_many_existed(self, store: Any) -> None:
        a, b = memory("ann", "a"), memory("ann", "b")
        store.put(a)
        store.put(b)
        assert store.delete("ann", [a.id, "missing"]) == 1
        assert [m.id for m in store.list("ann")] == [b.id]
        assert store.delete("ann", []) == 0

    def test_clear_removes_only_memories(self, store: Any) -> None:
        store.put(memory("ann", "a"))
        store.put(memory("ann", "b"))
        store.set_summary("ann", "talked about orders")
        assert store.clear("ann") == 2
        assert store.list("ann") == []
        assert store.clear("ann") == 0
        assert store.summary("ann") == "talked about orders"

    def test_users_are_isolated_even_with_crafted_ids(self, store: Any) -> None:
        a = memory("ann", "ann's secret preference")
        store.put(a)
        assert store.list("bob") == []
        assert store.search("bob", query("ann's secret preference")) == []
        assert store.delete("bob", [a.id]) == 0
        # bob writes a memory with ann's id: it becomes bob's, ann's stays untouched
        store.put(Memory(user="bob", category="entity", content="bob's", id=a.id,
                         embedding=tuple(query("bob's"))))  # fmt: skip
        assert [m.content for m in store.list("ann")] == ["ann's secret preference"]
        assert [m.content for m in store.list("bob")] == ["bob's"]
        assert store.clear("bob") == 1
        assert len(store.list("ann")) == 1

    def test_database_scoping(self, store: Any) -> None:
        store.put(memory("ann", "sales fact", database_id="sales"))
        store.put(memory("ann", "hr fact", database_id="hr"))
        store.put(memory("ann", "global fact", database_id=ALL_DATABASES))
        assert {m.content for m in store.list("ann", database_id="sales")} == {"sales fact", "global fact"}
        assert {m.content for m in store.list("ann")} == {"sales fact", "hr fact", "global fact"}
        hits = store.search("ann", query("hr fact"), k=5, database_id="sales")
        assert {h.memory.content for h in hits} == {"sales fact", "global fact"}
        assert {h.memory.content for h in store.search("ann", query("hr fact"), k=5)} == {
            "sales fact", "hr fact", "global fact"}  # fmt: skip
        assert store.search("ann", query("x"), database_id="nowhere")[0].memory.content == "global fact"

    def test_messages_keep_last_20_and_survive_reopening(self, make_store: Callable[[], Any]) -> None:
        store = make_store()
        for i in range(25):
            store.append_message("ann", Message(role="user" if i % 2 == 0 else "assistant", content=f"m{i}",
                                                sql=f"SELECT {i}" if i % 2 else None, created_at=float(i)))  # fmt: skip
        store.append_message("bob", Message(role="user", content="bob's"))
        again = make_store()
        got = again.recent_messages("ann")
        assert [m.content for m in got] == [f"m{i}" for i in range(5, 25)]
        assert got[-1] == Message(role="user", content="m24", sql=None, created_at=24.0)
        assert got[-2].sql == "SELECT 23"
        assert [m.content for m in again.recent_messages("ann", limit=3)] == ["m22", "m23", "m24"]
        assert [m.content for m in again.recent_messages("bob")] == ["bob's"]

    def test_follow_ups_read_only_the_turns_about_this_database(self, store: Any) -> None:
        from core.memory.recall._conversation import Conversation

        talk = Conversation(store)
        talk.record("ann", "orders last week?", answer_text="12 rows", sql="SELECT * FROM orders", database_id="shop")
        talk.record("ann", "tracks per genre?", answer_text="25 rows", sql="SELECT * FROM Track", database_id="music")
        assert [m.database_id for m in store.recent_messages("ann")] == ["shop", "shop", "music", "music"]
        assert talk.prompt_lines("ann", database_id="shop") == ["Q: orders last week? -> SQL: SELECT * FROM orders"]
        assert talk.prompt_lines("ann", database_id="music") == ["Q: tracks per genre? -> SQL: SELECT * FROM Track"]
        assert talk.has_history("ann", "music") and not talk.has_history("ann", "hr")
        store.append_message("ann", Message(role="user", content="older turn, no database"))
        assert talk.has_history("ann", "hr")  # a turn that recorded no database may be about any

    def test_keep_smaller_than_default(self, store: Any) -> None:
        for i in range(5):
            store.append_message("ann", Message(role="user", content=f"m{i}"), keep=2)
        assert [m.content for m in store.recent_messages("ann")] == ["m3", "m4"]

    def test_summary_per_user_and_persistent(self, make_store: Callable[[], Any]) -> None:
        store = make_store()
        assert store.summary("ann") == ""
        store.set_summary("ann", "likes Indian orders")
        store.set_summary("ann", "likes Indian orders, 2024 only")
        store.set_summary("bob", "bob")
        assert make_store().summary("ann") == "likes Indian orders, 2024 only"

    def test_odd_user_names_are_isolated(self, store: Any) -> None:
        for name in ODD_NAMES:
            store.put(memory(name, f"memory of {name!r}"))
            store.append_message(name, Message(role="user", content=f"hello {name!r}"))
        for name in ODD_NAMES:
            assert [m.content for m in store.list(name)] == [f"memory of {name!r}"]
            assert [m.user for m in store.list(name)] == [name]
            assert [m.content for m in store.recent_messages(name)] == [f"hello {name!r}"]
            assert len(store.search(name, query("memory"), k=50)) == 1
