"""A number's definition in plain words -> one aggregate SQL expression with its conditions inside.

"refund rate is returned orders divided by all orders" ->
``1.0 * SUM(CASE WHEN orders.status = 'returned' THEN 1 ELSE 0 END) / NULLIF(COUNT(*), 0)``. Ratios,
differences, sums, percentages ("as a percentage" -> * 100), averages and "per X". Every part must map onto
the schema, else None: a metric is never turned into a filter, nor kept half-understood.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlglot import exp

from core.memory.forms._atom_text import FILLER, _fk
from core.memory.forms._condition_text import parse_condition
from core.memory.forms._metric_sql import metric_from_sql
from core.memory.forms._schema_match import Lookup, column_expr, is_numeric, mentioned_tables, named_columns, pick_column
from core.memory.kernel import GENERIC_COL_WORDS, normalize, words
from core.schema import Column, Schema, Table

__all__ = ["Metric", "metric_from_text"]

_COUNT = re.compile(r"\b(?:number|count|no\.|#|how\s+many|kitne|qty\s+of)\b(?:\s+of)?", re.IGNORECASE)
_AVG = re.compile(r"\b(?:average|avg|mean|typical)\b(?:\s+of)?", re.IGNORECASE)
_SUM = re.compile(r"\b(?:sum|total|totals)\b(?:\s+of)?", re.IGNORECASE)
_MONEY = re.compile(r"\b(?:revenue|sales|value|spend|spent|spending|turnover|gmv|money|amount|amounts|income|"
                    r"earnings|billing|billed|paid|worth)\b", re.IGNORECASE)  # fmt: skip
_DISTINCT = re.compile(r"\b(?:distinct|unique|different)\b", re.IGNORECASE)
_PERCENT = re.compile(r"\s*(?:,\s*)?\b(?:(?:expressed\s+)?(?:as|in)\s+(?:a\s+)?(?:percentage|percent|%)(?![a-z])(?!\s+of\b)|"
                      r"(?:multiplied\s+by|times|into|\*|x)\s*100|in\s+%)\s*", re.IGNORECASE)  # fmt: skip
_SHARE_OF = re.compile(r"^(?:the\s+)?(?P<how>ratio|share|fraction|proportion|percentage|percent|%|rate|pct)\s+of\s+"
                       r"(?P<b>.+?)\s+(?:that|which|who|with|where|whose)\s+(?:are|is|were|was|have|has|got|get)?\s*"
                       r"(?P<a>.+)$", re.IGNORECASE)  # fmt: skip
_BINARY = (
    ("ratio", re.compile(r"^(?:the\s+)?ratio\s+(?:of|between)\s+(?P<a>.+?)\s+(?:to|and|vs\.?|versus)\s+(?P<b>.+)$",
                         re.IGNORECASE)),  # fmt: skip
    ("minus", re.compile(r"^(?:the\s+)?difference\s+between\s+(?P<a>.+?)\s+and\s+(?P<b>.+)$", re.IGNORECASE)),
    ("ratio", re.compile(r"^(?P<a>.+?)\s+as\s+(?:a\s+)?(?:share|fraction|proportion|percentage|percent|%)\s+of\s+"
                         r"(?P<b>.+)$", re.IGNORECASE)),  # fmt: skip
    ("ratio", re.compile(r"^(?P<a>.+?)\s*(?:\bdivided\s+by\b|\bdivided\s+over\b|÷|\s/\s|/|\bover\b(?!\s+\d)|"
                         r"\bout\s+of\b|\bby\b(?=\s+(?:the\s+)?(?:number|count|total|all)\b))\s*(?P<b>.+)$",
                         re.IGNORECASE)),  # fmt: skip
    ("minus", re.compile(r"^(?P<a>.+?)\s+(?:minus|less|−|-|after\s+(?:subtracting|deducting|removing)|"
                         r"net\s+of)\s+(?P<b>.+)$", re.IGNORECASE)),  # fmt: skip
    ("plus", re.compile(r"^(?P<a>.+?)\s+(?:plus|\+)\s+(?P<b>.+)$", re.IGNORECASE)),
    ("per", re.compile(r"^(?P<a>.+?)\s+(?:per|for\s+each|for\s+every|each)\s+(?P<b>.+)$", re.IGNORECASE)),
)


@dataclass
class Metric:
    expr: exp.Expression
    table: Table
    columns: list[str]
    unknown: list[str]


@dataclass
class _Side:
    agg: exp.Expression
    table: Table
    columns: list[str]
    unknown: list[str]
    counts: bool  # a count of rows (or of distinct referenced rows)


def _sole_measure(t: Table) -> Column | None:
    cols = [c for c in t.columns if is_numeric(c) and c.name not in t.primary_key and not c.name.lower().endswith("id")
            and not any(w in GENERIC_COL_WORDS for w in words(c.name)[-1:])]  # fmt: skip
    return cols[0] if len(cols) == 1 else None


def _side(text: str, schema: Schema, lookup: Lookup | None, anchor: Table | None) -> _Side | None:
    """One measured quantity: an aggregate over ``anchor``'s rows (or the table the words name)."""
    d = schema.dialect
    low = " " + " ".join(text.split()).strip(" .") + " "
    agg = "AVG" if _AVG.search(low) else "COUNT" if _COUNT.search(low) else None
    toks = words(low)
    mentioned = [t for t in schema.tables if t.qualified_name in mentioned_tables(toks, schema)]
    scope = ([anchor] if anchor else []) + [t for t in mentioned if t is not anchor]
    col_hit = pick_column([c for c in named_columns(toks, schema, numeric=True) if c[2] == 2],
                          {t.qualified_name for t in scope})  # fmt: skip
    rest = low
    for rx in (_AVG, _COUNT, _SUM, _DISTINCT):
        rest = rx.sub(" ", rest)
    measure: tuple[Table, Column] | None = col_hit
    if measure is not None:
        for w in re.split(r"[_\s]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", measure[1].name)):
            rest = re.sub(rf"\b{re.escape(w)}s?\b", " ", rest, flags=re.IGNORECASE)
    elif agg != "COUNT" and _MONEY.search(low):
        for t in scope or list(schema.tables):
            c = _sole_measure(t)
            if c is not None:
                measure = (t, c)
                break
        rest = _MONEY.sub(" ", rest)
    counted: Table | None = None
    if measure is None:
        counted = next(iter(sorted(mentioned, key=lambda t: _pos(toks, t))), None)
        if counted is None:
            return None
    table = measure[0] if measure else counted
    assert table is not None
    base = anchor or table
    cond = parse_condition(rest, schema, lookup, anchor=base.qualified_name, infer=False) if rest.strip() else None
    if cond is None:
        leftover = [w for w in words(rest) if w not in FILLER and not _table_word(w, schema)]
        if leftover:
            return None
        where = None
        cols: list[str] = []
        unknown: list[str] = []
    else:
        if cond.leftover or cond.table is not base:
            return None
        where, cols, unknown = cond.expr, cond.columns, cond.unknown
    if measure is not None:
        if measure[0] is not base:
            return None
        value: exp.Expression = column_expr(base.qualified_name, measure[1].name, d)
        cols = sorted({*cols, f"{base.qualified_name}.{measure[1].name}"})
        func = "AVG" if agg == "AVG" else "SUM"
        if where is not None:
            value = exp.Case(ifs=[exp.If(this=where, true=value)],
                             default=None if func == "AVG" else exp.Literal.number(0))  # fmt: skip
        return _Side(exp.func(func, value), base, cols, unknown, False)
    assert counted is not None
    if counted is not base:  # customers counted over orders: distinct orders.customer_id
        link = _fk(base, counted)
        if link is None:
            return None
        ref: exp.Expression = column_expr(base.qualified_name, link[0], d)
        if where is not None:
            ref = exp.Case(ifs=[exp.If(this=where, true=ref)])
        return _Side(exp.Count(this=exp.Distinct(expressions=[ref])), base, cols, unknown, True)
    if where is None:
        return _Side(exp.Count(this=exp.Star()), base, cols, unknown, True)
    one = exp.Case(ifs=[exp.If(this=where, true=exp.Literal.number(1))], default=exp.Literal.number(0))
    return _Side(exp.func("SUM", one), base, cols, unknown, True)


def _pos(toks: list[str], t: Table) -> int:
    name = words(t.name)
    return next((i for i in range(len(toks)) if toks[i : i + len(name)] == name), len(toks))


def _table_word(w: str, schema: Schema) -> bool:
    return any(w in words(t.name) for t in schema.tables)


def _anchor(texts: list[str], schema: Schema) -> Table | None:
    """The table whose rows the metric aggregates: the measured column's, else the first counted one."""
    for text in texts:
        toks = words(text)
        picked = pick_column([c for c in named_columns(toks, schema, numeric=True) if c[2] == 2], set())
        if picked is not None:
            return picked[0]
    for text in texts:
        toks = words(text)
        mentioned = [t for t in schema.tables if t.qualified_name in mentioned_tables(toks, schema)]
        if _MONEY.search(text) and not _COUNT.search(text):
            owners = [t for t in (mentioned or schema.tables) if _sole_measure(t) is not None]
            if len(owners) == 1 or (owners and mentioned):
                return owners[0]
        if mentioned:
            return sorted(mentioned, key=lambda t: _pos(toks, t))[0]
    return None


_PART_OF = re.compile(r"^(?:the\s+)?(?:share|percentage|percent|%|fraction|proportion|pct)\s+of\s+(?:all\s+)?"
                      r"(?P<rest>.+)$", re.IGNORECASE)
_PART_WORDS = 4


def _part_of_whole(text: str, schema: Schema) -> tuple[str, str, str] | None:
    """"% of orders paid via upi", "percentage of invoice totals billed to USA or Canada": the whole is the
    first words that name a table (and a measure right after it), the part is the whole with the rest."""
    m = _PART_OF.match(text)
    if not m:
        return None
    rest = m.group("rest").split()
    for k in range(1, min(_PART_WORDS, len(rest) - 1) + 1):
        whole = " ".join(rest[:k])
        if mentioned_tables(words(whole), schema):
            nxt = rest[k] if k < len(rest) else ""
            if nxt and named_columns(words(nxt), schema, numeric=True):
                whole = f"{whole} {nxt}"
            part = " ".join(rest)
            if not _MONEY.search(whole) and not named_columns(words(whole), schema, numeric=True):
                part = _MONEY.sub(" ", part)  # a count of orders: "paid via upi" says which, not how much
            return part, whole, "ratio"
    return None


def metric_from_text(definition: str, schema: Schema, lookup: Lookup | None = None) -> Metric | None:
    typed = metric_from_sql(definition, schema)  # written as SQL: "SUM(UnitPrice * Quantity) over InvoiceLine"
    if typed is not None:
        return Metric(typed[0], typed[1], typed[2], [])
    text = normalize(definition).strip(" .")
    percent = bool(_PERCENT.search(text)) or bool(re.search(r"\bas\s+(?:a\s+)?(?:percentage|percent|%)\s+of\b",
                                                                text, re.IGNORECASE)) or bool(re.match(r"^(?:the\s+)?(?:(?:percentage|percent|pct)\b|%)", text,
                                                           re.IGNORECASE))  # fmt: skip
    text = _PERCENT.sub(" ", text).strip(" .,")
    share = _SHARE_OF.match(text)
    part = None if share else _part_of_whole(text, schema)
    if share:
        a_text, b_text, how = f"{share.group('b')} {share.group('a')}", share.group("b"), "ratio"
    elif part is not None:
        a_text, b_text, how = part
    else:
        how, a_text, b_text = "", text, ""
        for name, rx in _BINARY:
            m = rx.match(text)
            if m:
                how, a_text, b_text = name, m.group("a"), m.group("b")
                break
    sides_text = [a_text] + ([b_text] if how else [])
    anchor = _anchor(sides_text, schema)
    if anchor is None:
        return None
    a = _side(a_text, schema, lookup, anchor)
    if a is None:
        return None
    if not how:
        if not re.search(r"\b(?:sum|total|average|avg|mean|number|count|revenue|sales|value|spend)\b|#", a_text,
                         re.IGNORECASE) and not percent:  # fmt: skip
            return None  # a bare condition ("delivered orders") is not a number
        expr = a.agg
        cols, unknown = a.columns, a.unknown
        if percent:
            return None
        return Metric(expr, anchor, cols, unknown)
    b = _side(b_text, schema, lookup, anchor)
    if b is None:
        return None
    if how in ("ratio", "per"):
        scale = exp.Literal.number("100.0" if percent else "1.0")
        expr = exp.Div(this=exp.Mul(this=scale, expression=a.agg),
                       expression=exp.Nullif(this=b.agg, expression=exp.Literal.number(0)), typed=True)  # fmt: skip
    elif percent:
        return None
    elif how == "minus":
        expr = exp.Sub(this=a.agg, expression=b.agg)
    else:
        expr = exp.Add(this=a.agg, expression=b.agg)
    return Metric(expr, anchor, sorted({*a.columns, *b.columns}), a.unknown + b.unknown)

