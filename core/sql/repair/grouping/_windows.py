"""A window over the groups that the question does not ask for: each group's aggregate turned into its share of the
total (``1.0 * COUNT(*) / SUM(COUNT(*)) OVER ()``) or into a running total (``SUM(COUNT(*)) OVER (ORDER BY
month)``). Both are deliberate constructions when the question asks for a share or a running total; where its words
say neither, the group's own aggregate is what was asked ("how many per city"), read back as a guess the model is
shown first (``GUESSED``). Only in the outermost SELECT of a grouped query, only a SUM over the very aggregate beside
it (the share) or over one aggregate with a window order and no partition (the running total), only as the item's
value (never inside a CASE or a comparison), never under an alias that names it (``pct``, ``orders_to_date``), and
never for a question in another script, whose words are not read here.
"""

from __future__ import annotations

import re

from sqlglot import exp

from core.sql.repair._names import GUESSED

__all__ = ["unasked_windows"]

_SHARE_ASKED = re.compile(r"\b(?:ratio|proportion|percentage|percent|per cent|pct|fraction|share|portion|contribut\w*|"
                          r"distribution|relative|normali[sz]ed?|spread|weight\w*|account(?:s|ed)? for)s?\b|\bout of\b|"
                          r"%|\bof (?:the |all )?total\b", re.IGNORECASE)
_RUNNING_ASKED = re.compile(r"\b(?:running|cumulative|cumulatively|accumulated|rolling|so far|to date|ytd|mtd|"
                            r"year[- ]to[- ]date|progressive|grow(?:s|n|th)?|build[s]? up|over time|by the end of|"
                            r"up to|as of|until|till)\b", re.IGNORECASE)
_SHARE_NAMED = re.compile(r"pct|percent|share|ratio|rate|prop|frac|portion", re.IGNORECASE)
_RUNNING_NAMED = re.compile(r"cum|running|to_?date|so_?far|ytd|mtd|rolling|total_to", re.IGNORECASE)
_AROUND = (exp.Round, exp.Cast, exp.Paren, exp.Mul)  # what may wrap the share or running total as the item's value


def unasked_windows(tree: exp.Expression, dialect: str, fixes: list[str], question: str = "") -> None:
    """``SUM(agg) OVER ()`` dividing ``agg``, or ``SUM(agg) OVER (ORDER BY …)``, in a grouped query whose question
    asks for no share and no running total: the group's aggregate itself (a guess)."""
    if not question or not question.isascii() or not isinstance(tree, exp.Select) or tree.args.get("group") is None:
        return  # a question in another script: its words cannot be read here
    for item in tree.expressions:
        for window in list(item.find_all(exp.Window)):
            inner = window.this.this if isinstance(window.this, exp.Sum) else None
            if not isinstance(inner, exp.AggFunc) or window.args.get("partition_by"):
                continue
            ordered = window.args.get("order") is not None
            if ordered and not _RUNNING_ASKED.search(question) and not window.args.get("spec") and not _RUNNING_NAMED.search(
                    item.alias) and _is_value(window, item):
                window.replace(inner.copy())
                fixes.append(f"{window.sql(dialect=dialect)}: a running total the question does not ask for -> "
                             f"{inner.sql(dialect=dialect)}" + GUESSED)
                continue
            division = window.find_ancestor(exp.Div)
            if ordered or division is None or division.expression.unnest() is not window or _SHARE_ASKED.search(
                    question) or _SHARE_NAMED.search(item.alias) or not _is_value(division, item) or not any(
                    node == inner for node in division.this.find_all(exp.AggFunc)):
                continue
            written = division.sql(dialect=dialect)
            division.replace(inner.copy())
            fixes.append(f"{written}: each group's share of the total, which the question does not ask for -> "
                         f"{inner.sql(dialect=dialect)}" + GUESSED)


def _is_value(node: exp.Expression, item: exp.Expression) -> bool:
    """Whether ``node`` is the select item's value, under nothing but a rounding, a cast, brackets or a scale (a
    share compared inside a CASE is a share the query needs)."""
    top = item.unalias()
    while node is not top:
        parent = node.parent
        if not isinstance(parent, _AROUND) or isinstance(parent, exp.Mul) and not any(
                isinstance(side, exp.Literal) for side in (parent.this, parent.expression)):
            return False
        node = parent
    return True
