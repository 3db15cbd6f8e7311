"""The chart picks a line for dates, bars for categories, nothing for text or detail rows; labels fit,
one unit per axis, round formatted ticks, bars from zero."""

from __future__ import annotations

import datetime as dt
import decimal

import pytest
from PySide6.QtCharts import (
    QBarCategoryAxis,
    QBarSeries,
    QCategoryAxis,
    QDateTimeAxis,
    QLineSeries,
)
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication, QGraphicsTextItem

from core.number_format import NumberFormat
from desktop.panels.chart_choice import format_tick, nice_scale, unit_of
from desktop.panels.chart_view import MAX_BARS, ChartView, plan_chart


def _chart(qtbot) -> ChartView:
    view = ChartView()
    qtbot.addWidget(view)
    view.resize(640, 420)
    return view


def test_date_and_number_make_a_line_chart(qtbot):
    view = _chart(qtbot)
    rows = [(dt.date(2024, 1, 1) + dt.timedelta(days=i), decimal.Decimal(i * 3) / 2, i) for i in range(10)]
    view.show_result(("order_date", "revenue", "cost"), rows)
    assert view.chart_kind == "line"
    series = view.chart.series()
    assert [s.name() for s in series] == ["revenue", "cost"]  # both money, of one size: one axis
    assert all(isinstance(s, QLineSeries) for s in series)
    assert series[0].count() == 10 and series[0].at(3).y() == 4.5  # Decimal converted
    x_axis = view.chart.axes(Qt.Orientation.Horizontal)[0]
    assert isinstance(x_axis, QDateTimeAxis) and x_axis.titleText() == "order_date"
    assert view.chart.legend().isVisible()  # the legend names the two; the axis title would be cut
    assert view.kind_combo.currentData() == "line"
    assert view.stack.currentWidget() is view.chart_view


def test_category_and_number_make_a_bar_chart_of_the_top_20(qtbot):
    view = _chart(qtbot)
    view.resize(900, 560)
    rows = [(f"city {i}", i * 10, i * 7) for i in range(45)]
    view.show_result(("city", "customers", "shops"), rows)
    assert view.chart_kind == "bar"
    (series,) = view.chart.series()
    assert isinstance(series, QBarSeries)
    assert [s.label() for s in series.barSets()] == ["customers", "shops"]
    axis = view.chart.axes(Qt.Orientation.Horizontal)[0]
    assert isinstance(axis, QBarCategoryAxis)
    assert MAX_BARS == 20 and axis.count() == 20 and axis.at(0) == "city 44"  # largest first
    assert view.note_label.text().startswith("Top 20 of 45 rows by customers")
    assert "the other 25 are in the table" in view.note_label.text()


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


# -- labels are never cut ------------------------------------------------------------------------------
def _cut_or_outside(view: ChartView) -> list[str]:
    """Visible chart texts that QtCharts cut to "..." or that fall outside the canvas."""
    canvas = QRectF(0, 0, view.chart_view.viewport().width(), view.chart_view.viewport().height())
    bad = []
    for item in view.chart_view.scene().items():
        if isinstance(item, QGraphicsTextItem) and item.isVisible():
            text = item.toPlainText()
            if "..." in text or not canvas.adjusted(-1, -1, 1, 1).contains(item.sceneBoundingRect()):
                bad.append(text)
    return bad


@pytest.mark.parametrize(("points", "size"), [(9, (900, 560)), (14, (900, 560)), (14, (760, 520))])
def test_long_labels_are_elided_never_cut_and_the_tooltip_has_them_in_full(qtbot, points, size):
    app = QApplication.instance()
    font = app.font()
    bigger = QFont(font)
    bigger.setPointSize(points)
    app.setFont(bigger)
    try:
        view = ChartView()
        qtbot.addWidget(view)
        view.resize(*size)
        view.show()
        qtbot.waitExposed(view)
        names = [f"Premium stainless steel water bottle, model {i}, deluxe gift edition" for i in range(25)]
        view.show_result(("product_name", "revenue"), [(n, 1000 + i) for i, n in enumerate(names)],
                         NumberFormat("INR"))
        QApplication.processEvents()
        assert _cut_or_outside(view) == []
        axis = view.chart.axes(Qt.Orientation.Horizontal)[0]
        shown = list(axis.categories())
        assert all("…" in label for label in shown) and len(set(shown)) == len(shown), shown
        assert shown[0].startswith("Premium") and "23" in shown[1]  # the part that differs stays
        assert axis.labelsAngle() == -90
        (series,) = view.chart.series()
        series.hovered.emit(True, 0, series.barSets()[0])
        assert view.chart_view.toolTip() == f"{names[24]}\nrevenue: 1,024 INR"  # largest first, in full
    finally:
        app.setFont(font)


def test_short_labels_stay_straight_and_whole(qtbot):
    view = _chart(qtbot)
    view.show()
    qtbot.waitExposed(view)
    view.show_result(("status", "orders"), [("paid", 30), ("open", 12), ("refunded", 4)])
    axis = view.chart.axes(Qt.Orientation.Horizontal)[0]
    assert list(axis.categories()) == ["paid", "open", "refunded"] and axis.labelsAngle() == 0
    assert _cut_or_outside(view) == []


# -- mixed units ---------------------------------------------------------------------------------------
def test_a_count_and_an_amount_are_not_drawn_on_one_axis(qtbot):
    view = _chart(qtbot)
    rows = [("Pune", decimal.Decimal("125000.50"), 40), ("Delhi", decimal.Decimal(98000), 31)]
    view.show_result(("city", "revenue", "orders"), rows)
    assert [s.label() for s in view.chart.series()[0].barSets()] == ["revenue"]
    assert view.measure_combo.isVisibleTo(view) and view.measure_combo.count() == 2
    assert view.note_label.text() == "orders is on another scale: choose under Show"
    view.measure_combo.setCurrentIndex(1)
    assert [s.label() for s in view.chart.series()[0].barSets()] == ["orders"]
    assert view.chart.title() == "orders by city"
    assert view.note_label.text() == "revenue is on another scale: choose under Show"
    # one measure: no chooser
    view.show_result(("city", "orders"), [("Pune", 40), ("Delhi", 31)])
    assert not view.measure_combo.isVisibleTo(view) and view.note_label.text() == ""


def test_measures_are_grouped_by_unit_and_size():
    rows = [(dt.date(2024, 1, 1), 120000.0, 90000.0, 410, 3.5, 0.12)]
    plan = plan_chart(("month", "revenue", "cost", "orders", "avg_rating", "return_rate"), rows)
    assert plan.groups == ((1, 2), (3,), (4,), (5,)) and plan.series == (1, 2)
    # same unit, far apart in size (a total and a per-order amount): separate
    assert plan_chart(("day", "total_sales", "avg_order_value"),
                      [(dt.date(2024, 1, 1), 2_500_000.0, 812.0)]).groups == ((1,), (2,))
    assert (unit_of("TotalAmount"), unit_of("n_orders"), unit_of("conversionRate"), unit_of("avg_stars")) == (
        "money", "other", "percent", "average")


# -- detail rows ---------------------------------------------------------------------------------------
def test_204_detail_rows_with_repeating_labels_get_no_chart_but_a_plain_reason(qtbot):
    view = _chart(qtbot)
    rows = [(1000 + i, f"customer {i % 37}", 10.0 + i) for i in range(204)]
    view.show_result(("order_id", "customer_name", "amount"), rows)
    assert view.chart_kind == "none" and view.chart.series() == []
    text = view.empty_label.text()
    assert "204 detail rows: a chart needs a grouped answer" in text
    assert '"amount by customer_name"' in text


def test_204_named_rows_chart_the_top_20_by_the_measure(qtbot):
    view = _chart(qtbot)
    view.resize(900, 560)
    rows = [(i, f"customer {i}", float(i * 7 % 204)) for i in range(204)]
    view.show_result(("customer_id", "customer_name", "revenue"), rows)
    assert view.chart_kind == "bar"
    (series,) = view.chart.series()
    values = [series.barSets()[0].at(i) for i in range(series.barSets()[0].count())]
    assert len(values) == 20 and values == sorted(values, reverse=True) and values[0] == 203.0
    assert view.note_label.text() == "Top 20 of 204 rows by revenue, largest first; the other 184 are in the table"


def test_a_time_series_of_204_days_is_a_line_with_every_point(qtbot):
    view = _chart(qtbot)
    rows = [(dt.date(2024, 1, 1) + dt.timedelta(days=i), i % 17) for i in range(204)]
    view.show_result(("day", "orders"), rows)
    assert view.chart_kind == "line" and view.chart.series()[0].count() == 204
    assert view.note_label.text() == ""
    # month text from to_char is drawn on a date axis too, so its labels thin out instead of piling up
    view.show_result(("month", "orders"), [(f"{2010 + i // 12}-{i % 12 + 1:02d}", i) for i in range(120)])
    assert isinstance(view.chart.axes(Qt.Orientation.Horizontal)[0], QDateTimeAxis)
    assert view.chart.series()[0].count() == 120


# -- the y axis ----------------------------------------------------------------------------------------
def _y_axis(view: ChartView) -> QCategoryAxis:
    (axis,) = view.chart.axes(Qt.Orientation.Vertical)
    assert isinstance(axis, QCategoryAxis)
    return axis


def test_bar_y_axis_starts_at_zero_with_separators_and_the_currency(qtbot):
    view = _chart(qtbot)
    view.show_result(("region", "revenue"), [("North", 1_234_567.5), ("South", 904_000.0)], NumberFormat("INR"))
    axis = _y_axis(view)
    assert (axis.min(), axis.max()) == (0.0, 1_250_000.0)
    assert list(axis.categoriesLabels()) == ["₹0", "₹250,000", "₹500,000", "₹750,000", "₹1,000,000", "₹1,250,000"]
    assert axis.titleText() == "revenue (INR)"
    # bars far from zero still start at zero
    view.show_result(("region", "orders"), [("North", 950), ("South", 990)])
    axis = _y_axis(view)
    assert axis.min() == 0.0 and axis.max() == 1000.0 and "1,000" in axis.categoriesLabels()


def test_negative_bars_and_lines_off_zero(qtbot):
    view = _chart(qtbot)
    view.show_result(("month_name", "profit"), [("Jan", -12_000.0), ("Feb", 30_500.0), ("Mar", 8_000.0)])
    axis = _y_axis(view)
    assert axis.min() < -12_000 and axis.max() >= 30_500
    labels = list(axis.categoriesLabels())
    assert "0" in labels and labels[0].startswith("-") and not any("e+" in label for label in labels)
    # a line may zoom in: it need not start at zero
    view.show_result(("day", "price"), [(dt.date(2024, 1, d), 95.5 + d / 2) for d in range(1, 12)])
    axis = _y_axis(view)
    assert axis.min() >= 90 and axis.max() <= 102


def test_tick_format_and_scale_rules():
    assert nice_scale(0, 7, zero=True, whole=True) == (0.0, 8.0, 2.0)
    assert nice_scale(-300, 1200, zero=True) == (-500.0, 1500.0, 500.0)
    assert nice_scale(95.5, 101.2, zero=False) == (94.0, 102.0, 2.0)
    assert nice_scale(5, 5, zero=True, whole=True)[:2] == (0.0, 5.0)
    assert format_tick(12_500_000.0, 2_500_000.0) == "12,500,000"
    assert format_tick(2.5, 2.5) == "2.5" and format_tick(0.25, 0.25) == "0.25"
    assert format_tick(-1500.0, 500.0, currency="USD") == "-$1,500"
    assert format_tick(2000.0, 1000.0, currency="CHF") == "CHF 2,000"


def test_an_exported_chart_has_a_fixed_width_and_says_what_shaped_it(qtbot, tmp_path):
    from PySide6.QtGui import QImage

    from desktop.panels.chart_export import EXPORT_WIDTH

    view = ChartView()
    qtbot.addWidget(view)
    caption = "“Customers per city”\nWith your memories: Only show customers from India"
    for size in ((500, 350), (1200, 700)):  # whatever the window's size
        view.resize(*size)
        view.show_result(("city", "customers"), [("Pune", 3), ("Delhi", 5)], caption=caption)
        png = tmp_path / f"c{size[0]}.png"
        view.export(str(png))
        image = QImage(str(png))
        assert image.width() == EXPORT_WIDTH and image.height() > EXPORT_WIDTH * size[1] / size[0]  # + caption
    svg = tmp_path / "c.svg"
    view.export(str(svg))
    text = svg.read_text(encoding="utf-8")
    assert "customers by city" in text and "Only show customers from India" in text
