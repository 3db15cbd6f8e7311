"""Issue 32, hardening 4 (resources): the guard refuses SQL that builds one value of unbounded size on the
server — a string/array/JSON aggregate over rows nothing bounds, a repeat/lpad/zeroblob/format width too large
or read from the data — with an SQLUnbounded that says how to bound it; the common bounded forms still pass and
run. (The PostgreSQL backend grew 1.9 GB per 1 GB aggregate: ``SELECT string_agg(repeat('x', 1e6), '') FROM
generate_series(1, 1000)``.)"""

from __future__ import annotations

import pytest

from core.errors import CairnError, SQLRejected, SQLUnbounded
from core.sql import guard

REFUSED = [
    ("postgres", "SELECT string_agg(repeat('x', 1000), '') FROM generate_series(1, 1000000)"),
    ("postgres", "SELECT string_agg(name, ', ' ORDER BY name) FROM customers"),
    ("postgres", "SELECT string_agg(name, ', ') FROM customers LIMIT 10"),  # one row whatever it read
    ("postgres", "SELECT city, string_agg(name, ', ') FROM customers GROUP BY city"),  # groups without a LIMIT
    ("postgres", "SELECT city, string_agg(name, ', ') FROM customers GROUP BY city LIMIT 100000"),
    ("postgres", "SELECT json_agg(repeat('j', 1000)) FROM generate_series(1, 200000)"),
    ("postgres", "SELECT jsonb_agg(c) FROM customers c"),
    ("postgres", "SELECT json_object_agg(customer_id, name) FROM customers"),
    ("postgres", "SELECT array_agg(order_id) FROM orders"),
    ("postgres", "SELECT array_agg(order_id) OVER (ORDER BY order_id) FROM orders LIMIT 10"),  # n growing values
    ("postgres", "SELECT xmlagg(xmlelement(name x, name)) FROM customers"),
    ("postgres", "SELECT ARRAY(SELECT order_id FROM orders)"),
    ("postgres", ("SELECT string_agg(a.name, '') FROM (SELECT name FROM customers LIMIT 10000) a "
                 "CROSS JOIN (SELECT name FROM customers LIMIT 10000) b")),  # 10^8 rows from two bounded sources
    ("postgres", ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 10) "
                 "SELECT string_agg(x::text, ',') FROM c")),  # a recursive CTE's rows are not counted as bounded
    ("postgres", "SELECT repeat('x', 100000000)"),
    ("postgres", "SELECT repeat('x', 1e8::int) FROM generate_series(1, 50)"),
    ("postgres", "SELECT repeat('x', 1000 * 1000 * 1000)"),
    ("postgres", "SELECT repeat('*', customer_id) FROM orders"),  # a size from the data
    ("postgres", "SELECT rpad('x', 1000000000)"),
    ("postgres", "SELECT lpad('x', 2147483647, 'y')"),
    ("postgres", "SELECT format('%1000000000s', 'x')"),
    ("postgres", "SELECT array_fill(0, ARRAY[1000000000])"),
    ("sqlite", "SELECT group_concat(name) FROM customers"),
    ("sqlite", "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT group_concat(x) FROM c"),
    ("sqlite", "SELECT json_group_array(name) FROM customers"),
    ("sqlite", "SELECT printf('%.*c', 3000000, 'x')"),
    ("sqlite", "SELECT zeroblob(1000000000)"),
    ("sqlite", "SELECT randomblob(50000000) FROM customers"),
    ("mysql", "SELECT GROUP_CONCAT(name SEPARATOR ',') FROM customers"),
    ("mysql", "SELECT space(1000000000)"),
    ("duckdb", "SELECT list(name) FROM customers"),
]

ACCEPTED = [
    ("postgres", "SELECT city, string_agg(name, ', ') FROM customers GROUP BY city LIMIT 100"),
    ("postgres", ("SELECT * FROM (SELECT city, string_agg(name, ', ') AS names FROM customers GROUP BY city) s "
                 "ORDER BY city LIMIT 20")),
    ("postgres", "SELECT string_agg(name, ', ' ORDER BY name) FROM (SELECT name FROM customers LIMIT 1000) c"),
    ("postgres", ("WITH top AS (SELECT name FROM customers ORDER BY name LIMIT 50) SELECT string_agg(name, ', ') "
                 "FROM top")),
    ("postgres", "SELECT array_agg(x) FROM (VALUES (1), (2), (3)) v(x)"),
    ("postgres", "SELECT ARRAY(SELECT order_id FROM orders ORDER BY order_id LIMIT 10)"),
    ("postgres", "SELECT repeat('-', 20), lpad(name, 20), rpad(name, 30, '.') FROM customers"),
    ("postgres", "SELECT status, repeat('*', LEAST(count(*)::int, 50)) FROM orders GROUP BY status"),
    ("postgres", "SELECT format('%s in %s', name, city) FROM customers"),
    ("postgres", "SELECT count(*), sum(total_amount) FROM orders"),
    ("sqlite", "SELECT city, group_concat(name, ', ') FROM customers GROUP BY city LIMIT 20"),
    ("sqlite", ("SELECT printf('%.2f', total_amount), printf('%10s', name) FROM orders JOIN customers USING "
               "(customer_id)")),
    ("sqlite", "SELECT randomblob(16), zeroblob(4)"),
    ("mysql", "SELECT city, GROUP_CONCAT(name SEPARATOR ',') FROM customers GROUP BY city LIMIT 50"),
]


@pytest.mark.parametrize(("dialect", "sql"), REFUSED)
def test_unbounded_values_are_refused_with_a_hint(dialect: str, sql: str) -> None:
    with pytest.raises(SQLUnbounded) as caught:
        guard(sql, dialect)
    assert isinstance(caught.value, SQLRejected) and isinstance(caught.value, CairnError)
    assert any(word in caught.value.hint for word in ("LIMIT", "LEAST", "width")), caught.value.hint


@pytest.mark.parametrize(("dialect", "sql"), ACCEPTED)
def test_bounded_analytics_forms_pass(dialect: str, sql: str) -> None:
    assert guard(sql, dialect).sql


def test_the_refusal_names_the_aggregate_as_the_dialect_writes_it() -> None:
    with pytest.raises(SQLUnbounded, match=r"^string_agg collects every row"):
        guard("SELECT group_concat(name) FROM customers", "postgres")
    with pytest.raises(SQLUnbounded, match=r"^group_concat collects"):
        guard("SELECT string_agg(name, ',') FROM customers", "sqlite")
    with pytest.raises(SQLUnbounded, match="100,000,000 characters"):
        guard("SELECT repeat('x', 100000000)", "postgres")


def test_bounded_forms_run_on_the_sample_database(sample_db_uri: str) -> None:
    from core.databases import PostgresDatabase

    db = PostgresDatabase(sample_db_uri)
    try:
        for dialect, sql in ACCEPTED:
            if dialect == "postgres":
                assert db.execute(guard(sql, dialect).sql).rows is not None
    finally:
        db.close()
