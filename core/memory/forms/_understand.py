"""The one way a statement becomes a memory's form, whoever makes it: a chat message, `cairn memory add/edit`,
the window's Add/Edit (live, while typing) and an import all call ``understand``.

It returns the typed form (docs/memory_forms.md) or none, and says in plain words what Cairn will do with the
memory: enforce it on the SQL, define a word for the model, shape the presentation, or use the person's own
words as context only. Values that were not found in their column are named, never dropped.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.memory.kernel import Category, Fact, Memory
from core.memory.forms._structured import ValueLookup, structure
from core.memory.forms._verify import ENFORCED_KINDS
from core.schema import Schema

__all__ = ["Grounding", "Understanding", "confirmation", "describe_form", "understand", "window_words"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Grounding:
    """What a statement is understood against: the open database's schema and a look-up of values in it."""

    schema: Schema | None = None
    lookup: ValueLookup | None = None
    database_id: str | None = None


@dataclass(frozen=True)
class Understanding:
    category: Category
    content: str
    form: Mapping[str, Any] | None
    use: str  # "enforced", "definition", "presentation", "context"
    description: str  # one line for the person: what Cairn will do with it
    warnings: tuple[str, ...] = ()


_USE = {"filter": "enforced", "window": "enforced", "sort": "presentation", "limit": "presentation",
        "columns": "presentation", "display": "presentation", "term": "definition", "metric": "definition",
        "include": "exclusion lifted", "entity": "context", "pending": "pending", "context": "context"}  # fmt: skip


def understand(category: Category, content: str, grounding: Grounding | None = None) -> Understanding:
    g = grounding or Grounding()
    form = structure(Fact(category, content), g.schema, lookup=g.lookup)
    if form is not None and form.get("kind") in ("term", "metric") and not form.get("sql"):
        form_use = "context"
    else:
        form_use = _USE.get(str(form.get("kind")), "context") if form else "context"
    warnings: list[str] = []
    if form:
        unknown = form.get("unknown_values") or []
        if unknown:
            where = f"{form.get('table')}.{form.get('column')}" if form.get("column") else "the data"
            warnings.append("Not found in " + where + ": " + ", ".join(map(str, unknown))
                            + " (kept as written).")
    if g.schema is None and category in ("preference", "terminology", "metric"):
        warnings.append("No database is open: the meaning will be worked out when one is.")
    return Understanding(category, content, form, form_use, describe_form(form, category), tuple(warnings))


def describe_form(form: Mapping[str, Any] | None, category: str = "") -> str:
    """One line saying what the memory does, for the confirmation, the bank and the edit dialog."""
    if not form:
        return "Used as context only: the model sees your words; nothing is enforced."
    kind = form.get("kind")
    if kind == "context":
        return "Used as context only, as you chose: the model sees your words; nothing is enforced."
    if kind == "pending":
        readings = [r for r in form.get("readings") or () if isinstance(r, Mapping)]
        options = " or ".join(f"({i}) {describe_form(r)}" for i, r in enumerate(readings, 1))
        return (f"Not enforced until you confirm ({form.get('why')}); context only meanwhile."
                + (f" It could be enforced as: {options}" if options else ""))
    if kind == "filter":
        also = [f"{link.get('table')} (through {link.get('column')})" for link in form.get("also_on") or ()
                if isinstance(link, Mapping)]  # fmt: skip
        where = (", ".join(also) if form.get("only_through") and also
                 else f"{form.get('table')}" + (f" or {', '.join(also)}" if also else ""))
        return f"Enforced on every query reading {where}: {form.get('sql')}"
    if kind == "window":
        return (f"Default time range on {form.get('table')}.{form.get('column')}: {window_words(form)}, unless a "
                "question sets its own dates.")
    if kind == "include":
        return (f"Includes {form.get('column')} = {form.get('value')!r}: lifts any standing exclusion of it "
                "(not a filter).")
    if kind == "sort" and not form.get("table"):
        by = form.get("column") or {"date": "their date", "name": "their name", "measure": "their number"}.get(
            str(form.get("by")), "?")  # fmt: skip
        return f"Every list is sorted by {by} {form.get('direction', 'ASC')} when the question sets no order."
    if kind == "sort":
        return f"Lists are sorted by {form.get('table')}.{form.get('column')} {form.get('direction', 'ASC')} " \
               "when the question sets no order."
    if kind == "limit":
        return f"Lists show at most {form.get('value')} rows when the question sets no limit."
    if kind == "columns":
        return (f"Whenever {form.get('table')}.{form.get('when')} is shown, "
                f"{', '.join(map(str, form.get('add') or []))} is shown too.")
    if kind == "display":
        both = "decimals" in form and form.get("setting") != "decimals"
        extra = f", decimals = {form.get('decimals')}" if both else ""
        how = ("formats the numbers of every answer" if form.get("setting") in ("currency", "decimals")
               else "context for trend questions")  # fmt: skip
        return f"Display setting: {form.get('setting')} = {form.get('value')}{extra} ({how})."
    if kind in ("term", "metric"):
        if form.get("sql"):
            what = "computed as" if kind == "metric" else "means"
            return f"\"{form.get('name')}\" {what}: {form.get('sql')}"
        return f"Definition of \"{form.get('name')}\" used as context only: the words did not map onto columns."
    if kind == "entity":
        parts = [*(form.get("tables") or []), *(form.get("columns") or []), *map(str, form.get("values") or [])]
        return "About: " + ", ".join(parts) + " (context when a question refers to it by name)."
    return "Used as context only."


def confirmation(memory: Memory) -> dict[str, Any] | None:
    """What the person is shown after a rule is saved or changed, so that nothing is enforced unseen: the form in
    plain words, whether it is enforced or waits for them (with the readings to choose from), and what they can
    do — keep it, edit it, or make it context only. None for a memory that enforces nothing."""
    form = memory.structured or {}
    kind = form.get("kind")
    if kind not in (*ENFORCED_KINDS, "pending"):
        return None
    readings = [r for r in form.get("readings") or () if isinstance(r, Mapping)] if kind == "pending" else [form]
    tables = sorted({str(r.get("table")) for r in readings if r.get("table")})
    return {
        "memory_id": memory.id,
        "content": memory.content,
        "status": "pending" if kind == "pending" else "enforced",
        "understood_as": describe_form(form, memory.category),
        "readings": [describe_form(r) for r in readings],
        "applies_to": tables or ["every list"],
        "why": str(form.get("why") or ""),
        "actions": ["keep", "edit", "context"],
    }


def window_words(form: Mapping[str, Any]) -> str:
    """"the last 90 day(s)", "from 2023-01-01", "before 2024-01-01", "2025-01-01 up to 2026-01-01"."""
    start, end = form.get("start"), form.get("end")
    if form.get("current"):
        first = form.get("first_month")
        return f"the current {form.get('current')}" + (f" (starting in month {first})" if first else "") + " to date"
    if start and end:
        return f"from {start} up to (not including) {end}"
    if start:
        return f"from {start} on"
    if end:
        return f"before {end}"
    return f"the last {form.get('amount')} {form.get('unit')}(s)"
