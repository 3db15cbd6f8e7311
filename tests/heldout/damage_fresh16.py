"""Held-out damage generator fresh16: 30 new kinds of damaged replies from small coder models (7B-8B).

Written from the outside: the author read the harness (``bench/recovery.py``), ``core/schema.py`` and the defog data,
never Cairn's extraction, check or repair code, nor the other generators. Every kind edits the gold query's TEXT at
positions found with sqlglot's tokenizer (no kind re-renders SQL from a tree: ``TREE_KINDS`` is empty), or wraps the
gold in a reply layout. Family A: the reply as written fails, or its SQL is hard to find. Family B: the SQL runs and
answers a different question.

========================== ====== ===========================================================================
kind                       family what the reply looks like
========================== ====== ===========================================================================
clean                      -      the gold query in an ordinary reply: a sentence, one ```sql fence, a remark
sas_proc_sql               A      the query wrapped in a SAS ``proc sql; ... quit;`` step in a ```sas fence
java_string_concat         A      JDBC code: the query split into Java string pieces joined with ``+``
markdown_table_cell        A      no fence: the query flattened into a cell of a markdown summary table
latex_boxed                A      math-tuned style: the query as ``\\boxed{\\text{...}}`` in a LaTeX display
copy_to_csv                A      the query inside psql's ``\\copy (...) TO 'result.csv' CSV HEADER`` export
explain_prefix             A      ``EXPLAIN ANALYZE`` / ``EXPLAIN QUERY PLAN`` left on top of the query "to check it"
prepare_execute            A      ``PREPARE q AS <query>; EXECUTE q;`` (LIMIT sometimes turned into ``$1``)
backslash_continuation     A      every line of the query ends with a shell/Python-style `` \\`` continuation
bold_marks_in_code         A      markdown ``**bold**`` put around the key clause(s) inside the code fence
typographic_operators      A      ``>=``, ``<=``, ``<>``/``!=`` written as the math signs ``≥``, ``≤``, ``≠``
case_ternary               A      ``CASE WHEN c THEN a ELSE b END`` written as the C/JS ternary ``(c ? a : b)``
conjunction_as_comma       A      the ANDs of a WHERE/HAVING written as commas: ``WHERE a = 1, b = 2``
python_literal_bleed       A      Python literals: ``IN ['a', 'b']`` for an IN list, ``IS None`` for ``IS NULL``
in_subquery_star           A      the one-column subquery of ``IN (SELECT col ...)`` selects ``*``
subquery_unparenthesized   A      the parentheses of one subquery or CTE body dropped (``IN SELECT ...``)
invented_flag_column       A      a value filter (``food_type LIKE '%italian%'``) as an invented flag ``is_italian = 1``
django_lookup_suffix       A      Django ORM lookups in SQL: ``rating__gt = 4``, ``city__icontains = 'york'``, ``__in``
orm_desc_call              A      ORM-style sort: ``ORDER BY x DESC`` written ``ORDER BY desc(x)``
orm_path_navigation        A      a join replaced by an ORM/JPQL path: ``publication.journal.name``, JOIN removed
total_row_appended         B      a grand-total row added with ``UNION ALL SELECT 'Total', <aggregates>``
case_branches_swapped      B      THEN and ELSE values of one CASE swapped: the complement is counted
count_case_else_zero       B      ``COUNT(CASE WHEN c THEN 1 END)`` given ``ELSE 0``: COUNT now counts every row
sum_ratio_as_avg_ratio     B      a ratio of totals ``SUM(a)/SUM(b)`` written as the average of row ratios
ratio_as_share             B      "ratio of X to Y" read as the share of X: the denominator becomes ``COUNT(*)``
case_filter_to_where       B      the condition of a conditional aggregate moved into WHERE for the whole query
filter_in_left_join_on     B      a WHERE filter on a joined table moved into a LEFT JOIN's ON: it filters nothing
in_as_equals_subquery      B      ``IN (SELECT ...)`` written ``= (SELECT ...)`` (SQLite keeps the first row only)
in_list_as_string          B      ``IN ('a', 'b')`` written ``IN ('a, b')``: one string, matches neither value
access_wildcards           B      LIKE patterns with MS Access / glob wildcards: ``'*italian*'`` for ``'%italian%'``
negation_lost              B      the NOT of ``NOT IN`` / ``NOT LIKE`` / ``NOT EXISTS`` / ``NOT (...)`` dropped
========================== ====== ===========================================================================

``damage(gold_sql, schema, kind, seed)`` returns the whole reply (``Damaged``) or None where the kind does not apply
(or the edit would leave the query unchanged). Deterministic per (kind, seed, gold); never raises.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

import sqlglot

__all__ = ["DAMAGE_KINDS", "TREE_KINDS", "Damaged", "damage"]

DAMAGE_KINDS: tuple[str, ...] = (
    "clean",
    # family A
    "sas_proc_sql", "java_string_concat", "markdown_table_cell", "latex_boxed", "copy_to_csv", "explain_prefix",
    "prepare_execute", "backslash_continuation", "bold_marks_in_code", "typographic_operators", "case_ternary",
    "conjunction_as_comma", "python_literal_bleed", "in_subquery_star", "subquery_unparenthesized",
    "invented_flag_column", "django_lookup_suffix", "orm_desc_call", "orm_path_navigation",
    # family B
    "total_row_appended", "case_branches_swapped", "count_case_else_zero", "sum_ratio_as_avg_ratio",
    "ratio_as_share", "case_filter_to_where", "filter_in_left_join_on", "in_as_equals_subquery",
    "in_list_as_string", "access_wildcards", "negation_lost",
)  # fmt: skip
TREE_KINDS: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Damaged:
    kind: str
    reply: str
    note: str


# ----------------------------------------------------------------------------------------------------------------
# Tokens
# ----------------------------------------------------------------------------------------------------------------

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*\Z")
_KEYWORDS = frozenset({
    "SELECT", "FROM", "WHERE", "GROUP_BY", "HAVING", "ORDER_BY", "LIMIT", "OFFSET", "JOIN", "LEFT", "RIGHT", "INNER",
    "OUTER", "FULL", "CROSS", "NATURAL", "ON", "USING", "AND", "OR", "NOT", "IS", "NULL", "IN", "LIKE", "ILIKE",
    "BETWEEN", "EXISTS", "CASE", "WHEN", "THEN", "ELSE", "END", "DISTINCT", "ALIAS", "DESC", "ASC", "UNION",
    "EXCEPT", "INTERSECT", "WITH", "OVER", "PARTITION_BY", "ALL", "ANY", "SOME", "INTERVAL", "TRUE", "FALSE",
    "WINDOW", "QUALIFY", "FETCH", "SEMICOLON", "RLIKE", "GLOB", "SIMILAR_TO", "FILTER", "LATERAL",
})  # fmt: skip
_JOIN_MODS = frozenset({"LEFT", "RIGHT", "INNER", "OUTER", "FULL", "CROSS", "NATURAL"})
_CLAUSE_STARTS = frozenset({"FROM", "WHERE", "GROUP_BY", "HAVING", "ORDER_BY", "LIMIT", "OFFSET", "UNION", "EXCEPT",
                            "INTERSECT", "WINDOW", "QUALIFY", "FETCH"})  # fmt: skip
_AFTER_WHERE = frozenset({"GROUP_BY", "HAVING", "ORDER_BY", "LIMIT", "OFFSET", "UNION", "EXCEPT", "INTERSECT",
                          "WINDOW", "QUALIFY", "FETCH", "SEMICOLON"})  # fmt: skip
_OPERAND_END = frozenset({"NUMBER", "STRING", "VAR", "IDENTIFIER", "R_PAREN", "CURRENT_DATE", "CURRENT_TIMESTAMP",
                          "CURRENT_TIME", "NULL", "END"})  # fmt: skip


class Tok:
    __slots__ = ("kind", "text", "s", "e", "i", "depth", "scope")

    def __init__(self, kind: str, text: str, s: int, e: int, i: int) -> None:
        self.kind, self.text, self.s, self.e, self.i = kind, text, s, e, i
        self.depth = 0
        self.scope = -1

    @property
    def up(self) -> str:
        return self.text.upper()

    def __repr__(self) -> str:  # pragma: no cover - debugging
        return f"Tok({self.kind}, {self.text!r}, d={self.depth}, sc={self.scope})"


class Query:
    """The tokens of one SQL text with their paren depth, matching parens and the subquery (scope) holding them."""

    def __init__(self, sql: str, dialect: str) -> None:
        self.sql = sql
        raw = sqlglot.tokenize(sql, read=dialect)
        self.t = [Tok(x.token_type.name, x.text, x.start, x.end + 1, i) for i, x in enumerate(raw)]
        self.match: dict[int, int] = {}
        self.sub: set[int] = set()  # L_PAREN indices that open a subquery
        stack: list[int] = []
        for k, tok in enumerate(self.t):
            tok.depth = len(stack)
            scopes = [p for p in stack if p in self.sub]
            tok.scope = scopes[-1] if scopes else -1
            if tok.kind == "L_PAREN":
                stack.append(k)
                if k + 1 < len(self.t) and self.t[k + 1].kind in ("SELECT", "WITH"):
                    self.sub.add(k)
            elif tok.kind == "R_PAREN" and stack:
                o = stack.pop()
                self.match[o], self.match[k] = k, o
                tok.depth = len(stack)
                scopes = [p for p in stack if p in self.sub]
                tok.scope = scopes[-1] if scopes else -1
        if stack:
            raise ValueError("unbalanced parentheses")
        self.cases = self._cases()

    def __len__(self) -> int:
        return len(self.t)

    def scope_depth(self, scope: int) -> int:
        return 0 if scope < 0 else self.t[scope].depth + 1

    def is_name(self, k: int) -> bool:
        tok = self.t[k]
        return tok.kind == "IDENTIFIER" or (bool(_WORD.match(tok.text)) and tok.kind not in _KEYWORDS)

    def text(self, a: int, b: int) -> str:
        """Source text of tokens a..b-1."""
        if b <= a:
            return ""
        return self.sql[self.t[a].s:self.t[b - 1].e]

    # ---- CASE expressions ----
    def _cases(self) -> dict[int, dict[str, Any]]:
        out: dict[int, dict[str, Any]] = {}
        for k, tok in enumerate(self.t):
            if tok.kind != "CASE":
                continue
            level, whens, thens, els, end = 0, [], [], None, None
            for j in range(k + 1, len(self.t)):
                x = self.t[j]
                if x.depth != tok.depth:
                    continue
                if x.kind == "CASE":
                    level += 1
                elif x.kind == "END":
                    if level == 0:
                        end = j
                        break
                    level -= 1
                elif level == 0 and x.kind == "WHEN":
                    whens.append(j)
                elif level == 0 and x.kind == "THEN":
                    thens.append(j)
                elif level == 0 and x.kind == "ELSE":
                    els = j
            if end is not None and whens and len(whens) == len(thens):
                out[k] = {"start": k, "end": end, "whens": whens, "thens": thens, "else": els,
                          "searched": whens[0] == k + 1}
        return out

    # ---- operands ----
    def right_operand(self, k: int) -> tuple[int, int]:
        """Token span [a, b) of the operand starting at token k."""
        t = self.t
        if t[k].kind == "L_PAREN":
            return k, self.match[k] + 1
        if t[k].kind == "CASE" and k in self.cases:
            return k, self.cases[k]["end"] + 1
        if k + 1 < len(t) and t[k + 1].kind == "L_PAREN" and (self.is_name(k) or t[k].kind in ("CAST",)):
            return k, self.match[k + 1] + 1
        if t[k].kind == "INTERVAL" and k + 1 < len(t):
            return k, k + 2
        j = k + 1
        while j + 1 < len(t) and t[j].kind == "DOT" and (self.is_name(j + 1) or t[j + 1].kind == "STAR"):
            j += 2
        return k, j

    def left_operand(self, k: int) -> tuple[int, int]:
        """Token span [a, b) of the operand ending at token k."""
        t = self.t
        if t[k].kind == "R_PAREN":
            o = self.match[k]
            if o > 0 and (self.is_name(o - 1) or t[o - 1].kind in ("CAST",)):
                return o - 1, k + 1
            return o, k + 1
        if t[k].kind == "END":
            for start, case in self.cases.items():
                if case["end"] == k:
                    return start, k + 1
        j = k
        while j - 2 >= 0 and t[j - 1].kind == "DOT" and self.is_name(j - 2):
            j -= 2
        return j, k + 1

    # ---- clauses ----
    def clause_end(self, k: int, stops: frozenset[str]) -> int:
        """Index of the first token after clause keyword k that ends it (same depth), or a closing paren."""
        d = self.t[k].depth
        for j in range(k + 1, len(self.t)):
            x = self.t[j]
            if x.depth < d:
                return j
            if x.depth == d and x.kind in stops:
                return j
        return len(self.t)

    def join_start(self, j: int) -> int:
        k = j
        while k - 1 >= 0 and self.t[k - 1].kind in _JOIN_MODS:
            k -= 1
        return k

    def conjuncts(self, a: int, b: int) -> tuple[list[tuple[int, int]], list[int], bool]:
        """Split tokens [a, b) at their top-level ANDs (not BETWEEN's): spans, the AND indices, whether an OR is
        there at that level."""
        if a >= b:
            return [], [], False
        d = self.t[a].depth
        spans, ands, has_or, pending, level, start = [], [], False, False, 0, a
        for j in range(a, b):
            x = self.t[j]
            if x.depth != d:
                continue
            if x.kind == "CASE":
                level += 1
            elif x.kind == "END" and level:
                level -= 1
            elif level:
                continue
            elif x.kind == "BETWEEN":
                pending = True
            elif x.kind == "AND":
                if pending:
                    pending = False
                    continue
                spans.append((start, j))
                ands.append(j)
                start = j + 1
            elif x.kind == "OR":
                has_or = True
        spans.append((start, b))
        return spans, ands, has_or


def _edit(sql: str, edits: list[tuple[int, int, str]]) -> str:
    """Apply (start, end, text) character edits; overlapping edits are refused."""
    out, last = sql, None
    for s, e, new in sorted(edits, key=lambda x: (x[0], x[1]), reverse=True):
        if last is not None and e > last:
            raise ValueError("overlapping edits")
        out = out[:s] + new + out[e:]
        last = s
    return out


def _norm(sql: str) -> str:
    return " ".join(sql.replace(";", " ").split()).lower()


# ----------------------------------------------------------------------------------------------------------------
# Layout: the gold query on several lines (whitespace only), and the ordinary reply around it
# ----------------------------------------------------------------------------------------------------------------

def _formatted(sql: str, dialect: str, rng: random.Random) -> str:
    """The query with a line break before each top-level clause (FROM, JOINs, WHERE, ...): whitespace only."""
    sql = sql.strip().rstrip(";").strip()
    q = Query(sql, dialect)
    indent = "  " if rng.random() < 0.4 else ""
    edits = []
    for k, tok in enumerate(q.t):
        if k == 0 or tok.depth != 0:
            continue
        brk = tok.kind in _CLAUSE_STARTS or (tok.kind == "SELECT" and q.t[k - 1].kind in ("R_PAREN", "ALL"))
        join_like = tok.kind == "JOIN" or (tok.kind in _JOIN_MODS and k + 1 < len(q.t)
                                           and q.t[k + 1].kind in (*_JOIN_MODS, "JOIN"))
        if join_like and q.join_start(k) != k:
            join_like = False
        if tok.kind in ("LIMIT", "OFFSET") and rng.random() < 0.5:
            brk = False
        if brk or join_like:
            prev = q.t[k - 1]
            gap = sql[prev.e:tok.s]
            if gap.strip() == "":
                edits.append((prev.e, tok.s, "\n" + (indent if join_like else "")))
    return _edit(sql, edits)


_INTROS = (
    "Here's the query:",
    "Sure! This query should answer your question:",
    "You can get this with the following SQL:",
    "Here is the SQL for that:",
    "The following query returns what you asked for:",
    "Try this query:",
    "To answer this, you can run:",
)
_OUTROS = (
    "",
    "Let me know if you want me to adjust the columns or the sort order.",
    "It only uses the tables and columns from the schema you gave.",
    "This should run directly against your database.",
    "Feel free to tweak the filters if needed.",
    "The result has one row per group, as requested.",
)


def _ordinary(rng: random.Random, sql: str, lang: str = "sql") -> str:
    intro, outro = rng.choice(_INTROS), rng.choice(_OUTROS)
    body = sql.rstrip().rstrip(";") + (";" if rng.random() < 0.6 else "")
    reply = f"{intro}\n\n```{lang}\n{body}\n```"
    return reply + (f"\n\n{outro}" if outro else "")


def _one_line(sql: str) -> str:
    return " ".join(sql.split())


# ----------------------------------------------------------------------------------------------------------------
# Family A: layouts and wrappers
# ----------------------------------------------------------------------------------------------------------------

def _sas_proc_sql(sql: str, q: Query, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    lines = sql.split("\n")
    body = "\n".join("    " + ln for ln in lines)
    title = rng.choice(("", '    title "Query result";\n'))
    code = f"proc sql{rng.choice(('', ' number'))};\n{title}{body};\nquit;"
    intro = rng.choice(("You can run this in SAS with PROC SQL:", "Here is the PROC SQL step:", "Using PROC SQL:"))
    outro = rng.choice(("The result will appear in the Results Viewer.", "Run the step and check the output.", ""))
    reply = f"{intro}\n\n```sas\n{code}\n```\n\n{outro}"
    return reply.rstrip(), "query wrapped in a SAS proc sql; ... quit; step"


def _java_string_concat(sql: str, q: Query, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    lines = [ln.strip() for ln in sql.split("\n") if ln.strip()]
    esc = [ln.replace("\\", "\\\\").replace('"', '\\"') for ln in lines]
    pad = " " * 13
    pieces = [f'"{ln} "' for ln in esc[:-1]] + [f'"{esc[-1]}"']
    joined = (" +\n" + pad).join(pieces)
    code = (f"String sql = {joined};\n\n"
            "try (Statement stmt = conn.createStatement();\n"
            "     ResultSet rs = stmt.executeQuery(sql)) {\n"
            "    while (rs.next()) {\n"
            "        System.out.println(rs.getString(1));\n"
            "    }\n"
            "}")
    intro = rng.choice(("Here's how you can run it from Java with JDBC:", "In Java (JDBC) this looks like:",
                        "You can execute the query like this:"))
    return f"{intro}\n\n```java\n{code}\n```", "query as Java string pieces concatenated with +"


def _markdown_table_cell(sql: str, q: Query, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    flat = _one_line(sql).replace("|", "\\|")
    note = rng.choice(("Joins and filters as described", "Final query", "Answers the question directly",
                       "Returns the requested columns"))
    if rng.random() < 0.5:
        table = f"| Step | SQL | Notes |\n|------|-----|-------|\n| 1 | `{flat}` | {note} |"
    else:
        table = f"| Question | Query |\n|---|---|\n| Your question | `{flat}` |"
    intro = rng.choice(("Here's a summary of the solution:", "Summary:", "Below is the query in a table for clarity:"))
    return f"{intro}\n\n{table}", "query flattened into a markdown table cell, no fence"


def _latex_boxed(sql: str, q: Query, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    flat = _one_line(sql)
    if rng.random() < 0.6:
        inner = flat.replace("\\", "\\textbackslash ").replace("_", "\\_").replace("%", "\\%")
        inner = inner.replace("{", "\\{").replace("}", "\\}")
        inner = f"\\text{{{inner}}}"
    else:
        inner = flat
    if rng.random() < 0.5:
        box = f"\\[\n\\boxed{{{inner}}}\n\\]"
    else:
        box = f"$\\boxed{{{inner}}}$"
    lead = rng.choice(("To solve this, we need to select the right rows from the tables and aggregate them.",
                       "Let's think step by step about which tables are involved.",
                       "We combine the relevant tables and apply the conditions from the question."))
    return f"{lead}\n\nThe final answer is:\n\n{box}", "query as a LaTeX \\boxed{} answer, no fence"


def _copy_to_csv(sql: str, q: Query, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    # psql's client-side \\copy only: a server-side COPY ... TO STDOUT would need the COPY protocol
    target = rng.choice(("'result.csv'", "'answer.csv'", "'/tmp/result.csv'"))
    opts = rng.choice(("WITH CSV HEADER", "WITH (FORMAT csv, HEADER)", "CSV HEADER"))
    code = f"\\copy ({_one_line(sql)}) TO {target} {opts}"
    intro = rng.choice(("Run this in psql to save the answer as a CSV file:",
                        "This exports the result as CSV so you can open it in a spreadsheet:",
                        "To get the rows into a file you can share:"))
    return f"{intro}\n\n```sql\n{code}\n```", "query wrapped in psql's \\copy (...) TO file for a CSV export"


def _explain_prefix(sql: str, q: Query, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    if getattr(schema, "dialect", "postgres") == "sqlite":
        head = "EXPLAIN QUERY PLAN"
    else:
        head = rng.choice(("EXPLAIN ANALYZE", "EXPLAIN (ANALYZE, BUFFERS)", "EXPLAIN ANALYZE VERBOSE"))
    intro = rng.choice(("Here's the query; I added EXPLAIN so you can also check it uses the indexes:",
                        "This query answers it (with the plan, to verify performance):",
                        "Query with execution plan:"))
    return (f"{intro}\n\n```sql\n{head}\n{sql};\n```\n\nRemove the first line to get only the rows.",
            f"{head} left on top of the query")


def _prepare_execute(sql: str, q: Query, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    name = rng.choice(("q", "answer_query", "report", "stmt1"))
    limit = [k for k, tok in enumerate(q.t) if tok.kind == "LIMIT" and tok.depth == 0
             and k + 1 < len(q.t) and q.t[k + 1].kind == "NUMBER"]
    body, args, sig = sql, "", ""
    if limit and rng.random() < 0.6:
        num = q.t[limit[-1] + 1]
        body = _edit(sql, [(num.s, num.e, "$1")])
        sig, args = "(int)", f"({num.text})"
    code = f"PREPARE {name}{sig} AS\n{body};\n\nEXECUTE {name}{args};"
    intro = rng.choice(("You can prepare it once and execute it as often as needed:",
                        "As a prepared statement:", "Here's a reusable version:"))
    return f"{intro}\n\n```sql\n{code}\n```", "PREPARE ... AS <query>; EXECUTE ...;"


def _backslash_continuation(sql: str, q: Query, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    lines = sql.split("\n")
    if len(lines) < 2:
        return None
    body = " \\\n".join(ln.rstrip() for ln in lines)
    return _ordinary(rng, body), "every line but the last ends with a backslash continuation"


def _bold_marks_in_code(sql: str, q: Query, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    lines = (sql.rstrip().rstrip(";") + ";").split("\n")
    keys = [i for i, ln in enumerate(lines) if re.match(r"\s*(WHERE|GROUP BY|ORDER BY|HAVING|LEFT JOIN|JOIN)\b", ln,
                                                          re.I)]
    if not keys:
        keys = [0]
    picked = sorted(rng.sample(keys, min(len(keys), rng.choice((1, 2)))))
    for i in picked:
        ln = lines[i]
        stripped = ln.lstrip()
        lines[i] = ln[:len(ln) - len(stripped)] + f"**{stripped}**"
    intro = rng.choice(("Here's the query (the important part is in bold):", "Here's the query:",
                        "I've highlighted the key clause:"))
    body = "\n".join(lines)
    return f"{intro}\n\n```sql\n{body}\n```", "markdown **bold** marks inside the code fence"


# ----------------------------------------------------------------------------------------------------------------
# Family A: edits that break the query
# ----------------------------------------------------------------------------------------------------------------

def _typographic_operators(sql: str, q: Query, schema: Any, rng: random.Random) -> list[tuple[int, int, str]] | None:
    signs = {"GTE": "≥", "LTE": "≤", "NEQ": "≠"}
    return [(t.s, t.e, signs[t.kind]) for t in q.t if t.kind in signs] or None


def _case_ternary(sql: str, q: Query, schema: Any, rng: random.Random) -> list[tuple[int, int, str]] | None:
    edits, taken = [], []
    for k, case in sorted(q.cases.items()):
        if not case["searched"] or any(a <= k <= b for a, b in taken):
            continue
        parts = []
        bounds = [*case["whens"], *( [case["else"]] if case["else"] is not None else []), case["end"]]
        for w, th in zip(case["whens"], case["thens"]):
            nxt = min(b for b in bounds if b > th)
            parts.append((q.text(w + 1, th), q.text(th + 1, nxt)))
        default = q.text(case["else"] + 1, case["end"]) if case["else"] is not None else "NULL"
        expr = default
        for cond, val in reversed(parts):
            expr = f"{cond} ? {val} : {expr}"
        edits.append((q.t[k].s, q.t[case["end"]].e, f"({expr})"))
        taken.append((k, case["end"]))
    return edits or None


def _conjunction_as_comma(sql: str, q: Query, schema: Any, rng: random.Random) -> list[tuple[int, int, str]] | None:
    options = []
    for k, tok in enumerate(q.t):
        if tok.kind not in ("WHERE", "HAVING"):
            continue
        end = q.clause_end(k, _AFTER_WHERE)
        _, ands, has_or = q.conjuncts(k + 1, end)
        if ands and not has_or:
            options.append(ands)
    if not options:
        return None
    ands = options[0] if rng.random() < 0.7 else rng.choice(options)
    return [(q.t[a - 1].e, q.t[a].e, ",") for a in ands]


def _python_literal_bleed(sql: str, q: Query, schema: Any, rng: random.Random) -> list[tuple[int, int, str]] | None:
    edits = []
    t = q.t
    for k, tok in enumerate(t):
        if tok.kind == "IN" and k + 1 < len(t) and t[k + 1].kind == "L_PAREN" and k + 1 not in q.sub:
            o, c = k + 1, q.match[k + 1]
            inner = t[o + 1:c]
            if inner and all(x.kind in ("STRING", "NUMBER", "COMMA") for x in inner):
                edits += [(t[o].s, t[o].e, "["), (t[c].s, t[c].e, "]")]
        elif tok.kind == "NULL" and k > 0 and (t[k - 1].kind == "IS" or (t[k - 1].kind == "NOT" and k > 1
                                                                         and t[k - 2].kind == "IS")):
            edits.append((tok.s, tok.e, "None"))
    return edits or None


def _in_subquery_star(sql: str, q: Query, schema: Any, rng: random.Random) -> list[tuple[int, int, str]] | None:
    t = q.t
    for k, tok in enumerate(t):
        if tok.kind != "IN" or k + 2 >= len(t) or t[k + 1].kind != "L_PAREN" or k + 1 not in q.sub:
            continue
        o = k + 1
        if t[o + 1].kind != "SELECT":
            continue
        start = o + 2
        if t[start].kind == "DISTINCT":
            start += 1
        frm = next((j for j in range(start, q.match[o]) if t[j].kind == "FROM" and t[j].depth == t[o].depth + 1), None)
        if frm is None or frm == start or (frm == start + 1 and t[start].kind == "STAR"):
            continue
        # the subquery must give more than one column with *: a join, or a table of several columns
        seg = t[frm + 1:q.match[o]]
        wide = any(x.kind == "JOIN" for x in seg) or any(x.kind == "COMMA" and x.depth == t[o].depth + 1 for x in seg)
        if not wide and frm + 1 < len(t):
            tab = schema.table(t[frm + 1].text) if schema is not None else None
            wide = tab is None or len(tab.columns) > 1
        if not wide:
            continue
        return [(t[start].s, t[frm - 1].e, "*")]
    return None


def _subquery_unparenthesized(sql: str, q: Query, schema: Any, rng: random.Random
                              ) -> list[tuple[int, int, str]] | None:
    subs = sorted(q.sub)
    if not subs:
        return None
    o = rng.choice(subs)
    c = q.match[o]
    t = q.t
    return [(t[o].s, t[o + 1].s, ""), (t[c - 1].e, t[c].e, "")]


_NO_FLAG = re.compile(r"name|title|city|street|address|text|email|phone|code|_id$|^id$|first|last|descr|comment|"
                      r"airport|country|state|region|zip|url", re.I)


def _invented_flag_column(sql: str, q: Query, schema: Any, rng: random.Random) -> list[tuple[int, int, str]] | None:
    t = q.t
    known = {c.name.lower() for tab in (schema.tables if schema is not None else ()) for c in tab.columns}
    for k, tok in enumerate(t):
        if tok.kind not in ("LIKE", "ILIKE", "EQ") or k == 0:
            continue
        la, lb = q.left_operand(k - 1)
        ra, rb = q.right_operand(k + 1)
        if la > 0 and t[la - 1].kind == "NOT":
            continue
        cols = [j for j in range(la, lb) if q.is_name(j) and not (j + 1 < lb and t[j + 1].kind == "L_PAREN")
                and not (j + 1 < lb and t[j + 1].kind == "DOT")]
        strings = [t[j] for j in range(ra, rb) if t[j].kind == "STRING"]
        if len(cols) != 1 or len(strings) != 1 or any(t[j].kind == "STRING" for j in range(la, lb)):
            continue
        if any(t[j].kind in ("SELECT", "CASE") for j in range(ra, rb)):
            continue
        col = t[cols[0]]
        value = strings[0].text.strip("%").strip()
        if _NO_FLAG.search(col.text) or "%" in value or "_" in value:
            continue
        words = re.findall(r"[A-Za-z]+", value)
        if not words or len(words) > 2 or "".join(words).lower() in ("yes", "no", "y", "n", "true", "false") \
                or len("".join(words)) < 3 or value.isupper() or not re.fullmatch(r"[A-Za-z ]+", value):
            continue
        flag = "is_" + "_".join(w.lower() for w in words)
        if flag in known:
            continue
        qual = q.text(cols[0] - 2, cols[0] + 1)[:-len(col.text)] if cols[0] >= 2 and t[cols[0] - 1].kind == "DOT" \
            else ""
        truth = rng.choice(("= 1", "= TRUE", "= 1"))
        return [(t[la].s, t[rb - 1].e, f"{qual}{flag} {truth}")]
    return None


_LOOKUPS = {"GT": "gt", "GTE": "gte", "LT": "lt", "LTE": "lte"}


def _col_ref(q: Query, a: int, b: int) -> bool:
    """Tokens [a, b) are a plain column reference: name(.name)*."""
    return b > a and all((q.is_name(j) if (j - a) % 2 == 0 else q.t[j].kind == "DOT") for j in range(a, b)) \
        and (b - a) % 2 == 1


def _django_lookup_suffix(sql: str, q: Query, schema: Any, rng: random.Random) -> list[tuple[int, int, str]] | None:
    t, edits, used = q.t, [], set()
    for k, tok in enumerate(t):
        if k == 0 or k + 1 >= len(t) or _clause_of(q, k) != "WHERE":
            continue
        kind = tok.kind
        if kind not in (*_LOOKUPS, "LIKE", "ILIKE", "IN", "BETWEEN", "IS"):
            continue
        la, lb = q.left_operand(k - 1)
        lower = False
        if t[la].up == "LOWER" and lb - la >= 4 and t[la + 1].kind == "L_PAREN" and _col_ref(q, la + 2, lb - 1):
            col_a, col_b, lower = la + 2, lb - 1, True
        elif _col_ref(q, la, lb):
            col_a, col_b = la, lb
        else:
            continue
        if la > 0 and t[la - 1].kind == "NOT" or any(j in used for j in range(la, lb)):
            continue
        col = q.text(col_a, col_b)
        if kind in _LOOKUPS:
            ra, rb = q.right_operand(k + 1)
            if any(t[j].kind in ("SELECT",) for j in range(ra, rb)):
                continue
            new = f"{col}__{_LOOKUPS[kind]} = {q.text(ra, rb)}"
        elif kind in ("LIKE", "ILIKE"):
            ra, rb = q.right_operand(k + 1)
            strings = [t[j] for j in range(ra, rb) if t[j].kind == "STRING"]
            if len(strings) != 1:
                continue
            pat = strings[0].text
            inner = pat.strip("%")
            if not inner or "%" in inner or "_" in inner:
                continue
            ci = "i" if (kind == "ILIKE" or lower or t[ra].up == "LOWER") else ""
            if pat.startswith("%") and pat.endswith("%"):
                look = f"{ci}contains"
            elif pat.endswith("%"):
                look = f"{ci}startswith"
            elif pat.startswith("%"):
                look = f"{ci}endswith"
            else:
                look = f"{ci}exact" if ci else "exact"
            new = f"{col}__{look} = '" + inner.replace("'", "''") + "'"
        elif kind == "IN":
            if t[k + 1].kind != "L_PAREN" or k + 1 in q.sub:
                continue
            ra, rb = k + 1, q.match[k + 1] + 1
            new = f"{col}__in = {q.text(ra, rb)}"
        elif kind == "BETWEEN":
            and_ = next((j for j in range(k + 1, len(t)) if t[j].depth == tok.depth and t[j].kind == "AND"), None)
            if and_ is None:
                continue
            ra, rb = q.right_operand(and_ + 1)
            new = f"{col}__range = ({q.text(k + 1, and_)}, {q.text(ra, rb)})"
        else:  # IS [NOT] NULL
            if t[k + 1].kind == "NULL":
                ra, rb, flag = k + 1, k + 2, "TRUE"
            elif t[k + 1].kind == "NOT" and k + 2 < len(t) and t[k + 2].kind == "NULL":
                ra, rb, flag = k + 1, k + 3, "FALSE"
            else:
                continue
            new = f"{col}__isnull = {flag}"
        edits.append((t[la].s, t[rb - 1].e, new))
        used.update(range(la, rb))
    return edits or None


def _orm_desc_call(sql: str, q: Query, schema: Any, rng: random.Random) -> list[tuple[int, int, str]] | None:
    edits, t = [], q.t
    for k, tok in enumerate(t):
        if tok.kind != "ORDER_BY":
            continue
        if tok.depth != q.scope_depth(tok.scope):
            continue  # a window's ORDER BY
        end = q.clause_end(k, frozenset({"LIMIT", "OFFSET", "FETCH", "SEMICOLON", "UNION"}))
        items, start = [], k + 1
        for j in range(k + 1, end):
            if t[j].depth == tok.depth and t[j].kind == "COMMA":
                items.append((start, j))
                start = j + 1
        items.append((start, end))
        for a, b in items:
            dirs = [j for j in range(a, b) if t[j].kind in ("DESC", "ASC") and t[j].depth == tok.depth]
            if not dirs or dirs[0] == a:
                continue
            d = dirs[0]
            expr = q.text(a, d)
            edits.append((t[a].s, t[d].e, f"{t[d].text.lower()}({expr})"))
    return edits or None


def _orm_path_navigation(sql: str, q: Query, schema: Any, rng: random.Random) -> list[tuple[int, int, str]] | None:
    t = q.t
    stops = frozenset({"JOIN", *_JOIN_MODS, *_AFTER_WHERE, "WHERE"})
    candidates = []
    for k, tok in enumerate(t):
        if tok.kind != "JOIN" or tok.scope != -1 or tok.depth != 0:
            continue
        start = q.join_start(k)
        if any(t[j].kind not in ("INNER", "LEFT", "OUTER") for j in range(start, k)):
            continue
        # JOIN [schema.]table [AS] [alias] ON a.x = b.y
        j = k + 1
        if not q.is_name(j):
            continue
        while j + 2 < len(t) and t[j + 1].kind == "DOT" and q.is_name(j + 2):
            j += 2
        table = t[j].text
        ref = table
        j += 1
        if j < len(t) and t[j].kind == "ALIAS":
            j += 1
        if j < len(t) and q.is_name(j) and t[j].kind != "ON":
            ref = t[j].text
            j += 1
        if j >= len(t) or t[j].kind != "ON":
            continue
        end = q.clause_end(j, stops)
        cond = t[j + 1:end]
        if len(cond) != 7:
            continue
        kinds = [x.kind for x in cond]
        if kinds[1] != "DOT" or kinds[3] != "EQ" or kinds[5] != "DOT":
            continue
        left, right = cond[0].text, cond[4].text
        if ref.lower() not in (left.lower(), right.lower()) or left.lower() == right.lower():
            continue
        other = right if left.lower() == ref.lower() else left
        # refs of the joined table elsewhere: ref.col
        uses = [i for i in range(len(t) - 2) if (i < start or i >= end) and t[i].text.lower() == ref.lower()
                and t[i + 1].kind == "DOT" and q.is_name(i + 2)]
        if not uses:
            continue
        in_select = any(t[i].s < (t[next((x for x in range(len(t)) if t[x].kind == "FROM" and t[x].depth == 0),
                                         len(t) - 1)].s) for i in uses)
        candidates.append((in_select, start, end, ref, other, table, uses))
    if not candidates:
        return None
    best = [c for c in candidates if c[0]] or candidates
    _, start, end, ref, other, table, uses = best[-1]
    edits = [(t[start - 1].e, t[end - 1].e, "")]
    for i in uses:
        edits.append((t[i].s, t[i].e, f"{other}.{table}"))
    return edits


# ----------------------------------------------------------------------------------------------------------------
# Family B: edits that run and answer another question
# ----------------------------------------------------------------------------------------------------------------

_AGGS = ("SUM", "COUNT", "AVG", "MIN", "MAX")


def _column_type(schema: Any, name: str) -> str | None:
    for tab in (schema.tables if schema is not None else ()):
        for col in tab.columns:
            if col.name.lower() == name.lower():
                return (col.type or "").lower()
    return None


def _total_row_appended(sql: str, q: Query, schema: Any, rng: random.Random) -> list[tuple[int, int, str]] | None:
    t = q.t
    top = [x for x in t if x.depth == 0]
    if not top or top[0].kind != "SELECT" or sum(x.kind == "SELECT" for x in top) != 1:
        return None
    if any(x.kind in ("LIMIT", "HAVING", "UNION", "EXCEPT", "INTERSECT", "OFFSET", "FETCH", "WINDOW") for x in top):
        return None
    frm = next((x.i for x in top if x.kind == "FROM"), None)
    grp = next((x.i for x in top if x.kind == "GROUP_BY"), None)
    if frm is None or grp is None:
        return None
    order = next((x.i for x in top if x.kind == "ORDER_BY"), None)
    start = 1
    if t[start].kind == "DISTINCT":
        return None
    items, a = [], start
    for j in range(start, frm):
        if t[j].depth == 0 and t[j].kind == "COMMA":
            items.append((a, j))
            a = j + 1
    items.append((a, frm))
    out, keys, aggs = [], 0, 0
    for a, b in items:
        e = b
        if e - 2 >= a and t[e - 2].kind == "ALIAS":
            e -= 2
        elif e - 1 > a and q.is_name(e - 1) and t[e - 2].kind not in ("DOT",) and (
                t[e - 2].kind in ("R_PAREN",) or q.is_name(e - 2)):
            e -= 1  # a bare alias
        if any(t[j].up in _AGGS and j + 1 < e and t[j + 1].kind == "L_PAREN" for j in range(a, e)):
            out.append(q.text(a, e))
            aggs += 1
        elif any(t[j].kind in ("L_PAREN", "CASE") for j in range(a, e)):
            return None  # an expression of the group key: leave such queries alone
        else:
            kind = _column_type(schema, t[e - 1].text) or ""
            text_like = any(w in kind for w in ("char", "text", "string", "clob")) or not kind
            out.append("'Total'" if keys == 0 and text_like and not q.text(a, e).strip().isdigit() else "NULL")
            keys += 1
    if not keys or not aggs:
        return None
    tail_end = order if order is not None else len(t)
    body = q.text(frm, grp)
    total = f"\nUNION ALL\nSELECT {', '.join(out)}\n{body}"
    edits = []
    if order is not None:
        ob = t[order + 1:]
        simple = all(x.kind in ("COMMA", "NUMBER", "DESC", "ASC") or q.is_name(x.i) for x in ob)
        order_text = q.text(order, len(t))
        last_group = t[order - 1]
        edits.append((last_group.e, t[-1].e, total + (f"\n{order_text}" if simple else "")))
    else:
        edits.append((t[tail_end - 1].e, t[tail_end - 1].e, total))
    return edits


def _clause_of(q: Query, k: int) -> str | None:
    """The clause keyword (SELECT, WHERE, ORDER_BY, ...) that token k belongs to, looking outward."""
    cur = q.t[k].depth
    for j in range(k - 1, -1, -1):
        x = q.t[j]
        if x.depth < cur:
            cur = x.depth
        if x.depth == cur and x.kind in (*_CLAUSE_STARTS, "SELECT", "ON", "PARTITION_BY", "ORDER_BY"):
            return x.kind
    return None


def _case_branches_swapped(sql: str, q: Query, schema: Any, rng: random.Random) -> list[tuple[int, int, str]] | None:
    options = []
    for k, case in sorted(q.cases.items()):
        if len(case["whens"]) != 1 or case["else"] is None or _clause_of(q, k) == "ORDER_BY":
            continue
        th, el, end = case["thens"][0], case["else"], case["end"]
        a, b = q.text(th + 1, el), q.text(el + 1, end)
        if a.strip().lower() == b.strip().lower():
            continue
        options.append([(q.t[th + 1].s, q.t[el - 1].e, b), (q.t[el + 1].s, q.t[end - 1].e, a)])
    return rng.choice(options) if options else None


def _agg_before(q: Query, k: int) -> str | None:
    """The aggregate whose argument starts at token k (``COUNT(CASE``, ``COUNT(DISTINCT CASE``)."""
    t = q.t
    j = k - 1
    if j >= 0 and t[j].kind == "DISTINCT":
        j -= 1
    if j >= 1 and t[j].kind == "L_PAREN" and t[j - 1].up in ("COUNT", "SUM") and q.match[j] == q.cases[k]["end"] + 1:
        return t[j - 1].up
    return None


def _count_case_else_zero(sql: str, q: Query, schema: Any, rng: random.Random) -> list[tuple[int, int, str]] | None:
    edits = []
    for k, case in sorted(q.cases.items()):
        if case["else"] is None and _agg_before(q, k) == "COUNT":
            end = q.t[case["end"]]
            edits.append((end.s, end.s, "ELSE 0 "))
    return edits or None


def _ratio_parts(q: Query) -> list[dict[str, Any]]:
    """Divisions whose both sides hold exactly one aggregate: spans of each side and of its aggregate."""
    t, out = q.t, []
    for k, tok in enumerate(t):
        if tok.kind != "SLASH" or k == 0 or k + 1 >= len(t):
            continue
        la, lb = q.left_operand(k - 1)
        # `SUM(x) * 1.0 / ...`: the left operand is the whole product
        while la >= 2 and t[la - 1].kind == "STAR" and t[la - 2].kind in _OPERAND_END:
            la = q.left_operand(la - 2)[0]
        ra, rb = q.right_operand(k + 1)
        sides = []
        for a, b in ((la, lb), (ra, rb)):
            aggs = [(j, q.match[j + 1]) for j in range(a, b) if j + 1 < b and t[j].up in ("SUM", "COUNT", "AVG")
                    and t[j + 1].kind == "L_PAREN"]
            top = [g for g in aggs if not any(h[0] < g[0] <= h[1] for h in aggs if h != g)]
            if any(g[1] + 1 < len(t) and t[g[1] + 1].up == "FILTER" for g in top):
                top = []  # SUM(x) FILTER (WHERE ...): the filter would be lost
            sides.append(top)
        if len(sides[0]) == 1 and len(sides[1]) == 1:
            out.append({"slash": k, "left": (la, lb), "right": (ra, rb), "num": sides[0][0], "den": sides[1][0]})
    return out


def _sum_ratio_as_avg_ratio(sql: str, q: Query, schema: Any, rng: random.Random
                            ) -> list[tuple[int, int, str]] | None:
    t = q.t
    for r in _ratio_parts(q):
        (n0, n1), (d0, d1) = r["num"], r["den"]
        if t[n0].up != "SUM" or t[d0].up != "SUM" or t[n0 + 2].kind == "DISTINCT" or t[d0 + 2].kind == "DISTINCT":
            continue
        a, b = q.text(n0 + 2, n1), q.text(d0 + 2, d1)
        la, _ = r["left"]
        _, rb = r["right"]
        return [(t[la].s, t[rb - 1].e, f"AVG(CAST({a} AS REAL) / NULLIF({b}, 0))")]
    return None


def _ratio_as_share(sql: str, q: Query, schema: Any, rng: random.Random) -> list[tuple[int, int, str]] | None:
    t = q.t
    for r in _ratio_parts(q):
        (n0, n1), (d0, d1) = r["num"], r["den"]
        num_cond = any(t[j].kind == "CASE" for j in range(n0, n1))
        den_cond = any(t[j].kind == "CASE" for j in range(d0, d1))
        if not (num_cond and den_cond):
            continue
        return [(t[d0].s, t[d1].e, "COUNT(*)")]
    return None


def _where_span(q: Query, scope: int) -> tuple[int, int] | None:
    d = q.scope_depth(scope)
    for k, tok in enumerate(q.t):
        if tok.kind == "WHERE" and tok.scope == scope and tok.depth == d:
            return k, q.clause_end(k, _AFTER_WHERE)
    return None


def _scope_end(q: Query, scope: int) -> int:
    return q.match[scope] if scope >= 0 else len(q.t)


def _case_filter_to_where(sql: str, q: Query, schema: Any, rng: random.Random) -> list[tuple[int, int, str]] | None:
    t = q.t
    for k, case in sorted(q.cases.items()):
        agg = _agg_before(q, k)
        if agg is None or not case["searched"] or len(case["whens"]) != 1:
            continue
        scope = t[k].scope
        d = q.scope_depth(scope)
        sc_end = _scope_end(q, scope)
        if any(t[j].kind in ("UNION", "EXCEPT", "INTERSECT") and t[j].scope == scope and t[j].depth == d
               for j in range(len(t))):
            continue
        th, el, end = case["thens"][0], case["else"], case["end"]
        value = q.text(th + 1, el if el is not None else end)
        if el is not None and q.text(el + 1, end).strip() not in ("0", "NULL"):
            continue
        cond = q.text(k + 2, th)
        if value.strip() == "1":  # SUM(CASE WHEN c THEN 1 ELSE 0 END), COUNT(CASE WHEN c THEN 1 END): COUNT(*)
            j = k - 1 if t[k - 1].kind == "L_PAREN" else k - 2
            edits = [(t[j - 1].s, t[q.match[j]].e, "COUNT(*)")]
        else:
            edits = [(t[k].s, t[end].e, value)]
        where = _where_span(q, scope)
        if where is not None:
            w, we = where
            _, _, has_or = q.conjuncts(w + 1, we)
            last = t[we - 1]
            if has_or:
                edits += [(t[w + 1].s, t[w + 1].s, "("), (last.e, last.e, f") AND {cond}")]
            else:
                edits.append((last.e, last.e, f" AND {cond}"))
        else:
            # before GROUP BY / HAVING / ORDER BY / LIMIT of this select, else at its end
            anchor = next((j for j in range(k, sc_end) if t[j].scope == scope and t[j].depth == d
                           and t[j].kind in _AFTER_WHERE), None)
            frm = next((j for j in range(k, sc_end) if t[j].scope == scope and t[j].depth == d
                        and t[j].kind == "FROM"), None)
            if frm is None:
                continue
            sep = "\n" if scope < 0 else " "
            if anchor is None:
                edits.append((t[sc_end - 1].e, t[sc_end - 1].e, f"{sep}WHERE {cond}"))
            else:
                edits.append((t[anchor - 1].e, t[anchor - 1].e, f"{sep}WHERE {cond}"))
        return edits
    return None


def _filter_in_left_join_on(sql: str, q: Query, schema: Any, rng: random.Random
                            ) -> list[tuple[int, int, str]] | None:
    t = q.t
    stops = frozenset({"JOIN", *_JOIN_MODS, *_AFTER_WHERE, "WHERE"})
    for scope in [-1, *sorted(q.sub)]:
        d = q.scope_depth(scope)
        where = _where_span(q, scope)
        if where is None:
            continue
        w, we = where
        spans, ands, has_or = q.conjuncts(w + 1, we)
        if has_or:
            continue
        joins = []
        for k in range(len(t)):
            tok = t[k]
            if tok.kind != "JOIN" or tok.scope != scope or tok.depth != d or k > w:
                continue
            start = q.join_start(k)
            mods = {t[j].kind for j in range(start, k)}
            if mods - {"INNER", "LEFT", "OUTER"}:
                continue
            on = next((j for j in range(k + 1, w) if t[j].depth == d and t[j].kind in ("ON", "USING")), None)
            if on is None or t[on].kind != "ON":
                continue
            j = k + 1
            while j + 2 < on and t[j + 1].kind == "DOT":
                j += 2
            names = {t[j].text.lower()}
            if on - 1 > j:
                names.add(t[on - 1].text.lower())
            joins.append((start, k, on, q.clause_end(on, stops), names))
        info = []
        for (a, b) in spans:
            quals = {t[i].text.lower() for i in range(a, b - 1) if t[i + 1].kind == "DOT" and q.is_name(i)}
            bare = any(q.is_name(i) and not (i + 1 < b and t[i + 1].kind in ("DOT", "L_PAREN"))
                       and not (i > a and t[i - 1].kind == "DOT") for i in range(a, b))
            sub = any(t[i].kind == "SELECT" for i in range(a, b))
            info.append((a, b, quals, bare or sub))
        for start, k, on, on_end, names in joins:
            moved = [x for x in info if x[2] and x[2] <= names and not x[3]]
            if not moved:
                continue
            rest = [x for x in info if x not in moved]
            if any(x[2] & names or x[3] for x in rest):
                continue  # a filter left in WHERE would still drop the unmatched rows
            others = [jn for jn in joins if jn[0] != start]
            if any(t[i].text.lower() in names and i + 1 < len(t) and t[i + 1].kind == "DOT"
                   for jn in others for i in range(jn[2], jn[3]) if jn[0] > start):
                continue  # a later join goes through this table
            cond = " AND ".join(q.text(a, b) for a, b, _, _ in moved)
            edits = [(t[start].s, t[k].e, "LEFT JOIN"), (t[on_end - 1].e, t[on_end - 1].e, f" AND {cond}")]
            if not rest:
                edits.append((t[w - 1].e, t[we - 1].e, ""))
            else:
                edits.append((t[w + 1].s, t[we - 1].e, " AND ".join(q.text(a, b) for a, b, _, _ in rest)))
            return edits
    return None


def _in_as_equals_subquery(sql: str, q: Query, schema: Any, rng: random.Random) -> list[tuple[int, int, str]] | None:
    t = q.t
    for k, tok in enumerate(t):
        if tok.kind == "IN" and k + 1 < len(t) and k + 1 in q.sub:
            if k > 0 and t[k - 1].kind == "NOT":
                return [(t[k - 1].s, tok.e, "<>")]
            return [(tok.s, tok.e, "=")]
    return None


def _in_list_as_string(sql: str, q: Query, schema: Any, rng: random.Random) -> list[tuple[int, int, str]] | None:
    t = q.t
    for k, tok in enumerate(t):
        if tok.kind != "IN" or k + 1 >= len(t) or t[k + 1].kind != "L_PAREN" or k + 1 in q.sub:
            continue
        o, c = k + 1, q.match[k + 1]
        inner = t[o + 1:c]
        values = [x for x in inner if x.kind == "STRING"]
        if len(values) < 2 or any(x.kind not in ("STRING", "COMMA") for x in inner):
            continue
        joined = ", ".join(v.text for v in values).replace("'", "''")
        return [(t[o + 1].s, t[c - 1].e, f"'{joined}'")]
    return None


def _access_wildcards(sql: str, q: Query, schema: Any, rng: random.Random) -> list[tuple[int, int, str]] | None:
    t, edits, seen = q.t, [], set()
    for k, tok in enumerate(t):
        if tok.kind not in ("LIKE", "ILIKE") or k + 1 >= len(t):
            continue
        a, b = q.right_operand(k + 1)
        for j in range(a, b):
            x = t[j]
            if x.kind == "STRING" and "%" in x.text and j not in seen:
                seen.add(j)
                raw = sql[x.s:x.e]
                edits.append((x.s, x.e, raw.replace("%", "*").replace("_", "?")))
    return edits or None


def _negation_lost(sql: str, q: Query, schema: Any, rng: random.Random) -> list[tuple[int, int, str]] | None:
    t = q.t
    options = []
    for k, tok in enumerate(t):
        if tok.kind != "NOT" or k + 1 >= len(t) or (k > 0 and t[k - 1].kind == "IS"):
            continue
        nxt = t[k + 1]
        if nxt.kind in ("IN", "LIKE", "ILIKE", "BETWEEN", "EXISTS"):
            options.append(k)
            continue
        # prefix NOT: the negated expression, up to the next AND/OR/THEN/... at this depth
        d = tok.depth
        j = k + 1
        while j < len(t) and not (t[j].depth < d or (t[j].depth == d and t[j].kind in
                                  ("AND", "OR", "THEN", "ELSE", "END", "WHEN", "COMMA", *_AFTER_WHERE))):
            j += 1
        if any(t[i].kind == "IS" and i + 1 < len(t) and t[i + 1].kind in ("NULL", "NOT") for i in range(k + 1, j)):
            continue  # a NULL test: another generator's kind
        if any(t[i].kind == "NULL" for i in range(k + 1, j)):
            continue
        options.append(k)
    if not options:
        return None
    k = options[0]
    return [(t[k].s, t[k + 1].s, "")]


# ----------------------------------------------------------------------------------------------------------------

_LAYOUTS = {
    "sas_proc_sql": _sas_proc_sql,
    "java_string_concat": _java_string_concat,
    "markdown_table_cell": _markdown_table_cell,
    "latex_boxed": _latex_boxed,
    "copy_to_csv": _copy_to_csv,
    "explain_prefix": _explain_prefix,
    "prepare_execute": _prepare_execute,
    "backslash_continuation": _backslash_continuation,
    "bold_marks_in_code": _bold_marks_in_code,
}
_EDITS = {
    "typographic_operators": (_typographic_operators, "comparison operators written as math signs ≥ ≤ ≠"),
    "case_ternary": (_case_ternary, "CASE expression written as a ternary c ? a : b"),
    "conjunction_as_comma": (_conjunction_as_comma, "ANDs of the filter written as commas"),
    "python_literal_bleed": (_python_literal_bleed, "Python literals: IN [...] / IS None"),
    "in_subquery_star": (_in_subquery_star, "IN subquery selects * instead of its one column"),
    "subquery_unparenthesized": (_subquery_unparenthesized, "parentheses around a subquery/CTE body dropped"),
    "invented_flag_column": (_invented_flag_column, "value filter replaced by an invented is_<value> flag column"),
    "django_lookup_suffix": (_django_lookup_suffix, "filters as Django lookups col__gte = v, col__icontains = 'x'"),
    "orm_desc_call": (_orm_desc_call, "ORDER BY x DESC written as ORDER BY desc(x)"),
    "orm_path_navigation": (_orm_path_navigation, "join replaced by an ORM path a.table.col, JOIN removed"),
    "total_row_appended": (_total_row_appended, "a grand-total row appended with UNION ALL"),
    "case_branches_swapped": (_case_branches_swapped, "THEN and ELSE values of a CASE swapped"),
    "count_case_else_zero": (_count_case_else_zero, "COUNT(CASE ... END) given ELSE 0: counts every row"),
    "sum_ratio_as_avg_ratio": (_sum_ratio_as_avg_ratio, "SUM(a)/SUM(b) -> AVG(a/b)"),
    "ratio_as_share": (_ratio_as_share, "ratio X:Y read as share of X: denominator COUNT(*)"),
    "case_filter_to_where": (_case_filter_to_where, "conditional aggregate's condition moved to WHERE"),
    "filter_in_left_join_on": (_filter_in_left_join_on, "WHERE filter moved into a LEFT JOIN's ON"),
    "in_as_equals_subquery": (_in_as_equals_subquery, "IN (SELECT ...) written = (SELECT ...)"),
    "in_list_as_string": (_in_list_as_string, "IN ('a', 'b') written IN ('a, b')"),
    "access_wildcards": (_access_wildcards, "LIKE wildcards % and _ written * and ?"),
    "negation_lost": (_negation_lost, "NOT dropped"),
}


def _dialect(schema: Any) -> str:
    d = getattr(schema, "dialect", None) or "postgres"
    return d if d in ("postgres", "sqlite", "duckdb", "mysql") else "postgres"


def _damage(gold_sql: str, schema: Any, kind: str, seed: int) -> Damaged | None:
    rng = random.Random(f"fresh16|{kind}|{seed}|{gold_sql}")
    dialect = _dialect(schema)
    sql = _formatted(gold_sql, dialect, rng)
    if kind == "clean":
        return Damaged(kind, _ordinary(rng, sql), "the gold query, fenced")
    q = Query(sql, dialect)
    if kind in _LAYOUTS:
        out = _LAYOUTS[kind](sql, q, schema, rng)
        if out is None:
            return None
        return Damaged(kind, out[0], out[1])
    if kind in _EDITS:
        fn, note = _EDITS[kind]
        edits = fn(sql, q, schema, rng)
        if not edits:
            return None
        damaged = _edit(sql, edits)
        if _norm(damaged) == _norm(gold_sql):
            return None
        return Damaged(kind, _ordinary(rng, damaged), note)
    return None


def damage(gold_sql: str, schema: Any, kind: str, seed: int) -> Damaged | None:
    """The whole reply for ``gold_sql`` damaged in ``kind``, or None where the kind does not apply."""
    try:
        return _damage(gold_sql, schema, kind, seed)
    except Exception:  # noqa: BLE001 - a generator never raises: the kind does not apply
        return None
