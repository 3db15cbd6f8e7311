"""Standing preference filters, enforced on the SQL itself: every SELECT that reads the table gets the filter.

The prompt asks the model to apply them too; this pass makes sure, whatever the model wrote. A query that
already constrains the same column (the person asked about another country explicitly) is left alone. A
``window`` form ("only the last 3 months") is enforced the same way, as ``column >= <today minus the window>``.
A metric's own conditions win over a standing filter on the same column (``skip_columns``): the metric's CASE
already decides which rows count, and ANDing the filter in would silently change its meaning.
"""

from __future__ import annotations

import calendar
import datetime
import logging
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

__all__ = ["FilterOutcome", "enforce_filters", "filter_condition", "sql_literal", "window_start"]

logger = logging.getLogger(__name__)

_OPS = {"=": exp.EQ, "<>": exp.NEQ, "!=": exp.NEQ, ">": exp.GT, ">=": exp.GTE, "<": exp.LT, "<=": exp.LTE}
_UNITS = ("day", "week", "month", "year")


@dataclass(frozen=True)
class FilterOutcome:
    expression: exp.Expression
    added: tuple[int, ...]  # indexes of filters added to the SQL
    present: tuple[int, ...]  # the model already wrote exactly this condition
    overridden: tuple[int, ...]  # the query constrains the same column differently (the question wins)
    skipped: tuple[int, ...] = ()  # not enforced for this query: a metric it uses has its own condition here


def sql_literal(value: Any) -> exp.Expression:
    """A Python value as a SQL literal expression."""
    if isinstance(value, bool):
        return exp.Boolean(this=value)
    if isinstance(value, (int, float)):
        return exp.Literal.number(value)
    return exp.Literal.string(str(value))


def window_start(amount: int, unit: str, today: datetime.date) -> datetime.date:
    """The first day of "the last ``amount`` ``unit``s" before ``today``.

    Months and years use calendar arithmetic (3 months before 31 May is 29 February in a leap year), not
    30-day blocks: "the last 3 months" should match what a person would count on a calendar.
    """
    unit = unit.lower().rstrip("s")
    if unit == "day":
        return today - datetime.timedelta(days=amount)
    if unit == "week":
        return today - datetime.timedelta(weeks=amount)
    if unit not in ("month", "year"):
        raise ValueError(f"unknown window unit: {unit!r}")
    months = amount * (12 if unit == "year" else 1)
    year, month0 = divmod(today.year * 12 + today.month - 1 - months, 12)
    day = min(today.day, calendar.monthrange(year, month0 + 1)[1])
    return datetime.date(year, month0 + 1, day)


def current_start(unit: str, today: datetime.date, first_month: object = 1) -> datetime.date | None:
    """The first day of the current ``unit`` ("year", "quarter", "month") on ``today``; a year may start in
    another month (a financial year from April: ``first_month`` 4). None for anything else."""
    if isinstance(first_month, bool) or not isinstance(first_month, int) or not 1 <= first_month <= 12:
        return None
    if unit == "month":
        return today.replace(day=1)
    if unit == "quarter":
        return datetime.date(today.year, 3 * ((today.month - 1) // 3) + 1, 1)
    if unit == "year":
        year = today.year if today.month >= first_month else today.year - 1
        return datetime.date(year, first_month, 1)
    return None


def _date_literal(day: datetime.date, dialect: str | None) -> exp.Expression:
    """A date constant that compares correctly with the dialect's date columns.

    SQLite has no date type: dates are ISO text, and ISO text compares in date order, also against
    ``YYYY-MM-DD HH:MM:SS`` values, so the bare string is right there. Elsewhere a typed DATE is needed.
    """
    text = exp.Literal.string(day.isoformat())
    if (dialect or "").lower() == "sqlite":
        return text
    return exp.cast(text, exp.DataType.build("DATE"))


def _window_condition(
    spec: Mapping[str, Any], col: exp.Column, dialect: str | None, today: datetime.date | None
) -> exp.Expression | None:
    if spec.get("start") or spec.get("end"):
        return _fixed_window_condition(spec, col, dialect)
    if spec.get("current"):
        start = current_start(str(spec["current"]), today or datetime.date.today(), spec.get("first_month") or 1)
        return None if start is None else exp.GTE(this=col, expression=_date_literal(start, dialect))
    amount = spec.get("amount")
    unit = str(spec.get("unit") or "").lower().rstrip("s")
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0 or unit not in _UNITS:
        return None
    try:
        start = window_start(amount, unit, today or datetime.date.today())
    except (ValueError, OverflowError):  # reaches before year 1: every date is inside it
        return None
    return exp.GTE(this=col, expression=_date_literal(start, dialect))


_PLAIN_NAME = re.compile(r"[a-z_][a-z0-9_]*")


def identifier(name: str) -> exp.Identifier:
    """A name as an identifier, quoted where it must be to keep its spelling ("Country" on PostgreSQL, which
    folds unquoted names to lower case); plain lower-case names stay bare."""
    return exp.to_identifier(name, quoted=not _PLAIN_NAME.fullmatch(name))


def qualifier_of(source: exp.Table) -> exp.Identifier:
    """How the query itself refers to ``source`` (its alias, else its name), quoting as the query wrote it."""
    alias = source.args.get("alias")
    node = alias.this if alias is not None else source.this
    return node.copy() if isinstance(node, exp.Identifier) else identifier(source.alias_or_name)


def column_ref(column: str, qualifier: exp.Identifier | str | None = None) -> exp.Column:
    """``qualifier.column`` built so that both keep their spelling in every dialect."""
    table = identifier(qualifier) if isinstance(qualifier, str) else qualifier
    return exp.Column(this=identifier(column), table=table)


def ordered_bounds(low: Any, high: Any) -> tuple[Any, Any]:
    """"Between 100 and 50" means the same range as "between 50 and 100" (SQL's BETWEEN would match nothing)."""
    try:
        return (high, low) if high < low else (low, high)
    except TypeError:
        return low, high


def filter_condition(
    spec: Mapping[str, Any],
    qualifier: exp.Identifier | str | None,
    *,
    dialect: str | None = None,
    today: datetime.date | None = None,
) -> exp.Expression | None:
    """The boolean expression of a structured filter or window, its column qualified by ``qualifier``.

    ``None`` when the spec cannot be expressed faithfully (unknown op, BETWEEN without two bounds, a window
    without a positive amount): enforcing half a condition would be worse than not enforcing it.
    ``dialect`` and ``today`` matter only for windows (the date literal's form and the window's end).
    """
    column = spec.get("column")
    if not column:
        return None
    col = column_ref(str(column), qualifier)
    if spec.get("kind") == "window":
        return _window_condition(spec, col, dialect, today)
    op = " ".join(str(spec.get("op", "=")).upper().split())
    value = spec.get("value")
    if op in ("IN", "NOT IN"):
        values = value if isinstance(value, (list, tuple)) else [value]
        cond: exp.Expression = exp.In(this=col, expressions=[sql_literal(v) for v in values])
        return exp.Not(this=cond) if op == "NOT IN" else cond
    if op == "BETWEEN":
        if not isinstance(value, (list, tuple)) or len(value) != 2:
            return None
        low, high = ordered_bounds(value[0], value[1])
        return exp.Between(this=col, low=sql_literal(low), high=sql_literal(high))
    if op in ("LIKE", "NOT LIKE"):
        return like_condition(col, op, value)
    builder = _OPS.get(op)
    if builder is None:
        return None
    return builder(this=col, expression=sql_literal(value))


def referencing_links(schema: Any, table: str) -> list[dict[str, str]]:
    """{table, column, key} of every other table that references ``table`` by a one-column foreign key: the
    rows that belong to ``table``'s rows (Invoice's lines, Customer's invoices, MediaType's tracks)."""
    target = schema.table(table)
    if target is None:
        return []
    return [{"table": t.qualified_name, "column": fk.columns[0], "key": fk.ref_columns[0]}
            for t in schema.tables if t is not target for fk in t.foreign_keys
            if fk.ref_table == target.qualified_name and len(fk.columns) == 1 and len(fk.ref_columns) == 1]


def referrer_condition(
    spec: Mapping[str, Any], link: Mapping[str, Any], qualifier: exp.Identifier | str | None, *,
    dialect: str | None = None, today: datetime.date | None = None,
) -> exp.Expression | None:
    """The filter on a lookup table, for a query that reads only a table referencing it:
    ``t.MediaTypeId IN (SELECT MediaType.MediaTypeId FROM MediaType WHERE MediaType.Name <> '…')`` (the rows
    an inner join with the filtered lookup table would keep). ``link``: {"table", "column", "key"} of the
    referencing table, its foreign-key column and the lookup table's key."""
    fk, key = str(link.get("column") or ""), str(link.get("key") or "")
    table = str(spec.get("table") or "")
    if not (fk and key and table):
        return None
    db, _, name = table.rpartition(".")
    inner = filter_condition(spec, identifier(name), dialect=dialect, today=today)
    if inner is None:
        return None
    source = exp.Table(this=identifier(name), db=identifier(db) if db else None)
    sub = exp.select(column_ref(key, identifier(name))).from_(source).where(inner)
    return exp.In(this=column_ref(fk, qualifier), query=exp.Subquery(this=sub))


LIKE_ESCAPE = "\\"


def like_condition(col: exp.Expression, op: str, value: Any) -> exp.Expression | None:
    """``col LIKE p`` / ``NOT LIKE p``; a list of patterns is any of them (LIKE) or none of them (NOT LIKE)."""
    patterns = list(value) if isinstance(value, (list, tuple)) else [value]
    if not patterns or not all(isinstance(p, str) for p in patterns):
        return None
    likes = [like_node(col.copy(), p) for p in patterns]
    if op == "NOT LIKE":
        return exp.and_(*(exp.Not(this=like) for like in likes))
    return likes[0] if len(likes) == 1 else exp.or_(*likes)


def escape_like(text: str) -> str:
    """Text to match literally inside a LIKE pattern: the person's own % and _ are characters, not wildcards."""
    return text.replace(LIKE_ESCAPE, LIKE_ESCAPE * 2).replace("%", LIKE_ESCAPE + "%").replace("_", LIKE_ESCAPE + "_")


def like_node(col: exp.Expression, pattern: str) -> exp.Expression:
    """``col LIKE pattern``, with ``ESCAPE '\\'`` when the pattern holds an escaped character (SQLite has no
    default escape character; a pattern without one reads the same everywhere and stays as people write it)."""
    like = exp.Like(this=col, expression=exp.Literal.string(pattern))
    if LIKE_ESCAPE not in pattern:
        return like
    return exp.Escape(this=like, expression=exp.Literal.string(LIKE_ESCAPE))


def _direct_tables(select: exp.Select) -> list[exp.Table]:
    """Tables in this SELECT's own FROM and JOINs (not in nested subqueries)."""
    out: list[exp.Table] = []
    from_ = select.args.get("from") or select.args.get("from_")
    sources = [from_.this] if from_ is not None else []
    sources += [j.this for j in select.args.get("joins") or []]
    for src in sources:
        if isinstance(src, exp.Table):
            out.append(src)
    return out


def _constrains(select: exp.Select, qualifier: str, table: str, column: str) -> bool:
    where = select.args.get("where")
    if where is None:
        return False
    for col in where.find_all(exp.Column):
        if col.name.lower() != column.lower():
            continue
        if not col.table or col.table.lower() in (qualifier.lower(), table.lower()):
            return True
    return False


def _bare(table: str) -> str:
    return table.split(".")[-1].lower()


def enforce_filters(
    expression: exp.Expression,
    filters: Sequence[Mapping[str, Any]],
    dialect: str,
    *,
    today: datetime.date | None = None,
    skip_columns: Collection[tuple[str, str]] = (),
) -> FilterOutcome:
    """AND each filter (or window) into every SELECT reading its table. ``expression`` is not changed (copied).

    ``today`` fixes the end of windows (tests, reproducible answers); ``None`` means the current date.
    ``skip_columns`` holds (table, column) pairs, lowercase, that a metric used by this query constrains
    itself: standing filters on them are reported in ``skipped`` instead of being enforced.
    """
    tree = expression.copy()
    day = today or datetime.date.today()
    skip = {(_bare(t), c.lower()) for t, c in skip_columns}
    added: list[int] = []
    present: list[int] = []
    overridden: list[int] = []
    skipped: list[int] = []
    for index, spec in enumerate(filters):
        table = _bare(str(spec.get("table") or ""))
        column = str(spec.get("column") or "")
        if not table or not column:
            continue
        if (table, column.lower()) in skip:
            skipped.append(index)
            continue
        links = {_bare(str(link.get("table") or "")): link for link in spec.get("also_on") or ()
                 if isinstance(link, Mapping)}  # fmt: skip
        only_through = bool(spec.get("only_through")) and bool(links)  # scoped to the referencing tables
        for select in list(tree.find_all(exp.Select)):
            sources = _direct_tables(select)
            if links and (only_through or not any(s.name.lower() == table for s in sources)):
                _enforce_on_referrer(select, sources, spec, links, index, dialect, day, added, overridden)
                continue
            for source in sources:
                if source.name.lower() != table:
                    continue
                qualifier = source.alias_or_name
                cond = filter_condition(spec, qualifier_of(source), dialect=dialect, today=day)
                if cond is None:
                    continue
                if _constrains(select, qualifier, table, column):
                    bucket = present if _has_condition(select, cond, dialect) else overridden
                    if index not in bucket:
                        bucket.append(index)
                    continue
                select.where(cond, append=True, copy=False, dialect=dialect)
                if index not in added:
                    added.append(index)
    return FilterOutcome(tree, tuple(added), tuple(present), tuple(overridden), tuple(skipped))


def _enforce_on_referrer(
    select: exp.Select, sources: list[exp.Table], spec: Mapping[str, Any], links: Mapping[str, Mapping[str, Any]],
    index: int, dialect: str, day: datetime.date, added: list[int], overridden: list[int],
) -> None:
    """A SELECT that reads a table referencing the filter's lookup table, and not the lookup table itself."""
    for source in sources:
        link = links.get(source.name.lower())
        if link is None:
            continue
        if _constrains(select, source.alias_or_name, source.name.lower(), str(link.get("column") or "")):
            if index not in overridden:
                overridden.append(index)
            continue
        cond = referrer_condition(spec, link, qualifier_of(source), dialect=dialect, today=day)
        if cond is None:
            continue
        select.where(cond, append=True, copy=False, dialect=dialect)
        if index not in added:
            added.append(index)


def _normalised(node: exp.Expression, dialect: str) -> str:
    bare = node.copy()
    for col in bare.find_all(exp.Column):
        col.set("table", None)
    return bare.sql(dialect=dialect).lower()


def _has_condition(select: exp.Select, cond: exp.Expression, dialect: str) -> bool:
    """True when WHERE already holds ``cond`` (ignoring qualifiers and case)."""
    where = select.args.get("where")
    if where is None:
        return False
    wanted = _normalised(cond, dialect)
    return any(_normalised(node, dialect) == wanted for node in where.walk() if isinstance(node, exp.Expression))


def _fixed_window_condition(spec: Mapping[str, Any], col: exp.Column, dialect: str | None) -> exp.Expression | None:
    """``col >= start AND col < end`` of a window with fixed bounds (either may be open); None when a bound is
    not an ISO day (a hand-edited memory) or the range is empty."""
    try:
        start = datetime.date.fromisoformat(str(spec["start"])) if spec.get("start") else None
        end = datetime.date.fromisoformat(str(spec["end"])) if spec.get("end") else None
    except ValueError:
        return None
    if start is not None and end is not None and end <= start:
        return None
    parts: list[exp.Expression] = []
    if start is not None:
        parts.append(exp.GTE(this=col.copy(), expression=_date_literal(start, dialect)))
    if end is not None:
        parts.append(exp.LT(this=col.copy(), expression=_date_literal(end, dialect)))
    return exp.and_(*parts) if len(parts) > 1 else parts[0]
