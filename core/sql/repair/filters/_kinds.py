"""A column compared with a value of another kind. First, a column compared with a date where it holds no dates:
``c.make BETWEEN CURRENT_DATE - INTERVAL '30 days' AND CURRENT_DATE``, ``t.receiver_type >= DATE_TRUNC('month',
CURRENT_DATE)``, ``u.country >= '2023-01-01'``.

A text column of names, or a number or yes/no column, compared with a date means nothing: PostgreSQL rejects it
(no such operator), and SQLite runs it, comparing text with text or a number with text (``'Toyota' >= '2023-11-07'``),
and keeps rows by spelling. A model that copies the previous condition's column, or picks the wrong one, writes it.
Which column holds no dates is known from its declared type where the database compares only a date with a date
(PostgreSQL, against a date that is not quoted text: it rejects the query anyway, so no answer changes), a yes/no
column, or, for text, from its known values where there are some and none is written like a date (``'2023-01-05'``,
``'01/05/2023'``, ``'Jan 5, 2023'``, ``20230105``); on SQLite a column whose values are unknown, or a number that may
be a date (``20230105``, a Unix time), is left as written.

The date column meant is taken only where the query says which: the other end of the same range, a comparison
with a date in the same chain of ANDs on one date column (``u.country >= … AND n.created_at < …``); else the one
date column of the tables the query reads. Either is a guess the model is shown first (the query as written fails or
is offered). With no such column, or several, the query is refused with the date columns it could mean, and the
model is asked again: a comparison that cannot mean anything never runs as an answer.

Second, on PostgreSQL, a number column compared with a word, ``t.sender_type = 'success'`` (it rejects the query): read
on the one text column of its own table whose known values hold that word (``t.status``), a guess the model is shown
first; with none, or several, left to the database (and the model). SQLite runs it and may hold words in a number
column: left.
"""

from __future__ import annotations

import re

from sqlglot import exp

from core.dialects import is_postgres_like
from core.errors import SQLValidationError
from core.schema import Column, Schema, Table
from core.sql.repair._names import GUESSED
from core.sql.repair._scope import is_within, schema_column, scope_sources, scopes
from core.sql.repair._types import COMPARISONS, ISO_DATE, NUMBER_TEXT, kind_of

__all__ = ["dates_on_date_columns", "words_on_text_columns"]

# A value that may be a date or a part of one: '2023-01-05', '05/03/2023', '03/2023', 'Mar 5, 2023', '5 Mar 2023',
# '05-Mar-2023', '20230105', a year ('2023', 'FY2023'), a quarter ('Q1 2023'), a month name: the model may have
# meant the column, so it is never moved
_DATE_SHAPE = re.compile(
    r"\d{1,4}[-/.]\d{1,2}(?:[-/.]\d{1,4})?|\d{1,2}[-/.][A-Za-z]{3,9}[-/.]\d{2,4}|[A-Za-z]{3,9}\.? \d{1,2},? \d{4}|"
    r"\d{1,2} [A-Za-z]{3,9}\.? \d{4}|\d{8}|(?<!\d)(?:19|20)\d{2}(?!\d)|\b(?:jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|"
    r"dec|january|february|march|april|may|june|july|august|september|october|november|december)\b", re.IGNORECASE)
_DATE_FUNCTIONS = frozenset({"date", "datetime", "now", "current_date", "today", "getdate", "sysdate"})
_WHOLE_DATE = ("%Y", "%m", "%d")  # a STRFTIME that writes a whole date is a date written as text; a year or a month
# alone ('%Y', '%m/%Y') is a part, which a text column of years or months holds
_MAX_OFFERED = 5


def _date_valued(node: exp.Expression) -> bool:
    """Whether ``node`` is a date or a time: today (``CURRENT_DATE``, ``NOW()``, ``date('now', …)``), a date
    truncated, cast or written as ``'2023-01-05'``, or one of those moved by an interval."""
    node = node.unnest()
    if isinstance(node, (exp.CurrentDate, exp.CurrentTimestamp, exp.CurrentDatetime, exp.DateTrunc,
                         exp.TimestampTrunc, exp.DateAdd, exp.DateSub, exp.TsOrDsToDate, exp.StrToDate, exp.Date,
                         exp.Datetime, exp.DateFromParts, exp.TimeStrToTime)):
        return True
    if isinstance(node, exp.Anonymous):
        return node.name.lower() in _DATE_FUNCTIONS
    if isinstance(node, exp.TimeToStr):
        fmt = node.args.get("format")
        return isinstance(fmt, exp.Literal) and all(code in fmt.this for code in _WHOLE_DATE)
    if isinstance(node, exp.Cast):
        return node.to.is_type(*exp.DataType.TEMPORAL_TYPES)
    if isinstance(node, exp.Literal):
        return node.is_string and bool(ISO_DATE.fullmatch(node.this.strip()))
    if isinstance(node, (exp.Add, exp.Sub)):
        return _date_valued(node.this) and isinstance(node.expression.unnest(), exp.Interval)
    return False


def _may_hold_dates(column: Column, typed: bool) -> bool:
    """Whether a column may hold dates or times: declared so, of no known kind, text whose values are unknown or
    written like dates, or a number (or text holding numbers) that may be a date (``20230105``, a Julian day) or a
    Unix time. ``typed``: the database
    compares only a date with a date (PostgreSQL, against a date that is no quoted text), so a number column's
    declared type decides."""
    declared = (column.type or "").lower()
    kind = kind_of(declared)
    hints = [str(v).strip() for v in column.value_hints]
    if "bool" in declared:
        return False
    if kind == "date" or kind is None:
        return True
    if typed and kind == "number":
        return False  # text is read by its values even so: a text column of ISO dates PostgreSQL will not compare
        # with a date was still meant (the error asks the model), never moved to another column
    numbers = [float(h) for h in hints if NUMBER_TEXT.fullmatch(h)]
    if kind == "number" or hints and len(numbers) == len(hints):  # a number, or text holding numbers: a Julian day
        return not numbers or any(n >= 10**6 or 1900 <= n <= 2100 for n in numbers)  # (2459000), 20230105, a Unix
        # time or a year may be a date or a part of one
    return not hints or any(_DATE_SHAPE.search(h) for h in hints)


def _holds_dates(column: Column) -> bool:
    """A column known to hold dates: declared a date or time, or text whose known values are written as dates."""
    if kind_of(column.type or "") == "date":
        return True
    hints = [str(v).strip() for v in column.value_hints]
    return kind_of(column.type or "") == "text" and bool(hints) and all(ISO_DATE.fullmatch(h) for h in hints)


def _comparisons(select: exp.Expression) -> list[tuple[exp.Expression, exp.Column, bool]]:
    """Each comparison of a column with a date in ``select``'s own clauses (not its subqueries'): the comparison,
    its column, and whether the date is only ever quoted text (``'2023-01-05'``)."""
    found: list[tuple[exp.Expression, exp.Column, bool]] = []
    for node in select.find_all(*COMPARISONS, exp.Between):
        if node.find_ancestor(exp.Select) is not select:
            continue
        if isinstance(node, exp.Between):
            col, others = node.this, [node.args.get("low"), node.args.get("high")]
        elif isinstance(node.this, exp.Column) and not isinstance(node.expression, exp.Column):
            col, others = node.this, [node.expression]
        else:
            col, others = node.expression, [node.this]
        if isinstance(col, exp.Column) and all(o is not None and _date_valued(o) for o in others):
            found.append((node, col, all(isinstance(o.unnest(), exp.Literal) for o in others)))
    return found


def _owner(col: exp.Column, sources: list, dialect: str) -> tuple[str, Table, Column] | None:
    found = schema_column(col, sources, dialect)
    return (found[0].key, found[0].table, found[1]) if found is not None else None


def dates_on_date_columns(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str]) -> None:
    """A column that holds no dates compared with a date, read on the date column meant (see above), in place;
    refused where no one column is meant."""
    for scope in scopes(tree):
        select = scope.expression
        if not isinstance(select, exp.Select):
            continue
        sources = scope_sources(scope, schema, dialect)
        found = _comparisons(select)
        dated: dict[str, exp.Column] = {}
        for _, col, _ in found:
            owned = _owner(col, sources, dialect)
            if owned is not None and _holds_dates(owned[2]):
                dated.setdefault(f"{owned[0]}.{owned[2].name}".lower(), col)
        for node, col, quoted in found:
            owned = _owner(col, sources, dialect)
            if owned is None or _may_hold_dates(owned[2], typed=is_postgres_like(dialect) and not quoted):
                continue
            before = node.sql(dialect=dialect)
            if _value_copied(node):
                held = f" (it holds {', '.join(owned[2].value_hints[:_MAX_OFFERED])})" if owned[2].value_hints else ""
                raise SQLValidationError(
                    f"{before} compares {col.sql(dialect=dialect)}, which holds no dates, with the date another "
                    f"condition of the query uses: the value written for {col.sql(dialect=dialect)} may be a copy"
                    f"{held}", hint="Write the value the question gives for that column, or ask again.")
            meant = _meant(node, dated, sources)
            if meant is None:
                offered = [f"{s.key}.{c.name}" for s in sources if s.table is not None
                           for c in s.table.columns if _holds_dates(c)]
                said = (f"; the date columns of its tables are {', '.join(offered[:_MAX_OFFERED])}" if offered else
                        "; none of its tables has a date column")
                raise SQLValidationError(
                    f"{before} compares {col.sql(dialect=dialect)}, which holds no dates, with a date{said}",
                    hint="Compare the date column the question means, or ask again naming it.")
            col.replace(meant.copy())
            fixes.append(f"{before}: {col.sql(dialect=dialect)} holds no dates; read on "
                         f"{meant.sql(dialect=dialect)}{GUESSED}")


def _value_copied(node: exp.Expression) -> bool:
    """Whether another comparison in the same chain of ANDs compares the very date ``node`` does
    (``CAST(t.tx_at AS DATE) = '2023-04-01' AND t.tx_type = '2023-04-01'``): the value, not the column, was
    copied, and reading the column as the date column would only repeat that condition."""
    chain = _chain(node)
    parts = list(chain.flatten()) if isinstance(chain, exp.And) else []
    return any(_dates(node) & _dates(p.unnest()) for p in parts if p.unnest() is not node)


def _dates(node: exp.Expression) -> set[str]:
    """The dates a comparison compares with, as written (BETWEEN: both ends as one)."""
    if isinstance(node, exp.Between):
        return {f"{node.args['low'].sql()} .. {node.args['high'].sql()}"}
    if not isinstance(node, COMPARISONS):
        return set()
    return {side.sql() for side in (node.this, node.expression) if not side.find(exp.Column) and _date_valued(side)}


def _chain(node: exp.Expression) -> exp.Expression:
    while isinstance(node.parent, (exp.And, exp.Paren)):
        node = node.parent
    return node


def _meant(node: exp.Expression, dated: dict[str, exp.Column], sources: list) -> exp.Column | None:
    """The date column ``node`` was meant on: the one date column the query compares with a date in the same chain
    of ANDs (the range's other end), else the one date column of the query's tables."""
    chain = _chain(node)
    beside = {key: c for key, c in dated.items() if is_within(c, chain)}
    if len(beside) == 1:
        return next(iter(beside.values()))
    if beside:
        return None
    columns = [(s, c) for s in sources if s.table is not None for c in s.table.columns if _holds_dates(c)]
    if len(columns) != 1:
        return None
    source, column = columns[0]
    return exp.column(column.name, table=source.key_ident.copy() if source.key_ident is not None else None)




_YES_NO = frozenset({"true", "false", "t", "f", "yes", "no", "y", "n", "on", "off", "0", "1"})


def words_on_text_columns(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str]) -> None:
    """A number or yes/no column compared (``=``, ``<>``, ``IN``) with words only, read on the one text column of its
    own table whose known values hold them all (see above), in place. Only where the database rejects the comparison
    (PostgreSQL): SQLite may hold words in a number column, and runs it."""
    if not is_postgres_like(dialect):
        return
    for scope in scopes(tree):
        select = scope.expression
        if not isinstance(select, exp.Select):
            continue
        sources = scope_sources(scope, schema, dialect)
        for node in select.find_all(exp.EQ, exp.NEQ, exp.In):
            if node.find_ancestor(exp.Select) is not select or not isinstance(node.this, exp.Column):
                continue
            values = [node.expression] if not isinstance(node, exp.In) else node.expressions
            words = [v.this for v in values if isinstance(v, exp.Literal) and v.is_string]
            if not words or len(words) != len(values) or any(NUMBER_TEXT.fullmatch(w.strip()) for w in words):
                continue
            owned = _owner(node.this, sources, dialect)
            declared = (owned[2].type or "").lower() if owned is not None else ""
            if owned is None or not (kind_of(declared) == "number" or "bool" in declared and not all(
                    w.strip().lower() in _YES_NO for w in words)):
                continue
            holders = [(src, c) for src in sources if src.key == owned[0] for c in src.table.columns
                       if kind_of(c.type or "") == "text" and all(_held(w, c) for w in words)]
            if len(holders) != 1:
                continue
            source, column = holders[0]
            before = node.sql(dialect=dialect)
            shared = sum(src.table is not None and src.table.column(column.name) is not None for src in sources) > 1
            qualified = (node.this.table or shared) and source.key_ident is not None
            node.this.replace(exp.column(column.name, table=source.key_ident.copy() if qualified else None))
            for value in values:
                value.replace(exp.Literal.string(_held(value.this, column)))
            fixes.append(f"{before}: {owned[2].name} holds numbers, not words; read on {column.name}, whose values "
                         f"hold them, {node.sql(dialect=dialect)}{GUESSED}")


def _held(word: str, column: Column) -> str:
    """The known value of ``column`` that ``word`` spells, in the column's capitals; '' when none."""
    folded = word.strip().lower()
    return next((str(v) for v in column.value_hints if str(v).strip().lower() == folded), "")
