"""The one small interface every shared-insights store implements, and the registry that names them.

Stores are chosen by name (``jsonl``, ``pgvector``, ``milvus``) and imported lazily: a store's library
(psycopg, pymilvus) matters only when that store is chosen, so the shared stores stay optional extras.

Whose a record is, is its ``author_key`` (``_signing``), never its ``agent_id`` label: every store returns only
records whose signature matches (unsigned, edited or forged ones are dropped), and changes a record only for the
key that signed it.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from core.errors import ConfigError
from core.insights._record import InsightRecord, ScoredInsight
from core.insights._signing import AgentKey

__all__ = ["DEFAULT_STORE", "STORES", "InsightStore", "open_insight_store"]

DEFAULT_STORE = "jsonl"
# name -> "module:Class"; each class is built as Class(url) (a folder for jsonl, a URL or path for the others)
STORES: dict[str, str] = {
    "jsonl": "core.insights._store_jsonl:JsonlInsightStore",
    "pgvector": "core.insights._store_pgvector:PgVectorInsightStore",
    "milvus": "core.insights._store_milvus:MilvusInsightStore",
}


@runtime_checkable
class InsightStore(Protocol):
    """Shared insights of many agents. Writes are durable when the call returns. Every method raises
    InsightStoreError (never a library's own exception) when the store cannot do it."""

    def put(self, record: InsightRecord) -> None:
        """Add ``record`` (a new ``record_id``, signed by its author; readers drop it otherwise)."""
        ...

    def query(self, vector: Sequence[float] | np.ndarray, *, exclude_author: str, embedding_model: str,
              top_k: int = 3, min_similarity: float = 0.0, now: float | None = None) -> list[ScoredInsight]:
        """The ``top_k`` records most similar by cosine, best first, at least ``min_similarity``, each signed by
        its author: never those of the key ``exclude_author`` (the asker's own), never expired ones, never those
        embedded by another model than ``embedding_model``."""
        ...

    def invalidate_followup(self, followup: str, *, key: AgentKey, record_id: str | None = None) -> int:
        """Remove this follow-up question (case and spacing aside) from ``key``'s own record ``record_id``, or
        from all of them when None, each re-signed by ``key``; the insights stay, another key's records are never
        touched. Returns how many follow-ups were removed."""
        ...

    def expire(self, now: float | None = None) -> int:
        """Delete expired records; returns how many."""
        ...

    def list_author(self, author_key: str) -> list[InsightRecord]:
        """The records signed by ``author_key`` (expired ones too, until expired away), newest first."""
        ...

    def delete(self, record_ids: Sequence[str], *, key: AgentKey) -> int:
        """Delete some of ``key``'s own records; returns how many existed. Another key's are never touched."""
        ...

    def describe(self) -> str:
        """Where the store is, for the status bar and ``cairn insights``: no password."""
        ...

    def close(self) -> None: ...


def open_insight_store(kind: str, url: str, **options: Any) -> InsightStore:
    """The store named ``kind`` at ``url``. Raises ConfigError for an unknown name or a library that is not
    installed, InsightStoreError when the store cannot be opened."""
    try:
        dotted = STORES[kind]
    except KeyError:
        raise ConfigError(f"Unknown shared-insights store {kind!r}.",
                          hint=f"Choose one of: {', '.join(sorted(STORES))}.") from None
    module_name, _, attr = dotted.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        extra = {"pgvector": "psycopg[binary]", "milvus": "pymilvus milvus-lite"}.get(kind, kind)
        raise ConfigError(f"The {kind} store needs a library that is not installed: {exc.name or exc}.",
                          hint=f"Install it with `pip install {extra}`, or choose the jsonl store.") from exc
    store: InsightStore = getattr(module, attr)(url, **options)
    return store
