"""A question that says otherwise than a saved rule, for itself only: the rule is lifted for that answer.

"How many orders, including cancelled ones?" against a saved exclusion of cancelled orders, "customers in Japan
too" against "only Indian customers", "all orders, no limit" against a default of 20 rows: enforcing the rule
would answer another question than the one asked — a confident wrong number. The test is by the data, not by
phrases: the question names a value of the filtered column that the rule leaves out (looked up among the
column's known values, as the forms do). A default row limit is lifted when the question asks for every row, a
default time range when it asks about all time (the few words the person uses for that are listed here).
The rule stays saved; the answer says it was lifted.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from core.memory.forms import value_hits
from core.memory.kernel import GENERIC_COL_WORDS, mentions_value, singular, words
from core.schema import Schema

__all__ = ["lifted_by"]

_EVERY_ROW = re.compile(r"\b(?:no|without\s+(?:a|any)|remove\s+the)\s+(?:row\s+)?limit\b|\ball\s+(?:the\s+)?rows\b|"
                        r"\bevery\s+(?:single\s+)?row\b|\bfull\s+list\b|\ball\s+of\s+them\b|\bunlimited\b|"
                        r"\b(?:list|show|give|display|get|fetch)\s+(?:me\s+|us\s+)?(?:all|every)\b",
                        re.IGNORECASE)


_ALL_TIME = re.compile(r"\ball[\s-]+time\b|\bsince\s+(?:the\s+)?(?:beginning|start)\b|"
                       r"\b(?:whole|entire|full|complete)\s+(?:\w+\s+)?history\b|"
                       r"\b(?:ignore|without|skip|drop)\s+(?:the\s+|my\s+)?(?:\d+[\s-]*\w+\s+)?(?:default|date|time)\b",
                       re.IGNORECASE)


_ALL_OF = re.compile(r"\b(?:all|every|any|each|har)\s+(?:the\s+|of\s+the\s+)?([a-z]+)", re.IGNORECASE)
_NOT_JUST = re.compile(r"\bnot\s+(?:just|only)\s+(?:the\s+)?(?:last\s+|past\s+)?(\d+)", re.IGNORECASE)
_YEAR = re.compile(r"\b((?:19|20)\d\d)\b")


def lifted_by(question: str, form: Mapping[str, Any], schema: Schema) -> str | None:
    """Why ``question`` lifts the saved ``form`` for itself ("it names Japan"), or None when the rule applies."""
    kind = form.get("kind")
    if kind == "limit":
        return "it asks for every row" if _EVERY_ROW.search(question) else None
    if kind == "window" and not form.get("start") and not form.get("end"):
        amount = str(form.get("amount") or "")
        if _ALL_TIME.search(question) or any(m.group(1) == amount for m in _NOT_JUST.finditer(question)):
            return "it asks about all time"
        return None
    if kind == "window" or (kind == "filter" and str(form.get("op")) in (">", ">=", "<", "<=")):
        year = _year_outside(question, form)
        return f"it asks about {year}" if year else None
    if kind != "filter" or str(form.get("op")) not in ("=", "IN", "<>", "NOT IN"):
        return None
    table = schema.table(str(form.get("table") or ""))
    column = table.column(str(form.get("column") or "")) if table is not None else None
    if table is None or column is None:
        return None
    if _all_of(question, column.name):
        return f"it asks about every {column.name}"
    value = form.get("value")
    saved = {str(v).casefold() for v in (value if isinstance(value, (list, tuple)) else [value])}
    keeps = str(form.get("op")) in ("=", "IN")
    named = {str(h.value) for h in value_hits(list(words(question)), schema, set())
             if h.table.qualified_name == table.qualified_name and h.column.name == column.name}
    if not keeps:  # the left-out values are in the rule itself: found even where the column has too many values
        named |= {str(v) for v in (value if isinstance(value, (list, tuple)) else [value]) if mentions_value(question, v)}
    left_out = sorted(v for v in named if (v.casefold() in saved) != keeps)
    return f"it names {', '.join(left_out)}" if left_out else None


def _all_of(question: str, column: str) -> bool:
    """"All segments", "every country", "har status": the question spans every value of the filtered column."""
    names = {singular(w) for w in words(column.replace("_", " "))} - GENERIC_COL_WORDS
    return any(singular(m.group(1).lower()) in names for m in _ALL_OF.finditer(question))


def _year_outside(question: str, form: Mapping[str, Any]) -> str | None:
    """A year the question names that a saved fixed period (or date bound) leaves out: "include 2023 for this
    one" against "on or after 2024-01-01"."""
    start = str(form.get("start") or "")
    end = str(form.get("end") or "")
    op, value = str(form.get("op") or ""), str(form.get("value") or "")
    if form.get("kind") == "filter":
        if not re.fullmatch(r"\d{4}-\d\d-\d\d", value):
            return None
        start, end = (value, "") if op in (">", ">=") else ("", value)
    for year in _YEAR.findall(question):
        first, last = f"{year}-01-01", f"{year}-12-31"
        if (start and last < start) or (end and first >= end):
            return year
    return None

