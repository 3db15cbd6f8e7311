"""A top n ranked within partitions of one row each: ``ROW_NUMBER() OVER (PARTITION BY p.pid ORDER BY p.citation_num
DESC) AS rnk … WHERE rnk <= 3`` for "the 3 most cited publications" — partitioned by the table's own key, every row is
first among its own rows, so the filter keeps every row, by construction. Read as one ranking over all rows, the
PARTITION BY dropped — a guess the model is shown first (``GUESSED``), with the query as written one click away.
Only where the window's SELECT reads that one table, nothing joined or grouped (a partition of several rows may be a
ranking per group the question asks in words it does not spell: "customers with their highest-value order").

Only a ROW_NUMBER, RANK or DENSE_RANK with an ORDER BY whose value is filtered as a top n (``<= n``, ``< n``,
``= 1``); only where the question, in English words, asks for a top or an extreme ("top 3", "the most", "highest")
and says no word of a split ("per", "each", "every", "within", "for every", "-wise" …) and names no partition column
after "by", "in", "for" or "across" ("the top 3 by year").
"""

from __future__ import annotations

import re

from sqlglot import exp

from core.schema import Schema
from core.sql.repair._names import GUESSED, tokens
from core.sql.repair.joins import table_keys

__all__ = ["unasked_partitions"]

_SPLIT = re.compile(r"\b(?:per|each|every|within|respective\w*|individual\w*|separately|wise|har|group\w*|"
                    r"categor\w*|partition\w*)\b", re.IGNORECASE)
_TOP = re.compile(r"\b(?:top|highest|most|best|largest|biggest|greatest|lowest|least|fewest|smallest|worst|bottom|"
                  r"leading)\b", re.IGNORECASE)
_RANKS = (exp.RowNumber, exp.Rank, exp.DenseRank)


def unasked_partitions(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str], question: str) -> None:
    """A top-n ranking partitioned by a column the question never splits by: ranked over all rows (a guess)."""
    if not question or not question.isascii() or _SPLIT.search(question) or not _TOP.search(question):
        return
    after = {t for m in re.finditer(r"\b(?:by|in|for|across|of\s+each)\s+(?:the\s+)?([A-Za-z]+)", question)
             for t in tokens(m[1])}
    for window in list(tree.find_all(exp.Window)):
        parts = window.args.get("partition_by") or []
        named = window.parent.alias if isinstance(window.parent, exp.Alias) else ""
        if not isinstance(window.this, _RANKS) or not parts or window.args.get("order") is None or not named or \
                not _top_filter(tree, named) or any(set(tokens(p.sql())) & after for p in parts) or \
                not _each_row_alone(window, parts, schema):
            continue
        written = window.sql(dialect=dialect)
        window.set("partition_by", None)
        fixes.append(f"{written} ranks each row alone (its partition is the table's own key), so {named} keeps every "
                     f"row: ranked over all rows, {window.sql(dialect=dialect)}" + GUESSED)


def _each_row_alone(window: exp.Window, parts: list[exp.Expression], schema: Schema) -> bool:
    """Whether every partition is one row by construction: the window's SELECT reads one table, nothing joined, and
    partitions by that table's own key."""
    select = window.find_ancestor(exp.Select)
    source = select.args.get("from_") if select is not None else None
    if source is None or select.args.get("joins") or select.args.get("group") or not isinstance(source.this, exp.Table):
        return False
    table = next((t for t in schema.tables if t.name.lower() == source.this.name.lower()), None)
    return table is not None and len(parts) == 1 and isinstance(parts[0], exp.Column) and parts[0].name.lower() in (
        k.lower() for k in table_keys(table))


def _top_filter(tree: exp.Expression, name: str) -> bool:
    """Whether the output ``name`` is compared with a number as a top n: ``name <= 3``, ``name < 4``, ``name = 1``."""
    for compare in tree.find_all(exp.LTE, exp.LT, exp.EQ):
        left, right = compare.this, compare.expression
        if isinstance(left, exp.Column) and left.name.lower() == name.lower() and isinstance(right, exp.Literal) and \
                not right.is_string and (not isinstance(compare, exp.EQ) or right.name == "1"):
            return True
    return False
