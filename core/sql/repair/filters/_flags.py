"""A filter turned into a yes/no column (``SELECT name, CASE WHEN food = 'Italian' THEN 'Yes' ELSE 'No' END AS
is_italian FROM restaurant`` for "which restaurants serve Italian food?"): every row shown with a flag, none left out.
Where the question asks for no flag, the condition is read as the filter it states and the flag dropped, a guess the
model is shown first (``GUESSED``): the rows then are those the flag said "Yes" of, each as shown before.

Only the outermost SELECT with nothing aggregated or grouped, only one such item — a searched CASE with one WHEN
whose two values say yes and no (``'Yes'``/``'No'``, ``'Y'``/``'N'``, 1/0, TRUE/FALSE) —, never one an ORDER BY
names, never under a LIMIT (which rows are kept would change), and never for a question that asks whether, for a flag, an indicator, a status or a yes/no ("and whether",
"mark the …", "flag", "or not", "1 … 0 otherwise", "Y/N", "a … column", "availability"), or in another script.
"""

from __future__ import annotations

import re

from sqlglot import exp

from core.sql.repair._names import GUESSED

__all__ = ["flags_as_filters"]

_FLAG_ASKED = re.compile(r"\b(?:whether|flag\w*|indicat\w*|yes|no|or\s+not|if|mark(?:ed|s|ing)?|label\w*|tag(?:ged|s)?|"
                         r"status\w*|true|false|check(?:ed|s)?|highlight\w*|show\s+which|each\s+\w+\s+and|"
                         r"all\s+\w+\s+(?:and|with)|boolean|is\s+it|are\s+they|does\s+it|do\s+they|otherwise|y/n|columns?|"
                         r"availab\w*|were\s+they|was\s+it|has\s+it|have\s+they|0|1)\b", re.IGNORECASE)
_YES = frozenset({"yes", "y", "true", "t", "1"})
_NO = frozenset({"no", "n", "false", "f", "0"})


def flags_as_filters(tree: exp.Expression, dialect: str, fixes: list[str], question: str) -> None:
    """The one yes/no flag of an ungrouped SELECT read as its condition in WHERE, the flag dropped (a guess)."""
    if not question or not question.isascii() or _FLAG_ASKED.search(question) or not isinstance(tree, exp.Select):
        return
    if tree.args.get("group") is not None or tree.find(exp.Window) or any(
            a.find_ancestor(exp.Select) is tree for a in tree.find_all(exp.AggFunc)):
        return
    flags = [item for item in tree.expressions if _flag(item.unalias()) is not None]
    order = tree.args.get("order")
    if len(flags) != 1 or len(tree.expressions) < 2 or tree.args.get("limit") is not None or order is not None and any(
            isinstance(o.this, exp.Literal) or isinstance(o.this, exp.Column) and not o.this.table
            and o.this.name.lower() == flags[0].alias.lower() for o in order.expressions):
        return
    item = flags[0]
    condition = _flag(item.unalias())
    written = item.sql(dialect=dialect)
    item.pop()
    tree.where(condition.copy(), append=True, copy=False)  # type: ignore[union-attr]
    fixes.append(f"{written}: every row shown with a yes/no the question does not ask for -> WHERE "
                 f"{condition.sql(dialect=dialect)}, the rows it says yes of" + GUESSED)  # type: ignore[union-attr]


def _flag(node: exp.Expression) -> exp.Expression | None:
    """The condition of ``CASE WHEN c THEN yes ELSE no END``, or None."""
    if not isinstance(node, exp.Case) or node.this is not None or len(node.args.get("ifs") or []) != 1:
        return None
    condition, yes, no = node.args["ifs"][0].this, node.args["ifs"][0].args.get("true"), node.args.get("default")
    if any(a.find_ancestor(exp.Select) is node.find_ancestor(exp.Select) for a in condition.find_all(exp.AggFunc)) or not (
            _says(yes, _YES) and _says(no, _NO)):
        return None  # an aggregate of this SELECT's rows is no row's test (a subquery's is)
    return condition


def _says(value: exp.Expression | None, words: frozenset[str]) -> bool:
    if isinstance(value, exp.Boolean):
        return (value.this is True) == ("true" in words)
    return isinstance(value, exp.Literal) and value.name.strip().lower() in words
