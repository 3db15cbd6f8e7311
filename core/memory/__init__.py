"""Long-term memory per person: classify a message, extract facts, update the store (ADD/UPDATE/DELETE/NOOP),
recall what applies to a question, enforce standing filters; stores in pgvector or JSON files, the editable bank."""

from core.memory._adopt import StrayMemories, adopt_memories, stray_memories
from core.memory._bank import PENDING_SOURCE, BankChange, MemoryBank
from core.memory._classifier import (
    DATA_KINDS,
    KINDS,
    MEMORY_KINDS,
    TALK_KINDS,
    Route,
    RouteKind,
    classify,
    is_memory_statement,
    route_group,
    router_applies,
)
from core.memory._conversation import Conversation
from core.memory._embedder import EMBEDDING_DIMS, Embedder, MiniLMEmbedder, embed_one
from core.memory._extraction import Fact, extract_facts, rule_based_facts
from core.memory._filters import FilterOutcome, enforce_filters, filter_condition, referencing_links
from core.memory._forget import forget
from core.memory._presentation import PresentationOutcome, apply_presentation
from core.memory._model import (
    ALL_DATABASES,
    CATEGORIES,
    MAX_MEMORY_CHARS,
    Category,
    Memory,
    Message,
    ScoredMemory,
    new_memory_id,
)
from core.memory._recall import Recall, RecalledMemory, names_term, recall_memories
from core.memory._recall import words as recall_words
from core.memory._store import ConversationStore, MemoryStore
from core.memory._store_json import JsonMemoryStore
from core.memory._store_pgvector import PgVectorMemoryStore
from core.memory._structured import ValueLookup
from core.memory._stores import BACKENDS, MEMORY_DATABASE, OpenedStore, open_memory_store
from core.memory._understand import Grounding, Understanding, describe_form, understand
from core.memory._update import SIMILARITY_ASK, SIMILARITY_NOOP, UpdateReport, apply_fact

__all__ = [
    "ALL_DATABASES",
    "BACKENDS",
    "CATEGORIES",
    "DATA_KINDS",
    "TALK_KINDS",
    "EMBEDDING_DIMS",
    "KINDS",
    "MAX_MEMORY_CHARS",
    "MEMORY_DATABASE",
    "MEMORY_KINDS",
    "SIMILARITY_ASK",
    "SIMILARITY_NOOP",
    "StrayMemories",
    "BankChange",
    "Category",
    "Conversation",
    "ConversationStore",
    "Embedder",
    "Fact",
    "FilterOutcome",
    "Grounding",
    "JsonMemoryStore",
    "Memory",
    "MemoryBank",
    "names_term",
    "referencing_links",
    "recall_words",
    "PENDING_SOURCE",
    "MemoryStore",
    "Message",
    "MiniLMEmbedder",
    "OpenedStore",
    "PresentationOutcome",
    "PgVectorMemoryStore",
    "Recall",
    "RecalledMemory",
    "RouteKind",
    "Route",
    "ScoredMemory",
    "UpdateReport",
    "ValueLookup",
    "Understanding",
    "adopt_memories",
    "apply_fact",
    "apply_presentation",
    "classify",
    "describe_form",
    "embed_one",
    "enforce_filters",
    "filter_condition",
    "extract_facts",
    "forget",
    "is_memory_statement",
    "new_memory_id",
    "open_memory_store",
    "recall_memories",
    "route_group",
    "router_applies",
    "rule_based_facts",
    "stray_memories",
    "understand",
]
