"""Held-out damage generator no. 3 ("fresh2"): replies a small local model might give instead of the gold SQL.

Written without reading the repair code or the earlier generators, from published analyses of LLM-written SQL:

* DIN-SQL (Pourreza & Rafiei 2023) error study on Spider: schema linking is the largest class (wrong or invented
  column / table names, a column taken from the wrong table), then JOIN errors (missing or superfluous tables),
  GROUP BY errors (missing clause, grouping by the wrong column), nested-query / set errors, invalid SQL.
* MAC-SQL (Wang et al. 2024) and the BIRD paper (Li et al. 2023): "dirty" values and dialect slips, missing CAST in
  ratios (integer division in SQLite), misuse of aggregates (aggregate in WHERE, bare columns), wrong DISTINCT.
* Work on SQL hallucination / self-correction (e.g. "SQL-CRAFT", "Before Generation, Align it" / TA-SQL, the
  DAIL-SQL and CodeS error tables, the SQL-PaLM ablations): hallucinated names that follow the *model's* naming
  conventions instead of the schema's (snake vs camel, id/_id/_no/_num suffixes, plural tables, abbreviation
  expansion such as cust -> customer), functions and LIMIT syntax from another dialect (MySQL / T-SQL / Oracle
  habits leak into SQLite and PostgreSQL), output wrapped in prose or several code blocks.
* Own observation of 7B coder models (qwen2.5-coder, deepseek-coder, codellama): ```sqlite / ```postgresql fence tags,
  "SQLQuery:" LangChain-style prefixes, "Let's think step by step" numbered plans, an exploratory query before the
  answer, echoing the schema as CREATE TABLE, initial-letter aliases that happen to be keywords (airport_service ->
  ``as``, inventory_snapshots -> ``is``), British/American spelling slips (neighbourhood).

Family A ("meaning kept": the database rejects the reply, or the intended query is recoverable from reply + schema):

  clean               the gold itself.
  prose_wrapped       the SQL inside varied prose: preambles, numbered plans, trailing explanations, LangChain
                      "SQLQuery:" lines, fence tags of other dialects, unfenced SQL followed by an explanation.
  two_blocks          two code blocks: an exploratory/draft/schema-echo block before the answer, or the answer
                      followed by example output or a MySQL variant.
  column_name         one column misnamed: convention (camel/snake, id/_id/_no/_num, plural, table prefix added or
                      dropped, abbreviation expanded/contracted) or a synonym guessed from the question wording.
  table_name          one table misnamed: plural/singular, tbl_ prefix, camel/snake, synonym, schema prefix dropped.
  reserved_word       an unquoted keyword as identifier: a column guessed as ``desc``/``from``/``to``/``limit``,
                      a table alias from initials that is a keyword, an output alias such as ``AS order``.
  quoting_slip        MySQL / T-SQL quoting: backticks, [brackets], "strings", 'alias', dbo. prefixes, `t.col`,
                      typographic quotes, quoted mixed-case names on PostgreSQL.
  foreign_limit       TOP n, TOP (n), FETCH FIRST, OFFSET .. FETCH NEXT, LIMIT a, b (PostgreSQL), Oracle ROWNUM.
  foreign_function    date/string/null functions of another dialect: YEAR(), DATEPART, DATEDIFF, GETDATE(),
                      CURDATE(), DATE_FORMAT, strftime on PostgreSQL, ISNULL/NVL/IFNULL, LEN, CONCAT or + for ||.
  foreign_operator    operators/casts of another dialect: ILIKE or ``::`` on SQLite, ``==``, REGEXP, CONVERT(),
                      CAST AS FLOAT64/NUMBER, IF(), boolean compared with 1/0 on PostgreSQL.
  missing_group_by    aggregate with bare columns: GROUP BY dropped, or one selected key left out of it.
  aggregate_in_where  HAVING condition moved into WHERE; ``= (SELECT MAX(x) FROM t)`` written as ``= MAX(x)``.
  alias_misuse        the table name used after aliasing it, a column qualified with the other table's alias, an
                      output alias used in WHERE/HAVING (before it is defined in evaluation order).
  ambiguous_column    a column present in two joined tables left unqualified.

Family B ("silent_*": runs without error, different rows):

  silent_extra_join       an INNER JOIN to a related table that adds no selected column (multiplies or drops rows).
  silent_group_by_label   the key dropped from GROUP BY, so rows with equal labels (names) merge.
  silent_integer_division the CAST / ``* 1.0`` that made a ratio fractional left out (integer division).
  silent_missing_distinct DISTINCT dropped from SELECT DISTINCT or COUNT(DISTINCT ...).
  silent_count_nulls       COUNT(col) written COUNT(*): counts NULLs and the unmatched rows of a LEFT JOIN.

Kinds in TREE_KINDS re-render the gold through sqlglot; the others edit the gold's text at positions sqlglot
reports (identifiers, tokens), so the rest of the gold's formatting is kept.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.optimizer.scope import traverse_scope
from sqlglot.tokens import TokenType

__all__ = ["DAMAGE_KINDS", "TREE_KINDS", "Damaged", "damage"]


@dataclass(frozen=True)
class Damaged:
    kind: str
    reply: str  # the full text the fake model answers (may include prose, markdown fences)
    note: str  # one line: what was damaged


DAMAGE_KINDS: tuple[str, ...] = (
    "clean", "prose_wrapped", "two_blocks", "column_name", "table_name", "reserved_word", "quoting_slip",
    "foreign_limit", "foreign_function", "foreign_operator", "missing_group_by", "aggregate_in_where",
    "alias_misuse", "ambiguous_column",
    "silent_extra_join", "silent_group_by_label", "silent_integer_division", "silent_missing_distinct",
    "silent_count_nulls",
)  # fmt: skip
TREE_KINDS: tuple[str, ...] = (
    "foreign_function", "foreign_operator", "missing_group_by", "aggregate_in_where",
    "silent_extra_join", "silent_group_by_label", "silent_integer_division", "silent_missing_distinct",
    "silent_count_nulls",
)  # fmt: skip

# ---------------------------------------------------------------------------------------------------- keywords
# Measured on SQLite 3.40 and PostgreSQL 16: words that make ``FROM t AS w`` / ``SELECT x AS w`` / ``SELECT x w`` fail.
_W = str.split
_TABLE_ALIAS_FAILS = {
    "sqlite": set(_W("all and as between case cast check collate constraint create current_date default distinct "
                     "else except foreign from group having in index is join limit not null on or order primary "
                     "references select table then to union unique using values when where")),
    "postgres": set(_W("all and any array as asc both case cast check collate column constraint create current_date "
                       "current_user default desc distinct do else end except false fetch for foreign from grant "
                       "group having in inner is join left like limit natural not null offset on only or order "
                       "outer primary references right select session_user some table then to true union unique "
                       "user using when where window with")),
}  # fmt: skip
_OUTPUT_ALIAS_FAILS = {  # sqlite: with AS; postgres: without AS (PostgreSQL accepts any keyword after AS)
    "sqlite": set(_W("all and as between case check collate constraint create default distinct else except foreign "
                     "from group having in index is join limit not null on or order primary references select "
                     "table then to union unique using values when where")),
    "postgres": set(_W("array as create except fetch for from grant group having limit offset on order to union "
                       "where window with")),
}  # fmt: skip
# A name part a model turns into a bare keyword when it guesses a column (from_airport -> from, description -> desc).
_KEYWORD_OF_WORD = {
    "from": "from", "to": "to", "order": "order", "orders": "order", "group": "group", "groups": "group",
    "limit": "limit", "index": "index", "check": "check", "checkin": "check", "checkins": "check", "case": "case",
    "default": "default", "reference": "references", "references": "references", "table": "table",
    "offset": "offset", "window": "window", "primary": "primary", "unique": "unique", "values": "values",
    "user": "user", "users": "user", "end": "end", "desc": "desc", "description": "desc", "like": "like",
    "likes": "like", "between": "between", "distinct": "distinct", "only": "only", "left": "left",
    "right": "right", "cast": "cast", "column": "column", "grant": "grant", "fetch": "fetch", "when": "when",
}  # fmt: skip
_UNSAFE_BARE = {"user", "current_user", "session_user", "current_date", "true", "false", "null"}

# --------------------------------------------------------------------------------------------- name distortion
_ABBREV = {
    "customer": ["cust"], "transaction": ["txn", "tx", "trans"], "amount": ["amt"], "quantity": ["qty"],
    "number": ["num", "no", "nbr"], "description": ["desc", "descr"], "address": ["addr"], "date": ["dt"],
    "timestamp": ["ts"], "department": ["dept"], "employee": ["emp"], "manager": ["mgr"],
    "organization": ["org"], "reference": ["ref"], "minimum": ["min"], "maximum": ["max"], "average": ["avg"],
    "count": ["cnt"], "message": ["msg"], "percent": ["pct"], "category": ["cat"], "information": ["info"],
    "payment": ["pmt"], "publication": ["pub"], "professor": ["prof"], "instructor": ["instr"],
    "product": ["prod"], "account": ["acct"], "balance": ["bal"], "latitude": ["lat"], "longitude": ["lng", "lon"],
    "conference": ["conf"], "keyword": ["kw"], "sequence": ["seq"], "service": ["svc"], "distance": ["dist"],
    "identifier": ["id"], "citation": ["cite"], "year": ["yr"], "month": ["mon"], "telephone": ["tel"],
    "business": ["biz"], "received": ["rcvd"], "symbol": ["sym"],
    "treatment": ["tx", "trt"], "diagnosis": ["dx"], "patient": ["pt"], "doctor": ["dr", "doc"],
    "created": ["crtd"], "status": ["stat"], "student": ["stu"], "course": ["crs"], "semester": ["sem"],
}  # fmt: skip
_EXPAND = {short: full for full, shorts in _ABBREV.items() for short in shorts if short not in ("id", "no", "to")}
_SYNONYMS = {
    "name": ["title", "label"], "title": ["name", "heading"], "amount": ["total", "value", "sum"],
    "total": ["amount", "sum"], "price": ["cost", "amount"], "cost": ["price", "amount", "fare"],
    "date": ["day", "time"], "time": ["date", "hour"], "rating": ["score", "stars"], "score": ["rating", "points"],
    "email": ["mail", "email_address"], "phone": ["telephone", "mobile", "phone_number"],
    "state": ["province", "region"], "country": ["nation", "country_code"], "city": ["town", "city_name"],
    "status": ["state", "condition"], "type": ["kind", "category"], "category": ["type", "genre", "kind"],
    "description": ["details", "summary"], "text": ["content", "body"], "message": ["content", "body"],
    "balance": ["funds", "amount"], "quantity": ["amount", "units"], "count": ["total", "number"],
    "created": ["creation", "inserted", "added"], "updated": ["modified", "changed"], "first": ["given"],
    "last": ["family", "sur"], "username": ["login", "handle", "user_name"], "customer": ["client", "buyer"],
    "salesperson": ["seller", "agent", "rep"], "vendor": ["supplier", "payee"], "make": ["brand", "manufacturer"],
    "manufacturer": ["maker", "brand"], "color": ["colour"], "colour": ["color"],
    "neighbourhood": ["neighborhood"], "neighborhood": ["neighbourhood"], "organisation": ["organization"],
    "organization": ["organisation", "institution"], "sale": ["purchase", "order"], "payment": ["transaction"],
    "method": ["type", "mode"], "start": ["begin", "from"], "end": ["finish", "stop"], "begin": ["start"],
    "departure": ["depart", "takeoff"], "arrival": ["arrive", "landing"], "airline": ["carrier"],
    "fare": ["price", "ticket"], "meal": ["food"], "food": ["cuisine", "dish"], "cuisine": ["food"],
    "street": ["road"], "region": ["area", "zone"], "county": ["district"], "homepage": ["website", "url"],
    "continent": ["region"], "abstract": ["summary"], "citation": ["cite", "reference"],
    "reference": ["citation", "ref"], "keyword": ["tag", "term"], "journal": ["venue"], "conference": ["venue"],
    "domain": ["field", "area"], "author": ["writer", "researcher"], "publication": ["paper", "article"],
    "likes": ["votes", "upvotes"], "review": ["feedback"], "business": ["company", "store"],
    "user": ["member", "account"], "tip": ["comment"], "day": ["weekday"], "merchant": ["store", "seller"],
    "coupon": ["voucher", "promo"], "notification": ["alert"], "session": ["visit"], "sender": ["payer"],
    "receiver": ["payee", "recipient"], "snapshot": ["record"], "inventory": ["stock"], "engine": ["motor"],
    "track": ["song"], "album": ["record"], "artist": ["performer", "band"], "genre": ["style"],
    "invoice": ["bill"], "employee": ["staff", "worker"], "milliseconds": ["duration", "length"],
    "bytes": ["size"], "composer": ["writer"], "hire": ["start", "employment"], "termination": ["end", "exit"],
    "doctor": ["physician"], "patient": ["client"], "drug": ["medication", "medicine"],
    "treatment": ["therapy"], "diagnosis": ["condition"], "ticker": ["stock", "symbol"], "price": ["cost"],
    "close": ["closing"], "open": ["opening"], "high": ["max"], "low": ["min"], "course": ["class", "subject"],
    "student": ["learner"], "instructor": ["teacher", "professor"], "semester": ["term"],
    "population": ["inhabitants"], "area": ["size"], "capital": ["capital_city"], "river": ["waterway"],
    "mountain": ["peak"], "lake": ["water"], "length": ["size"], "capacity": ["seats"],
    "payload": ["cargo"], "speed": ["velocity"], "paper": ["publication", "article"], "venue": ["conference"],
}  # fmt: skip
_WHOLE_SYNONYMS = {
    "created_at": ["created_date", "creation_date", "date_created", "created_on"],
    "updated_at": ["modified_at", "last_updated", "updated_on"], "crtd_ts": ["created_at", "created_ts"],
    "first_name": ["fname", "given_name", "firstname"], "last_name": ["lname", "surname", "lastname"],
    "pay_load": ["payload"], "zip_code": ["zipcode", "postal_code"], "postal_code": ["zip_code", "zip"],
    "vin_number": ["vin"], "is_open": ["open", "is_active"], "phone_number": ["phone", "mobile"],
    "username": ["user_name", "login"], "milliseconds": ["duration_ms", "length_ms"],
    "birth_date": ["dob", "date_of_birth"], "hire_date": ["hired_on", "start_date"], "name": ["full_name", "title"],
}  # fmt: skip
_TABLE_SYNONYMS = {
    "writes": ["authorship", "author_publication", "paper_author"], "publication": ["paper", "papers"],
    "author": ["researcher"], "domain": ["field", "research_area"], "conference": ["venue"],
    "cite": ["citation", "citations"], "organization": ["organisation", "institution"], "keyword": ["tag"],
    "business": ["company", "businesses"], "review": ["rating", "ratings"], "checkin": ["check_in", "visits"],
    "neighbourhood": ["neighborhood"], "tip": ["tips"], "users": ["user_accounts", "accounts"],
    "flight": ["flights"], "airline": ["carrier", "carriers"], "fare": ["fares", "ticket_price"],
    "aircraft": ["airplane", "plane"], "food_service": ["meal_service", "meals"], "location": ["address"],
    "geographic": ["geography", "geo"], "salespersons": ["salespeople", "sales_reps", "employees"],
    "payments_received": ["payments", "received_payments"], "inventory_snapshots": ["inventory"],
    "wallet_transactions_daily": ["wallet_transactions", "transactions"], "merchants": ["vendors", "stores"],
    "coupons": ["promotions", "vouchers"], "user_sessions": ["sessions"], "notifications": ["alerts"],
    "track": ["song", "songs"], "invoice_line": ["invoice_item", "line_items"], "employee": ["staff"],
    "media_type": ["mediatype", "format"], "customer": ["client", "clients"], "artist": ["band"],
    "sales": ["orders", "transactions"], "cars": ["vehicles", "car_inventory"], "customers": ["clients"],
}  # fmt: skip

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _words(name: str) -> tuple[list[str], str]:
    """Split an identifier into lower-case words and remember its style (snake, camel, pascal, single)."""
    if "_" in name.strip("_"):
        return [w.lower() for w in name.split("_") if w], "snake"
    parts = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", name)
    if len(parts) > 1 and name != name.lower():
        return [p.lower() for p in parts], "pascal" if name[0].isupper() else "camel"
    return [name.lower()], "single"


def _join(words: list[str], style: str) -> str:
    if style in ("camel", "pascal"):
        head = words[0].capitalize() if style == "pascal" else words[0]
        return head + "".join(w.capitalize() for w in words[1:])
    return "_".join(words)


def _singular(w: str) -> str:
    if w.endswith("people"):
        return w[:-6] + "person"
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if re.search(r"(ss|x|ch|sh|ses)es$", w):
        return w[:-2]
    if w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) > 3:
        return w[:-1]
    return w


def _plural(w: str) -> str:
    if w.endswith("person"):
        return w[:-6] + "people"
    if re.search(r"[^aeiou]y$", w):
        return w[:-1] + "ies"
    if w.endswith(("s", "x", "ch", "sh")):
        return w + "es"
    return w + "s"


def _flip_number(w: str) -> str:
    s = _singular(w)
    return _plural(w) if s == w else s


def _convention_names(col: str, table: str) -> list[str]:
    """Same words, another naming convention: what a model writes when it guesses the schema's style wrong."""
    words, style = _words(col)
    twords, _ = _words(table)
    tsing = _singular(twords[-1])
    out: list[str] = []
    if len(words) > 1:
        out += [_join(words, "snake" if style != "snake" else "camel"), "".join(words)]
    if style in ("camel", "pascal") and len(words) > 2 and len(words[0]) <= 3:  # vendor prefix: sbCustName
        out += [_join(words[1:], style), _join(words[1:], "snake")]
    last = words[-1]
    swaps = {"id": ["no", "num", "key", "code"], "no": ["id", "num", "number"], "num": ["number", "no", "count"],
             "number": ["num", "no", "nbr"], "code": ["id", "cd"], "count": ["cnt", "num"], "ts": ["timestamp", "at"],
             "at": ["date", "ts", "on"], "date": ["dt", "on"]}  # fmt: skip
    for alt in swaps.get(last, []):
        out.append(_join([*words[:-1], alt], style if style != "single" else "snake"))
    if re.fullmatch(r"[a-z]{1,3}id", col.lower()) and table.lower().startswith(col[0].lower()):
        out += [f"{tsing}_id", f"{tsing}Id", "id"]  # aid -> author_id
    if col.lower() == "id":
        out += [f"{tsing}_id", f"{tsing}id"]
    if last not in ("id", "no", "at", "ts", "code", "num") and len(last) > 3 and not last.endswith("id"):
        out.append(_join([*words[:-1], _flip_number(last)], style if style != "single" else "snake"))
    if len(words) == 2 and words[1] in ("num", "count", "number"):
        out.append(_join([words[1], _plural(words[0])], "snake"))  # citation_num -> num_citations
    if style == "single" and last not in ("id",):
        out.append(f"{tsing}_{col.lower()}")  # name -> author_name
    if len(words) > 1 and words[0] in (tsing, _singular(twords[0]), twords[0]):
        out.append(_join(words[1:], style))  # airline_name -> name
    for i, w in enumerate(words):
        for alt in _ABBREV.get(w, [])[:2] + ([_EXPAND[w]] if w in _EXPAND else []):
            out.append(_join([*words[:i], alt, *words[i + 1:]], style if style != "single" else "snake"))
    return out


def _word_synonyms(w: str) -> list[str]:
    """Synonyms of one name part, plural when the part is plural (salespersons -> sellers)."""
    if w in _SYNONYMS:
        return _SYNONYMS[w]
    s = _singular(w)
    return [_plural(a) if "_" not in a else a for a in _SYNONYMS.get(s, [])] if s != w else []


def _synonym_names(col: str, table: str) -> list[str]:
    words, style = _words(col)
    st = style if style != "single" else "snake"
    out = list(_WHOLE_SYNONYMS.get(col.lower(), []))
    for i, w in enumerate(words):
        for alt in _word_synonyms(w):
            out.append(_join([*words[:i], *alt.split("_"), *words[i + 1:]], st))
    return out


def _table_names(name: str) -> tuple[list[str], list[str]]:
    """(convention variants, synonym variants) of a table name."""
    words, style = _words(name)
    st = style if style != "single" else "snake"
    noun = next((i for i in range(len(words) - 1, -1, -1)
                 if not words[i].endswith("ed") and words[i] not in ("daily", "made", "weekly", "monthly")), 0)
    conv = [_join([*words[:noun], _flip_number(words[noun]), *words[noun + 1:]], st)]
    if len(words) > 1:
        conv += ["".join(words), _join(words, "pascal")]
    conv += [f"tbl_{name}", f"t_{name}"]
    syn = list(_TABLE_SYNONYMS.get(name.lower(), []))
    for i, w in enumerate(words):
        for alt in _word_synonyms(w):
            syn.append(_join([*words[:i], *alt.split("_"), *words[i + 1:]], st))
    return conv, syn


# ------------------------------------------------------------------------------------------------ the context
class _Ctx:
    """The gold parsed once, with helpers shared by the kinds."""

    def __init__(self, gold: str, schema: Any, rng: random.Random) -> None:
        self.sql = gold.strip().rstrip(";").rstrip()
        self.schema = schema
        self.d = "postgres" if str(schema.dialect).startswith("postgres") else "sqlite"
        self.rng = rng
        self._tree: exp.Expression | None = None
        self._parsed = False

    @property
    def tree(self) -> exp.Expression | None:
        if not self._parsed:
            self._parsed = True
            try:
                trees = [t for t in sqlglot.parse(self.sql, read=self.d) if t is not None]
                self._tree = trees[0] if len(trees) == 1 else None
            except Exception:  # noqa: BLE001
                self._tree = None
        return self._tree

    def fresh(self) -> exp.Expression | None:
        return self.tree.copy() if self.tree is not None else None

    def render(self, tree: exp.Expression) -> str:
        return tree.sql(dialect=self.d, pretty=self.rng.random() < 0.35)

    def cte_names(self) -> set[str]:
        return {c.alias_or_name.lower() for c in self.tree.find_all(exp.CTE)} if self.tree else set()

    def table_of(self, node: exp.Table) -> Any:
        if not node.name or (not node.db and node.name.lower() in self.cte_names()):
            return None
        return self.schema.table(f"{node.db}.{node.name}" if node.db else node.name)

    def query_tables(self) -> list[Any]:
        seen: dict[str, Any] = {}
        for node in self.tree.find_all(exp.Table):
            t = self.table_of(node)
            if t is not None:
                seen.setdefault(t.qualified_name, t)
        return list(seen.values())

    def taken(self) -> set[str]:
        """Every name the new identifier must not collide with (so that the damage really misses)."""
        names = {i.name.lower() for i in self.tree.find_all(exp.Identifier)}
        for t in self.query_tables():
            names |= {c.name.lower() for c in t.columns}
        return names

    def scopes(self) -> list[tuple[Any, dict[str, tuple[str, Any, Any]]]]:
        """(scope, {source name: ("table", Table node, schema table) | ("derived", None, column names)})."""
        out = []
        for scope in traverse_scope(self.tree):
            sources: dict[str, tuple[str, Any, Any]] = {}
            for name, src in scope.sources.items():
                if isinstance(src, exp.Table):
                    sources[name] = ("table", src, self.table_of(src))
                else:
                    expr = getattr(src, "expression", None)
                    cols = {c.lower() for c in getattr(expr, "named_selects", [])} if expr is not None else set()
                    sources[name] = ("derived", None, cols)
            out.append((scope, sources))
        return out

    def refs(self) -> list[tuple[exp.Column, Any, str, Any, dict]]:
        """Column references resolved to a schema table: (column, table, source name, scope, sources)."""
        out = []
        for scope, sources in self.scopes():
            for col in scope.columns:
                if not isinstance(col.this, exp.Identifier) or col.args.get("db"):
                    continue
                name = col.name.lower()
                if col.table:
                    src = sources.get(col.table)
                    if src and src[0] == "table" and src[2] is not None and src[2].column(name):
                        out.append((col, src[2], col.table, scope, sources))
                    continue
                hits = [(k, s) for k, s in sources.items()
                        if (s[0] == "table" and s[2] is not None and s[2].column(name))
                        or (s[0] == "derived" and name in s[2])]  # fmt: skip
                if len(hits) == 1 and hits[0][1][0] == "table":
                    out.append((col, hits[0][1][2], hits[0][0], scope, sources))
        return out

    def tokens(self) -> list[Any]:
        return list(sqlglot.Dialect.get_or_raise(self.d).tokenize(self.sql))


def _span(ident: Any) -> tuple[int, int] | None:
    meta = getattr(ident, "meta", None) or {}
    if isinstance(ident, exp.Identifier) and "start" in meta and "end" in meta:
        return meta["start"], meta["end"] + 1
    return None


def _splice(text: str, edits: list[tuple[int, int, str]]) -> str | None:
    edits = sorted(set(edits), key=lambda e: (e[0], e[1]))
    for a, b in zip(edits, edits[1:]):
        if b[0] < a[1]:
            return None
    for start, end, repl in reversed(edits):
        text = text[:start] + repl + text[end:]
    return text


def _ident_like(ctx: _Ctx, ident: exp.Identifier, new: str) -> str:
    span = _span(ident)
    if span and ctx.sql[span[0]] in "\"`[":
        q = ctx.sql[span[0]]
        return f"{q}{new}{']' if q == '[' else q}"
    return new


def _present(ctx: _Ctx, sql: str) -> str:
    """How a model hands over a bare query: as is, fenced, or with a closing semicolon."""
    roll = ctx.rng.random()
    if roll < 0.3:
        return f"```sql\n{sql};\n```" if ctx.rng.random() < 0.5 else f"```sql\n{sql}\n```"
    if roll < 0.45:
        return sql + ";"
    return sql


def _pick(rng: random.Random, options: list[Any]) -> Any:
    return options[rng.randrange(len(options))] if options else None


# --------------------------------------------------------------------------------------------- prose kinds
def _describe(ctx: _Ctx) -> dict[str, Any]:
    info: dict[str, Any] = {"tables": [], "joins": [], "where": False, "group": [], "order": [], "limit": None}
    try:
        tree = ctx.tree
        if tree is None:
            return info
        info["tables"] = [t.name for t in ctx.query_tables()]
        sel = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
        for j in sel.args.get("joins") or []:
            if j.args.get("on") is not None:
                info["joins"].append(j.args["on"].sql(dialect=ctx.d))
        info["where"] = sel.args.get("where") is not None
        info["group"] = [g.sql(dialect=ctx.d) for g in (sel.args.get("group").expressions if sel.args.get("group") else [])]
        info["order"] = [o.this.sql(dialect=ctx.d) for o in (sel.args.get("order").expressions if sel.args.get("order") else [])]
        lim = sel.args.get("limit")
        info["limit"] = lim.expression.sql() if lim is not None and lim.expression is not None else None
    except Exception:  # noqa: BLE001
        pass
    return info


def _steps(ctx: _Ctx, info: dict[str, Any]) -> list[str]:
    tabs = ", ".join(f"`{t}`" for t in info["tables"]) or "the relevant table"
    steps = [f"Identify the table{'s' if len(info['tables']) > 1 else ''} we need: {tabs}."]
    for on in info["joins"][:2]:
        steps.append(f"Join them on `{on}`.")
    if info["where"]:
        steps.append(_pick(ctx.rng, ["Filter the rows in the WHERE clause.", "Apply the conditions from the question.",
                                     "Keep only the rows that match the criteria."]))
    if info["group"]:
        steps.append(f"Group by {', '.join(f'`{g}`' for g in info['group'][:3])} and aggregate.")
    if info["order"]:
        tail = f" and keep the first {info['limit']}" if info["limit"] else ""
        steps.append(f"Sort by `{info['order'][0]}`{tail}.")
    return steps


_TAGS = ["sql", "sql", "sql", "SQL", "sqlite", "postgresql", "postgres", "pgsql", "psql", "mysql", "tsql", "plsql", ""]


def _prose_wrapped(ctx: _Ctx) -> tuple[str, str] | None:
    rng, sql = ctx.rng, ctx.sql
    info = _describe(ctx)
    main = info["tables"][0] if info["tables"] else "the table"
    tag = _pick(rng, _TAGS)
    if ctx.d == "sqlite" and tag in ("postgresql", "pgsql", "psql", "postgres"):
        tag = "sqlite"
    elif ctx.d == "postgres" and tag == "sqlite":
        tag = "postgresql"
    fence = f"```{tag}\n{sql}{';' if rng.random() < 0.5 else ''}\n```"
    explain = [f"This query reads from `{main}`"
               + (f" and joins {len(info['joins'])} more table{'s' if len(info['joins']) > 1 else ''}" if info["joins"] else "")
               + (", filters the rows" if info["where"] else "")
               + (f", groups them by {', '.join(info['group'][:2])}" if info["group"] else "")
               + (f" and orders by {info['order'][0]}" if info["order"] else "") + "."]  # fmt: skip
    style = rng.randrange(8)
    if style == 0:
        lead = _pick(rng, ["Here's the SQL query:", "Sure! Here is the query that answers your question:",
                           "The following query should work:", "Certainly. Based on the schema, you can use:"])
        reply, what = f"{lead}\n\n{fence}\n\n{explain[0]}", f"preamble + ```{tag} fence + explanation"
    elif style == 1:
        steps = "\n".join(f"{i}. {s}" for i, s in enumerate(_steps(ctx, info), 1))
        reply = f"Let's think step by step.\n\n{steps}\n\nFinal query:\n\n{fence}"
        what = "numbered plan before the fence"
    elif style == 2:
        reply = f"SQLQuery: {' '.join(sql.split())}\nSQLResult: "
        what = "LangChain-style 'SQLQuery:' line, no fence"
    elif style == 3:
        reply = (f"To answer this we need {main}. The SQL query is:\n\n{sql}\n\n{explain[0]} "
                 f"Let me know if you need any changes!")
        what = "unfenced SQL between two paragraphs"
    elif style == 4:
        bullets = "\n".join(f"- {s}" for s in _steps(ctx, info)[1:]) or "- It returns the requested columns."
        reply = f"{fence}\n\n**Explanation:**\n{bullets}"
        what = f"```{tag} fence then bullet explanation"
    elif style == 5:
        comment = f"-- {rng.choice(['Answer to the question', 'Query for the requested data', 'Result query'])}"
        reply = f"Here you go:\n```{tag}\n{comment}\n{sql};\n```\nNote: column names are taken from the schema above."
        what = "fence with a leading SQL comment and a note"
    elif style == 6:
        reply = f"Answer:\n{sql};\n\nExplanation: {explain[0]}"
        what = "'Answer:' prefix, SQL unfenced, explanation after"
    else:
        reply = f"```\n{sql}\n```"
        what = "fence without a language tag"
    return reply, f"prose: {what}"


def _create_table(table: Any) -> str:
    cols = ",\n  ".join(f"{c.name} {c.type.upper()}" for c in table.columns[:8])
    return f"CREATE TABLE {table.qualified_name} (\n  {cols}\n);"


def _two_blocks(ctx: _Ctx) -> tuple[str, str] | None:
    rng, sql = ctx.rng, ctx.sql
    tree = ctx.tree
    if tree is None:
        return None
    tables = ctx.query_tables()
    options = ["explore", "schema", "output", "mysql"]
    sel = tree if isinstance(tree, exp.Select) else None
    if sel is not None and any(sel.args.get(k) is not None for k in ("where", "limit", "order")):
        options.append("draft")
    style = _pick(rng, options)
    fence = f"```sql\n{sql};\n```"
    if style == "explore" and tables:
        t = _pick(rng, tables)
        col = _pick(rng, [c.name for c in t.columns if c.value_hints] or [c.name for c in t.columns])
        probe = _pick(rng, [f"SELECT DISTINCT {col} FROM {t.qualified_name} LIMIT 10;",
                            f"SELECT * FROM {t.qualified_name} LIMIT 5;"])
        return (f"First, let's look at the data:\n\n```sql\n{probe}\n```\n\nNow the actual query:\n\n{fence}",
                "exploratory query in the first block, answer in the second")
    if style == "schema" and tables:
        return (f"Given the table:\n\n```sql\n{_create_table(_pick(rng, tables))}\n```\n\nthe query is:\n\n{fence}",
                "schema echoed as CREATE TABLE in the first block")
    if style == "draft":
        draft = sel.copy()
        drop = _pick(rng, [k for k in ("where", "limit", "order") if draft.args.get(k) is not None])
        draft.set(drop, None)
        return (f"```sql\n{draft.sql(dialect=ctx.d)};\n```\n\nWait, that misses the {drop.upper()} part. "
                f"Corrected version:\n\n{fence}", f"draft without {drop.upper()} first, corrected query second")
    if style == "output":
        names = (tree.named_selects if hasattr(tree, "named_selects") else []) or ["result"]
        header = "| " + " | ".join(names) + " |\n|" + "---|" * len(names) + "\n| " + " | ".join("..." for _ in names) + " |"
        return f"{fence}\n\nExample output:\n\n```\n{header}\n```", "answer first, example output table second"
    try:
        other = sqlglot.transpile(sql, read=ctx.d, write="mysql")[0]
    except Exception:  # noqa: BLE001
        return None
    return (f"{fence}\n\nIf you are on MySQL instead, use:\n\n```sql\n{other};\n```",
            "answer first, a MySQL rendering second")


# --------------------------------------------------------------------------------------------- name kinds
def _column_name(ctx: _Ctx) -> tuple[str, str] | None:
    if ctx.tree is None:
        return None
    groups: dict[tuple[str, str], list[exp.Column]] = {}
    for col, table, _src, _scope, _sources in ctx.refs():
        if _span(col.this):
            groups.setdefault((table.qualified_name, table.column(col.name).name), []).append(col)
    taken = ctx.taken() | {t.name.lower() for t in ctx.schema.tables}
    choices = []
    for (tname, cname), cols in groups.items():
        table = ctx.schema.table(tname)
        for family, names in (("convention", _convention_names(cname, table.name)),
                              ("synonym", _synonym_names(cname, table.name))):
            names = [n for n in dict.fromkeys(names) if _IDENT.match(n) and n.lower() not in taken]
            if names:
                choices.append((family, cname, cols, names))
    if not choices:
        return None
    family = _pick(ctx.rng, sorted({c[0] for c in choices}))
    _f, cname, cols, names = _pick(ctx.rng, [c for c in choices if c[0] == family])
    new = _pick(ctx.rng, names)
    hit = cols if ctx.rng.random() < 0.75 or len(cols) == 1 else [_pick(ctx.rng, cols)]
    out = _splice(ctx.sql, [(*_span(c.this), _ident_like(ctx, c.this, new)) for c in hit])
    if out is None:
        return None
    return _present(ctx, out), f"column {cname} written {new} ({family}, {len(hit)} of {len(cols)} uses)"


def _table_name(ctx: _Ctx) -> tuple[str, str] | None:
    if ctx.tree is None:
        return None
    by_table: dict[str, list[exp.Table]] = {}
    for node in ctx.tree.find_all(exp.Table):
        t = ctx.table_of(node)
        if t is not None and _span(node.this):
            by_table.setdefault(t.qualified_name, []).append(node)
    if not by_table:
        return None
    qn = _pick(ctx.rng, sorted(by_table))
    table, nodes = ctx.schema.table(qn), by_table[qn]
    taken = {t.name.lower() for t in ctx.schema.tables} | ctx.cte_names() | ctx.taken()
    conv, syn = _table_names(table.name)
    conv = [n for n in dict.fromkeys(conv) if n.lower() not in taken and _IDENT.match(n)]
    syn = [n for n in dict.fromkeys(syn) if n.lower() not in taken and _IDENT.match(n)]
    edits: list[tuple[int, int, str]] = []
    has_db = any(n.db for n in nodes)
    roll = ctx.rng.random()
    if has_db and ctx.d == "postgres" and roll < 0.3:
        for n in nodes:
            db = n.args.get("db")
            if _span(db) and _span(n.this):
                edits.append((_span(db)[0], _span(n.this)[0], ""))
        new, what = table.name, f"schema prefix {table.schema}. dropped from {table.name}"
    else:
        pool = (syn if syn and (roll < 0.65 or not conv) else conv) or syn
        pool = [n for n in pool if not n.startswith(("tbl_", "t_"))] or pool if ctx.rng.random() < 0.75 else pool
        if not pool:
            return None
        new = _pick(ctx.rng, pool)
        what = f"table {table.name} written {new}"
        for n in nodes:
            edits.append((*_span(n.this), _ident_like(ctx, n.this, new)))
            if not n.alias:  # qualifiers that repeat the table name follow it
                for col in ctx.tree.find_all(exp.Column):
                    q = col.args.get("table")
                    if q is not None and q.name.lower() == n.name.lower() and _span(q):
                        edits.append((*_span(q), _ident_like(ctx, q, new)))
    out = _splice(ctx.sql, edits)
    return (_present(ctx, out), what) if out and out != ctx.sql else None


def _initial_aliases(name: str) -> list[str]:
    words, _ = _words(name)
    cands = ["".join(w[0] for w in words)] if len(words) > 1 else []
    cands += [name.lower()[:2], _singular(words[-1]), words[0]]
    return cands


def _keyword_guess(name: str) -> list[str]:
    """The keyword a model shortens a name to: the leading or trailing part of a short name (from_airport ->
    from, meal_description -> desc), never a part in the middle (publication_to_author_ratio)."""
    words = _words(name)[0]
    if len(words) > 3:
        return []
    ends = [words[0], words[-1]] if len(words) > 1 else words
    return [_KEYWORD_OF_WORD[w] for w in ends if w in _KEYWORD_OF_WORD]


def _reserved_word(ctx: _Ctx) -> tuple[str, str] | None:
    tree = ctx.tree
    if tree is None:
        return None
    taken = ctx.taken()
    options: list[tuple[list[tuple[int, int, str]], str]] = []
    # R1: a column guessed as a bare keyword (from_airport -> from, description -> desc)
    same: dict[tuple[str, str], list[exp.Column]] = {}
    for col, table, _src, _scope, _sources in ctx.refs():
        if _span(col.this):
            same.setdefault((table.qualified_name, col.name.lower()), []).append(col)
    for (_t, cname), cols in same.items():
        kws = _keyword_guess(cols[0].name)
        kws = [k for k in kws if k not in taken and not (k in _UNSAFE_BARE and any(not c.table for c in cols))]
        if kws:
            options.append(([(*_span(c.this), kws[0]) for c in cols], f"column {cname} written as keyword {kws[0]}"))
    # R2: a table alias that is a keyword (initials, prefix or the singular name)
    names = [n.alias_or_name.lower() for n in tree.find_all(exp.Table)]
    fails = _TABLE_ALIAS_FAILS[ctx.d]
    for node in tree.find_all(exp.Table):
        table = ctx.table_of(node)
        if table is None or names.count(node.alias_or_name.lower()) != 1 or not _span(node.this):
            continue
        kws = [w for w in dict.fromkeys(_initial_aliases(table.name)) if w in fails and w not in taken]
        if not kws:
            continue
        kw = kws[0]
        old = node.alias_or_name.lower()
        alias = node.args.get("alias")
        if node.alias and alias is not None and _span(alias.this):
            edits = [(*_span(alias.this), kw)]
        elif not node.alias:
            end = _span(node.this)[1]
            if end < len(ctx.sql) and ctx.sql[end] == '"':
                continue
            edits = [(end, end, f" AS {kw}" if " AS " in ctx.sql.upper() else f" {kw}")]
        else:
            continue
        for col in tree.find_all(exp.Column):
            q = col.args.get("table")
            if q is not None and q.name.lower() == old and _span(q):
                edits.append((*_span(q), kw))
        options.append((edits, f"table {table.name} aliased as keyword {kw}"))
    # R3: an output alias that is a keyword (AS from / AS order)
    if isinstance(tree, exp.Select):
        ofails = _OUTPUT_ALIAS_FAILS[ctx.d]
        for e in tree.expressions:
            base = e.alias if isinstance(e, exp.Alias) else (e.name if isinstance(e, exp.Column) else "")
            kws = _keyword_guess(base) if base else []
            kws = [k for k in kws if k in ofails]
            if not kws:
                continue
            kw, sep = kws[0], (" AS " if ctx.d == "sqlite" else " ")
            if isinstance(e, exp.Alias):
                a_span = _span(e.args.get("alias"))
                m = re.search(r"(\s+AS\s+|\s+)$", ctx.sql[: a_span[0]], re.I) if a_span else None
                if m is None:
                    continue
                edits = [(a_span[0] - len(m.group(0)), a_span[1], sep + kw)]
                for col in tree.find_all(exp.Column):
                    if not col.table and col.name.lower() == e.alias.lower() and _span(col.this) and not col.find_ancestor(exp.Alias):
                        edits.append((*_span(col.this), kw))
            elif _span(e.this):
                edits = [(_span(e.this)[1], _span(e.this)[1], sep + kw)]
            else:
                continue
            options.append((edits, f"output column {base} aliased as keyword {kw}"))
    if not options:
        return None
    edits, what = _pick(ctx.rng, options)
    out = _splice(ctx.sql, edits)
    return (_present(ctx, out), what) if out and out != ctx.sql else None


# --------------------------------------------------------------------------------------------- quoting
def _string_tokens(ctx: _Ctx) -> list[Any]:
    toks = ctx.tokens()
    cmp_types = {TokenType.EQ, TokenType.NEQ, TokenType.LIKE, TokenType.ILIKE, TokenType.GT, TokenType.GTE,
                 TokenType.LT, TokenType.LTE, TokenType.THEN, TokenType.ELSE}  # fmt: skip
    out, stack = [], []
    for i, t in enumerate(toks):
        if t.token_type == TokenType.L_PAREN:
            stack.append(toks[i - 1].token_type if i else None)
        elif t.token_type == TokenType.R_PAREN and stack:
            stack.pop()
        elif t.token_type == TokenType.STRING and i and '"' not in t.text and "'" not in t.text:
            prev = toks[i - 1].token_type
            in_list = prev in (TokenType.L_PAREN, TokenType.COMMA) and stack and stack[-1] == TokenType.IN
            if prev in cmp_types or in_list:
                out.append(t)
    return out


def _quoting_slip(ctx: _Ctx) -> tuple[str, str] | None:
    tree = ctx.tree
    if tree is None:
        return None
    idents = []
    for col in tree.find_all(exp.Column):
        idents += [i for i in (col.args.get("table"), col.this) if isinstance(i, exp.Identifier) and _span(i)]
    tables = [n for n in tree.find_all(exp.Table) if ctx.table_of(n) is not None and _span(n.this)]
    for n in tables:
        idents += [i for i in (n.args.get("db"), n.this) if isinstance(i, exp.Identifier) and _span(i)]
    strings = _string_tokens(ctx)
    aliases = [e.args["alias"] for e in (tree.expressions if isinstance(tree, exp.Select) else [])
               if isinstance(e, exp.Alias) and _span(e.args.get("alias"))]  # fmt: skip
    qualified = [c for c in tree.find_all(exp.Column) if _span(c.args.get("table")) and _span(c.this)]
    mixed = [i for i in idents if not i.quoted and i.name != i.name.lower()]
    opts: list[tuple[float, str]] = []
    if ctx.d == "postgres":
        opts += [(0.25, "backticks"), (0.15, "brackets"), (0.15, "dbo")]
        opts += [(0.2, "dq_strings")] if strings else []
        opts += [(0.1, "sq_alias")] if aliases else []
        opts += [(0.25, "mixed_case")] if mixed else []
    else:
        opts += [(0.3, "dbo"), (0.08, "backticks"), (0.08, "brackets")]
        opts += [(0.25, "bt_qualified")] if qualified else []
        opts += [(0.15, "curly")] if strings else []
        opts += [(0.06, "dq_strings")] if strings else []
    if not idents and not tables:
        return None
    total = sum(w for w, _ in opts)
    roll, style = ctx.rng.random() * total, opts[-1][1]
    for w, name in opts:
        if roll < w:
            style = name
            break
        roll -= w
    edits: list[tuple[int, int, str]] = []
    if style in ("backticks", "brackets"):
        l_, r_ = ("`", "`") if style == "backticks" else ("[", "]")
        for i in idents:
            edits.append((*_span(i), f"{l_}{i.name}{r_}"))
        what = f"identifiers quoted with {l_}{r_}"
    elif style == "dbo":
        bracket = ctx.rng.random() < 0.4
        for n in tables:
            if n.args.get("db") is not None:
                continue
            edits.append((*_span(n.this), f"[dbo].[{n.name}]" if bracket else f"dbo.{ctx.sql[slice(*_span(n.this))]}"))
        what = "T-SQL dbo. schema prefix on tables"
    elif style == "dq_strings":
        edits = [(t.start, t.end + 1, f'"{t.text}"') for t in strings]
        what = "string literals in double quotes"
    elif style == "curly":
        edits = [(t.start, t.end + 1, f"\u2018{t.text}\u2019") for t in strings]
        what = "string literals in typographic quotes"
    elif style == "sq_alias":
        edits = [(*_span(a), f"'{a.name}'") for a in aliases]
        what = "output aliases in single quotes"
    elif style == "mixed_case":
        edits = [(*_span(i), f'"{i.name}"') for i in mixed]
        what = "mixed-case names double-quoted (PostgreSQL folds the real ones)"
    else:  # bt_qualified
        for c in qualified if ctx.rng.random() < 0.6 else [_pick(ctx.rng, qualified)]:
            edits.append((_span(c.args["table"])[0], _span(c.this)[1], f"`{c.table}.{c.name}`"))
        what = "qualified column quoted as one identifier `t.col`"
    out = _splice(ctx.sql, edits)
    return (_present(ctx, out), what) if out and out != ctx.sql else None


# --------------------------------------------------------------------------------------------- dialect kinds
def _foreign_limit(ctx: _Ctx) -> tuple[str, str] | None:
    tree = ctx.tree
    if not isinstance(tree, exp.Select) or tree.args.get("limit") is None:
        return None
    toks, depth, top = ctx.tokens(), 0, []
    for i, t in enumerate(toks):
        if t.token_type == TokenType.L_PAREN:
            depth += 1
        elif t.token_type == TokenType.R_PAREN:
            depth -= 1
        elif depth == 0:
            top.append(i)
    sels = [i for i in top if toks[i].token_type == TokenType.SELECT]
    lims = [i for i in top if toks[i].token_type == TokenType.LIMIT]
    if len(sels) != 1 or len(lims) != 1 or lims[0] + 1 >= len(toks) or toks[lims[0] + 1].token_type != TokenType.NUMBER:
        return None
    li = lims[0]
    n = toks[li + 1].text
    end, off = toks[li + 1].end + 1, None
    rest = toks[li + 2:]
    if rest and rest[0].token_type == TokenType.OFFSET and len(rest) > 1 and rest[1].token_type == TokenType.NUMBER:
        off, end = rest[1].text, rest[1].end + 1
    elif rest and rest[0].token_type not in (TokenType.SEMICOLON,):
        return None
    start = toks[li].start
    while start > 0 and ctx.sql[start - 1].isspace():
        start -= 1
    si = sels[0]
    after = toks[si + 1] if toks[si + 1].token_type == TokenType.DISTINCT else toks[si]
    ins = after.end + 1
    where = [i for i in top if toks[i].token_type == TokenType.WHERE]
    rng = ctx.rng
    if off is not None:
        styles = ["offset_fetch"] if ctx.d == "sqlite" else ["mysql_pair"]
    elif ctx.d == "sqlite":
        styles = ["top"] * 4 + ["top_paren", "fetch_first", "fetch_first", "offset_fetch", "rownum"]
    else:
        styles = ["top"] * 4 + ["top_paren", "mysql_pair", "mysql_pair", "rownum"]
    style = _pick(rng, styles)
    if style in ("top", "top_paren"):
        top_txt = f" TOP {n}" if style != "top_paren" else f" TOP ({n})"
        edits = [(ins, ins, top_txt), (start, end, "")]
        what = f"LIMIT {n} written as T-SQL{top_txt}"
    elif style == "fetch_first":
        edits = [(start, end, f" FETCH FIRST {n} ROWS ONLY")]
        what = "LIMIT written as FETCH FIRST n ROWS ONLY"
    elif style == "offset_fetch":
        edits = [(start, end, f" OFFSET {off or 0} ROWS FETCH NEXT {n} ROWS ONLY")]
        what = "LIMIT written as T-SQL OFFSET .. FETCH NEXT"
    elif style == "mysql_pair":
        edits = [(start, end, f" LIMIT {off or 0}, {n}")]
        what = "MySQL LIMIT offset, count"
    else:
        if where:
            w = toks[where[0]]
            edits = [(w.end + 1, w.end + 1, f" ROWNUM <= {n} AND"), (start, end, "")]
        else:
            nxt = [i for i in top if toks[i].token_type in (TokenType.GROUP_BY, TokenType.ORDER_BY, TokenType.LIMIT)]
            at = toks[nxt[0]].start
            edits = [(at, at, f"WHERE ROWNUM <= {n} "), (start, end, "")]
        what = "Oracle ROWNUM instead of LIMIT"
    out = _splice(ctx.sql, edits)
    return (_present(ctx, out), what) if out and out != ctx.sql else None


_NOW = {"mysql": "CURDATE()", "tsql": "GETDATE()", "oracle": "SYSDATE", "other": "NOW()"}


def _mod_parts(text: str) -> tuple[str, int, str] | None:
    m = re.fullmatch(r"\s*([+-]?)\s*(\d+)\s+(day|month|year|hour|minute|week)s?\s*", text, re.I)
    return (m.group(1) or "+", int(m.group(2)), m.group(3).lower()) if m else None


def _shifted(base: dict[str, str], sign: str, n: int, unit: str) -> dict[str, str]:
    fn = "DATE_SUB" if sign == "-" else "DATE_ADD"
    return {"mysql": f"{fn}({base['mysql']}, INTERVAL {n} {unit.upper()})",
            "tsql": f"DATEADD({unit}, {'-' if sign == '-' else ''}{n}, {base['tsql']})",
            "oracle": f"{base['oracle']} {sign} INTERVAL '{n}' {unit.upper()}",
            "other": f"{base['other']} {sign} INTERVAL '{n} {unit}s'"}  # fmt: skip


def _fmt_styles(x: str, fmt: str) -> dict[str, str]:
    simple = {"%Y": "year", "%m": "month", "%d": "day", "%H": "hour", "%w": "weekday"}
    if fmt in simple:
        u = simple[fmt]
        return {"mysql": f"{'DAYOFWEEK' if u == 'weekday' else u.upper()}({x})", "tsql": f"DATEPART({u}, {x})",
                "oracle": f"EXTRACT({'DOW' if u == 'weekday' else u.upper()} FROM {x})"}
    if fmt == "%s":
        return {"mysql": f"UNIX_TIMESTAMP({x})", "tsql": f"DATEDIFF(second, '1970-01-01', {x})"}
    ora = fmt.replace("%Y", "YYYY").replace("%m", "MM").replace("%d", "DD").replace("%H", "HH24").replace("%M", "MI")
    net = fmt.replace("%Y", "yyyy").replace("%m", "MM").replace("%d", "dd").replace("%H", "HH").replace("%M", "mm")
    return {"mysql": f"DATE_FORMAT({x}, '{fmt}')", "tsql": f"FORMAT({x}, '{net}')", "oracle": f"TO_CHAR({x}, '{ora}')"}


def _foreign_candidates(ctx: _Ctx, node: exp.Expression) -> tuple[str, dict[str, str]] | None:
    """(family, {style: foreign text}) for a node the gold writes in its own dialect."""
    r = lambda e: e.sql(dialect=ctx.d)  # noqa: E731
    lite = ctx.d == "sqlite"
    if isinstance(node, exp.TimeToStr):
        x = node.this.this if isinstance(node.this, exp.TsOrDsToTimestamp) else node.this
        fmt = node.args.get("format")
        if not isinstance(fmt, exp.Literal):
            return None
        xs = _NOW["mysql"] if isinstance(x, exp.Literal) and x.this == "now" else r(x)
        styles = _fmt_styles(xs, fmt.this)
        if not lite:
            styles["sqlite"] = f"strftime('{fmt.this}', {xs})"
            styles.pop("oracle", None)
        return "date_format", styles
    if isinstance(node, exp.Extract) and not lite:
        unit, x = node.name.upper(), r(node.expression)
        fmt = {"YEAR": "%Y", "MONTH": "%m", "DAY": "%d", "DOW": "%w", "HOUR": "%H", "EPOCH": "%s"}.get(unit)
        if fmt is None:
            return "extract", {"tsql": f"DATEPART({unit.lower()}, {x})"}
        styles = _fmt_styles(x, fmt)
        styles.pop("oracle", None)
        styles["sqlite"] = f"strftime('{fmt}', {x})"
        return "extract", styles
    if isinstance(node, (exp.TimestampTrunc, exp.DateTrunc)) and not lite:
        unit, x = str(node.args.get("unit").name if node.args.get("unit") else "").upper(), r(node.this)
        fm = {"MONTH": "%Y-%m-01", "YEAR": "%Y-01-01", "DAY": "%Y-%m-%d"}.get(unit)
        ora = {"MONTH": "MM", "YEAR": "YYYY", "WEEK": "IW", "QUARTER": "Q"}.get(unit, "DD")
        styles = {"oracle": f"TRUNC({x}, '{ora}')"}
        if fm:
            styles |= {"mysql": f"DATE_FORMAT({x}, '{fm}')", "sqlite": f"strftime('{fm}', {x})"}
        elif unit == "WEEK":
            styles |= {"mysql": f"DATE_SUB({x}, INTERVAL WEEKDAY({x}) DAY)",
                       "tsql": f"DATEADD(week, DATEDIFF(week, 0, {x}), 0)"}
        return "date_trunc", styles
    if isinstance(node, (exp.Sub, exp.Add)) and isinstance(node.expression, exp.Interval) and not lite:
        iv = node.expression
        unit = iv.args.get("unit")
        parts = _mod_parts(f"{iv.this.name} {unit.name}" if unit is not None else iv.this.name)
        if parts is None:
            return None
        sign = "-" if isinstance(node, exp.Sub) else "+"
        base = r(node.this)
        styles = _shifted({k: base for k in _NOW}, sign, parts[1], parts[2])
        styles["sqlite"] = f"date({base}, '{sign}{parts[1]} {parts[2]}s')"
        styles.pop("other")
        return "interval", styles
    if isinstance(node, exp.Sub) and lite and all(
            isinstance(a, exp.Anonymous) and a.name.lower() == "julianday" and a.expressions for a in (node.this, node.expression)):
        a, b = r(node.this.expressions[0]), r(node.expression.expressions[0])
        return "datediff", {"mysql": f"DATEDIFF({a}, {b})", "tsql": f"DATEDIFF(day, {b}, {a})", "other": f"DATE_PART('day', {a} - {b})"}
    if lite and (isinstance(node, (exp.Anonymous, exp.Date)) and node.name.lower() in ("date", "datetime")
                 or isinstance(node, exp.CurrentDate)):
        args = [] if isinstance(node, exp.CurrentDate) else ([node.this, *node.expressions] if isinstance(node, exp.Date) else node.expressions)
        if isinstance(node, exp.CurrentDate) or (args and isinstance(args[0], exp.Literal) and args[0].this == "now"):
            mods = args[1:]
            if not mods:
                return "now", dict(_NOW)
            if len(mods) == 1 and isinstance(mods[0], exp.Literal) and _mod_parts(mods[0].this):
                return "now", _shifted(_NOW, *_mod_parts(mods[0].this))
            return None
        if len(args) == 2 and isinstance(args[1], exp.Literal) and args[1].this == "unixepoch":
            x = r(args[0])
            return "from_unix", {"mysql": f"FROM_UNIXTIME({x})", "other": f"TO_TIMESTAMP({x})", "tsql": f"DATEADD(second, {x}, '1970-01-01')"}
        if len(args) == 1 and node.name.lower() == "date":
            x = r(args[0])
            return "date_cast", {"tsql": f"CONVERT(DATE, {x})", "oracle": f"TRUNC({x})", "other": f"DATE_TRUNC('day', {x})"}
        return None
    if isinstance(node, (exp.CurrentDate, exp.CurrentTimestamp)) and not lite:
        return "now", {"mysql": "CURDATE()" if isinstance(node, exp.CurrentDate) else "SYSDATE()", "tsql": "GETDATE()",
                       "sqlite": "datetime('now')", "oracle": "SYSDATE"}  # fmt: skip
    if isinstance(node, exp.UnixToTime) and not lite:
        x = r(node.this)
        return "from_unix", {"mysql": f"FROM_UNIXTIME({x})", "sqlite": f"datetime({x}, 'unixepoch')"}
    if isinstance(node, exp.Coalesce) and len(node.expressions) == 1:
        a, b = r(node.this), r(node.expressions[0])
        styles = {"tsql": f"ISNULL({a}, {b})", "oracle": f"NVL({a}, {b})"}
        if not lite:
            styles["mysql"] = f"IFNULL({a}, {b})"
        return "coalesce", styles
    if isinstance(node, exp.Length):
        return "length", {"tsql": f"LEN({r(node.this)})", **({"other": f"CHAR_LENGTH({r(node.this)})"} if lite else {})}
    if isinstance(node, exp.DPipe) and not isinstance(node.parent, exp.DPipe):
        parts = [r(p) for p in node.flatten()] if hasattr(node, "flatten") else [r(node.this), r(node.expression)]
        styles = {"tsql": "(" + " + ".join(parts) + ")"}
        if lite:
            styles["mysql"] = f"CONCAT({', '.join(parts)})"
        return "concat", styles
    if isinstance(node, exp.GroupConcat):
        x = r(node.this)
        return "group_concat", ({"other": f"STRING_AGG({x}, ',')", "oracle": f"LISTAGG({x}, ',')"} if lite else
                                {"mysql": f"GROUP_CONCAT({x} SEPARATOR ',')", "oracle": f"LISTAGG({x}, ',')"})
    if isinstance(node, exp.StrPosition) and node.args.get("substr") is not None:
        x, s = r(node.this), r(node.args["substr"])
        return "position", {"tsql": f"CHARINDEX({s}, {x})", "mysql": f"LOCATE({s}, {x})",
                            **({} if lite else {"sqlite": f"INSTR({x}, {s})"})}  # fmt: skip
    return None


def _foreign_function(ctx: _Ctx) -> tuple[str, str] | None:
    tree = ctx.fresh()
    if tree is None:
        return None
    found: dict[str, list[tuple[exp.Expression, dict[str, str]]]] = {}
    for node in reversed(list(tree.walk())):
        got = _foreign_candidates(ctx, node)
        if got and got[1]:
            found.setdefault(got[0], []).append((node, got[1]))
    if not found:
        return None
    family = _pick(ctx.rng, sorted(found))
    style = _pick(ctx.rng, sorted({s for _n, st in found[family] for s in st}))
    used = []
    for node, styles in found[family]:
        text = styles.get(style) or styles[sorted(styles)[0]]
        node.replace(exp.Var(this=text))
        used.append(text.split("(")[0])
    return _present(ctx, ctx.render(tree)), f"{family} written in {style} style: {', '.join(dict.fromkeys(used))}"


_FLOATY = {exp.DataType.Type.DOUBLE, exp.DataType.Type.FLOAT, exp.DataType.Type.DECIMAL}


def _foreign_operator(ctx: _Ctx) -> tuple[str, str] | None:
    tree = ctx.fresh()
    if tree is None:
        return None
    r = lambda e: e.sql(dialect=ctx.d)  # noqa: E731
    fam: dict[str, list[tuple[exp.Expression, str]]] = {}
    lite = ctx.d == "sqlite"
    cast_style = ctx.rng.choice(["pg", "convert"] if lite else ["convert", "float64", "number", "double"])
    for node in reversed(list(tree.walk())):
        if isinstance(node, exp.Like) and isinstance(node.this, exp.Lower) and lite:
            pat = node.expression.this if isinstance(node.expression, exp.Lower) else node.expression
            fam.setdefault("ilike", []).append((node, f"{r(node.this.this)} ILIKE {r(pat)}"))
        if isinstance(node, (exp.Like, exp.ILike)) and isinstance(node.expression, exp.Literal):
            pat = node.expression.this
            rx = ("" if pat.startswith("%") else "^") + re.escape(pat.strip("%")).replace("%", ".*").replace("_", ".") + ("" if pat.endswith("%") else "$")
            fam.setdefault("regexp", []).append((node, f"{r(node.this)} REGEXP '{rx}'"))
        if isinstance(node, exp.ILike) and not lite:
            fam.setdefault("collate_nocase", []).append((node, f"{r(node.this)} LIKE {r(node.expression)} COLLATE NOCASE"))
        if isinstance(node, exp.Cast) and node.to.this in (_FLOATY | {exp.DataType.Type.INT, exp.DataType.Type.BIGINT}):
            x, floaty = r(node.this), node.to.this in _FLOATY
            if isinstance(node.this, (exp.Binary, exp.Case)):
                x = f"({x})"
            text = {"pg": f"{x}::{'float' if floaty else 'int'}", "convert": f"CONVERT({'FLOAT' if floaty else 'INT'}, {r(node.this)})",
                    "float64": f"CAST({r(node.this)} AS {'FLOAT64' if floaty else 'INT64'})",
                    "number": f"CAST({r(node.this)} AS NUMBER)", "double": f"CAST({r(node.this)} AS {'DOUBLE' if floaty else 'INTEGER'})"}[cast_style]  # fmt: skip
            fam.setdefault("cast", []).append((node, text))
        if isinstance(node, exp.Case) and len(node.args.get("ifs") or []) == 1 and node.this is None:
            branch = node.args["ifs"][0]
            other = r(node.args["default"]) if node.args.get("default") is not None else "NULL"
            fam.setdefault("if", []).append((node, f"IF({r(branch.this)}, {r(branch.args['true'])}, {other})"))
        if isinstance(node, exp.EQ) and not lite:
            if isinstance(node.expression, exp.Boolean):
                fam.setdefault("bool_int", []).append((node, f"{r(node.this)} = {1 if node.expression.this else 0}"))
            elif isinstance(node.expression, exp.Literal):
                fam.setdefault("eqeq", []).append((node, f"{r(node.this)} == {r(node.expression)}"))
    if not fam:
        return None
    family = _pick(ctx.rng, sorted(fam))
    for node, text in fam[family]:
        node.replace(exp.Var(this=text))
    return _present(ctx, ctx.render(tree)), f"{family} written with another dialect's syntax ({len(fam[family])}x)"


# --------------------------------------------------------------------------------------------- aggregate kinds
def _missing_group_by(ctx: _Ctx) -> tuple[str, str] | None:
    tree = ctx.fresh()
    if tree is None:
        return None
    cands = []
    for sel in tree.find_all(exp.Select):
        group = sel.args.get("group")
        if group is None or any(e.find(exp.Window) for e in sel.expressions):
            continue
        plain = [e for e in sel.expressions if not e.find(exp.AggFunc) and not e.find(exp.Star) and e.find(exp.Column)]
        if plain and any(e.find(exp.AggFunc) for e in sel.expressions):
            cands.append((sel, group, plain))
    if not cands:
        return None
    sel, group, plain = _pick(ctx.rng, cands)
    shown = {(e.this if isinstance(e, exp.Alias) else e).sql() for e in plain} | {e.alias_or_name for e in plain}
    partial = [g for g in group.expressions if g.sql() in shown] if len(group.expressions) > 1 else []
    if partial and ctx.rng.random() < 0.4:
        drop = _pick(ctx.rng, partial)
        group.set("expressions", [g for g in group.expressions if g is not drop])
        what = f"GROUP BY misses selected column {drop.sql(dialect=ctx.d)}"
    else:
        sel.set("group", None)
        what = "GROUP BY left out, selected columns bare beside the aggregate"
    return _present(ctx, ctx.render(tree)), what


def _aggregate_in_where(ctx: _Ctx) -> tuple[str, str] | None:
    tree = ctx.fresh()
    if tree is None:
        return None
    opts = []
    for sel in tree.find_all(exp.Select):
        if sel.args.get("having") is not None and sel.args["having"].find(exp.AggFunc):
            opts.append(("having", sel, None))
    for sub in tree.find_all(exp.Subquery):
        inner = sub.this
        if not (isinstance(sub.parent, (exp.EQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NEQ)) and isinstance(inner, exp.Select)):
            continue
        outer = sub.parent.find_ancestor(exp.Select)
        if (outer is None or sub.parent.find_ancestor(exp.Where) is None or len(inner.expressions) != 1
                or any(inner.args.get(k) for k in ("where", "group", "joins", "having"))):
            continue
        agg = inner.expressions[0].unalias()
        src, osrc = inner.args.get("from_"), outer.args.get("from_")
        if (isinstance(agg, exp.AggFunc) and src is not None and osrc is not None and isinstance(src.this, exp.Table)
                and isinstance(osrc.this, exp.Table) and src.this.name.lower() == osrc.this.name.lower()):
            opts.append(("inline", sub, agg))
    sel = tree if isinstance(tree, exp.Select) else None
    lim = sel.args.get("limit") if sel is not None else None
    if lim is not None and isinstance(lim.expression, exp.Literal) and lim.expression.this == "1" and sel.args.get("order"):
        keys = [o for o in sel.args["order"].expressions if not isinstance(o.this, exp.Case)]
        key = keys[-1] if len(keys) == 1 else None
        target = key.this if key is not None else None
        for e in sel.expressions:  # ORDER BY an output alias: the expression behind it
            if isinstance(target, exp.Column) and not target.table and isinstance(e, exp.Alias) and e.alias == target.name:
                target = e.this
        aggs = any(e.find(exp.AggFunc) for e in sel.expressions)
        if target is not None and target.find(exp.AggFunc) and sel.args.get("group") is not None:
            opts.append(("top_group", sel, (target, key)))
        elif isinstance(target, exp.Column) and sel.args.get("group") is None and not aggs:
            opts.append(("top_row", sel, (target, key)))
    if not opts:
        return None
    how, node, agg = _pick(ctx.rng, opts)
    if how in ("top_row", "top_group"):
        target, key = agg
        best = (exp.Max if key.args.get("desc") else exp.Min)(this=target.copy())
        cond = exp.EQ(this=target.copy(), expression=best)
        clause = "where" if how == "top_row" else "having"
        old = node.args.get(clause)
        node.set(clause, (exp.Where if clause == "where" else exp.Having)(this=exp.and_(old.this, cond) if old else cond))
        node.set("order", None)
        node.set("limit", None)
        return _present(ctx, ctx.render(tree)), f"ORDER BY .. LIMIT 1 written as {clause.upper()} {cond.sql(dialect=ctx.d)}"
    if how == "having":
        cond = node.args["having"].this
        where = node.args.get("where")
        node.set("where", exp.Where(this=exp.and_(where.this, cond) if where is not None else cond))
        node.set("having", None)
        what = "HAVING condition written in WHERE"
    else:
        agg = agg.copy()
        for c in agg.find_all(exp.Column):
            c.set("table", None)
        node.replace(agg)
        what = f"scalar subquery replaced by {agg.sql(dialect=ctx.d)} in WHERE"
    return _present(ctx, ctx.render(tree)), what


# --------------------------------------------------------------------------------------------- alias kinds
def _alias_misuse(ctx: _Ctx) -> tuple[str, str] | None:
    tree = ctx.tree
    if tree is None:
        return None
    opts: list[tuple[float, list[tuple[int, int, str]], str]] = []
    for col, table, src, scope, sources in ctx.refs():
        q = col.args.get("table")
        if q is None or not _span(q):
            continue
        kind, node, _t = sources[src]
        if node is not None and node.alias and node.alias.lower() != node.name.lower():
            opts.append((1.0, [(*_span(q), node.name)], f"{col.table}.{col.name} written {node.name}.{col.name} after aliasing"))
        others = [k for k, s in sources.items() if k != src and s[0] == "table" and s[2] is not None
                  and not s[2].column(col.name)]  # fmt: skip
        if others:
            k = _pick(ctx.rng, sorted(others))
            opts.append((1.0, [(*_span(q), k)], f"{col.table}.{col.name} qualified with the other alias {k}"))
    for sel in tree.find_all(exp.Select):
        for clause in ("where", "having"):
            part = sel.args.get(clause)
            if part is None:
                continue
            text = part.sql(dialect=ctx.d)
            if ctx.sql.count(text) != 1:
                continue
            for e in sel.expressions:
                if isinstance(e, exp.Alias) and not isinstance(e.this, exp.Column):
                    inner = e.this.sql(dialect=ctx.d)
                    if inner in text[6:] and ctx.sql.count(inner) >= 2:
                        at = ctx.sql.index(text)
                        new = text.replace(inner, e.alias, 1)
                        opts.append((0.3 if ctx.d == "sqlite" else 1.5, [(at, at + len(text), new)],
                                     f"output alias {e.alias} used in {clause.upper()}"))
    if not opts:
        return None
    total, roll = sum(o[0] for o in opts), ctx.rng.random()
    roll *= total
    for w, edits, what in opts:
        if roll < w:
            break
        roll -= w
    out = _splice(ctx.sql, edits)
    return (_present(ctx, out), what) if out and out != ctx.sql else None


def _ambiguous_column(ctx: _Ctx) -> tuple[str, str] | None:
    if ctx.tree is None:
        return None
    opts = []
    for col, _table, _src, scope, sources in ctx.refs():
        q = col.args.get("table")
        if q is None or not _span(q) or not _span(col.this):
            continue
        using = {i.name.lower() for j in scope.expression.args.get("joins") or [] for i in j.args.get("using") or []}
        owners = [k for k, s in sources.items() if (s[0] == "table" and s[2] is not None and s[2].column(col.name))
                  or (s[0] == "derived" and col.name.lower() in s[2])]  # fmt: skip
        if len(owners) >= 2 and col.name.lower() not in using:
            in_join = col.find_ancestor(exp.Join) is not None
            opts.append((col, q, in_join))
    if not opts:
        return None
    pool = [o for o in opts if not o[2]] or opts
    col, q, _ = _pick(ctx.rng, pool)
    start = _span(q)[0]
    out = _splice(ctx.sql, [(start, _span(col.this)[0], "")])
    return (_present(ctx, out), f"{col.table}.{col.name} left unqualified though two joined tables have {col.name}"
            ) if out and out != ctx.sql else None


# --------------------------------------------------------------------------------------------- silent kinds
def _key_like(name: str) -> bool:
    n = name.lower()
    return n == "id" or n.endswith(("_id", "id", "_code", "_no", "_num", "_key")) and len(n) > 2


def _links(schema: Any) -> list[tuple[Any, str, Any, str]]:
    """Joinable (table, column, other table, column) pairs: declared keys, then naming conventions."""
    out: list[tuple[Any, str, Any, str]] = []
    for t in schema.tables:
        for fk in t.foreign_keys:
            p = schema.table(fk.ref_table)
            if p is not None and len(fk.columns) == 1:
                out.append((t, fk.columns[0], p, fk.ref_columns[0]))
    for p in schema.tables:
        keys = [p.primary_key[0]] if len(p.primary_key) == 1 else [c.name for c in p.columns if _key_like(c.name)]
        sing = _singular(_words(p.name)[0][-1])
        for key in keys:
            core = key[2:] if re.match(r"^[a-z]{2}[A-Z]", key) else key  # sbCustId -> CustId
            for c in schema.tables:
                if c is p:
                    continue
                for col in c.columns:
                    n = col.name
                    same = n.lower() == key.lower() and key.lower() != "id" and _key_like(n)
                    by_id = key.lower() == "id" and n.lower() in (f"{sing}_id", f"{sing}id")
                    by_core = core != key and n.lower().endswith(core.lower()) and n.lower() != key.lower()
                    if same or by_id or by_core:
                        out.append((c, n, p, key))
    return out


def _silent_extra_join(ctx: _Ctx) -> tuple[str, str] | None:
    tree = ctx.fresh()
    if tree is None:
        return None
    used = {t.qualified_name for t in ctx.query_tables()}
    links = _links(ctx.schema)
    opts = []
    for sel in tree.find_all(exp.Select):
        if any(e.find(exp.Star) for e in sel.expressions):
            continue
        sources = [sel.args["from_"].this] if sel.args.get("from_") else []
        sources += [j.this for j in sel.args.get("joins") or []]
        bare = {c.name.lower() for c in sel.find_all(exp.Column) if not c.table}
        aliases = {s.alias_or_name.lower() for s in tree.find_all(exp.Table)}
        for node in sources:
            t = ctx.table_of(node) if isinstance(node, exp.Table) else None
            if t is None:
                continue
            for a, acol, b, bcol in links:
                for me, mcol, other, ocol, child in ((b, bcol, a, acol, True), (a, acol, b, bcol, False)):
                    if me is t and other.qualified_name not in used and not ({c.name.lower() for c in other.columns} & bare):
                        opts.append((sel, node, mcol, other, ocol, child, aliases))
    if not opts:
        return None
    children = [o for o in opts if o[5]]
    sel, node, mcol, other, ocol, _child, aliases = _pick(ctx.rng, children if children and ctx.rng.random() < 0.75 else opts)
    alias = next(a for a in ("".join(w[0] for w in _words(other.name)[0]), other.name[:2].lower(), "x", "x2", "x3")
                 if a not in aliases and a not in _TABLE_ALIAS_FAILS[ctx.d] | _TABLE_ALIAS_FAILS["postgres"])
    q = node.alias_or_name
    qn = other.qualified_name
    on = exp.EQ(this=exp.column(ocol, alias, quoted=not re.fullmatch(r"[a-z_][a-z0-9_]*", ocol) and ctx.d == "postgres"),
                expression=exp.column(mcol, q, quoted=not re.fullmatch(r"[a-z_][a-z0-9_]*", mcol) and ctx.d == "postgres"))
    join = sqlglot.parse_one(f"SELECT 1 FROM x JOIN {qn} AS {alias} ON 1 = 1", read=ctx.d).args["joins"][0]
    join.set("on", on)
    sel.set("joins", [*(sel.args.get("joins") or []), join])
    return _present(ctx, ctx.render(tree)), f"extra inner join to {qn} on {ocol} = {q}.{mcol}, no column used"


def _silent_group_by_label(ctx: _Ctx) -> tuple[str, str] | None:
    tree = ctx.fresh()
    if tree is None:
        return None
    sub = _Ctx(ctx.sql, ctx.schema, ctx.rng)
    sub._tree, sub._parsed = tree, True
    resolved = {id(c): t for c, t, *_ in sub.refs()}
    opts = []
    for sel in tree.find_all(exp.Select):
        group = sel.args.get("group")
        if group is None:
            continue
        shown = {e.unalias().sql() for e in sel.expressions if not e.find(exp.AggFunc)}
        for g in group.expressions:
            if not isinstance(g, exp.Column) or g.sql() in shown:
                continue
            t = resolved.get(id(g))
            is_key = (t is not None and len(t.primary_key) == 1 and t.primary_key[0].lower() == g.name.lower()) or _key_like(g.name)
            if is_key and len(group.expressions) > 1:
                opts.append((group, g))
        labels = [e for e in sel.expressions if isinstance(e, exp.Column) and e.table]
        keys = [g for g in group.expressions if isinstance(g, exp.Column) and g.sql() not in shown]
        if keys and len(keys) == len(group.expressions) and all(_key_like(g.name) for g in keys):
            same = [lab for lab in labels if lab.table in {g.table for g in keys}]
            if same:
                opts.append((group, same))
    if not opts:
        return None
    group, g = _pick(ctx.rng, opts)
    if isinstance(g, list):
        before = ", ".join(e.sql(dialect=ctx.d) for e in group.expressions)
        group.set("expressions", [lab.copy() for lab in g])
        return _present(ctx, ctx.render(tree)), f"GROUP BY {before} replaced by the shown labels"
    group.set("expressions", [e for e in group.expressions if e is not g])
    return _present(ctx, ctx.render(tree)), f"key {g.sql(dialect=ctx.d)} dropped from GROUP BY, equal labels merge"


def _float_forcers(e: exp.Expression) -> list[tuple[exp.Expression, exp.Expression]]:
    """(node, replacement) pairs that make a division operand fractional: CAST(.. AS REAL), x * 1.0, 100.0 * x."""
    out = []
    node = e
    while isinstance(node, (exp.Paren, exp.Nullif)) or (isinstance(node, exp.Anonymous) and node.name.upper() == "NULLIF"):
        node = node.this if not isinstance(node, exp.Anonymous) else node.expressions[0]
    if isinstance(node, exp.Cast) and node.to.this in _FLOATY:
        out.append((node, node.this.copy()))
    elif isinstance(node, exp.Literal) and not node.is_string and re.fullmatch(r"\d+\.0*", str(node.this)):
        out.append((node, exp.Literal.number(str(node.this).split(".")[0])))  # / 60.0 -> / 60
    elif isinstance(node, exp.Mul):
        for lit, other in ((node.this, node.expression), (node.expression, node.this)):
            if isinstance(lit, exp.Literal) and not lit.is_string and "." in lit.this:
                num = lit.this.rstrip("0").rstrip(".")
                out.append((node, other.copy() if num == "1" else exp.Mul(this=exp.Literal.number(num), expression=other.copy())))
                break
        else:
            for side in (node.this, node.expression):
                out += _float_forcers(side)
    return out


def _silent_integer_division(ctx: _Ctx) -> tuple[str, str] | None:
    tree = ctx.fresh()
    if tree is None:
        return None
    pairs = []
    for div in tree.find_all(exp.Div):
        pairs += _float_forcers(div.this) + _float_forcers(div.expression)
    if not pairs:
        return None
    for node, repl in pairs:
        node.replace(repl)
    return _present(ctx, ctx.render(tree)), f"CAST / * 1.0 left out of {len(pairs)} division operand(s)"


def _silent_missing_distinct(ctx: _Ctx) -> tuple[str, str] | None:
    tree = ctx.fresh()
    if tree is None:
        return None
    opts: list[tuple[str, exp.Expression]] = [("select", s) for s in tree.find_all(exp.Select) if s.args.get("distinct")]
    opts += [("count", c) for c in tree.find_all(exp.Count) if isinstance(c.this, exp.Distinct) and len(c.this.expressions) == 1]
    if not opts:
        return None
    how, node = _pick(ctx.rng, opts)
    if how == "select":
        node.set("distinct", None)
        what = "DISTINCT dropped from SELECT"
    else:
        node.set("this", node.this.expressions[0].copy())
        what = f"COUNT(DISTINCT {node.this.sql(dialect=ctx.d)}) written without DISTINCT"
    return _present(ctx, ctx.render(tree)), what


def _silent_count_nulls(ctx: _Ctx) -> tuple[str, str] | None:
    """COUNT's NULL rule missed: COUNT(*) for COUNT(col), COUNT(CASE .. ELSE 0 END) for a conditional count."""
    tree = ctx.fresh()
    if tree is None:
        return None
    sub = _Ctx(ctx.sql, ctx.schema, ctx.rng)
    sub._tree, sub._parsed = tree, True
    resolved = {id(c): (t, src, scope) for c, t, src, scope, _s in sub.refs()}
    opts = []
    for cnt in tree.find_all(exp.Count):
        arg = cnt.this
        if isinstance(arg, exp.Column) and id(arg) in resolved:
            t, src, scope = resolved[id(arg)]
            outer = any(j.side == "LEFT" and j.this.alias_or_name == src for j in scope.expression.args.get("joins") or [])
            if outer or getattr(t.column(arg.name), "nullable", True):
                opts += [("star", cnt)] * (3 if outer else 1)
        elif isinstance(arg, exp.Case) and arg.args.get("default") is None and len(arg.args.get("ifs") or []) == 1:
            opts += [("else0", cnt)] * 2
    for s_ in tree.find_all(exp.Sum):
        arg = s_.this
        if (isinstance(arg, exp.Case) and len(arg.args.get("ifs") or []) == 1
                and arg.args["ifs"][0].args.get("true") == exp.Literal.number(1)
                and arg.args.get("default") == exp.Literal.number(0)):
            opts += [("sum", s_)] * 2
    if not opts:
        return None
    how, node = _pick(ctx.rng, opts)
    before = node.sql(dialect=ctx.d)
    if how == "star":
        node.set("this", exp.Star())
    elif how == "else0":
        node.this.set("default", exp.Literal.number(0))
    else:
        node.replace(exp.Count(this=node.this.copy()))
    return _present(ctx, ctx.render(tree)), f"{before} written as a COUNT that also counts the non-matching rows"


# --------------------------------------------------------------------------------------------- entry point
_KINDS = {
    "prose_wrapped": _prose_wrapped, "two_blocks": _two_blocks, "column_name": _column_name,
    "table_name": _table_name, "reserved_word": _reserved_word, "quoting_slip": _quoting_slip,
    "foreign_limit": _foreign_limit, "foreign_function": _foreign_function, "foreign_operator": _foreign_operator,
    "missing_group_by": _missing_group_by, "aggregate_in_where": _aggregate_in_where,
    "alias_misuse": _alias_misuse, "ambiguous_column": _ambiguous_column,
    "silent_extra_join": _silent_extra_join, "silent_group_by_label": _silent_group_by_label,
    "silent_integer_division": _silent_integer_division, "silent_missing_distinct": _silent_missing_distinct,
    "silent_count_nulls": _silent_count_nulls,
}  # fmt: skip


def _rng(gold_sql: str, kind: str, seed: int) -> random.Random:
    digest = hashlib.sha256(f"fresh2\x00{kind}\x00{seed}\x00{gold_sql}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def damage(gold_sql: str, schema: Any, kind: str, seed: int = 0) -> Damaged | None:
    """The reply a small model might write instead of ``gold_sql``, damaged in one way; None when ``kind`` does not
    apply to this query (or is unknown)."""
    if kind == "clean":
        return Damaged(kind, gold_sql, "the gold query, unchanged")
    fn = _KINDS.get(kind)
    if fn is None:
        return None
    try:
        ctx = _Ctx(gold_sql, schema, _rng(gold_sql, kind, seed))
        got = fn(ctx)
    except Exception:  # noqa: BLE001 - an unusual gold query never breaks the bench
        return None
    if got is None:
        return None
    reply, note = got
    if " ".join(reply.split()).rstrip(";") == " ".join(gold_sql.split()).rstrip(";"):
        return None
    return Damaged(kind, reply, note)
