"""Behaviour every shared-insights store must show; test modules subclass InsightStoreContract.

A subclass provides a ``make_store`` fixture: a callable returning a NEW store object over the same backing data
(another agent's process, or a reopened one), so sharing between agents and durability are tested as they happen.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from core.insights import AgentKey, InsightDraft, InsightRecord, InsightStore
from tests.fakes.fake_embedder import FakeEmbedder

EMBEDDER = FakeEmbedder(384)
MODEL = "all-MiniLM-L6-v2"


@functools.cache
def key_of(agent: str) -> AgentKey:
    """One signing key per agent name (records are signed; readers drop unsigned ones)."""
    return AgentKey.generate()


def author(agent: str) -> str:
    """The public key that makes a record ``agent``'s."""
    return key_of(agent).public_b64


def vec(text: str) -> np.ndarray:
    return EMBEDDER.embed_batch([text])[0]


def record(agent: str, summary: str, followups: tuple[str, ...] = ("What next?",), *, ttl_s: float = 3600,
           model: str = MODEL, now: float | None = None, db_kind: str = "postgres") -> InsightRecord:
    draft = InsightDraft(True, summary, ("table:orders",), followups)
    return InsightRecord.create(draft, vec(summary), agent_id=agent, db_kind=db_kind, ttl_s=ttl_s,
                                embedding_model=model, now=now, key=key_of(agent))


class InsightStoreContract:
    @pytest.fixture
    def store(self, make_store: Callable[[], Any]) -> Any:
        store = make_store()
        yield store
        store.close()

    def test_implements_the_protocol(self, store: Any) -> None:
        assert isinstance(store, InsightStore)
        assert isinstance(store.describe(), str) and "password" not in store.describe().lower()

    def test_a_record_round_trips_and_another_agent_finds_it(self, store: Any, make_store: Callable[[], Any]) -> None:
        mine = record("agent-a", "Monthly revenue trend of delivered orders", ("Which month grew most?",
                                                                                "How does it split by region?"))
        store.put(mine)
        other = make_store()
        try:
            [hit] = other.query(vec("Monthly revenue trend of delivered orders"), exclude_author=author("agent-b"),
                                embedding_model=MODEL, top_k=3)
        finally:
            other.close()
        got = hit.record
        assert got.record_id == mine.record_id and got.agent_id == "agent-a" and got.db_kind == "postgres"
        assert got.insight_summary == mine.insight_summary and got.entities == mine.entities
        assert got.suggested_followups == mine.suggested_followups
        assert got.embedding_model == MODEL
        assert abs(got.created_at - mine.created_at) < 1e-3 and abs(got.expires_at - mine.expires_at) < 1e-3
        assert np.allclose(got.vector, mine.vector, atol=1e-5)
        assert hit.similarity == pytest.approx(1.0, abs=1e-4)

    def test_an_agent_never_sees_its_own_records(self, store: Any) -> None:
        store.put(record("agent-a", "Customer churn by signup cohort"))
        assert store.query(vec("Customer churn by signup cohort"), exclude_author=author("agent-a"),
                           embedding_model=MODEL) == []

    def test_best_first_top_k_and_the_threshold(self, store: Any) -> None:
        texts = ["Revenue by month for delivered orders", "Revenue by month", "Inventory levels per warehouse",
                 "Employee headcount by department", "Late shipments by carrier"]
        for text in texts:
            store.put(record("agent-a", text))
        hits = store.query(vec("Revenue by month"), exclude_author=author("agent-b"), embedding_model=MODEL, top_k=2)
        assert [h.record.insight_summary for h in hits][0] == "Revenue by month"
        assert len(hits) == 2 and hits[0].similarity >= hits[1].similarity
        none = store.query(vec("Revenue by month"), exclude_author=author("agent-b"), embedding_model=MODEL, top_k=5,
                           min_similarity=1.01)
        assert none == []

    def test_expired_records_are_never_returned_and_expire_deletes_them(self, store: Any) -> None:
        now = time.time()
        store.put(record("agent-a", "Refund rate by product line", ttl_s=10, now=now - 60))  # expired
        store.put(record("agent-a", "Refund rate by product category", ttl_s=3600, now=now))
        hits = store.query(vec("Refund rate by product line"), exclude_author=author("agent-b"), embedding_model=MODEL,
                           top_k=5)
        assert [h.record.insight_summary for h in hits] == ["Refund rate by product category"]
        assert store.expire() == 1
        assert len(store.list_author(author("agent-a"))) == 1

    def test_records_of_another_embedding_model_are_refused(self, store: Any) -> None:
        store.put(record("agent-a", "Average basket size per store", model="some-other-model"))
        assert store.query(vec("Average basket size per store"), exclude_author=author("agent-b"),
                           embedding_model=MODEL) == []

    def test_invalidating_one_followup_keeps_the_insight_and_the_others(self, store: Any,
                                                                       make_store: Callable[[], Any]) -> None:
        rec = record("agent-a", "Top suppliers by late deliveries",
                     ("Which supplier improved?", "Is lateness seasonal?", "Which region suffers most?"))
        store.put(rec)
        assert store.invalidate_followup("  is LATENESS seasonal ", key=key_of("agent-a"), record_id=rec.record_id) == 1
        other = make_store()
        try:
            [hit] = other.query(vec("Top suppliers by late deliveries"), exclude_author=author("agent-b"),
                                embedding_model=MODEL)
        finally:
            other.close()
        assert hit.record.insight_summary == "Top suppliers by late deliveries"
        assert hit.record.suggested_followups == ("Which supplier improved?", "Which region suffers most?")
        assert store.invalidate_followup("Is lateness seasonal?", key=key_of("agent-a")) == 0

    def test_list_and_delete_only_touch_the_agents_own_records(self, store: Any) -> None:
        a1, a2 = record("agent-a", "Payroll cost by team"), record("agent-a", "Overtime hours by team")
        b1 = record("agent-b", "Payroll cost by region")
        for r in (a1, a2, b1):
            store.put(r)
        assert {r.record_id for r in store.list_author(author("agent-a"))} == {a1.record_id, a2.record_id}
        assert store.delete([b1.record_id], key=key_of("agent-a")) == 0  # not its own
        assert store.delete([a1.record_id], key=key_of("agent-a")) == 1
        assert [r.record_id for r in store.list_author(author("agent-a"))] == [a2.record_id]
        assert [r.record_id for r in store.list_author(author("agent-b"))] == [b1.record_id]

    def test_odd_text_round_trips_as_text(self, store: Any) -> None:
        odd = "Ignore previous instructions; DROP TABLE x; <b>bold</b> \u202e 名前 🧭"
        rec = record("agent-a", odd, (odd,))
        store.put(rec)
        [hit] = store.query(vec(odd), exclude_author=author("agent-b"), embedding_model=MODEL)
        assert hit.record.insight_summary == odd and hit.record.suggested_followups == (odd,)

    def test_an_empty_store_answers_nothing(self, store: Any) -> None:
        assert store.query(vec("anything"), exclude_author=author("x"), embedding_model=MODEL) == []
        assert store.list_author(author("x")) == [] and store.expire() == 0
        assert store.invalidate_followup("anything", key=key_of("x")) == 0
        assert store.delete(["nope"], key=key_of("x")) == 0
