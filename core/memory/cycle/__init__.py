"""The memory update cycle: a fact in, the store changed. `_extraction` (phase 1: facts out of one message),
`_update` (phase 2: ADD/UPDATE/DELETE/NOOP; the writes, made only after the decision, in `_writes`) with
`_in_context` (a statement read against the saved forms), `_sameness` (slots; when two forms say the same thing)
and `_filter_merge` (two filters on one column: combine or replace); `_forget` (retractions); `_bank` (the
person's own edits, undo, export and import, through the same decisions)."""

from core.memory.cycle._bank import PENDING_SOURCE, BankChange, MemoryBank
from core.memory.cycle._changes import changed_rule, reads_as_rule, rule_route
from core.memory.cycle._extraction import extract_facts, rule_based_facts
from core.memory.cycle._forget import forget
from core.memory.cycle._update import SIMILARITY_ASK, SIMILARITY_NOOP, UpdateReport, apply_fact

__all__ = [
    "rule_route",
    "reads_as_rule",
    "changed_rule",
    "PENDING_SOURCE",
    "SIMILARITY_ASK",
    "SIMILARITY_NOOP",
    "BankChange",
    "MemoryBank",
    "UpdateReport",
    "apply_fact",
    "extract_facts",
    "forget",
    "rule_based_facts",
]
