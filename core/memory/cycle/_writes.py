"""The update cycle's writes, made only after its decision (``_update``): nothing is written before it, and a
replace that fails half-way is rolled back."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from core.memory.kernel import Embedder, Memory, embed_one
from core.memory.stores import MemoryStore

__all__ = ["Operation", "UpdateReport", "add", "noop", "replace", "update"]

logger = logging.getLogger("core.memory.cycle._update")

Operation = Literal["ADD", "UPDATE", "DELETE", "NOOP"]


@dataclass(frozen=True)
class UpdateReport:
    """What happened to the store. DELETE is delete-and-replace: ``before`` the contradicted memory,
    ``after`` the new one. ``memory_ids`` are the ids touched (for NOOP, the memory that made it redundant)."""

    operation: Operation
    memory_ids: tuple[str, ...]
    before: tuple[Memory, ...]
    after: tuple[Memory, ...]
    reason: str



def noop(old: Memory, reason: str) -> UpdateReport:
    return UpdateReport("NOOP", (old.id,), (old,), (), reason)


def add(new: Memory, store: MemoryStore, reason: str) -> UpdateReport:
    store.put(new)
    logger.info("memory ADD %s: %s", new.id, reason)
    return UpdateReport("ADD", (new.id,), (), (new,), reason)


def update(
    old: Memory, content: str, structured: Mapping[str, Any] | None, store: MemoryStore, embedder: Embedder,
    reason: str,
) -> UpdateReport:
    vector = embed_one(embedder, content)  # before any write: a failure here leaves the store as it was
    updated = old.edited(content=content, structured=structured, embedding=tuple(float(x) for x in vector))
    store.put(updated)  # same id: one atomic replace
    logger.info("memory UPDATE %s: %s", old.id, reason)
    return UpdateReport("UPDATE", (old.id,), (old,), (updated,), reason)


def replace(old: Memory, new: Memory, store: MemoryStore, reason: str) -> UpdateReport:
    """Put the new memory, then delete the old; if the delete fails the new one is taken back out."""
    store.put(new)
    try:
        store.delete(old.user, [old.id])
    except Exception:
        try:
            store.delete(new.user, [new.id])
        except Exception:  # the original error matters more; the store now holds both
            logger.exception("rollback of memory %s failed after a failed replace", new.id)
        raise
    logger.info("memory DELETE %s -> %s: %s", old.id, new.id, reason)
    return UpdateReport("DELETE", (old.id, new.id), (old,), (new,), reason)
