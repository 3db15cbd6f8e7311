"""Held-out damage generator "fresh4": realistic ways a 7B-8B local model gets a text-to-SQL reply wrong.

Written without knowledge of how Cairn repairs replies. Every damaged reply is the gold query's own text with a few
token-level edits (found with sqlglot's tokenizer and parser, applied at character offsets), then presented the way a
small chat model presents SQL: bare, fenced, with English or Hinglish prose around it.

Two families of damage:

(A) replies the database rejects, or that are plainly broken against the schema:
    misspelt_column, wrong_table_name, qualifier_mixup, ambiguous_column, dialect_function, limit_dialect,
    identifier_quoting, group_by_error, join_broken, syntax_slip, prose_wrapped, multiple_blocks
(B) replies that run but return other rows:
    value_literal, distinct_error, date_boundary, wrong_aggregate, wrong_label_column, order_limit, filter_logic,
    join_semantics, integer_division

Sources of the families (error taxonomies of text-to-SQL): DIN-SQL (Pourreza & Rafiei 2023: schema linking, JOIN,
GROUP BY, nested queries, invalid SQL), MAC-SQL's refiner error classes (syntax, no such table/column, ambiguous
column, empty result), CHESS and the BIRD error analysis (wrong schema linking, value/literal mismatch, wrong
aggregation, missing condition, date handling), dialect-robustness studies (Dr.Spider; PostgreSQL/SQLite/MySQL
function and LIMIT confusions), and the common output-format failures of small chat models (prose around SQL,
several code blocks, LangChain "SQLQuery:" style, JSON wrappers).
"""

from __future__ import annotations

import datetime as _dt
import random
import re
from dataclasses import dataclass

__all__ = ["DAMAGE_KINDS", "TREE_KINDS", "Damaged", "damage"]


@dataclass(frozen=True)
class Damaged:
    kind: str
    reply: str  # the full text the fake model answers (may include prose, markdown fences)
    note: str  # one line: what was damaged


DAMAGE_KINDS: tuple[str, ...] = (
    "clean",
    # (A) rejected or plainly broken
    "misspelt_column",
    "wrong_table_name",
    "qualifier_mixup",
    "ambiguous_column",
    "dialect_function",
    "limit_dialect",
    "identifier_quoting",
    "group_by_error",
    "join_broken",
    "syntax_slip",
    "prose_wrapped",
    "multiple_blocks",
    # (B) runs, other rows
    "value_literal",
    "distinct_error",
    "date_boundary",
    "wrong_aggregate",
    "wrong_label_column",
    "order_limit",
    "filter_logic",
    "join_semantics",
    "integer_division",
)
TREE_KINDS: tuple[str, ...] = ()


# --------------------------------------------------------------------------------------------------------------
# sqlglot access (imported lazily so that importing this module never fails)


def _sqlglot():
    import sqlglot
    from sqlglot import exp
    from sqlglot.dialects.dialect import Dialect
    from sqlglot.tokens import TokenType

    return sqlglot, exp, Dialect, TokenType


_SQLGLOT_DIALECT = {"sqlite": "sqlite", "postgres": "postgres", "postgresql": "postgres", "duckdb": "duckdb",
                    "mysql": "mysql", "mariadb": "mysql"}


class _Skip(Exception):
    """The kind cannot apply to this query."""


class _Ctx:
    """Tokens, parse tree and schema facts about one gold query."""

    def __init__(self, gold: str, schema, kind: str, seed: int) -> None:
        sqlglot, exp, Dialect, TT = _sqlglot()
        self.exp, self.TT = exp, TT
        self.gold = gold
        self.schema = schema
        self.dialect = str(getattr(schema, "dialect", "sqlite") or "sqlite").lower()
        self.sg_dialect = _SQLGLOT_DIALECT.get(self.dialect, self.dialect)
        self.rng = random.Random(f"fresh4|{kind}|{seed}|{gold}")
        self.toks = list(Dialect.get_or_raise(self.sg_dialect).tokenize(gold))
        self.n = len(self.toks)
        # paren depth of each token (an R_PAREN has the depth of its L_PAREN) and matching parens
        self.depth: list[int] = []
        self.match: dict[int, int] = {}
        stack: list[int] = []
        d = 0
        for i, t in enumerate(self.toks):
            if t.token_type == TT.L_PAREN:
                self.depth.append(d)
                stack.append(i)
                d += 1
            elif t.token_type == TT.R_PAREN:
                d -= 1
                self.depth.append(d)
                if stack:
                    j = stack.pop()
                    self.match[i] = j
                    self.match[j] = i
            else:
                self.depth.append(d)
        try:
            self.tree = sqlglot.parse_one(gold, read=self.sg_dialect)
        except Exception:
            self.tree = None
        self.ctes: set[str] = set()
        self.aliases: set[str] = set()
        self.used: list = []  # schema tables named in the query
        if self.tree is not None:
            for cte in self.tree.find_all(exp.CTE):
                if cte.alias:
                    self.ctes.add(cte.alias.lower())
            for a in self.tree.find_all(exp.Alias):
                if a.alias:
                    self.aliases.add(a.alias.lower())
            seen = set()
            for t in self.tree.find_all(exp.Table):
                st = self.resolve(t)
                if st is not None and id(st) not in seen:
                    seen.add(id(st))
                    self.used.append(st)
        self.used_cols = {c.name.lower() for t in self.used for c in t.columns}
        self.all_tables = {t.name.lower() for t in getattr(schema, "tables", ())}

    # ---- tokens
    def tt(self, i: int):
        return self.toks[i].token_type if 0 <= i < self.n else None

    def up(self, i: int) -> str:
        return self.toks[i].text.upper() if 0 <= i < self.n else ""

    def s(self, i: int) -> int:
        return self.toks[i].start

    def e(self, i: int) -> int:  # exclusive end
        return self.toks[i].end + 1

    def text(self, i: int, j: int) -> str:
        """Gold text from token i to token j inclusive."""
        return self.gold[self.s(i): self.e(j)]

    def is_call(self, i: int, names=None) -> bool:
        if i + 1 >= self.n or self.tt(i + 1) != self.TT.L_PAREN:
            return False
        return names is None or self.up(i) in names

    def args(self, i: int) -> list[tuple[int, int]]:
        """Token ranges (inclusive) of the arguments of the call whose name is token i."""
        lp = i + 1
        rp = self.match.get(lp)
        if rp is None:
            raise _Skip
        out, start = [], lp + 1
        for k in range(lp + 1, rp):
            if self.tt(k) == self.TT.COMMA and self.depth[k] == self.depth[lp] + 1:
                out.append((start, k - 1))
                start = k + 1
        if start <= rp - 1:
            out.append((start, rp - 1))
        return out

    def clause_end(self, i: int, extra=()) -> int:
        """Index of the first token after the clause that starts at token i (same depth terminator)."""
        TT = self.TT
        ends = {TT.GROUP_BY, TT.ORDER_BY, TT.HAVING, TT.LIMIT, TT.UNION, TT.EXCEPT, TT.INTERSECT, TT.WINDOW,
                TT.OFFSET, TT.FETCH, TT.SEMICOLON, TT.QUALIFY, *extra}
        d = self.depth[i]
        k = i + 1
        while k < self.n:
            if self.depth[k] < d:
                return k
            if self.depth[k] == d and self.tt(k) in ends:
                return k
            k += 1
        return self.n

    def top_level(self, i: int, j: int, types) -> list[int]:
        """Tokens of the given types in [i, j) at the depth of token i."""
        d = self.depth[i]
        return [k for k in range(i, j) if self.depth[k] == d and self.tt(k) in types]

    # ---- schema
    def resolve(self, t):
        """Schema table of an exp.Table node (None for CTEs, subqueries, unknown names)."""
        name = t.name
        if not name:
            return None
        db = t.text("db")
        if not db and name.lower() in self.ctes:
            return None
        if db:
            st = self.schema.table(f"{db}.{name}")
            if st is not None:
                return st
        return self.schema.table(name)

    def sources(self, sel) -> dict:
        """alias (lower) -> schema Table or None, for the FROM and JOIN items of one SELECT."""
        exp = self.exp
        out: dict = {}
        frm = sel.args.get("from_") or sel.args.get("from")
        items = []
        if frm is not None and frm.this is not None:
            items.append(frm.this)
        for j in sel.args.get("joins") or []:
            items.append(j.this)
        for it in items:
            if isinstance(it, exp.Table):
                key = (it.alias or it.name).lower()
                out[key] = self.resolve(it)
            elif getattr(it, "alias", None):
                out[it.alias.lower()] = None
        return out

    def col_table(self, col):
        """(schema Table, source key) a Column node refers to, or (None, None) when unknown or ambiguous."""
        exp = self.exp
        q = col.table.lower() if col.table else ""
        sel = col.find_ancestor(exp.Select)
        while sel is not None:
            src = self.sources(sel)
            if q:
                if q in src:
                    t = src[q]
                    if t is not None and t.column(col.name) is not None:
                        return t, q
                    return None, None
            else:
                hits = [(k, t) for k, t in src.items() if t is not None and t.column(col.name) is not None]
                unknown = any(t is None for t in src.values())
                if len(hits) == 1 and not unknown:
                    return hits[0][1], hits[0][0]
                if hits or unknown:
                    return None, None
            sel = sel.find_ancestor(exp.Select)
        return None, None

    def columns(self):
        """Column nodes that carry character offsets."""
        exp = self.exp
        if self.tree is None:
            return []
        out = []
        for c in self.tree.find_all(exp.Column):
            if isinstance(c.this, exp.Identifier) and "start" in c.this.meta:
                out.append(c)
        out.sort(key=lambda c: c.this.meta["start"])
        return out

    def select_list(self, sel_tok: int) -> tuple[list[tuple[int, int]], int]:
        """Item token ranges of the SELECT list starting at token sel_tok, and the index of its FROM (or end)."""
        TT = self.TT
        d = self.depth[sel_tok]
        k = sel_tok + 1
        if self.tt(k) == TT.DISTINCT:
            k += 1
        start = k
        items = []
        while k < self.n:
            if self.depth[k] < d:
                break
            if self.depth[k] == d and self.tt(k) in (TT.FROM, TT.UNION, TT.EXCEPT, TT.INTERSECT, TT.SEMICOLON,
                                                     TT.ORDER_BY, TT.LIMIT, TT.WHERE, TT.GROUP_BY):
                break
            if self.depth[k] == d and self.tt(k) == TT.COMMA:
                items.append((start, k - 1))
                start = k + 1
            k += 1
        if start <= k - 1:
            items.append((start, k - 1))
        return items, k

    def main_select(self) -> int | None:
        """Token index of the outermost SELECT of the final statement (after any WITH)."""
        cands = [i for i in range(self.n) if self.tt(i) == self.TT.SELECT and self.depth[i] == 0]
        return cands[-1] if cands else None


def _apply(text: str, edits: list[tuple[int, int, str]]) -> str:
    """Replace text[start:end] by new for each edit (non-overlapping)."""
    edits = sorted(set(edits), key=lambda e: (e[0], e[1]))
    for a, b in zip(edits, edits[1:]):
        if b[0] < a[1]:
            raise _Skip
    out = text
    for start, end, new in reversed(edits):
        out = out[:start] + new + out[end:]
    return out


def _delete_tokens(ctx: _Ctx, i: int, j: int) -> tuple[int, int, str]:
    """An edit deleting tokens i..j inclusive with the whitespace before them."""
    start = ctx.s(i)
    while start > 0 and ctx.gold[start - 1] in " \t\n":
        start -= 1
    return (start, ctx.e(j), "")


_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$")


def _spell(ctx: _Ctx, name: str) -> str:
    """A schema name spelt the way the query spells identifiers (sbTxId rather than sbtxid when seen)."""
    low = name.lower()
    for t in ctx.toks:
        if t.text.lower() == low and _IDENT.match(t.text):
            return t.text
    return name


def _plain_word(ctx: _Ctx, word: str) -> bool:
    """True when word is a plain identifier that is not a keyword of the dialect."""
    if not _IDENT.match(word):
        return False
    try:
        _, _, Dialect, TT = _sqlglot()
        toks = Dialect.get_or_raise(ctx.sg_dialect).tokenize(word)
        return len(toks) == 1 and toks[0].token_type == TT.VAR
    except Exception:
        return False


def _plural(w: str) -> str:
    if w.endswith("y") and len(w) > 2 and w[-2] not in "aeiou":
        return w[:-1] + "ies"
    if w.endswith(("s", "x", "ch", "sh")):
        return w + "es"
    return w + "s"


def _singular(w: str) -> str | None:
    lw = w.lower()
    if lw.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if lw.endswith(("ses", "xes", "ches", "shes")) and len(w) > 4:
        return w[:-2]
    if lw.endswith("s") and not lw.endswith(("ss", "us", "is")) and len(w) > 3:
        return w[:-1]
    return None


def _words(name: str) -> tuple[list[str], str]:
    """Split an identifier into words; style is 'snake', 'camel' or 'flat'."""
    if "_" in name.strip("_"):
        return [w for w in name.split("_") if w], "snake"
    parts = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+", name)
    if len(parts) > 1 and "".join(parts) == name:
        return parts, "camel"
    return [name], "flat"


def _join(words: list[str], style: str) -> str:
    if style == "camel":
        return words[0][:1].lower() + words[0][1:] + "".join(w[:1].upper() + w[1:] for w in words[1:])
    if style == "flat":
        return "".join(words)
    return "_".join(words)


# --------------------------------------------------------------------------------------------------------------
# presentation: how a small chat model wraps its SQL

_EN_INTRO = (
    "Here is the SQL query:",
    "Sure! Here's a query that answers your question:",
    "The following query returns the requested data:",
    "To answer this, we can use the following SQL:",
    "You can use this query:",
    "Based on the schema provided, this query should work:",
    "Here's the {dialect} query you need:",
    "Certainly. The query below does this:",
    "SQL query:",
)
_EN_OUTRO = (
    "This query uses the {tables} table{s} to compute the result.",
    "Let me know if you need any modifications!",
    "Note: adjust the filters if your data uses different values.",
    "The result is ordered as requested.",
    "This should give you the correct result.",
    "",
    "",
)
_HI_INTRO = (
    "Yeh raha aapka SQL query:",
    "Aapke sawaal ka jawab is query se milega:",
    "Theek hai, yeh query use kijiye:",
    "Is problem ke liye yeh SQL chalega:",
    "Bilkul! Neeche query di gayi hai:",
    "Dekhiye, {tables} table se data nikalne ke liye yeh query hai:",
    "Haan ji, aap yeh query run kar sakte hain:",
)
_HI_OUTRO = (
    "Is query mein {tables} table ka use kiya gaya hai.",
    "Agar koi aur filter chahiye toh batayein.",
    "Yeh query saare matching rows return karegi.",
    "Note: date range zarurat ke hisaab se badal sakte hain.",
    "Umeed hai isse aapka kaam ho jayega!",
    "",
)
_DIALECT_NAME = {"sqlite": "SQLite", "postgres": "PostgreSQL", "duckdb": "DuckDB", "mysql": "MySQL"}


def _fill(template: str, ctx: _Ctx) -> str:
    names = [t.name for t in ctx.used][:3] or ["given"]
    return template.format(dialect=_DIALECT_NAME.get(ctx.dialect, ctx.dialect), tables=", ".join(names),
                           s="s" if len(names) > 1 else "")


def _multiline(sql: str, ctx: _Ctx | None, rng: random.Random) -> str:
    """Break a one-line query before its top-level clauses, as chat models format SQL (whitespace only)."""
    if ctx is None or sql != ctx.gold:
        # only the gold's own tokens are known; re-tokenize the damaged text
        try:
            _, _, Dialect, TT = _sqlglot()
            toks = list(Dialect.get_or_raise(ctx.sg_dialect if ctx else "sqlite").tokenize(sql))
        except Exception:
            return sql
    else:
        toks = ctx.toks
    _, _, _, TT = _sqlglot()
    breakers = {TT.FROM, TT.WHERE, TT.GROUP_BY, TT.ORDER_BY, TT.HAVING, TT.LIMIT, TT.JOIN, TT.LEFT, TT.INNER,
                TT.UNION}
    d, cuts, prev = 0, [], None
    for t in toks:
        if t.token_type == TT.L_PAREN:
            d += 1
        elif t.token_type == TT.R_PAREN:
            d -= 1
        elif d == 0 and t.token_type in breakers and prev not in (TT.LEFT, TT.INNER, TT.UNION, TT.OUTER, TT.CROSS,
                                                                   TT.FULL, TT.RIGHT, TT.NATURAL):
            if t.start > 0 and sql[t.start - 1] == " ":
                cuts.append(t.start - 1)
        prev = t.token_type
    out = sql
    for c in reversed(cuts):
        out = out[:c] + "\n" + out[c + 1:]
    return out


def _present(sql: str, ctx: _Ctx, rng: random.Random | None = None, allow_multiline: bool = True) -> str:
    """Wrap SQL the way a chat model does; every form here is one the as-is runner can read."""
    rng = rng or ctx.rng
    if allow_multiline and rng.random() < 0.35:
        sql = _multiline(sql, ctx, rng)
    semi = ";" if rng.random() < 0.5 else ""
    form = rng.choices(("bare", "fence", "fence_plain", "prose", "hinglish"), weights=(20, 30, 10, 28, 12))[0]
    body = sql + semi
    if form == "bare":
        return body
    if form == "fence":
        return f"```sql\n{body}\n```"
    if form == "fence_plain":
        return f"```\n{body}\n```"
    if form == "prose":
        intro = _fill(rng.choice(_EN_INTRO), ctx)
        outro = _fill(rng.choice(_EN_OUTRO), ctx)
        return f"{intro}\n\n```sql\n{body}\n```" + (f"\n\n{outro}" if outro else "")
    intro = _fill(rng.choice(_HI_INTRO), ctx)
    outro = _fill(rng.choice(_HI_OUTRO), ctx)
    return f"{intro}\n\n```sql\n{body}\n```" + (f"\n{outro}" if outro else "")


# --------------------------------------------------------------------------------------------------------------
# (A) misspelt / invented column names

_ABBR = {
    "num": "number", "number": "num", "amt": "amount", "amount": "amt", "qty": "quantity", "quantity": "qty",
    "dt": "date", "date": "dt", "ts": "timestamp", "desc": "description", "description": "desc",
    "addr": "address", "address": "addr", "cust": "customer", "customer": "cust", "tx": "transaction",
    "txn": "transaction", "cnt": "count", "count": "cnt", "tot": "total", "total": "tot", "appr": "approval",
    "reg": "registration", "yr": "year", "year": "yr", "pct": "percent", "doc": "doctor", "diag": "diagnosis",
    "emp": "employee", "dept": "department", "ref": "reference", "dp": "daily_price", "ins": "insurance",
    "prev": "previous", "max": "maximum", "min": "minimum", "avg": "average", "lat": "latitude",
    "lon": "longitude", "pop": "population", "dur": "duration", "loc": "location", "org": "organization",
    "msg": "message", "img": "image", "pwd": "password", "acct": "account", "bal": "balance",
}
_SYN = {
    "name": ("title", "full_name", "names"), "title": ("name", "paper_title"), "city_name": ("city",),
    "state_name": ("state",), "country_name": ("country",), "population": ("total_population",),
    "rating": ("stars", "score"), "created_at": ("created_date", "creation_date", "create_time"),
    "updated_at": ("updated_date", "modified_at"), "price": ("cost", "unit_cost"), "cost": ("price",),
    "year": ("pub_year", "publication_year"), "country": ("country_name", "nation"), "email": ("email_address",),
    "phone": ("phone_number",), "length": ("river_length", "len"), "area": ("total_area",),
    "first_name": ("firstname", "fname"), "last_name": ("lastname", "surname", "lname"),
    "status": ("state", "current_status"), "type": ("kind", "category"), "gender": ("sex",),
    "total": ("total_amount", "amount"), "amount": ("total_amount", "value"), "quantity": ("qty", "count"),
    "city": ("city_name",), "state": ("state_name", "province"), "description": ("details",),
    "homepage": ("website", "url"), "citation_num": ("num_citations", "citation_count", "citations"),
    "reference_num": ("num_references", "reference_count"), "milliseconds": ("duration", "length_ms"),
    "unit_price": ("price",), "invoice_date": ("date", "invoice_dt"), "sale_price": ("price", "amount"),
    "sale_date": ("date", "sold_date"), "start_dt": ("start_date",), "end_dt": ("end_date",),
}


def _column_variants(ctx: _Ctx, name: str, table) -> list[tuple[str, float]]:
    low = name.lower()
    words, style = _words(name)
    out: list[tuple[str, float]] = []
    # abbreviations expanded or contracted (cust -> customer, num -> number)
    for k, w in enumerate(words):
        rep = _ABBR.get(w.lower())
        if rep:
            nw = list(words)
            nw[k] = rep if style != "camel" else rep.replace("_", " ").title().replace(" ", "")
            out.append((_join(nw, style), 3.0))
    for v in _SYN.get(low, ()):
        out.append((v, 3.0))
    # conventional key names the model assumes (aid -> author_id, id -> customer_id)
    tsing = (_singular(table.name) or table.name).lower()
    if low == "id" or (low.endswith("id") and len(low) <= 5 and "_" not in low):
        out.append((f"{tsing}_id", 3.0))
        if low != "id":
            out.append(("id", 2.0))
    if low.endswith("_id") and low != "id":
        out.append((low[:-3] + "id", 1.0))
    # table-prefixed or prefix-stripped (name -> author_name, city_name -> name)
    if not low.startswith(tsing) and len(tsing) <= 10 and "_" not in tsing:
        out.append((f"{tsing}_{low}", 2.0))
    elif low.startswith(tsing + "_"):
        out.append((low[len(tsing) + 1:], 1.5))
    # camelCase / snake_case / flat
    if style == "camel":
        out.append(("_".join(w.lower() for w in words), 3.0))
        if len(words) > 2:  # strip a short vendor prefix (sbCustName -> CustName -> cust_name)
            out.append(("_".join(w.lower() for w in words[1:]), 3.0))
    elif style == "snake":
        out.append((_join(words, "camel"), 1.0))
        out.append(("".join(words), 1.0))
    # plural / singular of the last word
    last = words[-1]
    if len(last) >= 4 and last.isalpha():
        sing = _singular(last)
        nw = list(words)
        nw[-1] = sing if sing else _plural(last)
        out.append((_join(nw, style), 1.5))
    res: list[tuple[str, float]] = []
    seen = set()
    for v, w in out:
        lv = v.lower()
        if lv == low or lv in seen or lv in ctx.used_cols or lv in ctx.aliases or lv in ctx.ctes \
                or lv in ctx.all_tables:
            continue
        if not _plain_word(ctx, v):
            continue
        seen.add(lv)
        res.append((v, w))
    return res


def _pick(rng: random.Random, weighted: list[tuple]):
    if not weighted:
        raise _Skip
    return rng.choices([w[0] for w in weighted], weights=[w[1] for w in weighted])[0]


def _k_misspelt_column(ctx: _Ctx):
    groups: dict = {}
    for c in ctx.columns():
        t, _ = ctx.col_table(c)
        if t is None:
            continue
        groups.setdefault((t.qualified_name, c.name.lower()), (t, []))[1].append(c)
    if not groups:
        raise _Skip
    keys = sorted(groups)
    ctx.rng.shuffle(keys)
    for key in keys:
        t, cols = groups[key]
        variants = _column_variants(ctx, cols[0].name, t)
        if not variants:
            continue
        new = _pick(ctx.rng, variants)
        targets = cols if ctx.rng.random() < 0.7 else [ctx.rng.choice(cols)]
        edits = []
        for c in targets:
            m = c.this.meta
            quoted = ctx.gold[m["start"]] in "\"`["
            edits.append((m["start"], m["end"] + 1, f'"{new}"' if quoted else new))
        where = "every use" if len(targets) == len(cols) else "one use"
        return _apply(ctx.gold, edits), f"column {t.name}.{cols[0].name} written as {new} ({where})"
    raise _Skip


# --------------------------------------------------------------------------------------------------------------
# (A) wrong / invented table names

_TABLE_SYN = {
    "writes": ("author_publication", "authorship"), "cite": ("citation", "citations"), "sales": ("sale", "orders"),
    "publication": ("paper", "papers"), "paper": ("papers", "publication"), "review": ("reviews", "ratings"),
    "business": ("businesses", "restaurant"), "restaurant": ("restaurants",), "location": ("locations", "address"),
    "track": ("tracks", "song", "songs"), "invoice_line": ("invoice_item", "invoice_items"),
    "flight": ("flights",), "airport": ("airports",), "state": ("states",), "city": ("cities",),
    "users": ("user", "customers"), "merchants": ("merchant", "stores"), "treatments": ("treatment",),
    "patients": ("patient",), "doctors": ("doctor", "physicians"), "customer": ("customers", "clients"),
    "employee": ("employees", "staff"), "student": ("students",), "course": ("courses",),
    "wallet_transactions_daily": ("transactions", "wallet_transactions"), "author": ("authors",),
}


def _table_variants(ctx: _Ctx, name: str) -> list[tuple[str, float]]:
    low = name.lower()
    words, style = _words(name)
    out: list[tuple[str, float]] = []
    last = words[-1]
    sing = _singular(last)
    nw = list(words)
    nw[-1] = sing if sing else _plural(last)
    out.append((_join(nw, style), 4.0))
    for v in _TABLE_SYN.get(low, ()):
        out.append((v, 3.0))
    if style == "snake" and len(words) == 2:
        out.append((f"{words[1]}_{words[0]}", 2.0))  # domain_author -> author_domain
        out.append((f"{words[0]}_{_plural(words[1])}", 1.0))
    if style == "camel" and len(words) > 1:
        rest = words[1:]
        out.append(("".join(rest), 2.5))  # sbCustomer -> Customer
        out.append((_plural("_".join(w.lower() for w in rest)), 2.5))  # -> customers
    out.append((f"tbl_{low}", 0.7))
    res, seen = [], set()
    for v, w in out:
        lv = v.lower()
        if lv == low or lv in seen or lv in ctx.all_tables or lv in ctx.ctes or not _plain_word(ctx, v):
            continue
        seen.add(lv)
        res.append((v, w))
    return res


def _k_wrong_table_name(ctx: _Ctx):
    exp = ctx.exp
    if ctx.tree is None:
        raise _Skip
    groups: dict = {}
    for t in ctx.tree.find_all(exp.Table):
        st = ctx.resolve(t)
        if st is None or not isinstance(t.this, exp.Identifier) or "start" not in t.this.meta:
            continue
        groups.setdefault(st.qualified_name, (st, []))[1].append(t)
    if not groups:
        raise _Skip
    keys = sorted(groups)
    key = ctx.rng.choice(keys)
    st, nodes = groups[key]
    # PostgreSQL: a schema-qualified table written without its schema
    qualified = [n for n in nodes if n.text("db")]
    if qualified and ctx.rng.random() < 0.4:
        edits = []
        for n in qualified:
            dbm = n.args["db"].meta if hasattr(n.args.get("db"), "meta") else {}
            if "start" not in dbm:
                raise _Skip
            edits.append((dbm["start"], n.this.meta["start"], ""))
        return _apply(ctx.gold, edits), f"schema prefix dropped from {st.qualified_name}"
    name = nodes[0].name
    variants = _table_variants(ctx, name)
    new = _pick(ctx.rng, variants)
    edits = []
    for n in nodes:
        m = n.this.meta
        edits.append((m["start"], m["end"] + 1, new))
    # the model keeps using its own name as a qualifier too
    for c in ctx.columns():
        q = c.args.get("table")
        if q is not None and c.table.lower() == name.lower() and "start" in q.meta:
            edits.append((q.meta["start"], q.meta["end"] + 1, new))
    return _apply(ctx.gold, edits), f"table {name} written as {new}"


# --------------------------------------------------------------------------------------------------------------
# (A) qualifier mix-ups: table name instead of its alias, the wrong alias, an alias never defined


def _k_qualifier_mixup(ctx: _Ctx):
    exp = ctx.exp
    if ctx.tree is None:
        raise _Skip
    options = []
    cols = ctx.columns()
    for c in cols:
        q = c.args.get("table")
        t, key = ctx.col_table(c)
        if t is None:
            continue
        sel = c.find_ancestor(exp.Select)
        src = ctx.sources(sel) if sel is not None else {}
        if q is not None and "start" in q.meta:
            # aliased table referred to by its own name
            if key in src and key != t.name.lower() and t.name.lower() not in src:
                options.append(("table_name", c, _spell(ctx, t.name), 3.0))
            # a sibling alias whose table lacks the column
            for k2, t2 in src.items():
                if k2 != key and t2 is not None and t2.column(c.name) is None and k2 != t.name.lower():
                    options.append(("wrong_alias", c, k2, 2.0))
        else:
            # unqualified column in a one-table query: the model invents an alias it never declared
            if len(src) == 1 and key == t.name.lower():
                cand = t.name[:1].lower()
                if cand in src or cand == t.name.lower():
                    cand = t.name[:2].lower()
                if cand not in src and _plain_word(ctx, cand):
                    options.append(("undeclared", c, cand, 1.5))
    if not options:
        raise _Skip
    how, c, new, _ = _pick(ctx.rng, [(o, o[3]) for o in options])
    # keep the original spelling of an existing alias
    if how == "wrong_alias":
        sel = c.find_ancestor(exp.Select)
        for tn in sel.find_all(exp.Table):
            if (tn.alias or tn.name).lower() == new:
                new = tn.alias or tn.name
                break
    if how == "undeclared":
        m = c.this.meta
        return _apply(ctx.gold, [(m["start"], m["start"], f"{new}.")]), \
            f"{c.name} qualified with undeclared alias {new}"
    q = c.args["table"]
    if how == "table_name":
        # the model mixes styles: several uses of the alias replaced by the table name
        same = [x for x in cols if x.args.get("table") is not None and x.table == c.table
                and "start" in x.args["table"].meta and x.find_ancestor(exp.Select) is c.find_ancestor(exp.Select)]
        targets = [c] if ctx.rng.random() < 0.6 else same
        edits = [(x.args["table"].meta["start"], x.args["table"].meta["end"] + 1, new) for x in targets]
        return _apply(ctx.gold, edits), f"alias {c.table} replaced by table name {new}"
    return _apply(ctx.gold, [(q.meta["start"], q.meta["end"] + 1, new)]), \
        f"{c.table}.{c.name} qualified with the wrong alias {new}"


# --------------------------------------------------------------------------------------------------------------
# (A) ambiguous column: qualifier dropped where two joined tables share the column name


def _k_ambiguous_column(ctx: _Ctx):
    exp = ctx.exp
    if ctx.tree is None:
        raise _Skip
    options = []
    for c in ctx.columns():
        q = c.args.get("table")
        if q is None or "start" not in q.meta or c.args.get("db") is not None:
            continue
        if c.find_ancestor(exp.Order, exp.Group) is not None:
            continue
        sel = c.find_ancestor(exp.Select)
        if sel is None:
            continue
        src = ctx.sources(sel)
        having = [k for k, t in src.items() if t is not None and t.column(c.name) is not None]
        if len(having) >= 2 and c.table.lower() in having:
            w = 3.0 if c.find_ancestor(exp.Join) is None else 1.0
            options.append((c, w))
    c = _pick(ctx.rng, options)
    q = c.args["table"]
    # several unqualified uses are typical: drop the qualifier on every use of this column in this SELECT
    targets = [c]
    if ctx.rng.random() < 0.5:
        sel = c.find_ancestor(exp.Select)
        targets = [x for x, _ in options if x.name.lower() == c.name.lower() and x.find_ancestor(exp.Select) is sel]
    edits = [(x.args["table"].meta["start"], x.this.meta["start"], "") for x in targets]
    return _apply(ctx.gold, edits), f"qualifier dropped from {q.name}.{c.name}, which two joined tables share"


# --------------------------------------------------------------------------------------------------------------
# (A) functions of another dialect


def _pg_interval_parts(s: str) -> tuple[int, str] | None:
    m = re.match(r"^\s*(\d+)\s*([a-zA-Z]+?)s?\s*$", s)
    if not m:
        return None
    return int(m.group(1)), m.group(2).lower()


def _sqlite_mod_to_pg(mods: list[str], base: str) -> str | None:
    out = base
    for m in mods:
        m2 = m.strip().lower()
        if m2 == "start of month":
            out = f"DATE_TRUNC('month', {out})"
        elif m2 == "start of year":
            out = f"DATE_TRUNC('year', {out})"
        else:
            mm = re.match(r"^([+-])\s*(\d+)\s+([a-z]+?)s?$", m2)
            if not mm:
                return None
            sign, n, unit = mm.groups()
            out = f"{out} {'-' if sign == '-' else '+'} INTERVAL '{n} {unit}{'s' if n != '1' else ''}'"
    return out


def _k_dialect_function(ctx: _Ctx):
    rng, TT = ctx.rng, ctx.TT
    style = rng.choice(("postgres", "mysql", "tsql")) if ctx.dialect == "sqlite" else \
        rng.choice(("sqlite", "mysql", "tsql"))
    families: dict[str, list[tuple[int, int, str]]] = {}

    def add(fam, edit):
        families.setdefault(fam, []).append(edit)

    def lit(i):
        return ctx.toks[i].text if ctx.tt(i) == TT.STRING else None

    for i in range(ctx.n):
        up = ctx.up(i)
        if ctx.dialect == "sqlite":
            if up == "STRFTIME" and ctx.is_call(i):
                a = ctx.args(i)
                if len(a) != 2 or a[0][0] != a[0][1] or lit(a[0][0]) is None:
                    continue
                fmt = lit(a[0][0])
                x = ctx.text(*a[1])
                if x.strip().lower() == "'now'":
                    x = {"postgres": "CURRENT_DATE", "mysql": "NOW()", "tsql": "GETDATE()"}[style]
                unit = {"%Y": "YEAR", "%m": "MONTH", "%w": "DOW", "%s": "EPOCH", "%Y-%m": "MONTHTRUNC",
                        "%Y-%W": "WEEKTRUNC", "%d": "DAY", "%H": "HOUR"}.get(fmt)
                if unit is None:
                    continue
                if style == "postgres":
                    new = {"MONTHTRUNC": f"DATE_TRUNC('month', {x})", "WEEKTRUNC": f"DATE_TRUNC('week', {x})"}.get(
                        unit, f"EXTRACT({unit} FROM {x})")
                elif style == "mysql":
                    new = {"YEAR": f"YEAR({x})", "MONTH": f"MONTH({x})", "DOW": f"DAYOFWEEK({x})",
                           "EPOCH": f"UNIX_TIMESTAMP({x})", "MONTHTRUNC": f"DATE_FORMAT({x}, '%Y-%m')",
                           "WEEKTRUNC": f"YEARWEEK({x})", "DAY": f"DAY({x})", "HOUR": f"HOUR({x})"}[unit]
                else:
                    new = {"YEAR": f"DATEPART(year, {x})", "MONTH": f"DATEPART(month, {x})",
                           "DOW": f"DATEPART(weekday, {x})", "EPOCH": f"DATEDIFF(second, '1970-01-01', {x})",
                           "MONTHTRUNC": f"CONVERT(varchar(7), {x}, 120)", "WEEKTRUNC": f"DATEPART(week, {x})",
                           "DAY": f"DAY({x})", "HOUR": f"DATEPART(hour, {x})"}[unit]
                add("strftime", (ctx.s(i), ctx.e(ctx.match[i + 1]), new))
            elif up in ("DATE", "DATETIME") and ctx.is_call(i):
                a = ctx.args(i)
                if not a:
                    continue
                first = ctx.text(*a[0]).strip()
                if first.lower() == "'now'":
                    mods = []
                    for r in a[1:]:
                        if r[0] != r[1] or lit(r[0]) is None:
                            mods = None
                            break
                        mods.append(lit(r[0]))
                    if mods is None:
                        continue
                    base = {"postgres": "CURRENT_DATE", "mysql": "CURDATE()", "tsql": "GETDATE()"}[style]
                    if up == "DATETIME":
                        base = {"postgres": "NOW()", "mysql": "NOW()", "tsql": "GETDATE()"}[style]
                    if style == "postgres" or not mods:
                        new = _sqlite_mod_to_pg(mods, base)
                    elif style == "mysql":
                        new = base
                        for m in mods:
                            mm = re.match(r"^([+-])\s*(\d+)\s+([a-z]+?)s?$", m.strip().lower())
                            if mm:
                                fn = "DATE_SUB" if mm.group(1) == "-" else "DATE_ADD"
                                new = f"{fn}({new}, INTERVAL {mm.group(2)} {mm.group(3).upper()})"
                            elif m.strip().lower() == "start of month":
                                new = f"DATE_FORMAT({new}, '%Y-%m-01')"
                            else:
                                new = None
                                break
                    else:
                        new = base
                        for m in mods:
                            mm = re.match(r"^([+-])\s*(\d+)\s+([a-z]+?)s?$", m.strip().lower())
                            if mm:
                                new = f"DATEADD({mm.group(3)}, {mm.group(1).replace('+', '')}{mm.group(2)}, {new})"
                            else:
                                new = None
                                break
                    if new:
                        add("date_now", (ctx.s(i), ctx.e(ctx.match[i + 1]), new))
                elif len(a) == 1:
                    new = {"postgres": f"{first}::date", "mysql": f"CONVERT({first}, DATE)",
                           "tsql": f"CONVERT(date, {first})"}[style]
                    add("date_col", (ctx.s(i), ctx.e(ctx.match[i + 1]), new))
            elif up == "JULIANDAY" and ctx.is_call(i):
                a = ctx.args(i)
                if len(a) != 1:
                    continue
                x = ctx.text(*a[0])
                if x.strip().lower() == "'now'":
                    x = {"postgres": "NOW()", "mysql": "NOW()", "tsql": "GETDATE()"}[style]
                new = {"postgres": f"EXTRACT(EPOCH FROM {x}) / 86400", "mysql": f"TO_DAYS({x})",
                       "tsql": f"DATEDIFF(day, '1970-01-01', {x})"}[style]
                add("julianday", (ctx.s(i), ctx.e(ctx.match[i + 1]), new))
            elif up == "CAST" and ctx.is_call(i):
                rp = ctx.match[i + 1]
                if ctx.up(rp - 1) in ("REAL", "FLOAT", "DOUBLE") and ctx.tt(rp - 2) == TT.ALIAS:
                    inner = ctx.text(i + 2, rp - 3)
                    new = {"postgres": f"({inner})::float", "mysql": f"({inner})::numeric",
                           "tsql": f"CONVERT(float, {inner})"}[style]
                    add("cast", (ctx.s(i), ctx.e(rp), new))
            elif up in ("COALESCE", "IFNULL") and ctx.is_call(i):
                add("null_fn", (ctx.s(i), ctx.e(i), {"postgres": "NVL", "mysql": "NVL", "tsql": "ISNULL"}[style]))
            elif up == "LENGTH" and ctx.is_call(i):
                add("length", (ctx.s(i), ctx.e(i), "LEN"))
            elif up == "GROUP_CONCAT" and ctx.is_call(i):
                add("agg", (ctx.s(i), ctx.e(i), "STRING_AGG"))
            elif ctx.tt(i) == TT.LIKE and i > 0 and ctx.up(i - 1) != "NOT":
                # LOWER(x) LIKE LOWER('..') -> x ILIKE '..' (PostgreSQL habit)
                if style == "postgres":
                    add("ilike", (ctx.s(i), ctx.e(i), "ILIKE"))
        else:  # PostgreSQL (or others): the model writes SQLite / MySQL / T-SQL
            if up == "DATE_TRUNC" and ctx.is_call(i):
                a = ctx.args(i)
                if len(a) != 2 or lit(a[0][0]) is None:
                    continue
                unit = lit(a[0][0]).lower()
                x = ctx.text(*a[1])
                fmt = {"month": "%Y-%m", "week": "%Y-%W", "year": "%Y", "day": "%Y-%m-%d", "quarter": "%Y-%m"}.get(unit)
                if fmt is None:
                    continue
                new = {"sqlite": f"strftime('{fmt}', {x})", "mysql": f"DATE_FORMAT({x}, '{fmt}')",
                       "tsql": f"DATETRUNC({unit}, {x})"}[style]
                add("date_trunc", (ctx.s(i), ctx.e(ctx.match[i + 1]), new))
            elif up in ("EXTRACT", "DATE_PART") and ctx.is_call(i):
                lp, rp = i + 1, ctx.match[i + 1]
                if up == "EXTRACT":
                    unit = ctx.up(lp + 1)
                    if ctx.tt(lp + 2) != TT.FROM:
                        continue
                    x = ctx.text(lp + 3, rp - 1)
                else:
                    a = ctx.args(i)
                    if len(a) != 2 or lit(a[0][0]) is None:
                        continue
                    unit = lit(a[0][0]).upper()
                    x = ctx.text(*a[1])
                fmt = {"YEAR": "%Y", "MONTH": "%m", "DOW": "%w", "EPOCH": "%s", "DAY": "%d", "HOUR": "%H"}.get(unit)
                if fmt is None:
                    continue
                new = {"sqlite": f"strftime('{fmt}', {x})",
                       "mysql": {"YEAR": f"YEAR({x})", "MONTH": f"MONTH({x})", "DOW": f"DAYOFWEEK({x})",
                                 "EPOCH": f"UNIX_TIMESTAMP({x})", "DAY": f"DAYOFMONTH({x})",
                                 "HOUR": f"HOUR({x})"}[unit],
                       "tsql": f"DATEPART({unit.lower() if unit != 'DOW' else 'weekday'}, {x})"}[style]
                add("extract", (ctx.s(i), ctx.e(rp), new))
            elif ctx.tt(i) in (TT.CURRENT_DATE, TT.CURRENT_TIMESTAMP) or (up == "NOW" and ctx.is_call(i)):
                end = ctx.match[i + 1] if up == "NOW" else i
                # base +/- INTERVAL '...'
                k = end + 1
                if ctx.tt(k) in (TT.DASH, TT.PLUS) and ctx.tt(k + 1) == TT.INTERVAL and ctx.tt(k + 2) == TT.STRING:
                    ivs = ctx.toks[k + 2].text
                    last = k + 2
                    if ctx.tt(k + 3) == TT.VAR and ctx.up(k + 3) in ("DAY", "DAYS", "MONTH", "MONTHS", "YEAR",
                                                                      "WEEK", "HOUR"):
                        ivs = f"{ivs} {ctx.toks[k + 3].text}"
                        last = k + 3
                    p = _pg_interval_parts(ivs)
                    if p is None:
                        continue
                    n, unit = p
                    sign = "-" if ctx.tt(k) == TT.DASH else "+"
                    if style == "sqlite":
                        fn = "DATE" if ctx.tt(i) == TT.CURRENT_DATE else "DATETIME"
                        new = f"{fn}('now', '{sign}{n} {unit}{'s' if n != 1 else ''}')"
                    elif style == "mysql":
                        new = f"{'DATE_SUB' if sign == '-' else 'DATE_ADD'}(CURDATE(), INTERVAL {n} {unit.upper()})"
                    else:
                        new = f"DATEADD({unit}, {'-' if sign == '-' else ''}{n}, GETDATE())"
                    add("interval", (ctx.s(i), ctx.e(last), new))
                elif ctx.tt(i) == TT.CURRENT_DATE:
                    add("today", (ctx.s(i), ctx.e(i), {"sqlite": "DATE('now', 'localtime')", "mysql": "CURDATE()",
                                                       "tsql": "GETDATE()"}[style]))
                elif up == "NOW":
                    add("today", (ctx.s(i), ctx.e(end), {"sqlite": "DATETIME('now')", "mysql": "SYSDATE()",
                                                         "tsql": "GETDATE()"}[style]))
            elif up == "COALESCE" and ctx.is_call(i):
                add("null_fn", (ctx.s(i), ctx.e(i), {"sqlite": "IFNULL", "mysql": "IFNULL", "tsql": "ISNULL"}[style]))
            elif up == "STRING_AGG" and ctx.is_call(i):
                add("agg", (ctx.s(i), ctx.e(i), "GROUP_CONCAT"))
            elif up == "TO_CHAR" and ctx.is_call(i):
                a = ctx.args(i)
                if len(a) == 2:
                    add("to_char", (ctx.s(i), ctx.e(ctx.match[i + 1]), f"strftime('%Y-%m', {ctx.text(*a[0])})"))
            elif up == "LENGTH" and ctx.is_call(i):
                add("length", (ctx.s(i), ctx.e(i), "LEN"))
            elif up == "AGE" and ctx.is_call(i):
                a = ctx.args(i)
                if len(a) == 2:
                    add("age", (ctx.s(i), ctx.e(ctx.match[i + 1]),
                                f"DATEDIFF({ctx.text(*a[0])}, {ctx.text(*a[1])})"))
    # ILIKE is a real error only for SQLite when nothing else is there; prefer date families
    if ctx.dialect == "sqlite" and len(families) > 1:
        families.pop("ilike", None)
    if not families:
        raise _Skip
    fam = rng.choice(sorted(families))
    edits = families[fam]
    # a second, different family sometimes comes along (the model writes the whole query in its dialect)
    others = [f for f in sorted(families) if f != fam]
    if others and rng.random() < 0.4:
        f2 = rng.choice(others)
        cand = edits + families[f2]
        try:
            return _apply(ctx.gold, cand), f"{fam} and {f2} written in {style} style"
        except _Skip:
            pass
    # nested matches (e.g. strftime inside date) overlap: keep the outermost non-overlapping ones
    edits = sorted(edits, key=lambda e: (e[0], -e[1]))
    kept = []
    for e in edits:
        if kept and e[0] < kept[-1][1]:
            continue
        kept.append(e)
    return _apply(ctx.gold, kept), f"{fam} written in {style} style"


# --------------------------------------------------------------------------------------------------------------
# (A) LIMIT of another dialect


def _k_limit_dialect(ctx: _Ctx):
    TT, rng = ctx.TT, ctx.rng
    lims = [i for i in range(ctx.n) if ctx.tt(i) == TT.LIMIT and ctx.depth[i] == 0]
    if not lims:
        raise _Skip
    li = lims[-1]
    if ctx.tt(li + 1) != TT.NUMBER:
        raise _Skip
    n = ctx.toks[li + 1].text
    has_offset = ctx.tt(li + 2) == TT.OFFSET
    sel = ctx.main_select()
    if sel is None or sel > li:
        raise _Skip
    end_lim = li + 1
    forms = ["top", "rownum", "before_order"]
    if ctx.dialect == "sqlite":
        forms += ["fetch", "top"]
    else:
        forms += ["mysql_offset"]
    orders = [i for i in range(sel, li) if ctx.tt(i) == TT.ORDER_BY and ctx.depth[i] == 0]
    if not orders:
        forms = [f for f in forms if f != "before_order"]
    if has_offset:
        forms = [f for f in forms if f in ("before_order", "rownum", "top")]
    form = rng.choice(forms)
    del_lim = _delete_tokens(ctx, li, end_lim)
    if form == "top":
        at = sel + 1 if ctx.tt(sel + 1) != TT.DISTINCT else sel + 2
        top = rng.choice((f"TOP {n} ", f"TOP ({n}) ", f"TOP {n} "))
        return _apply(ctx.gold, [del_lim, (ctx.s(at), ctx.s(at), top)]), f"LIMIT {n} written as T-SQL TOP"
    if form == "fetch":
        return _apply(ctx.gold, [(ctx.s(li), ctx.e(end_lim), f"FETCH FIRST {n} ROWS ONLY")]), \
            "LIMIT written as FETCH FIRST (not SQLite)"
    if form == "mysql_offset":
        return _apply(ctx.gold, [(ctx.s(li), ctx.e(end_lim), f"LIMIT 0, {n}")]), "MySQL LIMIT offset, count"
    if form == "before_order":
        oi = orders[-1]
        return _apply(ctx.gold, [del_lim, (ctx.s(oi), ctx.s(oi), f"LIMIT {n} ")]), "LIMIT placed before ORDER BY"
    # Oracle ROWNUM
    wh = [i for i in range(sel, li) if ctx.tt(i) == TT.WHERE and ctx.depth[i] == 0]
    if wh:
        w = wh[-1]
        ins = (ctx.e(w), ctx.e(w), f" ROWNUM <= {n} AND")
    else:
        stops = [i for i in range(sel, li) if ctx.depth[i] == 0 and ctx.tt(i) in (TT.GROUP_BY, TT.ORDER_BY)]
        at = stops[0] if stops else li
        ins = (ctx.s(at), ctx.s(at), f"WHERE ROWNUM <= {n} ")
    return _apply(ctx.gold, [del_lim, ins]), f"LIMIT {n} written as Oracle ROWNUM"


# --------------------------------------------------------------------------------------------------------------
# (A) quoting mistakes


def _k_identifier_quoting(ctx: _Ctx):
    TT, rng, exp = ctx.TT, ctx.rng, ctx.exp
    forms: list[tuple[str, float]] = []
    cols = [c for c in ctx.columns() if ctx.col_table(c)[0] is not None]
    strings = [i for i in range(ctx.n) if ctx.tt(i) == TT.STRING and i > 0
               and ctx.tt(i - 1) in (TT.EQ, TT.NEQ, TT.LIKE, TT.ILIKE)]
    if ctx.dialect != "sqlite":
        if cols:
            forms += [("backticks", 3.0), ("case_quoted", 3.0)]
        if strings:
            forms.append(("dq_value", 2.0))
    if any(c.args.get("table") is not None for c in cols):
        forms.append(("whole_qualified", 2.0))
    if strings:
        forms.append(("smart_quotes", 1.0))
    sel_cols = [c for c in cols if c.args.get("table") is None and isinstance(c.parent, (exp.Select, exp.EQ))]
    if sel_cols:
        forms.append(("single_quoted_col", 1.0))
    form = _pick(rng, forms)
    if form == "backticks":
        # MySQL habit: every identifier of a few columns in backticks
        k = max(1, min(len(cols), rng.randint(1, 3)))
        edits = []
        for c in rng.sample(cols, k):
            m = c.this.meta
            edits.append((m["start"], m["end"] + 1, f"`{c.name}`"))
            q = c.args.get("table")
            if q is not None and "start" in q.meta:
                edits.append((q.meta["start"], q.meta["end"] + 1, f"`{c.table}`"))
        return _apply(ctx.gold, edits), "identifiers quoted with MySQL backticks"
    if form == "case_quoted":
        c = rng.choice(cols)
        t, _ = ctx.col_table(c)
        real = t.column(c.name).name
        shown = c.name if c.name != real else (real[:1].upper() + real[1:])
        if shown == real:
            raise _Skip
        edits = [(x.this.meta["start"], x.this.meta["end"] + 1, f'"{shown}"') for x in cols
                 if x.name.lower() == c.name.lower() and ctx.col_table(x)[0] is t]
        return _apply(ctx.gold, edits), f'column {real} double-quoted as "{shown}" (case-sensitive)'
    if form == "whole_qualified":
        c = rng.choice([c for c in cols if c.args.get("table") is not None])
        q = c.args["table"]
        if "start" not in q.meta:
            raise _Skip
        whole = f"{c.table}.{c.name}"
        new = f'"{whole}"' if ctx.dialect != "sqlite" else rng.choice((f"`{whole}`", f"[{whole}]"))
        return _apply(ctx.gold, [(q.meta["start"], c.this.meta["end"] + 1, new)]), \
            f"qualified name {whole} quoted as one identifier"
    if form == "dq_value":
        i = rng.choice(strings)
        v = ctx.toks[i].text
        if '"' in v:
            raise _Skip
        return _apply(ctx.gold, [(ctx.s(i), ctx.e(i), f'"{v}"')]), f"string value {v!r} in double quotes"
    if form == "smart_quotes":
        i = rng.choice(strings)
        v = ctx.toks[i].text.replace("'", "''")
        q = rng.choice((("\u2018", "\u2019"), ("\u201c", "\u201d")))
        return _apply(ctx.gold, [(ctx.s(i), ctx.e(i), f"{q[0]}{v}{q[1]}")]), "string value in typographic quotes"
    c = rng.choice(sel_cols)
    m = c.this.meta
    return _apply(ctx.gold, [(m["start"], m["end"] + 1, f"'{c.name}'")]), \
        f"column {c.name} written in single quotes (a string literal)"


# --------------------------------------------------------------------------------------------------------------
# (A) grouping / aggregation errors


def _group_clauses(ctx: _Ctx):
    TT = ctx.TT
    out = []
    for i in range(ctx.n):
        if ctx.tt(i) == TT.GROUP_BY:
            end = ctx.clause_end(i)
            items, start = [], i + 1
            for k in range(i + 1, end):
                if ctx.tt(k) == TT.COMMA and ctx.depth[k] == ctx.depth[i]:
                    items.append((start, k - 1))
                    start = k + 1
            if start <= end - 1:
                items.append((start, end - 1))
            out.append((i, items, end))
    return out


_AGGS = {"COUNT", "SUM", "AVG", "MIN", "MAX", "GROUP_CONCAT", "STRING_AGG", "TOTAL"}


def _agg_items(ctx: _Ctx, gi: int) -> list[tuple[int, int, str | None]]:
    """(first, last token of the aggregate, its alias) for the aggregate items of the SELECT owning GROUP BY gi."""
    TT = ctx.TT
    d = ctx.depth[gi]
    k = gi - 1
    while k >= 0 and not (ctx.tt(k) == TT.SELECT and ctx.depth[k] == d):
        k -= 1
    if k < 0:
        return []
    items, _ = ctx.select_list(k)
    out = []
    for a, b in items:
        if ctx.up(a) in _AGGS and ctx.is_call(a) and ctx.match.get(a + 1) is not None:
            rp = ctx.match[a + 1]
            alias = None
            if rp + 2 == b and ctx.tt(rp + 1) == TT.ALIAS and _IDENT.match(ctx.toks[b].text):
                alias = ctx.toks[b].text
            elif rp == b:
                alias = None
            else:
                continue
            out.append((a, rp, alias))
    return out


def _k_group_by_error(ctx: _Ctx):
    TT, rng = ctx.TT, ctx.rng
    groups = _group_clauses(ctx)
    options = []
    lite = ctx.dialect == "sqlite"
    for g in groups:
        gi, items, end = g
        if len(items) >= 2:
            options.append(("drop_item", g, 1.0 if lite else 3.0))
        # whole GROUP BY dropped (only when a HAVING does not follow)
        if ctx.tt(end) != TT.HAVING:
            options.append(("drop_clause", g, 2.0))
        # every SELECT item grouped, the aggregate too
        if _agg_items(ctx, gi):
            options.append(("group_aggregate", g, 3.0 if lite else 1.5))
        if ctx.tt(end) == TT.HAVING:
            options.append(("having_to_where", g, 3.0))
    if not options:
        raise _Skip
    how, (gi, items, end), _ = _pick(rng, [(o, o[2]) for o in options])
    if how == "drop_item":
        k = rng.randrange(len(items))
        a, b = items[k]
        if k == 0:
            edit = (ctx.s(a), ctx.s(items[1][0]), "")
        else:
            edit = (ctx.e(items[k - 1][1]), ctx.e(b), "")
        return _apply(ctx.gold, [edit]), f"{ctx.text(a, b)} left out of GROUP BY"
    if how == "drop_clause":
        return _apply(ctx.gold, [_delete_tokens(ctx, gi, end - 1)]), "GROUP BY clause left out"
    if how == "group_aggregate":
        a, b, alias = rng.choice(_agg_items(ctx, gi))
        what = alias if alias and rng.random() < 0.6 else ctx.text(a, b)
        at = ctx.e(items[-1][1])
        return _apply(ctx.gold, [(at, at, f", {what}")]), f"aggregate {what} added to GROUP BY"
    # HAVING condition written in WHERE
    hi = end
    hend = ctx.clause_end(hi)
    cond = ctx.text(hi + 1, hend - 1)
    d = ctx.depth[gi]
    # the WHERE of the same SELECT, if any
    k = gi - 1
    where = None
    while k >= 0 and ctx.depth[k] >= d:
        if ctx.depth[k] == d and ctx.tt(k) == TT.WHERE:
            where = k
            break
        if ctx.depth[k] == d and ctx.tt(k) == TT.SELECT:
            break
        k -= 1
    edits = [_delete_tokens(ctx, hi, hend - 1)]
    if where is not None:
        edits.append((ctx.e(gi - 1), ctx.e(gi - 1), f" AND {cond}"))
    else:
        edits.append((ctx.s(gi), ctx.s(gi), f"WHERE {cond} "))
    return _apply(ctx.gold, edits), "aggregate condition put in WHERE instead of HAVING"


# --------------------------------------------------------------------------------------------------------------
# (A) broken joins: a joined table left out, a guessed key column, ON missing


def _join_clauses(ctx: _Ctx):
    """(first token, JOIN token, ON token or None, end) for every JOIN."""
    TT = ctx.TT
    starts = {TT.LEFT, TT.RIGHT, TT.INNER, TT.FULL, TT.CROSS, TT.OUTER, TT.NATURAL}
    out = []
    for i in range(ctx.n):
        if ctx.tt(i) != TT.JOIN:
            continue
        first = i
        while first - 1 >= 0 and ctx.tt(first - 1) in starts and ctx.depth[first - 1] == ctx.depth[i]:
            first -= 1
        end = ctx.clause_end(i, extra=(TT.JOIN, TT.LEFT, TT.RIGHT, TT.INNER, TT.FULL, TT.CROSS, TT.WHERE,
                                        TT.NATURAL, TT.COMMA))
        on = None
        for k in range(i + 1, end):
            if ctx.tt(k) == TT.ON and ctx.depth[k] == ctx.depth[i]:
                on = k
                break
        out.append((first, i, on, end))
    return out


def _k_join_broken(ctx: _Ctx):
    TT, rng = ctx.TT, ctx.rng
    joins = _join_clauses(ctx)
    if not joins:
        raise _Skip
    options = []
    for j in joins:
        first, ji, on, end = j
        if on is None:
            continue
        # the table (alias) this join brings in
        alias = ctx.toks[on - 1].text
        used_elsewhere = any(ctx.toks[k].text.lower() == alias.lower() and ctx.tt(k + 1) == TT.DOT
                             for k in list(range(0, first)) + list(range(end, ctx.n)))
        if used_elsewhere:
            options.append(("drop_join", j, 2.0))
        options.append(("key_guess", j, 3.0))
        if ctx.dialect != "sqlite":
            options.append(("no_on", j, 1.0))
    if not options:
        raise _Skip
    rng.shuffle(options)
    options.sort(key=lambda o: -o[2] * rng.random())
    for how, (first, ji, on, end), _ in options:
        if how == "drop_join":
            return _apply(ctx.gold, [_delete_tokens(ctx, first, end - 1)]), \
                f"JOIN of {ctx.toks[ji + 1].text} left out, its columns still used"
        if how == "no_on":
            return _apply(ctx.gold, [_delete_tokens(ctx, on, end - 1)]), "JOIN written without its ON condition"
        # key_guess: one side of the ON equality replaced by a conventional key name missing from that table
        cols = []
        if ctx.tree is not None:
            for c in ctx.columns():
                m = c.this.meta
                if ctx.s(on) <= m["start"] < (ctx.s(end) if end < ctx.n else len(ctx.gold)):
                    t, _ = ctx.col_table(c)
                    if t is not None:
                        cols.append((c, t))
        rng.shuffle(cols)
        for c, t in cols:
            tsing = (_singular(t.name) or t.name).lower()
            if _own_key(t, c.name):
                # the referenced side: the model assumes a surrogate key named id / author_id
                cands = ["id", f"{tsing}_id"] if len(tsing) <= 14 else ["id"]
            else:
                # the referencing side: the model assumes <other table>_id (writes.aid -> writes.author_id)
                cands = [f"{(_singular(t2.name) or t2.name).lower()}_id" for _, t2 in cols if t2 is not t]
                cands = [x for x in cands if len(x) <= 17] or ["id"]
            cands = [x for x in cands if t.column(x) is None and x != c.name.lower()]
            if not cands:
                continue
            new = rng.choice(cands)
            m = c.this.meta
            return _apply(ctx.gold, [(m["start"], m["end"] + 1, new)]), \
                f"join key {t.name}.{c.name} guessed as {new}"
    raise _Skip


# --------------------------------------------------------------------------------------------------------------
# (A) syntax slips


def _k_syntax_slip(ctx: _Ctx):
    TT, rng = ctx.TT, ctx.rng
    options = []
    sels = [i for i in range(ctx.n) if ctx.tt(i) == TT.SELECT]
    for si in sels:
        items, fr = ctx.select_list(si)
        if fr < ctx.n and ctx.tt(fr) == TT.FROM and items:
            options.append(("trailing_comma", (items[-1][1],), 3.0))
        for k in range(1, len(items)):
            a = items[k][0]
            if ctx.tt(a) in (TT.CASE, TT.L_PAREN, TT.NUMBER) or ctx.is_call(a):
                options.append(("missing_comma", (items[k - 1][1], a), 2.0))
    rps = [i for i in range(ctx.n) if ctx.tt(i) == TT.R_PAREN]
    if rps:
        options.append(("paren", (rng.choice(rps),), 2.0))
    cases = [i for i in range(ctx.n) if ctx.tt(i) == TT.END]
    if cases:
        options.append(("no_end", (rng.choice(cases),), 2.5))
    wheres = [i for i in range(ctx.n) if ctx.tt(i) == TT.WHERE]
    if wheres:
        options.append(("dangling_and", (rng.choice(wheres),), 1.5))
    strs = [i for i in range(ctx.n) if ctx.tt(i) == TT.STRING and ctx.e(i) < len(ctx.gold)]
    if strs:
        options.append(("unclosed_string", (rng.choice(strs),), 1.0))
    if ctx.dialect != "sqlite":
        eqs = [i for i in range(ctx.n) if ctx.tt(i) == TT.EQ]
        if eqs:
            options.append(("double_eq", (rng.choice(eqs),), 1.0))
    how, arg, _ = _pick(rng, [(o, o[2]) for o in options])
    if how == "trailing_comma":
        k = arg[0]
        return _apply(ctx.gold, [(ctx.e(k), ctx.e(k), ",")]), "trailing comma before FROM"
    if how == "missing_comma":
        a, b = arg
        return _apply(ctx.gold, [(ctx.e(a), ctx.s(b), " ")]), "comma missing between SELECT items"
    if how == "paren":
        k = arg[0]
        if rng.random() < 0.7:
            return _apply(ctx.gold, [(ctx.s(k), ctx.e(k), "")]), "a closing parenthesis missing"
        return _apply(ctx.gold, [(ctx.e(k), ctx.e(k), ")")]), "an extra closing parenthesis"
    if how == "no_end":
        return _apply(ctx.gold, [_delete_tokens(ctx, arg[0], arg[0])]), "CASE without END"
    if how == "dangling_and":
        w = arg[0]
        end = ctx.clause_end(w)
        at = ctx.e(end - 1)
        return _apply(ctx.gold, [(at, at, " AND")]), "dangling AND at the end of WHERE"
    if how == "unclosed_string":
        k = arg[0]
        return _apply(ctx.gold, [(ctx.e(k) - 1, ctx.e(k), "")]), "string literal not closed"
    k = arg[0]
    return _apply(ctx.gold, [(ctx.s(k), ctx.e(k), "==")]), "== used for equality"


# --------------------------------------------------------------------------------------------------------------
# (A) prose and formatting around the SQL that a plain runner cannot read


def _explain(ctx: _Ctx, hinglish: bool) -> str:
    names = [t.name for t in ctx.used][:3] or ["the"]
    joined = " aur ".join(names) if hinglish else " and ".join(names)
    if hinglish:
        return ctx.rng.choice((
            f"Is query mein humne {joined} table{'s' if len(names) > 1 else ''} se data liya hai.",
            f"Pehle {names[0]} table se rows filter hoti hain, phir result nikalta hai.",
            "Yeh query aapko sahi result degi, aap ise directly run kar sakte hain.",
            f"Yahan {joined} ko use karke answer calculate kiya gaya hai.",
        ))
    return ctx.rng.choice((
        f"This query reads from {joined} and returns the requested columns.",
        f"Explanation: we select from {names[0]} and apply the conditions from your question.",
        "The query filters the rows and aggregates them as requested.",
        f"It uses the {joined} table{'s' if len(names) > 1 else ''}; adjust the filters if needed.",
    ))


def _k_prose_wrapped(ctx: _Ctx):
    rng = ctx.rng
    sql = ctx.gold if rng.random() < 0.6 else _multiline(ctx.gold, ctx, rng)
    flat = " ".join(ctx.gold.split())
    hing = rng.random() < 0.3
    form = rng.choice(("intro_outro", "langchain", "json", "inline", "unclosed_fence", "label_in_fence",
                       "steps", "answer_prefix", "sql_word", "trailing_note"))
    exp_line = _explain(ctx, hing)
    if form == "intro_outro":
        intro = _fill(rng.choice(_HI_INTRO if hing else _EN_INTRO), ctx)
        return f"{intro}\n\n{sql};\n\n{exp_line}", "SQL without a fence, prose before and after"
    if form == "langchain":
        return f"SQLQuery: {flat}\nSQLResult:", "LangChain style 'SQLQuery:' prefix, no fence"
    if form == "json":
        body = flat.replace("\\", "\\\\").replace('"', '\\"')
        key = rng.choice(("sql", "query", "SQL"))
        tail = f', "explanation": "{exp_line}"' if rng.random() < 0.5 else ""
        return "{" + f'"{key}": "{body}"{tail}' + "}", "SQL inside a JSON object"
    if form == "inline":
        lead = "Aap yeh query chala sakte hain" if hing else "You can get this with"
        return f"{lead} `{flat}` — {exp_line}", "SQL inline in single backticks inside a sentence"
    if form == "unclosed_fence":
        return f"```sql\n{sql};\n\n{exp_line}", "code fence never closed, explanation inside it"
    if form == "label_in_fence":
        label = rng.choice(("Query:", "SQL Query:", "Answer:", "Final SQL:"))
        return f"```\n{label}\n{sql}\n```", "label line inside the code fence"
    if form == "steps":
        names = [t.name for t in ctx.used][:2] or ["the table"]
        if hing:
            steps = (f"1. Sabse pehle {names[0]} table dekhte hain.\n2. Phir conditions lagate hain.\n\n"
                     f"Final query:\n{sql}")
        else:
            steps = (f"1. Identify the relevant table: {', '.join(names)}.\n2. Apply the filters and aggregation.\n\n"
                     f"Final query:\n{sql}")
        return steps, "numbered reasoning, then the SQL without a fence"
    if form == "answer_prefix":
        p = rng.choice(("Answer:", "SQL:", "Query:", "A:"))
        return f"{p} {flat}", f"'{p}' prefix before the SQL"
    if form == "sql_word":
        return f"sql\n{sql}\n", "fence backticks lost, only the word 'sql' left"
    return f"{sql}\n\n{exp_line}", "SQL followed by an explanation, no fence"


# --------------------------------------------------------------------------------------------------------------
# (A) several SQL blocks


def _explore_sql(ctx: _Ctx) -> str:
    t = ctx.used[0].name if ctx.used else "information"
    if ctx.dialect == "sqlite":
        return ctx.rng.choice(("SELECT name FROM sqlite_master WHERE type = 'table';", f"PRAGMA table_info({t});",
                               f"SELECT * FROM {t} LIMIT 5;"))
    return ctx.rng.choice((
        f"SELECT column_name, data_type FROM information_schema.columns WHERE table_name = '{t}';",
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public';",
        f"SELECT * FROM {ctx.used[0].qualified_name if ctx.used else t} LIMIT 5;"))


def _k_multiple_blocks(ctx: _Ctx):
    rng = ctx.rng
    hing = rng.random() < 0.3
    gold = ctx.gold
    form = rng.choice(("draft_then_fix", "draft_then_fix", "explore_first", "two_in_one_fence", "step_preview"))
    if form == "draft_then_fix":
        draft = None
        for fn in rng.sample([_k_misspelt_column, _k_wrong_table_name, _k_join_broken, _k_qualifier_mixup], 4):
            try:
                draft = fn(ctx)[0]
                break
            except Exception:
                continue
        if draft is not None and draft != gold:
            mid = rng.choice(("Oops, galti ho gayi. Sahi query yeh hai:", "Maaf kijiye, corrected version:")
                             if hing else ("Wait, that has an error. Here is the corrected query:",
                                           "Actually, a better version is:", "Correction:"))
            first = rng.choice(("Ek try karte hain:", "Pehla attempt:") if hing else
                               ("First attempt:", "Here is a query:", "Let's try:"))
            return (f"{first}\n```sql\n{draft};\n```\n\n{mid}\n```sql\n{gold};\n```",
                    "a broken first draft in one block, the right query in a later block")
        form = "explore_first"
    if form == "explore_first":
        lead = "Pehle table ka structure dekhte hain:" if hing else "First, let's inspect the table:"
        then = "Ab final query:" if hing else "Then the query:"
        return (f"{lead}\n```sql\n{_explore_sql(ctx)}\n```\n{then}\n```sql\n{gold}\n```",
                "a schema-inspection query in the first block, the answer in the second")
    if form == "two_in_one_fence":
        return (f"```sql\n{_explore_sql(ctx)}\n\n{gold};\n```", "an inspection statement and the answer in one fence")
    t = ctx.used[0].qualified_name if ctx.used else None
    if t is None:
        raise _Skip
    step1 = "Step 1: dekhte hain data kaisa hai" if hing else "Step 1: look at the data"
    step2 = "Step 2: final answer" if hing else "Step 2: the final answer"
    return (f"{step1}\n```sql\nSELECT * FROM {t} LIMIT 10;\n```\n{step2}\n```sql\n{gold}\n```",
            "a preview query before the answer, each in its own block")


# --------------------------------------------------------------------------------------------------------------
# (B) value literal spelled differently from the data

_VALUE_SWAP = {
    "US": ("USA", "United States"), "USA": ("US", "United States"), "United States": ("USA", "US"),
    "UK": ("United Kingdom", "GB"), "CA": ("California", "Canada"), "NY": ("New York",),
    "New York": ("NY", "New York City"), "California": ("CA",), "Male": ("M", "male"), "Female": ("F", "female"),
    "M": ("Male",), "F": ("Female",), "success": ("successful", "completed"), "sell": ("sold", "Sell"),
    "buy": ("purchase", "bought"), "active": ("Active", "enabled"), "inactive": ("disabled",),
    "stock": ("stocks", "equity"), "private": ("Private",), "biologic": ("Biologic", "biologics"),
    "promotion": ("promo", "Promotion"), "transaction": ("transactions",), "percentage": ("percent",),
    "mobile_app": ("mobile app", "mobile"), "web_app": ("web", "web app"), "unread": ("Unread", "not read"),
    "Saturday": ("Sat",), "Sunday": ("Sun",), "San Francisco": ("SF", "San francisco"),
    "Toyota": ("toyota", "TOYOTA"), "Machine Learning": ("ML", "machine learning"),
    "AC/DC": ("ACDC", "AC-DC"), "Brazil": ("Brasil",), "USD": ("usd", "$"),
}


def _value_variants(ctx: _Ctx, v: str, case_insensitive: bool, is_like: bool) -> list[tuple[str, float]]:
    out: list[tuple[str, float]] = []
    core = v.strip("%") if is_like else v
    pre = "%" if is_like and v.startswith("%") else ""
    post = "%" if is_like and v.endswith("%") else ""
    for sw in _VALUE_SWAP.get(core, ()):
        out.append((pre + sw + post, 3.0))
    if not case_insensitive:
        for cv in (core.lower(), core.upper(), core.title(), core[:1].upper() + core[1:]):
            if cv != core:
                out.append((pre + cv + post, 2.0))
    if "_" in core:
        out.append((pre + core.replace("_", " ") + post, 2.0))
    elif " " in core:
        out.append((pre + core.replace(" ", "_") + post, 1.0))
        words = core.split()
        if len(words) >= 2 and all(w[:1].isalpha() for w in words):
            out.append((pre + "".join(w[0].upper() for w in words) + post, 1.0))
    if core.isalpha() and len(core) > 3:
        sing = _singular(core)
        out.append((pre + (sing if sing else _plural(core)) + post, 1.5))
    if is_like and (pre or post):
        out.append((core, 2.5))  # wildcards forgotten
    res, seen = [], set()
    for x, w in out:
        if x != v and x not in seen and x.strip("%"):
            if case_insensitive and x.lower() == v.lower():
                continue
            seen.add(x)
            res.append((x, w))
    return res


def _k_value_literal(ctx: _Ctx):
    TT, rng = ctx.TT, ctx.rng
    hints = {h for t in ctx.used for c in t.columns for h in c.value_hints}
    options = []
    for i in range(ctx.n):
        if ctx.tt(i) != TT.STRING:
            continue
        v = ctx.toks[i].text
        if not v.strip() or _DATE.match(v) or re.fullmatch(r"[\d.\s%-]+", v) or "%" in v.strip("%"):
            continue
        # find the comparison: = 'v', <> 'v', LIKE 'v', IN ('a', 'v'), LIKE LOWER('v')
        k = i - 1
        wrapped = False
        if ctx.tt(k) == TT.L_PAREN and ctx.up(k - 1) in ("LOWER", "UPPER"):
            wrapped = True
            k -= 2
        in_list = False
        if ctx.tt(k) in (TT.COMMA, TT.L_PAREN) and not wrapped:
            lp = k
            while lp >= 0 and not (ctx.tt(lp) == TT.L_PAREN and ctx.depth[lp] == ctx.depth[i] - 1):
                lp -= 1
            if lp >= 1 and ctx.tt(lp - 1) == TT.IN:
                in_list = True
                k = lp - 1
        op = ctx.tt(k)
        if op not in (TT.EQ, TT.NEQ, TT.LIKE, TT.ILIKE, TT.IN) or (op == TT.IN and not in_list):
            continue
        # the left side: LOWER(...) or a column
        left_lower = ctx.tt(k - 1) == TT.R_PAREN and ctx.up(ctx.match.get(k - 1, 0) - 1) in ("LOWER", "UPPER")
        ci = wrapped or left_lower or op == TT.ILIKE or (op == TT.LIKE and ctx.dialect == "sqlite")
        is_like = op in (TT.LIKE, TT.ILIKE)
        var = _value_variants(ctx, v, ci, is_like)
        var = [(x, w * (0.4 if x in hints else 1.0)) for x, w in var]
        if not var:
            continue
        weight = 3.0 if v in hints else 1.0
        options.append(((i, var), weight))
    if not options:
        raise _Skip
    i, var = _pick(rng, options)
    new = _pick(rng, var)
    v = ctx.toks[i].text
    return _apply(ctx.gold, [(ctx.s(i), ctx.e(i), "'" + new.replace("'", "''") + "'")]), \
        f"value {v!r} written as {new!r}"


# --------------------------------------------------------------------------------------------------------------
# (B) DISTINCT forgotten, or added where duplicates count


def _key_arg(ctx: _Ctx, i: int) -> bool:
    """True when the call at token i reads a key-like column (primary key, or a name ending in id)."""
    rp = ctx.match.get(i + 1)
    if rp is None:
        return False
    for c in ctx.columns():
        m = c.this.meta
        if ctx.s(i + 2) <= m["start"] and m["end"] < ctx.s(rp):
            t, _ = ctx.col_table(c)
            if t is None:
                return False
            return _own_key(t, c.name)
    return False


def _own_key(t, name: str) -> bool:
    """The table's own key: declared, or by naming convention (id, author_id, aid for author)."""
    low = name.lower()
    if low in [p.lower() for p in t.primary_key]:
        return True
    tn = t.name.lower()
    tsing = (_singular(tn) or tn)
    return low in ("id", f"{tsing}_id", f"{tsing}id", f"{tn}_id") or \
        (len(low) <= 4 and low.endswith("id") and low[:1] == tn[:1])


def _k_distinct_error(ctx: _Ctx):
    TT, rng = ctx.TT, ctx.rng
    has_join = any(ctx.tt(i) == TT.JOIN for i in range(ctx.n)) or \
        any(ctx.tt(i) == TT.COMMA and ctx.tt(i - 1) == TT.VAR and ctx.tt(i - 2) == TT.FROM for i in range(2, ctx.n))
    options = []
    for i in range(ctx.n):
        if ctx.tt(i) == TT.DISTINCT:
            if ctx.tt(i - 1) == TT.L_PAREN:
                # COUNT(DISTINCT key) over one table loses nothing (skip); over a join, or of a non-key, it does
                if has_join or not _key_arg(ctx, i - 2):
                    options.append((("drop", i), 3.0))
            else:
                options.append((("drop", i), 4.0 if has_join else 2.0))
        elif ctx.up(i) in ("SUM", "AVG") and ctx.is_call(i) and ctx.tt(i + 2) not in (TT.DISTINCT, TT.STAR, TT.CASE) \
                and has_join:
            # SUM(DISTINCT amount) after a join: de-duplicates values, not rows
            options.append((("add", i), 1.0))
    how, i = _pick(rng, options)
    if how == "drop":
        where = "COUNT(DISTINCT ...)" if ctx.tt(i - 1) == TT.L_PAREN else "SELECT DISTINCT"
        return _apply(ctx.gold, [(ctx.s(i), ctx.s(i + 1), "")]), f"DISTINCT left out of {where}"
    return _apply(ctx.gold, [(ctx.e(i + 1), ctx.e(i + 1), "DISTINCT ")]), \
        f"{ctx.toks[i].text}(DISTINCT ...) where duplicates count"


# --------------------------------------------------------------------------------------------------------------
# (B) date boundaries off by one


def _shift_date(v: str, days: int) -> str | None:
    m = _DATE.match(v)
    if not m:
        return None
    y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
    try:
        nd = _dt.date(y, mo, d) + _dt.timedelta(days=days)
    except ValueError:
        return None
    return nd.isoformat() + v[10:]


def _k_date_boundary(ctx: _Ctx):
    TT, rng = ctx.TT, ctx.rng
    datey_words = ("date", "time", "_dt", "_ts", "created", "updated", "year", "month", "day", "term", "snapshot")

    def datey(i: int) -> bool:
        t = ctx.toks[i]
        if t.token_type == TT.STRING and _DATE.match(t.text):
            return True
        if t.token_type in (TT.CURRENT_DATE, TT.CURRENT_TIMESTAMP, TT.INTERVAL):
            return True
        u = t.text.lower()
        return t.token_type in (TT.VAR, TT.DATE) and any(w in u for w in datey_words + ("strftime", "now"))

    options = []
    for i in range(ctx.n):
        tt = ctx.tt(i)
        if tt in (TT.LT, TT.LTE, TT.GT, TT.GTE):
            near = [k for k in range(max(0, i - 3), min(ctx.n, i + 4)) if k != i]
            if any(datey(k) for k in near):
                flip = {TT.LT: "<=", TT.LTE: "<", TT.GT: ">=", TT.GTE: ">"}[tt]
                options.append((("op", i, flip), 0.7))
                # an exclusive upper bound rewritten as an inclusive "last day" (loses that day's timestamps)
                if tt == TT.LT and ctx.tt(i + 1) == TT.STRING and _DATE.match(ctx.toks[i + 1].text) \
                        and len(ctx.toks[i + 1].text) == 10:
                    nv = _shift_date(ctx.toks[i + 1].text, -1)
                    if nv:
                        options.append((("op_lit", i, nv), 3.0))
        elif tt == TT.STRING:
            v = ctx.toks[i].text
            if _DATE.match(v):
                d = rng.choice((-1, 1))
                nv = _shift_date(v, d)
                if nv:
                    options.append((("lit", i, nv), 1.5))
            m = re.fullmatch(r"([+-]?)(\d+) (day|days|month|months|year|years|week|weeks|hour|hours)", v.strip())
            if m:
                n = int(m.group(2))
                unit = m.group(3).rstrip("s")
                alts = []
                if unit == "month":
                    alts.append(f"{m.group(1)}{n * 30} days")
                if unit == "week":
                    alts.append(f"{m.group(1)}{n * 7 - 1} days")
                if unit == "day" and n % 30 == 0:
                    alts.append(f"{m.group(1)}{n // 30} month{'s' if n > 30 else ''}")
                alts.append(f"{m.group(1)}{n + 1} {unit}s")
                if n > 1:
                    alts.append(f"{m.group(1)}{n - 1} {unit}{'s' if n - 1 != 1 else ''}")
                options.append((("lit", i, rng.choice(alts)), 1.5))
                # the sign of a SQLite date modifier flipped, or the unit confused
                if m.group(1) in ("+", "-") and n > 0:
                    other = "+" if m.group(1) == "-" else "-"
                    options.append((("lit", i, f"{other}{n} {m.group(3)}"), 2.0))
                swap = {"day": "month", "month": "day", "week": "day", "year": "month"}.get(unit)
                if swap and n > 1:
                    options.append((("lit", i, f"{m.group(1)}{n} {swap}s"), 1.5))
            if re.fullmatch(r"\d{4}", v) and ctx.tt(i - 1) in (TT.EQ, TT.GT, TT.LT, TT.GTE, TT.LTE):
                options.append((("lit", i, str(int(v) + rng.choice((-1, 1)))), 3.0))
        elif tt == TT.NUMBER and re.fullmatch(r"(19|20)\d\d", ctx.toks[i].text) \
                and ctx.tt(i - 1) in (TT.EQ, TT.GT, TT.LT, TT.GTE, TT.LTE) and datey(i - 2):
            options.append((("num", i, str(int(ctx.toks[i].text) + rng.choice((-1, 1)))), 3.0))
        elif tt == TT.CURRENT_DATE and ctx.dialect != "sqlite":
            options.append((("now", i, "NOW()"), 0.5))
        elif ctx.up(i) == "DATE" and ctx.is_call(i) and ctx.dialect == "sqlite" \
                and ctx.tt(i + 2) == TT.STRING and ctx.toks[i + 2].text == "now":
            options.append((("now", i, "DATETIME"), 0.5))
        elif tt == TT.BETWEEN:
            # BETWEEN a AND b: the end shifted by a day
            ands = [k for k in range(i + 1, min(ctx.n, i + 12)) if ctx.tt(k) == TT.AND and ctx.depth[k] == ctx.depth[i]]
            if ands and ctx.tt(ands[0] + 1) == TT.STRING and _DATE.match(ctx.toks[ands[0] + 1].text):
                k = ands[0] + 1
                nv = _shift_date(ctx.toks[k].text, rng.choice((-1, 1)))
                if nv:
                    options.append((("lit", k, nv), 1.5))
    how, i, new = _pick(rng, options)
    if how == "op_lit":
        old = ctx.toks[i + 1].text
        return _apply(ctx.gold, [(ctx.s(i), ctx.e(i + 1), f"<= '{new}'")]), \
            f"< '{old}' written as <= '{new}' (last day as a date)"
    if how == "num":
        return _apply(ctx.gold, [(ctx.s(i), ctx.e(i), new)]), f"year {ctx.toks[i].text} written as {new}"
    if how == "op":
        return _apply(ctx.gold, [(ctx.s(i), ctx.e(i), new)]), f"date comparison {ctx.toks[i].text} written as {new}"
    if how == "lit":
        old = ctx.toks[i].text
        return _apply(ctx.gold, [(ctx.s(i), ctx.e(i), "'" + new + "'")]), f"date value {old!r} written as {new!r}"
    if new == "NOW()":
        return _apply(ctx.gold, [(ctx.s(i), ctx.e(i), "NOW()")]), "CURRENT_DATE written as NOW() (time of day kept)"
    return _apply(ctx.gold, [(ctx.s(i), ctx.e(i), "DATETIME")]), "DATE('now', ...) written as DATETIME('now', ...)"


# --------------------------------------------------------------------------------------------------------------
# (B) wrong aggregate


def _numeric_arg(ctx: _Ctx, i: int) -> bool:
    """True when the call at token i has a single column argument of a numeric, non-key type."""
    rp = ctx.match.get(i + 1)
    if rp is None:
        return False
    for c in ctx.columns():
        m = c.this.meta
        if ctx.s(i + 2) <= m["start"] and m["end"] < ctx.s(rp):
            t, _ = ctx.col_table(c)
            if t is None:
                return False
            col = t.column(c.name)
            low = col.name.lower()
            return _type_family(col.type) in ("int", "num") and not low.endswith("id") \
                and low not in [p.lower() for p in t.primary_key]
    return False


def _k_wrong_aggregate(ctx: _Ctx):
    TT, rng = ctx.TT, ctx.rng
    options = []
    for i in range(ctx.n):
        up = ctx.up(i)
        if up not in ("COUNT", "SUM", "AVG", "MIN", "MAX") or not ctx.is_call(i):
            continue
        inner = ctx.tt(i + 2)
        if up == "MAX":
            options.append(((i, "MIN"), 3.0))
        elif up == "MIN":
            options.append(((i, "MAX"), 3.0))
        elif up == "AVG":
            options.append(((i, rng.choice(("SUM", "MAX"))), 2.0))
        elif up == "SUM":
            if inner == TT.CASE:
                options.append(((i, "AVG"), 1.0))
            else:
                options.append(((i, rng.choice(("COUNT", "AVG", "MAX"))), 2.0))
        elif up == "COUNT":
            if inner not in (TT.STAR, TT.DISTINCT, TT.CASE, TT.NUMBER) and _numeric_arg(ctx, i):
                options.append(((i, "SUM"), 1.5))
    i, new = _pick(rng, options)
    old = ctx.toks[i].text
    new = new if old.isupper() else new.lower()
    return _apply(ctx.gold, [(ctx.s(i), ctx.e(i), new)]), f"{old}() written as {new}()"


# --------------------------------------------------------------------------------------------------------------
# (B) wrong label column: the id instead of the name, first_name instead of last_name, ...


def _ancestors_until(node, stop):
    out = []
    p = node.parent
    while p is not None and p is not stop:
        out.append(p)
        p = p.parent
    return out


def _k_wrong_label_column(ctx: _Ctx):
    exp, rng = ctx.exp, ctx.rng
    if ctx.tree is None:
        raise _Skip
    options = []
    for sel in ctx.tree.find_all(exp.Select):
        # only the outermost SELECT: its output names are not read by an enclosing query
        if sel.find_ancestor(exp.Select, exp.CTE, exp.Subquery, exp.Union) is not None:
            continue
        group = sel.args.get("group")
        for item in sel.expressions:
            node = item.this if isinstance(item, exp.Alias) else item
            if not isinstance(node, exp.Column) or not isinstance(node.this, exp.Identifier):
                continue
            t, key = ctx.col_table(node)
            if t is None or node.find_ancestor(exp.Select) is not sel:
                continue
            grouped = group is not None
            if grouped and not any(c.name.lower() == node.name.lower() for c in group.find_all(exp.Column)):
                continue
            options.append(((sel, node, t, key), 3.0 if grouped else 1.5))
    if not options:
        raise _Skip
    rng.shuffle(options)
    for (sel, node, t, key), _ in sorted(options, key=lambda o: -o[1] * rng.random()):
        orig = t.column(node.name)
        low = orig.name.lower()
        labelish = ("name", "title", "code", "symbol", "type", "category", "specialty", "city", "state", "country",
                    "region", "make", "model", "department", "status", "day", "month")
        orig_key = _own_key(t, orig.name)
        cands = []
        for c in t.columns:
            cl = c.name.lower()
            if cl == low:
                continue
            ctext = _type_family(c.type) == "text"
            score = 0.0
            if not orig_key and _own_key(t, c.name):
                score = 1.5  # the key instead of the label
            elif ctext and any(w in cl for w in labelish) and any(w in low for w in labelish):
                score = 3.0  # a sibling label: first_name for last_name, city for state
            elif orig_key and ctext and any(w in cl for w in labelish):
                score = 3.0  # the name instead of the key
            if score and not node.table:
                # the replacement must not become ambiguous among the SELECT's tables
                src = ctx.sources(sel)
                if sum(1 for tt in src.values() if tt is not None and tt.column(c.name) is not None) > 1:
                    continue
            if score:
                cands.append((_spell(ctx, c.name), score))
        if not cands:
            continue
        new = _pick(rng, cands)
        # every use of this column in the SELECT (list, GROUP BY, ORDER BY) changes together
        edits = []
        for c in sel.find_all(exp.Column):
            if c.find_ancestor(exp.Select) is not sel or not isinstance(c.this, exp.Identifier):
                continue
            if c.name.lower() != low or "start" not in c.this.meta:
                continue
            if ctx.col_table(c)[0] is not t:
                continue
            # the label as shown and grouped, not its uses in joins, filters or inside aggregates
            if any(isinstance(a, (exp.Join, exp.Where, exp.Having, exp.AggFunc, exp.Window))
                   for a in _ancestors_until(c, sel)):
                continue
            m = c.this.meta
            edits.append((m["start"], m["end"] + 1, new))
        if not edits:
            continue
        return _apply(ctx.gold, edits), f"label column {t.name}.{orig.name} replaced by {new}"
    raise _Skip


# --------------------------------------------------------------------------------------------------------------
# (B) ORDER BY direction / LIMIT forgotten (superlatives)


def _k_order_limit(ctx: _Ctx):
    TT, rng = ctx.TT, ctx.rng
    options = []
    for li in range(ctx.n):
        if ctx.tt(li) != TT.LIMIT:
            continue
        d = ctx.depth[li]
        k = li - 1
        ob = None
        while k >= 0 and ctx.depth[k] >= d:
            if ctx.depth[k] == d and ctx.tt(k) == TT.ORDER_BY:
                ob = k
                break
            if ctx.depth[k] == d and ctx.tt(k) in (TT.SELECT, TT.FROM):
                break
            k -= 1
        if ob is None:
            continue
        # first ORDER BY item and its direction
        end = li
        commas = ctx.top_level(ob + 1, end, (TT.COMMA,)) if ob + 1 < end else []
        bounds = [ob] + commas + [end]
        for q in range(len(bounds) - 1):
            a, b = bounds[q] + 1, bounds[q + 1] - 1
            if ctx.tt(a) == TT.CASE:  # a NULLS-ordering helper, not the ranking key
                continue
            dirs = [k for k in range(a, b + 1) if ctx.depth[k] == d and ctx.tt(k) in (TT.ASC, TT.DESC)]
            nulls = [k for k in range(a, b + 1) if ctx.depth[k] == d and ctx.up(k) == "NULLS"]
            at = ctx.s(nulls[0]) - 1 if nulls else ctx.e(b)
            options.append((("flip", ob, at, dirs[0] if dirs else None), 3.0))
            break
        if ctx.tt(li + 1) == TT.NUMBER and ctx.tt(li + 2) != TT.OFFSET:
            options.append((("nolimit", li, li + 1, None), 1.0))
    how, a, b, dtok = _pick(rng, options)
    if how == "nolimit":
        return _apply(ctx.gold, [_delete_tokens(ctx, a, b)]), "LIMIT left out (all rows instead of the top ones)"
    if dtok is None:
        return _apply(ctx.gold, [(b, b, " DESC")]), "ORDER BY direction flipped (DESC added)"
    old = ctx.up(dtok)
    if old == "DESC":
        if rng.random() < 0.5:
            return _apply(ctx.gold, [_delete_tokens(ctx, dtok, dtok)]), "DESC forgotten in ORDER BY"
        return _apply(ctx.gold, [(ctx.s(dtok), ctx.e(dtok), "ASC")]), "ORDER BY DESC written as ASC"
    return _apply(ctx.gold, [(ctx.s(dtok), ctx.e(dtok), "DESC")]), "ORDER BY ASC written as DESC"


# --------------------------------------------------------------------------------------------------------------
# (B) filter logic: a condition missing, AND/OR, = NULL, lost parentheses


def _clause_of(ctx: _Ctx, k: int):
    """Type of the clause keyword that governs token k (WHERE, ON, WHEN, ORDER BY, ...)."""
    TT = ctx.TT
    marks = {TT.WHERE, TT.ON, TT.HAVING, TT.WHEN, TT.THEN, TT.ELSE, TT.ORDER_BY, TT.GROUP_BY, TT.SELECT}
    d = ctx.depth[k]
    j = k - 1
    while j >= 0:
        if ctx.depth[j] <= d:
            d = min(d, ctx.depth[j])
            if ctx.tt(j) in marks:
                return ctx.tt(j)
        j -= 1
    return None


def _k_filter_logic(ctx: _Ctx):
    TT, rng = ctx.TT, ctx.rng
    options = []
    for w in range(ctx.n):
        if ctx.tt(w) not in (TT.WHERE,):
            continue
        end = ctx.clause_end(w)
        d = ctx.depth[w]
        ands, ors, pending = [], [], False
        for k in range(w + 1, end):
            if ctx.depth[k] != d:
                continue
            if ctx.tt(k) == TT.BETWEEN:
                pending = True
            elif ctx.tt(k) == TT.AND:
                if pending:
                    pending = False
                else:
                    ands.append(k)
            elif ctx.tt(k) == TT.OR:
                ors.append(k)
        if ands and not ors:
            bounds = [w] + ands + [end]
            for j in range(len(bounds) - 1):
                options.append((("drop", w, bounds, j), 3.0))
            options.append((("and_or", rng.choice(ands)), 1.5))
        # (a OR b) AND c -> a OR b AND c
        for k in range(w + 1, end):
            if ctx.tt(k) == TT.L_PAREN and ctx.depth[k] == d and ctx.tt(k - 1) in (TT.AND, TT.WHERE, TT.OR):
                rp = ctx.match.get(k)
                if rp and any(ctx.tt(x) == TT.OR and ctx.depth[x] == d + 1 for x in range(k, rp)):
                    if ands or ctx.tt(k - 1) == TT.AND:
                        options.append((("parens", k, rp), 2.0))
    for k in range(ctx.n):
        if ctx.tt(k) == TT.IS and _clause_of(ctx, k) not in (TT.WHERE, TT.ON, TT.HAVING):
            continue
        if ctx.tt(k) == TT.IS and ctx.tt(k + 1) == TT.NULL:
            options.append((("eq_null", k, k + 1, "= NULL"), 2.0))
        elif ctx.tt(k) == TT.IS and ctx.tt(k + 1) == TT.NOT and ctx.tt(k + 2) == TT.NULL:
            options.append((("eq_null", k, k + 2, rng.choice(("!= NULL", "<> NULL"))), 2.0))
        elif ctx.tt(k) == TT.NOT and ctx.tt(k + 1) == TT.IN:
            options.append((("not_in", k), 1.0))
    opt = _pick(rng, options)
    how = opt[0]
    if how == "drop":
        _, w, bounds, j = opt
        if len(bounds) == 2:
            return _apply(ctx.gold, [_delete_tokens(ctx, w, bounds[1] - 1)]), "the only WHERE condition left out"
        if j == 0:  # first conjunct: delete up to and including the first AND
            a, b = w + 1, bounds[1]
            return _apply(ctx.gold, [(ctx.s(a), ctx.s(b + 1), "")]), \
                f"condition left out: {ctx.text(a, b - 1)}"
        a, b = bounds[j], bounds[j + 1] - 1
        return _apply(ctx.gold, [_delete_tokens(ctx, a, b)]), f"condition left out: {ctx.text(a + 1, b)}"
    if how == "and_or":
        k = opt[1]
        return _apply(ctx.gold, [(ctx.s(k), ctx.e(k), "OR")]), "AND written as OR between conditions"
    if how == "parens":
        _, a, b = opt
        return _apply(ctx.gold, [(ctx.s(a), ctx.e(a), ""), (ctx.s(b), ctx.e(b), "")]), \
            "parentheses around an OR group lost"
    if how == "eq_null":
        _, a, b, new = opt
        return _apply(ctx.gold, [(ctx.s(a), ctx.e(b), new)]), f"IS NULL test written as {new}"
    k = opt[1]
    return _apply(ctx.gold, [(ctx.s(k), ctx.s(k + 1), "")]), "NOT IN written as IN"


# --------------------------------------------------------------------------------------------------------------
# (B) join semantics: LEFT lost or added, the wrong key column (id = id on undeclared keys)


def _type_family(t: str) -> str:
    t = t.lower()
    if any(x in t for x in ("int", "serial")):
        return "int"
    if any(x in t for x in ("char", "text", "clob")):
        return "text"
    if any(x in t for x in ("real", "float", "double", "numeric", "decimal")):
        return "num"
    if "date" in t or "time" in t:
        return "date"
    return t


def _k_join_semantics(ctx: _Ctx):
    TT, rng = ctx.TT, ctx.rng
    joins = _join_clauses(ctx)
    if not joins:
        raise _Skip
    options = []
    for first, ji, on, end in joins:
        if ctx.tt(first) == TT.LEFT:
            stop = ji if ctx.tt(first + 1) != TT.OUTER else ji
            options.append((("left_to_inner", first, stop), 3.0))
        elif first == ji or ctx.tt(first) == TT.INNER:
            options.append((("inner_to_left", first, ji), 0.4))
        if on is None:
            continue
        for c in ctx.columns():
            m = c.this.meta
            if not (ctx.s(on) <= m["start"] < (ctx.s(end) if end < ctx.n else len(ctx.gold))):
                continue
            t, _ = ctx.col_table(c)
            if t is None:
                continue
            fam = _type_family(t.column(c.name).type)
            cands = []
            for col in t.columns:
                if col.name.lower() == c.name.lower() or _type_family(col.type) != fam:
                    continue
                cl = col.name.lower()
                if _own_key(t, col.name):
                    w = 3.0
                elif cl.endswith(("id", "_code", "_name")):
                    w = 1.5
                else:
                    continue
                cands.append((_spell(ctx, col.name), w))
            if cands:
                options.append((("key", c, cands, t), 2.5))
    opt = _pick(rng, options)
    how = opt[0]
    if how == "left_to_inner":
        _, a, b = opt
        return _apply(ctx.gold, [(ctx.s(a), ctx.s(b), "")]), "LEFT JOIN written as an inner JOIN"
    if how == "inner_to_left":
        _, a, b = opt
        if a == b:
            return _apply(ctx.gold, [(ctx.s(a), ctx.s(a), "LEFT ")]), "inner JOIN written as LEFT JOIN"
        return _apply(ctx.gold, [(ctx.s(a), ctx.e(a), "LEFT")]), "inner JOIN written as LEFT JOIN"
    _, c, cands, t = opt
    new = _pick(rng, cands)
    m = c.this.meta
    return _apply(ctx.gold, [(m["start"], m["end"] + 1, new)]), f"join on {t.name}.{new} instead of {c.name}"


# --------------------------------------------------------------------------------------------------------------
# (B) integer division: the cast to a real type forgotten


def _k_integer_division(ctx: _Ctx):
    TT, rng = ctx.TT, ctx.rng
    options = []
    for i in range(ctx.n):
        up = ctx.up(i)
        if up == "CAST" and ctx.is_call(i):
            rp = ctx.match[i + 1]
            if ctx.tt(rp - 2) == TT.ALIAS and ctx.up(rp - 1) in ("REAL", "FLOAT", "DOUBLE", "DECIMAL", "NUMERIC",
                                                                   "FLOAT8", "FLOAT4"):
                inner = ctx.text(i + 2, rp - 3)
                keep_parens = rp - 3 > i + 2
                options.append(((ctx.s(i), ctx.e(rp), f"({inner})" if keep_parens and rng.random() < 0.5 else inner),
                                3.0))
            elif ctx.tt(rp - 3) == TT.ALIAS and ctx.up(rp - 2) in ("DECIMAL", "NUMERIC") or \
                    (rp - 5 > i and ctx.tt(rp - 5) == TT.ALIAS and ctx.up(rp - 4) in ("DECIMAL", "NUMERIC")):
                al = rp - 3 if ctx.tt(rp - 3) == TT.ALIAS else rp - 5
                options.append(((ctx.s(i), ctx.e(rp), ctx.text(i + 2, al - 1)), 3.0))
        elif ctx.tt(i) == TT.DCOLON and ctx.up(i + 1) in ("FLOAT", "NUMERIC", "DECIMAL", "REAL", "DOUBLE", "FLOAT8"):
            end = i + 1
            if ctx.tt(end + 1) == TT.L_PAREN:
                end = ctx.match.get(end + 1, end)
            options.append(((ctx.s(i), ctx.e(end), ""), 3.0))
        elif ctx.tt(i) == TT.NUMBER and re.fullmatch(r"\d+\.0+", ctx.toks[i].text):
            whole = ctx.toks[i].text.split(".")[0]
            if ctx.tt(i + 1) == TT.STAR and whole == "1":
                options.append(((ctx.s(i), ctx.s(i + 2), ""), 2.0))
            elif ctx.tt(i - 1) == TT.STAR and whole == "1":
                options.append(((ctx.e(i - 2), ctx.e(i), ""), 2.0))
            else:
                options.append(((ctx.s(i), ctx.e(i), whole), 2.0))
    edit = _pick(rng, options)
    return _apply(ctx.gold, [edit]), "cast to a real type left out (integer division)"


# --------------------------------------------------------------------------------------------------------------

_KINDS = {
    "misspelt_column": _k_misspelt_column,
    "wrong_table_name": _k_wrong_table_name,
    "qualifier_mixup": _k_qualifier_mixup,
    "ambiguous_column": _k_ambiguous_column,
    "dialect_function": _k_dialect_function,
    "limit_dialect": _k_limit_dialect,
    "identifier_quoting": _k_identifier_quoting,
    "group_by_error": _k_group_by_error,
    "join_broken": _k_join_broken,
    "syntax_slip": _k_syntax_slip,
    "value_literal": _k_value_literal,
    "distinct_error": _k_distinct_error,
    "date_boundary": _k_date_boundary,
    "wrong_aggregate": _k_wrong_aggregate,
    "wrong_label_column": _k_wrong_label_column,
    "order_limit": _k_order_limit,
    "filter_logic": _k_filter_logic,
    "join_semantics": _k_join_semantics,
    "integer_division": _k_integer_division,
}
_WHOLE_REPLY = {"prose_wrapped": _k_prose_wrapped, "multiple_blocks": _k_multiple_blocks}


def damage(gold_sql: str, schema, kind: str, seed: int = 0) -> Damaged | None:
    """A damaged reply of the given kind for gold_sql, or None when the kind does not apply."""
    try:
        if kind == "clean":
            return Damaged(kind, gold_sql, "gold query, unchanged")
        if not isinstance(gold_sql, str) or not gold_sql.strip():
            return None
        ctx = _Ctx(gold_sql, schema, kind, seed)
        if kind in _WHOLE_REPLY:
            reply, note = _WHOLE_REPLY[kind](ctx)
            return Damaged(kind, reply, note)
        fn = _KINDS.get(kind)
        if fn is None:
            return None
        sql, note = fn(ctx)
        if not sql or sql.strip() == gold_sql.strip():
            return None
        reply = _present(sql, ctx, random.Random(f"fresh4-present|{kind}|{seed}|{gold_sql}"))
        return Damaged(kind, reply, note)
    except Exception:
        return None
