"""The chart picks a line for dates, bars for categories, nothing for text; the combo switches."""

from __future__ import annotations

import datetime as dt
import decimal

from PySide6.QtCharts import QBarCategoryAxis, QBarSeries, QDateTimeAxis, QLineSeries
from PySide6.QtCore import Qt

from desktop.chart_view import MAX_BARS, ChartView, plan_chart


def _chart(qtbot) -> ChartView:
    view = ChartView()
    qtbot.addWidget(view)
    view.resize(640, 420)
    return view


def test_date_and_number_make_a_line_chart(qtbot):
    view = _chart(qtbot)
    rows = [(dt.date(2024, 1, 1) + dt.timedelta(days=i), decimal.Decimal(i * 3) / 2, i) for i in range(10)]
    view.show_result(("order_date", "revenue", "orders"), rows)
    assert view.chart_kind == "line"
    series = view.chart.series()
    assert [s.name() for s in series] == ["revenue", "orders"]
    assert all(isinstance(s, QLineSeries) for s in series)
    assert series[0].count() == 10 and series[0].at(3).y() == 4.5  # Decimal converted
    x_axis = view.chart.axes(Qt.Orientation.Horizontal)[0]
    assert isinstance(x_axis, QDateTimeAxis) and x_axis.titleText() == "order_date"
    assert view.chart.axes(Qt.Orientation.Vertical)[0].titleText() == "revenue, orders"
    assert view.kind_combo.currentData() == "line"
    assert view.stack.currentWidget() is view.chart_view


def test_category_and_number_make_a_bar_chart_of_the_top_30(qtbot):
    view = _chart(qtbot)
    rows = [(f"city {i}", i * 10, 1) for i in range(45)]
    view.show_result(("city", "customers", "shops"), rows)
    assert view.chart_kind == "bar"
    (series,) = view.chart.series()
    assert isinstance(series, QBarSeries)
    assert [s.label() for s in series.barSets()] == ["customers", "shops"]
    axis = view.chart.axes(Qt.Orientation.Horizontal)[0]
    assert isinstance(axis, QBarCategoryAxis)
    assert axis.count() == MAX_BARS and axis.at(0) == "city 44"  # largest first
    assert "15 more" in view.note_label.text()


def test_text_only_result_has_no_chart_and_the_combo_switches(qtbot):
    view = _chart(qtbot)
    view.show_result(("name", "email"), [("Ann", "a@x"), ("Bob", "b@x")])
    assert view.chart_kind == "none"
    assert view.stack.currentWidget() is view.empty_label
    assert "No chart for this result" in view.empty_label.text()
    assert not view.kind_combo.isEnabled()

    view.show_result(("status", "n"), [("paid", 3), ("open", 5), (None, 1)])
    assert view.chart_kind == "bar"
    view.kind_combo.setCurrentIndex(view.kind_combo.findData("line"))
    assert view.chart_kind == "line"
    view.kind_combo.setCurrentIndex(view.kind_combo.findData("none"))
    assert view.chart_kind == "none" and view.chart.series() == []
    view.clear()
    assert view.chart_kind == "none"


def test_plan_rules():
    # an ordered number column (a year) with a measure: a line over it
    assert plan_chart(("year", "total"), [(2020, 1.0), (2021, 2.0), (2022, 1.5)]).kind == "line"
    # numbers in no order (ids): bars
    assert plan_chart(("customer_id", "total"), [(7, 1.0), (2, 2.0), (9, 1.5)]).kind == "bar"
    # a label after the number is used as the category; id-like numbers are not plotted over measures
    plan = plan_chart(("n", "status", "shop_id"), [(3, "paid", 1), (5, "open", 2)])
    assert (plan.kind, plan.x, plan.series) == ("bar", 1, (0,))
    # month text from to_char is ordered
    assert plan_chart(("month", "n"), [("2024-01", 1), ("2024-02", 4)]).kind == "line"
    # a single number, or nothing at all
    assert plan_chart(("count",), [(42,)]).kind == "none"
    assert plan_chart(("a", "b"), []).kind == "none"
    # at most three series
    assert len(plan_chart(("d", "a", "b", "c", "e"), [(dt.date(2024, 1, 1), 1, 2, 3, 4)]).series) == 3


def test_a_chart_exports_to_png_and_svg(qtbot, tmp_path):
    view = ChartView()
    qtbot.addWidget(view)
    view.resize(600, 400)
    assert not view.export_button.isEnabled()
    view.show_result(("city", "customers"), [("Pune", 3), ("Delhi", 5)])
    assert view.export_button.isEnabled() and view.chart.title() == "customers by city"
    png, svg = tmp_path / "c.png", tmp_path / "c.svg"
    view.export(str(png))
    view.export(str(svg))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in svg.read_bytes()[:400]
