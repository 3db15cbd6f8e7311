"""One total split by a column the question never names (``SELECT status, AVG(amount) … GROUP BY status`` for "what is
the average amount of paid orders?"): a row per value where one number was asked. Read as the one total, the split
column dropped from the select list and the GROUP BY — a guess the model is shown first (``GUESSED``).

Only the outermost SELECT grouped by exactly one plain column that it shows and reads nowhere else (WHERE, HAVING,
ORDER BY, a join), beside aggregates only; only where the question says no word of a split, a list or a ranking
("per", "each", "by", "which", "top", "breakdown", "across" …) and no word of that column's or its values' name
(its own words, singular or plural), in English words.
"""

from __future__ import annotations

import re

from sqlglot import exp

from core.sql.repair._names import GUESSED, tokens

__all__ = ["unasked_breakdowns"]

_SPLIT_ASKED = re.compile(
    r"\b(?:per|each|every|by|breakdown|broken|across|split\w*|group\w*|for\s+all|which|who|what\s+are|what\s+were|"
    r"list\w*|top|most|least|highest|lowest|largest|smallest|best|worst|rank\w*|distribution|respective\w*|"
    r"individual\w*|separately|wise|categor\w*|types?|kinds?|status\w*|among|between|compare\w*|versus|vs|and\s+their|"
    r"along|with\s+their)\b", re.IGNORECASE)


def unasked_breakdowns(tree: exp.Expression, dialect: str, fixes: list[str], question: str) -> None:
    """A SELECT grouped by one shown column the question never asks to split by: the one total (a guess)."""
    if not question or not question.isascii() or _SPLIT_ASKED.search(question) or not isinstance(tree, exp.Select):
        return
    group = tree.args.get("group")
    if group is None or len(group.expressions) != 1 or not isinstance(group.expressions[0], exp.Column) or any(
            tree.args.get(arg) for arg in ("having", "order", "limit", "distinct")) or tree.find(exp.Window):
        return
    key = group.expressions[0]
    shown = [item for item in tree.expressions if item.unalias() == key]
    others = [item for item in tree.expressions if item.unalias() != key]
    if len(shown) != 1 or not others or not all(item.find(exp.AggFunc) for item in others):
        return
    uses = [c for c in tree.find_all(exp.Column) if c == key and c.find_ancestor(exp.Select) is tree]
    if len(uses) != 2:  # the select item and the GROUP BY only
        return
    said = {t for word in re.findall(r"[A-Za-z]+", question) for t in tokens(word)}
    if set(tokens(key.name)) & said:
        return
    written = f"{key.sql(dialect=dialect)} … GROUP BY {key.sql(dialect=dialect)}"
    shown[0].pop()
    tree.set("group", None)
    fixes.append(f"{written}: a split by a column the question does not name, where it asks for one total -> the "
                 "total alone" + GUESSED)
