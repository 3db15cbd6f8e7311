"""A message routed as a question that is really a change to a rule the person saved.

"Make it 30 rows", "switch my focus from Paris to Lyon", "actually make it the last 2 weeks": after a saved
default limit, filter or time range, such a message is not a question about the data — answered as one, the old
rule would stay enforced on every later query, a silent wrong answer. The test is by structure, not by phrase:
the message asks nothing (no question form, no show/list request) and its words read as a standing rule in the
*same slot* (the same table and column, the one default limit, sort or time range) as a saved rule that is
enforced. Then it goes through the update cycle like any statement, which decides combine or replace and says
what is now enforced.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core.memory.cycle._forget import forget
from core.memory.cycle._in_context import in_context
from core.memory.cycle._sameness import slot_key, slots_clash
from core.memory.forms import ENFORCED_KINDS, ValueLookup, structure, value_hits
from core.memory.kernel import Embedder, Fact, Memory, singular, words
from core.memory.recall import lifted_by
from core.memory.routing import Route, asks_something, withdraws
from core.memory.stores import MemoryStore
from core.schema import Schema

__all__ = ["changed_rule", "reads_as_rule", "rule_route"]


def changed_rule(message: str, saved: Sequence[Memory], schema: Schema | None, lookup: ValueLookup | None = None
                 ) -> Memory | None:
    """The saved, enforced memory ``message`` changes, or None."""
    rules = [m for m in saved if (m.structured or {}).get("kind") in ENFORCED_KINDS]
    if schema is None or not rules:
        return None
    form = _rule_form(message, saved, schema, lookup)
    if form is None:
        return None
    slot = slot_key(form)
    return next((m for m in rules if slots_clash(slot_key(m.structured), slot)), None)


def reads_as_rule(message: str, saved: Sequence[Memory], schema: Schema | None, lookup: ValueLookup | None = None
                  ) -> bool:
    """Whether ``message`` (asking nothing) reads as a standing rule on the data, alone or next to the saved ones:
    "and only credit card payments" right after "only delivered orders from now on" continues the statement."""
    return schema is not None and _rule_form(message, saved, schema, lookup) is not None


def _rule_form(message: str, saved: Sequence[Memory], schema: Schema, lookup: ValueLookup | None
               ) -> Mapping[str, Any] | None:
    if asks_something(message):
        return None
    fact = Fact("preference", message)
    form = structure(fact, schema, lookup=lookup)
    if not form or form.get("kind") not in ENFORCED_KINDS:
        form = in_context(fact, list(saved), schema, lookup)
    return form if form and form.get("kind") in ENFORCED_KINDS else None


def rule_route(message: str, route: Route, *, user: str, database_id: str, store: MemoryStore, embedder: Embedder,
               schema: Schema, lookup: ValueLookup | None, last_reply: str | None) -> Route | None:
    """The route of a message the router took for a question or an edit when it is really about a saved rule —
    a change of it ("make it 30 rows"), a withdrawal ("drop the payment method condition"), or, right after a
    statement, its continuation ("and only credit card payments": the last reply ran no SQL, so there is no query
    to edit, and rules are saved) — else None.
    A change or continuation found this way waits for the person's confirmation (``Route.changes`` is set)."""
    if route.kind == "meta" and _names_a_row(message, schema):  # "what is the email of customer 42?"
        return Route("question", True, (*route.reasons, "names rows of the data: a question"), alternative="meta")
    if route.kind == "forget" and last_reply != "sql" and not asks_something(message):
        report = forget(message, user=user, database_id=database_id, store=store, embedder=embedder, schema=schema,
                        dry_run=True)
        # "stop showing cancelled orders" with nothing saved, or with a saved rule on another value ("stop showing
        # returned" next to "exclude cancelled"): a new rule that waits for the person, never a withdrawal of the
        # wrong rule (after an answer, "not X any more" is about that answer)
        if report.operation == "NOOP" or _names_another_value(message, report.before, schema):
            return Route("preference", True, (*route.reasons, "nothing saved names it: a new rule, to confirm"),
                         alternative="forget", changes="")
        return None
    if route.kind not in ("question", "follow_up", "refine", "chat", "terminology") or asks_something(message):
        return None
    if route.kind == "terminology" and (structure(Fact("terminology", message), schema, lookup=lookup) or {}).get("sql"):
        return None  # a definition of its own ("big orders means total above 1000"), not a change of a rule
    saved = store.list(user, database_id=database_id)
    changed = changed_rule(message, saved, schema, lookup)
    if changed is not None:
        return Route("preference", True, (*route.reasons, f'changes your saved "{changed.content}"'),
                     alternative=route.kind, changes=changed.id)
    # "actually no limit, show all" after a default limit, said as a statement: a withdrawal
    lifts = any((m.structured or {}).get("kind") in ("limit", "window")
                and lifted_by(message, m.structured or {}, schema) for m in saved)  # fmt: skip
    if (withdraws(message) or lifts) and any((m.structured or {}).get("kind") in ENFORCED_KINDS for m in saved):
        report = forget(message, user=user, database_id=database_id, store=store, embedder=embedder, schema=schema,
                        dry_run=True)
        if any((m.structured or {}).get("kind") in ENFORCED_KINDS for m in report.before):
            return Route("forget", False, (*route.reasons, "takes back a saved rule"), alternative=route.kind)
    rules = any((m.structured or {}).get("kind") in ENFORCED_KINDS for m in saved)
    if route.kind in ("follow_up", "refine") and last_reply == "words" and rules and reads_as_rule(
            message, saved, schema, lookup):
        return Route("preference", True, (*route.reasons, "no query to edit: continues a statement"),
                     alternative=route.kind, changes="")
    return None


def _names_a_row(message: str, schema: Schema) -> bool:
    """The message names rows of the data — a value of a column ("Lyon"), or a table's row by number ("customer
    42", "order #17") — so it asks about the data, not about the schema or Cairn."""
    said = list(words(message))
    if value_hits(said, schema, set()):
        return True
    names = {singular(w) for t in schema.tables for w in words(t.name.replace("_", " "))}
    return any(singular(w) in names and i + 1 < len(said) and said[i + 1].lstrip("#").isdigit()
               for i, w in enumerate(said))


def _names_another_value(message: str, withdrawn: Sequence[Memory], schema: Schema) -> bool:
    """The message names values of a withdrawn filter's column, none of them saved in it: it is about others."""
    said = value_hits(list(words(message)), schema, set())
    for m in withdrawn:
        form = m.structured or {}
        if form.get("kind") != "filter":
            continue
        value = form.get("value")
        saved = {str(v).casefold() for v in (value if isinstance(value, (list, tuple)) else [value])}
        named = {str(h.value).casefold() for h in said if h.column.name.lower() == str(form.get("column")).lower()
                 and h.table.qualified_name.lower() == str(form.get("table")).lower()}
        if named and not named & saved:
            return True
    return False
