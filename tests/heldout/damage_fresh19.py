"""Held-out damage generator ``fresh19``: damaged LLM replies for the text-to-SQL recovery bench.

Written without reading Cairn's repair, check or extraction code. Every kind is a text edit of the gold query (found
with sqlglot's tokenizer) or a reply layout around it; nothing is re-rendered from a tree.

kind                          family  what the reply does
----------------------------  ------  ------------------------------------------------------------------------------
clean                         -       the gold query, fenced, in an ordinary reply
toml_reply                    A       the answer is a TOML document: ``sql = '''...'''`` under an ``[answer]`` table
react_action_input            A       a ReAct agent transcript: Thought / Action: sql_db_query / Action Input: <sql>
sqlite_dot_commands           A       sqlite3 shell settings (``.headers on``, ``.mode column``) inside the SQL block
mysql_vertical_g              A       the statement ends with the MySQL client's ``\\G`` (vertical output) terminator
node_template_literal         A       node-postgres code: ``await pool.query(`...`)`` in a javascript block
rmarkdown_chunk               A       an R Markdown SQL chunk: ```{sql, connection=con} ... ```
html_line_breaks              A       an HTML reply: the SQL in <code> with its clauses joined by <br> tags, no fence
block_comment_unclosed        A       a ``/* ...`` header comment over the query that is never closed
csharp_dapper_verbatim        A       C# code: the SQL in a verbatim string @"..." passed to Dapper's QueryAsync
zero_width_joiners            A       zero-width spaces (U+200B) inside a keyword and an identifier
clickhouse_countif            A       ClickHouse aggregates: countIf(cond) for counted CASEs, uniqExact(x) for COUNT(DISTINCT x)
try_cast_call                 A       CAST(...) written as TRY_CAST(...) (Snowflake / T-SQL / Trino)
snowflake_div0                A       ``a / NULLIF(b, 0)`` written as Snowflake's ``DIV0(a, b)``
in_list_unparenthesized       A       an IN list of literals written without its parentheses
cte_as_dropped                A       ``WITH name AS (`` written ``WITH name (`` (the AS forgotten)
decimal_comma                 A       decimal literals with a comma for the point (4,5), a European habit
isnull_function_call          A       ``x IS NULL`` written as the function call ISNULL(x) (MySQL / T-SQL habit)
order_direction_first         A       the sort direction put before its key: ORDER BY DESC x
case_when_dropped             A       a searched CASE that lost its first WHEN: CASE cond THEN ...
ratio_denominator_dropped     B       a ratio's division left out: the reply returns the numerator alone
round_inside_aggregate        B       AVG(x) / SUM(x) of a fractional column written AVG(ROUND(x)): values rounded first
output_label_lowercased       B       the output label wrapped in LOWER() (also in GROUP/ORDER BY): labels changed, groups merged
sort_label_first              B       in a top-N query the label is put first in ORDER BY, so the N rows are alphabetical
having_to_row_filter          B       HAVING AGG(x) op v moved to WHERE x op v: rows filtered instead of groups
filter_column_grouped         B       a one-row aggregate gets GROUP BY on its range/prefix filter column: one row per value
substr_zero_based             B       SUBSTR(x, 1, n) written 0-based, SUBSTR(x, 0, n): one character short
ratio_denominator_unfiltered  B       a ratio's denominator counts the whole table, not the WHERE-filtered rows
union_dedup                   B       UNION ALL written UNION: duplicate rows collapsed
or_split_union_all            B       a top-level ``WHERE a OR b`` rewritten as two SELECTs joined by UNION ALL
between_endpoints_in_list     B       BETWEEN a AND b written IN (a, b): only the two endpoint values kept
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any, Callable

from sqlglot.tokens import Token, Tokenizer, TokenType

DAMAGE_KINDS: tuple[str, ...] = (
    "clean",
    "toml_reply",
    "react_action_input",
    "sqlite_dot_commands",
    "mysql_vertical_g",
    "node_template_literal",
    "rmarkdown_chunk",
    "html_line_breaks",
    "block_comment_unclosed",
    "zero_width_joiners",
    "clickhouse_countif",
    "try_cast_call",
    "snowflake_div0",
    "csharp_dapper_verbatim",
    "in_list_unparenthesized",
    "cte_as_dropped",
    "decimal_comma",
    "isnull_function_call",
    "order_direction_first",
    "case_when_dropped",
    "ratio_denominator_dropped",
    "round_inside_aggregate",
    "output_label_lowercased",
    "sort_label_first",
    "having_to_row_filter",
    "filter_column_grouped",
    "substr_zero_based",
    "ratio_denominator_unfiltered",
    "union_dedup",
    "or_split_union_all",
    "between_endpoints_in_list",
)
TREE_KINDS: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Damaged:
    kind: str
    reply: str
    note: str


# ----------------------------------------------------------------------------------------------------------------
# token helpers


def _toks(sql: str) -> list[Token]:
    return Tokenizer().tokenize(sql)


def _up(tok: Token) -> str:
    """The token's word, upper-cased; sqlglot's one-token ``GROUP BY`` / ``ORDER BY`` read as GROUP / ORDER."""
    if tok.token_type in (TokenType.GROUP_BY, TokenType.ORDER_BY):
        return tok.text.split()[0].upper()
    return tok.text.upper()


def _edit(sql: str, edits: list[tuple[int, int, str]]) -> str:
    """Apply (start, end_exclusive, text) edits; they must not overlap."""
    for start, end, text in sorted(edits, key=lambda e: e[0], reverse=True):
        sql = sql[:start] + text + sql[end:]
    return sql


def _close(toks: list[Token], i: int) -> int:
    """Index of the R_PAREN matching the L_PAREN at i."""
    depth = 0
    for j in range(i, len(toks)):
        if toks[j].token_type == TokenType.L_PAREN:
            depth += 1
        elif toks[j].token_type == TokenType.R_PAREN:
            depth -= 1
            if depth == 0:
                return j
    raise ValueError("unbalanced")


def _open(toks: list[Token], j: int) -> int:
    depth = 0
    for i in range(j, -1, -1):
        if toks[i].token_type == TokenType.R_PAREN:
            depth += 1
        elif toks[i].token_type == TokenType.L_PAREN:
            depth -= 1
            if depth == 0:
                return i
    raise ValueError("unbalanced")


def _depths(toks: list[Token]) -> list[int]:
    out, d = [], 0
    for t in toks:
        if t.token_type == TokenType.R_PAREN:
            d -= 1
        out.append(d)
        if t.token_type == TokenType.L_PAREN:
            d += 1
    return out


def _span(sql: str, toks: list[Token], i: int, j: int) -> str:
    """Source text from token i to token j (inclusive)."""
    return sql[toks[i].start:toks[j].end + 1]


def _is_ident(tok: Token) -> bool:
    return tok.token_type in (TokenType.VAR, TokenType.IDENTIFIER) or (
        re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", tok.text) is not None and _up(tok) not in _CLAUSE_WORDS)


_CLAUSE_WORDS = {"SELECT", "FROM", "WHERE", "GROUP", "ORDER", "BY", "HAVING", "LIMIT", "OFFSET", "AND", "OR", "NOT",
                 "ON", "JOIN", "LEFT", "RIGHT", "INNER", "OUTER", "FULL", "CROSS", "AS", "IN", "IS", "NULL", "CASE",
                 "WHEN", "THEN", "ELSE", "END", "DISTINCT", "UNION", "ALL", "WITH", "LIKE", "ILIKE", "BETWEEN", "ASC",
                 "DESC", "NULLS", "FIRST", "LAST", "EXISTS", "INTERSECT", "EXCEPT", "USING", "FETCH", "OVER"}
_AGGS = {"COUNT", "SUM", "AVG", "MIN", "MAX", "TOTAL", "GROUP_CONCAT", "STRING_AGG", "ARRAY_AGG"}
_FUNCS = _AGGS | {"CAST", "COALESCE", "NULLIF", "ROUND", "ABS", "LENGTH", "LOWER", "UPPER", "TRY_CAST", "IFNULL",
                  "EXTRACT", "STRFTIME", "DATE", "JULIANDAY", "SUBSTR", "SUBSTRING", "TRIM", "DATE_PART",
                  "DATE_TRUNC", "TO_CHAR", "FLOOR", "CEIL", "CEILING"}


def _colref(toks: list[Token], i: int) -> int | None:
    """End index of a column reference ``a`` / ``a.b`` starting at i, or None."""
    if i >= len(toks) or not _is_ident(toks[i]) or _up(toks[i]) in _FUNCS:
        return None
    j = i
    while j + 2 < len(toks) and toks[j + 1].token_type == TokenType.DOT and _is_ident(toks[j + 2]):
        j += 2
    if j + 1 < len(toks) and toks[j + 1].token_type == TokenType.L_PAREN:
        return None
    return j


def _top(toks: list[Token], word: str, depth: int = 0) -> list[int]:
    d = _depths(toks)
    return [i for i, t in enumerate(toks) if d[i] == depth and _up(t) == word]


def _clause_end(toks: list[Token], start: int, stops: tuple[str, ...]) -> int:
    """Index of the first depth-0 token after ``start`` whose word is one of ``stops`` (len(toks) if none)."""
    d = _depths(toks)
    base = d[start]
    for k in range(start + 1, len(toks)):
        if d[k] < base:
            return k
        if d[k] == base and (_up(toks[k]) in stops or toks[k].token_type == TokenType.SEMICOLON):
            return k
    return len(toks)


# ----------------------------------------------------------------------------------------------------------------
# replies


_INTROS = (
    "Here is the SQL query that answers your question:",
    "Sure! The following query should give you what you need.",
    "You can get this with the query below.",
    "To answer this, we can run:",
    "Here's a query for that:",
)
_OUTROS = (
    "This returns the requested rows.",
    "Let me know if you want it adjusted.",
    "The query uses the tables from the schema you provided.",
    "",
)


def _plain(sql: str, rng: random.Random) -> str:
    intro, outro = rng.choice(_INTROS), rng.choice(_OUTROS)
    body = sql.rstrip().rstrip(";") + ";"
    return f"{intro}\n\n```sql\n{body}\n```\n" + (f"\n{outro}\n" if outro else "")


def _oneline(sql: str) -> str:
    return re.sub(r"\s+", " ", sql).strip()


def _clauses(sql: str) -> list[str]:
    """The query broken before its major clauses (for layouts that show it over lines)."""
    toks = _toks(sql)
    d = _depths(toks)
    cuts = [0]
    for i, t in enumerate(toks):
        if i and d[i] == 0 and _up(t) in ("FROM", "WHERE", "GROUP", "ORDER", "HAVING", "LIMIT", "JOIN", "LEFT",
                                           "INNER", "UNION"):
            prev = _up(toks[i - 1])
            if _up(t) == "JOIN" and prev in ("LEFT", "INNER", "RIGHT", "OUTER", "FULL", "CROSS"):
                continue
            cuts.append(t.start)
    cuts.append(len(sql))
    return [sql[a:b].strip() for a, b in zip(cuts, cuts[1:]) if sql[a:b].strip()]


# ----------------------------------------------------------------------------------------------------------------
# family A: layouts and wrappers


def _toml_reply(sql: str, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    body = "\n".join(_clauses(sql))
    doc = ('[answer]\nsummary = "Query that answers the question"\ndialect = "sql"\n'
           f"sql = '''\n{body}\n'''\n\n[answer.notes]\nverified = false\n")
    reply = doc if rng.random() < 0.5 else f"```toml\n{doc}```\n"
    return reply, "reply is a TOML document holding the SQL in a multi-line literal string"


def _react_action_input(sql: str, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    thought = rng.choice(("I should query the database to answer this.",
                          "I know which tables hold this; I will run a query.",
                          "I need to look at the relevant tables and aggregate."))
    reply = (f"Thought: {thought}\nAction: sql_db_query\nAction Input: {_oneline(sql)}\n"
             "Observation: (waiting for the result)\nThought: Once I have the rows I can give the final answer.")
    return reply, "ReAct-style agent transcript; the SQL is the Action Input line"


def _sqlite_dot_commands(sql: str, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    dots = rng.choice((".headers on\n.mode column\n", ".mode box\n", ".headers on\n.mode table\n.nullvalue NULL\n"))
    body = sql.rstrip().rstrip(";") + ";"
    reply = (f"Run this in the sqlite3 shell:\n\n```sql\n{dots}{body}\n```\n\nThe dot-commands make the output "
             "easier to read.")
    return reply, "sqlite3 shell dot-commands before the query inside the SQL block"


def _mysql_vertical_g(sql: str, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    body = sql.rstrip().rstrip(";") + "\\G"
    reply = (f"{rng.choice(_INTROS)}\n\n```sql\n{body}\n```\n\nI ended it with `\\G` so each row is printed "
             "vertically, which is easier to read for wide results.")
    return reply, "statement terminated with the MySQL client's \\G"


def _node_template_literal(sql: str, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    body = "\n".join("    " + line for line in _clauses(sql))
    lang = rng.choice(("javascript", "js"))
    reply = (f"You can run it from Node.js with `pg`:\n\n```{lang}\nconst {{ rows }} = await pool.query(`\n{body}\n`);"
             "\nconsole.table(rows);\n```\n")
    return reply, "SQL inside a node-postgres template literal in a JavaScript block"


def _rmarkdown_chunk(sql: str, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    opts = rng.choice(("sql, connection=con", "sql, connection=con, output.var=\"result\"", "sql answer, connection=db"))
    body = sql.rstrip().rstrip(";")
    reply = f"In your R Markdown document add this chunk:\n\n```{{{opts}}}\n{body}\n```\n\nKnit to see the table."
    return reply, "R Markdown SQL chunk with chunk options in the fence header"


def _html_line_breaks(sql: str, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    body = "<br>".join(_clauses(sql))
    reply = (f"<p>{rng.choice(_INTROS)}</p>\n<p><code>{body}</code></p>\n<p>{rng.choice(_OUTROS[:3])}</p>")
    return reply, "HTML reply, SQL clauses joined by <br> tags, no fence"


def _block_comment_unclosed(sql: str, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    head = rng.choice(("/* Query: answers the question using the schema above",
                       "/*\n * Purpose: compute the requested result\n * Tables: see FROM clause",
                       "/* Explanation: we select, filter and aggregate as asked"))
    body = sql.rstrip().rstrip(";") + ";"
    reply = f"{rng.choice(_INTROS)}\n\n```sql\n{head}\n{body}\n```\n"
    return reply, "a block comment opened over the query and never closed"


# ----------------------------------------------------------------------------------------------------------------
# family A: text slips


def _zero_width_joiners(sql: str, schema: Any, rng: random.Random) -> str | None:
    toks = _toks(sql)
    words = [t for t in toks if _up(t) in ("SELECT", "FROM", "WHERE", "GROUP", "ORDER", "JOIN") and len(t.text) >= 4]
    idents = [t for t in toks if t.token_type == TokenType.VAR and len(t.text) >= 4 and _up(t) not in _FUNCS]
    picks = []
    if words:
        picks.append(rng.choice(words))
    if idents:
        picks.append(rng.choice(idents))
    if not picks:
        return None
    edits = []
    for t in {id(p): p for p in picks}.values():
        cut = t.start + rng.randint(1, len(t.text) - 1)
        edits.append((cut, cut, "\u200b"))
    return _edit(sql, edits)


def _clickhouse_countif(sql: str, schema: Any, rng: random.Random) -> str | None:
    toks = _toks(sql)
    edits = []
    i = 0
    while i < len(toks) - 2:
        t = toks[i]
        if _up(t) in ("COUNT", "SUM") and toks[i + 1].token_type == TokenType.L_PAREN:
            close = _close(toks, i + 1)
            inner = toks[i + 2:close]
            words = [_up(x) for x in inner]
            if _up(t) == "COUNT" and words and words[0] == "DISTINCT" and "CASE" not in words:
                arg = _span(sql, toks, i + 3, close - 1)
                edits.append((t.start, toks[close].end + 1, f"uniqExact({arg})"))
                i = close + 1
                continue
            if (words[:2] == ["CASE", "WHEN"] and words[-1] == "END"
                    and "THEN" in words and words.count("CASE") == 1):
                th = words.index("THEN")
                tail = words[th + 1:-1]
                ok = (_up(t) == "COUNT" and tail in (["1"], ["1", "ELSE", "NULL"])) or (
                    _up(t) == "SUM" and tail == ["1", "ELSE", "0"])
                if ok:
                    cond = _span(sql, toks, i + 4, i + 2 + th - 1)
                    edits.append((t.start, toks[close].end + 1, f"countIf({cond})"))
                    i = close + 1
                    continue
        i += 1
    return _edit(sql, edits) if edits else None


def _try_cast_call(sql: str, schema: Any, rng: random.Random) -> str | None:
    toks = _toks(sql)
    edits = [(t.start, t.end + 1, "TRY_CAST") for i, t in enumerate(toks[:-1])
             if _up(t) == "CAST" and toks[i + 1].token_type == TokenType.L_PAREN]
    if not edits:  # PostgreSQL's x::type
        for i, t in enumerate(toks[:-1]):
            if t.token_type == TokenType.DCOLON and toks[i - 1].token_type == TokenType.R_PAREN:
                o = _open(toks, i - 1)
                start = o - 1 if o > 0 and _up(toks[o - 1]) in _FUNCS else o
                edits.append((toks[start].start, toks[i + 1].end + 1,
                              f"TRY_CAST({_span(sql, toks, start, i - 1)} AS {toks[i + 1].text.upper()})"))
    return _edit(sql, edits) if edits else None


def _operand_start(toks: list[Token], j: int) -> int:
    """Start index of the operand that ends at token j."""
    if j >= 2 and toks[j - 1].token_type == TokenType.DCOLON:
        j -= 2
    if toks[j].token_type == TokenType.R_PAREN:
        o = _open(toks, j)
        if o > 0 and _up(toks[o - 1]) in _FUNCS:
            return o - 1
        return o
    while j >= 2 and toks[j - 1].token_type == TokenType.DOT:
        j -= 2
    return j


def _snowflake_div0(sql: str, schema: Any, rng: random.Random) -> str | None:
    toks = _toks(sql)
    edits = []
    for i, t in enumerate(toks[:-2]):
        if t.token_type == TokenType.SLASH and _up(toks[i + 1]) == "NULLIF" and \
                toks[i + 2].token_type == TokenType.L_PAREN:
            close = _close(toks, i + 2)
            d = _depths(toks)
            commas = [k for k in range(i + 3, close) if toks[k].token_type == TokenType.COMMA and d[k] == d[i + 3]]
            if len(commas) != 1 or _span(sql, toks, commas[0] + 1, close - 1).strip() not in ("0", "0.0"):
                continue
            a0 = _operand_start(toks, i - 1)
            num = _span(sql, toks, a0, i - 1)
            den = _span(sql, toks, i + 3, commas[0] - 1)
            edits.append((toks[a0].start, toks[close].end + 1, f"DIV0({num}, {den})"))
            break
    return _edit(sql, edits) if edits else None


def _in_list_unparenthesized(sql: str, schema: Any, rng: random.Random) -> str | None:
    toks = _toks(sql)
    for i, t in enumerate(toks[:-1]):
        if _up(t) == "IN" and toks[i + 1].token_type == TokenType.L_PAREN:
            close = _close(toks, i + 1)
            inner = toks[i + 2:close]
            if inner and all(x.token_type in (TokenType.STRING, TokenType.NUMBER, TokenType.COMMA) for x in inner):
                return _edit(sql, [(toks[i + 1].start, toks[i + 2].start, " "),
                                   (toks[close - 1].end + 1, toks[close].end + 1, "")])
    return None


def _cte_as_dropped(sql: str, schema: Any, rng: random.Random) -> str | None:
    toks = _toks(sql)
    for i, t in enumerate(toks[:-3]):
        if _up(t) == "WITH" and _up(toks[i + 2]) == "AS" and toks[i + 3].token_type == TokenType.L_PAREN:
            return _edit(sql, [(toks[i + 1].end + 1, toks[i + 3].start, " ")])
    return None


def _decimal_comma(sql: str, schema: Any, rng: random.Random) -> str | None:
    toks = _toks(sql)
    edits = [(t.start, t.end + 1, t.text.replace(".", ",")) for t in toks
             if t.token_type == TokenType.NUMBER and re.fullmatch(r"\d+\.\d+", t.text)]
    return _edit(sql, edits) if edits else None


def _isnull_function_call(sql: str, schema: Any, rng: random.Random) -> str | None:
    toks = _toks(sql)
    edits = []
    for i, t in enumerate(toks):
        if _up(t) != "IS" or i == 0:
            continue
        neg = i + 1 < len(toks) and _up(toks[i + 1]) == "NOT"
        k = i + 2 if neg else i + 1
        if k >= len(toks) or _up(toks[k]) != "NULL":
            continue
        s = i - 1
        while s >= 2 and toks[s - 1].token_type == TokenType.DOT:
            s -= 2
        if _colref(toks, s) != i - 1:
            continue
        col = _span(sql, toks, s, i - 1)
        edits.append((toks[s].start, toks[k].end + 1, f"{'NOT ' if neg else ''}ISNULL({col})"))
    return _edit(sql, edits) if edits else None


def _order_direction_first(sql: str, schema: Any, rng: random.Random) -> str | None:
    toks = _toks(sql)
    d = _depths(toks)
    for o in [i for i, t in enumerate(toks) if t.token_type == TokenType.ORDER_BY]:
        end = _clause_end(toks, o, ("LIMIT", "OFFSET", "FETCH", "UNION"))
        stop = next((k for k in range(o + 1, end) if toks[k].token_type == TokenType.COMMA and d[k] == d[o]), end)
        dirs = [k for k in range(o + 1, stop) if _up(toks[k]) in ("DESC", "ASC") and d[k] == d[o]]
        if not dirs or dirs[0] == o + 1:
            continue
        k = dirs[0]
        key = _span(sql, toks, o + 1, k - 1)
        return _edit(sql, [(toks[o + 1].start, toks[k].end + 1, f"{toks[k].text} {key}")])
    return None


def _case_when_dropped(sql: str, schema: Any, rng: random.Random) -> str | None:
    toks = _toks(sql)
    for i, t in enumerate(toks[:-1]):
        if _up(t) == "CASE" and _up(toks[i + 1]) == "WHEN":
            return _edit(sql, [(t.end + 1, toks[i + 1].end + 1, "")])
    return None


# ----------------------------------------------------------------------------------------------------------------
# family B: runs, answers another question


_NUMERIC = re.compile(r"int|real|float|double|numeric|decimal|number|money", re.I)


def _col_types(schema: Any) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for table in getattr(schema, "tables", ()):
        for col in table.columns:
            out.setdefault(col.name.lower(), set()).add(col.type or "")
    return out


def _tables_in_from(toks: list[Token]) -> dict[str, str]:
    """alias or table name (lower) -> table name, from FROM/JOIN items."""
    out: dict[str, str] = {}
    for i, t in enumerate(toks[:-1]):
        if _up(t) in ("FROM", "JOIN") or (t.token_type == TokenType.COMMA and i and any(
                _up(x) == "FROM" for x in toks[max(0, i - 6):i])):
            k = i + 1
            if not _is_ident(toks[k]):
                continue
            name = toks[k].text
            while k + 2 < len(toks) and toks[k + 1].token_type == TokenType.DOT:
                k += 2
                name = toks[k].text
            out[name.lower()] = name
            a = k + 1
            if a < len(toks) and _up(toks[a]) == "AS":
                a += 1
            if a < len(toks) and toks[a].token_type in (TokenType.VAR, TokenType.IDENTIFIER) \
                    and _up(toks[a]) not in _CLAUSE_WORDS:
                out[toks[a].text.lower()] = name
    return out


def _label_of(table: Any, avoid: set[str]) -> str | None:
    names = [c.name for c in table.columns]
    for want in ("name", "title"):
        for n in names:
            if n.lower() == want and n.lower() not in avoid:
                return n
    for c in table.columns:
        n = c.name.lower()
        if (n.endswith("_name") or n.endswith("name") or n.endswith("title")) and n not in avoid:
            return c.name
    return None


def _csharp_dapper_verbatim(sql: str, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    body = "\n".join("    " + line.replace('"', '""') for line in _clauses(sql))
    reply = ("With Dapper in C#:\n\n```csharp\nconst string sql = @\"\n" + body + "\n\";\n"
             "var rows = await connection.QueryAsync(sql);\n```\n")
    return reply, "SQL inside a C# verbatim string passed to Dapper"


def _ratio_denominator_dropped(sql: str, schema: Any, rng: random.Random) -> str | None:
    toks = _toks(sql)
    for i, t in enumerate(toks[:-2]):
        if t.token_type != TokenType.SLASH:
            continue
        k = i + 1
        if _up(toks[k]) in ("NULLIF", "COUNT", "SUM", "CAST") and toks[k + 1].token_type == TokenType.L_PAREN:
            close = _close(toks, k + 1)
            if close + 2 < len(toks) and toks[close + 1].token_type == TokenType.DCOLON:
                close += 2
            return _edit(sql, [(toks[i - 1].end + 1, toks[close].end + 1, "")])
    return None


_INEXACT = re.compile(r"real|float|double|numeric|decimal", re.I)


def _round_inside_aggregate(sql: str, schema: Any, rng: random.Random) -> str | None:
    toks = _toks(sql)
    types: dict[str, set[str]] = {}
    for table in getattr(schema, "tables", ()):
        for col in table.columns:
            types.setdefault(col.name.lower(), set()).add(col.type or "")
    edits = []
    for i, t in enumerate(toks[:-3]):
        if _up(t) in ("AVG", "SUM") and toks[i + 1].token_type == TokenType.L_PAREN:
            end = _colref(toks, i + 2)
            if end is None or toks[end + 1].token_type != TokenType.R_PAREN:
                continue
            tys = types.get(toks[end].text.lower(), set())
            if not tys or not all(_INEXACT.search(ty) for ty in tys):
                continue
            col = _span(sql, toks, i + 2, end)
            edits.append((toks[i + 2].start, toks[end].end + 1, f"ROUND({col})"))
    return _edit(sql, edits) if edits else None


_TEXT = re.compile(r"char|text|string|clob", re.I)


def _output_label_lowercased(sql: str, schema: Any, rng: random.Random) -> str | None:
    toks = _toks(sql)
    if _top(toks, "UNION"):
        return None
    types = {}
    for table in getattr(schema, "tables", ()):
        for col in table.columns:
            types.setdefault(col.name.lower(), set()).add(col.type or "")
    for a, b in _select_items(sql, toks):
        b2 = _strip_alias(toks, a, b)
        if _colref(toks, a) != b2:
            continue
        name = toks[b2].text
        if not any(_TEXT.search(ty) for ty in types.get(name.lower(), ())):
            continue
        expr = _span(sql, toks, a, b2)
        alias = "" if b2 != b else f" AS {name}"
        edits = [(toks[a].start, toks[b2].end + 1, f"LOWER({expr}){alias}")]
        low = expr.lower()
        d = _depths(toks)
        for g in [i for i, t in enumerate(toks) if t.token_type in (TokenType.GROUP_BY, TokenType.ORDER_BY)
                  and d[i] == 0]:
            end = _clause_end(toks, g, ("HAVING", "ORDER", "LIMIT", "OFFSET", "UNION"))
            k = g + 1
            while k < end:
                e = _colref(toks, k)
                if e is not None and e < end and _span(sql, toks, k, e).lower() == low and \
                        toks[k - 1].token_type != TokenType.DOT:
                    edits.append((toks[k].start, toks[e].end + 1, f"LOWER({expr})"))
                    k = e + 1
                else:
                    k += 1
        return _edit(sql, edits)
    return None



def _select_items(sql: str, toks: list[Token]) -> list[tuple[int, int]]:
    """(first, last) token indices of the outermost SELECT's items."""
    d = _depths(toks)
    s = next(i for i, t in enumerate(toks) if _up(t) == "SELECT" and d[i] == 0)
    f = next(i for i in range(s, len(toks)) if _up(toks[i]) == "FROM" and d[i] == 0)
    a = s + 1
    if _up(toks[a]) == "DISTINCT":
        a += 1
    items, cur = [], a
    for k in range(a, f):
        if toks[k].token_type == TokenType.COMMA and d[k] == 0:
            items.append((cur, k - 1))
            cur = k + 1
    items.append((cur, f - 1))
    return items


def _strip_alias(toks: list[Token], a: int, b: int) -> int:
    if b - 1 >= a and _up(toks[b - 1]) == "AS":
        return b - 2
    if b > a and toks[b].token_type in (TokenType.VAR, TokenType.IDENTIFIER) and \
            toks[b - 1].token_type not in (TokenType.DOT, TokenType.L_PAREN) and \
            toks[b - 1].token_type in (TokenType.R_PAREN, TokenType.VAR, TokenType.IDENTIFIER):
        return b - 1
    return b


def _sort_label_first(sql: str, schema: Any, rng: random.Random) -> str | None:
    toks = _toks(sql)
    if _top(toks, "UNION") or not _top(toks, "LIMIT"):
        return None
    orders = [o for o in _top(toks, "ORDER") if toks[o].token_type == TokenType.ORDER_BY]
    if not orders:
        return None
    o = orders[-1]
    key_end = _clause_end(toks, o, ("LIMIT", "OFFSET", "FETCH"))
    keys = _span(sql, toks, o + 1, key_end - 1).lower()
    for a, b in _select_items(sql, toks):
        b2 = _strip_alias(toks, a, b)
        if any(_up(x) in _AGGS for x in toks[a:b2 + 1]) or toks[a].token_type == TokenType.STAR:
            continue
        expr = _span(sql, toks, a, b2)
        if expr.lower() in keys:
            return None
        return _edit(sql, [(toks[o + 1].start, toks[o + 1].start, f"{expr}, ")])
    return None


def _having_to_row_filter(sql: str, schema: Any, rng: random.Random) -> str | None:
    toks = _toks(sql)
    hs = _top(toks, "HAVING")
    if not hs:
        return None
    h = hs[0]
    end = _clause_end(toks, h, ("ORDER", "LIMIT", "UNION", "OFFSET"))
    if h + 2 >= end or _up(toks[h + 1]) not in ("AVG", "SUM", "MIN", "MAX") or \
            toks[h + 2].token_type != TokenType.L_PAREN:
        return None
    close = _close(toks, h + 2)
    if _colref(toks, h + 3) != close - 1:
        return None
    col = _span(sql, toks, h + 3, close - 1)
    rest = _span(sql, toks, close + 1, end - 1)
    if re.search(r"\b(AND|OR)\b", rest, re.I):
        return None
    cond = f"{col} {rest}"
    removal = (toks[h - 1].end + 1, toks[end - 1].end + 1, "")
    ws = _top(toks, "WHERE")
    if ws:
        return _edit(sql, [removal, (toks[ws[0]].end + 1, toks[ws[0]].end + 1, f" {cond} AND")])
    g = _top(toks, "GROUP")
    if not g:
        return None
    return _edit(sql, [removal, (toks[g[0]].start, toks[g[0]].start, f"WHERE {cond} ")])


def _filter_column_grouped(sql: str, schema: Any, rng: random.Random) -> str | None:
    toks = _toks(sql)
    if _top(toks, "GROUP") or _top(toks, "UNION") or _top(toks, "WITH"):
        return None
    items = _select_items(sql, toks)
    if not all(any(_up(x) in _AGGS for x in toks[a:b + 1]) for a, b in items):
        return None
    ws = _top(toks, "WHERE")
    if not ws:
        return None
    w = ws[0]
    end = _clause_end(toks, w, ("ORDER", "LIMIT", "OFFSET"))
    col = None
    ranges = (TokenType.GT, TokenType.LT, TokenType.GTE, TokenType.LTE, TokenType.NEQ)
    for k in range(w + 1, end):
        e = _colref(toks, k)
        if e is None or toks[k - 1].token_type == TokenType.DOT:
            continue
        n = e + 1
        while n < end and toks[n].token_type == TokenType.R_PAREN:
            n += 1
        if n >= end:
            continue
        pat = next((x.text for x in toks[n + 1:min(end, n + 4)] if x.token_type == TokenType.STRING), "")
        if toks[n].token_type in ranges or (_up(toks[n]) in ("LIKE", "ILIKE") and "%" in pat
                                             and not pat.startswith("%")):
            col = _span(sql, toks, k, e)
            break
    if col is None:
        return None
    at = toks[end - 1].end + 1
    return _edit(sql, [(at, at, f" GROUP BY {col}")])


def _substr_zero_based(sql: str, schema: Any, rng: random.Random) -> str | None:
    toks = _toks(sql)
    edits = []
    for i, t in enumerate(toks[:-1]):
        if _up(t) in ("SUBSTR", "SUBSTRING") and toks[i + 1].token_type == TokenType.L_PAREN:
            close = _close(toks, i + 1)
            d = _depths(toks)
            for k in range(i + 2, close):
                if d[k] == d[i + 2] and (toks[k].token_type == TokenType.COMMA or _up(toks[k]) == "FROM"):
                    if toks[k + 1].text == "1":
                        edits.append((toks[k + 1].start, toks[k + 1].end + 1, "0"))
                    break
    return _edit(sql, edits) if edits else None


def _ratio_denominator_unfiltered(sql: str, schema: Any, rng: random.Random) -> str | None:
    toks = _toks(sql)
    ws = _top(toks, "WHERE")
    if not ws or _top(toks, "JOIN") or _top(toks, "GROUP"):
        return None
    froms = _top(toks, "FROM")
    if len(froms) != 1 or not _is_ident(toks[froms[0] + 1]):
        return None
    table = toks[froms[0] + 1].text
    for i, t in enumerate(toks[:-4]):
        if t.token_type == TokenType.SLASH:
            k = i + 1
            if _up(toks[k]) == "NULLIF" and toks[k + 1].token_type == TokenType.L_PAREN:
                k += 2
            if _up(toks[k]) != "COUNT" or toks[k + 1].token_type != TokenType.L_PAREN:
                continue
            close = _close(toks, k + 1)
            inner = [_up(x) for x in toks[k + 2:close]]
            if "CASE" in inner or "DISTINCT" in inner:
                continue
            return _edit(sql, [(toks[k].start, toks[close].end + 1, f"(SELECT COUNT(*) FROM {table})")])
    return None


def _union_dedup(sql: str, schema: Any, rng: random.Random) -> str | None:
    toks = _toks(sql)
    edits = [(t.end + 1, toks[i + 1].end + 1, "") for i, t in enumerate(toks[:-1])
             if _up(t) == "UNION" and _up(toks[i + 1]) == "ALL"]
    return _edit(sql, edits[:1]) if edits else None


def _or_split_union_all(sql: str, schema: Any, rng: random.Random) -> str | None:
    toks = _toks(sql)
    if _top(toks, "GROUP") or _top(toks, "UNION") or _top(toks, "WITH") or _top(toks, "LIMIT"):
        return None
    items = _select_items(sql, toks)
    if any(any(_up(x) in _AGGS for x in toks[a:b + 1]) for a, b in items):
        return None
    ws = _top(toks, "WHERE")
    if not ws:
        return None
    w = ws[0]
    end = _clause_end(toks, w, ("ORDER", "LIMIT", "OFFSET"))
    ors = [k for k in _top(toks, "OR") if w < k < end]
    ands = [k for k in _top(toks, "AND") if w < k < end and not any(
        _up(toks[j]) == "BETWEEN" for j in range(max(w, k - 4), k))]
    if len(ors) != 1 or ands:
        return None
    o = ors[0]
    head = sql[:toks[w].end + 1]
    left = _span(sql, toks, w + 1, o - 1)
    right = _span(sql, toks, o + 1, end - 1)
    return f"{head} {left}\nUNION ALL\n{head} {right}"


def _between_endpoints_in_list(sql: str, schema: Any, rng: random.Random) -> str | None:
    toks = _toks(sql)
    for i, t in enumerate(toks[:-3]):
        if _up(t) == "BETWEEN" and _up(toks[i + 2]) == "AND" and \
                toks[i + 1].token_type in (TokenType.NUMBER, TokenType.STRING) and \
                toks[i + 3].token_type in (TokenType.NUMBER, TokenType.STRING):
            lo, hi = _span(sql, toks, i + 1, i + 1), _span(sql, toks, i + 3, i + 3)
            return _edit(sql, [(t.start, toks[i + 3].end + 1, f"IN ({lo}, {hi})")])
    return None


# ----------------------------------------------------------------------------------------------------------------

_LAYOUTS: dict[str, Callable[[str, Any, random.Random], tuple[str, str] | None]] = {
    "toml_reply": _toml_reply,
    "react_action_input": _react_action_input,
    "sqlite_dot_commands": _sqlite_dot_commands,
    "mysql_vertical_g": _mysql_vertical_g,
    "node_template_literal": _node_template_literal,
    "rmarkdown_chunk": _rmarkdown_chunk,
    "html_line_breaks": _html_line_breaks,
    "block_comment_unclosed": _block_comment_unclosed,
    "csharp_dapper_verbatim": _csharp_dapper_verbatim,
}
_EDITS: dict[str, tuple[Callable[[str, Any, random.Random], str | None], str]] = {
    "zero_width_joiners": (_zero_width_joiners, "zero-width spaces inside a keyword and an identifier"),
    "clickhouse_countif": (_clickhouse_countif, "ClickHouse countIf / uniqExact aggregates"),
    "try_cast_call": (_try_cast_call, "CAST written as TRY_CAST"),
    "snowflake_div0": (_snowflake_div0, "guarded division written as Snowflake DIV0(a, b)"),
    "in_list_unparenthesized": (_in_list_unparenthesized, "IN list without parentheses"),
    "cte_as_dropped": (_cte_as_dropped, "AS missing after the CTE name"),
    "decimal_comma": (_decimal_comma, "decimal comma in numeric literals"),
    "isnull_function_call": (_isnull_function_call, "IS NULL written as ISNULL(x)"),
    "order_direction_first": (_order_direction_first, "sort direction written before its key"),
    "case_when_dropped": (_case_when_dropped, "first WHEN of a CASE missing"),
    "ratio_denominator_dropped": (_ratio_denominator_dropped, "the ratio's division left out: the numerator alone"),
    "round_inside_aggregate": (_round_inside_aggregate, "ROUND() put inside AVG/SUM: each value rounded to a whole number first"),
    "output_label_lowercased": (_output_label_lowercased, "output label (and its grouping) wrapped in LOWER()"),
    "sort_label_first": (_sort_label_first, "label column put first in a top-N ORDER BY"),
    "having_to_row_filter": (_having_to_row_filter, "HAVING on an aggregate moved to a row filter in WHERE"),
    "filter_column_grouped": (_filter_column_grouped, "scalar aggregate grouped by its filter column"),
    "substr_zero_based": (_substr_zero_based, "SUBSTR start written 0-based"),
    "ratio_denominator_unfiltered": (_ratio_denominator_unfiltered, "ratio denominator over the whole table"),
    "union_dedup": (_union_dedup, "UNION ALL written UNION"),
    "or_split_union_all": (_or_split_union_all, "OR filter split into two SELECTs with UNION ALL"),
    "between_endpoints_in_list": (_between_endpoints_in_list, "BETWEEN written as IN (low, high)"),
}


def damage(gold_sql: str, schema: Any, kind: str, seed: int) -> Damaged | None:
    """The whole reply for ``gold_sql`` damaged in ``kind``, or None where the kind does not apply."""
    try:
        rng = random.Random(f"fresh19|{kind}|{seed}|{gold_sql}")
        sql = gold_sql.strip().rstrip(";").strip()
        if not sql:
            return None
        if kind == "clean":
            return Damaged(kind, _plain(sql, rng), "the gold query, fenced")
        if kind in _LAYOUTS:
            out = _LAYOUTS[kind](sql, schema, rng)
            if out is None:
                return None
            return Damaged(kind, out[0], out[1])
        if kind in _EDITS:
            fn, note = _EDITS[kind]
            new = fn(sql, schema, rng)
            if new is None or new.strip().rstrip(";").strip() == sql:
                return None
            return Damaged(kind, _plain(new, rng), note)
        return None
    except Exception:  # noqa: BLE001 - a generator never raises
        return None
