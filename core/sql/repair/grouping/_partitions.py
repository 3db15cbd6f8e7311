"""A top n ranked within partitions of one row each: ``ROW_NUMBER() OVER (PARTITION BY p.pid ORDER BY p.citation_num
DESC) AS rnk … WHERE rnk <= 3`` for "the 3 most cited publications" — partitioned by the table's own key, every row is
first among its own rows, so the filter keeps every row, by construction. Read as one ranking over all rows, the
PARTITION BY dropped — a guess the model is shown first (``GUESSED``), with the query as written one click away.
Only where the window's SELECT reads that one table, nothing joined or grouped — or where the question asks for n
rows (n of 2 or more, "the top 3", "5 highest") and one bounded probe of the data finds no partition of two rows, so
the query as written shows every row (never n = 1: "customers with their latest order" is right as written where
each has one); a partition of several rows may be a ranking per group the question asks in
words it does not spell ("customers with their highest-value order") and is left.

Only a ROW_NUMBER, RANK or DENSE_RANK with an ORDER BY whose value is filtered as a top n (``<= n``, ``< n``,
``= 1``); only where the question, in English words, asks for a top or an extreme ("top 3", "the most", "highest");
a partition of one row by construction ranks nothing whatever split the question asks ("their respective counts"),
any other only where the question says no word of a split ("per", "each", "every", "within", "for every", "-wise" …)
and names no partition column after "by", "in", "for" or "across" ("the top 3 by year").
"""

from __future__ import annotations

import re

from sqlglot import exp

from core.schema import Schema
from core.sql.repair._names import GUESSED, tokens
from core.sql.repair._scope import group_key_forms
from core.sql.repair.grouping._ranks import rank_filters
from core.sql.repair.joins import JoinMatches, table_keys

__all__ = ["unasked_partitions"]

_SPLIT = re.compile(r"\b(?:per|each|every|within|respective\w*|individual\w*|separately|wise|har|group\w*|"
                    r"categor\w*|partition\w*)\b", re.IGNORECASE)
_TOP = re.compile(r"\b(?:top|highest|most|best|largest|biggest|greatest|lowest|least|fewest|smallest|worst|bottom|"
                  r"leading)\b", re.IGNORECASE)
_RANKS = (exp.RowNumber, exp.Rank, exp.DenseRank)
_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_SIZE = re.compile(r"\b(?:top|first|best|highest|lowest|largest|smallest|biggest|leading|bottom|last)\s+(\d+|"
                   + "|".join(_NUMBERS) + r")\b|\b(\d+|" + "|".join(_NUMBERS) + r")\s+(?:most|highest|lowest|largest|"
                   r"smallest|biggest|best|worst|top|leading)\b", re.IGNORECASE)


def unasked_partitions(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str], question: str,
                       rows_found: JoinMatches | None = None) -> None:
    """A top-n ranking partitioned so each row ranks alone: ranked over all rows (a guess)."""
    if not question or not question.isascii() or not _TOP.search(question):
        return
    split = bool(_SPLIT.search(question))
    after = {t for m in re.finditer(r"\b(?:by|in|for|across|of\s+each)\s+(?:the\s+)?([A-Za-z]+)", question)
             for t in tokens(m[1])}
    split_by = {t for m in re.finditer(r"\b(?:per|each|every|har|within)\s+(?:the\s+|single\s+)?([A-Za-z]+)",
                                       question) for t in tokens(m[1])}  # "in each country": country
    for window in list(tree.find_all(exp.Window)):
        parts = window.args.get("partition_by") or []
        named = window.parent.alias if isinstance(window.parent, exp.Alias) else ""
        bound = next((n for kept, n in rank_filters(tree) if kept is window), None) if named else None
        if not isinstance(window.this, _RANKS) or not parts or window.args.get("order") is None or bound is None:
            continue
        kept: list[exp.Expression] = []
        if _each_row_alone(window, parts, schema):  # no reading ranks anything within it: whatever split is asked,
            why = "its partition is one row by construction"  # the keys it names stay ("top 2 cities in each country")
            kept = [p for p in parts if set(tokens(p.sql())) & split_by]
            if kept and len(kept) == len(parts):
                continue
        elif split or any(set(tokens(p.sql())) & after for p in parts):
            continue
        elif bound >= 2 and bound in _asked_sizes(question) and _one_row_each(window, parts, dialect, rows_found):
            why = f"no partition holds two rows, and the question asks for {bound}"
        else:
            continue
        written = window.sql(dialect=dialect)
        window.set("partition_by", kept or None)
        fixes.append(f"{written} ranks each row alone ({why}), so {named} keeps every row: ranked over "
                     f"{'the groups the question names' if kept else 'all rows'}, {window.sql(dialect=dialect)}"
                     + GUESSED)


def _asked_sizes(question: str) -> set[int]:
    """The numbers of rows a question asks for: "top 3", "the 5 highest", "first ten"."""
    found = set()
    for m in _SIZE.finditer(question):
        word = (m[1] or m[2]).lower()
        found.add(int(word) if word.isdigit() else _NUMBERS.get(word, 0))
    return found


def _one_row_each(window: exp.Window, parts: list[exp.Expression], dialect: str,
                  rows_found: JoinMatches | None) -> bool:
    """Whether the data holds no partition of two rows: one bounded probe, the window's FROM and WHERE grouped by the
    partition, ``HAVING COUNT(*) > 1`` (no answer, or a SELECT that groups, is no proof)."""
    select = window.find_ancestor(exp.Select)
    if rows_found is None or select is None or select.args.get("from_") is None:
        return False
    rows = exp.select("1" if not select.args.get("group") else None).from_(select.args["from_"].this.copy())
    for join in select.args.get("joins") or []:
        rows.append("joins", join.copy())
    if select.args.get("where") is not None:
        rows.set("where", select.args["where"].copy())
    keys = list(parts)
    group = select.args.get("group")
    if group is not None:  # the grouped rows, each partition part one of their keys: the groups sharing a partition
        if select.args.get("having") is not None or not all(any(k == p for k in group.expressions) for p in parts):
            return False
        rows = rows.select(*[p.copy().as_(f"_part{i}") for i, p in enumerate(parts)], append=False).group_by(
            *[k.copy() for k in group.expressions])
        rows = exp.select("1").from_(rows.subquery("_groups"))
        keys = [exp.column(f"_part{i}") for i in range(len(parts))]
    probe = rows.group_by(*[k.copy() for k in keys]).having("COUNT(*) > 1").limit(1)
    return rows_found(probe.sql(dialect=dialect)) is False


def _each_row_alone(window: exp.Window, parts: list[exp.Expression], schema: Schema) -> bool:
    """Whether every partition is one row by construction: the window's SELECT groups and partitions by every GROUP BY
    key, or reads one table, nothing joined, and partitions by that table's own key."""
    select = window.find_ancestor(exp.Select)
    source = select.args.get("from_") if select is not None else None
    group = select.args.get("group") if select is not None else None
    if group is not None:  # one row per group: a partition by every GROUP BY key holds one row
        return all(any(part in forms for part in parts) for forms in group_key_forms(select))  # GROUP BY month:
        # month, or the STRFTIME it names
    if source is None or select.args.get("joins") or not isinstance(source.this, exp.Table):
        return False
    table = next((t for t in schema.tables if t.name.lower() == source.this.name.lower()), None)
    return table is not None and len(parts) == 1 and isinstance(parts[0], exp.Column) and parts[0].name.lower() in (
        k.lower() for k in table_keys(table))
