"""Held-out damage generator ``fresh26``: damaged model replies made from gold queries by text edits.

Written from the outside (the harness ``bench/recovery.py``, ``core/schema.py`` and the defog / Chinook data only),
without reading Cairn's extraction, checking or repair code. Each kind is a reply layout, a transport or tokenizer
artefact, or a slip seen from small (7B-8B) local coder models. Family A: the reply as written fails to run, or its
SQL is hard to find. Family B: the SQL runs and answers a different question. Replies are wrapped in varied prose:
English, Hindi-English (Hinglish), with typos, explaining or terse.

| kind                                           | fam | what the reply does                                                         |
|------------------------------------------------|-----|-----------------------------------------------------------------------------|
| clean                                          |  -  | the gold query, fenced, in an ordinary reply                                |
| aider_search_replace                           |  A  | an Aider edit block: file name, SEARCH / ======= / REPLACE markers          |
| llamaindex_response_repr                       |  A  | a printed LlamaIndex ``Response(...)``, the SQL in its metadata             |
| cline_execute_command                          |  A  | a Cline ``<execute_command>`` tool call running sqlite3 / psql              |
| dspy_field_markers                             |  A  | DSPy output: ``[[ ## sql_query ## ]]`` field markers, no fence              |
| telegram_markdown_v2_escapes                   |  A  | a Telegram bot's MarkdownV2 backslash escapes left in the text              |
| quoted_printable_artifacts                     |  A  | e-mail quoted-printable text: ``=3D`` for ``=``, ``=`` line breaks          |
| stream_chunk_replayed                          |  A  | one or two streamed chunks inside the query delivered twice                 |
| stream_chunk_lost                              |  A  | one or two streamed chunks inside the query lost                            |
| stream_chunks_out_of_order                     |  A  | two streamed chunks inside the query appended in the wrong order            |
| tokenizer_space_markers                        |  A  | raw tokenizer pieces: ``Ġ``/``Ċ`` (BPE) or ``▁``/``<0x0A>`` (SentencePiece) |
| one_query_per_measure                          |  A  | one separate query, in its own block, per requested aggregate               |
| python_tuple_in_list                           |  A  | a value list as a Python tuple: ``IN ('Toyota',)``, ``IN (0, 6,)``          |
| ordinals_zero_based                            |  A  | GROUP BY / ORDER BY keys as select-list positions counted from 0            |
| alias_carried_into_order_by                    |  A  | an ORDER BY key copied from the select list with its ``AS alias``           |
| comma_join_keeps_on                            |  A  | (PostgreSQL) ``JOIN t ON ...`` written as ``, t ON ...``                    |
| order_by_alias_inside_expression               |  A  | (PostgreSQL) an output alias inside an ORDER BY expression                  |
| join_clauses_out_of_order                      |  A  | (PostgreSQL) two JOINs swapped: an ON names a table joined later            |
| round_on_double_precision                      |  A  | (PostgreSQL) ``ROUND(x, 2)`` on a double precision value                    |
| distinct_sorted_by_unselected                  |  A  | (PostgreSQL) SELECT DISTINCT ordered by a column it does not select         |
| cte_shadows_its_table                          |  A  | (SQLite) filters moved into ``WITH t AS (SELECT * FROM t ...)``             |
| stray_table_in_from_list                       |  B  | an unused table listed after the FROM clause: rows multiplied               |
| join_on_copied_from_previous_join              |  B  | a JOIN's ON repeats the previous JOIN's: the table joins nothing            |
| filter_value_repeated_from_previous_condition  |  B  | a filter repeats the previous filter's value (``= 'LAX' AND = 'LAX'``)      |
| filter_column_repeated_from_previous_condition |  B  | a filter repeats the previous filter's column                               |
| select_expression_repeated                     |  B  | a named output column repeats the previous column's expression              |
| measures_from_unjoined_subqueries              |  B  | one derived table per aggregate, never joined on the group key              |
| interval_without_unit_is_seconds               |  B  | (PostgreSQL) ``INTERVAL '30'`` for 30 days: 30 seconds                      |
| sqlite_modifier_unit_unknown                   |  B  | (SQLite) ``'-2 weeks'``, ``'-1 quarter'``, ``'-30'`` modifiers: NULL        |
| strftime_arguments_swapped                     |  B  | (SQLite) ``strftime(date, fmt)`` in DATE_FORMAT's order: NULL               |
| sqlite_cast_as_date_is_a_number                |  B  | (SQLite) ``CAST(ts AS DATE)``: NUMERIC affinity, the year                   |

Interface (``bench/recovery.py``): ``DAMAGE_KINDS``, ``TREE_KINDS`` (empty: every kind edits the gold's text at
positions found with sqlglot's tokenizer), ``Damaged`` and ``damage(gold_sql, schema, kind, seed)``, deterministic per
(kind, seed, gold) and never raising (``None`` where a kind does not apply).
"""

from __future__ import annotations

import quopri
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot.tokens import TokenType

__all__ = ["DAMAGE_KINDS", "FAMILY", "TREE_KINDS", "Damaged", "damage"]

FAMILY: dict[str, str] = {
    "aider_search_replace": "A",
    "llamaindex_response_repr": "A",
    "cline_execute_command": "A",
    "dspy_field_markers": "A",
    "telegram_markdown_v2_escapes": "A",
    "quoted_printable_artifacts": "A",
    "stream_chunk_replayed": "A",
    "stream_chunk_lost": "A",
    "stream_chunks_out_of_order": "A",
    "tokenizer_space_markers": "A",
    "one_query_per_measure": "A",
    "python_tuple_in_list": "A",
    "ordinals_zero_based": "A",
    "alias_carried_into_order_by": "A",
    "comma_join_keeps_on": "A",
    "order_by_alias_inside_expression": "A",
    "join_clauses_out_of_order": "A",
    "round_on_double_precision": "A",
    "distinct_sorted_by_unselected": "A",
    "cte_shadows_its_table": "A",
    "stray_table_in_from_list": "B",
    "join_on_copied_from_previous_join": "B",
    "filter_value_repeated_from_previous_condition": "B",
    "filter_column_repeated_from_previous_condition": "B",
    "select_expression_repeated": "B",
    "measures_from_unjoined_subqueries": "B",
    "interval_without_unit_is_seconds": "B",
    "sqlite_modifier_unit_unknown": "B",
    "strftime_arguments_swapped": "B",
    "sqlite_cast_as_date_is_a_number": "B",
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


def _one_line(sql: str) -> str:
    return re.sub(r"\s*\n\s*", " ", sql.strip())


def _schema_tables(schema: Any) -> list[Any]:
    return list(getattr(schema, "tables", ()) or ())


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
    "Here's the query:", "Sure! This query should give you what you need:", "You can use the following SQL:",
    "This SQL answers the question:", "Try this one:", "Here is one way to write it:",
    "Yeh rahi aapki query:", "Bilkul! Neeche wala SQL chala ke dekhiye:", "Haan ji, yeh query try karo:",
    "Aapke sawaal ke liye query yeh hai:", "Theek hai, isse sahi result mil jayega:", "Dekho, yeh SQL kaam karega:",
    "Heres teh query:", "Sure, tihs should work:", "Here is the qurey you asked for:", "You can use the follwing SQL:",
    "Ok so the querry would be:", "Query:", "SQL:", "",
)
_OUTROS = (
    "", "", "", "Let me know if you need any changes.", "Agar kuch aur chahiye toh bataiye!",
    "Isse aapko sahi result milna chahiye.", "Hope this helps!", "You may need to adjust the filters for your data.",
    "Koi error aaye toh mujhe error message bhej dena.", "Thsi should return exactly what you asked for.",
    "Run it and check the output once.",
)


def _explain(rng: random.Random, s: _Sql | None) -> str:
    """A short sentence about the query (tables, grouping), in English or Hinglish; sometimes nothing."""
    if s is None or rng.random() < 0.45:
        return ""
    tabs = list(dict.fromkeys(s.tables().values()))
    if not tabs:
        return ""
    cb = s.clause_bounds()
    grouped = TokenType.GROUP_BY in cb
    if rng.random() < 0.5:
        out = f"It reads from `{tabs[0]}`"
        if len(tabs) > 1:
            out += " and joins " + ", ".join(f"`{t}`" for t in tabs[1:3])
        if TokenType.WHERE in cb:
            out += ", filters the rows in the WHERE clause"
        if grouped:
            out += " and aggregates per group"
        return out + "."
    out = f"Isme `{tabs[0]}` table se data liya gaya hai"
    if len(tabs) > 1:
        out += ", " + " aur ".join(f"`{t}`" for t in tabs[1:3]) + " ke saath join karke"
    if grouped:
        out += ", aur har group ke liye aggregate nikala hai"
    return out + "."


def _fence_lang(rng: random.Random, dialect: str) -> str:
    return rng.choice(("sql", "sql", "sql", "sql", "", dialect if dialect == "sqlite" else "postgresql"))


def _reply(rng: random.Random, sql: str, s: _Sql | None = None, extra: str = "") -> str:
    intro = rng.choice(_INTROS)
    lang = _fence_lang(rng, s.dialect if s is not None else "postgres")
    expl = _explain(rng, s)
    parts = [p for p in (intro, extra) if p]
    head = " ".join(parts)
    body = f"```{lang}\n{sql.strip()}\n```"
    tail = " ".join(p for p in (expl, rng.choice(_OUTROS)) if p)
    return "\n\n".join(p for p in (head, body, tail) if p)


def _slug(s: _Sql) -> str:
    tabs = list(dict.fromkeys(s.tables().values()))
    base = (tabs[0] if tabs else "query").lower()
    base = re.sub(r"[^a-z0-9]+", "_", base).strip("_") or "query"
    return base + ("_summary" if TokenType.GROUP_BY in s.clause_bounds() else "_report")


def _output_names(s: _Sql) -> list[str]:
    out = []
    for it in s.select_items():
        if it["alias"]:
            out.append(it["alias"].strip('"'))
        else:
            last = s.toks[it["eb"]]
            out.append(last.text if s.word(it["eb"]) else s.text(it["ea"], it["eb"]))
    return out


# ---------------------------------------------------------------------------------------------------------------
# family A: layouts, transport and tokenizer artefacts
# ---------------------------------------------------------------------------------------------------------------


def _aider_search_replace(gold: str, s: _Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    fname = f"{rng.choice(('queries', 'sql', 'reports', 'analysis'))}/{_slug(s)}.sql"
    first = next(iter(dict.fromkeys(s.tables().values())), "t")
    old = rng.choice(("", "", "SELECT 1;\n", "-- TODO: write the query\n", f"SELECT * FROM {first};\n"))
    intro = rng.choice((
        f"I'll put the query in a new file `{fname}`:",
        f"Here is the change for `{fname}`:",
        f"Maine query ko `{fname}` mein likh diya hai:",
        "To answer this, create the SQL file with this edit:",
        f"Let's update {fname} with teh correct query.",
    ))
    body = f"{fname}\n```sql\n<<<<<<< SEARCH\n{old}=======\n{gold.strip()}\n>>>>>>> REPLACE\n```"
    outro = rng.choice(("", "You can run it with your SQL client.", "Ab isko run karke result dekh lijiye.",
                        "Run the file against the database to see the rows."))
    return "\n\n".join(p for p in (intro, body, outro) if p), "Aider SEARCH/REPLACE edit block"


_ANSWERS = ("The query returned the rows you asked for.", "Here are the results for your question.",
            "Based on the query results, the requested values are listed below.",
            "Query ke hisaab se yeh results mile hain.", "I found the matching records in the database.")


def _llamaindex_response_repr(gold: str, s: _Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    meta: dict[str, Any] = {}
    if rng.random() < 0.5:
        meta["%08x-%04x-4%03x-a%03x-%012x" % (rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(12),
                                               rng.getrandbits(12), rng.getrandbits(48))] = {}
    meta["sql_query"] = _one_line(gold) if rng.random() < 0.7 else gold.strip()
    meta["col_keys"] = _output_names(s)
    text = f"Response(response={rng.choice(_ANSWERS)!r}, source_nodes=[], metadata={meta!r})"
    mode = rng.random()
    if mode < 0.4:
        return text, "printed LlamaIndex Response"
    intro = rng.choice(("Output:", "This is what the query engine returned:", "Engine ka output yeh hai:",
                        "Heres the response object:"))
    if mode < 0.7:
        return f"{intro}\n\n```python\n{text}\n```", "printed LlamaIndex Response in a python block"
    return f"{intro}\n{text}", "printed LlamaIndex Response after a label"


def _cline_execute_command(gold: str, s: _Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    sql = _one_line(gold).rstrip(";") + ";"
    quoted = sql.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$")
    db = getattr(schema, "database_id", "") or "app"
    db = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(db).split("/")[-1]) or "app"
    if s.dialect == "sqlite":
        flags = rng.choice(("-header -column ", "-box ", ""))
        cmd = f'sqlite3 {flags}{rng.choice(("data/", "", "./db/"))}{db}.db "{quoted}"'
    else:
        target = rng.choice(('"$DATABASE_URL"', f"-d {db}", "-h localhost -U postgres -d " + db))
        cmd = f'psql {target} -c "{quoted}"'
    think = rng.choice((
        "The user wants this answered from the database. I should run the query directly and show the output.",
        "I need to query the database. I'll use the command line client so the result is visible.",
        "User ko database se answer chahiye. Main query ko CLI se run karta hoon.",
    ))
    body = (f"<thinking>\n{think}\n</thinking>\n\n<execute_command>\n<command>{cmd}</command>\n"
            f"<requires_approval>{rng.choice(('false', 'true'))}</requires_approval>\n</execute_command>")
    return body, "Cline execute_command tool call"


def _dspy_field_markers(gold: str, s: _Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    field = rng.choice(("sql_query", "sql", "query", "sql_query"))
    reason = rng.choice((
        "We need to select the requested columns from the relevant tables and apply the conditions in the question.",
        "The question asks for an aggregate, so we group the rows and compute it.",
        "Sawaal ke hisaab se sahi tables join karke filter lagana hai.",
        "Identify teh tables, join them on their keys, then filter and aggregate.",
    ))
    sql = gold.strip() if rng.random() < 0.6 else _one_line(gold)
    body = f"[[ ## reasoning ## ]]\n{reason}\n\n[[ ## {field} ## ]]\n{sql}\n\n[[ ## completed ## ]]"
    return body, "DSPy field markers"


_TG = set("_*[]()~`>#+-=|{}.!")


def _telegram_markdown_v2_escapes(gold: str, s: _Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    reply = _reply(rng, gold, s)
    keep_fences = rng.random() < 0.5
    out = []
    i = 0
    while i < len(reply):
        if keep_fences and reply.startswith("```", i):
            out.append("```")
            i += 3
            continue
        ch = reply[i]
        out.append("\\" + ch if ch in _TG else ch)
        i += 1
    return "".join(out), "Telegram MarkdownV2 escapes left in the text"


def _quoted_printable_artifacts(gold: str, s: _Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    sql = _one_line(gold) if rng.random() < 0.6 or "=" not in gold else gold.strip()
    reply = _reply(rng, sql, s)
    enc = quopri.encodestring(reply.encode("utf-8")).decode("ascii")
    if enc.count("=") == reply.count("=") and "\n" not in sql:  # nothing encoded
        return None
    inner = enc.split("```")[1] if "```" in enc else enc
    if sql in inner:
        return None
    return enc, "quoted-printable (=3D, soft line breaks)"


_CHUNK = re.compile(r"\s*[A-Za-z_]{1,5}|\s*\d{1,3}|\s*[^\sA-Za-z_\d]|\s+")


def _chunks(sql: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _CHUNK.finditer(sql)]


def _safe_chunk(s: _Sql, sql: str, a: int, b: int) -> bool:
    piece = sql[a:b]
    if not piece.strip() or piece.strip().isdigit():
        return False
    for x, y in s.string_spans():
        if x < b and a < y:
            return False
    return True


def _stream_chunk_replayed(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    ch = _chunks(gold)
    if len(ch) < 8:
        return None
    cands = [k for k in range(max(2, len(ch) // 8), len(ch) - 1) if _safe_chunk(s, gold, *ch[k])]
    if not cands:
        return None
    k = rng.choice(cands)
    run = 1 + (rng.random() < 0.5)
    a, b = ch[k][0], ch[min(k + run, len(ch)) - 1][1]
    if not _safe_chunk(s, gold, a, b):
        b = ch[k][1]
    return gold[:b] + gold[a:b] + gold[b:]


def _stream_chunk_lost(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    ch = _chunks(gold)
    if len(ch) < 8:
        return None
    cands = []
    for k in range(max(2, len(ch) // 8), len(ch) - 1):
        a, b = ch[k]
        if not _safe_chunk(s, gold, a, b):
            continue
        piece = gold[a:b].strip()
        mid_word = (a > 0 and gold[a - 1].isalnum() and piece[:1].isalpha()) or \
                   (b < len(gold) and gold[b].isalnum() and piece[-1:].isalpha())
        if mid_word or piece in ("(", ")", ".", "=", ",", "'"):
            cands.append(k)
    if not cands:
        return None
    k = rng.choice(cands)
    a, b = ch[k]
    if rng.random() < 0.35 and k + 1 < len(ch) and _safe_chunk(s, gold, ch[k + 1][0], ch[k + 1][1]):
        b = ch[k + 1][1]
    return gold[:a] + gold[b:]


def _stream_chunks_out_of_order(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    """Two streamed chunks inside the query shown in the wrong order (a client appending deltas as they land)."""
    ch = _chunks(gold)
    if len(ch) < 8:
        return None
    cands = []
    for k in range(max(2, len(ch) // 8), len(ch) - 2):
        gap = 1 + (k % 2)
        a1, b1 = ch[k]
        a2, b2 = ch[k + gap]
        if not (_safe_chunk(s, gold, a1, b2)) or gold[a1:b1].strip() == gold[a2:b2].strip():
            continue
        cands.append((a1, b1, a2, b2))
    if not cands:
        return None
    a1, b1, a2, b2 = rng.choice(cands)
    return gold[:a1] + gold[a2:b2] + gold[b1:a2] + gold[a1:b1] + gold[b2:]


def _tokenizer_space_markers(gold: str, s: _Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    reply = _reply(rng, gold, s)
    style = rng.choice(("bpe", "bpe", "sp", "sp_bytes"))
    if style == "bpe":
        out = reply.replace(" ", "Ġ")
        if rng.random() < 0.6:
            out = out.replace("\n", "Ċ")
        return out, "byte-level BPE pieces (Ġ, Ċ)"
    out = reply.replace(" ", "▁")
    if style == "sp_bytes":
        out = out.replace("\n", "<0x0A>")
    return out, "SentencePiece pieces (▁" + (", <0x0A>)" if style == "sp_bytes" else ")")


def _one_query_per_measure(gold: str, s: _Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    items = s.select_items()
    if not items:
        return None
    meas = [it for it in items if s.has_agg(it["ea"], it["eb"]) and not s.has_window(it["ea"], it["eb"])]
    if len(meas) < 2:
        return None
    keep = [it for it in items if it not in meas]
    cb = s.clause_bounds()
    sel_i, _ = cb[TokenType.SELECT]
    head = gold[:s.start(items[0]["a"])]
    from_i = cb[TokenType.FROM][0] if TokenType.FROM in cb else None
    if from_i is None:
        return None
    rest = gold[s.start(from_i):].rstrip().rstrip(";").rstrip()
    order = cb.get(TokenType.ORDER_BY)
    names = {(it["alias"] or "").lower(): it for it in meas if it["alias"]}
    queries = []
    for m in meas:
        r = rest
        if order is not None:
            o_a, o_b = order
            otext = gold[s.start(o_a):s.end(o_b - 1)]
            new = otext
            for al, it in names.items():
                if it is m or not al:
                    continue
                own = m["alias"] or gold[s.start(m["ea"]):s.end(m["eb"])]
                new = re.sub(rf"\b{re.escape(it['alias'])}\b", own, new)
            r = r.replace(otext, new, 1)
        cols = [gold[s.start(it["a"]):s.end(it["b"])] for it in keep] + [gold[s.start(m["a"]):s.end(m["b"])]]
        queries.append((m, f"{head}{', '.join(cols)} {r}"))
    intro = rng.choice(("The question asks for several numbers, so here is one query for each:",
                        "It is easier to compute each value separately:",
                        "Do alag values chahiye, toh har ek ke liye alag query:",
                        "You can get each metric with its own query:"))
    parts = [intro]
    for n, (m, q) in enumerate(queries, 1):
        label = m["alias"] or f"value {n}"
        parts.append(f"{n}. {label}:\n\n```sql\n{q.strip()}\n```")
    parts.append(rng.choice(("", "Run them one after the other.", "Dono ko chala ke results combine kar lijiye.")))
    return "\n\n".join(p for p in parts if p), "one query per requested aggregate"


# ---------------------------------------------------------------------------------------------------------------
# family A: syntax and dialect slips
# ---------------------------------------------------------------------------------------------------------------


def _python_tuple_in_list(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    edits = []
    for i in range(1, len(s) - 1):
        if s.tt(i) == TokenType.EQ and s.tt(i + 1) in (TokenType.STRING, TokenType.NUMBER) \
                and s.tt(i + 2) not in (TokenType.DOT, TokenType.L_PAREN) and s.word(i - 1) \
                and _cond_clause(s, i) in (TokenType.WHERE, TokenType.HAVING):
            edits.append((s.start(i), s.end(i + 1), f"IN ({s.text(i + 1)},)"))
        elif s.tt(i) == TokenType.IN and s.tt(i + 1) == TokenType.L_PAREN and s.tt(i + 2) != TokenType.SELECT:
            close = s.match[i + 1]
            edits.append((s.end(close - 1), s.end(close - 1), ","))
    if not edits:
        return None
    rng.shuffle(edits)
    pick = sorted(edits[:max(1, len(edits) // 2 + (rng.random() < 0.5))])
    return _apply(gold, pick)


def _cond_clause(s: _Sql, i: int) -> Any:
    lvl = s.level[i]
    for j in range(i - 1, -1, -1):
        if s.level[j] != lvl:
            continue
        if s.tt(j) in (TokenType.WHERE, TokenType.HAVING, TokenType.ON, TokenType.WHEN, TokenType.SELECT,
                       TokenType.JOIN, TokenType.FROM, TokenType.GROUP_BY, TokenType.ORDER_BY):
            return s.tt(j)
    return None


def _keys(s: _Sql, clause: Any) -> list[tuple[int, int, int, int]]:
    """(item a, item b, expression a, expression b) of the GROUP BY / ORDER BY keys of the main query."""
    cb = s.clause_bounds()
    if clause not in cb:
        return []
    i, stop = cb[clause]
    out = []
    for a, b in s.split_commas(i + 1, stop):
        eb = b
        while eb > a and (s.tt(eb) in (TokenType.DESC, TokenType.ASC) or s.low(eb) in ("nulls", "first", "last")):
            eb -= 1
        out.append((a, b, a, eb))
    return out


def _match_item(s: _Sql, items: list[dict[str, Any]], ea: int, eb: int) -> int | None:
    text = _norm(s.text(ea, eb))
    for n, it in enumerate(items):
        if it["alias"] and ea == eb and s.low(ea) == it["alias"].lower().strip('"'):
            return n
    for n, it in enumerate(items):
        if _norm(s.text(it["ea"], it["eb"])) == text:
            return n
    if ea + 2 == eb and s.tt(ea + 1) == TokenType.DOT:  # t.col against a bare col in the select list
        for n, it in enumerate(items):
            if it["ea"] == it["eb"] and s.low(it["ea"]) == s.low(eb):
                return n
    return None


def _ordinals_zero_based(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    items = s.select_items()
    if len(items) < 1:
        return None
    edits, zero = [], False
    for clause in (TokenType.GROUP_BY, TokenType.ORDER_BY):
        for a, b, ea, eb in _keys(s, clause):
            if s.tt(ea) == TokenType.NUMBER and ea == eb:
                n = int(s.toks[ea].text) - 1
                edits.append((s.start(ea), s.end(eb), str(n)))
                zero |= n == 0
                continue
            n = _match_item(s, items, ea, eb)
            if n is None:
                continue
            edits.append((s.start(ea), s.end(eb), str(n)))
            zero |= n == 0
    if not edits or not zero:
        return None
    return _apply(gold, edits)


def _alias_carried_into_order_by(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    items = s.select_items()
    cands = []
    for clause in (TokenType.ORDER_BY,):
        for a, b, ea, eb in _keys(s, clause):
            if ea != eb:
                continue
            for it in items:
                if it["alias"] and s.low(ea) == it["alias"].lower() and it["ea"] != it["eb"]:
                    expr = s.text(it["ea"], it["eb"])
                    cands.append((s.start(ea), s.end(eb), f"{expr} AS {it['alias']}"))
    if not cands:
        return None
    return _apply(gold, [rng.choice(cands)])


def _comma_join_keeps_on(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    if s.dialect != "postgres":
        return None
    cands = []
    for lvl in sorted(set(s.level)):
        for j in s.joins(lvl):
            if j.get("on") and j["kind"] in ("join", "inner join"):
                ka, kb = j["kw"]
                cands.append((s.start(ka), s.end(kb), ","))
    if not cands:
        return None
    a, b, r = rng.choice(cands)
    return _apply(gold, [(a, b, r)]).replace(" , ", ", ")


def _order_by_alias_inside_expression(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    if s.dialect != "postgres":
        return None
    items = s.select_items()
    inputs = _input_columns(schema, s)
    for a, b, ea, eb in _keys(s, TokenType.ORDER_BY):
        if ea != eb or not s.word(ea):
            continue
        for it in items:
            al = (it["alias"] or "").strip('"')
            if not al or s.low(ea) != al.lower() or al.lower() in inputs:
                continue
            a_txt = s.text(ea)
            lows = {s.low(k) for k in range(it["ea"], it["eb"] + 1)}
            if lows & {"date_trunc", "to_char", "date", "extract", "date_part", "to_date", "to_timestamp"}:
                wrap = rng.choice((f"{a_txt}::date", f"DATE({a_txt})", f"CAST({a_txt} AS DATE)"))
            elif s.has_agg(it["ea"], it["eb"]) or any(
                    s.tt(k) in (TokenType.SLASH, TokenType.DASH, TokenType.PLUS, TokenType.STAR)
                    for k in range(it["ea"], it["eb"] + 1)):
                wrap = rng.choice((f"COALESCE({a_txt}, 0)", f"ROUND({a_txt}, 2)", f"ABS({a_txt})"))
            else:
                wrap = rng.choice((f"LOWER({a_txt})", f"TRIM({a_txt})"))
            return _apply(gold, [(s.start(ea), s.end(ea), wrap)])
    return None


def _join_clauses_out_of_order(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    if s.dialect != "postgres":
        return None
    cands = []
    for lvl in sorted(set(s.level)):
        js = s.joins(lvl)
        for n in range(len(js) - 1):
            j1, j2 = js[n], js[n + 1]
            if not (j1.get("on") and j2.get("on")) or j1["kind"] not in ("join", "inner join") \
                    or j2["kind"] not in ("join", "inner join"):
                continue
            name1 = (j1["alias"] or j1["table"]).lower()
            if name1 not in s.qualifiers(j2["on"][0], j2["on"][1] + 1):
                continue
            cands.append((j1, j2))
    if not cands:
        return None
    j1, j2 = rng.choice(cands)
    t1 = gold[s.start(j1["a"]):s.end(j1["b"])]
    t2 = gold[s.start(j2["a"]):s.end(j2["b"])]
    return gold[:s.start(j1["a"])] + t2 + gold[s.end(j1["b"]):s.start(j2["a"])] + t1 + gold[s.end(j2["b"]):]


_FLOAT_T = ("double precision", "real", "float", "float8", "float4", "double")


def _is_float_expr(s: _Sql, schema: Any, a: int, b: int) -> bool:
    for k in range(a, b + 1):
        if s.tt(k) == TokenType.ALIAS and s.low(k + 1) in ("float", "double", "real") or \
                s.tt(k) in (TokenType.DOUBLE, TokenType.FLOAT) and s.tt(k - 1) in (TokenType.ALIAS, TokenType.DCOLON):
            return True
        if s.low(k) in ("avg", "sum", "min", "max") and s.tt(k + 1) == TokenType.L_PAREN:
            close = s.match[k + 1]
            if close == k + 3 and s.word(k + 2):
                t = _col_type(schema, s, None, s.toks[k + 2].text)
            elif close == k + 5 and s.word(k + 2) and s.tt(k + 3) == TokenType.DOT and s.word(k + 4):
                t = _col_type(schema, s, s.toks[k + 2].text, s.toks[k + 4].text)
            else:
                continue
            if t in _FLOAT_T:
                return True
    return False


def _round_on_double_precision(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    if s.dialect != "postgres":
        return None
    items = s.select_items()
    cands = [it for it in items if _is_float_expr(s, schema, it["ea"], it["eb"])
             and not (s.low(it["ea"]) == "round" and s.match.get(it["ea"] + 1) == it["eb"])]
    if not cands:
        return None
    it = rng.choice(cands)
    expr = s.text(it["ea"], it["eb"])
    new = f"ROUND({expr}, {rng.choice((2, 2, 1, 3))})"
    if not it["alias"] and rng.random() < 0.5:
        new += " AS " + rng.choice(("value", "result", "rounded_value"))
    return _apply(gold, [(s.start(it["ea"]), s.end(it["eb"]), new)])


def _distinct_sorted_by_unselected(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    """(PostgreSQL) SELECT DISTINCT sorted by a column it does not select: an error there."""
    if s.dialect != "postgres":
        return None
    cb = s.clause_bounds()
    sel = cb.get(TokenType.SELECT)
    if sel is None or s.tt(sel[0] + 1) != TokenType.DISTINCT or s.low(sel[0] + 2) == "on" or TokenType.FROM not in cb:
        return None
    items = s.select_items()
    chosen = {s.low(it["eb"]) for it in items} | {(it["alias"] or "").lower() for it in items}
    tabs = s.tables()
    cands = []
    for qual, tname in tabs.items():
        if qual == tname.lower() and any(v == tname and k != qual for k, v in tabs.items()):
            continue  # the table has an alias: use that
        t = _schema_table(schema, tname)
        if t is None:
            continue
        for c in t.columns:
            n = c.name.lower()
            if n in chosen:
                continue
            score = 2 if re.search(r"date|_at$|_dt$|time|year|name|rating|price|amount", n) else 1
            cands.append((score, f"{qual}.{c.name}" if len(tabs) > 1 or qual != tname.lower() else c.name))
    if not cands:
        return None
    best = max(x[0] for x in cands)
    col = rng.choice(sorted(c for sc, c in cands if sc == best))
    key = f"{col} {rng.choice(('DESC', 'ASC', 'DESC'))}"
    if TokenType.ORDER_BY in cb:
        o, oend = cb[TokenType.ORDER_BY]
        end_c = s.end(oend - 1)
        return gold[:s.end(o)] + " " + key + gold[end_c:] if rng.random() < 0.5 else \
            gold[:s.end(o)] + " " + key + "," + gold[s.end(o):]
    pos = s.start(cb[TokenType.LIMIT][0]) if TokenType.LIMIT in cb else len(gold.rstrip().rstrip(";").rstrip())
    return gold[:pos].rstrip() + f" ORDER BY {key} " + gold[pos:].lstrip()


def _split_terms(s: _Sql, a: int, b: int) -> list[tuple[int, int]] | None:
    """AND-joined terms of tokens a..b-1 (same level); None when an OR joins them at that level."""
    lvl = s.level[a]
    terms, cur, between = [], a, False
    for i in range(a, b):
        if s.level[i] != lvl:
            continue
        if s.tt(i) == TokenType.OR:
            return None
        if s.tt(i) == TokenType.BETWEEN:
            between = True
        elif s.tt(i) == TokenType.AND:
            if between:
                between = False
                continue
            terms.append((cur, i - 1))
            cur = i + 1
    terms.append((cur, b - 1))
    return [t for t in terms if t[0] <= t[1]]


def _cte_shadows_its_table(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    """(SQLite) the filters on the first table moved into a CTE named like that table: SQLite reports a circular
    reference (PostgreSQL would read the inner name as the real table)."""
    if s.dialect != "sqlite" or s.tt(0) == TokenType.WITH:
        return None
    cb = s.clause_bounds()
    if TokenType.FROM not in cb or TokenType.WHERE not in cb:
        return None
    f, _ = cb[TokenType.FROM]
    if not s.word(f + 1) or s.tt(f + 2) in (TokenType.DOT, TokenType.L_PAREN):
        return None
    table = s.toks[f + 1].text
    k = f + 2
    if s.tt(k) == TokenType.ALIAS:
        k += 1
    alias = s.toks[k].text if s.word(k) and s.tt(k) not in _CLAUSE | _JOIN_START \
        and s.low(k) not in _NOT_ALIAS else None
    own = {table.lower()} | ({alias.lower()} if alias else set())
    multi = len(set(v.lower() for v in s.tables().values())) > 1
    w, wend = cb[TokenType.WHERE]
    terms = _split_terms(s, w + 1, wend)
    if not terms:
        return None
    t_obj = _schema_table(schema, table)
    cols = {c.name.lower() for c in t_obj.columns} if t_obj is not None else set()
    move = []
    for a, b in terms:
        quals = s.qualifiers(a, b + 1)
        if any(s.tt(x) == TokenType.SELECT for x in range(a, b + 1)):
            continue
        if quals and quals <= own:
            move.append((a, b))
        elif not quals and (not multi or all(s.low(x) in cols for x in range(a, b + 1) if s.word(x)
                                               and s.tt(x + 1) != TokenType.L_PAREN and s.tt(x) == TokenType.VAR)):
            move.append((a, b))
    if not move:
        return None
    conds = " AND ".join(s.text(a, b) for a, b in move)
    alias_txt = f" {alias}" if alias else ""
    cte = f"WITH {table} AS (SELECT * FROM {table}{alias_txt} WHERE {conds})\n"
    keep = [t for t in terms if t not in move]
    if keep:
        new_where = "WHERE " + " AND ".join(s.text(a, b) for a, b in keep) + " "
    else:
        new_where = ""
    end_char = s.start(wend) if wend < len(s) else len(gold)
    body = gold[:s.start(w)] + new_where + gold[end_char:]
    if not keep and wend >= len(s):
        body = gold[:s.start(w)].rstrip()
    return cte + body.strip()


# ---------------------------------------------------------------------------------------------------------------
# family B: the SQL runs and answers a different question
# ---------------------------------------------------------------------------------------------------------------


def _unqualified_words(s: _Sql) -> set[str]:
    out = set()
    for i in range(len(s)):
        if s.tt(i) == TokenType.VAR and s.tt(i - 1) != TokenType.DOT and s.tt(i + 1) not in (TokenType.DOT,
                                                                                             TokenType.L_PAREN):
            out.add(s.low(i))
    return out


def _stray_table_in_from_list(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    cb = s.clause_bounds()
    if TokenType.FROM not in cb or TokenType.SELECT not in cb:
        return None
    sel, _ = cb[TokenType.SELECT]
    if s.tt(sel + 1) == TokenType.DISTINCT:
        return None
    items = s.select_items()
    if not items:
        return None
    lows = [s.low(i) for i in range(sel, cb[TokenType.FROM][0])]
    dup_sensitive = any(s.low(i) in ("count", "sum") and s.tt(i + 1) == TokenType.L_PAREN
                        and s.tt(i + 2) != TokenType.DISTINCT for i in range(sel, cb[TokenType.FROM][0]))
    aggs = any(x in _AGGS for x in lows)
    limit = cb.get(TokenType.LIMIT)
    if aggs and not dup_sensitive:
        return None
    if not aggs and TokenType.GROUP_BY in cb:
        return None
    if not aggs and limit is not None and s.text(limit[0] + 1) == "1":
        return None
    if dup_sensitive and any(s.tt(i) == TokenType.SLASH for i in range(sel, cb[TokenType.FROM][0])) and \
            not any(s.low(i) == "sum" for i in range(sel, cb[TokenType.FROM][0])):
        return None  # a ratio of two counts keeps its value
    used = {v.lower() for v in s.tables().values()}
    words = _unqualified_words(s)
    cands = []
    for t in _schema_tables(schema):
        if t.name.lower() in used or t.qualified_name.lower() in used:
            continue
        if {c.name.lower() for c in t.columns} & words:
            continue
        cands.append(t)
    if not cands:
        return None
    t = rng.choice(sorted(cands, key=lambda x: x.qualified_name))
    taken = set(s.tables())
    alias = next((a for a in (t.name[:1].lower(), t.name[:2].lower(), t.name[:3].lower(), "x", "t2", "extra")
                  if a not in taken and a not in _NOT_ALIAS and a not in ("as", "on", "by", "if", "in", "is", "or")),
                 None)
    if alias is None:
        return None
    _, fend = cb[TokenType.FROM]
    pos = s.end(fend - 1)
    return gold[:pos] + f", {t.qualified_name} {alias}" + gold[pos:]


def _strftime_arguments_swapped(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    """SQLite ``strftime(fmt, date)`` written in MySQL's ``DATE_FORMAT(date, fmt)`` order: the value is NULL."""
    if s.dialect != "sqlite":
        return None
    edits = []
    for i in range(len(s) - 3):
        if s.low(i) == "strftime" and s.tt(i + 1) == TokenType.L_PAREN and s.tt(i + 2) == TokenType.STRING \
                and "%" in s.toks[i + 2].text:
            close = s.match[i + 1]
            args = s.split_commas(i + 2, close)
            if len(args) >= 2:
                (a1, b1), (a2, b2) = args[0], args[1]
                edits.append((s.start(a1), s.end(b2), f"{s.text(a2, b2)}, {s.text(a1, b1)}"))
    if not edits:
        return None
    return _apply(gold, edits)


_UNITS = ("day", "days", "month", "months", "year", "years", "week", "weeks", "hour", "hours")


def _interval_without_unit_is_seconds(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    """(PostgreSQL) a day window written ``INTERVAL '30'``: an interval without a unit is 30 seconds."""
    if s.dialect != "postgres":
        return None
    edits = []
    for i in range(len(s) - 1):
        if s.tt(i) != TokenType.INTERVAL or s.tt(i + 1) != TokenType.STRING:
            continue
        m = re.fullmatch(r"\s*(\d+)\s*([a-z]+)?\s*", s.toks[i + 1].text.lower())
        if not m:
            continue
        if m.group(2):
            if m.group(2) not in _UNITS:
                continue
            edits.append((s.start(i + 1), s.end(i + 1), f"'{m.group(1)}'"))
        elif s.low(i + 2) in _UNITS:
            edits.append((s.end(i + 1), s.end(i + 2), ""))
    if not edits:
        return None
    return _apply(gold, edits)


def _sqlite_modifier_unit_unknown(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    """(SQLite) a date modifier with a unit SQLite does not know (``'-2 weeks'``, ``'-1 quarter'``) or none at all
    (``'-30'``): the date function returns NULL and the filter keeps nothing."""
    if s.dialect != "sqlite":
        return None
    edits = []
    for i in range(len(s) - 3):
        if s.low(i) not in ("date", "datetime", "julianday", "strftime") or s.tt(i + 1) != TokenType.L_PAREN:
            continue
        close = s.match[i + 1]
        for k in range(i + 2, close):
            if s.tt(k) != TokenType.STRING or s.level[k] != i + 1:
                continue
            m = re.fullmatch(r"\s*([+-])\s*(\d+)\s+(days?|months?|years?)\s*", s.toks[k].text.lower())
            if not m:
                continue
            sign, n, unit = m.group(1), int(m.group(2)), m.group(3)
            if unit.startswith("day") and n % 7 == 0:
                w = n // 7
                new = f"'{sign}{w} week{'s' if w > 1 else ''}'"
            elif unit.startswith("month") and n % 3 == 0:
                q = n // 3
                new = f"'{sign}{q} quarter{'s' if q > 1 else ''}'"
            else:
                new = f"'{sign}{n}'"
            edits.append((s.start(k), s.end(k), new))
    if not edits:
        return None
    return _apply(gold, edits)


_DATE_LIT = re.compile(r"^\d{4}-\d{2}-\d{2}")


def _colref_before(s: _Sql, i: int) -> tuple[int, int] | None:
    """(first, last) token of a column reference ending just before token i."""
    j = i - 1
    if not s.word(j) or s.tt(j) not in (TokenType.VAR, TokenType.IDENTIFIER):
        return None
    a = j
    while s.tt(a - 1) == TokenType.DOT and s.word(a - 2):
        a -= 2
    if s.tt(a - 1) == TokenType.DOT:
        return None
    return a, j


def _sqlite_cast_as_date_is_a_number(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    """A PostgreSQL-style ``CAST(col AS DATE)`` in SQLite: NUMERIC affinity, the value becomes the year (2023)."""
    if s.dialect != "sqlite":
        return None
    edits = []
    for i in range(len(s) - 2):
        if s.low(i) == "date" and s.tt(i + 1) == TokenType.L_PAREN and s.match.get(i + 1, 0) > i + 2:
            close = s.match[i + 1]
            inner = list(range(i + 2, close))
            if inner and all(s.word(k) or s.tt(k) == TokenType.DOT for k in inner) and s.tt(i + 2) != TokenType.STRING:
                edits.append((s.start(i), s.end(close), f"CAST({s.text(i + 2, close - 1)} AS DATE)"))
                continue
        if s.tt(i) in (TokenType.GT, TokenType.GTE, TokenType.LT, TokenType.LTE, TokenType.BETWEEN):
            ref = _colref_before(s, i)
            if ref is None:
                continue
            rhs = i + 1
            dateish = (s.tt(rhs) == TokenType.STRING and _DATE_LIT.match(s.toks[rhs].text)) or \
                (s.low(rhs) in ("date", "datetime") and s.tt(rhs + 1) == TokenType.L_PAREN)
            if dateish:
                a, b = ref
                edits.append((s.start(a), s.end(b), f"CAST({s.text(a, b)} AS DATE)"))
    if not edits:
        return None
    edits = sorted(set(edits))
    out, last = [], -1
    for e in edits:
        if e[0] >= last:
            out.append(e)
            last = e[1]
    return _apply(gold, out)


_CMP = {TokenType.GT, TokenType.GTE, TokenType.LT, TokenType.LTE, TokenType.EQ, TokenType.NEQ}




def _literal_conditions(s: _Sql) -> list[tuple[int, Any]]:
    """Literal operands of the filters, in text order: (token index, kind) for ``<expr> <op> literal``, LIKE
    patterns, IN-list values and BETWEEN bounds (not CASE results, LIMITs or function arguments)."""
    out = []
    for i in range(1, len(s)):
        t = s.tt(i)
        if t not in (TokenType.STRING, TokenType.NUMBER):
            continue
        prev = s.tt(i - 1)
        if prev in _CMP | {TokenType.LIKE, TokenType.ILIKE}:
            out.append((i, t))
        elif prev == TokenType.BETWEEN or (prev == TokenType.AND and any(
                s.tt(k) == TokenType.BETWEEN and s.level[k] == s.level[i] for k in range(max(0, i - 4), i - 1))):
            out.append((i, t))
        elif prev in (TokenType.L_PAREN, TokenType.COMMA) and s.level[i] >= 0 and s.tt(s.level[i] - 1) == TokenType.IN:
            out.append((i, t))
    return out


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


def _filter_value_repeated_from_previous_condition(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    """A copy slip: a filter's value repeats the previous filter's (``from = 'LAX' AND to = 'LAX'``,
    ``d >= x AND d < x``)."""
    lits = _literal_conditions(s)
    pairs = []
    for (i, ti), (j, tj) in zip(lits, lits[1:]):
        if ti != tj or s.toks[i].text == s.toks[j].text or j - i >= 40 or _owner(s, i) != _owner(s, j):
            continue
        in_list = s.level[j] >= 0 and s.tt(s.level[j] - 1) == TokenType.IN
        if in_list or any(s.tt(k) == TokenType.OR for k in range(i, j)):
            continue  # an alternative of an OR / IN list repeated: often the same rows
        pairs.append((i, j))
    edits = [(s.start(j), s.end(j), s.text(i)) for i, j in pairs]
    for w in range(len(s)):  # a range's second bound repeating the first: col >= x AND col < x
        if s.tt(w) not in (TokenType.WHERE, TokenType.HAVING):
            continue
        lvl = s.level[w]
        stop = next((k for k in range(w + 1, len(s)) if s.level[k] == lvl and s.tt(k) in _CLAUSE), s.level_end_tok(lvl))
        terms = _split_terms(s, w + 1, stop) or []
        for (a1, b1), (a2, b2) in zip(terms, terms[1:]):
            k1 = next((k for k in range(a1, b1 + 1) if s.level[k] == lvl and s.tt(k) in _CMP), None)
            k2 = next((k for k in range(a2, b2 + 1) if s.level[k] == lvl and s.tt(k) in _CMP), None)
            if k1 is None or k2 is None or _norm(s.text(a1, k1 - 1)) != _norm(s.text(a2, k2 - 1)):
                continue
            r1, r2 = s.text(k1 + 1, b1), s.text(k2 + 1, b2)
            if _norm(r1) != _norm(r2) and s.tt(k1) != s.tt(k2):
                edits.append((s.start(k2 + 1), s.end(b2), r1))
    if not edits:
        return None
    return _apply(gold, [rng.choice(edits)])


def _filter_column_repeated_from_previous_condition(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    """A copy slip: a filter names the previous filter's column again (``gender = 'Female' AND gender = 'private'``,
    ``start_dt >= x AND start_dt <= y`` for ``end_dt``); AND-joined filters only, the column also inside
    ``LOWER(...)`` and the like."""
    ops = _CMP | {TokenType.LIKE, TokenType.ILIKE, TokenType.BETWEEN, TokenType.IN, TokenType.IS}
    refs: list[tuple[Any, int, int, Any]] = []
    for i in range(1, len(s)):
        if s.tt(i) not in ops or (s.tt(i) == TokenType.IN and s.tt(i + 1) == TokenType.L_PAREN
                                  and s.tt(i + 2) == TokenType.SELECT):
            continue
        owner = _owner(s, i)
        if owner is None or owner[1] not in (TokenType.WHERE, TokenType.HAVING):
            continue
        j = i - 1
        if s.tt(j) == TokenType.NOT:
            j -= 1
        if s.tt(j) == TokenType.R_PAREN:  # LOWER(col) LIKE ...: the column inside the call
            o = s.match[j]
            if not (s.word(o - 1) and s.low(o - 1) in ("lower", "upper", "trim", "date", "strftime", "coalesce")):
                continue
            j = j - 1
            while j > o and s.tt(j) != TokenType.COMMA and not s.word(j):
                j -= 1
        ref = _colref_before(s, j + 1)
        if ref is None or s.tt(ref[0] - 1) == TokenType.L_PAREN and s.tt(i - 1) != TokenType.R_PAREN \
                and s.tt(ref[0] - 2) not in (TokenType.WHERE, TokenType.AND, TokenType.OR, TokenType.NOT):
            continue
        r = i + 1
        while s.tt(r) in (TokenType.NOT, TokenType.L_PAREN):
            r += 1
        rhs = s.tt(r) if s.tt(r) in (TokenType.STRING, TokenType.NUMBER, TokenType.NULL) else "expr"
        kind = "range" if s.tt(i) in (TokenType.GT, TokenType.GTE, TokenType.LT, TokenType.LTE, TokenType.BETWEEN) \
            else "match"
        refs.append((owner, ref[0], ref[1], (kind, rhs)))
    cands = []
    for (o1, a1, b1, k1), (o2, a2, b2, k2) in zip(refs, refs[1:]):
        if o1 != o2 or _norm(s.text(a1, b1)) == _norm(s.text(a2, b2)):
            continue
        if any(s.tt(k) == TokenType.OR for k in range(b1, a2)):
            continue  # alternatives of an OR: repeating one often keeps the rows
        cands.append((s.start(a2), s.end(b2), s.text(a1, b1)))
    if not cands:
        return None
    return _apply(gold, [rng.choice(cands)])


def _join_on_copied_from_previous_join(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    """A copy slip: a JOIN's ON condition repeats the previous JOIN's, so the new table is joined to nothing."""
    cands = []
    for lvl in sorted(set(s.level)):
        js = [j for j in s.joins(lvl) if j.get("on")]
        for n in range(1, len(js)):
            a0, b0 = js[n - 1]["on"]
            a1, b1 = js[n]["on"]
            if _norm(s.text(a0, b0)) != _norm(s.text(a1, b1)):
                cands.append((s.text(a0, b0), s.start(a1), s.end(b1)))
    if not cands:
        return None
    text, a, b = rng.choice(cands)
    return _apply(gold, [(a, b, text)])


def _measures(s: _Sql) -> list[dict[str, Any]]:
    return [it for it in s.select_items() if s.has_agg(it["ea"], it["eb"]) and not s.has_window(it["ea"], it["eb"])]


def _bare(s: _Sql, it: dict[str, Any]) -> bool:
    """The select item is a plain (possibly qualified) column."""
    a, b = it["ea"], it["eb"]
    return all(s.word(k) if (k - a) % 2 == 0 else s.tt(k) == TokenType.DOT for k in range(a, b + 1))


def _select_expression_repeated(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    """A copy slip in the select list: a named column repeats the previous column's expression under its own name."""
    items = s.select_items()
    pairs = [(x, y) for x, y in zip(items, items[1:]) if y["alias"] and y["alias_tok"] is not None
             and _norm(s.text(x["ea"], x["eb"])) != _norm(s.text(y["ea"], y["eb"]))
             and s.has_agg(x["ea"], x["eb"]) == s.has_agg(y["ea"], y["eb"]) and _bare(s, x) == _bare(s, y)]
    if not pairs:
        return None
    x, y = rng.choice(pairs)
    return _apply(gold, [(s.start(y["ea"]), s.end(y["eb"]), s.text(x["ea"], x["eb"]))])


def _measures_from_unjoined_subqueries(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    """Each per-group aggregate computed in its own derived table, the derived tables listed with a comma and never
    joined on the group key: every group meets every other group."""
    cb = s.clause_bounds()
    if TokenType.GROUP_BY not in cb or TokenType.FROM not in cb:
        return None
    items = s.select_items()
    ms = _measures(s)
    if len(ms) < 2:
        return None
    keys = [it for it in items if it not in ms]
    if not keys:
        return None
    sel = cb[TokenType.SELECT][0]
    head = gold[:s.start(sel)]
    f = cb[TokenType.FROM][0]
    stop = min(cb[c][0] for c in (TokenType.ORDER_BY, TokenType.LIMIT) if c in cb) if \
        (TokenType.ORDER_BY in cb or TokenType.LIMIT in cb) else cb[TokenType.GROUP_BY][1]
    if TokenType.HAVING in cb and cb[TokenType.HAVING][0] > stop:
        return None
    body = gold[s.start(f):s.start(stop) if stop < len(s) else len(gold)].rstrip().rstrip(";").rstrip()
    knames = []
    kcols = []
    for n, it in enumerate(keys):
        if it["alias"]:
            name = it["alias"]
            kcols.append(s.text(it["a"], it["b"]))
        elif s.word(it["eb"]):
            name = s.toks[it["eb"]].text
            kcols.append(s.text(it["a"], it["b"]))
        else:
            name = f"k{n + 1}"
            kcols.append(f"{s.text(it['ea'], it['eb'])} AS {name}")
        knames.append(name)
    subs, outer = [], []
    letters = ("a", "b", "c", "d")
    for n, m in enumerate(ms[:4]):
        mname = m["alias"] or f"m{n + 1}"
        mcol = s.text(m["a"], m["b"]) if m["alias"] else f"{s.text(m['ea'], m['eb'])} AS {mname}"
        subs.append(f"(SELECT {', '.join(kcols + [mcol])} {body}) {letters[n]}")
        outer.append(f"{letters[n]}.{mname}")
    cols = [f"a.{k}" for k in knames] + outer
    sep = ",\n     "
    return f"{head}SELECT {', '.join(cols)}\nFROM {sep.join(subs)}"






# ---------------------------------------------------------------------------------------------------------------
# dispatch
# ---------------------------------------------------------------------------------------------------------------

_LAYOUT: dict[str, Callable[..., tuple[str, str] | None]] = {
    "aider_search_replace": _aider_search_replace,
    "llamaindex_response_repr": _llamaindex_response_repr,
    "cline_execute_command": _cline_execute_command,
    "dspy_field_markers": _dspy_field_markers,
    "telegram_markdown_v2_escapes": _telegram_markdown_v2_escapes,
    "quoted_printable_artifacts": _quoted_printable_artifacts,
    "tokenizer_space_markers": _tokenizer_space_markers,
    "one_query_per_measure": _one_query_per_measure,
}
_EDIT: dict[str, Callable[..., Any]] = {
    "stream_chunk_replayed": _stream_chunk_replayed,
    "stream_chunk_lost": _stream_chunk_lost,
    "stream_chunks_out_of_order": _stream_chunks_out_of_order,
    "python_tuple_in_list": _python_tuple_in_list,
    "ordinals_zero_based": _ordinals_zero_based,
    "alias_carried_into_order_by": _alias_carried_into_order_by,
    "comma_join_keeps_on": _comma_join_keeps_on,
    "order_by_alias_inside_expression": _order_by_alias_inside_expression,
    "join_clauses_out_of_order": _join_clauses_out_of_order,
    "round_on_double_precision": _round_on_double_precision,
    "distinct_sorted_by_unselected": _distinct_sorted_by_unselected,
    "cte_shadows_its_table": _cte_shadows_its_table,
    "stray_table_in_from_list": _stray_table_in_from_list,
    "join_on_copied_from_previous_join": _join_on_copied_from_previous_join,
    "filter_value_repeated_from_previous_condition": _filter_value_repeated_from_previous_condition,
    "filter_column_repeated_from_previous_condition": _filter_column_repeated_from_previous_condition,
    "select_expression_repeated": _select_expression_repeated,
    "measures_from_unjoined_subqueries": _measures_from_unjoined_subqueries,
    "interval_without_unit_is_seconds": _interval_without_unit_is_seconds,
    "sqlite_modifier_unit_unknown": _sqlite_modifier_unit_unknown,
    "strftime_arguments_swapped": _strftime_arguments_swapped,
    "sqlite_cast_as_date_is_a_number": _sqlite_cast_as_date_is_a_number,
}
_NOTES = {k: k.replace("_", " ") for k in _EDIT}


def damage(gold_sql: str, schema: Any, kind: str, seed: int) -> Damaged | None:
    """The whole reply for ``gold_sql`` damaged in ``kind``; None where the kind does not apply (never raises)."""
    try:
        rng = random.Random(f"fresh26|{kind}|{seed}|{gold_sql}")
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
        res = fn(gold, s, schema, rng)
        if not res:
            return None
        sql, extra = (res, "") if isinstance(res, str) else res
        if not sql or _norm(sql) == _norm(gold):
            return None
        return Damaged(kind, _reply(rng, sql, s, extra), _NOTES[kind])
    except Exception:  # noqa: BLE001 - a kind that cannot be made for this query does not apply
        return None
