"""Bounded evidence about an answer that ran: what could make it wrong, measured, with the other query.

Two checks, each one more bounded query: an inner join that adds no column but changes the rows
(``core.sql.joins_adding_no_column``: the query without the join), and on SQLite an order or extreme taken of a
text column that holds numbers (``ORDER BY price``, ``MAX(price)``: '9' after '100'; the query with the column
read as a number). When the other query's rows differ, the answer says how ("7 instead of 4") and offers it.
Nothing is changed on a guess: the person decides (and the model, shown the finding, may rewrite its query).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from core.answer import Alternative
from core.databases import QueryResult
from core.errors import CairnError
from core.prompt import column_said, tables_called_by_name
from core.schema import Column, Schema, Table
from core.sql import as_number, guard, holds_numbers_as_text, joins_adding_no_column

__all__ = ["check_answer", "completion_evidence", "join_evidence", "order_evidence"]

logger = logging.getLogger(__name__)


Execute = Callable[[str], QueryResult]


def check_answer(question: str, sql: str, result: QueryResult, schema: Schema, execute: Execute,
                 written: str | None = None) -> tuple[list[str], list[Alternative]]:
    """Notes and alternatives of every check, the joins' first; ``written`` is the query before Cairn's repairs."""
    notes, alternatives = join_evidence(question, sql, result, schema, execute)
    for check in (order_evidence(sql, result, schema, execute),
                  completion_evidence(question, written, sql, result, schema, execute) if written else ([], [])):
        notes += check[0]
        alternatives += check[1]
    return notes, alternatives


def completion_evidence(question: str, written: str, sql: str, result: QueryResult, schema: Schema,
                        execute: Execute) -> tuple[list[str], list[Alternative]]:
    """The other reading of an aggregate beside bare columns with no GROUP BY in the query as written.

    Completed (``SELECT region, SUM(amount) FROM sales`` grouped by region), the question may have asked for one
    total: the aggregates alone are offered, unless the question says every column split by ("per region"). Kept as SQLite's one-extreme idiom (``SELECT name, MAX(price)``: the
    row with the highest price), the question may have asked per name: the grouped query is offered."""
    before, after = _parse(written, schema.dialect), _parse(sql, schema.dialect)
    if (not isinstance(before, exp.Select) or not isinstance(after, exp.Select) or before.args.get("group")
            or after.args.get("having") or after.find(exp.Window)):  # fmt: skip
        return [], []
    totals = [p for p in after.expressions if p.find(exp.AggFunc)]
    bare = [p for p in after.expressions if not p.find(exp.AggFunc) and not isinstance(p.unalias(), exp.Literal)]
    if not totals or not bare or any(isinstance(p, exp.Star) or p.find(exp.Star) for p in bare):
        return [], []
    names = ", ".join(p.alias_or_name for p in bare)
    if after.args.get("group") and all(column_said(question, p.alias_or_name, _table_of(p.unalias(), after, schema))
                                       for p in bare):  # fmt: skip
        return [], []
    other_tree = after.copy()
    if after.args.get("group"):
        other_tree.set("expressions", [p.copy() for p in totals])
        for clause in ("group", "order", "limit", "offset"):
            other_tree.set(clause, None)
        label = f"One total, not split by {names}"
    else:  # SQLite's idiom ran: bare columns from the row holding the extreme
        other_tree.set("group", exp.Group(expressions=[p.unalias().copy() for p in bare]))
        label = f"One row per {names}"
    try:
        other_sql = guard(other_tree.sql(dialect=schema.dialect), schema.dialect).sql
        other = execute(other_sql)
    except CairnError as exc:
        logger.info("aggregate check skipped: %s", exc)
        return [], []
    if other.truncated or _same(result.rows, other.rows):
        return [], []
    if after.args.get("group"):
        value = f" ({other.rows[0][0]})" if len(other.rows) == 1 and len(other.rows[0]) == 1 else ""
        why = (f"The query had no GROUP BY; Cairn split its totals by {names}. If you asked for one total{value}, "
               "run the other query.")
    else:
        why = (f"The query has no GROUP BY, so {names} come from the one row holding the extreme. If you asked "
               f"for one row per {names} ({_rows(len(other.rows))}), run the other query.")
    return [why], [Alternative(label, other_sql, why)]


def order_evidence(sql: str, result: QueryResult, schema: Schema,
                   execute: Execute) -> tuple[list[str], list[Alternative]]:
    """On SQLite, an ORDER BY key or a MIN/MAX argument that is a text column holding numbers of several lengths
    orders them as text ('9' after '100'): the query reading it as a number is run, and offered when its rows or
    their order differ. Codes with leading zeros ('007') keep their text order."""
    if schema.dialect != "sqlite" or result.truncated:
        return [], []
    tree = _parse(sql, schema.dialect)
    if tree is None:
        return [], []
    cast: list[str] = []
    for col in list(tree.find_all(exp.Column)):
        parent = col.parent.parent if isinstance(col.parent, exp.Ordered) else col.parent
        if not isinstance(parent, (exp.Order, exp.Max, exp.Min)) or not isinstance(col.this, exp.Identifier):
            continue
        column = _numbers_as_text(col, tree, schema)
        if column is not None:
            col.replace(as_number(col, column))
            cast.append(column.name)
    if not cast:
        return [], []
    names = ", ".join(dict.fromkeys(cast))
    try:
        other_sql = guard(tree.sql(dialect=schema.dialect), schema.dialect).sql
        other = execute(other_sql)
    except CairnError as exc:
        logger.info("order check skipped: %s", exc)
        return [], []
    if other.truncated or list(map(repr, other.rows)) == list(map(repr, result.rows)):
        return [], []
    how = "the rows come in another order" if _same(result.rows, other.rows) else _difference(result.rows, other.rows)
    why = (f"{names} holds numbers stored as text, so this answer orders them as text ('9' after '100'); read as "
           f"numbers, {how}.")
    return [why + " See the other query below the answer."], [Alternative(f"Read {names} as numbers", other_sql, why)]


def _owner(col: exp.Expression, tree: exp.Expression, schema: Schema) -> tuple[Table, Column] | None:
    """The one table column a column reference of ``tree`` reads (by its qualifier, else by its name)."""
    if not isinstance(col, exp.Column):
        return None
    tables = [t for t in (schema.table(n.name) for n in tree.find_all(exp.Table)) if t is not None]
    qualifier = col.table.lower()
    if qualifier:
        aliases = {(n.alias_or_name or "").lower(): n.name for n in tree.find_all(exp.Table)}
        tables = [t for t in tables if t.name.lower() == aliases.get(qualifier, qualifier).lower()]
    owners = [(t, c) for t in tables if (c := t.column(col.name)) is not None]
    return owners[0] if len(owners) == 1 else None


def _table_of(col: exp.Expression, tree: exp.Expression, schema: Schema) -> str:
    owner = _owner(col, tree, schema)
    return owner[0].name if owner else ""


def _numbers_as_text(col: exp.Column, tree: exp.Expression, schema: Schema) -> Column | None:
    """The table column ``col`` reads when it holds numbers of several lengths as text, else None."""
    owner = _owner(col, tree, schema)
    if owner is None or not holds_numbers_as_text(owner[1]):
        return None
    column = owner[1]
    hints = [str(v).strip().lstrip("+-") for v in column.value_hints]
    lengths = {len(v.split(".")[0]) for v in hints}
    if len(lengths) < 2 or any(len(v) > 1 and v.startswith("0") and not v.startswith("0.") for v in hints):
        return None
    return column


def _parse(sql: str, dialect: str) -> exp.Expression | None:
    try:
        return sqlglot.parse_one(sql, read=dialect)
    except (SqlglotError, RecursionError, ValueError):
        return None


def join_evidence(question: str, sql: str, result: QueryResult, schema: Schema,
                  execute: Execute) -> tuple[list[str], list[Alternative]]:
    """Notes and alternatives for the joins of ``sql`` that add no column but change its rows. A join to a table
    the question calls by its name ("courses per teacher") is meant: its rows are what is counted."""
    if result.truncated:
        return [], []  # capped rows cannot be compared
    tree = _parse(sql, schema.dialect)
    if tree is None:
        return [], []
    notes: list[str] = []
    alternatives: list[Alternative] = []
    named = {t.split(".")[-1].lower() for t in tables_called_by_name(schema, question)}
    for check in joins_adding_no_column(tree, schema, schema.dialect):
        if check.table.split(".")[-1].lower() in named:
            continue
        try:
            other_sql = guard(check.without, schema.dialect).sql
            other = execute(other_sql)
        except CairnError as exc:  # the other query does not run: nothing to compare
            logger.info("join check for %s skipped: %s", check.table, exc)
            continue
        if other.truncated or _same(result.rows, other.rows):
            continue
        how = _difference(result.rows, other.rows)
        why = f"The join to {check.table} adds no column to this answer but changes it: without it, {how}."
        notes.append(why + " See the other query below the answer.")
        alternatives.append(Alternative(f"Without the join to {check.table}", other_sql, why))
    return notes, alternatives


def _same(a: tuple[tuple[Any, ...], ...], b: tuple[tuple[Any, ...], ...]) -> bool:
    return Counter(map(repr, a)) == Counter(map(repr, b))


def _difference(before: tuple[tuple[Any, ...], ...], after: tuple[tuple[Any, ...], ...]) -> str:
    if len(before) == len(after) == 1 and len(before[0]) == len(after[0]) == 1:
        return f"the result is {after[0][0]} instead of {before[0][0]}"
    if len(before) != len(after):
        return f"{_rows(len(after))} instead of {len(before):,}"
    differ = sum((Counter(map(repr, before)) - Counter(map(repr, after))).values())
    return f"{differ:,} of the {_rows(len(before))} differ"


def _rows(n: int) -> str:
    return f"{n:,} row" if n == 1 else f"{n:,} rows"
