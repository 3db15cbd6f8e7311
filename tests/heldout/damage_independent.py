"""Independent, held-out damage generator for Cairn's SQL-recovery benchmark.

Written without reading Cairn's repair code or its own damage generator.  Each kind takes a gold query and
produces the reply a small (7B-class) model plausibly writes instead: a fault that a careful engineer can undo
from the schema, the data and the reply alone.  The meaning of the query (literals, operators, conditions,
the rows it returns) is never touched; only the way it is written.

Taxonomy (kind -- what it does -- where the error class comes from)
------------------------------------------------------------------
clean             -- the gold query, unchanged (control).
column_variant    -- one column written under a hallucinated but traceable name: table-prefixed
                     (``customer_name`` for customers.name), prefix dropped, plural/singular, camel/snake,
                     abbreviation expanded/contracted (``cust``/``customer``); the variant points back at exactly
                     one real column of the tables in the query.
                     Source: DIN-SQL (Pourreza & Rafiei 2023) "schema linking" errors; Shen et al. 2025
                     (arXiv 2501.09310) "non-existent schema reference"; Dr.Spider schema-synonym/-abbreviation.
table_variant     -- one table name off by plural/singular, camel/snake/Pascal case or a dropped short prefix;
                     it matches exactly one table of the schema.
                     Source: DIN-SQL "schema linking" errors; TA-SQL (Qu et al. 2024) "schema contradiction".
redundant_join    -- an extra JOIN to a many-to-one lookup table on its key (declared FK, or the
                     ``<table>_id``/``id`` convention, then as LEFT JOIN) that is never used: same rows.
                     Source: TA-SQL logic hallucination "join redundancy"; DIN-SQL "JOIN" error class.
ambiguous_column  -- qualifiers stripped from a join scope's columns; at least one name becomes ambiguous, but
                     only names whose candidates are equal through an inner-join equality are stripped.
                     Source: Shen et al. 2025 "ambiguous column reference" (schema errors); MAC-SQL refiner
                     error classes.
alias_misuse      -- table name used where an alias was declared, a column put on the wrong alias (the column
                     exists in one source only), two aliases differing only in case, or a derived table's alias
                     dropped while its qualifier is still used.
                     Source: Shen et al. 2025 table/alias-column mismatch errors; DIN-SQL "invalid SQL" class.
group_by_missing  -- a non-aggregated SELECT item left out of GROUP BY (GROUP BY dropped when it was the only
                     one, e.g. with an aggregate used only in ORDER BY/HAVING); grouping = non-aggregated SELECT.
                     Source: DIN-SQL "GROUP BY" error class; BIRD/Spider error analyses (aggregation errors).
having_misuse     -- aggregate condition written in WHERE instead of HAVING, or HAVING referring to a SELECT
                     alias (PostgreSQL rejects it).
                     Source: DIN-SQL "GROUP BY" class; TA-SQL "clause abuse".
dialect_function  -- another dialect's function with the same meaning: IFNULL/ISNULL/NVL, IF(), YEAR(),
                     CURDATE(), GETDATE(), DATE_SUB/DATE_ADD(.., INTERVAL n UNIT), DATE_FORMAT/strftime,
                     DATEDIFF, TIMESTAMPDIFF, FROM_UNIXTIME, GROUP_CONCAT, LEN (for SQLite targets: PostgreSQL /
                     MySQL / SQL Server ones).
                     Source: Shen et al. 2025 "function hallucination" (syntax errors); dialect notes in
                     Spider 2.0 / Google Cloud text-to-SQL write-ups (MONTH(ts) vs EXTRACT(MONTH FROM ts)).
dialect_syntax    -- another dialect's syntax: `backticks` or [brackets] around identifiers, TOP n,
                     LIMIT offset, count, FETCH FIRST (SQLite), "double-quoted" string literals, ``==``.
                     Source: Shen et al. 2025 syntax-error category; reports on small open models (SQLCoder /
                     CodeLlama) emitting MySQL/T-SQL syntax for PostgreSQL.
keyword_alias     -- a table alias that is a reserved word, left unquoted (``users AS user``, ``doctors do``,
                     ``invoice in``, ``checkin check``).
                     Source: Shen et al. 2025 syntax errors "missing quotes"; PostgreSQL key-word appendix.
markdown_prose    -- the (correct) query wrapped in markdown fences, prose, SQL comments or a semicolon.
                     Source: output post-processing in public text-to-SQL harnesses for open models (e.g.
                     SQLBench's llama2/codellama extractor, defog sql-eval) that strip ```sql fences and prose.
combined          -- two of the above, one after the other (the second applied to the first's output).
                     Source: DIN-SQL / Shen et al. 2025 report co-occurring error classes in one query.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable
from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.optimizer.scope import Scope, traverse_scope, walk_in_scope

from core.schema import Schema, Table

__all__ = ["DAMAGE_KINDS", "Damaged", "damage"]

DAMAGE_KINDS: tuple[str, ...] = (
    "clean",
    "column_variant",
    "table_variant",
    "redundant_join",
    "ambiguous_column",
    "alias_misuse",
    "group_by_missing",
    "having_misuse",
    "dialect_function",
    "dialect_syntax",
    "keyword_alias",
    "markdown_prose",
    "combined",
)


@dataclass(frozen=True)
class Damaged:
    kind: str
    reply: str  # the full text the fake model answers (may include prose/markdown)
    note: str  # one line: what was damaged


# --------------------------------------------------------------------------------------------------------------
# words, names, keywords

_PG_RESERVED = frozenset(
    """ALL ANALYSE ANALYZE AND ANY ARRAY AS ASC ASYMMETRIC BOTH CASE CAST CHECK COLLATE COLUMN CONSTRAINT CREATE
    CURRENT_CATALOG CURRENT_DATE CURRENT_ROLE CURRENT_TIME CURRENT_TIMESTAMP CURRENT_USER DEFAULT DEFERRABLE DESC
    DISTINCT DO ELSE END EXCEPT FALSE FETCH FOR FOREIGN FROM GRANT GROUP HAVING IN INITIALLY INTERSECT INTO LATERAL
    LEADING LIMIT LOCALTIME LOCALTIMESTAMP NOT NULL OFFSET ON ONLY OR ORDER PLACING PRIMARY REFERENCES RETURNING
    SELECT SESSION_USER SOME SYMMETRIC TABLE THEN TO TRAILING TRUE UNION UNIQUE USER USING VARIADIC WHEN WHERE
    WINDOW WITH AUTHORIZATION BINARY COLLATION CONCURRENTLY CROSS CURRENT_SCHEMA FREEZE FULL ILIKE INNER IS
    ISNULL JOIN LEFT LIKE NATURAL NOTNULL OUTER OVERLAPS RIGHT SIMILAR TABLESAMPLE VERBOSE""".split()
)
_SQLITE_RESERVED = frozenset(
    """ALL AND AS BETWEEN CASE CHECK COLLATE CONSTRAINT CREATE DEFAULT DEFERRABLE DELETE DISTINCT DROP ELSE
    ESCAPE EXCEPT EXISTS FOREIGN FROM GROUP HAVING IN INDEX INSERT INTERSECT INTO IS ISNULL JOIN LIMIT NOT NOTNULL
    NULL ON OR ORDER PRIMARY REFERENCES SELECT SET TABLE THEN TO TRANSACTION UNION UNIQUE UPDATE USING VALUES WHEN
    WHERE CAST RETURNING CURRENT_DATE""".split()
)
# Words that are keywords somewhere; never used as a hallucinated name (they could bind to something else).
_ANY_KEYWORD = _PG_RESERVED | _SQLITE_RESERVED | frozenset(
    "DATE TIME TIMESTAMP YEAR MONTH DAY HOUR MINUTE SECOND INTERVAL KEY INDEX VALUE VALUES ROW ROWS RANK "
    "COUNT SUM AVG MIN MAX POSITION NAME TYPE".split()
)


def _reserved(dialect: str) -> frozenset[str]:
    return _SQLITE_RESERVED if dialect == "sqlite" else _PG_RESERVED


_TOKEN_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# abbreviation -> full word (both directions are used: canonical form expands, variants contract or expand)
_ABBR = {
    "cust": "customer", "tx": "transaction", "txn": "transaction", "qty": "quantity", "amt": "amount",
    "num": "number", "descr": "description", "addr": "address", "dt": "date", "avg": "average",
    "cnt": "count", "pct": "percent", "acct": "account", "dept": "department", "emp": "employee",
    "prod": "product", "msg": "message", "ref": "reference", "doc": "doctor", "diag": "diagnosis",
    "tot": "total", "yr": "year", "org": "organization", "pub": "publication", "auth": "author",
    "conf": "conference", "kw": "keyword", "cat": "category", "img": "image", "info": "information",
}
_CONTRACT = {
    "customer": "cust", "transaction": "txn", "quantity": "qty", "amount": "amt", "number": "num",
    "description": "descr", "address": "addr", "average": "avg", "count": "cnt", "percent": "pct",
    "department": "dept", "employee": "emp", "product": "prod", "message": "msg", "doctor": "doc",
    "total": "tot", "organization": "org", "publication": "pub", "category": "cat", "date": "dt",
}
_TABLE_SUFFIX_NOISE = {
    "daily", "weekly", "monthly", "snapshot", "snapshots", "log", "logs", "history", "info", "data",
    "detail", "details", "received", "made", "record", "records",
}


def _split(name: str) -> list[str]:
    out: list[str] = []
    for part in re.split(r"[_\s]+", name):
        if part:
            out.extend(_TOKEN_RE.findall(part))
    return out


def _style(name: str) -> str:
    if "_" in name or name.islower() or name.isupper():
        return "snake"
    return "pascal" if name[:1].isupper() else "camel"


def _join(tokens: list[str], style: str) -> str:
    if style == "snake":
        return "_".join(t.lower() for t in tokens)
    parts = [t if t.isdigit() else t[:1].upper() + t[1:].lower() for t in tokens]
    if style == "camel" and parts:
        parts[0] = tokens[0].lower()
    return "".join(parts)


def _singular(word: str) -> str:
    w = word.lower()
    if len(w) <= 3 or w.endswith(("ss", "us", "is", "ics")):
        return w
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith(("ches", "shes", "xes", "zes")):
        return w[:-2]
    if w.endswith("s"):
        return w[:-1]
    return w


def _plural(word: str) -> str:
    w = word.lower()
    if w.endswith("y") and len(w) > 2 and w[-2] not in "aeiou":
        return word[:-1] + "ies"
    if w.endswith(("s", "x", "ch", "sh", "z")):
        return word + "es"
    return word + "s"


def _toggle_number(word: str) -> str | None:
    if not word.isalpha() or len(word) < 3 or word.lower() in {"id", "ids"}:
        return None
    s = _singular(word)
    if s != word.lower():  # plural -> singular, keep the leading case
        return (word[:1] + s[1:]) if s[:1] == word[:1].lower() else s
    p = _plural(word)
    return p if p.lower() != word.lower() else None


def _canon(name: str) -> tuple[str, ...]:
    out = []
    for t in _split(name):
        t = t.lower()
        full = _ABBR.get(t) or _ABBR.get(_singular(t)) or t
        out.append(_singular(full))
    return tuple(out)


def _core(tokens: tuple[str, ...]) -> tuple[str, ...]:
    toks = list(tokens)
    while len(toks) > 1 and len(toks[0]) <= 2 and not toks[0].isdigit():
        toks.pop(0)
    return tuple(toks)


def _table_words(name: str) -> list[str]:
    toks = [t.lower() for t in _split(name)]
    while len(toks) > 1 and len(toks[0]) <= 2:
        toks.pop(0)
    return toks


def _table_base(name: str) -> str:
    toks = _table_words(name)
    while len(toks) > 1 and toks[-1] in _TABLE_SUFFIX_NOISE:
        toks.pop()
    return _singular(toks[-1]) if toks else name.lower()


def _squash(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _forms(name: str, spell: dict[str, str] | None) -> list[str]:
    """The schema's spelling plus the query's spelling of the same identifier (which may carry the word
    boundaries an introspected, lower-cased name lost)."""
    out = [name]
    alt = (spell or {}).get(name.lower())
    if alt and alt != name:
        out.append(alt)
    return out


def _col_matches(variant: str, table_name: str, col_name: str, spell: dict[str, str] | None = None) -> bool:
    """Does ``variant`` plausibly denote ``table_name.col_name`` (same words up to number, abbreviation,
    case style, a short prefix, or a table-name prefix)?"""
    if _squash(variant) == _squash(col_name):
        return True
    v = _canon(variant)
    vs = {v, _core(v)}
    for cname in _forms(col_name, spell):
        c = _canon(cname)
        cs = {c, _core(c)}
        prefixes = set()
        for tname in _forms(table_name, spell):
            prefixes |= {(_table_base(tname),), _core(_canon(tname))}
        for a in vs:
            for b in cs:
                if a == b:
                    return True
                for p in prefixes:
                    if a == p + b or b == p + a:
                        return True
    return False


def _table_matches(variant: str, table_name: str, spell: dict[str, str] | None = None) -> bool:
    if _squash(variant) == _squash(table_name):
        return True
    v = _core(_canon(variant))
    return any(v == _core(_canon(t)) for t in _forms(table_name, spell))


def _spellings(tree: exp.Expression) -> dict[str, str]:
    out: dict[str, str] = {}
    for idn in tree.find_all(exp.Identifier):
        name = idn.name
        if name and (name.lower() not in out or (out[name.lower()].islower() and not name.islower())):
            out[name.lower()] = name
    return out


def _rng(text: str, kind: str, seed: int) -> random.Random:
    h = hashlib.sha256(f"{kind}\x00{seed}\x00{text}".encode()).digest()
    return random.Random(int.from_bytes(h[:8], "big"))


def _norm(sql: str) -> str:
    return re.sub(r"\s+", " ", sql).strip().rstrip(";").strip().lower()


# --------------------------------------------------------------------------------------------------------------
# parsing, scopes, resolution


def _parse(sql: str, dialect: str) -> exp.Expression | None:
    try:
        stmts = [s for s in sqlglot.parse(sql, read=dialect) if s is not None]
    except Exception:
        return None
    if len(stmts) != 1 or not isinstance(stmts[0], exp.Query):
        return None
    return stmts[0]


def _render(tree: exp.Expression, dialect: str) -> str:
    return tree.sql(dialect=dialect)


def _from(sel: exp.Select) -> exp.Expression | None:
    return sel.args.get("from_") or sel.args.get("from")


@dataclass
class _Src:
    key: str  # qualifier text used for this source (alias, else table name)
    node: exp.Expression  # exp.Table for base tables and CTE references, else the derived expression
    table: Table | None  # schema table, for base tables
    cols: tuple[str, ...] | None  # lower-case names it provides; None when unknown
    alias: str  # declared alias ('' if none)


class _Ctx:
    def __init__(self, tree: exp.Expression, schema: Schema) -> None:
        self.tree = tree
        self.schema = schema
        self.dialect = schema.dialect
        self.cte_names = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
        self.scopes: list[Scope] = traverse_scope(tree)
        self.root = self.scopes[-1] if self.scopes else None
        self.srcs: dict[int, dict[str, _Src]] = {}
        self.colinfo: dict[int, tuple[Scope, _Src | None, str]] = {}
        for sc in self.scopes:
            srcs = self._sources(sc)
            self.srcs[id(sc)] = srcs
            for col in self.columns(sc):
                self.colinfo[id(col)] = (sc, self._resolve(col, srcs, sc), col.name.lower())

    # -- schema
    def table_of(self, t: exp.Expression) -> Table | None:
        if not isinstance(t, exp.Table) or not isinstance(t.this, exp.Identifier):
            return None
        if not t.db and t.name.lower() in self.cte_names:
            return None
        if t.db:
            return self.schema.table(f"{t.db}.{t.name}") or self.schema.table(t.name)
        return self.schema.table(t.name)

    def query_tables(self) -> list[Table]:
        out: dict[str, Table] = {}
        for t in self.tree.find_all(exp.Table):
            st = self.table_of(t)
            if st is not None:
                out.setdefault(st.qualified_name.lower(), st)
        return list(out.values())

    def output_names(self) -> set[str]:
        names = set(self.cte_names)
        for a in self.tree.find_all(exp.Alias):
            names.add(a.alias.lower())
        for a in self.tree.find_all(exp.TableAlias):
            if a.name:
                names.add(a.name.lower())
            for c in a.columns:
                names.add(c.name.lower())
        return names

    # -- scopes
    @staticmethod
    def columns(sc: Scope) -> list[exp.Column]:
        out = []
        for n in walk_in_scope(sc.expression):
            if isinstance(n, exp.Column) and not isinstance(n.this, exp.Star) and not n.args.get("db"):
                out.append(n)
        return out

    def _sources(self, sc: Scope) -> dict[str, _Src]:
        out: dict[str, _Src] = {}
        for key, src in sc.sources.items():
            if isinstance(src, exp.Table):
                st = self.table_of(src)
                cols = tuple(c.name.lower() for c in st.columns) if st is not None else None
                out[key.lower()] = _Src(key, src, st, cols, src.alias)
            elif isinstance(src, Scope):
                e = src.expression
                cols = None
                if isinstance(e, exp.Query) and not any(isinstance(s, exp.Star) for s in e.selects):
                    if not any(isinstance(s, exp.Column) and isinstance(s.this, exp.Star) for s in e.selects):
                        cols = tuple(n.lower() for n in e.named_selects)
                node = e
                alias = ""
                # a CTE reference (FROM cte [AS x]) or a derived table (subquery AS x)
                for t in _from_items(sc.expression):
                    if t.alias_or_name.lower() == key.lower():
                        node = t
                        alias = t.alias
                out[key.lower()] = _Src(key, node, None, cols, alias)
        return out

    @staticmethod
    def _resolve(col: exp.Column, srcs: dict[str, _Src], sc: Scope) -> _Src | None:
        q = col.table.lower()
        n = col.name.lower()
        if q:
            return srcs.get(q)
        hits = [s for s in srcs.values() if s.cols is not None and n in s.cols]
        if len(hits) == 1:
            return hits[0]
        return None

    def resolved(self, col: exp.Column) -> _Src | None:
        info = self.colinfo.get(id(col))
        return info[1] if info else None

    def all_resolvable(self, sc: Scope) -> bool:
        """Every column of the scope resolves to one source (or is a SELECT-alias / outer reference that no
        source of this scope provides)."""
        srcs = self.srcs[id(sc)]
        if any(s.cols is None for s in srcs.values()):
            return False
        outs = {n.lower() for n in sc.expression.named_selects} if isinstance(sc.expression, exp.Select) else set()
        for col in self.columns(sc):
            n = col.name.lower()
            if col.table:
                s = srcs.get(col.table.lower())
                if s is not None and n not in (s.cols or ()):
                    return False
                continue
            hits = [s for s in srcs.values() if n in (s.cols or ())]
            if len(hits) > 1:
                return False
            if not hits and n not in outs and sc.parent is None:
                return False
        return True


def _from_items(sel: exp.Expression) -> list[exp.Expression]:
    if not isinstance(sel, exp.Select):
        return []
    items: list[exp.Expression] = []
    f = _from(sel)
    if f is not None and f.this is not None:
        items.append(f.this)
    for j in sel.args.get("joins") or []:
        if j.this is not None:
            items.append(j.this)
    return items


def _clause_of(node: exp.Expression, sel: exp.Expression) -> str:
    cur = node
    while cur.parent is not None and cur.parent is not sel:
        cur = cur.parent
    return cur.arg_key or ""


def _in_join_on(node: exp.Expression, sel: exp.Expression) -> bool:
    cur = node
    while cur is not None and cur is not sel:
        if isinstance(cur.parent, exp.Join) and cur.arg_key == "on":
            return True
        cur = cur.parent
    return False


def _conjuncts(e: exp.Expression | None) -> list[exp.Expression]:
    if e is None:
        return []
    if isinstance(e, exp.Paren):
        return _conjuncts(e.this)
    if isinstance(e, exp.And):
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _has_agg(e: exp.Expression) -> bool:
    stack = [e]
    while stack:
        n = stack.pop()
        if isinstance(n, exp.AggFunc):
            return True
        for child in n.iter_expressions():
            if isinstance(child, (exp.Window, exp.Subquery, exp.Select, exp.Query)):
                continue
            stack.append(child)
    return False


def _has_window(e: exp.Expression) -> bool:
    return any(True for _ in e.find_all(exp.Window))


def _ident(name: str, like: exp.Expression | None = None) -> exp.Identifier:
    quoted = bool(isinstance(like, exp.Identifier) and like.args.get("quoted"))
    return exp.Identifier(this=name, quoted=quoted)


def _set_qualifier(col: exp.Column, name: str | None) -> None:
    if name is None:
        col.set("table", None)
    else:
        col.set("table", _ident(name, col.args.get("table")))


def _fresh_alias(base: str, taken: set[str], dialect: str) -> str:
    base = re.sub(r"[^a-z0-9_]", "", base.lower()) or "t"
    if not base[0].isalpha():
        base = "t" + base
    cand, i = base, 2
    while cand in taken or cand.upper() in _ANY_KEYWORD:
        cand, i = f"{base}{i}", i + 1
    return cand


def _initials(name: str) -> str:
    words = _table_words(name)
    return "".join(w[0] for w in words if w) or name[:1].lower()


# --------------------------------------------------------------------------------------------------------------
# kinds: each takes (sql, schema, rng) and returns (reply_text, note) or None

_KindFn = Callable[[str, Schema, random.Random], "tuple[str, str] | None"]


def _prep(sql: str, schema: Schema) -> tuple[exp.Expression, _Ctx] | None:
    tree = _parse(sql, schema.dialect)
    if tree is None:
        return None
    try:
        ctx = _Ctx(tree, schema)
    except Exception:
        return None
    if not ctx.scopes:
        return None
    return tree, ctx


# ---- column_variant


def _column_variant_names(text: str, table_name: str) -> list[str]:
    toks = _split(text)
    if not toks:
        return []
    style = _style(text)
    out: list[str] = []
    base = _table_base(table_name)
    canon_core = _core(_canon(text))
    # table prefix added (customer_name for customers.name)
    if canon_core[:1] != (base,):
        out.append(_join([base, *toks], style if style != "camel" else "snake"))
    # table prefix dropped (name for sbCustName, id for customer_id in customer)
    words = [t for t in toks]
    while len(words) > 1 and len(words[0]) <= 2 and not words[0].isdigit():
        words = words[1:]
    if len(words) > 1 and _singular(_ABBR.get(words[0].lower(), words[0].lower())) == base:
        out.append(_join(words[1:], "snake" if style == "camel" else style))
    # plural / singular of the last word
    last = _toggle_number(toks[-1])
    if last:
        out.append(_join([*toks[:-1], last], style) if style != "snake" else "_".join([*toks[:-1], last]).lower())
    # camel <-> snake
    if len(toks) >= 2:
        out.append(_join(toks, "camel") if style == "snake" else _join(toks, "snake"))
    # abbreviation expanded or contracted
    for i, t in enumerate(toks):
        low = t.lower()
        rep = _ABBR.get(low) or _CONTRACT.get(low)
        if rep:
            new = list(toks)
            new[i] = rep if (style == "snake" or t.islower()) else rep[:1].upper() + rep[1:]
            out.append(_join(new, style) if style != "snake" else "_".join(new).lower())
    seen: list[str] = []
    for v in out:
        if v and v.lower() != text.lower() and v not in seen:
            seen.append(v)
    return seen


def _k_column_variant(sql: str, schema: Schema, rng: random.Random) -> tuple[str, str] | None:
    got = _prep(sql, schema)
    if got is None:
        return None
    tree, ctx = got
    occ: dict[tuple[str, str], list[exp.Column]] = {}
    occ_table_text: dict[tuple[str, str], str] = {}
    blocked: set[tuple[str, str]] = set()
    unqualified: set[tuple[str, str]] = set()
    for sc in ctx.scopes:
        for col in ctx.columns(sc):
            src = ctx.resolved(col)
            if src is None or src.table is None or col.name.lower() not in (src.cols or ()):
                continue
            key = (src.table.qualified_name.lower(), col.name.lower())
            occ.setdefault(key, []).append(col)
            if isinstance(src.node, exp.Table):
                occ_table_text.setdefault(key, src.node.name)
            if not col.table:
                unqualified.add(key)
            if sc is not ctx.root and col.parent is sc.expression and col.arg_key == "expressions":
                blocked.add(key)  # a bare projection of a CTE/derived table names an outer column
    if not occ:
        return None
    qtables = ctx.query_tables()
    all_cols = {c.name.lower() for t in qtables for c in t.columns}
    taken = all_cols | ctx.output_names() | {t.name.lower() for t in schema.tables}
    reserved = _reserved(schema.dialect)
    spell = _spellings(tree)
    options: dict[tuple[str, str], list[str]] = {}
    for key in sorted(occ):
        if key in blocked:
            continue
        table = schema.table(key[0])
        if table is None:
            continue
        real = table.column(key[1])
        if real is None:
            continue
        text = occ[key][0].name
        pool = qtables if key in unqualified or len(qtables) > 1 else [table]
        good = []
        for v in _column_variant_names(text, occ_table_text.get(key, table.name)):
            if not _IDENT_RE.fullmatch(v) or v.lower() in taken or v.upper() in _ANY_KEYWORD or v.upper() in reserved:
                continue
            if not _col_matches(v, table.name, real.name, spell):
                continue
            hits = [(t.qualified_name, c.name) for t in pool for c in t.columns if _col_matches(v, t.name, c.name, spell)]
            if hits != [(table.qualified_name, real.name)]:
                continue
            good.append(v)
        if good:
            options[key] = good
    if not options:
        return None
    key = rng.choice(sorted(options))
    variant = rng.choice(options[key])
    old = occ[key][0].name
    for col in occ[key]:
        col.set("this", _ident(variant, col.this))
    table = schema.table(key[0])
    assert table is not None
    return _render(tree, schema.dialect), f"column {table.name}.{old} written as {variant}"


# ---- table_variant


def _table_variant_names(text: str) -> list[str]:
    toks = _split(text)
    if not toks:
        return []
    style = _style(text)
    out = []
    words = [t.lower() for t in toks]
    # plural/singular on the head word (skip trailing noise like _daily)
    idx = len(words) - 1
    while idx > 0 and words[idx] in _TABLE_SUFFIX_NOISE:
        idx -= 1
    tog = _toggle_number(toks[idx])
    if tog:
        new = list(toks)
        new[idx] = tog
        out.append(_join(new, style) if style != "snake" else "_".join(new).lower())
    if len(toks) >= 2:
        out.append(_join(toks, "pascal") if style == "snake" else _join(toks, "snake"))
    # short prefix dropped (sbCustomer -> customer)
    if len(toks) >= 2 and len(toks[0]) <= 2:
        rest = toks[1:]
        out.append(_join(rest, "snake"))
        tog2 = _toggle_number(rest[-1])
        if tog2:
            out.append(_join([*rest[:-1], tog2], "snake"))
    seen: list[str] = []
    for v in out:
        if v and v.lower() != text.lower() and v not in seen:
            seen.append(v)
    return seen


def _k_table_variant(sql: str, schema: Schema, rng: random.Random) -> tuple[str, str] | None:
    got = _prep(sql, schema)
    if got is None:
        return None
    tree, ctx = got
    occ: dict[str, list[exp.Table]] = {}
    for t in tree.find_all(exp.Table):
        st = ctx.table_of(t)
        if st is not None:
            occ.setdefault(st.qualified_name.lower(), []).append(t)
    taken = {t.name.lower() for t in schema.tables} | ctx.output_names()
    for t in tree.find_all(exp.Table):
        taken.add(t.name.lower())
    reserved = _reserved(schema.dialect)
    spell = _spellings(tree)
    options: dict[str, list[str]] = {}
    for key in sorted(occ):
        table = schema.table(key)
        if table is None:
            continue
        text = occ[key][0].name
        good = []
        for v in _table_variant_names(text):
            if not _IDENT_RE.fullmatch(v) or v.lower() in taken or v.upper() in _ANY_KEYWORD or v.upper() in reserved:
                continue
            hits = [t2.qualified_name for t2 in schema.tables if _table_matches(v, t2.name, spell)]
            if hits != [table.qualified_name]:
                continue
            good.append(v)
        if good:
            options[key] = good
    if not options:
        return None
    key = rng.choice(sorted(options))
    variant = rng.choice(options[key])
    nodes = occ[key]
    old = nodes[0].name
    # qualifiers that name the table itself (no alias) follow the new name
    for sc in ctx.scopes:
        srcs = ctx.srcs[id(sc)]
        for s in srcs.values():
            if isinstance(s.node, exp.Table) and any(s.node is n for n in nodes) and not s.alias:
                for col in ctx.columns(sc):
                    if col.table and col.table.lower() == s.key.lower():
                        _set_qualifier(col, variant)
    for n in nodes:
        n.set("this", _ident(variant, n.this))
    return _render(tree, schema.dialect), f"table {old} written as {variant}"


# ---- redundant_join


def _lookup_links(table: Table, schema: Schema) -> list[tuple[tuple[str, ...], Table, tuple[str, ...], bool]]:
    """(fk columns, referenced table, its key columns, inner-join safe) for many-to-one links out of table."""
    out = []
    declared_any = any(t.foreign_keys for t in schema.tables)
    for fk in table.foreign_keys:
        ref = schema.table(fk.ref_table)
        if ref is None or not fk.columns:
            continue
        ref_cols = fk.ref_columns or ref.primary_key
        if not ref_cols or len(ref_cols) != len(fk.columns):
            continue
        if not (ref.is_unique(ref_cols) or not ref.primary_key):
            continue
        not_null = all((c := table.column(x)) is not None and not c.nullable for x in fk.columns)
        out.append((tuple(fk.columns), ref, tuple(ref_cols), not_null and ref.is_unique(ref_cols)))
    if table.foreign_keys or declared_any:
        return out
    # no declared keys anywhere: the <table>_id / id convention, joined LEFT so rows cannot be lost
    for col in table.columns:
        name = col.name
        if not name.lower().endswith("_id") or len(name) <= 3:
            continue
        stem = name[:-3]
        for ref in schema.tables:
            if ref is table or not _table_matches(stem, ref.name):
                continue
            key = ref.column("id") or ref.column(name)
            if key is None:
                continue
            if ref.primary_key and not ref.is_unique([key.name]):
                continue
            out.append(((name,), ref, (key.name,), False))
    return out


def _k_redundant_join(sql: str, schema: Schema, rng: random.Random) -> tuple[str, str] | None:
    got = _prep(sql, schema)
    if got is None:
        return None
    tree, ctx = got
    reserved = _reserved(schema.dialect)
    cands = []
    for si, sc in enumerate(ctx.scopes):
        sel = sc.expression
        if not isinstance(sel, exp.Select) or _from(sel) is None:
            continue
        if any(isinstance(p, exp.Star) for p in sel.expressions):
            continue
        if any(j.args.get("using") or (j.args.get("method") or "").upper() == "NATURAL" for j in sel.args.get("joins") or []):
            continue
        if not ctx.all_resolvable(sc):
            continue
        srcs = ctx.srcs[id(sc)]
        present = {s.table.qualified_name.lower() for s in srcs.values() if s.table is not None}
        unq = {c.name.lower() for c in ctx.columns(sc) if not c.table}
        for key in sorted(srcs):
            s = srcs[key]
            if s.table is None:
                continue
            for fk_cols, ref, ref_cols, inner in _lookup_links(s.table, schema):
                if ref.qualified_name.lower() in present:
                    continue
                if unq & {c.name.lower() for c in ref.columns}:
                    continue
                cands.append((si, key, fk_cols, ref, ref_cols, inner))
    if not cands:
        return None
    si, key, fk_cols, ref, ref_cols, inner = rng.choice(cands)
    sc = ctx.scopes[si]
    sel = sc.expression
    srcs = ctx.srcs[id(sc)]
    src = srcs[key]
    uses_alias = any(s.alias for s in srcs.values())
    taken = set(srcs) | {c.name.lower() for t in ctx.query_tables() for c in t.columns} | ctx.output_names()
    taken |= {t.name.lower() for t in schema.tables if t is not ref}
    node_tbl = src.node
    tbl = exp.Table(this=exp.to_identifier(ref.name))
    if isinstance(node_tbl, exp.Table) and node_tbl.db and ref.schema:
        tbl.set("db", exp.to_identifier(ref.schema))
    if uses_alias:
        alias = _fresh_alias(_initials(ref.name), taken, schema.dialect)
        if alias.upper() in reserved:
            alias = _fresh_alias(alias + "_", taken, schema.dialect)
        tbl.set("alias", exp.TableAlias(this=exp.to_identifier(alias)))
        rkey = alias
    else:
        if ref.name.lower() in srcs:
            return None
        rkey = ref.name
    conds = [
        exp.EQ(this=exp.column(fc, table=src.key), expression=exp.column(rc, table=rkey))
        for fc, rc in zip(fk_cols, ref_cols, strict=True)
    ]
    on: exp.Expression = conds[0]
    for c in conds[1:]:
        on = exp.And(this=on, expression=c)
    join = exp.Join(this=tbl, on=on)
    outer_present = any((j.args.get("side") or "") for j in sel.args.get("joins") or [])
    if outer_present:  # the referencing row may be NULL-extended: only a LEFT JOIN keeps it
        inner = False
    if not inner:
        join.set("side", "LEFT")
    sel.append("joins", join)
    how = "JOIN" if inner else "LEFT JOIN"
    return (
        _render(tree, schema.dialect),
        f"unused {how} {ref.name} on {src.key}.{'/'.join(fk_cols)} = {rkey}.{'/'.join(ref_cols)} (many-to-one)",
    )


# ---- ambiguous_column


class _UF:
    def __init__(self) -> None:
        self.p: dict[tuple[str, str], tuple[str, str]] = {}

    def find(self, x: tuple[str, str]) -> tuple[str, str]:
        self.p.setdefault(x, x)
        while self.p[x] != x:
            self.p[x] = self.p[self.p[x]]
            x = self.p[x]
        return x

    def union(self, a: tuple[str, str], b: tuple[str, str]) -> None:
        self.p[self.find(a)] = self.find(b)


def _k_ambiguous_column(sql: str, schema: Schema, rng: random.Random) -> tuple[str, str] | None:
    got = _prep(sql, schema)
    if got is None:
        return None
    tree, ctx = got
    plans = []
    for si, sc in enumerate(ctx.scopes):
        sel = sc.expression
        if not isinstance(sel, exp.Select):
            continue
        srcs = ctx.srcs[id(sc)]
        if len(srcs) < 2 or any(s.cols is None for s in srcs.values()):
            continue
        if any(j.args.get("using") for j in sel.args.get("joins") or []):
            continue
        uf = _UF()
        link_eqs: set[int] = set()
        eqs: list[exp.Expression] = list(_conjuncts(sel.args.get("where").this if sel.args.get("where") else None))
        for j in sel.args.get("joins") or []:
            if (j.args.get("side") or "").upper() in {"LEFT", "RIGHT", "FULL"}:
                continue
            eqs += _conjuncts(j.args.get("on"))
        for e in eqs:
            if isinstance(e, exp.EQ) and isinstance(e.this, exp.Column) and isinstance(e.expression, exp.Column):
                a, b = ctx.resolved(e.this), ctx.resolved(e.expression)
                if a is not None and b is not None and a is not b:
                    uf.union((a.key.lower(), e.this.name.lower()), (b.key.lower(), e.expression.name.lower()))
                    link_eqs.add(id(e))
        outs = {}
        for p in sel.expressions:
            outs[p.alias_or_name.lower()] = p.unalias()
        strip: list[exp.Column] = []
        ambiguous: list[str] = []
        for col in ctx.columns(sc):
            if not col.table:
                continue
            src = ctx.resolved(col)
            n = col.name.lower()
            if src is None or n not in (src.cols or ()):
                continue
            if isinstance(col.parent, exp.EQ) and id(col.parent) in link_eqs:
                continue
            sharers = [s for s in srcs.values() if n in (s.cols or ())]
            if len(sharers) > 1:
                root = uf.find((src.key.lower(), n))
                if any(uf.find((s.key.lower(), n)) != root for s in sharers):
                    continue
                if _in_join_on(col, sel):
                    continue
            clause = _clause_of(col, sel)
            if clause == "order" and n in outs:
                o = outs[n]
                if not (isinstance(o, exp.Column) and o.name.lower() == n and o.table.lower() == col.table.lower()):
                    continue
            strip.append(col)
            if len(sharers) > 1:
                ambiguous.append(n)
        if ambiguous:
            plans.append((si, strip, sorted(set(ambiguous))))
    if not plans:
        return None
    si, strip, amb = rng.choice(plans)
    for col in strip:
        _set_qualifier(col, None)
    return _render(tree, schema.dialect), f"table qualifiers dropped in a join; ambiguous: {', '.join(amb)}"


# ---- alias_misuse


def _k_alias_misuse(sql: str, schema: Schema, rng: random.Random) -> tuple[str, str] | None:
    got = _prep(sql, schema)
    if got is None:
        return None
    tree, ctx = got
    reserved = _reserved(schema.dialect)
    all_cols = {c.name.lower() for t in ctx.query_tables() for c in t.columns}
    cands: list[tuple] = []
    for si, sc in enumerate(ctx.scopes):
        sel = sc.expression
        if not isinstance(sel, exp.Select):
            continue
        srcs = ctx.srcs[id(sc)]
        cols = ctx.columns(sc)
        tsrcs = [s for s in srcs.values() if isinstance(s.node, exp.Table) and s.table is not None]
        names = [s.node.name.lower() for s in tsrcs]
        outer_keys: set[str] = set()
        p = sc.parent
        while p is not None:
            outer_keys |= set(ctx.srcs.get(id(p), {}))
            p = p.parent
        for s in tsrcs:
            refs = [c for c in cols if c.table and c.table.lower() == s.key.lower()]
            if not refs or names.count(s.node.name.lower()) != 1:
                continue
            if s.node.name.lower() in outer_keys:
                continue  # the table name would bind to the outer query's table
            tname = s.node.name
            if s.alias and s.alias.lower() != tname.lower():
                if tname.lower() in srcs:
                    continue
                cands.append(("table_for_alias", si, s.key))
            elif not s.alias:
                cands.append(("alias_unused", si, s.key))
        # column put on the wrong alias: the column lives in exactly one source
        if len(srcs) >= 2 and all(x.cols is not None for x in srcs.values()):
            for c in cols:
                src = ctx.resolved(c)
                n = c.name.lower()
                if not c.table or src is None or n not in (src.cols or ()):
                    continue
                if sum(1 for x in srcs.values() if n in (x.cols or ())) != 1:
                    continue
                others = [k for k, x in srcs.items() if x is not src and n not in (x.cols or ())]
                if others:
                    cands.append(("wrong_alias", si, src.key.lower(), n))
        # two aliases differing only in case
        by_letter: dict[str, list[_Src]] = {}
        for s in tsrcs:
            by_letter.setdefault(_initials(s.node.name)[:1], []).append(s)
        for letter, group in sorted(by_letter.items()):
            if len(group) >= 2 and letter and letter not in srcs and letter.upper() not in reserved:
                if not any(c.table and c.table.lower() == letter for c in cols):
                    cands.append(("case_twins", si, letter))
        # derived table whose alias is dropped while still used as a qualifier
        derived = [s for s in srcs.values() if isinstance(s.node, exp.Subquery) and s.alias]
        if len(derived) == 1 and any(c.table and c.table.lower() == derived[0].key.lower() for c in cols):
            cands.append(("derived_alias_dropped", si, derived[0].key.lower()))
    if not cands:
        return None
    # pick the sort of mistake first, then where it happens
    cands = sorted(set(cands), key=repr)
    sort = rng.choice(sorted({c[0] for c in cands}))
    pick = rng.choice([c for c in cands if c[0] == sort])
    what, si = pick[0], pick[1]
    sc = ctx.scopes[si]
    sel = sc.expression
    srcs = ctx.srcs[id(sc)]
    cols = ctx.columns(sc)
    if what == "table_for_alias":
        s = srcs[pick[2]]
        refs = [c for c in cols if c.table and c.table.lower() == s.key.lower()]
        clauses = sorted({_clause_of(c, sel) for c in refs})
        clause = rng.choice(clauses)
        for c in refs:
            if _clause_of(c, sel) == clause:
                _set_qualifier(c, s.node.name)
        note = f"table name {s.node.name} used in {clause or 'query'} where alias {s.alias} was declared"
    elif what == "alias_unused":
        s = srcs[pick[2]]
        taken = set(srcs) | all_cols | ctx.output_names() | {t.name.lower() for t in schema.tables}
        alias = _fresh_alias(_initials(s.node.name), taken, schema.dialect)
        s.node.set("alias", exp.TableAlias(this=exp.to_identifier(alias)))
        note = f"alias {alias} declared for {s.node.name} but columns still qualified with {s.node.name}"
    elif what == "wrong_alias":
        src = srcs[pick[2]]
        n = pick[3]
        others = sorted(k for k, x in srcs.items() if x is not src and n not in (x.cols or ()))
        other = srcs[rng.choice(others)]
        for c in cols:
            if c.table and c.table.lower() == src.key.lower() and c.name.lower() == n:
                _set_qualifier(c, other.key)
        note = f"column {src.key}.{n} written as {other.key}.{n} (wrong alias)"
    elif what == "case_twins":
        letter = pick[2]
        group = [s for s in srcs.values() if isinstance(s.node, exp.Table) and s.table is not None
                 and _initials(s.node.name)[:1] == letter]
        group = sorted(group, key=lambda s: s.key.lower())[:2]
        new = {group[0].key.lower(): letter.lower(), group[1].key.lower(): letter.upper()}
        for c in cols:
            if c.table and c.table.lower() in new:
                _set_qualifier(c, new[c.table.lower()])
        # unqualified columns keep resolving by name; re-alias both tables
        for s in group:
            s.node.set("alias", exp.TableAlias(this=exp.to_identifier(new[s.key.lower()])))
        note = f"aliases {letter.lower()} and {letter.upper()} (differ only in case) for {group[0].node.name} and {group[1].node.name}"
    else:  # derived_alias_dropped
        key = pick[2]
        s = srcs[key]
        s.node.set("alias", None)
        note = f"derived table alias {s.key} dropped but still used as a qualifier"
    return _render(tree, schema.dialect), note


# ---- group_by_missing


def _k_group_by_missing(sql: str, schema: Schema, rng: random.Random) -> tuple[str, str] | None:
    got = _prep(sql, schema)
    if got is None:
        return None
    tree, ctx = got
    cands = []
    for si, sc in enumerate(ctx.scopes):
        sel = sc.expression
        if not isinstance(sel, exp.Select):
            continue
        group = sel.args.get("group")
        if group is None or not group.expressions:
            continue
        if any(group.args.get(k) for k in ("rollup", "cube", "grouping_sets")):
            continue
        if _has_window(sel) and any(_has_window(p) for p in sel.expressions):
            continue
        if sel.args.get("distinct") is not None and sel.args["distinct"].args.get("on"):
            continue
        proj = sel.expressions
        has_agg = any(_has_agg(p) for p in proj)
        if sel.args.get("having") is not None:
            has_agg = True
        if sel.args.get("order") is not None and _has_agg(sel.args["order"]):
            has_agg = True
        if not has_agg:
            continue
        srcs = ctx.srcs[id(sc)]
        src_cols = {c for s in srcs.values() for c in (s.cols or ())}
        nonagg = [i for i, p in enumerate(proj) if not _has_agg(p) and list(p.unalias().find_all(exp.Column))]
        mapping: list[int | None] = []
        for g in group.expressions:
            idx = None
            if isinstance(g, exp.Literal) and not g.is_string and g.this.isdigit():
                k = int(g.this) - 1
                idx = k if 0 <= k < len(proj) else None
            else:
                gs = g.sql(dialect=schema.dialect).lower()
                for i, p in enumerate(proj):
                    if p.unalias().sql(dialect=schema.dialect).lower() == gs:
                        idx = i
                        break
                if idx is None and isinstance(g, exp.Column) and not g.table and g.name.lower() not in src_cols:
                    for i, p in enumerate(proj):
                        if isinstance(p, exp.Alias) and p.alias.lower() == g.name.lower():
                            idx = i
                            break
            mapping.append(idx)
        if any(m is None for m in mapping) or set(mapping) != set(nonagg):
            continue
        for gi, g in enumerate(group.expressions):
            removed = proj[mapping[gi]].unalias()
            rest_idx = {mapping[j] for j in range(len(mapping)) if j != gi}
            if mapping[gi] in rest_idx:
                continue
            rest_cols = set()
            for j in rest_idx:
                for c in proj[j].unalias().find_all(exp.Column):
                    rest_cols.add((c.table.lower(), c.name.lower()))
            rem_cols = [(c.table.lower(), c.name.lower(), c) for c in removed.find_all(exp.Column)]
            if all((t, n) in rest_cols for t, n, _ in rem_cols):
                continue
            # PostgreSQL accepts it when the primary key of the column's table stays grouped
            dependent = False
            for _t, _n, c in rem_cols:
                src = ctx.resolved(c)
                if src is not None and src.table is not None and src.table.primary_key:
                    pk = {p.lower() for p in src.table.primary_key}
                    grouped = {n for (t, n) in rest_cols if t in (src.key.lower(), "")}
                    if pk <= grouped:
                        dependent = True
            if dependent:
                continue
            cands.append((si, gi))
    if not cands:
        return None
    si, gi = rng.choice(cands)
    sel = ctx.scopes[si].expression
    group = sel.args["group"]
    g = group.expressions[gi]
    text = g.sql(dialect=schema.dialect)
    items = [e for i, e in enumerate(group.expressions) if i != gi]
    if items:
        group.set("expressions", items)
        note = f"SELECT item {text} missing from GROUP BY"
    else:
        sel.set("group", None)
        note = f"GROUP BY {text} dropped although the query aggregates"
    return _render(tree, schema.dialect), note


# ---- having_misuse


def _k_having_misuse(sql: str, schema: Schema, rng: random.Random) -> tuple[str, str] | None:
    got = _prep(sql, schema)
    if got is None:
        return None
    tree, ctx = got
    cands = []
    for si, sc in enumerate(ctx.scopes):
        sel = sc.expression
        if not isinstance(sel, exp.Select) or sel.args.get("having") is None:
            continue
        conj = _conjuncts(sel.args["having"].this)
        if any(_has_agg(c) for c in conj):
            cands.append(("to_where", si))
        if schema.dialect != "sqlite":
            srcs = ctx.srcs[id(sc)]
            src_cols = {c for s in srcs.values() for c in (s.cols or ())}
            aliases = {
                p.unalias().sql(dialect=schema.dialect).lower(): p.alias
                for p in sel.expressions
                if isinstance(p, exp.Alias) and _has_agg(p) and p.alias.lower() not in src_cols
            }
            for n in sel.args["having"].find_all(exp.AggFunc):
                if n.sql(dialect=schema.dialect).lower() in aliases:
                    cands.append(("alias", si))
                    break
    if not cands:
        return None
    what, si = rng.choice(sorted(set(cands)))
    sel = ctx.scopes[si].expression
    having = sel.args["having"]
    if what == "to_where":
        conj = _conjuncts(having.this)
        move = [c for c in conj if _has_agg(c)]
        keep = [c for c in conj if not _has_agg(c)]
        where = sel.args.get("where")
        cond = where.this if where is not None else None
        for c in move:
            cond = c.copy() if cond is None else exp.And(this=cond, expression=c.copy())
        sel.set("where", exp.Where(this=cond))
        if keep:
            new = keep[0].copy()
            for c in keep[1:]:
                new = exp.And(this=new, expression=c.copy())
            sel.set("having", exp.Having(this=new))
        else:
            sel.set("having", None)
        note = "aggregate condition written in WHERE instead of HAVING"
    else:
        aliases = {
            p.unalias().sql(dialect=schema.dialect).lower(): p.alias
            for p in sel.expressions
            if isinstance(p, exp.Alias) and _has_agg(p)
        }
        used = []
        for n in list(having.find_all(exp.AggFunc)):
            a = aliases.get(n.sql(dialect=schema.dialect).lower())
            if a:
                n.replace(exp.column(a))
                used.append(a)
        note = f"HAVING refers to SELECT alias {', '.join(used)}"
    return _render(tree, schema.dialect), note


# ---- dialect_function


def _interval_parts(iv: exp.Interval) -> tuple[str, str] | None:
    val = iv.this.name if iv.this is not None else ""
    unit = iv.args.get("unit").name if iv.args.get("unit") is not None else ""
    if not unit:
        m = re.fullmatch(r"\s*(\d+)\s*([A-Za-z]+)\s*", val)
        if not m:
            return None
        val, unit = m.group(1), m.group(2)
    if not re.fullmatch(r"\d+", val.strip()):
        return None
    u = _singular(unit.lower()).upper()
    if u not in {"DAY", "WEEK", "MONTH", "YEAR", "HOUR", "MINUTE", "SECOND"}:
        return None
    return val.strip(), u


def _fn(name: str, *args: exp.Expression) -> exp.Expression:
    return exp.Anonymous(this=name, expressions=list(args))


def _raw(text: str) -> exp.Expression:
    return exp.Var(this=text)


def _is_date_expr(e: exp.Expression, ctx: _Ctx) -> bool:
    e = e.unnest() if isinstance(e, exp.Paren) else e
    if isinstance(e, exp.Cast):
        return e.to.this == exp.DataType.Type.DATE
    if isinstance(e, exp.Column):
        src = ctx.resolved(e)
        if src is not None and src.table is not None:
            c = src.table.column(e.name)
            return c is not None and c.type.strip().upper() == "DATE"
    return False


def _projection_context(node: exp.Expression) -> bool:
    """node is a whole SELECT item, GROUP BY item or ORDER BY key (possibly aliased)."""
    p = node.parent
    if isinstance(p, exp.Alias):
        p = p.parent
        return isinstance(p, exp.Select)
    if isinstance(p, exp.Ordered) or isinstance(p, exp.Group):
        return True
    return isinstance(p, exp.Select) and node.arg_key == "expressions"


def _function_families(tree: exp.Expression, ctx: _Ctx, dialect: str, rng: random.Random) -> dict[str, list]:
    """family -> list of (node, builder) where builder(node) -> replacement."""
    fam: dict[str, list] = {}

    def add(name: str, node: exp.Expression, build: Callable[[exp.Expression], exp.Expression]) -> None:
        fam.setdefault(name, []).append((node, build))

    pg = dialect != "sqlite"
    null_fn = rng.choice(["IFNULL", "ISNULL", "NVL"] if pg else ["ISNULL", "NVL"])
    if_fn = rng.choice(["IF", "IIF"])
    trunc_style = rng.choice(["mysql", "sqlite"])
    for n in tree.walk():
        if isinstance(n, exp.Coalesce) and len(n.expressions) == 1:
            add(f"{null_fn}()", n, lambda x, f=null_fn: _fn(f, x.this, x.expressions[0]))
        elif pg and isinstance(n, exp.Case) and n.this is None and len(n.args.get("ifs") or []) == 1:
            def b_if(x: exp.Expression, fn: str = if_fn) -> exp.Expression:
                arm = x.args["ifs"][0]
                default = x.args.get("default") or exp.Null()
                return _fn(fn, arm.this, arm.args["true"], default)

            add(f"{if_fn}()", n, b_if)
        elif isinstance(n, exp.Extract):
            unit = n.this.name.upper()
            if unit in {"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND", "QUARTER"}:
                add("YEAR()/MONTH()", n, lambda x, u=unit: _fn(u, x.expression))
            elif unit == "EPOCH" and pg:
                inner = n.expression.unnest() if isinstance(n.expression, exp.Paren) else n.expression
                if isinstance(inner, exp.Sub):
                    add("TIMESTAMPDIFF()", n, lambda x: _fn(
                        "TIMESTAMPDIFF", _raw("SECOND"),
                        (x.expression.unnest() if isinstance(x.expression, exp.Paren) else x.expression).expression,
                        (x.expression.unnest() if isinstance(x.expression, exp.Paren) else x.expression).this))
                else:
                    add("UNIX_TIMESTAMP()", n, lambda x: _fn("UNIX_TIMESTAMP", x.expression))
        elif isinstance(n, exp.CurrentDate) or (
            not pg and isinstance(n, exp.Date) and isinstance(n.this, exp.Literal) and n.this.name.lower() == "now"
        ):
            add("CURDATE()", n, lambda x: _fn("CURDATE"))
        elif isinstance(n, exp.CurrentTimestamp):
            add("GETDATE()", n, lambda x: _fn("GETDATE"))
        elif isinstance(n, (exp.Sub, exp.Add)) and isinstance(n.expression, exp.Interval):
            parts = _interval_parts(n.expression)
            if parts:
                fn = "DATE_SUB" if isinstance(n, exp.Sub) else "DATE_ADD"
                add("DATE_SUB()/DATE_ADD()", n, lambda x, fn=fn, p=parts: _fn(fn, x.this, _raw(f"INTERVAL {p[0]} {p[1]}")))
        elif isinstance(n, exp.Sub) and pg and _is_date_expr(n.this, ctx) and _is_date_expr(n.expression, ctx):
            add("DATEDIFF()", n, lambda x: _fn("DATEDIFF", x.this, x.expression))
        elif (
            not pg
            and isinstance(n, exp.Sub)
            and all(isinstance(s, exp.Anonymous) and s.name.lower() == "julianday" and len(s.expressions) == 1
                    for s in (n.this, n.expression))
        ):
            add("DATEDIFF()", n, lambda x: _fn("DATEDIFF", x.this.expressions[0], x.expression.expressions[0]))
        elif not pg and isinstance(n, exp.Anonymous) and n.name.upper() == "DATE" and len(n.expressions) == 2:
            mod = n.expressions[1]
            m = re.fullmatch(r"([+-])\s*(\d+)\s+([a-z]+)", mod.name.strip().lower()) if isinstance(mod, exp.Literal) else None
            if m and _singular(m.group(3)).upper() in {"DAY", "MONTH", "YEAR", "HOUR", "MINUTE"}:
                fn = "DATE_SUB" if m.group(1) == "-" else "DATE_ADD"
                add("DATE_SUB()/DATE_ADD()", n, lambda x, fn=fn, m=m: _fn(
                    fn, x.expressions[0], _raw(f"INTERVAL {m.group(2)} {_singular(m.group(3)).upper()}")))
        elif isinstance(n, (exp.TimestampTrunc, exp.DateTrunc)) and pg and _projection_context(n):
            unit = n.args.get("unit").name.upper() if n.args.get("unit") is not None else ""
            fmt = {"MONTH": "%Y-%m-01", "YEAR": "%Y-01-01", "DAY": "%Y-%m-%d"}.get(unit)
            if fmt:
                if trunc_style == "mysql":
                    add("DATE_FORMAT()", n, lambda x, f=fmt: _fn("DATE_FORMAT", x.this, exp.Literal.string(f)))
                else:
                    add("strftime()", n, lambda x, f=fmt: _fn("strftime", exp.Literal.string(f), x.this))
        elif isinstance(n, exp.TimeToStr) and isinstance(n.args.get("format"), exp.Literal):
            fmt = n.args["format"].name
            if re.fullmatch(r"[%YmdHMS\-: /]+", fmt) and pg:
                add("DATE_FORMAT()", n, lambda x, f=fmt: _fn("DATE_FORMAT", x.this, exp.Literal.string(f.replace("%M", "%i"))))
            elif not pg and fmt in {"%Y", "%m", "%d"} and (
                isinstance(n.parent, exp.Cast) or _projection_context(n)
            ):
                fn = {"%Y": "YEAR", "%m": "MONTH", "%d": "DAY"}[fmt]
                target = n.parent if isinstance(n.parent, exp.Cast) else n
                inner = n.this.this if isinstance(n.this, exp.TsOrDsToTimestamp) else n.this
                add("YEAR()/MONTH()", target, lambda x, fn=fn, inner=inner: _fn(fn, inner.copy()))
        elif isinstance(n, exp.UnixToTime) and pg:
            add("FROM_UNIXTIME()", n, lambda x: _fn("FROM_UNIXTIME", x.this))
        elif isinstance(n, exp.GroupConcat) and pg:
            sep = n.args.get("separator")
            add("GROUP_CONCAT()", n, lambda x, s=sep: _fn("GROUP_CONCAT", x.this, *( [s] if s is not None else [])))
        elif isinstance(n, exp.Length):
            add("LEN()", n, lambda x: _fn("LEN", x.this))
        elif not pg and isinstance(n, exp.Cast) and n.to.this in {exp.DataType.Type.DOUBLE, exp.DataType.Type.FLOAT}:
            add("::FLOAT", n, lambda x: _raw(f"{x.this.sql(dialect='sqlite')}::FLOAT"))
    return fam


def _k_dialect_function(sql: str, schema: Schema, rng: random.Random) -> tuple[str, str] | None:
    got = _prep(sql, schema)
    if got is None:
        return None
    tree, ctx = got
    fam = _function_families(tree, ctx, schema.dialect, rng)
    if not fam:
        return None
    name = rng.choice(sorted(fam))
    items = fam[name]
    order = {id(n): i for i, n in enumerate(tree.walk())}
    items = sorted(items, key=lambda it: -order.get(id(it[0]), 0))  # deepest first
    done = 0
    for node, build in items:
        if node.parent is None and node is not tree:
            continue
        node.replace(build(node))
        done += 1
    if not done:
        return None
    return _render(tree, schema.dialect), f"{name} from another SQL dialect ({done}x)"


# ---- dialect_syntax


def _root_select(tree: exp.Expression) -> exp.Select | None:
    return tree if isinstance(tree, exp.Select) else None


def _k_dialect_syntax(sql: str, schema: Schema, rng: random.Random) -> tuple[str, str] | None:
    got = _prep(sql, schema)
    if got is None:
        return None
    tree, ctx = got
    d = schema.dialect
    pg = d != "sqlite"
    root = _root_select(tree)
    lim = root.args.get("limit") if root is not None else None
    off = root.args.get("offset") if root is not None else None
    lim_n = lim.expression.name if isinstance(lim, exp.Limit) and isinstance(lim.expression, exp.Literal) else None
    off_n = off.expression.name if isinstance(off, exp.Offset) and isinstance(off.expression, exp.Literal) else None
    options = []
    if pg:
        options.append("foreign_quotes")
    if lim_n and not off_n:
        options.append("top")
        if not pg:
            options.append("fetch_first")
    if pg and lim_n and off_n:
        options.append("limit_comma")
    names = {t.name.lower() for t in schema.tables} | {c.name.lower() for t in schema.tables for c in t.columns}
    names |= ctx.output_names()
    strs = []
    eqs = []
    if pg:
        for lit in tree.find_all(exp.Literal):
            if not lit.is_string or not lit.name or '"' in lit.name or lit.name.lower() in names:
                continue
            if not isinstance(lit.parent, (exp.EQ, exp.NEQ, exp.In, exp.Like, exp.ILike)):
                continue
            if lit.find_ancestor(exp.Where, exp.Having, exp.Join) is None:
                continue
            strs.append(lit)
        if strs:
            options.append("dq_strings")
        for e in tree.find_all(exp.EQ):
            if e.find_ancestor(exp.Where) is not None and not isinstance(e.parent, (exp.Not,)):
                eqs.append(e)
        if eqs:
            options.append("double_equals")
    if not options:
        return None
    what = rng.choice(options)
    if what == "foreign_quotes":
        lq, rq = rng.choice([("`", "`"), ("`", "`"), ("[", "]")])
        only_tables = rng.random() < 0.3
        for idn in list(tree.find_all(exp.Identifier)):
            if only_tables and not isinstance(idn.parent, exp.Table):
                continue
            idn.replace(_raw(f"{lq}{idn.name}{rq}"))
        out = _render(tree, d)
        note = f"identifiers quoted with {lq}{rq}" + (" (tables only)" if only_tables else "")
    elif what == "top":
        assert root is not None
        root.set("limit", None)
        first = root.expressions[0]
        first.replace(_raw(f"TOP {lim_n} {first.sql(dialect=d)}"))
        out = _render(tree, d)
        note = f"T-SQL TOP {lim_n} instead of LIMIT {lim_n}"
    elif what == "fetch_first":
        assert root is not None
        root.set("limit", None)
        out = f"{_render(tree, d)} FETCH FIRST {lim_n} ROWS ONLY"
        note = f"FETCH FIRST {lim_n} ROWS ONLY instead of LIMIT {lim_n}"
    elif what == "limit_comma":
        assert root is not None
        root.set("limit", None)
        root.set("offset", None)
        out = f"{_render(tree, d)} LIMIT {off_n}, {lim_n}"
        note = f"MySQL LIMIT {off_n}, {lim_n} instead of LIMIT {lim_n} OFFSET {off_n}"
    elif what == "dq_strings":
        for lit in strs:
            lit.replace(_raw(f'"{lit.name}"'))
        out = _render(tree, d)
        note = f"string literal(s) in double quotes ({len(strs)}x)"
    else:
        for e in eqs:
            e.replace(_raw(f"{e.this.sql(dialect=d)} == {e.expression.sql(dialect=d)}"))
        out = _render(tree, d)
        note = f"== used for equality ({len(eqs)}x)"
    return out, note


# ---- keyword_alias


def _keyword_candidates(table_name: str, reserved: frozenset[str]) -> list[str]:
    low = table_name.lower()
    words = _table_words(table_name)
    first = words[0] if words else low
    out = []
    for kw in sorted(reserved):
        k = kw.lower()
        if not k.isalpha():
            continue
        if (len(k) == 2 and low.startswith(k)) or k in (first, _singular(first)) or (len(k) >= 4 and low.startswith(k)):
            out.append(k)
    return out


def _k_keyword_alias(sql: str, schema: Schema, rng: random.Random) -> tuple[str, str] | None:
    got = _prep(sql, schema)
    if got is None:
        return None
    tree, ctx = got
    reserved = _reserved(schema.dialect)
    used = set(ctx.output_names())
    for t in tree.find_all(exp.Table):
        used.add(t.alias_or_name.lower())
    cands = []
    for si, sc in enumerate(ctx.scopes):
        srcs = ctx.srcs[id(sc)]
        for key in sorted(srcs):
            s = srcs[key]
            if not isinstance(s.node, exp.Table) or s.table is None:
                continue
            for kw in _keyword_candidates(s.node.name, reserved):
                if kw not in used:
                    cands.append((si, key, kw))
    if not cands:
        return None
    si, key, kw = rng.choice(cands)
    sc = ctx.scopes[si]
    s = ctx.srcs[id(sc)][key]
    for col in ctx.columns(sc):
        if col.table and col.table.lower() == s.key.lower():
            col.set("table", exp.Identifier(this=kw, quoted=False))
    s.node.set("alias", exp.TableAlias(this=exp.Identifier(this=kw, quoted=False)))
    old = f" (was {s.alias})" if s.alias else ""
    return _render(tree, schema.dialect), f"reserved word {kw.upper()} used unquoted as alias of {s.node.name}{old}"


# ---- markdown_prose


def _describe(sql: str, schema: Schema) -> tuple[list[str], list[str]]:
    tree = _parse(sql, schema.dialect)
    tables: list[str] = []
    facts: list[str] = []
    if tree is None:
        return tables, facts
    for t in tree.find_all(exp.Table):
        if t.name and t.name not in tables and t.name.lower() not in {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}:
            tables.append(t.name)
    if tree.find(exp.Join):
        facts.append("joins the tables on their keys")
    if tree.find(exp.Where):
        facts.append("filters the rows to the ones you asked about")
    if tree.find(exp.Group):
        facts.append("groups the rows and aggregates each group")
    if tree.find(exp.Order):
        facts.append("sorts the result")
    if tree.find(exp.Limit):
        facts.append("keeps only the top rows")
    if tree.find(exp.CTE):
        facts.append("uses a common table expression for the intermediate step")
    return tables, facts


def _pretty(sql: str, dialect: str) -> str:
    tree = _parse(sql, dialect)
    if tree is None or _norm(_render(tree, dialect)) != _norm(sql):
        return sql
    try:
        return tree.sql(dialect=dialect, pretty=True)
    except Exception:
        return sql


def _k_markdown_prose(sql: str, schema: Schema, rng: random.Random) -> tuple[str, str] | None:
    body = sql.strip().rstrip(";").strip()
    if not body:
        return None
    tables, facts = _describe(body, schema)
    tlist = ", ".join(tables) if tables else "the relevant"
    expl = "; it " .join(facts) if facts else "returns the requested data"
    pretty = _pretty(body, schema.dialect) if rng.random() < 0.6 else body
    form = rng.randrange(6)
    if form == 0:
        reply = (f"Here is the SQL query that answers your question:\n\n```sql\n{pretty};\n```\n\n"
                 f"This query reads from {tlist} and {expl}.")
        note = "```sql fence with prose before and after"
    elif form == 1:
        reply = f"```sql\n-- Query over {tlist}\n-- It {expl}\n{pretty}\n```"
        note = "```sql fence with leading -- comments"
    elif form == 2:
        reply = (f"To answer this we need the {tlist} table{'s' if len(tables) > 1 else ''}.\n\n```\n{pretty};\n```\n\n"
                 "Let me know if you would like the results broken down further!")
        note = "unlabelled ``` fence with prose"
    elif form == 3:
        bullets = "\n".join(f"- It {f}." for f in facts) or "- It returns the requested data."
        reply = f"SQL query:\n```SQL\n{pretty};\n```\n\nExplanation:\n{bullets}"
        note = "```SQL fence followed by a bullet-list explanation"
    elif form == 4:
        reply = f"Sure! The following query should work:\n\n{pretty};\n\nIt {expl}."
        note = "no fence: prose line, query with semicolon, prose line"
    else:
        reply = f"```sql\n{pretty}; /* {expl} */\n```\nNote: the result depends on the current data in {tlist}."
        note = "```sql fence with trailing block comment and a note"
    return reply, note


# ---- combined

_TREE_KINDS = (
    "column_variant", "table_variant", "redundant_join", "ambiguous_column", "alias_misuse",
    "group_by_missing", "having_misuse", "keyword_alias", "dialect_function",
)

_KINDS: dict[str, _KindFn] = {
    "column_variant": _k_column_variant,
    "table_variant": _k_table_variant,
    "redundant_join": _k_redundant_join,
    "ambiguous_column": _k_ambiguous_column,
    "alias_misuse": _k_alias_misuse,
    "group_by_missing": _k_group_by_missing,
    "having_misuse": _k_having_misuse,
    "dialect_function": _k_dialect_function,
    "dialect_syntax": _k_dialect_syntax,
    "keyword_alias": _k_keyword_alias,
    "markdown_prose": _k_markdown_prose,
}

# second faults that keep the pair recoverable after a first one
_INCOMPATIBLE = {
    ("redundant_join", "ambiguous_column"),  # the added table could be what makes a name ambiguous
    ("ambiguous_column", "redundant_join"),
    ("keyword_alias", "alias_misuse"),
    ("alias_misuse", "keyword_alias"),
    ("table_variant", "alias_misuse"),
    ("alias_misuse", "table_variant"),
}


def _differs(out: str, base: str, gold: str) -> bool:
    return _norm(out) != _norm(base) and _norm(out) != _norm(gold)


def _apply(kind: str, sql: str, schema: Schema, seed: int, gold: str) -> tuple[str, str] | None:
    try:
        res = _KINDS[kind](sql, schema, _rng(gold, kind, seed))
    except Exception:
        return None
    if res is None or not _differs(res[0], sql, sql):
        return None
    return res


def _k_combined(gold: str, schema: Schema, seed: int) -> tuple[str, str] | None:
    rng = _rng(gold, "combined", seed)
    firsts = list(_TREE_KINDS)
    rng.shuffle(firsts)
    seconds_all = [k for k in _KINDS if k != "markdown_prose"] + ["markdown_prose"]
    for first in firsts:
        r1 = _apply(first, gold, schema, seed, gold)
        if r1 is None:
            continue
        seconds = [k for k in seconds_all if k != first and (first, k) not in _INCOMPATIBLE]
        rng.shuffle(seconds)
        for second in seconds:
            r2 = _apply(second, r1[0], schema, seed, gold + "\x00" + first)
            if r2 is not None:
                return r2[0], f"{first}: {r1[1]}; then {second}: {r2[1]}"
    return None


# --------------------------------------------------------------------------------------------------------------


def damage(gold_sql: str, schema: Schema, kind: str, seed: int = 0) -> Damaged | None:
    """The reply a small model might give instead of ``gold_sql``, damaged as ``kind`` says; None when the kind
    does not apply to this query.  Deterministic for a given (gold_sql, kind, seed)."""
    if kind not in DAMAGE_KINDS:
        raise ValueError(f"unknown damage kind {kind!r}; expected one of {DAMAGE_KINDS}")
    if kind == "clean":
        return Damaged("clean", gold_sql, "unchanged gold query")
    gold = gold_sql.strip()
    tree = _parse(gold, schema.dialect)
    if tree is None:
        return None
    base = _render(tree, schema.dialect)
    if kind == "combined":
        res = _k_combined(base, schema, seed)
    else:
        try:
            res = _KINDS[kind](base, schema, _rng(base, kind, seed))
        except Exception:
            res = None
    if res is None:
        return None
    reply, note = res
    if kind != "markdown_prose" and not _differs(reply, base, gold):
        return None
    if kind == "markdown_prose" and reply.strip() == gold:
        return None
    return Damaged(kind, reply, note)
