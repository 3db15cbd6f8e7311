"""Joins that add no column to the answer, and the query without each: what a careful analyst checks.

Any SELECT of the query is looked at (a subquery's or a CTE's join changes what the outer query sees).

An inner join to a table none of whose columns is selected, filtered, grouped or sorted still changes the rows:
it drops the rows with no partner (teachers with no course are not counted) and repeats the rows with several
(a teacher counted once per course). Removing it is not provably safe — the question may mean "teachers who
teach" — so nothing is removed: the caller runs the query without the join (bounded) and, when the answers
differ, says so beside the answer and offers the other query.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from core.schema import Schema

__all__ = ["JoinCheck", "joins_adding_no_column"]

MAX_CHECKS = 2  # at most this many joins are checked per answer (each costs one more bounded query)


@dataclass(frozen=True)
class JoinCheck:
    table: str  # the joined table, as written
    without: str  # the whole query without that join, in the dialect


def joins_adding_no_column(tree: exp.Expression, schema: Schema, dialect: str) -> list[JoinCheck]:
    """The inner joins, in any SELECT of the query (a subquery's or a CTE's too), that contribute nothing but their
    ON condition; each with the whole query as it would be without that join."""
    out: list[JoinCheck] = []
    selects = list(tree.find_all(exp.Select))
    for position, select in enumerate(selects):
        if _tests_existence(select):
            continue  # "… WHERE id IN (SELECT … JOIN courses …)": keeping only rows with a partner is the point
        if any(isinstance(p, exp.Star) or (isinstance(p, exp.Column) and isinstance(p.this, exp.Star))
               for p in select.expressions):  # fmt: skip
            continue
        for index, join in enumerate(select.args.get("joins") or []):
            if len(out) >= MAX_CHECKS:
                return out
            target = join.this
            if (join.side or join.args.get("kind") not in (None, "", "INNER") or join.args.get("using")
                    or not isinstance(target, exp.Table) or join.args.get("on") is None):  # fmt: skip
                continue
            name = target.alias_or_name.lower()
            table = schema.table(target.name)
            if table is None or _used_outside(select, join, name, {c.name.lower() for c in table.columns}):
                continue
            without = tree.copy()
            inner = list(without.find_all(exp.Select))[position]  # the same SELECT in the copy (same walk order)
            inner.set("joins", [j for i, j in enumerate(inner.args.get("joins") or []) if i != index] or None)
            out.append(JoinCheck(target.name, without.sql(dialect=dialect)))
    return out


def _used_outside(select: exp.Select, join: exp.Join, name: str, columns: set[str]) -> bool:
    """Whether anything but the join's own ON reads the joined table: a column qualified with its name, or an
    unqualified column it has (which table that is cannot be told apart here), in this SELECT or one it holds."""
    on = join.args["on"]
    for col in select.find_all(exp.Column):
        if _within(col, on):
            continue
        if col.table.lower() == name or (not col.table and col.name.lower() in columns):
            return True
    return False


def _tests_existence(select: exp.Select) -> bool:
    """A SELECT whose only use is to say whether rows exist or match: ``IN (…)``, ``EXISTS (…)``."""
    parent = select.parent
    if isinstance(parent, exp.Subquery):
        parent = parent.parent
    return isinstance(parent, (exp.In, exp.Exists))


def _within(node: exp.Expression, ancestor: exp.Expression) -> bool:
    parent: exp.Expression | None = node
    while parent is not None:
        if parent is ancestor:
            return True
        parent = parent.parent
    return False
