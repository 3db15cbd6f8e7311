"""The command line's composition root: builds each piece once, lazily, and hands them to each other.

(The desktop has its own root in ``desktop/shell/app.py``; both only wire ``core`` objects together.)
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import Any

from core.config import Settings, data_dir
from core.databases import EmbeddedPostgres

__all__ = ["Services", "db_kind_of", "grounding_of"]

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
        self._insight_store: Any = None
        self._insight_lock = threading.Lock()  # the window fetches suggestions and shares on two workers
        self._sharings: dict[str, Any] = {}
        self._agent_key: Any = None
        self._rejected: Any = None

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
            self._pipelines[key] = AskPipeline(database, llm, s, examples=self.few_shot(), meaning=self.name_meaning)
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

    def name_meaning(self, name: str, names: Sequence[str]) -> list[float]:
        """How close in meaning ``name`` is to each of ``names`` (the sentence encoder's cosine, loaded on first
        use); nothing known (0.0 each) when the encoder cannot be loaded."""
        try:
            vectors = self.embedder().embed_batch([name, *names])
        except Exception as exc:  # noqa: BLE001 - a missing encoder leaves the spelling rules, never a crash
            logger.warning("column names by meaning unavailable: %s", exc)
            return [0.0] * len(names)
        return [float(v @ vectors[0]) for v in vectors[1:]]

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

    def query_plan(self, sql: str, db: str | None = None, *, pipeline: Any = None, cancel: Any = None) -> Any:
        """How the database would run ``sql`` (a ``core.replies.PlanNode`` tree): checked first, then ``EXPLAIN``
        without ``ANALYZE``; nothing runs."""
        from core.replies import query_plan

        return query_plan(pipeline or self.pipeline(db), sql, cancel=cancel)

    # -- shared insights between agents (issue 15; off until the person turns it on) --------------------------

    def insight_store(self) -> Any:
        """The shared-insights store of the settings, opened once: jsonl in ``<data dir>/shared-insights`` unless
        a folder is set; pgvector without a URL on the embedded server; milvus without one as Milvus Lite in the
        data dir. Raises ConfigError or InsightStoreError."""
        with self._insight_lock:
            if self._insight_store is None:
                from core.insights import open_insight_store

                s = self.settings
                url, options = s.insight_url, {}
                if not url and s.insight_store == "jsonl":
                    url = str(data_dir() / "shared-insights")
                elif not url and s.insight_store == "milvus":
                    options["data_dir"] = str(data_dir())  # Milvus Lite in a file there
                elif not url and s.insight_store == "pgvector":
                    options["embedded"] = self.embedded()
                self._insight_store = open_insight_store(s.insight_store, url, **options)  # type: ignore[arg-type]
            return self._insight_store

    def agent_id(self) -> str:
        """This profile's agent id: the one set in settings, else a stable hash of machine and data folder."""
        from core.insights import default_agent_id

        return self.settings.agent_id or default_agent_id(str(data_dir()))

    def agent_key(self) -> Any:
        """This agent's signing key (``AgentKey``), made at first use in its own folder of the data dir: what
        makes a shared record this agent's. Raises InsightKeyError for a key file that is unsafe or unreadable."""
        with self._insight_lock:
            if self._agent_key is None:
                from core.insights import KEY_FILE, AgentKey, RejectedFollowups, agent_folder

                folder = agent_folder(data_dir(), self.agent_id())
                self._agent_key = AgentKey.load_or_create(folder / KEY_FILE)
                # one list per agent, shared by every InsightSharing: a thumbs-down shows in the next look-up
                self._rejected = RejectedFollowups(folder / "rejected-followups.json")
            return self._agent_key

    def insight_sharing(self, db_kind: str) -> Any:
        """An ``InsightSharing`` for this agent whatever the on/off setting (``cairn insights`` reads and cleans
        the store on request); the store opens on first use, the embedder loads on first embedding."""
        from core.insights import InsightSharing
        from core.memory import embed_one

        embedder, key = self.embedder(), self.agent_key()
        return InsightSharing(open_store=self.insight_store, embed=lambda text: embed_one(self.embedder(), text),
                              embed_many=lambda texts: self.embedder().embed_batch(list(texts)),
                              embed_tokens=getattr(embedder, "embed_tokens", None),
                              embedding_model=str(getattr(embedder, "model_id", type(embedder).__name__)),
                              agent_id=self.agent_id(), db_kind=db_kind, key=key, rejected=self._rejected,
                              ttl_days=self.settings.insight_ttl_days)

    def sharing(self, db: str | None, *, pipeline: Any = None) -> Any:
        """``InsightSharing`` for ``db``'s answers, or None when sharing is off (the default)."""
        if not self.settings.sharing_enabled:
            return None
        pipeline = pipeline or self.pipeline(db)
        key = pipeline.database.id
        if key not in self._sharings:
            self._sharings[key] = self.insight_sharing(db_kind_of(pipeline.database.dialect))
        return self._sharings[key]

    def share_answer(self, sharing: Any, answer: Any, *, pipeline: Any, user: str | None = None,
                     question: str | None = None) -> Any:
        """Share one answered question (a second model call, then the store): a ``ShareOutcome``, never an
        exception — the answer has been shown already and nothing here may break it."""
        from core.errors import CairnError
        from core.insights import ShareOutcome
        from core.sharing import applied_memories, share_inputs

        try:
            sharing.store  # noqa: B018 - a store that cannot be opened: no model call for a summary nobody reads
            memories = applied_memories(self.store(), user, answer) if user and answer.memories else []
            inputs = share_inputs(answer, pipeline.load_schema(), question=question, user=user, memories=memories,
                                  hidden=self.settings.hidden.get(pipeline.database.id, []))
            if inputs is None:
                return ShareOutcome(reason="no rows from SQL to share")
            return sharing.share(pipeline.llm, **inputs.kwargs())
        except CairnError as exc:
            return ShareOutcome(reason=str(exc), store_down=type(exc).__name__ == "InsightStoreError")
        except Exception as exc:  # noqa: BLE001 - after the answer: logged, reported, never raised
            logger.warning("sharing an insight failed", exc_info=True)
            return ShareOutcome(reason=f"{type(exc).__name__}: {exc}")

    def close(self) -> None:
        for pipeline in self._pipelines.values():
            pipeline.database.close()
        if self._store is not None and hasattr(self._store, "close"):
            self._store.close()
        if self._insight_store is not None:
            try:
                self._insight_store.close()
            except Exception:  # noqa: BLE001 - closing a shared store that went away
                logger.info("closing the shared-insights store failed", exc_info=True)
            self._insight_store = None


def db_kind_of(dialect: str) -> str:
    """The database kind other agents see on a shared insight: ``postgresql``, ``sqlite``…"""
    return {"postgres": "postgresql"}.get(dialect, dialect)
