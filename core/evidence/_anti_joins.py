"""Rows without a match, asked for in a way that cannot give them: ``JOIN sales s ON s.car_id = c.id WHERE s.car_id
IS NULL`` keeps nothing (an inner join's key is never NULL), and ``SELECT s.id … LEFT JOIN sales s … WHERE s.car_id
IS NULL`` shows a column that is NULL on every row (the rows kept are exactly those ``s`` has no match for).

Both follow from the query alone: the first is offered as a LEFT JOIN, the second with the column of the same name
of the table that has the rows (``c.id``). The query that ran stays the answer.
"""

from __future__ import annotations

from sqlglot import exp

from core.answer import Alternative
from core.databases import QueryResult
from core.evidence._common import Execute, offer, parse, select_tables
from core.schema import Schema

__all__ = ["anti_join_evidence"]


def _matched_alias(join: exp.Join) -> dict[str, str]:
    """Columns of the joined table its ON equates with another table's (lower alias.column -> the other side)."""
    alias = (join.this.alias_or_name or "").lower() if isinstance(join.this, exp.Table) else ""
    out: dict[str, str] = {}
    on = join.args.get("on")
    for eq in on.find_all(exp.EQ) if on is not None else ():
        sides = [s for s in (eq.this, eq.expression) if isinstance(s, exp.Column) and s.table]
        if len(sides) != 2:
            continue
        for mine, other in (sides, sides[::-1]):
            if mine.table.lower() == alias and other.table.lower() != alias:
                out[f"{alias}.{mine.name.lower()}"] = other.table
    return out


def _null_tests(select: exp.Select) -> list[exp.Is]:
    where = select.args.get("where")
    if where is None:
        return []
    conditions = list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]
    return [c for c in conditions if isinstance(c, exp.Is) and isinstance(c.expression, exp.Null)
            and isinstance(c.this, exp.Column) and c.this.table]


def anti_join_evidence(sql: str, result: QueryResult, schema: Schema,
                       execute: Execute) -> tuple[list[str], list[Alternative]]:
    """The two slips of the module docstring, each with the query written as the idiom means it."""
    tree = parse(sql, schema.dialect)
    if tree is None or result.truncated:
        return [], []
    said: list[str] = []
    for select in list(tree.find_all(exp.Select)):
        tests = {f"{t.this.table.lower()}.{t.this.name.lower()}": t for t in _null_tests(select)}
        for join in select.args.get("joins") or ():
            matched = _matched_alias(join)
            tested = [key for key in matched if key in tests]
            if not tested:
                continue
            alias = tested[0].split(".")[0]
            if not join.side:  # an inner join: its matched key is never NULL, so nothing is kept
                join.set("side", "LEFT")
                join.set("kind", None)
                said.append(f"the inner join to {alias} never has {tests[tested[0]].this.sql()} NULL, so nothing is "
                            "kept; as a LEFT JOIN (rows without a match)")
            elif join.side.upper() == "LEFT":
                said += _null_side_shown(select, alias, matched[tested[0]], schema)
    if not said:
        return [], []
    return offer(tree.sql(dialect=schema.dialect), "Rows without a match",
                 lambda how: f"{'; '.join(said)}, {how}.", schema, execute, result)


def _null_side_shown(select: exp.Select, alias: str, other: str, schema: Schema) -> list[str]:
    """Columns shown bare from ``alias``, the side with no match (NULL on every row kept), read from ``other``, the
    table the rows come from, when it has a column of that name."""
    source = select_tables(select, schema).get(other.lower())
    said = []
    for item in select.expressions:
        col = item.this if isinstance(item, exp.Alias) else item
        if not isinstance(col, exp.Column) or col.table.lower() != alias or source is None:
            continue
        if source.column(col.name) is None:
            continue
        said.append(f"{col.sql()} is NULL on every row kept (they are the rows {alias} has no match for); "
                    f"shown from {other}")
        col.set("table", exp.to_identifier(other))
    return said
