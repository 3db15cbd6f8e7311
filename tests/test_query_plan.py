"""The plan of a query, as the database would run it: checked like any SQL first, then EXPLAIN without ANALYZE, so
nothing runs (issue 30: what DBeaver and DataGrip users expect)."""

from __future__ import annotations

import shutil
import sqlite3
import time
from pathlib import Path

import pytest

from core.config import Settings
from core.databases import open_database
from core.errors import CairnError
from core.pipeline import AskPipeline
from core.replies import PlanNode, query_plan
from tests.fakes.scripted_llm import ScriptedLLM

JOIN = ("SELECT c.name, count(*) FROM customers c JOIN orders o ON o.customer_id = c.customer_id "
        "WHERE c.country = 'India' GROUP BY c.name")


def _labels(node: PlanNode) -> list[str]:
    return [node.label, *(label for child in node.children for label in _labels(child))]


def test_a_postgres_plan_is_a_tree_of_steps_with_estimates(db) -> None:
    pipeline = AskPipeline(db, ScriptedLLM(), Settings())
    plan = query_plan(pipeline, JOIN)
    labels = " | ".join(_labels(plan))
    assert "on customers" in labels and "on orders" in labels and plan.children  # nested steps
    assert "rows ≈" in plan.detail and "cost" in plan.detail
    slow = "SELECT count(*) FROM generate_series(1, 2000000000) a"  # would run for minutes
    started = time.monotonic()
    query_plan(pipeline, slow)
    assert time.monotonic() - started < 5  # planned, not run


def test_a_sqlite_plan_nests_its_steps(tmp_path: Path) -> None:
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT, country TEXT);"
                           "CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER, total REAL);")
    conn.close()
    database = open_database(str(path))
    try:
        plan = query_plan(AskPipeline(database, ScriptedLLM(), Settings()), JOIN)
        text = "\n".join(plan.lines())
        assert "SCAN o" in text and "SEARCH c USING INTEGER PRIMARY KEY" in text  # SQLite names the aliases
    finally:
        database.close()


@pytest.mark.parametrize("sql", ["DELETE FROM orders", "EXPLAIN ANALYZE DELETE FROM orders",
                                 "SELECT nme FROM nowhere"])
def test_sql_that_would_be_refused_gets_no_plan(db, sql: str) -> None:
    with pytest.raises(CairnError):
        query_plan(AskPipeline(db, ScriptedLLM(), Settings()), sql)
