"""Held-out damage generator ``fresh10``: damaged replies of the kind a small local coder model writes.

Written without reading Cairn's repair code. ``damage(gold_sql, schema, kind, seed)`` takes a gold query (in the
dialect being benched: ``schema.dialect``) and returns the reply a 7B-8B coder model might really send, or None when
the kind does not apply. SQL is edited in place at token positions (sqlglot's tokenizer and parser only locate
things; nothing is re-rendered), so ``TREE_KINDS`` is empty. Deterministic for (gold, kind, seed).

Kinds (family A: the reply is rejected by the database or its SQL is hard to find; family B: it runs and answers
something else):

clean            the gold query in an ordinary reply (fence, prose, varied layout)
A col_synonym      one column renamed to the natural-language name the model expected (stars, full_name, *_date, ...)
A col_id_suffix    an id/code/number column renamed by convention (id -> car_id, pid -> paper_id, *_code -> *_id)
A col_case_style   a column written in the other naming style (food_type -> foodType, sbCustName -> sb_cust_name)
A col_wrong_table  a column qualified with another joined table's alias that does not have it
A ambiguous_column a join's shared column (business_id, name, ...) left unqualified
A table_number     a table name pluralised / singularised / stripped of its prefix (restaurant -> restaurants)
A groupby_dropped  GROUP BY left out, or one plain column missing from it
A agg_misuse       an aggregate filter written in WHERE (HAVING moved up, or MAX() compared without a subquery)
A dialect_bleed    another dialect's idiom: YEAR(), DATE_FORMAT, DATEADD, TOP n, IFNULL, ::float, ILIKE, strftime
A keyword_typo     one keyword misspelt (SELCT, FORM, WHRE, GRUOP BY, ODER BY, JION)
A clause_order     clauses out of order (ORDER BY before GROUP BY, WHERE after GROUP BY, LIMIT before ORDER BY)
A paren_slip       a parenthesis dropped or doubled
A alias_drift      a column qualified with an alias that was never declared (cu.x for c, the table name for its alias)
A scope_leak       an outer query refers to a table alias that only exists inside a CTE / subquery
A keyword_alias    a table alias or CTE named with a reserved word (order, group, user, check, desc, end)
A truncated        the reply cut off by the token limit inside the SQL, fence left open
A prose_in_block   explanation lines or '#'/'//' comments inside the fenced SQL
A draft_then_fix   a first block with a mistake, then "wait, fix:" and the right query in a second block
A explore_first    an exploration query (SELECT DISTINCT ... / SELECT * LIMIT 5) before the answer, both fenced
A numbered_steps   step-by-step answer with SQL fragments in their own blocks before the full query
A json_reply       the query inside a JSON object {"sql": ..., "explanation": ...} (escaped), fenced as json or not
A inline_sentence  no fence: the SQL inline in an English sentence, or after "Query:" with prose around it
A hinglish         Hindi-English prose (Latin or Devanagari) around an unfenced or ~~~-fenced query
A clarify_first    asks a clarifying question, states an assumption, then gives the SQL without a fence
A duo_column_prose a renamed column AND a prose layout (Hinglish or inline) at once
B join_key         a join on the wrong key (another *_id column, or id = id)
B child_join       a needless join to a child table that multiplies the rows
B wrong_agg        one aggregate swapped (AVG->SUM, SUM->COUNT, MAX<->MIN, COUNT(col)->COUNT(*))
B drop_filter      one WHERE / ON condition forgotten
B compare_flip     a comparison turned round (> <-> <) or its boundary slipped (>= -> >)
B date_slip        a date range slip (time part dropped, CURRENT_DATE -> NOW(), year as a BETWEEN of dates)
B order_limit      sort direction reversed, LIMIT dropped, or a LIMIT added out of habit
B literal_case     a string literal in another case ('Italian' -> 'italian', 'CA' -> 'Ca')
B int_division     the float cast / 1.0 factor left out of a ratio (integer division)
B distinct_slip    DISTINCT dropped (COUNT(DISTINCT x) -> COUNT(x), SELECT DISTINCT -> SELECT) or added
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.tokens import TokenType

DAMAGE_KINDS: tuple[str, ...] = (
    "clean",
    "col_synonym", "col_id_suffix", "col_case_style", "col_wrong_table", "ambiguous_column", "table_number",
    "groupby_dropped", "agg_misuse", "dialect_bleed", "keyword_typo", "clause_order", "paren_slip", "alias_drift",
    "scope_leak", "keyword_alias", "truncated", "prose_in_block", "draft_then_fix", "explore_first",
    "numbered_steps", "json_reply", "inline_sentence", "hinglish", "clarify_first", "duo_column_prose",
    "join_key", "child_join", "wrong_agg", "drop_filter", "compare_flip", "date_slip", "order_limit",
    "literal_case", "int_division", "distinct_slip",
)  # fmt: skip
TREE_KINDS: tuple[str, ...] = ()


@dataclass(frozen=True)
class Damaged:
    kind: str
    reply: str
    note: str


class Skip(Exception):
    """The kind does not apply to this query."""


# ----------------------------------------------------------------------------------------------------- the query


_CLAUSE_BREAK = {TokenType.FROM, TokenType.WHERE, TokenType.GROUP_BY, TokenType.ORDER_BY, TokenType.HAVING,
                 TokenType.LIMIT, TokenType.UNION, TokenType.JOIN, TokenType.LEFT, TokenType.INNER, TokenType.RIGHT,
                 TokenType.FULL, TokenType.CROSS, TokenType.OFFSET}  # fmt: skip
_CLAUSES = {TokenType.WHERE: "where", TokenType.GROUP_BY: "group", TokenType.HAVING: "having",
            TokenType.ORDER_BY: "order", TokenType.LIMIT: "limit", TokenType.OFFSET: "offset",
            TokenType.FROM: "from"}  # fmt: skip


def _dialect(schema: Any, sql: str) -> str:
    d = str(getattr(schema, "dialect", "") or "").lower()
    if d in ("sqlite", "mysql", "duckdb", "postgres"):
        return d
    if d.startswith("postgres"):
        return "postgres"
    return "sqlite" if "strftime(" in sql.lower() else "postgres"


def _tokens(sql: str, d: str) -> list[Any]:
    return list(sqlglot.tokenize(sql, read=d))


def _pretty(sql: str, d: str, rng: random.Random) -> str:
    """The gold as a model lays it out: one line, or a line per clause (only whitespace changes)."""
    style = rng.random()
    if style < 0.3:
        return sql
    toks = _tokens(sql, d)
    depth, out, last = 0, [], 0
    for i, t in enumerate(toks):
        brk = t.token_type in _CLAUSE_BREAK and depth == 0
        if t.token_type == TokenType.JOIN and i and toks[i - 1].token_type in _CLAUSE_BREAK:
            brk = False  # LEFT JOIN: break before LEFT only
        if t.token_type == TokenType.OFFSET and i and toks[i - 1].token_type == TokenType.NUMBER:
            brk = False
        if brk and i:
            gap = sql[toks[i - 1].end + 1 : t.start]
            if gap.strip() == "":
                out.append(sql[last : toks[i - 1].end + 1])
                out.append("\n" + ("  " if t.token_type in (TokenType.JOIN, TokenType.LEFT, TokenType.INNER)
                                   and style > 0.75 else ""))  # fmt: skip
                last = t.start
        if t.token_type == TokenType.L_PAREN:
            depth += 1
        elif t.token_type == TokenType.R_PAREN:
            depth -= 1
    out.append(sql[last:])
    return "".join(out)


class Q:
    """A gold query with its tokens, tree and column references located in the text."""

    def __init__(self, gold: str, schema: Any, rng: random.Random, pretty: bool = True) -> None:
        sql = gold.strip()
        while sql.endswith(";"):
            sql = sql[:-1].rstrip()
        if ";" in sql:  # several statements: not a single answer
            toks = _tokens(sql, _dialect(schema, sql))
            if any(t.token_type == TokenType.SEMICOLON for t in toks):
                raise Skip
        self.d = _dialect(schema, sql)
        self.rng = rng
        self.schema = schema
        self.sql = _pretty(sql, self.d, rng) if pretty else sql
        self.toks = _tokens(self.sql, self.d)
        self.depth: list[int] = []
        depth = 0
        for t in self.toks:
            if t.token_type == TokenType.R_PAREN:
                depth -= 1
            self.depth.append(depth)
            if t.token_type == TokenType.L_PAREN:
                depth += 1
        self.tree = sqlglot.parse_one(self.sql, read=self.d)
        self._scopes: dict[int, dict[str, Any]] = {}
        self.cols = self._columns()

    # ---- scopes
    def tables_of(self, sel: exp.Expression) -> dict[str, Any]:
        """alias (lower) -> schema Table (or None for a CTE / derived table) of one SELECT's FROM and JOINs."""
        key = id(sel)
        if key in self._scopes:
            return self._scopes[key]
        out: dict[str, Any] = {}
        frm = sel.args.get("from_") or sel.args.get("from")
        for node in list(sel.args.get("joins") or []) + ([frm] if frm is not None else []):
            src = node.this
            if isinstance(src, exp.Table):
                name = src.name
                db = src.args.get("db")
                full = f"{db.name}.{name}" if db is not None else name
                tbl = self.schema.table(full) or (self.schema.table(name) if db is None else None)
                alias = src.alias or name
                out[alias.lower()] = tbl
            elif isinstance(src, exp.Subquery) and src.alias:
                out[src.alias.lower()] = None
        self._scopes[key] = out
        return out

    def table_nodes(self) -> list[exp.Table]:
        return [t for t in self.tree.find_all(exp.Table) if self.schema.table(self._full(t)) is not None]

    def _full(self, t: exp.Table) -> str:
        db = t.args.get("db")
        return f"{db.name}.{t.name}" if db is not None else t.name

    def cte_names(self) -> set[str]:
        return {c.alias.lower() for c in self.tree.find_all(exp.CTE) if c.alias}

    def _columns(self) -> list[dict[str, Any]]:
        out = []
        for col in self.tree.find_all(exp.Column):
            ident = col.this
            if not isinstance(ident, exp.Identifier) or "start" not in ident.meta:
                continue
            sel = col.find_ancestor(exp.Select)
            if sel is None:
                continue
            qual = col.table
            qnode = col.args.get("table")
            tbl = None
            scope = sel
            resolved = False
            while scope is not None and not resolved:
                tabs = self.tables_of(scope)
                if qual:
                    if qual.lower() in tabs:
                        tbl, resolved = tabs[qual.lower()], True
                else:
                    hits = [t for t in tabs.values() if t is not None and t.column(col.name) is not None]
                    if hits:
                        tbl, resolved = hits[0], True
                scope = scope.find_ancestor(exp.Select) if not resolved else scope
            # clause of the column within its own SELECT
            node, clause = col, "other"
            while node.parent is not None and node.parent is not sel:
                node = node.parent
            if node.parent is sel:
                clause = {"expressions": "select", "where": "where", "group": "group", "having": "having",
                          "order": "order", "joins": "join", "from": "from", "from_": "from"}.get(node.arg_key, "other")  # fmt: skip
            out.append({
                "node": col, "name": col.name, "qual": qual, "span": (ident.meta["start"], ident.meta["end"] + 1),
                "qspan": (qnode.meta["start"], qnode.meta["end"] + 1) if qnode is not None and "start" in qnode.meta
                else None, "table": tbl, "sel": sel, "clause": clause, "quoted": ident.quoted,
                "in_agg": col.find_ancestor(exp.AggFunc) is not None,
            })  # fmt: skip
        return out

    # ---- facts
    def all_columns_lower(self) -> set[str]:
        names = {c.name.lower() for t in self.schema.tables for c in t.columns}
        names |= {a.alias.lower() for a in self.tree.find_all(exp.Alias) if a.alias}
        return names

    def query_tables(self) -> list[Any]:
        seen, out = set(), []
        for t in self.table_nodes():
            tbl = self.schema.table(self._full(t))
            if tbl is not None and tbl.qualified_name not in seen:
                seen.add(tbl.qualified_name)
                out.append(tbl)
        return out

    def top_clause_tokens(self) -> list[tuple[str, int]]:
        """(clause, token index) of the outermost SELECT's clause keywords."""
        return [(_CLAUSES[t.token_type], i) for i, t in enumerate(self.toks)
                if self.depth[i] == 0 and t.token_type in _CLAUSES]  # fmt: skip

    def outer_select_start(self) -> int:
        """Token index of the outermost SELECT keyword (after a WITH clause)."""
        for i, t in enumerate(self.toks):
            if t.token_type == TokenType.SELECT and self.depth[i] == 0:
                return i
        raise Skip

    def choice(self, items: list[Any]) -> Any:
        if not items:
            raise Skip
        return self.rng.choice(items)


def _edit(sql: str, edits: list[tuple[int, int, str]]) -> str:
    for s, e, text in sorted(edits, key=lambda x: -x[0]):
        sql = sql[:s] + text + sql[e:]
    return sql


def _same_case(new: str, old: str) -> str:
    return new.upper() if old.isupper() and len(old) > 1 else new


# ----------------------------------------------------------------------------------------------------- names


def _singular(w: str) -> str:
    lw = w.lower()
    if lw.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if lw.endswith(("sses", "xes", "ches", "shes")):
        return w[:-2]
    if lw.endswith("s") and not lw.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def _plural(w: str) -> str:
    lw = w.lower()
    if lw.endswith("y") and len(w) > 2 and lw[-2] not in "aeiou":
        return w[:-1] + "ies"
    if lw.endswith(("s", "x", "ch", "sh")):
        return w + "es"
    return w + "s"


def _camel(w: str) -> str:
    parts = w.split("_")
    return parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])


def _snake(w: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", w).lower()


_SYN: dict[str, tuple[str, ...]] = {
    "name": ("full_name", "title"), "title": ("name", "paper_title"), "rating": ("stars", "score", "avg_rating"),
    "year": ("pub_year", "publication_year"), "city_name": ("city", "name"), "state_name": ("state", "name"),
    "country_name": ("country",), "population": ("total_population", "pop"), "area": ("size", "surface_area"),
    "length": ("river_length", "len"), "altitude": ("elevation", "height"), "food_type": ("cuisine", "cuisine_type"),
    "street_name": ("street", "address"), "text": ("review_text", "content"), "count": ("checkin_count",),
    "review_count": ("num_reviews", "total_reviews"), "sale_price": ("price", "amount"), "amount": ("total_amount",),
    "email": ("email_address",), "phone": ("phone_number",), "gender": ("sex",), "status": ("current_status",),
    "first_name": ("firstname", "fname"), "last_name": ("lastname", "surname"), "firstname": ("first_name",),
    "lastname": ("last_name",), "description": ("details",), "created_at": ("created_date", "creation_date"),
    "is_open": ("open", "is_active"), "username": ("user_name", "name"), "balance": ("current_balance",),
    "specialty": ("speciality", "specialization"), "city": ("city_name",), "state": ("state_name",),
    "country": ("country_name",), "rank": ("ranking",), "capacity": ("seats", "seat_capacity"),
    "cruising_speed": ("speed",), "pay_load": ("payload",), "month": ("month_name",), "day": ("day_of_week",),
    "ticker": ("symbol",), "symbol": ("ticker",), "weight_kg": ("weight",), "height_cm": ("height",),
    "duration": ("length",), "milliseconds": ("duration_ms", "length"), "unit_price": ("price",),
    "total": ("amount", "total_amount"), "make": ("brand", "manufacturer"), "model": ("model_name",),
    "price": ("cost",), "cost": ("price",), "round_trip_cost": ("roundtrip_cost", "round_trip_fare"),
    "one_direction_cost": ("one_way_cost",), "departure_time": ("dep_time", "depart_time"),
    "arrival_time": ("arr_time", "arrive_time"), "airline_code": ("airline",), "venuename": ("venue_name",),
    "journalname": ("journal_name",), "datasetname": ("dataset_name",), "keyphrasename": ("keyphrase_name",),
    "authorname": ("author_name",), "numcitedby": ("num_cited_by", "citation_count"),
    "numciting": ("num_citing",), "homepage": ("home_page", "url"), "grade": ("letter_grade",),
    "credits": ("num_credits", "credit_hours"), "department": ("dept",), "semester": ("term",),
}  # fmt: skip
_ABBR = (("Cust", "Customer"), ("Tx", "Trans"), ("Amt", "Amount"), ("Dt", "Date"), ("Num", "Number"))


def _synonyms(name: str, table: Any) -> list[str]:
    low = name.lower()
    out = list(_SYN.get(low, ()))
    tname = _singular(table.name.lower()) if table is not None else ""
    if low.endswith("_dt"):
        out.append(name[:-3] + "_date")
    elif low.endswith("_date"):
        out += [name[:-5] + "_at", name[:-5] + "_dt"]
    elif low.endswith("_ts") or low.endswith("_time"):
        out.append(name.rsplit("_", 1)[0] + "_timestamp")
    if low.startswith("num_"):
        out.append(name[4:] + "_count")
    elif low.endswith("_count") and low != "review_count":
        out.append("num_" + name[:-6])
    if tname and low.startswith(tname + "_") and len(low) > len(tname) + 2:
        out.append(name[len(tname) + 1 :])  # city.city_name -> city.name
    if tname and low in ("name", "type", "date", "status", "title", "price", "code", "description"):
        out.append(f"{tname}_{name}")  # business.name -> business.business_name
    if re.search(r"[a-z][A-Z]", name):  # sbCustName -> sbCustomerName
        for short, long in _ABBR:
            if re.search(short + r"(?=[A-Z]|$)", name):
                out.append(re.sub(short + r"(?=[A-Z]|$)", long, name, count=1))
        if name.startswith("sb") and len(name) > 4:
            out.append(_snake(name[2:]))
    if not out and low.endswith("s") and not low.endswith("ss"):
        out.append(name[:-1])
    elif not out and len(low) > 3 and not low.endswith("id"):
        out.append(_plural(name))
    return out


def _id_variants(name: str, table: Any, schema: Any) -> list[str]:
    low = name.lower()
    tname = _singular(table.name.lower()) if table is not None else ""
    out = []
    if low == "id" and tname:
        out += [f"{tname}_id", f"{tname}id"]
    elif re.fullmatch(r"[a-z]id", low):  # pid, aid, jid, uid, cid, kid
        first = low[0]
        names = [t.name.lower() for t in schema.tables if t.name.lower().startswith(first) and "_" not in t.name]
        if table is not None and table.name.lower().startswith(first):
            names = [table.name.lower()]
        if low == "uid":
            names = ["user"]
        out += [f"{_singular(n)}_id" for n in names[:2]] + [f"{low[0]}_id"]
    elif low.endswith("_id"):
        stem = name[:-3]
        out += [stem + "id", stem + "_no", stem + "_code"] if len(stem) > 3 else [stem + "_no"]
        if stem.lower() in ("customer", "business", "restaurant", "transaction", "treatment", "patient"):
            out.insert(0, {"customer": "cust", "business": "biz", "restaurant": "rest", "transaction": "txn",
                           "treatment": "treat", "patient": "pat"}[stem.lower()] + "_id")  # fmt: skip
    elif low.endswith("id") and len(low) > 4:  # paperid, venueid, sbCustId
        stem = name[:-2]
        if re.search(r"[a-z][A-Z]", name):
            for short, long in _ABBR:
                if short in stem:
                    out.append(stem.replace(short, long, 1) + name[-2:])
            out.append(_snake(stem) + "_id")
        else:
            out.append(stem + "_id")
    elif low.endswith("_code"):
        out += [name[:-5] + "_id", name[:-5]]
    elif low.endswith("_number"):
        out += [name[:-7] + "_no", name[:-7] + "_num"]
    elif low.endswith("_no"):
        out += [name[:-3] + "_number"]
    elif low.endswith("code") and len(low) > 5:
        out += [name[:-4] + "_id"]
    return out


# ----------------------------------------------------------------------------------------------------- replies

_TAGS_FOR = {"postgres": ("sql", "sql", "SQL", "postgresql", "", "sql", "postgres", "pgsql"),
             "sqlite": ("sql", "sql", "SQL", "sqlite", "", "sql", "SQLite"),
             "mysql": ("sql", "SQL", "mysql", ""), "duckdb": ("sql", "SQL", "", "duckdb")}  # fmt: skip
_INTROS = (
    "", "", "Here's the SQL query:", "Sure! Here is the query:", "You can use the following query:",
    "To answer this, we can query the relevant tables:", "Here is a query that should work:",
    "The following SQL returns what you asked for:", "Certainly. Try this:", "This query will do it:",
    "Based on the schema, the query is:", "Query:", "### SQL", "**Answer:**",
)  # fmt: skip
_OUTROS = (
    "", "", "", "Let me know if you need anything else!", "This should give you the expected result.",
    "Adjust the filters if your data uses different values.", "Hope this helps.",
    "Note: if you need a different ordering, change the ORDER BY clause.",
    "Make sure the table and column names match your schema.",
)  # fmt: skip


def _explain(q: Q) -> str:
    tabs = [t.name for t in q.query_tables()]
    parts = []
    if len(tabs) > 1:
        parts.append(f"joins `{tabs[0]}` with `{tabs[1]}`")
    elif tabs:
        parts.append(f"reads from `{tabs[0]}`")
    clauses = {c for c, _ in q.top_clause_tokens()}
    if "where" in clauses:
        parts.append("filters the rows in the WHERE clause")
    if "group" in clauses:
        parts.append("groups the results")
    if "order" in clauses:
        parts.append("sorts them")
    if "limit" in clauses:
        parts.append("keeps only the top rows")
    if not parts:
        return ""
    text = ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]
    return q.rng.choice(("This query ", "Explanation: the query ", "It ", "- The query ")) + text + "."


def _fence(q: Q, sql: str, semicolon: bool | None = None) -> str:
    tag = q.rng.choice(_TAGS_FOR.get(q.d, _TAGS_FOR["postgres"]))
    if semicolon is None:
        semicolon = q.rng.random() < 0.55
    body = sql + (";" if semicolon and not sql.rstrip().endswith(";") else "")
    return f"```{tag}\n{body}\n```"


def _ordinary(q: Q, sql: str, explain: bool = True) -> str:
    """An ordinary reply: optional intro, a ``` fence, optional explanation / outro."""
    parts = []
    intro = q.rng.choice(_INTROS)
    if intro:
        parts.append(intro)
    parts.append(_fence(q, sql))
    if explain and q.rng.random() < 0.4:
        e = _explain(q)
        if e:
            parts.append(e)
    outro = q.rng.choice(_OUTROS)
    if outro:
        parts.append(outro)
    return "\n\n".join(parts)


def _odd_layout(q: Q, sql: str) -> str:
    """A second damage on top of a broken query, now and then: the block not fenced the usual way."""
    r = q.rng.random()
    if r < 0.75:
        return _ordinary(q, sql)
    if r < 0.85:
        return f"Here is the query:\n\n~~~sql\n{sql}\n~~~"
    if r < 0.93:
        return f"{sql};\n\nThis should return the requested data."
    return _hinglish_wrap(q, sql, fence=False)


# ----------------------------------------------------------------------------------------------------- family A


def _rename_column(q: Q, style: str) -> tuple[str, str]:
    """Rename one column reference by ``style``; the new name does not exist where it is looked up."""
    everything = q.all_columns_lower()
    cands = []
    for c in q.cols:
        tbl = c["table"]
        if tbl is None or c["clause"] == "from":
            continue
        if style == "synonym":
            alts = _synonyms(c["name"], tbl)
        elif style == "id":
            alts = _id_variants(c["name"], tbl, q.schema)
        else:
            n = c["name"]
            if "_" in n.strip("_"):
                alts = [_camel(n)]
            elif re.search(r"[a-z][A-Z]", n):
                alts = [_snake(n)] + ([f'"{n}"'] if q.d == "postgres" and not c["quoted"] else [])
                if q.d == "postgres":  # a mixed-case name quoted in PostgreSQL is a different (missing) name
                    alts = [f'"{n}"'] if q.rng.random() < 0.5 and not c["quoted"] else [_snake(n)]
            else:
                alts = []
        for alt in alts:
            bare = alt.strip('"')
            if alt.startswith('"'):
                if tbl.column(bare) is not None and tbl.column(bare).name != bare:
                    cands.append((c, alt))
                continue
            if bare.lower() == c["name"].lower() or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", bare):
                continue
            if c["qual"] and tbl.column(bare) is not None:
                continue
            if not c["qual"] and bare.lower() in everything:
                continue
            if bare.lower() in everything and tbl.column(bare) is not None:
                continue
            if style == "case" and q.d != "postgres" and bare.lower() == c["name"].lower():
                continue
            if style == "case" and q.d == "postgres" and bare.lower() == c["name"].lower():
                continue  # PostgreSQL folds unquoted names: sbCustName and sbcustname are the same
            cands.append((c, alt))
    if not cands:
        raise Skip
    # prefer the SELECT / WHERE columns, as a model's first guess is usually in what it was asked for
    pref = [x for x in cands if x[0]["clause"] in ("select", "where")]
    c, alt = q.choice(pref if pref and q.rng.random() < 0.8 else cands)
    name = c["name"]
    # a model that invents a name uses it consistently within the query
    same = [o for o in q.cols if o["name"] == name and o["table"] is c["table"]]
    edits = [(o["span"][0], o["span"][1], alt) for o in same]
    return _edit(q.sql, edits), f"{c['table'].name}.{name} written as {alt}"


def k_col(style: str) -> Any:
    def fn(q: Q) -> tuple[str, str]:
        return _rename_column(q, style)
    return fn


def _laid_out(fn: Any) -> Any:
    """A kind that breaks the SQL, its reply laid out (now and then oddly)."""
    def run(q: Q) -> tuple[str, str]:
        sql, note = fn(q)
        return _odd_layout(q, sql), note
    return run


def k_col_wrong_table(q: Q) -> tuple[str, str]:
    cands = []
    for c in q.cols:
        if not c["qual"] or c["qspan"] is None or c["table"] is None:
            continue
        tabs = q.tables_of(c["sel"])
        for alias, tbl in tabs.items():
            if tbl is None or alias == c["qual"].lower() or tbl.column(c["name"]) is not None:
                continue
            cands.append((c, alias, tbl))
    c, alias, tbl = q.choice(cands)
    # keep the alias's spelling as declared
    spelled = next((t.alias or t.name for t in c["sel"].find_all(exp.Table) if (t.alias or t.name).lower() == alias),
                   alias)
    sql = _edit(q.sql, [(c["qspan"][0], c["qspan"][1], spelled)])
    return sql, f"{c['qual']}.{c['name']} taken from {tbl.name}"


def k_ambiguous(q: Q) -> tuple[str, str]:
    cands = []
    for c in q.cols:
        if not c["qual"] or c["qspan"] is None or c["table"] is None:
            continue
        tabs = q.tables_of(c["sel"])
        others = [t for a, t in tabs.items() if a != c["qual"].lower() and t is not None and t.column(c["name"])]
        if others:
            cands.append(c)
    c = q.choice(cands)
    s = c["qspan"][0]
    sql = _edit(q.sql, [(s, c["span"][0], "")])
    return sql, f"{c['qual']}.{c['name']} left unqualified"


def k_table_number(q: Q) -> tuple[str, str]:
    names = {t.name.lower() for t in q.schema.tables} | q.cte_names()
    nodes = q.table_nodes()
    cands = []
    for t in nodes:
        n = t.name
        alts = []
        if n.lower().startswith("sb") and len(n) > 4 and n[2:3].isupper():
            alts += [_plural(n[2:].lower()), n[2:].lower()]
        sing, plur = _singular(n), _plural(n)
        alts += [sing] if sing != n else [plur]
        for a in alts:
            if a.lower() not in names and a.lower() != n.lower():
                cands.append((t, a))
    t, alt = q.choice(cands)
    edits = []
    for node in nodes:
        if node.name == t.name and "start" in node.this.meta:
            edits.append((node.this.meta["start"], node.this.meta["end"] + 1, alt))
    for c in q.cols:  # table.column qualifiers follow the new name
        if c["qual"] and c["qual"].lower() == t.name.lower() and c["qspan"] and not any(
                (n.alias or "").lower() == t.name.lower() for n in nodes):
            edits.append((c["qspan"][0], c["qspan"][1], alt))
    sql = _edit(q.sql, list(dict.fromkeys(edits)))
    return sql, f"table {t.name} written as {alt}"


def _group_span(q: Q) -> list[tuple[int, int, int]]:
    """(GROUP BY token index, end token index exclusive, depth) of every GROUP BY."""
    out = []
    for i, t in enumerate(q.toks):
        if t.token_type != TokenType.GROUP_BY:
            continue
        d = q.depth[i]
        j = i + 1
        while j < len(q.toks):
            tt = q.toks[j]
            if q.depth[j] == d and tt.token_type in (TokenType.HAVING, TokenType.ORDER_BY, TokenType.LIMIT,
                                                      TokenType.UNION, TokenType.WINDOW, TokenType.QUALIFY):
                break
            if q.depth[j] < d or (tt.token_type == TokenType.R_PAREN and q.depth[j] == d - 1):
                break
            j += 1
        out.append((i, j, d))
    return out


def _split_top(q: Q, a: int, b: int, sep: set[Any]) -> list[tuple[int, int]]:
    """Token ranges [a, b) split at separators of the same depth as token a."""
    d = q.depth[a] if a < len(q.toks) else 0
    parts, start = [], a
    between = False
    for j in range(a, b):
        tt = q.toks[j].token_type
        if tt == TokenType.BETWEEN and q.depth[j] == d:
            between = True
        elif tt in sep and q.depth[j] == d:
            if tt == TokenType.AND and between:
                between = False
                continue
            parts.append((start, j))
            start = j + 1
    parts.append((start, b))
    return [p for p in parts if p[0] < p[1]]


def k_groupby_dropped(q: Q) -> tuple[str, str]:
    spans = _group_span(q)
    s = q.choice(spans)
    i, j, _ = s
    items = _split_top(q, i + 1, j, {TokenType.COMMA})
    if len(items) >= 2 and q.rng.random() < 0.55:
        k = q.rng.randrange(len(items))
        a, b = items[k]
        if k == 0:
            start, end = q.toks[a].start, q.toks[items[1][0]].start
        else:
            start, end = q.toks[items[k - 1][1] - 1].end + 1, q.toks[b - 1].end + 1
        sql = _edit(q.sql, [(start, end, "")])
        return sql, "one column left out of GROUP BY"
    start = q.toks[i].start
    end = q.toks[j - 1].end + 1
    # swallow the whitespace before the clause
    while start > 0 and q.sql[start - 1] in " \n":
        start -= 1
    sql = _edit(q.sql, [(start, end, "")])
    if not any(isinstance(n, exp.AggFunc) for n in q.tree.find_all(exp.AggFunc)):
        raise Skip
    return sql, "GROUP BY left out"


def _tok_range_text(q: Q, a: int, b: int) -> str:
    return q.sql[q.toks[a].start : q.toks[b - 1].end + 1]


def k_agg_misuse(q: Q) -> tuple[str, str]:
    opts = []
    for i, t in enumerate(q.toks):
        if t.token_type == TokenType.HAVING:
            opts.append(("having", i))
    # WHERE x = (SELECT MAX(x) FROM t) -> WHERE x = MAX(x)
    for sub in q.tree.find_all(exp.Subquery):
        inner = sub.this
        if not isinstance(inner, exp.Select) or inner.args.get("group") or len(inner.expressions) != 1:
            continue
        agg = inner.expressions[0]
        agg = agg.this if isinstance(agg, exp.Alias) else agg
        if isinstance(agg, (exp.Max, exp.Min, exp.Avg)) and isinstance(sub.parent, (exp.EQ, exp.GT, exp.LT,
                                                                                      exp.GTE, exp.LTE)):
            opts.append(("subq", sub))
    cl = _clause_ranges(q)
    outer = q.tree if isinstance(q.tree, exp.Select) else None
    if outer is not None and outer.args.get("group") and not outer.args.get("having") and "order" in cl \
            and "limit" in cl and isinstance(outer.args.get("order"), exp.Order):
        key = outer.args["order"].expressions[0].this
        agg_text = None
        if isinstance(key, exp.AggFunc):
            agg_text = key.sql(dialect=q.d)
        elif isinstance(key, exp.Column) and not key.table:
            for e in outer.expressions:
                if isinstance(e, exp.Alias) and e.alias.lower() == key.name.lower() and isinstance(e.this, exp.AggFunc):
                    agg_text = e.this.sql(dialect=q.d)
        if agg_text:
            opts.append(("nested", agg_text))
    kind, what = q.choice(opts)
    if kind == "nested":
        s, e = cl["order"][0], cl["limit"][1]
        if q.rng.random() < 0.5:
            return _edit(q.sql, [(s, e, f"HAVING {what} = MAX({what})")]), "nested aggregate in HAVING"
        # the SELECT keeps the row with MAX(COUNT(...))
        return _edit(q.sql, [(s, e, f"HAVING {what} = (SELECT MAX({what}))")]), "nested aggregate in HAVING"
    if kind == "having":
        i = what
        d = q.depth[i]
        j = i + 1
        while j < len(q.toks) and not (q.depth[j] == d and q.toks[j].token_type in (
                TokenType.ORDER_BY, TokenType.LIMIT, TokenType.UNION)) and not q.depth[j] < d:
            j += 1
        cond = _tok_range_text(q, i + 1, j)
        # where is the WHERE of this select, or where would it go (before GROUP BY)
        k = i - 1
        where_at = group_at = None
        while k >= 0 and q.depth[k] >= d:
            if q.depth[k] == d and q.toks[k].token_type == TokenType.WHERE:
                where_at = k
            if q.depth[k] == d and q.toks[k].token_type == TokenType.GROUP_BY:
                group_at = k
            if q.depth[k] == d and q.toks[k].token_type == TokenType.SELECT:
                break
            k -= 1
        if group_at is None:
            raise Skip
        hstart = q.toks[i].start
        while hstart > 0 and q.sql[hstart - 1] in " \n":
            hstart -= 1
        edits = [(hstart, q.toks[j - 1].end + 1, "")]
        gstart = q.toks[group_at].start
        sep = q.sql[q.toks[group_at - 1].end + 1 : gstart]
        if where_at is not None:
            edits.append((q.toks[group_at - 1].end + 1, q.toks[group_at - 1].end + 1, f" AND {cond}"))
        else:
            edits.append((q.toks[group_at - 1].end + 1, q.toks[group_at - 1].end + 1, f"{sep}WHERE {cond}"))
        return _edit(q.sql, edits), "HAVING condition written in WHERE"
    sub = what
    inner = sub.this
    agg = inner.expressions[0]
    agg = agg.this if isinstance(agg, exp.Alias) else agg
    # the subquery's text span: from its '(' to the matching ')'
    starts = [c["span"][0] for c in q.cols if c["node"].find_ancestor(exp.Subquery) is sub]
    if not starts:
        raise Skip
    first = min(starts)
    lp = max(i for i, t in enumerate(q.toks) if t.start < first and t.token_type == TokenType.L_PAREN
             and q.toks[i + 1].token_type == TokenType.SELECT)  # fmt: skip
    d = q.depth[lp]
    rp = next(i for i in range(lp + 1, len(q.toks)) if q.toks[i].token_type == TokenType.R_PAREN and q.depth[i] == d)
    inner_sel = lp + 2
    fr = next(i for i in range(inner_sel, rp) if q.toks[i].token_type == TokenType.FROM and q.depth[i] == d + 1)
    agg_text = _tok_range_text(q, inner_sel, fr)
    agg_text = re.sub(r"\s+AS\s+\w+$", "", agg_text, flags=re.I)
    sql = _edit(q.sql, [(q.toks[lp].start, q.toks[rp].end + 1, agg_text)])
    return sql, "aggregate compared in WHERE without a subquery"


def _calls(q: Q) -> list[tuple[str, int, int, int]]:
    """(NAME, name token, '(' token, ')' token) of every function-call-like token sequence."""
    out = []
    for i in range(len(q.toks) - 1):
        if q.toks[i + 1].token_type != TokenType.L_PAREN:
            continue
        t = q.toks[i]
        if t.token_type in (TokenType.IDENTIFIER, TokenType.STRING, TokenType.R_PAREN, TokenType.COMMA,
                            TokenType.L_PAREN, TokenType.SELECT, TokenType.IN, TokenType.ALIAS, TokenType.USING):
            continue
        d = q.depth[i + 1]
        j = i + 2
        while j < len(q.toks) and not (q.toks[j].token_type == TokenType.R_PAREN and q.depth[j] == d):
            j += 1
        if j < len(q.toks):
            out.append((t.text.upper(), i, i + 1, j))
    return out


def _args(q: Q, lp: int, rp: int) -> list[str]:
    return [_tok_range_text(q, a, b) for a, b in _split_top(q, lp + 1, rp, {TokenType.COMMA})] if rp > lp + 1 else []


def k_dialect_bleed(q: Q) -> tuple[str, str]:
    opts: list[tuple[int, int, str, str]] = []
    pg = q.d != "sqlite"
    for name, ni, lp, rp in _calls(q):
        s, e = q.toks[ni].start, q.toks[rp].end + 1
        args = _args(q, lp, rp)
        if name == "EXTRACT" and len(args) == 1:
            m = re.match(r"(\w+)\s+FROM\s+(.*)$", args[0], flags=re.S | re.I)
            if m and m.group(1).upper() in ("YEAR", "MONTH", "DAY", "DOW", "HOUR"):
                unit, arg = m.group(1).upper(), m.group(2)
                f = {"DOW": "DAYOFWEEK"}.get(unit, unit)
                opts.append((s, e, f"{f}({arg})", f"MySQL {f}()"))
                if pg:
                    fmt = {"YEAR": "%Y", "MONTH": "%m", "DAY": "%d", "DOW": "%w", "HOUR": "%H"}[unit]
                    opts.append((s, e, f"strftime('{fmt}', {arg})", "SQLite strftime in PostgreSQL"))
        elif name == "DATE_TRUNC" and len(args) == 2:
            unit = args[0].strip("'\"").lower()
            fmt = {"month": "%Y-%m-01", "year": "%Y-01-01", "day": "%Y-%m-%d", "week": "%Y-%u"}.get(unit)
            if fmt:
                opts.append((s, e, f"DATE_FORMAT({args[1]}, '{fmt}')", "MySQL DATE_FORMAT"))
                opts.append((s, e, f"strftime('{fmt}', {args[1]})", "SQLite strftime in PostgreSQL"))
            if unit in ("month", "year"):
                opts.append((s, e, f"TRUNC({args[1]}, '{'MM' if unit == 'month' else 'YYYY'}')", "Oracle TRUNC"))
        elif name == "STRFTIME" and len(args) >= 2:
            fmt = args[0].strip("'")
            arg = args[1]
            if fmt == "%Y":
                opts.append((s, e, f"YEAR({arg})", "MySQL YEAR()"))
                opts.append((s, e, f"EXTRACT(YEAR FROM {arg})", "PostgreSQL EXTRACT in SQLite"))
            elif fmt == "%m":
                opts.append((s, e, f"MONTH({arg})", "MySQL MONTH()"))
                opts.append((s, e, f"EXTRACT(MONTH FROM {arg})", "PostgreSQL EXTRACT in SQLite"))
            elif fmt.startswith("%Y-%m"):
                opts.append((s, e, f"DATE_FORMAT({arg}, '{fmt}')", "MySQL DATE_FORMAT"))
                opts.append((s, e, f"TO_CHAR({arg}, 'YYYY-MM')" if fmt == "%Y-%m" else
                             f"DATE_TRUNC('month', {arg})", "PostgreSQL function in SQLite"))
        elif name in ("COALESCE", "IFNULL") and len(args) == 2:
            alt = q.rng.choice(("ISNULL", "NVL")) if not pg or q.rng.random() < 0.5 else "IFNULL"
            opts.append((q.toks[ni].start, q.toks[ni].end + 1, alt, f"{alt} for COALESCE"))
        elif name == "JULIANDAY":
            pass
        elif name == "DATE" and not pg and args and args[0].strip("'").lower() == "now":
            mods = [a.strip("'") for a in args[1:]]
            m = re.fullmatch(r"([-+]\d+) (day|days|month|months|year|years)", mods[0]) if len(mods) == 1 else None
            if m:
                n = abs(int(m.group(1)))
                unit = m.group(2).rstrip("s")
                opts.append((s, e, f"CURRENT_DATE - INTERVAL '{n} {unit}s'", "PostgreSQL INTERVAL in SQLite"))
                opts.append((s, e, f"DATE_SUB(CURDATE(), INTERVAL {n} {unit.upper()})", "MySQL DATE_SUB"))
            elif not mods:
                opts.append((s, e, q.rng.choice(("CURDATE()", "GETDATE()", "NOW()::date")), "foreign today()"))
        elif name in ("LOWER", "UPPER") and not pg:
            pass
        elif name == "LENGTH" and len(args) == 1:
            opts.append((q.toks[ni].start, q.toks[ni].end + 1, "LEN", "T-SQL LEN"))
    for i, t in enumerate(q.toks):
        tt = t.token_type
        if tt == TokenType.INTERVAL and pg and i + 1 < len(q.toks) and q.toks[i + 1].token_type == TokenType.STRING:
            m = re.fullmatch(r"\s*(\d+)\s+(day|days|month|months|year|years|week|weeks)\s*", q.toks[i + 1].text)
            if m and i >= 2 and q.toks[i - 1].token_type in (TokenType.DASH, TokenType.PLUS):
                n, unit = int(m.group(1)), m.group(2).rstrip("s").upper()
                base_tok = q.toks[i - 2]
                if base_tok.token_type in (TokenType.CURRENT_DATE, TokenType.CURRENT_TIMESTAMP) or \
                        base_tok.text.upper() == "NOW" or base_tok.token_type == TokenType.R_PAREN:
                    if base_tok.token_type == TokenType.R_PAREN:
                        continue
                    sign = "-" if q.toks[i - 1].token_type == TokenType.DASH else ""
                    if q.rng.random() < 0.5:
                        txt = f"DATE_SUB(CURDATE(), INTERVAL {n} {unit})" if sign else \
                            f"DATE_ADD(CURDATE(), INTERVAL {n} {unit})"
                        note = "MySQL DATE_SUB"
                    else:
                        txt = f"DATEADD({unit.lower()}, {sign}{n}, GETDATE())"
                        note = "T-SQL DATEADD"
                    opts.append((base_tok.start, q.toks[i + 1].end + 1, txt, note))
        elif tt == TokenType.DCOLON and i + 1 < len(q.toks):
            ty = q.toks[i + 1].text
            opts.append((t.start, q.toks[i + 1].end + 1, "", "drop"))  # placeholder, replaced below
            opts.pop()
            if ty.lower() in ("float", "numeric", "decimal", "real", "double"):
                opts.append((q.toks[i + 1].start, q.toks[i + 1].end + 1, "DOUBLE", "MySQL DOUBLE type"))
        elif tt == TokenType.LIKE and not pg and q.depth[i] >= 0:
            opts.append((t.start, t.end + 1, "ILIKE", "PostgreSQL ILIKE in SQLite"))
        elif tt == TokenType.ILIKE and pg:
            pass
    # LIMIT n -> SELECT TOP n (T-SQL)
    limits = [i for i, t in enumerate(q.toks) if t.token_type == TokenType.LIMIT and q.depth[i] == 0]
    if limits and q.toks[limits[0] + 1].token_type == TokenType.NUMBER and limits[0] + 2 == len(q.toks):
        i = limits[0]
        sel = q.outer_select_start()
        n = q.toks[i + 1].text
        after = sel + 1
        if q.toks[after].token_type == TokenType.DISTINCT:
            after += 1
        ls = q.toks[i].start
        while ls > 0 and q.sql[ls - 1] in " \n":
            ls -= 1
        opts.append(("TOP", (q.toks[sel].end + 1 if after == sel + 1 else q.toks[after - 1].end + 1), ls, n))  # type: ignore[arg-type]
    opts = [o for o in opts if o[3] != "drop"]
    pick = q.choice(opts)
    if pick[0] == "TOP":
        _, at, ls, n = pick  # type: ignore[misc]
        sql = _edit(q.sql, [(at, at, f" TOP {n}"), (ls, len(q.sql), "")])
        return sql, "T-SQL TOP instead of LIMIT"
    s, e, txt, note = pick
    return _edit(q.sql, [(s, e, txt)]), note


_TYPOS = {TokenType.SELECT: ("SELCT", "SEELCT", "SLECT"), TokenType.FROM: ("FORM", "FRMO", "FRM"),
          TokenType.WHERE: ("WHRE", "WEHRE", "WHER"), TokenType.GROUP_BY: ("GRUOP BY", "GROUP YB", "GROUPBY"),
          TokenType.ORDER_BY: ("ODER BY", "ORDER YB", "ORDERBY"), TokenType.JOIN: ("JION", "JOIN ON"),
          TokenType.HAVING: ("HAVIG",), TokenType.DISTINCT: ("DISTINT",)}  # fmt: skip


def k_keyword_typo(q: Q) -> tuple[str, str]:
    cands = [(i, t) for i, t in enumerate(q.toks) if t.token_type in _TYPOS]
    i, t = q.choice(cands)
    typo = q.rng.choice(_TYPOS[t.token_type])
    if typo == "JOIN ON" or typo == "ORDERBY" and False:
        typo = "JION"
    typo = typo if t.text.isupper() else typo.lower()
    return _edit(q.sql, [(t.start, t.end + 1, typo)]), f"{t.text} misspelt {typo}"


def _clause_ranges(q: Q) -> dict[str, tuple[int, int]]:
    """Top-level clauses of the outermost SELECT: name -> (start char, end char)."""
    keys = q.top_clause_tokens()
    out = {}
    for n, (name, i) in enumerate(keys):
        end_tok = keys[n + 1][1] if n + 1 < len(keys) else len(q.toks)
        out[name] = (q.toks[i].start, q.toks[end_tok - 1].end + 1)
    return out


def k_clause_order(q: Q) -> tuple[str, str]:
    cl = _clause_ranges(q)
    opts = []
    if "order" in cl and "group" in cl:
        opts.append(("order", "group", "ORDER BY before GROUP BY"))
    if "where" in cl and "group" in cl:
        opts.append(("where", "after_group", "WHERE after GROUP BY"))
    if "limit" in cl and "order" in cl:
        opts.append(("limit", "order", "LIMIT before ORDER BY"))
    if "having" in cl and "group" in cl:
        opts.append(("having", "group", "HAVING before GROUP BY"))
    if "order" in cl and "where" in cl and "group" not in cl:
        opts.append(("order", "where", "ORDER BY before WHERE"))
    move, before, note = q.choice(opts)
    s, e = cl[move]
    text = q.sql[s:e].rstrip()
    if before == "after_group":
        gs, ge = cl["group"]
        ge = len(q.sql[:ge].rstrip())
        sql = _edit(q.sql, [(s, e, ""), (ge, ge, " " + text)])
    else:
        bs = cl[before][0]
        sql = _edit(q.sql, [(s, e, ""), (bs, bs, text + ("\n" if "\n" in q.sql else " "))])
    sql = re.sub(r"[ \t]+\n", "\n", sql).rstrip()
    return sql, note


def k_paren_slip(q: Q) -> tuple[str, str]:
    rps = [i for i, t in enumerate(q.toks) if t.token_type == TokenType.R_PAREN]
    i = q.choice(rps)
    t = q.toks[i]
    if q.rng.random() < 0.7:
        sql = _edit(q.sql, [(t.start, t.end + 1, "")])
        return sql, "a closing parenthesis dropped"
    sql = _edit(q.sql, [(t.start, t.end + 1, "))")])
    return sql, "an extra closing parenthesis"


def k_alias_drift(q: Q) -> tuple[str, str]:
    cands = []
    declared = set()
    for sel in q.tree.find_all(exp.Select):
        declared |= set(q.tables_of(sel))
    for c in q.cols:
        if c["table"] is None or c["clause"] == "from":
            continue
        tname = c["table"].name
        if c["qual"] and c["qspan"]:
            q_low = c["qual"].lower()
            alts = []
            if q_low != tname.lower():
                alts += [tname]  # the table's name although it has an alias
                if len(q_low) <= 2:
                    alts.append(tname[: len(q_low) + 1].lower())  # c -> cu
            else:
                alts.append(tname[0].lower())  # restaurant.name -> r.name
            for a in alts:
                if a.lower() not in declared:
                    cands.append((c, a))
        elif not c["qual"] and c["clause"] in ("select", "where", "order", "group"):
            a = tname[0].lower() if not tname.lower().startswith("sb") else tname[2].lower()
            if a not in declared:
                cands.append((c, a))
    c, a = q.choice(cands)
    if c["qual"]:
        sql = _edit(q.sql, [(c["qspan"][0], c["qspan"][1], a)])
    else:
        sql = _edit(q.sql, [(c["span"][0], c["span"][0], a + ".")])
    return sql, f"{c['qual'] or ''}.{c['name']} qualified with undeclared {a}"


def k_scope_leak(q: Q) -> tuple[str, str]:
    cands = []
    nested = [s for s in q.tree.find_all(exp.Select) if s.find_ancestor(exp.Select) is not None
              or s.find_ancestor(exp.CTE) is not None]  # fmt: skip
    for inner in nested:
        for alias, tbl in q.tables_of(inner).items():
            if tbl is None:
                continue
            for c in q.cols:
                if c["sel"] is inner:
                    continue
                anc = c["node"].find_ancestor(exp.Select)
                inside = False
                while anc is not None:
                    if anc is inner:
                        inside = True
                        break
                    anc = anc.find_ancestor(exp.Select)
                if inside or c["clause"] == "from" or c["sel"] is inner:
                    continue
                if alias in q.tables_of(c["sel"]):
                    continue
                if tbl.column(c["name"]) is None:
                    continue
                cands.append((c, alias, inner))
    c, alias, inner = q.choice(cands)
    spelled = next((t.alias or t.name for t in inner.find_all(exp.Table) if (t.alias or t.name).lower() == alias),
                   alias)
    if c["qspan"]:
        sql = _edit(q.sql, [(c["qspan"][0], c["qspan"][1], spelled)])
    else:
        sql = _edit(q.sql, [(c["span"][0], c["span"][0], spelled + ".")])
    return sql, f"{c['name']} referenced through inner alias {spelled}"


_RESERVED = (("sale", "order"), ("order", "order"), ("transaction", "order"), ("payment", "order"),
             ("invoice", "order"), ("user", "user"), ("customer", "user"), ("categor", "group"), ("domain", "group"),
             ("genre", "group"), ("checkin", "check"), ("description", "desc"), ("treatment", "case"),
             ("flight", "from"), ("fare", "from"), ("airport", "to"), ("author", "user"), ("doctor", "user"),
             ("patient", "user"), ("course", "group"), ("student", "user"), ("program", "group"),
             ("review", "check"), ("merchant", "user"), ("ticker", "order"), ("notification", "check"),
             ("coupon", "offset"), ("snapshot", "window"))  # fmt: skip


def k_keyword_alias(q: Q) -> tuple[str, str]:
    kw_fail = {"order", "group", "from", "to", "desc", "check", "case", "window", "offset", "user"}
    if q.d == "sqlite":
        kw_fail -= {"user", "window", "to"}
    cands = []
    for t in q.table_nodes():
        tname = t.name.lower()
        kw = next((k for frag, k in _RESERVED if frag in tname), None)
        if kw is None or kw not in kw_fail:
            continue
        cands.append((t, kw))
    t, kw = q.choice(cands)
    edits = []
    alias = t.alias
    if alias:
        an = t.args["alias"].this
        if "start" not in an.meta:
            raise Skip
        edits.append((an.meta["start"], an.meta["end"] + 1, kw))
        for c in q.cols:
            if c["qual"] and c["qual"].lower() == alias.lower() and c["qspan"]:
                edits.append((c["qspan"][0], c["qspan"][1], kw))
    else:
        e = t.this.meta["end"] + 1
        edits.append((e, e, f" {kw}"))
        for c in q.cols:
            if c["qual"] and c["qual"].lower() == t.name.lower() and c["qspan"]:
                edits.append((c["qspan"][0], c["qspan"][1], kw))
    # if the same table appears twice with different aliases, only the chosen one was renamed
    if sum(1 for n in q.table_nodes() if n.name.lower() == t.name.lower()) > 1:
        raise Skip
    sql = _edit(q.sql, list(dict.fromkeys(edits)))
    return sql, f"{t.name} aliased as reserved word {kw}"


def k_truncated(q: Q) -> tuple[str, str]:
    if len(q.toks) < 8:
        raise Skip
    lo, hi = int(len(q.toks) * 0.45), int(len(q.toks) * 0.9)
    i = q.rng.randrange(max(lo, 2), max(hi, lo + 1, 3))
    t = q.toks[i]
    cut = t.end + 1
    if q.rng.random() < 0.4 and t.end - t.start >= 4 and t.token_type not in (TokenType.STRING,):
        cut = t.start + (t.end - t.start) // 2 + 1  # a sub-word token boundary
    body = q.sql[:cut]
    intro = q.rng.choice(("Here's the query:", "Sure, here is the SQL:", "", "To get this, we need to join the tables:"))
    tag = q.rng.choice(_TAGS_FOR.get(q.d, _TAGS_FOR["postgres"]))
    reply = (intro + "\n\n" if intro else "") + f"```{tag}\n{body}"
    return reply, f"cut after {len(body)} of {len(q.sql)} characters"


def k_prose_in_block(q: Q) -> tuple[str, str]:
    sql = q.sql
    r = q.rng.random()
    tabs = [t.name for t in q.query_tables()] or ["the table"]
    if r < 0.4:
        lines = sql.split("\n")
        if len(lines) < 2:
            lines = [sql]
        k = q.rng.randrange(len(lines))
        mark = q.rng.choice(("#", "//"))
        lines.insert(k, f"{mark} get the data from {tabs[0]}")
        body = "\n".join(lines)
        note = f"{mark} comment inside the SQL"
    else:
        expl = q.rng.choice((
            f"This query selects from {tabs[0]} and returns the requested columns.",
            f"Explanation:\n- We use {tabs[0]}" + (f" joined with {tabs[1]}" if len(tabs) > 1 else "") + ".",
            "Note: replace the values above if needed.",
            "The result is sorted as requested.",
        ))
        body = sql + ";\n\n" + expl if q.rng.random() < 0.7 else expl + "\n" + sql + ";"
        note = "explanation text inside the fence"
    return "Here is the SQL:\n\n" + f"```sql\n{body}\n```", note


def _a_damage(q: Q) -> tuple[str, str]:
    """Some family-A damage for a draft: tried in turn until one applies."""
    fns = [lambda: _rename_column(q, "synonym"), lambda: _rename_column(q, "id"), lambda: k_ambiguous(q),
           lambda: k_table_number(q), lambda: k_groupby_dropped(q)]
    q.rng.shuffle(fns)
    for fn in fns:
        try:
            return fn()
        except Skip:
            continue
    raise Skip


def k_draft_then_fix(q: Q) -> tuple[str, str]:
    bad, note = _a_damage(q)
    fix = q.rng.choice((
        "Wait, that's not right. Let me fix it:", "Oops, the query above has an error. Corrected version:",
        "Actually, on second thought the previous query would fail. Here's the fixed one:",
        "Correction:", "Hmm, let me double check the column names... The correct query is:",
    ))
    reply = f"Here's the query:\n\n```sql\n{bad}\n```\n\n{fix}\n\n```sql\n{q.sql}\n```"
    return reply, f"first block broken ({note}), second right"


def k_explore_first(q: Q) -> tuple[str, str]:
    lits = [c for c in q.cols if c["clause"] == "where" and c["table"] is not None and
            isinstance(c["node"].parent, (exp.EQ, exp.Like, exp.ILike, exp.In))]  # fmt: skip
    tabs = q.query_tables()
    if not tabs:
        raise Skip
    if lits and q.rng.random() < 0.7:
        c = q.choice(lits)
        t = c["table"]
        probe = f"SELECT DISTINCT {c['name']} FROM {t.qualified_name} LIMIT 20;"
        why = f"First, let's check what values `{c['name']}` takes:"
    else:
        t = q.choice(tabs)
        probe = f"SELECT * FROM {t.qualified_name} LIMIT 5;"
        why = f"Let me first look at the `{t.name}` table to understand the data:"
    then = q.rng.choice(("Now the actual query:", "Then, to answer the question:", "Final query:",
                         "Based on that, the answer is:"))
    reply = f"{why}\n\n```sql\n{probe}\n```\n\n{then}\n\n```sql\n{q.sql};\n```"
    return reply, "exploration query in the first block"


def k_numbered_steps(q: Q) -> tuple[str, str]:
    cl = _clause_ranges(q)
    frags = []
    if "from" in cl:
        s, e = cl["from"]
        if "where" in cl:
            e = cl["where"][0]
        frags.append(("Join / pick the tables", q.sql[s:e].strip()))
    if "where" in cl:
        frags.append(("Filter the rows", q.sql[cl["where"][0] : cl["where"][1]].strip()))
    if "group" in cl:
        frags.append(("Group the data", q.sql[cl["group"][0] : cl["group"][1]].strip()))
    if "order" in cl:
        frags.append(("Sort the result", q.sql[cl["order"][0] : cl["order"][1]].strip()))
    if not frags:
        raise Skip
    lines = ["Let's solve this step by step.", ""]
    for n, (title, frag) in enumerate(frags[:3], 1):
        lines += [f"{n}. **{title}**:", "```sql", frag, "```", ""]
    lines += [f"{min(len(frags), 3) + 1}. **Putting it all together**:", "```sql", q.sql + ";", "```"]
    return "\n".join(lines), "fragments in blocks before the full query"


def k_json_reply(q: Q) -> tuple[str, str]:
    obj = {"sql": q.sql + (";" if q.rng.random() < 0.5 else ""),
           "explanation": _explain(q) or "Returns the requested rows."}  # fmt: skip
    if q.rng.random() < 0.5:
        obj = {"query": obj["sql"], "explanation": obj["explanation"]}
    text = json.dumps(obj, indent=2 if q.rng.random() < 0.6 else None, ensure_ascii=False)
    if q.rng.random() < 0.6:
        return f"```json\n{text}\n```", "SQL inside a JSON object"
    return text, "SQL inside a bare JSON object"


def k_inline_sentence(q: Q) -> tuple[str, str]:
    flat = " ".join(q.sql.split())
    r = q.rng.random()
    if r < 0.4:
        reply = (f"You can get this with `{flat}` — it " + q.rng.choice(("returns one row per group.",
                 "gives you exactly the requested columns.", "should work on your database.")))  # fmt: skip
    elif r < 0.7:
        reply = f"Query: {flat};\n\nThis returns the requested data."
    else:
        reply = (f"To answer the question, run the following SQL:\n\n{q.sql};\n\n"
                 + (_explain(q) or "It returns the rows you asked for."))
    return reply, "SQL not fenced, prose around it"


_HING_LATIN = (
    ("Yeh query aapke sawaal ka jawab degi:", "Isme humne zaroori tables ko join kiya hai aur result nikala hai."),
    ("Theek hai, iske liye aap yeh SQL chala sakte ho:", "Agar koi column alag naam se hai toh bata dena."),
    ("Aapko yeh data chahiye toh neeche wali query use karo:", "Bas itna hi, run karke dekh lo!"),
    ("Chaliye, step by step dekhte hain. Final query yeh hai:", "Umeed hai isse aapka kaam ho jayega."),
)  # fmt: skip
_HING_DEVA = (
    ("यह query आपके सवाल का जवाब देगी:", "इसमें हमने ज़रूरी tables को join किया है।"),
    ("ठीक है, इसके लिए आप यह SQL चला सकते हैं:", "अगर कोई दिक्कत हो तो बताइए।"),
    ("नीचे दी गई query use करें:", "इससे आपको सही result मिल जाएगा।"),
)  # fmt: skip


def _hinglish_wrap(q: Q, sql: str, fence: bool | None = None) -> str:
    pool = _HING_DEVA if q.rng.random() < 0.4 else _HING_LATIN
    intro, outro = q.rng.choice(pool)
    r = q.rng.random() if fence is None else (0.9 if fence else 0.1)
    if r < 0.5:
        return f"{intro}\n\n{sql};\n\n{outro}"
    if r < 0.75:
        return f"{intro} {' '.join(sql.split())}\n\n{outro}"
    if r < 0.9:
        return f"{intro}\n\n~~~\n{sql}\n~~~\n\n{outro}"
    return f"{intro}\n\n```sql\n{sql}\n```\n\n{outro}"


def k_hinglish(q: Q) -> tuple[str, str]:
    return _hinglish_wrap(q, q.sql), "Hinglish prose, SQL unfenced or ~~~"


def k_clarify_first(q: Q) -> tuple[str, str]:
    tabs = [t.name for t in q.query_tables()] or ["the table"]
    ask = q.rng.choice((
        f"Just to clarify — do you want this for all rows in `{tabs[0]}`, or only a particular subset?",
        "Could you confirm whether duplicates should be counted? I'll assume yes for now.",
        "Do you want the results sorted in a specific way? Meanwhile, assuming the default:",
        f"Quick question: should rows with missing values in `{tabs[-1]}` be included? Assuming not:",
    ))
    if q.rng.random() < 0.6:
        reply = f"{ask}\n\nHere's the query under that assumption:\n\n{q.sql};\n\nLet me know and I can adjust it."
    else:
        reply = f"{ask}\n{q.sql};\nIf you meant something else, tell me and I'll change the query."
    return reply, "clarifying question, SQL unfenced"


def k_duo_column_prose(q: Q) -> tuple[str, str]:
    sql, note = _rename_column(q, q.rng.choice(("synonym", "id")))
    if q.rng.random() < 0.5:
        return _hinglish_wrap(q, sql), note + " + Hinglish prose"
    flat = " ".join(sql.split())
    return f"The query would be `{flat}`, which should give you the answer.", note + " + inline SQL"


# ----------------------------------------------------------------------------------------------------- family B


def _conjuncts(q: Q, kw: Any) -> list[tuple[int, int, int, int]]:
    """(keyword token, first, end exclusive, conjunct index) for conjuncts of every WHERE / ON."""
    out = []
    for i, t in enumerate(q.toks):
        if t.token_type != kw:
            continue
        d = q.depth[i]
        j = i + 1
        stops = {TokenType.GROUP_BY, TokenType.ORDER_BY, TokenType.HAVING, TokenType.LIMIT, TokenType.UNION,
                 TokenType.JOIN, TokenType.LEFT, TokenType.INNER, TokenType.RIGHT, TokenType.FULL, TokenType.CROSS,
                 TokenType.WHERE, TokenType.WINDOW}  # fmt: skip
        while j < len(q.toks) and not (q.depth[j] == d and q.toks[j].token_type in stops) and not q.depth[j] < d:
            j += 1
        parts = _split_top(q, i + 1, j, {TokenType.AND})
        for n, (a, b) in enumerate(parts):
            out.append((i, a, b, n))
        out.append((i, -1, j, len(parts)))  # sentinel: the whole clause ends at j
    return out


def _is_join_cond(q: Q, a: int, b: int) -> bool:
    """col = col between two different qualifiers."""
    toks = q.toks[a:b]
    eq = [k for k, t in enumerate(toks) if t.token_type == TokenType.EQ]
    if len(eq) != 1:
        return False
    left, right = toks[: eq[0]], toks[eq[0] + 1 :]
    def colish(ts: list[Any]) -> bool:
        return bool(ts) and all(t.token_type in (TokenType.VAR, TokenType.DOT, TokenType.IDENTIFIER) for t in ts)
    return colish(left) and colish(right)


def k_drop_filter(q: Q) -> tuple[str, str]:
    cands = []
    for kw in (TokenType.WHERE, TokenType.ON):
        rows = _conjuncts(q, kw)
        groups: dict[int, list[tuple[int, int, int, int]]] = {}
        for r in rows:
            groups.setdefault(r[0], []).append(r)
        for i, parts in groups.items():
            real = [p for p in parts if p[1] >= 0]
            end = [p for p in parts if p[1] < 0][0][2]
            for p in real:
                if _is_join_cond(q, p[1], p[2]):
                    continue
                text = _tok_range_text(q, p[1], p[2])
                if "SELECT" in text.upper() and kw == TokenType.WHERE and q.rng.random() < 0.5:
                    continue
                if kw == TokenType.ON and len(real) < 2:
                    continue
                cands.append((kw, i, p, real, end))
    kw, i, p, real, end = q.choice(cands)
    if len(real) == 1:  # the only WHERE condition: the clause goes
        s = q.toks[i].start
        while s > 0 and q.sql[s - 1] in " \n":
            s -= 1
        e = q.toks[end - 1].end + 1
        return _ordinary(q, _edit(q.sql, [(s, e, "")])), "the only WHERE condition left out"
    k = real.index(p)
    if k == 0:
        s, e = q.toks[p[1]].start, q.toks[real[1][1]].start
    else:
        prev = real[k - 1]
        s, e = q.toks[prev[2] - 1].end + 1, q.toks[p[2] - 1].end + 1
    return _ordinary(q, _edit(q.sql, [(s, e, "")])), f"condition {_tok_range_text(q, p[1], p[2])!r} left out"


_FLIP = {TokenType.GT: "<", TokenType.LT: ">", TokenType.GTE: "<=", TokenType.LTE: ">="}
_BOUND = {TokenType.GT: ">=", TokenType.LT: "<=", TokenType.GTE: ">", TokenType.LTE: "<"}


def k_compare_flip(q: Q) -> tuple[str, str]:
    cands = []
    for i, t in enumerate(q.toks):
        if t.token_type in _FLIP and i + 1 < len(q.toks):
            nxt = q.toks[i + 1].token_type
            if nxt == TokenType.NUMBER and q.rng.random() < 0.5:
                cands.append((i, _BOUND[t.token_type]))
            else:
                cands.append((i, _FLIP[t.token_type]))
    for i, t in enumerate(q.toks):
        if t.token_type == TokenType.IS and i + 1 < len(q.toks):
            if q.toks[i + 1].token_type == TokenType.NOT:
                cands.append((i, "IS"))  # IS NOT NULL -> IS NULL (NOT dropped below)
            elif q.toks[i + 1].token_type == TokenType.NULL:
                cands.append((i, "IS NOT"))
        elif t.token_type == TokenType.NOT and i + 1 < len(q.toks) and q.toks[i + 1].token_type in (
                TokenType.IN, TokenType.EXISTS):
            cands.append((i, ""))
    i, new = q.choice(cands)
    t = q.toks[i]
    end = t.end + 1
    if t.token_type == TokenType.IS and q.toks[i + 1].token_type == TokenType.NOT:
        end = q.toks[i + 1].end + 1
    if t.token_type == TokenType.NOT:
        while end < len(q.sql) and q.sql[end] == " ":
            end += 1
    return _ordinary(q, _edit(q.sql, [(t.start, end, new)])), f"{q.sql[t.start:end].strip()} written as {new or 'nothing'}"


def k_date_slip(q: Q) -> tuple[str, str]:
    opts = []
    for i, t in enumerate(q.toks):
        tt = t.token_type
        if tt == TokenType.STRING:
            m = re.fullmatch(r"(\d{4}-\d{2}-\d{2})[ T]23:59:59(\.\d+)?", t.text)
            if m:
                opts.append((t.start, t.end + 1, f"'{m.group(1)}'", "end of day dropped from the upper bound"))
            m = re.fullmatch(r"(\d{4})-(\d{2})-01", t.text)
            if m and i and q.toks[i - 1].token_type == TokenType.LT:
                y, mo = int(m.group(1)), int(m.group(2))
                py, pm = (y, mo - 1) if mo > 1 else (y - 1, 12)
                last = [31, 29 if py % 4 == 0 else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][pm - 1]
                opts.append((q.toks[i - 1].start, t.end + 1, f"<= '{py:04d}-{pm:02d}-{last:02d}'",
                             "exclusive month bound written as the last day, inclusive"))
            m = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})( 23:59:59)?", t.text)
            if m and m.group(3) not in ("01",) and i >= 1 and q.toks[i - 1].token_type in (TokenType.LTE, TokenType.AND):
                for _ in range(3):  # a strong slip: listed again to be picked more often
                    opts.append((t.start, t.end + 1, f"'{m.group(1)}-{m.group(2)}-01'",
                                 "end of the range written as the first of the month"))
        if tt == TokenType.CURRENT_DATE and q.d != "sqlite" and (
                (i + 1 < len(q.toks) and q.toks[i + 1].token_type in (TokenType.DASH, TokenType.PLUS)) or
                q.toks[i - 1].token_type in (TokenType.GTE, TokenType.GT, TokenType.LT, TokenType.LTE, TokenType.EQ)):
            opts.append((t.start, t.end + 1, q.rng.choice(("NOW()", "CURRENT_TIMESTAMP")), "CURRENT_DATE as NOW()"))
        if tt == TokenType.INTERVAL and i + 1 < len(q.toks) and q.toks[i + 1].token_type == TokenType.STRING:
            m = re.fullmatch(r"\s*(\d+)\s+(days?|months?|years?|weeks?)\s*", q.toks[i + 1].text, flags=re.I)
            if m:
                n, unit = int(m.group(1)), m.group(2).lower().rstrip("s")
                alt = {"day": f"'{n} month{'s' if n != 1 else ''}'" if n < 7 else (f"'{n // 30} month'" if n % 30 == 0
                       and n // 30 == 1 else f"'{n + 1} days'"),
                       "month": f"'{n * 30} days'", "year": f"'{n * 365} days'", "week": f"'{n} month'"}[unit]
                opts.append((q.toks[i + 1].start, q.toks[i + 1].end + 1, alt, "interval length slipped"))
        if tt == TokenType.STRING and q.d == "sqlite" and re.fullmatch(r"[-+]\d+ (days?|months?|years?)", t.text):
            n, unit = t.text.split(" ")
            alt = {"day": "month", "days": "months", "month": "year", "months": "years", "year": "month",
                   "years": "months"}[unit] if abs(int(n)) < 7 else unit
            new = f"{n} {alt}" if alt != unit else f"{int(n) + (1 if int(n) > 0 else -1)} {unit}"
            opts.append((t.start, t.end + 1, f"'{new}'", "date modifier slipped"))
        if tt == TokenType.STRING and t.text.lower() == "now" and q.d == "sqlite" and i >= 2 and \
                q.toks[i - 2].text.lower() == "date":
            opts.append((q.toks[i - 2].start, q.toks[i - 2].end + 1, "datetime", "date('now') as datetime('now')"))
    # EXTRACT(YEAR FROM x) = 2021  ->  x BETWEEN '2021-01-01' AND '2021-12-31'
    for name, ni, lp, rp in _calls(q):
        if rp + 2 < len(q.toks) and q.toks[rp + 1].token_type == TokenType.EQ and \
                q.toks[rp + 2].token_type in (TokenType.NUMBER, TokenType.STRING):
            year = q.toks[rp + 2].text
            if not re.fullmatch(r"\d{4}", year):
                continue
            args = _args(q, lp, rp)
            arg = None
            if name == "EXTRACT" and args and re.match(r"YEAR\s+FROM\s+", args[0], flags=re.I):
                arg = re.sub(r"^YEAR\s+FROM\s+", "", args[0], flags=re.I)
            elif name == "STRFTIME" and len(args) == 2 and args[0] == "'%Y'":
                arg = args[1]
            if arg:
                opts.append((q.toks[ni].start, q.toks[rp + 2].end + 1,
                             f"{arg} BETWEEN '{year}-01-01' AND '{year}-12-31'", "year as a BETWEEN of two dates"))
    s, e, txt, note = q.choice(opts)
    return _ordinary(q, _edit(q.sql, [(s, e, txt)])), note


def k_order_limit(q: Q) -> tuple[str, str]:
    cl = _clause_ranges(q)
    opts = []
    if "order" in cl:
        keys = q.top_clause_tokens()
        oi = next(i for n, i in keys if n == "order")
        d = q.depth[oi]
        j = oi + 1
        while j < len(q.toks) and not (q.depth[j] == d and q.toks[j].token_type in (TokenType.COMMA, TokenType.LIMIT,
                                                                                      TokenType.OFFSET)):
            j += 1
        last = j - 1
        while last > oi and q.toks[last].text.upper() in ("NULLS", "FIRST", "LAST"):
            last -= 1
        lt = q.toks[last]
        if "limit" in cl:
            if lt.token_type == TokenType.DESC:
                opts += [(lt.start, lt.end + 1, "ASC", "sort direction reversed")] * 2
                opts.append((lt.start - 1, lt.end + 1, "", "DESC forgotten"))
            elif lt.token_type == TokenType.ASC:
                opts.append((lt.start, lt.end + 1, "DESC", "sort direction reversed"))
            else:
                opts.append((lt.end + 1, lt.end + 1, " DESC", "sort direction reversed"))
            ls, le = cl["limit"]
            s = ls
            while s > 0 and q.sql[s - 1] in " \n":
                s -= 1
            opts.append((s, le, "", "LIMIT left out"))
        else:
            end = len(q.sql)
            opts.append((end, end, q.rng.choice((" LIMIT 10", " LIMIT 5", " LIMIT 1", "\nLIMIT 1", " LIMIT 3")),
                         "a LIMIT added out of habit"))
    elif "limit" in cl:
        ls, le = cl["limit"]
        s = ls
        while s > 0 and q.sql[s - 1] in " \n":
            s -= 1
        opts.append((s, le, "", "LIMIT left out"))
    s, e, txt, note = q.choice(opts)
    return _ordinary(q, _edit(q.sql, [(s, e, txt)])), note


def _matching_lparen(q: Q, rp: int) -> int:
    d = q.depth[rp]
    k = rp - 1
    while k >= 0 and not (q.toks[k].token_type == TokenType.L_PAREN and q.depth[k] == d):
        k -= 1
    return k


def _case_sensitive_comparison(q: Q, i: int) -> bool:
    """The string literal at token i is compared (=, <>, IN, LIKE) with a value not folded to one case."""
    k = i - 1
    while k >= 0 and q.toks[k].token_type in (TokenType.COMMA, TokenType.STRING):
        k -= 1  # inside an IN list
    op = q.toks[k].token_type if k >= 0 else None
    if op == TokenType.L_PAREN and k >= 1 and q.toks[k - 1].token_type == TokenType.IN:
        k -= 1
        op = TokenType.IN
    if op not in (TokenType.EQ, TokenType.NEQ, TokenType.IN, TokenType.LIKE):
        return False
    if op == TokenType.LIKE and q.d in ("sqlite", "mysql"):
        return False  # LIKE ignores ASCII case there
    if k >= 1 and q.toks[k - 1].token_type == TokenType.R_PAREN:
        lp = _matching_lparen(q, k - 1)
        if lp >= 1 and q.toks[lp - 1].text.upper() in ("LOWER", "UPPER"):
            return False
    if q.d == "mysql":
        return False
    return True


def k_literal_case(q: Q) -> tuple[str, str]:
    cands = []
    for i, t in enumerate(q.toks):
        if t.token_type != TokenType.STRING or not re.search(r"[A-Za-z]", t.text):
            continue
        if re.fullmatch(r"[-+]?\d.*|now|%[a-zA-Z%-]*|.*\d{4}-\d\d.*", t.text) or i == 0:
            continue
        if not _case_sensitive_comparison(q, i):
            continue
        txt = t.text
        core = txt.strip("%")
        if core.islower():
            new = core[:1].upper() + core[1:]
        elif core.isupper():
            new = core.lower() if len(core) <= 3 and q.rng.random() < 0.5 else core[:1] + core[1:].lower()
        else:
            new = core.lower()
        if new == core:
            continue
        new_txt = txt.replace(core, new, 1).replace("'", "''")
        cands.append((t, new_txt))
    t, new = q.choice(cands)
    return _ordinary(q, _edit(q.sql, [(t.start, t.end + 1, f"'{new}'")])), f"literal {t.text!r} as {new!r}"


def k_int_division(q: Q) -> tuple[str, str]:
    opts = []
    for i, t in enumerate(q.toks):
        tt = t.token_type
        if t.text.upper() == "CAST" and i + 1 < len(q.toks) and q.toks[i + 1].token_type == TokenType.L_PAREN:
            d = q.depth[i + 1]
            j = i + 2
            while j < len(q.toks) and not (q.toks[j].token_type == TokenType.R_PAREN and q.depth[j] == d):
                j += 1
            if j >= len(q.toks) or j + 1 >= len(q.toks):
                continue
            k = j - 1
            while k > i and not (q.toks[k].token_type == TokenType.ALIAS or q.toks[k].text.upper() == "AS"):
                k -= 1
            ty = " ".join(x.text.upper() for x in q.toks[k + 1 : j])
            if not any(w in ty for w in ("FLOAT", "REAL", "DOUBLE", "DECIMAL", "NUMERIC")):
                continue
            near = [x.token_type for x in q.toks[max(0, i - 2) : i] + q.toks[j + 1 : j + 3]]
            if TokenType.SLASH not in near:
                continue
            inner = _tok_range_text(q, i + 2, k)
            if q.toks[i + 2].token_type != TokenType.L_PAREN and len(_split_top(q, i + 2, k, {TokenType.PLUS, TokenType.DASH})) > 1:
                inner = f"({inner})"
            opts.append((t.start, q.toks[j].end + 1, inner, "float cast left out of the ratio"))
        elif tt == TokenType.DCOLON and i + 1 < len(q.toks) and q.toks[i + 1].text.lower() in (
                "float", "numeric", "decimal", "real", "double", "float8"):
            opts.append((t.start, q.toks[i + 1].end + 1, "", "::float left out of the ratio"))
        elif tt == TokenType.NUMBER and t.text in ("1.0", "100.0", "1.00") and i + 1 < len(q.toks) and \
                q.toks[i + 1].token_type == TokenType.STAR:
            new = "" if t.text.startswith("1.") else "100"
            e = q.toks[i + 1].end + 1
            while e < len(q.sql) and q.sql[e] == " ":
                e += 1
            opts.append((t.start, e if not new else t.end + 1, new, f"{t.text} * factor left out"))
        elif tt == TokenType.NUMBER and t.text in ("1.0", "100.0") and i >= 1 and q.toks[i - 1].token_type == TokenType.STAR:
            s = q.toks[i - 1].start
            while s > 0 and q.sql[s - 1] == " ":
                s -= 1
            opts.append((s if t.text == "1.0" else t.start, t.end + 1, "" if t.text == "1.0" else "100",
                         f"* {t.text} factor left out"))
    s, e, txt, note = q.choice(opts)
    return _ordinary(q, _edit(q.sql, [(s, e, txt)])), note


def k_distinct_slip(q: Q) -> tuple[str, str]:
    opts = []
    joined = any(t.token_type == TokenType.JOIN for t in q.toks) or len(q.table_nodes()) > 1
    keys = {k.lower() for t in q.query_tables() for k in t.primary_key} | {"id"}
    for i, t in enumerate(q.toks):
        if t.token_type == TokenType.DISTINCT:
            nxt = q.toks[i + 1] if i + 1 < len(q.toks) else None
            after = q.toks[i + 2] if i + 2 < len(q.toks) else None
            if not joined and nxt is not None and (nxt.text.lower() in keys or
                                                   (after is not None and after.token_type == TokenType.DOT and
                                                    i + 3 < len(q.toks) and q.toks[i + 3].text.lower() in keys)):
                continue  # DISTINCT on a key of the only table: dropping it changes nothing
            e = t.end + 1
            while e < len(q.sql) and q.sql[e] in " \n":
                e += 1
            opts.append((t.start, e, "", "DISTINCT left out"))
    if not opts:
        keys = {k.lower() for t in q.query_tables() for k in t.primary_key} | {"id"}
        for c in q.cols:
            par = c["node"].parent
            if isinstance(par, exp.Count) and c["name"].lower() not in keys and not isinstance(par.this, exp.Distinct):
                # COUNT(col) -> COUNT(DISTINCT col) on a column that repeats (a foreign key, a category)
                at = c["qspan"][0] if c["qspan"] else c["span"][0]
                opts.append((at, at, "DISTINCT ", "COUNT(DISTINCT) instead of COUNT"))
    s, e, txt, note = q.choice(opts)
    return _ordinary(q, _edit(q.sql, [(s, e, txt)])), note


_AGG_SWAP = {"AVG": ("SUM",), "SUM": ("AVG", "COUNT"), "MAX": ("MIN",), "MIN": ("MAX",), "COUNT": ("SUM",)}


def k_wrong_agg(q: Q) -> tuple[str, str]:
    opts = []
    for name, ni, lp, rp in _calls(q):
        if name not in _AGG_SWAP:
            continue
        t = q.toks[ni]
        inner = q.toks[lp + 1 : rp]
        if name == "COUNT":
            if inner and inner[0].token_type == TokenType.DISTINCT:
                continue
            if len(inner) == 1 and inner[0].token_type == TokenType.STAR:
                continue
            # COUNT(col) -> COUNT(*): counts the unmatched rows of an outer join
            if any(t.token_type == TokenType.LEFT for t in q.toks):
                opts += [(q.toks[lp].end + 1, q.toks[rp].start, "*", "COUNT(col) as COUNT(*)")] * 2
            continue
        if inner and inner[0].token_type == TokenType.DISTINCT:
            continue
        new = q.rng.choice(_AGG_SWAP[name])
        if name in ("MAX", "MIN") and q.rng.random() < 0.5:
            continue  # swapped less often: on one-row groups it changes nothing
        opts.append((t.start, t.end + 1, new if t.text.isupper() else new.lower(), f"{name} written as {new}"))
    s, e, txt, note = q.choice(opts)
    return _ordinary(q, _edit(q.sql, [(s, e, txt)])), note


def k_join_key(q: Q) -> tuple[str, str]:
    cands = []
    for c in q.cols:
        if c["clause"] != "join" or c["table"] is None or not c["qual"] or not isinstance(c["node"].parent, exp.EQ):
            continue
        eq = c["node"].parent
        other = eq.expression if eq.this is c["node"] else eq.this
        if not isinstance(other, exp.Column):
            continue
        tbl = c["table"]
        me = c["name"]
        alts = []
        if other.name.lower() != me.lower() and tbl.column(other.name) is not None:
            alts.append(tbl.column(other.name).name)  # a.x = b.y  ->  a.y = b.y
        if me.lower().endswith("id"):
            alts += [col.name for col in tbl.columns if col.name.lower().endswith("id") and col.name.lower() != me.lower()
                     and col.name.lower() != other.name.lower()]  # fmt: skip
        for a in alts:
            cands.append((c, a))
    c, a = q.choice(cands)
    return _ordinary(q, _edit(q.sql, [(c["span"][0], c["span"][1], a)])), f"join on {c['qual']}.{a} instead of {c['name']}"


def _children(q: Q, tbl: Any) -> list[tuple[Any, str, str]]:
    """(child table, child column, parent column) pairs: declared keys, else by naming."""
    out = []
    for t in q.schema.tables:
        for fk in t.foreign_keys:
            ref = q.schema.table(fk.ref_table)
            if ref is not None and ref.qualified_name == tbl.qualified_name and len(fk.columns) == 1:
                out.append((t, fk.columns[0], fk.ref_columns[0]))
    if out:
        return out
    pk = tbl.primary_key[0] if len(tbl.primary_key) == 1 else None
    stem = _singular(tbl.name.lower())
    for t in q.schema.tables:
        if t.qualified_name == tbl.qualified_name:
            continue
        for col in t.columns:
            low = col.name.lower()
            if pk and pk.lower() != "id" and low == pk.lower():
                out.append((t, col.name, pk))
            elif low in (f"{stem}_id", f"{stem}id") and tbl.column("id") is not None:
                out.append((t, col.name, tbl.column("id").name))
            elif pk is None and low in (f"{stem}_id",) and tbl.column(low) is not None:
                out.append((t, col.name, tbl.column(low).name))
    return out


def k_child_join(q: Q) -> tuple[str, str]:
    if q.tree.find(exp.Star) is not None and not any(isinstance(s.parent, exp.Count) for s in q.tree.find_all(exp.Star)):
        raise Skip
    outer_sel = q.tree if isinstance(q.tree, exp.Select) else None
    if outer_sel is None:
        raise Skip
    aggs = [a for a in outer_sel.find_all(exp.Count, exp.Sum, exp.Avg) if not isinstance(a.this, exp.Distinct)]
    if not aggs or outer_sel.args.get("distinct"):
        raise Skip
    cands = []
    used = {t.name.lower() for t in q.table_nodes()}
    unq = {c["name"].lower() for c in q.cols if not c["qual"]}
    for tnode in outer_sel.find_all(exp.Table):
        if tnode.find_ancestor(exp.Select) is not outer_sel or "start" not in tnode.this.meta:
            continue
        tbl = q.schema.table(q._full(tnode))
        if tbl is None:
            continue
        for child, ccol, pcol in _children(q, tbl):
            if child.name.lower() in used:
                continue
            if unq & {c.name.lower() for c in child.columns}:
                continue  # an unqualified column would become ambiguous: the query would fail, not mislead
            cands.append((tnode, tbl, child, ccol, pcol))
    tnode, tbl, child, ccol, pcol = q.choice(cands)
    alias_node = tnode.args.get("alias")
    if alias_node is not None and "start" in alias_node.this.meta:
        at = alias_node.this.meta["end"] + 1
    else:
        at = tnode.this.meta["end"] + 1
    ref = tnode.alias or tnode.name
    ca = child.name[:2].lower()
    taken = {a.lower() for s in q.tree.find_all(exp.Select) for a in q.tables_of(s)}
    while ca in taken:
        ca += "x"
    sep = "\n" if "\n" in q.sql else " "
    join = f"{sep}JOIN {child.qualified_name} {ca} ON {ca}.{ccol} = {ref}.{pcol}"
    return _ordinary(q, _edit(q.sql, [(at, at, join)])), f"needless join to {child.name}"


def k_clean(q: Q) -> tuple[str, str]:
    return _ordinary(q, q.sql), "gold query"


_KINDS = {
    "clean": k_clean,
    "col_synonym": _laid_out(k_col("synonym")), "col_id_suffix": _laid_out(k_col("id")),
    "col_case_style": _laid_out(k_col("case")), "col_wrong_table": _laid_out(k_col_wrong_table),
    "ambiguous_column": _laid_out(k_ambiguous), "table_number": _laid_out(k_table_number),
    "groupby_dropped": _laid_out(k_groupby_dropped), "agg_misuse": _laid_out(k_agg_misuse),
    "dialect_bleed": _laid_out(k_dialect_bleed), "keyword_typo": _laid_out(k_keyword_typo),
    "clause_order": _laid_out(k_clause_order), "paren_slip": _laid_out(k_paren_slip),
    "alias_drift": _laid_out(k_alias_drift), "scope_leak": _laid_out(k_scope_leak),
    "keyword_alias": _laid_out(k_keyword_alias),
    "truncated": k_truncated, "prose_in_block": k_prose_in_block, "draft_then_fix": k_draft_then_fix,
    "explore_first": k_explore_first, "numbered_steps": k_numbered_steps, "json_reply": k_json_reply,
    "inline_sentence": k_inline_sentence, "hinglish": k_hinglish, "clarify_first": k_clarify_first,
    "duo_column_prose": k_duo_column_prose,
    "join_key": k_join_key, "child_join": k_child_join, "wrong_agg": k_wrong_agg, "drop_filter": k_drop_filter,
    "compare_flip": k_compare_flip, "date_slip": k_date_slip, "order_limit": k_order_limit,
    "literal_case": k_literal_case, "int_division": k_int_division, "distinct_slip": k_distinct_slip,
}  # fmt: skip
assert set(_KINDS) == set(DAMAGE_KINDS)


def damage(gold_sql: str, schema: Any, kind: str, seed: int) -> Damaged | None:
    """A damaged reply of ``kind`` for ``gold_sql``, or None when the kind does not apply. Never raises."""
    try:
        fn = _KINDS.get(kind)
        if fn is None:
            return None
        rng = random.Random(f"fresh10|{kind}|{seed}|{gold_sql}")
        q = Q(gold_sql, schema, rng)
        reply, note = fn(q)
        if not reply or not reply.strip():
            return None
        return Damaged(kind, reply, note)
    except Exception:  # noqa: BLE001 - a kind that does not fit, or a query sqlglot cannot read: skip
        return None
