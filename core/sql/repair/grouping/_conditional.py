"""A filter written inside every aggregate of a grouped query instead of in its WHERE clause (``SELECT city,
COUNT(CASE WHEN food = 'Italian' THEN 1 END) … GROUP BY city`` for "how many restaurants serve Italian food in each
city"): read with the condition in the WHERE clause, a guess the model is shown first (``GUESSED``).

What the two forms share is proven, not guessed: each aggregate over ``CASE WHEN c THEN x END`` (no ELSE, or ELSE
NULL, or ``ELSE 0`` inside a SUM) reads exactly the rows where ``c`` holds, so every group that has such a row shows the
same values either way. They differ only in the groups with none, which the CASE form shows too, with 0 or NULL on
every aggregate: the rows that the question's words ("that serve Italian food") leave out. So it is taken only where
every aggregate of the SELECT (its items, HAVING and ORDER BY) carries the very same condition, and never where the
question asks for the empty groups ("including those with none", "even if zero") or ranks from the smallest up (an
ORDER BY of an aggregate ascending, "the fewest"), where a 0 is the answer; never for a question in another script.
"""

from __future__ import annotations

import re

from sqlglot import exp

from core.sql.repair._names import GUESSED

__all__ = ["filters_in_aggregates"]

_EMPTY_ASKED = re.compile(r"\b(?:includ\w*|even|zero|zeroes|zeros|none|nothing|without|with\s+no|no\s+\w+\s+at\s+all|"
                          r"regardless|missing|empty|absent|also\s+those|as\s+well\s+as|fewest|least|lowest|minimum|"
                          r"smallest|bottom|every)\b|\b0\b", re.IGNORECASE)


def filters_in_aggregates(tree: exp.Expression, dialect: str, fixes: list[str], question: str) -> None:
    """Every aggregate of a grouped SELECT is ``agg(CASE WHEN c THEN x END)`` with one ``c``: ``c`` moved into the
    WHERE clause and each aggregate reads ``x`` (a guess; see the module docstring)."""
    if not question or not question.isascii() or _EMPTY_ASKED.search(question) or not isinstance(tree, exp.Select):
        return
    group = tree.args.get("group")
    if group is None or not group.expressions or tree.find(exp.Window):
        return
    aggregates = [a for a in tree.find_all(exp.AggFunc) if a.find_ancestor(exp.Select) is tree]
    if not aggregates or any(isinstance(a.find_ancestor(exp.AggFunc), exp.AggFunc) for a in aggregates):
        return
    order = tree.args.get("order")
    if order is not None and any(o.this.find(exp.AggFunc) or _names_aggregate(o.this, tree) for o in order.expressions
                                 if not o.args.get("desc")):
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
    default = inner.args.get("default")
    if default is None or isinstance(default, exp.Null):
        return inner
    if isinstance(aggregate, exp.Sum) and isinstance(default, exp.Literal) and default.this in ("0", "0.0"):
        return inner  # adding zeros changes no sum of a group that has a row
    return None


def _names_aggregate(key: exp.Expression, select: exp.Select) -> bool:
    """Whether an ORDER BY key names a select item that holds an aggregate (by its alias or position)."""
    if isinstance(key, exp.Column) and not key.table:
        return any(item.alias == key.name and item.find(exp.AggFunc) for item in select.expressions)
    if isinstance(key, exp.Literal) and key.is_int and 0 < int(key.name) <= len(select.expressions):
        return bool(select.expressions[int(key.name) - 1].find(exp.AggFunc))
    return False
