"""Retrieval quality of recall_memories with the real all-MiniLM-L6-v2, on one analyst's memory bank.

The bank and every question were written for this test (none come from the evaluation sets). Each related
question says which memory it should surface and is worded differently from it (a synonym of a term, a metric
asked about indirectly, an entity value named). Unrelated questions read the same tables but need none of the
memories: they measure how much noise similarity lets through. A second, held-out group was written before
recall.py was tuned and is only held to looser floors, so the figures printed for it are honest.

Run with ``-s`` to see the per-question table and the figures.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from core.errors import EmbeddingModelMissing
from core.memory import MiniLMEmbedder
from core.memory import Fact
from core.memory import Memory
from core.memory.recall._recall import TOP_K, Recall, recall_memories
from core.memory import JsonMemoryStore
from core.memory.forms._structured import structure
from core.schema import Column, Schema, Table

pytestmark = pytest.mark.slow

USER = "priya"
DB = "shop"
TABLES = ["customers", "orders"]

CUSTOMERS = Table(
    "customers",
    (
        Column("customer_id", "integer"),
        Column("name", "text"),
        Column("email", "text"),
        Column("city", "text", value_hints=("Mumbai", "Bangalore", "Berlin", "Kathmandu", "Paris")),
        Column("country", "text", value_hints=("India", "Germany", "Nepal", "United States", "France")),
        Column("segment", "text", value_hints=("retail", "wholesale", "corporate")),
    ),
    primary_key=("customer_id",),
)
ORDERS = Table(
    "orders",
    (
        Column("order_id", "integer"),
        Column("customer_id", "integer"),
        Column("status", "text", value_hints=("delivered", "shipped", "pending", "cancelled", "returned")),
        Column("order_date", "date"),
        Column("total_amount", "numeric(12,2)"),
        Column("payment_method", "text", value_hints=("credit_card", "upi", "paypal", "cash_on_delivery")),
    ),
    primary_key=("order_id",),
)
SCHEMA = Schema("postgres", (CUSTOMERS, ORDERS), database_id=DB)

# key -> (category, what the person said, as the extraction step would store it)
BANK: dict[str, tuple[str, str]] = {
    "india": ("preference", "Only show customers from India"),
    "no_cancelled": ("preference", "Exclude cancelled orders"),
    "inr": ("preference", "Show all money amounts in Indian rupees"),
    "high_value": ("terminology", "A high value order is an order with total amount over 10000"),
    "repeat": ("terminology", "Repeat customers are customers with more than one order"),
    "wallet": ("terminology", "Digital wallet payments means payment method upi or paypal"),
    "churned": ("terminology", "Churned customers are customers with no orders in the last 180 days"),
    "aov": ("metric", "Average order value is the total amount divided by the number of orders"),
    "revenue": ("metric", "Revenue is the sum of total amount over delivered orders"),
    "cancel_rate": ("metric", "Cancellation rate is cancelled orders divided by all orders"),
    "clv": ("metric", "Customer lifetime value is the total amount a customer has spent across all their orders"),
    "flagship": ("entity", "Mumbai and Bangalore are our two flagship cities"),
    "key_accounts": ("entity", "The corporate segment is handled by my key accounts team"),
    "pay_method": ("entity", "I regularly check the payment_method column of orders"),
}
FILTERS = ("india", "no_cancelled")

# (question, the memory it must surface)
RELATED: list[tuple[str, str]] = [
    ("How many big-ticket orders did we get in March?", "high_value"),
    ("List orders worth more than ten thousand", "high_value"),
    ("Which customers placed high-value orders last year?", "high_value"),
    ("Show me customers who came back and ordered again", "repeat"),
    ("How many returning customers do we have?", "repeat"),
    ("Who are our loyal buyers with multiple purchases?", "repeat"),
    ("How much was paid through e-wallets last month?", "wallet"),
    ("Count orders paid with UPI or PayPal", "wallet"),
    ("Which customers have we lost recently?", "churned"),
    ("List customers who stopped ordering", "churned"),
    ("How many lapsed customers are in Germany?", "churned"),
    ("What is the typical basket size per order?", "aov"),
    ("What's the mean spend per order this quarter?", "aov"),
    ("Show the average order value by segment", "aov"),
    ("How much did we earn last month?", "revenue"),
    ("What were total sales by city in 2024?", "revenue"),
    ("Give me the revenue trend per month", "revenue"),
    ("What share of orders get cancelled?", "cancel_rate"),
    ("What percentage of orders were called off each month?", "cancel_rate"),
    ("How much is each customer worth over their whole history?", "clv"),
    ("Rank customers by total spend across all time", "clv"),
    ("How are sales in our flagship cities?", "flagship"),
    ("Compare order counts between Mumbai and Bangalore", "flagship"),
    ("Top customers in Bangalore by spend", "flagship"),
    ("How many orders came from key accounts?", "key_accounts"),
    ("List corporate segment customers with pending orders", "key_accounts"),
    ("Which payment methods are most popular?", "pay_method"),
    ("Break down orders by how customers paid", "pay_method"),
    ("What is the total order amount in rupees?", "inr"),
    ("How much did customers spend, in INR?", "inr"),
]

# Questions that need two or three memories at once.
MULTI: list[tuple[str, tuple[str, ...]]] = [
    ("What is the average order value for repeat customers?", ("aov", "repeat")),
    ("Revenue from high value orders in our flagship cities", ("revenue", "high_value", "flagship")),
    ("How much do returning customers spend per order on average?", ("repeat", "aov")),
    ("Cancellation rate for digital wallet payments", ("cancel_rate", "wallet")),
    ("Lifetime value of corporate customers", ("clv", "key_accounts")),
    ("Which churned customers spent the most over their lifetime?", ("churned", "clv")),
    ("Revenue per payment method", ("revenue", "pay_method")),
]

UNRELATED: list[str] = [
    "How many orders were placed on New Year's Day?",
    "List customers whose email is missing",
    "What is the most recent order date?",
    "How many customers are there per country?",
    "Which orders are still pending shipment?",
    "Show the names of customers starting with A",
    "How many orders were shipped but not yet delivered?",
    "List the ten oldest orders",
    "Find duplicate customer emails",
    "How many orders does the retail segment have?",
    "What day of the week gets the most orders?",
    "Count customers per city in France",
    "Show order ids with their customer names",
    "Which orders were returned in May?",
    "How many distinct countries do our customers come from?",
    "List customers with gmail addresses",
]

# Written before recall.py was tuned; not used to choose its rules or thresholds.
HELD_OUT_RELATED: list[tuple[str, str]] = [
    ("Which orders exceeded 10k in value?", "high_value"),
    ("How many premium orders were placed this year?", "high_value"),
    ("Find customers who bought more than once", "repeat"),
    ("Count customers with two or more orders", "repeat"),
    ("What fraction of sales went through UPI?", "wallet"),
    ("Which customers haven't ordered in six months?", "churned"),
    ("How many customers did we churn last quarter?", "churned"),
    ("What do customers spend per order on average?", "aov"),
    ("Total income from delivered orders in 2023", "revenue"),
    ("How much money did we make per country?", "revenue"),
    ("How often are orders cancelled per month?", "cancel_rate"),
    ("What is the cancellation ratio by payment method?", "cancel_rate"),
    ("Who are our most valuable customers over time?", "clv"),
    ("Order totals for Mumbai this week", "flagship"),
    ("Show sales to key account clients", "key_accounts"),
    ("Show me sales totals in rupees", "inr"),
    ("How are orders split across payment types?", "pay_method"),
]
HELD_OUT_UNRELATED: list[str] = [
    "How many customers have a name longer than 20 characters?",
    "Which order has the smallest id?",
    "List orders placed on weekends",
    "How many customers live in Paris?",
    "Show all shipped orders from yesterday",
    "Which customers share the same city and name?",
    "How many orders per status?",
    "What's the earliest date a customer ordered?",
]

# Paraphrases all-MiniLM-L6-v2 does not connect to the memory (its relevance is at noise level, ~0.15-0.26
# beyond the table names, or below two unrelated memories). Kept as strict xfails so a better rule shows up.
KNOWN_MISSES: dict[str, str] = {
    "How many big-ticket orders did we get in March?": "'big-ticket' vs 'high value order': 0.22",
    "Who are our loyal buyers with multiple purchases?": "'loyal buyers' vs 'repeat customers': 0.15",
    "How many lapsed customers are in Germany?": "'lapsed' vs 'churned': 0.23",
    "What is the typical basket size per order?": "'basket size' vs 'average order value': 0.26",
    "What's the mean spend per order this quarter?": "'mean spend' vs 'average order value': third",
    "How much do returning customers spend per order on average?": "second need below the margin",
    # Recall is precision-first since the held-out retrieval set (near misses share topic and words with a
    # memory but do not use it): a pick by similarity alone needs relevance >= 0.40 and a 0.03 lead. These
    # paraphrases sit at 0.30-0.39, inside the band where most near misses also sit.
    "How many returning customers do we have?": "'returning' vs 'repeat': 0.33, a near tie with clv (0.32)",
    "Which customers have we lost recently?": "'lost' vs 'churned': 0.30",
    "How much did we earn last month?": "'earn' vs 'revenue': 0.34",
    "What percentage of orders were called off each month?": "'called off' vs 'cancellation rate': 0.36, second",
    "Rank customers by total spend across all time": "'total spend' vs 'lifetime value': 0.38",
    "Which churned customers spent the most over their lifetime?": "clv second at 0.39",
    # The question names a value of the memory, not the memory: the SQL is the same without it (policy since
    # the held-out set: naming "corporate" does not mean "my key accounts team").
    "Count orders paid with UPI or PayPal": "the question states the wallet condition itself",
    "List corporate segment customers with pending orders": "names a value of the key accounts entity",
    "Lifetime value of corporate customers": "names a value of the key accounts entity",
    "Revenue per payment method": "names the column the pay_method entity is about",
    # Since the fifth helper-written set: a term, metric or entity with a name applies only when the question
    # names it (spellings, typos, acronyms and Hindi-English folded: _word_match); similarity alone never picks
    # it. Across the development and seen sets similarity picks were right 31 times and wrong 175 times, and
    # neither a threshold nor a lead separated the two. These paraphrases name nothing the memory is called.
    "List orders worth more than ten thousand": "states the threshold itself; never says 'high value'",
    "Show me customers who came back and ordered again": "paraphrase of 'repeat customers'",
    "How much was paid through e-wallets last month?": "'e-wallets' vs 'digital wallet payments'",
    "List customers who stopped ordering": "paraphrase of 'churned customers'",
    "How much is each customer worth over their whole history?": "paraphrase of 'customer lifetime value'",
    "Compare order counts between Mumbai and Bangalore": "names values of the flagship entity, not the entity",
    "Top customers in Bangalore by spend": "names a value of the flagship entity, not the entity",
    "Which payment methods are most popular?": "names the column the pay_method entity is about",
    "Break down orders by how customers paid": "paraphrase of the column the pay_method entity is about",
}


def _cases(rows: list[tuple[str, object]]) -> list[object]:
    return [
        pytest.param(q, w, id=q[:60], marks=pytest.mark.xfail(strict=True, reason=KNOWN_MISSES[q]))
        if q in KNOWN_MISSES else pytest.param(q, w, id=q[:60])
        for q, w in rows
    ]  # fmt: skip


_SIMILARITY_REASONS = ("similar to the question", "close to the question")


@dataclass(frozen=True)
class Bank:
    store: JsonMemoryStore
    embedder: MiniLMEmbedder
    key_of: dict[str, str]  # memory id -> key
    vectors: dict[str, np.ndarray]  # key -> normalised embedding of the memory's content

    def recall(self, question: str, *, tables: list[str] | None = None) -> Recall:
        return recall_memories(
            question, user=USER, database_id=DB, store=self.store, embedder=self.embedder,
            table_names=TABLES if tables is None else tables,
        )  # fmt: skip

    def plain_top(self, question: str, k: int = TOP_K) -> list[str]:
        """The seed's rule: the k memories most similar to the question, nothing else."""
        q = self.embedder.embed_batch([question])[0]
        return sorted(self.vectors, key=lambda key: -float(q @ self.vectors[key]))[:k]


@pytest.fixture(scope="module")
def bank(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bank]:
    embedder = MiniLMEmbedder()
    try:
        embedder.warm_up()
    except EmbeddingModelMissing as exc:
        pytest.skip(f"MiniLM not installed: {exc}")
    store = JsonMemoryStore(Path(tmp_path_factory.mktemp("memory")))
    keys = list(BANK)
    vectors = embedder.embed_batch([BANK[k][1] for k in keys])
    key_of: dict[str, str] = {}
    memories = []
    for key, vec in zip(keys, vectors, strict=True):
        category, content = BANK[key]
        memory = Memory(
            user=USER, category=category, content=content, database_id=DB,  # type: ignore[arg-type]
            structured=structure(Fact(category, content), SCHEMA),  # type: ignore[arg-type]
            embedding=tuple(float(x) for x in vec),
        )  # fmt: skip
        key_of[memory.id] = key
        memories.append(memory)
    store.put_many(memories)
    yield Bank(store, embedder, key_of, dict(zip(keys, vectors, strict=True)))
    store.close()


def _recalled(bank: Bank, recall: Recall) -> dict[str, tuple[float, str, str]]:
    """key -> (similarity, reason, kind) for every recalled memory."""
    return {bank.key_of[r.memory.id]: (r.similarity, r.reason, r.kind) for r in recall.memories}


def _scored(bank: Bank, recall: Recall) -> list[str]:
    """Non-filter memories the recall returned, most relevant first (the score its top-k ranks by)."""
    rows = [(getattr(r, "relevance", r.similarity), bank.key_of[r.memory.id]) for r in recall.memories if r.kind != "filter"]
    return [k for _, k in sorted(rows, reverse=True)]


def _noise(bank: Bank, recall: Recall, wanted: str | None) -> list[str]:
    """Recalled memories that are neither wanted nor standing (filters and display settings apply always)."""
    return [
        bank.key_of[r.memory.id]
        for r in recall.memories
        if bank.key_of[r.memory.id] != wanted and r.kind != "filter" and not r.reason.startswith("standing")
    ]


def test_bank_is_structured_as_the_pipeline_would_store_it(bank: Bank) -> None:
    forms = {bank.key_of[m.id]: dict(m.structured or {}) for m in bank.store.list(USER, database_id=DB)}
    assert forms["india"]["sql"] == "customers.country = 'India'"
    assert forms["no_cancelled"]["sql"] == "orders.status <> 'cancelled'"
    assert forms["inr"] == {"kind": "display", "setting": "currency", "value": "INR"}
    assert forms["high_value"]["name"] == "high value order"
    assert forms["flagship"]["values"] == ["Bangalore", "Mumbai"]
    assert len(BANK) >= 12 and len(RELATED) >= 30 and len(UNRELATED) >= 15


@pytest.mark.parametrize(("question", "wanted"), _cases(RELATED))  # type: ignore[arg-type]
def test_related_question_recalls_its_memory(bank: Bank, question: str, wanted: str) -> None:
    recall = bank.recall(question)
    got = _recalled(bank, recall)
    assert wanted in got, f"{wanted} not recalled for {question!r}; got {got}"
    _, reason, _ = got[wanted]
    if reason.startswith(_SIMILARITY_REASONS):
        assert wanted in _scored(bank, recall)[:TOP_K], f"{wanted} recalled by similarity but not in the top 3"


@pytest.mark.parametrize(("question", "wanted"), _cases(MULTI))  # type: ignore[arg-type]
def test_question_needing_several_memories_recalls_them_all(
    bank: Bank, question: str, wanted: tuple[str, ...]
) -> None:
    got = _recalled(bank, bank.recall(question))
    assert set(wanted) <= set(got), f"missing {set(wanted) - set(got)} for {question!r}; got {sorted(got)}"


def test_unrelated_questions_recall_only_standing_memories(bank: Bank) -> None:
    noisy = {q: _noise(bank, bank.recall(q), None) for q in UNRELATED}
    print("\nunrelated questions with noise:", {q: n for q, n in noisy.items() if n})
    clean = sum(1 for n in noisy.values() if not n)
    assert clean >= len(UNRELATED) - 2, noisy


def test_filter_preferences_apply_to_every_question(bank: Bank) -> None:
    questions = [q for q, _ in RELATED] + UNRELATED + [q for q, _ in HELD_OUT_RELATED] + HELD_OUT_UNRELATED
    ours = 0
    plain = dict.fromkeys(FILTERS, 0)
    for question in questions:
        filters = {bank.key_of[r.memory.id] for r, _ in bank.recall(question).filters()}
        ours += set(FILTERS) <= filters
        for key in FILTERS:
            plain[key] += key in bank.plain_top(question)
    n = len(questions)
    print(f"\nfilters applied: ours {ours}/{n} questions; plain top-3 similarity: "
          + ", ".join(f"{k} {v}/{n} ({v / n:.0%})" for k, v in plain.items()))  # fmt: skip
    assert ours == n


def test_filter_preference_waits_for_its_table(bank: Bank) -> None:
    recall = bank.recall("How many orders were delivered?", tables=["orders"])
    assert {bank.key_of[r.memory.id] for r, _ in recall.filters()} == {"no_cancelled"}


def _figures(bank: Bank, related: list[tuple[str, str]], unrelated: list[str]) -> dict[str, float]:
    hits = top3 = noise = returned = plain_hits = plain_noise = 0
    for question, wanted in related:
        recall = bank.recall(question)
        got = _recalled(bank, recall)
        hits += wanted in got
        top3 += wanted in _scored(bank, recall)[:TOP_K]
        extra = _noise(bank, recall, wanted)
        noise += len(extra)
        returned += len(extra) + (wanted in got)
        plain_hits += wanted in bank.plain_top(question)
    for question in unrelated:
        plain_noise += len(bank.plain_top(question))
    unrelated_noise = [len(_noise(bank, bank.recall(q), None)) for q in unrelated]
    return {
        "recall": hits / len(related),
        "plain_top3_recall": plain_hits / len(related),
        "plain_top3_precision": plain_hits / (TOP_K * len(related)),
        "plain_top3_unrelated_noise_per_q": plain_noise / len(unrelated),
        "precision": hits / returned if returned else 1.0,
        "unrelated_clean": sum(1 for n in unrelated_noise if n == 0) / len(unrelated),
        "unrelated_noise_per_q": sum(unrelated_noise) / len(unrelated),
        "top3": top3 / len(related),
    }


def test_figures(bank: Bank) -> None:
    dev = _figures(bank, RELATED, UNRELATED)
    held = _figures(bank, HELD_OUT_RELATED, HELD_OUT_UNRELATED)
    for name, fig in (("written-with", dev), ("held-out", held)):
        print(f"\n{name}: " + ", ".join(f"{k}={v:.2f}" for k, v in fig.items()))
    # This bank's "related" questions are mostly paraphrases that never name the memory; since recall picks a
    # named memory only when the question names it (see KNOWN_MISSES), paraphrase recall is low by design:
    # written-with recall 0.30, precision 0.90, unrelated clean 1.00; held-out 0.29 / 0.62 / 1.00. Before: 0.57 /
    # 0.89 / 1.00 and 0.82 / 0.82 / 1.00 (similarity picks); the seed's plain top-3: 0.80/0.45/0.31. The trade is
    # measured where it matters, on helper-written banks with near misses: bench.retrieval.
    assert dev["recall"] >= 0.25 and dev["precision"] >= 0.85 and dev["unrelated_clean"] >= 0.95
    assert held["recall"] >= 0.25 and held["unrelated_clean"] >= 0.9
