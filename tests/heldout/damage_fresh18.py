"""Held-out damage generator ``fresh18``: damaged replies of 7B-8B coder models, made from gold queries by text edits.

Written without reading Cairn's extraction, checking or repair code. Every kind edits the gold's text at positions
found with sqlglot's tokenizer or parse tree (never re-rendered from a tree), or wraps the gold in a reply layout.

=========================  ======  ==========================================================================================
kind                       family  what the reply does
=========================  ======  ==========================================================================================
clean                      -       the gold query in an ordinary ```sql fenced reply
quote_fence                A       the block is "fenced" with three single quotes (''' sql ... ''') instead of backticks
jira_code_macro            A       Jira/Confluence wiki markup: an ``h3.`` heading and a ``{code:sql}`` ... ``{code}`` macro
wiki_syntaxhighlight       A       MediaWiki markup: ``<syntaxhighlight lang="sql">`` (or ``<source>``) around the query
r_dbi_call                 A       an R snippet: ``DBI::dbGetQuery(con, "...")`` with the SQL as an R string, in an ```r block
markdown_fenced_reply      A       the whole reply wrapped in a ```markdown fence, the ```sql block nested inside it
select_keyword_omitted     A       the reply continues a prompt that ended in ``SELECT``: the leading SELECT keyword is missing
result_format_suffix       A       an output-format clause from another engine appended (ClickHouse FORMAT ..., T-SQL FOR JSON)
mysql_with_rollup          A       MySQL's ``GROUP BY ... WITH ROLLUP`` modifier appended to the grouping
duckdb_from_first          A       DuckDB's FROM-first form: ``FROM t [joins] SELECT cols WHERE ...``
cql_allow_filtering        A       Cassandra CQL's ``ALLOW FILTERING`` appended to a filtered query
sort_word_spelled_out      A       sort direction written as LINQ/pandas words: ``ORDER BY x DESCENDING`` / ``ASCENDING``
nulls_before_direction     A       the NULLS FIRST/LAST modifier written before the direction: ``ORDER BY x NULLS LAST DESC``
lateral_alias_reuse        A       a later select item reuses an earlier item's alias (``SELECT COUNT(*) AS n, n * 1.0 / ...``)
homoglyph_letters          A       one letter of a table, column or keyword is a Cyrillic look-alike (``rеstaurant``)
compound_name_reversed     A       a two-part name with its words in the other order (``type_food``, ``author_domain``)
template_table_name        A       a table written as a template placeholder (``your_table``) with "replace it" advice
alias_declaration_dropped  A       a table alias is used (``r.name``) but its declaration (``restaurant AS r``) is missing
cte_keyword_repeated       A       ``WITH`` repeated before every CTE: ``WITH a AS (...), WITH b AS (...)``
currency_symbol_literal    A       a money amount written with its currency sign: ``sale_price > $30000``
like_word_spaces           B       a ``'%word%'`` pattern padded for "whole word" matching: ``'% word %'``
extreme_value_for_row      B       "which row has the most X" answered with the value: ``SELECT MAX(x)`` instead of the row
left_join_count_star       B       after a LEFT JOIN, ``COUNT(child.col)`` written ``COUNT(*)``: parents without rows count 1
grouping_parens_dropped    B       grouping parentheses dropped: ``a AND (b OR c)`` -> ``a AND b OR c``, ``(a - b) / c`` -> ``a - b / c``
window_partition_dropped   B       ``OVER (PARTITION BY k ORDER BY ...)`` loses its PARTITION BY: one ranking over all rows
strftime_code_case         B       a date format code in the wrong case: ``%m`` -> ``%M`` (minutes), ``%w`` -> ``%W``, ``MI``/``MM``
ratio_denominator_copy     B       a ratio of two CASE counts with the numerator's condition copied into the denominator
distinct_count_as_groups   B       "how many distinct x" written as ``COUNT(*) ... GROUP BY x`` (a count per x, not the count)
exists_uncorrelated        B       ``x [NOT] IN (SELECT ...)`` rewritten as ``[NOT] EXISTS (SELECT ...)`` without correlation
anti_join_not_equal        B       "rows without a match" (LEFT JOIN ... IS NULL) written as ``JOIN ... ON a.k <> b.k``
between_bounds_reversed    B       ``BETWEEN high AND low``: the larger bound first (e.g. CURRENT_DATE first), so nothing matches
=========================  ======  ==========================================================================================

Family A: the reply as written fails (or the SQL is hard to find). Family B: the SQL runs and answers another question.
``damage`` returns None where a kind does not fit the gold query, or where the edit would leave the SQL unchanged.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import sqlglot
from sqlglot import exp

DAMAGE_KINDS: tuple[str, ...] = (
    "clean",
    # family A
    "quote_fence", "jira_code_macro", "wiki_syntaxhighlight", "r_dbi_call", "markdown_fenced_reply",
    "select_keyword_omitted", "result_format_suffix", "mysql_with_rollup", "duckdb_from_first", "cql_allow_filtering",
    "sort_word_spelled_out", "nulls_before_direction", "lateral_alias_reuse", "homoglyph_letters",
    "compound_name_reversed", "template_table_name", "alias_declaration_dropped", "cte_keyword_repeated",
    "currency_symbol_literal",
    # family B
    "like_word_spaces", "extreme_value_for_row", "left_join_count_star", "grouping_parens_dropped",
    "window_partition_dropped", "strftime_code_case", "ratio_denominator_copy", "distinct_count_as_groups",
    "exists_uncorrelated", "anti_join_not_equal", "between_bounds_reversed",
)  # fmt: skip
TREE_KINDS: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Damaged:
    kind: str
    reply: str
    note: str


# --------------------------------------------------------------------------------------------------------------------
# tokens, edits, replies


class Tok(NamedTuple):
    type: str  # sqlglot TokenType name
    text: str
    start: int
    end: int  # exclusive
    depth: int  # parenthesis depth; a parenthesis itself has the depth outside it


@dataclass
class Ctx:
    sql: str
    schema: Any
    rng: random.Random
    dialect: str
    toks: list[Tok]
    _tree: Any = None

    @property
    def tree(self) -> exp.Expression:
        if self._tree is None:
            self._tree = sqlglot.parse_one(self.sql, read=self.dialect)
        return self._tree


CLAUSE_STOPS = frozenset({"WHERE", "GROUP_BY", "HAVING", "ORDER_BY", "LIMIT", "OFFSET", "WINDOW", "QUALIFY", "UNION",
                          "EXCEPT", "INTERSECT", "SEMICOLON", "FETCH"})  # fmt: skip
AFTER_GROUP = frozenset({"HAVING", "ORDER_BY", "LIMIT", "OFFSET", "WINDOW", "QUALIFY", "UNION", "EXCEPT", "INTERSECT",
                         "SEMICOLON", "FETCH"})  # fmt: skip
NAME_TYPES = frozenset({"VAR", "NAME", "IDENTIFIER"})
COMPARE = frozenset({"GT", "GTE", "LT", "LTE", "EQ", "NEQ"})


def _tokens(sql: str, dialect: str) -> list[Tok]:
    out: list[Tok] = []
    depth = 0
    for t in sqlglot.tokenize(sql, read=dialect):
        name = t.token_type.name
        if name == "R_PAREN":
            depth -= 1
        out.append(Tok(name, t.text, t.start, t.end + 1, depth))
        if name == "L_PAREN":
            depth += 1
    return out


def _apply(sql: str, edits: list[tuple[int, int, str]]) -> str:
    for start, end, text in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        sql = sql[:start] + text + sql[end:]
    return sql


def _clause_end(toks: list[Tok], i: int, stops: frozenset[str]) -> int:
    """Index of the first token after ``i`` that ends the clause opened at ``i`` (len(toks) at the end)."""
    depth = toks[i].depth
    j = i + 1
    while j < len(toks):
        t = toks[j]
        if t.depth < depth or (t.depth == depth and t.type in stops):
            break
        j += 1
    return j


def _match_paren(toks: list[Tok], i: int) -> int | None:
    depth = toks[i].depth
    for k in range(i + 1, len(toks)):
        if toks[k].type == "R_PAREN" and toks[k].depth == depth:
            return k
    return None


def _main_select(toks: list[Tok]) -> int | None:
    """Index of the depth-0 SELECT of the main query (after any CTEs)."""
    for i, t in enumerate(toks):
        if t.depth == 0 and t.type == "SELECT":
            return i
    return None


def _schema_names(schema: Any) -> tuple[set[str], set[str]]:
    tables: set[str] = set()
    columns: set[str] = set()
    for t in getattr(schema, "tables", ()) or ():
        tables.add(t.name.lower())
        for c in t.columns:
            columns.add(c.name.lower())
    return tables, columns


def _span(node: exp.Expression) -> tuple[int, int] | None:
    meta = getattr(node, "meta", None) or {}
    if "start" in meta and "end" in meta:
        return int(meta["start"]), int(meta["end"]) + 1
    return None


INTROS = (
    "Here's the SQL query to get that:",
    "You can use the following query:",
    "Sure! Here is a query that answers the question:",
    "The following SQL should give you the result:",
    "To answer this, run:",
    "Here is the query:",
)
OUTROS = (
    "This query returns the requested rows.",
    "Let me know if you need anything else!",
    "Adjust the column list if you need more details.",
    "",
    "The result lists what you asked for.",
)


def _ordinary(sql: str, rng: random.Random, outro: str | None = None) -> str:
    tail = rng.choice(OUTROS) if outro is None else outro
    return f"{rng.choice(INTROS)}\n\n```sql\n{sql}\n```\n\n{tail}".rstrip() + "\n"


def _with_semicolon(sql: str, rng: random.Random) -> str:
    return sql + ";" if rng.random() < 0.5 else sql


# --------------------------------------------------------------------------------------------------------------------
# family A: layouts and wrappers (the whole reply)


def _quote_fence(c: Ctx) -> tuple[str, str]:
    head = c.rng.choice(("'''sql", "'''", "''' sql", "'''SQL"))
    body = _with_semicolon(c.sql, c.rng)
    reply = f"{c.rng.choice(INTROS)}\n\n{head}\n{body}\n'''\n\n{c.rng.choice(OUTROS)}".rstrip() + "\n"
    return reply, f"fenced with {head!r} ... ''' instead of backticks"


def _jira_code_macro(c: Ctx) -> tuple[str, str]:
    opener = c.rng.choice(("{code:sql}", "{code:language=sql|title=Query}", "{code:sql|linenumbers=false}",
                           "{noformat}"))  # fmt: skip
    closer = "{noformat}" if opener == "{noformat}" else "{code}"
    body = _with_semicolon(c.sql, c.rng)
    reply = (f"h3. Query\n\n{c.rng.choice(INTROS)}\n\n{opener}\n{body}\n{closer}\n\n"
             f"h3. Notes\n* {c.rng.choice(('Runs read-only.', 'No parameters needed.', 'Tested on the sample data.'))}\n")
    return reply, f"Jira wiki markup: {opener} ... {closer}"


def _wiki_syntaxhighlight(c: Ctx) -> tuple[str, str]:
    lang = "postgresql" if c.dialect == "postgres" else c.rng.choice(("sql", "sqlite"))
    opener, closer = c.rng.choice(((f'<syntaxhighlight lang="{lang}">', "</syntaxhighlight>"),
                                   (f'<syntaxhighlight lang="{lang}" line>', "</syntaxhighlight>"),
                                   (f'<source lang="{lang}">', "</source>")))  # fmt: skip
    body = _with_semicolon(c.sql, c.rng)
    reply = f"== Query ==\n{c.rng.choice(INTROS)}\n\n{opener}\n{body}\n{closer}\n\n{c.rng.choice(OUTROS)}".rstrip()
    return reply + "\n", f"MediaWiki {opener}"


def _r_dbi_call(c: Ctx) -> tuple[str, str]:
    body = c.sql.replace("\\", "\\\\").replace('"', '\\"')
    driver = "RPostgres::Postgres()" if c.dialect == "postgres" else "RSQLite::SQLite()"
    db = getattr(c.schema, "database_id", "") or "mydb"
    var = c.rng.choice(("result", "df", "res"))
    code = (f"library(DBI)\n\ncon <- dbConnect({driver}, dbname = \"{db}\")\n\n"
            f"{var} <- dbGetQuery(con, \"\n{body}\n\")\n\nprint({var})\ndbDisconnect(con)")
    reply = f"You can run it from R with DBI:\n\n```r\n{code}\n```\n\n{c.rng.choice(OUTROS)}".rstrip() + "\n"
    return reply, "SQL inside an R dbGetQuery() string"


def _markdown_fenced_reply(c: Ctx) -> tuple[str, str]:
    tag = c.rng.choice(("markdown", "md", "markdown"))
    inner = _ordinary(_with_semicolon(c.sql, c.rng), c.rng, outro="This query returns the requested rows.")
    return f"```{tag}\n{inner}```\n", f"whole reply inside a ```{tag} fence"


def _select_keyword_omitted(c: Ctx) -> tuple[str, str] | None:
    m = re.match(r"\s*select\s+", c.sql, flags=re.IGNORECASE)
    if not m:
        return None
    rest = c.sql[m.end():]
    style = c.rng.randrange(3)
    if style == 0:
        reply = f"{rest}\n```\n\nThis query {c.rng.choice(('gives the rows you asked for.', 'answers the question.'))}\n"
    elif style == 1:
        reply = f"{rest};\n```\n"
    else:
        reply = f"{rest}\n"
    return reply, "continuation of a prompt ending in SELECT: the keyword itself is missing"


# --------------------------------------------------------------------------------------------------------------------
# family A: text edits of the SQL (wrapped in an ordinary reply by ``damage``)

EditResult = tuple[str, str] | tuple[str, str, str] | None


def _result_format_suffix(c: Ctx) -> EditResult:
    suffix, engine = c.rng.choice((("FORMAT PrettyCompact", "ClickHouse"), ("FORMAT CSVWithNames", "ClickHouse"),
                                   ("FORMAT Vertical", "ClickHouse"), ("FOR JSON PATH", "SQL Server"),
                                   ("FOR JSON AUTO", "SQL Server")))  # fmt: skip
    return f"{c.sql}\n{suffix};", f"{engine} output clause {suffix!r} appended"


def _mysql_with_rollup(c: Ctx) -> EditResult:
    groups = [i for i, t in enumerate(c.toks) if t.type == "GROUP_BY"]
    if not groups:
        return None
    i = min(groups, key=lambda k: (c.toks[k].depth, k))
    j = _clause_end(c.toks, i, AFTER_GROUP)
    at = c.toks[j - 1].end
    return _apply(c.sql, [(at, at, " WITH ROLLUP")]), "GROUP BY ... WITH ROLLUP (MySQL)"


def _duckdb_from_first(c: Ctx) -> EditResult:
    t = c.toks
    if not t or t[0].type != "SELECT" or any(x.depth == 0 and x.type in ("UNION", "EXCEPT", "INTERSECT") for x in t):
        return None
    f = next((i for i, x in enumerate(t) if x.depth == 0 and x.type == "FROM"), None)
    if f is None:
        return None
    k = _clause_end(t, f, CLAUSE_STOPS)
    select_body = c.sql[t[0].end:t[f].start].strip()
    from_end = t[k].start if k < len(t) else len(c.sql)
    from_body = c.sql[t[f].end:from_end].strip()
    rest = c.sql[from_end:].strip()
    new = f"FROM {from_body}\nSELECT {select_body}" + (f"\n{rest}" if rest else "")
    return new, "DuckDB FROM-first order"


def _cql_allow_filtering(c: Ctx) -> EditResult:
    if not any(x.depth == 0 and x.type == "WHERE" for x in c.toks):
        return None
    outro = "ALLOW FILTERING is needed because the filter is not on the key column."
    return f"{c.sql} ALLOW FILTERING", "Cassandra CQL ALLOW FILTERING appended", outro


def _case_like(word: str, model: str) -> str:
    return word.lower() if model.islower() else word


def _sort_word_spelled_out(c: Ctx) -> EditResult:
    edits = [(x.start, x.end, _case_like("DESCENDING" if x.type == "DESC" else "ASCENDING", x.text))
             for x in c.toks if x.type in ("DESC", "ASC")]
    if not edits:
        orders = [i for i, x in enumerate(c.toks) if x.type == "ORDER_BY" and x.depth == 0]
        if not orders:
            return None
        i = orders[-1]
        j = _clause_end(c.toks, i, CLAUSE_STOPS)
        nulls = next((k for k in range(i + 1, j) if c.toks[k].text.upper() == "NULLS" and c.toks[k].depth == c.toks[i].depth),
                     None)  # fmt: skip
        edits = [(c.toks[nulls].start, c.toks[nulls].start, "ASCENDING ")] if nulls else [
            (c.toks[j - 1].end, c.toks[j - 1].end, " ASCENDING")]
    return _apply(c.sql, edits), "sort direction spelled out (DESCENDING/ASCENDING)"


def _default_nulls(dialect: str, desc: bool) -> str:
    if dialect == "postgres":
        return "NULLS FIRST" if desc else "NULLS LAST"
    return "NULLS LAST" if desc else "NULLS FIRST"


def _nulls_before_direction(c: Ctx) -> EditResult:
    t = c.toks
    edits: list[tuple[int, int, str]] = []
    for i in range(len(t) - 2):
        if t[i].type in ("ASC", "DESC") and t[i + 1].text.upper() == "NULLS" and t[i + 2].text.upper() in ("FIRST", "LAST"):
            edits.append((t[i].start, t[i + 2].end, f"{t[i + 1].text} {t[i + 2].text} {t[i].text}"))
    if not edits:
        for i in range(1, len(t) - 1):
            if t[i].text.upper() == "NULLS" and t[i + 1].text.upper() in ("FIRST", "LAST") and t[i - 1].type not in ("ASC", "DESC"):
                edits.append((t[i + 1].end, t[i + 1].end, " ASC"))
    if not edits:
        for x in t:
            if x.type in ("ASC", "DESC"):
                edits.append((x.start, x.start, _default_nulls(c.dialect, x.type == "DESC") + " "))
                break
    if not edits:
        orders = [i for i, x in enumerate(t) if x.type == "ORDER_BY" and x.depth == 0]
        if not orders:
            return None
        j = _clause_end(t, orders[-1], CLAUSE_STOPS)
        edits.append((t[j - 1].end, t[j - 1].end, f" {_default_nulls(c.dialect, False)} ASC"))
    return _apply(c.sql, edits[:1] if c.rng.random() < 0.5 else edits), "NULLS FIRST/LAST written before ASC/DESC"


def _select_items(c: Ctx) -> list[tuple[int, int, int, int, str | None]] | None:
    """Main select list items: (first token, last token + 1, expr start, expr end, alias)."""
    s = _main_select(c.toks)
    if s is None:
        return None
    t = c.toks
    f = next((i for i in range(s + 1, len(t)) if t[i].depth == 0 and t[i].type in ({"FROM"} | CLAUSE_STOPS)), len(t))
    items = []
    start = s + 1
    if start < f and t[start].type == "DISTINCT":
        start += 1
    k = start
    while k <= f:
        if k == f or (t[k].depth == 0 and t[k].type == "COMMA"):
            if k > start:
                alias = None
                expr_end = t[k - 1].end
                if k - start >= 3 and t[k - 2].type == "ALIAS" and t[k - 1].type in NAME_TYPES:
                    alias = t[k - 1].text
                    expr_end = t[k - 3].end
                items.append((start, k, t[start].start, expr_end, alias))
            start = k + 1
        k += 1
    return items


def _lateral_alias_reuse(c: Ctx) -> EditResult:
    items = _select_items(c)
    if not items:
        return None
    for b, (_, _, s2, e2, _) in enumerate(items):
        edits: list[tuple[int, int, str]] = []
        used: list[str] = []
        for _, _, s1, e1, alias in items[:b]:
            expr = c.sql[s1:e1]
            if not alias or "(" not in expr:
                continue
            pos = c.sql.find(expr, s2, e2)
            while pos >= 0 and not any(s <= pos < e for s, e, _ in edits):
                edits.append((pos, pos + len(expr), alias))
                used.append(alias)
                pos = c.sql.find(expr, pos + len(expr), e2)
        if edits:
            return _apply(c.sql, edits), f"a later select item reuses the alias(es) {sorted(set(used))} of the same list"
    return None


HOMOGLYPHS = {"a": "а", "e": "е", "o": "о", "c": "с", "p": "р", "x": "х", "y": "у", "i": "і",
              "A": "А", "E": "Е", "O": "О", "C": "С", "P": "Р", "T": "Т", "H": "Н", "K": "К", "M": "М", "B": "В"}  # fmt: skip


def _homoglyph_letters(c: Ctx) -> EditResult:
    tables, columns = _schema_names(c.schema)
    spans: list[tuple[int, int]] = []
    for node in c.tree.find_all(exp.Table, exp.Column):
        ident = node.this if isinstance(node.this, exp.Identifier) else None
        if ident is None or ident.quoted:
            continue
        known = tables if isinstance(node, exp.Table) else columns
        span = _span(ident)
        if span and ident.name.lower() in known and any(ch in HOMOGLYPHS for ch in ident.name):
            spans.append(span)
    keywords = [(x.start, x.end) for x in c.toks if x.type in ("SELECT", "FROM", "WHERE", "JOIN", "GROUP_BY", "ORDER_BY")]
    pool = spans if spans and (c.rng.random() < 0.75 or not keywords) else keywords
    if not pool:
        return None
    start, end = c.rng.choice(sorted(set(pool)))
    word = c.sql[start:end]
    spots = [k for k, ch in enumerate(word) if ch in HOMOGLYPHS]
    if not spots:
        return None
    k = c.rng.choice(spots)
    new_word = word[:k] + HOMOGLYPHS[word[k]] + word[k + 1:]
    return _apply(c.sql, [(start, end, new_word)]), f"Cyrillic look-alike letter in {word!r}"


def _idents_named(tree: exp.Expression, name: str, as_table: bool) -> list[tuple[int, int]]:
    """Spans of unquoted identifiers that are the table ``name`` (table refs and qualifiers) or the column ``name``."""
    out = []
    low = name.lower()
    for node in tree.find_all(exp.Table, exp.Column):
        idents = []
        if as_table:
            idents = [node.this] if isinstance(node, exp.Table) else [node.args.get("table")]
        elif isinstance(node, exp.Column):
            idents = [node.this]
        for ident in idents:
            if isinstance(ident, exp.Identifier) and not ident.quoted and ident.name.lower() == low:
                span = _span(ident)
                if span:
                    out.append(span)
    return sorted(set(out))


def _compound_name_reversed(c: Ctx) -> EditResult:
    tables, columns = _schema_names(c.schema)
    known = tables | columns
    used_tables = {n.name.lower() for n in c.tree.find_all(exp.Table)}
    used_columns = {n.name.lower() for n in c.tree.find_all(exp.Column)}
    options = []
    for name, as_table in [(n, True) for n in sorted(used_tables & tables)] + [(n, False) for n in sorted(used_columns & columns)]:
        parts = [p for p in name.split("_") if p]
        if len(parts) < 2:
            continue
        flipped = "_".join(reversed(parts))
        if flipped == name or flipped in known:
            continue
        spans = _idents_named(c.tree, name, as_table)
        if spans:
            options.append((name, flipped, spans))
    if not options:
        return None
    name, flipped, spans = c.rng.choice(options)
    edits = [(s, e, flipped if c.sql[s:e].islower() else flipped.upper() if c.sql[s:e].isupper() else flipped)
             for s, e in spans]
    return _apply(c.sql, edits), f"{name!r} written {flipped!r}"


PLACEHOLDERS = ("your_table", "table_name", "your_table_name", "my_table")


def _template_table_name(c: Ctx) -> EditResult:
    tables, _ = _schema_names(c.schema)
    used = []
    for node in c.tree.find_all(exp.Table):
        if node.name.lower() in tables and node.name.lower() not in used:
            used.append(node.name.lower())
    if not used:
        return None
    name = used[0] if c.rng.random() < 0.6 else c.rng.choice(used)
    holder = next(p for p in c.rng.sample(PLACEHOLDERS, len(PLACEHOLDERS)) if p not in tables)
    edits = [(s, e, holder) for s, e in _idents_named(c.tree, name, as_table=True)]
    for node in c.tree.find_all(exp.Table):  # the placeholder has no schema qualifier
        db = node.args.get("db")
        if node.name.lower() == name and isinstance(db, exp.Identifier):
            d, t = _span(db), _span(node.this)
            if d and t:
                edits.append((d[0], t[0], ""))
    if not edits:
        return None
    outro = f"Replace `{holder}` with the actual name of your table."
    return _apply(c.sql, edits), f"table {name!r} written as placeholder {holder!r}", outro


def _alias_declaration_dropped(c: Ctx) -> EditResult:
    qualifiers = {col.table.lower() for col in c.tree.find_all(exp.Column) if col.table}
    options = []
    for node in c.tree.find_all(exp.Table):
        alias = node.args.get("alias")
        ident = alias.this if isinstance(alias, exp.TableAlias) else None
        if not isinstance(ident, exp.Identifier) or ident.name.lower() == node.name.lower():
            continue
        if ident.name.lower() not in qualifiers:
            continue
        t_span, a_span = _span(node.this), _span(ident)
        if not t_span or not a_span or a_span[0] < t_span[1]:
            continue
        between = c.sql[t_span[1]:a_span[1]]
        if re.fullmatch(r"\s+(?:AS\s+)?" + re.escape(c.sql[a_span[0]:a_span[1]]), between, flags=re.IGNORECASE):
            options.append((t_span[1], a_span[1], ident.name))
    if not options:
        return None
    start, end, alias = c.rng.choice(options)
    return _apply(c.sql, [(start, end, "")]), f"alias {alias!r} used but never declared"


def _cte_keyword_repeated(c: Ctx) -> EditResult:
    t = c.toks
    if not t or t[0].type != "WITH":
        return None
    main = _main_select(t)
    commas = [x for x in t[:main] if x.depth == 0 and x.type == "COMMA"] if main else []
    if not commas:
        return None
    edits = [(x.end, x.end, " WITH") for x in commas]
    return _apply(c.sql, edits), "WITH repeated before each CTE"


MONEY = re.compile(r"price|cost|amount|balance|salary|fee|revenue|payment|fare|spen[dt]|income|budget|paid|total",
                   re.IGNORECASE)


def _currency_symbol_literal(c: Ctx) -> EditResult:
    t = c.toks
    edits = []
    for i, x in enumerate(t):
        if x.type != "NUMBER":
            continue
        if i >= 2 and t[i - 1].type in COMPARE and t[i - 2].type in NAME_TYPES and MONEY.search(t[i - 2].text):
            edits.append((x.start, x.start, "$"))
        elif i + 2 < len(t) and t[i + 1].type in COMPARE and t[i + 2].type in NAME_TYPES and MONEY.search(t[i + 2].text):
            edits.append((x.start, x.start, "$"))
    if not edits:
        return None
    return _apply(c.sql, [c.rng.choice(edits)]), "money literal written with a $ sign"


# --------------------------------------------------------------------------------------------------------------------
# family B: the SQL runs and answers another question

LIKE_WORD = re.compile(r"%([A-Za-z][A-Za-z .&'-]*[A-Za-z])%")


def _like_word_spaces(c: Ctx) -> EditResult:
    options = [x for x in c.toks if x.type == "STRING" and LIKE_WORD.fullmatch(x.text)]
    if not options:
        return None
    x = c.rng.choice(options)
    inner = LIKE_WORD.fullmatch(x.text).group(1)  # type: ignore[union-attr]
    quote = c.sql[x.start]
    new = f"{quote}% {inner} %{quote}"
    return _apply(c.sql, [(x.start, x.end, new)]), f"pattern {x.text!r} padded with spaces for whole words"


def _extreme_value_for_row(c: Ctx) -> EditResult:
    tree = c.tree
    if not isinstance(tree, exp.Select) or tree.args.get("group") or tree.args.get("having") or tree.args.get("distinct"):
        return None
    if tree.args.get("offset") or tree.find(exp.Window):
        return None
    limit = tree.args.get("limit")
    order = tree.args.get("order")
    lim = limit.expression if isinstance(limit, exp.Limit) else None
    if not (isinstance(lim, exp.Literal) and lim.this == "1") or not order or len(order.expressions) != 1:
        return None
    if any(e.find(exp.AggFunc) for e in tree.expressions):
        return None
    t = c.toks
    if not t or t[0].type != "SELECT":
        return None
    o = next((i for i, x in enumerate(t) if x.depth == 0 and x.type == "ORDER_BY"), None)
    f = next((i for i, x in enumerate(t) if x.depth == 0 and x.type == "FROM"), None)
    if o is None or f is None or o < f:
        return None
    k = o + 1
    while k < len(t) and not (t[k].depth == 0 and (t[k].type in ("ASC", "DESC", "LIMIT", "COMMA", "OFFSET")
                                                     or t[k].text.upper() == "NULLS")):  # fmt: skip
        k += 1
    key = c.sql[t[o].end:t[k - 1].end].strip() if k > o + 1 else ""
    if not key:
        return None
    items = _select_items(c) or []
    for _, _, s, e, alias in items:
        if alias and alias.lower() == key.lower():
            key = c.sql[s:e]
    if re.search(r"\b(count|sum|avg|min|max)\s*\(", key, flags=re.IGNORECASE):
        return None
    exprs = {c.sql[s:e].strip().lower() for _, _, s, e, _ in items}
    if exprs <= {key.lower()}:
        return None
    desc = bool(order.expressions[0].args.get("desc"))
    func = "MAX" if desc else "MIN"
    simple = re.fullmatch(r"(?:\w+\.)?(\w+)", key.strip())
    word = simple.group(1).lower() if simple else "value"
    new = f"SELECT {func}({key}) AS {'highest' if desc else 'lowest'}_{word} " + c.sql[t[f].start:t[o].start].rstrip()
    return new, f"the {func} value of the sort key instead of the row it belongs to"


def _left_join_count_star(c: Ctx) -> EditResult:
    right: set[str] = set()
    for join in c.tree.find_all(exp.Join):
        if (join.side or "").upper() == "LEFT" and isinstance(join.this, exp.Table):
            right.add((join.this.alias_or_name or "").lower())
            right.add(join.this.name.lower())
    if not right:
        return None
    edits = []
    for count in c.tree.find_all(exp.Count):
        col = count.this
        if isinstance(col, exp.Column) and col.table and col.table.lower() in right:
            select = count.find_ancestor(exp.Select)
            where = select.args.get("where") if select is not None else None
            if where is not None and any(w.table.lower() in right for w in where.find_all(exp.Column) if w.table):
                continue  # a WHERE on the joined table already drops the unmatched rows: COUNT(*) would be the same
            q, n = _span(col.args["table"]), _span(col.this)
            if q and n:
                edits.append((q[0], n[1], "*"))
    if not edits:
        return None
    return _apply(c.sql, [edits[0]]), "COUNT(child column) after a LEFT JOIN written COUNT(*)"


PAREN_PREV = frozenset({"AND", "OR", "NOT", "WHERE", "ON", "HAVING", "STAR", "SLASH", "DASH", "PLUS", "MOD", "L_PAREN",
                        "COMMA", "SELECT", "WHEN", "THEN", "ELSE"}) | COMPARE  # fmt: skip
ARITH_OPS = frozenset({"STAR", "SLASH", "MOD"})


def _grouping_parens_dropped(c: Ctx) -> EditResult:
    t = c.toks
    options = []
    for i, x in enumerate(t):
        if x.type != "L_PAREN":
            continue
        prev = t[i - 1].type if i > 0 else "SELECT"
        if prev not in PAREN_PREV:
            continue
        k = _match_paren(t, i)
        if k is None or k == i + 1:
            continue
        inner = [y for y in t[i + 1:k] if y.depth == x.depth + 1]
        if any(y.type == "SELECT" for y in t[i + 1:k]):
            continue
        nxt = t[k + 1].type if k + 1 < len(t) else ""
        has_or = any(y.type == "OR" for y in inner)
        has_sum = any(y.type in ("PLUS", "DASH") and n > 0 and inner[n - 1].type not in (PAREN_PREV - {"L_PAREN"})
                      for n, y in enumerate(inner))  # fmt: skip
        if has_or and (prev in ("AND", "NOT") or nxt == "AND"):
            options.append((i, k, "OR group"))
        elif has_sum and (nxt in ARITH_OPS or prev in ARITH_OPS or prev == "DASH"):
            options.append((i, k, "sum/difference"))
    if not options:
        return None
    i, k, what = c.rng.choice(options)
    return _apply(c.sql, [(t[i].start, t[i].end, ""), (t[k].start, t[k].end, "")]), f"parentheses around {what} dropped"


def _window_partition_dropped(c: Ctx) -> EditResult:
    t = c.toks
    options = []
    for i, x in enumerate(t):
        if x.type == "PARTITION_BY" and i >= 1 and t[i - 1].type == "L_PAREN":
            j = i + 1
            while j < len(t) and not (t[j].depth < x.depth or (t[j].depth == x.depth and t[j].type in ("ORDER_BY", "ROWS", "RANGE"))):
                j += 1
            if j < len(t):
                options.append((x.start, t[j].start))
    if not options:
        return None
    start, end = c.rng.choice(options)
    return _apply(c.sql, [(start, end, "")]), "PARTITION BY dropped from the window"


STRFTIME_SWAP = {"m": "M", "M": "m", "w": "W", "W": "w", "s": "S", "S": "s", "j": "J", "Y": "y"}


def _strftime_code_case(c: Ctx) -> EditResult:
    t = c.toks
    options = []
    for i, x in enumerate(t):
        if x.type != "STRING" or i < 2 or t[i - 1].type != "L_PAREN":
            continue
        func = t[i - 2].text.lower()
        if func == "strftime":
            for m in re.finditer(r"%([A-Za-z])", x.text):
                if m.group(1) in STRFTIME_SWAP:
                    options.append((x, m.start(1), STRFTIME_SWAP[m.group(1)]))
    for i, x in enumerate(t):  # PostgreSQL to_char(ts, 'HH24:MI'): month and minute codes confused
        if x.type != "STRING" or i < 2 or t[i - 1].type != "COMMA":
            continue
        k = i - 1
        while k >= 0 and t[k].depth >= x.depth:
            k -= 1
        if k >= 1 and t[k].type == "L_PAREN" and t[k - 1].text.lower() in ("to_char", "to_timestamp", "to_date"):
            for m in re.finditer(r"MM|MI", x.text, flags=re.IGNORECASE):
                swap = {"MM": "MI", "MI": "MM"}[m.group(0).upper()]
                options.append((x, m.start(), swap if m.group(0).isupper() else swap.lower()))
    if not options:
        return None
    x, pos, new = c.rng.choice(options)
    body = c.sql[x.start:x.end]
    off = body.find(x.text)
    if off < 0:
        return None
    at = x.start + off + pos
    width = 2 if new.upper() in ("MM", "MI") else 1
    return _apply(c.sql, [(at, at + width, new)]), f"date format code {c.sql[at:at + width]!r} written {new!r}"


def _case_conditions(t: list[Tok]) -> list[tuple[int, int, int]]:
    """(CASE token index, condition start, condition end) of searched CASEs with a single WHEN."""
    out = []
    for i, x in enumerate(t):
        if x.type != "CASE" or i + 1 >= len(t) or t[i + 1].type != "WHEN":
            continue
        d = t[i + 1].depth
        whens, then, end = [i + 1], None, None
        for k in range(i + 2, len(t)):
            if t[k].depth < d:
                break
            if t[k].depth == d and t[k].type == "WHEN":
                whens.append(k)
            if t[k].depth == d and t[k].type == "THEN" and then is None:
                then = k
            if t[k].depth == d and t[k].type == "END":
                end = k
                break
        if len(whens) == 1 and then is not None and end is not None:
            out.append((i, t[i + 2].start, t[then - 1].end))
    return out


def _ratio_denominator_copy(c: Ctx) -> EditResult:
    t = c.toks
    cases = _case_conditions(t)
    for s, x in enumerate(t):
        if x.type != "SLASH":
            continue
        before = [cc for cc in cases if cc[0] < s]
        after = [cc for cc in cases if cc[0] > s]
        if not before or not after:
            continue
        num, den = before[-1], after[0]
        between = t[num[0]:den[0]]
        if any(y.type == "COMMA" and y.depth <= x.depth for y in between) or any(y.type == "SLASH" for y in t[s + 1:den[0]]):
            continue
        cond_num, cond_den = c.sql[num[1]:num[2]], c.sql[den[1]:den[2]]
        if cond_num.strip() == cond_den.strip():
            continue
        return (_apply(c.sql, [(den[1], den[2], cond_num)]),
                f"denominator condition {cond_den!r} replaced by the numerator's {cond_num!r}")
    return None


def _distinct_count_as_groups(c: Ctx) -> EditResult:
    tree = c.tree
    if not isinstance(tree, exp.Select) or tree.args.get("group") or len(tree.expressions) != 1:
        return None
    item = tree.expressions[0]
    count = item.this if isinstance(item, exp.Alias) else item
    if not isinstance(count, exp.Count) or not isinstance(count.this, exp.Distinct) or len(count.this.expressions) != 1:
        return None
    t = c.toks
    i = next((k for k in range(len(t) - 3) if t[k].depth == 0 and t[k].text.upper() == "COUNT"
              and t[k + 1].type == "L_PAREN" and t[k + 2].type == "DISTINCT"), None)  # fmt: skip
    if i is None:
        return None
    close = _match_paren(t, i + 1)
    if close is None:
        return None
    key = c.sql[t[i + 2].end:t[close].start].strip()
    where_end = next((k for k in range(close, len(t)) if t[k].depth == 0 and t[k].type in AFTER_GROUP), len(t))
    at = t[where_end - 1].end
    edits = [(t[i + 2].start, t[close].start, "*"), (at, at, f" GROUP BY {key}")]
    return _apply(c.sql, edits), f"COUNT(DISTINCT {key}) written as COUNT(*) ... GROUP BY {key}"


def _exists_uncorrelated(c: Ctx) -> EditResult:
    t = c.toks
    options = []
    for i, x in enumerate(t):
        if x.type != "IN" or i + 2 >= len(t) or t[i + 1].type != "L_PAREN" or t[i + 2].type != "SELECT":
            continue
        k = i - 1
        negated = k >= 0 and t[k].type == "NOT"
        if negated:
            k -= 1
        if k < 0 or t[k].type not in NAME_TYPES:
            continue
        start = k
        if k >= 2 and t[k - 1].type == "DOT" and t[k - 2].type in NAME_TYPES:
            start = k - 2
        options.append((t[start].start, x.end, "NOT EXISTS" if negated else "EXISTS"))
    if not options:
        return None
    start, end, word = c.rng.choice(options)
    return _apply(c.sql, [(start, end, word)]), f"IN (subquery) turned into an uncorrelated {word}"


def _anti_join_not_equal(c: Ctx) -> EditResult:
    t = c.toks
    for i, x in enumerate(t):
        if x.type != "LEFT":
            continue
        j = i + 1
        if j < len(t) and t[j].type == "OUTER":
            j += 1
        if j >= len(t) or t[j].type != "JOIN":
            continue
        d = x.depth
        on = next((k for k in range(j + 1, len(t)) if t[k].depth == d and t[k].type in ({"ON"} | CLAUSE_STOPS)), None)
        if on is None or t[on].type != "ON":
            continue
        alias = t[on - 1].text.lower()
        eq = next((k for k in range(on + 1, len(t)) if t[k].depth == d and t[k].type == "EQ"), None)
        where = next((k for k in range(on + 1, len(t)) if t[k].depth == d and t[k].type == "WHERE"), None)
        if eq is None or where is None or eq > where:
            continue
        end = _clause_end(t, where, CLAUSE_STOPS)
        pred = None
        for k in range(where + 1, end - 3):
            if (t[k].text.lower() == alias and t[k + 1].type == "DOT" and t[k + 3].type == "IS" and k + 4 < end
                    and t[k + 4].type == "NULL" and t[k].depth == d):
                pred = (k, k + 4)
                break
        if pred is None:
            continue
        a, b = pred
        if a == where + 1 and (b + 1 == end):
            cut = (t[where].start, t[b].end)
        elif b + 1 < end and t[b + 1].type == "AND":
            cut = (t[a].start, t[b + 2].start) if b + 2 < len(t) else (t[a].start, t[b + 1].end)
        elif t[a - 1].type == "AND":
            cut = (t[a - 2].end, t[b].end)
        else:
            continue
        edits = [(x.start, t[j].end, "JOIN"), (t[eq].start, t[eq].end, "<>"), (cut[0], cut[1], "")]
        sel = next((k for k in range(i, -1, -1) if t[k].type == "SELECT" and t[k].depth == d), None)
        if sel is not None and not (sel + 1 < len(t) and t[sel + 1].type == "DISTINCT"):
            edits.append((t[sel].end, t[sel].end, " DISTINCT"))
        return _apply(c.sql, edits), "LEFT JOIN ... IS NULL written as JOIN ... ON a <> b"
    return None


def _between_bounds_reversed(c: Ctx) -> EditResult:
    t = c.toks
    options = []
    for i, x in enumerate(t):
        if x.type != "BETWEEN":
            continue
        d = x.depth
        a = next((k for k in range(i + 1, len(t)) if t[k].depth == d and t[k].type == "AND"), None)
        if a is None or a == i + 1:
            continue
        k = a + 1
        while k < len(t) and not (t[k].depth < d or (t[k].depth == d and t[k].type in (
                {"AND", "OR", "THEN", "COMMA", "ON", "JOIN", "LEFT", "INNER", "ALIAS"} | CLAUSE_STOPS))):
            k += 1
        if k == a + 1:
            continue
        low = c.sql[t[i + 1].start:t[a - 1].end]
        high = c.sql[t[a + 1].start:t[k - 1].end]
        if low.strip() == high.strip():
            continue
        options.append((t[i + 1].start, t[k - 1].end, f"{high} AND {low}"))
    if not options:
        return None
    start, end, text = c.rng.choice(options)
    return _apply(c.sql, [(start, end, text)]), "BETWEEN bounds in the wrong order"


LAYOUTS: dict[str, Callable[[Ctx], tuple[str, str] | None]] = {
    "quote_fence": _quote_fence,
    "jira_code_macro": _jira_code_macro,
    "wiki_syntaxhighlight": _wiki_syntaxhighlight,
    "r_dbi_call": _r_dbi_call,
    "markdown_fenced_reply": _markdown_fenced_reply,
    "select_keyword_omitted": _select_keyword_omitted,
}
EDITS: dict[str, Callable[[Ctx], EditResult]] = {
    "result_format_suffix": _result_format_suffix,
    "mysql_with_rollup": _mysql_with_rollup,
    "duckdb_from_first": _duckdb_from_first,
    "cql_allow_filtering": _cql_allow_filtering,
    "sort_word_spelled_out": _sort_word_spelled_out,
    "nulls_before_direction": _nulls_before_direction,
    "lateral_alias_reuse": _lateral_alias_reuse,
    "homoglyph_letters": _homoglyph_letters,
    "compound_name_reversed": _compound_name_reversed,
    "template_table_name": _template_table_name,
    "alias_declaration_dropped": _alias_declaration_dropped,
    "cte_keyword_repeated": _cte_keyword_repeated,
    "currency_symbol_literal": _currency_symbol_literal,
    "like_word_spaces": _like_word_spaces,
    "extreme_value_for_row": _extreme_value_for_row,
    "left_join_count_star": _left_join_count_star,
    "grouping_parens_dropped": _grouping_parens_dropped,
    "window_partition_dropped": _window_partition_dropped,
    "strftime_code_case": _strftime_code_case,
    "ratio_denominator_copy": _ratio_denominator_copy,
    "distinct_count_as_groups": _distinct_count_as_groups,
    "exists_uncorrelated": _exists_uncorrelated,
    "anti_join_not_equal": _anti_join_not_equal,
    "between_bounds_reversed": _between_bounds_reversed,
}


def _norm(sql: str) -> str:
    return re.sub(r"\s+", " ", sql.strip().rstrip(";").strip())


def damage(gold_sql: str, schema: Any, kind: str, seed: int) -> Damaged | None:
    """The whole reply for ``gold_sql`` damaged in ``kind``, or None where the kind does not apply."""
    try:
        rng = random.Random(f"fresh18|{kind}|{seed}|{gold_sql}")
        dialect = getattr(schema, "dialect", None) or "postgres"
        if dialect not in ("postgres", "sqlite", "duckdb", "mysql"):
            dialect = "postgres"
        sql = re.sub(r"[\s;]+$", "", gold_sql.strip())
        if not sql:
            return None
        ctx = Ctx(sql, schema, rng, dialect, _tokens(sql, dialect))
        if kind == "clean":
            return Damaged(kind, _ordinary(sql, rng), "the gold query")
        if kind in LAYOUTS:
            made = LAYOUTS[kind](ctx)
            if made is None:
                return None
            reply, note = made
            return Damaged(kind, reply, note)
        if kind not in EDITS:
            return None
        result = EDITS[kind](ctx)
        if result is None:
            return None
        new_sql, note = result[0], result[1]
        outro = result[2] if len(result) > 2 else None  # type: ignore[misc]
        if _norm(new_sql) == _norm(sql):
            return None
        return Damaged(kind, _ordinary(new_sql, rng, outro), note)
    except Exception:  # noqa: BLE001 - a generator never raises
        return None
