"""A tiny MemoryStore in a dict: exact cosine search with numpy. Unit tests only; nothing is durable."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from core.memory import ALL_DATABASES, Memory, ScoredMemory

__all__ = ["InMemoryStore"]


class InMemoryStore:
    """Implements core.memory.stores._store.MemoryStore; every call is scoped to one user like the real stores."""

    def __init__(self) -> None:
        self._rows: dict[str, dict[str, Memory]] = {}
        self.writes = 0  # put + delete calls, so tests can check that a NOOP wrote nothing

    def put(self, memory: Memory) -> None:
        self.writes += 1
        self._rows.setdefault(memory.user, {})[memory.id] = memory

    def delete(self, user: str, memory_ids: Sequence[str]) -> int:
        self.writes += 1
        rows = self._rows.get(user, {})
        return sum(1 for mid in memory_ids if rows.pop(mid, None) is not None)

    def list(self, user: str, *, database_id: str | None = None) -> list[Memory]:
        rows = list(self._rows.get(user, {}).values())
        if database_id is not None:
            rows = [m for m in rows if m.database_id in (database_id, ALL_DATABASES)]
        return sorted(rows, key=lambda m: (m.created_at, m.id))

    def search(
        self, user: str, vector: Sequence[float], *, k: int = 5, database_id: str | None = None
    ) -> list[ScoredMemory]:
        query = np.asarray(vector, dtype=np.float64)
        qn = float(np.linalg.norm(query))
        hits: list[ScoredMemory] = []
        for m in self.list(user, database_id=database_id):
            if m.embedding is None:
                continue
            v = np.asarray(m.embedding, dtype=np.float64)
            denom = qn * float(np.linalg.norm(v))
            sim = float(query @ v / denom) if denom else 0.0
            hits.append(ScoredMemory(m, sim))
        hits.sort(key=lambda h: h.similarity, reverse=True)
        return hits[:k]

    def clear(self, user: str) -> int:
        self.writes += 1
        return len(self._rows.pop(user, {}))
