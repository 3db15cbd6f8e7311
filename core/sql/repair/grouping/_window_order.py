"""A ranking window written with no ORDER BY (``RANK() OVER ()``, ``ROW_NUMBER() OVER (PARTITION BY user_id)``): a
rank with no order is 1 on every row, a row number with none is any row's. Each reading is a guess the model is shown
first (``GUESSED``), and only where the query or the question says the order:

* the rank is shown by a SELECT that orders its rows by numbers — aggregates or number columns, never a label —
  (``… RANK() OVER () AS r … ORDER BY total DESC``):
  ranked in the order shown, the SELECT's own ORDER BY keys (an output name read as the expression it names);
* a row number per group in a CTE or derived table, where the question asks for the latest or the earliest one
  ("the latest balance of each user") and the tables it reads have exactly one date or time column: numbered by that
  column, newest or oldest first. Words for both, or neither, leave it as written.

And a row number per group written the other way round: ``ROW_NUMBER() OVER (PARTITION BY u ORDER BY updated_at ASC)
AS rn … WHERE rn = 1`` where the question asks for the latest one ("each user's latest balance"), or ``DESC`` where it
asks for the first or the earliest ("each doctor's first treatment"): numbered the way the words say, a guess. Only a
CTE's or derived table's row number kept ``= 1`` by the SELECT that reads it, ordered by one column that says when (a
date or time type, or, untyped, a name ending ``_at``, ``_date``, ``_dt``, ``_ts`` …; never a number — ``swim_time`` is a
duration; a NULL-placing ``CASE WHEN x IS NULL …`` key beside it keeps its place), its NULLs put last; the words
"latest", "most recent", "last", "newest" or "earliest", "first", "oldest", "original", "initial", "starting",
"opening" — "current", "final", "recent" say which groups ("each current employee"), and "first name", "first-time", a
period ("the last 7 days", "last season") and a list's size ("the first 10 products") are no such words.
"""

from __future__ import annotations

import re

from sqlglot import exp

from core.schema import Schema
from core.sql.repair._names import GUESSED, identifier, tokens
from core.sql.repair._tables import resolve_table
from core.sql.repair.grouping._ranks import output_named, ranks_kept_first

__all__ = ["flipped_latest", "window_orders"]

_RANKING = (exp.RowNumber, exp.Rank, exp.DenseRank, exp.PercentRank, exp.CumeDist, exp.Ntile)
_LATEST = re.compile(r"\b(?:latest|most\s+recent|last|newest|current|recent|up[- ]to[- ]date|final)\b", re.IGNORECASE)
_EARLIEST = re.compile(r"\b(?:earliest|first|oldest|original|initial)\b", re.IGNORECASE)
_WHEN_TYPE = re.compile(r"date|time", re.IGNORECASE)
_NUMBER_TYPE = re.compile(r"int|real|num|dec|float|double|money", re.IGNORECASE)
_COUNT_WORDS = r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|fifty|hundred)"
_NOT_WHEN = re.compile(  # "first name", "first-time", "first class", a period ("the last 7 days", "last season"), a
    # list's size ("the first 10 products"): no latest or earliest row of a group
    r"\b(?:first|last)[\s-]+names?\b|\bfirst[\s-]+(?:time|class|half)\w*|"
    r"\b(?:first|last|past|next|previous|prior|coming)\s+(?:" + _COUNT_WORDS + r"\s+|few\s+|several\s+|couple\s+of\s+)?"
    r"(?:days?|weeks?|months?|quarters?|years?|hours?|minutes?|fortnights?|seasons?|decades?|semesters?|terms?|nights?|"
    r"weekends?|periods?|sessions?|cycles?)\b|\b(?:first|last|top|latest|earliest|newest|oldest)\s+" + _COUNT_WORDS
    + r"\b", re.IGNORECASE)
_FLIP_LATEST = re.compile(r"\b(?:latest|most\s+recent(?:ly)?|last|newest)\b", re.IGNORECASE)  # never "current",
# "final", "recent": they say which groups ("each current employee", "the final")
_FLIP_EARLIEST = re.compile(r"\b(?:earliest|first|oldest|original|initial|starting|opening)\b", re.IGNORECASE)
_WHEN_NAMES = frozenset({"at", "on", "date", "dt", "ts", "timestamp", "datetime"})  # "time" may be a duration, swim_time


def window_orders(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str], question: str) -> None:
    """The ranking windows of the module docstring, given the order the query or the question says (guesses)."""
    for window in list(tree.find_all(exp.Window)):
        if not isinstance(window.this, _RANKING) or window.args.get("order") is not None:
            continue
        select = window.find_ancestor(exp.Select)
        if select is None or not any(window in list(item.find_all(exp.Window)) for item in select.expressions):
            continue
        order = _shown_order(select, schema, dialect) or _asked_order(window, select, schema, dialect, question)
        if order is None:
            continue
        written = window.sql(dialect=dialect)
        window.set("order", exp.Order(expressions=order))
        fixes.append(f"{written}: a ranking with no order (a rank of 1 on every row, or any row's number) -> "
                     f"{window.sql(dialect=dialect)}" + GUESSED)


def flipped_latest(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str], question: str) -> None:
    """A CTE's row number per group kept ``= 1``, ordered by when, the other way round from the question's latest or
    earliest: numbered the way the words say (a guess)."""
    if not question or not question.isascii():
        return
    words = _NOT_WHEN.sub(" ", question)
    latest, earliest = bool(_FLIP_LATEST.search(words)), bool(_FLIP_EARLIEST.search(words))
    if latest == earliest:
        return
    for window in ranks_kept_first(tree):
        select = window.find_ancestor(exp.Select)
        order = window.args.get("order")
        if not isinstance(window.this, exp.RowNumber) or not window.args.get("partition_by") or order is None or \
                select is None or not isinstance(select.parent, (exp.CTE, exp.Subquery)):
            continue
        keys = [o for o in order.expressions if not _null_placing(o.this)]
        if len(keys) != 1 or not _says_when(keys[0].this, select, schema, dialect) or \
                bool(keys[0].args.get("desc")) == latest:
            continue
        written = window.sql(dialect=dialect)
        keys[0].set("desc", latest)
        keys[0].set("nulls_first", False)  # a row with no date is neither the latest nor the earliest
        fixes.append(f"{written} numbers the {'oldest' if latest else 'newest'} row first, where the question asks for "
                     f"the {'latest' if latest else 'earliest'} -> {window.sql(dialect=dialect)}" + GUESSED)


def _null_placing(key: exp.Expression) -> bool:
    """``CASE WHEN x IS NULL THEN 1 ELSE 0 END``: where NULLs go, as a dialect without NULLS FIRST writes it."""
    return isinstance(key, exp.Case) and len(key.args.get("ifs") or []) == 1 and isinstance(
        key.args["ifs"][0].this, exp.Is) and isinstance(key.args["ifs"][0].this.expression, exp.Null)


def _says_when(key: exp.Expression, select: exp.Select, schema: Schema, dialect: str) -> bool:
    """Whether ``key`` is a column of a date or time type, or one whose name's last word says when."""
    if not isinstance(key, exp.Column):
        return False
    start = select.args.get("from_") or select.args.get("from")
    for source in ([start.this] if start is not None else []) + [j.this for j in select.args.get("joins") or []]:
        table = resolve_table(source, schema, dialect) if isinstance(source, exp.Table) else None
        if table is not None and (not key.table or key.table.lower() == source.alias_or_name.lower()):
            column = next((c for c in table.columns if c.name.lower() == key.name.lower()), None)
            if column is not None and (_WHEN_TYPE.search(column.type or "") or _NUMBER_TYPE.search(column.type or "")):
                return bool(_WHEN_TYPE.search(column.type or ""))  # a number is no when, whatever its name
    return bool(tokens(key.name)) and tokens(key.name)[-1] in _WHEN_NAMES


def _shown_order(select: exp.Select, schema: Schema, dialect: str) -> list[exp.Ordered] | None:
    """The SELECT's own ORDER BY keys, an output name or position read as its expression; None where there is none
    or a key is itself a window."""
    order = select.args.get("order")
    if order is None or not order.expressions:
        return None
    keys = []
    for ordered in order.expressions:
        key = ordered.this
        if isinstance(key, exp.Literal) and key.is_int and 0 < int(key.name) <= len(select.expressions):
            key = select.expressions[int(key.name) - 1].unalias()
        else:
            key = output_named(key, select)
        if key.find(exp.Window) or isinstance(key, exp.Literal) or not (key.find(exp.AggFunc) or _numeric(
                key, select, schema, dialect)):
            return None  # a rank of a label's order (``ORDER BY name``) is no ranking the question need mean
        copy = ordered.copy()
        copy.set("this", key.copy())
        keys.append(copy)
    return keys


def _asked_order(window: exp.Window, select: exp.Select, schema: Schema, dialect: str,
                 question: str) -> list[exp.Ordered] | None:
    """Newest or oldest first by the one date column of the tables a CTE's or derived table's SELECT reads, where a
    row number per group is asked for the latest or the earliest."""
    if not isinstance(window.this, exp.RowNumber) or not window.args.get("partition_by") or not isinstance(
            select.parent, (exp.CTE, exp.Subquery)) or not question.isascii():
        return None
    words = _NOT_WHEN.sub(" ", question)
    latest, earliest = bool(_LATEST.search(words)), bool(_EARLIEST.search(words))
    if latest == earliest:
        return None
    start = select.args.get("from_") or select.args.get("from")
    sources = [start.this] if start is not None else []
    sources += [join.this for join in select.args.get("joins") or []]
    dated = []
    for source in sources:
        table = resolve_table(source, schema, dialect) if isinstance(source, exp.Table) else None
        if table is None:
            return None  # a derived source: its dates are not known here
        qualifier = source.args["alias"].this if source.args.get("alias") else source.this
        dated += [exp.Column(this=identifier(c.name, dialect), table=qualifier.copy()) for c in table.columns
                  if _WHEN_TYPE.search(c.type)]
    if len(dated) != 1:
        return None
    return [exp.Ordered(this=dated[0], desc=latest)]


def _numeric(key: exp.Expression, select: exp.Select, schema: Schema, dialect: str) -> bool:
    """Whether ``key`` is a column of a number type, of a table the SELECT reads."""
    if not isinstance(key, exp.Column):
        return False
    start = select.args.get("from_") or select.args.get("from")
    sources = [start.this] if start is not None else []
    sources += [join.this for join in select.args.get("joins") or []]
    for source in sources:
        table = resolve_table(source, schema, dialect) if isinstance(source, exp.Table) else None
        if table is None or key.table and key.table.lower() != source.alias_or_name.lower():
            continue
        column = next((c for c in table.columns if c.name.lower() == key.name.lower()), None)
        if column is not None:
            return bool(re.search(r"int|real|num|dec|float|double|money", column.type, re.IGNORECASE))
    return False
