"""Held-out damage generator "fresh5": what a small local model (7B-8B, e.g. Qwen2.5-Coder-7B or Llama-3.1-8B served
by Ollama) gets wrong when it answers a question with SQL.

Written without reading Cairn's repair or evidence code, from published text-to-SQL error analyses (BIRD and Spider
error studies, DIN-SQL, MAC-SQL, CHESS, Dr.Spider) and from how small models behave. Every kind is a text-level
edit of the gold SQL (located with sqlglot's tokenizer and parser, applied at character offsets of the gold text),
wrapped in the prose and fences such a model writes.

Two families:

* replies the database rejects, or that are plainly broken as replies (invented names, a column from the wrong
  table, a forgotten join, ambiguity, an incomplete GROUP BY, another dialect's functions and idioms, syntax slips,
  a cut-off reply, SQL buried in prose, wrappers, a draft block before the answer);
* replies that run and return other rows (a swapped aggregate, DISTINCT slips, boundary slips, the sort flipped,
  the LIMIT changed, a condition dropped or invented, AND/OR mix-ups, an outer join made inner, a join on the wrong
  key, integer division, a text literal that no longer matches, the wrong column shown, NULL compared with =,
  "today" hard-coded, the wrong date granularity).

``damage`` is deterministic for (gold_sql, kind, seed), returns None when a kind does not apply, and never raises.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass

__all__ = ["DAMAGE_KINDS", "TREE_KINDS", "Damaged", "damage"]

BROKEN_KINDS = (
    "invented_column",
    "invented_table",
    "column_from_wrong_table",
    "forgotten_join",
    "ambiguous_column",
    "incomplete_group_by",
    "foreign_date_function",
    "foreign_idiom",
    "syntax_slip",
    "truncated_reply",
    "sql_buried_in_prose",
    "wrapped_output",
    "draft_block_first",
)
SILENT_KINDS = (
    "swapped_aggregate",
    "same_column_other_table",
    "boundary_slip",
    "flipped_sort",
    "wrong_limit",
    "dropped_condition",
    "unrequested_filter",
    "and_or_confusion",
    "outer_join_as_inner",
    "wrong_join_key",
    "integer_division",
    "literal_mismatch",
    "wrong_output_column",
    "wrong_filter_column",
    "null_comparison",
    "hardcoded_today",
    "wrong_date_granularity",
)
DAMAGE_KINDS: tuple[str, ...] = ("clean", *BROKEN_KINDS, *SILENT_KINDS)
TREE_KINDS: tuple[str, ...] = ()


@dataclass(frozen=True)
class Damaged:
    kind: str
    reply: str
    note: str


def damage(gold_sql: str, schema, kind: str, seed: int) -> Damaged | None:
    """The gold reply damaged as ``kind`` (None when the kind does not apply to this query)."""
    try:
        maker = _MAKERS.get(kind)
        if maker is None or not isinstance(gold_sql, str) or not gold_sql.strip():
            return None
        digest = hashlib.sha256(f"fresh5\x00{kind}\x00{seed}\x00{gold_sql}".encode()).digest()
        rng = random.Random(int.from_bytes(digest[:8], "big"))
        q = _Query(gold_sql, schema)
        if not q.toks:
            return None
        out = maker(q, rng)
        if out is None:
            return None
        if len(out) == 3:  # a kind that builds the whole reply itself
            reply, note, _ = out
        else:
            sql, note = out
            if not sql or _norm(sql) == _norm(q.sql):
                return None
            reply = _present(sql, q, rng)
        if not reply or not reply.strip():
            return None
        return Damaged(kind, reply, str(note).replace("\n", " ")[:300])
    except Exception:  # noqa: BLE001 - a generator must never raise
        return None


# ---------------------------------------------------------------------------------------------------------------
# The query: tokens with offsets and paren depth, the parsed tree, scopes and clause regions
# ---------------------------------------------------------------------------------------------------------------

_CLAUSES = {"FROM", "WHERE", "GROUP_BY", "HAVING", "ORDER_BY", "LIMIT", "OFFSET", "FETCH", "WINDOW", "QUALIFY"}
_SET_OPS = {"UNION", "INTERSECT", "EXCEPT"}
_JOIN_WORDS = {"LEFT", "RIGHT", "INNER", "FULL", "CROSS", "OUTER", "NATURAL", "JOIN"}
_NUMERIC = ("int", "numeric", "decimal", "real", "double", "float", "number", "serial", "money")
_TEXTUAL = ("char", "text", "string", "clob")
_TEMPORAL = ("date", "time")


def _norm(sql: str) -> str:
    return re.sub(r"\s+", " ", sql.strip().rstrip(";").strip())


class _Tok:
    __slots__ = ("type", "text", "start", "end", "depth", "i")

    def __init__(self, type_: str, text: str, start: int, end: int, depth: int, i: int) -> None:
        self.type, self.text, self.start, self.end, self.depth, self.i = type_, text, start, end, depth, i

    @property
    def up(self) -> str:
        return self.text.upper()

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"{self.type}:{self.text}@{self.depth}"


class _Scope:
    """One SELECT ... up to where it ends (a closing paren, a set operator, the end)."""

    __slots__ = ("sel", "end", "depth", "clauses")

    def __init__(self, sel: int, end: int, depth: int, clauses: dict[str, int]) -> None:
        self.sel, self.end, self.depth, self.clauses = sel, end, depth, clauses


class _Query:
    def __init__(self, sql: str, schema) -> None:
        self.schema = schema
        dialect = str(getattr(schema, "dialect", "") or "postgres").lower()
        self.dialect = "sqlite" if "sqlite" in dialect else ("postgres" if "postgres" in dialect else dialect)
        text = sql.strip()
        while text.endswith(";"):
            text = text[:-1].rstrip()
        self.sql = text
        self.toks: list[_Tok] = []
        self.tree = None
        self._tokenize()
        self._parse()
        self.scopes = self._scopes()

    # -- tokens -------------------------------------------------------------------------------------------------
    def _tokenize(self) -> None:
        import sqlglot

        try:
            raw = sqlglot.Dialect.get_or_raise(self.dialect).tokenize(self.sql)
        except Exception:  # noqa: BLE001
            return
        depth = 0
        for i, t in enumerate(raw):
            kind = t.token_type.name
            if kind == "L_PAREN":
                self.toks.append(_Tok(kind, t.text, t.start, t.end + 1, depth, i))
                depth += 1
            elif kind == "R_PAREN":
                depth -= 1
                self.toks.append(_Tok(kind, t.text, t.start, t.end + 1, depth, i))
            else:
                self.toks.append(_Tok(kind, t.text, t.start, t.end + 1, depth, i))

    def _parse(self) -> None:
        import sqlglot

        try:
            trees = sqlglot.parse(self.sql, read=self.dialect)
            self.tree = next((t for t in trees if t is not None), None)
        except Exception:  # noqa: BLE001
            self.tree = None

    def src(self, a: int, b: int) -> str:
        """Text of tokens a..b-1 (token indexes)."""
        if a >= b:
            return ""
        return self.sql[self.toks[a].start : self.toks[b - 1].end]

    def match(self, i: int) -> int | None:
        """Index of the paren matching the L_PAREN at i."""
        if i >= len(self.toks) or self.toks[i].type != "L_PAREN":
            return None
        d = self.toks[i].depth
        for j in range(i + 1, len(self.toks)):
            if self.toks[j].type == "R_PAREN" and self.toks[j].depth == d:
                return j
        return None

    def call_args(self, i: int) -> tuple[int, list[tuple[int, int]]] | None:
        """For a function name token at i followed by '(': (index of ')', [(first, end) token ranges of args])."""
        if i + 1 >= len(self.toks) or self.toks[i + 1].type != "L_PAREN":
            return None
        close = self.match(i + 1)
        if close is None:
            return None
        args, start, d = [], i + 2, self.toks[i + 1].depth + 1
        for j in range(i + 2, close):
            if self.toks[j].type == "COMMA" and self.toks[j].depth == d:
                args.append((start, j))
                start = j + 1
        if start < close:
            args.append((start, close))
        return close, args

    def is_call(self, i: int, names: set[str] | None = None) -> bool:
        t = self.toks[i]
        if i + 1 >= len(self.toks) or self.toks[i + 1].type != "L_PAREN":
            return False
        if i > 0 and self.toks[i - 1].type == "DOT":
            return False
        return names is None or t.up in names

    # -- scopes -------------------------------------------------------------------------------------------------
    def _scopes(self) -> list[_Scope]:
        out = []
        n = len(self.toks)
        for i, t in enumerate(self.toks):
            if t.type != "SELECT":
                continue
            d = t.depth
            j = i + 1
            clauses: dict[str, int] = {}
            while j < n:
                u = self.toks[j]
                if u.depth < d or (u.depth == d and u.type in _SET_OPS):
                    break
                if u.depth == d and u.type in _CLAUSES and u.type not in clauses:
                    clauses[u.type] = j
                j += 1
            out.append(_Scope(i, j, d, clauses))
        return out

    def region(self, sc: _Scope, clause: str) -> tuple[int, int] | None:
        """Token range (first, end) of a clause's body in a scope."""
        k = sc.clauses.get(clause)
        if k is None:
            return None
        end = sc.end
        for other, idx in sc.clauses.items():
            if idx > k and idx < end:
                end = idx
        return k + 1, end

    def select_list(self, sc: _Scope) -> list[tuple[int, int]]:
        end = sc.clauses.get("FROM", sc.end)
        first = sc.sel + 1
        while first < end and self.toks[first].type in ("DISTINCT", "ALL"):
            first += 1
        return self.split(first, end, sc.depth, "COMMA")

    def split(self, a: int, b: int, depth: int, sep: str) -> list[tuple[int, int]]:
        out, start = [], a
        for j in range(a, b):
            if self.toks[j].type == sep and self.toks[j].depth == depth:
                out.append((start, j))
                start = j + 1
        if start < b:
            out.append((start, b))
        return out

    def conjuncts(self, a: int, b: int, depth: int) -> list[tuple[int, int]] | None:
        """Top-level AND parts of a condition (None when it has a top-level OR)."""
        parts, start, between = [], a, False
        for j in range(a, b):
            t = self.toks[j]
            if t.depth != depth:
                continue
            if t.type == "BETWEEN":
                between = True
            elif t.type == "OR":
                return None
            elif t.type == "AND":
                if between:
                    between = False
                    continue
                parts.append((start, j))
                start = j + 1
        if start < b:
            parts.append((start, b))
        return parts

    def main_scope(self) -> _Scope | None:
        """The outermost SELECT that is not inside a CTE or subquery (the last depth-0 SELECT)."""
        best = None
        for sc in self.scopes:
            if sc.depth == 0:
                best = sc
        return best

    def scope_of(self, tok_index: int) -> _Scope | None:
        best = None
        for sc in self.scopes:
            if sc.sel <= tok_index < sc.end and (best is None or sc.sel > best.sel):
                best = sc
        return best

    def tok_at(self, offset: int) -> int | None:
        for t in self.toks:
            if t.start <= offset < t.end:
                return t.i
        return None

    # -- schema ---------------------------------------------------------------------------------------------------
    def all_columns(self) -> set[str]:
        out = set()
        for t in getattr(self.schema, "tables", ()):
            for c in t.columns:
                out.add(c.name.lower())
        return out

    def all_tables(self) -> set[str]:
        out = set()
        for t in getattr(self.schema, "tables", ()):
            out.add(t.name.lower())
            out.add(t.qualified_name.lower())
        return out

    def lookup(self, name: str, db: str = ""):
        try:
            if db:
                hit = self.schema.table(f"{db}.{name}")
                if hit is not None:
                    return hit
            return self.schema.table(name)
        except Exception:  # noqa: BLE001
            return None

    # -- tree -----------------------------------------------------------------------------------------------------
    def cte_names(self) -> set[str]:
        from sqlglot import exp

        if self.tree is None:
            return set()
        return {c.alias_or_name.lower() for c in self.tree.find_all(exp.CTE)}

    def sources(self, select) -> list[tuple[str, object, object]]:
        """(alias or name, schema Table, exp.Table node) of the real tables read directly by a SELECT node."""
        from sqlglot import exp

        ctes = self.cte_names()
        out = []
        for t in select.find_all(exp.Table):
            if t.find_ancestor(exp.Select) is not select:
                continue
            if not t.name or (t.name.lower() in ctes and not t.db):
                continue
            table = self.lookup(t.name, t.db)
            if table is None:
                continue
            out.append((t.alias_or_name, table, t))
        return out

    def resolved_columns(self):
        """(exp.Column, schema Table, schema Column, owning Select) for column references that resolve."""
        from sqlglot import exp

        if self.tree is None:
            return []
        out = []
        cache: dict[int, list] = {}
        for col in self.tree.find_all(exp.Column):
            if not isinstance(col.this, exp.Identifier) or "start" not in col.this.meta:
                continue
            sel = col.find_ancestor(exp.Select)
            hit = None
            walk = sel
            while walk is not None and hit is None:
                srcs = cache.setdefault(id(walk), self.sources(walk))
                if col.table:
                    for alias, table, _node in srcs:
                        if alias.lower() == col.table.lower():
                            c = table.column(col.name)
                            hit = (table, c) if c is not None else ("missing", None)
                            break
                else:
                    owners = [(table, table.column(col.name)) for _a, table, _n in srcs if table.column(col.name)]
                    if len(owners) == 1:
                        hit = owners[0]
                    elif len(owners) > 1:
                        hit = ("ambiguous", None)
                walk = walk.find_ancestor(exp.Select) if hit is None else None
            if hit and hit[1] is not None:
                out.append((col, hit[0], hit[1], sel))
        return out

    def output_aliases(self) -> set[str]:
        from sqlglot import exp

        if self.tree is None:
            return set()
        out = {a.alias.lower() for a in self.tree.find_all(exp.Alias) if a.alias}
        out |= {t.alias.lower() for t in self.tree.find_all(exp.Table) if t.alias}
        return out


def _span(node) -> tuple[int, int] | None:
    meta = getattr(node, "meta", None) or {}
    if "start" in meta and "end" in meta:
        return meta["start"], meta["end"] + 1
    return None


def _apply(text: str, edits: list[tuple[int, int, str]]) -> str | None:
    """Apply (start, end, replacement) edits; None when they overlap."""
    edits = sorted(set(edits), key=lambda e: (e[0], e[1]))
    for a, b in zip(edits, edits[1:]):
        if b[0] < a[1]:
            return None
    out, pos = [], 0
    for s, e, rep in edits:
        out.append(text[pos:s])
        out.append(rep)
        pos = e
    out.append(text[pos:])
    return "".join(out)


def _cut(q: _Query, a: int, b: int, rep: str = "") -> tuple[int, int, str]:
    """An edit that removes tokens a..b-1 together with the whitespace before them."""
    start = q.toks[a].start
    while start > 0 and q.sql[start - 1] in " \t\n\r":
        start -= 1
    return start, q.toks[b - 1].end, rep


def _type_class(type_name: str) -> str:
    t = (type_name or "").lower()
    if any(k in t for k in _TEMPORAL):
        return "time"
    if any(k in t for k in _NUMERIC) or t == "bool" or "bool" in t:
        return "num"
    if any(k in t for k in _TEXTUAL) or not t:
        return "text"
    return "other"


def _id_like(name: str, table=None) -> bool:
    n = name.lower()
    if table is not None and any(n == p.lower() for p in getattr(table, "primary_key", ())):
        return True
    return n == "id" or n.endswith("_id") or n.endswith("id") or n.endswith("code") or n.endswith("_no")


def _words(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [w.lower() for w in re.split(r"[_\s]+", spaced) if w]


def _plural(word: str) -> str:
    w = word
    if re.search(r"(s|x|z|ch|sh)$", w, re.I):
        return w + "es"
    if re.search(r"[^aeiou]y$", w, re.I):
        return w[:-1] + "ies"
    return w + "s"


def _singular(word: str) -> str:
    w = word
    if re.search(r"ies$", w, re.I):
        return w[:-3] + "y"
    if re.search(r"oses$", w, re.I):
        return w[:-2] + "is"
    if re.search(r"(ses|xes|ches|shes)$", w, re.I):
        return w[:-2]
    if w.lower().endswith("s") and not w.lower().endswith("ss"):
        return w[:-1]
    return w


# ---------------------------------------------------------------------------------------------------------------
# Presentation: how the model wraps its SQL
# ---------------------------------------------------------------------------------------------------------------

_EN_INTRO = (
    "Here is the SQL query:",
    "Sure! The following query should answer your question:",
    "To answer this, we can query the {t} table:",
    "Based on the schema, here's a query that works:",
    "You can use this query:",
    "Certainly. The SQL would be:",
)
_HI_INTRO = (
    "Yeh raha aapka SQL query:",
    "Aapke sawaal ke liye yeh query use karo:",
    "Theek hai, {t} table se data nikalne ke liye yeh query chalao:",
    "Is query se aapko answer mil jayega:",
    "Bilkul! Neeche wali query dekho:",
)
_EN_AFTER = (
    "This query reads the {t} table and returns the requested values.",
    "Explanation: we select the needed columns from {t} and apply the conditions from your question.",
    "Let me know if you need any changes to the query.",
    "Note: adjust the filters if your data uses different values.",
)
_HI_AFTER = (
    "Isme humne {t} table se data liya hai aur conditions lagayi hain.",
    "Yeh query {t} table ko use karti hai. Agar aur columns chahiye toh SELECT mein add kar lena.",
    "Explanation: pehle tables join kiye, phir filter aur grouping ki hai.",
    "Koi doubt ho toh batana!",
)


def _main_table(q: _Query) -> str:
    from sqlglot import exp

    if q.tree is not None:
        for t in q.tree.find_all(exp.Table):
            if t.name:
                return t.name
    return "the"


def _fmt(template: str, q: _Query) -> str:
    return template.replace("{t}", _main_table(q))


def _lang(rng: random.Random, q: _Query) -> str:
    fence = rng.choice(("sql", "sql", "sql", "", q.dialect if q.dialect != "postgres" else "postgresql", "SQL"))
    return fence


def _present(sql: str, q: _Query, rng: random.Random) -> str:
    """The SQL as a small model hands it back, in a form a plain tool still extracts (bare or first fence)."""
    body = sql + (";" if rng.random() < 0.5 else "")
    style = rng.randrange(7)
    if style == 0:
        return body
    if style == 1:
        return f"```{_lang(rng, q)}\n{body}\n```"
    if style == 2:
        return f"{_fmt(rng.choice(_EN_INTRO), q)}\n\n```sql\n{body}\n```"
    if style == 3:
        return f"{_fmt(rng.choice(_HI_INTRO), q)}\n\n```sql\n{body}\n```\n\n{_fmt(rng.choice(_HI_AFTER), q)}"
    if style == 4:
        return f"```{_lang(rng, q)}\n{body}\n```\n\n{_fmt(rng.choice(_EN_AFTER), q)}"
    if style == 5:
        return f"{_fmt(rng.choice(_EN_INTRO), q)}\n```sql\n{body}\n```\n{_fmt(rng.choice(_EN_AFTER), q)}"
    return f"{_fmt(rng.choice(_HI_INTRO), q)}\n```\n{body}\n```"


# ---------------------------------------------------------------------------------------------------------------
# Family A: replies the database rejects or that are broken as replies
# ---------------------------------------------------------------------------------------------------------------

_COL_SYNONYMS = {
    "name": ("title", "full_name", "fullname"),
    "title": ("name",),
    "date": ("dt", "day"),
    "dt": ("date",),
    "amount": ("amt", "value", "total"),
    "price": ("cost", "amount"),
    "cost": ("price", "amount"),
    "num": ("number", "count"),
    "count": ("cnt", "total"),
    "qty": ("quantity",),
    "quantity": ("qty",),
    "description": ("desc", "details"),
    "type": ("category", "kind"),
    "year": ("yr",),
    "rating": ("stars", "score"),
    "country": ("nation", "country_code"),
    "state": ("province", "state_code"),
    "city": ("town",),
    "ts": ("timestamp", "time"),
    "email": ("email_address", "mail"),
    "phone": ("phone_number", "mobile"),
    "status": ("state", "current_status"),
    "created": ("creation",),
    "length": ("len", "size"),
    "area": ("size",),
    "population": ("pop", "population_count"),
    "citation": ("citations",),
    "start": ("begin",),
    "end": ("finish",),
}


_GENERIC = {"name", "title", "date", "type", "status", "id", "year", "price", "amount", "description", "code",
            "rating", "city", "country", "state", "count", "length", "area", "population", "size", "text", "email"}


def _col_variants(name: str, table) -> list[str]:
    words = _words(name)
    camel = bool(re.search(r"[a-z][A-Z]", name))
    out: list[str] = []
    tname = _singular(getattr(table, "name", "") or "")
    twords = _words(tname)
    if words:
        last = words[-1]
        plural = _plural(last) if not last.endswith("s") else _singular(last)
        out.append("_".join(words[:-1] + [plural]) if not camel else name[: len(name) - len(last)] + plural)
    if "_" in name:
        out.append(name.replace("_", ""))
        out.append(words[0] + "".join(w.capitalize() for w in words[1:]))
    elif camel:
        out.append("_".join(words))
        if len(words) > 1:  # Hungarian-style prefixes (sbCustName): the model drops the prefix
            out.append("_".join(words[1:]))
            out.append(words[-1])
    for i, w in enumerate(words):
        for syn in _COL_SYNONYMS.get(w, ()):
            out.append("_".join(words[:i] + [syn] + words[i + 1 :]))
    if twords and words and words[0] != twords[0] and len(words) == 1 and words[0] in _GENERIC:
        out.append("_".join([twords[-1]] + words))  # name -> author_name
    if twords and len(words) >= 2 and words[0] == twords[-1]:
        out.append("_".join(words[1:]))  # airline_name -> name
    low = name.lower()
    if len(low) <= 4 and low.endswith("id") and tname:  # aid -> author_id
        out.append(f"{tname.lower()}_id")
    if low == "id" and tname:
        out.append(f"{tname.lower()}_id")
    return [v for v in dict.fromkeys(out) if v and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", v)]


def k_invented_column(q: _Query, rng: random.Random):
    cols = q.resolved_columns()
    if not cols:
        return None
    existing = q.all_columns() | q.output_aliases() | q.all_tables()
    groups: dict[tuple[str, str], list] = {}
    for col, table, column, _sel in cols:
        groups.setdefault((table.qualified_name, column.name), []).append((col, table, column))
    keys = sorted(groups)
    rng.shuffle(keys)
    for key in keys:
        col, table, column = groups[key][0]
        variants = [v for v in _col_variants(column.name, table) if v.lower() not in existing]
        if not variants:
            continue
        new = rng.choice(variants)
        edits = []
        for c, _t, _c in groups[key]:
            sp = _span(c.this)
            if sp:
                edits.append((sp[0], sp[1], new))
        sql = _apply(q.sql, edits)
        if sql:
            return sql, f"column {table.name}.{column.name} written as {new}, which does not exist"
    return None


def _table_variants(name: str) -> list[str]:
    words = _words(name)
    out = []
    if not words:
        return out
    last = words[-1]
    flip = _singular(last) if last.endswith("s") and not last.endswith("ss") else _plural(last)
    camel = bool(re.search(r"[a-z][A-Z]", name))
    if camel:
        out.append(name[: len(name) - len(last)] + (flip[0].upper() + flip[1:]))
        out.append("_".join(words))
        if len(words) > 1:
            out.append(_plural("_".join(words[1:])))
    else:
        out.append("_".join(words[:-1] + [flip]))
    if "_" in name:
        out.append(name.replace("_", ""))
    elif len(name) > 8 and not camel:  # paperkeyphrase -> paper_keyphrase style guesses
        for cut in range(4, len(name) - 3):
            if name[:cut].lower() in ("paper", "author", "domain", "flight", "course", "student", "review", "user"):
                out.append(name[:cut] + "_" + name[cut:])
    return [v for v in dict.fromkeys(out) if v and v.lower() != name.lower()]


def k_invented_table(q: _Query, rng: random.Random):
    from sqlglot import exp

    if q.tree is None:
        return None
    existing = q.all_tables() | q.cte_names() | q.all_columns()
    by_name: dict[str, list] = {}
    for t in q.tree.find_all(exp.Table):
        if t.name and q.lookup(t.name, t.db) is not None and t.name.lower() not in q.cte_names():
            by_name.setdefault(t.name, []).append(t)
    names = sorted(by_name)
    rng.shuffle(names)
    for name in names:
        variants = [v for v in _table_variants(name) if v.lower() not in existing]
        if not variants:
            continue
        new = rng.choice(variants)
        edits = []
        for t in by_name[name]:
            sp = _span(t.this)
            if sp:
                edits.append((sp[0], sp[1], new))
            if not t.alias:  # columns qualified by the bare table name follow the model's spelling
                for col in q.tree.find_all(exp.Column):
                    tbl = col.args.get("table")
                    if tbl is not None and col.table.lower() == name.lower():
                        csp = _span(tbl)
                        if csp:
                            edits.append((csp[0], csp[1], new))
        sql = _apply(q.sql, edits)
        if sql:
            return sql, f"table {name} written as {new}, which does not exist"
    return None


def k_column_from_wrong_table(q: _Query, rng: random.Random):
    cands = []
    for col, table, column, sel in q.resolved_columns():
        if not col.table or col.args.get("table") is None:
            continue
        for alias, other, _node in q.sources(sel):
            if other.qualified_name == table.qualified_name or other.column(column.name) is not None:
                continue
            cands.append((col, table, column, alias, other))
    if not cands:
        return None
    col, table, column, alias, other = rng.choice(cands)
    sp = _span(col.args["table"])
    if not sp:
        return None
    sql = _apply(q.sql, [(sp[0], sp[1], alias)])
    return sql, f"{column.name} taken from {other.name} ({alias}) though it is a column of {table.name}"


def _join_spans(q: _Query) -> list[tuple[int, int, str, _Scope]]:
    """(first token, end token, alias, scope) of each JOIN clause."""
    out = []
    for sc in q.scopes:
        d = sc.depth
        stop = {v for k, v in sc.clauses.items() if k != "FROM"}
        frm = sc.clauses.get("FROM")
        if frm is None:
            continue
        starts = []
        j = frm + 1
        while j < sc.end:
            t = q.toks[j]
            if t.depth == d and j in stop:
                break
            if t.depth == d and t.type == "JOIN":
                k = j
                while k - 1 > frm and q.toks[k - 1].type in _JOIN_WORDS and q.toks[k - 1].depth == d:
                    k -= 1
                starts.append((k, j))
            j += 1
        limit = min([s for s in stop if s > frm] + [sc.end])
        for n, (k, jt) in enumerate(starts):
            end = starts[n + 1][0] if n + 1 < len(starts) else limit
            # alias: tokens after JOIN up to ON/USING
            m = jt + 1
            names = []
            while m < end and q.toks[m].type not in ("ON", "USING"):
                if q.toks[m].depth == d and q.toks[m].type in ("VAR", "IDENTIFIER"):
                    names.append(q.toks[m].text)
                m += 1
            if names:
                out.append((k, end, names[-1], sc))
    return out


def k_forgotten_join(q: _Query, rng: random.Random):
    spans = _join_spans(q)
    cands = []
    for a, b, alias, sc in spans:
        used = False
        for t in q.toks:
            if a <= t.i < b:
                continue
            if (
                t.type in ("VAR", "IDENTIFIER")
                and t.text.lower() == alias.lower()
                and t.i + 1 < len(q.toks)
                and q.toks[t.i + 1].type == "DOT"
            ):
                used = True
                break
        if used:
            cands.append((a, b, alias))
    if not cands:
        return None
    a, b, alias = rng.choice(cands)
    sql = _apply(q.sql, [_cut(q, a, b)])
    return sql, f"the join of {alias} was left out though its columns are still used"


def k_ambiguous_column(q: _Query, rng: random.Random):
    from sqlglot import exp

    cands = []
    for col, _table, column, sel in q.resolved_columns():
        if col.args.get("table") is None:
            continue
        if col.find_ancestor(exp.Order, exp.Group) is not None:
            continue
        owners = [s for s in q.sources(sel) if s[1].column(column.name) is not None]
        if len(owners) >= 2:
            cands.append(col)
    if not cands:
        return None
    col = rng.choice(cands)
    t_sp, c_sp = _span(col.args["table"]), _span(col.this)
    if not t_sp or not c_sp:
        return None
    # quoted qualifier spans may not include the dot: cut from the qualifier up to the column name
    sql = _apply(q.sql, [(t_sp[0], c_sp[0], "")])
    return sql, f"{col.name} left unqualified though two joined tables have it"


def k_incomplete_group_by(q: _Query, rng: random.Random):
    cands = []
    for sc in q.scopes:
        reg = q.region(sc, "GROUP_BY")
        if reg is None:
            continue
        items = q.split(reg[0], reg[1], sc.depth, "COMMA")
        if not items:
            continue
        selected = {_norm(q.src(a, b)).lower() for a, b in q.select_list(sc)}
        selected |= {
            _norm(q.src(a, b)).lower().split(" as ")[0].strip() for a, b in q.select_list(sc)
        }
        gb = sc.clauses["GROUP_BY"]
        whole = _cut(q, gb, reg[1])
        if len(items) == 1:
            cands.append((whole, "GROUP BY left out though the query aggregates"))
            continue
        texts = [_norm(q.src(a, b)) for a, b in items]
        idish = [bool(re.search(r"(^|\.)(\w*id|\w*_id|id)$", t, re.I)) for t in texts]
        options = []
        for n, (a, b) in enumerate(items):
            if texts[n].lower() not in selected:
                continue
            rest_id = any(idish[m] for m in range(len(items)) if m != n)
            if rest_id:
                continue
            if n == 0:
                edit = (q.toks[a].start, q.toks[items[1][0]].start, "")
            else:
                edit = _cut(q, items[n - 1][1], b)
            options.append((edit, f"{texts[n]} missing from GROUP BY though it is selected"))
        if options and rng.random() < 0.6:
            cands.append(rng.choice(options))
        else:
            cands.append((whole, "GROUP BY left out though the query aggregates"))
    if not cands:
        return None
    edit, note = rng.choice(cands)
    return _apply(q.sql, [edit]), note


# -- another dialect's date functions ----------------------------------------------------------------------------

_PG_EXTRACT_TO_FMT = {"YEAR": "%Y", "MONTH": "%m", "DAY": "%d", "DOW": "%w", "HOUR": "%H", "MINUTE": "%M",
                      "WEEK": "%W", "EPOCH": "%s", "DOY": "%j", "QUARTER": "%m", "ISODOW": "%w"}  # fmt: skip
_MYSQL_PART = {"YEAR": "YEAR", "MONTH": "MONTH", "DAY": "DAY", "DOW": "DAYOFWEEK", "HOUR": "HOUR",
               "MINUTE": "MINUTE", "WEEK": "WEEK", "EPOCH": "UNIX_TIMESTAMP", "DOY": "DAYOFYEAR",
               "QUARTER": "QUARTER", "ISODOW": "WEEKDAY"}  # fmt: skip
_FMT_TO_PG = {"%Y": "YEAR", "%m": "MONTH", "%d": "DAY", "%w": "DOW", "%H": "HOUR", "%M": "MINUTE", "%W": "WEEK",
              "%s": "EPOCH", "%j": "DOY"}  # fmt: skip
_INTERVAL_RE = re.compile(r"^\s*([+-]?)\s*(\d+(?:\.\d+)?)\s+([A-Za-z]+?)s?\s*$")


def _sqlite_modifiers_to_pg(base: str, mods: list[str], rng: random.Random, style: str) -> str | None:
    expr = base
    for m in mods:
        mm = _INTERVAL_RE.match(m)
        low = m.strip().lower()
        if mm:
            sign, n, unit = mm.groups()
            op = "-" if sign == "-" else "+"
            if style == "mysql":
                fn = "DATE_SUB" if op == "-" else "DATE_ADD"
                expr = f"{fn}({expr}, INTERVAL {n} {unit.upper()})"
            else:
                expr = f"{expr} {op} INTERVAL '{n} {unit.lower()}s'"
        elif low.startswith("start of "):
            unit = low[len("start of ") :].strip()
            expr = f"DATE_TRUNC('{unit}', {expr})" if style != "mysql" else f"DATE_FORMAT({expr}, '%Y-%m-01')"
        elif low.startswith("weekday"):
            expr = f"DATE_TRUNC('week', {expr})" if style != "mysql" else f"SUBDATE({expr}, WEEKDAY({expr}))"
        elif low in ("localtime", "utc", "unixepoch"):
            continue
        else:
            return None
    return expr


def _foreign_dates_for_sqlite(q: _Query, rng: random.Random) -> tuple[list, str] | None:
    style = rng.choice(("postgres", "mysql"))
    edits, names = [], []
    toks = q.toks
    i = 0
    while i < len(toks):
        t = toks[i]
        if not q.is_call(i) or t.up not in ("DATE", "DATETIME", "STRFTIME", "JULIANDAY"):
            i += 1
            continue
        call = q.call_args(i)
        if call is None:
            i += 1
            continue
        close, args = call
        argtexts = [q.src(a, b) for a, b in args]
        rep = None
        if t.up in ("DATE", "DATETIME") and args:
            first = argtexts[0]
            mods = []
            ok = True
            for a, b in args[1:]:
                if b - a == 1 and toks[a].type == "STRING":
                    mods.append(toks[a].text)
                else:
                    ok = False
            if ok:
                if first.strip().lower() == "'now'":
                    base = ("CURRENT_DATE" if t.up == "DATE" else "NOW()") if style == "postgres" else (
                        "CURDATE()" if t.up == "DATE" else "NOW()")
                    if not mods and t.up == "DATE" and style == "postgres":
                        base = "NOW()::date"
                else:
                    base = f"{first}::date" if style == "postgres" and t.up == "DATE" else (
                        f"CAST({first} AS DATETIME)" if style == "mysql" else f"{first}::timestamp")
                    if style == "mysql" and t.up == "DATE" and not mods:
                        base = f"CONVERT({first}, DATE)"
                rep = _sqlite_modifiers_to_pg(base, mods, rng, style)
        elif t.up == "STRFTIME" and len(args) >= 2 and toks[args[0][0]].type == "STRING":
            fmt = toks[args[0][0]].text
            x = argtexts[1]
            if x.strip().lower() == "'now'":
                x = "NOW()" if style == "mysql" else "CURRENT_DATE"
            mods = [toks[a].text for a, b in args[2:] if b - a == 1 and toks[a].type == "STRING"]
            if len(mods) != len(args[2:]):
                i += 1
                continue
            if mods:
                x = _sqlite_modifiers_to_pg(x, mods, rng, style)
                if x is None:
                    i += 1
                    continue
            if style == "postgres":
                if fmt in _FMT_TO_PG:
                    rep = f"EXTRACT({_FMT_TO_PG[fmt]} FROM {x})"
                elif fmt == "%Y-%m-01":
                    rep = f"DATE_TRUNC('month', {x})"
                else:
                    pgfmt = fmt.replace("%Y", "YYYY").replace("%m", "MM").replace("%d", "DD").replace("%H", "HH24")
                    pgfmt = pgfmt.replace("%M", "MI").replace("%S", "SS").replace("%W", "WW").replace("%j", "DDD")
                    rep = f"TO_CHAR({x}, '{pgfmt}')"
            else:
                part = {v: k for k, v in _PG_EXTRACT_TO_FMT.items() if k in ("YEAR", "MONTH", "DAY", "HOUR")}
                if fmt in part:
                    rep = f"{part[fmt]}({x})"
                elif fmt == "%s":
                    rep = f"UNIX_TIMESTAMP({x})"
                elif fmt == "%w":
                    rep = f"DAYOFWEEK({x})"
                else:
                    rep = f"DATE_FORMAT({x}, '{fmt}')"
        elif t.up == "JULIANDAY" and len(args) == 1:
            x = argtexts[0]
            if x.strip().lower() == "'now'":
                x = "NOW()" if style == "mysql" else "CURRENT_TIMESTAMP"
            rep = f"TO_DAYS({x})" if style == "mysql" else f"EXTRACT(EPOCH FROM {x}) / 86400.0"
        if rep:
            edits.append((t.start, toks[close].end, rep))
            names.append(t.text)
            i = close + 1
        else:
            i += 1
    if not edits:
        return None
    return edits, f"{style} date functions ({', '.join(dict.fromkeys(names))}) written for SQLite"


def _foreign_dates_for_pg(q: _Query, rng: random.Random) -> tuple[list, str] | None:
    style = rng.choice(("sqlite", "mysql", "mysql", "tsql"))
    edits, names = [], []
    toks = q.toks
    i = 0
    now_words = {"CURRENT_DATE", "CURRENT_TIMESTAMP"}
    while i < len(toks):
        t = toks[i]
        rep, span_end = None, None
        # CURRENT_DATE - INTERVAL '3 months'  /  NOW() - INTERVAL ...
        is_now = t.type in now_words or (t.up == "NOW" and q.is_call(i))
        if is_now:
            after = i + 1 if t.type in now_words else i + 3
            now_txt = {"sqlite": "'now'", "mysql": "CURDATE()" if t.type == "CURRENT_DATE" else "NOW()",
                       "tsql": "GETDATE()"}[style]  # fmt: skip
            if (
                after + 2 < len(toks)
                and toks[after].type in ("DASH", "PLUS")
                and toks[after + 1].type == "INTERVAL"
                and toks[after + 2].type == "STRING"
            ):
                mm = _INTERVAL_RE.match(toks[after + 2].text)
                if mm:
                    _sign, n, unit = mm.groups()
                    op = toks[after].text
                    if style == "sqlite":
                        fn = "DATE" if t.type == "CURRENT_DATE" else "DATETIME"
                        rep = f"{fn}('now', '{op if op == '-' else '+'}{n} {unit.lower()}s')"
                    elif style == "mysql":
                        fn = "DATE_SUB" if op == "-" else "DATE_ADD"
                        rep = f"{fn}({now_txt}, INTERVAL {n} {unit.upper()})"
                    else:
                        rep = f"DATEADD({unit.lower()}, {'-' if op == '-' else ''}{n}, GETDATE())"
                    span_end = toks[after + 2].end
            if rep is None:
                rep = {"sqlite": "DATE('now')" if t.type == "CURRENT_DATE" else "DATETIME('now')",
                       "mysql": now_txt, "tsql": "GETDATE()"}[style]  # fmt: skip
                span_end = toks[after - 1].end
            edits.append((t.start, span_end, rep))
            names.append(t.text)
            i = q.tok_at(span_end - 1) + 1 if q.tok_at(span_end - 1) is not None else i + 1
            continue
        if t.type == "INTERVAL" and i + 1 < len(toks) and toks[i + 1].type == "STRING":
            mm = _INTERVAL_RE.match(toks[i + 1].text)
            if mm:
                _s, n, unit = mm.groups()
                edits.append((t.start, toks[i + 1].end, f"INTERVAL {n} {unit.upper()}"))
                names.append("INTERVAL")
            i += 2
            continue
        if q.is_call(i, {"EXTRACT", "DATE_PART"}):
            call = q.call_args(i)
            if call:
                close, args = call
                if t.up == "EXTRACT":
                    inner = [u for u in toks[i + 2 : close]]
                    fr = next((u.i for u in inner if u.type == "FROM" and u.depth == toks[i + 1].depth + 1), None)
                    part = q.src(i + 2, fr).strip().strip("'").upper() if fr else None
                    x = q.src(fr + 1, close) if fr else None
                else:
                    part = q.src(*args[0]).strip().strip("'").upper() if len(args) == 2 else None
                    x = q.src(*args[1]) if len(args) == 2 else None
                if part and x:
                    if style == "sqlite" and part in _PG_EXTRACT_TO_FMT:
                        rep = f"strftime('{_PG_EXTRACT_TO_FMT[part]}', {x})"
                    elif style in ("mysql", "tsql") and part in _MYSQL_PART:
                        rep = f"{_MYSQL_PART[part]}({x})" if style == "mysql" else f"DATEPART({part.lower()}, {x})"
                    if rep:
                        edits.append((t.start, toks[close].end, rep))
                        names.append(t.text)
                        i = close + 1
                        continue
        if q.is_call(i, {"DATE_TRUNC", "TO_CHAR", "AGE"}):
            call = q.call_args(i)
            if call:
                close, args = call
                if t.up == "DATE_TRUNC" and len(args) == 2 and toks[args[0][0]].type == "STRING":
                    unit, x = toks[args[0][0]].text.lower(), q.src(*args[1])
                    fmt = {"year": "%Y-01-01", "month": "%Y-%m-01", "day": "%Y-%m-%d", "hour": "%Y-%m-%d %H:00:00",
                           "quarter": "%Y-%m-01"}.get(unit)  # fmt: skip
                    if style == "sqlite":
                        rep = f"strftime('{fmt}', {x})" if fmt else f"DATE({x}, 'weekday 0', '-6 days')"
                    elif style == "mysql":
                        rep = f"DATE_FORMAT({x}, '{fmt}')" if fmt else f"DATE_SUB({x}, INTERVAL WEEKDAY({x}) DAY)"
                    else:
                        rep = f"DATETRUNC({unit}, {x})"
                elif t.up == "TO_CHAR" and len(args) == 2 and toks[args[1][0]].type == "STRING":
                    fmt = toks[args[1][0]].text.replace("YYYY", "%Y").replace("MM", "%m").replace("DD", "%d")
                    x = q.src(*args[0])
                    rep = f"strftime('{fmt}', {x})" if style == "sqlite" else f"DATE_FORMAT({x}, '{fmt}')"
                elif t.up == "AGE" and len(args) in (1, 2):
                    a1 = q.src(*args[0])
                    a2 = q.src(*args[1]) if len(args) == 2 else "CURDATE()"
                    rep = f"DATEDIFF({a1}, {a2})" if style != "sqlite" else f"julianday({a1}) - julianday({a2})"
                if rep:
                    edits.append((t.start, toks[close].end, rep))
                    names.append(t.text)
                    i = close + 1
                    continue
        i += 1
    if not edits:
        return None
    return edits, f"{style} date functions/arithmetic ({', '.join(dict.fromkeys(names))}) written for PostgreSQL"


def k_foreign_date_function(q: _Query, rng: random.Random):
    got = _foreign_dates_for_sqlite(q, rng) if q.dialect == "sqlite" else _foreign_dates_for_pg(q, rng)
    if got is None:
        return None
    edits, note = got
    sql = _apply(q.sql, edits)
    return (sql, note) if sql else None


# -- another dialect's idioms (not dates) --------------------------------------------------------------------------


def _case_to_if(q: _Query, fn: str) -> list[tuple[int, int, str]]:
    """Single-branch CASE WHEN c THEN a ELSE b END -> fn(c, a, b)."""
    out = []
    for t in q.toks:
        if t.type != "CASE":
            continue
        d = t.depth
        parts: dict[str, list[int]] = {}
        end = None
        for j in range(t.i + 1, len(q.toks)):
            u = q.toks[j]
            if u.depth < d:
                break
            if u.depth == d and u.type == "CASE":
                break
            if u.depth == d and u.type in ("WHEN", "THEN", "ELSE"):
                parts.setdefault(u.type, []).append(j)
            if u.depth == d and u.type == "END":
                end = j
                break
        if end is None or len(parts.get("WHEN", [])) != 1 or len(parts.get("THEN", [])) != 1:
            continue
        if any(q.toks[k].type == "CASE" for k in range(t.i + 1, end)):
            continue
        w, th = parts["WHEN"][0], parts["THEN"][0]
        if w != t.i + 1:
            continue
        el = parts.get("ELSE", [None])[0]
        cond = q.src(w + 1, th)
        a = q.src(th + 1, el if el is not None else end)
        b = q.src(el + 1, end) if el is not None else "NULL"
        out.append((t.start, q.toks[end].end, f"{fn}({cond}, {a}, {b})"))
    return out


def _top_edits(q: _Query) -> list[tuple[int, int, str]] | None:
    """LIMIT n -> SELECT TOP n (outermost scope)."""
    sc = q.main_scope()
    if sc is None or "LIMIT" not in sc.clauses or "OFFSET" in sc.clauses:
        return None
    lim = sc.clauses["LIMIT"]
    if lim + 1 >= len(q.toks) or q.toks[lim + 1].type != "NUMBER":
        return None
    n = q.toks[lim + 1].text
    at = sc.sel
    if sc.sel + 1 < len(q.toks) and q.toks[sc.sel + 1].type == "DISTINCT":
        at = sc.sel + 1
    return [(q.toks[at].end, q.toks[at].end, f" TOP {n}"), _cut(q, lim, lim + 2)]


def k_foreign_idiom(q: _Query, rng: random.Random):
    options: list[tuple[list, str]] = []
    toks = q.toks
    if q.dialect == "sqlite":
        likes = []
        for t in toks:
            if t.type == "LIKE":
                prev = t.i - 1
                if prev >= 0 and toks[prev].type == "R_PAREN":
                    op = None
                    for k in range(prev - 1, -1, -1):
                        if toks[k].type == "L_PAREN" and toks[k].depth == toks[prev].depth:
                            op = k
                            break
                    if op and op - 1 >= 0 and toks[op - 1].up == "LOWER":
                        likes.append((toks[op - 1].start, t.end, f"{q.src(op + 1, prev)} ILIKE"))
                        continue
                likes.append((t.start, t.end, "ILIKE"))
        if likes:
            options.append((likes, "PostgreSQL ILIKE used on SQLite"))
    else:
        ilikes = [(t.start, t.end, "LIKE") for t in toks if t.type == "ILIKE"]
        if ilikes:
            extra = []
            for t in toks:
                if t.type == "ILIKE" and t.i + 1 < len(toks) and toks[t.i + 1].type == "STRING":
                    extra.append((toks[t.i + 1].end, toks[t.i + 1].end, " COLLATE NOCASE"))
            options.append((ilikes + extra, "SQLite's COLLATE NOCASE used on PostgreSQL instead of ILIKE"))
        # backtick quoting (MySQL habit)
        from sqlglot import exp

        if q.tree is not None:
            ticks = []
            for tb in q.tree.find_all(exp.Table):
                sp = _span(tb.this)
                if sp and q.lookup(tb.name, tb.db) is not None:
                    ticks.append((sp[0], sp[1], f"`{tb.name}`"))
            if ticks:
                options.append((ticks, "MySQL backtick quoting of table names"))
        dq = []
        for t in toks:
            if t.type == "STRING" and t.i > 0 and toks[t.i - 1].type in ("EQ", "NEQ") and '"' not in t.text:
                if q.sql[t.start] == "'":
                    dq.append((t.start, t.end, f'"{t.text}"'))
        if dq:
            options.append((dq, "string literals in double quotes (MySQL habit)"))
    # both dialects: CAST/:: habits, TOP, NVL/IFNULL, IF()/IIF(), LEN
    casts = []
    for t in toks:
        if q.is_call(t.i, {"CAST"}):
            call = q.call_args(t.i)
            if not call:
                continue
            close = call[0]
            inner = toks[t.i + 2 : close]
            as_i = next((u.i for u in inner if u.type == "ALIAS" and u.depth == t.depth + 1), None)
            if as_i is None:
                continue
            x, typ = q.src(t.i + 2, as_i), q.src(as_i + 1, close)
            if q.dialect == "sqlite":
                casts.append((t.start, toks[close].end, f"{x}::{typ.lower() if typ.upper() != 'REAL' else 'float'}"))
            else:
                casts.append((t.start, toks[close].end, f"CONVERT({typ.upper()}, {x})"))
    if casts:
        options.append((casts, "PostgreSQL :: casts on SQLite" if q.dialect == "sqlite" else "T-SQL CONVERT()"))
    top = _top_edits(q)
    if top:
        options.append((top, "T-SQL SELECT TOP n instead of LIMIT"))
    sc = q.main_scope()
    if sc and "LIMIT" in sc.clauses and "OFFSET" in sc.clauses and q.dialect != "sqlite":
        lim, off = sc.clauses["LIMIT"], sc.clauses["OFFSET"]
        if off == lim + 2 and off + 1 < len(toks):
            n, m = toks[lim + 1].text, toks[off + 1].text
            options.append(([(toks[lim].start, toks[off + 1].end, f"LIMIT {m}, {n}")], "MySQL LIMIT offset, count"))
    nvl = [(t.start, t.end, "NVL" if q.dialect == "sqlite" else "IFNULL") for t in toks if q.is_call(t.i, {"COALESCE"})]
    if nvl:
        options.append((nvl, "Oracle NVL()" if q.dialect == "sqlite" else "MySQL/SQLite IFNULL()"))
    iffs = _case_to_if(q, "IF" if q.dialect == "sqlite" or rng.random() < 0.5 else "IIF")
    if iffs:
        options.append((iffs, "CASE written as IF()/IIF()"))
    lens = [(t.start, t.end, "LEN") for t in toks if q.is_call(t.i, {"LENGTH", "CHAR_LENGTH"})]
    if lens:
        options.append((lens, "T-SQL LEN()"))
    if not options:
        return None
    edits, note = rng.choice(options)
    sql = _apply(q.sql, edits)
    return (sql, note) if sql else None


def k_syntax_slip(q: _Query, rng: random.Random):
    options = []
    toks = q.toks
    for sc in q.scopes:
        items = q.select_list(sc)
        frm = sc.clauses.get("FROM")
        if items and frm is not None:
            last_end = toks[items[-1][1] - 1].end
            options.append(((last_end, last_end, ","), "trailing comma before FROM"))
        for (a1, b1), (a2, b2) in zip(items, items[1:]):
            simple_next = b2 - a2 == 1 and toks[a2].type in ("VAR", "IDENTIFIER")
            if simple_next and not (b1 - a1 >= 2 and toks[b1 - 2].type == "ALIAS"):
                continue  # "a b" would read as an alias: not what this slip is about
            comma = toks[b1]
            options.append(((comma.start, comma.end, ""), "missing comma between selected columns"))
        for kw in ("WHERE", "GROUP_BY", "ORDER_BY"):
            reg = q.region(sc, kw)
            if reg is None:
                continue
            if kw == "WHERE":
                end_tok = toks[reg[1] - 1]
                options.append(((end_tok.end, end_tok.end, " AND"), "dangling AND at the end of WHERE"))
        wh, gb = q.region(sc, "WHERE"), q.region(sc, "GROUP_BY")
        if wh and gb and sc.clauses["GROUP_BY"] > sc.clauses["WHERE"]:
            w0, g0 = sc.clauses["WHERE"], sc.clauses["GROUP_BY"]
            wtext, gtext = q.src(w0, wh[1]), q.src(g0, gb[1])
            start, end = toks[w0].start, toks[gb[1] - 1].end
            options.append(((start, end, f"{gtext} {wtext}"), "WHERE written after GROUP BY"))
        ob, lim = q.region(sc, "ORDER_BY"), q.region(sc, "LIMIT")
        if ob and lim and sc.clauses["LIMIT"] > sc.clauses["ORDER_BY"] and "OFFSET" not in sc.clauses:
            o0, l0 = sc.clauses["ORDER_BY"], sc.clauses["LIMIT"]
            otext, ltext = q.src(o0, ob[1]), q.src(l0, lim[1])
            options.append(((toks[o0].start, toks[lim[1] - 1].end, f"{ltext} {otext}"),
                            "LIMIT written before ORDER BY"))
    calls = [t for t in toks if t.type == "L_PAREN" and t.i > 0 and toks[t.i - 1].type in ("VAR",) and q.match(t.i)]
    if calls:
        t = rng.choice(calls)
        close = toks[q.match(t.i)]
        options.append(((close.start, close.end, ""), "unbalanced parentheses (a closing paren missing)"))
    for t in toks:
        if t.type == "ON" and t.i + 1 < len(toks):
            options.append((_cut(q, t.i, t.i + 1), "JOIN without the ON keyword"))
            break
    if not options:
        return None
    edit, note = rng.choice(options)
    sql = _apply(q.sql, [edit])
    return (sql, note) if sql else None


_INCOMPLETE = {"WHERE", "AND", "OR", "ON", "JOIN", "FROM", "SELECT", "GROUP_BY", "ORDER_BY", "HAVING", "COMMA",
               "L_PAREN", "EQ", "GT", "LT", "GTE", "LTE", "NEQ", "ALIAS", "CASE", "WHEN", "THEN", "ELSE", "IN",
               "BETWEEN", "LIKE", "ILIKE", "DOT", "PLUS", "DASH", "SLASH", "NOT", "IS", "LIMIT", "DISTINCT", "LEFT",
               "INNER", "UNION", "WITH"}  # fmt: skip


def k_truncated_reply(q: _Query, rng: random.Random):
    n = len(q.toks)
    if n < 8:
        return None
    lo, hi = int(n * 0.35), int(n * 0.92)
    cands = [t for t in q.toks[lo:hi] if t.type in _INCOMPLETE and t.type != "DOT"]
    dots = [t for t in q.toks[lo:hi] if t.type == "DOT"]
    if not cands and not dots:
        return None
    t = rng.choice(dots) if dots and (not cands or rng.random() < 0.15) else rng.choice(cands)
    prefix = q.sql[: t.end]
    if rng.random() < 0.3 and t.type in ("COMMA", "EQ", "AND", "WHERE", "ON"):
        nxt = q.toks[t.i + 1] if t.i + 1 < n else None
        if nxt is not None and nxt.type in ("VAR", "IDENTIFIER") and len(nxt.text) > 4:
            # cut mid-identifier, then the model stopped
            prefix = q.sql[: nxt.start + max(2, len(nxt.text) // 2)]
            if nxt.text[: max(2, len(nxt.text) // 2)].lower() in q.all_columns() | q.output_aliases():
                prefix = q.sql[: t.end]
    style = rng.randrange(4)
    if style == 0:
        reply = prefix
    elif style == 1:
        reply = f"```sql\n{prefix}"
    elif style == 2:
        reply = f"{_fmt(rng.choice(_EN_INTRO), q)}\n\n```sql\n{prefix}"
    else:
        reply = f"{_fmt(rng.choice(_HI_INTRO), q)}\n```sql\n{prefix}"
    return reply, f"reply cut off after {t.text!r} (generation stopped mid-query)", True


def k_sql_buried_in_prose(q: _Query, rng: random.Random):
    body = q.sql + (";" if rng.random() < 0.6 else "")
    style = rng.randrange(6)
    t = _main_table(q)
    if style == 0:
        reply = f"{_fmt(rng.choice(_EN_INTRO), q)}\n\n{body}\n\n{_fmt(rng.choice(_EN_AFTER), q)}"
    elif style == 1:
        reply = f"{_fmt(rng.choice(_HI_INTRO), q)}\n\n{body}\n\n{_fmt(rng.choice(_HI_AFTER), q)}"
    elif style == 2:
        reply = f"To answer this question, I need to look at the {t} table.\n\nSQL: {body}\n\nExplanation: the query " \
                f"returns the rows you asked for."
    elif style == 3:
        reply = f"Step 1: Identify the tables ({t}).\nStep 2: Apply the filters.\nStep 3: Write the query:\n{body}"
    elif style == 4:
        reply = f"Aapka answer:\n{body}\nIs query ko run karke result check kar lijiye."
    else:
        reply = f"{body}\n\nThis query will give you the answer. Let me know if you need anything else!"
    return reply, "SQL given without a code fence, mixed with prose", True


def k_wrapped_output(q: _Query, rng: random.Random):
    body = q.sql
    style = rng.randrange(6)
    t = _main_table(q)
    if style == 0:
        reply = f"SQLQuery: {body}\nSQLResult: \nAnswer: "
        note = "LangChain-style 'SQLQuery:' prefix and trailing SQLResult/Answer lines"
    elif style == 1:
        payload = json.dumps({"sql": body, "explanation": f"Query on the {t} table."}, indent=2)
        reply = f"```json\n{payload}\n```"
        note = "SQL returned inside a fenced JSON object"
    elif style == 2:
        reply = json.dumps({"query": body})
        note = "SQL returned as a bare JSON object"
    elif style == 3:
        reply = f"<sql>\n{body}\n</sql>"
        note = "SQL wrapped in <sql> tags"
    elif style == 4:
        cols = ["result"]
        reply = (f"```sql\n{body};\n\n| {' | '.join(cols)} |\n|---|\n| ... |\n```\n\nThe table above shows the "
                 f"expected output.")
        note = "hallucinated result table inside the SQL code block"
    else:
        reply = f"```sql\nQuery: {body}\n```"
        note = "'Query:' label inside the code block"
    return reply, note, True


def k_draft_block_first(q: _Query, rng: random.Random):
    from sqlglot import exp

    tables = []
    if q.tree is not None:
        for tb in q.tree.find_all(exp.Table):
            if q.lookup(tb.name, tb.db) is not None:
                tables.append(tb.sql(dialect=q.dialect).split(" AS ")[0].split(" ")[0])
    if not tables:
        return None
    t = rng.choice(tables)
    bare = t.split(".")[-1]
    style = rng.randrange(3)
    if style == 0:
        draft = f"SELECT * FROM {t} LIMIT 5;"
        lead = f"First, let's look at the data in {bare}:"
    elif style == 1:
        if q.dialect == "sqlite":
            draft = f"SELECT name FROM pragma_table_info('{bare}');"
        else:
            draft = f"SELECT column_name FROM information_schema.columns WHERE table_name = '{bare.lower()}';"
        lead = f"Pehle {bare} table ke columns check karte hain:"
    else:
        draft = f"SELECT COUNT(*) FROM {t};"
        lead = f"Let me first check how many rows {bare} has:"
    reply = f"{lead}\n\n```sql\n{draft}\n```\n\nNow the final query:\n\n```sql\n{q.sql};\n```"
    return reply, f"an exploratory query block ({draft}) before the answer block", True


# ---------------------------------------------------------------------------------------------------------------
# Family B: replies that run and return other rows
# ---------------------------------------------------------------------------------------------------------------


def k_swapped_aggregate(q: _Query, rng: random.Random):
    swap = {"SUM": ("AVG",), "AVG": ("SUM", "MAX"), "MAX": ("MIN",), "MIN": ("MAX",)}
    cands = [t for t in q.toks if q.is_call(t.i, set(swap))]
    if not cands:
        return None
    t = rng.choice(cands)
    new = rng.choice(swap[t.up])
    new = new if t.text.isupper() else new.lower()
    return _apply(q.sql, [(t.start, t.end, new)]), f"{new.upper()}() written where {t.up}() was needed"


def k_boundary_slip(q: _Query, rng: random.Random):
    flip = {"GT": ">=", "GTE": ">", "LT": "<=", "LTE": "<"}

    def relative(k: int) -> bool:  # a window relative to today: the data rarely sits on its edge
        for u in q.toks[max(0, k - 8) : k + 10]:
            if u.type in ("CURRENT_DATE", "CURRENT_TIMESTAMP", "INTERVAL") or u.up == "NOW" or (
                    u.type == "STRING" and u.text.lower() == "now"):
                return True
        return False

    strong, weak = [], []
    for t in q.toks:
        if t.type not in flip or relative(t.i):
            continue
        nxt = q.toks[t.i + 1] if t.i + 1 < len(q.toks) else None
        if nxt is None:
            continue
        # numeric thresholds ("more than 2", "at least 4 stars"); date-literal bounds almost never meet a row
        if nxt.type == "NUMBER":
            (strong if float(nxt.text) <= 10 else weak).append(t)
    pool = strong * 3 + weak
    between = [t for t in q.toks if t.type == "BETWEEN" and not relative(t.i) and t.i + 1 < len(q.toks) and
               q.toks[t.i + 1].type == "NUMBER"]  # fmt: skip
    if between and (not pool or rng.random() < 0.3):
        t = rng.choice(between)
        # x BETWEEN a AND b  ->  x > a AND x < b (endpoints excluded)
        sc = q.scope_of(t.i)
        d = t.depth
        and_i = next((u.i for u in q.toks[t.i + 1 :] if u.type == "AND" and u.depth == d), None)
        if and_i is not None and t.i > 0:
            # left operand: back to the previous boolean/clause keyword at this depth
            k = t.i - 1
            while k > 0 and not (q.toks[k].depth == d and q.toks[k].type in ("WHERE", "AND", "OR", "ON", "WHEN",
                                                                               "HAVING", "L_PAREN", "NOT")):  # noqa
                k -= 1
            if q.toks[k].depth == d and q.toks[k].type != "NOT":
                left = q.src(k + 1, t.i)
                end = and_i + 1
                while end < len(q.toks) and q.toks[end].depth >= d and not (
                    q.toks[end].depth == d and q.toks[end].type in ("AND", "OR", "THEN", "R_PAREN", "GROUP_BY",
                                                                    "ORDER_BY", "LIMIT", "HAVING")):  # noqa
                    if sc is not None and end >= sc.end:
                        break
                    end += 1
                lo, hi = q.src(t.i + 1, and_i), q.src(and_i + 1, end)
                if left and lo and hi:
                    return (_apply(q.sql, [(q.toks[t.i].start, q.toks[end - 1].end, f"> {lo} AND {left} < {hi}")]),
                            "BETWEEN read as exclusive: endpoints left out")
    if not pool:
        return None
    t = rng.choice(pool)
    # the model reads inclusive/exclusive the other way throughout: every literal bound of that SELECT flips
    sc = q.scope_of(t.i)
    same = [u for u in strong + weak if q.scope_of(u.i) is sc] or [t]
    edits = [(u.start, u.end, flip[u.type]) for u in same]
    shown = ", ".join(f"{u.text} -> {flip[u.type]}" for u in same)
    return _apply(q.sql, edits), f"inclusive/exclusive bounds read the other way ({shown})"


def k_flipped_sort(q: _Query, rng: random.Random):
    cands = []
    for sc in q.scopes:
        if "LIMIT" not in sc.clauses and "FETCH" not in sc.clauses:
            continue
        reg = q.region(sc, "ORDER_BY")
        if reg:
            cands.append((reg, sc.depth))
    # window ORDER BY (ranking) also decides which rows come back
    for t in q.toks:
        if t.up == "OVER" and t.i + 1 < len(q.toks) and q.toks[t.i + 1].type == "L_PAREN":
            close = q.match(t.i + 1)
            if close is None:
                continue
            ob = next((u.i for u in q.toks[t.i + 2 : close] if u.type == "ORDER_BY"), None)
            if ob is not None:
                cands.append(((ob + 1, close), q.toks[ob].depth))
    if not cands:
        return None
    (a, b), d = rng.choice(cands)
    items = q.split(a, b, d, "COMMA")
    for ia, ib in items:
        if q.toks[ia].type == "CASE":
            continue
        direction = next((q.toks[k] for k in range(ia, ib) if q.toks[k].type in ("ASC", "DESC") and
                          q.toks[k].depth == d), None)  # fmt: skip
        if direction is not None and direction.type == "DESC":
            return _apply(q.sql, [(direction.start, direction.end, "ASC")]), "sort direction flipped (DESC -> ASC)"
        if direction is not None:
            return _apply(q.sql, [(direction.start, direction.end, "DESC")]), "sort direction flipped (ASC -> DESC)"
        # no direction: put DESC before NULLS, or at the end of the item
        nulls = next((k for k in range(ia, ib) if q.toks[k].up == "NULLS"), None)
        at = q.toks[nulls].start if nulls is not None else q.toks[ib - 1].end
        rep = "DESC " if nulls is not None else " DESC"
        return _apply(q.sql, [(at, at, rep)]), "sort direction flipped (ascending -> DESC)"
    return None


def k_wrong_limit(q: _Query, rng: random.Random):
    cands = []
    for sc in q.scopes:
        lim = sc.clauses.get("LIMIT")
        if lim is not None and lim + 1 < len(q.toks) and q.toks[lim + 1].type == "NUMBER":
            cands.append((sc, lim))
    if not cands:
        return None
    top = [c for c in cands if c[0].depth == 0]
    sc, lim = rng.choice(top or cands)
    n = int(float(q.toks[lim + 1].text))
    if rng.random() < 0.35 and "OFFSET" not in sc.clauses:
        return _apply(q.sql, [_cut(q, lim, lim + 2)]), f"LIMIT {n} left out"
    if n == 1:
        new = rng.choice((3, 5, 10))
    else:
        new = rng.choice((1, n + 1 if n < 5 else n * 2, 10 if n != 10 else 5))
    tok = q.toks[lim + 1]
    return _apply(q.sql, [(tok.start, tok.end, str(new))]), f"LIMIT {n} written as LIMIT {new}"


def _condition_regions(q: _Query):
    for sc in q.scopes:
        for kw in ("WHERE", "HAVING"):
            reg = q.region(sc, kw)
            if reg:
                yield sc, kw, reg


def _has_literal(q: _Query, a: int, b: int) -> bool:
    kinds = {"NUMBER", "STRING", "CURRENT_DATE", "CURRENT_TIMESTAMP", "NULL", "LIKE", "ILIKE", "IN", "TRUE", "FALSE"}
    return any(q.toks[k].type in kinds or q.toks[k].up == "NOW" for k in range(a, b))


def k_dropped_condition(q: _Query, rng: random.Random):
    cands = []
    for sc, kw, (a, b) in _condition_regions(q):
        parts = q.conjuncts(a, b, sc.depth) or [(a, b)]
        parts_lit = [p for p in parts if _has_literal(q, *p)]
        for n, (pa, pb) in enumerate(parts):
            if (pa, pb) not in parts_lit:
                continue
            if len(parts) == 1:
                edit = _cut(q, sc.clauses[kw], b)
            elif n == 0:
                edit = (q.toks[pa].start, q.toks[parts[1][0]].start, "")
            else:
                edit = _cut(q, parts[n - 1][1], pb)
            cands.append((edit, _norm(q.src(pa, pb))))
    if not cands:
        return None
    edit, text = rng.choice(cands)
    return _apply(q.sql, [edit]), f"condition left out: {text[:80]}"


_NOT_STATUSY = ("name", "email", "url", "phone", "address", "date", "_ts", "time", "desc", "text", "note", "id",
                "code", "hash", "key", "number")
_PREFERRED_VALUES = ("active", "success", "completed", "approved", "paid", "yes", "open", "true")
_STATUSY = ("status", "type", "state", "category", "kind", "class", "gender", "is_", "active", "flag", "method",
            "country", "region", "level", "mode")  # fmt: skip


def k_unrequested_filter(q: _Query, rng: random.Random):
    from sqlglot import exp

    if q.tree is None:
        return None
    used = {c.name.lower() for c in q.tree.find_all(exp.Column)}
    cands = []
    main = q.main_scope()
    for sc in q.scopes:
        if "FROM" not in sc.clauses:
            continue
        # the SELECT node of this scope
        sel = None
        for s in q.tree.find_all(exp.Select):
            sp = None
            for tb in s.find_all(exp.Table):
                if tb.find_ancestor(exp.Select) is s:
                    sp = _span(tb.this)
                    break
            if sp and q.scope_of(q.tok_at(sp[0]) or 0) is sc:
                sel = s
                break
        if sel is None:
            continue
        for alias, table, _node in q.sources(sel):
            for col in table.columns:
                hints = tuple(getattr(col, "value_hints", ()) or ())
                if len(hints) < 2 or col.name.lower() in used or _type_class(col.type) not in ("text", "num"):
                    continue
                low = col.name.lower()
                if not any(s in low for s in _STATUSY) or any(s in low for s in _NOT_STATUSY):
                    continue
                score = 2
                if sc is main:
                    score += 1
                for _ in range(score):
                    cands.append((sc, alias, col, hints))
    if not cands:
        return None
    sc, alias, col, hints = rng.choice(cands)
    preferred = [h for h in hints if str(h).lower() in _PREFERRED_VALUES]
    value = preferred[0] if preferred else (hints[0] if rng.random() < 0.7 else rng.choice(hints))
    lit = "'" + str(value).replace("'", "''") + "'"
    qual = alias if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", alias or "") else None
    colref = f"{qual}.{col.name}" if qual else col.name
    cond = f"{colref} = {lit}"
    reg = q.region(sc, "WHERE")
    if reg:
        has_or = q.conjuncts(reg[0], reg[1], sc.depth) is None
        if has_or:
            edits = [(q.toks[reg[0]].start, q.toks[reg[0]].start, f"{cond} AND ("),
                     (q.toks[reg[1] - 1].end, q.toks[reg[1] - 1].end, ")")]
        else:
            end = q.toks[reg[1] - 1].end
            edits = [(end, end, f" AND {cond}")]
    else:
        nxt = [v for k, v in sc.clauses.items() if k in ("GROUP_BY", "HAVING", "ORDER_BY", "LIMIT", "WINDOW")]
        if nxt:
            at = q.toks[min(nxt)].start
            edits = [(at, at, f"WHERE {cond} ")]
        else:
            at = q.toks[sc.end - 1].end
            edits = [(at, at, f" WHERE {cond}")]
    return _apply(q.sql, edits), f"unrequested filter added: {cond}"


def k_and_or_confusion(q: _Query, rng: random.Random):
    options = []
    for sc, kw, (a, b) in _condition_regions(q):
        d = sc.depth
        parts = q.conjuncts(a, b, d)
        # a AND (b OR c)  ->  a AND b OR c
        for k in range(a, b):
            t = q.toks[k]
            if t.type != "L_PAREN" or t.depth != d or (k > 0 and q.toks[k - 1].type in ("VAR", "IN", "EXISTS")):
                continue
            close = q.match(k)
            if close is None or close >= b:
                continue
            if q.toks[k + 1].type == "SELECT":
                continue
            if any(q.toks[m].type == "OR" and q.toks[m].depth == d + 1 for m in range(k + 1, close)) and parts and \
                    len(parts) > 1:
                options.append(([(t.start, t.end, ""), (q.toks[close].start, q.toks[close].end, "")],
                                "parentheses around an OR dropped (AND binds first)"))
        if parts and len(parts) > 1:
            between = set()
            for m in range(a, b):
                if q.toks[m].type == "BETWEEN":
                    nxt = next((u.i for u in q.toks[m + 1 : b] if u.type == "AND" and u.depth == q.toks[m].depth), None)
                    if nxt is not None:
                        between.add(nxt)
            ands = [q.toks[m] for m in range(a, b) if q.toks[m].type == "AND" and q.toks[m].depth == d and
                    m not in between]  # fmt: skip
            if ands:
                t = rng.choice(ands)
                options.append(([(t.start, t.end, "OR")], "AND written as OR"))
        ors = [q.toks[m] for m in range(a, b) if q.toks[m].type == "OR" and q.toks[m].depth == d]
        if ors:
            t = rng.choice(ors)
            options.append(([(t.start, t.end, "AND")], "OR written as AND"))
    # col IN ('a', 'b')  ->  col = 'a' AND col = 'b'  ("US and Canada")
    for t in q.toks:
        if t.type != "IN" or t.i + 1 >= len(q.toks) or q.toks[t.i + 1].type != "L_PAREN" or t.i < 1:
            continue
        if q.toks[t.i - 1].type == "NOT":
            continue
        close = q.match(t.i + 1)
        if close is None:
            continue
        vals = q.split(t.i + 2, close, t.depth + 1, "COMMA")
        if len(vals) < 2 or not all(e - s == 1 and q.toks[s].type in ("STRING", "NUMBER") for s, e in vals):
            continue
        k = t.i - 1
        if q.toks[k].type not in ("VAR", "IDENTIFIER"):
            continue
        start = k
        if k >= 2 and q.toks[k - 1].type == "DOT":
            start = k - 2
        col = q.src(start, t.i)
        rep = "(" + " AND ".join(f"{col} = {q.src(s, e)}" for s, e in vals) + ")"
        options.append(([(q.toks[start].start, q.toks[close].end, rep)], "IN list written as col = x AND col = y"))
    if not options:
        return None
    edits, note = rng.choice(options)
    return _apply(q.sql, edits), note


def k_outer_join_as_inner(q: _Query, rng: random.Random):
    """LEFT JOIN written as an inner JOIN: rows without a match (zero counts, anti-joins) are lost."""
    cands = []
    for t in q.toks:
        if t.type in ("LEFT", "RIGHT", "FULL"):
            j = t.i + 1
            if j < len(q.toks) and q.toks[j].type == "OUTER":
                j += 1
            if j < len(q.toks) and q.toks[j].type == "JOIN":
                cands.append((t.i, j))
    if not cands:
        return None
    a, j = rng.choice(cands)
    rep = "INNER JOIN" if rng.random() < 0.4 else "JOIN"
    return _apply(q.sql, [(q.toks[a].start, q.toks[j].end, rep)]), f"{q.src(a, j + 1)} written as {rep}"


def k_same_column_other_table(q: _Query, rng: random.Random):
    """x.name where y.name was meant: both joined tables have the column, the model took the other one."""
    from sqlglot import exp

    if q.tree is None:
        return None
    equated: set[tuple[int, str]] = set()  # (select id, column name) equated across tables: swapping is harmless
    for eq in q.tree.find_all(exp.EQ):
        left, right = eq.this, eq.expression
        if isinstance(left, exp.Column) and isinstance(right, exp.Column) and left.name.lower() == right.name.lower():
            sel = eq.find_ancestor(exp.Select)
            equated.add((id(sel), left.name.lower()))
    groups: dict[tuple, list] = {}
    for col, table, column, sel in q.resolved_columns():
        if col.args.get("table") is None or (id(sel), column.name.lower()) in equated:
            continue
        if col.find_ancestor(exp.Join) is not None:
            continue
        if isinstance(col.parent, exp.Count) or (isinstance(col.parent, exp.Distinct) and
                                                 isinstance(col.parent.parent, exp.Count)):  # fmt: skip
            continue  # COUNT(x.id) and COUNT(y.id) agree over an inner join
        for alias, other, _node in q.sources(sel):
            if alias.lower() == col.table.lower() or other.column(column.name) is None:
                continue
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", alias):
                continue
            groups.setdefault((id(sel), col.table.lower(), column.name.lower(), alias), []).append(col)
    if not groups:
        return None
    key = rng.choice(sorted(groups, key=lambda k: (k[1], k[2], k[3])))
    edits = []
    for col in groups[key]:
        sp = _span(col.args["table"])
        if sp:
            edits.append((sp[0], sp[1], key[3]))
    sql = _apply(q.sql, edits)
    return (sql, f"{key[3]}.{key[2]} used where {key[1]}.{key[2]} was meant (both tables have it)") if sql else None


def k_wrong_join_key(q: _Query, rng: random.Random):
    from sqlglot import exp

    if q.tree is None:
        return None
    resolved = {id(c): (t, col, s) for c, t, col, s in q.resolved_columns()}
    cands = []
    for eq in q.tree.find_all(exp.EQ):
        left, right = eq.this, eq.expression
        if not (isinstance(left, exp.Column) and isinstance(right, exp.Column)):
            continue
        if eq.find_ancestor(exp.Join, exp.Where) is None:
            continue
        if id(left) not in resolved or id(right) not in resolved:
            continue
        lt, lc, _ = resolved[id(left)]
        rt, rc, _ = resolved[id(right)]
        if lt.qualified_name == rt.qualified_name and (left.table or "") == (right.table or ""):
            continue
        for side, (tbl, col), (otbl, ocol) in ((right, (rt, rc), (lt, lc)), (left, (lt, lc), (rt, rc))):
            cls = _type_class(col.type)
            alts = []
            for c in tbl.columns:
                if c.name == col.name or _type_class(c.type) != cls:
                    continue
                w = 0
                if c.name.lower() == ocol.name.lower():
                    w = 4
                elif c.name.lower() in [p.lower() for p in tbl.primary_key] or c.name.lower() == "id":
                    w = 3
                elif _id_like(c.name):
                    w = 2
                if w:
                    alts.extend([c] * w)
            if alts:
                cands.append((side, col, rng.choice(alts), tbl))
    if not cands:
        return None
    side, col, alt, tbl = rng.choice(cands)
    sp = _span(side.this)
    if not sp:
        return None
    return _apply(q.sql, [(sp[0], sp[1], alt.name)]), f"join on {tbl.name}.{alt.name} instead of {tbl.name}.{col.name}"


_FLOAT_TYPES = {"REAL", "FLOAT", "DOUBLE", "NUMERIC", "DECIMAL", "FLOAT8", "FLOAT4"}


def k_integer_division(q: _Query, rng: random.Random):
    toks = q.toks
    edits = []
    slashes = [t.i for t in toks if t.type == "SLASH"]
    if not slashes:
        return None

    def near_slash(a: int, b: int) -> bool:
        return (a > 0 and toks[a - 1].type == "SLASH") or (b < len(toks) and toks[b].type == "SLASH")

    for t in toks:
        if q.is_call(t.i, {"CAST"}):
            call = q.call_args(t.i)
            if not call:
                continue
            close = call[0]
            as_i = next((u.i for u in toks[t.i + 2 : close] if u.type == "ALIAS" and u.depth == t.depth + 1), None)
            if as_i is None:
                continue
            typ = q.src(as_i + 1, close).upper().split("(")[0].strip()
            if typ.split()[0] not in _FLOAT_TYPES:
                continue
            if near_slash(t.i, close + 1):
                edits.append((t.start, toks[close].end, q.src(t.i + 2, as_i)))
        if t.type == "DCOLON" and t.i + 1 < len(toks) and toks[t.i + 1].up in _FLOAT_TYPES | {"DOUBLE"}:
            end = t.i + 2
            if end < len(toks) and toks[end].up == "PRECISION":
                end += 1
            if end < len(toks) and toks[end].type == "L_PAREN":
                close = q.match(end)
                end = close + 1 if close else end
            # the operand before :: is adjacent to a slash if the token after the type is a slash, or the
            # expression before ends a division
            if end < len(toks) and toks[end].type == "SLASH" or any(toks[k].type == "SLASH" and
                                                                      toks[k].depth == t.depth for k in
                                                                      range(max(0, t.i - 12), t.i)):  # noqa
                edits.append((t.start, toks[end - 1].end, ""))
        if t.type == "NUMBER" and re.fullmatch(r"1\.0+|100\.0+", t.text):
            nxt = toks[t.i + 1] if t.i + 1 < len(toks) else None
            prv = toks[t.i - 1] if t.i > 0 else None
            if t.text.startswith("1.") and nxt is not None and nxt.type == "STAR":
                edits.append((t.start, nxt.end + (1 if q.sql[nxt.end : nxt.end + 1] == " " else 0), ""))
            elif t.text.startswith("1.") and prv is not None and prv.type == "STAR":
                edits.append(_cut(q, t.i - 1, t.i + 1))
            elif t.text.startswith("100."):
                edits.append((t.start, t.end, "100"))
    if not edits:
        return None
    sql = _apply(q.sql, edits)
    return (sql, "float cast left out of a ratio: integer division") if sql else None


_SPELLING = {"United States": "USA", "US": "USA", "USA": "US", "UK": "United Kingdom", "New York": "NYC",
             "San Francisco": "SF", "Los Angeles": "LA", "Male": "M", "Female": "F", "M": "Male", "F": "Female",
             "CA": "California", "NY": "New York", "TX": "Texas"}  # fmt: skip


def _recase(text: str, rng: random.Random) -> str | None:
    if not re.search(r"[A-Za-z]", text):
        return None
    options = []
    if text != text.lower():
        options.append(text.lower())
    if text != text.upper() and len(text) <= 12:
        options.append(text.upper())
    if text == text.lower():
        options.append(text.title() if " " in text else text.capitalize())
    options = [o for o in options if o != text]
    return rng.choice(options) if options else None


def k_literal_mismatch(q: _Query, rng: random.Random):
    options = []
    toks = q.toks
    for t in toks:
        if t.type != "STRING" or t.i == 0:
            continue
        prev = toks[t.i - 1]
        raw = t.text
        if re.fullmatch(r"[\d\-: .%/]+", raw) or not re.search(r"[A-Za-z]", raw):
            continue
        if re.fullmatch(r"%?[YmdHMSwWjs%\-: ]+%?", raw) and "%" in raw:
            continue
        in_list = prev.type in ("COMMA", "L_PAREN") and any(
            u.type == "IN" for u in toks[max(0, t.i - 40) : t.i] if u.depth == t.depth - 1
        )
        if prev.type in ("EQ", "NEQ") or in_list:
            if raw in _SPELLING and rng.random() < 0.6:
                new = _SPELLING[raw]
            else:
                new = _recase(raw, rng)
            if new and new != raw:
                options.append(((t.start, t.end, "'" + new.replace("'", "''") + "'"), f"literal '{raw}' written as "
                                                                                      f"'{new}'"))
        elif prev.type in ("LIKE", "ILIKE"):
            core = raw.strip("%")
            if not core or "%" in core or "_" in core or "%" not in raw:
                continue
            lower_wrap = None
            if prev.i >= 1 and toks[prev.i - 1].type == "R_PAREN":
                op = next((k for k in range(prev.i - 2, -1, -1) if toks[k].type == "L_PAREN" and
                           toks[k].depth == toks[prev.i - 1].depth), None)  # fmt: skip
                if op is not None and op >= 1 and toks[op - 1].up in ("LOWER", "UPPER"):
                    lower_wrap = (op - 1, op, prev.i - 1)
            if q.dialect == "sqlite":
                # substring match written as an exact match
                new_lit = "'" + (core.title() if core == core.lower() else core).replace("'", "''") + "'"
                edits = [(prev.start, t.end, f"= {new_lit}")]
                if lower_wrap:
                    fn, op, close = lower_wrap
                    edits = [(toks[fn].start, toks[close].end, q.src(op + 1, close)), (prev.start, t.end,
                                                                                       f"= {new_lit}")]
                options.append((edits, f"LIKE '{raw}' written as an exact match {new_lit}"))
            else:
                new_core = _recase(core, rng) if core == core.lower() else core.lower()
                if not new_core:
                    continue
                new_raw = raw.replace(core, new_core)
                edits = [(prev.start, prev.end, "LIKE"), (t.start, t.end, "'" + new_raw.replace("'", "''") + "'")]
                if lower_wrap:
                    fn, op, close = lower_wrap
                    edits.append((toks[fn].start, toks[close].end, q.src(op + 1, close)))
                options.append((edits, f"case-insensitive match written as LIKE '{new_raw}' (case-sensitive)"))
    if not options:
        return None
    edits, note = rng.choice(options)
    if isinstance(edits, tuple):
        edits = [edits]
    sql = _apply(q.sql, edits)
    return (sql, note) if sql else None


def k_wrong_output_column(q: _Query, rng: random.Random):
    from sqlglot import exp

    if q.tree is None:
        return None
    main = q.tree
    if not isinstance(main, exp.Select):
        return None
    resolved = {id(c): (t, col) for c, t, col, s in q.resolved_columns() if s is main}
    selected_names = set()
    projections = []
    for proj in main.expressions:
        node = proj.this if isinstance(proj, exp.Alias) else proj
        if isinstance(node, exp.Column) and id(node) in resolved:
            projections.append(node)
            selected_names.add(node.name.lower())
    cands = []
    for node in projections:
        table, col = resolved[id(node)]
        cls, idish = _type_class(col.type), _id_like(col.name, table)
        words = set(_words(col.name))
        alts = []
        for c in table.columns:
            if c.name.lower() in selected_names or c.name == col.name or _type_class(c.type) != cls:
                continue
            if _id_like(c.name, table) != idish:
                continue
            w = 3 if words & set(_words(c.name)) else 1
            alts.extend([c] * w)
        close = [c for c in alts if words & set(_words(c.name))]
        alts = close or alts
        if alts:
            cands.append((node, table, col, rng.choice(alts)))
    if not cands:
        return None
    node, table, col, alt = rng.choice(cands)
    edits = []
    for c in main.find_all(exp.Column):
        if c.find_ancestor(exp.Select) is not main or c.find_ancestor(exp.Where, exp.Join, exp.Having) is not None:
            continue
        if c.name == node.name and (c.table or "").lower() == (node.table or "").lower():
            sp = _span(c.this)
            if sp:
                edits.append((sp[0], sp[1], alt.name))
    sql = _apply(q.sql, edits)
    return (sql, f"{table.name}.{alt.name} shown instead of {col.name}") if sql else None


def k_wrong_filter_column(q: _Query, rng: random.Random):
    """A condition put on a sibling column (to_airport for from_airport, last_name for first_name, city for state)."""
    from sqlglot import exp

    preds = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Like, exp.ILike, exp.In, exp.Between)
    cands = []
    for col, table, column, _sel in q.resolved_columns():
        if col.find_ancestor(exp.Where, exp.Having) is None or col.find_ancestor(exp.Join) is not None:
            continue
        parent = col.parent
        while isinstance(parent, (exp.Lower, exp.Upper, exp.Paren, exp.Cast, exp.Anonymous)) and parent is not None:
            parent = parent.parent
        if not isinstance(parent, preds):
            continue
        others = [n for n in parent.args.values() if isinstance(n, exp.Expression) and n is not col]
        if any(isinstance(n, exp.Column) for n in others):
            continue  # a join-like condition between two columns
        cls, idish = _type_class(column.type), _id_like(column.name, table)
        words = set(_words(column.name))
        alts = []
        for c in table.columns:
            if c.name.lower() == column.name.lower() or _type_class(c.type) != cls or _id_like(c.name, table) != idish:
                continue
            alts.extend([c] * (4 if words & set(_words(c.name)) else 1))
        close = [c for c in alts if words & set(_words(c.name))]
        alts = close or alts
        if alts:
            cands.append((col, table, column, rng.choice(alts)))
    if not cands:
        return None
    col, table, column, alt = rng.choice(cands)
    sp = _span(col.this)
    if not sp:
        return None
    sql = _apply(q.sql, [(sp[0], sp[1], alt.name)])
    return (sql, f"condition put on {table.name}.{alt.name} instead of {column.name}") if sql else None


def _in_window(q: _Query, k: int) -> bool:
    """Token k sits inside OVER (...) or an ORDER BY at any depth (sort helpers)."""
    for t in q.toks[:k]:
        if t.up == "OVER" and t.i + 1 < len(q.toks) and q.toks[t.i + 1].type == "L_PAREN":
            close = q.match(t.i + 1)
            if close is not None and t.i + 1 < k < close:
                return True
    return False


def k_null_comparison(q: _Query, rng: random.Random):
    options = []
    toks = q.toks
    for sc, kw, (a, b) in list(_condition_regions(q)) + [(None, "ON", (0, len(toks)))]:
        for k in range(a, b):
            t = toks[k]
            if t.type != "IS":
                continue
            if kw == "ON":  # IS NULL inside a CASE in the select list or an ON clause; not ORDER BY sort helpers
                sc2 = q.scope_of(k)
                ob = sc2.clauses.get("ORDER_BY") if sc2 else None
                if ob is not None and k > ob:
                    continue
                if _in_window(q, k):
                    continue
            if k + 1 < len(toks) and toks[k + 1].type == "NULL":
                options.append(((t.start, toks[k + 1].end, "= NULL"), "IS NULL written as = NULL"))
            elif k + 2 < len(toks) and toks[k + 1].type == "NOT" and toks[k + 2].type == "NULL":
                rep = rng.choice(("!= NULL", "<> NULL"))
                options.append(((t.start, toks[k + 2].end, rep), f"IS NOT NULL written as {rep}"))
    for t in toks:
        if q.is_call(t.i, {"COALESCE", "IFNULL"}):
            call = q.call_args(t.i)
            if call and len(call[1]) == 2:
                close, args = call
                options.append(((t.start, toks[close].end, q.src(*args[0])), "COALESCE() left out: NULLs kept"))
    options = list({o[0]: o for o in options}.values())
    if not options:
        return None
    edit, note = rng.choice(options)
    sql = _apply(q.sql, [edit])
    return (sql, note) if sql else None


_TODAYS = ("2023-10-01", "2024-01-15", "2023-12-31", "2024-06-30", "2023-06-15")


def k_hardcoded_today(q: _Query, rng: random.Random):
    day = rng.choice(_TODAYS)
    edits = []
    toks = q.toks
    for t in toks:
        if t.type == "CURRENT_DATE":
            edits.append((t.start, t.end, f"DATE '{day}'" if q.dialect == "postgres" else f"'{day}'"))
        elif t.type == "CURRENT_TIMESTAMP":
            edits.append((t.start, t.end, f"TIMESTAMP '{day} 00:00:00'" if q.dialect == "postgres" else
                          f"'{day} 00:00:00'"))  # fmt: skip
        elif t.up == "NOW" and q.is_call(t.i):
            close = q.match(t.i + 1)
            if close is not None and close == t.i + 2:
                edits.append((t.start, toks[close].end, f"TIMESTAMP '{day} 00:00:00'" if q.dialect == "postgres"
                              else f"'{day} 00:00:00'"))  # fmt: skip
        elif t.type == "STRING" and t.text.lower() == "now":
            edits.append((t.start, t.end, f"'{day}'"))
    if not edits:
        return None
    sql = _apply(q.sql, edits)
    return (sql, f"today hard-coded as {day}") if sql else None


_FMT_SWAP = {"%Y-%m": "%m", "%Y-%m-01": "%m", "%Y": "%Y-%m", "%m": "%Y-%m", "%Y-%W": "%W", "%W": "%m", "%w": "%d",
             "%Y-%m-%d": "%Y-%m", "%d": "%w", "%H": "%M", "%Y-%m-%d %H:00:00": "%H:00"}  # fmt: skip
_TRUNC_SWAP = {"month": ("week", "year"), "week": ("month", "day"), "year": ("month",), "day": ("week", "month"),
               "quarter": ("month",), "hour": ("day",)}  # fmt: skip
_EXTRACT_SWAP = {"YEAR": ("MONTH",), "MONTH": ("DAY", "WEEK"), "DOW": ("DAY",), "DAY": ("DOW",), "WEEK": ("MONTH",),
                 "HOUR": ("MINUTE",), "QUARTER": ("MONTH",), "ISODOW": ("DAY",), "DOY": ("DAY",)}  # fmt: skip


def k_wrong_date_granularity(q: _Query, rng: random.Random):
    options = []
    toks = q.toks

    def about_today(i: int) -> bool:
        call = q.call_args(i) if q.is_call(i) else None
        if not call:
            return False
        close = call[0]
        return any(u.type in ("CURRENT_DATE", "CURRENT_TIMESTAMP") or u.up == "NOW" or
                   (u.type == "STRING" and u.text.lower() == "now") for u in toks[i + 2 : close])  # fmt: skip

    for t in toks:
        if q.is_call(t.i) and about_today(t.i):
            continue
        if q.is_call(t.i, {"STRFTIME"}):
            call = q.call_args(t.i)
            if call and call[1] and toks[call[1][0][0]].type == "STRING":
                f = toks[call[1][0][0]]
                if f.text in _FMT_SWAP:
                    new = _FMT_SWAP[f.text]
                    options.append(((f.start, f.end, f"'{new}'"), f"strftime '{f.text}' written as '{new}'"))
        elif q.is_call(t.i, {"DATE_TRUNC"}):
            call = q.call_args(t.i)
            if call and call[1] and toks[call[1][0][0]].type == "STRING":
                f = toks[call[1][0][0]]
                alts = _TRUNC_SWAP.get(f.text.lower())
                if alts:
                    new = rng.choice(alts)
                    options.append(((f.start, f.end, f"'{new}'"), f"DATE_TRUNC '{f.text}' written as '{new}'"))
        elif q.is_call(t.i, {"EXTRACT", "DATE_PART"}):
            part = toks[t.i + 2] if t.i + 2 < len(toks) else None
            if part is None:
                continue
            key = part.text.strip("'").upper()
            alts = _EXTRACT_SWAP.get(key)
            if alts:
                new = rng.choice(alts)
                rep = new if part.type != "STRING" else f"'{new.lower()}'"
                options.append(((part.start, part.end, rep), f"{t.up} {key} written as {new}"))
        elif q.is_call(t.i, {"TO_CHAR"}):
            call = q.call_args(t.i)
            if call and len(call[1]) == 2 and toks[call[1][1][0]].type == "STRING":
                f = toks[call[1][1][0]]
                if "YYYY" in f.text and len(f.text) > 4:
                    new = f.text.replace("YYYY-", "").replace("YYYY", "")
                    options.append(((f.start, f.end, f"'{new}'"), f"TO_CHAR '{f.text}' written as '{new}'"))
        elif t.type == "STRING" and t.text.lower().startswith("start of ") and t.i > 1 and not any(
                u.type == "STRING" and u.text.lower() == "now" for u in toks[max(0, t.i - 6) : t.i]):
            unit = t.text.lower()[len("start of ") :]
            new = {"month": "year", "year": "month", "day": "month"}.get(unit)
            if new:
                options.append(((t.start, t.end, f"'start of {new}'"), f"'{t.text}' written as 'start of {new}'"))
    if not options:
        return None
    edit, note = rng.choice(options)
    sql = _apply(q.sql, [edit])
    return (sql, note) if sql else None


def k_clean(q: _Query, rng: random.Random):
    return _present(q.sql, q, rng), "the gold query, unchanged", True


_MAKERS = {
    "clean": k_clean,
    "invented_column": k_invented_column,
    "invented_table": k_invented_table,
    "column_from_wrong_table": k_column_from_wrong_table,
    "forgotten_join": k_forgotten_join,
    "ambiguous_column": k_ambiguous_column,
    "incomplete_group_by": k_incomplete_group_by,
    "foreign_date_function": k_foreign_date_function,
    "foreign_idiom": k_foreign_idiom,
    "syntax_slip": k_syntax_slip,
    "truncated_reply": k_truncated_reply,
    "sql_buried_in_prose": k_sql_buried_in_prose,
    "wrapped_output": k_wrapped_output,
    "draft_block_first": k_draft_block_first,
    "swapped_aggregate": k_swapped_aggregate,
    "same_column_other_table": k_same_column_other_table,
    "boundary_slip": k_boundary_slip,
    "flipped_sort": k_flipped_sort,
    "wrong_limit": k_wrong_limit,
    "dropped_condition": k_dropped_condition,
    "unrequested_filter": k_unrequested_filter,
    "and_or_confusion": k_and_or_confusion,
    "outer_join_as_inner": k_outer_join_as_inner,
    "wrong_join_key": k_wrong_join_key,
    "integer_division": k_integer_division,
    "literal_mismatch": k_literal_mismatch,
    "wrong_output_column": k_wrong_output_column,
    "wrong_filter_column": k_wrong_filter_column,
    "null_comparison": k_null_comparison,
    "hardcoded_today": k_hardcoded_today,
    "wrong_date_granularity": k_wrong_date_granularity,
}
