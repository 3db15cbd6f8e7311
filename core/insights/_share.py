"""Sharing one agent's insights and suggesting other agents' follow-ups: the only place the parts meet.

After an answer (in the background, after it is shown): summarise → redact → embed → put. For a new question:
embed → query (never our own records, never expired, never another embedding model's) → the follow-up questions
of the closest records, as plain text for a person to click. Nothing here ever reaches the SQL prompt: the
suggestions go to the window and ``cairn ask --json`` only (the source document's deliberate choice).

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

from core.errors import CairnError
from core.insights._literals import collect_literals
from core.insights._record import InsightRecord, followup_key
from core.insights._redact import redact
from core.insights._store import InsightStore
from core.insights._summarize import summarize

__all__ = ["InsightSharing", "ShareOutcome", "Suggestion", "default_agent_id"]

logger = logging.getLogger(__name__)

MIN_SIMILARITY = 0.32  # MiniLM cosine; bench/data/insights_retrieval_dev.json: unrelated ≤ 0.28, related mostly ≥ 0.33
MAX_SUGGESTIONS = 3
_DAY = 86_400.0


@dataclass(frozen=True)
class Suggestion:
    """A follow-up question another agent's insight suggests, and where it came from (plain text only)."""

    text: str
    record_id: str
    agent_id: str
    db_kind: str
    insight: str
    similarity: float


@dataclass(frozen=True)
class ShareOutcome:
    """What became of one answer: ``record`` when shared, else ``reason`` (never a value of the data)."""

    record: InsightRecord | None = None
    reason: str = ""
    store_down: bool = False


@dataclass
class InsightSharing:
    """One agent's sharing. ``store`` opens lazily (a shared folder or server may be slow or down)."""

    open_store: Callable[[], InsightStore]
    embed: Callable[[str], Sequence[float]]
    embedding_model: str
    agent_id: str
    db_kind: str
    ttl_days: float = 30.0
    min_similarity: float = MIN_SIMILARITY
    _store: InsightStore | None = field(default=None, repr=False)

    @property
    def store(self) -> InsightStore:
        if self._store is None:
            self._store = self.open_store()
        return self._store

    def share(self, llm: Any, *, question: str, sql: str | None, columns: Sequence[str],
              rows: Sequence[Sequence[Any]], schema: Mapping[str, Sequence[str]],
              hidden_values: Iterable[Any] = (), private_words: Iterable[str] = (),
              dialect: str | None = None) -> ShareOutcome:
        """Summarise one answered question for other agents and store it, or say why not.

        ``schema``: the tables the SQL uses and their columns (entities are checked against it);
        ``hidden_values``: values the model never sees (hidden columns); ``private_words``: the user's name and
        the literals of the memories applied, which must never be shared either."""
        if not sql:
            return ShareOutcome(reason="no SQL was run")
        try:
            store = self.store  # first: a store that is down costs no model call
        except CairnError as exc:
            return ShareOutcome(reason=str(getattr(exc, "message", exc)), store_down=True)
        draft = summarize(llm, question, sql, columns, len(rows), schema)
        if draft is None:
            return ShareOutcome(reason="the model gave no usable summary")
        names = [t for t in schema] + [c for cols in schema.values() for c in cols] + list(columns)
        literals = collect_literals(question=question, sql=sql, rows=rows,
                                    hidden_values=[*hidden_values, *private_words], schema_words=names,
                                    dialect=dialect)
        redaction = redact(draft, literals, schema)
        if redaction.draft is None:
            return ShareOutcome(reason=redaction.reason)
        try:
            vector = self.embed(redaction.draft.text_for_embedding())
            record = InsightRecord.create(redaction.draft, vector, agent_id=self.agent_id, db_kind=self.db_kind,
                                          ttl_s=self.ttl_days * _DAY, embedding_model=self.embedding_model)
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
        hits = self.store.query(self.embed(question), exclude_agent=self.agent_id,
                                embedding_model=self.embedding_model, top_k=limit * 2,
                                min_similarity=self.min_similarity)
        seen = {followup_key(question)}
        out: list[Suggestion] = []
        for hit in hits:
            record = hit.record
            for text in record.suggested_followups:
                key = followup_key(text)
                if key in seen:
                    continue
                seen.add(key)
                out.append(Suggestion(text, record.record_id, record.agent_id, record.db_kind,
                                      record.insight_summary, hit.similarity))
        return out[:limit]

    def reject(self, suggestion: Suggestion) -> int:
        """Thumbs-down: remove just that follow-up from its record; the insight stays."""
        return self.store.invalidate_followup(suggestion.text, record_id=suggestion.record_id)

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None


def default_agent_id(data_dir: str) -> str:
    """A stable id for this profile that says nothing about its user: a hash of the machine and data folder."""
    try:
        machine = open("/etc/machine-id", encoding="ascii").read().strip()  # noqa: SIM115 - tiny file
    except OSError:
        machine = f"{platform.node()}-{uuid.getnode():x}"
    digest = hashlib.sha256(f"{machine}\0{data_dir}".encode()).hexdigest()
    return f"cairn-{digest[:12]}"
