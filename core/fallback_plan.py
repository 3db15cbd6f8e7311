"""Turn a question into a query plan, or refuse: every word must be explained by the schema or a known phrase.

The plan is deliberately small: one target table, optional many-to-one joins or one-to-many EXISTS filters
along a single declared foreign key, value / number / time filters, optional GROUP BY, and COUNT / SUM /
AVG / MAX / MIN or a plain listing. Anything else raises ``Refusal``: a wrong answer is worse than none.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import date

from core.fallback_text import (
    KEYWORDS,
    Matcher,
    Meaning,
    Mention,
    Token,
    is_date_type,
    is_numeric_type,
    is_text_type,
    split_name,
    tokenize,
)
from core.fallback_time import DateRange, match_time
from core.schema import Column, ForeignKey, Schema, Table

__all__ = ["ColRef", "Condition", "Group", "Link", "Measure", "Plan", "Refusal", "plan_question"]

logger = logging.getLogger(__name__)

_STOP = {k[0] for k, v in KEYWORDS.items() if len(k) == 1 and ("stop", "") in v}


_STRUCTURAL = {"count", "list", "which", "what", "and", "or", "distinct"}


class Refusal(Exception):
    """The question is not understood with confidence; the message says which part."""


@dataclass(frozen=True)
class ColRef:
    table: Table
    column: Column


@dataclass(frozen=True)
class Condition:
    col: ColRef
    op: str  # "in" (text values), "=", ">", ">=", "<", "<=", "between", "range" (dates)
    values: tuple[object, ...]
    label: str = ""  # for time ranges: the phrase as understood


@dataclass(frozen=True)
class Measure:
    op: str  # "count" | "count_distinct" | "sum" | "avg" | "max" | "min"
    col: ColRef | None = None


@dataclass(frozen=True)
class Group:
    col: ColRef
    unit: str | None = None  # time bucket for a date column: day/week/month/quarter/year


@dataclass(frozen=True)
class Link:
    """How a second table reaches the target along one foreign key."""

    table: Table
    kind: str  # "join" (target -> table, many-to-one) | "exists" (table -> target, one-to-many)
    fk: ForeignKey


@dataclass(frozen=True)
class Plan:
    target: Table
    measures: tuple[Measure, ...]  # empty: a listing
    projection: tuple[ColRef, ...]  # listing columns; empty: all columns of the target
    distinct: bool
    conditions: tuple[Condition, ...]
    groups: tuple[Group, ...]
    links: tuple[Link, ...]


@dataclass
class _Item:
    pos: int
    kind: str  # "m" (mention) | "time" | "number" | "quoted"
    mention: Mention | None = None
    range: DateRange | None = None
    number: float | None = None
    text: str = ""
    used: bool = False

    def kws(self) -> dict[str, Meaning]:
        return {m.kw: m for m in self.mention.of("kw")} if self.mention else {}

    def schema(self, kind: str) -> list[Meaning]:
        return self.mention.of(kind) if self.mention else []


@dataclass
class _State:
    count: bool = False
    listing: bool = False
    which: bool = False
    distinct: bool = False
    total: bool = False
    measures: list[tuple[str, _Item | None]] = field(default_factory=list)
    groups: list[tuple[_Item, str | None]] = field(default_factory=list)  # (mention, time unit)
    numeric: list[tuple[_Item | None, str, tuple[float, ...], int]] = field(default_factory=list)
    literal: list[tuple[_Item, object, str]] = field(default_factory=list)  # (column/table item, value, how)
    times: list[tuple[_Item, _Item | None]] = field(default_factory=list)
    ors: list[int] = field(default_factory=list)
    ands: list[int] = field(default_factory=list)


def _scan(question: str, schema: Schema, today: date) -> list[_Item]:
    tokens: list[Token] = tokenize(question)
    if not tokens:
        raise Refusal("empty question")
    matcher = Matcher(schema)
    items: list[_Item] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        timed = match_time(tokens, i, today)
        if timed is not None:
            items.append(_Item(len(items), "time", range=timed[1]))
            i = timed[0]
            continue
        if tok.kind == "number":
            items.append(_Item(len(items), "number", number=tok.number, text=tok.text))
            i += 1
            continue
        if tok.kind == "quoted":
            items.append(_Item(len(items), "quoted", text=tok.raw))
            i += 1
            continue
        mention = matcher.match_at(tokens, i) if tok.kind in ("word", "op") else None
        if mention is None:
            raise Refusal(f"unexplained word {tok.text!r}")
        meanings = mention.meanings
        is_stop = any(m.kind == "kw" and m.kw == "stop" for m in meanings)
        has_struct = any(m.kind in ("table", "column") for m in meanings)
        if is_stop and (not has_struct or (mention.end - mention.start == 1 and tok.text in _STOP)):
            i = mention.end  # a stop word, even if it is also a short value such as 'IN'
            continue
        text = " ".join(t.text for t in tokens[mention.start : mention.end])
        items.append(_Item(len(items), "m", mention=mention, text=text))
        i = mention.end
    return items


def _numeric_cols(item: _Item | None) -> list[Meaning]:
    return [m for m in (item.schema("column") if item else []) if m.column and is_numeric_type(m.column.type)]


def _parse(items: list[_Item]) -> _State:
    """Assign a role to every item; raise Refusal for anything left over."""
    st = _State()
    n = len(items)

    def at(p: int) -> _Item | None:
        return items[p] if 0 <= p < n else None

    p = 0
    while p < n:
        it = items[p]
        if it.used:
            p += 1
            continue
        if it.kind == "time":
            prev = at(p - 1)
            qual = prev if prev and not prev.used and any(
                m.column and is_date_type(m.column.type) for m in prev.schema("column")) else None
            if qual is not None:
                qual.used = True
            st.times.append((it, qual))
            it.used = True
            p += 1
            continue
        if it.kind in ("number", "quoted"):
            prev = at(p - 1)
            if prev is not None and prev.kind == "m" and (prev.schema("column") or prev.schema("table")):
                st.literal.append((prev, it.number if it.kind == "number" else it.text, it.kind))
                it.used = True
                p += 1
                continue
            raise Refusal(f"unexplained literal {it.text!r}")
        kws = it.kws()
        has_schema = bool(it.schema("table") or it.schema("column") or it.schema("value"))
        nxt = at(p + 1)
        if "cmp" in kws or "between" in kws:
            nums: list[float] = []
            q = p + 1
            while q < n and items[q].kind == "number" and len(nums) < (2 if "between" in kws else 1):
                nums.append(items[q].number or 0.0)
                q += 1
                if "between" in kws and len(nums) == 1 and q < n and "and" in items[q].kws():
                    q += 1
            want = 2 if "between" in kws else 1
            if len(nums) != want:
                raise Refusal("a comparison without a number")
            op = "between" if "between" in kws else kws["cmp"].arg
            prev = at(p - 1)
            target: _Item | None = None
            if prev is not None and not prev.used and _numeric_cols(prev):
                target = prev
            elif q < n and _numeric_cols(items[q]) and not items[q].used:
                target = items[q]
                q += 1
            if target is None:
                raise Refusal("a comparison that names no numeric column")
            target.used = True
            st.numeric.append((target, op, tuple(nums), p))
            for k in range(p, q):
                items[k].used = True
            p = q
            continue
        if "group" in kws and nxt is not None and nxt.kind == "m":
            nk = nxt.kws()
            if nxt.schema("column"):
                st.groups.append((nxt, None))
            elif "timeunit" in nk:
                st.groups.append((nxt, nk["timeunit"].arg))
            elif nxt.schema("table"):
                if it.text == "by":  # "placed by customers": not a grouping
                    it.used = True
                    p += 1
                    continue
                raise Refusal("grouping by a whole table is not supported")
            else:
                raise Refusal("'per'/'by' is not followed by a column")
            it.used = nxt.used = True
            p += 2
            continue
        agg = kws.get("agg")
        if agg is not None or "total" in kws or "howmuch" in kws:
            if nxt is not None and _numeric_cols(nxt) and not nxt.used:
                st.measures.append((agg.arg if agg else "sum", nxt))
                it.used = nxt.used = True
                p += 2
                continue
            if "total" in kws and not has_schema:
                st.total = True
                it.used = True
                p += 1
                continue
            if not has_schema:
                raise Refusal("an aggregate without a numeric column")
        if not has_schema or kws.keys() & _STRUCTURAL:
            if "count" in kws:
                st.count = True
            elif "list" in kws:
                st.listing = True
            elif "which" in kws:
                st.which = True
            elif "what" in kws:
                pass
            elif "distinct" in kws:
                st.distinct = True
            elif "and" in kws:
                st.ands.append(p)
            elif "or" in kws:
                st.ors.append(p)
            else:
                raise Refusal(f"unexpected word {it.text!r}")
            it.used = True
        p += 1
    return st




def _key(t: Table) -> str:
    return t.qualified_name.lower()


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


def plan_question(question: str, schema: Schema, today: date) -> Plan:
    """The plan for ``question``, or Refusal saying what was not understood."""
    items = _scan(question, schema, today)
    st = _parse(items)
    free = [it for it in items if not it.used]
    literal_items = {id(it) for it, _, _ in st.literal}
    tables: list[_Item] = []
    columns: list[_Item] = []
    values: list[_Item] = []
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
        ts = {_key(m.table): m.table for m in it.schema("table") if m.table}
        if len(ts) != 1:
            raise Refusal(f"{it.text!r} names several tables")
        mentioned.update(ts)
    for p in st.ands:
        a, b = (items[p - 1] if p > 0 else None), (items[p + 1] if p + 1 < len(items) else None)
        if a in tables and b in tables:
            raise Refusal("two tables joined by 'and'")
    m_keys = set(mentioned)

    # Measures named by a column ("total amount") when nothing else asks for one.
    measures: list[Measure] = []
    for op, it in st.measures:
        assert it is not None
        measures.append(Measure(op, _one_col(_numeric_cols(it), f"{it.text!r}", None, m_keys, set())))
    if not measures and not st.count and (not (st.listing or st.which) or st.groups):
        for it in list(columns):
            nums = [m for m in _numeric_cols(it) if m.column and (st.total or _is_total_name(m.column))]
            if nums:
                measures.append(Measure("sum", _one_col(nums, f"{it.text!r}", None, m_keys, set())))
                columns.remove(it)
    if st.which and any(m.op in ("max", "min") for m in measures):
        raise Refusal("'which ... highest/lowest' needs the row with the extreme value")

    # The target: the measured table, else the first table named, else the table of the first column named.
    target: Table | None = None
    if measures:
        mt = {_key(m.col.table): m.col.table for m in measures if m.col}
        if len(mt) != 1:
            raise Refusal("measures from several tables")
        target = next(iter(mt.values()))
    elif tables:
        target = mentioned[next(_key(m.table) for m in tables[0].schema("table") if m.table)]
    elif columns:
        target = _one_col(columns[0].schema("column"), f"{columns[0].text!r}", None, m_keys, set()).table
    if target is None:
        raise Refusal("no table named")
    near = {n.lower() for n in schema.neighbours(target.qualified_name)}
    ctx = (target, m_keys, near)

    conditions: list[Condition] = []
    # Values, each narrowed by an adjacent column name ("status delivered", "country 'India'").
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
    for col, vals in by_col.values():
        conditions.append(Condition(col, "in", tuple(vals)))

    for it, value, kind in st.literal:
        if it.schema("column"):
            col = _one_col(it.schema("column"), f"{it.text!r}", *ctx)
            if kind == "number" and is_numeric_type(col.column.type):
                conditions.append(Condition(col, "=", (value,)))
            elif kind == "quoted" and is_text_type(col.column.type):
                conditions.append(Condition(col, "in", (value,)))
            else:
                raise Refusal(f"cannot compare {col.column.name} with {value!r}")
        else:
            t = mentioned[_key(next(m.table for m in it.schema("table") if m.table))]
            pk = [t.column(c) for c in t.primary_key]
            if kind != "number" or len(pk) != 1 or pk[0] is None or not is_numeric_type(pk[0].type):
                raise Refusal(f"{it.text} {value!r} does not name a row by its key")
            conditions.append(Condition(ColRef(t, pk[0]), "=", (value,)))

    for it, op, nums, _ in st.numeric:
        assert it is not None
        col = _one_col(_numeric_cols(it), f"{it.text!r}", *ctx)
        conditions.append(Condition(col, op, nums))

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
        if measures or groups or time_groups:
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
    elif st.count or st.total or (st.groups and not (st.listing or st.which)):
        measures.append(Measure("count"))
    elif st.groups:
        raise Refusal("a listing grouped by a column")
    if st.distinct and measures and any(m.op == "count" for m in measures):
        raise Refusal("'distinct' without a column")

    links = _links(schema, target, mentioned, conditions, groups, projection, measures)
    involved = [target] + [lk.table for lk in links]

    def date_col(qual: _Item | None) -> ColRef:
        if qual is not None:
            return _one_col([m for m in qual.schema("column") if m.column and is_date_type(m.column.type)],
                            f"{qual.text!r}", *ctx)
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
        links = _links(schema, target, mentioned, conditions, groups, projection, measures)
    if not measures and not projection and not tables:
        raise Refusal("nothing to list")
    return Plan(target, tuple(measures), tuple(projection), distinct, tuple(conditions), tuple(groups),
                tuple(links))


def _links(
    schema: Schema,
    target: Table,
    mentioned: dict[str, Table],
    conditions: list[Condition],
    groups: list[Group],
    projection: list[ColRef],
    measures: list[Measure],
) -> list[Link]:
    """One foreign key between the target and each other table, or Refusal."""
    shown = {_key(c.table) for c in projection} | {_key(g.col.table) for g in groups}
    shown |= {_key(m.col.table) for m in measures if m.col}
    filtered = {_key(c.col.table) for c in conditions}
    others: dict[str, Table] = dict(mentioned)
    for c in [*projection, *(g.col for g in groups), *(m.col for m in measures if m.col),
              *(c.col for c in conditions)]:
        others[_key(c.table)] = c.table
    others.pop(_key(target), None)
    links: list[Link] = []
    for key, t in others.items():
        out = [fk for fk in target.foreign_keys if (r := schema.table(fk.ref_table)) and _key(r) == key]
        inc = [fk for fk in t.foreign_keys if (r := schema.table(fk.ref_table)) and _key(r) == _key(target)]
        if len(out) + len(inc) != 1:
            raise Refusal(f"no single foreign key between {target.name} and {t.name}")
        if out:
            if not t.is_unique(out[0].ref_columns):
                raise Refusal(f"{t.name}.{','.join(out[0].ref_columns)} is not unique")
            if key in shown or key in filtered:
                links.append(Link(t, "join", out[0]))
            # a table only named ("orders that customers placed") needs no join
        else:
            if key in shown:
                raise Refusal(f"showing {t.name} columns per {target.name} would repeat rows")
            links.append(Link(t, "exists", inc[0]))
    return links
