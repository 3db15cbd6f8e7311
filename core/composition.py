"""The command line's composition root: builds each piece once, lazily, and hands them to each other.

(The desktop has its own root in ``desktop/app.py``; both only wire ``core`` objects together.)
"""

from __future__ import annotations

import logging
from typing import Any

from core.config import Settings, data_dir
from core.databases import EmbeddedPostgres

__all__ = ["Services", "grounding_of"]

logger = logging.getLogger(__name__)


def grounding_of(pipeline: Any) -> Any:
    """What memories are understood against: the pipeline's schema and a look-up of values in its data."""
    from core.memory import Grounding

    return Grounding(schema=pipeline.load_schema(), lookup=pipeline.lookup_values, database_id=pipeline.database.id)


class Services:
    def __init__(self, settings: Settings, *, embedded: EmbeddedPostgres | None = None,
                 embedder: Any = None) -> None:
        """``embedded`` and ``embedder`` may be passed in (tests, or a desktop that already started them)."""
        self.settings = settings
        self._embedded = embedded
        self._pipelines: dict[str, Any] = {}
        self._store: Any = None
        self._embedder = embedder
        self._bank: Any = None
        self._feedback: Any = None
        self._few_shot: Any = None

    def embedded(self) -> EmbeddedPostgres:
        if self._embedded is None:
            self._embedded = EmbeddedPostgres()
        return self._embedded

    def pipeline(self, db: str | None) -> Any:
        """One pipeline per database (batch mode reuses its pool and schema cache)."""
        from core.llm import OllamaLLM
        from core.pipeline import AskPipeline
        from core.databases import open_target

        key = db or ""
        if key not in self._pipelines:
            s = self.settings
            database = open_target(db, embedded=None if db else self.embedded())
            llm = OllamaLLM(s.ollama_host, s.model, timeout_s=s.llm_timeout_s, num_ctx=s.num_ctx)
            self._pipelines[key] = AskPipeline(database, llm, s, examples=self.few_shot())
        return self._pipelines[key]

    def store(self) -> Any:
        if self._store is None:
            from core.memory import open_memory_store

            s = self.settings
            embedded = self.embedded() if s.memory_store == "pgvector" and not s.memory_store_uri else None
            self._store = open_memory_store(s.memory_store, data_dir=data_dir(), uri=s.memory_store_uri,
                                            embedded=embedded)
        return self._store

    def embedder(self) -> Any:
        if self._embedder is None:
            from core.memory import MiniLMEmbedder

            self._embedder = MiniLMEmbedder()
        return self._embedder

    def bank(self) -> Any:
        if self._bank is None:
            from core.memory import MemoryBank

            from core.history import QuestionHistory

            self._bank = MemoryBank(self.store(), self.embedder(), data_dir() / "memory-journal",
                                    history=QuestionHistory(data_dir() / "history"), feedback=self.feedback())
        return self._bank

    def feedback(self) -> Any:
        """Thumbs up/down: the verified examples per database and the feedback log, under the data dir."""
        if self._feedback is None:
            from core.feedback import ExampleStore, FeedbackLog, FeedbackRecorder, feedback_dir

            folder = feedback_dir()
            self._feedback = FeedbackRecorder(ExampleStore(folder), FeedbackLog(folder))
        return self._feedback

    def few_shot(self) -> Any:
        """The closest verified examples for a question (the embedder is loaded only when there are some)."""
        if self._few_shot is None:
            from core.feedback import FewShotSelector

            self._few_shot = FewShotSelector(self.feedback().examples, lambda texts: self.embedder().embed_batch(texts))
        return self._few_shot

    def assistant(self, db: str | None, *, pipeline: Any = None) -> Any:
        """The assistant for ``db`` (or for a ``pipeline`` already opened from this root); the bank then
        understands hand-made memories against the same database."""
        from core.assistant import Assistant

        pipeline = pipeline or self.pipeline(db)
        bank = self.bank()
        bank.grounding = lambda: grounding_of(pipeline)
        return Assistant(pipeline, self.store(), self.embedder(), bank)

    def ground_bank(self, db: str | None) -> None:
        """Let the bank understand memories against ``db`` (opened only when a memory needs it)."""
        self.bank().grounding = lambda: grounding_of(self.pipeline(db))

    def explain(self, sql: str, db: str | None = None, *, pipeline: Any = None) -> Any:
        """``sql`` explained in plain words (a ``core.replies.Explanation``) by this database's model, or read from
        its structure when the model cannot; never run. A Stop bound with ``core.llm.cancellable`` cuts the model."""
        from core.errors import CairnError
        from core.replies import explain_sql
        from core.schema import Schema

        pipeline = pipeline or self.pipeline(db)
        try:
            schema = pipeline.load_schema()
        except CairnError:  # the database is down: the SQL can still be read, without its columns
            schema = Schema(dialect=pipeline.database.dialect, tables=())
        return explain_sql(sql, schema, pipeline.llm)

    def close(self) -> None:
        for pipeline in self._pipelines.values():
            pipeline.database.close()
        if self._store is not None and hasattr(self._store, "close"):
            self._store.close()
