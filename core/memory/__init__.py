"""Long-term memory per person: classify a message, extract facts, update the store (ADD/UPDATE/DELETE/NOOP),
recall what applies to a question, enforce standing filters; stores in pgvector or JSON files, the editable bank.

Its parts, top to bottom (each imports only those below it; import-linter contracts in pyproject.toml):
``cycle`` (extraction, the update cycle, forget, the bank) → ``recall`` (what applies to a question) →
``forms`` (a statement → a typed form) | ``stores`` (where memories live) | ``routing`` (what a message is) →
``enforcement`` (forms applied to SQL) → ``kernel`` (the memory record, the embedder, words).
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what each name is, for readers and type checkers; at run time each part loads on first use
    from core.memory.cycle import (
        PENDING_SOURCE,
        SIMILARITY_ASK,
        SIMILARITY_NOOP,
        BankChange,
        MemoryBank,
        UpdateReport,
        apply_fact,
        changed_rule,
        reads_as_rule,
        rule_route,
        extract_facts,
        forget,
        rule_based_facts,
    )
    from core.memory.recall import (
        Conversation,
        Recall,
        RecalledMemory,
        held_back,
        names_term,
        recall_memories,
        words as recall_words,
    )
    from core.memory.forms import Grounding, Understanding, ValueLookup, confirmation, describe_form, understand
    from core.memory.routing import (
        DATA_KINDS,
        KINDS,
        MEMORY_KINDS,
        TALK_KINDS,
        Route,
        RouteKind,
        classify,
        is_memory_statement,
        route_group,
        asks_something,
        router_applies,
        withdraws,
    )
    from core.memory.stores import (
        BACKENDS,
        MEMORY_DATABASE,
        ConversationStore,
        JsonMemoryStore,
        MemoryStore,
        OpenedStore,
        PgVectorMemoryStore,
        StrayMemories,
        adopt_memories,
        forget_stray_memories,
        open_memory_store,
        reembed_foreign_vectors,
        stray_memories,
    )
    from core.memory.enforcement import (
        enforced_tables,
        FilterOutcome,
        PresentationOutcome,
        apply_presentation,
        enforce_filters,
        filter_condition,
        referencing_links,
        usable_forms,
        valid_links,
    )
    from core.memory.kernel import (
        ALL_DATABASES,
        CATEGORIES,
        EMBEDDING_DIMS,
        MAX_MEMORY_CHARS,
        Category,
        Embedder,
        Fact,
        Memory,
        Message,
        MiniLMEmbedder,
        ScoredMemory,
        embed_one,
        encoder_vocabulary,
        new_memory_id,
    )

# Public name -> the part that defines it ("part:name" where it is renamed here). A part is imported when one of its
# names is first used, so a command that needs the memory record or the enforcement of forms starts without the
# update cycle, the stores and the router (bench.cli_startup). tests/test_layout.py checks this against the block
# above.
_WHERE: dict[str, str] = {
    "PENDING_SOURCE": "cycle",
    "SIMILARITY_ASK": "cycle",
    "SIMILARITY_NOOP": "cycle",
    "BankChange": "cycle",
    "MemoryBank": "cycle",
    "UpdateReport": "cycle",
    "apply_fact": "cycle",
    "changed_rule": "cycle",
    "reads_as_rule": "cycle",
    "rule_route": "cycle",
    "extract_facts": "cycle",
    "forget": "cycle",
    "rule_based_facts": "cycle",
    "Conversation": "recall",
    "Recall": "recall",
    "RecalledMemory": "recall",
    "held_back": "recall",
    "names_term": "recall",
    "recall_memories": "recall",
    "recall_words": "recall:words",
    "Grounding": "forms",
    "Understanding": "forms",
    "ValueLookup": "forms",
    "confirmation": "forms",
    "describe_form": "forms",
    "understand": "forms",
    "DATA_KINDS": "routing",
    "KINDS": "routing",
    "MEMORY_KINDS": "routing",
    "TALK_KINDS": "routing",
    "Route": "routing",
    "RouteKind": "routing",
    "classify": "routing",
    "is_memory_statement": "routing",
    "route_group": "routing",
    "asks_something": "routing",
    "router_applies": "routing",
    "withdraws": "routing",
    "BACKENDS": "stores",
    "MEMORY_DATABASE": "stores",
    "ConversationStore": "stores",
    "JsonMemoryStore": "stores",
    "MemoryStore": "stores",
    "OpenedStore": "stores",
    "PgVectorMemoryStore": "stores",
    "StrayMemories": "stores",
    "adopt_memories": "stores",
    "forget_stray_memories": "stores",
    "open_memory_store": "stores",
    "reembed_foreign_vectors": "stores",
    "stray_memories": "stores",
    "enforced_tables": "enforcement",
    "FilterOutcome": "enforcement",
    "PresentationOutcome": "enforcement",
    "apply_presentation": "enforcement",
    "enforce_filters": "enforcement",
    "filter_condition": "enforcement",
    "referencing_links": "enforcement",
    "usable_forms": "enforcement",
    "valid_links": "enforcement",
    "ALL_DATABASES": "kernel",
    "CATEGORIES": "kernel",
    "EMBEDDING_DIMS": "kernel",
    "MAX_MEMORY_CHARS": "kernel",
    "Category": "kernel",
    "Embedder": "kernel",
    "Fact": "kernel",
    "Memory": "kernel",
    "Message": "kernel",
    "MiniLMEmbedder": "kernel",
    "ScoredMemory": "kernel",
    "embed_one": "kernel",
    "encoder_vocabulary": "kernel",
    "new_memory_id": "kernel"
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'core.memory' has no attribute {name!r}")
    part, _, attr = where.partition(":")
    value = getattr(import_module(f"core.memory.{part}"), attr or name)
    globals()[name] = value  # the next use is a plain global
    return value


def __dir__() -> list[str]:
    return __all__
