"""An ORM's way of writing a query, read as the SQL it stands for (``orm_idioms``, with the schema: only where the name
as written is no column, so no running query changes): Django's field lookups, ``price__gte = 10`` (``exact``,
``iexact``, ``contains``, ``icontains``, ``startswith``, ``istartswith``, ``endswith``, ``iendswith``, ``gt``, ``gte``,
``lt``, ``lte``, ``in``, ``range``, ``isnull``, ``year``, ``month``, ``day``), where the part before ``__`` is a column;
Python's ``None`` compared with IS, as NULL.
"""

from __future__ import annotations

import re

from sqlglot import exp

from core.schema import Schema

__all__ = ["orm_idioms"]

_COMPARE = {"exact": exp.EQ, "gt": exp.GT, "gte": exp.GTE, "lt": exp.LT, "lte": exp.LTE}
_PATTERN = {"contains": "%{}%", "startswith": "{}%", "endswith": "%{}"}
_PARTS = {"year": "YEAR", "month": "MONTH", "day": "DAY"}
_STRFTIME = {"year": "%Y", "month": "%m", "day": "%d"}


def orm_idioms(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str]) -> None:
    """Read, in place, an ORM's way of writing a query as the SQL it stands for (the module docstring); a name the
    schema has as a column is never read so."""
    columns = {c.name.lower() for t in schema.tables for c in t.columns}
    for node in list(tree.find_all(exp.Is, exp.NullSafeEQ, exp.NullSafeNEQ)):  # SQLite reads IS x as <=>
        if isinstance(node.expression, exp.Column) and not node.expression.table and node.expression.name == "None" \
                and not node.expression.this.quoted and "none" not in columns:
            node.set("expression", exp.Null())
            fixes.append("IS None -> IS NULL (Python's None)")
    for eq in list(tree.find_all(exp.EQ)):
        col = eq.this
        if not isinstance(col, exp.Column) or "__" not in col.name or col.name.lower() in columns:
            continue
        stem, _, lookup = col.name.rpartition("__")
        if not stem or stem.lower() not in columns:
            continue
        field = exp.Column(this=exp.to_identifier(stem), table=col.args.get("table"))
        read = _lookup(field, lookup.lower(), eq.expression, dialect)
        if read is not None:
            before = eq.sql()
            eq.replace(read)
            fixes.append(f"{before} -> {read.sql()} (a Django field lookup)")


def _lookup(field: exp.Column, lookup: str, value: exp.Expression, dialect: str) -> exp.Expression | None:
    """The condition a Django lookup on ``field`` with ``value`` stands for; None for a lookup not read here. A
    pattern lookup matches its value literally (``%`` and ``_`` in it escaped, as Django does)."""
    value = value.copy()
    insensitive = lookup.startswith("i") and lookup[1:] in (*_PATTERN, "exact")
    kind = lookup[1:] if insensitive else lookup
    if kind in _COMPARE:
        if insensitive:
            return exp.EQ(this=exp.Lower(this=field), expression=exp.Lower(this=value))
        return _COMPARE[kind](this=field, expression=value)
    if kind in _PATTERN and isinstance(value, exp.Literal) and value.is_string:
        literal = re.sub(r"([\\%_])", r"\\\1", value.this)
        pattern = exp.Literal.string(_PATTERN[kind].format(literal))
        like = exp.Like(this=exp.Lower(this=field), expression=exp.Lower(this=pattern)) if insensitive else exp.Like(
            this=field, expression=pattern)
        return exp.Escape(this=like, expression=exp.Literal.string("\\")) if literal != value.this else like
    items = value.expressions if isinstance(value, (exp.Tuple, exp.Array)) else [value.this] if isinstance(
        value, exp.Paren) else None
    if kind == "in" and items:
        return exp.In(this=field, expressions=[i.copy() for i in items])
    if kind == "range" and items and len(items) == 2:
        return exp.Between(this=field, low=items[0].copy(), high=items[1].copy())
    if kind == "isnull" and isinstance(value, exp.Boolean):
        test = exp.Is(this=field, expression=exp.Null())
        return test if value.this else exp.Not(this=test)
    if kind in _PARTS:
        part = (exp.Cast(this=exp.TimeToStr(this=field, format=exp.Literal.string(_STRFTIME[kind])),
                         to=exp.DataType.build("INTEGER")) if dialect == "sqlite"
                else exp.Extract(this=exp.var(_PARTS[kind]), expression=field))
        return exp.EQ(this=part, expression=value)
    return None
