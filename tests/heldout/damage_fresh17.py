"""Held-out damage generator ``fresh17``: damaged replies of 7B-8B coder models, made by text edits on the gold.

Written without reading Cairn's repair, check or extraction code. Positions are found with sqlglot's tokenizer;
the gold text is edited there (never re-rendered from a tree).

| kind                    | fam | what the reply does                                                                  |
|-------------------------|-----|--------------------------------------------------------------------------------------|
| clean                   | -   | the gold query, fenced, in an ordinary reply                                         |
| heredoc_shell           | A   | SQL inside a ```bash block fed to sqlite3/psql through a <<'SQL' heredoc               |
| org_mode_src            | A   | SQL in an Emacs org-mode #+BEGIN_SRC sql ... #+END_SRC block, no markdown fence       |
| asciidoc_listing        | A   | SQL in an AsciiDoc [source,sql] / ---- listing block, no markdown fence               |
| latex_lstlisting        | A   | SQL in a LaTeX \\begin{lstlisting}[language=SQL] environment                          |
| rst_code_directive      | A   | SQL under a reStructuredText ``.. code-block:: sql`` directive, indented              |
| bbcode_block            | A   | SQL in forum BBCode [code=sql] ... [/code]                                            |
| batch_go_separator      | A   | T-SQL batch separator: ``;`` then a ``GO`` line after the query inside the fence       |
| delimiter_directive     | A   | MySQL client ``DELIMITER $$`` ... ``$$`` / ``DELIMITER ;`` around the query            |
| block_label_line        | A   | a label line ("SQL Query:") as the first line inside the sql fence                   |
| inline_comment_swallow  | A   | a ``-- note`` put mid-line in the one-line query: the rest of the query is commented  |
| count_qualified_star    | A   | COUNT(*) written COUNT(t.*) (PostgreSQL row idiom; not SQL elsewhere)                |
| count_distinct_star     | A   | COUNT(*) written COUNT(DISTINCT *)                                                   |
| spreadsheet_function    | A   | spreadsheet names: AVG -> AVERAGE, COUNT(DISTINCT x) -> COUNTUNIQUE(x)                |
| case_end_missing        | A   | a CASE expression left without its END                                               |
| cte_semicolon_split     | A   | a ``;`` between the WITH list and the main SELECT                                   |
| table_hint_nolock       | A   | SQL Server table hints ``WITH (NOLOCK)`` after every table reference                 |
| use_database_first      | A   | a MySQL/T-SQL ``USE <database>;`` statement put before the query in the fence         |
| cast_as_function        | A   | CAST(x AS REAL/INT) written as a Python/Spark style call FLOAT(x) / DOUBLE(x) / INT(x) |
| c_style_logical         | A   | C-style logic: AND -> &&, OR -> ||, NOT -> !                                          |
| like_half_anchored      | B   | a '%x%' LIKE pattern loses one of its % (anchored at start or end)                   |
| agg_distinct_inserted   | B   | SUM(x)/AVG(x) becomes SUM(DISTINCT x)/AVG(DISTINCT x): repeated values counted once  |
| manual_average          | B   | AVG(x) hand-written as SUM(x) / COUNT(*): NULL rows counted, integer division        |
| null_as_empty_string    | B   | IS NULL / IS NOT NULL tests written as = '' / <> ''                                  |
| nulls_order_flip        | B   | with a LIMIT, the NULLS FIRST/LAST placement of the sort key flipped (or added)      |
| in_list_shrunk          | B   | one value dropped from an IN (...) list of literals                                 |
| wildcard_with_equals    | B   | a LIKE with % / _ wildcards written with = (the wildcards taken literally)           |
| natural_join_shortcut   | B   | JOIN ... ON written NATURAL JOIN where the tables share other column names too       |
| window_instead_of_group | B   | GROUP BY dropped, aggregates made window functions OVER (PARTITION BY keys)          |
| lower_one_side          | B   | LOWER() put on the column of an = / IN test while the literal keeps its capitals    |
| safety_limit_added      | B   | a "safety" LIMIT 5 appended to a query that asks for every row                     |
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from sqlglot.dialects import Dialect

DAMAGE_KINDS: tuple[str, ...] = (
    "clean",
    "heredoc_shell", "org_mode_src", "asciidoc_listing", "latex_lstlisting", "rst_code_directive", "bbcode_block",
    "batch_go_separator", "delimiter_directive", "block_label_line", "inline_comment_swallow",
    "count_qualified_star", "count_distinct_star", "spreadsheet_function", "case_end_missing",
    "cte_semicolon_split", "table_hint_nolock", "use_database_first", "cast_as_function", "c_style_logical",
    "like_half_anchored", "agg_distinct_inserted", "manual_average", "null_as_empty_string", "nulls_order_flip",
    "in_list_shrunk", "wildcard_with_equals", "natural_join_shortcut", "window_instead_of_group",
    "lower_one_side", "safety_limit_added",
)  # fmt: skip
TREE_KINDS: frozenset[str] = frozenset()

AGGS = {"COUNT", "SUM", "AVG", "MIN", "MAX"}
CLAUSE_END = {"WHERE", "GROUP_BY", "ORDER_BY", "HAVING", "LIMIT", "UNION", "EXCEPT", "INTERSECT", "JOIN", "LEFT",
              "RIGHT", "INNER", "FULL", "CROSS", "OUTER", "NATURAL", "SEMICOLON", "WINDOW", "QUALIFY", "OFFSET"}
INTROS = ("Here is the SQL query that answers your question:", "Sure! You can use the following query:",
          "The following query should give you the result:", "Here's how you can get that:")
OUTROS = ("This query returns the requested data.", "Let me know if you need any changes!",
          "It should work on your database.", "")


@dataclass(frozen=True)
class Damaged:
    kind: str
    reply: str
    note: str


class _Tok:
    __slots__ = ("type", "text", "start", "end", "depth")

    def __init__(self, type_: str, text: str, start: int, end: int, depth: int) -> None:
        self.type, self.text, self.start, self.end, self.depth = type_, text, start, end, depth

    @property
    def up(self) -> str:
        return self.text.upper()


def _tokens(sql: str, dialect: str) -> list[_Tok]:
    out: list[_Tok] = []
    depth = 0
    for t in Dialect.get_or_raise(dialect).tokenize(sql):
        name = t.token_type.name
        if name == "R_PAREN":
            depth -= 1
        out.append(_Tok(name, t.text, t.start, t.end + 1, depth))
        if name == "L_PAREN":
            depth += 1
    return out


def _edit(sql: str, edits: list[tuple[int, int, str]]) -> str:
    for start, end, new in sorted(edits, key=lambda e: e[0], reverse=True):
        sql = sql[:start] + new + sql[end:]
    return sql


def _close(toks: list[_Tok], i: int) -> int:
    """Index of the R_PAREN matching the L_PAREN at ``i``."""
    d = toks[i].depth
    for j in range(i + 1, len(toks)):
        if toks[j].type == "R_PAREN" and toks[j].depth == d:
            return j
    raise ValueError("unbalanced")


def _is_call(toks: list[_Tok], i: int, names: set[str]) -> bool:
    return toks[i].up in names and i + 1 < len(toks) and toks[i + 1].type == "L_PAREN"


def _dialect(schema: Any) -> str:
    d = getattr(schema, "dialect", None) or "postgres"
    return d if d in ("postgres", "sqlite", "duckdb", "mysql") else "postgres"


def _reply(rng: random.Random, sql: str) -> str:
    outro = rng.choice(OUTROS)
    return f"{rng.choice(INTROS)}\n\n```sql\n{sql}\n```\n" + (f"\n{outro}\n" if outro else "")


def _strip_semi(sql: str) -> str:
    return sql.strip().rstrip(";").rstrip()


def _table_ref_end(toks: list[_Tok], i: int) -> int | None:
    """``toks[i]`` starts a table reference (name[.name] [AS] [alias]); index of its last token, or None."""
    if i >= len(toks) or toks[i].type in ("L_PAREN", "SELECT") or toks[i].type in CLAUSE_END:
        return None
    j = i
    while j + 2 < len(toks) and toks[j + 1].type == "DOT":
        j += 2
    if j + 2 < len(toks) and toks[j + 1].type == "ALIAS":
        return j + 2
    if j + 1 < len(toks) and toks[j + 1].type in ("VAR", "IDENTIFIER") and toks[j + 1].up not in ("ON", "USING"):
        return j + 1
    return j


def _ref_name(toks: list[_Tok], i: int, end: int) -> str:
    """The name a column is qualified with for the table reference toks[i..end]: its alias, else its name."""
    if end > i and toks[end - 1].type != "DOT":
        return toks[end].text
    return toks[end].text


def _from_for(toks: list[_Tok], i: int) -> int | None:
    """Index of the FROM of the SELECT that token ``i`` belongs to (same depth; forwards, else backwards)."""
    d = toks[i].depth
    for j in range(i + 1, len(toks)):
        if toks[j].depth < d:
            break
        if toks[j].depth == d and toks[j].type == "FROM":
            return j
    for j in range(i - 1, -1, -1):
        if toks[j].depth < d:
            break
        if toks[j].depth == d and toks[j].type == "FROM":
            return j
    return None


def _clause_end(toks: list[_Tok], i: int, stops: set[str]) -> int:
    """Index of the first token after ``i`` at ``i``'s depth that is in ``stops`` (or a closing paren / end)."""
    d = toks[i].depth
    for j in range(i + 1, len(toks)):
        if toks[j].depth < d or (toks[j].depth == d and toks[j].type in stops):
            return j
    return len(toks)


# ---------------------------------------------------------------- layouts (family A)


def _layout(kind: str, sql: str, rng: random.Random, dialect: str, db_name: str = "mydb") -> str | None:
    q = _strip_semi(sql)
    intro = rng.choice(INTROS)
    if kind == "heredoc_shell":
        db = rng.choice(("analytics.db", "data.db", "mydb.sqlite"))
        cmd = f"sqlite3 -header -column {db}" if dialect == "sqlite" else "psql -d mydb -U postgres"
        return (f"You can run it straight from the terminal:\n\n```bash\n{cmd} <<'SQL'\n{q};\nSQL\n```\n\n"
                "The heredoc passes the query to the client and prints the result.")
    if kind == "org_mode_src":
        engine = "sqlite :db data.db" if dialect == "sqlite" else "sql :engine postgresql"
        return f"{intro}\n\n#+BEGIN_SRC {engine}\n{q};\n#+END_SRC\n\nEvaluate the block with C-c C-c.\n"
    if kind == "asciidoc_listing":
        return f"{intro}\n\n.Query\n[source,sql]\n----\n{q};\n----\n"
    if kind == "latex_lstlisting":
        return (f"{intro}\n\n\\begin{{lstlisting}}[language=SQL]\n{q};\n\\end{{lstlisting}}\n\n"
                "This lists the rows you asked for.")
    if kind == "rst_code_directive":
        body = "\n".join("   " + line for line in q.splitlines())
        return f"{intro}\n\n.. code-block:: sql\n\n{body}\n\n{rng.choice(OUTROS)}\n"
    if kind == "bbcode_block":
        return f"{intro}\n\n[code=sql]\n{q};\n[/code]\n\nHope this helps!"
    if kind == "batch_go_separator":
        return f"{intro}\n\n```sql\n{q};\nGO\n```\n"
    if kind == "delimiter_directive":
        return f"{intro}\n\n```sql\nDELIMITER $$\n\n{q}$$\n\nDELIMITER ;\n```\n"
    if kind == "use_database_first":
        return f"{intro}\n\n```sql\nUSE {db_name};\n\n{q};\n```\n"
    if kind == "block_label_line":
        label = rng.choice(("SQL Query:", "Query:", "Final SQL:", "SQLQuery:"))
        return f"{intro}\n\n```sql\n{label}\n{q}\n```\n"
    return None


# ---------------------------------------------------------------- SQL edits


def _inline_comment_swallow(sql: str, toks: list[_Tok], rng: random.Random) -> str | None:
    if "--" in sql or "/*" in sql:
        return None
    spots = [t for t in toks if t.depth == 0 and t.type in ("WHERE", "GROUP_BY", "ORDER_BY", "JOIN", "LEFT",
                                                                "INNER", "HAVING", "LIMIT")]
    if not spots:
        return None
    t = rng.choice(spots)
    notes = {"WHERE": "apply the filter", "GROUP_BY": "aggregate per group", "ORDER_BY": "sort the result",
             "HAVING": "keep only the matching groups", "LIMIT": "only the top rows"}
    note = notes.get(t.type, "join the related table")
    flat = re.sub(r"\s+", " ", sql[: t.start]) + f"-- {note} " + re.sub(r"\s+", " ", sql[t.start:])
    return flat


def _count_star(toks: list[_Tok], qualified: bool) -> list[tuple[int, int, str]]:
    edits = []
    for i in range(len(toks) - 3):
        if _is_call(toks, i, {"COUNT"}) and toks[i + 2].type == "STAR" and toks[i + 3].type == "R_PAREN":
            if not qualified:
                edits.append((toks[i + 2].start, toks[i + 2].end, "DISTINCT *"))
                continue
            f = _from_for(toks, i)
            if f is None:
                continue
            end = _table_ref_end(toks, f + 1)
            if end is None:
                continue
            edits.append((toks[i + 2].start, toks[i + 2].end, f"{_ref_name(toks, f + 1, end)}.*"))
    return edits


def _spreadsheet(toks: list[_Tok]) -> list[tuple[int, int, str]]:
    edits = []
    for i, t in enumerate(toks):
        if _is_call(toks, i, {"AVG"}):
            edits.append((t.start, t.end, "AVERAGE"))
        elif _is_call(toks, i, {"COUNT"}) and i + 2 < len(toks) and toks[i + 2].type == "DISTINCT":
            edits.append((t.start, toks[i + 3].start, "COUNTUNIQUE("))
    return edits


def _case_end_missing(toks: list[_Tok], rng: random.Random) -> list[tuple[int, int, str]]:
    cases = [i for i, t in enumerate(toks) if t.type == "CASE"]
    if not cases:
        return []
    i = rng.choice(cases)
    level = 0
    for j in range(i, len(toks)):
        if toks[j].type == "CASE":
            level += 1
        elif toks[j].type == "END":
            level -= 1
            if level == 0:
                start = toks[j - 1].end
                return [(start, toks[j].end, "")]
    return []


def _cte_semicolon(toks: list[_Tok]) -> list[tuple[int, int, str]]:
    if not toks or toks[0].type != "WITH":
        return []
    for j, t in enumerate(toks):
        if j > 0 and t.depth == 0 and t.type == "SELECT":
            return [(toks[j - 1].end, t.start, ";\n")]
    return []


def _nolock(toks: list[_Tok]) -> list[tuple[int, int, str]]:
    edits = []
    for i, t in enumerate(toks):
        if t.type in ("FROM", "JOIN") and i + 1 < len(toks):
            end = _table_ref_end(toks, i + 1)
            if end is not None:
                edits.append((toks[end].end, toks[end].end, " WITH (NOLOCK)"))
                # comma-separated FROM list
                k = end + 1
                while t.type == "FROM" and k < len(toks) and toks[k].type == "COMMA":
                    e2 = _table_ref_end(toks, k + 1)
                    if e2 is None:
                        break
                    edits.append((toks[e2].end, toks[e2].end, " WITH (NOLOCK)"))
                    k = e2 + 1
    return edits


def _cast_function(toks: list[_Tok], rng: random.Random) -> list[tuple[int, int, str]]:
    edits = []
    for i, t in enumerate(toks):
        if not _is_call(toks, i, {"CAST"}):
            continue
        close = _close(toks, i + 1)
        d = toks[i + 1].depth + 1
        as_at = next((j for j in range(i + 2, close) if toks[j].depth == d and toks[j].type == "ALIAS"), None)
        if as_at is None:
            continue
        typ = " ".join(x.up for x in toks[as_at + 1: close])
        if any(w in typ for w in ("REAL", "FLOAT", "DOUBLE", "NUMERIC", "DECIMAL")):
            fn = rng.choice(("FLOAT", "DOUBLE"))
        elif "INT" in typ:
            fn = "INT"
        else:
            continue
        edits.append((t.start, toks[i + 1].end, f"{fn}("))
        edits.append((toks[as_at - 1].end, toks[close].start, ""))
    return edits


def _c_logical(toks: list[_Tok]) -> list[tuple[int, int, str]]:
    edits = []
    between_open: set[int] = set()
    for i, t in enumerate(toks):
        if t.type == "BETWEEN":
            between_open.add(t.depth)
        elif t.type == "AND":
            if t.depth in between_open:
                between_open.discard(t.depth)
                continue
            edits.append((t.start, t.end, "&&"))
        elif t.type == "OR":
            edits.append((t.start, t.end, "||"))
    if not edits:
        for i, t in enumerate(toks):
            if t.type == "NOT" and i + 1 < len(toks):
                edits.append((t.start, toks[i + 1].start, "!"))
    return edits


def _like_patterns(toks: list[_Tok]) -> list[tuple[int, int]]:
    """(index of LIKE, index of its pattern STRING)."""
    out = []
    for i, t in enumerate(toks):
        if t.type in ("LIKE", "ILIKE"):
            for j in range(i + 1, min(i + 4, len(toks))):
                if toks[j].type == "STRING":
                    out.append((i, j))
                    break
    return out


def _like_half(sql: str, toks: list[_Tok], rng: random.Random) -> list[tuple[int, int, str]]:
    spots = [(i, j) for i, j in _like_patterns(toks) if toks[j].text.startswith("%") and toks[j].text.endswith("%")
             and len(toks[j].text.strip("%")) > 0]
    if not spots:
        return []
    _, j = rng.choice(spots)
    raw = sql[toks[j].start: toks[j].end]
    body = raw[1:-1]
    body = body[1:] if rng.random() < 0.6 else body[:-1]
    return [(toks[j].start, toks[j].end, f"'{body}'")]


def _agg_distinct(toks: list[_Tok], rng: random.Random) -> list[tuple[int, int, str]]:
    spots = [i for i in range(len(toks) - 2) if _is_call(toks, i, {"SUM", "AVG"}) and toks[i + 2].type != "DISTINCT"]
    if not spots:
        return []
    i = rng.choice(spots)
    return [(toks[i + 1].end, toks[i + 1].end, "DISTINCT ")]


def _manual_average(sql: str, toks: list[_Tok], rng: random.Random) -> list[tuple[int, int, str]]:
    spots = [i for i in range(len(toks) - 2) if _is_call(toks, i, {"AVG"}) and toks[i + 2].type != "DISTINCT"]
    if not spots:
        return []
    i = rng.choice(spots)
    close = _close(toks, i + 1)
    inner = sql[toks[i + 1].end: toks[close].start]
    return [(toks[i].start, toks[close].end, f"SUM({inner}) / COUNT(*)")]


def _null_empty(toks: list[_Tok]) -> list[tuple[int, int, str]]:
    edits = []
    for i, t in enumerate(toks):
        if t.type != "IS" or i + 1 >= len(toks):
            continue
        if toks[i + 1].type == "NULL":
            edits.append((t.start, toks[i + 1].end, "= ''"))
        elif toks[i + 1].type == "NOT" and i + 2 < len(toks) and toks[i + 2].type == "NULL":
            edits.append((t.start, toks[i + 2].end, "<> ''"))
    return edits


def _nulls_flip(toks: list[_Tok], dialect: str) -> list[tuple[int, int, str]]:
    if not any(t.type == "LIMIT" and t.depth == 0 for t in toks):
        return []
    edits = []
    order = next((i for i, t in enumerate(toks) if t.type == "ORDER_BY" and t.depth == 0), None)
    if order is None:
        return []
    end = _clause_end(toks, order, {"LIMIT", "OFFSET", "SEMICOLON", "FETCH"})
    # the sort keys: split at top-level commas
    keys: list[tuple[int, int]] = []
    k0 = order + 1
    for j in range(order + 1, end + 1):
        if j == end or (toks[j].type == "COMMA" and toks[j].depth == toks[order].depth):
            keys.append((k0, j - 1))
            k0 = j + 1
    for a, b in keys[:1]:
        seg = toks[a: b + 1]
        nulls = next((x for x, t in enumerate(seg) if t.up == "NULLS"), None)
        if nulls is not None and nulls + 1 < len(seg):
            word = seg[nulls + 1]
            new = "LAST" if word.up == "FIRST" else "FIRST"
            edits.append((word.start, word.end, new))
        else:
            desc = any(t.type == "DESC" for t in seg)
            nulls_small = dialect in ("sqlite", "mysql")
            default_first = (not desc) if nulls_small else desc
            edits.append((seg[-1].end, seg[-1].end, " NULLS LAST" if default_first else " NULLS FIRST"))
    return edits


def _in_shrunk(toks: list[_Tok], rng: random.Random) -> list[tuple[int, int, str]]:
    spots = []
    for i, t in enumerate(toks):
        if t.type == "IN" and i + 1 < len(toks) and toks[i + 1].type == "L_PAREN":
            close = _close(toks, i + 1)
            items = toks[i + 2: close]
            vals = [x for x in items if x.type in ("STRING", "NUMBER")]
            commas = [x for x in items if x.type == "COMMA"]
            if len(vals) >= 2 and len(vals) == len(commas) + 1 and len(items) == len(vals) + len(commas):
                spots.append((i + 2, close))
    if not spots:
        return []
    a, close = rng.choice(spots)
    vals = [j for j in range(a, close) if toks[j].type != "COMMA"]
    v = rng.choice(vals)
    if v == vals[-1]:
        return [(toks[v - 1].start, toks[v].end, "")]
    return [(toks[v].start, toks[v + 2].start, "")]


def _wild_equals(toks: list[_Tok], rng: random.Random) -> list[tuple[int, int, str]]:
    spots = [(i, j) for i, j in _like_patterns(toks) if "%" in toks[j].text or "_" in toks[j].text]
    if not spots:
        return []
    i, _ = rng.choice(spots)
    return [(toks[i].start, toks[i].end, "=")]


def _natural_join(toks: list[_Tok], schema: Any) -> list[tuple[int, int, str]]:
    def cols(name: str) -> set[str]:
        table = schema.table(name) if schema is not None else None
        return {c.lower() for c in table.column_names} if table is not None else set()

    seen: dict[str, set[str]] = {}  # qualifier -> columns of the tables joined so far
    for i, t in enumerate(toks):
        if t.type == "FROM":
            end = _table_ref_end(toks, i + 1)
            if end is not None:
                seen[_ref_name(toks, i + 1, end).lower()] = cols(toks[i + 1].text)
        if t.type != "JOIN" or toks[i - 1].type in ("LEFT", "RIGHT", "FULL", "OUTER", "CROSS", "NATURAL"):
            continue
        end = _table_ref_end(toks, i + 1)
        if end is None or end + 1 >= len(toks) or toks[end + 1].type != "ON":
            continue
        right = cols(toks[i + 1].text)
        on = end + 1
        stop = _clause_end(toks, on, CLAUSE_END)
        on_cols = {toks[j].text.lower() for j in range(on + 1, stop) if toks[j].type in ("VAR", "IDENTIFIER")
                   and (j + 1 >= stop or toks[j + 1].type != "DOT")}
        left: set[str] = set().union(*seen.values()) if seen else set()
        shared = left & right
        seen[_ref_name(toks, i + 1, end).lower()] = right
        if not shared or shared == on_cols or not right:
            continue
        start = toks[i - 1].start if toks[i - 1].type == "INNER" else t.start
        cut_end = toks[stop - 1].end
        return [(start, t.end, "NATURAL JOIN"), (toks[end].end, cut_end, "")]
    return []


def _window_group(sql: str, toks: list[_Tok]) -> list[tuple[int, int, str]]:
    if any(t.type in ("HAVING", "UNION", "WITH") for t in toks):
        return []
    g = next((i for i, t in enumerate(toks) if t.type == "GROUP_BY" and t.depth == 0), None)
    if g is None:
        return []
    stop = _clause_end(toks, g, {"ORDER_BY", "LIMIT", "SEMICOLON", "HAVING"})
    keys = sql[toks[g].end: toks[stop - 1].end].strip()
    if any(toks[j].type == "NUMBER" for j in range(g + 1, stop)):
        return []
    sel = next((i for i, t in enumerate(toks) if t.type == "SELECT" and t.depth == 0), None)
    frm = next((i for i, t in enumerate(toks) if t.type == "FROM" and t.depth == 0), None)
    if sel is None or frm is None:
        return []
    edits = []
    for i in range(sel + 1, frm):
        if _is_call(toks, i, AGGS) and toks[i].depth == 0:
            if toks[i + 2].type == "DISTINCT":
                return []
            close = _close(toks, i + 1)
            edits.append((toks[close].end, toks[close].end, f" OVER (PARTITION BY {keys})"))
    if not edits:
        return []
    # ORDER BY on an aggregate would need one too: give up then
    o = next((i for i, t in enumerate(toks) if t.type == "ORDER_BY" and t.depth == 0), None)
    if o is not None and any(_is_call(toks, j, AGGS) for j in range(o, len(toks))):
        return []
    edits.append((toks[g - 1].end, toks[stop - 1].end, ""))
    return edits


def _lower_one_side(toks: list[_Tok], rng: random.Random) -> list[tuple[int, int, str]]:
    spots = []
    for i, t in enumerate(toks):
        if t.type not in ("EQ", "IN") or i == 0:
            continue
        if t.type == "EQ":
            if i + 1 >= len(toks) or toks[i + 1].type != "STRING" or toks[i + 1].text == toks[i + 1].text.lower():
                continue
        else:
            if i + 2 >= len(toks) or toks[i + 1].type != "L_PAREN" or toks[i + 2].type != "STRING":
                continue
            close = _close(toks, i + 1)
            if not any(x.type == "STRING" and x.text != x.text.lower() for x in toks[i + 2: close]):
                continue
        b = i - 1
        if toks[b].type not in ("VAR", "IDENTIFIER") and not toks[b].type.isalpha():
            continue
        a = b
        while a >= 2 and toks[a - 1].type == "DOT":
            a -= 2
        if a > 0 and toks[a - 1].type in ("L_PAREN",) and a > 1 and toks[a - 2].up == "LOWER":
            continue
        spots.append((toks[a].start, toks[b].end))
    if not spots:
        return []
    s, e = rng.choice(spots)
    return [(s, s, "LOWER("), (e, e, ")")]


def _safety_limit(toks: list[_Tok], sql: str) -> list[tuple[int, int, str]]:
    if any(t.type in ("LIMIT", "FETCH") and t.depth == 0 for t in toks):
        return []
    q = sql.rstrip()
    end = len(q) - 1 if q.endswith(";") else len(q)
    return [(end, end, " LIMIT 5")]


def _damage(gold_sql: str, schema: Any, kind: str, seed: int) -> Damaged | None:
    rng = random.Random(f"fresh17|{kind}|{seed}|{gold_sql}")
    dialect = _dialect(schema)
    sql = gold_sql.strip()
    if kind == "clean":
        return Damaged(kind, _reply(rng, sql), "the gold query, fenced")
    db_name = str(getattr(schema, "database_id", "") or "analytics").split("/")[-1].split(".")[0] or "analytics"
    laid = _layout(kind, sql, rng, dialect, db_name)
    if laid is not None:
        return Damaged(kind, laid, f"layout {kind}; SQL unchanged")
    toks = _tokens(sql, dialect)
    new: str | None = None
    edits: list[tuple[int, int, str]] = []
    if kind == "inline_comment_swallow":
        new = _inline_comment_swallow(sql, toks, rng)
    elif kind == "count_qualified_star":
        edits = _count_star(toks, qualified=True)
    elif kind == "count_distinct_star":
        edits = _count_star(toks, qualified=False)
    elif kind == "spreadsheet_function":
        edits = _spreadsheet(toks)
    elif kind == "case_end_missing":
        edits = _case_end_missing(toks, rng)
    elif kind == "cte_semicolon_split":
        edits = _cte_semicolon(toks)
    elif kind == "table_hint_nolock":
        edits = _nolock(toks)
    elif kind == "cast_as_function":
        edits = _cast_function(toks, rng)
    elif kind == "c_style_logical":
        edits = _c_logical(toks)
    elif kind == "like_half_anchored":
        edits = _like_half(sql, toks, rng)
    elif kind == "agg_distinct_inserted":
        edits = _agg_distinct(toks, rng)
    elif kind == "manual_average":
        edits = _manual_average(sql, toks, rng)
    elif kind == "null_as_empty_string":
        edits = _null_empty(toks)
    elif kind == "nulls_order_flip":
        edits = _nulls_flip(toks, dialect)
    elif kind == "in_list_shrunk":
        edits = _in_shrunk(toks, rng)
    elif kind == "wildcard_with_equals":
        edits = _wild_equals(toks, rng)
    elif kind == "natural_join_shortcut":
        edits = _natural_join(toks, schema)
    elif kind == "window_instead_of_group":
        edits = _window_group(sql, toks)
    elif kind == "lower_one_side":
        edits = _lower_one_side(toks, rng)
    elif kind == "safety_limit_added":
        edits = _safety_limit(toks, sql)
    else:
        return None
    if new is None:
        if not edits:
            return None
        new = _edit(sql, edits)
    if new.strip() == sql:
        return None
    return Damaged(kind, _reply(rng, new), f"{kind}: {len(edits) or 1} edit(s)")


def damage(gold_sql: str, schema: Any, kind: str, seed: int) -> Damaged | None:
    try:
        return _damage(gold_sql, schema, kind, seed)
    except Exception:  # noqa: BLE001 - a generator never raises
        return None
