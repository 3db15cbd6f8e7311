"""Finished evaluation runs, kept on this machine for the quality dashboard: one JSON line per run in
``<data dir>/eval_runs.jsonl`` (0600), with time, model, Cairn version, set and the headline figures."""

from __future__ import annotations

import datetime as _dt
import json
import logging
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from core.config import data_dir
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
            complete=cairn.get("answered", 0) >= summary["questions"],
        )


def cairn_version() -> str:
    try:
        return metadata.version("cairn-sql")
    except metadata.PackageNotFoundError:
        return "unknown"


def runs_path() -> Path:
    return data_dir() / "eval_runs.jsonl"


def record_run(run: RunSummary, path: Path | None = None) -> None:
    """Append one run (a whole line, flushed)."""
    target = path or runs_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "a", encoding="utf-8", opener=private_opener) as out:
        out.write(json.dumps(asdict(run), ensure_ascii=False) + "\n")


def list_runs(path: Path | None = None) -> list[RunSummary]:
    """Every recorded run, oldest first; damaged lines are skipped."""
    try:
        lines = (path or runs_path()).read_text(encoding="utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return []
    runs = []
    for line in lines:
        try:
            runs.append(RunSummary(**json.loads(line)))
        except (json.JSONDecodeError, TypeError):
            logger.info("skipped a damaged line of the eval runs file")
    return sorted(runs, key=lambda r: r.finished_at)
