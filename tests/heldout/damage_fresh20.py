"""Held-out damage generator ``fresh20``: damaged model replies made from gold queries by text edits.

Written without reading Cairn's extraction, check or repair code. Every kind is a text edit at positions found
with sqlglot's tokenizer (never a re-render of a parse tree). Family A: the reply as written fails, or its SQL
is hard to find. Family B: the SQL runs and answers a different question.

| kind                      | fam | what the reply does                                                                       |
|---------------------------|-----|-------------------------------------------------------------------------------------------|
| clean                     | -   | the gold query, fenced, in an ordinary reply                                              |
| html_details_block        | A   | the SQL sits unfenced inside an HTML ``<details><summary>`` collapsible section           |
| langchain_chain_format    | A   | LangChain SQL-chain transcript: ``SQLQuery: ...`` / ``SQLResult:`` / ``Answer:`` lines     |
| repo_token_header         | A   | coder-model repo tokens leak: ``<|repo_name|>`` / ``<|file_sep|>path.sql`` before the SQL  |
| docstring_header          | A   | a Python-style triple-quoted docstring opens the SQL block                                |
| ascii_box_frame           | A   | the SQL is drawn inside an ASCII ``+---+`` / ``| ... |`` box in a bare fence                |
| go_db_query               | A   | a Go snippet: ``rows, err := db.Query(`...`)`` with error handling, in a ``go`` fence      |
| powershell_invoke_sqlcmd  | A   | a PowerShell ``Invoke-Sqlcmd -Query "..."`` call in a ``powershell`` fence                 |
| curl_http_api             | A   | a ``curl`` POST of the SQL as JSON to an HTTP SQL endpoint, in a ``bash`` fence            |
| mybatis_mapper_xml        | A   | a MyBatis mapper ``<select id=...>`` element, ``<``/``>``/``&`` XML-escaped                |
| cte_body_only             | A   | the query wrapped as ``WITH result AS (...)`` and the final ``SELECT`` never written       |
| case_then_dropped         | A   | one ``CASE WHEN cond THEN v`` loses its ``THEN`` keyword                                  |
| linq_equals_in_on         | A   | C# LINQ join habit: ``JOIN t ON a.k equals t.k`` (the ``=`` of ON written ``equals``)      |
| js_triple_equals          | A   | JavaScript equality: ``=`` written ``===`` and ``<>``/``!=`` written ``!==``               |
| hive_sort_by              | A   | Hive/Spark ``SORT BY`` in place of the outer ``ORDER BY``                                 |
| numeric_literal_suffix    | A   | compared numbers get C/Java literal suffixes: ``4.5f``, ``2021L``                         |
| nullif_arg_dropped        | A   | ``NULLIF(x, 0)`` written with one argument, ``NULLIF(x)``                                 |
| odbc_escape_braces        | A   | ODBC/JDBC escape clauses: ``{fn LCASE(x)}``, ``{fn ROUND(x, 2)}``, ``{fn CURDATE()}``      |
| method_chain_call         | A   | functions as method calls on their argument: ``x.lower()``, ``rating.avg()``               |
| in_list_square_brackets   | A   | an ``IN`` list written as a Python list: ``IN ['a', 'b']``                                |
| like_underscore_wildcard  | B   | ``%`` in LIKE patterns written as ``_`` (one character, not any run)                      |
| instr_find_minus_one      | B   | ``x LIKE '%w%'`` as ``INSTR(x, 'w') <> -1`` (Python ``find() != -1``): true for every row   |
| like_operands_reversed    | B   | ``x LIKE 'pat'`` written ``'pat' LIKE x``: the column becomes the pattern                  |
| count_of_condition        | B   | ``SUM(CASE WHEN c THEN 1 ELSE 0 END)`` / ``COUNT(CASE WHEN c THEN 1 END)`` as ``COUNT(c)``  |
| running_total_for_group   | B   | a per-group COUNT/SUM made a running total: ``SUM(COUNT(*)) OVER (ORDER BY key)``          |
| group_count_as_share      | B   | a per-group COUNT/SUM returned as its share of all groups (``/ SUM(...) OVER ()``)         |
| tiebreak_key_first        | B   | a label added to ORDER BY before the ranking key, so LIMIT keeps the wrong rows           |
| topn_as_dense_rank        | B   | "top N rows" read as "rows holding the top N distinct values": ``key IN (SELECT DISTINCT``)|
| ratio_plus_one_smoothing  | B   | a ratio's ``NULLIF(d, 0)`` denominator "smoothed" as ``(d + 1)`` against division by zero |
| number_formatted_as_text  | B   | AVG/SUM outputs formatted for display: ``printf('%.2f', ...)`` / ``TO_CHAR(..., '0.00')``  |
| rows_as_json_array        | B   | a list of values returned as one JSON array (``json_group_array``/``json_agg``), one row |
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot.tokens import TokenType as T

__all__ = ["DAMAGE_KINDS", "TREE_KINDS", "Damaged", "damage"]


@dataclass(frozen=True)
class Damaged:
    kind: str
    reply: str
    note: str


TREE_KINDS: frozenset[str] = frozenset()

# ----------------------------------------------------------------------------------------------- token helpers

_NAMES = (T.VAR, T.IDENTIFIER)
_JOIN_MODS = (T.LEFT, T.RIGHT, T.INNER, T.OUTER, T.FULL, T.CROSS, T.NATURAL)
_CLAUSE_END = (T.FROM, T.WHERE, T.GROUP_BY, T.HAVING, T.ORDER_BY, T.LIMIT, T.OFFSET, T.FETCH, T.UNION,
               T.INTERSECT, T.EXCEPT, T.QUALIFY, T.WINDOW)
_AGGS = {"COUNT", "SUM", "AVG", "MIN", "MAX"}
_CMP = (T.GT, T.LT, T.GTE, T.LTE, T.EQ, T.NEQ)


class _Q:
    """Tokens of one SQL text with paren depth and matching parens."""

    def __init__(self, sql: str, dialect: str) -> None:
        self.sql = sql
        self.d = dialect
        self.t = sqlglot.tokenize(sql, read=dialect)
        self.depth: list[int] = []
        self.match: dict[int, int] = {}
        stack: list[int] = []
        depth = 0
        for i, tok in enumerate(self.t):
            if tok.token_type == T.L_PAREN:
                self.depth.append(depth)
                stack.append(i)
                depth += 1
            elif tok.token_type == T.R_PAREN:
                depth -= 1
                self.depth.append(depth)
                j = stack.pop()
                self.match[i], self.match[j] = j, i
            else:
                self.depth.append(depth)
        if stack or depth:
            raise ValueError("unbalanced")

    def tt(self, i: int) -> Any:
        return self.t[i].token_type if 0 <= i < len(self.t) else None

    def up(self, i: int) -> str:
        return self.t[i].text.upper() if 0 <= i < len(self.t) else ""

    def raw(self, i: int, j: int) -> str:
        return self.sql[self.t[i].start:self.t[j].end + 1]

    def is_call(self, i: int, names: set[str] | None = None) -> bool:
        """Token i is a function name directly followed by '(' (not a method after a dot)."""
        return (self.tt(i + 1) == T.L_PAREN and (names is None or self.up(i) in names)
                and self.tt(i - 1) != T.DOT and self.t[i].end + 1 == self.t[i + 1].start)

    def name_like(self, i: int) -> bool:
        return self.tt(i) in _NAMES or (0 <= i < len(self.t) and re.fullmatch(r"\w+", self.t[i].text) is not None
                                         and self.tt(i) not in _CLAUSE_END)

    def chain_start(self, k: int) -> int:
        """Start index of the dotted name ending at token k."""
        while self.tt(k - 1) == T.DOT and self.name_like(k - 2):
            k -= 2
        return k

    def chain_end(self, k: int) -> int:
        while self.tt(k + 1) == T.DOT and self.name_like(k + 2):
            k += 2
        return k

    def operand_before(self, i: int) -> int | None:
        """Start index of the operand that ends just before token i (a call, a parenthesis, a name, a literal)."""
        k = i - 1
        if k < 0:
            return None
        if self.tt(k) == T.R_PAREN:
            lp = self.match[k]
            return lp - 1 if lp - 1 >= 0 and self.is_call(lp - 1) else lp
        if self.tt(k) in (T.STRING, T.NUMBER):
            return k
        if self.name_like(k):
            return self.chain_start(k)
        return None

    def operand_after(self, i: int) -> int | None:
        """End index of the operand that starts just after token i."""
        k = i + 1
        if k >= len(self.t):
            return None
        if self.is_call(k):
            return self.match[k + 1]
        if self.tt(k) == T.L_PAREN:
            return self.match[k]
        if self.tt(k) in (T.STRING, T.NUMBER):
            return k
        if self.name_like(k):
            return self.chain_end(k)
        return None

    def top(self, types: tuple[Any, ...], depth: int = 0, lo: int = 0, hi: int | None = None) -> list[int]:
        hi = len(self.t) if hi is None else hi
        return [i for i in range(lo, hi) if self.depth[i] == depth and self.t[i].token_type in types]


def _apply(sql: str, edits: list[tuple[int, int, str]]) -> str:
    out = sql
    last = None
    for start, end, text in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        if last is not None and end > last:
            raise ValueError("overlapping edits")
        out = out[:start] + text + out[end:]
        last = start
    return out


class _Main:
    """The outer query's clauses (depth 0); None-like when it is a set operation or has no SELECT."""

    def __init__(self, q: _Q) -> None:
        self.q = q
        sel = q.top((T.SELECT,))
        if len(sel) != 1 or q.top((T.UNION, T.INTERSECT, T.EXCEPT)):
            raise ValueError("not one plain select")
        self.select = sel[0]
        after = self.select + 1
        self.distinct = q.tt(after) == T.DISTINCT
        if self.distinct:
            after += 1
        self.items_lo = after
        frm = q.top((T.FROM,), lo=after)
        self.frm = frm[0] if frm else None
        self.items_hi = self.frm if self.frm is not None else len(q.t)

        def first(tt: Any) -> int | None:
            found = q.top((tt,), lo=self.select)
            return found[0] if found else None

        self.where = first(T.WHERE)
        self.group = first(T.GROUP_BY)
        self.having = first(T.HAVING)
        self.order = first(T.ORDER_BY)
        self.limit = first(T.LIMIT)
        self.offset = first(T.OFFSET)

    def items(self) -> list[tuple[int, int]]:
        """(first, last) token of each select item."""
        q, out, start = self.q, [], self.items_lo
        for i in range(self.items_lo, self.items_hi):
            if q.depth[i] == 0 and q.tt(i) == T.COMMA:
                out.append((start, i - 1))
                start = i + 1
        out.append((start, self.items_hi - 1))
        return [(a, b) for a, b in out if a <= b]

    def item_expr(self, a: int, b: int) -> tuple[int, int]:
        """The item without its alias."""
        q = self.q
        for i in range(a, b + 1):
            if q.depth[i] == 0 and q.tt(i) == T.ALIAS:
                return a, i - 1
        if b > a and q.name_like(b) and q.tt(b - 1) not in (T.DOT,) and (
                q.tt(b - 1) == T.R_PAREN or q.name_like(b - 1) or q.tt(b - 1) in (T.STRING, T.NUMBER)):
            return a, b - 1  # "expr alias"
        return a, b

    def item_alias(self, a: int, b: int) -> str | None:
        ea, eb = self.item_expr(a, b)
        return self.q.t[b].text if eb < b else None

    def clause_end(self, start: int) -> int:
        """Last token of the clause that starts at token start (depth 0)."""
        q = self.q
        stops = [i for i in range(start + 1, len(q.t)) if q.depth[i] == 0 and q.tt(i) in _CLAUSE_END]
        return (stops[0] if stops else len(q.t)) - 1


def _has_agg(q: _Q, a: int, b: int) -> bool:
    return any(q.is_call(i, _AGGS) for i in range(a, b + 1))


# ----------------------------------------------------------------------------------------------- reply helpers

_INTROS = ("Here is the SQL query:", "You can use the following query:", "Sure! Here's a query that answers this:",
           "The following SQL should give you the answer:", "Here's the query you need:")
_OUTROS = ("", "This query returns the requested rows.", "Let me know if you need any changes.",
           "It reads the relevant tables and applies the conditions from the question.")


def _fenced(sql: str, rng: random.Random, tag: str = "sql") -> str:
    outro = rng.choice(_OUTROS)
    return f"{rng.choice(_INTROS)}\n\n```{tag}\n{sql}\n```" + (f"\n\n{outro}" if outro else "")


_BREAK = (T.FROM, T.WHERE, T.GROUP_BY, T.HAVING, T.ORDER_BY, T.LIMIT, T.JOIN, T.UNION)


def _layout(sql: str, dialect: str) -> str:
    """The gold with a line break before each outer clause and join (whitespace only)."""
    try:
        q = _Q(sql, dialect)
    except Exception:  # noqa: BLE001
        return sql
    edits = []
    for i, tok in enumerate(q.t):
        if i == 0 or q.depth[i] != 0:
            continue
        tt = tok.token_type
        if tt in _JOIN_MODS or tt == T.JOIN:
            if q.tt(i - 1) in _JOIN_MODS:
                continue
            k = i
            while q.tt(k) in _JOIN_MODS:
                k += 1
            if q.tt(k) != T.JOIN:
                continue
        elif tt not in _BREAK:
            continue
        gap = (q.t[i - 1].end + 1, tok.start)
        if sql[gap[0]:gap[1]].strip() == "" and gap[1] > gap[0]:
            edits.append((gap[0], gap[1], "\n"))
    try:
        return _apply(sql, edits)
    except ValueError:
        return sql


def _one_line(sql: str) -> str:
    return re.sub(r"\s*\n\s*", " ", sql).strip()


# ----------------------------------------------------------------------------------------------- family A: layouts


def _html_details_block(sql: str, d: str, schema: Any, rng: random.Random) -> str:
    summary = rng.choice(("SQL query", "Show query", "Click to see the SQL"))
    return (f"{rng.choice(_INTROS)[:-1]} (expand the section below):\n\n<details>\n<summary>{summary}</summary>\n\n"
            f"{_layout(sql, d)}\n\n</details>\n\n{rng.choice(_OUTROS[1:])}")


def _langchain_chain_format(sql: str, d: str, schema: Any, rng: random.Random) -> str:
    answer = rng.choice(("The query above returns the requested rows.", "See the rows returned by the query.",
                         "The result lists the requested values."))
    return f"SQLQuery: {_one_line(sql)}\nSQLResult: \nAnswer: {answer}"


def _repo_token_header(sql: str, d: str, schema: Any, rng: random.Random) -> str:
    repo = rng.choice(("analytics", "reports-sql", "warehouse-queries", "data-team/sql"))
    path = rng.choice(("queries/report.sql", "sql/answer.sql", "reports/query_01.sql", "models/result.sql"))
    return f"<|repo_name|>{repo}\n<|file_sep|>{path}\n{_layout(sql, d)}\n"


def _docstring_header(sql: str, d: str, schema: Any, rng: random.Random) -> str:
    doc = rng.choice(("Answer the question from the tables described in the schema.",
                      "Returns the rows requested by the analyst.", "Query for the requested report."))
    return _fenced(f'"""\n{doc}\n"""\n{_layout(sql, d)}', rng)


def _ascii_box_frame(sql: str, d: str, schema: Any, rng: random.Random) -> str:
    lines = _layout(sql, d).splitlines()
    width = max(len(line) for line in lines) + 2
    bar = "+" + "-" * width + "+"
    body = "\n".join(f"| {line.ljust(width - 2)} |" for line in lines)
    return f"{rng.choice(_INTROS)}\n\n```\n{bar}\n{body}\n{bar}\n```\n\n{rng.choice(_OUTROS[1:])}"


def _go_db_query(sql: str, d: str, schema: Any, rng: random.Random) -> str:
    if "`" in sql:
        return ""
    code = (f"rows, err := db.Query(`\n{_layout(sql, d)}\n`)\nif err != nil {{\n    log.Fatal(err)\n}}\n"
            "defer rows.Close()\n\nfor rows.Next() {\n    // scan each row here\n}")
    return (f"Here is how you can run it from Go with `database/sql`:\n\n```go\n{code}\n```\n\n"
            f"{rng.choice(_OUTROS[1:])}")


def _powershell_invoke_sqlcmd(sql: str, d: str, schema: Any, rng: random.Random) -> str:
    if '"' in sql or "$" in sql:
        return ""
    db = getattr(schema, "database_id", "") or "analytics"
    code = (f'Invoke-Sqlcmd -ServerInstance "localhost" -Database "{db}" -Query "{_one_line(sql)}" |\n'
            "    Format-Table -AutoSize")
    return f"You can run this from PowerShell:\n\n```powershell\n{code}\n```\n\n{rng.choice(_OUTROS[1:])}"


def _curl_http_api(sql: str, d: str, schema: Any, rng: random.Random) -> str:
    body = json.dumps({"query": _one_line(sql)}).replace("'", "'\\''")
    url = rng.choice(("http://localhost:8080/v1/query", "http://localhost:8123/sql", "http://localhost:3000/api/sql"))
    code = f"curl -s -X POST {url} \\\n  -H 'Content-Type: application/json' \\\n  -d '{body}'"
    return f"Send the query to the SQL endpoint like this:\n\n```bash\n{code}\n```\n\n{rng.choice(_OUTROS[1:])}"


def _mybatis_mapper_xml(sql: str, d: str, schema: Any, rng: random.Random) -> str:
    escaped = _layout(sql, d).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    ident = rng.choice(("selectReport", "findRows", "queryResult"))
    body = "\n".join("  " + line for line in escaped.splitlines())
    code = f'<select id="{ident}" resultType="map">\n{body}\n</select>'
    return f"Here is the statement for your MyBatis mapper:\n\n```xml\n{code}\n```\n\n{rng.choice(_OUTROS[1:])}"


# ----------------------------------------------------------------------------------------------- family A: SQL slips


def _cte_body_only(sql: str, d: str, schema: Any, rng: random.Random) -> str | None:
    name = rng.choice(("result", "final", "answer", "query_result"))
    body = "\n".join("    " + line for line in _layout(sql, d).splitlines())
    return f"WITH {name} AS (\n{body}\n)"


def _case_then_dropped(sql: str, d: str, schema: Any, rng: random.Random) -> str | None:
    q = _Q(sql, d)
    thens = [i for i, t in enumerate(q.t) if t.token_type == T.THEN]
    if not thens:
        return None
    i = rng.choice(thens)
    return _apply(sql, [(q.t[i - 1].end + 1, q.t[i].end + 1, "")])


def _linq_equals_in_on(sql: str, d: str, schema: Any, rng: random.Random) -> str | None:
    q = _Q(sql, d)
    edits = []
    for i, tok in enumerate(q.t):
        if tok.token_type != T.ON:
            continue
        for k in range(i + 1, len(q.t)):
            if q.depth[k] < q.depth[i] or (q.depth[k] == q.depth[i] and q.tt(k) in (
                    T.JOIN, *_JOIN_MODS, *_CLAUSE_END, T.COMMA, T.ON)):
                break
            if q.depth[k] == q.depth[i] and q.tt(k) == T.EQ:
                edits.append((q.t[k].start, q.t[k].end + 1, "equals"))
    return _apply(sql, edits) if edits else None


def _js_triple_equals(sql: str, d: str, schema: Any, rng: random.Random) -> str | None:
    q = _Q(sql, d)
    edits = [(t.start, t.end + 1, "===" if t.token_type == T.EQ else "!==")
             for t in q.t if t.token_type in (T.EQ, T.NEQ)]
    return _apply(sql, edits) if edits else None


def _hive_sort_by(sql: str, d: str, schema: Any, rng: random.Random) -> str | None:
    q = _Q(sql, d)
    edits = [(q.t[i].start, q.t[i].end + 1, "SORT BY") for i in q.top((T.ORDER_BY,))]
    return _apply(sql, edits) if edits else None


def _numeric_literal_suffix(sql: str, d: str, schema: Any, rng: random.Random) -> str | None:
    q = _Q(sql, d)
    edits = []
    for i, t in enumerate(q.t):
        if t.token_type == T.NUMBER and q.tt(i - 1) in _CMP:
            edits.append((t.end + 1, t.end + 1, "f" if "." in t.text else "L"))
    return _apply(sql, edits) if edits else None


def _nullif_arg_dropped(sql: str, d: str, schema: Any, rng: random.Random) -> str | None:
    q = _Q(sql, d)
    spots = []
    for i in range(len(q.t)):
        if q.up(i) == "NULLIF" and q.tt(i + 1) == T.L_PAREN:
            lp, rp = i + 1, q.match[i + 1]
            commas = [k for k in range(lp + 1, rp) if q.depth[k] == q.depth[lp] + 1 and q.tt(k) == T.COMMA]
            if len(commas) == 1:
                spots.append((q.t[commas[0]].start, q.t[rp].start, ""))
    if not spots:
        return None
    return _apply(sql, [rng.choice(spots)])


_ODBC = {"LOWER": "LCASE", "UPPER": "UCASE", "LENGTH": "LENGTH", "ROUND": "ROUND", "ABS": "ABS",
         "SUBSTR": "SUBSTRING", "SUBSTRING": "SUBSTRING", "CONCAT": "CONCAT", "COALESCE": "IFNULL", "FLOOR": "FLOOR",
         "CEIL": "CEILING", "CEILING": "CEILING", "TRIM": "LTRIM"}


def _odbc_escape_braces(sql: str, d: str, schema: Any, rng: random.Random) -> str | None:
    q = _Q(sql, d)
    edits = []
    for i, t in enumerate(q.t):
        if q.is_call(i, set(_ODBC)):
            rp = q.match[i + 1]
            edits.append((t.start, t.end + 1, "{fn " + _ODBC[q.up(i)]))
            edits.append((q.t[rp].end + 1, q.t[rp].end + 1, "}"))
        elif t.token_type == T.CURRENT_DATE and q.tt(i + 1) != T.L_PAREN:
            edits.append((t.start, t.end + 1, "{fn CURDATE()}"))
    return _apply(sql, edits) if edits else None


_METHODS = {"LOWER", "UPPER", "LENGTH", "TRIM", "ABS", "ROUND", "AVG", "SUM", "MIN", "MAX"}


def _method_chain_call(sql: str, d: str, schema: Any, rng: random.Random) -> str | None:
    out = sql
    for _ in range(30):
        q = _Q(out, d)
        cands = [i for i in range(len(q.t)) if q.is_call(i, _METHODS)]
        inner = []
        for i in cands:
            lp, rp = i + 1, q.match[i + 1]
            if not any(lp < j < rp for j in cands):
                inner.append(i)
        done = False
        for i in inner:
            lp, rp = i + 1, q.match[i + 1]
            if rp == lp + 1 or q.tt(lp + 1) in (T.DISTINCT, T.STAR):
                continue
            commas = [k for k in range(lp + 1, rp) if q.depth[k] == q.depth[lp] + 1 and q.tt(k) == T.COMMA]
            first_hi = (commas[0] if commas else rp) - 1
            arg0 = q.raw(lp + 1, first_hi)
            rest = q.raw(commas[0] + 1, rp - 1).strip() if commas else ""
            simple = all(q.tt(k) in (*_NAMES, T.DOT, T.STRING, T.NUMBER, T.L_PAREN, T.R_PAREN) or q.depth[k] > q.depth[lp] + 1
                         for k in range(lp + 1, first_hi + 1))
            recv = arg0 if simple else f"({arg0})"
            out = _apply(out, [(q.t[i].start, q.t[rp].end + 1, f"{recv}.{q.t[i].text.lower()}({rest})")])
            done = True
            break
        if not done:
            break
    return out if out != sql else None


def _in_list_square_brackets(sql: str, d: str, schema: Any, rng: random.Random) -> str | None:
    q = _Q(sql, d)
    edits = []
    for i, t in enumerate(q.t):
        if t.token_type == T.IN and q.tt(i + 1) == T.L_PAREN and q.tt(i + 2) not in (T.SELECT, T.WITH):
            rp = q.match[i + 1]
            edits.append((q.t[i + 1].start, q.t[i + 1].end + 1, "["))
            edits.append((q.t[rp].start, q.t[rp].end + 1, "]"))
    return _apply(sql, edits) if edits else None


# ----------------------------------------------------------------------------------------------- family B


def _like_sides(q: _Q, i: int) -> tuple[int, int] | None:
    """(start of the left operand, end of the right operand) of the LIKE/ILIKE at token i, or None."""
    if q.tt(i - 1) == T.NOT:
        return None
    lo = q.operand_before(i)
    hi = q.operand_after(i)
    if lo is None or hi is None:
        return None
    return lo, hi


def _pattern_token(q: _Q, i: int) -> int | None:
    """The string literal that is (or is inside the call that is) the pattern after LIKE token i."""
    k = i + 1
    if q.tt(k) == T.STRING:
        return k
    if q.is_call(k) and q.tt(k + 2) == T.STRING and q.match[k + 1] == k + 3:
        return k + 2
    return None


def _like_underscore_wildcard(sql: str, d: str, schema: Any, rng: random.Random) -> str | None:
    q = _Q(sql, d)
    edits = []
    for i, t in enumerate(q.t):
        if t.token_type in (T.LIKE, T.ILIKE):
            k = _pattern_token(q, i)
            if k is not None and "%" in q.t[k].text:
                raw = q.raw(k, k)
                edits.append((q.t[k].start, q.t[k].end + 1, raw.replace("%", "_")))
    return _apply(sql, edits) if edits else None


def _instr_find_minus_one(sql: str, d: str, schema: Any, rng: random.Random) -> str | None:
    q = _Q(sql, d)
    func = "INSTR" if d in ("sqlite", "mysql") else "STRPOS"
    edits = []
    for i, t in enumerate(q.t):
        if t.token_type not in (T.LIKE, T.ILIKE):
            continue
        sides = _like_sides(q, i)
        k = _pattern_token(q, i)
        if sides is None or k is None:
            continue
        text = q.t[k].text
        if not (len(text) > 2 and text.startswith("%") and text.endswith("%")) or re.search(r"[%_]", text[1:-1]):
            continue
        lo, hi = sides
        lhs = q.raw(lo, i - 1)
        word = text[1:-1]
        if t.token_type == T.ILIKE:
            lhs, word = f"LOWER({lhs})", word.lower()
        elif k != i + 1 and q.up(i + 1) == "LOWER":
            word = word.lower()
        word = word.replace("'", "''")
        edits.append((q.t[lo].start, q.t[hi].end + 1, f"{func}({lhs}, '{word}') <> -1"))
    return _apply(sql, edits) if edits else None


def _like_operands_reversed(sql: str, d: str, schema: Any, rng: random.Random) -> str | None:
    q = _Q(sql, d)
    edits = []
    for i, t in enumerate(q.t):
        if t.token_type not in (T.LIKE, T.ILIKE):
            continue
        sides = _like_sides(q, i)
        k = _pattern_token(q, i)
        if sides is None or k is None or not re.search(r"[%_]", q.t[k].text):
            continue  # without a wildcard the reversed LIKE is still an equality
        lo, hi = sides
        edits.append((q.t[lo].start, q.t[hi].end + 1, f"{q.raw(i + 1, hi)} {t.text} {q.raw(lo, i - 1)}"))
    return _apply(sql, edits) if edits else None


def _count_of_condition(sql: str, d: str, schema: Any, rng: random.Random) -> str | None:
    q = _Q(sql, d)
    edits = []
    for i in range(len(q.t)):
        if not (q.is_call(i, {"SUM", "COUNT"}) and q.tt(i + 2) == T.CASE):
            continue
        lp, rp = i + 1, q.match[i + 1]
        c = i + 2
        if q.tt(rp - 1) != T.END:
            continue
        dep = q.depth[c]
        whens = [k for k in range(c + 1, rp - 1) if q.depth[k] == dep and q.tt(k) == T.WHEN]
        thens = [k for k in range(c + 1, rp - 1) if q.depth[k] == dep and q.tt(k) == T.THEN]
        elses = [k for k in range(c + 1, rp - 1) if q.depth[k] == dep and q.tt(k) == T.ELSE]
        if len(whens) != 1 or len(thens) != 1 or whens[0] != c + 1:
            continue
        w, th = whens[0], thens[0]
        then_val = q.raw(th + 1, (elses[0] if elses else rp - 1) - 1).strip()
        else_val = q.raw(elses[0] + 1, rp - 2).strip() if elses else None
        if q.up(i) == "SUM" and not (then_val == "1" and else_val == "0"):
            continue
        if q.up(i) == "COUNT" and else_val not in (None, "NULL", "null"):
            continue
        edits.append((q.t[i].start, q.t[rp].end + 1, f"COUNT({q.raw(w + 1, th - 1)})"))
    return _apply(sql, edits) if edits else None


def _group_agg_item(m: _Main, names: set[str]) -> tuple[int, int] | None:
    """(name token, closing paren) of the first select item that is exactly a COUNT/SUM call (alias allowed)."""
    q = m.q
    for a, b in m.items():
        ea, eb = m.item_expr(a, b)
        if q.is_call(ea, names) and q.match[ea + 1] == eb:
            return ea, eb
    return None


def _group_keys(m: _Main) -> list[str]:
    q = m.q
    end = m.clause_end(m.group)
    keys, start = [], m.group + 1
    for k in range(m.group + 1, end + 2):
        if k == end + 1 or (q.depth[k] == 0 and q.tt(k) == T.COMMA):
            if start <= k - 1:
                keys.append((start, k - 1))
            start = k + 1
    out = []
    items = m.items()
    for a, b in keys:
        if a == b and q.tt(a) == T.NUMBER and q.t[a].text.isdigit():
            n = int(q.t[a].text)
            if not 1 <= n <= len(items):
                return []
            ea, eb = m.item_expr(*items[n - 1])
            out.append(q.raw(ea, eb))
        else:
            out.append(q.raw(a, b))
    return out


def _running_total_for_group(sql: str, d: str, schema: Any, rng: random.Random) -> str | None:
    q = _Q(sql, d)
    m = _Main(q)
    if m.group is None:
        return None
    item = _group_agg_item(m, {"COUNT", "SUM"})
    keys = _group_keys(m)
    if item is None or not keys:
        return None
    ea, eb = item
    agg = q.raw(ea, eb)
    return _apply(sql, [(q.t[ea].start, q.t[eb].end + 1, f"SUM({agg}) OVER (ORDER BY {keys[0]})")])


def _group_count_as_share(sql: str, d: str, schema: Any, rng: random.Random) -> str | None:
    q = _Q(sql, d)
    m = _Main(q)
    if m.group is None:
        return None
    item = _group_agg_item(m, {"COUNT", "SUM"})
    if item is None:
        return None
    ea, eb = item
    agg = q.raw(ea, eb)
    return _apply(sql, [(q.t[ea].start, q.t[eb].end + 1, f"1.0 * {agg} / SUM({agg}) OVER ()")])


def _order_keys(m: _Main) -> list[tuple[int, int]]:
    q = m.q
    end = m.clause_end(m.order)
    keys, start = [], m.order + 1
    for k in range(m.order + 1, end + 2):
        if k == end + 1 or (q.depth[k] == 0 and q.tt(k) == T.COMMA):
            if start <= k - 1:
                keys.append((start, k - 1))
            start = k + 1
    return keys


def _key_expr(q: _Q, a: int, b: int) -> tuple[int, int]:
    """An ORDER BY key without ASC/DESC/NULLS FIRST|LAST."""
    hi = b
    for k in range(a, b + 1):
        if q.depth[k] == q.depth[a] and (q.tt(k) in (T.ASC, T.DESC) or q.up(k) == "NULLS"):
            hi = k - 1
            break
    return a, hi


def _tiebreak_key_first(sql: str, d: str, schema: Any, rng: random.Random) -> str | None:
    q = _Q(sql, d)
    m = _Main(q)
    if m.order is None or m.limit is None:
        return None
    keys = _order_keys(m)
    if not keys:
        return None
    ka, kb = _key_expr(q, *keys[0])
    key = q.raw(ka, kb).lower()
    for a, b in m.items():
        ea, eb = m.item_expr(a, b)
        text = q.raw(ea, eb)
        alias = m.item_alias(a, b)
        if q.tt(ea) == T.STAR or _has_agg(q, ea, eb) or text.lower() == key or (alias or "").lower() == key:
            continue
        if q.tt(eb) == T.STAR or any(q.tt(k) == T.SELECT for k in range(ea, eb + 1)):
            continue
        return _apply(sql, [(q.t[m.order].end + 1, q.t[m.order].end + 1, f" {text},")])
    return None


def _topn_as_dense_rank(sql: str, d: str, schema: Any, rng: random.Random) -> str | None:
    q = _Q(sql, d)
    m = _Main(q)
    if (m.order is None or m.limit is None or m.frm is None or m.group is not None or m.having is not None
            or m.offset is not None or q.tt(m.limit + 1) != T.NUMBER or m.limit + 2 != len(q.t)):
        return None
    if _has_agg(q, m.items_lo, m.items_hi - 1):
        return None
    keys = _order_keys(m)
    if len(keys) != 1:
        return None
    ka, kb = _key_expr(q, *keys[0])
    if not all(q.tt(k) in (*_NAMES, T.DOT) or q.name_like(k) for k in range(ka, kb + 1)):
        return None
    key = q.raw(ka, kb)
    aliases = {(m.item_alias(a, b) or "").lower() for a, b in m.items()}
    if key.lower() in aliases:
        return None
    n = q.t[m.limit + 1].text
    order_text = q.raw(m.order, m.limit - 1)
    from_where = q.raw(m.frm, m.order - 1)
    sub = f"SELECT DISTINCT {key} {from_where} {order_text} LIMIT {n}"
    if m.where is not None:
        cond = q.raw(m.where + 1, m.order - 1)
        new_fw = f"{q.raw(m.frm, m.where - 1)} WHERE ({cond}) AND {key} IN ({sub})"
    else:
        new_fw = f"{from_where} WHERE {key} IN ({sub})"
    return sql[:q.t[m.frm].start] + new_fw + " " + order_text


def _ratio_plus_one_smoothing(sql: str, d: str, schema: Any, rng: random.Random) -> str | None:
    q = _Q(sql, d)
    edits = []
    for i in range(len(q.t)):
        if not q.is_call(i, {"NULLIF"}):
            continue
        lp, rp = i + 1, q.match[i + 1]
        commas = [k for k in range(lp + 1, rp) if q.depth[k] == q.depth[lp] + 1 and q.tt(k) == T.COMMA]
        if len(commas) != 1 or q.raw(commas[0] + 1, rp - 1).strip() not in ("0", "0.0"):
            continue
        if q.tt(i - 1) != T.SLASH:
            continue  # only a denominator
        edits.append((q.t[i].start, q.t[rp].end + 1, f"({q.raw(lp + 1, commas[0] - 1).strip()} + 1)"))
    return _apply(sql, edits) if edits else None


def _number_formatted_as_text(sql: str, d: str, schema: Any, rng: random.Random) -> str | None:
    q = _Q(sql, d)
    m = _Main(q)
    edits = []
    for a, b in m.items():
        ea, eb = m.item_expr(a, b)
        inner = ea
        if q.is_call(ea, {"ROUND"}) and q.match[ea + 1] == eb:
            inner = ea + 2
        if not (q.is_call(inner, {"AVG", "SUM"}) and (inner == ea and q.match[inner + 1] == eb
                                                     or inner != ea and q.match[inner + 1] < eb)):
            continue
        agg = q.raw(inner, q.match[inner + 1])
        if d in ("sqlite", "duckdb"):
            text = f"printf('%.2f', {agg})"
        elif d == "mysql":
            text = f"FORMAT({agg}, 2)"
        else:
            text = f"TO_CHAR({agg}, 'FM999999990.00')"
        edits.append((q.t[ea].start, q.t[eb].end + 1, text))
    return _apply(sql, edits) if edits else None


def _rows_as_json_array(sql: str, d: str, schema: Any, rng: random.Random) -> str | None:
    q = _Q(sql, d)
    m = _Main(q)
    items = m.items()
    if (len(items) != 1 or m.group is not None or m.limit is not None or m.frm is None or m.offset is not None
            or _has_agg(q, m.items_lo, m.items_hi - 1)):
        return None
    ea, eb = m.item_expr(*items[0])
    if q.tt(ea) == T.STAR or q.tt(eb) == T.STAR:
        return None
    expr = q.raw(ea, eb)
    func = {"sqlite": "json_group_array", "mysql": "JSON_ARRAYAGG", "duckdb": "json_group_array"}.get(d, "json_agg")
    arg = f"DISTINCT {expr}" if m.distinct and d != "mysql" else expr
    alias = m.item_alias(*items[0])
    if alias is None:
        base = q.t[eb].text if q.name_like(eb) else "value"
        alias = (re.sub(r"\W", "", base) or "value") + "_list"
    start = q.t[m.select].end + 1
    edits = [(start, q.t[items[0][1]].end + 1, f" {func}({arg}) AS {alias}")]
    if m.order is not None:
        edits.append((q.t[m.order - 1].end + 1, len(sql), ""))
    return _apply(sql, edits)


# ----------------------------------------------------------------------------------------------- registry

_Fn = Callable[[str, str, Any, random.Random], Any]
_KINDS: dict[str, tuple[str, str, _Fn, str]] = {
    # kind: (family, mode, function, note); mode "reply": the function writes the whole reply
    "html_details_block": ("A", "reply", _html_details_block, "SQL unfenced inside <details><summary>"),
    "langchain_chain_format": ("A", "reply", _langchain_chain_format, "LangChain SQLQuery/SQLResult/Answer lines"),
    "repo_token_header": ("A", "reply", _repo_token_header, "<|repo_name|>/<|file_sep|> tokens before the SQL"),
    "docstring_header": ("A", "reply", _docstring_header, "triple-quoted docstring opens the SQL block"),
    "ascii_box_frame": ("A", "reply", _ascii_box_frame, "SQL drawn inside an ASCII box"),
    "go_db_query": ("A", "reply", _go_db_query, "Go db.Query(`...`) snippet"),
    "powershell_invoke_sqlcmd": ("A", "reply", _powershell_invoke_sqlcmd, "PowerShell Invoke-Sqlcmd -Query"),
    "curl_http_api": ("A", "reply", _curl_http_api, "curl POST of the SQL as JSON"),
    "mybatis_mapper_xml": ("A", "reply", _mybatis_mapper_xml, "MyBatis <select> element, XML-escaped"),
    "cte_body_only": ("A", "sql", _cte_body_only, "WITH name AS (...) without the final SELECT"),
    "case_then_dropped": ("A", "sql", _case_then_dropped, "a THEN keyword dropped from CASE"),
    "linq_equals_in_on": ("A", "sql", _linq_equals_in_on, "LINQ join syntax: ON a.k equals b.k"),
    "js_triple_equals": ("A", "sql", _js_triple_equals, "= as ===, <> as !=="),
    "hive_sort_by": ("A", "sql", _hive_sort_by, "ORDER BY written SORT BY"),
    "numeric_literal_suffix": ("A", "sql", _numeric_literal_suffix, "compared numbers with f/L suffixes"),
    "nullif_arg_dropped": ("A", "sql", _nullif_arg_dropped, "NULLIF with its second argument dropped"),
    "odbc_escape_braces": ("A", "sql", _odbc_escape_braces, "ODBC {fn ...} escape clauses"),
    "method_chain_call": ("A", "sql", _method_chain_call, "functions written as method calls"),
    "in_list_square_brackets": ("A", "sql", _in_list_square_brackets, "IN list in square brackets"),
    "like_underscore_wildcard": ("B", "sql", _like_underscore_wildcard, "% wildcards written as _"),
    "instr_find_minus_one": ("B", "sql", _instr_find_minus_one, "LIKE '%w%' as INSTR/STRPOS(...) <> -1"),
    "like_operands_reversed": ("B", "sql", _like_operands_reversed, "pattern LIKE column"),
    "count_of_condition": ("B", "sql", _count_of_condition, "conditional count written COUNT(condition)"),
    "running_total_for_group": ("B", "sql", _running_total_for_group, "per-group count as a running total"),
    "group_count_as_share": ("B", "sql", _group_count_as_share, "per-group count as a share of the total"),
    "tiebreak_key_first": ("B", "sql", _tiebreak_key_first, "label sorted before the ranking key"),
    "topn_as_dense_rank": ("B", "sql", _topn_as_dense_rank, "top N rows as rows with the top N values"),
    "ratio_plus_one_smoothing": ("B", "sql", _ratio_plus_one_smoothing, "NULLIF(d, 0) denominator as (d + 1)"),
    "number_formatted_as_text": ("B", "sql", _number_formatted_as_text, "AVG/SUM output formatted as text"),
    "rows_as_json_array": ("B", "sql", _rows_as_json_array, "rows folded into one JSON array value"),
}

DAMAGE_KINDS: tuple[str, ...] = ("clean", *_KINDS)


def _dialect(schema: Any) -> str:
    d = str(getattr(schema, "dialect", "") or "postgres").lower()
    return "postgres" if d in ("postgresql", "pg") else d


def _norm(sql: str) -> str:
    return re.sub(r"\s+", " ", sql).strip().rstrip(";").strip()


def damage(gold_sql: str, schema: Any, kind: str, seed: int) -> Damaged | None:
    """The whole reply for ``gold_sql`` damaged in ``kind``, or None where the kind does not apply."""
    try:
        rng = random.Random(f"fresh20|{kind}|{seed}|{gold_sql}")
        sql = gold_sql.strip().rstrip(";").strip()
        if not sql:
            return None
        if kind == "clean":
            return Damaged(kind, _fenced(sql, rng), "the gold query, fenced")
        if kind not in _KINDS:
            return None
        family, mode, fn, note = _KINDS[kind]
        d = _dialect(schema)
        out = fn(sql, d, schema, rng)
        if not out:
            return None
        if mode == "reply":
            return Damaged(kind, out, f"{family}: {note}")
        if _norm(out) == _norm(sql):
            return None
        return Damaged(kind, _fenced(out, rng), f"{family}: {note}")
    except Exception:  # noqa: BLE001 - a kind that cannot be applied is skipped
        return None
