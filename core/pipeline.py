"""Question -> checked, read-only SQL -> rows. Each stage is a method named for what it does.

    check_question -> load_schema -> build_prompt -> generate -> guard -> validate -> execute
                                          ^                                              |
                                          +------------- repair (DB / checker error) ----+  (at most N rounds)
    ...and when no model SQL worked: fallback (rule-based, only when it understands the question).

The pipeline is synchronous; the caller runs it on a worker thread and may cancel between stages (and
during ``execute``, where the database is asked to cancel too)."""

from __future__ import annotations

import datetime as _dt
import logging
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import cached_property

from core.answer import Alternative, Answer, AppliedMemory, SqlPath
from core.cancellation import Cancellation
from core.config import Settings
from core.databases import Database, QueryLimits, QueryResult
from core.evidence import AS_WRITTEN, agreeing_reading, answering_query, check_answer, column_named, splits_asked
from core.errors import (CairnError, InputError, LLMError, LLMReplyError, NoAnswer, QueryFailed, QueryTimeout,
                         SQLReadings, SQLRejected, SQLValidationError)
from core.fallback import fallback_sql
from core.feedback import ExamplesProvider
from core.llm import LLM
from core.memory import Recall
from core.apply_memory import apply_memories
from core.number_format import NumberFormat
from core.prompt import Prompt, build_repair_prompt, build_review_prompt, build_sql_prompt
from core.schema import Schema
from core.text import clean_text
from core.sql import (GUESSED, HiddenColumns, Meaning, Named, Validated, ended_in, extract_queries, guard_named,
                      keep_hidden_out_sql, redact_error_values, silences_an_error, spelled_in, validate)

__all__ = ["MAX_QUESTION_CHARS", "AskPipeline"]

logger = logging.getLogger(__name__)
JOIN_CHECK_MAX_S = 2.0  # a join is checked against the query without it only when the answer took less than this

MAX_QUESTION_CHARS = 4000
LONG_REPLY = 1600  # tokens: a second try for a reply the usual limit (SQL_OPTIONS, 400) cut off
_REPAIRABLE = (LLMReplyError, SQLRejected, SQLValidationError, QueryFailed)  # the model may fix them; others end it

StageCallback = Callable[[str], None]


@dataclass
class _Run:
    """Mutable state of one question while it moves through the stages."""

    question: str
    cancel: Cancellation
    on_stage: StageCallback | None
    timings: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    rejected_sql: str | None = None
    rejected_reason: str | None = None
    recall: Recall | None = None
    applied: list[AppliedMemory] = field(default_factory=list)
    alternatives: list[Alternative] = field(default_factory=list)
    user: str | None = None  # whose verified examples the prompt may show
    probed: dict[str, bool | None] = field(default_factory=dict)  # each bounded probe asked once per question

    @cached_property
    def named_dates(self) -> Named:
        """How the repairs read a name a table lacks (a date, a shortened name) by this question's words, once."""
        return column_named(self.question)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        self.cancel.raise_if_cancelled()
        if self.on_stage is not None:
            self.on_stage(name)
        start = time.perf_counter()
        try:
            yield
        finally:
            self.timings[name] = self.timings.get(name, 0.0) + time.perf_counter() - start

    def reject(self, sql: str | None, reason: str) -> None:
        self.rejected_sql, self.rejected_reason = sql or self.rejected_sql, reason


class AskPipeline:
    """Answers questions about one database with one model. ``llm`` may be None (no Ollama): fallback only."""

    def __init__(
        self,
        database: Database,
        llm: LLM | None,
        settings: Settings | None = None,
        *,
        today: Callable[[], _dt.date] = _dt.date.today,
        examples: ExamplesProvider | None = None,
        meaning: Meaning | None = None,
    ) -> None:
        self.database = database
        self.llm = llm
        self.settings = settings or Settings()
        self._today = today
        self.examples = examples  # verified examples shown as few-shot (given by the composition root)
        self.meaning = meaning  # how close in meaning column names are (the sentence encoder), for synonyms

    @property
    def limits(self) -> QueryLimits:
        return QueryLimits(max_rows=self.settings.row_cap, timeout_s=self.settings.statement_timeout_s)

    # -- public entry points -------------------------------------------------------------------------

    def ask(
        self,
        question: str,
        *,
        cancel: Cancellation | None = None,
        on_stage: StageCallback | None = None,
        recall: Recall | None = None,
        conversation: Sequence[str] = (),
        user: str | None = None,
    ) -> Answer:
        """Answer one question. Never raises CairnError: failures come back as an Answer with ``error``.

        ``recall`` holds the person's memories that apply (filters are enforced on the SQL, definitions go in
        the prompt); ``conversation`` holds earlier turns, so follow-ups ("those") can be resolved; ``user``'s
        verified examples closest to the question are shown to the model.
        """
        run = _Run(question=question, cancel=cancel or Cancellation(), on_stage=on_stage, recall=recall, user=user)
        try:
            question = self.check_question(question)
            with run.stage("load_schema"):
                schema = self.load_schema()
            context = list(recall.context_lines()) if recall else []
            answer = self._ask_model(run, question, schema, context, conversation)
            if answer is None:
                answer = self._ask_fallback(run, question, schema)
            return answer
        except CairnError as exc:
            return self._failed(run, exc)

    def checked_sql(self, sql: str, *, cancel: Cancellation | None = None) -> str:
        """``sql`` as Cairn would run it (guarded read-only, names checked, no memory applied); raises the
        CairnError that refuses it. Nothing runs."""
        run = _Run(question=sql, cancel=cancel or Cancellation(), on_stage=None)
        return self._check(run, sql, self.load_schema(), apply_memory=False)

    def run_sql(self, sql: str, *, cancel: Cancellation | None = None, question: str = "") -> Answer:
        """Run SQL a person wrote or edited, through the same guard, checks and read-only executor."""
        run = _Run(question=question or sql, cancel=cancel or Cancellation(), on_stage=None)
        try:
            with run.stage("load_schema"):
                schema = self.load_schema()
            checked = self._check(run, sql, schema, apply_memory=False)
            result = self.execute(run, checked)
            return self._answer(run, checked, result, "user")
        except CairnError as exc:
            run.reject(sql, str(exc))
            return self._failed(run, exc)

    # -- stages ----------------------------------------------------------------------------------------

    def check_question(self, question: str) -> str:
        """The question without terminal escape sequences and invisible or control characters (bidi overrides,
        NUL): they mean nothing to the model and could hide text from the person reading the prompt."""
        cleaned = clean_text(question)
        if not cleaned:
            raise InputError("The question is empty.")
        if len(cleaned) > MAX_QUESTION_CHARS:
            raise InputError(
                f"The question is {len(cleaned):,} characters long; the limit is {MAX_QUESTION_CHARS:,}.",
                hint="Ask a shorter question; put long lists of values in a filter instead.",
            )
        return cleaned

    def lookup_values(self, table: str, column: str, values: Sequence[str]) -> dict[str, str | None]:
        """How the database spells each written value in ``table.column`` (case-insensitive), or None when it does
        not occur. One small read-only query through the same guard as every other; used to check the values a
        memory names against the data, not only against the cached hints."""
        return spelled_in(self.load_schema(), table, column, values, lambda sql: self.run_query(sql).rows)

    def load_schema(self) -> Schema:
        return self.database.schema().without(self.settings.hidden.get(self.database.id, []))

    def hidden_columns(self) -> HiddenColumns | None:
        hidden = self.settings.hidden.get(self.database.id, [])
        return HiddenColumns.of(self.database.schema(), hidden) if hidden else None

    def run_query(self, sql: str, limits: QueryLimits | None = None, cancel: Cancellation | None = None) -> QueryResult:
        """Every query the pipeline runs runs here: one over a table with hidden columns has its ``*`` narrowed to
        the visible ones, and any other way to a hidden column (a whole row as a value) is refused first."""
        sql = keep_hidden_out_sql(sql, self.hidden_columns(), self.database.dialect)
        return self.database.execute(sql, limits=limits or self.limits, cancel=cancel)

    def build_prompt(
        self, question: str, schema: Schema, context_lines: Sequence[str], conversation: Sequence[str] = (),
        examples: Sequence[tuple[str, str]] = (),
    ) -> Prompt:
        return build_sql_prompt(
            question,
            schema,
            today=self._today(),
            num_ctx=self.settings.num_ctx,
            context_lines=context_lines,
            conversation=conversation,
            examples=examples,
        )

    def generate(self, prompt: Prompt) -> str:
        """One model call; an empty reply is retried once before giving up, and a reply the model's length limit
        cut off (Ollama's ``done_reason`` "length") is asked for again once with room for a long query."""
        assert self.llm is not None
        reply = ""
        for _ in range(2):
            reply = self.llm.chat(prompt.system, prompt.user)
            if getattr(self.llm, "last_done_reason", "") == "length":
                logger.info("the model's reply reached its length limit; asking again with %d tokens", LONG_REPLY)
                reply = self.llm.chat(prompt.system, prompt.user, options={"num_predict": LONG_REPLY})
            if reply.strip():
                return reply
        raise LLMReplyError("The model returned an empty reply.")

    def guard(self, sql: str, schema: Schema, fixes: list[str] | None = None) -> tuple[str, object]:
        guarded = guard_named(sql, schema)
        if guarded.mended and fixes is not None:
            fixes.append(guarded.mended)
        return guarded.sql, guarded.expression

    def validate(self, expression: object, schema: Schema, run: _Run | None = None) -> Validated:
        probe = self._join_probe(run, schema) if run is not None else None
        return validate(expression, schema, schema.dialect, join_matches=probe, meaning=self.meaning,  # type: ignore[arg-type]
                        named=run and run.named_dates, question=run.question if run is not None else "")

    def _join_probe(self, run: _Run, schema: Schema) -> Callable[[str], bool | None]:
        """Whether a bounded join query finds a row (None: it could not tell), guarded like every query; each asked
        once per question (the checks run again on every round)."""
        execute = self._evidence_run(run)

        def matches(sql: str) -> bool | None:
            if sql not in run.probed:
                try:
                    run.probed[sql] = bool(execute(self.guard(sql, schema)[0]).rows)
                except CairnError:
                    run.probed[sql] = None
            return run.probed[sql]

        return matches

    def apply_memory(self, run: _Run, validated: Validated, schema: Schema) -> str:
        """Enforce standing preference filters on every SELECT that reads their table; note what applied."""
        applied = apply_memories(run.recall, validated, schema, self._today())
        run.notes.extend(applied.notes)
        if applied.applied is not None:
            run.applied = list(applied.applied)
        return applied.sql

    def _evidence_run(self, run: _Run) -> Callable[[str], QueryResult]:
        """Runs evidence queries under the answer's limits but short timeouts, all of them together within twice
        the time of a quick answer: a stalled server or many checks never make a check outlast the answer."""
        deadline = time.monotonic() + 2 * JOIN_CHECK_MAX_S

        def execute(sql: str) -> QueryResult:
            left = deadline - time.monotonic()
            if left <= 0:
                raise QueryTimeout("no time left for evidence queries")
            limits = replace(self.limits, timeout_s=min(self.limits.timeout_s, left))
            return self.run_query(sql, limits, run.cancel)

        return execute

    def execute(self, run: _Run, sql: str) -> QueryResult:
        with run.stage("execute"):
            return self.run_query(sql, cancel=run.cancel)

    # -- composition -----------------------------------------------------------------------------------

    def _check(self, run: _Run, sql: str, schema: Schema, fixes_out: list[str] | None = None, *,
               apply_memory: bool = True) -> str:
        """guard, validate, then apply memory filters; returns runnable SQL (fixes appended to ``fixes_out``)."""
        mended: list[str] = []
        try:
            with run.stage("guard"):
                guarded_sql, expression = self.guard(sql, schema, mended)
        except SQLReadings as slip:  # a slip with two or three readings: settled only when all give the same rows
            notes = len(run.notes)
            sql, said = agreeing_reading(slip, lambda t: self._check(run, t, schema), lambda q: self.execute(run, q))
            del run.notes[notes:]
            guarded_sql, expression = self.guard(sql, schema, mended)
            mended.insert(0, said)
        with run.stage("validate"):
            validated = self.validate(expression, schema, run)
        if validated.as_written is not None and not (validated.ungrouped and splits_asked(run.question, validated.expression, schema)):
            validated = self._no_harm(run, validated, schema)
        fixes = [*mended, *validated.fixes]
        if fixes_out is not None:
            fixes_out.extend(fixes)
        if fixes:  # a guess shown here was taken: the model was asked first, or there was no round to ask it
            run.notes.append("Fixed: " + "; ".join(f.replace(GUESSED, " (a guess)") for f in fixes) + ".")
        final = validated.sql
        if apply_memory:
            with run.stage("apply_memory"):
                final = self.apply_memory(run, validated, schema)
                if final != validated.sql:  # filters were added: the SQL that runs is guarded as it is
                    final, _ = self.guard(final, schema)
        return keep_hidden_out_sql(final, self.hidden_columns(), schema.dialect)  # shown as it runs

    def _no_harm(self, run: _Run, validated: Validated, schema: Schema) -> Validated:
        """A repair the query may not need (see ``Validated.as_written``) is kept only when it keeps the rows."""
        assert validated.as_written is not None
        with run.stage("no_harm"):
            as_written, _ = self.guard(validated.as_written.sql, schema)  # every SQL is checked before it runs
            repaired, _ = self.guard(validated.sql, schema)
            try:
                before = self.run_query(as_written, cancel=run.cancel)
            except QueryFailed:
                return validated  # as written it fails: the repair is needed
            try:
                after = self.run_query(repaired, cancel=run.cancel)
            except QueryFailed:
                return validated.as_written
        if Counter(before.rows) == Counter(after.rows) and len(before.columns) == len(after.columns):
            return validated
        if validated.ungrouped:  # the answer's check offers the split (evidence.completion_evidence)
            run.notes.append("Ran as written: the query has no GROUP BY and the question does not say what to split "
                             "by, so SQLite shows one row.")
            return validated.as_written
        why = (f"Ran as written, without the repair \"{'; '.join(validated.unproven)}\": it would change the rows "
               "(in SQLite a column that is neither grouped nor aggregated shows one row's value per group).")
        run.notes.append(why + " To split the groups by that column, run the other query below the answer.")
        run.alternatives.append(Alternative("Grouped by every column shown", validated.sql, why))
        return validated.as_written

    def _ask_model(self, run: _Run, question: str, schema: Schema, context_lines: Sequence[str],
                   conversation: Sequence[str]) -> Answer | None:
        if self.llm is None:
            run.notes.append("No language model is configured; trying the rule-based fallback.")
            return None
        with run.stage("build_prompt"):
            shots = self.examples.pairs(run.user, self.database.id, question) if self.examples and run.user else []
            prompt = self.build_prompt(question, schema, context_lines, conversation, shots)
        if prompt.examples:
            run.notes.append(f"Shown the model {prompt.examples} of your verified examples like this question.")
        if len(prompt.schema.tables) < len(schema.tables):
            run.notes.append(
                f"Schema too large for the model's context: showed {len(prompt.schema.tables)} of "
                f"{len(schema.tables)} tables."
            )
        rounds = 1 + max(0, self.settings.repair_rounds)
        held: str | None = None  # SQL that runs only because a repair silenced its error: the model goes first
        failed = False  # a round's SQL failed (not only a guess shown to the model)
        for attempt in range(rounds):
            stage = "generate" if attempt == 0 else "repair"
            sql: str | None = None
            run.alternatives = []
            try:
                with run.stage(stage):
                    reply = self.generate(prompt)
                sql, *others = self._queries(run, reply, schema)
                fixes: list[str] = []
                notes, applied = len(run.notes), list(run.applied)
                # A statement the reply ended (a ';', the closing fence, prose after it) may have a ')' or END
                # missing at its very end mended; one the reply stops with may have been cut there.
                written = sql + (";" if ended_in(reply, sql) else "")
                checked = self._check(run, written, schema, fixes)
                silenced = [f for f in fixes if silences_an_error(f)]
                if silenced and attempt + 1 < rounds:
                    held = held or written
                    del run.notes[notes:]
                    run.applied = applied
                    prompt = build_repair_prompt(prompt, sql, "as written, the query fails or cannot mean what it "
                                                 "says; Cairn could only guess (" + "; ".join(silenced) + "): check "
                                                 "it, and that it joins every table it reads and only those needed")
                    continue
                result = self.execute(run, checked)
            except _REPAIRABLE as exc:
                failed = True
                run.reject(sql, str(exc))
                logger.info("attempt %d failed: %s", attempt + 1, exc)
                if attempt + 1 < rounds:
                    # The model sees the error without values quoted from rows (hidden columns included).
                    error = redact_error_values(str(exc), sql or "", schema)
                    prompt = build_repair_prompt(prompt, sql or "(no SQL)", error)
                continue
            except LLMError as exc:
                run.notes.append(f"The model could not be used: {exc} {exc.hint}")
                return None
            path: SqlPath = "llm" if attempt == 0 and not fixes else "repaired"
            if attempt:
                run.notes.append(f"The first SQL failed; repaired in {attempt} round(s)." if failed else f"The model "
                                 f"was shown Cairn's guess and asked again ({attempt} round(s)); the guess was taken.")
            if run.timings.get("execute", 0.0) < JOIN_CHECK_MAX_S:  # bounded: one more query, only after a quick one
                with run.stage("check_answer"):
                    notes, found, doubts = check_answer(
                        question, checked, result, schema, self._evidence_run(run), written=sql, others=others,
                        context="\n".join([*context_lines, *conversation]), guessed=[] if run.applied else  # never past
                        [f.removesuffix(GUESSED) for f in fixes if f.endswith(GUESSED)])  # a saved filter
                run.alternatives += found
                asked = [a for a in run.alternatives if a.label != AS_WRITTEN]  # a guess was asked about already
                reviewed = self._review(run, prompt, checked, result, schema, doubts) if asked or doubts else None
                if reviewed is not None:
                    checked, result, notes = reviewed
                    path = "repaired"
                run.notes.extend(notes)
            return self._answer(run, checked, result, path)
        if held is not None:  # the model did no better: the first SQL with its repairs, said so
            checked = self._check(run, held, schema)
            run.notes.append("The model's rewrite did not run; ran its first query with Cairn's repairs.")
            return self._answer(run, checked, self.execute(run, checked), "repaired")
        run.notes.append(f"The model's SQL still failed after {rounds - 1} repair round(s).")
        return None

    def _queries(self, run: _Run, reply: str, schema: Schema) -> list[str]:
        """The reply's queries, the one to run first (``extract_queries``, then ``answering_query``)."""
        queries = extract_queries(reply, schema.dialect, finished=getattr(self.llm, "last_done_reason", "") == "stop")
        return [queries.pop(answering_query(run.question, queries, schema)), *queries]

    def _review(self, run: _Run, prompt: Prompt, sql: str, result: QueryResult, schema: Schema,
                doubts: list[str]) -> tuple[str, QueryResult, list[str]] | None:
        """Asks the model once whether what the checks found (a join that changes the rows, a bound or an aggregate
        the question says otherwise, one value shown under two names, ...) is meant, giving both results. Its
        rewrite is shown instead when it runs and its rows differ from the first query's, which is then offered; the
        same SQL back (or the same rows) keeps the first answer and its notes."""
        if self.llm is None or self.settings.repair_rounds <= 0:
            return None
        found = list(run.alternatives)
        notes, applied = len(run.notes), list(run.applied)
        why = " ".join([a.why for a in found[:3]] + doubts[:2])
        try:
            with run.stage("review"):
                reply = self.generate(build_review_prompt(prompt, sql, why))
                revised = self._check(run, self._queries(run, reply, schema)[0], schema)
                other = None if revised == sql else self._evidence_run(run)(revised)
        except (*_REPAIRABLE, LLMError) as exc:
            logger.info("the model's review of what the checks found was not used: %s", exc)
            other = None
        added, run.alternatives = run.notes[notes:], found
        del run.notes[notes:]
        if other is None or other.truncated or Counter(other.rows) == Counter(result.rows):
            run.applied = applied
            return None
        run.notes[:] = [n for n in run.notes if not any(n.startswith(a.why) for a in found)] + [
            n for n in added if n not in run.notes]
        run.alternatives = [Alternative("The first query", sql, why)]
        return revised, other, [f"{why} Shown this, the model rewrote its query (this answer); the first "
                                "query is offered below."]

    def _ask_fallback(self, run: _Run, question: str, schema: Schema) -> Answer:
        with run.stage("fallback"):
            candidate = fallback_sql(question, schema, today=self._today())
        if candidate is None:
            why = f": {run.rejected_reason}" if run.rejected_reason else "."
            then = "edit the last SQL and run it." if run.rejected_sql else "start Ollama for model-written SQL."
            raise NoAnswer("Cairn could not answer this question" + why,
                           hint=f"Rephrase with the table or column names (see `cairn schema`), or {then}")
        checked = self._check(run, candidate.sql, schema)
        result = self.execute(run, checked)
        run.notes.append(f"Answered by the rule-based fallback, not the model: {candidate.explanation}")
        return self._answer(run, checked, result, "fallback")

    def _answer(self, run: _Run, sql: str, result: QueryResult, path: SqlPath) -> Answer:
        if result.note:  # which cap stopped the rows, and how many long values were cut
            run.notes.append(result.note)
        elif result.truncated:
            run.notes.append(f"Showing the first {len(result.rows):,} rows; the query returned more.")
        display = run.recall.display() if run.recall is not None else {}
        if display and not NumberFormat.of(display).touches(result.columns, result.rows):
            shown_ids = {r.memory.id for r in run.recall.memories if r.kind == "display"} if run.recall else set()
            run.applied = [m for m in run.applied if m.id not in shown_ids]  # nothing here to format
        if run.applied:
            run.notes.append("Applied your memories: " + "; ".join(m.content for m in run.applied) + ".")
        return Answer(
            question=run.question,
            sql=sql,
            columns=result.columns,
            rows=result.rows,
            truncated=result.truncated,
            path=path,
            notes=tuple(run.notes),
            timings=dict(run.timings),
            rejected_sql=run.rejected_sql,
            rejected_reason=run.rejected_reason,
            memories=tuple(run.applied),
            display=display,
            alternatives=tuple(run.alternatives),
        )

    def _failed(self, run: _Run, exc: CairnError) -> Answer:
        return Answer(
            question=run.question,
            notes=tuple(run.notes),
            timings=dict(run.timings),
            rejected_sql=run.rejected_sql,
            rejected_reason=run.rejected_reason,
            error=str(exc),
            error_kind=type(exc).__name__,
            hint=exc.hint,
        )
