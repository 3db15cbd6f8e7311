"""The pipeline's apply_memory stage: a user's standing preferences enforced on a checked query.

Filters ("only active customers") are added to every SELECT that reads their table; presentation preferences (sort,
row count, columns) shape a list answer. What applied, and why something did not, comes back as notes.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass

from core.answer import AppliedMemory
from core.memory import Recall, apply_presentation, enforce_filters, usable_forms
from core.schema import Schema
from core.sql import Validated

__all__ = ["MemoryApplied", "apply_memories"]

# Presentation preferences that do not apply for an obvious reason: the answer is one value, or the question
# chose its own order or row count. Other reasons are shown in a note.
_EXPECTED_SKIPS = ("the answer is a single", "the answer sets its own", "the answer is not a plain query")


@dataclass(frozen=True)
class MemoryApplied:
    sql: str  # the query to run
    notes: tuple[str, ...]
    applied: tuple[AppliedMemory, ...] | None  # None: no memory was recalled (the answer's list is left as it is)


def apply_memories(recall: Recall | None, validated: Validated, schema: Schema, today: _dt.date) -> MemoryApplied:
    """Enforce ``recall``'s filters and presentation on ``validated``; the SQL to run, notes, and what applied."""
    notes: list[str] = list(recall.held_notes() if recall is not None else ())
    if recall is None or not (recall.memories or recall.standing):
        return MemoryApplied(validated.sql, tuple(notes), None)
    filters, said = usable_forms(recall.filters(), schema)
    notes.extend(said)
    outcome = enforce_filters(validated.expression, [spec for _, spec in filters], schema.dialect,
                              today=today, skip_columns=recall.metric_columns())
    applied_ids = {filters[index][0].memory.id for index in (*outcome.added, *outcome.present)}
    for index in sorted(set(outcome.overridden) - set(outcome.added) - set(outcome.present)):  # not added anywhere
        memory, spec = filters[index][0].memory, filters[index][1]
        notes.append(f"Your saved preference \"{memory.content}\" was not added: the question sets "
                     f"{spec.get('table')}.{spec.get('column')} itself.")
    for index in outcome.skipped:
        memory, spec = filters[index][0].memory, filters[index][1]
        notes.append(f"Your saved preference \"{memory.content}\" was not applied: a metric in this question defines "
                     f"its own conditions on {spec.get('table')}.{spec.get('column')}, and a metric's own conditions "
                     "win inside its expression.")
    shown, said = usable_forms(recall.presentation(), schema)
    notes.extend(said)
    shaped = apply_presentation(outcome.expression, [spec for _, spec in shown], schema.dialect)
    applied_ids.update(shown[index][0].memory.id for index in shaped.applied)
    unexpected = [(shown[index][0].memory.content, reason) for index, reason in shaped.skipped
                  if not reason.startswith(_EXPECTED_SKIPS)]  # fmt: skip
    if unexpected:  # a list answer the saved sort, limit or columns could not shape: say why
        notes.append("Saved preferences not applied to this answer: " + "; ".join(
            f'"{content}" ({reason})' for content, reason in unexpected) + ".")
    applied = tuple(
        AppliedMemory(r.memory.id, r.memory.category, r.memory.content, r.similarity, r.reason)
        for r in (*recall.memories, *recall.standing)
        if r.kind not in ("filter", "presentation") or r.memory.id in applied_ids
    )
    sql = shaped.expression.sql(dialect=schema.dialect) if outcome.added or shaped.applied else validated.sql
    return MemoryApplied(sql, tuple(notes), applied)
