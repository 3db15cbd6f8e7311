"""Finished evaluation runs, kept on this machine for the quality dashboard: one JSON line per run in
``<data dir>/eval_runs.jsonl`` (0600), with time, model, Cairn version, set and the headline figures.

Only a finished run is recorded (a stopped one is once ``--resume`` finishes it). Reading is lenient per line: a
line that is not whole or holds a field of the wrong type is skipped, never the file.
"""

from __future__ import annotations

import datetime as _dt
import json
import logging
import math
import os
from dataclasses import asdict, dataclass, field, fields
from importlib import metadata
from pathlib import Path
from typing import Any

from core.config import data_dir
from core.errors import ConfigError
from core.private_files import private_opener

__all__ = ["RunSummary", "cairn_version", "list_runs", "record_run", "runs_path"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunSummary:
    finished_at: str  # ISO time, UTC
    model: str
    version: str
    set_name: str
    questions: int
    answered: int
    accuracy: float | None
    baseline_accuracy: float | None = None
    by_path: dict[str, float | None] = field(default_factory=dict)
    by_category: dict[str, float | None] = field(default_factory=dict)
    latency_p50_s: float = 0.0
    latency_p95_s: float = 0.0
    prompt_tokens_mean: float = 0.0
    complete: bool = True

    @classmethod
    def from_summary(cls, summary: dict[str, Any], *, model: str, set_name: str) -> RunSummary:
        cairn = summary["modes"].get("cairn", {})
        bare = summary["modes"].get("bare")
        return cls(
            finished_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            model=model, version=cairn_version(), set_name=set_name, questions=summary["questions"],
            answered=cairn.get("answered", 0), accuracy=cairn.get("accuracy"),
            baseline_accuracy=bare.get("accuracy") if bare else None,
            by_path={k: v["accuracy"] for k, v in cairn.get("by_path", {}).items()},
            by_category={k: v["accuracy"] for k, v in cairn.get("by_category", {}).items()},
            latency_p50_s=cairn.get("latency_p50_s", 0.0), latency_p95_s=cairn.get("latency_p95_s", 0.0),
            prompt_tokens_mean=cairn.get("prompt_tokens_mean", 0.0),
            complete=bool(summary["modes"]) and all(m.get("answered", 0) >= summary["questions"]
                                                     for m in summary["modes"].values()),
        )


def cairn_version() -> str:
    try:
        return metadata.version("cairn-sql")
    except metadata.PackageNotFoundError:
        return "unknown"


def runs_path() -> Path:
    return data_dir() / "eval_runs.jsonl"


_HINT = "Move {path} aside (Cairn starts a new one), or check the data folder's permissions."


def record_run(run: RunSummary, path: Path | None = None) -> None:
    """Append one run: a whole line, on a line of its own (after a torn last line too), flushed.

    Raises ConfigError when the file cannot be written (a folder in its place, no permission, disk full).
    """
    target = path or runs_path()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "a+b", opener=private_opener) as out:
            out.seek(0, os.SEEK_END)
            if out.tell():
                out.seek(-1, os.SEEK_END)
                if out.read(1) != b"\n":
                    out.write(b"\n")  # a torn last line stays alone on its line
            out.write((json.dumps(asdict(run), ensure_ascii=False) + "\n").encode("utf-8", "backslashreplace"))
            out.flush()
            os.fsync(out.fileno())
    except OSError as exc:
        raise ConfigError(f"Cannot record the run in {target}: {exc.strerror or exc}",
                          hint=_HINT.format(path=target)) from exc


def list_runs(path: Path | None = None) -> list[RunSummary]:
    """Every recorded run, oldest first; damaged lines (not JSON, a field missing or of the wrong type) are skipped.

    Raises ConfigError when the file is there but cannot be read (a folder in its place, no permission).
    """
    source = path or runs_path()
    try:
        lines = source.read_text(encoding="utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise ConfigError(f"Cannot read the evaluation runs in {source}: {exc.strerror or exc}",
                          hint=_HINT.format(path=source)) from exc
    runs = []
    for line in lines:
        run = _parse_run(line)
        if run is None:
            logger.info("skipped a damaged line of the eval runs file")
        else:
            runs.append(run)
    return sorted(runs, key=lambda r: r.finished_at)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _rates(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(k, str) and (v is None or _number(v)) for k, v in value.items())


_CHECKS: dict[str, Any] = {
    "finished_at": lambda v: isinstance(v, str), "model": lambda v: isinstance(v, str),
    "version": lambda v: isinstance(v, str), "set_name": lambda v: isinstance(v, str),
    "questions": lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
    "answered": lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
    "accuracy": lambda v: v is None or _number(v), "baseline_accuracy": lambda v: v is None or _number(v),
    "by_path": _rates, "by_category": _rates, "latency_p50_s": _number, "latency_p95_s": _number,
    "prompt_tokens_mean": _number, "complete": lambda v: isinstance(v, bool),
}


def _parse_run(line: str) -> RunSummary | None:
    """One line as a run, or None when it is not one (fields a newer Cairn added are ignored)."""
    try:
        raw = json.loads(line)
    except (json.JSONDecodeError, RecursionError):
        return None
    if not isinstance(raw, dict):
        return None
    known = {f.name for f in fields(RunSummary)}
    values = {k: v for k, v in raw.items() if k in known}
    if not all(check(values[name]) for name, check in _CHECKS.items() if name in values):
        return None
    try:
        return RunSummary(**values)
    except TypeError:  # a required field missing
        return None
