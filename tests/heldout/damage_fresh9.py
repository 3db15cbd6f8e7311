"""Held-out damage generator "fresh9": realistic mistakes of small local text-to-SQL models.

Written without reading Cairn's repair code. Each kind edits the gold SQL text in place (positions come from
sqlglot's tokenizer and from identifier metadata of the parsed tree); everything that is not damaged stays
byte-identical, and nothing is re-rendered through sqlglot.  The mistakes follow published error analyses of
LLM text-to-SQL (BIRD, Spider, DIN-SQL, MAC-SQL, CHESS, "NL2SQL is a solved problem... not!") and what 7-8B
coder models (qwen2.5-coder, llama3.1) typically do.

Family A - the reply is broken: the database rejects the SQL, or the SQL is hard to find in the reply.
    invented_column      a plausible but non-existent column name (synonym, table-prefixed, snake/camel case,
                         expanded abbreviation, plural, id spelled out), in every use or just one
    invented_table       a plausible but non-existent table name (plural/singular, snake_case, prefix dropped,
                         junction words swapped, PostgreSQL schema prefix forgotten)
    wrong_table_column   a column taken from the wrong table: qualified by another table of the join, or the
                         similarly named column of a similarly named table that the query does not use
    ambiguous_column     a qualifier dropped after a join, so the column name is ambiguous
    grouping_error       GROUP BY dropped or incomplete, HAVING condition written in WHERE, a bare column added
                         next to an aggregate, an aggregate alias put into GROUP BY
    foreign_dialect      another dialect's functions or syntax (TOP n, YEAR(), DATE_FORMAT, strftime on
                         PostgreSQL, INTERVAL on SQLite, ::casts on SQLite, ILIKE on SQLite, NVL, LEN, ...)
    odd_quoting          identifiers quoted oddly (backticks / brackets on PostgreSQL, "Mixed" case quoted
                         where the catalogue folded it, "table.column" as one identifier, 'column' as string)
    syntax_slip          trailing / missing comma, clauses in the wrong order, lost parenthesis, alias with
                         spaces and no quotes
    cte_scope            a model that loves CTEs wraps the query in WITH ... and then refers to the inner
                         tables or aggregates from outside (or uses an inner alias after an existing CTE)
    alias_mixup          a model that aliases everything: table aliased but the full name still used, alias
                         letters drifting between clauses
    truncated            the reply stops mid-query (token limit), without closing the fence
    prose_layout         no usual fence: SQL inline in a sentence, bare paragraph, "SQL:" label, inside a
                         markdown list, as an indented code block, in a blockquote, prose on the same line
    json_reply           the answer is a JSON object (sometimes fenced) whose string holds the SQL
    multiple_blocks      several SQL blocks: exploration first, a wrong draft then the fix, a follow-up check,
                         a schema lookup, or a step-by-step inner query
    explain_comments     a model that explains line by line inside the code block, with '#' or '//' comments,
                         bare prose lines, or '--' comments that contain quotes and semicolons
    hinglish_reply       Hindi-English (Latin or Devanagari) prose around an unfenced or oddly fenced query

Family B - the reply runs but answers something else.
    join_mistake         INNER vs LEFT join confused, or the join condition uses the wrong key column
    needless_join        an extra join to a table the question does not need, multiplying or dropping rows
    wrong_aggregate      SUM/COUNT/AVG confused, MIN and MAX swapped
    dropped_filter       one WHERE / HAVING / ON condition forgotten
    comparison_flip      comparison direction or strictness wrong, '= NULL', a NOT lost
    date_range           date boundaries wrong: inclusive/exclusive end, NOW vs CURRENT_DATE, month vs
                         30 days, calendar truncation forgotten, DATE() forgotten around a timestamp
    limit_order          ASC/DESC flipped, ORDER BY lost, LIMIT changed, dropped or added
    literal_format       literal in the wrong case or form (code vs full name, LIKE turned into '=',
                         ILIKE turned into LIKE, LOWER() dropped)
    integer_division     the float cast of a ratio is forgotten, so the division is an integer one
    distinct_flip        DISTINCT missing (SELECT or COUNT) or added where it changes the answer

"clean" is the gold query in an ordinary reply.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import random
import re
from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.tokens import TokenType as T

__all__ = ["DAMAGE_KINDS", "TREE_KINDS", "Damaged", "damage"]

DAMAGE_KINDS: tuple[str, ...] = (
    "clean",
    # family A
    "invented_column",
    "invented_table",
    "wrong_table_column",
    "ambiguous_column",
    "grouping_error",
    "foreign_dialect",
    "odd_quoting",
    "syntax_slip",
    "cte_scope",
    "alias_mixup",
    "truncated",
    "prose_layout",
    "json_reply",
    "multiple_blocks",
    "explain_comments",
    "hinglish_reply",
    # family B
    "join_mistake",
    "needless_join",
    "wrong_aggregate",
    "dropped_filter",
    "comparison_flip",
    "date_range",
    "limit_order",
    "literal_format",
    "integer_division",
    "distinct_flip",
)
TREE_KINDS: frozenset[str] = frozenset()

FAMILY_B = frozenset(
    {
        "join_mistake",
        "needless_join",
        "wrong_aggregate",
        "dropped_filter",
        "comparison_flip",
        "date_range",
        "limit_order",
        "literal_format",
        "integer_division",
        "distinct_flip",
    }
)


@dataclass(frozen=True)
class Damaged:
    kind: str
    reply: str
    note: str


class _Skip(Exception):
    """The kind does not apply to this query."""


# --------------------------------------------------------------------------------------------------------------
# small helpers


def _rng(gold_sql: str, kind: str, seed: int) -> random.Random:
    h = hashlib.sha256(f"fresh9\x00{kind}\x00{seed}\x00{gold_sql}".encode()).digest()
    return random.Random(int.from_bytes(h[:8], "big"))


def _pick(rng: random.Random, seq):
    seq = list(seq)
    if not seq:
        raise _Skip
    return seq[rng.randrange(len(seq))]


def _wpick(rng: random.Random, options):
    """options: list of (weight, value) with weight > 0."""
    options = [o for o in options if o[0] > 0]
    if not options:
        raise _Skip
    total = sum(w for w, _ in options)
    x = rng.random() * total
    for w, v in options:
        x -= w
        if x <= 0:
            return v
    return options[-1][1]


def _apply(text: str, edits) -> str:
    """edits: iterable of (start, end_exclusive, replacement); must not overlap."""
    edits = sorted(edits, key=lambda e: (e[0], e[1]))
    out = []
    pos = 0
    for s, e, r in edits:
        if s < pos:
            raise _Skip  # overlapping edits
        out.append(text[pos:s])
        out.append(r)
        pos = e
    out.append(text[pos:])
    return "".join(out)


def _words(name: str) -> list[str]:
    parts = re.split(r"_+", name)
    out: list[str] = []
    for p in parts:
        out.extend(re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+", p) or ([p] if p else []))
    return [w for w in out if w]


def _is_camel(name: str) -> bool:
    return "_" not in name and any(c.isupper() for c in name[1:]) and any(c.islower() for c in name)


def _join_words(words: list[str], like: str) -> str:
    if _is_camel(like):
        head = words[0] if words[0][:1].islower() else words[0].capitalize()
        if like[:1].islower():
            head = head[:1].lower() + head[1:]
        return head + "".join(w[:1].upper() + w[1:] for w in words[1:])
    if like.isupper():
        return "_".join(w.upper() for w in words)
    return "_".join(w.lower() for w in words)


def _plural(w: str) -> str:
    lw = w.lower()
    if lw.endswith("s"):
        return w
    if lw.endswith("y") and len(lw) > 2 and lw[-2] not in "aeiou":
        return w[:-1] + "ies"
    if lw.endswith(("ch", "sh", "x")):
        return w + "es"
    return w + "s"


def _singular(w: str) -> str:
    lw = w.lower()
    if lw.endswith("ies") and len(lw) > 4:
        return w[:-3] + "y"
    if lw.endswith(("ches", "shes", "xes")):
        return w[:-2]
    if lw.endswith("s") and not lw.endswith(("ss", "us", "is", "ics")) and len(lw) > 3:
        return w[:-1]
    return w


_SYNONYMS = {
    "name": ["title", "full_name", "label"],
    "title": ["name", "heading"],
    "num": ["count", "number", "total"],
    "number": ["num", "count", "no"],
    "count": ["num", "total", "cnt"],
    "date": ["dt", "day", "time"],
    "time": ["date", "datetime", "ts"],
    "created": ["creation", "create"],
    "amount": ["total", "value", "amt"],
    "price": ["cost", "amount"],
    "cost": ["price", "amount"],
    "total": ["sum", "amount"],
    "status": ["state", "current_status"],
    "type": ["category", "kind"],
    "category": ["type", "genre"],
    "score": ["rating", "points"],
    "rating": ["score", "stars"],
    "stars": ["rating", "score"],
    "year": ["yr", "publication_year"],
    "city": ["town", "city_name"],
    "country": ["nation", "country_code"],
    "code": ["id", "abbr"],
    "email": ["email_address", "mail"],
    "phone": ["phone_number", "telephone"],
    "address": ["addr", "street"],
    "description": ["desc", "details"],
    "user": ["customer", "account"],
    "customer": ["client", "buyer"],
    "cust": ["customer", "client"],
    "tx": ["trans", "transaction"],
    "high": ["max", "peak"],
    "low": ["min", "bottom"],
    "open": ["opening", "start"],
    "close": ["closing", "end"],
    "volume": ["vol", "qty"],
    "start": ["begin", "from"],
    "end": ["finish", "to"],
    "salary": ["pay", "wage"],
    "department": ["dept", "division"],
    "first": ["given", "fname"],
    "last": ["family", "surname"],
    "keyword": ["tag", "term"],
    "review": ["comment", "feedback"],
    "rank": ["ranking", "position"],
    "population": ["pop", "inhabitants"],
    "area": ["size", "surface"],
    "length": ["len", "size"],
    "height": ["elevation", "altitude"],
    "state": ["province", "region"],
    "text": ["content", "body"],
    "duration": ["length", "days"],
    "quantity": ["qty", "units"],
    "sale": ["order", "purchase"],
    "balance": ["amount", "funds"],
    "month": ["mon", "period"],
}

_ABBREV = {
    "cust": "customer",
    "tx": "transaction",
    "txn": "transaction",
    "num": "number",
    "qty": "quantity",
    "amt": "amount",
    "desc": "description",
    "addr": "address",
    "dept": "department",
    "doc": "doctor",
    "loc": "location",
    "dt": "date",
    "ts": "timestamp",
    "dp": "daily_price",
    "ccy": "currency",
    "pct": "percent",
    "avg": "average",
    "prev": "previous",
    "msg": "message",
    "pid": "paper_id",
    "aid": "author_id",
    "cid": "conference_id",
    "jid": "journal_id",
    "kid": "keyword_id",
    "did": "domain_id",
    "oid": "organization_id",
    "uid": "user_id",
    "mid": "merchant_id",
}

_AGG = {"COUNT", "SUM", "AVG", "MIN", "MAX", "TOTAL", "GROUP_CONCAT", "STRING_AGG", "ARRAY_AGG"}
_DATE_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})((?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?)$")
_NUMERIC_TYPES = ("int", "serial", "bigint", "smallint", "numeric", "decimal", "real", "float", "double", "money")
_FLOAT_TYPES = ("numeric", "decimal", "real", "float", "double", "money")

_US_STATES = {
    "CA": "California", "NY": "New York", "TX": "Texas", "FL": "Florida", "IL": "Illinois", "WA": "Washington",
    "MA": "Massachusetts", "PA": "Pennsylvania", "OH": "Ohio", "GA": "Georgia", "NJ": "New Jersey",
    "AZ": "Arizona", "CO": "Colorado", "MI": "Michigan", "NV": "Nevada", "OR": "Oregon", "VA": "Virginia",
    "NC": "North Carolina", "MN": "Minnesota", "UT": "Utah",
}
_COUNTRIES = {"US": "USA", "USA": "United States", "UK": "United Kingdom", "GB": "Great Britain",
              "CN": "China", "IN": "India", "DE": "Germany", "FR": "France", "CA": "Canada", "JP": "Japan"}


# --------------------------------------------------------------------------------------------------------------
# the analysed query


class _Block:
    """One SELECT ... at one parenthesis depth, with the token index of each clause keyword."""

    __slots__ = ("sel", "end", "depth", "clauses")

    def __init__(self, sel: int, end: int, depth: int, clauses: dict[str, int]):
        self.sel = sel
        self.end = end
        self.depth = depth
        self.clauses = clauses


class _Col:
    __slots__ = ("node", "name", "s", "e", "quoted", "qual", "qs", "qe", "scope", "table", "source")

    def __init__(self, **kw):
        for k, v in kw.items():
            setattr(self, k, v)


class _TRef:
    __slots__ = ("node", "name", "s", "e", "db", "ds", "alias", "as_", "ae", "table", "scope", "is_cte", "quoted")

    def __init__(self, **kw):
        for k, v in kw.items():
            setattr(self, k, v)


_CLAUSE = {
    T.FROM: "from",
    T.WHERE: "where",
    T.GROUP_BY: "group",
    T.HAVING: "having",
    T.ORDER_BY: "order",
    T.LIMIT: "limit",
    T.OFFSET: "offset",
    T.FETCH: "fetch",
}


class _Q:
    def __init__(self, sql: str, schema):
        self.sql = sql
        self.schema = schema
        d = str(getattr(schema, "dialect", "") or "").lower()
        if d in ("postgresql", "pg", "postgre", "psql"):
            d = "postgres"
        if d in ("sqlite3",):
            d = "sqlite"
        self.dialect = d or "postgres"
        self.pg = self.dialect == "postgres"
        self.toks = sqlglot.tokenize(sql, read=self.dialect)
        self.n = len(self.toks)
        self.depth: list[int] = []
        dep = 0
        for t in self.toks:
            if t.token_type == T.R_PAREN:
                dep -= 1
            self.depth.append(dep)
            if t.token_type == T.L_PAREN:
                dep += 1
        self.by_start = {t.start: i for i, t in enumerate(self.toks)}
        self.match = self._match_parens()
        self.blocks = self._blocks()
        try:
            self.tree = sqlglot.parse_one(sql, read=self.dialect)
        except Exception:
            self.tree = None
        self.cols: list[_Col] = []
        self.trefs: list[_TRef] = []
        self.scopes = []
        self.cte_names: set[str] = set()
        if self.tree is not None:
            try:
                self._analyse()
            except Exception:
                self.cols, self.trefs, self.scopes = [], [], []

    # ---- tokens
    def _match_parens(self) -> dict[int, int]:
        stack, m = [], {}
        for i, t in enumerate(self.toks):
            if t.token_type == T.L_PAREN:
                stack.append(i)
            elif t.token_type == T.R_PAREN and stack:
                j = stack.pop()
                m[j] = i
                m[i] = j
        return m

    def _blocks(self) -> list[_Block]:
        out = []
        for i, t in enumerate(self.toks):
            if t.token_type != T.SELECT:
                continue
            d = self.depth[i]
            j = i + 1
            clauses: dict[str, int] = {}
            while j < self.n:
                tt = self.toks[j].token_type
                if self.depth[j] < d:
                    break
                if self.depth[j] == d:
                    if tt in (T.UNION, T.INTERSECT, T.EXCEPT, T.SEMICOLON) or (tt == T.SELECT):
                        break
                    name = _CLAUSE.get(tt)
                    if name and name not in clauses:
                        clauses[name] = j
                j += 1
            out.append(_Block(i, j, d, clauses))
        return out

    def tt(self, i: int):
        return self.toks[i].token_type if 0 <= i < self.n else None

    def up(self, i: int) -> str:
        return self.toks[i].text.upper() if 0 <= i < self.n else ""

    def cs(self, i: int) -> int:
        return self.toks[i].start

    def ce(self, i: int) -> int:
        return self.toks[i].end + 1

    def text(self, i: int, j: int) -> str:
        """Source text of tokens [i, j)."""
        if j <= i:
            return ""
        return self.sql[self.cs(i) : self.ce(j - 1)]

    def clause_range(self, b: _Block, name: str) -> tuple[int, int] | None:
        k = b.clauses.get(name)
        if k is None:
            return None
        later = [v for v in b.clauses.values() if v > k]
        return k + 1, (min(later) if later else b.end)

    def select_range(self, b: _Block) -> tuple[int, int]:
        i = b.sel + 1
        if self.tt(i) == T.DISTINCT:
            i += 1
            if self.tt(i) == T.ON and self.tt(i + 1) == T.L_PAREN:
                i = self.match.get(i + 1, i) + 1
        elif self.up(i) == "ALL":
            i += 1
        later = [v for v in b.clauses.values()]
        return i, (min(later) if later else b.end)

    def split(self, i0: int, i1: int, d: int, sep=(T.COMMA,)) -> list[tuple[int, int]]:
        out, start = [], i0
        for k in range(i0, i1):
            if self.depth[k] == d and self.toks[k].token_type in sep:
                out.append((start, k))
                start = k + 1
        out.append((start, i1))
        return [r for r in out if r[1] > r[0]]

    def conjuncts(self, i0: int, i1: int, d: int) -> list[tuple[int, int]] | None:
        """AND-separated parts of a condition at depth d; None when an OR sits at that depth."""
        out, start, between = [], i0, False
        for k in range(i0, i1):
            if self.depth[k] != d:
                continue
            tt = self.toks[k].token_type
            if tt == T.OR:
                return None
            if tt == T.BETWEEN:
                between = True
            elif tt == T.AND:
                if between:
                    between = False
                else:
                    out.append((start, k))
                    start = k + 1
        out.append((start, i1))
        return [r for r in out if r[1] > r[0]]

    def is_call(self, i: int) -> bool:
        return (
            self.tt(i + 1) == T.L_PAREN
            and self.toks[i].token_type not in (T.IDENTIFIER, T.STRING, T.NUMBER)
            and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", self.toks[i].text or "") is not None
        )

    def call_args(self, i: int) -> list[tuple[int, int]]:
        lp = i + 1
        rp = self.match.get(lp)
        if rp is None:
            raise _Skip
        return self.split(lp + 1, rp, self.depth[lp] + 1)

    def has_agg(self, i0: int, i1: int) -> bool:
        for k in range(i0, i1):
            if self.up(k) in _AGG and self.is_call(k):
                rp = self.match.get(k + 1)
                if rp is not None and self.up(rp + 1) == "OVER":
                    continue
                return True
        return False

    def block_of(self, tok_index: int) -> _Block | None:
        best = None
        for b in self.blocks:
            if b.sel <= tok_index < b.end and (best is None or b.depth > best.depth or b.sel > best.sel):
                if best is None or b.depth >= best.depth:
                    best = b
        return best

    def region_of(self, tok_index: int) -> str:
        b = self.block_of(tok_index)
        if b is None:
            return "other"
        if self.depth[tok_index] != b.depth:
            # inside parentheses of this block: find the enclosing clause at block depth
            pass
        s0, s1 = self.select_range(b)
        if s0 <= tok_index < s1:
            return "select"
        best, name = -1, "other"
        for nm, k in b.clauses.items():
            if k <= tok_index and k > best:
                best, name = k, nm
        return name

    # ---- tree
    def _analyse(self) -> None:
        from sqlglot.optimizer.scope import traverse_scope

        for cte in self.tree.find_all(exp.CTE):
            if cte.alias:
                self.cte_names.add(cte.alias.lower())
        try:
            scopes = traverse_scope(self.tree)
        except Exception:
            scopes = []
        self.scopes = scopes
        seen_cols: set[int] = set()
        seen_tabs: set[int] = set()
        for si, sc in enumerate(scopes):
            srcs = {}
            for name, src in sc.sources.items():
                if isinstance(src, exp.Table):
                    srcs[name.lower()] = self.lookup(src)
                else:
                    srcs[name.lower()] = None
            for node in sc.columns:
                if id(node) in seen_cols:
                    continue
                seen_cols.add(id(node))
                c = self._mk_col(node, si, sc, srcs)
                if c is not None:
                    self.cols.append(c)
            for name, src in sc.selected_sources.items():
                node = src[0]
                if isinstance(node, exp.Table) and id(node) not in seen_tabs:
                    seen_tabs.add(id(node))
                    r = self._mk_tref(node, si)
                    if r is not None:
                        self.trefs.append(r)
        # tables that traverse_scope did not list (e.g. unusual statements)
        for node in self.tree.find_all(exp.Table):
            if id(node) not in seen_tabs:
                seen_tabs.add(id(node))
                r = self._mk_tref(node, -1)
                if r is not None:
                    self.trefs.append(r)
        self.cols.sort(key=lambda c: c.s)
        self.trefs.sort(key=lambda r: r.s)

    def lookup(self, tnode: exp.Table):
        if tnode.name.lower() in self.cte_names and not tnode.db:
            return None
        try:
            if tnode.db:
                t = self.schema.table(f"{tnode.db}.{tnode.name}")
                if t is not None:
                    return t
            return self.schema.table(tnode.name)
        except Exception:
            return None

    @staticmethod
    def _span(ident) -> tuple[int, int] | None:
        if not isinstance(ident, exp.Identifier):
            return None
        m = ident.meta
        if "start" not in m or "end" not in m:
            return None
        return m["start"], m["end"] + 1

    def _mk_col(self, node: exp.Column, si, sc, srcs) -> _Col | None:
        sp = self._span(node.this)
        if sp is None:
            return None
        if self.sql[sp[0] : sp[1]].strip('"`[]').lower() != node.name.lower():
            return None
        qual = node.args.get("table")
        qsp = self._span(qual) if qual is not None else None
        qname = node.table.lower() if node.table else None
        if node.args.get("db") is not None:
            return None
        table = None
        source = None
        if qname is not None:
            if qsp is None:
                return None
            if qname in srcs:
                table = srcs[qname]
                source = qname
        else:
            hits = [(k, t) for k, t in srcs.items() if t is not None and t.column(node.name) is not None]
            if len(hits) == 1:
                source, table = hits[0]
        if table is not None and table.column(node.name) is None:
            table = None
        return _Col(
            node=node,
            name=node.name,
            s=sp[0],
            e=sp[1],
            quoted=bool(node.this.args.get("quoted")),
            qual=node.table if node.table else None,
            qs=qsp[0] if qsp else None,
            qe=qsp[1] if qsp else None,
            scope=si,
            table=table,
            source=source,
        )

    def _mk_tref(self, node: exp.Table, si) -> _TRef | None:
        sp = self._span(node.this)
        if sp is None:
            return None
        db = node.args.get("db")
        dsp = self._span(db) if db is not None else None
        al = node.args.get("alias")
        asp = self._span(al.this) if isinstance(al, exp.TableAlias) and al.this is not None else None
        is_cte = node.name.lower() in self.cte_names and db is None
        return _TRef(
            node=node,
            name=node.name,
            s=sp[0],
            e=sp[1],
            db=node.db or None,
            ds=dsp[0] if dsp else None,
            alias=node.alias or None,
            as_=asp[0] if asp else None,
            ae=asp[1] if asp else None,
            table=None if is_cte else self.lookup(node),
            scope=si,
            is_cte=is_cte,
            quoted=bool(node.this.args.get("quoted")),
        )

    # ---- derived facts
    def tok_index(self, pos: int) -> int | None:
        return self.by_start.get(pos)

    def query_tables(self):
        out, seen = [], set()
        for r in self.trefs:
            if r.table is not None and r.table.qualified_name not in seen:
                seen.add(r.table.qualified_name)
                out.append(r.table)
        return out

    def query_colnames(self) -> set[str]:
        names = set()
        for t in self.query_tables():
            names.update(c.name.lower() for c in t.columns)
        return names

    def scope_sources(self, si: int) -> dict[str, object]:
        if si < 0 or si >= len(self.scopes):
            return {}
        out = {}
        for name, src in self.scopes[si].sources.items():
            out[name.lower()] = self.lookup(src) if isinstance(src, exp.Table) else None
        return out

    def scope_trefs(self, si: int) -> list[_TRef]:
        return [r for r in self.trefs if r.scope == si]

    def ref_name(self, r: _TRef) -> str:
        """How the query refers to this table reference (alias or written name)."""
        if r.alias:
            return r.alias
        return self.sql[r.s : r.e]

    def coltype(self, c: _Col) -> str:
        if c.table is None:
            return ""
        col = c.table.column(c.name)
        return (col.type or "").lower() if col is not None else ""

    def all_schema_tables(self):
        try:
            return list(self.schema.tables)
        except Exception:
            return []


# --------------------------------------------------------------------------------------------------------------
# ordinary reply text


def _feature_words(q: _Q) -> dict:
    names = []
    for r in q.trefs:
        w = q.sql[r.s : r.e].strip('"`')
        if r.table is not None and w not in names:
            names.append(w)
    if not names:
        names = [m for m in re.findall(r"(?i)\bfrom\s+([A-Za-z_][\w.]*)", q.sql)][:2] or ["the relevant"]
    ups = {q.up(i) for i in range(q.n)}
    lim = None
    for i in range(q.n):
        if q.tt(i) == T.LIMIT and q.tt(i + 1) == T.NUMBER:
            lim = q.toks[i + 1].text
    return {
        "tables": names,
        "join": "JOIN" in ups,
        "where": "WHERE" in ups,
        "group": any(q.tt(i) == T.GROUP_BY for i in range(q.n)),
        "order": any(q.tt(i) == T.ORDER_BY for i in range(q.n)),
        "limit": lim,
        "cte": q.tt(0) == T.WITH if q.n else False,
    }


def _tables_phrase(names: list[str]) -> str:
    names = [f"`{n}`" for n in names[:3]]
    if len(names) == 1:
        return f"the {names[0]} table"
    return "the " + ", ".join(names[:-1]) + f" and {names[-1]} tables"


def _explain_sentences(q: _Q, rng: random.Random) -> list[str]:
    f = _feature_words(q)
    out = []
    t = f["tables"]
    if f["join"] and len(t) > 1:
        out.append(rng.choice(["joins {a} with {b}", "combines {a} and {b} on their shared key",
                               "links {a} to {b}"]).format(a=f"`{t[0]}`", b=f"`{t[1]}`"))
    else:
        out.append(rng.choice(["reads from {x}", "queries {x}", "uses {x}"]).format(x=_tables_phrase(t)))
    if f["where"]:
        out.append(rng.choice(["filters the rows with the WHERE clause", "keeps only the matching rows",
                               "applies the conditions from your question"]))
    if f["group"]:
        out.append(rng.choice(["groups the results", "aggregates per group", "computes the totals per group"]))
    if f["order"]:
        out.append(rng.choice(["sorts the output", "orders the results", "ranks the rows"]))
    if f["limit"]:
        out.append(rng.choice(["returns only the top {n}", "limits the output to {n} rows",
                               "keeps the first {n} rows"]).format(n=f["limit"]))
    return out


def _explanation(q: _Q, rng: random.Random) -> str:
    parts = _explain_sentences(q, rng)
    style = rng.randrange(5)
    if style == 0:
        if len(parts) > 1:
            return "This query " + ", ".join(parts[:-1]) + " and " + parts[-1] + "."
        return "This query " + parts[0] + "."
    if style == 1:
        head = rng.choice(["Explanation:", "**Explanation:**", "How it works:", "### Explanation"])
        return head + "\n" + "\n".join(f"- It {p}." for p in parts)
    if style == 2:
        return "The query " + parts[0] + ". " + rng.choice(
            ["Let me know if you need any adjustments!", "Let me know if you want more columns.",
             "You may need to adjust the filter values to match your data.", ""]
        )
    if style == 3:
        return "\n".join(f"{i + 1}. {p[0].upper() + p[1:]}." for i, p in enumerate(parts))
    return ""


def _intro(q: _Q, rng: random.Random) -> str:
    f = _feature_words(q)
    return rng.choice(
        [
            "Here's the SQL query to answer your question:",
            "You can get this with the following query:",
            "Sure! Here is a query that should work:",
            "To answer this, we need to look at {tp}.",
            "Here is the query:",
            "Based on the schema, this query should give you the result:",
            "I'll query {tp} to get this.",
            "The following SQL returns what you asked for:",
            "To find this, we can use {tp}:",
        ]
    ).format(tp=_tables_phrase(f["tables"]))


def _fence_open(q: _Q, rng: random.Random) -> str:
    return _wpick(rng, [(10, "```sql"), (2, "```SQL"), (2, "```"),
                        (1, "```postgresql" if q.pg else "```sqlite")])


def _ordinary(q: _Q, sql: str, rng: random.Random) -> str:
    style = _wpick(rng, [(5, "full"), (2, "bare"), (3, "intro"), (2, "after")])
    fence = f"{_fence_open(q, rng)}\n{sql}\n```"
    if style == "bare":
        return fence
    intro = _intro(q, rng)
    if style == "intro":
        return f"{intro}\n\n{fence}"
    exp_ = _explanation(q, rng)
    if style == "after":
        return f"{fence}\n\n{exp_}".rstrip()
    return f"{intro}\n\n{fence}\n\n{exp_}".rstrip()


# --------------------------------------------------------------------------------------------------------------
# family A: broken SQL


_NOISE_WORDS = {"daily", "info", "data", "details", "record", "records", "history", "log", "snapshot", "snapshots",
                "balance", "table", "tbl", "stats"}


def _entity(table_name: str) -> str:
    """The thing a table is about, as a model would name it: sbCustomer -> customer, wallet_transactions_daily -> transaction."""
    words = [w.lower() for w in _words(table_name)]
    if len(words) >= 2 and len(words[0]) <= 2:
        words = words[1:]
    while len(words) >= 2 and words[-1] in _NOISE_WORDS:
        words = words[:-1]
    return _singular(words[-1]) if words else table_name.lower()


def _name_variants(name: str, table_name: str) -> list[tuple[str, str]]:
    """Plausible wrong spellings of a column name: (new_name, how)."""
    out: list[tuple[str, str]] = []
    words = _words(name)
    if not words:
        return out
    lw = [w.lower() for w in words]
    tsing = _entity(table_name)
    # synonym of one word
    for i, w in enumerate(lw):
        for syn in _SYNONYMS.get(w, []):
            nw = words[:i] + syn.split("_") + words[i + 1 :]
            out.append((_join_words(nw, name), f"synonym {syn} for {w}"))
    # expanded abbreviation
    for i, w in enumerate(lw):
        if w in _ABBREV and not (len(words) == 1 and w in ("num", "desc", "dt", "ts", "avg")) or (
            w in _ABBREV and len(words) > 1
        ):
            nw = words[:i] + _ABBREV[w].split("_") + words[i + 1 :]
            out.append((_join_words(nw, name), f"abbreviation {w} spelled out"))
    if name.lower() in _ABBREV and len(words) == 1:
        out.append((_ABBREV[name.lower()], "short key spelled out"))
    # table-prefixed
    if len(words) <= 2 and not _keyish(name) and tsing and len(tsing) <= 12 and not lw[0].startswith(tsing[:4]):
        out.append((_join_words([tsing] + words, name if not _is_camel(name) else "a_b"), "table name prefixed"))
    # ids
    if lw[-1] == "id" and len(words) == 1:
        out.append((f"{tsing}_id", "id spelled as <table>_id"))
    m = re.fullmatch(r"([a-z]{1,3})id", name.lower())
    if m:
        pre = m.group(1)
        if pre in _ABBREV:
            out.append((f"{_ABBREV[pre]}_id", "short id spelled out"))
        elif tsing.startswith(pre):
            out.append((f"{tsing}_id", "short id spelled as <table>_id"))
    # case style
    if _is_camel(name):
        out.append(("_".join(lw), "camelCase written as snake_case"))
        if len(words) >= 3 and len(words[0]) <= 3:
            out.append((_join_words(words[1:], name), "column prefix dropped"))
            out.append(("_".join(lw[1:]), "prefix dropped, snake_case"))
    elif "_" in name and len(words) >= 2:
        out.append((lw[0] + "".join(w.capitalize() for w in lw[1:]), "snake_case written as camelCase"))
        out.append(("".join(lw), "underscore dropped"))
    # plural / singular of the last word
    last = words[-1]
    if not _keyish(name):
        pl = _plural(last)
        if pl != last and not last.isdigit():
            out.append((_join_words(words[:-1] + [pl], name), "plural"))
        sg = _singular(last)
        if sg != last:
            out.append((_join_words(words[:-1] + [sg], name), "singular"))
    return [(n, h) for n, h in out if n and n.lower() != name.lower() and re.fullmatch(r"[A-Za-z_]\w*", n)]


def _table_variants(name: str) -> list[tuple[str, str]]:
    out = []
    words = _words(name)
    lw = [w.lower() for w in words]
    if not words:
        return out
    last = words[-1]
    if _singular(last) != last:
        out.append((_join_words(words[:-1] + [_singular(last)], name), "singular table name"))
    else:
        out.append((_join_words(words[:-1] + [_plural(last)], name), "plural table name"))
    if _is_camel(name):
        out.append(("_".join(lw), "camelCase table as snake_case"))
        if len(words) >= 2 and len(words[0]) <= 3:
            rest = words[1:]
            out.append(("_".join(w.lower() for w in rest), "prefix dropped"))
            out.append(("_".join(w.lower() for w in rest[:-1] + [_plural(rest[-1])]), "prefix dropped, plural"))
    if len(words) == 2 and "_" in name:
        out.append((f"{lw[1]}_{lw[0]}", "junction table words swapped"))
        out.append((f"{lw[0]}_{_plural(lw[1])}", "junction table pluralised"))
    if len(words) >= 2 and "_" in name:
        out.append(("".join(lw), "underscore dropped"))
    for i, w in enumerate(lw):
        if w in _ABBREV and w not in ("pid", "aid", "cid", "jid", "kid", "did", "oid", "uid", "mid"):
            nw = words[:i] + _ABBREV[w].split("_") + words[i + 1 :]
            out.append((_join_words(nw, name), "abbreviation spelled out"))
    return [(n, h) for n, h in out if n and n.lower() != name.lower()]


_ROWID = {"rowid", "oid", "_rowid_"}


def _k_invented_column(q: _Q, rng):
    known = {t.name.lower() for t in q.all_schema_tables()} | _ROWID
    allcols = q.query_colnames()
    groups: dict[tuple, list[_Col]] = {}
    for c in q.cols:
        if c.table is None or (c.quoted and not q.pg):
            continue
        groups.setdefault((c.table.qualified_name, c.name.lower()), []).append(c)
    options = []
    for key, cs in groups.items():
        tname = cs[0].table.name
        for new, how in _name_variants(cs[0].name, tname):
            if new.lower() in allcols or new.lower() in known:
                continue
            options.append((key, new, how))
    if not options:
        raise _Skip
    key, new, how = _pick(rng, options)
    cs = groups[key]
    chosen = cs if (len(cs) == 1 or rng.random() < 0.7) else [_pick(rng, cs)]
    edits = []
    for c in chosen:
        rep = f'"{new}"' if c.quoted else new
        edits.append((c.s, c.e, rep))
    where = "every use" if len(chosen) == len(cs) else "one use"
    return _apply(q.sql, edits), f"invented column {new} for {key[0]}.{cs[0].name} ({how}, {where})"


def _k_invented_table(q: _Q, rng):
    known = {t.name.lower() for t in q.all_schema_tables()} | {t.qualified_name.lower() for t in q.all_schema_tables()}
    groups: dict[str, list[_TRef]] = {}
    for r in q.trefs:
        if r.table is None or r.is_cte:
            continue
        groups.setdefault(r.table.qualified_name, []).append(r)
    options = []
    for key, rs in groups.items():
        written = q.sql[rs[0].s : rs[0].e]
        if rs[0].quoted and not q.pg:
            continue
        for new, how in _table_variants(written.strip('"')):
            if new.lower() not in known and new.lower() not in q.cte_names:
                options.append((3, (key, new, how, False)))
        if q.pg and any(r.db for r in rs):
            options.append((4, (key, None, "schema prefix forgotten", True)))
    key, new, how, drop_schema = _wpick(rng, options)
    rs = groups[key]
    edits = []
    for r in rs:
        if drop_schema:
            if r.ds is not None:
                edits.append((r.ds, r.s, ""))
            continue
        rep = f'"{new}"' if r.quoted else new
        edits.append((r.s, r.e, rep))
        if not r.alias and rng.random() < 0.75:
            written = q.sql[r.s : r.e].lower()
            for c in q.cols:
                if c.qual is not None and c.qs is not None and c.scope == r.scope and q.sql[c.qs : c.qe].lower() == written:
                    edits.append((c.qs, c.qe, rep))
    if not edits:
        raise _Skip
    if drop_schema:
        return _apply(q.sql, edits), f"schema prefix dropped from {key}"
    return _apply(q.sql, edits), f"invented table {new} for {key} ({how})"


def _k_wrong_table_column(q: _Q, rng):
    options = []
    # a) qualified by another table of the same scope
    for c in q.cols:
        if c.table is None or c.qual is None or c.qs is None:
            continue
        for r in q.scope_trefs(c.scope):
            if r.table is None or r.table is c.table:
                continue
            if r.table.column(c.name) is not None:
                continue
            rn = q.ref_name(r)
            if rn.lower() == (c.qual or "").lower():
                continue
            options.append((3, ("qual", c, rn, r.table.name)))
    # b) similar column of a similarly named table that the query does not use
    used = {t.qualified_name for t in q.query_tables()}
    qcols = q.query_colnames()
    others = [t for t in q.all_schema_tables() if t.qualified_name not in used]
    seen = set()
    for c in q.cols:
        if c.table is None or (c.quoted and not q.pg) or (c.table.qualified_name, c.name.lower()) in seen:
            continue
        seen.add((c.table.qualified_name, c.name.lower()))
        best = []
        for t2 in others:
            tsim = difflib.SequenceMatcher(None, c.table.name.lower(), t2.name.lower()).ratio()
            for col2 in t2.columns:
                n2 = col2.name
                if n2.lower() in qcols or n2.lower() in _ROWID:
                    continue
                r = difflib.SequenceMatcher(None, c.name.lower(), n2.lower()).ratio()
                shared = set(w.lower() for w in _words(c.name)) & set(w.lower() for w in _words(n2))
                score = r + 0.3 * tsim + (0.2 if shared else 0)
                if r >= 0.7 or (shared and (tsim >= 0.4 or r >= 0.5)):
                    best.append((score, n2, t2.name))
        best.sort(reverse=True)
        for score, n2, t2n in best[:2]:
            options.append((2, ("sim", c, n2, t2n)))
    how, c, x, tn = _wpick(rng, options)
    if how == "qual":
        out = _apply(q.sql, [(c.qs, c.qe, x)])
        return out, f"column {c.name} qualified with {x} ({tn}) instead of {c.qual}"
    rep = f'"{x}"' if c.quoted else x
    out = _apply(q.sql, [(c.s, c.e, rep)])
    return out, f"column {c.name} of {c.table.name} replaced by {x} of similarly named table {tn}"


def _k_ambiguous_column(q: _Q, rng):
    if any(q.tt(i) == T.USING for i in range(q.n)) or any(q.up(i) == "NATURAL" for i in range(q.n)):
        raise _Skip
    groups: dict[tuple, list[_Col]] = {}
    for c in q.cols:
        if c.qual is None or c.qs is None or c.table is None:
            continue
        srcs = q.scope_sources(c.scope)
        holders = [k for k, t in srcs.items() if t is not None and t.column(c.name) is not None]
        ti = q.tok_index(c.s)
        if ti is None or q.region_of(ti) in ("order", "group"):
            continue
        if q.region_of(ti) == "from":
            # in an ON condition only the tables joined so far are visible
            holders = [r for r in q.scope_trefs(c.scope) if r.table is not None and r.s < c.s and r.table.column(c.name) is not None]
        if len(holders) < 2:
            continue
        groups.setdefault((c.scope, c.name.lower()), []).append(c)
    if not groups:
        raise _Skip
    key = _pick(rng, sorted(groups, key=str))
    cs = groups[key]
    chosen = cs if rng.random() < 0.5 else [_pick(rng, cs)]
    if len(chosen) > 1:
        # a model drops the qualifier in the select list / filters, not on both sides of one ON
        kept, seen_on = [], False
        for c in chosen:
            if q.region_of(q.tok_index(c.s)) == "from":
                if seen_on:
                    continue
                seen_on = True
            kept.append(c)
        chosen = kept
    edits = [(c.qs, c.s, "") for c in chosen]
    return _apply(q.sql, edits), f"qualifier dropped from {cs[0].name} ({len(chosen)} of {len(cs)} uses); ambiguous after join"


def _agg_alias(q: _Q, i0: int, i1: int) -> str | None:
    if i1 - i0 >= 3 and q.tt(i1 - 2) == T.ALIAS and q.tt(i1 - 1) in (T.VAR, T.IDENTIFIER):
        return q.toks[i1 - 1].text if q.tt(i1 - 1) == T.VAR else q.text(i1 - 1, i1)
    return None


def _k_grouping_error(q: _Q, rng):
    options = []
    for b in q.blocks:
        s0, s1 = q.select_range(b)
        items = q.split(s0, s1, b.depth)
        plain = [it for it in items if not q.has_agg(*it)]
        aggs = [it for it in items if q.has_agg(*it)]
        g = q.clause_range(b, "group")
        if g is not None:
            gk = b.clauses["group"]
            if plain and aggs:
                options.append((3, ("drop_group", b, gk, g)))
            gitems = q.split(g[0], g[1], b.depth)
            if len(gitems) >= 2:
                for gi in gitems:
                    options.append((3 / len(gitems), ("drop_item", b, gitems, gi)))
            for it in aggs:
                al = _agg_alias(q, *it)
                if al:
                    options.append((1, ("alias_in_group", b, g, al)))
        h = q.clause_range(b, "having")
        if h is not None:
            options.append((4, ("having_where", b, h)))
        if g is None and aggs and not plain and "from" in b.clauses:
            # bare column added next to the aggregate
            f = q.clause_range(b, "from")
            srcs = [r for r in q.trefs if r.table is not None and f[0] <= (q.tok_index(r.s) or -1) < f[1]]
            for r in srcs:
                for col in r.table.columns:
                    t = (col.type or "").lower()
                    if any(x in col.name.lower() for x in ("name", "title", "symbol", "code")) or "char" in t or t == "text":
                        options.append((1.5, ("bare_col", b, s0, f"{q.ref_name(r)}.{col.name}")))
                        break
    kind = _wpick(rng, options)
    how = kind[0]
    if how == "drop_group":
        _, b, gk, g = kind
        start = q.ce(gk - 1) if gk > 0 else q.cs(gk)
        return _apply(q.sql, [(start, q.ce(g[1] - 1), "")]), "GROUP BY clause left out"
    if how == "drop_item":
        _, b, gitems, gi = kind
        k = gitems.index(gi)
        if k == 0:
            s, e = q.cs(gi[0]), q.cs(gitems[1][0])
        else:
            s, e = q.ce(gitems[k - 1][1] - 1), q.ce(gi[1] - 1)
        return _apply(q.sql, [(s, e, "")]), f"GROUP BY item {q.text(*gi)} left out"
    if how == "alias_in_group":
        _, b, g, al = kind
        return _apply(q.sql, [(q.ce(g[1] - 1), q.ce(g[1] - 1), f", {al}")]), f"aggregate alias {al} added to GROUP BY"
    if how == "having_where":
        _, b, h = kind
        cond = q.text(*h)
        hk = b.clauses["having"]
        edits = [(q.ce(hk - 1), q.ce(h[1] - 1), "")]
        w = q.clause_range(b, "where")
        if w is not None:
            edits.append((q.ce(w[1] - 1), q.ce(w[1] - 1), f" AND {cond}"))
        else:
            gk = b.clauses.get("group")
            if gk is None:
                raise _Skip
            edits.append((q.cs(gk), q.cs(gk), f"WHERE {cond} "))
        return _apply(q.sql, edits), "HAVING condition written in WHERE"
    _, b, s0, colref = kind
    return _apply(q.sql, [(q.cs(s0), q.cs(s0), f"{colref}, ")]), f"bare column {colref} added next to the aggregate without GROUP BY"


def _fmt_pg_to_other(fmt: str) -> tuple[str, str]:
    m = {"YYYY": "%Y", "MM": "%m", "DD": "%d", "HH24": "%H", "MI": "%M", "SS": "%S", "Mon": "%b", "Month": "%M"}
    out = fmt
    for k, v in sorted(m.items(), key=lambda kv: -len(kv[0])):
        out = out.replace(k, v)
    return out, out


def _simple_arg(q: _Q, a: int, b: int) -> bool:
    """Tokens [a, b) form one operand that needs no parentheses: a column, t.column, a literal or a call."""
    n = b - a
    if n == 1:
        return True
    if n == 3 and q.tt(a + 1) == T.DOT:
        return True
    return q.is_call(a) and q.match.get(a + 1) == b - 1


def _k_foreign_dialect(q: _Q, rng):
    options = []  # (weight, (edits, note))
    sql = q.sql
    # LIMIT n -> SELECT TOP n
    for b in q.blocks:
        lk = b.clauses.get("limit")
        if lk is None or q.tt(lk + 1) != T.NUMBER or "offset" in b.clauses:
            continue
        if lk + 2 < b.end and q.tt(lk + 2) not in (T.SEMICOLON, T.R_PAREN):
            continue
        ins = b.sel + 1
        if q.tt(ins) == T.DISTINCT:
            ins += 1
        n = q.toks[lk + 1].text
        edits = [(q.cs(ins), q.cs(ins), f"TOP {n} "), (q.ce(lk - 1), q.ce(lk + 1), "")]
        options.append((3, (edits, f"LIMIT {n} written as T-SQL TOP {n}")))
    for i in range(q.n):
        u = q.up(i)
        call = q.is_call(i)
        if call:
            try:
                args = q.call_args(i)
            except _Skip:
                continue
            rp = q.match[i + 1]
            whole = (q.cs(i), q.ce(rp))
            atext = [q.text(*a) for a in args]
        if q.pg:
            if u == "EXTRACT" and call and q.tt(i + 3) == T.FROM:
                unit = q.toks[i + 2].text.upper()
                x = q.text(i + 4, q.match[i + 1])
                fn = {"YEAR": "YEAR", "MONTH": "MONTH", "DAY": "DAY", "HOUR": "HOUR", "DOW": "DAYOFWEEK",
                      "WEEK": "WEEK", "QUARTER": "QUARTER"}.get(unit)
                if fn:
                    rep = _pick(rng, [f"{fn}({x})", f"DATEPART({unit.lower()}, {x})",
                                      f"strftime('%{ {'YEAR': 'Y', 'MONTH': 'm', 'DAY': 'd'}.get(unit, 'Y') }', {x})"])
                    options.append((3, ([(whole[0], whole[1], rep)], f"EXTRACT written as {rep.split('(')[0]}()")))
            elif u in ("DATE_TRUNC",) and call and len(args) == 2 and q.tt(args[0][0]) == T.STRING:
                unit = q.toks[args[0][0]].text.lower()
                x = atext[1]
                fm = {"month": ("%Y-%m-01", "%Y-%m"), "year": ("%Y-01-01", "%Y"), "day": ("%Y-%m-%d", "%Y-%m-%d"),
                      "week": ("%Y-%u", "%Y-%W"), "quarter": ("%Y-%m-01", "%Y-%m")}.get(unit)
                if fm:
                    rep = _pick(rng, [f"DATE_FORMAT({x}, '{fm[0]}')", f"strftime('{fm[1]}', {x})",
                                      f"TRUNC({x}, '{ {'month': 'MM', 'year': 'YYYY'}.get(unit, 'DD') }')"])
                    options.append((3, ([(whole[0], whole[1], rep)], f"DATE_TRUNC written as {rep.split('(')[0]}()")))
            elif u == "DATE_PART" and call and len(args) == 2 and q.tt(args[0][0]) == T.STRING:
                unit = q.toks[args[0][0]].text.upper()
                if unit in ("YEAR", "MONTH", "DAY"):
                    rep = f"{unit}({atext[1]})"
                    options.append((2, ([(whole[0], whole[1], rep)], f"DATE_PART written as {unit}()")))
            elif u == "TO_CHAR" and call and len(args) == 2 and q.tt(args[1][0]) == T.STRING:
                f1, _ = _fmt_pg_to_other(q.toks[args[1][0]].text)
                rep = _pick(rng, [f"DATE_FORMAT({atext[0]}, '{f1}')", f"strftime('{f1}', {atext[0]})"])
                options.append((2, ([(whole[0], whole[1], rep)], f"TO_CHAR written as {rep.split('(')[0]}()")))
            elif u == "NOW" and call and not args:
                rep = _pick(rng, ["GETDATE()", "SYSDATE()", "CURDATE()"])
                options.append((2, ([(whole[0], whole[1], rep)], f"NOW() written as {rep}")))
            elif q.tt(i) == T.CURRENT_DATE and q.tt(i + 1) != T.L_PAREN:
                rep = _pick(rng, ["CURDATE()", "GETDATE()", "SYSDATE"])
                options.append((2, ([(q.cs(i), q.ce(i), rep)], f"CURRENT_DATE written as {rep}")))
            elif q.tt(i) == T.INTERVAL and q.tt(i + 1) == T.STRING:
                m = re.fullmatch(r"\s*(\d+)\s*(day|month|year|week|hour|minute)s?\s*", q.toks[i + 1].text, re.I)
                if m:
                    rep = f"INTERVAL {m.group(1)} {m.group(2).upper()}"
                    options.append((2, ([(q.cs(i), q.ce(i + 1), rep)], "MySQL INTERVAL n UNIT syntax")))
            elif u == "COALESCE" and call and len(args) == 2:
                rep = _pick(rng, ["IFNULL", "ISNULL", "NVL"])
                options.append((2, ([(q.cs(i), q.ce(i), rep)], f"COALESCE written as {rep}")))
            elif u in ("STRING_AGG",) and call:
                options.append((2, ([(q.cs(i), q.ce(i), "GROUP_CONCAT")], "STRING_AGG written as GROUP_CONCAT")))
            elif q.tt(i) == T.DPIPE and q.tt(i - 1) in (T.STRING,) or (q.tt(i) == T.DPIPE and q.tt(i + 1) == T.STRING):
                options.append((1, ([(q.cs(i), q.ce(i), "+")], "string concatenation with + (T-SQL)")))
        else:
            if u == "STRFTIME" and call and len(args) == 2 and q.tt(args[0][0]) == T.STRING:
                f = q.toks[args[0][0]].text
                x = atext[1]
                if f == "%Y":
                    reps = [f"YEAR({x})", f"EXTRACT(YEAR FROM {x})", f"DATE_FORMAT({x}, '%Y')", f"TO_CHAR({x}, 'YYYY')"]
                elif f == "%m":
                    reps = [f"MONTH({x})", f"EXTRACT(MONTH FROM {x})", f"TO_CHAR({x}, 'MM')"]
                elif f in ("%Y-%m", "%Y-%m-01"):
                    reps = [f"DATE_FORMAT({x}, '{f}')", f"TO_CHAR({x}, 'YYYY-MM')", f"DATE_TRUNC('month', {x})"]
                else:
                    reps = [f"DATE_FORMAT({x}, '{f}')", f"TO_CHAR({x}, '{f}')"]
                rep = _pick(rng, reps)
                options.append((3, ([(whole[0], whole[1], rep)], f"strftime written as {rep.split('(')[0]}()")))
            elif u in ("DATE", "DATETIME") and call and args and q.tt(args[0][0]) == T.STRING and q.toks[args[0][0]].text.lower() == "now":
                if len(args) == 1:
                    rep = _pick(rng, ["CURDATE()", "GETDATE()", "NOW()"] if u == "DATE" else ["NOW()", "GETDATE()", "SYSDATETIME()"])
                    options.append((2, ([(whole[0], whole[1], rep)], f"{u}('now') written as {rep}")))
                elif len(args) == 2 and q.tt(args[1][0]) == T.STRING:
                    m = re.fullmatch(r"\s*([+-])\s*(\d+)\s*(day|month|year|hour|minute)s?\s*", q.toks[args[1][0]].text, re.I)
                    if m:
                        sgn, n, unit = m.group(1), m.group(2), m.group(3).lower()
                        base = "CURRENT_DATE" if u == "DATE" else "NOW()"
                        reps = [
                            f"{base} {sgn} INTERVAL '{n} {unit}{'s' if n != '1' else ''}'",
                            f"DATE_{'SUB' if sgn == '-' else 'ADD'}({'CURDATE()' if u == 'DATE' else 'NOW()'}, INTERVAL {n} {unit.upper()})",
                            f"DATEADD({unit}, {'-' if sgn == '-' else ''}{n}, GETDATE())",
                        ]
                        rep = _pick(rng, reps)
                        options.append((3, ([(whole[0], whole[1], rep)], "date arithmetic of another dialect")))
            elif u == "JULIANDAY" and call and len(args) == 1 and q.tt(q.match[i + 1] + 1) == T.DASH and q.up(q.match[i + 1] + 2) == "JULIANDAY" and q.is_call(q.match[i + 1] + 2):
                j = q.match[i + 1] + 2
                try:
                    a2 = q.call_args(j)
                except _Skip:
                    continue
                if len(a2) == 1:
                    x, y = atext[0], q.text(*a2[0])
                    rep = _pick(rng, [f"DATEDIFF({x}, {y})", f"DATEDIFF(day, {y}, {x})", f"DATE_PART('day', {x} - {y})"])
                    options.append((3, ([(q.cs(i), q.ce(q.match[j + 1]), rep)], f"julianday difference written as {rep.split('(')[0]}()")))
            elif u == "CAST" and call and q.tt(q.match[i + 1] - 2) == T.ALIAS:
                rp = q.match[i + 1]
                inner = q.text(i + 2, rp - 2)
                ty = q.text(rp - 1, rp)
                rep = f"{inner}::{ty}" if _simple_arg(q, i + 2, rp - 2) else f"({inner})::{ty}"
                options.append((3, ([(q.cs(i), q.ce(rp), rep)], "PostgreSQL :: cast on SQLite")))
            elif q.tt(i) == T.LIKE and q.tt(i - 1) != T.NOT:
                options.append((2, ([(q.cs(i), q.ce(i), "ILIKE")], "ILIKE on SQLite")))
            elif u in ("IFNULL", "COALESCE") and call and len(args) == 2:
                rep = _pick(rng, ["NVL", "ISNULL"])
                options.append((2, ([(q.cs(i), q.ce(i), rep)], f"{u} written as {rep}")))
            elif u == "GROUP_CONCAT" and call:
                options.append((2, ([(q.cs(i), q.ce(i), "LISTAGG")], "GROUP_CONCAT written as LISTAGG")))
            elif u in ("SUBSTR", "SUBSTRING") and call and len(args) == 3 and atext[1].strip() == "1":
                rep = f"LEFT({atext[0]}, {atext[2]})"
                options.append((2, ([(whole[0], whole[1], rep)], "SUBSTR(x, 1, n) written as LEFT(x, n)")))
            elif q.tt(i) == T.CURRENT_DATE:
                rep = _pick(rng, ["NOW()", "GETDATE()", "CURDATE()"])
                options.append((1, ([(q.cs(i), q.ce(i), rep)], f"CURRENT_DATE written as {rep}")))
        if u in ("LENGTH", "CHAR_LENGTH") and call and len(args) == 1:
            options.append((2, ([(q.cs(i), q.ce(i), "LEN")], f"{u} written as LEN")))
    edits, note = _wpick(rng, options)
    return _apply(sql, edits), note


def _k_odd_quoting(q: _Q, rng):
    options = []
    plain_cols = [c for c in q.cols if not c.quoted]
    qual_cols = [c for c in q.cols if c.qual is not None and c.qs is not None and not c.quoted]
    if q.pg:
        idents = [(c.s, c.e) for c in plain_cols] + [(c.qs, c.qe) for c in plain_cols if c.qs is not None]
        idents += [(r.s, r.e) for r in q.trefs if not r.quoted]
        idents += [(r.ds, r.s - 1) for r in q.trefs if r.ds is not None]
        idents = sorted(set(idents))
        if idents:
            options.append((3, ("backtick", idents)))
            options.append((1.5, ("bracket", idents)))
        mixed = []
        for c in plain_cols:
            w = q.sql[c.s : c.e]
            real = c.table.column(c.name).name if c.table is not None else None
            if real is not None and w != real and any(ch.isupper() for ch in w):
                mixed.append((c.s, c.e))
        for r in q.trefs:
            w = q.sql[r.s : r.e]
            if r.table is not None and not r.quoted and w != r.table.name and any(ch.isupper() for ch in w):
                mixed.append((r.s, r.e))
        if mixed:
            options.append((4, ("mixedcase", sorted(set(mixed)))))
        if qual_cols:
            options.append((1.2, ("dotted", qual_cols)))
    else:
        unq = []
        for c in plain_cols:
            if c.qual is not None:
                continue
            ti = q.tok_index(c.s)
            if ti is not None and q.region_of(ti) in ("select", "where", "group"):
                unq.append(c)
        if unq:
            options.append((3, ("single", unq)))
        if qual_cols:
            options.append((1.5, ("dotted_bt", qual_cols)))
            options.append((0.7, ("dotted", qual_cols)))
    how, items = _wpick(rng, options)
    if how in ("backtick", "bracket"):
        o, c_ = ("`", "`") if how == "backtick" else ("[", "]")
        scope_all = rng.random() < 0.6
        if not scope_all:
            tabs = [(r.s, r.e) for r in q.trefs if not r.quoted]
            items = tabs or items
        edits = [(s, e, f"{o}{q.sql[s:e]}{c_}") for s, e in items]
        return _apply(q.sql, edits), f"identifiers quoted with {o}{c_} (MySQL/T-SQL style)"
    if how == "mixedcase":
        chosen = items if rng.random() < 0.6 else [_pick(rng, items)]
        edits = [(s, e, f'"{q.sql[s:e]}"') for s, e in chosen]
        return _apply(q.sql, edits), "mixed-case identifiers double-quoted but the catalogue folded them to lower case"
    if how == "single":
        chosen = items if rng.random() < 0.4 else [_pick(rng, items)]
        edits = [(c.s, c.e, f"'{q.sql[c.s:c.e]}'") for c in chosen]
        return _apply(q.sql, edits), "column names written in single quotes (string literals)"
    chosen = [_pick(rng, items)] if rng.random() < 0.5 else items
    qt = "`" if how == "dotted_bt" else '"'
    edits = [(c.qs, c.e, f"{qt}{q.sql[c.qs:c.qe]}.{q.sql[c.s:c.e]}{qt}") for c in chosen]
    return _apply(q.sql, edits), f"table.column quoted as one identifier with {qt}"


def _k_syntax_slip(q: _Q, rng):
    options = []
    for b in q.blocks:
        s0, s1 = q.select_range(b)
        if "from" in b.clauses and s1 > s0:
            options.append((1.5 if b.depth == 0 else 0.5, ("trailing_comma", q.ce(s1 - 1))))
        items = q.split(s0, s1, b.depth)
        for k in range(1, len(items)):
            nxt = items[k][0]
            if q.is_call(nxt) or (q.tt(nxt + 1) == T.DOT) or q.tt(nxt) in (T.CASE, T.STRING, T.NUMBER, T.STAR):
                comma = items[k][0] - 1
                options.append((2 / max(1, len(items) - 1), ("missing_comma", comma)))
        # adjacent clauses swapped
        order = sorted((v, k) for k, v in b.clauses.items())
        for (k1, n1), (k2, n2) in zip(order, order[1:]):
            pair = (n1, n2)
            if pair in (("where", "group"), ("group", "having"), ("order", "limit"), ("where", "order"), ("group", "order")):
                r1 = (q.cs(k1), q.ce(k2 - 1))
                later = [v for v in b.clauses.values() if v > k2]
                r2 = (q.cs(k2), q.ce((min(later) if later else b.end) - 1))
                options.append((2, ("swap", r1, r2, n1, n2)))
        # aliases with underscores written with spaces
    for i in range(q.n - 1):
        if q.tt(i) == T.ALIAS and q.tt(i + 1) == T.VAR and "_" in q.toks[i + 1].text:
            ti = q.region_of(i)
            if ti == "select":
                options.append((1.5, ("alias_space", i + 1)))
    # lost closing parenthesis of a subquery or function call
    closers = []
    for lp, rp in q.match.items():
        if q.tt(lp) == T.L_PAREN:
            w = 3 if q.tt(lp + 1) == T.SELECT else 1
            closers.append((w, rp))
    if closers:
        options.append((1.5, ("paren", _wpick(rng, closers))))
    kind = _wpick(rng, options)
    how = kind[0]
    if how == "trailing_comma":
        p = kind[1]
        return _apply(q.sql, [(p, p, ",")]), "trailing comma before FROM"
    if how == "missing_comma":
        c = kind[1]
        return _apply(q.sql, [(q.cs(c), q.ce(c), "")]), "comma between select items missing"
    if how == "swap":
        _, r1, r2, n1, n2 = kind
        t1, t2 = q.sql[r1[0] : r1[1]], q.sql[r2[0] : r2[1]]
        mid = q.sql[r1[1] : r2[0]]
        return _apply(q.sql, [(r1[0], r2[1], t2 + mid + t1)]), f"{n2.upper()} clause written before {n1.upper()}"
    if how == "alias_space":
        i = kind[1]
        w = q.toks[i].text
        new = " ".join(p.capitalize() for p in w.split("_") if p) if rng.random() < 0.5 else w.replace("_", " ")
        return _apply(q.sql, [(q.cs(i), q.ce(i), new)]), f"alias '{new}' with spaces, unquoted"
    rp = kind[1]
    return _apply(q.sql, [(q.cs(rp), q.ce(rp), "")]), "closing parenthesis lost"


def _k_cte_scope(q: _Q, rng):
    if q.n == 0:
        raise _Skip
    if q.tt(0) == T.WITH:
        return _cte_inner_alias(q, rng)
    if q.tt(0) != T.SELECT:
        raise _Skip
    main = q.blocks[0]
    if main.sel != 0 or any(q.depth[i] == 0 and q.tt(i) in (T.UNION, T.EXCEPT, T.INTERSECT) for i in range(q.n)):
        raise _Skip
    s0, s1 = q.select_range(main)
    items = q.split(s0, s1, 0)
    qualified = any(q.tt(k) == T.DOT for a, b_ in items for k in range(a, b_))
    plain = [it for it in items if not q.has_agg(*it)]
    if not (qualified or (q.pg and q.has_agg(s0, s1) and plain)):
        raise _Skip
    tail_k = min([main.clauses[c] for c in ("order", "limit") if c in main.clauses] or [main.end])
    inner_end = q.ce(tail_k - 1)
    inner = q.sql[q.cs(0) : inner_end]
    tail = q.sql[inner_end:].strip()
    if tail_k == main.end and q.tt(main.end) == T.SEMICOLON:
        tail = ";"
    name = _pick(rng, ["base", "filtered", "cte", "result", "data", "stats", "summary", "joined_data"])
    sel = q.sql[q.cs(s0) : q.ce(s1 - 1)]
    distinct = q.text(main.sel + 1, s0) + " " if s0 > main.sel + 1 else ""
    ind = _pick(rng, ["    ", "  ", "\t"])
    out = f"WITH {name} AS (\n{ind}{inner}\n)\nSELECT {distinct}{sel}\nFROM {name}"
    if tail:
        out += ("" if tail == ";" else "\n") + tail
    return out, f"query wrapped in CTE {name}; the outer SELECT still uses the inner tables/aggregates"


def _cte_inner_alias(q: _Q, rng):
    # outer query uses the alias that only exists inside the CTE
    options = []
    for si, sc in enumerate(q.scopes):
        if not getattr(sc, "is_cte", False):
            continue
        try:
            cte_name = sc.expression.parent.alias.lower()
        except Exception:
            continue
        outmap = {}
        for sel in sc.expression.selects:
            node = sel.this if isinstance(sel, exp.Alias) else sel
            if isinstance(node, exp.Column) and node.table:
                outmap[(sel.alias_or_name or "").lower()] = (node.table, node.name)
        for c in q.cols:
            if c.scope == si:
                continue
            srcs = q.scope_sources(c.scope)
            if cte_name not in srcs:
                continue
            if c.qual is not None and c.qual.lower() != cte_name:
                continue
            if c.name.lower() in outmap:
                al, _ = outmap[c.name.lower()]
                if al.lower() in srcs:
                    continue
                options.append((c, al))
    c, al = _pick(rng, options)
    if c.qs is not None:
        edit = (c.qs, c.qe, al)
    else:
        edit = (c.s, c.s, f"{al}.")
    return _apply(q.sql, [edit]), f"outer query refers to {al}.{c.name}, an alias that only exists inside the CTE"


def _short_alias(name: str, taken: set[str]) -> str:
    words = _words(name) or [name]
    cands = ["".join(w[0] for w in words).lower(), name[:1].lower(), name[:2].lower(), name[:3].lower(),
             (words[-1][:1]).lower(), "t1", "t2", "x"]
    for c in cands:
        if c and c not in taken and re.fullmatch(r"[a-z]\w*", c) and c not in ("as", "on", "in", "or", "is", "by", "to", "do", "if", "of"):
            return c
    i = 1
    while f"t{i}" in taken:
        i += 1
    return f"t{i}"


def _k_alias_mixup(q: _Q, rng):
    options = []
    taken = {(r.alias or "").lower() for r in q.trefs} | {r.name.lower() for r in q.trefs} | q.cte_names
    for r in q.trefs:
        if r.table is None or r.is_cte:
            continue
        refs = [c for c in q.cols if c.scope == r.scope and c.qual is not None and c.qs is not None]
        if r.alias:
            mine = [c for c in refs if c.qual.lower() == r.alias.lower()]
            shadow = any(o is not r and o.name.lower() == r.name.lower() and not o.alias for o in q.trefs)
            if mine and not shadow:
                options.append((3, ("full_name", r, mine)))
                options.append((1.5, ("drift", r, mine)))
        else:
            written = q.sql[r.s : r.e]
            mine = [c for c in refs if q.sql[c.qs : c.qe].lower() == written.lower()]
            if len(mine) >= 2:
                options.append((3, ("add_partial", r, mine)))
            unq = [c for c in q.cols if c.scope == r.scope and c.qual is None and c.table is r.table]
            if unq and not mine:
                options.append((2, ("add_qualify", r, unq)))
    how, r, cs = _wpick(rng, options)
    if how == "full_name":
        chosen = [c for c in cs if rng.random() < 0.5] or [_pick(rng, cs)]
        full = q.sql[r.ds : r.e] if r.ds is not None else q.sql[r.s : r.e]
        edits = [(c.qs, c.qe, full) for c in chosen]
        return _apply(q.sql, edits), f"table {r.name} aliased {r.alias} but referred to by its full name"
    if how == "drift":
        al = r.alias
        cands = sorted({r.name[:2].lower(), r.name[:3].lower(), (al + al[-1]).lower(), al.lower() + "1", _words(r.name)[0].lower()})
        new = _pick(rng, [x for x in cands if x and x not in taken and x != al.lower()])
        c = _pick(rng, cs)
        return _apply(q.sql, [(c.qs, c.qe, new)]), f"alias {al} written as {new} in one place"
    al = _short_alias(r.name, taken)
    end = r.e
    ins = (end, end, f" AS {al}" if rng.random() < 0.6 else f" {al}")
    if how == "add_partial":
        k = rng.randrange(1, len(cs))
        order = list(cs)
        rng.shuffle(order)
        chosen = order[:k]
        edits = [ins] + [(c.qs, c.qe, al) for c in chosen]
        return _apply(q.sql, edits), f"alias {al} added for {r.name} but the full name still used in {len(cs) - k} place(s)"
    c = _pick(rng, cs)
    edits = [ins, (c.s, c.s, q.sql[r.s : r.e] + ".")]
    return _apply(q.sql, edits), f"alias {al} added for {r.name} but a column qualified with the full name"


# --------------------------------------------------------------------------------------------------------------
# family A: hard-to-find SQL (layouts)


def _k_truncated(q: _Q, rng):
    sql = q.sql
    toks = [i for i in range(q.n) if q.tt(i) != T.SEMICOLON]
    if len(toks) < 6:
        raise _Skip
    lo = max(2, int(len(toks) * 0.35))
    k = toks[rng.randrange(lo, len(toks))]
    cut = q.cs(k)
    t = q.toks[k]
    if t.token_type in (T.VAR, T.IDENTIFIER) and len(t.text) >= 5 and rng.random() < 0.4:
        cut = q.cs(k) + rng.randrange(2, len(t.text) - 1)
    elif rng.random() < 0.5:
        cut = q.ce(k - 1)
    else:
        cut = q.cs(k)
    piece = sql[:cut].rstrip() if rng.random() < 0.5 else sql[:cut]
    if not piece.strip() or piece.strip() == sql.strip():
        raise _Skip
    intro = _intro(q, rng)
    lead = "" if rng.random() < 0.3 else intro + "\n\n"
    reply = f"{lead}{_fence_open(q, rng)}\n{piece}"
    return reply, f"reply cut off after {len(piece)} of {len(sql)} SQL characters"


def _k_prose_layout(q: _Q, rng):
    sql = q.sql
    f = _feature_words(q)
    tp = _tables_phrase(f["tables"])
    exp_ = " ".join(s[0].upper() + s[1:] + "." for s in _explain_sentences(q, rng)[:2])
    one_line = "\n" not in sql
    options = [(3, "paragraph"), (2, "label"), (2, "list_fence"), (1.5, "indented"), (1, "quote")]
    if one_line:
        options += [(3, "inline"), (1.5, "bullet_inline")]
    if sql.rstrip().endswith(";"):
        options.append((2, "same_line"))
    how = _wpick(rng, options)
    if how == "inline":
        lead = _pick(rng, ["You can run", "Use the query", "The query you need is", "Try this:", "Running"])
        trail = _pick(rng, [" to get the result.", " and it will return the rows you want.", ".", " against the database."])
        reply = f"{lead} `{sql}`{trail} {exp_}"
    elif how == "paragraph":
        reply = f"{_intro(q, rng)}\n\n{sql}\n\n{exp_}"
    elif how == "label":
        lab = _pick(rng, ["SQL:", "Query:", "SQL Query:", "Answer:", "**SQL**:"])
        sep = " " if one_line and rng.random() < 0.6 else "\n"
        reply = f"{lab}{sep}{sql}\n\n{_pick(rng, ['Explanation:', 'Reasoning:', 'Note:'])} {exp_}"
    elif how == "same_line":
        reply = f"{_intro(q, rng)}\n\n{sql} {_pick(rng, ['This returns', 'It gives you', 'Here we get'])} what you asked for; {exp_[:1].lower() + exp_[1:]}"
    elif how == "list_fence":
        ind = _pick(rng, ["   ", "    ", "  "])
        body = "\n".join(ind + line for line in sql.split("\n"))
        steps = [
            f"1. **Identify the tables**: we need {tp}.",
            f"2. **Apply the logic**: {exp_ or 'filter and aggregate as asked.'}",
            f"3. **Write the query**:\n\n{ind}```sql\n{body}\n{ind}```",
        ]
        reply = _pick(rng, ["Let's break it down:", "Steps:", "Here's how to approach it:"]) + "\n\n" + "\n".join(steps)
    elif how == "bullet_inline":
        reply = f"- Tables: {tp}\n- Logic: {exp_}\n- Final query: `{sql}`"
    elif how == "indented":
        body = "\n".join("    " + line for line in sql.split("\n"))
        reply = f"### {_pick(rng, ['Query', 'Solution', 'SQL'])}\n\n{body}\n\n{exp_}"
    else:
        body = "\n".join("> " + line for line in sql.split("\n"))
        reply = f"{_intro(q, rng)}\n\n{body}\n\n{exp_}"
    return reply.rstrip(), f"SQL outside a normal fence ({how.replace('_', ' ')})"


def _k_json_reply(q: _Q, rng):
    key = _pick(rng, ["sql", "query", "SQL", "sql_query", "answer"])
    exp_ = " ".join(s[0].upper() + s[1:] + "." for s in _explain_sentences(q, rng))
    obj = {}
    order = rng.random()
    if order < 0.4:
        obj["explanation"] = exp_
        obj[key] = q.sql
    elif order < 0.8:
        obj[key] = q.sql
        obj["explanation"] = exp_
    else:
        obj["reasoning"] = exp_
        obj["tables"] = _feature_words(q)["tables"]
        obj[key] = q.sql
    indent = _pick(rng, [None, 2, 4])
    text = json.dumps(obj, indent=indent, ensure_ascii=False)
    how = _wpick(rng, [(3, "fenced"), (2, "bare"), (2, "lead")])
    if how == "fenced":
        reply = f"```json\n{text}\n```"
    elif how == "lead":
        reply = f"{_pick(rng, ['Here is the result in JSON format:', 'Response:', 'Output:'])}\n\n{text}"
    else:
        reply = text
    return reply, f"reply is a JSON object, SQL under key {key!r} ({how})"


_SQL_KINDS_FOR_DRAFT = ("comparison_flip", "dropped_filter", "invented_column", "wrong_aggregate", "limit_order", "ambiguous_column")


def _k_multiple_blocks(q: _Q, rng):
    tabs = q.query_tables()
    first_t = tabs[0].qualified_name if tabs else None
    fo = _fence_open(q, rng)
    gold_block = f"{fo}\n{q.sql}\n```"
    options = []
    if first_t:
        options += [(3, "explore"), (2, "schema"), (2, "followup")]
    options.append((3, "draft"))
    has_inner = q.tt(0) == T.WITH or any(b.depth > 0 for b in q.blocks)
    if has_inner:
        options.append((2, "steps"))
    how = _wpick(rng, options)
    if how == "explore":
        n = _pick(rng, ["5", "10", "3"])
        reply = (f"{_pick(rng, ['First, let us look at the data:', 'Let me check a few rows first:', 'Quick look at the table:'])}\n\n"
                 f"```sql\nSELECT * FROM {first_t} LIMIT {n};\n```\n\n"
                 f"{_pick(rng, ['Now the actual query:', 'Then the query that answers the question:', 'Final query:'])}\n\n{gold_block}")
    elif how == "schema":
        tn = first_t.split(".")[-1]
        chk = (f"SELECT column_name, data_type FROM information_schema.columns WHERE table_name = '{tn.lower()}';" if q.pg
               else f"PRAGMA table_info({tn});")
        reply = (f"{_pick(rng, ['To confirm the column names:', 'You can check the columns with:'])}\n\n```sql\n{chk}\n```\n\n"
                 f"{_pick(rng, ['Then run:', 'The query is:', 'And here is the answer:'])}\n\n{gold_block}")
    elif how == "followup":
        reply = (f"{_intro(q, rng)}\n\n{gold_block}\n\n"
                 f"{_pick(rng, ['To double-check, you can count the rows:', 'To verify, run:', 'You can also check how many rows exist:'])}\n\n"
                 f"```sql\nSELECT COUNT(*) FROM {first_t};\n```")
    elif how == "steps":
        inner = None
        for b in q.blocks:
            if b.depth == 1:
                inner = q.text(b.sel, b.end)
                break
        if inner is None:
            raise _Skip
        reply = (f"**Step 1** - {_pick(rng, ['the inner part:', 'compute the intermediate result:', 'build the subquery:'])}\n\n"
                 f"```sql\n{inner}\n```\n\n**Step 2** - {_pick(rng, ['the full query:', 'put it together:', 'final query:'])}\n\n{gold_block}")
    else:
        draft = None
        kinds = list(_SQL_KINDS_FOR_DRAFT)
        rng.shuffle(kinds)
        for k in kinds:
            try:
                d, _ = _SQL_FUNCS[k](q, rng)
            except _Skip:
                continue
            if d.strip() != q.sql.strip():
                draft = d
                break
        if draft is None:
            raise _Skip
        reply = (f"{_intro(q, rng)}\n\n```sql\n{draft}\n```\n\n"
                 f"{_pick(rng, ['Wait, that is not quite right. Here is the corrected query:', 'Actually, I made a mistake above. Corrected version:', 'Correction - use this instead:', 'Hmm, on second thought the query should be:'])}\n\n{gold_block}")
    return reply, f"several SQL blocks ({how}); the gold one is not the only block"


_COMMENT_TEXT = {
    "SELECT": ["columns we need", "select the output columns", "what to return"],
    "FROM": ["main table", "start from {t}", "source table"],
    "JOIN": ["join to get {t}", "bring in {t}", "link {t}"],
    "WHERE": ["filter the rows", "only the rows we want", "apply the condition"],
    "AND": ["another condition", "and also this"],
    "GROUP": ["one row per group", "group the results", "aggregate per key"],
    "HAVING": ["keep only groups that match", "filter groups"],
    "ORDER": ["sort the output", "highest first", "order the results"],
    "LIMIT": ["top rows only", "limit the result"],
    "WITH": ["helper query", "CTE for the intermediate result"],
}


def _k_explain_comments(q: _Q, rng):
    sql = q.sql
    edits = []
    # break a one-line query at the top-level clause keywords
    if "\n" not in sql:
        for i in range(1, q.n):
            if q.depth[i] != 0:
                continue
            tt = q.tt(i)
            brk = tt in (T.FROM, T.WHERE, T.GROUP_BY, T.HAVING, T.ORDER_BY, T.LIMIT)
            if tt == T.JOIN:
                j = i
                while j - 1 >= 0 and q.tt(j - 1) in (T.LEFT, T.RIGHT, T.INNER, T.OUTER, T.FULL, T.CROSS):
                    j -= 1
                i = j
                brk = True
            if tt == T.SELECT and q.depth[i] == 0:
                brk = True
            if brk and q.ce(i - 1) < q.cs(i):
                edits.append((q.ce(i - 1), q.cs(i), "\n"))
        edits = sorted(set(edits))
        sql = _apply(sql, edits)
    lines = sql.split("\n")
    if len(lines) < 2:
        raise _Skip
    style = _wpick(rng, [(3, "#"), (2, "//"), (2, "prose"), (2, "--trap")])
    tabs = [t.name for t in q.query_tables()] or ["the table"]
    out = []
    done = 0
    for li, line in enumerate(lines):
        head = (line.strip().split() or [""])[0].upper()
        head = {"LEFT": "JOIN", "INNER": "JOIN", "RIGHT": "JOIN", "FULL": "JOIN", "CROSS": "JOIN", "GROUP": "GROUP",
                "ORDER": "ORDER"}.get(head, head)
        texts = _COMMENT_TEXT.get(head)
        if not texts or not line.strip() or rng.random() < 0.2:
            out.append(line)
            continue
        m = re.search(r"\bJOIN\s+([\w.]+)", line, re.I) or re.search(r"\bFROM\s+([\w.]+)", line, re.I)
        t = m.group(1) if m else tabs[0]
        txt = _pick(rng, texts).format(t=t)
        if style == "#":
            out.append(f"{line}  # {txt}")
        elif style == "//":
            out.append(f"{line}  // {txt}")
        elif style == "prose":
            if li == 0 or rng.random() < 0.5:
                out.append(f"{line}  -- {txt}")
            else:
                out.append(f"{txt[0].upper() + txt[1:]}:")
                out.append(line)
        else:
            trap = _pick(rng, ["; ", "'s ", " -- it's ", "; don't forget "])
            out.append(f"{line}  -- {txt}{trap}{_pick(rng, ['key step', 'see note', 'ok'])}")
        done += 1
    if done == 0:
        raise _Skip
    if style == "prose" and not any(not ln.strip().startswith(("SELECT", "FROM")) and ln.endswith(":") for ln in out):
        out.append(_pick(rng, ["This gives the final answer.", "Result: one row per group."]))
    body = "\n".join(out)
    reply = f"{_intro(q, rng)}\n\n{_fence_open(q, rng)}\n{body}\n```"
    return reply, f"explanations inside the SQL block ({style} style)"


_HING_INTRO = [
    "Yeh raha aapka SQL query:",
    "Aapke sawal ke liye yeh query use kar sakte ho:",
    "Theek hai, main {tp} se data nikal raha hoon. Query neeche hai:",
    "Bilkul! Iske liye yeh query chalao:",
    "यह रही आपकी query:",
    "Dekho, answer ke liye hume {tp} chahiye. Query:",
]
_HING_OUTRO = [
    "Is query mein humne {tp} use kiya hai aur result ko filter kiya hai.",
    "Isme pehle join hota hai, phir GROUP BY se count nikalte hain.",
    "Agar aapko aur columns chahiye toh bata dena.",
    "Dhyan rahe, column names apne database ke hisaab se check kar lena.",
    "इस query में हमने {tp} से data लिया है। कोई और मदद चाहिए तो बताइए।",
    "Yeh query sahi result dega, bas run karke dekh lo.",
]


def _k_hinglish_reply(q: _Q, rng):
    tp = _tables_phrase(_feature_words(q)["tables"]).replace("the ", "", 1)
    intro = _pick(rng, _HING_INTRO).format(tp=tp)
    outro = _pick(rng, _HING_OUTRO).format(tp=tp)
    opts = [(3, "bare"), (2, "inside_block"), (1.5, "odd_tag"), (1.5, "label")]
    if q.sql.rstrip().endswith(";"):
        opts.append((2, "same_line"))
    how = _wpick(rng, opts)
    if how == "bare":
        reply = f"{intro}\n\n{q.sql}\n\n{outro}"
    elif how == "inside_block":
        reply = f"{intro}\n\n```sql\n{q.sql}\n\n{outro}\n```"
    elif how == "odd_tag":
        tag = _pick(rng, ["```mysql", "```text", "```sql query", "```plaintext"])
        reply = f"{intro}\n{tag}\n{q.sql}\n```\n{outro}"
    elif how == "label":
        reply = f"{intro}\nQuery: {q.sql}\nSamjhao: {outro}"
    else:
        reply = f"{intro}\n\n{q.sql} {outro}"
    return reply, f"Hindi-English prose around the SQL ({how.replace('_', ' ')})"


# --------------------------------------------------------------------------------------------------------------
# family B: runs, wrong answer


def _pk_guess(table) -> list[str]:
    """Declared primary key, else the first column when it looks like an id (catalogues often omit keys)."""
    pk = [p.lower() for p in (getattr(table, "primary_key", ()) or ())]
    if pk:
        return pk
    cols = getattr(table, "columns", ()) or ()
    if cols and _keyish(cols[0].name):
        return [cols[0].name.lower()]
    return []


def _keyish(name: str) -> bool:
    n = name.lower()
    return n.endswith("id") or n.endswith("_key") or n.endswith("code") or n.endswith("_no") or n == "id"


def _typefam(t: str) -> str:
    t = (t or "").lower()
    if any(x in t for x in ("int", "serial")):
        return "int"
    if any(x in t for x in _FLOAT_TYPES):
        return "num"
    if any(x in t for x in ("char", "text", "string", "clob")):
        return "text"
    if "date" in t or "time" in t:
        return "time"
    return t


def _k_join_mistake(q: _Q, rng):
    options = []
    for i in range(q.n):
        if q.tt(i) != T.JOIN:
            continue
        j = i
        mods = []
        while j - 1 >= 0 and q.tt(j - 1) in (T.LEFT, T.RIGHT, T.INNER, T.OUTER, T.FULL, T.CROSS) or (j - 1 >= 0 and q.up(j - 1) == "NATURAL"):
            j -= 1
            mods.append(q.up(j))
        if "CROSS" in mods or "NATURAL" in mods or "FULL" in mods or "RIGHT" in mods:
            continue
        span = (q.cs(j), q.ce(i))
        if "LEFT" in mods:
            options.append((4, ([(span[0], span[1], _pick(rng, ["JOIN", "INNER JOIN"]))], "LEFT JOIN written as inner JOIN")))
        else:
            # LEFT matters when the joined table is the optional (many) side: its join column is not its key
            w = 1.0
            r = next((r for r in q.trefs if q.tok_index(r.s) is not None and q.tok_index(r.s) > i and r.table is not None), None)
            if r is not None:
                onk = [c for c in q.cols if c.table is r.table and c.s > r.e and c.s - r.e < 80]
                if onk and onk[0].name.lower() in _pk_guess(r.table):
                    w = 0.25
                elif onk:
                    w = 2.0
            options.append((w, ([(span[0], span[1], "LEFT JOIN")], "inner JOIN written as LEFT JOIN")))
    # wrong key in ON a.x = b.y
    for i in range(q.n):
        if q.tt(i) != T.ON:
            continue
        for c in q.cols:
            ti = q.tok_index(c.qs if c.qs is not None else c.s)
            if ti is None or ti <= i or ti > i + 8 or c.table is None:
                continue
            # the column must be an operand of '=' right after ON
            after = q.tok_index(c.s)
            if not (q.tt(after + 1) == T.EQ or q.tt(ti - 1) == T.EQ):
                continue
            fam = _typefam(q.coltype(c))
            alts = [col.name for col in c.table.columns if col.name.lower() != c.name.lower() and _typefam(col.type) == fam]
            keyalts = [a for a in alts if _keyish(a)]
            pool = keyalts or ([] if fam == "text" else alts)
            if pool:
                options.append((3, ("key", c, pool)))
    choice = _wpick(rng, options)
    if isinstance(choice[0], str) and choice[0] == "key":
        _, c, pool = choice
        new = _pick(rng, pool)
        rep = f'"{new}"' if c.quoted else new
        return _apply(q.sql, [(c.s, c.e, rep)]), f"join condition uses {c.table.name}.{new} instead of {c.name}"
    edits, note = choice
    return _apply(q.sql, edits), note


def _k_needless_join(q: _Q, rng):
    if any(q.tt(i) == T.STAR and q.tt(i - 1) in (T.SELECT, T.COMMA, T.DISTINCT) for i in range(q.n)):
        raise _Skip
    used = {r.table.qualified_name for r in q.trefs if r.table is not None}
    used_names = {r.name.lower() for r in q.trefs}
    unq_names = {c.name.lower() for c in q.cols if c.qual is None}
    taken = {(r.alias or "").lower() for r in q.trefs} | used_names | q.cte_names
    options = []
    for b in q.blocks:
        f = q.clause_range(b, "from")
        if f is None or _scalar_block(q, b):
            continue
        if any(q.depth[k] == b.depth and q.tt(k) == T.COMMA for k in range(*f)):
            continue
        s0, s1 = q.select_range(b)
        aggs = {q.up(k) for k in range(s0, s1) if q.up(k) in _AGG and q.is_call(k)}
        distinct_only = any(q.tt(k) == T.DISTINCT for k in range(s0, s1))
        bw = 0.3 if (aggs and aggs <= {"MIN", "MAX"}) or (distinct_only and not (aggs - {"COUNT"})) else 1.0
        in_from = [r for r in q.trefs if r.table is not None and not r.is_cte and f[0] <= (q.tok_index(r.s) or -1) < f[1]
                   and q.depth[q.tok_index(r.s)] == b.depth]
        for r in in_from:
            for t2 in q.all_schema_tables():
                if t2.qualified_name in used or t2.name.lower() in taken:
                    continue
                if {c.name.lower() for c in t2.columns} & unq_names:
                    continue
                for ct in r.table.columns:
                    for c2 in t2.columns:
                        a, b_ = ct.name.lower(), c2.name.lower()
                        if _typefam(ct.type) != _typefam(c2.type) or _typefam(ct.type) not in ("int", "text", "num"):
                            continue
                        ok = False
                        if a == b_ and a != "id" and (_keyish(a) or a in [p.lower() for p in r.table.primary_key]):
                            ok = True
                        elif a == "id" and b_ in (_singular(r.table.name.lower()) + "_id", _singular(r.table.name.lower()) + "id"):
                            ok = True
                        elif b_ == "id" and a in (_singular(t2.name.lower()) + "_id", _singular(t2.name.lower()) + "id"):
                            ok = True
                        elif a.endswith("id") and len(a) >= 6:
                            for k in range(1, 4):
                                suf = a[k:]
                                if len(suf) >= 5 and b_.endswith(suf) and b_ != a:
                                    ok = True
                                    break
                        for fk in getattr(t2, "foreign_keys", ()) or ():
                            if fk.ref_table.lower() in (r.table.qualified_name.lower(), r.table.name.lower()) and \
                                    [x.lower() for x in fk.columns] == [b_] and [x.lower() for x in fk.ref_columns] == [a]:
                                ok = True
                        if ok:
                            many = b_ not in _pk_guess(t2)
                            if many:
                                options.append((3 * bw, (b, f, r, t2, ct.name, c2.name)))
    b, f, r, t2, ca, cb = _wpick(rng, options)
    aliased = any(x.alias for x in q.trefs)
    t2name = t2.qualified_name
    if aliased:
        al = _short_alias(t2.name, taken)
        head, ref2 = f"{t2name} {'AS ' if rng.random() < 0.5 else ''}{al}", al
    else:
        head, ref2 = t2name, t2name
    jt = _wpick(rng, [(5, "JOIN"), (3, "INNER JOIN"), (1, "LEFT JOIN")])
    text = f" {jt} {head} ON {ref2}.{cb} = {q.ref_name(r)}.{ca}"
    pos = q.ce(f[1] - 1)
    return _apply(q.sql, [(pos, pos, text)]), f"needless {jt} to {t2name} on {cb} = {r.name}.{ca}"


def _k_wrong_aggregate(q: _Q, rng):
    options = []
    for i in range(q.n):
        u = q.up(i)
        if u not in ("COUNT", "SUM", "AVG", "MIN", "MAX") or not q.is_call(i):
            continue
        inner0 = i + 2
        if q.tt(inner0) == T.DISTINCT:
            if u == "COUNT":
                continue
        if q.tt(inner0) == T.STAR:
            continue
        numeric = True
        for c in q.cols:
            ci = q.tok_index(c.s)
            if ci is not None and inner0 <= ci < q.match.get(i + 1, 0):
                if _typefam(q.coltype(c)) not in ("int", "num", "") or _keyish(c.name):
                    numeric = False
        span = (q.cs(i), q.ce(i))
        if u == "SUM":
            options.append((3, (span, _pick(rng, ["COUNT", "AVG"]))))
        elif u == "COUNT" and numeric:
            options.append((2, (span, "SUM")))
        elif u == "AVG":
            options.append((2, (span, _wpick(rng, [(3, "SUM"), (1, "MAX")]))))
        elif u == "MAX":
            options.append((2, (span, "MIN")))
        elif u == "MIN":
            options.append((2, (span, "MAX")))
    span, new = _wpick(rng, options)
    old = q.sql[span[0] : span[1]]
    if old.islower():
        new = new.lower()
    return _apply(q.sql, [(span[0], span[1], new)]), f"{old.upper()} used as {new.upper()}"


def _scalar_block(q: _Q, b: _Block) -> bool:
    """True when the SELECT block is a scalar subquery (dropping its filter would return several rows)."""
    if b.depth == 0:
        return False
    lp = b.sel - 1
    if q.tt(lp) != T.L_PAREN:
        return True
    return q.tt(lp - 1) not in (T.IN, T.EXISTS, T.FROM, T.JOIN, T.ALIAS, T.UNION, T.EXCEPT, T.INTERSECT) and q.up(lp - 1) not in ("ANY", "ALL", "SOME", "LATERAL")


def _has_literal(q: _Q, i0: int, i1: int) -> bool:
    return any(q.tt(k) in (T.STRING, T.NUMBER, T.TRUE, T.FALSE, T.NULL, T.CURRENT_DATE, T.SELECT) for k in range(i0, i1)) or any(
        q.up(k) in ("NOW", "DATE", "DATETIME", "CURRENT_TIMESTAMP") for k in range(i0, i1))


def _k_dropped_filter(q: _Q, rng):
    options = []
    for b in q.blocks:
        if _scalar_block(q, b):
            continue
        for cl in ("where", "having"):
            rg = q.clause_range(b, cl)
            if rg is None:
                continue
            parts = q.conjuncts(rg[0], rg[1], b.depth)
            if parts is None:
                kw = b.clauses[cl]
                options.append((1, ("whole", kw, rg, cl)))
                continue
            if len(parts) == 1:
                kw = b.clauses[cl]
                w = 2 if _has_literal(q, *parts[0]) else 0.5
                options.append((w, ("whole", kw, rg, cl)))
                continue
            for k, p in enumerate(parts):
                w = 3 if _has_literal(q, *p) else 0.3
                options.append((w / len(parts) * 2, ("part", parts, k, cl)))
        # extra ON conditions
        f = q.clause_range(b, "from")
        if f is None:
            continue
        for k in range(*f):
            if q.tt(k) == T.ON and q.depth[k] == b.depth:
                end = k + 1
                while end < f[1] and not (q.depth[end] == b.depth and q.tt(end) in (T.JOIN, T.LEFT, T.RIGHT, T.INNER, T.FULL, T.CROSS, T.COMMA)):
                    end += 1
                parts = q.conjuncts(k + 1, end, b.depth)
                if parts and len(parts) >= 2:
                    for j, p in enumerate(parts):
                        if _has_literal(q, *p):
                            options.append((2, ("part", parts, j, "on")))
    kind = _wpick(rng, options)
    if kind[0] == "whole":
        _, kw, rg, cl = kind
        start = q.ce(kw - 1) if kw > 0 else q.cs(kw)
        return _apply(q.sql, [(start, q.ce(rg[1] - 1), "")]), f"whole {cl.upper()} clause left out ({q.text(*rg)[:60]})"
    _, parts, k, cl = kind
    p = parts[k]
    if k == 0:
        s, e = q.cs(p[0]), q.cs(parts[1][0])
    else:
        s, e = q.ce(parts[k - 1][1] - 1), q.ce(p[1] - 1)
    return _apply(q.sql, [(s, e, "")]), f"{cl.upper()} condition left out: {q.text(*p)[:60]}"


def _is_date_lit(q: _Q, k: int) -> bool:
    return q.tt(k) == T.STRING and _DATE_RE.match(q.toks[k].text) is not None


def _order_context(q: _Q, i: int) -> bool:
    """True when token i sits in an ORDER BY (query or window), e.g. the null-ordering CASE of SQLite."""
    d = q.depth[i]
    for k in range(i - 1, -1, -1):
        if q.depth[k] < d:
            d = q.depth[k]
        if q.depth[k] != d:
            continue
        if q.tt(k) == T.ORDER_BY:
            return True
        if q.tt(k) in (T.WHERE, T.HAVING, T.ON, T.SELECT, T.FROM, T.GROUP_BY, T.JOIN, T.PARTITION_BY):
            return False
    return False


def _k_comparison_flip(q: _Q, rng):
    options = []
    flip = {T.GT: "<", T.LT: ">", T.GTE: "<=", T.LTE: ">="}
    strict = {T.GTE: ">", T.LTE: "<", T.GT: ">=", T.LT: "<="}
    for i in range(q.n):
        tt = q.tt(i)
        if tt in flip or tt in (T.IS, T.NOT, T.NEQ):
            if _order_context(q, i):
                continue
        if tt in flip:
            rhs_date = _is_date_lit(q, i + 1)
            options.append((3 if not rhs_date else 1.5, ([(q.cs(i), q.ce(i), flip[tt])], f"'{q.toks[i].text}' written as '{flip[tt]}'")))
            if q.tt(i + 1) in (T.NUMBER,) or q.tt(i - 1) in (T.NUMBER,) or rhs_date:
                options.append((2, ([(q.cs(i), q.ce(i), strict[tt])], f"'{q.toks[i].text}' written as '{strict[tt]}' (boundary)")))
        elif tt == T.IS and q.tt(i + 1) == T.NULL:
            options.append((3, ([(q.cs(i), q.ce(i), "=")], "IS NULL written as = NULL")))
        elif tt == T.IS and q.tt(i + 1) == T.NOT and q.tt(i + 2) == T.NULL:
            rep = _pick(rng, ["!=", "<>"])
            options.append((3, ([(q.cs(i), q.ce(i + 1), rep)], f"IS NOT NULL written as {rep} NULL")))
        elif tt == T.NOT and q.tt(i + 1) in (T.IN, T.EXISTS, T.LIKE, T.ILIKE) and q.tt(i - 1) != T.IS:
            options.append((3, ([(q.cs(i), q.cs(i + 1), "")], f"NOT {q.up(i + 1)} written as {q.up(i + 1)}")))
        elif tt == T.NEQ:
            options.append((2, ([(q.cs(i), q.ce(i), "=")], f"'{q.toks[i].text}' written as '='")))
    edits, note = _wpick(rng, options)
    return _apply(q.sql, edits), note


def _shift_date(text: str, days: int) -> str | None:
    import datetime as _dt

    m = _DATE_RE.match(text)
    if not m:
        return None
    try:
        d = _dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3))) + _dt.timedelta(days=days)
    except ValueError:
        return None
    return d.isoformat() + m.group(4)


def _k_date_range(q: _Q, rng):
    options = []
    for i in range(q.n):
        tt = q.tt(i)
        u = q.up(i)
        if _is_date_lit(q, i):
            prev = q.tt(i - 1)
            lit = q.toks[i].text
            if prev in (T.LT, T.LTE, T.GT, T.GTE):
                op = {T.LT: "<=", T.LTE: "<", T.GT: ">=", T.GTE: ">"}[prev]
                if prev == T.LT:
                    new = _shift_date(lit, -1)
                    if new and rng.random() < 0.5:
                        options.append((3, ([(q.cs(i - 1), q.ce(i), f"<= '{new}'")], f"exclusive end < '{lit}' written as <= '{new}'")))
                        continue
                options.append((3, ([(q.cs(i - 1), q.ce(i - 1), op)], f"date boundary {q.toks[i - 1].text} written as {op}")))
            elif prev == T.BETWEEN or (prev == T.AND and any(q.tt(k) == T.BETWEEN for k in range(max(0, i - 6), i))):
                new = _shift_date(lit, -1 if prev == T.AND else 1)
                if new:
                    options.append((3, ([(q.cs(i), q.ce(i), f"'{new}'")], f"BETWEEN bound '{lit}' moved to '{new}'")))
            elif prev in (T.EQ,) and rng.random() < 1:
                new = _shift_date(lit, _pick(rng, [-1, 1]))
                if new:
                    options.append((1, ([(q.cs(i), q.ce(i), f"'{new}'")], f"date '{lit}' off by one day")))
        if q.pg:
            if u == "EXTRACT" and q.is_call(i) and q.up(i + 2) in ("DOW", "ISODOW") and q.tt(i + 3) == T.FROM:
                rp = q.match.get(i + 1)
                if rp is not None and q.tt(rp + 1) == T.IN and q.tt(rp + 2) == T.L_PAREN:
                    lp2 = rp + 2
                    vals = [q.toks[k].text for k in range(lp2 + 1, q.match.get(lp2, lp2 + 1)) if q.tt(k) in (T.NUMBER, T.STRING)]
                    if sorted(vals) in (["0", "6"], ["6", "7"]):
                        new = "6, 7" if sorted(vals) == ["0", "6"] else "0, 6"
                        options.append((3, ([(q.cs(lp2 + 1), q.ce(q.match[lp2] - 1), new)], f"weekend day numbers written as ({new})")))
            if tt == T.CURRENT_DATE and q.region_of(i) in ("where", "having", "from"):
                rep = _pick(rng, ["NOW()", "CURRENT_TIMESTAMP"])
                options.append((1, ([(q.cs(i), q.ce(i), rep)], f"CURRENT_DATE written as {rep} (time-of-day boundary)")))
            elif u in ("NOW", "CURRENT_TIMESTAMP") and (tt == T.CURRENT_TIMESTAMP or q.is_call(i)) and q.region_of(i) in ("where", "having", "from"):
                end = q.ce(q.match[i + 1]) if q.is_call(i) else q.ce(i)
                options.append((2, ([(q.cs(i), end, "CURRENT_DATE")], f"{u} written as CURRENT_DATE")))
            elif tt == T.INTERVAL and q.tt(i - 1) == T.DASH and q.tt(i - 2) == T.R_PAREN and q.tt(i + 1) == T.STRING \
                    and q.up(q.match.get(i - 2, 0) - 1) == "DATE_TRUNC" and q.region_of(i) in ("where", "having", "from"):
                options.append((3, ([(q.ce(i - 2), q.ce(i + 1), "")], f"'- INTERVAL {q.toks[i + 1].text}' forgotten: current period instead of the previous one")))
            elif u == "DATE_TRUNC" and q.is_call(i):
                try:
                    args = q.call_args(i)
                except _Skip:
                    continue
                if len(args) == 2 and q.region_of(i) in ("where", "having", "from"):
                    inner = q.text(*args[1])
                    options.append((3, ([(q.cs(i), q.ce(q.match[i + 1]), inner)], f"DATE_TRUNC dropped: rolling instead of calendar period")))
            elif tt == T.INTERVAL and q.tt(i + 1) == T.STRING:
                m = re.fullmatch(r"\s*(\d+)\s*(day|month|year|week)s?\s*", q.toks[i + 1].text, re.I)
                if m:
                    n, unit = int(m.group(1)), m.group(2).lower()
                    alt = {"month": f"{30 * n} days", "year": f"{365 * n} days", "day": None, "week": None}[unit]
                    if unit == "day" and n in (30, 31, 90, 180, 365):
                        alt = {30: "1 month", 31: "1 month", 90: "3 months", 180: "6 months", 365: "1 year"}[n]
                    elif unit == "day" and n > 1:
                        alt = f"{n - 1} days"
                    if alt:
                        options.append((2, ([(q.cs(i + 1), q.ce(i + 1), f"'{alt}'")], f"interval '{q.toks[i + 1].text}' written as '{alt}'")))
            elif tt == T.DCOLON and q.up(i + 1) in ("DATE",) and q.tt(i - 1) in (T.VAR, T.IDENTIFIER) and q.region_of(i) in ("where", "having", "from"):
                options.append((2, ([(q.cs(i), q.ce(i + 1), "")], "::date cast on a timestamp forgotten")))
        else:
            if u == "STRFTIME" and q.is_call(i):
                rp = q.match.get(i + 1)
                fmt = q.toks[i + 2].text if q.tt(i + 2) == T.STRING else ""
                if rp is not None and fmt == "%w" and q.tt(rp + 1) == T.IN and q.tt(rp + 2) == T.L_PAREN:
                    lits = [k for k in range(rp + 3, q.match.get(rp + 2, rp + 3)) if q.tt(k) == T.STRING]
                    vals = [q.toks[k].text for k in lits]
                    if sorted(vals) == ["0", "6"]:
                        new = _pick(rng, ["'6', '7'", "6, 0", "'Saturday', 'Sunday'"])
                        options.append((3, ([(q.cs(rp + 3), q.ce(q.match[rp + 2] - 1), new)], f"weekend days written as {new}")))
                if rp is not None and q.tt(rp + 1) in (T.EQ, T.GTE, T.LTE, T.GT, T.LT) and q.tt(rp + 2) == T.STRING:
                    lit = q.toks[rp + 2].text
                    if fmt in ("%Y", "%m", "%d", "%H") and lit.isdigit():
                        if fmt != "%Y" and lit.startswith("0") and rng.random() < 0.5:
                            new, how = f"'{int(lit)}'", "without the leading zero"
                        else:
                            new, how = str(int(lit)), "as a number (text never equals integer in SQLite)"
                        options.append((3, ([(q.cs(rp + 2), q.ce(rp + 2), new)], f"strftime('{fmt}') compared with {lit!r} {how}")))
                continue
            if u in ("DATE", "DATETIME") and q.is_call(i):
                try:
                    args = q.call_args(i)
                except _Skip:
                    continue
                first_now = q.tt(args[0][0]) == T.STRING and q.toks[args[0][0]].text.lower() == "now" if args else False
                if first_now:
                    rep = "DATETIME" if u == "DATE" else "DATE"
                    options.append((2, ([(q.cs(i), q.ce(i), rep)], f"{u}('now', ...) written as {rep}(...)")))
                for a in args[1:]:
                    if q.tt(a[0]) != T.STRING or a[1] - a[0] != 1:
                        continue
                    mod = q.toks[a[0]].text
                    k = args.index(a)
                    if k >= 2 and q.toks[args[k - 1][0]].text.lower().startswith("start of") and re.fullmatch(r"-\d+ \w+", mod.strip()):
                        options.append((3, ([(q.ce(args[k - 1][1] - 1), q.ce(a[1] - 1), "")], f"modifier '{mod}' forgotten: current period instead of the previous one")))
                    if mod.lower().startswith("start of"):
                        s = q.ce(args[k - 1][1] - 1)
                        options.append((2, ([(s, q.ce(a[1] - 1), "")], f"modifier '{mod}' forgotten (rolling instead of calendar period)")))
                    m = re.fullmatch(r"([+-])(\d+) (day|month|year)s?", mod.strip(), re.I)
                    if m:
                        n, unit = int(m.group(2)), m.group(3).lower()
                        alt = {"month": f"{30 * n} days", "year": f"{365 * n} days"}.get(unit)
                        if unit == "day":
                            alt = {30: "1 month", 31: "1 month", 90: "3 months", 365: "1 year"}.get(n, f"{n - 1} days" if n > 1 else None)
                        if alt:
                            options.append((2, ([(q.cs(a[0]), q.ce(a[0]), f"'{m.group(1)}{alt}'")], f"modifier '{mod}' written as '{m.group(1)}{alt}'")))
                if len(args) == 1 and not first_now and args[0][1] - args[0][0] in (1, 3) and q.tt(args[0][0]) in (T.VAR, T.IDENTIFIER) and q.region_of(i) in ("where", "having", "from"):
                    inner = q.text(*args[0])
                    options.append((2, ([(q.cs(i), q.ce(q.match[i + 1]), inner)], f"{u}() around the timestamp column forgotten")))
    edits, note = _wpick(rng, options)
    return _apply(q.sql, edits), note


def _k_limit_order(q: _Q, rng):
    options = []
    for b in q.blocks:
        o = q.clause_range(b, "order")
        lk = b.clauses.get("limit")
        lim_n = q.toks[lk + 1].text if lk is not None and q.tt(lk + 1) == T.NUMBER else None
        if o is not None:
            items = q.split(o[0], o[1], b.depth)
            real = [it for it in items if q.tt(it[0]) != T.CASE] or items
            it = real[0]
            last = it[1] - 1
            # find direction token at item depth
            dir_k = None
            for k in range(it[0], it[1]):
                if q.depth[k] == b.depth and q.tt(k) in (T.ASC, T.DESC):
                    dir_k = k
            w = 3 if lim_n else 0.5
            if dir_k is not None and q.tt(dir_k) == T.DESC:
                rep = _pick(rng, ["", "ASC"])
                s = q.ce(dir_k - 1) if rep == "" else q.cs(dir_k)
                options.append((w, ([(s, q.ce(dir_k), rep)], "DESC forgotten / written as ASC")))
            elif dir_k is not None:
                options.append((w, ([(q.cs(dir_k), q.ce(dir_k), "DESC")], "ASC written as DESC")))
            else:
                # insert DESC after the expression (before NULLS if any)
                ins_k = last
                for k in range(it[0], it[1]):
                    if q.depth[k] == b.depth and q.up(k) == "NULLS":
                        ins_k = k - 1
                        break
                p = q.ce(ins_k)
                options.append((w, ([(p, p, " DESC")], "ascending order written as DESC")))
            if lim_n:
                ok = b.clauses["order"]
                options.append((1.5, ([(q.ce(ok - 1), q.ce(o[1] - 1), "")], "ORDER BY forgotten before LIMIT")))
            elif b.depth == 0 and lk is None:
                n = _wpick(rng, [(3, "1"), (2, "3"), (2, "5"), (1, "10")])
                p = q.ce(o[1] - 1)
                options.append((1.2, ([(p, p, f" LIMIT {n}")], f"LIMIT {n} added though all rows were asked for")))
        if lim_n and not _scalar_block(q, b):
            try:
                n = int(lim_n)
            except ValueError:
                n = None
            if n is not None:
                new = _pick(rng, [x for x in ((1, n // 2, n - 1) if n > 2 else (n + 2, 5, 10)) if x > 0 and x != n])
                options.append((2, ([(q.cs(lk + 1), q.ce(lk + 1), str(new))], f"LIMIT {n} written as LIMIT {new}")))
            options.append((1.5, ([(q.ce(lk - 1), q.ce(lk + 1), "")], f"LIMIT {lim_n} forgotten")))
    edits, note = _wpick(rng, options)
    return _apply(q.sql, edits), note


def _recase(s: str, rng) -> str | None:
    letters = [c for c in s if c.isalpha()]
    if not letters:
        return None
    if len(letters) <= 3:
        c = s.upper() if s.islower() else s.lower()
        return c if c != s else None
    if s.islower():
        c = _pick(rng, [s.title(), s.upper(), s[:1].upper() + s[1:]])
    elif s.isupper():
        c = _pick(rng, [s.lower(), s.title()]) if len(letters) > 1 else s.lower()
    else:
        c = _pick(rng, [s.lower(), s.upper()])
    return c if c != s else None


def _k_literal_format(q: _Q, rng):
    options = []
    for i in range(q.n):
        if q.tt(i) != T.STRING or _is_date_lit(q, i):
            continue
        lit = q.toks[i].text
        if not lit or not any(ch.isalpha() for ch in lit) or "%" in lit and q.tt(i - 1) not in (T.LIKE, T.ILIKE):
            continue
        prev = q.tt(i - 1)
        in_list = prev in (T.COMMA, T.L_PAREN) and any(q.tt(k) == T.IN and q.match.get(k + 1, -1) > i for k in range(max(0, i - 60), i))
        if prev in (T.EQ, T.NEQ) or in_list:
            up = lit.strip()
            if up.upper() in _US_STATES and len(up) == 2 and up.isupper():
                full = _US_STATES[up.upper()]
                options.append((3, ([(q.cs(i), q.ce(i), f"'{full}'")], f"code '{lit}' written as '{full}'")))
            elif up in _COUNTRIES:
                options.append((3, ([(q.cs(i), q.ce(i), f"'{_COUNTRIES[up]}'")], f"code '{lit}' written as '{_COUNTRIES[up]}'")))
            else:
                rc = _recase(lit, rng)
                if rc:
                    options.append((3, ([(q.cs(i), q.ce(i), "'" + rc.replace("'", "''") + "'")], f"literal '{lit}' written as '{rc}'")))
        elif prev in (T.LIKE, T.ILIKE) and q.tt(i - 2) != T.NOT:
            core = lit.strip("%")
            if "%" in lit and core and "%" not in core and "_" not in core:
                options.append((3, ([(q.cs(i - 1), q.ce(i), "= '" + core.replace("'", "''") + "'")], f"LIKE '{lit}' written as = '{core}'")))
            if prev == T.ILIKE:
                options.append((2, ([(q.cs(i - 1), q.ce(i - 1), "LIKE")], "ILIKE written as LIKE (case-sensitive)")))
                rc = _recase(lit, rng)
                if rc:
                    options.append((2, ([(q.cs(i - 1), q.ce(i), "LIKE '" + rc.replace("'", "''") + "'")], f"ILIKE '{lit}' written as LIKE '{rc}'")))
            elif q.pg:
                rc = _recase(lit, rng)
                if rc:
                    options.append((2, ([(q.cs(i), q.ce(i), "'" + rc.replace("'", "''") + "'")], f"LIKE pattern '{lit}' written as '{rc}'")))
    # LOWER(col) = 'x' -> col = 'x'
    for i in range(q.n):
        if q.up(i) in ("LOWER", "UPPER") and q.is_call(i):
            rp = q.match.get(i + 1)
            if rp is None:
                continue
            nxt = q.tt(rp + 1)
            if nxt in (T.EQ, T.LIKE, T.IN) and not (nxt == T.LIKE and not q.pg):
                inner = q.text(i + 2, rp)
                options.append((2, ([(q.cs(i), q.ce(rp), inner)], f"{q.up(i)}() around the column forgotten")))
    edits, note = _wpick(rng, options)
    return _apply(q.sql, edits), note


def _k_integer_division(q: _Q, rng):
    options = []
    slashes = [i for i in range(q.n) if q.tt(i) == T.SLASH]
    if not slashes:
        raise _Skip

    def group_of(k):
        # token range of the innermost parenthesis group containing k
        d = q.depth[k]
        a = k
        while a - 1 >= 0 and not (q.tt(a - 1) == T.L_PAREN and q.depth[a - 1] == d - 1):
            a -= 1
        b = k
        while b + 1 < q.n and not (q.tt(b + 1) == T.R_PAREN and q.depth[b + 1] == d - 1):
            b += 1
        return a, b + 1

    def float_cols(a, b):
        for c in q.cols:
            ci = q.tok_index(c.s)
            if ci is not None and a <= ci < b and _typefam(q.coltype(c)) == "num":
                return True
        return False

    for i in range(q.n):
        u = q.up(i)
        if u == "CAST" and q.is_call(i):
            rp = q.match[i + 1]
            if q.tt(rp - 2) != T.ALIAS or not any(x in q.up(rp - 1) for x in ("FLOAT", "REAL", "DOUBLE", "NUMERIC", "DECIMAL")):
                continue
            a, b = group_of(i)
            if not any(a <= s < b and q.depth[s] == q.depth[i] for s in slashes):
                continue
            if float_cols(a, b):
                continue
            inner = q.text(i + 2, rp - 2)
            rep = inner if _simple_arg(q, i + 2, rp - 2) else f"({inner})"
            options.append((3, ([(q.cs(i), q.ce(rp), rep)], "float CAST dropped from the ratio")))
        elif q.tt(i) == T.DCOLON and any(x in q.up(i + 1) for x in ("FLOAT", "REAL", "DOUBLE", "NUMERIC", "DECIMAL")):
            a, b = group_of(i)
            if not any(a <= s < b and q.depth[s] == q.depth[i] for s in slashes):
                continue
            if float_cols(a, b):
                continue
            end = i + 1
            if q.tt(end + 1) == T.L_PAREN and q.match.get(end + 1):
                end = q.match[end + 1]
            if q.up(i + 1) == "DOUBLE" and q.up(i + 2) == "PRECISION":
                end = i + 2
            options.append((3, ([(q.cs(i), q.ce(end), "")], f"::{q.text(i + 1, end + 1)} cast dropped from the ratio")))
        elif q.tt(i) == T.NUMBER and re.fullmatch(r"\d+\.0+", q.toks[i].text):
            a, b = group_of(i)
            if not any(a <= s < b and q.depth[s] == q.depth[i] for s in slashes):
                continue
            if float_cols(a, b):
                continue
            if q.tt(i - 1) in (T.STAR, T.SLASH) or q.tt(i + 1) in (T.STAR, T.SLASH):
                new = q.toks[i].text.split(".")[0]
                options.append((3, ([(q.cs(i), q.ce(i), new)], f"{q.toks[i].text} written as {new} (integer arithmetic)")))
    edits, note = _wpick(rng, options)
    return _apply(q.sql, edits), note


def _k_distinct_flip(q: _Q, rng):
    options = []
    for i in range(q.n):
        if q.tt(i) == T.DISTINCT and q.tt(i + 1) != T.ON:
            if q.tt(i - 1) == T.SELECT:
                options.append((3, ([(q.cs(i), q.cs(i + 1), "")], "SELECT DISTINCT written without DISTINCT")))
            elif q.tt(i - 1) == T.L_PAREN and q.up(i - 2) in ("COUNT", "SUM", "AVG", "GROUP_CONCAT", "STRING_AGG"):
                b = q.block_of(i)
                f = q.clause_range(b, "from") if b is not None else None
                joined = f is not None and any(q.tt(k) in (T.JOIN, T.COMMA) for k in range(*f))
                cols = [c for c in q.cols if c.s >= q.cs(i + 1) and c.e <= q.cs(q.match.get(i - 1, i))]
                if not joined and len(cols) == 1 and cols[0].table is not None and [cols[0].name.lower()] == _pk_guess(cols[0].table):
                    continue
                options.append((3 if joined else 1.5, ([(q.cs(i), q.cs(i + 1), "")], f"{q.up(i - 2)}(DISTINCT ...) written without DISTINCT")))
        elif q.up(i) in ("COUNT", "SUM") and q.is_call(i) and q.tt(i + 2) not in (T.STAR, T.DISTINCT, T.R_PAREN):
            # adding DISTINCT changes the answer only where duplicates exist; skip primary keys
            rp = q.match[i + 1]
            cols = [c for c in q.cols if c.s >= q.cs(i + 2) and c.e <= q.cs(rp)]
            if len(cols) != 1 or rp - (i + 2) > 3 or cols[0].table is None:
                continue
            c = cols[0]
            if [c.name.lower()] == _pk_guess(c.table):
                continue
            low = c.name.lower()
            fk_like = _keyish(low)
            valueish = any(x in low for x in ("status", "type", "category", "city", "country", "state", "name", "date", "year"))
            if q.up(i) == "COUNT" and (fk_like or valueish):
                w = 1.5
            else:
                continue
            options.append((w, ([(q.cs(i + 2), q.cs(i + 2), "DISTINCT ")], f"{q.up(i)}(DISTINCT ...) where duplicates count")))
    for b in q.blocks:
        if b.depth != 0 or "group" in b.clauses or q.tt(b.sel + 1) == T.DISTINCT:
            continue
        s0, s1 = q.select_range(b)
        if q.has_agg(s0, s1):
            continue
        f = q.clause_range(b, "from")
        sel_cols = [c for c in q.cols if q.cs(s0) <= c.s < q.ce(s1 - 1)]
        if any(c.table is not None and _keyish(c.name) for c in sel_cols):
            continue
        if f and any(q.tt(k) == T.JOIN for k in range(*f)):
            p = q.ce(b.sel)
            options.append((0.6, ([(p, p, " DISTINCT")], "DISTINCT added to a join result")))
    edits, note = _wpick(rng, options)
    return _apply(q.sql, edits), note


_SQL_FUNCS = {
    "invented_column": _k_invented_column,
    "invented_table": _k_invented_table,
    "wrong_table_column": _k_wrong_table_column,
    "ambiguous_column": _k_ambiguous_column,
    "grouping_error": _k_grouping_error,
    "foreign_dialect": _k_foreign_dialect,
    "odd_quoting": _k_odd_quoting,
    "syntax_slip": _k_syntax_slip,
    "cte_scope": _k_cte_scope,
    "alias_mixup": _k_alias_mixup,
    "join_mistake": _k_join_mistake,
    "needless_join": _k_needless_join,
    "wrong_aggregate": _k_wrong_aggregate,
    "dropped_filter": _k_dropped_filter,
    "comparison_flip": _k_comparison_flip,
    "date_range": _k_date_range,
    "limit_order": _k_limit_order,
    "literal_format": _k_literal_format,
    "integer_division": _k_integer_division,
    "distinct_flip": _k_distinct_flip,
}

_REPLY_FUNCS = {
    "truncated": _k_truncated,
    "prose_layout": _k_prose_layout,
    "json_reply": _k_json_reply,
    "multiple_blocks": _k_multiple_blocks,
    "explain_comments": _k_explain_comments,
    "hinglish_reply": _k_hinglish_reply,
}

# kinds that need the parsed tree / resolved columns
_NEEDS_TREE = {"invented_column", "invented_table", "wrong_table_column", "ambiguous_column", "alias_mixup",
               "needless_join", "cte_scope"}


def damage(gold_sql: str, schema, kind: str, seed: int) -> Damaged | None:
    if kind not in DAMAGE_KINDS:
        raise ValueError(f"unknown damage kind: {kind!r}")
    try:
        return _damage(gold_sql, schema, kind, seed)
    except Exception:
        return None


def _damage(gold_sql: str, schema, kind: str, seed: int) -> Damaged | None:
    if not isinstance(gold_sql, str) or not gold_sql.strip():
        return None
    rng = _rng(gold_sql, kind, seed)
    sql = gold_sql.strip()
    try:
        q = _Q(sql, schema)
    except Exception:
        q = None
    if kind == "clean":
        if q is None:
            return Damaged("clean", f"```sql\n{sql}\n```", "gold query in an ordinary reply")
        return Damaged("clean", _ordinary(q, sql, rng), "gold query in an ordinary reply")
    if q is None or q.n == 0:
        return None
    if kind in _NEEDS_TREE and q.tree is None:
        return None
    try:
        if kind in _REPLY_FUNCS:
            reply, note = _REPLY_FUNCS[kind](q, rng)
            if not reply or reply.strip() == sql:
                return None
            return Damaged(kind, reply, "A: " + note)
        new_sql, note = _SQL_FUNCS[kind](q, rng)
    except _Skip:
        return None
    if not new_sql or new_sql.strip() == sql or _norm(new_sql) == _norm(sql):
        return None
    fam = "B" if kind in FAMILY_B else "A"
    return Damaged(kind, _ordinary(q, new_sql, rng), f"{fam}: {note}")


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s.strip().rstrip(";")).strip()
