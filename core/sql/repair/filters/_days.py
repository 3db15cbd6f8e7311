"""A timestamp compared with a day by ``=`` (``sbTxDateTime = '2023-04-01'``, ``updated_at = DATE('now')``, ``ts IN
('2023-04-01', …)``): a day is the timestamp at midnight, so the filter keeps only the rows at midnight — on SQLite,
where a timestamp is text, only the rows stored without a time — where the question asks for the rows of that day.
Read as the timestamp's day equal to it (``SUBSTR(ts, 1, 10) = '2023-04-01'``, the day as stored, on SQLite;
``CAST(ts AS DATE) = …`` elsewhere),
a guess the model is shown first (``GUESSED``), with the query as written one click away.

Only a column declared a timestamp (``TIMESTAMP``, ``DATETIME``; a ``DATE`` holds days) — on SQLite, which has no
date type, also one declared as text or not at all, the probe below then finding a stored ``YYYY-MM-DD`` with more
after it —, of one table of the query;
only a day that is one by its form — ``'YYYY-MM-DD'``, ``CURRENT_DATE``, ``DATE(…)``, a cast to DATE, and those plus or
minus an interval —; only where one bounded query finds a row of that table whose value is not its own day (a time of
day is stored: as written the filter misses it); never where the question names a time of day ("at 10:30",
"midnight", "9 am", "without a time part"), nor where the day is the column's own (``ts = DATE(ts)`` finds the rows
stored with no time). At most ``_MAX_PROBES`` queries for one query; where it would need more, none is read.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from sqlglot import exp

from core.schema import Schema
from core.sql.repair._names import GUESSED
from core.sql.repair._scope import filtered_columns

__all__ = ["timestamps_as_days"]

_MAX_PROBES = 4
_TIMESTAMP = re.compile(r"timestamp|datetime", re.IGNORECASE)
_NUMBER = re.compile(r"int|real|float|double|numeric|decimal|bool", re.IGNORECASE)
_DAY_TEXT = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIME_ASKED = re.compile(r"\b\d{1,2}:\d{2}\b|\bmidnight\b|\bo'?clock\b|\b\d{1,2}\s*(?:am|pm)\b|\bnoon\b|"
                         r"\b(?:exact|precise)\w*\s+(?:time|moment|timestamp|instant)\b|\bno\s+time\b|"
                         r"\bwithout\s+(?:an?\s+|any\s+)?time\b|\btime\s+(?:part|component|portion|of\s+day)\b|"
                         r"\bdate[\s-]+only\b|\bstart\s+of\s+the\s+day\b", re.IGNORECASE)


def timestamps_as_days(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str],
                       matches: Callable[[str], bool | None] | None, question: str = "") -> None:
    """Each ``ts = day`` / ``ts IN (day, …)`` on a timestamp that stores times of day: ``DATE(ts) = day`` (a guess)."""
    if matches is None or _TIME_ASKED.search(question or ""):
        return
    found: list[tuple[exp.Column, exp.Table, str]] = []
    for _, column, owner in filtered_columns(tree, schema, dialect, (exp.EQ, exp.In), _compared_with_days):
        declared = owner.table.column(column.name) if owner.table is not None else None
        if declared is not None and (_TIMESTAMP.search(declared.type or "") or dialect == "sqlite" and not
                                     _NUMBER.search(declared.type or "")):
            found.append((column, owner.node, owner.table.name))
    if not found or len({(t.name.lower(), c.name.lower()) for c, t, _ in found}) > _MAX_PROBES:
        return
    times: dict[tuple[str, str], bool | None] = {}
    for column, table, table_name in found:
        key = (table.name.lower(), column.name.lower())
        if key not in times:
            value = exp.column(column.name, quoted=column.this.quoted)
            stored = exp.NEQ(this=value, expression=_day_of(value.copy(), dialect))
            if dialect == "sqlite":  # text that starts with a day and goes on: a time (a number is no day there)
                stored = exp.and_(exp.Like(this=value.copy(), expression=exp.Literal.string("____-__-__%")), stored)
            probe = exp.select("1").from_(table.copy()).where(stored).limit(1)
            times[key] = matches(probe.sql(dialect=dialect))
        if not times[key]:
            continue  # every value is its own day (or the data could not tell): the equality means what it says
        compare = column.parent
        written = compare.sql(dialect=dialect)
        column.replace(_day_of(column.copy(), dialect))
        fixes.append(f"{written}: {table_name}.{column.name} holds times of day, so comparing it with a day keeps only "
                     f"the rows at {'exactly midnight' if dialect != 'sqlite' else 'no time'} -> "
                     f"{compare.sql(dialect=dialect)}, the whole day" + GUESSED)


def _compared_with_days(node: exp.Expression) -> exp.Column | None:
    """The column ``node`` compares with days only (``col = day``, ``day = col``, ``col IN (day, …)``), or None."""
    if isinstance(node, exp.In):
        values = list(node.expressions)
        return node.this if isinstance(node.this, exp.Column) and values and all(map(_is_day, values)) else None
    for column, other in ((node.this, node.expression), (node.expression, node.this)):
        if isinstance(column, exp.Column) and _is_day(other) and not any(
                c.name.lower() == column.name.lower() for c in other.find_all(exp.Column)):
            return column  # never ``ts = DATE(ts)``: the rows stored with no time, asked as such
    return None


def _is_day(node: exp.Expression) -> bool:
    """Whether ``node`` is a day by its form: ``'2023-04-01'``, CURRENT_DATE, DATE(…), a cast to DATE, or one of those
    plus or minus an interval."""
    node = node.unnest()
    if isinstance(node, exp.Literal):
        return node.is_string and bool(_DAY_TEXT.fullmatch(node.this))
    if isinstance(node, (exp.CurrentDate, exp.Date)) or (isinstance(node, exp.Anonymous)
                                                          and node.name.upper() == "DATE"):
        return True
    if isinstance(node, exp.Cast):
        return node.to.is_type(exp.DataType.Type.DATE)
    if isinstance(node, (exp.Add, exp.Sub)):
        return _is_day(node.this) and isinstance(node.expression, (exp.Interval, exp.Literal)) and not (
            isinstance(node.expression, exp.Literal) and node.expression.is_string)
    return False


def _day_of(value: exp.Expression, dialect: str) -> exp.Expression:
    """The day of a timestamp: on SQLite the day as stored, its first ten characters (a cast there reads the year as a
    number, and DATE() moves a stored offset, ``…T21:30:00-05:00``, to the next day in UTC), elsewhere a cast."""
    return exp.Substring(this=value, start=exp.Literal.number(1), length=exp.Literal.number(10)) \
        if dialect == "sqlite" else exp.cast(value, exp.DataType.Type.DATE)
