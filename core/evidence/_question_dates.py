"""The dates a question names against the query's: the year ("in 2021") and the span back from today ("the last 30
days", "pichhle 3 mahine") that the query writes as another year, another length, another unit or forward in time.

Like the other question checks, each finding edits the query to the words, runs it under the guard and, when its
rows differ, says so and offers it; the query that ran stays the answer.
"""

from __future__ import annotations

import datetime as dt
import re

import sqlglot
from sqlglot import exp

from core.evidence._asked import Asked, Span
from core.evidence._question_columns import name_words
from core.schema import Column, Schema

__all__ = ["DATE_WORDS", "date_finding", "dated", "grain_finding", "missing_date", "part_finding", "said_dates",
           "span_finding", "today_finding", "year_finding"]

_YEAR = re.compile(r"(?<!\d)(19\d\d|20\d\d)(?!\d)")
_MODIFIER = re.compile(r"^\s*([+-]?)\s*(\d+)\s+([a-z]+?)s?\s*$", re.I)
_UNITS = {"day": "day", "week": "week", "month": "month", "year": "year", "hour": "hour", "minute": "minute"}

Finding = tuple[str, str, exp.Expression] | tuple[str, str, exp.Expression, bool]  # the bool: see _merged_months


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


_MONTHS = {m: i + 1 for i, names in enumerate((
    ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
    ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
    ("december", "dec"))) for m in names}
_MONTH = r"(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_SAID_DATES = (  # (pattern, which groups are year, month, day); a year left out is the question's one year
    (re.compile(r"(?<![\d-])(\d{4})-(\d{1,2})-(\d{1,2})(?![\d-])"), (1, 2, 3)),
    (re.compile(rf"\b{_MONTH}\s+{_DAY}\b(?:,?\s+(\d{{4}}))?"), (3, 1, 2)),
    (re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}\b(?:,?\s+(\d{{4}}))?"), (3, 2, 1)),
)
_ISO = re.compile(r"^(\d{4}-\d{2}-\d{2})(?=$|[ T])")


def said_dates(text: str) -> set[dt.date]:
    """The whole dates a question writes: 2023-03-31, "Mar 31, 2023", "31st March 2023", "Dec 31st" (with the
    question's one year)."""
    years = set(_YEAR.findall(text))
    found: set[dt.date] = set()
    for pattern, (y, m, d) in _SAID_DATES:
        for match in pattern.finditer(text.lower()):
            year = match.group(y) or (next(iter(years)) if len(years) == 1 else None)
            month = match.group(m)
            try:
                found.add(dt.date(int(year), int(month) if month.isdigit() else _MONTHS[month], int(match.group(d))))
            except (TypeError, ValueError):
                continue  # no year, or no such day ("May 2023" is a month, not a date)
    return found


def _day(text: str) -> dt.date | None:
    """The day an ISO date names, or None where there is none (``'2023-02-29'``, a model's slip)."""
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        return None


def date_finding(text: str, tree: exp.Expression) -> Finding | None:
    """The question writes whole dates ("from Jan 1 to Mar 31, 2023") and the query one date string that is none of
    them, in place of the one date it leaves out: the query with the question's date. An exclusive end written as
    the next day (``< '2023-04-01'`` for "to Mar 31") or an exclusive start as the day before is the same range."""
    said = said_dates(text)
    literals = [(lit, day) for lit in tree.find_all(exp.Literal)
                if lit.is_string and (m := _ISO.match(lit.this)) and (day := _day(m.group(1))) is not None]
    missing = said - {d for _, d in literals}
    others = [(lit, d) for lit, d in literals if d not in said]
    if not said or len(missing) != 1 or len({d for _, d in others}) != 1:
        return None
    want, (lit, wrote) = missing.pop(), others[0]
    compared = lit.parent
    if (wrote - want).days == 1 and isinstance(compared, exp.LT) or (want - wrote).days == 1 and isinstance(
            compared, exp.GT):
        return None
    for node, _ in others:
        node.replace(exp.Literal.string(want.isoformat() + node.this[10:]))
    return (f"The question says {want.isoformat()} and the query reads {wrote.isoformat()}",
            f"Read {want.isoformat()}", tree)


def span_finding(span: Span, tree: exp.Expression, dialect: str) -> Finding | None:
    """"the last 30 days": a SQLite date modifier of ``date('now', …)`` or a PostgreSQL interval taken from today
    of another length or unit, or one that counts forward from today, or a date kept equal to that point (the one day
    30 days ago), put back to the question's span."""
    if dialect not in ("sqlite", "postgres", "duckdb"):
        return None
    if not _counts_from_today(tree):
        return _fixed_start(span, tree, dialect)
    if (backwards := _looks_back(tree)) is not None:
        return f"The question says “{span.words}” and the query keeps the dates before them", \
            f"The {span.words}", backwards
    if (one_day := _on_that_day(tree)) is not None:
        return f"The question says “{span.words}” and the query keeps only the one day that far back", \
            f"The {span.words}", one_day
    said = _sqlite_modifiers(span, tree) if dialect == "sqlite" else _intervals(span, tree)
    if said is None:
        return None
    return f"The question says “{span.words}” and the query counts {said}", f"The {span.words}", tree


_DATE_TEXT = re.compile(r"^\d{4}-\d{2}-\d{2}")
_FLIPPED = {exp.LT: exp.GT, exp.LTE: exp.GTE, exp.GT: exp.LT, exp.GTE: exp.LTE}


def _back_from_today(node: exp.Expression) -> bool:
    """``date('now', '-30 days')``, ``CURRENT_DATE - INTERVAL '30 days'``: a point some time before today."""
    if not _counts_from_today(node) or any(isinstance(c, exp.Column) for c in node.find_all(exp.Column)):
        return False
    return any(isinstance(n, exp.Literal) and n.is_string and n.this.strip().startswith("-") for n in node.walk()) or \
        any(isinstance(n, exp.Sub) for n in node.walk())


def _looks_back(tree: exp.Expression) -> exp.Expression | None:
    """The one comparison of a date with a point before today (``d <= date('now', '-30 days')``), when it keeps
    the dates before that point and no other comparison keeps those after it: the query with it turned round."""
    earlier, later = [], []
    for node in tree.find_all(exp.GT, exp.GTE, exp.LT, exp.LTE):
        if node.find_ancestor(exp.Not) is not None:
            continue
        for col_side, other, on_left in ((node.this, node.expression, True), (node.expression, node.this, False)):
            if col_side.find(exp.Column) is not None and _back_from_today(other):
                keeps_later = isinstance(node, (exp.GT, exp.GTE)) == on_left
                (later if keeps_later else earlier).append(node)
    if len(earlier) != 1 or later:
        return None
    node = earlier[0]
    node.replace(_FLIPPED[type(node)](this=node.this.copy(), expression=node.expression.copy()))
    return tree


def _on_that_day(tree: exp.Expression) -> exp.Expression | None:
    """The one date compared by ``=`` with a point before today (``d = date('now', '-30 days')``, "since" read as
    "on"), where nothing else compares a date with one: the query keeping the dates from that point on."""
    found = [node for node in tree.find_all(exp.EQ, exp.GT, exp.GTE, exp.LT, exp.LTE) if node.find_ancestor(
        exp.Not) is None and any(side.find(exp.Column) is not None and _back_from_today(other) for side, other in (
            (node.this, node.expression), (node.expression, node.this)))]
    if len(found) != 1 or not isinstance(found[0], exp.EQ) or any(_back_from_today(bound) for between in tree.find_all(
            exp.Between) for bound in (between.args.get("low"), between.args.get("high")) if bound is not None):
        return None  # a range of that span elsewhere: the day is another date's (``signup_date = …``)
    on_left = found[0].this.find(exp.Column) is not None and _back_from_today(found[0].expression)
    found[0].replace((exp.GTE if on_left else exp.LTE)(this=found[0].this.copy(), expression=found[0].expression.copy()))
    return tree


def _counts_from_today(tree: exp.Expression) -> bool:
    return any(isinstance(n, _NOW) or (isinstance(n, exp.Anonymous) and n.name.lower() in ("now", "date", "datetime",
               "julianday", "strftime") and any(isinstance(a, exp.Literal) and a.this.strip().lower() == "now"
                                                for a in n.expressions))
               or (isinstance(n, exp.Literal) and n.is_string and n.this.strip().lower() == "now")
               for n in tree.walk())


def _fixed_start(span: Span, tree: exp.Expression, dialect: str) -> Finding | None:
    """"the last 30 days" written from a fixed date (``sold_on >= '2023-05-01'``), nothing counted from today:
    the one such lower bound counted back from today instead."""
    starts = [node for node in tree.find_all(exp.GTE, exp.GT) if isinstance(node.expression, exp.Literal)
              and node.expression.is_string and _DATE_TEXT.match(node.expression.this)
              and isinstance(node.this, exp.Column)]
    if len(starts) != 1:
        return None
    node = starts[0]
    count, unit = (span.count * 7, "day") if span.unit == "week" and dialect == "sqlite" else (span.count, span.unit)
    plural = "s" if count != 1 else ""
    today: exp.Expression = (exp.Anonymous(this="DATE", expressions=[exp.Literal.string("now"), exp.Literal.string(
        f"-{count} {unit}{plural}")]) if dialect == "sqlite" else exp.Sub(this=exp.CurrentDate(), expression=exp.Interval(
            this=exp.Literal.string(str(count)), unit=exp.var(unit.upper()))))
    fixed = node.expression.this
    node.set("expression", today)
    return (f"The question says “{span.words}”, counted back from today, and the query starts at a fixed date, "
            f"'{fixed}'", f"The {span.words}", tree)


# Calls that only read a date (``date('2024-01-15')``, ``'2024-01-15'::date``) without counting from it.
_WRAPPERS = (exp.Cast, exp.TsOrDsToTimestamp, exp.TsOrDsToDate, exp.Paren)
_BOUNDS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Between, exp.In)


def _counted_from(literal: exp.Literal) -> bool:
    """Whether a date literal is where the query counts from (an anchor of date arithmetic: ``date('2024-01-15',
    '-30 days')``, ``julianday('2024-01-15') - julianday(x)``, ``'2024-01-15'::date - INTERVAL '7 days'``), not a
    bound something is compared with."""
    node: exp.Expression = literal
    while isinstance(node.parent, _WRAPPERS) or (isinstance(node.parent, exp.Anonymous) and len(
            node.parent.expressions) == 1 and node.parent.name.lower() in ("date", "datetime", "julianday")):
        node = node.parent
    parent = node.parent
    if parent is None or isinstance(parent, _BOUNDS):
        return False
    return (isinstance(parent, (exp.Add, exp.Sub, exp.TimestampTrunc, exp.DateTrunc, exp.TimeToStr, exp.DateAdd,
                                exp.DateSub, exp.DateDiff))
            or (isinstance(parent, exp.Anonymous) and len(parent.expressions) > 1))


def today_finding(from_today: bool, text: str, tree: exp.Expression, dialect: str) -> Finding | None:
    """A question that counts from now ("the past 7 days", "today") and a query that counts from one fixed date
    instead, with nothing read from today (``date('2023-12-31', '-7 days')``), or from the data's latest date
    (``(SELECT MAX(sale_date) FROM sales) - INTERVAL '30 days'``, every such anchor): the query counted from today."""
    if not from_today or dialect not in ("sqlite", "postgres", "duckdb") or _counts_from_today(tree):
        return None
    anchors = [lit for lit in tree.find_all(exp.Literal) if lit.is_string and _DATE_TEXT.match(lit.this)
               and _counted_from(lit)]
    latest = {q.sql() for q in tree.find_all(exp.Subquery) if _counted_from(q) and isinstance(
        q.this, exp.Select) and len(q.this.expressions) == 1 and isinstance(q.this.expressions[0].unalias(), exp.Max)}
    anchors += [q for q in tree.find_all(exp.Subquery) if q.sql() in latest] if not anchors else []
    fixed = {lit.sql() for lit in anchors}
    if len(fixed) != 1 or next(iter(fixed)).strip("'")[:10] in text:
        return None  # several dates (a fixed range), or one the question itself says
    for lit in anchors:
        node: exp.Expression = lit
        while isinstance(node.parent, _WRAPPERS) and dialect != "sqlite":
            node = node.parent
        node.replace(exp.Literal.string("now") if dialect == "sqlite" else exp.CurrentDate())
    said = "a fixed date" if isinstance(anchors[0], exp.Literal) else "the data's latest date"
    return f"The question counts from today and the query from {said}, {fixed.pop()}", "Count from today", tree


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


# "per month", "monthly", "har mahine": the period a question groups by.
_GRAIN_WORDS = {"daily": "day", "weekly": "week", "monthly": "month", "yearly": "year", "annual": "year",
                "annually": "year", "quarterly": "quarter"}
_GRAIN_NOUNS = {"day": "day", "days": "day", "din": "day", "week": "week", "weeks": "week", "hafte": "week",
                "month": "month", "months": "month", "mahine": "month", "mahina": "month", "year": "year",
                "years": "year", "saal": "year", "quarter": "quarter", "quarters": "quarter"}
_GRAIN_BEFORE = ("per", "each", "every", "by", "har", "pratyek")
_STRFTIME_GRAIN = {"%Y-%m-%d": "day", "%d": "day", "%Y-%W": "week", "%W": "week", "%Y-%m": "month", "%m": "month",
                   "%Y": "year"}
_GRAIN_FORMAT = {"day": "%Y-%m-%d", "week": "%Y-%W", "month": "%Y-%m", "year": "%Y"}


def asked_grain(text: str) -> str | None:
    """The one period the question groups by ("monthly", "per month", "har mahine"), else None."""
    words = re.findall(r"[a-z]+", text.lower())
    found = {_GRAIN_WORDS[w] for w in words if w in _GRAIN_WORDS}
    found |= {_GRAIN_NOUNS[b] for a, b in zip(words, words[1:]) if a in _GRAIN_BEFORE and b in _GRAIN_NOUNS}
    return found.pop() if len(found) == 1 else None


def grain_finding(grain: str | None, tree: exp.Expression, dialect: str, text: str = "") -> Finding | None:
    """A GROUP BY of a date at another period than the question's ("monthly" grouped by ``strftime('%Y', d)`` or
    ``DATE_TRUNC('week', d)``): the grouping at the question's period. '%m' (the month of the year) counts as months,
    unless the rows hold months of several years, which it merges (``_merged_months``)."""
    group = tree.args.get("group") if isinstance(tree, exp.Select) else None
    if grain is None or group is None:
        return None
    calls: list[tuple[exp.Expression, str, str]] = []  # (node, its period, dialect kind)
    for node in tree.find_all(exp.Anonymous, exp.TimeToStr, exp.DateTrunc, exp.TimestampTrunc):
        if node.find_ancestor(exp.Where, exp.Having, exp.Join, exp.Subquery) or node.find(*_NOW):
            continue  # a period of a filter ("this week"), not of the grouping
        if isinstance(node, exp.Anonymous) and node.name.lower() == "strftime" and node.expressions and isinstance(
                node.expressions[0], exp.Literal):
            period = _STRFTIME_GRAIN.get(node.expressions[0].this)
            if period:
                calls.append((node, period, "strftime"))
        elif isinstance(node, exp.TimeToStr) and isinstance(node.args.get("format"), exp.Literal):
            period = _STRFTIME_GRAIN.get(node.args["format"].this)
            if period:
                calls.append((node, period, "timetostr"))
        elif isinstance(node, (exp.DateTrunc, exp.TimestampTrunc)):
            unit = node.args.get("unit")
            period = unit.name.lower() if unit is not None else ""
            if period in ("day", "week", "month", "year", "quarter"):
                calls.append((node, period, "trunc"))
    if len({period for _, period, _ in calls}) != 1:
        return None
    if calls[0][1] == grain:
        return _merged_months(grain, calls, text)
    written = calls[0][1]
    for node, _, kind in calls:
        if kind == "trunc":
            node.set("unit", exp.var(grain.upper()))
        elif grain in _GRAIN_FORMAT:
            target = node.expressions[0] if kind == "strftime" else node.args["format"]
            target.replace(exp.Literal.string(_GRAIN_FORMAT[grain]))
        else:
            return None
    return (f"The question groups by {grain} and the query by {written}", f"Per {grain}", tree)


def _merged_months(grain: str, calls: list[tuple[exp.Expression, str, str]], text: str) -> Finding | None:
    """"per month" grouped by the month of the year (``strftime('%m', d)``) adds up each month's rows of every year:
    the grouping by year and month, offered only when it finds more groups (the rows span several years). Not when
    the words ask for the month of the year ("which month of the year", "month name")."""
    if grain != "month" or re.search(r"\bof (?:the |a )?year\b|\bmonth names?\b|\bcalendar month", text):
        return None
    formats = [node.expressions[0] if kind == "strftime" else node.args["format"] for node, _, kind in calls
               if kind != "trunc"]
    if not formats or len(formats) != len(calls) or any(f.this != "%m" for f in formats):
        return None
    tree = calls[0][0].root()
    for fmt in formats:
        fmt.replace(exp.Literal.string("%Y-%m"))
    return ("The question groups by month and the query by the month of the year, which adds up that month of "
            "every year", "Each month of each year", tree, True)


# --- a span or a year the question says and the query has no condition for -----------------------------------------

DATE_WORDS = frozenset({"date", "time", "at", "ts", "timestamp", "day", "dt", "on", "when"})


def dated(column: Column) -> bool:
    """A column that holds dates: typed so, or text named so (SQLite keeps dates as text: ``sale_date TEXT``)."""
    typed = (column.type or "").lower()
    if re.search(r"date|time", typed):
        return True
    words = name_words(column.name)
    return bool(words & DATE_WORDS) and bool(re.search(r"char|text|string|clob", typed) or not typed)


def _reads_a_date(tree: exp.Select, schema: Schema) -> bool:
    """Whether the query already says something about a date: a date column in a condition, or any year or date."""
    if any(_YEAR.search(lit.this) for lit in tree.find_all(exp.Literal)) or _counts_from_today(tree):
        return True
    for clause in (tree.args.get("where"), tree.args.get("having")):
        for col in clause.find_all(exp.Column) if clause is not None else ():
            for table in schema.tables:
                column = next((c for c in table.columns if c.name.lower() == col.name.lower()), None)
                if column is not None and dated(column):
                    return True
    return False


def missing_date(asked: Asked, tree: exp.Select, schema: Schema) -> Finding | None:
    """A span back from today ("the past 30 days") or one year ("in 2023") the question says, and a query that
    writes no date at all and filters on no date column: the condition on the one date column of the query's tables
    (the one the words name, where there are several), from today or within the year."""
    dialect = schema.dialect
    years = set(asked.years)
    if dialect not in ("sqlite", "postgres", "duckdb") or (asked.span is None and len(years) != 1):
        return None
    if _reads_a_date(tree, schema):
        return None
    columns = [(node.alias_or_name, table, column) for node in tree.find_all(exp.Table) if node.find_ancestor(
        exp.Select) is tree and (table := schema.table(node.name)) is not None for column in table.columns
        if dated(column)]
    if len(columns) > 1:  # the one the words name, else the one named for its table (sale_date of sales)
        named = [(a, t, c) for a, t, c in columns if name_words(c.name) - DATE_WORDS & asked.words]
        columns = named or [(a, t, c) for a, t, c in columns if name_words(c.name) - DATE_WORDS & name_words(t.name)]
    if len(columns) != 1:
        return None
    alias, _, column = columns[0]
    name = exp.column(column.name, table=alias).sql(dialect=dialect)
    if asked.span is not None:
        count, unit = _days(asked.span.count, asked.span.unit)
        if unit not in ("day", "month", "year"):
            return None
        condition = (f"{name} >= DATE('now', '-{count} {unit}s')" if dialect == "sqlite" else
                     f"{name} >= CURRENT_DATE - INTERVAL '{count} {unit}'")
        said = asked.span.words
    else:
        year = next(iter(years))
        condition = (f"STRFTIME('%Y', {name}) = '{year}'" if dialect == "sqlite" else
                     f"EXTRACT(YEAR FROM {name}) = {year}")
        said = year
    tree.where(sqlglot.parse_one(condition, read=dialect), append=True, copy=False, dialect=dialect)
    return (f"The question says “{said}” and the query has no condition on a date", f"Only {said}", tree)


# --- a date part compared with a value it never takes: EXTRACT(MONTH FROM d) = 2023, day of the month IN (0, 6) ---

_PART_RANGES = {"YEAR": (1, 9999), "QUARTER": (1, 4), "MONTH": (1, 12), "WEEK": (1, 53), "DAY": (1, 31),
                "DOY": (1, 366), "DOW": (0, 6), "HOUR": (0, 23), "MINUTE": (0, 59)}
_PART_FORMATS = {"%Y": "YEAR", "%m": "MONTH", "%W": "WEEK", "%d": "DAY", "%j": "DOY", "%w": "DOW", "%H": "HOUR",
                 "%M": "MINUTE"}
# The words that name a part, when the values fit several ("weekends": a day of the week, 0 and 6).
_PART_WORDS = {"DOW": ("weekend", "weekday", "day of the week", "day of week", "sunday", "saturday", "monday",
                       "tuesday", "wednesday", "thursday", "friday"), "HOUR": ("hour", "ghante"),
               "MINUTE": ("minute",), "QUARTER": ("quarter",), "WEEK": ("week",), "MONTH": ("month", "mahine"),
               "YEAR": ("year", "saal")}
_PART_SAID = {"DOW": "day of the week", "DAY": "day of the month", "DOY": "day of the year"}


def _part_of(node: exp.Expression) -> tuple[str, exp.Expression] | None:
    """(part, the node naming it) of ``EXTRACT(part FROM d)`` or SQLite's ``CAST(strftime('%m', d) AS INTEGER)``."""
    if isinstance(node, exp.Extract) and isinstance(node.this, exp.Var | exp.Literal):
        return node.this.name.upper(), node.this
    if isinstance(node, exp.Cast) and isinstance(node.this, exp.TimeToStr):
        fmt = node.this.args.get("format")
        if isinstance(fmt, exp.Literal) and fmt.this in _PART_FORMATS:
            return _PART_FORMATS[fmt.this], fmt
    return None


def part_finding(text: str, tree: exp.Expression) -> Finding | None:
    """``EXTRACT(MONTH FROM sale_date) = 2023`` or ``EXTRACT(DAY FROM d) IN (0, 6)``: a value the part never takes,
    so the comparison cannot mean what it says. The one part whose values hold every number compared (of those the
    question's words name, when several do: "weekends" for 0 and 6) in its place."""
    for node in tree.find_all(exp.EQ, exp.In):
        found = _part_of(node.this)
        values = node.expressions if isinstance(node, exp.In) else [node.expression]
        if found is None or found[0] not in _PART_RANGES or not values or not all(
                isinstance(v, exp.Literal) and not v.is_string and v.this.isdigit() for v in values):
            continue
        numbers = [int(v.this) for v in values]
        low, high = _PART_RANGES[found[0]]
        if all(low <= n <= high for n in numbers):
            continue
        fits = [p for p, (a, b) in _PART_RANGES.items() if all(a <= n <= b for n in numbers)]
        if len(fits) > 1:
            fits = [p for p in fits if any(re.search(rf"\b{w}", text) for w in _PART_WORDS.get(p, ()))]
        if len(fits) != 1:
            continue
        part, was = fits[0], _PART_SAID.get(found[0], found[0].lower())
        if isinstance(found[1], exp.Var):
            found[1].replace(exp.var(part))
        else:
            found[1].replace(exp.Literal.string(next(f for f, p in _PART_FORMATS.items() if p == part)))
        shown = ", ".join(map(str, numbers))
        now = _PART_SAID.get(part, part.lower())
        return (f"The query compares the {was} of a date with {shown}, which the {was} never is; as the {now}",
                f"Compare the {now}", tree)
    return None
