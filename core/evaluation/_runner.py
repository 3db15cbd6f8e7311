"""Running a question set: each question asked through the real pipeline (and, for ``--baseline bare``, the same
model with a plain schema + question prompt and nothing else: its SQL passes the read-only guard only if the guard
need not rewrite it, and runs as written), scored against the gold rows.

Results are appended to a JSON-lines file, one line per finished question and mode, flushed as they come: a run
stopped by Ctrl+C (or a crash) keeps every answered question, and ``--resume`` skips them. A torn last line is
ignored. The gold SQL runs through the same read-only guard as any other SQL; gold that fails is reported as a gold
error and not counted against the model. Nothing is retried against the gold.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import logging
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from sqlglot.errors import SqlglotError

from core.config import ROW_CAP_MAX
from core.databases import QueryLimits
from core.errors import CairnError, InputError, SQLRejected
from core.evaluation._compare import compare_results, gold_orders, order_keys
from core.evaluation._sets import EvalItem
from core.private_files import private_opener
from core.prompt import dialect_label, estimate_tokens, render_schema_block
from core.sql import extract_queries, guard, parse_statements

__all__ = ["MODES", "ItemResult", "Runner", "read_results"]

logger = logging.getLogger(__name__)

MODES = ("cairn", "bare")
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class ItemResult:
    index: int
    id: str
    mode: str  # "cairn": the whole pipeline; "bare": the model with a plain prompt, its SQL run as written
    category: str
    correct: bool | None  # None: the gold query itself failed, not scored
    path: str | None  # llm / repaired / fallback (cairn), bare, or None when no answer came back
    latency_s: float
    prompt_tokens: int
    sql: str | None = None
    reason: str = ""

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)


def read_results(path: Path) -> list[ItemResult]:
    """The results file as far as it is whole (a torn or damaged line is skipped)."""
    out: list[ItemResult] = []
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return out
    for line in lines:
        try:
            out.append(ItemResult(**json.loads(line)))
        except (json.JSONDecodeError, TypeError):
            logger.info("skipped a damaged line of %s", path)
    return out


class _CountingLLM:
    """The model, counting the prompt tokens of every call (as the server reports them, else estimated)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.model = inner.model
        self.tokens = 0
        self.last_done_reason = ""

    def chat(self, system: str, user: str, *, options: Any = None, format: Any = None) -> str:  # noqa: A002
        reply = self.inner.chat(system, user, options=options, **({"format": format} if format is not None else {}))
        counted = int(getattr(self.inner, "last_prompt_tokens", 0) or 0)
        self.tokens += counted or estimate_tokens(system + "\n" + user)
        self.last_done_reason = getattr(self.inner, "last_done_reason", "")
        return reply


@dataclass(frozen=True)
class _Gold:
    rows: tuple[tuple[Any, ...], ...]
    ordered: bool
    keys: tuple[int, ...] | None = None  # the gold's sort columns: ties may come in any order


class Runner:
    """Runs items through pipelines from ``pipeline_for(db)`` (``Services.pipeline``)."""

    def __init__(self, pipeline_for: Callable[[str], Any], *, baseline: bool = False) -> None:
        self._pipeline_for = pipeline_for
        self.modes = MODES if baseline else MODES[:1]

    def run(self, items: Sequence[EvalItem], results_path: Path, *, resume: bool = False,
            progress: Progress | None = None, should_stop: Callable[[], bool] = lambda: False) -> list[ItemResult]:
        """Answer every item not yet in ``results_path`` (all of them unless ``resume``); returns all results.
        Stops between questions when ``should_stop()`` (or on KeyboardInterrupt, which propagates) with the
        file complete up to there."""
        done = self.kept(items, results_path) if resume else []
        finished = {(r.index, r.mode) for r in done}
        results_path.parent.mkdir(parents=True, exist_ok=True)
        todo = [i for i in items if any((i.index, m) not in finished for m in self.modes)]
        total = len(items)
        mode = "a" if resume else "w"
        try:
            results = open(results_path, mode, encoding="utf-8", opener=private_opener)  # noqa: SIM115 - with below
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                raise
            raise InputError(f"{results_path} is a symbolic link; Cairn appends only to a results file it made.",
                             hint="Remove the link, or start afresh in another report folder (--report DIR).") from exc
        with results as out:
            if resume and results_path.stat().st_size and not _ends_with_newline(results_path):
                out.write("\n")  # a torn last line stays alone on its line
            count = total - len(todo)
            for item in todo:
                if should_stop():
                    break
                for result in self._item(item, {m for m in self.modes if (item.index, m) not in finished}):
                    out.write(result.to_json() + "\n")
                    out.flush()
                    os.fsync(out.fileno())
                    done.append(result)
                count += 1
                if progress is not None:
                    progress(count, total)
        return done

    def kept(self, items: Sequence[EvalItem], results_path: Path) -> list[ItemResult]:
        """The results in the file that belong to this run: its questions (a resumed run with a smaller --limit
        reports only its own) and its modes."""
        wanted = {i.index for i in items}
        return [r for r in read_results(results_path) if r.index in wanted and r.mode in self.modes]

    def _item(self, item: EvalItem, modes: set[str]) -> Iterator[ItemResult]:
        try:
            pipeline = self._pipeline_for(item.db)
            if getattr(pipeline, "settings", None) is not None and pipeline.settings.row_cap < ROW_CAP_MAX:
                # scoring needs whole results: a capped answer would match a capped gold by accident
                pipeline.settings = dataclasses.replace(pipeline.settings, row_cap=ROW_CAP_MAX)
            golds = self._golds(pipeline, item)
        except CairnError as exc:
            for mode in sorted(modes):
                yield ItemResult(item.index, item.id, mode, item.category, None, None, 0.0, 0,
                                 reason=f"database: {exc.message}")
            return
        for mode in self.modes:
            if mode in modes:
                yield self._answer(pipeline, item, golds, mode)

    def _golds(self, pipeline: Any, item: EvalItem) -> list[_Gold]:
        dialect = pipeline.database.dialect
        out = []
        for sql in item.gold:
            try:
                guarded = guard(sql, dialect)
                result = pipeline.database.execute(guarded.sql, limits=self._limits(pipeline))
            except CairnError as exc:
                logger.info("gold of %s failed: %s", item.id, exc)
                continue
            if result.truncated:
                logger.info("gold of %s has more than %d rows: not scored", item.id, ROW_CAP_MAX)
                continue
            out.append(_Gold(tuple(tuple(r) for r in result.rows), gold_orders(guarded.expression),
                             order_keys(guarded.expression)))
        return out

    @staticmethod
    def _limits(pipeline: Any) -> QueryLimits:
        limits = getattr(pipeline, "limits", None)
        return limits if isinstance(limits, QueryLimits) else QueryLimits()

    def _answer(self, pipeline: Any, item: EvalItem, golds: list[_Gold], mode: str) -> ItemResult:
        counting = _CountingLLM(pipeline.llm) if pipeline.llm is not None else None
        started = time.perf_counter()
        rows: tuple[tuple[Any, ...], ...] = ()
        sql: str | None = None
        path: str | None = None
        reason = ""
        try:
            if mode == "cairn":
                original, pipeline.llm = pipeline.llm, counting or pipeline.llm
                try:
                    answer = pipeline.ask(item.question)
                finally:
                    pipeline.llm = original
                sql, path, rows = answer.sql, answer.path, tuple(tuple(r) for r in answer.rows)
                if answer.error:
                    path, reason = None, f"no answer: {answer.error}"
            else:
                sql, rows = self._bare(pipeline, counting, item.question)
                path = "bare"
        except CairnError as exc:
            path, reason = None, f"{type(exc).__name__}: {exc.message}"
        latency = time.perf_counter() - started
        tokens = counting.tokens if counting is not None else 0
        if not golds:
            return ItemResult(item.index, item.id, mode, item.category, None, path, latency, tokens, sql,
                              "the gold query failed")
        correct = False
        if path is not None:
            checks = [compare_results(g.rows, rows, ordered=g.ordered, keys=g.keys) for g in golds]
            correct = any(c.same for c in checks)
            reason = "" if correct else checks[0].reason
        return ItemResult(item.index, item.id, mode, item.category, correct, path, latency, tokens, sql, reason)

    def _bare(self, pipeline: Any, llm: Any, question: str) -> tuple[str, tuple[tuple[Any, ...], ...]]:
        """The model alone: the whole schema and the question, its SQL extracted and run as written."""
        if llm is None:
            raise CairnError("No model is configured", hint="Set a model with --model or in settings.")
        schema = pipeline.load_schema()
        system = (f"You are a {dialect_label(schema.dialect)} expert. Write one SQL query that answers the question. "
                  "Output only the SQL.")
        user = f"Database schema:\n{render_schema_block(schema)}\n\nQuestion: {question}"
        sql = extract_queries(llm.chat(system, user), finished=True)[0]  # as written: no judgement of a cut
        guarded = guard(sql, schema.dialect)
        if guarded.sql != _as_written(sql, schema.dialect):
            # The guard's dialect rewrites are Cairn's work: the bare model gets only the safety check.
            raise SQLRejected(f"not {dialect_label(schema.dialect)} as written (Cairn's guard rewrote it)",
                              hint="The bare baseline runs the model's SQL as written.")
        # Checked read-only by the guard, then run as the model wrote it: a dialect's spelling the parser would
        # print differently (FETCH FIRST on SQLite) is the database's to accept or reject, not Cairn's to translate.
        written = sql.strip().rstrip(";").strip()
        result = pipeline.database.execute(written, limits=self._limits(pipeline))
        return written, tuple(tuple(r) for r in result.rows)


def _as_written(sql: str, dialect: str) -> str | None:
    """The SQL read in the target dialect alone and printed back, as the guard prints what it did not change."""
    try:
        statements = parse_statements(sql, dialect)
    except (SqlglotError, RecursionError):
        return None
    return statements[0].sql(dialect=dialect, comments=False) if len(statements) == 1 else None


def _ends_with_newline(path: Path) -> bool:
    with open(path, "rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"
