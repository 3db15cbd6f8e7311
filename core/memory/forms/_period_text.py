"""A fixed period in plain words -> its first day and the day after it ends.

"From 2023 onwards", "since March 2024", "only 2025", "calendar year 2025", "before 2024", "2023 ke baad",
"between Jan 2024 and June 2024", "ignore invoices before 2023". A standing preference that names such a
period is a default time range with fixed bounds (``window_form``); the question's own dates still win.

Nothing is guessed: a year-like number next to money words ("orders over 2000") or beside other numbers
("from 2000 to 5000") is not a period, and a negated two-sided period ("not in 2024") has no single range.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass

from core.memory.kernel import NEGATION, words

__all__ = ["Period", "current_period", "period_from_text"]

_MONTHS = {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10,
           "nov": 11, "dec": 12}  # fmt: skip
_MONTH = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|" \
         r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_YEAR = r"(?:19|20)\d\d"
# one point in time: an ISO day, a month and year, a quarter, or a year
_WHEN = (rf"(?:(?P<{{p}}iso>{_YEAR}-\d\d-\d\d)|"
         rf"(?P<{{p}}dd>\d{{{{1,2}}}})(?:st|nd|rd|th)?\s+(?P<{{p}}dmon>{_MONTH})\.?,?\s+(?P<{{p}}dy>{_YEAR})|"
         rf"(?P<{{p}}mdmon>{_MONTH})\.?\s+(?P<{{p}}mdd>\d{{{{1,2}}}})(?:st|nd|rd|th)?,?\s+(?P<{{p}}mdy>{_YEAR})|"
         rf"(?P<{{p}}mon>{_MONTH})\.?,?\s+(?P<{{p}}my>{_YEAR})|"
         rf"q(?P<{{p}}q>[1-4])\s*(?P<{{p}}qy>{_YEAR})|(?P<{{p}}qy2>{_YEAR})\s*q(?P<{{p}}q2>[1-4])|"
         rf"(?:(?:calendar|fiscal|financial)\s+)?(?:year\s+)?(?P<{{p}}y>{_YEAR}))")
_A, _B = _WHEN.format(p="a"), _WHEN.format(p="b")
_RANGE = re.compile(rf"\b(?:from|between)\s+{_A}\s*(?:to|and|-|–|till|until|through|thru)\s*{_B}\b|"
                    rf"\b{_WHEN.format(p='e')}\s*(?:to|-|–|till|until|through|thru)\s*{_WHEN.format(p='f')}\b",
                    re.IGNORECASE)  # "2022 through 2025"
_LOWER = re.compile(rf"\b(?:since|starting(?:\s+(?:from|in|with))?|beginning(?:\s+(?:in|with))?|as\s+of)\s+"
                    rf"{_A}(?:\s+(?:onwards?|on|forward|and\s+(?:later|after|beyond)))?\b|"
                    rf"\bfrom\s+{_WHEN.format(p='d')}\s+(?:onwards?|on|forward|and\s+(?:later|after|beyond))\b|"
                    rf"\b{_B}\s+(?:onwards?|and\s+(?:later|after|beyond)|or\s+later|"
                    r"se\b(?!\s+(?:pehle|pahle|first|zyada|jyada|kam|upar|neeche|niche|adhik)))", re.IGNORECASE)
_AFTER = re.compile(rf"\b(?:after|later\s+than|post)\s+{_A}\b|\b{_B}\s+(?:ke\s+)?baad\b", re.IGNORECASE)
_UPPER = re.compile(rf"\b(?:before|prior\s+to|earlier\s+than|older\s+than)\s+{_A}\b|\b{_B}\s+se\s+(?:pehle|pahle|first)\b",
                    re.IGNORECASE)
# Bounds said inclusively: "on or after 1 Jan 2024" keeps 1 Jan, "on or before 30 June" keeps 30 June, "not
# after 31 Dec 2024" keeps 31 Dec (checked before "after"/"before" alone, which exclude the day named)
_ON_OR_AFTER = re.compile(rf"\b(?:on\s+or\s+after|no\s+earlier\s+than|not\s+(?:earlier\s+than|before))\s+{_A}\b",
                          re.IGNORECASE)
_ON_OR_BEFORE = re.compile(rf"\b(?:on\s+or\s+before|no\s+later\s+than|not\s+(?:later\s+than|after))\s+{_A}\b|"
                           rf"\b{_B}\s+or\s+(?:before|earlier)\b", re.IGNORECASE)
_NEGATING = NEGATION | {"nothing", "none", "neither"}  # "nothing after 31 Dec 2024": the other side of the bound
_THROUGH = re.compile(rf"\b(?:until|till|through|thru|up\s*to|by\s+the\s+end\s+of)\s+{_A}\b", re.IGNORECASE)
_IN = re.compile(rf"\b(?:in|during|for|of|from|within|only|sirf|just|year|to)\s+(?:the\s+)?{_A}\b|\b{_B}\s+(?:only|ke|ka|ki|"
                 rf"wale|wali)\b|^\s*{_WHEN.format(p='c')}\s*$", re.IGNORECASE)
_MONEY = re.compile(r"[$€£₹]|\b(?:amount|total|value|price|spend|revenue|sales?\s+of|over|above|under|below|more\s+than|"
                    r"less\s+than|at\s+least|at\s+most|rs|inr|usd|eur|rupees?|dollars?|units?|rows?|minutes?|"
                    r"seconds?|ms|tracks?\s+longer)\b", re.IGNORECASE)  # fmt: skip
_CLAUSES = re.compile(r"[;.!?]|\s+-\s+|\bbut\b|,\s*(?=(?:older|newer|earlier|later|anything|everything)\b)",
                      re.IGNORECASE)


@dataclass(frozen=True)
class Period:
    start: datetime.date | None  # first day inside the period
    end: datetime.date | None  # first day after it
    span: tuple[int, int]  # where the period's words are in the text given


def _point(m: re.Match[str], p: str) -> tuple[datetime.date, datetime.date] | None:
    """(first day, day after the last) of the point named by group prefix ``p``."""
    g = m.groupdict()
    try:
        if g.get(p + "iso"):
            day = datetime.date.fromisoformat(g[p + "iso"])
            return day, day + datetime.timedelta(days=1)
        for d, mon, y in (("dd", "dmon", "dy"), ("mdd", "mdmon", "mdy")):  # "1 April 2025", "April 1, 2025"
            if g.get(p + mon) and g.get(p + d):
                day = datetime.date(int(g[p + y]), _MONTHS[g[p + mon][:3].lower()], int(g[p + d]))
                return day, day + datetime.timedelta(days=1)
        if g.get(p + "mon"):
            year, month = int(g[p + "my"]), _MONTHS[g[p + "mon"][:3].lower()]
            return datetime.date(year, month, 1), _add_months(year, month, 1)
        quarter, qyear = g.get(p + "q") or g.get(p + "q2"), g.get(p + "qy") or g.get(p + "qy2")
        if quarter and qyear:
            first = 3 * (int(quarter) - 1) + 1
            return datetime.date(int(qyear), first, 1), _add_months(int(qyear), first, 3)
        if g.get(p + "y"):
            year = int(g[p + "y"])
            return datetime.date(year, 1, 1), datetime.date(year + 1, 1, 1)
    except ValueError:  # "2024-02-31"
        return None
    return None


def _add_months(year: int, month: int, n: int) -> datetime.date:
    y, m0 = divmod(year * 12 + month - 1 + n, 12)
    return datetime.date(y, m0 + 1, 1)


def period_from_text(text: str) -> Period | None:
    """The one fixed period ``text`` keeps to, or None. A negated clause ("ignore invoices before 2023") keeps
    the other side of its bound; a negated two-sided period has no single range and gives None."""
    for clause in _clauses(text):
        found = _in_clause(clause[0], clause[1])
        if found is not None:
            return found
    return None


def _clauses(text: str) -> list[tuple[str, int]]:
    out, start = [], 0
    for m in _CLAUSES.finditer(text):
        out.append((text[start : m.start()], start))
        start = m.end()
    out.append((text[start:], start))
    return [c for c in out if re.search(_YEAR, c[0])]


def _in_clause(clause: str, offset: int) -> Period | None:
    if _MONEY.search(clause):
        return None
    for rx, side in ((_RANGE, "range"), (_ON_OR_AFTER, "lower"), (_ON_OR_BEFORE, "through"), (_AFTER, "after"),
                     (_LOWER, "lower"), (_UPPER, "upper"), (_THROUGH, "through"), (_IN, "in")):  # fmt: skip
        m = rx.search(clause)
        if m is None:
            continue
        if _other_numbers(clause, m):
            return None
        # a negation before the period ("ignore invoices before 2023"), or a Hindi one after it ("… mat dikhao");
        # "from 2023 onwards and no Brazil" negates Brazil, not the period
        negated = bool(set(words(clause[: m.start()])) & _NEGATING) or bool(
            re.search(r"\b(?:mat|nahi|nahin|na)\b", clause[m.end() :], re.IGNORECASE))  # fmt: skip
        a = _point(m, "a") or _point(m, "e") or _point(m, "b") or _point(m, "c") or _point(m, "d")
        if a is None:
            return None
        if side == "range":
            b = _point(m, "b") or _point(m, "f")
            if b is None or negated:
                return None
            start, end = min(a[0], b[0]), max(a[1], b[1])  # "from 2024 to 2023" is the same two years
        elif side in ("lower", "after"):
            bound = a[0] if side == "lower" else a[1]
            start, end = (None, bound) if negated else (bound, None)
        elif side in ("upper", "through"):
            bound = a[0] if side == "upper" else a[1]
            start, end = (bound, None) if negated else (None, bound)
        else:
            if negated:
                return None
            start, end = a
        return Period(start, end, (offset + m.start(), offset + m.end()))
    return None


def _other_numbers(clause: str, m: re.Match[str]) -> bool:
    """A number outside the period's own words ("orders from 2000 to 5000 only"): an amount, not a date."""
    rest = clause[: m.start()] + " " + clause[m.end() :]
    return bool(re.search(r"\d", rest))


_CURRENT = re.compile(r"\b(?:(?:this|current|the\s+current|is)\s+(?:calendar\s+|financial\s+|fiscal\s+)?"
                      r"(?P<unit>year|quarter|month)|(?P<todate>year|quarter|month)[-\s]+to[-\s]+date|"
                      r"(?P<abbr>ytd|qtd|mtd))\b", re.IGNORECASE)  # fmt: skip
_FISCAL_START = re.compile(r"\b(?:financial|fiscal)\s+year\b.*?\b(?:from\s+|starting\s+(?:in\s+)?|\()?(?P<mon>" + _MONTH
                           + r")\b", re.IGNORECASE)  # fmt: skip


def current_period(text: str) -> tuple[str, int, tuple[int, int]] | None:
    """("year", 1, span) for "this year" / "year to date", ("quarter", 1, span), ("month", 1, span); a financial
    year that starts in another month gives its first month ("current financial year (April to March)" ->
    ("year", 4, span)). ``span``: where its words are in ``text``, a bracket right after them included."""
    m = _CURRENT.search(text)
    if m is None:
        return None
    unit = (m.group("unit") or m.group("todate") or {"ytd": "year", "qtd": "quarter", "mtd": "month"}.get(
        (m.group("abbr") or "").lower(), "")).lower()  # fmt: skip
    if not unit:
        return None
    fiscal = _FISCAL_START.search(text)
    first_month = _MONTHS[fiscal.group("mon")[:3].lower()] if fiscal and unit == "year" else 1
    bracket = re.match(r"\s*\([^)]*\)", text[m.end() :])
    return unit, first_month, (m.start(), m.end() + (bracket.end() if bracket else 0))
