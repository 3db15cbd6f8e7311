"""Held-out damage generator ``fresh12``: chat replies a small local coder model (qwen2.5-coder 7B, llama3.1 8B,
sqlcoder 7B) plausibly sends for a gold query, damaged the way such models fail.

Written without reading Cairn's checks or repairs. Every edit is made on the gold's text at token positions found
with sqlglot's tokenizer (and its parser for table aliases); nothing is re-rendered, so ``TREE_KINDS`` is empty.

Kinds (family A: the reply as written fails, or its SQL is hard to find; family B: it runs and answers another
question):

- ``clean``                  control: the gold query in an ordinary reply (prose, fence, case and layout vary).
- ``col_generic_head``       A  a compound column shortened to its generic head (``sale_date`` -> ``date``,
                                ``food_type`` -> ``type``), everywhere the query uses it.
- ``pk_named_id``            A  a table's key column written as ``id`` (``author.aid`` -> ``author.id``).
- ``col_spelled_out``        A  an abbreviated column spelled out (``session_start_ts`` -> ``..._timestamp``,
                                ``pid`` -> ``publication_id``, ``min_...`` -> ``minimum_...``).
- ``table_descriptor``       A  a table named with a suffix the model invented (``sales_details``,
                                ``restaurant_data``), in FROM/JOIN and as a qualifier.
- ``alias_bypassed``         A  an aliased table referenced by its own name (``FROM cars AS c ... cars.id``).
- ``cast_foreign``           A  a cast in another dialect's spelling (``CONVERT(FLOAT, x)``, ``TRY_CAST``,
                                ``x::REAL`` on SQLite).
- ``nocase_idiom``           A  case-insensitive matching in another dialect's idiom (``ILIKE`` on SQLite,
                                ``COLLATE NOCASE`` on PostgreSQL).
- ``select_ungrouped_extra`` A  an ungrouped column in a grouped SELECT: added to the list on PostgreSQL (an
                                error there); on SQLite, which would run that, it replaces a grouped column.
- ``on_clause_missing``      A  a JOIN written without its ON condition (an error; a cross join on SQLite).
- ``alias_clash``            A  two tables of one FROM given the same alias (``sales s JOIN salespersons s``).
- ``comma_dropped``          A  the comma between two SELECT items left out.
- ``invented_date_part``     A  a date part read from an invented ``year``/``month`` column instead of
                                ``EXTRACT``/``strftime``/``DATE_TRUNC`` of the date.
- ``ddl_wrapped``            A  the query wrapped in ``CREATE VIEW``/``CREATE TEMP TABLE`` and a SELECT from it.
- ``client_preamble``        A  a client command first: ``USE db;``, psql's ``\\c db``, sqlite3's ``.mode``.
- ``line_numbered``          A  the query listed with line numbers inside its fence.
- ``prompt_echo``            A  sqlcoder-style: the prompt template echoed, the query after ``[SQL]``, unfenced.
- ``unclosed_fence``         A  the fence opened and never closed; the explanation runs on inside it.
- ``schema_recap_first``     A  a first fenced block recapping the tables as CREATE TABLE, the query second.
- ``inline_code_pieces``     A  the query explained clause by clause in inline backticks, never whole.
- ``danda_terminated``       A  Hindi (Devanagari or Latin) prose, the query inline and ended with a danda.
- ``think_block_draft``      A  a ``<think>`` block with a cut-off draft query in a fence, the final one after.
- ``join_kind_flip``         B  LEFT JOIN written as an inner JOIN (now and then an inner JOIN to the many side
                                as LEFT JOIN).
- ``fanout_join``            B  a needless join to a one-to-many child table, repeating or dropping rows.
- ``null_or_not_slip``       B  ``IS NULL`` as ``= NULL``, ``IS NOT NULL`` as ``<> NULL``, a NOT dropped, or
                                ``<>`` as ``=``.
- ``date_column_swap``       B  the table's other date/time column read (``completed_at`` for ``created_at``).
- ``topn_direction``         B  the sort direction of a top-N query reversed.
- ``ratio_inverted``         B  a ratio written the other way up (denominator over numerator).
- ``cast_dropped_ratio``     B  the float cast of a ratio left out (integer division).
- ``period_granularity``     B  the wrong date bucket or part (``'%m'`` for ``'%Y-%m'``, ``'year'`` for
                                ``'month'``, ``EXTRACT(MONTH`` for ``EXTRACT(YEAR``).
- ``date_sign_flip``         B  a relative date moved the wrong way (``'+30 days'``, ``CURRENT_DATE + INTERVAL``).
- ``literal_form_guess``     B  a string value in another form than stored (``'Y'`` for ``'Yes'``, ``'NY'``,
                                ``'New_York'``, ``'transactions'``).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.tokens import Token, TokenType

T = TokenType

DAMAGE_KINDS: tuple[str, ...] = (
    "clean",
    # family A
    "col_generic_head", "pk_named_id", "col_spelled_out", "table_descriptor", "alias_bypassed", "cast_foreign",
    "nocase_idiom", "select_ungrouped_extra", "on_clause_missing", "alias_clash", "comma_dropped",
    "invented_date_part", "ddl_wrapped", "client_preamble", "line_numbered", "prompt_echo", "unclosed_fence",
    "schema_recap_first", "inline_code_pieces", "danda_terminated", "think_block_draft",
    # family B
    "join_kind_flip", "fanout_join", "null_or_not_slip", "date_column_swap", "topn_direction", "ratio_inverted",
    "cast_dropped_ratio", "period_granularity", "date_sign_flip", "literal_form_guess",
)  # fmt: skip
TREE_KINDS: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Damaged:
    kind: str
    reply: str
    note: str


# ----------------------------------------------------------------------------------------------------------------
# tokens and edits

_IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NOT_IDENT = {
    T.STRING, T.NUMBER, T.L_PAREN, T.R_PAREN, T.COMMA, T.DOT, T.STAR, T.SEMICOLON, T.SELECT, T.FROM, T.WHERE,
    T.GROUP_BY, T.ORDER_BY, T.HAVING, T.LIMIT, T.JOIN, T.ON, T.AND, T.OR, T.NOT, T.IN, T.IS, T.NULL, T.LIKE,
    T.ILIKE, T.BETWEEN, T.CASE, T.WHEN, T.THEN, T.ELSE, T.END, T.ALIAS, T.DISTINCT, T.LEFT, T.RIGHT, T.INNER,
    T.OUTER, T.FULL, T.CROSS, T.UNION, T.WITH, T.DESC, T.ASC, T.EXISTS, T.USING, T.OFFSET,
}  # fmt: skip
_CLAUSE = {T.SELECT, T.FROM, T.WHERE, T.GROUP_BY, T.HAVING, T.ORDER_BY, T.LIMIT, T.ON, T.JOIN, T.UNION}
_JOIN_MODS = {T.LEFT, T.RIGHT, T.INNER, T.OUTER, T.FULL, T.CROSS}


def _tokens(sql: str, dialect: str) -> list[Token]:
    return list(Dialect.get_or_raise(dialect).tokenize(sql))


def _identish(t: Token) -> bool:
    if t.token_type == T.IDENTIFIER:
        return True
    return t.token_type not in _NOT_IDENT and bool(_IDENT_RE.match(t.text))


def _apply(sql: str, edits: list[tuple[int, int, str]]) -> str | None:
    """Apply (start, end-exclusive, text) edits; None when two overlap."""
    out = sql
    last = len(sql) + 1
    for start, end, text in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        if end > last:
            return None
        out = out[:start] + text + out[end:]
        last = start
    return out


def _depths(toks: list[Token]) -> list[int]:
    """Paren depth each token sits at (an opening paren sits outside, its contents inside)."""
    out, d = [], 0
    for t in toks:
        if t.token_type == T.R_PAREN:
            d -= 1
        out.append(d)
        if t.token_type == T.L_PAREN:
            d += 1
    return out


def _close(toks: list[Token], i: int) -> int:
    """Index of the paren closing the L_PAREN at ``i`` (or -1)."""
    d = 0
    for j in range(i, len(toks)):
        if toks[j].token_type == T.L_PAREN:
            d += 1
        elif toks[j].token_type == T.R_PAREN:
            d -= 1
            if d == 0:
                return j
    return -1


def _open(toks: list[Token], j: int) -> int:
    """Index of the paren opening the R_PAREN at ``j`` (or -1)."""
    d = 0
    for i in range(j, -1, -1):
        if toks[i].token_type == T.R_PAREN:
            d += 1
        elif toks[i].token_type == T.L_PAREN:
            d -= 1
            if d == 0:
                return i
    return -1


def _clause_of(toks: list[Token], depths: list[int], i: int) -> TokenType | None:
    """The clause keyword governing token ``i`` (scanning back at its own depth)."""
    d = depths[i]
    for j in range(i - 1, -1, -1):
        if depths[j] < d:
            if toks[j].token_type == T.L_PAREN:
                d = depths[j]
                continue
        if depths[j] == d and toks[j].token_type in _CLAUSE:
            return toks[j].token_type
        if depths[j] < d:
            d = depths[j]
    return None


def _expr_start(toks: list[Token], i: int) -> int:
    """Start index of the operand ending at token ``i``: ``a``, ``t.a``, ``f(...)``, ``(...)``, ``x::type``."""
    if i >= 2 and toks[i - 1].token_type == T.DCOLON:
        return _expr_start(toks, i - 2)
    if toks[i].token_type == T.R_PAREN:
        o = _open(toks, i)
        if o > 0 and _identish(toks[o - 1]) or (o > 0 and toks[o - 1].token_type in (T.VAR,)):
            return o - 1
        return o
    if i >= 2 and toks[i - 1].token_type == T.DOT:
        return i - 2
    return i


def _expr_end(toks: list[Token], i: int) -> int:
    """End index of the operand starting at token ``i``."""
    if i + 1 < len(toks) and toks[i + 1].token_type == T.L_PAREN:
        return _close(toks, i + 1)
    if toks[i].token_type == T.L_PAREN:
        return _close(toks, i)
    if i + 2 < len(toks) and toks[i + 1].token_type == T.DOT:
        return i + 2
    return i


# ----------------------------------------------------------------------------------------------------------------
# what the query refers to


@dataclass
class _Ctx:
    sql: str
    dialect: str
    schema: Any
    toks: list[Token]
    depths: list[int]
    alias: dict[str, Any]  # alias (or bare name) -> schema Table
    tables: list[Any]  # schema tables the query reads, in order


def _ctx(sql: str, schema: Any) -> _Ctx | None:
    dialect = "sqlite" if getattr(schema, "dialect", "postgres") == "sqlite" else "postgres"
    try:
        toks = _tokens(sql, dialect)
        tree = sqlglot.parse_one(sql, read=dialect)
    except Exception:
        return None
    alias: dict[str, Any] = {}
    tables: list[Any] = []
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    for node in tree.find_all(exp.Table):
        if node.name.lower() in ctes:
            continue
        tab = schema.table(node.name)
        if tab is None:
            continue
        alias.setdefault(node.alias_or_name.lower(), tab)
        if not node.alias:
            alias.setdefault(node.name.lower(), tab)
        if all(t.name != tab.name for t in tables):
            tables.append(tab)
    if not toks or not tables:
        return None
    return _Ctx(sql, dialect, schema, toks, _depths(toks), alias, tables)


def _table_sites(c: _Ctx) -> dict[str, list[int]]:
    """Token indexes naming each query table: in FROM/JOIN position, or as an unaliased qualifier."""
    out: dict[str, list[int]] = {}
    names = {t.name.lower(): t for t in c.tables}
    for i, t in enumerate(c.toks):
        low = t.text.lower()
        if low not in names or not _identish(t):
            continue
        prv = c.toks[i - 1] if i else None
        nxt = c.toks[i + 1] if i + 1 < len(c.toks) else None
        in_from = prv is not None and (prv.token_type in (T.FROM, T.JOIN) or (
            prv.token_type == T.COMMA and _clause_of(c.toks, c.depths, i) == T.FROM))
        as_qualifier = nxt is not None and nxt.token_type == T.DOT and c.alias.get(low) is names[low]
        if in_from or as_qualifier:
            out.setdefault(names[low].name, []).append(i)
    return out


def _column_sites(c: _Ctx) -> list[tuple[int, Any, str]]:
    """(token index, table, column name) for every column reference to a schema table."""
    sites = []
    toks = c.toks
    table_names = {t.name.lower() for t in c.tables}
    for i, t in enumerate(toks):
        if not _identish(t):
            continue
        prv = toks[i - 1] if i else None
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        if nxt is not None and nxt.token_type in (T.L_PAREN, T.DOT, T.STRING, T.FROM):
            continue
        if prv is not None and prv.token_type in (T.ALIAS, T.STRING, T.FROM, T.JOIN):
            continue
        if prv is not None and prv.token_type == T.DOT:
            tab = c.alias.get(toks[i - 2].text.lower()) if i >= 2 else None
            col = tab.column(t.text) if tab is not None else None
            if col is not None:
                sites.append((i, tab, col.name))
            continue
        if prv is not None and _identish(prv) and prv.text.lower() in table_names:
            continue  # an implicit alias after a table name
        if prv is not None and prv.token_type == T.COMMA and _clause_of(toks, c.depths, i) == T.FROM:
            continue
        for tab in c.tables:
            col = tab.column(t.text)
            if col is not None:
                sites.append((i, tab, col.name))
                break
    return sites


def _rename_column(c: _Ctx, tab: Any, col: str, new: str) -> str | None:
    edits = [(c.toks[i].start, c.toks[i].end + 1, new) for i, tb, cn in _column_sites(c)
             if tb.name == tab.name and cn == col]
    return _apply(c.sql, edits) if edits else None


def _in_query(c: _Ctx, name: str) -> bool:
    return any(t.column(name) is not None for t in c.tables)


def _main_select(c: _Ctx) -> tuple[int, int] | None:
    """(SELECT index, FROM index) of the outermost final SELECT."""
    sel = None
    for i, t in enumerate(c.toks):
        if t.token_type == T.SELECT and c.depths[i] == 0:
            sel = i
    if sel is None:
        return None
    for j in range(sel + 1, len(c.toks)):
        if c.toks[j].token_type == T.FROM and c.depths[j] == 0:
            return sel, j
    return None


def _has(c: _Ctx, *types: TokenType) -> bool:
    return any(t.token_type in types for t in c.toks)


# ----------------------------------------------------------------------------------------------------------------
# the reply around the SQL

_INTRO_EN = (
    "Here's the SQL query:", "Sure! This query should give you that:", "You can get this with the following query:",
    "The following SQL answers your question.", "To answer this, run:", "Okay, here is how I would write it:",
    "Here is a query that returns what you asked for:", "This should work:", "Great question! Try this:",
    "Based on the schema you shared, the query is:",
)
_INTRO_HI = (
    "Yeh raha aapka SQL query:", "Aap yeh query chala sakte hain:", "Theek hai, iske liye yeh query use karo:",
    "यह रही आपकी SQL query:", "इस query से आपको जवाब मिल जाएगा:", "Bilkul! Neeche wali query dekhiye:",
)
_OUTRO_EN = (
    "This joins the relevant tables and applies the filters from your question.",
    "Let me know if you want the results sorted differently.", "", "",
    "Note: adjust the literal values if your data stores them differently.",
    "The result has one row per group.", "Hope this helps!",
    "Explanation:\n- the FROM/JOIN part picks the tables\n- the WHERE part filters the rows\n"
    "- the rest shapes the output",
)
_OUTRO_HI = (
    "Isme zaroori tables join kiye gaye hain aur filter lagaya gaya hai.", "अगर कुछ और चाहिए तो बताइए।", "",
    "Result mein har group ki ek row aayegi.", "यह query सही rows लौटाएगी।",
)
_KEYWORDS = {T.SELECT, T.FROM, T.WHERE, T.GROUP_BY, T.ORDER_BY, T.HAVING, T.LIMIT, T.JOIN, T.ON, T.AND, T.OR,
             T.ALIAS, T.LEFT, T.INNER, T.DESC, T.ASC, T.DISTINCT, T.IN,
             T.IS, T.NOT, T.NULL, T.CASE, T.WHEN, T.THEN, T.ELSE, T.END, T.LIKE, T.WITH, T.BETWEEN}  # fmt: skip
_BREAK_BEFORE = {T.FROM, T.WHERE, T.GROUP_BY, T.ORDER_BY, T.HAVING, T.LIMIT, T.UNION}


def _style(sql: str, dialect: str, rng: random.Random) -> str:
    """The same query in another case/whitespace style (keywords and layout only)."""
    sql = sql.strip().rstrip(";").strip()
    how = rng.random()
    try:
        toks = _tokens(sql, dialect)
    except Exception:
        return sql
    depths = _depths(toks)
    edits: list[tuple[int, int, str]] = []
    if how < 0.35:  # clause per line
        for i, t in enumerate(toks):
            if i == 0 or depths[i] != 0:
                continue
            starts_join = t.token_type in _JOIN_MODS | {T.JOIN} and toks[i - 1].token_type not in _JOIN_MODS
            if t.token_type in _BREAK_BEFORE or starts_join:
                prev_end = toks[i - 1].end + 1
                edits.append((prev_end, t.start, "\n" + ("  " if starts_join else "")))
    elif how < 0.55:  # lower-case keywords
        for t in toks:
            if t.token_type in _KEYWORDS and sql[t.start:t.end + 1].isupper():
                edits.append((t.start, t.end + 1, sql[t.start:t.end + 1].lower()))
    out = _apply(sql, edits) or sql
    return out + (";" if rng.random() < 0.6 else "")


def _fence_label(dialect: str, rng: random.Random) -> str:
    return rng.choice(("sql", "sql", "sql", "SQL", "", "postgresql" if dialect == "postgres" else "sqlite"))


def _reply(sql: str, dialect: str, rng: random.Random, styled: bool = True) -> str:
    """An ordinary reply: prose, the query in one fenced block, maybe a few words after."""
    body = _style(sql, dialect, rng) if styled else sql.strip()
    hindi = rng.random() < 0.25
    intro = rng.choice(_INTRO_HI if hindi else _INTRO_EN)
    outro = rng.choice(_OUTRO_HI if hindi else _OUTRO_EN)
    block = f"```{_fence_label(dialect, rng)}\n{body}\n```"
    parts = [intro, block] if rng.random() < 0.9 else [block]
    if outro:
        parts.append(outro)
    return "\n\n".join(parts)


def _one_line(sql: str) -> str:
    return re.sub(r"\s+", " ", sql.strip().rstrip(";")).strip()


# ----------------------------------------------------------------------------------------------------------------
# family A: names

_GENERIC = ("name", "date", "price", "amount", "id", "type", "status", "count", "time", "code", "number", "total",
            "value", "rating", "city", "country", "state", "year", "title", "cost", "score", "balance")


def _col_generic_head(c: _Ctx, rng: random.Random) -> tuple[str, str] | None:
    cands = []
    for _, tab, col in _column_sites(c):
        parts = col.lower().split("_")
        if len(parts) < 2:
            continue
        head = parts[-1] if parts[-1] in _GENERIC else parts[0] if parts[0] in _GENERIC else None
        if head and not _in_query(c, head) and (tab.name, col, head) not in cands:
            cands.append((tab.name, col, head))
    if not cands:
        return None
    tname, col, head = rng.choice(cands)
    out = _rename_column(c, c.schema.table(tname), col, head)
    return (out, f"{tname}.{col} written as {head}") if out else None


def _key_column(tab: Any) -> str | None:
    if len(tab.primary_key) == 1:
        return tab.primary_key[0]
    if not tab.primary_key and tab.columns:
        first = tab.columns[0].name
        if first.lower().endswith(("id", "code")):
            return first
    return None


def _pk_named_id(c: _Ctx, rng: random.Random) -> tuple[str, str] | None:
    used = {(tab.name, col) for _, tab, col in _column_sites(c)}
    cands = []
    for tab in c.tables:
        key = _key_column(tab)
        if key and key.lower() != "id" and tab.column("id") is None and (tab.name, key) in used:
            cands.append((tab, key))
    if not cands:
        return None
    tab, key = rng.choice(cands)
    out = _rename_column(c, tab, key, "id")
    return (out, f"{tab.name}.{key} written as id") if out else None


_ABBR = {"num": "number", "nums": "numbers", "cnt": "count", "qty": "quantity", "amt": "amount",
         "desc": "description", "dt": "date", "addr": "address", "no": "number", "min": "minimum",
         "max": "maximum", "avg": "average", "yr": "year", "pct": "percent", "cat": "category", "org": "organization",
         "info": "information", "tel": "telephone", "emp": "employee", "dept": "department", "loc": "location",
         "lat": "latitude", "lon": "longitude", "lng": "longitude", "abbr": "abbreviation", "cust": "customer",
         "txn": "transaction", "acct": "account", "bal": "balance", "msg": "message", "ref": "reference",
         "src": "source", "dest": "destination", "desc_": "description", "cid": "", "stat": "status",
         "temp": "temperature", "tz": "timezone", "sched": "schedule", "mgr": "manager", "curr": "currency",
         "seq": "sequence", "aud": "audit", "dob": "date_of_birth", "ssn": "social_security_number",
         "ts": "timestamp", "sz": "size", "img": "image", "url": "link", "fk": "foreign_key",
         "id": "identifier", "ids": "identifiers", "conn": "connection", "conns": "connections"}  # fmt: skip


def _spell_out(col: str, tab: Any, schema: Any) -> str | None:
    parts = col.split("_")
    new = []
    for p in parts:
        low = p.lower()
        m = re.fullmatch(r"([a-z])id", low)
        if m and len(parts) == 1:
            owner = tab.name if tab.name.lower().startswith(m.group(1)) else next(
                (t.name for t in schema.tables if t.name.lower().startswith(m.group(1))), None)
            new.append(f"{owner.lower()}_id" if owner else p)
        elif _ABBR.get(low) and not (low == "id" and len(parts) > 1 and parts.index(p) == len(parts) - 1):
            new.append(_ABBR[low])
        else:
            new.append(p)
    out = "_".join(new)
    return out if out.lower() != col.lower() else None


def _col_spelled_out(c: _Ctx, rng: random.Random) -> tuple[str, str] | None:
    cands = []
    for _, tab, col in _column_sites(c):
        new = _spell_out(col, tab, c.schema)
        if new and not _in_query(c, new) and (tab.name, col, new) not in cands:
            cands.append((tab.name, col, new))
    if not cands:
        return None
    tname, col, new = rng.choice(cands)
    out = _rename_column(c, c.schema.table(tname), col, new)
    return (out, f"{tname}.{col} spelled out as {new}") if out else None


def _table_descriptor(c: _Ctx, rng: random.Random) -> tuple[str, str] | None:
    sites = _table_sites(c)
    if not sites:
        return None
    tname = rng.choice(sorted(sites))
    suffix = rng.choice(("_details", "_info", "_data", "_records", "_table", "_list", "_master", "_history"))
    new = tname + suffix
    if c.schema.table(new) is not None:
        return None
    edits = [(c.toks[i].start, c.toks[i].end + 1, new) for i in sites[tname]]
    out = _apply(c.sql, edits)
    return (out, f"table {tname} written as {new}") if out else None


# ----------------------------------------------------------------------------------------------------------------
# family A: dialect and syntax

_TSQL_TYPE = {"real": "FLOAT", "float": "FLOAT", "double": "FLOAT", "numeric": "DECIMAL(18, 4)",
              "decimal": "DECIMAL(18, 4)", "integer": "INT", "int": "INT", "text": "VARCHAR(255)",
              "varchar": "VARCHAR(255)", "date": "DATE", "timestamp": "DATETIME", "bigint": "BIGINT"}


def _casts(c: _Ctx) -> list[tuple[int, int, int, str, str]]:
    """(start char, end char, kind, expr text, type text) of each cast: CAST(x AS t) and x::t."""
    out = []
    toks = c.toks
    for i, t in enumerate(toks):
        if t.text.upper() == "CAST" and i + 1 < len(toks) and toks[i + 1].token_type == T.L_PAREN:
            close = _close(toks, i + 1)
            if close < 0:
                continue
            d = c.depths[i + 1] + 1
            as_at = next((j for j in range(i + 2, close) if toks[j].token_type == T.ALIAS and c.depths[j] == d), -1)
            if as_at < 0:
                continue
            expr = c.sql[toks[i + 2].start:toks[as_at - 1].end + 1]
            typ = c.sql[toks[as_at + 1].start:toks[close - 1].end + 1]
            out.append((t.start, toks[close].end + 1, 0, expr, typ))
        elif t.token_type == T.DCOLON and 0 < i < len(toks) - 1:
            s = _expr_start(toks, i - 1)
            e = i + 1
            if e + 1 < len(toks) and toks[e + 1].token_type == T.L_PAREN:
                e = _close(toks, e + 1)
            if s < 0 or e < 0:
                continue
            expr = c.sql[toks[s].start:toks[i - 1].end + 1]
            typ = c.sql[toks[i + 1].start:toks[e].end + 1]
            out.append((toks[s].start, toks[e].end + 1, 1, expr, typ))
    return out


def _cast_foreign(c: _Ctx, rng: random.Random) -> tuple[str, str] | None:
    casts = _casts(c)
    if not casts:
        return None
    start, end, _, expr, typ = rng.choice(casts)
    base = typ.split("(")[0].strip().lower()
    styles = ["convert", "try_cast"] + (["dcolon", "dcolon"] if c.dialect == "sqlite" else [])
    how = rng.choice(styles)
    if how == "convert":
        new = f"CONVERT({_TSQL_TYPE.get(base, typ.upper())}, {expr})"
    elif how == "try_cast":
        new = f"TRY_CAST({expr} AS {_TSQL_TYPE.get(base, typ.upper())})"
    else:
        simple = re.fullmatch(r"[\w.]+(\(.*\))?", expr.strip(), re.S) is not None
        new = f"{expr if simple else '(' + expr + ')'}::{typ.upper()}"
    out = _apply(c.sql, [(start, end, new)])
    return (out, f"cast written as {how}") if out else None


def _nocase_idiom(c: _Ctx, rng: random.Random) -> tuple[str, str] | None:
    toks = c.toks
    cands = []
    for i, t in enumerate(toks):
        if i + 1 >= len(toks):
            continue
        if t.token_type in (T.LIKE, T.ILIKE) or (t.token_type == T.EQ and toks[i + 1].token_type == T.STRING):
            cands.append(i)
    if not cands:
        return None
    i = rng.choice(cands)
    t = toks[i]
    if c.dialect == "sqlite":
        edits = [(t.start, t.end + 1, "ILIKE")]
        note = "ILIKE on SQLite"
    else:
        end = _expr_end(toks, i + 1)
        if end < 0:
            return None
        edits = [(toks[end].end + 1, toks[end].end + 1, " COLLATE NOCASE")]
        if t.token_type == T.ILIKE:
            edits.append((t.start, t.end + 1, "LIKE"))
        note = "COLLATE NOCASE on PostgreSQL"
    out = _apply(c.sql, edits)
    return (out, note) if out else None


def _select_ungrouped_extra(c: _Ctx, rng: random.Random) -> tuple[str, str] | None:
    ms = _main_select(c)
    if ms is None:
        return None
    sel, frm = ms
    toks = c.toks
    gb = next((j for j in range(frm, len(toks)) if toks[j].token_type == T.GROUP_BY and c.depths[j] == 0), None)
    if gb is None:
        return None
    end = next((j for j in range(gb + 1, len(toks)) if c.depths[j] == 0 and toks[j].token_type in (
        T.HAVING, T.ORDER_BY, T.LIMIT, T.SEMICOLON, T.UNION)), len(toks))
    grouped = {toks[j].text.lower() for j in range(gb + 1, end)}
    selected = {toks[j].text.lower() for j in range(sel + 1, frm)}
    # the tables of the main FROM, with the name the query uses for them
    names = []
    for j in range(frm, gb):
        if c.depths[j] == 0 and toks[j - 1].token_type in (T.FROM, T.JOIN) and _identish(toks[j]):
            tab = c.schema.table(toks[j].text)
            if tab is None:
                continue
            nxt = toks[j + 1] if j + 1 < len(toks) else None
            if nxt is not None and nxt.token_type == T.ALIAS:
                qual = toks[j + 2].text
            elif nxt is not None and _identish(nxt):
                qual = nxt.text
            else:
                qual = toks[j].text
            names.append((tab, qual))
    cands = []
    for tab, qual in names:
        if any(k.lower() in grouped for k in tab.primary_key):
            continue
        for col in tab.columns:
            low = col.name.lower()
            if low in grouped or low in selected:
                continue
            cands.append((tab, qual, col.name, "char" in col.type.lower() or "text" in col.type.lower()))
    if not cands:
        return None
    texty = [x for x in cands if x[3]] or cands
    tab, qual, col, _ = rng.choice(texty)
    ref = f"{qual}.{col}" if len(names) > 1 or rng.random() < 0.5 else col
    if c.dialect == "postgres":  # PostgreSQL rejects it; SQLite would run it, so there the column replaces one
        out = _apply(c.sql, [(toks[frm - 1].end + 1, toks[frm - 1].end + 1, f", {ref}")])
        return (out, f"ungrouped {tab.name}.{col} added to SELECT") if out else None
    items, start = [], sel + 1
    if toks[start].token_type == T.DISTINCT:
        start += 1
    for j in range(start, frm + 1):
        if j == frm or (toks[j].token_type == T.COMMA and c.depths[j] == 0):
            seg = toks[start:j]
            plain = (len(seg) == 1 and _identish(seg[0])) or (
                len(seg) == 3 and seg[1].token_type == T.DOT and _identish(seg[2]))
            if plain and seg[-1].text.lower() in grouped:
                items.append((seg[0].start, seg[-1].end + 1))
            start = j + 1
    if not items:
        return None
    a, b = rng.choice(items)
    out = _apply(c.sql, [(a, b, f"{qual}.{col}")])
    return (out, f"grouped column shown as ungrouped {tab.name}.{col}") if out else None


def _on_clause_missing(c: _Ctx, rng: random.Random) -> tuple[str, str] | None:
    toks = c.toks
    cands = []
    for i, t in enumerate(toks):
        if t.token_type != T.ON or i < 2:
            continue
        d = c.depths[i]
        end = len(toks)
        for j in range(i + 1, len(toks)):
            if c.depths[j] < d or (c.depths[j] == d and toks[j].token_type in (
                    T.WHERE, T.GROUP_BY, T.ORDER_BY, T.HAVING, T.LIMIT, T.JOIN, T.UNION, T.SEMICOLON,
                    *_JOIN_MODS)):
                end = j
                break
        cut_end = toks[end].start if end < len(toks) else len(c.sql)
        cands.append((toks[i - 1].end + 1, cut_end, end < len(toks)))
    if not cands:
        return None
    start, stop, more = rng.choice(cands)
    out = _apply(c.sql, [(start, stop, " " if more else "")])
    return (out, "JOIN without ON") if out else None


def _alias_defs(c: _Ctx) -> list[tuple[int, str]]:
    """(token index of the alias, alias) for tables aliased in FROM/JOIN."""
    out = []
    toks = c.toks
    for i, t in enumerate(toks[:-1]):
        if not _identish(t) or i == 0:
            continue
        prv = toks[i - 1]
        if not (prv.token_type in (T.FROM, T.JOIN) or (prv.token_type == T.COMMA and _clause_of(
                toks, c.depths, i) == T.FROM)):
            continue
        j = i + 1
        if toks[j].token_type == T.ALIAS:
            j += 1
        if j < len(toks) and _identish(toks[j]) and c.schema.table(t.text) is not None:
            out.append((j, toks[j].text))
    return out


def _alias_clash(c: _Ctx, rng: random.Random) -> tuple[str, str] | None:
    defs = _alias_defs(c)
    toks = c.toks
    pairs = []
    for a in range(len(defs)):
        for b in range(a + 1, len(defs)):
            (i, x), (j, y) = defs[a], defs[b]
            if x.lower() == y.lower() or c.depths[i] != c.depths[j]:
                continue
            if any(toks[k].token_type == T.SELECT for k in range(i, j)):
                continue
            pairs.append((i, x, j, y, x[0].lower() == y[0].lower()))
    if not pairs:
        return None
    same = [p for p in pairs if p[4]]
    i, x, j, y, _ = rng.choice(same if same and rng.random() < 0.7 else pairs)
    edits = [(toks[j].start, toks[j].end + 1, x)]
    for k, t in enumerate(toks[:-1]):
        if t.text.lower() == y.lower() and toks[k + 1].token_type == T.DOT:
            edits.append((t.start, t.end + 1, x))
    out = _apply(c.sql, edits)
    return (out, f"alias {y} renamed to the other table's {x}") if out else None


def _comma_dropped(c: _Ctx, rng: random.Random) -> tuple[str, str] | None:
    ms = _main_select(c)
    if ms is None:
        return None
    sel, frm = ms
    toks = c.toks
    cands = []
    for j in range(sel + 1, frm - 1):
        if toks[j].token_type == T.COMMA and c.depths[j] == 0:
            n1 = toks[j + 1]
            n2 = toks[j + 2] if j + 2 < len(toks) else None
            if n2 is not None and (n2.token_type in (T.DOT, T.L_PAREN) or n1.token_type in (
                    T.CASE, T.L_PAREN, T.NUMBER, T.STRING)):
                cands.append(j)
    if not cands:
        return None
    j = rng.choice(cands)
    out = _apply(c.sql, [(toks[j].start, toks[j].end + 1, "")])
    return (out, "comma between SELECT items dropped") if out else None


_PART_FMT = {"%y": "year", "%m": "month", "%y-%m": "month", "%d": "day", "%w": "week", "%y-%w": "week",
             "yyyy": "year", "mm": "month", "yyyy-mm": "month"}


def _invented_date_part(c: _Ctx, rng: random.Random) -> tuple[str, str] | None:
    toks = c.toks
    cands = []
    for i, t in enumerate(toks[:-2]):
        name = t.text.upper()
        if toks[i + 1].token_type != T.L_PAREN:
            continue
        close = _close(toks, i + 1)
        if close < 0:
            continue
        inner = toks[i + 2:close]
        part = None
        arg = None
        if name == "EXTRACT" and len(inner) >= 3 and inner[1].token_type == T.FROM:
            part, arg = inner[0].text.lower(), inner[2:]
        elif name in ("DATE_PART", "DATE_TRUNC") and inner and inner[0].token_type == T.STRING:
            part, arg = inner[0].text.lower(), inner[2:]
        elif name in ("STRFTIME", "TO_CHAR") and inner:
            if name == "STRFTIME" and inner[0].token_type == T.STRING:
                part, arg = _PART_FMT.get(inner[0].text.lower()), inner[2:]
            elif name == "TO_CHAR" and inner[-1].token_type == T.STRING:
                part, arg = _PART_FMT.get(inner[-1].text.lower()), inner[:-2]
        if part not in ("year", "month", "day", "week", "quarter") or not arg:
            continue
        # the argument must be a plain column of a query table
        if len(arg) == 1 and _identish(arg[0]):
            qual, colname = None, arg[0].text
            tab = next((tb for tb in c.tables if tb.column(colname)), None)
        elif len(arg) == 3 and arg[1].token_type == T.DOT:
            qual, colname = arg[0].text, arg[2].text
            tab = c.alias.get(qual.lower())
        else:
            continue
        if tab is None or tab.column(colname) is None or _in_query(c, part):
            continue
        new = f"{qual}.{part}" if qual else part
        if rng.random() < 0.4:
            stem = colname.lower().rsplit("_", 1)[0] if "_" in colname else colname.lower()
            new = f"{qual}.{stem}_{part}" if qual else f"{stem}_{part}"
            if _in_query(c, new.split(".")[-1]):
                continue
        cands.append((t.start, toks[close].end + 1, new))
    if not cands:
        return None
    start, end, new = rng.choice(cands)
    out = _apply(c.sql, [(start, end, new)])
    return (out, f"date part read from invented column {new}") if out else None


# ----------------------------------------------------------------------------------------------------------------
# family A: reply layouts


def _view_name(rng: random.Random) -> str:
    return rng.choice(("result_view", "answer", "query_result", "report_v", "tmp_result", "v_answer"))


def _ddl_wrapped(sql: str, c: _Ctx, rng: random.Random) -> tuple[str, str]:
    body = _style(sql, c.dialect, rng).rstrip(";")
    name = _view_name(rng)
    how = rng.choice(("view", "temp", "replace_view"))
    if how == "view":
        code = f"CREATE VIEW {name} AS\n{body};\n\nSELECT * FROM {name};"
    elif how == "replace_view":
        head = "CREATE OR REPLACE VIEW" if c.dialect == "postgres" else "DROP VIEW IF EXISTS " + name + ";\nCREATE VIEW"
        code = f"{head} {name} AS\n{body};\n\nSELECT * FROM {name};"
    else:
        code = f"CREATE TEMP TABLE {name} AS\n{body};\n\nSELECT * FROM {name};"
    intro = rng.choice((
        "You can save this as a view so it is easy to reuse:", "I'll store the result first and then read it:",
        "Isko view bana ke rakh lete hain, baad mein bhi kaam aayega:", "Here's a reusable version:"))
    return f"{intro}\n\n```{_fence_label(c.dialect, rng)}\n{code}\n```\n\n{rng.choice(_OUTRO_EN)}".rstrip(), \
        f"query wrapped in {how}"


def _db_name(schema: Any) -> str:
    raw = str(getattr(schema, "database_id", "") or "")
    m = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", raw.split("/")[-1].split("?")[0].split(".")[0])
    return m[-1] if m else "my_database"


def _client_preamble(sql: str, c: _Ctx, rng: random.Random) -> tuple[str, str]:
    db = _db_name(c.schema)
    body = _style(sql, c.dialect, rng)
    if c.dialect == "postgres":
        pre = rng.choice((f"USE {db};", f"\\c {db}", f"USE {db};\nGO", f"\\connect {db}\n\\x on"))
    else:
        pre = rng.choice((f"USE {db};", ".headers on\n.mode column", f".open {db}.sqlite",
                          f".open {db}.db\n.headers on"))
    intro = rng.choice(("First connect to the database, then run the query:", "Run this in your SQL client:",
                        "Pehle database select karo, phir query chalao:", "Here you go:"))
    note = f"client command first: {pre.split()[0]}"
    return f"{intro}\n\n```{_fence_label(c.dialect, rng)}\n{pre}\n\n{body}\n```", note


def _clause_lines(sql: str, dialect: str) -> list[str]:
    toks = _tokens(sql, dialect)
    depths = _depths(toks)
    cuts = [0]
    for i, t in enumerate(toks):
        if i and depths[i] == 0 and (t.token_type in _BREAK_BEFORE or (
                t.token_type in _JOIN_MODS | {T.JOIN} and toks[i - 1].token_type not in _JOIN_MODS)):
            cuts.append(t.start)
    cuts.append(len(sql))
    return [sql[a:b].strip() for a, b in zip(cuts, cuts[1:]) if sql[a:b].strip()]


def _line_numbered(sql: str, c: _Ctx, rng: random.Random) -> tuple[str, str]:
    lines = _clause_lines(sql.strip().rstrip(";"), c.dialect)
    fmt = rng.choice(("{n}. {l}", "{n:>2} {l}", "{n} | {l}", "{n}: {l}", "{n:02d}  {l}"))
    body = "\n".join(fmt.format(n=n, l=l) for n, l in enumerate(lines, 1))
    intro = rng.choice(("Here is the query, line by line:", "Query (with line numbers for reference):",
                        "Yeh rahi query, har line numbered hai taaki explain karna aasaan ho:"))
    outro = f"Line 1 selects the output columns; line {len(lines)} finishes the query."
    return f"{intro}\n\n```{_fence_label(c.dialect, rng)}\n{body}\n```\n\n{outro}", "line numbers inside the fence"


def _prompt_echo(sql: str, c: _Ctx, rng: random.Random) -> tuple[str, str]:
    body = _style(sql, c.dialect, rng)
    variant = rng.randrange(3)
    if variant == 0:
        text = ("### Task\nGenerate a SQL query to answer [QUESTION]the user's question[/QUESTION]\n\n"
                "### Answer\nGiven the database schema, here is the SQL query that answers "
                f"[QUESTION]the user's question[/QUESTION]\n[SQL]\n{body}")
    elif variant == 1:
        text = f"### Response:\n[SQL]\n{body}\n[/SQL]"
    else:
        text = f"### Instruction:\nWrite a {'PostgreSQL' if c.dialect == 'postgres' else 'SQLite'} query.\n\n" \
               f"### Response:\nSQL: {body}"
    return text, "prompt template echoed, query after [SQL], no fence"


def _unclosed_fence(sql: str, c: _Ctx, rng: random.Random) -> tuple[str, str]:
    body = _style(sql, c.dialect, rng)
    intro = rng.choice(_INTRO_EN + _INTRO_HI)
    after = rng.choice((
        "This query first joins the tables it needs, then filters and aggregates the rows.",
        "Explanation: the WHERE clause keeps only the matching rows and the rest formats the result.",
        "Yeh query pehle tables ko join karti hai, phir filter lagati hai.",
        "Note that the results depend on the data currently in the tables.",
    ))
    return f"{intro}\n\n```{_fence_label(c.dialect, rng)}\n{body}\n\n{after}", "fence never closed"


def _schema_recap_first(sql: str, c: _Ctx, rng: random.Random) -> tuple[str, str]:
    ddl = []
    for tab in c.tables[:4]:
        cols = ",\n".join(f"    {col.name} {col.type.upper()}" for col in tab.columns[:12])
        ddl.append(f"CREATE TABLE {tab.name} (\n{cols}\n);")
    intro = rng.choice(("Let me restate the relevant tables first:", "Relevant schema:",
                        "The tables we need look like this:", "Pehle relevant tables dekh lete hain:"))
    mid = rng.choice(("Now the query:", "Using these tables, the answer is:", "Ab query:", "And the SQL:"))
    label = _fence_label(c.dialect, rng)
    return (f"{intro}\n\n```{label}\n" + "\n\n".join(ddl) + f"\n```\n\n{mid}\n\n```{label}\n"
            f"{_style(sql, c.dialect, rng)}\n```"), "CREATE TABLE recap in the first block"


def _inline_code_pieces(sql: str, c: _Ctx, rng: random.Random) -> tuple[str, str]:
    lines = _clause_lines(_one_line(sql), c.dialect)
    words = {"SELECT": "picks the output", "FROM": "reads the base table", "JOIN": "brings in the related rows",
             "LEFT": "keeps rows without a match too", "INNER": "brings in the related rows",
             "WHERE": "filters the rows", "GROUP": "groups them", "HAVING": "keeps only the groups that qualify",
             "ORDER": "sorts the result", "LIMIT": "keeps the first rows", "WITH": "defines a helper result",
             "UNION": "adds the second part"}
    hindi = rng.random() < 0.3
    out = [rng.choice(("Step by step:", "The query is built like this:", "Query ko todkar samjhte hain:"))]
    for l in lines:
        what = words.get(l.split()[0].upper(), "continues the query")
        out.append(f"- `{l}` " + ("- yeh hissa " + what if hindi else what))
    out.append(rng.choice(("Put together, that's the whole query.", "Sab milakar yahi poori query hai.",
                           "Run these parts together as one statement.")))
    return "\n".join(out), "query only as inline-code pieces"


def _danda_terminated(sql: str, c: _Ctx, rng: random.Random) -> tuple[str, str]:
    q = _one_line(sql)
    pre = rng.choice(("आपके सवाल का जवाब इस query से मिलेगा:", "Aapke sawaal ke liye yeh query chalaiye:",
                      "इसके लिए आप यह SQL चलाइए -", "Jawab ke liye query hai:"))
    post = rng.choice(("इससे सही नतीजे मिलेंगे।", "Isse aapko sahi result milega।", "", "धन्यवाद।"))
    return f"{pre} {q} । {post}".strip(), "query inline in Hindi prose, ended with a danda"


def _think_block_draft(sql: str, c: _Ctx, rng: random.Random) -> tuple[str, str] | None:
    body = _one_line(sql)
    toks = _tokens(body, c.dialect)
    stops = [i for i, t in enumerate(toks) if i > len(toks) // 3 and t.token_type in (
        T.WHERE, T.AND, T.JOIN, T.ON, T.EQ, T.GROUP_BY, T.ORDER_BY, T.COMMA, T.FROM, T.HAVING)]
    if not stops:
        return None
    i = rng.choice(stops)
    draft = body[:toks[i].end + 1]
    think = rng.choice((
        "Okay, the user wants this from the database. Let me look at the tables. I'll start with:",
        "Hmm, I need to figure out which tables to use. Maybe something like:",
        "Let me think. The question asks for a result over these tables. First attempt:",
    ))
    wait = rng.choice(("Wait, that's not finished, I still need the rest of the conditions.",
                       "Hmm, that is incomplete. Let me write the full query.",
                       "No wait, I should double-check the joins and finish it properly."))
    label = _fence_label(c.dialect, rng)
    return (f"<think>\n{think}\n```{label}\n{draft}\n```\n{wait}\n</think>\n\n"
            f"{rng.choice(_INTRO_EN)}\n\n```{label}\n{_style(sql, c.dialect, rng)}\n```"), \
        "cut-off draft inside <think>"


# ----------------------------------------------------------------------------------------------------------------
# family B


def _is_child(child: Any, parents: list[Any]) -> bool:
    """Whether ``child`` points at one of ``parents`` (a foreign key, or the parent's key column by name)."""
    for p in parents:
        if p.name == child.name:
            continue
        if any(fk.ref_table.split(".")[-1].lower() == p.name.lower() for fk in child.foreign_keys):
            return True
        if len(p.primary_key) == 1 and p.primary_key[0].lower() != "id" and child.column(p.primary_key[0]):
            return True
    return False


def _join_kind_flip(c: _Ctx, rng: random.Random) -> tuple[str, str] | None:
    """LEFT JOIN -> JOIN; or JOIN -> LEFT JOIN where the joined table is the many side (parents without
    children then show up)."""
    toks = c.toks
    lefts, inners = [], []
    for i, t in enumerate(toks[:-1]):
        if t.token_type != T.JOIN:
            continue
        j = i - 1
        mods = []
        while j >= 0 and toks[j].token_type in _JOIN_MODS:
            mods.append(j)
            j -= 1
        kinds = {toks[m].token_type for m in mods}
        if T.LEFT in kinds:
            lefts.append((toks[min(mods)].start, t.end + 1, "JOIN", "LEFT JOIN -> JOIN"))
        elif not kinds or kinds == {T.INNER}:
            right = c.schema.table(toks[i + 1].text)
            before = [tb for tb in c.tables if tb is not right and c.sql.lower().find(tb.name.lower()) < t.start]
            if right is not None and _is_child(right, before):
                s = toks[min(mods)].start if mods else t.start
                inners.append((s, t.end + 1, "LEFT JOIN", "JOIN -> LEFT JOIN (many side)"))
    pick = lefts or (inners if rng.random() < 0.25 else [])
    if not pick:
        return None
    s, e, new, note = rng.choice(pick)
    out = _apply(c.sql, [(s, e, new)])
    return (out, note) if out else None


def _topn_direction(c: _Ctx, rng: random.Random) -> tuple[str, str] | None:
    toks = c.toks
    ob = next((i for i, t in enumerate(toks) if t.token_type == T.ORDER_BY and c.depths[i] == 0), None)
    lim = next((i for i, t in enumerate(toks) if t.token_type == T.LIMIT and c.depths[i] == 0), None)
    if ob is None or lim is None or lim < ob:
        return None
    edits = []
    start = ob + 1
    for j in range(ob + 1, lim + 1):
        if j == lim or (toks[j].token_type == T.COMMA and c.depths[j] == 0):
            item = range(start, j)
            dirs = [k for k in item if toks[k].token_type in (T.ASC, T.DESC) and c.depths[k] == 0]
            if dirs:
                k = dirs[0]
                edits.append((toks[k].start, toks[k].end + 1, "ASC" if toks[k].token_type == T.DESC else "DESC"))
            else:
                nulls = [k for k in item if toks[k].text.upper() == "NULLS" and c.depths[k] == 0]
                last = (nulls[0] - 1) if nulls else j - 1
                if last >= start:
                    edits.append((toks[last].end + 1, toks[last].end + 1, " DESC"))
            start = j + 1
    if not edits:
        return None
    out = _apply(c.sql, edits)
    return (out, "top-N sort direction reversed") if out else None


_FLOATY = ("real", "float", "double", "numeric", "decimal")


def _cast_dropped_ratio(c: _Ctx, rng: random.Random) -> tuple[str, str] | None:
    if not _has(c, T.SLASH):
        return None
    toks = c.toks
    edits = []
    for start, end, _, expr, typ in _casts(c):
        if typ.split("(")[0].strip().lower().split()[0] in _FLOATY:
            edits.append((start, end, expr if re.fullmatch(r"[\w.]+(\(.*\))?", expr.strip(), re.S) else f"({expr})"))
    for i, t in enumerate(toks[:-1]):
        if t.token_type == T.NUMBER and t.text in ("1.0", "100.0") and i + 1 < len(toks):
            if toks[i + 1].token_type == T.STAR and t.text == "1.0":
                edits.append((t.start, toks[i + 1].end + 1, ""))
            elif i and toks[i - 1].token_type == T.STAR and t.text == "1.0":
                edits.append((toks[i - 1].start, t.end + 1, ""))
            elif t.text == "100.0":
                edits.append((t.start, t.end + 1, "100"))
    if not edits:
        return None
    edits = sorted(edits)
    keep, last = [], -1
    for e in edits:
        if e[0] >= last:
            keep.append(e)
            last = e[1]
    out = _apply(c.sql, keep)
    return (out, "float cast of the ratio dropped") if out and out != c.sql else None


_GRAIN_PG = {"month": ("year", "week", "quarter"), "week": ("month", "day"), "year": ("month",), "dow": ("day",),
             "day": ("week", "month"), "quarter": ("month", "year")}
_GRAIN_FMT = {"%Y-%m": ("%m", "%Y"), "%Y-%W": ("%W", "%Y-%m"), "%Y": ("%Y-%m",), "%Y-%m-%d": ("%Y-%m", "%d"),
              "%m": ("%Y-%m",), "YYYY-MM": ("MM", "YYYY"), "YYYY": ("YYYY-MM",), "start of month":
              ("start of year",), "start of year": ("start of month",), "%W": ("%m",), "MM": ("YYYY-MM",)}


def _period_granularity(c: _Ctx, rng: random.Random) -> tuple[str, str] | None:
    toks = c.toks
    cands = []
    for i, t in enumerate(toks):
        if t.text.upper() == "EXTRACT" and i + 3 < len(toks) and toks[i + 1].token_type == T.L_PAREN \
                and toks[i + 3].token_type == T.FROM and toks[i + 2].text.lower() in _GRAIN_PG:
            part = toks[i + 2].text.lower()
            new = rng.choice(_GRAIN_PG[part]).upper()
            cands.append((toks[i + 2].start, toks[i + 2].end + 1, new, part, new.lower()))
            continue
        if t.token_type != T.STRING or i < 2:
            continue
        fn = None
        o = i - 1
        while o >= 0 and toks[o].token_type != T.L_PAREN:
            o -= 1
        if o >= 1 and _close(toks, o) >= i:
            fn = toks[o - 1].text.upper()
        if fn in ("DATE_TRUNC", "DATE_PART") and t.text.lower() in _GRAIN_PG:
            new = rng.choice(_GRAIN_PG[t.text.lower()])
        elif fn in ("STRFTIME", "TO_CHAR", "DATE", "DATETIME") and t.text in _GRAIN_FMT and not (
                i + 2 < len(toks) and toks[i + 2].token_type == T.STRING and toks[i + 2].text.lower() == "now"):
            new = rng.choice(_GRAIN_FMT[t.text])
        else:
            continue
        cands.append((t.start, t.end + 1, f"'{new}'", t.text, new))
    if not cands:
        return None
    s, e, text, old, new = rng.choice(cands)
    out = _apply(c.sql, [(s, e, text)])
    return (out, f"date bucket {old} -> {new}") if out else None


_FORMS = {
    "monday": "Mon", "tuesday": "Tue", "wednesday": "Wed", "thursday": "Thu", "friday": "Fri",
    "saturday": "Sat", "sunday": "Sun", "january": "Jan", "february": "Feb", "march": "Mar", "april": "Apr",
    "june": "Jun", "july": "Jul", "august": "Aug", "september": "Sep", "october": "Oct", "november": "Nov",
    "december": "Dec", "united states": "USA", "usa": "United States", "us": "United States",
    "united kingdom": "UK", "uk": "United Kingdom", "california": "CA", "ca": "California", "new york": "NY",
    "ny": "New York", "texas": "TX", "tx": "Texas", "pennsylvania": "PA", "pa": "Pennsylvania",
    "arizona": "AZ", "az": "Arizona", "nevada": "NV", "nv": "Nevada", "florida": "FL", "fl": "Florida",
    "illinois": "IL", "il": "Illinois", "ohio": "OH", "washington": "WA", "massachusetts": "MA",
    "cancelled": "canceled", "canceled": "cancelled", "completed": "complete", "complete": "completed",
    "successful": "success", "success": "successful", "failed": "failure", "failure": "failed",
    "active": "enabled", "inactive": "disabled", "pending": "in_progress", "male": "M", "female": "F",
    "m": "Male", "f": "Female", "yes": "Y", "no": "N", "true": "yes", "false": "no", "san francisco": "SF",
    "los angeles": "LA", "credit card": "credit_card", "debit card": "debit_card", "first class": "first",
    "economy": "coach", "coach": "economy", "business": "business class", "refunded": "refund",
}  # fmt: skip


def _other_form(value: str, rng: random.Random) -> str | None:
    low = value.lower()
    if low in _FORMS:
        new = _FORMS[low]
        return new.upper() if value.isupper() and len(new) <= 3 else new
    if not value or sum(ch.isdigit() for ch in value) * 2 >= len(value) or "%" in value:
        return None
    words = value.split()
    if len(words) >= 2 and all(w[:1].isupper() for w in words):
        return "".join(w[0] for w in words) if rng.random() < 0.5 else "_".join(words)
    if len(words) >= 2:
        return "_".join(words)
    if "_" in value:
        return value.replace("_", " ")
    if "-" in value:
        return value.replace("-", " ")
    if value.islower() and value.isalpha():  # a code-like noun: the other grammatical number
        if value.endswith(("tions", "ments", "sions", "ers", "ees")):
            return value[:-1]
        if value.endswith(("tion", "ment", "sion", "er", "ee", "card", "ticket")):
            return value + "s"
    return None


def _literal_form_guess(c: _Ctx, rng: random.Random) -> tuple[str, str] | None:
    toks = c.toks
    cands = []
    for i, t in enumerate(toks):
        if t.token_type != T.STRING or i == 0:
            continue
        prv = toks[i - 1]
        if prv.token_type in (T.EQ, T.NEQ) or (prv.token_type in (T.COMMA, T.L_PAREN) and _in_list(toks, i)):
            new = _other_form(t.text, rng)
            if new and new != t.text:
                cands.append((t, new))
    if not cands:
        return None
    t, new = rng.choice(cands)
    out = _apply(c.sql, [(t.start, t.end + 1, "'" + new.replace("'", "''") + "'")])
    return (out, f"'{t.text}' written '{new}'") if out else None


def _in_list(toks: list[Token], i: int) -> bool:
    """Whether the string at ``i`` is an item of an ``IN (...)`` list."""
    k = i - 1
    while k >= 0 and toks[k].token_type in (T.COMMA, T.STRING, T.NUMBER):
        k -= 1
    return k >= 1 and toks[k].token_type == T.L_PAREN and toks[k - 1].token_type == T.IN


def _date_column_swap(c: _Ctx, rng: random.Random) -> tuple[str, str] | None:
    """A date/time column read where the table's other date/time column was meant (``created_at`` for
    ``updated_at``, ``hire_date`` for ``termination_date``), everywhere the query uses it."""

    def datey(col: Any) -> bool:
        low, ty = col.name.lower(), col.type.lower()
        return "date" in ty or "time" in ty or low.endswith(("_at", "_date", "_time", "_ts"))

    cands = []
    for _, tab, col in _column_sites(c):
        me = tab.column(col)
        if me is None or not datey(me):
            continue
        others = [o.name for o in tab.columns if o.name != me.name and datey(o)]
        for o in others:
            if (tab.name, col, o) not in cands and not any(t.column(o) for t in c.tables if t is not tab):
                cands.append((tab.name, col, o))
    if not cands:
        return None
    unused = [x for x in cands if not any(x[2].lower() == c.toks[i].text.lower() for i, _, _ in _column_sites(c))]
    tname, col, other = rng.choice(unused or cands)
    out = _rename_column(c, c.schema.table(tname), col, other)
    return (out, f"{tname}.{col} read as {other}") if out else None


def _null_or_not_slip(c: _Ctx, rng: random.Random) -> tuple[str, str] | None:
    """``IS NULL`` as ``= NULL``, ``IS NOT NULL`` as ``<> NULL``, a NOT dropped, ``<>`` as ``=``."""
    toks = c.toks
    cands = []
    for i, t in enumerate(toks[:-1]):
        if _clause_of(toks, c.depths, i) == T.ORDER_BY:
            continue
        if t.token_type == T.IS and toks[i + 1].token_type == T.NULL:
            cands.append((t.start, toks[i + 1].end + 1, "= NULL", "IS NULL written = NULL"))
        elif t.token_type == T.IS and toks[i + 1].token_type == T.NOT and i + 2 < len(toks) \
                and toks[i + 2].token_type == T.NULL:
            new = rng.choice(("<> NULL", "!= NULL"))
            cands.append((t.start, toks[i + 2].end + 1, new, f"IS NOT NULL written {new}"))
        elif t.token_type == T.NOT and toks[i - 1].token_type != T.IS:
            cands.append((t.start, toks[i + 1].start, "", "NOT dropped"))
        elif t.token_type == T.NEQ:
            cands.append((t.start, t.end + 1, "=", f"{t.text} written ="))
    if not cands:
        return None
    s, e, new, note = rng.choice(cands)
    out = _apply(c.sql, [(s, e, new)])
    return (out, note) if out else None


def _ratio_inverted(c: _Ctx, rng: random.Random) -> tuple[str, str] | None:
    toks = c.toks
    cands = []
    for i, t in enumerate(toks):
        if t.token_type != T.SLASH or i == 0 or i + 1 >= len(toks):
            continue
        if toks[i + 1].token_type == T.NUMBER:
            continue  # a scale, not a ratio
        ls, rend = _expr_start(toks, i - 1), _expr_end(toks, i + 1)
        if ls < 0 or rend < 0 or toks[ls].token_type == T.NUMBER:
            continue
        left = c.sql[toks[ls].start:toks[i - 1].end + 1]
        right = c.sql[toks[i + 1].start:toks[rend].end + 1]
        if left.strip().lower() == right.strip().lower():
            continue
        cands.append((toks[ls].start, toks[rend].end + 1, f"{right} / {left}"))
    if not cands:
        return None
    s, e, new = rng.choice(cands)
    out = _apply(c.sql, [(s, e, new)])
    return (out, "ratio inverted (denominator over numerator)") if out else None


_REL = re.compile(r"^([+-])\s*(\d+)\s+(\w+)$")


def _date_sign_flip(c: _Ctx, rng: random.Random) -> tuple[str, str] | None:
    toks = c.toks
    cands = []
    for i, t in enumerate(toks):
        if t.token_type == T.STRING:
            m = _REL.match(t.text.strip())
            if m and m.group(2) != "0":
                sign = "+" if m.group(1) == "-" else "-"
                cands.append((t.start, t.end + 1, f"'{sign}{m.group(2)} {m.group(3)}'"))
        elif t.token_type in (T.DASH, T.PLUS) and i + 1 < len(toks) and toks[i + 1].token_type == T.INTERVAL:
            cands.append((t.start, t.end + 1, "+" if t.token_type == T.DASH else "-"))
    if not cands:
        return None
    s, e, new = rng.choice(cands)
    out = _apply(c.sql, [(s, e, new)])
    return (out, "relative date moved the other way") if out else None


def _main_from_tables(c: _Ctx, frm: int, stop: int) -> list[tuple[Any, str]]:
    """(table, name the query uses for it) for each schema table in the main FROM clause."""
    toks = c.toks
    names = []
    for j in range(frm + 1, stop):
        if c.depths[j] != 0 or not _identish(toks[j]):
            continue
        prv = toks[j - 1]
        if not (prv.token_type in (T.FROM, T.JOIN) or (prv.token_type == T.DOT and j >= 2 and toks[j - 2].token_type
                                                       != T.DOT and toks[j - 3].token_type in (T.FROM, T.JOIN))):
            continue
        if j + 1 < len(toks) and toks[j + 1].token_type == T.DOT:
            continue
        full = c.sql[toks[j - 2].start:toks[j].end + 1] if prv.token_type == T.DOT else toks[j].text
        tab = c.schema.table(full) or c.schema.table(toks[j].text)
        if tab is None:
            continue
        nxt = toks[j + 1] if j + 1 < len(toks) else None
        if nxt is not None and nxt.token_type == T.ALIAS and j + 2 < len(toks):
            qual = toks[j + 2].text
        elif nxt is not None and _identish(nxt):
            qual = nxt.text
        else:
            qual = full
        names.append((tab, qual))
    return names


def _clause_end(c: _Ctx, start: int) -> int:
    """Index of the first depth-0 WHERE/GROUP BY/... after ``start`` (or len)."""
    for j in range(start + 1, len(c.toks)):
        if c.depths[j] == 0 and c.toks[j].token_type in (T.WHERE, T.GROUP_BY, T.ORDER_BY, T.HAVING, T.LIMIT,
                                                         T.UNION, T.SEMICOLON, T.WINDOW):
            return j
    return len(c.toks)


def _fanout_join(c: _Ctx, rng: random.Random) -> tuple[str, str] | None:
    ms = _main_select(c)
    if ms is None:
        return None
    _, frm = ms
    stop = _clause_end(c, frm)
    used = {t.name.lower() for t in c.tables}
    cands = []
    for tab, qual in _main_from_tables(c, frm, stop):
        for child in c.schema.tables:
            if child.name.lower() in used:
                continue
            for fk in child.foreign_keys:
                ref = c.schema.table(fk.ref_table)
                if ref is not None and ref.name == tab.name and len(fk.columns) == 1:
                    cands.append((tab, qual, child, fk.columns[0], fk.ref_columns[0]))
            if len(tab.primary_key) == 1 and not any(x[2] is child for x in cands):
                key = tab.primary_key[0]
                if child.column(key) is not None and key.lower() not in ("id",):
                    cands.append((tab, qual, child, child.column(key).name, key))
    if not cands:
        return None
    tab, qual, child, fkcol, refcol = rng.choice(cands)
    alias = "".join(w[0] for w in child.name.split("_") if w)[:3] + "x"
    text = f" JOIN {child.qualified_name} {alias} ON {alias}.{fkcol} = {qual}.{refcol}"
    at = c.toks[stop - 1].end + 1
    out = _apply(c.sql, [(at, at, text)])
    return (out, f"needless join to {child.name} (one-to-many)") if out else None


def _alias_bypassed(c: _Ctx, rng: random.Random) -> tuple[str, str] | None:
    toks = c.toks
    defs = _alias_defs(c)
    cands = []
    for j, alias in defs:
        table_tok = j - 2 if toks[j - 1].token_type == T.ALIAS else j - 1
        tname = toks[table_tok].text
        if tname.lower() == alias.lower():
            continue
        for k, t in enumerate(toks[:-1]):
            if t.text == alias and toks[k + 1].token_type == T.DOT and (k == 0 or toks[k - 1].token_type != T.DOT):
                cands.append((t.start, t.end + 1, tname, alias))
    if not cands:
        return None
    picked = rng.sample(cands, min(len(cands), rng.choice((1, 1, 2))))
    out = _apply(c.sql, [(s, e, n) for s, e, n, _ in picked])
    return (out, f"aliased table {picked[0][2]} referenced by its name") if out else None


# ----------------------------------------------------------------------------------------------------------------

_EDITS = {
    "col_generic_head": _col_generic_head, "pk_named_id": _pk_named_id, "col_spelled_out": _col_spelled_out,
    "table_descriptor": _table_descriptor, "cast_foreign": _cast_foreign, "nocase_idiom": _nocase_idiom,
    "select_ungrouped_extra": _select_ungrouped_extra, "on_clause_missing": _on_clause_missing,
    "alias_clash": _alias_clash, "comma_dropped": _comma_dropped, "invented_date_part": _invented_date_part,
    "alias_bypassed": _alias_bypassed,
    "join_kind_flip": _join_kind_flip, "null_or_not_slip": _null_or_not_slip,
    "topn_direction": _topn_direction, "cast_dropped_ratio": _cast_dropped_ratio,
    "period_granularity": _period_granularity, "literal_form_guess": _literal_form_guess,
    "date_column_swap": _date_column_swap, "ratio_inverted": _ratio_inverted,
    "date_sign_flip": _date_sign_flip, "fanout_join": _fanout_join,
}  # fmt: skip
_LAYOUTS = {
    "ddl_wrapped": _ddl_wrapped, "client_preamble": _client_preamble, "line_numbered": _line_numbered,
    "prompt_echo": _prompt_echo, "unclosed_fence": _unclosed_fence, "schema_recap_first": _schema_recap_first,
    "inline_code_pieces": _inline_code_pieces, "danda_terminated": _danda_terminated,
    "think_block_draft": _think_block_draft,
}  # fmt: skip


def damage(gold_sql: str, schema: Any, kind: str, seed: int) -> Damaged | None:
    """The whole reply for ``gold_sql`` damaged as ``kind``, or None when the kind does not apply. Never raises."""
    try:
        return _damage(gold_sql, schema, kind, seed)
    except Exception:
        return None


def _damage(gold_sql: str, schema: Any, kind: str, seed: int) -> Damaged | None:
    rng = random.Random(f"fresh12|{kind}|{seed}|{gold_sql}")
    sql = gold_sql.strip().rstrip(";").strip()
    if not sql:
        return None
    dialect = "sqlite" if getattr(schema, "dialect", "postgres") == "sqlite" else "postgres"
    if kind == "clean":
        return Damaged(kind, _reply(sql, dialect, rng), "gold query, ordinary reply")
    c = _ctx(sql, schema)
    if c is None:
        return None
    if kind in _LAYOUTS:
        got = _LAYOUTS[kind](sql, c, rng)
        return Damaged(kind, got[0], got[1]) if got else None
    fn = _EDITS.get(kind)
    if fn is None:
        return None
    got = fn(c, rng)
    if not got or not got[0] or got[0].strip() == sql:
        return None
    return Damaged(kind, _reply(got[0], dialect, rng), got[1])
