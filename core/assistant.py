"""One message from one person, end to end: classify, then remember or answer (recall, ask, learn).

    classify ──► memory statement ──► extract ─► structure ─► update (ADD/UPDATE/DELETE/NOOP) ─► confirm
            └──► question ──► recall ─► AskPipeline.ask (filters enforced, terms defined) ─► learn ─► record

The composition root (CLI or desktop) builds the pipeline, the store, the embedder and the bank and
passes them in; nothing here reaches for globals.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from core.answer import Answer
from core.cancellation import Cancellation
from core.errors import CairnError, LLMError
from core.llm import cancellable
from core.memory import BankChange, Grounding, Memory, MemoryBank, confirmation, describe_form
from core.memory import PENDING_SOURCE
from core.memory import MEMORY_KINDS, TALK_KINDS, Route, classify, is_memory_statement, router_applies
from core.memory import names_term, recall_words
from core.memory import Conversation
from core.memory import Embedder
from core.memory import Fact, extract_facts, rule_based_facts
from core.memory import forget
from core.memory import Recall, recall_memories
from core.memory import ConversationStore, MemoryStore
from core.memory import UpdateReport, apply_fact, rule_route
from core.pipeline import AskPipeline
from core.prompt import build_sql_prompt, named_tables
from core.schema import Schema
from core.replies import MetaContext, chat_reply, meta_reply, refine_by_rules
from core.text import counted

__all__ = ["Assistant", "Reply"]

logger = logging.getLogger(__name__)

_CONFIRM = {
    "preference": "Preference stored — no SQL executed",
    "terminology": "Terminology stored — no SQL executed",
    "metric": "Metric stored — no SQL executed",
    "entity": "Noted — no SQL executed",
    "forget": "Forgotten — no SQL executed",
}


@dataclass(frozen=True)
class Reply:
    """What the person sees for one message: an answer, or a confirmation of what was remembered."""

    message: str
    route: Route
    answer: Answer | None = None
    changes: tuple[UpdateReport, ...] = ()
    text: str = ""
    notes: tuple[str, ...] = ()
    error: str | None = None
    hint: str | None = None

    def understood(self) -> list[dict[str, Any]]:
        """Each rule this message saved or changed, as the person must see it before it shapes an answer: enforced
        or waiting for them, in plain words, with what they can do (``memory.confirmation``)."""
        return [shown for c in self.changes if c.operation != "NOOP" for m in c.after
                if (shown := confirmation(m)) is not None]

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "message": self.message,
            "route": self.route.kind,
            "uncertain": self.route.uncertain,
            "text": self.text,
            "notes": list(self.notes),
            "memory_changes": [
                {
                    "operation": c.operation,
                    "memory_ids": list(c.memory_ids),
                    "before": [m.to_json() for m in c.before],
                    "after": [m.to_json() for m in c.after],
                    "reason": c.reason,
                }
                for c in self.changes
            ],
            "understood": self.understood(),
            "error": self.error,
            "hint": self.hint,
        }
        if self.answer is not None:
            data["answer"] = self.answer.to_json()
        return data


# "what does revenue mean?", "which definitions have I saved?": about the memory itself, a meta question
# a message that starts the way a request for rows does ("show …", "list …", "dikhao …")
_ASKS_FOR_DATA = re.compile(r"\s*(?:please\s+|can\s+you\s+|could\s+you\s+)?(?:show|list|give|get|find|display|pull|"
                            r"fetch|what|which|how|who|when|where|dikhao|dikha|batao|bata)\b", re.IGNORECASE)
_ASKS_ABOUT_MEMORY = re.compile(r"\b(?:mean|means|meaning|definition|defined|define|remember|saved|memor\w*|"
                                r"preferences?|explain|matlab)\b", re.IGNORECASE)


@dataclass
class Assistant:
    pipeline: AskPipeline
    store: Any  # MemoryStore & ConversationStore
    embedder: Embedder
    bank: MemoryBank
    learn_after_answer: bool = True
    classifier: Callable[..., Route] = field(default=classify)

    def __post_init__(self) -> None:
        assert isinstance(self.store, MemoryStore) and isinstance(self.store, ConversationStore)
        self.conversation = Conversation(self.store)
        # The last SQL run for each person on *this* database: what "explain that" and an edit refer to. The
        # conversation store is per person across databases, so it cannot say which database a query was for.
        self._last_sql_run: dict[str, str] = {}

    @property
    def database_id(self) -> str:
        return self.pipeline.database.id

    def _ground_imported(self, user: str) -> None:
        """Memories imported for this database while another was open get their forms now."""
        try:
            if any(m.source == PENDING_SOURCE for m in self.store.list(user, database_id=self.database_id)):
                grounding = Grounding(schema=self.pipeline.load_schema(), lookup=self.pipeline.lookup_values,
                                      database_id=self.database_id)  # fmt: skip
                self.bank.ground_pending(user, grounding)
        except CairnError as exc:  # never in the way of the answer: they stay words until next time
            logger.warning("imported memories not understood yet: %s", exc)

    def _check_vectors(self, user: str) -> None:
        """Once per person: memories whose vectors another encoder made are embedded again (recall compares)."""
        try:
            self.bank.check_vectors(user)
        except CairnError as exc:  # never in the way of the answer: tried again at the next question
            logger.warning("memory vectors not checked: %s", exc)

    def route(self, user: str, message: str) -> Route:
        try:
            has_history = self.conversation.has_history(user, self.database_id)
        except CairnError as exc:  # an unreadable store must not stop the person asking questions
            logger.warning("conversation history unreadable: %s", exc)
            has_history = False
        # The model is asked only where the learned router says it is unsure (the rules' own unsure cases
        # were measured better settled without it).
        llm = self.pipeline.llm if router_applies(self.embedder) else None
        route = self.classifier(message, embedder=self.embedder, llm=llm, has_history=has_history)
        if route.kind in TALK_KINDS and not _ASKS_ABOUT_MEMORY.search(message):
            named = self._names_saved_definition(user, message)
            if named is not None:  # "what is the revenue" with revenue defined: a number to compute
                return Route("question", route.uncertain, (*route.reasons, f'names your saved "{named}"'))
        if route.kind in ("question", "follow_up", "refine", "forget", "meta", "chat", "terminology"):
            try:  # "make it 30 rows" after a saved default limit is a change of the rule, not a question
                last = self.conversation.last_reply(user, self.database_id)
                return rule_route(message, route, user=user, database_id=self.database_id, store=self.store,
                                  embedder=self.embedder, schema=self.pipeline.load_schema(),
                                  lookup=self.pipeline.lookup_values, last_reply=last) or route
            except CairnError as exc:  # never in the way of the question
                logger.warning("saved rules not checked against the message: %s", exc)
        return route

    def _withdraws(self, user: str, message: str) -> bool:
        """Whether ``message`` names a saved memory to withdraw (nothing is changed to find out)."""
        try:
            report = forget(message, user=user, database_id=self.database_id, store=self.store,
                            embedder=self.embedder, schema=self.pipeline.load_schema(), dry_run=True)
        except CairnError:
            return True  # the forget path then says what went wrong
        return report.operation != "NOOP"

    def _names_saved_definition(self, user: str, message: str) -> str | None:
        try:
            mine = self.store.list(user, database_id=self.database_id)
        except CairnError:
            return None
        said = recall_words(message)
        for m in mine:
            name = str((m.structured or {}).get("name") or "")
            if m.category in ("terminology", "metric") and name and names_term(said, name):
                return name
        return None

    def handle(
        self,
        user: str,
        message: str,
        *,
        cancel: Cancellation | None = None,
        on_stage: Callable[[str], None] | None = None,
        exclude: Iterable[str] = (),
    ) -> Reply:
        """Never raises CairnError: problems come back in the Reply (or its Answer) with a hint. Stop
        (``cancel``) also cuts a model call in progress."""
        with cancellable(cancel):
            return self._handle(user, message, cancel=cancel, on_stage=on_stage, exclude=exclude)

    def _handle(self, user: str, message: str, *, cancel: Cancellation | None,
                on_stage: Callable[[str], None] | None, exclude: Iterable[str]) -> Reply:
        try:
            message = self.pipeline.check_question(message)
        except CairnError as exc:
            answer = self.pipeline.ask(message)
            return Reply(message, Route("question", False, ()), answer=answer, error=str(exc), hint=exc.hint)
        self._ground_imported(user)
        self._check_vectors(user)
        route = self.route(user, message)
        if route.kind == "chat":
            return self._talk(user, message, route, chat_reply(message))
        if route.kind == "meta":
            return self._talk(user, message, route, meta_reply(message, self._meta_context(user)))
        if route.kind == "refine":
            reply = self._refine(user, message, route, cancel=cancel, on_stage=on_stage)
            if reply is not None:
                return reply
            route = Route("follow_up", True, (*route.reasons, "no previous query to edit: asked as a question"))
        if route.kind == "forget" and _ASKS_FOR_DATA.match(message) and not self._withdraws(user, message):
            # "show returned orders again" with nothing saved about returned orders: a request for rows
            route = Route("question", True, (*route.reasons, "nothing saved to withdraw: answered as a question"))
        if is_memory_statement(route):
            return self._remember(user, message, route)
        return self._answer(user, message, route, cancel=cancel, on_stage=on_stage, exclude=exclude)

    # -- small talk, questions about Cairn, edits of the last query -----------------------------------

    def _talk(self, user: str, message: str, route: Route, text: str) -> Reply:
        """A reply with no SQL and nothing stored (the exchange is kept, so "explain that" has context)."""
        notes: list[str] = []
        self._record(user, message, text, None, notes)
        return Reply(message, route, text=text, notes=tuple(notes))

    def _meta_context(self, user: str) -> MetaContext:
        notes: list[str] = []
        schema: Schema | None = None
        memories: list[Memory] = []
        try:
            schema = self.pipeline.load_schema()
        except CairnError as exc:
            notes.append(str(exc))
        try:
            memories = self.store.list(user, database_id=self.database_id)
        except CairnError as exc:
            notes.append(str(exc))
        return MetaContext(schema=schema, memories=memories, last_sql=self._last_sql(user),
                           database=_short_name(self.pipeline.database.id), notes=notes)

    def _last_sql(self, user: str) -> str | None:
        return self._last_sql_run.get(user)

    def _refine(
        self, user: str, message: str, route: Route, *, cancel: Cancellation | None,
        on_stage: Callable[[str], None] | None,
    ) -> Reply | None:
        """Edit the last SQL and run it: rules for what they can do exactly, else the model with the previous
        SQL in view. Memory is neither read nor written (the edit may lift a filter for this once)."""
        last = self._last_sql(user)
        if last is None:
            return None
        notes: list[str] = []
        try:
            edit = refine_by_rules(message, last, self.pipeline.load_schema())
        except CairnError:
            edit = None
        if edit is not None:
            answer = self.pipeline.run_sql(edit.sql, cancel=cancel, question=message)
            notes.append(f"Changed the previous query: {edit.change}.")
        else:
            answer = None
            if self.pipeline.llm is not None:
                lines = [f"Previous SQL (edit it as the question asks, keep everything else): {last}"]
                answer = self.pipeline.ask(f"Edit the previous query: {message}", cancel=cancel,
                                           on_stage=on_stage, recall=None, conversation=lines)
            if answer is None or not answer.ok:
                text = ("I could not make that change to the previous query. Without the local model I can drop a "
                        "condition on a column you name, change the number of rows, or change the sort; for other "
                        "edits start Ollama, or ask the whole question again.")
                self._record(user, message, text, None, notes)
                return Reply(message, route, text=text, notes=tuple(notes),
                             error=answer.error if answer is not None else None)
        self._record(user, message, _summary(answer), answer.sql, notes)
        return Reply(message, route, answer=answer, notes=tuple(notes))

    # -- memory statements ---------------------------------------------------------------------------

    def _remember(self, user: str, message: str, route: Route) -> Reply:
        notes: list[str] = []
        try:
            schema = self.pipeline.load_schema()
            if route.kind == "forget":
                reports = [forget(message, user=user, database_id=self.database_id, store=self.store,
                                  embedder=self.embedder, schema=schema)]
            else:
                facts = self._facts(message, route, schema, notes)
                reports = [
                    apply_fact(f, user=user, database_id=self.database_id, store=self.store,
                               embedder=self.embedder, llm=self.pipeline.llm, schema=schema, source=message,
                               lookup=self.pipeline.lookup_values, confirm=route.changes is not None)
                    for f in facts
                ]
        except CairnError as exc:
            return Reply(message, route, text="Nothing was stored.", notes=tuple(notes), error=str(exc),
                         hint=exc.hint)
        # The memory is stored from here on: a failing journal or conversation log is only noted.
        self._journal(user, reports, notes)
        for r in reports:
            for m in r.after:
                st = dict(m.structured or {})
                notes.append("Understood as: " + describe_form(st, m.category))
                if st.get("unknown_values"):
                    notes.append("Not found in the data (kept as you wrote it): "
                                 + ", ".join(map(str, st["unknown_values"])) + ".")
        text = _CONFIRM.get(route.kind, "Noted — no SQL executed")
        if route.kind == "forget" and any(r.after and r.operation == "DELETE" for r in reports):
            text = "Changed — no SQL executed"  # "no decimals any more": a new setting replaced the old one
        stored = [m for r in reports if r.operation != "NOOP" for m in r.after]
        if stored and all((m.structured or {}).get("kind") == "pending" for m in stored):
            text = "Noted, not enforced until you confirm — no SQL executed"
        if not any(r.operation != "NOOP" for r in reports):
            text = reports[0].reason if reports else "Nothing to remember in that message — no SQL executed"
        self._record(user, message, text, None, notes)
        return Reply(message, route, changes=tuple(reports), text=text, notes=tuple(notes))

    def _facts(self, message: str, route: Route, schema: Any, notes: list[str]) -> list[Fact]:
        llm = self.pipeline.llm
        if llm is not None:
            try:
                facts = extract_facts(message, llm)
                if facts:
                    return facts
            except LLMError as exc:
                notes.append(f"The model is unavailable ({exc}); using your words as they are.")
        return rule_based_facts(message, route.kind, schema)

    def _journal(self, user: str, reports: Iterable[UpdateReport], notes: list[str]) -> None:
        """Journal stored changes for undo; a journal that cannot be written is noted, the change stays."""
        import time

        try:
            for r in reports:
                if r.operation != "NOOP":
                    self.bank.record(user, BankChange(r.operation, r.before, r.after, time.time()))
        except CairnError as exc:
            logger.warning("undo journal not written: %s", exc)
            notes.append(f"Saved, but this change cannot be undone from the bank: {exc}")

    def _record(self, user: str, message: str, text: str, sql: str | None, notes: list[str]) -> None:
        if sql:
            self._last_sql_run[user] = sql
        try:
            self.conversation.record(user, message, answer_text=text, sql=sql, database_id=self.database_id)
        except CairnError as exc:
            notes.append(f"The conversation could not be saved: {exc}")

    # -- questions -----------------------------------------------------------------------------------

    def recall(self, user: str, question: str, *, exclude: Iterable[str] = ()) -> Recall:
        schema = self.pipeline.load_schema()
        return recall_memories(
            question,
            user=user,
            database_id=self.database_id,
            store=self.store,
            embedder=self.embedder,
            exclude=exclude,
            table_names=[t.name for t in schema.tables],
            schema=schema,
            question_tables=named_tables(schema, question),
        )

    def _answer(
        self,
        user: str,
        message: str,
        route: Route,
        *,
        cancel: Cancellation | None,
        on_stage: Callable[[str], None] | None,
        exclude: Iterable[str],
    ) -> Reply:
        notes: list[str] = []
        try:
            recall = self.recall(user, message, exclude=exclude)
        except CairnError as exc:
            recall = Recall()
            notes.append(f"Memories could not be read: {exc} {exc.hint}")
        conversation: list[str] = []
        if route.kind == "follow_up":
            try:
                conversation = self.conversation.prompt_lines(user, database_id=self.database_id)
            except CairnError as exc:
                notes.append(f"Earlier turns could not be read: {exc}")
        answer = self.pipeline.ask(message, cancel=cancel, on_stage=on_stage, recall=recall,
                                   conversation=conversation, user=user)
        if route.uncertain and route.alternative in MEMORY_KINDS:
            did = "answered this" if answer.ok else "took this"
            notes.append(f'I {did} as a one-off question. To keep it as a standing {route.alternative}, '
                         f'say: "remember: {_clip(message, 120)}".')
        changes: list[UpdateReport] = []
        if answer.ok and self.learn_after_answer:
            changes = self._learn(user, message, notes)
        self._record(user, message, _summary(answer), answer.sql, notes)
        return Reply(message, route, answer=answer, changes=tuple(changes), notes=tuple(notes))

    def learn(self, user: str, message: str) -> tuple[list[UpdateReport], list[str]]:
        """Learn from a question answered with ``learn_after_answer`` off: the window shows the answer first and
        calls this afterwards, in the background. Returns what changed and the notes to show."""
        notes: list[str] = []
        return self._learn(user, message, notes), notes

    def _learn(self, user: str, message: str, notes: list[str]) -> list[UpdateReport]:
        """After a good answer the message goes through extraction and update (failures only noted)."""
        llm = self.pipeline.llm
        if llm is None:
            return []
        try:
            facts = extract_facts(message, llm)
            if not facts:
                return []
            schema = self.pipeline.load_schema()
            reports = [
                apply_fact(f, user=user, database_id=self.database_id, store=self.store, embedder=self.embedder,
                           llm=llm, schema=schema, source=message, lookup=self.pipeline.lookup_values)
                for f in facts
            ]
        except CairnError as exc:
            logger.info("learning skipped: %s", exc)
            return []
        self._journal(user, reports, notes)
        learned = [r for r in reports if r.operation != "NOOP"]
        if learned:
            notes.append("Learned: " + "; ".join(m.content for r in learned for m in r.after) + ".")
        return learned

    # -- dry run -------------------------------------------------------------------------------------

    def dry_run(self, user: str, message: str) -> dict[str, Any]:
        """How ``message`` would be handled — route, memories and the exact prompt — without calling the model
        or running any query (the schema comes from the cache or from catalogue metadata)."""
        message = self.pipeline.check_question(message)
        route = self.route(user, message)
        out: dict[str, Any] = {"message": message, "route": route.kind, "uncertain": route.uncertain,
                               "reasons": list(route.reasons)}
        if is_memory_statement(route):
            out["action"] = "remember (extract, then ADD/UPDATE/DELETE/NOOP)" if route.kind != "forget" else \
                "forget the matching memory"
            return out
        recall = self.recall(user, message)
        out["memories"] = [
            {"id": r.memory.id, "category": r.memory.category, "content": r.memory.content,
             "similarity": round(r.similarity, 4), "why": r.reason, "applied_as": r.kind}
            for r in recall.memories
        ]
        out["enforced_if_read"] = [  # standing filters on tables the question does not name: not in the prompt
            {"id": r.memory.id, "content": r.memory.content, "table": (r.memory.structured or {}).get("table")}
            for r in recall.standing
        ]
        schema = self.pipeline.load_schema()
        conversation = (self.conversation.prompt_lines(user, database_id=self.database_id)
                        if route.kind == "follow_up" else [])  # fmt: skip
        provider = getattr(self.pipeline, "examples", None)
        shots = provider.pairs(user, self.database_id, message) if provider is not None else []
        prompt = build_sql_prompt(message, schema, today=self.pipeline._today(),
                                  num_ctx=self.pipeline.settings.num_ctx,
                                  context_lines=recall.context_lines(), conversation=conversation, examples=shots)
        out["prompt"] = {"system": prompt.system, "user": prompt.user, "tokens": prompt.tokens}
        return out


def _short_name(database_id: str) -> str:
    """"cairn_sample" from a connection URI, "shop.sqlite" from a path: what a person calls the database."""
    tail = database_id.rstrip("/").rsplit("/", 1)[-1].split("?", 1)[0]
    return f"The database {tail}" if tail else "The database"


def _clip(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _summary(answer: Answer) -> str:
    if answer.ok:
        return f"{counted(answer.row_count, 'row')}: {', '.join(answer.columns)}"
    return f"Could not answer: {answer.error}"
