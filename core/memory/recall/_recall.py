"""Which of a person's memories apply to a question, and why.

Plain top-k similarity surfaces a standing preference for only a few of the questions it should filter, and
MiniLM scores every question about a table close to every memory about that table (a "repeat customers"
definition sits at ~0.45-0.53 from "names of customers starting with A"), so similarity is the last resort:
  - preferences with a structured filter apply to every question on their database (the pipeline adds the
    filter to each SELECT that reads the table; the prompt asks the model for it too); display preferences
    (currency) apply to every question too;
  - terms and metrics with a name apply when, and only when, the question names them: the name's words
    other than table nouns, in any order, with plurals, endings, typos, abbreviations, acronyms and
    Hindi-English spellings folded (``_word_match``: "churn" names "churned customers", "% of orders paid via
    upi" names "upi share", "avg order value" names "aov"). Similarity never picks them: on the development
    and seen sets its picks were wrong 175 times and right 31, and no threshold or lead told them apart
    ("total revenue" sits as close to "revenue per customer" as to "net revenue");
  - entity memories apply when the question calls them by their handle ("my key accounts"), never because
    it names one of their values ("Bangalore");
  - memories with nothing to name them by (an unstructured preference, a term kept without a name) by top-k
    *relevance*: cosine measured after removing the directions of the table names
    the question or memories mention (so sharing "customers" no longer counts), above a minimum and within
    a small margin of the best pick. On a 14-memory bank this cut unrelated-question noise from 0.81 to
    0.12 memories per question (held-out: 0.88 -> 0.38) at equal or better recall (tests/test_memory_retrieval).
"""

from __future__ import annotations

import logging
import re
import weakref
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from core.schema import Schema

from core.memory.kernel import Embedder, Memory, acronyms
from core.memory.enforcement import enforced_tables
from core.memory.forms import ENFORCED_KINDS, describe_form, slot_key, slots_clash, window_words
from core.memory.recall._overrides import lifted_by
from core.memory.recall._shape import asks_for_rows
from core.memory.recall._lists import lists_another_table, lists_table, listing_table, shares_subject
from core.memory.recall._naming import (
    entity_context,
    entity_handle,
    entity_named_by,
    names_entity,
    names_term,
    table_words,
    words,
)

if TYPE_CHECKING:  # a type only: recall runs without loading the stores
    from core.memory.stores import MemoryStore

__all__ = ["Recall", "RecalledMemory", "entity_named_by", "held_back", "recall_memories"]

logger = logging.getLogger(__name__)

TOP_K = 3
MIN_RELEVANCE = 0.40  # a pick by similarity: cosine beyond the table directions (see _table_basis)
RELEVANCE_MARGIN = 0.03  # ... and this far ahead of the next memory, or it is a coin toss between them
_ABOUT_LISTS = re.compile(r"\b(?:list|lists|listing|listed|breakdowns?|sort|sorted|order(?:ed)?\s+by|alphabetic\w*|first|top|"
                          r"rows?|newest|oldest|latest|biggest|smallest|ascending|descending|column|columns)\b",
                          re.IGNORECASE)  # fmt: skip
# "show durations as minutes:seconds", "format dates as DD/MM": how shown rows look, for answers that are rows
_FORMATS = re.compile(r"\b(?:show|display|write|print|render)\w*\s+(?:\w+\s+){1,3}(?:as|in)\s+(?!a\s+list)|"
                      r"\bformat\w*\b|^\s*(?:\w+\s+){0,2}\w+s\s+(?:as|in)\s+(?!a\s+list)", re.IGNORECASE)  # fmt: skip
PRESENTATION_KINDS = ("sort", "limit", "columns")
DISPLAY_SETTINGS = ("currency", "decimals")  # how numbers are shown: the answer's formatting, never the SQL
_MAX_BASIS_TABLES = 8


@dataclass(frozen=True)
class RecalledMemory:
    memory: Memory
    similarity: float
    reason: str
    kind: str  # "filter" (enforced on the SQL), "presentation" (sort/limit/columns on the outermost query),
    # "definition" (term/metric), "context" (prompt only), "display" (currency/decimals of the answer's numbers)
    relevance: float = 0.0  # similarity beyond the shared table names: what similarity-based picks rank by


@dataclass(frozen=True)
class Recall:
    memories: tuple[RecalledMemory, ...] = ()
    # enforced rules held back because a newer statement about the same rule waits for the person's confirmation
    suspended: tuple[Memory, ...] = ()
    lifted: tuple[tuple[Memory, str], ...] = ()  # rules the question's own words override, with why
    # standing filters on tables the question's words do not point at: not listed, not in the prompt, yet
    # enforced where the SQL reads their table after all (the chips then show them: nothing applies unseen)
    standing: tuple[RecalledMemory, ...] = ()

    def filters(self) -> list[tuple[RecalledMemory, dict[str, Any]]]:
        """Standing filters and default time windows: ANDed into the SQL wherever it reads their table."""
        return [(r, dict(r.memory.structured or {})) for r in (*self.memories, *self.standing) if r.kind == "filter"]

    def presentation(self) -> list[tuple[RecalledMemory, dict[str, Any]]]:
        """Default sort, row limit and columns shown together: applied to the outermost query, a table's own
        sort before a sort for every list (the first sort that applies wins)."""
        shown = [(r, dict(r.memory.structured or {})) for r in self.memories if r.kind == "presentation"]
        return sorted(shown, key=lambda pair: pair[1].get("kind") == "sort" and not pair[1].get("table"))

    def held_notes(self) -> list[str]:
        """What the person is told about the rules held back (``suspended``)."""
        return [f'Your saved preference "{m.content}" was not applied: a newer statement about the same rule waits '
                "for your confirmation (Memory bank, or `cairn memory keep`)." for m in self.suspended] + [
            f'Your saved preference "{m.content}" was not applied to this question: {why}.' for m, why in self.lifted]

    def display(self) -> dict[str, Any]:
        """How numbers are shown ({"currency": "INR", "decimals": 2}): formatting of the answer, not SQL.
        Of two memories on one setting the first recalled wins (the store lists the newest first)."""
        out: dict[str, Any] = {}
        for r in self.memories:
            st = dict(r.memory.structured or {})
            if r.kind == "display" and st.get("setting") in DISPLAY_SETTINGS:
                out.setdefault(str(st["setting"]), st.get("value"))
                for setting in DISPLAY_SETTINGS:  # a merged memory: "INR with 2 decimals"
                    if setting in st:
                        out.setdefault(setting, st[setting])
        return out

    def metric_columns(self) -> set[tuple[str, str]]:
        """(table, column) pairs the recalled metrics compute over: their own conditions win there."""
        out: set[tuple[str, str]] = set()
        for r in self.memories:
            st = dict(r.memory.structured or {})
            if r.kind == "definition" and st.get("kind") == "metric" and st.get("sql"):
                for col in st.get("columns") or []:
                    table, _, name = str(col).rpartition(".")
                    if table and name:
                        out.add((table.split(".")[-1].lower(), name.lower()))
        return out

    def context_lines(self) -> list[str]:
        """Memory context for the prompt, each line quoted as data.

        Free text is clipped and double-quoted; a filter or definition is SQL built by sqlglot from a real
        column and literal values. Every line is flattened to one line, so nothing stored (a value with a
        newline, a hand-edited memory file) can start a line of its own that reads like a rule.
        """
        lines = []
        for r in self.memories:
            m = r.memory
            st = dict(m.structured or {})
            if r.kind == "display":
                continue
            if r.kind == "filter" and st.get("kind") == "window":
                line = (f"Unless the question gives dates, only {_flat(window_words(st), 80)} "
                        f"(by {_flat(st.get('table'), 80)}.{_flat(st.get('column'), 80)})")
            elif r.kind == "filter":
                line = f"Whenever the query reads {_flat(st.get('table'), 80)}, filter: {_flat(st.get('sql'), 400)}"
            elif r.kind == "presentation" or st.get("kind") in ("display", "include"):
                line = f'Standing preference: {_clip(describe_form(st), 300)} (the person said: "{_clip(m.content)}")'
            elif r.kind == "definition" and st.get("sql") and st.get("kind") == "metric":
                line = f'"{_clip(st.get("name") or m.content)}" is computed as: {_flat(st.get("sql"), 400)}'
            elif r.kind == "definition" and st.get("sql"):
                line = f'"{_clip(st.get("name") or m.content)}" means: {_flat(st.get("sql"), 400)}'
            elif r.kind == "definition":
                line = f'Definition (data): "{_clip(m.content)}"'
            else:
                line = f'{_clip(m.category, 20).capitalize()} (data): "{_clip(m.content)}"'
            lines.append(" ".join(line.split()))
        return lines


def _flat(text: object, limit: int) -> str:
    """SQL built from a memory (quotes kept: they are SQL quoting) as one clipped line."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def held_back(memories: Sequence[Memory]) -> list[Memory]:
    """The enforced rules not applied now: a newer statement that could set the same rule waits for the person
    (a pending memory), so neither is enforced until they decide."""
    waiting = _waiting(memories)
    out = []
    for m in memories:
        st = m.structured or {}
        slot = slot_key(st) if st.get("kind") in (*ENFORCED_KINDS, "include") else None
        if any(slots_clash(slot, other) and pending.updated_at >= m.updated_at for other, pending in waiting.items()):
            out.append(m)
    return out


def _waiting(memories: Sequence[Memory]) -> dict[tuple[str, ...], Memory]:
    """Slot -> the newest pending memory that could set it (see ``cycle._proposal``)."""
    out: dict[tuple[str, ...], Memory] = {}
    for m in memories:
        st = m.structured or {}
        if st.get("kind") != "pending":
            continue
        for reading in st.get("readings") or ():
            slot = slot_key(reading) if isinstance(reading, Mapping) else None
            if slot is not None and (slot not in out or out[slot].updated_at < m.updated_at):
                out[slot] = m
    return out


def _clip(text: object, limit: int = 200) -> str:
    flat = " ".join(str(text).split()).replace('"', "'")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


_VECTOR_CACHE_MAX = 4096
_vector_cache: weakref.WeakKeyDictionary[Any, dict[str, np.ndarray]] = weakref.WeakKeyDictionary()


def _vectors(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """Embeddings of short, stable texts (term names, table names), cached per embedder."""
    try:
        cache = _vector_cache.setdefault(embedder, {})
    except TypeError:  # an embedder that cannot be weakly referenced: no cache
        cache = {}
    missing = [t for t in dict.fromkeys(texts) if t not in cache]
    if missing:
        if len(cache) + len(missing) > _VECTOR_CACHE_MAX:
            cache.clear()
        for text, vec in zip(missing, embedder.embed_batch(missing), strict=True):
            cache[text] = np.asarray(vec, dtype=np.float32)
    return np.stack([cache[t] for t in texts]) if texts else np.zeros((0, embedder.dims), dtype=np.float32)


def _unit_rows(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    return x / np.where(norms > 1e-9, norms, 1.0)


def _table_basis(embedder: Embedder, table_names: Sequence[str] | None, texts: Iterable[str]) -> np.ndarray | None:
    """An orthonormal basis (dims, r) of the directions of the tables the question or the memories name.

    MiniLM puts every sentence about customers near the word "customers"; cosine measured after removing
    that direction says how much two sentences share *beyond* being about the same table.
    """
    if not table_names:
        return None
    seen = set().union(*(words(t) for t in texts))
    named = [t.split(".")[-1] for t in table_names if words(t.split(".")[-1]) & seen][:_MAX_BASIS_TABLES]
    if not named:
        return None
    vecs = _vectors(embedder, [n.replace("_", " ") for n in named]).astype(np.float64)
    q, r = np.linalg.qr(vecs.T)
    keep = np.abs(np.diag(r)) > 1e-6
    return q[:, keep] if keep.any() else None


def _beyond_tables(x: np.ndarray, basis: np.ndarray | None) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    return _unit_rows(x if basis is None else x - (x @ basis) @ basis.T)


@dataclass(frozen=True)
class _Scores:
    similarity: dict[str, float]  # plain cosine, best of content and term name
    relevance: dict[str, float]  # the same after removing the table directions: what decisions use


def _score(
    question: str, mine: Sequence[Memory], *, user: str, database_id: str, store: MemoryStore,
    embedder: Embedder, table_names: Sequence[str] | None,
) -> _Scores:
    query = np.asarray(embedder.embed_batch([question])[0], dtype=np.float64)
    names = {m.id: str((m.structured or {}).get("name") or "") for m in mine}
    with_vec = [m for m in mine if m.embedding is not None and len(m.embedding) == len(query)]
    similarity: dict[str, float] = {}
    relevance: dict[str, float] = {}
    if len(with_vec) < len(mine):  # memories stored without a vector: the store's own search
        for hit in store.search(user, query, k=len(mine), database_id=database_id):
            similarity[hit.memory.id] = relevance[hit.memory.id] = hit.similarity
    texts = [question, *(m.content for m in mine)]
    basis = _table_basis(embedder, table_names, texts)
    q_plain = _unit_rows(query)
    q_rel = _beyond_tables(query, basis)
    if with_vec:
        mat = np.asarray([m.embedding for m in with_vec], dtype=np.float64)
        plain = _unit_rows(mat) @ q_plain
        rel = _beyond_tables(mat, basis) @ q_rel
        for m, s, r in zip(with_vec, plain, rel, strict=True):
            similarity[m.id], relevance[m.id] = float(s), float(r)
    termed = [m for m in mine if m.category in ("terminology", "metric") and names[m.id]]
    if termed:
        name_vecs = _vectors(embedder, [names[m.id] for m in termed]).astype(np.float64)
        plain = _unit_rows(name_vecs) @ q_plain
        rel = _beyond_tables(name_vecs, basis) @ q_rel
        for m, s, r in zip(termed, plain, rel, strict=True):
            similarity[m.id] = max(similarity.get(m.id, -1.0), float(s))
            relevance[m.id] = max(relevance.get(m.id, -1.0), float(r))
    return _Scores(similarity, relevance)


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
    schema: Schema | None = None,
    question_tables: Collection[str] = (),
) -> Recall:
    """Pick the memories that apply to ``question``. Only ``user``'s memories for this database are read. With
    ``schema``, a rule the question's own words override ("including cancelled", "Japan too") is lifted.

    ``question_tables``: the tables the question's words point at (``core.prompt.named_tables``). A standing
    filter none of whose tables (its own, a table that references it, its extra links) is among them is kept
    aside in ``Recall.standing``: enforced if the SQL reads its table after all, never listed or prompted."""
    excluded = set(exclude)
    mine = [m for m in store.list(user, database_id=database_id) if m.id not in excluded]
    if not mine:
        return Recall()
    known_tables = {t.split(".")[-1].lower() for t in table_names} if table_names is not None else None
    tw = table_words(table_names)
    scores = (
        _score(question, mine, user=user, database_id=database_id, store=store, embedder=embedder,
               table_names=table_names)
        if embedder is not None else _Scores({}, {})
    )  # fmt: skip
    q_words = words(question)
    q_acronyms = acronyms(question)
    chosen: list[RecalledMemory] = []
    rest: list[Memory] = []
    shown: list[Memory] = []  # sort / limit / columns: only for a question whose answer is a list
    named: list[str] = []  # metric names the question uses: a metric asked for is one value
    unstructured: list[Memory] = []  # standing preferences kept as words

    def pick(m: Memory, reason: str, kind: str) -> None:
        chosen.append(RecalledMemory(m, scores.similarity.get(m.id, 0.0), reason, kind,
                                     scores.relevance.get(m.id, 0.0)))  # fmt: skip

    suspended = held_back(mine)  # a newer statement on the same rule waits for the person: enforce neither
    for m in mine:
        st = dict(m.structured or {})
        form = st.get("kind")
        if m in suspended:
            continue
        if form in ("pending", "context"):
            st = {}  # context only (until the person keeps a reading, or as they chose): their words, as they are
        if m.category == "preference" and form in ("filter", "window") and st.get("table"):
            table = str(st["table"]).split(".")[-1].lower()
            if known_tables is None or table in known_tables:
                what = "standing preference" if form == "filter" else "default time range"
                pick(m, f"{what} on {st['table']}", "filter")
                continue
        if form in PRESENTATION_KINDS:
            shown.append(m)
            continue
        if form == "display" and st.get("setting") in DISPLAY_SETTINGS:
            pick(m, f"standing {st.get('setting')} preference", "display")
            continue
        if form in ("display", "include"):
            pick(m, f"standing {st.get('setting') or form} preference", "context")
            continue
        if m.category in ("terminology", "metric"):
            name = str(st.get("name") or "")
            if name and names_term(q_words, name, tw, q_acronyms):
                pick(m, f'the question says "{name}"', "definition")
                if m.category == "metric":
                    named.append(name)
            if name:
                continue  # a named definition applies when the question names it, never by similarity alone
        if m.category == "entity" and st.get("kind") in ("entity", None):  # with or without a form
            context = entity_context(st, tw)
            handle = names_entity(question, q_words, m, st, context)
            if handle is not None:
                pick(m, f'the question says "{handle}"', "context")
            if handle is not None or entity_handle(m, st, context):
                continue
        if m.category == "preference" and not st:
            # A standing instruction Cairn could not type is still a standing instruction: it reaches every
            # question on the tables it names (as quoted words), and one about lists only list answers.
            named_tables = words(m.content) & tw
            if not named_tables or named_tables & q_words:
                unstructured.append(m)
                continue
        rest.append(m)
    ranked = sorted(rest, key=lambda m: scores.relevance.get(m.id, 0.0), reverse=True)
    for i, m in enumerate(ranked[:k]):
        rel = scores.relevance.get(m.id, 0.0)
        runner_up = scores.relevance.get(ranked[i + 1].id, 0.0) if i + 1 < len(ranked) else 0.0
        if rel < MIN_RELEVANCE or rel - runner_up < RELEVANCE_MARGIN:
            break
        kind = "definition" if m.category in ("terminology", "metric") else "context"
        pick(m, f"close to the question ({rel:.2f})", kind)
    rows = asks_for_rows(question, names=tuple(named))
    used_tables = {str(t).split(".")[-1].lower() for r in chosen if r.kind in ("definition", "context")
                   for t in (r.memory.structured or {}).get("tables") or ()}  # fmt: skip
    for m in unstructured:
        about_lists, formats = bool(_ABOUT_LISTS.search(m.content)), bool(_FORMATS.search(m.content))
        if not rows and about_lists:
            continue
        listing = listing_table(m.content, table_names or ()) if about_lists else None
        if listing is not None and not lists_table(question, q_words, {"table": listing}, used_tables,
                                                    table_names or ()):  # fmt: skip
            continue  # "whenever you list tracks, show the album title …": only for lists of tracks
        if formats and listing is None and not shares_subject(m.content, q_words):
            continue  # "durations as m:ss": only where the answer shows durations
        pick(m, "standing preference, kept as your words", "context")
    if shown and rows:
        for m in shown:
            st = dict(m.structured or {})
            if st.get("kind") == "columns" and not lists_table(question, q_words, st, used_tables,
                                                                   table_names or ()):
                continue
            if st.get("kind") == "sort" and lists_another_table(question, q_words, st, table_names or ()):
                continue
            pick(m, f"standing {st.get('kind')} preference for lists", "presentation")
    lifted = [(r.memory, why) for r in chosen if schema is not None and r.kind in ("filter", "presentation")
              and (why := lifted_by(question, r.memory.structured or {}, schema))]  # fmt: skip
    gone = {m.id for m, _ in lifted}
    kept = [r for r in chosen if r.memory.id not in gone]
    reads = {*question_tables, *used_tables} if question_tables else set()  # a named term's SQL reads its tables
    aside = [r for r in kept if r.kind == "filter" and not _reaches(r.memory.structured or {}, reads, schema)]
    return Recall(tuple(r for r in kept if r not in aside), tuple(suspended), tuple(lifted), tuple(aside))


def _reaches(form: Mapping[str, Any], question_tables: Collection[str], schema: Schema | None) -> bool:
    """Whether a standing filter's tables meet the tables the question points at; without evidence (no table
    named, no schema) every filter is kept in view."""
    named = {str(t).split(".")[-1].lower() for t in question_tables}
    if not named or schema is None:
        return True
    tables = enforced_tables(form, schema)
    return bool(tables & named)
