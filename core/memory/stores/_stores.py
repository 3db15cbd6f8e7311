"""Open the memory store a person chose — that one and no other, even while it is down.

Backends are named in one dict of dotted paths and imported lazily, so a missing psycopg or numpy only
matters for the backend that needs it. The memory store lives in its own database (``cairn_memory`` on the
embedded server, or a PostgreSQL the person names for memory) — never in the database being queried.
"""

from __future__ import annotations

import importlib
import logging
from pathlib import Path
from typing import Any, Protocol

from core.errors import CairnError, ConfigError
from core.memory.stores._store import ConversationStore, MemoryStore

__all__ = ["BACKENDS", "MEMORY_DATABASE", "OpenedStore", "open_memory_store"]

logger = logging.getLogger(__name__)

MEMORY_DATABASE = "cairn_memory"
BACKENDS: dict[str, str] = {
    "pgvector": "core.memory.stores._store_pgvector:PgVectorMemoryStore",
    "json": "core.memory.stores._store_json:JsonMemoryStore",
}


class OpenedStore(MemoryStore, ConversationStore, Protocol):
    """What open_memory_store returns: both interfaces, plus which backend it is."""

    kind: str

    def describe(self) -> str: ...

    def close(self) -> None: ...


def _backend(kind: str) -> Any:
    try:
        dotted = BACKENDS[kind]
    except KeyError:
        raise ConfigError(
            f"Unknown memory store {kind!r}.", hint=f"Choose one of: {', '.join(sorted(BACKENDS))}."
        ) from None
    module_name, _, attr = dotted.partition(":")
    return getattr(importlib.import_module(module_name), attr)


def open_memory_store(
    kind: str, *, data_dir: Path, uri: str | None = None, embedded: Any | None = None
) -> OpenedStore:
    """The store named ``kind`` ("pgvector" or "json").

    ``uri`` names a PostgreSQL database for memory; without it the embedded server in ``data_dir`` (or the
    already started ``embedded`` one) gets a ``cairn_memory`` database. JSON files live in
    ``data_dir/memory``. When the store cannot be opened, the result stands in for it (kind "unavailable"):
    each call raises MemoryStoreError with the reason until it opens; nothing is written anywhere else.
    """
    if kind == "json":
        store: OpenedStore = _backend("json")(Path(data_dir) / "memory")
        return store
    cls = _backend(kind)

    def opener() -> OpenedStore:
        return _open_pgvector(cls, data_dir=Path(data_dir), uri=uri, embedded=embedded)

    try:
        return opener()
    except Exception as exc:  # noqa: BLE001 - any failure: say so on every use, never swap stores
        reason = (getattr(exc, "message", None) or str(exc) or type(exc).__name__).splitlines()[0]
        logger.warning("memory store %s unavailable: %s", kind, reason)  # a line for the person, never a traceback
        logger.debug("memory store %s could not open", kind, exc_info=not isinstance(exc, CairnError))
        from core.memory.stores._unavailable import ReconnectingStore

        hint = exc.hint if isinstance(exc, CairnError) else None
        return ReconnectingStore(kind, opener, reason, hint=hint)  # type: ignore[return-value]


def _open_pgvector(cls: Any, *, data_dir: Path, uri: str | None, embedded: Any | None) -> OpenedStore:
    server = None
    if uri is None:
        if embedded is None:
            from core.databases import EmbeddedPostgres

            server = embedded = EmbeddedPostgres(data_dir)
        uri = embedded.memory_uri(MEMORY_DATABASE)  # starts it; EmbeddedServerError when it cannot
    try:
        # the store keeps the embedded server referenced, and stops it on close() when we started it here
        store: OpenedStore = cls(uri, embedded=embedded, owns_embedded=server is not None)
    except BaseException:
        if server is not None:
            server.stop()
        raise
    return store
