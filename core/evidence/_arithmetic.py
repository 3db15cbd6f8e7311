"""Numbers that come out other than the words mean, with no error: a division of whole numbers that drops the
fraction, a COUNT of a CASE that counts every row, a COUNT(*) that counts the rows a LEFT JOIN keeps empty."""

from __future__ import annotations

import logging

from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.annotate_types import annotate_types
from sqlglot.optimizer.qualify import qualify

from core.answer import Alternative
from core.databases import QueryResult
from core.evidence._common import Execute, offer, parse
from core.schema import Schema
from core.sql import schema_mapping

__all__ = ["count_evidence", "division_evidence"]

logger = logging.getLogger(__name__)
_WHOLE = exp.DataType.INTEGER_TYPES


def division_evidence(sql: str, result: QueryResult, schema: Schema,
                      execute: Execute) -> tuple[list[str], list[Alternative]]:
    """SQLite and PostgreSQL divide whole numbers as whole numbers (7 / 2 is 3): a ratio or an average of counts
    loses its fraction. The types come from the schema (sqlglot's type annotation); the query with each such
    division's dividend read as a decimal is run and offered when its rows differ. DuckDB divides as decimals."""
    tree = parse(sql, schema.dialect) if schema.dialect in ("sqlite", "postgres") else None
    if tree is None:
        return [], []
    divisions = list(tree.find_all(exp.Div))
    if not divisions:
        return [], []
    try:
        typed = annotate_types(qualify(tree.copy(), schema=schema_mapping(schema), dialect=schema.dialect,
                                       validate_qualify_columns=False, identify=False),
                               schema=schema_mapping(schema), dialect=schema.dialect)
    except (SqlglotError, RecursionError, ValueError, KeyError, TypeError, AttributeError) as exc:
        logger.info("division check skipped: %s", exc)
        return [], []
    typed_divisions = list(typed.find_all(exp.Div))
    if len(typed_divisions) != len(divisions):
        return [], []
    whole = [div for div, seen in zip(divisions, typed_divisions, strict=True)
             if seen.this.type is not None and seen.this.type.is_type(*_WHOLE)
             and seen.expression.type is not None and seen.expression.type.is_type(*_WHOLE)]
    if not whole:
        return [], []
    shown = whole[0].sql(dialect=schema.dialect)
    decimal = "REAL" if schema.dialect == "sqlite" else "NUMERIC"
    for div in whole:
        div.set("this", exp.Cast(this=div.this.copy(), to=exp.DataType.build(decimal)))
    return offer(tree.sql(dialect=schema.dialect), "Keep the fraction", lambda how: (
        f"{shown} divides whole numbers, so the fraction is dropped (7 / 2 gives 3); kept as a fraction, {how}."),
        schema, execute, result)


def count_evidence(sql: str, result: QueryResult, schema: Schema,
                   execute: Execute) -> tuple[list[str], list[Alternative]]:
    """COUNT counts what is not NULL: ``COUNT(CASE WHEN x THEN 1 ELSE 0 END)`` counts every row (the 0 too), and
    ``COUNT(*)`` over ``a LEFT JOIN b`` counts one row for each ``a`` with no ``b``. The query counting only the
    matches (no ELSE; a column of ``b`` from the join condition) is run and offered when its rows differ."""
    tree = parse(sql, schema.dialect)
    if tree is None:
        return [], []
    said: list[str] = []
    for count in list(tree.find_all(exp.Count)):
        case = count.this
        if isinstance(case, exp.Case) and _never_null(case.args.get("default")) and all(
                _never_null(branch.args.get("true")) for branch in case.args.get("ifs") or ()):  # fmt: skip
            said.append(f"{count.sql(dialect=schema.dialect)} counts every row, the ELSE too")
            case.set("default", None)
        elif isinstance(case, exp.Star):
            column = _left_joined_column(count)
            if column is not None:
                said.append(f"COUNT(*) counts one row for each row the LEFT JOIN finds no {column.table} for")
                count.set("this", column)
    if not said:
        return [], []
    return offer(tree.sql(dialect=schema.dialect), "Count only the matches",
                 lambda how: f"{'; '.join(said)}: counting only the matches, {how}.", schema, execute, result)


def _never_null(node: exp.Expression | None) -> bool:
    return isinstance(node, exp.Literal)


def _left_joined_column(count: exp.Count) -> exp.Column | None:
    """For a COUNT(*) of a grouped SELECT whose one LEFT JOIN is on ``a.k = b.k``: ``b.k`` (the joined side)."""
    select = count.find_ancestor(exp.Select)
    if select is None or not select.args.get("group"):
        return None
    lefts = [j for j in select.args.get("joins") or () if j.side == "LEFT"]
    if len(lefts) != 1 or not isinstance(lefts[0].this, exp.Table):
        return None
    joined = lefts[0].this.alias_or_name
    on = lefts[0].args.get("on")
    for eq in on.find_all(exp.EQ) if on is not None else ():
        for col in (eq.this, eq.expression):
            if isinstance(col, exp.Column) and col.table == joined:
                return col.copy()
    return None
