"""SQLite's date and time modifiers: another notation read in SQLite's, and one SQLite cannot read said as an error.

``date('now', '-P7D')`` or ``date('now', '30 days ago')`` is no error to SQLite: an unknown modifier makes the call
NULL, so every comparison with it is false and the answer is silently empty. PostgreSQL rejects the same slip. So,
for SQLite, a modifier is read against SQLite's documented grammar (https://sqlite.org/lang_datefunc.html):

- written in another notation with one reading — an ISO 8601 duration (``-P7D``, ``P6M``, ``-PT5H``), "N units
  ago", or a unit SQLite lacks or spells otherwise (``-2 weeks``, ``-1 quarter``, ``-3 hrs``, ``-7days``) — it is
  written as SQLite's (``-7 days``, ``+6 months``, ``-5 hours``, ``-30 days``, ``-14 days``, ``-3 months``): the
  same span;
- any other literal modifier SQLite does not know makes the query an error (the model is shown why), never a run.

Only string literals are read: a modifier built at run time (``'-' || n || ' days'``) is SQLite's to judge.
"""

from __future__ import annotations

import re

from sqlglot import exp

from core.sql._foreign_calls import date_part_of_difference, unknown_strftime_codes

__all__ = ["SQLITE_DATE_FUNCTIONS", "bad_sqlite_modifier", "sqlite_meaningless", "sqlite_notation", "text_ordered_date",
           "translate_sqlite_modifiers"]

SQLITE_DATE_FUNCTIONS = frozenset({"date", "time", "datetime", "julianday", "unixepoch", "strftime", "timediff"})
_UNITS = ("second", "minute", "hour", "day", "month", "year")
_MODIFIER = re.compile(
    r"[+-]?\s*\d+(\.\d*)?\s+(" + "|".join(_UNITS) + r")s?"  # NNN days
    r"|[+-]?\s*\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?"  # ±HH:MM[:SS[.SSS]]
    r"|[+-]\s*\d{4}-\d{2}-\d{2}(\s+\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?)?"  # ±YYYY-MM-DD[ HH:MM[:SS]]
    r"|start\s+of\s+(month|year|day)|weekday\s+[0-6]|unixepoch|julianday|auto|localtime|utc|subsec|subsecond"
    r"|ceiling|floor",
    re.IGNORECASE)
_ISO_DURATION = re.compile(r"([+-]?)P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?",
                           re.IGNORECASE)
_OTHER_UNITS = (("week", 7, "days"), ("wk", 7, "days"), ("quarter", 3, "months"), ("qtr", 3, "months"),
                ("hr", 1, "hours"), ("min", 1, "minutes"), ("sec", 1, "seconds"), ("yr", 1, "years"),
                ("day", 1, "days"))
_OTHER_UNIT = re.compile(r"([+-]?)\s*(\d+(?:\.\d+)?)\s*(weeks?|wks?|quarters?|qtrs?|hrs?|mins?|secs?|yrs?|days?)",
                         re.IGNORECASE)
_SIGNED_NUMBER = re.compile(r"\s*[+-]\d+(?:\.\d+)?\s*")
_AGO = re.compile(r"(\d+(?:\.\d+)?)\s+(" + "|".join(_UNITS) + r"|week)s?\s+ago", re.IGNORECASE)


def _calls(tree: exp.Expression) -> list[tuple[exp.Expression, list[exp.Expression]]]:
    """SQLite date/time calls and their arguments after the first (the time value; strftime's format too)."""
    out = []
    for node in tree.find_all(exp.Anonymous):
        name = str(node.this).casefold()
        if name in SQLITE_DATE_FUNCTIONS:
            skip = 2 if name in ("strftime", "timediff") else 1
            out.append((node, list(node.expressions)[skip:]))
    return out


def _sqlite_form(text: str) -> str | None:
    """``text`` (a modifier SQLite does not know) in SQLite's notation when it has exactly one reading, else None."""
    value = text.strip()
    iso = _ISO_DURATION.fullmatch(value)
    if iso and any(iso.groups()[1:]):
        sign = "-" if iso.group(1) == "-" else "+"
        years, months, weeks, days, hours, minutes, seconds = (int(g) if g else 0 for g in iso.groups()[1:])
        parts = [(years, "years"), (months, "months"), (7 * weeks + days, "days"), (hours, "hours"),
                 (minutes, "minutes"), (seconds, "seconds")]
        written = [f"{sign}{n} {unit}" for n, unit in parts if n]
        return written[0] if len(written) == 1 else None  # several parts: several modifiers, not one
    other = _OTHER_UNIT.fullmatch(value)
    if other:  # '-2 weeks', '+1 quarter', '-3 hrs': a unit SQLite lacks or spells otherwise, with one length
        sign, number, unit = other.group(1) or "+", other.group(2), other.group(3).lower()
        times, named = next((n, u) for prefix, n, u in _OTHER_UNITS if unit.startswith(prefix))
        return f"{sign}{float(number) * times:g} {named}"
    ago = _AGO.fullmatch(value)
    if ago:
        number, unit = ago.group(1), ago.group(2).lower()
        if unit == "week":
            return f"-{float(number) * 7:g} days"
        return f"-{number} {unit}s"
    return None


def _unknown_modifiers(tree: exp.Expression) -> list[tuple[exp.Expression, exp.Literal]]:
    """Each literal modifier SQLite does not know, with the call it is in."""
    return [(node, arg) for node, modifiers in _calls(tree) for arg in modifiers
            if isinstance(arg, exp.Literal) and arg.is_string and not _MODIFIER.fullmatch(arg.name.strip())
            and not _SIGNED_NUMBER.fullmatch(arg.name)]  # '-30': no unit, read in the question's (``repair._dates``)


def translate_sqlite_modifiers(tree: exp.Expression) -> list[str]:
    """Write each literal modifier in another notation with one reading as SQLite's, in place; notes back."""
    notes = []
    for _node, arg in _unknown_modifiers(tree):
        written = _sqlite_form(arg.name)
        if written is not None:
            notes.append(f"'{arg.name}' -> '{written}'")
            arg.replace(exp.Literal.string(written))
    return notes


def bad_sqlite_modifier(tree: exp.Expression) -> str | None:
    """Why the query cannot mean what it says on SQLite — a literal modifier SQLite does not know, which makes the
    call NULL on every row — or None."""
    unknown = _unknown_modifiers(tree)
    if not unknown:
        return None
    node, arg = unknown[0]
    return (f"SQLite does not know the modifier '{arg.name}' in {node.sql(dialect='sqlite')}: the call gives NULL "
            "on every row. Write spans as '-7 days', '+1 month', 'start of month'.")


def sqlite_notation(tree: exp.Expression, mended: str) -> str:
    """Modifiers in SQLite's notation (``translate_sqlite_modifiers``); ``mended`` with what was rewritten."""
    notes = translate_sqlite_modifiers(tree)
    said = f"date modifiers written as SQLite's: {', '.join(notes)}" if notes else ""
    return "; ".join(part for part in (mended, said) if part)


# A date written day or month first ('31/03/2023', '03-31-2023', '31.03.2023'): as text it does not sort by date.
_NOT_ISO_DATE = re.compile(r"\d{1,2}[/.-]\d{1,2}[/.-]\d{4}")


def text_ordered_date(tree: exp.Expression) -> str | None:
    """A range comparison (<, >, <=, >=, BETWEEN) with a date written day or month first: SQLite compares it as
    text, and text in that form does not sort by date whatever the column holds ('31/03/2023' > '2023-12-01' and
    '01/04/2023' < '31/03/2023'), so the range cannot mean what it says. The reason, or None. (An equality may be
    right: a column can hold dates written that way.)"""
    for node in tree.find_all(exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Between):
        sides = [node.args.get(k) for k in ("this", "expression", "low", "high")]
        for side in sides:
            if isinstance(side, exp.Literal) and side.is_string and _NOT_ISO_DATE.fullmatch(side.name.strip()):
                return (f"'{side.name}' in {node.sql(dialect='sqlite')} is compared as text on SQLite, where a date "
                        "written day or month first does not sort by date. Write dates as 'YYYY-MM-DD'.")
    return None


def sqlite_meaningless(tree: exp.Expression) -> str | None:
    """Why a query that SQLite would run cannot mean what it says there (a NULL or constant on every row, a range
    that is not by date), or None: a date part of a difference, a strftime format it cannot honour, a modifier it
    does not know, a range over a date written day or month first."""
    return (date_part_of_difference(tree) or unknown_strftime_codes(tree) or bad_sqlite_modifier(tree)
            or text_ordered_date(tree))
