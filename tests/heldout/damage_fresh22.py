"""Held-out damage generator ``fresh22``: damaged model replies made from gold queries by text edits.

Written for the recovery bench (``bench/recovery.py --generator fresh22``) without reading Cairn's repair, check or
extraction code. Every kind is an edit of the gold's text at positions found with sqlglot's tokenizer (or, for one
layout, a rendering of the parsed tree shown next to the untouched gold); nothing is re-rendered from a tree.

| kind                           | fam | what the reply does |
|--------------------------------|-----|---------------------|
| clean                          |  -  | the gold query, fenced, in an ordinary reply |
| kotlin_trim_margin             |  A  | query in a Kotlin raw string, lines led by a pipe margin, ``.trimMargin()`` |
| vba_line_continuation          |  A  | query built as a VBA string: pieces joined by ``& _`` or ``s = s & "..."`` |
| c_adjacent_literals            |  A  | query as adjacent C string literals, one per line, passed to sqlite3/libpq |
| perl_dbi_prepare               |  A  | query inside Perl DBI ``$dbh->prepare(q{...})`` with an execute/fetch loop |
| power_query_native_query       |  A  | query in a Power Query (M) ``Value.NativeQuery`` string, ``#(lf)`` breaks |
| scala_spark_sql                |  A  | query in a Scala triple-quoted string given to ``spark.sql``, ``.show()`` |
| python_repl_transcript         |  A  | a ``>>>``/``...`` Python REPL session running the query from a string |
| fixture_ddl_first              |  A  | same block first creates and fills sample tables, then the query |
| relational_algebra_first       |  A  | first block: the query in relational algebra; the SQL block second |
| error_echo_in_block            |  A  | the block opens with a pasted database error (ERROR/LINE/caret) |
| plpgsql_notice_loop            |  A  | query run inside a ``DO $$ ... FOR r IN <query> LOOP RAISE NOTICE`` block |
| table_as_csv_file_read         |  A  | tables read from files: ``read_csv_auto('t.csv')`` / ``'t.csv'`` in FROM |
| rlike_regex_pattern            |  A  | ``LIKE '%x%'`` patterns rewritten as Hive/Spark ``RLIKE`` regular expressions |
| countd_shorthand               |  A  | ``COUNT(DISTINCT x)`` written with Tableau's ``COUNTD(x)`` |
| cypher_case_functions          |  A  | Cypher names: ``toLower``/``toUpper``/``toFloat``/``toInteger`` for SQL's |
| case_branches_comma_separated  |  A  | CASE branches separated by commas like a list (``THEN 1, ELSE 0``) |
| query_hint_option_clause       |  A  | a T-SQL query-level ``OPTION (RECOMPILE)``-style hint clause after the query |
| filter_clause_missing_where    |  A  | conditional counts as ``COUNT(*) FILTER (cond)``, no WHERE in FILTER |
| json_unicode_escapes           |  A  | quotes and < > & left as JSON escapes (``\\u0027``, ``\\u003e``) |
| group_by_with_sort_direction   |  A  | MySQL-5 style ``GROUP BY x DESC``: the sort direction carried into GROUP BY |
| columns_merged_for_display     |  B  | two output columns concatenated into one display string, e.g. ``name (id)`` |
| unrequested_breakdown          |  B  | a single overall aggregate split by an unrequested category column |
| like_bracket_class             |  B  | T-SQL class in a LIKE pattern (``'%[Ii]talian%'``): a literal here |
| topn_as_nth                    |  B  | "top N" read as "the N-th": ``LIMIT n`` -> ``LIMIT 1 OFFSET n-1`` |
| ratio_left_as_parts            |  B  | a ratio returned as its numerator and denominator columns, never divided |
| superlative_as_max_of_label    |  B  | "the X with the most/highest Y" answered with ``MAX(X)`` (``MIN`` for lowest) |
| topn_read_as_count_threshold   |  B  | "top N by count" read as "count of at least N": LIMIT -> ``HAVING agg >= N`` |
| filter_turned_into_flag_column |  B  | a WHERE condition turned into a Yes/No column; rows not filtered |
| count_via_max_id               |  B  | a filtered count answered with ``MAX(id)`` as if ids were a running count |
| metric_reported_as_rank        |  B  | the ordering metric replaced by its ``RANK() OVER (...)`` position |

Family A: the reply as written fails (a wrapper, layout, dialect or tool idiom, or a syntax slip). Family B: the SQL
runs and answers a different question. ``damage`` never raises: any exception gives None, and so does a kind that
does not fit the gold query or that would leave its SQL unchanged.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.dialects import Dialect

__all__ = ["DAMAGE_KINDS", "TREE_KINDS", "Damaged", "damage"]

DAMAGE_KINDS: tuple[str, ...] = (
    "clean",
    # family A
    "kotlin_trim_margin",
    "vba_line_continuation",
    "c_adjacent_literals",
    "perl_dbi_prepare",
    "power_query_native_query",
    "scala_spark_sql",
    "python_repl_transcript",
    "fixture_ddl_first",
    "relational_algebra_first",
    "error_echo_in_block",
    "plpgsql_notice_loop",
    "table_as_csv_file_read",
    "rlike_regex_pattern",
    "countd_shorthand",
    "cypher_case_functions",
    "case_branches_comma_separated",
    "query_hint_option_clause",
    "filter_clause_missing_where",
    "json_unicode_escapes",
    "group_by_with_sort_direction",
    # family B
    "columns_merged_for_display",
    "unrequested_breakdown",
    "like_bracket_class",
    "topn_as_nth",
    "ratio_left_as_parts",
    "superlative_as_max_of_label",
    "topn_read_as_count_threshold",
    "filter_turned_into_flag_column",
    "count_via_max_id",
    "metric_reported_as_rank",
)
TREE_KINDS: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Damaged:
    kind: str
    reply: str
    note: str


# --------------------------------------------------------------------------------------------------------------
# tokens


@dataclass(frozen=True)
class _Tok:
    type: str
    text: str
    start: int  # first character
    end: int  # one past the last character
    depth: int  # parenthesis depth; a bracket pair shares the depth of what surrounds it

    @property
    def up(self) -> str:
        return self.text.upper()


_AGGS = {"COUNT", "SUM", "AVG", "MIN", "MAX"}
_CLAUSES = {"FROM", "WHERE", "GROUP_BY", "HAVING", "ORDER_BY", "LIMIT", "OFFSET", "FETCH", "QUALIFY", "WINDOW"}
_SETOPS = {"UNION", "INTERSECT", "EXCEPT"}
_JOIN_HEADS = {"JOIN", "LEFT", "RIGHT", "INNER", "FULL", "CROSS", "NATURAL", "OUTER"}


def _dialect(schema: Any) -> str:
    name = str(getattr(schema, "dialect", "") or "postgres").lower()
    return name if name in {"postgres", "sqlite", "duckdb", "mysql"} else "postgres"


def _tokens(sql: str, dialect: str) -> list[_Tok]:
    out: list[_Tok] = []
    depth = 0
    for t in Dialect.get_or_raise(dialect).tokenize(sql):
        kind = t.token_type.name
        if kind == "R_PAREN":
            depth -= 1
        out.append(_Tok(kind, t.text, t.start, t.end + 1, depth))
        if kind == "L_PAREN":
            depth += 1
    return out


def _match(toks: list[_Tok], i: int) -> int:
    """Index of the bracket that closes the L_PAREN at ``i``."""
    for j in range(i + 1, len(toks)):
        if toks[j].type == "R_PAREN" and toks[j].depth == toks[i].depth:
            return j
    raise ValueError("unbalanced")


def _edit(sql: str, edits: list[tuple[int, int, str]]) -> str:
    """Apply (start, end, replacement) edits, which must not overlap."""
    for start, end, text in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        sql = sql[:start] + text + sql[end:]
    return sql


def _norm(sql: str) -> str:
    return " ".join(sql.replace(";", " ").split()).lower()


@dataclass
class _Main:
    """The top-level SELECT of a statement: where its clauses start (token indexes)."""

    select: int
    clauses: dict[str, int]
    items: list[tuple[int, int]]  # select items as token ranges [a, b)
    distinct: bool
    end: int  # one past the last token of the statement


def _main(toks: list[_Tok]) -> _Main | None:
    top = [i for i, t in enumerate(toks) if t.depth == 0]
    if any(toks[i].type in _SETOPS for i in top):
        return None
    sel = next((i for i in top if toks[i].type == "SELECT"), None)
    if sel is None:
        return None
    end = len(toks)
    while end > 0 and toks[end - 1].type == "SEMICOLON":
        end -= 1
    clauses: dict[str, int] = {}
    for i in top:
        if i > sel and i < end and toks[i].type in _CLAUSES and toks[i].type not in clauses:
            clauses[toks[i].type] = i
    first = sel + 1
    distinct = first < end and toks[first].type == "DISTINCT"
    if distinct:
        first += 1
    stop = min([clauses[c] for c in clauses] + [end])
    items: list[tuple[int, int]] = []
    a = first
    for j in range(first, stop):
        if toks[j].type == "COMMA" and toks[j].depth == 0:
            items.append((a, j))
            a = j + 1
    if a < stop:
        items.append((a, stop))
    return _Main(sel, clauses, items, distinct, end)


def _clause_end(m: _Main, name: str) -> int:
    """Token index where the clause ``name`` ends (the next clause or the statement's end)."""
    start = m.clauses[name]
    later = [i for i in m.clauses.values() if i > start]
    return min(later + [m.end])


def _item_parts(toks: list[_Tok], a: int, b: int) -> tuple[int, int, str | None]:
    """(expression start, expression end, alias) of a select item given as tokens [a, b)."""
    if b - a >= 3 and toks[b - 2].type == "ALIAS":
        return a, b - 2, toks[b - 1].text
    if b - a >= 2 and toks[b - 1].type in {"VAR", "IDENTIFIER"} and toks[b - 2].type in {
        "R_PAREN", "VAR", "NUMBER", "STRING", "END", "IDENTIFIER"
    } and toks[b - 2].type != "DOT":
        return a, b - 1, toks[b - 1].text
    return a, b, None


def _span(sql: str, toks: list[_Tok], a: int, b: int) -> str:
    return sql[toks[a].start : toks[b - 1].end]


def _has_agg(toks: list[_Tok], a: int, b: int) -> bool:
    return any(toks[j].up in _AGGS and j + 1 < b and toks[j + 1].type == "L_PAREN" for j in range(a, b))


def _plain_column(toks: list[_Tok], a: int, b: int) -> bool:
    names = all(toks[j].type in {"VAR", "DOT", "IDENTIFIER"} for j in range(a, b))
    return b > a and names and toks[b - 1].type != "DOT"


def _body(gold: str) -> str:
    return gold.strip().rstrip(";").strip()


# --------------------------------------------------------------------------------------------------------------
# reply layouts


_INTROS = (
    "Here is the SQL query that answers your question:",
    "You can get this with the following query:",
    "Sure! The query below should give you what you need.",
    "To answer this, run:",
    "This query returns the requested data:",
)
_OUTROS = (
    "Let me know if you need any changes.",
    "The query joins and filters the relevant tables and returns the requested columns.",
    "It uses only the tables from the schema you provided.",
    "You can adjust the filters if your data uses different values.",
    "",
)


def _ordinary(rng: random.Random, sql: str) -> str:
    outro = rng.choice(_OUTROS)
    text = f"{rng.choice(_INTROS)}\n\n```sql\n{sql}\n```"
    return text + (f"\n\n{outro}" if outro else "")


def _lines(sql: str, toks: list[_Tok]) -> list[str]:
    """The query split before its top-level clauses and joins, one clause a line."""
    cuts: list[int] = []
    for i, t in enumerate(toks):
        if t.depth != 0 or i == 0:
            continue
        if t.type in _CLAUSES or t.type in _SETOPS:
            cuts.append(t.start)
        elif t.type in _JOIN_HEADS and toks[i - 1].type not in _JOIN_HEADS:
            cuts.append(t.start)
    pieces: list[str] = []
    prev = 0
    for c in cuts:
        pieces.append(sql[prev:c])
        prev = c
    pieces.append(sql[prev:])
    return [" ".join(p.split()) for p in pieces if p.strip()]


def _db_name(schema: Any) -> str:
    name = str(getattr(schema, "database_id", "") or "").strip()
    name = re.sub(r"[^A-Za-z0-9_]+", "_", name.split("/")[-1].split("\\")[-1].split(".")[0])
    return name or "analytics"


# --------------------------------------------------------------------------------------------------------------
# family A: wrappers and layouts


def _kotlin_trim_margin(ctx: _Ctx) -> tuple[str, str] | None:
    lines = _lines(ctx.body, ctx.toks)
    margin = "\n".join(f"    |{line}" for line in lines)
    code = (
        f'val sql = """\n{margin}\n""".trimMargin()\n\n'
        "connection.prepareStatement(sql).use { stmt ->\n"
        "    val rs = stmt.executeQuery()\n"
        "    while (rs.next()) {\n"
        "        println(rs.getString(1))\n"
        "    }\n"
        "}"
    )
    reply = (f"{ctx.rng.choice(['Here is how you can run it from Kotlin:', 'In your Kotlin service this would be:'])}"
             f"\n\n```kotlin\n{code}\n```\n\nThe `trimMargin()` call strips the leading `|` from each line.")
    return reply, "query in a Kotlin raw string with | margins"


def _vba_line_continuation(ctx: _Ctx) -> tuple[str, str] | None:
    lines = [line.replace('"', '""') for line in _lines(ctx.body, ctx.toks)]
    if ctx.rng.random() < 0.5:
        parts = [f'"{line} " & _' for line in lines[:-1]] + [f'"{lines[-1]}"']
        build = "strSQL = " + ("\n         ".join(parts))
    else:
        build = f'strSQL = "{lines[0]} "' + "".join(f'\nstrSQL = strSQL & "{line} "' for line in lines[1:])
    code = (
        "Dim rs As Object\nDim strSQL As String\n\n"
        f"{build}\n\n"
        "Set rs = CreateObject(\"ADODB.Recordset\")\n"
        "rs.Open strSQL, conn\n"
        "Sheet1.Range(\"A2\").CopyFromRecordset rs\n"
        "rs.Close"
    )
    reply = ("You can pull the result straight into Excel with this VBA macro:\n\n"
             f"```vba\n{code}\n```\n\nMake sure `conn` is an open ADODB connection to the database.")
    return reply, "query built as a VBA string with & _ continuations"


def _c_adjacent_literals(ctx: _Ctx) -> tuple[str, str] | None:
    lines = [line.replace("\\", "\\\\").replace('"', '\\"') for line in _lines(ctx.body, ctx.toks)]
    lits = "\n".join(f'    "{line} "' for line in lines[:-1]) + ("\n" if len(lines) > 1 else "") + f'    "{lines[-1]};"'
    if ctx.dialect == "sqlite":
        run = (
            "sqlite3_stmt *stmt;\n"
            "if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) == SQLITE_OK) {\n"
            "    while (sqlite3_step(stmt) == SQLITE_ROW) {\n"
            "        printf(\"%s\\n\", sqlite3_column_text(stmt, 0));\n"
            "    }\n"
            "}\n"
            "sqlite3_finalize(stmt);"
        )
    else:
        run = (
            "PGresult *res = PQexec(conn, sql);\n"
            "for (int i = 0; i < PQntuples(res); i++) {\n"
            "    printf(\"%s\\n\", PQgetvalue(res, i, 0));\n"
            "}\n"
            "PQclear(res);"
        )
    code = f"const char *sql =\n{lits};\n\n{run}"
    reply = f"In C it looks like this:\n\n```c\n{code}\n```\n\nAdjacent string literals are joined by the compiler."
    return reply, "query as adjacent C string literals"


def _perl_dbi_prepare(ctx: _Ctx) -> tuple[str, str] | None:
    lines = _lines(ctx.body, ctx.toks)
    opener, closer = next(((o, c) for o, c in (("{", "}"), ("[", "]"), ("|", "|"), ("!", "!"))
                           if o not in ctx.body and c not in ctx.body), ("{", "}"))
    inner = "\n".join(f"    {line}" for line in lines)
    code = (
        f"my $sth = $dbh->prepare(q{opener}\n{inner}\n{closer});\n"
        "$sth->execute();\n"
        "while (my @row = $sth->fetchrow_array) {\n"
        "    print join(\"\\t\", @row), \"\\n\";\n"
        "}\n"
        "$sth->finish;"
    )
    reply = f"With Perl DBI:\n\n```perl\n{code}\n```"
    return reply, "query inside Perl DBI prepare(q{...})"


def _scala_spark_sql(ctx: _Ctx) -> tuple[str, str] | None:
    lines = _lines(ctx.body, ctx.toks)
    inner = "\n".join(f"    {line}" for line in lines)
    code = (
        f'val result = spark.sql(s"""\n{inner}\n""")\n\n'
        "result.show(truncate = false)"
    )
    reply = ("On Databricks or any Spark session (with the tables registered), run it from Scala:\n\n"
             f"```scala\n{code}\n```")
    return reply, "query inside Scala spark.sql(s\"\"\"...\"\"\")"


def _power_query_native_query(ctx: _Ctx) -> tuple[str, str] | None:
    text = "#(lf)".join(line.replace('"', '""') for line in _lines(ctx.body, ctx.toks))
    db = _db_name(ctx.schema)
    source = (f'Odbc.DataSource("dsn={db}")' if ctx.dialect == "sqlite"
              else f'PostgreSQL.Database("localhost", "{db}")')
    code = (
        "let\n"
        f"    Source = {source},\n"
        f"    Result = Value.NativeQuery(Source, \"{text}\")\n"
        "in\n"
        "    Result"
    )
    reply = ("If you are working in Power BI or Excel, paste this into the Advanced Editor:\n\n"
             f"```powerquery\n{code}\n```")
    return reply, "query inside a Power Query Value.NativeQuery string"


def _python_repl_transcript(ctx: _Ctx) -> tuple[str, str] | None:
    lines = _lines(ctx.body, ctx.toks)
    if ctx.dialect == "sqlite":
        head = (f'>>> import sqlite3\n>>> conn = sqlite3.connect("{_db_name(ctx.schema)}.db")\n'
                '>>> rows = conn.execute("""')
    else:
        head = (f'>>> import psycopg2\n>>> conn = psycopg2.connect(dbname="{_db_name(ctx.schema)}")\n'
                '>>> cur = conn.cursor()\n>>> cur.execute("""')
    body = "\n".join(f"... {line}" for line in lines)
    tail = '... """).fetchall()' if ctx.dialect == "sqlite" else '... """)\n>>> rows = cur.fetchall()'
    code = f"{head}\n{body}\n{tail}\n>>> for row in rows:\n...     print(row)\n..."
    reply = f"Here is a quick session showing the query:\n\n```pycon\n{code}\n```"
    return reply, "query inside a Python REPL transcript"


_SQL_TYPES_INT = re.compile(r"int|serial", re.I)
_SQL_TYPES_REAL = re.compile(r"real|float|double|numeric|decimal|money", re.I)


def _sample_value(col: Any, i: int) -> str:
    kind = str(getattr(col, "type", "") or "").lower()
    if _SQL_TYPES_INT.search(kind):
        return str(i)
    if _SQL_TYPES_REAL.search(kind):
        return ("4.5", "3.8", "4.2")[(i - 1) % 3]
    if "timestamp" in kind or "datetime" in kind:
        return f"'2023-0{i}-15 10:00:00'"
    if "date" in kind:
        return f"'2023-0{i}-15'"
    if "bool" in kind:
        return "TRUE" if i % 2 else "FALSE"
    return f"'{col.name} {i}'"


def _referenced_tables(ctx: _Ctx) -> list[Any]:
    seen: list[Any] = []
    for i, t in enumerate(ctx.toks):
        if t.type not in {"VAR", "IDENTIFIER"}:
            continue
        if i + 1 < len(ctx.toks) and ctx.toks[i + 1].type == "L_PAREN":
            continue
        table = ctx.schema.table(t.text) if ctx.schema is not None else None
        if table is not None and all(table is not s for s in seen):
            seen.append(table)
    return seen


def _fixture_ddl_first(ctx: _Ctx) -> tuple[str, str] | None:
    tables = _referenced_tables(ctx)[:4]
    if not tables:
        return None
    parts = ["-- Sample data so you can test the query"]
    for table in tables:
        cols = list(table.columns)[:12]
        defs = ",\n".join(f"    {c.name} {(c.type or 'TEXT').upper()}" for c in cols)
        parts.append(f"CREATE TABLE {table.name} (\n{defs}\n);")
        values = ",\n".join("    (" + ", ".join(_sample_value(c, i) for c in cols) + ")" for i in (1, 2))
        parts.append(f"INSERT INTO {table.name} ({', '.join(c.name for c in cols)}) VALUES\n{values};")
    parts.append("-- The query")
    parts.append(ctx.body + ";")
    reply = ("Below is a self-contained script: it creates small sample tables, fills them, and then runs the "
             "query.\n\n```sql\n" + "\n\n".join(parts) + "\n```\n\nOn your real database only the last statement "
             "is needed.")
    return reply, "sample CREATE TABLE/INSERT statements before the query, same block"


def _algebra(ctx: _Ctx) -> str:
    d = ctx.dialect
    tree = sqlglot.parse_one(ctx.body, read=d)
    sel = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    if sel is None:
        raise ValueError("no select")
    src = sel.args.get("from_") or sel.args.get("from")
    rel = src.this.sql(dialect=d) if src is not None else "?"
    for join in sel.args.get("joins") or []:
        on = join.args.get("on")
        other = join.this.sql(dialect=d)
        rel = f"({rel} ⋈[{on.sql(dialect=d)}] {other})" if on is not None else f"({rel} × {other})"
    where = sel.args.get("where")
    if where is not None:
        rel = f"σ[{where.this.sql(dialect=d)}]({rel})"
    group = sel.args.get("group")
    cols = ", ".join(e.sql(dialect=d) for e in sel.expressions)
    if group is not None:
        keys = ", ".join(e.sql(dialect=d) for e in group.expressions)
        rel = f"γ[{keys}; {cols}]({rel})"
        having = sel.args.get("having")
        if having is not None:
            rel = f"σ[{having.this.sql(dialect=d)}]({rel})"
    else:
        rel = f"π[{cols}]({rel})"
    if sel.args.get("distinct") is not None:
        rel = f"δ({rel})"
    order = sel.args.get("order")
    if order is not None:
        rel = f"τ[{', '.join(e.sql(dialect=d) for e in order.expressions)}]({rel})"
    limit = sel.args.get("limit")
    if limit is not None:
        rel = f"λ[{limit.expression.sql(dialect=d) if limit.expression is not None else ''}]({rel})"
    return rel


def _relational_algebra_first(ctx: _Ctx) -> tuple[str, str] | None:
    algebra = _algebra(ctx)
    reply = ("Let's first express the question in relational algebra:\n\n"
             f"```\n{algebra}\n```\n\nTranslated to SQL:\n\n```sql\n{ctx.body};\n```")
    return reply, "relational algebra block before the SQL block"


def _error_echo_in_block(ctx: _Ctx) -> tuple[str, str] | None:
    toks = ctx.toks
    pick = None
    for i, t in enumerate(toks):
        if t.type == "VAR" and i >= 2 and toks[i - 1].type == "DOT" and t.text.isidentifier():
            pick = i
            break
    if pick is None:
        pick = next((i for i, t in enumerate(toks) if t.type == "VAR" and t.text.isidentifier()
                     and not (i + 1 < len(toks) and toks[i + 1].type == "L_PAREN")
                     and (ctx.schema is None or ctx.schema.table(t.text) is None)), None)
    if pick is None:
        return None
    word = toks[pick].text
    wrong = word + "s" if not word.endswith("s") else word[:-1]
    qual = f"{toks[pick - 2].text}." if pick >= 2 and toks[pick - 1].type == "DOT" else ""
    bad = ctx.body[: toks[pick].start] + wrong + ctx.body[toks[pick].end :]
    line = " ".join(bad.split())
    caret_at = line.find(qual + wrong)
    shown = line[:110]
    if ctx.dialect == "sqlite":
        error = f"Parse error: no such column: {qual}{wrong}\n  {shown}\n  {' ' * max(caret_at, 0)}^--- error here"
    else:
        error = (f'ERROR:  column {qual}{wrong} does not exist\nLINE 1: {shown}\n'
                 f"{' ' * (8 + max(caret_at, 0))}^\n"
                 f'HINT:  Perhaps you meant to reference the column "{qual}{word}".')
    reply = ("The earlier version failed with the error below; the column name was wrong. Fixed:\n\n"
             f"```sql\n{error}\n\n-- fixed query\n{ctx.body};\n```")
    return reply, "pasted database error at the top of the code block"


def _plpgsql_notice_loop(ctx: _Ctx) -> tuple[str, str] | None:
    inner = "\n".join(f"        {line}" for line in _lines(ctx.body, ctx.toks))
    code = (
        "DO $$\nDECLARE\n    r RECORD;\nBEGIN\n    FOR r IN\n"
        f"{inner}\n"
        "    LOOP\n        RAISE NOTICE '%', r;\n    END LOOP;\nEND $$;"
    )
    reply = ("This anonymous block runs the query and prints every row as a notice:\n\n"
             f"```sql\n{code}\n```")
    return reply, "query inside a DO block FOR loop with RAISE NOTICE"


def _table_refs(toks: list[_Tok]) -> list[tuple[int, int, str | None]]:
    """Tables named in FROM/JOIN (any depth): (first token, one past the name, alias or None)."""
    refs: list[tuple[int, int, str | None]] = []
    in_from: set[int] = set()
    stops = {"WHERE", "GROUP_BY", "HAVING", "ORDER_BY", "LIMIT", "OFFSET", "ON", "USING", "SEMICOLON", "QUALIFY",
             "WINDOW"} | _SETOPS
    i = 0
    while i < len(toks):
        t = toks[i]
        if t.type == "FROM":
            in_from.add(t.depth)
        elif t.type in stops or t.type == "R_PAREN":
            in_from.discard(t.depth)
            if t.type == "R_PAREN":
                in_from.discard(t.depth + 1)
        prev = toks[i - 1] if i else None
        starts = prev is not None and (
            prev.type in {"FROM", "JOIN"} or (prev.type == "COMMA" and prev.depth in in_from))
        if starts and t.type in {"VAR", "IDENTIFIER"} and not (i + 1 < len(toks) and toks[i + 1].type == "L_PAREN"):
            j = i + 1
            while j + 1 < len(toks) and toks[j].type == "DOT" and toks[j + 1].type in {"VAR", "IDENTIFIER"}:
                j += 2
            alias = None
            if j < len(toks) and toks[j].type == "ALIAS" and j + 1 < len(toks):
                alias = toks[j + 1].text
            elif j < len(toks) and toks[j].type in {"VAR", "IDENTIFIER"}:
                alias = toks[j].text
            refs.append((i, j, alias))
            i = j
            continue
        if t.type == "JOIN":
            in_from.add(t.depth)
        i += 1
    return refs


def _table_as_csv_file_read(ctx: _Ctx) -> tuple[str, str] | None:
    refs = _table_refs(ctx.toks)
    if not refs:
        return None
    style = ctx.rng.choice(("read_csv_auto", "quoted", "read_parquet"))
    edits = []
    for a, b, alias in refs:
        bare = ctx.toks[b - 1].text
        name = bare.lower()
        if style == "read_csv_auto":
            text = f"read_csv_auto('{name}.csv')"
        elif style == "read_parquet":
            text = f"read_parquet('data/{name}.parquet')"
        else:
            text = f"'{name}.csv'"
        if alias is None:
            text += f" AS {bare}"
        edits.append((ctx.toks[a].start, ctx.toks[b - 1].end, text))
    sql = _edit(ctx.body, edits)
    reply = ("Assuming the tables are exported as files next to your notebook, DuckDB can query them directly:\n\n"
             f"```sql\n{sql};\n```")
    return (reply, f"tables read from files ({style})") if _norm(sql) != _norm(ctx.body) else None


# --------------------------------------------------------------------------------------------------------------
# family A: dialect/tool idioms and syntax slips (SQL edits)


def _like_patterns(toks: list[_Tok]) -> list[tuple[int, int, int, str]]:
    """LIKE/ILIKE comparisons: (operator token, pattern STRING token, last token of the right side, wrapper)."""
    out = []
    for i, t in enumerate(toks):
        if t.type not in {"LIKE", "ILIKE"} or i + 1 >= len(toks):
            continue
        nxt = toks[i + 1]
        if nxt.type == "STRING":
            out.append((i, i + 1, i + 1, ""))
        elif (nxt.up in {"LOWER", "UPPER"} and i + 4 < len(toks) and toks[i + 2].type == "L_PAREN"
              and toks[i + 3].type == "STRING" and toks[i + 4].type == "R_PAREN"):
            out.append((i, i + 3, i + 4, nxt.up))
    return out


def _like_to_regex(pattern: str, lower: bool, insensitive: bool) -> str:
    if lower:
        pattern = pattern.lower()
    out = []
    for ch in pattern:
        if ch == "%":
            out.append(".*")
        elif ch == "_":
            out.append(".")
        else:
            out.append(re.escape(ch) if not ch.isalnum() and ch != " " else ch)
    rx = "".join(out)
    if rx.startswith(".*"):
        rx = rx[2:]
    else:
        rx = "^" + rx
    if rx.endswith(".*"):
        rx = rx[:-2]
    else:
        rx += "$"
    return ("(?i)" if insensitive else "") + rx


def _rlike_regex_pattern(ctx: _Ctx) -> tuple[str, str] | None:
    edits = []
    for op, pat, last, wrap in _like_patterns(ctx.toks):
        rx = _like_to_regex(ctx.toks[pat].text, wrap == "LOWER", ctx.toks[op].type == "ILIKE")
        edits.append((ctx.toks[op].start, ctx.toks[last].end, "RLIKE '" + rx.replace("'", "''") + "'"))
    if not edits:
        return None
    return _edit(ctx.body, edits), "LIKE patterns as RLIKE regular expressions"


def _countd_shorthand(ctx: _Ctx) -> tuple[str, str] | None:
    toks = ctx.toks
    edits = []
    for i in range(len(toks) - 2):
        if toks[i].up == "COUNT" and toks[i + 1].type == "L_PAREN" and toks[i + 2].type == "DISTINCT":
            edits.append((toks[i].start, toks[i + 3].start if i + 3 < len(toks) else toks[i + 2].end, "COUNTD("))
    if not edits:
        return None
    return _edit(ctx.body, edits), "COUNT(DISTINCT x) as COUNTD(x)"


_CYPHER_CAST = (("INT", "toInteger"), ("SERIAL", "toInteger"), ("REAL", "toFloat"), ("FLOA", "toFloat"),
                ("DOUB", "toFloat"), ("NUMERIC", "toFloat"), ("DECIMAL", "toFloat"), ("TEXT", "toString"),
                ("CHAR", "toString"))


def _cypher_fn(type_text: str) -> str | None:
    up = type_text.upper()
    return next((fn for key, fn in _CYPHER_CAST if key in up), None)


def _operand_left(toks: list[_Tok], k: int) -> int:
    """First token of the operand that ends at token ``k`` (a column chain, a call or a bracketed group)."""
    if toks[k].type == "R_PAREN":
        j = next(j for j in range(k - 1, -1, -1) if toks[j].type == "L_PAREN" and toks[j].depth == toks[k].depth)
        return j - 1 if j > 0 and toks[j - 1].type == "VAR" else j
    j = k
    while j >= 2 and toks[j - 1].type == "DOT":
        j -= 2
    return j


def _cypher_case_functions(ctx: _Ctx) -> tuple[str, str] | None:
    toks, sql = ctx.toks, ctx.body
    edits: list[tuple[int, int, str]] = []
    taken: list[tuple[int, int]] = []
    for i, t in enumerate(toks):
        if i + 1 >= len(toks) or toks[i + 1].type != "L_PAREN":
            continue
        if t.up in {"LOWER", "UPPER"}:
            edits.append((t.start, t.end, "toLower" if t.up == "LOWER" else "toUpper"))
        elif t.up == "CAST":
            close = _match(toks, i + 1)
            alias = next((j for j in range(close - 1, i + 1, -1) if toks[j].type == "ALIAS"
                          and toks[j].depth == toks[i + 1].depth + 1), None)
            fn = _cypher_fn(sql[toks[alias].end : toks[close].start]) if alias else None
            if fn:
                edits.append((t.start, toks[i + 1].end, f"{fn}("))
                edits.append((toks[alias - 1].end, toks[close].start, ""))
                taken.append((t.start, toks[close].end))
    for k, t in enumerate(toks):
        if t.type == "DCOLON" and k + 1 < len(toks):
            fn = _cypher_fn(toks[k + 1].text)
            if not fn:
                continue
            a = _operand_left(toks, k - 1)
            if any(s <= toks[a].start < e for s, e in taken):
                continue
            edits.append((toks[a].start, toks[a].start, f"{fn}("))
            edits.append((toks[k - 1].end, toks[k + 1].end, ")"))
    if not edits:
        return None
    return _edit(sql, edits), "Cypher function names (toLower/toFloat/...)"


def _case_branches_comma_separated(ctx: _Ctx) -> tuple[str, str] | None:
    toks = ctx.toks
    stack: list[list[int]] = []  # per open CASE: [depth, branches seen]
    edits = []
    for i, t in enumerate(toks):
        if t.type == "CASE":
            stack.append([t.depth, 0])
        elif t.type == "END" and stack and stack[-1][0] == t.depth:
            stack.pop()
        elif t.type in {"WHEN", "ELSE"} and stack and stack[-1][0] == t.depth:
            if stack[-1][1] > 0:
                edits.append((toks[i - 1].end, toks[i - 1].end, ","))
            stack[-1][1] += 1
    if not edits:
        return None
    return _edit(ctx.body, edits), "commas between CASE branches"


def _query_hint_option_clause(ctx: _Ctx) -> tuple[str, str] | None:
    hint = ctx.rng.choice(("OPTION (RECOMPILE)", "OPTION (MAXDOP 1)", "OPTION (FAST 100)", "OPTION (HASH JOIN)"))
    return f"{ctx.body}\n{hint}", f"trailing T-SQL {hint}"


def _filter_clause_missing_where(ctx: _Ctx) -> tuple[str, str] | None:
    toks, sql = ctx.toks, ctx.body
    edits = []
    for i in range(len(toks) - 3):
        if not (toks[i].up in {"COUNT", "SUM"} and toks[i + 1].type == "L_PAREN" and toks[i + 2].type == "CASE"):
            continue
        close = _match(toks, i + 1)
        d = toks[i + 2].depth
        inner = [j for j in range(i + 3, close)
                 if toks[j].depth == d and toks[j].type in {"WHEN", "THEN", "ELSE", "END"}]
        kinds = [toks[j].type for j in inner]
        if kinds not in (["WHEN", "THEN", "END"], ["WHEN", "THEN", "ELSE", "END"]) or inner[-1] != close - 1:
            continue
        then_val = sql[toks[inner[1]].end : toks[inner[2]].start].strip()
        else_val = sql[toks[inner[2]].end : toks[inner[3]].start].strip().upper() if len(inner) == 4 else None
        if toks[i].up == "COUNT" and else_val not in (None, "NULL"):
            continue
        if toks[i].up == "SUM" and not (then_val == "1" and else_val == "0"):
            continue
        cond = sql[toks[inner[0]].end : toks[inner[1]].start].strip()
        edits.append((toks[i].start, toks[close].end, f"COUNT(*) FILTER ({cond})"))
    if not edits:
        return None
    return _edit(sql, edits), "conditional counts as FILTER (cond) without WHERE"


def _json_unicode_escapes(ctx: _Ctx) -> tuple[str, str] | None:
    table = {"'": "\\u0027", "<": "\\u003c", ">": "\\u003e", "&": "\\u0026"}
    if not any(ch in ctx.body for ch in table):
        return None
    sql = "".join(table.get(ch, ch) for ch in ctx.body)
    return sql, "quotes and < > & left as JSON \\u escapes"


def _group_by_with_sort_direction(ctx: _Ctx) -> tuple[str, str] | None:
    toks, sql = ctx.toks, ctx.body
    g = next((i for i, t in enumerate(toks) if t.type == "GROUP_BY"), None)
    if g is None:
        return None
    d = toks[g].depth
    stop = next((j for j in range(g + 1, len(toks)) if toks[j].depth < d or (toks[j].depth == d and (
        toks[j].type in _CLAUSES | _SETOPS | {"SEMICOLON"}))), len(toks))
    items: list[tuple[int, int]] = []
    a = g + 1
    for j in range(g + 1, stop):
        if toks[j].type == "COMMA" and toks[j].depth == d:
            items.append((a, j))
            a = j + 1
    items.append((a, stop))
    items = [(x, y) for x, y in items if y > x]
    if not items:
        return None
    direction = "ASC"
    target = items[-1]
    o = stop if stop < len(toks) and toks[stop].type == "ORDER_BY" and toks[stop].depth == d else None
    if o is not None:
        ostop = next((j for j in range(o + 1, len(toks)) if toks[j].depth < d or (
            toks[j].depth == d and toks[j].type in {"LIMIT", "OFFSET", "SEMICOLON", "FETCH"} | _SETOPS)), len(toks))
        dirs = [(j, toks[j].type) for j in range(o + 1, ostop)
                if toks[j].depth == d and toks[j].type in {"ASC", "DESC"}]
        if dirs:
            direction = dirs[0][1]
            key = " ".join(sql[toks[o + 1].start : toks[dirs[0][0]].start].split()).lower()
            for x, y in items:
                if " ".join(_span(sql, toks, x, y).split()).lower() == key:
                    target = (x, y)
                    break
    end = toks[target[1] - 1].end
    return _edit(sql, [(end, end, f" {direction}")]), f"GROUP BY item with {direction}"


# --------------------------------------------------------------------------------------------------------------
# family B: runs, answers another question


def _clause_insert(m: _Main, toks: list[_Tok], names: tuple[str, ...], clause: str) -> tuple[int, int, str]:
    """An edit that puts ``clause`` before the first of the top-level clauses ``names``, else at the end."""
    at = [m.clauses[n] for n in names if n in m.clauses]
    if at:
        pos = toks[min(at)].start
        return pos, pos, clause + " "
    pos = toks[m.end - 1].end
    return pos, pos, " " + clause


def _alias_used_later(m: _Main, toks: list[_Tok], alias: str | None) -> bool:
    if not alias:
        return False
    first = min([m.clauses[c] for c in m.clauses if c != "FROM"] + [m.end])
    return any(t.type in {"VAR", "IDENTIFIER"} and t.text.lower() == alias.lower() for t in toks[first:m.end])


def _ordinals(m: _Main, toks: list[_Tok]) -> bool:
    """True when GROUP BY or ORDER BY names a select item by its position."""
    for c in ("GROUP_BY", "ORDER_BY"):
        if c in m.clauses:
            stop = _clause_end(m, c)
            if any(toks[j].type == "NUMBER" and toks[j].depth == 0 for j in range(m.clauses[c] + 1, stop)):
                return True
    return False


def _columns_merged_for_display(ctx: _Ctx) -> tuple[str, str] | None:
    m, toks, sql = ctx.main, ctx.toks, ctx.body
    if m is None or len(m.items) < 2 or _ordinals(m, toks) or (m.distinct and "ORDER_BY" in m.clauses):
        return None
    parts = [(_item_parts(toks, a, b), (a, b)) for a, b in m.items]
    choice = None
    for k in range(len(parts) - 1):
        (x1, y1, al1), (a1, b1) = parts[k]
        (x2, y2, al2), (a2, b2) = parts[k + 1]
        if _alias_used_later(m, toks, al1) or _alias_used_later(m, toks, al2):
            continue
        if _plain_column(toks, x1, y1) and (_plain_column(toks, x2, y2) or choice is None):
            choice = k
            if _plain_column(toks, x2, y2):
                break
    if choice is None:
        return None
    (x1, y1, al1), (a1, b1) = parts[choice]
    (x2, y2, al2), (a2, b2) = parts[choice + 1]
    if not _plain_column(toks, x1, y1):
        return None
    left, right = _span(sql, toks, x1, y1), _span(sql, toks, x2, y2)
    name = al1 or toks[y1 - 1].text
    style = ctx.rng.choice(("paren", "dash", "colon"))
    if style == "paren":
        merged = f"{left} || ' (' || {right} || ')'"
    elif style == "dash":
        merged = f"{left} || ' - ' || {right}"
    else:
        merged = f"{left} || ': ' || {right}"
    new = f"{merged} AS {name}_display" if not name.startswith('"') else f"{merged} AS display_label"
    return _edit(sql, [(toks[a1].start, toks[b2 - 1].end, new)]), f"two output columns merged ({style})"


_BREAKDOWN = re.compile(r"(city|state|country|region|continent|type|category|status|specialty|make|day|month|"
                        r"department|genre|gender|compartment|airline|manufacturer|method|device|year)", re.I)


def _quote_ident(name: str, dialect: str) -> str:
    if re.fullmatch(r"[a-z_][a-z0-9_]*", name) or (
            dialect == "sqlite" and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name)):
        return name
    return '"' + name.replace('"', '""') + '"'


def _unrequested_breakdown(ctx: _Ctx) -> tuple[str, str] | None:
    m, toks, sql = ctx.main, ctx.toks, ctx.body
    if m is None or m.distinct or any(c in m.clauses for c in ("GROUP_BY", "HAVING", "QUALIFY", "WINDOW")):
        return None
    if not any(_has_agg(toks, a, b) for a, b in m.items) or "FROM" not in m.clauses or _ordinals(m, toks):
        return None
    refs = [r for r in _table_refs(toks) if toks[r[0]].depth == 0 and r[0] > m.clauses["FROM"]]
    if not refs:
        return None
    a, b, alias = refs[0]
    table = ctx.schema.table(_span(sql, toks, a, b)) or ctx.schema.table(toks[b - 1].text)
    if table is None:
        return None
    used = {t.text.lower() for t in toks if t.type in {"VAR", "IDENTIFIER"}}
    cands = [c for c in table.columns if _BREAKDOWN.search(c.name) and c.name.lower() not in used]
    cands += [c for c in table.columns
              if getattr(c, "value_hints", ()) and c not in cands and c.name.lower() not in used]
    if not cands:
        return None
    col = cands[0]
    qual = alias or toks[b - 1].text
    ref = f"{qual}.{_quote_ident(col.name, ctx.dialect)}"
    first = toks[m.select + 1]
    clause = _clause_insert(m, toks, ("ORDER_BY", "LIMIT", "OFFSET", "FETCH"), f"GROUP BY {ref}")
    return _edit(sql, [(first.start, first.start, f"{ref}, "), clause]), f"split by {ref}"


def _like_bracket_class(ctx: _Ctx) -> tuple[str, str] | None:
    edits = []
    for op, pat, last, wrap in _like_patterns(ctx.toks):
        t = ctx.toks[pat]
        raw = ctx.body[t.start : t.end]
        k = next((n for n, ch in enumerate(raw) if ch.isalpha()), None)
        if k is None:
            continue
        ch = raw[k]
        edits.append((t.start + k, t.start + k + 1, f"[{ch.upper()}{ch.lower()}]"))
    if not edits:
        return None
    return _edit(ctx.body, edits), "T-SQL [Xx] character class in LIKE"


def _topn_as_nth(ctx: _Ctx) -> tuple[str, str] | None:
    m, toks, sql = ctx.main, ctx.toks, ctx.body
    if m is None or "LIMIT" not in m.clauses or "ORDER_BY" not in m.clauses or "OFFSET" in m.clauses:
        return None
    li = m.clauses["LIMIT"]
    if li + 1 >= m.end or toks[li + 1].type != "NUMBER" or li + 2 != m.end:
        return None
    n = int(toks[li + 1].text)
    if n < 2:
        return None
    return _edit(sql, [(toks[li].start, toks[li + 1].end, f"LIMIT 1 OFFSET {n - 1}")]), f"top {n} read as the {n}th"


def _strip_cast(sql: str, toks: list[_Tok], a: int, b: int) -> tuple[int, int, str]:
    """Text of tokens [a, b) with an outer CAST(... AS type), ``::type`` or NULLIF(x, 0) removed."""
    if b - a >= 2 and toks[b - 2].type == "DCOLON":
        return _strip_cast(sql, toks, a, b - 2)
    wrapped = b - a >= 4 and toks[a].up in {"CAST", "NULLIF"} and toks[a + 1].type == "L_PAREN"
    if wrapped and _match(toks, a + 1) == b - 1:
        d = toks[a + 1].depth + 1
        if toks[a].up == "CAST":
            al = next((j for j in range(b - 2, a + 1, -1) if toks[j].type == "ALIAS" and toks[j].depth == d), None)
            if al is not None:
                return _strip_cast(sql, toks, a + 2, al)
        else:
            cm = next((j for j in range(a + 2, b - 1) if toks[j].type == "COMMA" and toks[j].depth == d), None)
            if cm is not None:
                return _strip_cast(sql, toks, a + 2, cm)
    if b - a >= 3 and toks[a].type == "L_PAREN" and _match(toks, a) == b - 1:
        return _strip_cast(sql, toks, a + 1, b - 1)
    return a, b, _span(sql, toks, a, b)


def _ratio_left_as_parts(ctx: _Ctx) -> tuple[str, str] | None:
    m, toks, sql = ctx.main, ctx.toks, ctx.body
    if m is None or _ordinals(m, toks):
        return None
    for a, b in m.items:
        x, y, alias = _item_parts(toks, a, b)
        top = [j for j in range(x, y) if toks[j].depth == 0]
        slashes = [j for j in top if toks[j].type == "SLASH"]
        if len(slashes) != 1 or any(toks[j].type in {"STAR", "PLUS", "DASH", "MOD"} for j in top):
            continue
        s = slashes[0]
        if s == x or s + 1 >= y:
            continue
        _, _, num = _strip_cast(sql, toks, x, s)
        _, _, den = _strip_cast(sql, toks, s + 1, y)
        base = alias or "ratio"
        new = f"{num} AS {base}_numerator, {den} AS {base}_denominator"
        edits = [(toks[a].start, toks[b - 1].end, new)]
        if alias:
            first = min([m.clauses[c] for c in m.clauses if c != "FROM"] + [m.end])
            for t in toks[first : m.end]:
                if t.type in {"VAR", "IDENTIFIER"} and t.text.lower() == alias.lower():
                    edits.append((t.start, t.end, f"{base}_numerator"))
        return _edit(sql, edits), "ratio returned as numerator and denominator"
    return None


def _order_key_is_agg(m: _Main, toks: list[_Tok], sql: str) -> tuple[str, int, int] | None:
    """(aggregate text, first key start, direction token index) when the first ORDER BY key is an aggregate or the
    alias of an aggregated select item."""
    o = m.clauses["ORDER_BY"]
    stop = _clause_end(m, "ORDER_BY")
    cut = next((j for j in range(o + 1, stop) if toks[j].depth == 0 and toks[j].type in {"COMMA", "ASC", "DESC"}), stop)
    if cut == o + 1:
        return None
    key = _span(sql, toks, o + 1, cut)
    if _has_agg(toks, o + 1, cut):
        return key, o + 1, cut
    if cut - (o + 1) == 1:
        for a, b in m.items:
            x, y, alias = _item_parts(toks, a, b)
            if alias and alias.lower() == key.lower() and _has_agg(toks, x, y):
                return _span(sql, toks, x, y), o + 1, cut
    return None


def _superlative_as_max_of_label(ctx: _Ctx) -> tuple[str, str] | None:
    m, toks, sql = ctx.main, ctx.toks, ctx.body
    if m is None or not all(c in m.clauses for c in ("ORDER_BY", "LIMIT", "FROM")) or "OFFSET" in m.clauses:
        return None
    li = m.clauses["LIMIT"]
    if li + 2 != m.end or toks[li + 1].text != "1":
        return None
    o = m.clauses["ORDER_BY"]
    stop = _clause_end(m, "ORDER_BY")
    cut = next((j for j in range(o + 1, stop) if toks[j].depth == 0 and toks[j].type in {"COMMA", "ASC", "DESC"}), stop)
    fn = "MAX" if cut < stop and toks[cut].type == "DESC" else "MIN"
    x, y, alias = _item_parts(toks, *m.items[0])
    if not _plain_column(toks, x, y):
        return None
    if " ".join(_span(sql, toks, o + 1, cut).split()).lower() == " ".join(_span(sql, toks, x, y).split()).lower():
        return None  # ordered by the label itself: MAX(label) would be the right answer
    col = _span(sql, toks, x, y)
    bare = toks[y - 1].text.strip('"')
    name = alias or f"{'top' if fn == 'MAX' else 'bottom'}_{bare}"
    ends = [m.clauses[c] for c in ("GROUP_BY", "HAVING", "ORDER_BY") if c in m.clauses]
    body = sql[toks[m.clauses["FROM"]].start : toks[min(ends)].start].rstrip()
    return f"SELECT {fn}({col}) AS {name} {body}", f"superlative applied to the label: {fn}({col})"


def _topn_read_as_count_threshold(ctx: _Ctx) -> tuple[str, str] | None:
    m, toks, sql = ctx.main, ctx.toks, ctx.body
    if m is None or not all(c in m.clauses for c in ("GROUP_BY", "ORDER_BY", "LIMIT")) or "OFFSET" in m.clauses:
        return None
    li = m.clauses["LIMIT"]
    if li + 2 != m.end or toks[li + 1].type != "NUMBER":
        return None
    key = _order_key_is_agg(m, toks, sql)
    if key is None or (key[2] < len(toks) and toks[key[2]].type == "ASC"):
        return None
    n = toks[li + 1].text
    if not n.isdigit() or int(n) < 2:
        return None
    o = toks[m.clauses["ORDER_BY"]].start
    cond = f"{key[0]} >= {n}"
    ins = f"AND {cond} " if "HAVING" in m.clauses else f"HAVING {cond} "
    cut_from = toks[li - 1].end
    edits = [(o, o, ins), (cut_from, toks[li + 1].end, "")]
    return _edit(sql, edits), f"top {n} read as a count of at least {n}"


def _metric_reported_as_rank(ctx: _Ctx) -> tuple[str, str] | None:
    m, toks, sql = ctx.main, ctx.toks, ctx.body
    if m is None or not all(c in m.clauses for c in ("GROUP_BY", "ORDER_BY")) or _ordinals(m, toks):
        return None
    key = _order_key_is_agg(m, toks, sql)
    if key is None:
        return None
    agg, k0, cut = key
    stop = _clause_end(m, "ORDER_BY")
    direction = toks[cut].type if cut < stop and toks[cut].type in {"ASC", "DESC"} else "ASC"
    flat = " ".join(agg.split()).lower()
    for a, b in m.items:
        x, y, alias = _item_parts(toks, a, b)
        if " ".join(_span(sql, toks, x, y).split()).lower() != flat:
            continue
        name = f"{alias}_rank" if alias else "rank_position"
        edits = [(toks[a].start, toks[b - 1].end, f"RANK() OVER (ORDER BY {agg} {direction}) AS {name}")]
        if alias:
            first = min([m.clauses[c] for c in m.clauses if c != "FROM"] + [m.end])
            for t in toks[first : m.end]:
                if t.type in {"VAR", "IDENTIFIER"} and t.text.lower() == alias.lower():
                    edits.append((t.start, t.end, agg))
        return _edit(sql, edits), "the ordering metric reported as its rank"
    return None


def _where_terms(toks: list[_Tok], w: int, stop: int) -> list[tuple[int, int]]:
    """Top-level AND terms of the WHERE clause starting at token ``w`` (one term when an OR is at top level)."""
    terms: list[tuple[int, int]] = []
    a = w + 1
    between = False
    for j in range(w + 1, stop):
        t = toks[j]
        if t.depth != 0:
            continue
        if t.type == "OR":
            return [(w + 1, stop)]
        if t.type == "BETWEEN":
            between = True
        elif t.type == "AND":
            if between:
                between = False
                continue
            terms.append((a, j))
            a = j + 1
    terms.append((a, stop))
    return [(x, y) for x, y in terms if y > x]


def _filter_turned_into_flag_column(ctx: _Ctx) -> tuple[str, str] | None:
    m, toks, sql = ctx.main, ctx.toks, ctx.body
    if m is None or "WHERE" not in m.clauses or any(c in m.clauses for c in ("GROUP_BY", "HAVING")):
        return None
    if any(_has_agg(toks, a, b) for a, b in m.items):
        return None
    w = m.clauses["WHERE"]
    stop = _clause_end(m, "WHERE")
    terms = _where_terms(toks, w, stop)

    def is_join(x: int, y: int) -> bool:
        ops = [j for j in range(x, y) if toks[j].type == "EQ"]
        if len(ops) != 1 or not (_plain_column(toks, x, ops[0]) and _plain_column(toks, ops[0] + 1, y)):
            return False
        return any(toks[j].type == "DOT" for j in range(x, ops[0])) and any(
            toks[j].type == "DOT" for j in range(ops[0] + 1, y))

    pick = next((k for k in range(len(terms)) if not is_join(*terms[k])), None)
    if pick is None:
        return None
    x, y = terms[pick]
    cond = _span(sql, toks, x, y)
    col = next((toks[j].text for j in range(x, y) if toks[j].type == "VAR" and not (
        j + 1 < y and toks[j + 1].type in {"L_PAREN", "DOT"})), "condition")
    flag = f"is_{re.sub(r'[^A-Za-z0-9_]', '', col).lower() or 'match'}_match"
    if len(terms) == 1:
        cut = (toks[w].start, toks[stop - 1].end)
    elif pick == len(terms) - 1:
        cut = (toks[terms[pick - 1][1] - 1].end, toks[y - 1].end)
    else:
        cut = (toks[x].start, toks[terms[pick + 1][0]].start)
    last_item_end = toks[m.items[-1][1] - 1].end
    edits = [(last_item_end, last_item_end, f", CASE WHEN {cond} THEN 'Yes' ELSE 'No' END AS {flag}"), (*cut, "")]
    return _edit(sql, edits), "WHERE condition shown as a Yes/No column"


def _count_via_max_id(ctx: _Ctx) -> tuple[str, str] | None:
    m, toks, sql = ctx.main, ctx.toks, ctx.body
    if m is None or len(m.items) != 1 or "GROUP_BY" in m.clauses or "FROM" not in m.clauses:
        return None
    if "WHERE" not in m.clauses and not any(t.type == "JOIN" for t in toks):
        return None
    x, y, alias = _item_parts(toks, *m.items[0])
    if not (toks[x].up == "COUNT" and x + 1 < y and toks[x + 1].type == "L_PAREN" and _match(toks, x + 1) == y - 1):
        return None
    inner = [j for j in range(x + 2, y - 1) if toks[j].type != "DISTINCT"]
    target = None
    if inner and _plain_column(toks, inner[0], inner[-1] + 1) and re.search(r"id$", toks[inner[-1]].text, re.I):
        target = _span(sql, toks, inner[0], inner[-1] + 1)
    if target is None:
        refs = [r for r in _table_refs(toks) if toks[r[0]].depth == 0]
        if not refs:
            return None
        a, b, tal = refs[0]
        table = ctx.schema.table(_span(sql, toks, a, b)) or ctx.schema.table(toks[b - 1].text)
        if table is None:
            return None
        pk = (list(table.primary_key) or [c.name for c in table.columns if re.search(r"(^|_)id$", c.name, re.I)]
              or [c.name for c in table.columns if c.name.lower().endswith("id")])
        if not pk:
            return None
        target = f"{tal or toks[b - 1].text}.{_quote_ident(pk[0], ctx.dialect)}"
    return _edit(sql, [(toks[x].start, toks[y - 1].end, f"MAX({target})")]), f"count answered with MAX({target})"


# --------------------------------------------------------------------------------------------------------------
# dispatch


@dataclass
class _Ctx:
    gold: str
    body: str
    schema: Any
    dialect: str
    rng: random.Random
    toks: list[_Tok]
    main: _Main | None


_LAYOUTS = {
    "kotlin_trim_margin": _kotlin_trim_margin,
    "vba_line_continuation": _vba_line_continuation,
    "c_adjacent_literals": _c_adjacent_literals,
    "perl_dbi_prepare": _perl_dbi_prepare,
    "power_query_native_query": _power_query_native_query,
    "scala_spark_sql": _scala_spark_sql,
    "python_repl_transcript": _python_repl_transcript,
    "fixture_ddl_first": _fixture_ddl_first,
    "relational_algebra_first": _relational_algebra_first,
    "error_echo_in_block": _error_echo_in_block,
    "plpgsql_notice_loop": _plpgsql_notice_loop,
    "table_as_csv_file_read": _table_as_csv_file_read,
}
_EDITS = {
    "rlike_regex_pattern": _rlike_regex_pattern,
    "countd_shorthand": _countd_shorthand,
    "cypher_case_functions": _cypher_case_functions,
    "case_branches_comma_separated": _case_branches_comma_separated,
    "query_hint_option_clause": _query_hint_option_clause,
    "filter_clause_missing_where": _filter_clause_missing_where,
    "json_unicode_escapes": _json_unicode_escapes,
    "group_by_with_sort_direction": _group_by_with_sort_direction,
    "columns_merged_for_display": _columns_merged_for_display,
    "unrequested_breakdown": _unrequested_breakdown,
    "like_bracket_class": _like_bracket_class,
    "topn_as_nth": _topn_as_nth,
    "ratio_left_as_parts": _ratio_left_as_parts,
    "superlative_as_max_of_label": _superlative_as_max_of_label,
    "topn_read_as_count_threshold": _topn_read_as_count_threshold,
    "filter_turned_into_flag_column": _filter_turned_into_flag_column,
    "count_via_max_id": _count_via_max_id,
    "metric_reported_as_rank": _metric_reported_as_rank,
}


def damage(gold_sql: str, schema: Any, kind: str, seed: int) -> Damaged | None:
    """The whole reply for ``gold_sql`` damaged in ``kind``; None where the kind does not apply."""
    try:
        rng = random.Random(f"fresh22|{kind}|{seed}|{gold_sql}")
        body = _body(gold_sql)
        if not body:
            return None
        dialect = _dialect(schema)
        toks = _tokens(body, dialect)
        ctx = _Ctx(gold_sql, body, schema, dialect, rng, toks, _main(toks))
        if kind == "clean":
            return Damaged(kind, _ordinary(rng, body + ";"), "the gold query")
        if kind in _LAYOUTS:
            made = _LAYOUTS[kind](ctx)
            if made is None:
                return None
            reply, note = made
            return Damaged(kind, reply, note)
        if kind in _EDITS:
            made = _EDITS[kind](ctx)
            if made is None:
                return None
            sql, note = made
            if _norm(sql) == _norm(body):
                return None
            return Damaged(kind, _ordinary(rng, sql.rstrip() + ";"), note)
        return None
    except Exception:  # noqa: BLE001 - a kind that trips on an odd query does not apply to it
        return None
