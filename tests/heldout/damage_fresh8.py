"""Held-out damage generator "fresh8": wrong replies a small local model (7-8B) plausibly sends.

Written without looking at Cairn's repair code or at the other generators. Each damage is one realistic mistake,
after published text-to-SQL error studies (BIRD/Spider error analyses, DIN-SQL error classes, MAC-SQL and CHESS
schema-linking failures). All edits are made in place on the gold text, at positions taken from sqlglot tokens and
identifier metadata, so nothing is re-rendered and TREE_KINDS is empty.

Family A - the database rejects the reply, or the reply is malformed around the SQL:
  col_morph       a column in another shape: plural/singular, camelCase/snake_case, abbreviation (every use)
  table_morph     a table written pluralised/singularised or re-cased (every use)
  prefix_guess    schema-linking guess: author_name for name, price for sale_price, title for name
  wrong_owner     a qualified column given the alias of another table in the same FROM
  ambiguous_bare  the qualifier dropped from a column that two joined tables both have
  grouping_error  GROUP BY dropped, a GROUP BY item dropped, or a HAVING condition moved into WHERE
  dialect_mixup   an idiom of another dialect: TOP n, NVL/ISNULL, LEN, YEAR(), DATE_FORMAT, DATEADD, ::casts,
                  CONVERT, ILIKE in SQLite, COLLATE NOCASE or double-quoted strings in PostgreSQL, GETDATE()
  syntax_slip     missing comma or ')', trailing comma, dangling AND, open quote, clause order, '=' with a list
  cut_off         the reply stops mid-query (token limit), the fence never closed
  prose_inline    the SQL written inside a sentence or a bullet (English or Hinglish), no fence
  json_envelope   the reply is a JSON object with the SQL as an escaped string
  several_blocks  more than one SQL block: a data preview first, or a broken draft followed by the fix
  ghost_join      a join to a table the question does not need, which makes a bare column ambiguous

Family B - the reply runs but returns other rows:
  inner_join_loss a needless INNER JOIN to a child table, or LEFT JOIN written as JOIN (drops/multiplies rows)
  agg_swap        the wrong aggregate (SUM/AVG, MAX/MIN, COUNT(DISTINCT) -> COUNT)
  comparison_slip comparison direction flipped, <> written as =, IS NULL written as = NULL
  filter_dropped  one WHERE/HAVING condition forgotten
  limit_slip      LIMIT changed or dropped, or a LIMIT added as if the question asked for a top-n
  order_flip      sort direction reversed where a LIMIT picks the top rows
  sibling_swap    a sibling column of the same table used instead (start/end, first/last, from/to ...)
  literal_case    a string literal compared with the wrong letter case
  int_division    the float cast of a ratio forgotten (integer division)
  join_key_mixup  a join condition pairing the wrong key column of the same table
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.optimizer.scope import traverse_scope
from sqlglot.tokens import TokenType as TT

__all__ = ["DAMAGE_KINDS", "TREE_KINDS", "Damaged", "damage"]

FAMILY_A = ("col_morph", "table_morph", "prefix_guess", "wrong_owner", "ambiguous_bare", "grouping_error",
            "dialect_mixup", "syntax_slip", "cut_off", "prose_inline", "json_envelope", "several_blocks",
            "ghost_join")
FAMILY_B = ("inner_join_loss", "agg_swap", "comparison_slip", "filter_dropped", "limit_slip", "order_flip",
            "sibling_swap", "literal_case", "int_division", "join_key_mixup")
DAMAGE_KINDS: tuple[str, ...] = ("clean", *FAMILY_A, *FAMILY_B)
TREE_KINDS: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Damaged:
    kind: str
    reply: str
    note: str


# ----------------------------------------------------------------------------------------------------------------
# Parsed query: tokens, paren depth, SELECT blocks and resolved column references


class _Skip(Exception):
    pass


AGGS = {"COUNT", "SUM", "AVG", "MIN", "MAX"}
CLAUSE_TT = {TT.FROM: "from", TT.WHERE: "where", TT.GROUP_BY: "group", TT.HAVING: "having",
             TT.ORDER_BY: "order", TT.LIMIT: "limit", TT.OFFSET: "offset"}
SET_OPS = {TT.UNION, TT.INTERSECT, TT.EXCEPT}
JOIN_WORDS = {TT.LEFT, TT.RIGHT, TT.INNER, TT.OUTER, TT.FULL, TT.CROSS, TT.NATURAL}


@dataclass
class _Block:
    sel: int                      # token index of SELECT
    depth: int
    end: int                      # token index one past the block
    kw: dict                      # clause -> token index of its keyword
    rng: dict                     # clause -> (first content token, one past last)


@dataclass
class _Ref:
    col: exp.Column
    table: object                 # core.schema.Table
    qual: str                     # qualifier as written ('' when bare)
    sources: dict                 # alias (lower) -> (alias as written, Table) in this scope
    clause: str
    a: int                        # char span of the column name [a, b)
    b: int
    qa: int                       # char start of the qualifier (-1 when bare)
    scope: object


TYPE_FAMILIES = (("text", ("char", "text", "string", "clob")), ("time", ("date", "time")), ("bool", ("bool",)),
                 ("num", ("int", "num", "dec", "real", "float", "double", "serial", "money")))


def _fam(typ: str) -> str:
    t = (typ or "").lower()
    return next((fam for fam, words in TYPE_FAMILIES if any(w in t for w in words)), "other")


class _Q:
    def __init__(self, sql: str, schema):
        self.sql = sql
        self.schema = schema
        self.d = "postgres" if "postg" in str(getattr(schema, "dialect", "")).lower() else "sqlite"
        self.tables = {}
        for t in schema.tables:
            self.tables.setdefault(t.name.lower(), t)
        self._tokenize(sql, self.d)
        if not self.toks:
            raise _Skip
        trees = [t for t in sqlglot.parse(sql, read=self.d) if t is not None]
        if len(trees) != 1:
            raise _Skip
        self.tree = trees[0]
        self.blocks = self._blocks()
        self._refs = None

    def _tokenize(self, sql, d):
        self.sql, self.toks, self.depth, dep = sql, sqlglot.tokenize(sql, read=d), [], 0
        for t in self.toks:
            dep -= t.token_type == TT.R_PAREN
            self.depth.append(dep)
            dep += t.token_type == TT.L_PAREN
        return self

    # -- text helpers
    def tt(self, i):
        return self.toks[i].token_type if 0 <= i < len(self.toks) else None

    def up(self, i):
        return self.toks[i].text.upper() if 0 <= i < len(self.toks) else ""

    def cs(self, i):                      # char start of token i
        return self.toks[i].start

    def ce(self, i):                      # char end (exclusive) of token i
        return self.toks[i].end + 1

    def text(self, i, j):                 # text of tokens [i, j)
        return self.sql[self.cs(i):self.ce(j - 1)]

    def apply(self, edits) -> str:
        edits = sorted(edits, key=lambda e: (e[0], e[1]))
        for (a1, b1, _), (a2, _, _) in zip(edits, edits[1:]):
            if a2 < b1:
                raise _Skip
        out = self.sql
        for a, b, s in reversed(edits):
            out = out[:a] + s + out[b:]
        return out

    def close(self, i):                   # matching ')' of the '(' at token i
        for j in range(i + 1, len(self.toks)):
            if self.tt(j) == TT.R_PAREN and self.depth[j] == self.depth[i]:
                return j
        raise _Skip

    def split(self, s, e, d, sep=(TT.COMMA,)):
        """Token ranges of [s, e) split at separators of depth d."""
        parts, start = [], s
        for k in range(s, e):
            if self.depth[k] == d and self.tt(k) in sep:
                parts.append((start, k))
                start = k + 1
        parts.append((start, e))
        return [p for p in parts if p[0] < p[1]]

    def conjuncts(self, s, e, d):
        """[s, e) split at top-level AND (not the AND of BETWEEN): list of (start, end, index of AND before)."""
        out, start, between, prev_and = [], s, False, -1
        for k in range(s, e):
            if self.depth[k] != d:
                continue
            if self.tt(k) == TT.BETWEEN:
                between = True
            elif self.tt(k) == TT.AND:
                if between:
                    between = False
                    continue
                out.append((start, k, prev_and))
                start, prev_and = k + 1, k
        out.append((start, e, prev_and))
        return out

    def _blocks(self):
        out, n = [], len(self.toks)
        for i, t in enumerate(self.toks):
            if t.token_type != TT.SELECT:
                continue
            d, kw, cur, k = self.depth[i], {"select": i}, "select", i + 1
            while k < n and self.depth[k] >= d:
                if self.depth[k] == d and (self.tt(k) in SET_OPS or self.tt(k) == TT.SELECT):
                    break
                if self.depth[k] == d and self.tt(k) in CLAUSE_TT and CLAUSE_TT[self.tt(k)] not in kw:
                    cur = CLAUSE_TT[self.tt(k)]
                    kw[cur] = k
                k += 1
            order = sorted(kw.items(), key=lambda x: x[1])
            rng = {}
            for (name, idx), nxt in zip(order, [*order[1:], (None, k)]):
                rng[name] = (idx + 1, nxt[1])
            out.append(_Block(i, d, k, kw, rng))
        return out

    def outer(self):
        return self.blocks[0] if self.blocks else None

    def block_at(self, k):
        """The innermost SELECT block that holds token k."""
        return max((b for b in self.blocks if b.sel <= k < b.end), key=lambda b: b.depth, default=None)

    def tok_at(self, pos):
        return next((i for i, t in enumerate(self.toks) if t.start == pos), -1)

    def clause_at(self, k):
        b = self.block_at(k)
        return next((name for name, (s, e) in b.rng.items() if s <= k < e), "") if b else ""

    # -- columns
    def names_in_query(self):
        names = set()
        for t in self.tree.find_all(exp.Table):
            tab = self.tables.get(t.name.lower())
            if tab:
                names |= {c.name.lower() for c in tab.columns}
            if t.alias:
                names.add(t.alias.lower())
        for a in self.tree.find_all(exp.Alias):
            names.add(a.alias.lower())
        return names

    def query_tables(self):
        return {t.name.lower() for t in self.tree.find_all(exp.Table)}

    def refs(self):
        if self._refs is not None:
            return self._refs
        out = []
        try:
            scopes = list(traverse_scope(self.tree))
        except Exception:
            scopes = []
        for scope in scopes:
            srcs = {}
            for alias, src in scope.sources.items():
                if isinstance(src, exp.Table) and self.tables.get(src.name.lower()):
                    srcs[alias.lower()] = (alias, self.tables[src.name.lower()])
            sel = scope.expression
            out_names = {e.alias.lower() for e in getattr(sel, "expressions", []) if isinstance(e, exp.Alias)}
            for col in scope.columns:
                ident = col.this
                if not isinstance(ident, exp.Identifier) or "start" not in ident.meta:
                    continue
                a, b = ident.meta["start"], ident.meta["end"] + 1
                if self.sql[a:b].lower() != col.name.lower():
                    continue
                q = col.table
                if q:
                    hit = srcs.get(q.lower())
                    if not hit or not hit[1].column(col.name):
                        continue
                    tab = hit[1]
                    qi = col.args.get("table")
                    qa = qi.meta.get("start", -1) if isinstance(qi, exp.Identifier) else -1
                    if qa < 0 or col.args.get("db"):
                        continue
                else:
                    if col.name.lower() in out_names:
                        continue
                    hits = [t for _, t in srcs.values() if t.column(col.name)]
                    if len(hits) != 1:
                        continue
                    tab, qa = hits[0], -1
                out.append(_Ref(col, tab, q, srcs, _clause_of(col, sel), a, b, qa, scope))
        self._refs = out
        return out


def _clause_of(node, sel):
    while node is not None and node.parent is not sel:
        node = node.parent
    return {"expressions": "select", "joins": "join", "group": "group", "order": "order", "where": "where",
            "having": "having", "from": "from"}.get(node.arg_key if node is not None else "", "other")


# ----------------------------------------------------------------------------------------------------------------
# Name shapes


ABBR = {"date": "dt", "dt": "date", "number": "num", "num": "number", "amount": "amt", "amt": "amount",
        "quantity": "qty", "qty": "quantity", "count": "cnt", "cnt": "count", "address": "addr",
        "addr": "address", "description": "descr", "transaction": "txn", "tx": "transaction",
        "txn": "transaction", "category": "cat", "year": "yr", "average": "avg", "avg": "average",
        "department": "dept", "dept": "department", "cust": "customer", "customer": "cust", "appr": "approved",
        "diag": "diagnosis", "ins": "insurance", "reg": "registration", "registration": "reg",
        "percentage": "pct", "pct": "percent", "identifier": "id", "doc": "doctor", "doctor": "doc",
        "information": "info", "info": "information", "temperature": "temp", "minimum": "min", "min": "minimum",
        "maximum": "max", "max": "maximum", "phone": "phone_number", "code": "cd", "pub": "publication",
        "publication": "pub", "conf": "conference", "conference": "conf", "org": "organization",
        "organization": "org"}
ROLE = {"name": ["full_name", "title"], "title": ["name"], "price": ["cost"], "cost": ["price"],
        "rating": ["stars"], "stars": ["rating"], "homepage": ["website", "url"], "email": ["email_address"],
        "created_at": ["created_date", "creation_date"], "year": ["pub_year", "publication_year"],
        "text": ["content"], "population": ["pop_count"], "area": ["size"], "length": ["river_length"]}


def _words(n):
    if "_" in n:
        return [w for w in n.split("_") if w], "snake"
    parts = re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", n)
    return (parts, "camel") if len(parts) > 1 else ([n], "one")


def _join(parts, style):
    if style == "camel":
        return parts[0].lower() + "".join(p[:1].upper() + p[1:].lower() for p in parts[1:])
    return "_".join(p.lower() if style != "keep" else p for p in parts)


def _plural(w):
    lw = w.lower()
    if lw.endswith("ies"):
        return w[:-3] + "y"
    if lw.endswith("ss") or lw.endswith("us"):
        return w + "es"
    if lw.endswith("s") and len(w) > 3:
        return w[:-1]
    if lw.endswith("y") and lw[-2:-1] not in "aeiou":
        return w[:-1] + "ies"
    return w + "s"


def _morphs(n):
    parts, style = _words(n)
    out = []
    last = _plural(parts[-1])
    out.append(_join([*parts[:-1], last], style if style != "one" else "keep") if style != "one" else last)
    if style == "snake":
        out += [_join(parts, "camel"), "".join(p.lower() for p in parts)]
    elif style == "camel":
        out.append("_".join(p.lower() for p in parts))
    for i, p in enumerate(parts):
        if p.lower() in ABBR:
            rep = ABBR[p.lower()]
            out.append(_join([*parts[:i], rep, *parts[i + 1:]], "snake" if style == "one" else style))
    return out


def _sing(t):
    return t[:-3] + "y" if t.endswith("ies") else t[:-1] if t.endswith("s") and not t.endswith("ss") else t


def _prefix_guesses(col, table):
    parts, style = _words(col)
    tname = _sing(table.lower().split(".")[-1])
    out = []
    if style == "one" or (style == "snake" and not tname.startswith(parts[0].lower())):
        if not col.lower().startswith(tname):
            out.append(f"{tname}_{col.lower()}")
    if len(parts) > 1:
        head = parts[0].lower()
        if tname.startswith(head[:3]) or head in ("sb", "tbl") or len(head) <= 2:
            rest = parts[1:]
            if len(rest) > 1 and len(rest[0]) <= 4 and style == "camel":
                out.append(_join(rest[1:], "snake") if len(rest) > 2 else rest[-1].lower())
            out.append(_join(rest, "snake"))
        if parts[-1].lower() in ("name", "code", "num", "nm") and len(parts) == 2:
            out.append(parts[0].lower())
    out += ROLE.get(col.lower(), [])
    return out


def _ident_ok(s):
    return re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", s) is not None


# ----------------------------------------------------------------------------------------------------------------
# Family A


def _k_col_morph(q, rng, guess=False):
    groups = {}
    for r in q.refs():
        groups.setdefault((r.table.name.lower(), r.col.name.lower()), []).append(r)
    taken = q.names_in_query() | set(q.tables)
    keys = sorted(groups)
    rng.shuffle(keys)
    for key in keys:
        rs = groups[key]
        name = q.sql[rs[0].a:rs[0].b]
        cands = _prefix_guesses(name, rs[0].table.name) if guess else _morphs(name)
        cands = sorted({c for c in cands if _ident_ok(c) and c.lower() not in taken and c.lower() != name.lower()})
        if cands:
            new = rng.choice(cands)
            why = "guessed from the question" if guess else "in another shape"
            return q.apply([(r.a, r.b, new) for r in rs]), f"column {key[0]}.{name} written as {new} ({why})"
    return None


def _k_table_morph(q, rng):
    occ = {}
    for t in q.tree.find_all(exp.Table):
        ident = t.this
        if q.tables.get(t.name.lower()) and isinstance(ident, exp.Identifier) and "start" in ident.meta:
            a = ident.meta["start"]
            if q.sql[a:a + len(t.name)].lower() == t.name.lower():
                occ.setdefault(t.name.lower(), []).append((a, a + len(t.name)))
    if not occ:
        return None
    name = rng.choice(sorted(occ))
    spans = list(occ[name])
    for col in q.tree.find_all(exp.Column):
        qi = col.args.get("table")
        if isinstance(qi, exp.Identifier) and qi.name.lower() == name and "start" in qi.meta:
            spans.append((qi.meta["start"], qi.meta["start"] + len(qi.name)))
    written = q.sql[spans[0][0]:spans[0][1]]
    parts, style = _words(written)
    cands = {_plural(written) if style != "snake" else _join([*parts[:-1], _plural(parts[-1])], "snake")}
    if style == "snake":
        cands |= {_join(parts, "camel"), "".join(parts), _plural(written)}
    elif style == "camel":
        cands.add("_".join(p.lower() for p in parts))
    cands = sorted(c for c in cands if c.lower() not in q.tables and c.lower() != name and _ident_ok(c))
    if not cands:
        return None
    new = rng.choice(cands)
    return q.apply([(a, b, new) for a, b in sorted(set(spans))]), f"table {written} written as {new}"


def _k_wrong_owner(q, rng):
    cands = []
    for r in q.refs():
        if r.qa < 0 or len(r.sources) < 2:
            continue
        for alias, tab in r.sources.values():
            if alias.lower() != r.qual.lower() and not tab.column(r.col.name) and _ident_ok(alias):
                cands.append((r, alias))
    if not cands:
        return None
    r, alias = rng.choice(cands)
    return (q.apply([(r.qa, r.qa + len(r.qual), alias)]),
            f"{r.qual}.{r.col.name} qualified with {alias}, which has no such column")


def _k_ambiguous_bare(q, rng):
    cands = []
    for r in q.refs():
        if r.qa < 0 or r.clause in ("order", "other"):
            continue
        owners = [a for a, t in r.sources.values() if t.column(r.col.name)]
        if len(owners) >= 2:
            cands.append(r)
    if not cands:
        return None
    pool = [r for r in cands if r.clause != "join"]
    r = rng.choice(pool if pool and rng.random() < 0.75 else cands)
    return q.apply([(r.qa, r.a, "")]), f"qualifier dropped from {r.qual}.{r.col.name}, which is in several tables"


def _bare_col(q, s, e):
    """Select item [s, e) (without its alias) when it reads a column outside any aggregate or window, else None."""
    e = next((k for k in range(s, e) if q.tt(k) == TT.ALIAS and q.depth[k] == q.depth[s]), e)
    kinds = [q.tt(k) for k in range(s, e)]
    if TT.OVER in kinds or any(q.up(k) in AGGS and q.tt(k + 1) == TT.L_PAREN for k in range(s, e)):
        return None
    reads = any(q.tt(k) in (TT.VAR, TT.IDENTIFIER) and q.tt(k + 1) != TT.L_PAREN for k in range(s, e))
    return (s, e) if reads else None


def _k_grouping_error(q, rng):
    opts = []
    for b in q.blocks:
        if "group" not in b.kw:
            continue
        items = [_bare_col(q, *it) for it in q.split(*b.rng["select"], b.depth)]
        texts = {q.text(*it).lower() for it in items if it}
        if not texts:
            continue
        gs, ge = b.rng["group"]
        start = q.ce(b.kw["group"] - 1) if b.kw["group"] > 0 else q.cs(b.kw["group"])
        opts.append(("drop", [(start, q.ce(ge - 1), "")], "GROUP BY left out"))
        gitems = q.split(gs, ge, b.depth)
        if len(gitems) >= 2:
            for n, (s, e) in enumerate(gitems):
                if q.text(s, e).lower() in texts:
                    a = q.ce(gitems[n - 1][1] - 1) if n else q.cs(s)
                    z = q.ce(e - 1) if n else q.cs(gitems[1][0])
                    opts.append(("item", [(a, z, "")], f"{q.text(s, e)} missing from GROUP BY"))
        if "having" in b.kw:
            hs, he = b.rng["having"]
            cond = q.text(hs, he)
            if any(q.tt(k) == TT.OR for k in range(hs, he)):
                cond = f"({cond})"
            cut = (q.ce(b.kw["having"] - 1), q.ce(he - 1), "")
            if "where" in b.kw:
                ins = (q.ce(b.rng["where"][1] - 1), q.ce(b.rng["where"][1] - 1), f" AND {cond}")
            else:
                p = q.ce(b.kw["group"] - 1)
                ins = (p, p, f" WHERE {cond}")
            opts.append(("having", [ins, cut], "HAVING condition written in WHERE"))
    if not opts:
        return None
    _, edits, note = rng.choice(opts)
    return q.apply(edits), note


def _fn_calls(q, names):
    """(name token index, '(' index, ')' index) of calls to these functions."""
    out = []
    for i in range(len(q.toks) - 1):
        if q.up(i) in names and q.tt(i + 1) == TT.L_PAREN:
            out.append((i, i + 1, q.close(i + 1)))
    return out


def _args(q, lp, rp):
    return q.split(lp + 1, rp, q.depth[lp] + 1)


def _k_dialect_mixup(q, rng):
    opts = []
    pg = q.d == "postgres"
    b = q.outer()
    if b and "limit" in b.kw and "offset" not in b.kw and q.tt(b.kw["limit"] + 1) == TT.NUMBER:
        li = b.kw["limit"]
        at = b.sel + 1 + (q.tt(b.sel + 1) == TT.DISTINCT)
        p = q.ce(at - 1)
        opts.append(([(p, p, f" TOP {q.toks[li + 1].text}"), (q.ce(li - 1), q.ce(li + 1), "")],
                     "SQL Server TOP n instead of LIMIT"))
    for i, lp, rp in _fn_calls(q, {"COALESCE", "LENGTH"}):
        if q.up(i) == "LENGTH" or len(_args(q, lp, rp)) == 2:
            new = "LEN" if q.up(i) == "LENGTH" else rng.choice(["NVL", "ISNULL"] + (["IFNULL"] if pg else []))
            opts.append(([(q.cs(i), q.ce(i), new)], f"{new} instead of {q.up(i)}"))
    for i, lp, rp in _fn_calls(q, {"CAST"}):
        inner = _args(q, lp, rp)[0]
        ks = [k for k in range(inner[0], inner[1]) if q.tt(k) == TT.ALIAS and q.depth[k] == q.depth[lp] + 1]
        if not ks:
            continue
        e, typ = q.text(inner[0], ks[-1]), q.text(ks[-1] + 1, rp)
        if pg:
            opts.append(([(q.cs(i), q.ce(rp), f"CONVERT({typ}, {e})")], "T-SQL CONVERT(type, x) instead of CAST"))
        else:
            simple = ks[-1] - inner[0] == 1 or q.tt(inner[0] + 1) == TT.L_PAREN and q.close(inner[0] + 1) == ks[-1] - 1
            e = e if simple else f"({e})"
            opts.append(([(q.cs(i), q.ce(rp), f"{e}::{typ.lower()}")], "PostgreSQL ::cast in SQLite"))
    for i, lp, rp in _fn_calls(q, {"STRFTIME"}):
        a = _args(q, lp, rp)
        if len(a) != 2 or q.tt(a[0][0]) != TT.STRING:
            continue
        fmt, arg = q.toks[a[0][0]].text, q.text(*a[1])
        fn = {"%Y": "YEAR", "%m": "MONTH", "%d": "DAY", "%W": "WEEK"}.get(fmt)
        new = f"{fn}({arg})" if fn else f"DATE_FORMAT({arg}, '{fmt}')"
        opts.append(([(q.cs(i), q.ce(rp), new)], f"MySQL {new.split('(')[0]} instead of strftime"))
    for i, lp, rp in _fn_calls(q, {"EXTRACT", "DATE_PART"}):
        a = _args(q, lp, rp)
        if q.up(i) == "EXTRACT":
            ks = [k for k in range(lp + 1, rp) if q.tt(k) == TT.FROM and q.depth[k] == q.depth[lp] + 1]
            if not ks:
                continue
            unit, arg = q.text(lp + 1, ks[0]).upper(), q.text(ks[0] + 1, rp)
        elif len(a) == 2 and q.tt(a[0][0]) == TT.STRING:
            unit, arg = q.toks[a[0][0]].text.upper(), q.text(*a[1])
        else:
            continue
        if unit in ("YEAR", "MONTH", "DAY", "WEEK", "HOUR"):
            opts.append(([(q.cs(i), q.ce(rp), f"{unit}({arg})")], f"MySQL {unit}() instead of {q.up(i)}"))
        elif unit in ("DOW", "ISODOW"):
            opts.append(([(q.cs(i), q.ce(rp), f"DAYOFWEEK({arg})")], "MySQL DAYOFWEEK()"))
    for i, lp, rp in _fn_calls(q, {"DATE_TRUNC"}):
        a = _args(q, lp, rp)
        if len(a) == 2 and q.tt(a[0][0]) == TT.STRING:
            unit, arg = q.toks[a[0][0]].text.lower(), q.text(*a[1])
            fmt = {"month": "%Y-%m-01", "year": "%Y-01-01", "day": "%Y-%m-%d", "quarter": "%Y-%m-01"}.get(unit)
            new = f"DATE_FORMAT({arg}, '{fmt}')" if fmt else f"YEARWEEK({arg})"
            opts.append(([(q.cs(i), q.ce(rp), new)], "MySQL date formatting instead of DATE_TRUNC"))
    for k in range(len(q.toks) - 2):
        if q.tt(k + 1) == TT.INTERVAL and q.tt(k) == TT.DASH and q.tt(k + 2) == TT.STRING:
            m = re.fullmatch(r"\s*(\d+)\s*(day|week|month|year|hour)s?\s*", q.toks[k + 2].text, re.I)
            s = k - 1
            if m and q.tt(s) in (TT.CURRENT_DATE, TT.CURRENT_TIMESTAMP):
                new = f"DATEADD({m.group(2).lower()}, -{m.group(1)}, GETDATE())"
                opts.append(([(q.cs(s), q.ce(k + 2), new)], "T-SQL DATEADD/GETDATE date arithmetic"))
    for i, lp, rp in _fn_calls(q, {"DATE", "DATETIME"}):
        a = _args(q, lp, rp)
        if len(a) == 2 and q.up(a[0][0]) == "NOW" and q.tt(a[1][0]) == TT.STRING:
            m = re.fullmatch(r"\s*-\s*(\d+)\s*(day|month|year)s?\s*", q.toks[a[1][0]].text, re.I)
            if m:
                new = f"DATE_SUB(CURDATE(), INTERVAL {m.group(1)} {m.group(2).upper()})"
                opts.append(([(q.cs(i), q.ce(rp), new)], "MySQL DATE_SUB/CURDATE date arithmetic"))
        elif len(a) == 1 and q.up(a[0][0]) == "NOW":
            opts.append(([(q.cs(i), q.ce(rp), "GETDATE()")], "GETDATE() instead of date('now')"))
    for k in range(len(q.toks)):
        if q.tt(k) in (TT.CURRENT_DATE, TT.CURRENT_TIMESTAMP) and not (q.tt(k + 1) == TT.DASH and
                                                                      q.tt(k + 2) == TT.INTERVAL):
            opts.append(([(q.cs(k), q.ce(k), rng.choice(["GETDATE()", "SYSDATE"]))], "GETDATE()/SYSDATE"))
    for i, lp, rp in _fn_calls(q, {"LOWER"}):
        nxt = rp + 1
        if pg or q.tt(nxt) != TT.LIKE:
            continue
        if q.up(nxt + 1) == "LOWER" and q.tt(nxt + 2) == TT.L_PAREN:
            pat = q.text(nxt + 3, q.close(nxt + 2))
            end = q.close(nxt + 2)
        elif q.tt(nxt + 1) == TT.STRING:
            pat, end = q.text(nxt + 1, nxt + 2), nxt + 1
        else:
            continue
        opts.append(([(q.cs(i), q.ce(end), f"{q.text(lp + 1, rp)} ILIKE {pat}")], "ILIKE in SQLite"))
    if pg:
        for k in range(len(q.toks) - 1):
            if q.tt(k) == TT.ILIKE and q.tt(k + 1) == TT.STRING:
                opts.append(([(q.cs(k), q.ce(k), "LIKE"), (q.ce(k + 1), q.ce(k + 1), " COLLATE NOCASE")],
                             "SQLite COLLATE NOCASE in PostgreSQL"))
            if q.tt(k) == TT.EQ and q.tt(k + 1) == TT.STRING and '"' not in q.toks[k + 1].text \
                    and q.sql[q.cs(k + 1)] == "'":
                opts.append(([(q.cs(k + 1), q.ce(k + 1), f'"{q.toks[k + 1].text}"')],
                             "string literal in double quotes (MySQL habit)"))
    if not opts:
        return None
    edits, note = rng.choice(opts)
    return q.apply(edits), note


def _k_syntax_slip(q, rng):
    opts = []
    for b in q.blocks:
        items = q.split(*b.rng["select"], b.depth)
        for (s0, e0), (s, e) in zip(items, items[1:]):
            starts_hard = q.tt(s + 1) in (TT.DOT, TT.L_PAREN) or q.tt(s) in (TT.CASE, TT.NUMBER, TT.STAR)
            if starts_hard and q.tt(s) != TT.DISTINCT:
                opts.append(([(q.cs(e0), q.ce(e0), "")], "missing comma in the SELECT list"))
        if "from" in b.kw and items:
            p = q.ce(items[-1][1] - 1)
            opts.append(([(p, p, ",")], "trailing comma before FROM"))
        if "where" in b.kw:
            p = q.ce(b.rng["where"][1] - 1)
            opts.append(([(p, p, " AND")], "dangling AND at the end of WHERE"))
        if "limit" in b.kw and "order" in b.kw and "offset" not in b.kw:
            ls, le = b.kw["limit"], b.rng["limit"][1]
            os_ = b.kw["order"]
            opts.append(([(q.cs(os_), q.cs(os_), q.text(ls, le) + " "), (q.ce(ls - 1), q.ce(le - 1), "")],
                         "LIMIT written before ORDER BY"))
        if "where" in b.kw and "group" in b.kw:
            ws, we = b.kw["where"], b.rng["where"][1]
            g_end = b.rng["group"][1]
            opts.append(([(q.ce(ws - 1), q.ce(we - 1), ""), (q.ce(g_end - 1), q.ce(g_end - 1),
                                                             " " + q.text(ws, we))], "WHERE placed after GROUP BY"))
    for i, lp, rp in _fn_calls(q, AGGS | {"LOWER", "CAST", "COALESCE", "STRFTIME", "ROUND", "NULLIF"}):
        opts.append(([(q.cs(rp), q.ce(rp), "")], f"missing ')' after {q.toks[i].text}(...)"))
    for k, t in enumerate(q.toks):
        if t.token_type == TT.STRING and q.sql[t.start] == "'" and q.sql[t.end] == "'" and "'" not in t.text:
            opts.append(([(t.end, t.end + 1, "")], "unclosed string literal"))
        if t.token_type == TT.IN and q.tt(k + 1) == TT.L_PAREN and q.tt(k + 2) != TT.SELECT:
            if len(_args(q, k + 1, q.close(k + 1))) >= 2 and q.tt(k - 1) != TT.NOT:
                opts.append(([(q.cs(k), q.ce(k), "=")], "'=' used against a list of values"))
    if not opts:
        return None
    edits, note = rng.choice(opts)
    return q.apply(edits), note


CONTINUES = {TT.WHERE, TT.AND, TT.OR, TT.ON, TT.JOIN, TT.COMMA, TT.EQ, TT.GT, TT.GTE, TT.LT, TT.LTE, TT.NEQ,
             TT.FROM, TT.GROUP_BY, TT.ORDER_BY, TT.L_PAREN, TT.SELECT, TT.HAVING, TT.DOT, TT.CASE, TT.WHEN,
             TT.THEN, TT.IN, TT.LIKE, TT.ILIKE, TT.BETWEEN, TT.LIMIT, TT.ALIAS, TT.SLASH, TT.DASH, TT.PLUS,
             TT.STAR, TT.LEFT}


def _k_ghost_join(q, rng, collide=True):
    links = _links(q, infer=collide)
    used = q.query_tables()
    aliases = {t.alias.lower() for t in q.tree.find_all(exp.Table) if t.alias} | used
    cands = []
    try:
        scopes = list(traverse_scope(q.tree))
    except Exception:
        return None
    for scope in scopes:
        tabs = [(a, s) for a, s in scope.sources.items() if isinstance(s, exp.Table) and s.name.lower() in q.tables]
        if not tabs or not isinstance(scope.expression, exp.Select):
            continue
        joins = scope.expression.args.get("joins") or []
        if any(str(j.args.get("kind") or "").upper() == "CROSS" or str(j.args.get("side") or "").upper() in
               ("RIGHT", "FULL") for j in joins):
            continue
        ident = tabs[0][1].this
        if "start" not in ident.meta:
            continue
        b = q.block_at(q.tok_at(ident.meta["start"]))
        if b is None or "from" not in b.kw:
            continue
        fs, fe = b.rng["from"]
        if any(q.tt(k) == TT.COMMA and q.depth[k] == b.depth for k in range(fs, fe)):
            continue
        bare = {c.name.lower() for c in scope.columns if not c.table}
        for alias, src in tabs:
            for (pt, pc, ct, cc, parent) in links.get(src.name.lower(), []):
                if ct in used or ct in aliases:
                    continue
                child = q.tables[ct]
                clash = bare & {c.name.lower() for c in child.columns}
                if collide != bool(clash) or (not collide and not parent):
                    continue
                agg = any(isinstance(n, exp.Sum) or isinstance(n, exp.Count) and not n.find(exp.Distinct)
                          for e in scope.expression.expressions for n in e.walk())
                cands.append((agg, b, fe, alias, pc, child, cc, sorted(clash)))
    if not collide:  # a needless child join shows in the rows mainly where it multiplies a COUNT/SUM
        cands = [c for c in cands if c[0]]
    if not cands:
        return None
    _, b, fe, alias, pc, child, cc, clash = rng.choice(cands)
    cname = child.qualified_name if q.d == "postgres" else child.name
    p = q.ce(fe - 1)
    kind = "JOIN" if collide or rng.random() < 0.6 else "INNER JOIN"
    text = f" {kind} {cname} ON {alias}.{pc} = {child.name}.{cc}"
    note = (f"needless join to {child.name} makes {clash[0]} ambiguous" if collide
            else f"needless inner join to child table {child.name}")
    return q.apply([(p, p, text)]), note


GENERIC = {"name", "year", "type", "description", "title", "homepage", "text", "date", "status", "area",
           "population", "created_at", "updated_at", "email", "phone", "notes",
           "comment", "rating", "price", "amount", "cost", "quantity", "length", "month", "day", "score"}


def _links(q, infer=False):
    """table -> [(table, its column, other table, other column, other is a child)] by keys or shared key names."""
    out = {}
    tabs = list(q.tables.values())

    def add(t1, c1, t2, c2, child):
        if _fam(t1.column(c1).type) == _fam(t2.column(c2).type):
            out.setdefault(t1.name.lower(), []).append((t1.name.lower(), c1, t2.name.lower(), c2, child))

    for t in tabs:
        for fk in t.foreign_keys:
            ref = q.tables.get(fk.ref_table.split(".")[-1].lower())
            if ref and len(fk.columns) == 1 and t.column(fk.columns[0]) and ref.column(fk.ref_columns[0]):
                add(ref, ref.column(fk.ref_columns[0]).name, t, t.column(fk.columns[0]).name, True)
                add(t, t.column(fk.columns[0]).name, ref, ref.column(fk.ref_columns[0]).name, False)
    if any(t.foreign_keys for t in tabs) and not infer:
        return out
    for t1 in tabs:
        for t2 in tabs:
            if t1 is t2:
                continue
            for c in t1.columns:
                low = c.name.lower()
                if low in GENERIC or not t2.column(c.name):
                    continue
                if low == "id" or not (low.endswith(("id", "_code", "_name")) or low in ("city", "state", "country")):
                    continue
                add(t1, c.name, t2, t2.column(c.name).name, _owns(t1, low) and not _owns(t2, low))
    return out


def _owns(table, col):
    """Does this table own the key column (so that other tables holding it are its children)?"""
    t = table.name.lower()
    if col in {c.lower() for c in table.primary_key}:
        return True
    return col in {t + "id", t + "_id", _sing(t) + "id", _sing(t) + "_id", t[:1] + "id", _sing(t) + "_code",
                   _sing(t) + "_name", t + "_name"}


# ----------------------------------------------------------------------------------------------------------------
# Family B


def _k_inner_join_loss(q, rng):
    lefts = []
    for k in range(len(q.toks) - 1):
        if q.tt(k) == TT.LEFT and q.tt(k + 1) in (TT.JOIN, TT.OUTER):
            end = k + 1 if q.tt(k + 1) == TT.JOIN else k + 2
            lefts.append((q.cs(k), q.ce(end), "JOIN" if rng.random() < 0.7 else "INNER JOIN"))
    child = _k_ghost_join(q, rng, collide=False)
    if lefts and (child is None or rng.random() < 0.75):
        return q.apply([rng.choice(lefts)]), "LEFT JOIN written as an inner JOIN"
    return child


def _k_agg_swap(q, rng):
    opts = []
    for i, lp, rp in _fn_calls(q, AGGS):
        name, w = q.up(i), 3 if q.clause_at(i) == "select" else 1
        if name == "COUNT" and q.tt(lp + 1) == TT.DISTINCT:
            opts.append(([(q.cs(lp + 1), q.cs(lp + 2), "")], "COUNT(DISTINCT x) written as COUNT(x)", w / 2))
        elif name in ("SUM", "AVG", "MIN", "MAX"):
            new = {"SUM": rng.choice(["AVG", "COUNT"]), "AVG": "SUM", "MIN": "MAX", "MAX": "MIN"}[name]
            opts.append(([(q.cs(i), q.ce(i), new)], f"{new} instead of {name}", w * 2))
    if not opts:
        return None
    edits, note, _ = rng.choices(opts, weights=[o[2] for o in opts])[0]
    return q.apply(edits), note


def _k_comparison_slip(q, rng):
    flip = {TT.GT: "<", TT.GTE: "<=", TT.LT: ">", TT.LTE: ">="}
    opts = []
    for k, t in enumerate(q.toks):
        if q.clause_at(k) == "order":
            continue
        if t.token_type in flip:
            opts.append(([(t.start, t.end + 1, flip[t.token_type])], f"'{t.text}' written as '{flip[t.token_type]}'"))
        elif t.token_type == TT.NEQ:
            opts.append(([(t.start, t.end + 1, "=")], "'<>' written as '='"))
        elif t.token_type == TT.IS and q.tt(k + 1) == TT.NULL and q.tt(k + 2) != TT.THEN:
            opts.append(([(t.start, t.end + 1, "=")], "IS NULL written as = NULL"))
        elif t.token_type == TT.IS and q.tt(k + 1) == TT.NOT and q.tt(k + 2) == TT.NULL:
            opts.append(([(t.start, q.ce(k + 1), "!=")], "IS NOT NULL written as != NULL"))
    if not opts:
        return None
    edits, note = rng.choice(opts)
    return q.apply(edits), note


def _k_filter_dropped(q, rng):
    opts = []
    for b in q.blocks:
        for cl in ("where", "having"):
            if cl not in b.kw:
                continue
            s, e = b.rng[cl]
            parts = q.conjuncts(s, e, b.depth)
            for n, (ps, pe, prev_and) in enumerate(parts):
                toks = {q.tt(k) for k in range(ps, pe)}
                if ps >= pe or TT.EQ in toks and q.tt(pe - 2) == TT.DOT and not toks & {TT.STRING, TT.NUMBER}:
                    continue  # a join condition written in WHERE: dropping it would make a cross join
                if len(parts) == 1:
                    edit = (q.ce(b.kw[cl] - 1), q.ce(e - 1), "")
                elif n == 0:
                    edit = (q.cs(ps), q.cs(parts[1][0]), "")
                else:
                    edit = (q.ce(prev_and - 1), q.ce(pe - 1), "")
                opts.append(([edit], f"condition '{q.text(ps, pe)[:60]}' left out"))
    if not opts:
        return None
    edits, note = rng.choice(opts)
    return q.apply(edits), note


def _k_limit_slip(q, rng):
    b = q.outer()
    if b is None:
        return None
    if "limit" in b.kw and q.tt(b.kw["limit"] + 1) == TT.NUMBER:
        li = b.kw["limit"]
        n = int(q.toks[li + 1].text) if q.toks[li + 1].text.isdigit() else 0
        choices = [m for m in (n - 1, n - 1, 1, 1, 3, 10, n + 1) if m > 0 and m != n] + ["drop", "drop"]
        m = rng.choice(choices)
        if m == "drop":
            return q.apply([(q.ce(li - 1), q.ce(li + 1), "")]), "LIMIT left out"
        return q.apply([(q.cs(li + 1), q.ce(li + 1), str(m))]), f"LIMIT {n} written as LIMIT {m}"
    if "order" in b.kw and "limit" not in b.kw:
        m = rng.choice([1, 1, 1, 3, 5])
        p = q.ce(b.end - 1)
        return q.apply([(p, p, f" LIMIT {m}")]), f"LIMIT {m} added (question read as a top-{m})"
    return None


def _k_order_flip(q, rng):
    for b in q.blocks:
        if "order" in b.kw and "limit" in b.kw:
            items = q.split(*b.rng["order"], b.depth)
            real = [it for it in items if not any(q.tt(k) == TT.NULL for k in range(*it))]
            s, e = (real or items)[0]
            dirs = [k for k in range(s, e) if q.tt(k) in (TT.ASC, TT.DESC) and q.depth[k] == b.depth]
            if dirs:
                k = dirs[0]
                new = "ASC" if q.tt(k) == TT.DESC else "DESC"
                if new == "ASC" and rng.random() < 0.5:
                    return q.apply([(q.ce(k - 1), q.ce(k), "")]), "DESC left out of ORDER BY"
                return q.apply([(q.cs(k), q.ce(k), new)]), f"sort {q.toks[k].text} written as {new}"
            end = e
            while end - 2 >= s and q.up(end - 2) == "NULLS":
                end -= 2
            p = q.ce(end - 1)
            return q.apply([(p, p, " DESC")]), "ascending sort written as DESC"
    return None


PAIRS = [("first", "last"), ("start", "end"), ("from", "to"), ("min", "max"), ("departure", "arrival"),
         ("begin", "end"), ("one", "round"), ("birth", "death"), ("open", "close"), ("high", "low"),
         ("cited", "citing"), ("buy", "sell"), ("sent", "received"), ("created", "updated")]


def _siblings(col, table):
    w = {p.lower() for p in _words(col.name)[0]}
    out = []
    for c in table.columns:
        if c.name == col.name or _fam(c.type) != _fam(col.type):
            continue
        cw = {p.lower() for p in _words(c.name)[0]}
        paired = any((a in w and b in cw) or (b in w and a in cw) for a, b in PAIRS)
        shared = (w & cw) - {"id", "sb", "tx", "cust", "dp"}
        if paired or (shared and _fam(col.type) != "other" and not col.name.lower().endswith("id")):
            out.append(c.name)
    return out


def _k_sibling_swap(q, rng):
    cands = []
    for r in q.refs():
        if r.clause not in ("select", "where", "order", "having"):
            continue
        if r.clause == "select" and r.scope.expression is not q.tree:
            continue  # a CTE/subquery output column: the outer query would lose the name
        col = r.table.column(r.col.name)
        for s in _siblings(col, r.table):
            others = [t for _, t in r.sources.values() if t is not r.table and t.column(s)]
            if r.qa < 0 and others:
                continue
            cands.append((r.clause == "where", r, s))
    if not cands:
        return None
    pool = [c for c in cands if c[0]] if any(c[0] for c in cands) and rng.random() < 0.7 else cands
    _, r, s = rng.choice(pool)
    return q.apply([(r.a, r.b, s)]), f"{r.col.name} used instead of its sibling column {s}"


def _recase(s, rng):
    if s.islower():
        return rng.choice([s.title(), s.upper()])
    return rng.choice([s.lower(), s.title()] if s.isupper() else [s.lower(), s.upper()])


def _k_literal_case(q, rng):
    pg = q.d == "postgres"
    cands = []
    for k, t in enumerate(q.toks):
        if t.token_type != TT.STRING or not re.search("[A-Za-z]", t.text) or q.sql[t.start] != "'":
            continue
        if re.fullmatch(r"[\d\s:%-]+|%[A-Za-z]|\d+\s*\w+|[a-z]+", t.text) and not re.search("[A-Z]", t.text):
            if not (q.tt(k - 1) in (TT.EQ, TT.NEQ, TT.COMMA, TT.L_PAREN) and len(t.text) > 3):
                continue
        if q.tt(k - 1) == TT.L_PAREN and q.up(k - 2) in ("LOWER", "UPPER", "DATE_TRUNC", "STRFTIME", "DATE"):
            continue
        prev = q.tt(k - 1)
        ok = prev in (TT.EQ, TT.NEQ) or (prev == TT.LIKE and pg)
        if prev in (TT.COMMA, TT.L_PAREN):
            j = k
            while j > 0 and q.depth[j] >= q.depth[k]:
                j -= 1
            ok = q.tt(j - 1) == TT.IN
        if prev == TT.LIKE and q.tt(k - 2) == TT.R_PAREN:
            ok = pg  # LOWER(x) LIKE 'abc': a Title-cased pattern no longer matches
        if ok and "'" not in t.text:
            new = _recase(t.text, rng)
            if new != t.text:
                cands.append((t, new))
    if not cands:
        return None
    t, new = rng.choice(cands)
    return q.apply([(t.start, t.end + 1, f"'{new}'")]), f"literal '{t.text}' written as '{new}'"


FLOAT_T = {"FLOAT", "REAL", "DOUBLE", "DECIMAL", "NUMERIC", "FLOAT8", "FLOAT4", "DOUBLE PRECISION"}


def _k_int_division(q, rng):
    if not any(t.token_type == TT.SLASH for t in q.toks):
        return None
    edits = []
    for i, lp, rp in _fn_calls(q, {"CAST"}):
        ks = [k for k in range(lp + 1, rp) if q.tt(k) == TT.ALIAS and q.depth[k] == q.depth[lp] + 1]
        if ks and q.text(ks[-1] + 1, rp).upper().split("(")[0].strip() in FLOAT_T:
            edits += [(q.cs(i), q.ce(lp), ""), (q.ce(ks[-1] - 1), q.ce(rp), "")]
    for k in range(len(q.toks) - 1):
        if q.tt(k) == TT.DCOLON and q.up(k + 1).split("(")[0] in FLOAT_T:
            end = k + 1
            if q.tt(k + 2) == TT.L_PAREN:
                end = q.close(k + 2)
            edits.append((q.cs(k), q.ce(end), ""))
        t = q.toks[k]
        if t.token_type == TT.NUMBER and re.fullmatch(r"\d+\.0+", t.text):
            if t.text.startswith("1.") and q.tt(k + 1) == TT.STAR:
                edits.append((t.start, q.cs(k + 2), ""))
            elif t.text.startswith("1.") and q.tt(k - 1) == TT.STAR:
                edits.append((q.ce(k - 2), t.end + 1, ""))
            else:
                edits.append((t.start, t.end + 1, t.text.split(".")[0]))
    if not edits:
        return None
    return q.apply(edits), "float cast of the ratio forgotten (integer division)"


def _k_join_key_mixup(q, rng):
    cands = []
    for r in q.refs():
        if r.clause != "join" or r.qa < 0 or not isinstance(r.col.parent, exp.EQ):
            continue
        eq = r.col.parent
        other = eq.expression if eq.this is r.col else eq.this
        if not isinstance(other, exp.Column):
            continue
        me = r.table.column(r.col.name)
        pk = {c.lower() for c in r.table.primary_key}
        for c in r.table.columns:
            if c.name == me.name or _fam(c.type) != _fam(me.type):
                continue
            low = c.name.lower()
            if low in pk or low == "id" or low == other.name.lower() or (low.endswith("id") and len(low) > 2):
                cands.append((r, c.name))
    if not cands:
        return None
    r, new = rng.choice(cands)
    return q.apply([(r.a, r.b, new)]), f"join on {r.qual}.{new} instead of {r.qual}.{r.col.name}"


# ----------------------------------------------------------------------------------------------------------------
# Reply prose


OPEN_EN = ["Here's a query that answers this:", "Sure! Here is the SQL:", "You can get this with the following query:",
           "To answer this, we need the `{t}` table{j}.", "Okay, let me write the query for that.",
           "The following SQL should return what you're looking for:", "Based on the schema, this should work:",
           "Let's break it down. The data lives in `{t}`{j}, so:"]
OPEN_HI = ["Yeh raha aapka SQL query:", "Iske liye hum `{t}` table use karenge{jh}:", "Aap yeh query chala sakte hain:",
           "Theek hai, neeche wala query aapke sawaal ka jawab dega:", "Chaliye, isko SQL mein likhte hain:"]
CLOSE_EN = ["", "", "Let me know if you need any changes!", "This {x}.", "Explanation: the query {x}.",
            "Note: I used the table and column names from the schema you shared.",
            "Hope this helps! Feel free to ask if you want it broken down further."]
CLOSE_HI = ["", "Isme query {xh}.", "Agar koi aur filter chahiye toh bataiye.", "Umeed hai yeh kaam karega!",
            "Koi doubt ho toh zaroor poochiye."]


CLAUSE_WORDS = (("where", "filters the rows in the WHERE clause", "WHERE clause se filter lagaya hai"),
                ("group", "groups and aggregates the results", "GROUP BY se group kiya hai"),
                ("order", "sorts the output", "ORDER BY se sort kiya hai"))


def _facts(q):
    """Words for the prose around the SQL: main table, joined table, what the query does (English and Hinglish)."""
    kw = q.outer().kw if q.outer() else {}
    ts = [t.name for t in q.tree.find_all(exp.Table)] or ["main"]
    x = [f"joins `{ts[0]}` with `{ts[1]}`"] if len(ts) > 1 else []
    xh = [f"`{ts[0]}` aur `{ts[1]}` ko join kiya gaya hai"] if len(ts) > 1 else []
    for name, en, hi in CLAUSE_WORDS:
        if name in kw:
            x.append(en)
            xh.append(hi)
    x = x or ["selects the requested columns"]
    return {"t": ts[0], "j": f" joined with `{ts[1]}`" if len(ts) > 1 else "",
            "jh": f" aur `{ts[1]}` ko join karenge" if len(ts) > 1 else "",
            "x": ", ".join(x[:-1]) + (" and " if len(x) > 1 else "") + x[-1],
            "xh": ", ".join(xh or ["zaroori columns select kiye hain"])}


def _layout(sql, d, rng):
    """Multi-line layout as models write it: newlines before clause keywords (whitespace-only edits)."""
    if rng.random() < 0.3:
        return sql
    try:
        q = _Q.__new__(_Q)._tokenize(sql, d)
        blocks = q._blocks()
    except Exception:
        return sql
    breaks = set()
    for b in blocks:
        for name, k in b.kw.items():
            if name != "select":
                breaks.add((k, b.depth))
        if "from" in b.kw:
            for k in range(*b.rng["from"]):
                if q.toks[k].token_type == TT.JOIN and q.depth[k] == b.depth:
                    s = k
                    while s - 1 >= 0 and q.toks[s - 1].token_type in JOIN_WORDS:
                        s -= 1
                    breaks.add((s, b.depth))
    out, prev = [], 0
    for k, dep in sorted(breaks):
        a = q.toks[k - 1].end + 1 if k else 0
        if k and q.toks[k].start > a and not sql[a:q.toks[k].start].strip():
            out.append(sql[prev:a] + "\n" + "    " * dep)
            prev = q.toks[k].start
    return "".join(out) + sql[prev:]


def _fence(rng):
    return rng.choices(["```sql", "```", "```SQL", ""], weights=[60, 20, 5, 15])[0]


def _wrap(sql, q, rng):
    f = _facts(q)
    hindi = rng.random() < 0.3
    opener = rng.choice(OPEN_HI if hindi else OPEN_EN).format(**f)
    closer = rng.choice(CLOSE_HI if hindi else CLOSE_EN).format(**f)
    body = _layout(sql, q.d, rng) + (";" if rng.random() < 0.5 else "")
    fence = _fence(rng)
    if not fence:  # "reply with SQL only": the bare query, no prose around it
        return body
    parts = [opener, f"{fence}\n{body}\n```"] + ([closer] if closer else [])
    return "\n\n".join(parts)


# ----------------------------------------------------------------------------------------------------------------
# Kinds that shape the reply itself


def _r_cut_off(q, rng):
    """The reply stops (token limit) right after a token that needs something to follow; the fence stays open."""
    n = len(q.toks)
    cands = [i for i in range(int(n * 0.4), n - 1) if q.tt(i) in CONTINUES and not
             (q.tt(i) == TT.STAR and q.tt(i - 1) == TT.L_PAREN)]
    if not cands:
        return None
    i = rng.choice(cands)
    opener = rng.choice(OPEN_HI if rng.random() < 0.3 else OPEN_EN).format(**_facts(q))
    return (f"{opener}\n\n{_fence(rng) or '```sql'}\n{_layout(q.sql[:q.ce(i)], q.d, rng)}",
            f"reply cut off after '{q.toks[i].text}'")


def _r_prose_inline(q, rng):
    sql = " ".join(q.sql.split())
    t = _facts(q)["t"]
    forms = [
        f"Aapko yeh query chalani hogi: {sql} - isse aapko saare matching records mil jayenge.",
        f"Is sawaal ke liye `{t}` table se data lena padega, query hai {sql}; isko run karke result dekh lijiye.",
        f"You can get this by running {sql} which returns the rows you asked about.",
        f"To answer this, use `{sql}` against the `{t}` table. It should give you the expected result.",
        f"Here is how I would approach it:\n\n- Start from the `{t}` table\n- Apply the conditions from the question"
        f"\n- Final query: `{sql}`\n\nLet me know if this works.",
        f"**SQL:** {sql}\n**Explanation:** the query reads from `{t}` and returns the requested columns.",
        f"Query yeh rahi -> {sql} <- bas isko copy karke chala dijiye.",
    ]
    return rng.choice(forms), "SQL written inside a sentence or bullet, no code fence"


def _r_json_envelope(q, rng):
    sql = _layout(q.sql, q.d, rng)
    key = rng.choice(["sql", "query", "SQL", "sql_query"])
    obj = {key: sql}
    if rng.random() < 0.6:
        obj["explanation"] = "The query " + _facts(q)["x"] + "."
    if rng.random() < 0.3:
        obj = {"reasoning": "Identify the relevant tables, then apply filters.", **obj}
    text = json.dumps(obj, indent=rng.choice([None, 2]), ensure_ascii=False)
    if rng.random() < 0.5:
        text = f"```json\n{text}\n```"
    if rng.random() < 0.4:
        text = rng.choice(["Here is the response in JSON format:", "Output:", "Response:"]) + "\n" + text
    return text, "the reply is a JSON object holding the SQL as an escaped string"


DRAFT_KINDS = ("col_morph", "table_morph", "prefix_guess", "dialect_mixup", "wrong_owner")


def _r_several_blocks(q, rng):
    f = _facts(q)
    fence = rng.choice(["```sql", "```sql", "```"])
    gold = _layout(q.sql, q.d, rng) + ";"
    if rng.random() < 0.45:
        t = f["t"]
        preview = rng.choice([f"SELECT * FROM {t} LIMIT 5;", f"SELECT COUNT(*) FROM {t};"])
        first = rng.choice(["First, let's look at the data to understand it:", "Pehle data dekh lete hain:",
                            "Step 1 - check what the table contains:"])
        second = rng.choice(["Now the actual query:", "Ab final query:", "Step 2 - the answer:"])
        return (f"{first}\n\n{fence}\n{preview}\n```\n\n{second}\n\n{fence}\n{gold}\n```",
                "a data-preview block comes before the answer")
    kinds = list(DRAFT_KINDS)
    rng.shuffle(kinds)
    for k in kinds:
        try:
            res = KINDS[k](q, rng)
        except _Skip:
            res = None
        if res:
            draft, why = res
            m = re.search(r"(\S+) written as (\S+)", why)
            dia = "PostgreSQL" if q.d == "postgres" else "SQLite"
            if k == "dialect_mixup":
                reason = rng.choice([f"that syntax doesn't work in {dia}", f"yeh {dia} mein nahi chalega"])
            elif k == "wrong_owner":
                reason = rng.choice(["I used the wrong table alias for one column", "ek column galat alias se liya"])
            elif m:
                old, new = m.group(1).split(".")[-1], m.group(2)
                reason = rng.choice([f"`{new}` doesn't exist, it should be `{old}`", f"the name is `{old}`, not "
                                     f"`{new}`", f"`{new}` naam galat hai, sahi naam `{old}` hai"])
            else:
                continue
            fix = rng.choice(["Wait, that won't run - {w}. Corrected version:", "Oops, {w}. Fixed query:",
                              "Sorry, galti ho gayi ({w}). Sahi query yeh hai:", "Correction ({w}):"])
            return (f"{rng.choice(OPEN_EN).format(**f)}\n\n{fence}\n{_layout(draft, q.d, rng)};\n```\n\n"
                    f"{fix.format(w=reason)}\n\n{fence}\n{gold}\n```", f"broken draft first ({why}), then the fix")
    return None


KINDS = {
    "col_morph": _k_col_morph, "table_morph": _k_table_morph, "prefix_guess": lambda q, rng: _k_col_morph(q, rng, True),
    "wrong_owner": _k_wrong_owner, "ambiguous_bare": _k_ambiguous_bare, "grouping_error": _k_grouping_error,
    "dialect_mixup": _k_dialect_mixup, "syntax_slip": _k_syntax_slip, "ghost_join": _k_ghost_join,
    "inner_join_loss": _k_inner_join_loss, "agg_swap": _k_agg_swap, "comparison_slip": _k_comparison_slip,
    "filter_dropped": _k_filter_dropped, "limit_slip": _k_limit_slip, "order_flip": _k_order_flip,
    "sibling_swap": _k_sibling_swap, "literal_case": _k_literal_case, "int_division": _k_int_division,
    "join_key_mixup": _k_join_key_mixup,
}
REPLY_KINDS = {"cut_off": _r_cut_off, "prose_inline": _r_prose_inline, "json_envelope": _r_json_envelope,
               "several_blocks": _r_several_blocks}


def damage(gold_sql: str, schema, kind: str, seed: int) -> Damaged | None:
    if kind not in DAMAGE_KINDS:
        raise ValueError(f"unknown damage kind {kind!r}")
    h = hashlib.sha256(f"fresh8\x00{gold_sql}\x00{kind}\x00{seed}".encode()).digest()
    rng = random.Random(int.from_bytes(h[:8], "big"))
    sql = gold_sql.strip().rstrip(";").strip()
    try:
        q = _Q(sql, schema)
        if kind == "clean":
            return Damaged(kind, _wrap(sql, q, rng), "gold SQL in ordinary reply prose")
        if kind in REPLY_KINDS:
            res = REPLY_KINDS[kind](q, rng)
            return Damaged(kind, res[0], res[1]) if res else None
        res = KINDS[kind](q, rng)
        if res is None or res[0].strip() == sql:
            return None
        return Damaged(kind, _wrap(res[0], q, rng), res[1])
    except (_Skip, sqlglot.errors.SqlglotError):
        return None
