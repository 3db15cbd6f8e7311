"""SQLite text columns that hold numbers, compared with a number, are compared as numbers.

A CSV loaded into SQLite often keeps every column as TEXT. Compared with a number (``price > 100``), such a column
is compared as text (``'25' > '100'`` is true), which no query means: standard SQL has no comparison of text with a
number (PostgreSQL rejects it). When the column's known values are all numbers, the column is cast
(``CAST(price AS INTEGER) > 100``) and the note says so. A column whose known values include words, or are
unknown, is left as written; equality (``code = 7``) is left too, as SQLite compares it as ``'7'``. A date part
STRFTIME writes (text) compared with numbers (``STRFTIME('%w', d) IN (0, 6)``), which no row passes, is read as the
number it spells.

A number or date column compared with the empty string (``discount = ''``, ``shipped_on <> ''``) asks whether it is
empty, and on PostgreSQL the only empty value such a column holds is NULL (it rejects ``''`` as a number or date):
read as ``IS NULL`` / ``IS NOT NULL`` (``empty_as_null``), a guess the model sees first. SQLite keeps ``''`` in
such a column where a CSV was imported, so there the test is real and stays; so does a text column's ``= ''``.
"""

from __future__ import annotations

import re

from sqlglot import exp

from core.dialects import is_postgres_like
from core.schema import Column, Schema
from core.sql.repair._names import GUESSED
from core.sql.repair._scope import column_sources, scope_sources, scopes
from core.sql.repair._types import kind_of

__all__ = ["as_number", "compare_text_numbers", "empty_as_null", "holds_numbers_as_text"]

_NUMBER = re.compile(r"[-+]?(\d+(\.\d*)?|\.\d+)(e[-+]?\d+)?", re.IGNORECASE)
_ORDERINGS = (exp.GT, exp.GTE, exp.LT, exp.LTE)
_ONE_PART = re.compile(r"%[YmdwHMSjWuUe]")  # STRFTIME of one numeric part


def holds_numbers_as_text(column: Column) -> bool:
    """A column declared as text whose known values are all numbers (at least two of them)."""
    hints = column.value_hints
    return (kind_of(column.type or "") == "text" and len(hints) >= 2
            and all(_NUMBER.fullmatch(str(v).strip()) for v in hints))


def as_number(col: exp.Column, column: Column) -> exp.Cast:
    """``col`` read as a number: INTEGER when every known value is a whole number (1200, not 1200.0), else REAL."""
    whole = all(re.fullmatch(r"[-+]?\d+", str(v).strip()) for v in column.value_hints)
    return exp.Cast(this=col.copy(), to=exp.DataType.build("INTEGER" if whole else "REAL"))


def _number(node: exp.Expression | None) -> bool:
    if isinstance(node, exp.Neg):
        node = node.this
    return isinstance(node, exp.Literal) and not node.is_string


def compare_text_numbers(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str]) -> None:
    """Cast a SQLite text column holding numbers where it is ordered against a number, and a date part written by
    STRFTIME compared with numbers, in place."""
    if dialect != "sqlite":
        return
    _formatted_numbers(tree, fixes)
    for scope in scopes(tree):
        sources = scope_sources(scope, schema, dialect)
        for node in list(scope.expression.find_all(*_ORDERINGS, exp.Between)):
            if isinstance(node, exp.Between):
                pairs = [(node.this, node.args.get("low"))] if _number(node.args.get("high")) else []
            else:
                pairs = [(node.this, node.expression), (node.expression, node.this)]
            for col, other in pairs:
                if not isinstance(col, exp.Column) or not isinstance(col.this, exp.Identifier) or not _number(other):
                    continue
                owners = column_sources(col, sources, dialect)
                if len(owners) != 1 or owners[0].table is None:
                    continue
                name = owners[0].has(col.this, dialect)
                column = owners[0].table.column(name) if name else None
                if column is not None and holds_numbers_as_text(column):
                    col.replace(as_number(col, column))
                    fixes.append(f"{column.name} holds numbers stored as text: compared as numbers")


def empty_as_null(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str]) -> None:
    """A number or date column compared with ``''`` read as a test for NULL, in place (the module docstring)."""
    if not is_postgres_like(dialect):
        return  # SQLite keeps '' in a number or date column (a CSV import): there ``x = ''`` is a real test
    for scope in scopes(tree):
        sources = scope_sources(scope, schema, dialect)
        for node in list(scope.expression.find_all(exp.EQ, exp.NEQ)):
            col, other = (node.this, node.expression) if isinstance(node.this, exp.Column) else (
                node.expression, node.this)
            if not (isinstance(col, exp.Column) and isinstance(col.this, exp.Identifier) and isinstance(
                    other, exp.Literal) and other.is_string and other.this == ""):
                continue
            owners = column_sources(col, sources, dialect)
            name = owners[0].has(col.this, dialect) if len(owners) == 1 and owners[0].table is not None else None
            column = owners[0].table.column(name) if name else None  # type: ignore[union-attr]
            if column is None or kind_of(column.type or "") not in ("number", "date") or holds_numbers_as_text(column):
                continue
            test: exp.Expression = exp.Is(this=col.copy(), expression=exp.Null())
            node.replace(test if isinstance(node, exp.EQ) else exp.Not(this=test))
            fixes.append(f"{node.sql(dialect=dialect)}: a {kind_of(column.type or '')} is empty only as NULL -> "
                         f"IS {'' if isinstance(node, exp.EQ) else 'NOT '}NULL" + GUESSED)


def _formatted_numbers(tree: exp.Expression, fixes: list[str]) -> None:
    """``STRFTIME('%w', d) IN (0, 6)``, ``STRFTIME('%Y', d) = 2023``, ``STRFTIME('%m', d) BETWEEN 1 AND 3``: STRFTIME
    writes text, which SQLite never finds equal to a number and always orders after one, so the test holds for every
    row or for none; read as the number the text spells, ``CAST(STRFTIME('%w', d) AS INTEGER)``. Only a format of one
    numeric part (``%Y``, ``%m``, ``%d``, ``%w``, ``%H`` …) against number literals only."""
    for node in list(tree.find_all(exp.TimeToStr)):
        fmt = node.args.get("format")
        parent = node.parent
        if not (isinstance(fmt, exp.Literal) and _ONE_PART.fullmatch(fmt.this)) or parent is None:
            continue
        if isinstance(parent, exp.In) and parent.this is node:
            others = list(parent.expressions)
        elif isinstance(parent, exp.Between) and parent.this is node:
            others = [parent.args.get("low"), parent.args.get("high")]
        elif isinstance(parent, (exp.EQ, exp.NEQ, *_ORDERINGS)):
            others = [parent.expression if parent.this is node else parent.this]
        else:
            continue
        if not others or not all(_number(o) for o in others):
            continue
        written = node.sql(dialect="sqlite")
        node.replace(exp.Cast(this=node.copy(), to=exp.DataType.build("INTEGER")))
        fixes.append(f"{written} is text, which SQLite never compares with a number as one: compared as the number it spells")
