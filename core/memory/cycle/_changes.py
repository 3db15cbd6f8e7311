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

from collections.abc import Sequence

from core.memory.cycle._in_context import in_context
from core.memory.cycle._sameness import slot_key, slots_clash
from core.memory.forms import ENFORCED_KINDS, ValueLookup, structure
from core.memory.kernel import Fact, Memory
from core.memory.routing import asks_something
from core.schema import Schema

__all__ = ["changed_rule"]


def changed_rule(message: str, saved: Sequence[Memory], schema: Schema | None, lookup: ValueLookup | None = None
                 ) -> Memory | None:
    """The saved, enforced memory ``message`` changes, or None."""
    rules = [m for m in saved if (m.structured or {}).get("kind") in ENFORCED_KINDS]
    if schema is None or not rules or asks_something(message):
        return None
    fact = Fact("preference", message)
    form = structure(fact, schema, lookup=lookup)
    if not form or form.get("kind") not in ENFORCED_KINDS:
        form = in_context(fact, list(saved), schema, lookup)
    if not form or form.get("kind") not in ENFORCED_KINDS:
        return None
    slot = slot_key(form)
    return next((m for m in rules if slots_clash(slot_key(m.structured), slot)), None)
