"""Held-out damage generator ``fresh11`` for ``bench/recovery.py``: model replies damaged the way small local
coder models (qwen2.5-coder 7B, llama3.1 8B, sqlcoder) really get them wrong.

Written without reading Cairn's repair or check code. Every SQL edit is a text edit at token positions found
with sqlglot's tokenizer and parser (nothing is re-rendered), so ``TREE_KINDS`` is empty.

Kinds (family A: the reply as written fails or its SQL is hard to find; family B: it runs and answers a
different question):

  clean               -    the gold query in an ordinary fenced reply (prose, layout and case vary)
  backtick_idents     A    MySQL habit: tables/columns in backticks (SQLite: ``t.col`` quoted as one name)
  schema_qualifier    A    tables prefixed with an invented schema (``dbo.``, ``public.`` on SQLite)
  table_prefix        A    one table named with a prefix/suffix it does not have (``tbl_sales``, ``sales_data``)
  col_owner_prefix    A    a column named after its table (``restaurant.name`` -> ``restaurant_name``)
  col_abbrev          A    a column abbreviated enterprise-style (``payment_amount`` -> ``pmt_amt``, ``yr``)
  tsql_top            A    ``LIMIT n`` written as T-SQL ``SELECT TOP n``
  mysql_datetime      A    date arithmetic in MySQL functions (CURDATE, DATE_FORMAT, YEAR(), DATE_SUB)
  join_dropped        A    one JOIN clause forgotten while its table is still referenced
  using_misfire       A    ``ON a.x = b.y`` written ``USING (y)`` although only one side has ``y``
  dangling_comma      A    a trailing comma left before FROM or at the end of GROUP BY / ORDER BY
  smart_quotes        A    string literals in typographic quotes (‘…’ / “…”) from a chat-formatted answer
  hash_comments       A    comments written with ``#`` (Python habit) inside the query
  spaced_alias        A    a column alias written with spaces (``AS Total Sales`` / ``AS 'Total Sales'``)
  placeholder_literal A    a literal replaced by a bind placeholder (``:city``, ``$1``, ``?``, ``{year}``)
  python_wrapped      A    the answer is a Python snippet (``cursor.execute(\"\"\"...\"\"\")``) in a python fence
  eos_token_tail      A    chat-template tokens (``<|im_end|>``, ``</s>``, ``<|eot_id|>``) leak into the block
  tagged_sql          A    the query in ``<sql>``/``[SQL]`` tags with prose, no fence
  continued_parts     A    the query split over "part 1/2, part 2/2" blocks like several messages
  result_table_tail   A    the query unfenced, followed by an invented markdown table of sample output
  repeat_loop         A    a degenerate loop: the block repeats the query two-three times, the last cut short
  devanagari_reply    A    Hindi prose in Devanagari with the query inline, no fence
  sibling_column      B    a wrong but existing column of the same table (first_name/last_name, from/to)
  percent_scale       B    a ratio reported as a percentage (``100.0 *``) or the x100 dropped
  comparison_flip     B    a comparison turned around (``>=`` as ``<=``, ``<`` as ``>``: before/after, more/less)
  groupby_extra       B    an extra column added to GROUP BY (finer groups than asked)
  like_exact          B    a substring ``LIKE '%x%'`` (also case-blind) written as an exact, case-sensitive ``=``
  join_key_swap       B    a join on the wrong (existing, same-typed) key column
  agg_swap            B    SUM/AVG/COUNT or MIN/MAX swapped ("total" counted, average summed)
  filter_dropped      B    one WHERE condition left out
  extra_filter        B    an unasked filter on a categorical column (``status = 'active'``, from its known values)
  and_or_swap         B    two WHERE conditions joined with OR instead of AND
  threshold_shift     B    a numeric threshold off (a zero dropped, ``> 30000`` as ``> 3000``; small counts off by one)
  date_shift          B    a date range off: year off by one, wrong interval count or unit, wrong truncation
  value_case          B    a compared string literal in the wrong letter case (``'active'`` -> ``'Active'``)
  limit_slip          B    LIMIT off by one / dropped, or the sort direction before it flipped
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot import exp

DAMAGE_KINDS: tuple[str, ...] = (
    "clean",
    # family A
    "backtick_idents", "schema_qualifier", "table_prefix", "col_owner_prefix", "col_abbrev", "tsql_top",
    "mysql_datetime", "join_dropped", "using_misfire", "dangling_comma", "smart_quotes", "hash_comments",
    "spaced_alias", "placeholder_literal", "python_wrapped", "eos_token_tail", "tagged_sql", "continued_parts",
    "result_table_tail", "repeat_loop", "devanagari_reply",
    # family B
    "sibling_column", "percent_scale", "comparison_flip", "groupby_extra", "like_exact", "join_key_swap",
    "agg_swap", "filter_dropped", "extra_filter", "and_or_swap", "threshold_shift", "date_shift", "value_case",
    "limit_slip",
)  # fmt: skip
TREE_KINDS: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Damaged:
    kind: str
    reply: str
    note: str


# --------------------------------------------------------------------------------------------------------------
# Tokens, spans and the parse


CLAUSE_END = {"WHERE", "GROUP_BY", "ORDER_BY", "HAVING", "LIMIT", "OFFSET", "UNION", "EXCEPT", "INTERSECT",
              "WINDOW", "QUALIFY", "SEMICOLON", "FETCH"}  # fmt: skip
JOIN_MODS = {"LEFT", "RIGHT", "INNER", "OUTER", "FULL", "CROSS", "NATURAL"}
CMP = {"EQ", "NEQ", "GT", "GTE", "LT", "LTE"}


def _tt(tok: Any) -> str:
    return tok.token_type.name


class Sql:
    """One SQL text with its tokens, paren groups and (when it parses) its tree."""

    def __init__(self, text: str, dialect: str, parse: bool = True) -> None:
        self.text = text
        self.dialect = dialect
        self.toks = list(sqlglot.tokenize(text, read=dialect))
        self.group: list[int] = []  # index of the enclosing '(' token, -1 at top level
        self.close: dict[int, int] = {}
        stack: list[int] = []
        for i, t in enumerate(self.toks):
            if _tt(t) == "R_PAREN" and stack:
                self.close[stack.pop()] = i
            self.group.append(stack[-1] if stack else -1)
            if _tt(t) == "L_PAREN":
                stack.append(i)
        self.at = {t.start: i for i, t in enumerate(self.toks)}
        self.tree = None
        if parse:
            try:
                self.tree = sqlglot.parse_one(text, read=dialect)
            except sqlglot.errors.SqlglotError:
                self.tree = None

    # positions
    def s(self, i: int) -> int:
        return self.toks[i].start

    def e(self, i: int) -> int:
        return self.toks[i].end + 1

    def tt(self, i: int) -> str:
        return _tt(self.toks[i]) if 0 <= i < len(self.toks) else ""

    def up(self, i: int) -> str:
        if not 0 <= i < len(self.toks) or self.tt(i) in ("STRING", "IDENTIFIER", "NUMBER"):
            return ""
        return self.toks[i].text.upper()

    def span(self, i: int, j: int) -> str:
        return self.text[self.s(i):self.e(j)]

    def tok_of(self, node: Any) -> int | None:
        meta = getattr(node, "meta", None) or {}
        start = meta.get("start")
        if start is None:
            return None
        if start in self.at:
            return self.at[start]
        for i, t in enumerate(self.toks):  # a quoted identifier may be placed inside its quotes
            if t.start <= start <= t.end:
                return i
        return None

    def is_call(self, i: int) -> bool:
        return self.tt(i + 1) == "L_PAREN" and (i + 1) in self.close

    def args(self, i: int) -> list[tuple[int, int]]:
        """Token ranges of the arguments of the call whose name is token ``i``."""
        open_, close = i + 1, self.close[i + 1]
        out, first = [], open_ + 1
        for k in range(open_ + 1, close):
            if self.tt(k) == "COMMA" and self.group[k] == open_:
                out.append((first, k - 1))
                first = k + 1
        if first <= close - 1:
            out.append((first, close - 1))
        return out

    def stops(self, j: int, g: int) -> bool:
        """Token ``j`` ends a clause of paren group ``g`` (a clause keyword of that group, or its closing paren)."""
        if g != -1 and j == self.close.get(g):
            return True
        return self.group[j] == g and self.tt(j) in CLAUSE_END

    def clause_end(self, i: int) -> int:
        """Last token of the clause that starts at token ``i`` (same paren group, up to the next clause)."""
        g = self.group[i]
        j = i + 1
        while j < len(self.toks):
            if self.stops(j, g) or (self.group[j] == g and (self.tt(j) in JOIN_MODS or self.tt(j) == "JOIN")):
                break
            j += 1
        return j - 1

    def select_before(self, i: int) -> int | None:
        """The SELECT token of the same paren group before token ``i``."""
        for k in range(i - 1, -1, -1):
            if self.group[k] == self.group[i] and self.tt(k) == "SELECT":
                return k
        return None

    def main_select(self) -> int | None:
        cands = [i for i, t in enumerate(self.toks) if _tt(t) == "SELECT" and self.group[i] == -1]
        return cands[-1] if cands else None

    def select_items(self, sel: int) -> list[tuple[int, int]]:
        """Token ranges of the items of the select list that starts at SELECT token ``sel``."""
        g = self.group[sel]
        k = sel + 1
        if self.tt(k) == "DISTINCT":
            k += 1
        items, first = [], k
        while k < len(self.toks):
            if self.stops(k, g) or (self.group[k] == g and self.tt(k) == "FROM"):
                break
            if self.group[k] == g and self.tt(k) == "COMMA":
                items.append((first, k - 1))
                first = k + 1
            k += 1
        if first <= k - 1:
            items.append((first, k - 1))
        return items


def apply(text: str, edits: list[tuple[int, int, str]]) -> str | None:
    """The text with the (start, end, replacement) edits made; None when two of them overlap."""
    out, pos = [], 0
    for s, e, r in sorted(edits, key=lambda x: (x[0], x[1])):
        if s < pos:
            return None
        out.append(text[pos:s])
        out.append(r)
        pos = e
    out.append(text[pos:])
    return "".join(out)


@dataclass
class ColRef:
    i: int  # token of the column name
    qi: int | None  # token of its qualifier
    table: Any  # core.schema.Table or None
    column: Any  # core.schema.Column or None
    name: str


@dataclass
class TabRef:
    i: int  # token of the table name
    di: int | None  # token of the schema part
    table: Any
    alias: str
    name: str


def _lookup(schema: Any, node: exp.Table) -> Any:
    db = node.args.get("db")
    name = node.name
    if db is not None and getattr(db, "name", ""):
        found = schema.table(f"{db.name}.{name}")
        if found is not None:
            return found
    return schema.table(name)


def col_refs(q: Sql, schema: Any) -> list[ColRef]:
    from sqlglot.optimizer.scope import traverse_scope

    refs: list[ColRef] = []
    if q.tree is None:
        return refs
    try:
        scopes = list(traverse_scope(q.tree))
    except Exception:  # noqa: BLE001
        scopes = []
    seen: set[int] = set()
    for sc in scopes:
        for col in sc.columns:
            if id(col) in seen or not isinstance(col.this, exp.Identifier):
                continue
            seen.add(id(col))
            i = q.tok_of(col.this)
            if i is None:
                continue
            qual = col.args.get("table")
            qi = q.tok_of(qual) if isinstance(qual, exp.Identifier) else None
            table = None
            if qual is not None:
                src = sc.sources.get(col.table)
                if isinstance(src, exp.Table):
                    table = _lookup(schema, src)
            else:
                cands = []
                for src in sc.sources.values():
                    if isinstance(src, exp.Table):
                        t = _lookup(schema, src)
                        if t is not None and t.column(col.name) is not None:
                            cands.append(t)
                if len(cands) == 1:
                    table = cands[0]
            column = table.column(col.name) if table is not None else None
            refs.append(ColRef(i, qi, table, column, col.name))
    return refs


def tab_refs(q: Sql, schema: Any) -> list[TabRef]:
    if q.tree is None:
        return []
    ctes = {c.alias_or_name.lower() for c in q.tree.find_all(exp.CTE)}
    out = []
    for node in q.tree.find_all(exp.Table):
        if not isinstance(node.this, exp.Identifier):
            continue
        db = node.args.get("db")
        if db is None and node.name.lower() in ctes:
            continue
        table = _lookup(schema, node)
        i = q.tok_of(node.this)
        if table is None or i is None:
            continue
        di = q.tok_of(db) if isinstance(db, exp.Identifier) else None
        out.append(TabRef(i, di, table, node.alias or "", node.name))
    return out


def all_columns(schema: Any) -> set[str]:
    return {c.name.lower() for t in schema.tables for c in t.columns}


def type_family(col: Any) -> str:
    t = (col.type or "").lower()
    if "bool" in t:
        return "bool"
    if "date" in t or "time" in t:
        return "time"
    if any(w in t for w in ("int", "num", "real", "double", "float", "dec", "money")):
        return "num"
    return "text"


def own_key(table: Any, col: Any) -> bool:
    """The column is (by declaration or by name) the key of its own table: distinct per row."""
    if table is None or col is None:
        return False
    name, tname = col.name.lower(), table.name.lower()
    return (name in {c.lower() for c in table.primary_key or ()} or name == "id"
            or name == tname[:1] + "id" or name == _singular(tname) + "_id" or name == tname + "_id")


# --------------------------------------------------------------------------------------------------------------
# Style of the SQL itself (whitespace and keyword case only) and of the reply around it

BREAK_BEFORE = {"FROM", "WHERE", "GROUP_BY", "ORDER_BY", "HAVING", "LIMIT", "UNION"}
LOWERABLE = {"SELECT", "FROM", "WHERE", "GROUP_BY", "ORDER_BY", "HAVING", "LIMIT", "JOIN", "LEFT", "INNER", "ON",
             "ALIAS", "AND", "OR", "DISTINCT", "DESC", "ASC", "WITH", "CASE", "WHEN", "THEN", "ELSE", "END", "IN",
             "IS", "NOT", "NULL", "LIKE", "ILIKE", "BETWEEN", "OFFSET", "UNION"}  # fmt: skip


def restyle(sql: str, dialect: str, rng: random.Random) -> str:
    """The same query with other line breaks / keyword case (whitespace and case of keywords only)."""
    sql = sql.strip().rstrip(";").strip()
    try:
        q = Sql(sql, dialect, parse=False)
    except Exception:  # noqa: BLE001
        return sql
    edits: list[tuple[int, int, str]] = []
    if rng.random() < 0.5:
        indent = rng.choice(["", "  ", "    "])
        for i in range(1, len(q.toks)):
            tt = q.tt(i)
            brk = tt in BREAK_BEFORE or (tt == "JOIN" and q.tt(i - 1) not in JOIN_MODS) or (
                tt in ("LEFT", "INNER", "RIGHT", "FULL", "CROSS") and q.tt(i - 1) not in JOIN_MODS)
            if tt == "FROM" and q.select_before(i) is None:
                brk = False  # EXTRACT(... FROM ...)
            if tt == "SELECT" and q.tt(i - 1) == "R_PAREN" and q.group[i] == -1:
                brk = True  # the main query after a CTE
            if not brk:
                continue
            gap = sql[q.e(i - 1):q.s(i)]
            if gap.strip() == "" and gap:
                depth = 0
                g = q.group[i]
                while g != -1:
                    depth += 1
                    g = q.group[g]
                edits.append((q.e(i - 1), q.s(i), "\n" + indent * depth + ("  " * depth if not indent else "")))
    if rng.random() < 0.25:
        for i, t in enumerate(q.toks):
            if q.tt(i) in LOWERABLE and t.text.isupper():
                edits.append((q.s(i), q.e(i), sql[q.s(i):q.e(i)].lower()))
    return apply(sql, edits) or sql


def _semi(sql: str, rng: random.Random) -> str:
    return sql + ";" if rng.random() < 0.6 else sql


INTROS = [
    "Here's the SQL query:", "Sure! Here is a query that answers your question:", "You can use this query:",
    "The following query should give you what you need:", "Here is the query:", "Okay, try this:",
    "Certainly. This query returns the requested data:", "Based on the schema, this should work:",
    "To get this, run:", "Yeh query aapko answer de degi:", "Aap yeh query chala sakte hain:",
    "Here's how you can get that:", "This is the query you want:", "",
]
OUTROS = [
    "", "", "Let me know if you need any changes.", "This query uses the tables from your schema directly.",
    "Adjust the filters if you need a different range.", "The result is computed directly in the database.",
    "Agar aapko kuch aur chahiye toh batayein.", "Hope this helps!",
    "Explanation: the query selects the needed columns, applies the conditions and aggregates where needed.",
]


def fence(sql: str, rng: random.Random, dialect: str) -> str:
    lang = rng.choice(["sql", "sql", "sql", "sql", "SQL", "", "postgresql" if dialect == "postgres" else "sqlite"])
    return f"```{lang}\n{sql}\n```"


def ordinary(sql: str, rng: random.Random, dialect: str, extra: str = "") -> str:
    """An everyday fenced reply around ``sql``."""
    sql = _semi(sql, rng)
    intro = rng.choice(INTROS)
    outro = extra or rng.choice(OUTROS)
    parts = [p for p in (intro, fence(sql, rng, dialect), outro) if p]
    return rng.choice(["\n\n", "\n"]).join(parts)


# --------------------------------------------------------------------------------------------------------------
# Family A: the reply fails as written


def k_backtick_idents(q: Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    edits = []
    if q.dialect == "sqlite":
        for r in col_refs(q, schema):
            if r.qi is not None and r.qi < r.i:
                edits.append((q.s(r.qi), q.e(r.i), f"`{q.toks[r.qi].text}.{q.toks[r.i].text}`"))
        if not edits:
            return None
        for t in tab_refs(q, schema):
            edits.append((q.s(t.i), q.e(t.i), f"`{q.toks[t.i].text}`"))
        return apply(q.text, edits), "qualified columns as one backticked name"
    done = set()
    for r in col_refs(q, schema):
        for i in (r.i, r.qi):
            if i is not None and i not in done:
                done.add(i)
                edits.append((q.s(i), q.e(i), f"`{q.toks[i].text}`"))
    for t in tab_refs(q, schema):
        for i in (t.i, t.di):
            if i is not None and i not in done:
                done.add(i)
                edits.append((q.s(i), q.e(i), f"`{q.toks[i].text}`"))
    if not edits:
        return None
    return apply(q.text, edits), "identifiers in MySQL backticks"


def k_schema_qualifier(q: Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    prefix = rng.choice(["dbo", "dbo", "public"]) if q.dialect == "sqlite" else rng.choice(["dbo", "dbo", "db", "main"])
    edits = []
    for t in tab_refs(q, schema):
        if t.di is not None:
            edits.append((q.s(t.di), q.e(t.di), prefix))
        else:
            edits.append((q.s(t.i), q.s(t.i), prefix + "."))
    if not edits:
        return None
    return apply(q.text, edits), f"tables prefixed with {prefix}."


def k_table_prefix(q: Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    refs = tab_refs(q, schema)
    if not refs:
        return None
    target = rng.choice(refs).table
    name = target.name
    existing = {t.name.lower() for t in schema.tables}
    forms = [f"tbl_{name}", f"{name}_tbl", f"{name}_table", f"t_{name}", f"{name}_data", f"{name}_info",
             f"{name}_details", f"dim_{name}", f"fact_{name}"]
    rng.shuffle(forms)
    new = next((f for f in forms if f.lower() not in existing), None)
    if new is None:
        return None
    edits = []
    for t in refs:
        if t.table is target:
            edits.append((q.s(t.i), q.e(t.i), new))
    for r in col_refs(q, schema):
        if r.qi is not None and q.toks[r.qi].text.lower() == name.lower() and r.table is target:
            edits.append((q.s(r.qi), q.e(r.qi), new))
    return apply(q.text, edits), f"table {name} called {new}"


def _singular(word: str) -> str:
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith("ss") or word.endswith("us"):
        return word
    if word.endswith("s") and len(word) > 3:
        return word[:-1]
    return word


SKIP_STEM = {"daily", "received", "made", "snapshot", "snapshots", "balance", "service", "type", "sequence", "div",
             "track", "line", "keyword", "author", "conference", "journal", "publication", "setting", "sessions"}


def _rename_column(q: Sql, schema: Any, refs: list[ColRef], target: ColRef, new: str) -> str | None:
    edits = []
    for r in refs:
        if r.table is target.table and r.column is target.column:
            edits.append((q.s(r.i), q.e(r.i), new))
    return apply(q.text, edits)


def k_col_owner_prefix(q: Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    refs = [r for r in col_refs(q, schema) if r.column is not None]
    existing = all_columns(schema)
    cands = []
    for r in refs:
        parts = r.table.name.lower().split("_")
        stem = next((p for p in reversed(parts) if p not in SKIP_STEM), parts[0])
        stem = _singular(stem)
        col = r.column.name
        if col.lower().startswith(stem):
            continue
        new = f"{stem}_{col}"
        if new.lower() in existing:
            continue
        cands.append((r, new))
    if not cands:
        return None
    r, new = rng.choice(cands)
    return _rename_column(q, schema, refs, r, new), f"{r.table.name}.{r.column.name} called {new}"


ABBR = {
    "number": ["num", "no"], "amount": ["amt"], "quantity": ["qty"], "description": ["desc", "descr"],
    "address": ["addr"], "category": ["cat", "categ"], "count": ["cnt"], "customer": ["cust"],
    "transaction": ["txn"], "payment": ["pmt"], "reference": ["ref"], "citation": ["cit"],
    "organization": ["org"], "publication": ["pub"], "conference": ["conf"], "keyword": ["kw"],
    "minimum": ["min"], "maximum": ["max"], "business": ["biz", "bus"], "neighbourhood": ["nbhd", "hood"],
    "restaurant": ["rest"], "session": ["sess"], "merchant": ["merch"], "message": ["msg"], "status": ["stat"],
    "departure": ["dep", "dept"], "arrival": ["arr"], "aircraft": ["acft"], "flight": ["flt"],
    "manufacturer": ["mfr"], "capacity": ["cap"], "inventory": ["inv"], "snapshot": ["snap"],
    "termination": ["term"], "milliseconds": ["ms"], "invoice": ["inv"], "employee": ["emp"], "year": ["yr"],
    "date": ["dt"], "time": ["tm"], "price": ["prc"], "rating": ["rtg"], "total": ["tot"], "average": ["avg"],
    "distance": ["dist"], "minutes": ["mins"], "name": ["nm"], "code": ["cd"], "state": ["st"],
    "country": ["cntry"], "balance": ["bal"], "limit": ["lmt"], "updated": ["upd"], "created": ["crtd"],
    "device": ["dev"], "discount": ["disc"], "purchase": ["purch"], "review": ["rev"], "journal": ["jrnl"],
    "abstract": ["abs"], "homepage": ["hp"], "airline": ["airln"], "airport": ["arpt"], "month": ["mon", "mth"],
    "engine": ["eng"], "transmission": ["trans"], "phone": ["ph"], "service": ["svc"], "vendor": ["vndr"],
    "method": ["mthd"], "redemption": ["redem"], "username": ["uname"], "title": ["ttl"], "composer": ["comp"],
    "track": ["trk"], "billing": ["bill"], "street": ["st"], "house": ["hse"], "region": ["rgn"],
    "county": ["cnty"], "likes": ["lks"], "text": ["txt"], "city": ["cty"], "color": ["clr"], "stops": ["stps"],
}  # fmt: skip
WHOLE = {"first_name": ["fname", "firstname"], "last_name": ["lname", "surname_nm"], "created_at": ["created"],
         "zip_code": ["zip"], "phone_number": ["phone_no"], "vin_number": ["vin_no"], "food_type": ["cuisine_typ"]}


def k_col_abbrev(q: Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    refs = [r for r in col_refs(q, schema) if r.column is not None]
    existing = all_columns(schema)
    cands = []
    for r in refs:
        col = r.column.name
        options = list(WHOLE.get(col.lower(), []))
        words = col.lower().split("_")
        for k, w in enumerate(words):
            for ab in ABBR.get(w, []):
                options.append("_".join(words[:k] + [ab] + words[k + 1:]))
        if len([w for w in words if w in ABBR]) > 1:
            options.append("_".join(ABBR.get(w, [w])[0] for w in words))
        options = [o for o in options if o.lower() not in existing and o.lower() != col.lower()]
        if options:
            cands.append((r, rng.choice(options)))
    if not cands:
        return None
    r, new = rng.choice(cands)
    return _rename_column(q, schema, refs, r, new), f"{r.column.name} abbreviated to {new}"


def k_tsql_top(q: Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    lim = [i for i, t in enumerate(q.toks) if _tt(t) == "LIMIT" and q.group[i] == -1]
    sel = q.main_select()
    if len(lim) != 1 or sel is None or q.tt(lim[0] + 1) != "NUMBER":
        return None
    i = lim[0]
    n = q.toks[i + 1].text
    at = sel + 1 if q.tt(sel + 1) == "DISTINCT" else sel
    edits = [(q.e(at), q.e(at), f" TOP {n}"), (q.e(i - 1), q.e(i + 1), "")]
    if rng.random() < 0.3:
        edits[0] = (q.e(at), q.e(at), f" TOP ({n})")
    return apply(q.text, edits), f"LIMIT {n} as SELECT TOP {n}"


MYSQL_TRUNC = {"year": "%Y-01-01", "quarter": "%Y-%m-01", "month": "%Y-%m-01", "week": "%Y-%u", "day": "%Y-%m-%d",
               "hour": "%Y-%m-%d %H:00:00"}
STRF = {"%Y": "YEAR({})", "%m": "MONTH({})", "%d": "DAY({})", "%s": "UNIX_TIMESTAMP({})", "%w": "DAYOFWEEK({})",
        "%H": "HOUR({})", "%j": "DAYOFYEAR({})"}


def k_mysql_datetime(q: Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    edits: list[tuple[int, int, str]] = []
    toks = q.toks
    for i, t in enumerate(toks):
        tt, up = q.tt(i), q.up(i)
        if tt == "CURRENT_DATE" or (up == "CURRENT_DATE"):
            edits.append((q.s(i), q.e(i) + (2 if q.text[q.e(i):q.e(i) + 2] == "()" else 0), "CURDATE()"))
        elif tt == "CURRENT_TIMESTAMP":
            edits.append((q.s(i), q.e(i), "NOW()"))
        elif up == "DATE_TRUNC" and q.is_call(i):
            a = q.args(i)
            if len(a) == 2 and q.tt(a[0][0]) == "STRING":
                unit = toks[a[0][0]].text.lower()
                x = q.span(*a[1])
                fmt = MYSQL_TRUNC.get(unit, "%Y-%m-01")
                edits.append((q.s(i), q.e(q.close[i + 1]), f"DATE_FORMAT({x}, '{fmt}')"))
        elif up == "EXTRACT" and q.is_call(i):
            close = q.close[i + 1]
            frm = next((k for k in range(i + 2, close) if q.tt(k) == "FROM" and q.group[k] == i + 1), None)
            if frm is not None:
                unit = q.span(i + 2, frm - 1).strip().upper()
                x = q.span(frm + 1, close - 1)
                fn = {"DOW": "DAYOFWEEK", "EPOCH": "UNIX_TIMESTAMP", "DOY": "DAYOFYEAR"}.get(unit, unit)
                edits.append((q.s(i), q.e(close), f"{fn}({x})"))
        elif tt == "INTERVAL" and q.tt(i + 1) == "STRING":
            m = re.fullmatch(r"\s*(\d+)\s+([a-z]+?)s?\s*", toks[i + 1].text.lower())
            if m:
                edits.append((q.s(i), q.e(i + 1), f"INTERVAL {m.group(1)} {m.group(2).upper()}"))
        elif up == "TO_CHAR" and q.is_call(i):
            a = q.args(i)
            if len(a) == 2 and q.tt(a[1][0]) == "STRING":
                fmt = toks[a[1][0]].text.replace("YYYY", "%Y").replace("MM", "%m").replace("DD", "%d")
                edits.append((q.s(i), q.e(q.close[i + 1]), f"DATE_FORMAT({q.span(*a[0])}, '{fmt}')"))
        elif up == "STRFTIME" and q.is_call(i):
            a = q.args(i)
            if len(a) == 2 and q.tt(a[0][0]) == "STRING":
                fmt, x = toks[a[0][0]].text, q.span(*a[1])
                rep = STRF[fmt].format(x) if fmt in STRF else f"DATE_FORMAT({x}, '{fmt}')"
                edits.append((q.s(i), q.e(q.close[i + 1]), rep))
        elif up in ("DATE", "DATETIME") and q.is_call(i):
            a = q.args(i)
            if a and q.tt(a[0][0]) == "STRING" and toks[a[0][0]].text.lower() == "now":
                base = "CURDATE()" if up == "DATE" else "NOW()"
                for lo, hi in a[1:]:
                    m = re.fullmatch(r"([+-])\s*(\d+)\s+([a-z]+?)s?", toks[lo].text.strip().lower()) if (
                        lo == hi and q.tt(lo) == "STRING") else None
                    if m:
                        fn = "DATE_SUB" if m.group(1) == "-" else "DATE_ADD"
                        base = f"{fn}({base}, INTERVAL {m.group(2)} {m.group(3).upper()})"
                edits.append((q.s(i), q.e(q.close[i + 1]), base))
        elif up == "JULIANDAY" and q.is_call(i):
            edits.append((q.s(i), q.e(i), "TO_DAYS"))
    # keep the outermost of overlapping edits
    kept: list[tuple[int, int, str]] = []
    for s, e, r in sorted(edits, key=lambda x: (x[0], -x[1])):
        if kept and s < kept[-1][1]:
            continue
        kept.append((s, e, r))
    if not kept:
        return None
    return apply(q.text, kept), f"{len(kept)} date expression(s) in MySQL functions"


def join_clauses(q: Sql) -> list[tuple[int, int, int]]:
    """(first token, JOIN token, last token) of each JOIN clause."""
    out = []
    for i in range(len(q.toks)):
        if q.tt(i) != "JOIN":
            continue
        first = i
        while first - 1 >= 0 and q.tt(first - 1) in JOIN_MODS:
            first -= 1
        out.append((first, i, q.clause_end(i)))
    return out


def k_join_dropped(q: Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    refs = col_refs(q, schema)
    tabs = tab_refs(q, schema)
    cands = []
    for first, j, last in join_clauses(q):
        tab = next((t for t in tabs if j < t.i <= last), None)
        if tab is None:
            continue
        names = {(tab.alias or tab.name).lower()}
        used = [r for r in refs if r.qi is not None and not first <= r.i <= last
                and q.toks[r.qi].text.lower() in names]
        if used:
            cands.append((first, last, tab))
    if not cands:
        return None
    first, last, tab = rng.choice(cands)
    return apply(q.text, [(q.e(first - 1), q.e(last), "")]), f"JOIN {tab.name} left out"


def k_using_misfire(q: Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    refs = {r.i: r for r in col_refs(q, schema)}
    tabs = tab_refs(q, schema)
    cands = []
    for first, j, last in join_clauses(q):
        on = next((k for k in range(j, last + 1) if q.tt(k) == "ON" and q.group[k] == q.group[j]), None)
        if on is None or last - on != 7:
            continue
        kinds = [q.tt(k) for k in range(on + 1, last + 1)]
        if kinds != ["VAR", "DOT", "VAR", "EQ", "VAR", "DOT", "VAR"]:
            continue
        a, b = refs.get(on + 3), refs.get(on + 7)
        right = next((t for t in tabs if j < t.i < on), None)
        if a is None or b is None or right is None or a.column is None or b.column is None:
            continue
        if a.name.lower() == b.name.lower():
            continue
        g = q.group[j]
        sel = q.select_before(j)
        left = [t for t in tabs if sel is not None and sel < t.i < j and q.group[t.i] == g]
        known = {t.i for t in left} | {t.di for t in left if t.di is not None}
        heads = [k + 1 for k in range(sel or 0, j) if q.group[k] == g and q.tt(k) in ("FROM", "JOIN", "COMMA")
                 and k > (q.select_items(sel)[-1][1] if sel is not None and q.select_items(sel) else 0)]
        if not left or any(q.tt(h) == "L_PAREN" or (h not in known and q.tt(h) in ("VAR", "IDENTIFIER")
                                                     and q.tt(h + 1) != "DOT") for h in heads):
            continue
        rname = (right.alias or right.name).lower()
        rside, lside = (b, a) if q.toks[b.qi].text.lower() == rname else (a, b)
        for col in (rside.name, lside.name):
            in_left = any(t.table.column(col) is not None for t in left)
            in_right = right.table.column(col) is not None
            if in_left != in_right:
                cands.append((on, last, col))
    if not cands:
        return None
    on, last, col = rng.choice(cands)
    return apply(q.text, [(q.s(on), q.e(last), f"USING ({col})")]), f"join written USING ({col})"


def k_dangling_comma(q: Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    spots = []
    for i in range(1, len(q.toks)):
        if q.tt(i) == "FROM" and q.select_before(i) is not None and q.tt(i - 1) not in ("COMMA", "SELECT"):
            spots += [q.e(i - 1)] * 3
        if q.tt(i) in ("GROUP_BY", "ORDER_BY"):
            end = i + 1
            while end < len(q.toks) and not q.stops(end, q.group[i]):
                end += 1
            spots.append(q.e(end - 1))
    if not spots:
        return None
    at = rng.choice(spots)
    return apply(q.text, [(at, at, rng.choice([",", ",", ", "]))]), "trailing comma left in a list"


def k_smart_quotes(q: Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    strs = [i for i in range(len(q.toks)) if q.tt(i) == "STRING" and q.text[q.s(i)] == "'"
            and "'" not in q.toks[i].text]
    if not strs:
        return None
    left, right = rng.choice([("‘", "’"), ("‘", "’"), ("“", "”"), ("’", "’")])
    chosen = strs if rng.random() < 0.6 else [rng.choice(strs)]
    edits = [(q.s(i), q.e(i), f"{left}{q.toks[i].text}{right}") for i in chosen]
    return apply(q.text, edits), f"{len(chosen)} string literal(s) in typographic quotes"


COMMENTS = ["# get the matching rows", "# join the tables", "# filter", "# aggregate per group",
            "# sort the result", "# final result", "# main query", "# step 1: select columns",
            "# apply the condition", "# NOTE: adjust as needed"]


def k_hash_comments(q: Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    edits = []
    if rng.random() < 0.7:
        edits.append((0, 0, rng.choice(["# Query to answer the question\n", "# SQL query\n", "# Solution\n",
                                        "# Fetch the required data\n"])))
    for i in range(1, len(q.toks)):
        if q.tt(i) in ("FROM", "WHERE", "GROUP_BY", "ORDER_BY") and q.group[i] == -1 and rng.random() < 0.6:
            edits.append((q.e(i - 1), q.s(i), f"  {rng.choice(COMMENTS)}\n"))
    if not edits:
        edits.append((len(q.text), len(q.text), f"  {rng.choice(COMMENTS)}"))
        if rng.random() < 0.5:
            edits.append((0, 0, "# SQL query\n"))
    return apply(q.text, edits), "comments written with #"


def k_spaced_alias(q: Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    tabs = {t.alias.lower() for t in tab_refs(q, schema) if t.alias}
    cands = []
    for i in range(1, len(q.toks) - 1):
        if q.tt(i) != "ALIAS" or q.tt(i + 1) != "VAR" or "_" not in q.toks[i + 1].text:
            continue
        if q.toks[i + 1].text.lower() in tabs or q.tt(i + 2) == "L_PAREN":
            continue
        g = q.group[i]
        if g != -1 and q.up(g - 1) == "CAST":
            continue
        cands.append(i + 1)
    if not cands:
        return None
    chosen = cands if rng.random() < 0.4 else [rng.choice(cands)]
    edits = []
    quoted = q.dialect == "postgres" and rng.random() < 0.5
    for i in chosen:
        words = " ".join(w.capitalize() if rng.random() < 0.8 else w for w in q.toks[i].text.split("_") if w)
        edits.append((q.s(i), q.e(i), f"'{words}'" if quoted else words))
    return apply(q.text, edits), "column alias written with spaces"


def k_placeholder_literal(q: Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    cands = []
    for i in range(2, len(q.toks)):
        if q.tt(i) not in ("STRING", "NUMBER"):
            continue
        prev = q.tt(i - 1)
        ok = prev in CMP or prev in ("LIKE", "ILIKE")
        if prev == "L_PAREN" and q.up(i - 2) in ("LOWER", "UPPER") and q.tt(i - 3) in ("LIKE", "ILIKE", "EQ"):
            ok = True
        if prev in ("L_PAREN", "COMMA") and q.group[i] != -1 and q.tt(q.group[i] - 1) == "IN":
            ok = True
        if not ok:
            continue
        # name of what it is compared with
        k = i - 1
        while k > 0 and q.tt(k) not in ("VAR", "IDENTIFIER"):
            k -= 1
        name = q.toks[k].text.lower() if k > 0 and q.up(k) not in ("LOWER", "UPPER") else "value"
        cands.append((i, re.sub(r"\W", "", name) or "value"))
    if not cands:
        return None
    i, name = rng.choice(cands)
    if q.dialect == "postgres":
        ph = rng.choice([f":{name}", "$1", "%s", "?", f"{{{name}}}", f"%({name})s"])
    else:
        ph = rng.choice([f":{name}", "?", "?", "%s", f"{{{name}}}", f"@{name}", f"${name}"])
    note = rng.choice([f"\n\nReplace `{ph}` with the value you want to filter on.",
                       f"\n\n(`{ph}` is a parameter: pass the value when you execute the query.)",
                       "\n\nUse a parameterized query to avoid SQL injection.", ""])
    return apply(q.text, [(q.s(i), q.e(i), ph)]) + "\u0000" + note, f"literal {q.toks[i].text!r} as {ph}"


# layouts -----------------------------------------------------------------------------------------------------


def l_python_wrapped(sql: str, rng: random.Random, dialect: str, q: Sql) -> str:
    lib = "sqlite3" if dialect == "sqlite" else rng.choice(["psycopg2", "psycopg"])
    conn = 'sqlite3.connect("database.db")' if dialect == "sqlite" else f'{lib}.connect("dbname=mydb")'
    body = "\n".join("    " + line for line in sql.splitlines())
    if rng.random() < 0.3:
        code = (f"import pandas as pd\nimport {lib}\n\nconn = {conn}\nquery = \"\"\"\n{body}\n\"\"\"\n"
                "df = pd.read_sql_query(query, conn)\nprint(df)")
    else:
        code = (f"import {lib}\n\nconn = {conn}\ncursor = conn.cursor()\n\nquery = \"\"\"\n{body}\n\"\"\"\n\n"
                "cursor.execute(query)\nrows = cursor.fetchall()\nfor row in rows:\n    print(row)")
    intro = rng.choice(["You can run it from Python like this:", "Here is a Python script that runs the query:",
                        "Here's the code:", "Python mein aise chala sakte hain:"])
    return f"{intro}\n\n```python\n{code}\n```\n\n" + rng.choice(["", "This prints every row of the result."])


def l_eos_token_tail(sql: str, rng: random.Random, dialect: str, q: Sql) -> str:
    sql = _semi(sql, rng)
    v = rng.randrange(4)
    if v == 0:
        return f"```sql\n{sql}\n<|im_end|>\n<|im_start|>user\nThanks!<|im_end|>\n<|im_start|>assistant\nYou're welcome!"
    if v == 1:
        return f"Here is the query:\n```sql\n{sql}</s>\n```"
    if v == 2:
        return (f"```sql\n{sql}\n<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
                f"The query above returns the requested rows.\n```")
    return f"```sql\n{sql}\n<|endoftext|>Human: can you also sort it?\n\nAssistant: Sure."


def l_tagged_sql(sql: str, rng: random.Random, dialect: str, q: Sql) -> str:
    sql = _semi(sql, rng)
    open_, close = rng.choice([("<sql>", "</sql>"), ("[SQL]", "[/SQL]"), ("<SQL>", "</SQL>"),
                               ("<answer>", "</answer>"), ("<query>", "</query>")])
    intro = rng.choice(["", "Here is the query.\n\n", "Based on the schema provided:\n\n", "Answer:\n"])
    sep = rng.choice(["\n", ""])
    return f"{intro}{open_}{sep}{sql}{sep}{close}" + rng.choice(["", "\n\nThis should return the correct result."])


def l_continued_parts(sql: str, rng: random.Random, dialect: str, q: Sql) -> str | None:
    cuts = []
    for i in range(1, len(q.toks)):
        if q.group[i] != -1:
            continue
        tt = q.tt(i)
        if tt in ("WHERE", "GROUP_BY", "HAVING", "LIMIT") or (tt == "JOIN" and q.tt(i - 1) not in JOIN_MODS) or (
                tt in JOIN_MODS and q.tt(i - 1) not in JOIN_MODS) or (tt == "SELECT" and q.tt(i - 1) == "R_PAREN"):
            cuts.append(q.s(i))
    if not cuts:
        return None
    if len(cuts) >= 3 and rng.random() < 0.4:
        picks = sorted(rng.sample(cuts, 2))
    else:
        picks = [rng.choice(cuts)]
    pieces, pos = [], 0
    for c in picks:
        pieces.append(sql[pos:c].strip())
        pos = c
    pieces.append(_semi(sql[pos:].strip(), rng))
    n = len(pieces)
    style = rng.randrange(3)
    out = [rng.choice(["The query is a bit long, so I'll send it in parts.", "Here it is, in parts:",
                       "Query lambi hai, isliye parts mein bhej raha hoon:", ""])]
    for k, piece in enumerate(pieces, 1):
        if style == 0:
            head = f"**Part {k}/{n}**"
        elif style == 1:
            head = f"({k}/{n})" + (" continued:" if k > 1 else "")
        else:
            head = "Continuing the query:" if k > 1 else "Start of the query:"
        out.append(f"{head}\n```sql\n{piece}\n```")
    out.append(rng.choice(["", "Put the parts together and run it.", "Join these blocks into one query."]))
    return "\n\n".join(p for p in out if p)


def _select_names(q: Sql) -> list[str]:
    try:
        tree = q.tree
        while isinstance(tree, exp.SetOperation):
            tree = tree.this
        names = [e.alias_or_name or "expr" for e in tree.selects]
    except Exception:  # noqa: BLE001
        names = []
    return [n for n in names if n][:5] or ["result"]


def l_result_table_tail(sql: str, rng: random.Random, dialect: str, q: Sql) -> str:
    sql = _semi(sql, rng)
    names = _select_names(q)
    rows = []
    for r in range(rng.choice([2, 3, 3, 4])):
        cells = []
        for n in names:
            low = n.lower()
            if any(w in low for w in ("count", "num", "total", "sum", "avg", "amount", "rate", "ratio", "n_")):
                cells.append(str(rng.choice([12, 7, 3.5, 105, 42, 0.25])))
            elif "date" in low or "month" in low or "week" in low:
                cells.append(rng.choice(["2023-01-01", "2023-02-01", "2023-03-06"]))
            else:
                cells.append(rng.choice(["...", f"Example {r + 1}", "abc", f"{n}_{r + 1}"]))
        rows.append("| " + " | ".join(cells) + " |")
    table = "| " + " | ".join(names) + " |\n|" + "|".join("---" for _ in names) + "|\n" + "\n".join(rows)
    body = "\n".join("    " + line for line in sql.splitlines()) if rng.random() < 0.3 else sql
    intro = rng.choice(["Query:", "Here is the SQL:", "SQL Query:", "You can use:", ""])
    mid = rng.choice(["Sample output:", "Expected result (example):", "Output will look like this:",
                      "Result kuch aisa dikhega:"])
    return "\n\n".join(p for p in (intro, body, mid, table) if p)


def l_repeat_loop(sql: str, rng: random.Random, dialect: str, q: Sql) -> str:
    copies = rng.choice([2, 3])
    semi = rng.random() < 0.3
    parts = [sql + (";" if semi else "") for _ in range(copies - 1)]
    # the last copy stops after a word that needs more (a dangling WHERE / AND / = / comma): never a whole query
    opens = [t.end + 1 for i, t in enumerate(q.toks) if _tt(t) in ("WHERE", "AND", "ON", "EQ", "COMMA", "JOIN",
                                                                      "GROUP_BY", "ORDER_BY", "SELECT", "FROM")
             and i > len(q.toks) // 3]
    cut = rng.choice(opens) if opens else max(10, int(len(sql) * rng.uniform(0.3, 0.8)))
    parts.append(sql[:cut] if semi or rng.random() < 0.7 else sql)
    intro = rng.choice(["Here's the query:", "", "Query:"])
    block = f"```sql\n{(chr(10) * rng.choice([1, 2])).join(parts)}"
    return (intro + "\n\n" if intro else "") + block + ("\n```" if rng.random() < 0.5 else "")


DEVA_INTRO = ["ज़रूर! नीचे दी गई query से आपको जवाब मिल जाएगा:", "यह रही आपकी SQL query:",
              "आपके सवाल के लिए query यह होगी:", "इस query को चलाइए:", "ठीक है, यह query इस्तेमाल करें:"]
DEVA_OUTRO = ["इस query में ज़रूरी tables को जोड़ा गया है।", "अगर कुछ और चाहिए तो बताइए।",
              "यह query सही result देगी।", "इसमें filter और grouping दोनों लगाए गए हैं।", ""]


def l_devanagari_reply(sql: str, rng: random.Random, dialect: str, q: Sql) -> str:
    sql = _semi(sql, rng)
    if rng.random() < 0.3:
        flat = " ".join(sql.split())
        return f"{rng.choice(DEVA_INTRO)} {flat} {rng.choice(DEVA_OUTRO)}".strip()
    return "\n\n".join(p for p in (rng.choice(DEVA_INTRO), sql, rng.choice(DEVA_OUTRO)) if p)


LAYOUTS = {"python_wrapped": l_python_wrapped, "eos_token_tail": l_eos_token_tail, "tagged_sql": l_tagged_sql,
           "continued_parts": l_continued_parts, "result_table_tail": l_result_table_tail,
           "repeat_loop": l_repeat_loop, "devanagari_reply": l_devanagari_reply}


# --------------------------------------------------------------------------------------------------------------
# Family B: the reply runs and answers another question


def _on_ranges(q: Sql) -> list[tuple[int, int]]:
    out = []
    for first, j, last in join_clauses(q):
        on = next((k for k in range(j, last + 1) if q.tt(k) == "ON"), None)
        if on is not None:
            out.append((on, last))
    return out


def _words(name: str) -> set[str]:
    return set(name.lower().split("_"))


def k_sibling_column(q: Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    refs = [r for r in col_refs(q, schema) if r.column is not None]
    ons = _on_ranges(q)
    in_on = {(id(r.table), r.column.name) for r in refs if any(a <= r.i <= b for a, b in ons)}
    used = {r.column.name.lower() for r in refs}
    cands = []
    for r in refs:
        if (id(r.table), r.column.name) in in_on or r.column.name in (r.table.primary_key or ()):
            continue
        fam = type_family(r.column)
        for c in r.table.columns:
            if c.name.lower() in used or type_family(c) != fam or c.name in (r.table.primary_key or ()):
                continue
            if c.name.lower().endswith("id") and not r.column.name.lower().endswith("id"):
                continue
            w = 4 if _words(c.name) & _words(r.column.name) else 1
            cands += [(r, c)] * w
    if not cands:
        return None
    r, c = rng.choice(cands)
    return _rename_column(q, schema, refs, r, c.name), f"{r.table.name}.{r.column.name} -> {c.name}"


def k_percent_scale(q: Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    for i in range(len(q.toks)):
        if q.tt(i) == "NUMBER" and q.toks[i].text in ("100", "100.0"):
            if q.tt(i + 1) == "STAR":
                return apply(q.text, [(q.s(i), q.s(i + 2), "")]), "x100 dropped"
            if q.tt(i - 1) == "STAR":
                return apply(q.text, [(q.e(i - 2), q.e(i), "")]), "x100 dropped"
    cands = []
    for sel in [i for i in range(len(q.toks)) if q.tt(i) == "SELECT"]:
        for lo, hi in q.select_items(sel):
            if any(q.tt(k) == "SLASH" for k in range(lo, hi + 1)) and q.tt(lo) != "DASH":
                cands.append(lo)
    if not cands:
        return None
    lo = rng.choice(cands)
    factor = rng.choice(["100.0 * ", "100 * ", "100.0*"])
    return apply(q.text, [(q.s(lo), q.s(lo), factor)]), "ratio reported as a percentage"


FLIP = {"GTE": "<=", "LTE": ">=", "GT": "<", "LT": ">"}


def k_comparison_flip(q: Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    cands = [i for i in range(len(q.toks)) if q.tt(i) in FLIP]
    if not cands:
        return None
    i = rng.choice(cands)
    new = FLIP[q.tt(i)]
    if rng.random() < 0.3:
        new = new.rstrip("=")
    return apply(q.text, [(q.s(i), q.e(i), new)]), f"{q.toks[i].text} as {new}"


def k_groupby_extra(q: Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    tabs = tab_refs(q, schema)
    joined = {q.toks[k].text.lower() for a, b in _on_ranges(q) for k in range(a, b + 1) if q.tt(k) == "VAR"}
    cands = []
    for i in range(len(q.toks)):
        if q.tt(i) != "GROUP_BY":
            continue
        g = q.group[i]
        end = i + 1
        while end < len(q.toks) and not q.stops(end, g):
            end += 1
        grouped = q.text[q.s(i):q.e(end - 1)].lower()
        for t in tabs:
            if q.group[t.i] != g:
                continue
            qual = t.alias or t.name
            for c in t.table.columns:
                if c.name.lower() in grouped or c.name in (t.table.primary_key or ()) or type_family(c) == "bool":
                    continue
                if c.name.lower().endswith(("id", "_code", "homepage", "url", "email", "phone", "address")) or (
                        c.name.lower() in joined):
                    continue
                w = {"time": 6, "text": 2}.get(type_family(c), 1)
                cands += [(i, end - 1, qual, c.name)] * w
    if not cands:
        return None
    i, last, qual, col = rng.choice(cands)
    edits = [(q.e(last), q.e(last), f", {qual}.{col}")]
    sel = q.select_before(i)
    if sel is not None and rng.random() < 0.5:
        at = sel + 1 if q.tt(sel + 1) == "DISTINCT" else sel
        edits.append((q.e(at), q.e(at), f" {qual}.{col},"))
    return apply(q.text, edits), f"GROUP BY also {qual}.{col}"


def k_like_exact(q: Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    cands = []
    for i in range(len(q.toks)):
        if q.tt(i) not in ("LIKE", "ILIKE"):
            continue
        k = i + 1
        if q.up(k) in ("LOWER", "UPPER") and q.tt(k + 1) == "L_PAREN":
            k += 2
        if q.tt(k) == "STRING" and "%" in q.toks[k].text and q.text[q.s(k)] == "'":
            cands.append((i, k))
    if not cands:
        return None
    i, k = rng.choice(cands)
    text = q.toks[k].text
    inner = text.strip("%").replace("'", "''")
    edits = [(q.s(i), q.e(i), "="), (q.s(k), q.e(k), f"'{inner}'")]
    if k != i + 1:  # LIKE LOWER('%x%'): the value written as it is
        edits.append((q.s(i + 1), q.s(k), ""))
        edits.append((q.e(k), q.e(k + 1), ""))
    lhs = i - 1  # LOWER(col) LIKE ...: the column compared as it is
    if q.tt(lhs) == "R_PAREN":
        opener = next((o for o, c in q.close.items() if c == lhs), None)
        if opener is not None and q.up(opener - 1) in ("LOWER", "UPPER") and q.close[opener] == lhs:
            edits += [(q.s(opener - 1), q.e(opener), ""), (q.s(lhs), q.e(lhs), "")]
    return apply(q.text, edits), "substring LIKE written as an exact, case-sensitive ="


def k_join_key_swap(q: Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    refs = [r for r in col_refs(q, schema) if r.column is not None]
    ons = _on_ranges(q)
    cands = []
    for r in refs:
        if not any(a <= r.i <= b for a, b in ons):
            continue
        fam = type_family(r.column)
        for c in r.table.columns:
            if c.name.lower() == r.column.name.lower() or type_family(c) != fam:
                continue
            keyish = c.name.lower().endswith(("id", "_code", "code")) or c.name in (r.table.primary_key or ())
            cands += [(r, c)] * (4 if keyish else 1)
    if not cands:
        return None
    r, c = rng.choice(cands)
    return apply(q.text, [(q.s(r.i), q.e(r.i), c.name)]), f"join on {r.table.name}.{c.name} not {r.column.name}"


AGG_SWAP = {"SUM": ["AVG", "COUNT"], "AVG": ["SUM"], "MIN": ["MAX"], "MAX": ["MIN"]}


def k_agg_swap(q: Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    cands = [i for i in range(len(q.toks)) if q.up(i) in AGG_SWAP and q.is_call(i)]
    if not cands:
        return None
    i = rng.choice(cands)
    new = rng.choice(AGG_SWAP[q.up(i)])
    if q.toks[i].text.islower():
        new = new.lower()
    return apply(q.text, [(q.s(i), q.e(i), new)]), f"{q.up(i)} as {new}"


def where_parts(q: Sql) -> list[tuple[int, int, list[int] | None]]:
    """(WHERE token, last token of its condition, its top-level ANDs -- None when it has a top-level OR)."""
    out = []
    for w in range(len(q.toks)):
        if q.tt(w) != "WHERE":
            continue
        g = q.group[w]
        end = w + 1
        while end < len(q.toks) and not q.stops(end, g):
            end += 1
        ands: list[int] | None = []
        between = False
        for k in range(w + 1, end):
            if q.group[k] != g:
                continue
            if q.tt(k) == "BETWEEN":
                between = True
            elif q.tt(k) == "AND":
                if between:
                    between = False
                elif ands is not None:
                    ands.append(k)
            elif q.tt(k) == "OR":
                ands = None
        out.append((w, end - 1, ands))
    return out


def k_filter_dropped(q: Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    cands = []
    for w, last, ands in where_parts(q):
        if ands is None:
            continue
        if not ands:
            cands.append(((q.e(w - 1), q.e(last), ""), "WHERE clause dropped"))
            continue
        bounds = [w] + ands + [last + 1]
        for n in range(len(ands) + 1):
            lo, hi = bounds[n], bounds[n + 1]
            if n == 0:
                cands.append(((q.e(w), q.e(ands[0]), ""), "first condition dropped"))
            else:
                cands.append(((q.e(lo - 1), q.e(hi - 1), ""), f"condition {n + 1} dropped"))
    if not cands:
        return None
    edit, note = rng.choice(cands)
    return apply(q.text, [edit]), note


def k_and_or_swap(q: Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    ands = [k for _, _, a in where_parts(q) if a for k in a]
    if not ands:
        return None
    k = rng.choice(ands)
    word = "OR" if q.toks[k].text.isupper() else "or"
    return apply(q.text, [(q.s(k), q.e(k), word)]), "AND between two conditions written OR"


HINT_WORDS = ("status", "type", "category", "state", "country", "method", "class", "city", "region", "make",
              "color", "transmission", "engine", "day", "month", "continent", "food", "kind", "level", "premium")


def k_extra_filter(q: Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    used = {q.toks[i].text.lower() for i in range(len(q.toks)) if q.tt(i) in ("VAR", "IDENTIFIER")}
    wheres = {q.group[w]: w for w, _, _ in where_parts(q)}
    cands = []
    for t in tab_refs(q, schema):
        g = q.group[t.i]
        qual = t.alias or t.name
        for c in t.table.columns:
            hints = [h for h in c.value_hints if h and "'" not in h and len(h) < 40]
            if len(hints) < 2 or c.name.lower() in used or type_family(c) != "text":
                continue
            w = 4 if any(x in c.name.lower() for x in HINT_WORDS) else 1
            cands += [(g, qual, c.name, hints)] * w
    if not cands:
        return None
    g, qual, col, hints = rng.choice(cands)
    cond = f"{qual}.{col} = '{rng.choice(hints)}'"
    if g in wheres:
        w = wheres[g]
        return apply(q.text, [(q.e(w), q.e(w), f" {cond} AND")]), f"extra filter {cond}"
    frm = next((k for k in range(len(q.toks)) if q.tt(k) == "FROM" and q.group[k] == g
                and q.select_before(k) is not None), None)
    if frm is None:
        return None
    end = frm + 1
    while end < len(q.toks) and not q.stops(end, g):
        end += 1
    return apply(q.text, [(q.e(end - 1), q.e(end - 1), f" WHERE {cond}")]), f"extra filter {cond}"


def k_threshold_shift(q: Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    cands = []
    for i in range(1, len(q.toks)):
        if q.tt(i) != "NUMBER" or q.tt(i - 1) not in CMP or re.fullmatch(r"(19|20)\d\d", q.toks[i].text):
            continue
        if q.tt(i - 1) in ("EQ", "NEQ") and float(q.toks[i].text) < 2:
            continue  # a flag (= 0 / = 1), not a threshold
        cands.append(i)
    if not cands:
        return None
    i = rng.choice(cands)
    text = q.toks[i].text
    val = float(text)
    if val >= 100 and rng.random() < 0.6:
        new = text[:-1] if text.isdigit() and text.endswith("0") else str(int(val // 10))
    elif val == int(val) and val < 20:
        new = str(int(val) + rng.choice([1, 2]) if val < 2 or rng.random() < 0.5 else int(val) - 1)
    else:
        new = str(int(val * 10)) if val == int(val) else str(round(val * 10, 4))
    if new == text:
        return None
    return apply(q.text, [(q.s(i), q.e(i), new)]), f"threshold {text} as {new}"


UNITS = ["day", "week", "month", "year"]


def k_date_shift(q: Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    cands = []
    for i in range(len(q.toks)):
        tt, text = q.tt(i), q.toks[i].text
        if tt == "STRING" and re.match(r"^\d{4}-\d{2}-\d{2}", text):
            y = int(text[:4]) + rng.choice([-1, 1])
            cands.append(((q.s(i), q.e(i), f"'{y}{text[4:]}'"), "year of a date literal off by one"))
        elif tt == "NUMBER" and re.fullmatch(r"(19|20)\d\d", text) and q.tt(i - 1) in CMP | {"BETWEEN", "AND"}:
            cands.append(((q.s(i), q.e(i), str(int(text) - 1)), "year off by one"))
        elif tt == "STRING" and re.fullmatch(r"[+-]?\s*\d+\s+(day|week|month|year|hour)s?", text.strip().lower()):
            m = re.fullmatch(r"([+-]?\s*)(\d+)(\s+)(day|week|month|year|hour)(s?)", text.strip().lower())
            assert m
            n = int(m.group(2))
            if rng.random() < 0.5 and m.group(4) in UNITS:
                unit = rng.choice([u for u in UNITS if u != m.group(4)])
                new = f"{m.group(1)}{n}{m.group(3)}{unit}{'s' if n != 1 else ''}"
            else:
                n2 = n + 1 if n < 3 or rng.random() < 0.5 else n - 1
                new = f"{m.group(1)}{n2}{m.group(3)}{m.group(4)}{'s' if n2 != 1 else ''}"
            cands.append(((q.s(i), q.e(i), f"'{new}'"), f"interval '{text}' as '{new}'"))
        elif tt == "STRING" and q.group[i] != -1 and q.up(q.group[i] - 1) == "DATE_TRUNC" and text.lower() in UNITS:
            unit = rng.choice([u for u in UNITS if u != text.lower()])
            cands.append(((q.s(i), q.e(i), f"'{unit}'"), f"DATE_TRUNC('{text}') as '{unit}'"))
        elif tt == "STRING" and q.group[i] != -1 and q.up(q.group[i] - 1) == "STRFTIME" and text in ("%Y-%m", "%Y-%W"):
            new = "%Y" if rng.random() < 0.5 else ("%m" if text == "%Y-%m" else "%W")
            cands.append(((q.s(i), q.e(i), f"'{new}'"), f"strftime '{text}' as '{new}'"))
    if not cands:
        return None
    edit, note = rng.choice(cands)
    return apply(q.text, [edit]), note


def k_value_case(q: Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    cands = []
    for i in range(2, len(q.toks)):
        if q.tt(i) != "STRING" or q.text[q.s(i)] != "'" or not re.search(r"[A-Za-z]", q.toks[i].text):
            continue
        prev = q.tt(i - 1)
        in_list = prev in ("L_PAREN", "COMMA") and q.group[i] != -1 and q.tt(q.group[i] - 1) == "IN"
        if prev not in ("EQ", "NEQ") and not in_list:
            continue
        op = i - 1 if not in_list else q.group[i] - 1
        lhs = op - 1
        if q.tt(lhs) == "R_PAREN":  # LOWER(x) = '...' compares case-blind
            opener = next((o for o, c in q.close.items() if c == lhs), None)
            if opener is not None and q.up(opener - 1) in ("LOWER", "UPPER"):
                continue
        if re.match(r"^\d{4}-\d{2}", q.toks[i].text):
            continue
        cands.append(i)
    if not cands:
        return None
    i = rng.choice(cands)
    text = q.toks[i].text
    options = {text.lower(), text.upper(), text.title(), text[:1].upper() + text[1:].lower()} - {text}
    if not options:
        return None
    new = rng.choice(sorted(options))
    return apply(q.text, [(q.s(i), q.e(i), "'" + new.replace("'", "''") + "'")]), f"'{text}' as '{new}'"


def k_limit_slip(q: Sql, schema: Any, rng: random.Random) -> tuple[str, str] | None:
    lims = [i for i in range(len(q.toks)) if q.tt(i) == "LIMIT" and q.tt(i + 1) == "NUMBER"]
    if not lims:
        return None
    i = rng.choice(lims)
    n = int(float(q.toks[i + 1].text))
    g = q.group[i]
    orders = [k for k in range(i) if q.tt(k) == "ORDER_BY" and q.group[k] == g]
    r = rng.random()
    if orders and r < 0.35:
        o = orders[-1]
        k = o + 1
        while k < i and not (q.group[k] == g and q.tt(k) in ("COMMA", "LIMIT")):
            k += 1
        first_end = k - 1
        dirs = [d for d in range(o + 1, first_end + 1) if q.tt(d) in ("DESC", "ASC") and q.group[d] == g]
        if dirs:
            d = dirs[0]
            new = "ASC" if q.tt(d) == "DESC" else "DESC"
            return apply(q.text, [(q.s(d), q.e(d), new)]), f"sort {q.toks[d].text} as {new}"
        return apply(q.text, [(q.e(first_end), q.e(first_end), " DESC")]), "sort made descending"
    if r < 0.55:
        return apply(q.text, [(q.e(i - 1), q.e(i + 1), "")]), "LIMIT dropped"
    new = n - 1 if n > 1 and rng.random() < 0.6 else n + rng.choice([1, 5, 10 - n if n < 10 else 1])
    if new == n or new < 1:
        new = n + 1
    return apply(q.text, [(q.s(i + 1), q.e(i + 1), str(new))]), f"LIMIT {n} as {new}"


EDITS = {
    "backtick_idents": k_backtick_idents, "schema_qualifier": k_schema_qualifier, "table_prefix": k_table_prefix,
    "col_owner_prefix": k_col_owner_prefix, "col_abbrev": k_col_abbrev, "tsql_top": k_tsql_top,
    "mysql_datetime": k_mysql_datetime, "join_dropped": k_join_dropped, "using_misfire": k_using_misfire,
    "dangling_comma": k_dangling_comma, "smart_quotes": k_smart_quotes, "hash_comments": k_hash_comments,
    "spaced_alias": k_spaced_alias, "placeholder_literal": k_placeholder_literal,
    "sibling_column": k_sibling_column, "percent_scale": k_percent_scale, "comparison_flip": k_comparison_flip,
    "groupby_extra": k_groupby_extra, "like_exact": k_like_exact, "join_key_swap": k_join_key_swap,
    "agg_swap": k_agg_swap, "filter_dropped": k_filter_dropped, "extra_filter": k_extra_filter,
    "and_or_swap": k_and_or_swap, "threshold_shift": k_threshold_shift, "date_shift": k_date_shift,
    "value_case": k_value_case, "limit_slip": k_limit_slip,
}  # fmt: skip


def damage(gold_sql: str, schema: Any, kind: str, seed: int) -> Damaged | None:
    """The whole reply a model might send for ``gold_sql`` damaged in ``kind``; None when it does not apply."""
    try:
        return _damage(gold_sql, schema, kind, seed)
    except Exception:  # noqa: BLE001 -- a generator never raises
        return None


def _damage(gold_sql: str, schema: Any, kind: str, seed: int) -> Damaged | None:
    if kind not in DAMAGE_KINDS or not gold_sql or not gold_sql.strip().rstrip(";").strip():
        return None
    rng = random.Random(f"fresh11|{kind}|{seed}|{gold_sql}")
    dialect = "sqlite" if getattr(schema, "dialect", "postgres") == "sqlite" else "postgres"
    sql = restyle(gold_sql, dialect, rng)
    if kind == "clean":
        return Damaged(kind, ordinary(sql, rng, dialect), "gold query, ordinary reply")
    q = Sql(sql, dialect)
    if kind in LAYOUTS:
        reply = LAYOUTS[kind](sql, rng, dialect, q)
        return Damaged(kind, reply, kind.replace("_", " ")) if reply else None
    made = EDITS[kind](q, schema, rng)
    if made is None or made[0] is None:
        return None
    text, note = made
    extra = ""
    if "\u0000" in text:
        text, extra = text.split("\u0000", 1)
        extra = extra.strip()
    if " ".join(text.split()) == " ".join(sql.split()):
        return None
    return Damaged(kind, ordinary(text, rng, dialect, extra=extra), note)
