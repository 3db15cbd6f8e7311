"""The days between two dates taken as the difference of their days of the month: ``strftime('%d', paid) -
strftime('%d', sold)``, ``EXTRACT(DAY FROM paid) - EXTRACT(DAY FROM sold)`` — 3 for the 1st of March after the 26th of
February. Read as the days between the two dates, ``JULIANDAY(DATE(paid)) - JULIANDAY(DATE(sold))`` (SQLite) or
``CAST(paid AS DATE) - CAST(sold AS DATE)`` (PostgreSQL): the same number wherever the two fall in one month, where
the difference as written can mean anything at all, and the days between them elsewhere — a guess the model is shown
first (``GUESSED``), the query as written one click away."""

from __future__ import annotations

import sqlglot
from sqlglot import exp

from core.sql.repair._names import GUESSED

__all__ = ["day_of_month_differences"]

_DAY_FORMATS = frozenset({"%d", "%e", "%-d"})


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
