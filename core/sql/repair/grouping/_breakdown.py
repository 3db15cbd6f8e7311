"""One total split by a column the question never names (``SELECT status, AVG(amount) … GROUP BY status`` for "what is
the average amount of paid orders?"): a row per value where one number was asked. Read as the one total, the split
column dropped from the select list and the GROUP BY — a guess the model is shown first (``GUESSED``).

Only where the question asks for a number ("how many", "the total", "the average" …), only the outermost SELECT
grouped by exactly one plain column that it shows and reads nowhere else (WHERE, HAVING,
ORDER BY, a join), beside aggregates only; only where the question says no word of a split, a list or a ranking
("per", "each", "by", "which", "top", "breakdown", "across", "and", "daily", "over time" …) and no word of that
column's name (its own words, singular or plural, or a word inside a name run together, ``venuename``) or of its
values the schema knows, never a column of dates or
times, in English words.
"""

from __future__ import annotations

import re

from sqlglot import exp

from core.schema import Schema
from core.sql.repair._names import GUESSED, tokens
from core.sql.repair._scope import column_sources, scope_sources, scopes

__all__ = ["unasked_breakdowns"]

_SPLIT_ASKED = re.compile(
    r"\b(?:per|each|every|by|breakdown|broken|across|split\w*|group\w*|for\s+all|which|who|what\s+are|what\s+were|"
    r"list\w*|top|most|least|highest|lowest|largest|smallest|best|worst|rank\w*|distribution|respective\w*|"
    r"individual\w*|separately|wise|categor\w*|types?|kinds?|status\w*|among|between|compare\w*|versus|vs|and\s+their|"
    r"along|with\s+their|daily|weekly|monthly|yearly|annual\w*|quarterly|hourly|over\s+time|trend\w*|timeline|"
    r"series|history|evolution|change\w*|growth|grow\w*|seasonal\w*|and)\b", re.IGNORECASE)


_ONE_NUMBER = re.compile(r"\b(?:how\s+(?:many|much)|total|average|avg|mean|median|sum|overall|number\s+of|count\s+of|"
                         r"minimum|maximum|kitn[aei]|kul)\b", re.IGNORECASE)  # the question asks for one number


def unasked_breakdowns(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str], question: str) -> None:
    """A SELECT grouped by one shown column the question never asks to split by: the one total (a guess)."""
    if not question or not question.isascii() or _SPLIT_ASKED.search(question) or not _ONE_NUMBER.search(
            question) or not isinstance(tree, exp.Select):
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
    run = re.sub(r"[^a-z]", "", key.name.lower())
    if set(tokens(key.name)) & said or any(len(w) > 2 and w in run for w in said):
        return  # the question names the column (``venuename`` for "the name of the venue")
    owners = column_sources(key, scope_sources(scopes(tree)[-1], schema, dialect), dialect)
    table = owners[0].table if len(owners) == 1 else None
    column = next((c for c in table.columns if c.name.lower() == key.name.lower()), None) if table else None
    if column is None or re.search(r"date|time", column.type, re.IGNORECASE) or any(
            set(tokens(v)) & said for v in column.value_hints if isinstance(v, str)):
        return  # a column of time splits by itself; a value the question names is a group it asks for
    written = f"{key.sql(dialect=dialect)} … GROUP BY {key.sql(dialect=dialect)}"
    shown[0].pop()
    tree.set("group", None)
    fixes.append(f"{written}: a split by a column the question does not name, where it asks for one total -> the "
                 "total alone" + GUESSED)
