"""What the checks share: parsing, running the other query under the guard, and saying how two results differ."""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import sqlglot
from sqlglot import exp

from core.answer import Alternative
from core.databases import QueryResult
from core.errors import CairnError
from core.schema import Column, Schema, Table
from core.sql import PARSE_FAILURES, guard

__all__ = ["AGGREGATE_NAMES", "Execute", "Rows", "difference", "holds_numbers", "offer", "other_rows", "owner", "parse",
           "rows_word", "same", "select_tables"]

logger = logging.getLogger(__name__)

Execute = Callable[[str], QueryResult]
AGGREGATE_NAMES: dict[type[exp.AggFunc], str] = {exp.Avg: "AVG", exp.Sum: "SUM", exp.Max: "MAX", exp.Min: "MIN",
                                                 exp.Count: "COUNT"}
_NUMBER_TYPE = re.compile(r"int|real|num|dec|float|double|money|serial", re.IGNORECASE)
Rows = tuple[tuple[Any, ...], ...]


def holds_numbers(type_: str | None) -> bool:
    """Whether a declared column type is a number type (INTEGER, REAL, NUMERIC(10,2), DOUBLE PRECISION, ...)."""
    return bool(_NUMBER_TYPE.search(type_ or ""))


def parse(sql: str, dialect: str) -> exp.Expression | None:
    try:
        return sqlglot.parse_one(sql, read=dialect)
    except (*PARSE_FAILURES, RecursionError):
        return None


def other_rows(sql: str, schema: Schema, execute: Execute, result: QueryResult, *,
               ordered: bool = False) -> tuple[str, QueryResult] | None:
    """Run the other query (guarded, under the evidence limits); it and its result when its rows differ from
    ``result``'s (in their order too when ``ordered``), else None. Nothing is claimed about capped rows."""
    if result.truncated:
        return None
    try:
        other_sql = guard(sql, schema.dialect).sql
        other = execute(other_sql)
    except CairnError as exc:  # the other query does not run: nothing to compare
        logger.info("evidence query skipped: %s", exc)
        return None
    if other.truncated:
        return None
    if ordered and list(map(_key, other.rows)) != list(map(_key, result.rows)):
        return other_sql, other
    return None if same(result.rows, other.rows) else (other_sql, other)


def offer(sql: str, label: str, why: Callable[[str], str], schema: Schema, execute: Execute, result: QueryResult, *,
          ordered: bool = False, more_rows: bool = False) -> tuple[list[str], list[Alternative]]:
    """Run the other query; when its rows differ (with ``more_rows``: when it has more of them, as a finer grouping
    labelled otherwise does only when the query merged groups), the note ``why(how they differ)`` and the one-click
    alternative."""
    found = other_rows(sql, schema, execute, result, ordered=ordered)
    if found is None or (more_rows and len(found[1].rows) <= len(result.rows)):
        return [], []
    text = why(difference(result.rows, found[1].rows))
    return [text + " See the other query below the answer."], [Alternative(label, found[0], text)]


def same(a: Rows, b: Rows) -> bool:
    return Counter(map(_key, a)) == Counter(map(_key, b))


def _key(row: tuple[Any, ...]) -> str:
    """A row's cells, numbers by value (20 and 20.0 are the same count), to compare two results."""
    return repr(tuple(round(float(v), 9) if isinstance(v, (int, float, Decimal)) and not isinstance(v, bool) else v
                      for v in row))


def difference(before: Rows, after: Rows) -> str:
    """How ``after`` differs from ``before``, in a few words: "the result is 4 instead of 3"."""
    if len(before) == len(after) == 1 and len(before[0]) == len(after[0]) == 1:
        return f"the result is {after[0][0]} instead of {before[0][0]}"
    if len(before) != len(after):
        return f"{rows_word(len(after))} instead of {len(before):,}"
    differ = sum((Counter(map(_key, before)) - Counter(map(_key, after))).values())
    if not differ:
        return "the rows come in another order"
    return f"{differ:,} of the {rows_word(len(before))} {'differs' if differ == 1 else 'differ'}"


def rows_word(n: int) -> str:
    return f"{n:,} row" if n == 1 else f"{n:,} rows"


def select_tables(select: exp.Select, schema: Schema) -> dict[str, Table | None]:
    """The tables a SELECT reads directly (not those of its subqueries), by lower-case alias or name; None for one the
    schema does not have (a CTE, a derived table)."""
    return {(t.alias_or_name or "").lower(): schema.table(t.name) for t in select.find_all(exp.Table)
            if t.find_ancestor(exp.Select) is select}


def owner(col: exp.Expression, tree: exp.Expression, schema: Schema) -> tuple[Table, Column] | None:
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
