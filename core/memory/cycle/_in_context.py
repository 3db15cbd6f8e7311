"""Statements that only make sense next to what the person already saved.

"Also exclude Portugal" names a value but no column; "default time range last 1 year kar do" names no table.
On their own they have no form (and would be stored as context only); read against the columns and tables of
the person's standing filters and windows they do, and then the update cycle can combine or replace as usual.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import sqlglot
from sqlglot import exp

from core.memory.forms import (
    CMP_OPS,
    CMP_RE,
    INVERT,
    NUM,
    ValueLookup,
    filter_spec,
    mentioned_tables,
    number_of,
    numbers_in,
    parse_condition,
    parse_definition,
    structure,
    value_hits,
)
from core.memory.cycle._extraction import Fact
from core.memory.cycle._filter_merge import NEGATIVE as _NEGATIVE
from core.memory.cycle._filter_merge import POSITIVE as _POSITIVE
from core.memory.kernel import NEGATION, NUMBER_WORDS, RESTRICTIVE, STOP, Memory, is_additive, normalize, words
from core.memory.recall import names_term, words as recall_words
from core.schema import Schema

__all__ = ["in_context"]



def in_context(fact: Fact, existing: list[Memory], schema: Schema, lookup: ValueLookup | None) -> dict[str, Any] | None:
    """The form ``fact`` has next to ``existing`` memories, or None (preferences and terms)."""
    if fact.category == "terminology":
        return (_values_for_a_saved_term(fact.content, existing, schema, lookup)
                or _condition_for_a_saved_term(fact.content, existing, schema, lookup)
                or _threshold_for_a_saved_term(fact.content, existing, schema))  # fmt: skip
    if fact.category != "preference":
        return None
    return (_fragment_on_a_standing_filter(fact.content, existing, schema, lookup)
            or _window_on_a_standing_window(fact, existing, schema)
            or _bound_on_a_standing_bound(fact.content, existing, schema)
            or _limit_on_a_standing_limit(fact.content, existing, schema)
            or _values_for_a_saved_term(fact.content, existing, schema, lookup))  # fmt: skip


_ROWS = re.compile(r"\b(?:rows?|results?|records?|lines?|entries|items?)\b", re.IGNORECASE)
_NUMBER_WORDS = {w: v for w, v in NUMBER_WORDS.items() if len(w) > 2}  # "a"/"an"/"one" say no number here


def _limit_on_a_standing_limit(text: str, existing: list[Memory], schema: Schema) -> dict[str, Any] | None:
    """"10 is too few, give me 30" next to a saved row limit of 10: the one number that is not the saved one is
    the new limit. Only for a statement that names no table, no column and no money."""
    limits = [m.structured for m in existing if m.structured and m.structured.get("kind") == "limit"]
    if len(limits) != 1 or re.search(r"[$€£₹%]", text) or mentioned_tables(words(text), schema):
        return None
    if CMP_RE.search(text) and not _ROWS.search(text):  # "make that above 5000": a bound, not a row count
        return None
    old = limits[0].get("value")
    found = [int(n) for n in re.findall(r"(?<![\d.])\d+(?![\d.])", text)]
    found += [v for w, v in _NUMBER_WORDS.items() if re.search(rf"\b{w}\b", text, re.IGNORECASE)]
    new = {n for n in found if n != old}
    if len(new) != 1:
        return None
    value = new.pop()
    return {"kind": "limit", "value": value} if 0 < value <= 100_000 else None


def _bound_on_a_standing_bound(text: str, existing: list[Memory], schema: Schema) -> dict[str, Any] | None:
    """"Make that above 5000" or "2,500 rather than 5,000" next to a saved "orders above 5000": one number other
    than the saved bound, naming no table, column, value or rows, next to exactly one saved comparison filter,
    moves that filter's bound — with the comparison said for it ("anything above 5000 excluded" keeps at most
    5000), else the saved one. A number with no comparison next to a saved row limit is the limit's."""
    bounds = [m.structured for m in existing if m.structured and m.structured.get("kind") == "filter"
              and str(m.structured.get("op")) in (">", ">=", "<", "<=")]
    said = list(words(text))
    if len(bounds) != 1 or _ROWS.search(text) or mentioned_tables(said, schema) or value_hits(said, schema, set()):
        return None
    st = bounds[0]
    fresh = sorted({n for n in numbers_in(text) if n != st.get("value")})
    if len(fresh) != 1:
        return None
    said_for = [m for m in CMP_RE.finditer(text) if number_of(m) == fresh[0]]
    limits = any((m.structured or {}).get("kind") == "limit" for m in existing)
    if len(said_for) > 1 or (not said_for and limits):
        return None
    table = schema.table(str(st.get("table")))
    column = table.column(str(st.get("column"))) if table is not None else None
    column_names = {c.name.lower() for t in schema.tables for c in t.columns}
    if table is None or column is None or column_names.intersection(said):
        return None
    op = CMP_OPS[said_for[0].group("cmp").lower()] if said_for else str(st.get("op"))
    if said_for and set(said) & (NEGATION | {"excluded", "removed", "dropped"}):
        op = INVERT[op]  # "anything above 5000 should be excluded": at most 5000 is kept
    value = int(fresh[0]) if float(fresh[0]).is_integer() else fresh[0]
    return filter_spec(table.qualified_name, column.name, op, value, schema.dialect)


def listed_values(form: Mapping[str, Any], dialect: str) -> tuple[str, list[Any]] | None:
    """("Genre.Name", ["Rock", "Metal"]) when a term's SQL is one column kept to a list of values, else None."""
    try:
        cond = sqlglot.parse_one(str(form.get("sql") or ""), read=dialect)
    except (sqlglot.errors.SqlglotError, ValueError):
        return None
    if isinstance(cond, exp.In) and isinstance(cond.this, exp.Column) and cond.expressions and all(
            isinstance(e, exp.Literal) for e in cond.expressions):  # fmt: skip
        return cond.this.sql(), [e.to_py() for e in cond.expressions]
    if isinstance(cond, exp.EQ) and isinstance(cond.this, exp.Column) and isinstance(cond.expression, exp.Literal):
        return cond.this.sql(), [cond.expression.to_py()]
    return None


def _values_for_a_saved_term(
    text: str, existing: list[Memory], schema: Schema, lookup: ValueLookup | None
) -> dict[str, Any] | None:
    """"Kolkata should also count as a metro city", "heavy genres mein Heavy Metal bhi count karo": a saved term
    that is a list of values, named again with more values of its column and an additive cue. The form is the
    term with the longer list (the update cycle then keeps one memory)."""
    if not is_additive(text) and not re.search(r"\b(?:add|include|count)\b", text, re.IGNORECASE):
        return None
    said = recall_words(text)
    for m in existing:
        st = m.structured or {}
        listed = listed_values(st, schema.dialect) if st.get("kind") == "term" else None
        if listed is None or not names_term(said, str(st.get("name") or "")):
            continue
        table = schema.table(str((st.get("tables") or [""])[0]))
        column = table.column(listed[0].split(".")[-1].strip('"')) if table is not None else None
        if table is None or column is None:
            continue
        found = _values_in(text, table.qualified_name, column, lookup)
        have = {str(v).lower() for v in listed[1]}
        more = [v for v in found if v.lower() not in have]
        if not more:
            continue
        values = [*listed[1], *more]
        spec = filter_spec(table.qualified_name, column.name, "IN", values, schema.dialect)
        return {**st, "sql": spec["sql"], "definition": f"{st.get('definition') or ''}; {text}".strip("; ")}
    return None


def _condition_for_a_saved_term(
    text: str, existing: list[Memory], schema: Schema, lookup: ValueLookup | None
) -> dict[str, Any] | None:
    """"Big orders should also leave out cancelled ones": a saved term named again with "also" and one more
    condition on its table; the form is the term with both conditions (ANDed)."""
    if not is_additive(text):
        return None
    said = recall_words(text)
    for m in existing:
        st = m.structured or {}
        name = str(st.get("name") or "")
        tables = st.get("tables") or []
        if st.get("kind") != "term" or not st.get("sql") or len(tables) != 1 or not names_term(said, name):
            continue
        rest = re.sub(r"\b(?:" + "|".join(re.escape(w) for w in name.split()) + r")\w*\b", " ", text, flags=re.I)
        cond = parse_condition(rest, schema, lookup, anchor=str(tables[0]), infer=False)
        if cond is None or cond.leftover or cond.table.qualified_name != tables[0]:
            continue
        added = cond.sql(schema.dialect)
        return {**st, "sql": f"({st['sql']}) AND ({added})", "columns": sorted({*(st.get("columns") or []),
                *cond.columns}), "definition": f"{st.get('definition') or ''}; {text}".strip("; ")}  # fmt: skip
    return None


def _threshold_for_a_saved_term(text: str, existing: list[Memory], schema: Schema) -> dict[str, Any] | None:
    """"Whale threshold is 50000 now, not 20000", "long track ab 8 minute se zyada": a saved term whose SQL has
    one number, named again with one other number. The new number takes the old one's place, in the unit the
    SQL keeps it in (6 minutes saved as 360000 ms: 8 minutes becomes 480000)."""
    said = recall_words(text)
    own = parse_definition(normalize(text))  # "a big spender is …" defines another word than "big invoice"
    for m in existing:
        st = m.structured or {}
        name = str(st.get("name") or "")
        if st.get("kind") != "term" or not name or not names_term(said, name):
            continue
        if own is not None and not names_term(recall_words(own[0]), name):
            continue
        if own is not None and recall_words(own[1]) - recall_words(m.content) - _THRESHOLD_WORDS - {
                w for w in recall_words(own[1]) if any(ch.isdigit() for ch in w)}:  # fmt: skip
            continue  # "VIP now means total spend over 1 lakh": a new definition, not a new number
        if not st.get("sql"):  # a term kept as words: its one number is rewritten in its own words
            reworded = _renumbered(m.content, text)
            if reworded is None:
                continue
            return {**st, "definition": _renumbered(str(st.get("definition") or ""), text) or reworded,
                    RESTATED: reworded}  # fmt: skip
        try:
            tree = sqlglot.parse_one(str(st["sql"]), read=schema.dialect)
        except (sqlglot.errors.SqlglotError, ValueError):
            continue
        literals = [lit for lit in tree.find_all(exp.Literal) if not lit.is_string]
        if len(literals) != 1:
            continue
        old_sql = float(literals[0].to_py())
        old_said = numbers_in(m.content)
        factor = old_sql / old_said[0] if len(old_said) == 1 and old_said[0] else 1.0
        new = {n for n in numbers_in(text) if n * factor != old_sql and n not in old_said}
        if len(new) != 1:
            continue
        value = new.pop() * factor
        literals[0].replace(exp.Literal.number(int(value) if float(value).is_integer() else value))
        reworded = _renumbered(m.content, text)
        out = {**st, "sql": tree.sql(dialect=schema.dialect),
               "definition": f"{st.get('definition') or ''}; {text}".strip("; ")}  # fmt: skip
        return {**out, RESTATED: reworded} if reworded else out
    return None


_THRESHOLD_WORDS = {"now", "not", "no", "longer", "ab", "abhi", "se", "zyada", "kam", "upar", "is", "should", "be",
                    "instead", "over", "above", "under", "below", "more", "less", "than", "at", "least", "most",
                    "threshold", "cutoff", "k", "lakh", "crore", "thousand", "million", "minute", "second", "hour",
                    "day", "wala", "wale", "hai", "hain", "maana", "jaaye", "it", "make", "change", "to"}  # fmt: skip
RESTATED = "_restated"  # a form key: the memory's new wording, when the statement only changed a number


def _renumbered(old: str, text: str) -> str | None:
    """``old`` with its one number replaced by the one other number ``text`` names, as ``text`` writes it
    ("A whale is a customer who spent over 20000." + "whale threshold is 50000 now, not 20000")."""
    olds = list(re.finditer(NUM, old, re.IGNORECASE))
    if len(olds) != 1:
        return None
    before = float(number_of(olds[0]))
    news = [m for m in re.finditer(NUM, normalize(text), re.IGNORECASE) if float(number_of(m)) != before]
    if len({float(number_of(m)) for m in news}) != 1:
        return None
    flat = normalize(text)

    def end(m: re.Match[str]) -> int:
        return m.end("mult") if m.group("mult") else m.end("num")

    return old[: olds[0].start("num")] + flat[news[0].start("num") : end(news[0])] + old[end(olds[0]) :]


def _values_in(text: str, table: str, column: Any, lookup: ValueLookup | None) -> list[str]:
    """The values of ``table.column`` that ``text`` names (the data through ``lookup``, else cached hints)."""
    toks = re.findall(r"[\w@&'-]+(?:\.[\w-]+)*", normalize(text))
    grams = {" ".join(toks[i : i + n]) for n in range(1, _FRAGMENT_MAX_WORDS + 1) for i in range(len(toks) - n + 1)}
    grams = {g for g in grams if not set(words(g)) <= STOP and not g.isdigit()}
    if lookup is not None:
        found = [v for v in lookup(table, column.name, sorted(grams)).values() if v]
    else:
        hints = {str(h).lower(): str(h) for h in column.value_hints}
        found = [hints[g.lower()] for g in grams if g.lower() in hints]
    return list(dict.fromkeys(found))


_FRAGMENT_MAX_WORDS = 3


def _window_on_a_standing_window(fact: Fact, existing: list[Memory], schema: Schema) -> dict[str, Any] | None:
    """"Default time range last 1 year kar do" names no table; with one default window already saved it is
    read against that window's table (a change of the same setting)."""
    tables = {str(m.structured["table"]) for m in existing
              if m.structured and m.structured.get("kind") == "window" and m.structured.get("table")}  # fmt: skip
    if len(tables) != 1:
        return None
    scoped = structure(fact, schema.subset(tables))
    return scoped if scoped and scoped.get("kind") == "window" else None


def _fragment_on_a_standing_filter(
    text: str, existing: list[Memory], schema: Schema, lookup: ValueLookup | None
) -> dict[str, Any] | None:
    """"Also exclude Portugal" after "exclude invoices billed to Brazil"; "add Brazil to the countries I look at"
    after "only the USA or Canada": a statement that names a value but no column, read against the columns of
    the person's standing filters. Only when the values it names are found in exactly one such column (in the
    data, through ``lookup``, or the cached hints); the polarity is the statement's own, else the filter's."""
    filters = [m.structured for m in existing if m.structured and m.structured.get("kind") == "filter"
               and str(m.structured.get("op")) in _POSITIVE + _NEGATIVE and not m.structured.get("also_on")]
    if not filters:
        return None
    hits: dict[tuple[str, str], tuple[Mapping[str, Any], list[str]]] = {}
    for st in filters:
        table = schema.table(str(st.get("table")))
        column = table.column(str(st.get("column"))) if table is not None else None
        if table is None or column is None:
            continue
        found = _values_in(text, table.qualified_name, column, lookup)
        if found:
            hits[(table.qualified_name, column.name)] = (st, found)
    if len(hits) != 1:
        return None
    (table_name, column_name), (st, found) = next(iter(hits.items()))
    said = {str(v).lower() for v in found}
    others = {(h.table.qualified_name, h.column.name) for h in value_hits(words(text), schema, set())
              if str(h.value).lower() not in said}  # fmt: skip
    if others - {(table_name, column_name)}:
        return None  # "exclude cancelled orders from Germany customers": a second rule, kept as words
    negated = bool(set(words(text)) & NEGATION)
    positive = bool(RESTRICTIVE.search(text)) or not negated and str(st.get("op")) in _POSITIVE
    op = ("IN" if len(found) > 1 else "=") if positive and not negated else ("NOT IN" if len(found) > 1 else "<>")
    return filter_spec(table_name, column_name, op, found if len(found) > 1 else found[0], schema.dialect)
