"""Held-out damage generator no. 3: the reply a 7B-class local model (qwen2.5-coder:7b, llama3.1:8b, mistral) writes
instead of a correct query, damaged in one named way. Written without reading the repair code or earlier generators.

Research note: where each kind comes from.
* DIN-SQL (Pourreza & Rafiei 2023) sorts failures into schema linking (largest: invented/misspelt columns and
  tables), JOIN (missing or wrong condition, extra tables), GROUP BY, nesting, invalid SQL. MAC-SQL's refiner and
  CHESS's revision step rest on the same split: execution errors can be repaired in a loop, silent ones cannot.
* BIRD (Li et al. 2023) and the hallucination taxonomies (Qu et al. 2024 "Before Generation, Align it"; the LLM
  text-to-SQL surveys) separate schema hallucinations (non-existent or wrongly attributed column, ambiguity,
  plural/abbreviation/key-convention guesses such as c.id) from logic ones (aggregate misuse, missing GROUP BY,
  extra joins, value linking: 'USA' for 'United States', case). Value linking is BIRD's largest silent class.
* Dialect drift (Spider 2.0, dialect-robustness reports, logs of small models): YEAR(), NOW(), ILIKE, :: casts and
  TOP on SQLite; IFNULL, DATE_SUB(.., INTERVAL 30 DAY), backticks and "double-quoted strings" on PostgreSQL.
* Output format: prose around unfenced SQL, LangChain's "SQLQuery:" echo, a note inside the fence, a draft query
  before a marked final one.
Edits are made on the gold's sqlglot tokens by character offset (the rest of the gold is kept byte for byte), so no
kind re-renders the gold and TREE_KINDS is empty. Plain replies come bare or in a sql fence.

Family A (the database rejects the reply, or the fix is plain from reply + schema):
  clean             the gold itself.
  format_noise      prose + unfenced SQL, "SQLQuery:" echo, SQL inline in a sentence, a note inside the fence,
                    <sql> tags, or a draft block (schema peek / failing first try) before a marked final block.
  column_misspelt   schema linking: plural/singular, abbreviation (qty, amt, dt), table prefix added or dropped,
                    camelCase, synonym (price/cost), key conventions (id, customerid, customer_no), a lost letter.
  table_misspelt    plural/singular (most common), tbl_ prefix, PascalCase, synonym.
  reserved_word     an unquoted keyword: alias from the table name (orders -> order, organization -> or,
                    notifications -> not), a label like AS to (SQLite), a quoted keyword name unquoted.
  quoting_slip      backticks/[brackets] and "double-quoted strings" on PostgreSQL, "WrongCase" quoted names,
                    unescaped apostrophes, unquoted date/word literals, typographic quotes, `alias.col` as one name.
  foreign_limit     TOP n, WHERE ROWNUM <= n, FETCH FIRST on SQLite, MySQL LIMIT offset, count on PostgreSQL.
  foreign_function  date/time (YEAR(), DATEPART, DATE_SUB/DATEADD, strftime on PG, EXTRACT on SQLite, CURDATE,
                    GETDATE, DATEDIFF), nulls (IFNULL/ISNULL/NVL), strings (LEN, CHARINDEX, LCASE, MID, LEFT,
                    STRING_AGG/GROUP_CONCAT), IF()/IIF for a CASE; ILIKE and :: casts on SQLite.
  concat_plus       T-SQL string concatenation with + (an error on PostgreSQL, 0 on SQLite).
  missing_group_by  aggregate beside bare columns, GROUP BY dropped (DIN-SQL's GROUP BY class).
  aggregate_in_where  HAVING written into WHERE; WHERE x > AVG(x) for the scalar subquery; "the most" as
                    WHERE x = MAX(x) / HAVING COUNT(*) = MAX(COUNT(*)) instead of ORDER BY .. LIMIT 1.
  alias_misuse      table name used after aliasing it, alias used but never declared, column under the other
                    table's alias, a SELECT alias used in HAVING (PostgreSQL only: SQLite accepts it).
  ambiguous_column  qualifiers dropped in a join where the name is in two tables (that name, or all of them).
  join_error        key guessed by convention (c.id, same name both sides), JOIN without ON (PostgreSQL), USING
                    on a name the joined table lacks, a join on a column of another type.
Family B (runs, other rows; a careful checker sees it from schema + data):
  silent_extra_join     inner join to a child table (fan-out) that adds no selected column.
  silent_group_label    GROUP BY a text label instead of (or without) the key.
  silent_value_literal  a filter literal in another case/spelling/abbreviation than the data holds.
Whether a silent kind changes rows depends on the data (1:1 samples, unique names): the bench's as-is column says.
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

# ---------------------------------------------------------------------------------------------------------------
# word lists

# cannot be a table alias (checked by hand on SQLite 3.40 and PostgreSQL 16)
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
# name parts a model turns into an alias or a label, and the 2-3 letter prefixes it uses as an alias
_RES_WORDS = frozenset("order group user check table case default primary limit end desc from to index transaction "
                       "values offset window".split())
_PREFIX_ALIASES = frozenset("as do in is on or to all and any asc end for not".split())
_LABEL_FROM = {"description": "desc", "descr": "desc", "end_date": "end", "from_airport": "from", "to_airport": "to"}
_ABBREV = {
    "quantity": "qty", "number": "num", "amount": "amt", "description": "descr", "average": "avg", "count": "cnt",
    "address": "addr", "department": "dept", "category": "cat", "customer": "cust", "product": "prod",
    "transaction": "txn", "employee": "emp", "year": "yr", "date": "dt", "total": "tot", "information": "info",
    "position": "pos", "temperature": "temp", "organization": "org", "minimum": "min", "maximum": "max",
    "percentage": "pct", "reference": "ref", "message": "msg", "status": "stat", "balance": "bal",
    "account": "acct", "registration": "reg", "publication": "pub", "conference": "conf",
}
_EXPAND = {v: k for k, v in _ABBREV.items()} | {"no": "number", "num": "number", "dob": "date_of_birth",
                                                "ts": "timestamp"}
_SYNONYM = {
    "price": "cost", "cost": "price", "amount": "total", "total": "amount", "name": "title", "title": "name",
    "created_at": "created_date", "updated_at": "modified_date", "email": "email_address", "phone": "phone_number",
    "first_name": "firstname", "last_name": "surname", "salary": "wage", "city": "town", "revenue": "sales",
    "rating": "score", "score": "rating", "state": "state_name", "country": "country_name", "year": "yr",
    "date": "created_date", "birth_date": "dob", "gender": "sex", "sex": "gender", "zip": "zipcode",
    "signup_date": "created_at", "timestamp": "created_at", "type": "category",
}
_TABLE_SYNONYM = {
    "customers": "clients", "customer": "client", "users": "accounts", "products": "items", "product": "item",
    "employees": "staff", "orders": "purchases", "order": "purchase", "transactions": "payments",
    "payments": "transactions", "sales": "orders", "doctors": "physicians", "drugs": "medications",
    "treatments": "therapies",
}
_VALUE_ABBREV = {
    "united states": "USA", "usa": "United States", "us": "United States", "united kingdom": "UK",
    "uk": "United Kingdom", "new york": "NY", "california": "CA", "texas": "TX", "ny": "New York",
    "ca": "California", "tx": "Texas", "female": "F", "male": "M", "f": "Female", "m": "Male", "yes": "Y",
    "no": "N", "completed": "complete", "cancelled": "canceled", "canceled": "cancelled", "active": "enabled",
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
_STOP = frozenset({T.WHERE, T.GROUP_BY, T.HAVING, T.ORDER_BY, T.LIMIT, T.OFFSET, T.FETCH, T.WINDOW, T.UNION,
                   T.EXCEPT, T.INTERSECT, T.SEMICOLON, T.QUALIFY})
_JOINS = frozenset({T.JOIN, T.LEFT, T.RIGHT, T.INNER, T.FULL, T.CROSS, T.NATURAL, T.OUTER, T.COMMA})
_WORD = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")
_UNITS = ("year", "month", "week", "day", "hour", "minute")


def _rng(gold: str, kind: str, seed: int) -> random.Random:
    digest = hashlib.sha256(f"fresh3\0{kind}\0{seed}\0{gold}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _pick(rng: random.Random, options: list[tuple[float, Any]]) -> Any:
    options = [o for o in options if o[0] > 0]
    return rng.choices([o[1] for o in options], [o[0] for o in options])[0] if options else None


def _singular(w: str) -> str:
    low = w.lower()
    if low.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if low.endswith(("sses", "xes", "ches", "shes")):
        return w[:-2]
    return w[:-1] if low.endswith("s") and not low.endswith(("ss", "us", "is")) and len(w) > 3 else w


def _toggle_number(w: str) -> str:
    low, s = w.lower(), _singular(w)
    if s == w:
        s = (w[:-1] + "ies" if low.endswith("y") and len(w) > 2 and low[-2] not in "aeiou"
             else w + "es" if low.endswith(("s", "x", "ch", "sh")) else w + "s")
    return s.upper() if w.isupper() else s


def _parts(name: str) -> list[str]:
    if "_" in name:
        return [p for p in name.split("_") if p]
    return [p.lower() for p in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", name)] or [name]


def _camel(parts: list[str], pascal: bool = False) -> str:
    out = "".join(p[:1].upper() + p[1:] for p in parts)
    return out if pascal else out[:1].lower() + out[1:]


def _family(type_: str) -> str:
    t = (type_ or "").lower()
    for fam, keys in (("date", ("date", "time")), ("text", ("char", "text", "string", "clob", "uuid", "json")),
                      ("bool", ("bool",)), ("num", ("int", "num", "dec", "real", "double", "float", "money"))):
        if any(k in t for k in keys):
            return fam
    return "other"


def _key_col(table: Any) -> str | None:
    """The table's own key: a declared one-column primary key, else by convention (id, customer_id, cid)."""
    if len(table.primary_key) == 1:
        return table.primary_key[0]
    sing = _singular(table.name).lower()
    wanted = ("id", f"{sing}_id", f"{table.name.lower()}_id", f"{sing[:1]}id", f"{sing[:2]}id", f"{sing}id")
    return next((c.name for w in wanted for c in table.columns if c.name.lower() == w), None)


def _keyish(name: str, table: Any) -> bool:
    low, key = name.lower(), _key_col(table)
    return (key or "").lower() == low or low == "id" or low.endswith("_id") or bool(re.fullmatch(r"[a-z]{1,3}id", low))


# ---------------------------------------------------------------------------------------------------------------
# the analysed gold: tokens, paren depth, SELECT blocks (with their outer block), table and column references


@dataclass
class _Ref:
    block: int | None  # token index of the SELECT whose FROM holds it
    name_i: int | None  # the table-name token (None for a derived table or a table function)
    end_i: int  # last token before the alias
    alias_i: int | None
    table: Any  # core.schema.Table, or None (CTE, derived table)
    intro_i: int  # the FROM / JOIN / comma token


@dataclass
class _Col:
    i: int  # the column-name token
    q: int | None  # its qualifier token
    ref: _Ref | None
    table: Any
    column: Any  # core.schema.Column, or None when unresolved


class _Q:
    def __init__(self, sql: str, schema: Any) -> None:
        self.sql, self.schema = sql, schema
        self.dialect = "postgres" if str(getattr(schema, "dialect", "")).startswith("postgres") else "sqlite"
        self.toks = Dialect.get_or_raise(self.dialect).tokenize(sql)
        n = self.n = len(self.toks)
        self.depth, self.block = [0] * n, [None] * n
        self.match: dict[int, int] = {}
        self.parent: dict[int, int | None] = {}
        stack: list[tuple[int, bool]] = []
        current: dict[int, int | None] = {-1: None}
        frames = [-1]  # the open query parentheses: ( SELECT ... )
        for i, t in enumerate(self.toks):
            if t.token_type == T.R_PAREN and stack:
                op, is_query = stack.pop()
                self.match[op], self.match[i] = i, op
                if is_query:
                    frames.pop()
            self.depth[i] = len(stack)
            frame = frames[-1]
            if t.token_type == T.SELECT:
                current[frame] = i
                self.parent[i] = self.block[frame] if frame >= 0 else None
            self.block[i] = current.get(frame)
            if t.token_type == T.L_PAREN:
                is_query = self.typ(i + 1) in (T.SELECT, T.WITH)
                stack.append((i, is_query))
                if is_query:
                    frames.append(i)
                    current[i] = None
        if stack:
            raise ValueError("unbalanced parentheses")
        self.ctes = {self.toks[i].text.lower() for i in range(n - 3) if self.word(i) and self.typ(i + 1) == T.ALIAS
                     and self.typ(i + 2) == T.L_PAREN and self.typ(i + 3) in (T.SELECT, T.WITH)}  # fmt: skip
        self.refs: list[_Ref] = []
        for i, t in enumerate(self.toks):
            if t.token_type in (T.FROM, T.JOIN) and self.level(i):
                self._read_ref(i + 1, i, t.token_type == T.FROM)
        skip = {k for r in self.refs for k in (r.name_i, r.alias_i) if k is not None}
        skip |= {r.name_i - 2 for r in self.refs if r.name_i and self.typ(r.name_i - 1) == T.DOT}
        self.out_aliases = {self.toks[i + 1].text.lower() for i in range(n - 1)
                            if self.typ(i) == T.ALIAS and self.word(i + 1)}  # fmt: skip
        self.cols = [c for c in (self._col(i) for i in range(n) if i not in skip) if c is not None]
        self.col_by_i = {c.i: c for c in self.cols}

    def word(self, i: int) -> bool:
        t = self.toks[i]
        return t.token_type == T.IDENTIFIER or (t.token_type not in (T.STRING, T.NUMBER) and bool(_WORD.match(t.text)))

    def typ(self, i: int) -> Any:
        return self.toks[i].token_type if 0 <= i < self.n else None

    def text(self, i: int, j: int) -> str:  # tokens i..j, as written
        return self.sql[self.toks[i].start : self.toks[j].end + 1]

    def raw(self, i: int) -> str:
        return self.text(i, i) if 0 <= i < self.n else ""

    def level(self, i: int) -> bool:
        """Token i sits directly in its SELECT (not inside a function's parentheses)."""
        b = self.block[i]
        return b is not None and self.depth[i] == self.depth[b]

    def block_refs(self, block: int | None) -> list[_Ref]:
        return [r for r in self.refs if r.block == block]

    def qual(self, r: _Ref) -> str:
        return self.toks[r.alias_i if r.alias_i is not None else r.name_i].text  # type: ignore[index]

    def _read_ref(self, k: int, intro: int, from_list: bool) -> None:
        toks, name_i, table = self.toks, None, None
        if self.typ(k) == T.L_PAREN:
            end = self.match[k]
        elif k < self.n and self.word(k) and self.typ(k + 1) == T.L_PAREN:
            end = self.match[k + 1]
        elif k < self.n and self.word(k) and toks[k].token_type not in _STRUCT:
            end = name_i = k
            if self.typ(k + 1) == T.DOT and k + 2 < self.n and self.word(k + 2):
                end = name_i = k + 2
            if toks[name_i].text.lower() not in self.ctes:
                table = self.schema.table(self.text(k, name_i).replace('"', "")) or self.schema.table(toks[name_i].text)
        else:
            return
        alias_i = None
        if self.typ(end + 1) == T.ALIAS and end + 2 < self.n and self.word(end + 2):
            alias_i = end + 2
        elif self.typ(end + 1) in (T.VAR, T.IDENTIFIER):
            alias_i = end + 1
        self.refs.append(_Ref(self.block[intro], name_i, end, alias_i, table, intro))
        nxt = (alias_i if alias_i is not None else end) + 1
        if from_list and self.typ(nxt) == T.COMMA and self.depth[nxt] == self.depth[intro]:
            self._read_ref(nxt + 1, nxt, True)

    def lookup(self, name: str, block: int | None) -> _Ref | None:
        low, seen = name.lower(), set()
        while block is not None and block not in seen:
            seen.add(block)
            for r in self.block_refs(block):
                if self.qual(r).lower() == low:
                    return r
            block = self.parent.get(block)
        return None

    def _col(self, i: int) -> _Col | None:
        toks = self.toks
        if not self.word(i) or toks[i].token_type in _STRUCT or self.typ(i + 1) in (T.DOT, T.L_PAREN):
            return None
        prev = self.typ(i - 1)
        if prev == T.DOT:
            if i < 2 or not self.word(i - 2):
                return None
            ref = self.lookup(toks[i - 2].text, self.block[i])
            table = ref.table if ref else None
            return _Col(i, i - 2, ref, table, table.column(toks[i].text) if table else None)
        if prev in (T.ALIAS, T.DCOLON, T.STRING, T.NUMBER) or toks[i].text.lower() in self.out_aliases:
            return None
        if prev == T.L_PAREN and self.raw(i - 2).upper() in ("EXTRACT", "DATE_PART", "DATEPART"):
            return None
        block, seen = self.block[i], set()
        while block is not None and block not in seen:  # unqualified: the one table of the nearest SELECT
            seen.add(block)
            refs = self.block_refs(block)
            hits = [r for r in refs if r.table is not None and r.table.column(toks[i].text) is not None]
            if len(hits) == 1:
                return _Col(i, None, hits[0], hits[0].table, hits[0].table.column(toks[i].text))
            if hits or any(r.table is None for r in refs):
                return None
            block = self.parent.get(block)
        return None

    def tables(self) -> list[Any]:
        return list({r.table.qualified_name: r.table for r in self.refs if r.table is not None}.values())

    def column_names(self) -> set[str]:
        return {c.name.lower() for t in self.tables() for c in t.columns}

    def clause_end(self, i: int, stops: frozenset[Any] = _STOP) -> int:
        d = self.depth[i]
        return next((j for j in range(i + 1, self.n) if self.depth[j] < d
                     or (self.depth[j] == d and self.toks[j].token_type in stops)), self.n)  # fmt: skip

    def pos(self, j: int) -> int:
        """Where token j starts (the end of the text when j is past the last token)."""
        return self.toks[j].start if j < self.n else len(self.sql.rstrip())

    def after(self, j: int) -> int:
        return self.toks[j].end + 1

    def find(self, types: Any, block: int | None, after: int = -1, before: int | None = None) -> int | None:
        return next((j for j in range(after + 1, self.n if before is None else before)
                     if self.toks[j].token_type in types and self.block[j] == block and self.level(j)), None)

    def split(self, start: int, end: int) -> list[tuple[int, int]]:
        """(first, last) token of each top-level comma-separated piece of tokens start..end-1."""
        out, s, d = [], start, self.depth[start] if start < self.n else 0
        for j in range(start, end):
            if self.toks[j].token_type == T.COMMA and self.depth[j] == d:
                out.append((s, j - 1))
                s = j + 1
        return [p for p in [*out, (s, end - 1)] if p[0] <= p[1]]

    def items(self, block: int) -> list[tuple[int, int, int | None]]:
        """(first, last token of the expression, alias token or None) of each select-list item."""
        f = self.find((T.FROM,), block, block)
        start, end = block + 1, f if f is not None else self.clause_end(block)
        while start < end and self.typ(start) in (T.DISTINCT, T.ALL):
            start += 1
        return [(a, z - 2, z) if z - 1 > a and self.typ(z - 1) == T.ALIAS else (a, z, None)
                for a, z in self.split(start, end)]  # fmt: skip

    def has_agg(self, a: int, b: int) -> bool:
        span = range(a, b + 1)
        return not any(self.typ(j) == T.OVER for j in span) and any(
            self.toks[j].text.upper() in _AGG and self.typ(j + 1) == T.L_PAREN for j in span)

    def item_col(self, a: int, b: int) -> _Col | None:
        """The column when tokens a..b are exactly one (maybe qualified) resolved column reference."""
        c = self.col_by_i.get(b)
        ok = c is not None and c.column is not None and ((c.q is None and a == b) or (c.q == a and b == a + 2))
        return c if ok else None


def _apply(sql: str, edits: list[tuple[int, int, str]]) -> str | None:
    """Replace character spans (start, end, new); tidy the blanks where text was cut or inserted."""
    edits = sorted(edits, key=lambda e: (e[0], e[1]))
    if any(b[0] < a[1] for a, b in zip(edits, edits[1:], strict=False)):
        return None
    out = sql
    for s, e, new in reversed(edits):
        left, right = out[:s], out[e:]
        if not new:  # a cut: one blank between the neighbours (the left side stays put for the edits before it)
            right = right.lstrip(" ")
            new = "" if not left or not right or right[0] in ";),\n" or left[-1] in " (\n" else " "
        else:
            new = new.lstrip(" ") if left.endswith((" ", "\n")) or not left else new
            new = new.rstrip(" ") if right[:1] in (" ", ";", ")", ",", "\n", "") else new
        out = left + new + right
    return re.sub(r"[ \t]+;(\s*)$", r";\1", out).strip()


def _rename(q: _Q, i: int, new: str) -> tuple[int, int, str]:
    t, raw = q.toks[i], q.raw(i)
    keep = t.token_type == T.IDENTIFIER and len(raw) >= 2 and not raw[0].isalnum()
    return (t.start, t.end + 1, raw[0] + new + raw[-1] if keep else new)


def _wrap(sql: str, rng: random.Random) -> str:
    """How a plain answer usually comes back: bare, or in a sql fence, sometimes with a closing sentence."""
    body = sql if sql.endswith(";") or rng.random() < 0.5 else sql + ";"
    roll = rng.random()
    if roll < 0.45:
        return f"```sql\n{body}\n```"
    if roll < 0.6:
        return f"```sql\n{body}\n```\n" + rng.choice(("This query returns the requested rows.",
                                                      "Let me know if you need anything else!"))
    return body


# ---------------------------------------------------------------------------------------------------------------
# family A


def _format_noise(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    sql = q.sql.strip()
    names = [t.name for t in q.tables()] or ["the"]
    joined = ", ".join(f"`{t}`" for t in names)
    how = _pick(rng, [(3, "prose"), (2, "langchain"), (1.5, "draft"), (1, "inline"), (1.5, "note"), (1, "tags")])
    if how == "inline" and ("\n" in sql or len(sql) > 220):
        how = "prose"
    if how == "prose":
        intro = rng.choice(("Sure! Here is the SQL query to answer your question:", "Here's the query:",
                            f"To answer this question, we need to query the {joined} table(s).",
                            "Based on the schema provided, the query would be:"))
        outro = rng.choice((f"This query selects the relevant columns from {joined} and applies the filters "
                            "described in the question.", "Note: adjust the conditions if your data differs.",
                            f"Explanation:\n- We use the {joined} table(s).\n- The conditions keep the rows asked for."))
        return f"{intro}\n\n{sql}\n\n{outro}", "prose around unfenced SQL"
    if how == "langchain":
        return f"SQLQuery: {' '.join(sql.split())}\nSQLResult: \nAnswer: ", "LangChain-style 'SQLQuery:' echo"
    if how == "inline":
        return f"You can get this with `{sql.rstrip(';')}`, which reads from {joined}.", "SQL inline in a sentence"
    if how == "note":
        note = rng.choice(("Note: this assumes dates are stored in ISO format.", "This query returns the result.",
                           "Explanation: we filter and then aggregate."))
        return f"```sql\n{sql}\n{note}\n```", "an explanation line inside the code fence"
    if how == "tags":
        return f"<sql>\n{sql}\n</sql>", "SQL inside <sql> tags"
    made = _KINDS[rng.choice(("column_misspelt", "missing_group_by"))](q, rng) if rng.random() < 0.6 else None
    if made is None or made[0].strip() == sql:
        draft, lead, mid = (f"SELECT * FROM {names[0]} LIMIT 5;", "First, let's look at a few rows of the table:",
                            "Now that we know the structure, the final query is:")
    else:
        draft, lead = made[0], "Let's start with this query:"
        mid = rng.choice(("Wait, that is not quite right. Here is the corrected version.\n\n**Final answer:**",
                          "However, this might fail. The final, corrected query:"))
    return (f"{lead}\n\n```sql\n{draft}\n```\n\n{mid}\n\n```sql\n{sql}\n```",
            "a draft block first, the final answer marked in a second block")


def _col_variants(name: str, table: Any) -> list[tuple[float, str, str]]:
    parts, low, tsing = _parts(name), name.lower(), _singular(table.name).lower()
    out: list[tuple[float, str, str]] = []
    tail = name[len(name) - len(parts[-1]) :]
    if tail.lower() == parts[-1].lower() and not _keyish(name, table):
        new = name[: len(name) - len(tail)] + _toggle_number(tail)
        out.append((3 if len(new) < len(name) else 1.5, new, "plural/singular"))
    if len(parts) >= 2:
        out += [(2, _camel(parts), "camelCase"), (1, _camel(parts, True), "PascalCase"),
                (1.5, "".join(parts), "underscores dropped")]
    elif name != low:
        out.append((2, "_".join(parts), "snake_case for camelCase"))
    if low.startswith(tsing + "_") and len(low) > len(tsing) + 1:
        out.append((2, name[len(tsing) + 1 :], "table prefix dropped"))
    elif low != "id" and len(tsing) <= 10 and "_" not in tsing:
        out.append((1.5, f"{tsing}_{name}", "table prefix added"))
    for i, p in enumerate(parts):
        swap = _ABBREV.get(p.lower()) or _EXPAND.get(p.lower())
        if swap:
            out.append((2.5, "_".join(parts[:i] + [swap] + parts[i + 1 :]), "abbreviation"))
    if low in _SYNONYM:
        out.append((2.5, _SYNONYM[low], "synonym"))
    if low == "id":
        out.append((4, f"{tsing}_id", "'id' guessed as <table>_id"))
    elif low.endswith("_id"):
        out += [(2, low[:-3] + "id", "id suffix joined"), (1, low[:-3] + "_no", "id guessed as _no")]
        if low[:-3] == tsing:
            out.append((2, "id", "own key guessed as 'id'"))
    k = 1 + (len(name) - 3) // 2
    if len(name) >= 6 and name[k].isalpha():
        out.append((0.7, name[:k] + name[k + 1 :], "a letter dropped"))
    return out


def _column_misspelt(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    taken = q.column_names() | {t.name.lower() for t in q.schema.tables} | q.out_aliases | _RES_PG | _RES_SQLITE
    sites: dict[tuple[str, str], list[_Col]] = {}
    for c in q.cols:
        if c.column is not None:
            sites.setdefault((c.table.qualified_name, c.column.name), []).append(c)
    keys = sorted(sites)
    rng.shuffle(keys)
    for key in keys:
        cols = sites[key]
        pick = _pick(rng, [(w, (v, why)) for w, v, why in _col_variants(cols[0].column.name, cols[0].table)
                           if _WORD.match(v) and v.lower() not in taken])  # fmt: skip
        if pick:
            out = _apply(q.sql, [_rename(q, c.i, pick[0]) for c in cols])
            if out:
                return out, f"column {key[0]}.{key[1]} written as {pick[0]} ({pick[1]})"
    return None


def _table_misspelt(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    tables = q.tables()
    rng.shuffle(tables)
    for table in tables:
        refs = [r for r in q.refs if r.table is table and r.name_i is not None]
        name = q.toks[refs[0].name_i].text
        parts, tail = _parts(name), name[len(name) - len(_parts(name)[-1]) :]
        variants = [(5, name[: len(name) - len(tail)] + _toggle_number(tail), "plural/singular"),
                    (0.7, "tbl_" + name, "tbl_ prefix added"), (1.5, _TABLE_SYNONYM.get(name.lower(), ""), "synonym")]
        if len(parts) >= 2:
            variants += [(1.5, _camel(parts, True), "PascalCase"), (1.5, "".join(parts), "underscores dropped")]
        elif name != name.lower():
            variants.append((2, "_".join(parts), "snake_case for camelCase"))
        pick = _pick(rng, [(w, (v, why)) for w, v, why in variants if _WORD.match(v) and q.schema.table(v) is None
                           and v.lower() not in q.ctes | q.column_names()])  # fmt: skip
        if pick:
            edits = [_rename(q, r.name_i, pick[0]) for r in refs]
            edits += [_rename(q, c.q, pick[0]) for c in q.cols if c.q is not None and c.ref in refs
                      and c.ref.alias_i is None]  # fmt: skip
            out = _apply(q.sql, edits)
            if out:
                return out, f"table {table.name} written as {pick[0]} ({pick[1]})"
    return None


def _reserved_word(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    res = _RES_PG if q.dialect == "postgres" else _RES_SQLITE
    sites: list[tuple[float, Any]] = []
    for r in q.refs:  # a table alias made from the table's name
        if r.table is None or r.name_i is None:
            continue
        parts, low = [_singular(p) for p in _parts(r.table.name)], r.table.name.lower()
        words = [w for w in [*parts, "_".join(parts)] if w in _RES_WORDS]
        words += [w for w in ("".join(p[0] for p in parts), low[:2], low[:3]) if w in _PREFIX_ALIASES]
        sites += [(3, ("alias", r, w)) for w in dict.fromkeys(words) if w in res]
    for b in {r.block for r in q.refs if r.block is not None} if q.dialect == "sqlite" else ():
        for a, z, alias in q.items(b):  # a column label like AS desc (PostgreSQL accepts any keyword after AS)
            c = q.item_col(a, z)
            low = c.column.name.lower() if c else ""
            words = [_LABEL_FROM[low]] if low in _LABEL_FROM else [p for p in _parts(low) if p in _RES_WORDS]
            sites += [(2, ("label", (z, alias, c), w)) for w in words if w in res]
    sites += [(4, ("unquote", i, t.text)) for i, t in enumerate(q.toks)  # a quoted keyword name left unquoted
              if t.token_type == T.IDENTIFIER and t.text.lower() in res]
    while sites:
        choice = _pick(rng, sites)
        sites = [s for s in sites if s[1] is not choice]
        how, what, w = choice
        edits: list[tuple[int, int, str]] = []
        if how == "unquote":
            edits = [(t.start, t.end + 1, w) for t in q.toks if t.token_type == T.IDENTIFIER and t.text == w]
            note = f"keyword name {w} written without quotes"
        elif how == "alias":
            r = what
            at = q.after(r.end_i)
            edits.append(_rename(q, r.alias_i, w) if r.alias_i is not None else (at, at, f" AS {w}"))
            edits += [_rename(q, c.q, w) for c in q.cols if c.q is not None and c.ref is r]
            note = f"table {r.table.name} aliased as reserved word {w}"
        else:
            z, alias, c = what
            old = q.raw(alias).lower() if alias else None  # later uses of an old label follow the new one
            edits = [(t.start, t.end + 1, w) for j, t in enumerate(q.toks) if old and t.text.lower() == old and
                     j > z and q.typ(j - 1) != T.DOT and q.typ(j + 1) != T.DOT]
            edits.append(_rename(q, alias, w) if alias else (q.after(z), q.after(z), f" AS {w}"))
            note = f"column {c.column.name} labelled with reserved word {w}"
        out = _apply(q.sql, edits) if edits else None
        if out:
            return out, note
    return None


def _quoting_slip(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    pg, toks = q.dialect == "postgres", q.toks
    strings = [i for i, t in enumerate(toks) if t.token_type == T.STRING]
    dates = [i for i in strings if re.fullmatch(r"\d{4}-\d{2}-\d{2}", toks[i].text)]
    words = [i for i in strings if q.typ(i - 1) in (T.EQ, T.NEQ) and (i - 2) in q.col_by_i
             and re.fullmatch(r"[A-Za-z]+", toks[i].text) and toks[i].text.lower() not in q.column_names()
             and toks[i].text.lower() not in _RES_PG | _RES_SQLITE | {"true", "false"}]  # fmt: skip
    apos = [i for i in strings if "'" in toks[i].text]
    quals = [c for c in q.cols if c.q is not None and c.column is not None]
    idents = [i for i, t in enumerate(toks) if t.token_type == T.IDENTIFIER]
    mixed = [i for i in idents if (pg and toks[i].text != toks[i].text.lower()) or " " in toks[i].text]
    names = [r.name_i for r in q.refs if r.name_i is not None] + [c.i for c in q.cols if c.column is not None]
    lower_cols = [c for c in q.cols if c.column is not None and q.typ(c.i) != T.IDENTIFIER and c.column.name.islower()]
    how = _pick(rng, [
        (3 if pg else 0, "backticks"), (1 if pg else 0, "brackets"), (3 if pg and strings else 0, "dq_string"),
        (3 if mixed else 0, "unquote"), (2 if pg and lower_cols else 0, "wrong_case"), (2 if dates else 0, "date"),
        ((2 if pg else 3) if apos else 0, "apostrophe"), ((1 if pg else 2) if words else 0, "word"),
        (1 if strings else 0, "curly"), ((1 if pg else 3) if quals else 0, "qualified_as_one")])  # fmt: skip

    def span(i: int, new: str) -> tuple[int, int, str]:
        return (toks[i].start, toks[i].end + 1, new)

    if how in ("backticks", "brackets"):
        o, c = "``" if how == "backticks" else "[]"
        edits, note = [span(i, f"{o}{toks[i].text}{c}") for i in dict.fromkeys(names)], f"names quoted with {o}{c}"
    elif how == "dq_string":
        edits, note = [span(i, f'"{toks[i].text}"') for i in strings if '"' not in toks[i].text], "strings in \"\""
    elif how == "unquote":
        i = rng.choice(mixed)
        edits = [span(j, toks[i].text) for j in idents if toks[j].text == toks[i].text]
        note = f'quoted name "{toks[i].text}" written without quotes'
    elif how == "wrong_case":
        c = rng.choice(lower_cols)
        new = _camel(_parts(c.column.name), True)
        edits = [span(x.i, f'"{new}"') for x in q.cols if x.column is c.column]
        note = f'column {c.column.name} quoted in the wrong case as "{new}"'
    elif how == "apostrophe":
        i, esc = rng.choice(apos), "\\'" if rng.random() < 0.4 else "'"
        edits, note = [span(i, "'" + toks[i].text.replace("'", esc) + "'")], "apostrophe in a literal not doubled"
    elif how == "date":
        edits, note = [span(i, toks[i].text) for i in dates], "date literal written without quotes"
    elif how == "word":
        i = rng.choice(words)
        edits, note = [span(i, toks[i].text)], f"string value {toks[i].text} written without quotes"
    elif how == "curly":
        edits, note = [span(i, f"\u2018{toks[i].text}\u2019") for i in strings], "typographic quotes on strings"
    elif how == "qualified_as_one":
        c = rng.choice(quals)
        edits = [(toks[c.q].start, q.after(c.i), f"`{toks[c.q].text}.{toks[c.i].text}`")]
        note = "alias.column quoted as one name in backticks"
    else:
        return None
    out = _apply(q.sql, edits) if edits else None
    return (out, note) if out else None


def _foreign_limit(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    lim = max((i for i, t in enumerate(q.toks) if t.token_type == T.LIMIT and q.depth[i] == 0), default=None)
    if lim is None or q.typ(lim + 1) != T.NUMBER:
        return None
    count, offset, last = q.raw(lim + 1), None, lim + 1
    if q.typ(lim + 2) in (T.OFFSET, T.COMMA) and q.typ(lim + 3) == T.NUMBER:
        offset, last = q.raw(lim + 3), lim + 3
        if q.typ(lim + 2) == T.COMMA:  # SQLite's LIMIT offset, count
            offset, count = count, offset
    pg, block = q.dialect == "postgres", q.block[lim]
    how = _pick(rng, [(0 if offset else 5, "top"), (0 if offset else 2, "rownum"), (0 if pg else 3, "fetch"),
                      (4 if pg and offset else 0, "mysql")])
    cut = (q.toks[lim].start, q.after(last), "")
    if how == "top":
        first = next(i for i, t in enumerate(q.toks) if t.token_type == T.SELECT and q.depth[i] == 0)
        at = q.after(first + 1 if q.typ(first + 1) == T.DISTINCT else first)
        edits, note = [cut, (at, at, f" TOP {count}")], f"LIMIT {count} written as T-SQL TOP {count}"
    elif how == "rownum":
        w = q.find((T.WHERE,), block, block)
        f = q.find((T.FROM,), block, block)
        if w is not None:
            at = q.pos(q.clause_end(w))
            edits = [cut, (at, at, f" AND ROWNUM <= {count} ")]
        elif f is not None:
            at = q.after(q.clause_end(f) - 1)
            edits = [cut, (at, at, f" WHERE ROWNUM <= {count}")]
        else:
            return None
        note = f"LIMIT {count} written as Oracle ROWNUM <= {count}"
    elif how == "fetch":
        text = f"OFFSET {offset} ROWS FETCH NEXT {count} ROWS ONLY" if offset else f"FETCH FIRST {count} ROWS ONLY"
        edits, note = [(cut[0], cut[1], text)], "LIMIT written as FETCH FIRST (not in SQLite)"
    elif how == "mysql":
        edits, note = [(cut[0], cut[1], f"LIMIT {offset}, {count}")], "MySQL LIMIT offset, count on PostgreSQL"
    else:
        return None
    out = _apply(q.sql, edits)
    return (out, note) if out else None


_RENAMES = {  # (function, arguments, dialect or None for both): (weight, replacements with {0}, {1} ...)
    ("COALESCE", 2, "postgres"): (2, ("IFNULL({0}, {1})", "ISNULL({0}, {1})", "NVL({0}, {1})")),
    ("COALESCE", 2, "sqlite"): (2, ("ISNULL({0}, {1})", "NVL({0}, {1})")),
    ("IFNULL", 2, "sqlite"): (2, ("ISNULL({0}, {1})", "NVL({0}, {1})")),
    ("LENGTH", 1, "postgres"): (1, ("LEN({0})",)), ("LENGTH", 1, "sqlite"): (1, ("LEN({0})", "CHAR_LENGTH({0})")),
    ("CHAR_LENGTH", 1, "postgres"): (1, ("LEN({0})",)),
    ("STRPOS", 2, "postgres"): (1, ("CHARINDEX({1}, {0})", "LOCATE({1}, {0})", "INSTR({0}, {1})")),
    ("INSTR", 2, "sqlite"): (1, ("CHARINDEX({1}, {0})", "LOCATE({1}, {0})", "STRPOS({0}, {1})")),
    ("LOWER", 1, None): (1, ("LCASE({0})",)), ("UPPER", 1, None): (1, ("UCASE({0})",)),
    ("SUBSTR", 3, None): (1, ("MID({0}, {1}, {2})",)), ("SUBSTRING", 3, None): (1, ("MID({0}, {1}, {2})",)),
    ("GROUP_CONCAT", 1, "sqlite"): (1.5, ("STRING_AGG({0}, ',')", "LISTAGG({0}, ',')")),
    ("GROUP_CONCAT", 2, "sqlite"): (1.5, ("STRING_AGG({0}, {1})", "LISTAGG({0}, {1})")),
    ("STRING_AGG", 2, "postgres"): (1.5, ("GROUP_CONCAT({0} SEPARATOR {1})", "LISTAGG({0}, {1})")),
    ("AGE", 2, "postgres"): (2, ("DATEDIFF({0}, {1})", "TIMESTAMPDIFF(YEAR, {1}, {0})")),
    ("AGE", 1, "postgres"): (2, ("DATEDIFF({0}, CURDATE())", "TIMESTAMPDIFF(YEAR, CURDATE(), {0})")),
}
_PG_FMT = {"%Y": "YYYY", "%m": "MM", "%d": "DD", "%H": "HH24", "%M": "MI", "%W": "WW"}


def _function_sites(q: _Q, i: int) -> list[tuple[float, int, list[str], str]]:
    """(weight, last token, replacements, note) of the foreign-dialect rewrites that can start at token i."""
    pg, t, up = q.dialect == "postgres", q.toks[i], q.toks[i].text.upper()
    if t.token_type in (T.CURRENT_DATE, T.CURRENT_TIMESTAMP) or (up == "NOW" and q.typ(i + 1) == T.L_PAREN):
        end = i + 2 if up == "NOW" else i
        iv = pg and q.typ(end + 1) in (T.DASH, T.PLUS) and q.typ(end + 2) == T.INTERVAL and q.typ(end + 3) == T.STRING
        m = re.fullmatch(rf"\s*(\d+)\s*({'|'.join(_UNITS)})s?\s*", q.toks[end + 3].text, re.I) if iv else None
        if m:  # CURRENT_DATE - INTERVAL '30 days'
            n, unit, sign = m.group(1), m.group(2).lower(), "-" if q.typ(end + 1) == T.DASH else ""
            return [(4, end + 3, [f"DATE_{'SUB' if sign else 'ADD'}(CURDATE(), INTERVAL {n} {unit.upper()})",
                                  f"DATEADD({unit}, {sign}{n}, GETDATE())", f"date('now', '{sign or '+'}{n} {unit}s')"],
                     "interval arithmetic in another dialect")]
        return [(2, end, ["GETDATE()", "CURDATE()", "SYSDATE()"] if pg else ["CURDATE()", "GETDATE()", "NOW()"],
                 f"{t.text} written as another dialect's function")]
    if t.token_type == T.CASE and q.typ(i + 1) == T.WHEN:
        end = next((j for j in range(i + 1, q.n) if q.typ(j) == T.END and q.depth[j] == q.depth[i]), None)
        top = [j for j in range(i + 1, end or i) if q.depth[j] == q.depth[i]]
        kinds = [q.typ(j) for j in top]
        if not end or kinds.count(T.WHEN) != 1 or kinds.count(T.ELSE) != 1 or T.CASE in kinds:
            return []
        th, el = (next(j for j in top if q.typ(j) == k) for k in (T.THEN, T.ELSE))
        c, a, b = q.text(i + 2, th - 1), q.text(th + 1, el - 1), q.text(el + 1, end - 1)
        return [(1.5, end, [f"IF({c}, {a}, {b})"] + [f"IIF({c}, {a}, {b})"] * pg, "CASE as IF()")]
    if t.token_type == T.LIKE and not pg:
        return [(1.5, i, ["ILIKE"], "ILIKE on SQLite")]
    if not (q.word(i) and q.typ(i + 1) == T.L_PAREN):
        return []
    rp = q.match[i + 1]
    args = [q.text(a, b) for a, b in q.split(i + 2, rp)] if rp > i + 2 else []
    one, two = len(args) == 1, len(args) == 2
    rule = _RENAMES.get((up, len(args), q.dialect)) or _RENAMES.get((up, len(args), None))
    if rule:
        opts = [re.sub(r"\{(\d)\}", lambda m: args[int(m.group(1))], tpl) for tpl in rule[1]]
        if up in ("SUBSTR", "SUBSTRING") and not pg and args[1].strip() == "1":
            opts.append(f"LEFT({args[0]}, {args[2]})")
        return [(rule[0], rp, opts, f"{up} written as another dialect's function")]
    if up == "CAST" and not pg and one:
        as_ = [j for j in range(i + 2, rp) if q.typ(j) == T.ALIAS and q.depth[j] == q.depth[i] + 1]
        expr = q.text(i + 2, as_[-1] - 1) if as_ else ""
        expr = expr if re.fullmatch(r"[\w.]+", expr) else f"({expr})"
        return [(1.5, rp, [f"{expr}::{q.text(as_[-1] + 1, rp - 1).lower()}"], "CAST as a :: cast on SQLite")] if as_ else []
    if up in ("EXTRACT", "DATE_PART") and pg:
        frm = [j for j in range(i + 2, rp) if q.typ(j) == T.FROM and q.depth[j] == q.depth[i] + 1]
        unit, x = ((q.text(i + 2, frm[0] - 1), q.text(frm[0] + 1, rp - 1)) if up == "EXTRACT" and frm
                   else args if up == "DATE_PART" and two else ("", ""))
        unit = unit.strip("'\" ").upper()
        if unit not in ("YEAR", "MONTH", "DAY", "QUARTER", "DOW", "WEEK", "HOUR"):
            return []
        opts = [f"DATEPART({unit.lower()}, {x})"] + [f"{unit}({x})"] * 2 * (unit in ("YEAR", "MONTH", "DAY", "HOUR"))
        opts += [f"strftime('{'%Y' if unit == 'YEAR' else '%m'}', {x})"] * (unit in ("YEAR", "MONTH"))
        return [(3, rp, opts, f"{up} as another dialect's date function")]
    if up == "DATE_TRUNC" and pg and two and args[0].strip("'\" ").lower() in ("year", "month", "day"):
        unit, x = args[0].strip("'\" ").lower(), args[1]
        fmt = {"year": "%Y-01-01", "month": "%Y-%m-01", "day": "%Y-%m-%d"}[unit]
        trunc = {"year": "YYYY", "month": "MM", "day": "DD"}[unit]
        return [(3, rp, [f"DATE_FORMAT({x}, '{fmt}')", f"strftime('{fmt}', {x})", f"TRUNC({x}, '{trunc}')"],
                 "DATE_TRUNC as another dialect's date function")]
    if up == "TO_CHAR" and pg and two:
        my = args[1].strip("'").replace("YYYY", "%Y").replace("MM", "%m").replace("DD", "%d").replace("HH24", "%H")
        return [(2, rp, [f"DATE_FORMAT({args[0]}, '{my}')", f"strftime('{my}', {args[0]})"], "TO_CHAR as DATE_FORMAT")]
    if up == "STRFTIME" and not pg and two:
        fmt = args[0].strip("'\"")
        x = "NOW()" if args[1].strip("'\"").lower() == "now" else args[1]
        unit = {"%Y": "YEAR", "%m": "MONTH", "%d": "DAY", "%H": "HOUR"}.get(fmt)
        opts = [f"DATE_FORMAT({x}, '{fmt.replace('%M', '%i')}')",
                f"TO_CHAR({x}, '{''.join(_PG_FMT.get(p, p) for p in re.split('(%.)', fmt))}')"]
        opts += [f"{unit}({x})", f"EXTRACT({unit} FROM {x})", f"DATE_PART('{unit.lower()}', {x})"] * 2 if unit else []
        return [(3, rp, opts, "strftime as another dialect's date function")]
    if up in ("DATE", "DATETIME") and not pg and args:
        x = "CURDATE()" if args[0].strip("'\"").lower() == "now" else args[0]
        m = re.fullmatch(rf"'\s*([+-]?)(\d+)\s*({'|'.join(_UNITS)})s?\s*'", args[1], re.I) if two else None
        if m:  # date(x, '-7 days')
            sign, n, unit = m.group(1), m.group(2), m.group(3).lower()
            return [(4, rp, [f"DATE_{'SUB' if sign == '-' else 'ADD'}({x}, INTERVAL {n} {unit.upper()})",
                             f"DATEADD({unit}, {sign}{n}, {x})", f"{x} {sign or '+'} INTERVAL '{n} {unit}s'"],
                     "date modifier as another dialect's interval arithmetic")]
        opts = [x, "NOW()", "GETDATE()"] if x != args[0] else [f"{x}::date", f"CONVERT(DATE, {x})"]
        return [(2, rp, opts, f"{up}() as another dialect's function")] if one else []
    if up == "JULIANDAY" and not pg and one and q.typ(rp + 1) == T.DASH and q.typ(rp + 3) == T.L_PAREN \
            and q.raw(rp + 2).upper() == "JULIANDAY":
        rp2 = q.match[rp + 3]
        a, b = args[0], q.text(rp + 4, rp2 - 1)
        return [(4, rp2, [f"DATEDIFF({a}, {b})", f"DATEDIFF(day, {b}, {a})", f"DATE_PART('day', {a} - {b})"],
                 "julianday difference as DATEDIFF")]
    return []


def _foreign_function(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    found = [(w, (i, end, opts, note)) for i in range(q.n) for w, end, opts, note in _function_sites(q, i)]
    per_note = {note: sum(site[3] == note for _, site in found) for _, (_, _, _, note) in found}
    choice = _pick(rng, [(w / per_note[site[3]], site) for w, site in found])  # each function once, not per call
    if choice is None:
        return None
    i, end, opts, note = choice
    out = _apply(q.sql, [(q.toks[i].start, q.after(end), rng.choice(opts))])
    return (out, note) if out else None


def _concat_plus(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    edits = [(t.start, t.end + 1, "+") for t in q.toks if t.token_type == T.DPIPE]
    for i, t in enumerate(q.toks):
        if t.text.upper() == "CONCAT" and q.typ(i + 1) == T.L_PAREN:
            args = [q.text(a, b) for a, b in q.split(i + 2, q.match[i + 1])]
            if len(args) >= 2:
                edits.append((t.start, q.after(q.match[i + 1]), "(" + " + ".join(args) + ")"))
    out = _apply(q.sql, edits) if edits else None
    return (out, "string concatenation written with + (T-SQL)") if out else None


def _missing_group_by(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    sites = []
    for g, t in enumerate(q.toks):
        if t.token_type == T.GROUP_BY and q.level(g):
            items = q.items(q.block[g])
            aggs = [q.has_agg(a, z) for a, z, _ in items]
            bare = [not ag and any(j in q.col_by_i for j in range(a, z + 1)) for (a, z, _), ag in zip(items, aggs, strict=True)]
            if any(aggs) and any(bare):
                sites.append(g)
    if not sites:
        return None
    g = rng.choice(sites)
    out = _apply(q.sql, [(q.toks[g].start, q.pos(q.clause_end(g)), "")])
    return (out, "GROUP BY dropped beside an aggregate and bare columns") if out else None


def _aggregate_in_where(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    sites: list[tuple[float, Any]] = []
    for h, t in enumerate(q.toks):  # HAVING written into WHERE
        g = q.find((T.GROUP_BY,), q.block[h], q.block[h], h) if t.token_type == T.HAVING and q.level(h) else None
        if g is not None:
            sites.append((2, ("having", h, g)))
    for p, t in enumerate(q.toks):  # WHERE x > (SELECT AVG(x) FROM t) written as WHERE x > AVG(x)
        if t.token_type != T.L_PAREN or q.typ(p + 1) != T.SELECT or q.typ(p + 3) != T.L_PAREN or q.block[p] is None:
            continue
        m = q.match[p + 3]
        tail = [q.typ(j) for j in range(m + 1, q.match[p])]
        if q.raw(p + 2).upper() not in ("AVG", "MAX", "MIN", "SUM") or not tail or tail[0] != T.FROM or len(
                tail) > 4 or any(x not in (T.FROM, T.VAR, T.ALIAS, T.IDENTIFIER) for x in tail):
            continue
        inner = next(iter(q.block_refs(p + 1)), None)
        outer = [r for r in q.block_refs(q.block[p]) if inner and r.table is not None and r.table is inner.table]
        w = q.find((T.WHERE,), q.block[p], q.block[p], p)
        if outer and w is not None and q.clause_end(w) > p:
            sites.append((3, ("subquery", p, m, inner, outer[0])))
    for lim, t in enumerate(q.toks):  # "the most ...": ORDER BY x DESC LIMIT 1 written as WHERE x = MAX(x)
        b = q.block[lim]
        if t.token_type != T.LIMIT or q.raw(lim + 1) != "1" or q.typ(lim + 2) == T.OFFSET or b is None:
            continue
        ob = q.find((T.ORDER_BY,), b, b, lim)
        order = [(a, z) for a, z in q.split(ob + 1, lim) if q.typ(a) not in (T.CASE, T.NUMBER)] if ob else []
        if not order:
            continue
        (a, z), desc = order[0], False
        while z > a and (q.typ(z) in (T.DESC, T.ASC) or q.raw(z).upper() in ("NULLS", "FIRST", "LAST")):
            desc, z = desc or q.typ(z) == T.DESC, z - 1
        named = [(x, y) for x, y, al in q.items(b) if al and a == z and q.raw(al).lower() == q.raw(a).lower()]
        x, y = named[0] if named else (a, z)
        expr, agg = q.text(x, y), q.has_agg(x, y)
        if agg == (q.find((T.GROUP_BY,), b, b) is not None):
            sites.append((3, ("superlative", b, ob, lim, expr, desc, agg)))
    choice = _pick(rng, sites)
    if choice is None:
        return None
    if choice[0] == "having":
        _, h, g = choice
        e = q.clause_end(h)
        cond = q.text(h + 1, e - 1)
        if any(q.typ(j) == T.OR and q.depth[j] == q.depth[h] for j in range(h, e)):
            cond = f"({cond})"
        kw = "AND" if q.find((T.WHERE,), q.block[h], q.block[h], g) is not None else "WHERE"
        edits = [(q.toks[h].start, q.pos(e), ""), (q.toks[g].start, q.toks[g].start, f"{kw} {cond} ")]
        out = _apply(q.sql, edits)
        return (out, "HAVING condition written into WHERE") if out else None
    if choice[0] == "superlative":
        _, b, ob, lim, expr, desc, agg = choice
        cond = f"{expr} = {'MAX' if desc else 'MIN'}({expr})"
        edits = [(q.toks[ob].start, q.after(lim + 1), "")]
        kw = q.find((T.HAVING,) if agg else (T.WHERE,), b, b, ob)
        f = q.find((T.FROM,), b, b)
        if kw is not None:
            at = q.pos(q.clause_end(kw))
            edits.append((at, at, f" AND {cond} "))
        elif agg:
            edits.append((q.toks[ob].start, q.toks[ob].start, f"HAVING {cond} "))
        elif f is not None:
            at = q.pos(q.clause_end(f))
            edits.append((at, at, f" WHERE {cond} "))
        else:
            return None
        out = _apply(q.sql, edits)
        return (out, f"ORDER BY .. LIMIT 1 written as {'HAVING' if agg else 'WHERE'} {cond}") if out else None
    _, p, m, inner, outer = choice
    expr = re.sub(rf"\b{re.escape(q.qual(inner))}\.", f"{q.qual(outer)}." if outer.alias_i is not None else "",
                  q.text(p + 2, m))
    out = _apply(q.sql, [(q.toks[p].start, q.after(q.match[p]), expr)])
    return (out, "scalar subquery replaced by a bare aggregate in WHERE") if out else None


def _alias_misuse(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    sites: dict[str, list[Any]] = {"table_name": [], "wrong_alias": [], "undeclared": [], "select_alias": []}
    aliased = [r for r in q.refs if r.table is not None and r.alias_i is not None and r.name_i is not None
               and q.raw(r.alias_i).lower() != q.raw(r.name_i).lower()]  # fmt: skip
    for c in q.cols:
        if c.q is not None and c.ref in aliased:
            sites["table_name"].append(c)
            sites["wrong_alias"] += [(c, r) for r in q.block_refs(c.ref.block) if r is not c.ref and r.table is not None
                                     and r.table.column(q.raw(c.i)) is None]  # fmt: skip
    sites["undeclared"] = [r for r in aliased if any(c.q is not None and c.ref is r for c in q.cols)]
    if q.dialect == "postgres":  # a select alias reused in HAVING (SQLite would accept it)
        for b in {r.block for r in q.refs if r.block is not None}:
            h = q.find((T.HAVING,), b, b)
            for a, z, al in q.items(b) if h is not None else ():
                expr, e = " ".join(q.text(a, z).split()).lower(), q.clause_end(h)
                if al is not None and q.has_agg(a, z):
                    sites["select_alias"] += [(j, k, q.raw(al)) for j in range(h + 1, e) for k in range(j, e)
                                              if " ".join(q.text(j, k).split()).lower() == expr][:1]
    how = _pick(rng, [(w if sites[k] else 0, k) for w, k in ((3, "table_name"), (2, "wrong_alias"), (3, "undeclared"),
                                                             (4, "select_alias"))])
    if how is None:
        return None
    what = rng.choice(sites[how])
    if how == "table_name":
        edits, note = [_rename(q, what.q, q.raw(what.ref.name_i))], f"table {q.raw(what.ref.name_i)} named after aliasing"
    elif how == "wrong_alias":
        c, r = what
        edits, note = [_rename(q, c.q, q.qual(r))], f"column {q.raw(c.i)} put under the alias of {r.table.name}"
    elif how == "undeclared":
        edits, note = [(q.after(what.end_i), q.after(what.alias_i), "")], f"alias {q.raw(what.alias_i)} never declared"
    else:
        j, k, name = what
        edits, note = [(q.toks[j].start, q.after(k), name)], f"select alias {name} used in HAVING"
    out = _apply(q.sql, edits)
    return (out, note) if out else None


def _ambiguous_column(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    if any(t.token_type in (T.USING, T.NATURAL) for t in q.toks):
        return None
    groups: dict[tuple[int | None, str, str], list[_Col]] = {}
    for c in q.cols:
        if c.q is None or c.column is None or c.ref is None or c.ref.block != q.block[c.i]:
            continue
        if sum(r.table.column(c.column.name) is not None for r in q.block_refs(c.ref.block) if r.table) >= 2:
            groups.setdefault((c.ref.block, q.raw(c.q).lower(), c.column.name.lower()), []).append(c)
    if not groups:
        return None
    key = rng.choice(sorted(groups, key=str))
    cols, note = groups[key], f"qualifier dropped from {key[2]}, which exists in several joined tables"
    if rng.random() < 0.35:  # a model that never qualifies: every qualifier of that SELECT goes
        cols = [c for c in q.cols if c.q is not None and c.ref is not None and c.ref.block == key[0] == q.block[c.i]]
        note = f"all qualifiers dropped; {key[2]} exists in several joined tables"
    out = _apply(q.sql, [(q.toks[c.q].start, q.toks[c.i].start, "") for c in cols])
    return (out, note) if out else None


def _join_error(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    pg = q.dialect == "postgres"
    sites: list[tuple[float, Any]] = []
    for e, t in enumerate(q.toks):
        left, right = q.col_by_i.get(e - 1), q.col_by_i.get(e + 3)
        if t.token_type != T.EQ or not (left and right and left.q == e - 3 and right.q == e + 1):
            continue
        if not (left.column and right.column and left.ref and right.ref) or left.ref is right.ref:
            continue
        for side, other in ((left, right), (right, left)):
            tab, col, own = side.table, side.column.name, _key_col(side.table)
            is_key = own is not None and own.lower() == col.lower()
            guesses = (["id"] if is_key and col.lower() != "id" else []) + [other.column.name] * (
                is_key or col.lower() != other.column.name.lower())
            sites += [(4 if pg else 5, ("guess", side, g)) for g in dict.fromkeys(guesses) if tab.column(g) is None]
            fam = _family(side.column.type)
            wrong = sorted((c for c in tab.columns if fam != _family(c.type) and {fam, _family(c.type)} <= {
                "num", "text", "date"}), key=lambda c: not any(k in c.name.lower() for k in ("name", "title", "code")))
            if wrong:
                sites.append((3 if pg else 0.5, ("type", side, wrong[0].name)))
        if q.typ(e - 4) == T.ON:
            on = e - 4
            end = q.clause_end(on, _STOP | _JOINS)
            if pg:
                sites.append((3, ("no_on", on, end)))
            joined = max((r for r in q.refs if r.intro_i < on and r.block == q.block[on]), key=lambda r: r.intro_i,
                         default=None)  # the table this JOIN brings in: USING needs the name on both sides
            for side in (left, right):
                if joined is not None and joined.table is not None and joined.table.column(side.column.name) is None:
                    sites.append((2 if pg else 3, ("using", (on, end), side.column.name)))
    choice = _pick(rng, sites)
    if choice is None:
        return None
    how, what, *rest = choice
    if how == "guess":
        edits, note = [_rename(q, what.i, rest[0])], f"join key guessed as {q.raw(what.q)}.{rest[0]}"
    elif how == "type":
        edits, note = [_rename(q, what.i, rest[0])], f"join on {what.table.name}.{rest[0]}, a column of another type"
    elif how == "no_on":
        edits, note = [(q.toks[what].start, q.pos(rest[0]), "")], "JOIN written without its ON condition"
    else:
        (on, end), name = what, rest[0]
        edits, note = [(q.toks[on].start, q.pos(end), f"USING ({name}) ")], f"USING ({name}), which one side lacks"
    out = _apply(q.sql, edits)
    return (out, note) if out else None


# ---------------------------------------------------------------------------------------------------------------
# family B: silent


def _children(schema: Any, parent: Any) -> list[tuple[Any, str, str]]:
    """(child table, child column, parent column) for tables pointing at ``parent``: declared keys, else names."""
    out = [(t, fk.columns[0], fk.ref_columns[0]) for t in schema.tables for fk in t.foreign_keys
           if len(fk.columns) == 1 and schema.table(fk.ref_table) is parent]  # fmt: skip
    pk = _key_col(parent)
    for c in schema.tables if pk else ():
        names = [pk] if pk.lower() != "id" else [f"{_singular(parent.name)}_id", f"{parent.name}_id"]
        col = next((c.column(n) for n in names if c is not parent and c.column(n) is not None), None)
        if col is not None and not any(o[0] is c and o[1].lower() == col.name.lower() for o in out):
            out.append((c, col.name, pk))
    return out


def _silent_extra_join(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    used = {t.qualified_name for t in q.tables()}
    taken = {q.raw(k).lower() for r in q.refs for k in (r.name_i, r.alias_i) if k is not None}
    sites: list[tuple[float, Any]] = []
    for b in {r.block for r in q.refs if r.block is not None}:
        if q.depth[b] != 0 and q.typ(b - 2) != T.ALIAS:  # top-level SELECTs and CTE bodies only
            continue
        items = q.items(b)
        if q.typ(b + 1) == T.DISTINCT or any(q.typ(a) == T.STAR or q.typ(z) == T.STAR for a, z, _ in items):
            continue
        aggs = {q.raw(j).upper() for a, z, _ in items for j in range(a, z + 1)
                if q.raw(j).upper() in _AGG and q.typ(j + 1) == T.L_PAREN and q.typ(j + 2) != T.DISTINCT}
        grouped, f = q.find((T.GROUP_BY,), b, b) is not None, q.find((T.FROM,), b, b)
        if f is None or q.find((T.LIMIT,), b, b) is not None:  # a top-n list barely moves when rows double
            continue
        if not (aggs & {"COUNT", "SUM", "AVG", "TOTAL", "GROUP_CONCAT", "STRING_AGG"} or (not aggs and not grouped)):
            continue
        bare = {q.raw(c.i).lower() for c in q.cols if c.q is None and q.block[c.i] == b}
        commas = [r.intro_i for r in q.block_refs(b) if q.typ(r.intro_i) == T.COMMA]
        for r in q.block_refs(b):
            if r.table is None or (commas and r.intro_i < max(commas)):  # JOIN binds tighter than a comma
                continue
            # only the fan-out side: an inner join to the parent changes nothing while the keys hold
            sites += [(1, (f, r, child, ccol, pcol)) for child, ccol, pcol in _children(q.schema, r.table)
                      if child.qualified_name not in used and not bare & {c.name.lower() for c in child.columns}]
    choice = _pick(rng, sites)
    if choice is None:
        return None
    f, r, child, ccol, pcol = choice
    alias = base = "".join(p[0] for p in _parts(child.name)).lower() or "x"
    k = 2
    while alias in taken | _RES_PG | _RES_SQLITE:
        alias, k = f"{base}{k}", k + 1
    at = q.after(q.clause_end(f) - 1)
    text = f" JOIN {child.qualified_name} AS {alias} ON {alias}.{ccol} = {q.qual(r)}.{pcol}"
    out = _apply(q.sql, [(at, at, text)])
    return (out, f"extra inner join to {child.name} that adds no selected column") if out else None


def _silent_group_label(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    pg, sites = q.dialect == "postgres", []

    def is_key(c: _Col | None) -> bool:
        return c is not None and _keyish(c.column.name, c.table)

    def is_label(c: _Col | None) -> bool:
        return c is not None and not is_key(c) and _family(c.column.type) == "text"

    for g, t in enumerate(q.toks):
        if t.token_type != T.GROUP_BY or not q.level(g):
            continue
        b, groups = q.block[g], [(a, z, q.item_col(a, z)) for a, z in q.split(g + 1, q.clause_end(g))]
        sel = [q.item_col(a, z) for a, z, _ in q.items(b)]
        keys = [c for _, _, c in groups if is_key(c)]
        key_cols = {c.column for c in keys}
        if not keys or (pg and key_cols & {c.column for c in sel if c is not None}):
            continue
        rest = [(a, z, c) for a, z, c in groups if not is_key(c)]
        kept, texts = {c.column for _, _, c in rest if c is not None}, [q.text(a, z) for a, z, _ in rest]
        if any(is_label(c) for _, _, c in groups):
            note = "key dropped from GROUP BY, the label kept"
        else:
            labels = [c for c in sel if is_label(c) and c.column not in {x.column for _, _, x in groups if x}]
            if not labels:
                continue
            lab = rng.choice(labels)
            kept.add(lab.column)
            texts.append(q.text(lab.q, lab.i) if lab.q is not None else q.raw(lab.i))
            note = f"GROUP BY {lab.column.name} (a label) instead of the key"
        if pg:  # PostgreSQL must still accept it: every bare selected column stays grouped, no ordering by the key
            ob = q.find((T.ORDER_BY,), b, g)
            ordered = [q.col_by_i.get(j) for j in range(ob + 1, q.clause_end(ob))] if ob is not None else []
            bare = [True if q.has_agg(a, z) else q.item_col(a, z) for a, z, _ in q.items(b)]
            if any(x is None or (x is not True and x.column not in kept) for x in bare) or any(
                    c is not None and c.column in key_cols for c in ordered):
                continue
        sites.append((groups, texts, note))
    if not sites:
        return None
    groups, texts, note = rng.choice(sites)
    out = _apply(q.sql, [(q.toks[groups[0][0]].start, q.after(groups[-1][1]), ", ".join(texts))])
    return (out, note) if out else None


def _value_variants(v: str, hints: tuple[str, ...]) -> list[str]:
    out = [_VALUE_ABBREV[v.lower()]] * 2 if v.lower() in _VALUE_ABBREV else []
    out += [v.lower(), v.upper() if len(v) <= 4 else v.title(), v.title(), v.capitalize()]
    out += [v.replace("_", " ") if "_" in v else v.replace(" ", "_")]
    out += [_singular(v)] if v.isalpha() and len(v) > 3 else []
    return [o for o in dict.fromkeys(out) if o != v and o not in hints and "'" not in o]


def _silent_value_literal(q: _Q, rng: random.Random) -> tuple[str, str] | None:
    pg, sites = q.dialect == "postgres", []
    for i, t in enumerate(q.toks):
        if t.token_type != T.STRING or not re.search(r"[A-Za-z]", t.text) or "'" in t.text or ("%" in t.text and not pg):
            continue
        j = i - 1
        while q.typ(j) in (T.COMMA, T.STRING, T.L_PAREN):  # IN ('a', 'b')
            j -= 1
        c = q.col_by_i.get(j - 1)
        if q.typ(j) not in (T.EQ, T.NEQ, T.IN) and not (q.typ(j) == T.LIKE and pg) or c is None or c.column is None:
            continue
        if _family(c.column.type) not in ("text", "other"):
            continue
        value = t.text.strip("%") if q.typ(j) == T.LIKE else t.text
        variants = _value_variants(value, tuple(c.column.value_hints or ()))
        if variants:
            weight = 3 if value in (c.column.value_hints or ()) else 1
            sites.append((weight, (i, t.text.replace(value, rng.choice(variants)), c)))
    choice = _pick(rng, sites)
    if choice is None:
        return None
    i, new, c = choice
    out = _apply(q.sql, [(q.toks[i].start, q.after(i), f"'{new}'")])
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
    if kind == "clean":
        return Damaged(kind, gold_sql, "the gold query unchanged")
    if kind not in DAMAGE_KINDS:
        return None
    rng = _rng(gold_sql, kind, seed)
    try:
        q = _Q(gold_sql, schema)
        made = _format_noise(q, rng) if kind == "format_noise" else _KINDS[kind](q, rng)
    except Exception:  # an unusual gold: the kind does not apply
        return None
    if made is None or " ".join(made[0].split()).rstrip(";") == " ".join(gold_sql.split()).rstrip(";"):
        return None
    return Damaged(kind, made[0] if kind == "format_noise" else _wrap(made[0], rng), made[1])
