"""Held-out damage generator fresh23: damaged model replies made from gold queries by text edits.

Written without reading Cairn's extraction, check or repair code. Every kind is a text edit of the gold query or
of the reply around it (positions found with sqlglot's tokenizer); nothing is re-rendered from a tree.

| kind                            | fam | what the reply does                                                               |
|---------------------------------|-----|-----------------------------------------------------------------------------------|
| clean                           |  -  | the gold query, fenced, in an ordinary reply                                      |
| java_text_block                 |  A  | the query in a Java 15 text block handed to JDBC's prepareStatement               |
| cpp_raw_string_literal          |  A  | the query in a C++ raw string literal R"sql(...)sql" (sqlite3 / libpqxx call)     |
| elixir_ecto_query               |  A  | the query in an Elixir heredoc passed to Ecto.Adapters.SQL.query!                  |
| dart_sqflite_raw_query          |  A  | the query in a Dart triple-quoted string passed to sqflite's db.rawQuery           |
| swift_grdb_fetch                |  A  | the query in a Swift multi-line string passed to GRDB's Row.fetchAll               |
| julia_dbinterface               |  A  | the query in a Julia triple-quoted string, DBInterface.execute(...) |> DataFrame    |
| clojure_next_jdbc               |  A  | the query as an escaped Clojure string in a next.jdbc execute! vector              |
| ipynb_cell_json                 |  A  | the raw notebook cell JSON, the query split into a "source" array of lines         |
| stray_fence_opener              |  A  | a leftover fence (or an empty sql block) opens the reply, the real block follows   |
| clause_dict_json                |  A  | the query taken apart into a JSON object of clauses (select/from/where/...)        |
| hallucinated_prior_turn         |  A  | an invented earlier User/Assistant exchange, with its own COUNT(*) query, first    |
| pseudocode_plan_first           |  A  | a numbered pseudocode plan in the first code block, the SQL in a second one        |
| sqlx_config_block               |  A  | a Dataform SQLX config { ... } header inside the sql block, above the query        |
| topn_window_in_where            |  A  | ORDER BY ... LIMIT n written as RANK() OVER (ORDER BY ...) <= n inside WHERE       |
| tsql_exec_dynamic               |  A  | the query as T-SQL dynamic SQL: EXEC sp_executesql N'...' (quotes doubled)         |
| sqlplus_format_commands         |  A  | SQL*Plus SET PAGESIZE / SET LINESIZE / COLUMN ... FORMAT lines before the query    |
| charindex_for_like              |  A  | x LIKE '%word%' written T-SQL style as CHARINDEX('word', x) > 0                    |
| bridge_table_named_by_ends      |  A  | a link table renamed after the two tables it links (writes -> author_publication)  |
| pragma_preamble                 |  A  | a SQLite PRAGMA statement in front of the query in the same block                  |
| count_distinct_column_pair      |  A  | MySQL's two-column COUNT(DISTINCT a, b) (a's label or the group key added)         |
| count_distinct_of_group_key     |  B  | the per-group count counts DISTINCT values of the grouping key itself (1 each)     |
| conditional_count_sums_measure  |  B  | a conditional count (CASE WHEN x > n THEN 1) sums the measure x instead of 1s      |
| bridge_table_bypassed           |  B  | the link table skipped, its two ends joined id to id (author.aid = publication.pid)|
| self_join_anchor_excluded       |  B  | "others sharing X with A" leaves A itself out (other.key <> anchor.key added)      |
| in_subquery_projects_other_key  |  B  | x IN (SELECT t.a FROM t ...) returns t's other key column t.b                      |
| superlative_scoped_per_group    |  B  | x = (SELECT MAX(x) FROM t) correlated on the listed column: best per group         |
| fk_null_as_not_in               |  B  | fk IS NULL ("has no parent") as fk NOT IN (SELECT fk FROM parent): NULLs drop out  |
| topn_window_partitioned_by_key  |  B  | top n via RANK() in a derived table, PARTITION BY the listed column: n per value   |
| in_list_as_and_chain            |  B  | x IN ('a', 'b') ("both a and b") as x = 'a' AND x = 'b' on one row                 |
| avg_excluding_zero              |  B  | AVG(n) of a whole-number column as AVG(NULLIF(n, 0)): zero rows left out           |

Family A (20 kinds): the reply as written fails, or its SQL is hard to find. Family B (10 kinds): the SQL runs and
answers another question. A kind returns None where it does not fit the gold query.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlglot.dialects.dialect import Dialect
from sqlglot.tokens import TokenType as TT

__all__ = ["DAMAGE_KINDS", "TREE_KINDS", "Damaged", "damage"]


@dataclass(frozen=True)
class Damaged:
    kind: str
    reply: str
    note: str


TREE_KINDS: frozenset[str] = frozenset()


# ----------------------------------------------------------------------------------------------------------- tokens


@dataclass(frozen=True)
class Tok:
    kind: Any
    text: str
    start: int
    end: int  # exclusive
    depth: int  # paren depth outside the token (a "(" and its ")" carry the outer depth)
    isname: bool = False  # an identifier (a column, table or alias name; a function's name too)

    @property
    def up(self) -> str:
        return self.text.upper()


def _dialect(schema: Any) -> str:
    name = str(getattr(schema, "dialect", "") or "postgres").lower()
    return name if name in ("sqlite", "postgres", "duckdb", "mysql") else "postgres"


def _tokens(sql: str, dialect: str) -> list[Tok]:
    out: list[Tok] = []
    depth = 0
    for t in Dialect.get_or_raise(dialect).tokenize(sql):
        if t.token_type == TT.R_PAREN:
            depth -= 1
        isname = t.token_type in (TT.VAR, TT.IDENTIFIER) or (
            t.token_type not in _STRUCTURAL and _WORD.fullmatch(t.text) is not None)
        out.append(Tok(t.token_type, t.text, t.start, t.end + 1, depth, isname))
        if t.token_type == TT.L_PAREN:
            depth += 1
    return out


def _edit(sql: str, edits: list[tuple[int, int, str]]) -> str:
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        sql = sql[:start] + new + sql[end:]
    return sql


def _match_paren(toks: list[Tok], i: int) -> int:
    """Index of the ")" closing the "(" at i."""
    depth = 0
    for j in range(i, len(toks)):
        if toks[j].kind == TT.L_PAREN:
            depth += 1
        elif toks[j].kind == TT.R_PAREN:
            depth -= 1
            if depth == 0:
                return j
    raise ValueError("unbalanced")


def _open_paren(toks: list[Tok], j: int) -> int:
    """Index of the "(" opened for the ")" at j."""
    depth = 0
    for i in range(j, -1, -1):
        if toks[i].kind == TT.R_PAREN:
            depth += 1
        elif toks[i].kind == TT.L_PAREN:
            depth -= 1
            if depth == 0:
                return i
    raise ValueError("unbalanced")


_CLAUSES = {TT.FROM: "from", TT.WHERE: "where", TT.GROUP_BY: "group_by", TT.HAVING: "having", TT.WINDOW: "window",
            TT.QUALIFY: "qualify", TT.ORDER_BY: "order_by", TT.LIMIT: "limit", TT.OFFSET: "offset",
            TT.FETCH: "fetch"}
_SETOPS = (TT.UNION, TT.EXCEPT, TT.INTERSECT)
_STRUCTURAL = {getattr(TT, n) for n in (
    "SELECT", "FROM", "WHERE", "GROUP_BY", "HAVING", "ORDER_BY", "LIMIT", "OFFSET", "FETCH", "WINDOW", "QUALIFY",
    "JOIN", "INNER", "LEFT", "RIGHT", "FULL", "OUTER", "CROSS", "NATURAL", "ON", "USING", "ALIAS", "AND", "OR",
    "NOT", "IS", "NULL", "IN", "LIKE", "ILIKE", "BETWEEN", "CASE", "WHEN", "THEN", "ELSE", "END", "DISTINCT",
    "UNION", "EXCEPT", "INTERSECT", "WITH", "ASC", "DESC", "EXISTS", "ALL", "ANY", "SOME", "TRUE", "FALSE",
    "OVER", "PARTITION_BY", "FILTER", "INTERVAL", "STRING", "NUMBER", "SEMICOLON", "ROLLUP", "CUBE", "LATERAL",
    "ESCAPE", "COLLATE", "GLOB", "RLIKE", "SIMILAR_TO") if hasattr(TT, n)}
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")


def _clauses(toks: list[Tok]) -> dict[str, tuple[int, int]] | None:
    """Token ranges [keyword, end) of the main query's clauses ("with" and "select" included); None for set
    operations at the top level."""
    if any(t.kind in _SETOPS and t.depth == 0 for t in toks):
        return None
    sel = next((i for i, t in enumerate(toks) if t.kind == TT.SELECT and t.depth == 0), None)
    if sel is None:
        return None
    marks: list[tuple[str, int]] = [("select", sel)]
    for i in range(sel + 1, len(toks)):
        t = toks[i]
        if t.depth == 0 and t.kind in _CLAUSES:
            name = _CLAUSES[t.kind]
            if any(m[0] == name for m in marks):
                return None
            marks.append((name, i))
    end = len(toks)
    while end > 0 and toks[end - 1].kind == TT.SEMICOLON:
        end -= 1
    out: dict[str, tuple[int, int]] = {}
    if sel > 0:
        out["with"] = (0, sel)
    for k, (name, i) in enumerate(marks):
        out[name] = (i, marks[k + 1][1] if k + 1 < len(marks) else end)
    return out


def _text(sql: str, toks: list[Tok], a: int, b: int) -> str:
    """The text of tokens [a, b)."""
    if a >= b:
        return ""
    return sql[toks[a].start:toks[b - 1].end]


def _split_commas(toks: list[Tok], a: int, b: int, depth: int = 0) -> list[tuple[int, int]]:
    parts: list[tuple[int, int]] = []
    start = a
    for i in range(a, b):
        if toks[i].kind == TT.COMMA and toks[i].depth == depth:
            parts.append((start, i))
            start = i + 1
    parts.append((start, b))
    return [p for p in parts if p[0] < p[1]]


def _norm(sql: str) -> str:
    return re.sub(r"\s+", " ", sql.strip().rstrip(";").strip()).lower()


# ------------------------------------------------------------------------------------------------------ reply text

_INTROS = (
    "Here is the SQL query:",
    "Sure! The following query answers the question:",
    "You can use this query:",
    "This query should give you the result:",
    "Here's how you can get that:",
)
_OUTROS = (
    "",
    "This returns the requested rows.",
    "Let me know if you need any adjustments.",
    "The query filters, joins and aggregates the data as asked.",
)


def _reply(rng: random.Random, body: str, intro: str | None = None) -> str:
    outro = rng.choice(_OUTROS)
    text = f"{intro or rng.choice(_INTROS)}\n\n{body}\n"
    return text + (f"\n{outro}\n" if outro else "")


def _fence(code: str, lang: str = "sql") -> str:
    return f"```{lang}\n{code}\n```"


def _indent(sql: str, pad: str) -> str:
    return "\n".join(pad + line if line.strip() else line for line in sql.splitlines())


def _pretty(sql: str, dialect: str) -> str:
    """The gold put on a few lines at its top-level clause keywords (text untouched otherwise)."""
    try:
        toks = _tokens(sql, dialect)
        cuts = [t.start for t in toks if t.depth == 0 and (t.kind in _CLAUSES or (t.kind == TT.JOIN))
                and t.start > 0]
        # a JOIN is preceded by its kind words (LEFT, INNER, ...): cut before them
        fixed: list[int] = []
        for c in cuts:
            idx = next(i for i, t in enumerate(toks) if t.start == c)
            j = idx
            while j > 0 and toks[j - 1].kind in (TT.LEFT, TT.RIGHT, TT.INNER, TT.OUTER, TT.FULL, TT.CROSS,
                                                TT.NATURAL):
                j -= 1
            fixed.append(toks[j].start)
        out = sql
        for c in sorted(set(fixed), reverse=True):
            out = out[:c].rstrip() + "\n" + out[c:]
        return out
    except Exception:  # noqa: BLE001
        return sql


# --------------------------------------------------------------------------------------------------------- kinds

Result = tuple[str, str, str | None]  # reply, note, the damaged SQL (None: the gold itself, the damage is layout)
Kind = Callable[[str, Any, random.Random, str], Result | None]


def k_clean(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    return _reply(rng, _fence(gold)), "the gold query", None


# ---- family A: wrappers in other host languages


def k_java_text_block(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    body = _indent(_pretty(gold, d), "    ")
    code = (f'String sql = """\n{body}\n    """;\n\n'
            "try (PreparedStatement ps = conn.prepareStatement(sql);\n"
            "     ResultSet rs = ps.executeQuery()) {\n"
            "    while (rs.next()) {\n"
            "        // read each column of the row here\n"
            "    }\n"
            "}")
    return _reply(rng, _fence(code, "java"), "Here is the JDBC code with the query in a text block:"), \
        "query in a Java text block", None


def k_cpp_raw_string_literal(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    body = _pretty(gold, d)
    if d == "sqlite":
        code = ("sqlite3_stmt *stmt = nullptr;\n"
                f'const char *sql = R"sql(\n{body}\n)sql";\n'
                "if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) == SQLITE_OK) {\n"
                "    while (sqlite3_step(stmt) == SQLITE_ROW) {\n"
                "        // read the columns with sqlite3_column_*\n"
                "    }\n"
                "}\n"
                "sqlite3_finalize(stmt);")
    else:
        code = ("pqxx::work txn{conn};\n"
                f'const pqxx::result rows = txn.exec(R"sql(\n{body}\n)sql");\n'
                "for (auto const &row : rows) {\n"
                "    // row[0], row[1], ...\n"
                "}")
    return _reply(rng, _fence(code, "cpp")), "query in a C++ raw string literal", None


def k_elixir_ecto_query(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    body = _indent(_pretty(gold, d), "  ")
    code = (f'sql = """\n{body}\n"""\n\n'
            "%{rows: rows, columns: columns} = Ecto.Adapters.SQL.query!(Repo, sql, [])")
    return _reply(rng, _fence(code, "elixir"), "In Elixir with Ecto you can run it like this:"), \
        "query in an Elixir heredoc", None


def k_dart_sqflite_raw_query(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    if "'''" in gold or "$" in gold:
        return None
    code = ("final List<Map<String, Object?>> rows = await db.rawQuery('''\n"
            f"{_indent(_pretty(gold, d), '  ')}\n"
            "''');\n"
            "for (final row in rows) {\n"
            "  print(row);\n"
            "}")
    return _reply(rng, _fence(code, "dart")), "query in a Dart rawQuery string", None


def k_swift_grdb_fetch(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    if '"""' in gold or "\\" in gold:
        return None
    code = ("let rows = try dbQueue.read { db in\n"
            '    try Row.fetchAll(db, sql: """\n'
            f"{_indent(_pretty(gold, d), '        ')}\n"
            '        """)\n'
            "}\n"
            "for row in rows {\n"
            "    print(row)\n"
            "}")
    return _reply(rng, _fence(code, "swift"), "Using GRDB in Swift:"), "query in a Swift multi-line string", None


def k_julia_dbinterface(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    if '"""' in gold or "$" in gold:
        return None
    pkg = "SQLite" if d == "sqlite" else "LibPQ"
    code = (f"using {pkg}, DBInterface, DataFrames\n\n"
            'df = DBInterface.execute(conn, """\n'
            f"{_pretty(gold, d)}\n"
            '""") |> DataFrame')
    return _reply(rng, _fence(code, "julia")), "query in a Julia string piped into a DataFrame", None


def k_clojure_next_jdbc(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    escaped = _pretty(gold, d).replace("\\", "\\\\").replace('"', '\\"')
    escaped = escaped.replace("\n", "\n              ")
    code = ("(require '[next.jdbc :as jdbc])\n\n"
            f'(jdbc/execute! ds ["{escaped}"])')
    return _reply(rng, _fence(code, "clojure")), "query in a Clojure next.jdbc vector", None


# ---- family A: layouts


def k_ipynb_cell_json(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    lines = _pretty(gold, d).splitlines()
    source = [line + "\n" for line in lines[:-1]] + [lines[-1]]
    cell = {"cell_type": "code", "execution_count": None, "id": f"{rng.getrandbits(32):08x}", "metadata": {},
            "outputs": [], "source": source}
    return _reply(rng, _fence(json.dumps(cell, indent=1, ensure_ascii=False), "json"),
                  "Here is the notebook cell with the query:"), "query as a notebook cell's JSON", None


def k_stray_fence_opener(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    intro = rng.choice(_INTROS)
    if rng.random() < 0.5:
        reply = f"```\n{intro}\n\n{_fence(gold)}\n"
    else:
        reply = f"```sql\n```\n\n{intro}\n\n{_fence(gold)}\n"
    return reply, "a stray fence before the real block", None


def k_clause_dict_json(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    toks = _tokens(gold, d)
    cl = _clauses(toks)
    if cl is None:
        return None
    obj: dict[str, Any] = {}
    if "with" in cl:
        a, b = cl["with"]
        obj["with"] = _text(gold, toks, a + 1, b)
    a, b = cl["select"]
    obj["select"] = [_text(gold, toks, x, y) for x, y in _split_commas(toks, a + 1, b)]
    for name in ("from", "where", "having"):
        if name in cl:
            a, b = cl[name]
            obj[name] = _text(gold, toks, a + 1, b)
    for name in ("group_by", "order_by"):
        if name in cl:
            a, b = cl[name]
            obj[name] = [_text(gold, toks, x, y) for x, y in _split_commas(toks, a + 1, b)]
    for name in ("limit", "offset"):
        if name in cl:
            a, b = cl[name]
            value = _text(gold, toks, a + 1, b)
            obj[name] = int(value) if value.isdigit() else value
    if set(cl) - {"with", "select", "from", "where", "having", "group_by", "order_by", "limit", "offset"}:
        return None
    body = _fence(json.dumps({"query": obj}, indent=2, ensure_ascii=False), "json")
    return _reply(rng, body, "Here is the query broken down by clause:"), "query as a JSON object of clauses", None


def _first_table(gold: str, toks: list[Tok], cl: dict[str, tuple[int, int]]) -> str | None:
    if "from" not in cl:
        return None
    a, b = cl["from"]
    i = a + 1
    if i >= b or not toks[i].isname:
        return None
    j = i + 1
    while j + 1 < b and toks[j].kind == TT.DOT and toks[j + 1].isname:
        j += 2
    return gold[toks[i].start:toks[j - 1].end]


def k_hallucinated_prior_turn(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    toks = _tokens(gold, d)
    cl = _clauses(toks)
    if cl is None:
        return None
    table = _first_table(gold, toks, cl)
    if table is None:
        return None
    first = f"SELECT COUNT(*) AS total FROM {table};"
    q = rng.choice((f"How many rows are in the {table} table?", f"How many records does {table} have?"))
    reply = (f"User: {q}\nAssistant:\n{_fence(first)}\n\n"
             f"User: Thanks. Now the query for my question.\nAssistant:\n{_fence(gold)}\n")
    return reply, "an invented earlier exchange with its own query first", None


def _plan(gold: str, toks: list[Tok], cl: dict[str, tuple[int, int]]) -> list[str]:
    steps: list[str] = []
    if "with" in cl:
        steps.append("build the helper result sets named in WITH")
    if "from" in cl:
        a, b = cl["from"]
        tables = [t.text for k, t in enumerate(toks[a + 1:b], a + 1)
                  if t.isname and t.depth == 0 and toks[k - 1].kind in (TT.FROM, TT.JOIN, TT.COMMA)]
        steps.append("scan " + (" + ".join(tables) if tables else "the tables") +
                     (" matching rows on their keys" if len(tables) > 1 else ""))
    if "where" in cl:
        a, b = cl["where"]
        steps.append("keep rows where " + _text(gold, toks, a + 1, b))
    if "group_by" in cl:
        a, b = cl["group_by"]
        steps.append("group rows by " + _text(gold, toks, a + 1, b))
    if "having" in cl:
        a, b = cl["having"]
        steps.append("keep groups where " + _text(gold, toks, a + 1, b))
    a, b = cl["select"]
    items = [_text(gold, toks, x, y) for x, y in _split_commas(toks, a + 1, b)]
    steps.append("output " + ", ".join(items))
    if "order_by" in cl:
        a, b = cl["order_by"]
        steps.append("sort by " + _text(gold, toks, a + 1, b))
    if "limit" in cl:
        a, b = cl["limit"]
        steps.append("return the first " + _text(gold, toks, a + 1, b))
    return steps


def k_pseudocode_plan_first(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    toks = _tokens(gold, d)
    cl = _clauses(toks)
    if cl is None:
        return None
    steps = _plan(gold, toks, cl)
    plan = "\n".join(f"{n}. {s}" for n, s in enumerate(steps, 1))
    lang = rng.choice(("text", "", "pseudo"))
    reply = (f"Let's plan it first.\n\n```{lang}\nPLAN\n{plan}\nEND PLAN\n```\n\n"
             f"Translated to SQL:\n\n{_fence(gold)}\n")
    return reply, "a pseudocode plan block before the SQL block", None


def k_sqlx_config_block(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    name = rng.choice(("report_result", "answer_view", "analysis_output"))
    header = ('config {\n  type: "view",\n  schema: "reporting",\n'
              f'  name: "{name}",\n  description: "Answer to the question"\n}}\n\n')
    return _reply(rng, _fence(header + _pretty(gold, d)), "As a Dataform SQLX definition:"), \
        "a Dataform config block above the query", None


# ---- family A: dialect and syntax slips


def k_topn_window_in_where(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    toks = _tokens(gold, d)
    cl = _clauses(toks)
    if cl is None or "order_by" not in cl or "limit" not in cl or {"offset", "fetch", "qualify"} & set(cl):
        return None
    la, lb = cl["limit"]
    if lb - la != 2 or toks[la + 1].kind != TT.NUMBER:
        return None
    n = toks[la + 1].text
    oa, ob = cl["order_by"]
    if ob != la:
        return None
    order = _text(gold, toks, oa + 1, ob)
    fn = rng.choice(("RANK", "ROW_NUMBER", "DENSE_RANK"))
    cond = f"{fn}() OVER (ORDER BY {order}) <= {n}"
    edits = [(toks[oa].start, toks[lb - 1].end, "")]
    if "where" in cl:
        wa, wb = cl["where"]
        has_or = any(t.kind == TT.OR and t.depth == 0 for t in toks[wa + 1:wb])
        if has_or:
            edits.append((toks[wa + 1].start, toks[wa + 1].start, "("))
            edits.append((toks[wb - 1].end, toks[wb - 1].end, f") AND {cond}"))
        else:
            edits.append((toks[wb - 1].end, toks[wb - 1].end, f" AND {cond}"))
    else:
        nxt = next((cl[c][0] for c in ("group_by", "having", "window") if c in cl), None)
        if nxt is not None:
            edits.append((toks[nxt].start, toks[nxt].start, f"WHERE {cond} "))
        else:
            edits.append((toks[oa].start, toks[oa].start, f"WHERE {cond}"))
    sql = re.sub(r"[ \t]+$", "", _edit(gold, edits), flags=re.M).rstrip()
    return _reply(rng, _fence(sql)), f"top {n} as {fn}() in WHERE", sql


def k_tsql_exec_dynamic(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    inner = _pretty(gold, d).replace("'", "''")
    if rng.random() < 0.5:
        code = f"DECLARE @sql NVARCHAR(MAX) = N'\n{inner}\n';\n\nEXEC sp_executesql @sql;"
    else:
        code = f"EXEC sp_executesql N'\n{inner}\n';"
    return _reply(rng, _fence(code), "You can run it as dynamic SQL:"), "query as T-SQL dynamic SQL", None


def k_sqlplus_format_commands(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    toks = _tokens(gold, d)
    cl = _clauses(toks)
    if cl is None:
        return None
    a, b = cl["select"]
    cols: list[str] = []
    for x, y in _split_commas(toks, a + 1, b):
        last = toks[y - 1]
        if last.isname:
            cols.append(last.text)
    lines = ["SET PAGESIZE 100", "SET LINESIZE 200"]
    lines += [f"COLUMN {c} FORMAT A30" for c in cols[:2]]
    code = "\n".join(lines) + "\n\n" + _pretty(gold, d) + ";"
    return _reply(rng, _fence(code), "Run this in SQL*Plus (the settings make the output readable):"), \
        "SQL*Plus formatting commands before the query", None


def _operand_before(toks: list[Tok], i: int) -> int | None:
    """Index of the first token of the operand ending just before i (a column or a function call)."""
    j = i - 1
    if j < 0:
        return None
    if toks[j].kind == TT.R_PAREN:
        k = _open_paren(toks, j)
        if k > 0 and toks[k - 1].isname:
            return k - 1
        return k
    if toks[j].isname:
        while j >= 2 and toks[j - 1].kind == TT.DOT and toks[j - 2].isname:
            j -= 2
        return j
    return None


def _pattern_after(toks: list[Tok], i: int) -> tuple[int, int, int] | None:
    """(first, last+1, index of the STRING) of the pattern after LIKE at i: 'x' or LOWER('x')."""
    j = i + 1
    if j < len(toks) and toks[j].kind == TT.STRING:
        return j, j + 1, j
    if (j + 3 < len(toks) and toks[j].isname and toks[j + 1].kind == TT.L_PAREN
            and toks[j + 2].kind == TT.STRING and toks[j + 3].kind == TT.R_PAREN):
        return j, j + 4, j + 2
    return None


def k_charindex_for_like(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    toks = _tokens(gold, d)
    edits: list[tuple[int, int, str]] = []
    for i, t in enumerate(toks):
        if t.kind not in (TT.LIKE, TT.ILIKE):
            continue
        pat = _pattern_after(toks, i)
        left = _operand_before(toks, i - 1 if i > 0 and toks[i - 1].kind == TT.NOT else i)
        if pat is None or left is None:
            continue
        word = toks[pat[2]].text
        if not (word.startswith("%") and word.endswith("%")) or len(word) < 3:
            continue
        core = word[1:-1]
        if "%" in core or "_" in core:
            continue
        negated = i > 0 and toks[i - 1].kind == TT.NOT
        lhs_end = toks[i - 2].end if negated else toks[i - 1].end
        lhs = gold[toks[left].start:lhs_end]
        lit = "'" + core.replace("'", "''") + "'"
        if pat[1] - pat[0] == 4:  # LOWER('%x%') -> LOWER('x')
            lit = f"{toks[pat[0]].text}({lit})"
        new = f"CHARINDEX({lit}, {lhs}) {'=' if negated else '>'} 0"
        edits.append((toks[left].start, toks[pat[1] - 1].end, new))
    if not edits:
        return None
    sql = _edit(gold, edits)
    return _reply(rng, _fence(sql)), "LIKE written as CHARINDEX(...) > 0", sql


def _is_keyish(name: str) -> bool:
    low = name.lower()
    return low.endswith("id") or low.endswith("_id") or low in ("id", "code", "key")


def _junctions(schema: Any) -> dict[str, tuple[str, ...]]:
    """Link tables: {name: (end table of each column, in column order)}, for tables whose columns all name a
    column of another, non-link table."""
    tables = list(getattr(schema, "tables", ()) or ())
    cols = {t.name.lower(): [c.name.lower() for c in t.columns] for t in tables}

    def linkish(name: str) -> bool:
        own = cols[name]
        return 2 <= len(own) <= 3 and all(any(c in cols[o] for o in cols if o != name) for c in own)

    out: dict[str, tuple[str, ...]] = {}
    for name, own in cols.items():
        if len(own) != 2 or not linkish(name):
            continue
        ends: list[str] = []
        for c in own:
            owners = [o for o in cols if o != name and c in cols[o] and not linkish(o)]
            owners.sort(key=lambda o: (not o.startswith(c[:1]), len(cols[o])))
            if not owners:
                break
            ends.append(owners[0])
        if len(ends) == 2 and ends[0] != ends[1]:
            out[name] = tuple(ends)
    return out


def k_bridge_table_named_by_ends(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    toks = _tokens(gold, d)
    links = _junctions(schema)
    existing = {t.name.lower() for t in getattr(schema, "tables", ())}
    used = [t.text.lower() for t in toks if t.isname and t.text.lower() in links]
    if not used:
        return None
    link = used[0]
    a, b = links[link]
    new = rng.choice((f"{a}_{b}", f"{a}_{b}s", f"{a}s_{b}s"))
    if new in existing or f"{b}_{a}" in existing or new.replace("s_", "_") in existing:
        return None
    edits = [(t.start, t.end, new) for i, t in enumerate(toks)
             if t.isname and t.text.lower() == link and not (i > 0 and toks[i - 1].kind == TT.DOT)]
    sql = _edit(gold, edits)
    return _reply(rng, _fence(sql)), f"link table {link} named {new}", sql


def k_pragma_preamble(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    toks = _tokens(gold, d)
    if any(t.kind in (TT.LIKE, TT.ILIKE) for t in toks):
        pragma = "PRAGMA case_sensitive_like = false;"
    else:
        pragma = rng.choice(("PRAGMA foreign_keys = ON;", "PRAGMA query_only = ON;"))
    return _reply(rng, _fence(f"{pragma}\n\n{gold};")), "a PRAGMA statement before the query", None


# ---- family B: semantic slips


def _group_keys(gold: str, toks: list[Tok], cl: dict[str, tuple[int, int]]) -> list[str]:
    if "group_by" not in cl:
        return []
    a, b = cl["group_by"]
    sa, sb = cl["select"]
    items = _split_commas(toks, sa + 1, sb)
    keys: list[str] = []
    for x, y in _split_commas(toks, a + 1, b):
        if y - x == 1 and toks[x].kind == TT.NUMBER:
            pos = int(toks[x].text) - 1
            if not 0 <= pos < len(items):
                return []
            ia, ib = items[pos]
            if ib - ia >= 3 and toks[ib - 2].kind == TT.ALIAS:
                ib -= 2
            keys.append(_text(gold, toks, ia, ib))
        else:
            keys.append(_text(gold, toks, x, y))
    return keys


def _is_column_ref(text: str) -> bool:
    return re.fullmatch(r'[A-Za-z_"][\w"]*(\.[A-Za-z_"][\w"]*)*', text) is not None


def k_count_distinct_of_group_key(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    toks = _tokens(gold, d)
    cl = _clauses(toks)
    if cl is None:
        return None
    keys = [k for k in _group_keys(gold, toks, cl) if _is_column_ref(k)]
    if not keys:
        return None
    key = keys[0]
    sa, sb = cl["select"]
    for i in range(sa + 1, sb - 1):
        if toks[i].up == "COUNT" and toks[i + 1].kind == TT.L_PAREN:
            j = _match_paren(toks, i + 1)
            inner = _text(gold, toks, i + 2, j)
            new = f"DISTINCT {key}"
            if _norm(inner) == _norm(new):
                continue
            sql = _edit(gold, [(toks[i + 1].end, toks[j].start, new)])
            return _reply(rng, _fence(sql)), f"COUNT(DISTINCT {key}) per {key}", sql
    return None


_CMP = (TT.GT, TT.LT, TT.GTE, TT.LTE)


def k_conditional_count_sums_measure(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    toks = _tokens(gold, d)
    for i in range(len(toks) - 3):
        if not (toks[i].up in ("SUM", "COUNT") and toks[i + 1].kind == TT.L_PAREN and toks[i + 2].kind == TT.CASE):
            continue
        j = _match_paren(toks, i + 1)
        body = toks[i + 2:j]
        whens = [k for k, t in enumerate(body) if t.kind == TT.WHEN]
        thens = [k for k, t in enumerate(body) if t.kind == TT.THEN]
        if len(whens) != 1 or len(thens) != 1:
            continue
        cond = body[whens[0] + 1:thens[0]]
        then_val = body[thens[0] + 1] if thens[0] + 1 < len(body) else None
        if then_val is None or then_val.text != "1":
            continue
        cmp_at = next((k for k, t in enumerate(cond) if t.kind in _CMP), None)
        if cmp_at is None or cmp_at + 1 >= len(cond) or cond[cmp_at + 1].kind != TT.NUMBER:
            continue
        col_toks = cond[:cmp_at]
        if not col_toks or any(not (t.isname or t.kind == TT.DOT) for t in col_toks):
            continue
        col = gold[col_toks[0].start:col_toks[-1].end]
        edits = [(then_val.start, then_val.end, col)]
        if toks[i].up == "COUNT":
            edits.append((toks[i].start, toks[i].end, "SUM"))
        sql = _edit(gold, edits)
        return _reply(rng, _fence(sql)), f"conditional count sums {col}", sql
    return None


@dataclass
class _JoinItem:
    first: int  # first token (FROM's table, or the join keyword group)
    table_at: int  # the table name's token
    name: str  # table name, lower
    ref: str  # the name the query qualifies it with (alias or name), lower
    on: tuple[int, int] | None  # tokens of the ON condition (after ON)
    end: int


def _from_items(toks: list[Tok], cl: dict[str, tuple[int, int]]) -> list[_JoinItem] | None:
    a, b = cl["from"]
    starts: list[int] = [a + 1]
    i = a + 1
    while i < b:
        t = toks[i]
        if t.depth == 0 and t.kind == TT.COMMA:
            return None
        if t.depth == 0 and t.kind == TT.JOIN:
            j = i
            while j > a + 1 and toks[j - 1].kind in (TT.LEFT, TT.RIGHT, TT.INNER, TT.OUTER, TT.FULL, TT.CROSS,
                                                    TT.NATURAL):
                j -= 1
            starts.append(j)
        i += 1
    items: list[_JoinItem] = []
    for n, s in enumerate(starts):
        e = starts[n + 1] if n + 1 < len(starts) else b
        k = s
        while k < e and toks[k].kind != TT.JOIN and n > 0:
            k += 1
        t_at = k + 1 if n > 0 else s
        if t_at >= e or not toks[t_at].isname:
            return None
        name = toks[t_at].text.lower()
        p = t_at + 1
        while p + 1 < e and toks[p].kind == TT.DOT:  # schema.table
            name = toks[p + 1].text.lower()
            p += 2
        ref = name
        if p < e and toks[p].kind == TT.ALIAS:
            p += 1
        if p < e and toks[p].isname:
            ref = toks[p].text.lower()
            p += 1
        on = None
        if p < e and toks[p].kind == TT.ON:
            on = (p + 1, e)
        elif p != e:
            return None
        items.append(_JoinItem(s, t_at, name, ref, on, e))
    return items


def _equality(toks: list[Tok], a: int, b: int) -> tuple[tuple[str, str], tuple[str, str]] | None:
    """(ref, col), (ref, col) of a lone "r1.c1 = r2.c2" condition."""
    seg = toks[a:b]
    if len(seg) != 7 or seg[1].kind != TT.DOT or seg[3].kind != TT.EQ or seg[5].kind != TT.DOT:
        return None
    return (seg[0].text.lower(), seg[2].text), (seg[4].text.lower(), seg[6].text)


def k_bridge_table_bypassed(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    toks = _tokens(gold, d)
    cl = _clauses(toks)
    if cl is None or "from" not in cl:
        return None
    links = _junctions(schema)
    items = _from_items(toks, cl)
    if not items or len(items) < 3:
        return None
    for n, item in enumerate(items):
        if item.name not in links or item.ref != item.name and item.ref in {x.ref for x in items if x is not item}:
            continue
        link = item.ref
        # the equalities that tie the link table to its neighbours
        others = [x for x in items if x is not item and x.on is not None]
        ties: dict[str, tuple[str, str]] = {}  # link column -> (ref, col) of the other side
        tie_items: list[_JoinItem] = []
        conds = ([item] if item.on is not None else []) + others
        for x in conds:
            eq = _equality(toks, *x.on)  # type: ignore[misc]
            if eq is None:
                continue
            (r1, c1), (r2, c2) = eq
            if r1 == link and r2 != link:
                ties[c1.lower()] = (r2, c2)
                tie_items.append(x)
            elif r2 == link and r1 != link:
                ties[c2.lower()] = (r1, c1)
                tie_items.append(x)
        if len(ties) != 2 or len(tie_items) != 2:
            continue
        (la, (ra, ca)), (lb, (rb, cb)) = list(ties.items())
        # the later of the two joins gets the direct condition; the link table's own item disappears
        keep = [x for x in tie_items if x is not item]
        if n == 0:  # link table is FROM's: the first neighbour takes its place
            if len(keep) != 2:
                return None
            first, second = sorted(keep, key=lambda x: x.first)
            head = gold[toks[first.table_at].start:toks[first.on[0] - 2].end]  # type: ignore[index]
            edits = [(toks[item.first].start, toks[first.end - 1].end, head)]
            target = second
        else:
            target = max(keep, key=lambda x: x.first) if len(keep) == 2 else keep[0]
            edits = [(toks[item.first].start, toks[item.end - 1].end + (1 if item.end < len(toks) else 0), "")]
        cond = f"{ra}.{ca} = {rb}.{cb}"
        edits.append((toks[target.on[0]].start, toks[target.on[1] - 1].end, cond))  # type: ignore[index]
        # any other use of link.col moves to the side it equals
        for i in range(len(toks) - 2):
            t = toks[i]
            if (t.isname and t.text.lower() == link and toks[i + 1].kind == TT.DOT
                    and not any(e[0] <= t.start < e[1] for e in edits)):
                col = toks[i + 2].text.lower()
                if col not in ties:
                    return None
                r, c = ties[col]
                edits.append((t.start, toks[i + 2].end, f"{r}.{c}"))
        sql = re.sub(r"[ \t]{2,}", " ", _edit(gold, edits))
        if re.search(rf"\b{re.escape(link)}\b", sql, re.I) and item.name == link:
            return None
        return _reply(rng, _fence(sql)), f"link table {item.name} skipped", sql
    return None


def _alias_map(toks: list[Tok], cl: dict[str, tuple[int, int]]) -> dict[str, str]:
    items = _from_items(toks, cl) if "from" in cl else None
    return {x.ref: x.name for x in items} if items else {}


def _label(schema: Any, table: str) -> str | None:
    t = schema.table(table) if hasattr(schema, "table") else None
    if t is None:
        return None
    names = [c.name for c in t.columns]
    for want in ("name", "title"):
        for c in names:
            if c.lower() == want:
                return c
    for c in names:
        if c.lower().endswith("_name") and not c.lower().startswith(("city", "state", "country", "street")):
            return c
    return None


def _column_table(schema: Any, amap: dict[str, str], toks: list[Tok]) -> tuple[str, str] | None:
    """(table, column) of a lone column reference "q.col" or "col" (tokens), by the FROM clause's aliases."""
    if len(toks) == 3 and toks[1].kind == TT.DOT and toks[0].isname and toks[2].isname:
        table = amap.get(toks[0].text.lower())
        return (table, toks[2].text) if table else None
    if len(toks) == 1 and toks[0].isname:
        owners = [t for t in amap.values() if schema.table(t) is not None and schema.table(t).column(toks[0].text)]
        return (owners[0], toks[0].text) if len(set(owners)) == 1 else None
    return None


def k_avg_excluding_zero(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    """AVG(x) of a whole-number column written AVG(NULLIF(x, 0)): rows with 0 dropped from the mean."""
    toks = _tokens(gold, d)
    cl = _clauses(toks)
    if cl is None:
        return None
    amap = _alias_map(toks, cl)
    for i in range(len(toks) - 2):
        if toks[i].up == "AVG" and toks[i + 1].kind == TT.L_PAREN and toks[i + 2].kind != TT.DISTINCT:
            j = _match_paren(toks, i + 1)
            ref = _column_table(schema, amap, toks[i + 2:j])
            if ref is None:
                continue
            col = schema.table(ref[0]).column(ref[1])
            if col is None or "int" not in str(col.type).lower():
                continue
            inner = _text(gold, toks, i + 2, j)
            sql = _edit(gold, [(toks[i + 2].start, toks[j - 1].end, f"NULLIF({inner}, 0)")])
            return _reply(rng, _fence(sql)), "zeros left out of AVG", sql
    return None


def k_self_join_anchor_excluded(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    """A self-join "others that share X with A" leaves A itself out (other.key <> anchor.key added)."""
    toks = _tokens(gold, d)
    cl = _clauses(toks)
    if cl is None or "from" not in cl or "where" not in cl:
        return None
    items = _from_items(toks, cl)
    if not items:
        return None
    by_name: dict[str, list[_JoinItem]] = {}
    for x in items:
        by_name.setdefault(x.name, []).append(x)
    pairs = [v for v in by_name.values() if len(v) == 2 and v[0].ref != v[1].ref]
    if not pairs:
        return None
    a1, a2 = pairs[0]
    wa, wb = cl["where"]
    where_refs = {toks[k].text.lower() for k in range(wa + 1, wb - 1)
                  if toks[k].isname and toks[k + 1].kind == TT.DOT}
    sa, sb = cl["select"]
    sel_refs = {toks[k].text.lower() for k in range(sa + 1, sb - 1)
                if toks[k].isname and toks[k + 1].kind == TT.DOT}
    if a1.ref in where_refs and a2.ref in sel_refs:
        anchor, other = a1, a2
    elif a2.ref in where_refs and a1.ref in sel_refs:
        anchor, other = a2, a1
    else:
        return None
    key = None
    for x in items:
        if x.on is None:
            continue
        eq = _equality(toks, *x.on)
        if eq is None:
            continue
        for r, c in eq:
            if r in (anchor.ref, other.ref):
                key = c
    if key is None:
        return None
    has_or = any(t.kind == TT.OR and t.depth == 0 for t in toks[wa + 1:wb])
    cond = f"{other.ref}.{key} <> {anchor.ref}.{key}"
    edits = [(toks[wb - 1].end, toks[wb - 1].end, (") AND " if has_or else " AND ") + cond)]
    if has_or:
        edits.append((toks[wa + 1].start, toks[wa + 1].start, "("))
    sql = _edit(gold, edits)
    return _reply(rng, _fence(sql)), "the anchor of the self-join left out", sql


def k_in_subquery_projects_other_key(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    """x IN (SELECT t.a FROM t ...): the subquery returns t's other key column t.b instead."""
    toks = _tokens(gold, d)
    for i in range(len(toks) - 3):
        if not (toks[i].kind == TT.IN and toks[i + 1].kind == TT.L_PAREN and toks[i + 2].kind == TT.SELECT):
            continue
        j = _match_paren(toks, i + 1)
        depth = toks[i + 2].depth
        frm = next((k for k in range(i + 3, j) if toks[k].kind == TT.FROM and toks[k].depth == depth), None)
        if frm is None or frm + 1 >= j or not toks[frm + 1].isname:
            continue
        table = schema.table(toks[frm + 1].text) if hasattr(schema, "table") else None
        item = toks[i + 3:frm]
        if table is None or not item or not item[-1].isname or any(
                not (t.isname or t.kind == TT.DOT) for t in item):
            continue
        col = item[-1]
        others = [c.name for c in table.columns if c.name.lower() != col.text.lower() and _is_keyish(c.name)]
        if not others:
            continue
        sql = _edit(gold, [(col.start, col.end, others[0])])
        return _reply(rng, _fence(sql)), f"IN-subquery returns {others[0]} instead of {col.text}", sql
    return None


def k_superlative_scoped_per_group(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    """x = (SELECT MAX(x) FROM t): the subquery correlated on the output column, so the best of each group
    qualifies, not only the overall best."""
    toks = _tokens(gold, d)
    cl = _clauses(toks)
    if cl is None or "from" not in cl:
        return None
    items = _from_items(toks, cl)
    if not items or len(items) != 1:
        return None
    base = items[0]
    sa, sb = cl["select"]
    first = _split_commas(toks, sa + 1, sb)[0]
    ftoks = [t for t in toks[first[0]:first[1]] if t.kind != TT.DISTINCT]
    group_col = ftoks[-1].text if ftoks and ftoks[-1].isname else None
    if group_col is None:
        return None
    for i in range(len(toks) - 5):
        if not (toks[i].kind == TT.L_PAREN and toks[i + 1].kind == TT.SELECT and toks[i + 2].up in ("MAX", "MIN")
                and toks[i + 3].kind == TT.L_PAREN):
            continue
        j = _match_paren(toks, i)
        k = _match_paren(toks, i + 3)
        if not (k + 2 < j and toks[k + 1].kind == TT.FROM and toks[k + 2].isname):
            continue
        if toks[k + 2].text.lower() != base.name or k + 3 != j:
            continue
        measure = _text(gold, toks, i + 4, k).split(".")[-1]
        if measure.lower() == group_col.lower():
            continue
        new = (f"SELECT {toks[i + 2].text}(t2.{measure}) FROM {toks[k + 2].text} AS t2 "
               f"WHERE t2.{group_col} = {base.ref}.{group_col}")
        sql = _edit(gold, [(toks[i + 1].start, toks[j - 1].end, new)])
        return _reply(rng, _fence(sql)), f"the extreme taken per {group_col}", sql
    return None


def k_fk_null_as_not_in(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    """t.fk IS NULL ("has no ...") written fk NOT IN (SELECT fk FROM parent): a NULL fk is not NOT IN anything."""
    toks = _tokens(gold, d)
    cl = _clauses(toks)
    if cl is None or "from" not in cl:
        return None
    items = _from_items(toks, cl)
    if not items:
        return None
    base = items[0]
    names = {x.name for x in items}
    tables = list(getattr(schema, "tables", ()))
    for i in range(1, len(toks) - 1):
        if not (toks[i].kind == TT.IS and toks[i + 1].kind == TT.NULL) or not toks[i - 1].isname:
            continue
        col = toks[i - 1].text
        qual = toks[i - 3].text.lower() if i >= 3 and toks[i - 2].kind == TT.DOT else base.ref
        if qual != base.ref or not _is_keyish(col):
            continue
        parents = [t for t in tables if t.name.lower() != base.name and t.name.lower() not in names
                   and t.column(col) is not None and (t.name.lower().startswith(col.lower()[:1])
                                                      or t.columns[0].name.lower() == col.lower())]
        parents = [t for t in parents if len(t.columns) > 2]
        if not parents:
            continue
        left = _operand_before(toks, i)
        if left is None or (left > 0 and toks[left - 1].kind == TT.NOT):
            continue
        lhs = gold[toks[left].start:toks[i - 1].end]
        new = f"{lhs} NOT IN (SELECT {col} FROM {parents[0].name})"
        sql = _edit(gold, [(toks[left].start, toks[i + 1].end, new)])
        return _reply(rng, _fence(sql)), f"{col} IS NULL as NOT IN {parents[0].name}", sql
    return None


def k_topn_window_partitioned_by_key(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    """Top n via RANK() in a derived table, the window PARTITIONed BY the listed column: n per value, not n."""
    toks = _tokens(gold, d)
    cl = _clauses(toks)
    if cl is None or "with" in cl or not {"order_by", "limit"} <= set(cl) or {"offset", "fetch"} & set(cl):
        return None
    la, lb = cl["limit"]
    oa, ob = cl["order_by"]
    if lb - la != 2 or toks[la + 1].kind != TT.NUMBER or ob != la:
        return None
    n = toks[la + 1].text
    sa, sb = cl["select"]
    if toks[sa + 1].kind == TT.DISTINCT:
        return None
    outs: list[str] = []
    exprs: dict[str, str] = {}
    firsts: list[str] = []
    for x, y in _split_commas(toks, sa + 1, sb):
        if y - x >= 3 and toks[y - 2].kind == TT.ALIAS and toks[y - 1].isname:
            name = toks[y - 1].text
            exprs[name.lower()] = _text(gold, toks, x, y - 2)
            firsts.append(exprs[name.lower()])
        elif toks[y - 1].isname and all((t.isname or t.kind == TT.DOT) for t in toks[x:y]):
            name = toks[y - 1].text
            firsts.append(_text(gold, toks, x, y))
        else:
            return None
        outs.append(name)
    if len({o.lower() for o in outs}) != len(outs):
        return None
    order_parts = []
    for x, y in _split_commas(toks, oa + 1, ob):
        head = toks[x]
        if head.isname and head.text.lower() in exprs and (x + 1 == y or toks[x + 1].kind != TT.DOT):
            order_parts.append(exprs[head.text.lower()] + gold[head.end:toks[y - 1].end])
        elif head.kind == TT.NUMBER:
            return None
        else:
            order_parts.append(_text(gold, toks, x, y))
    rank = rng.choice(("RANK", "ROW_NUMBER", "DENSE_RANK"))
    window = f"{rank}() OVER (PARTITION BY {firsts[0]} ORDER BY {', '.join(order_parts)}) AS rnk"
    inner = gold[toks[sa].start:toks[sb - 1].end] + f", {window} " + gold[toks[cl['from'][0]].start:toks[oa].start]
    sql = f"SELECT {', '.join(outs)} FROM ({inner.rstrip()}) AS ranked WHERE rnk <= {n}"
    return _reply(rng, _fence(sql)), f"top {n} per {firsts[0]} by a partitioned window", sql


def k_in_list_as_and_chain(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    """x IN ('a', 'b') ("both a and b") written x = 'a' AND x = 'b': one row's column holds one value."""
    toks = _tokens(gold, d)
    for i in range(1, len(toks) - 1):
        if toks[i].kind != TT.IN or toks[i + 1].kind != TT.L_PAREN or toks[i - 1].kind == TT.NOT:
            continue
        j = _match_paren(toks, i + 1)
        vals = _split_commas(toks, i + 2, j, toks[i + 2].depth if i + 2 < j else 0)
        if len(vals) < 2 or any(y - x != 1 or toks[x].kind not in (TT.STRING, TT.NUMBER) for x, y in vals):
            continue
        left = _operand_before(toks, i)
        if left is None:
            continue
        lhs = gold[toks[left].start:toks[i - 1].end]
        chain = " AND ".join(f"{lhs} = {gold[toks[x].start:toks[x].end]}" for x, _ in vals)
        sql = _edit(gold, [(toks[left].start, toks[j].end, f"({chain})")])
        return _reply(rng, _fence(sql)), "IN list read as AND of equalities", sql
    return None


def k_count_distinct_column_pair(gold: str, schema: Any, rng: random.Random, d: str) -> Result | None:
    """MySQL's COUNT(DISTINCT a, b) (two columns) where one was meant: neither PostgreSQL nor SQLite has it."""
    toks = _tokens(gold, d)
    cl = _clauses(toks)
    if cl is None:
        return None
    amap = _alias_map(toks, cl)
    keys = [k for k in _group_keys(gold, toks, cl) if _is_column_ref(k)]
    for i in range(len(toks) - 4):
        if not (toks[i].up == "COUNT" and toks[i + 1].kind == TT.L_PAREN and toks[i + 2].kind == TT.DISTINCT):
            continue
        j = _match_paren(toks, i + 1)
        inner = toks[i + 3:j]
        ref = _column_table(schema, amap, inner) if amap else None
        second = None
        if ref is not None:
            label = _label(schema, ref[0])
            if label and label.lower() != ref[1].lower():
                second = (inner[0].text + "." + label) if len(inner) == 3 else label
        if second is None and keys and _norm(keys[0]) != _norm(_text(gold, toks, i + 3, j)):
            second = keys[0]
        if second is None:
            continue
        sql = _edit(gold, [(toks[j - 1].end, toks[j - 1].end, f", {second}")])
        return _reply(rng, _fence(sql)), "COUNT(DISTINCT a, b)", sql
    return None


KINDS: dict[str, Kind] = {
    "clean": k_clean,
    "java_text_block": k_java_text_block,
    "cpp_raw_string_literal": k_cpp_raw_string_literal,
    "elixir_ecto_query": k_elixir_ecto_query,
    "dart_sqflite_raw_query": k_dart_sqflite_raw_query,
    "swift_grdb_fetch": k_swift_grdb_fetch,
    "julia_dbinterface": k_julia_dbinterface,
    "clojure_next_jdbc": k_clojure_next_jdbc,
    "ipynb_cell_json": k_ipynb_cell_json,
    "stray_fence_opener": k_stray_fence_opener,
    "clause_dict_json": k_clause_dict_json,
    "hallucinated_prior_turn": k_hallucinated_prior_turn,
    "pseudocode_plan_first": k_pseudocode_plan_first,
    "sqlx_config_block": k_sqlx_config_block,
    "topn_window_in_where": k_topn_window_in_where,
    "tsql_exec_dynamic": k_tsql_exec_dynamic,
    "sqlplus_format_commands": k_sqlplus_format_commands,
    "charindex_for_like": k_charindex_for_like,
    "bridge_table_named_by_ends": k_bridge_table_named_by_ends,
    "pragma_preamble": k_pragma_preamble,
    "count_distinct_column_pair": k_count_distinct_column_pair,
    "count_distinct_of_group_key": k_count_distinct_of_group_key,
    "conditional_count_sums_measure": k_conditional_count_sums_measure,
    "bridge_table_bypassed": k_bridge_table_bypassed,
    "self_join_anchor_excluded": k_self_join_anchor_excluded,
    "in_subquery_projects_other_key": k_in_subquery_projects_other_key,
    "superlative_scoped_per_group": k_superlative_scoped_per_group,
    "fk_null_as_not_in": k_fk_null_as_not_in,
    "topn_window_partitioned_by_key": k_topn_window_partitioned_by_key,
    "in_list_as_and_chain": k_in_list_as_and_chain,
    "avg_excluding_zero": k_avg_excluding_zero,
}

DAMAGE_KINDS: tuple[str, ...] = tuple(KINDS)


def damage(gold_sql: str, schema: Any, kind: str, seed: int) -> Damaged | None:
    """The whole reply for ``gold_sql`` damaged in ``kind``, or None where the kind does not apply."""
    try:
        rng = random.Random(f"fresh23|{kind}|{seed}|{gold_sql}")
        gold = gold_sql.strip()
        while gold.endswith(";"):
            gold = gold[:-1].rstrip()
        fn = KINDS.get(kind)
        if fn is None or not gold:
            return None
        out = fn(gold, schema, rng, _dialect(schema))
        if out is None:
            return None
        reply, note, sql = out
        if sql is not None and _norm(sql) == _norm(gold):
            return None
        return Damaged(kind, reply, note)
    except Exception:  # noqa: BLE001 - a kind that cannot be made for this query does not apply
        return None
