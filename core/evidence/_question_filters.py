"""Conditions the question says that the query leaves out or joins otherwise: "rating higher than 4" with no
comparison with 4, "active merchants" where ``status`` holds 'active' and the query never filters on it, and
``a OR b`` between two different columns when the question never says "or".

Each finding is the query with the one condition the words and the schema settle (a column its words name, a value
the column is known to hold), run under the guard and offered when its rows differ; the query that ran stays the
answer.
"""

from __future__ import annotations

import re

from sqlglot import exp

from core.evidence._aliases import is_key
from core.evidence._asked import Asked
from core.evidence._common import holds_numbers
from core.evidence._question_columns import name_words
from core.schema import Column, Schema, Table

__all__ = ["missing_bound", "missing_value", "or_finding"]

_NODES = {"gt": exp.GT, "ge": exp.GTE, "lt": exp.LT, "le": exp.LTE}
_FREE_TEXT = frozenset({"text", "description", "comment", "message", "note", "body", "review", "summary", "content",
                        "title", "name", "address", "street"})
_OR_WORDS = frozenset({"or", "either", "ya", "any", "one", "plus", "also", "well", "alternatively", "otherwise"})
_AUXILIARY = frozenset({"has", "have", "had", "was", "were", "is", "are", "been", "be", "did", "do", "does", "get", "got"})
Finding = tuple[str, str, exp.Expression]


def _sources(tree: exp.Select, schema: Schema) -> list[tuple[str, Table]]:
    """(alias, table) of each table the SELECT reads directly."""
    out = []
    for node in tree.find_all(exp.Table):
        if node.find_ancestor(exp.Select) is tree:
            table = schema.table(node.name)
            if table is not None:
                out.append((node.alias_or_name, table))
    return out


def _add_condition(tree: exp.Select, condition: exp.Expression) -> exp.Select:
    return tree.where(condition, append=True, copy=False)


def _numbers(tree: exp.Expression) -> set[str]:
    return {lit.this for lit in tree.find_all(exp.Literal) if not lit.is_string}


def missing_bound(asked: Asked, tree: exp.Select, schema: Schema) -> Finding | None:
    """A bound the question says ("rating higher than 4") whose number the query never writes: the condition on the
    one number column of the query's tables the words just before it name."""
    written = [float(v) for v in _numbers(tree) if _is_number(v)]
    for bound in asked.bounds:
        if bound.percent or any(abs(v - float(bound.value)) <= 1 for v in written):
            continue  # written, maybe as > 4 for "at least 5": the bound checks judge it
        words = {w for w in bound.before if w.isalpha()}
        hits = [(alias, c) for alias, t in _sources(tree, schema) for c in t.columns
                if holds_numbers(c.type) and not is_key(c.name) and c.name not in t.primary_key
                and words & _with_singular(name_words(c.name))]
        if len(hits) != 1:
            continue
        alias, column = hits[0]
        node = _NODES[bound.op](this=exp.column(column.name, table=alias), expression=exp.Literal.number(
            str(bound.value)))
        return (f"The question says “{' '.join(bound.before[-1:])} {bound.words}” and the query has no such "
                "condition", "Add the condition", _add_condition(tree, node))
    return None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _with_singular(words: set[str]) -> set[str]:
    return words | {w + "s" for w in words}


def missing_value(asked: Asked, tree: exp.Select, schema: Schema) -> Finding | None:
    """A value one text column of the query's tables is known to hold, said in the question as a word of its own
    ("active merchants"), that the query writes nowhere, on a column its WHERE does not filter: ``col = 'value'``."""
    literals = " ".join(lit.this.lower() for lit in tree.find_all(exp.Literal) if lit.is_string)
    where = tree.args.get("where")
    filtered = {c.name.lower() for c in where.find_all(exp.Column)} if where is not None else set()
    hits: list[tuple[str, Column, str]] = []
    for alias, table in _sources(tree, schema):
        for column in table.columns:
            if column.name.lower() in filtered or name_words(column.name) & _FREE_TEXT:
                continue
            for value in column.value_hints:
                low = value.lower().strip()
                initials = "".join(w[0] for w in low.split()) if " " in low else low  # New York written 'NY'
                said = re.search(rf"((?:\w+\s+){{0,3}})(?<![\w-]){re.escape(low)}(?![\w-])", asked.text)
                if len(low) >= 3 and not low.isdigit() and low not in literals and initials not in literals.split(
                        ) and said and not set(said.group(1).split()) & _AUXILIARY:  # "has … paid": a verb
                    hits.append((alias, column, value))
    if len({(a, c.name) for a, c, _ in hits}) != 1 or len({v for _, _, v in hits}) != 1:
        return None
    alias, column, value = hits[0]
    condition = exp.EQ(this=exp.column(column.name, table=alias), expression=exp.Literal.string(value))
    return (f"The question says “{value}”, a value of {column.name}, and the query does not filter on it",
            f"Only {value}", _add_condition(tree, condition))


def or_finding(asked: Asked, tree: exp.Select, schema: Schema) -> Finding | None:
    """``a OR b`` at the top of WHERE between conditions on different columns, when the question says no "or":
    the query with AND."""
    where = tree.args.get("where")
    if where is None or asked.words & _OR_WORDS:
        return None
    for node in where.find_all(exp.Or):
        if node.find_ancestor(exp.Select) is not tree or node.find_ancestor(exp.Not):
            continue
        left = {c.name.lower() for c in node.this.find_all(exp.Column)}
        right = {c.name.lower() for c in node.expression.find_all(exp.Column)}
        if not left or not right or left & right:
            continue
        node.replace(exp.And(this=exp.Paren(this=node.this.copy()), expression=exp.Paren(
            this=node.expression.copy())))
        return ("The query keeps rows that meet either condition (OR) and the question does not say “or”",
                "Both conditions (AND)", tree)
    return None
