"""Held-out damage generator "fresh7": replies a small local model plausibly writes when it gets a question wrong.

Written from published text-to-SQL error analyses (BIRD / Spider error studies, DIN-SQL's and MAC-SQL's error
classes, CHESS's schema-linking failures), not from Cairn's repair code. Every damage is an in-place edit of the
gold text at positions found with sqlglot (tokens and node metadata), so whatever is not damaged stays
byte-identical; nothing is re-rendered, hence ``TREE_KINDS`` is empty.

Family A (the database rejects the reply, or the reply is broken): ghost_column, ghost_table, alias_mixup,
join_dropped, ambiguous_column, bare_group, foreign_dialect, literal_variant, syntax_slip, draft_then_final,
prose_only, truncated, date_format.
Family B (the reply runs but returns other rows): join_flip, distinct_lost, boundary_shift, aggregate_swap,
order_flip, condition_dropped, filter_column_swap.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.tokens import TokenType

__all__ = ["DAMAGE_KINDS", "TREE_KINDS", "Damaged", "damage"]

DAMAGE_KINDS: tuple[str, ...] = (
    "clean",
    # Family A
    "ghost_column",
    "ghost_table",
    "alias_mixup",
    "join_dropped",
    "ambiguous_column",
    "bare_group",
    "foreign_dialect",
    "literal_variant",
    "syntax_slip",
    "draft_then_final",
    "prose_only",
    "truncated",
    "date_format",
    # Family B
    "join_flip",
    "distinct_lost",
    "boundary_shift",
    "aggregate_swap",
    "order_flip",
    "condition_dropped",
    "filter_column_swap",
)

# Every kind edits the gold text in place; none re-renders through sqlglot.
TREE_KINDS: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Damaged:
    kind: str
    reply: str
    note: str


# --------------------------------------------------------------------------------------------------------------
# reply wrapping

_INTROS = (
    "Here's the SQL query to answer your question:",
    "Sure! The following query should work:",
    "Certainly. Here is the query:",
    "Below is a query that returns the requested data.",
    "You can use this query:",
    "To answer this, I joined the relevant tables and applied the filters you described.",
    "Based on the schema provided, here is the SQL:",
    "Yeh query aapke liye:",
    "Theek hai, yeh rahi aapki SQL query:",
    "Aapke sawaal ka jawab is query se milega:",
    "Ye query try kijiye:",
    "Bilkul! Neeche di gayi query dekhiye:",
)
_OUTROS = (
    "",
    "This query selects the requested columns and applies the necessary conditions.",
    "Let me know if you need any changes!",
    "Is query se aapko required result mil jayega.",
    "Note: adjust the column names if your schema differs.",
    "**Explanation:**\n- The query reads from the relevant table(s).\n- It applies the filters and returns the result.",
    "Agar koi aur column chahiye toh bata dijiye.",
    "Hope this helps!",
)
# "bare": the SQL alone, no prose and no fence; "loose": prose around an unfenced SQL (a format slip of its own,
# so never used for the clean kind).
_FENCES = ("```sql", "```sql", "```SQL", "```", "bare")


def _wrap(sql: str, rng: random.Random, *, fence: str | None | bool = False, closing: bool = True,
          loose_ok: bool = True) -> str:
    intro = rng.choice(_INTROS)
    outro = rng.choice(_OUTROS)
    if fence is False:
        fence = "loose" if loose_ok and rng.random() < 0.12 else rng.choice(_FENCES)
    if fence == "bare":
        return f"{sql}\n"
    if fence == "loose":
        body = f"{intro}\n\n{sql}\n"
    else:
        body = f"{intro}\n\n{fence}\n{sql}\n" + ("```\n" if closing else "")
    if outro and closing:
        body += f"\n{outro}\n"
    return body


# --------------------------------------------------------------------------------------------------------------
# parsing helpers


def _rng(gold: str, kind: str, seed: int) -> random.Random:
    h = hashlib.sha256(f"fresh7|{kind}|{seed}|{gold}".encode()).hexdigest()
    return random.Random(int(h[:16], 16))


def _guess_dialect(sql: str) -> str:
    low = sql.lower()
    if re.search(r"strftime|julianday|date\(\s*'now'|datetime\(\s*'now'", low):
        return "sqlite"
    return "postgres"


class _Ctx:
    def __init__(self, gold: str, schema) -> None:
        self.gold = gold
        self.dialect = _guess_dialect(gold)
        self.tree: exp.Expression | None = None
        self.tokens: list = []
        for d in (self.dialect, "postgres" if self.dialect == "sqlite" else "sqlite"):
            try:
                tree = sqlglot.parse_one(gold, read=d)
                toks = sqlglot.tokenize(gold, read=d)
            except Exception:
                continue
            if tree is not None:
                self.tree, self.tokens, self.dialect = tree, toks, d
                break
        # schema: lower table name -> {lower column name: (name, type)}
        self.tables: dict[str, dict[str, tuple[str, str]]] = {}
        self.table_names: dict[str, str] = {}
        for t in getattr(schema, "tables", ()):
            cols = {c.name.lower(): (c.name, str(c.type or "").lower()) for c in t.columns}
            self.tables.setdefault(t.name.lower(), cols)
            self.table_names.setdefault(t.name.lower(), t.name)
        self.all_columns = {c for cols in self.tables.values() for c in cols}

    # -- scopes -------------------------------------------------------------------------------------------------
    def scope_tables(self, node: exp.Expression) -> dict[str, str]:
        """alias (lower) -> schema table (lower) for the SELECT that holds ``node``."""
        sel = node if isinstance(node, exp.Select) else node.find_ancestor(exp.Select)
        out: dict[str, str] = {}
        if sel is None:
            return out
        for src in [sel.args.get("from_") or sel.args.get("from")] + list(sel.args.get("joins") or []):
            if src is None:
                continue
            t = src.this if isinstance(src, (exp.From, exp.Join)) else src
            if isinstance(t, exp.Table) and t.name.lower() in self.tables:
                out[(t.alias_or_name).lower()] = t.name.lower()
        return out

    def all_query_tables(self) -> dict[str, str]:
        out: dict[str, str] = {}
        if self.tree is None:
            return out
        for t in self.tree.find_all(exp.Table):
            if t.name.lower() in self.tables:
                out[t.alias_or_name.lower()] = t.name.lower()
        return out

    def resolve(self, col: exp.Column) -> str | None:
        """The schema table (lower) the column belongs to, or None."""
        name = col.name.lower()
        scope = self.scope_tables(col)
        q = col.table.lower() if col.table else ""
        if q:
            t = scope.get(q) or self.all_query_tables().get(q)
            return t if t and name in self.tables.get(t, {}) else None
        owners = {t for t in scope.values() if name in self.tables[t]}
        if len(owners) == 1:
            return owners.pop()
        return None

    def columns(self) -> list[exp.Column]:
        if self.tree is None:
            return []
        out = []
        for c in self.tree.find_all(exp.Column):
            if isinstance(c.this, exp.Identifier) and "start" in c.this.meta:
                out.append(c)
        return sorted(out, key=lambda c: c.this.meta["start"])

    # -- tokens -------------------------------------------------------------------------------------------------
    def tok_index_at(self, start: int) -> int | None:
        for i, t in enumerate(self.tokens):
            if t.start == start:
                return i
        return None


def _span(node: exp.Expression) -> tuple[int, int]:
    m = node.meta
    return m["start"], m["end"] + 1


def _edit(text: str, edits: list[tuple[int, int, str]]) -> str:
    for s, e, r in sorted(edits, key=lambda x: x[0], reverse=True):
        text = text[:s] + r + text[e:]
    return text


def _cut(text: str, s: int, e: int) -> str:
    """Remove text[s:e] and tidy the whitespace around the hole (one space or newline kept)."""
    left, right = text[:s], text[e:]
    if not right.strip() or right.lstrip().startswith((")", ";")):
        return left.rstrip() + right.lstrip(" \t") if right.lstrip(" \t").startswith((")", ";")) else left.rstrip() + right
    if left.endswith((" ", "\n", "\t")) and right.startswith((" ", "\n", "\t")):
        right = right.lstrip(" \t")
        if right.startswith("\n"):
            right = right[1:] if left.endswith("\n") else right
    elif left and right and not left[-1].isspace() and not right[0].isspace() and right[0] not in ",);":
        left += " "
    return left + right


_CLAUSE_STOPS = {
    TokenType.WHERE, TokenType.GROUP_BY, TokenType.ORDER_BY, TokenType.LIMIT, TokenType.HAVING,
    TokenType.UNION, TokenType.EXCEPT, TokenType.INTERSECT, TokenType.SEMICOLON, TokenType.WINDOW,
    TokenType.QUALIFY, TokenType.OFFSET, TokenType.FETCH,
}
_JOIN_START = {TokenType.JOIN, TokenType.INNER, TokenType.LEFT, TokenType.RIGHT, TokenType.FULL,
               TokenType.CROSS, TokenType.NATURAL, TokenType.OUTER}


def _clause_end(ctx: _Ctx, i: int, stops: set, text_len: int) -> tuple[int, int]:
    """From token i (exclusive), scan at depth 0 to the first stop token; return (end char, stop index)."""
    depth = 0
    toks = ctx.tokens
    j = i + 1
    while j < len(toks):
        t = toks[j]
        if t.token_type == TokenType.L_PAREN:
            depth += 1
        elif t.token_type == TokenType.R_PAREN:
            if depth == 0:
                return toks[j - 1].end + 1, j
            depth -= 1
        elif depth == 0 and t.token_type in stops:
            return toks[j - 1].end + 1, j
        j += 1
    return toks[-1].end + 1, len(toks)


# --------------------------------------------------------------------------------------------------------------
# name variants (hallucinations near a real name)

_SYNONYMS = {
    "name": ["full_name", "title", "username"], "title": ["name"], "amount": ["total_amount", "value"],
    "price": ["cost", "unit_price"], "cost": ["price"], "date": ["created_date", "order_date"],
    "id": ["_id", "uid"], "count": ["num", "total"], "total": ["sum", "amount"], "status": ["state"],
    "type": ["category", "kind"], "city": ["town", "city_name"], "state": ["state_name", "region"],
    "year": ["yr", "pub_year"], "rating": ["score", "stars"], "score": ["rating"],
    "description": ["desc", "details"], "email": ["email_address"], "phone": ["phone_number"],
    "country": ["nation", "country_name"], "quantity": ["qty"], "revenue": ["sales"], "sales": ["revenue"],
    "customer": ["client", "user"], "user": ["users", "customer"], "author": ["writer"],
    "paper": ["publication"], "publication": ["paper"], "salary": ["wage", "pay"],
}


def _camel(name: str) -> str:
    parts = name.split("_")
    return parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def _plural_flip(name: str) -> str:
    if name.endswith("ies"):
        return name[:-3] + "y"
    if name.endswith("ses") or name.endswith("xes"):
        return name[:-2]
    if name.endswith("s") and not name.endswith("ss"):
        return name[:-1]
    if name.endswith("y") and len(name) > 2 and name[-2] not in "aeiou":
        return name[:-1] + "ies"
    if name.endswith(("s", "x", "ch", "sh")):
        return name + "es"
    return name + "s"


def _variants(name: str, owner: str | None = None) -> list[str]:
    out: list[str] = [_plural_flip(name)]
    if "_" in name:
        out.append(_camel(name))
    elif re.search(r"[a-z][A-Z]", name):
        out.append(_snake(name))
    low = name.lower()
    # synonym of the last word (snake or camel)
    words = _snake(name).split("_")
    last = words[-1]
    for syn in _SYNONYMS.get(last, []):
        if "_" in name or not re.search(r"[a-z][A-Z]", name):
            out.append("_".join(words[:-1] + [syn]) if len(words) > 1 else syn)
        else:
            pre = name[: len(name) - len(last)]
            out.append(pre + _camel(syn)[:1].upper() + _camel(syn)[1:])
    if owner and len(words) == 1 and low not in ("id",):
        out.append(f"{_plural_flip(owner) if owner.endswith('s') else owner}_{low}")
    if low.endswith("_id"):
        out.append(low[:-3] + "id")
    seen: list[str] = []
    for v in out:
        if v and v.lower() != low and v not in seen:
            seen.append(v)
    return seen


# --------------------------------------------------------------------------------------------------------------
# kinds


def _k_ghost_column(ctx: _Ctx, rng: random.Random):
    cands = []
    for c in ctx.columns():
        t = ctx.resolve(c)
        if t:
            cands.append((c, t))
    if not cands:
        return None
    rng.shuffle(cands)
    used = {t for t in ctx.all_query_tables().values()}
    for col, table in cands:
        name = ctx.tables[table][col.name.lower()][0]
        vs = [v for v in _variants(col.name, table) if v.lower() not in ctx.tables[table]
              and all(v.lower() not in ctx.tables[u] for u in used)]
        if not vs:
            continue
        new = rng.choice(vs)
        edits = []
        for c in ctx.columns():
            if c.name.lower() == col.name.lower() and ctx.resolve(c) == table:
                s, e = _span(c.this)
                quoted = ctx.gold[s] in "\"`"
                edits.append((s, e, f'"{new}"' if quoted else new))
        return _edit(ctx.gold, edits), f"column {table}.{name} written as non-existent {new}"
    return None


def _k_ghost_table(ctx: _Ctx, rng: random.Random):
    if ctx.tree is None:
        return None
    tabs = [t for t in ctx.tree.find_all(exp.Table)
            if t.name.lower() in ctx.tables and "start" in t.this.meta]
    if not tabs:
        return None
    rng.shuffle(tabs)
    for tab in tabs:
        real = tab.name
        vs = [v for v in _variants(real) if v.lower() not in ctx.tables]
        vs += [v for v in (f"tbl_{real}", f"{real}_table", f"{real}_info") if v.lower() not in ctx.tables]
        if not vs:
            continue
        new = rng.choice(vs[:3]) if rng.random() < 0.8 else rng.choice(vs)
        edits = []
        for t in ctx.tree.find_all(exp.Table):
            if t.name.lower() == real.lower() and "start" in t.this.meta:
                s, e = _span(t.this)
                edits.append((s, e, new))
                if not t.alias:
                    # unaliased: the model uses its own (wrong) name as the qualifier too
                    for c in ctx.columns():
                        q = c.args.get("table")
                        if q is not None and q.name.lower() == real.lower() and "start" in q.meta:
                            qs, qe = _span(q)
                            if (qs, qe, new) not in edits:
                                edits.append((qs, qe, new))
        return _edit(ctx.gold, edits), f"table {real} written as non-existent {new}"
    return None


def _k_alias_mixup(ctx: _Ctx, rng: random.Random):
    cands = []
    for c in ctx.columns():
        q = c.args.get("table")
        if q is None or "start" not in q.meta:
            continue
        scope = ctx.scope_tables(c)
        mine = scope.get(q.name.lower())
        if not mine:
            continue
        others = [a for a, t in scope.items()
                  if a != q.name.lower() and c.name.lower() not in ctx.tables[t]]
        if others:
            cands.append((c, q, others))
    if not cands:
        return None
    c, q, others = rng.choice(cands)
    other = rng.choice(sorted(others))
    # keep the alias spelling used in the text
    spelled = other
    for c2 in ctx.columns():
        q2 = c2.args.get("table")
        if q2 is not None and q2.name.lower() == other and "start" in q2.meta:
            spelled = ctx.gold[q2.meta["start"]: q2.meta["end"] + 1]
            break
    s, e = _span(q)
    return _edit(ctx.gold, [(s, e, spelled)]), f"{q.name}.{c.name} qualified with the wrong alias {spelled}"


def _join_token_span(ctx: _Ctx, join: exp.Join) -> tuple[int, int] | None:
    tab = join.this
    ident = tab.this if isinstance(tab, exp.Table) else None
    if ident is None or "start" not in ident.meta:
        return None
    i = ctx.tok_index_at(ident.meta["start"])
    if i is None:
        return None
    k = i - 1
    while k >= 0 and ctx.tokens[k].token_type != TokenType.JOIN:
        k -= 1
    if k < 0:
        return None
    while k - 1 >= 0 and ctx.tokens[k - 1].token_type in _JOIN_START:
        k -= 1
    return k, i


def _k_join_dropped(ctx: _Ctx, rng: random.Random):
    if ctx.tree is None:
        return None
    joins = [j for j in ctx.tree.find_all(exp.Join) if isinstance(j.this, exp.Table)]
    rng.shuffle(joins)
    for j in joins:
        alias = j.this.alias_or_name.lower()
        sp = _join_token_span(ctx, j)
        if sp is None:
            continue
        k, i = sp
        end, _ = _clause_end(ctx, i, _CLAUSE_STOPS | _JOIN_START, len(ctx.gold))
        start = ctx.tokens[k].start
        # the alias must still be referenced outside the removed clause
        refs = [c for c in ctx.columns() if c.table and c.table.lower() == alias
                and not (start <= c.this.meta["start"] < end)]
        if not refs:
            continue
        return _cut(ctx.gold, start, end), f"JOIN of {j.this.name} removed while {alias} is still referenced"
    return None


def _k_ambiguous_column(ctx: _Ctx, rng: random.Random):
    cands = []
    for c in ctx.columns():
        q = c.args.get("table")
        if q is None or "start" not in q.meta:
            continue
        scope = ctx.scope_tables(c)
        if len(scope) < 2:
            continue
        owners = [a for a, t in scope.items() if c.name.lower() in ctx.tables[t]]
        if len(owners) >= 2:
            cands.append(c)
    if not cands:
        return None
    # prefer columns of the SELECT list (what a model most often leaves bare)
    sel_cands = [c for c in cands if isinstance(c.parent, (exp.Select, exp.Alias))]
    c = rng.choice(sel_cands or cands)
    qs = c.args["table"].meta["start"]
    cs = c.this.meta["start"]
    return _edit(ctx.gold, [(qs, cs, "")]), f"{c.table}.{c.name} left unqualified though several joined tables have {c.name}"


_AGGS = (exp.Count, exp.Sum, exp.Avg, exp.Max, exp.Min)


def _group_token(ctx: _Ctx, group: exp.Group) -> int | None:
    firsts = []
    for e in group.expressions:
        for n in e.walk():
            if isinstance(n, (exp.Identifier, exp.Literal)) and "start" in n.meta:
                firsts.append(n.meta["start"])
    if not firsts:
        return None
    i = ctx.tok_index_at(min(firsts))
    while i is not None and i >= 0 and ctx.tokens[i].token_type != TokenType.GROUP_BY:
        i -= 1
    return i if i is not None and i >= 0 else None


def _k_bare_group(ctx: _Ctx, rng: random.Random):
    """A bare column beside an aggregate with no GROUP BY (dropped) or a partial one (a key left out)."""
    if ctx.tree is None:
        return None
    toks = ctx.tokens
    sels = [s for s in ctx.tree.find_all(exp.Select) if s.args.get("group")]
    rng.shuffle(sels)
    for s in sels:
        bare = [e for e in s.expressions if not e.find(*_AGGS) and not e.find(exp.Window) and e.find(exp.Column)]
        has_agg = any(e.find(*_AGGS) for e in s.expressions)
        if not bare or not has_agg:
            continue
        i = _group_token(ctx, s.args["group"])
        if i is None:
            continue
        end, stop = _clause_end(ctx, i, _CLAUSE_STOPS - {TokenType.GROUP_BY}, len(ctx.gold))
        keys: list[list[int]] = [[]]
        depth = 0
        for j in range(i + 1, stop):
            tt = toks[j].token_type
            depth += tt == TokenType.L_PAREN
            depth -= tt == TokenType.R_PAREN
            if depth == 0 and tt == TokenType.COMMA:
                keys.append([])
            else:
                keys[-1].append(j)
        keys = [k for k in keys if k]
        if len(keys) >= 2 and rng.random() < 0.5:
            # partial GROUP BY: one key left out (not the first, which is usually the entity's key)
            n = rng.randrange(1, len(keys))
            k = keys[n]
            prev_end = toks[keys[n - 1][-1]].end + 1
            e = toks[k[-1]].end + 1
            key_text = ctx.gold[toks[k[0]].start: e]
            return ctx.gold[:prev_end] + ctx.gold[e:], f"partial GROUP BY: key {key_text} left out beside bare columns"
        return _cut(ctx.gold, toks[i].start, end), "GROUP BY dropped beside an aggregate and bare columns"
    return None


def _k_foreign_dialect(ctx: _Ctx, rng: random.Random):
    g = ctx.gold
    opts: list[tuple[str, str]] = []
    # T-SQL TOP instead of LIMIT (outermost)
    if isinstance(ctx.tree, exp.Select) and ctx.tree.args.get("limit") is not None:
        m = re.search(r"\bLIMIT\s+(\d+)\s*;?\s*$", g, re.I)
        s = re.match(r"\s*SELECT(\s+DISTINCT)?\s", g, re.I)
        if m and s:
            new = g[: s.end()] + f"TOP {m.group(1)} " + g[s.end(): m.start()].rstrip() + g[m.end():].replace(";", "") + (";" if g.rstrip().endswith(";") else "")
            opts.append((new, "T-SQL SELECT TOP n instead of LIMIT"))
    for m in re.finditer(r"\bCOALESCE\s*\(", g, re.I):
        opts.append((g[: m.start()] + rng.choice(["ISNULL(", "IFNULL(", "NVL("]) + g[m.end():], "COALESCE written as another dialect's null function"))
        break
    m = re.search(r"(CURRENT_DATE|CURRENT_TIMESTAMP|NOW\(\))\s*-\s*INTERVAL\s*'(\d+)\s*(day|week|month|year)s?'", g, re.I)
    if m is None:
        m = re.search(r"(?:DATE|DATETIME)\(\s*'now'\s*,\s*'-(\d+)\s*(day|month|year)s?'\s*\)", g, re.I)
        if m:
            n, unit = m.group(1), m.group(2)
            opts.append((g[: m.start()] + f"DATEADD({unit.lower()}, -{n}, GETDATE())" + g[m.end():], "T-SQL DATEADD/GETDATE for a relative date"))
    else:
        n, unit = m.group(2), m.group(3)
        opts.append((g[: m.start()] + f"DATEADD({unit.lower()}, -{n}, GETDATE())" + g[m.end():], "T-SQL DATEADD/GETDATE for a relative date"))
    m = re.search(r"\bNOW\(\)|\bCURRENT_DATE\b|\bCURRENT_TIMESTAMP\b|\bDATE\(\s*'now'\s*\)", g, re.I)
    if m:
        opts.append((g[: m.start()] + rng.choice(["GETDATE()", "SYSDATE()", "CURDATE()"]) + g[m.end():], "another dialect's current-date function"))
    m = re.search(r"\bEXTRACT\s*\(\s*(YEAR|MONTH)\s+FROM\s+([\w.\"]+)\s*\)", g, re.I) or \
        re.search(r"\bCAST\s*\(\s*STRFTIME\s*\(\s*'%(Y|m)'\s*,\s*([\w.\"]+)\s*\)\s+AS\s+INTEGER\s*\)", g, re.I) or \
        re.search(r"\bSTRFTIME\s*\(\s*'%(Y|m)'\s*,\s*([\w.\"]+)\s*\)", g, re.I)
    if m:
        fn = "YEAR" if m.group(1).upper() == "Y" or m.group(1).upper() == "YEAR" else "MONTH"
        opts.append((g[: m.start()] + f"{fn}({m.group(2)})" + g[m.end():], f"MySQL/T-SQL {fn}() for a date part"))
    m = re.search(r"\bDATE_TRUNC\s*\(\s*'(month|year|week|day)'\s*,\s*([\w.\"]+)\s*\)", g, re.I)
    if m:
        fmt = {"month": "%Y-%m-01", "year": "%Y-01-01", "week": "%Y-%u", "day": "%Y-%m-%d"}[m.group(1).lower()]
        opts.append((g[: m.start()] + f"DATE_FORMAT({m.group(2)}, '{fmt}')" + g[m.end():], "MySQL DATE_FORMAT for DATE_TRUNC"))
    m = re.search(r"\bCAST\s*\(\s*([\w.\"]+(?:\([^()]*\))?)\s+AS\s+(FLOAT|REAL|DECIMAL|NUMERIC|DOUBLE PRECISION)\s*\)", g, re.I)
    if m:
        opts.append((g[: m.start()] + f"CONVERT(FLOAT, {m.group(1)})" + g[m.end():], "T-SQL CONVERT for CAST"))
    m = re.search(r"\bLENGTH\s*\(", g, re.I)
    if m:
        opts.append((g[: m.start()] + "LEN(" + g[m.end():], "T-SQL LEN for LENGTH"))
    if not opts:
        return None
    return rng.choice(opts)


_DATE_RE = re.compile(r"^\d{4}-\d\d(-\d\d)?([ T][\d:.]+)?$")


def _k_literal_variant(ctx: _Ctx, rng: random.Random):
    if ctx.tree is None:
        return None
    cands = []
    for lit in ctx.tree.find_all(exp.Literal):
        if not lit.is_string or "start" not in lit.meta:
            continue
        v = lit.this
        if not re.search(r"[A-Za-z]", v) or _DATE_RE.match(v) or "%" in v or len(v) > 40:
            continue
        p = lit.parent
        while isinstance(p, (exp.Tuple, exp.Paren)):
            p = p.parent
        if not isinstance(p, (exp.EQ, exp.NEQ, exp.In)):
            continue
        other = p.this if isinstance(p, exp.In) else (p.left if p.right is lit else p.right)
        if isinstance(p, exp.In) and lit not in p.expressions:
            continue
        if not (other is not None and other.find(exp.Column)):
            continue
        cands.append(lit)
    if not cands:
        return None
    lit = rng.choice(cands)
    v = lit.this
    opts = []
    if v.islower():
        opts += [v.capitalize(), v.upper()] if v != v.capitalize() else [v.upper()]
    elif v.isupper():
        opts += [v.lower(), v.title()]
    else:
        opts += [v.lower(), v.upper()]
    if re.fullmatch(r"[A-Za-z ]+", v) and len(v) > 3:
        opts.append(_plural_flip(v))
    if "_" in v:
        opts.append(v.replace("_", " "))
    if " " in v:
        opts.append(v.replace(" ", "_"))
    opts = [o for o in opts if o != v]
    if not opts:
        return None
    new = rng.choice(opts)
    s, e = _span(lit)
    return _edit(ctx.gold, [(s, e, "'" + new.replace("'", "''") + "'")]), f"categorical value '{v}' written as '{new}'"


def _k_syntax_slip(ctx: _Ctx, rng: random.Random):
    toks = ctx.tokens
    if not toks:
        return None
    opts = []
    rp = [t for t in toks if t.token_type == TokenType.R_PAREN]
    if rp:
        t = rng.choice(rp)
        opts.append((ctx.gold[: t.start] + ctx.gold[t.end + 1:], "a closing parenthesis is missing"))
    depth = []
    d = 0
    for t in toks:
        if t.token_type == TokenType.R_PAREN:
            d -= 1
        depth.append(d)
        if t.token_type == TokenType.L_PAREN:
            d += 1
    froms = []
    for i, t in enumerate(toks):
        if t.token_type != TokenType.FROM or i == 0:
            continue
        for k in range(i - 1, -1, -1):
            if depth[k] < depth[i]:
                break
            if depth[k] == depth[i] and toks[k].token_type == TokenType.SELECT:
                froms.append(i)
                break
    if froms:
        p = toks[rng.choice(froms) - 1]
        opts.append((ctx.gold[: p.end + 1] + "," + ctx.gold[p.end + 1:], "a trailing comma before FROM"))
    if not opts:
        return None
    return rng.choice(opts)


_DATE_LIT = re.compile(r"'(\d{4})-(\d\d)-(\d\d)([ T][\d:.]+)?'")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _k_date_format(ctx: _Ctx, rng: random.Random):
    g = ctx.gold
    ms = list(_DATE_LIT.finditer(g))
    if ms:
        style = rng.choice(["dmy_slash", "dmy_dash", "dmy_dot", "dmy_slash"])
        edits = []
        for m in ms:
            y, mo, d, rest = m.group(1), m.group(2), m.group(3), m.group(4) or ""
            if style == "dmy_slash":
                new = f"'{d}/{mo}/{y}{rest}'"
            elif style == "dmy_dash":
                new = f"'{d}-{mo}-{y}{rest}'"
            else:
                new = f"'{d}.{mo}.{y}{rest}'"
            edits.append((m.start(), m.end(), new))
        return _edit(g, edits), "date literal(s) written day-first instead of ISO YYYY-MM-DD"
    # relative dates: the interval / modifier written in another dialect's date format
    m = re.search(r"INTERVAL\s*'(\d+)\s*(day|week|month|year|hour|minute)s?'", g, re.I)
    if m:
        return (g[: m.start()] + f"INTERVAL {m.group(1)} {m.group(2).upper()}" + g[m.end():],
                "interval written MySQL-style (INTERVAL n UNIT) instead of INTERVAL 'n units'")
    m = re.search(r"'([-+])(\d+)\s*(day|month|year|hour|minute)s?'", g, re.I)
    if m:
        unit = m.group(3).lower()
        iso = {"day": "D", "month": "M", "year": "Y"}.get(unit)
        new = f"'{m.group(1)}P{m.group(2)}{iso}'" if iso and rng.random() < 0.5 else f"'{m.group(2)} {unit}s ago'" if m.group(1) == "-" else f"'in {m.group(2)} {unit}s'"
        return g[: m.start()] + new + g[m.end():], f"date modifier written as {new} instead of '{m.group(1)}N {unit}s'"
    return None


def _k_join_flip(ctx: _Ctx, rng: random.Random):
    """LEFT -> INNER where the gold keeps unmatched rows on purpose; INNER -> LEFT only where it can add rows:
    the joined table is a child (its join column is not its key) and no WHERE filter on it undoes the LEFT."""
    if ctx.tree is None:
        return None
    toks = ctx.tokens
    lefts, inners = [], []
    for j in ctx.tree.find_all(exp.Join):
        if not isinstance(j.this, exp.Table):
            continue
        sp = _join_token_span(ctx, j)
        if sp is None:
            continue
        k, i = sp
        kinds = {t.token_type for t in toks[k:i]}
        if kinds & {TokenType.CROSS, TokenType.FULL, TokenType.RIGHT, TokenType.NATURAL}:
            continue
        jt = k
        while toks[jt].token_type != TokenType.JOIN:
            jt += 1
        if TokenType.LEFT in kinds:
            lefts.append((k, jt, j))
            continue
        alias = j.this.alias_or_name.lower()
        table = j.this.name.lower()
        sel = j.find_ancestor(exp.Select)
        where = sel.args.get("where") if sel is not None else None
        if where is not None and any(c.table.lower() == alias for c in where.find_all(exp.Column)):
            continue
        on = j.args.get("on")
        if on is None or table not in ctx.tables:
            continue
        key_cols = [c.name.lower() for c in on.find_all(exp.Column) if c.table.lower() == alias]
        first = next(iter(ctx.tables[table]), None)
        if not key_cols or all(c == first or c == "id" for c in key_cols):
            continue
        inners.append((k, jt, j))
    if lefts:
        k, jt, j = rng.choice(lefts)
        new = "JOIN" if rng.random() < 0.5 else "INNER JOIN"
        note = f"LEFT JOIN {j.this.name} turned into an inner join"
    elif inners:
        k, jt, j = rng.choice(inners)
        new, note = "LEFT JOIN", f"inner join of {j.this.name} turned into LEFT JOIN"
    else:
        return None
    return _edit(ctx.gold, [(toks[k].start, toks[jt].end + 1, new)]), note


def _k_distinct_lost(ctx: _Ctx, rng: random.Random):
    """COUNT(DISTINCT x) -> COUNT(x) where duplicates can exist: a join fans rows out, or the counted column is
    not the table's key. SELECT DISTINCT -> SELECT only inside a query that counts over it."""
    if ctx.tree is None:
        return None
    toks = ctx.tokens
    # a join fans rows out when the joined table is a child: its ON column is not its key (first column / id)
    has_join = False
    for j in ctx.tree.find_all(exp.Join):
        on = j.args.get("on")
        if not isinstance(j.this, exp.Table) or on is None or j.this.name.lower() not in ctx.tables:
            continue
        alias = j.this.alias_or_name.lower()
        first = next(iter(ctx.tables[j.this.name.lower()]), None)
        mine = [c.name.lower() for c in on.find_all(exp.Column) if c.table.lower() == alias]
        if mine and any(c not in (first, "id") for c in mine):
            has_join = True

    def keyish(cols) -> bool:
        for c in cols:
            t = ctx.resolve(c)
            if t is None:
                continue
            first = next(iter(ctx.tables[t]), None)
            if c.name.lower() in (first, "id"):
                return True
        return False

    counts, selects = [], []
    for i, t in enumerate(toks):
        if t.token_type != TokenType.DISTINCT or i == 0:
            continue
        prev = toks[i - 1].token_type
        if prev == TokenType.L_PAREN:
            counts.append(i)
        elif prev == TokenType.SELECT:
            selects.append(i)
    good_counts = []
    for c in ctx.tree.find_all(exp.Count):
        d = c.this
        if isinstance(d, exp.Distinct) and (has_join or not keyish(d.find_all(exp.Column))):
            firsts = [n.meta["start"] for n in d.walk() if "start" in n.meta]
            if firsts:
                i = ctx.tok_index_at(min(firsts))
                while i is not None and i > 0 and toks[i].token_type != TokenType.DISTINCT:
                    i -= 1
                if i is not None and i in counts:
                    good_counts.append(i)
    good_selects = []
    for sel in ctx.tree.find_all(exp.Select):
        if sel.args.get("distinct") is None:
            continue
        cols = [c for e in sel.expressions for c in e.find_all(exp.Column)]
        if has_join or not keyish(cols):
            firsts = [n.meta["start"] for e in sel.expressions for n in e.walk() if "start" in n.meta]
            if firsts:
                i = ctx.tok_index_at(min(firsts))
                while i is not None and i > 0 and toks[i].token_type != TokenType.DISTINCT:
                    i -= 1
                if i is not None and i in selects:
                    good_selects.append(i)
    # rows are compared as sets, so SELECT DISTINCT -> SELECT only matters beside a count; keep it as a
    # fallback for queries whose only DISTINCT is on the select list and that also aggregate
    pool = good_counts or [i for i in good_selects
                           if any(e.find(*_AGGS) for sel in ctx.tree.find_all(exp.Select) for e in sel.expressions)
                           and ctx.tree.find(exp.Subquery) is not None]
    if not pool:
        return None
    i = rng.choice(pool)
    t = toks[i]
    end = t.end + 1
    while end < len(ctx.gold) and ctx.gold[end] in " \t\n":
        end += 1
    where = "COUNT(DISTINCT ...)" if toks[i - 1].token_type == TokenType.L_PAREN else "SELECT DISTINCT"
    return ctx.gold[: t.start] + ctx.gold[end:], f"DISTINCT dropped from {where}"


_FLIP_CMP = {TokenType.GT: ">=", TokenType.GTE: ">", TokenType.LT: "<=", TokenType.LTE: "<"}


def _k_boundary_shift(ctx: _Ctx, rng: random.Random):
    """> vs >= (and < vs <=) against a literal threshold, where a row sitting on the boundary is plausible."""
    if ctx.tree is None:
        return None
    toks = ctx.tokens
    cands = []
    for node in ctx.tree.find_all(exp.GT, exp.GTE, exp.LT, exp.LTE):
        lit_right = isinstance(node.right, exp.Literal) or (isinstance(node.right, exp.Neg) and isinstance(node.right.this, exp.Literal))
        lit_left = isinstance(node.left, exp.Literal)
        if not (lit_right or lit_left):
            continue
        lit = node.right if lit_right else node.left
        lit = lit.this if isinstance(lit, exp.Neg) else lit
        if "start" not in lit.meta:
            continue
        if lit_right:
            idx = [i for i, t in enumerate(toks) if t.end < lit.meta["start"] and t.token_type in _FLIP_CMP]
            if idx:
                cands.append(toks[idx[-1]])
        else:
            idx = [i for i, t in enumerate(toks) if t.start > lit.meta["end"] and t.token_type in _FLIP_CMP]
            if idx:
                cands.append(toks[idx[0]])
    if not cands:
        return None
    t = rng.choice(cands)
    new = _FLIP_CMP[t.token_type]
    return _edit(ctx.gold, [(t.start, t.end + 1, new)]), f"comparison {t.text} written as {new}"


def _k_aggregate_swap(ctx: _Ctx, rng: random.Random):
    toks = ctx.tokens
    swaps = {"SUM": ["COUNT", "AVG"], "AVG": ["SUM", "MAX"], "COUNT": ["SUM"], "MAX": ["MIN"], "MIN": ["MAX"]}
    cands = []
    for i, t in enumerate(toks[:-2]):
        name = t.text.upper()
        if name in swaps and toks[i + 1].token_type == TokenType.L_PAREN:
            if name == "COUNT" and toks[i + 2].token_type == TokenType.STAR:
                continue
            cands.append(t)
    if not cands:
        return None
    t = rng.choice(cands)
    new = rng.choice(swaps[t.text.upper()])
    if t.text.islower():
        new = new.lower()
    return _edit(ctx.gold, [(t.start, t.end + 1, new)]), f"aggregate {t.text.upper()} written as {new.upper()}"


def _k_order_flip(ctx: _Ctx, rng: random.Random):
    if ctx.tree is None:
        return None
    toks = ctx.tokens
    cands = []
    for sel in ctx.tree.find_all(exp.Select):
        if sel.args.get("limit") is None or sel.args.get("order") is None:
            continue
        cands.append(sel)
    if not cands:
        return None
    sel = rng.choice(cands)
    # the ORDER BY token of this select: before its first ordered expression
    firsts = [n.meta["start"] for n in sel.args["order"].walk() if "start" in n.meta]
    if not firsts:
        return None
    i = ctx.tok_index_at(min(firsts))
    while i is not None and i >= 0 and toks[i].token_type != TokenType.ORDER_BY:
        i -= 1
    if i is None or i < 0:
        return None
    # split the ORDER BY list into keys at depth 0
    keys: list[list[int]] = [[]]
    depth = 0
    j = i + 1
    while j < len(toks):
        tt = toks[j].token_type
        if tt == TokenType.L_PAREN:
            depth += 1
        elif tt == TokenType.R_PAREN:
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and tt in (TokenType.LIMIT, TokenType.SEMICOLON, TokenType.OFFSET):
            break
        if depth == 0 and tt == TokenType.COMMA:
            keys.append([])
        else:
            keys[-1].append(j)
        j += 1
    keys = [k for k in keys if k]
    if not keys:
        return None
    # skip the "CASE WHEN x IS NULL THEN 1 ELSE 0 END" null-placement keys: flipping those is not the slip
    real = [k for k in keys if not (toks[k[0]].token_type == TokenType.CASE
                                    and any(toks[x].token_type == TokenType.IS for x in k))]
    key = (real or keys)[0]
    d = 0
    for x in key:
        tt = toks[x].token_type
        d += tt == TokenType.L_PAREN
        d -= tt == TokenType.R_PAREN
        if d == 0 and tt == TokenType.DESC:
            return _edit(ctx.gold, [(toks[x].start, toks[x].end + 1, "ASC")]), "ORDER BY DESC flipped to ASC before LIMIT"
        if d == 0 and tt == TokenType.ASC:
            return _edit(ctx.gold, [(toks[x].start, toks[x].end + 1, "DESC")]), "ORDER BY ASC flipped to DESC before LIMIT"
    last = key[-1]
    for x in key:
        if toks[x].text.upper() == "NULLS":
            last = x - 1
            break
    at = toks[last].end + 1
    return _edit(ctx.gold, [(at, at, " DESC")]), "ORDER BY ascending flipped to DESC before LIMIT"


def _k_condition_dropped(ctx: _Ctx, rng: random.Random):
    toks = ctx.tokens
    wheres = [i for i, t in enumerate(toks) if t.token_type == TokenType.WHERE]
    if not wheres:
        return None
    i = rng.choice(wheres)
    end, stop = _clause_end(ctx, i, _CLAUSE_STOPS | _JOIN_START, len(ctx.gold))
    # split the condition on top-level AND (not the AND of BETWEEN)
    parts = []
    depth = 0
    between = False
    start_tok = i + 1
    for j in range(i + 1, stop):
        tt = toks[j].token_type
        if tt == TokenType.L_PAREN:
            depth += 1
        elif tt == TokenType.R_PAREN:
            depth -= 1
        elif depth == 0 and tt == TokenType.BETWEEN:
            between = True
        elif depth == 0 and tt == TokenType.AND:
            if between:
                between = False
                continue
            parts.append((start_tok, j - 1, j))
            start_tok = j + 1
        elif depth == 0 and tt == TokenType.OR:
            return _cut(ctx.gold, toks[i].start, end), "WHERE clause dropped"
    parts.append((start_tok, stop - 1, None))
    if len(parts) == 1:
        return _cut(ctx.gold, toks[i].start, end), "WHERE clause dropped"
    n = rng.randrange(len(parts))
    a, b, and_j = parts[n]
    cond = ctx.gold[toks[a].start: toks[b].end + 1]
    if and_j is not None:  # drop "cond AND "
        s, e = toks[a].start, toks[and_j + 1].start
    else:  # last: drop " AND cond"
        s, e = toks[parts[n - 1][2]].start, toks[b].end + 1
        s2 = s
        while s2 > 0 and ctx.gold[s2 - 1] in " \t\n":
            s2 -= 1
        s = s2
    return ctx.gold[:s] + ctx.gold[e:], f"WHERE condition dropped: {' '.join(cond.split())[:80]}"


def _k_filter_column_swap(ctx: _Ctx, rng: random.Random):
    if ctx.tree is None:
        return None
    cands = []
    for w in ctx.tree.find_all(exp.Where):
        for c in w.find_all(exp.Column):
            if "start" not in c.this.meta or c.find_ancestor(*_AGGS) is not None:
                continue
            p = c.parent
            if not isinstance(p, (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.In, exp.Like,
                                  exp.ILike, exp.Between, exp.Is)):
                continue
            if isinstance(p, exp.EQ) and isinstance(p.left, exp.Column) and isinstance(p.right, exp.Column):
                continue  # join-style equality
            t = ctx.resolve(c)
            if not t:
                continue
            typ = ctx.tables[t][c.name.lower()][1]
            alts = [v[0] for k, v in ctx.tables[t].items() if k != c.name.lower() and v[1] == typ
                    and not k.endswith("id") and k != "id"]
            if alts:
                cands.append((c, t, alts))
    if not cands:
        return None
    c, t, alts = rng.choice(cands)
    new = rng.choice(sorted(alts))
    s, e = _span(c.this)
    if ctx.gold[s] == '"':
        new_text = f'"{new}"'
    else:
        new_text = new if new == new.lower() or ctx.dialect == "sqlite" or not re.search(r"[A-Z]", ctx.gold[s:e]) else new
    return _edit(ctx.gold, [(s, e, new_text)]), f"filter on {t}.{c.name} moved to {new} (same type)"


# --------------------------------------------------------------------------------------------------------------
# reply-shape kinds


def _k_prose_only(ctx: _Ctx, rng: random.Random):
    sql = ctx.gold.strip()
    one_line = " ".join(sql.split())
    style = rng.randrange(3)
    if style == 0:
        return (f"You can get this by running {one_line} against the database, which returns exactly the rows asked for.",
                "SQL given only inline in a prose sentence")
    if style == 1:
        return (f"Aapke sawaal ke liye query hogi {one_line} -- isse aapko result mil jayega.",
                "SQL given only inline in Hindi-English prose")
    return (f"To answer this, the query is `{one_line}`. It reads the relevant tables and applies the conditions.",
            "SQL given only as inline code in prose")


_DRAFT_KINDS = ("ghost_column", "alias_mixup", "order_flip", "condition_dropped", "aggregate_swap",
                "join_flip", "boundary_shift", "syntax_slip", "distinct_lost", "ghost_table")


def _k_draft_then_final(ctx: _Ctx, rng: random.Random):
    """A first (wrong) attempt in one block, then the model "corrects" itself in a second block that repeats
    the mistake in another place -- the reply has two SQL blocks and the last one is still not the gold."""
    order = list(_DRAFT_KINDS)
    rng.shuffle(order)
    got = []
    for k in order:
        r = _KINDS[k](ctx, rng)
        if r is not None and r[0] != ctx.gold:
            got.append((k, r))
        if len(got) == 2:
            break
    if len(got) < 2:
        return None
    (k1, (draft, n1)), (k2, (final, n2)) = got
    fence = rng.choice(["```sql", "```", "```SQL"])
    intro = rng.choice(_INTROS)
    mid = rng.choice([
        "Wait, that is not quite right. Let me correct it:",
        "Actually, a better version would be:",
        "Oops, ek chhoti si galti thi. Sahi query yeh hai:",
        "On second thought, here is the final query:",
        "Final answer:",
    ])
    reply = f"{intro}\n\n{fence}\n{draft}\n```\n\n{mid}\n\n{fence}\n{final}\n```\n"
    return reply, f"two SQL blocks: draft ({n1}) then final ({n2})"


def _k_truncated(ctx: _Ctx, rng: random.Random):
    toks = ctx.tokens
    if len(toks) < 6:
        return None
    cut_after = {TokenType.WHERE, TokenType.AND, TokenType.OR, TokenType.ON, TokenType.JOIN, TokenType.COMMA,
                 TokenType.EQ, TokenType.GROUP_BY, TokenType.ORDER_BY, TokenType.FROM, TokenType.L_PAREN,
                 TokenType.GT, TokenType.LT, TokenType.GTE, TokenType.LTE, TokenType.SELECT, TokenType.HAVING,
                 TokenType.DOT, TokenType.CASE, TokenType.WHEN, TokenType.THEN}
    n = len(toks)
    cands = [i for i, t in enumerate(toks) if t.token_type in cut_after and 0.35 * n <= i <= 0.9 * n and i < n - 2]
    if not cands:
        cands = [i for i, t in enumerate(toks) if t.token_type in cut_after and 0 < i < n - 2]
    if not cands:
        return None
    i = rng.choice(cands)
    sql = ctx.gold[: toks[i].end + 1]
    return sql, f"reply cut off after '{toks[i].text}' (token {i} of {n})"


_KINDS = {
    "ghost_column": _k_ghost_column,
    "ghost_table": _k_ghost_table,
    "alias_mixup": _k_alias_mixup,
    "join_dropped": _k_join_dropped,
    "ambiguous_column": _k_ambiguous_column,
    "bare_group": _k_bare_group,
    "foreign_dialect": _k_foreign_dialect,
    "literal_variant": _k_literal_variant,
    "syntax_slip": _k_syntax_slip,
    "draft_then_final": _k_draft_then_final,
    "prose_only": _k_prose_only,
    "truncated": _k_truncated,
    "date_format": _k_date_format,
    "join_flip": _k_join_flip,
    "distinct_lost": _k_distinct_lost,
    "boundary_shift": _k_boundary_shift,
    "aggregate_swap": _k_aggregate_swap,
    "order_flip": _k_order_flip,
    "condition_dropped": _k_condition_dropped,
    "filter_column_swap": _k_filter_column_swap,
}

_NEEDS_TREE = set(_KINDS) - {"foreign_dialect", "date_format", "prose_only"}


def damage(gold_sql: str, schema, kind: str, seed: int) -> Damaged | None:
    if kind not in DAMAGE_KINDS:
        raise ValueError(f"unknown damage kind {kind!r}")
    rng = _rng(gold_sql, kind, seed)
    if kind == "clean":
        return Damaged(kind, _wrap(gold_sql, rng, loose_ok=False), "gold query, wrapped in prose")
    ctx = _Ctx(gold_sql, schema)
    if kind in _NEEDS_TREE and (ctx.tree is None or not ctx.tokens):
        return None
    try:
        res = _KINDS[kind](ctx, rng)
    except Exception:  # a damage that cannot place itself on this query does not apply
        return None
    if res is None:
        return None
    text, note = res
    if kind in ("prose_only", "draft_then_final"):
        return Damaged(kind, text, note)
    if text.strip() == gold_sql.strip():
        return None
    if kind == "truncated":
        return Damaged(kind, _wrap(text, rng, fence=rng.choice(["```sql", "```"]), closing=False), note)
    return Damaged(kind, _wrap(text, rng), note)
