"""The dates a question names against the query's: the year ("in 2021") and the span back from today ("the last 30
days", "pichhle 3 mahine") that the query writes as another year, another length, another unit or forward in time.

Like the other question checks, each finding edits the query to the words, runs it under the guard and, when its
rows differ, says so and offers it; the query that ran stays the answer.
"""

from __future__ import annotations

import re

from sqlglot import exp

from core.evidence._asked import Span

__all__ = ["span_finding", "year_finding"]

_YEAR = re.compile(r"(?<!\d)(19\d\d|20\d\d)(?!\d)")
_MODIFIER = re.compile(r"^\s*([+-]?)\s*(\d+)\s+([a-z]+?)s?\s*$", re.I)
_UNITS = {"day": "day", "week": "week", "month": "month", "year": "year", "hour": "hour", "minute": "minute"}

Finding = tuple[str, str, exp.Expression]


def _years_of(node: exp.Literal) -> set[str]:
    if node.is_string:
        return set(_YEAR.findall(node.this))
    return {node.this} if _YEAR.fullmatch(node.this) else set()


def year_finding(years: tuple[str, ...], tree: exp.Expression) -> Finding | None:
    """One year in the question, none in the query, and one other year written in its place (as a number or
    inside date strings): the query with the question's year."""
    if len(set(years)) != 1:
        return None
    year = years[0]
    literals = [lit for lit in tree.find_all(exp.Literal) if _years_of(lit)]
    written = set().union(*(_years_of(lit) for lit in literals)) if literals else set()
    if year in written or len(written) != 1:
        return None
    other = written.pop()
    if abs(int(other) - int(year)) > 5:
        return None  # a year far from the question's is another thing (a birth year, a founding year)
    if abs(int(other) - int(year)) == 1 and all(lit.is_string and re.match(rf"{other}-01-01\b", lit.this)
                                                for lit in literals if other in _years_of(lit)):
        return None  # "after 2021" written >= '2022-01-01', "by the end of 2022" < '2023-01-01': the same bound
    for lit in literals:
        text = _YEAR.sub(lambda m: year if m.group(1) == other else m.group(1), lit.this)
        lit.replace(exp.Literal.string(text) if lit.is_string else exp.Literal.number(text))
    return f"The question says {year} and the query reads {other}", f"Read {year}", tree


def span_finding(span: Span, tree: exp.Expression, dialect: str) -> Finding | None:
    """"the last 30 days": a SQLite date modifier of ``date('now', …)`` or a PostgreSQL interval taken from today
    of another length or unit, or one that counts forward from today, put back to the question's span."""
    if dialect == "sqlite":
        said = _sqlite_modifiers(span, tree)
    elif dialect in ("postgres", "duckdb"):
        said = _intervals(span, tree)
    else:
        return None
    if said is None:
        return None
    return f"The question says “{span.words}” and the query counts {said}", f"The {span.words}", tree


def _sqlite_modifiers(span: Span, tree: exp.Expression) -> str | None:
    strings: list[tuple[exp.Literal, re.Match[str]]] = []
    for call in tree.find_all(exp.Anonymous):
        args = call.expressions
        if args and isinstance(args[0], exp.Literal) and args[0].this.strip().lower() == "now":
            strings += [(lit, m) for lit in args[1:] if isinstance(lit, exp.Literal) and lit.is_string
                        and (m := _MODIFIER.match(lit.this)) and m.group(3).lower() in _UNITS]
    want = _days(span.count, span.unit)
    ok = [lit for lit, m in strings if m.group(1) == "-" and _days(int(m.group(2)), _UNITS[m.group(3).lower()]) == want]
    if ok or len(strings) != 1:
        return None
    lit, m = strings[0]
    count, unit = (span.count * 7, "day") if span.unit == "week" else (span.count, span.unit)  # SQLite has no weeks
    lit.replace(exp.Literal.string(f"-{count} {unit}{'s' if count != 1 else ''}"))
    return f"{m.group(1) or '+'}{m.group(2)} {m.group(3)}s from today"


def _days(count: int, unit: str) -> tuple[int, str]:
    """A span in days where it is a whole number of days (3 weeks is 21 days), else as written."""
    return (count * 7, "day") if unit == "week" else (count, unit)


_NOW = (exp.CurrentDate, exp.CurrentTimestamp, exp.CurrentDatetime)


def _intervals(span: Span, tree: exp.Expression) -> str | None:
    found: list[tuple[exp.Interval, int, str]] = []
    for interval in tree.find_all(exp.Interval):
        parent = interval.parent
        if not isinstance(parent, (exp.Add, exp.Sub)) or parent.expression is not interval or not (
                isinstance(parent.this, _NOW) or (isinstance(parent.this, exp.Anonymous)
                                                  and parent.this.name.lower() == "now")):
            continue
        text = interval.this.this if isinstance(interval.this, exp.Literal) else None
        unit = interval.args.get("unit")
        words = f"{text} {unit.name if unit is not None else ''}".split() if text is not None else []
        if len(words) >= 2 and words[0].isdigit() and words[1].lower().rstrip("s") in _UNITS:
            found.append((interval, int(words[0]), _UNITS[words[1].lower().rstrip("s")]))
    if len(found) != 1:
        return None
    interval, count, unit = found[0]
    parent = interval.parent
    assert isinstance(parent, (exp.Add, exp.Sub))
    forward = isinstance(parent, exp.Add)
    if _days(count, unit) == _days(span.count, span.unit) and not forward:
        return None
    new = exp.Interval(this=exp.Literal.string(str(span.count)), unit=exp.var(span.unit.upper()))
    parent.replace(exp.Sub(this=parent.this.copy(), expression=new))
    return f"{'+' if forward else '-'}{count} {unit}s from today"
