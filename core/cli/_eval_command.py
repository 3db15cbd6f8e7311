"""``cairn eval --set FILE``: execution accuracy of Cairn with your model on a question set with gold SQL.

    cairn eval --set questions.csv [--model M] [--baseline bare] [--limit N] [--resume] [--report DIR]
               [--data-dir FOLDER | --db-url 'postgresql://…/{db}' | --db DB] [--json]

Writes ``results.jsonl`` (one line per answered question, as it goes), ``report.json`` and ``report.md`` to the
report folder (default ``./cairn-eval-<set name>``), and records the run for the window's quality dashboard.
Ctrl+C stops between questions with everything so far kept (exit 130; SIGTERM likewise, exit 143); ``--resume``
continues from there, with the same model, set file, limit and baseline (``run.json`` in the report folder says
which). Text from the set reaches the terminal escaped (``_output.say``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from core.cli._exit_codes import EXIT_CANCELLED, EXIT_TERMINATED, Terminated
from core.cli._output import print_json, say
from core.config import Settings
from core.text import counted

__all__ = ["add_eval_parser"]

_EVERY_QUESTION_UP_TO = 50  # off a terminal: a line per question for sets this small, else every 10th


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
    """``  12/50 [#####.....]  24%  ETA 1m 20s`` on stderr, redrawn in place on a terminal; elsewhere (a log) a line
    per question (every 10th for sets over 50). The first call is where the run starts (0, or what a resumed run
    had), before the first answer."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.first: int | None = None
        self.tty = sys.stderr.isatty()

    def __call__(self, done: int, total: int) -> None:
        if self.first is None:
            self.first, self.started = done, time.monotonic()  # questions done before this session
        elapsed = time.monotonic() - self.started
        eta = _duration(elapsed / (done - self.first) * (total - done)) if done > self.first else "…"
        filled = 20 * done // total
        line = f"  {done}/{total} [{'#' * filled}{'.' * (20 - filled)}] {100 * done // total:3d}%  ETA {eta}"
        if self.tty:
            print("\r" + line, end="" if done < total else "\n", file=sys.stderr, flush=True)
        elif done in (self.first, total) or total <= _EVERY_QUESTION_UP_TO or done % 10 == 0:
            print(line, file=sys.stderr, flush=True)


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 60}m {seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


def _cmd_eval(args: argparse.Namespace, settings: Settings) -> int:
    from core.evaluation import EvalOptions, evaluate  # here: every other command starts without it

    options = EvalOptions(
        set_path=args.set, report_dir=args.report or Path(f"cairn-eval-{args.set.stem}"), model=args.model,
        baseline=args.baseline == "bare", resume=args.resume, limit=args.limit, data_dir=args.data_dir,
        db_url=args.db_url, db=args.db,
    )
    outcome = evaluate(options, settings, progress=_Progress(), announce=lambda text: say(text, file=sys.stderr))
    if args.json:
        print_json(outcome.summary)
    else:
        say(outcome.markdown)
    for warning in outcome.warnings:
        say(f"Warning: {warning}", file=sys.stderr)
    if outcome.stopped:
        answered = outcome.summary["modes"].get("cairn", {}).get("answered", 0)
        say(f"Stopped after {answered} of {counted(outcome.questions, 'question')}. Run the same command with --resume to "
            "go on.", file=sys.stderr)
        return EXIT_TERMINATED if isinstance(outcome.interruption, Terminated) else EXIT_CANCELLED
    return 0
