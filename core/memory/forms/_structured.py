"""The machine form of a remembered fact, grounded in the real schema: a filter, a term, a metric, an entity.

A structured form lets the update cycle see that "only Germany" contradicts "only India" (same column, new
value) even when the sentences embed close together or far apart, and lets the pipeline enforce a filter on
the SQL itself. Nothing here guesses: when the words do not map onto one table.column with confidence the
result is None and the memory is kept as plain text.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import sqlglot

from core.memory.forms._condition_text import parse_condition
from core.memory.kernel import Fact, normalize, words
from core.memory.forms._filter_text import filter_from_text, include_from_text
from core.memory.forms._metric_text import metric_from_text
from core.memory.forms._presentation_text import display_form, presentation_from_text, states_time_range
from core.memory.forms._schema_match import mentioned_tables, named_columns, value_hits
from core.schema import Schema

__all__ = ["ValueLookup", "parse_definition", "structure"]

# (table, column, values as written) -> {written: the database's spelling, or None when it does not occur}
ValueLookup = Callable[[str, str, Sequence[str]], Mapping[str, str | None]]

logger = logging.getLogger(__name__)



# --- terms and metrics ---------------------------------------------------------------------------------------

_DEF_PATTERNS = (
    re.compile(r"^by\s+(?P<name>.+?),?\s+(?:i|we)\s+mean\s+(?P<def>.+)$", re.IGNORECASE),
    # "when I say 'heavy stuff' I mean the Metal genres"
    re.compile(r"^(?:when(?:ever)?|if)\s+(?:i|we)\s+(?:say|write|use|talk\s+about)\s+(?P<name>.+?),?\s+(?:i|we)\s+"
               r"(?:mean|am\s+talking\s+about|refer\s+to)\s+(?P<def>.+)$", re.IGNORECASE),
    # "when I say Nordics: Denmark, Finland, Norway, Sweden"
    re.compile(r"^(?:when(?:ever)?|if)\s+(?:i|we)\s+(?:say|write|use|talk\s+about)\s+(?P<name>[^,:=]+?)\s*"
               r"(?::|,|=|->|\s-\s)\s*(?P<def>.+)$", re.IGNORECASE),
    # "orders above 5000 are what I call big orders": the name comes last
    re.compile(r"^(?P<def>.+?)\s+(?:is|are)\s+what\s+(?:i|we|you)\s+(?:call|mean\s+by)\s+(?P<name>.+)$",
               re.IGNORECASE),
    re.compile(r"^(?:please\s+)?define\s+(?P<name>.+?)\s+as\s+(?P<def>.+)$", re.IGNORECASE),
    # "please always compute return rate as returned orders over shipped orders"
    re.compile(r"^(?:please\s+)?(?:always\s+|from\s+now\s+on,?\s+)?(?:compute|calculate|measure|work\s+out|"
               r"treat|count)\s+(?P<name>.+?)\s+as\s+(?P<def>.+)$", re.IGNORECASE),
    re.compile(r"^(?:we\s+|i\s+)?call\s+(?P<name>.+?)\s*(?:when|if|where|whenever|for|:)\s+(?P<def>.+)$",
               re.IGNORECASE),
    re.compile(r"^(?:we\s+|i\s+)?call\s+(?P<def>.+?)\s+[\"'“](?P<name>[^\"'”]+)[\"'”]$", re.IGNORECASE),
    re.compile(r"^(?P<name>.+?)\s+(?:is|are)\s+defined\s+as\s+(?P<def>.+)$", re.IGNORECASE),
    # "AOV should be delivered revenue divided by delivered orders": a (re)definition
    re.compile(r"^(?P<name>.+?)\s+(?:should|must|ought\s+to|has\s+to|have\s+to)\s+(?:now\s+)?(?:be|mean)\s+"
               r"(?:computed\s+as\s+|calculated\s+as\s+)?(?P<def>.+)$", re.IGNORECASE),
    re.compile(r"^(?P<name>.+?)\s+(?:means|mean|refers\s+to|refer\s+to|stands\s+for|is\s+short\s+for|"
               r"is\s+equal\s+to|equals)\s+(?P<def>.+)$", re.IGNORECASE),
    re.compile(r"^(?P<name>[^=:<>!]+?)\s*(?::=|=|:|->|=>)\s*(?P<def>.+)$"),
    re.compile(r"^(?P<name>.+?)\s+(?:is|are)\s+(?P<def>.+)$", re.IGNORECASE),
)
_NAME_TAIL = re.compile(r"(?:\s+(?:always|usually|generally|basically|simply|just|actually|really|now|here|ab|abhi|"
                        r"threshold|cutoff|cut-off|definition|"
                        r"(?:for|to|with(?:in)?|at)\s+(?:us|me|our\s+team|our\s+company|the\s+team)))+$",
                        re.IGNORECASE)  # "revenue always means ...", "Europe for us means ...": the name is before
_NAME_NOISE = re.compile(r"^(?:(?:the|a|an|term|word|phrase|metric|kpi|my|our)\s+)+", re.IGNORECASE)


def parse_definition(text: str) -> tuple[str, str] | None:
    """("high value order", "total amount over 10000") from the ways people define a word."""
    flat = " ".join(text.split()).strip().rstrip(".")
    for pattern in _DEF_PATTERNS:
        m = pattern.match(flat)
        if not m:
            continue
        raw_name, raw_def = m.group("name"), m.group("def")
        if pattern is _DEF_PATTERNS[-1] and re.search(r",|\s(?:and|&)\s", raw_name) and len(raw_def.split()) <= 3 \
                and not re.search(r",|\s(?:and|&)\s", raw_def):  # "Chennai, Kolkata and Delhi are the metros"
            raw_name, raw_def = raw_def, raw_name
        name = re.sub(r"^it\s+", "", raw_name.strip(" \"'“”`"), flags=re.IGNORECASE)
        name = _NAME_NOISE.sub("", name).strip(" \"'“”`,").lower()
        name = _NAME_TAIL.sub("", name).strip() or name
        definition = raw_def.strip(" \"'“”`")
        if name and definition and len(name.split()) <= 6:
            return name, definition
    return None


_NUMBER_CUE = re.compile(r"\b(?:divided|ratio|rate|per|percent|percentage|share|minus|plus|sum|average|avg|mean|"
                         r"number\s+of|count\s+of|total\s+of|difference|revenue|sales)\b|[/%÷]", re.IGNORECASE)


def _definition_form(category: str, text: str, schema: Schema | None, lookup: ValueLookup | None,
                     ) -> dict[str, Any] | None:  # fmt: skip
    parsed = parse_definition(normalize(text))
    if parsed is None:
        return None
    name, definition = parsed
    numeric = category == "metric" or bool(_NUMBER_CUE.search(definition))
    if schema is not None and numeric:
        metric = metric_from_text(definition, schema, lookup)
        if metric is not None:
            out: dict[str, Any] = {"kind": "metric", "name": name, "definition": definition,
                                   "sql": metric.expr.sql(dialect=schema.dialect),
                                   "tables": [metric.table.qualified_name], "columns": metric.columns}  # fmt: skip
            if metric.unknown:
                out["unknown_values"] = metric.unknown
            return out
    if category == "metric":  # a number that does not map is kept as words, never as a filter
        return {"kind": "metric", "name": name, "definition": definition}
    out = {"kind": "term", "name": name}
    if schema is not None:
        named = [t for t in schema.tables if t.qualified_name in mentioned_tables(words(name), schema)]
        cond = parse_condition(definition, schema, lookup, anchor=named[0].qualified_name if len(named) == 1 else None,
                               context=name)
        if cond is not None and not cond.leftover:
            out["sql"] = cond.sql(schema.dialect)
            out["tables"] = [cond.table.qualified_name]
            out["columns"] = cond.columns
            if cond.unknown:
                out["unknown_values"] = cond.unknown
    out["definition"] = definition
    return out


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


def structure(fact: Fact, schema: Schema | None, *, lookup: ValueLookup | None = None) -> dict[str, Any] | None:
    """The machine form of ``fact`` (docs/memory_forms.md), or None when nothing maps with confidence.

    ``lookup`` finds the values named in their column (the database's spelling, or None when absent); without
    it the schema's cached value hints answer (see ``_schema_match.resolve_values``).
    """
    try:
        return _structure(fact, schema, _remembering(lookup) if lookup is not None else None)
    except (sqlglot.errors.SqlglotError, ValueError, KeyError) as exc:  # never lose the memory over its form
        logger.warning("could not structure memory %r: %s", fact.content[:80], exc)
        return None


def _remembering(lookup: ValueLookup) -> ValueLookup:
    """``lookup`` answering each (table, column, values) once: one statement is read several ways (a window and
    the filter beside it, a value hinted in one column and probed in the others), each asking the same."""
    seen: dict[tuple[str, str, tuple[str, ...]], Mapping[str, str | None]] = {}

    def ask(table: str, column: str, values: Sequence[str]) -> Mapping[str, str | None]:
        key = (table, column, tuple(values))
        if key not in seen:
            seen[key] = lookup(table, column, values)
        return seen[key]

    return ask


def _structure(fact: Fact, schema: Schema | None, lookup: ValueLookup | None) -> dict[str, Any] | None:
    text = fact.content
    if fact.category == "preference":
        if schema is None:
            return display_form(normalize(text))
        found = presentation_from_text(text, schema, lookup) or include_from_text(text, schema, lookup)
        if found is not None:
            return found
        found = filter_from_text(normalize(text), schema, lookup)
        if found is not None and states_time_range(normalize(text), schema):
            return None  # a time range and a filter in one statement: two rules, kept as words (see window_form)
        return found
    if fact.category in ("terminology", "metric"):
        return _definition_form(fact.category, text, schema, lookup)
    if fact.category == "entity" and schema is not None:
        return _entity(text, schema)
    return None
