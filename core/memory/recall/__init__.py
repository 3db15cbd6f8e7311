"""Which of a person's memories apply to a question, and why: `_recall` (precision first) with `_naming` (how
a question names a term, a metric or an entity), `_lists` (which table's rows a list is of) and `_shape` (one
value or a list of rows); `_conversation` keeps recent turns and a rolling summary for follow-ups."""

from core.memory.recall._conversation import Conversation
from core.memory.recall._naming import names_term, table_words, words
from core.memory.recall._overrides import lifted_by
from core.memory.recall._recall import Recall, RecalledMemory, entity_named_by, held_back, recall_memories

__all__ = [
    "lifted_by",
    "held_back",
    "Conversation",
    "Recall",
    "RecalledMemory",
    "entity_named_by",
    "names_term",
    "recall_memories",
    "table_words",
    "words",
]
