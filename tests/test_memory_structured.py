"""Structured forms of facts, grounded in the schema; the filter SQL runs on the real sample database."""

from __future__ import annotations

import psycopg
import pytest

from core.memory import Fact
from core.memory.forms._structured import parse_definition, structure
from core.memory.kernel._words import currency_code, mentions_value, name_key
from core.schema import Column, ForeignKey, Schema, Table

CUSTOMERS = Table(
    "customers",
    (
        Column("customer_id", "integer"),
        Column("name", "text"),
        Column("city", "text"),
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
        Column("payment_method", "text", value_hints=("credit_card", "upi", "paypal")),
    ),
    primary_key=("order_id",),
    foreign_keys=(ForeignKey(("customer_id",), "customers", ("customer_id",)),),
)
SCHEMA = Schema("postgres", (CUSTOMERS, ORDERS))


def pref(text: str, schema: Schema | None = SCHEMA) -> dict | None:
    return structure(Fact("preference", text), schema)


@pytest.mark.parametrize(
    ("text", "column", "op", "value", "sql"),
    [
        ("Always show me customers from India", "country", "=", "India", "customers.country = 'India'"),
        ("Only Indian customers", "country", "=", "India", "customers.country = 'India'"),
        ("only German customers", "country", "=", "Germany", "customers.country = 'Germany'"),
        ("French customers only", "country", "=", "France", "customers.country = 'France'"),
        ("customers in the united states", "country", "=", "United States", "customers.country = 'United States'"),
        ("country = 'india'", "country", "=", "India", "customers.country = 'India'"),
        ("customers from India and Nepal", "country", "IN", ["India", "Nepal"],
         "customers.country IN ('India', 'Nepal')"),
        ("exclude cancelled orders", "status", "<>", "cancelled", "orders.status <> 'cancelled'"),
        ("stop showing cancelled orders", "status", "<>", "cancelled", "orders.status <> 'cancelled'"),
        ("Never show cancelled orders", "status", "<>", "cancelled", "orders.status <> 'cancelled'"),
        ("I don't want returned or cancelled orders", "status", "NOT IN", ["returned", "cancelled"],
         "NOT orders.status IN ('returned', 'cancelled')"),
        ("orders.status != 'cancelled'", "status", "<>", "cancelled", "orders.status <> 'cancelled'"),
        ("only orders paid by credit card", "payment_method", "=", "credit_card",
         "orders.payment_method = 'credit_card'"),
        ("only orders with a total amount over 500", "total_amount", ">", 500, "orders.total_amount > 500"),
        ("total amount at least 2.5k", "total_amount", ">=", 2500, "orders.total_amount >= 2500"),
        ("hide orders with total amount below 100", "total_amount", ">=", 100, "orders.total_amount >= 100"),
    ],
)  # fmt: skip
def test_preference_maps_to_a_filter(text: str, column: str, op: str, value: object, sql: str) -> None:
    st = pref(text)
    assert st is not None
    assert (st["kind"], st["column"], st["op"], st["value"], st["sql"]) == ("filter", column, op, value, sql)


@pytest.mark.parametrize(
    "text",
    [
        "show me more detail",
        "use a friendly tone",
        "only the important ones",
    ],
)
def test_preference_without_a_confident_mapping_is_none(text: str) -> None:
    assert pref(text) is None


def test_a_number_on_a_named_table_reads_its_one_measure_column() -> None:
    """"Only orders above 1000 matter to me": orders has one numeric measure (ids are not measures), the same
    inference a term gets ("a big order is any order over 5000"); with two measures it stays unmapped."""
    st = pref("only orders above 1000 matter to me")
    assert st is not None and (st["column"], st["op"], st["value"]) == ("total_amount", ">", 1000)
    two = Table("orders", (*ORDERS.columns, Column("shipping_fee", "numeric(8,2)")))
    assert pref("only orders above 1000 matter to me", Schema("postgres", (CUSTOMERS, two))) is None


def test_value_in_two_tables_needs_the_table_named() -> None:
    suppliers = Table("suppliers", (Column("supplier_id", "integer"),
                                    Column("country", "text", value_hints=("India", "China"))))  # fmt: skip
    schema = Schema("postgres", (CUSTOMERS, ORDERS, suppliers))
    assert pref("only India", schema) is None
    st = pref("only suppliers from India", schema)
    assert st is not None and st["table"] == "suppliers"


def test_quoting_follows_the_dialect_and_names() -> None:
    odd = Table("Order", (Column("Country", "text", value_hints=("O'Brien Land",)), Column("user", "text")),
                schema="sales")  # fmt: skip
    pg = Schema("postgres", (odd,))
    st = pref("only O'Brien Land", pg)
    assert st is not None and st["table"] == "sales.Order"
    assert st["sql"] == '''sales."Order"."Country" = 'O''Brien Land\''''
    lite = Schema("sqlite", (Table("Order", odd.columns),))
    st = pref("only O'Brien Land", lite)
    assert st is not None and st["sql"] == '''"Order".Country = 'O''Brien Land\''''


def test_currency_preference_is_a_display_setting() -> None:
    assert pref("show amounts in INR") == {"kind": "display", "setting": "currency", "value": "INR"}
    assert pref("Show amounts in Indian rupees") == {"kind": "display", "setting": "currency", "value": "INR"}
    assert pref("amounts in euros please", None) == {"kind": "display", "setting": "currency", "value": "EUR"}
    assert currency_code("real revenue in dollars") == "USD"
    assert currency_code("convert INR to USD") is None


@pytest.mark.parametrize(
    ("text", "name", "definition"),
    [
        ("High value order means total amount over 10000", "high value order", "total amount over 10000"),
        ("A churned customer is defined as one with no orders", "churned customer", "one with no orders"),
        ("By repeat buyer I mean customers with more than one order", "repeat buyer",
         "customers with more than one order"),
        ("high value order = total_amount > 10000", "high value order", "total_amount > 10000"),
        ("AOV is total amount divided by number of orders", "aov", "total amount divided by number of orders"),
        ("Call it a big order when the total amount is at least 20k", "big order",
         "the total amount is at least 20k"),
        ("call orders above 50000 \"whales\"", "whales", "orders above 50000"),
        ("Define net sales as total amount of delivered orders", "net sales", "total amount of delivered orders"),
    ],
)  # fmt: skip
def test_definition_parsing(text: str, name: str, definition: str) -> None:
    assert parse_definition(text) == (name, definition)


def test_term_maps_its_definition_to_sql() -> None:
    st = structure(Fact("terminology", "High value order means total amount over 10000"), SCHEMA)
    assert st == {"kind": "term", "name": "high value order", "sql": "orders.total_amount > 10000",
                  "definition": "total amount over 10000", "tables": ["orders"],
                  "columns": ["orders.total_amount"]}  # fmt: skip
    st = structure(Fact("terminology", "high value order = total > 50000"), SCHEMA)
    assert st is not None and st["sql"] == "orders.total_amount > 50000"
    st = structure(Fact("terminology", "A lost order is one with status cancelled"), SCHEMA)
    assert st is not None and st["name"] == "lost order" and st["sql"] == "orders.status = 'cancelled'"


def test_term_without_a_mapping_keeps_name_and_definition() -> None:
    st = structure(Fact("terminology", "By churned I mean customers with no orders in 90 days"), SCHEMA)
    assert st == {"kind": "term", "name": "churned", "definition": "customers with no orders in 90 days"}
    st = structure(Fact("terminology", "High value order means total amount over 10000"), None)
    assert st is not None and "sql" not in st and st["name"] == "high value order"
    assert structure(Fact("terminology", "remember this"), SCHEMA) is None


def test_metric_ratio_and_aggregate() -> None:
    st = structure(Fact("metric", "AOV is total amount divided by number of orders"), SCHEMA)
    assert st is not None and st["kind"] == "metric"
    assert st["sql"] == "1.0 * SUM(orders.total_amount) / NULLIF(COUNT(*), 0)"
    st = structure(Fact("metric", "revenue means the sum of total amount"), SCHEMA)
    assert st is not None and st["sql"] == "SUM(orders.total_amount)"


def test_entity_lists_what_matches_the_schema() -> None:
    st = structure(Fact("entity", "I mostly look at the orders table, payment method and UPI"), SCHEMA)
    assert st == {"kind": "entity", "tables": ["orders"], "columns": ["orders.payment_method"], "values": ["upi"]}
    assert structure(Fact("entity", "the weather report"), SCHEMA) is None


def test_names_and_values_match_loosely() -> None:
    assert name_key("High-value Orders") == name_key("the high value order")
    assert mentions_value("Indian customers", "India") and mentions_value("credit cards", "credit_card")
    assert not mentions_value("Indiana customers", "India")


def test_filter_sql_runs_on_the_real_sample_database(sample_db_uri: str) -> None:
    from core.databases import open_database

    db = open_database(sample_db_uri)
    try:
        schema = db.schema()
    finally:
        db.close()
    checks = [
        pref("Always show me customers from India", schema),
        pref("exclude cancelled or returned orders", schema),
        pref("only orders with total amount of at least 1000", schema),
        structure(Fact("terminology", "High value order means total amount over 10000"), schema),
    ]
    with psycopg.connect(sample_db_uri) as conn:
        for st in checks:
            assert st is not None and st.get("sql")
            table = st.get("table") or "orders"
            count = conn.execute(f"SELECT count(*) FROM {table} WHERE {st['sql']}").fetchone()
            assert count is not None and count[0] > 0, st
        metric = structure(Fact("metric", "AOV is total amount divided by number of orders"), schema)
        assert metric is not None
        row = conn.execute(f"SELECT {metric['sql']} FROM orders").fetchone()
        assert row is not None and float(row[0]) > 0


@pytest.mark.parametrize(
    ("text", "op", "value"),
    [
        ("only customers from India, but not Germany", "=", "India"),
        ("customers from India and Nepal, not Germany", "IN", ["India", "Nepal"]),
        ("never show cancelled, returned or pending orders", "NOT IN", ["cancelled", "returned", "pending"]),
        ("customers from India, Germany and Nepal", "IN", ["India", "Germany", "Nepal"]),
    ],
)
def test_each_clause_has_its_own_polarity(text: str, op: str, value: object) -> None:
    st = pref(text)
    assert st is not None and (st["op"], st["value"]) == (op, value)


@pytest.mark.parametrize(("text", "op"), [
    ("pending orders bhi exclude karna", "<>"),  # the cue after the value (Hindi-English word order)
    ("returned orders should not be counted", "<>"),  # a passive
    ("cancelled orders never", "<>"),
    ("delivered orders only", "="),
    ("returned orders kabhi include mat karna", "<>"),
])  # fmt: skip
def test_a_cue_after_the_value_sets_its_polarity(text: str, op: str) -> None:
    st = pref(text)
    assert st is not None and st["column"] == "status" and st["op"] == op, st


def test_a_list_named_first_is_the_definition_not_the_name() -> None:
    from core.memory.forms._structured import parse_definition

    assert parse_definition("Chennai, Kolkata, Delhi and Mumbai are the metros.") == (
        "metros", "Chennai, Kolkata, Delhi and Mumbai")
    assert parse_definition("Tier-1 cities are Mumbai, Delhi and Bengaluru") == (
        "tier-1 cities", "Mumbai, Delhi and Bengaluru")


@pytest.mark.parametrize(("text", "form"), [
    ("Don't count orders under $2.", {"kind": "filter", "op": ">="}),  # an amount in dollars, not a display
    ("Money in INR, rounded to whole rupees.", {"kind": "display", "value": "INR", "decimals": 0}),
    ("Show amounts in USD with two decimals.", {"kind": "display", "value": "USD", "decimals": 2}),
])  # fmt: skip
def test_a_currency_sign_on_a_number_is_an_amount(text: str, form: dict) -> None:
    st = pref(text)
    assert st is not None and all(st.get(k) == v for k, v in form.items()), st


@pytest.mark.parametrize(("text", "op", "value"), [
    ("Please keep wholesale customers out of my numbers.", "<>", "wholesale"),
    ("pending aur processing orders hata do", "NOT IN", ["pending", "processing"]),
    ("cancelled and returned orders should not be counted", "NOT IN", ["cancelled", "returned"]),
    ("India ke alawa koi country nahi chahiye", "=", "India"),  # nothing other than India: only India
])  # fmt: skip
def test_exclusions_said_in_other_orders(text: str, op: str, value: object) -> None:
    st = pref(text)
    assert st is not None and st["kind"] == "filter" and (st["op"], st["value"]) == (op, value), st


@pytest.mark.parametrize(("text", "op", "value"), [
    ("pls dont show pendng orders", "<>", "pending"),  # one slip in a long value; "dont" without apostrophe
    ("only customers from Germny", "=", "Germany"),
])  # fmt: skip
def test_a_typo_in_a_long_value_is_read_as_that_value(text: str, op: str, value: str) -> None:
    st = pref(text)
    assert st is not None and (st["op"], st["value"]) == (op, value), st


def test_a_short_word_one_letter_from_a_value_is_not_that_value() -> None:
    assert pref("show me the detail of corporate customers") is not None  # not "retail"
    st = pref("show me the detail of corporate customers")
    assert st["value"] == "corporate"
