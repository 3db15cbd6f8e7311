"""The quality dashboard's data, without Qt: evaluation runs over time (accuracy overall, beside the bare model,
by path and by category; latency) and the thumbs up/down rate per day, ready to plot. Only finished runs are
plotted: a stopped run's figures cover some of the questions and would not compare with the others."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from core.evaluation._runs import RunSummary

__all__ = ["FeedbackDay", "QualitySeries", "quality_series"]


@dataclass(frozen=True)
class FeedbackDay:
    day: str  # ISO date
    ups: int
    downs: int


@dataclass(frozen=True)
class QualitySeries:
    labels: tuple[str, ...]  # one per run: "2026-12-04 13:05 · model"
    accuracy: tuple[float | None, ...]  # percent
    baseline: tuple[float | None, ...]
    by_path: dict[str, tuple[float | None, ...]] = field(default_factory=dict)
    by_category: dict[str, tuple[float | None, ...]] = field(default_factory=dict)
    latency_p50: tuple[float, ...] = ()
    latency_p95: tuple[float, ...] = ()
    feedback_days: tuple[str, ...] = ()
    up_rate: tuple[float | None, ...] = ()  # percent of thumbs that were up, per day
    ups: int = 0
    downs: int = 0

    @property
    def empty(self) -> bool:
        return not self.labels and not self.feedback_days


def _pct(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else round(100 * value, 1)


def quality_series(runs: Sequence[RunSummary], feedback: Sequence[FeedbackDay] = (), *,
                   set_name: str | None = None) -> QualitySeries:
    """Series for the finished runs (oldest first; only those of ``set_name`` when given) and the feedback days."""
    chosen = [r for r in runs if r.complete and (set_name is None or r.set_name == set_name)]
    paths = sorted({p for r in chosen for p in r.by_path})
    categories = sorted({c for r in chosen for c in r.by_category})
    days = sorted(feedback, key=lambda d: d.day)
    return QualitySeries(
        labels=tuple(f"{r.finished_at[:16].replace('T', ' ')} · {r.model}" for r in chosen),
        accuracy=tuple(_pct(r.accuracy) for r in chosen),
        baseline=tuple(_pct(r.baseline_accuracy) for r in chosen),
        by_path={p: tuple(_pct(r.by_path.get(p)) for r in chosen) for p in paths},
        by_category={c: tuple(_pct(r.by_category.get(c)) for r in chosen) for c in categories},
        latency_p50=tuple(r.latency_p50_s for r in chosen),
        latency_p95=tuple(r.latency_p95_s for r in chosen),
        feedback_days=tuple(d.day for d in days),
        up_rate=tuple(round(100 * d.ups / (d.ups + d.downs), 1) if d.ups + d.downs else None for d in days),
        ups=sum(d.ups for d in days),
        downs=sum(d.downs for d in days),
    )
