"""How the database would run a query: its plan as a tree, from ``EXPLAIN`` without ``ANALYZE`` (nothing runs).

The SQL is first checked as any other (read-only guard, names against the schema); only that checked SELECT is
explained. PostgreSQL gives a JSON plan (node type, the table and index, estimated rows and cost); SQLite its
``EXPLAIN QUERY PLAN`` steps with their parents; other databases (DuckDB, MySQL) their text plan, one node a line.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.cancellation import Cancellation
from core.databases import QueryLimits
from core.errors import QueryFailed

__all__ = ["PlanNode", "query_plan"]


@dataclass(frozen=True)
class PlanNode:
    label: str  # "Seq Scan on orders", "SEARCH customers USING INTEGER PRIMARY KEY (rowid=?)"
    detail: str = ""  # estimates: "rows ≈ 1,000 · cost 0.00–35.50"
    children: tuple[PlanNode, ...] = ()

    def lines(self, depth: int = 0) -> list[str]:
        """The tree as indented text (for the command line and tests)."""
        own = "  " * depth + self.label + (f"  ({self.detail})" if self.detail else "")
        return [own, *(line for child in self.children for line in child.lines(depth + 1))]


def query_plan(pipeline: Any, sql: str, *, cancel: Cancellation | None = None) -> PlanNode:
    """The plan of ``sql`` on ``pipeline``'s database; raises the CairnError that refuses the SQL or the plan."""
    checked = pipeline.checked_sql(sql, cancel=cancel)
    database = pipeline.database
    dialect = database.dialect
    prefix = {"postgres": "EXPLAIN (FORMAT JSON) ", "sqlite": "EXPLAIN QUERY PLAN "}.get(dialect, "EXPLAIN ")
    limits = QueryLimits(max_rows=10_000, timeout_s=min(30.0, pipeline.limits.timeout_s))
    result = database.execute(prefix + checked, limits=limits, cancel=cancel)
    if dialect == "postgres":
        raw = result.rows[0][0] if result.rows else "[]"
        plans = json.loads(raw) if isinstance(raw, str) else raw
        if not plans or "Plan" not in plans[0]:
            raise QueryFailed("The database gave no plan for this query.")
        return _postgres_node(plans[0]["Plan"])
    if dialect == "sqlite":
        return _sqlite_tree(result.rows)
    return PlanNode("Plan", children=tuple(PlanNode(" ".join(str(v) for v in row if v is not None))
                                           for row in result.rows))


def _postgres_node(node: Mapping[str, Any]) -> PlanNode:
    label = str(node.get("Node Type", "step"))
    if node.get("Relation Name"):
        label += f" on {node['Relation Name']}"
        if node.get("Alias") and node["Alias"] != node["Relation Name"]:
            label += f" {node['Alias']}"
    if node.get("Index Name"):
        label += f" using {node['Index Name']}"
    for key in ("Hash Cond", "Index Cond", "Filter", "Join Filter", "Group Key", "Sort Key"):
        if node.get(key):
            value = node[key]
            label += f" · {key.lower()}: {', '.join(value) if isinstance(value, list) else value}"
    detail = []
    if "Plan Rows" in node:
        detail.append(f"rows ≈ {int(node['Plan Rows']):,}")
    if "Total Cost" in node:
        detail.append(f"cost {float(node.get('Startup Cost', 0)):.2f}–{float(node['Total Cost']):.2f}")
    return PlanNode(label, " · ".join(detail), tuple(_postgres_node(c) for c in node.get("Plans", ())))


def _sqlite_tree(rows: Sequence[Sequence[Any]]) -> PlanNode:
    """``EXPLAIN QUERY PLAN`` rows (id, parent, notused, detail) as a tree."""
    children: dict[int, list[tuple[int, str]]] = {}
    for row in rows:
        children.setdefault(int(row[1]), []).append((int(row[0]), str(row[3])))

    def build(parent: int) -> tuple[PlanNode, ...]:
        return tuple(PlanNode(detail, "", build(own)) for own, detail in children.get(parent, []))

    return PlanNode("Query plan", "", build(0))
