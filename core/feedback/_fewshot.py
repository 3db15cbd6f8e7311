"""Which verified examples to show the model for a question: the closest few of the same database, by meaning.

Questions are compared by sentence embeddings (MiniLM in the app); an example below the similarity floor is not
shown at all (an unrelated example misleads more than none), and no SQL is shown twice. Embeddings of the
examples' questions are cached, so a question costs one embedding once the examples have been seen.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from core.errors import CairnError
from core.feedback._examples import ExampleStore, VerifiedExample, same_sql

if TYPE_CHECKING:
    import numpy as np

__all__ = ["MAX_SHOT", "SIMILARITY_FLOOR", "ExamplesProvider", "FewShotSelector", "ScoredExample"]

logger = logging.getLogger(__name__)

MAX_SHOT = 3
# MiniLM cosine, measured: "How many orders were placed last month?" ~ "Number of orders placed in the previous
# month" 0.87, "Top 5 customers by revenue" ~ "Which customers spent the most money?" 0.60; "How many orders…
# last month" ~ "What is the average order amount for each country?" 0.55, unrelated questions below 0.4.
SIMILARITY_FLOOR = 0.6
_CACHE_SIZE = 4096

Embed = Callable[[Sequence[str]], "np.ndarray"]


@dataclass(frozen=True)
class ScoredExample:
    example: VerifiedExample
    similarity: float


@runtime_checkable
class ExamplesProvider(Protocol):
    """What the pipeline asks for the few-shot block: (question, SQL) pairs, closest first. Never raises: a
    question is answered without examples rather than not at all."""

    def pairs(self, user: str, database_id: str, question: str) -> list[tuple[str, str]]: ...


class FewShotSelector:
    """The k closest verified examples of ``user`` for a question about ``database_id``."""

    def __init__(self, store: ExampleStore, embed: Embed, *, k: int = MAX_SHOT,
                 floor: float = SIMILARITY_FLOOR) -> None:
        self.store = store
        self._embed = embed
        self.k = max(0, min(k, MAX_SHOT))
        self.floor = floor
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def pairs(self, user: str, database_id: str, question: str) -> list[tuple[str, str]]:
        """:meth:`examples_for` as (question, SQL) pairs; none when they cannot be read (logged)."""
        try:
            return [(s.example.question, s.example.sql) for s in self.examples_for(user, database_id, question)]
        except (CairnError, ValueError) as exc:
            logger.warning("verified examples not shown to the model: %s", exc)
            return []

    def examples_for(self, user: str, database_id: str, question: str) -> list[ScoredExample]:
        """Closest first; raises what reading the examples or embedding them raises."""
        if self.k == 0:
            return []
        examples = self.store.list(user, database_id=database_id)  # newest first: a tie goes to the newer
        if not examples:
            return []  # nothing to compare with: no embedding at all
        import numpy as np

        vectors = self._vectors([question] + [e.question for e in examples])
        q = vectors[0]
        sims = [float(np.dot(q, v) / ((np.linalg.norm(q) * np.linalg.norm(v)) or 1.0)) for v in vectors[1:]]
        ranked = sorted(zip(examples, sims, strict=True), key=lambda pair: -pair[1])
        chosen: list[ScoredExample] = []
        for example, sim in ranked:
            if sim < self.floor or len(chosen) == self.k:
                break
            if any(same_sql(example.sql, c.example.sql) for c in chosen):
                continue
            chosen.append(ScoredExample(example, sim))
        return chosen

    def _vectors(self, texts: list[str]) -> list[np.ndarray]:
        """Embeddings of ``texts``, from the cache where it has them; the rest in one batch."""
        with self._lock:
            found = {t: self._cache[t] for t in texts if t in self._cache}
            for t in found:
                self._cache.move_to_end(t)
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        if missing:
            fresh = self._embed(missing)
            if len(fresh) != len(missing):
                raise ValueError(f"the embedder returned {len(fresh)} vectors for {len(missing)} texts")
            with self._lock:
                for t, v in zip(missing, fresh, strict=True):
                    found[t] = v
                    self._cache[t] = v
                while len(self._cache) > _CACHE_SIZE:
                    self._cache.popitem(last=False)
        return [found[t] for t in texts]
