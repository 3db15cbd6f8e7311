"""One column compared with two different values on one row, ``from_airport = 'LAX' AND from_airport = 'ORD'``: no
row can hold both, so the query keeps nothing by construction. A model copying the first condition keeps its column
by a slip; where the table has exactly one sibling of that column — the same name but its first word (``to_airport``
beside ``from_airport``, ``end_date`` beside ``start_date``, ``away_team`` beside ``home_team``) and the same kind —
the second comparison is read on the sibling, a guess the model is shown first (the query as written is offered) —
only where the question says the second value ("to ORD") and no "or" or "between" (values meant apart: "from LAX or
ORD"), and the sibling's known values, where known, hold it. Read in the WHERE and in a CASE's test inside an
aggregate (``SUM(CASE WHEN from_airport = 'LAX' AND from_airport = 'ORD' THEN 1 END)``: one row's test), before
``filters._vacuous`` reads what is left of those as IN; never where the comparisons stand apart (OR, a HAVING that
counts values), nor where the column has no sibling or several.
"""

from __future__ import annotations

import re

from sqlglot import exp
from sqlglot.optimizer.scope import Scope

from core.schema import Schema
from core.sql.repair._names import GUESSED, tokens
from core.sql.repair._scope import scope_sources, scopes
from core.sql.repair._types import kind_of

__all__ = ["second_on_sibling"]

_APART = re.compile(r"\b(?:or|either|ya|between|and/or)\b", re.IGNORECASE)


def _said(value: exp.Expression, question: str) -> bool:
    text = str(value.this).strip().lower() if isinstance(value, exp.Literal) else ""
    return bool(text) and re.search(rf"(?<![\w-]){re.escape(text)}(?![\w-])", question.lower()) is not None


def _sibling(name: str, names: list[str]) -> str | None:
    words = tokens(name)
    found = [n for n in names if n.lower() != name.lower() and len(tokens(n)) == len(words) >= 2
             and tokens(n)[1:] == words[1:] and tokens(n)[0] != words[0]]
    return found[0] if len(found) == 1 else None


def second_on_sibling(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str], question: str = "") -> None:
    """The second of two equalities of one column with different values, read on its one sibling (see above)."""
    if _APART.search(question):
        return  # "from LAX or ORD", "James or Smith": the values meant apart, not a slip of the column
    for scope in scopes(tree):
        for chain in _tests(scope.expression):
            _read_on_sibling(chain, scope, schema, dialect, fixes, question)


def _tests(select: exp.Expression) -> list[exp.Expression]:
    """The tests of one row a SELECT makes: its WHERE, and each CASE's WHEN inside an aggregate of its output
    (``SUM(CASE WHEN from_airport = 'LAX' AND from_airport = 'ORD' THEN 1 END)``; never one HAVING reads, where
    the group may be asked to hold both)."""
    if not isinstance(select, exp.Select):
        return []
    where = select.args.get("where")
    found = [where.this] if where is not None else []
    for item in select.expressions:
        for when in item.find_all(exp.If):
            if isinstance(when.parent, exp.Case) and isinstance(when.find_ancestor(exp.AggFunc, exp.Select),
                                                                 exp.AggFunc):
                found.append(when.this.unnest())
    return found


def _read_on_sibling(chain: exp.Expression, scope: Scope, schema: Schema, dialect: str, fixes: list[str],
                     question: str) -> None:
    conditions = list(chain.flatten()) if isinstance(chain, exp.And) else [chain]
    seen: dict[str, exp.EQ] = {}
    for cond in conditions:
        if not (isinstance(cond, exp.EQ) and isinstance(cond.this, exp.Column) and isinstance(
                cond.expression, exp.Literal)):
            continue
        key = cond.this.sql().lower()
        first = seen.setdefault(key, cond)
        if first is cond or first.expression == cond.expression or not _said(cond.expression, question):
            continue  # the second value must be one the question says ("to ORD")
        sources = [s for s in scope_sources(scope, schema, dialect) if s.table is not None and (
            not cond.this.table or s.key.lower() == cond.this.table.lower())]
        owners = [s.table for s in sources if s.table.column(cond.this.name) is not None]
        if len(owners) != 1:
            continue
        table = owners[0]
        sibling = _sibling(cond.this.name, table.column_names)
        column = table.column(cond.this.name)
        other = table.column(sibling) if sibling else None
        if other is None or kind_of(other.type or "") != kind_of(column.type or "") or (
                other.value_hints and str(cond.expression.this) not in other.value_hints):
            continue  # the sibling's known values do not hold it
        before = cond.sql(dialect=dialect)
        cond.this.set("this", exp.to_identifier(other.name))
        fixes.append(f"{before} after {first.sql(dialect=dialect)} (one value cannot be two) read on the "
                     f"column beside it, {cond.sql(dialect=dialect)}{GUESSED}")
