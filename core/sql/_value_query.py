"""The one small query that asks a database how it spells values of one column (case-insensitive)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp

from core.schema import Schema
from core.sql._guard import guard

__all__ = ["value_lookup_sql"]


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
