"""SQLite date modifiers on PostgreSQL: ``date('now', '-30 days')`` becomes ``CAST(CURRENT_DATE + INTERVAL ...)``.

Models trained on SQLite write ``date('now', '-1 month', 'start of month')`` for any database. PostgreSQL has
``date('now')`` (a cast) but no modifiers, and sqlglot keeps the call as it is, so the query fails. Only calls
whose modifiers are all plain shifts (``'-3 days'``) or ``'start of month|year|day'`` are rewritten; anything
else (``'weekday 0'``, ``'unixepoch'``...) is left for the database to reject.

And ``INTERVAL '30'`` with no unit, which PostgreSQL reads as 30 seconds and nobody writes for seconds: read with the
unit the question gives that number ("the last 30 days"; one off, "the past 7 days, inclusive of today" for '6'), or, for
'1', with the one unit of time the question speaks of ("the previous month", "within the first year"), a guess the
model is shown first; else refused with what to write ("the last month" with '30' may be days or months), so the model
is asked again and no answer counts 30 seconds back. SQLite's ``DATE('now', '-30')`` (no unit: NULL on every row) is read
the same way.
"""

from __future__ import annotations

import logging
import re

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from core.dialects import is_postgres_like
from core.errors import SQLValidationError
from core.sql.repair._names import GUESSED

__all__ = ["bare_intervals", "rewrite_sqlite_dates"]

logger = logging.getLogger(__name__)

_SHIFT = re.compile(r"\s*([+-]?\d+)\s+(second|minute|hour|day|month|year)s?\s*", re.IGNORECASE)
_START = re.compile(r"\s*start\s+of\s+(month|year|day)\s*", re.IGNORECASE)


def _call_args(node: exp.Expression) -> tuple[str, list[exp.Expression]] | None:
    """(DATE|DATETIME, arguments) of a date call, however sqlglot read it."""
    if isinstance(node, (exp.Date, exp.Datetime)):
        name = "DATE" if isinstance(node, exp.Date) else "DATETIME"
        extra = [node.args[k] for k in ("zone", "expression") if node.args.get(k) is not None]
        args = [node.this, *extra]
        return name, [*args, *(node.expressions or [])]
    if isinstance(node, exp.Anonymous) and node.name.upper() in ("DATE", "DATETIME"):
        return node.name.upper(), list(node.expressions)
    return None


def _rewrite(name: str, args: list[exp.Expression]) -> exp.Expression | None:
    if len(args) < 2 or not all(isinstance(a, exp.Literal) and a.is_string for a in args[1:]):
        return None
    first = args[0]
    if isinstance(first, exp.Literal) and first.is_string and first.name.lower() == "now":
        text = "CURRENT_DATE" if name == "DATE" else "CURRENT_TIMESTAMP"
    elif isinstance(first, exp.Literal) and not first.is_string:
        return None  # julian day numbers and epochs: no plain equivalent
    else:
        text = f"CAST({first.sql(dialect='postgres')} AS TIMESTAMP)"
    for modifier in (a.name for a in args[1:]):
        shift, start = _SHIFT.fullmatch(modifier), _START.fullmatch(modifier)
        if shift:
            text = f"{text} + INTERVAL '{int(shift.group(1))} {shift.group(2).lower()}'"
        elif start:
            text = f"DATE_TRUNC('{start.group(1).lower()}', {text})"
        else:
            return None
    if name == "DATE":
        text = f"CAST({text} AS DATE)"
    try:
        return sqlglot.parse_one(text, read="postgres")
    except (SqlglotError, RecursionError, ValueError, AssertionError):
        return None


def rewrite_sqlite_dates(tree: exp.Expression, target: str) -> list[str]:
    """Rewrite SQLite ``date()/datetime()`` calls with modifiers in place for a PostgreSQL target; notes back."""
    if not is_postgres_like(target):  # DuckDB reads the PostgreSQL rewrite too
        return []
    notes: list[str] = []
    for node in list(tree.find_all(exp.Date, exp.Datetime, exp.Anonymous)):
        call = _call_args(node)
        if call is None:
            continue
        new = _rewrite(*call)
        if new is None:
            continue
        before = node.sql(dialect="postgres")
        if node is tree:
            return notes
        node.replace(new)
        notes.append(f"{before} -> {new.sql(dialect='postgres')}")
    if notes:
        logger.debug("rewrote SQLite date calls: %s", notes)
    return notes


_ASKED_UNIT = r"(second|minute|hour|day|week|month|year)s?\b"
_UNIT_WORDS = {**{w: w for w in ("second", "minute", "hour", "day", "week", "month", "year")},
               **{w + "s": w for w in ("second", "minute", "hour", "day", "week", "month", "year")},
               "daily": "day", "weekly": "week", "monthly": "month", "yearly": "year", "annual": "year",
               "annually": "year", "din": "day", "dino": "day", "hafta": "week", "hafte": "week", "mahina": "month",
               "mahine": "month", "saal": "year", "sal": "year"}  # the one unit of time the question speaks of


def _asked_unit(number: str, question: str) -> str | None:
    """The unit of time the question gives ``number`` (or one off it: "the past 7 days, inclusive of today" for 6), or
    for 1 the one unit of time it speaks of ("the previous month"); None where that is not one unit."""
    said = [(m.group(1), m.group(2).lower()) for m in re.finditer(rf"(?<![\d.])(\d+)\s*{_ASKED_UNIT}", question,
                                                                   re.IGNORECASE)]
    spoken = {_UNIT_WORDS[w] for w in re.findall(r"[a-z]+", question.lower()) if w in _UNIT_WORDS}
    if len(spoken | {u for _, u in said}) > 1:
        return None  # "orders in the last year that were at least 1 day old": which one is unsaid
    units = {u for n, u in said if n == number}
    if not units and number.isdigit():
        units = {u for n, u in said if abs(int(n) - int(number)) == 1}
    if not units and number == "1":
        units = {_UNIT_WORDS[w] for w in re.findall(r"[a-z]+", question.lower()) if w in _UNIT_WORDS}
    return units.pop() if len(units) == 1 else None


_BARE_NUMBER = re.compile(r"\s*[+-]?\d+(?:\.\d+)?\s*")
_SQLITE_DATES = frozenset({"date", "datetime", "julianday", "unixepoch", "strftime"})


def bare_intervals(tree: exp.Expression, dialect: str, fixes: list[str], question: str) -> None:
    """``INTERVAL '30'`` with no unit on PostgreSQL or DuckDB, and SQLite's ``DATE('now', '-30')``, of the module
    docstring."""
    if dialect == "sqlite":
        _bare_modifiers(tree, fixes, question)
    if not is_postgres_like(dialect):
        return
    for node in list(tree.find_all(exp.Interval)):
        value = node.this
        if node.args.get("unit") is not None or not isinstance(value, exp.Literal) or not _BARE_NUMBER.fullmatch(
                value.this):
            continue
        number = value.this.strip().lstrip("+-")
        unit = _asked_unit(number, question)
        if unit is None:
            raise SQLValidationError(
                f"INTERVAL '{value.this}' has no unit: PostgreSQL reads it as {number} seconds. Write the unit, "
                f"e.g. INTERVAL '{number} days'.", hint="Ask again saying the length of time with its unit.")
        before = node.sql(dialect=dialect)
        node.replace(exp.Interval(this=exp.Literal.string(f"{value.this.strip()} {unit}")))
        fixes.append(f"{before} (no unit: seconds) read in the question's unit, {unit}s{GUESSED}")


def _bare_modifiers(tree: exp.Expression, fixes: list[str], question: str) -> None:
    """SQLite's ``DATE('now', '-30')``: a modifier with no unit, which makes the call NULL on every row — read in the
    question's unit as for INTERVAL, else refused with what to write."""
    for node in list(tree.find_all(exp.Anonymous, exp.Date, exp.Datetime, exp.TimeToStr)):
        name = node.name.lower() if isinstance(node, exp.Anonymous) else type(node).__name__.lower()
        if isinstance(node, exp.Anonymous) and name not in _SQLITE_DATES:
            continue
        arguments = [a.this if isinstance(a, exp.TsOrDsToTimestamp) else a for a in node.iter_expressions()]
        for literal in [a for a in arguments[1:] if isinstance(a, exp.Literal) and a.is_string]:
            if not _BARE_NUMBER.fullmatch(literal.this) or literal.this.strip()[:1] not in "+-":
                continue  # a modifier with its unit, or a time value ('2024'): never read here
            number = literal.this.strip().lstrip("+-")
            unit = _asked_unit(number, question)
            if unit is None:
                raise SQLValidationError(
                    f"SQLite does not know the modifier '{literal.this}' in {node.sql(dialect='sqlite')}: the call "
                    "gives NULL on every row. Write spans as '-7 days', '+1 month', 'start of month'.",
                    hint="Ask again saying the length of time with its unit.")
            sign, amount = literal.this.strip()[0], float(literal.this.strip()[1:])
            written = f"{sign}{amount * 7:g} days" if unit == "week" else f"{sign}{amount:g} {unit}s"  # SQLite
            # knows no weeks
            fixes.append(f"'{literal.this}' (no unit: NULL on every row) read in the question's unit, '{written}'"
                         f"{GUESSED}")
            literal.replace(exp.Literal.string(written))
