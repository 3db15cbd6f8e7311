"""Held-out damage generator fresh24: realistic damaged replies of 7B-8B coder models, made from gold queries.

Written from the brief alone (no repair, check or extraction code read). Every kind is a text edit of the gold
query (positions found with sqlglot's tokenizer or parse tree) or a reply layout around it; nothing is re-rendered
from a tree. ``damage`` returns None where a kind does not apply, where the edit leaves the SQL unchanged, or on any
exception.

Family A: the reply as written fails, or its SQL is hard to find. Family B: the SQL runs and answers a different
question.

| kind                           | family | what the reply does                                                        |
|--------------------------------|--------|----------------------------------------------------------------------------|
| clean                          | -      | the gold query, fenced, in an ordinary reply                               |
| lua_long_bracket               | A      | a Lua (LuaSQL) script; the query sits in a ``[[ ... ]]`` long string       |
| haskell_sql_quasiquote         | A      | Haskell postgresql-simple code; the query in a ``[sql| ... |]`` quasiquote  |
| delphi_sql_add_lines           | A      | Delphi ``Query1.SQL.Add('...')`` per line, quotes doubled Pascal-style     |
| matlab_database_fetch          | A      | MATLAB ``fetch(conn, [...])`` with a char-array concatenation of lines     |
| stata_odbc_load                | A      | Stata ``odbc load, exec(...)`` with the query in a compound-quoted local   |
| lookml_derived_table           | A      | a LookML view whose ``derived_table: { sql: ... ;; }`` holds the query     |
| embedded_exec_sql              | A      | embedded SQL (Pro*C or COBOL): ``EXEC SQL DECLARE c CURSOR FOR ...``       |
| install_command_first          | A      | a shell block installing a driver comes first, the SQL block after it      |
| empty_block_first              | A      | an empty / placeholder ```sql block first, the real one after it           |
| check_query_appended           | A      | a second "sanity check" statement (row count / preview) after the query    |
| is_in_operator                 | A      | ``x IS IN (...)`` / ``x IS NOT IN (...)`` (IS NULL habit carried to IN)     |
| between_to                     | A      | ``BETWEEN a TO b`` (range written the way it is said)                      |
| select_list_parenthesized      | A      | the select list wrapped in one pair of parentheses: ``SELECT (a, b)``      |
| lcase_ucase_functions          | A      | ``LCASE()`` / ``UCASE()`` (MySQL/Access/ODBC) for ``LOWER()`` / ``UPPER()`` |
| select_unique_oracle           | A      | Oracle's ``SELECT UNIQUE`` for ``SELECT DISTINCT``                         |
| args_semicolon_separated       | A      | function arguments separated by ``;`` (spreadsheet-locale habit)           |
| literal_quotes_doubled         | A      | string literals over-escaped: ``''Machine Learning''``                     |
| like_to_glob                   | A      | ``GLOB`` used with LIKE's ``%`` wildcards (SQLite: runs, matches nothing)   |
| access_hash_date_literal       | A      | MS Access date literals ``#2023-01-01#``                                   |
| arith_parens_dropped           | B      | grouping parentheses of a sum/difference dropped: ``a - b / c``            |
| change_over_new_base           | B      | relative change divided by the new value, not the old: ``(a - b) / a``     |
| inclusive_day_count_plus_one   | B      | a day difference made "inclusive": ``+ 1`` added                           |
| window_order_direction_flipped | B      | the ORDER BY inside OVER (...) sorted the other way                        |
| lag_lead_swapped               | B      | ``LAG`` and ``LEAD`` swapped                                               |
| lag_default_zero               | B      | ``LAG(x, 1)`` given a default 0 "to avoid NULLs" (first row changes)       |
| row_number_zero_based          | B      | a row-number / rank filter read as zero-based: ``rn = 0``, ``<= n - 1``    |
| zero_default_dropped           | B      | ``COALESCE(x, 0)`` dropped: empty groups shown as NULL, not 0              |
| day_of_month_difference        | B      | elapsed days taken as a difference of day-of-month fields                  |
| date_cast_dropped              | B      | ``DATE(ts) = d`` compared without the cast: timestamps never equal a day   |
| all_of_as_any_of               | B      | "has all of the listed values" (HAVING COUNT(DISTINCT) = n) read as "any"  |
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.tokens import Token, TokenType

__all__ = ["DAMAGE_KINDS", "TREE_KINDS", "Damaged", "damage"]

DAMAGE_KINDS: tuple[str, ...] = (
    "clean",
    # family A
    "lua_long_bracket", "haskell_sql_quasiquote", "delphi_sql_add_lines", "matlab_database_fetch",
    "stata_odbc_load", "lookml_derived_table", "embedded_exec_sql", "install_command_first", "empty_block_first",
    "check_query_appended", "is_in_operator", "between_to", "select_list_parenthesized", "lcase_ucase_functions",
    "select_unique_oracle", "args_semicolon_separated", "literal_quotes_doubled", "like_to_glob",
    "access_hash_date_literal",
    # family B
    "arith_parens_dropped", "change_over_new_base", "inclusive_day_count_plus_one",
    "window_order_direction_flipped", "lag_lead_swapped", "lag_default_zero", "row_number_zero_based",
    "zero_default_dropped", "day_of_month_difference", "date_cast_dropped", "all_of_as_any_of",
)  # fmt: skip
TREE_KINDS: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Damaged:
    kind: str
    reply: str
    note: str


# --------------------------------------------------------------------------------------------------------------
# helpers


def _dialect(schema: Any) -> str:
    name = str(getattr(schema, "dialect", "") or "postgres").lower()
    return name if name in ("postgres", "sqlite", "duckdb", "mysql") else "postgres"


def _tokens(sql: str, dialect: str) -> list[Token]:
    return list(sqlglot.Dialect.get_or_raise(dialect).tokenize(sql))


def _depths(toks: list[Token]) -> list[int]:
    """Paren depth before each token (an L_PAREN has the depth outside it, an R_PAREN the depth inside)."""
    out, depth = [], 0
    for t in toks:
        if t.token_type == TokenType.R_PAREN:
            depth -= 1
            out.append(depth + 1)
            continue
        out.append(depth)
        if t.token_type == TokenType.L_PAREN:
            depth += 1
    return out


def _match(toks: list[Token]) -> dict[int, int]:
    """Index of the matching parenthesis, both ways."""
    stack: list[int] = []
    pairs: dict[int, int] = {}
    for i, t in enumerate(toks):
        if t.token_type == TokenType.L_PAREN:
            stack.append(i)
        elif t.token_type == TokenType.R_PAREN and stack:
            j = stack.pop()
            pairs[i], pairs[j] = j, i
    return pairs


def _edit(sql: str, edits: list[tuple[int, int, str]]) -> str:
    """Apply (start, end_exclusive, replacement) edits; later ones first so offsets hold."""
    for start, end, text in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        sql = sql[:start] + text + sql[end:]
    return sql


def _span(sql: str, toks: list[Token], i: int, j: int) -> str:
    """Source text from token i to token j inclusive."""
    return sql[toks[i].start : toks[j].end + 1]


def _up(t: Token) -> str:
    return t.text.upper()


_FUNC_BLOCKERS = {
    TokenType.IN, TokenType.EXISTS, TokenType.ALIAS, TokenType.ON, TokenType.AND, TokenType.OR, TokenType.NOT,
    TokenType.WHERE, TokenType.FROM, TokenType.JOIN, TokenType.SELECT, TokenType.OVER, TokenType.VALUES,
    TokenType.USING, TokenType.WITH, TokenType.HAVING, TokenType.COMMA, TokenType.L_PAREN, TokenType.R_PAREN,
    TokenType.STRING, TokenType.NUMBER, TokenType.PLUS, TokenType.DASH, TokenType.STAR, TokenType.SLASH,
    TokenType.MOD, TokenType.EQ, TokenType.NEQ, TokenType.GT, TokenType.GTE, TokenType.LT, TokenType.LTE,
    TokenType.WHEN, TokenType.THEN, TokenType.ELSE, TokenType.CASE, TokenType.BETWEEN, TokenType.LIKE,
    TokenType.ILIKE, TokenType.DPIPE, TokenType.ALL, TokenType.ANY, TokenType.DISTINCT, TokenType.UNION,
    TokenType.DCOLON, TokenType.DOT, TokenType.IS, TokenType.ORDER_BY, TokenType.GROUP_BY,
    TokenType.PARTITION_BY, TokenType.LIMIT, TokenType.OFFSET, TokenType.HAVING,
}  # fmt: skip


def _is_call(toks: list[Token], i: int) -> bool:
    """Token i is an L_PAREN opening a function call's arguments."""
    if i == 0 or toks[i].token_type != TokenType.L_PAREN:
        return False
    prev = toks[i - 1]
    if prev.token_type in _FUNC_BLOCKERS:
        return False
    return bool(re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", prev.text))


def _clause_lines(sql: str, dialect: str) -> list[str]:
    """The query as lines, one per clause (FROM / JOIN / WHERE / GROUP BY / ...), whitespace squeezed."""
    toks = _tokens(sql, dialect)
    breaks = {TokenType.FROM, TokenType.WHERE, TokenType.GROUP_BY, TokenType.ORDER_BY, TokenType.HAVING,
              TokenType.LIMIT, TokenType.UNION, TokenType.JOIN, TokenType.LEFT, TokenType.RIGHT, TokenType.INNER,
              TokenType.FULL, TokenType.CROSS, TokenType.OUTER}  # fmt: skip
    join_mods = {TokenType.LEFT, TokenType.RIGHT, TokenType.INNER, TokenType.FULL, TokenType.CROSS, TokenType.OUTER,
                 TokenType.NATURAL}  # fmt: skip
    cuts = [0]
    for i, t in enumerate(toks):
        if i == 0 or t.token_type not in breaks:
            continue
        if toks[i - 1].token_type in join_mods:
            continue  # "LEFT JOIN": cut before LEFT only
        if t.token_type in (TokenType.LEFT, TokenType.RIGHT) and i + 1 < len(toks) and \
                toks[i + 1].token_type == TokenType.L_PAREN:
            continue  # LEFT(...) the function
        cuts.append(t.start)
    cuts.append(len(sql))
    lines = [" ".join(sql[a:b].split()) for a, b in zip(cuts, cuts[1:])]
    return [line for line in lines if line]


def _one_line(sql: str) -> str:
    return " ".join(sql.split())


_INTROS = (
    "Here is the SQL query that answers your question:",
    "You can get this with the following query:",
    "Sure! This query should do it:",
    "Here's a query that returns what you asked for:",
    "The following SQL retrieves the requested data:",
)
_OUTROS = (
    "Let me know if you need any adjustments.",
    "This joins the relevant tables and applies the filters from your question.",
    "Adjust the filters if your data uses different values.",
    "",
)


def _reply(sql: str, rng: random.Random) -> str:
    outro = rng.choice(_OUTROS)
    text = f"{rng.choice(_INTROS)}\n\n```sql\n{sql}\n```"
    return text + (f"\n\n{outro}" if outro else "")


def _tables(sql: str, dialect: str) -> list[str]:
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except sqlglot.errors.SqlglotError:  # not parsed: the first name after a FROM that is not a CTE
        toks = _tokens(sql, dialect)
        ctes = {toks[i - 1].text.lower() for i, t in enumerate(toks) if t.token_type == TokenType.ALIAS and i
                and i + 1 < len(toks) and toks[i + 1].token_type == TokenType.L_PAREN}
        return [toks[i + 1].text for i, t in enumerate(toks[:-1]) if t.token_type == TokenType.FROM
                and toks[i + 1].token_type == TokenType.VAR and toks[i + 1].text.lower() not in ctes][:1]
    names = []
    for t in tree.find_all(exp.Table):
        if not t.name:
            continue
        full = ".".join(p for p in (t.db, t.name) if p)
        if full not in names:
            names.append(full)
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    return [n for n in names if n.split(".")[-1].lower() not in ctes]


def _out_names(sql: str, dialect: str) -> list[str]:
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except sqlglot.errors.SqlglotError:
        return ["value"]
    sel = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    names = [n for n in (sel.named_selects if sel is not None else []) if re.fullmatch(r"[A-Za-z_]\w*", n or "")]
    return names or ["value"]


# --------------------------------------------------------------------------------------------------------------
# family A: wrappers and layouts (the whole reply)


def _lua(sql: str, dialect: str, schema: Any, rng: random.Random) -> tuple[str, str]:
    driver, conn = (("sqlite3", 'env:connect("database.sqlite")') if dialect == "sqlite" else
                    ("postgres", 'env:connect("analytics", "analyst", os.getenv("PGPASSWORD"), "localhost")'))
    body = "\n".join("  " + line for line in _clause_lines(sql, dialect))
    code = (f'local driver = require "luasql.{driver}"\n'
            f"local env = driver.{driver}()\n"
            f"local con = assert({conn})\n\n"
            f"local cur = assert(con:execute([[\n{body}\n]]))\n\n"
            'local row = cur:fetch({}, "a")\n'
            "while row do\n"
            "  for k, v in pairs(row) do io.write(k, \"=\", tostring(v), \"  \") end\n"
            "  print()\n"
            '  row = cur:fetch(row, "a")\n'
            "end\n"
            "cur:close()\ncon:close()\nenv:close()")
    intro = rng.choice(("Here is a Lua script using LuaSQL that runs the query:",
                        "Since you're working in Lua, you can run it with LuaSQL like this:"))
    return f"{intro}\n\n```lua\n{code}\n```\n\nThe long-bracket string keeps the SQL readable.", "Lua long string"


def _haskell(sql: str, dialect: str, schema: Any, rng: random.Random) -> tuple[str, str]:
    body = "\n".join("    " + line for line in _clause_lines(sql, dialect))
    code = ("{-# LANGUAGE QuasiQuotes #-}\n"
            "import Database.PostgreSQL.Simple\n"
            "import Database.PostgreSQL.Simple.SqlQQ (sql)\n\n"
            "main :: IO ()\n"
            "main = do\n"
            '  conn <- connectPostgreSQL "dbname=analytics"\n'
            "  rows <- query_ conn [sql|\n"
            f"{body}\n"
            "  |] :: IO [[Maybe String]]\n"
            "  mapM_ print rows")
    intro = rng.choice(("In Haskell with postgresql-simple:", "Here's how to run it from Haskell:"))
    return f"{intro}\n\n```haskell\n{code}\n```", "Haskell sql quasiquote"


def _delphi(sql: str, dialect: str, schema: Any, rng: random.Random) -> tuple[str, str]:
    lines = _clause_lines(sql, dialect)
    adds = "\n".join(f"  Query1.SQL.Add('{line.replace(chr(39), chr(39) * 2)}');" for line in lines)
    code = f"begin\n  Query1.Close;\n  Query1.SQL.Clear;\n{adds}\n  Query1.Open;\nend;"
    intro = rng.choice(("In Delphi you can load the query into a TQuery like this:",
                        "Here is the Delphi code with the SQL:"))
    return f"{intro}\n\n```pascal\n{code}\n```", "Delphi SQL.Add lines"


def _matlab(sql: str, dialect: str, schema: Any, rng: random.Random) -> tuple[str, str]:
    lines = _clause_lines(sql, dialect)
    parts = [f"'{line.replace(chr(39), chr(39) * 2)} '" for line in lines]
    joined = (" ...\n            ").join(parts)
    conn = "sqlite('database.sqlite')" if dialect == "sqlite" else "database('analytics', 'analyst', '')"
    code = (f"conn = {conn};\n"
            f"sqlquery = [{joined}];\n"
            "results = fetch(conn, sqlquery);\n"
            "disp(results)\n"
            "close(conn)")
    intro = rng.choice(("Using MATLAB's Database Toolbox:", "Here it is as MATLAB code:"))
    return f"{intro}\n\n```matlab\n{code}\n```", "MATLAB char-array concatenation"


def _stata(sql: str, dialect: str, schema: Any, rng: random.Random) -> tuple[str, str]:
    code = (f"local q `\"{_one_line(sql)}\"'\n"
            'odbc load, exec(`"`q\'"\') dsn("analytics") clear\n'
            "list, clean noobs")
    intro = rng.choice(("In Stata you can pull this straight from the database:",
                        "Here's the Stata code (odbc load):"))
    return f"{intro}\n\n```stata\n{code}\n```", "Stata odbc load"


def _lookml(sql: str, dialect: str, schema: Any, rng: random.Random) -> tuple[str, str]:
    body = "\n".join("      " + line for line in _clause_lines(sql, dialect))
    dims = "\n\n".join(f"  dimension: {n.lower()} {{\n    sql: ${{TABLE}}.{n} ;;\n  }}"
                       for n in _out_names(sql, dialect)[:4])
    code = (f"view: question_result {{\n  derived_table: {{\n    sql:\n{body} ;;\n  }}\n\n{dims}\n}}")
    intro = rng.choice(("You can model this in Looker as a derived table:",
                        "Here's a LookML view with the query as a derived table:"))
    return f"{intro}\n\n```lookml\n{code}\n```", "LookML derived table"


def _embedded(sql: str, dialect: str, schema: Any, rng: random.Random) -> tuple[str, str]:
    names = _out_names(sql, dialect)[:3]
    if rng.random() < 0.5:
        body = "\n".join("    " + line for line in _clause_lines(sql, dialect))
        hosts = ", ".join(f":{n.lower()}" for n in names)
        decls = "\n".join(f"  char {n.lower()}[256];" for n in names)
        code = ("EXEC SQL BEGIN DECLARE SECTION;\n" f"{decls}\n" "EXEC SQL END DECLARE SECTION;\n\n"
                "EXEC SQL DECLARE result_cursor CURSOR FOR\n" f"{body};\n\n"
                "EXEC SQL OPEN result_cursor;\n" "for (;;) {\n"
                f"  EXEC SQL FETCH result_cursor INTO {hosts};\n" "  if (sqlca.sqlcode != 0) break;\n"
                f'  printf("%s\\n", {names[0].lower()});\n' "}\n" "EXEC SQL CLOSE result_cursor;")
        return f"Here is the embedded SQL (Pro*C / ECPG) version:\n\n```c\n{code}\n```", "Pro*C EXEC SQL cursor"
    body = "\n".join("               " + line for line in _clause_lines(sql, dialect))
    hosts = ", ".join(f":WS-{n.upper().replace('_', '-')}" for n in names)
    code = ("           EXEC SQL\n" "               DECLARE RESULT-CUR CURSOR FOR\n" f"{body}\n"
            "           END-EXEC.\n" "           EXEC SQL OPEN RESULT-CUR END-EXEC.\n"
            "           PERFORM UNTIL SQLCODE NOT = 0\n"
            f"               EXEC SQL FETCH RESULT-CUR INTO {hosts} END-EXEC\n"
            f"               DISPLAY WS-{names[0].upper().replace('_', '-')}\n"
            "           END-PERFORM.\n" "           EXEC SQL CLOSE RESULT-CUR END-EXEC.")
    return f"In COBOL with embedded SQL:\n\n```cobol\n{code}\n```", "COBOL EXEC SQL cursor"


def _install_first(sql: str, dialect: str, schema: Any, rng: random.Random) -> tuple[str, str]:
    if dialect == "sqlite":
        cmd = rng.choice(("pip install sqlalchemy pandas", "sudo apt-get install -y sqlite3",
                          "brew install sqlite"))
    else:
        cmd = rng.choice(("pip install psycopg2-binary pandas", "sudo apt-get install -y postgresql-client",
                          "pip install sqlalchemy psycopg2-binary"))
    lang = rng.choice(("bash", "shell", "sh"))
    return (f"First make sure the client is installed:\n\n```{lang}\n{cmd}\n```\n\n"
            f"Then run this query:\n\n```sql\n{sql}\n```"), "install command block first"


def _empty_first(sql: str, dialect: str, schema: Any, rng: random.Random) -> tuple[str, str]:
    first = rng.choice(("```sql\n```", "```sql\n\n```", "```sql\n-- your query here\n```",
                        "```sql\n-- SQL query\n```"))
    return (f"Here is the SQL query:\n\n{first}\n\n```sql\n{sql}\n```\n\n"
            "This gives the result you asked for."), "empty placeholder block first"


def _check_appended(sql: str, dialect: str, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    tables = _tables(sql, dialect)
    if not tables:
        return None
    table = tables[0]
    check = rng.choice((f"-- sanity check: how many rows are there in total?\nSELECT COUNT(*) AS total_rows FROM {table};",
                        f"-- preview the base table to verify the data\nSELECT * FROM {table} LIMIT 5;"))
    text = f"{sql};\n\n{check}"
    return _reply(text, rng), "sanity-check statement appended"


# --------------------------------------------------------------------------------------------------------------
# family A: edits of the SQL text (return the edited SQL)


def _is_in(sql: str, dialect: str, rng: random.Random) -> str | None:
    toks = _tokens(sql, dialect)
    spots = []
    for i, t in enumerate(toks):
        if t.token_type == TokenType.IN and i + 1 < len(toks) and toks[i + 1].token_type == TokenType.L_PAREN:
            at = toks[i - 1].start if i and toks[i - 1].token_type == TokenType.NOT else t.start
            spots.append(at)
    if not spots:
        return None
    return _edit(sql, [(at, at, "IS ") for at in spots])


def _between_to(sql: str, dialect: str, rng: random.Random) -> str | None:
    toks = _tokens(sql, dialect)
    depth = _depths(toks)
    edits = []
    for i, t in enumerate(toks):
        if t.token_type != TokenType.BETWEEN:
            continue
        for k in range(i + 1, len(toks)):
            if toks[k].token_type == TokenType.AND and depth[k] == depth[i]:
                edits.append((toks[k].start, toks[k].end + 1, "TO"))
                break
    return _edit(sql, edits) if edits else None


def _main_select(toks: list[Token], depth: list[int]) -> tuple[int, int] | None:
    """(index of the first token of the top-level select list, index of its FROM)."""
    for i, t in enumerate(toks):
        if t.token_type == TokenType.SELECT and depth[i] == 0:
            start = i + 1
            while start < len(toks) and toks[start].token_type in (TokenType.DISTINCT, TokenType.ALL):
                start += 1
            for k in range(start, len(toks)):
                if toks[k].token_type == TokenType.FROM and depth[k] == 0:
                    return start, k
            return None
    return None


def _select_parens(sql: str, dialect: str, rng: random.Random) -> str | None:
    toks = _tokens(sql, dialect)
    depth = _depths(toks)
    found = _main_select(toks, depth)
    if found is None:
        return None
    a, f = found
    if f - a < 3 or not any(toks[k].token_type == TokenType.COMMA and depth[k] == 0 for k in range(a, f)):
        return None
    return _edit(sql, [(toks[a].start, toks[a].start, "("), (toks[f - 1].end + 1, toks[f - 1].end + 1, ")")])


def _lcase(sql: str, dialect: str, rng: random.Random) -> str | None:
    toks = _tokens(sql, dialect)
    edits = []
    for i, t in enumerate(toks[:-1]):
        if _up(t) in ("LOWER", "UPPER") and toks[i + 1].token_type == TokenType.L_PAREN:
            edits.append((t.start, t.end + 1, "LCASE" if _up(t) == "LOWER" else "UCASE"))
    return _edit(sql, edits) if edits else None


def _unique(sql: str, dialect: str, rng: random.Random) -> str | None:
    toks = _tokens(sql, dialect)
    edits = [(toks[i + 1].start, toks[i + 1].end + 1, "UNIQUE") for i, t in enumerate(toks[:-1])
             if t.token_type == TokenType.SELECT and toks[i + 1].token_type == TokenType.DISTINCT]
    return _edit(sql, edits) if edits else None


def _args_semicolon(sql: str, dialect: str, rng: random.Random) -> str | None:
    toks = _tokens(sql, dialect)
    stack: list[bool] = []
    edits = []
    for i, t in enumerate(toks):
        if t.token_type == TokenType.L_PAREN:
            stack.append(_is_call(toks, i) and _up(toks[i - 1]) not in ("IN", "VALUES"))
        elif t.token_type == TokenType.R_PAREN:
            if stack:
                stack.pop()
        elif t.token_type == TokenType.COMMA and stack and stack[-1]:
            edits.append((t.start, t.end + 1, ";"))
    return _edit(sql, edits) if edits else None


def _quotes_doubled(sql: str, dialect: str, rng: random.Random) -> str | None:
    toks = _tokens(sql, dialect)
    edits = []
    for t in toks:
        if t.token_type != TokenType.STRING:
            continue
        raw = sql[t.start : t.end + 1]
        if len(raw) >= 2 and raw[0] == "'" and raw[-1] == "'":
            edits.append((t.start, t.end + 1, "''" + raw[1:-1] + "''"))
    return _edit(sql, edits) if edits else None


def _glob(sql: str, dialect: str, rng: random.Random) -> str | None:
    toks = _tokens(sql, dialect)
    edits = [(t.start, t.end + 1, "GLOB") for t in toks if t.token_type in (TokenType.LIKE, TokenType.ILIKE)]
    return _edit(sql, edits) if edits else None


_DATE_LIT = re.compile(r"'(\d{4}-\d{2}-\d{2})( \d{2}:\d{2}(:\d{2})?)?'")


def _access_hash(sql: str, dialect: str, rng: random.Random) -> str | None:
    toks = _tokens(sql, dialect)
    edits = []
    for t in toks:
        if t.token_type != TokenType.STRING:
            continue
        raw = sql[t.start : t.end + 1]
        m = _DATE_LIT.fullmatch(raw)
        if m:
            edits.append((t.start, t.end + 1, f"#{raw[1:-1]}#"))
    return _edit(sql, edits) if edits else None


# --------------------------------------------------------------------------------------------------------------
# family B: edits of the SQL text


_ARITH = (TokenType.STAR, TokenType.SLASH, TokenType.MOD)


def _arith_parens(sql: str, dialect: str, rng: random.Random) -> str | None:
    toks = _tokens(sql, dialect)
    pairs = _match(toks)
    depth = _depths(toks)
    candidates = []
    for i, t in enumerate(toks):
        if t.token_type != TokenType.L_PAREN or _is_call(toks, i) or i not in pairs:
            continue
        if i and toks[i - 1].token_type in (TokenType.IN, TokenType.EXISTS, TokenType.OVER, TokenType.VALUES,
                                              TokenType.ALIAS):
            continue
        j = pairs[i]
        if j <= i + 1 or toks[i + 1].token_type in (TokenType.SELECT, TokenType.WITH):
            continue
        inner = [k for k in range(i + 1, j) if depth[k] == depth[i] + 1]
        has_sum = any(toks[k].token_type in (TokenType.PLUS, TokenType.DASH) and k > i + 1 and
                      toks[k - 1].token_type not in (TokenType.L_PAREN, TokenType.COMMA, *_ARITH,
                                                     TokenType.PLUS, TokenType.DASH) for k in inner)
        if not has_sum or any(toks[k].token_type in (TokenType.COMMA, TokenType.AND, TokenType.OR) for k in inner):
            continue
        after = toks[j + 1].token_type if j + 1 < len(toks) else None
        before = toks[i - 1].token_type if i else None
        if after in _ARITH or before in (*_ARITH, TokenType.DASH):
            candidates.append((i, j))
    if not candidates:
        return None
    i, j = candidates[0]
    return _edit(sql, [(toks[i].start, toks[i].end + 1, ""), (toks[j].start, toks[j].end + 1, "")])


def _operand_end(toks: list[Token], pairs: dict[int, int], k: int) -> int:
    """Last token index of the operand starting at token k (a column, a call, a parenthesised group)."""
    if k >= len(toks):
        return -1
    t = toks[k]
    if t.token_type == TokenType.L_PAREN:
        return pairs.get(k, -1)
    if k + 1 < len(toks) and toks[k + 1].token_type == TokenType.L_PAREN:
        return pairs.get(k + 1, -1)
    end = k
    while end + 2 < len(toks) and toks[end + 1].token_type == TokenType.DOT:
        end += 2
    return end


def _norm(text: str) -> str:
    return re.sub(r"\s+", "", text).lower()


def _change_base(sql: str, dialect: str, rng: random.Random) -> str | None:
    toks = _tokens(sql, dialect)
    pairs = _match(toks)
    depth = _depths(toks)
    for i, t in enumerate(toks):
        if t.token_type != TokenType.L_PAREN or _is_call(toks, i) or i not in pairs:
            continue
        j = pairs[i]
        if j + 2 >= len(toks) or toks[j + 1].token_type != TokenType.SLASH:
            continue
        minus = [k for k in range(i + 1, j) if depth[k] == depth[i] + 1 and toks[k].token_type == TokenType.DASH]
        if len(minus) != 1 or any(toks[k].token_type in (TokenType.PLUS, TokenType.COMMA)
                                  for k in range(i + 1, j) if depth[k] == depth[i] + 1):
            continue
        m = minus[0]
        x_text, y_text = _span(sql, toks, i + 1, m - 1), _span(sql, toks, m + 1, j - 1)
        d0 = j + 2
        d1 = _operand_end(toks, pairs, d0)
        if d1 < d0:
            continue
        target = (d0, d1)
        if _up(toks[d0]) == "NULLIF" and d0 + 1 < len(toks) and toks[d0 + 1].token_type == TokenType.L_PAREN:
            close = pairs.get(d0 + 1, -1)
            comma = next((k for k in range(d0 + 2, close) if toks[k].token_type == TokenType.COMMA and
                          depth[k] == depth[d0 + 1] + 1), None)
            if comma is None:
                continue
            target = (d0 + 2, comma - 1)
        elif toks[d0].token_type == TokenType.L_PAREN:
            target = (d0 + 1, d1 - 1)
        den = _span(sql, toks, *target)
        if _norm(den) == _norm(y_text):
            new = x_text
        elif _norm(den) == _norm(x_text):
            new = y_text
        else:
            continue
        return _edit(sql, [(toks[target[0]].start, toks[target[1]].end + 1, new)])
    return None


_DATE_NAME = re.compile(r"(date|_dt|day)$", re.IGNORECASE)


def _column_types(schema: Any) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for table in getattr(schema, "tables", ()) or ():
        for col in table.columns:
            out.setdefault(col.name.lower(), set()).add(str(col.type or "").lower())
    return out


def _day_differences(sql: str, dialect: str, schema: Any) -> list[tuple[int, int, int, int]]:
    """(left start, left end, right start, right end) token spans of elapsed-day subtractions: julianday(a) -
    julianday(b) in SQLite, date_col - date_col (both DATE) in PostgreSQL."""
    toks = _tokens(sql, dialect)
    pairs = _match(toks)
    aliases = _aliases(sql, dialect)
    out = []
    for k, t in enumerate(toks):
        if t.token_type != TokenType.DASH or k == 0 or k + 2 >= len(toks):
            continue
        right = toks[k + 1]
        if _up(right) == "JULIANDAY" and toks[k + 2].token_type == TokenType.L_PAREN:
            close = pairs.get(k + 2, -1)
            # the left operand: julianday(...) or MIN/MAX(julianday(...)) ending right before the minus
            if toks[k - 1].token_type != TokenType.R_PAREN or close < 0:
                continue
            open_ = pairs.get(k - 1, -1)
            if open_ < 1:
                continue
            lstart = open_ - 1
            if _up(toks[lstart]) in ("MIN", "MAX") and toks[open_ + 1].text.upper() == "JULIANDAY":
                pass
            elif _up(toks[lstart]) != "JULIANDAY":
                continue
            out.append((lstart, k - 1, k + 1, close))
            continue
        if dialect == "sqlite":
            continue
        end = _operand_end(toks, pairs, k + 1)
        if right.token_type != TokenType.VAR or toks[k - 1].token_type != TokenType.VAR:
            continue
        if end != k + 1 and not (end == k + 3 and toks[k + 2].token_type == TokenType.DOT):
            continue
        lstart = k - 3 if k >= 3 and toks[k - 2].token_type == TokenType.DOT else k - 1
        lqual = toks[k - 3].text if lstart == k - 3 else None
        rqual = toks[k + 1].text if end == k + 3 else None
        ltype = _col_type(schema, aliases, lqual, toks[k - 1].text)
        rtype = _col_type(schema, aliases, rqual, toks[end].text)
        if ltype == "date" and rtype == "date":
            out.append((lstart, k - 1, k + 1, end))
    return out


def _aliases(sql: str, dialect: str) -> dict[str, str]:
    """Table alias (or name) -> table name, lower case, for the tables the query reads."""
    out: dict[str, str] = {}
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except sqlglot.errors.SqlglotError:
        return out
    for t in tree.find_all(exp.Table):
        if t.name:
            out.setdefault(t.alias_or_name.lower(), t.name.lower())
    return out


def _col_type(schema: Any, aliases: dict[str, str], qualifier: str | None, name: str) -> str | None:
    """The declared type (lower case) of a column of the query's tables; None when unknown or ambiguous."""
    tables = {t.name.lower(): t for t in getattr(schema, "tables", ()) or ()}
    wanted = [aliases.get(qualifier.lower())] if qualifier else sorted(set(aliases.values()))
    found = set()
    for tname in wanted:
        table = tables.get(tname or "")
        col = table.column(name) if table is not None else None
        if col is not None:
            found.add(str(col.type or "").lower())
    return found.pop() if len(found) == 1 else None


def _day_plus_one(sql: str, dialect: str, schema: Any, rng: random.Random) -> str | None:
    toks = _tokens(sql, dialect)
    found = _day_differences(sql, dialect, schema)
    if not found:
        return None
    end = toks[found[0][3]].end + 1
    return _edit(sql, [(end, end, " + 1")])


def _day_of_month(sql: str, dialect: str, schema: Any, rng: random.Random) -> str | None:
    toks = _tokens(sql, dialect)
    edits = []
    for ls, le, rs, re_ in _day_differences(sql, dialect, schema):
        for a, b in ((ls, le), (rs, re_)):
            if dialect == "sqlite":
                j = a if _up(toks[a]) == "JULIANDAY" else a + 2
                if _up(toks[j]) != "JULIANDAY" or toks[j + 1].token_type != TokenType.L_PAREN:
                    return None
                edits.append((toks[j].start, toks[j + 1].end + 1, "strftime('%d', "))
            else:
                text = _span(sql, toks, a, b)
                edits.append((toks[a].start, toks[b].end + 1, f"EXTRACT(DAY FROM {text})"))
    return _edit(sql, edits) if edits else None

def _window_flip(sql: str, dialect: str, rng: random.Random) -> str | None:
    toks = _tokens(sql, dialect)
    pairs = _match(toks)
    depth = _depths(toks)
    edits = []
    for i, t in enumerate(toks):
        if t.token_type != TokenType.OVER or i + 1 >= len(toks) or toks[i + 1].token_type != TokenType.L_PAREN:
            continue
        o, c = i + 1, pairs.get(i + 1, -1)
        inner = depth[o] + 1
        ob = next((k for k in range(o + 1, c) if toks[k].token_type == TokenType.ORDER_BY and depth[k] == inner),
                  None)
        if ob is None:
            continue
        stop = next((k for k in range(ob + 1, c) if depth[k] == inner and _up(toks[k]) in ("ROWS", "RANGE",
                                                                                            "GROUPS")), c)
        keys, start = [], ob + 1
        for k in range(ob + 1, stop + 1):
            if k == stop or (toks[k].token_type == TokenType.COMMA and depth[k] == inner):
                keys.append((start, k - 1))
                start = k + 1
        for a, b in keys:
            if b < a:
                continue
            seg = [k for k in range(a, b + 1) if depth[k] == inner]
            direction = next((k for k in seg if toks[k].token_type in (TokenType.ASC, TokenType.DESC)), None)
            if direction is not None:
                new = "ASC" if toks[direction].token_type == TokenType.DESC else "DESC"
                edits.append((toks[direction].start, toks[direction].end + 1, new))
                continue
            nulls = next((k for k in seg if _up(toks[k]) == "NULLS"), None)
            last = (nulls - 1) if nulls is not None else b
            edits.append((toks[last].end + 1, toks[last].end + 1, " DESC"))
    return _edit(sql, edits) if edits else None


def _lag_lead(sql: str, dialect: str, rng: random.Random) -> str | None:
    toks = _tokens(sql, dialect)
    edits = [(t.start, t.end + 1, "LEAD" if _up(t) == "LAG" else "LAG") for i, t in enumerate(toks[:-1])
             if _up(t) in ("LAG", "LEAD") and toks[i + 1].token_type == TokenType.L_PAREN]
    return _edit(sql, edits) if edits else None


def _lag_default(sql: str, dialect: str, rng: random.Random) -> str | None:
    toks = _tokens(sql, dialect)
    pairs = _match(toks)
    depth = _depths(toks)
    edits = []
    for i, t in enumerate(toks[:-1]):
        if _up(t) not in ("LAG", "LEAD") or toks[i + 1].token_type != TokenType.L_PAREN:
            continue
        o = i + 1
        c = pairs.get(o, -1)
        commas = [k for k in range(o + 1, c) if toks[k].token_type == TokenType.COMMA and depth[k] == depth[o] + 1]
        if len(commas) >= 2:
            continue
        edits.append((toks[c].start, toks[c].start, ", 0" if commas else ", 1, 0"))
    return _edit(sql, edits) if edits else None


_RANKERS = ("ROW_NUMBER", "RANK", "DENSE_RANK")


def _rn_zero(sql: str, dialect: str, rng: random.Random) -> str | None:
    toks = _tokens(sql, dialect)
    pairs = _match(toks)
    aliases = set()
    for i, t in enumerate(toks[:-1]):
        if _up(t) in _RANKERS and toks[i + 1].token_type == TokenType.L_PAREN:
            k = pairs.get(i + 1, -1) + 1
            if k < len(toks) and toks[k].token_type == TokenType.OVER:
                k = pairs.get(k + 1, -1) + 1
                if 0 < k < len(toks) - 1 and toks[k].token_type == TokenType.ALIAS:
                    aliases.add(toks[k + 1].text.lower())
                elif 0 < k < len(toks) and toks[k].token_type == TokenType.VAR:
                    aliases.add(toks[k].text.lower())
    if not aliases:
        return None
    edits = []
    ops = (TokenType.EQ, TokenType.LTE, TokenType.LT)
    for k, t in enumerate(toks[:-2]):
        if t.text.lower() not in aliases or (k and toks[k - 1].token_type == TokenType.ALIAS):
            continue
        if toks[k + 1].token_type in ops and toks[k + 2].token_type == TokenType.NUMBER:
            n = toks[k + 2]
            try:
                value = int(n.text)
            except ValueError:
                continue
            edits.append((n.start, n.end + 1, str(value - 1)))
    return _edit(sql, edits) if edits else None


def _zero_default(sql: str, dialect: str, rng: random.Random) -> str | None:
    toks = _tokens(sql, dialect)
    pairs = _match(toks)
    depth = _depths(toks)
    edits = []
    for i, t in enumerate(toks[:-1]):
        if _up(t) not in ("COALESCE", "IFNULL", "NVL") or toks[i + 1].token_type != TokenType.L_PAREN:
            continue
        o, c = i + 1, pairs.get(i + 1, -1)
        commas = [k for k in range(o + 1, c) if toks[k].token_type == TokenType.COMMA and depth[k] == depth[o] + 1]
        if len(commas) != 1 or c - commas[0] != 2 or toks[commas[0] + 1].token_type != TokenType.NUMBER:
            continue
        try:
            if float(toks[commas[0] + 1].text) != 0:
                continue
        except ValueError:
            continue
        edits.append((t.start, toks[c].end + 1, _span(sql, toks, o + 1, commas[0] - 1)))
    edits = [e for e in edits if not any(o[0] < e[0] and e[1] <= o[1] for o in edits if o != e)]
    return _edit(sql, edits) if edits else None


_TS_NAME = re.compile(r"(_ts|_at|datetime|timestamp|time)$", re.IGNORECASE)


def _date_cast(sql: str, dialect: str, schema: Any, rng: random.Random) -> str | None:
    toks = _tokens(sql, dialect)
    pairs = _match(toks)
    types = _column_types(schema)

    def is_ts(name: str) -> bool:
        tps = types.get(name.lower(), set())
        if any("time" in tp for tp in tps):
            return True
        if any(tp == "date" for tp in tps):
            return False
        return bool(_TS_NAME.search(name))

    def col_span(a: int, b: int) -> bool:
        kinds = [toks[k].token_type for k in range(a, b + 1)]
        return bool(kinds) and all(kd in (TokenType.VAR, TokenType.DOT) for kd in kinds) and \
            kinds[-1] == TokenType.VAR and is_ts(toks[b].text)

    cmp_ops = (TokenType.EQ, TokenType.GT, TokenType.GTE, TokenType.LT, TokenType.LTE, TokenType.BETWEEN,
               TokenType.NEQ)
    edits = []
    for i, t in enumerate(toks[:-1]):
        up = _up(t)
        if up == "DATE" and toks[i + 1].token_type == TokenType.L_PAREN:
            c = pairs.get(i + 1, -1)
            near = {toks[c + 1].token_type if c + 1 < len(toks) else None, toks[i - 1].token_type if i else None}
            if c > i + 2 and col_span(i + 2, c - 1) and near & set(cmp_ops):
                edits.append((t.start, toks[c].end + 1, _span(sql, toks, i + 2, c - 1)))
        elif up == "CAST" and toks[i + 1].token_type == TokenType.L_PAREN:
            c = pairs.get(i + 1, -1)
            if c > i + 4 and _up(toks[c - 1]) == "DATE" and toks[c - 2].token_type == TokenType.ALIAS and \
                    col_span(i + 2, c - 3):
                edits.append((t.start, toks[c].end + 1, _span(sql, toks, i + 2, c - 3)))
        elif t.token_type == TokenType.DCOLON and _up(toks[i + 1]) == "DATE" and i >= 1:
            if toks[i - 1].token_type == TokenType.VAR and is_ts(toks[i - 1].text):
                edits.append((t.start, toks[i + 1].end + 1, ""))
    return _edit(sql, edits) if edits else None


def _all_of(sql: str, dialect: str, rng: random.Random) -> str | None:
    toks = _tokens(sql, dialect)
    pairs = _match(toks)
    edits = []
    for i, t in enumerate(toks):
        if t.token_type != TokenType.HAVING:
            continue
        for k in range(i + 1, len(toks) - 2):
            if _up(toks[k]) == "COUNT" and toks[k + 1].token_type == TokenType.L_PAREN and \
                    k + 2 < len(toks) and toks[k + 2].token_type == TokenType.DISTINCT:
                c = pairs.get(k + 1, -1)
                if c < 0 or c + 2 >= len(toks):
                    break
                op, num = toks[c + 1], toks[c + 2]
                if op.token_type in (TokenType.EQ, TokenType.GTE) and num.token_type == TokenType.NUMBER:
                    try:
                        n = int(num.text)
                    except ValueError:
                        break
                    if n >= 2:
                        edits.append((op.start, num.end + 1, ">= 1"))
                break
    return _edit(sql, edits) if edits else None


# --------------------------------------------------------------------------------------------------------------

_SqlEdit = Callable[[str, str, random.Random], "str | None"]
_SQL_EDITS: dict[str, tuple[_SqlEdit, str]] = {
    "is_in_operator": (_is_in, "IS IN / IS NOT IN"),
    "between_to": (_between_to, "BETWEEN a TO b"),
    "select_list_parenthesized": (_select_parens, "select list in one pair of parentheses"),
    "lcase_ucase_functions": (_lcase, "LCASE/UCASE for LOWER/UPPER"),
    "select_unique_oracle": (_unique, "SELECT UNIQUE"),
    "args_semicolon_separated": (_args_semicolon, "function arguments separated by semicolons"),
    "literal_quotes_doubled": (_quotes_doubled, "string literals with doubled quotes"),
    "like_to_glob": (_glob, "GLOB with LIKE wildcards"),
    "access_hash_date_literal": (_access_hash, "Access #date# literals"),
    "arith_parens_dropped": (_arith_parens, "arithmetic grouping parentheses dropped"),
    "change_over_new_base": (_change_base, "relative change over the other operand"),
    "window_order_direction_flipped": (_window_flip, "window ORDER BY direction flipped"),
    "lag_lead_swapped": (_lag_lead, "LAG and LEAD swapped"),
    "lag_default_zero": (_lag_default, "LAG default 0"),
    "row_number_zero_based": (_rn_zero, "row number filter read as zero-based"),
    "zero_default_dropped": (_zero_default, "COALESCE(x, 0) dropped"),
    "all_of_as_any_of": (_all_of, "all-of HAVING count read as any-of"),
}
_SCHEMA_EDITS: dict[str, tuple[Callable[[str, str, Any, random.Random], "str | None"], str]] = {
    "inclusive_day_count_plus_one": (_day_plus_one, "day difference + 1"),
    "date_cast_dropped": (_date_cast, "DATE() cast of a timestamp dropped"),
    "day_of_month_difference": (_day_of_month, "day-of-month fields subtracted"),
}
_LAYOUTS: dict[str, Callable[[str, str, Any, random.Random], "tuple[str, str] | None"]] = {
    "lua_long_bracket": _lua,
    "haskell_sql_quasiquote": _haskell,
    "delphi_sql_add_lines": _delphi,
    "matlab_database_fetch": _matlab,
    "stata_odbc_load": _stata,
    "lookml_derived_table": _lookml,
    "embedded_exec_sql": _embedded,
    "install_command_first": _install_first,
    "empty_block_first": _empty_first,
    "check_query_appended": _check_appended,
}


def damage(gold_sql: str, schema: Any, kind: str, seed: int) -> Damaged | None:
    """The whole reply for ``gold_sql`` damaged in ``kind`` (None where the kind does not apply)."""
    try:
        rng = random.Random(f"fresh24|{kind}|{seed}|{gold_sql}")
        sql = gold_sql.strip()
        while sql.endswith(";"):
            sql = sql[:-1].rstrip()
        if not sql:
            return None
        dialect = _dialect(schema)
        if kind == "clean":
            return Damaged(kind, _reply(sql, rng), "gold query")
        if kind in _LAYOUTS:
            out = _LAYOUTS[kind](sql, dialect, schema, rng)
            if out is None:
                return None
            reply, note = out
            return Damaged(kind, reply, note)
        if kind in _SQL_EDITS:
            fn, note = _SQL_EDITS[kind]
            new = fn(sql, dialect, rng)
        elif kind in _SCHEMA_EDITS:
            fn2, note = _SCHEMA_EDITS[kind]
            new = fn2(sql, dialect, schema, rng)
        else:
            return None
        if not new or _norm(new) == _norm(sql):
            return None
        return Damaged(kind, _reply(new, rng), note)
    except Exception:  # noqa: BLE001 - a generator never raises
        return None
