"""What an evaluation run comes to: execution accuracy overall, by category and by path, latency and prompt
tokens, per mode (Cairn, and the bare baseline when asked), as JSON and as a markdown table."""

from __future__ import annotations

import json
import math
import os
import tempfile
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from core.config import write_json_atomic
from core.evaluation._runner import MODES, ItemResult

__all__ = ["markdown_report", "percentile", "report_json", "summarize", "write_reports"]


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (0 when there are no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, math.ceil(q * len(ordered) / 100 - 1e-9) - 1))  # the ceil(q·n)-th
    return ordered[rank]


def _tally(results: Iterable[ItemResult]) -> dict[str, Any]:
    scored = [r for r in results if r.correct is not None]
    right = sum(1 for r in scored if r.correct)
    return {"n": len(scored), "correct": right, "accuracy": round(right / len(scored), 4) if scored else None}


def summarize(results: Sequence[ItemResult], *, total: int) -> dict[str, Any]:
    """The report's numbers. ``total``: questions in the set (a stopped run has answered fewer)."""
    out: dict[str, Any] = {"questions": total, "modes": {}}
    for mode in MODES:
        mine = [r for r in results if r.mode == mode]
        if not mine:
            continue
        by_category: dict[str, list[ItemResult]] = defaultdict(list)
        by_path: dict[str, list[ItemResult]] = defaultdict(list)
        for r in mine:
            by_category[r.category or "(none)"].append(r)
            by_path[r.path or "no answer"].append(r)
        latencies = [r.latency_s for r in mine if r.correct is not None]
        tokens = [r.prompt_tokens for r in mine if r.correct is not None]
        out["modes"][mode] = {
            **_tally(mine),
            "answered": len(mine),  # processed: a stopped run has processed fewer than the set
            "shown": sum(1 for r in mine if r.path is not None and r.correct is not None),  # rows shown as answer
            "wrong_shown": sum(1 for r in mine if r.path is not None and r.correct is False),
            "no_answer": sum(1 for r in mine if r.path is None),
            "gold_errors": sum(1 for r in mine if r.correct is None),
            "by_category": {k: _tally(v) for k, v in sorted(by_category.items())},
            "by_path": {k: _tally(v) for k, v in sorted(by_path.items())},
            "latency_p50_s": round(percentile(latencies, 50), 3),
            "latency_p95_s": round(percentile(latencies, 95), 3),
            "prompt_tokens_mean": round(sum(tokens) / len(tokens), 1) if tokens else 0,
        }
    return out


def _pct(tally: dict[str, Any] | None) -> str:
    if not tally or tally.get("accuracy") is None:
        return "—"
    return f"{100 * tally['accuracy']:.1f}% ({tally['correct']}/{tally['n']})"


_LINE_BREAKS = frozenset("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")


def markdown_text(text: str) -> str:
    """Text from a set (a category, a file name) safe inside a markdown table row: ``|`` escaped, line breaks
    as spaces, other control characters as ``\\xNN``, so it cannot split the row or reach a terminal raw."""
    out = []
    for ch in str(text):
        if ch == "|":
            out.append("\\|")
        elif ch in _LINE_BREAKS:
            out.append(" ")
        elif unicodedata.category(ch) == "Cc" and ch != "\t":
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return "".join(out)


def markdown_report(summary: dict[str, Any], *, title: str) -> str:
    """The summary as markdown: one column per mode, side by side."""
    modes = [m for m in MODES if m in summary["modes"]]
    head = "| | " + " | ".join("Cairn" if m == "cairn" else "bare model" for m in modes) + " |"
    rule = "|---|" + "---|" * len(modes)
    lines = [f"# {markdown_text(title)}", "", head, rule]

    def row(label: str, cell: Any) -> None:
        lines.append(f"| {label} | " + " | ".join(cell(summary["modes"][m]) for m in modes) + " |")

    row("**execution accuracy**", lambda s: f"**{_pct(s)}**")
    row("processed / in set", lambda s: f"{s['answered']} / {summary['questions']}")
    row("answers shown / wrong shown / no answer",
        lambda s: f"{s.get('shown', 0)} / {s.get('wrong_shown', 0)} / {s.get('no_answer', 0)}")
    row("gold errors (not scored)", lambda s: str(s["gold_errors"]))
    row("latency p50 / p95", lambda s: f"{s['latency_p50_s']:.2f} s / {s['latency_p95_s']:.2f} s")
    row("prompt tokens (mean)", lambda s: f"{s['prompt_tokens_mean']:.0f}")
    categories = sorted({c for m in modes for c in summary["modes"][m]["by_category"]})
    paths = sorted({p for m in modes for p in summary["modes"][m]["by_path"]})
    for c in categories:
        row(f"category {markdown_text(c)}", lambda s, c=c: _pct(s["by_category"].get(c)))
    for p in paths:
        row(f"path {p}", lambda s, p=p: _pct(s["by_path"].get(p)))
    return "\n".join(lines) + "\n"


def report_json(summary: dict[str, Any]) -> str:
    return json.dumps(summary, indent=2, ensure_ascii=False)


def write_reports(folder: Path, summary: dict[str, Any], markdown: str) -> None:
    """``report.json`` and ``report.md`` in ``folder``, each replaced whole (0600): a crash leaves the old one."""
    folder.mkdir(parents=True, exist_ok=True)
    write_json_atomic(folder / "report.json", summary)
    fd, tmp = tempfile.mkstemp(prefix=".report.md.", dir=folder)  # mode 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(markdown)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, folder / "report.md")
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
