"""One evaluation run from a set file to recorded figures: what ``cairn eval`` and the window's dashboard both do.

Checks everything a run needs before the first question (the set, that the report folder can be written, an
earlier run to resume and that it was made with the same options, the model, every database of the set), writes
``run.json`` (what the run is: model, the set's sha256, baseline, limit), asks the questions (resuming when asked),
writes ``results.jsonl``, ``report.json`` and ``report.md`` to the report folder, and records the run for the
dashboard once it is finished, once. Stopping (``should_stop`` or Ctrl+C) keeps everything answered so far.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.composition import Services
from core.config import Settings, write_json_atomic
from core.errors import CairnError, DatabaseError, DatabaseUnavailable, InputError, ModelNotFound
from core.evaluation._report import markdown_report, summarize, write_reports
from core.evaluation._runner import Progress, Runner
from core.evaluation._runs import RunSummary, record_run
from core.evaluation._sets import EvalItem, load_set, set_digest
from core.private_files import foreign_link_on_path, make_private_dir
from core.text import counted

__all__ = ["EvalOptions", "EvalOutcome", "check_databases", "check_model", "evaluate"]

RUN_FILE = "run.json"
_FOLDER_HINT = "Choose a folder you can write to with --report DIR."


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
    recorded: bool = False  # the run is in the dashboard's runs (now, or by an earlier --resume)
    warnings: tuple[str, ...] = ()  # what went wrong after the report was written (recording the run)
    interruption: KeyboardInterrupt | None = None  # what stopped the run, when it was Ctrl+C or SIGTERM


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


def check_databases(items: Sequence[EvalItem]) -> None:
    """Open every database of the set once and read its schema: an unreachable or unreadable one fails the run
    at once (a DatabaseError naming it, password hidden), not as a "gold error" on each of its questions."""
    from core.databases import open_target, redact_url

    for target in dict.fromkeys(item.db for item in items):
        try:
            database = open_target(target)
            try:
                database.schema()
            finally:
                database.close()
        except CairnError as exc:
            kind = type(exc) if isinstance(exc, DatabaseError) else DatabaseUnavailable
            raise kind(f"Cannot use the database {redact_url(target)} of the set: {exc.message}",
                       hint=exc.hint) from exc


def _prepare_folder(folder: Path) -> list[Path]:
    """Create the report folder (0700 when it is new) and check a file can be written there; returns the folders
    created, innermost first, to remove again if the run does not start. Raises InputError."""
    created: list[Path] = []
    planted = foreign_link_on_path(folder / "results.jsonl")
    if planted is not None:
        raise InputError(f"The report folder {folder} is reached through {planted}, a link another account made.",
                         hint="Choose a report folder of your own with --report DIR.")
    try:
        created = [p for p in (folder, *folder.parents) if not p.exists()]
        if folder.exists() and not folder.is_dir():
            raise InputError(f"The report folder {folder} is a file, not a folder.", hint=_FOLDER_HINT)
        folder.mkdir(parents=True, exist_ok=True)
        if folder in created:
            make_private_dir(folder)
        fd, probe = tempfile.mkstemp(prefix=".cairn-write-check.", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        _remove(created)
        raise InputError(f"Cannot write to the report folder {folder}: {exc.strerror or exc}",
                         hint=_FOLDER_HINT) from exc
    except BaseException:
        _remove(created)
        raise
    return created


def _remove(created: list[Path]) -> None:
    for folder in created:
        try:
            folder.rmdir()
        except OSError:
            return


def _identity(options: EvalOptions, model: str) -> dict[str, Any]:
    """What a run is: a --resume must match it, or its answers would mix with another run's."""
    return {"model": model, "set_sha256": set_digest(options.set_path), "set_name": options.set_path.name,
            "baseline": options.baseline, "limit": options.limit}


_COMPARED = (("model", "--model"), ("set_sha256", "the set file's contents (sha256)"), ("baseline", "--baseline"),
             ("limit", "--limit"))


def _shown(key: str, value: Any) -> str:
    if key == "baseline":
        return "bare" if value else "none"
    if key == "limit":
        return "all questions" if value is None else str(value)
    if key == "set_sha256" and isinstance(value, str):
        return value[:12] + "…"
    return repr(value)


def _earlier_run(options: EvalOptions, identity: dict[str, Any], results_path: Path) -> dict[str, Any] | None:
    """The ``run.json`` of the run to resume (None: a fresh run, or a run from before ``run.json`` was kept).
    Raises InputError: a run in the way, nothing to resume, or one made with other options."""
    folder = options.report_dir
    if not options.resume:
        if results_path.exists():
            raise InputError(f"{results_path} holds an earlier run.",
                             hint="Resume it (--resume), or choose another report folder.")
        return None
    run_file = folder / RUN_FILE
    try:
        earlier = json.loads(run_file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        if results_path.exists():
            return None  # answered by a Cairn that kept no run.json: nothing to check it against
        raise InputError(f"There is no earlier run to resume in {folder}.",
                         hint="Run the same command without --resume to start one, or give the stopped run's "
                              "folder with --report DIR.") from None
    except (OSError, ValueError) as exc:
        raise InputError(f"Cannot read {run_file}: {exc}",
                         hint="Start afresh in another report folder (--report DIR).") from exc
    if not isinstance(earlier, dict):
        raise InputError(f"{run_file} is damaged.", hint="Start afresh in another report folder (--report DIR).")
    differences = [f"{label}: {_shown(key, earlier.get(key))} then, {_shown(key, identity[key])} now"
                   for key, label in _COMPARED if earlier.get(key) != identity[key]]
    if differences:
        raise InputError(f"The run in {folder} was made with other options ({'; '.join(differences)}); resuming "
                         "would mix its answers with this run's.",
                         hint="Resume with the same --model, set file, --limit and --baseline as before, or start "
                              "afresh in another report folder (--report DIR).")
    return earlier


def _write_run_file(folder: Path, payload: dict[str, Any]) -> None:
    try:
        write_json_atomic(folder / RUN_FILE, payload)
    except OSError as exc:
        raise InputError(f"Cannot write {folder / RUN_FILE}: {exc.strerror or exc}", hint=_FOLDER_HINT) from exc


def evaluate(options: EvalOptions, settings: Settings, *, progress: Progress | None = None,
             should_stop: Callable[[], bool] = lambda: False, announce: Callable[[str], None] = lambda _t: None,
             ) -> EvalOutcome:
    """Run the set. Before the first question raises InputError (a bad set or report folder, a finished run in
    the way, a --resume that does not match), an LLM error (no model) or a DatabaseError (a database of the set)."""
    if options.limit is not None and options.limit < 1:
        raise InputError("The question limit must be 1 or more.", hint="For example: --limit 20")
    items = load_set(options.set_path, data_dir=options.data_dir, db_url=options.db_url, db=options.db,
                     limit=options.limit)
    if options.model:
        settings = dataclasses.replace(settings, model=options.model)
    identity = _identity(options, settings.model)
    results_path = options.report_dir / "results.jsonl"
    created = _prepare_folder(options.report_dir)
    try:
        earlier = _earlier_run(options, identity, results_path)
        check_model(settings)
        check_databases(items)
        recorded = bool(earlier and earlier.get("recorded") is True)
        _write_run_file(options.report_dir, {**identity, "recorded": recorded})
    except BaseException:
        _remove(created)
        raise
    announce(f"Evaluating {settings.model} on {counted(len(items), 'question')} from {options.set_path.name}"
             + (", beside the bare model" if options.baseline else "") + f"; results in {options.report_dir}/")
    services = Services(settings)
    interruption: KeyboardInterrupt | None = None
    runner = Runner(services.pipeline, baseline=options.baseline)
    try:
        if progress is not None:  # where the run starts (0, or what a resumed run has), before the first answer
            progress(_finished(runner, items, results_path) if options.resume else 0, len(items))
        results = runner.run(items, results_path, resume=options.resume, progress=progress, should_stop=should_stop)
    except KeyboardInterrupt as exc:
        interruption = exc
        results = runner.kept(items, results_path)
    finally:
        services.close()
    summary = summarize(results, total=len(items))
    title = f"cairn eval: {settings.model} on {options.set_path.name}"
    markdown = markdown_report(summary, title=title)
    write_reports(options.report_dir, summary, markdown)
    run = RunSummary.from_summary(summary, model=settings.model, set_name=options.set_path.name)
    stopped = not run.complete and (interruption is not None or should_stop())
    warnings: list[str] = []
    if run.complete and not recorded:  # a stopped run is recorded when --resume finishes it; a finished one once
        try:
            record_run(run)
            recorded = True
            _write_run_file(options.report_dir, {**identity, "recorded": True})
        except CairnError as exc:
            warnings.append(f"{exc.message} ({exc.hint})")
    return EvalOutcome(summary, markdown, run, stopped, len(items), recorded=recorded, warnings=tuple(warnings),
                       interruption=interruption)


def _finished(runner: Runner, items: Sequence[EvalItem], results_path: Path) -> int:
    """Questions a resumed run has answered in every mode already."""
    done = {(r.index, r.mode) for r in runner.kept(items, results_path)}
    return sum(1 for item in items if all((item.index, mode) in done for mode in runner.modes))
