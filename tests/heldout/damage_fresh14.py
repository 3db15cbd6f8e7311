"""Held-out damage generator ``fresh14``: damaged chat replies of a small local coder model, for bench/recovery.py.

Written without reading Cairn's extraction / check / repair code. Every damage is a text edit at token positions
found with sqlglot's tokenizer (nothing is re-rendered, so TREE_KINDS is empty). A kind returns None when the
gold query has nothing it could plausibly damage.

Kinds (family A: the reply as written fails to run, or its SQL is hard to find; family B: it runs and answers a
different question):

  clean                   -  the gold query in an ordinary reply (prose in English or Hindi-English, varied layout)
  groupby_copies_select   A  GROUP BY repeats the whole select list, aggregate included
  position_miscount       A  ordinal GROUP BY / ORDER BY positions counted wrong (an aggregate's or a missing one)
  compound_order_swap     A  a two-word table or column name with its words swapped (domain_author -> author_domain)
  col_pluralized          A  a column name pluralized (rating -> ratings, review_count -> reviews_count)
  col_unit_suffix         A  a numeric column given an invented unit suffix (sale_price -> sale_price_usd)
  pk_named_like_fk        A  in a join, the referenced primary key given the foreign key's name (c.id -> c.car_id)
  oracle_idioms           A  Oracle habits: NVL, SYSDATE, TRUNC(d,'MM'), TO_CHAR/TO_DATE, ROWNUM instead of LIMIT
  bigquery_idioms         A  BigQuery habits: SAFE_DIVIDE, COUNTIF, DATE_TRUNC(d, MONTH), CURRENT_DATE(), SAFE_CAST
  session_variable        A  a filter value moved into a MySQL SET @var / T-SQL DECLARE @var in the same block
  psql_command            A  the query only inside a psql / sqlite3 shell command (quoted, escaped, heredoc)
  cli_prompt_transcript   A  the query shown as an interactive psql / sqlite3 session with prompts and output
  tilde_fence             A  the query fenced with ~~~ instead of ```, prose around it
  md_escaped_underscores  A  unfenced reply with markdown escapes in the SQL (author\\_id, COUNT(\\*))
  fullwidth_punct         A  Chinese-prose reply whose SQL carries full-width punctuation (， （ ） ；)
  elided_columns          A  part of the select list written as "..." (the model abbreviating)
  slash_comments          A  C++-style // comments at line ends inside the SQL
  arrow_annotations       A  clause lines annotated with "<-- ..." / "← ..." (English, Hinglish, Devanagari)
  output_preview_first    A  an "expected output" table fenced before the SQL block
  txn_wrapped             A  the query wrapped in BEGIN; ... COMMIT; (or a SET / PRAGMA line first) in one block
  blockquote_sql          A  the SQL quoted markdown-style, every line starting with "> ", no fence
  inline_triple_ticks     A  prose that uses ```x``` inline for names before the real SQL block
  select_item_dropped     B  one requested column left out of the outer select list
  aggregate_unrolled      B  the aggregates written as plain per-row values and GROUP BY left out (raw rows listed)
  id_instead_of_label     B  a joined table's name/label column shown as the join key id instead
  alias_owner_swap        B  a column taken from the other joined table that has a column of the same name
  order_dropped_limit_kept B ORDER BY forgotten while LIMIT stays (an arbitrary top N)
  single_quoted_column    B  a column name in single quotes, so a string constant (SELECT 'name' / WHERE 'state' = 'CA')
  offset_off_by_one       B  OFFSET 1 added to a LIMIT (rows counted from 1), or an OFFSET off by one
  filter_column_slip      B  a WHERE comparison made against another existing column of the same table and type
  group_key_sibling       B  grouped (and labelled) by another text column of the same table (city for state)
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.tokens import TokenType as T

DAMAGE_KINDS: tuple[str, ...] = (
    "clean",
    "groupby_copies_select", "position_miscount", "compound_order_swap", "col_pluralized", "col_unit_suffix",
    "pk_named_like_fk", "oracle_idioms", "bigquery_idioms", "session_variable", "psql_command",
    "cli_prompt_transcript", "tilde_fence", "md_escaped_underscores", "fullwidth_punct", "elided_columns",
    "slash_comments", "arrow_annotations", "output_preview_first", "txn_wrapped", "blockquote_sql",
    "inline_triple_ticks",
    "select_item_dropped", "aggregate_unrolled", "id_instead_of_label", "alias_owner_swap",
    "order_dropped_limit_kept", "single_quoted_column", "offset_off_by_one", "filter_column_slip",
    "group_key_sibling",
)  # fmt: skip
TREE_KINDS: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Damaged:
    kind: str
    reply: str
    note: str


# ---------------------------------------------------------------------------------------------------------------
# prose

EN_INTRO = (
    "Here's the query:",
    "Sure! This should do it:",
    "You can get that with the following SQL.",
    "Below is a query that answers the question.",
    "Okay, let me write this one.",
    "The SQL for this would be:",
    "Try this query:",
    "Here is how I would write it.",
    "To answer this, we need the following query:",
    "Certainly. Here's a query for your database:",
)
EN_OUTRO = (
    "",
    "Let me know if you need anything else.",
    "This returns one row per result.",
    "Hope this helps!",
    "You may want to adjust the filters to your needs.",
    "Feel free to ask if you want it broken down further.",
    "Note: run it against the current database.",
)
HI_INTRO = (
    "Yeh raha aapka query:",
    "Theek hai, iske liye yeh SQL use karo:",
    "Aapke sawaal ka jawab is query se milega:",
    "Chaliye, query likhte hain:",
    "यह रहा आपका SQL query:",
    "इसके लिए यह query चलाइए:",
    "Is query ko run karein, result mil jayega:",
)
HI_OUTRO = (
    "",
    "Agar kuch aur chahiye toh batana.",
    "Isse aapko sahi result milna chahiye.",
    "उम्मीद है इससे मदद मिलेगी।",
    "कोई और सवाल हो तो पूछिए।",
)
ZH_INTRO = (
    "好的，以下是查询语句：",
    "可以使用下面的SQL查询：",
    "根据您的问题，查询如下：",
    "这个查询可以满足您的需求：",
)
ZH_OUTRO = ("", "希望对您有帮助！", "如有需要可以调整筛选条件。", "这个查询会返回所需的结果。")

CLAUSE_NOTES_EN = {
    "SELECT": ("the columns we need", "what we return", "pick the output columns"),
    "FROM": ("main table", "start from here", "base table"),
    "JOIN": ("bring in the related rows", "join on the key", "link the tables"),
    "WHERE": ("apply the filter", "only the rows we want", "filter condition"),
    "GROUP": ("one row per group", "aggregate per group"),
    "ORDER": ("sort the result", "highest first", "ordering"),
    "LIMIT": ("only the top rows", "limit the output"),
    "HAVING": ("filter the groups",),
    "AND": ("second condition", "also this"),
    "WITH": ("helper CTE", "intermediate result"),
}
CLAUSE_NOTES_HI = {
    "SELECT": ("yeh columns chahiye", "output ke columns", "ये कॉलम चाहिए"),
    "FROM": ("main table yahi hai", "मुख्य टेबल"),
    "JOIN": ("dono tables ko jodna", "टेबल जोड़ना", "key par join"),
    "WHERE": ("filter lagana", "शर्त यहाँ है", "sirf yeh rows"),
    "GROUP": ("har group ki ek row", "ग्रुप बनाना"),
    "ORDER": ("sort karna", "क्रम से लगाना"),
    "LIMIT": ("sirf top rows", "ऊपर की पंक्तियाँ"),
    "HAVING": ("groups par filter",),
    "AND": ("doosri shart", "और यह भी"),
    "WITH": ("pehle ek CTE", "सहायक CTE"),
}


def _intro(rng: random.Random, lang: str | None = None) -> tuple[str, str, str]:
    lang = lang or rng.choice(("en", "en", "en", "hi"))
    if lang == "hi":
        return lang, rng.choice(HI_INTRO), rng.choice(HI_OUTRO)
    if lang == "zh":
        return lang, rng.choice(ZH_INTRO), rng.choice(ZH_OUTRO)
    return lang, rng.choice(EN_INTRO), rng.choice(EN_OUTRO)


def _fenced(sql: str, rng: random.Random, lang: str | None = None) -> str:
    """An ordinary reply: prose, a fenced block (```sql / ```SQL / ```), prose."""
    _, intro, outro = _intro(rng, lang)
    tag = rng.choice(("sql", "sql", "sql", "SQL", "", "postgresql" if "::" in sql else "sql"))
    parts = [intro, f"```{tag}\n{sql}\n```"]
    if outro:
        parts.append(outro)
    return "\n\n".join(parts)


# ---------------------------------------------------------------------------------------------------------------
# tokens, scopes, edits


@dataclass
class Tok:
    typ: Any
    text: str
    s: int
    e: int  # exclusive
    depth: int


CLAUSE_TYPES = {T.FROM: "FROM", T.WHERE: "WHERE", T.GROUP_BY: "GROUP", T.HAVING: "HAVING", T.ORDER_BY: "ORDER",
                T.LIMIT: "LIMIT", T.OFFSET: "OFFSET", T.FETCH: "FETCH", T.WINDOW: "WINDOW", T.QUALIFY: "QUALIFY"}
SETOPS = {T.UNION, T.INTERSECT, T.EXCEPT}
JOIN_STARTS = {T.JOIN, T.LEFT, T.RIGHT, T.INNER, T.OUTER, T.FULL, T.CROSS, T.NATURAL}
AGGS = {"count", "sum", "avg", "min", "max"}
IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
DATE_FMT = re.compile(r"(%[YmdW]|[-/ ])+")


@dataclass
class Scope:
    sel: int
    depth: int
    end: int  # index one past the last token
    items: list[tuple[int, int]]  # inclusive token ranges of the select items
    clauses: dict[str, int]  # clause name -> token index (first occurrence at this depth)

    def clause_range(self, name: str) -> tuple[int, int] | None:
        """Token range (exclusive end) of a clause's body."""
        if name not in self.clauses:
            return None
        start = self.clauses[name]
        later = [i for i in self.clauses.values() if i > start]
        return start + 1, min(later) if later else self.end


class Ctx:
    def __init__(self, sql: str, schema: Any, rng: random.Random) -> None:
        self.sql = sql
        self.schema = schema
        self.dialect = "sqlite" if getattr(schema, "dialect", "postgres") == "sqlite" else "postgres"
        self.rng = rng
        self.edits: list[tuple[int, int, str]] = []
        self.toks = self._tokenize()
        self.scopes = self._scopes() if self.toks else []
        self.tree = self._parse()
        self.tables = self._tables()  # lower name -> schema Table
        self.cols = {c.name.lower(): c for t in self.tables.values() for c in t.columns}

    # --- analysis
    def _tokenize(self) -> list[Tok]:
        try:
            raw = sqlglot.Dialect.get_or_raise(self.dialect).tokenize(self.sql)
        except Exception:  # noqa: BLE001
            return []
        toks, depth = [], 0
        for t in raw:
            if t.token_type == T.R_PAREN:
                depth -= 1
            toks.append(Tok(t.token_type, t.text, t.start, t.end + 1, depth))
            if t.token_type == T.L_PAREN:
                depth += 1
        if any(self.sql[t.s:t.e].strip() == "" for t in toks):
            return []
        return toks

    def _parse(self) -> Any:
        try:
            return sqlglot.parse_one(self.sql, read=self.dialect)
        except Exception:  # noqa: BLE001
            return None

    def _tables(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.tree is None:
            return out
        ctes = {c.alias_or_name.lower() for c in self.tree.find_all(exp.CTE)}
        for t in self.tree.find_all(exp.Table):
            if t.name.lower() in ctes:
                continue
            st = self.schema.table(t.name)
            if st is not None:
                out[t.name.lower()] = st
        return out

    def _scopes(self) -> list[Scope]:
        toks, out = self.toks, []
        for i, t in enumerate(toks):
            if t.typ != T.SELECT:
                continue
            d, j, clauses = t.depth, i + 1, {}
            while j < len(toks):
                u = toks[j]
                if u.depth < d or (u.depth == d and (u.typ in SETOPS or u.typ == T.SEMICOLON)):
                    break
                if u.depth == d and u.typ in CLAUSE_TYPES and CLAUSE_TYPES[u.typ] not in clauses:
                    clauses[CLAUSE_TYPES[u.typ]] = j
                j += 1
            start = i + 1
            if start < j and toks[start].typ in (T.DISTINCT, T.ALL):
                start += 1
                if start < j and toks[start].typ == T.ON:
                    continue  # DISTINCT ON (...): leave alone
            stop = min([c for c in clauses.values()] + [j])
            items, k0 = [], start
            for k in range(start, stop):
                if toks[k].typ == T.COMMA and toks[k].depth == d:
                    items.append((k0, k - 1))
                    k0 = k + 1
            if k0 <= stop - 1:
                items.append((k0, stop - 1))
            out.append(Scope(i, d, j, items, clauses))
        return out

    def main_scope(self) -> Scope | None:
        tops = [s for s in self.scopes if s.depth == 0]
        return tops[-1] if tops else (self.scopes[0] if self.scopes else None)

    def text(self, i: int, j: int) -> str:
        """Source text of tokens i..j inclusive."""
        return self.sql[self.toks[i].s:self.toks[j].e]

    def match_paren(self, i: int) -> int | None:
        d = self.toks[i].depth
        for k in range(i + 1, len(self.toks)):
            if self.toks[k].typ == T.R_PAREN and self.toks[k].depth == d:
                return k
        return None

    def is_call(self, i: int, names: set[str]) -> bool:
        return (i + 1 < len(self.toks) and self.toks[i].text.lower() in names
                and self.toks[i + 1].typ == T.L_PAREN)

    def prev(self, i: int) -> Tok | None:
        return self.toks[i - 1] if i > 0 else None

    def nxt(self, i: int) -> Tok | None:
        return self.toks[i + 1] if i + 1 < len(self.toks) else None

    def col_refs(self) -> list[int]:
        """Token indices that reference a schema column of the query's tables (qualified or not)."""
        out = []
        for i, t in enumerate(self.toks):
            if t.typ in (T.STRING, T.NUMBER) or not IDENT_RE.match(t.text):
                continue
            name = t.text.lower()
            if name not in self.cols:
                continue
            p, n = self.prev(i), self.nxt(i)
            if n is not None and n.typ in (T.DOT, T.L_PAREN):
                continue
            if p is not None and p.typ in (T.ALIAS, T.DCOLON, T.FROM, T.JOIN):
                continue
            if p is not None and p.typ != T.DOT and name in self.tables and (n is None or n.typ != T.DOT):
                # same name as a table: only when it is clearly in an expression position
                if p.typ in (T.COMMA,) and self._in_from(i):
                    continue
            out.append(i)
        return out

    def _in_from(self, i: int) -> bool:
        for s in self.scopes:
            r = s.clause_range("FROM")
            if r and r[0] <= i < r[1]:
                return True
        return False

    def table_refs(self) -> list[int]:
        """Token indices naming a real table (in FROM/JOIN, or as a qualifier)."""
        out = []
        for i, t in enumerate(self.toks):
            if t.typ in (T.STRING, T.NUMBER) or t.text.lower() not in self.tables:
                continue
            p, n = self.prev(i), self.nxt(i)
            if p is not None and p.typ == T.DOT:
                continue
            if n is not None and n.typ == T.L_PAREN:
                continue
            if (p is not None and p.typ in (T.FROM, T.JOIN, T.COMMA) and self._in_from(i)) or (
                    n is not None and n.typ == T.DOT) or (p is not None and p.typ in (T.FROM, T.JOIN)):
                out.append(i)
        return out

    def from_entries(self, scope: Scope) -> dict[str, str | None]:
        """Qualifier used in the scope (alias or table name, lower) -> real table name (lower) or None."""
        out: dict[str, str | None] = {}
        r = scope.clause_range("FROM")
        if r is None:
            return out
        toks, d = self.toks, scope.depth
        k = r[0] - 1
        while k < r[1]:
            t = toks[k]
            if t.depth == d and t.typ in (T.FROM, T.JOIN, T.COMMA):
                j = k + 1
                if j < r[1] and toks[j].typ == T.L_PAREN:  # derived table
                    close = self.match_paren(j)
                    if close is None:
                        return out
                    j = close + 1
                    name = None
                else:
                    if j >= r[1]:
                        break
                    name = toks[j].text.lower()
                    j += 1
                    while j + 1 < r[1] and toks[j].typ == T.DOT:  # schema.table
                        name = toks[j + 1].text.lower()
                        j += 2
                alias = None
                if j < r[1] and toks[j].typ == T.ALIAS:
                    j += 1
                if j < r[1] and toks[j].depth == d and IDENT_RE.match(toks[j].text) and toks[j].typ not in (
                        T.ON, T.JOIN, T.LEFT, T.RIGHT, T.INNER, T.FULL, T.CROSS, T.WHERE, T.USING, T.COMMA,
                        T.NATURAL, T.OUTER, T.GROUP_BY, T.ORDER_BY, T.LIMIT):
                    alias = toks[j].text.lower()
                table = name if name in self.tables else None
                out[alias or (name or "")] = table
                k = j
                continue
            k += 1
        return out

    def break_points(self) -> set[int]:
        """Token indices a clause-per-line layout starts a line at (scopes at depth 0 and 1)."""
        out: set[int] = set()
        for sc in self.scopes:
            if sc.depth > 1:
                continue
            out.update(i for i in sc.clauses.values())
            if sc.depth == 0 and sc.sel > 0 and self.toks[sc.sel - 1].typ == T.R_PAREN:
                out.add(sc.sel)  # the main SELECT after a CTE
            r = sc.clause_range("FROM")
            if r:
                for k in range(*r):
                    t = self.toks[k]
                    if t.depth == sc.depth and t.typ in JOIN_STARTS and self.toks[k - 1].typ not in JOIN_STARTS:
                        out.add(k)
            if sc.end < len(self.toks) and self.toks[sc.end].typ in SETOPS:
                out.add(sc.end)
        out.discard(0)
        return out

    # --- edits and rendering
    def edit(self, s: int, e: int, text: str) -> None:
        self.edits.append((s, e, text))

    def render(self, multiline: bool | None = None, semicolon: bool | None = None, lower_kw: bool | None = None,
               edits: list[tuple[int, int, str]] | None = None) -> str:
        """The gold with the damage edits applied, laid out (one line or clause per line)."""
        rng = self.rng
        if multiline is None:
            multiline = rng.random() < 0.7
        if semicolon is None:
            semicolon = rng.random() < 0.6
        if lower_kw is None:
            lower_kw = rng.random() < 0.15
        accepted = list(self.edits if edits is None else edits)
        extra: list[tuple[int, int, str]] = []
        toks = self.toks
        if multiline:
            for i in sorted(self.break_points()):
                t, p = toks[i], toks[i - 1]
                if p.e > t.s:
                    continue
                indent = "  " * t.depth + ("  " if t.typ in JOIN_STARTS else "")
                extra.append((p.e, t.s, "\n" + indent))
        if lower_kw:
            for t in toks:
                if t.typ in (T.SELECT, T.FROM, T.WHERE, T.GROUP_BY, T.ORDER_BY, T.JOIN, T.ON, T.AND, T.OR,
                             T.LIMIT, T.HAVING, T.ALIAS, T.LEFT, T.INNER, T.DESC, T.ASC, T.DISTINCT):
                    extra.append((t.s, t.e, self.sql[t.s:t.e].lower()))
        out = _apply(self.sql, accepted, extra)
        out = out.rstrip().rstrip(";").rstrip()
        return out + (";" if semicolon else "")


def _apply(text: str, edits: list[tuple[int, int, str]], extra: list[tuple[int, int, str]]) -> str:
    def overlaps(a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
        (s1, e1, _), (s2, e2, _) = a, b
        if s1 == e1 and s2 == e2:
            return False
        if s1 == e1:
            return s2 < s1 < e2
        if s2 == e2:
            return s1 < s2 < e1
        return s1 < e2 and s2 < e1

    kept: list[tuple[int, int, str]] = []
    for ed in edits:
        if not any(overlaps(ed, k) for k in kept):
            kept.append(ed)
    base = len(kept)
    for ed in extra:
        if not any(overlaps(ed, k) for k in kept[:base]) and not any(overlaps(ed, k) for k in kept[base:]):
            kept.append(ed)
    order = sorted(range(len(kept)), key=lambda i: (kept[i][0], kept[i][1], -i), reverse=True)
    for i in order:
        s, e, rep = kept[i]
        text = text[:s] + rep + text[e:]
    return text


def _db_name(schema: Any) -> str:
    raw = str(getattr(schema, "database_id", "") or "")
    tail = re.split(r"[/\\:@]", raw.rstrip("/"))[-1] if raw else ""
    tail = re.sub(r"\.(sqlite3?|db)$", "", tail)
    tail = re.sub(r"^defog_", "", tail)
    tail = re.sub(r"-[0-9a-f]{8,}$", "", tail)
    return tail if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", tail or "") else "mydb"


def _plural(word: str) -> str:
    if re.search(r"[^aeiou]y$", word):
        return word[:-1] + "ies"
    if re.search(r"(s|x|z|ch|sh)$", word):
        return word + "es"
    return word + "s"


# ---------------------------------------------------------------------------------------------------------------
# family A


def k_clean(c: Ctx) -> tuple[str, str] | None:
    sql = c.render()
    if c.rng.random() < 0.12:
        return sql, "gold, bare"
    return _fenced(sql, c.rng), "gold in an ordinary reply"


def _is_agg_item(c: Ctx, a: int, b: int) -> bool:
    return any(c.is_call(k, AGGS) for k in range(a, b + 1))


def _item_expr(c: Ctx, scope: Scope, a: int, b: int) -> tuple[int, int]:
    """Token range of a select item without its alias."""
    for k in range(a, b + 1):
        if c.toks[k].typ == T.ALIAS and c.toks[k].depth == scope.depth:
            return a, k - 1
    return a, b


def k_groupby_copies_select(c: Ctx) -> tuple[str, str] | None:
    cands = [s for s in c.scopes if "GROUP" in s.clauses and s.items
             and any(_is_agg_item(c, a, b) for a, b in s.items)
             and not any(c.toks[a].typ == T.STAR for a, _ in s.items)]
    if not cands:
        return None
    s = c.rng.choice(cands)
    r = s.clause_range("GROUP")
    assert r
    exprs = [c.text(*_item_expr(c, s, a, b)) for a, b in s.items]
    c.edit(c.toks[r[0]].s, c.toks[r[1] - 1].e, ", ".join(exprs))
    return _fenced(c.render(), c.rng), "GROUP BY lists every select item, the aggregate too"


def k_position_miscount(c: Ctx) -> tuple[str, str] | None:
    rng = c.rng
    group = [s for s in c.scopes if "GROUP" in s.clauses and s.items
             and any(_is_agg_item(c, a, b) for a, b in s.items)
             and not any(c.toks[a].typ == T.STAR for a, _ in s.items)]
    order = [s for s in c.scopes if "ORDER" in s.clauses and s.items
             and not any(c.toks[a].typ == T.STAR or c.text(a, b).endswith("*") for a, b in s.items)]
    if group and (not order or rng.random() < 0.5):
        s = rng.choice(group)
        r = s.clause_range("GROUP")
        assert r
        n_group = 1 + sum(1 for k in range(*r) if c.toks[k].typ == T.COMMA and c.toks[k].depth == s.depth)
        agg_pos = [i + 1 for i, (a, b) in enumerate(s.items) if _is_agg_item(c, a, b)]
        plain = [i + 1 for i, (a, b) in enumerate(s.items) if not _is_agg_item(c, a, b)]
        positions = sorted(set(plain[: max(0, n_group - 1)] + [agg_pos[0]]))
        if len(positions) < n_group:
            positions = sorted(set(positions) | {len(s.items) + 1})
        c.edit(c.toks[r[0]].s, c.toks[r[1] - 1].e, ", ".join(map(str, positions)))
        return _fenced(c.render(), rng), f"GROUP BY {positions}: an aggregate's position counted in"
    if not order:
        return None
    s = rng.choice(order)
    r = s.clause_range("ORDER")
    assert r
    # the first ordering key, up to ASC/DESC/NULLS/comma
    a = r[0]
    b = a
    while b + 1 < r[1] and not (c.toks[b + 1].depth == s.depth and (
            c.toks[b + 1].typ in (T.ASC, T.DESC, T.COMMA) or c.toks[b + 1].text.upper() == "NULLS")):
        b += 1
    pos = len(s.items) + rng.choice((1, 1, 2))
    c.edit(c.toks[a].s, c.toks[b].e, str(pos))
    return _fenced(c.render(), rng), f"ORDER BY {pos} with only {len(s.items)} columns"


def _rename_all(c: Ctx, idxs: list[int], old: str, new: str) -> int:
    n = 0
    for i in idxs:
        if c.toks[i].text.lower() == old.lower():
            t = c.toks[i]
            c.edit(t.s, t.e, new if not c.toks[i].text.isupper() else new.upper())
            n += 1
    return n


def k_compound_order_swap(c: Ctx) -> tuple[str, str] | None:
    all_names = {t.name.lower() for t in c.schema.tables} | set(c.cols)
    tabs = sorted({c.toks[i].text.lower() for i in c.table_refs()})
    cols = sorted({c.toks[i].text.lower() for i in c.col_refs()})

    def swapped(n: str) -> str | None:
        parts = n.split("_")
        if len(parts) != 2 or not all(parts) or parts[1] in ("id", "name") or parts[0] in ("is", "has"):
            return None
        new = f"{parts[1]}_{parts[0]}"
        return None if new in all_names else new

    tc = [(n, swapped(n)) for n in tabs if swapped(n)]
    cc = [(n, swapped(n)) for n in cols if swapped(n)]
    if not tc and not cc:
        return None
    if tc and (not cc or c.rng.random() < 0.6):
        old, new = c.rng.choice(tc)
        _rename_all(c, c.table_refs(), old, new)  # type: ignore[arg-type]
        what = "table"
    else:
        old, new = c.rng.choice(cc)
        _rename_all(c, c.col_refs(), old, new)  # type: ignore[arg-type]
        what = "column"
    return _fenced(c.render(), c.rng), f"{what} {old} written {new}"


def k_col_pluralized(c: Ctx) -> tuple[str, str] | None:
    all_cols = {col.name.lower() for t in c.schema.tables for col in t.columns}
    pks = {p.lower() for t in c.tables.values() for p in t.primary_key}
    cands = []
    for name in sorted({c.toks[i].text.lower() for i in c.col_refs()}):
        if name in pks or name.endswith("id") or name.endswith("s") or len(name) < 3:
            continue
        parts = name.split("_")
        if len(parts) > 1 and parts[-1] in ("count", "num", "total", "number", "id"):
            parts[0] = _plural(parts[0])
        else:
            parts[-1] = _plural(parts[-1])
        new = "_".join(parts)
        if new not in all_cols:
            cands.append((name, new))
    if not cands:
        return None
    old, new = c.rng.choice(cands)
    _rename_all(c, c.col_refs(), old, new)
    return _fenced(c.render(), c.rng), f"column {old} pluralized to {new}"


UNIT_RULES = (
    (("price", "cost", "amount", "revenue", "salary", "balance", "fee", "spent", "total", "income", "fare", "paid"),
     ("_usd", "_in_usd", "_dollars")),
    (("duration", "time", "minutes", "length", "runtime", "milliseconds"), ("_minutes", "_secs", "_ms")),
    (("distance", "mileage", "miles"), ("_km", "_miles")),
    (("weight",), ("_kg",)),
    (("height", "elevation", "altitude"), ("_m", "_ft")),
    (("age",), ("_years",)),
    (("rating", "stars", "score", "rank"), ("_value", "_score", "_avg")),
    (("count", "num", "number", "quantity", "qty", "capacity", "population", "area"), ("_total", "_count", "_val")),
)


def _numeric(col: Any) -> bool:
    ty = (col.type or "").lower()
    return any(w in ty for w in ("int", "numeric", "decimal", "real", "double", "float", "money", "number"))


def k_col_unit_suffix(c: Ctx) -> tuple[str, str] | None:
    pks = {p.lower() for t in c.tables.values() for p in t.primary_key}
    fks = {col.lower() for t in c.tables.values() for fk in t.foreign_keys for col in fk.columns}
    all_cols = {col.name.lower() for t in c.schema.tables for col in t.columns}
    cands = []
    for name in sorted({c.toks[i].text.lower() for i in c.col_refs()}):
        col = c.cols.get(name)
        if col is None or not _numeric(col) or name in pks or name in fks or name.endswith("id") or name in (
                "year", "month", "day", "week", "quarter", "hour"):
            continue
        suffixes: tuple[str, ...] = ("_value", "_amt")
        for words, sfx in UNIT_RULES:
            if any(w in name for w in words):
                suffixes = sfx
                break
        suffix = c.rng.choice(suffixes)
        if name.endswith(suffix):
            continue
        new = name + suffix
        if new not in all_cols:
            cands.append((name, new))
    if not cands:
        return None
    old, new = c.rng.choice(cands)
    _rename_all(c, c.col_refs(), old, new)
    return _fenced(c.render(), c.rng), f"numeric column {old} given a unit: {new}"


def _on_equalities(c: Ctx) -> list[tuple[int, int, int, int]]:
    """(qual1, col1, qual2, col2) token indices of `q1.c1 = q2.c2` comparisons inside ON clauses."""
    out = []
    toks = c.toks
    in_on = False
    on_depth = 0
    for i, t in enumerate(toks):
        if t.typ == T.ON:
            in_on, on_depth = True, t.depth
            continue
        if in_on and (t.depth < on_depth or (t.depth == on_depth and (
                t.typ in JOIN_STARTS or t.typ in CLAUSE_TYPES or t.typ == T.COMMA))):
            in_on = False
        if not in_on or t.typ != T.EQ or i < 3 or i + 3 >= len(toks):
            continue
        if toks[i - 2].typ == T.DOT and toks[i + 2].typ == T.DOT:
            out.append((i - 3, i - 1, i + 1, i + 3))
    return out


def k_pk_named_like_fk(c: Ctx) -> tuple[str, str] | None:
    cands = []
    for scope in c.scopes:
        entries = c.from_entries(scope)
        for q1, c1, q2, c2 in _on_equalities(c):
            if not (scope.sel < q1 < scope.end):
                continue
            for (qa, ca), (_qb, cb) in (((q1, c1), (q2, c2)), ((q2, c2), (q1, c1))):
                tname = entries.get(c.toks[qa].text.lower())
                table = c.tables.get(tname) if tname else None
                if table is None:
                    continue
                a_name, b_name = c.toks[ca].text.lower(), c.toks[cb].text.lower()
                pk = {p.lower() for p in table.primary_key} or {"id"}
                if a_name in pk and b_name != a_name and table.column(b_name) is None:
                    cands.append((ca, a_name, b_name))
    if not cands:
        return None
    ca, old, new = c.rng.choice(sorted(set(cands)))
    c.edit(c.toks[ca].s, c.toks[ca].e, new)
    return _fenced(c.render(), c.rng), f"join uses {new} for the key {old}"


def _date_modifier(text: str) -> tuple[int, str] | None:
    m = re.fullmatch(r"'\s*([+-]?)\s*(\d+)\s*(day|days|month|months|year|years)\s*'", text.strip(), re.I)
    if not m:
        return None
    n = int(m.group(2)) * (-1 if m.group(1) == "-" else 1)
    return n, m.group(3).lower().rstrip("s")


def _current_date_spans(c: Ctx) -> list[tuple[int, int, str, tuple[int, str] | None]]:
    """(first token, last token, form, modifier) of 'today' expressions: CURRENT_DATE, NOW(), DATE('now', ...)."""
    out = []
    toks = c.toks
    for i, t in enumerate(toks):
        up = t.text.upper()
        if t.typ == T.CURRENT_DATE or up == "CURRENT_DATE":
            out.append((i, i, "current_date", None))
        elif t.typ == T.CURRENT_TIMESTAMP or up == "CURRENT_TIMESTAMP":
            out.append((i, i, "current_timestamp", None))
        elif up == "NOW" and i + 2 < len(toks) and toks[i + 1].typ == T.L_PAREN and toks[i + 2].typ == T.R_PAREN:
            out.append((i, i + 2, "now", None))
        elif up in ("DATE", "DATETIME") and i + 1 < len(toks) and toks[i + 1].typ == T.L_PAREN:
            close = c.match_paren(i + 1)
            if close is None or i + 2 >= len(toks) or toks[i + 2].text.lower() != "now":
                continue
            mod = None
            if close == i + 5 and toks[i + 3].typ == T.COMMA:
                mod = _date_modifier(c.text(i + 4, i + 4))
                if mod is None:
                    continue
            elif close != i + 3:
                continue
            out.append((i, close, "sqlite_now", mod))
    return out


def k_oracle_idioms(c: Ctx) -> tuple[str, str] | None:
    rng, toks = c.rng, c.toks
    options: list[tuple[str, list[tuple[int, int, str]]]] = []
    for i, t in enumerate(toks):
        if c.is_call(i, {"coalesce"}):
            options.append(("NVL", [(t.s, t.e, "NVL")]))
        if c.is_call(i, {"date_trunc"}):
            close = c.match_paren(i + 1)
            if close and toks[i + 2].typ == T.STRING and toks[i + 3].typ == T.COMMA:
                unit = toks[i + 2].text.lower()
                fmt = {"month": "MM", "year": "YYYY", "week": "IW", "day": "DD", "quarter": "Q"}.get(unit)
                if fmt:
                    options.append(("TRUNC", [(t.s, t.e, "TRUNC"), (toks[i + 2].s, toks[i + 4].s, ""),
                                              (toks[close].s, toks[close].s, f", '{fmt}'")]))
        if c.is_call(i, {"strftime"}) and toks[i + 2].typ == T.STRING and DATE_FMT.fullmatch(toks[i + 2].text):
            fmt = toks[i + 2].text
            ora = fmt.replace("%Y", "YYYY").replace("%m", "MM").replace("%d", "DD").replace("%W", "IW")
            close = c.match_paren(i + 1)
            if close and toks[i + 3].typ == T.COMMA and i + 4 < close:
                options.append(("TO_CHAR", [(t.s, toks[i + 4].s, "TO_CHAR("), (toks[close].s, toks[close].s,
                                                                              f", '{ora}'")]))
        if c.dialect == "sqlite" and t.typ == T.STRING and re.fullmatch(r"\d{4}-\d{2}-\d{2}", t.text):
            p = c.prev(i)
            if p is not None and p.typ in (T.EQ, T.GT, T.GTE, T.LT, T.LTE, T.NEQ, T.AND, T.BETWEEN):
                options.append(("TO_DATE", [(t.s, t.e, f"TO_DATE('{t.text}', 'YYYY-MM-DD')")]))
    for a, b, form, mod in _current_date_spans(c):
        rep = "SYSDATE"
        if mod:
            n, unit = mod
            rep = {"day": f"SYSDATE {'-' if n < 0 else '+'} {abs(n)}", "month": f"ADD_MONTHS(SYSDATE, {n})",
                   "year": f"ADD_MONTHS(SYSDATE, {12 * n})"}[unit]
        options.append(("SYSDATE", [(toks[a].s, toks[b].e, rep)]))
    for s in c.scopes:
        if "LIMIT" in s.clauses and "OFFSET" not in s.clauses:
            li = s.clauses["LIMIT"]
            if li + 1 < len(toks) and toks[li + 1].typ == T.NUMBER:
                n = toks[li + 1].text
                eds = [(toks[li - 1].e, toks[li + 1].e, "")]
                if "WHERE" in s.clauses:
                    r = s.clause_range("WHERE")
                    assert r
                    eds.append((toks[r[1] - 1].e, toks[r[1] - 1].e, f" AND ROWNUM <= {n}"))
                else:
                    nxt = [s.clauses[k] for k in ("GROUP", "HAVING", "ORDER") if k in s.clauses]
                    if nxt:
                        at = toks[min(nxt)].s
                        eds.append((at, at, f"WHERE ROWNUM <= {n} "))
                    else:
                        eds.append((toks[li - 1].e, toks[li - 1].e, f" WHERE ROWNUM <= {n}"))
                options.append(("ROWNUM", eds))
    if not options:
        return None
    rng.shuffle(options)
    chosen = options[: rng.randint(1, min(3, len(options)))]
    for _, eds in chosen:
        for ed in eds:
            c.edit(*ed)
    lang, intro, outro = _intro(rng)
    intro = rng.choice((intro, "Here is the query (I'm used to Oracle syntax):", "This works on Oracle-style SQL:"))
    reply = f"{intro}\n\n```sql\n{c.render()}\n```" + (f"\n\n{outro}" if outro else "")
    return reply, "Oracle idioms: " + ", ".join(n for n, _ in chosen)


def _operand_left(c: Ctx, i: int) -> int | None:
    """First token index of the primary operand that ends at token i."""
    toks = c.toks
    k = i
    if toks[k].typ == T.R_PAREN:
        d = toks[k].depth
        while k >= 0 and not (toks[k].typ == T.L_PAREN and toks[k].depth == d):
            k -= 1
        if k < 0:
            return None
        if k > 0 and IDENT_RE.match(toks[k - 1].text) and toks[k - 1].typ not in (
                T.SELECT, T.WHERE, T.AND, T.OR, T.ON, T.THEN, T.ELSE, T.WHEN, T.COMMA, T.IN):
            k -= 1
        return k
    if toks[k].typ in (T.NUMBER,) or IDENT_RE.match(toks[k].text):
        while k >= 2 and toks[k - 1].typ == T.DOT:
            k -= 2
        return k
    return None


def _operand_right(c: Ctx, i: int) -> int | None:
    toks = c.toks
    k = i
    if k >= len(toks):
        return None
    if toks[k].typ == T.L_PAREN:
        return c.match_paren(k)
    if IDENT_RE.match(toks[k].text) and k + 1 < len(toks) and toks[k + 1].typ == T.L_PAREN:
        return c.match_paren(k + 1)
    if toks[k].typ == T.NUMBER or IDENT_RE.match(toks[k].text):
        while k + 2 < len(toks) and toks[k + 1].typ == T.DOT:
            k += 2
        return k
    return None


def k_bigquery_idioms(c: Ctx) -> tuple[str, str] | None:
    rng, toks = c.rng, c.toks
    options: list[tuple[str, list[tuple[int, int, str]]]] = []
    for i, t in enumerate(toks):
        if t.typ == T.SLASH and 0 < i < len(toks) - 1:
            a, b = _operand_left(c, i - 1), _operand_right(c, i + 1)
            if a is not None and b is not None:
                while b + 2 < len(toks) and toks[b + 1].typ == T.DCOLON:
                    b += 2
                options.append(("SAFE_DIVIDE", [(toks[a].s, toks[a].s, "SAFE_DIVIDE("),
                                                (toks[i - 1].e, toks[i + 1].s, ", "),
                                                (toks[b].e, toks[b].e, ")")]))
        if c.is_call(i, {"sum"}) and i + 2 < len(toks) and toks[i + 2].typ == T.CASE:
            close = c.match_paren(i + 1)
            if close and close - i >= 9:
                seq = [x.text.upper() for x in toks[close - 5:close]]
                if seq == ["THEN", "1", "ELSE", "0", "END"] and toks[i + 3].typ == T.WHEN:
                    options.append(("COUNTIF", [(t.s, toks[i + 3].e, "COUNTIF("),
                                                (toks[close - 5].s, toks[close - 1].e, "")]))
        if c.is_call(i, {"date_trunc"}) and toks[i + 2].typ == T.STRING and toks[i + 3].typ == T.COMMA:
            close = c.match_paren(i + 1)
            if close:
                options.append(("DATE_TRUNC(d, UNIT)", [(toks[i + 2].s, toks[i + 4].s, ""),
                                                        (toks[close].s, toks[close].s,
                                                         f", {toks[i + 2].text.upper()}")]))
        if c.is_call(i, {"strftime"}) and toks[i + 2].typ == T.STRING and DATE_FMT.fullmatch(toks[i + 2].text):
            options.append(("FORMAT_DATE", [(t.s, t.e, "FORMAT_DATE")]))
        if c.is_call(i, {"to_char"}):
            options.append(("FORMAT_DATE", [(t.s, t.e, "FORMAT_DATE")]))
        if c.is_call(i, {"cast"}):
            close = c.match_paren(i + 1)
            if close:
                for k in range(i + 2, close):
                    if toks[k].typ == T.ALIAS and toks[k].depth == toks[i + 1].depth + 1:
                        ty = c.text(k + 1, close - 1).lower()
                        bq = "FLOAT64" if any(w in ty for w in ("float", "real", "double", "numeric", "decimal")) \
                            else "INT64" if "int" in ty else "STRING" if "char" in ty or "text" in ty else "DATE"
                        options.append(("SAFE_CAST", [(t.s, t.e, "SAFE_CAST"),
                                                      (toks[k + 1].s, toks[close - 1].e, bq)]))
                        break
        if c.dialect == "postgres" and c.is_call(i, {"coalesce"}):
            options.append(("IFNULL", [(t.s, t.e, "IFNULL")]))
        if c.is_call(i, {"julianday"}):
            close = c.match_paren(i + 1)
            nxt = c.nxt(close) if close else None
            if close and nxt is not None and nxt.typ == T.DASH and c.is_call(close + 2, {"julianday"}):
                close2 = c.match_paren(close + 3)
                if close2:
                    options.append(("DATE_DIFF", [(t.s, toks[i + 2].s, "DATE_DIFF("),
                                                  (toks[close].s, toks[close + 3].e, ", "),
                                                  (toks[close2].s, toks[close2].e, ", DAY)")]))
    froms = [i for i in c.table_refs() if i > 0 and toks[i - 1].typ in (T.FROM, T.JOIN, T.COMMA)
             and not (i + 1 < len(toks) and toks[i + 1].typ == T.DOT)]
    if froms and (not options or rng.random() < 0.3):
        project = rng.choice(("my-project", "my_project", "analytics-prod"))
        dataset = _db_name(c.schema)
        options.append(("`project.dataset.table`", [(toks[i].s, toks[i].e, f"`{project}.{dataset}.{toks[i].text}`")
                                                    for i in froms]))
    for a, b, form, mod in _current_date_spans(c):
        if form == "current_timestamp":
            continue
        rep = "CURRENT_DATE()"
        if mod:
            n, unit = mod
            rep = f"DATE_{'SUB' if n < 0 else 'ADD'}(CURRENT_DATE(), INTERVAL {abs(n)} {unit.upper()})"
        options.append(("CURRENT_DATE()", [(toks[a].s, toks[b].e, rep)]))
    if not options:
        return None
    rng.shuffle(options)
    chosen = options[: rng.randint(1, min(3, len(options)))]
    for _, eds in chosen:
        for ed in eds:
            c.edit(*ed)
    return _fenced(c.render(), rng), "BigQuery idioms: " + ", ".join(n for n, _ in chosen)


def k_session_variable(c: Ctx) -> tuple[str, str] | None:
    rng, toks = c.rng, c.toks
    cands = []
    for s in c.scopes:
        for name in ("WHERE", "HAVING"):
            r = s.clause_range(name)
            if not r:
                continue
            for k in range(*r):
                t = toks[k]
                if t.typ not in (T.STRING, T.NUMBER):
                    continue
                p = c.prev(k)
                between = p is not None and p.typ == T.AND and any(
                    x.typ == T.BETWEEN for x in toks[max(0, k - 4):k])
                if p is None or not (between or p.typ in (T.EQ, T.GT, T.GTE, T.LT, T.LTE, T.NEQ, T.LIKE, T.ILIKE,
                                                          T.BETWEEN)):
                    continue
                # the nearest column before it names the variable
                var = None
                for j in range(k - 1, max(r[0] - 1, k - 8), -1):
                    if IDENT_RE.match(toks[j].text) and toks[j].text.lower() in c.cols:
                        var = toks[j].text.lower()
                        break
                if var is None:
                    continue
                if p.typ in (T.GT, T.GTE):
                    var = "min_" + var
                elif p.typ in (T.LT, T.LTE):
                    var = "max_" + var
                cands.append((k, var))
    if not cands:
        return None
    picked = rng.sample(cands, min(len(cands), rng.choice((1, 1, 2))))
    style = rng.choice(("mysql", "tsql"))
    decls, seen = [], set()
    for k, var in sorted(picked):
        t = toks[k]
        if var in seen:
            var = var + "2"
        seen.add(var)
        lit = c.sql[t.s:t.e]
        if style == "mysql":
            decls.append(f"SET @{var} = {lit};")
        else:
            ty = "VARCHAR(100)" if t.typ == T.STRING else ("DECIMAL(12,2)" if "." in t.text else "INT")
            decls.append(f"DECLARE @{var} {ty} = {lit};")
        c.edit(t.s, t.e, f"@{var}")
    sql = "\n".join(decls) + "\n\n" + c.render(semicolon=True)
    lead = rng.choice(("I've put the filter value in a variable so it is easy to change:",
                       "Parameterised version (change the variable to reuse it):",
                       "Value ko variable mein rakha hai, taaki baad mein badal sako:",
                       "Here is the query with the filter as a variable."))
    return f"{lead}\n\n```sql\n{sql}\n```", f"{style} session variable for a filter value"


def k_psql_command(c: Ctx) -> tuple[str, str] | None:
    rng = c.rng
    db = _db_name(c.schema)
    flat = c.render(multiline=False, semicolon=rng.random() < 0.5)
    multi = c.render(multiline=True, semicolon=True)
    if c.dialect == "postgres":
        form = rng.choice(("dq", "sq", "heredoc"))
        if form == "dq":
            cmd = f'psql -h localhost -U postgres -d {db} -c "{flat.replace(chr(34), chr(92) + chr(34))}"'
        elif form == "sq":
            cmd = f"psql -d {db} -c '{flat.replace(chr(39), chr(39) + chr(92) + chr(39) + chr(39))}'"
        else:
            cmd = f"psql -d {db} <<'SQL'\n{multi}\nSQL"
    else:
        form = rng.choice(("dq", "heredoc", "dq"))
        if form == "dq":
            cmd = f'sqlite3 -header -column {db}.sqlite "{flat.replace(chr(34), chr(92) + chr(34))}"'
        else:
            cmd = f"sqlite3 {db}.db <<'EOF'\n.headers on\n{multi}\nEOF"
    tag = rng.choice(("bash", "sh", "shell", "console", ""))
    lead = rng.choice(("You can run it straight from the terminal:", "Run this in your shell:",
                       "Terminal se seedha chala sakte ho:", "टर्मिनल में यह कमांड चलाइए:",
                       "From the command line:"))
    return f"{lead}\n\n```{tag}\n{cmd}\n```", f"SQL only inside a {form} shell command"


def k_cli_prompt_transcript(c: Ctx) -> tuple[str, str] | None:
    rng = c.rng
    db = _db_name(c.schema)
    lines = c.render(multiline=True, semicolon=True).split("\n")
    if c.dialect == "postgres":
        first, cont = f"{db}=> ", f"{db}-> "
    else:
        first, cont = "sqlite> ", "   ...> "
    body = [first + lines[0]] + [cont + ln for ln in lines[1:]]
    s = c.main_scope()
    heads = []
    if s:
        for a, b in s.items[:4]:
            ea, eb = _item_expr(c, s, a, b)
            alias = c.text(eb + 2, b) if eb + 2 <= b else c.toks[eb].text
            heads.append(alias.strip('"').lower()[:18] or "?column?")
    heads = heads or ["result"]
    nrows = rng.randint(1, 5)
    if c.dialect == "postgres":
        out = [" " + " | ".join(heads), "-" + "-+-".join("-" * len(h) for h in heads)]
        out += [" " + " | ".join("…" for _ in heads) for _ in range(min(nrows, 2))]
        out.append(f"({nrows} row{'s' if nrows != 1 else ''})")
    else:
        out = ["|".join(heads)] + ["|".join("..." for _ in heads) for _ in range(min(nrows, 2))]
    lead = rng.choice(("I ran it in the console, this is the session:", "Here's what it looks like:",
                       "Maine isse run karke dekha:", "Output ke saath:", "Tested in the CLI:"))
    tag = rng.choice(("", "text", "console", "sql"))
    return f"{lead}\n\n```{tag}\n" + "\n".join(body + out) + "\n```", "interactive CLI transcript with prompts"


def k_tilde_fence(c: Ctx) -> tuple[str, str] | None:
    rng = c.rng
    _, intro, outro = _intro(rng)
    tag = rng.choice(("sql", "SQL", ""))
    return (f"{intro}\n\n~~~{tag}\n{c.render()}\n~~~\n\n{outro or 'That should give you the answer.'}",
            "fenced with ~~~")


def k_md_escaped_underscores(c: Ctx) -> tuple[str, str] | None:
    n = 0
    for t in c.toks:
        if t.typ == T.STAR:
            c.edit(t.s, t.e, "\\*")
            n += 1
        elif t.typ not in (T.STRING,) and "_" in t.text and IDENT_RE.match(t.text):
            c.edit(t.s, t.e, t.text.replace("_", "\\_"))
            n += 1
    if not n:
        return None
    rng = c.rng
    _, intro, outro = _intro(rng)
    sql = c.render()
    if rng.random() < 0.5:
        sql = "\n\n".join(sql.split("\n"))  # markdown paragraphs
    tail = f"\n\n{outro}" if outro else ""
    return f"{intro}\n\n{sql}{tail}", "unfenced SQL with markdown escapes (\\_ \\*)"


def k_fullwidth_punct(c: Ctx) -> tuple[str, str] | None:
    rng, toks = c.rng, c.toks
    commas = [t for t in toks if t.typ == T.COMMA]
    what = []
    if commas:
        for t in rng.sample(commas, min(len(commas), rng.choice((1, 1, 2)))):
            c.edit(t.s, t.e, "，")
        what.append("，")
    parens = [i for i, t in enumerate(toks) if t.typ == T.L_PAREN]
    if parens and (not commas or rng.random() < 0.3):
        i = rng.choice(parens)
        close = c.match_paren(i)
        if close:
            c.edit(toks[i].s, toks[i].e, "（")
            c.edit(toks[close].s, toks[close].e, "）")
            what.append("（）")
    sql = c.render(semicolon=False)
    if not what or rng.random() < 0.3:
        sql += "；"
        what.append("；")
    _, intro, outro = _intro(rng, "zh")
    return f"{intro}\n\n```sql\n{sql}\n```" + (f"\n\n{outro}" if outro else ""), "full-width " + " ".join(what)


def k_elided_columns(c: Ctx) -> tuple[str, str] | None:
    cands = [s for s in c.scopes if len(s.items) >= 2]
    if not cands:
        return None
    rng = c.rng
    s = max(cands, key=lambda x: len(x.items)) if rng.random() < 0.6 else rng.choice(cands)
    toks = c.toks
    if len(s.items) >= 3 and rng.random() < 0.7:
        a, b = s.items[1][0], s.items[-2][1]
        c.edit(toks[a].s, toks[b].e, "...")
        note = "middle of the select list elided"
    else:
        a, b = s.items[1][0], s.items[-1][1]
        c.edit(toks[a].s, toks[b].e, rng.choice(("...", "... -- other columns", "/* other columns */ ...")))
        note = "select list trailing columns elided"
    _, intro, outro = _intro(rng)
    outro = rng.choice((outro, "(add the remaining columns you need in place of the ...)", ""))
    return f"{intro}\n\n```sql\n{c.render()}\n```" + (f"\n\n{outro}" if outro else ""), note


def _line_key(line: str) -> str:
    w = line.strip().split(" ", 1)[0].upper() if line.strip() else ""
    if w in ("LEFT", "INNER", "RIGHT", "FULL", "CROSS", "JOIN"):
        return "JOIN"
    return w if w in CLAUSE_NOTES_EN else ""


def _annotated(c: Ctx, mark: str, hindi: bool) -> str | None:
    lines = c.render(multiline=True).split("\n")
    keyed = [i for i, ln in enumerate(lines) if _line_key(ln)]
    if not keyed:
        return None
    rng = c.rng
    picks = rng.sample(keyed, min(len(keyed), rng.randint(1, 3)))
    notes = CLAUSE_NOTES_HI if hindi else CLAUSE_NOTES_EN
    for i in picks:
        lines[i] = f"{lines[i]}  {mark} {rng.choice(notes[_line_key(lines[i])])}"
    return "\n".join(lines)


def k_slash_comments(c: Ctx) -> tuple[str, str] | None:
    sql = _annotated(c, "//", c.rng.random() < 0.3)
    if sql is None:
        return None
    return _fenced(sql, c.rng), "// comments in the SQL"


def k_arrow_annotations(c: Ctx) -> tuple[str, str] | None:
    rng = c.rng
    hindi = rng.random() < 0.5
    sql = _annotated(c, rng.choice(("<--", "←", "⬅", "<-")), hindi)
    if sql is None:
        return None
    return _fenced(sql, rng, "hi" if hindi else "en"), "arrow annotations on clause lines"


def k_output_preview_first(c: Ctx) -> tuple[str, str] | None:
    rng = c.rng
    s = c.main_scope()
    heads = []
    if s:
        for a, b in s.items[:5]:
            ea, eb = _item_expr(c, s, a, b)
            heads.append(c.text(eb + 2, b).strip('"') if eb + 2 <= b else c.toks[eb].text)
    heads = heads or ["result"]
    table = ["| " + " | ".join(heads) + " |", "|" + "|".join("---" for _ in heads) + "|"]
    for _ in range(rng.randint(1, 3)):
        table.append("| " + " | ".join(rng.choice(("...", "…", "x", "42", "N/A")) for _ in heads) + " |")
    tag = rng.choice(("", "text", "markdown"))
    lead = rng.choice(("The result will look like this:", "Expected output:", "Output kuch aisa hoga:",
                       "परिणाम कुछ ऐसा दिखेगा:", "You should get something like:"))
    mid = rng.choice(("And the query:", "Query:", "Iske liye query:", "Here's the SQL that produces it:"))
    return (f"{lead}\n\n```{tag}\n" + "\n".join(table) + f"\n```\n\n{mid}\n\n```sql\n{c.render()}\n```",
            "an output table fenced before the SQL")


def k_txn_wrapped(c: Ctx) -> tuple[str, str] | None:
    rng = c.rng
    sql = c.render(semicolon=True)
    if c.dialect == "postgres":
        form = rng.choice(("begin", "begin", "search_path", "timeout"))
        pre = {"begin": "BEGIN;", "search_path": "SET search_path TO public;",
               "timeout": "SET statement_timeout = '30s';"}[form]
    else:
        form = rng.choice(("begin", "pragma", "headers"))
        pre = {"begin": "BEGIN TRANSACTION;", "pragma": "PRAGMA case_sensitive_like = OFF;",
               "headers": ".headers on"}[form]
    body = f"{pre}\n{sql}" + ("\nCOMMIT;" if form == "begin" else "")
    return _fenced(body, rng), f"extra statement around the query ({form})"


def k_blockquote_sql(c: Ctx) -> tuple[str, str] | None:
    rng = c.rng
    _, intro, outro = _intro(rng)
    quoted = "\n".join("> " + ln for ln in c.render(multiline=True).split("\n"))
    return f"{intro}\n\n{quoted}\n\n{outro}".rstrip(), "SQL as a markdown blockquote"


def k_inline_triple_ticks(c: Ctx) -> tuple[str, str] | None:
    rng = c.rng
    names = sorted({c.toks[i].text for i in c.table_refs()}) or sorted({c.toks[i].text for i in c.col_refs()})
    calls = [c.text(i, c.match_paren(i + 1) or i) for i in range(len(c.toks) - 1) if c.is_call(i, AGGS)]
    bits = []
    hindi = rng.random() < 0.35
    if names:
        name = f"```{rng.choice(names)}```"
        bits.append(rng.choice((f"Data {name} table se aata hai", f"Hum {name} table use karenge")) if hindi else
                    rng.choice((f"We use the {name} table", f"The data comes from {name}",
                                f"First, look at {name}")))
    if calls:
        call = f"```{rng.choice(calls)}```"
        bits.append(rng.choice((f"aur {call} nikalenge", f"phir {call} calculate karte hain")) if hindi else
                    rng.choice((f"and compute {call}", f"then take {call} per group", f"with {call}")))
    if not bits:
        return None
    intro = " ".join(bits) + rng.choice((".", ":", " as shown below."))
    return f"{intro}\n\n```sql\n{c.render()}\n```", "inline ```x``` mentions before the SQL block"


# ---------------------------------------------------------------------------------------------------------------
# family B


def k_select_item_dropped(c: Ctx) -> tuple[str, str] | None:
    s = c.main_scope()
    if s is None or len(s.items) < 2:
        return None
    toks = c.toks
    used_later = {toks[k].text.lower() for k in range(s.items[-1][1] + 1, s.end) if IDENT_RE.match(toks[k].text)}
    cands = []
    for n, (a, b) in enumerate(s.items):
        ea, eb = _item_expr(c, s, a, b)
        alias = toks[b].text.lower() if eb < b else None
        if alias and alias in used_later:
            continue
        cands.append(n)
    if not cands:
        return None
    n = c.rng.choice(cands[1:] if len(cands) > 1 and c.rng.random() < 0.7 else cands)
    a, b = s.items[n]
    if n < len(s.items) - 1:
        c.edit(toks[a].s, toks[s.items[n + 1][0]].s, "")
    else:
        c.edit(toks[s.items[n - 1][1]].e, toks[b].e, "")
    return _fenced(c.render(), c.rng), f"select item {n + 1} of {len(s.items)} left out"


def k_order_dropped_limit_kept(c: Ctx) -> tuple[str, str] | None:
    cands = [s for s in c.scopes if "ORDER" in s.clauses and "LIMIT" in s.clauses
             and s.clauses["ORDER"] < s.clauses["LIMIT"]]
    if not cands:
        return None
    s = c.rng.choice(cands)
    o, li = s.clauses["ORDER"], s.clauses["LIMIT"]
    c.edit(c.toks[o].s, c.toks[li].s, "")
    return _fenced(c.render(), c.rng), "ORDER BY dropped, LIMIT kept"


def _in_count(c: Ctx, k: int) -> bool:
    """Token k is the argument of COUNT(...) (counting another non-null column changes nothing)."""
    return k >= 2 and c.toks[k - 1].typ == T.L_PAREN and c.toks[k - 2].text.lower() == "count" or (
        k >= 3 and c.toks[k - 1].typ == T.DISTINCT and c.toks[k - 3].text.lower() == "count")


def k_alias_owner_swap(c: Ctx) -> tuple[str, str] | None:
    toks, cands = c.toks, []
    joined_pairs = set()
    for q1, c1, q2, c2 in _on_equalities(c):
        a = (toks[q1].text.lower(), toks[c1].text.lower())
        b = (toks[q2].text.lower(), toks[c2].text.lower())
        joined_pairs.add((a, b))
        joined_pairs.add((b, a))
    for s in c.scopes:
        entries = {q: t for q, t in c.from_entries(s).items() if t}
        if len(entries) < 2:
            continue
        on_ranges = []
        for k in range(s.sel, s.end):
            if toks[k].typ == T.ON:
                on_ranges.append(k)
        for k in range(s.sel + 1, s.end - 2):
            if toks[k].depth < s.depth or toks[k + 1].typ != T.DOT:
                continue
            q, col = toks[k].text.lower(), toks[k + 2].text.lower()
            if q not in entries or _in_count(c, k):
                continue
            in_on = any(o < k and not any(toks[j].typ in JOIN_STARTS or toks[j].typ in CLAUSE_TYPES
                                          for j in range(o, k)) for o in on_ranges)
            if in_on:
                continue
            for q2, t2 in entries.items():
                if q2 == q or c.tables[t2].column(col) is None:
                    continue
                if ((q, col), (q2, col)) in joined_pairs:
                    continue
                # equal through a chain of join conditions? skip keys that are joined to anything
                if any(p[0] == (q, col) for p in joined_pairs) and any(p[0] == (q2, col) for p in joined_pairs):
                    continue
                cands.append((q, col, q2))
    if not cands:
        return None
    q, col, q2 = c.rng.choice(sorted(set(cands)))
    n = 0
    for k in range(len(toks) - 2):
        if toks[k].text.lower() == q and toks[k + 1].typ == T.DOT and toks[k + 2].text.lower() == col:
            if _in_count(c, k):
                continue
            in_on = False
            for j in range(k, -1, -1):
                if toks[j].typ == T.ON:
                    in_on = True
                    break
                if toks[j].typ in JOIN_STARTS or toks[j].typ in CLAUSE_TYPES or toks[j].typ == T.SELECT:
                    break
            if not in_on:
                c.edit(toks[k].s, toks[k].e, q2)
                n += 1
    if not n:
        return None
    return _fenced(c.render(), c.rng), f"{q}.{col} taken from {q2}.{col}"


def _agg_calls(c: Ctx, a: int, b: int, depth: int) -> list[tuple[int, int]]:
    """(name token, closing paren) of plain aggregate calls (not windowed) in tokens a..b at ``depth``."""
    out = []
    for k in range(a, b + 1):
        if c.toks[k].depth == depth and c.is_call(k, AGGS):
            close = c.match_paren(k + 1)
            if close is None or close > b:
                continue
            if close + 1 < len(c.toks) and c.toks[close + 1].typ == T.OVER:
                continue
            out.append((k, close))
    return out


def k_aggregate_unrolled(c: Ctx) -> tuple[str, str] | None:
    cands = [s for s in c.scopes if "GROUP" in s.clauses and "HAVING" not in s.clauses and s.items]
    if not cands:
        return None
    s = c.main_scope() if c.main_scope() in cands else c.rng.choice(cands)
    assert s is not None
    toks = c.toks
    calls = []
    for a, b in s.items:
        calls += _agg_calls(c, a, b, s.depth)
    r = s.clause_range("ORDER")
    if r:
        calls += _agg_calls(c, r[0], r[1] - 1, s.depth)
    nested = [(k, close) for k, close in calls if not any(k2 < k and close < close2 for k2, close2 in calls)]
    if not nested:
        return None
    for k, close in nested:
        inner_a = k + 2
        if toks[inner_a].typ == T.DISTINCT:
            inner_a += 1
        if toks[inner_a].typ == T.STAR or inner_a >= close:
            c.edit(toks[k].s, toks[close].e, "1")
        else:
            c.edit(toks[k].s, toks[inner_a].s, "")
            c.edit(toks[close].s, toks[close].e, "")
    g = s.clauses["GROUP"]
    gr = s.clause_range("GROUP")
    assert gr
    c.edit(toks[g - 1].e, toks[gr[1] - 1].e, "")
    return _fenced(c.render(), c.rng), "aggregates unrolled: per-row values, GROUP BY dropped"


def k_id_instead_of_label(c: Ctx) -> tuple[str, str] | None:
    toks, cands = c.toks, []
    eqs = _on_equalities(c)
    for s in c.scopes:
        entries = c.from_entries(s)
        for a, b in s.items:
            ea, eb = _item_expr(c, s, a, b)
            if eb - ea != 2 or toks[ea + 1].typ != T.DOT:
                continue
            qb, col = toks[ea].text.lower(), toks[eb].text.lower()
            table = c.tables.get(entries.get(qb) or "")
            label = table.column(col) if table is not None else None
            if label is None or not any(w in (label.type or "").lower() for w in ("char", "text", "string")):
                continue
            for q1, c1, q2, c2 in eqs:
                if not (s.sel < q1 < s.end):
                    continue
                for (qx, cx), (qy, cy) in (((q1, c1), (q2, c2)), ((q2, c2), (q1, c1))):
                    if toks[qy].text.lower() == qb and toks[qx].text.lower() != qb and toks[cy].text.lower() != col:
                        cands.append((s.sel, qb, col, c.text(qx, cx)))
    if not cands:
        return None
    sel, qb, col, repl = c.rng.choice(sorted(set(cands)))
    s = next(x for x in c.scopes if x.sel == sel)
    n = 0
    for k in range(s.sel, s.end - 2):
        if toks[k].text.lower() == qb and toks[k + 1].typ == T.DOT and toks[k + 2].text.lower() == col:
            on = False
            for j in range(k, s.sel, -1):
                if toks[j].typ == T.ON:
                    on = True
                    break
                if toks[j].typ in JOIN_STARTS or toks[j].typ in CLAUSE_TYPES:
                    break
            if not on:
                c.edit(toks[k].s, toks[k + 2].e, repl)
                n += 1
    if not n:
        return None
    return _fenced(c.render(), c.rng), f"{qb}.{col} shown as the key {repl}"


def k_single_quoted_column(c: Ctx) -> tuple[str, str] | None:
    toks, cands = c.toks, []
    for s in c.scopes:
        for a, b in s.items:
            ea, eb = _item_expr(c, s, a, b)
            plain = (ea == eb) or (eb - ea == 2 and toks[ea + 1].typ == T.DOT)
            if plain and toks[eb].text.lower() in c.cols:
                cands.append(("select", ea, eb))
        r = s.clause_range("WHERE")
        if r:
            for k in range(*r):
                if toks[k].typ in (T.EQ, T.NEQ, T.LIKE, T.ILIKE) and k + 1 < r[1] and toks[k + 1].typ == T.STRING:
                    eb = k - 1
                    ea = eb - 2 if eb >= 2 and toks[eb - 1].typ == T.DOT else eb
                    if toks[eb].text.lower() in c.cols:
                        cands.append(("where", ea, eb))
    if not cands:
        return None
    where = [x for x in cands if x[0] == "where"]
    place, ea, eb = c.rng.choice(where if where and c.rng.random() < 0.5 else cands)
    name = toks[eb].text
    c.edit(toks[ea].s, toks[eb].e, f"'{name}'")
    return _fenced(c.render(), c.rng), f"column {name} single-quoted in {place} (a string literal)"


def k_offset_off_by_one(c: Ctx) -> tuple[str, str] | None:
    toks, cands = c.toks, []
    for s in c.scopes:
        li = s.clauses.get("LIMIT")
        if li is None or li + 1 >= len(toks) or toks[li + 1].typ != T.NUMBER:
            continue
        off = s.clauses.get("OFFSET")
        if off is not None:
            if off + 1 < len(toks) and toks[off + 1].typ == T.NUMBER and toks[off + 1].text.isdigit():
                cands.append((off + 1, "offset"))
        elif li + 2 >= len(toks) or toks[li + 2].typ != T.COMMA:
            cands.append((li + 1, "limit"))
    if not cands:
        return None
    k, form = c.rng.choice(cands)
    if form == "offset":
        old = int(toks[k].text)
        new = old + 1 if old == 0 or c.rng.random() < 0.5 else old - 1
        c.edit(toks[k].s, toks[k].e, str(new))
        note = f"OFFSET {old} -> {new}"
    else:
        c.edit(toks[k].e, toks[k].e, " OFFSET 1")
        note = "OFFSET 1 added (rows counted from 1)"
    return _fenced(c.render(), c.rng), note


def k_filter_column_slip(c: Ctx) -> tuple[str, str] | None:
    toks, cands = c.toks, []
    for s in c.scopes:
        r = s.clause_range("WHERE")
        if not r:
            continue
        entries = c.from_entries(s)
        for k in range(*r):
            op = toks[k]
            if op.typ not in (T.EQ, T.NEQ, T.LIKE, T.ILIKE, T.GT, T.GTE, T.LT, T.LTE) or k + 1 >= r[1]:
                continue
            lit = toks[k + 1]
            if lit.typ not in (T.STRING, T.NUMBER):
                continue
            ci = k - 1
            if not IDENT_RE.match(toks[ci].text) or toks[ci].text.lower() not in c.cols:
                continue
            if ci >= 2 and toks[ci - 1].typ == T.DOT:
                table = c.tables.get(entries.get(toks[ci - 2].text.lower()) or "")
            else:
                owners = [t for t in c.tables.values() if t.column(toks[ci].text) is not None]
                table = owners[0] if len(owners) == 1 else None
            if table is None:
                continue
            col = table.column(toks[ci].text)
            want_text = lit.typ == T.STRING
            others = [o for o in table.columns if o.name.lower() != col.name.lower()
                      and (any(w in (o.type or "").lower() for w in ("char", "text")) if want_text else _numeric(o))
                      and not o.name.lower().endswith("id")]
            if want_text and re.fullmatch(r"\d{4}-\d{2}-\d{2}.*", lit.text):
                others = [o for o in table.columns if o.name.lower() != col.name.lower()
                          and ("date" in (o.type or "").lower() or "time" in (o.type or "").lower()
                               or "date" in o.name.lower())]
            if not others:
                continue
            close = [o for o in others if set(o.name.lower().split("_")) & set(col.name.lower().split("_"))]
            cands.append((ci, col.name, (close or others)))
    if not cands:
        return None
    ci, old, others = c.rng.choice(cands)
    new = c.rng.choice(others).name
    c.edit(toks[ci].s, toks[ci].e, new)
    return _fenced(c.render(), c.rng), f"filter on {new} instead of {old}"


def _owner(c: Ctx, entries: dict[str, str | None], ci: int) -> Any:
    """The schema table of the column reference at token ci (qualified, or unique among the query's tables)."""
    toks = c.toks
    if ci >= 2 and toks[ci - 1].typ == T.DOT:
        return c.tables.get(entries.get(toks[ci - 2].text.lower()) or "")
    owners = [t for t in c.tables.values() if t.column(toks[ci].text) is not None]
    return owners[0] if len(owners) == 1 else None


def _texty(col: Any) -> bool:
    return any(w in (col.type or "").lower() for w in ("char", "text", "string"))


def k_group_key_sibling(c: Ctx) -> tuple[str, str] | None:
    toks, cands = c.toks, []
    for s in c.scopes:
        gr = s.clause_range("GROUP")
        if not gr:
            continue
        entries = c.from_entries(s)
        keys, k0 = [], gr[0]
        for k in range(gr[0], gr[1] + 1):
            if k == gr[1] or (toks[k].typ == T.COMMA and toks[k].depth == s.depth):
                keys.append((k0, k - 1))
                k0 = k + 1
        for a, b in keys:
            plain = (a == b) or (b - a == 2 and toks[a + 1].typ == T.DOT)
            if not plain or not IDENT_RE.match(toks[b].text):
                continue
            table = _owner(c, entries, b)
            col = table.column(toks[b].text) if table is not None else None
            if col is None or not _texty(col):
                continue
            others = [o for o in table.columns if o.name.lower() != col.name.lower() and _texty(o)
                      and not o.name.lower().endswith("id")]
            if not others:
                continue
            close = [o for o in others if set(o.name.lower().split("_")) & set(col.name.lower().split("_"))]
            cands.append((s.sel, c.text(a, b), a, b, col.name, close or others))
    if not cands:
        return None
    sel, ref, a, b, old, others = c.rng.choice(cands)
    new = c.rng.choice(others).name
    s = next(x for x in c.scopes if x.sel == sel)
    spans = []
    for name in ("GROUP", "ORDER"):
        r = s.clause_range(name)
        if r:
            spans.append(r)
    if s.items:
        spans.append((s.items[0][0], s.items[-1][1] + 1))
    n = 0
    for lo, hi in spans:
        for k in range(lo, hi):
            t = toks[k]
            if t.text.lower() != old.lower() or (k + 1 < len(toks) and toks[k + 1].typ in (T.DOT, T.L_PAREN)):
                continue
            if k >= 1 and toks[k - 1].typ == T.ALIAS:
                continue
            if b > a and not (k >= 2 and toks[k - 1].typ == T.DOT and toks[k - 2].text.lower() == toks[a].text.lower()):
                continue
            if b == a and k >= 1 and toks[k - 1].typ == T.DOT:
                continue
            c.edit(t.s, t.e, new)
            n += 1
    if not n:
        return None
    return _fenced(c.render(), c.rng), f"grouped by {new} instead of {old}"


_KINDS = {name: globals()["k_" + name] for name in DAMAGE_KINDS}


def damage(gold_sql: str, schema: Any, kind: str, seed: int) -> Damaged | None:
    """A damaged reply of ``kind`` for ``gold_sql``, or None when the kind does not apply. Never raises."""
    try:
        fn = _KINDS.get(kind)
        if fn is None or not isinstance(gold_sql, str) or not gold_sql.strip():
            return None
        rng = random.Random(f"fresh14|{kind}|{seed}|{gold_sql}")
        sql = gold_sql.strip().rstrip(";").strip()
        ctx = Ctx(sql, schema, rng)
        if not ctx.toks:
            return None
        out = fn(ctx)
        if out is None:
            return None
        reply, note = out
        return Damaged(kind, reply, note)
    except Exception:  # noqa: BLE001 - a generator never raises
        return None
