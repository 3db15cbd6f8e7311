"""Held-out damage generator ``fresh15`` for ``bench/recovery.py``: replies a 7B-8B local coder model really sends.

Written without reading Cairn's repair/check code. Every SQL edit is a text edit at positions found with sqlglot's
tokenizer or the identifier positions of its parse tree; nothing is re-rendered (``TREE_KINDS`` is empty).

Kinds (family A: the reply as written fails or its SQL is hard to find; family B: it runs and answers a different
question):

clean                     -   the gold query, fenced, in an ordinary reply (varied prose, layout and fence tag)
table_synonym             A   a table called by a word that means the same (cars -> vehicles, users -> accounts)
table_camel_case          A   a snake_case table written PascalCase / camelCase / squashed (payments_received ->
                              PaymentsReceived), unquoted, so the database looks for another name
col_prefix_stripped       A   a column's leading word dropped (sale_price -> price, payment_amount -> amount)
keyword_stutter           A   a keyword written twice in a row, the repetition glitch (FROM FROM, AND AND)
comparison_misspelled     A   a two-character comparison written back to front (>= as =>, <= as =<, <> as ><) or
                              as math glyphs (>= as ≥, <= as ≤, <> as ≠)
literal_unquoted          A   a compared string value written without its quotes (= active, = San Francisco)
pandas_func_names         A   pandas / spreadsheet function names (AVG -> MEAN/AVERAGE, COUNT(DISTINCT x) ->
                              NUNIQUE(x), LENGTH -> LEN, COALESCE -> FILLNA)
count_distinct_misuse     A   COUNT(*) written COUNT(DISTINCT *), or COUNT(DISTINCT a) as COUNT(DISTINCT a, b)
                              (MySQL's form): neither PostgreSQL nor SQLite accepts them
alias_qualified           A   a SELECT alias used in ORDER BY / HAVING qualified with a table alias (s.total_sales)
newline_glued             A   a line break lost between clauses, gluing a word to the next keyword (restaurantWHERE)
nbsp_spacing              A   no-break spaces (U+00A0 / U+202F) instead of plain spaces and indentation in the SQL
tool_call_json            A   the query sent as a function-call envelope (qwen <tool_call>, llama <|python_tag|>)
fence_info_filename       A   the fence's info string carries a file name or attributes (```sql title="q.sql")
fence_doubled             A   the fence opened twice, so the first block is empty (```sql + ```sql)
jupyter_sql_magic         A   the query as a notebook cell under %%sql / %sql (ipython-sql, jupysql)
dbt_refs                  A   tables written as dbt refs / sources ({{ ref('sales') }}) in a "dbt model"
html_pre_block            A   the reply rendered as HTML, the query in <pre><code class="language-sql">
hinglish_notes_in_block   A   Hindi-English step notes (Latin and Devanagari) written as bare lines inside the block
other_dialect_block_first A   a SQL Server ([dbo].[t], TOP n) or MySQL (`db`.`t`) version first, the user's second
twin_table_swap           B   a look-alike table that has every column the query uses (payments_received ->
                              payments_made, tip -> review, customers -> salespersons)
literal_abbrev_swap       B   a compared value abbreviated, expanded or put in another form (San Francisco -> SF,
                              US -> United States, Saturday -> Sat, italian -> italy, JFK -> New York)
date_unit_slip            B   the unit of a date interval / SQLite modifier swapped ('30 days' -> '30 months'), or a
                              date part mixed up (month bucket as month-of-year, 'MM' as 'MI' and %m as %M =
                              minutes, day-of-week as day-of-month, %Y as %y)
cast_to_integer           B   a ratio's float cast made an integer one (CAST(x AS REAL) -> AS INTEGER, ::float ->
                              ::int, * 1.0 -> * 1), so the division truncates
group_key_coarsened       B   one of several grouping keys dropped from both SELECT and GROUP BY
join_on_tautology         B   a join condition comparing a column with itself (ON s.car_id = s.car_id): a cross join
count_wrong_entity        B   COUNT of the rows made a distinct count of a related id (COUNT(*) -> COUNT(DISTINCT
                              s.customer_id)): customers counted where sales were asked, or the other way round
top_one_only              B   "LIMIT 1" (or 3) put on an ordered list the question wants whole
null_test_as_equality     B   IS NULL written = NULL, IS NOT NULL written != NULL: a test that is never true
difference_reversed       B   the operands of a subtraction swapped (termination_date - hire_date -> hire_date -
                              termination_date, price - cost -> cost - price)
"""

from __future__ import annotations

import html
import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.dialects import Dialect
from sqlglot.tokens import TokenType as T

__all__ = ["DAMAGE_KINDS", "TREE_KINDS", "Damaged", "damage"]

DAMAGE_KINDS: tuple[str, ...] = (
    "clean",
    # family A
    "table_synonym", "table_camel_case", "col_prefix_stripped", "keyword_stutter", "comparison_misspelled",
    "literal_unquoted", "pandas_func_names", "count_distinct_misuse", "alias_qualified", "newline_glued",
    "nbsp_spacing", "tool_call_json", "fence_info_filename", "fence_doubled", "jupyter_sql_magic", "dbt_refs",
    "html_pre_block", "hinglish_notes_in_block", "other_dialect_block_first",
    # family B
    "twin_table_swap", "literal_abbrev_swap", "date_unit_slip", "cast_to_integer", "group_key_coarsened",
    "join_on_tautology", "count_wrong_entity", "top_one_only", "null_test_as_equality", "difference_reversed",
)  # fmt: skip
TREE_KINDS: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Damaged:
    kind: str
    reply: str
    note: str


# ----------------------------------------------------------------------------------------------- the query at hand


class _Q:
    """The gold query with its tokens, parse tree and the schema, for text edits at known positions."""

    def __init__(self, sql: str, schema: Any, rng: random.Random) -> None:
        self.sql = sql.strip()
        self.schema = schema
        self.rng = rng
        dialect = getattr(schema, "dialect", "postgres") or "postgres"
        self.dialect = dialect if dialect in ("postgres", "sqlite", "duckdb", "mysql") else "postgres"
        self._tokens: list[Any] | None = None
        self._tree: Any = False

    # -- tokens and tree
    @property
    def tokens(self) -> list[Any]:
        if self._tokens is None:
            self._tokens = _tokenize(self.sql, self.dialect) or []
        return self._tokens

    @property
    def tree(self) -> Any:
        if self._tree is False:
            try:
                self._tree = sqlglot.parse_one(self.sql.rstrip().rstrip(";"), read=self.dialect)
            except Exception:  # noqa: BLE001
                self._tree = None
        return self._tree

    def text(self, tok: Any) -> str:
        return self.sql[tok.start : tok.end + 1]

    # -- names
    def cte_names(self) -> set[str]:
        if self.tree is None:
            return set()
        return {c.alias_or_name.lower() for c in self.tree.find_all(exp.CTE)}

    def table_nodes(self) -> list[tuple[Any, Any]]:
        """(exp.Table, schema Table) of every reference to a real table (CTEs left out)."""
        if self.tree is None:
            return []
        ctes = self.cte_names()
        out = []
        for node in self.tree.find_all(exp.Table):
            if not node.name or node.name.lower() in ctes:
                continue
            full = f"{node.db}.{node.name}" if node.db else node.name
            table = self.schema.table(full) or self.schema.table(node.name)
            if table is not None:
                out.append((node, table))
        return out

    def ref_tables(self) -> list[Any]:
        seen: dict[str, Any] = {}
        for _, table in self.table_nodes():
            seen.setdefault(table.qualified_name.lower(), table)
        return list(seen.values())

    def alias_map(self) -> dict[str, Any]:
        return {node.alias_or_name.lower(): table for node, table in self.table_nodes()}

    def used_names(self) -> set[str]:
        """Every identifier spelled in the query (columns, tables, aliases, CTEs), lower case."""
        if self.tree is None:
            return set()
        return {i.name.lower() for i in self.tree.find_all(exp.Identifier)}

    def columns(self) -> list[tuple[Any, Any | None]]:
        """(exp.Column, the schema table it belongs to or None) for each column reference."""
        if self.tree is None:
            return []
        aliases = self.alias_map()
        tables = self.ref_tables()
        out = []
        for col in self.tree.find_all(exp.Column):
            if not isinstance(col.this, exp.Identifier):
                continue
            owner = None
            if col.table:
                owner = aliases.get(col.table.lower())
                if owner is not None and owner.column(col.name) is None:
                    owner = None
            else:
                owner = next((t for t in tables if t.column(col.name) is not None), None)
            out.append((col, owner))
        return out

    def all_schema_columns(self) -> set[str]:
        return {c.name.lower() for t in self.schema.tables for c in t.columns}


def _tokenize(sql: str, dialect: str) -> list[Any] | None:
    try:
        return list(Dialect.get_or_raise(dialect).tokenize(sql))
    except Exception:  # noqa: BLE001
        return None


def _span(node: Any) -> tuple[int, int] | None:
    meta = getattr(node, "meta", None) or {}
    if "start" in meta and "end" in meta:
        return int(meta["start"]), int(meta["end"]) + 1
    return None


def _edit(sql: str, edits: list[tuple[int, int, str]]) -> str:
    """Apply (start, end, new) replacements; overlapping edits are dropped."""
    out = sql
    last = len(sql) + 1
    for start, end, new in sorted(set(edits), key=lambda e: (e[0], e[1]), reverse=True):
        if end > last:
            continue
        out = out[:start] + new + out[end:]
        last = start
    return out


def _depths(tokens: list[Any]) -> list[int]:
    """The parenthesis depth each token sits at (a bracket at its outer depth)."""
    out, depth = [], 0
    for tok in tokens:
        if tok.token_type == T.R_PAREN:
            depth -= 1
        out.append(depth)
        if tok.token_type == T.L_PAREN:
            depth += 1
    return out


def _match_paren(tokens: list[Any], i: int) -> int | None:
    depth = 0
    for j in range(i, len(tokens)):
        if tokens[j].token_type == T.L_PAREN:
            depth += 1
        elif tokens[j].token_type == T.R_PAREN:
            depth -= 1
            if depth == 0:
                return j
    return None


def _tt(tokens: list[Any], i: int) -> Any:
    return tokens[i].token_type if 0 <= i < len(tokens) else None


def _upper(tokens: list[Any], i: int) -> str:
    return tokens[i].text.upper() if 0 <= i < len(tokens) else ""


# ----------------------------------------------------------------------------------------------- reply dressing

_CLAUSE_BREAK = {T.FROM, T.WHERE, T.GROUP_BY, T.ORDER_BY, T.HAVING, T.LIMIT, T.UNION, T.JOIN, T.LEFT, T.RIGHT,
                 T.INNER, T.FULL, T.CROSS, T.OUTER}
_JOIN_WORDS = {T.LEFT, T.RIGHT, T.INNER, T.FULL, T.CROSS, T.OUTER, T.NATURAL}

_PRE_EN = (
    "Here's a query that answers this:", "Sure! You can get that with the following SQL:",
    "This query should give you what you asked for:", "To answer that, run:", "Okay, here is the SQL:",
    "The following {db} query does it:", "You can use this query:", "Here you go:", "",
    "Based on the schema, this is the query:", "Got it. Try this:",
)
_PRE_HI = (
    "Yeh query aapke sawaal ka jawab degi:", "Theek hai, iske liye yeh SQL chalaiye:",
    "Aap yeh query use kar sakte hain:", "नीचे दी गई query से आपको result मिल जाएगा:", "Bilkul! Yeh rahi query:",
    "Is sawaal ke liye query kuch aisi hogi:",
)
_POST = (
    "", "", "This joins the relevant tables and applies the filter from your question.",
    "Let me know if you want the results sorted differently.", "You can adjust the limit to see more rows.",
    "Isme zaroori tables join ki gayi hain aur filter lagaya gaya hai.", "अगर आपको और columns चाहिए तो बताइए।",
    "The aggregate is computed per group, as asked.", "Hope this helps!",
    "**Explanation:** the query reads the tables named above and keeps only the matching rows.",
)


def _db_word(dialect: str) -> str:
    return {"postgres": "PostgreSQL", "sqlite": "SQLite", "duckdb": "DuckDB", "mysql": "MySQL"}.get(dialect, "SQL")


def _fence_tag(rng: random.Random, dialect: str) -> str:
    native = {"postgres": "postgresql", "sqlite": "sqlite", "mysql": "mysql", "duckdb": "sql"}.get(dialect, "sql")
    return rng.choice(("sql", "sql", "sql", "SQL", native, ""))


def _layout(sql: str, dialect: str, mode: int, indent: str = "  ") -> str:
    """0: as written; 1: a line per clause; 2: a line per clause, joins and ANDs indented. Whitespace only."""
    if mode == 0:
        return sql
    tokens = _tokenize(sql, dialect)
    if not tokens:
        return sql
    depths = _depths(tokens)
    edits = []
    for i, tok in enumerate(tokens):
        if i == 0 or depths[i] != 0:
            continue
        tt = tok.token_type
        brk = tt in _CLAUSE_BREAK and not (tt == T.JOIN and tokens[i - 1].token_type in _JOIN_WORDS)
        if tt == T.OUTER and tokens[i - 1].token_type in _JOIN_WORDS:
            brk = False
        if tt in (T.LEFT, T.RIGHT) and _tt(tokens, i + 1) not in (T.JOIN, T.OUTER):
            brk = False  # LEFT(x, 3) the function
        pad = ""
        if mode == 2 and tt == T.AND and not any(t.token_type == T.BETWEEN for t in tokens[max(0, i - 4):i]):
            brk, pad = True, indent
        if mode == 2 and (tt in _JOIN_WORDS or tt == T.JOIN):
            pad = indent if brk else ""
        if not brk:
            continue
        prev_end = tokens[i - 1].end + 1
        edits.append((prev_end, tok.start, "\n" + pad))
    return _edit(sql, edits)


def _reply(q: _Q, sql: str, *, layout: int | None = None) -> str:
    """An ordinary chat reply around ``sql``: some prose, a fenced block, maybe a line after."""
    rng = q.rng
    mode = rng.choice((0, 1, 1, 2)) if layout is None else layout
    body = _layout(sql, q.dialect, mode)
    if rng.random() < 0.3 and not body.rstrip().endswith(";"):
        body = body.rstrip() + ";"
    pre = rng.choice(_PRE_HI if rng.random() < 0.25 else _PRE_EN).format(db=_db_word(q.dialect))
    post = rng.choice(_POST)
    tag = _fence_tag(rng, q.dialect)
    parts = [pre] if pre else []
    parts.append(f"```{tag}\n{body}\n```")
    if post:
        parts.append(post)
    return "\n\n".join(parts)


# ----------------------------------------------------------------------------------------------- helpers: renames

_NEVER_NEW = {"user", "current_user", "session_user", "current_date", "current_time", "current_timestamp",
              "localtime", "localtimestamp", "rowid", "oid", "ctid", "xmin", "xmax", "cmin", "cmax", "tableoid",
              "_rowid_", "true", "false", "null", "at", "id", "ts", "dt", "on", "by", "no", "to", "in", "is", "of",
              "and", "or", "not", "as", "all", "any", "end", "case", "when", "then", "else", "select", "from",
              "where", "order", "group", "limit", "desc", "asc", "count", "sum", "avg", "min", "max", "default",
              "primary", "table", "column", "key", "check", "like", "between", "cast", "distinct", "union"}


def _table_rename_edits(q: _Q, table: Any, new: str) -> list[tuple[int, int, str]]:
    """Edits that call ``table`` ``new`` wherever the query names it (its references and unaliased qualifiers)."""
    edits = []
    bare = table.name.lower()
    unaliased = False
    for node, tab in q.table_nodes():
        if tab is not table:
            continue
        span = _span(node.this)
        if span is None:
            return []
        edits.append((span[0], span[1], new))
        if node.alias_or_name.lower() == bare:
            unaliased = True
    if unaliased:
        aliases = q.alias_map()
        for col in q.tree.find_all(exp.Column):
            qual = col.args.get("table")
            if isinstance(qual, exp.Identifier) and qual.name.lower() == bare and aliases.get(bare) is table:
                span = _span(qual)
                if span is None:
                    return []
                edits.append((span[0], span[1], new))
    return edits


def _column_rename_edits(q: _Q, name: str, owner: Any, new: str) -> list[tuple[int, int, str]]:
    edits = []
    for col, tab in q.columns():
        if tab is owner and col.name.lower() == name.lower():
            span = _span(col.this)
            if span is None:
                return []
            edits.append((span[0], span[1], new))
    return edits


def _free_name(q: _Q, new: str) -> bool:
    """A name that resolves to nothing the query can see (so a query using it cannot run)."""
    low = new.lower()
    if low in _NEVER_NEW or len(low) < 3:
        return False
    if low in q.used_names():
        return False
    if any(t.column(low) is not None for t in q.ref_tables()):
        return False
    return q.schema.table(low) is None


# =============================================================================================== family A


def _k_clean(q: _Q) -> tuple[str, str]:
    return _reply(q, q.sql), "gold query, ordinary reply"


_TABLE_SYNONYMS = {
    "cars": ("vehicles", "automobiles", "car_inventory"), "sales": ("orders", "car_sales", "deals"),
    "customers": ("clients", "buyers"), "customer": ("client", "clients"),
    "salespersons": ("sales_reps", "salespeople", "staff"), "payments_received": ("customer_payments", "receipts"),
    "payments_made": ("vendor_payments", "expenses", "payouts"), "inventory_snapshots": ("stock_levels", "inventory"),
    "users": ("accounts", "members", "app_users"), "merchants": ("vendors", "sellers", "stores"),
    "coupons": ("vouchers", "promo_codes", "promotions"), "notifications": ("alerts", "user_messages"),
    "user_sessions": ("sessions", "logins", "user_logins"), "user_setting_snapshot": ("user_settings", "preferences"),
    "wallet_transactions_daily": ("transactions", "wallet_transactions", "payments"),
    "wallet_user_balance_daily": ("user_balances", "balances"),
    "wallet_merchant_balance_daily": ("merchant_balances", "merchant_wallets"),
    "restaurant": ("eatery", "venue", "diner"), "location": ("address", "restaurant_address", "place"),
    "geographic": ("geography", "region_info", "areas"), "business": ("company", "venue", "shop"),
    "review": ("rating", "feedback"), "tip": ("advice", "suggestion"), "checkin": ("visit", "visits"),
    "category": ("business_category", "tag"), "neighbourhood": ("neighborhood", "district", "area"),
    "author": ("writer", "researcher"), "publication": ("paper", "article"), "conference": ("venue", "event"),
    "journal": ("periodical", "magazine"), "organization": ("institution", "affiliation", "org"),
    "keyword": ("topic", "tag"), "domain": ("field", "research_area", "subject"),
    "writes": ("authorship", "paper_author", "author_paper"), "cite": ("citation", "reference"),
    "flight": ("trip", "itinerary"), "airline": ("carrier", "airline_company"), "airport": ("airfield", "terminal"),
    "fare": ("price", "ticket_price"), "aircraft": ("plane", "airplane"), "city": ("town", "municipality"),
    "state": ("province", "region"), "album": ("record", "release"), "artist": ("musician", "band", "performer"),
    "track": ("song", "songs"), "genre": ("music_category", "style"), "invoice": ("bill", "orders", "purchase"),
    "invoice_line": ("invoice_item", "order_line", "line_item"), "employee": ("staff", "worker"),
    "media_type": ("format", "media_format"), "playlist": ("mix", "playlist_info"),
    "playlist_track": ("playlist_song", "playlist_entries"), "restriction": ("rule", "fare_rule"),
    "food_service": ("meal", "catering"), "ground_service": ("ground_transport", "transfer"),
}


def _k_table_synonym(q: _Q) -> tuple[str, str] | None:
    options = []
    for table in q.ref_tables():
        for new in _TABLE_SYNONYMS.get(table.name.lower(), ()):
            if _free_name(q, new):
                options.append((table, new))
    if not options:
        return None
    table, new = q.rng.choice(options)
    edits = _table_rename_edits(q, table, new)
    if not edits:
        return None
    return _reply(q, _edit(q.sql, edits)), f"table {table.name} called {new}"


def _k_table_camel_case(q: _Q) -> tuple[str, str] | None:
    options = [t for t in q.ref_tables() if "_" in t.name.strip("_")]
    if not options:
        return None
    table = q.rng.choice(options)
    parts = [p for p in table.name.split("_") if p]
    style = q.rng.choice(("pascal", "pascal", "camel", "squashed"))
    if style == "pascal":
        new = "".join(p.capitalize() for p in parts)
    elif style == "camel":
        new = parts[0].lower() + "".join(p.capitalize() for p in parts[1:])
    else:
        new = "".join(parts).lower()
    if q.schema.table(new) is not None:
        return None
    edits = _table_rename_edits(q, table, new)
    if not edits:
        return None
    return _reply(q, _edit(q.sql, edits)), f"table {table.name} written {new}"


def _k_col_prefix_stripped(q: _Q) -> tuple[str, str] | None:
    options = {}
    for col, owner in q.columns():
        if owner is None or "_" not in col.name.strip("_"):
            continue
        new = col.name.split("_", 1)[1].strip("_")
        if "_" in new and q.rng.random() < 0.5:
            new = new.rsplit("_", 1)[1]
        if _free_name(q, new):
            options.setdefault((col.name.lower(), owner.qualified_name), (col.name, owner, new))
    if not options:
        return None
    name, owner, new = options[q.rng.choice(sorted(options))]
    edits = _column_rename_edits(q, name, owner, new)
    if not edits:
        return None
    return _reply(q, _edit(q.sql, edits)), f"column {name} called {new}"


def _k_keyword_stutter(q: _Q) -> tuple[str, str] | None:
    toks = q.tokens
    wanted = {T.SELECT: 1, T.FROM: 3, T.WHERE: 3, T.JOIN: 2, T.AND: 2, T.ON: 2, T.GROUP_BY: 2, T.ORDER_BY: 1}
    options = [(i, wanted[t.token_type]) for i, t in enumerate(toks) if t.token_type in wanted]
    if not options:
        return None
    i = q.rng.choices([o[0] for o in options], weights=[o[1] for o in options])[0]
    word = q.text(toks[i])
    sep = q.rng.choice((" ", " ", "\n"))
    return _reply(q, _edit(q.sql, [(toks[i].end + 1, toks[i].end + 1, sep + word)]), layout=0), f"{word} twice"


_MISSPELT = {T.GTE: ("=>", "≥"), T.LTE: ("=<", "≤")}


def _k_comparison_misspelled(q: _Q) -> tuple[str, str] | None:
    toks = q.tokens
    glyphs = q.rng.random() < 0.4
    edits = []
    for t in toks:
        if t.token_type in _MISSPELT:
            edits.append((t.start, t.end + 1, _MISSPELT[t.token_type][glyphs]))
        elif t.token_type == T.NEQ:
            edits.append((t.start, t.end + 1, "≠" if glyphs else ("><" if q.text(t) == "<>" else "=!")))
    if not edits:
        return None
    if not glyphs:
        edits = [q.rng.choice(edits)]
    note = "comparison as a math glyph" if glyphs else "comparison written back to front"
    return _reply(q, _edit(q.sql, edits)), note


def _k_jupyter_sql_magic(q: _Q) -> tuple[str, str]:
    rng = q.rng
    body = _layout(q.sql, q.dialect, rng.choice((0, 1, 2)))
    shape = rng.choice(("cell", "cell", "line", "bare"))
    if shape == "cell":
        block = f"```{rng.choice(('python', 'ipython', 'sql', ''))}\n%%sql\n{body}\n```"
    elif shape == "line":
        block = f"```python\n%sql {_layout(q.sql, q.dialect, 0)}\n```"
    else:
        block = f"```\n%%sql\n{body}\n```"
    pre = rng.choice(("In your notebook (with ipython-sql / jupysql loaded) run:", "Jupyter cell:",
                      "If you're in a notebook, you can run it directly:", "Notebook mein yeh cell chalaiye:"))
    if rng.random() < 0.3:
        pre += "\n\n```python\n%load_ext sql\n```"
        block = block.replace("```python\n%load_ext sql\n```", "")
        return f"{pre}\n\nthen\n\n{block}", "notebook %load_ext first, query under %%sql"
    return f"{pre}\n\n{block}", f"query under a notebook SQL magic ({shape})"


def _k_alias_qualified(q: _Q) -> tuple[str, str] | None:
    toks = q.tokens
    depths = _depths(toks)
    nodes = q.table_nodes()
    if not nodes:
        return None
    aliases = {}
    for i, t in enumerate(toks):
        if t.token_type == T.ALIAS and depths[i] == 0 and _tt(toks, i + 1) in (T.VAR, T.IDENTIFIER):
            aliases[toks[i + 1].text.lower()] = i + 1
    first = nodes[0]
    owner = first[0].alias_or_name
    table = first[1]
    options = []
    in_clause = False
    for i, t in enumerate(toks):
        if depths[i] == 0 and t.token_type in (T.ORDER_BY, T.HAVING):
            in_clause = True
        elif depths[i] == 0 and t.token_type in (T.LIMIT, T.SEMICOLON, T.UNION, T.OFFSET):
            in_clause = False
        if not in_clause or t.token_type not in (T.VAR, T.IDENTIFIER) or _tt(toks, i - 1) == T.DOT:
            continue
        if _tt(toks, i + 1) in (T.DOT, T.L_PAREN) or t.text.lower() not in aliases:
            continue
        if table.column(t.text) is not None or any(tb.column(t.text) is not None for tb in q.ref_tables()):
            continue
        options.append(i)
    if not options:
        return None
    picked = [i for i in options if toks[i].text.lower() == toks[q.rng.choice(options)].text.lower()]
    edits = [(toks[i].start, toks[i].start, f"{owner}.") for i in picked]
    return _reply(q, _edit(q.sql, edits)), f"select alias {toks[picked[0]].text} qualified with {owner}."


_CMP = {T.EQ, T.NEQ, T.LIKE, T.ILIKE}
_PLAIN_WORDS = {"true", "false", "null", "yes", "no", "on", "off", "all", "none", "default", "user", "current_date"}


def _compared_strings(q: _Q) -> list[int]:
    """Indices of string tokens compared with a column: after =, <>, LIKE, or in an IN list."""
    toks = q.tokens
    out = []
    for i, t in enumerate(toks):
        if t.token_type != T.STRING:
            continue
        prev = _tt(toks, i - 1)
        if prev in _CMP:
            out.append(i)
            continue
        if (prev == T.L_PAREN and _upper(toks, i - 2) in ("LOWER", "UPPER") and _tt(toks, i - 3) in _CMP
                and _tt(toks, i + 1) == T.R_PAREN):
            out.append(i)  # = LOWER('x'), LIKE LOWER('%x%')
            continue
        j = i - 1
        while j >= 0 and toks[j].token_type in (T.STRING, T.COMMA):
            j -= 1
        if j >= 1 and toks[j].token_type == T.L_PAREN and toks[j - 1].token_type == T.IN:
            out.append(i)
    return out


def _k_literal_unquoted(q: _Q) -> tuple[str, str] | None:
    toks = q.tokens
    names = q.used_names() | q.all_schema_columns() | {t.name.lower() for t in q.schema.tables}
    options = []
    for i in _compared_strings(q):
        value = toks[i].text
        raw = q.text(toks[i])
        if not value.strip() or "'" in value or not raw.startswith("'") or re.fullmatch(r"[\d\s:.+\-/]+", value):
            continue
        if value.lower() in names or value.lower() in _PLAIN_WORDS or value.lower() in _NEVER_NEW:
            continue
        if "%" in value or "_" in value.strip("%") and "%" in value:
            continue  # a LIKE pattern: nobody writes that bare
        options.append(i)
    if not options:
        return None
    i = q.rng.choice(options)
    return _reply(q, _edit(q.sql, [(toks[i].start, toks[i].end + 1, toks[i].text)])), f"{toks[i].text} unquoted"


def _k_pandas_func_names(q: _Q) -> tuple[str, str] | None:
    toks = q.tokens
    found: dict[str, list[tuple[int, int, str]]] = {}
    for i, t in enumerate(toks):
        if _tt(toks, i + 1) != T.L_PAREN or _tt(toks, i - 1) == T.DOT:
            continue
        name = t.text.upper()
        if name == "AVG":
            found.setdefault("AVG", []).append((t.start, t.end + 1, "{AVG}"))
        elif name == "COUNT" and _tt(toks, i + 2) == T.DISTINCT:
            found.setdefault("COUNT DISTINCT", []).append((t.start, toks[i + 3].start, "NUNIQUE("))
        elif name in ("LENGTH", "CHAR_LENGTH"):
            found.setdefault("LENGTH", []).append((t.start, t.end + 1, "LEN"))
        elif name == "COALESCE":
            found.setdefault("COALESCE", []).append((t.start, t.end + 1, "FILLNA"))
        elif name in ("STDDEV", "STDDEV_SAMP"):
            found.setdefault("STDDEV", []).append((t.start, t.end + 1, "STD"))
    if not found:
        return None
    which = q.rng.choice(sorted(found))
    avg = q.rng.choice(("MEAN", "MEAN", "AVERAGE"))
    edits = [(s, e, new.replace("{AVG}", avg)) for s, e, new in found[which]]
    if q.rng.random() < 0.5:
        edits = [(s, e, new.lower()) for s, e, new in edits]
    return _reply(q, _edit(q.sql, edits)), f"{which} under its pandas/spreadsheet name"


def _k_count_distinct_misuse(q: _Q) -> tuple[str, str] | None:
    toks = q.tokens
    options: list[tuple[list[tuple[int, int, str]], str]] = []
    stars = [i for i in range(len(toks) - 3) if toks[i].text.upper() == "COUNT" and toks[i + 1].token_type == T.L_PAREN
             and toks[i + 2].token_type == T.STAR and toks[i + 3].token_type == T.R_PAREN]
    word = q.rng.choice(("DISTINCT ", "DISTINCT ", "distinct "))
    for i in stars:
        options.append(([(toks[i + 2].start, toks[i + 2].start, word)], "COUNT(DISTINCT *)"))
    aliases = q.alias_map()
    tables = q.ref_tables()
    for i in range(len(toks) - 3):
        if toks[i].text.upper() != "COUNT" or toks[i + 1].token_type != T.L_PAREN \
                or toks[i + 2].token_type != T.DISTINCT:
            continue
        end = _column_ref_at(toks, i + 3)
        if end is None or _tt(toks, end + 1) != T.R_PAREN:
            continue
        qual = toks[i + 3].text.lower() if end > i + 3 else None
        owner = aliases.get(qual) if qual else next((t for t in tables if t.column(toks[end].text)), None)
        if owner is None:
            continue
        name = toks[end].text.lower()
        others = [c.name for c in owner.columns if c.name.lower() != name]
        if not others:
            continue
        other = q.rng.choice(others[:4])
        second = f"{q.sql[toks[i + 3].start : toks[end - 1].end + 1]}{other}" if qual else other
        options.append(([(toks[end].end + 1, toks[end].end + 1, f", {second}")], "COUNT(DISTINCT a, b)"))
    if not options:
        return None
    edits, note = q.rng.choice(options)
    return _reply(q, _edit(q.sql, edits)), note


_GLUE_TYPES = {T.FROM, T.WHERE, T.GROUP_BY, T.ORDER_BY, T.HAVING, T.LIMIT, T.JOIN, T.LEFT, T.INNER, T.AND, T.ON}


def _k_newline_glued(q: _Q) -> tuple[str, str] | None:
    laid = _layout(q.sql, q.dialect, q.rng.choice((1, 2)))
    toks = _tokenize(laid, q.dialect)
    if not toks:
        return None
    options = []
    for i in range(1, len(toks)):
        t = toks[i]
        if t.token_type not in _GLUE_TYPES:
            continue
        gap = laid[toks[i - 1].end + 1 : t.start]
        prev_char = laid[toks[i - 1].end]
        if "\n" in gap and (prev_char.isalpha() or prev_char == "_") and toks[i - 1].token_type not in (T.STRING,):
            options.append((toks[i - 1].end + 1, t.start, t.text))
    if not options:
        return None
    start, end, word = q.rng.choice(options)
    glued = _edit(laid, [(start, end, "")])
    tag = _fence_tag(q.rng, q.dialect)
    pre = q.rng.choice(_PRE_EN + _PRE_HI).format(db=_db_word(q.dialect))
    reply = (pre + "\n\n" if pre else "") + f"```{tag}\n{glued}\n```"
    return reply, f"line break before {word} lost"


def _k_nbsp_spacing(q: _Q) -> tuple[str, str] | None:
    laid = _layout(q.sql, q.dialect, q.rng.choice((1, 2, 2)), indent="    ")
    toks = _tokenize(laid, q.dialect)
    if not toks or len(toks) < 4:
        return None
    space = q.rng.choice(("\u00a0", "\u00a0", "\u202f"))
    edits = []
    for i in range(1, len(toks)):
        gap_start, gap_end = toks[i - 1].end + 1, toks[i].start
        gap = laid[gap_start:gap_end]
        if not gap:
            continue
        if "\n" in gap:
            head, _, ind = gap.rpartition("\n")
            if ind:
                edits.append((gap_start, gap_end, head + "\n" + space * len(ind)))
        elif gap == " " and q.rng.random() < 0.35:
            edits.append((gap_start, gap_end, space))
    if not edits:
        i = q.rng.randrange(1, len(toks))
        edits.append((toks[i - 1].end + 1, toks[i].start, space))
    return _reply(q, _edit(laid, edits), layout=0), "no-break spaces in the SQL"


def _k_tool_call_json(q: _Q) -> tuple[str, str]:
    rng = q.rng
    sql = _layout(q.sql, q.dialect, rng.choice((0, 1)))
    fname = rng.choice(("execute_sql", "run_query", "sql_query", "query_database"))
    key = rng.choice(("query", "sql", "query"))
    style = rng.choice(("qwen", "qwen", "llama", "plain"))
    if style == "qwen":
        body = json.dumps({"name": fname, "arguments": {key: sql}}, ensure_ascii=False)
        reply = f"<tool_call>\n{body}\n</tool_call>"
    elif style == "llama":
        body = json.dumps({"name": fname, "parameters": {key: sql}}, ensure_ascii=False)
        reply = f"<|python_tag|>{body}"
    else:
        body = json.dumps({"type": "function", "name": fname, "parameters": {key: sql}}, ensure_ascii=False)
        reply = body
    if rng.random() < 0.4:
        reply = rng.choice(("I'll query the database for this.", "Let me run a query to find out.",
                            "Main database se yeh data nikaalta hoon.")) + "\n\n" + reply
    return reply, f"{style} tool call envelope"


def _k_fence_info_filename(q: _Q) -> tuple[str, str]:
    rng = q.rng
    stem = rng.choice(("query", "report", "answer", "top_results", "analysis"))
    info = rng.choice((f'sql title="{stem}.sql"', f"sql:{stem}.sql", "sql {linenos=true}", "sql showLineNumbers",
                       f"sql filename={stem}.sql", "sql copy", f"{_db_word(q.dialect).lower()} title=\"{stem}\""))
    body = _layout(q.sql, q.dialect, rng.choice((0, 1, 2)))
    pre = rng.choice(_PRE_EN).format(db=_db_word(q.dialect))
    reply = (pre + "\n\n" if pre else "") + f"```{info}\n{body}\n```"
    post = rng.choice(_POST)
    return reply + ("\n\n" + post if post else ""), f"fence info string {info!r}"


def _k_fence_doubled(q: _Q) -> tuple[str, str]:
    rng = q.rng
    body = _layout(q.sql, q.dialect, rng.choice((0, 1, 2)))
    tag = rng.choice(("sql", "sql", _fence_tag(rng, q.dialect) or "sql"))
    shape = rng.choice(("twice", "twice", "empty_then_bare", "closed_open"))
    if shape == "twice":
        block = f"```{tag}\n```{tag}\n{body}\n```"
    elif shape == "empty_then_bare":
        block = f"```{tag}\n```\n{body}\n```"
    else:
        block = f"```{tag}\n\n```\n```{tag}\n{body}\n```"
    pre = rng.choice(_PRE_EN + _PRE_HI).format(db=_db_word(q.dialect))
    return (pre + "\n\n" if pre else "") + block, f"fence opened twice ({shape})"


def _k_dbt_refs(q: _Q) -> tuple[str, str] | None:
    nodes = q.table_nodes()
    if not nodes:
        return None
    rng = q.rng
    use_source = rng.random() < 0.35
    edits = []
    for node, table in nodes:
        start = _span(node.args.get("db")) if node.args.get("db") is not None else None
        this = _span(node.this)
        if this is None:
            return None
        begin = start[0] if start else this[0]
        if use_source:
            src = table.schema if table.schema not in (None, "public", "main") else "app"
            ref = "{{ source('" + src + "', '" + table.name + "') }}"
        else:
            ref = "{{ ref('" + table.name + "') }}"
        if node.alias:
            edits.append((begin, this[1], ref))
        else:
            edits.append((begin, this[1], f"{ref} AS {node.name}"))
    sql = _layout(_edit(q.sql, edits), q.dialect, rng.choice((1, 2)))
    model = rng.choice(("answer", "report", "summary", "analysis"))
    pre = rng.choice((f"Here's a dbt model for this (`models/{model}.sql`):", "As a dbt model:",
                      f"You can drop this into `models/marts/{model}.sql`:",
                      "Aapke dbt project ke liye model kuch aisa hoga:"))
    post = rng.choice(("", "Run it with `dbt run --select " + model + "`.", "Then `dbt build` will materialise it."))
    reply = f"{pre}\n\n```sql\n{sql}\n```" + (f"\n\n{post}" if post else "")
    return reply, "tables as dbt " + ("sources" if use_source else "refs")


def _k_html_pre_block(q: _Q) -> tuple[str, str]:
    rng = q.rng
    body = html.escape(_layout(q.sql, q.dialect, rng.choice((0, 1, 2))), quote=False)
    cls = rng.choice(('class="language-sql"', 'class="sql"', 'class="hljs language-sql"'))
    pre = rng.choice(("<p>Here is the query:</p>", "<p>You can use the following SQL:</p>",
                      "<h3>Query</h3>", "<p>Yeh rahi query:</p>"))
    post = rng.choice(("", "<p>It returns one row per group.</p>", "<p>Let me know if you need anything else.</p>"))
    reply = f"{pre}\n<pre><code {cls}>{body}\n</code></pre>" + (f"\n{post}" if post else "")
    return reply, "reply as HTML, query in <pre><code>"


_HI_NOTES = {
    T.FROM: ("Step 1: pehle table chuno", "चरण 1: सही table लो", "pehle yahan se data lenge"),
    T.JOIN: ("Step 2: dono tables ko join karo", "चरण 2: tables को जोड़ो", "ab join lagao"),
    T.WHERE: ("Step 3: filter lagao", "चरण 3: शर्त लगाओ", "sirf wahi rows jo sawaal mein chahiye"),
    T.GROUP_BY: ("Step 4: group karke ginti karo", "चरण 4: group बनाओ", "har group ka total"),
    T.ORDER_BY: ("Step 5: sort karo", "चरण 5: क्रम से लगाओ", "aakhir mein order set karo"),
    T.LIMIT: ("bas top rows chahiye", "सिर्फ ऊपर की rows",),
}


def _k_hinglish_notes_in_block(q: _Q) -> tuple[str, str] | None:
    rng = q.rng
    laid = _layout(q.sql, q.dialect, rng.choice((1, 2)))
    toks = _tokenize(laid, q.dialect)
    if not toks:
        return None
    edits = []
    for i, t in enumerate(toks):
        kind = T.JOIN if t.token_type in _JOIN_WORDS else t.token_type
        if kind not in _HI_NOTES or i == 0:
            continue
        line_start = laid.rfind("\n", 0, t.start) + 1
        if laid[line_start:t.start].strip():
            continue  # not the first word on its line
        if rng.random() < 0.6:
            edits.append((line_start, line_start, rng.choice(_HI_NOTES[kind]) + "\n"))
    if not edits:
        return None
    body = _edit(laid, edits)
    if rng.random() < 0.5:
        body = rng.choice(("Query ka structure:", "सबसे पहले:", "Dekhiye:")) + "\n" + body
    pre = rng.choice(_PRE_HI)
    reply = f"{pre}\n\n```sql\n{body}\n```\n\n" + rng.choice(("Ummeed hai yeh kaam karega!", "बस इतना ही।", ""))
    return reply.rstrip(), "Hinglish step notes inside the block"


def _k_other_dialect_block_first(q: _Q) -> tuple[str, str] | None:
    nodes = q.table_nodes()
    if not nodes:
        return None
    rng = q.rng
    flavour = rng.choice(("mssql", "mysql"))
    dbname = (getattr(q.schema, "database_id", "") or "").removeprefix("defog_") or "app_db"
    edits = []
    for node, table in nodes:
        db = node.args.get("db")
        start = _span(db)[0] if db is not None and _span(db) else None
        this = _span(node.this)
        if this is None:
            return None
        begin = start if start is not None else this[0]
        ref = f"[dbo].[{table.name}]" if flavour == "mssql" else f"`{dbname}`.`{table.name}`"
        edits.append((begin, this[1], ref if node.alias else f"{ref} AS {node.name}"))
    toks = q.tokens
    depths = _depths(toks)
    if flavour == "mssql":
        for i, t in enumerate(toks):
            if t.token_type == T.LIMIT and depths[i] == 0 and _tt(toks, i + 1) == T.NUMBER and i + 2 >= len(toks) - 1:
                first = next(j for j, u in enumerate(toks) if u.token_type == T.SELECT)
                after = first + 1 if _tt(toks, first + 1) != T.DISTINCT else first + 2
                edits.append((toks[after - 1].end + 1, toks[after - 1].end + 1, f" TOP {toks[i + 1].text}"))
                edits.append((toks[i - 1].end + 1, toks[i + 1].end + 1, ""))
                break
    other = _edit(q.sql, edits)
    name = "SQL Server" if flavour == "mssql" else "MySQL"
    mine = _db_word(q.dialect)
    head = rng.choice((f"Here is the query for {name}:", f"**{name} version:**", f"In {name} you would write:"))
    second = rng.choice((f"And if you are on {mine}:", f"**{mine} version:**", f"{mine} ke liye:"))
    lay = rng.choice((0, 1))
    reply = (f"{head}\n\n```sql\n{_layout(other, q.dialect, lay) if flavour == 'mysql' else other}\n```\n\n"
             f"{second}\n\n```sql\n{_layout(q.sql, q.dialect, lay)}\n```")
    return reply, f"{name} version first"


# =============================================================================================== family B


def _used_columns(q: _Q, table: Any) -> set[str]:
    names = set()
    for col, owner in q.columns():
        if owner is table:
            names.add(col.name.lower())
    return names


def _k_twin_table_swap(q: _Q) -> tuple[str, str] | None:
    options = []
    present = {t.qualified_name.lower() for t in q.ref_tables()}
    for table in q.ref_tables():
        used = _used_columns(q, table)
        mine = {c.name.lower() for c in table.columns}
        for other in q.schema.tables:
            if other.qualified_name.lower() in present or other is table:
                continue
            theirs = {c.name.lower() for c in other.columns}
            shared = mine & theirs
            if not used <= theirs or len(shared) < 2:
                continue
            if other.schema != table.schema and not (other.schema in (None, "public", "main")
                                                     and table.schema in (None, "public", "main")):
                continue
            # the unqualified names must still mean one table: none of them may appear in a second table
            options.append((len(shared) - 0.1 * len(theirs - mine), table, other))
    if not options:
        return None
    options.sort(key=lambda o: -o[0])
    best = [o for o in options if o[0] >= options[0][0] - 1] or options
    _, table, other = q.rng.choice(best)
    edits = _table_rename_edits(q, table, other.name)
    if not edits:
        return None
    return _reply(q, _edit(q.sql, edits)), f"table {table.name} swapped for {other.name}"


_CODES = {"US": ("USA", "United States"), "USA": ("US", "United States"), "CA": ("California", "Canada"),
          "NY": ("New York",), "UK": ("United Kingdom", "GB"), "TX": ("Texas",), "FL": ("Florida",),
          "WA": ("Washington",), "IL": ("Illinois",), "AZ": ("Arizona",), "PA": ("Pennsylvania",),
          "NV": ("Nevada",), "MA": ("Massachusetts",), "GA": ("Georgia",), "OH": ("Ohio",), "NC": ("North Carolina",),
          "MI": ("Michigan",), "CO": ("Colorado",), "IN": ("India", "Indiana"), "DE": ("Germany", "Delaware"),
          "FR": ("France",), "MX": ("Mexico",), "AU": ("Australia",), "BR": ("Brazil",), "JP": ("Japan",)}
_WORD_ABBR = {"mount": "Mt.", "saint": "St.", "street": "St", "avenue": "Ave", "road": "Rd", "north": "N.",
              "south": "S.", "east": "E.", "west": "W.", "international": "Intl", "university": "Univ.",
              "company": "Co.", "corporation": "Corp.", "incorporated": "Inc", "department": "Dept.",
              "association": "Assoc.", "center": "Ctr", "fort": "Ft.", "doctor": "Dr."}
_LONG_NAMES = {"united states": "US", "united kingdom": "UK", "new york": "NYC", "san francisco": "SF",
               "los angeles": "LA", "washington": "WA", "california": "CA", "texas": "TX", "florida": "FL",
               "united states of america": "USA", "computer science": "CS", "machine learning": "ML",
               "artificial intelligence": "AI", "natural language processing": "NLP"}


_WORD_FORMS = {  # the form a model guesses for a value: a demonym for the country, a day or month cut short, ...
    "italian": ("italy",), "mexican": ("mexico",), "chinese": ("china",), "japanese": ("japan",),
    "indian": ("india",), "french": ("france",), "thai": ("thailand",), "korean": ("korea",), "greek": ("greece",),
    "spanish": ("spain",), "vietnamese": ("vietnam",), "american": ("usa", "america"), "vegan": ("vegetarian",),
    "monday": ("mon",), "tuesday": ("tue", "tues"), "wednesday": ("wed",), "thursday": ("thu", "thurs"),
    "friday": ("fri",), "saturday": ("sat",), "sunday": ("sun",), "mon": ("monday",), "tue": ("tuesday",),
    "wed": ("wednesday",), "thu": ("thursday",), "fri": ("friday",), "sat": ("saturday",), "sun": ("sunday",),
    "january": ("jan",), "february": ("feb",), "march": ("mar",), "april": ("apr",), "june": ("jun",),
    "july": ("jul",), "august": ("aug",), "september": ("sep", "sept"), "october": ("oct",), "november": ("nov",),
    "december": ("dec",), "jfk": ("New York",), "lax": ("Los Angeles",), "ord": ("Chicago",),
    "sfo": ("San Francisco",), "atl": ("Atlanta",), "dfw": ("Dallas",), "bos": ("Boston",),
    "success": ("successful", "completed"), "successful": ("success",), "completed": ("complete", "done"),
    "active": ("enabled", "activated"), "inactive": ("disabled",), "unread": ("new", "not_read"),
    "pending": ("in_progress",), "failed": ("failure", "error"), "cash": ("cash_payment",),
    "st": ("Street",), "ave": ("Avenue",), "rd": ("Road",), "cafe": ("coffee shop", "café"),
    "downtown": ("city center", "down town"), "transaction": ("transfer", "payment"),
    "promotion": ("promo",), "sociology": ("social science",), "retail": ("shopping",),
}


def _respell(value: str, rng: random.Random) -> str | None:
    core = value.strip("%")
    lead, trail = value[: len(value) - len(value.lstrip("%"))], value[len(value.rstrip("%")):]
    if not core or not any(ch.isalpha() for ch in core):
        return None
    low = core.lower()
    if core in _CODES or core.upper() in _CODES and len(core) <= 3:
        new = rng.choice(_CODES[core.upper()])
        if core.islower():
            new = new.lower()
    elif low in _LONG_NAMES:
        new = _LONG_NAMES[low]
    elif " " in core:
        words = core.split()
        abbr = [(_WORD_ABBR.get(w.lower()) or _WORD_FORMS.get(w.lower().rstrip("."), (None,))[0], j)
                for j, w in enumerate(words)]
        hits = [(a, j) for a, j in abbr if a]
        if hits:
            a, j = rng.choice(hits)
            words[j] = a if words[j][:1].isupper() else a.lower()
            new = " ".join(words)
        elif len(words) <= 4:
            new = "".join(w[0] for w in words if w[:1].isalpha()).upper()
            if len(new) < 2:
                return None
        else:
            return None
    elif "_" in core:
        new = core.replace("_", rng.choice((" ", "-")))
    elif "-" in core and not core[:1].isdigit():
        new = core.replace("-", rng.choice((" ", "_")))
    elif low in _WORD_ABBR:
        new = _WORD_ABBR[low]
    elif low in _WORD_FORMS:
        new = rng.choice(_WORD_FORMS[low])
        if core[:1].isupper():
            new = new[:1].upper() + new[1:]
        if core.isupper() and len(core) > 3:
            new = new.upper()
    else:
        return None
    if new == core:
        return None
    return lead + new + trail


def _k_literal_abbrev_swap(q: _Q) -> tuple[str, str] | None:
    toks = q.tokens
    options = []
    for i in _compared_strings(q):
        raw = q.text(toks[i])
        if not raw.startswith("'") or "'" in toks[i].text:
            continue
        new = _respell(toks[i].text, q.rng)
        if new is not None and "'" not in new:
            options.append((i, new))
    if not options:
        return None
    i, new = q.rng.choice(options)
    return (_reply(q, _edit(q.sql, [(toks[i].start, toks[i].end + 1, f"'{new}'")])),
            f"'{toks[i].text}' written '{new}'")


_UNIT_RE = re.compile(r"^(\s*[+-]?\s*\d+(?:\.\d+)?\s*)(day|week|month|year|hour)(s?)(\s*)$", re.IGNORECASE)


def _k_interval_unit_swap(q: _Q) -> tuple[str, str] | None:
    toks = q.tokens
    options = []
    for i, t in enumerate(toks):
        if t.token_type != T.STRING:
            continue
        m = _UNIT_RE.match(t.text)
        if not m:
            continue
        if q.dialect == "sqlite":
            if _tt(toks, i - 1) != T.COMMA:
                continue
            units = ("day", "month", "year")
        else:
            if _tt(toks, i - 1) != T.INTERVAL:
                continue
            units = ("day", "week", "month", "year")
        unit = m.group(2).lower()
        if unit not in units:
            continue
        pick = {"day": ("month", "week", "year"), "week": ("day", "month"), "month": ("day", "week", "year"),
                "year": ("month", "day"), "hour": ("day",)}[unit]
        pick = tuple(u for u in pick if u in units) or ("month",)
        new_unit = q.rng.choice(pick)
        plural = m.group(3) or ("s" if q.dialect == "sqlite" else "")
        new_unit = new_unit.upper() if m.group(2).isupper() else new_unit
        options.append((i, m.group(1) + new_unit + plural + m.group(4)))
    if not options:
        return None
    i, new = q.rng.choice(options)
    return (_reply(q, _edit(q.sql, [(toks[i].start, toks[i].end + 1, f"'{new}'")])),
            f"'{toks[i].text}' written '{new}'")


_PG_FMT = (("YYYY-MM-DD", "YYYY-MM-DD HH:MI"), ("YYYY-MM", "YYYY-MI"), ("MM", "MI"), ("Mon", "Dy"), ("YYYY", "YY"))
_LITE_FMT = (("%Y-%m-%d", "%Y-%d-%m"), ("%Y-%m", "%Y-%M"), ("%m", "%M"), ("%w", "%d"), ("%W", "%w"), ("%Y", "%y"))


def _k_date_part_confusion(q: _Q) -> tuple[str, str] | None:
    toks = q.tokens
    options: list[tuple[list[tuple[int, int, str]], str]] = []
    for i, t in enumerate(toks[:-3]):
        name = t.text.upper()
        if _tt(toks, i + 1) != T.L_PAREN:
            continue
        if name == "DATE_TRUNC" and toks[i + 2].token_type == T.STRING and toks[i + 3].token_type == T.COMMA:
            unit = toks[i + 2].text.lower()
            arg = toks[i + 4] if i + 4 < len(toks) else None
            if unit in ("month", "week", "quarter", "day") and arg is not None and arg.token_type in (T.VAR,):
                options.append(([(t.start, toks[i + 3].end + 1, f"EXTRACT({unit.upper()} FROM")],
                                 f"DATE_TRUNC('{unit}') as EXTRACT({unit.upper()})"))
        elif name == "EXTRACT" and toks[i + 2].text.upper() in ("DOW", "ISODOW", "DOY"):
            part = toks[i + 2]
            options.append(([(part.start, part.end + 1, "DAY")], f"EXTRACT({part.text.upper()}) as DAY"))
        elif name == "DATE_PART" and toks[i + 2].token_type == T.STRING \
                and toks[i + 2].text.lower() in ("dow", "isodow", "doy"):
            part = toks[i + 2]
            options.append(([(part.start, part.end + 1, "'day'")], f"DATE_PART('{part.text}') as 'day'"))
        elif name == "TO_CHAR":
            close = _match_paren(toks, i + 1)
            fmt = toks[close - 1] if close else None
            if fmt is not None and fmt.token_type == T.STRING:
                for old, new in _PG_FMT:
                    if old in fmt.text:
                        options.append(([(fmt.start, fmt.end + 1, "'" + fmt.text.replace(old, new, 1) + "'")],
                                        f"TO_CHAR format {old} as {new}"))
                        break
        elif name == "STRFTIME" and toks[i + 2].token_type == T.STRING:
            fmt = toks[i + 2]
            for old, new in _LITE_FMT:
                if old in fmt.text:
                    options.append(([(fmt.start, fmt.end + 1, "'" + fmt.text.replace(old, new, 1) + "'")],
                                    f"strftime {old} as {new}"))
                    break
    if not options:
        return None
    edits, note = q.rng.choice(options)
    return _reply(q, _edit(q.sql, edits)), note


def _operand_start(toks: list[Any], j: int) -> int:
    """Index of the first token of the column reference ending at token ``j`` (``a``, ``t.a``, ``s.t.a``)."""
    while j >= 2 and toks[j - 1].token_type == T.DOT:
        j -= 2
    return j


_CLAUSE_END = {T.HAVING, T.ORDER_BY, T.LIMIT, T.UNION, T.SEMICOLON, T.WINDOW, T.OFFSET, T.EXCEPT, T.INTERSECT}


def _split_items(toks: list[Any], depths: list[int], lo: int, hi: int, depth: int) -> list[tuple[int, int]]:
    """Comma-separated items between token ``lo`` and ``hi`` (exclusive) at ``depth``: (first, last) indices."""
    items, start = [], lo
    for k in range(lo, hi):
        if toks[k].token_type == T.COMMA and depths[k] == depth:
            items.append((start, k - 1))
            start = k + 1
    if start < hi:
        items.append((start, hi - 1))
    return [it for it in items if it[0] <= it[1]]


def _norm(text: str) -> str:
    return re.sub(r"\s+", "", text).lower()


def _k_group_key_coarsened(q: _Q) -> tuple[str, str] | None:
    toks = q.tokens
    depths = _depths(toks)
    options = []
    for g, tok in enumerate(toks):
        if tok.token_type != T.GROUP_BY:
            continue
        d = depths[g]
        end = g + 1
        while end < len(toks) and not (depths[end] < d or (depths[end] == d and toks[end].token_type in _CLAUSE_END)):
            end += 1
        keys = _split_items(toks, depths, g + 1, end, d)
        if len(keys) < 2:
            continue
        s = g - 1
        while s >= 0 and not (toks[s].token_type == T.SELECT and depths[s] == d):
            if depths[s] < d:
                s = -1
                break
            s -= 1
        if s < 0:
            continue
        f = s + 1
        while f < g and not (toks[f].token_type == T.FROM and depths[f] == d):
            f += 1
        first = s + 1 + (toks[s + 1].token_type == T.DISTINCT)
        items = _split_items(toks, depths, first, f, d)
        rest = _norm(q.sql[toks[end].start:]) if end < len(toks) else ""
        for kf, kl in keys:
            if toks[kf].token_type == T.NUMBER:
                continue
            key = _norm(q.sql[toks[kf].start : toks[kl].end + 1])
            if key in rest:
                continue
            for itf, itl in items:
                alias_at = next((k for k in range(itf, itl + 1) if toks[k].token_type == T.ALIAS and depths[k] == d),
                                None)
                expr_end = alias_at - 1 if alias_at is not None else itl
                if _norm(q.sql[toks[itf].start : toks[expr_end].end + 1]) != key:
                    continue
                if alias_at is not None and _norm(toks[itl].text) in rest:
                    continue
                if len(items) < 2:
                    continue
                options.append((itf, itl, kf, kl, items, keys, key))
    if not options:
        return None
    itf, itl, kf, kl, items, keys, key = q.rng.choice(options)

    def cut(first: int, last: int, group: list[tuple[int, int]]) -> tuple[int, int]:
        pos = group.index((first, last))
        if pos + 1 < len(group):
            return toks[first].start, toks[group[pos + 1][0]].start
        prev_last = group[pos - 1][1]
        return toks[prev_last].end + 1, toks[last].end + 1

    a, b = cut(itf, itl, items), cut(kf, kl, keys)
    return _reply(q, _edit(q.sql, [(a[0], a[1], ""), (b[0], b[1], "")])), f"grouping key {key} dropped"


def _k_date_unit_slip(q: _Q) -> tuple[str, str] | None:
    found = [r for r in (_k_interval_unit_swap(q), _k_date_part_confusion(q)) if r is not None]
    return q.rng.choice(found) if found else None


_AGGS = {"COUNT", "SUM", "AVG", "MIN", "MAX"}


_FLOAT_TYPES = ("REAL", "FLOAT", "DOUBLE", "DECIMAL", "NUMERIC", "FLOAT8", "FLOAT4")


def _k_cast_to_integer(q: _Q) -> tuple[str, str] | None:
    toks = q.tokens
    options = []
    for i, t in enumerate(toks):
        if t.text.upper() == "CAST" and _tt(toks, i + 1) == T.L_PAREN:
            close = _match_paren(toks, i + 1)
            if close is None:
                continue
            depths = _depths(toks[i + 1 : close + 1])
            as_at = next((i + 1 + k for k, u in enumerate(toks[i + 1 : close]) if u.token_type == T.ALIAS
                          and depths[k] == 1), None)
            if as_at is None or as_at + 1 >= close:
                continue
            if toks[as_at + 1].text.upper() in _FLOAT_TYPES:
                word = "INTEGER" if q.rng.random() < 0.6 else "INT"
                options.append((toks[as_at + 1].start, toks[close - 1].end + 1, word, "CAST to integer"))
        elif t.token_type == T.DCOLON and i + 1 < len(toks) and toks[i + 1].text.upper() in _FLOAT_TYPES:
            end = i + 1
            while end + 1 < len(toks) and toks[end + 1].text.upper() in ("PRECISION",):
                end += 1
            if _tt(toks, end + 1) == T.L_PAREN:
                end = _match_paren(toks, end + 1) or end
            options.append((toks[i + 1].start, toks[end].end + 1, "int", "::float written ::int"))
        elif t.token_type == T.NUMBER and t.text in ("1.0", "100.0", "1.00") and (
                _tt(toks, i - 1) == T.STAR or _tt(toks, i + 1) == T.STAR):
            options.append((t.start, t.end + 1, t.text.split(".")[0], f"{t.text} written as an integer"))
    if not options:
        return None
    start, end, new, note = q.rng.choice(options)
    return _reply(q, _edit(q.sql, [(start, end, new)])), note


def _k_count_wrong_entity(q: _Q) -> tuple[str, str] | None:
    toks = q.tokens
    nodes = q.table_nodes()
    several = len(nodes) > 1
    ids = []
    for node, table in nodes:
        keys = {c.lower() for c in table.primary_key}
        fks = {c.lower() for fk in table.foreign_keys for c in fk.columns}
        for col in table.columns:
            low = col.name.lower()
            if low in keys:
                continue
            if low in fks or (low.endswith("_id") or (low.endswith("id") and len(low) <= 4)):
                ids.append((node.alias_or_name if several or node.alias else None, col.name))
    if not ids:
        return None
    options = []
    for i in range(len(toks) - 2):
        if toks[i].text.upper() != "COUNT" or toks[i + 1].token_type != T.L_PAREN or _tt(toks, i - 1) == T.DOT:
            continue
        close = _match_paren(toks, i + 1)
        if close is None:
            continue
        if close == i + 2:
            continue
        arg = q.sql[toks[i + 2].start : toks[close - 1].end + 1]
        first = i + 2 + (toks[i + 2].token_type == T.DISTINCT)
        if not (close == first + 1 and toks[first].token_type == T.STAR) and _column_ref_at(toks, first) != close - 1:
            continue  # only COUNT(*), COUNT(col), COUNT(DISTINCT col): a CASE inside is another question
        inner = _norm(arg)
        for owner, col in ids:
            ref = f"{owner}.{col}" if owner else col
            if _norm(ref) in inner:
                continue
            options.append((toks[i + 2].start, toks[close - 1].end + 1, f"DISTINCT {ref}", arg, ref))
    if not options:
        return None
    start, end, new, old, ref = q.rng.choice(options)
    return _reply(q, _edit(q.sql, [(start, end, new)])), f"COUNT({old}) counts distinct {ref} instead"


def _k_top_one_only(q: _Q) -> tuple[str, str] | None:
    toks = q.tokens
    depths = _depths(toks)
    top = {toks[i].token_type for i in range(len(toks)) if depths[i] == 0}
    if T.LIMIT in top or T.UNION in top or T.FETCH in top or T.ORDER_BY not in top:
        return None
    n = q.rng.choice((1, 1, 1, 3))
    body = q.sql.rstrip()
    semi = body.endswith(";")
    body = body.rstrip(";").rstrip()
    word = "LIMIT" if q.sql.lstrip()[:1].isupper() else "limit"
    body += q.rng.choice((" ", "\n")) + f"{word} {n}" + (";" if semi else "")
    return _reply(q, body), f"LIMIT {n} added: only the top row(s) of an ordered list"


def _k_null_test_as_equality(q: _Q) -> tuple[str, str] | None:
    toks = q.tokens
    options = []
    depths = _depths(toks)
    for i, t in enumerate(toks):
        if t.token_type != T.IS:
            continue
        clause = next((toks[k].token_type for k in range(i - 1, -1, -1) if depths[k] <= depths[i]
                       and toks[k].token_type in (T.WHERE, T.ON, T.HAVING, T.ORDER_BY, T.SELECT, T.GROUP_BY,
                                                  T.CASE)), None)
        if clause not in (T.WHERE, T.ON, T.HAVING):
            continue  # a NULLS-LAST emulation in ORDER BY, a CASE label: the slip would change nothing
        if _tt(toks, i + 1) == T.NULL:
            options.append((t.start, t.end + 1, "=", "IS NULL written = NULL"))
        elif _tt(toks, i + 1) == T.NOT and _tt(toks, i + 2) == T.NULL:
            new = q.rng.choice(("!=", "<>"))
            options.append((t.start, toks[i + 1].end + 1, new, f"IS NOT NULL written {new} NULL"))
    if not options:
        return None
    start, end, new, note = q.rng.choice(options)
    return _reply(q, _edit(q.sql, [(start, end, new)])), note


_ARITH = {T.STAR, T.SLASH, T.MOD, T.DASH, T.PLUS, T.DPIPE}


def _operand_left(toks: list[Any], j: int) -> int | None:
    """Start index of the operand ending at token ``j``: a column, a function call, a bracket or CURRENT_DATE."""
    tt = toks[j].token_type
    if tt in (T.CURRENT_DATE, T.CURRENT_TIMESTAMP):
        return j
    if tt in (T.VAR, T.IDENTIFIER):
        return _operand_start(toks, j)
    if tt == T.R_PAREN:
        depth = 0
        for k in range(j, -1, -1):
            if toks[k].token_type == T.R_PAREN:
                depth += 1
            elif toks[k].token_type == T.L_PAREN:
                depth -= 1
                if depth == 0:
                    if k >= 1 and toks[k - 1].token_type in (T.VAR, T.DATE, T.DATETIME, T.TIMESTAMP):
                        return k - 1
                    return k
    return None


def _operand_right(toks: list[Any], j: int) -> int | None:
    """End index of the operand starting at token ``j``."""
    if j >= len(toks):
        return None
    tt = toks[j].token_type
    if tt in (T.CURRENT_DATE, T.CURRENT_TIMESTAMP):
        return j
    if tt in (T.VAR, T.IDENTIFIER, T.DATE, T.DATETIME, T.TIMESTAMP):
        if _tt(toks, j + 1) == T.L_PAREN:
            return _match_paren(toks, j + 1)
        if tt in (T.VAR, T.IDENTIFIER):
            return _column_ref_at(toks, j)
        return None
    if tt == T.L_PAREN:
        return _match_paren(toks, j)
    return None


def _k_difference_reversed(q: _Q) -> tuple[str, str] | None:
    toks = q.tokens
    options = []
    for i, t in enumerate(toks):
        if t.token_type != T.DASH or i == 0 or _tt(toks, i + 1) == T.INTERVAL:
            continue
        ls = _operand_left(toks, i - 1)
        rend = _operand_right(toks, i + 1)
        if ls is None or rend is None:
            continue
        if _tt(toks, ls - 1) in _ARITH or _tt(toks, rend + 1) in _ARITH or _tt(toks, rend + 1) == T.INTERVAL:
            continue
        left = q.sql[toks[ls].start : toks[i - 1].end + 1]
        right = q.sql[toks[i + 1].start : toks[rend].end + 1]
        if _norm(left) == _norm(right) or re.fullmatch(r"[\d.]+", right):
            continue
        options.append(([(toks[ls].start, toks[i - 1].end + 1, right), (toks[i + 1].start, toks[rend].end + 1, left)],
                        f"{left} - {right} reversed"))
    if not options:
        return None
    edits, note = q.rng.choice(options)
    return _reply(q, _edit(q.sql, edits)), note

def _column_ref_at(toks: list[Any], i: int) -> int | None:
    """When a column reference (``a``, ``t.a``) starts at token ``i``: the index of its last token."""
    if i >= len(toks) or toks[i].token_type not in (T.VAR, T.IDENTIFIER):
        return None
    j = i
    while j + 2 < len(toks) and toks[j + 1].token_type == T.DOT and toks[j + 2].token_type in (T.VAR, T.IDENTIFIER):
        j += 2
    if _tt(toks, j + 1) == T.L_PAREN:
        return None
    return j


def _k_join_on_tautology(q: _Q) -> tuple[str, str] | None:
    toks = q.tokens
    options = []
    for i, t in enumerate(toks):
        if t.token_type not in (T.ON, T.AND):
            continue
        if t.token_type == T.AND and not any(toks[k].token_type == T.ON for k in range(max(0, i - 12), i)):
            continue
        a_end = _column_ref_at(toks, i + 1)
        if a_end is None or _tt(toks, a_end + 1) != T.EQ:
            continue
        b_end = _column_ref_at(toks, a_end + 2)
        if b_end is None:
            continue
        left = q.sql[toks[i + 1].start : toks[a_end].end + 1]
        right_span = (toks[a_end + 2].start, toks[b_end].end + 1)
        right = q.sql[right_span[0] : right_span[1]]
        if _norm(left) == _norm(right):
            continue
        side = q.rng.random() < 0.5
        if side:
            options.append(([(right_span[0], right_span[1], left)], f"ON {left} = {left}"))
        else:
            options.append(([(toks[i + 1].start, toks[a_end].end + 1, right)], f"ON {right} = {right}"))
    if not options:
        return None
    edits, note = q.rng.choice(options)
    return _reply(q, _edit(q.sql, edits)), note


# ----------------------------------------------------------------------------------------------- dispatch

_KINDS: dict[str, Callable[[_Q], tuple[str, str] | None]] = {
    kind: globals()["_k_" + kind] for kind in DAMAGE_KINDS
}
assert set(_KINDS) == set(DAMAGE_KINDS)


def _as_run(reply: str) -> str:
    """What a plain tool runs of the reply: the first fenced block if there is one, else the whole text."""
    if "```" not in reply:
        return reply
    inner = reply.split("```", 2)[1]
    first, _, rest = inner.partition("\n")
    return rest if first.strip().isalpha() or not first.strip() else inner


def damage(gold_sql: str, schema: Any, kind: str, seed: int) -> Damaged | None:
    """The whole reply a model might send for ``gold_sql`` damaged in ``kind``, or None where it does not apply."""
    try:
        func = _KINDS.get(kind)
        if func is None or not gold_sql or not gold_sql.strip():
            return None
        rng = random.Random(f"fresh15|{kind}|{seed}|{gold_sql}")
        q = _Q(gold_sql, schema, rng)
        if kind != "clean" and not q.tokens:
            return None
        out = func(q)
        if out is None:
            return None
        reply, note = out
        same = _norm(_as_run(reply)).rstrip(";") == _norm(q.sql).rstrip(";")
        if kind != "clean" and kind not in _KEEPS_GOLD and same:
            return None  # the damage did not land
        return Damaged(kind, reply, note)
    except Exception:  # noqa: BLE001 - a generator never raises
        return None


# kinds whose reply legitimately contains the gold text verbatim (the damage is around it)
_KEEPS_GOLD = frozenset({"tool_call_json", "fence_info_filename", "fence_doubled", "other_dialect_block_first",
                         "html_pre_block", "newline_glued", "nbsp_spacing",
                         "jupyter_sql_magic"})
