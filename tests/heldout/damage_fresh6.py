"""Held-out damage generator ``fresh6``: the reply a small local model (7-9B, served by Ollama) plausibly gives.

Written without reading the repair code or earlier generators. Each kind damages the gold SQL in one specific way
that published text-to-SQL error analyses report for LLMs (BIRD / Spider error taxonomies, Dr.Spider perturbations,
DIN-SQL's and MAC-SQL's error classes: schema linking, JOIN, GROUP BY, nested queries, invalid SQL; CHESS on
hallucinated columns and literal values; studies of small models' output format: prose, wrappers, drafts, truncation)
and wraps it in the prose and fences such a model writes (English and Hinglish). The gold is edited as text at
positions found with sqlglot's tokenizer and parser, so everything not damaged stays byte-identical.

Family A (``DAMAGE_KINDS`` up to ``filter_clause_mixup``): replies the database rejects or that are broken as
replies. Family B (the rest): replies that run and return other rows. Kinds that only damage when the data happens to
sit on the damaged spot (DISTINCT slips on these clean data sets) were left out; ``boundary_off`` only flips bounds
against whole numbers, where rows on the boundary are likely.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import sqlglot
from sqlglot import exp

__all__ = ["DAMAGE_KINDS", "TREE_KINDS", "Damaged", "damage"]

DAMAGE_KINDS: tuple[str, ...] = (
    "clean",
    # --- A: rejected by the database / broken as a reply
    "invented_column",
    "invented_table",
    "wrong_qualifier",
    "join_dropped",
    "ambiguous_column",
    "groupby_broken",
    "mysql_dialect",
    "tsql_dialect",
    "oracle_dialect",
    "engine_mixup",
    "paren_slip",
    "comma_slip",
    "quote_slip",
    "keyword_slip",
    "truncated",
    "sql_in_prose",
    "wrapped_reply",
    "draft_first",
    "filter_clause_mixup",
    # --- B: runs, other rows
    "agg_swapped",
    "ratio_inverted",
    "boundary_off",
    "order_flipped",
    "limit_changed",
    "filter_dropped",
    "filter_added",
    "and_or_confused",
    "left_to_inner",
    "join_wrong_key",
    "integer_division",
    "literal_variant",
    "wrong_output_column",
    "filter_wrong_column",
    "null_equals",
    "today_hardcoded",
    "date_granularity",
)
TREE_KINDS: tuple[str, ...] = ()


@dataclass(frozen=True)
class Damaged:
    kind: str
    reply: str  # the full model reply text (prose + SQL)
    note: str  # one line: what was damaged


# ----------------------------------------------------------------------------------------------------------------
# Token / block model of the gold query


class _Tok:
    __slots__ = ("type", "text", "s", "e", "depth", "i")

    def __init__(self, type_: str, text: str, s: int, e: int, depth: int, i: int) -> None:
        self.type, self.text, self.s, self.e, self.depth, self.i = type_, text, s, e, depth, i

    def up(self) -> str:
        return self.text.upper()


_CLAUSE = {"FROM": "from", "WHERE": "where", "GROUP_BY": "group", "HAVING": "having", "ORDER_BY": "order",
           "LIMIT": "limit", "OFFSET": "offset", "FETCH": "fetch", "WINDOW": "window", "QUALIFY": "qualify"}
_SETOPS = {"UNION", "EXCEPT", "INTERSECT", "SEMICOLON"}
_AGGS = {"COUNT", "SUM", "AVG", "MIN", "MAX"}
_CMP = {"GT", "GTE", "LT", "LTE"}
_JOIN_MODS = {"LEFT", "RIGHT", "INNER", "OUTER", "FULL", "CROSS", "NATURAL"}


@dataclass
class _Block:
    sel: int
    end: int  # exclusive token index
    depth: int
    clauses: dict[str, tuple[int, int]]  # name -> [start, end) token indexes, start is the keyword


@dataclass
class _Src:
    alias: str
    written: str  # how the table is written (name without schema)
    tname: str  # table name, lower
    db: str
    tok: int  # token index of the table name
    block: int
    is_cte: bool


@dataclass
class _Col:
    name: str
    s: int
    e: int  # span of the name identifier
    qual: str | None
    qs: int
    qe: int
    tok: int
    block: int


class _Q:
    def __init__(self, sql: str, dialect: str) -> None:
        self.sql = sql
        self.dialect = dialect
        raw = sqlglot.Dialect.get_or_raise(dialect).tokenize(sql)
        toks: list[_Tok] = []
        depth = 0
        for i, t in enumerate(raw):
            ty = t.token_type.name
            if ty == "R_PAREN":
                depth = max(0, depth - 1)
            toks.append(_Tok(ty, t.text, t.start, t.end + 1, depth, i))
            if ty == "L_PAREN":
                depth += 1
        self.toks = toks
        self.by_start = {t.s: t.i for t in toks}
        self.blocks: list[_Block] = []
        n = len(toks)
        for i, t in enumerate(toks):
            if t.type != "SELECT":
                continue
            d, j = t.depth, i + 1
            while j < n and toks[j].depth >= d and not (toks[j].depth == d and toks[j].type in _SETOPS):
                j += 1
            kws = [k for k in range(i + 1, j) if toks[k].depth == d and toks[k].type in _CLAUSE]
            clauses = {"select": (i, kws[0] if kws else j)}
            for a, k in enumerate(kws):
                clauses.setdefault(_CLAUSE[toks[k].type], (k, kws[a + 1] if a + 1 < len(kws) else j))
            self.blocks.append(_Block(i, j, d, clauses))
        try:
            self.tree = sqlglot.parse_one(sql, read=dialect)
        except Exception:  # noqa: BLE001
            self.tree = None
        self.srcs: list[_Src] = []
        self.cols: list[_Col] = []
        if self.tree is not None:
            ctes = {c.alias_or_name.lower() for c in self.tree.find_all(exp.CTE)}
            for tb in self.tree.find_all(exp.Table):
                ident = tb.this
                if not isinstance(ident, exp.Identifier) or "start" not in ident.meta:
                    continue
                k = self.by_start.get(ident.meta["start"])
                if k is None:
                    continue
                b = self.block_of(k)
                if b is None:
                    continue
                self.srcs.append(_Src(tb.alias or tb.name, sql[toks[k].s:toks[k].e], tb.name.lower(), tb.db or "",
                                      k, b, not tb.db and tb.name.lower() in ctes))
            for c in self.tree.find_all(exp.Column):
                ident = c.this
                if not isinstance(ident, exp.Identifier) or "start" not in ident.meta or c.args.get("db"):
                    continue
                k = self.by_start.get(ident.meta["start"])
                if k is None:
                    continue
                b = self.block_of(k)
                if b is None:
                    continue
                q = c.args.get("table")
                if q is not None and isinstance(q, exp.Identifier) and "start" in q.meta:
                    qs, qe = q.meta["start"], q.meta["end"] + 1
                    self.cols.append(_Col(c.name, toks[k].s, toks[k].e, q.name, qs, qe, k, b))
                elif q is None:
                    self.cols.append(_Col(c.name, toks[k].s, toks[k].e, None, -1, -1, k, b))

    # --- navigation
    def block_of(self, k: int) -> int | None:
        best = None
        for bi, b in enumerate(self.blocks):
            if b.sel <= k < b.end and (best is None or b.depth >= self.blocks[best].depth):
                best = bi
        return best

    def clause_of(self, k: int, bi: int) -> str | None:
        for name, (a, z) in self.blocks[bi].clauses.items():
            if a <= k < z:
                return name
        return None

    def top(self) -> int | None:
        """The outermost block (the statement's final SELECT)."""
        cands = [bi for bi, b in enumerate(self.blocks) if b.depth == 0]
        return cands[-1] if cands else None

    def match(self, k: int) -> int | None:
        """Index of the parenthesis matching the L_PAREN at k."""
        d = self.toks[k].depth
        for j in range(k + 1, len(self.toks)):
            if self.toks[j].type == "R_PAREN" and self.toks[j].depth == d:
                return j
        return None

    def span(self, a: int, z: int) -> tuple[int, int]:
        """Character span of tokens [a, z)."""
        return self.toks[a].s, self.toks[z - 1].e

    def text(self, a: int, z: int) -> str:
        s, e = self.span(a, z)
        return self.sql[s:e]

    def split(self, a: int, z: int, d: int, seps: set[str]) -> list[tuple[int, int]]:
        parts, start = [], a
        for k in range(a, z):
            if self.toks[k].depth == d and self.toks[k].type in seps:
                parts.append((start, k))
                start = k + 1
        parts.append((start, z))
        return [p for p in parts if p[0] < p[1]]

    def conds(self, a: int, z: int, d: int) -> tuple[list[tuple[int, int]], list[int]]:
        """Top-level terms of a boolean expression in tokens [a, z) and the connector token indexes."""
        terms, conns, start, between, case = [], [], a, False, 0
        for k in range(a, z):
            t = self.toks[k]
            if t.depth != d:
                continue
            if t.type == "CASE":
                case += 1
            elif t.type == "END" and case:
                case -= 1
            elif t.type == "BETWEEN":
                between = True
            elif t.type in ("AND", "OR") and not case:
                if t.type == "AND" and between:
                    between = False
                    continue
                terms.append((start, k))
                conns.append(k)
                start = k + 1
        terms.append((start, z))
        return terms, conns

    def funcs(self, names: set[str]) -> list[tuple[int, int]]:
        """(name token, closing paren) of calls to the named functions."""
        out = []
        for t in self.toks[:-1]:
            if t.up() in names and t.type in ("VAR", "DATE", "DATETIME", "CURRENT_DATE") \
                    and self.toks[t.i + 1].type == "L_PAREN":
                m = self.match(t.i + 1)
                if m is not None:
                    out.append((t.i, m))
        return out


@lru_cache(maxsize=512)
def _parse(sql: str, dialect: str) -> _Q:
    return _Q(sql, dialect)


def _apply(sql: str, edits: list[tuple[int, int, str]]) -> str:
    out, last = sql, None
    for s, e, rep in sorted(edits, key=lambda x: (x[0], x[1]), reverse=True):
        if last is not None and e > last:
            raise ValueError("overlapping edits")
        out = out[:s] + rep + out[e:]
        last = s
    return out


def _same_case(model: str, word: str) -> str:
    if model.isupper():
        return word.upper()
    if model.islower():
        return word.lower()
    return word


# ----------------------------------------------------------------------------------------------------------------
# Per-call context: the query plus the schema


class _Ctx:
    def __init__(self, q: _Q, schema: Any, rng: random.Random, dialect: str) -> None:
        self.q, self.schema, self.rng, self.dialect = q, schema, rng, dialect
        self.pg = dialect not in ("sqlite",)
        self.tables = tuple(getattr(schema, "tables", ()) or ())
        self.all_cols = {c.name.lower() for t in self.tables for c in t.columns}

    def table(self, src: _Src) -> Any:
        if src.is_cte or self.schema is None:
            return None
        try:
            return self.schema.table(f"{src.db}.{src.tname}" if src.db else src.tname)
        except Exception:  # noqa: BLE001
            return None

    def has_col(self, table: Any, name: str) -> bool:
        return table is not None and table.column(name) is not None

    def srcs_in(self, bi: int) -> list[_Src]:
        return [s for s in self.q.srcs if s.block == bi]

    def visible(self, bi: int) -> list[_Src]:
        """Sources of block bi and of the blocks around it (correlated references)."""
        q, out = self.q, []
        b = q.blocks[bi]
        for bj, o in enumerate(q.blocks):
            if o.sel <= b.sel and b.end <= o.end and o.depth <= b.depth:
                out.extend(s for s in q.srcs if s.block == bj)
        return out

    def resolve(self, c: _Col) -> tuple[_Src | None, Any]:
        if c.qual is not None:
            for s in sorted(self.visible(c.block), key=lambda s: -self.q.blocks[s.block].depth):
                if s.alias.lower() == c.qual.lower():
                    return s, self.table(s)
            return None, None
        own = [s for s in self.srcs_in(c.block)]
        hits = [s for s in own if self.has_col(self.table(s), c.name)]
        if len(hits) == 1:
            return hits[0], self.table(hits[0])
        return None, None

    def schema_cols(self) -> list[tuple[_Col, _Src, Any]]:
        out = []
        for c in self.q.cols:
            s, t = self.resolve(c)
            if s is not None and t is not None and t.column(c.name) is not None:
                out.append((c, s, t))
        return out

    def pick(self, items: list[Any]) -> Any:
        return self.rng.choice(items) if items else None


@dataclass
class _Out:
    sql: str | None
    note: str
    reply: str | None = None  # a whole reply, when the kind is about the reply's shape


# ----------------------------------------------------------------------------------------------------------------
# Name variants a model invents

_SYN = {
    "name": ["title", "full_name"], "title": ["name", "paper_title"], "amount": ["amt", "total_amount"],
    "quantity": ["qty"], "number": ["num", "no"], "num": ["number", "count"], "count": ["cnt", "total"],
    "date": ["dt", "day"], "price": ["cost", "amount"], "cost": ["price"], "description": ["desc", "details"],
    "address": ["addr"], "created": ["creation"], "at": ["date", "on"], "time": ["ts", "datetime"],
    "code": ["id", "cd"], "type": ["category", "kind"], "status": ["state"], "rating": ["stars", "score"],
    "year": ["yr", "pub_year"], "city": ["city_name"], "country": ["country_code", "nation"],
    "phone": ["phone_number", "mobile"], "email": ["email_address"], "state": ["state_code", "province"],
    "username": ["user_name", "login"], "citation": ["cite", "citations"], "review": ["reviews"],
    "sale": ["sales", "sold"], "total": ["sum", "amount"], "first": ["given"], "last": ["family", "sur"],
    "airport": ["airport_code"], "airline": ["carrier"], "departure": ["depart", "dep"], "arrival": ["arr"],
    "milliseconds": ["duration_ms", "length"], "unit": ["per_unit"], "stars": ["rating"], "food": ["cuisine"],
}
_ID_EXPAND = {"aid": "author_id", "pid": "paper_id", "cid": "conference_id", "jid": "journal_id",
              "did": "domain_id", "uid": "user_id", "mid": "merchant_id", "txid": "transaction_id",
              "rid": "review_id", "kid": "keyword_id", "bid": "business_id", "sid": "student_id"}
_TABLE_SYN = {
    "sales": ["orders", "sale"], "customers": ["clients", "customer"], "salespersons": ["salespeople", "employees",
    "sales_persons"], "cars": ["vehicles", "car"], "users": ["user", "accounts"], "merchants": ["merchant",
    "vendors"], "wallet_transactions_daily": ["transactions", "wallet_transactions"], "notifications":
    ["notification", "user_notifications"], "publication": ["publications", "papers"], "author": ["authors"],
    "writes": ["author_publication", "authorship"], "journal": ["journals"], "conference": ["conferences"],
    "restaurant": ["restaurants"], "location": ["locations", "restaurant_location"], "geographic": ["geography",
    "regions"], "business": ["businesses"], "checkin": ["checkins", "check_ins"], "review": ["reviews"],
    "category": ["categories"], "flight": ["flights"], "airport": ["airports"], "airline": ["airlines"],
    "fare": ["fares"], "track": ["tracks", "songs"], "invoice_line": ["invoice_items", "invoice_lines"],
    "customer": ["customers"], "employee": ["employees"], "genre": ["genres"], "album": ["albums"],
    "artist": ["artists"], "playlist_track": ["playlist_tracks"], "neighbourhood": ["neighborhood"],
    "payments_received": ["payments"], "inventory_snapshots": ["inventory"], "coupons": ["coupon"],
    "user_sessions": ["sessions"], "domain_publication": ["publication_domain"],
}


def _plural(w: str) -> str:
    lw = w.lower()
    if lw.endswith("ies"):
        return w[:-3] + "y"
    if lw.endswith(("ses", "xes", "ches")):
        return w[:-2]
    if lw.endswith("s") and not lw.endswith("ss"):
        return w[:-1]
    if lw.endswith("y") and len(lw) > 1 and lw[-2] not in "aeiou":
        return w[:-1] + "ies"
    if lw.endswith(("s", "x", "ch", "sh")):
        return w + "es"
    return w + "s"


def _singular(w: str) -> str:
    lw = w.lower()
    if lw.endswith("ies"):
        return w[:-3] + "y"
    if lw.endswith("s") and not lw.endswith("ss"):
        return w[:-1]
    return w


def _col_variants(name: str, table: str) -> list[str]:
    low = name.lower()
    out: list[str] = [_plural(name)]
    parts = low.split("_")
    if len(parts) > 1:
        out.append(parts[0] + "".join(p.capitalize() for p in parts[1:]))
        out.append("".join(parts))
    for i, p in enumerate(parts):
        for alt in _SYN.get(p, []):
            out.append("_".join(parts[:i] + [alt] + parts[i + 1:]))
    tsing = _singular(table.lower())
    if low == "id":
        out += [f"{tsing}_id", f"{tsing}id"]
    elif low in _ID_EXPAND:
        out.append(_ID_EXPAND[low])
    elif low.endswith("_id"):
        out.append(low[:-3] + "id")
    elif low.endswith("id") and len(low) > 2:
        out.append(low[:-2] + "_id")
    if not low.startswith(tsing) and len(parts) == 1 and low not in ("id",):
        out.append(f"{tsing}_{low}")
    seen, res = set(), []
    for v in out:
        if v and v.lower() != low and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", v) and v.lower() not in seen:
            seen.add(v.lower())
            res.append(v)
    return res


def _table_variants(name: str) -> list[str]:
    low = name.lower()
    out = list(_TABLE_SYN.get(low, [])) + [_plural(name)]
    parts = low.split("_")
    if len(parts) > 1:
        out.append("".join(p.capitalize() for p in parts))
    out.append("tbl_" + low)
    seen, res = set(), []
    for v in out:
        if v.lower() != low and v.lower() not in seen:
            seen.add(v.lower())
            res.append(v)
    return res


# ----------------------------------------------------------------------------------------------------------------
# Family A kinds


def _k_invented_column(cx: _Ctx) -> _Out | None:
    q = cx.q
    cands = []
    for c, s, t in cx.schema_cols():
        block_tables = [cx.table(x) for x in cx.visible(c.block)]
        vs = [v for v in _col_variants(c.name, t.name)
              if not any(bt is not None and bt.column(v) is not None for bt in block_tables)
              and v.lower() not in cx.all_cols]
        if vs:
            weight = 3 if q.clause_of(c.tok, c.block) in ("select", "where") else 1
            cands += [(c, s, vs)] * weight
    pick = cx.pick(cands)
    if pick is None:
        return None
    c, s, vs = pick
    new = cx.rng.choice(vs)
    # a model that invents a name uses it everywhere it means that column
    edits = [(o.s, o.e, new) for o in q.cols
             if o.name.lower() == c.name.lower() and (o.qual or "").lower() == (c.qual or "").lower()
             and cx.resolve(o)[0] is s]
    return _Out(_apply(q.sql, edits), f"column {s.tname}.{c.name} written as non-existent {new}")


def _k_invented_table(cx: _Ctx) -> _Out | None:
    q = cx.q
    real = [s for s in q.srcs if cx.table(s) is not None]
    pick = cx.pick(real)
    if pick is None:
        return None
    vs = []
    for v in _table_variants(pick.written):
        try:
            if cx.schema.table(f"{pick.db}.{v}" if pick.db else v) is None and cx.schema.table(v) is None:
                vs.append(v)
        except Exception:  # noqa: BLE001
            continue
    if not vs:
        return None
    new = cx.rng.choice(vs)
    edits = []
    for s in q.srcs:
        if s.tname == pick.tname and s.db == pick.db:
            t = q.toks[s.tok]
            edits.append((t.s, t.e, new))
    # qualifiers that are the bare table name (no alias) follow the new name
    for s in q.srcs:
        if s.tname == pick.tname and s.alias.lower() == s.tname:
            edits += [(c.qs, c.qe, new) for c in q.cols if c.qual and c.qual.lower() == s.tname]
    edits = sorted(set(edits))
    return _Out(_apply(q.sql, edits), f"table {pick.tname} written as non-existent {new}")


def _k_wrong_qualifier(cx: _Ctx) -> _Out | None:
    q = cx.q
    cands = []
    for c, s, t in cx.schema_cols():
        if c.qual is None:
            continue
        others = [o for o in cx.srcs_in(c.block) if o.alias.lower() != s.alias.lower() and cx.table(o) is not None
                  and not cx.has_col(cx.table(o), c.name)]
        if others:
            w = 2 if q.clause_of(c.tok, c.block) in ("select", "where", "group") else 1
            cands += [(c, s, others)] * w
    pick = cx.pick(cands)
    if pick is None:
        return None
    c, s, others = pick
    o = cx.rng.choice(others)
    return _Out(_apply(q.sql, [(c.qs, c.qe, o.alias)]),
                f"{c.qual}.{c.name} qualified with alias {o.alias} ({o.tname} has no {c.name})")


def _joins(q: _Q, bi: int) -> list[tuple[int, int, int]]:
    """(start token, JOIN token, end token) of the explicit joins in block bi's FROM clause."""
    b = q.blocks[bi]
    if "from" not in b.clauses:
        return []
    a, z = b.clauses["from"]
    js = [k for k in range(a, z) if q.toks[k].depth == b.depth and q.toks[k].type == "JOIN"]
    out = []
    starts = []
    for k in js:
        s = k
        while s - 1 > a and q.toks[s - 1].type in _JOIN_MODS and q.toks[s - 1].depth == b.depth:
            s -= 1
        starts.append(s)
    for n, k in enumerate(js):
        out.append((starts[n], k, starts[n + 1] if n + 1 < len(js) else z))
    return out


def _k_join_dropped(cx: _Ctx) -> _Out | None:
    q = cx.q
    cands = []
    for bi in range(len(q.blocks)):
        for s, k, z in _joins(q, bi):
            src = next((x for x in q.srcs if x.block == bi and s < x.tok < z), None)
            if src is None:
                continue
            used = [c for c in q.cols if c.qual and c.qual.lower() == src.alias.lower() and not s <= c.tok < z]
            if used:
                cands.append((s, z, src))
    pick = cx.pick(cands)
    if pick is None:
        return None
    s, z, src = pick
    start = q.toks[s - 1].e
    end = q.toks[z - 1].e
    return _Out(_apply(q.sql, [(start, end, "")]),
                f"JOIN of {src.tname} ({src.alias}) left out while {src.alias}.* is still used")


def _k_ambiguous_column(cx: _Ctx) -> _Out | None:
    q = cx.q
    cands = []
    for c, s, t in cx.schema_cols():
        if c.qual is None or q.clause_of(c.tok, c.block) not in ("select", "where", "group", "having"):
            continue
        owners = [o for o in cx.srcs_in(c.block) if cx.has_col(cx.table(o), c.name)]
        if len(owners) >= 2:
            cands.append(c)
    c = cx.pick(cands)
    if c is None:
        return None
    return _Out(_apply(q.sql, [(c.qs, c.s, "")]), f"{c.qual}.{c.name} left unqualified though several tables have it")


def _has_agg(q: _Q, a: int, z: int) -> bool:
    return any(q.toks[k].up() in _AGGS and k + 1 < z and q.toks[k + 1].type == "L_PAREN" for k in range(a, z))


def _k_groupby_broken(cx: _Ctx) -> _Out | None:
    q = cx.q
    opts = []
    for bi, b in enumerate(q.blocks):
        if "group" not in b.clauses:
            continue
        ga, gz = b.clauses["group"]
        sa, sz = b.clauses["select"]
        items = q.split(ga + 1, gz, b.depth, {"COMMA"})
        sel_items = q.split(sa + 1, sz, b.depth, {"COMMA"})
        plain_sel = [it for it in sel_items if not _has_agg(q, *it)]
        if plain_sel and _has_agg(q, sa, sz):
            prev = q.toks[ga - 1].e
            opts.append(("whole", (prev, q.toks[gz - 1].e, ""), "GROUP BY left out though non-aggregated columns "
                         "are selected"))
        sel_txt = q.text(sa, sz).lower()
        if len(items) >= 2:
            for n, (ia, iz) in enumerate(items):
                txt = q.text(ia, iz)
                if txt.isdigit() or txt.lower() not in sel_txt:
                    continue
                if n == 0:
                    cut = (q.toks[ia].s, q.toks[items[1][0]].s, "")
                else:
                    cut = (q.toks[items[n - 1][1] - 1].e, q.toks[iz - 1].e, "")
                opts.append(("one", cut, f"selected column {txt} missing from GROUP BY"))
    if not opts:
        return None
    whole = [o for o in opts if o[0] == "whole"]
    one = [o for o in opts if o[0] == "one"]
    pool = whole if whole and (not one or cx.rng.random() < 0.5) else one
    _, edit, note = cx.rng.choice(pool)
    return _Out(_apply(q.sql, [edit]), note)


# --- dialect rewrites


def _call_args(q: _Q, f: int, m: int) -> list[tuple[int, int]]:
    return q.split(f + 2, m, q.toks[f].depth + 1, {"COMMA"})


def _extract_calls(q: _Q) -> list[tuple[int, int, str, tuple[int, int]]]:
    """EXTRACT(part FROM expr): (name tok, close paren, part, expr token range)."""
    out = []
    for f, m in q.funcs({"EXTRACT"}):
        if m - f < 5:
            continue
        frm = next((k for k in range(f + 2, m) if q.toks[k].type == "FROM" and q.toks[k].depth == q.toks[f].depth + 1),
                   None)
        if frm is None:
            continue
        part = q.text(f + 2, frm).strip("'\"").lower()
        out.append((f, m, part, (frm + 1, m)))
    return out


def _strftime_calls(q: _Q) -> list[tuple[int, int, str, tuple[int, int], list[tuple[int, int]]]]:
    out = []
    for f, m in q.funcs({"STRFTIME"}):
        args = _call_args(q, f, m)
        if len(args) >= 2 and q.toks[args[0][0]].type == "STRING":
            out.append((f, m, q.toks[args[0][0]].text, args[1], args))
    return out


def _date_trunc_calls(q: _Q) -> list[tuple[int, int, str, tuple[int, int]]]:
    out = []
    for f, m in q.funcs({"DATE_TRUNC"}):
        args = _call_args(q, f, m)
        if len(args) == 2 and q.toks[args[0][0]].type == "STRING":
            out.append((f, m, q.toks[args[0][0]].text.lower(), args[1]))
    return out


def _now_spots(q: _Q) -> list[tuple[int, int, str]]:
    """Places meaning 'now' / 'today': (char start, char end, kind)."""
    out = []
    for t in q.toks:
        if t.type in ("CURRENT_DATE", "CURRENT_TIMESTAMP") and not (t.i + 1 < len(q.toks)
                                                                     and q.toks[t.i + 1].type == "L_PAREN"):
            out.append((t.s, t.e, t.type.lower()))
    for f, m in q.funcs({"NOW", "GETDATE"}):
        out.append((q.toks[f].s, q.toks[m].e, "now"))
    for f, m in q.funcs({"DATE", "DATETIME"}):
        args = _call_args(q, f, m)
        if args and q.toks[args[0][0]].type == "STRING" and q.toks[args[0][0]].text.lower() == "now":
            out.append((q.toks[f].s, q.toks[m].e, f"sqlite_{q.toks[f].up().lower()}:{len(args)}"))
    return out


def _sqlite_now_mods(q: _Q) -> list[tuple[int, int, str, str | None]]:
    """DATE('now'[, '-N unit']): (start tok, close, func, modifier)."""
    out = []
    for f, m in q.funcs({"DATE", "DATETIME"}):
        args = _call_args(q, f, m)
        if args and q.toks[args[0][0]].type == "STRING" and q.toks[args[0][0]].text.lower() == "now":
            mod = q.toks[args[1][0]].text if len(args) == 2 and q.toks[args[1][0]].type == "STRING" else None
            if len(args) <= 2:
                out.append((f, m, q.toks[f].up(), mod))
    return out


def _intervals(q: _Q) -> list[tuple[int, int, str]]:
    """INTERVAL 'n unit' (PostgreSQL): (INTERVAL tok, STRING tok, text)."""
    out = []
    for t in q.toks[:-1]:
        nxt = q.toks[t.i + 1]
        if t.type == "INTERVAL" and nxt.type == "STRING":
            out.append((t.i, nxt.i, nxt.text))
    return out


def _limit_of(q: _Q, bi: int) -> tuple[int, int] | None:
    b = q.blocks[bi]
    if "limit" not in b.clauses:
        return None
    a, z = b.clauses["limit"]
    if z - a == 2 and q.toks[a + 1].type == "NUMBER":
        return a, z
    return None


def _julian_diffs(q: _Q) -> list[tuple[int, int, tuple[int, int], tuple[int, int]]]:
    """julianday(a) - julianday(b): (first tok, last tok, a range, b range)."""
    calls = {f: m for f, m in q.funcs({"JULIANDAY"})}
    out = []
    for f, m in calls.items():
        if m + 2 < len(q.toks) and q.toks[m + 1].type == "DASH" and (m + 2) in calls:
            m2 = calls[m + 2]
            out.append((f, m2, (f + 2, m), (m + 4, m2)))
    return out


_UNIT_MYSQL = {"day": "DAY", "days": "DAY", "month": "MONTH", "months": "MONTH", "year": "YEAR", "years": "YEAR",
               "week": "WEEK", "weeks": "WEEK", "hour": "HOUR", "hours": "HOUR", "mon": "MONTH", "mons": "MONTH"}


def _parse_amount(text: str) -> tuple[int, str] | None:
    m = re.fullmatch(r"\s*([+-]?\d+)\s*([A-Za-z]+)\s*", text)
    if not m or m.group(2).lower() not in _UNIT_MYSQL:
        return None
    return int(m.group(1)), _UNIT_MYSQL[m.group(2).lower()]


def _k_mysql_dialect(cx: _Ctx) -> _Out | None:
    q, rng = cx.q, cx.rng
    opts: list[tuple[list[tuple[int, int, str]], str]] = []
    for f, m, unit, (ea, ez) in _date_trunc_calls(q):
        fmt = {"month": "%Y-%m-01", "year": "%Y-01-01", "day": "%Y-%m-%d", "week": "%Y-%u"}.get(unit.strip(),
                                                                                             "%Y-%m-01")
        opts.append(([(q.toks[f].s, q.toks[m].e, f"DATE_FORMAT({q.text(ea, ez)}, '{fmt}')")], "DATE_TRUNC as MySQL "
                     "DATE_FORMAT"))
    for f, m, part, (ea, ez) in _extract_calls(q):
        fn = {"year": "YEAR", "month": "MONTH", "day": "DAY", "dow": "DAYOFWEEK", "quarter": "QUARTER",
              "week": "WEEK", "hour": "HOUR"}.get(part)
        if fn:
            opts.append(([(q.toks[f].s, q.toks[m].e, f"{fn}({q.text(ea, ez)})")], f"EXTRACT as MySQL {fn}()"))
    for f, m, fmt, (ea, ez), _ in _strftime_calls(q):
        e = q.text(ea, ez)
        rep = {"%Y": f"YEAR({e})", "%m": f"MONTH({e})", "%d": f"DAY({e})", "%w": f"DAYOFWEEK({e})"}.get(
            fmt, f"DATE_FORMAT({e}, '{fmt}')")
        opts.append(([(q.toks[f].s, q.toks[m].e, rep)], "strftime as MySQL date function"))
    for f, m, fn, mod in _sqlite_now_mods(q):
        base = "CURDATE()" if fn == "DATE" else "NOW()"
        amt = _parse_amount(mod) if mod else None
        if mod is None:
            opts.append(([(q.toks[f].s, q.toks[m].e, base)], f"{fn}('now') as MySQL {base}"))
        elif amt:
            n, unit = amt
            fn2 = "DATE_SUB" if n < 0 else "DATE_ADD"
            opts.append(([(q.toks[f].s, q.toks[m].e, f"{fn2}({base}, INTERVAL {abs(n)} {unit})")],
                         "date('now', modifier) as MySQL DATE_SUB"))
    for f, m2, (aa, az), (ba, bz) in _julian_diffs(q):
        opts.append(([(q.toks[f].s, q.toks[m2].e, f"DATEDIFF({q.text(aa, az)}, {q.text(ba, bz)})")],
                     "julianday difference as MySQL DATEDIFF"))
    for t in q.toks:
        if t.type == "CURRENT_DATE":
            opts.append(([(t.s, t.e, "CURDATE()")], "CURRENT_DATE as MySQL CURDATE()"))
    if cx.pg:
        for f, m in q.funcs({"COALESCE"}):
            opts.append(([(q.toks[f].s, q.toks[f].e, _same_case(q.toks[f].text, "IFNULL"))], "COALESCE as IFNULL"))
        for k, sk, text in _intervals(q):
            amt = _parse_amount(text)
            if amt:
                opts.append(([(q.toks[k].s, q.toks[sk].e, f"INTERVAL {abs(amt[0])} {amt[1]}")],
                             "PostgreSQL interval written the MySQL way"))
        for bi in range(len(q.blocks)):
            b = q.blocks[bi]
            lim = _limit_of(q, bi)
            if lim and "offset" in b.clauses:
                oa, oz = b.clauses["offset"]
                if oz - oa == 2:
                    opts.append(([(q.toks[lim[0]].s, q.toks[oz - 1].e,
                                   f"LIMIT {q.toks[oa + 1].text}, {q.toks[lim[0] + 1].text}")], "MySQL LIMIT m, n"))
        real = [s for s in q.srcs if not s.is_cte]
        if real and (not opts or rng.random() < 0.35):
            edits = [(q.toks[s.tok].s, q.toks[s.tok].e, f"`{s.written}`") for s in real]
            opts.append((edits, "table names quoted with MySQL backticks"))
    else:
        for t in q.toks:
            if t.type == "DPIPE" and 0 < t.i < len(q.toks) - 1:
                pa, pb = q.toks[t.i - 1], q.toks[t.i + 1]
                if pa.type in ("VAR", "STRING") and pb.type in ("VAR", "STRING"):
                    opts.append(([(pa.s, pb.e, f"CONCAT({q.sql[pa.s:pa.e]}, {q.sql[pb.s:pb.e]})")],
                                 "|| as MySQL CONCAT()"))
    return _pick_edits(cx, opts, "MySQL syntax: ")


def _pick_edits(cx: _Ctx, opts: list[tuple[list[tuple[int, int, str]], str]], prefix: str) -> _Out | None:
    """Pick one habit (all its places, as a model applies a habit throughout), sometimes a second one too."""
    if not opts:
        return None
    groups: dict[str, list[tuple[int, int, str]]] = {}
    for edits, label in opts:
        groups.setdefault(label, []).extend(edits)
    labels = list(groups)
    rng = cx.rng
    chosen = [rng.choice(labels)]
    if len(labels) > 1 and rng.random() < 0.35:
        other = rng.choice(labels)
        if other != chosen[0]:
            chosen.append(other)
    taken: list[tuple[int, int, str]] = []
    used: list[str] = []
    for label in chosen:
        added = False
        for e in sorted(groups[label]):
            if not any((e[0] < t[1] and t[0] < e[1]) or e[0] == e[1] == t[0] == t[1] for t in taken):
                taken.append(e)
                added = True
        if added:
            used.append(label)
    if not taken:
        return None
    return _Out(_apply(cx.q.sql, taken), prefix + "; ".join(used))


def _insert_where(q: _Q, bi: int, cond: str) -> tuple[int, int, str] | None:
    """An edit adding ``cond`` to block bi's WHERE (ANDed) or adding a WHERE."""
    b = q.blocks[bi]
    if "where" in b.clauses:
        a, z = b.clauses["where"]
        terms, conns = q.conds(a + 1, z, b.depth)
        if any(q.toks[k].type == "OR" for k in conns):
            s, e = q.span(a + 1, z)
            return s, e, f"({q.sql[s:e]}) AND {cond}"
        end = q.toks[z - 1].e
        return end, end, f" AND {cond}"
    if "from" not in b.clauses:
        return None
    a, z = b.clauses["from"]
    end = q.toks[z - 1].e
    return end, end, f" WHERE {cond}"


def _k_tsql_dialect(cx: _Ctx) -> _Out | None:
    q = cx.q
    opts: list[tuple[list[tuple[int, int, str]], str]] = []
    for bi, b in enumerate(q.blocks):
        lim = _limit_of(q, bi)
        if lim and "offset" not in b.clauses:
            n = q.toks[lim[0] + 1].text
            after = b.sel
            if q.toks[b.sel + 1].type == "DISTINCT":
                after = b.sel + 1
            pos = q.toks[after].e
            opts.append(([(pos, pos, f" TOP {n}"), (q.toks[lim[0] - 1].e, q.toks[lim[1] - 1].e, "")],
                         f"LIMIT {n} written as SELECT TOP {n}"))
    for s, e, kind in _now_spots(q):
        rep = "CAST(GETDATE() AS DATE)" if kind in ("current_date",) or kind.startswith("sqlite_date") else "GETDATE()"
        if kind.startswith("sqlite_") and not kind.endswith(":1"):
            continue
        opts.append(([(s, e, rep)], f"today written as T-SQL {rep}"))
    for f, m in q.funcs({"COALESCE"}):
        opts.append(([(q.toks[f].s, q.toks[f].e, "ISNULL")], "COALESCE as T-SQL ISNULL"))
    for f, m in q.funcs({"LENGTH", "CHAR_LENGTH"}):
        opts.append(([(q.toks[f].s, q.toks[f].e, "LEN")], "LENGTH as T-SQL LEN"))
    for f, m, part, (ea, ez) in _extract_calls(q):
        dp = {"dow": "weekday", "epoch": None}.get(part, part)
        if dp:
            opts.append(([(q.toks[f].s, q.toks[m].e, f"DATEPART({dp}, {q.text(ea, ez)})")], "EXTRACT as DATEPART"))
    for f, m, fmt, (ea, ez), _ in _strftime_calls(q):
        part = {"%Y": "year", "%m": "month", "%d": "day", "%w": "weekday", "%H": "hour"}.get(fmt)
        rep = f"DATEPART({part}, {q.text(ea, ez)})" if part else f"FORMAT({q.text(ea, ez)}, 'yyyy-MM')"
        opts.append(([(q.toks[f].s, q.toks[m].e, rep)], "strftime as T-SQL DATEPART/FORMAT"))
    for f, m, unit, (ea, ez) in _date_trunc_calls(q):
        u = unit.strip().lower()
        opts.append(([(q.toks[f].s, q.toks[m].e, f"DATEADD({u}, DATEDIFF({u}, 0, {q.text(ea, ez)}), 0)")],
                     "DATE_TRUNC as T-SQL DATEADD/DATEDIFF"))
    for f, m2, (aa, az), (ba, bz) in _julian_diffs(q):
        opts.append(([(q.toks[f].s, q.toks[m2].e, f"DATEDIFF(day, {q.text(ba, bz)}, {q.text(aa, az)})")],
                     "julianday difference as T-SQL DATEDIFF"))
    if cx.pg:
        for t in q.toks:
            if t.type in ("TRUE", "FALSE") and t.i > 0 and q.toks[t.i - 1].type in ("EQ", "NEQ"):
                opts.append(([(t.s, t.e, "1" if t.type == "TRUE" else "0")], "boolean written as T-SQL bit"))
        real = [s for s in q.srcs if not s.is_cte]
        if real and not opts:
            opts.append(([(q.toks[s.tok].s, q.toks[s.tok].e, f"[{s.written}]") for s in real],
                         "table names in T-SQL [brackets]"))
    return _pick_edits(cx, opts, "T-SQL syntax: ")


def _k_oracle_dialect(cx: _Ctx) -> _Out | None:
    q = cx.q
    opts: list[tuple[list[tuple[int, int, str]], str]] = []
    for f, m in q.funcs({"COALESCE", "IFNULL"}):
        if len(_call_args(q, f, m)) == 2:
            opts.append(([(q.toks[f].s, q.toks[f].e, _same_case(q.toks[f].text, "NVL"))], "COALESCE as Oracle NVL"))
    for s, e, kind in _now_spots(q):
        if kind.startswith("sqlite_") and not kind.endswith(":1"):
            continue
        rep = "SYSDATE" if kind in ("current_date",) or kind.startswith("sqlite_date") else "SYSTIMESTAMP"
        opts.append(([(s, e, rep)], f"today written as Oracle {rep}"))
    for f, m, unit, (ea, ez) in _date_trunc_calls(q):
        fmt = {"month": "MM", "year": "YYYY", "quarter": "Q", "week": "IW", "day": "DD"}.get(unit.strip(), "MM")
        opts.append(([(q.toks[f].s, q.toks[m].e, f"TRUNC({q.text(ea, ez)}, '{fmt}')")], "DATE_TRUNC as Oracle TRUNC"))
    if not cx.pg:
        for f, m, fmt, (ea, ez), _ in _strftime_calls(q):
            ofmt = fmt.replace("%Y", "YYYY").replace("%m", "MM").replace("%d", "DD").replace("%W", "IW")
            opts.append(([(q.toks[f].s, q.toks[m].e, f"TO_CHAR({q.text(ea, ez)}, '{ofmt}')")],
                         "strftime as Oracle TO_CHAR"))
    for bi, b in enumerate(q.blocks):
        lim = _limit_of(q, bi)
        if not lim or "offset" in b.clauses:
            continue
        n = q.toks[lim[0] + 1].text
        drop = (q.toks[lim[0] - 1].e, q.toks[lim[1] - 1].e, "")
        if not cx.pg:
            opts.append(([(drop[0], drop[1], f" FETCH FIRST {n} ROWS ONLY")], "LIMIT as Oracle FETCH FIRST"))
        if "order" not in b.clauses and "group" not in b.clauses:
            ins = _insert_where(q, bi, f"ROWNUM <= {n}")
            if ins and ins[1] <= drop[0]:
                opts.append(([ins, drop], f"LIMIT {n} as Oracle ROWNUM"))
        elif "order" in b.clauses:
            oa, _ = b.clauses["order"]
            ins = _insert_where(q, bi, f"ROWNUM <= {n}")
            if ins and ins[1] <= q.toks[oa].s:
                opts.append(([ins, drop], f"LIMIT {n} as Oracle ROWNUM (applied before ORDER BY)"))
    return _pick_edits(cx, opts, "Oracle syntax: ")


def _k_engine_mixup(cx: _Ctx) -> _Out | None:
    """PostgreSQL habits in a SQLite database and SQLite habits in a PostgreSQL one."""
    q = cx.q
    opts: list[tuple[list[tuple[int, int, str]], str]] = []
    if cx.pg:
        for f, m, part, (ea, ez) in _extract_calls(q):
            fmt = {"year": "%Y", "month": "%m", "day": "%d", "dow": "%w", "hour": "%H"}.get(part)
            if fmt:
                opts.append(([(q.toks[f].s, q.toks[m].e, f"CAST(strftime('{fmt}', {q.text(ea, ez)}) AS INTEGER)")],
                             "EXTRACT written as SQLite strftime"))
        for f, m, unit, (ea, ez) in _date_trunc_calls(q):
            fmt = {"month": "%Y-%m-01", "year": "%Y-01-01", "day": "%Y-%m-%d", "week": "%Y-%W"}.get(unit.strip(),
                                                                                                 "%Y-%m")
            opts.append(([(q.toks[f].s, q.toks[m].e, f"strftime('{fmt}', {q.text(ea, ez)})")],
                         "DATE_TRUNC written as SQLite strftime"))
        for t in q.toks:
            if t.type == "CURRENT_DATE":
                nxt = q.toks[t.i + 1] if t.i + 1 < len(q.toks) else None
                if nxt is not None and nxt.type == "DASH" and t.i + 3 < len(q.toks) and q.toks[t.i + 2].type == \
                        "INTERVAL" and q.toks[t.i + 3].type == "STRING":
                    amt = _parse_amount(q.toks[t.i + 3].text)
                    if amt:
                        opts.append(([(t.s, q.toks[t.i + 3].e, f"date('now', '-{abs(amt[0])} "
                                       f"{amt[1].lower()}s')")], "date arithmetic written as SQLite date('now', ...)"))
                        continue
                opts.append(([(t.s, t.e, "date('now', 'localtime')")], "CURRENT_DATE written as SQLite "
                                                                          "date('now', 'localtime')"))
        for f, m in q.funcs({"NOW"}):
            opts.append(([(q.toks[f].s, q.toks[m].e, "datetime('now')")], "NOW() written as SQLite datetime('now')"))
        for f, m in q.funcs({"TO_TIMESTAMP"}):
            args = _call_args(q, f, m)
            if len(args) == 1:
                opts.append(([(q.toks[f].s, q.toks[m].e, f"datetime({q.text(*args[0])}, 'unixepoch')")],
                             "to_timestamp written as SQLite datetime(..., 'unixepoch')"))
        if not opts:
            for t in q.toks:
                pat = q.toks[t.i + 1] if t.i + 1 < len(q.toks) else None
                letters = re.sub(r"[^A-Za-z]", "", pat.text) if pat is not None and pat.type == "STRING" else ""
                left = q.sql[max(0, t.s - 60):t.s].upper()
                clause = left.rsplit(" AND ", 1)[-1]
                odd_case = letters.islower() or (letters.isupper() and len(letters) > 2)
                if t.type == "ILIKE" and letters and odd_case and "LOWER(" not in clause and "UPPER(" not in clause:
                    opts.append(([(t.s, t.e, _same_case(t.text, "LIKE"))], "ILIKE written as LIKE (case-sensitive "
                                                                           "in PostgreSQL)"))
    else:
        for t in q.toks:
            if t.type == "LIKE":
                opts.append(([(t.s, t.e, _same_case(t.text, "ILIKE"))], "LIKE written as PostgreSQL ILIKE"))
        for f, m, fmt, (ea, ez), _ in _strftime_calls(q):
            e = q.text(ea, ez)
            part = {"%Y": "YEAR", "%m": "MONTH", "%d": "DAY", "%w": "DOW", "%H": "HOUR"}.get(fmt)
            if part:
                rep = f"EXTRACT({part} FROM {e})"
            elif fmt in ("%Y-%m", "%Y-%m-01"):
                rep = f"DATE_TRUNC('month', {e})" if cx.rng.random() < 0.5 else f"TO_CHAR({e}, 'YYYY-MM')"
            else:
                rep = f"TO_CHAR({e}, 'YYYY-MM-DD')"
            opts.append(([(q.toks[f].s, q.toks[m].e, rep)], "strftime written as PostgreSQL EXTRACT/DATE_TRUNC"))
        for f, m, fn, mod in _sqlite_now_mods(q):
            base = "CURRENT_DATE" if fn == "DATE" else "NOW()"
            amt = _parse_amount(mod) if mod else None
            if mod is None:
                opts.append(([(q.toks[f].s, q.toks[m].e, "NOW()")], "date('now') written as PostgreSQL NOW()"))
            elif amt:
                sign = "-" if amt[0] < 0 else "+"
                opts.append(([(q.toks[f].s, q.toks[m].e, f"{base} {sign} INTERVAL '{abs(amt[0])} "
                               f"{amt[1].lower()}s'")], "date('now', ...) written as PostgreSQL interval arithmetic"))
        for t in q.toks:
            if t.type == "VAR" and t.up() == "CAST" and t.i + 1 < len(q.toks) and q.toks[t.i + 1].type == "L_PAREN":
                m = q.match(t.i + 1)
                if m is None:
                    continue
                al = next((k for k in range(t.i + 2, m) if q.toks[k].type == "ALIAS" and q.toks[k].depth ==
                           t.depth + 1), None)
                if al is not None and q.toks[al + 1].up() in ("REAL", "FLOAT", "DOUBLE"):
                    inner = q.text(t.i + 2, al)
                    opts.append(([(t.s, q.toks[m].e, f"({inner})::float")], "CAST written as PostgreSQL ::float"))
        for f, m2, (aa, az), (ba, bz) in _julian_diffs(q):
            opts.append(([(q.toks[f].s, q.toks[m2].e, f"EXTRACT(EPOCH FROM ({q.text(aa, az)} - {q.text(ba, bz)})) "
                           f"/ 86400")], "julianday difference written as PostgreSQL EXTRACT(EPOCH ...)"))
    return _pick_edits(cx, opts, "wrong engine: ")


# --- syntax slips


def _k_paren_slip(cx: _Ctx) -> _Out | None:
    q, rng = cx.q, cx.rng
    closes = [t for t in q.toks if t.type == "R_PAREN"]
    if not closes:
        return None
    t = rng.choice(closes)
    if rng.random() < 0.6:
        return _Out(_apply(q.sql, [(t.s, t.e, "")]), f"closing parenthesis at offset {t.s} missing")
    return _Out(_apply(q.sql, [(t.e, t.e, ")")]), f"extra closing parenthesis after offset {t.s}")


def _k_comma_slip(cx: _Ctx) -> _Out | None:
    q, rng = cx.q, cx.rng
    opts = []
    for b in q.blocks:
        sa, sz = b.clauses["select"]
        items = q.split(sa + 1, sz, b.depth, {"COMMA"})
        if len(items) >= 1 and "from" in b.clauses:
            end = q.toks[items[-1][1] - 1].e
            opts.append(((end, end, ","), "trailing comma after the last selected column"))
        commas = [k for k in range(sa + 1, sz) if q.toks[k].depth == b.depth and q.toks[k].type == "COMMA"]
        for k in commas:
            if q.toks[k - 1].type in ("VAR", "R_PAREN", "IDENTIFIER") and q.toks[k + 1].type in ("VAR", "IDENTIFIER") \
                    and k + 2 < len(q.toks) and q.toks[k + 2].type in ("DOT", "L_PAREN"):
                opts.append(((q.toks[k].s, q.toks[k].e, ""), "comma missing between two selected columns"))
        for cl in ("group", "order"):
            if cl in b.clauses:
                a, z = b.clauses[cl]
                for k in range(a + 1, z):
                    if q.toks[k].depth == b.depth and q.toks[k].type == "COMMA":
                        opts.append(((q.toks[k].s, q.toks[k].e, ""), f"comma missing in the {cl.upper()} BY list"))
    if not opts:
        return None
    edit, note = rng.choice(opts)
    return _Out(_apply(q.sql, [edit]), note)


def _k_quote_slip(cx: _Ctx) -> _Out | None:
    q, rng = cx.q, cx.rng
    strs = [t for t in q.toks if t.type == "STRING" and q.sql[t.s:t.e].startswith("'") and t.text]
    if not strs:
        return None
    t = rng.choice(strs)
    raw = q.sql[t.s:t.e]
    opts = [((t.e - 1, t.e, ""), f"closing quote of {raw} missing"),
            ((t.s, t.e, "\u2018" + raw[1:-1] + "\u2019"), f"{raw} written with typographic quotes")]
    if cx.pg:
        opts.append(((t.s, t.e, '"' + raw[1:-1] + '"'), f"{raw} written in double quotes (an identifier)"))
    if "''" in raw[1:-1]:
        opts.append(((t.s, t.e, raw.replace("''", "'")), f"apostrophe in {raw} not escaped"))
    edit, note = rng.choice(opts)
    return _Out(_apply(q.sql, [edit]), note)


def _k_keyword_slip(cx: _Ctx) -> _Out | None:
    q, rng = cx.q, cx.rng
    opts = []
    for t in q.toks:
        if t.type == "END":
            start = q.toks[t.i - 1].e
            opts.append(((start, t.e, ""), "CASE expression without END"))
        if t.type == "GROUP_BY":
            opts.append(((t.s, t.e, t.text.split()[0]), "GROUP without BY"))
        if t.type == "ORDER_BY" and rng.random() < 0.5:
            opts.append(((t.s, t.e, t.text.split()[0]), "ORDER without BY"))
        if cx.pg and t.type == "EQ" and t.text == "=":
            bi = q.block_of(t.i)
            if bi is not None and q.clause_of(t.i, bi) in ("where", "having"):
                opts.append(((t.s, t.e, "=="), "comparison written with =="))
    for b in q.blocks:
        if "where" in b.clauses:
            a, z = b.clauses["where"]
            end = q.toks[z - 1].e
            if z < b.end or z == len(q.toks):
                opts.append(((end, end, " AND"), "dangling AND at the end of WHERE"))
        if "limit" in b.clauses and "order" in b.clauses:
            la, lz = b.clauses["limit"]
            oa, oz = b.clauses["order"]
            if lz == b.end and oz == la:
                lim = q.text(la, lz)
                s0, e0 = q.toks[oa].s, q.toks[lz - 1].e
                opts.append(((s0, e0, lim + " " + q.text(oa, oz)), "LIMIT written before ORDER BY"))
        if "having" in b.clauses and "group" in b.clauses:
            ha, hz = b.clauses["having"]
            ga, gz = b.clauses["group"]
            if gz == ha:
                s0, e0 = q.toks[ga].s, q.toks[hz - 1].e
                opts.append(((s0, e0, q.text(ha, hz) + " " + q.text(ga, gz)), "HAVING written before GROUP BY"))
    if not opts:
        return None
    edit, note = rng.choice(opts)
    return _Out(_apply(q.sql, [edit]), note)


_EXPECTS_MORE = {"COMMA", "AND", "OR", "WHERE", "FROM", "JOIN", "ON", "SELECT", "L_PAREN", "GROUP_BY", "ORDER_BY",
                 "DOT", "EQ", "GT", "GTE", "LT", "LTE", "NEQ", "PLUS", "DASH", "SLASH", "HAVING", "LIMIT", "CASE",
                 "WHEN", "THEN", "ELSE", "BETWEEN", "IN", "LIKE", "ILIKE", "NOT", "IS", "DISTINCT", "LEFT", "INNER",
                 "DPIPE", "ALIAS", "DCOLON"}


# ----------------------------------------------------------------------------------------------------------------
# Prose and presentation

_INTRO_EN = (
    "Here's the SQL query to answer your question:",
    "Sure! Here is the query:",
    "To get this information, you can use the following SQL query:",
    "The following query should give you the result:",
    "You can use this query:",
    "Here is a {dname} query that returns the requested data:",
    "Certainly. The SQL would be:",
    "Based on the schema provided, the query is:",
    "To answer this, we need to query the {tables} table{plural}.",
    "Here's how you can do it:",
)
_INTRO_HI = (
    "Yeh rahi aapki SQL query:",
    "Aap yeh query use kar sakte hain:",
    "Is sawaal ke liye SQL query neeche di gayi hai:",
    "Theek hai, yeh query aapko sahi result degi:",
    "Schema ke hisaab se query kuch aisi hogi:",
    "Bilkul! Neeche query hai:",
    "Is ke liye hume {tables} table use karna hoga. Query:",
)
_OUTRO_EN = (
    "This query uses the {tables} table{plural} to compute the answer.",
    "Explanation:\n- The query selects the required columns from {tables}.\n- It applies the necessary filters"
    " and aggregations.",
    "Let me know if you need any changes!",
    "Note: adjust the table or column names if your schema differs.",
    "This will return the requested rows.",
    "**Explanation:**\n1. We read from {tables}.\n2. The conditions in the query restrict the rows to what was "
    "asked.",
)
_OUTRO_HI = (
    "Is query mein humne {tables} table{plural} ka use kiya hai aur zaroori filter lagaye hain.",
    "Agar aapko aur columns chahiye to bata dijiye.",
    "Yeh query {dname} ke liye likhi gayi hai.",
    "Note: agar table ka naam alag hai to query mein badal lena.",
    "Samjhaata hoon: pehle {tables} se data liya, phir result nikala.",
)
_COMMENTS = ("-- Query to answer the question", "-- {tables}", "-- yeh query result degi",
             "-- Get the requested data", "-- Solution")


class _Fmt(dict):
    def __missing__(self, key: str) -> str:
        return ""


_TABLE_REF = re.compile(r"\b(?:FROM|JOIN)\s+([A-Za-z_`\[\]\"][\w`\[\]\".]*)", re.I)


def _fill(text: str, cx: _Ctx, sql: str | None = None) -> str:
    names: list[str] = []
    ctes = {s.tname for s in cx.q.srcs if s.is_cte}
    for m in _TABLE_REF.finditer(sql if sql is not None else cx.q.sql):
        name = m.group(1).split(".")[-1].strip('`[]"')
        if name and name.lower() not in ctes and name.lower() != "select" and name not in names:
            names.append(name)
    tables = ", ".join(f"`{n}`" for n in names[:3]) or "relevant"
    return text.format_map(_Fmt(tables=tables, plural="s" if len(names) > 1 else "",
                                dname="PostgreSQL" if cx.pg else "SQLite"))


def _hinglish(cx: _Ctx) -> bool:
    return cx.rng.random() < 0.3


def _intro(cx: _Ctx, hi: bool, sql: str | None = None) -> str:
    return _fill(cx.rng.choice(_INTRO_HI if hi else _INTRO_EN), cx, sql)


def _outro(cx: _Ctx, hi: bool, sql: str | None = None) -> str:
    return _fill(cx.rng.choice(_OUTRO_HI if hi else _OUTRO_EN), cx, sql)


def _body(sql: str, cx: _Ctx, *, semicolon: bool | None = None, comment: bool | None = None) -> str:
    rng = cx.rng
    s = sql.rstrip()
    if semicolon if semicolon is not None else rng.random() < 0.6:
        if not s.endswith(";"):
            s += ";"
    if comment if comment is not None else rng.random() < 0.2:
        s = _fill(rng.choice(_COMMENTS), cx, sql) + "\n" + s
    return s


def _fence(cx: _Ctx) -> str | None:
    r = cx.rng.random()
    if r < 0.55:
        return "```sql"
    if r < 0.67:
        return "```SQL"
    if r < 0.8:
        return "```"
    if r < 0.86:
        return "```postgresql" if cx.pg else "```sqlite"
    return None


def _present(sql: str, cx: _Ctx) -> str:
    """The SQL as a small model typically replies with it."""
    rng = cx.rng
    hi = _hinglish(cx)
    fence = _fence(cx)
    if fence is None:  # bare SQL, as SQLCoder-style models answer
        return _body(sql, cx)
    parts = []
    if rng.random() < 0.8:
        parts.append(_intro(cx, hi, sql) + "\n\n")
    parts.append(f"{fence}\n{_body(sql, cx)}\n```")
    if rng.random() < 0.55:
        parts.append("\n\n" + _outro(cx, hi, sql))
    return "".join(parts)


def _k_truncated(cx: _Ctx) -> _Out | None:
    q, rng = cx.q, cx.rng
    n = len(q.toks)
    if n < 8:
        return None
    depth_after = []
    d = 0
    for t in q.toks:
        if t.type == "L_PAREN":
            d += 1
        elif t.type == "R_PAREN":
            d -= 1
        depth_after.append(d)
    lo = max(3, int(n * 0.4))
    cands = [k for k in range(lo, n - 1) if q.toks[k].type in _EXPECTS_MORE or depth_after[k] > 0]
    strs = [k for k in range(lo, n) if q.toks[k].type == "STRING" and len(q.toks[k].text) >= 3]
    if not cands and not strs:
        return None
    if strs and (not cands or rng.random() < 0.2):
        t = q.toks[rng.choice(strs)]
        cut = t.s + 1 + rng.randint(1, max(1, len(t.text) - 1))
    else:
        cut = q.toks[rng.choice(cands)].e
    part = q.sql[:cut]
    hi = _hinglish(cx)
    fence = rng.choice(("```sql", "```sql", "```", "```SQL"))
    intro = _intro(cx, hi) + "\n\n" if rng.random() < 0.8 else ""
    reply = f"{intro}{fence}\n{part}"
    return _Out(part, f"reply cut off after {cut} of {len(q.sql)} characters", reply)


def _k_sql_in_prose(cx: _Ctx) -> _Out | None:
    q, rng = cx.q, cx.rng
    sql = q.sql.rstrip().rstrip(";")
    hi = _hinglish(cx)
    forms_en = (
        f"To answer this, you can run {sql}; which returns the requested rows.",
        f"SQL query:\n{sql};\n\n{_outro(cx, False)}",
        f"The answer is: `{sql}`",
        f"{_intro(cx, False)}\n\n{sql}\n\nThis query should work on {'PostgreSQL' if cx.pg else 'SQLite'}.",
        f"Query: {sql}\nThis returns the rows you asked for.",
    )
    forms_hi = (
        f"Aapka jawab is query se milega: {sql}; yeh sahi rows return karegi.",
        f"Query yeh hai:\n{sql}\n\n{_outro(cx, True)}",
        f"Jawab: `{sql}`",
    )
    reply = rng.choice(forms_hi if hi else forms_en)
    return _Out(sql, "SQL given inside prose without a code fence", reply)


def _k_wrapped_reply(cx: _Ctx) -> _Out | None:
    q, rng = cx.q, cx.rng
    sql = q.sql.rstrip()
    expl = "Joins the needed tables and filters the rows." if rng.random() < 0.7 else \
        "Zaroori tables join karke filter lagaya gaya hai."
    r = rng.randrange(7)
    if r == 0:
        reply = json.dumps({"sql": sql, "explanation": expl}, indent=2, ensure_ascii=False)
        note = "reply is a JSON object"
    elif r == 1:
        reply = "```json\n" + json.dumps({"query": sql}, ensure_ascii=False) + "\n```"
        note = "reply is a fenced JSON object"
    elif r == 2:
        reply = f"<sql>\n{sql}\n</sql>"
        note = "reply wrapped in <sql> tags"
    elif r == 3:
        reply = f"SQLQuery: {sql}\nSQLResult: \nAnswer:"
        note = "reply in the SQLQuery:/SQLResult: format"
    elif r == 4:
        reply = f"[SQL]\n{sql}\n[/SQL]"
        note = "reply wrapped in [SQL] tags"
    elif r == 5:
        reply = f"```\nSQL: {sql}\n```"
        note = "'SQL:' label inside the fence"
    else:
        reply = f"### Response:\n{sql};\n### End"
        note = "reply with a ### Response: header"
    return _Out(sql, note, reply)


_DRAFT_KINDS = ("filter_dropped", "join_dropped", "invented_column", "groupby_broken", "wrong_output_column",
                "and_or_confused", "filter_wrong_column", "invented_table", "wrong_qualifier")


def _k_draft_first(cx: _Ctx) -> _Out | None:
    rng = cx.rng
    order = list(_DRAFT_KINDS)
    rng.shuffle(order)
    draft = None
    for name in order:
        try:
            draft = _KINDS[name](cx)
        except Exception:  # noqa: BLE001
            draft = None
        if draft is not None and draft.sql and draft.sql != cx.q.sql:
            break
        draft = None
    if draft is None:
        return None
    hi = _hinglish(cx)
    first = "Let me start with a first attempt:" if not hi else "Pehle ek draft query:"
    fix = rng.choice((
        "Wait, that's not quite right. Here's the corrected query:",
        "Actually, the above query has an issue. The corrected version:",
        "Hmm, I made a mistake above. Let me fix it:",
        "Oops, galti ho gayi. Sahi query yeh hai:",
        "Update: a better version of the query is:",
    ))
    reply = (f"{first}\n\n```sql\n{draft.sql.rstrip()}\n```\n\n{fix}\n\n```sql\n{_body(cx.q.sql, cx)}\n```")
    return _Out(draft.sql, f"first code block is a wrong draft ({draft.note}); the second is right", reply)


def _k_filter_clause_mixup(cx: _Ctx) -> _Out | None:
    q, rng = cx.q, cx.rng
    opts = []
    for bi, b in enumerate(q.blocks):
        sa, sz = b.clauses["select"]
        aliases = {}
        for ia, iz in q.split(sa + 1, sz, b.depth, {"COMMA"}):
            if iz - ia >= 3 and q.toks[iz - 2].type == "ALIAS" and q.toks[iz - 1].type in ("VAR", "IDENTIFIER"):
                aliases[re.sub(r"\s+", "", q.text(ia, iz - 2).lower())] = q.text(iz - 1, iz)
        # HAVING aggregate condition moved into WHERE (aggregate in WHERE), maybe through its alias
        if "having" in b.clauses and "group" in b.clauses:
            ha, hz = b.clauses["having"]
            cond = q.text(ha + 1, hz)
            used = cond
            for expr, al in aliases.items():
                if re.sub(r"\s+", "", cond.lower()).startswith(expr) and rng.random() < 0.5:
                    terms = q.conds(ha + 1, hz, b.depth)[0]
                    if len(terms) == 1:
                        # replace the leading aggregate expression by the alias
                        depth0 = b.depth
                        k = ha + 1
                        while k < hz and not (q.toks[k].depth == depth0 and q.toks[k].type in _CMP | {"EQ", "NEQ"}):
                            k += 1
                        if k < hz:
                            used = al + " " + q.text(k, hz)
                    break
            rm = (q.toks[ha - 1].e, q.toks[hz - 1].e, "")
            ins = _insert_where(q, bi, used)
            if ins and ins[1] <= rm[0]:
                opts.append(([ins, rm], f"HAVING condition {cond} written in WHERE"))
        # WHERE condition on a non-grouped column moved into HAVING
        # an aggregate query without GROUP BY: a filter written as HAVING (a bare column there)
        if "where" in b.clauses and "group" not in b.clauses and "having" not in b.clauses and _has_agg(
                q, sa, sz) and not any(q.toks[k].type == "OVER" for k in range(sa, sz)):
            wa, wz = b.clauses["where"]
            terms, conns = q.conds(wa + 1, wz, b.depth)
            plain = [(ta, tz) for ta, tz in terms if not any(q.toks[k].type == "SELECT" for k in range(ta, tz))
                     and not _has_agg(q, ta, tz) and any(ta <= c.tok < tz for c in q.cols)]
            if plain and not any(q.toks[k].type == "OR" for k in conns):
                ta, tz = cx.rng.choice(plain)
                n = terms.index((ta, tz))
                cond = q.text(ta, tz)
                if len(terms) == 1:
                    rm = (q.toks[wa - 1].e, q.toks[wz - 1].e, "")
                elif n == 0:
                    rm = (q.toks[ta].s, q.toks[terms[1][0]].s, "")
                else:
                    rm = (q.toks[terms[n - 1][1] - 1].e, q.toks[tz - 1].e, "")
                end = q.toks[wz - 1].e
                opts.append(([rm, (end, end, f" HAVING {cond}")], f"WHERE condition {cond} written as HAVING"))
        if (cx.pg or cx.rng.random() < 0.5) and "where" in b.clauses and "group" in b.clauses \
                and "having" not in b.clauses:
            wa, wz = b.clauses["where"]
            ga, gz = b.clauses["group"]
            gtxt = q.text(ga, gz).lower()
            terms, conns = q.conds(wa + 1, wz, b.depth)
            if not any(q.toks[k].type == "OR" for k in conns):
                for n, (ta, tz) in enumerate(terms):
                    colnames = [c.name.lower() for c in q.cols if ta <= c.tok < tz]
                    if not colnames or any(c in gtxt for c in colnames) or any(q.toks[k].type == "SELECT"
                                                                               for k in range(ta, tz)):
                        continue
                    cond = q.text(ta, tz)
                    if len(terms) == 1:
                        rm = (q.toks[wa - 1].e, q.toks[wz - 1].e, "")
                    elif n == 0:
                        rm = (q.toks[ta].s, q.toks[terms[1][0]].s, "")
                    else:
                        rm = (q.toks[terms[n - 1][1] - 1].e, q.toks[tz - 1].e, "")
                    end = q.toks[gz - 1].e
                    opts.append(([rm, (end, end, f" HAVING {cond}")], f"WHERE condition {cond} written in HAVING"))
        # WHERE x > (SELECT AVG(x) FROM t) written as WHERE x > AVG(x)
        if "where" in b.clauses:
            wa, wz = b.clauses["where"]
            for k in range(wa, wz - 3):
                t = q.toks[k]
                if t.type == "L_PAREN" and q.toks[k + 1].type == "SELECT" and q.toks[k + 2].up() in _AGGS \
                        and q.toks[k + 3].type == "L_PAREN":
                    m = q.match(k)
                    m2 = q.match(k + 3)
                    if m is None or m2 is None or q.toks[m2 + 1].type != "FROM":
                        continue
                    if k > 0 and q.toks[k - 1].type in ("IN", "EXISTS"):
                        continue
                    agg = q.text(k + 2, m2 + 1)
                    opts.append(([(t.s, q.toks[m].e, agg)], f"scalar subquery replaced by aggregate {agg} in WHERE"))
        # WHERE expression replaced by its SELECT alias (PostgreSQL rejects it)
        if cx.pg and "where" in b.clauses:
            wa, wz = b.clauses["where"]
            wtxt = q.text(wa + 1, wz)
            for expr_norm, al in aliases.items():
                for ia, iz in q.split(sa + 1, sz, b.depth, {"COMMA"}):
                    if iz - ia >= 3 and q.toks[iz - 1].text == al and q.toks[iz - 2].type == "ALIAS":
                        raw = q.text(ia, iz - 2)
                        if len(raw) > 4 and raw in wtxt and raw != al:
                            s0 = q.toks[wa + 1].s + wtxt.index(raw)
                            opts.append(([(s0, s0 + len(raw), al)], f"SELECT alias {al} used in WHERE"))
    if not opts:
        return None
    edits, note = rng.choice(opts)
    return _Out(_apply(q.sql, edits), note)


# ----------------------------------------------------------------------------------------------------------------
# Family B kinds


def _k_agg_swapped(cx: _Ctx) -> _Out | None:
    q, rng = cx.q, cx.rng
    opts = []
    for f, m in q.funcs(_AGGS):
        name = q.toks[f].up()
        star = q.toks[f + 2].type == "STAR"
        distinct = q.toks[f + 2].type == "DISTINCT"
        bi = q.block_of(f)
        w = 3 if bi is not None and q.clause_of(f, bi) == "select" else 1
        alts = {"COUNT": [] if star or distinct else ["SUM"], "SUM": ["COUNT", "AVG", "MAX"],
                "AVG": ["SUM", "MAX"], "MAX": ["MIN", "SUM"], "MIN": ["MAX"]}[name]
        if name == "COUNT" and star and bi is not None:
            # COUNT(*) where the question meant a total of some amount: SUM of a numeric column of the block
            nums = []
            for s in cx.srcs_in(bi):
                t = cx.table(s)
                if t is None:
                    continue
                for c in t.columns:
                    ty = (c.type or "").lower()
                    if _is_num_type(ty) and re.search(r"amount|price|total|cost|quantity|qty|balance|revenue|"
                                                      r"citation|review_count|payload|capacity", c.name.lower()) \
                            and c.name.lower() not in (t.primary_key or ()) and not c.name.lower().endswith("id"):
                        nums.append(f"{s.alias}.{c.name}" if len(cx.srcs_in(bi)) > 1 else c.name)
            if nums:
                col = rng.choice(nums)
                opts += [((q.toks[f].s, q.toks[m].e, f"{_same_case(q.toks[f].text, 'SUM')}({col})"),
                          f"COUNT(*) written as SUM({col})")] * w
            continue
        for alt in alts:
            opts += [((q.toks[f].s, q.toks[f].e, _same_case(q.toks[f].text, alt)), f"{name} written as {alt}")] * w
    if not opts:
        return None
    edit, note = rng.choice(opts)
    return _Out(_apply(q.sql, [edit]), note)


def _operand_back(q: _Q, k: int) -> int | None:
    """First token of the operand that ends at token k (a call, a parenthesis, a column or a number)."""
    t = q.toks[k]
    if t.type == "R_PAREN":
        j = next((j for j in range(k - 1, -1, -1) if q.toks[j].type == "L_PAREN" and q.toks[j].depth == t.depth), None)
        if j is None:
            return None
        if j > 0 and q.toks[j - 1].type in ("VAR", "DATE") and q.toks[j - 1].depth == t.depth:
            j -= 1
        return j
    if t.type in ("VAR", "NUMBER", "IDENTIFIER"):
        j = k
        while j >= 2 and q.toks[j - 1].type == "DOT":
            j -= 2
        return j
    return None


def _operand_fwd(q: _Q, k: int) -> int | None:
    """Last token of the operand that starts at token k."""
    t = q.toks[k]
    if t.type in ("VAR", "DATE") and k + 1 < len(q.toks) and q.toks[k + 1].type == "L_PAREN":
        return q.match(k + 1)
    if t.type == "L_PAREN":
        return q.match(k)
    if t.type in ("VAR", "NUMBER", "IDENTIFIER"):
        j = k
        while j + 2 < len(q.toks) and q.toks[j + 1].type == "DOT":
            j += 2
        return j
    return None


def _core(q: _Q, a: int, z: int) -> tuple[int, int]:
    """Tokens [a, z] of an operand without a float CAST / NULLIF(..., 0) / * 1.0 wrapper."""
    head = q.toks[a].up()
    if head in ("CAST", "NULLIF") and q.toks[a + 1].type == "L_PAREN" and q.match(a + 1) == z:
        d = q.toks[a].depth + 1
        stop = next((k for k in range(a + 2, z) if q.toks[k].depth == d and q.toks[k].type in ("ALIAS", "COMMA")),
                    None)
        if stop is not None:
            return _core(q, a + 2, stop - 1)
    if q.toks[a].type == "L_PAREN" and q.match(a) == z:
        return _core(q, a + 1, z - 1)
    return a, z


def _k_ratio_inverted(cx: _Ctx) -> _Out | None:
    """Numerator and denominator of a ratio swapped ("ratio of A to B" read the other way round)."""
    q, rng = cx.q, cx.rng
    opts = []
    for t in q.toks:
        if t.type != "SLASH" or t.i == 0 or t.i + 1 >= len(q.toks):
            continue
        la = _operand_back(q, t.i - 1)
        rz = _operand_fwd(q, t.i + 1)
        if la is None or rz is None:
            continue
        # "x * 1.0 / y": the numerator is the product
        if la >= 2 and q.toks[la - 1].type == "STAR":
            la2 = _operand_back(q, la - 2)
            if la2 is not None:
                if q.toks[la].type == "NUMBER":
                    la, lz = la2, la - 2
                else:
                    lz = t.i - 1
                    la = la2
            else:
                continue
        else:
            lz = t.i - 1
        if not (_has_agg(q, la, lz + 1) and _has_agg(q, t.i + 1, rz + 1)):
            continue
        ca, cz = _core(q, la, lz)
        da, dz = _core(q, t.i + 1, rz)
        num, den = q.text(ca, cz + 1), q.text(da, dz + 1)
        if num == den or cz >= da:
            continue
        s1, e1 = q.span(ca, cz + 1)
        s2, e2 = q.span(da, dz + 1)
        opts.append(([(s1, e1, den), (s2, e2, num)], f"ratio inverted: {den} / {num} instead of {num} / {den}"))
    if not opts:
        return None
    edits, note = rng.choice(opts)
    return _Out(_apply(q.sql, edits), note)


def _k_boundary_off(cx: _Ctx) -> _Out | None:
    """Inclusive / exclusive bound confused, where rows on the boundary are likely (whole numbers, day dates)."""
    q, rng = cx.q, cx.rng
    flip = {">": ">=", ">=": ">", "<": "<=", "<=": "<"}
    opts = []
    for t in q.toks:
        if t.type in _CMP and t.i + 1 < len(q.toks):
            bi = q.block_of(t.i)
            cl = q.clause_of(t.i, bi) if bi is not None else None
            nxt = q.toks[t.i + 1]
            if cl not in ("where", "having", "from"):
                continue
            if nxt.type == "NUMBER":
                small = re.fullmatch(r"[1-9]\d?(\.5)?", nxt.text) or re.fullmatch(r"(19|20)\d\d", nxt.text)
                w = 4 if small else 0
            else:
                w = 0
            if w:
                opts += [((t.s, t.e, flip[t.text]), f"{t.text} {q.sql[nxt.s:nxt.e]} written as "
                                                       f"{flip[t.text]} {q.sql[nxt.s:nxt.e]}")] * w
        if t.type == "BETWEEN":
            bi = q.block_of(t.i)
            if bi is None:
                continue
            b = q.blocks[bi]
            cl = q.clause_of(t.i, bi)
            if cl not in ("where", "having"):
                continue
            a, z = b.clauses[cl]
            terms, _ = q.conds(a + 1, z, t.depth)
            term = next(((ta, tz) for ta, tz in terms if ta <= t.i < tz), None)
            if term is None:
                continue
            andk = next((k for k in range(t.i + 1, term[1]) if q.toks[k].type == "AND" and q.toks[k].depth ==
                         t.depth), None)
            if andk is None or term[0] >= t.i or q.toks[t.i - 1].type == "NOT":
                continue
            if not all(q.toks[k].type in ("NUMBER", "STRING") for k in (t.i + 1, andk + 1)) or andk + 2 != term[1]:
                continue
            left = q.text(term[0], t.i)
            lo, hi = q.text(t.i + 1, andk), q.text(andk + 1, term[1])
            s0, e0 = q.span(*term)
            rep = f"{left} > {lo} AND {left} < {hi}" if rng.random() < 0.5 else f"{left} >= {lo} AND {left} < {hi}"
            opts += [((s0, e0, rep), "BETWEEN written as a range that leaves out the end")] * 4
    if not opts:
        return None
    edit, note = rng.choice(opts)
    return _Out(_apply(q.sql, [edit]), note)


def _order_items(q: _Q, bi: int) -> list[tuple[int, int]]:
    b = q.blocks[bi]
    a, z = b.clauses["order"]
    return q.split(a + 1, z, b.depth, {"COMMA"})


def _k_order_flipped(cx: _Ctx) -> _Out | None:
    q, rng = cx.q, cx.rng
    opts = []
    for bi, b in enumerate(q.blocks):
        if "order" not in b.clauses or "limit" not in b.clauses:
            continue
        for ia, iz in _order_items(q, bi):
            if q.toks[ia].type == "CASE" and "NULL" in q.text(ia, iz).upper():
                continue  # SQLite's NULLS-LAST idiom: flipping it only moves NULLs
            dirs = [k for k in range(ia, iz) if q.toks[k].depth == b.depth and q.toks[k].type in ("ASC", "DESC")]
            if dirs:
                t = q.toks[dirs[-1]]
                if t.type == "DESC":
                    rep = _same_case(t.text, "ASC") if rng.random() < 0.5 else ""
                    edit = (q.toks[t.i - 1].e, t.e, (" " + rep) if rep else "")
                    note = "DESC sort written as ascending"
                else:
                    edit, note = (t.s, t.e, _same_case(t.text, "DESC")), "ASC sort written as DESC"
            else:
                nulls = next((k for k in range(ia, iz) if q.toks[k].up() == "NULLS"), None)
                end = q.toks[nulls - 1].e if nulls else q.toks[iz - 1].e
                edit, note = (end, end, " DESC"), "ascending sort written as DESC"
            opts.append((edit, note))
            break
    if not opts:
        return None
    edit, note = rng.choice(opts)
    return _Out(_apply(q.sql, [edit]), note)


def _k_limit_changed(cx: _Ctx) -> _Out | None:
    q, rng = cx.q, cx.rng
    opts = []
    for bi, b in enumerate(q.blocks):
        lim = _limit_of(q, bi)
        if lim is None or "order" not in b.clauses:
            continue
        n = int(q.toks[lim[0] + 1].text) if q.toks[lim[0] + 1].text.isdigit() else None
        if n is None:
            continue
        drop_end = q.toks[lim[1] - 1].e
        opts.append(((q.toks[lim[0] - 1].e, drop_end, ""), f"LIMIT {n} left out"))
        new = rng.choice((3, 5)) if n == 1 else rng.choice((n - 1, 1, max(1, n // 2)))
        if new == n:
            new = n + 1
        nt = q.toks[lim[0] + 1]
        opts.append(((nt.s, nt.e, str(new)), f"LIMIT {n} written as LIMIT {new}"))
    top = q.top()
    if not opts and top is not None:
        b = q.blocks[top]
        tail_ok = b.end == len(q.toks) or q.toks[b.end].type == "SEMICOLON"
        if "order" in b.clauses and "limit" not in b.clauses and tail_ok:
            n = rng.choice((1, 1, 3, 5))
            end = q.toks[b.end - 1].e
            opts.append(((end, end, f" LIMIT {n}"), f"unrequested LIMIT {n} added (read as a top-N question)"))
    if not opts:
        return None
    edit, note = rng.choice(opts)
    return _Out(_apply(q.sql, [edit]), note)


def _is_join_cond(q: _Q, ta: int, tz: int) -> bool:
    ks = [k for k in range(ta, tz)]
    return len([c for c in q.cols if ta <= c.tok < tz]) >= 2 and not any(
        q.toks[k].type in ("STRING", "NUMBER", "CURRENT_DATE", "NULL", "TRUE", "FALSE") for k in ks)


def _k_filter_dropped(cx: _Ctx) -> _Out | None:
    q, rng = cx.q, cx.rng
    opts = []
    for bi, b in enumerate(q.blocks):
        for cl in ("where", "having"):
            if cl not in b.clauses:
                continue
            a, z = b.clauses[cl]
            terms, conns = q.conds(a + 1, z, b.depth)
            if any(q.toks[k].type == "OR" for k in conns):
                if len(terms) == 1 or not conns:
                    pass
                else:
                    continue
            for n, (ta, tz) in enumerate(terms):
                if _is_join_cond(q, ta, tz):
                    continue
                cond = q.text(ta, tz)
                if len(terms) == 1:
                    edit = (q.toks[a - 1].e, q.toks[z - 1].e, "")
                elif n == 0:
                    edit = (q.toks[ta].s, q.toks[terms[1][0]].s, "")
                else:
                    edit = (q.toks[terms[n - 1][1] - 1].e, q.toks[tz - 1].e, "")
                opts += [(edit, f"{cl.upper()} condition {cond} left out")] * (2 if cl == "where" else 1)
        for s, k, z in _joins(q, bi):
            on = next((j for j in range(k, z) if q.toks[j].type == "ON" and q.toks[j].depth == b.depth), None)
            if on is None:
                continue
            terms, conns = q.conds(on + 1, z, b.depth)
            if len(terms) < 2 or any(q.toks[j].type == "OR" for j in conns):
                continue
            for n, (ta, tz) in enumerate(terms):
                if _is_join_cond(q, ta, tz):
                    continue
                edit = (q.toks[terms[n - 1][1] - 1].e, q.toks[tz - 1].e, "") if n else \
                    (q.toks[ta].s, q.toks[terms[1][0]].s, "")
                opts.append((edit, f"join condition {q.text(ta, tz)} left out"))
    if not opts:
        return None
    edit, note = rng.choice(opts)
    return _Out(_apply(q.sql, [edit]), note)


def _is_date_type(ty: str) -> bool:
    ty = ty.lower()
    return "date" in ty or "time" in ty


def _is_num_type(ty: str) -> bool:
    ty = ty.lower()
    return any(x in ty for x in ("int", "numeric", "decimal", "real", "double", "float", "money"))


def _k_filter_added(cx: _Ctx) -> _Out | None:
    q, rng = cx.q, cx.rng
    top = q.top()
    if top is None:
        return None
    srcs = [s for s in cx.srcs_in(top) if cx.table(s) is not None]
    if not srcs:
        cands_blocks = [bi for bi in range(len(q.blocks)) if any(cx.table(s) is not None for s in cx.srcs_in(bi))]
        if not cands_blocks:
            return None
        top = cands_blocks[-1]
        srcs = [s for s in cx.srcs_in(top) if cx.table(s) is not None]
    multi = len(cx.srcs_in(top)) > 1
    opts = []
    used = {c.name.lower() for c in q.cols}
    for s in srcs:
        t = cx.table(s)
        pk = {p.lower() for p in (t.primary_key or ())}
        for c in t.columns:
            ref = f"{s.alias}.{c.name}" if multi or s.alias.lower() != s.tname else c.name
            ty = c.type or ""
            low = c.name.lower()
            if low in pk or low.endswith("id") or low.endswith("code"):
                continue
            hints = tuple(getattr(c, "value_hints", ()) or ())
            if hints:
                v = rng.choice(hints).replace("'", "''")
                opts.append((f"{ref} = '{v}'", 3 if low in ("status", "type", "state") else 2))
            elif low in ("status", "is_active", "active"):
                opts.append((f"{ref} = 'active'", 2))
            if _is_date_type(ty) and low not in used:
                opts.append((f"{ref} >= '{rng.choice(('2023-01-01', '2024-01-01', '2023-06-01'))}'", 2))
            elif low == "year" and "year" not in used:
                opts.append((f"{ref} = {rng.choice((2023, 2022, 2024))}", 2))
            elif ("bool" in ty.lower() or low.startswith(("is_", "has_"))) and low not in used:
                val = ("TRUE" if "bool" in ty.lower() else "1") if cx.pg or "bool" in ty.lower() else "1"
                opts.append((f"{ref} = {val}", 2))
    if not opts:
        return None
    pool = [c for c, w in opts for _ in range(w)]
    cond = rng.choice(pool)
    ins = _insert_where(q, top, cond)
    if ins is None:
        return None
    return _Out(_apply(q.sql, [ins]), f"unrequested filter {cond} added")


def _k_and_or_confused(cx: _Ctx) -> _Out | None:
    q, rng = cx.q, cx.rng
    opts = []
    for bi, b in enumerate(q.blocks):
        for cl in ("where", "having"):
            if cl not in b.clauses:
                continue
            a, z = b.clauses[cl]
            terms, conns = q.conds(a + 1, z, b.depth)
            for k in conns:
                t = q.toks[k]
                alt = "OR" if t.type == "AND" else "AND"
                opts.append(((t.s, t.e, _same_case(t.text, alt)), f"{t.up()} written as {alt} in {cl.upper()}"))
            # a parenthesised OR group among ANDs loses its parentheses
            if len(terms) >= 2:
                for ta, tz in terms:
                    if q.toks[ta].type == "L_PAREN" and q.match(ta) == tz - 1:
                        inner_terms, inner_conns = q.conds(ta + 1, tz - 1, b.depth + 1)
                        if any(q.toks[j].type == "OR" for j in inner_conns) and \
                                not any(q.toks[j].type == "SELECT" for j in range(ta, tz)):
                            opts += [([(q.toks[ta].s, q.toks[ta].e, ""), (q.toks[tz - 1].s, q.toks[tz - 1].e, "")],
                                      "parentheses around an OR group dropped (AND binds first)")] * 2
    if not opts:
        return None
    edit, note = rng.choice(opts)
    edits = edit if isinstance(edit, list) else [edit]
    return _Out(_apply(q.sql, edits), note)


def _k_left_to_inner(cx: _Ctx) -> _Out | None:
    q, rng = cx.q, cx.rng
    opts = []
    for t in q.toks:
        if t.type == "LEFT":
            j = t.i + 1
            if j < len(q.toks) and q.toks[j].type == "OUTER":
                j += 1
            if j < len(q.toks) and q.toks[j].type == "JOIN":
                opts.append(((t.s, q.toks[j].s, ""), "LEFT JOIN written as inner JOIN"))
    if not opts:
        return None
    edit, note = rng.choice(opts)
    return _Out(_apply(q.sql, [edit]), note)


def _k_join_wrong_key(cx: _Ctx) -> _Out | None:
    q, rng = cx.q, cx.rng
    opts = []
    for bi in range(len(q.blocks)):
        for s, k, z in _joins(q, bi):
            on_cols = [c for c in q.cols if k < c.tok < z and c.qual]
            for c in on_cols:
                src, t = cx.resolve(c)
                if t is None:
                    continue
                others = [o for o in on_cols if o is not c]
                other_names = {o.name.lower() for o in others}
                alts = []
                for col in t.columns:
                    low = col.name.lower()
                    if low == c.name.lower():
                        continue
                    if low == "id" or low.endswith("_id") or (low.endswith("id") and len(low) <= 5) \
                            or low in other_names:
                        alts.append(col.name)
                if alts:
                    pref = [a for a in alts if a.lower() in other_names or a.lower() == "id"]
                    new = rng.choice(pref if pref and rng.random() < 0.7 else alts)
                    opts.append(((c.s, c.e, new), f"join on {c.qual}.{new} instead of {c.qual}.{c.name}"))
    if not opts:
        return None
    edit, note = rng.choice(opts)
    return _Out(_apply(q.sql, [edit]), note)


_FLOATY = ("FLOAT", "REAL", "DOUBLE", "NUMERIC", "DECIMAL")


def _k_integer_division(cx: _Ctx) -> _Out | None:
    q, rng = cx.q, cx.rng
    if not any(t.type == "SLASH" for t in q.toks):
        return None
    opts = []
    for t in q.toks:
        if t.type == "VAR" and t.up() == "CAST" and t.i + 1 < len(q.toks) and q.toks[t.i + 1].type == "L_PAREN":
            m = q.match(t.i + 1)
            if m is None:
                continue
            al = next((k for k in range(t.i + 2, m) if q.toks[k].type == "ALIAS" and q.toks[k].depth == t.depth + 1),
                      None)
            if al is None or not any(x in q.text(al + 1, m).upper() for x in _FLOATY):
                continue
            near = any(q.toks[j].type == "SLASH" for j in (t.i - 1, m + 1) if 0 <= j < len(q.toks))
            inner = q.text(t.i + 2, al)
            opts += [((t.s, q.toks[m].e, inner if _simple(q, t.i + 2, al) else f"({inner})"),
                      "float CAST removed: integer division")] * (3 if near else 1)
        if t.type == "DCOLON" and t.i + 1 < len(q.toks) and q.toks[t.i + 1].up() in (
                "FLOAT", "REAL", "NUMERIC", "DECIMAL", "DOUBLE", "FLOAT8", "FLOAT4"):
            end = q.toks[t.i + 1]
            if t.i + 2 < len(q.toks) and q.toks[t.i + 2].up() == "PRECISION":
                end = q.toks[t.i + 2]
            opts.append(((t.s, end.e, ""), f"cast {q.sql[t.s:end.e]} removed: integer division"))
        if t.type == "NUMBER" and re.fullmatch(r"\d+\.0+", t.text):
            prev = q.toks[t.i - 1] if t.i else None
            nxt = q.toks[t.i + 1] if t.i + 1 < len(q.toks) else None
            whole = t.text.split(".")[0]
            if whole == "1" and nxt is not None and nxt.type == "STAR":
                opts.append(((t.s, q.toks[t.i + 2].s if t.i + 2 < len(q.toks) else nxt.e, ""), "1.0 * removed: "
                             "integer division"))
            elif whole == "1" and prev is not None and prev.type == "STAR":
                opts.append(((q.toks[t.i - 2].e if t.i >= 2 else prev.s, t.e, ""), "* 1.0 removed: integer division"))
            elif (prev is not None and prev.type in ("STAR", "SLASH")) or (nxt is not None and nxt.type in ("STAR",)):
                opts.append(((t.s, t.e, whole), f"{t.text} written as {whole}: integer division"))
    if not opts:
        return None
    edit, note = rng.choice(opts)
    return _Out(_apply(q.sql, [edit]), note)


def _simple(q: _Q, a: int, z: int) -> bool:
    return all(q.toks[k].depth > q.toks[a].depth or q.toks[k].type not in ("SLASH", "STAR", "PLUS", "DASH")
               for k in range(a, z)) or (q.toks[a].type == "L_PAREN" and q.match(a) == z - 1)


_SPELL = {"CA": "California", "NY": "New York", "US": "USA", "TX": "Texas", "LAX": "Los Angeles", "ORD": "Chicago",
          "UK": "United Kingdom", "Los Angeles": "LA", "New York": "NYC", "San Francisco": "SF"}


def _k_literal_variant(cx: _Ctx) -> _Out | None:
    q, rng = cx.q, cx.rng
    opts = []
    for t in q.toks:
        if t.type != "STRING" or not re.search(r"[A-Za-z]", t.text) or re.match(r"^\d{4}-\d", t.text) or "%" in \
                t.text:
            continue
        prev = q.toks[t.i - 1] if t.i else None
        ok = prev is not None and prev.type in ("EQ", "NEQ")
        if not ok and prev is not None and prev.type in ("L_PAREN", "COMMA") and t.depth > 0:
            k = t.i - 1
            while k >= 0 and not (q.toks[k].type == "L_PAREN" and q.toks[k].depth == t.depth - 1):
                k -= 1
            ok = k > 0 and q.toks[k - 1].type == "IN"
        if not ok:
            continue
        # the other side lower-cased / upper-cased, or a function argument: the case does not matter there
        k = t.i - 1
        while k >= 0 and q.toks[k].depth >= t.depth and q.toks[k].type not in ("AND", "OR", "WHERE", "ON", "WHEN",
                                                                                "HAVING"):
            k -= 1
        left = q.text(k + 1, t.i).upper() if k + 1 < t.i else ""
        if "LOWER(" in left.replace(" ", "") or "UPPER(" in left.replace(" ", ""):
            continue
        if t.text.upper() in ("TRUE", "FALSE"):
            continue
        s = t.text
        variants = []
        if s in _SPELL:
            variants.append(_SPELL[s])
        if s.islower():
            variants.append(s.capitalize() if len(s) > 3 else s.upper())
        elif s.isupper():
            variants.append(s.lower() if len(s) <= 3 else s.title())
        else:
            variants.append(s.lower())
            if " " in s:
                variants.append(s.upper())
        variants = [v for v in variants if v != s]
        if not variants:
            continue
        v = rng.choice(variants).replace("'", "''")
        opts.append(((t.s, t.e, f"'{v}'"), f"literal '{s}' written as '{v}'"))
    if not opts:
        return None
    edit, note = rng.choice(opts)
    return _Out(_apply(q.sql, [edit]), note)


def _sibling(cx: _Ctx, t: Any, name: str, exclude: set[str], want_same_type: bool = True) -> list[str]:
    col = t.column(name)
    low = name.lower()
    pk = {p.lower() for p in (t.primary_key or ())}
    toks = set(re.split(r"_", low))
    out, near = [], []
    for c in t.columns:
        cl = c.name.lower()
        if cl == low or cl in exclude or cl in pk:
            continue
        if want_same_type and col is not None and _kind(c.type) != _kind(col.type):
            continue
        out.append(c.name)
        if toks & set(cl.split("_")) - {"id"}:
            near.append(c.name)
    return near if near and cx.rng.random() < 0.75 else out


def _kind(ty: str | None) -> str:
    ty = (ty or "").lower()
    if _is_date_type(ty):
        return "date"
    if _is_num_type(ty):
        return "num"
    return "text"


def _k_wrong_output_column(cx: _Ctx) -> _Out | None:
    q, rng = cx.q, cx.rng
    opts = []
    top = q.top()
    for c, s, t in cx.schema_cols():
        if c.block != top or q.clause_of(c.tok, c.block) != "select":
            continue
        # only a bare column item (possibly aliased), not inside an expression
        b = q.blocks[c.block]
        if q.toks[c.tok].depth != b.depth:
            continue
        sel_cols = {o.name.lower() for o in q.cols if o.block == c.block and q.clause_of(o.tok, o.block) == "select"}
        alts = _sibling(cx, t, c.name, sel_cols)
        if alts:
            opts.append((c, s, alts))
    pick = cx.pick(opts)
    if pick is None:
        return None
    c, s, alts = pick
    new = rng.choice(alts)
    edits = [(o.s, o.e, new) for o in q.cols if o.block == c.block and o.name.lower() == c.name.lower()
             and (o.qual or "").lower() == (c.qual or "").lower()
             and q.clause_of(o.tok, o.block) in ("select", "group", "order")]
    return _Out(_apply(q.sql, edits), f"selected {s.tname}.{new} instead of {c.name}")


def _k_filter_wrong_column(cx: _Ctx) -> _Out | None:
    q, rng = cx.q, cx.rng
    opts = []
    for c, s, t in cx.schema_cols():
        if q.clause_of(c.tok, c.block) != "where":
            continue
        nxt = q.toks[c.tok + 1] if c.tok + 1 < len(q.toks) else None
        if nxt is None or nxt.type not in ("EQ", "NEQ", "GT", "GTE", "LT", "LTE", "LIKE", "ILIKE", "IN", "BETWEEN",
                                           "IS", "NOT"):
            continue
        alts = _sibling(cx, t, c.name, set())
        if alts:
            opts.append((c, s, alts))
    pick = cx.pick(opts)
    if pick is None:
        return None
    c, s, alts = pick
    new = rng.choice(alts)
    return _Out(_apply(q.sql, [(c.s, c.e, new)]), f"filter on {s.tname}.{new} instead of {c.name}")


def _k_null_equals(cx: _Ctx) -> _Out | None:
    q, rng = cx.q, cx.rng
    opts = []
    for t in q.toks[:-1]:
        if t.type != "IS":
            continue
        bi = q.block_of(t.i)
        if bi is None or q.clause_of(t.i, bi) not in ("where", "having", "from"):
            continue
        n1 = q.toks[t.i + 1]
        if n1.type == "NULL":
            opts.append(((t.s, t.e, "="), "IS NULL written as = NULL"))
        elif n1.type == "NOT" and t.i + 2 < len(q.toks) and q.toks[t.i + 2].type == "NULL":
            opts.append(((t.s, n1.e, rng.choice(("!=", "<>"))), "IS NOT NULL written as != NULL"))
    if not opts:
        return None
    edit, note = rng.choice(opts)
    return _Out(_apply(q.sql, [edit]), note)


def _k_today_hardcoded(cx: _Ctx) -> _Out | None:
    q, rng = cx.q, cx.rng
    day = rng.choice(("2023-10-01", "2024-01-01", "2023-12-31", "2023-06-15", "2024-03-01"))
    edits = []
    for s, e, kind in _now_spots(q):
        if kind == "current_date":
            edits.append((s, e, f"DATE '{day}'" if cx.pg else f"'{day}'"))
        elif kind in ("current_timestamp", "now"):
            edits.append((s, e, f"TIMESTAMP '{day} 00:00:00'" if cx.pg else f"'{day} 00:00:00'"))
    for t in q.toks:
        if t.type == "STRING" and t.text.lower() == "now" and t.i > 1 and q.toks[t.i - 1].type == "L_PAREN" and \
                q.toks[t.i - 2].up() in ("DATE", "DATETIME", "STRFTIME", "JULIANDAY"):
            edits.append((t.s, t.e, f"'{day}'"))
        elif t.type == "STRING" and t.text.lower() == "now" and t.i > 1 and q.toks[t.i - 1].type == "COMMA":
            edits.append((t.s, t.e, f"'{day}'"))
    if not edits:
        return None
    return _Out(_apply(q.sql, sorted(set(edits))), f"today written as the literal date {day}")


def _k_date_granularity(cx: _Ctx) -> _Out | None:
    q, rng = cx.q, cx.rng
    opts = []
    units = ("day", "week", "month", "quarter", "year")
    for f, m, unit, (ea, ez) in _date_trunc_calls(q):
        u = unit.strip().lower()
        if u not in units:
            continue
        i = units.index(u)
        alts = [units[j] for j in (i - 1, i + 1) if 0 <= j < len(units)]
        new = rng.choice(alts)
        st = q.toks[f + 2]
        raw = q.sql[st.s:st.e]
        opts.append(((st.s, st.e, raw[0] + _same_case(unit.strip(), new) + raw[-1]),
                     f"DATE_TRUNC('{u}') written as '{new}'"))
    for f, m, fmt, (ea, ez), args in _strftime_calls(q):
        alts = {"%Y-%m": ["%m", "%Y", "%Y-%W"], "%Y-%m-01": ["%m", "%Y-01-01"], "%Y": ["%Y-%m"],
                "%Y-%m-%d": ["%Y-%m", "%d"], "%Y-%W": ["%W", "%Y-%m"], "%m": ["%Y-%m", "%d"],
                "%w": ["%W", "%d"], "%W": ["%w", "%m"]}.get(fmt)
        if alts:
            new = rng.choice(alts)
            st = q.toks[f + 2]
            opts.append(((st.s, st.e, f"'{new}'"), f"strftime('{fmt}') written as '{new}'"))
    for f, m, part, (ea, ez) in _extract_calls(q):
        alts = {"year": ["month"], "month": ["year", "day"], "day": ["dow", "month"], "dow": ["day"],
                "week": ["month"], "quarter": ["month"], "hour": ["minute"]}.get(part)
        if alts:
            new = rng.choice(alts)
            pa, pz = f + 2, next(k for k in range(f + 2, m) if q.toks[k].type == "FROM")
            s0, e0 = q.span(pa, pz)
            opts.append(((s0, e0, _same_case(q.sql[s0:e0], new)), f"EXTRACT({part}) written as {new}"))
    for k, sk, text in _intervals(q):
        amt = _parse_amount(text)
        if amt:
            n, unit = amt
            new_unit = {"DAY": "week", "WEEK": "day", "MONTH": "week", "YEAR": "month"}.get(unit)
            if new_unit:
                st = q.toks[sk]
                opts.append(((st.s, st.e, f"'{abs(n)} {new_unit}{'s' if abs(n) != 1 else ''}'"),
                             f"interval '{text}' written in {new_unit}s"))
    if not cx.pg:
        for f, m, fn, mod in _sqlite_now_mods(q):
            amt = _parse_amount(mod) if mod else None
            if amt:
                n, unit = amt
                new_unit = {"DAY": "months", "MONTH": "days", "YEAR": "months"}.get(unit)
                if new_unit:
                    args = _call_args(q, f, m)
                    st = q.toks[args[1][0]]
                    opts.append(((st.s, st.e, f"'{'-' if n < 0 else '+'}{abs(n)} {new_unit}'"),
                                 f"date modifier {mod} written in {new_unit}"))
    if not opts:
        return None
    edit, note = rng.choice(opts)
    return _Out(_apply(q.sql, [edit]), note)


def _k_clean(cx: _Ctx) -> _Out | None:
    return _Out(cx.q.sql, "gold query, unchanged")


_KINDS = {
    "clean": _k_clean,
    "invented_column": _k_invented_column,
    "invented_table": _k_invented_table,
    "wrong_qualifier": _k_wrong_qualifier,
    "join_dropped": _k_join_dropped,
    "ambiguous_column": _k_ambiguous_column,
    "groupby_broken": _k_groupby_broken,
    "mysql_dialect": _k_mysql_dialect,
    "tsql_dialect": _k_tsql_dialect,
    "oracle_dialect": _k_oracle_dialect,
    "engine_mixup": _k_engine_mixup,
    "paren_slip": _k_paren_slip,
    "comma_slip": _k_comma_slip,
    "quote_slip": _k_quote_slip,
    "keyword_slip": _k_keyword_slip,
    "truncated": _k_truncated,
    "sql_in_prose": _k_sql_in_prose,
    "wrapped_reply": _k_wrapped_reply,
    "draft_first": _k_draft_first,
    "filter_clause_mixup": _k_filter_clause_mixup,
    "agg_swapped": _k_agg_swapped,
    "ratio_inverted": _k_ratio_inverted,
    "boundary_off": _k_boundary_off,
    "order_flipped": _k_order_flipped,
    "limit_changed": _k_limit_changed,
    "filter_dropped": _k_filter_dropped,
    "filter_added": _k_filter_added,
    "and_or_confused": _k_and_or_confused,
    "left_to_inner": _k_left_to_inner,
    "join_wrong_key": _k_join_wrong_key,
    "integer_division": _k_integer_division,
    "literal_variant": _k_literal_variant,
    "wrong_output_column": _k_wrong_output_column,
    "filter_wrong_column": _k_filter_wrong_column,
    "null_equals": _k_null_equals,
    "today_hardcoded": _k_today_hardcoded,
    "date_granularity": _k_date_granularity,
}
assert set(_KINDS) == set(DAMAGE_KINDS)


def _rng(kind: str, seed: int, gold_sql: str) -> random.Random:
    digest = hashlib.sha256(repr(("fresh6", kind, seed, gold_sql)).encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def damage(gold_sql: str, schema: Any, kind: str, seed: int) -> Damaged | None:
    """The reply a small model would give instead of ``gold_sql``, damaged in ``kind``; None when it does not apply."""
    try:
        fn = _KINDS.get(kind)
        if fn is None or not isinstance(gold_sql, str) or not gold_sql.strip():
            return None
        dialect = str(getattr(schema, "dialect", "") or "postgres").lower()
        if dialect not in ("postgres", "sqlite", "duckdb", "mysql"):
            dialect = "postgres"
        rng = _rng(kind, seed, gold_sql)
        q = _parse(gold_sql, dialect)
        cx = _Ctx(q, schema, rng, dialect)
        out = fn(cx)
        if out is None:
            return None
        if kind != "clean" and out.reply is None and (out.sql is None or out.sql.strip() == gold_sql.strip()):
            return None
        reply = out.reply if out.reply is not None else _present(out.sql or "", cx)
        return Damaged(kind, reply, out.note.replace("\n", " "))
    except Exception:  # noqa: BLE001
        return None
