"""Held-out damage generator ``fresh27``: damaged model replies made from gold queries by text edits.

Written from the outside (the harness ``bench/recovery.py``, ``core/schema.py``, the defog / Chinook data and public
write-ups of how small local models fail), without reading Cairn's extraction, checking or repair code. Each kind is
a reply layout or a slip seen from small (7B-8B) local coder models. Family A: the reply as written fails to run, or
its SQL is hard to find. Family B: the SQL runs and answers a different question. Replies are wrapped in varied
prose: English, Hindi-English (Hinglish), with typos, explaining or terse.

| kind                               | fam | what the reply does |
|------------------------------------|-----|---------------------|
| clean                              |  -  | the gold query, fenced, in an ordinary reply |
| fence_tag_fused_to_select          |  A  | no newline after the fence's language tag: `` ```sqlSELECT ...`` |
| query_as_line_array                |  A  | the query as a JSON / Python array of its lines, one string per line |
| closing_fence_only                 |  A  | the opening fence is missing; only the closing `` ``` `` follows the SQL |
| mdx_codeblock_component            |  A  | the query inside a Docusaurus MDX ``<CodeBlock>{`...`}</CodeBlock>`` |
| join_on_keyword_as_where           |  A  | each JOIN's ``ON`` written as ``WHERE`` (``JOIN t WHERE a.k = t.k``) |
| alias_inside_aggregate_parens      |  A  | an output alias written inside the aggregate call: ``SUM(x AS total)`` |
| comma_before_sort_direction        |  A  | a comma before a sort direction: ``ORDER BY total, DESC`` |
| compound_keyword_glued             |  A  | two-word keywords glued: ``GROUPBY``, ``ORDERBY``, ``LEFTJOIN`` |
| identifier_broken_by_space         |  A  | a column name split by a stray space at a word piece: ``customer _id`` |
| cast_type_after_comma              |  A  | ``CAST(x, FLOAT)`` (``x::float`` rewritten so too) instead of ``AS`` |
| group_keys_joined_with_and         |  A  | keys joined with AND: ``GROUP BY a AND b`` (SQLite: runs, wrong rows) |
| cte_body_missing_parens            |  A  | a CTE body without its parentheses: ``WITH x AS SELECT ...`` |
| in_list_values_joined_with_or      |  A  | ``IN ('a' OR 'b')`` for ``IN ('a', 'b')`` (SQLite: runs, wrong rows) |
| count_distinct_without_parens      |  A  | ``COUNT DISTINCT(x)`` for ``COUNT(DISTINCT x)`` |
| hinglish_conjunction_in_where      |  A  | a Hinglish ``aur`` / ``ya`` for AND / OR in the WHERE clause |
| output_alias_single_quoted         |  A  | (PostgreSQL) output aliases in single quotes, MySQL style: ``AS 'total'`` |
| date_trunc_bigquery_argument_order |  A  | (PostgreSQL) ``DATE_TRUNC(col, MONTH)``, BigQuery's argument order |
| equality_written_as_is             |  A  | (PostgreSQL) ``status IS 'active'`` / ``IS NOT`` for ``=`` / ``<>`` |
| current_date_called_with_parens    |  A  | (PostgreSQL) ``CURRENT_DATE()`` / ``CURRENT_TIMESTAMP()``, MySQL style |
| join_conditions_collected_at_end   |  A  | (PostgreSQL) all JOINs first, every ON condition ANDed after the last one |
| leading_comma_in_select_list       |  A  | comma-first style gone wrong: a comma before the first column too |
| group_by_ordinals_include_measure  |  A  | ``GROUP BY 1, 2, 3`` over every output column, the aggregate's too |
| ansi_typed_date_literal            |  A  | (SQLite) ANSI typed literals ``DATE '2023-01-01'``: a syntax error there |
| literal_with_leading_space_token   |  B  | a filter literal with the BPE token's leading space: ``= ' Toyota'`` |
| cast_wraps_integer_quotient        |  B  | the float cast put around the quotient: ``CAST(a / b AS FLOAT)`` |
| case_sensitive_substring_match     |  B  | a case-blind match made case-sensitive, the term's case changed: |
|                                    |     | ``ILIKE``/``LOWER(c) LIKE`` -> ``LIKE``; SQLite ``instr(c, 'Term') > 0`` |
| unpadded_date_literal              |  B  | (SQLite) dates / months without zero padding (``'2023-4-1'``): text order |
| ratio_condition_moved_to_where     |  B  | ``SUM(CASE WHEN c THEN 1 ELSE 0 END)`` -> ``COUNT(*)``, c moved to WHERE |
| join_on_extra_shared_column        |  B  | a JOIN also equates a non-key column both tables have: ``AND a.x = b.x`` |
| regex_syntax_in_like_pattern       |  B  | a LIKE pattern written as a regex: ``LIKE '.*Science.*'``, ``'^J.*'`` |

Family B kinds skip gold queries whose rows depend on today's date (``CURRENT_DATE``, ``NOW()``, ``'now'``): on
a fixed data set their windows are usually empty, so the slip cannot show.

Interface (``bench/recovery.py``): ``DAMAGE_KINDS``, ``TREE_KINDS`` (empty: every kind edits the gold's text at
positions found with sqlglot's tokenizer), ``Damaged`` and ``damage(gold_sql, schema, kind, seed)``, deterministic per
(kind, seed, gold) and never raising (``None`` where a kind does not apply).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot.tokens import TokenType

__all__ = ["DAMAGE_KINDS", "FAMILY", "TREE_KINDS", "Damaged", "damage"]

FAMILY: dict[str, str] = {
    "fence_tag_fused_to_select": "A",
    "query_as_line_array": "A",
    "closing_fence_only": "A",
    "mdx_codeblock_component": "A",
    "join_on_keyword_as_where": "A",
    "alias_inside_aggregate_parens": "A",
    "comma_before_sort_direction": "A",
    "compound_keyword_glued": "A",
    "identifier_broken_by_space": "A",
    "cast_type_after_comma": "A",
    "group_keys_joined_with_and": "A",
    "cte_body_missing_parens": "A",
    "in_list_values_joined_with_or": "A",
    "count_distinct_without_parens": "A",
    "hinglish_conjunction_in_where": "A",
    "output_alias_single_quoted": "A",
    "date_trunc_bigquery_argument_order": "A",
    "equality_written_as_is": "A",
    "current_date_called_with_parens": "A",
    "join_conditions_collected_at_end": "A",
    "leading_comma_in_select_list": "A",
    "group_by_ordinals_include_measure": "A",
    "ansi_typed_date_literal": "A",
    "literal_with_leading_space_token": "B",
    "cast_wraps_integer_quotient": "B",
    "case_sensitive_substring_match": "B",
    "unpadded_date_literal": "B",
    "ratio_condition_moved_to_where": "B",
    "join_on_extra_shared_column": "B",
    "regex_syntax_in_like_pattern": "B",
}
DAMAGE_KINDS: tuple[str, ...] = ("clean", *FAMILY)
TREE_KINDS: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Damaged:
    kind: str
    reply: str
    note: str


# ---------------------------------------------------------------------------------------------------------------
# tokens and structure
# ---------------------------------------------------------------------------------------------------------------

_WORD = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")
_CLAUSE = {TokenType.SELECT, TokenType.FROM, TokenType.WHERE, TokenType.GROUP_BY, TokenType.HAVING,
           TokenType.ORDER_BY, TokenType.LIMIT, TokenType.OFFSET, TokenType.UNION, TokenType.EXCEPT,
           TokenType.INTERSECT, TokenType.WINDOW, TokenType.QUALIFY, TokenType.FETCH}
_JOIN_START = {TokenType.LEFT, TokenType.RIGHT, TokenType.INNER, TokenType.FULL, TokenType.CROSS,
               TokenType.JOIN, TokenType.NATURAL, TokenType.OUTER}
_AGGS = {"count", "sum", "avg", "min", "max"}
_FROM_FUNCS = {"extract", "substring", "trim", "overlay", "position", "date_part"}
_NOT_ALIAS = {"nulls", "first", "last", "asc", "desc", "on", "using", "where", "group", "order", "limit", "join",
              "left", "right", "inner", "full", "cross", "natural", "outer", "having", "union", "offset", "window"}
_CMP = {TokenType.GT, TokenType.GTE, TokenType.LT, TokenType.LTE, TokenType.EQ, TokenType.NEQ}


def _dialect(schema: Any) -> str:
    name = str(getattr(schema, "dialect", "") or "postgres").lower()
    return name if name in ("postgres", "sqlite", "duckdb", "mysql") else "postgres"


class _Sql:
    """The gold's tokens with, for each, the index of its innermost open parenthesis (-1 at the top)."""

    def __init__(self, sql: str, dialect: str) -> None:
        self.sql = sql
        self.dialect = dialect
        self.toks = list(sqlglot.Dialect.get_or_raise(dialect).tokenize(sql))
        self.level: list[int] = []
        self.match: dict[int, int] = {}
        stack: list[int] = []
        for i, t in enumerate(self.toks):
            if t.token_type == TokenType.R_PAREN:
                if not stack:
                    raise ValueError("unbalanced")
                j = stack.pop()
                self.match[i], self.match[j] = j, i
            self.level.append(stack[-1] if stack else -1)
            if t.token_type == TokenType.L_PAREN:
                stack.append(i)
        if stack:
            raise ValueError("unbalanced")

    def __len__(self) -> int:
        return len(self.toks)

    def tt(self, i: int) -> Any:
        return self.toks[i].token_type if 0 <= i < len(self.toks) else None

    def start(self, i: int) -> int:
        return self.toks[i].start

    def end(self, i: int) -> int:  # exclusive
        return self.toks[i].end + 1

    def text(self, i: int, j: int | None = None) -> str:
        j = i if j is None else j
        return self.sql[self.toks[i].start:self.toks[j].end + 1]

    def low(self, i: int) -> str:
        return self.toks[i].text.lower() if 0 <= i < len(self.toks) else ""

    def word(self, i: int) -> bool:
        if not 0 <= i < len(self.toks):
            return False
        t = self.toks[i]
        if t.token_type in (TokenType.STRING, TokenType.NUMBER):
            return False
        return t.token_type == TokenType.IDENTIFIER or bool(_WORD.match(t.text))

    def is_call(self, i: int) -> bool:
        return self.word(i) and self.tt(i + 1) == TokenType.L_PAREN and self.tt(i - 1) != TokenType.DOT

    def level_end_tok(self, level: int) -> int:
        """Index one past the last token of a level (its closing parenthesis, or the token count)."""
        return self.match[level] if level >= 0 else len(self.toks)

    def main_select(self, level: int = -1) -> int | None:
        """Index of the last SELECT on ``level`` (the main query below any WITH)."""
        sel = [i for i in range(len(self.toks)) if self.level[i] == level and self.tt(i) == TokenType.SELECT]
        return sel[-1] if sel else None

    def clause_bounds(self, level: int = -1) -> dict[Any, tuple[int, int]]:
        """{clause token type: (keyword index, index one past the clause)} of the main query on ``level``."""
        sel = self.main_select(level)
        if sel is None:
            return {}
        stop = self.level_end_tok(level)
        idx = [i for i in range(sel, stop) if self.level[i] == level and self.tt(i) in _CLAUSE]
        out: dict[Any, tuple[int, int]] = {}
        for k, i in enumerate(idx):
            nxt = idx[k + 1] if k + 1 < len(idx) else stop
            while nxt - 1 > i and self.tt(nxt - 1) == TokenType.SEMICOLON:
                nxt -= 1
            out.setdefault(self.tt(i), (i, nxt))
        return out

    def split_commas(self, a: int, b: int) -> list[tuple[int, int]]:
        """Token spans (inclusive) of the comma-separated items in tokens a..b-1 at a's level."""
        if a >= b:
            return []
        lvl = self.level[a]
        items, cur = [], a
        for i in range(a, b):
            if self.level[i] == lvl and self.tt(i) == TokenType.COMMA:
                items.append((cur, i - 1))
                cur = i + 1
        items.append((cur, b - 1))
        return [(x, y) for x, y in items if x <= y]

    def select_items(self, level: int = -1) -> list[dict[str, Any]]:
        """The main select list: [{a, b, expr: (a, b'), alias, alias_tok}]."""
        cb = self.clause_bounds(level)
        if TokenType.SELECT not in cb:
            return []
        i, stop = cb[TokenType.SELECT]
        a = i + 1
        if self.tt(a) == TokenType.DISTINCT:
            a += 1
            if self.low(a) == "on":
                return []
        out = []
        for x, y in self.split_commas(a, stop):
            alias, atok, ey = None, None, y
            if y - 1 >= x and self.tt(y - 1) == TokenType.ALIAS and (self.word(y) or self.tt(y) == TokenType.STRING):
                alias, atok, ey = self.toks[y].text, y, y - 2
            elif y > x and self.word(y) and self.tt(y - 1) in (TokenType.R_PAREN,) and self.low(y) not in _NOT_ALIAS:
                alias, atok, ey = self.toks[y].text, y, y - 1
            out.append({"a": x, "b": y, "ea": x, "eb": ey, "alias": alias, "alias_tok": atok})
        return out

    def has_agg(self, a: int, b: int) -> bool:
        return any(self.low(i) in _AGGS and self.tt(i + 1) == TokenType.L_PAREN for i in range(a, b + 1))

    def has_window(self, a: int, b: int) -> bool:
        return any(self.low(i) == "over" for i in range(a, b + 1))

    def tables(self) -> dict[str, str]:
        """alias or name (lower case) -> table name (last dotted part), from FROM / JOIN / comma lists."""
        out: dict[str, str] = {}
        for i in range(len(self.toks)):
            tt = self.tt(i)
            if tt not in (TokenType.FROM, TokenType.JOIN, TokenType.COMMA):
                continue
            if tt == TokenType.COMMA and not self._in_from(i):
                continue
            if tt == TokenType.FROM and (self.tt(i - 1) == TokenType.DISTINCT or (
                    self.level[i] >= 0 and self.low(self.level[i] - 1) in _FROM_FUNCS)):
                continue
            j = i + 1
            if not self.word(j) or self.tt(j + 1) == TokenType.L_PAREN:
                continue
            k = j
            while self.tt(k + 1) == TokenType.DOT and self.word(k + 2):
                k += 2
            name = self.toks[k].text
            out.setdefault(name.lower(), name)
            a = k + 1
            if self.tt(a) == TokenType.ALIAS:
                a += 1
            if self.word(a) and self.tt(a) not in _CLAUSE | _JOIN_START | {TokenType.ON, TokenType.USING} \
                    and self.low(a) not in _NOT_ALIAS:
                out[self.toks[a].text.lower()] = name
        return out

    def _in_from(self, i: int) -> bool:
        lvl = self.level[i]
        for j in range(i - 1, -1, -1):
            if self.level[j] != lvl:
                continue
            if self.tt(j) in _CLAUSE:
                return self.tt(j) == TokenType.FROM
        return False

    def joins(self, level: int = -1) -> list[dict[str, Any]]:
        """JOIN segments of the main FROM clause on ``level``: [{a, b (inclusive), kind, table, alias, on: (a, b)}]."""
        cb = self.clause_bounds(level)
        if TokenType.FROM not in cb:
            return []
        f, stop = cb[TokenType.FROM]
        starts = []
        for i in range(f + 1, stop):
            if self.level[i] == level and self.tt(i) in _JOIN_START and self.tt(i - 1) not in _JOIN_START:
                starts.append(i)
        out = []
        for n, s in enumerate(starts):
            e = (starts[n + 1] if n + 1 < len(starts) else stop) - 1
            j = s
            while j <= e and self.tt(j) != TokenType.JOIN:
                j += 1
            if j > e or not self.word(j + 1) or self.tt(j + 2) == TokenType.L_PAREN:
                out.append({"a": s, "b": e, "kind": "other"})
                continue
            k = j + 1
            while self.tt(k + 1) == TokenType.DOT and self.word(k + 2):
                k += 2
            alias = None
            a = k + 1
            if self.tt(a) == TokenType.ALIAS:
                a += 1
            if self.word(a) and self.tt(a) not in (TokenType.ON, TokenType.USING) and self.tt(a) not in _JOIN_START:
                alias = self.toks[a].text
            on = None
            for m in range(k + 1, e + 1):
                if self.level[m] == level and self.tt(m) == TokenType.ON:
                    on = (m + 1, e)
                    break
            kind = " ".join(self.low(x) for x in range(s, j + 1))
            out.append({"a": s, "b": e, "kind": kind, "table": self.toks[k].text, "alias": alias, "on": on,
                        "kw": (s, j)})
        return out

    def qualifiers(self, a: int, b: int) -> set[str]:
        """Lower-case qualifiers ``q`` of ``q.col`` references in tokens a..b."""
        out = set()
        for i in range(a, b):
            if self.word(i) and self.tt(i + 1) == TokenType.DOT and self.word(i + 2) \
                    and self.tt(i - 1) != TokenType.DOT:
                out.add(self.low(i))
        return out

    def string_spans(self) -> list[tuple[int, int]]:
        return [(t.start, t.end + 1) for t in self.toks if t.token_type == TokenType.STRING]


def _apply(sql: str, edits: list[tuple[int, int, str]]) -> str:
    """Apply (start, end, replacement) edits; none may overlap."""
    out = sql
    last = len(sql) + 1
    for s, e, r in sorted(edits, key=lambda x: (x[0], x[1]), reverse=True):
        if e > last:
            raise ValueError("overlapping edits")
        out = out[:s] + r + out[e:]
        last = s
    return out


def _norm(sql: str) -> str:
    return re.sub(r"\s+", " ", sql.strip().rstrip(";").strip()).lower()






def _schema_table(schema: Any, name: str) -> Any:
    try:
        return schema.table(name)
    except Exception:  # noqa: BLE001
        return None


def _col_type(schema: Any, s: _Sql, qual: str | None, col: str) -> str:
    """The declared type of ``[qual.]col`` among the query's tables ('' when unknown)."""
    tabs = s.tables()
    names = [tabs[qual.lower()]] if qual and qual.lower() in tabs else list(dict.fromkeys(tabs.values()))
    for n in names:
        t = _schema_table(schema, n)
        if t is None:
            continue
        c = t.column(col)
        if c is not None:
            return str(c.type or "").lower()
    return ""


def _input_columns(schema: Any, s: _Sql) -> set[str]:
    out: set[str] = set()
    for n in set(s.tables().values()):
        t = _schema_table(schema, n)
        if t is not None:
            out |= {c.name.lower() for c in t.columns}
    return out


# ---------------------------------------------------------------------------------------------------------------
# prose
# ---------------------------------------------------------------------------------------------------------------

_INTROS = (
    "Here is the SQL for your question:", "Sure! The following query should do it:", "You can run this query:",
    "This should give the right answer:", "Okay, try this:", "One way to write it:",
    "Yeh lo query, isse result aa jayega:", "Haan bilkul, neeche wali query chalao:", "Aapke question ka SQL yeh raha:",
    "Theek hai ji, query ready hai:", "Chaliye, yeh SQL use kijiye:", "Dekhiye, yeh query sahi kaam karegi:",
    "Here's teh SQL:", "Sure, this shuold work:", "Below is the qeury:", "Try this, it shoud give the answr:",
    "Yeh query chala ke dekho, kaam karegi shyd:", "SQL:", "Query:", "",
)
_OUTROS = (
    "", "", "", "Let me know if you want any changes.", "Koi doubt ho toh puchiye!", "Hope this helps!",
    "Isse aapko exact answer mil jayega.", "You might need to tweak the filters for your data.",
    "Agar error aaye toh error message share karna.", "This returns exaclty the columns you asked for.",
    "Ek baar run karke output check kar lena.", "Cheers!",
)


def _explain(rng: random.Random, s: _Sql | None) -> str:
    """A short sentence about the query, in English or Hinglish; sometimes nothing."""
    if s is None or rng.random() < 0.5:
        return ""
    try:
        tabs = list(dict.fromkeys(s.tables().values()))
        cb = s.clause_bounds()
    except Exception:  # noqa: BLE001
        return ""
    if not tabs:
        return ""
    grouped = TokenType.GROUP_BY in cb
    if rng.random() < 0.5:
        out = f"The query reads `{tabs[0]}`"
        if len(tabs) > 1:
            out += ", joins " + " and ".join(f"`{t}`" for t in tabs[1:3])
        if TokenType.WHERE in cb:
            out += ", applies the filters"
        if grouped:
            out += " and then aggregates per group"
        return out + "."
    out = f"Pehle `{tabs[0]}` table liya"
    if len(tabs) > 1:
        out += ", phir " + " aur ".join(f"`{t}`" for t in tabs[1:3]) + " join kiya"
    if grouped:
        out += ", aur group by karke totals nikale"
    return out + "."


def _lang(rng: random.Random, dialect: str) -> str:
    return rng.choice(("sql", "sql", "sql", "", "postgresql" if dialect == "postgres" else "sqlite"))


def _reply(rng: random.Random, sql: str, s: _Sql | None = None, extra: str = "") -> str:
    head = " ".join(p for p in (rng.choice(_INTROS), extra) if p)
    body = f"```{_lang(rng, s.dialect if s is not None else 'postgres')}\n{sql.strip()}\n```"
    tail = " ".join(p for p in (_explain(rng, s), rng.choice(_OUTROS)) if p)
    return "\n\n".join(p for p in (head, body, tail) if p)


def _enclosing_query_level(s: _Sql, i: int) -> int:
    """The paren level whose query token i belongs to (-1: the top)."""
    lvl = s.level[i]
    while lvl >= 0 and s.tt(lvl + 1) not in (TokenType.SELECT, TokenType.WITH):
        lvl = s.level[lvl]
    return lvl


def _colref_end_before(s: _Sql, i: int) -> tuple[int, int] | None:
    """(a, b) token span of a column reference ``[q.]col`` ending at token i-1."""
    b = i - 1
    if not s.word(b):
        return None
    a = b
    while s.tt(a - 1) == TokenType.DOT and s.word(a - 2):
        a -= 2
    return a, b


# ---------------------------------------------------------------------------------------------------------------
# family A: layouts
# ---------------------------------------------------------------------------------------------------------------


def _fence_tag_fused_to_select(gold: str, s: _Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    sql = gold.strip()
    first = sql.split("\n", 1)[0]
    if first.strip().isalpha() and "\n" in sql:
        sql = sql.replace("\n", " ", 1)
    if sql.split("\n", 1)[0].strip().isalpha():
        return None
    tag = rng.choice(("sql", "sql", "postgresql" if s.dialect == "postgres" else "sqlite", "SQL"))
    head = rng.choice(_INTROS)
    tail = rng.choice(_OUTROS)
    body = f"```{tag}{sql}\n```"
    return "\n\n".join(p for p in (head, body, tail) if p), "language tag fused to the first line"


_BREAK = re.compile(r"\s+(?=(?:FROM|WHERE|GROUP BY|HAVING|ORDER BY|LIMIT|LEFT JOIN|INNER JOIN|JOIN)\b)", re.I)


def _query_as_line_array(gold: str, s: _Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    sql = gold.strip()
    lines = [ln.rstrip() for ln in sql.split("\n") if ln.strip()]
    if len(lines) < 2:
        lines = [p.strip() for p in _BREAK.split(sql) if p.strip()]
    if rng.random() < 0.5:
        key = rng.choice(("sql_lines", "query", "lines", "sql"))
        obj = {key: lines, "dialect": "postgresql" if s.dialect == "postgres" else "sqlite"}
        if rng.random() < 0.5:
            obj["explanation"] = rng.choice(("Each element is one line of the query.",
                                             "Query ko lines mein tod diya hai, join karke chalao."))
        body = "```json\n" + json.dumps(obj, indent=2) + "\n```"
        head = rng.choice(("Here is the query in the requested JSON format:", "Output (JSON):",
                           "Yeh raha JSON format mein:", "Sure, here's the structured output:"))
    else:
        body = ("```python\nquery_lines = [\n" + "".join(f"    {json.dumps(ln)},\n" for ln in lines) +
                "]\nquery = \"\\n\".join(query_lines)\n```")
        head = rng.choice(("You can build the query like this:", "Python mein query aise banao:",
                           "Here's the query as a list of lines (easier to edit):"))
    tail = rng.choice(_OUTROS)
    return "\n\n".join(p for p in (head, body, tail) if p), "query given as an array of its lines"


def _closing_fence_only(gold: str, s: _Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    head = rng.choice(_INTROS) or "Here you go:"
    tail = rng.choice(_OUTROS) or rng.choice(("Bas itna hi.", "That's it."))
    expl = _explain(rng, s)
    body = gold.strip() + "\n```"
    return "\n\n".join(p for p in (head, body, " ".join(x for x in (expl, tail) if x)) if p), \
        "opening fence missing, closing fence kept"


def _mdx_codeblock_component(gold: str, s: _Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    title = rng.choice(("query.sql", "report.sql", "answer.sql"))
    comp = (f'<CodeBlock language="sql" title="{title}">\n{{`{gold.strip()}`}}\n</CodeBlock>')
    if rng.random() < 0.5:
        comp = "import CodeBlock from '@theme/CodeBlock';\n\n" + comp
    if rng.random() < 0.3:
        comp = "```mdx\n" + comp + "\n```"
    head = rng.choice(("Here is the query as a docs snippet:", "MDX page ke liye snippet:",
                       "You can drop this into your docs page:",
                       "Sure, heres the code block:", rng.choice(_INTROS)))
    tail = rng.choice(_OUTROS)
    return "\n\n".join(p for p in (head, comp, tail) if p), "query inside an MDX <CodeBlock> component"


# ---------------------------------------------------------------------------------------------------------------
# family A: syntax and dialect slips
# ---------------------------------------------------------------------------------------------------------------


def _all_joins(s: _Sql) -> list[dict[str, Any]]:
    levels = {-1} | {i for i in range(len(s)) if s.tt(i) == TokenType.L_PAREN and s.tt(i + 1) == TokenType.SELECT}
    out = []
    for lvl in levels:
        try:
            out += [j for j in s.joins(lvl) if j.get("kind") != "other"]
        except Exception:  # noqa: BLE001
            continue
    return out


def _join_on_keyword_as_where(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    joins = [j for j in _all_joins(s) if j.get("on")]
    if not joins:
        return None
    if s.dialect == "sqlite":
        has_where = any(s.tt(i) == TokenType.WHERE for i in range(len(s)))
        left = any("left" in j["kind"] or "full" in j["kind"] or "right" in j["kind"] for j in joins)
        if len(joins) < 2 and not has_where and not left:
            return None  # SQLite reads ``a JOIN b WHERE c`` as the same inner join
    edits = []
    for j in joins:
        on_tok = j["on"][0] - 1
        edits.append((s.start(on_tok), s.end(on_tok), rng.choice(("WHERE", "WHERE", "where"))))
    return _apply(gold, edits)


def _alias_inside_aggregate_parens(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    cands = []
    for it in s.select_items():
        if it["alias_tok"] is None or s.tt(it["alias_tok"] - 1) != TokenType.ALIAS:
            continue
        ea, eb = it["ea"], it["eb"]
        if s.is_call(ea) and s.low(ea) in _AGGS and s.match.get(ea + 1) == eb and eb - ea > 2:
            cands.append(it)
    if not cands:
        return None
    it = rng.choice(cands)
    alias = s.text(it["alias_tok"])
    return _apply(gold, [(s.end(it["eb"] - 1), s.start(it["eb"]), f" AS {alias}"),
                         (s.end(it["eb"]), s.end(it["alias_tok"]), "")])


def _comma_before_sort_direction(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    cands = [i for i in range(1, len(s)) if s.tt(i) in (TokenType.DESC, TokenType.ASC)
             and s.tt(i - 1) != TokenType.COMMA]
    if not cands:
        return None
    i = rng.choice(cands)
    return _apply(gold, [(s.end(i - 1), s.start(i), rng.choice((", ", ",", " , ")))])


def _compound_keyword_glued(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    edits = []
    for i in range(len(s)):
        t = s.toks[i]
        if t.token_type in (TokenType.GROUP_BY, TokenType.ORDER_BY):
            glued = re.sub(r"\s+", "", t.text)
            edits.append((s.start(i), s.end(i), glued.upper() if rng.random() < 0.8 else glued))
        elif t.token_type == TokenType.JOIN and s.tt(i - 1) in (TokenType.LEFT, TokenType.INNER, TokenType.OUTER,
                                                                 TokenType.RIGHT, TokenType.CROSS, TokenType.FULL):
            edits.append((s.end(i - 1), s.start(i), ""))
    if not edits:
        return None
    return _apply(gold, edits)


_KW = {"select", "from", "where", "and", "or", "not", "null", "as", "on", "join", "group", "order", "by", "limit",
       "desc", "asc", "case", "when", "then", "else", "end", "in", "is", "like", "between", "distinct", "having"}


def _split_point(name: str, rng: random.Random) -> int | None:
    pts = [m.start() for m in re.finditer(r"_", name) if 0 < m.start() < len(name) - 1]
    pts += [m.start() + 1 for m in re.finditer(r"[a-z](?=[A-Z])", name)]
    if not pts and len(name) >= 7:
        pts = [len(name) // 2]
    return rng.choice(pts) if pts else None


def _identifier_broken_by_space(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    cols = _input_columns(schema, s)
    cands = []
    for i in range(len(s)):
        if not s.word(i) or s.tt(i) == TokenType.IDENTIFIER or s.is_call(i) or s.low(i) in _KW:
            continue
        if s.low(i) not in cols or len(s.low(i)) < 5:
            continue
        cands.append(i)
    rng.shuffle(cands)
    for i in cands:
        name = s.toks[i].text
        p = _split_point(name, rng)
        if p is None:
            continue
        left = name[:p].lower()
        if left in cols:
            continue
        new = name[:p] + " " + name[p:] if rng.random() < 0.6 else name[:p + 1] + " " + name[p + 1:]
        if new.split(" ")[0].lower() in cols:
            continue
        return _apply(gold, [(s.start(i), s.end(i), new)])
    return None


def _cast_type_after_comma(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    edits = []
    for i in range(len(s)):
        if s.low(i) == "cast" and s.tt(i + 1) == TokenType.L_PAREN and i + 1 in s.match:
            close = s.match[i + 1]
            for k in range(i + 2, close):
                if s.level[k] == i + 1 and s.tt(k) == TokenType.ALIAS:
                    edits.append((s.end(k - 1), s.end(k), ","))
                    break
        elif s.tt(i) == TokenType.DCOLON:
            b = i - 1
            if s.tt(b) == TokenType.R_PAREN:
                a = s.match.get(b)
                if a is None:
                    continue
                if s.word(a - 1):
                    a -= 1
            elif s.word(b) or s.tt(b) in (TokenType.NUMBER, TokenType.STRING):
                a = b
                while s.tt(a - 1) == TokenType.DOT and s.word(a - 2):
                    a -= 2
            else:
                continue
            t = i + 1
            if not s.word(t) and s.toks[t].token_type not in (TokenType.DOUBLE, TokenType.FLOAT, TokenType.DECIMAL):
                pass
            te = t
            while s.tt(te + 1) not in (None, TokenType.L_PAREN) and s.word(te + 1) and s.low(te + 1) == "precision":
                te += 1
            if s.tt(te + 1) == TokenType.L_PAREN and te + 1 in s.match:
                te = s.match[te + 1]
            if any(x[0] < s.end(te) and s.start(a) < x[1] for x in edits):
                continue
            typ = s.sql[s.start(t):s.end(te)]
            edits.append((s.start(a), s.end(te), f"CAST({s.sql[s.start(a):s.end(b)]}, {typ})"))
    if not edits:
        return None
    edits.sort()
    keep = []
    for e in edits:  # no overlapping (nested) edits
        if keep and e[0] < keep[-1][1]:
            continue
        keep.append(e)
    return _apply(gold, keep)


def _group_keys_joined_with_and(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    edits = []
    levels = {-1} | {i for i in range(len(s)) if s.tt(i) == TokenType.L_PAREN and s.tt(i + 1) == TokenType.SELECT}
    for lvl in levels:
        cb = s.clause_bounds(lvl)
        if TokenType.GROUP_BY not in cb:
            continue
        g, stop = cb[TokenType.GROUP_BY]
        for k in range(g + 1, stop):
            if s.level[k] == lvl and s.tt(k) == TokenType.COMMA:
                edits.append((s.start(k), s.end(k), " AND"))
    if not edits:
        return None
    return _apply(gold, edits)


def _cte_body_missing_parens(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    if not any(s.tt(i) == TokenType.WITH for i in range(len(s))):
        return None
    edits = []
    for i in range(1, len(s)):
        if s.tt(i) == TokenType.L_PAREN and s.tt(i - 1) == TokenType.ALIAS and s.tt(i + 1) == TokenType.SELECT \
                and s.level[i] == -1 and i in s.match:
            edits.append((s.start(i), s.end(i), ""))
            edits.append((s.start(s.match[i]), s.end(s.match[i]), ""))
    if not edits:
        return None
    return _apply(gold, edits)




def _in_list_values_joined_with_or(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    """``IN ('a' OR 'b')`` for ``IN ('a', 'b')`` (PostgreSQL: an error; SQLite: ``IN (0)``, wrong rows)."""
    edits = []
    for i in range(1, len(s)):
        if s.tt(i) == TokenType.IN and s.tt(i + 1) == TokenType.L_PAREN and s.tt(i + 2) != TokenType.SELECT \
                and i + 1 in s.match:
            close = s.match[i + 1]
            edits += [(s.start(k), s.end(k), " OR") for k in range(i + 2, close)
                      if s.level[k] == i + 1 and s.tt(k) == TokenType.COMMA]
    if not edits:
        return None
    return _apply(gold, edits)


def _count_distinct_without_parens(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    edits = []
    for i in range(len(s) - 2):
        if s.low(i) == "count" and s.tt(i + 1) == TokenType.L_PAREN and s.tt(i + 2) == TokenType.DISTINCT \
                and i + 1 in s.match:
            close = s.match[i + 1]
            inner = s.sql[s.end(i + 2):s.start(close)].strip()
            edits.append((s.start(i), s.end(close), f"{s.text(i)} DISTINCT({inner})"))
    if not edits:
        return None
    return _apply(gold, [rng.choice(edits)] if rng.random() < 0.5 else edits)


def _between_and(s: _Sql, k: int) -> bool:
    """True when the AND at token k closes a BETWEEN."""
    lvl = s.level[k]
    for j in range(k - 1, max(-1, k - 12), -1):
        if s.level[j] != lvl:
            continue
        if s.tt(j) == TokenType.BETWEEN:
            return True
        if s.tt(j) in (TokenType.AND, TokenType.OR) or s.tt(j) in _CLAUSE:
            return False
    return False


def _hinglish_conjunction_in_where(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    cands = []
    for i in range(len(s)):
        if s.tt(i) not in (TokenType.AND, TokenType.OR) or _between_and(s, i):
            continue
        own = _owner(s, i)
        if own is None or own[1] not in (TokenType.WHERE, TokenType.HAVING):
            continue
        cands.append(i)
    if not cands:
        return None
    i = rng.choice(cands)
    word = "aur" if s.tt(i) == TokenType.AND else "ya"
    if rng.random() < 0.3:
        word = word.upper()
    return _apply(gold, [(s.start(i), s.end(i), word)]), rng.choice(
        ("", "(filters dono lagaye hain)", "Dono conditions WHERE mein hain."))


def _owner(s: _Sql, i: int) -> tuple[int, Any] | None:
    """(index, type) of the clause keyword that token i belongs to, looking out through parentheses."""
    j, lvl = i, s.level[i]
    while True:
        for k in range(j - 1, -1, -1):
            if k == lvl:
                break
            if s.level[k] == lvl and (s.tt(k) in _CLAUSE or s.tt(k) in (TokenType.ON, TokenType.WHEN)):
                return k, s.tt(k)
        if lvl < 0:
            return None
        j, lvl = lvl, s.level[lvl]


def _output_alias_single_quoted(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    if s.dialect != "postgres":
        return None
    edits = []
    for i in range(1, len(s)):
        if s.tt(i - 1) != TokenType.ALIAS or not s.word(i):
            continue
        own = _owner(s, i)
        if own is None or own[1] != TokenType.SELECT or s.level[i] != s.level[own[0]]:
            continue
        name = s.toks[i].text
        edits.append((s.start(i), s.end(i), f"'{name}'"))
    if not edits:
        return None
    return _apply(gold, edits)


def _date_trunc_bigquery_argument_order(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    if s.dialect != "postgres":
        return None
    edits = []
    for i in range(len(s) - 3):
        if s.low(i) == "date_trunc" and s.tt(i + 1) == TokenType.L_PAREN and s.tt(i + 2) == TokenType.STRING \
                and s.tt(i + 3) == TokenType.COMMA and i + 1 in s.match:
            close = s.match[i + 1]
            unit = s.toks[i + 2].text.strip().upper()
            arg = s.sql[s.end(i + 3):s.start(close)].strip()
            edits.append((s.start(i), s.end(close), f"{s.text(i)}({arg}, {unit})"))
    if not edits:
        return None
    edits.sort()
    keep = []
    for e in edits:
        if keep and e[0] < keep[-1][1]:
            continue
        keep.append(e)
    return _apply(gold, keep)


def _equality_written_as_is(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    if s.dialect != "postgres":
        return None
    cands = []
    for i in range(1, len(s) - 1):
        if s.tt(i) not in (TokenType.EQ, TokenType.NEQ) or s.tt(i + 1) not in (TokenType.STRING, TokenType.NUMBER):
            continue
        own = _owner(s, i)
        if own is None or own[1] not in (TokenType.WHERE, TokenType.HAVING):
            continue
        cands.append(i)
    if not cands:
        return None
    edits = [(s.start(i), s.end(i), "IS" if s.tt(i) == TokenType.EQ else "IS NOT") for i in cands]
    return _apply(gold, edits if rng.random() < 0.5 else [rng.choice(edits)])


_DATE_LIT = re.compile(r"^'\d{4}-\d{2}-\d{2}([ T][0-9:.]+)?'$")


def _in_function_args(s: _Sql, i: int) -> bool:
    lvl = s.level[i]
    return lvl >= 0 and s.word(lvl - 1) and s.low(lvl - 1) not in ("in",)


def _ansi_typed_date_literal(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    if s.dialect != "sqlite":
        return None
    edits = []
    for i in range(len(s)):
        if s.tt(i) != TokenType.STRING or not _DATE_LIT.match(s.text(i)) or _in_function_args(s, i):
            continue
        kw = "TIMESTAMP" if " " in s.text(i) or "T" in s.text(i)[5:] else "DATE"
        edits.append((s.start(i), s.start(i), kw + " "))
    if not edits:
        return None
    return _apply(gold, edits)


# ---------------------------------------------------------------------------------------------------------------
# family B: the query runs and answers another question
# ---------------------------------------------------------------------------------------------------------------




def _string_filter_literals(s: _Sql) -> list[int]:
    out = []
    for i in range(1, len(s)):
        if s.tt(i) != TokenType.STRING:
            continue
        own = _owner(s, i)
        if own is None or own[1] not in (TokenType.WHERE, TokenType.HAVING, TokenType.ON):
            continue
        prev = s.tt(i - 1)
        in_list = prev in (TokenType.L_PAREN, TokenType.COMMA) and s.level[i] >= 0 and \
            s.tt(s.level[i] - 1) == TokenType.IN
        if prev in (TokenType.EQ, TokenType.NEQ) or in_list or prev in (TokenType.LIKE, TokenType.ILIKE):
            out.append(i)
    return out


def _literal_with_leading_space_token(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    cands = []
    for i in _string_filter_literals(s):
        body = s.toks[i].text
        if not body or body[0] in " %_" or not re.match(r"[A-Za-z]", body):
            continue
        if s.tt(i - 1) == TokenType.NEQ:
            continue
        cands.append(i)
    if not cands:
        return None
    i = rng.choice(cands)
    txt = s.text(i)
    return _apply(gold, [(s.start(i), s.end(i), txt[0] + " " + txt[1:])])








_FRACTION = ("double", "real", "float", "numeric", "decimal", "money")
_FLOAT_CAST = re.compile(r"(?i)(\bas\s+|::\s*)(float|real|double|numeric|decimal)")


def _has_fraction_column(s: _Sql, schema: Any, a: int, b: int) -> bool:
    """True when tokens a..b-1 use a column of a non-integer type, an AVG or a decimal literal."""
    for k in range(a, b):
        if s.low(k) == "avg" or (s.tt(k) == TokenType.NUMBER and "." in s.toks[k].text):
            return True
        if s.word(k) and s.tt(k + 1) != TokenType.L_PAREN and s.tt(k + 1) != TokenType.DOT:
            qual = s.low(k - 2) if s.tt(k - 1) == TokenType.DOT else None
            typ = _col_type(schema, s, qual, s.toks[k].text)
            if any(f in typ for f in _FRACTION):
                return True
    return False


def _cast_wraps_integer_quotient(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    """``CAST(a AS T) / b`` -> ``CAST(a / b AS T)``; ``a::T / b`` -> ``(a / b)::T``."""
    edits = []
    for i in range(len(s)):
        if s.low(i) == "cast" and s.tt(i + 1) == TokenType.L_PAREN and i + 1 in s.match:
            close = s.match[i + 1]
            if s.tt(close + 1) != TokenType.SLASH:
                continue
            asx = next((k for k in range(i + 2, close) if s.level[k] == i + 1 and s.tt(k) == TokenType.ALIAS), None)
            if asx is None:
                continue
            typ = s.sql[s.end(asx):s.start(close)].strip()
            if not re.match(r"(?i)(float|real|double|numeric|decimal)", typ):
                continue
            # the divisor: one operand (a call, a parenthesised expression or a column)
            d = close + 2
            if s.word(d) and s.tt(d + 1) == TokenType.L_PAREN and d + 1 in s.match:
                de = s.match[d + 1]
            elif s.tt(d) == TokenType.L_PAREN and d in s.match:
                de = s.match[d]
            elif s.word(d) or s.tt(d) == TokenType.NUMBER:
                de = d
                while s.tt(de + 1) == TokenType.DOT and s.word(de + 2):
                    de += 2
            else:
                continue
            num = s.sql[s.end(i + 1):s.start(asx)].strip()
            den = s.sql[s.start(d):s.end(de)]
            if _has_fraction_column(s, schema, i + 2, asx) or _has_fraction_column(s, schema, d, de + 1) \
                    or _FLOAT_CAST.search(den):
                continue
            edits.append((s.start(i), s.end(de), f"{s.text(i)}({num} / {den} AS {typ})"))
        elif s.tt(i) == TokenType.DCOLON and s.tt(i + 2) == TokenType.SLASH:
            typ = s.text(i + 1)
            if not re.match(r"(?i)(float|real|double|numeric|decimal)", typ):
                continue
            b = i - 1
            if s.tt(b) == TokenType.R_PAREN and b in s.match:
                a = s.match[b]
                if s.word(a - 1):
                    a -= 1
            elif s.word(b):
                a = b
                while s.tt(a - 1) == TokenType.DOT and s.word(a - 2):
                    a -= 2
            else:
                continue
            d = i + 3
            if s.word(d) and s.tt(d + 1) == TokenType.L_PAREN and d + 1 in s.match:
                de = s.match[d + 1]
            elif s.tt(d) == TokenType.L_PAREN and d in s.match:
                de = s.match[d]
            elif s.word(d):
                de = d
                while s.tt(de + 1) == TokenType.DOT and s.word(de + 2):
                    de += 2
            else:
                continue
            num = s.sql[s.start(a):s.end(b)]
            den = s.sql[s.start(d):s.end(de)]
            if _has_fraction_column(s, schema, a, b + 1) or _has_fraction_column(s, schema, d, de + 1) \
                    or _FLOAT_CAST.search(den):
                continue
            edits.append((s.start(a), s.end(de), f"({num} / {den})::{typ}"))
    if not edits:
        return None
    edits.sort()
    keep = []
    for e in edits:
        if keep and e[0] < keep[-1][1]:
            continue
        keep.append(e)
    return _apply(gold, keep)


def _instr_substring_match(gold: str, s: _Sql, rng: random.Random) -> str | None:
    """SQLite: ``[LOWER(]col[)] LIKE [LOWER(]'%term%'[)]`` -> ``instr(col, 'Term') > 0``: case-sensitive."""
    edits = []
    for i in range(1, len(s) - 1):
        if s.tt(i) != TokenType.LIKE:
            continue
        # the pattern: a string, or LOWER('...')
        if s.tt(i + 1) == TokenType.STRING:
            pa, pb, pat_i = i + 1, i + 1, i + 1
        elif s.low(i + 1) in ("lower", "upper") and s.tt(i + 2) == TokenType.L_PAREN \
                and s.tt(i + 3) == TokenType.STRING \
                and s.tt(i + 4) == TokenType.R_PAREN:
            pa, pb, pat_i = i + 1, i + 4, i + 3
        else:
            continue
        pat = s.toks[pat_i].text
        m = re.match(r"^%([^%_]+)%$", pat)
        if not m or not re.search(r"[A-Za-z]", m.group(1)):
            continue
        # the subject: a column, or LOWER(column)
        if s.tt(i - 1) == TokenType.R_PAREN and s.match.get(i - 1) is not None and \
                s.low(s.match[i - 1] - 1) in ("lower", "upper"):
            sa = s.match[i - 1] - 1
            inner = s.sql[s.end(sa + 1):s.start(i - 1)].strip()
        else:
            span = _colref_end_before(s, i)
            if span is None:
                continue
            sa = span[0]
            inner = s.sql[s.start(sa):s.end(i - 1)]
        term = m.group(1)
        new = term.title() if term == term.lower() else term.lower()
        if new == term:
            continue
        edits.append((s.start(sa), s.end(pb), f"instr({inner}, '{new}') > 0"))
    if not edits:
        return None
    return _apply(gold, edits)


def _case_sensitive_substring_match(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    if s.dialect == "sqlite":
        return _instr_substring_match(gold, s, rng)
    if s.dialect != "postgres":
        return None
    edits = []
    for i in range(len(s)):
        if s.tt(i) != TokenType.ILIKE:
            continue
        edits.append((s.start(i), s.end(i), "LIKE" if s.toks[i].text.isupper() else "like"))
        if s.tt(i + 1) == TokenType.STRING:
            pat = s.toks[i + 1].text
            if not re.search(r"[A-Za-z]", pat):
                continue
            new = pat.lower() if pat != pat.lower() else pat.title() if rng.random() < 0.6 else pat.upper()
            edits.append((s.start(i + 1), s.end(i + 1), "'" + new.replace("'", "''") + "'"))
    for i in range(len(s) - 3):  # LOWER(col) LIKE '%ford%' -> col LIKE '%Ford%'
        if s.low(i) == "lower" and s.tt(i + 1) == TokenType.L_PAREN and i + 1 in s.match:
            close = s.match[i + 1]
            if s.tt(close + 1) != TokenType.LIKE or s.tt(close + 2) != TokenType.STRING:
                continue
            pat = s.toks[close + 2].text
            if not re.search(r"[a-z]", pat):
                continue
            inner = s.sql[s.end(i + 1):s.start(close)].strip()
            edits.append((s.start(i), s.end(close), inner))
            new = pat.title() if rng.random() < 0.7 else pat.upper()
            edits.append((s.start(close + 2), s.end(close + 2), "'" + new.replace("'", "''") + "'"))
    if not any(e[2] not in ("LIKE", "like") for e in edits):
        return None  # no pattern whose case the model got from the question
    if not edits:
        return None
    return _apply(gold, edits)


def _ratio_condition_moved_to_where(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    """``SUM(CASE WHEN c THEN 1 ELSE 0 END)`` -> ``COUNT(*)`` with ``c`` added to the WHERE clause."""
    for i in range(len(s) - 3):
        if s.low(i) not in ("sum", "count") or s.tt(i + 1) != TokenType.L_PAREN or s.tt(i + 2) != TokenType.CASE:
            continue
        close = s.match.get(i + 1)
        if close is None or s.tt(close - 1) != TokenType.END:
            continue
        lvl_case = i + 1
        whens = [k for k in range(i + 3, close) if s.level[k] == lvl_case and s.tt(k) == TokenType.WHEN]
        thens = [k for k in range(i + 3, close) if s.level[k] == lvl_case and s.tt(k) == TokenType.THEN]
        elses = [k for k in range(i + 3, close) if s.level[k] == lvl_case and s.tt(k) == TokenType.ELSE]
        if len(whens) != 1 or len(thens) != 1 or whens[0] != i + 3:
            continue
        w, th = whens[0], thens[0]
        vend = elses[0] if elses else close - 1
        if elses:
            ev = s.sql[s.end(elses[0]):s.start(close - 1)].strip().lower()
            if ev not in ("0", "null", "0.0"):
                continue
        cond = s.sql[s.end(w):s.start(th)].strip()
        val = s.sql[s.end(th):s.start(vend)].strip()
        if s.low(i) == "sum" and val not in ("1", "1.0"):
            repl = f"SUM({val})"
        else:
            repl = "COUNT(*)"
        lvl = _enclosing_query_level(s, i)
        cb = s.clause_bounds(lvl)
        if TokenType.FROM not in cb:
            continue
        other_agg = any(s.low(k) in _AGGS and s.tt(k + 1) == TokenType.L_PAREN and not (i <= k <= close)
                        and _enclosing_query_level(s, k) == lvl for k in range(len(s)))
        if not other_agg and TokenType.GROUP_BY not in cb:
            continue  # one conditional count alone: moving it to WHERE gives the same number
        edits = [(s.start(i), s.end(close), repl)]
        if TokenType.WHERE in cb:
            wk, wstop = cb[TokenType.WHERE]
            edits.append((s.end(wk), s.end(wk), f" ({cond}) AND ("))
            edits.append((s.end(wstop - 1), s.end(wstop - 1), ")"))
        else:
            f, fstop = cb[TokenType.FROM]
            edits.append((s.end(fstop - 1), s.end(fstop - 1), f" WHERE {cond}"))
        return _apply(gold, edits)
    return None


def _join_on_extra_shared_column(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    """A JOIN's ON also equates a non-key column both tables have (``AND a.status = b.status``)."""
    tabs = s.tables()
    cands = []
    for j in _all_joins(s):
        if not j.get("on"):
            continue
        a, b = j["on"]
        right = (j.get("alias") or j["table"]).lower()
        quals = [q for q in s.qualifiers(a, b + 1) if q != right and q in tabs]
        if not quals:
            continue
        left = quals[0]
        lt, rt = _schema_table(schema, tabs[left]), _schema_table(schema, j["table"])
        if lt is None or rt is None or lt.name.lower() == rt.name.lower():
            continue
        used = {s.low(k) for k in range(a, b + 1) if s.word(k)}
        for c in lt.columns:
            n = c.name.lower()
            if n in used or n == "id" or n.endswith("_id") or n.endswith("id") and len(n) <= 4:
                continue
            if re.search(r"(crtd|created|updated|modified|_ts$|_at$|inserted)", n):
                continue  # audit stamps: often written in one batch, equal across tables
            rc = rt.column(c.name)
            if rc is None or str(rc.type).lower() != str(c.type).lower():
                continue
            cands.append((b, left, right, c.name))
    if not cands:
        return None
    b, left, right, col = rng.choice(cands)
    lq = next(q for q in (left,))
    return _apply(gold, [(s.end(b), s.end(b), f" AND {lq}.{col} = {right}.{col}")])




def _current_date_called_with_parens(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    if s.dialect != "postgres":
        return None
    edits = [(s.end(i), s.end(i), "()") for i in range(len(s))
             if s.low(i) in ("current_date", "current_timestamp") and s.tt(i + 1) != TokenType.L_PAREN]
    if not edits:
        return None
    return _apply(gold, edits)






def _leading_comma_in_select_list(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    """Comma-first style gone wrong: a comma also before the first output column (``SELECT , a, b``)."""
    cb = s.clause_bounds()
    if TokenType.SELECT not in cb:
        return None
    items = s.select_items()
    if not items:
        return None
    first = items[0]["a"]
    if rng.random() < 0.5:
        return _apply(gold, [(s.start(first), s.start(first), ", ")])
    edits = [(s.start(first), s.start(first), "\n  , ")]
    for it in items[1:]:
        c = it["a"] - 1
        if s.tt(c) == TokenType.COMMA:
            edits.append((s.start(c), s.start(it["a"]), "\n  , "))
    return _apply(gold, edits)


def _group_by_ordinals_include_measure(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    """``GROUP BY 1, 2, 3`` over every output column, the aggregate's position too."""
    cb = s.clause_bounds()
    if TokenType.GROUP_BY not in cb:
        return None
    g, stop = cb[TokenType.GROUP_BY]
    items = s.select_items()
    if not items or not any(s.has_agg(it["ea"], it["eb"]) for it in items):
        return None
    n = len(items)
    if n < 2 or n > 8:
        return None
    return _apply(gold, [(s.end(g), s.end(stop - 1), " " + ", ".join(str(k) for k in range(1, n + 1)))])


def _join_conditions_collected_at_end(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    """(PostgreSQL) every JOIN first, their ON conditions ANDed after the last one."""
    if s.dialect != "postgres":
        return None
    joins = s.joins()
    if len(joins) < 2 or any(j.get("kind") == "other" or not j.get("on") for j in joins):
        return None
    if any("left" in j["kind"] or "right" in j["kind"] or "full" in j["kind"] for j in joins):
        return None
    conds = []
    edits = []
    for j in joins:
        a, b = j["on"]
        conds.append(s.sql[s.start(a):s.end(b)].strip())
        edits.append((s.end(a - 2), s.end(b), ""))
    last_b = joins[-1]["on"][1]
    edits[-1] = (s.end(joins[-1]["on"][0] - 2), s.end(last_b), " ON " + " AND ".join(
        f"({c})" if re.search(r"(?i)\bor\b", c) else c for c in conds))
    return _apply(gold, edits)






def _regex_syntax_in_like_pattern(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    """A LIKE / ILIKE pattern written as a regular expression: ``LIKE '.*Science.*'``, ``'^J.*'``."""
    edits = []
    for i in range(1, len(s)):
        if s.tt(i) != TokenType.STRING:
            continue
        like_before = s.tt(i - 1) in (TokenType.LIKE, TokenType.ILIKE) or (
            s.tt(i - 1) == TokenType.L_PAREN and s.low(i - 2) in ("lower", "upper")
            and s.tt(i - 3) in (TokenType.LIKE, TokenType.ILIKE))
        if not like_before:
            continue
        pat = s.toks[i].text
        if "%" not in pat or not re.search(r"[A-Za-z0-9]", pat):
            continue
        new = pat.replace("%", ".*").replace("_", ".")
        if not pat.startswith("%") and rng.random() < 0.6:
            new = "^" + new
        if not pat.endswith("%") and rng.random() < 0.6:
            new = new + "$"
        edits.append((s.start(i), s.end(i), "'" + new.replace("'", "''") + "'"))
    if not edits:
        return None
    return _apply(gold, edits), rng.choice(("", "(pattern match ke liye wildcard lagaya hai)",
                                            "The pattern matches the term anywhere in the text."))




_PADDED = re.compile(r"^'(\d{4})-(\d{2})-(\d{2})(.*)'$")


def _unpadded_date_literal(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    if s.dialect != "sqlite":
        return None
    edits = []
    for i in range(len(s)):
        if s.tt(i) != TokenType.STRING:
            continue
        m = _PADDED.match(s.text(i))
        if m and (m.group(2).startswith("0") or m.group(3).startswith("0")):
            new = f"'{m.group(1)}-{int(m.group(2))}-{int(m.group(3))}{m.group(4)}'"
            edits.append((s.start(i), s.end(i), new))
            continue
        m2 = re.match(r"^'(\d{4}-)?0(\d)'$", s.text(i))
        if m2 and s.tt(i - 1) in _CMP and s.tt(i - 2) == TokenType.R_PAREN and \
                s.low(s.match.get(i - 2, 0) - 1) == "strftime":
            edits.append((s.start(i), s.end(i), f"'{m2.group(1) or ''}{m2.group(2)}'"))
    if not edits:
        return None
    return _apply(gold, edits)


# ---------------------------------------------------------------------------------------------------------------
# dispatch
# ---------------------------------------------------------------------------------------------------------------

_LAYOUT: dict[str, Callable[..., tuple[str, str] | None]] = {
    "fence_tag_fused_to_select": _fence_tag_fused_to_select,
    "query_as_line_array": _query_as_line_array,
    "closing_fence_only": _closing_fence_only,
    "mdx_codeblock_component": _mdx_codeblock_component,
}
_EDIT: dict[str, Callable[..., Any]] = {
    "join_on_keyword_as_where": _join_on_keyword_as_where,
    "alias_inside_aggregate_parens": _alias_inside_aggregate_parens,
    "comma_before_sort_direction": _comma_before_sort_direction,
    "compound_keyword_glued": _compound_keyword_glued,
    "identifier_broken_by_space": _identifier_broken_by_space,
    "cast_type_after_comma": _cast_type_after_comma,
    "group_keys_joined_with_and": _group_keys_joined_with_and,
    "cte_body_missing_parens": _cte_body_missing_parens,
    "in_list_values_joined_with_or": _in_list_values_joined_with_or,
    "count_distinct_without_parens": _count_distinct_without_parens,
    "hinglish_conjunction_in_where": _hinglish_conjunction_in_where,
    "output_alias_single_quoted": _output_alias_single_quoted,
    "date_trunc_bigquery_argument_order": _date_trunc_bigquery_argument_order,
    "equality_written_as_is": _equality_written_as_is,
    "ansi_typed_date_literal": _ansi_typed_date_literal,
    "literal_with_leading_space_token": _literal_with_leading_space_token,
    "cast_wraps_integer_quotient": _cast_wraps_integer_quotient,
    "case_sensitive_substring_match": _case_sensitive_substring_match,
    "unpadded_date_literal": _unpadded_date_literal,
    "regex_syntax_in_like_pattern": _regex_syntax_in_like_pattern,
    "leading_comma_in_select_list": _leading_comma_in_select_list,
    "group_by_ordinals_include_measure": _group_by_ordinals_include_measure,
    "join_conditions_collected_at_end": _join_conditions_collected_at_end,
    "ratio_condition_moved_to_where": _ratio_condition_moved_to_where,
    "join_on_extra_shared_column": _join_on_extra_shared_column,
    "current_date_called_with_parens": _current_date_called_with_parens,
}
_NOTES = {k: k.replace("_", " ") for k in _EDIT}
_NOW = re.compile(r"(?i)\b(current_date|current_timestamp|now\s*\(|getdate|sysdate)|'now'")


def damage(gold_sql: str, schema: Any, kind: str, seed: int) -> Damaged | None:
    """The whole reply for ``gold_sql`` damaged in ``kind``; None where the kind does not apply (never raises)."""
    try:
        rng = random.Random(f"fresh27|{kind}|{seed}|{gold_sql}")
        gold = gold_sql.strip()
        if not gold:
            return None
        dialect = _dialect(schema)
        if kind == "clean":
            try:
                s0: _Sql | None = _Sql(gold, dialect)
            except Exception:  # noqa: BLE001
                s0 = None
            return Damaged(kind, _reply(rng, gold, s0), "the gold query")
        s = _Sql(gold, dialect)
        if kind in _LAYOUT:
            out = _LAYOUT[kind](gold, s, schema, rng)
            if out is None:
                return None
            reply, note = out
            return Damaged(kind, reply, note)
        fn = _EDIT.get(kind)
        if fn is None:
            return None
        if FAMILY.get(kind) == "B" and _NOW.search(gold):
            return None  # rows relative to today: on a fixed data set the slip often cannot show
        res = fn(gold, s, schema, rng)
        if not res:
            return None
        sql, extra = (res, "") if isinstance(res, str) else res
        if not sql or _norm(sql) == _norm(gold):
            return None
        return Damaged(kind, _reply(rng, sql, s, extra), _NOTES[kind])
    except Exception:  # noqa: BLE001 - a kind that cannot be made for this query does not apply
        return None
