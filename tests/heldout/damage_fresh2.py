"""Held-out damage generator "fresh2": the reply a small local model might give instead of the gold SQL.

Written without reading the repair code or the earlier generators, from published analyses of LLM-written SQL:
DIN-SQL's Spider error study (schema linking first: invented / misspelt names, a column from the wrong table; then
JOIN errors, GROUP BY errors, invalid SQL); the BIRD paper and MAC-SQL (dialect slips and execution errors, a missing
CAST in ratios, aggregates in WHERE / bare columns / nested aggregates for "the most ..."); TA-SQL's hallucination
taxonomy ("Before Generation, Align it", 2024: schema contradiction, join redundancy, clause abuse, modifier misuse
such as a lost DISTINCT); and habits of 7B coder models (qwen2.5-coder, deepseek-coder, codellama) as commonly seen:
names in the model's own convention (snake vs camel, id / _no / _num, plural tables, cust -> customer, synonyms from
the question's wording, British / American spelling), MySQL / T-SQL / Oracle functions, LIMIT syntax and quoting
leaking into SQLite and PostgreSQL, ```sqlite / ```postgresql fences, LangChain "SQLQuery:" lines, step-by-step
plans, an exploratory query or an echoed CREATE TABLE before the answer, initial-letter aliases that are keywords
(airport_service -> ``as``), COUNT over a 0/1 CASE.

Family A (meaning kept: the database rejects the reply, or the intended query follows from reply + schema):
  clean               the gold itself.
  prose_wrapped       SQL in prose: preamble, numbered plan, bullets, "SQLQuery:", "Answer:", odd or no fence tag.
  two_blocks          an exploratory / draft / CREATE TABLE block before the answer, or example output / MySQL after.
  column_name         one column misnamed: a convention (camel/snake, id/_no/_num, plural, table prefix added or
                      dropped, abbreviation) or a synonym guessed from the question (title/name, amount/total).
  table_name          one table misnamed: plural/singular, tbl_ prefix, camel/snake, synonym, schema prefix dropped.
  reserved_word       a bare keyword as identifier: column guessed as desc / from / to / limit, a table alias from
                      its singular name, initials or prefix (order, check, as, is, do, or), an output alias AS to.
  quoting_slip        `backticks`, [brackets], "strings", 'alias', dbo. prefix, `t.col`, typographic quotes,
                      quoted mixed-case names on PostgreSQL.
  foreign_limit       TOP n, TOP (n), FETCH FIRST (SQLite), OFFSET .. FETCH NEXT, LIMIT a, b (PostgreSQL), ROWNUM.
  foreign_function    date / null / string functions in one foreign style (MySQL, T-SQL, Oracle, the other of
                      SQLite / PostgreSQL): YEAR(), DATEPART, DATEDIFF, GETDATE(), DATE_FORMAT, strftime, DATE_SUB,
                      ISNULL / NVL / IFNULL, LEN, CONCAT or + for ||.
  foreign_operator    ILIKE and ``::`` on SQLite, ``==``, REGEXP, CONVERT(), CAST AS FLOAT64 / NUMBER / DOUBLE, IF(),
                      LIKE .. COLLATE NOCASE, booleans compared with 1 / 0.
  missing_group_by    aggregate beside bare columns: GROUP BY left out, or a selected column left out of it.
  aggregate_in_where  HAVING in WHERE; "= (SELECT MAX(x) FROM t)" as "= MAX(x)"; ORDER BY .. LIMIT 1 as
                      WHERE x = MAX(x) or HAVING COUNT(..) = MAX(COUNT(..)).
  alias_misuse        the table name used after aliasing it, the other table's alias, an output alias in WHERE.
  ambiguous_column    a column present in two joined tables left unqualified.
Family B ("silent_*": runs without error, returns other rows when the data has the case; emitted either way):
  silent_extra_join       an INNER JOIN to a related table that adds no selected column (multiplies or drops rows).
  silent_group_by_label   the key dropped from GROUP BY, or COUNT(DISTINCT key) as COUNT(DISTINCT name).
  silent_integer_division the CAST / * 1.0 / 60.0 that made a ratio fractional left out.
  silent_missing_distinct DISTINCT dropped from SELECT DISTINCT or COUNT(DISTINCT ..).
  silent_count_nulls      COUNT's NULL rule missed: COUNT(col) as COUNT(*), COUNT(CASE ..) with ELSE 0, SUM(CASE ..
                          THEN 1 ELSE 0) as COUNT.
TREE_KINDS re-render the gold through sqlglot; the others edit the gold's own text at positions sqlglot reports.
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
    "alias_misuse", "ambiguous_column", "silent_extra_join", "silent_group_by_label", "silent_integer_division",
    "silent_missing_distinct", "silent_count_nulls",
)  # fmt: skip
TREE_KINDS: tuple[str, ...] = (
    "foreign_function", "foreign_operator", "missing_group_by", "aggregate_in_where", "silent_extra_join",
    "silent_group_by_label", "silent_integer_division", "silent_missing_distinct", "silent_count_nulls",
)  # fmt: skip
Reply = tuple[str, str] | None
Edit = tuple[int, int, str]

# Measured on SQLite 3.40 and PostgreSQL 16: words that make ``FROM t AS w`` (table alias) or ``SELECT x AS w``
# (SQLite) / ``SELECT x w`` (PostgreSQL accepts any keyword after AS) fail.
_TABLE_ALIAS_FAILS = {
    "sqlite": set("all and as between case cast check collate constraint create current_date default distinct else "
                  "except foreign from group having in index is join limit not null on or order primary references "
                  "select table then to union unique using values when where".split()),
    "postgres": set("all and any array as asc both case cast check collate column constraint create current_date "
                    "current_user default desc distinct do else end except false fetch for foreign from grant group "
                    "having in inner is join left like limit natural not null offset on only or order outer primary "
                    "references right select session_user some table then to true union unique user using when "
                    "where window with".split()),
}  # fmt: skip
_OUTPUT_ALIAS_FAILS = {
    "sqlite": _TABLE_ALIAS_FAILS["sqlite"] - {"cast", "current_date"},
    "postgres": set("array as create except fetch for from grant group having limit offset on order to union where "
                    "window with".split()),
}  # fmt: skip
# A name part a model shortens a column to, giving a bare keyword (from_airport -> from, description -> desc).
_KEYWORD_OF_WORD = {
    "from": "from", "to": "to", "order": "order", "orders": "order", "group": "group", "groups": "group",
    "limit": "limit", "index": "index", "check": "check", "checkin": "check", "checkins": "check", "case": "case",
    "default": "default", "reference": "references", "references": "references", "table": "table",
    "offset": "offset", "window": "window", "primary": "primary", "unique": "unique", "values": "values",
    "user": "user", "end": "end", "desc": "desc", "description": "desc", "like": "like", "likes": "like",
    "between": "between", "only": "only", "left": "left", "right": "right", "column": "column", "when": "when",
}  # fmt: skip
_UNSAFE_BARE = {"user", "current_user", "session_user", "current_date", "true", "false", "null"}  # valid bare values

_ABBREV = {
    "customer": ["cust"], "transaction": ["txn", "tx"], "amount": ["amt"], "quantity": ["qty"],
    "number": ["num", "no"], "description": ["desc", "descr"], "address": ["addr"], "date": ["dt"],
    "timestamp": ["ts"], "department": ["dept"], "employee": ["emp"], "manager": ["mgr"], "organization": ["org"],
    "reference": ["ref"], "minimum": ["min"], "maximum": ["max"], "average": ["avg"], "count": ["cnt"],
    "message": ["msg"], "percent": ["pct"], "category": ["cat"], "information": ["info"], "payment": ["pmt"],
    "publication": ["pub"], "professor": ["prof"], "instructor": ["instr"], "product": ["prod"],
    "account": ["acct"], "balance": ["bal"], "latitude": ["lat"], "longitude": ["lng", "lon"], "sequence": ["seq"],
    "conference": ["conf"], "keyword": ["kw"], "service": ["svc"], "distance": ["dist"], "citation": ["cite"],
    "year": ["yr"], "telephone": ["tel"], "business": ["biz"], "symbol": ["sym"], "treatment": ["trt"],
    "diagnosis": ["dx"], "patient": ["pt"], "doctor": ["dr", "doc"], "created": ["crtd"], "status": ["stat"],
    "student": ["stu"], "course": ["crs"], "semester": ["sem"],
}  # fmt: skip
_EXPAND = {short: full for full, shorts in _ABBREV.items() for short in shorts if short not in ("no", "pt")}
_SYNONYMS = {
    "name": ["title", "label"], "title": ["name", "heading"], "amount": ["total", "value"], "total": ["amount", "sum"],
    "price": ["cost", "amount"], "cost": ["price", "fare"], "date": ["day", "time"],
    "rating": ["score", "stars"], "score": ["rating", "points"], "email": ["mail", "email_address"],
    "phone": ["telephone", "phone_number"], "state": ["province", "region"], "country": ["nation", "country_code"],
    "city": ["town", "city_name"], "status": ["state", "condition"], "type": ["kind", "category"],
    "category": ["type", "genre"], "description": ["details", "summary"], "text": ["content", "body"],
    "message": ["content", "body"], "balance": ["funds"], "quantity": ["units"], "count": ["total", "number"],
    "created": ["creation", "added"], "updated": ["modified", "changed"], "first": ["given"], "last": ["family"],
    "username": ["login", "user_name"], "customer": ["client", "buyer"], "salesperson": ["seller", "sales_rep"],
    "vendor": ["supplier", "payee"], "make": ["brand", "manufacturer"], "manufacturer": ["maker", "brand"],
    "color": ["colour"], "colour": ["color"], "neighbourhood": ["neighborhood"], "neighborhood": ["neighbourhood"],
    "organization": ["organisation", "institution"], "sale": ["purchase", "order"], "method": ["type", "mode"],
    "start": ["begin"], "end": ["finish"], "departure": ["depart", "takeoff"], "arrival": ["arrive", "landing"],
    "airline": ["carrier"], "fare": ["price", "ticket"], "meal": ["food"], "food": ["cuisine", "dish"],
    "street": ["road"], "region": ["area", "zone"], "county": ["district"], "homepage": ["website", "url"],
    "abstract": ["summary"], "citation": ["reference"], "keyword": ["tag", "term"], "journal": ["venue"],
    "conference": ["venue", "event"], "domain": ["field", "area"], "author": ["writer", "researcher"],
    "publication": ["paper", "article"], "likes": ["votes"], "business": ["company", "store"],
    "user": ["member", "account"], "tip": ["comment"], "day": ["weekday"], "merchant": ["store", "seller"],
    "coupon": ["voucher", "promo"], "notification": ["alert"], "session": ["visit"], "sender": ["payer"],
    "receiver": ["payee", "recipient"], "inventory": ["stock"], "track": ["song"], "artist": ["performer", "band"],
    "invoice": ["bill"], "employee": ["staff", "worker"], "milliseconds": ["duration"], "bytes": ["size"],
    "composer": ["writer"], "hire": ["start"], "termination": ["end", "exit"], "doctor": ["physician"],
    "drug": ["medication", "medicine"], "treatment": ["therapy"], "ticker": ["stock", "symbol"],
    "course": ["class", "subject"], "instructor": ["teacher", "professor"], "semester": ["term"],
    "population": ["inhabitants"], "mountain": ["peak"], "capacity": ["seats"], "writes": ["authorship"],
}  # fmt: skip
_WHOLE_SYNONYMS = {
    "created_at": ["created_date", "creation_date", "date_created"], "updated_at": ["modified_at", "last_updated"],
    "first_name": ["fname", "given_name"], "last_name": ["lname", "surname"], "pay_load": ["payload"],
    "zip_code": ["zipcode", "postal_code"], "postal_code": ["zip_code", "zip"], "vin_number": ["vin"],
    "is_open": ["open", "is_active"], "username": ["user_name", "login"], "name": ["full_name", "title"],
    "birth_date": ["dob", "date_of_birth"], "hire_date": ["hired_on", "start_date"], "crtd_ts": ["created_at"],
}  # fmt: skip
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


# ------------------------------------------------------------------------------------------------ name distortion
def _words(name: str) -> tuple[list[str], str]:
    """Lower-case parts of an identifier and its style (snake, camel, pascal, single)."""
    if "_" in name.strip("_"):
        return [w.lower() for w in name.split("_") if w], "snake"
    parts = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", name)
    if len(parts) > 1 and name != name.lower():
        return [p.lower() for p in parts], "pascal" if name[0].isupper() else "camel"
    return [name.lower()], "single"


def _join(words: list[str], style: str) -> str:
    if style in ("camel", "pascal"):
        return (words[0].capitalize() if style == "pascal" else words[0]) + "".join(w.capitalize() for w in words[1:])
    return "_".join(words)


def _singular(w: str) -> str:
    if w.endswith("people"):
        return w[:-6] + "person"
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if re.search(r"(ss|x|ch|sh|ses)es$", w):
        return w[:-2]
    return w[:-1] if w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) > 3 else w


def _plural(w: str) -> str:
    if w.endswith("person"):
        return w[:-6] + "people"
    if re.search(r"[^aeiou]y$", w):
        return w[:-1] + "ies"
    return w + "es" if w.endswith(("s", "x", "ch", "sh")) else w + "s"


def _flip_number(w: str) -> str:
    return _plural(w) if _singular(w) == w else _singular(w)


def _swap(words: list[str], i: int, alt: str, style: str) -> str:
    return _join([*words[:i], *alt.split("_"), *words[i + 1:]], style if style != "single" else "snake")


def _noun(words: list[str]) -> int:
    """Index of a name's head noun: the last part that is not a participle or period (payments_received)."""
    return next((i for i in range(len(words) - 1, -1, -1)
                 if not words[i].endswith("ed") and words[i] not in ("daily", "made", "weekly", "monthly")), 0)


def _convention_names(col: str, table: str) -> list[str]:
    """Same words, another naming convention: what a model writes when it guesses the schema's style wrong."""
    words, style = _words(col)
    twords = _words(table)[0]
    tsing = _singular(twords[_noun(twords)])
    out: list[str] = []
    if len(words) > 1:
        out += [_join(words, "snake" if style != "snake" else "camel"), "".join(words)]
    if style in ("camel", "pascal") and len(words) > 2 and len(words[0]) <= 3:  # vendor prefix: sbCustName
        out += [_join(words[1:], style), _join(words[1:], "snake")]
    last = words[-1]
    swaps = {"id": ["no", "num", "key", "code"], "no": ["id", "num", "number"], "num": ["number", "no", "count"],
             "number": ["num", "no", "nbr"], "code": ["id", "cd"], "count": ["cnt", "num"], "ts": ["timestamp", "at"],
             "at": ["date", "ts", "on"], "date": ["dt"]}  # fmt: skip
    out += [_swap(words, len(words) - 1, alt, style) for alt in swaps.get(last, []) if len(words) > 1]
    if re.fullmatch(r"[a-z]{1,3}id", col.lower()) and table.lower().startswith(col[0].lower()):
        out += [f"{tsing}_id", f"{tsing}Id", "id"]  # aid -> author_id
    if col.lower() == "id":
        out += [f"{tsing}_id", f"{tsing}id"]
    known = last in _SYNONYMS or last in _ABBREV or (style != "single" and len(last) <= 8)
    if known and last not in ("id", "no", "at", "ts", "code", "num", "name") and len(last) > 3:
        out.append(_swap(words, len(words) - 1, _flip_number(last), style))  # stops -> stop, rating -> ratings
    if len(words) == 2 and words[1] in ("num", "count", "number"):
        out.append(f"{words[1]}_{_plural(words[0])}")  # citation_num -> num_citations
    if style == "single" and (last in _SYNONYMS or last in _ABBREV):
        out.append(f"{tsing}_{col.lower()}")  # name -> author_name
    if style == "single" and len(last) > 4 and last.endswith("id"):
        out.append(f"{col[:-2]}_{col[-2:]}")  # authorid -> author_id
    if len(words) > 1 and words[0] in (tsing, twords[0]):
        out.append(_join(words[1:], style))  # airline_name -> name
    for i, w in enumerate(words):
        out += [_swap(words, i, alt, style) for alt in _ABBREV.get(w, [])[:2] + ([_EXPAND[w]] if w in _EXPAND else [])]
    return out


def _word_synonyms(w: str) -> list[str]:
    """Synonyms of one name part, plural when the part is plural (salespersons -> sellers)."""
    if w in _SYNONYMS:
        return _SYNONYMS[w]
    s = _singular(w)
    return [_plural(a) if "_" not in a else a for a in _SYNONYMS.get(s, [])] if s != w else []


def _synonym_names(col: str) -> list[str]:
    words, style = _words(col)
    out = list(_WHOLE_SYNONYMS.get(col.lower(), []))
    out += [_swap(words, i, alt, style) for i, w in enumerate(words) for alt in _word_synonyms(w)
            if len(words) == 1 or (w != "name" and "_" not in alt)]  # city_name -> town_name, not city_title
    return [n for n in out if not re.search(r"(^|_)([a-z]+)_\2(_|$)", n)]  # no city_name_name


def _table_names(name: str) -> tuple[list[str], list[str]]:
    """(convention variants, synonym variants) of a table name; the plural flips on the noun (payments_received)."""
    words, style = _words(name)
    noun = _noun(words)
    conv = [_swap(words, noun, _flip_number(words[noun]), style), f"tbl_{name}", f"t_{name}"]
    conv += ["".join(words), _join(words, "pascal")] if len(words) > 1 else []
    syn = [_swap(words, i, alt, style) for i, w in enumerate(words) for alt in _word_synonyms(w)]
    return conv, syn


# ------------------------------------------------------------------------------------------------ shared machinery
class _Ctx:
    """The gold parsed once (text without the closing semicolon), with helpers shared by the kinds."""

    def __init__(self, gold: str, schema: Any, rng: random.Random) -> None:
        self.sql, self.schema, self.rng = gold.strip().rstrip(";").rstrip(), schema, rng
        self.d = "postgres" if str(schema.dialect).startswith("postgres") else "sqlite"
        try:
            trees = [t for t in sqlglot.parse(self.sql, read=self.d) if t is not None]
            tree = trees[0] if len(trees) == 1 else None
        except sqlglot.errors.SqlglotError:
            tree = None
        self.tree = tree
        self.ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)} if tree is not None else set()

    def fresh(self) -> exp.Expression:
        return self.tree.copy()

    def render(self, tree: exp.Expression) -> str:
        return tree.sql(dialect=self.d, pretty=self.rng.random() < 0.35)

    def table_of(self, node: exp.Table) -> Any:
        if not node.name or (not node.db and node.name.lower() in self.ctes):
            return None
        return self.schema.table(f"{node.db}.{node.name}" if node.db else node.name)

    def query_tables(self) -> list[Any]:
        found = (self.table_of(n) for n in (self.tree.find_all(exp.Table) if self.tree is not None else ()))
        return list({t.qualified_name: t for t in found if t is not None}.values())

    def taken(self) -> set[str]:
        """Every name a new identifier must not collide with, so that the damage really misses."""
        names = {i.name.lower() for i in self.tree.find_all(exp.Identifier)}
        return names | {c.name.lower() for t in self.query_tables() for c in t.columns}

    def refs(self, tree: exp.Expression | None = None) -> list[tuple[exp.Column, Any, str, Any, dict]]:
        """Column references resolved to a schema table: (column, table, source name, scope, sources), where
        sources maps a name to ("table", Table node, schema table) or ("derived", None, its column names)."""
        out = []
        for scope in traverse_scope(tree or self.tree):
            sources: dict[str, tuple[str, Any, Any]] = {}
            for name, src in scope.sources.items():
                if isinstance(src, exp.Table):
                    sources[name] = ("table", src, self.table_of(src))
                else:
                    selects = getattr(getattr(src, "expression", None), "named_selects", None) or []
                    sources[name] = ("derived", None, {c.lower() for c in selects})
            for col in scope.columns:
                if not isinstance(col.this, exp.Identifier) or col.args.get("db"):
                    continue
                name = col.name.lower()
                hits = [(k, s) for k, s in sources.items() if (not col.table or k == col.table) and _has(s, name)]
                if len(hits) == 1 and hits[0][1][0] == "table":
                    out.append((col, hits[0][1][2], hits[0][0], scope, sources))
        return out

    def tokens(self) -> list[Any]:
        return list(sqlglot.Dialect.get_or_raise(self.d).tokenize(self.sql))

    def out(self, edits: list[Edit], what: str) -> Reply:
        """The gold's text with the edits applied, handed over the way a model would."""
        edits = sorted(set(edits))
        if not edits or any(b[0] < a[1] for a, b in zip(edits, edits[1:])):
            return None
        text = self.sql
        for start, end, repl in reversed(edits):
            text = text[:start] + repl + text[end:]
        return (_present(self, text), what) if text != self.sql else None

    def tree_out(self, tree: exp.Expression, what: str) -> Reply:
        return _present(self, self.render(tree)), what


def _has(source: tuple[str, Any, Any], column: str) -> bool:
    """Whether a scope source (see _Ctx.refs) has the column."""
    kind, _node, what = source
    return (kind == "table" and what is not None and what.column(column) is not None) or (
        kind == "derived" and column.lower() in what)


def _span(ident: Any) -> tuple[int, int] | None:
    meta = getattr(ident, "meta", None) or {}
    return (meta["start"], meta["end"] + 1) if isinstance(ident, exp.Identifier) and "start" in meta else None


def _ident_like(ctx: _Ctx, ident: exp.Identifier, new: str) -> str:
    """``new`` quoted the way the gold quoted ``ident``."""
    q = ctx.sql[_span(ident)[0]]
    return f"{q}{new}{']' if q == '[' else q}" if q in "\"`[" else new


def _present(ctx: _Ctx, sql: str) -> str:
    """A bare query as a model hands it over: as is, fenced, or with a closing semicolon."""
    roll = ctx.rng.random()
    if roll < 0.3:
        return f"```sql\n{sql}{';' if ctx.rng.random() < 0.5 else ''}\n```"
    return sql + ";" if roll < 0.45 else sql


def _pick(rng: random.Random, options: list[Any]) -> Any:
    return options[rng.randrange(len(options))] if options else None


def _weighted(rng: random.Random, options: list[tuple[float, Any]]) -> Any:
    roll = rng.random() * sum(w for w, _ in options)
    for w, value in options:
        if roll < w:
            return value
        roll -= w
    return options[-1][1]


# ------------------------------------------------------------------------------------------------ prose kinds
def _plan(ctx: _Ctx) -> tuple[list[str], str]:
    """Numbered-plan sentences and a one-line explanation of the gold, the way models narrate around answers."""
    tables = [f"`{t.name}`" for t in ctx.query_tables()] or ["the relevant tables"]
    steps = [f"Identify the table{'s' if len(tables) > 1 else ''} we need: {', '.join(tables)}."]
    sel = ctx.tree.find(exp.Select) if ctx.tree is not None else None
    if sel is None:
        return steps, f"This query reads from {', '.join(tables)} and returns the requested columns."
    verbs = [v for k, v in (("joins", "joins them"), ("where", "filters the rows"), ("group", "groups and aggregates"),
                            ("order", "sorts the result")) if sel.args.get(k)]  # fmt: skip
    explain = f"This query reads from {', '.join(tables)}" + "".join(f", {v}" for v in verbs) + "."
    steps += [f"Join them on `{j.args['on'].sql(dialect=ctx.d)}`." for j in (sel.args.get("joins") or [])[:2]
              if j.args.get("on") is not None]
    if sel.args.get("where") is not None:
        steps.append(_pick(ctx.rng, ["Filter the rows in the WHERE clause.", "Apply the conditions from the question.",
                                     "Keep only the rows that match the criteria."]))
    if sel.args.get("group"):
        steps.append(f"Group by {', '.join(f'`{g.sql(dialect=ctx.d)}`' for g in sel.args['group'].expressions[:3])}"
                     " and aggregate.")
    if sel.args.get("order"):
        lim = sel.args.get("limit")
        tail = f" and keep the first {lim.expression.sql()}" if lim is not None and lim.expression is not None else ""
        steps.append(f"Sort by `{sel.args['order'].expressions[0].this.sql(dialect=ctx.d)}`{tail}.")
    return steps, explain


_TAGS = ["sql", "sql", "sql", "SQL", "sqlite", "postgresql", "pgsql", "psql", "mysql", "tsql", "plsql", ""]


def _prose_wrapped(ctx: _Ctx) -> Reply:
    rng, sql = ctx.rng, ctx.sql
    steps, explain = _plan(ctx)
    tag = _pick(rng, _TAGS)
    tag = {"sqlite": {"postgresql": "sqlite", "pgsql": "sqlite", "psql": "sqlite"},
           "postgres": {"sqlite": "postgresql"}}[ctx.d].get(tag, tag)  # fmt: skip
    fence = f"```{tag}\n{sql}{';' if rng.random() < 0.5 else ''}\n```"
    lead = _pick(rng, ["Here's the SQL query:", "Sure! Here is the query that answers your question:",
                       "The following query should work:", "Certainly. Based on the schema, you can use:"])
    style = rng.randrange(8)
    return [
        (f"{lead}\n\n{fence}\n\n{explain}", f"preamble, ```{tag} fence, explanation"),
        ("Let's think step by step.\n\n" + "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1))
         + f"\n\nFinal query:\n\n{fence}", f"numbered plan before a ```{tag} fence"),
        (f"SQLQuery: {' '.join(sql.split())}\nSQLResult: ", "LangChain-style 'SQLQuery:' line, no fence"),
        (f"To answer this, {steps[0][0].lower()}{steps[0][1:]} The SQL query is:\n\n{sql}\n\n{explain} "
         "Let me know if you need any changes!", "unfenced SQL between two paragraphs"),
        (f"{fence}\n\n**Explanation:**\n" + "\n".join(f"- {s}" for s in steps), f"```{tag} fence, bullet explanation"),
        (f"Here you go:\n```{tag}\n-- {_pick(rng, ['Answer to the question', 'Query for the requested data'])}\n"
         f"{sql};\n```\nNote: column names are taken from the schema above.", "fence with a SQL comment, a note"),
        (f"Answer:\n{sql};\n\nExplanation: {explain}", "'Answer:' prefix, SQL unfenced, explanation after"),
        (f"```\n{sql}\n```", "fence without a language tag"),
    ][style]


def _two_blocks(ctx: _Ctx) -> Reply:
    rng, sql, tree = ctx.rng, ctx.sql, ctx.tree
    tables = ctx.query_tables()
    fence = f"```sql\n{sql};\n```"
    options = ["output", "mysql"] + (["explore", "schema"] if tables else [])
    if isinstance(tree, exp.Select) and any(tree.args.get(k) is not None for k in ("where", "limit", "order")):
        options.append("draft")
    style = _pick(rng, options)
    if style == "explore":
        t = _pick(rng, tables)
        col = _pick(rng, [c.name for c in t.columns if c.value_hints] or [c.name for c in t.columns])
        probe = _pick(rng, [f"SELECT DISTINCT {col} FROM {t.qualified_name} LIMIT 10;",
                            f"SELECT * FROM {t.qualified_name} LIMIT 5;"])
        return (f"First, let's look at the data:\n\n```sql\n{probe}\n```\n\nNow the actual query:\n\n{fence}",
                "exploratory query in the first block, answer in the second")
    if style == "schema":
        t = _pick(rng, tables)
        cols = ",\n  ".join(f"{c.name} {c.type.upper()}" for c in t.columns[:8])
        return (f"Given the table:\n\n```sql\nCREATE TABLE {t.qualified_name} (\n  {cols}\n);\n```\n\n"
                f"the query is:\n\n{fence}", "schema echoed as CREATE TABLE in the first block")
    if style == "draft":
        draft = tree.copy()
        drop = _pick(rng, [k for k in ("where", "limit", "order") if draft.args.get(k) is not None])
        draft.set(drop, None)
        return (f"```sql\n{draft.sql(dialect=ctx.d)};\n```\n\nWait, that misses the {drop.upper()} part. "
                f"Corrected version:\n\n{fence}", f"draft without {drop.upper()} first, corrected query second")
    if style == "output":
        names = getattr(tree, "named_selects", None) or ["result"]
        table = f"| {' | '.join(names)} |\n|{'---|' * len(names)}\n| {' | '.join('...' for _ in names)} |"
        return f"{fence}\n\nExample output:\n\n```\n{table}\n```", "answer first, example output table second"
    other = sqlglot.transpile(sql, read=ctx.d, write="mysql", unsupported_level=sqlglot.ErrorLevel.IGNORE)[0]
    return f"{fence}\n\nIf you are on MySQL instead, use:\n\n```sql\n{other};\n```", "answer, then a MySQL variant"


# ------------------------------------------------------------------------------------------------ name kinds
def _column_name(ctx: _Ctx) -> Reply:
    groups: dict[tuple[str, str], list[exp.Column]] = {}
    for col, table, *_ in ctx.refs():
        if _span(col.this):
            groups.setdefault((table.qualified_name, table.column(col.name).name), []).append(col)
    taken = ctx.taken() | {t.name.lower() for t in ctx.schema.tables}
    choices = []
    for (tname, cname), cols in groups.items():
        conv, syn = _convention_names(cname, ctx.schema.table(tname).name), _synonym_names(cname)
        for family, names in (("convention", conv), ("synonym", syn)):
            names = [n for n in dict.fromkeys(names) if _IDENT.match(n) and n.lower() not in taken]
            if names:
                choices.append((family, cname, cols, names))
    if not choices:
        return None
    family = _pick(ctx.rng, sorted({c[0] for c in choices}))
    _f, cname, cols, names = _pick(ctx.rng, [c for c in choices if c[0] == family])
    new = _pick(ctx.rng, names)
    hit = cols if ctx.rng.random() < 0.75 or len(cols) == 1 else [_pick(ctx.rng, cols)]
    return ctx.out([(*_span(c.this), _ident_like(ctx, c.this, new)) for c in hit],
                   f"column {cname} written {new} ({family}, {len(hit)} of {len(cols)} uses)")


def _table_name(ctx: _Ctx) -> Reply:
    by_table: dict[str, list[exp.Table]] = {}
    for node in ctx.tree.find_all(exp.Table):
        if ctx.table_of(node) is not None and _span(node.this):
            by_table.setdefault(ctx.table_of(node).qualified_name, []).append(node)
    if not by_table:
        return None
    qn = _pick(ctx.rng, sorted(by_table))
    table, nodes = ctx.schema.table(qn), by_table[qn]
    taken = {t.name.lower() for t in ctx.schema.tables} | ctx.ctes | ctx.taken()
    conv, syn = ([n for n in dict.fromkeys(ns) if n.lower() not in taken and _IDENT.match(n)]
                 for ns in _table_names(table.name))
    roll = ctx.rng.random()
    if ctx.d == "postgres" and roll < 0.3 and all(_span(n.args.get("db")) for n in nodes):
        return ctx.out([(_span(n.args["db"])[0], _span(n.this)[0], "") for n in nodes],
                       f"schema prefix {table.schema}. dropped from {table.name}")
    pool = (syn if syn and (roll < 0.65 or not conv) else conv) or syn
    if ctx.rng.random() < 0.75:
        pool = [n for n in pool if not n.startswith(("tbl_", "t_"))] or pool
    if not pool:
        return None
    new = _pick(ctx.rng, pool)
    edits = [(*_span(n.this), _ident_like(ctx, n.this, new)) for n in nodes]
    bare = {n.name.lower() for n in nodes if not n.alias}  # qualifiers that repeat the table name follow it
    quals = (c.args.get("table") for c in ctx.tree.find_all(exp.Column))
    edits += [(*_span(q), _ident_like(ctx, q, new)) for q in quals if _span(q) and q.name.lower() in bare]
    return ctx.out(edits, f"table {table.name} written {new}")


def _keyword_guess(name: str) -> list[str]:
    """The keyword a model shortens a name to: the head (last part) of a short name (meal_description -> desc,
    redemption_limit -> limit) or a leading from / to / end (from_airport -> from); never order_date -> order."""
    words = _words(name)[0]
    ends = [words[-1]] + ([words[0]] if words[0] in ("from", "to", "end") else []) if len(words) <= 3 else []
    return [_KEYWORD_OF_WORD[w] for w in ends if w in _KEYWORD_OF_WORD]


def _reserved_word(ctx: _Ctx) -> Reply:
    tree, taken, options = ctx.tree, ctx.taken(), []
    same: dict[tuple[str, str], list[exp.Column]] = {}  # 1. a column guessed as a bare keyword
    for col, table, *_ in ctx.refs():
        if _span(col.this):
            same.setdefault((table.qualified_name, col.name.lower()), []).append(col)
    for (_t, cname), cols in same.items():
        kws = [k for k in _keyword_guess(cols[0].name)
               if k not in taken and not (k in _UNSAFE_BARE and any(not c.table for c in cols))]
        if kws:
            options.append(([(*_span(c.this), kws[0]) for c in cols], f"column {cname} written as keyword {kws[0]}"))
    names = [n.alias_or_name.lower() for n in tree.find_all(exp.Table)]  # 2. a table alias that is a keyword
    for node in tree.find_all(exp.Table):
        table, alias = ctx.table_of(node), node.args.get("alias")
        if table is None or names.count(node.alias_or_name.lower()) != 1 or not _span(node.this):
            continue
        words = _words(table.name)[0]  # orders -> order, checkins -> check, inventory_snapshots -> is, domain -> do
        cands = [_KEYWORD_OF_WORD.get(_singular(words[-1]), _singular(words[-1]))]
        cands += (["".join(w[0] for w in words)] if len(words) > 1 else []) + [table.name.lower()[:2]]
        kw = next((w for w in cands if w in _TABLE_ALIAS_FAILS[ctx.d] and w not in taken), None)
        end = _span(node.this)[1]
        if kw is None or (node.alias and not _span(alias.this)) or ctx.sql[end:end + 1] == '"':
            continue
        sep = " AS " if " AS " in ctx.sql.upper() else " "
        edits = [(*_span(alias.this), kw)] if node.alias else [(end, end, sep + kw)]
        edits += [(*_span(c.args["table"]), kw) for c in tree.find_all(exp.Column)
                  if c.table.lower() == node.alias_or_name.lower() and _span(c.args.get("table"))]
        options.append((edits, f"table {table.name} aliased as keyword {kw}"))
    for e in tree.expressions if isinstance(tree, exp.Select) else []:  # 3. an output alias that is a keyword
        base = e.alias if isinstance(e, exp.Alias) else (e.name if isinstance(e, exp.Column) else "")
        kw = next((k for k in _keyword_guess(base) if k in _OUTPUT_ALIAS_FAILS[ctx.d]), None) if base else None
        sep = " AS " if ctx.d == "sqlite" else " "
        if kw is None:
            continue
        if isinstance(e, exp.Alias):
            a_span = _span(e.args.get("alias"))
            m = re.search(r"(\s+AS\s+|\s+)$", ctx.sql[: a_span[0]], re.I) if a_span else None
            if m is None:
                continue
            edits = [(a_span[0] - len(m.group(0)), a_span[1], sep + kw)]
            edits += [(*_span(c.this), kw) for c in tree.find_all(exp.Column) if not c.table and _span(c.this)
                      and c.name.lower() == e.alias.lower() and not c.find_ancestor(exp.Alias)]
        elif _span(e.this):
            edits = [(_span(e.this)[1], _span(e.this)[1], sep + kw)]
        else:
            continue
        options.append((edits, f"output column {base} aliased as keyword {kw}"))
    return ctx.out(*_pick(ctx.rng, options)) if options else None


def _string_tokens(ctx: _Ctx) -> list[Any]:
    """String literals compared with something (= 'CA', IN ('a', 'b'), THEN 'x'): the ones a model requotes."""
    toks, out, stack = ctx.tokens(), [], []
    cmp_types = {TokenType.EQ, TokenType.NEQ, TokenType.LIKE, TokenType.ILIKE, TokenType.GT, TokenType.GTE,
                 TokenType.LT, TokenType.LTE, TokenType.THEN, TokenType.ELSE}  # fmt: skip
    for i, t in enumerate(toks):
        if t.token_type == TokenType.L_PAREN:
            stack.append(toks[i - 1].token_type if i else None)
        elif t.token_type == TokenType.R_PAREN and stack:
            stack.pop()
        elif t.token_type == TokenType.STRING and i and not set("'\"") & set(t.text):
            prev = toks[i - 1].token_type
            in_list = prev in (TokenType.L_PAREN, TokenType.COMMA) and stack and stack[-1] == TokenType.IN
            if prev in cmp_types or in_list:
                out.append(t)
    return out


def _quoting_slip(ctx: _Ctx) -> Reply:
    tree = ctx.tree
    tables = [n for n in tree.find_all(exp.Table) if ctx.table_of(n) is not None and _span(n.this)]
    idents = [i for c in tree.find_all(exp.Column) for i in (c.args.get("table"), c.this) if _span(i)]
    idents += [i for n in tables for i in (n.args.get("db"), n.this) if _span(i)]
    strings = _string_tokens(ctx)
    aliases = [e.args["alias"] for e in (tree.expressions if isinstance(tree, exp.Select) else [])
               if isinstance(e, exp.Alias) and _span(e.args.get("alias"))]  # fmt: skip
    qualified = [c for c in tree.find_all(exp.Column) if _span(c.args.get("table")) and _span(c.this)]
    mixed = [i for i in idents if not i.quoted and i.name != i.name.lower()]
    if ctx.d == "postgres":  # every style fails on PostgreSQL
        opts = [(0.25, "backticks"), (0.15, "brackets"), (0.15, "dbo"), (0.2 * bool(strings), "dq_strings"),
                (0.1 * bool(aliases), "sq_alias"), (0.25 * bool(mixed), "mixed_case")]
    else:  # SQLite accepts backticks, brackets and "strings": mostly the styles it rejects
        opts = [(0.3, "dbo"), (0.08, "backticks"), (0.08, "brackets"), (0.25 * bool(qualified), "bt_qualified"),
                (0.15 * bool(strings), "curly"), (0.06 * bool(strings), "dq_strings")]
    if not idents or not tables:
        return None
    style = _weighted(ctx.rng, [o for o in opts if o[0] > 0])
    if style in ("backticks", "brackets"):
        left, right = ("`", "`") if style == "backticks" else ("[", "]")
        return ctx.out([(*_span(i), f"{left}{i.name}{right}") for i in idents], f"identifiers in {left}{right}")
    if style == "dbo":
        bracket = ctx.rng.random() < 0.4
        edits = [(*_span(n.this), f"[dbo].[{n.name}]" if bracket else f"dbo.{ctx.sql[slice(*_span(n.this))]}")
                 for n in tables if n.args.get("db") is None]
        edits += [(*_span(n.args["db"]), "dbo") for n in tables if _span(n.args.get("db"))]  # consumer_div. -> dbo.
        return ctx.out(edits, "T-SQL dbo. schema prefix on tables")
    if style in ("dq_strings", "curly"):
        left, right = ('"', '"') if style == "dq_strings" else ("\u2018", "\u2019")
        return ctx.out([(t.start, t.end + 1, f"{left}{t.text}{right}") for t in strings],
                       f"string literals in {'double' if style == 'dq_strings' else 'typographic'} quotes")
    if style == "sq_alias":
        return ctx.out([(*_span(a), f"'{a.name}'") for a in aliases], "output aliases in single quotes")
    if style == "mixed_case":
        return ctx.out([(*_span(i), f'"{i.name}"') for i in mixed], "mixed-case names double-quoted (folded in PG)")
    cols = qualified if ctx.rng.random() < 0.6 else [_pick(ctx.rng, qualified)]
    return ctx.out([(_span(c.args["table"])[0], _span(c.this)[1], f"`{c.table}.{c.name}`") for c in cols],
                   "qualified column quoted as one identifier `t.col`")


# ------------------------------------------------------------------------------------------------ dialect kinds
def _foreign_limit(ctx: _Ctx) -> Reply:
    if not isinstance(ctx.tree, exp.Select) or ctx.tree.args.get("limit") is None:
        return None
    toks, depth, top = ctx.tokens(), 0, []
    for i, t in enumerate(toks):
        depth += (t.token_type == TokenType.L_PAREN) - (t.token_type == TokenType.R_PAREN)
        if depth == 0 and t.token_type != TokenType.R_PAREN:
            top.append(i)
    kinds = [toks[i].token_type for i in top]
    if kinds.count(TokenType.SELECT) != 1 or kinds.count(TokenType.LIMIT) != 1:
        return None
    li = top[kinds.index(TokenType.LIMIT)]
    rest = [t.token_type for t in toks[li + 1:li + 4]]
    if rest[:1] != [TokenType.NUMBER] or (len(rest) > 1 and rest[1:] != [TokenType.OFFSET, TokenType.NUMBER]):
        return None
    n, off = toks[li + 1].text, toks[li + 3].text if len(rest) == 3 else None
    start, end = toks[li].start, toks[li + len(rest)].end + 1
    while start > 0 and ctx.sql[start - 1].isspace():
        start -= 1
    si = top[kinds.index(TokenType.SELECT)]
    ins = toks[si + 1 if toks[si + 1].token_type == TokenType.DISTINCT else si].end + 1
    if off is not None:
        style = "offset_fetch" if ctx.d == "sqlite" else "mysql_pair"
    else:
        style = _pick(ctx.rng, ["top"] * 4 + ["top_paren", "rownum"] + (
            ["fetch_first"] * 2 + ["offset_fetch"] if ctx.d == "sqlite" else ["mysql_pair"] * 2))
    if style in ("top", "top_paren"):
        text = f" TOP {n}" if style == "top" else f" TOP ({n})"
        return ctx.out([(ins, ins, text), (start, end, "")], f"LIMIT {n} written as T-SQL{text}")
    if style == "rownum":
        where = [i for i, k in zip(top, kinds) if k == TokenType.WHERE]
        at = [i for i, k in zip(top, kinds) if k in (TokenType.GROUP_BY, TokenType.ORDER_BY, TokenType.LIMIT)][0]
        ins = (toks[where[0]].end + 1, f" ROWNUM <= {n} AND") if where else (toks[at].start, f"WHERE ROWNUM <= {n} ")
        return ctx.out([(ins[0], ins[0], ins[1]), (start, end, "")], "Oracle ROWNUM instead of LIMIT")
    text = {"fetch_first": f" FETCH FIRST {n} ROWS ONLY", "offset_fetch": f" OFFSET {off or 0} ROWS FETCH NEXT {n} "
            "ROWS ONLY", "mysql_pair": f" LIMIT {off or 0}, {n}"}[style]  # fmt: skip
    return ctx.out([(start, end, text)], f"LIMIT written as{text}")


_NOW = {"mysql": "CURDATE()", "tsql": "GETDATE()", "oracle": "SYSDATE", "other": "NOW()"}


def _mod_parts(text: str) -> tuple[str, int, str] | None:
    m = re.fullmatch(r"\s*([+-]?)\s*(\d+)\s+(day|month|year|hour|minute|week)s?\s*", text, re.I)
    return (m.group(1) or "+", int(m.group(2)), m.group(3).lower()) if m else None


def _shifted(base: dict[str, str], sign: str, n: int, unit: str) -> dict[str, str]:
    return {"mysql": f"{'DATE_SUB' if sign == '-' else 'DATE_ADD'}({base['mysql']}, INTERVAL {n} {unit.upper()})",
            "tsql": f"DATEADD({unit}, {'-' if sign == '-' else ''}{n}, {base['tsql']})",
            "oracle": f"{base['oracle']} {sign} INTERVAL '{n}' {unit.upper()}",
            "other": f"{base['other']} {sign} INTERVAL '{n} {unit}s'"}  # fmt: skip


def _fmt_styles(x: str, fmt: str) -> dict[str, str]:
    """strftime-style formatting of ``x`` as MySQL, T-SQL and Oracle write it."""
    part = {"%Y": "year", "%m": "month", "%d": "day", "%H": "hour", "%w": "weekday"}.get(fmt)
    if part:
        return {"mysql": f"{'DAYOFWEEK' if part == 'weekday' else part.upper()}({x})", "tsql": f"DATEPART({part}, {x})",
                "oracle": f"EXTRACT({'DOW' if part == 'weekday' else part.upper()} FROM {x})"}
    if fmt == "%s":
        return {"mysql": f"UNIX_TIMESTAMP({x})", "tsql": f"DATEDIFF(second, '1970-01-01', {x})"}
    ora, net = fmt, fmt
    for code, o, t in (("%Y", "YYYY", "yyyy"), ("%m", "MM", "MM"), ("%d", "DD", "dd"), ("%H", "HH24", "HH")):
        ora, net = ora.replace(code, o), net.replace(code, t)
    return {"mysql": f"DATE_FORMAT({x}, '{fmt}')", "tsql": f"FORMAT({x}, '{net}')", "oracle": f"TO_CHAR({x}, '{ora}')"}


def _foreign_candidates(ctx: _Ctx, node: exp.Expression) -> tuple[str, dict[str, str]] | None:
    """(family, {style: foreign text}) for a node the gold writes in its own dialect."""
    r, lite = (lambda e: e.sql(dialect=ctx.d)), ctx.d == "sqlite"  # noqa: E731
    if isinstance(node, exp.TimeToStr) and isinstance(node.args.get("format"), exp.Literal):
        x = node.this.this if isinstance(node.this, exp.TsOrDsToTimestamp) else node.this
        fmt, xs = node.args["format"].this, _NOW["mysql"] if isinstance(x, exp.Literal) and x.this == "now" else r(x)
        styles = _fmt_styles(xs, fmt)  # TO_CHAR (the Oracle form) is PostgreSQL's own
        return "date_format", styles if lite else {**styles, "oracle": "", "other": f"strftime('{fmt}', {xs})"}
    if isinstance(node, exp.Extract) and not lite:
        unit, x = node.name.upper(), r(node.expression)
        fmt = {"YEAR": "%Y", "MONTH": "%m", "DAY": "%d", "DOW": "%w", "HOUR": "%H", "EPOCH": "%s"}.get(unit)
        if fmt is None:
            return "extract", {"tsql": f"DATEPART({unit.lower()}, {x})"}
        return "extract", {**_fmt_styles(x, fmt), "oracle": "", "other": f"strftime('{fmt}', {x})"}
    if isinstance(node, (exp.TimestampTrunc, exp.DateTrunc)) and not lite and node.args.get("unit") is not None:
        unit, x = node.args["unit"].name.upper(), r(node.this)
        fm = {"MONTH": "%Y-%m-01", "YEAR": "%Y-01-01", "DAY": "%Y-%m-%d"}.get(unit)
        styles = {"oracle": f"TRUNC({x}, '{ {'MONTH': 'MM', 'YEAR': 'YYYY', 'WEEK': 'IW'}.get(unit, unit[:1])}')"}
        if fm:
            styles |= {"mysql": f"DATE_FORMAT({x}, '{fm}')", "other": f"strftime('{fm}', {x})"}
        elif unit == "WEEK":
            styles |= {"mysql": f"DATE_SUB({x}, INTERVAL WEEKDAY({x}) DAY)",
                       "tsql": f"DATEADD(week, DATEDIFF(week, 0, {x}), 0)"}
        return "date_trunc", styles
    if isinstance(node, (exp.Sub, exp.Add)) and isinstance(node.expression, exp.Interval) and not lite:
        iv, sign = node.expression, "-" if isinstance(node, exp.Sub) else "+"
        parts = _mod_parts(f"{iv.this.name} {iv.args['unit'].name}" if iv.args.get("unit") else iv.this.name)
        if parts is None:
            return None
        base = r(node.this)
        styles = _shifted({k: base for k in _NOW}, sign, parts[1], parts[2])  # oracle form is valid PostgreSQL
        return "interval", {**styles, "oracle": "", "other": f"date({base}, '{sign}{parts[1]} {parts[2]}s')"}
    if isinstance(node, exp.Sub) and lite and all(isinstance(a, exp.Anonymous) and a.name.lower() == "julianday"
                                                  and a.expressions for a in (node.this, node.expression)):
        a, b = r(node.this.expressions[0]), r(node.expression.expressions[0])
        return "datediff", {"mysql": f"DATEDIFF({a}, {b})", "tsql": f"DATEDIFF(day, {b}, {a})",
                            "other": f"DATE_PART('day', {a} - {b})"}
    if lite and (isinstance(node, exp.CurrentDate) or isinstance(node, (exp.Anonymous, exp.Date))
                 and node.name.lower() in ("date", "datetime")):
        args = [] if isinstance(node, exp.CurrentDate) else node.expressions
        args = [node.this, *args] if isinstance(node, exp.Date) else args
        if isinstance(node, exp.CurrentDate) or (args and isinstance(args[0], exp.Literal) and args[0].this == "now"):
            mods = [a.this for a in args[1:] if isinstance(a, exp.Literal)]
            if len(args) < 2:
                return "now", dict(_NOW)
            shift = _mod_parts(mods[0]) if len(args) == 2 and mods else None
            return ("now", _shifted(_NOW, *shift)) if shift else None
        if len(args) == 2 and isinstance(args[1], exp.Literal) and args[1].this == "unixepoch":
            x = r(args[0])
            return "from_unix", {"mysql": f"FROM_UNIXTIME({x})", "other": f"TO_TIMESTAMP({x})",
                                 "tsql": f"DATEADD(second, {x}, '1970-01-01')"}
        return None
    if isinstance(node, (exp.CurrentDate, exp.CurrentTimestamp)) and not lite:
        return "now", {"mysql": "CURDATE()" if isinstance(node, exp.CurrentDate) else "SYSDATE()", "tsql": "GETDATE()",
                       "other": "datetime('now')", "oracle": "SYSDATE"}  # fmt: skip
    if isinstance(node, exp.UnixToTime) and not lite:
        x = r(node.this)
        return "from_unix", {"mysql": f"FROM_UNIXTIME({x})", "other": f"datetime({x}, 'unixepoch')"}
    if isinstance(node, exp.Coalesce) and len(node.expressions) == 1:
        a, b = r(node.this), r(node.expressions[0])
        return "coalesce", {"tsql": f"ISNULL({a}, {b})", "oracle": f"NVL({a}, {b})",
                            "mysql": "" if lite else f"IFNULL({a}, {b})"}
    if isinstance(node, exp.Length):
        return "length", {"tsql": f"LEN({r(node.this)})", "other": f"CHAR_LENGTH({r(node.this)})" if lite else ""}
    if isinstance(node, exp.DPipe) and not isinstance(node.parent, exp.DPipe):
        parts = [r(p) for p in node.flatten()]
        return "concat", {"tsql": f"({' + '.join(parts)})", "mysql": f"CONCAT({', '.join(parts)})" if lite else ""}
    return None


def _foreign_function(ctx: _Ctx) -> Reply:
    tree, found = ctx.fresh(), {}
    for node in reversed(list(tree.walk())):  # innermost first, so outer rewrites see the inner ones
        got = _foreign_candidates(ctx, node)
        styles = {k: v for k, v in (got[1] if got else {}).items() if v}
        if styles:
            found.setdefault(got[0], []).append((node, styles))
    if not found:
        return None
    family = _pick(ctx.rng, sorted(found))
    style = _pick(ctx.rng, sorted({s for _n, styles in found[family] for s in styles}))
    used = []
    for node, styles in found[family]:
        text = styles.get(style) or styles[sorted(styles)[0]]
        node.replace(exp.Var(this=text))
        used.append(text.split("(")[0])
    style = {"other": "postgres" if ctx.d == "sqlite" else "sqlite"}.get(style, style)
    return ctx.tree_out(tree, f"{family} written in {style} style: {', '.join(dict.fromkeys(used))}")


_FLOATY = {exp.DataType.Type.DOUBLE, exp.DataType.Type.FLOAT, exp.DataType.Type.DECIMAL}


def _foreign_operator(ctx: _Ctx) -> Reply:
    tree, fam, lite = ctx.fresh(), {}, ctx.d == "sqlite"
    r = lambda e: e.sql(dialect=ctx.d)  # noqa: E731
    cast_style = _pick(ctx.rng, ["pg", "convert"] if lite else ["convert", "float64", "number", "double"])
    for node in reversed(list(tree.walk())):
        if isinstance(node, exp.Like) and isinstance(node.this, exp.Lower) and lite:
            pat = node.expression.this if isinstance(node.expression, exp.Lower) else node.expression
            fam.setdefault("ilike", []).append((node, f"{r(node.this.this)} ILIKE {r(pat)}"))
        if isinstance(node, (exp.Like, exp.ILike)) and isinstance(node.expression, exp.Literal):
            pat = node.expression.this
            rx = re.escape(pat.strip("%")).replace("%", ".*").replace("_", ".")
            rx = ("" if pat.startswith("%") else "^") + rx + ("" if pat.endswith("%") else "$")
            fam.setdefault("regexp", []).append((node, f"{r(node.this)} REGEXP '{rx}'"))
        if isinstance(node, exp.ILike) and not lite:
            fam.setdefault("nocase", []).append((node, f"{r(node.this)} LIKE {r(node.expression)} COLLATE NOCASE"))
        if isinstance(node, exp.Cast) and node.to.this in (_FLOATY | {exp.DataType.Type.INT, exp.DataType.Type.BIGINT}):
            x, fl = r(node.this), node.to.this in _FLOATY
            px = f"({x})" if isinstance(node.this, (exp.Binary, exp.Case)) else x
            text = {"pg": f"{px}::{'float' if fl else 'int'}",
                    "convert": f"CONVERT({'FLOAT' if fl else 'INT'}, {x})", "number": f"CAST({x} AS NUMBER)",
                    "float64": f"CAST({x} AS {'FLOAT64' if fl else 'INT64'})",
                    "double": f"CAST({x} AS {'DOUBLE' if fl else 'INTEGER'})"}[cast_style]  # fmt: skip
            fam.setdefault("cast", []).append((node, text))
        if isinstance(node, exp.Case) and len(node.args.get("ifs") or []) == 1 and node.this is None:
            branch, other = node.args["ifs"][0], node.args.get("default")
            fam.setdefault("if", []).append(
                (node, f"IF({r(branch.this)}, {r(branch.args['true'])}, {r(other) if other is not None else 'NULL'})"))
        if isinstance(node, exp.EQ) and not lite and isinstance(node.expression, exp.Boolean):
            fam.setdefault("bool_int", []).append((node, f"{r(node.this)} = {int(node.expression.this)}"))
        elif isinstance(node, exp.EQ) and not lite and isinstance(node.expression, exp.Literal):
            fam.setdefault("eqeq", []).append((node, f"{r(node.this)} == {r(node.expression)}"))
    if not fam:
        return None
    family = _pick(ctx.rng, sorted(fam))
    for node, text in fam[family]:
        node.replace(exp.Var(this=text))
    return ctx.tree_out(tree, f"{family} written with another dialect's syntax ({len(fam[family])}x)")


# ------------------------------------------------------------------------------------------------ aggregate kinds
def _missing_group_by(ctx: _Ctx) -> Reply:
    tree, cands = ctx.fresh(), []
    for sel in tree.find_all(exp.Select):
        if sel.args.get("group") is None or any(e.find(exp.Window) for e in sel.expressions):
            continue
        plain = [e for e in sel.expressions if not e.find(exp.AggFunc) and not e.find(exp.Star) and e.find(exp.Column)]
        if plain and any(e.find(exp.AggFunc) for e in sel.expressions):
            cands.append((sel, sel.args["group"], plain))
    if not cands:
        return None
    sel, group, plain = _pick(ctx.rng, cands)
    shown = {e.unalias().sql() for e in plain} | {e.alias_or_name for e in plain}
    partial = [g for g in group.expressions if g.sql() in shown] if len(group.expressions) > 1 else []
    if partial and ctx.rng.random() < 0.4:
        drop = _pick(ctx.rng, partial)
        group.set("expressions", [g for g in group.expressions if g is not drop])
        return ctx.tree_out(tree, f"GROUP BY misses selected column {drop.sql(dialect=ctx.d)}")
    sel.set("group", None)
    return ctx.tree_out(tree, "GROUP BY left out, selected columns bare beside the aggregate")


def _aggregate_in_where(ctx: _Ctx) -> Reply:
    tree = ctx.fresh()
    opts: list[tuple[str, Any, Any]] = [("having", s, None) for s in tree.find_all(exp.Select)
                                        if s.args.get("having") is not None and s.args["having"].find(exp.AggFunc)]
    for sub in tree.find_all(exp.Subquery):  # x = (SELECT MAX(x) FROM t) -> x = MAX(x)
        inner, outer = sub.this, sub.parent.find_ancestor(exp.Select)
        if (not isinstance(sub.parent, (exp.EQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NEQ)) or outer is None
                or not isinstance(inner, exp.Select) or len(inner.expressions) != 1
                or sub.find_ancestor(exp.Where) is None or any(inner.args.get(k) for k in ("where", "group", "joins"))):
            continue
        agg, src, osrc = inner.expressions[0].unalias(), inner.args.get("from_"), outer.args.get("from_")
        if (isinstance(agg, exp.AggFunc) and src is not None and osrc is not None and isinstance(src.this, exp.Table)
                and isinstance(osrc.this, exp.Table) and src.this.name.lower() == osrc.this.name.lower()):
            opts.append(("inline", sub, agg))
    lim = tree.args.get("limit") if isinstance(tree, exp.Select) else None
    if lim is not None and lim.expression == exp.Literal.number(1) and tree.args.get("order"):
        keys = [o for o in tree.args["order"].expressions if not isinstance(o.this, exp.Case)]  # CASE: NULLS emulation
        target = keys[0].this if len(keys) == 1 else None
        for e in tree.expressions:  # ORDER BY an output alias: the expression behind it
            if isinstance(target, exp.Column) and not target.table and isinstance(e, exp.Alias):
                target = e.this if e.alias == target.name else target
        if target is not None and target.find(exp.AggFunc) and tree.args.get("group") is not None:
            opts.append(("having_top", keys[0], target))  # "the most": HAVING COUNT(x) = MAX(COUNT(x))
        elif isinstance(target, exp.Column) and tree.args.get("group") is None and not tree.find(exp.AggFunc):
            opts.append(("where_top", keys[0], target))  # "the highest": WHERE x = MAX(x)
    if not opts:
        return None
    how, node, agg = _pick(ctx.rng, opts)
    if how == "inline":
        agg = agg.copy()
        for c in agg.find_all(exp.Column):
            c.set("table", None)
        node.replace(agg)
        return ctx.tree_out(tree, f"scalar subquery replaced by {agg.sql(dialect=ctx.d)} in WHERE")
    if how == "having":
        cond, node, clause = node.args["having"].this, node, "where"
        node.set("having", None)
    else:
        best = (exp.Max if node.args.get("desc") else exp.Min)(this=agg.copy())
        cond, node, clause = exp.EQ(this=agg.copy(), expression=best), tree, how.split("_")[0]
        tree.set("order", None)
        tree.set("limit", None)
    old = node.args.get(clause)
    node.set(clause, (exp.Where if clause == "where" else exp.Having)(this=exp.and_(old.this, cond) if old else cond))
    return ctx.tree_out(tree, f"{'HAVING condition' if how == 'having' else 'ORDER BY .. LIMIT 1'} written as "
                              f"{clause.upper()} {cond.sql(dialect=ctx.d)}")


# ------------------------------------------------------------------------------------------------ alias kinds
def _alias_misuse(ctx: _Ctx) -> Reply:
    opts: list[tuple[float, tuple[list[Edit], str]]] = []
    for col, _table, src, _scope, sources in ctx.refs():
        q, node = col.args.get("table"), sources[src][1]
        if not _span(q):
            continue
        if node is not None and node.alias and node.alias.lower() != node.name.lower():
            opts.append((1.0, ([(*_span(q), node.name)], f"{col.table}.{col.name} written {node.name}.{col.name}")))
        others = sorted(k for k, s in sources.items() if k != src and s[0] == "table" and s[2] is not None
                        and not s[2].column(col.name))  # fmt: skip
        if others:
            k = _pick(ctx.rng, others)
            opts.append((1.0, ([(*_span(q), k)], f"{col.table}.{col.name} qualified with the other alias {k}")))
    for sel in ctx.tree.find_all(exp.Select):  # an output alias used in WHERE / HAVING (SQLite resolves it)
        for clause in ("where", "having"):
            text = sel.args[clause].sql(dialect=ctx.d) if sel.args.get(clause) is not None else ""
            for e in sel.expressions if text and ctx.sql.count(text) == 1 else []:
                expr = isinstance(e, exp.Alias) and not isinstance(e.this, exp.Column)
                inner = e.this.sql(dialect=ctx.d) if expr else ""
                if inner and inner in text[6:] and ctx.sql.count(inner) >= 2:
                    at, new = ctx.sql.index(text), text.replace(inner, e.alias, 1)
                    opts.append((0.3 if ctx.d == "sqlite" else 1.5,
                                 ([(at, at + len(text), new)], f"output alias {e.alias} used in {clause.upper()}")))
    return ctx.out(*_weighted(ctx.rng, opts)) if opts else None


def _ambiguous_column(ctx: _Ctx) -> Reply:
    opts = []
    for col, _table, _src, scope, sources in ctx.refs():
        q = col.args.get("table")
        using = {i.name.lower() for j in scope.expression.args.get("joins") or [] for i in j.args.get("using") or []}
        owners = [k for k, s in sources.items() if _has(s, col.name)]
        if _span(q) and _span(col.this) and len(owners) >= 2 and col.name.lower() not in using:
            opts.append((col, col.find_ancestor(exp.Join) is not None))
    pool = [c for c, in_join in opts if not in_join] or [c for c, _ in opts]
    col = _pick(ctx.rng, pool)
    return ctx.out([(_span(col.args["table"])[0], _span(col.this)[0], "")],
                   f"{col.table}.{col.name} left unqualified though two joined tables have it") if col else None


# ------------------------------------------------------------------------------------------------ silent kinds
def _key_like(name: str) -> bool:
    n = name.lower()
    return n == "id" or (len(n) > 2 and n.endswith(("_id", "id", "_code", "_no", "_num", "_key")))


def _links(schema: Any) -> list[tuple[Any, str, Any, str]]:
    """Joinable (table, column, other table, column): declared keys, then naming (aid ~ aid, car_id ~ cars.id,
    sbTxCustId ~ sbCustomer.sbCustId). The SQLite copies declare no foreign keys."""
    out = [(t, fk.columns[0], schema.table(fk.ref_table), fk.ref_columns[0]) for t in schema.tables
           for fk in t.foreign_keys if len(fk.columns) == 1 and schema.table(fk.ref_table) is not None]
    for p in schema.tables:
        keys = [p.primary_key[0]] if len(p.primary_key) == 1 else [c.name for c in p.columns if _key_like(c.name)]
        sing = _singular(_words(p.name)[0][-1])
        for key in keys:
            core = key[2:] if re.match(r"^[a-z]{2}[A-Z]", key) else key
            for c in (c for c in schema.tables if c is not p):
                for n in (col.name for col in c.columns):
                    if ((n.lower() == key.lower() and key.lower() != "id" and _key_like(n))
                            or (key.lower() == "id" and n.lower() in (f"{sing}_id", f"{sing}id"))
                            or (core != key and n.lower().endswith(core.lower()) and n.lower() != key.lower())):
                        out.append((c, n, p, key))
    return out


def _silent_extra_join(ctx: _Ctx) -> Reply:
    tree, used, links, opts = ctx.fresh(), {t.qualified_name for t in ctx.query_tables()}, _links(ctx.schema), []
    aliases = {s.alias_or_name.lower() for s in tree.find_all(exp.Table)}
    for sel in tree.find_all(exp.Select):
        if any(e.find(exp.Star) for e in sel.expressions):
            continue
        nodes = [j.this for j in ([sel.args["from_"]] if sel.args.get("from_") else []) + (sel.args.get("joins") or [])]
        bare = {c.name.lower() for c in sel.find_all(exp.Column) if not c.table}
        for node in nodes:
            t = ctx.table_of(node) if isinstance(node, exp.Table) else None
            for a, acol, b, bcol in links if t is not None else []:
                for me, mcol, other, ocol, child in ((b, bcol, a, acol, True), (a, acol, b, bcol, False)):
                    clash = {c.name.lower() for c in other.columns} & bare  # would make a bare column ambiguous
                    if me is t and other.qualified_name not in used and not clash:
                        opts.append((sel, node, mcol, other, ocol, child))
    if not opts:
        return None
    children = [o for o in opts if o[5]]  # a child table multiplies rows; a parent drops the unmatched ones
    sel, node, mcol, other, ocol, _ = _pick(ctx.rng, children if children and ctx.rng.random() < 0.75 else opts)
    initials = "".join(w[0] for w in _words(other.name)[0])
    alias = next(a for a in (initials, other.name[:2].lower(), "x", "x2", "x3")
                 if a not in aliases and a not in _TABLE_ALIAS_FAILS["sqlite"] | _TABLE_ALIAS_FAILS["postgres"])
    quote = lambda n: ctx.d == "postgres" and not re.fullmatch(r"[a-z_][a-z0-9_]*", n)  # noqa: E731
    join = sqlglot.parse_one(f"SELECT 1 FROM x JOIN {other.qualified_name} AS {alias}", read=ctx.d).args["joins"][0]
    join.set("on", exp.EQ(this=exp.column(ocol, alias, quoted=quote(ocol)),
                          expression=exp.column(mcol, node.alias_or_name, quoted=quote(mcol))))
    sel.set("joins", [*(sel.args.get("joins") or []), join])
    return ctx.tree_out(tree, f"extra inner join to {other.qualified_name} on {ocol} = {node.alias_or_name}.{mcol}")


def _label_of(table: Any) -> str | None:
    names = [c.name for c in table.columns]
    return next((n for n in names if n.lower() == "name"), None) or next(
        (n for n in names if n.lower().endswith("name") or n.lower() == "title"), None)


def _silent_group_by_label(ctx: _Ctx) -> Reply:
    tree = ctx.fresh()
    resolved = {id(c): t for c, t, *_ in ctx.refs(tree)}
    opts = []
    for sel in tree.find_all(exp.Select):
        group = sel.args.get("group")
        shown = {e.unalias().sql() for e in sel.expressions if not e.find(exp.AggFunc)}
        for g in group.expressions if group is not None and len(group.expressions) > 1 else []:
            t = resolved.get(id(g))
            pk = t is not None and len(t.primary_key) == 1 and t.primary_key[0].lower() == g.name.lower()
            if isinstance(g, exp.Column) and g.sql() not in shown and (pk or _key_like(g.name)):
                opts.append(("drop", group, g))
    for cnt in tree.find_all(exp.Count):  # COUNT(DISTINCT key) -> COUNT(DISTINCT name): same-named rows merge
        arg = cnt.this.expressions[0] if isinstance(cnt.this, exp.Distinct) and len(cnt.this.expressions) == 1 else None
        t = resolved.get(id(arg)) if isinstance(arg, exp.Column) else None
        if t is not None and _key_like(arg.name) and _label_of(t):
            opts.append(("count", arg, _label_of(t)))
    if not opts:
        return None
    how, node, g = _pick(ctx.rng, opts)
    if how == "count":
        node.set("this", exp.to_identifier(g, quoted=node.this.quoted))
        return ctx.tree_out(tree, f"COUNT(DISTINCT {node.table + '.' if node.table else ''}{g}) counts names, not keys")
    node.set("expressions", [e for e in node.expressions if e is not g])
    return ctx.tree_out(tree, f"key {g.sql(dialect=ctx.d)} dropped from GROUP BY, equal labels merge")


def _float_forcers(e: exp.Expression) -> list[tuple[exp.Expression, exp.Expression]]:
    """(node, replacement) pairs that make a division operand fractional: CAST(.. AS REAL), x * 1.0, / 60.0."""
    while isinstance(e, (exp.Paren, exp.Nullif)):
        e = e.this
    if isinstance(e, exp.Cast) and e.to.this in _FLOATY:
        return [(e, e.this.copy())]
    if isinstance(e, exp.Literal) and not e.is_string and re.fullmatch(r"\d+\.0*", str(e.this)):
        return [(e, exp.Literal.number(str(e.this).split(".")[0]))]
    if not isinstance(e, exp.Mul):
        return []
    for lit, other in ((e.this, e.expression), (e.expression, e.this)):
        if isinstance(lit, exp.Literal) and not lit.is_string and "." in str(lit.this):
            num = str(lit.this).rstrip("0").rstrip(".")
            return [(e, other.copy() if num == "1" else exp.Mul(this=exp.Literal.number(num), expression=other.copy()))]
    return _float_forcers(e.this) + _float_forcers(e.expression)


def _silent_integer_division(ctx: _Ctx) -> Reply:
    tree = ctx.fresh()
    pairs = [p for div in tree.find_all(exp.Div) for p in _float_forcers(div.this) + _float_forcers(div.expression)]
    for node, repl in pairs:
        node.replace(repl)
    return ctx.tree_out(tree, f"CAST / * 1.0 left out of {len(pairs)} division operand(s)") if pairs else None


def _silent_missing_distinct(ctx: _Ctx) -> Reply:
    tree = ctx.fresh()
    opts = [("select", s) for s in tree.find_all(exp.Select) if s.args.get("distinct")]
    opts += [("count", c) for c in tree.find_all(exp.Count)
             if isinstance(c.this, exp.Distinct) and len(c.this.expressions) == 1]
    if not opts:
        return None
    how, node = _pick(ctx.rng, opts)
    if how == "select":
        node.set("distinct", None)
        return ctx.tree_out(tree, "DISTINCT dropped from SELECT")
    node.set("this", node.this.expressions[0].copy())
    return ctx.tree_out(tree, f"COUNT(DISTINCT {node.this.sql(dialect=ctx.d)}) written without DISTINCT")


def _silent_count_nulls(ctx: _Ctx) -> Reply:
    tree, opts = ctx.fresh(), []
    resolved = {id(c): (t, src, scope) for c, t, src, scope, _s in ctx.refs(tree)}
    for cnt in tree.find_all(exp.Count):
        arg = cnt.this
        if isinstance(arg, exp.Column) and id(arg) in resolved:
            t, src, scope = resolved[id(arg)]
            joins = scope.expression.args.get("joins") or []
            outer = any(j.side == "LEFT" and j.this.alias_or_name == src for j in joins)
            if outer or getattr(t.column(arg.name), "nullable", True):
                opts += [("star", cnt)] * (3 if outer else 1)
        elif isinstance(arg, exp.Case) and arg.args.get("default") is None and len(arg.args.get("ifs") or []) == 1:
            opts += [("else0", cnt)] * 2
    for total in tree.find_all(exp.Sum):
        arg = total.this
        if (isinstance(arg, exp.Case) and len(arg.args.get("ifs") or []) == 1
                and arg.args.get("default") == exp.Literal.number(0)
                and arg.args["ifs"][0].args.get("true") == exp.Literal.number(1)):
            opts += [("sum", total)] * 2
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
    return ctx.tree_out(tree, f"{before} written as a COUNT that also counts the non-matching rows")


# ------------------------------------------------------------------------------------------------ entry point
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


def damage(gold_sql: str, schema: Any, kind: str, seed: int = 0) -> Damaged | None:
    """The reply a small model might write instead of ``gold_sql``, damaged in the way ``kind`` names; None when the
    kind does not apply to this query, is unknown, or the gold cannot be parsed."""
    if kind == "clean":
        return Damaged(kind, gold_sql, "the gold query, unchanged")
    if kind not in _KINDS:
        return None
    digest = hashlib.sha256(f"fresh2\x00{kind}\x00{seed}\x00{gold_sql}".encode()).digest()
    try:
        ctx = _Ctx(gold_sql, schema, random.Random(int.from_bytes(digest[:8], "big")))
        got = _KINDS[kind](ctx) if ctx.tree is not None or kind == "prose_wrapped" else None
    except Exception:  # noqa: BLE001 - an unusual gold query never breaks the bench
        return None
    if got is None or " ".join(got[0].split()).rstrip(";") == " ".join(gold_sql.split()).rstrip(";"):
        return None
    return Damaged(kind, *got)
