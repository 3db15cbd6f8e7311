"""Quotes in the wrong place: values without them (``WHERE to_airport = JFK``, ``WHERE sale_date >= 2023-01-01``) and
column names inside them (``SELECT 'name' FROM author``, ``WHERE 'vendor_name' = 'Acme'``).

A bare word compared with a text column that no table has as a column can only be the string the writer forgot to
quote (the database rejects it as an unknown column). On SQLite, a date whose month or day has one digit
(``'2023-4-1'``) beside a date column is the date as stored, ``'2023-04-01'``: compared as text it sorts wrong (a
guess, and only where a bounded query finds no value of the column stored unpadded). A date written without quotes is
arithmetic to the database (``2023-01-01`` is 2021) and runs, comparing a date with a number; beside a date column (or
a text one: SQLite keeps dates as text, and a number compared with a text matches nothing sensible) it can only be the
date.
A string that spells a column of exactly one table of the query (of several: the one grouped by, or whose values hold
what it is compared with), shown as a whole column that labels nothing (every row the same word, no count or UNION
branch beside it; unnamed, or named for that column: ``'id' AS customer_id``), compared with a constant or matched
with a pattern (true of every row or of none), or where a constant means nothing (summed, grouped or sorted by, in arithmetic, the date of a date
function: ``_no_constant_here``), can only be that column.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from sqlglot import exp
from sqlglot.optimizer.scope import Scope

from core.schema import Schema
from core.sql.repair._dates_sqlite import date_differences
from core.sql.repair._arithmetic import casts_after_division, day_of_month_differences, precedence_slips
from core.sql.repair._names import GUESSED, WHEN_WORDS, tokens
from core.sql.repair._scope import Source, column_source, schema_column, scope_sources, scopes
from core.sql.repair._types import kind_of

__all__ = ["compared_kind", "date_arithmetic", "quoted_columns", "unquoted_dates"]

_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)


def compared_kind(col: exp.Column, local: list[Source], dialect: str) -> str | None:
    """The kind (text, number, date) of the real column ``col`` is compared with, or listed IN against."""
    node: exp.Expression = col
    parent = node.parent
    while isinstance(parent, (exp.Paren, exp.Lower, exp.Upper, exp.Trim)):
        node, parent = parent, parent.parent
    if isinstance(parent, exp.In) and node is not parent.this:
        other = parent.this
    elif isinstance(parent, _COMPARISONS):
        other = parent.expression if node is parent.this else parent.this
    else:
        return None
    while isinstance(other, (exp.Paren, exp.Lower, exp.Upper, exp.Trim)):
        other = other.this
    return _kind(other, local, dialect) if isinstance(other, exp.Column) else None


def _kind(col: exp.Column, local: list[Source], dialect: str) -> str | None:
    found = schema_column(col, local, dialect)
    return kind_of(found[1].type or "") if found is not None else None


def _date_digits(node: exp.Expression) -> str | None:
    """``2023-01-01`` parsed as 2023 - 1 - 1: the date it was written as, or None."""
    if not (isinstance(node, exp.Sub) and isinstance(node.this, exp.Sub)):
        return None
    parts = [node.this.this, node.this.expression, node.expression]
    if not all(isinstance(p, exp.Literal) and not p.is_string and p.name.isdigit() for p in parts):
        return None
    year, month, day = (p.name for p in parts)
    if len(year) != 4 or len(month) != 2 or len(day) != 2 or not (1 <= int(month) <= 12 and 1 <= int(day) <= 31):
        return None
    return f"{year}-{month}-{day}"


_UNPADDED = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})((?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?)")


def _padded(node: exp.Expression) -> str | None:
    """``'2023-4-1'`` (SQLite compares dates as text: it sorts after '2023-12-31'): the date as stored,
    ``'2023-04-01'``; None for any other value."""
    found = _UNPADDED.fullmatch(node.this) if isinstance(node, exp.Literal) and node.is_string else None
    if found is None or (len(found[2]) == 2 and len(found[3]) == 2) or not (
            1 <= int(found[2]) <= 12 and 1 <= int(found[3]) <= 31):
        return None
    return f"{found[1]}-{int(found[2]):02d}-{int(found[3]):02d}{found[4]}"


_UNPADDED_GLOBS = ("[0-9][0-9][0-9][0-9]-[0-9]-*", "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9]",
                   "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][^0-9]*")


def _stored_padded(col: exp.Column, local: list[Source], dialect: str,
                   matches: Callable[[str], bool | None] | None) -> bool:
    """Whether a bounded query finds no value of ``col`` stored with a one-digit month or day (``'2023-4-1'``): then
    an unpadded date compared with it can only mean the padded one."""
    source = column_source(col, local, dialect)
    if source is None or source.table is None or matches is None:
        return False
    test = exp.or_(*(exp.Glob(this=col.copy(), expression=exp.Literal.string(g)) for g in _UNPADDED_GLOBS))
    return matches(exp.select("1").from_(source.node.copy()).where(test).limit(1).sql(dialect=dialect)) is False


def _scope_dates(scope: Scope, schema: Schema, dialect: str, fixes: list[str],
                 matches: Callable[[str], bool | None] | None = None) -> None:
    local = scope_sources(scope, schema, dialect)
    pairs: list[tuple[exp.Expression, exp.Expression]] = []
    for cond in scope.walk():
        if isinstance(cond, _COMPARISONS):
            pairs += [(cond.this, cond.expression), (cond.expression, cond.this)]
        elif isinstance(cond, exp.Between):
            pairs += [(cond.args["low"], cond.this), (cond.args["high"], cond.this)]
    for side, other in pairs:
        padded = _padded(side) if dialect == "sqlite" and matches is not None else None
        if padded is not None and isinstance(other, exp.Column) and _date_kind(other, local, dialect) in (
                "date", "text") and _stored_padded(other, local, dialect, matches):
            fixes.append(f"'{side.this}' (a date whose month or day has one digit, compared as text) -> '{padded}'"
                         + GUESSED)  # a column that stores such dates itself would want it as written
            side.replace(exp.Literal.string(padded))
            continue
        date = _date_digits(side)
        # beside a date, or a text (SQLite keeps dates as text): a number there compares with nothing
        if date is None or not isinstance(other, exp.Column) or _kind(other, local, dialect) not in ("date", "text"):
            continue
        side.replace(exp.Literal.string(date))
        fixes.append(f"{date} written without quotes -> '{date}' (a date, not arithmetic)")


def unquoted_dates(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str],
                   matches: Callable[[str], bool | None] | None = None) -> None:
    """Quote, in place, the dates written without quotes beside a date column; pad an unpadded one where ``matches``
    (a bounded query) finds none stored so."""
    for scope in scopes(tree):
        _scope_dates(scope, schema, dialect, fixes, matches)


def date_arithmetic(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str]) -> None:
    """A difference of two days of the month as the days between the dates, brackets left out of a sum that is
    divided and a quotient of whole numbers cast after the division (``_arithmetic``, guesses); SQLite: a
    date minus a date as the days between them (``_dates_sqlite.date_differences``), each column's kind read in its
    own scope."""
    day_of_month_differences(tree, dialect, fixes)
    precedence_slips(tree, dialect, fixes)
    casts_after_division(tree, schema, dialect, fixes)
    if dialect != "sqlite":
        return
    for scope in scopes(tree):
        local = scope_sources(scope, schema, dialect)
        date_differences(scope.expression, lambda col, local=local, select=scope.expression: _date_kind(
            col, local, dialect) if col.find_ancestor(exp.Select) is select else None, fixes)


def _date_kind(col: exp.Column, local: list[Source], dialect: str) -> str | None:
    """A column's kind for date arithmetic: its declared one, and a text column only when its name says when
    (``sold_on``, ``created_at``, ``sale_date``): a text ``model_year`` minus today is an age in years as written."""
    kind = _kind(col, local, dialect)
    return kind if kind != "text" or set(tokens(col.name)) & WHEN_WORDS else None


def _column_for(lit: exp.Literal, local: list[Source], dialect: str) -> tuple[Source, str] | None:
    """The one column of the query's sources ``lit`` spells; of several, the one the query groups by under its
    table's alias (``SELECT 'name' … GROUP BY d.name``), else the one whose known values hold the value it is
    compared with (``'status' = 'unread'``: notifications' status, not users')."""
    owners = [(s, name) for s in local if (name := s.has(exp.to_identifier(lit.name), dialect)) is not None]
    if len(owners) > 1:
        select = lit.find_ancestor(exp.Select)
        group = select.args.get("group") if select is not None else None
        grouped = {g.table.lower() for g in (group.expressions if group is not None else ())
                   if isinstance(g, exp.Column) and g.name.lower() == lit.name.lower() and g.table}
        compared = _compared_value(lit)
        owners = [(s, n) for s, n in owners if s.key.lower() in grouped] or [
            (s, n) for s, n in owners if compared is not None and s.table is not None and (column := s.table.column(
                n)) is not None and compared in {str(v).lower() for v in column.value_hints}]
    return owners[0] if len(owners) == 1 else None


def _names_alike(alias: str, name: str) -> bool:
    """Whether an alias names the same thing as a column's name: a word in common (``customer_id``, ``id``), the
    alias's initials then its last word (``merchant_id``, ``mid``), or both saying when."""
    mine, theirs = tokens(alias), tokens(name)
    initials = "".join(w[0] for w in mine[:-1]) + mine[-1] if len(mine) > 1 else ""
    return bool(set(mine) & set(theirs)) or name.lower() == initials or bool(
        set(mine) & WHEN_WORDS and set(theirs) & WHEN_WORDS)


def _compared_value(lit: exp.Literal) -> str | None:
    """The string ``lit`` is compared with, lower case (``'status' = 'Unread'``: unread), else None."""
    parent = lit.parent
    other = (parent.expression if parent.this is lit else parent.this) if isinstance(parent, _COMPARISONS) else None
    return other.name.lower() if isinstance(other, exp.Literal) and other.is_string else None


_DATE_FUNCTIONS = frozenset({"DATE", "DATETIME", "JULIANDAY", "STRFTIME", "TIME", "UNIXEPOCH", "DATE_TRUNC",
                             "DATE_PART", "TO_CHAR", "AGE"})


def _no_constant_here(lit: exp.Literal) -> bool:
    """A place where a string constant means nothing, so a column's name there is the column: summed, averaged or
    taken the extreme of (``SUM('payment_amount')``), grouped, sorted or partitioned by (``GROUP BY 'status'``: one
    group), in arithmetic (``'arrival_time' - 'departure_time'``), tested for NULL or a range, or the date of a date
    function (``DATETIME('departure_time', 'unixepoch')``)."""
    parent = lit.parent
    if isinstance(parent, (exp.Sum, exp.Avg, exp.Min, exp.Max, exp.Ordered, exp.Between, exp.Is)):
        return parent.this is lit
    if isinstance(parent, (exp.Group, exp.Add, exp.Sub, exp.Mul, exp.Div)):
        return True
    if isinstance(parent, exp.Window):
        return any(p is lit for p in parent.args.get("partition_by") or [])
    name = (parent.name if isinstance(parent, exp.Anonymous) else parent.sql_name() if isinstance(parent, exp.Func)
            else "").upper()
    return name in _DATE_FUNCTIONS or isinstance(parent, (exp.TimeToStr, exp.Date, exp.DateTrunc, exp.Extract,
                                                          exp.TsOrDsToTimestamp, exp.TsOrDsToDate, exp.UnixToTime))


def _no_label(lit: exp.Literal, select: exp.Select) -> bool:
    """A constant column of a query where it labels nothing: no set operation around it (``UNION ALL SELECT 'phone',
    COUNT(*)`` names its branch's rows) and no aggregate or group beside it (``SELECT 'completed', COUNT(*)`` names
    its count) unless it spells a column grouped by (``SELECT 'grade', COUNT(*) … GROUP BY grade``: the groups)."""
    if isinstance(select.parent, exp.SetOperation):
        return False
    group = select.args.get("group")
    if group is not None:
        return any(isinstance(g, (exp.Column, exp.Literal)) and g.name.lower() == lit.name.lower()
                   for g in group.expressions)  # GROUP BY 'status' is read as the column too
    return not any(e.find(exp.AggFunc) for e in select.expressions)


def _constant(node: exp.Expression) -> bool:
    """A side of a comparison that reads no column of this query (a literal, or a subquery of its own)."""
    return isinstance(node, exp.Subquery) or node.find(exp.Column) is None


def quoted_columns(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str]) -> None:
    """Read, in place, a column name written as a string as the column (see the module docstring)."""
    for scope in scopes(tree):
        local = scope_sources(scope, schema, dialect)
        select = scope.expression
        for lit in [n for n in scope.walk() if isinstance(n, exp.Literal) and n.is_string and n.name]:
            parent = lit.parent
            item = parent if isinstance(parent, exp.Alias) and _names_alike(parent.alias, lit.name) else lit
            shown = isinstance(select, exp.Select) and item.parent is select and item.arg_key == "expressions" and \
                _no_label(lit, select)  # 'id' AS customer_id: the alias names that column; 'to_airport' AS kind not
            compared = isinstance(parent, (*_COMPARISONS, exp.Like, exp.ILike)) and _constant(
                parent.expression if parent.this is lit else parent.this)  # 'name' ILIKE 'J%': true of all or none
            found = _column_for(lit, local, dialect) if shown or compared or _no_constant_here(lit) else None
            if found is None:
                continue
            src, name = found
            qualifier = src.key_ident.copy() if src.key_ident is not None else exp.to_identifier(src.key)
            column = exp.Column(this=exp.to_identifier(name), table=qualifier if len(local) > 1 else None)
            lit.replace(column)
            fixes.append(f"'{lit.name}' -> {column.sql(dialect=dialect)} (a column name written as a string)")
