"""Standing preference filters, enforced on the SQL itself: every SELECT that reads the table gets the filter.

The prompt asks the model to apply them too; this pass makes sure, whatever the model wrote. A query that
already constrains the same column (the person asked about another country explicitly) is left alone.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

__all__ = ["FilterOutcome", "enforce_filters", "filter_condition", "sql_literal"]

logger = logging.getLogger(__name__)

_OPS = {"=": exp.EQ, "<>": exp.NEQ, "!=": exp.NEQ, ">": exp.GT, ">=": exp.GTE, "<": exp.LT, "<=": exp.LTE}


@dataclass(frozen=True)
class FilterOutcome:
    expression: exp.Expression
    added: tuple[int, ...]  # indexes of filters added to the SQL
    present: tuple[int, ...]  # the model already wrote exactly this condition
    overridden: tuple[int, ...]  # the query constrains the same column differently (the question wins)


def sql_literal(value: Any) -> exp.Expression:
    """A Python value as a SQL literal expression."""
    if isinstance(value, bool):
        return exp.Boolean(this=value)
    if isinstance(value, (int, float)):
        return exp.Literal.number(value)
    return exp.Literal.string(str(value))


def filter_condition(spec: Mapping[str, Any], qualifier: str | None) -> exp.Expression | None:
    """The boolean expression of a structured filter, its column qualified by ``qualifier`` (alias or table)."""
    column = spec.get("column")
    op = str(spec.get("op", "=")).upper()
    if not column:
        return None
    col = exp.column(str(column), table=qualifier, quoted=None)
    value = spec.get("value")
    if op in ("IN", "NOT IN"):
        values = value if isinstance(value, (list, tuple)) else [value]
        cond: exp.Expression = exp.In(this=col, expressions=[sql_literal(v) for v in values])
        return exp.Not(this=cond) if op == "NOT IN" else cond
    builder = _OPS.get(op)
    if builder is None:
        return None
    return builder(this=col, expression=sql_literal(value))


def _direct_tables(select: exp.Select) -> list[exp.Table]:
    """Tables in this SELECT's own FROM and JOINs (not in nested subqueries)."""
    out: list[exp.Table] = []
    from_ = select.args.get("from") or select.args.get("from_")
    sources = [from_.this] if from_ is not None else []
    sources += [j.this for j in select.args.get("joins") or []]
    for src in sources:
        if isinstance(src, exp.Table):
            out.append(src)
    return out


def _constrains(select: exp.Select, qualifier: str, table: str, column: str) -> bool:
    where = select.args.get("where")
    if where is None:
        return False
    for col in where.find_all(exp.Column):
        if col.name.lower() != column.lower():
            continue
        if not col.table or col.table.lower() in (qualifier.lower(), table.lower()):
            return True
    return False


def enforce_filters(
    expression: exp.Expression, filters: Sequence[Mapping[str, Any]], dialect: str
) -> FilterOutcome:
    """AND each filter into every SELECT reading its table. ``expression`` is not changed (copied)."""
    tree = expression.copy()
    added: list[int] = []
    present: list[int] = []
    overridden: list[int] = []
    for index, spec in enumerate(filters):
        table = str(spec.get("table") or "").split(".")[-1]
        column = str(spec.get("column") or "")
        if not table or not column:
            continue
        for select in list(tree.find_all(exp.Select)):
            for source in _direct_tables(select):
                if source.name.lower() != table.lower():
                    continue
                qualifier = source.alias_or_name
                cond = filter_condition(spec, qualifier)
                if cond is None:
                    continue
                if _constrains(select, qualifier, table, column):
                    bucket = present if _has_condition(select, cond, dialect) else overridden
                    if index not in bucket:
                        bucket.append(index)
                    continue
                select.where(cond, append=True, copy=False, dialect=dialect)
                if index not in added:
                    added.append(index)
    return FilterOutcome(tree, tuple(added), tuple(present), tuple(overridden))


def _normalised(node: exp.Expression, dialect: str) -> str:
    bare = node.copy()
    for col in bare.find_all(exp.Column):
        col.set("table", None)
    return bare.sql(dialect=dialect).lower()


def _has_condition(select: exp.Select, cond: exp.Expression, dialect: str) -> bool:
    """True when WHERE already holds ``cond`` (ignoring qualifiers and case)."""
    where = select.args.get("where")
    if where is None:
        return False
    wanted = _normalised(cond, dialect)
    return any(_normalised(node, dialect) == wanted for node in where.walk() if isinstance(node, exp.Expression))
