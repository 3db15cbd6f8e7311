"""``cairn eval --set FILE``: execution accuracy of Cairn with your model on a question set with gold SQL.

    cairn eval --set questions.csv [--model M] [--baseline bare] [--limit N] [--resume] [--report DIR]
               [--data-dir FOLDER | --db-url 'postgresql://…/{db}' | --db DB] [--json]

Writes ``results.jsonl`` (one line per answered question, as it goes), ``report.json`` and ``report.md`` to the
report folder (default ``./cairn-eval-<set name>``), and records the run for the window's quality dashboard.
Ctrl+C stops between questions with everything so far kept; ``--resume`` continues from there.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path
from typing import Any

from core.cli._output import print_json, say
from core.composition import Services
from core.config import Settings
from core.errors import InputError, ModelNotFound
from core.evaluation import (
    RunSummary,
    Runner,
    load_set,
    markdown_report,
    record_run,
    report_json,
    summarize,
)

__all__ = ["add_eval_parser"]

EXIT_CANCELLED = 130


def add_eval_parser(sub: Any) -> None:
    p = sub.add_parser("eval", help="measure execution accuracy on a question set with gold SQL")
    p.add_argument("--set", required=True, type=Path, metavar="FILE",
                   help="CSV or JSON lines: question, gold_sql (or query), db or db_name, category")
    p.add_argument("--model", help="the Ollama model to evaluate (default: the one in settings)")
    p.add_argument("--baseline", choices=["bare"], help="also run the model alone with a plain prompt, side by side")
    p.add_argument("--limit", type=int, metavar="N", help="only the first N questions")
    p.add_argument("--resume", action="store_true", help="continue a stopped run in the same report folder")
    p.add_argument("--report", type=Path, metavar="DIR", help="where results and reports go")
    p.add_argument("--data-dir", type=Path, metavar="FOLDER", help="where <db_name>.sqlite files are")
    p.add_argument("--db-url", metavar="TEMPLATE", help="URL for a db_name, e.g. postgresql://me@host/{db}")
    p.add_argument("--db", help="one database for every question (URL or SQLite path)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=_cmd_eval)


class _Progress:
    """``  12/50 [#####.....]  24%  ETA 1m 20s`` on stderr, redrawn in place on a terminal."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.first: int | None = None
        self.tty = sys.stderr.isatty()

    def __call__(self, done: int, total: int) -> None:
        if self.first is None:
            self.first = done - 1
        rate_done = done - self.first
        elapsed = time.monotonic() - self.started
        eta = elapsed / rate_done * (total - done) if rate_done else 0.0
        width = 20
        bar = "#" * int(width * done / total) + "." * (width - int(width * done / total))
        line = f"  {done}/{total} [{bar}] {100 * done // total:3d}%  ETA {_duration(eta)}"
        if self.tty:
            print("\r" + line, end="" if done < total else "\n", file=sys.stderr, flush=True)
        elif done == total or done % 10 == 0:
            print(line, file=sys.stderr, flush=True)


def _check_model(settings: Settings) -> None:
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


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 60}m {seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


def _cmd_eval(args: argparse.Namespace, settings: Settings) -> int:
    if args.limit is not None and args.limit < 1:
        raise InputError("--limit must be 1 or more.", hint="For example: --limit 20")
    items = load_set(args.set, data_dir=args.data_dir, db_url=args.db_url, db=args.db, limit=args.limit)
    report_dir = args.report or Path(f"cairn-eval-{args.set.stem}")
    results_path = report_dir / "results.jsonl"
    if results_path.exists() and not args.resume:
        raise InputError(f"{results_path} holds an earlier run.",
                         hint="Add --resume to continue it, or give another --report folder.")
    if args.model:
        settings = dataclasses.replace(settings, model=args.model)
    _check_model(settings)
    services = Services(settings)
    runner = Runner(services.pipeline, baseline=args.baseline == "bare")
    say(f"Evaluating {settings.model} on {len(items)} question(s) from {args.set.name}"
        + (", beside the bare model" if args.baseline else "") + f"; results in {report_dir}/", file=sys.stderr)
    stopped = False
    try:
        results = runner.run(items, results_path, resume=args.resume, progress=_Progress())
    except KeyboardInterrupt:
        stopped = True
        from core.evaluation import read_results

        results = read_results(results_path)
    finally:
        services.close()
    summary = summarize(results, total=len(items))
    title = f"cairn eval: {settings.model} on {args.set.name}"
    (report_dir / "report.json").write_text(report_json(summary) + "\n", encoding="utf-8")
    (report_dir / "report.md").write_text(markdown_report(summary, title=title), encoding="utf-8")
    record_run(RunSummary.from_summary(summary, model=settings.model, set_name=args.set.name))
    if args.json:
        print_json(summary)
    else:
        print(markdown_report(summary, title=title))
    if stopped:
        answered = summary["modes"].get("cairn", {}).get("answered", 0)
        say(f"Stopped after {answered} of {len(items)} question(s). Run the same command with --resume to go on.",
            file=sys.stderr)
        return EXIT_CANCELLED
    return 0
