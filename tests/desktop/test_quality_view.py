"""The quality dashboard: stored runs and feedback plotted, a run started from the window with progress, and
cancelled between questions."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

from core.config import Settings
from core.evaluation import FeedbackDay, RunSummary, list_runs
from desktop.dialogs.quality_view import QualityDialog


def _run(when: str, accuracy: float, set_name: str = "shop.jsonl") -> RunSummary:
    return RunSummary(finished_at=when, model="qwen2.5-coder:7b", version="0.1.0", set_name=set_name, questions=10,
                      answered=10, accuracy=accuracy, baseline_accuracy=accuracy - 0.2,
                      by_path={"llm": accuracy, "repaired": 1.0}, by_category={"join": accuracy},
                      latency_p50_s=1.5, latency_p95_s=3.0)


def _names(view) -> list[str]:
    return [s.name() for s in view.chart().series()]


def test_runs_and_feedback_are_plotted(qtbot) -> None:
    runs = [_run("2026-12-01T10:00:00+00:00", 0.7), _run("2026-12-03T10:00:00+00:00", 0.8),
            _run("2026-12-02T10:00:00+00:00", 0.5, set_name="other.csv")]
    feedback = [FeedbackDay("2026-12-02", 3, 1), FeedbackDay("2026-12-03", 1, 1)]
    dialog = QualityDialog(Settings(), runs=lambda: runs, feedback=lambda: feedback)
    qtbot.addWidget(dialog)
    assert _names(dialog.accuracy_view) == ["Cairn", "bare model", "path llm", "path repaired"]
    assert dialog.table.rowCount() == 3
    assert "Thumbs: 4 up, 2 down (67% up)" in dialog.summary.text()
    assert dialog.series.up_rate == (75.0, 50.0)
    dialog.set_box.setCurrentText("shop.jsonl")
    assert dialog.table.rowCount() == 2 and dialog.series.accuracy == (70.0, 80.0)
    cairn = dialog.accuracy_view.chart().series()[0]
    assert [(p.x(), p.y()) for p in cairn.points()] == [(1.0, 70.0), (2.0, 80.0)]


def test_an_empty_dashboard_says_how_to_fill_it(qtbot) -> None:
    dialog = QualityDialog(Settings(), runs=lambda: [], feedback=lambda: [])
    qtbot.addWidget(dialog)
    assert "No evaluation runs" in dialog.summary.text() and dialog.table.rowCount() == 0


def _set(tmp_path: Path) -> Path:
    db = tmp_path / "shop.sqlite"
    with sqlite3.connect(db) as conn:
        conn.executescript("CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT, city TEXT);"
                           "INSERT INTO customers VALUES (1, 'Asha', 'Pune'), (2, 'Ravi', 'Delhi');")
    rows = [{"question": f"Question {i}: how many customers?", "gold_sql": "SELECT COUNT(*) FROM customers",
             "db": str(db)} for i in range(3)]
    path = tmp_path / "shop.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_run_started_here_shows_progress_and_lands_in_the_table(qtbot, tmp_path: Path, fake_ollama) -> None:
    fake_ollama.add_model("qwen2.5-coder:7b")
    fake_ollama.default_chat = "SELECT COUNT(*) FROM customers"
    dialog = QualityDialog(Settings.load().with_env())
    qtbot.addWidget(dialog)
    values: list[int] = []
    dialog.progress.valueChanged.connect(values.append)
    with qtbot.waitSignal(dialog.run_finished, timeout=30_000) as blocker:
        dialog.start_run(_set(tmp_path), report_dir=tmp_path / "report")
        assert not dialog.progress.isHidden() and not dialog.run_button.isEnabled()
    run = blocker.args[0]
    assert values[-1] == 3
    assert run.accuracy == 1.0 and run.complete and run.baseline_accuracy == 1.0
    assert dialog.table.rowCount() == 1 and list_runs()[-1].set_name == "shop.jsonl"
    assert dialog.run_button.isEnabled() and dialog.cancel_button.isHidden()


def test_cancel_stops_between_questions(qtbot, tmp_path: Path, fake_ollama) -> None:
    fake_ollama.add_model("qwen2.5-coder:7b")

    def slow(_body: dict) -> str:
        time.sleep(0.3)
        return "SELECT COUNT(*) FROM customers"

    fake_ollama.default_chat = slow
    dialog = QualityDialog(Settings.load().with_env())
    qtbot.addWidget(dialog)
    with qtbot.waitSignal(dialog.run_finished, timeout=30_000) as blocker:
        dialog.start_run(_set(tmp_path), baseline=False, report_dir=tmp_path / "report")
        dialog.cancel()
    run = blocker.args[0]
    assert not run.complete and run.answered < 3
    assert list_runs() == [] and "stopped after" in dialog.summary.text()  # recorded only once finished


# -- from a QA pass ---------------------------------------------------------------------------------------------


def test_a_runs_file_that_cannot_be_read_keeps_its_error_in_view(qtbot) -> None:
    from core.errors import ConfigError

    def broken() -> list[RunSummary]:
        raise ConfigError("Cannot read the evaluation runs in /x/eval_runs.jsonl: Is a directory", hint="Move it.")

    dialog = QualityDialog(Settings(), runs=broken, feedback=list)
    qtbot.addWidget(dialog)
    assert "could not be read" in dialog.summary.text() and "Is a directory" in dialog.summary.text()
    assert "No evaluation runs" not in dialog.summary.text()


def test_missing_and_non_finite_figures_show_as_a_dash(qtbot) -> None:
    runs = [_run("2026-12-01T10:00:00+00:00", 0.7),
            RunSummary(finished_at="2026-12-02T10:00:00+00:00", model="m", version="1", set_name="shop.jsonl",
                       questions=3, answered=3, accuracy=float("nan"), latency_p50_s=float("inf")),
            RunSummary(finished_at="2026-12-03T10:00:00+00:00", model="m", version="1", set_name="shop.jsonl",
                       questions=3, answered=3, accuracy=None)]
    dialog = QualityDialog(Settings(), runs=lambda: runs, feedback=list)
    qtbot.addWidget(dialog)
    text = dialog.summary.text()
    assert "Last finished run: — on shop.jsonl" in text and "None" not in text and "nan" not in text
    cells = [dialog.table.item(r, c).text() for r in range(dialog.table.rowCount()) for c in range(7)]
    assert "—" in cells and not any("nan" in c or "inf" in c or "None" in c for c in cells)
    assert dialog.series.accuracy == (70.0, None, None)


def test_a_stopped_run_is_listed_but_not_plotted(qtbot) -> None:
    stopped = RunSummary(finished_at="2026-12-04T10:00:00+00:00", model="m", version="1", set_name="shop.jsonl",
                         questions=10, answered=4, accuracy=0.25, complete=False)
    dialog = QualityDialog(Settings(), runs=lambda: [_run("2026-12-01T10:00:00+00:00", 0.7), stopped],
                           feedback=list)
    qtbot.addWidget(dialog)
    assert dialog.series.accuracy == (70.0,) and dialog.table.rowCount() == 2
    assert "stopped: 4/10" in dialog.table.item(0, 4).text()
    assert "Last finished run: 70.0%" in dialog.summary.text()


def test_a_dashboard_that_cannot_open_shows_the_error(qtbot, monkeypatch) -> None:
    from types import SimpleNamespace

    from PySide6.QtWidgets import QMessageBox, QWidget

    import desktop.dialogs.quality_view
    from core.errors import ConfigError
    from desktop.shell.app import AppContext

    def broken(*_args, **_kwargs):
        raise ConfigError("Cannot read the evaluation runs", hint="Move the file aside.")

    monkeypatch.setattr(desktop.dialogs.quality_view, "QualityDialog", broken)
    window = QWidget()
    qtbot.addWidget(window)
    assert AppContext.open_quality(SimpleNamespace(settings=Settings(), _feedback_days=list), window) is None
    (box,) = window.findChildren(QMessageBox, "errorBox")
    assert box.text() == "Cannot read the evaluation runs" and box.informativeText() == "Move the file aside."


def test_the_charts_are_dated_and_their_values_labelled(qtbot) -> None:
    from PySide6.QtCharts import QCategoryAxis, QValueAxis
    from PySide6.QtCore import Qt

    runs = [_run(f"2026-12-{day:02d}T10:00:00+00:00", 0.5 + day / 100) for day in range(1, 21)]
    feedback = [FeedbackDay("2026-12-02", 3, 1), FeedbackDay("2026-12-03", 1, 1)]
    dialog = QualityDialog(Settings(), runs=lambda: runs, feedback=lambda: feedback)
    qtbot.addWidget(dialog)
    dates = dialog.accuracy_view.chart().axes(Qt.Orientation.Horizontal)[0]
    assert isinstance(dates, QCategoryAxis)
    assert dates.categoriesLabels()[0] == "12-01 10:00" and 2 <= len(dates.categoriesLabels()) <= 8
    assert dialog.feedback_view.chart().axes(Qt.Orientation.Horizontal)[0].categoriesLabels() == ["12-02", "12-03"]
    percent = dialog.accuracy_view.chart().axes(Qt.Orientation.Vertical)[0]
    assert isinstance(percent, QValueAxis) and percent.labelFormat() == "%d"
    assert dialog.latency_view.chart().axes(Qt.Orientation.Vertical)[0].labelFormat() == "%.1f"
