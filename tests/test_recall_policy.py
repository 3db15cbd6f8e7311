"""What recall offers a question beyond similarity: presentation only for list answers, currency/decimals as
formatting (never prompt lines), entities by their handle and not by a value they share with the question."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from core.memory import Fact, JsonMemoryStore, Memory, MiniLMEmbedder
from core.memory.recall._recall import recall_memories
from core.memory.recall._shape import asks_for_rows
from core.memory.forms._structured import structure
from core.number_format import NumberFormat
from core.schema import Column, Schema, Table

CUSTOMERS = Table("customers", (
    Column("customer_id", "integer"), Column("name", "text"), Column("email", "text"),
    Column("city", "text", value_hints=("Pune", "Delhi", "Berlin", "London")),
    Column("country", "text", value_hints=("India", "Germany", "UK", "France")),
    Column("segment", "text", value_hints=("retail", "wholesale", "corporate")),
), primary_key=("customer_id",))  # fmt: skip
ORDERS = Table("orders", (
    Column("order_id", "integer"), Column("customer_id", "integer"),
    Column("status", "text", value_hints=("delivered", "shipped", "cancelled", "returned")),
    Column("order_date", "date"), Column("total_amount", "numeric(12,2)"),
), primary_key=("order_id",))  # fmt: skip
SCHEMA = Schema("postgres", (CUSTOMERS, ORDERS), database_id="shop")
BANK = {
    "limit": ("preference", "Unless I ask for more, return at most 25 rows."),
    "sort": ("preference", "Sort lists by amount, biggest first."),
    "email": ("preference", "Whenever a customer's name is shown, put their email right next to it."),
    "inr": ("preference", "Show all money amounts in Indian rupees (INR)."),
    "dp": ("preference", "Show amounts with two decimal places."),
    "emea": ("entity", "I run the EMEA desk; my countries are UK, Germany and France."),
    "partner": ("entity", "Customer 250 is our biggest franchise partner."),
    "net": ("metric", "Net revenue = value of delivered orders minus value of returned orders."),
}


@pytest.fixture(scope="module")
def recall(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    embedder = MiniLMEmbedder()
    store = JsonMemoryStore(Path(tmp_path_factory.mktemp("memory")))
    key_of = {}
    memories = []
    for (key, (category, content)), vec in zip(BANK.items(), embedder.embed_batch([c for _, c in BANK.values()]),
                                                strict=True):
        memory = Memory(user="u", category=category, content=content, database_id="shop",  # type: ignore[arg-type]
                        structured=structure(Fact(category, content), SCHEMA),  # type: ignore[arg-type]
                        embedding=tuple(float(x) for x in vec))
        key_of[memory.id] = key
        memories.append(memory)
    store.put_many(memories)

    def run(question: str) -> tuple[dict[str, str], object]:
        got = recall_memories(question, user="u", database_id="shop", store=store, embedder=embedder,
                              table_names=["customers", "orders"])
        return {key_of[r.memory.id]: r.kind for r in got.memories}, got

    yield run
    store.close()


@pytest.mark.parametrize("question", ["List the orders placed this week", "revenue by city",
                                      "top 5 customers by spend", "pichle hafte ke orders dikhao"])
def test_list_questions_get_the_row_limit_and_sort(recall, question: str) -> None:  # type: ignore[no-untyped-def]
    kinds, _ = recall(question)
    assert kinds.get("limit") == "presentation" and kinds.get("sort") == "presentation", kinds


@pytest.mark.parametrize("question", ["How many orders did we get last month?", "total revenue this year",
                                      "pichle mahine kitne orders aaye?", "What share of orders were returned?"])
def test_one_value_questions_get_no_presentation(recall, question: str) -> None:  # type: ignore[no-untyped-def]
    kinds, _ = recall(question)
    assert not {"limit", "sort", "email"} & set(kinds), kinds


def test_columns_preference_only_when_the_rows_are_that_table(recall) -> None:  # type: ignore[no-untyped-def]
    assert recall("List the customers in Pune")[0].get("email") == "presentation"
    assert "email" not in recall("List the orders placed yesterday")[0]


def test_presentation_for_another_tables_list_stays_out(recall) -> None:  # type: ignore[no-untyped-def]
    assert "sort" not in recall("List the customers in Pune")[0]  # the saved sort is on orders' amount
    assert "email" not in recall("Which countries have more than 3 customers?")[0]  # a list of countries
    assert "email" not in recall("customer count per city")[0]


def test_currency_and_decimals_format_the_answer_and_stay_out_of_the_prompt(recall) -> None:  # type: ignore[no-untyped-def]
    kinds, got = recall("How many orders did we get last month?")
    assert kinds.get("inr") == "display" and kinds.get("dp") == "display"
    assert got.display() == {"currency": "INR", "decimals": 2}
    assert not any("INR" in line or "decimal" in line for line in got.context_lines())


def test_an_entity_is_recalled_by_its_handle_not_by_a_value(recall) -> None:  # type: ignore[no-untyped-def]
    assert "emea" in recall("Show orders from my EMEA countries")[0]
    assert "emea" in recall("How many customers sit in my countries?")[0]
    assert "emea" not in recall("How many customers in Germany are wholesale?")[0]
    assert "partner" in recall("How much has our franchise partner spent?")[0]


def test_a_near_miss_metric_is_not_recalled(recall) -> None:  # type: ignore[no-untyped-def]
    assert "net" in recall("net revenue kitna hai?")[0]
    assert "net" not in recall("How many delivered orders were there?")[0]


@pytest.mark.parametrize(("question", "rows"), [
    ("how many customers in Delhi", False), ("count the corporate customers", False),
    ("Total number of customers", False), ("list customers in Delhi", True), ("Which cities have customers?", True),
    ("order count per status", True), ("har country ka revenue dikhao", True), ("show me customers in Pune", True),
    ("average spend per ordering customer", False), ("albums by Queen", True), ("How much was paid by card?", False),
])  # fmt: skip
def test_answer_shape(question: str, rows: bool) -> None:
    assert asks_for_rows(question) is rows


def test_number_format() -> None:
    fmt = NumberFormat.of({"currency": "inr", "decimals": 2})
    assert fmt.header("total_amount") == "total_amount (INR)" and fmt.header("UnitPrice") == "UnitPrice (INR)"
    assert fmt.header("order_count") == "order_count" and fmt.header("city") == "city"
    assert fmt.number(1234.5) == "1,234.50" and fmt.number(12) is None and fmt.number(True) is None
    assert NumberFormat.of({"currency": "rupees!", "decimals": 99}) == NumberFormat()
    assert not NumberFormat.of(None)


def test_a_standing_preference_kept_as_words_still_reaches_its_questions(tmp_path: Path) -> None:
    """A preference Cairn could not type is still a standing instruction: quoted for every question on the
    tables it names, and one about lists only for list answers."""
    embedder = MiniLMEmbedder()
    store = JsonMemoryStore(tmp_path / "memory")
    texts = {"vibe": "Treat orders from the Diwali week as festive when you explain results.",
             "lists": "List things in alphabetical order unless I say otherwise."}
    key_of = {}
    for key, text in texts.items():
        vec = embedder.embed_batch([text])[0]
        memory = Memory(user="u", category="preference", content=text, database_id="shop", structured=None,
                        embedding=tuple(float(x) for x in vec))
        key_of[memory.id] = key
        store.put(memory)

    def got(question: str) -> set[str]:
        rec = recall_memories(question, user="u", database_id="shop", store=store, embedder=embedder,
                              table_names=["customers", "orders"])
        return {key_of[r.memory.id] for r in rec.memories}

    assert got("How many orders last week?") == {"vibe"}
    assert got("How many customers are in Pune?") == set()  # another table than the one it names
    assert got("List the orders placed yesterday") == {"vibe", "lists"}
    store.close()
