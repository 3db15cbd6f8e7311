"""Rows without a match, asked for in a way that cannot give them: ``JOIN sales s ON s.car_id = c.id WHERE s.car_id
IS NULL`` keeps nothing (an inner join's key is never NULL), and ``SELECT s.id … LEFT JOIN sales s … WHERE s.car_id
IS NULL`` shows a column that is NULL on every row (the rows kept are exactly those ``s`` has no match for).

Both follow from the query alone: the first is offered as a LEFT JOIN, the second with the column of the same name
of the table that has the rows (``c.id``). And, where the question says "not", "no", "never" or "without", a LEFT
JOIN whose table is read nowhere else keeps every row: the rows without a match are offered. The query that ran
stays the answer.
"""

from __future__ import annotations

import re

from sqlglot import exp

from core.answer import Alternative
from core.databases import QueryResult
from core.evidence._common import Execute, offer, parse, select_tables
from core.schema import Schema

__all__ = ["anti_join_evidence", "unmatched_evidence"]


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


# "not", "no", "never", "without", and Hindi-English "nahi", "bina": the question asks for rows without something.
_NEGATION = re.compile(r"\b(?:not|no|never|without|none|haven't|hasn't|didn't|don't|doesn't|nahi|nahin|bina)\b|n't\b",
                       re.I)


def unmatched_evidence(question: str, sql: str, result: QueryResult, schema: Schema,
                       execute: Execute) -> tuple[list[str], list[Alternative]]:
    """"Merchants who have not issued any coupons" answered with ``merchants LEFT JOIN coupons c ON …`` that reads no
    column of ``c`` anywhere else and tests none for NULL: every merchant is kept. The rows without a match (``WHERE
    c.merchant_id IS NULL``) are offered when the question says not, no, never or without."""
    tree = parse(sql, schema.dialect)
    if not isinstance(tree, exp.Select) or result.truncated or not _NEGATION.search(question):
        return [], []
    for join in tree.args.get("joins") or ():
        matched = _matched_alias(join)
        if (join.side or "").upper() != "LEFT" or not matched:
            continue
        alias = next(iter(matched)).split(".")[0]
        elsewhere = [c for c in tree.find_all(exp.Column) if c.table.lower() == alias and c.find_ancestor(
            exp.Join) is not join]
        if elsewhere:
            continue  # its columns are shown, counted or tested: not an anti-join left half-written
        key = next(iter(matched)).split(".")[1]
        other = tree.copy()
        other.where(exp.Is(this=exp.column(key, table=alias), expression=exp.Null()), copy=False)
        return offer(other.sql(dialect=schema.dialect), "Rows without a match", lambda how, alias=alias: (
            f"The question asks for rows without something, and the LEFT JOIN to {alias} keeps every row (nothing "
            f"tests that {alias} has no match); only the rows without one, {how}."), schema, execute, result)
    return [], []
