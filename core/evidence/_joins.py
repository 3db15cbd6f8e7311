"""Joins that change the rows without an error: an inner join that adds no column (dropping parents without children,
or repeating them), and a join on columns the schema does not relate where it knows the key.

Also rows without a match, asked for in a way that cannot give them: ``JOIN sales s ON s.car_id = c.id WHERE s.car_id
IS NULL`` keeps nothing (an inner join's key is never NULL), and ``SELECT s.id … LEFT JOIN sales s … WHERE s.car_id
IS NULL`` shows a column that is NULL on every row (the rows kept are exactly those ``s`` has no match for).

Both follow from the query alone: the first is offered as a LEFT JOIN, the second with the column of the same name
of the table that has the rows (``c.id``). And, where the question says "not", "no", "never" or "without", a LEFT
JOIN whose table is read nowhere else keeps every row: the rows without a match are offered. A LEFT JOIN whose ON
also filters the joined table by a constant, where the joined table is read nowhere else (``FROM publication p LEFT
JOIN journal j ON p.jid = j.jid AND j.name LIKE 'J%'`` and nothing of ``j`` shown, grouped or counted): such a join
changes no row, so its filter filters nothing: offered with the filter in the WHERE clause. Where the query reads the
joined side (``COALESCE(SUM(o.qty), 0)`` for every product, a list "with their orders, if any", an anti-join's ``IS
NULL``) the filter in the ON is how one keeps every row, and nothing is said. A join on either of two keys of one
table, ``ON u.uid = t.sender_id OR u.uid = t.receiver_id``, matches a row for each role a key plays (a user's
transactions sent and received, together): where the question says no "or", "either", "both" or "involving" and its
words name exactly one of the two roles ("sent by each user": sender_id), that key alone is offered — where they name
neither, "the matches each team played", the OR may be meant and nothing is said. A join on its key that also
equates a column both tables carry under one name, ``ON o.customer_id = c.customer_id AND o.city = c.city`` (the
city an order shipped to is not the customer's), keeps only the rows where the two agree: where that column is no
key of either table, the join on the key alone is offered. The query that ran stays the answer.
"""

from __future__ import annotations

import os
import re

from sqlglot import exp

from core.answer import Alternative
from core.databases import QueryResult
from core.evidence._aliases import is_key
from core.evidence._common import Execute, difference, offer, other_rows, parse, select_tables
from core.evidence._question_columns import name_words
from core.prompt import tables_called_by_name
from core.schema import Schema, Table
from core.sql import join_candidates, joins_adding_no_column

__all__ = ["added_join_evidence", "anti_join_evidence", "either_key_evidence", "join_evidence", "join_key_evidence",
           "left_join_filter_evidence", "shared_column_evidence", "unmatched_evidence"]


def join_evidence(question: str, sql: str, result: QueryResult, schema: Schema,
                  execute: Execute) -> tuple[list[str], list[Alternative]]:
    """Notes and alternatives for the joins of ``sql`` that add no column but change its rows. A join to a table
    the question calls by its name ("courses per teacher") is meant: its rows are what is counted."""
    tree = parse(sql, schema.dialect)
    if tree is None or result.truncated:
        return [], []
    notes: list[str] = []
    alternatives: list[Alternative] = []
    named = {t.split(".")[-1].lower() for t in tables_called_by_name(schema, question)}
    for check in joins_adding_no_column(tree, schema, schema.dialect):
        if check.table.split(".")[-1].lower() in named:
            continue
        found = other_rows(check.without, schema, execute, result)
        if found is None:
            continue
        other_sql, other = found
        why = (f"The join to {check.table} adds no column to this answer but changes it: without it, "
               f"{difference(result.rows, other.rows)}.")
        notes.append(why + " See the other query below the answer.")
        alternatives.append(Alternative(f"Without the join to {check.table}", other_sql, why))
    return notes, alternatives


def join_key_evidence(sql: str, result: QueryResult, schema: Schema,
                      execute: Execute) -> tuple[list[str], list[Alternative]]:
    """A join on columns the schema does not relate (``o.id = c.id``) between two tables it relates one way (a
    declared or inferred key, ``orders.customer_id -> customers.customer_id``): the query joined on that key is run
    and offered when its rows differ. A join on any other condition the schema cannot judge is left alone."""
    tree = parse(sql, schema.dialect)
    if tree is None or result.truncated:
        return [], []
    said: list[str] = []
    for select in tree.find_all(exp.Select):
        sources = {(t.alias_or_name or "").lower(): t for t in select.find_all(exp.Table)
                   if t.find_ancestor(exp.Select) is select}
        for join in select.args.get("joins") or ():
            on = join.args.get("on")
            if not isinstance(on, exp.EQ) or not all(isinstance(c, exp.Column) and c.table for c in (on.this,
                                                                                                     on.expression)):
                continue
            left, right = on.this, on.expression
            a, b = sources.get(left.table.lower()), sources.get(right.table.lower())
            ta, tb = (schema.table(a.name) if a is not None else None), (schema.table(b.name) if b is not None else None)
            if ta is None or tb is None or ta is tb:
                continue
            relations = _relations(ta, tb) + [(y, x) for x, y in _relations(tb, ta)]
            if not relations:  # no key known: the one pair the names settle, when the written one is not it
                relations = _named_pair(ta, tb, left.name, right.name)
            if len(relations) != 1:
                continue
            (col_a, col_b), = relations
            if {left.name.lower(), right.name.lower()} == {col_a.lower(), col_b.lower()}:
                continue  # joined on the key the schema knows
            new = exp.EQ(this=exp.column(col_a, table=left.table), expression=exp.column(col_b, table=right.table))
            said.append(f"{on.sql(dialect=schema.dialect)} joins {ta.name} and {tb.name} on columns the schema does "
                        f"not relate; it relates them by {ta.name}.{col_a} = {tb.name}.{col_b}")
            join.set("on", new)
    if not said:
        return [], []
    return offer(tree.sql(dialect=schema.dialect), "Joined on the schema's key",
                 lambda how: f"{'; '.join(said)}. Joined on that key, {how}.", schema, execute, result)


def shared_column_evidence(question: str, sql: str, result: QueryResult, schema: Schema,
                           execute: Execute) -> tuple[list[str], list[Alternative]]:
    """The join on its key that also equates a same-named column of the module docstring: joined on the key alone —
    never where the question's words name that column ("shipped to their own home region")."""
    words = name_words(question)
    tree = parse(sql, schema.dialect)
    if tree is None or result.truncated:
        return [], []
    said: list[str] = []
    for select in tree.find_all(exp.Select):
        tables = select_tables(select, schema)
        for join in select.args.get("joins") or ():
            on = join.args.get("on")
            pairs = list(on.flatten()) if isinstance(on, exp.And) else []
            if not pairs or not all(isinstance(p, exp.EQ) and isinstance(p.this, exp.Column) and isinstance(
                    p.expression, exp.Column) and p.this.table and p.expression.table for p in pairs):
                continue
            keys = [p for p in pairs if is_key(p.this.name) and is_key(p.expression.name)]
            shared = [p for p in pairs if p not in keys and p.this.name.lower() == p.expression.name.lower()
                      and not _in_primary_key(p, tables) and not name_words(p.this.name) <= words]
            if len(keys) != 1 or not shared or len(keys) + len(shared) != len(pairs):
                continue
            said.append(f"The join also requires {' and '.join(p.sql(dialect=schema.dialect) for p in shared)}, "
                        "which no key says")
            join.set("on", keys[0].copy())
    if not said:
        return [], []
    return offer(tree.sql(dialect=schema.dialect), "Joined on the key alone",
                 lambda how: f"{'; '.join(said)}. Joined on the key alone, {how}.", schema, execute, result)


def _in_primary_key(pair: exp.EQ, tables: dict[str, Table | None]) -> bool:
    """Whether either side's column is part of its table's primary key (a key of several columns joins on all)."""
    for side in (pair.this, pair.expression):
        table = tables.get(side.table.lower())
        if table is not None and side.name.lower() in {c.lower() for c in table.primary_key}:
            return True
    return False


def _named_pair(a: Table, b: Table, col_a: str, col_b: str) -> list[tuple[str, str]]:
    """With no key between the tables: ``a.col_a = b.col_b`` as written when the names allow it, else the one pair
    the names settle keeping one side (``review.user_id = business.business_id`` -> ``review.business_id``)."""
    if a.column(col_a) is None or b.column(col_b) is None:
        return []
    by_b, by_a = join_candidates(a, b, col_b), join_candidates(b, a, col_a)
    if col_a.lower() in (c.lower() for c in by_b) or col_b.lower() in (c.lower() for c in by_a):
        return []
    pairs = {(c, col_b) for c in by_b} | {(col_a, c) for c in by_a}
    return [(x, y) for x, y in pairs if is_key(x) and is_key(y)]  # name = name relates nothing


def _relations(child: Table, parent: Table) -> list[tuple[str, str]]:
    """(child column, parent column) of each single-column key from ``child`` to ``parent``."""
    return [(fk.columns[0], fk.ref_columns[0]) for fk in child.foreign_keys
            if len(fk.columns) == 1 and fk.ref_table.split(".")[-1].lower() == parent.name.lower()]


def added_join_evidence(written: str, sql: str, result: QueryResult, schema: Schema,
                        execute: Execute) -> tuple[list[str], list[Alternative]]:
    """A join Cairn put back (the model read ``author.aid`` and never joined author: ``repair.joins._forgotten``) is
    inner, which leaves out the rows with no match; whether the model meant them counted no one can say. The query
    with that join kept as LEFT JOIN is run and offered when its rows differ."""
    model, tree = parse(written, schema.dialect), parse(sql, schema.dialect)
    if model is None or tree is None or result.truncated:
        return [], []
    read = {(t.alias_or_name or "").lower() for t in model.find_all(exp.Table)}
    used = {c.table.lower() for c in model.find_all(exp.Column) if c.table} - read  # qualifiers of no table it read
    for join in tree.find_all(exp.Join):
        table = join.this
        if not isinstance(table, exp.Table) or (table.alias_or_name or "").lower() not in used or join.side or \
                join.kind:
            continue
        join.set("side", "LEFT")
        found = other_rows(tree.sql(dialect=schema.dialect), schema, execute, result)
        if found is None:
            return [], []
        why = (f"The model's query read {table.name} without joining it; Cairn added the join, which leaves out the "
               f"rows that have no {table.name}: keeping them (LEFT JOIN), {difference(result.rows, found[1].rows)}.")
        return [why + " See the other query below the answer."], [
            Alternative(f"Keep rows with no {table.name}", found[0], why)]
    return [], []


def _matched_alias(join: exp.Join) -> dict[str, str]:
    """Columns of the joined table its ON equates with another table's (lower alias.column -> the other side)."""
    alias = (join.this.alias_or_name or "").lower() if isinstance(join.this, exp.Table) else ""
    out: dict[str, str] = {}
    on = join.args.get("on")
    for eq in on.find_all(exp.EQ) if on is not None else ():
        sides = [s for s in (eq.this, eq.expression) if isinstance(s, exp.Column) and s.table]
        if len(sides) != 2:
            continue
        for mine, other in (sides, sides[::-1]):
            if mine.table.lower() == alias and other.table.lower() != alias:
                out[f"{alias}.{mine.name.lower()}"] = other.table
    return out


def _null_tests(select: exp.Select) -> list[exp.Is]:
    where = select.args.get("where")
    if where is None:
        return []
    conditions = list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]
    return [c for c in conditions if isinstance(c, exp.Is) and isinstance(c.expression, exp.Null)
            and isinstance(c.this, exp.Column) and c.this.table]


def anti_join_evidence(sql: str, result: QueryResult, schema: Schema,
                       execute: Execute) -> tuple[list[str], list[Alternative]]:
    """The two slips of the module docstring, each with the query written as the idiom means it."""
    tree = parse(sql, schema.dialect)
    if tree is None or result.truncated:
        return [], []
    said: list[str] = []
    for select in list(tree.find_all(exp.Select)):
        tests = {f"{t.this.table.lower()}.{t.this.name.lower()}": t for t in _null_tests(select)}
        for join in select.args.get("joins") or ():
            matched = _matched_alias(join)
            tested = [key for key in matched if key in tests]
            if not tested:
                continue
            alias = tested[0].split(".")[0]
            if not join.side:  # an inner join: its matched key is never NULL, so nothing is kept
                join.set("side", "LEFT")
                join.set("kind", None)
                said.append(f"the inner join to {alias} never has {tests[tested[0]].this.sql()} NULL, so nothing is "
                            "kept; as a LEFT JOIN (rows without a match)")
            elif join.side.upper() == "LEFT":
                said += _null_side_shown(select, alias, matched[tested[0]], schema)
    if not said:
        return [], []
    return offer(tree.sql(dialect=schema.dialect), "Rows without a match",
                 lambda how: f"{'; '.join(said)}, {how}.", schema, execute, result)


def _null_side_shown(select: exp.Select, alias: str, other: str, schema: Schema) -> list[str]:
    """Columns shown bare from ``alias``, the side with no match (NULL on every row kept), read from ``other``, the
    table the rows come from, when it has a column of that name."""
    source = select_tables(select, schema).get(other.lower())
    said = []
    for item in select.expressions:
        col = item.this if isinstance(item, exp.Alias) else item
        if not isinstance(col, exp.Column) or col.table.lower() != alias or source is None:
            continue
        if source.column(col.name) is None:
            continue
        said.append(f"{col.sql()} is NULL on every row kept (they are the rows {alias} has no match for); "
                    f"shown from {other}")
        col.set("table", exp.to_identifier(other))
    return said


# "not", "no", "never", "without", and Hindi-English "nahi", "bina": the question asks for rows without something.
_NEGATION = re.compile(r"\b(?:not|no|never|without|none|haven't|hasn't|didn't|don't|doesn't|nahi|nahin|bina)\b|n't\b",
                       re.I)


def unmatched_evidence(question: str, sql: str, result: QueryResult, schema: Schema,
                       execute: Execute) -> tuple[list[str], list[Alternative]]:
    """"Merchants who have not issued any coupons" answered with ``merchants LEFT JOIN coupons c ON …`` that reads no
    column of ``c`` anywhere else and tests none for NULL: every merchant is kept. The rows without a match (``WHERE
    c.merchant_id IS NULL``) are offered when the question says not, no, never or without."""
    tree = parse(sql, schema.dialect)
    if not isinstance(tree, exp.Select) or result.truncated or not _NEGATION.search(question):
        return [], []
    for join in tree.args.get("joins") or ():
        matched = _matched_alias(join)
        if (join.side or "").upper() != "LEFT" or not matched:
            continue
        alias = next(iter(matched)).split(".")[0]
        elsewhere = [c for c in tree.find_all(exp.Column) if c.table.lower() == alias and c.find_ancestor(
            exp.Join) is not join]
        if elsewhere:
            continue  # its columns are shown, counted or tested: not an anti-join left half-written
        key = next(iter(matched)).split(".")[1]
        other = tree.copy()
        other.where(exp.Is(this=exp.column(key, table=alias), expression=exp.Null()), copy=False)
        return offer(other.sql(dialect=schema.dialect), "Rows without a match", lambda how, alias=alias: (
            f"The question asks for rows without something, and the LEFT JOIN to {alias} keeps every row (nothing "
            f"tests that {alias} has no match); only the rows without one, {how}."), schema, execute, result)
    return [], []


def left_join_filter_evidence(sql: str, result: QueryResult, schema: Schema,
                              execute: Execute) -> tuple[list[str], list[Alternative]]:
    """The LEFT JOIN filter of the module docstring, offered as a filter of the rows (in the WHERE clause)."""
    tree = parse(sql, schema.dialect)
    if tree is None or result.truncated:
        return [], []
    said: list[str] = []
    for select in list(tree.find_all(exp.Select)):
        for join in select.args.get("joins") or ():
            on = join.args.get("on")
            alias = join.this.alias_or_name.lower() if isinstance(join.this, exp.Table) else ""
            if (join.side or "").upper() != "LEFT" or not alias or not isinstance(on, exp.And):
                continue
            filters = [c for c in on.flatten() if _filters_only(c, alias)]
            if not filters or len(filters) == len(list(on.flatten())) or _needs_the_on(select, join, alias):
                continue
            kept = [c for c in on.flatten() if not any(c is f for f in filters)]
            join.set("on", exp.and_(*(c.copy() for c in kept)))
            for condition in filters:
                select.where(condition.copy(), copy=False)
            said += [f.sql(dialect=schema.dialect) for f in filters]
    if not said:
        return [], []
    return offer(tree.sql(dialect=schema.dialect), "The filter applied to the rows", lambda how: (
        f"{'; '.join(said)} stands in a LEFT JOIN's ON, so rows without such a match are kept (with NULLs); as a "
        f"filter of the rows, {how}."), schema, execute, result)


def _filters_only(condition: exp.Expression, alias: str) -> bool:
    """A condition that reads columns of ``alias`` only, compared with constants."""
    columns = list(condition.find_all(exp.Column))
    return bool(columns) and all(c.table.lower() == alias for c in columns) and condition.find(exp.Select) is None


def _needs_the_on(select: exp.Select, join: exp.Join, alias: str) -> bool:
    """Whether the query reads ``alias`` anywhere outside that join's ON (then the LEFT JOIN keeps rows on purpose)."""
    return any(c.table.lower() == alias and c.find_ancestor(exp.Join) is not join for c in select.find_all(exp.Column))


_EITHER_WORDS = re.compile(r"\b(?:or|either|both|ya|involv\w*)\b")


def either_key_evidence(question: str, sql: str, result: QueryResult, schema: Schema,
                        execute: Execute) -> tuple[list[str], list[Alternative]]:
    """The join on either of two keys of the module docstring: the query joined on each key alone."""
    tree = parse(sql, schema.dialect)
    if tree is None or result.truncated or _EITHER_WORDS.search(question.lower()):
        return [], []
    words = re.findall(r"[a-z]{3,}", question.lower())
    for join in list(tree.find_all(exp.Join)):
        on = join.args.get("on")
        either = next((o for o in (on.flatten() if isinstance(on, exp.And) else [on]) if _either(o)), None)
        if either is None:
            continue
        inner = either.unnest()
        pairs = [inner.this.unnest(), inner.expression.unnest()]
        keys = [_role_key(pair, pairs) for pair in pairs]
        named = [k for k in keys if any(_names_role(k.name, w) for w in words)]
        if len(named) != 1:
            continue  # "the matches each team played": both roles, or none said — the OR may be meant
        found: list[tuple[list[str], list[Alternative]]] = []
        for key in named:
            pair = next(p for p in pairs if _role_key(p, pairs) is key)
            alone = tree.copy()
            target = next(n for n in alone.find_all(type(either)) if n == either)
            target.replace(pair.copy())
            shown = f"{key.table}.{key.name}" if key.table else key.name
            found.append(offer(alone.sql(dialect=schema.dialect), f"Joined on {shown} only", lambda how, shown=shown, either=either: (
                f"The join matches a row on either of two keys ({either.sql(dialect=schema.dialect)}), so each row "
                f"counts once for every role it plays, and the question says no “or”; joined on {shown} only, {how}."),
                schema, execute, result))
        return [n for f in found for n in f[0]], [a for f in found for a in f[1]]
    return [], []


def _names_role(column: str, word: str) -> bool:
    """Whether a question word says the role a key column names: "sent" for sender_id, "received" for receiver_id,
    "home" for home_team_id — the column's first word and the question's share their first letters, all but two of
    the shorter one's and at least three."""
    role = re.split(r"[_\W]|(?<=[a-z])(?=[A-Z])", column)[0].lower()
    common = len(os.path.commonprefix([role, word]))
    return common >= 3 and common >= min(len(role), len(word)) - 2


def _either(node: exp.Expression | None) -> bool:
    """``a = t.x OR a = t.y``: two equalities sharing one side, whose other sides are two columns of one table."""
    inner = node.unnest() if node is not None else None
    if not isinstance(inner, exp.Or):
        return False
    pairs = [inner.this.unnest(), inner.expression.unnest()]
    if not all(isinstance(p, exp.EQ) and isinstance(p.this, exp.Column) and isinstance(p.expression, exp.Column)
               for p in pairs):
        return False
    sides = [{p.this.sql(), p.expression.sql()} for p in pairs]
    shared = sides[0] & sides[1]
    return len(shared) == 1 and all(k is not None for k in (_role_key(p, pairs) for p in pairs)) and len(
        {_role_key(p, pairs).table.lower() for p in pairs}) == 1 and len({_role_key(p, pairs).name.lower()
                                                                          for p in pairs}) == 2


def _role_key(pair: exp.EQ, pairs: list[exp.EQ]) -> exp.Column:
    """The side of ``pair`` that the other equality does not share (the role's key)."""
    other = next(p for p in pairs if p is not pair)
    shared = {other.this.sql(), other.expression.sql()}
    return pair.expression if pair.this.sql() in shared else pair.this
