"""The machine form of a remembered fact, grounded in the real schema: a filter, a term, a metric, an entity.

A structured form lets the update cycle see that "only Germany" contradicts "only India" (same column, new
value) even when the sentences embed close together or far apart, and lets the pipeline enforce a filter on
the SQL itself. Nothing here guesses: when the words do not map onto one table.column with confidence the
result is None and the memory is kept as plain text.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.tokens import Tokenizer

from core.memory.extraction import Fact
from core.memory.filters import sql_literal as _literal
from core.schema import Column, Schema, Table

__all__ = [
    "currency_code",
    "filter_spec",
    "is_additive",
    "mentions_value",
    "name_key",
    "parse_definition",
    "singular",
    "structure",
    "words",
]

logger = logging.getLogger(__name__)

_WORD = re.compile(r"[a-z0-9]+")
_STOP = {
    "a", "an", "the", "of", "to", "in", "on", "for", "and", "or", "is", "are", "be", "me", "my", "i", "we",
    "show", "only", "all", "with", "from", "by", "that", "this", "it", "as", "at", "any", "yes", "no", "none",
    "other", "new", "true", "false", "null", "unknown", "na", "n", "y",
}  # fmt: skip
_GENERIC_COL_WORDS = {"id", "key", "no", "num", "nr", "code", "pk", "fk", "uuid"}
_NEGATION = {
    "exclude", "excluding", "excludes", "except", "without", "never", "hide", "hiding", "omit", "omitting",
    "ignore", "ignoring", "skip", "skipping", "not", "no", "stop", "remove", "drop", "non",
}  # fmt: skip
_POSITIVE_CUES = {"only", "show", "include", "just", "keep", "want", "prefer"}
_ADDITIVE = re.compile(r"\b(also|too|as well|additionally|in addition|plus|along with|add)\b", re.IGNORECASE)
_DEMONYM_SUFFIXES = ("n", "an", "ian", "ese", "ish", "i")
_DEMONYMS = {
    "french": "france", "spanish": "spain", "dutch": "netherlands", "british": "united kingdom",
    "english": "england", "swiss": "switzerland", "swedish": "sweden", "danish": "denmark", "irish": "ireland",
    "norwegian": "norway", "polish": "poland", "finnish": "finland", "turkish": "turkey", "greek": "greece",
    "thai": "thailand", "filipino": "philippines", "american": "united states", "emirati": "united arab emirates",
    "saudi": "saudi arabia", "kiwi": "new zealand", "portuguese": "portugal", "welsh": "wales",
    "scottish": "scotland", "belgian": "belgium", "peruvian": "peru", "chilean": "chile",
}  # fmt: skip
_CURRENCIES: dict[str, tuple[str, ...]] = {
    "INR": ("inr", "rupee", "indian rupee", "₹"),
    "USD": ("usd", "dollar", "us dollar", "american dollar", "$"),
    "EUR": ("eur", "euro", "€"),
    "GBP": ("gbp", "pound", "pound sterling", "sterling", "british pound", "£"),
    "JPY": ("jpy", "yen", "japanese yen", "¥"),
    "CNY": ("cny", "rmb", "yuan", "renminbi", "chinese yuan"),
    "AUD": ("aud", "australian dollar"),
    "CAD": ("cad", "canadian dollar"),
    "CHF": ("chf", "swiss franc", "franc"),
    "SGD": ("sgd", "singapore dollar"),
    "AED": ("aed", "dirham", "uae dirham"),
    "BRL": ("brl", "brazilian real"),
    "NPR": ("npr", "nepalese rupee", "nepali rupee"),
}
_CMP_PHRASES: tuple[tuple[str, str], ...] = (
    ("no less than", ">="), ("not less than", ">="), ("at least", ">="), ("minimum of", ">="), (">=", ">="),
    ("no more than", "<="), ("not more than", "<="), ("at most", "<="), ("up to", "<="), ("maximum of", "<="),
    ("<=", "<="), ("more than", ">"), ("greater than", ">"), ("higher than", ">"), ("larger than", ">"),
    ("bigger than", ">"), ("exceeding", ">"), ("exceeds", ">"), ("over", ">"), ("above", ">"), ("beyond", ">"),
    ("less than", "<"), ("fewer than", "<"), ("lower than", "<"), ("smaller than", "<"), ("under", "<"),
    ("below", "<"), ("equal to", "="), ("equals", "="), ("exactly", "="), ("<>", "<>"), ("!=", "<>"),
    (">", ">"), ("<", "<"), ("=", "="),
)  # fmt: skip
_NUM = r"[$€£₹]?\s?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s?(?P<mult>k|m|thousand|million|lakhs?|crores?)?\b"
_CMP_RE = re.compile(
    r"(?P<cmp>" + "|".join(re.escape(p) if not p[0].isalpha() else r"\b" + re.escape(p) + r"\b"
                           for p, _ in _CMP_PHRASES) + r")\s*" + _NUM,
    re.IGNORECASE,
)
_SUFFIX_CMP_RE = re.compile(
    _NUM + r"\s*(?P<cmp>or more|or above|and above|or higher|or less|or below|and below|or fewer|\+)",
    re.IGNORECASE,
)
_MULT = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "lakh": 1e5, "lakhs": 1e5, "crore": 1e7,
         "crores": 1e7}  # fmt: skip
_INVERT = {"=": "<>", "<>": "=", ">": "<=", ">=": "<", "<": ">=", "<=": ">", "IN": "NOT IN", "NOT IN": "IN"}
_SQL_OPS = {exp.EQ: "=", exp.NEQ: "<>", exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<="}
_OP_BUILDERS = {"=": exp.EQ, "<>": exp.NEQ, ">": exp.GT, ">=": exp.GTE, "<": exp.LT, "<=": exp.LTE}
_CLAUSE = re.compile(r"[;,]|\bbut\b|\bhowever\b", re.IGNORECASE)
_SQLISH = re.compile(r"[A-Za-z_][\w.\"]*\s*(?:=|<>|!=|>=|<=|>|<|\s(?:not\s+)?in\s*\()", re.IGNORECASE)


# --- words ---------------------------------------------------------------------------------------------------


def singular(word: str) -> str:
    w = word.lower()
    if len(w) <= 3 or not w.endswith("s") or w.endswith(("ss", "us", "is")):
        return w
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith(("sses", "shes", "ches", "xes")):
        return w[:-2]
    return w[:-1]


def words(text: str) -> list[str]:
    """Lower-case singular words; ``total_amount`` and ``totalAmount`` split like "total amount"."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text).replace("_", " ").lower().replace("n't", " not")
    return [singular(w) for w in _WORD.findall(spaced)]


def name_key(name: str) -> str:
    """The comparison key of a term name: "High-value orders" and "high value order" meet."""
    return " ".join(w for w in words(name) if w not in ("a", "an", "the"))


def is_additive(text: str) -> bool:
    """The fact adds to what is there ("also include Nepal") rather than replacing it."""
    return bool(_ADDITIVE.search(text))


def currency_code(text: str) -> str | None:
    """The one currency a text talks about ("Indian rupees" -> INR), else None."""
    found = {code for code, _span in _currency_spans(text)}
    return found.pop() if len(found) == 1 else None


def _currency_spans(text: str) -> list[tuple[str, tuple[int, int]]]:
    toks = words(text)
    out: list[tuple[str, tuple[int, int]]] = []
    for code, aliases in _CURRENCIES.items():
        for alias in aliases:
            if not alias[0].isalnum():
                if alias in text:
                    out.append((code, (-1, -1)))
                continue
            if alias == code.lower() and not re.search(rf"\b{code}\b", text):
                continue  # a code counts only written in capitals: "real" and "rs" are words too
            span = _find_seq(toks, words(alias))
            if span is not None:
                out.append((code, span))
    # "Indian rupees" is INR, not "rupee" (also INR) plus a country: keep the longest span per start.
    return out


def _find_seq(toks: list[str], seq: list[str]) -> tuple[int, int] | None:
    n = len(seq)
    if not n:
        return None
    for i in range(len(toks) - n + 1):
        if toks[i : i + n] == seq:
            return (i, i + n)
    return None


def mentions_value(text: str, value: Any) -> bool:
    """``text`` names ``value`` as words ("Indian customers" names "India", "credit cards" "credit_card")."""
    toks, vw = words(text), words(str(value))
    if _find_seq(toks, vw) is not None:
        return True
    return len(vw) == 1 and any(_demonym_of(w, vw[0]) for w in toks)


def _demonym_of(word: str, hint: str) -> bool:
    """"indian" names "india", "german" names "germany", "chinese" names "china"."""
    if len(word) < 4 or len(hint) < 4 or " " in hint:
        return False
    if _DEMONYMS.get(word) == hint:
        return True
    stems = {hint}
    if hint[-1] in "aeiouy":
        stems.add(hint[:-1])
    return any(word == s + suffix for s in stems for suffix in _DEMONYM_SUFFIXES) or word == hint[:-1]


# --- SQL building --------------------------------------------------------------------------------------------


_KEYWORDS = frozenset(k.split()[0] for k in Tokenizer.KEYWORDS)


@lru_cache(maxsize=4096)
def _needs_quotes(name: str, dialect: str) -> bool:
    safe = r"[a-z_][a-z0-9_]*" if dialect == "postgres" else r"[A-Za-z_][A-Za-z0-9_]*"
    if not re.fullmatch(safe, name) or name.upper() in _KEYWORDS:
        return True
    try:
        parsed = sqlglot.parse_one(f"SELECT {name} FROM t", read=dialect)
    except sqlglot.errors.ParseError:
        return True
    sel = parsed.selects[0] if isinstance(parsed, exp.Select) and parsed.selects else None
    return not (isinstance(sel, exp.Column) and sel.name == name)


def _ident(name: str, dialect: str) -> exp.Identifier:
    return exp.to_identifier(name, quoted=_needs_quotes(name, dialect))


def _column_expr(table: str, column: str, dialect: str) -> exp.Column:
    parts = table.split(".")
    db = _ident(parts[0], dialect) if len(parts) == 2 else None
    return exp.Column(this=_ident(column, dialect), table=_ident(parts[-1], dialect), db=db)


def filter_spec(table: str, column: str, op: str, value: Any, dialect: str) -> dict[str, Any]:
    """A filter dict with its SQL built by sqlglot (quoting right for ``dialect``). ``table`` is qualified."""
    col = _column_expr(table, column, dialect)
    if op in ("IN", "NOT IN"):
        values = list(value) if isinstance(value, (list, tuple)) else [value]
        cond: exp.Expression = exp.In(this=col, expressions=[_literal(v) for v in values])
        if op == "NOT IN":
            cond = exp.Not(this=cond)
        value = values
    else:
        cond = _OP_BUILDERS[op](this=col, expression=_literal(value))
    return {"kind": "filter", "table": table, "column": column, "op": op, "value": value,
            "sql": cond.sql(dialect=dialect)}  # fmt: skip


# --- schema lookups ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Hit:
    table: Table
    column: Column
    value: Any
    span: tuple[int, int]


def _is_numeric(col: Column) -> bool:
    t = col.type.lower()
    return any(k in t for k in ("int", "numeric", "decimal", "real", "double", "float", "money", "number"))


def _mentioned_tables(toks: list[str], schema: Schema) -> set[str]:
    return {t.qualified_name for t in schema.tables if _find_seq(toks, words(t.name)) is not None}


def _id_like(table: Table, col: Column) -> bool:
    cw = words(col.name)
    return col.name in table.primary_key or any(w in _GENERIC_COL_WORDS for w in cw[-1:])


def _named_columns(toks: list[str], schema: Schema, *, numeric: bool | None) -> list[tuple[Table, Column, int]]:
    """Columns the text names: all their words (strength 2), or a distinctive one of them (strength 1)."""
    present = set(toks)
    out: list[tuple[Table, Column, int]] = []
    for t in schema.tables:
        twords = set(words(t.name))
        for c in t.columns:
            if numeric is not None and _is_numeric(c) != numeric:
                continue
            if _id_like(t, c):
                continue
            cw = [w for w in words(c.name) if w not in _GENERIC_COL_WORDS]
            if cw and _find_seq(toks, cw) is not None:
                out.append((t, c, 2))
            elif any(w in present and w not in twords and w not in _STOP and len(w) > 2 for w in cw):
                out.append((t, c, 1))
    return out


def _pick(cands: list[tuple[Table, Column, int]], mentioned: set[str]) -> tuple[Table, Column] | None:
    """The one clearly named column: strongest match, then one in a mentioned table; None when tied."""
    if not cands:
        return None
    best = max(s for _t, _c, s in cands)
    top = [(t, c) for t, c, s in cands if s == best]
    if len(top) > 1:
        top = [(t, c) for t, c in top if t.qualified_name in mentioned] or top
    return top[0] if len(top) == 1 else None


def _value_hits(toks: list[str], schema: Schema, masked: set[int]) -> list[_Hit]:
    hits: list[_Hit] = []
    for t in schema.tables:
        for c in t.columns:
            for hint in c.value_hints:
                hw = words(hint)
                if not hw or (len(hw) == 1 and (hw[0] in _STOP or len(hw[0]) < 2)):
                    continue
                span = _find_seq(toks, hw)
                if span is None and len(hw) == 1:
                    for i, w in enumerate(toks):
                        if _demonym_of(w, hw[0]):
                            span = (i, i + 1)
                            break
                if span is not None and not any(i in masked for i in range(*span)):
                    hits.append(_Hit(t, c, hint, span))
    return hits


def _negated(text: str, toks: list[str]) -> bool:
    low = text.lower()
    if re.search(r"\b(filter|leave|rule|keep|cut)\s+out\b", low) or re.search(r"\bother than\b", low):
        return True
    return any(w in _NEGATION for w in toks)


# --- preference filters --------------------------------------------------------------------------------------


def _from_sql(text: str, schema: Schema) -> dict[str, Any] | None:
    """A preference already written as SQL ("country = 'India'"), checked against the schema."""
    m = _SQLISH.search(text)
    if not m:
        return None
    try:
        cond = sqlglot.condition(text[m.start() :].rstrip(" .;"), dialect=schema.dialect)
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError, ValueError):
        return None
    negate = False
    if isinstance(cond, exp.Not):
        negate, cond = True, cond.this
    if isinstance(cond, exp.Paren):
        cond = cond.this
    if isinstance(cond, exp.In) and isinstance(cond.this, exp.Column):
        if not all(isinstance(e, exp.Literal) for e in cond.expressions):
            return None
        col_node, op, value = cond.this, ("NOT IN" if negate else "IN"), [_lit_value(e) for e in cond.expressions]
    elif type(cond) in _SQL_OPS and isinstance(cond.this, exp.Column) and isinstance(cond.expression, exp.Literal):
        col_node, op, value = cond.this, _SQL_OPS[type(cond)], _lit_value(cond.expression)
        if negate:
            op = _INVERT[op]
    else:
        return None
    found = _resolve_column(col_node, schema)
    if found is None:
        return None
    table, column = found
    value = _canonical_values(column, value)
    if op in ("IN", "NOT IN") and len(value) == 1:
        op, value = ("=" if op == "IN" else "<>"), value[0]
    return filter_spec(table.qualified_name, column.name, op, value, schema.dialect)


def _lit_value(node: exp.Literal) -> Any:
    if node.is_string:
        return node.this
    text = node.this
    return int(text) if re.fullmatch(r"-?\d+", text) else float(text)


def _resolve_column(node: exp.Column, schema: Schema) -> tuple[Table, Column] | None:
    qualifier = ".".join(p for p in (node.text("db"), node.table) if p)
    if qualifier:
        t = schema.table(qualifier)
        c = t.column(node.name) if t else None
        return (t, c) if t and c else None
    owners = [(t, c) for t in schema.tables if (c := t.column(node.name)) is not None]
    return owners[0] if len(owners) == 1 else None


def _canonical_values(column: Column, value: Any) -> Any:
    """Values written in another case take the spelling the database uses ("india" -> "India")."""
    by_lower = {h.lower(): h for h in column.value_hints}

    def fix(v: Any) -> Any:
        return by_lower.get(v.lower(), v) if isinstance(v, str) else v

    return [fix(v) for v in value] if isinstance(value, list) else fix(value)


def _number(m: re.Match[str]) -> int | float:
    raw = float(m.group("num").replace(",", ""))
    mult = (m.group("mult") or "").lower()
    value = raw * _MULT.get(mult, 1.0)
    return int(value) if value.is_integer() else value


def _comparison(text: str) -> tuple[str, int | float, tuple[int, int]] | None:
    m = _CMP_RE.search(text)
    if m:
        op = dict(_CMP_PHRASES)[m.group("cmp").lower()]
        return op, _number(m), m.span()
    m = _SUFFIX_CMP_RE.search(text)
    if m:
        cmp = m.group("cmp").lower()
        op = ">=" if cmp == "+" or any(k in cmp for k in ("more", "above", "higher")) else "<="
        return op, _number(m), m.span()
    return None


def filter_from_text(text: str, schema: Schema) -> dict[str, Any] | None:
    """A preference in plain words -> one filter on a real column, or None when nothing maps with confidence."""
    sql_form = _from_sql(text, schema)
    if sql_form is not None:
        return sql_form
    toks = words(text)
    mentioned = _mentioned_tables(toks, schema)
    hits: list[tuple[_Hit, bool]] = []  # (hit, negated): each clause has its own polarity
    negated = False
    for clause in _CLAUSE.split(text):
        ctoks = words(clause)
        masked = {i for _code, span in _currency_spans(clause) for i in range(*span)}
        # A list clause ("never show cancelled, returned or pending") keeps the polarity before it.
        if _negated(clause, ctoks):
            negated = True
        elif _POSITIVE_CUES & set(ctoks):
            negated = False
        hits.extend((h, negated) for h in sorted(_value_hits(ctoks, schema, masked), key=lambda h: h.span))
    if hits:
        groups: dict[tuple[str, str], list[tuple[_Hit, bool]]] = {}
        for h, neg in hits:
            groups.setdefault((h.table.qualified_name, h.column.name), []).append((h, neg))

        def rank(g: list[tuple[_Hit, bool]]) -> tuple[int, bool]:
            return len({h.value for h, _ in g}), g[0][0].table.qualified_name in mentioned

        ranked = sorted(groups.values(), key=rank, reverse=True)
        if len(ranked) > 1 and rank(ranked[0]) == rank(ranked[1]):
            logger.debug("preference values match several columns; kept as text")
            return None
        best = ranked[0]
        # "India, but not Germany": the kept values say it all; only all-negative clauses make an exclusion.
        negate = all(neg for _h, neg in best)
        values = list(dict.fromkeys(h.value for h, neg in best if neg == negate))
        table, column = best[0][0].table.qualified_name, best[0][0].column.name
        if len(values) == 1:
            return filter_spec(table, column, "<>" if negate else "=", values[0], schema.dialect)
        return filter_spec(table, column, "NOT IN" if negate else "IN", values, schema.dialect)
    cmp = _comparison(text)
    if cmp is None:
        return None
    op, number, span = cmp
    rest = text[: span[0]] + " " + text[span[1] :]
    picked = _pick(_named_columns(words(rest), schema, numeric=True), mentioned)
    if picked is None:
        return None
    if _negated(rest, words(rest)):
        op = _INVERT[op]
    return filter_spec(picked[0].qualified_name, picked[1].name, op, number, schema.dialect)


# --- terms and metrics ---------------------------------------------------------------------------------------

_DEF_PATTERNS = (
    re.compile(r"^by\s+(?P<name>.+?),?\s+(?:i|we)\s+mean\s+(?P<def>.+)$", re.IGNORECASE),
    re.compile(r"^(?:please\s+)?define\s+(?P<name>.+?)\s+as\s+(?P<def>.+)$", re.IGNORECASE),
    re.compile(r"^(?:we\s+|i\s+)?call\s+(?P<name>.+?)\s*(?:when|if|where|whenever|for|:)\s+(?P<def>.+)$",
               re.IGNORECASE),
    re.compile(r"^(?:we\s+|i\s+)?call\s+(?P<def>.+?)\s+[\"'“](?P<name>[^\"'”]+)[\"'”]$", re.IGNORECASE),
    re.compile(r"^(?P<name>.+?)\s+(?:is|are)\s+defined\s+as\s+(?P<def>.+)$", re.IGNORECASE),
    re.compile(r"^(?P<name>.+?)\s+(?:means|mean|refers\s+to|refer\s+to|stands\s+for|is\s+short\s+for|"
               r"is\s+equal\s+to|equals)\s+(?P<def>.+)$", re.IGNORECASE),
    re.compile(r"^(?P<name>[^=:<>!]+?)\s*(?::=|=|:|->|=>)\s*(?P<def>.+)$"),
    re.compile(r"^(?P<name>.+?)\s+(?:is|are)\s+(?P<def>.+)$", re.IGNORECASE),
)
_NAME_NOISE = re.compile(r"^(?:(?:the|a|an|term|word|phrase|metric|kpi|my|our)\s+)+", re.IGNORECASE)


def parse_definition(text: str) -> tuple[str, str] | None:
    """("high value order", "total amount over 10000") from the ways people define a word."""
    flat = " ".join(text.split()).strip().rstrip(".")
    for pattern in _DEF_PATTERNS:
        m = pattern.match(flat)
        if not m:
            continue
        name = re.sub(r"^it\s+", "", m.group("name").strip(" \"'“”`"), flags=re.IGNORECASE)
        name = _NAME_NOISE.sub("", name).strip(" \"'“”`,").lower()
        definition = m.group("def").strip(" \"'“”`")
        if name and definition and len(name.split()) <= 6:
            return name, definition
    return None


def _measure(text: str, schema: Schema) -> tuple[exp.Expression, bool] | None:
    """"sum of total amount" / "number of orders" / "total amount" -> (expression, is_aggregate)."""
    low = " ".join(text.lower().split()).strip(" .")
    low = re.sub(r"^(?:the|a|an)\s+", "", low)
    agg, prefix_used = None, ""
    for prefix, func in (("number of", "COUNT"), ("count of", "COUNT"), ("sum of", "SUM"), ("average", "AVG"),
                         ("avg", "AVG"), ("mean", "AVG"), ("total number of", "COUNT"), ("total", "SUM")):
        if low.startswith(prefix + " "):
            agg, prefix_used, rest = func, prefix, low[len(prefix) + 1 :].removeprefix("of ").strip()
            break
    else:
        rest = low
    toks = words(rest)
    mentioned = _mentioned_tables(toks, schema)
    if agg == "COUNT":
        tables = [schema.table(n) for n in mentioned]
        if len(tables) == 1 and tables[0] is not None:
            t = tables[0]
            if len(t.primary_key) == 1:
                col = _column_expr(t.qualified_name, t.primary_key[0], schema.dialect)
                return exp.Count(this=exp.Distinct(expressions=[col])), True
            return exp.Count(this=exp.Star()), True
        return None
    picked = _pick([c for c in _named_columns(words(low), schema, numeric=True) if c[2] == 2], mentioned)
    if picked is not None and prefix_used == "total" and "total" in words(picked[1].name):
        agg = None  # "total amount" names the column total_amount; it is not SUM(amount)
    if picked is None:
        picked = _pick(_named_columns(toks, schema, numeric=True), mentioned)
    if picked is None:
        return None
    col = _column_expr(picked[0].qualified_name, picked[1].name, schema.dialect)
    if agg is None:
        return col, False
    return exp.func(agg, col), True


def _ratio(definition: str, schema: Schema) -> str | None:
    m = re.match(r"^(?:the\s+)?ratio\s+of\s+(?P<a>.+?)\s+to\s+(?P<b>.+)$", definition, re.IGNORECASE) or re.match(
        r"^(?P<a>.+?)\s*(?:\bdivided\s+by\b|/|\bper\b)\s*(?P<b>.+)$", definition, re.IGNORECASE)
    if not m:
        return None
    a, b = _measure(m.group("a"), schema), _measure(m.group("b"), schema)
    if a is None or b is None:
        return None
    (ea, agg_a), (eb, agg_b) = a, b
    if agg_a != agg_b:  # one side aggregated: aggregate the other too
        ea = ea if agg_a else exp.func("SUM", ea)
        eb = eb if agg_b else exp.func("SUM", eb)
    num = exp.Mul(this=exp.Literal.number("1.0"), expression=ea)
    div = exp.Div(this=num, expression=exp.Nullif(this=eb, expression=exp.Literal.number(0)), typed=True)
    return div.sql(dialect=schema.dialect)


def _definition_sql(definition: str, schema: Schema, category: str) -> str | None:
    if category == "metric" or re.search(r"\b(divided by|ratio of|per)\b|/", definition, re.IGNORECASE):
        ratio = _ratio(definition, schema)
        if ratio is not None:
            return ratio
    spec = filter_from_text(definition, schema)
    if spec is not None:
        return str(spec["sql"])
    if category == "metric":
        measured = _measure(definition, schema)
        if measured is not None and measured[1]:
            return measured[0].sql(dialect=schema.dialect)
    return None


# --- entry point ---------------------------------------------------------------------------------------------


def _entity(text: str, schema: Schema) -> dict[str, Any] | None:
    toks = words(text)
    tables = sorted(_mentioned_tables(toks, schema))
    columns = sorted({f"{t.qualified_name}.{c.name}" for t, c, s in _named_columns(toks, schema, numeric=None)
                      if s == 2})  # fmt: skip
    values = sorted({str(h.value) for h in _value_hits(toks, schema, set())})
    if not (tables or columns or values):
        return None
    return {"kind": "entity", "tables": tables, "columns": columns, "values": values}


def structure(fact: Fact, schema: Schema | None) -> dict[str, Any] | None:
    """The machine form of ``fact`` (see the module docstring), or None when nothing maps with confidence."""
    try:
        return _structure(fact, schema)
    except (sqlglot.errors.SqlglotError, ValueError, KeyError) as exc:  # never lose the memory over its form
        logger.warning("could not structure memory %r: %s", fact.content[:80], exc)
        return None


def _structure(fact: Fact, schema: Schema | None) -> dict[str, Any] | None:
    text = fact.content
    if fact.category == "preference":
        spec = filter_from_text(text, schema) if schema is not None else None
        if spec is not None:
            return spec
        code = currency_code(text)
        return {"kind": "display", "setting": "currency", "value": code} if code else None
    if fact.category in ("terminology", "metric"):
        parsed = parse_definition(text)
        if parsed is None:
            return None
        name, definition = parsed
        out: dict[str, Any] = {"kind": "metric" if fact.category == "metric" else "term", "name": name}
        sql = _definition_sql(definition, schema, fact.category) if schema is not None else None
        if sql:
            out["sql"] = sql
        out["definition"] = definition
        return out
    if fact.category == "entity" and schema is not None:
        return _entity(text, schema)
    return None
