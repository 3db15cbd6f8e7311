"""A label folded to one case that the question does not ask for (``SELECT LOWER(city) AS city``), shown as the data
writes it where only the letters' case changes (``labels_as_stored``)."""

from __future__ import annotations

import re
from collections.abc import Callable

from sqlglot import exp

from core.schema import Schema
from core.sql.repair._names import words_of
from core.sql.repair._scope import column_sources, scope_sources, scopes

__all__ = ["labels_as_stored"]


# The question's words for a case it wants the labels in: then a LOWER()/UPPER() on a label is what was asked.
_CASE_ASKED = re.compile(r"\b(?:lower|upper|small|capital)[ -]?(?:cased?|letters?)\b|\b(?:lowercased?|uppercased?|capitals|"
                         r"capitali[sz]ed|case[- ]?(?:in)?sensitive|normali[sz]ed?|caps|case[- ]?fold(?:ed)?|folded)\b",
                         re.IGNORECASE)
# An alias that says the label was folded on purpose (``email_lower``, ``name_key``, ``norm_city``).
_FOLD_WORDS = frozenset("lower upper lc uc norm normal normalized normalised clean cleaned key slug ci folded canonical "
                        "insensitive".split())


def labels_as_stored(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str],
                     matches: Callable[[str], bool | None] | None, question: str) -> None:
    """``SELECT LOWER(city) AS city, COUNT(*) … GROUP BY LOWER(city)``: a label folded to one case that the question
    does not ask for, shown as the data writes it where that changes nothing but the letters' case — row for row with
    no GROUP BY or DISTINCT, or else where a bounded query (``matches``) finds no two values of the column that differ
    only in case (the same groups, the same distinct rows). The rows keep their folded order (with DISTINCT, which
    sorts only by what is shown, the column's own order, and never under a LIMIT). Only in the outermost SELECT, only
    a label whose name shares a word with its column's (or that has none) and says nothing of a case or a key, only a
    column of one table."""
    if matches is None or _CASE_ASKED.search(question) or not question.isascii() or not isinstance(tree, exp.Select):
        return
    sources = scope_sources(scopes(tree)[-1], schema, dialect)
    group, order, distinct = tree.args.get("group"), tree.args.get("order"), bool(tree.args.get("distinct"))
    for index, item in enumerate(tree.expressions):
        fold = item.unalias()
        if not isinstance(fold, (exp.Lower, exp.Upper)) or not isinstance(fold.this, exp.Column):
            continue
        said = set(words_of(item.alias)) if item.alias else set()
        if said and (not said & set(words_of(fold.this.name)) or said & _FOLD_WORDS):
            continue
        owners = column_sources(fold.this, sources, dialect)
        if len(owners) != 1 or not isinstance(owners[0].node, exp.Table):
            continue
        keys = [o for o in (order.expressions if order is not None else []) if o.this == fold or o.this.is_int and int(
            o.this.name) == index + 1 or isinstance(o.this, exp.Column) and not o.this.table and o.this.name.lower() == (
                item.alias or fold.this.name).lower()]
        if distinct and keys and tree.args.get("limit") is not None:
            continue
        if group is not None or distinct:
            table = owners[0].node.copy()
            table.set("alias", None)
            bare = exp.column(fold.this.name, quoted=fold.this.this.quoted)
            probe = exp.select("1").from_(table).group_by(type(fold)(this=bare.copy())).having(
                exp.GT(this=exp.Count(this=exp.Distinct(expressions=[bare])), expression=exp.Literal.number(1)))
            if matches(probe.limit(1).sql(dialect=dialect)) is not False:
                continue  # two values differ only in case (or it could not tell): the fold merges groups
            for grouped in group.expressions if group is not None else []:
                if grouped == fold:
                    grouped.replace(fold.this.copy())
        for ordered in keys:  # the order stays the folded one; with DISTINCT, the column's own (it is what is shown)
            ordered.this.replace(fold.this.copy() if distinct else fold.copy())
        fixes.append(f"{fold.sql(dialect=dialect)} -> {fold.this.sql(dialect=dialect)}: shown as the data writes "
                     "it (the question asks for no case; nothing but the letters' case changes)")
        fold.replace(fold.this.copy())
