"""A sort key that can never decide the order: ``… GROUP BY state ORDER BY state, total DESC LIMIT 2``.

Each row of a grouped query is one group, so no two rows tie on the GROUP BY's columns: once the ORDER BY has named
them all, every key after them can never matter. A writer does not write a key for nothing; the measure after the
label was the ranking, and the label came first by a slip (the rows under the LIMIT are then the first groups by
name, not the top ones). Read with the keys that could never matter first and the label after them, as a guess the
model is shown first (``GUESSED``). Only in the outermost SELECT, only with a LIMIT (without one the same rows come,
in another order), only where every later key reads an aggregate (a measure of the groups), never where a grouped key
has a direction written (``ORDER BY month DESC, total DESC``), says when (a date, a month, a year) or the question
orders by it ("alphabetically", "the earliest", "the first 3").

And a LIMIT written before the order it was for: ``WITH base AS (SELECT … GROUP BY airline LIMIT 2) SELECT * FROM base
ORDER BY flights DESC`` keeps two groups the database picks in no order, then sorts them. Read as the outer query's
top rows, ``… ORDER BY flights DESC LIMIT 2``, a guess the model is shown first: only where the CTE or derived table
has a LIMIT and no ORDER BY, and the outer query reads only it — no join, WHERE, grouping, aggregate, window or
DISTINCT, which would act on the rows before the LIMIT does — and has an ORDER BY and no LIMIT of its own; never
where the question takes rows as they come ("a sample of 3", "any 10", "the first 10 in the table").

Two orders no database runs: positions counted from 0, ``GROUP BY 0 ORDER BY 1`` (position 0 is an error everywhere),
read one further — every position of that SELECT where all then fall within its select list (the writer counts one
way), else only the clauses that hold a 0, a guess where a clause without one moved —; and on PostgreSQL and DuckDB
``SELECT DISTINCT make … ORDER BY price DESC`` (a key the DISTINCT rows do not carry, an error there; SQLite sorts
by some row's price): each value ranked by its largest price (its smallest for ASC), ``GROUP BY make ORDER BY
MAX(price) DESC``, a guess the model is shown first.

And GROUP BY keys joined with AND or OR, ``GROUP BY city AND status`` (PostgreSQL rejects it; SQLite groups by the
truth of the two texts — two groups at most, nobody's grouping): the keys as a list, ``GROUP BY city, status``, where
every key is a column (or an output name) and none is a yes/no one, at least one is shown on its own in the select
list (grouped by their AND, a key shown alone is no grouped value: standard SQL rejects it), and the AND itself is
not shown (``SELECT is_active AND is_verified AS both_done … GROUP BY is_active AND is_verified`` is that grouping,
meant).
"""

from __future__ import annotations

import re

from sqlglot import exp

from core.schema import Schema, Table
from core.sql.repair._names import GUESSED
from core.sql.repair._scope import scope_sources, scopes

__all__ = ["dead_sort_keys", "distinct_sorted_apart", "keys_joined_with_and", "limits_before_order",
           "positions_from_zero"]

_BY_LABEL = re.compile(r"\balphabetic|\ba\s*(?:-|to)\s*z\b|\bz\s*(?:-|to)\s*a\b|\bby (?:their |its )?(?:names?|dates?|ids?)\b|"
                       r"\b(?:name|label) order\b|\bearliest|\blatest|\brecent|\boldest|\bnewest|\bfirst\b|\blast\b|"
                       r"\bchronolog|\bin order\b|\bstarting\b", re.IGNORECASE)  # the question orders by the key itself
# A key that says when (a date, a month, a year): ordering by it first is how a time series is listed.
_WHEN = re.compile(r"date|time|month|year|day|week|quarter|period|_at$|_on$|dt$", re.IGNORECASE)
_SAMPLE = re.compile(r"\bsample|\brandom|\barbitrar|\bany\s+\d+|\bin\s+the\s+table\b|\bas\s+stored\b",
                     re.IGNORECASE)  # rows the question takes as they come, then orders
_WHEN_CALLS = (exp.DateTrunc, exp.TimestampTrunc, exp.Extract, exp.Year, exp.Month, exp.Day, exp.TimeToStr,
               exp.Date, exp.StrToDate)


def dead_sort_keys(tree: exp.Expression, dialect: str, fixes: list[str], question: str = "") -> None:
    """``ORDER BY state, total DESC`` over rows one per state, under a LIMIT: read as ``ORDER BY total DESC, state``
    (not where the ``question`` orders by the label: "alphabetically", "A to Z")."""
    if _BY_LABEL.search(question) or not isinstance(tree, exp.Select) or tree.args.get("limit") is None or tree.args.get("order") is None:
        return
    group = tree.args.get("group")
    if group is None or not group.expressions or any(group.args.get(k) for k in ("rollup", "cube", "grouping_sets")):
        return
    keys = tree.args["order"].expressions
    grouped = list(group.expressions)
    covered: list[exp.Expression] = []
    for count, ordered in enumerate(keys, start=1):
        target = _resolved(ordered.this, tree)
        if ordered.args.get("desc") is not None or _says_when(target):
            return  # a direction written for the grouped key, or a time key: its order was meant
        if any(target == g for g in grouped) and not any(target == c for c in covered):
            covered.append(target)
        if len(covered) == len(grouped) and all(any(g == c for c in covered) for g in grouped):
            dead = keys[count:]
            if dead and all(_resolved(o.this, tree).find(exp.AggFunc) is not None for o in dead):
                written = ", ".join(k.sql(dialect=dialect) for k in keys)
                tree.args["order"].set("expressions", [k.copy() for k in [*dead, *keys[:count]]])
                read = ", ".join(k.sql(dialect=dialect) for k in tree.args["order"].expressions)
                fixes.append(f"ORDER BY {written}: each row is one group, so the keys after the grouped ones never "
                             f"decided the order -> ORDER BY {read}" + GUESSED)
            return
        if target not in covered:
            return  # a key before the grouped ones are all named: it decides among ties, nothing is dead


def _resolved(key: exp.Expression, tree: exp.Select) -> exp.Expression:
    """An ORDER BY key as the expression it names: a select item by its alias or position, else itself."""
    items = tree.expressions
    if key.is_int and 1 <= int(key.name) <= len(items):
        return items[int(key.name) - 1].unalias()
    if isinstance(key, exp.Column) and not key.table:
        named = [i for i in items if isinstance(i, exp.Alias) and i.alias.lower() == key.name.lower()]
        if len(named) == 1:
            return named[0].unalias()
    return key


def _says_when(key: exp.Expression) -> bool:
    """Whether a sort key is a time: a date function, or a column named for a date, month or year."""
    if isinstance(key, _WHEN_CALLS) or key.find(*_WHEN_CALLS) is not None:
        return True
    return any(_WHEN.search(column.name) for column in key.find_all(exp.Column))


def limits_before_order(tree: exp.Expression, dialect: str, fixes: list[str], question: str = "") -> None:
    """A CTE's or derived table's LIMIT with no order, ordered only outside: the outer query's top rows (a guess)."""
    if _SAMPLE.search(question) or not isinstance(tree, exp.Select) or tree.args.get("order") is None or tree.args.get("limit") is not None or \
            any(tree.args.get(k) for k in ("joins", "where", "group", "having", "distinct", "qualify")) or any(
                item.find(exp.AggFunc, exp.Window) for item in tree.expressions):
        return
    source = tree.args.get("from_") or tree.args.get("from")
    read = source.this if source is not None else None
    inner = None
    if isinstance(read, exp.Subquery):
        inner = read.this
    elif isinstance(read, exp.Table) and (with_ := tree.args.get("with_") or tree.args.get("with")) is not None:
        inner = next((cte.this for cte in with_.expressions if cte.alias_or_name.lower() == read.name.lower()), None)
        if inner is not None and sum(1 for t in tree.find_all(exp.Table) if t.name.lower() == read.name.lower()) != 1:
            return  # another part of the query reads it too, with its LIMIT
    if not isinstance(inner, exp.Select) or inner.args.get("order") is not None or not isinstance(
            limit := inner.args.get("limit"), exp.Limit) or inner.args.get("offset") is not None:
        return
    written = f"{limit.sql(dialect=dialect)} before {tree.args['order'].sql(dialect=dialect)}"
    inner.set("limit", None)
    tree.set("limit", limit.copy())
    fixes.append(f"{written}: a LIMIT with no order keeps rows the database picks; read after the order, as the top "
                 f"{limit.expression.sql(dialect=dialect)}" + GUESSED)


def _positions(select: exp.Select, clause: str) -> list[exp.Literal]:
    node = select.args.get(clause)
    keys = [k.this if isinstance(k, exp.Ordered) else k for k in (node.expressions if node is not None else ())]
    return [k for k in keys if isinstance(k, exp.Literal) and not k.is_string and k.this.isdigit()]


def positions_from_zero(tree: exp.Expression, dialect: str, fixes: list[str]) -> None:
    """Positions counted from 0 of the module docstring, read one further."""
    for select in tree.find_all(exp.Select):
        width = len(select.expressions)
        if any(isinstance(e, exp.Star) or isinstance(e, exp.Column) and isinstance(e.this, exp.Star)
               for e in select.expressions):
            continue
        clauses = {c: _positions(select, c) for c in ("group", "order")}
        zero = [c for c, keys in clauses.items() if any(int(k.this) == 0 for k in keys)]
        if not zero:
            continue
        fits = [c for c in clauses if all(int(k.this) + 1 <= width for k in clauses[c])]
        moved = [c for c in clauses if clauses[c]] if len(fits) == len(clauses) else [c for c in zero if c in fits]
        if not set(zero) <= set(moved):
            continue
        for clause in moved:
            for key in clauses[clause]:
                key.replace(exp.Literal.number(int(key.this) + 1))
        fixes.append("positions counted from 0 read from 1 (" + ", ".join(
            {"group": "GROUP BY", "order": "ORDER BY"}[c] for c in moved) + ")" + (GUESSED if set(moved) - set(
                zero) else ""))


def distinct_sorted_apart(tree: exp.Expression, dialect: str, fixes: list[str]) -> None:
    """``SELECT DISTINCT`` sorted by a key it does not show, on PostgreSQL and DuckDB, of the module docstring."""
    if dialect not in ("postgres", "duckdb"):
        return
    for select in list(tree.find_all(exp.Select)):
        order = select.args.get("order")
        distinct = select.args.get("distinct")
        if order is None or distinct is None or distinct.args.get("on") is not None or select.args.get(
                "group") is not None or select.find(exp.AggFunc, exp.Window) is not None:
            continue
        shown = {e.unalias().sql().lower() for e in select.expressions} | {e.alias_or_name.lower()
                                                                            for e in select.expressions}
        if any(isinstance(e, exp.Star) or e.find(exp.Star) for e in select.expressions):
            continue
        apart = [o for o in order.expressions if o.this.sql().lower() not in shown and not (
            isinstance(o.this, exp.Literal) and not o.this.is_string)]
        if not apart:
            continue
        for key in apart:
            extreme = exp.Max if key.args.get("desc") else exp.Min
            key.set("this", extreme(this=key.this.copy()))
        select.set("distinct", None)
        select.set("group", exp.Group(expressions=[e.unalias().copy() for e in select.expressions]))
        fixes.append("SELECT DISTINCT sorted by a column it does not show: each row ranked by its " + ", ".join(
            k.this.sql(dialect=dialect) for k in apart) + GUESSED)


def keys_joined_with_and(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str]) -> None:
    """``GROUP BY a AND b`` as ``GROUP BY a, b`` (see the module's docstring)."""
    for scope in scopes(tree):
        group = scope.expression.args.get("group") if isinstance(scope.expression, exp.Select) else None
        if group is None or not any(isinstance(k, exp.Connector) for k in group.expressions):
            continue
        sources = [s.table for s in scope_sources(scope, schema, dialect) if s.table is not None]
        shown = {e.unalias().sql().lower() for e in scope.expression.expressions}
        named = {e.alias.lower() for e in scope.expression.expressions if e.alias}
        keys: list[exp.Expression] = []
        for key in group.expressions:
            parts = list(key.flatten()) if isinstance(key, exp.Connector) else [key]
            if isinstance(key, exp.Connector) and (key.sql().lower() in shown or not all(isinstance(p, exp.Column) and (
                    not p.table and p.name.lower() in named or _not_yes_no(p, sources)) for p in parts) or not any(
                    p.sql().lower() in shown or not p.table and p.name.lower() in named for p in parts)):
                return  # the truth value shown itself, or no key shown apart: the grouping may be meant
            keys += [p.copy() for p in parts]
        before = group.sql(dialect=dialect)
        group.set("expressions", keys)
        fixes.append(f"{before.strip()} (keys joined with AND or OR, a truth value) -> {group.sql(dialect=dialect).strip()}")


def _not_yes_no(column: exp.Column, tables: list[Table]) -> bool:
    """Whether the column is known, in one of the query's tables, and not a yes/no one."""
    found = [t.column(column.name) for t in tables if t.column(column.name) is not None]
    return bool(found) and not any(re.search(r"bool", c.type or "", re.IGNORECASE) for c in found)
