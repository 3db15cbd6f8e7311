"""Time phrases ("last year", "in March 2024", "last 30 days") as half-open date ranges relative to ``today``.

Ranges are computed here, not with CURRENT_DATE in SQL, so answers are reproducible and testable.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import date, timedelta

from core.fallback._text import Token

__all__ = ["DateRange", "match_time"]

logger = logging.getLogger(__name__)

_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        "january february march april may june july august september october november december".split()
    )
}
_MONTHS.update({k[:3]: v for k, v in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_MONTHS.pop("may", None)  # "may" is too often a verb; the full name is still accepted below
_MONTHS_FULL = {"may": 5}
_UNITS = {"day": "day", "days": "day", "week": "week", "weeks": "week", "month": "month", "months": "month",
          "quarter": "quarter", "quarters": "quarter", "year": "year", "years": "year"}  # fmt: skip


@dataclass(frozen=True)
class DateRange:
    start: date | None  # inclusive
    end: date | None  # exclusive
    label: str  # the period as understood, e.g. "last year", "March 2024"; "" for open ranges


def _add_months(d: date, months: int) -> date:
    y, m = divmod(d.month - 1 + months, 12)
    year, month = d.year + y, m + 1
    last_day = (_month_start(year, month + 1) - timedelta(days=1)).day if month < 12 else 31
    return date(year, month, min(d.day, last_day))


def _month_start(year: int, month: int) -> date:
    if month == 13:
        return date(year + 1, 1, 1)
    return date(year, month, 1)


def _period(unit: str, today: date, offset: int) -> tuple[date, date]:
    """The calendar ``unit`` containing today, shifted by ``offset`` units."""
    if unit == "day":
        start = today + timedelta(days=offset)
        return start, start + timedelta(days=1)
    if unit == "week":
        start = today - timedelta(days=today.weekday()) + timedelta(weeks=offset)
        return start, start + timedelta(weeks=1)
    if unit == "month":
        start = _add_months(date(today.year, today.month, 1), offset)
        return start, _add_months(start, 1)
    if unit == "quarter":
        q0 = date(today.year, 3 * ((today.month - 1) // 3) + 1, 1)
        start = _add_months(q0, 3 * offset)
        return start, _add_months(start, 3)
    start = date(today.year + offset, 1, 1)
    return start, date(start.year + 1, 1, 1)


def _rolling(unit: str, n: int, today: date) -> date:
    if unit == "day":
        return today - timedelta(days=n)
    if unit == "week":
        return today - timedelta(weeks=n)
    if unit == "month":
        return _add_months(today, -n)
    if unit == "quarter":
        return _add_months(today, -3 * n)
    return _add_months(today, -12 * n)


def _is_year(tok: Token) -> bool:
    return tok.kind == "number" and tok.number is not None and tok.number.is_integer() and 1900 <= tok.number <= 2100


def _point(tokens: list[Token], i: int) -> tuple[int, date, date, str] | None:
    """A year, a month and year, or an ISO date at ``i``: (next index, start, end, label)."""
    if i >= len(tokens):
        return None
    tok = tokens[i]
    if tok.kind == "date" and tok.day is not None:
        return i + 1, tok.day, tok.day + timedelta(days=1), tok.text
    if _is_year(tok):
        y = int(tok.number or 0)
        return i + 1, date(y, 1, 1), date(y + 1, 1, 1), str(y)
    month = _MONTHS.get(tok.text) or _MONTHS_FULL.get(tok.text) if tok.kind == "word" else None
    if month:
        j = i + 1
        if j < len(tokens) and tokens[j].text == "of":
            j += 1
        if j < len(tokens) and _is_year(tokens[j]):
            y = int(tokens[j].number or 0)
            start = date(y, month, 1)
            return j + 1, start, _month_start(y, month + 1), f"{tok.text.capitalize()} {y}"
    return None


def match_time(tokens: list[Token], i: int, today: date) -> tuple[int, DateRange] | None:
    """A time phrase starting at ``i``: (index after it, range), or None."""
    words = [t.text for t in tokens]
    n = len(tokens)
    j = i + 1 if words[i] == "the" else i
    if j >= n:
        return None
    w = words[j]
    if w == "today":
        return j + 1, DateRange(today, today + timedelta(days=1), "today")
    if w == "yesterday":
        return j + 1, DateRange(today - timedelta(days=1), today, "yesterday")
    if w in ("this", "current") and j + 1 < n and _UNITS.get(words[j + 1]) == words[j + 1]:
        start, end = _period(words[j + 1], today, 0)
        return j + 2, DateRange(start, end, f"this {words[j + 1]}")
    if w in ("last", "past", "previous", "prior", "recent"):
        k = j + 1
        if k < n and tokens[k].kind == "number" and tokens[k].number and tokens[k].number.is_integer():
            count = int(tokens[k].number or 0)
            if k + 1 < n and words[k + 1] in _UNITS and 0 < count <= 10000:
                unit = _UNITS[words[k + 1]]
                start = _rolling(unit, count, today)
                return k + 2, DateRange(start, today + timedelta(days=1), f"the last {count} {words[k + 1]}")
        if k < n and _UNITS.get(words[k]) == words[k]:
            unit = words[k]
            if w == "past" or w == "recent":  # "the past year": a rolling year up to today
                return k + 1, DateRange(_rolling(unit, 1, today), today + timedelta(days=1), f"the past {unit}")
            start, end = _period(unit, today, -1)
            return k + 1, DateRange(start, end, f"last {unit}")
        return None
    if w in ("in", "during", "for", "of", "on"):
        p = _point(tokens, j + 1)
        if p is not None:
            return p[0], DateRange(p[1], p[2], p[3])
        return None
    if w in ("since", "after", "before", "until", "from"):
        p = _point(tokens, j + 1)
        if p is None:
            return None
        end_i, start, end, label = p
        if w == "from" and end_i + 1 < n and words[end_i] in ("to", "until", "through"):
            q = _point(tokens, end_i + 1)
            if q is not None:
                return q[0], DateRange(start, q[2], "")
        if w in ("since", "from"):
            return end_i, DateRange(start, None, "")
        if w == "after":
            return end_i, DateRange(end, None, "")
        return end_i, DateRange(None, start, "")
    if w == "between":
        p = _point(tokens, j + 1)
        if p is not None and p[0] + 1 < n and words[p[0]] == "and":
            q = _point(tokens, p[0] + 1)
            if q is not None:
                return q[0], DateRange(p[1], q[2], "")
        return None
    p = _point(tokens, j)
    if p is not None and tokens[j].kind != "number":  # a bare month-year or ISO date; a bare year is too vague
        return p[0], DateRange(p[1], p[2], p[3])
    return None
