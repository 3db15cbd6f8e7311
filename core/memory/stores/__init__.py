"""Where memories live: the `MemoryStore`/`ConversationStore` protocol (`_store`), PostgreSQL with pgvector
(`_store_pgvector`), one JSON file per user (`_store_json` over `_store_json_doc`), the registry that opens the
configured one and no other (`_stores`), the stand-in while it is down (`_unavailable`), and memories left in
another store brought in (`_adopt`), vectors another encoder made re-embedded (`_reembed`). Knows nothing of forms or routing."""

from core.memory.stores._adopt import (
    StrayMemories,
    adopt_memories,
    forget_stray_memories,
    stray_memories,
)
from core.memory.stores._reembed import reembed_foreign_vectors
from core.memory.stores._store import ConversationStore, MemoryStore
from core.memory.stores._store_json import JsonMemoryStore
from core.memory.stores._store_pgvector import PgVectorMemoryStore
from core.memory.stores._stores import (
    BACKENDS,
    MEMORY_DATABASE,
    OpenedStore,
    open_memory_store,
)

__all__ = [
    "BACKENDS",
    "MEMORY_DATABASE",
    "ConversationStore",
    "JsonMemoryStore",
    "MemoryStore",
    "OpenedStore",
    "PgVectorMemoryStore",
    "StrayMemories",
    "adopt_memories",
    "forget_stray_memories",
    "open_memory_store",
    "reembed_foreign_vectors",
    "stray_memories",
]
