"""A quick chart of a result: a line over time/order, bars per category, or nothing when it would mislead.

:func:`plan_chart` decides from the column kinds alone (no Qt), so the choice is testable and the
widget only draws. The person can switch Bar/Line/None with the combo.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import qtawesome as qta
from PySide6.QtCharts import (
    QAbstractAxis,
    QBarCategoryAxis,
    QBarSeries,
    QBarSet,
    QChart,
    QChartView,
    QDateTimeAxis,
    QLineSeries,
    QValueAxis,
)
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QPainter, QPalette
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QStackedWidget, QVBoxLayout, QWidget

from desktop.result_model import column_kind, display_text, is_identifier_column, is_numeric_kind

__all__ = ["ChartPlan", "ChartView", "plan_chart"]

logger = logging.getLogger(__name__)

ChartKind = Literal["line", "bar", "none"]
XKind = Literal["time", "value", "category", "ordered_category"]

MAX_SERIES = 3
MAX_BARS = 30
MAX_LINE_POINTS = 5000
_CATEGORICAL_KINDS = frozenset({"text", "boolean", "uuid", "mixed"})
_TEMPORAL_KINDS = frozenset({"date", "timestamp", "time"})


@dataclass(frozen=True)
class ChartPlan:
    """What to draw: the chart kind, the x column and its axis kind, the numeric series columns."""

    kind: ChartKind
    x: int = -1
    x_kind: XKind = "category"
    series: tuple[int, ...] = ()
    reason: str = ""

    @property
    def drawable(self) -> bool:
        return self.x >= 0 and bool(self.series)


def plan_chart(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> ChartPlan:
    """Line for a date/time or ordered first column, bars for a category column, else no chart."""
    if not rows or not columns:
        return ChartPlan("none", reason="The result has no rows.")
    kinds = [column_kind(rows, c) for c in range(len(columns))]
    numeric = [c for c, k in enumerate(kinds) if is_numeric_kind(k)]
    if not numeric:
        return ChartPlan("none", reason="The result has no numeric column to plot.")
    x = 0
    if is_numeric_kind(kinds[0]):
        labels = [c for c, k in enumerate(kinds) if k in _CATEGORICAL_KINDS or k in _TEMPORAL_KINDS]
        if labels:
            x = labels[0]
    series = _series_columns(columns, numeric, x)
    if not series:
        return ChartPlan("none", reason="A chart needs a label or date column and a numeric column.")
    kind = kinds[x]
    if kind in _TEMPORAL_KINDS:
        return ChartPlan("line", x, "time", series)
    if is_numeric_kind(kind):
        if _is_monotonic([row[x] for row in rows]):
            return ChartPlan("line", x, "value", series)
        return ChartPlan("bar", x, "category", series)
    if kind == "text" and _all_iso_dates([row[x] for row in rows]):
        return ChartPlan("line", x, "ordered_category", series)
    if kind in _CATEGORICAL_KINDS:
        return ChartPlan("bar", x, "category", series)
    return ChartPlan("none", reason=f"The first column ({kind}) cannot label a chart.")


def _series_columns(columns: Sequence[str], numeric: list[int], x: int) -> tuple[int, ...]:
    candidates = [c for c in numeric if c != x]
    measures = [c for c in candidates if not is_identifier_column(columns[c])]
    return tuple((measures or candidates)[:MAX_SERIES])


def _is_monotonic(values: list[Any]) -> bool:
    present = [v for v in values if v is not None]
    if len(present) < 2:
        return False
    try:
        return all(a <= b for a, b in zip(present, present[1:])) or all(
            a >= b for a, b in zip(present, present[1:])
        )
    except TypeError:
        return False


def _all_iso_dates(values: list[Any]) -> bool:
    """Text like ``2024-03`` or ``2024-03-01`` (a to_char month): ordered, so a line fits."""
    present = [v for v in values if v is not None][:200]
    if not present:
        return False
    for text in present:
        candidate = text.strip()
        if len(candidate) == 7:
            candidate += "-01"
        try:
            _dt.date.fromisoformat(candidate[:10])
        except ValueError:
            return False
    return True


def _number(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None if value is None else float(value)
    if isinstance(value, (int, float, decimal.Decimal)):
        result = float(value)
        return result if math.isfinite(result) else None
    return None


def _msecs(value: Any) -> float | None:
    """Milliseconds since the epoch, naive values read as local time (as QDateTimeAxis shows them)."""
    if isinstance(value, _dt.datetime):
        return value.timestamp() * 1000.0
    if isinstance(value, _dt.date):
        return _dt.datetime.combine(value, _dt.time.min).timestamp() * 1000.0
    if isinstance(value, _dt.time):
        return _dt.datetime.combine(_dt.date(1970, 1, 2), value).timestamp() * 1000.0
    return None


def _unique_labels(values: Sequence[Any]) -> list[str]:
    """Category labels, unique (the axis drops repeats), NULL and empty shown as words."""
    seen: dict[str, int] = {}
    labels = []
    for value in values:
        label = "(empty)" if value == "" else display_text(value)
        if len(label) > 40:
            label = label[:39] + "…"
        count = seen.get(label, 0) + 1
        seen[label] = count
        labels.append(label if count == 1 else f"{label} ({count})")
    return labels


class ChartView(QWidget):
    """A chart of the current result, picked automatically; the combo switches Bar/Line/None."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chartView")
        self._columns: tuple[str, ...] = ()
        self._rows: Sequence[Sequence[Any]] = ()
        self._plan = ChartPlan("none", reason="No results yet")
        self._kind: ChartKind = "none"

        self.kind_combo = QComboBox(objectName="chartKindCombo")
        for label, kind in (("Bar", "bar"), ("Line", "line"), ("None", "none")):
            self.kind_combo.addItem(label, kind)
        self.kind_combo.setToolTip("Chart type (picked automatically for each result)")
        self.kind_combo.currentIndexChanged.connect(self._kind_chosen)
        self.note_label = QLabel(objectName="chartNote")
        self.note_label.setEnabled(False)

        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.setSpacing(8)
        bar.addWidget(QLabel("Chart:"))
        bar.addWidget(self.kind_combo)
        bar.addWidget(self.note_label, 1)
        self.export_button = QPushButton(qta.icon("fa5s.file-export"), "Export…", objectName="chartExportButton")
        self.export_button.setToolTip("Save the chart as PNG or SVG")
        self.export_button.clicked.connect(self._choose_export)
        bar.addWidget(self.export_button)

        self.chart = QChart()
        self.chart.setAnimationOptions(QChart.AnimationOption.NoAnimation)
        self.chart_view = QChartView(self.chart, objectName="chartCanvas")
        self.chart_view.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.empty_label = QLabel("No chart for this result", objectName="chartEmptyLabel")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        self.empty_label.setEnabled(False)
        self.stack = QStackedWidget(objectName="chartStack")
        self.stack.addWidget(self.empty_label)
        self.stack.addWidget(self.chart_view)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.setSpacing(6)
        layout.addLayout(bar)
        layout.addWidget(self.stack, 1)
        self._apply_theme()
        self._show_empty("No results yet")

    def export(self, path: str) -> None:
        """The chart as drawn, to ``path``: SVG when it ends in .svg, else PNG. Raises OSError when it cannot."""
        if not path.lower().endswith(".svg"):
            if not self.chart_view.grab().save(path, "PNG"):
                raise OSError(f"Could not write {path}")
            return
        from PySide6.QtCore import QRect, QSize
        from PySide6.QtSvg import QSvgGenerator

        size = self.chart_view.size()
        generator = QSvgGenerator()
        generator.setFileName(path)
        generator.setSize(QSize(size.width(), size.height()))
        generator.setViewBox(QRect(0, 0, size.width(), size.height()))
        generator.setTitle("Cairn chart")
        painter = QPainter(generator)
        try:
            self.chart_view.render(painter)
        finally:
            painter.end()

    def _choose_export(self) -> None:
        from PySide6.QtWidgets import QFileDialog, QMessageBox

        path, _ = QFileDialog.getSaveFileName(self, "Export chart", "chart.png", "PNG image (*.png);;SVG image (*.svg)")
        if not path:
            return
        try:
            self.export(path)
        except OSError as exc:
            QMessageBox.warning(self, "Export chart", f"{exc}. Choose another folder or name.")

    @property
    def chart_kind(self) -> str:
        """What is drawn now: "line", "bar" or "none"."""
        return self._kind

    @property
    def plan(self) -> ChartPlan:
        return self._plan

    def show_result(self, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        """Pick a chart for these rows and draw it (or say why there is none)."""
        self._columns = tuple(str(c) for c in columns)
        self._rows = rows
        self._plan = plan_chart(self._columns, rows)
        self.kind_combo.setEnabled(self._plan.drawable)
        self._set_combo(self._plan.kind)
        self._draw(self._plan.kind)

    def clear(self) -> None:
        self.show_result((), ())

    # -- drawing -----------------------------------------------------------------------------------
    def _set_combo(self, kind: str) -> None:
        self.kind_combo.blockSignals(True)
        self.kind_combo.setCurrentIndex(max(0, self.kind_combo.findData(kind)))
        self.kind_combo.blockSignals(False)

    def _kind_chosen(self, _index: int) -> None:
        self._draw(self.kind_combo.currentData())

    def _draw(self, kind: str) -> None:
        self._reset_chart()
        plan = self._plan
        if kind == "none" or not plan.drawable:
            self._show_empty(plan.reason if not plan.drawable else "Chart hidden — choose Bar or Line to show it.")
            return
        if kind == "line":
            note = self._draw_line(plan)
        else:
            note = self._draw_bars(plan)
        self._kind = "line" if kind == "line" else "bar"
        x_name = self._columns[plan.x]
        y_names = [self._columns[c] for c in plan.series]
        self.chart.axes(Qt.Orientation.Horizontal)[0].setTitleText(x_name)
        self.chart.axes(Qt.Orientation.Vertical)[0].setTitleText(", ".join(y_names))
        self.chart.legend().setVisible(len(plan.series) > 1)
        self.chart.setTitle(f"{', '.join(y_names)} by {x_name}")
        self.note_label.setText(note)
        self.stack.setCurrentWidget(self.chart_view)
        self.export_button.setEnabled(True)

    def _show_empty(self, reason: str) -> None:
        self._kind = "none"
        self.empty_label.setText(f"No chart for this result\n{reason}" if reason else "No chart for this result")
        self.note_label.setText("")
        self.stack.setCurrentWidget(self.empty_label)
        self.export_button.setEnabled(False)

    def _reset_chart(self) -> None:
        self.chart.removeAllSeries()
        for axis in self.chart.axes():
            self.chart.removeAxis(axis)
            axis.deleteLater()

    def _draw_line(self, plan: ChartPlan) -> str:
        rows = [row for row in self._rows if row[plan.x] is not None]
        notes = []
        if plan.x_kind in ("time", "value", "ordered_category"):
            try:
                rows.sort(key=lambda row: row[plan.x])
            except TypeError:
                pass
        if len(rows) > MAX_LINE_POINTS:
            step = math.ceil(len(rows) / MAX_LINE_POINTS)
            rows = rows[::step]
            notes.append(f"every {step}th point of {len(self._rows):,} shown")
        x_axis: QAbstractAxis
        if plan.x_kind == "time":
            xs = [_msecs(row[plan.x]) for row in rows]
            time_axis = QDateTimeAxis()
            sample = rows[0][plan.x] if rows else None
            fmt = "HH:mm" if isinstance(sample, _dt.time) else "yyyy-MM-dd"
            if isinstance(sample, _dt.date) and all(
                isinstance(r[plan.x], _dt.date) and r[plan.x].day == 1 for r in rows[:400]
            ):
                fmt = "MMM yy"  # monthly series: "Mar 25" reads better (and fits) than 2025-03-01
            if isinstance(sample, _dt.datetime) and any(r[plan.x].time() != _dt.time.min for r in rows[:200]):
                fmt = "yyyy-MM-dd HH:mm"
            time_axis.setFormat(fmt)
            time_axis.setTickCount(min(6, max(2, len(rows))))
            x_axis = time_axis
        elif plan.x_kind == "value":
            xs = [_number(row[plan.x]) for row in rows]
            value_axis = QValueAxis()
            value_axis.setLabelFormat("%g")
            x_axis = value_axis
        else:
            xs = [float(i) for i in range(len(rows))]
            category_axis = QBarCategoryAxis()
            category_axis.append(_unique_labels([row[plan.x] for row in rows]))
            if len(rows) > 12:
                category_axis.setLabelsAngle(-60)
            x_axis = category_axis
        self.chart.addAxis(x_axis, Qt.AlignmentFlag.AlignBottom)
        y_axis = QValueAxis()
        y_axis.setLabelFormat("%g")
        self.chart.addAxis(y_axis, Qt.AlignmentFlag.AlignLeft)
        low, high = math.inf, -math.inf
        for column in plan.series:
            series = QLineSeries()
            series.setName(self._columns[column])
            points = []
            for x, row in zip(xs, rows):
                y = _number(row[column])
                if x is not None and y is not None:
                    points.append(QPointF(x, y))
                    low, high = min(low, y), max(high, y)
            series.replace(points)
            self.chart.addSeries(series)
            series.attachAxis(x_axis)
            series.attachAxis(y_axis)
        self._fit_value_axis(y_axis, low, high)
        return "; ".join(notes)

    def _draw_bars(self, plan: ChartPlan) -> str:
        rows = list(self._rows)
        note = ""
        if len(rows) > MAX_BARS:
            if plan.x_kind == "category":
                first = plan.series[0]
                rows.sort(key=lambda row: -(_number(row[first]) or 0.0))
                note = (
                    f"Top {MAX_BARS} of {len(self._rows):,} categories by {self._columns[first]}; "
                    f"{len(self._rows) - MAX_BARS:,} more not shown"
                )
            else:
                note = f"First {MAX_BARS} of {len(self._rows):,} rows; {len(self._rows) - MAX_BARS:,} more not shown"
            rows = rows[:MAX_BARS]
        bar_series = QBarSeries()
        low, high = 0.0, 0.0
        for column in plan.series:
            bar_set = QBarSet(self._columns[column])
            values = [_number(row[column]) or 0.0 for row in rows]
            bar_set.append(values)
            bar_series.append(bar_set)
            if values:
                low, high = min(low, min(values)), max(high, max(values))
        self.chart.addSeries(bar_series)
        x_axis = QBarCategoryAxis()
        labels = _unique_labels([row[plan.x] for row in rows])
        x_axis.append(labels)
        if len(labels) > 8 or any(len(label) > 12 for label in labels):
            x_axis.setLabelsAngle(-60)
        self.chart.addAxis(x_axis, Qt.AlignmentFlag.AlignBottom)
        y_axis = QValueAxis()
        y_axis.setLabelFormat("%g")
        self.chart.addAxis(y_axis, Qt.AlignmentFlag.AlignLeft)
        bar_series.attachAxis(x_axis)
        bar_series.attachAxis(y_axis)
        self._fit_value_axis(y_axis, low, high)
        return note

    @staticmethod
    def _fit_value_axis(axis: QValueAxis, low: float, high: float) -> None:
        if not math.isfinite(low) or not math.isfinite(high):
            return
        if low == high:
            low, high = (low - 1, high + 1) if low == 0 else (min(0.0, low), max(0.0, high))
        axis.setRange(low, high)
        axis.applyNiceNumbers()
        # Plain digits for business-sized numbers (1400000, not 1.4e+06); %g keeps small fractions readable.
        biggest = max(abs(axis.min()), abs(axis.max()))
        axis.setLabelFormat("%.0f" if biggest >= 1000 else "%g")

    # -- palette -----------------------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange:
            self._apply_theme()
        super().changeEvent(event)

    def _apply_theme(self) -> None:
        dark = self.palette().color(QPalette.ColorRole.Window).lightness() < 128
        self.chart.setTheme(QChart.ChartTheme.ChartThemeDark if dark else QChart.ChartTheme.ChartThemeLight)
        self.chart.setBackgroundBrush(self.palette().brush(QPalette.ColorRole.Base))
        self.chart.setTitleBrush(self.palette().brush(QPalette.ColorRole.Text))
