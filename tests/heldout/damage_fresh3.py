"""Held-out damage generator no. 3: how a 7B-class local model (qwen2.5-coder:7b, llama3.1:8b, mistral) gets SQL wrong.

Written independently of the repair code and of the earlier generators, from published error analyses:

* DIN-SQL (Pourreza & Rafiei 2023) sorts Codex/GPT failures into schema linking (~35%: wrong or invented
  column/table names), JOIN (~20%: missing or wrong join condition, extra tables), GROUP BY (~15%: missing or
  wrong grouping), nested-query/set-op, invalid SQL (syntax, dialect) and "others". MAC-SQL's refiner and CHESS's
  revision agent are motivated by the same classes: execution errors (no such column/function, syntax) are the
  ones a feedback loop can repair, value mismatches and wrong joins the ones it cannot see.
* BIRD (Li et al. 2023) and the "SQL hallucination" taxonomies (Qu et al. 2024, "Before generation, align it";
  Shen et al. 2024 "A survey on employing LLMs for text-to-SQL") split hallucinations into *schema-based*
  (non-existent column, column attached to the wrong table, ambiguous reference, abbreviation/plural guesses) and
  *logic-based* (aggregate misuse, missing GROUP BY, implicit type conversion, extra joins, wrong values).
  BIRD highlights value-linking errors ('USA' vs 'United States', case) as the largest silent class.
* Dialect drift: small code models are trained mostly on MySQL/T-SQL/PostgreSQL text, so on SQLite they write
  YEAR(), NOW(), ILIKE, ``::`` casts, TOP n; on PostgreSQL they write IFNULL, DATE_SUB(..., INTERVAL 30 DAY),
  backtick identifiers and double-quoted strings (Spider 2.0 / "dialect hallucination" reports; our own logs of
  qwen2.5-coder:7b and llama3.1:8b).
* Output format: small instruction models wrap SQL in prose, answer "SQLQuery: ..." (LangChain prompt echo),
  or show a draft query and then a "final" one (self-correction in the reply).

Every edit is made on the gold's *tokens* (sqlglot tokenizer, character offsets) so the rest of the gold text is
kept byte for byte: no kind re-renders the gold through sqlglot, hence ``TREE_KINDS = ()``.

Family A (the database rejects the reply, or the fix is unambiguous from reply + schema):
  clean             the gold itself.
  format_noise      prose around unfenced SQL, LangChain "SQLQuery:" echo, inline `backticks`, an explanation
                    line inside the fence, or a draft block followed by a clearly marked final block.
  column_misspelt   schema-linking hallucination of a column: plural/singular, abbreviation (qty, amt, num),
                    table prefix added/dropped, camelCase, synonym, "id" conventions, a typo (DIN-SQL schema linking).
  table_misspelt    the same for a table: plural/singular (the most common), tbl_ prefix, camelCase, synonym.
  reserved_word     a reserved word used unquoted: table alias "order"/"user"/"is"/"to" derived from the table
                    name, a column label like AS desc referenced in ORDER BY, or a quoted keyword name unquoted.
  quoting_slip      MySQL backticks / T-SQL brackets on PostgreSQL, "double-quoted strings", wrong-case quoted
                    names, unescaped apostrophes, unquoted date or word literals, `alias.col` quoted as one name.
  foreign_limit     TOP n, WHERE ROWNUM <= n, FETCH FIRST on SQLite, MySQL LIMIT offset, count on PostgreSQL.
  foreign_function  date/time (YEAR(), DATE_SUB, DATEADD, strftime on PG, EXTRACT on SQLite, NOW, CURDATE),
                    null handling (IFNULL/ISNULL/NVL), strings (LEN, CHARINDEX, LCASE, MID, GROUP_CONCAT),
                    IF()/IIF for CASE, ILIKE and ``::`` casts on SQLite.
  concat_plus       T-SQL string concatenation with + (an error on PostgreSQL; 0 on SQLite).
  missing_group_by  aggregate beside bare columns, GROUP BY dropped (DIN-SQL "GROUP BY" class).
  aggregate_in_where  HAVING condition written into WHERE, or WHERE x > AVG(x) for the scalar subquery.
  alias_misuse      table name used after aliasing it, alias used but never declared, column under the other
                    table's alias, a SELECT alias used in HAVING/WHERE (PostgreSQL).
  ambiguous_column  qualifiers dropped in a join where the name exists in two tables.
  join_error        conventional key guessed (c.id, same name both sides), JOIN without ON (PostgreSQL),
                    USING on a column only one side has, join on a type-incompatible column.
Family B (runs, different rows; detectable from schema + data by a careful checker):
  silent_extra_join     an inner join to a related table that adds no selected column (fan-out or lost rows).
  silent_group_label    GROUP BY a non-unique label (name) instead of the key.
  silent_value_literal  a filter literal in the wrong case/spelling/abbreviation (BIRD value-linking errors).
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass
from typing import Any

from sqlglot.dialects.dialect import Dialect
from sqlglot.tokens import TokenType as T

__all__ = ["DAMAGE_KINDS", "TREE_KINDS", "Damaged", "damage"]


@dataclass(frozen=True)
class Damaged:
    kind: str
    reply: str  # the full text the fake model answers (may include prose, markdown fences)
    note: str  # one line: what was damaged


DAMAGE_KINDS: tuple[str, ...] = (
    "clean", "format_noise", "column_misspelt", "table_misspelt", "reserved_word", "quoting_slip",
    "foreign_limit", "foreign_function", "concat_plus", "missing_group_by", "aggregate_in_where", "alias_misuse",
    "ambiguous_column", "join_error", "silent_extra_join", "silent_group_label", "silent_value_literal",
)  # fmt: skip
TREE_KINDS: tuple[str, ...] = ()  # every kind edits the gold's text at token offsets; nothing is re-rendered

# ----------------------------------------------------------------------------------------------------------------
# word lists

# cannot be a table alias (verified: SQLite 3.40, PostgreSQL 16)
_RES_SQLITE = frozenset(
    "order group from to table check default primary references limit in is on or as case index select where union "
    "unique using when then else into join values exists not null all distinct between collate escape "
    "transaction commit".split())  # fmt: skip
_RES_PG = frozenset(
    "all analyse analyze and any array as asc asymmetric both case cast check collate column constraint create "
    "current_date current_role current_time current_timestamp current_user default deferrable desc distinct do else "
    "end except false fetch for foreign from grant group having in initially intersect into lateral leading limit "
    "localtime localtimestamp not null offset on only or order placing primary references returning select "
    "session_user some symmetric table then to trailing true union unique user using variadic when where window "
    "with authorization binary collation concurrently cross freeze full ilike inner is isnull join left like natural "
    "notnull outer overlaps right similar tablesample verbose".split())  # fmt: skip
# words that a model would pick as a table alias or column label from a name part
_RES_WORDS = ("order", "group", "user", "check", "table", "case", "default", "primary", "limit", "end", "desc",
              "from", "to", "index", "transaction", "values", "offset", "window", "in", "is", "on", "or", "as", "do")
_PREFIX_ALIASES = frozenset({"as", "do", "in", "is", "on", "or", "to", "all", "and", "any", "asc", "end", "for", "not"})
_LABEL_FROM = {"description": "desc", "descr": "desc", "end_date": "end", "from_airport": "from", "to_airport": "to"}

_ABBREV = {
    "quantity": "qty", "number": "num", "amount": "amt", "description": "descr", "average": "avg", "count": "cnt",
    "address": "addr", "department": "dept", "category": "cat", "customer": "cust", "product": "prod",
    "identifier": "id", "transaction": "txn", "employee": "emp", "year": "yr", "date": "dt", "total": "tot",
    "information": "info", "position": "pos", "temperature": "temp", "number_of": "num", "organization": "org",
    "minimum": "min", "maximum": "max", "percentage": "pct", "reference": "ref", "message": "msg",
    "status": "stat", "balance": "bal", "account": "acct", "telephone": "phone", "registration": "reg",
    "restaurant": "rest", "salesperson": "sales_rep", "publication": "pub", "conference": "conf",
}
_EXPAND = {v: k for k, v in _ABBREV.items() if v not in ("id", "num")}
_EXPAND.update({"no": "number", "num": "number", "qty": "quantity", "dob": "date_of_birth", "ts": "timestamp"})
_SYNONYM = {
    "price": "cost", "cost": "price", "amount": "total", "total": "amount", "name": "title", "title": "name",
    "created_at": "created_date", "updated_at": "modified_date", "email": "email_address", "phone": "phone_number",
    "first_name": "firstname", "last_name": "surname", "salary": "wage", "city": "town", "revenue": "sales",
    "rating": "score", "score": "rating", "state": "state_name", "country": "country_name", "year": "yr",
    "date": "created_date", "birth_date": "dob", "gender": "sex", "sex": "gender", "zip": "zipcode",
    "date_of_birth": "birthdate", "signup_date": "created_at", "timestamp": "created_at", "type": "category",
}
_TABLE_SYNONYM = {
    "customers": "clients", "customer": "client", "users": "accounts", "products": "items", "product": "item",
    "employees": "staff", "orders": "purchases", "order": "purchase", "transactions": "payments",
    "payments": "transactions", "sales": "orders", "doctors": "physicians", "patients": "patient_info",
    "drugs": "medications", "treatments": "therapies", "paper": "papers", "author": "authors", "flight": "flights",
}
_VALUE_ABBREV = {
    "united states": "USA", "usa": "United States", "us": "United States", "united kingdom": "UK",
    "uk": "United Kingdom", "new york": "NY", "california": "CA", "texas": "TX", "ny": "New York",
    "ca": "California", "tx": "Texas", "female": "F", "male": "M", "f": "Female", "m": "Male",
    "yes": "Y", "no": "N", "true": "1", "false": "0", "completed": "complete", "cancelled": "canceled",
    "canceled": "cancelled", "pending": "in progress", "active": "enabled", "inactive": "disabled",
}
_AGG = frozenset({"COUNT", "SUM", "AVG", "MIN", "MAX", "TOTAL", "GROUP_CONCAT", "STRING_AGG", "ARRAY_AGG",
                  "STDDEV", "VARIANCE", "MEDIAN", "BOOL_AND", "BOOL_OR", "PERCENTILE_CONT", "PERCENTILE_DISC"})
_STRUCT = frozenset({
    T.SELECT, T.FROM, T.WHERE, T.AND, T.OR, T.NOT, T.ON, T.JOIN, T.GROUP_BY, T.ORDER_BY, T.HAVING, T.LIMIT,
    T.ALIAS, T.CASE, T.WHEN, T.THEN, T.ELSE, T.END, T.IN, T.IS, T.NULL, T.LIKE, T.ILIKE, T.BETWEEN, T.DISTINCT,
    T.UNION, T.ALL, T.ASC, T.DESC, T.WITH, T.EXISTS, T.LEFT, T.RIGHT, T.INNER, T.OUTER, T.FULL, T.CROSS,
    T.NATURAL, T.USING, T.OFFSET, T.FETCH, T.OVER, T.INTERVAL, T.CURRENT_DATE, T.CURRENT_TIMESTAMP, T.TRUE,
    T.FALSE, T.STRING, T.NUMBER, T.EXCEPT, T.INTERSECT, T.PARTITION_BY,
})  # fmt: skip
_CLAUSE_STOP = frozenset({T.WHERE, T.GROUP_BY, T.HAVING, T.ORDER_BY, T.LIMIT, T.OFFSET, T.FETCH, T.WINDOW,
                          T.UNION, T.EXCEPT, T.INTERSECT, T.SEMICOLON, T.QUALIFY})
_JOIN_START = frozenset({T.JOIN, T.LEFT, T.RIGHT, T.INNER, T.FULL, T.CROSS, T.NATURAL, T.OUTER, T.COMMA})
_WORD = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")


def _rng(gold: str, kind: str, seed: int) -> random.Random:
    digest = hashlib.sha256(f"fresh3\0{kind}\0{seed}\0{gold}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _pick(rng: random.Random, options: list[tuple[float, Any]]) -> Any:
    options = [o for o in options if o[0] > 0]
    if not options:
        return None
    return rng.choices([o[1] for o in options], weights=[o[0] for o in options], k=1)[0]


def _singular(w: str) -> str:
    low = w.lower()
    if low.endswith("ies") and len(w) > 4:
        return w[:-3] + ("Y" if w[-1].isupper() else "y")
    if low.endswith(("sses", "xes", "ches", "shes")):
        return w[:-2]
    if low.endswith("s") and not low.endswith(("ss", "us", "is")) and len(w) > 3:
        return w[:-1]
    return w


def _plural(w: str) -> str:
    low = w.lower()
    if low.endswith("y") and len(w) > 2 and low[-2] not in "aeiou":
        return w[:-1] + "ies"
    if low.endswith(("s", "x", "ch", "sh")):
        return w + "es"
    return w + "s"


def _toggle_number(w: str) -> str:
    s = _singular(w)
    out = s if s != w else _plural(w)
    return out.upper() if w.isupper() else out


def _parts(name: str) -> list[str]:
    if "_" in name:
        return [p for p in name.split("_") if p]
    return [p.lower() for p in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", name)] or [name]


def _camel(parts: list[str], pascal: bool = False) -> str:
    out = "".join(p[:1].upper() + p[1:] for p in parts)
    return out if pascal else out[:1].lower() + out[1:]


def _family(type_: str) -> str:
    t = (type_ or "").lower()
    if any(k in t for k in ("date", "time")):
        return "date"
    if any(k in t for k in ("char", "text", "string", "clob", "uuid", "json")):
        return "text"
    if "bool" in t:
        return "bool"
    if any(k in t for k in ("int", "num", "dec", "real", "double", "float", "money", "serial")):
        return "num"
    return "other"


def _key_col(table: Any) -> str | None:
    """The table's own key: a declared one-column primary key, else by convention (id, customer_id, cid)."""
    if len(table.primary_key) == 1:
        return table.primary_key[0]
    sing = _singular(table.name).lower()
    wanted = ("id", f"{sing}_id", f"{table.name.lower()}_id", f"{sing[:1]}id", f"{sing[:2]}id", f"{sing}id")
    return next((c.name for w in wanted for c in table.columns if c.name.lower() == w), None)


def _keyish(name: str, table: Any) -> bool:
    low = name.lower()
    key = _key_col(table)
    return (key is not None and key.lower() == low) or low == "id" or low.endswith("_id") or bool(
        re.fullmatch(r"[a-z]{1,3}id", low))


# ----------------------------------------------------------------------------------------------------------------
# the analysed gold: tokens with paren depth, query frames, SELECT blocks, table references and column references


@dataclass
class _Ref:
    block: int | None
    name_i: int | None  # token of the table name (None for a derived table)
    end_i: int  # last token of the table expression (before the alias)
    alias_i: int | None
    table: Any  # core.schema.Table or None (CTE, derived)
    intro_i: int  # the FROM / JOIN / comma token


@dataclass
class _Col:
    i: int  # the column token
    q: int | None  # the qualifier token
    ref: _Ref | None
    table: Any
    column: Any


class _Q:
    def __init__(self, sql: str, schema: Any) -> None:
        self.sql, self.schema = sql, schema
        self.dialect = "postgres" if str(getattr(schema, "dialect", "")).startswith("postgres") else "sqlite"
        self.toks = Dialect.get_or_raise(self.dialect).tokenize(sql)
        n = self.n = len(self.toks)
        self.depth = [0] * n
        self.block: list[int | None] = [None] * n
        self.match: dict[int, int] = {}
        self.parent: dict[int, int | None] = {}
        stack: list[tuple[int, bool]] = []
        cur_block: dict[int, int | None] = {-1: None}
        frames = [-1]
        for i, t in enumerate(self.toks):
            if t.token_type == T.R_PAREN and stack:
                op, is_q = stack.pop()
                self.match[op], self.match[i] = i, op
                if is_q:
                    frames.pop()
            self.depth[i] = len(stack)
            frame = frames[-1]
            if t.token_type == T.SELECT:
                cur_block[frame] = i
                self.parent[i] = self.block[frame] if frame >= 0 else None
            self.block[i] = cur_block.get(frame)
            if t.token_type == T.L_PAREN:
                is_q = i + 1 < n and self.toks[i + 1].token_type in (T.SELECT, T.WITH)
                stack.append((i, is_q))
                if is_q:
                    frames.append(i)
                    cur_block[i] = None
        if stack:
            raise ValueError("unbalanced parentheses")
        self.ctes = {self.toks[i].text.lower() for i in range(n - 3) if self.word(i)
                     and self.toks[i + 1].token_type == T.ALIAS and self.toks[i + 2].token_type == T.L_PAREN
                     and self.toks[i + 3].token_type in (T.SELECT, T.WITH)}  # fmt: skip
        self.refs: list[_Ref] = []
        for i, t in enumerate(self.toks):
            if t.token_type in (T.FROM, T.JOIN) and self.block[i] is not None and self._frame_level(i):
                self._read_refs(i + 1, i, t.token_type == T.FROM)
        self.ref_tokens = {k for r in self.refs for k in (r.name_i, r.alias_i) if k is not None}
        self.ref_tokens |= {r.name_i - 2 for r in self.refs if r.name_i and r.name_i >= 2
                            and self.toks[r.name_i - 1].token_type == T.DOT}  # fmt: skip
        self.out_aliases = {self.toks[i + 1].text.lower() for i in range(n - 1)
                            if self.toks[i].token_type == T.ALIAS and self.word(i + 1)}  # fmt: skip
        self.cols = [c for c in (self._col(i) for i in range(n)) if c is not None]

    # -- helpers
    def word(self, i: int) -> bool:
        t = self.toks[i]
        return t.token_type == T.IDENTIFIER or (t.token_type not in (T.STRING, T.NUMBER) and bool(_WORD.match(t.text)))

    def typ(self, i: int) -> Any:
        return self.toks[i].token_type if 0 <= i < self.n else None

    def text(self, i: int, j: int) -> str:  # tokens i..j inclusive, as written
        return self.sql[self.toks[i].start : self.toks[j].end + 1]

    def raw(self, i: int) -> str:
        return self.text(i, i)

    def _frame_level(self, i: int) -> bool:
        """Token i sits directly in its query (not inside a function's parentheses)."""
        b = self.block[i]
        return b is not None and self.depth[i] == self.depth[b]

    def chain(self, block: int | None) -> list[int]:
        out: list[int] = []
        while block is not None and block not in out:
            out.append(block)
            block = self.parent.get(block)
        return out

    def block_refs(self, block: int | None) -> list[_Ref]:
        return [r for r in self.refs if r.block == block]

    def qual_name(self, r: _Ref) -> str:
        return self.toks[r.alias_i].text if r.alias_i is not None else self.toks[r.name_i].text  # type: ignore[index]

    def _read_refs(self, k: int, intro: int, from_list: bool) -> None:
        n, toks = self.n, self.toks
        if k >= n:
            return
        name_i: int | None = None
        table = None
        if toks[k].token_type == T.L_PAREN:
            end = self.match[k]
        elif self.word(k) and k + 1 < n and toks[k + 1].token_type == T.L_PAREN:
            end = self.match[k + 1]
        elif self.word(k) and toks[k].token_type not in _STRUCT:
            end = name_i = k
            qualified = toks[k].text
            if k + 2 < n and toks[k + 1].token_type == T.DOT and self.word(k + 2):
                end = name_i = k + 2
                qualified = f"{toks[k].text}.{toks[k + 2].text}"
            if toks[name_i].text.lower() not in self.ctes:
                table = self.schema.table(qualified) or self.schema.table(toks[name_i].text)
        else:
            return
        alias_i = None
        a = end + 1
        if a < n and toks[a].token_type == T.ALIAS and a + 1 < n and self.word(a + 1):
            alias_i = a + 1
        elif a < n and toks[a].token_type in (T.VAR, T.IDENTIFIER):
            alias_i = a
        self.refs.append(_Ref(self.block[intro], name_i, end, alias_i, table, intro))
        nxt = (alias_i if alias_i is not None else end) + 1
        if from_list and nxt < n and toks[nxt].token_type == T.COMMA and self.depth[nxt] == self.depth[intro]:
            self._read_refs(nxt + 1, nxt, True)

    def lookup(self, name: str, block: int | None) -> _Ref | None:
        low = name.lower()
        for b in self.chain(block):
            for r in self.block_refs(b):
                if r.alias_i is not None:
                    if self.toks[r.alias_i].text.lower() == low:
                        return r
                elif r.name_i is not None and self.toks[r.name_i].text.lower() == low:
                    return r
        return None

    def _col(self, i: int) -> _Col | None:
        toks, n = self.toks, self.n
        if i in self.ref_tokens or not self.word(i) or toks[i].token_type in _STRUCT:
            return None
        if i + 1 < n and toks[i + 1].token_type in (T.DOT, T.L_PAREN):
            return None
        prev = toks[i - 1].token_type if i else None
        if prev == T.DOT:
            q = i - 2
            if q < 0 or not self.word(q):
                return None
            ref = self.lookup(toks[q].text, self.block[i])
            table = ref.table if ref else None
            return _Col(i, q, ref, table, table.column(toks[i].text) if table else None)
        if prev in (T.ALIAS, T.DCOLON, T.STRING, T.NUMBER) or toks[i].text.lower() in self.out_aliases:
            return None
        if prev == T.L_PAREN and i >= 2 and toks[i - 2].text.upper() in ("EXTRACT", "DATE_PART", "DATEPART"):
            return None
        low = toks[i].text.lower()
        for b in self.chain(self.block[i]):
            refs = self.block_refs(b)
            hits = [r for r in refs if r.table is not None and r.table.column(low) is not None]
            if len(hits) == 1:
                return _Col(i, None, hits[0], hits[0].table, hits[0].table.column(low))
            if hits or any(r.table is None for r in refs):
                return None
        return None

    def query_tables(self) -> list[Any]:
        seen: dict[str, Any] = {}
        for r in self.refs:
            if r.table is not None:
                seen.setdefault(r.table.qualified_name, r.table)
        return list(seen.values())

    def all_column_names(self) -> set[str]:
        return {c.name.lower() for t in self.query_tables() for c in t.columns}

    def clause_end(self, i: int, stops: frozenset[Any] = _CLAUSE_STOP) -> int:
        d = self.depth[i]
        for j in range(i + 1, self.n):
            if self.depth[j] < d or (self.depth[j] == d and self.toks[j].token_type in stops):
                return j
        return self.n

    def pos(self, j: int) -> int:
        """Character offset where token j starts (end of text, before trailing blanks, when j is past the end)."""
        return self.toks[j].start if j < self.n else len(self.sql.rstrip())

    def find(self, types: Any, block: int | None, after: int = -1, before: int | None = None) -> int | None:
        for j in range(after + 1, self.n if before is None else before):
            if self.toks[j].token_type in types and self.block[j] == block and self._frame_level(j):
                return j
        return None

    def select_items(self, block: int) -> list[tuple[int, int]]:
        """(first, last) token of each select-list item of the SELECT at ``block``."""
        f = self.find((T.FROM,), block, block)
        end = f if f is not None else self.clause_end(block)
        start = block + 1
        while start < end and self.toks[start].token_type in (T.DISTINCT, T.ALL):
            start += 1
        return self.split(start, end)

    def split(self, start: int, end: int) -> list[tuple[int, int]]:
        """Top-level comma-separated pieces of tokens start..end-1."""
        out, s = [], start
        d = self.depth[start] if start < self.n else 0
        for j in range(start, end):
            if self.toks[j].token_type == T.COMMA and self.depth[j] == d:
                out.append((s, j - 1))
                s = j + 1
        if s < end:
            out.append((s, end - 1))
        return [p for p in out if p[0] <= p[1]]

    def has_agg(self, a: int, b: int) -> bool:
        toks = self.toks
        if any(toks[j].token_type == T.OVER for j in range(a, b + 1)):
            return False
        return any(toks[j].text.upper() in _AGG and j + 1 <= b and toks[j + 1].token_type == T.L_PAREN
                   for j in range(a, b + 1))  # fmt: skip

    def col_at(self, i: int) -> _Col | None:
        return next((c for c in self.cols if c.i == i), None)

    def item_col(self, a: int, b: int) -> _Col | None:
        """The column when tokens a..b are exactly one (optionally qualified) column reference."""
        c = self.col_at(b)
        if c is None or c.column is None:
            return None
        return c if (c.q is None and a == b) or (c.q is not None and c.q == a and b == a + 2) else None


def _apply(sql: str, edits: list[tuple[int, int, str]]) -> str | None:
    edits = sorted(edits, key=lambda e: (e[0], e[1]))
    for (s1, e1, _), (s2, _, _) in zip(edits, edits[1:], strict=False):
        if s2 < e1:
            return None
    out = sql
    for s, e, new in reversed(edits):
        out = out[:s] + new + out[e:]
    return re.sub(r"[ \t]+;", ";", re.sub(r"[ \t]{2,}", " ", out)).strip()


def _rename(q: _Q, i: int, new: str) -> tuple[int, int, str]:
    t = q.toks[i]
    raw = q.raw(i)
    if t.token_type == T.IDENTIFIER and len(raw) >= 2:
        return (t.start, t.end + 1, raw[0] + new + raw[-1])
    return (t.start, t.end + 1, new)


def _wrap(sql: str, rng: random.Random) -> str:
    """How a plain answer usually comes back: bare, or in a sql fence (a plain tool handles both)."""
    body = sql if sql.rstrip().endswith(";") or rng.random() < 0.5 else sql.rstrip() + ";"
    roll = rng.random()
    if roll < 0.45:
        return f"```sql\n{body}\n```"
    if roll < 0.6:
        return f"```sql\n{body}\n```\n" + rng.choice(
            ("This query returns the requested rows.", "Let me know if you need anything else!",
             "The results are filtered and aggregated as asked."))  # fmt: skip
    return body


# ----------------------------------------------------------------------------------------------------------------
# family A


def _format_noise(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    sql = q.sql.strip()
    tables = [t.name for t in q.query_tables()] or ["the table"]
    main = tables[0]
    joined = ", ".join(f"`{t}`" for t in tables)
    options = [
        (3, "prose"), (2, "langchain"), (1.5, "draft"), (1, "inline"), (1.5, "note_in_fence"), (1, "tags"),
    ]
    how = _pick(rng, options)
    if how == "inline" and ("\n" in sql or len(sql) > 220):
        how = "prose"
    if how == "prose":
        intro = rng.choice(("Sure! Here is the SQL query to answer your question:",
                            "To answer this question, we need to query the " + joined + " table(s).",
                            "Here's the query:", "Based on the schema provided, the query would be:"))
        outro = rng.choice(("This query selects the relevant columns from " + joined + " and applies the filters "
                            "described in the question.", "Explanation:\n- We use the " + joined + " table(s).\n- "
                            "The conditions restrict the rows to those asked for.",
                            "Note: adjust the conditions if your data uses a different format."))
        return f"{intro}\n\n{sql}\n\n{outro}", "prose around unfenced SQL"
    if how == "langchain":
        return (f"SQLQuery: {' '.join(sql.split())}\nSQLResult: \nAnswer: The query above returns the result.",
                "LangChain-style 'SQLQuery:' echo")
    if how == "inline":
        return (f"You can get this with `{sql.rstrip(';')}`, which reads from {joined}.",
                "SQL inline in a sentence, single backticks")
    if how == "note_in_fence":
        note = rng.choice(("Note: this assumes the dates are stored as text in ISO format.",
                           "This query will return the expected result.", "Explanation: we filter and aggregate."))
        return f"```sql\n{sql}\n{note}\n```", "explanation line inside the code fence"
    if how == "tags":
        return f"<sql>\n{sql}\n</sql>", "SQL inside <sql> tags"
    draft_kind = rng.choice(("column_misspelt", "missing_group_by", "preview"))
    draft = None
    if draft_kind != "preview":
        made = _KINDS[draft_kind](q, rng)
        draft = made[0] if made else None
    if draft is None or draft.strip() == sql:
        draft = f"SELECT * FROM {main} LIMIT 5;"
        lead = "First, let's look at a few rows of the table:"
        mid = "Now that we know the structure, the final query is:"
    else:
        lead = "Let's start with this query:"
        mid = rng.choice(("Wait, that is not quite right. Here is the corrected version.\n\n**Final answer:**",
                          "However, this might fail. The final, corrected query:"))
    return (f"{lead}\n\n```sql\n{draft}\n```\n\n{mid}\n\n```sql\n{sql}\n```",
            "a draft block first, the final answer marked in a second block")


def _col_variants(name: str, table: Any) -> list[tuple[float, str, str]]:
    parts = _parts(name)
    low = name.lower()
    tsing = _singular(table.name).lower()
    out: list[tuple[float, str, str]] = []
    if parts[-1].lower() != "id":
        tail = name[len(name) - len(parts[-1]) :]
        if tail.lower() == parts[-1].lower():
            new = name[: len(name) - len(tail)] + _toggle_number(tail)
            out.append((3 if len(new) < len(name) else 1.5, new, "plural/singular"))
    if len(parts) >= 2:
        out.append((2, _camel(parts), "camelCase"))
        out.append((1, _camel(parts, pascal=True), "PascalCase"))
        out.append((1.5, "".join(parts), "underscores dropped"))
    elif name != name.lower():
        out.append((2, "_".join(_parts(name)), "snake_case for camelCase"))
    if low.startswith(tsing + "_") and len(low) > len(tsing) + 1:
        out.append((2, name[len(tsing) + 1 :], "table prefix dropped"))
    elif low != "id" and len(tsing) <= 10 and "_" not in tsing:
        out.append((1.5, f"{tsing}_{name}", "table prefix added"))
    for i, p in enumerate(parts):
        if p.lower() in _ABBREV and _ABBREV[p.lower()] != "id":
            out.append((2.5, "_".join(parts[:i] + [_ABBREV[p.lower()]] + parts[i + 1 :]), "abbreviated"))
        elif p.lower() in _EXPAND:
            out.append((2, "_".join(parts[:i] + [_EXPAND[p.lower()]] + parts[i + 1 :]), "abbreviation expanded"))
    if low in _SYNONYM:
        out.append((2.5, _SYNONYM[low], "synonym"))
    if low == "id":
        out.append((4, f"{tsing}_id", "'id' guessed as <table>_id"))
    elif low.endswith("_id"):
        stem = low[:-3]
        out += [(2, stem + "id", "id suffix joined"), (1, stem + "_no", "id guessed as _no")]
        if stem == tsing:
            out.append((2, "id", "own key guessed as 'id'"))
    if len(name) >= 6:
        k = 1 + (len(name) - 3) // 2
        if name[k].isalpha():
            out.append((0.7, name[:k] + name[k + 1 :], "a letter dropped"))
    return out


def _column_misspelt(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    taken = q.all_column_names() | {t.name.lower() for t in q.schema.tables} | q.out_aliases
    sites: dict[tuple[str, str], list[_Col]] = {}
    for c in q.cols:
        if c.column is not None:
            sites.setdefault((c.table.qualified_name, c.column.name), []).append(c)
    keys = sorted(sites)
    rng.shuffle(keys)
    for key in keys:
        cols = sites[key]
        variants = [(w, v, why) for w, v, why in _col_variants(cols[0].column.name, cols[0].table)
                    if v and _WORD.match(v) and v.lower() not in taken and v.lower() not in _RES_PG
                    and v.lower() not in _RES_SQLITE]  # fmt: skip
        pick = _pick(rng, [(w, (v, why)) for w, v, why in variants])
        if pick is None:
            continue
        new, why = pick
        out = _apply(q.sql, [_rename(q, c.i, new) for c in cols])
        if out:
            return out, f"column {key[0]}.{key[1]} written as {new} ({why})"
    return None


def _table_variants(name: str) -> list[tuple[float, str, str]]:
    parts = _parts(name)
    tail = name[len(name) - len(parts[-1]) :]
    out = [(5, name[: len(name) - len(tail)] + _toggle_number(tail), "plural/singular")]
    if name.lower().startswith(("tbl_", "t_")):
        out.append((2, name.split("_", 1)[1], "prefix dropped"))
    else:
        out.append((0.7, "tbl_" + name, "tbl_ prefix added"))
    if len(parts) >= 2:
        out += [(1.5, _camel(parts, pascal=True), "PascalCase"), (1.5, "".join(parts), "underscores dropped")]
    elif name != name.lower():
        out.append((2, "_".join(parts), "snake_case for camelCase"))
    if name.lower() in _TABLE_SYNONYM:
        out.append((1.5, _TABLE_SYNONYM[name.lower()], "synonym"))
    return out


def _table_misspelt(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    tables = q.query_tables()
    rng.shuffle(tables)
    for table in tables:
        refs = [r for r in q.refs if r.table is table and r.name_i is not None]
        variants = [(w, (v, why)) for w, v, why in _table_variants(q.toks[refs[0].name_i].text)
                    if _WORD.match(v) and q.schema.table(v) is None and v.lower() not in q.ctes
                    and v.lower() not in q.all_column_names()]  # fmt: skip
        pick = _pick(rng, variants)
        if pick is None:
            continue
        new, why = pick
        edits = [_rename(q, r.name_i, new) for r in refs]
        edits += [_rename(q, c.q, new) for c in q.cols if c.q is not None and c.ref in refs and c.ref.alias_i is None]
        out = _apply(q.sql, edits)
        if out:
            return out, f"table {table.name} written as {new} ({why})"
    return None


def _reserved_word(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    res = _RES_PG if q.dialect == "postgres" else _RES_SQLITE
    sites: list[tuple[float, Any]] = []
    for r in q.refs:  # a table alias derived from the table name
        if r.table is None or r.name_i is None:
            continue
        parts = [_singular(p) for p in _parts(r.table.name)]
        words = [w for w in [*parts, "_".join(parts)] if w in _RES_WORDS and w in res]
        initials = "".join(p[0] for p in parts)
        if len(parts) >= 2 and initials in res and initials in _RES_WORDS:
            words.append(initials)
        low = r.table.name.lower()
        words += [w for w in (low[:2], low[:3]) if w in res and w in _PREFIX_ALIASES]  # or -> organization
        for w in dict.fromkeys(words):
            sites.append((3, ("alias", r, w)))
    for b in {r.block for r in q.refs if r.block is not None}:  # a column label like AS desc
        for a, z in q.select_items(b):
            alias = z if z - 1 >= a and q.typ(z - 1) == T.ALIAS else None
            c = q.item_col(a, z - 2 if alias else z)
            if c is None:
                continue
            low = c.column.name.lower()
            words = [_LABEL_FROM[low]] if low in _LABEL_FROM else [p for p in _parts(low) if p in _RES_WORDS]
            for w in (w for w in words if w in res):
                sites.append((2, ("label", (a, z, alias, c), w)))
    for i, t in enumerate(q.toks):  # a quoted keyword name left unquoted
        if t.token_type == T.IDENTIFIER and t.text.lower() in res:
            sites.append((4, ("unquote", i, t.text)))
    rng.shuffle(sites)
    while sites:
        choice = _pick(rng, sites)
        sites = [s for s in sites if s[1] is not choice]
        how, what, w = choice
        edits: list[tuple[int, int, str]] = []
        if how == "unquote":
            edits = [_rename(q, i, w) for i, t in enumerate(q.toks)
                     if t.token_type == T.IDENTIFIER and t.text.lower() == w.lower()]  # fmt: skip
            note = f"keyword name {w} written without quotes"
        elif how == "alias":
            r = what
            if r.alias_i is not None:
                edits.append(_rename(q, r.alias_i, w))
            else:
                edits.append((q.toks[r.end_i].end + 1, q.toks[r.end_i].end + 1, f" AS {w}"))
            edits += [_rename(q, c.q, w) for c in q.cols if c.q is not None and c.ref is r]
            note = f"table {r.table.name} aliased as reserved word {w}"
        else:
            a, z, alias, c = what
            old = q.toks[alias + 1].text.lower() if alias else None
            later: list[tuple[int, int]] = []  # ORDER BY references, which the model writes with the label
            ob = q.find((T.ORDER_BY,), q.block[a], z)
            for j in range(ob + 1, q.clause_end(ob)) if ob is not None else ():
                c2 = q.col_at(j)
                if old and q.toks[j].text.lower() == old and q.typ(j - 1) != T.DOT and q.typ(j + 1) != T.DOT:
                    later.append((j, j))
                elif c2 is not None and c2.column is c.column and c2.table is c.table:
                    later.append((c2.q if c2.q is not None else j, j))
            if q.dialect == "postgres" and not later:
                continue  # PostgreSQL accepts AS <keyword> as a label; it fails where ORDER BY names it
            if alias:
                edits.append(_rename(q, alias + 1, w))
            else:
                edits.append((q.toks[z].end + 1, q.toks[z].end + 1, f" AS {w}"))
            edits += [(q.toks[i].start, q.toks[j].end + 1, w) for i, j in later]
            note = f"column {c.column.name} labelled with reserved word {w}"
        out = _apply(q.sql, edits) if edits else None
        if out:
            return out, note
    return None


def _quoting_slip(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    pg = q.dialect == "postgres"
    strings = [i for i, t in enumerate(q.toks) if t.token_type == T.STRING]
    compared = [i for i in strings if q.typ(i - 1) in (T.EQ, T.NEQ) and q.col_at(i - 2) is not None]
    dates = [i for i in strings if re.fullmatch(r"\d{4}-\d{2}-\d{2}", q.toks[i].text)]
    words = [i for i in compared if re.fullmatch(r"[A-Za-z]+", q.toks[i].text)
             and q.toks[i].text.lower() not in q.all_column_names()
             and q.toks[i].text.lower() not in _RES_PG | _RES_SQLITE | {"true", "false", "null"}]  # fmt: skip
    apos = [i for i in strings if "'" in q.toks[i].text]
    quals = [c for c in q.cols if c.q is not None and c.column is not None]
    idents = [i for i, t in enumerate(q.toks) if t.token_type == T.IDENTIFIER]
    mixed = [i for i in idents if (pg and q.toks[i].text != q.toks[i].text.lower()) or " " in q.toks[i].text]
    names = [r.name_i for r in q.refs if r.name_i is not None] + [c.i for c in q.cols if c.column is not None]
    plain_cols = [c for c in q.cols if c.column is not None and q.typ(c.i) != T.IDENTIFIER and c.column.name.islower()]
    options: list[tuple[float, str]] = [
        (3 if pg else 0, "backticks"), (1 if pg else 0, "brackets"), (3 if pg and strings else 0, "dq_string"),
        (3 if mixed else 0, "unquote"), (2 if pg and plain_cols else 0, "wrong_case"),
        ((2 if pg else 3) if apos else 0, "apostrophe"), (2 if dates else 0, "bare_date"),
        ((1 if pg else 2) if words else 0, "bare_word"), (1 if strings else 0, "curly"),
        ((1 if pg else 3) if quals else 0, "qualified_as_one"),
    ]
    how = _pick(rng, options)
    edits: list[tuple[int, int, str]] = []
    if how in ("backticks", "brackets"):
        o, c = ("`", "`") if how == "backticks" else ("[", "]")
        edits = [(q.toks[i].start, q.toks[i].end + 1, f"{o}{q.toks[i].text}{c}") for i in dict.fromkeys(names)]
        note = f"identifiers quoted with {o}{c} ({'MySQL' if o == '`' else 'T-SQL'} habit)"
    elif how == "dq_string":
        pick = [i for i in strings if '"' not in q.toks[i].text]
        edits = [(q.toks[i].start, q.toks[i].end + 1, f'"{q.toks[i].text}"') for i in pick]
        note = "string literals in double quotes"
    elif how == "unquote":
        i = rng.choice(mixed)
        edits = [(q.toks[j].start, q.toks[j].end + 1, q.toks[i].text) for j in idents if q.toks[j].text == q.toks[i].text]
        note = f'quoted name "{q.toks[i].text}" written without quotes'
    elif how == "wrong_case":
        c = rng.choice(plain_cols)
        new = _camel(_parts(c.column.name), pascal=True)
        edits = [(q.toks[x.i].start, q.toks[x.i].end + 1, f'"{new}"') for x in q.cols if x.column is c.column]
        note = f'column {c.column.name} quoted in the wrong case as "{new}"'
    elif how == "apostrophe":
        i = rng.choice(apos)
        esc = "\\'" if rng.random() < 0.4 else "'"
        edits = [(q.toks[i].start, q.toks[i].end + 1, "'" + q.toks[i].text.replace("'", esc) + "'")]
        note = "apostrophe in a literal not doubled"
    elif how == "bare_date":
        edits = [(q.toks[i].start, q.toks[i].end + 1, q.toks[i].text) for i in dates]
        note = "date literal written without quotes"
    elif how == "bare_word":
        i = rng.choice(words)
        edits = [(q.toks[i].start, q.toks[i].end + 1, q.toks[i].text)]
        note = f"string value {q.toks[i].text} written without quotes"
    elif how == "curly":
        edits = [(q.toks[i].start, q.toks[i].end + 1, f"\u2018{q.toks[i].text}\u2019") for i in strings]
        note = "typographic quotes around string literals"
    elif how == "qualified_as_one":
        c = rng.choice(quals)
        edits = [(q.toks[c.q].start, q.toks[c.i].end + 1, f"`{q.toks[c.q].text}.{q.toks[c.i].text}`")]
        note = "alias.column quoted as one name in backticks"
    else:
        return None
    out = _apply(q.sql, edits) if edits else None
    return (out, note) if out and out != q.sql.strip() else None


def _foreign_limit(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    lims = [i for i, t in enumerate(q.toks) if t.token_type == T.LIMIT and q.depth[i] == 0]
    if not lims or q.typ(lims[-1] + 1) != T.NUMBER:
        return None
    lim = lims[-1]
    count, offset, last = q.toks[lim + 1].text, None, lim + 1
    if q.typ(lim + 2) == T.OFFSET and q.typ(lim + 3) == T.NUMBER:
        offset, last = q.toks[lim + 3].text, lim + 3
    elif q.typ(lim + 2) == T.COMMA and q.typ(lim + 3) == T.NUMBER:
        offset, count, last = count, q.toks[lim + 3].text, lim + 3
    pg = q.dialect == "postgres"
    how = _pick(rng, [(5 if offset is None else 0, "top"), (2 if offset is None else 0, "rownum"),
                      (0 if pg else 3, "fetch"), (4 if pg and offset else 0, "mysql")])
    cut = (q.toks[lim].start, q.toks[last].end + 1, "")
    block = q.block[lim]
    if how == "top":
        first = next(i for i, t in enumerate(q.toks) if t.token_type == T.SELECT and q.depth[i] == 0)
        at = first + 1 if q.typ(first + 1) == T.DISTINCT else first
        edits = [cut, (q.toks[at].end + 1, q.toks[at].end + 1, f" TOP {count}")]
        note = f"LIMIT {count} written as T-SQL TOP {count}"
    elif how == "rownum":
        w = q.find((T.WHERE,), block, block)
        if w is not None:
            e = q.clause_end(w)
            edits = [cut, (q.pos(e), q.pos(e), f" AND ROWNUM <= {count} " if e < q.n else f" AND ROWNUM <= {count}")]
        else:
            f = q.find((T.FROM,), block, block)
            if f is None:
                return None
            e = q.clause_end(f)
            edits = [cut, (q.toks[e - 1].end + 1, q.toks[e - 1].end + 1, f" WHERE ROWNUM <= {count}")]
        note = f"LIMIT {count} written as Oracle ROWNUM <= {count}"
    elif how == "fetch":
        text = (f"OFFSET {offset} ROWS FETCH NEXT {count} ROWS ONLY" if offset
                else f"FETCH FIRST {count} ROWS ONLY")
        edits = [(cut[0], cut[1], text)]
        note = "LIMIT written as standard FETCH FIRST (not in SQLite)"
    elif how == "mysql":
        edits = [(cut[0], cut[1], f"LIMIT {offset}, {count}")]
        note = "MySQL LIMIT offset, count on PostgreSQL"
    else:
        return None
    out = _apply(q.sql, edits)
    return (out, note) if out else None


_UNITS = {"year": "YEAR", "month": "MONTH", "week": "WEEK", "day": "DAY", "hour": "HOUR", "minute": "MINUTE"}
_FMT_MYSQL = {"%Y": "%Y", "%m": "%m", "%d": "%d", "%H": "%H", "%M": "%i", "%W": "%u", "%j": "%j", "%w": "%w"}
_PG_FMT = {"%Y": "YYYY", "%m": "MM", "%d": "DD", "%H": "HH24", "%M": "MI", "%W": "WW"}


def _foreign_function(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    pg = q.dialect == "postgres"
    toks, sql = q.toks, q.sql
    sites: list[tuple[float, tuple[int, int, list[str], str]]] = []  # (start char, end char, options, note)

    def add(w: float, a: int, b: int, opts: list[str], note: str) -> None:
        sites.append((w, (toks[a].start, toks[b].end + 1, opts, note)))

    now = ["GETDATE()", "CURDATE()", "SYSDATE()"] if pg else ["CURDATE()", "GETDATE()", "NOW()"]
    for i, t in enumerate(toks):
        up = t.text.upper()
        if t.token_type in (T.CURRENT_DATE, T.CURRENT_TIMESTAMP) or (up == "NOW" and q.typ(i + 1) == T.L_PAREN):
            end = i + 2 if up == "NOW" else i
            # a PostgreSQL interval arithmetic right after: CURRENT_DATE - INTERVAL '30 days'
            if pg and q.typ(end + 1) in (T.DASH, T.PLUS) and q.typ(end + 2) == T.INTERVAL and q.typ(end + 3) == T.STRING:
                m = re.fullmatch(r"\s*(\d+)\s*(year|month|week|day|hour|minute)s?\s*", toks[end + 3].text, re.I)
                if m:
                    n, unit = m.group(1), _UNITS[m.group(2).lower()]
                    sign = "-" if toks[end + 1].token_type == T.DASH else ""
                    fn = "DATE_SUB" if sign else "DATE_ADD"
                    add(4, i, end + 3, [f"{fn}(CURDATE(), INTERVAL {n} {unit})",
                                        f"DATEADD({unit.lower()}, {sign}{n}, GETDATE())",
                                        f"date('now', '{sign or '+'}{n} {unit.lower()}s')"], "interval arithmetic")
                    continue
            add(2, i, end, now, f"{t.text} written as another dialect's function")
            continue
        if t.token_type == T.CASE:
            end = next((j for j in range(i + 1, q.n) if toks[j].token_type == T.END and q.depth[j] == q.depth[i]), None)
            inner = [toks[j].token_type for j in range(i + 1, end or i) if q.depth[j] == q.depth[i]]
            if end and inner.count(T.WHEN) == 1 and inner.count(T.ELSE) == 1 and T.CASE not in inner \
                    and toks[i + 1].token_type == T.WHEN:
                th = next(j for j in range(i, end) if toks[j].token_type == T.THEN and q.depth[j] == q.depth[i])
                el = next(j for j in range(i, end) if toks[j].token_type == T.ELSE and q.depth[j] == q.depth[i])
                c, a, b = q.text(i + 2, th - 1), q.text(th + 1, el - 1), q.text(el + 1, end - 1)
                add(1.5, i, end, [f"IF({c}, {a}, {b})"] + ([f"IIF({c}, {a}, {b})"] if pg else []), "CASE as IF()")
            continue
        if t.token_type == T.LIKE and not pg:
            add(1.5, i, i, ["ILIKE"], "ILIKE on SQLite")
            continue
        if not (q.word(i) and q.typ(i + 1) == T.L_PAREN):
            continue
        rp = q.match[i + 1]
        args = [q.text(a, b) for a, b in q.split(i + 2, rp)] if rp > i + 2 else []
        if up in ("COALESCE", "IFNULL") and len(args) == 2:
            add(2, i, rp, [f"{f}({args[0]}, {args[1]})" for f in (["IFNULL", "ISNULL", "NVL"] if pg else ["ISNULL", "NVL"])],
                f"{up} as another dialect's null function")
        elif up in ("LENGTH", "CHAR_LENGTH") and len(args) == 1:
            add(1, i, rp, [f"LEN({args[0]})"] + ([] if pg else [f"CHAR_LENGTH({args[0]})"]), "LENGTH as LEN")
        elif up in ("INSTR", "STRPOS") and len(args) == 2:
            a, b = args
            add(1, i, rp, [f"CHARINDEX({b}, {a})", f"LOCATE({b}, {a})", f"STRPOS({a}, {b})" if not pg
                           else f"INSTR({a}, {b})"], f"{up} as another dialect's function")
        elif up in ("LOWER", "UPPER") and len(args) == 1:
            add(1, i, rp, [f"{up[0]}CASE({args[0]})"], f"{up} as {up[0]}CASE")
        elif up in ("SUBSTR", "SUBSTRING") and len(args) == 3:
            opts = [f"MID({', '.join(args)})"]
            if not pg and args[1].strip() == "1":
                opts.append(f"LEFT({args[0]}, {args[2]})")
            add(1, i, rp, opts, f"{up} as MID/LEFT")
        elif up == "GROUP_CONCAT" and not pg:
            sep = args[1] if len(args) > 1 else "','"
            add(1.5, i, rp, [f"STRING_AGG({args[0]}, {sep})", f"LISTAGG({args[0]}, {sep})"], "GROUP_CONCAT as STRING_AGG")
        elif up == "STRING_AGG" and pg and len(args) == 2:
            add(1.5, i, rp, [f"GROUP_CONCAT({args[0]} SEPARATOR {args[1]})", f"LISTAGG({args[0]}, {args[1]})"],
                "STRING_AGG as GROUP_CONCAT")
        elif up == "CAST" and not pg:
            inner = q.split(i + 2, rp)
            a_s = [j for j in range(i + 2, rp) if toks[j].token_type == T.ALIAS and q.depth[j] == q.depth[i] + 1]
            if len(inner) == 1 and a_s:
                expr, typ = q.text(i + 2, a_s[-1] - 1), q.text(a_s[-1] + 1, rp - 1)
                expr = expr if re.fullmatch(r"[\w.]+", expr) else f"({expr})"
                add(1.5, i, rp, [f"{expr}::{typ.lower()}"], "CAST as PostgreSQL :: cast on SQLite")
        elif up in ("EXTRACT", "DATE_PART") and pg:
            if up == "EXTRACT":
                frm = [j for j in range(i + 2, rp) if toks[j].token_type == T.FROM and q.depth[j] == q.depth[i] + 1]
                if not frm:
                    continue
                unit, x = q.text(i + 2, frm[0] - 1).strip("'\" ").upper(), q.text(frm[0] + 1, rp - 1)
            elif len(args) == 2:
                unit, x = args[0].strip("'\" ").upper(), args[1]
            else:
                continue
            if unit not in ("YEAR", "MONTH", "DAY", "QUARTER", "DOW", "WEEK", "HOUR"):
                continue
            opts = [f"DATEPART({unit.lower()}, {x})"]
            if unit in ("YEAR", "MONTH", "DAY", "HOUR"):
                opts += [f"{unit}({x})", f"{unit}({x})"]
            if unit in ("YEAR", "MONTH"):
                opts.append(f"strftime('{'%Y' if unit == 'YEAR' else '%m'}', {x})")
            add(3, i, rp, opts, f"{up} as another dialect's date function")
        elif up == "DATE_TRUNC" and pg and len(args) == 2:
            unit, x = args[0].strip("'\" ").lower(), args[1]
            fmt = {"year": "%Y-01-01", "month": "%Y-%m-01", "day": "%Y-%m-%d"}.get(unit)
            if fmt:
                add(3, i, rp, [f"DATE_FORMAT({x}, '{fmt}')", f"strftime('{fmt}', {x})",
                               f"TRUNC({x}, '{ {'year': 'YYYY', 'month': 'MM', 'day': 'DD'}[unit]}')"],
                    "DATE_TRUNC as another dialect's date function")
        elif up == "TO_CHAR" and pg and len(args) == 2:
            fmt = args[1].strip("'")
            my = fmt.replace("YYYY", "%Y").replace("MM", "%m").replace("DD", "%d").replace("HH24", "%H")
            add(2, i, rp, [f"DATE_FORMAT({args[0]}, '{my}')", f"strftime('{my}', {args[0]})"], "TO_CHAR as DATE_FORMAT")
        elif up == "AGE" and pg and len(args) in (1, 2):
            b = args[1] if len(args) == 2 else "CURDATE()"
            add(2, i, rp, [f"DATEDIFF({args[0]}, {b})", f"TIMESTAMPDIFF(YEAR, {b}, {args[0]})"], "AGE as DATEDIFF")
        elif up == "STRFTIME" and not pg and len(args) == 2:
            fmt, x = args[0].strip("'\""), args[1]
            x2 = "NOW()" if x.strip("'\"").lower() == "now" else x
            unit = {"%Y": "YEAR", "%m": "MONTH", "%d": "DAY", "%H": "HOUR"}.get(fmt)
            opts = [f"DATE_FORMAT({x2}, '{''.join(_FMT_MYSQL.get(p, p) for p in re.split(r'(%.)', fmt))}')",
                    f"TO_CHAR({x2}, '{''.join(_PG_FMT.get(p, p) for p in re.split(r'(%.)', fmt))}')"]
            if unit:
                opts += [f"{unit}({x2})", f"EXTRACT({unit} FROM {x2})", f"DATE_PART('{unit.lower()}', {x2})"] * 2
            add(3, i, rp, opts, "strftime as another dialect's date function")
        elif up in ("DATE", "DATETIME") and not pg and args:
            x = args[0]
            x2 = "CURDATE()" if x.strip("'\"").lower() == "now" else x
            if len(args) == 1 and x2 != x:
                add(2, i, rp, [x2, "NOW()", "GETDATE()"], f"{up}('now') as another dialect's function")
            elif len(args) == 2:
                m = re.fullmatch(r"'\s*([+-]?)(\d+)\s*(year|month|week|day|hour|minute)s?\s*'", args[1], re.I)
                if m:
                    sign, n, unit = m.group(1), m.group(2), _UNITS[m.group(3).lower()]
                    fn = "DATE_SUB" if sign == "-" else "DATE_ADD"
                    add(4, i, rp, [f"{fn}({x2}, INTERVAL {n} {unit})", f"DATEADD({unit.lower()}, {sign}{n}, {x2})",
                                   f"{x2} {'-' if sign == '-' else '+'} INTERVAL '{n} {unit.lower()}s'"],
                        "date modifier as another dialect's interval arithmetic")
            elif len(args) == 1:
                add(1, i, rp, [f"{x}::date", f"CONVERT(DATE, {x})"], f"{up}() as another dialect's cast")
        elif up == "JULIANDAY" and not pg and len(args) == 1 and q.typ(rp + 1) == T.DASH and q.typ(rp + 3) == T.L_PAREN \
                and q.toks[rp + 2].text.upper() == "JULIANDAY":
            rp2 = q.match[rp + 3]
            a, b = args[0], q.text(rp + 4, rp2 - 1)
            add(4, i, rp2, [f"DATEDIFF({a}, {b})", f"DATEDIFF(day, {b}, {a})", f"DATE_PART('day', {a} - {b})"],
                "julianday difference as DATEDIFF")
    choice = _pick(rng, sites)
    if choice is None:
        return None
    s, e, opts, note = choice
    out = _apply(sql, [(s, e, rng.choice(opts))])
    return (out, note) if out else None


def _concat_plus(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    edits = [(t.start, t.end + 1, "+") for t in q.toks if t.token_type == T.DPIPE]
    for i, t in enumerate(q.toks):
        if t.text.upper() == "CONCAT" and q.typ(i + 1) == T.L_PAREN:
            rp = q.match[i + 1]
            args = [q.text(a, b) for a, b in q.split(i + 2, rp)]
            if len(args) >= 2:
                edits.append((t.start, q.toks[rp].end + 1, "(" + " + ".join(args) + ")"))
    out = _apply(q.sql, edits) if edits else None
    return (out, "string concatenation written with + (T-SQL)") if out else None


def _group_sites(q: _Q) -> list[int]:
    out = []
    for g, t in enumerate(q.toks):
        if t.token_type != T.GROUP_BY or not q._frame_level(g):
            continue
        items = q.select_items(q.block[g])
        aggs = [q.has_agg(a, b) for a, b in items]
        bare = [not ag and any(q.col_at(j) is not None for j in range(a, b + 1)) for (a, b), ag in zip(items, aggs, strict=True)]
        if any(aggs) and any(bare):
            out.append(g)
    return out


def _missing_group_by(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    sites = _group_sites(q)
    if not sites:
        return None
    g = rng.choice(sites)
    e = q.clause_end(g)
    out = _apply(q.sql, [(q.toks[g].start, q.pos(e), "")])
    return (out, "GROUP BY dropped beside an aggregate and bare columns") if out else None


def _aggregate_in_where(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    sites: list[tuple[float, Any]] = []
    for h, t in enumerate(q.toks):
        if t.token_type == T.HAVING and q._frame_level(h):
            g = q.find((T.GROUP_BY,), q.block[h], q.block[h], h)
            if g is not None:
                sites.append((2, ("having", h, g)))
    for p, t in enumerate(q.toks):
        if t.token_type != T.L_PAREN or q.typ(p + 1) != T.SELECT or q.typ(p + 3) != T.L_PAREN:
            continue
        if q.toks[p + 2].text.upper() not in ("AVG", "MAX", "MIN", "SUM") or q.block[p] is None:
            continue
        m = q.match[p + 3]
        tail = [q.toks[j].token_type for j in range(m + 1, q.match[p])]
        if not tail or tail[0] != T.FROM or len(tail) > 4 or any(x not in (T.FROM, T.VAR, T.ALIAS, T.IDENTIFIER) for x in tail):
            continue
        inner = next(iter(q.block_refs(p + 1)), None)
        outer = [r for r in q.block_refs(q.block[p]) if inner and r.table is not None and r.table is inner.table]
        w = q.find((T.WHERE,), q.block[p], q.block[p], p)
        if outer and w is not None and q.clause_end(w) > p:
            sites.append((3, ("subquery", p, m, inner, outer[0])))
    for lim, t in enumerate(q.toks):  # "the most ...": ORDER BY x DESC LIMIT 1 written as WHERE x = MAX(x)
        if t.token_type != T.LIMIT or q.raw(lim + 1) != "1" or q.typ(lim + 2) == T.OFFSET or q.block[lim] is None:
            continue
        b = q.block[lim]
        ob = q.find((T.ORDER_BY,), b, b, lim)
        items = [(a, z) for a, z in q.split(ob + 1, lim) if q.typ(a) not in (T.CASE, T.NUMBER)] if ob else []
        if not items:
            continue
        a, z = items[0]
        desc = False
        while z > a and (q.typ(z) in (T.DESC, T.ASC) or q.toks[z].text.upper() in ("NULLS", "FIRST", "LAST")):
            desc, z = desc or q.typ(z) == T.DESC, z - 1
        expr, agg = q.text(a, z), q.has_agg(a, z)
        if a == z and q.toks[a].text.lower() in q.out_aliases:
            named = [(x, y) for x, y in q.select_items(b) if y - 1 > x and q.typ(y - 1) == T.ALIAS
                     and q.toks[y].text.lower() == q.toks[a].text.lower()]  # fmt: skip
            if named:
                expr, agg = q.text(named[0][0], named[0][1] - 2), q.has_agg(named[0][0], named[0][1] - 2)
        grouped = q.find((T.GROUP_BY,), b, b) is not None
        if agg == grouped:
            sites.append((3, ("superlative", b, ob, lim, expr, desc, agg)))
    choice = _pick(rng, sites)
    if choice is None:
        return None
    if choice[0] == "having":
        _, h, g = choice
        e = q.clause_end(h)
        cond = q.text(h + 1, e - 1)
        if any(q.toks[j].token_type == T.OR and q.depth[j] == q.depth[h] for j in range(h, e)):
            cond = f"({cond})"
        w = q.find((T.WHERE,), q.block[h], q.block[h], g)
        edits = [(q.toks[h].start, q.pos(e), ""),
                 (q.toks[g].start, q.toks[g].start, f"AND {cond} " if w is not None else f"WHERE {cond} ")]
        out = _apply(q.sql, edits)
        return (out, "HAVING condition written into WHERE") if out else None
    if choice[0] == "superlative":
        _, b, ob, lim, expr, desc, agg = choice
        cond = f"{expr} = {'MAX' if desc else 'MIN'}({expr})"
        edits = [(q.toks[ob].start, q.toks[lim + 1].end + 1, "")]
        kw = q.find((T.HAVING,) if agg else (T.WHERE,), b, b, ob)
        if kw is not None:
            at = q.pos(q.clause_end(kw))
            edits.append((at, at, f" AND {cond} "))
        elif agg:
            edits.append((q.toks[ob].start, q.toks[ob].start, f"HAVING {cond} "))
        else:
            f = q.find((T.FROM,), b, b)
            if f is None:
                return None
            at = q.pos(q.clause_end(f))
            edits.append((at, at, f" WHERE {cond} "))
        out = _apply(q.sql, edits)
        return (out, f"ORDER BY ... LIMIT 1 written as {'HAVING' if agg else 'WHERE'} {cond}") if out else None
    _, p, m, inner, outer = choice
    expr = q.text(p + 2, m)
    inner_q = q.toks[inner.alias_i if inner.alias_i is not None else inner.name_i].text
    expr = re.sub(rf"\b{re.escape(inner_q)}\.", f"{q.qual_name(outer)}." if outer.alias_i is not None else "", expr)
    out = _apply(q.sql, [(q.toks[p].start, q.toks[q.match[p]].end + 1, expr)])
    return (out, "scalar subquery replaced by a bare aggregate in WHERE") if out else None


def _alias_misuse(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    sites: dict[str, list[Any]] = {"table_name": [], "wrong_alias": [], "undeclared": [], "select_alias": []}
    aliased = [r for r in q.refs if r.table is not None and r.alias_i is not None and r.name_i is not None
               and q.toks[r.alias_i].text.lower() != q.toks[r.name_i].text.lower()]  # fmt: skip
    for c in q.cols:
        if c.q is not None and c.ref in aliased:
            sites["table_name"].append(c)
            sites["wrong_alias"] += [(c, r) for r in q.block_refs(c.ref.block) if r is not c.ref and r.table is not None
                                     and r.table.column(q.toks[c.i].text) is None]  # fmt: skip
    sites["undeclared"] = [r for r in aliased if any(c.q is not None and c.ref is r for c in q.cols)]
    if q.dialect == "postgres":  # a select alias reused in HAVING / WHERE (SQLite would accept it)
        for b in {r.block for r in q.refs if r.block is not None}:
            for a, z in q.select_items(b):
                if z - 1 > a and q.typ(z - 1) == T.ALIAS and q.has_agg(a, z - 2):
                    expr = " ".join(q.text(a, z - 2).split()).lower()
                    h = q.find((T.HAVING,), b, b)
                    if h is None:
                        continue
                    e = q.clause_end(h)
                    for j in range(h + 1, e):
                        k = next((k for k in range(j, e) if " ".join(q.text(j, k).split()).lower() == expr), None)
                        if k is not None:
                            sites["select_alias"].append((j, k, q.toks[z].text))
                            break
    how = _pick(rng, [(w if sites[k] else 0, k) for w, k in ((3, "table_name"), (2, "wrong_alias"),
                                                            (3, "undeclared"), (4, "select_alias"))])
    if how is None:
        return None
    what = rng.choice(sites[how])
    if how == "table_name":
        c = what
        edits, note = [_rename(q, c.q, q.toks[c.ref.name_i].text)], f"table name {q.toks[c.ref.name_i].text} used after aliasing it"
    elif how == "wrong_alias":
        c, r = what
        edits = [_rename(q, c.q, q.qual_name(r))]
        note = f"column {q.toks[c.i].text} put under the alias of {r.table.name}"
    elif how == "undeclared":
        r = what
        edits = [(q.toks[r.end_i].end + 1, q.toks[r.alias_i].end + 1, "")]
        note = f"alias {q.toks[r.alias_i].text} used but never declared"
    else:
        j, k, name = what
        edits = [(q.toks[j].start, q.toks[k].end + 1, name)]
        note = f"select alias {name} used in HAVING"
    out = _apply(q.sql, edits)
    return (out, note) if out else None


def _ambiguous_column(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    if any(t.token_type in (T.USING, T.NATURAL) for t in q.toks):
        return None
    groups: dict[tuple[int | None, str, str], list[_Col]] = {}
    for c in q.cols:
        if c.q is None or c.column is None or c.ref is None:
            continue
        tables = [r.table for r in q.block_refs(c.ref.block) if r.table is not None]
        if sum(t.column(c.column.name) is not None for t in tables) >= 2 and c.ref.block == q.block[c.i]:
            groups.setdefault((c.ref.block, q.toks[c.q].text.lower(), c.column.name.lower()), []).append(c)
    if not groups:
        return None
    key = rng.choice(sorted(groups, key=str))
    cols = groups[key]
    if rng.random() < 0.35:  # a model that never qualifies: every qualifier of that SELECT goes
        cols = [c for c in q.cols if c.q is not None and c.ref is not None and c.ref.block == key[0]
                and q.block[c.i] == key[0]]  # fmt: skip
        note = f"all qualifiers dropped; {key[2]} exists in several joined tables"
    else:
        note = f"qualifier dropped from {key[2]}, which exists in several joined tables"
    out = _apply(q.sql, [(q.toks[c.q].start, q.toks[c.i].start, "") for c in cols])
    return (out, note) if out else None


def _join_error(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    pg = q.dialect == "postgres"
    sites: list[tuple[float, Any]] = []
    for e, t in enumerate(q.toks):
        if t.token_type != T.EQ:
            continue
        left, right = q.col_at(e - 1), q.col_at(e + 3)
        if not (left and right and left.q == e - 3 and right.q == e + 1 and left.column and right.column):
            continue
        if left.ref is right.ref or left.ref is None or right.ref is None:
            continue
        on = e - 4 if q.typ(e - 4) == T.ON else None
        for side, other in ((left, right), (right, left)):
            tab, col = side.table, side.column.name
            own = _key_col(tab)
            is_key = own is not None and own.lower() == col.lower()
            guesses = []
            if is_key and col.lower() != "id":
                guesses.append("id")
            if is_key:
                guesses.append(other.column.name)
            if not is_key and col.lower() != other.column.name.lower():
                guesses.append(other.column.name)
            for gname in guesses:
                if tab.column(gname) is None:
                    sites.append((5 if not pg else 4, ("guess", side, gname)))
            fam = _family(side.column.type)
            wrong = [c for c in tab.columns if _family(c.type) not in (fam, "other") and {fam, _family(c.type)} <= {"num", "text", "date"}]
            wrong.sort(key=lambda c: (0 if any(k in c.name.lower() for k in ("name", "title", "desc", "code")) else 1))
            if wrong:
                sites.append((3 if pg else 0.5, ("type", side, wrong[0].name)))
        if on is not None:
            end = q.clause_end(on, _CLAUSE_STOP | _JOIN_START)
            if pg:
                sites.append((3, ("no_on", on, end)))
            joined = max((r for r in q.refs if r.intro_i < on and r.block == q.block[on]), key=lambda r: r.intro_i,
                         default=None)  # the table this JOIN brings in: USING needs the name on both sides
            for side, other in ((left, right), (right, left)):
                name = side.column.name
                if joined is not None and joined.table is not None and joined.table.column(name) is None:
                    sites.append((2 if pg else 3, ("using", (on, end, name))))
    choice = _pick(rng, sites)
    if choice is None:
        return None
    how, what, *rest = choice
    if how == "guess":
        edits, note = [_rename(q, what.i, rest[0])], f"join key guessed as {q.toks[what.q].text}.{rest[0]}"
    elif how == "type":
        edits = [_rename(q, what.i, rest[0])]
        note = f"join on {what.table.name}.{rest[0]}, a column of another type"
    elif how == "no_on":
        on, end = what
        edits, note = [(q.toks[on].start, q.pos(end), "")], "JOIN written without its ON condition"
    else:
        on, end, name = what
        edits, note = [(q.toks[on].start, q.pos(end), f"USING ({name}) ")], f"USING ({name}), a column only one side has"
    out = _apply(q.sql, edits)
    return (out, note) if out else None


# ----------------------------------------------------------------------------------------------------------------
# family B: silent


def _relations(schema: Any) -> list[tuple[Any, str, Any, str]]:
    """(child table, child column, parent table, parent column): declared keys, else by naming convention."""
    out = []
    for t in schema.tables:
        for fk in t.foreign_keys:
            ref = schema.table(fk.ref_table)
            if ref is not None and len(fk.columns) == 1:
                out.append((t, fk.columns[0], ref, fk.ref_columns[0]))
    for p in schema.tables:
        pk = _key_col(p)
        if pk is None:
            continue
        for c in schema.tables:
            if c is p:
                continue
            if pk.lower() != "id" and c.column(pk) is not None:
                out.append((c, c.column(pk).name, p, pk))
            elif pk.lower() == "id":
                for cand in (f"{_singular(p.name)}_id", f"{p.name}_id"):
                    if c.column(cand) is not None:
                        out.append((c, c.column(cand).name, p, pk))
                        break
    seen, uniq = set(), []
    for r in out:
        key = (r[0].qualified_name, r[1].lower(), r[2].qualified_name)
        if key not in seen:
            seen.add(key)
            uniq.append(r)
    return uniq


def _silent_extra_join(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    rels = _relations(q.schema)
    used = {t.qualified_name for t in q.query_tables()}
    taken = {q.toks[k].text.lower() for r in q.refs for k in (r.name_i, r.alias_i) if k is not None}
    sites: list[tuple[float, Any]] = []
    for b in {r.block for r in q.refs if r.block is not None}:
        if q.depth[b] != 0 and not (q.typ(b - 2) == T.ALIAS):  # top-level SELECTs and CTE bodies only
            continue
        items = q.select_items(b)
        if q.typ(b + 1) == T.DISTINCT or any(q.typ(a) == T.STAR or (q.typ(z) == T.STAR and q.typ(z - 1) == T.DOT)
                                             for a, z in items):
            continue
        aggs = [q.toks[j].text.upper() for a, z in items for j in range(a, z + 1)
                if q.toks[j].text.upper() in _AGG and q.typ(j + 1) == T.L_PAREN and q.typ(j + 2) != T.DISTINCT]
        grouped = q.find((T.GROUP_BY,), b, b) is not None
        if q.find((T.LIMIT,), b, b) is not None:  # a top-n list barely moves when rows are doubled
            continue
        if not (set(aggs) & {"COUNT", "SUM", "AVG", "TOTAL", "GROUP_CONCAT", "STRING_AGG"} or (not aggs and not grouped)):
            continue
        f = q.find((T.FROM,), b, b)
        if f is None:
            continue
        bare = {q.toks[c.i].text.lower() for c in q.cols if c.q is None and q.block[c.i] == b}
        commas = [r.intro_i for r in q.block_refs(b) if q.typ(r.intro_i) == T.COMMA]
        for r in q.block_refs(b):
            if r.table is None or (commas and r.intro_i < max(commas)):  # JOIN binds tighter than a comma
                continue
            for child, ccol, parent, pcol in rels:
                if parent is r.table and child.qualified_name not in used:
                    new, mine, theirs, w = child, pcol, ccol, 4
                else:  # the parent side rarely changes rows where keys hold: only the fan-out side is used
                    continue
                if bare & {c.name.lower() for c in new.columns}:
                    continue
                sites.append((w, (b, f, r, new, mine, theirs)))
    choice = _pick(rng, sites)
    if choice is None:
        return None
    b, f, r, new, mine, theirs = choice
    alias = "".join(p[0] for p in _parts(new.name)).lower() or "x"
    base, k = alias, 2
    while alias in taken or alias in _RES_PG or alias in _RES_SQLITE:
        alias, k = f"{base}{k}", k + 1
    e = q.clause_end(f)
    at = q.toks[e - 1].end + 1
    text = f" JOIN {new.qualified_name} AS {alias} ON {alias}.{theirs} = {q.qual_name(r)}.{mine}"
    out = _apply(q.sql, [(at, at, text)])
    return (out, f"extra inner join to {new.name} that adds no selected column") if out else None


def _silent_group_label(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    pg = q.dialect == "postgres"
    sites = []
    for g, t in enumerate(q.toks):
        if t.token_type != T.GROUP_BY or not q._frame_level(g):
            continue
        b = q.block[g]
        items = q.split(g + 1, q.clause_end(g))
        sel = [q.item_col(a, z if not (z - 1 > a and q.typ(z - 1) == T.ALIAS) else z - 2) for a, z in q.select_items(b)]
        sel_cols = {c.column for c in sel if c is not None}
        gcols = [(a, z, q.item_col(a, z)) for a, z in items]

        def is_key(c: _Col | None) -> bool:
            if c is None:
                return False
            low = c.column.name.lower()
            return _keyish(low, c.table)

        def is_label(c: _Col | None) -> bool:
            return c is not None and not is_key(c) and _family(c.column.type) == "text"

        keys = [(a, z, c) for a, z, c in gcols if is_key(c)]
        if not keys or (pg and any(c.column in sel_cols for _, _, c in keys)):
            continue
        rest = [(a, z, c) for a, z, c in gcols if not is_key(c)]
        kept = {c.column for _, _, c in rest if c is not None}
        texts = [q.text(a, z) for a, z, _ in rest]
        if any(is_label(c) for _, _, c in gcols):
            note = "key dropped from GROUP BY, label kept"
        else:
            labels = [c for c in sel if is_label(c) and c.column not in {x.column for _, _, x in gcols if x}]
            if not labels:
                continue
            lab = rng.choice(labels)
            kept.add(lab.column)
            texts.append(q.text(lab.q, lab.i) if lab.q is not None else q.raw(lab.i))
            note = f"GROUP BY {lab.column.name} (a label) instead of the key"
        if pg:  # PostgreSQL must still accept it: every bare selected or ordered column stays grouped
            ob = q.find((T.ORDER_BY,), b, g)
            ordered = [q.col_at(j) for j in range(ob + 1, q.clause_end(ob))] if ob is not None else []
            bare = [q.item_col(a, z if not (z - 1 > a and q.typ(z - 1) == T.ALIAS) else z - 2) if not q.has_agg(a, z)
                    else True for a, z in q.select_items(b)]
            if any(x is None or (x is not True and x.column not in kept) for x in bare) or any(
                    c is not None and c.column is not None and c.column in {k.column for _, _, k in keys} for c in ordered):
                continue
        sites.append((g, items, texts, note))
    if not sites:
        return None
    g, items, new_items, note = rng.choice(sites)
    out = _apply(q.sql, [(q.toks[items[0][0]].start, q.toks[items[-1][1]].end + 1, ", ".join(new_items))])
    return (out, note) if out else None


def _value_variants(v: str, hints: tuple[str, ...]) -> list[str]:
    out = []
    low = v.lower()
    if low in _VALUE_ABBREV:
        out += [_VALUE_ABBREV[low]] * 2
    out += [v.lower(), v.upper() if len(v) <= 4 else v.title(), v.title(), v.capitalize()]
    if "_" in v:
        out.append(v.replace("_", " "))
    elif " " in v:
        out.append(v.replace(" ", "_"))
    if v.isalpha() and len(v) > 3 and _singular(v) != v:
        out.append(_singular(v))
    hint_set = set(hints)
    return [o for o in dict.fromkeys(out) if o != v and o not in hint_set and "'" not in o]


def _silent_value_literal(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    sites: list[tuple[float, Any]] = []
    for i, t in enumerate(q.toks):
        if t.token_type != T.STRING or not re.search(r"[A-Za-z]", t.text) or "'" in t.text \
                or ("%" in t.text and q.dialect != "postgres"):
            continue
        j = i - 1
        while q.typ(j) in (T.COMMA, T.STRING, T.L_PAREN):  # IN ('a', 'b')
            j -= 1
        op = q.typ(j)
        if op not in (T.EQ, T.NEQ, T.IN) and not (op == T.LIKE and q.dialect == "postgres"):
            continue
        c = q.col_at(j - 1)
        if c is None or c.column is None or _family(c.column.type) not in ("text", "other"):
            continue
        text = t.text.strip("%") if op == T.LIKE else t.text
        hints = tuple(c.column.value_hints or ())
        variants = _value_variants(text, hints)
        if variants:
            sites.append((3 if text in hints else 1, (i, t.text.replace(text, rng.choice(variants)), c)))
    choice = _pick(rng, sites)
    if choice is None:
        return None
    i, new, c = choice
    out = _apply(q.sql, [(q.toks[i].start, q.toks[i].end + 1, "'" + new + "'")])
    return (out, f"value '{q.toks[i].text}' of {c.column.name} written as '{new}'") if out else None


_KINDS = {
    "column_misspelt": _column_misspelt, "table_misspelt": _table_misspelt, "reserved_word": _reserved_word,
    "quoting_slip": _quoting_slip, "foreign_limit": _foreign_limit, "foreign_function": _foreign_function,
    "concat_plus": _concat_plus, "missing_group_by": _missing_group_by, "aggregate_in_where": _aggregate_in_where,
    "alias_misuse": _alias_misuse, "ambiguous_column": _ambiguous_column, "join_error": _join_error,
    "silent_extra_join": _silent_extra_join, "silent_group_label": _silent_group_label,
    "silent_value_literal": _silent_value_literal,
}


def damage(gold_sql: str, schema: Any, kind: str, seed: int = 0) -> Damaged | None:
    """The reply a small model might give instead of ``gold_sql``, damaged in ``kind``; None when it does not apply."""
    if kind not in DAMAGE_KINDS:
        raise ValueError(f"unknown damage kind {kind!r}")
    if kind == "clean":
        return Damaged(kind, gold_sql, "the gold query unchanged")
    rng = _rng(gold_sql, kind, seed)
    try:
        q = _Q(gold_sql, schema)
        if kind == "format_noise":
            made = _format_noise(q, rng)
            return Damaged(kind, made[0], made[1]) if made else None
        made = _KINDS[kind](q, rng)
    except Exception:  # an unusual gold: the kind does not apply
        return None
    if made is None or " ".join(made[0].split()).rstrip(";") == " ".join(gold_sql.split()).rstrip(";"):
        return None
    return Damaged(kind, _wrap(made[0], rng), made[1])
