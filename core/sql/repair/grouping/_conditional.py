"""A filter written inside every aggregate of a grouped query instead of in its WHERE clause (``SELECT city,
COUNT(CASE WHEN food = 'Italian' THEN 1 END) … GROUP BY city`` for "how many restaurants serve Italian food in each
city"): read with the condition in the WHERE clause, a guess the model is shown first (``GUESSED``).

What the two forms share is proven, not guessed: each aggregate over ``CASE WHEN c THEN x END`` (no ELSE, or ELSE
NULL, or ``ELSE 0`` inside a SUM) reads exactly the rows where ``c`` holds, so every group that has such a row shows the
same values either way. They differ only in the groups with none, which the CASE form shows too, with 0 or NULL on
every aggregate: the rows that the question's words ("that serve Italian food") leave out. So it is taken only where
every aggregate of the SELECT (its items and ORDER BY) carries the very same condition, each as an item's value (in
arithmetic, never inside a comparison, a CASE or a yes/no flag, ``MAX(CASE WHEN c THEN 'yes' END)``), and never where
a 0 may be the answer: a HAVING (``HAVING COUNT(CASE …) = 0`` asks for exactly the groups that go), an outer join
(written to keep every row), an ORDER BY of an aggregate ascending or negated ("the fewest"), or a question that asks
for the empty groups or for all of them ("including those with none", "even if zero", "all cities", "never", "at
most"); never for a question in another script.
"""

from __future__ import annotations

import re

from sqlglot import exp

from core.sql.repair._names import GUESSED

__all__ = ["filters_in_aggregates"]

_EMPTY_ASKED = re.compile(r"\b(?:includ\w*|even|zero|zeroes|zeros|none|nothing|without|no|not|never|lack\w*|\w+n't|"
                          r"regardless|missing|empty|absent|also|as\s+well\s+as|fewest|fewer|less|least|lowest|"
                          r"minimum|smallest|bottom|below|under|at\s+most|all|every|breakdown|whether|flag\w*)\b|"
                          r"\b0\b", re.IGNORECASE)
_ARITHMETIC = (exp.Paren, exp.Round, exp.Cast, exp.Div, exp.Mul, exp.Add, exp.Sub, exp.Nullif, exp.Coalesce, exp.Alias,
               exp.Ordered)


def filters_in_aggregates(tree: exp.Expression, dialect: str, fixes: list[str], question: str) -> None:
    """Every aggregate of a grouped SELECT is ``agg(CASE WHEN c THEN x END)`` with one ``c``: ``c`` moved into the
    WHERE clause and each aggregate reads ``x`` (a guess; see the module docstring)."""
    if not question or not question.isascii() or _EMPTY_ASKED.search(question) or not isinstance(tree, exp.Select):
        return
    group = tree.args.get("group")
    if group is None or not group.expressions or tree.find(exp.Window) or tree.args.get("having") is not None or any(
            join.side for join in tree.args.get("joins") or []):
        return  # a HAVING may ask for the groups with none; an outer join is written to keep every row
    aggregates = [a for a in tree.find_all(exp.AggFunc) if a.find_ancestor(exp.Select) is tree]
    if not aggregates or any(not _is_value(a, tree) for a in aggregates):
        return
    order = tree.args.get("order")
    if order is not None and any((o.this.find(exp.AggFunc) or any(_names_aggregate(k, tree) for k in (
            o.this, *o.this.find_all(exp.Column)))) and (not o.args.get("desc") or o.this.find(exp.Neg, exp.Sub))
                                 for o in order.expressions):
        return  # ranked from the smallest up: a group's 0 is an answer
    cases = [_conditioned(a) for a in aggregates]
    if any(c is None for c in cases):
        return
    condition = cases[0].args["ifs"][0].this  # type: ignore[union-attr]
    if any(c.args["ifs"][0].this != condition for c in cases) or condition.find(exp.AggFunc):  # type: ignore[union-attr]
        return
    written = condition.sql(dialect=dialect)
    for case in cases:
        case.replace(case.args["ifs"][0].args["true"].copy())  # type: ignore[union-attr]
    tree.where(condition.copy(), append=True, copy=False)
    fixes.append(f"every aggregate reads only the rows where {written}, so the groups with none are shown too, with "
                 f"0 or NULL: the condition moved to WHERE {written}" + GUESSED)


def _conditioned(aggregate: exp.AggFunc) -> exp.Case | None:
    """The ``CASE WHEN c THEN x END`` that ``aggregate`` reads (inside COUNT(DISTINCT …) too), or None."""
    inner = aggregate.this
    if isinstance(inner, exp.Distinct):
        inner = inner.expressions[0] if len(inner.expressions) == 1 else None
    if not isinstance(inner, exp.Case) or inner.this is not None or len(inner.args.get("ifs") or []) != 1:
        return None
    value = inner.args["ifs"][0].args.get("true")
    if not isinstance(aggregate, (exp.Count, exp.Sum, exp.Avg, exp.Min, exp.Max)) or isinstance(
            value, exp.Literal) and value.is_string or isinstance(value, exp.Null):
        return None  # MAX(CASE WHEN c THEN 'yes' END) is a flag, not a filter
    default = inner.args.get("default")
    if default is None or isinstance(default, exp.Null):
        return inner
    if isinstance(aggregate, exp.Sum) and isinstance(default, exp.Literal) and default.this in ("0", "0.0") and (
            isinstance(value, exp.Literal)):
        return inner  # SUM(CASE WHEN c THEN 1 ELSE 0 END): adding zeros changes no count of a group that has a row
    return None


def _is_value(aggregate: exp.AggFunc, select: exp.Select) -> bool:
    """Whether ``aggregate`` is a select item's value or an ORDER BY key, under nothing but arithmetic (never inside
    a comparison, a CASE or another aggregate)."""
    node: exp.Expression = aggregate
    while node.parent is not None and node.parent is not select and not isinstance(node.parent, exp.Order):
        if not isinstance(node.parent, _ARITHMETIC):
            return False
        node = node.parent
    return True


def _names_aggregate(key: exp.Expression, select: exp.Select) -> bool:
    """Whether an ORDER BY key names a select item that holds an aggregate (by its alias or position)."""
    if isinstance(key, exp.Column) and not key.table:
        return any(item.alias == key.name and item.find(exp.AggFunc) for item in select.expressions)
    if isinstance(key, exp.Literal) and key.is_int and 0 < int(key.name) <= len(select.expressions):
        return bool(select.expressions[int(key.name) - 1].find(exp.AggFunc))
    return False
