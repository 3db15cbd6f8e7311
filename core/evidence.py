"""Bounded evidence about an answer that ran: what could make it wrong, measured, with the other query.

Today: an inner join that adds no column but changes the rows (``core.sql.joins_adding_no_column``). The query
without the join runs under the same limits; when its rows differ, the answer says how ("7 instead of 4") and
offers the other query. Nothing is changed on a guess: the person decides.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from typing import Any

import sqlglot
from sqlglot.errors import SqlglotError

from core.answer import Alternative
from core.databases import QueryResult
from core.errors import CairnError
from core.prompt import tables_called_by_name
from core.schema import Schema
from core.sql import guard, joins_adding_no_column

__all__ = ["join_evidence"]

logger = logging.getLogger(__name__)


def join_evidence(question: str, sql: str, result: QueryResult, schema: Schema,
                  execute: Callable[[str], QueryResult]) -> tuple[list[str], list[Alternative]]:
    """Notes and alternatives for the joins of ``sql`` that add no column but change its rows. A join to a table
    the question calls by its name ("courses per teacher") is meant: its rows are what is counted."""
    if result.truncated:
        return [], []  # capped rows cannot be compared
    try:
        tree = sqlglot.parse_one(sql, read=schema.dialect)
    except (SqlglotError, RecursionError, ValueError):
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
    return f"{len(after):,} row(s) instead of {len(before):,}"
