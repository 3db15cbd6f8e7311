"""Rows or keys a join repeats (the same row shown twice, an entity counted once per partner, namesakes merged), and
what a query writes twice where it meant two things: one computed value under two names, one condition twice, a range
from a value to itself (``copy_doubts``: notes that ask the model once, ``AskPipeline._review``)."""

from __future__ import annotations

import re
from collections import Counter

from sqlglot import exp

from core.answer import Alternative
from core.databases import QueryResult
from core.evidence._common import Execute, offer, owner, parse, rows_word
from core.schema import Schema

__all__ = ["copy_doubts", "duplicate_evidence"]

_LABEL = re.compile(r"name|title|label", re.IGNORECASE)


def duplicate_evidence(sql: str, result: QueryResult, schema: Schema,
                       execute: Execute) -> tuple[list[str], list[Alternative]]:
    """Three fan-outs of a join, each offered with the query that undoes it when the rows differ:

    - a plain SELECT over a join whose answer repeats whole rows (each organisation once per author): DISTINCT;
    - ``COUNT(t.key)`` of a table's own key after a join: the key is counted once per partner: COUNT(DISTINCT);
    - ``GROUP BY name`` (a label, not the table's key) over a join: namesakes are merged: grouped by the key too.
    """
    tree = parse(sql, schema.dialect)
    if not isinstance(tree, exp.Select) or not tree.args.get("joins") or result.truncated:
        return [], []
    if not tree.args.get("distinct") and not tree.args.get("group") and not tree.find(exp.AggFunc):
        repeated = sum(n - 1 for n in Counter(map(repr, result.rows)).values() if n > 1)
        if not repeated:
            return [], []
        other = tree.copy()
        other.set("distinct", exp.Distinct())
        why = (f"{rows_word(repeated)} of this answer {'repeats' if repeated == 1 else 'repeat'} another: the join "
               "gives one row per partner. Each row once: the other query.")
        return [why], [Alternative("Each row once (DISTINCT)", other.sql(dialect=schema.dialect), why)]
    said, changed = [], tree.copy()
    for count in changed.find_all(exp.Count):
        column = count.this
        found = owner(column, tree, schema) if isinstance(column, exp.Column) else None
        if (found is not None and not count.args.get("distinct") and found[0].primary_key == (found[1].name,)
                and _fanned_out(tree, column, schema)):  # fmt: skip
            count.set("this", exp.Distinct(expressions=[column.copy()]))
            said.append(f"COUNT({column.sql(dialect=schema.dialect)}) counts each {found[0].name} once per "
                        "row the joins give it")
    group = changed.args.get("group")
    for key in list(group.expressions) if group else ():
        found = owner(key, tree, schema)
        if (found is None or found[1].name in found[0].primary_key or len(found[0].primary_key) != 1
                or not _LABEL.search(found[1].name)):  # fmt: skip
            continue  # a state or a category groups rows on purpose; a name labels one row
        if found[0].is_unique((found[1].name,)):
            continue
        qualifier = key.table if isinstance(key, exp.Column) else ""
        added = exp.column(found[0].primary_key[0], table=qualifier or None)
        if any(added == g for g in group.expressions):
            continue  # first_name and last_name of one table: its key added once
        group.append("expressions", added)
        said.append(f"GROUP BY {key.sql(dialect=schema.dialect)} puts every {found[0].name} of the same "
                    f"{found[1].name} in one group")
    if not said:
        return [], []
    return offer(changed.sql(dialect=schema.dialect), "Count each once",
                 lambda how: f"{'; '.join(said)}: otherwise, {how}.", schema, execute, result)


def _fanned_out(select: exp.Select, key: exp.Column, schema: Schema) -> bool:
    """Whether a join of ``select`` matches ``key`` (a table's own key) with a column of another table that is not
    that table's key: each row of the key's table then comes once per partner."""
    side = key.table.lower()
    for join in select.args.get("joins") or ():
        on = join.args.get("on")
        for eq in on.find_all(exp.EQ) if on is not None else ():
            sides = [c for c in (eq.this, eq.expression) if isinstance(c, exp.Column)]
            if len(sides) != 2 or not any(c.table.lower() == side and c.name.lower() == key.name.lower()
                                          for c in sides):  # fmt: skip
                continue
            other = next(c for c in sides if not (c.table.lower() == side and c.name.lower() == key.name.lower()))
            found = owner(other, select, schema)
            if found is not None and not found[0].is_unique((found[1].name,)):
                return True
    return False


def copy_doubts(sql: str, schema: Schema) -> list[str]:
    """Notes on what the query writes twice where two things were likely meant — a slip of copying the previous
    item: one computed value shown under two names (``COUNT(s.id) AS total_sales, COUNT(s.id) AS total_revenue``: at
    most one name says what it computes); one condition twice in a chain of ANDs or ORs (the second does nothing);
    a range whose two ends are one value (``BETWEEN '2023-03-01' AND '2023-03-01'``, ``d >= X AND d < X``). Nothing
    here says what was meant, so nothing is offered: the model is asked once."""
    tree = parse(sql, schema.dialect)
    if tree is None:
        return []
    notes: list[str] = []
    for select in tree.find_all(exp.Select):
        names: dict[str, list[str]] = {}
        for item in select.expressions:
            if isinstance(item, exp.Alias) and item.alias and item.this.find(exp.AggFunc, exp.Binary):
                names.setdefault(item.this.sql(dialect=schema.dialect), []).append(item.alias)
        for computed, aliases in names.items():
            if len({a.lower() for a in aliases}) > 1:
                notes.append(f"The query shows {computed} twice, as {' and as '.join(aliases)}: one value under two "
                             "names, so at least one of them is not what it computes.")
    for chain in tree.find_all(exp.And, exp.Or):
        if type(chain.parent) is type(chain):
            continue  # the top of a chain is read once
        parts = [p.unnest() for p in chain.flatten()]
        seen: set[str] = set()
        for part in parts:
            written = part.sql(dialect=schema.dialect)
            if written in seen:
                notes.append(f"The query tests {written} twice ({chain.key.upper()}): the second does nothing, so "
                             "it may have been meant as another condition.")
                break
            seen.add(written)
        if isinstance(chain, exp.And):
            notes += _copied_within(parts, schema)
    for between in tree.find_all(exp.Between):
        low, high = between.args.get("low"), between.args.get("high")
        if low is not None and high is not None and not low.find(exp.Column) and low.sql() == high.sql():
            notes.append(f"{between.sql(dialect=schema.dialect)} is a range from a value to itself: one value, "
                         "so the other end may have been meant otherwise.")
    return notes


_LOWER = {exp.GT: True, exp.GTE: True, exp.LT: False, exp.LTE: False}


def _copied_within(parts: list[exp.Expression], schema: Schema) -> list[str]:
    """In one chain of ANDs, a range whose two ends are one value, ``d >= X AND d < X`` (nothing, or one value, is
    kept). One text for two columns, ``status = 'completed' AND payment_status = 'completed'``, is no doubt: analysts
    write it (attack round 22)."""
    notes: list[str] = []
    ends: dict[tuple[str, str], set[bool]] = {}
    for part in parts:
        if type(part) in _LOWER:
            col, value, lower = part.this, part.expression, _LOWER[type(part)]
            if not isinstance(col, exp.Column):
                col, value, lower = value, col, not lower
            if isinstance(col, exp.Column) and not value.find(exp.Column):
                ends.setdefault((col.sql(dialect=schema.dialect), value.sql(dialect=schema.dialect)), set()).add(lower)
    for (column, value), sides in ends.items():
        if len(sides) == 2:
            notes.append(f"{column} is bounded above and below by the same {value}: a range from a value to itself, "
                         "so the other end may have been meant otherwise.")
    return notes
