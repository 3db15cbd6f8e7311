"""A quick chart of a result: a line over time/order, bars per category, or nothing when it would mislead.

:mod:`desktop.panels.chart_choice` decides what to show from the values alone (no Qt), so the choice is testable and
this widget only draws: labels fitted to the space (elided, the full text in a tooltip), one y axis per unit
with round, formatted ticks, bars from zero. The person can switch Bar/Line/None and pick the measure shown.
"""

from __future__ import annotations

import datetime as _dt
import logging
import math
from collections.abc import Sequence
from typing import Any

import qtawesome as qta
from PySide6.QtCharts import (
    QAbstractAxis,
    QBarCategoryAxis,
    QBarSeries,
    QBarSet,
    QCategoryAxis,
    QChart,
    QChartView,
    QDateTimeAxis,
    QLineSeries,
    QValueAxis,
)
from PySide6.QtCore import QEvent, QMargins, QPointF, Qt
from PySide6.QtGui import QFontMetricsF, QPainter, QPalette, QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from core.number_format import NumberFormat
from desktop.panels.chart_choice import (
    MAX_BARS,
    MAX_SERIES,
    ChartKind,
    ChartPlan,
    bar_rows,
    format_tick,
    iso_date,
    msecs,
    nice_scale,
    number,
    plan_chart,
    unique_labels,
)
from desktop.panels.chart_export import export_chart
from desktop.panels.result_model import display_text
from desktop.toolkit.widgets import mark_muted

__all__ = ["MAX_BARS", "MAX_SERIES", "ChartPlan", "ChartView", "plan_chart"]

logger = logging.getLogger(__name__)

MAX_LINE_POINTS = 5000
_AXIS_SHARE = 0.4  # QtCharts gives the x axis at most 40% of the chart's height, then cuts labels to "..."
_LABEL_PADDING = 5.0  # QtCharts' padding on each side of an axis label


def _elided(labels: list[str], metrics: QFontMetricsF, width: float) -> list[str]:
    """Labels cut to ``width`` pixels with "…", still unique (the axis drops repeats): a label that would read
    like an earlier one shows from just before where the two differ ("…model 3, deluxe…"), else is numbered."""
    shown: list[str] = []
    first_with: dict[str, str] = {}
    for label in labels:
        text = metrics.elidedText(label, Qt.TextElideMode.ElideRight, width)
        if text in first_with:
            earlier = first_with[text]
            same = next((i for i, (a, b) in enumerate(zip(label, earlier)) if a != b), min(len(label), len(earlier)))
            word = label.rfind(" ", 0, same) + 1  # the word that differs, with the one before it if there is room
            for start in (label.rfind(" ", 0, max(0, word - 1)) + 1, word, same):
                text = metrics.elidedText("…" + label[start:], Qt.TextElideMode.ElideRight, width)
                if len(text.rstrip("…")) > same - start + 2:
                    break
        base, count = text, 2
        while text in first_with:
            suffix = f" #{count}"
            text = metrics.elidedText(base, Qt.TextElideMode.ElideRight, width - metrics.horizontalAdvance(suffix))
            text, count = text + suffix, count + 1
        shown.append(text)
        first_with[text] = label
    return shown



class ChartView(QWidget):
    """A chart of the current result, picked automatically; the combos switch Bar/Line/None and the measure."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chartView")
        self._columns: tuple[str, ...] = ()
        self._rows: Sequence[Sequence[Any]] = ()
        self._plan = ChartPlan("none", reason="No results yet")
        self._kind: ChartKind = "none"
        self._format = NumberFormat()
        self._series: tuple[int, ...] = ()
        self._labels: list[str] = []  # the bar categories in full; the axis shows them fitted
        self._values: list[list[float]] = []  # per bar set, for the hover tooltip
        self._title = self._y_title = ""  # in full; shown elided to the space
        self._caption = ""
        self._bar_limit = MAX_BARS

        self.kind_combo = QComboBox(objectName="chartKindCombo")
        for label, kind in (("Bar", "bar"), ("Line", "line"), ("None", "none")):
            self.kind_combo.addItem(label, kind)
        self.kind_combo.setToolTip("Chart type (picked automatically for each result)")
        self.kind_combo.currentIndexChanged.connect(self._kind_chosen)
        self.measure_label = QLabel("Show:")
        self.measure_combo = QComboBox(objectName="chartMeasureCombo")
        self.measure_combo.setToolTip("Measures in different units or of very different size are charted one group at a time")
        self.measure_combo.currentIndexChanged.connect(self._measure_chosen)
        self.note_label = QLabel(objectName="chartNote")
        mark_muted(self.note_label)
        self.note_label.setWordWrap(True)

        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.setSpacing(8)
        bar.addWidget(QLabel("Chart:"))
        bar.addWidget(self.kind_combo)
        bar.addWidget(self.measure_label)
        bar.addWidget(self.measure_combo)
        bar.addWidget(self.note_label, 1)
        self.export_button = QPushButton(qta.icon("fa5s.file-export"), "Export…", objectName="chartExportButton")
        self.export_button.setToolTip("Save the chart as PNG or SVG")
        self.export_button.clicked.connect(self._choose_export)
        bar.addWidget(self.export_button)

        self.chart = QChart()
        self.chart.setAnimationOptions(QChart.AnimationOption.NoAnimation)
        self.chart.setMargins(QMargins(12, 8, 24, 8))  # room for the top tick label and the last bar label
        self.chart_view = QChartView(self.chart, objectName="chartCanvas")
        self.chart_view.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.empty_label = QLabel("No chart for this result", objectName="chartEmptyLabel")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        mark_muted(self.empty_label)
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
        """The chart to ``path`` (SVG when it ends in .svg, else PNG), ``EXPORT_WIDTH`` pixels wide whatever the
        window's size, with its caption (the question and the memories that shaped the rows) under it. Raises
        OSError when it cannot be written."""
        if self._kind == "none":
            raise OSError("There is no chart to export")
        export_chart(self.chart_view, path, title=self._title, caption=self._caption)

    def _choose_export(self) -> None:
        from PySide6.QtWidgets import QFileDialog, QMessageBox

        if self._kind == "none":  # File → Export chart with no chart drawn
            QMessageBox.information(self, "Export chart", "There is no chart to export: ask a question whose rows "
                                    "can be drawn, or choose Bar or Line on the Chart tab.")
            return

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

    def show_answer(self, answer: Any) -> None:
        """An answer's rows as a chart, with what shaped them (the question, the memories applied) as the caption
        of an exported chart."""
        lines = [f"“{answer.question}”" if answer.question else "SQL run by hand"]
        if answer.memories:
            lines.append("With your memories: " + "; ".join(m.content for m in answer.memories))
        self.show_result(answer.columns, answer.rows, NumberFormat.of(answer.display), caption="\n".join(lines))

    def show_result(self, columns: Sequence[str], rows: Sequence[Sequence[Any]],
                    number_format: NumberFormat | None = None, *, caption: str = "") -> None:
        """Pick a chart for these rows and draw it (or say why there is none).

        ``number_format``: the person's saved currency, shown on the y axis of money measures. ``caption``: what
        shaped the rows (the question, the filters from memory), written under an exported chart."""
        self._caption = caption
        self._columns = tuple(str(c) for c in columns)
        self._rows = rows
        self._format = number_format or NumberFormat()
        self._plan = plan_chart(self._columns, rows)
        self._series = self._plan.series
        self.kind_combo.setEnabled(self._plan.drawable)
        self._set_combo(self._plan.kind)
        self._fill_measures()
        self._draw(self._plan.kind)

    def clear(self) -> None:
        self.show_result((), ())

    # -- drawing -----------------------------------------------------------------------------------
    def _set_combo(self, kind: str) -> None:
        self.kind_combo.blockSignals(True)
        self.kind_combo.setCurrentIndex(max(0, self.kind_combo.findData(kind)))
        self.kind_combo.blockSignals(False)

    def _fill_measures(self) -> None:
        """One entry per group of measures that share a scale; hidden when there is one group."""
        self.measure_combo.blockSignals(True)
        self.measure_combo.clear()
        for group in self._plan.groups:
            self.measure_combo.addItem(", ".join(self._columns[c] for c in group), group)
        self.measure_combo.blockSignals(False)
        several = self._plan.drawable and len(self._plan.groups) > 1
        self.measure_label.setVisible(several)
        self.measure_combo.setVisible(several)

    def _kind_chosen(self, _index: int) -> None:
        self._draw(self.kind_combo.currentData())

    def _measure_chosen(self, _index: int) -> None:
        group = self.measure_combo.currentData()
        if group:
            self._series = tuple(group)
            self._draw(self.kind_combo.currentData())

    def _draw(self, kind: str) -> None:
        self._reset_chart()
        plan = self._plan
        if kind == "none" or not plan.drawable:
            self._show_empty(plan.reason if not plan.drawable else "Chart hidden — choose Bar or Line to show it.")
            return
        notes = [self._draw_line(plan) if kind == "line" else self._draw_bars(plan)]
        self._kind = "line" if kind == "line" else "bar"
        x_name = self._columns[plan.x]
        y_names = [self._format.header(self._columns[c]) for c in self._series]
        self.chart.axes(Qt.Orientation.Horizontal)[0].setTitleText(x_name)
        # Several measures: the legend names them, the axis says only their currency (a long title gets cut).
        money = all(self._format.is_money(self._columns[c]) for c in self._series)
        self._y_title = y_names[0] if len(y_names) == 1 else (self._format.currency or "") if money else ""
        self.chart.legend().setVisible(len(self._series) > 1)
        self._title = f"{', '.join(self._columns[c] for c in self._series)} by {x_name}"
        others = [self._columns[c] for group in plan.groups if group != self._series for c in group]
        if others:
            notes.append(f"{', '.join(others)} {'is' if len(others) == 1 else 'are'} on another scale: "
                         "choose under Show")
        self.note_label.setText("; ".join(n for n in notes if n))
        self.stack.setCurrentWidget(self.chart_view)
        self.export_button.setEnabled(True)
        self._fit_labels()

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
        self._labels, self._values = [], []
        self.chart_view.setToolTip("")

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
        if plan.x_kind in ("time", "ordered_category"):
            # Month text ("2024-03") is read as dates too: a date axis spaces and thins its labels.
            dates = [iso_date(row[plan.x]) if plan.x_kind == "ordered_category" else row[plan.x] for row in rows]
            xs = [msecs(value) for value in dates]
            time_axis = QDateTimeAxis()
            sample = next((d for d in dates if d is not None), None)
            fmt = "HH:mm" if isinstance(sample, _dt.time) else "yyyy-MM-dd"
            if isinstance(sample, _dt.date) and all(isinstance(d, _dt.date) and d.day == 1 for d in dates[:400]):
                fmt = "MMM yy"  # monthly series: "Mar 25" reads better (and fits) than 2025-03-01
            if isinstance(sample, _dt.datetime) and any(
                isinstance(d, _dt.datetime) and d.time() != _dt.time.min for d in dates[:200]
            ):
                fmt = "yyyy-MM-dd HH:mm"
            time_axis.setFormat(fmt)
            time_axis.setTickCount(min(6, max(2, len(rows))))
            x_axis = time_axis
        else:
            xs = [number(row[plan.x]) for row in rows]
            value_axis = QValueAxis()
            whole = all(x is None or float(x).is_integer() for x in xs)
            value_axis.setLabelFormat("%.0f" if whole or max((abs(x) for x in xs if x), default=0) >= 1000 else "%g")
            x_axis = value_axis
        self.chart.addAxis(x_axis, Qt.AlignmentFlag.AlignBottom)
        low, high = math.inf, -math.inf
        lines = []
        for column in self._series:
            series = QLineSeries()
            series.setName(self._columns[column])
            points = []
            for x, row in zip(xs, rows):
                y = number(row[column])
                if x is not None and y is not None:
                    points.append(QPointF(x, y))
                    low, high = min(low, y), max(high, y)
            series.replace(points)
            self.chart.addSeries(series)
            series.attachAxis(x_axis)
            lines.append(series)
        y_axis = self._value_axis(low, high, zero=False)
        for series in lines:
            series.attachAxis(y_axis)
        return "; ".join(notes)

    def _draw_bars(self, plan: ChartPlan) -> str:
        self._bar_limit = self._bars_that_fit()
        rows, note = bar_rows(self._columns, self._rows, plan, self._series, self._bar_limit)
        bar_series = QBarSeries()
        low, high = 0.0, 0.0
        for column in self._series:
            bar_set = QBarSet(self._columns[column])
            values = [number(row[column]) or 0.0 for row in rows]
            bar_set.append(values)
            bar_series.append(bar_set)
            self._values.append(values)
            if values:
                low, high = min(low, min(values)), max(high, max(values))
        self.chart.addSeries(bar_series)
        x_axis = QBarCategoryAxis()
        self._labels = unique_labels([row[plan.x] for row in rows])
        x_axis.append(self._labels)
        self.chart.addAxis(x_axis, Qt.AlignmentFlag.AlignBottom)
        bar_series.attachAxis(x_axis)
        bar_series.attachAxis(self._value_axis(low, high, zero=True))
        bar_series.hovered.connect(self._bar_hovered)
        return note

    def _value_axis(self, low: float, high: float, *, zero: bool) -> QCategoryAxis:
        """The y axis on round numbers with labels an analyst reads: separators, the currency for money,
        never 1e+06; from zero for bars. A category axis is the one QtCharts axis with free label text."""
        columns = [self._columns[c] for c in self._series]
        whole = all(
            isinstance(row[c], int) or row[c] is None for c in self._series for row in self._rows[:500]
        )
        start, end, step = nice_scale(low, high, zero=zero, whole=whole)
        money = all(self._format.is_money(name) for name in columns)
        currency = self._format.currency if money else None
        axis = QCategoryAxis()
        axis.setLabelsPosition(QCategoryAxis.AxisLabelsPosition.AxisLabelsPositionOnValue)
        axis.setStartValue(start)
        for i in range(round((end - start) / step) + 1):
            value = start + i * step
            axis.append(format_tick(value, step, currency=currency), value)
        axis.setRange(start, end)
        self.chart.addAxis(axis, Qt.AlignmentFlag.AlignLeft)
        return axis

    # -- labels that fit ---------------------------------------------------------------------------
    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self._kind == "bar" and self._bars_that_fit() != self._bar_limit:
            self._draw("bar")
        else:
            self._fit_labels()

    def _chart_size(self) -> tuple[float, float]:
        """The chart's size now, or what it will be once shown (a hidden stack has no geometry yet)."""
        if self.chart_view.isVisible():
            return float(self.chart_view.width()), float(self.chart_view.height())
        return max(200.0, self.width() - 16.0), max(150.0, self.height() - 60.0)

    def _bars_that_fit(self) -> int:
        """As many bars as upright labels can sit under (a narrow window or a large font shows fewer)."""
        line = QFontMetricsF(QBarCategoryAxis().labelsFont()).height() + 8  # a label item's own margins
        width, _height = self._chart_size()
        return max(5, min(MAX_BARS, int(width // (line + 2 * _LABEL_PADDING + 2)) - 1))

    def _fit_labels(self) -> None:
        """Titles and bar labels as long as the space allows, so QtCharts never cuts them to "...": bar labels
        straight when they fit under their bar, else turned upright (a turned label must still fit its bar's
        width) and elided to the height the x axis may take; hovering a bar shows the full text."""
        width, height = self._chart_size()
        title_metrics = QFontMetricsF(self.chart.titleFont())
        self.chart.setTitle(title_metrics.elidedText(self._title, Qt.TextElideMode.ElideRight, width - 48))
        for axis in self.chart.axes(Qt.Orientation.Vertical):
            metrics = QFontMetricsF(axis.titleFont())
            axis.setTitleText(metrics.elidedText(self._y_title, Qt.TextElideMode.ElideRight, height * 0.45))
        for time_axis in self.chart.axes(Qt.Orientation.Horizontal):
            if isinstance(time_axis, QDateTimeAxis):  # as many date ticks as their labels fit side by side
                label = QFontMetricsF(time_axis.labelsFont()).horizontalAdvance(
                    time_axis.min().toString(time_axis.format()) + "00")
                fit = int((width - 120) // max(1.0, label + 2 * _LABEL_PADDING)) + 1
                time_axis.setTickCount(max(2, min(6, len(self._rows), fit)))
        axes = [a for a in self.chart.axes(Qt.Orientation.Horizontal) if isinstance(a, QBarCategoryAxis)]
        if not axes or not self._labels:
            return
        axis = axes[0]
        axis.setTitleVisible(True)
        metrics = QFontMetricsF(axis.labelsFont())
        title = QFontMetricsF(axis.titleFont()).height() if axis.titleText() else 0.0
        per_bar = width / (len(self._labels) + 1) - 2 * _LABEL_PADDING  # as QtCharts measures a label's room
        if max(metrics.horizontalAdvance(label) for label in self._labels) + 10 <= per_bar:
            angle, shown = 0, list(self._labels)
        else:
            # QtCharts gives the x axis at most 40% of the plot's height; the chart title and legend come off first.
            plot = height - 2 * title_metrics.height() - 24
            if len(self._series) > 1:
                plot -= QFontMetricsF(self.chart.legend().font()).height() + 16
            # Less the axis title, Qt's paddings and the text items' own margins, with a little to spare.
            room = plot * _AXIS_SHARE - title - 3 * _LABEL_PADDING - 24
            shortest = metrics.horizontalAdvance("Wwww…")
            if room < 2 * shortest and title:  # a small chart: the chart's title already names the x column
                axis.setTitleVisible(False)
                room += title + 8
            angle, shown = -90, _elided(self._labels, metrics, max(shortest, room))
        axis.setLabelsAngle(angle)
        if list(axis.categories()) != shown:
            axis.setCategories(shown)

    def _bar_hovered(self, status: bool, index: int, bar_set: QBarSet) -> None:
        """The full label and the value under the pointer, however the axis had to shorten the label."""
        if not status or not 0 <= index < len(self._labels):
            self.chart_view.setToolTip("")
            return
        sets = self.chart.series()[0].barSets() if self.chart.series() else []
        position = next((i for i, s in enumerate(sets) if s is bar_set), 0)
        column = self._series[position] if position < len(self._series) else self._series[0]
        value = self._values[position][index] if position < len(self._values) else 0.0
        shown = display_text(int(value) if float(value).is_integer() else value)
        if self._format.currency and self._format.is_money(self._columns[column]):
            shown = f"{shown} {self._format.currency}"
        text = f"{self._labels[index]}\n{self._columns[column]}: {shown}"
        self.chart_view.setToolTip(text)  # Qt shows it while the pointer rests on the bar

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
