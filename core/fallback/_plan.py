"""Second half of planning: resolve the roles of a question's words against the schema into a ``Plan``.

The plan is deliberately small: one target table, optional many-to-one joins or one-to-many (NOT) EXISTS
filters along a single declared foreign key, value / number / time filters, optional GROUP BY (by columns,
time buckets or per row of a referenced table), COUNT / SUM / AVG / MAX / MIN or a plain listing, and an
optional top-N ranking. Anything else raises ``Refusal``: a wrong answer is worse than none.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import date

from core.fallback._joins import links_for, per_entity, table_key
from core.fallback._model import ColRef, Condition, Group, Link, Measure, PerEntity, Plan, Ranking, Refusal
from core.fallback._roles import Item, Roles, assign_roles, date_cols, numeric_cols, scan
from core.fallback._text import Meaning, is_date_type, is_numeric_type, is_text_type, split_name
from core.schema import Column, Schema, Table

__all__ = ["ColRef", "Condition", "Group", "Link", "Measure", "PerEntity", "Plan", "Ranking", "Refusal",
           "plan_question"]  # fmt: skip

logger = logging.getLogger(__name__)

_key = table_key


def _pick(cands: list[Meaning], target: Table | None, mentioned: set[str], near: set[str]) -> list[Meaning]:
    """Prefer readings on the target, then on tables the question names, then on FK neighbours."""
    pools = []
    if target is not None:
        pools.append({_key(target)})
    pools += [mentioned, near]
    for pool in pools:
        sel = [m for m in cands if m.table is not None and _key(m.table) in pool]
        if sel:
            return sel
    return cands


def _one_col(cands: list[Meaning], what: str, *args: object) -> ColRef:
    chosen = _pick(cands, *args)  # type: ignore[arg-type]
    cols = {(_key(m.table), m.column.name): m for m in chosen if m.table and m.column}
    if len(cols) != 1:
        names = sorted(f"{t}.{c}" for t, c in cols)
        raise Refusal(f"{what} is ambiguous: {', '.join(names) or 'nothing'}")
    m = next(iter(cols.values()))
    assert m.table is not None and m.column is not None
    return ColRef(m.table, m.column)


def _is_total_name(col: Column) -> bool:
    words = split_name(col.name)
    return bool(words) and words[0] in ("total", "sum")


def _one_table(it: Item) -> Table:
    ts = {_key(m.table): m.table for m in it.schema("table") if m.table}
    if len(ts) != 1:
        raise Refusal(f"{it.text!r} names several tables")
    return next(iter(ts.values()))


@dataclass(frozen=True)
class _RankOut:
    """What a ranking sorts by once its words are resolved: a column, a date of ``date_of``, or the measure."""

    n: int
    desc: bool
    ties: bool
    key: ColRef | None = None
    date_of: Table | None = None


def _measure_op(rank_agg: str | None, key: Item) -> str:
    """The aggregate a ranking of many rows by a column needs: named ("average"), or SUM of a total column."""
    if rank_agg is not None:
        return rank_agg
    cols = [m.column for m in numeric_cols(key) if m.column]
    if cols and all(_is_total_name(c) for c in cols):
        return "sum"
    raise Refusal(f"ranking by {key.text!r} needs a total, an average or a count")


def _apply_rank(st: Roles, items: list[Item]) -> _RankOut | None:
    """Turn a top-N / which-most request into groups, measures and a sort key, or refuse."""
    rank = st.rank
    if rank is None:
        return None
    if rank.n is None or rank.direction is None:
        raise Refusal("a number of rows without 'top', 'most', 'highest' or 'lowest'")
    if not rank.has_key():
        raise Refusal("a ranking without a number, a date or a count to sort by")
    subject = next(
        (it for it in items if it.pos > rank.anchor and not it.used and it.kind == "m"
         and it is not rank.count_item and (it.schema("table") or it.schema("column"))),
        None,
    )  # fmt: skip
    if subject is None:
        raise Refusal("a ranking of nothing named")
    desc = rank.direction == "desc"
    first = rank.direction == "first"
    out = _RankOut(rank.n, desc, rank.ties)
    subject_table = _one_table(subject) if subject.schema("table") else None
    if rank.key_date:
        if subject_table is None:
            raise Refusal("'most recent' of a column")
        return _RankOut(rank.n, desc, rank.ties, date_of=subject_table)
    measured = rank.key_count or (
        rank.key_col is not None
        and (rank.key_agg is not None or subject_table is None
             or not any(m.table and _key(m.table) == _key(subject_table)
                        for m in numeric_cols(rank.key_col) + date_cols(rank.key_col)))
    )  # fmt: skip
    if not measured:
        assert rank.key_col is not None and subject_table is not None
        cands = [m for m in numeric_cols(rank.key_col) + date_cols(rank.key_col)
                 if m.table and _key(m.table) == _key(subject_table)]  # fmt: skip
        key = _one_col(cands, f"{rank.key_col.text!r}", subject_table, set(), set())
        if first and is_numeric_type(key.column.type):
            raise Refusal("'first N by' a number: highest or lowest?")
        return _RankOut(rank.n, desc or False, rank.ties, key=key)
    if first:
        raise Refusal("'first N by' a total or count: highest or lowest?")
    if rank.key_count:
        if subject_table is not None:
            if rank.count_item is None or _key(_one_table(rank.count_item)) == _key(subject_table):
                raise Refusal(f"counting {subject.text!r} per {subject.text!r}")
            st.pers.append(subject)
        else:
            st.groups.append((subject, None))
        st.count = True
    else:
        assert rank.key_col is not None
        st.measures.append((_measure_op(rank.key_agg, rank.key_col), rank.key_col))
        if subject_table is not None:
            st.pers.append(subject)
        else:
            st.groups.append((subject, None))
    subject.used = True
    return out


def plan_question(question: str, schema: Schema, today: date) -> Plan:
    """The plan for ``question``, or Refusal saying what was not understood."""
    items = scan(question, schema, today)
    st = assign_roles(items)
    ranked = _apply_rank(st, items)
    free = [it for it in items if not it.used]
    literal_items = {id(it) for it, _, _ in st.literal}
    tables: list[Item] = []
    columns: list[Item] = []
    values: list[Item] = []
    for it in free:
        if it.schema("table"):
            tables.append(it)
        elif it.schema("column"):
            if id(it) not in literal_items:
                columns.append(it)
        elif it.schema("value"):
            values.append(it)
    for it, _, kind in st.literal:
        if kind == "number" and it.schema("table") and it not in tables:
            tables.append(it)
    mentioned: dict[str, Table] = {}
    for it in tables:
        t = _one_table(it)
        mentioned[_key(t)] = t
    for p in st.ands:
        a, b = (items[p - 1] if p > 0 else None), (items[p + 1] if p + 1 < len(items) else None)
        if a in tables and b in tables:
            raise Refusal("two tables joined by 'and'")
    if len(st.pers) > 1:
        raise Refusal("grouped per rows of two tables")
    per_table = _one_table(st.pers[0]) if st.pers else None
    if per_table is not None:
        mentioned.pop(_key(per_table), None)
        tables = [it for it in tables if _key(_one_table(it)) != _key(per_table)]
    m_keys = set(mentioned)
    grouped = bool(st.groups or st.pers)

    # Measures named by a column ("total amount") when nothing else asks for one.
    measures: list[Measure] = []
    for op, it in st.measures:
        assert it is not None
        measures.append(Measure(op, _one_col(numeric_cols(it), f"{it.text!r}", None, m_keys, set())))
    if not measures and not st.count and (not (st.listing or st.which) or grouped):
        for it in list(columns):
            nums = [m for m in numeric_cols(it) if m.column and (st.total or _is_total_name(m.column))]
            if nums:
                measures.append(Measure("sum", _one_col(nums, f"{it.text!r}", None, m_keys, set())))
                columns.remove(it)
    if st.which and ranked is None and any(m.op in ("max", "min") for m in measures):
        raise Refusal("'which ... highest/lowest' needs the row with the extreme value")

    # The target: the measured table, else the first table named, else the table of the first column named.
    target: Table | None = None
    if measures:
        mt = {_key(m.col.table): m.col.table for m in measures if m.col}
        if len(mt) != 1:
            raise Refusal("measures from several tables")
        target = next(iter(mt.values()))
    elif tables:
        target = mentioned[_key(_one_table(tables[0]))]
    elif columns:
        target = _one_col(columns[0].schema("column"), f"{columns[0].text!r}", None, m_keys, set()).table
    elif st.groups and st.groups[0][1] is None and ranked is not None:  # "top 5 cities by count"
        target = _one_col(st.groups[0][0].schema("column"), f"{st.groups[0][0].text!r}", None, m_keys, set()).table
    if target is None:
        raise Refusal("no table named")
    near = {n.lower() for n in schema.neighbours(target.qualified_name)}
    ctx = (target, m_keys, near)
    conditions = _value_conditions(st, items, values, columns, ctx)
    conditions += _literal_conditions(st, mentioned, ctx)
    for it, op, nums, _ in st.numeric:
        assert it is not None
        conditions.append(Condition(_one_col(numeric_cols(it), f"{it.text!r}", *ctx), op, nums))

    groups: list[Group] = []
    time_groups: list[str] = []
    for it, unit in st.groups:
        if unit is None:
            groups.append(Group(_one_col(it.schema("column"), f"{it.text!r}", *ctx)))
        else:
            time_groups.append(unit)

    # Columns still unexplained: a listing's columns, or "how many <column>" = distinct values.
    projection: list[ColRef] = []
    distinct = st.distinct
    if columns:
        cols = [_one_col(it.schema("column"), f"{it.text!r}", *ctx) for it in columns]
        if measures or grouped or time_groups:
            raise Refusal("columns named beside an aggregate")
        if st.count:
            if len(cols) != 1:
                raise Refusal("count of several columns")
            measures.append(Measure("count_distinct", cols[0]))
        else:
            projection = cols
            if len(cols) == 1 and cols[0].column.value_hints and not tables:
                distinct = True
    elif measures:
        pass
    elif st.count or st.total or (grouped and not (st.listing or st.which)):
        measures.append(Measure("count"))
    elif grouped:
        raise Refusal("a listing grouped by a column")
    if st.distinct and measures and any(m.op == "count" for m in measures):
        raise Refusal("'distinct' without a column")

    per = per_entity(schema, target, per_table) if per_table is not None else None
    if per is not None and (groups or time_groups or projection or distinct):
        raise Refusal("per-row totals mixed with other groupings")
    negated = frozenset(_key(_one_table(it)) for it in st.negated)
    if any(_key(_one_table(it)) in negated for it in tables if it not in st.negated):
        raise Refusal("a table named both with and without")
    skip = _key(per_table) if per_table is not None else None

    def links() -> list[Link]:
        found = links_for(schema, target, mentioned, conditions, groups, projection, measures, negated, skip)
        if per is not None and found:
            raise Refusal("per-row totals that need a third table")
        return found

    found_links = links()
    involved = [target] + [lk.table for lk in found_links] + ([per.table] if per else [])

    def date_col(qual: Item | None) -> ColRef:
        if qual is not None:
            return _one_col(date_cols(qual), f"{qual.text!r}", *ctx)
        for pool in ([target], involved[1:]):
            found = [ColRef(t, c) for t in pool for c in t.columns if is_date_type(c.type)]
            if len(found) == 1:
                return found[0]
            if found:
                raise Refusal(f"several date columns: {', '.join(c.column.name for c in found)}")
        raise Refusal("no date column for a time phrase")

    for it, qual in st.times:
        assert it.range is not None
        dc = date_col(qual)
        conditions.append(Condition(dc, "range", (it.range.start, it.range.end), it.range.label))
    for unit in time_groups:
        groups.append(Group(date_col(None), unit))
    if any(g.unit for g in groups) or st.times:
        found_links = links()
    if not measures and not projection and not tables:
        raise Refusal("nothing to list")
    ranking = _ranking(ranked, target, measures)
    return Plan(target, tuple(measures), tuple(projection), distinct, tuple(conditions), tuple(groups),
                tuple(found_links), per, ranking)  # fmt: skip


def _ranking(ranked: _RankOut | None, target: Table, measures: list[Measure]) -> Ranking | None:
    if ranked is None:
        return None
    if ranked.date_of is not None or ranked.key is not None:
        if measures:
            raise Refusal("a ranking of rows beside an aggregate")
        if ranked.date_of is not None:
            if _key(ranked.date_of) != _key(target):
                raise Refusal("'most recent' of another table")
            found = [c for c in target.columns if is_date_type(c.type)]
            if len(found) != 1:
                raise Refusal(f"'most recent' needs one date column in {target.name}, found {len(found)}")
            key = ColRef(target, found[0])
        else:
            assert ranked.key is not None
            key = ranked.key
            if _key(key.table) != _key(target):
                raise Refusal("a ranking by a column of another table")
        return Ranking(key, ranked.desc, ranked.n, ranked.ties)
    if len(measures) != 1:
        raise Refusal("a ranking needs exactly one total or count")
    return Ranking(None, ranked.desc, ranked.n, ranked.ties)


def _value_conditions(
    st: Roles, items: list[Item], values: list[Item], columns: list[Item], ctx: tuple[Table, set[str], set[str]]
) -> list[Condition]:
    """Values, each narrowed by an adjacent column name ("status delivered", "country 'India'")."""
    by_col: dict[tuple[str, str], tuple[ColRef, list[str]]] = {}
    value_cols: dict[int, tuple[str, str]] = {}
    for it in values:
        cands = it.schema("value")
        for adj in (items[it.pos - 1] if it.pos > 0 else None, items[it.pos + 1] if it.pos + 1 < len(items) else None):
            if adj in columns:
                cols = {(_key(m.table), m.column.name) for m in adj.schema("column") if m.table and m.column}
                narrowed = [m for m in cands if m.table and m.column and (_key(m.table), m.column.name) in cols]
                if narrowed:
                    cands = narrowed
                    columns.remove(adj)
                    break
        col = _one_col(cands, f"value {it.text!r}", *ctx)
        key = (_key(col.table), col.column.name)
        vals = sorted({m.value for m in _pick(cands, *ctx) if m.value is not None and m.column == col.column})
        entry = by_col.setdefault(key, (col, []))
        entry[1].extend(v for v in vals if v not in entry[1])
        value_cols[it.pos] = key
    for p in st.ors:
        a, b = value_cols.get(p - 1), value_cols.get(p + 1)
        if a is None or a != b:
            raise Refusal("'or' between things other than two values of one column")
    return [Condition(col, "in", tuple(vals)) for col, vals in by_col.values()]


def _literal_conditions(
    st: Roles, mentioned: dict[str, Table], ctx: tuple[Table, set[str], set[str]]
) -> list[Condition]:
    """ "city 'Delhi'", "customer 42": a literal right after the column (or table, for its key) it belongs to."""
    out: list[Condition] = []
    for it, value, kind in st.literal:
        if it.schema("column"):
            col = _one_col(it.schema("column"), f"{it.text!r}", *ctx)
            if kind == "number" and is_numeric_type(col.column.type):
                out.append(Condition(col, "=", (value,)))
            elif kind == "quoted" and is_text_type(col.column.type):
                out.append(Condition(col, "in", (value,)))
            else:
                raise Refusal(f"cannot compare {col.column.name} with {value!r}")
        else:
            t = mentioned.get(_key(_one_table(it)))
            if t is None:
                raise Refusal(f"{it.text} {value!r} is not a filter")
            pk = [t.column(c) for c in t.primary_key]
            if kind != "number" or len(pk) != 1 or pk[0] is None or not is_numeric_type(pk[0].type):
                raise Refusal(f"{it.text} {value!r} does not name a row by its key")
            out.append(Condition(ColRef(t, pk[0]), "=", (value,)))
    return out
