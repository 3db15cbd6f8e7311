"""Memories whose vectors another encoder made, found and re-embedded once.

A store does not record which encoder made its vectors, and needs not: the memory's own text is there. A few
memories are embedded again and compared with what is stored. The same encoder gives the same vector (cosine
≈ 1; a memory embedded from the message that made it, not its text, is still close), another encoder gives
vectors of another space (cosine near 0, or another size). Only when most of the sample disagrees are all of the
person's memories embedded again, and written in one write, so a search never mixes two spaces. A memory without
a vector (a store reads one of another size as none) is embedded in any case. One memory with a damaged vector of
the right size among many agreeing ones is not found (a sample, not every memory, is embedded each session).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

import numpy as np

from core.memory.kernel import Embedder, Memory

__all__ = ["reembed_foreign_vectors"]

logger = logging.getLogger(__name__)

SAMPLE = 8
SAME_SPACE_MIN = 0.8  # median cosine of the sample at or above this: the store's vectors are this encoder's


def _agreement(stored: Any, fresh: np.ndarray) -> float:
    vec = np.asarray(stored, dtype=np.float32)
    if vec.shape != fresh.shape:
        return -1.0  # another size: another encoder
    norm = float(np.linalg.norm(vec) * np.linalg.norm(fresh))
    return float(vec @ fresh) / norm if norm > 0 else -1.0


def reembed_foreign_vectors(store: Any, embedder: Embedder, user: str) -> int:
    """Re-embed ``user``'s memories when their vectors are not ``embedder``'s, and those that have none (a vector
    of another size is read as none); how many were embedded (0 when all are its own). Raises what the store or
    the embedder raises; the store is then unchanged."""
    memories: list[Memory] = store.list(user)
    todo = [m for m in memories if m.embedding is None]
    vectored = sorted((m for m in memories if m.embedding is not None), key=lambda m: m.id)
    if vectored:
        sample = vectored[:SAMPLE]
        fresh = embedder.embed_batch([m.content for m in sample])
        if np.median([_agreement(m.embedding, v) for m, v in zip(sample, fresh, strict=True)]) < SAME_SPACE_MIN:
            todo += vectored
    if not todo:
        return 0
    vectors = embedder.embed_batch([m.content for m in todo])
    updated = [replace(m, embedding=tuple(float(x) for x in v)) for m, v in zip(todo, vectors, strict=True)]
    put_many = getattr(store, "put_many", None)
    if put_many is not None:
        put_many(updated)
    else:  # a store without a batch write (a test fake): one by one
        for memory in updated:
            store.put(memory)
    logger.info("embedded %d of %d memories of %s again: their vectors were missing or another encoder's",
                len(updated), len(memories), user)
    return len(updated)
