"""Held-out damage generator ``fresh25``: damaged model replies made from gold queries by text edits.

Written from the outside (the harness ``bench/recovery.py``, ``core/schema.py`` and the defog / Chinook data only),
without reading Cairn's extraction, checking or repair code. Each kind is a reply layout or a slip seen from small
(7B-8B) local coder models. Family A: the reply as written fails, or its SQL is hard to find. Family B: the SQL runs
and answers a different question.

| kind                                 | fam | what the reply does                                                                       |
|--------------------------------------|-----|-------------------------------------------------------------------------------------------|
| clean                                |  -  | the gold query, fenced, in an ordinary reply                                              |
| ollama_ndjson_stream                 |  A  | the raw Ollama /api/generate NDJSON stream (one JSON object per chunk) instead of the text |
| pygments_span_markup                 |  A  | the query as Pygments-highlighted HTML (``<span class="k">SELECT</span>`` ...)             |
| ansi_color_codes                     |  A  | terminal ANSI colour escapes around keywords and literals inside the block                |
| databricks_magic_lines               |  A  | a Databricks notebook export: every SQL line behind ``# MAGIC`` after ``# MAGIC %sql``     |
| four_backtick_fence                  |  A  | the block opened and closed with four backticks (````sql)                                 |
| clause_bullets                       |  A  | no query, only a bullet list with one clause per bullet in inline code                    |
| fim_token_leak                       |  A  | fill-in-the-middle special tokens (``<|fim_suffix|>`` ...) left inside the SQL             |
| subquery_semicolon                   |  A  | a ``;`` typed at the end of a subquery / CTE body, before its closing parenthesis         |
| for_update_lock                      |  A  | a row-locking ``FOR UPDATE`` / ``FOR SHARE`` clause appended to the read query             |
| operator_split_by_space              |  A  | a two-character operator split by a space (``> =``, ``< >``, ``| |``)                       |
| qualifier_stutter                    |  A  | a column's table qualifier written twice (``a.a.name``)                                   |
| mysql_null_safe_equals               |  A  | MySQL's null-safe ``<=>`` used for an equality                                             |
| qualifier_reversed                   |  A  | a qualified column written column-first (``name.author`` for ``author.name``)             |
| datasette_url_query                  |  A  | only a Datasette link with the query URL-encoded in ``?sql=``                              |
| xml_cdata_envelope                   |  A  | the query inside a Confluence storage-format code macro (``<![CDATA[ ... ]]>``)            |
| strikethrough_edit_marks             |  A  | a "corrected" query with the old name kept struck out (``~~a.aid~~ a.name``)               |
| source_citation_marks                |  A  | retrieval citation marks (``【3†schema.sql】``) left at the end of the statement           |
| teradata_sel_abbrev                  |  A  | Teradata's ``SEL`` abbreviation for ``SELECT``                                             |
| spider_gold_line                     |  A  | a Spider gold-file line: the query, a tab, and the database id                            |
| threshold_read_as_superlative        |  B  | a ``> k`` threshold (HAVING or row filter) read as "the top one": ORDER BY ... DESC LIMIT 1 |
| equality_as_not_opposite             |  B  | ``status = 'active'`` written as ``status <> 'inactive'`` (other values slip in)           |
| latest_by_surrogate_key              |  B  | "latest" ordered by the table's id instead of its date/time column                         |
| since_read_as_on                     |  B  | "in the last N days" read as "N days ago": ``d >= CURRENT_DATE - 7`` becomes ``d = ...``  |
| strftime_compared_to_integer         |  B  | SQLite ``strftime(...)`` text compared with bare integers (``= 2023``, ``IN (0, 6)``)      |
| join_on_either_key                   |  B  | a join on one role key hedged with its twin (``= t.receiver_id OR ... = t.sender_id``)    |
| left_join_on_condition_moved_to_where|  B  | an extra LEFT JOIN ... ON condition moved to WHERE (the outer rows are filtered away)      |
| limit_inside_cte                     |  B  | ``LIMIT n`` put inside the (added or existing) CTE, so it cuts before the outer ORDER BY   |
| date_difference_as_text_subtraction  |  B  | SQLite ``julianday(a) - julianday(b)`` written as ``a - b`` (text minus text: years)        |
| date_minus_days_as_number            |  B  | SQLite ``DATE('now', '-7 days')`` written PostgreSQL-style as ``DATE('now') - 7``          |
| interval_seconds_component_for_total |  B  | ``EXTRACT(EPOCH FROM ...)`` written ``EXTRACT(SECOND FROM ...)``: the seconds field only   |

Interface (``bench/recovery.py``): ``DAMAGE_KINDS``, ``TREE_KINDS`` (empty: every kind edits the gold's text at
positions found with sqlglot's tokenizer or parse tree), ``Damaged`` and ``damage(gold_sql, schema, kind, seed)``,
deterministic per (kind, seed, gold) and never raising (``None`` where a kind does not apply).
"""

from __future__ import annotations

import html
import json
import random
import re
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot.tokens import TokenType

__all__ = ["DAMAGE_KINDS", "FAMILY", "TREE_KINDS", "Damaged", "damage"]

FAMILY: dict[str, str] = {
    "ollama_ndjson_stream": "A",
    "pygments_span_markup": "A",
    "ansi_color_codes": "A",
    "databricks_magic_lines": "A",
    "four_backtick_fence": "A",
    "clause_bullets": "A",
    "fim_token_leak": "A",
    "subquery_semicolon": "A",
    "for_update_lock": "A",
    "operator_split_by_space": "A",
    "qualifier_stutter": "A",
    "mysql_null_safe_equals": "A",
    "qualifier_reversed": "A",
    "datasette_url_query": "A",
    "xml_cdata_envelope": "A",
    "strikethrough_edit_marks": "A",
    "source_citation_marks": "A",
    "teradata_sel_abbrev": "A",
    "spider_gold_line": "A",
    "threshold_read_as_superlative": "B",
    "equality_as_not_opposite": "B",
    "latest_by_surrogate_key": "B",
    "since_read_as_on": "B",
    "strftime_compared_to_integer": "B",
    "join_on_either_key": "B",
    "left_join_on_condition_moved_to_where": "B",
    "limit_inside_cte": "B",
    "date_difference_as_text_subtraction": "B",
    "date_minus_days_as_number": "B",
    "interval_seconds_component_for_total": "B",
}
DAMAGE_KINDS: tuple[str, ...] = ("clean", *FAMILY)
TREE_KINDS: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Damaged:
    kind: str
    reply: str
    note: str


# ---------------------------------------------------------------------------------------------------------------
# tokens, levels and clauses
# ---------------------------------------------------------------------------------------------------------------

_WORD = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")
_KEYWORDISH = re.compile(r"^[A-Za-z_][A-Za-z0-9_ ]*$")
_CLAUSE = {TokenType.SELECT, TokenType.FROM, TokenType.WHERE, TokenType.GROUP_BY, TokenType.HAVING,
           TokenType.ORDER_BY, TokenType.LIMIT, TokenType.OFFSET, TokenType.UNION, TokenType.EXCEPT,
           TokenType.INTERSECT, TokenType.WINDOW, TokenType.QUALIFY, TokenType.FETCH}
_JOIN_START = {TokenType.LEFT, TokenType.RIGHT, TokenType.INNER, TokenType.FULL, TokenType.CROSS,
               TokenType.JOIN, TokenType.NATURAL, TokenType.OUTER}
_CMP = {TokenType.EQ, TokenType.NEQ, TokenType.GT, TokenType.GTE, TokenType.LT, TokenType.LTE}


def _dialect(schema: Any) -> str:
    name = str(getattr(schema, "dialect", "") or "postgres").lower()
    return name if name in ("postgres", "sqlite", "duckdb", "mysql") else "postgres"


class _Sql:
    """The gold's tokens with, for each, its parenthesis depth and the index of its innermost open parenthesis."""

    def __init__(self, sql: str, dialect: str) -> None:
        self.sql = sql
        self.dialect = dialect
        self.toks = list(sqlglot.Dialect.get_or_raise(dialect).tokenize(sql))
        self.level: list[int] = []  # index of the innermost enclosing "(" (-1: top level)
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

    def text(self, i: int, j: int | None = None) -> str:
        """Source text of tokens i..j (inclusive)."""
        j = i if j is None else j
        return self.sql[self.toks[i].start:self.toks[j].end + 1]

    def start(self, i: int) -> int:
        return self.toks[i].start

    def end(self, i: int) -> int:  # exclusive
        return self.toks[i].end + 1

    def tt(self, i: int) -> Any:
        return self.toks[i].token_type if 0 <= i < len(self.toks) else None

    def word(self, i: int) -> bool:
        if not 0 <= i < len(self.toks):
            return False
        t = self.toks[i]
        if t.token_type in (TokenType.STRING, TokenType.NUMBER):
            return False
        return t.token_type == TokenType.IDENTIFIER or bool(_WORD.match(t.text))

    def low(self, i: int) -> str:
        return self.toks[i].text.lower() if 0 <= i < len(self.toks) else ""

    def level_end(self, level: int) -> int:
        """Character position where a level's text ends (its closing parenthesis, or the end of the text)."""
        if level < 0:
            return len(self.sql.rstrip().rstrip(";").rstrip())
        return self.start(self.match[level])

    def at_level(self, level: int) -> list[int]:
        return [i for i in range(len(self.toks)) if self.level[i] == level]

    def clauses(self, level: int) -> list[tuple[Any, int]]:
        """(token type, token index) of the clause keywords of one level, from its last SELECT on."""
        idx = [i for i in self.at_level(level) if self.tt(i) in _CLAUSE]
        sel = [k for k, i in enumerate(idx) if self.tt(i) == TokenType.SELECT]
        if not sel:
            return []
        return [(self.tt(i), i) for i in idx[sel[-1]:]]

    def clause_span(self, level: int, kind: Any) -> tuple[int, int, int] | None:
        """(token index, start char, end char) of the clause ``kind`` on this level (end: the next clause)."""
        cl = self.clauses(level)
        for k, (tt, i) in enumerate(cl):
            if tt == kind:
                end = self.start(cl[k + 1][1]) if k + 1 < len(cl) else self.level_end(level)
                return i, self.start(i), end
        return None

    def clause_of(self, i: int) -> Any:
        """The clause keyword (or ON / WHEN / JOIN) that token i belongs to on its own level."""
        lvl = self.level[i]
        for j in range(i - 1, -1, -1):
            if self.level[j] != lvl:
                continue
            if self.tt(j) in _CLAUSE or self.tt(j) in (TokenType.ON, TokenType.JOIN, TokenType.WHEN,
                                                       TokenType.THEN, TokenType.ELSE, TokenType.USING):
                return self.tt(j)
        return None

    def colrefs(self) -> list[tuple[int, int]]:
        """Qualified column references ``q.c`` (token index of q, of c), not table names after FROM / JOIN."""
        out = []
        for i in range(len(self.toks) - 2):
            if not (self.word(i) and self.tt(i + 1) == TokenType.DOT and self.word(i + 2)):
                continue
            if self.tt(i - 1) == TokenType.DOT or self.tt(i + 3) == TokenType.DOT:
                continue
            if self.tt(i + 3) == TokenType.L_PAREN:
                continue
            prev = self.tt(i - 1)
            if prev in (TokenType.FROM, TokenType.JOIN):
                continue
            if prev == TokenType.COMMA and self.clause_of(i) == TokenType.FROM:
                continue
            out.append((i, i + 2))
        return out

    def operand_back(self, i: int) -> int:
        """Start token of the operand that ends at token i (a dotted name or a function call / parenthesis)."""
        if self.tt(i) == TokenType.R_PAREN:
            j = self.match[i]
            if self.word(j - 1) and self.tt(j - 2) != TokenType.DOT:
                return j - 1
            return j
        j = i
        while self.tt(j - 1) == TokenType.DOT and self.word(j - 2):
            j -= 2
        return j

    def operand_fwd(self, i: int) -> int:
        """End token of the operand that starts at token i."""
        if self.word(i) and self.tt(i + 1) == TokenType.L_PAREN:
            return self.match[i + 1]
        if self.tt(i) == TokenType.L_PAREN:
            return self.match[i]
        j = i
        while self.tt(j + 1) == TokenType.DOT and self.word(j + 2):
            j += 2
        return j

    def tables(self) -> dict[str, str]:
        """alias or name (lower case) -> table name, from ``FROM t [AS] a`` / ``JOIN t [AS] a`` / ``, t a``."""
        out: dict[str, str] = {}
        n = len(self.toks)
        for i in range(n):
            tt = self.tt(i)
            if not (tt in (TokenType.FROM, TokenType.JOIN) or (tt == TokenType.COMMA and
                                                               self.clause_of(i) == TokenType.FROM)):
                continue
            j = i + 1
            if not self.word(j):
                continue
            k = j
            while self.tt(k + 1) == TokenType.DOT and self.word(k + 2):
                k += 2
            name = self.toks[k].text
            out.setdefault(name.lower(), name)
            a = k + 1
            if self.tt(a) == TokenType.ALIAS:
                a += 1
            if self.word(a) and self.tt(a) not in _CLAUSE | _JOIN_START | {TokenType.ON, TokenType.USING,
                                                                              TokenType.WHERE}:
                out[self.toks[a].text.lower()] = name
        return out


def _apply(sql: str, edits: list[tuple[int, int, str]]) -> str:
    """Apply (start, end, replacement) edits; the later ones first (none may overlap)."""
    out = sql
    last = len(sql) + 1
    for s, e, r in sorted(edits, key=lambda x: (x[0], x[1]), reverse=True):
        if e > last:
            raise ValueError("overlapping edits")
        out = out[:s] + r + out[e:]
        last = s
    return out


def _schema_table(schema: Any, name: str) -> Any:
    try:
        return schema.table(name)
    except Exception:  # noqa: BLE001
        return None


def _pk(table: Any) -> str | None:
    pk = tuple(getattr(table, "primary_key", ()) or ())
    if len(pk) == 1:
        return pk[0]
    names = [c.name for c in table.columns]
    for cand in ("id", f"{table.name}_id", f"{table.name}id"):
        for n in names:
            if n.lower() == cand.lower():
                return n
    return None


def _split_and(s: _Sql, lo: int, hi: int, level: int) -> list[tuple[int, int]] | None:
    """Token spans of the AND-joined terms between tokens lo..hi on ``level``; None when an OR joins them."""
    terms: list[tuple[int, int]] = []
    cur = lo
    between_open = False
    for i in range(lo, hi + 1):
        if s.level[i] != level:
            continue
        tt = s.tt(i)
        if tt == TokenType.OR:
            return None
        if tt == TokenType.BETWEEN:
            between_open = True
        elif tt == TokenType.AND:
            if between_open:
                between_open = False
                continue
            terms.append((cur, i - 1))
            cur = i + 1
    terms.append((cur, hi))
    return [t for t in terms if t[0] <= t[1]]


def _last_token_before(s: _Sql, pos: int) -> int:
    """Index of the last token that ends at or before character ``pos``."""
    k = -1
    for i, t in enumerate(s.toks):
        if t.end < pos:
            k = i
    return k


# ---------------------------------------------------------------------------------------------------------------
# replies
# ---------------------------------------------------------------------------------------------------------------

_INTROS = ("Here's the query:", "Sure! This query answers it:", "You can use the following SQL:",
           "This should give you what you need:", "Here is a query that does this:",
           "Okay, here is the SQL for that:")
_OUTROS = ("", "", "Let me know if you need anything else!", "It returns one row per result, as asked.",
           "You can adjust the filters if needed.", "Hope this helps.")


def _reply(rng: random.Random, sql: str, lang: str = "sql") -> str:
    intro, outro = rng.choice(_INTROS), rng.choice(_OUTROS)
    return f"{intro}\n\n```{lang}\n{sql}\n```\n\n{outro}".strip()


def _pieces(s: _Sql) -> list[str]:
    """The statement cut before each top-level clause keyword and each JOIN."""
    cuts = [0]
    for i in s.at_level(-1):
        tt = s.tt(i)
        if tt in _CLAUSE:
            cuts.append(s.start(i))
        elif tt in _JOIN_START and s.tt(i - 1) not in _JOIN_START:
            cuts.append(s.start(i))
    cuts = sorted(set(c for c in cuts if c >= 0))
    text = s.sql.strip().rstrip(";").rstrip()
    parts = [text[a:b].strip() for a, b in zip(cuts, [*cuts[1:], len(text)])]
    return [p for p in parts if p]


def _multiline(s: _Sql) -> str:
    return "\n".join(_pieces(s))


# ---------------------------------------------------------------------------------------------------------------
# family A: layouts and wrappers
# ---------------------------------------------------------------------------------------------------------------

_OLLAMA_MODELS = ("qwen2.5-coder:7b", "llama3.1:8b", "mistral:7b", "deepseek-coder:6.7b", "codegemma:7b",
                  "phi3:mini")


def _ollama_ndjson_stream(gold: str, s: _Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    text = _reply(rng, _multiline(s))
    chunks = re.findall(r"\s*\S{1,6}|\s+", text)
    model = rng.choice(_OLLAMA_MODELS)
    day, hour, minute = rng.randint(10, 28), rng.randint(8, 19), rng.randint(0, 59)
    micros = rng.randint(0, 2_000_000)
    lines = []

    def stamp() -> str:
        sec, us = divmod(micros, 1_000_000)
        return f"2025-03-{day:02d}T{hour:02d}:{minute:02d}:{min(sec, 59):02d}.{us:06d}Z"

    for ch in chunks:
        micros += rng.randint(14_000, 38_000)
        lines.append(json.dumps({"model": model, "created_at": stamp(), "response": ch, "done": False}))
    micros += rng.randint(14_000, 38_000)
    lines.append(json.dumps({"model": model, "created_at": stamp(), "response": "",
                             "done": True, "done_reason": "stop", "total_duration": rng.randint(10**9, 9 * 10**9),
                             "eval_count": len(chunks)}))
    return "\n".join(lines), f"raw NDJSON stream of {model}"


_PYG = {TokenType.STRING: "s1", TokenType.NUMBER: "mi", TokenType.VAR: "n", TokenType.IDENTIFIER: "n",
        TokenType.L_PAREN: "p", TokenType.R_PAREN: "p", TokenType.COMMA: "p", TokenType.DOT: "p",
        TokenType.SEMICOLON: "p"}


def _pygments_span_markup(gold: str, s: _Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    out = []
    pos = 0
    for i, t in enumerate(s.toks):
        out.append(html.escape(s.sql[pos:t.start]))
        raw = s.text(i)
        if t.token_type in _PYG:
            cls = _PYG[t.token_type]
        elif _KEYWORDISH.match(raw):
            cls = "k"
        else:
            cls = "o"
        out.append(f'<span class="{cls}">{html.escape(raw)}</span>')
        pos = t.end + 1
    out.append(html.escape(s.sql[pos:]))
    body = '<div class="highlight"><pre><span></span>' + "".join(out) + "\n</pre></div>"
    lang = rng.choice(("html", "sql", ""))
    return _reply(rng, body, lang), "Pygments HTML spans around every token"


def _ansi_color_codes(gold: str, s: _Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    edits = []
    for i, t in enumerate(s.toks):
        raw = s.text(i)
        if t.token_type == TokenType.STRING:
            code = "32"
        elif t.token_type == TokenType.NUMBER:
            code = "35"
        elif _KEYWORDISH.match(raw) and t.token_type not in (TokenType.VAR, TokenType.IDENTIFIER):
            code = "1;34"
        else:
            continue
        edits.append((t.start, t.end + 1, f"\x1b[{code}m{raw}\x1b[0m"))
    if not edits:
        return None
    return _reply(rng, _apply(s.sql, edits), rng.choice(("sql", "", "console"))), "ANSI colour escapes"


def _databricks_magic_lines(gold: str, s: _Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    lines = _multiline(s).splitlines()
    body = "# Databricks notebook source\n# MAGIC %sql\n" + "\n".join(f"# MAGIC {ln}" for ln in lines)
    body += "\n\n# COMMAND ----------\n"
    intro = rng.choice(("Here is the notebook cell:", "You can paste this into your Databricks notebook:",
                        "Notebook source for the query:"))
    return f"{intro}\n\n```python\n{body}```", "Databricks notebook export with # MAGIC lines"


def _four_backtick_fence(gold: str, s: _Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    intro = rng.choice(_INTROS)
    return f"{intro}\n\n````sql\n{gold}\n````\n\n{rng.choice(_OUTROS)}".strip(), "four-backtick fence"


_EXPLAIN = {"SELECT": "the columns we return", "WITH": "helper result sets first", "FROM": "the main table",
            "JOIN": "bring in the related rows", "WHERE": "keep only the rows we want",
            "GROUP": "one row per group", "HAVING": "filter the groups", "ORDER": "sort the result",
            "LIMIT": "keep the first rows", "OFFSET": "skip rows"}


def _clause_bullets(gold: str, s: _Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    parts = _pieces(s)
    if len(parts) < 2:
        return None
    lines = []
    for p in parts:
        head = p.split()[0].upper()
        key = next((k for k in _EXPLAIN if head.startswith(k) or (k == "JOIN" and "JOIN" in p.split()[:3])), "")
        note = _EXPLAIN.get(key, "")
        lines.append(f"- `{p}`" + (f" — {note}" if note and rng.random() < 0.7 else ""))
    intro = rng.choice(("Let's build the query step by step:", "The query is made of these parts:",
                        "Here's the breakdown of the SQL:"))
    outro = rng.choice(("Put together, these clauses give the answer.", "Combine them and run it.", ""))
    return f"{intro}\n\n" + "\n".join(lines) + (f"\n\n{outro}" if outro else ""), "one clause per bullet"


_FIM = (("<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>"),
        ("<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>"),
        ("<fim_prefix>", "<fim_suffix>", "<fim_middle>"))


def _fim_token_leak(gold: str, s: _Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    n = len(s)
    if n < 6:
        return None
    pre, suf, mid = rng.choice(_FIM)
    k = rng.randint(n // 3, (2 * n) // 3)
    cut = s.start(k)
    body = gold[:cut] + suf + gold[cut:]
    if rng.random() < 0.5:
        body = pre + body
    body += mid
    return _reply(rng, body), f"FIM tokens {suf} left in the SQL"


def _subquery_semicolon(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    opens = [i for i in range(len(s) - 1) if s.tt(i) == TokenType.L_PAREN and s.tt(i + 1) in
             (TokenType.SELECT, TokenType.WITH)]
    if not opens:
        return None
    i = rng.choice(opens)
    close = s.match[i]
    return _apply(gold, [(s.end(close - 1), s.end(close - 1), ";")])


def _for_update_lock(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    clause = rng.choice(("FOR UPDATE", "FOR UPDATE", "FOR SHARE", "FOR UPDATE NOWAIT"))
    body = gold.rstrip().rstrip(";").rstrip()
    return f"{body}\n{clause}"


_SPLIT = {TokenType.GTE, TokenType.LTE, TokenType.NEQ, TokenType.DPIPE, TokenType.DCOLON}


def _operator_split_by_space(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    ops = [i for i in range(len(s)) if s.tt(i) in _SPLIT and len(s.text(i)) == 2]
    if not ops:
        return None
    i = rng.choice(ops)
    raw = s.text(i)
    return _apply(gold, [(s.start(i), s.end(i), f"{raw[0]} {raw[1]}")])


def _qualifier_stutter(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    refs = s.colrefs()
    if not refs:
        return None
    q, _c = rng.choice(refs)
    return _apply(gold, [(s.start(q), s.start(q), s.text(q) + ".")])


def _mysql_null_safe_equals(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    eqs = [i for i in range(len(s)) if s.tt(i) == TokenType.EQ and s.clause_of(i) in
           (TokenType.ON, TokenType.WHERE, TokenType.HAVING, TokenType.JOIN)]
    if not eqs:
        return None
    on = [i for i in eqs if s.clause_of(i) == TokenType.ON]
    i = rng.choice(on if on and rng.random() < 0.6 else eqs)
    return _apply(gold, [(s.start(i), s.end(i), "<=>")])


def _qualifier_reversed(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    refs = [(q, c) for q, c in s.colrefs() if s.low(q) != s.low(c)]
    if not refs:
        return None
    q, c = rng.choice(refs)
    return _apply(gold, [(s.start(q), s.end(c), f"{s.text(c)}.{s.text(q)}")])


def _datasette_url_query(gold: str, s: _Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    db = str(getattr(schema, "database_id", "") or "") or rng.choice(("data", "db", "analytics"))
    db = re.sub(r"[^\w-]+", "_", db.split("/")[-1].split(".")[0]) or "data"
    url = f"http://127.0.0.1:8001/{db}?sql=" + urllib.parse.quote_plus(gold)
    intro = rng.choice(("You can run this directly in Datasette:", "Open this link to see the result:",
                        "I've prepared the query in Datasette, just click:"))
    outro = rng.choice(("", "The page shows the rows and lets you export them as CSV."))
    return f"{intro}\n\n{url}\n\n{outro}".strip(), "Datasette URL with the query encoded"


def _xml_cdata_envelope(gold: str, s: _Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    title = rng.choice(("Query", "Report query", "Answer"))
    body = ('<ac:structured-macro ac:name="code" ac:schema-version="1">\n'
            '  <ac:parameter ac:name="language">sql</ac:parameter>\n'
            f'  <ac:parameter ac:name="title">{title}</ac:parameter>\n'
            f"  <ac:plain-text-body><![CDATA[{_multiline(s)}]]></ac:plain-text-body>\n"
            "</ac:structured-macro>")
    intro = rng.choice(("Here is the macro for your Confluence page:", "Paste this into the page's storage format:",
                        "Confluence code block with the query:"))
    if rng.random() < 0.5:
        return f"{intro}\n\n```xml\n{body}\n```", "Confluence storage-format code macro"
    return f"{intro}\n\n{body}", "Confluence storage-format code macro"


def _strikethrough_edit_marks(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    refs = s.colrefs()
    if not refs:
        return None
    q, c = rng.choice(refs)
    alias = s.tables()
    tname = alias.get(s.low(q))
    col = s.toks[c].text
    wrong = None
    table = _schema_table(schema, tname) if tname else None
    if table is not None:
        others = [x.name for x in table.columns if x.name.lower() != col.lower()]
        if others:
            wrong = rng.choice(others)
    if wrong is None:
        wrong = col + "s"
    return _apply(gold, [(s.start(q), s.start(q), f"~~{s.text(q)}.{wrong}~~ ")])


_TAIL = {TokenType.WHERE, TokenType.GROUP_BY, TokenType.HAVING, TokenType.ORDER_BY, TokenType.LIMIT,
         TokenType.OFFSET}


def _ends_in_clause(s: _Sql) -> bool:
    """The statement's last top-level clause cannot take a trailing identifier as an alias."""
    cl = s.clauses(-1)
    if not cl or any(tt in (TokenType.UNION, TokenType.EXCEPT, TokenType.INTERSECT) for tt, _ in cl):
        return False
    return cl[-1][0] in _TAIL


def _source_citation_marks(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    if not _ends_in_clause(s):
        return None
    n = rng.randint(1, 6)
    mark = rng.choice((f"【{n}†schema.sql】", f"【{n}:0†source】", f"【{n}†tables】"))
    body = gold.rstrip().rstrip(";").rstrip()
    return f"{body} {mark}"


def _teradata_sel_abbrev(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    sels = [i for i in range(len(s)) if s.tt(i) == TokenType.SELECT]
    if not sels:
        return None
    return _apply(gold, [(s.start(i), s.end(i), "SEL") for i in sels])


def _spider_gold_line(gold: str, s: _Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    if not _ends_in_clause(s):
        return None
    db = str(getattr(schema, "database_id", "") or "")
    db = re.sub(r"[^\w]+", "_", db.split("/")[-1].split(".")[0]) if db else ""
    if not db:
        names = [t.name for t in getattr(schema, "tables", ())]
        db = names[0] if names else "db"
    one_line = re.sub(r"\s*\n\s*", " ", gold.strip().rstrip(";"))
    return f"{one_line}\t{db}", "Spider gold-file line: query, tab, db_id"


# ---------------------------------------------------------------------------------------------------------------
# family B: runs, answers another question
# ---------------------------------------------------------------------------------------------------------------

_AGG = {"count", "sum", "avg", "min", "max"}


def _threshold_read_as_superlative(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    # (1) HAVING <agg> > k, on any level
    for h in range(len(s)):
        if s.tt(h) != TokenType.HAVING:
            continue
        lvl = s.level[h]
        span = s.clause_span(lvl, TokenType.HAVING)
        if span is None or span[0] != h:
            continue
        hi = _last_token_before(s, span[2])
        ops = [i for i in range(h + 1, hi + 1) if s.level[i] == lvl and s.tt(i) in (TokenType.GT, TokenType.GTE)]
        if len(ops) != 1 or any(s.tt(i) in (TokenType.AND, TokenType.OR) for i in range(h + 1, hi + 1)
                                if s.level[i] == lvl):
            continue
        op = ops[0]
        if not (op + 1 == hi and s.tt(hi) == TokenType.NUMBER):
            continue
        expr = s.sql[s.end(h):s.start(op)].strip()
        return _superlative_edit(gold, s, lvl, [(span[1], span[2], "")], expr)
    # (2) WHERE col > k in a top-level query without grouping or aggregates
    lvl = -1
    cl = s.clauses(lvl)
    kinds = {tt for tt, _ in cl}
    if not cl or kinds & {TokenType.GROUP_BY, TokenType.HAVING, TokenType.UNION, TokenType.EXCEPT,
                          TokenType.INTERSECT}:
        return None
    sel = s.clause_span(lvl, TokenType.SELECT)
    if sel is None:
        return None
    for i in range(sel[0], _last_token_before(s, sel[2]) + 1):
        if s.low(i) in _AGG and s.tt(i + 1) == TokenType.L_PAREN:
            return None
        if s.tt(i) == TokenType.DISTINCT:
            return None
    where = s.clause_span(lvl, TokenType.WHERE)
    if where is None:
        return None
    w0, hi = where[0], _last_token_before(s, where[2])
    terms = _split_and(s, w0 + 1, hi, lvl)
    if not terms:
        return None
    for k, (a, b) in enumerate(terms):
        ops = [i for i in range(a, b + 1) if s.tt(i) in (TokenType.GT, TokenType.GTE)]
        if len(ops) != 1 or ops[0] != b - 1 or s.tt(b) != TokenType.NUMBER:
            continue
        col = s.text(a, ops[0] - 1).strip()
        if not re.fullmatch(r"[\w.\"`]+", col):
            continue
        if len(terms) == 1:
            cut = [(where[1], where[2], "")]
        elif k == 0:
            cut = [(s.start(a), s.start(terms[1][0]), "")]
        else:
            cut = [(s.end(terms[k - 1][1]), s.end(b), "")]
        return _superlative_edit(gold, s, lvl, cut, col)
    return None


def _superlative_edit(gold: str, s: _Sql, lvl: int, cut: list[tuple[int, int, str]], expr: str) -> str | None:
    edits = list(cut)
    for kind in (TokenType.ORDER_BY, TokenType.LIMIT, TokenType.OFFSET):
        span = s.clause_span(lvl, kind)
        if span is not None:
            edits.append((span[1], span[2], ""))
    end = s.level_end(lvl)
    out = _apply(gold, edits + [(end, end, f" ORDER BY {expr} DESC LIMIT 1")])
    return re.sub(r"[ \t]{2,}", " ", out)


_OPPOSITE = {"active": "inactive", "inactive": "active", "success": "failed", "successful": "failed",
             "failed": "success", "failure": "success", "completed": "cancelled", "complete": "cancelled",
             "pending": "completed", "approved": "rejected", "rejected": "approved", "delivered": "cancelled",
             "shipped": "cancelled", "verified": "unverified", "confirmed": "cancelled", "cancelled": "completed",
             "promotion": "transaction", "transaction": "promotion", "stock": "etf"}  # values with third siblings


def _same_case(model: str, word: str) -> str:
    if model.isupper():
        return word.upper()
    if model[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def _hints(schema: Any, s: _Sql, q: int | None, col: str) -> tuple[str, ...]:
    names = []
    if q is not None:
        t = s.tables().get(s.low(q))
        if t:
            names.append(t)
    names += [t.name for t in getattr(schema, "tables", ())]
    for name in names:
        table = _schema_table(schema, name)
        if table is None:
            continue
        c = table.column(col)
        if c is not None and c.value_hints:
            return tuple(c.value_hints)
    return ()


def _equality_as_not_opposite(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    cands = []
    for i in range(1, len(s) - 1):
        if s.tt(i) != TokenType.EQ or s.tt(i + 1) != TokenType.STRING or not s.word(i - 1):
            continue
        if s.clause_of(i) in (TokenType.ON, TokenType.JOIN, TokenType.SELECT):
            continue
        c = i - 1
        q = c - 2 if s.tt(c - 1) == TokenType.DOT else None
        value = s.toks[i + 1].text
        hints = [h for h in _hints(schema, s, q, s.toks[c].text) if isinstance(h, str)]
        other = None
        opp = _OPPOSITE.get(value.lower())
        if len(hints) >= 3:
            lows = {h.lower(): h for h in hints}
            if opp and opp in lows:
                other = lows[opp]
            else:
                rest = [h for h in hints if h.lower() != value.lower()]
                other = rng.choice(rest) if rest else None
        elif len(hints) == 2:
            continue  # two values only: "not the other one" is the same filter
        elif opp:
            other = _same_case(value, opp)
        if other and other != value:
            cands.append((i, other))
    if not cands:
        return None
    i, other = rng.choice(cands)
    lit = "'" + other.replace("'", "''") + "'"
    return _apply(gold, [(s.start(i), s.end(i + 1), f"{rng.choice(('<>', '!=', '<>'))} {lit}")])


_TEMPORAL = re.compile(r"(date|time|_at$|_ts$|^ts$|^dt$|day$|timestamp|created|updated)", re.I)


def _latest_by_surrogate_key(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    alias = s.tables()
    edits = []
    for o in range(len(s)):
        if s.tt(o) != TokenType.ORDER_BY:
            continue
        lvl = s.level[o]
        in_window = lvl >= 0 and s.tt(lvl - 1) == TokenType.OVER
        if in_window:
            hi = s.match[lvl] - 1
        else:
            span = s.clause_span(lvl, TokenType.ORDER_BY)
            if span is None or span[0] != o or s.clause_span(lvl, TokenType.LIMIT) is None:
                continue
            hi = _last_token_before(s, span[2])
        froms = [v for k, v in alias.items()]
        for i in range(o + 1, hi + 1):
            if not s.word(i) or s.tt(i + 1) in (TokenType.L_PAREN, TokenType.DOT):
                continue
            q = i - 2 if s.tt(i - 1) == TokenType.DOT else None
            col = s.toks[i].text
            if not _TEMPORAL.search(col):
                continue
            tname = alias.get(s.low(q)) if q is not None else None
            if tname is None and q is None:
                owners = [t for t in dict.fromkeys(froms) if (tb := _schema_table(schema, t)) is not None and
                          tb.column(col) is not None]
                tname = owners[0] if len(owners) == 1 else None
            table = _schema_table(schema, tname) if tname else None
            if table is None or table.column(col) is None:
                continue
            pk = _pk(table)
            if not pk or pk.lower() == col.lower():
                continue
            edits.append((s.start(i), s.end(i), pk))
    if not edits:
        return None
    return _apply(gold, list(dict.fromkeys(edits)))


_STOP = {TokenType.AND, TokenType.OR, TokenType.COMMA, TokenType.THEN, TokenType.WHEN, TokenType.ELSE,
         TokenType.END, TokenType.ON, TokenType.SEMICOLON}


def _is_now(s: _Sql, i: int) -> bool:
    tt = s.tt(i)
    if tt in (TokenType.CURRENT_DATE, TokenType.CURRENT_TIMESTAMP):
        return True
    if tt == TokenType.STRING:
        return s.toks[i].text.lower() == "now"
    return s.low(i) in ("now", "getdate") and s.tt(i + 1) == TokenType.L_PAREN and s.tt(i + 2) == TokenType.R_PAREN


def _since_read_as_on(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    edits = []
    n = len(s)
    for k in range(1, n):
        if s.tt(k) not in (TokenType.GTE, TokenType.GT):
            continue
        level = s.level[k]
        m = k + 1
        while m < n:
            if s.tt(m) == TokenType.L_PAREN:
                m = s.match[m] + 1
                continue
            if s.level[m] != level or s.tt(m) in _STOP or s.tt(m) in _CLAUSE or s.tt(m) in _JOIN_START:
                break
            m += 1
        if m == k + 1 or not any(_is_now(s, x) for x in range(k + 1, m)):
            continue
        left = s.operand_back(k - 1)
        if not (s.word(left) or s.tt(left) == TokenType.L_PAREN):
            continue
        edits.append((s.start(k), s.end(k), "="))
    if not edits:
        return None
    return _apply(gold, edits)


def _strftime_compared_to_integer(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    edits = []
    for i in range(len(s) - 2):
        if s.low(i) != "strftime" or s.tt(i + 1) != TokenType.L_PAREN:
            continue
        close = s.match[i + 1]
        j = close + 1
        tt = s.tt(j)
        lits: list[int] = []
        if tt in _CMP:
            if s.tt(j + 1) == TokenType.STRING:
                lits = [j + 1]
        elif tt == TokenType.IN or (tt == TokenType.NOT and s.tt(j + 1) == TokenType.IN):
            k = j + (1 if tt == TokenType.IN else 2)
            if s.tt(k) == TokenType.L_PAREN:
                lits = [m for m in range(k + 1, s.match[k]) if s.tt(m) == TokenType.STRING]
        elif tt == TokenType.BETWEEN:
            lits = [m for m in (j + 1, j + 3) if s.tt(m) == TokenType.STRING]
        for m in lits:
            text = s.toks[m].text
            if re.fullmatch(r"\d+", text):
                edits.append((s.start(m), s.end(m), str(int(text))))
    if not edits:
        return None
    return _apply(gold, edits)


_ROLE = {"from": "to", "to": "from", "sender": "receiver", "receiver": "sender", "source": "target",
         "target": "source", "src": "dst", "dst": "src", "origin": "destination", "destination": "origin",
         "buyer": "seller", "seller": "buyer", "home": "away", "away": "home", "cited": "citing",
         "citing": "cited", "arrival": "departure", "departure": "arrival", "pickup": "dropoff",
         "dropoff": "pickup", "payer": "payee", "payee": "payer", "debit": "credit", "credit": "debit",
         "inbound": "outbound", "outbound": "inbound", "winner": "loser", "loser": "winner",
         "follower": "followee", "followee": "follower", "host": "guest", "guest": "host"}


def _twin(table: Any, col: str) -> str | None:
    parts = re.split(r"_|(?<=[a-z])(?=[A-Z])", col)
    for k, p in enumerate(parts):
        other = _ROLE.get(p.lower())
        if other is None:
            continue
        new = _same_case(p, other)
        for sep in ("_", ""):
            hit = table.column(sep.join([*parts[:k], new, *parts[k + 1:]]))
            if hit is not None and hit.name.lower() != col.lower():
                return hit.name
    return None


def _join_on_either_key(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    alias = s.tables()
    cands = []
    for i in range(3, len(s) - 3):
        if s.tt(i) != TokenType.EQ or s.clause_of(i) != TokenType.ON:
            continue
        if not (s.tt(i - 2) == TokenType.DOT and s.word(i - 1) and s.word(i - 3) and
                s.tt(i + 2) == TokenType.DOT and s.word(i + 1) and s.word(i + 3)):
            continue
        sides = ((i + 1, i + 3), (i - 3, i - 1))
        for q, c in sides:
            tname = alias.get(s.low(q))
            table = _schema_table(schema, tname) if tname else None
            if table is None:
                continue
            twin = _twin(table, s.toks[c].text)
            if twin:
                cands.append((i, q, c, twin))
    if not cands:
        return None
    i, q, c, twin = rng.choice(cands)
    left, right = s.text(i - 3, i - 1), s.text(i + 1, i + 3)
    other = f"{s.text(q)}.{twin}"
    alt = f"{left} = {other}" if q == i + 1 else f"{other} = {right}"
    return _apply(gold, [(s.start(i - 3), s.end(i + 3), f"({left} = {right} OR {alt})")])


def _left_join_on_condition_moved_to_where(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    for lj in range(len(s)):
        if s.tt(lj) != TokenType.LEFT:
            continue
        lvl = s.level[lj]
        on = next((k for k in range(lj + 1, len(s)) if s.level[k] == lvl and s.tt(k) == TokenType.ON), None)
        if on is None:
            continue
        stop = next((k for k in range(on + 1, len(s)) if s.level[k] == lvl and
                     (s.tt(k) in _CLAUSE or s.tt(k) in _JOIN_START or s.tt(k) == TokenType.COMMA)), None)
        hi = (stop - 1) if stop is not None else (s.match[lvl] - 1 if lvl >= 0 else len(s) - 1)
        while hi > on and s.tt(hi) == TokenType.SEMICOLON:
            hi -= 1
        terms = _split_and(s, on + 1, hi, lvl)
        if not terms or len(terms) < 2:
            continue
        moved = s.sql[s.start(terms[1][0]):s.end(terms[-1][1])].strip()
        edits = [(s.end(terms[0][1]), s.end(terms[-1][1]), "")]
        where = s.clause_span(lvl, TokenType.WHERE)
        if where is not None:
            w_hi = _last_token_before(s, where[2])
            has_or = any(s.tt(k) == TokenType.OR and s.level[k] == lvl for k in range(where[0] + 1, w_hi + 1))
            body_start, body_end = s.start(where[0] + 1), s.end(w_hi)
            if has_or:
                edits += [(body_start, body_start, "("), (body_end, body_end, f") AND {moved}")]
            else:
                edits.append((body_end, body_end, f" AND {moved}"))
        else:
            nxt = next((s.start(i) for tt, i in s.clauses(lvl) if i > on and tt in
                        (TokenType.GROUP_BY, TokenType.HAVING, TokenType.ORDER_BY, TokenType.LIMIT,
                         TokenType.WINDOW, TokenType.QUALIFY)), None)
            if nxt is None:
                pos = s.level_end(lvl)
                edits.append((pos, pos, f" WHERE {moved}"))
            else:
                edits.append((nxt, nxt, f"WHERE {moved} "))
        return _apply(gold, edits)
    return None


def _output_names(s: _Sql) -> set[str]:
    """Lower-case output names of the top-level SELECT list (aliases, bare or qualified column names)."""
    sel = s.clause_span(-1, TokenType.SELECT)
    if sel is None:
        return set()
    hi = _last_token_before(s, sel[2])
    items, cur = [], sel[0] + 1
    for i in range(sel[0] + 1, hi + 1):
        if s.level[i] == -1 and s.tt(i) == TokenType.COMMA:
            items.append((cur, i - 1))
            cur = i + 1
    items.append((cur, hi))
    names = set()
    for a, b in items:
        if s.tt(a) == TokenType.DISTINCT:
            a += 1
        if a > b:
            continue
        if s.tt(b - 1) == TokenType.ALIAS or (b > a and s.word(b) and s.tt(b - 1) in (TokenType.R_PAREN,)):
            names.add(s.low(b))
        elif s.word(b) and all(s.word(k) or s.tt(k) == TokenType.DOT for k in range(a, b + 1)):
            names.add(s.low(b))
    return names


_ORDER_WORDS = {"case", "when", "then", "else", "end", "is", "null", "not", "desc", "asc", "nulls", "first", "last"}


def _limit_into_new_cte(gold: str, s: _Sql, rng: random.Random) -> str | None:
    cl = s.clauses(-1)
    kinds = [tt for tt, _ in cl]
    if not cl or kinds[-1] != TokenType.LIMIT or TokenType.ORDER_BY not in kinds or \
            set(kinds) & {TokenType.UNION, TokenType.EXCEPT, TokenType.INTERSECT, TokenType.OFFSET, TokenType.FETCH}:
        return None
    order = s.clause_span(-1, TokenType.ORDER_BY)
    limit = s.clause_span(-1, TokenType.LIMIT)
    if order is None or limit is None:
        return None
    names = _output_names(s)
    edits = []
    for i in range(order[0] + 1, _last_token_before(s, order[2]) + 1):
        if s.tt(i) in (TokenType.NUMBER, TokenType.COMMA, TokenType.DOT, TokenType.L_PAREN, TokenType.R_PAREN):
            if s.tt(i) == TokenType.NUMBER and s.tt(i - 1) in (TokenType.ORDER_BY, TokenType.COMMA):
                return None  # an ordinal: would still work, but keep to names
            continue
        if s.tt(i) == TokenType.STRING or s.low(i) in _ORDER_WORDS or not s.word(i):
            continue
        if s.tt(i + 1) == TokenType.DOT:
            continue
        if s.low(i) not in names:
            return None
        if s.tt(i - 1) == TokenType.DOT:
            edits.append((s.start(i - 2), s.start(i), ""))
    order_text = _apply(gold[order[1]:order[2]], [(a - order[1], b - order[1], r) for a, b, r in edits]).strip()
    body = gold[:order[1]].rstrip()
    limit_text = gold[limit[1]:limit[2]].strip()
    name = rng.choice(("ranked", "totals", "base", "summary", "top_rows"))
    return f"WITH {name} AS ({body} {limit_text}) SELECT * FROM {name} {order_text}"


def _limit_inside_cte(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    if not s.toks:
        return None
    if s.tt(0) != TokenType.WITH:
        return _limit_into_new_cte(gold, s, rng)
    ctes: dict[str, int] = {}  # name -> its "(" token
    for i in range(1, len(s) - 2):
        if s.level[i] == -1 and s.word(i) and s.tt(i + 1) == TokenType.ALIAS and s.tt(i + 2) == TokenType.L_PAREN:
            ctes[s.low(i)] = i + 2
        if s.level[i] == -1 and s.word(i) and s.tt(i + 1) == TokenType.ALIAS and s.low(i + 2) == "materialized":
            return None
    limit = s.clause_span(-1, TokenType.LIMIT)
    if not ctes or limit is None or s.clause_span(-1, TokenType.OFFSET) is not None:
        return None
    if s.clause_span(-1, TokenType.ORDER_BY) is None:
        return None
    frm = s.clause_span(-1, TokenType.FROM)
    if frm is None or not s.word(frm[0] + 1) or s.low(frm[0] + 1) not in ctes:
        return None
    paren = ctes[s.low(frm[0] + 1)]
    if s.clause_span(paren, TokenType.LIMIT) is not None:
        return None
    limit_text = gold[limit[1]:limit[2]].strip()
    close = s.start(s.match[paren])
    return _apply(gold, [(limit[1], limit[2], ""), (close, close, f" {limit_text}")]).rstrip()


def _date_difference_as_text_subtraction(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    edits = []
    for i in range(len(s) - 1):
        name = s.low(i)
        if name not in ("julianday", "strftime") or s.tt(i + 1) != TokenType.L_PAREN:
            continue
        close = s.match[i + 1]
        if not (s.tt(close + 1) == TokenType.DASH or s.tt(i - 1) == TokenType.DASH):
            continue
        if name == "julianday":
            inner = s.sql[s.end(i + 1):s.start(close)].strip()
            if inner.lower() == "'now'":
                inner = "DATE('now')"
        else:
            if not (s.tt(i + 2) == TokenType.STRING and s.toks[i + 2].text == "%s" and s.tt(i + 3) == TokenType.COMMA):
                continue
            inner = s.sql[s.end(i + 3):s.start(close)].strip()
        if not inner:
            continue
        edits.append((s.start(i), s.end(close), inner))
    if not edits:
        return None
    return _apply(gold, edits)


_UNIT_DAYS = {"day": 1, "days": 1, "month": 30, "months": 30, "year": 365, "years": 365, "week": 7, "weeks": 7}


def _date_minus_days_as_number(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    edits = []
    for i in range(len(s) - 5):
        if s.low(i) not in ("date", "datetime") or s.tt(i + 1) != TokenType.L_PAREN:
            continue
        close = s.match[i + 1]
        args = [k for k in range(i + 2, close) if s.level[k] == i + 1 and s.tt(k) == TokenType.COMMA]
        if len(args) != 1 or s.tt(args[0] + 1) != TokenType.STRING or args[0] + 1 != close - 1:
            continue
        m = re.fullmatch(r"\s*([+-])\s*(\d+)\s+([a-z]+)\s*", s.toks[args[0] + 1].text.lower())
        if not m or m.group(3) not in _UNIT_DAYS:
            continue
        n = int(m.group(2)) * _UNIT_DAYS[m.group(3)]
        first = s.sql[s.end(i + 1):s.start(args[0])].strip()
        edits.append((s.start(i), s.end(close), f"{s.text(i)}({first}) {m.group(1)} {n}"))
    if not edits:
        return None
    return _apply(gold, edits)


def _interval_seconds_component_for_total(gold: str, s: _Sql, schema: Any, rng: random.Random) -> str | None:
    edits = []
    for i in range(2, len(s)):
        if s.low(i) == "epoch" and s.tt(i) != TokenType.STRING and s.tt(i - 1) == TokenType.L_PAREN and \
                s.low(i - 2) in ("extract", "date_part") and s.tt(i + 1) in (TokenType.FROM, TokenType.COMMA):
            edits.append((s.start(i), s.end(i), _same_case(s.text(i), "second")))
        elif s.tt(i) == TokenType.STRING and s.toks[i].text.lower() == "epoch" and s.tt(i - 1) == TokenType.L_PAREN \
                and s.low(i - 2) == "date_part":
            edits.append((s.start(i), s.end(i), "'second'"))
    if not edits:
        return None
    return _apply(gold, edits)


# ---------------------------------------------------------------------------------------------------------------
# dispatch
# ---------------------------------------------------------------------------------------------------------------

_LAYOUT: dict[str, Callable[..., tuple[str, str] | None]] = {
    "ollama_ndjson_stream": _ollama_ndjson_stream,
    "pygments_span_markup": _pygments_span_markup,
    "ansi_color_codes": _ansi_color_codes,
    "databricks_magic_lines": _databricks_magic_lines,
    "four_backtick_fence": _four_backtick_fence,
    "clause_bullets": _clause_bullets,
    "fim_token_leak": _fim_token_leak,
    "datasette_url_query": _datasette_url_query,
    "xml_cdata_envelope": _xml_cdata_envelope,
    "spider_gold_line": _spider_gold_line,
}
_EDIT: dict[str, Callable[..., str | None]] = {
    "subquery_semicolon": _subquery_semicolon,
    "for_update_lock": _for_update_lock,
    "operator_split_by_space": _operator_split_by_space,
    "qualifier_stutter": _qualifier_stutter,
    "mysql_null_safe_equals": _mysql_null_safe_equals,
    "qualifier_reversed": _qualifier_reversed,
    "strikethrough_edit_marks": _strikethrough_edit_marks,
    "source_citation_marks": _source_citation_marks,
    "teradata_sel_abbrev": _teradata_sel_abbrev,
    "threshold_read_as_superlative": _threshold_read_as_superlative,
    "equality_as_not_opposite": _equality_as_not_opposite,
    "latest_by_surrogate_key": _latest_by_surrogate_key,
    "since_read_as_on": _since_read_as_on,
    "strftime_compared_to_integer": _strftime_compared_to_integer,
    "join_on_either_key": _join_on_either_key,
    "left_join_on_condition_moved_to_where": _left_join_on_condition_moved_to_where,
    "limit_inside_cte": _limit_inside_cte,
    "date_difference_as_text_subtraction": _date_difference_as_text_subtraction,
    "date_minus_days_as_number": _date_minus_days_as_number,
    "interval_seconds_component_for_total": _interval_seconds_component_for_total,
}
_NOTES = {k: k.replace("_", " ") for k in _EDIT}


def _norm(sql: str) -> str:
    return re.sub(r"\s+", " ", sql.strip().rstrip(";").strip())


def damage(gold_sql: str, schema: Any, kind: str, seed: int) -> Damaged | None:
    """The whole reply for ``gold_sql`` damaged in ``kind``; None where the kind does not apply (never raises)."""
    try:
        rng = random.Random(f"fresh25|{kind}|{seed}|{gold_sql}")
        gold = gold_sql.strip()
        if not gold:
            return None
        if kind == "clean":
            return Damaged(kind, _reply(rng, gold), "the gold query")
        s = _Sql(gold, _dialect(schema))
        if kind in _LAYOUT:
            out = _LAYOUT[kind](gold, s, schema, rng)
            if out is None:
                return None
            reply, note = out
            return Damaged(kind, reply, note)
        fn = _EDIT.get(kind)
        if fn is None:
            return None
        sql = fn(gold, s, schema, rng)
        if not sql or _norm(sql) == _norm(gold):
            return None
        return Damaged(kind, _reply(rng, sql), _NOTES[kind])
    except Exception:  # noqa: BLE001 - a kind that cannot be made for this query does not apply
        return None
