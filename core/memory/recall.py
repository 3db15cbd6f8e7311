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
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from core.memory.embedder import Embedder
from core.memory.model import Memory
from core.memory.store import MemoryStore
from core.memory.structured import mentions_value

__all__ = ["Recall", "RecalledMemory", "recall_memories"]

logger = logging.getLogger(__name__)

TOP_K = 3
MIN_SIMILARITY = 0.40  # MiniLM: unrelated analyst sentences sit well below this
TERM_MIN_SIMILARITY = 0.55
_WORD = re.compile(r"[a-z0-9]+")
_PREFIX = 5
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
    return {_stem(w) for w in _WORD.findall(text.replace("_", " ").lower()) if w not in _STOP}


def _same_word(a: str, b: str) -> bool:
    """Equal, or sharing a 5-letter start: "churn"/"churned", "cancel"/"cancellation", not "value"/"valuable"."""
    return a == b or (len(a) >= _PREFIX and len(b) >= _PREFIX and a[:_PREFIX] == b[:_PREFIX])


def names_term(question_words: set[str], name: str, table_words: Iterable[str] = ()) -> bool:
    """The question names the term: every word of ``name`` other than table nouns occurs in it (any order,
    plurals and endings folded). "Churned customers" is named by "which accounts churned"; a name made only
    of table nouns needs all its words."""
    wanted = words(name)
    distinctive = wanted - set(table_words) or wanted
    return bool(distinctive) and all(any(_same_word(w, q) for q in question_words) for w in distinctive)


def _table_words(table_names: Sequence[str] | None) -> set[str]:
    out: set[str] = set()
    for t in table_names or ():
        out |= words(t.split(".")[-1])
    return out


def _entity_mention(question: str, st: dict[str, Any]) -> str | None:
    """A value the entity memory is about that the question names; for an entity about a column with no
    values, that column. Tables alone never count: every question on the table would match."""
    values = [v for v in st.get("values") or [] if str(v).strip()]
    for value in values:
        if mentions_value(question, value):
            return str(value)
    if not values:
        for col in st.get("columns") or []:
            name = str(col).split(".")[-1]
            if name and mentions_value(question, name):
                return name
    return None


_name_cache: weakref.WeakKeyDictionary[Any, dict[str, Any]] = weakref.WeakKeyDictionary()
_NAME_CACHE_MAX = 4096


def _name_similarities(embedder: Embedder, query: Any, names: Sequence[str]) -> dict[str, float]:
    """Cosine of the question to each term name; name vectors cached per embedder (names rarely change)."""
    if not names:
        return {}
    try:
        cache = _name_cache.setdefault(embedder, {})
    except TypeError:  # an embedder that cannot be weakly referenced: no cache
        cache = {}
    missing = [n for n in dict.fromkeys(names) if n not in cache]
    if missing:
        if len(cache) + len(missing) > _NAME_CACHE_MAX:
            cache.clear()
        for name, vec in zip(missing, embedder.embed_batch(missing), strict=True):
            cache[name] = vec
    return {n: float(query @ cache[n]) for n in names}


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
    known_tables = {t.split(".")[-1].lower() for t in table_names} if table_names is not None else None
    table_words = _table_words(table_names)
    similarity: dict[str, float] = {}
    if embedder is not None:
        vector = embedder.embed_batch([question])[0]
        for hit in store.search(user, vector, k=max(len(mine), k), database_id=database_id):
            similarity[hit.memory.id] = hit.similarity
        term_names = {m.id: str((m.structured or {}).get("name") or "") for m in mine
                      if m.category in ("terminology", "metric")}  # fmt: skip
        by_name = _name_similarities(embedder, vector, [n for n in term_names.values() if n])
        for mid, name in term_names.items():
            if name:
                similarity[mid] = max(similarity.get(mid, 0.0), by_name[name])
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
        if m.category == "preference" and st.get("kind") == "display":
            chosen.append(RecalledMemory(m, sim, f"standing {st.get('setting') or 'display'} preference", "context"))
            continue
        if m.category in ("terminology", "metric"):
            name = str(st.get("name") or "")
            if name and names_term(q_words, name, table_words):
                chosen.append(RecalledMemory(m, sim, f'the question says "{name}"', "definition"))
                continue
            if sim >= TERM_MIN_SIMILARITY:
                chosen.append(RecalledMemory(m, sim, f"similar to the question ({sim:.2f})", "definition"))
                continue
        if m.category == "entity" and st.get("kind") == "entity":
            named = _entity_mention(question, st)
            if named is not None:
                chosen.append(RecalledMemory(m, sim, f'the question mentions "{named}"', "context"))
                continue
        rest.append(m)
    ranked = sorted(rest, key=lambda m: similarity.get(m.id, 0.0), reverse=True)
    for m in ranked[:k]:
        sim = similarity.get(m.id, 0.0)
        if sim >= MIN_SIMILARITY:
            kind = "definition" if m.category in ("terminology", "metric") else "context"
            chosen.append(RecalledMemory(m, sim, f"similar to the question ({sim:.2f})", kind))
    return Recall(tuple(chosen))
