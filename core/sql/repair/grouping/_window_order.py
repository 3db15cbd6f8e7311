"""A ranking window written with no ORDER BY (``RANK() OVER ()``, ``ROW_NUMBER() OVER (PARTITION BY user_id)``): a
rank with no order is 1 on every row, a row number with none is any row's. Each reading is a guess the model is shown
first (``GUESSED``), and only where the query or the question says the order:

* the rank is shown by a SELECT that orders its rows by numbers — aggregates or number columns, never a label —
  (``… RANK() OVER () AS r … ORDER BY total DESC``):
  ranked in the order shown, the SELECT's own ORDER BY keys (an output name read as the expression it names);
* a row number per group in a CTE or derived table, where the question asks for the latest or the earliest one
  ("the latest balance of each user") and the tables it reads have exactly one date or time column: numbered by that
  column, newest or oldest first. Words for both, or neither, leave it as written.
"""

from __future__ import annotations

import re

from sqlglot import exp

from core.schema import Schema
from core.sql.repair._names import GUESSED, identifier
from core.sql.repair._tables import resolve_table
from core.sql.repair.grouping._ranks import output_named

__all__ = ["window_orders"]

_RANKING = (exp.RowNumber, exp.Rank, exp.DenseRank, exp.PercentRank, exp.CumeDist, exp.Ntile)
_LATEST = re.compile(r"\b(?:latest|most\s+recent|last|newest|current|recent|up[- ]to[- ]date|final)\b", re.IGNORECASE)
_EARLIEST = re.compile(r"\b(?:earliest|first|oldest|original|initial)\b", re.IGNORECASE)
_WHEN_TYPE = re.compile(r"date|time", re.IGNORECASE)


def window_orders(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str], question: str) -> None:
    """The ranking windows of the module docstring, given the order the query or the question says (guesses)."""
    for window in list(tree.find_all(exp.Window)):
        if not isinstance(window.this, _RANKING) or window.args.get("order") is not None:
            continue
        select = window.find_ancestor(exp.Select)
        if select is None or not any(window in list(item.find_all(exp.Window)) for item in select.expressions):
            continue
        order = _shown_order(select, schema, dialect) or _asked_order(window, select, schema, dialect, question)
        if order is None:
            continue
        written = window.sql(dialect=dialect)
        window.set("order", exp.Order(expressions=order))
        fixes.append(f"{written}: a ranking with no order (a rank of 1 on every row, or any row's number) -> "
                     f"{window.sql(dialect=dialect)}" + GUESSED)


def _shown_order(select: exp.Select, schema: Schema, dialect: str) -> list[exp.Ordered] | None:
    """The SELECT's own ORDER BY keys, an output name or position read as its expression; None where there is none
    or a key is itself a window."""
    order = select.args.get("order")
    if order is None or not order.expressions:
        return None
    keys = []
    for ordered in order.expressions:
        key = ordered.this
        if isinstance(key, exp.Literal) and key.is_int and 0 < int(key.name) <= len(select.expressions):
            key = select.expressions[int(key.name) - 1].unalias()
        else:
            key = output_named(key, select)
        if key.find(exp.Window) or isinstance(key, exp.Literal) or not (key.find(exp.AggFunc) or _numeric(
                key, select, schema, dialect)):
            return None  # a rank of a label's order (``ORDER BY name``) is no ranking the question need mean
        copy = ordered.copy()
        copy.set("this", key.copy())
        keys.append(copy)
    return keys


def _asked_order(window: exp.Window, select: exp.Select, schema: Schema, dialect: str,
                 question: str) -> list[exp.Ordered] | None:
    """Newest or oldest first by the one date column of the tables a CTE's or derived table's SELECT reads, where a
    row number per group is asked for the latest or the earliest."""
    if not isinstance(window.this, exp.RowNumber) or not window.args.get("partition_by") or not isinstance(
            select.parent, (exp.CTE, exp.Subquery)) or not question.isascii():
        return None
    latest, earliest = bool(_LATEST.search(question)), bool(_EARLIEST.search(question))
    if latest == earliest:
        return None
    start = select.args.get("from_") or select.args.get("from")
    sources = [start.this] if start is not None else []
    sources += [join.this for join in select.args.get("joins") or []]
    dated = []
    for source in sources:
        table = resolve_table(source, schema, dialect) if isinstance(source, exp.Table) else None
        if table is None:
            return None  # a derived source: its dates are not known here
        qualifier = source.args["alias"].this if source.args.get("alias") else source.this
        dated += [exp.Column(this=identifier(c.name, dialect), table=qualifier.copy()) for c in table.columns
                  if _WHEN_TYPE.search(c.type)]
    if len(dated) != 1:
        return None
    return [exp.Ordered(this=dated[0], desc=latest)]


def _numeric(key: exp.Expression, select: exp.Select, schema: Schema, dialect: str) -> bool:
    """Whether ``key`` is a column of a number type, of a table the SELECT reads."""
    if not isinstance(key, exp.Column):
        return False
    start = select.args.get("from_") or select.args.get("from")
    sources = [start.this] if start is not None else []
    sources += [join.this for join in select.args.get("joins") or []]
    for source in sources:
        table = resolve_table(source, schema, dialect) if isinstance(source, exp.Table) else None
        if table is None or key.table and key.table.lower() != source.alias_or_name.lower():
            continue
        column = next((c for c in table.columns if c.name.lower() == key.name.lower()), None)
        if column is not None:
            return bool(re.search(r"int|real|num|dec|float|double|money", column.type, re.IGNORECASE))
    return False
