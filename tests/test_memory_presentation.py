"""Standing presentation preferences (sort, limit, columns) and the newer filter forms (BETWEEN, LIKE, windows,
metric skips) enforced on SQL: PostgreSQL output checked as text, SQLite output run on a small database."""

from __future__ import annotations

import datetime
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pytest
import sqlglot
from sqlglot import exp

from core.memory.enforcement._filters import (
    FilterOutcome,
    enforce_filters,
    filter_condition,
    window_start,
)
from core.memory.enforcement._presentation import PresentationOutcome, apply_presentation

TODAY = datetime.date(2024, 5, 31)

SORT_NEWEST = {"kind": "sort", "table": "orders", "column": "order_date", "direction": "DESC"}
LIMIT_3 = {"kind": "limit", "value": 3}
SHOW_CUSTOMER = {"kind": "columns", "table": "orders", "when": "order_id", "add": ["customer_id", "status"]}

ROWS_ORDERS = [
    (1, 1, "delivered", "2024-05-30", 10.0),
    (2, 1, "returned", "2024-05-01 09:30:00", 20.0),
    (3, 2, "delivered", "2024-03-01", 30.0),
    (4, 2, "cancelled", "2024-02-28", 40.0),
    (5, 3, "delivered", "2023-12-31", 50.0),
    (6, 3, "pending", None, 60.0),
]
ROWS_CUSTOMERS = [
    (1, "Asha", "asha@example.com", "India"),
    (2, "Ben", "ben@corp.test", "Germany"),
    (3, "Chen", "chen@example.com", "Nepal"),
]


@pytest.fixture(scope="module")
def db() -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(":memory:")
    conn.executescript(
        "CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT, email TEXT, country TEXT);"
        "CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers,"
        " status TEXT, order_date TEXT, total_amount REAL);"
    )
    conn.executemany("INSERT INTO orders VALUES (?, ?, ?, ?, ?)", ROWS_ORDERS)
    conn.executemany("INSERT INTO customers VALUES (?, ?, ?, ?)", ROWS_CUSTOMERS)
    yield conn
    conn.close()


def present(sql: str, forms: Sequence[Mapping[str, Any]], dialect: str = "sqlite") -> tuple[str, PresentationOutcome]:
    tree = sqlglot.parse_one(sql, read=dialect)
    before = tree.sql(dialect=dialect)
    outcome = apply_presentation(tree, forms, dialect)
    assert tree.sql(dialect=dialect) == before  # the caller's tree is never changed
    out = outcome.expression.sql(dialect=dialect)
    sqlglot.parse_one(out, read=dialect)  # still one valid statement in the dialect
    return out, outcome


def enforce(
    sql: str, filters: Sequence[Mapping[str, Any]], dialect: str = "sqlite", **kw: Any
) -> tuple[str, FilterOutcome]:
    outcome = enforce_filters(sqlglot.parse_one(sql, read=dialect), filters, dialect, **kw)
    out = outcome.expression.sql(dialect=dialect)
    sqlglot.parse_one(out, read=dialect)
    return out, outcome


def run(db: sqlite3.Connection, sql: str) -> list[tuple]:
    return db.execute(sql).fetchall()


# -- filter ops: BETWEEN, LIKE, NOT LIKE ------------------------------------------------------------------


def test_between_filter_renders_and_runs(db: sqlite3.Connection) -> None:
    spec = {"kind": "filter", "table": "orders", "column": "total_amount", "op": "BETWEEN", "value": [20, 40]}
    sql, outcome = enforce("SELECT o.order_id FROM orders AS o", [spec])
    assert sql == "SELECT o.order_id FROM orders AS o WHERE o.total_amount BETWEEN 20 AND 40"
    assert outcome.added == (0,)
    assert sorted(run(db, sql)) == [(2,), (3,), (4,)]
    pg, _ = enforce("SELECT o.order_id FROM orders AS o", [spec], "postgres")
    assert pg.endswith("WHERE o.total_amount BETWEEN 20 AND 40")


@pytest.mark.parametrize("value", [[1], [1, 2, 3], 5, None])
def test_between_needs_two_bounds(value: object) -> None:
    spec = {"table": "orders", "column": "total_amount", "op": "BETWEEN", "value": value}
    assert filter_condition(spec, "orders") is None
    sql, outcome = enforce("SELECT order_id FROM orders", [spec])
    assert sql == "SELECT order_id FROM orders" and outcome.added == ()


def test_like_and_not_like(db: sqlite3.Connection) -> None:
    like = {"table": "customers", "column": "email", "op": "LIKE", "value": "%@example.com"}
    not_like = {"table": "customers", "column": "email", "op": "NOT LIKE", "value": "%@example.com"}
    sql, _ = enforce("SELECT name FROM customers", [like])
    assert sql == "SELECT name FROM customers WHERE customers.email LIKE '%@example.com'"
    assert sorted(run(db, sql)) == [("Asha",), ("Chen",)]
    sql, _ = enforce("SELECT name FROM customers", [not_like])
    assert sql == "SELECT name FROM customers WHERE NOT customers.email LIKE '%@example.com'"
    assert run(db, sql) == [("Ben",)]
    pg, _ = enforce("SELECT c.name FROM customers AS c", [not_like], "postgres")
    assert pg == "SELECT c.name FROM customers AS c WHERE NOT c.email LIKE '%@example.com'"
    assert filter_condition({"column": "email", "op": "LIKE", "value": 3}, None) is None


def test_like_already_written_is_present() -> None:
    spec = {"table": "customers", "column": "email", "op": "LIKE", "value": "%@example.com"}
    sql, outcome = enforce("SELECT name FROM customers WHERE email LIKE '%@example.com'", [spec])
    assert outcome.present == (0,) and outcome.added == ()
    assert sql == "SELECT name FROM customers WHERE email LIKE '%@example.com'"


# -- windows -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("amount", "unit", "start"),
    [
        (7, "day", datetime.date(2024, 5, 24)),
        (2, "week", datetime.date(2024, 5, 17)),
        (3, "month", datetime.date(2024, 2, 29)),  # calendar months, clamped to the month's last day
        (1, "month", datetime.date(2024, 4, 30)),
        (5, "months", datetime.date(2023, 12, 31)),
        (1, "year", datetime.date(2023, 5, 31)),
    ],
)
def test_window_start_uses_calendar(amount: int, unit: str, start: datetime.date) -> None:
    assert window_start(amount, unit, TODAY) == start


def test_window_start_leap_day_year() -> None:
    assert window_start(1, "year", datetime.date(2024, 2, 29)) == datetime.date(2023, 2, 28)
    with pytest.raises(ValueError):
        window_start(1, "fortnight", TODAY)


def test_window_renders_per_dialect_and_runs(db: sqlite3.Connection) -> None:
    window = {"kind": "window", "table": "orders", "column": "order_date", "amount": 3, "unit": "month"}
    pg, outcome = enforce("SELECT o.order_id FROM orders AS o", [window], "postgres", today=TODAY)
    assert pg == "SELECT o.order_id FROM orders AS o WHERE o.order_date >= CAST('2024-02-29' AS DATE)"
    assert outcome.added == (0,)
    lite, _ = enforce("SELECT o.order_id FROM orders AS o", [window], today=TODAY)
    assert lite == "SELECT o.order_id FROM orders AS o WHERE o.order_date >= '2024-02-29'"
    # ISO text compares in date order, datetimes included; NULL dates drop out
    assert sorted(run(db, lite)) == [(1,), (2,), (3,)]


def test_window_defaults_to_today() -> None:
    window = {"kind": "window", "table": "orders", "column": "order_date", "amount": 1, "unit": "day"}
    before = datetime.date.today()
    sql, _ = enforce("SELECT order_id FROM orders", [window])
    after = datetime.date.today()
    expected = {f"'{(d - datetime.timedelta(days=1)).isoformat()}'" for d in (before, after)}
    assert any(sql.endswith(f">= {e}") for e in expected)


@pytest.mark.parametrize("bad", [{"amount": 0}, {"amount": -2}, {"amount": "3"}, {"amount": True}, {"unit": "decade"}])
def test_window_without_valid_amount_or_unit_is_not_enforced(bad: dict) -> None:
    window = {"kind": "window", "table": "orders", "column": "order_date", "amount": 3, "unit": "month", **bad}
    sql, outcome = enforce("SELECT order_id FROM orders", [window], today=TODAY)
    assert sql == "SELECT order_id FROM orders" and outcome.added == ()


def test_window_applies_to_every_select_reading_the_table(db: sqlite3.Connection) -> None:
    window = {"kind": "window", "table": "orders", "column": "order_date", "amount": 1, "unit": "month"}
    sql, outcome = enforce(
        "WITH recent AS (SELECT customer_id FROM orders) SELECT c.name FROM customers AS c "
        "WHERE c.customer_id IN (SELECT customer_id FROM recent) "
        "AND EXISTS (SELECT 1 FROM orders AS o2 WHERE o2.customer_id = c.customer_id)",
        [window],
        today=TODAY,
    )
    assert outcome.added == (0,)
    assert "SELECT customer_id FROM orders WHERE orders.order_date >= '2024-04-30'" in sql
    assert "o2.customer_id = c.customer_id AND o2.order_date >= '2024-04-30'" in sql
    assert run(db, sql) == [("Asha",)]


def test_window_yields_to_a_question_that_sets_the_dates() -> None:
    window = {"kind": "window", "table": "orders", "column": "order_date", "amount": 3, "unit": "month"}
    original = "SELECT order_id FROM orders WHERE order_date >= '2023-01-01'"
    sql, outcome = enforce(original, [window], today=TODAY)
    assert sql == original
    assert outcome.overridden == (0,) and outcome.added == ()


def test_existing_equality_filter_unchanged() -> None:
    spec = {"table": "public.customers", "column": "country", "op": "=", "value": "India", "sql": "x"}
    sql, outcome = enforce("SELECT c.name FROM customers AS c", [spec], "postgres")
    assert sql == "SELECT c.name FROM customers AS c WHERE c.country = 'India'"
    assert outcome == FilterOutcome(outcome.expression, (0,), (), (), ())


# -- a metric's own conditions win ------------------------------------------------------------------------


def test_metric_columns_skip_standing_filters(db: sqlite3.Connection) -> None:
    delivered = {"kind": "filter", "table": "orders", "column": "status", "op": "=", "value": "delivered"}
    india = {"kind": "filter", "table": "customers", "column": "country", "op": "=", "value": "India"}
    refund_rate = (
        "SELECT SUM(CASE WHEN o.status = 'returned' THEN 1 ELSE 0 END) * 1.0 / COUNT(*) AS refund_rate "
        "FROM orders AS o JOIN customers AS c ON c.customer_id = o.customer_id"
    )
    sql, outcome = enforce(refund_rate, [delivered, india], skip_columns={("orders", "status")})
    assert outcome.skipped == (0,) and outcome.added == (1,)
    assert "o.status = 'delivered'" not in sql and sql.endswith("WHERE c.country = 'India'")
    assert run(db, sql) == [(0.5,)]  # Asha's two orders, one returned
    # without the skip, the standing filter would make the refund rate 0
    unskipped, _ = enforce(refund_rate, [delivered, india])
    assert run(db, unskipped) == [(0.0,)]


def test_metric_skip_matches_qualified_table_names() -> None:
    spec = {"table": "public.orders", "column": "status", "op": "<>", "value": "cancelled"}
    sql, outcome = enforce(
        "SELECT COUNT(*) FROM orders", [spec], "postgres", skip_columns=[("public.orders", "status")]
    )
    assert sql == "SELECT COUNT(*) FROM orders" and outcome.skipped == (0,)
    _, other = enforce("SELECT COUNT(*) FROM orders", [spec], "postgres", skip_columns=[("orders", "total")])
    assert other.added == (0,) and other.skipped == ()


# -- sort ---------------------------------------------------------------------------------------------------


def test_sort_added_to_row_list(db: sqlite3.Connection) -> None:
    sql, outcome = present("SELECT o.order_id FROM orders AS o WHERE o.status = 'delivered'", [SORT_NEWEST])
    assert sql.endswith("ORDER BY o.order_date DESC")
    assert outcome.applied == (0,) and outcome.skipped == ()
    assert run(db, sql) == [(1,), (3,), (5,)]
    pg, _ = present("SELECT order_id FROM orders", [SORT_NEWEST], "postgres")
    assert pg == "SELECT order_id FROM orders ORDER BY orders.order_date DESC NULLS LAST"


def test_sort_ascending_puts_nulls_last(db: sqlite3.Connection) -> None:
    form = {**SORT_NEWEST, "direction": "ASC"}
    sql, _ = present("SELECT order_id FROM orders", [form])
    assert sql == "SELECT order_id FROM orders ORDER BY orders.order_date ASC NULLS LAST"
    assert [r[0] for r in run(db, sql)] == [5, 4, 3, 2, 1, 6]
    pg, _ = present("SELECT order_id FROM orders", [form], "postgres")
    assert pg == "SELECT order_id FROM orders ORDER BY orders.order_date ASC"


def test_sort_uses_alias_in_joins(db: sqlite3.Connection) -> None:
    sql, _ = present(
        "SELECT c.name, o.total_amount FROM customers AS c JOIN orders AS o ON o.customer_id = c.customer_id",
        [SORT_NEWEST],
    )
    assert sql.endswith("ORDER BY o.order_date DESC")
    assert run(db, sql)[0] == ("Asha", 10.0)


def test_sort_leaves_own_order_alone() -> None:
    original = "SELECT order_id FROM orders ORDER BY total_amount"
    sql, outcome = present(original, [SORT_NEWEST])
    assert sql == original
    assert outcome.skipped == ((0, "the answer sets its own order"),)
    same = "SELECT order_id FROM orders ORDER BY order_date DESC"
    sql, outcome = present(same, [SORT_NEWEST])
    assert sql == same and outcome.applied == (0,)


def test_sort_skips_one_aggregate_row() -> None:
    sql, outcome = present("SELECT COUNT(*), SUM(total_amount) FROM orders", [SORT_NEWEST, LIMIT_3])
    assert sql == "SELECT COUNT(*), SUM(total_amount) FROM orders"
    assert outcome.applied == ()
    assert [reason for _, reason in outcome.skipped] == ["the answer is a single aggregate row"] * 2


def test_window_function_is_not_an_aggregate_row(db: sqlite3.Connection) -> None:
    sql, outcome = present("SELECT order_id, SUM(total_amount) OVER () AS t FROM orders", [SORT_NEWEST])
    assert outcome.applied == (0,)
    assert run(db, sql)[0] == (1, 210.0)


def test_sort_with_group_by_only_when_grouped(db: sqlite3.Connection) -> None:
    grouped = "SELECT order_date, COUNT(*) FROM orders GROUP BY order_date"
    sql, outcome = present(grouped, [SORT_NEWEST])
    assert outcome.applied == (0,) and sql.endswith("ORDER BY orders.order_date DESC")
    assert run(db, sql)[0] == ("2024-05-30", 1)
    by_status = "SELECT status, COUNT(*) FROM orders GROUP BY status"
    sql, outcome = present(by_status, [SORT_NEWEST])
    assert sql == by_status
    assert outcome.skipped == ((0, "the answer groups its rows and order_date is not one of the groups"),)


def test_sort_with_distinct_only_when_projected(db: sqlite3.Connection) -> None:
    sql, outcome = present("SELECT DISTINCT o.order_date AS d FROM orders AS o", [SORT_NEWEST])
    assert outcome.applied == (0,) and sql.endswith("ORDER BY d DESC")
    assert run(db, sql)[0] == ("2024-05-30",)
    pg, _ = present("SELECT DISTINCT order_date, status FROM orders", [SORT_NEWEST], "postgres")
    assert pg.endswith("ORDER BY orders.order_date DESC NULLS LAST")
    sql, outcome = present("SELECT DISTINCT status FROM orders", [SORT_NEWEST])
    assert sql == "SELECT DISTINCT status FROM orders"
    assert outcome.skipped == ((0, "the answer lists distinct rows without order_date"),)
    pg, outcome = present("SELECT DISTINCT ON (customer_id) customer_id, order_date FROM orders", [SORT_NEWEST],
                          "postgres")
    assert "ORDER BY" not in pg and outcome.skipped[0][1] == "the answer's DISTINCT ON decides its own order"


def test_sort_union_by_output_name(db: sqlite3.Connection) -> None:
    union = "SELECT order_id, order_date FROM orders WHERE status = 'delivered' UNION ALL " \
            "SELECT order_id, order_date FROM orders WHERE status = 'returned'"
    sql, outcome = present(union, [SORT_NEWEST])
    assert outcome.applied == (0,) and sql.endswith("ORDER BY order_date DESC")
    assert [r[0] for r in run(db, sql)] == [1, 2, 3, 5]
    pg, _ = present(union, [SORT_NEWEST, LIMIT_3], "postgres")
    assert pg.endswith("ORDER BY order_date DESC NULLS LAST LIMIT 3")
    ids = "SELECT order_id FROM orders UNION SELECT customer_id FROM customers"
    sql, outcome = present(ids, [SORT_NEWEST])
    assert sql == ids
    assert outcome.skipped == ((0, "order_date is not a column of the combined (UNION) answer"),)


def test_sort_only_the_outermost_query(db: sqlite3.Connection) -> None:
    nested = (
        "SELECT c.name FROM customers AS c WHERE c.customer_id IN (SELECT o.customer_id FROM orders AS o)"
    )
    sql, outcome = present(nested, [SORT_NEWEST])
    assert sql == nested
    assert outcome.skipped == ((0, "the answer's outer query does not read orders directly"),)
    cte = "WITH recent AS (SELECT order_id, order_date FROM orders) SELECT order_id FROM recent"
    sql, outcome = present(cte, [SORT_NEWEST])
    assert sql == cte and outcome.skipped[0][1] == "the answer's outer query does not read orders directly"
    outer = (
        "WITH big AS (SELECT customer_id FROM orders WHERE total_amount > 25) "
        "SELECT o.order_id FROM orders AS o WHERE o.customer_id IN (SELECT customer_id FROM big)"
    )
    sql, outcome = present(outer, [SORT_NEWEST])
    assert outcome.applied == (0,)
    assert sql.count("ORDER BY") == 1 and sql.endswith("ORDER BY o.order_date DESC")
    assert run(db, sql) == [(3,), (4,), (5,), (6,)]


def test_sort_ignores_cte_named_like_the_table() -> None:
    shadow = "WITH orders AS (SELECT order_id FROM orders) SELECT order_id FROM orders"
    sql, outcome = present(shadow, [SORT_NEWEST])
    assert sql == shadow and outcome.applied == ()


def test_second_sort_does_not_stack() -> None:
    by_total = {"kind": "sort", "table": "orders", "column": "total_amount", "direction": "ASC"}
    sql, outcome = present("SELECT order_id FROM orders", [SORT_NEWEST, by_total])
    assert sql.endswith("ORDER BY orders.order_date DESC")
    assert outcome.applied == (0,)
    assert outcome.skipped == ((1, "an earlier saved sort already orders this answer"),)


def test_sort_with_bad_direction_is_skipped() -> None:
    sql, outcome = present("SELECT order_id FROM orders", [{**SORT_NEWEST, "direction": "sideways"}])
    assert sql == "SELECT order_id FROM orders" and outcome.skipped[0][0] == 0


# -- limit --------------------------------------------------------------------------------------------------


def test_limit_added_to_outermost(db: sqlite3.Connection) -> None:
    sql, outcome = present(
        "SELECT o.order_id FROM orders AS o WHERE o.order_id IN (SELECT order_id FROM orders)", [LIMIT_3]
    )
    assert outcome.applied == (0,)
    assert sql == "SELECT o.order_id FROM orders AS o WHERE o.order_id IN (SELECT order_id FROM orders) LIMIT 3"
    assert len(run(db, sql)) == 3
    pg, _ = present("SELECT order_id FROM orders", [LIMIT_3, SORT_NEWEST], "postgres")
    assert pg == "SELECT order_id FROM orders ORDER BY orders.order_date DESC NULLS LAST LIMIT 3"


def test_limit_on_cte_query_and_grouped_rows(db: sqlite3.Connection) -> None:
    cte = "WITH r AS (SELECT customer_id FROM orders) SELECT customer_id, COUNT(*) FROM r GROUP BY customer_id"
    sql, outcome = present(cte, [{"kind": "limit", "value": 2}])
    assert outcome.applied == (0,) and sql == cte + " LIMIT 2"
    assert len(run(db, sql)) == 2


@pytest.mark.parametrize(
    ("sql", "dialect"),
    [
        ("SELECT order_id FROM orders LIMIT 10", "sqlite"),
        ("SELECT order_id FROM orders LIMIT 10 OFFSET 2", "postgres"),
        ("SELECT order_id FROM orders FETCH FIRST 10 ROWS ONLY", "postgres"),
        ("SELECT TOP 10 order_id FROM orders", "tsql"),
    ],
)
def test_limit_leaves_own_limit_alone(sql: str, dialect: str) -> None:
    before = sqlglot.parse_one(sql, read=dialect).sql(dialect=dialect)
    out, outcome = present(sql, [LIMIT_3], dialect)
    assert out == before
    assert outcome.skipped == ((0, "the answer sets its own row limit"),)


def test_limit_already_the_same_is_applied_unchanged() -> None:
    sql, outcome = present("SELECT order_id FROM orders LIMIT 3", [LIMIT_3])
    assert sql == "SELECT order_id FROM orders LIMIT 3" and outcome.applied == (0,)


@pytest.mark.parametrize("value", [0, -1, "10", 2.5, True, None])
def test_limit_needs_positive_int(value: object) -> None:
    sql, outcome = present("SELECT order_id FROM orders", [{"kind": "limit", "value": value}])
    assert sql == "SELECT order_id FROM orders"
    assert outcome.skipped == ((0, "the saved row limit is not a positive whole number"),)


def test_limit_skips_query_without_rows() -> None:
    sql, outcome = present("SELECT 1 AS one", [LIMIT_3])
    assert sql == "SELECT 1 AS one" and outcome.skipped == ((0, "the answer is a single row"),)
    sql, outcome = present("SELECT MAX(order_date) FROM orders HAVING COUNT(*) > 1", [LIMIT_3])
    assert "LIMIT" not in sql and outcome.skipped[0][1] == "the answer is a single aggregate row"


# -- columns ------------------------------------------------------------------------------------------------


def test_columns_added_right_after_when(db: sqlite3.Connection) -> None:
    sql, outcome = present("SELECT o.order_id, o.total_amount FROM orders AS o", [SHOW_CUSTOMER])
    assert sql == "SELECT o.order_id, o.customer_id, o.status, o.total_amount FROM orders AS o"
    assert outcome.applied == (0,)
    assert run(db, sql)[0] == (1, 1, "delivered", 10.0)
    pg, _ = present("SELECT order_id AS id FROM orders", [SHOW_CUSTOMER], "postgres")
    assert pg == "SELECT order_id AS id, orders.customer_id, orders.status FROM orders"


def test_columns_only_missing_ones(db: sqlite3.Connection) -> None:
    sql, outcome = present("SELECT order_id, status FROM orders", [SHOW_CUSTOMER])
    assert sql == "SELECT order_id, orders.customer_id, status FROM orders"
    assert outcome.applied == (0,)
    assert run(db, sql)[0] == (1, 1, "delivered")


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT order_id, customer_id, status FROM orders",
        "SELECT o.status, o.order_id, o.customer_id FROM orders AS o",
        "SELECT * FROM orders",
        "SELECT o.* FROM orders AS o",
    ],
)
def test_columns_already_shown_leave_query_alone(sql: str) -> None:
    out, outcome = present(sql, [SHOW_CUSTOMER])
    assert out == sqlglot.parse_one(sql, read="sqlite").sql(dialect="sqlite")
    assert outcome.applied == (0,) and outcome.skipped == ()


def test_columns_in_a_join_need_a_qualified_when(db: sqlite3.Connection) -> None:
    join = "SELECT c.name, o.order_id FROM customers AS c JOIN orders AS o ON o.customer_id = c.customer_id"
    sql, outcome = present(join, [SHOW_CUSTOMER])
    assert sql == (
        "SELECT c.name, o.order_id, o.customer_id, o.status FROM customers AS c "
        "JOIN orders AS o ON o.customer_id = c.customer_id"
    )
    assert len(run(db, sql)) == 6
    bare = "SELECT name, order_id FROM customers AS c JOIN orders AS o ON o.customer_id = c.customer_id"
    sql, outcome = present(bare, [SHOW_CUSTOMER])
    assert sql == bare and outcome.skipped == ((0, "the answer does not show orders.order_id"),)


@pytest.mark.parametrize(
    ("sql", "reason"),
    [
        ("SELECT order_id, COUNT(*) FROM orders GROUP BY order_id", "the answer groups its rows"),
        ("SELECT DISTINCT order_id FROM orders", "extra columns would change which distinct rows the answer lists"),
        ("SELECT MAX(order_id) AS order_id FROM orders", "the answer is a single aggregate row"),
        ("SELECT order_id FROM orders UNION SELECT customer_id FROM customers",
         "the answer combines queries (UNION), whose columns must match"),
        ("SELECT total_amount FROM orders", "the answer does not show orders.order_id"),
        ("SELECT r.order_id FROM (SELECT order_id FROM orders) AS r",
         "the answer's outer query does not read orders directly"),
        ("SELECT a.order_id FROM orders AS a JOIN orders AS b ON a.customer_id = b.customer_id",
         "the answer's outer query reads orders more than once"),
    ],
)
def test_columns_skips(db: sqlite3.Connection, sql: str, reason: str) -> None:
    out, outcome = present(sql, [SHOW_CUSTOMER])
    assert out == sqlglot.parse_one(sql, read="sqlite").sql(dialect="sqlite")
    assert outcome.skipped == ((0, reason),) and outcome.applied == ()
    run(db, out)


def test_columns_only_outermost_select(db: sqlite3.Connection) -> None:
    sql, _ = present(
        "WITH r AS (SELECT order_id FROM orders) SELECT o.order_id FROM orders AS o "
        "WHERE o.order_id IN (SELECT order_id FROM r)",
        [SHOW_CUSTOMER],
    )
    assert sql.startswith("WITH r AS (SELECT order_id FROM orders) SELECT o.order_id, o.customer_id, o.status ")
    assert len(run(db, sql)) == 6


# -- all together -------------------------------------------------------------------------------------------


def test_other_kinds_are_ignored() -> None:
    forms = [{"kind": "filter", "table": "orders", "column": "status", "op": "=", "value": "x"},
             {"kind": "display", "setting": "currency", "value": "EUR"}, LIMIT_3]
    sql, outcome = present("SELECT order_id FROM orders", forms)
    assert sql == "SELECT order_id FROM orders LIMIT 3"
    assert outcome.applied == (2,) and outcome.skipped == ()


@pytest.mark.parametrize("dialect", ["sqlite", "postgres"])
def test_filters_then_presentation(db: sqlite3.Connection, dialect: str) -> None:
    window = {"kind": "window", "table": "orders", "column": "order_date", "amount": 6, "unit": "month"}
    filtered = enforce_filters(sqlglot.parse_one("SELECT o.order_id FROM orders AS o", read=dialect), [window],
                               dialect, today=TODAY)
    outcome = apply_presentation(filtered.expression, [SHOW_CUSTOMER, SORT_NEWEST, LIMIT_3], dialect)
    sql = outcome.expression.sql(dialect=dialect)
    assert outcome.applied == (0, 1, 2)
    assert isinstance(sqlglot.parse_one(sql, read=dialect), exp.Select)
    if dialect == "postgres":
        assert sql == (
            "SELECT o.order_id, o.customer_id, o.status FROM orders AS o "
            "WHERE o.order_date >= CAST('2023-11-30' AS DATE) ORDER BY o.order_date DESC NULLS LAST LIMIT 3"
        )
    else:
        assert run(db, sql) == [(1, 1, "delivered"), (2, 1, "returned"), (3, 2, "delivered")]
