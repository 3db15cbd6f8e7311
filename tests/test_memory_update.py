"""Phase 2 (ADD / UPDATE / DELETE / NOOP) and retractions, with the real MiniLM where similarity matters."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from core.errors import EmbeddingModelMissing, LLMTimeout, MemoryStoreError
from core.memory import MiniLMEmbedder
from core.memory import Fact
from core.memory.cycle._forget import forget, retraction_object
from core.memory import Memory
from core.memory import MemoryStore
from core.memory import JsonMemoryStore
from core.memory.cycle._update import UpdateReport, apply_fact, parse_decision
from core.schema import Column, Schema, Table
from tests.fakes.fake_embedder import FakeEmbedder
from tests.fakes.in_memory_store import InMemoryStore
from tests.fakes.scripted_llm import ScriptedLLM

SCHEMA = Schema(
    "postgres",
    (
        Table("customers", (Column("customer_id", "integer"),
                            Column("country", "text", value_hints=("India", "Germany", "Nepal")),
                            Column("segment", "text", value_hints=("retail", "wholesale")))),
        Table("orders", (Column("order_id", "integer"),
                         Column("status", "text", value_hints=("delivered", "cancelled", "returned")),
                         Column("total_amount", "numeric"))),
    ),
)  # fmt: skip
USER, DB = "priya", "shop"


class CachedEmbedder:
    """The real MiniLM, each distinct text embedded once per module (the tests repeat their sentences)."""

    def __init__(self, inner: MiniLMEmbedder) -> None:
        self.inner = inner
        self.dims = inner.dims
        self.cache: dict[str, np.ndarray] = {}

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if missing:
            self.cache.update(zip(missing, self.inner.embed_batch(missing), strict=True))
        return np.stack([self.cache[t] for t in texts]) if texts else self.inner.embed_batch([])


@pytest.fixture(scope="module")
def minilm() -> CachedEmbedder:
    embedder = MiniLMEmbedder()
    try:
        embedder.warm_up()
    except EmbeddingModelMissing as exc:  # pragma: no cover - the wheel is a dependency
        pytest.skip(str(exc))
    return CachedEmbedder(embedder)


@pytest.fixture(params=["memory", "json"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MemoryStore]:
    if request.param == "memory":
        yield InMemoryStore()
    else:
        json_store = JsonMemoryStore(tmp_path / "mem")
        yield json_store
        json_store.close()


class TableEmbedder:
    """Fixed vectors per text, so a test can place two facts at an exact similarity."""

    dims = 3

    def __init__(self, vectors: dict[str, Sequence[float]]) -> None:
        self.vectors = {k: np.asarray(v, dtype=np.float32) / np.linalg.norm(v) for k, v in vectors.items()}

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self.vectors.get(t, np.asarray([0, 0, 1], dtype=np.float32)) for t in texts])


def at(similarity: float) -> list[float]:
    """A unit vector with ``similarity`` to (1, 0, 0)."""
    return [similarity, float(np.sqrt(1 - similarity**2)), 0.0]


def apply(fact: Fact, store: MemoryStore, embedder: object, llm: ScriptedLLM | None = None,
          schema: Schema | None = SCHEMA, user: str = USER) -> UpdateReport:  # fmt: skip
    return apply_fact(fact, user=user, database_id=DB, store=store, embedder=embedder,  # type: ignore[arg-type]
                      llm=llm, schema=schema, source="chat")  # fmt: skip


def cosine(embedder: CachedEmbedder, a: str, b: str) -> float:
    va, vb = embedder.embed_batch([a, b])
    return float(va @ vb)


# --- the seed's walk-through and the measured MiniLM traps --------------------------------------------------


@pytest.mark.slow
def test_seed_walk_through(store: MemoryStore, minilm: CachedEmbedder) -> None:
    llm = ScriptedLLM()  # never consulted: every decision below is structural or clearly apart
    r1 = apply(Fact("preference", "Always show me customers from India"), store, minilm, llm)
    assert r1.operation == "ADD" and r1.after[0].structured is not None
    assert r1.after[0].structured["sql"] == "customers.country = 'India'"
    r2 = apply(Fact("terminology", "High value order means total amount over 10000"), store, minilm, llm)
    assert r2.operation == "ADD" and r2.after[0].structured["sql"] == "orders.total_amount > 10000"  # type: ignore[index]
    r3 = apply(Fact("preference", "Actually, only show customers from Germany"), store, minilm, llm)
    assert r3.operation == "DELETE"
    assert r3.before == (r1.after[0],) and r3.after[0].structured["value"] == "Germany"  # type: ignore[index]
    assert r3.memory_ids == (r1.after[0].id, r3.after[0].id)
    contents = sorted(m.content for m in store.list(USER, database_id=DB))
    assert contents == ["Actually, only show customers from Germany", "High value order means total amount over 10000"]
    assert llm.history == []


@pytest.mark.slow
def test_redefined_threshold_replaces_despite_high_similarity(minilm: CachedEmbedder) -> None:
    store = InMemoryStore()
    old, new = "high value order = total > 10000", "high value order = total > 50000"
    assert cosine(minilm, old, new) > 0.90  # the bands alone would throw the new value away (~0.95)
    first = apply(Fact("terminology", old), store, minilm)
    report = apply(Fact("terminology", new), store, minilm)
    assert report.operation == "DELETE" and report.before == first.after
    [kept] = store.list(USER)
    assert kept.content == new and kept.structured["sql"] == "orders.total_amount > 50000"  # type: ignore[index]


@pytest.mark.slow
def test_other_currency_replaces_despite_low_similarity(minilm: CachedEmbedder) -> None:
    store = InMemoryStore()
    assert cosine(minilm, "show amounts in INR", "show amounts in USD") < 0.70  # the bands would keep both
    apply(Fact("preference", "show amounts in INR"), store, minilm)
    report = apply(Fact("preference", "show amounts in USD"), store, minilm)
    assert report.operation == "DELETE"
    assert [m.content for m in store.list(USER)] == ["show amounts in USD"]


@pytest.mark.slow
def test_same_currency_in_other_words_is_a_duplicate(minilm: CachedEmbedder) -> None:
    store = InMemoryStore()
    assert cosine(minilm, "show amounts in INR", "show amounts in Indian rupees") < 0.70  # the bands would ADD
    apply(Fact("preference", "show amounts in INR"), store, minilm)
    report = apply(Fact("preference", "show amounts in Indian rupees"), store, minilm)
    assert report.operation == "NOOP" and "currency" in report.reason
    assert [m.content for m in store.list(USER)] == ["show amounts in INR"]


@pytest.mark.slow
def test_also_include_widens_the_filter(minilm: CachedEmbedder) -> None:
    store = InMemoryStore()
    first = apply(Fact("preference", "only show customers from India"), store, minilm).after[0]
    report = apply(Fact("preference", "also include customers from Nepal"), store, minilm)
    assert report.operation == "UPDATE" and report.memory_ids == (first.id,)
    [kept] = store.list(USER)
    assert kept.id == first.id and kept.created_at == first.created_at
    assert kept.structured["op"] == "IN" and kept.structured["value"] == ["India", "Nepal"]  # type: ignore[index]
    assert kept.structured["sql"] == "customers.country IN ('India', 'Nepal')"  # type: ignore[index]
    assert "Nepal" in kept.content and "India" in kept.content
    assert kept.embedding is not None and first.embedding is not None
    assert not np.allclose(kept.embedding, first.embedding)  # re-embedded
    again = apply(Fact("preference", "also include Nepal customers"), store, minilm)
    assert again.operation == "NOOP"


@pytest.mark.slow
def test_same_structure_in_other_words_is_noop(minilm: CachedEmbedder) -> None:
    store = InMemoryStore()
    apply(Fact("preference", "Always show me customers from India"), store, minilm)
    writes = store.writes
    report = apply(Fact("preference", "country = 'India'"), store, minilm)
    assert report.operation == "NOOP" and store.writes == writes


def test_exclusions_accumulate_and_bounds_form_a_range() -> None:
    store, emb = InMemoryStore(), FakeEmbedder()
    apply(Fact("preference", "exclude cancelled orders"), store, emb)
    report = apply(Fact("preference", "also hide returned orders"), store, emb)
    assert report.operation == "UPDATE"
    assert report.after[0].structured["op"] == "NOT IN"  # type: ignore[index]
    apply(Fact("preference", "only orders with total amount over 500"), store, emb)
    report = apply(Fact("preference", "and total amount under 10000"), store, emb)
    assert report.operation == "ADD" and len(store.list(USER)) == 3


def test_redefined_term_without_schema_compares_definitions() -> None:
    store, emb = InMemoryStore(), FakeEmbedder()
    apply(Fact("terminology", "big spender means more than 10 orders"), store, emb, schema=None)
    assert apply(Fact("terminology", "Big spenders means more than 10 orders"), store, emb,
                 schema=None).operation == "NOOP"  # fmt: skip
    assert apply(Fact("terminology", "big spender means more than 20 orders"), store, emb,
                 schema=None).operation == "DELETE"  # fmt: skip


# --- the similarity bands (controlled vectors) ---------------------------------------------------------------


def banded(
    similarity: float, *replies: str | Exception, with_llm: bool = True
) -> tuple[UpdateReport, InMemoryStore, ScriptedLLM]:
    old, new = "likes weekly summaries", "prefers weekly digests"
    emb = TableEmbedder({old: [1, 0, 0], new: at(similarity), f"{old}; {new}": [0.9, 0.1, 0]})
    store = InMemoryStore()
    apply(Fact("preference", old), store, emb)
    llm = ScriptedLLM(*replies)  # type: ignore[arg-type]
    return apply(Fact("preference", new), store, emb, llm if with_llm else None), store, llm


def test_above_095_is_noop_without_asking() -> None:
    report, store, llm = banded(0.97)
    assert report.operation == "NOOP" and llm.history == [] and len(store.list(USER)) == 1


def test_below_070_is_add_without_asking() -> None:
    report, store, llm = banded(0.5)
    assert report.operation == "ADD" and llm.history == [] and len(store.list(USER)) == 2


def test_middle_band_asks_the_seed_prompt() -> None:
    report, store, llm = banded(0.8, "UPDATE")
    prompt = llm.history[0].user
    assert "Existing: \"likes weekly summaries\"" in prompt and "New: \"prefers weekly digests\"" in prompt
    assert "Respond with exactly one word" in prompt and prompt.rstrip().endswith("Decision:")
    assert report.operation == "UPDATE"
    [kept] = store.list(USER)
    assert kept.content == "likes weekly summaries; prefers weekly digests" and kept.id == report.memory_ids[0]


def test_middle_band_delete_replaces() -> None:
    report, store, _ = banded(0.8, "  delete\n")
    assert report.operation == "DELETE"
    assert [m.content for m in store.list(USER)] == ["prefers weekly digests"]


@pytest.mark.parametrize("reply", ["NOOP", "I think UPDATE", "MERGE", ""])
def test_middle_band_anything_else_is_noop(reply: str) -> None:
    report, store, _ = banded(0.8, reply)
    assert report.operation == "NOOP" and len(store.list(USER)) == 1


def test_middle_band_without_a_model_is_noop() -> None:
    report, store, _ = banded(0.8, with_llm=False)
    assert report.operation == "NOOP" and "no model" in report.reason
    report, store, _ = banded(0.8, LLMTimeout("slow"))
    assert report.operation == "NOOP" and len(store.list(USER)) == 1


def test_different_structured_slots_never_merge() -> None:
    a, b = "only retail customers", "exclude cancelled orders"
    emb = TableEmbedder({a: [1, 0, 0], b: at(0.9)})
    store = InMemoryStore()
    apply(Fact("preference", a), store, emb)
    report = apply(Fact("preference", b), store, emb, ScriptedLLM())
    assert report.operation == "ADD" and len(store.list(USER)) == 2


def test_parse_decision() -> None:
    assert parse_decision(" update ") == "UPDATE" and parse_decision("DELETE.") == "DELETE"
    assert parse_decision("noop") == "NOOP" and parse_decision("DELETE it") == "NOOP"


# --- isolation and failure ----------------------------------------------------------------------------------


def test_other_users_memories_are_invisible(store: MemoryStore) -> None:
    emb = FakeEmbedder()
    apply(Fact("preference", "only customers from India"), store, emb, user="rahul")
    report = apply(Fact("preference", "only customers from India"), store, emb)
    assert report.operation == "ADD"
    report = apply(Fact("preference", "only customers from Germany"), store, emb)
    assert report.operation == "DELETE"
    assert [m.structured["value"] for m in store.list("rahul")] == ["India"]  # type: ignore[index]


class FailingDeleteStore(InMemoryStore):
    def delete(self, user: str, memory_ids: Sequence[str]) -> int:
        if self.fail:
            self.fail = False  # the rollback's own delete goes through
            raise MemoryStoreError("disk full")
        return super().delete(user, memory_ids)

    fail = False


def test_failed_replace_leaves_the_store_unchanged() -> None:
    store, emb = FailingDeleteStore(), FakeEmbedder()
    apply(Fact("preference", "only customers from India"), store, emb)
    before = store.list(USER)
    store.fail = True
    with pytest.raises(MemoryStoreError):
        apply(Fact("preference", "only customers from Germany"), store, emb)
    assert store.list(USER) == before


class BrokenAfter(FakeEmbedder):
    """Embeds the first ``n`` calls, then fails (the model went away between two steps)."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.left = n

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        if self.left <= 0:
            raise EmbeddingModelMissing("gone")
        self.left -= 1
        return super().embed_batch(texts)


def test_failed_reembedding_writes_nothing() -> None:
    store = InMemoryStore()
    apply(Fact("preference", "only customers from India"), store, FakeEmbedder())
    before = store.list(USER)
    with pytest.raises(EmbeddingModelMissing):
        apply(Fact("preference", "also include customers from Nepal"), store, BrokenAfter(1))
    assert store.list(USER) == before


# --- forget -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "obj"),
    [
        ("I no longer care about India", "India"),
        ("forget the INR rule", "INR"),
        ("Stop filtering by country", "country"),
        ("Please drop the high value order definition.", "high value order"),
        ("never mind the weekly summaries", "weekly summaries"),
    ],
)
def test_retraction_object(message: str, obj: str) -> None:
    assert retraction_object(message) == obj


def seeded(store: MemoryStore, emb: object) -> dict[str, Memory]:
    out = {}
    for key, fact in {
        "india": Fact("preference", "Always show me customers from India"),
        "inr": Fact("preference", "show amounts in INR"),
        "hvo": Fact("terminology", "High value order means total amount over 10000"),
        "status": Fact("preference", "exclude cancelled orders"),
    }.items():
        out[key] = apply(fact, store, emb).after[0]
    return out


@pytest.mark.parametrize(
    ("message", "gone"),
    [
        ("I no longer care about India", "india"),
        ("I don't care about Indian customers any more", "india"),
        ("forget the INR rule", "inr"),
        ("Stop filtering by country", "india"),
        ("drop the high value order definition", "hvo"),
        ("forget about high value orders", "hvo"),
        ("stop hiding cancelled orders", "status"),
    ],
)
def test_forget_by_structure(store: MemoryStore, message: str, gone: str) -> None:
    emb = FakeEmbedder()
    mems = seeded(store, emb)
    report = forget(message, user=USER, database_id=DB, store=store, embedder=emb, schema=SCHEMA)
    assert report.operation == "DELETE" and report.memory_ids == (mems[gone].id,) and report.after == ()
    assert {m.id for m in store.list(USER)} == {m.id for k, m in mems.items() if k != gone}


def test_forget_narrows_a_multi_value_filter() -> None:
    store, emb = InMemoryStore(), FakeEmbedder()
    apply(Fact("preference", "only customers from India and Nepal"), store, emb)
    report = forget("I no longer care about Nepal", user=USER, database_id=DB, store=store, embedder=emb,
                    schema=SCHEMA)  # fmt: skip
    assert report.operation == "UPDATE"
    [kept] = store.list(USER)
    assert kept.structured["sql"] == "customers.country = 'India'"  # type: ignore[index]


@pytest.mark.slow
def test_forget_by_similarity_and_noop(minilm: CachedEmbedder) -> None:
    store = InMemoryStore()
    apply(Fact("preference", "Show amounts rounded to two decimals"), store, minilm, schema=None)
    apply(Fact("preference", "Always show me customers from India"), store, minilm)
    report = forget("forget the rounding", user=USER, database_id=DB, store=store, embedder=minilm,
                    schema=SCHEMA)  # fmt: skip
    assert report.operation == "DELETE" and "similarity" in report.reason
    assert [m.content for m in store.list(USER)] == ["Always show me customers from India"]
    report = forget("forget about the weather", user=USER, database_id=DB, store=store, embedder=minilm,
                    schema=SCHEMA)  # fmt: skip
    assert report.operation == "NOOP" and "weather" in report.reason and len(store.list(USER)) == 1


def test_forget_touches_only_this_user() -> None:
    store, emb = InMemoryStore(), FakeEmbedder()
    apply(Fact("preference", "only customers from India"), store, emb, user="rahul")
    report = forget("I no longer care about India", user=USER, database_id=DB, store=store, embedder=emb,
                    schema=SCHEMA)  # fmt: skip
    assert report.operation == "NOOP" and len(store.list("rahul")) == 1


# --- statements read against what is already saved (no model: the rules and forms alone) ---------------------

_RICH = Schema("postgres", (
    Table("customers", (Column("customer_id", "integer"), Column("name", "text"), Column("email", "text"),
                        Column("city", "text"),
                        Column("country", "text", value_hints=("India", "Germany", "Brazil", "Portugal")))),
    Table("orders", (Column("order_id", "integer"), Column("order_date", "date"),
                     Column("status", "text", value_hints=("delivered", "cancelled", "returned")),
                     Column("total_amount", "numeric"))),
))  # fmt: skip


def _cycle(minilm: CachedEmbedder, tmp_path: Path, *statements: tuple[str, str]) -> tuple[UpdateReport, list[Memory]]:
    store = JsonMemoryStore(tmp_path / "cycle")
    report = None
    for category, content in statements:
        report = apply_fact(Fact(category, content), user=USER, database_id=DB, store=store,  # type: ignore[arg-type]
                            embedder=minilm, llm=None, schema=_RICH, source="test")
    assert report is not None
    return report, store.list(USER, database_id=DB)


def test_a_value_alone_extends_the_standing_filter_it_belongs_to(minilm: CachedEmbedder, tmp_path: Path) -> None:
    report, mems = _cycle(minilm, tmp_path, ("preference", "Exclude customers from Brazil."),
                          ("preference", "Also exclude Portugal."))
    assert report.operation == "UPDATE" and len(mems) == 1
    assert mems[0].structured and mems[0].structured["op"] == "NOT IN"
    assert sorted(mems[0].structured["value"]) == ["Brazil", "Portugal"]


def test_two_excluded_email_patterns_both_stay_out(minilm: CachedEmbedder, tmp_path: Path) -> None:
    report, mems = _cycle(minilm, tmp_path,
                          ("preference", "Leave out customers whose email ends in @test.example.com."),
                          ("preference", "Also leave out emails ending in @demo.example.com."))
    assert report.operation == "UPDATE" and len(mems) == 1
    st = mems[0].structured or {}
    assert st["op"] == "NOT LIKE" and len(st["value"]) == 2 and " AND " in st["sql"]


def test_columns_shown_together_accumulate(minilm: CachedEmbedder, tmp_path: Path) -> None:
    report, mems = _cycle(minilm, tmp_path,
                          ("preference", "Always show the customer's email next to their name."),
                          ("preference", "Along with the email, also show the city next to the customer name."))
    assert report.operation == "UPDATE" and len(mems) == 1
    assert (mems[0].structured or {})["add"] == ["email", "city"]


def test_the_same_metric_under_another_name_is_one_memory(minilm: CachedEmbedder, tmp_path: Path) -> None:
    report, mems = _cycle(minilm, tmp_path, ("metric", "AOV = total revenue divided by the number of orders."),
                          ("metric", "average order value means total sales divided by the order count"))
    assert report.operation == "NOOP" and len(mems) == 1


def test_a_window_without_a_table_changes_the_saved_window(minilm: CachedEmbedder, tmp_path: Path) -> None:
    report, mems = _cycle(minilm, tmp_path, ("preference", "Default period: orders from the last 2 years."),
                          ("preference", "default time range last 1 year kar do"))
    assert report.operation == "DELETE" and len(mems) == 1
    assert (mems[0].structured or {}).get("amount") == 1


def test_an_entity_grows_with_also_and_is_replaced_with_now_only(minilm: CachedEmbedder, tmp_path: Path) -> None:
    report, mems = _cycle(minilm, tmp_path, ("entity", "My key accounts are customers 17 and 42."),
                          ("entity", "customer 108 is also one of my key accounts"))
    assert report.operation == "UPDATE" and len(mems) == 1 and "108" in mems[0].content
    report, mems = _cycle(minilm, tmp_path / "b", ("entity", "My key accounts are customers 17, 42 and 108."),
                          ("entity", "My key accounts are now only customers 5 and 9."))
    assert report.operation == "DELETE" and len(mems) == 1 and "5 and 9" in mems[0].content


def test_more_than_n_rows_is_a_row_limit(minilm: CachedEmbedder, tmp_path: Path) -> None:
    report, mems = _cycle(minilm, tmp_path, ("preference", "Never show more than 20 rows."),
                          ("preference", "max 20 rows pls"))
    assert report.operation == "NOOP" and (mems[0].structured or {}) == {"kind": "limit", "value": 20}


def test_including_several_values_again_lifts_each_from_the_exclusion(minilm: CachedEmbedder, tmp_path: Path) -> None:
    report, mems = _cycle(minilm, tmp_path, ("preference", "Exclude cancelled and returned orders."),
                          ("preference", "go ahead and include cancelled and returned orders again from now on"))
    assert report.operation == "DELETE" and len(mems) == 1
    assert (mems[0].structured or {}).get("kind") == "include"  # nothing excluded any more


def test_more_values_for_a_saved_list_term_extend_it(minilm: CachedEmbedder, tmp_path: Path) -> None:
    schema_cities = Schema("postgres", (Table("customers", (
        Column("customer_id", "integer"),
        Column("city", "text", value_hints=("Mumbai", "Delhi", "Kolkata", "Pune", "Berlin")))),))  # fmt: skip
    store = JsonMemoryStore(tmp_path / "terms")
    for text in ("Metro cities are Mumbai and Delhi.", "Kolkata should also count as a metro city."):
        report = apply_fact(Fact("terminology", text), user=USER, database_id=DB, store=store, embedder=minilm,
                            llm=None, schema=schema_cities, source="test")
    mems = store.list(USER, database_id=DB)
    assert report.operation == "UPDATE" and len(mems) == 1
    assert (mems[0].structured or {})["sql"] == "customers.city IN ('Mumbai', 'Delhi', 'Kolkata')"


def test_the_same_window_in_other_units_is_a_noop(minilm: CachedEmbedder, tmp_path: Path) -> None:
    report, mems = _cycle(minilm, tmp_path, ("preference", "Default period: orders from the last 90 days."),
                          ("preference", "Use the past 3 months of orders as the default window."))
    assert report.operation == "NOOP" and len(mems) == 1


def test_an_unreadable_restatement_keeps_the_understood_definition(minilm: CachedEmbedder, tmp_path: Path) -> None:
    report, mems = _cycle(minilm, tmp_path, ("metric", "Cancellation rate = cancelled orders / all orders."),
                          ("metric", "cancellation rate matlab total orders mein se cancelled ka ratio"))
    assert report.operation == "NOOP" and len(mems) == 1 and (mems[0].structured or {}).get("sql")


def test_an_entity_said_again_by_its_handle_is_one_memory(minilm: CachedEmbedder, tmp_path: Path) -> None:
    report, mems = _cycle(minilm, tmp_path, ("entity", "My key accounts are Aarav Shah and Priya Nair."),
                          ("entity", "Rohan Mehta is also one of my key accounts."))
    assert report.operation == "UPDATE" and len(mems) == 1 and "Rohan Mehta" in mems[0].content
    report, mems = _cycle(minilm, tmp_path / "b", ("entity", "My key accounts are customers 17, 42 and 108."),
                          ("entity", "my key accounts: customer ids 17, 42 & 108"))
    assert report.operation == "NOOP" and len(mems) == 1
    report, mems = _cycle(minilm, tmp_path / "c", ("entity", "My key accounts are Aarav Shah and Priya Nair."),
                          ("entity", "I look after the Pune territory."))
    assert report.operation == "ADD" and len(mems) == 2  # another entity


def test_an_added_condition_for_a_saved_term_is_anded_in(minilm: CachedEmbedder, tmp_path: Path) -> None:
    report, mems = _cycle(minilm, tmp_path, ("terminology", "A big order is any order with total_amount above 5000."),
                          ("terminology", "Big orders should also leave out cancelled ones."))
    assert report.operation == "UPDATE" and len(mems) == 1
    assert (mems[0].structured or {})["sql"] == (
        "(orders.total_amount > 5000) AND (orders.status <> 'cancelled')")


def test_a_metric_redefined_with_should_be_replaces_it(minilm: CachedEmbedder, tmp_path: Path) -> None:
    report, mems = _cycle(minilm, tmp_path, ("metric", "AOV = total revenue divided by the number of orders."),
                          ("metric", "AOV should be total revenue divided by the number of delivered orders."))
    assert report.operation == "DELETE" and len(mems) == 1 and "delivered" in (mems[0].structured or {}).get("sql", "")


# --- a second statement about one saved definition (no model: the rules alone) -------------------------------


@pytest.mark.parametrize(("old", "new"), [
    ("A whale spends over 20000 in total.", "whale now means over 50000 lifetime"),
    ("A lapsed customer has no order in 6 months.", "lapsed should be 12 months without an order"),
    ("Basket size = average orders.total_amount.", "Basket size means number of orders per customer, not the amount."),
])  # fmt: skip
def test_a_new_definition_of_a_saved_name_replaces_it(minilm: CachedEmbedder, tmp_path: Path, old: str,
                                                       new: str) -> None:
    report, mems = _cycle(minilm, tmp_path, ("terminology", old), ("terminology", new))
    assert report.operation == "DELETE" and [m.content for m in mems] == [new]


@pytest.mark.parametrize(("old", "new"), [
    ("AOV = average total_amount over delivered orders.", "AOV matlab delivered orders ka average total_amount"),
    ("VIP = customer with 10+ orders.", "VIP matlab jinke 10 se zyada orders"),
    ("Nordics means Norway, Sweden, Denmark and Finland.", "When I say Nordics: Denmark, Finland, Norway, Sweden."),
])  # fmt: skip
def test_a_definition_said_again_in_other_words_is_one_memory(minilm: CachedEmbedder, tmp_path: Path, old: str,
                                                               new: str) -> None:
    report, mems = _cycle(minilm, tmp_path, ("terminology", old), ("terminology", new))
    assert report.operation == "NOOP" and [m.content for m in mems] == [old]


def test_a_detail_for_a_saved_term_is_kept_with_it_as_words(minilm: CachedEmbedder, tmp_path: Path) -> None:
    report, mems = _cycle(minilm, tmp_path, ("terminology", "A whale is a customer whose orders total over 50000."),
                          ("terminology", "for whales only count delivered orders toward the 50000"))
    assert report.operation == "UPDATE" and len(mems) == 1
    assert "delivered" in mems[0].content and "over 50000" in mems[0].content
    assert not (mems[0].structured or {}).get("sql")  # the saved SQL no longer says all of it: used as context


@pytest.mark.parametrize(("old", "new", "same"), [
    ("VIP = 10+ orders.", "VIP means under 10 orders", False),
    ("Revenue = SUM(UnitPrice * Quantity).", "revenue matlab UnitPrice times Quantity ka sum", True),
    ("Long track = over 6 minutes.", "long track = over 6 minutes and not a video", False),
    ("Long track = over 6 minutes.", "long track should be over 6 minutes", False),
])  # fmt: skip
def test_restates_compares_numbers_words_and_comparisons(old: str, new: str, same: bool) -> None:
    from core.memory.cycle._sameness import restates

    assert restates(old, new, "x") is same


# --- withdrawals in everyday words ----------------------------------------------------------------------------


@pytest.mark.parametrize("message", [
    "videos wala filter hata do",
    "you can include videos again, drop that rule",
    "forget my artists list, I'm not on that roster anymore",
])  # fmt: skip
def test_a_withdrawal_finds_a_words_only_memory_past_its_verbs(message: str) -> None:
    store, emb = InMemoryStore(), FakeEmbedder()
    kept = apply(Fact("preference", "Round money to whole dollars."), store, emb, schema=None)
    for text in ("Ignore video tracks.", "My artists are Iron Maiden and Metallica."):
        apply(Fact("preference", text), store, emb, schema=None)
    report = forget(message, user=USER, database_id=DB, store=store, embedder=emb, schema=None)
    assert report.operation == "DELETE" and len(report.before) == 1
    assert kept.after[0].id in {m.id for m in store.list(USER)} and len(store.list(USER)) == 2


def test_a_withdrawal_that_names_two_memories_equally_forgets_neither() -> None:
    store, emb = InMemoryStore(), FakeEmbedder()
    for text in ("Ignore video tracks.", "Show video durations in minutes."):
        apply(Fact("preference", text), store, emb, schema=None)
    report = forget("videos wala rule hata do", user=USER, database_id=DB, store=store, embedder=emb,
                    schema=None)  # fmt: skip
    assert report.operation == "NOOP" and len(store.list(USER)) == 2


def test_no_decimals_any_more_is_a_new_setting_not_none(minilm: CachedEmbedder) -> None:
    store = InMemoryStore()
    apply(Fact("preference", "Show amounts with 2 decimals."), store, minilm, schema=SCHEMA)
    report = forget("no decimals anymore, round everything", user=USER, database_id=DB, store=store,
                    embedder=minilm, schema=SCHEMA)  # fmt: skip
    [m] = store.list(USER)
    assert report.operation == "DELETE" and report.after and (m.structured or {}).get("value") == 0


def test_a_dry_run_forgets_nothing() -> None:
    store, emb = InMemoryStore(), FakeEmbedder()
    apply(Fact("preference", "only customers from India"), store, emb)
    report = forget("I no longer care about India", user=USER, database_id=DB, store=store, embedder=emb,
                    schema=SCHEMA, dry_run=True)  # fmt: skip
    assert report.operation == "DELETE" and len(store.list(USER)) == 1


@pytest.mark.parametrize(("old", "new", "agree"), [
    ("show the top five products", "show the top 5 products", True),
    ("show the top five products", "show the top ten products", False),
    ("orders over twenty", "orders over 20", True),
    ("a report per customer", "reports per customer", True),  # "a" names no number
    ("region 7 only", "region 8 only", False),
])
def test_numbers_written_as_words_are_numbers(old: str, new: str, agree: bool) -> None:
    from core.memory.cycle._sameness import numbers_agree

    assert numbers_agree(old, new) is agree


def test_a_statement_differing_only_in_a_number_word_is_never_dropped_as_the_same() -> None:
    old, new = "always show the top five products", "always show the top ten products"
    emb = TableEmbedder({old: [1, 0, 0], new: at(0.97), f"{old}; {new}": [0.9, 0.1, 0]})
    store = InMemoryStore()
    apply(Fact("preference", old), store, emb)
    llm = ScriptedLLM("DELETE")
    report = apply(Fact("preference", new), store, emb, llm)  # type: ignore[arg-type]
    assert len(llm.history) == 1  # the model judges it: not "the same as an existing memory" unasked
    assert report.operation == "DELETE" and [m.content for m in store.list(USER)] == [new]
