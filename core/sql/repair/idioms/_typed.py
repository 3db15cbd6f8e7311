"""What other databases accept and PostgreSQL's types reject, read as the same meaning there (PostgreSQL only: as
written each is an error, so no running query changes):

- ``COUNT()`` (dplyr's ``n()`` habit; SQLite reads it as ``COUNT(*)``) -> ``COUNT(*)``;
- MySQL's sum or average of a condition, ``SUM(price > 50)``, ``AVG(status = 'done')`` (PostgreSQL has no sum of a
  boolean) -> the sum of the condition as a number, ``SUM(CAST(price > 50 AS INT))``: 1 where it holds, 0 where it
  does not, NULL where it is unknown — MySQL's meaning exactly;
- a yes/no column compared with 1 or 0, ``is_active = 1`` -> ``is_active = TRUE`` (``<> 0`` likewise);
- a date or timestamp column matched with a pattern, ``sale_date LIKE '2023-%'`` -> its text,
  ``CAST(sale_date AS TEXT) LIKE '2023-%'`` (PostgreSQL writes a date as ``2023-04-01``).
"""

from __future__ import annotations

from sqlglot import exp

from core.dialects import is_postgres_like
from core.schema import Schema
from core.sql.repair._scope import schema_column, scope_sources, scopes
from core.sql.repair._types import kind_of

__all__ = ["typed_idioms"]

_CONDITIONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Like, exp.ILike, exp.In, exp.Between, exp.Is,
               exp.And, exp.Or, exp.Not)


def typed_idioms(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str]) -> None:
    """Read, in place, the idioms of the module docstring (PostgreSQL only)."""
    if not is_postgres_like(dialect):
        return
    for count in list(tree.find_all(exp.Count)):
        if count.this is None and not count.expressions:
            count.set("this", exp.Star())
            fixes.append("COUNT() -> COUNT(*)")
    for aggregate in list(tree.find_all(exp.Sum, exp.Avg)):
        condition = aggregate.this.unnest() if aggregate.this is not None else None
        if isinstance(condition, _CONDITIONS):
            before = aggregate.sql(dialect=dialect)
            aggregate.set("this", exp.Cast(this=exp.Paren(this=condition.copy()), to=exp.DataType.build("INT")))
            fixes.append(f"{before} (MySQL's sum of a condition) -> {aggregate.sql(dialect=dialect)}")
    for scope in scopes(tree):
        sources = scope_sources(scope, schema, dialect)
        for node in list(scope.expression.find_all(exp.EQ, exp.NEQ, exp.Like, exp.ILike)):
            col = node.this
            if node.find_ancestor(exp.Select) is not scope.expression or not isinstance(col, exp.Column):
                continue
            found = schema_column(col, sources, dialect)
            if found is None:
                continue
            declared = (found[1].type or "").lower()
            value = node.expression
            if isinstance(node, (exp.EQ, exp.NEQ)) and "bool" in declared and isinstance(value, exp.Literal) and \
                    not value.is_string and value.this in ("0", "1"):
                before = node.sql(dialect=dialect)
                value.replace(exp.Boolean(this=value.this == "1"))
                fixes.append(f"{before} (a yes/no column against a number) -> {node.sql(dialect=dialect)}")
            elif isinstance(node, (exp.Like, exp.ILike)) and kind_of(declared) == "date" and isinstance(
                    value, exp.Literal) and value.is_string:
                before = node.sql(dialect=dialect)
                col.replace(exp.Cast(this=col.copy(), to=exp.DataType.build("TEXT")))
                fixes.append(f"{before} (a date matched as text) -> {node.sql(dialect=dialect)}")
