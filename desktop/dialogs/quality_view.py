"""The quality dashboard: how Cairn is doing over time on this machine.

Accuracy of every recorded evaluation run (overall, beside the bare model, by path and by category), its latency,
and the thumbs up/down rate per day, from what is stored locally (``core.evaluation.list_runs``, the feedback log).
An evaluation can be started from here on a set file, with a progress bar, and cancelled between questions.
"""

from __future__ import annotations

import datetime as _dt
import logging
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCharts import QCategoryAxis, QChart, QChartView, QLineSeries, QValueAxis
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.config import data_dir
from core.evaluation import EvalOptions, FeedbackDay, QualitySeries, RunSummary, evaluate, list_runs, quality_series
from core.text import counted
from desktop.toolkit.errors import show_error
from desktop.toolkit.widgets import item_table, push_button
from desktop.toolkit.workers import Worker, run_in_background

__all__ = ["QualityDialog"]

logger = logging.getLogger(__name__)

_ALL_SETS = "All question sets"


def _chart(title: str, lines: dict[str, Sequence[float | None]], y_max: float | None,
           labels: Sequence[str] = ()) -> QChart:
    """A line per series over the runs (or days) in order, each point under its date; gaps where a value is
    missing. At most eight dates are written under the axis, evenly spread (every point has its own on hover)."""
    chart = QChart()
    chart.setTitle(title)
    x_axis, y_axis = QCategoryAxis(), QValueAxis()
    x_axis.setLabelsPosition(QCategoryAxis.AxisLabelsPosition.AxisLabelsPositionOnValue)
    y_axis.setLabelFormat("%d" if y_max is not None else "%.1f")
    chart.addAxis(x_axis, Qt.AlignmentFlag.AlignBottom)
    chart.addAxis(y_axis, Qt.AlignmentFlag.AlignLeft)
    longest, top = 1, 1.0
    for name, values in lines.items():
        if not any(v is not None and math.isfinite(v) for v in values):
            continue
        series = QLineSeries()
        series.setName(name)
        for i, value in enumerate(values, start=1):
            if value is not None and math.isfinite(value):
                series.append(float(i), float(value))
                top = max(top, float(value))
        series.setPointsVisible(True)
        chart.addSeries(series)
        series.attachAxis(x_axis)
        series.attachAxis(y_axis)
        longest = max(longest, len(values))
    step = max(1, math.ceil(longest / 8))
    for i in range(1, longest + 1, step):
        x_axis.append(_short_date(labels[i - 1]) if i - 1 < len(labels) else str(i), float(i))
    x_axis.setRange(0.5, longest + 0.5)
    y_axis.setRange(0, y_max if y_max is not None else top * 1.15)
    chart.legend().setAlignment(Qt.AlignmentFlag.AlignBottom)
    return chart


def _short_date(label: str) -> str:
    """"2026-12-04 13:05 · qwen2.5-coder:7b" -> "12-04 13:05"; "2026-12-04" -> "12-04"."""
    when = label.split(" · ", 1)[0]
    return when[5:] if len(when) >= 10 and when[4] == "-" else when


class QualityDialog(QDialog):
    """Runs over time, feedback rate, and a way to start a run."""

    run_finished = Signal(object)
    """An evaluation started here finished (its RunSummary)."""

    def __init__(self, settings: Any, parent: QWidget | None = None, *,
                 runs: Callable[[], list[RunSummary]] = list_runs,
                 feedback: Callable[[], Sequence[FeedbackDay]] = lambda: ()) -> None:
        super().__init__(parent)
        self.setObjectName("qualityDialog")
        self.setWindowTitle("Quality")
        self.resize(900, 640)
        self._settings = settings
        self._runs, self._feedback = runs, feedback
        self._worker: Worker | None = None
        self.series: QualitySeries = quality_series([])

        self.set_box = QComboBox()
        self.set_box.setObjectName("qualitySet")
        self.set_box.currentTextChanged.connect(lambda _t: self.refresh())
        self.summary = QLabel()
        self.summary.setObjectName("qualitySummary")
        self.summary.setWordWrap(True)
        self.accuracy_view, self.latency_view, self.feedback_view = QChartView(), QChartView(), QChartView()
        for view, name in ((self.accuracy_view, "accuracyChart"), (self.latency_view, "latencyChart"),
                           (self.feedback_view, "feedbackChart")):
            view.setObjectName(name)
            view.setRenderHint(QPainter.RenderHint.Antialiasing)
            view.setMinimumHeight(180)
        self.table = item_table("qualityRuns", ["When", "Model", "Version", "Set", "Accuracy", "Bare model",
                                                "p50 / p95"])
        self.progress = QProgressBar()
        self.progress.setObjectName("evalProgress")
        self.progress.hide()
        self.run_button = push_button(self, "fa5s.play", "Run evaluation…", "runEval",
                                      "Ask a question set with gold SQL and score the answers", self.choose_set)
        self.cancel_button = push_button(self, "fa5s.stop", "Cancel", "cancelEval",
                                         "Stop after the current question; the answers so far are kept", self.cancel)
        self.cancel_button.hide()
        close = push_button(self, None, "Close", "closeQuality", "Close the dashboard", self.close)

        top = QHBoxLayout()
        top.addWidget(self.set_box, 1)
        top.addWidget(self.run_button)
        charts = QHBoxLayout()
        charts.addWidget(self.latency_view)
        charts.addWidget(self.feedback_view)
        bottom = QHBoxLayout()
        bottom.addWidget(self.progress, 1)
        bottom.addWidget(self.cancel_button)
        bottom.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(self.accuracy_view, 2)
        layout.addLayout(charts, 1)
        layout.addWidget(self.table, 1)
        layout.addLayout(bottom)
        self.refresh()

    # -- the data ---------------------------------------------------------------------------------------

    def refresh(self) -> None:
        """Read the stored runs and feedback again and redraw."""
        problem = None
        try:
            runs, feedback = self._runs(), list(self._feedback())
        except Exception as exc:  # noqa: BLE001 - a damaged store must not take the dialog down
            logger.warning("quality data could not be read", exc_info=True)
            runs, feedback = [], []
            problem = f"The stored runs could not be read: {exc}"
        names = sorted({r.set_name for r in runs})
        chosen = self.set_box.currentText()
        self.set_box.blockSignals(True)
        self.set_box.clear()
        self.set_box.addItems([_ALL_SETS, *names])
        self.set_box.setCurrentText(chosen if chosen in names else _ALL_SETS)
        self.set_box.blockSignals(False)
        set_name = None if self.set_box.currentText() == _ALL_SETS else self.set_box.currentText()
        shown = [r for r in runs if set_name is None or r.set_name == set_name]
        self.series = series = quality_series(runs, feedback, set_name=set_name)
        lines = {"Cairn": series.accuracy, "bare model": series.baseline,
                 **{f"path {p}": v for p, v in series.by_path.items()}}
        self.accuracy_view.setChart(_chart("Execution accuracy per finished run (%)", lines, 100.0, series.labels))
        self.latency_view.setChart(_chart("Latency per finished run (s)", {"p50": series.latency_p50,
                                                                           "p95": series.latency_p95}, None,
                                          series.labels))
        self.feedback_view.setChart(_chart("Thumbs up per day (%)", {"up": series.up_rate}, 100.0,
                                           series.feedback_days))
        self._fill_table(shown)
        if problem is not None:
            self.summary.setText(problem)
        elif series.empty and not shown:
            self.summary.setText("No evaluation runs or feedback yet. Run an evaluation on a question set with gold "
                                 "SQL (here, or `cairn eval --set FILE`), and rate answers with the thumbs.")
        else:
            finished = [r for r in shown if r.complete]
            last = (f"Last finished run: {_percent(finished[-1].accuracy)} on {finished[-1].set_name}. "
                    if finished else "")
            rated = series.ups + series.downs
            thumbs = (f"Thumbs: {series.ups} up, {series.downs} down ({round(100 * series.ups / rated)}% up)."
                      if rated else "No answers rated yet.")
            self.summary.setText(f"{counted(len(shown), 'run')}. {last}{thumbs}")

    def _fill_table(self, runs: Sequence[RunSummary]) -> None:
        self.table.setRowCount(0)
        for run in reversed(runs):
            row = self.table.rowCount()
            self.table.insertRow(row)
            cells = [run.finished_at[:16].replace("T", " "), run.model, run.version, run.set_name,
                     _percent(run.accuracy) + ("" if run.complete else f" (stopped: {run.answered}/{run.questions})"),
                     _percent(run.baseline_accuracy),
                     f"{_seconds(run.latency_p50_s)} / {_seconds(run.latency_p95_s)} s"]
            for col, text in enumerate(cells):
                self.table.setItem(row, col, QTableWidgetItem(text))

    # -- a run ------------------------------------------------------------------------------------------

    def choose_set(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Question set", "", "Question sets (*.csv *.jsonl *.json)")
        if path:
            self.start_run(Path(path))

    def start_run(self, set_path: Path, *, baseline: bool = True, report_dir: Path | None = None) -> None:
        """Evaluate ``set_path`` in the background (Cairn beside the bare model), with progress and Cancel."""
        if self._worker is not None:
            return
        stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
        options = EvalOptions(set_path=set_path, baseline=baseline,
                              report_dir=report_dir or data_dir() / "eval" / f"{set_path.stem}-{stamp}",
                              data_dir=set_path.parent)
        settings = self._settings

        def work(cancel: Any, report: Callable[[Any], None]) -> Any:
            return evaluate(options, settings, progress=lambda done, total: report((done, total)),
                            should_stop=lambda: cancel.cancelled)

        self.progress.setRange(0, 0)
        self.progress.setFormat("Starting…")
        self.progress.show()
        self.cancel_button.show()
        self.run_button.setEnabled(False)
        self._worker = run_in_background(work, on_success=self._done, on_failure=self._failed,
                                         on_progress=self._step, receiver=self)

    def cancel(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
            self.progress.setFormat("Stopping after this question…")

    def _step(self, value: Any) -> None:
        done, total = value
        self.progress.setRange(0, total)
        self.progress.setValue(done)
        self.progress.setFormat(f"{done} of {total} questions")

    def _finish(self) -> None:
        self._worker = None
        self.progress.hide()
        self.cancel_button.hide()
        self.run_button.setEnabled(True)

    def _done(self, outcome: Any) -> None:
        self._finish()
        self.refresh()
        notes = list(outcome.warnings)
        if not outcome.run.complete:
            notes.append(f"The run was stopped after {outcome.run.answered} of {counted(outcome.questions, 'question')}: "
                         "its answers are kept in the report folder, and it is not recorded here as it did not "
                         "finish.")
        if notes:
            self.summary.setText(" ".join([self.summary.text(), *notes]).strip())
        self.run_finished.emit(outcome.run)

    def _failed(self, exc: BaseException) -> None:
        self._finish()
        show_error(self, exc, title="Evaluation")

    def closeEvent(self, event: Any) -> None:  # noqa: N802 - Qt naming
        self.cancel()
        super().closeEvent(event)


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _percent(value: float | None) -> str:
    """A rate (0–1) as a percent; "—" when there is none (or it is not a number)."""
    return f"{100 * value:.1f}%" if _finite(value) else "—"


def _seconds(value: float | None) -> str:
    return f"{value:.2f}" if _finite(value) else "—"
