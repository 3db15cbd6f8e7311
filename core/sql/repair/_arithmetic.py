"""Arithmetic written so that, as it runs, it means nothing a question asks for — each read as the one thing it can
mean, a guess the model is shown first (``GUESSED``), the query as written one click away.

- **The days between two dates taken as the difference of their days of the month**: ``strftime('%d', paid) -
  strftime('%d', sold)``, ``EXTRACT(DAY FROM paid) - EXTRACT(DAY FROM sold)`` — 3 for the 1st of March after the 26th
  of February. Read as the days between the two dates, ``JULIANDAY(DATE(paid)) - JULIANDAY(DATE(sold))`` (SQLite) or
  ``CAST(paid AS DATE) - CAST(sold AS DATE)`` (PostgreSQL): the same number wherever the two fall in one month, where
  the difference as written can mean anything at all, and the days between them elsewhere.
- **Brackets left out of a sum that is divided** (``/`` and ``%`` bind before ``+`` and ``-``):
  ``SUM(a) - SUM(b) / SUM(b) * 100`` divides a value by itself (1, whatever the data), and ``SUM(a) - SUM(b) / SUM(a)``
  subtracts a ratio from its own denominator — read as ``(SUM(a) - SUM(b)) / …``, the change or margin they spell;
  ``x + 6 % 7`` and ``COUNT(*) - 1 / 2`` apply ``%`` or ``/`` to two whole numbers where it does nothing (6) or gives 0
  — read as ``(x + 6) % 7``, ``(COUNT(*) - 1) / 2`` (``/`` only where it divides whole numbers to a whole number:
  SQLite, PostgreSQL; DuckDB's ``1 / 2`` is 0.5). Only those shapes: the divisor the very term added or subtracted
  (never a number over it, ``x + 1.0 / x``), or two whole numbers the smaller first; ``a - b / c`` of three different
  terms is a formula as written.
- **A quotient of whole numbers cast to a fraction after the division**: ``CAST(SUM(won) / COUNT(*) AS FLOAT)`` —
  SQLite and PostgreSQL have already dropped the fraction (7 / 2 is 3, then 3.0): a cast to a fractional type can only
  be meant to keep it, read as ``CAST(SUM(won) AS FLOAT) / COUNT(*)`` — where both sides are whole by the schema
  (integer columns, their sums, counts, whole literals).
"""

from __future__ import annotations

import re

import sqlglot
from sqlglot import exp

from core.schema import Schema
from core.sql.repair._names import GUESSED
from core.sql.repair._scope import Source, schema_column, scope_sources, scopes

__all__ = ["casts_after_division", "day_of_month_differences", "precedence_slips"]

_DAY_FORMATS = frozenset({"%d", "%e", "%-d"})
_WHOLE_DIVISION = frozenset({"sqlite", "postgres", "tsql", "oracle"})  # dialects where 1 / 2 is 0


def day_of_month_differences(tree: exp.Expression, dialect: str, fixes: list[str]) -> None:
    """Each difference of two days of the month read as the days between the two dates (a guess)."""
    for sub in list(tree.find_all(exp.Sub)):
        dates = [_day_of(side) for side in (sub.this, sub.expression)]
        if dates[0] is None or dates[1] is None or dates[0] == dates[1]:
            continue
        a, b = (d.sql(dialect=dialect) for d in dates)  # type: ignore[union-attr]
        days = (f"CAST(JULIANDAY(DATE({a})) - JULIANDAY(DATE({b})) AS INTEGER)" if dialect == "sqlite"
                else f"CAST({a} AS DATE) - CAST({b} AS DATE)")
        written = sub.sql(dialect=dialect)
        sub.replace(exp.Paren(this=sqlglot.parse_one(days, read=dialect)))
        fixes.append(f"{written} subtracts days of the month (3 from the 26th of February to the 1st of March): read "
                     f"as the days between the dates, {days}" + GUESSED)


def _day_of(node: exp.Expression) -> exp.Expression | None:
    """The date whose day of the month ``node`` is (``strftime('%d', d)``, ``EXTRACT(DAY FROM d)``, either cast to a
    number), or None."""
    while isinstance(node, (exp.Cast, exp.Paren)):
        node = node.this
    if isinstance(node, exp.TimeToStr) and isinstance(fmt := node.args.get("format"), exp.Literal) and \
            fmt.this in _DAY_FORMATS:
        inner = node.this
        return inner.this if isinstance(inner, exp.TsOrDsToTimestamp) else inner
    if isinstance(node, exp.Extract) and node.this.name.upper() in ("DAY", "D", "DD"):
        return node.expression
    return None


def precedence_slips(tree: exp.Expression, dialect: str, fixes: list[str]) -> None:
    """Each ``a ± b / a``, ``a ± b / b`` (times or over anything after) and ``x ± m % n`` / ``x ± m / n`` (whole
    numbers, m < n) read with the brackets around the sum (a guess)."""
    for sum_ in list(tree.find_all(exp.Add, exp.Sub)):
        if sum_.root() is not tree:
            continue  # copied into an enclosing sum read already
        left, right = sum_.this, sum_.expression
        first = _first_quotient(right)
        if first is None or isinstance(left, exp.Literal):
            continue
        numerator, divisor = first.this, first.expression
        same = not isinstance(numerator, exp.Literal) and (_same(divisor, numerator) or _same(divisor, left))
        if not (isinstance(first, exp.Div) and same) and not _does_nothing(first, dialect):
            continue  # ``x + 1.0 / x``: a term of its own
        written = sum_.sql(dialect=dialect)
        new = right.copy()
        head = _first_quotient(new)
        head.set("this", exp.Paren(this=sum_.__class__(this=left.copy(), expression=numerator.copy())))
        sum_.replace(new)
        why = ("divides a value by itself" if _same(divisor, numerator) else "divides by the very term it adds to"
               if _same(divisor, left) else f"holds {first.sql(dialect=dialect)}, which is "
               f"{int(numerator.name) if isinstance(first, exp.Mod) else 0} whatever the data")
        fixes.append(f"{written} {why} ({'/' if isinstance(first, exp.Div) else '%'} goes before "
                     f"{'-' if isinstance(sum_, exp.Sub) else '+'}): read with brackets, {new.sql(dialect=dialect)}"
                     + GUESSED)


def _first_quotient(node: exp.Expression) -> exp.Div | exp.Mod | None:
    """The first ``/`` or ``%`` of a product chain written without brackets (``b / c * 100``: ``b / c``), or None."""
    while isinstance(node, (exp.Mul, exp.Div, exp.Mod)):
        if isinstance(node, (exp.Div, exp.Mod)) and not isinstance(node.this, (exp.Mul, exp.Div, exp.Mod)):
            return node
        node = node.this
    return None


def _same(a: exp.Expression, b: exp.Expression) -> bool:
    """Whether two terms are one expression as written (a literal is no term: ``1 - x / 1``)."""
    return not isinstance(a, exp.Literal) and a.sql().lower() == b.sql().lower()


def _does_nothing(quotient: exp.Div | exp.Mod, dialect: str) -> bool:
    """``6 % 7`` (6) or ``1 / 2`` (0 where ``/`` of whole numbers is whole: SQLite, PostgreSQL — DuckDB's and MySQL's
    is 0.5, ``x + 1 / 2`` rounding half up): two whole numbers, the smaller first."""
    m, n = quotient.this, quotient.expression
    if isinstance(quotient, exp.Div) and dialect not in _WHOLE_DIVISION:
        return False
    return all(isinstance(v, exp.Literal) and not v.is_string and v.name.isdigit() for v in (m, n)) and \
        0 < int(m.name) < int(n.name)


_FRACTIONAL = re.compile(r"float|double|real|decimal|numeric", re.IGNORECASE)
_INTEGER = re.compile(r"^(?:big|small|tiny|medium)?int(?:eger|\d)?\b|serial", re.IGNORECASE)


def casts_after_division(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str]) -> None:
    """``CAST(a / b AS FLOAT)`` of two whole numbers as ``CAST(a AS FLOAT) / b`` (see the module docstring)."""
    if dialect not in _WHOLE_DIVISION:
        return
    for scope in scopes(tree):
        local = scope_sources(scope, schema, dialect)
        for cast in list(scope.expression.find_all(exp.Cast)):
            inner = cast.this.unnest()
            if not (isinstance(inner, exp.Div) and _FRACTIONAL.search(cast.to.sql()) and cast.find_ancestor(
                    exp.Select) is scope.expression and _whole(inner.this, local, dialect) and _whole(
                    inner.expression, local, dialect)):
                continue
            before = cast.sql(dialect=dialect)
            cast.replace(exp.Div(this=exp.Cast(this=inner.this.copy(), to=cast.to.copy()),
                                 expression=inner.expression.copy()))
            fixes.append(f"{before} (the fraction is dropped before the cast) -> the dividend cast" + GUESSED)


def _whole(node: exp.Expression, local: list[Source], dialect: str) -> bool:
    """Whether ``node`` is surely a whole number: a whole literal, COUNT, an integer column, or a sum, least or
    greatest of whole numbers, NULLIF of one, a CASE whose every branch is one, or whole numbers added, subtracted or
    multiplied."""
    node = node.unnest()
    if isinstance(node, exp.Literal):
        return not node.is_string and node.this.isdigit()
    if isinstance(node, exp.Count):
        return True
    if isinstance(node, (exp.Sum, exp.Min, exp.Max, exp.Nullif)):
        return _whole(node.this, local, dialect)  # NULLIF(COUNT(*), 0): the count or no value
    if isinstance(node, exp.Case):
        branches = [i.args.get("true") for i in node.args.get("ifs") or []] + [node.args.get("default")]
        return all(b is None or isinstance(b, exp.Null) or _whole(b, local, dialect) for b in branches)
    if isinstance(node, (exp.Add, exp.Sub, exp.Mul)):
        return _whole(node.this, local, dialect) and _whole(node.expression, local, dialect)
    if isinstance(node, exp.Column):
        found = schema_column(node, local, dialect)
        return found is not None and bool(_INTEGER.search(found[1].type or ""))
    return False
