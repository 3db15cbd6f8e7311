"""A metric written as SQL ("Revenue always means SUM(UnitPrice * Quantity) over InvoiceLine",
"track length in minutes = Milliseconds / 60000") -> the same expression, checked against the schema.

Analysts often define a number the way they would type it. The expression is parsed by sqlglot, every column
must be a real column of one table (named after "over/from/in", or the one table holding them all), and only
arithmetic, literals and a short list of functions are allowed: aggregates (SUM, AVG, COUNT, MIN, MAX) and
ROUND, ABS, COALESCE, NULLIF, CAST. Anything else (a subquery, pg_sleep, a string of words) is not SQL here
and the words go to the plain-language reader instead.
"""

from __future__ import annotations

import re

import sqlglot
from sqlglot import exp

from core.memory.forms._schema_match import column_expr
from core.schema import Schema, Table

__all__ = ["metric_from_sql"]

_AGGREGATES = (exp.Sum, exp.Avg, exp.Count, exp.Min, exp.Max)
_ALLOWED = (
    *_AGGREGATES, exp.Round, exp.Abs, exp.Coalesce, exp.Nullif, exp.Cast, exp.DataType, exp.Distinct,
    exp.Column, exp.Identifier, exp.Literal, exp.Star, exp.Paren, exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Neg,
)  # fmt: skip
_OPERATORS = (*_AGGREGATES, exp.Add, exp.Sub, exp.Mul, exp.Div)
_SOURCE = re.compile(r"\s+(?:over|from|in|on|of|across)\s+(?:the\s+)?(?:table\s+)?[\"'`]?(?P<table>[A-Za-z_][\w.]*)"
                     r"[\"'`]?(?:\s+table)?\s*$", re.IGNORECASE)  # fmt: skip
_SQLISH = re.compile(r"[()*/+]|\b(?:sum|avg|count|min|max)\s*\(", re.IGNORECASE)


def metric_from_sql(definition: str, schema: Schema) -> tuple[exp.Expression, Table, list[str]] | None:
    """(qualified expression, its table, its "table.column" names), or None when ``definition`` is not SQL."""
    text = " ".join(definition.split()).strip(" .;")
    if not _SQLISH.search(text):
        return None
    named: Table | None = None
    source = _SOURCE.search(text)
    if source:
        named = schema.table(source.group("table"))
        if named is None:
            return None
        text = text[: source.start()]
    try:
        parsed = sqlglot.parse_one(f"SELECT {text}", read=schema.dialect)
    except (sqlglot.errors.SqlglotError, ValueError):
        return None
    extra = any(value for key, value in parsed.args.items() if key != "expressions")  # FROM, WHERE, LIMIT...
    if not isinstance(parsed, exp.Select) or len(parsed.expressions) != 1 or extra:
        return None
    expr = parsed.expressions[0]
    if isinstance(expr, exp.Alias):
        expr = expr.this
    if not all(isinstance(node, _ALLOWED) for node in expr.walk()):
        return None
    for node in expr.walk():  # a comment is words, not SQL: it never rides along into the prompt
        node.comments = None
    if not isinstance(expr, _OPERATORS) and not expr.find(*_OPERATORS):
        return None  # a bare column is not a computation
    columns = list(expr.find_all(exp.Column))
    if not columns:
        return None
    table = named or _owner([c.name for c in columns], schema)
    if table is None:
        return None
    found: list[str] = []
    for col in columns:
        real = table.column(col.name)
        if real is None or (col.table and schema.table(col.table) is not table):
            return None
        col.replace(column_expr(table.qualified_name, real.name, schema.dialect))
        found.append(f"{table.qualified_name}.{real.name}")
    return expr, table, sorted(set(found))


def _owner(names: list[str], schema: Schema) -> Table | None:
    """The one table that has every column named."""
    owners = [t for t in schema.tables if all(t.column(n) is not None for n in names)]
    return owners[0] if len(owners) == 1 else None
