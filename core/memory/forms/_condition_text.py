"""A condition in plain words -> atoms on real columns, each with its polarity, combined into one boolean SQL.

"customers from Sweden, Norway and Denmark", "orders over 5000 that are not cancelled", "customers with more
than 10 orders", "e-mails ending in @example.com", "amount between 100 and 500". Every value named is kept
(looked up in its column, unknown ones flagged); words that map onto nothing are reported as ``leftover`` so a
caller can refuse a partial form.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from core.memory.forms._atom_text import (
    _AFFIX_RE,
    _BETWEEN_RE,
    _BOUNDARY,
    _DOMAIN_RE,
    EMAIL_RE,
    _SUFFIX_RE,
    CMP_OPS,
    CMP_RE,
    FILLER,
    INVERT,
    Atom,
    _col_atom,
    _fk,
    _name_words,
    _Text,
    _tokens,
    number_of,
)
from core.memory.enforcement import escape_like, sql_literal
from core.memory.forms._schema_match import (
    OP_BUILDERS,
    Lookup,
    column_expr,
    is_numeric,
    mentioned_tables,
    named_columns,
    pick_column,
)
from core.memory.forms._value_text import value_atoms
from core.memory.kernel import GENERIC_COL_WORDS, NEGATION, currency_spans, singular
from core.schema import Column, Schema, Table

__all__ = ["Condition", "duration_columns", "lift", "parse_condition"]


@dataclass
class Condition:
    expr: exp.Expression
    table: Table
    atoms: list[Atom]
    leftover: list[str]
    unknown: list[str]

    def sql(self, dialect: str) -> str:
        return self.expr.sql(dialect=dialect)

    @property
    def columns(self) -> list[str]:
        return sorted({f"{a.table.qualified_name}.{a.column.name}" for a in self.atoms if a.column is not None})


# --- tokens and clauses --------------------------------------------------------------------------------------


def _clauses(t: _Text) -> list[int]:
    """Clause number of each token: a new clause after , ; but and or that which who with ..."""
    cuts = [m.start() for m in _BOUNDARY.finditer(t.text)]
    return [sum(1 for c in cuts if c < s) for _w, s, _e in t.toks]


# --- atoms ---------------------------------------------------------------------------------------------------


def _related(anchor: Table, schema: Schema, tw: list[str], lo: int, hi: int) -> Table | None:
    """A table named in tokens lo..hi whose rows point at ``anchor`` (orders of a customer)."""
    for t in schema.tables:
        if t is anchor or _fk(t, anchor) is None:
            continue
        name = [singular(w) for w in re.findall(r"[a-z0-9]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", t.name).lower())]
        if any(tw[i : i + len(name)] == name for i in range(lo, hi)):
            return t
    return None


def _group_atom(anchor: Table, child: Table, agg: exp.Expression | None, op: str, number: Any,
                span: tuple[int, int], dialect: str) -> Atom | None:  # fmt: skip
    """anchor.pk IN (SELECT fk FROM child GROUP BY fk HAVING agg op number); no/zero -> NOT IN."""
    link = _fk(child, anchor)
    if link is None:
        return None
    fk_col, pk_col = link
    fk_expr = column_expr(child.qualified_name, fk_col, dialect)
    sub = exp.select(fk_expr).from_(exp.to_table(child.qualified_name))
    outer = column_expr(anchor.qualified_name, pk_col, dialect)
    if agg is None and ((op == "=" and number == 0) or (op == "<" and number == 1) or (op == "<=" and number == 0)):
        return Atom(anchor, exp.Not(this=exp.In(this=outer, query=sub.subquery())), span, fixed=True)
    having = OP_BUILDERS[op](this=agg if agg is not None else exp.Count(this=exp.Star()), expression=sql_literal(number))
    sub = sub.group_by(fk_expr).having(having)
    if op in ("<", "<=") or (op == "=" and number == 0):  # customers with fewer than 3 orders include those with none
        sub2 = exp.select(fk_expr).from_(exp.to_table(child.qualified_name)).group_by(fk_expr).having(
            OP_BUILDERS[INVERT[op]](this=having.this.copy(), expression=sql_literal(number)))
        return Atom(anchor, exp.Not(this=exp.In(this=outer, query=sub2.subquery())), span)
    return Atom(anchor, exp.In(this=outer, query=sub.subquery()), span)


def lift(atom: Atom, anchor: Table, dialect: str) -> exp.Expression | None:
    """``atom`` as a condition on ``anchor`` rows: itself, or through a one-column foreign key either way."""
    if atom.table is anchor:
        return atom.expr
    link = _fk(anchor, atom.table)  # orders -> customers: orders.customer_id IN (SELECT customer_id ...)
    if link is not None:
        fk_col, pk_col = link
        sub = exp.select(column_expr(atom.table.qualified_name, pk_col, dialect)).from_(
            exp.to_table(atom.table.qualified_name)).where(atom.expr.copy())
        return exp.In(this=column_expr(anchor.qualified_name, fk_col, dialect), query=sub.subquery())
    link = _fk(atom.table, anchor)  # customers <- orders
    if link is not None:
        fk_col, pk_col = link
        sub = exp.select(column_expr(atom.table.qualified_name, fk_col, dialect)).from_(
            exp.to_table(atom.table.qualified_name)).where(atom.expr.copy())
        return exp.In(this=column_expr(anchor.qualified_name, pk_col, dialect), query=sub.subquery())
    return None


def _numeric_column(t: _Text, schema: Schema, lo: int, hi: int, scope: list[Table],
                    infer: bool) -> tuple[Table, Column] | None:  # fmt: skip
    tw = t.words
    mentioned = {s.qualified_name for s in scope}
    for a, b in ((lo, hi), (0, len(tw))):
        picked = pick_column(named_columns(tw[a:b], schema, numeric=True), mentioned)
        if picked is not None:
            return picked
    money = bool(re.search(r"\b(?:value|amount|revenue|spend|spent|price|worth|total|sales)\b", t.text, re.I))
    if (infer or money) and len(scope) >= 1:
        cols = [(s, c) for s in scope[:1] for c in s.columns if is_numeric(c) and c.name not in s.primary_key
                and not any(w in GENERIC_COL_WORDS for w in re.findall(r"[a-z]+", c.name.lower())[-1:])
                and not c.name.lower().endswith("id")]  # fmt: skip
        if len(cols) == 1:
            return cols[0]
    return None


_SECONDS = {"ms": 0.001, "millisecond": 0.001, "milli": 0.001, "msec": 0.001, "second": 1, "sec": 1, "s": 1,
            "minute": 60, "min": 60, "hour": 3600, "hr": 3600, "h": 3600, "day": 86400}
_UNIT_AFTER = re.compile(r"\s*(?P<u>milliseconds?|millis|msecs?|ms|seconds?|secs?|minutes?|mins?|hours?|hrs?)\b",
                         re.IGNORECASE)


_RESTATED = re.compile(r"\s*\(\s*(?P<n>\d[\d,]*(?:\.\d+)?)\s*(?P<u>milliseconds?|millis|msecs?|ms|seconds?|secs?|minutes?|"
                       r"mins?|hours?|hrs?)\s*\)", re.IGNORECASE)


def _unit_seconds(word: str) -> float | None:
    w = word.lower()
    return _SECONDS.get(w) or _SECONDS.get(w.rstrip("s")) or (0.001 if w == "millis" else None)


def duration_columns(schema: Schema, scope: list[Table]) -> list[tuple[Table, Column, float]]:
    """(table, column, seconds per unit) of the numeric columns whose name gives a time unit (Milliseconds)."""
    owned = []
    for table in scope or list(schema.tables):
        for col in table.columns:
            if not is_numeric(col):
                continue
            parts = re.findall(r"[a-z]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", col.name).lower())
            units = [u for u in (_unit_seconds(p) for p in parts if p not in ("s", "h", "min")) if u]
            if units:
                owned.append((table, col, units[-1]))
    return owned


def _duration(t: _Text, at: int, schema: Schema, scope: list[Table],
              number: float) -> tuple[tuple[Table, Column], float, int] | None:  # fmt: skip
    """A number followed by a time unit, on the one numeric column whose name gives a time unit, converted to
    that unit ("6 minutes" on Milliseconds -> 360000). None when no unit follows or no such column is clear."""
    unit = _UNIT_AFTER.match(t.text, at)
    if unit is None:
        return None
    said = _unit_seconds(unit.group("u"))
    owned = duration_columns(schema, scope)
    if said is None or len(owned) != 1:
        return None
    table, col, per = owned[0]
    value = number * said / per
    end = unit.end()
    restated = _RESTATED.match(t.text, end)  # "over 6 minutes (360000 ms)": the same bound said twice
    if restated and _unit_seconds(restated.group("u")) and float(restated.group("n").replace(",", "")) * (
            _unit_seconds(restated.group("u")) or 0) == number * said:  # fmt: skip
        end = restated.end()
    return (table, col), int(value) if float(value).is_integer() else value, end


def parse_condition(text: str, schema: Schema, lookup: Lookup | None = None, *, anchor: str | None = None,
                    infer: bool = True, context: str = "") -> Condition | None:  # fmt: skip
    """Atoms of ``text`` combined on one table (the anchor: named by the caller, else the one mentioned).

    ``context`` (a term's name: "tier-1 cities") may name the table or the column the values belong to."""
    t = _tokens(text)
    tw = t.words
    cw = _tokens(context).words if context else []
    mentioned = [s for s in schema.tables if s.qualified_name in mentioned_tables(tw + cw, schema)]
    if not mentioned and cw:
        named = {s.qualified_name for s, _c, strength in named_columns(cw, schema, numeric=False) if strength == 2}
        mentioned = [s for s in schema.tables if s.qualified_name in named]
    anchor_t = schema.table(anchor) if anchor else None
    if anchor_t is None and mentioned:
        anchor_t = min(mentioned, key=lambda s: _first_mention(tw, s))
    scope = ([anchor_t] if anchor_t else []) + [s for s in mentioned if s is not anchor_t]
    clause = _clauses(t)
    used: set[int] = set()
    atoms: list[Atom] = []
    d = schema.dialect

    def free(span: tuple[int, int]) -> bool:
        return span[1] > span[0] and not any(i in used for i in range(*span))

    # one named address is that address, not its whole domain
    for m in EMAIL_RE.finditer(t.text):
        span = t.tok_span(*m.span())
        mails = [(s, c) for s in (scope or list(schema.tables)) for c in s.columns if "mail" in c.name.lower()]
        if not free(span) or len(mails) != 1:
            return None
        atoms.append(_col_atom(mails[0][0], mails[0][1], "=", m.group(), span, d))
        used.update(range(*span))

    # patterns: e-mail domains, "starting with"
    for m in list(_DOMAIN_RE.finditer(t.text)) + list(_AFFIX_RE.finditer(t.text)):
        span = t.tok_span(*m.span())
        if not free(span):
            continue
        if m.re is _DOMAIN_RE:
            dom = m.group().lower()
            pattern = "%" + escape_like(dom if dom.startswith("@") else "@" + dom
                                        if "@" not in t.text[m.start() - 1 : m.start()] else dom)  # fmt: skip
            cands = [(s, c) for s in (scope or list(schema.tables)) for c in s.columns if "mail" in c.name.lower()]
        else:
            how, pat = m.group("how").lower(), escape_like(m.group("pat"))
            pattern = (pat + "%" if how.startswith(("start", "begin")) else "%" + pat if how.startswith("end")
                       else "%" + pat + "%")  # fmt: skip
            lo = max(0, span[0] - 4)
            cands = [(s, c) for s, c, _ in named_columns(tw[lo : span[0]], schema, numeric=False)
                     if not scope or s in scope]  # fmt: skip
        if len(cands) != 1:
            return None
        atoms.append(_col_atom(cands[0][0], cands[0][1], "LIKE", pattern, span, d))
        used.update(range(*span))

    for m in _BETWEEN_RE.finditer(t.text):
        span = t.tok_span(*m.span())
        picked = _numeric_column(t, schema, max(0, span[0] - 6), span[1] + 3, scope, infer)
        if picked is None or not free(span):
            return None
        lo_v, hi_v = sorted((number_of(m, "lo", "lm"), number_of(m, "hi", "hm")))  # "between 100 and 50" too
        atoms.append(_col_atom(picked[0], picked[1], "BETWEEN", [lo_v, hi_v], span, d))
        used.update(range(*span))

    masked = {i for _c, span in currency_spans(t.text) for i in range(*span) if span[0] >= 0}
    for m in list(CMP_RE.finditer(t.text)) + list(_SUFFIX_RE.finditer(t.text)):
        span = t.tok_span(*m.span())
        if not free(span):
            continue
        cmp = m.group("cmp").lower()
        op = CMP_OPS.get(cmp) or (">=" if cmp == "+" or any(k in cmp for k in ("more", "above", "higher", "over"))
                                  else "<=")  # fmt: skip
        number = number_of(m)
        c = clause[span[0]]
        lo = min(i for i in range(len(tw)) if clause[i] == c)
        hi = max(i for i in range(len(tw)) if clause[i] == c) + 1
        child = _related(anchor_t, schema, tw, span[1], min(len(tw), span[1] + 3)) if anchor_t else None
        named = pick_column([x for x in named_columns(tw[lo:hi], schema, numeric=True)],
                            {s.qualified_name for s in scope})  # fmt: skip
        atom: Atom | None = None
        if anchor_t is not None and named is not None and named[0] is not anchor_t and _fk(named[0], anchor_t):
            agg = exp.func("SUM", column_expr(named[0].qualified_name, named[1].name, d))
            atom = _group_atom(anchor_t, named[0], agg, op, number, span, d)
        elif child is not None and named is None:
            atom = _group_atom(anchor_t, child, None, op, number, (span[0], span[1] + 1), d)
            if atom is not None:
                atom.span = (span[0], _end_of(tw, child, span[1]))
        else:
            duration = _duration(t, m.end(), schema, scope, number) if named is None else None
            if duration is not None:  # "longer than 6 minutes" on Track.Milliseconds: 360000
                (dt, dc), number, end = duration
                atom = _col_atom(dt, dc, op, number, t.tok_span(m.start(), end), d)
            else:
                picked = named or _numeric_column(t, schema, lo, hi, scope, infer)
                if picked is None:
                    return None
                atom = _col_atom(picked[0], picked[1], op, number, span, d)
        if atom is None:
            return None
        atoms.append(atom)
        used.update(range(*atom.span))
        masked.update(range(*atom.span))

    # "with no orders" / "without any orders"
    if anchor_t is not None:
        for m in re.finditer(r"\b(?:no|without|zero|never)\s+(?:placed\s+|made\s+)?(?:any\s+|an\s+|a\s+)?", t.text,
                             re.IGNORECASE):  # fmt: skip
            i = t.tok_span(m.end(), m.end() + 1)[0]
            child = _related(anchor_t, schema, tw, i, i + 1)
            if child is not None and i not in used:
                a = _group_atom(anchor_t, child, None, "=", 0, (t.tok_span(*m.span())[0], i + 1), d)
                if a is not None:
                    atoms.append(a)
                    used.update(range(*a.span))
                    masked.update(range(*a.span))

    atoms.extend(value_atoms(t, schema, lookup, scope, masked | used, d, cw))
    for a in atoms:
        used.update(range(*a.span))
    if not atoms:
        return None
    _polarity(t, clause, atoms)
    anchor_t = anchor_t or atoms[0].table
    expr = _combine(t, atoms, anchor_t, d)
    if expr is None:
        return None
    accounted = set(FILLER) | {w for s in schema.tables for w in _name_words(s.name)}
    for a in atoms:
        if a.column is not None:
            accounted |= set(_name_words(a.column.name))
    leftover = [w for i, w in enumerate(tw) if i not in used and w not in accounted and w not in NEGATION]
    unknown = [u for a in atoms for u in a.unknown]
    return Condition(expr, anchor_t, atoms, leftover, unknown)


def _first_mention(tw: list[str], table: Table) -> int:
    name = _name_words(table.name)
    return next((i for i in range(len(tw)) if tw[i : i + len(name)] == name), len(tw))


def _end_of(tw: list[str], table: Table, start: int) -> int:
    name = _name_words(table.name)
    for i in range(start, min(len(tw), start + 3)):
        if tw[i : i + len(name)] == name:
            return i + len(name)
    return start


# --- values --------------------------------------------------------------------------------------------------


# --- polarity and combination --------------------------------------------------------------------------------


_POST_NEGATION = {"mat", "nahi", "nahin", "hata", "hatao", "chhod", "chhodo"}
_NEG_PHRASES = (" other than ", " leave out ", " filter out ", " no more ", " not interested ", " any more ",
                " forget ", " drop ", " no longer ")
_KEEP_OUT = {"keep", "kept", "take", "hold", "leave"}
_POSITIVE = {"only", "just", "focus", "exclusively", "restrict", "sirf", "keval", "care", "instead"}


def _polarity(t: _Text, clause: list[int], atoms: list[Atom]) -> None:
    """An atom after a negation cue in its clause (or before a Hindi one: "... mat karna") is negated; a
    clause without atoms passes its polarity on; a list of the same column keeps it; a restrictive cue
    ("only", "focus on") makes the rest of the clause positive."""
    tw = t.words
    atoms.sort(key=lambda a: a.span)
    by_clause: dict[int, list[Atom]] = {}
    for a in atoms:
        by_clause.setdefault(clause[min(a.span[0], len(clause) - 1)], []).append(a)
    neg, last_col = False, None
    for c in range(max(clause, default=0) + 1):
        idx = [i for i in range(len(tw)) if clause[i] == c]
        group = by_clause.get(c, [])
        if not idx:
            continue

        def state_at(pos: int, start: bool) -> bool | None:
            """The last cue before token ``pos`` in this clause: True negative, False positive, None none."""
            found: bool | None = None
            for i in idx:
                if i >= pos:
                    break
                w = tw[i]
                low = " " + " ".join(tw[i : i + 2]) + " "
                if w in _POSITIVE:
                    found = False
                elif w in NEGATION and w not in _POST_NEGATION or any(low.startswith(p) for p in _NEG_PHRASES):
                    found = True
            return found

        def state_after(pos: int) -> bool | None:
            """The first cue after token ``pos`` in the clause the value ends in ("pending orders bhi exclude
            karna", "returned orders should not be counted"): True negative, False positive, None none."""
            end_clause = clause[min(max(pos - 1, 0), len(clause) - 1)]
            for i in range(pos, len(tw)):
                if clause[i] != end_clause:
                    break
                w = tw[i]
                low = " " + " ".join(tw[i : i + 2]) + " "
                if w in _POSITIVE:
                    return False
                if w in NEGATION or any(low.startswith(p) for p in _NEG_PHRASES):
                    return True
                if w == "out" and any(tw[j] in _KEEP_OUT for j in range(max(0, pos - 6), pos)):
                    return True  # "keep wholesale customers out of my numbers"
            return None

        post = any(tw[i] in _POST_NEGATION for i in idx) or (" nahi chahiye" in " " + " ".join(tw[i] for i in idx))
        end_state = state_at(idx[-1] + 1, False)
        if not group:
            if end_state is not None:
                neg = end_state
            elif post:
                neg = True
            continue
        for a in group:
            s = state_at(a.span[0], True)
            if s is None and a is group[-1]:  # the cue may follow the value (SOV, passives)
                s = state_after(a.span[1])
            if s is None:
                if post:
                    s = True
                elif last_col is not None and a.column is last_col:
                    s = neg
                elif last_col is None:
                    s = neg
                else:
                    s = False
            a.negated = s and not a.fixed
            neg, last_col = s, a.column


def _combine(t: _Text, atoms: list[Atom], anchor: Table, d: str) -> exp.Expression | None:
    merged: list[Atom] = []
    for a in atoms:  # values of one column with one polarity: one IN list
        prev = next((m for m in merged if m.column is not None and m.column is a.column and m.table is a.table
                     and m.negated == a.negated and m.op in ("=", "IN") and a.op in ("=", "IN")), None)  # fmt: skip
        if prev is not None:
            vals = list(dict.fromkeys(_as_list(prev.value) + _as_list(a.value)))
            new = _col_atom(a.table, a.column, "IN", vals, (prev.span[0], a.span[1]), d, prev.unknown + a.unknown)
            new.negated = a.negated
            merged[merged.index(prev)] = new
        else:
            merged.append(a)
    parts: list[tuple[exp.Expression, Atom]] = []
    for a in merged:
        if a.negated:
            if a.column is not None and a.op in INVERT:
                inv = _col_atom(a.table, a.column, INVERT[a.op], a.value, a.span, d, a.unknown)
                inv.negated = True
                merged[merged.index(a)] = inv
                a = inv
            else:
                a.expr = exp.Not(this=a.expr)
        lifted = lift(a, anchor, d)
        if lifted is None:
            return None
        parts.append((lifted, a))
    expr = parts[0][0]
    for (e, a), (_pe, prev) in zip(parts[1:], parts[:-1], strict=True):
        between = t.words[prev.span[1] : a.span[0]]
        expr = exp.or_(expr, e) if "or" in between and "and" not in between else exp.and_(expr, e)
    atoms[:] = merged
    return expr


def _as_list(v: Any) -> list[Any]:
    return list(v) if isinstance(v, list) else [v]
