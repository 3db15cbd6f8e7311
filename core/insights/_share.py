"""Sharing one agent's insights and suggesting other agents' follow-ups: the only place the parts meet.

After an answer (in the background, after it is shown): summarise → redact → embed → put. For a new question:
embed → query (never our own records, never expired, never another embedding model's) → the follow-up questions
of the closest records, as plain text for a person to click. Nothing here ever reaches the SQL prompt: the
suggestions go to the window and ``cairn ask --json`` only (the source document's deliberate choice).

Records are signed with this agent's key (``_signing``) and "our own" means signed by it, whatever ``agent_id``
label a record carries. A thumbs-down on another agent's follow-up is this agent's own preference
(``_rejected``): that agent's signed record is not ours to change.

Every failure is contained: a store that is down, a model that fails or writes nonsense, a record that leaks —
each gives an outcome that says so, never an exception into the answer's path.
"""

from __future__ import annotations

import hashlib
import logging
import platform
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.errors import CairnError, InsightStoreError
from core.insights._literals import collect_literals
from core.insights._record import InsightRecord, followup_key, unit_vector
from core.insights._redact import find_leaks, redact
from core.insights._rejected import RejectedFollowups
from core.insights._relevance import MATCH_FLOOR, TokenStates, relevance, table_words, word_match
from core.insights._signing import AgentKey
from core.insights._store import InsightStore
from core.insights._summarize import summarize

__all__ = ["MIN_SIMILARITY", "PREFILTER", "PREFILTER_WORDS", "InsightSharing", "ShareOutcome", "Suggestion",
           "default_agent_id", "key_fingerprint", "relevance"]

logger = logging.getLogger(__name__)

# Two steps, chosen on bench/data/insights_retrieval_dev*.json and on tests/heldout/insights_retrieval.json (a
# held-out set until it was used to compare methods; a development set since): the store returns the records
# whose whole text (summary and follow-ups, one vector) is at least PREFILTER similar to the question; each is
# then kept when its summary or one of its follow-ups alone is at least MIN_SIMILARITY similar. Both bars matter:
# the whole-text bar keeps out records that share one word with the question (a table name) but not its topic,
# the best-part bar lets a record through on the one follow-up that is about the question.
PREFILTER = 0.35
MIN_SIMILARITY = 0.40
# With token states (``_relevance.word_match``), the store's whole-text bar only keeps out what is far off: the
# word-by-word score decides. 0.15 keeps 96% of the development set's related pairs (0.35 kept 73%).
PREFILTER_WORDS = 0.15
MAX_SUGGESTIONS = 3
_PART_CACHE = 2_000
_TOKEN_CACHE = 400  # token states are ~30 KB a text: at most ~12 MB kept
_DAY = 86_400.0
_SAME_QUESTION = 0.95  # a follow-up this close to the question is the question again, not a next step


@dataclass(frozen=True)
class Suggestion:
    """A follow-up question another agent's insight suggests, and where it came from (plain text only)."""

    text: str
    record_id: str
    agent_id: str  # the label its author wrote: anyone can write any label
    db_kind: str
    insight: str
    similarity: float
    author: str = ""  # who wrote it for sure: a fingerprint of the key that signed it



@dataclass(frozen=True)
class ShareOutcome:
    """What became of one answer: ``record`` when shared, else ``reason`` (never a value of the data)."""

    record: InsightRecord | None = None
    reason: str = ""
    store_down: bool = False


@dataclass
class InsightSharing:
    """One agent's sharing. ``store`` opens lazily (a shared folder or server may be slow or down). ``key`` signs
    what it shares and says which records are its own; ``rejected`` holds its thumbs-downs."""

    open_store: Callable[[], InsightStore]
    embed: Callable[[str], Sequence[float]]
    embedding_model: str
    agent_id: str
    db_kind: str
    key: AgentKey
    ttl_days: float = 30.0
    min_similarity: float = MIN_SIMILARITY
    # many texts in one call (one batch through the encoder: a look-up embeds the question and every record's parts
    # it has not seen, 14x faster than one by one); None: ``embed`` for each
    embed_many: Callable[[Sequence[str]], Sequence[Sequence[float]]] | None = None
    # vectors and token states from one pass (``MiniLMEmbedder.embed_tokens``): records are then scored word by word
    # (``word_match`` against ``match_floor``); None: by their parts' pooled vectors (``relevance``)
    embed_tokens: Callable[[Sequence[str]], tuple[Any, Sequence[TokenStates]]] | None = None
    match_floor: float = MATCH_FLOOR
    rejected: RejectedFollowups = field(default_factory=RejectedFollowups)
    _store: InsightStore | None = field(default=None, repr=False)
    _part_vectors: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    _part_tokens: dict[str, TokenStates] = field(default_factory=dict, repr=False)

    @property
    def store(self) -> InsightStore:
        if self._store is None:
            self._store = self.open_store()
        return self._store

    def share(self, llm: Any, *, question: str, sql: str | None, columns: Sequence[str],
              rows: Sequence[Sequence[Any]], schema: Mapping[str, Sequence[str]],
              hidden_values: Iterable[Any] = (), private_words: Iterable[str] = (),
              dialect: str | None = None, hidden_names: Iterable[str] = ()) -> ShareOutcome:
        """Summarise one answered question for other agents and store it, or say why not.

        ``schema``: the tables the SQL uses and their columns (entities are checked against it);
        ``hidden_values``: values the model never sees (hidden columns); ``private_words``: the user's name and
        the literals of the memories applied, which must never be shared either; ``hidden_names``: the names of
        hidden tables and columns (a summary or follow-up that holds one is refused like a value)."""
        if not sql:
            return ShareOutcome(reason="no SQL was run")
        try:
            store = self.store  # first: a store that is down costs no model call
        except CairnError as exc:
            return ShareOutcome(reason=str(getattr(exc, "message", exc)), store_down=True)
        draft = summarize(llm, question, sql, columns, len(rows), schema)
        if draft is None:
            return ShareOutcome(reason="the model gave no usable summary")
        names = [t for t in schema] + [c for cols in schema.values() for c in cols]
        facts = {"question": question, "sql": sql, "rows": rows, "hidden_values": list(hidden_values),
                 "private_words": list(private_words), "dialect": dialect, "hidden_names": list(hidden_names)}
        literals = collect_literals(**facts, schema_words=names)
        # The result's own column names may be used like the schema's, unless one spells a value (a pivot's
        # "AS mumbai" for city = 'Mumbai'): then it is a value like the literal it names.
        aliases = [c for c in columns if c not in names and not find_leaks(c.replace("_", " "), literals)]
        if aliases:
            literals = collect_literals(**facts, schema_words=names + aliases)
        redaction = redact(draft, literals, schema)
        if redaction.draft is None:
            return ShareOutcome(reason=redaction.reason)
        try:
            vector = self.embed(redaction.draft.text_for_embedding())
            record = InsightRecord.create(redaction.draft, vector, agent_id=self.agent_id, db_kind=self.db_kind,
                                          ttl_s=self.ttl_days * _DAY, embedding_model=self.embedding_model,
                                          key=self.key)
            store.put(record)
        except CairnError as exc:
            logger.info("shared insight not stored: %s", exc)
            return ShareOutcome(reason=str(getattr(exc, "message", exc)), store_down=True)
        return ShareOutcome(record=record)

    def suggestions(self, question: str, *, limit: int = MAX_SUGGESTIONS) -> list[Suggestion]:
        """Other agents' follow-ups for ``question``, best first, each question once. Raises InsightStoreError
        when the store cannot be read (the caller shows it; the answer is not affected)."""
        if not question.strip():
            return []
        by_words = self.embed_tokens is not None
        if by_words:
            self._embed_parts([question])
            asked, asked_tokens = self._part_vectors[question], self._part_tokens[question]
        else:
            asked = unit_vector(self.embed(question))
        hits = self.store.query(asked, exclude_author=self.key.public_b64, embedding_model=self.embedding_model,
                                top_k=limit * 4, min_similarity=PREFILTER_WORDS if by_words else PREFILTER)
        self._embed_parts([t for hit in hits for t in (hit.record.insight_summary, *hit.record.suggested_followups)])
        scored = []
        for hit in hits:
            parts = [t for t in (hit.record.insight_summary, *hit.record.suggested_followups) if t.strip()]
            if by_words:
                score = word_match(asked_tokens, [self._part_tokens[t] for t in parts],
                                   table_words(hit.record.entities))
                keep = score >= self.match_floor
            else:
                score = relevance(asked, [self._part_vectors[t] for t in parts])
                keep = score >= self.min_similarity
            if keep:
                scored.append((score, hit.record))
        scored.sort(key=lambda pair: pair[0], reverse=True)
        seen = {followup_key(question)}
        out: list[Suggestion] = []
        for score, record in scored:  # one follow-up per record, the one nearest the question: no record fills the list
            fresh = [t for t in record.suggested_followups if t.strip() and followup_key(t) not in seen
                     and (record.record_id, t) not in self.rejected
                     and float(np.dot(asked, self._part_vectors[t])) < _SAME_QUESTION]
            if not fresh:
                continue
            text = max(fresh, key=lambda t: float(np.dot(asked, self._part_vectors[t])))
            seen.add(followup_key(text))
            out.append(Suggestion(text, record.record_id, record.agent_id, record.db_kind,
                                  record.insight_summary, score, key_fingerprint(record.author_key)))
        return out[:limit]

    def _embed_parts(self, texts: Sequence[str]) -> None:
        """Every summary and follow-up not embedded yet, in one batch (kept: the same records come back question
        after question)."""
        by_words = self.embed_tokens is not None
        if len(self._part_vectors) + len(texts) > _PART_CACHE or len(self._part_tokens) + len(texts) > _TOKEN_CACHE:
            self._part_vectors.clear()
            self._part_tokens.clear()
        missing = list(dict.fromkeys(t for t in texts if t.strip() and (
            t not in self._part_vectors or (by_words and t not in self._part_tokens))))
        if not missing:
            return
        if self.embed_tokens is not None:
            vectors, tokens = self.embed_tokens(missing)
            self._part_tokens.update(zip(missing, tokens, strict=True))
        elif self.embed_many is not None:
            vectors = self.embed_many(missing)
        else:
            vectors = [self.embed(t) for t in missing]
        for text, vector in zip(missing, vectors, strict=True):
            self._part_vectors[text] = unit_vector(vector)

    def reject(self, suggestion: Suggestion) -> int:
        """Thumbs-down: this agent is not suggested that follow-up of that record again (1; 0 when it was hidden
        already). The record is its author's: it stays as it is for everyone else. Raises InsightStoreError when
        the list cannot be saved."""
        try:
            return int(self.rejected.add(suggestion.record_id, suggestion.text))
        except OSError as exc:
            raise InsightStoreError(f"Could not save the turned-down suggestion: {exc.strerror or exc}.",
                                    hint="Check that the data folder is writable.") from exc

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None


def key_fingerprint(public_b64: str) -> str:
    """A short, stable name for a signing key ("3f9a 1c02 77de 0b41"): what a person can compare, unlike a label."""
    digest = hashlib.sha256(public_b64.encode("ascii", "replace")).hexdigest()[:16]
    return " ".join(digest[i:i + 4] for i in range(0, 16, 4))


def default_agent_id(data_dir: str) -> str:
    """A stable id for this profile that says nothing about its user: a hash of the machine and data folder."""
    try:
        machine = open("/etc/machine-id", encoding="ascii").read().strip()  # noqa: SIM115 - tiny file
    except OSError:
        machine = f"{platform.node()}-{uuid.getnode():x}"
    digest = hashlib.sha256(f"{machine}\0{data_dir}".encode()).hexdigest()
    return f"cairn-{digest[:12]}"
