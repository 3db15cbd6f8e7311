"""PostgreSQL (and MySQL/T-SQL) date idioms on SQLite: ``EXTRACT``, ``DATE_PART``, ``DATE_TRUNC``, ``YEAR()``,
``NOW()``/``CURDATE()``/``GETDATE()``/``SYSDATE``/``TRUNC(SYSDATE)``, ``± INTERVAL`` and a date minus a date; and
MySQL's DATE_FORMAT order in ``STRFTIME(d, '%Y')`` (NULL on every row on SQLite), the format first.

Models trained on PostgreSQL write them for any database. SQLite has none of them (a syntax error or "no such
function"), and sqlglot writes them back unchanged, so the query fails. Each is rewritten to SQLite's own date
functions: ``EXTRACT(YEAR FROM d)`` -> ``CAST(STRFTIME('%Y', d) AS INTEGER)``, ``DATE_TRUNC('month', d)`` ->
``DATE(d, 'start of month')``, ``CURRENT_DATE - INTERVAL '30 days'`` -> ``DATE('now', '-30 day')``. Because
SQLite rejects every one of these as written, no query that already runs is changed. Units without an exact SQLite
counterpart (ISO week numbers, quarters in DATE_TRUNC, intervals like '1 day 2 hours') are left for the database to
reject, so the model is asked again.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

from sqlglot import exp

__all__ = ["DAYS_COUNTED", "date_differences", "rewrite_postgres_dates"]

logger = logging.getLogger(__name__)

_UNIT = {
    "second": "second", "seconds": "second", "minute": "minute", "minutes": "minute", "hour": "hour",
    "hours": "hour", "day": "day", "days": "day", "week": "week", "weeks": "week", "month": "month",
    "months": "month", "mon": "month", "mons": "month", "year": "year", "years": "year",
}  # fmt: skip
_PART_FORMAT = {"year": "%Y", "month": "%m", "day": "%d", "hour": "%H", "minute": "%M", "second": "%S",
                "dow": "%w", "doy": "%j", "epoch": "%s"}  # fmt: skip
_NOW_CALLS = frozenset({"CURDATE", "GETDATE", "SYSDATE", "SYSDATETIME"})  # MySQL, T-SQL, Oracle
_INTERVAL_TEXT = re.compile(r"\s*([+-]?\d+)\s*([a-z]+)?\s*", re.IGNORECASE)


DAYS_COUNTED = " (a number added to a day read as days; SQLite adds it to the year)"


def _call(name: str, *args: exp.Expression) -> exp.Expression:
    return exp.Anonymous(this=name, expressions=list(args))


def _part(unit: exp.Expression | None) -> str | None:
    text = unit.name if isinstance(unit, (exp.Var, exp.Literal, exp.Column)) else None
    return text.lower() if text else None


def _extract(part: str | None, value: exp.Expression) -> exp.Expression | None:
    if part == "quarter":
        month = exp.Cast(this=_call("STRFTIME", exp.Literal.string("%m"), value), to=exp.DataType.build("INTEGER"))
        third = exp.Div(this=exp.Paren(this=exp.Add(this=month, expression=exp.Literal.number(2))),
                        expression=exp.Literal.number(3))
        return exp.Cast(this=third, to=exp.DataType.build("INTEGER"))
    fmt = _PART_FORMAT.get(part or "")
    if fmt is None:
        return None
    return exp.Cast(this=_call("STRFTIME", exp.Literal.string(fmt), value), to=exp.DataType.build("INTEGER"))


def _trunc(part: str | None, value: exp.Expression) -> exp.Expression | None:
    unit = _UNIT.get(part or "")
    if unit in ("year", "month"):
        return _call("DATE", value, exp.Literal.string(f"start of {unit}"))
    if unit == "day":
        return _call("DATE", value)
    if unit == "week":  # PostgreSQL weeks start on Monday: the next Sunday (or today), then back six days
        return _call("DATE", value, exp.Literal.string("weekday 0"), exp.Literal.string("-6 days"))
    if unit in ("hour", "minute"):
        fmt = "%Y-%m-%d %H:00:00" if unit == "hour" else "%Y-%m-%d %H:%M:00"
        return _call("STRFTIME", exp.Literal.string(fmt), value)
    return None


def _interval(node: exp.Interval, sign: int) -> str | None:
    """``INTERVAL '30 days'`` / ``INTERVAL '30' DAY`` as a SQLite modifier (``'-30 day'``), or None."""
    match = _INTERVAL_TEXT.fullmatch(node.this.name) if isinstance(node.this, exp.Literal) else None
    if match is None:
        return None
    unit = _UNIT.get((match.group(2) or _part(node.args.get("unit")) or "").lower())
    if unit is None or (match.group(2) and node.args.get("unit") is not None):
        return None
    count = int(match.group(1)) * sign
    if unit == "week":
        count, unit = count * 7, "day"
    return f"{count:+d} {unit}"


def _now(node: exp.Expression) -> bool:
    """``NOW()``, or Oracle's ``SYSDATE`` written without brackets (read as a column)."""
    return (isinstance(node, exp.Anonymous) and node.name.upper() == "NOW" and not node.expressions) or (
        isinstance(node, exp.Column) and not node.table and node.name.upper() in ("SYSDATE", "SYSTIMESTAMP"))


def _today(node: exp.Expression) -> str | None:
    """"DATE" for today (``CURRENT_DATE``, ``DATE('now')``, Oracle's ``TRUNC(SYSDATE)``: the day), "DATETIME" for
    now (``CURRENT_TIMESTAMP``, ``NOW()``, ``SYSDATE``); None for anything else."""
    if isinstance(node, exp.CurrentDate) or isinstance(node, exp.Date) and node.this.name.lower() == "now" and \
            not node.expressions:
        return "DATE"
    if isinstance(node, exp.Trunc) and not node.args.get("decimals") and _today(node.this):
        return "DATE"
    return "DATETIME" if isinstance(node, exp.CurrentTimestamp) or _now(node) else None


def _day_call(node: exp.Expression) -> tuple[str, list[exp.Expression]] | None:
    """``DATE(x, …)`` / ``DATETIME(x, …)`` of a value: the call's name and arguments, else None."""
    if isinstance(node, exp.Date) and not isinstance(node.this, exp.Literal):
        return "DATE", [node.this, *(node.expressions or [])]
    if isinstance(node, exp.Anonymous) and node.name.upper() in ("DATE", "DATETIME") and node.expressions:
        return node.name.upper(), list(node.expressions)
    return None


def _against_a_number(node: exp.Expression) -> bool:
    """Whether ``node`` is compared with a number (``DATE(x) + 1 < 2027``: a year, as written)."""
    parent = node.parent
    while isinstance(parent, exp.Paren):
        node, parent = parent, parent.parent
    if isinstance(parent, (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)):
        other = parent.expression if parent.this is node else parent.this
        return isinstance(other, exp.Literal) and not other.is_string
    return isinstance(parent, exp.Between) and any(isinstance(b, exp.Literal) and not b.is_string for b in (
        parent.args.get("low"), parent.args.get("high")))


def _names_a_day(column: exp.Expression) -> bool:
    """A column whose name ends in a word for a day (``hire_date``, ``sold_on``, ``created_at``, ``start_dt``) — not a
    time or a timestamp, which a text column may hold as seconds."""
    words = re.findall(r"[a-z]+|[A-Z][a-z]*", column.name) if isinstance(column, exp.Column) else []
    return bool(words) and words[-1].lower() in ("date", "dt", "day", "on", "at")


def _shifted(node: exp.Add | exp.Sub) -> exp.Expression | None:
    """``x ± INTERVAL ...`` as ``DATE(x, modifier)`` / ``DATETIME(x, modifier)``; today ± a whole number
    (``CURRENT_DATE - 30``, ``GETDATE() - 7``: days, as PostgreSQL, T-SQL and Oracle count them) as
    ``DATE('now', '-30 day')`` — SQLite would subtract from the year (2026 - 30), a number no date is; so is a day
    of a value plus a whole number, ``DATE(created_at) + 365`` as ``DATE(created_at, '+365 day')``."""
    number, today = node.expression, _today(node.this)
    if isinstance(number, exp.Literal) and not number.is_string and number.this.isdigit() and today:
        days = int(number.this) * (-1 if isinstance(node, exp.Sub) else 1)
        return _call(today, exp.Literal.string("now"), exp.Literal.string(f"{days:+d} day"))
    if isinstance(number, exp.Literal) and not number.is_string and number.this.isdigit() and int(number.this) and (
            dated := _day_call(node.this)) is not None and not _against_a_number(node):  # ``DATE(created_at) +
        # 365``: a day, not the year plus 365 (``DATE(x) + 0 < 2027`` is the year, as SQLite reads it)
        days = int(number.this) * (-1 if isinstance(node, exp.Sub) else 1)
        return _call(dated[0], *[a.copy() for a in dated[1]], exp.Literal.string(f"{days:+d} day"))
    if not isinstance(node.expression, exp.Interval):
        return None
    modifier = _interval(node.expression, -1 if isinstance(node, exp.Sub) else 1)
    if modifier is None:
        return None
    base = node.this
    sub_day = modifier.split()[1] in ("hour", "minute", "second")
    if today == "DATE" and not sub_day:
        return _call("DATE", exp.Literal.string("now"), exp.Literal.string(modifier))
    if today:
        return _call("DATETIME", exp.Literal.string("now"), exp.Literal.string(modifier))
    return _call("DATETIME" if sub_day else "DATE", base.copy(), exp.Literal.string(modifier))


def _format_first(node: exp.TimeToStr) -> exp.Expression | None:
    """``STRFTIME(d, '%Y')`` in MySQL's DATE_FORMAT order: SQLite reads '%Y' as the time value, which is none, and
    gives NULL on every row; the format first, as SQLite takes it."""
    value = node.this.this if isinstance(node.this, exp.TsOrDsToTimestamp) else node.this
    fmt = node.args.get("format")
    if not (isinstance(value, exp.Literal) and value.is_string and "%" in value.this) or fmt is None or (
            isinstance(fmt, exp.Literal) and fmt.is_string and "%" in fmt.this):
        return None  # ``STRFTIME('now', '%Y')`` is swapped too: 'now' is no format
    return exp.TimeToStr(this=exp.TsOrDsToTimestamp(this=fmt.copy()), format=value.copy())


def rewrite_postgres_dates(tree: exp.Expression, target: str) -> list[str]:
    """Rewrite PostgreSQL date idioms in place for a SQLite target; notes back."""
    if target != "sqlite":
        return []
    notes: list[str] = []
    for node in list(tree.find_all(exp.Extract, exp.DateTrunc, exp.TimestampTrunc, exp.Anonymous, exp.Add,
                                   exp.Sub, exp.Year, exp.Month, exp.Day, exp.Trunc, exp.TimeToStr)):
        new: exp.Expression | None = None
        if node.root() is not tree:
            continue  # inside a part already rewritten
        if isinstance(node, exp.TimeToStr):
            new = _format_first(node)
        elif isinstance(node, exp.Trunc):
            new = _call("DATE", exp.Literal.string("now")) if _today(node) else None  # TRUNC(SYSDATE): today
        elif isinstance(node, exp.Extract):
            new = _extract(_part(node.this), node.expression.copy())
        elif isinstance(node, (exp.DateTrunc, exp.TimestampTrunc)):
            new = _trunc(_part(node.args.get("unit")), node.this.copy())
        elif isinstance(node, exp.Anonymous) and node.name.upper() == "DATE_PART" and len(node.expressions) == 2:
            new = _extract(_part(node.expressions[0]), node.expressions[1].copy())
        elif _now(node) or isinstance(node, exp.Anonymous) and node.name.upper() in _NOW_CALLS and not node.expressions:
            new = exp.CurrentDate() if node.name.upper() == "CURDATE" else exp.CurrentTimestamp()
        elif isinstance(node, (exp.Year, exp.Month, exp.Day)):
            new = _extract(type(node).__name__.lower(), node.this.copy())
        elif isinstance(node, (exp.Add, exp.Sub)):
            new = _shifted(node)
        if new is None or node is tree:
            continue
        before = node.sql(dialect="sqlite")
        counted = isinstance(node, (exp.Add, exp.Sub)) and _day_call(node.this) is not None
        node.replace(new)
        notes.append(f"{before} -> {new.sql(dialect='sqlite')}" + (DAYS_COUNTED if counted else ""))
    if notes:
        logger.debug("rewrote PostgreSQL date idioms for SQLite: %s", notes)
    return notes


def date_differences(tree: exp.Expression, kind: Callable[[exp.Column], str | None], fixes: list[str]) -> None:
    """SQLite: today minus a date column, or a date column minus another (``CURRENT_DATE - sale_date <= 30``), as
    PostgreSQL reads it: the days between them, ``JULIANDAY(a) - JULIANDAY(b)``. SQLite subtracts the texts as
    numbers — the years only — so the query ran and every sale was "within 30 days". A column is a date by its
    declared type, or text (how SQLite keeps dates) beside a declared date, today, a ``DATE()``/``DATETIME()`` of a
    value or another such text; ``kind`` says which (text only for a column whose name says when)."""
    for node in list(tree.find_all(exp.Sub)):
        sides = (node.this, node.expression)
        kinds = ["today" if _today(s) else "date" if _day_call(s) else kind(s) if isinstance(s, exp.Column) else None
                 for s in sides]
        if "date" not in kinds and "today" not in kinds and not (kinds == ["text", "text"] and all(map(
                _names_a_day, sides))) or not all(k in ("date", "today", "text") for k in kinds):
            continue  # two texts only where both names say a day (``hire_date``; ``start_ts`` may hold seconds)
        if kinds.count("today") == 2:
            continue
        before = node.sql(dialect="sqlite")
        days = exp.Sub(this=_call("JULIANDAY", sides[0].copy()), expression=_call("JULIANDAY", sides[1].copy()))
        node.replace(exp.Paren(this=days) if isinstance(node.parent, (exp.Binary, exp.Neg)) else days)
        fixes.append(f"{before} -> {days.sql(dialect='sqlite')} (days between two dates, not a subtraction of years)")
