"""A statement becomes a typed form grounded in the real schema, or none (docs/memory_forms.md).

`_understand` is the one entry point (the form and what it will be used for), over `_structured`, which reads
filters (`_filter_text`, `_condition_text`, `_atom_text`, `_value_text`), metrics (`_metric_text`,
`_metric_sql`), presentation and periods (`_presentation_text`, `_period_text`), each placed on tables, columns
and values by `_schema_match`; `_slots` says what a form is about (its slot). Never imports a store: a form is decided from the words and the schema alone."""

from core.memory.forms._atom_text import CMP_OPS, CMP_RE, INVERT, NUM, number_of, numbers_in
from core.memory.forms._condition_text import parse_condition
from core.memory.forms._schema_match import column_expr, filter_spec, mentioned_tables, value_hits
from core.memory.forms._slots import slot_key, slots_clash
from core.memory.forms._structured import ValueLookup, parse_definition, structure
from core.memory.forms._verify import ENFORCED_KINDS, PROPOSAL_SCHEMA, meaning, same_meaning, verify_proposal
from core.memory.forms._understand import (
    Grounding,
    Understanding,
    confirmation,
    describe_form,
    understand,
    window_words,
)

__all__ = [
    "CMP_OPS",
    "CMP_RE",
    "INVERT",
    "confirmation",
    "ENFORCED_KINDS",
    "PROPOSAL_SCHEMA",
    "meaning",
    "same_meaning",
    "verify_proposal",
    "NUM",
    "Grounding",
    "Understanding",
    "ValueLookup",
    "column_expr",
    "describe_form",
    "filter_spec",
    "mentioned_tables",
    "number_of",
    "numbers_in",
    "parse_condition",
    "parse_definition",
    "slot_key",
    "slots_clash",
    "structure",
    "understand",
    "value_hits",
    "window_words",
]
