"""The machine form of a remembered fact, grounded in the real schema: a filter, a term, a metric, an entity.

A structured form lets the update cycle see that "only Germany" contradicts "only India" (same column, new
value) even when the sentences embed close together or far apart, and lets the pipeline enforce a filter on
the SQL itself. Nothing here guesses: when the words do not map onto one table.column with confidence the
result is None and the memory is kept as plain text.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import sqlglot
from sqlglot import exp

from core.memory._extraction import Fact
from core.memory._filter_text import filter_from_text
from core.memory._schema_match import column_expr, mentioned_tables, named_columns, pick_column, value_hits
from core.memory._words import currency_code, words
from core.schema import Schema

__all__ = ["parse_definition", "structure"]

logger = logging.getLogger(__name__)



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
    mentioned = mentioned_tables(toks, schema)
    if agg == "COUNT":
        tables = [schema.table(n) for n in mentioned]
        if len(tables) == 1 and tables[0] is not None:
            t = tables[0]
            if len(t.primary_key) == 1:
                col = column_expr(t.qualified_name, t.primary_key[0], schema.dialect)
                return exp.Count(this=exp.Distinct(expressions=[col])), True
            return exp.Count(this=exp.Star()), True
        return None
    picked = pick_column([c for c in named_columns(words(low), schema, numeric=True) if c[2] == 2], mentioned)
    if picked is not None and prefix_used == "total" and "total" in words(picked[1].name):
        agg = None  # "total amount" names the column total_amount; it is not SUM(amount)
    if picked is None:
        picked = pick_column(named_columns(toks, schema, numeric=True), mentioned)
    if picked is None:
        return None
    col = column_expr(picked[0].qualified_name, picked[1].name, schema.dialect)
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
    tables = sorted(mentioned_tables(toks, schema))
    columns = sorted({f"{t.qualified_name}.{c.name}" for t, c, s in named_columns(toks, schema, numeric=None)
                      if s == 2})  # fmt: skip
    values = sorted({str(h.value) for h in value_hits(toks, schema, set())})
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
