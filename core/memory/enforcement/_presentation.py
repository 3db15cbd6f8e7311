"""Standing presentation preferences (sort, limit, columns), applied to the outermost query of the model's SQL.

Filters change *which* rows an answer is about, so they go into every SELECT reading the table. Presentation
changes only how the answer's rows are shown, so it touches the outermost query alone: ordering or limiting a
subquery would change what the outer query computes. Each rule is conservative: a change is made only when
the result is certainly valid SQL for the dialect and the query does not already decide the matter itself
(its own ORDER BY, LIMIT or columns win). Whatever is not applied comes back with a short reason, so the
answer can say why a saved preference did not show.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from core.memory.enforcement._filters import column_ref

__all__ = ["PRESENTATION_KINDS", "PresentationOutcome", "apply_presentation"]

PRESENTATION_KINDS = ("sort", "limit", "columns")


@dataclass(frozen=True)
class PresentationOutcome:
    expression: exp.Expression
    applied: tuple[int, ...]  # indexes of forms honoured: added to the SQL, or the SQL already did it
    skipped: tuple[tuple[int, str], ...]  # (index, short reason) for forms that could not be applied


class _Skip(Exception):
    """A form that does not apply to this query; the message is the reason shown to the person."""


def apply_presentation(
    expression: exp.Expression, forms: Sequence[Mapping[str, Any]], dialect: str
) -> PresentationOutcome:
    """Apply ``sort``, ``limit`` and ``columns`` forms to the outermost query. ``expression`` is copied.

    Forms of other kinds are ignored (they are neither applied nor skipped here): filters and windows belong
    to ``enforce_filters``, definitions to the prompt. Forms apply in the order given, so of two sort
    preferences on the same query the first wins and the second is skipped.
    """
    tree = expression.copy()
    root = tree.this if isinstance(tree, exp.Subquery) and isinstance(tree.this, exp.Query) else tree
    added_order = False
    applied: list[int] = []
    skipped: list[tuple[int, str]] = []
    for index, form in enumerate(forms):
        rule = _RULES.get(str(form.get("kind") or ""))
        if rule is None:
            continue
        try:
            if rule is _apply_sort and added_order and root.args.get("order") is not None:
                raise _Skip("an earlier saved sort already orders this answer")
            changed = rule(root, form, dialect)
        except _Skip as skip:
            skipped.append((index, str(skip)))
            continue
        added_order = added_order or (changed and rule is _apply_sort)
        applied.append(index)
    return PresentationOutcome(tree, tuple(applied), tuple(skipped))


# -- the shape of the outermost query ----------------------------------------------------------------------


def _bare(table: str) -> str:
    return table.split(".")[-1].lower()


def _cte_names(root: exp.Expression) -> set[str]:
    with_ = root.args.get("with_") or root.args.get("with")
    if with_ is None:
        return set()
    return {cte.alias_or_name.lower() for cte in with_.expressions}


def _sources(select: exp.Select, table: str, ctes: set[str]) -> list[exp.Table]:
    """The real ``table`` read in this SELECT's own FROM/JOINs (a CTE of the same name is not the table)."""
    from_ = select.args.get("from_") or select.args.get("from")
    nodes = [from_.this] if from_ is not None else []
    nodes += [join.this for join in select.args.get("joins") or []]
    wanted = _bare(table)
    return [
        node
        for node in nodes
        if isinstance(node, exp.Table)
        and node.name.lower() == wanted
        and not (not node.db and node.name.lower() in ctes)
    ]


def _one_source(select: exp.Select, form: Mapping[str, Any], ctes: set[str]) -> str:
    """The qualifier (alias or name) of the one direct read of the form's table, or a reason to skip."""
    table = str(form.get("table") or "")
    found = _sources(select, table, ctes)
    if not found:
        raise _Skip(f"the answer's outer query does not read {_bare(table)} directly")
    if len(found) > 1:
        raise _Skip(f"the answer's outer query reads {_bare(table)} more than once")
    return found[0].alias_or_name


def _single_source(select: exp.Select) -> bool:
    """True when the SELECT reads one source and no JOIN, so a bare column name can only be that source's.

    With a JOIN a bare name could belong to any joined table; without the schema at hand it is not counted.
    """
    return not select.args.get("joins")


def _has_aggregate(select: exp.Select) -> bool:
    """True when a projection aggregates rows (not inside a window function or a subquery)."""
    if select.args.get("having") is not None:
        return True
    return any(_aggregates(projection) for projection in select.expressions)


def _check_rows(root: exp.Expression) -> None:
    """Raise unless ``root`` returns a list of rows (a SELECT with a FROM that is not one aggregate row)."""
    if isinstance(root, exp.SetOperation):
        return
    if not isinstance(root, exp.Select):
        raise _Skip("the answer is not a plain query")
    if (root.args.get("from_") or root.args.get("from")) is None:
        raise _Skip("the answer is a single row")
    if not root.args.get("group") and _has_aggregate(root):
        raise _Skip("the answer is a single aggregate row")


def _refers_to(node: exp.Expression, column: str, qualifier: str, table: str, bare_ok: bool) -> bool:
    """True when ``node`` is ``column`` of the form's table: qualified by it, or bare where that is safe."""
    if not isinstance(node, exp.Column) or node.name.lower() != column.lower():
        return False
    if node.table:
        return node.table.lower() in (qualifier.lower(), _bare(table))
    return bare_ok


def _is_star(node: exp.Expression, qualifier: str) -> bool:
    if isinstance(node, exp.Star):
        return True
    return isinstance(node, exp.Column) and isinstance(node.this, exp.Star) and node.table.lower() in (
        "",
        qualifier.lower(),
    )


# -- the rules ---------------------------------------------------------------------------------------------


def _direction(form: Mapping[str, Any]) -> bool:
    direction = str(form.get("direction") or "ASC").upper()
    if direction not in ("ASC", "DESC"):
        raise _Skip(f"unknown sort direction {direction!r}")
    return direction == "DESC"


def _apply_sort(root: exp.Expression, form: Mapping[str, Any], dialect: str) -> bool:
    """ORDER BY the form's column when the outer query lists rows of its table and has no order of its own.

    NULLs go last in both directions: the databases disagree on the default (PostgreSQL puts them first when
    descending, SQLite when ascending), and "newest first" should not open with rows that have no date.
    """
    column = str(form.get("column") or "")
    table = str(form.get("table") or "")
    if not table and (form.get("by") or column):
        return _apply_output_sort(root, form)
    if not column or not table:
        raise _Skip("the saved sort names no column")
    desc = _direction(form)
    order = root.args.get("order")
    if order is not None:
        if _orders_by(order, column, desc):
            return False
        raise _Skip("the answer sets its own order")
    _check_rows(root)
    if isinstance(root, exp.SetOperation):
        target = _union_output(root, form)
    else:
        assert isinstance(root, exp.Select)
        target = _select_sort_target(root, form)
    root.set("order", exp.Order(expressions=[exp.Ordered(this=target, desc=desc, nulls_first=False)]))
    return True


# -- a sort for every list, whatever its table: "newest first", "alphabetical", "highest sales first" ----------

_MEASURE_NAME = re.compile(r"\b(?:total|sum|count|cnt|revenue|sales|amount|spend|spent|value|price|cost|avg|average|"
                           r"num|qty|quantity|share|rate|pct|percent|profit|income|volume|n)\b")  # fmt: skip
_DATE_NAME = re.compile(r"\b(?:date|time|day|month|year|week|quarter|at|created|updated|timestamp)\b")
_NAME_NAME = re.compile(r"\b(?:name|title|label)\b")


def _apply_output_sort(root: exp.Expression, form: Mapping[str, Any]) -> bool:
    """ORDER BY the output column a table-free sort is about, by its position (valid for SELECT, DISTINCT and
    UNION alike): ``by`` "date" the first date-like column, "name" the first name-like one, "measure" the first
    aggregate (or measure-named column); a ``column`` name, the output column of that name."""
    desc = _direction(form)
    if root.args.get("order") is not None:
        raise _Skip("the answer sets its own order")
    _check_rows(root)
    first = _union_parts(root)[0] if isinstance(root, exp.SetOperation) else root
    if not isinstance(first, exp.Select):
        raise _Skip("the answer is not a plain query")
    if any(isinstance(p, exp.Star) or (isinstance(p, exp.Column) and isinstance(p.this, exp.Star))
           for p in first.expressions):  # fmt: skip
        raise _Skip("the answer lists every column (*), so its columns are not known here")
    position = _output_position(first, form)
    if position is None:
        wanted = form.get("column") or {"date": "date", "name": "name", "measure": "number"}.get(str(form.get("by")))
        if wanted is None:
            raise _Skip(f"the saved sort's kind {str(form.get('by'))[:40]!r} is not one Cairn knows (date, name or "
                        "number): edit the memory")
        raise _Skip(f"the answer shows no {wanted} column to sort by")
    root.set("order", exp.Order(expressions=[exp.Ordered(this=exp.Literal.number(position), desc=desc,
                                                         nulls_first=False)]))  # fmt: skip
    return True


def _output_position(select: exp.Select, form: Mapping[str, Any]) -> int | None:
    """1-based position of the output column the form sorts by, or None."""
    outputs = []
    for projection in select.expressions:
        inner = projection.this if isinstance(projection, exp.Alias) else projection
        source = inner.name if isinstance(inner, exp.Column) else ""
        outputs.append((_name_words(projection.alias_or_name or ""), _name_words(source), _aggregates(inner)))
    column = _name_words(str(form.get("column") or ""))
    if column:
        hits = [i for i, (name, source, _agg) in enumerate(outputs) if column in (name, source)]
        return hits[0] + 1 if hits else None
    by = str(form.get("by") or "")
    if by == "measure":
        hits = [i for i, (_n, _s, agg) in enumerate(outputs) if agg] or [
            i for i, (name, source, _agg) in enumerate(outputs) if _MEASURE_NAME.search(name or source)
            and not (name or source).endswith(" id")]  # fmt: skip
    elif by == "date":
        hits = [i for i, (name, source, agg) in enumerate(outputs) if not agg and _DATE_NAME.search(name or source)]
    elif by == "name":
        hits = [i for i, (name, source, agg) in enumerate(outputs) if not agg and _NAME_NAME.search(name or source)]
    else:
        hits = []
    return hits[0] + 1 if hits else None


def _name_words(name: str) -> str:
    """"BillingCountry" -> "billing country", "total_amount" -> "total amount": words, matched whole."""
    return " ".join(re.findall(r"[a-z0-9]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", name).lower()))


def _aggregates(node: exp.Expression) -> bool:
    """True when ``node`` aggregates rows (not inside a window function or a subquery)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, exp.AggFunc):
            return True
        if isinstance(current, (exp.Window, exp.Subquery, exp.Query)):
            continue
        stack.extend(current.iter_expressions())
    return False


def _orders_by(order: exp.Order, column: str, desc: bool) -> bool:
    first = order.expressions[0] if order.expressions else None
    return (
        isinstance(first, exp.Ordered)
        and isinstance(first.this, exp.Column)
        and first.this.name.lower() == column.lower()
        and bool(first.args.get("desc")) == desc
    )


def _union_output(root: exp.SetOperation, form: Mapping[str, Any]) -> exp.Expression:
    """A UNION can only be ordered by its output names; its first part names the output columns."""
    column = str(form["column"])
    branches = _union_parts(root)
    ctes = _cte_names(root)
    if not any(isinstance(b, exp.Select) and _sources(b, str(form["table"]), ctes) for b in branches):
        raise _Skip(f"the answer's outer query does not read {_bare(str(form['table']))} directly")
    first = branches[0]
    if not isinstance(first, exp.Select) or column.lower() not in {
        p.alias_or_name.lower() for p in first.expressions
    }:
        raise _Skip(f"{column} is not a column of the combined (UNION) answer")
    return column_ref(column)


def _union_parts(node: exp.Expression) -> list[exp.Expression]:
    if isinstance(node, exp.SetOperation):
        return _union_parts(node.this) + _union_parts(node.expression)
    if isinstance(node, exp.Subquery):
        return _union_parts(node.this)
    return [node]


def _select_sort_target(select: exp.Select, form: Mapping[str, Any]) -> exp.Expression:
    ctes = _cte_names(select)
    qualifier = _one_source(select, form, ctes)
    column, table = str(form["column"]), str(form["table"])
    bare_ok = _single_source(select)
    distinct = select.args.get("distinct")
    if isinstance(distinct, exp.Distinct) and distinct.args.get("on") is not None:
        raise _Skip("the answer's DISTINCT ON decides its own order")
    if select.args.get("group"):
        grouped = select.args["group"].expressions
        if not any(_refers_to(g, column, qualifier, table, bare_ok) for g in grouped):
            raise _Skip(f"the answer groups its rows and {column} is not one of the groups")
    if distinct:
        for projection in select.expressions:
            if _is_star(projection, qualifier):
                break
            inner = projection.this if isinstance(projection, exp.Alias) else projection
            if _refers_to(inner, column, qualifier, table, bare_ok):
                if isinstance(projection, exp.Alias):
                    return column_ref(projection.alias)
                break
        else:
            raise _Skip(f"the answer lists distinct rows without {column}")
    return column_ref(column, qualifier)


def _has_limit(root: exp.Expression) -> exp.Expression | None:
    return root.args.get("limit") or root.args.get("fetch") or root.args.get("top")


def _apply_limit(root: exp.Expression, form: Mapping[str, Any], dialect: str) -> bool:
    """LIMIT the outer query when it lists rows and sets no limit itself (its own LIMIT/FETCH/TOP wins)."""
    value = form.get("value")
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise _Skip("the saved row limit is not a positive whole number")
    existing = _has_limit(root)
    if existing is not None:
        count = existing.args.get("expression")
        if isinstance(existing, exp.Limit) and isinstance(count, exp.Literal) and count.this == str(value):
            return False
        raise _Skip("the answer sets its own row limit")
    _check_rows(root)
    if _groups_by_time(root):  # "revenue trend over the year" with a default of 20 rows: not the last 20 days
        raise _Skip("the answer is a series over time, which a row limit would cut short")
    root.set("limit", exp.Limit(expression=exp.Literal.number(value)))
    return True


_TIME_FUNCTIONS = (exp.DateTrunc, exp.TimestampTrunc, exp.TimeToStr, exp.Extract, exp.Year, exp.Month, exp.Week,
                   exp.Day, exp.Quarter, exp.DateToDateStr, exp.TsOrDsToDate, exp.Date)
_TIME_WORDS = re.compile(r"date|time|day|week|month|quarter|year|period", re.IGNORECASE)


def _groups_by_time(root: exp.Expression) -> bool:
    """Whether the outermost query groups its rows by a date or a period of one (a series over time)."""
    group = root.args.get("group") if isinstance(root, exp.Select) else None
    if group is None:
        return False
    projections = list(root.expressions)
    aliases = {p.alias.lower(): p.this for p in projections if isinstance(p, exp.Alias)}
    for key in group.expressions:
        if isinstance(key, exp.Literal) and key.is_int and 0 < int(key.this) <= len(projections):
            key = projections[int(key.this) - 1]
        elif isinstance(key, exp.Column) and not key.table and key.name.lower() in aliases:
            key = aliases[key.name.lower()]
        key = key.this if isinstance(key, exp.Alias) else key
        if key.find(*_TIME_FUNCTIONS) is not None or (
                isinstance(key, exp.Anonymous) and _TIME_WORDS.search(str(key.this))) or any(
                _TIME_WORDS.search(c.name) for c in key.find_all(exp.Column)):  # fmt: skip
            return True
    return False


def _apply_columns(root: exp.Expression, form: Mapping[str, Any], dialect: str) -> bool:
    """Show the form's ``add`` columns next to ``when`` in a plain row listing of its table."""
    when = str(form.get("when") or "")
    table = str(form.get("table") or "")
    adds = [str(a) for a in form.get("add") or [] if str(a)]
    if not when or not table or not adds:
        raise _Skip("the saved columns preference names no columns")
    if not isinstance(root, exp.Select):
        raise _Skip("the answer combines queries (UNION), whose columns must match")
    if root.args.get("distinct"):
        raise _Skip("extra columns would change which distinct rows the answer lists")
    if root.args.get("group"):
        raise _Skip("the answer groups its rows")
    _check_rows(root)
    ctes = _cte_names(root)
    qualifier = _one_source(root, form, ctes)
    projections = list(root.expressions)
    if any(_is_star(p, qualifier) for p in projections):
        return False
    bare_ok = _single_source(root)
    position = _projected(projections, when, qualifier, table, bare_ok=bare_ok)
    if position is None:
        raise _Skip(f"the answer does not show {_bare(table)}.{when}")
    missing = [a for a in adds if _projected(projections, a, qualifier, table, bare_ok=bare_ok) is None]
    if not missing:
        return False
    new = [column_ref(a, qualifier) for a in missing]
    root.set("expressions", projections[: position + 1] + new + projections[position + 1 :])
    return True


def _projected(
    projections: list[exp.Expression], column: str, qualifier: str, table: str, *, bare_ok: bool
) -> int | None:
    """Where ``column`` of the table is projected (plain or aliased), or None."""
    for position, projection in enumerate(projections):
        inner = projection.this if isinstance(projection, exp.Alias) else projection
        if _refers_to(inner, column, qualifier, table, bare_ok):
            return position
    return None


_RULES: dict[str, Callable[[exp.Expression, Mapping[str, Any], str], bool]] = {
    "sort": _apply_sort,
    "limit": _apply_limit,
    "columns": _apply_columns,
}
