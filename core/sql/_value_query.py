"""The one small query that asks a database how it spells values of one column (case-insensitive)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlglot import exp

from core.schema import Schema
from core.sql._guard import guard

__all__ = ["spelled_in", "value_lookup_sql"]


def value_lookup_sql(schema: Schema, table: str, column: str, values: Sequence[str]) -> str | None:
    """``SELECT DISTINCT col FROM table WHERE LOWER(CAST(col AS TEXT)) IN (...)``, checked read-only by the guard;
    None when the table or column does not exist."""
    t = schema.table(table)
    if t is None or t.column(column) is None:
        return None
    parts = t.qualified_name.split(".")
    source = exp.table_(parts[-1], db=parts[0] if len(parts) > 1 else None, quoted=True)
    col = exp.column(column, quoted=True)
    text = exp.Lower(this=exp.cast(col, "TEXT"))
    cond = exp.In(this=text, expressions=[exp.Literal.string(v.lower()) for v in values])
    query = exp.select(col).distinct().from_(source).where(cond).limit(len(values) * 4)
    return guard(query.sql(dialect=schema.dialect), schema.dialect).sql


def spelled_in(schema: Schema, table: str, column: str, values: Sequence[str],
               rows_of: Callable[[str], Sequence[Sequence[Any]]]) -> dict[str, str | None]:
    """How the database spells each written value in ``table.column`` (case-insensitive), or None when it does not
    occur; ``rows_of`` runs the one lookup query (:func:`value_lookup_sql`)."""
    wanted = [str(v) for v in values if str(v).strip()][:200]
    if not wanted:
        return {}
    sql = value_lookup_sql(schema, table, column, wanted)
    if sql is None:
        return {v: None for v in wanted}
    found = {str(r[0]).lower(): str(r[0]) for r in rows_of(sql) if r[0] is not None}
    return {v: found.get(v.lower()) for v in wanted}
