"""One evaluation run from a set file to recorded figures: what ``cairn eval`` and the window's dashboard both do.

Checks the model first, asks the questions (resuming when asked), writes ``results.jsonl``, ``report.json`` and
``report.md`` to the report folder, and records the run for the dashboard. Stopping (``should_stop`` or Ctrl+C)
keeps everything answered so far.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.composition import Services
from core.config import Settings
from core.errors import InputError, ModelNotFound
from core.evaluation._report import markdown_report, summarize, write_reports
from core.evaluation._runner import Progress, Runner
from core.evaluation._runs import RunSummary, record_run
from core.evaluation._sets import load_set

__all__ = ["EvalOptions", "EvalOutcome", "check_model", "evaluate"]


@dataclass(frozen=True)
class EvalOptions:
    set_path: Path
    report_dir: Path
    model: str | None = None
    baseline: bool = False
    resume: bool = False
    limit: int | None = None
    data_dir: Path | None = None
    db_url: str | None = None
    db: str | None = None


@dataclass(frozen=True)
class EvalOutcome:
    summary: dict[str, Any]
    markdown: str
    run: RunSummary
    stopped: bool
    questions: int


def check_model(settings: Settings) -> None:
    """The run measures a model: say at once when Ollama or the model is missing, not after every question."""
    from core.llm import OllamaLLM

    llm = OllamaLLM(settings.ollama_host, settings.model, timeout_s=min(settings.llm_timeout_s, 10.0))
    try:
        names = {m.name for m in llm.list_models()}
    finally:
        llm.close()
    wanted = settings.model if ":" in settings.model else f"{settings.model}:latest"
    if settings.model not in names and wanted not in names:
        raise ModelNotFound(f"The model {settings.model!r} is not installed in Ollama at {settings.ollama_host}.",
                            hint=f"Run `ollama pull {settings.model}`, or pick an installed one with --model "
                                 "(see `ollama list`).")


def evaluate(options: EvalOptions, settings: Settings, *, progress: Progress | None = None,
             should_stop: Callable[[], bool] = lambda: False, announce: Callable[[str], None] = lambda _t: None,
             ) -> EvalOutcome:
    """Run the set; raises InputError (bad set, a finished run in the way) or an LLM error (no model) first."""
    if options.limit is not None and options.limit < 1:
        raise InputError("The question limit must be 1 or more.", hint="For example: --limit 20")
    items = load_set(options.set_path, data_dir=options.data_dir, db_url=options.db_url, db=options.db,
                     limit=options.limit)
    results_path = options.report_dir / "results.jsonl"
    if results_path.exists() and not options.resume:
        raise InputError(f"{results_path} holds an earlier run.",
                         hint="Resume it (--resume), or choose another report folder.")
    if options.model:
        settings = dataclasses.replace(settings, model=options.model)
    check_model(settings)
    announce(f"Evaluating {settings.model} on {len(items)} question(s) from {options.set_path.name}"
             + (", beside the bare model" if options.baseline else "") + f"; results in {options.report_dir}/")
    services = Services(settings)
    stopped = False
    runner = Runner(services.pipeline, baseline=options.baseline)
    try:
        results = runner.run(items, results_path, resume=options.resume, progress=progress, should_stop=should_stop)
        stopped = should_stop()
    except KeyboardInterrupt:
        stopped = True
        results = runner.kept(items, results_path)
    finally:
        services.close()
    summary = summarize(results, total=len(items))
    title = f"cairn eval: {settings.model} on {options.set_path.name}"
    markdown = markdown_report(summary, title=title)
    write_reports(options.report_dir, summary, markdown)
    run = RunSummary.from_summary(summary, model=settings.model, set_name=options.set_path.name)
    record_run(run)
    return EvalOutcome(summary, markdown, run, stopped, len(items))
