"""Held-out damage generator ``fresh21``: damaged model replies made from gold queries by text edits.

Written without reading Cairn's repair, check or extraction code. Every kind is a text edit of the gold query (or
of the reply around it) at positions found with sqlglot's tokenizer and parse tree; nothing is re-rendered from a
tree. ``damage`` returns None where a kind does not apply, where the edit leaves the SQL unchanged, or on any error.

Family A: the reply as written fails, or its SQL is hard to find.
Family B: the SQL runs and answers a different question.

| kind                                 | fam | what the reply does                                                             |
|--------------------------------------|-----|---------------------------------------------------------------------------------|
| clean                                | -   | the gold query, fenced, in an ordinary reply                                    |
| qualify_topn                         | A   | ORDER BY .. LIMIT n written as Snowflake/Teradata QUALIFY ROW_NUMBER() <= n     |
| approx_count_distinct                | A   | COUNT(DISTINCT x) written as the warehouse APPROX_COUNT_DISTINCT(x)             |
| ruby_heredoc                         | A   | the query inside a Rails select_all(<<~SQL ... SQL) heredoc in a ruby block     |
| rust_sqlx_raw_string                 | A   | the query inside sqlx::query(r#"..."#) in a rust block                          |
| php_pdo_query                        | A   | the query in a double-quoted PHP string passed to $pdo->query() in a php block  |
| room_dao_annotation                  | A   | the query inside an Android Room @Query("...") annotation in a kotlin block     |
| autolinked_dotted_names              | A   | qualified names like author.name turned into markdown links by a linkifier      |
| contains_for_like                    | A   | LIKE '%v%' written as the full-text CONTAINS(col, 'v')                          |
| escaped_backtick_fence               | A   | the fence written with backslash-escaped backticks (\\`\\`\\`sql)                  |
| statement_as_derived_table           | A   | the whole statement wrapped as a derived table: (SELECT ...) AS result          |
| metabase_optional_clause             | A   | WHERE conditions wrapped in Metabase optional-clause brackets [[AND ...]]       |
| liquid_highlight_tag                 | A   | the query in a Jekyll/Liquid {% highlight sql %} ... {% endhighlight %} block    |
| comment_dashes_typographic           | A   | SQL comments written with typographic dashes (– / —) instead of --              |
| single_backtick_block                | A   | the multi-line query wrapped in single backticks, no fence                      |
| case_closed_with_end_case            | A   | CASE expressions closed with the procedural END CASE                            |
| clause_keywords_snake_case           | A   | GROUP BY / ORDER BY written as ORM-style GROUP_BY / ORDER_BY                    |
| index_advice_first                   | A   | a CREATE INDEX suggestion in the first code block, the query in the second      |
| simple_case_with_operator            | A   | searched CASE written as a simple CASE with an operator: CASE x WHEN > 4        |
| copy_code_label_leak                 | A   | a scraped chat UI label "sqlCopy code" left in front of the query               |
| literal_with_question_noun           | B   | the question's noun glued to a filter value: '%Italian food%'                   |
| list_collapsed_to_count              | B   | a "which ..." list answered with a single COUNT of the rows                     |
| topn_correlated_count_off_by_one     | B   | top-N as "count of better rows <= N" (should be < N): one row too many          |
| anti_join_null_wrong_side            | B   | LEFT JOIN anti-join tests the kept table's key for NULL (never true)            |
| weekday_numbering_slip               | B   | day-of-week codes read as ISO (Sunday = 7): weekend 0, 6 becomes 7, 6           |
| window_order_dropped                 | B   | ORDER BY left out of a window's OVER (...), so the rank/row number is arbitrary |
| where_filter_as_conditional_aggregate| B   | the WHERE filter moved inside the aggregates, so empty groups stay in           |
| per_relation_inverted                | B   | "X per Y" read as "Y per X": group key and counted column swapped               |
| name_filter_as_guessed_id            | B   | a filter on a name replaced by a guessed surrogate id (= 1)                     |
| ungrouped_column_wrapped_in_max      | B   | a grouping column "fixed" with MAX() and dropped from GROUP BY: coarser groups  |
| month_number_for_calendar_month      | B   | calendar month (DATE_TRUNC / %Y-%m) computed as the month number, years merged  |
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.tokens import TokenType as T

DAMAGE_KINDS: tuple[str, ...] = (
    "clean",
    # family A
    "qualify_topn",
    "approx_count_distinct",
    "ruby_heredoc",
    "rust_sqlx_raw_string",
    "php_pdo_query",
    "room_dao_annotation",
    "autolinked_dotted_names",
    "contains_for_like",
    "escaped_backtick_fence",
    "statement_as_derived_table",
    "metabase_optional_clause",
    "liquid_highlight_tag",
    "comment_dashes_typographic",
    "single_backtick_block",
    "case_closed_with_end_case",
    "clause_keywords_snake_case",
    "index_advice_first",
    "simple_case_with_operator",
    "copy_code_label_leak",
    # family B
    "literal_with_question_noun",
    "list_collapsed_to_count",
    "topn_correlated_count_off_by_one",
    "anti_join_null_wrong_side",
    "weekday_numbering_slip",
    "window_order_dropped",
    "where_filter_as_conditional_aggregate",
    "per_relation_inverted",
    "name_filter_as_guessed_id",
    "ungrouped_column_wrapped_in_max",
    "month_number_for_calendar_month",
)
TREE_KINDS: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Damaged:
    kind: str
    reply: str
    note: str


# ----------------------------------------------------------------------------------------------------------------
# token helpers

_IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")
_STRUCT = {
    T.SELECT, T.FROM, T.WHERE, T.GROUP_BY, T.ORDER_BY, T.HAVING, T.LIMIT, T.OFFSET, T.JOIN, T.LEFT, T.RIGHT,
    T.INNER, T.FULL, T.CROSS, T.OUTER, T.ON, T.USING, T.AND, T.OR, T.NOT, T.IN, T.IS, T.NULL, T.LIKE, T.ILIKE,
    T.BETWEEN, T.CASE, T.WHEN, T.THEN, T.ELSE, T.END, T.ALIAS, T.DISTINCT, T.UNION, T.EXCEPT, T.INTERSECT,
    T.WITH, T.OVER, T.ASC, T.DESC, T.STRING, T.NUMBER, T.DOT, T.COMMA, T.L_PAREN, T.R_PAREN, T.STAR,
    T.EQ, T.NEQ, T.GT, T.LT, T.GTE, T.LTE, T.SEMICOLON, T.PARTITION_BY,
}
_AGGS = {"COUNT", "SUM", "AVG", "MIN", "MAX"}
_CLAUSE_END = {T.GROUP_BY, T.ORDER_BY, T.HAVING, T.LIMIT, T.OFFSET, T.UNION, T.EXCEPT, T.INTERSECT, T.WINDOW,
               T.QUALIFY, T.FETCH, T.SEMICOLON}


class _Ctx:
    def __init__(self, gold_sql: str, schema: Any) -> None:
        sql = gold_sql.strip()
        while sql.endswith(";"):
            sql = sql[:-1].rstrip()
        self.sql = sql
        self.schema = schema
        dialect = getattr(schema, "dialect", None) or "postgres"
        try:
            self.toks = list(sqlglot.Dialect.get_or_raise(dialect).tokenize(sql))
            self.dialect = dialect
        except Exception:  # noqa: BLE001
            self.toks = list(sqlglot.Dialect.get_or_raise("postgres").tokenize(sql))
            self.dialect = "postgres"
        self.depth: list[int] = []
        d = 0
        for t in self.toks:
            if t.token_type == T.R_PAREN:
                d -= 1
            self.depth.append(d)
            if t.token_type == T.L_PAREN:
                d += 1
        self._tree: Any = None
        self._aliases: dict[str, str] | None = None

    # -- parsing --------------------------------------------------------------------------------------------------
    @property
    def tree(self) -> Any:
        if self._tree is None:
            read = self.dialect if self.dialect in ("postgres", "sqlite", "duckdb", "mysql") else "postgres"
            self._tree = sqlglot.parse_one(self.sql, read=read)
        return self._tree

    @property
    def aliases(self) -> dict[str, str]:
        """alias (lower) -> table name, and table name (lower) -> table name."""
        if self._aliases is None:
            out: dict[str, str] = {}
            try:
                for t in self.tree.find_all(exp.Table):
                    out.setdefault(t.name.lower(), t.name)
                    if t.alias:
                        out[t.alias.lower()] = t.name
            except Exception:  # noqa: BLE001
                pass
            self._aliases = out
        return self._aliases

    def table_of(self, qualifier: str | None) -> Any:
        """The schema table a qualifier names, or the only table of the query when unqualified."""
        if qualifier:
            name = self.aliases.get(qualifier.lower(), qualifier)
            return self.schema.table(name) if self.schema is not None else None
        names = {v.lower() for v in self.aliases.values()}
        if len(names) == 1 and self.schema is not None:
            return self.schema.table(next(iter(names)))
        return None

    # -- token positions ------------------------------------------------------------------------------------------
    def text(self, i: int, j: int) -> str:
        """Source text from token i through token j (inclusive)."""
        return self.sql[self.toks[i].start:self.toks[j].end + 1]

    def match(self, i: int) -> int:
        """Index of the R_PAREN closing the L_PAREN at i."""
        d = self.depth[i]
        for k in range(i + 1, len(self.toks)):
            if self.toks[k].token_type == T.R_PAREN and self.depth[k] == d:
                return k
        raise ValueError("unbalanced")

    def is_ident(self, i: int) -> bool:
        if i < 0 or i >= len(self.toks):
            return False
        t = self.toks[i]
        if t.token_type == T.IDENTIFIER:
            return True
        if t.token_type in _STRUCT:
            return i > 0 and self.toks[i - 1].token_type == T.DOT and bool(_IDENT_RE.match(t.text))
        return bool(_IDENT_RE.match(t.text))

    def colref_back(self, j: int) -> tuple[int, int] | None:
        """(start, end) token indices of a column reference ending at token j (a, t.a, s.t.a)."""
        if not self.is_ident(j):
            return None
        if j + 1 < len(self.toks) and self.toks[j + 1].token_type == T.L_PAREN:
            return None
        s = j
        while s - 2 >= 0 and self.toks[s - 1].token_type == T.DOT and self.is_ident(s - 2):
            s -= 2
        return s, j

    def colref_fwd(self, i: int) -> tuple[int, int] | None:
        """(start, end) token indices of a column reference starting at token i."""
        if not self.is_ident(i):
            return None
        e = i
        while e + 2 < len(self.toks) and self.toks[e + 1].token_type == T.DOT and self.is_ident(e + 2):
            e += 2
        if e + 1 < len(self.toks) and self.toks[e + 1].token_type == T.L_PAREN:
            return None
        return i, e

    def split_ref(self, s: int, e: int) -> tuple[str | None, str]:
        parts = [self.toks[k].text for k in range(s, e + 1, 2)]
        return (parts[-2] if len(parts) > 1 else None), parts[-1]

    def find0(self, types: set[Any], start: int = 0, end: int | None = None, depth: int = 0) -> int | None:
        for k in range(start, len(self.toks) if end is None else end):
            if self.toks[k].token_type in types and self.depth[k] == depth:
                return k
        return None

    def main_select(self) -> int | None:
        """Index of the outer SELECT (depth 0, single, no set operation)."""
        sels = [k for k, t in enumerate(self.toks) if t.token_type == T.SELECT and self.depth[k] == 0]
        if len(sels) != 1:
            return None
        if self.find0({T.UNION, T.EXCEPT, T.INTERSECT}) is not None:
            return None
        return sels[0]

    def split_commas(self, a: int, b: int) -> list[tuple[int, int]]:
        """Token ranges [a, b) split on commas at the depth of token a."""
        if a >= b:
            return []
        d = self.depth[a]
        out, cur = [], a
        for k in range(a, b):
            if self.toks[k].token_type == T.COMMA and self.depth[k] == d:
                out.append((cur, k - 1))
                cur = k + 1
        out.append((cur, b - 1))
        return [(x, y) for x, y in out if x <= y]

    def clause_end(self, start: int, depth: int) -> int:
        """Token index where a clause starting after `start` (at `depth`) ends (exclusive)."""
        for k in range(start + 1, len(self.toks)):
            t = self.toks[k]
            if self.depth[k] < depth:
                return k
            if self.depth[k] == depth and t.token_type in _CLAUSE_END:
                return k
        return len(self.toks)


def _edit(sql: str, edits: list[tuple[int, int, str]]) -> str:
    """Apply (start, end_exclusive, text) edits (non-overlapping)."""
    for s, e, new in sorted(edits, key=lambda x: x[0], reverse=True):
        sql = sql[:s] + new + sql[e:]
    return sql


def _norm(sql: str) -> str:
    return re.sub(r"\s+", " ", sql).strip().rstrip(";").strip()


# ----------------------------------------------------------------------------------------------------------------
# reply layout

_BREAK = {T.FROM, T.WHERE, T.GROUP_BY, T.HAVING, T.ORDER_BY, T.LIMIT, T.UNION, T.QUALIFY}
_JOINS = {T.JOIN, T.LEFT, T.RIGHT, T.INNER, T.FULL, T.CROSS}


def _pretty(sql: str, dialect: str = "postgres") -> str:
    """Line breaks before the outer clauses (whitespace-only change)."""
    try:
        c = _Ctx(sql, _Dialect(dialect))
    except Exception:  # noqa: BLE001
        return sql
    cuts = []
    for k, t in enumerate(c.toks):
        if k == 0 or c.depth[k] != 0:
            continue
        tt = t.token_type
        if tt in _BREAK or (tt == T.SELECT and c.toks[k - 1].token_type == T.R_PAREN):
            cuts.append(t.start)
        elif tt in _JOINS and c.toks[k - 1].token_type not in _JOINS | {T.OUTER, T.NATURAL}:
            cuts.append(t.start)
    out = sql
    for pos in sorted(cuts, reverse=True):
        head = out[:pos].rstrip()
        out = head + "\n" + out[pos:]
    return out


class _Dialect:
    def __init__(self, dialect: str) -> None:
        self.dialect = dialect

    def table(self, name: str) -> None:  # noqa: ARG002
        return None


_INTROS = (
    "Here is the SQL query:",
    "You can use the following query:",
    "Sure! This query should give you the answer:",
    "The following SQL answers the question:",
    "Here's a query that does this:",
)
_OUTROS = (
    "This query returns the requested rows.",
    "Let me know if you need any changes.",
    "The query joins the relevant tables and applies the filters from the question.",
    "",
)


def _fenced(sql: str, rng: random.Random, tag: str = "sql") -> str:
    outro = rng.choice(_OUTROS)
    return f"{rng.choice(_INTROS)}\n\n```{tag}\n{sql}\n```" + (f"\n\n{outro}" if outro else "")


def _indent(sql: str, pad: str) -> str:
    return "\n".join(pad + line for line in sql.splitlines())


# ----------------------------------------------------------------------------------------------------------------
# family A

def k_clean(c: _Ctx, rng: random.Random) -> tuple[str, str, str | None]:
    body = _pretty(c.sql, c.dialect) if rng.random() < 0.5 else c.sql
    return _fenced(body, rng), "gold query", None


def k_qualify_topn(c: _Ctx, rng: random.Random) -> Any:
    ob = c.find0({T.ORDER_BY})
    lim = c.find0({T.LIMIT}, start=ob + 1) if ob is not None else None
    if ob is None or lim is None or lim + 2 != len(c.toks) or c.toks[lim + 1].token_type != T.NUMBER:
        return None
    keys = c.sql[c.toks[ob].end + 1:c.toks[lim].start].strip()
    n = c.toks[lim + 1].text
    new = f"QUALIFY ROW_NUMBER() OVER (ORDER BY {keys}) <= {n}"
    if rng.random() < 0.5:
        new += f"\nORDER BY {keys}"
    sql = c.sql[:c.toks[ob].start].rstrip() + "\n" + new
    return _fenced(sql, rng), "top-N written with QUALIFY ROW_NUMBER()", sql


def k_approx_count_distinct(c: _Ctx, rng: random.Random) -> Any:
    name = rng.choice(("APPROX_COUNT_DISTINCT", "APPROX_COUNT_DISTINCT", "APPROX_DISTINCT"))
    edits = []
    for i, t in enumerate(c.toks[:-2]):
        if (t.text.upper() == "COUNT" and c.toks[i + 1].token_type == T.L_PAREN
                and c.toks[i + 2].token_type == T.DISTINCT):
            nxt = c.toks[i + 3].start
            edits.append((t.start, nxt, f"{name}("))
    if not edits:
        return None
    sql = _edit(c.sql, edits)
    return _fenced(_pretty(sql, c.dialect), rng), f"COUNT(DISTINCT) as {name}", sql


def k_ruby_heredoc(c: _Ctx, rng: random.Random) -> Any:
    call = rng.choice(("select_all", "exec_query", "execute"))
    var = rng.choice(("rows", "result", "records"))
    body = _indent(_pretty(c.sql, c.dialect), "  ")
    code = (f"{var} = ActiveRecord::Base.connection.{call}(<<~SQL)\n{body}\nSQL\n\n"
            f"{var}.each {{ |row| puts row.inspect }}")
    reply = (f"You can run the query from your Rails app like this:\n\n```ruby\n{code}\n```\n\n"
             "The heredoc keeps the SQL readable.")
    return reply, "query inside a Rails heredoc", None


def k_rust_sqlx_raw_string(c: _Ctx, rng: random.Random) -> Any:
    body = _pretty(c.sql, c.dialect)
    fetch = rng.choice(("fetch_all", "fetch_all", "fetch_one"))
    code = (f"let rows = sqlx::query(\n    r#\"\n{_indent(body, '    ')}\n    \"#,\n)\n.{fetch}(&pool)\n.await?;\n\n"
            "for row in rows {\n    println!(\"{:?}\", row);\n}")
    reply = f"Here is how to run the query with sqlx:\n\n```rust\n{code}\n```\n\nThe raw string avoids escaping quotes."
    return reply, "query inside a rust sqlx raw string", None


def k_php_pdo_query(c: _Ctx, rng: random.Random) -> Any:
    one = re.sub(r"\s+", " ", c.sql)
    lit = one.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$")
    code = ("<?php\n$pdo = new PDO($dsn, $user, $password);\n"
            f"$sql = \"{lit}\";\n$stmt = $pdo->query($sql);\n"
            "foreach ($stmt->fetchAll(PDO::FETCH_ASSOC) as $row) {\n    print_r($row);\n}")
    reply = f"{rng.choice(_INTROS)}\n\n```php\n{code}\n```\n\nThis prints each row of the result."
    return reply, "query in a PHP PDO string", None


def k_room_dao_annotation(c: _Ctx, rng: random.Random) -> Any:
    one = re.sub(r"\s+", " ", c.sql).replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$")
    name = rng.choice(("getResults", "loadRows", "query"))
    code = (f"@Dao\ninterface ReportDao {{\n    @Query(\"{one}\")\n    suspend fun {name}(): List<ResultRow>\n}}")
    reply = f"If you use Room, the query goes in the DAO:\n\n```kotlin\n{code}\n```"
    return reply, "query inside an Android Room @Query annotation", None


_TLDS = {
    "name", "id", "city", "info", "date", "day", "email", "phone", "review", "reviews", "sale", "shop", "store",
    "rest", "restaurant", "business", "company", "tax", "auto", "car", "cars", "doctor", "health", "events",
    "flights", "tips", "top", "today", "team", "music", "news", "page", "link", "live", "market", "media", "one",
    "pro", "report", "school", "site", "space", "style", "video", "work", "world", "zone", "me", "us", "co", "io",
    "ai", "tv", "menu", "cafe", "pizza", "bar", "law", "insure", "credit", "money", "cash", "fund", "loans",
}


def k_autolinked_dotted_names(c: _Ctx, rng: random.Random) -> Any:
    pretty = _pretty(c.sql, c.dialect)
    pc = _Ctx(pretty, c.schema)
    scheme = "http" if rng.random() < 0.7 else "https"
    edits = []
    for i in range(len(pc.toks) - 2):
        if (pc.is_ident(i) and pc.toks[i + 1].token_type == T.DOT and pc.is_ident(i + 2)
                and pc.toks[i].token_type != T.IDENTIFIER and pc.toks[i + 2].token_type != T.IDENTIFIER
                and pc.toks[i + 2].text.lower() in _TLDS
                and not (i > 0 and pc.toks[i - 1].token_type == T.DOT)
                and not (i + 3 < len(pc.toks) and pc.toks[i + 3].token_type in (T.DOT, T.L_PAREN))):
            text = pc.text(i, i + 2)
            edits.append((pc.toks[i].start, pc.toks[i + 2].end + 1, f"[{text}]({scheme}://{text})"))
    if not edits:
        return None
    sql = _edit(pretty, edits)
    return _fenced(sql, rng), "dotted names autolinked as markdown links", sql


def k_contains_for_like(c: _Ctx, rng: random.Random) -> Any:
    edits = []
    for j, t in enumerate(c.toks):
        if t.token_type not in (T.LIKE, T.ILIKE) or j == 0:
            continue
        if c.toks[j - 1].token_type == T.NOT:
            continue
        # right side: 'pat' or LOWER('pat')
        r = j + 1
        if r < len(c.toks) and c.toks[r].token_type == T.STRING:
            pat, rend = c.toks[r].text, c.toks[r].end
        elif (r + 3 < len(c.toks) and c.toks[r].text.upper() in ("LOWER", "UPPER")
              and c.toks[r + 1].token_type == T.L_PAREN and c.toks[r + 2].token_type == T.STRING
              and c.toks[r + 3].token_type == T.R_PAREN):
            pat, rend = c.toks[r + 2].text, c.toks[r + 3].end
        else:
            continue
        if len(pat) < 3 or not (pat.startswith("%") and pat.endswith("%")):
            continue
        core = pat[1:-1]
        if "%" in core or "_" in core or not core.strip():
            continue
        # left operand: column ref or function call
        lj = j - 1
        if c.toks[lj].token_type == T.R_PAREN:
            d = c.depth[lj]
            k = lj - 1
            while k >= 0 and not (c.toks[k].token_type == T.L_PAREN and c.depth[k] == d):
                k -= 1
            if k < 0:
                continue
            ls = k - 1 if k > 0 and c.is_ident(k - 1) else k
        else:
            ref = c.colref_back(lj)
            if ref is None:
                continue
            ls = ref[0]
        left = c.sql[c.toks[ls].start:c.toks[lj].end + 1]
        if c.toks[j].token_type == T.ILIKE or "lower(" in left.lower():
            core = core.lower()
        edits.append((c.toks[ls].start, rend + 1, f"CONTAINS({left}, '{core}')"))
    if not edits:
        return None
    sql = _edit(c.sql, edits)
    return _fenced(_pretty(sql, c.dialect), rng), "LIKE '%v%' as CONTAINS()", sql


def k_escaped_backtick_fence(c: _Ctx, rng: random.Random) -> Any:
    body = _pretty(c.sql, c.dialect)
    tick = "\\`\\`\\`"
    reply = f"{rng.choice(_INTROS)}\n\n{tick}sql\n{body}\n{tick}\n\n{rng.choice(_OUTROS[:3])}"
    return reply, "fence with backslash-escaped backticks", None


def k_statement_as_derived_table(c: _Ctx, rng: random.Random) -> Any:
    body = _pretty(c.sql, c.dialect)
    alias = rng.choice(("result", "q", "final_result", "sub"))
    sql = f"(\n{_indent(body, '    ')}\n) AS {alias};"
    return _fenced(sql, rng), "statement wrapped as a derived table", sql


def k_metabase_optional_clause(c: _Ctx, rng: random.Random) -> Any:
    wheres = [k for k, t in enumerate(c.toks) if t.token_type == T.WHERE]
    if not wheres:
        return None
    w = min(wheres, key=lambda k: (c.depth[k], k))
    d = c.depth[w]
    end = c.clause_end(w, d)
    if end <= w + 1:
        return None
    parts, cur, pending_between, has_or = [], w + 1, False, False
    for k in range(w + 1, end):
        t = c.toks[k]
        if c.depth[k] != d:
            continue
        if t.token_type == T.BETWEEN:
            pending_between = True
        elif t.token_type == T.AND:
            if pending_between:
                pending_between = False
            else:
                parts.append((cur, k - 1))
                cur = k + 1
        elif t.token_type == T.OR:
            has_or = True
    parts.append((cur, end - 1))
    texts = [c.text(a, b) for a, b in parts if a <= b]
    if has_or or not texts:
        texts = [c.text(w + 1, end - 1)]
    if len(texts) > 1 and rng.random() < 0.5:
        head, opt = texts[0], texts[1:]
    else:
        head, opt = "1 = 1", texts
    pad = "\n  "
    new = f"WHERE {head}" + "".join(f"{pad}[[AND {x}]]" for x in opt)
    stop = c.toks[end].start if end < len(c.toks) else len(c.sql)
    sql = c.sql[:c.toks[w].start] + new + ("\n" + c.sql[stop:].lstrip() if stop < len(c.sql) else "")
    return _fenced(sql, rng), "WHERE conditions as Metabase [[optional clauses]]", sql


def k_liquid_highlight_tag(c: _Ctx, rng: random.Random) -> Any:
    body = _pretty(c.sql, c.dialect)
    opt = rng.choice(("", "", " linenos"))
    reply = (f"{rng.choice(_INTROS)}\n\n{{% highlight sql{opt} %}}\n{body}\n{{% endhighlight %}}\n\n"
             f"{rng.choice(_OUTROS[:3])}")
    return reply, "Liquid highlight tag instead of a fence", None


_DASH_HEAD = ("Query to answer the question", "Final query", "Using the tables from the schema",
              "Result set for the question")


def k_comment_dashes_typographic(c: _Ctx, rng: random.Random) -> Any:
    dash = rng.choice(("–", "—"))
    lines = _pretty(c.sql, c.dialect).splitlines()
    notes = {"FROM": "source table", "WHERE": "filters from the question", "GROUP BY": "one row per group",
             "ORDER BY": "sort the result", "LIMIT": "keep the top rows", "JOIN": "join the related table"}
    out = [f"{dash} {rng.choice(_DASH_HEAD)}"] if rng.random() < 0.7 else []
    tagged = False
    for line in lines:
        head = line.lstrip().upper()
        key = next((k for k in notes if head.startswith(k) or (k == "JOIN" and " JOIN " in f" {head}")), None)
        if key and (not tagged or rng.random() < 0.4):
            out.append(f"{line}  {dash} {notes[key]}")
            tagged = True
        else:
            out.append(line)
    if not tagged and not out[0].startswith(dash):
        out.insert(0, f"{dash} {_DASH_HEAD[0]}")
    sql = "\n".join(out)
    return _fenced(sql, rng), f"comments written with {dash}", sql


def k_single_backtick_block(c: _Ctx, rng: random.Random) -> Any:
    body = _pretty(c.sql, c.dialect)
    reply = f"{rng.choice(_INTROS)}\n\n`{body}`\n\n{rng.choice(_OUTROS[:3])}"
    return reply, "query wrapped in single backticks", None


def k_case_closed_with_end_case(c: _Ctx, rng: random.Random) -> Any:
    stack, edits = [], []
    for k, t in enumerate(c.toks):
        if t.token_type == T.CASE:
            stack.append(k)
        elif t.token_type == T.END and stack:
            stack.pop()
            edits.append((t.start, t.end + 1, t.text + (" CASE" if t.text.isupper() else " case")))
    if not edits:
        return None
    sql = _edit(c.sql, edits)
    return _fenced(_pretty(sql, c.dialect), rng), "CASE closed with END CASE", sql


def k_clause_keywords_snake_case(c: _Ctx, rng: random.Random) -> Any:
    edits = []
    for t in c.toks:
        if t.token_type in (T.GROUP_BY, T.ORDER_BY, T.PARTITION_BY):
            edits.append((t.start, t.end + 1, re.sub(r"\s+", "_", t.text)))
    if not edits:
        return None
    sql = _edit(c.sql, edits)
    return _fenced(_pretty(sql, c.dialect), rng), "GROUP_BY / ORDER_BY keywords", sql


def k_index_advice_first(c: _Ctx, rng: random.Random) -> Any:
    tables = list(c.tree.find_all(exp.Table))
    if not tables:
        return None
    first = tables[0]
    tname = first.name
    qual = f"{first.db}.{tname}" if first.db else tname
    alias = (first.alias or tname).lower()
    col = None
    for node in c.tree.find_all(exp.Column):
        parent = node.parent
        in_filter = isinstance(parent, (exp.EQ, exp.Like, exp.ILike, exp.GT, exp.LT, exp.GTE, exp.LTE, exp.In))
        if in_filter and (node.table or "").lower() in (alias, tname.lower(), ""):
            col = node.name
            break
    if col is None:
        table = c.schema.table(tname) if c.schema is not None else None
        if table is None or not table.columns:
            return None
        col = table.columns[0].name
    idx = f"idx_{tname}_{col}".lower()
    ddl = f"CREATE INDEX IF NOT EXISTS {idx} ON {qual} ({col});"
    reply = (f"For good performance, first make sure there is an index on `{col}`:\n\n```sql\n{ddl}\n```\n\n"
             f"Then run the query:\n\n```sql\n{_pretty(c.sql, c.dialect)}\n```")
    return reply, "CREATE INDEX advice in the first block", None


_CMP = {T.EQ, T.NEQ, T.GT, T.LT, T.GTE, T.LTE, T.LIKE, T.ILIKE}


def k_simple_case_with_operator(c: _Ctx, rng: random.Random) -> Any:
    edits = []
    for k, t in enumerate(c.toks):
        if t.token_type != T.CASE or k + 1 >= len(c.toks) or c.toks[k + 1].token_type != T.WHEN:
            continue
        d = c.depth[k]
        level, whens, end = 0, [], None
        for m in range(k + 1, len(c.toks)):
            tm = c.toks[m]
            if c.depth[m] != d:
                continue
            if tm.token_type == T.CASE:
                level += 1
            elif tm.token_type == T.END:
                if level == 0:
                    end = m
                    break
                level -= 1
            elif tm.token_type == T.WHEN and level == 0:
                whens.append(m)
        if end is None:
            continue
        left0, local = None, []
        for w in whens:
            op = None
            for m in range(w + 1, end):
                if c.depth[m] != d:
                    continue
                tt = c.toks[m].token_type
                if tt in (T.AND, T.OR, T.NOT, T.IS, T.THEN, T.IN, T.BETWEEN):
                    break
                if tt in _CMP:
                    op = m
                    break
            if op is None or op == w + 1:
                if left0 is None:
                    break
                continue
            left = c.text(w + 1, op - 1)
            if left0 is None:
                left0 = left
            if left == left0:
                local.append((c.toks[w].end + 1, c.toks[op].start, " "))
        if left0 is None or not local:
            continue
        edits.append((t.end + 1, t.end + 1, f" {left0}"))
        edits.extend(local)
    if not edits:
        return None
    sql = _edit(c.sql, edits)
    return _fenced(_pretty(sql, c.dialect), rng), "searched CASE written as CASE x WHEN > v", sql


def k_copy_code_label_leak(c: _Ctx, rng: random.Random) -> Any:
    body = _pretty(c.sql, c.dialect)
    label = rng.choice(("sqlCopy code", "sqlCopy code", "sqlCopy"))
    if rng.random() < 0.5:
        reply = f"{rng.choice(_INTROS)}\n\n```sql\n{label}\n{body}\n```"
    else:
        reply = f"{rng.choice(_INTROS)}\n\n{label}\n{body}\n\n{rng.choice(_OUTROS[:3])}"
    return reply, "chat UI 'Copy code' label left in", None


# ----------------------------------------------------------------------------------------------------------------
# family B

_DATEISH = re.compile(r"^([+-]?\d|\d{4}-|%[A-Za-z]([-/ :]?%[A-Za-z])*$)")
_LABEL_COLS = {"name", "title", "label", "description", "code", "symbol", "username", "desc"}
_SUFFIXES = ("_name", "_type", "_code", "_method", "_status", "_category", "_desc", "_title", "_label")


def _singular(word: str) -> str:
    w = word.lower()
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith("s") and not w.endswith("ss") and len(w) > 3:
        return w[:-1]
    return w


def _noun_for(c: _Ctx, qual: str | None, col: str) -> str | None:
    low = col.lower()
    if low in _LABEL_COLS or low in ("status", "type", "category", "kind", "state", "gender", "mode", "method"):
        table = c.aliases.get(qual.lower(), qual) if qual else None
        if table is None:
            names = sorted({v for v in c.aliases.values()})
            table = names[0] if len(names) == 1 else None
        return _singular(table).replace("_", " ") if table else None
    words = re.sub(r"([a-z])([A-Z])", r"\1_\2", col).lower()
    for suf in _SUFFIXES:
        if words.endswith(suf) and len(words) > len(suf):
            words = words[: -len(suf)]
            break
    parts = [p for p in words.split("_") if p]
    if len(parts) > 1 and len(parts[0]) <= 2:
        parts = parts[1:]
    if parts and parts[-1] in ("name", "type", "code"):
        parts = parts[:-1]
    return " ".join(parts) or None


def _operand_col(c: _Ctx, op: int) -> tuple[str | None, str] | None:
    """The column compared by the operator at token op (skipping closing parens of LOWER(...))."""
    j = op - 1
    while j >= 0 and c.toks[j].token_type == T.R_PAREN:
        j -= 1
    ref = c.colref_back(j)
    if ref is None:
        return None
    return c.split_ref(*ref)


def k_literal_with_question_noun(c: _Ctx, rng: random.Random) -> Any:
    cands = []
    for i, t in enumerate(c.toks):
        if t.token_type != T.STRING:
            continue
        lit = t.text
        if not re.search(r"[A-Za-z]", lit) or _DATEISH.match(lit) or len(lit.strip("%")) < 2:
            continue
        k = i - 1
        while k >= 0 and (c.toks[k].token_type == T.L_PAREN or c.toks[k].text.upper() in ("LOWER", "UPPER", "TRIM")):
            k -= 1
        op = None
        if k >= 0 and c.toks[k].token_type in (T.EQ, T.NEQ, T.LIKE, T.ILIKE):
            op = k
        else:
            m = i - 1
            while m >= 0 and c.toks[m].token_type in (T.STRING, T.COMMA):
                m -= 1
            if m >= 1 and c.toks[m].token_type == T.L_PAREN and c.toks[m - 1].token_type == T.IN:
                op = m - 1
        if op is None:
            continue
        ref = _operand_col(c, op)
        if ref is None:
            continue
        noun = _noun_for(c, *ref)
        if not noun or noun.lower() in lit.lower():
            continue
        if lit.endswith("%"):
            new = lit[:-1].rstrip() + " " + noun + "%"
        else:
            new = lit + " " + noun
        cands.append((t.start, t.end + 1, "'" + new.replace("'", "''") + "'"))
    if not cands:
        return None
    pick = rng.choice(cands)
    sql = _edit(c.sql, [pick])
    return _fenced(_pretty(sql, c.dialect), rng), "question noun glued to a filter value", sql


def k_list_collapsed_to_count(c: _Ctx, rng: random.Random) -> Any:
    s = c.main_select()
    if s is None:
        return None
    f = c.find0({T.FROM}, start=s + 1)
    if f is None or c.find0({T.GROUP_BY, T.LIMIT, T.HAVING}, start=f) is not None:
        return None
    for k in range(s + 1, f):
        tt = c.toks[k]
        if tt.token_type == T.OVER or (tt.text.upper() in _AGGS | {"STRING_AGG", "GROUP_CONCAT", "ARRAY_AGG"}
                                       and k + 1 < len(c.toks) and c.toks[k + 1].token_type == T.L_PAREN):
            return None
    a = s + 1
    distinct = c.toks[a].token_type == T.DISTINCT
    if distinct:
        if c.toks[a + 1].token_type == T.ON:
            return None
        a += 1
    items = c.split_commas(a, f)
    if not items:
        return None
    x, y = items[0]
    for m in range(x, y + 1):
        if c.toks[m].token_type == T.ALIAS and c.depth[m] == c.depth[x]:
            y = m - 1
            break
    first = c.text(x, y)
    if first.strip() == "*":
        return None
    alias = rng.choice(("total_count", "num_results", "count"))
    sel = f"COUNT(DISTINCT {first}) AS {alias}" if distinct else f"COUNT(*) AS {alias}"
    ob = c.find0({T.ORDER_BY}, start=f)
    stop = c.toks[ob].start if ob is not None else len(c.sql)
    sql = c.sql[:c.toks[s].end + 1] + " " + sel + " " + c.sql[c.toks[f].start:stop].rstrip()
    return _fenced(_pretty(sql, c.dialect), rng), "list answered with a COUNT", sql


def k_anti_join_null_wrong_side(c: _Ctx, rng: random.Random) -> Any:
    edits = []
    for join in c.tree.find_all(exp.Join):
        if (join.side or "").upper() != "LEFT":
            continue
        right = join.this
        if not isinstance(right, exp.Table):
            continue
        ralias = (right.alias or right.name).lower()
        on = join.args.get("on")
        if on is None:
            continue
        keep = None
        for eq in on.find_all(exp.EQ):
            l, r = eq.this, eq.expression
            if isinstance(l, exp.Column) and isinstance(r, exp.Column):
                if (r.table or "").lower() == ralias and (l.table or "").lower() not in ("", ralias):
                    keep = l.sql(dialect=c.dialect if c.dialect in ("postgres", "sqlite") else "postgres")
                    break
                if (l.table or "").lower() == ralias and (r.table or "").lower() not in ("", ralias):
                    keep = r.sql(dialect=c.dialect if c.dialect in ("postgres", "sqlite") else "postgres")
                    break
        if keep is None:
            continue
        for i in range(3, len(c.toks) - 1):
            if (c.toks[i].token_type == T.IS and c.toks[i + 1].token_type == T.NULL
                    and c.toks[i - 2].token_type == T.DOT and c.toks[i - 3].text.lower() == ralias
                    and c.is_ident(i - 1) and c.depth[i] == 0
                    and not (i >= 4 and c.toks[i - 4].token_type == T.NOT)):
                edits.append((c.toks[i - 3].start, c.toks[i - 1].end + 1, keep))
    if not edits:
        return None
    sql = _edit(c.sql, edits[:1])
    return _fenced(_pretty(sql, c.dialect), rng), "anti-join tests the kept table's key for NULL", sql


def k_weekday_numbering_slip(c: _Ctx, rng: random.Random) -> Any:
    edits = []
    for i, t in enumerate(c.toks):
        pg = t.text.upper() in ("DOW",) and t.token_type != T.STRING
        lite = t.token_type == T.STRING and t.text == "%w"
        if not (pg or lite):
            continue
        d = c.depth[i]
        close = next((k for k in range(i + 1, len(c.toks))
                      if c.toks[k].token_type == T.R_PAREN and c.depth[k] == d - 1), None)
        if close is None or close + 2 >= len(c.toks):
            continue
        nxt = c.toks[close + 1]
        vals: list[int] = []
        if nxt.token_type == T.IN and c.toks[close + 2].token_type == T.L_PAREN:
            end = c.match(close + 2)
            vals = [k for k in range(close + 3, end) if c.toks[k].token_type in (T.NUMBER, T.STRING)]
        elif nxt.token_type == T.EQ:
            vals = [close + 2] if c.toks[close + 2].token_type in (T.NUMBER, T.STRING) else []
        for k in vals:
            tk = c.toks[k]
            if tk.text.strip() == "0":
                new = "'7'" if tk.token_type == T.STRING else "7"
                edits.append((tk.start, tk.end + 1, new))
    if not edits:
        return None
    sql = _edit(c.sql, edits)
    return _fenced(_pretty(sql, c.dialect), rng), "day-of-week read with Sunday = 7", sql


def k_window_order_dropped(c: _Ctx, rng: random.Random) -> Any:
    edits = []
    for i, t in enumerate(c.toks[:-1]):
        if t.token_type != T.OVER or c.toks[i + 1].token_type != T.L_PAREN:
            continue
        p = i + 1
        q = c.match(p)
        o = c.find0({T.ORDER_BY}, start=p + 1, end=q, depth=c.depth[p] + 1)
        if o is None:
            continue
        head = c.sql[c.toks[p].end + 1:c.toks[o].start].rstrip()
        edits.append((c.toks[p].end + 1, c.toks[q].start, head.strip()))
    if not edits:
        return None
    sql = _edit(c.sql, edits)
    return _fenced(_pretty(sql, c.dialect), rng), "ORDER BY left out of the window", sql


def k_where_filter_as_conditional_aggregate(c: _Ctx, rng: random.Random) -> Any:
    s = c.main_select()
    if s is None or any(t.token_type == T.OVER for t in c.toks):
        return None
    f = c.find0({T.FROM}, start=s + 1)
    w = c.find0({T.WHERE}, start=f) if f is not None else None
    g = c.find0({T.GROUP_BY}, start=w) if w is not None else None
    if f is None or w is None or g is None or c.find0({T.LIMIT}, start=g) is not None:
        return None
    for k in range(w + 1, g):
        if c.toks[k].token_type == T.SELECT:
            return None
        if (c.toks[k].token_type in (T.EQ, T.LT, T.GT, T.LTE, T.GTE, T.NEQ)
                and c.colref_back(k - 1) is not None and c.colref_fwd(k + 1) is not None
                and c.toks[k + 1].token_type not in (T.STRING, T.NUMBER)
                and c.toks[k + 1].text.upper() not in ("CURRENT_DATE", "TRUE", "FALSE", "NOW")):
            return None
    cond = c.text(w + 1, g - 1)
    edits = []
    spans = list(range(s + 1, f)) + [k for k in range(g, len(c.toks))]
    done: set[int] = set()
    for k in spans:
        t = c.toks[k]
        if k in done or t.text.upper() not in _AGGS or k + 1 >= len(c.toks) or c.toks[k + 1].token_type != T.L_PAREN:
            continue
        p = k + 1
        q = c.match(p)
        done.update(range(p, q + 1))
        a = p + 1
        dist = ""
        if c.toks[a].token_type == T.DISTINCT:
            dist = c.toks[a].text + " "
            a += 1
        inner = c.text(a, q - 1)
        val = "1" if inner.strip() == "*" else inner
        if inner.strip() == "*" and t.text.upper() != "COUNT":
            return None
        edits.append((c.toks[p].end + 1, c.toks[q].start, f"{dist}CASE WHEN {cond} THEN {val} END"))
    if not edits:
        return None
    edits.append((c.toks[w].start, c.toks[g].start, ""))
    sql = _edit(c.sql, edits)
    return _fenced(_pretty(sql, c.dialect), rng), "WHERE filter moved inside the aggregates", sql


def k_per_relation_inverted(c: _Ctx, rng: random.Random) -> Any:
    s = c.main_select()
    if s is None:
        return None
    f = c.find0({T.FROM}, start=s + 1)
    g = c.find0({T.GROUP_BY}, start=f) if f is not None else None
    if f is None or g is None or c.toks[s + 1].token_type == T.DISTINCT:
        return None
    gend = c.clause_end(g, 0)
    gkeys = c.split_commas(g + 1, gend)
    if len(gkeys) != 1:
        return None
    gx, gy = gkeys[0]
    items = c.split_commas(s + 1, f)
    key_item = None
    count_ref = None
    for idx, (x, y) in enumerate(items):
        has_agg = any(c.toks[m].text.upper() in _AGGS and m + 1 <= y and c.toks[m + 1].token_type == T.L_PAREN
                      for m in range(x, y + 1))
        if not has_agg:
            if key_item is not None:
                return None
            key_item = (idx, x, y)
            continue
        if count_ref is None and c.toks[x].text.upper() == "COUNT" and c.toks[x + 1].token_type == T.L_PAREN:
            a = x + 2
            if c.toks[a].token_type == T.DISTINCT:
                a += 1
            ref = c.colref_fwd(a)
            if ref is not None and c.toks[ref[1] + 1].token_type == T.R_PAREN:
                count_ref = ref
    if key_item is None or count_ref is None:
        return None
    idx, kx, ky = key_item
    kexp_end = ky
    for m in range(kx, ky + 1):
        if c.toks[m].token_type == T.ALIAS:
            kexp_end = m - 1
            break
    kref = c.colref_fwd(kx)
    if kref is None or kref[1] != kexp_end:
        return None
    ktext = c.text(kx, kexp_end)
    ctext = c.text(*count_ref)
    kname = c.toks[kexp_end].text.lower()
    cname = c.toks[count_ref[1]].text.lower()
    if re.search(r"(year|month|date|day|week|time|_dt|_ts|_at)$", kname) or not cname.endswith("id"):
        return None
    if ktext.lower() == ctext.lower():
        return None
    gtext = c.text(gx, gy)
    positional = c.toks[gx].token_type == T.NUMBER and gx == gy
    if not positional and gtext.lower() != ktext.lower():
        return None
    edits = [(c.toks[kx].start, c.toks[kexp_end].end + 1, ctext),
             (c.toks[count_ref[0]].start, c.toks[count_ref[1]].end + 1, ktext)]
    if not positional:
        edits.append((c.toks[gx].start, c.toks[gy].end + 1, ctext))
    ob = c.find0({T.ORDER_BY}, start=gend)
    if ob is not None:
        oend = c.clause_end(ob, 0)
        for x, y in c.split_commas(ob + 1, oend):
            ref = c.colref_fwd(x)
            if ref is not None and c.text(*ref).lower() == ktext.lower():
                edits.append((c.toks[ref[0]].start, c.toks[ref[1]].end + 1, ctext))
    sql = _edit(c.sql, edits)
    return _fenced(_pretty(sql, c.dialect), rng), "group key and counted column swapped", sql


_NAMEISH = re.compile(r"(^|_)(name|title|username|code|symbol)$|[a-z]Name$", re.I)


def _pk_of(table: Any) -> str | None:
    """The table's key: declared, else id / <table>_id, else a short NOT NULL xid named after the table."""
    if table is None:
        return None
    if len(table.primary_key) == 1:
        return table.primary_key[0]
    if table.primary_key:
        return None
    names = {col.name.lower(): col.name for col in table.columns}
    low = table.name.lower()
    for key in ("id", f"{_singular(low)}_id", f"{low}_id"):
        if key in names:
            return names[key]
    for col in table.columns:
        n = col.name.lower()
        if n.endswith("id") and len(n) <= 4 and n[0] == low[0] and not col.nullable:
            return col.name
    return None


def k_name_filter_as_guessed_id(c: _Ctx, rng: random.Random) -> Any:
    cands = []
    for i in range(len(c.toks) - 2):
        t = c.toks[i]
        if t.token_type not in (T.EQ, T.IN):
            continue
        ref = c.colref_back(i - 1)
        if ref is None:
            continue
        qual, col = c.split_ref(*ref)
        if not _NAMEISH.search(col):
            continue
        table = c.table_of(qual)
        pk = _pk_of(table)
        if pk is None or pk.lower() == col.lower():
            continue
        if t.token_type == T.EQ:
            if c.toks[i + 1].token_type != T.STRING:
                continue
            end, n = i + 1, 1
        else:
            if c.toks[i + 1].token_type != T.L_PAREN:
                continue
            close = c.match(i + 1)
            lits = [k for k in range(i + 2, close) if c.toks[k].token_type == T.STRING]
            if not lits or any(c.toks[k].token_type not in (T.STRING, T.COMMA) for k in range(i + 2, close)):
                continue
            end, n = close, len(lits)
        lhs = (f"{qual}." if qual else "") + pk
        start = rng.randint(1, 3)
        rhs = f"= {start}" if t.token_type == T.EQ else "IN (" + ", ".join(str(start + k) for k in range(n)) + ")"
        cands.append((c.toks[ref[0]].start, c.toks[end].end + 1, f"{lhs} {rhs}"))
    if not cands:
        return None
    sql = _edit(c.sql, [rng.choice(cands)])
    return _fenced(_pretty(sql, c.dialect), rng), "name filter replaced by a guessed id", sql


def k_topn_correlated_count_off_by_one(c: _Ctx, rng: random.Random) -> Any:
    s = c.main_select()
    if s is None or c.toks[0].token_type != T.SELECT:
        return None
    f = c.find0({T.FROM}, start=s + 1)
    ob = c.find0({T.ORDER_BY}, start=f) if f is not None else None
    lim = c.find0({T.LIMIT}, start=ob + 1) if ob is not None else None
    if f is None or ob is None or lim is None or lim + 2 != len(c.toks) or c.toks[lim + 1].token_type != T.NUMBER:
        return None
    if c.find0({T.GROUP_BY, T.HAVING, T.COMMA} | _JOINS, start=f, end=ob) is not None:
        return None
    if any(c.toks[k].text.upper() in _AGGS for k in range(s, f)):
        return None
    tref = c.colref_fwd(f + 1)
    if tref is None:
        return None
    table = c.text(*tref)
    k = tref[1] + 1
    alias = None
    if c.toks[k].token_type == T.ALIAS:
        alias, k = c.toks[k + 1].text, k + 2
    elif c.is_ident(k) and c.toks[k].token_type not in _STRUCT:
        alias, k = c.toks[k].text, k + 1
    w = k if c.toks[k].token_type == T.WHERE else None
    if w is None and k != ob:
        return None
    keys = c.split_commas(ob + 1, lim)
    if len(keys) != 1:
        return None
    x, y = keys[0]
    ref = c.colref_fwd(x)
    if ref is None:
        return None
    rest = [c.toks[m].text.upper() for m in range(ref[1] + 1, y + 1)]
    if any(r not in ("ASC", "DESC", "NULLS", "FIRST", "LAST") for r in rest):
        return None
    op = ">" if "DESC" in rest else "<"
    _, col = c.split_ref(*ref)
    tbl = c.schema.table(c.toks[tref[1]].text) if c.schema is not None else None
    if (tbl is not None and tbl.column(col) is None) or re.search(rf"\bAS\s+{re.escape(col)}\b", c.sql, re.I):
        return None
    outer = c.text(*ref) if ref[0] != ref[1] else f"{alias or c.toks[tref[1]].text}.{col}"
    other = rng.choice(("t2", "x", "other"))
    inner_where = f"{other}.{col} {op} {outer}"
    if w is not None:
        cond = c.text(w + 1, ob - 1)
        if any(c.toks[m].token_type == T.DOT for m in range(w + 1, ob)) or "SELECT" in cond.upper():
            return None
        inner_where = f"({cond}) AND {inner_where}"
    n = c.toks[lim + 1].text
    sub = f"(SELECT COUNT(*) FROM {table} AS {other} WHERE {inner_where}) <= {n}"
    head = c.sql[:c.toks[ob].start].rstrip()
    if w is not None:
        head = c.sql[:c.toks[w].end + 1] + " (" + c.text(w + 1, ob - 1) + ") AND"
    else:
        head += " WHERE"
    sql = f"{head} {sub} ORDER BY {c.text(x, y)}"
    return _fenced(_pretty(sql, c.dialect), rng), "top-N written as a correlated count with <= N", sql


def k_ungrouped_column_wrapped_in_max(c: _Ctx, rng: random.Random) -> Any:
    s = c.main_select()
    if s is None:
        return None
    f = c.find0({T.FROM}, start=s + 1)
    g = c.find0({T.GROUP_BY}, start=f) if f is not None else None
    if f is None or g is None:
        return None
    gend = c.clause_end(g, 0)
    keys = c.split_commas(g + 1, gend)
    if len(keys) < 2:
        return None
    a = s + 1
    if c.toks[a].token_type == T.DISTINCT:
        a += 1
    items = c.split_commas(a, f)
    gx, gy = keys[-1]
    ktext = c.text(gx, gy)
    pick = None
    for idx, (x, y) in enumerate(items):
        e = y
        for m in range(x, y + 1):
            if c.toks[m].token_type == T.ALIAS and c.depth[m] == c.depth[x]:
                e = m - 1
                break
        if (c.toks[gx].token_type == T.NUMBER and gx == gy and int(ktext) == idx + 1) or \
                c.text(x, e).lower() == ktext.lower():
            pick = (x, e, y)
            break
    if pick is None:
        return None
    x, e, y = pick
    ref = c.colref_fwd(x)
    if ref is None or ref[1] != e:
        return None
    expr = c.text(x, e)
    after = c.sql[c.toks[gend].start:] if gend < len(c.toks) else ""
    if expr.lower() in after.lower() or (e == y and c.toks[e].text.lower() in after.lower()):
        return None
    fn = rng.choice(("MAX", "MAX", "MIN"))
    wrapped = f"{fn}({expr})" + ("" if e != y else f" AS {c.toks[e].text}")
    prev_end = c.toks[keys[-2][1]].end + 1
    edits = [(c.toks[x].start, c.toks[e].end + 1, wrapped), (prev_end, c.toks[gy].end + 1, "")]
    sql = _edit(c.sql, edits)
    return _fenced(_pretty(sql, c.dialect), rng), f"a grouping column wrapped in {fn}() and dropped from GROUP BY", sql


def k_month_number_for_calendar_month(c: _Ctx, rng: random.Random) -> Any:
    edits = []
    for i in range(len(c.toks) - 4):
        t = c.toks[i]
        if c.toks[i + 1].token_type != T.L_PAREN:
            continue
        fn = t.text.upper()
        close = c.match(i + 1)
        if fn == "DATE_TRUNC" and c.toks[i + 2].token_type == T.STRING and c.toks[i + 2].text.lower() == "month" \
                and c.toks[i + 3].token_type == T.COMMA:
            arg = c.text(i + 4, close - 1)
            if re.search(r"current_date|now\(|current_timestamp|interval", arg, re.I):
                continue
            edits.append((t.start, c.toks[close].end + 1, f"EXTRACT(MONTH FROM {arg})"))
        elif fn == "STRFTIME" and c.toks[i + 2].token_type == T.STRING and c.toks[i + 2].text == "%Y-%m" \
                and c.toks[i + 3].token_type == T.COMMA:
            arg = c.text(i + 4, close - 1)
            if "now" in arg.lower():
                continue
            edits.append((c.toks[i + 2].start, c.toks[i + 2].end + 1, "'%m'"))
        elif fn == "TO_CHAR" and close - 1 > i + 2 and c.toks[close - 1].token_type == T.STRING \
                and c.toks[close - 1].text.upper() in ("YYYY-MM", "YYYY-MM-01"):
            edits.append((c.toks[close - 1].start, c.toks[close - 1].end + 1, "'MM'"))
    if not edits:
        return None
    sql = _edit(c.sql, edits)
    return _fenced(_pretty(sql, c.dialect), rng), "calendar month computed as the month number", sql


_KINDS = {
    "clean": k_clean,
    "qualify_topn": k_qualify_topn,
    "approx_count_distinct": k_approx_count_distinct,
    "ruby_heredoc": k_ruby_heredoc,
    "rust_sqlx_raw_string": k_rust_sqlx_raw_string,
    "php_pdo_query": k_php_pdo_query,
    "room_dao_annotation": k_room_dao_annotation,
    "autolinked_dotted_names": k_autolinked_dotted_names,
    "contains_for_like": k_contains_for_like,
    "escaped_backtick_fence": k_escaped_backtick_fence,
    "statement_as_derived_table": k_statement_as_derived_table,
    "metabase_optional_clause": k_metabase_optional_clause,
    "liquid_highlight_tag": k_liquid_highlight_tag,
    "comment_dashes_typographic": k_comment_dashes_typographic,
    "single_backtick_block": k_single_backtick_block,
    "case_closed_with_end_case": k_case_closed_with_end_case,
    "clause_keywords_snake_case": k_clause_keywords_snake_case,
    "index_advice_first": k_index_advice_first,
    "simple_case_with_operator": k_simple_case_with_operator,
    "copy_code_label_leak": k_copy_code_label_leak,
    "literal_with_question_noun": k_literal_with_question_noun,
    "list_collapsed_to_count": k_list_collapsed_to_count,
    "topn_correlated_count_off_by_one": k_topn_correlated_count_off_by_one,
    "anti_join_null_wrong_side": k_anti_join_null_wrong_side,
    "weekday_numbering_slip": k_weekday_numbering_slip,
    "window_order_dropped": k_window_order_dropped,
    "where_filter_as_conditional_aggregate": k_where_filter_as_conditional_aggregate,
    "per_relation_inverted": k_per_relation_inverted,
    "name_filter_as_guessed_id": k_name_filter_as_guessed_id,
    "ungrouped_column_wrapped_in_max": k_ungrouped_column_wrapped_in_max,
    "month_number_for_calendar_month": k_month_number_for_calendar_month,
}


def damage(gold_sql: str, schema: Any, kind: str, seed: int) -> Damaged | None:
    """The whole reply for ``gold_sql`` damaged in ``kind``, or None where the kind does not apply."""
    try:
        fn = _KINDS.get(kind)
        if fn is None:
            return None
        rng = random.Random(f"fresh21|{kind}|{seed}|{gold_sql}")
        ctx = _Ctx(gold_sql, schema)
        if not ctx.toks:
            return None
        out = fn(ctx, rng)
        if out is None:
            return None
        reply, note, sql = out
        if sql is not None and _norm(sql) == _norm(ctx.sql):
            return None
        return Damaged(kind, reply, note)
    except Exception:  # noqa: BLE001 - a kind that cannot be applied is skipped
        return None
