"""A filter that cannot mean what it says: a text value the column spells otherwise (``status = 'Paid'`` where the
column holds 'paid'), a comparison with NULL (``x = NULL`` is never true)."""

from __future__ import annotations

from sqlglot import exp

from core.answer import Alternative
from core.databases import QueryResult
from core.evidence._common import Execute, offer, owner, parse
from core.schema import Schema

__all__ = ["null_evidence", "value_evidence"]


def _key(text: str) -> str:
    return " ".join(text.casefold().split())


def value_evidence(sql: str, result: QueryResult, schema: Schema,
                   execute: Execute) -> tuple[list[str], list[Alternative]]:
    """For ``col = 'x'`` / ``col IN ('x', …)`` on a text column whose known values do not hold 'x' but hold exactly
    one value equal to it but for case and spacing: the query with that spelling is run and offered when its rows
    differ (the filter as written may match nothing). Nothing is changed: the value may exist beyond the sample."""
    tree = parse(sql, schema.dialect)
    if tree is None:
        return [], []
    said: list[str] = []
    for literal in list(tree.find_all(exp.Literal)):
        parent = literal.parent
        column = None
        if isinstance(parent, (exp.EQ, exp.NEQ)):
            column = parent.expression if parent.this is literal else parent.this
        elif isinstance(parent, exp.In) and literal in parent.expressions:
            column = parent.this
        if not literal.is_string or not isinstance(column, exp.Column):
            continue
        found = owner(column, tree, schema)
        hints = found[1].value_hints if found is not None else ()
        if not hints or literal.this in hints:
            continue
        same = [h for h in hints if _key(h) == _key(literal.this)]
        if len(same) != 1:
            continue
        said.append(f"{column.sql(dialect=schema.dialect)} holds '{same[0]}', not '{literal.this}'")
        literal.replace(exp.Literal.string(same[0]))
    if not said:
        return [], []
    return offer(tree.sql(dialect=schema.dialect), "As the data spells it",
                 lambda how: f"{'; '.join(said)}: spelled as the data spells it, {how}.", schema, execute, result)


def null_evidence(sql: str, result: QueryResult, schema: Schema,
                  execute: Execute) -> tuple[list[str], list[Alternative]]:
    """``x = NULL`` and ``x <> NULL`` are never true (a comparison with NULL is unknown), so the filter keeps no row:
    the query with ``x IS NULL`` / ``x IS NOT NULL`` is run and offered when its rows differ."""
    tree = parse(sql, schema.dialect)
    if tree is None:
        return [], []
    said: list[str] = []
    for node in list(tree.find_all(exp.EQ, exp.NEQ)):
        side = node.this if isinstance(node.expression, exp.Null) else node.expression if isinstance(
            node.this, exp.Null) else None
        if side is None or isinstance(side, exp.Null):
            continue
        said.append(node.sql(dialect=schema.dialect))
        test: exp.Expression = exp.Is(this=side.copy(), expression=exp.Null())
        node.replace(test if isinstance(node, exp.EQ) else exp.Not(this=test))
    if not said:
        return [], []
    return offer(tree.sql(dialect=schema.dialect), "Test for NULL with IS", lambda how: (
        f"{', '.join(said)} is never true (a comparison with NULL is unknown); with IS NULL, {how}."),
        schema, execute, result)
