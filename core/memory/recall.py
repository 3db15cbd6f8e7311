"""Which of a person's memories apply to a question, and why.

Plain top-k similarity surfaces a standing preference for only a few of the questions it should filter, and
MiniLM scores every question about a table close to every memory about that table (a "repeat customers"
definition sits at ~0.45-0.53 from "names of customers starting with A"), so similarity is the last resort:
  - preferences with a structured filter apply to every question on their database (the pipeline adds the
    filter to each SELECT that reads the table; the prompt asks the model for it too); display preferences
    (currency) apply to every question too;
  - terms and metrics apply when the question names them (the name's words other than table nouns, any
    order, plurals and endings folded: "churn" names "churned customers") or is similar enough to the
    whole definition or to the name alone (the name is what a question paraphrases: "returning customers");
  - entity memories apply when the question mentions one of their values ("Bangalore"), or, for an entity
    about a column, that column;
  - everything else by top-k similarity within the user and the current database, above a minimum.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from core.memory.embedder import Embedder
from core.memory.model import Memory
from core.memory.store import MemoryStore

__all__ = ["Recall", "RecalledMemory", "recall_memories"]

logger = logging.getLogger(__name__)

TOP_K = 3
MIN_SIMILARITY = 0.40  # MiniLM: unrelated analyst sentences sit well below this
TERM_MIN_SIMILARITY = 0.55
_WORD = re.compile(r"[a-z0-9]+")
_STOP = {"a", "an", "the", "of", "to", "in", "on", "for", "and", "or", "is", "are", "with", "by", "me", "my"}


@dataclass(frozen=True)
class RecalledMemory:
    memory: Memory
    similarity: float
    reason: str
    kind: str  # "filter" (enforced on the SQL), "definition" (term/metric), "context" (prompt only)


@dataclass(frozen=True)
class Recall:
    memories: tuple[RecalledMemory, ...] = ()

    def filters(self) -> list[tuple[RecalledMemory, dict[str, Any]]]:
        return [(r, dict(r.memory.structured or {})) for r in self.memories if r.kind == "filter"]

    def context_lines(self) -> list[str]:
        """Memory context for the prompt, each line quoted as data."""
        lines = []
        for r in self.memories:
            m = r.memory
            st = dict(m.structured or {})
            if r.kind == "filter":
                lines.append(f"Whenever the query reads {st.get('table')}, filter: {st.get('sql')}")
            elif r.kind == "definition" and st.get("sql"):
                lines.append(f'"{_clip(st.get("name") or m.content)}" means: {st.get("sql")}')
            elif r.kind == "definition":
                lines.append(f'Definition (data): "{_clip(m.content)}"')
            else:
                lines.append(f'{m.category.capitalize()} (data): "{_clip(m.content)}"')
        return lines


def _clip(text: str, limit: int = 200) -> str:
    flat = " ".join(str(text).split()).replace('"', "'")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def words(text: str) -> set[str]:
    return {_stem(w) for w in _WORD.findall(text.lower()) if w not in _STOP}


def names_term(question_words: set[str], name: str) -> bool:
    """All content words of ``name`` occur in the question (any order, plurals folded)."""
    wanted = words(name)
    return bool(wanted) and wanted <= question_words


def recall_memories(
    question: str,
    *,
    user: str,
    database_id: str,
    store: MemoryStore,
    embedder: Embedder | None,
    exclude: Iterable[str] = (),
    k: int = TOP_K,
    table_names: Sequence[str] | None = None,
) -> Recall:
    """Pick the memories that apply to ``question``. Only ``user``'s memories for this database are read."""
    excluded = set(exclude)
    mine = [m for m in store.list(user, database_id=database_id) if m.id not in excluded]
    if not mine:
        return Recall()
    known_tables = {t.lower() for t in table_names} if table_names is not None else None
    similarity: dict[str, float] = {}
    if embedder is not None:
        vector = embedder.embed_batch([question])[0]
        for hit in store.search(user, vector, k=max(len(mine), k), database_id=database_id):
            similarity[hit.memory.id] = hit.similarity
    q_words = words(question)
    chosen: list[RecalledMemory] = []
    rest: list[Memory] = []
    for m in mine:
        st = dict(m.structured or {})
        sim = similarity.get(m.id, 0.0)
        if m.category == "preference" and st.get("kind") == "filter" and st.get("table"):
            table = str(st["table"]).split(".")[-1].lower()
            if known_tables is None or table in known_tables:
                chosen.append(RecalledMemory(m, sim, f"standing preference on {st['table']}", "filter"))
                continue
        if m.category in ("terminology", "metric"):
            name = str(st.get("name") or "")
            if name and names_term(q_words, name):
                chosen.append(RecalledMemory(m, sim, f'the question says "{name}"', "definition"))
                continue
            if sim >= TERM_MIN_SIMILARITY:
                chosen.append(RecalledMemory(m, sim, f"similar to the question ({sim:.2f})", "definition"))
                continue
        rest.append(m)
    ranked = sorted(rest, key=lambda m: similarity.get(m.id, 0.0), reverse=True)
    for m in ranked[:k]:
        sim = similarity.get(m.id, 0.0)
        if sim >= MIN_SIMILARITY:
            chosen.append(RecalledMemory(m, sim, f"similar to the question ({sim:.2f})", "context"))
    return Recall(tuple(chosen))
