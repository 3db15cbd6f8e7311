"""SQLite: an order or an extreme taken of a text column that holds numbers ('9' after '100')."""

from __future__ import annotations

from sqlglot import exp

from core.answer import Alternative
from core.databases import QueryResult
from core.evidence._common import Execute, offer, owner, parse
from core.schema import Column, Schema
from core.sql import as_number, holds_numbers_as_text

__all__ = ["order_evidence"]


def order_evidence(sql: str, result: QueryResult, schema: Schema,
                   execute: Execute) -> tuple[list[str], list[Alternative]]:
    """On SQLite, an ORDER BY key or a MIN/MAX argument that is a text column holding numbers of several lengths
    orders them as text ('9' after '100'): the query reading it as a number is run, and offered when its rows or
    their order differ. Codes with leading zeros ('007') keep their text order."""
    tree = parse(sql, schema.dialect) if schema.dialect == "sqlite" else None
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
    return offer(tree.sql(dialect=schema.dialect), f"Read {names} as numbers", lambda how: (
        f"{names} holds numbers stored as text, so this answer orders them as text ('9' after '100'); read as "
        f"numbers, {how}."), schema, execute, result, ordered=True)


def _numbers_as_text(col: exp.Column, tree: exp.Expression, schema: Schema) -> Column | None:
    """The table column ``col`` reads when it holds numbers of several lengths as text, else None."""
    found = owner(col, tree, schema)
    if found is None or not holds_numbers_as_text(found[1]):
        return None
    column = found[1]
    hints = [str(v).strip().lstrip("+-") for v in column.value_hints]
    lengths = {len(v.split(".")[0]) for v in hints}
    if len(lengths) < 2 or any(len(v) > 1 and v.startswith("0") and not v.startswith("0.") for v in hints):
        return None
    return column
