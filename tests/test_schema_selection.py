"""Table selection under a token budget: keeps what fits, finds the right tables, adds bridges, stays in budget."""

from __future__ import annotations

import time

import pytest

from core.schema import Column, Schema, Table
from core.prompt import estimate_tokens, render_schema_block
from core.prompt._schema_selection import score_tables, select_tables, split_words
from tests.test_schema_block import sample_like
from tests.wide_schema import wide_schema


def _distractors() -> tuple[Table, ...]:
    """Tables around the sample shop that a question about orders should not need."""
    def t(name: str, *cols: str) -> Table:
        return Table(name=name, columns=(Column(f"{name}_id", "integer"),) + tuple(Column(c, "text") for c in cols),
                     primary_key=(f"{name}_id",))

    return (
        t("suppliers", "company_name", "contact_email", "phone"),
        t("warehouses", "location", "manager", "capacity_note"),
        t("employees", "first_name", "last_name", "job_title", "hire_note"),
        t("marketing_campaigns", "channel", "headline", "audience"),
        t("support_tickets", "subject", "priority", "assignee"),
        t("inventory_counts", "bin", "counted_by", "remark"),
    )


@pytest.fixture(scope="module")
def shop() -> Schema:
    base = sample_like()
    return Schema(dialect="postgres", tables=base.tables + _distractors())


@pytest.fixture(scope="module")
def erp() -> Schema:
    return wide_schema()


def _tokens(schema: Schema) -> int:
    return estimate_tokens(render_schema_block(schema))


def test_schema_that_fits_is_returned_unchanged(shop: Schema) -> None:
    assert select_tables(shop, "anything", _tokens(shop)) is shop


def test_sample_like_picks_orders_and_customers(shop: Schema) -> None:
    budget = _tokens(shop.subset(["customers", "orders"])) + 10
    picked = select_tables(shop, "Total order amount per customer segment last month", budget)
    assert {"customers", "orders"} <= set(picked.table_names)
    assert _tokens(picked) <= budget


def test_value_hint_in_question_finds_the_table(shop: Schema) -> None:
    budget = _tokens(shop.subset(["orders"])) + 5
    picked = select_tables(shop, "How many were cancelled?", budget)
    assert picked.table_names == ("orders",)


def test_budget_respected_across_budgets(erp: Schema) -> None:
    for budget in (200, 400, 800, 1500, 3000):
        picked = select_tables(erp, "Average unit price of purchase order lines per supplier", budget)
        assert _tokens(picked) <= budget
        assert 1 <= len(picked.tables) < len(erp.tables)


def test_best_table_kept_even_when_over_budget(erp: Schema) -> None:
    picked = select_tables(erp, "employee salaries", 5)
    assert picked.table_names == ("employee",)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Total salary of employees per department", {"employee", "department"}),
        ("Which customers placed the most sales orders last month?", {"customer", "sales_order"}),
        ("How many support tickets are open in each ticket category?", {"support_ticket", "ticket_category"}),
        ("Average rating of product reviews per product category", {"product_review", "product", "product_category"}),
        ("Total hours logged on timesheets for each project", {"timesheet", "task", "project_phase", "project"}),
        ("Which carrier delivered the most shipments from each warehouse?", {"shipment", "carrier", "warehouse"}),
    ],
)
def test_wide_schema_hand_written_questions(erp: Schema, question: str, expected: set[str]) -> None:
    started = time.perf_counter()
    picked = select_tables(erp, question, 1000)
    assert time.perf_counter() - started < 1.0
    assert expected <= set(picked.table_names)
    assert _tokens(picked) <= 1000


def test_bridge_table_added_without_declared_foreign_keys() -> None:
    author = Table("author", (Column("aid", "bigint"), Column("name", "text"), Column("homepage", "text")))
    publication = Table(
        "publication",
        (Column("pid", "bigint"), Column("title", "text"), Column("year", "bigint"), Column("citation_num", "int")),
    )
    writes = Table("writes", (Column("aid", "bigint"), Column("pid", "bigint")))
    others = tuple(
        Table(n, (Column(f"{n[:2]}id", "bigint"), Column("name", "text"), Column("homepage", "text"),
                  Column("description", "text")))
        for n in ("conference", "journal", "organization", "keyword", "domain")
    )
    schema = Schema(dialect="postgres", tables=(author, publication, writes) + others)
    budget = _tokens(schema.subset(["author", "publication", "writes"])) + 5
    picked = select_tables(schema, "Titles of publications by each author", budget)
    assert set(picked.table_names) == {"author", "publication", "writes"}


def test_embedding_similarity_breaks_lexical_blind_spots(shop: Schema) -> None:
    def embed(texts: list[str]) -> list[list[float]]:
        # Fake embedding: the question and the tickets table share a direction, nothing else does.
        return [[1.0, 0.0] if (i == 0 or text.startswith("support_tickets")) else [0.0, 1.0]
                for i, text in enumerate(texts)]

    budget = _tokens(shop.subset(["support_tickets"])) + 2
    assert select_tables(shop, "complaints", budget).table_names != ("support_tickets",)
    assert select_tables(shop, "complaints", budget, embed=embed).table_names == ("support_tickets",)


def test_deterministic(erp: Schema) -> None:
    q = "Goods receipts per supplier and warehouse"
    assert select_tables(erp, q, 700).table_names == select_tables(erp, q, 700).table_names


def test_split_words_and_scores() -> None:
    assert split_words("sbCustEmail") == ["sb", "customer", "email"]
    assert split_words("order_lines") == ["order", "line"]
    assert split_words("HTTPRequests2024") == ["http", "request", "2024"]
    scores = score_tables(sample_like(), "orders by status")
    assert scores["orders"] > scores["customers"]


def test_load_two_defog_dumps(embedded_pg: object) -> None:
    import psycopg

    from tests.defog_loader import defog_schema, load_defog

    for name, expected in (("academic", 15), ("restaurants", 3)):
        uri = load_defog(embedded_pg, name)
        assert load_defog(embedded_pg, name) == uri  # second call: already complete
        with psycopg.connect(uri) as conn:
            count = conn.execute(
                "SELECT count(*) FROM information_schema.tables "
                "WHERE table_schema NOT IN ('pg_catalog', 'information_schema')"
            ).fetchone()
            rows = conn.execute("SELECT count(*) FROM restaurant" if name == "restaurants" else
                                "SELECT count(*) FROM author").fetchone()
        assert count is not None and count[0] == expected
        assert rows is not None and rows[0] > 0
        assert len(defog_schema(name).tables) == expected


@pytest.mark.parametrize(("question", "column", "table", "said"), [
    ("How many restaurants are there in each city?", "city_name", "location", True),
    ("sales by customer's state", "sbCustState", "sbCustomer", True),
    ("papers per dataset", "datasetid", "paper_dataset", True),
    ("publications per author", "name", "author", True),  # a label: its table's name is what is said
    ("top 3 transaction statuses", "status", "transactions", True),
    ("What is the total revenue?", "region", "sales", False),
    ("What is the total revenue?", "name", "customer", False),
])
def test_a_column_is_said_by_its_own_words_or_for_a_label_by_its_table(question, column, table, said) -> None:
    from core.prompt import column_said

    assert column_said(question, column, table) is said
