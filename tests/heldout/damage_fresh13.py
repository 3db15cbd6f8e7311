"""Held-out damage generator "fresh13" for ``bench/recovery.py``: model replies damaged the way small local coder
models (qwen2.5-coder 7B, llama3.1 8B, sqlcoder) really damage them. Written without reading Cairn's repair code.

Every kind edits the gold SQL as text, at token positions found with sqlglot's tokenizer (the parse tree is only
read, to know which table an alias or a column belongs to); nothing is re-rendered, so ``TREE_KINDS`` is empty.
The gold is first given a harmless house style (one line or clauses on lines, keywords upper or lower case, a
trailing semicolon or not) and then wrapped in a reply whose prose varies (English, Hinglish in Latin script,
Hindi in Devanagari).

clean                 --  the gold query in an ordinary fenced reply.

Family A: the reply as written fails, or its SQL is hard to find.
oneline_fence         A  the whole block on one line: ```sql SELECT ... ``` (the tag is glued to the query).
bare_lang_tag         A  no fence, but the fence's language tag survives as a first line ("sql", "SQL:").
indented_block        A  the query as a 4-space indented markdown code block between paragraphs, no fence.
html_entities         A  the reply went through an HTML escaper: &#x27; &gt; &lt; &quot; &amp; in the SQL.
escaped_string_sql    A  the query as an escaped string literal: literal \\n between lines, \\" for quotes.
template_header_leak  A  the chat template's role header leaks before an unfenced query (<|im_start|>assistant).
diff_block            A  the query given as a ```diff against an earlier draft: -/+ markers on its lines.
pandas_first          A  a pandas solution in the first block, the SQL only in a second block.
yaml_reply            A  a YAML document (query: | ... explanation: ...) instead of a SQL block.
where_repeated        A  a second condition introduced with another WHERE instead of AND.
dangling_and          A  a WHERE clause left ending in AND / OR (a condition the model meant to add).
quote_unclosed        A  a string literal loses its closing (or opening) quote.
fk_name_guess         A  a join key spelled by convention (journal_id, car_id) instead of the real key column.
date_col_invented     A  a date/time column replaced by a conventional invented one (created_at, sale_date...).
nested_agg            A  one aggregate wrapped in another without a subquery (SUM(COUNT(x)), AVG(SUM(x))).
select_into           A  SELECT ... INTO some_table FROM ...: a T-SQL habit; the database refuses it.
underscore_slip       A  a table or column name loses its underscores (review_count -> reviewcount).
ident_misspelled      A  a table or column name with two letters transposed, consistently (catgeory).
group_by_all          A  GROUP BY ALL (the DuckDB / Snowflake shorthand) instead of the key list.
tsql_alias_assign     A  T-SQL alias assignment in the select list: total = SUM(x).
dotted_quoted_ident   A  qualified names quoted as one identifier: "restaurant.rating".

Family B: the reply runs and answers a different question.
twin_column_swap      B  a column taken from the other joined table that has a column of the same name.
today_hardcoded       B  the current date written as a literal date from the model's training time.
total_average_mixup   B  a total asked for and an average given, or the other way round (SUM <-> AVG).
overall_not_per_group B  a per-group question answered with one overall total (group columns and GROUP BY gone).
sort_key_swap         B  a top-N query ordered by another selected column (the label) instead of the metric.
hint_value_swap       B  a filter literal replaced by another known value of the same column.
where_term_dropped    B  one condition of the WHERE clause left out (the whole WHERE when it has one).
rounded_to_whole      B  an average rounded to a whole number "for readability".
desc_forgotten        B  a top-N query's DESC left out, so it returns the bottom N.
limit_forgotten       B  the LIMIT of a top-N query left out: every row comes back.
"""

from __future__ import annotations

import html
import random
import re
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.tokens import TokenType

__all__ = ["DAMAGE_KINDS", "TREE_KINDS", "Damaged", "damage"]

DAMAGE_KINDS: tuple[str, ...] = (
    "clean",
    "oneline_fence", "bare_lang_tag", "indented_block", "html_entities", "escaped_string_sql",
    "template_header_leak", "diff_block", "pandas_first", "yaml_reply", "where_repeated", "dangling_and",
    "quote_unclosed", "fk_name_guess", "date_col_invented", "nested_agg", "select_into", "underscore_slip",
    "ident_misspelled", "group_by_all", "tsql_alias_assign", "dotted_quoted_ident",
    "twin_column_swap", "today_hardcoded", "total_average_mixup", "overall_not_per_group", "sort_key_swap",
    "hint_value_swap", "where_term_dropped", "rounded_to_whole", "desc_forgotten", "limit_forgotten",
)  # fmt: skip
TREE_KINDS: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Damaged:
    kind: str
    reply: str
    note: str


class _Skip(Exception):
    """The kind does not apply to this gold query."""


# ----------------------------------------------------------------------------------------------------- tokens

_NAME_TYPES = {TokenType.VAR, TokenType.IDENTIFIER}
_AGGS = {"count", "sum", "avg", "min", "max"}
_CLAUSE_END = {TokenType.GROUP_BY, TokenType.ORDER_BY, TokenType.HAVING, TokenType.LIMIT, TokenType.UNION,
               TokenType.EXCEPT, TokenType.INTERSECT, TokenType.SEMICOLON, TokenType.WINDOW, TokenType.OFFSET,
               TokenType.FETCH}
_NEWLINE_BEFORE = {TokenType.FROM, TokenType.WHERE, TokenType.GROUP_BY, TokenType.ORDER_BY, TokenType.HAVING,
                   TokenType.LIMIT, TokenType.JOIN, TokenType.LEFT, TokenType.INNER, TokenType.RIGHT,
                   TokenType.FULL, TokenType.CROSS, TokenType.UNION}
_JOIN_PREFIX = {TokenType.LEFT, TokenType.INNER, TokenType.RIGHT, TokenType.FULL, TokenType.CROSS,
                TokenType.OUTER, TokenType.NATURAL}


def _tokens(sql: str, dialect: str) -> list[Any]:
    return list(Dialect.get_or_raise(dialect).tokenize(sql))


def _is_name(tok: Any) -> bool:
    """A token that can stand for a table or column name (VAR, quoted, or a soft keyword such as text/month)."""
    if tok.token_type in _NAME_TYPES:
        return True
    return tok.token_type not in (TokenType.STRING, TokenType.NUMBER) and bool(re.fullmatch(r"[A-Za-z_]\w*", tok.text))


def _splice(sql: str, edits: list[tuple[int, int, str]]) -> str:
    """Apply (start, end_exclusive, text) edits, which must not overlap."""
    out = sql
    for start, end, text in sorted(edits, key=lambda e: e[0], reverse=True):
        out = out[:start] + text + out[end:]
    return out


def _depths(toks: list[Any]) -> list[int]:
    depth, out = 0, []
    for t in toks:
        if t.token_type == TokenType.R_PAREN:
            depth -= 1
        out.append(depth)
        if t.token_type == TokenType.L_PAREN:
            depth += 1
    return out


def _close_paren(toks: list[Any], open_i: int) -> int:
    depth = 0
    for j in range(open_i, len(toks)):
        if toks[j].token_type == TokenType.L_PAREN:
            depth += 1
        elif toks[j].token_type == TokenType.R_PAREN:
            depth -= 1
            if depth == 0:
                return j
    raise _Skip("unbalanced")


def _clause_span(toks: list[Any], start_i: int) -> int:
    """Index one past the last token of the clause whose keyword is at ``start_i`` (same paren depth)."""
    depths = _depths(toks)
    d = depths[start_i]
    j = start_i + 1
    while j < len(toks):
        t = toks[j]
        if depths[j] < d:
            break
        if depths[j] == d and t.token_type in _CLAUSE_END | {TokenType.WHERE}:
            break
        j += 1
    return j


def _where_terms(toks: list[Any]) -> list[tuple[int, list[tuple[int, int]], list[int]]]:
    """Each WHERE clause: (WHERE index, [(first, last) token index of each top-level conjunct], [AND indices])."""
    depths = _depths(toks)
    out = []
    for i, t in enumerate(toks):
        if t.token_type != TokenType.WHERE:
            continue
        end = _clause_span(toks, i)
        d = depths[i]
        ands, between = [], False
        for j in range(i + 1, end):
            if depths[j] != d:
                continue
            if toks[j].token_type == TokenType.BETWEEN:
                between = True
            elif toks[j].token_type == TokenType.AND:
                if between:
                    between = False
                else:
                    ands.append(j)
            elif toks[j].token_type == TokenType.OR:
                ands = []  # an OR at the top: leave this clause alone
                break
        if any(toks[j].token_type == TokenType.OR and depths[j] == d for j in range(i + 1, end)):
            continue
        bounds = [i + 1, *[a + 1 for a in ands]]
        ends = [*[a - 1 for a in ands], end - 1]
        out.append((i, list(zip(bounds, ends)), ands))
    return out


# ------------------------------------------------------------------------------------------------- the query


class _Query:
    """The styled gold with its tokens and what the parse tree says about tables and aliases."""

    def __init__(self, sql: str, schema: Any) -> None:
        self.sql = sql
        self.dialect = "sqlite" if getattr(schema, "dialect", "postgres") == "sqlite" else "postgres"
        self.schema = schema
        self.toks = _tokens(sql, self.dialect)
        self.aliases: dict[str, Any] = {}  # alias or bare name (lower) -> schema Table
        self.tables: list[Any] = []
        self.table_aliases: list[tuple[str, Any]] = []  # (alias as written, Table) per table reference
        try:
            refs = [(f"{n.db}.{n.name}" if n.db else n.name, n.name, n.alias_or_name)
                    for n in sqlglot.parse_one(sql, read=self.dialect).find_all(exp.Table)]
        except sqlglot.errors.SqlglotError:
            refs = self._token_tables()
        for name, bare, alias in refs:
            table = schema.table(name) or schema.table(bare)
            if table is None:
                continue
            self.table_aliases.append((alias, table))
            self.aliases.setdefault(alias.lower(), table)
            self.aliases.setdefault(bare.lower(), table)
            if table not in self.tables:
                self.tables.append(table)
        if not self.tables:
            raise _Skip("no known table")

    def _token_tables(self) -> list[tuple[str, str, str]]:
        """(name, bare name, alias) of table references found by tokens alone (when sqlglot cannot parse)."""
        toks, out = self.toks, []
        for i, t in enumerate(toks):
            if t.token_type not in (TokenType.FROM, TokenType.JOIN) or i + 1 >= len(toks) or not _is_name(toks[i + 1]):
                continue
            j, name = i + 1, toks[i + 1].text
            if j + 2 < len(toks) and toks[j + 1].token_type == TokenType.DOT and _is_name(toks[j + 2]):
                j, name = j + 2, f"{name}.{toks[j + 2].text}"
            bare = toks[j].text
            k = j + 1
            if k < len(toks) and toks[k].token_type == TokenType.ALIAS:
                k += 1
            alias = toks[k].text if k < len(toks) and toks[k].token_type in _NAME_TYPES else bare
            out.append((name, bare, alias))
        return out

    def span(self, i: int, j: int | None = None) -> tuple[int, int]:
        """Character span (start, end exclusive) of tokens i..j inclusive."""
        j = i if j is None else j
        return self.toks[i].start, self.toks[j].end + 1

    def column_refs(self) -> list[tuple[int, Any, str, int | None]]:
        """(token index of the column name, its Table, the schema's column name, qualifier token index or None)."""
        toks, out = self.toks, []
        for i, t in enumerate(toks):
            if not _is_name(t):
                continue
            nxt = toks[i + 1] if i + 1 < len(toks) else None
            if nxt is not None and nxt.token_type in (TokenType.DOT, TokenType.L_PAREN):
                continue
            prev = toks[i - 1] if i else None
            if prev is not None and prev.token_type == TokenType.ALIAS:
                continue
            if prev is not None and prev.token_type == TokenType.DOT:
                if i < 2 or not _is_name(toks[i - 2]):
                    continue
                table = self.aliases.get(toks[i - 2].text.lower())
                if table is None or (i >= 3 and toks[i - 3].token_type == TokenType.DOT):
                    continue
                col = table.column(t.text)
                if col is not None:
                    out.append((i, table, col.name, i - 2))
                continue
            if prev is not None and prev.token_type in (TokenType.FROM, TokenType.JOIN):
                continue
            for table in self.tables:
                col = table.column(t.text)
                if col is not None:
                    out.append((i, table, col.name, None))
                    break
        return out

    def table_tokens(self, table: Any) -> list[int]:
        """Token indices that name ``table`` itself (in FROM/JOIN and as a qualifier)."""
        out = []
        for i, t in enumerate(self.toks):
            if _is_name(t) and t.text.lower() == table.name.lower():
                prev = self.toks[i - 1] if i else None
                nxt = self.toks[i + 1] if i + 1 < len(self.toks) else None
                after_from = prev is not None and prev.token_type in (TokenType.FROM, TokenType.JOIN, TokenType.COMMA,
                                                                      TokenType.DOT)
                qualifier = nxt is not None and nxt.token_type == TokenType.DOT
                if after_from or qualifier:
                    out.append(i)
        return out

    def all_names(self) -> set[str]:
        names = set()
        for table in self.schema.tables:
            names.add(table.name.lower())
            names.update(c.name.lower() for c in table.columns)
        return names


# ---------------------------------------------------------------------------------------------------- style


def _style(gold: str, dialect: str, rng: random.Random, *, multiline: bool | None = None) -> str:
    """The gold in a harmless house style: lines per clause or one line, keyword case, trailing semicolon."""
    sql = gold.strip()
    while sql.endswith(";"):
        sql = sql[:-1].rstrip()
    toks = _tokens(sql, dialect)
    lines = rng.random() < 0.55 if multiline is None else multiline
    lower = rng.random() < 0.3
    edits: list[tuple[int, int, str]] = []
    depths = _depths(toks)
    select_depths = set()
    for i, t in enumerate(toks):
        if t.token_type == TokenType.SELECT:
            select_depths.add(depths[i])
        elif t.token_type == TokenType.R_PAREN:
            select_depths.discard(depths[i] + 1)
        if lower and t.token_type not in _NAME_TYPES | {TokenType.STRING, TokenType.NUMBER} and t.text.isupper() \
                and re.fullmatch(r"[A-Z_ ]+", t.text) and t.text.lower() not in ("null",):
            edits.append((t.start, t.end + 1, t.text.lower()))
        if lines and i and t.token_type in _NEWLINE_BEFORE and depths[i] in select_depths:
            if t.token_type == TokenType.JOIN and toks[i - 1].token_type in _JOIN_PREFIX:
                continue
            if toks[i - 1].token_type == TokenType.L_PAREN:
                continue
            gap_start = toks[i - 1].end + 1
            if sql[gap_start:t.start].strip() == "":
                edits.append((gap_start, t.start, "\n"))
        if lines and t.token_type == TokenType.AND and rng.random() < 0.4:
            gap_start = toks[i - 1].end + 1
            if sql[gap_start:t.start].strip() == "" and depths[i] == 0:
                edits.append((gap_start, t.start, "\n  "))
    sql = _splice(sql, edits)
    if rng.random() < 0.6:
        sql += ";"
    return sql


# ----------------------------------------------------------------------------------------------------- prose

_OPEN = (
    "Here is the query:",
    "Sure! This should do it:",
    "You can get that with the following SQL:",
    "The query below answers the question.",
    "Try this:",
    "Okay, so we need to join the relevant tables and filter. Here's the SQL:",
    "Yeh query aapke sawaal ka jawab degi:",
    "Theek hai, ye rahi query:",
    "Aap yeh SQL chala sakte hain:",
    "यह रही आपकी query:",
    "नीचे दी गई SQL query से जवाब मिल जाएगा:",
    "Based on the schema, this is what you want:",
)
_CLOSE = (
    "",
    "",
    "Let me know if you need anything else.",
    "This returns one row per group.",
    "Isme results ko sort bhi kiya gaya hai.",
    "Agar koi error aaye toh batana.",
    "इससे आपको सही नतीजे मिलेंगे।",
    "Note: adjust the filters if your data uses different values.",
    "The result columns match what you asked for.",
)
_FENCE_TAGS = ("sql", "sql", "sql", "", "SQL", "postgresql", "sqlite", "pgsql")


def _prose(rng: random.Random, pool: tuple[str, ...]) -> str:
    return rng.choice(pool)


def _reply(sql: str, rng: random.Random, dialect: str) -> str:
    """An ordinary reply: a sentence, a fenced block, maybe a closing remark."""
    tag = rng.choice(_FENCE_TAGS)
    if tag in ("postgresql", "pgsql") and dialect == "sqlite":
        tag = "sqlite"
    if tag == "sqlite" and dialect == "postgres":
        tag = "postgresql"
    head, tail = _prose(rng, _OPEN), _prose(rng, _CLOSE)
    body = f"{head}\n\n```{tag}\n{sql}\n```"
    return f"{body}\n\n{tail}".rstrip() + ("\n" if rng.random() < 0.5 else "")


def _one_line(sql: str) -> str:
    return re.sub(r"\s*\n\s*", " ", sql).strip()


# ----------------------------------------------------------------------------------------------------- kinds


def _k_clean(q: _Query, rng: random.Random) -> tuple[str, str]:
    return _reply(q.sql, rng, q.dialect), "gold as written"


def _k_oneline_fence(q: _Query, rng: random.Random) -> tuple[str, str]:
    tag = rng.choice(("sql", "sql", "SQL", "postgresql" if q.dialect == "postgres" else "sqlite"))
    block = f"```{tag} {_one_line(q.sql)} ```"
    head, tail = _prose(rng, _OPEN), _prose(rng, _CLOSE)
    layout = rng.random()
    if layout < 0.4:
        reply = f"{head} {block}"
    elif layout < 0.8:
        reply = f"{head}\n{block}\n{tail}"
    else:
        reply = f"{block}"
    return reply.rstrip(), "fence tag glued to a one-line query"


def _k_bare_lang_tag(q: _Query, rng: random.Random) -> tuple[str, str]:
    tag = rng.choice(("sql", "sql", "SQL:", "sql:", "postgresql" if q.dialect == "postgres" else "sqlite", "SQL Query:"))
    reply = f"{tag}\n{q.sql}"
    if rng.random() < 0.4:
        reply = f"{reply}\n\n{rng.choice(_CLOSE[2:])}"
    return reply, f"language tag line {tag!r} without a fence"


def _k_indented_block(q: _Query, rng: random.Random) -> tuple[str, str]:
    body = "\n".join("    " + line for line in q.sql.splitlines())
    head = _prose(rng, _OPEN)
    tail = rng.choice(_CLOSE[2:])
    return f"{head}\n\n{body}\n\n{tail}", "indented code block, no fence"


def _k_html_entities(q: _Query, rng: random.Random) -> tuple[str, str]:
    if not re.search(r"['\"<>&]", q.sql):
        raise _Skip("nothing an HTML escaper would touch")
    escaped = html.escape(q.sql, quote=True)
    if rng.random() < 0.4:
        escaped = escaped.replace("&#x27;", "&#39;")
    head = _prose(rng, _OPEN)
    tag = rng.choice(("sql", "sql", ""))
    return f"{head}\n\n```{tag}\n{escaped}\n```", "HTML entities in the SQL"


def _k_escaped_string_sql(q: _Query, rng: random.Random) -> tuple[str, str]:
    sql = q.sql if "\n" in q.sql else _style(q.sql, q.dialect, rng, multiline=True)
    if "\n" not in sql:
        raise _Skip("one clause only")
    inner = sql.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    quoted = rng.random() < 0.5
    text = f'"{inner}"' if quoted else inner
    head = rng.choice(("Here is the query string:", "Query (escaped for your code):", "Use this query:",
                       "Ye rahi query string:", "Final SQL:"))
    if rng.random() < 0.5:
        return f"{head}\n```sql\n{text}\n```", "SQL as an escaped string (literal \\n)"
    return f"{head} {text}", "SQL as an escaped string (literal \\n), unfenced"


_HEADERS = (
    "<|im_start|>assistant\n",
    "<|start_header_id|>assistant<|end_header_id|>\n\n",
    "assistant\n\n",
    "### Response:\n",
    "[/INST] ",
    "<|assistant|>\n",
)


def _k_template_header_leak(q: _Query, rng: random.Random) -> tuple[str, str]:
    header = rng.choice(_HEADERS)
    tail = "\n<|im_end|>" if header.startswith("<|im_start|>") and rng.random() < 0.5 else ""
    return f"{header}{q.sql}{tail}", f"template header {header.strip()!r} before the query"


def _k_diff_block(q: _Query, rng: random.Random) -> tuple[str, str]:
    sql = q.sql if "\n" in q.sql else _style(q.sql, q.dialect, rng, multiline=True)
    lines = sql.splitlines()
    if len(lines) < 2:
        raise _Skip("one line")
    k = rng.randrange(len(lines))
    old = lines[k]
    # the earlier draft's version of that line: a plausible small difference
    variants = [re.sub(r"\bLEFT JOIN\b", "JOIN", old), re.sub(r"\bDESC\b", "ASC", old), old.replace(">=", ">"),
                re.sub(r"\bCOUNT\(\*\)", "COUNT(1)", old), old.rstrip(";") + " -- TODO"]
    old = next((v for v in variants if v != old), old + " ")
    out = []
    for i, line in enumerate(lines):
        if i == k:
            out += [f"-{old}", f"+{line}"]
        else:
            out.append((" " if rng.random() < 0.7 else "+") + line)
    head = rng.choice(("Updated query (diff against the previous one):", "Here's the fix:",
                       "Maine pichli query mein yeh change kiya hai:", "Change this line:"))
    return f"{head}\n\n```diff\n" + "\n".join(out) + "\n```", "query shown as a diff"


def _k_pandas_first(q: _Query, rng: random.Random) -> tuple[str, str]:
    names = [t.name for t in q.tables]
    frames = "\n".join(f"{n.lower()} = pd.read_sql_table('{n}', engine)" for n in names)
    py = f"import pandas as pd\n\n{frames}\n"
    if len(names) > 1:
        py += f"df = {names[0].lower()}.merge({names[1].lower()})\n"
    else:
        py += f"df = {names[0].lower()}\n"
    py += "result = df  # filter / group as needed\nprint(result.head())"
    head = rng.choice(("You can do this in pandas:", "In Python with pandas:", "Pandas mein aise kar sakte hain:"))
    mid = rng.choice(("Or directly in SQL:", "The equivalent SQL:", "SQL mein:", "Or as a query:"))
    return (f"{head}\n\n```python\n{py}\n```\n\n{mid}\n\n```sql\n{q.sql}\n```",
            "pandas block first, SQL second")


def _k_yaml_reply(q: _Query, rng: random.Random) -> tuple[str, str]:
    sql = q.sql if rng.random() < 0.5 else _style(q.sql, q.dialect, rng, multiline=True)
    body = "\n".join("  " + line for line in sql.splitlines())
    tables = ", ".join(t.name for t in q.tables)
    doc = f"query: |\n{body}\ntables: [{tables}]\nexplanation: {rng.choice(('answers the question', 'aggregates per group', 'joins and filters'))}"
    if rng.random() < 0.6:
        return f"```yaml\n{doc}\n```", "YAML document in a yaml fence"
    return doc, "bare YAML document"


def _k_where_repeated(q: _Query, rng: random.Random) -> tuple[str, str]:
    clauses = _where_terms(q.toks)
    ands = [a for _, _, a_list in clauses for a in a_list]
    if ands:
        a = rng.choice(ands)
        word = "WHERE" if q.toks[a].text.isupper() else "where"
        return _reply(_splice(q.sql, [(*q.span(a), word)]), rng, q.dialect), "AND written as a second WHERE"
    if not clauses:
        raise _Skip("no WHERE")
    # one condition: the model tacks a null check on with a second WHERE
    w, terms, _ = rng.choice(clauses)
    refs = [(i, qi) for i, _, _, qi in q.column_refs() if terms[0][0] <= i <= terms[0][1]]
    if not refs:
        raise _Skip("no column in the condition")
    i, qi = rng.choice(refs)
    col = q.sql[q.toks[qi if qi is not None else i].start:q.toks[i].end + 1]
    word = "WHERE" if q.toks[w].text.isupper() else "where"
    end = q.toks[terms[0][1]].end + 1
    return (_reply(_splice(q.sql, [(end, end, f" {word} {col} IS NOT NULL")]), rng, q.dialect),
            "second condition added with another WHERE")


def _k_dangling_and(q: _Query, rng: random.Random) -> tuple[str, str]:
    clauses = _where_terms(q.toks)
    if not clauses:
        raise _Skip("no WHERE")
    _, terms, _ = rng.choice(clauses)
    last = terms[-1][1]
    word = rng.choice(("AND", "AND", "OR")) if q.toks[last].text != q.toks[last].text.lower() else "and"
    end = q.toks[last].end + 1
    return _reply(_splice(q.sql, [(end, end, f" {word}")]), rng, q.dialect), f"WHERE clause ends in {word}"


def _k_quote_unclosed(q: _Query, rng: random.Random) -> tuple[str, str]:
    strings = [i for i, t in enumerate(q.toks) if t.token_type == TokenType.STRING and q.sql[t.start] == "'"]
    if not strings:
        raise _Skip("no string literal")
    i = rng.choice(strings)
    start, end = q.span(i)
    if rng.random() < 0.75:
        edit = (end - 1, end, "")
        note = "closing quote missing"
    else:
        edit = (start, start + 1, "")
        note = "opening quote missing"
    return _reply(_splice(q.sql, [edit]), rng, q.dialect), note


def _stem(name: str) -> str:
    low = name.split(".")[-1].lower()
    if low.endswith("ies"):
        return low[:-3] + "y"
    if low.endswith("sses"):
        return low[:-2]
    if low.endswith("s") and not low.endswith("ss"):
        return low[:-1]
    return low


def _k_fk_name_guess(q: _Query, rng: random.Random) -> tuple[str, str]:
    toks, options = q.toks, []
    for i, t in enumerate(toks):
        if t.token_type != TokenType.ON:
            continue
        seq = toks[i + 1:i + 8]
        if len(seq) < 7 or seq[1].token_type != TokenType.DOT or seq[3].token_type != TokenType.EQ \
                or seq[5].token_type != TokenType.DOT:
            continue
        left, right = q.aliases.get(seq[0].text.lower()), q.aliases.get(seq[4].text.lower())
        if left is None or right is None:
            continue
        for side, table, other in ((i + 3, left, right), (i + 7, right, left)):
            stem = _stem(other.name)
            for guess in (f"{stem}_id", f"{stem}id", f"id_{stem}", f"{stem}_key"):
                if table.column(guess) is None and guess != toks[side].text.lower():
                    options.append((side, guess, table.name))
                    break
    if not options:
        raise _Skip("no qualified join key")
    side, guess, table = rng.choice(options)
    if toks[side].text[:1].isupper() and rng.random() < 0.5:
        guess = "".join(p.capitalize() for p in guess.split("_"))
    return (_reply(_splice(q.sql, [(*q.span(side), guess)]), rng, q.dialect),
            f"join key {table}.{toks[side].text} guessed as {guess}")


_DATE_WORDS = re.compile(r"date|time|_at$|^dt|day$|created|updated|timestamp", re.I)


def _is_dateish(col: Any) -> bool:
    typ = (col.type or "").lower()
    if "date" in typ or "time" in typ:
        return True
    return "text" in typ and bool(_DATE_WORDS.search(col.name)) or bool(re.search(r"date|timestamp", col.name, re.I))


def _k_date_col_invented(q: _Query, rng: random.Random) -> tuple[str, str]:
    refs = [(i, table, name, qi) for i, table, name, qi in q.column_refs()
            if (c := table.column(name)) is not None and _is_dateish(c)]
    if not refs:
        raise _Skip("no date column")
    _, table, name, _ = rng.choice(refs)
    stem = _stem(table.name)
    known = q.all_names()
    guesses = [g for g in ("created_at", f"{stem}_date", "date_created", f"{stem}_timestamp", "transaction_date",
                           "event_time", "created_date") if g not in known]
    guess = rng.choice(guesses)
    if name[:1].islower() is False or re.search(r"[a-z][A-Z]", name):
        guess = guess.split("_")[0] + "".join(p.capitalize() for p in guess.split("_")[1:])
    edits = [(*q.span(i), guess) for i, t, n, _ in refs if t is table and n == name]
    return _reply(_splice(q.sql, edits), rng, q.dialect), f"{table.name}.{name} written as {guess}"


def _agg_calls(q: _Query, names: set[str] = _AGGS) -> list[tuple[int, int]]:
    """(function token, closing paren) of aggregate calls that are not window functions."""
    toks, out = q.toks, []
    for i, t in enumerate(toks[:-1]):
        if t.text.lower() in names and toks[i + 1].token_type == TokenType.L_PAREN \
                and (i == 0 or toks[i - 1].token_type != TokenType.DOT):
            close = _close_paren(toks, i + 1)
            if close + 1 < len(toks) and toks[close + 1].token_type in (TokenType.OVER, TokenType.FILTER):
                continue
            out.append((i, close))
    return out


def _k_nested_agg(q: _Query, rng: random.Random) -> tuple[str, str]:
    calls = _agg_calls(q)
    if not calls:
        raise _Skip("no aggregate")
    i, close = rng.choice(calls)
    inner = q.toks[i].text.lower()
    outer = rng.choice({"count": ("SUM", "AVG", "MAX"), "sum": ("AVG", "MAX", "SUM"), "avg": ("MAX", "AVG"),
                        "min": ("MAX",), "max": ("MIN", "COUNT")}[inner])
    if q.toks[i].text.islower():
        outer = outer.lower()
    start, end = q.toks[i].start, q.toks[close].end + 1
    return (_reply(_splice(q.sql, [(start, start, f"{outer}("), (end, end, ")")]), rng, q.dialect),
            f"{outer}({inner.upper()}(...)) nested")


def _k_select_into(q: _Query, rng: random.Random) -> tuple[str, str]:
    depths = _depths(q.toks)
    froms = [i for i, t in enumerate(q.toks) if t.token_type == TokenType.FROM and depths[i] == 0]
    if not froms:
        raise _Skip("no top-level FROM")
    i = froms[-1] if q.toks[0].token_type == TokenType.WITH else froms[0]
    target = rng.choice(("result", "temp_results", "#results", "query_output", "report"))
    gap = q.toks[i - 1].end + 1
    sep = q.sql[gap:q.toks[i].start]
    into = "INTO" if q.toks[i].text.isupper() else "into"
    return (_reply(_splice(q.sql, [(gap, q.toks[i].start, f"{sep}{into} {target}{sep}")]), rng, q.dialect),
            f"SELECT ... INTO {target}")


def _name_choices(q: _Query) -> list[tuple[str, list[int], str]]:
    """(schema name, token indices to rewrite, what) for each column and table the query names."""
    groups: dict[tuple[str, str], list[int]] = {}
    for i, table, name, _ in q.column_refs():
        groups.setdefault((table.name, name), []).append(i)
    out = [(name, idx, f"column {tname}.{name}") for (tname, name), idx in groups.items()]
    for table in q.tables:
        idx = q.table_tokens(table)
        if idx:
            out.append((table.name, idx, f"table {table.name}"))
    return out


def _k_underscore_slip(q: _Query, rng: random.Random) -> tuple[str, str]:
    known = q.all_names()
    options = [(n, idx, what) for n, idx, what in _name_choices(q)
               if "_" in n.strip("_") and n.replace("_", "").lower() not in known
               and all(q.toks[i].token_type != TokenType.IDENTIFIER for i in idx)]
    if not options:
        raise _Skip("no name with an underscore")
    name, idx, what = rng.choice(options)
    new = name.replace("_", "") if rng.random() < 0.85 else name.replace("_", " ", 1)
    if " " in new:
        new = '"' + new + '"'
    edits = [(*q.span(i), new if q.toks[i].text == name else new.lower() if q.toks[i].text.islower() else new)
             for i in idx]
    return _reply(_splice(q.sql, edits), rng, q.dialect), f"{what} written {new}"


def _misspell(name: str, rng: random.Random) -> str | None:
    spots = [k for k in range(1, len(name) - 2) if name[k].isalpha() and name[k + 1].isalpha()
             and name[k].lower() != name[k + 1].lower() and name[k].islower() and name[k + 1].islower()]
    if not spots:
        return None
    k = rng.choice(spots)
    return name[:k] + name[k + 1] + name[k] + name[k + 2:]


def _k_ident_misspelled(q: _Query, rng: random.Random) -> tuple[str, str]:
    known = q.all_names()
    options = [(n, idx, what) for n, idx, what in _name_choices(q) if len(n) >= 5
               and all(q.toks[i].token_type != TokenType.IDENTIFIER for i in idx)]
    rng.shuffle(options)
    for name, idx, what in options:
        new = _misspell(name, rng)
        if new is None or new.lower() in known:
            continue
        edits = [(*q.span(i), new if q.toks[i].text == name else _misspell_like(q.toks[i].text, name, new))
                 for i in idx]
        return _reply(_splice(q.sql, edits), rng, q.dialect), f"{what} misspelled {new}"
    raise _Skip("no name long enough")


def _misspell_like(text: str, name: str, new: str) -> str:
    if text.lower() == name.lower():
        return new.lower() if text.islower() else new.upper() if text.isupper() else new
    return new


def _k_group_by_all(q: _Query, rng: random.Random) -> tuple[str, str]:
    groups = [i for i, t in enumerate(q.toks) if t.token_type == TokenType.GROUP_BY]
    if not groups:
        raise _Skip("no GROUP BY")
    i = rng.choice(groups)
    end = _clause_span(q.toks, i)
    if end <= i + 1:
        raise _Skip("empty GROUP BY")
    word = "ALL" if q.toks[i].text.isupper() else "all"
    return (_reply(_splice(q.sql, [(q.toks[i + 1].start, q.toks[end - 1].end + 1, word)]), rng, q.dialect),
            "GROUP BY ALL")


def _select_items(q: _Query) -> list[tuple[int, int, int | None]]:
    """Top-level select list items of the outermost SELECT: (first token, last token, alias token or None)."""
    depths = _depths(q.toks)
    sel = next((i for i, t in enumerate(q.toks) if t.token_type == TokenType.SELECT and depths[i] == 0), None)
    if sel is None:
        raise _Skip("no top-level SELECT")
    frm = next((j for j in range(sel + 1, len(q.toks)) if q.toks[j].token_type == TokenType.FROM and depths[j] == 0),
               None)
    if frm is None:
        raise _Skip("no FROM")
    start = sel + 1
    if q.toks[start].token_type == TokenType.DISTINCT:
        start += 1
    items, first = [], start
    for j in range(start, frm + 1):
        if j == frm or (q.toks[j].token_type == TokenType.COMMA and depths[j] == 0):
            last = j - 1
            alias = None
            if last - 1 >= first and q.toks[last - 1].token_type == TokenType.ALIAS:
                alias = last
            items.append((first, last, alias))
            first = j + 1
    return items


def _k_tsql_alias_assign(q: _Query, rng: random.Random) -> tuple[str, str]:
    items = [it for it in _select_items(q) if it[2] is not None]
    if not items:
        raise _Skip("no aliased select item")
    chosen = items if rng.random() < 0.5 else [rng.choice(items)]
    edits = []
    for first, last, alias in chosen:
        expr_start, expr_end = q.toks[first].start, q.toks[alias - 2].end + 1
        edits.append((expr_start, q.toks[alias].end + 1, f"{q.toks[alias].text} = {q.sql[expr_start:expr_end]}"))
    return _reply(_splice(q.sql, edits), rng, q.dialect), "alias = expression (T-SQL style)"


def _k_dotted_quoted_ident(q: _Query, rng: random.Random) -> tuple[str, str]:
    refs = [(i, qi) for i, _, _, qi in q.column_refs() if qi is not None]
    if not refs:
        raise _Skip("no qualified column")
    if rng.random() < 0.3:
        refs = [rng.choice(refs)]
    edits = [(q.toks[qi].start, q.toks[i].end + 1, f'"{q.toks[qi].text}.{q.toks[i].text}"') for i, qi in refs]
    return _reply(_splice(q.sql, edits), rng, q.dialect), f"{len(edits)} qualified name(s) quoted whole"


# --- family B


def _on_pairs(q: _Query) -> set[frozenset[tuple[str, str]]]:
    """Pairs of (alias, column) equated in an ON or WHERE clause."""
    pairs, toks = set(), q.toks
    for i in range(len(toks) - 6):
        seq = toks[i:i + 7]
        if seq[1].token_type == TokenType.DOT and seq[3].token_type == TokenType.EQ and seq[5].token_type == TokenType.DOT:
            pairs.add(frozenset({(seq[0].text.lower(), seq[2].text.lower()), (seq[4].text.lower(), seq[6].text.lower())}))
    return pairs


def _k_twin_column_swap(q: _Query, rng: random.Random) -> tuple[str, str]:
    depths = _depths(q.toks)
    defs: dict[str, tuple[Any, int]] = {}  # alias -> (Table, token index of its definition)
    for i, t in enumerate(q.toks[:-1]):
        if t.token_type not in (TokenType.FROM, TokenType.JOIN, TokenType.COMMA) or not _is_name(q.toks[i + 1]):
            continue
        j = i + 1
        if j + 2 < len(q.toks) and q.toks[j + 1].token_type == TokenType.DOT:
            j += 2
        table = q.aliases.get(q.toks[j].text.lower())
        if table is None or table.name.lower() != q.toks[j].text.lower():
            continue
        k = j + 1 + (j + 1 < len(q.toks) and q.toks[j + 1].token_type == TokenType.ALIAS)
        alias = q.toks[k].text if k < len(q.toks) and q.toks[k].token_type in _NAME_TYPES else q.toks[j].text
        defs.setdefault(alias.lower(), (table, j))

    def same_scope(a: int, b: int) -> bool:
        lo, hi = min(a, b), max(a, b)
        return depths[a] == depths[b] and all(depths[x] >= depths[lo] for x in range(lo, hi + 1))

    aliases = {alias: table for alias, (table, _) in defs.items()}
    if len(aliases) < 2:
        raise _Skip("one table")
    pairs = _on_pairs(q)
    on_spans = set()
    for i, t in enumerate(q.toks):
        if t.token_type == TokenType.ON:
            on_spans.update(range(i, i + 8))
    in_count = {j for f, close in _agg_calls(q, {"count"}) for j in range(f, close + 1)}
    options = []
    for i, table, name, qi in q.column_refs():
        if qi is None or i in on_spans or i in in_count:
            continue
        me = q.toks[qi].text.lower()
        if me not in defs:
            continue
        for alias, other in aliases.items():
            if alias == me or other.column(name) is None or not same_scope(defs[me][1], defs[alias][1]):
                continue
            if frozenset({(me, name.lower()), (alias, name.lower())}) in pairs:
                continue
            options.append((i, qi, alias, other.column(name).name))
    if not options:
        raise _Skip("no twin column")
    i, qi, alias, name = rng.choice(options)
    original = q.toks[defs[alias][1]].text if q.toks[defs[alias][1]].text.lower() == alias else alias
    k = defs[alias][1]
    for x in (k + 1, k + 2):
        if x < len(q.toks) and q.toks[x].text.lower() == alias:
            original = q.toks[x].text
    return (_reply(_splice(q.sql, [(*q.span(qi), original)]), rng, q.dialect),
            f"{q.toks[qi].text}.{name} taken from {original}")


_TODAYS = ("2023-10-01", "2024-01-15", "2023-12-31", "2024-03-01", "2023-06-30", "2024-05-20")


def _k_today_hardcoded(q: _Query, rng: random.Random) -> tuple[str, str]:
    day = rng.choice(_TODAYS)
    edits, toks = [], q.toks
    for i, t in enumerate(toks):
        low = t.text.lower()
        if t.token_type == TokenType.CURRENT_DATE:
            edits.append((*q.span(i), f"DATE '{day}'" if q.dialect == "postgres" else f"'{day}'"))
        elif t.token_type in (TokenType.CURRENT_TIMESTAMP, TokenType.CURRENT_DATETIME):
            edits.append((*q.span(i), f"TIMESTAMP '{day} 00:00:00'" if q.dialect == "postgres" else f"'{day} 00:00:00'"))
        elif low == "now" and i + 2 < len(toks) and toks[i + 1].token_type == TokenType.L_PAREN \
                and toks[i + 2].token_type == TokenType.R_PAREN:
            edits.append((t.start, toks[i + 2].end + 1, f"TIMESTAMP '{day} 12:00:00'"))
        elif t.token_type == TokenType.STRING and low == "now":
            edits.append((*q.span(i), f"'{day}'"))
    if not edits:
        raise _Skip("no current date")
    return _reply(_splice(q.sql, edits), rng, q.dialect), f"today written as {day}"


def _k_total_average_mixup(q: _Query, rng: random.Random) -> tuple[str, str]:
    calls = [(i, close) for i, close in _agg_calls(q, {"sum", "avg"}) if q.toks[i + 2].token_type != TokenType.DISTINCT]
    if not calls:
        raise _Skip("no SUM or AVG")
    i, _ = rng.choice(calls)
    old = q.toks[i].text
    new = {"sum": "avg", "avg": "sum"}[old.lower()]
    new = new.upper() if old.isupper() else new
    return _reply(_splice(q.sql, [(*q.span(i), new)]), rng, q.dialect), f"{old} written as {new}"


def _k_overall_not_per_group(q: _Query, rng: random.Random) -> tuple[str, str]:
    depths = _depths(q.toks)
    groups = [i for i, t in enumerate(q.toks) if t.token_type == TokenType.GROUP_BY and depths[i] == 0]
    if len(groups) != 1 or any(t.token_type == TokenType.OVER for t in q.toks):
        raise _Skip("no single top-level GROUP BY")
    items = _select_items(q)
    agg = {f for f, _ in _agg_calls(q)}
    keep = [it for it in items if any(j in agg for j in range(it[0], it[1] + 1))]
    drop = [it for it in items if it not in keep]
    if not keep or not drop:
        raise _Skip("no group column beside an aggregate")
    edits = []
    kept_text = ", ".join(q.sql[q.toks[f].start:q.toks[l].end + 1] for f, l, _ in keep)
    edits.append((q.toks[items[0][0]].start, q.toks[items[-1][1]].end + 1, kept_text))
    g = groups[0]
    g_end = _clause_span(q.toks, g)
    edits.append((q.toks[g - 1].end + 1, q.toks[g_end - 1].end + 1, ""))
    orders = [i for i, t in enumerate(q.toks) if t.token_type == TokenType.ORDER_BY and depths[i] == 0 and i > g]
    if orders:
        o_end = _clause_span(q.toks, orders[0])
        edits.append((q.toks[orders[0] - 1].end + 1, q.toks[o_end - 1].end + 1, ""))
    return _reply(_splice(q.sql, edits), rng, q.dialect), "per-group question answered with one overall total"


def _top_order(q: _Query) -> tuple[int, int, int]:
    """(ORDER BY index, end of its clause, LIMIT index) of the outermost query; _Skip when it has no LIMIT."""
    depths = _depths(q.toks)
    orders = [i for i, t in enumerate(q.toks) if t.token_type == TokenType.ORDER_BY and depths[i] == 0]
    limits = [i for i, t in enumerate(q.toks) if t.token_type == TokenType.LIMIT and depths[i] == 0]
    if not orders or not limits or limits[-1] < orders[-1]:
        raise _Skip("no top-level ORDER BY ... LIMIT")
    o = orders[-1]
    return o, _clause_span(q.toks, o), limits[-1]


def _order_items(q: _Query, o: int, end: int) -> list[tuple[int, int, int]]:
    """(first expr token, last expr token, last token incl. direction/NULLS) of each ORDER BY item."""
    depths, items, first = _depths(q.toks), [], o + 1
    for j in range(o + 1, end + 1):
        if j == end or (q.toks[j].token_type == TokenType.COMMA and depths[j] == depths[o]):
            last = j - 1
            expr_last = last
            while expr_last > first and q.toks[expr_last].text.upper() in ("ASC", "DESC", "NULLS", "FIRST", "LAST"):
                expr_last -= 1
            items.append((first, expr_last, last))
            first = j + 1
    return items


def _k_sort_key_swap(q: _Query, rng: random.Random) -> tuple[str, str]:
    o, end, _ = _top_order(q)
    items = [it for it in _order_items(q, o, end) if q.toks[it[0]].token_type != TokenType.CASE]
    if not items:
        raise _Skip("no plain sort key")
    first, last, _ = items[0]
    key = q.sql[q.toks[first].start:q.toks[last].end + 1]
    choices = []
    for f, l, alias in _select_items(q):
        text = q.toks[alias].text if alias is not None else q.sql[q.toks[f].start:q.toks[l].end + 1]
        expr_text = q.sql[q.toks[f].start:q.toks[(alias - 2) if alias is not None else l].end + 1]
        if key.lower() in (text.lower(), expr_text.lower()) or text == "*":
            continue
        if q.dialect == "postgres" and alias is None and any(t.token_type == TokenType.L_PAREN for t in q.toks[f:l + 1]):
            continue
        choices.append(text)
    if not choices:
        raise _Skip("no other select column")
    new = rng.choice(choices)
    return (_reply(_splice(q.sql, [(q.toks[first].start, q.toks[last].end + 1, new)]), rng, q.dialect),
            f"sorted by {new} instead of {key}")


def _k_hint_value_swap(q: _Query, rng: random.Random) -> tuple[str, str]:
    refs = {i: (table, name) for i, table, name, _ in q.column_refs()}
    options = []
    for i, t in enumerate(q.toks):
        if t.token_type != TokenType.STRING or i < 2:
            continue
        op = q.toks[i - 1]
        if op.token_type not in (TokenType.EQ, TokenType.NEQ) or (i - 2) not in refs:
            continue
        table, name = refs[i - 2]
        col = table.column(name)
        hints = [h for h in (col.value_hints if col is not None else ()) if h.lower() != t.text.lower() and "'" not in h]
        if hints and any(h.lower() == t.text.lower() for h in col.value_hints):
            options.append((i, hints))
        elif hints and col is not None and len(col.value_hints) >= 2:
            options.append((i, hints))
    if not options:
        raise _Skip("no literal of a hinted column")
    i, hints = rng.choice(options)
    new = rng.choice(hints)
    return _reply(_splice(q.sql, [(*q.span(i), f"'{new}'")]), rng, q.dialect), f"{q.toks[i].text!r} -> {new!r}"


def _k_where_term_dropped(q: _Query, rng: random.Random) -> tuple[str, str]:
    options = []
    for w, terms, ands in _where_terms(q.toks):
        for k, (first, last) in enumerate(terms):
            seq = q.toks[first:last + 1]
            if len(seq) == 7 and seq[1].token_type == TokenType.DOT and seq[3].token_type == TokenType.EQ \
                    and seq[5].token_type == TokenType.DOT:
                continue  # an implicit join condition: dropping it makes a cross product
            if len(terms) == 1:
                options.append((q.toks[w].start, q.toks[last].end + 1, "whole WHERE"))
            elif k == 0:
                options.append((q.toks[first].start, q.toks[ands[0] + 1].start, "first condition"))
            else:
                options.append((q.toks[ands[k - 1] - 1].end + 1, q.toks[last].end + 1, f"condition {k + 1}"))
    if not options:
        raise _Skip("no droppable condition")
    start, end, what = rng.choice(options)
    dropped = " ".join(q.sql[start:end].split())
    return _reply(_splice(q.sql, [(start, end, "")]), rng, q.dialect), f"{what} dropped: {dropped[:60]}"


def _k_rounded_to_whole(q: _Query, rng: random.Random) -> tuple[str, str]:
    spans = [(q.toks[i].start, q.toks[close].end + 1) for i, close in _agg_calls(q, {"avg"})]
    for first, last, alias in _select_items(q):
        expr_last = alias - 2 if alias is not None else last
        if any(t.token_type == TokenType.SLASH for t in q.toks[first:expr_last + 1]) \
                and q.toks[first].text.lower() not in ("round", "cast", "avg"):
            spans.append((q.toks[first].start, q.toks[expr_last].end + 1))
    if not spans:
        raise _Skip("no average or ratio")
    start, end = rng.choice(spans)
    inner = q.sql[start:end]
    new = f"ROUND({inner})" if rng.random() < 0.6 else f"CAST({inner} AS INTEGER)"
    return _reply(_splice(q.sql, [(start, end, new)]), rng, q.dialect), f"{new[:40]}..."


def _k_desc_forgotten(q: _Query, rng: random.Random) -> tuple[str, str]:
    o, end, _ = _top_order(q)
    items = [it for it in _order_items(q, o, end) if q.toks[it[0]].token_type != TokenType.CASE]
    descs = [j for f, el, last in items for j in range(el + 1, last + 1) if q.toks[j].text.upper() == "DESC"]
    if not descs:
        raise _Skip("no DESC")
    j = descs[0]
    return _reply(_splice(q.sql, [(q.toks[j - 1].end + 1, q.toks[j].end + 1, "")]), rng, q.dialect), "DESC left out"


def _k_limit_forgotten(q: _Query, rng: random.Random) -> tuple[str, str]:
    _, _, lim = _top_order(q)
    end = _clause_span(q.toks, lim)
    stop = q.toks[end - 1].end + 1
    return _reply(_splice(q.sql, [(q.toks[lim - 1].end + 1, stop, "")]), rng, q.dialect), "LIMIT left out"


_KINDS = {name: globals()[f"_k_{name}"] for name in DAMAGE_KINDS}


def damage(gold_sql: str, schema: Any, kind: str, seed: int) -> Damaged | None:
    """The whole reply a model might send for ``gold_sql`` damaged in ``kind``; None when the kind does not apply."""
    try:
        fn = _KINDS.get(kind)
        if fn is None:
            return None
        rng = random.Random(f"fresh13|{kind}|{seed}|{gold_sql}")
        dialect = "sqlite" if getattr(schema, "dialect", "postgres") == "sqlite" else "postgres"
        styled = _style(gold_sql, dialect, rng)
        q = _Query(styled, schema)
        reply, note = fn(q, rng)
        return Damaged(kind, reply, note)
    except _Skip:
        return None
    except Exception:  # noqa: BLE001 -- a generator never raises
        return None
