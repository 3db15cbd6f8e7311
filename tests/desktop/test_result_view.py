"""The result grid: a 100k-row model that sorts and formats on demand, copy as TSV, CSV export, banners."""

from __future__ import annotations

import csv
import datetime as dt
import decimal
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QItemSelection, QItemSelectionModel, Qt
from PySide6.QtGui import QGuiApplication

from core.answer import Answer
from core.errors import CairnError
from desktop.panels.result_model import (
    NULL_ROLE,
    RAW_VALUE_ROLE,
    ResultTableModel,
    display_text,
    export_text,
    is_identifier_column,
)
from desktop.panels.result_view import ResultView, write_csv_atomically

ASC = Qt.SortOrder.AscendingOrder
DESC = Qt.SortOrder.DescendingOrder
DISPLAY = Qt.ItemDataRole.DisplayRole
N = 100_000


def _big_rows() -> tuple[tuple[object, ...], ...]:
    names = ("émile", "Zoë", "bob", "Alice", None)
    return tuple(
        (
            i,
            names[i % 5],
            None if i % 10 == 0 else (i * 7919) % 100_003 / 10,
            decimal.Decimal((i * 31) % 997) / 4,
            dt.date(2020, 1, 1) + dt.timedelta(days=i % 1500),
        )
        for i in range(N)
    )


@pytest.fixture(scope="module")
def big_rows() -> tuple[tuple[object, ...], ...]:
    return _big_rows()


def _column(model: ResultTableModel, column: int, rows: range) -> list[object]:
    return [model.data(model.index(r, column), RAW_VALUE_ROLE) for r in rows]


def test_model_loads_sorts_and_shows_100k_rows(qapp, big_rows):
    model = ResultTableModel()
    started = time.perf_counter()
    model.set_result(("order_id", "name", "score", "amount", "day"), big_rows)
    assert time.perf_counter() - started < 0.5
    assert (model.rowCount(), model.columnCount()) == (N, 5)
    assert model.kinds == ("integer", "text", "float", "decimal", "date")

    started = time.perf_counter()
    model.sort(2, DESC)
    elapsed = time.perf_counter() - started
    assert elapsed < 1.5  # ~60 ms measured; generous for slow CI
    scores = _column(model, 2, range(N))
    present = [s for s in scores if s is not None]
    assert present == sorted(present, reverse=True)
    assert scores[len(present):] == [None] * (N - len(present))  # NULLs last
    assert model.data(model.index(N - 1, 2), NULL_ROLE) is True
    assert model.data(model.index(N - 1, 2), DISPLAY) == "NULL"

    model.sort(1, ASC)  # text: case-insensitive, NULLs last
    names = _column(model, 1, range(0, N, 997))
    present_names = [n for n in names if n is not None]
    assert present_names == sorted(present_names, key=str.casefold)
    assert model.data(model.index(0, 1), DISPLAY) == "Alice"
    assert model.data(model.index(N - 1, 1), DISPLAY) == "NULL"

    model.sort(3, ASC)
    amounts = _column(model, 3, range(0, N, 1000))
    assert amounts == sorted(amounts)

    model.sort(-1, ASC)  # back to the query's own order
    assert _column(model, 0, range(5)) == [0, 1, 2, 3, 4]
    # a visible row's cells: ids without separators, quantities with them, ISO dates
    row = 12345
    assert model.data(model.index(row, 0), DISPLAY) == "12345"
    assert model.data(model.index(row, 2), DISPLAY) == display_text(big_rows[row][2])
    assert model.data(model.index(row, 4), DISPLAY) == big_rows[row][4].isoformat()


def test_formatting_alignment_and_header_tooltip(qapp):
    model = ResultTableModel()
    rows = (
        (1234567, 1234567, 1234.5, decimal.Decimal("98765.40"), "x" * 400, b"\x01\xff", True, None),
    )
    model.set_result(("CustomerId", "total_units", "ratio", "revenue", "notes", "blob", "flag", "nothing"), rows)
    texts = [model.data(model.index(0, c), DISPLAY) for c in range(8)]
    assert texts[:4] == ["1234567", "1,234,567", "1,234.5", "98,765.40"]
    assert texts[4].endswith("…") and len(texts[4]) < 400
    assert texts[5] == "\\x01ff"
    assert texts[6:] == ["true", "NULL"]
    right = int((Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter).value)
    assert model.data(model.index(0, 1), Qt.ItemDataRole.TextAlignmentRole) == right
    assert model.data(model.index(0, 4), Qt.ItemDataRole.TextAlignmentRole) != right
    assert model.data(model.index(0, 7), Qt.ItemDataRole.ForegroundRole) is not None  # greyed NULL
    assert model.data(model.index(0, 1), Qt.ItemDataRole.ForegroundRole) is None
    tip = model.headerData(3, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    assert "revenue" in tip and "decimal" in tip
    assert is_identifier_column("order_id") and is_identifier_column("ArtistId") and is_identifier_column("year")
    assert not is_identifier_column("paid") and not is_identifier_column("total_amount")


def test_sort_handles_mixed_types_and_keeps_the_selection(qtbot):
    view = ResultView()
    qtbot.addWidget(view)
    rows = ((3, "c"), ("two", "b"), (None, "n"), (1.5, "a"), (dt.date(2024, 1, 1), "d"), (decimal.Decimal(2), "e"))
    view.show_rows(("mixed", "tag"), rows)
    model = view.model
    selection = view.table.selectionModel()
    selection.select(model.index(1, 1), QItemSelectionModel.SelectionFlag.ClearAndSelect)
    model.sort(0, ASC)
    order = _column(model, 1, range(len(rows)))
    assert order == ["a", "e", "c", "d", "b", "n"]  # numbers, then dates, then text, NULL last
    selected = selection.selectedIndexes()
    assert [model.data(i, DISPLAY) for i in selected] == ["b"]


def test_truncated_banner_count_and_empty_state(qtbot):
    view = ResultView()
    qtbot.addWidget(view)
    assert view.stack.currentWidget() is view.empty_label
    assert view.empty_label.text() == "No results yet"
    assert not view.export_button.isEnabled()

    rows = tuple((i,) for i in range(1000))
    view.show_answer(Answer(question="q", sql="SELECT 1", columns=("n",), rows=rows, truncated=True))
    assert view.count_label.text() == "1,000 rows"
    assert not view.truncated_label.isHidden()
    assert "showing the first 1,000" in view.truncated_label.text()
    assert view.stack.currentWidget() is view.table

    view.show_answer(Answer(question="q", sql="SELECT 1", columns=("n",), rows=((1,),)))
    assert view.count_label.text() == "1 row"
    assert view.truncated_label.isHidden()

    view.clear()
    assert view.stack.currentWidget() is view.empty_label
    assert view.model.rowCount() == 0


SAMPLE_COLUMNS = ("id", "name", "joined", "amount", "note")
SAMPLE_ROWS = (
    (1, "Zoë", dt.date(2024, 2, 29), decimal.Decimal("1234.50"), None),
    (2, "日本", dt.datetime(2024, 3, 1, 12, 30), 7.25, "tab\there"),
    (3, "Ann", None, None, "line\nbreak"),
)


def test_copy_selection_as_tsv_with_headers(qtbot):
    view = ResultView()
    qtbot.addWidget(view)
    view.show_rows(SAMPLE_COLUMNS, SAMPLE_ROWS)
    model = view.model
    selection = view.table.selectionModel()
    block = QItemSelection(model.index(0, 1), model.index(1, 3))
    selection.select(block, QItemSelectionModel.SelectionFlag.ClearAndSelect)
    view.copy_button.click()
    assert QGuiApplication.clipboard().text() == (
        "name\tjoined\tamount\n" "Zoë\t2024-02-29\t1234.50\n" "日本\t2024-03-01T12:30:00\t7.25\n"
    )

    selection.select(model.index(2, 4), QItemSelectionModel.SelectionFlag.ClearAndSelect)
    view.table.setFocus()
    QGuiApplication.clipboard().clear()
    qtbot.keyClick(view.table, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QGuiApplication.clipboard().text() == "note\nline break\n"

    selection.clearSelection()
    assert view.selection_tsv().splitlines()[0] == "id\tname\tjoined\tamount\tnote"
    assert len(view.selection_tsv().splitlines()) == 4


def test_export_csv_writes_utf8_iso_dates_and_empty_nulls(qtbot, tmp_path: Path):
    chosen = tmp_path / "out"
    view = ResultView(ask_save_path=lambda parent, suggested: str(chosen))
    qtbot.addWidget(view)
    view.show_rows(SAMPLE_COLUMNS, SAMPLE_ROWS)
    view.model.sort(0, DESC)  # export follows the order shown
    with qtbot.waitSignal(view.export_finished, timeout=5000) as blocker:
        view.export_button.click()
    written = Path(blocker.args[0])
    assert written == tmp_path / "out.csv"
    with written.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows == [
        list(SAMPLE_COLUMNS),
        ["3", "Ann", "", "", "line\nbreak"],
        ["2", "日本", "2024-03-01T12:30:00", "7.25", "tab\there"],
        ["1", "Zoë", "2024-02-29", "1234.50", ""],
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]  # no temp file left
    qtbot.waitUntil(view.export_button.isEnabled)


def test_failed_export_leaves_nothing_and_explains(tmp_path: Path):
    with pytest.raises(CairnError) as info:
        write_csv_atomically(tmp_path / "missing" / "x.csv", ("a",), ((1,),))
    assert "folder" in info.value.hint
    target = tmp_path / "x.csv"
    with pytest.raises(CairnError):
        write_csv_atomically(target, ("a",), ((1,),), cancel=_Cancelled())
    assert list(tmp_path.iterdir()) == []
    assert export_text(dt.time(9, 5)) == "09:05:00" and export_text([1, "a"]) == '[1, "a"]'


class _Cancelled:
    cancelled = True


def test_decimal_sort_is_exact_where_floats_tie(qapp):
    model = ResultTableModel()
    fine = decimal.Decimal("0.10000000000000000001")
    rows = ((fine,), (decimal.Decimal("0.1"),), (None,), (decimal.Decimal("-2"),), (3,), (decimal.Decimal("0.1"),))
    model.set_result(("price",), rows)
    assert model.kinds == ("number",)
    model.sort(0, ASC)
    values = _column(model, 0, range(len(rows)))
    assert values == [decimal.Decimal("-2"), decimal.Decimal("0.1"), decimal.Decimal("0.1"), fine, 3, None]
    model.sort(0, DESC)
    assert _column(model, 0, range(len(rows)))[:2] == [3, fine]


def test_saved_currency_and_decimals_format_headers_and_cells_not_exports(qtbot, tmp_path):
    view = ResultView()
    qtbot.addWidget(view)
    rows = ((1, "Pune", decimal.Decimal("1234.5"), 3.14159, 7),)
    view.show_answer(Answer(question="q", sql="SELECT 1", columns=("id", "city", "total_amount", "share", "n"),
                            rows=rows, display={"currency": "INR", "decimals": 2}))
    model = view.model
    headers = [model.headerData(c, Qt.Orientation.Horizontal, DISPLAY) for c in range(5)]
    assert headers == ["id", "city", "total_amount (INR)", "share", "n"]
    cells = [model.data(model.index(0, c), DISPLAY) for c in range(5)]
    assert cells == ["1", "Pune", "1,234.50", "3.14", "7"]
    assert model.data(model.index(0, 2), RAW_VALUE_ROLE) == decimal.Decimal("1234.5")  # the value itself is kept
    view.show_answer(Answer(question="q", sql="SELECT 1", columns=("total_amount",), rows=((2.5,),)))
    assert model.headerData(0, Qt.Orientation.Horizontal, DISPLAY) == "total_amount"  # no saved format: none


def test_long_decimals_are_shown_short_and_kept_whole_in_the_tooltip_and_exports() -> None:
    import decimal

    from desktop.panels.result_model import ResultTableModel, export_text

    average = decimal.Decimal("1234.5678901234567890")  # what PostgreSQL's avg() returns
    assert display_text(average) == "1,234.5679"
    assert display_text(decimal.Decimal("12.50")) == "12.50"  # as stored when it is short
    assert display_text(decimal.Decimal("0.000123456789")) == "0.0001235"
    assert display_text(0.1 + 0.2) == "0.3" and display_text(decimal.Decimal("0E-20")) == "0"
    assert export_text(average) == "1234.5678901234567890"
    model = ResultTableModel()
    model.set_result(("avg",), [(average,)])
    from PySide6.QtCore import Qt

    assert model.data(model.index(0, 0), int(Qt.ItemDataRole.ToolTipRole.value)) == "1234.5678901234567890"


def test_rows_are_filtered_by_the_words_typed_and_exports_keep_every_row(qtbot, tmp_path):
    view = ResultView()
    qtbot.addWidget(view)
    view.show_rows(SAMPLE_COLUMNS, SAMPLE_ROWS)
    view.filter_edit.setText("zoë")
    qtbot.waitUntil(lambda: view.model.rowCount() == 1, timeout=2_000)
    assert view.model.row_values(0)[1] == "Zoë" and view.count_label.text() == "1 of 3 rows shown"
    view.filter_edit.setText("2024 03")  # every word, in any cell as shown
    qtbot.waitUntil(lambda: view.model.rowCount() == 1 and view.model.row_values(0)[0] == 2, timeout=2_000)
    view.table.sortByColumn(0, Qt.SortOrder.DescendingOrder)  # sorting keeps the filter
    assert view.model.rowCount() == 1
    view.filter_edit.setText("")
    qtbot.waitUntil(lambda: view.model.rowCount() == 3, timeout=2_000)
    assert [view.model.row_values(r)[0] for r in range(3)] == [3, 2, 1] and view.count_label.text() == "3 rows"
    view.filter_edit.setText("ann")
    qtbot.waitUntil(lambda: view.model.rowCount() == 1, timeout=2_000)
    path = tmp_path / "all.csv"
    view.export_csv(path)
    qtbot.waitUntil(path.exists, timeout=5_000)
    assert len(path.read_text(encoding="utf-8").splitlines()) >= 4  # the header and every row, not the filtered one
    view.show_rows(SAMPLE_COLUMNS, SAMPLE_ROWS[:2])  # a new answer starts unfiltered
    assert view.filter_edit.text() == "" and view.model.rowCount() == 2


def test_rows_copy_as_csv_and_as_a_markdown_table(qtbot):
    from desktop.panels.result_view import rows_as_csv, rows_as_markdown

    assert rows_as_csv(("name", "note"), [("Zoë", 'say "hi", then go'), ("日本", None)]) == \
        'name,note\nZoë,"say ""hi"", then go"\n日本,\n'
    table = rows_as_markdown(("name", "amount", "note"), [("a|b", decimal.Decimal("12.50"), "x\ny"), ("c", 3, None)])
    assert table.splitlines() == ["| name | amount | note |", "|---|---:|---|", "| a\\|b | 12.50 | x y |",
                                  "| c | 3 |   |"]
    view = ResultView()
    qtbot.addWidget(view)
    view.show_rows(SAMPLE_COLUMNS, SAMPLE_ROWS)
    view.copy_selection("markdown")
    assert QGuiApplication.clipboard().text().startswith("| id | name | joined | amount | note |")
    view.copy_selection("csv")
    assert QGuiApplication.clipboard().text().splitlines()[0] == "id,name,joined,amount,note"


def test_a_midnight_timestamp_reads_as_its_date() -> None:
    from desktop.panels.result_model import export_text

    month = dt.datetime(2025, 1, 1, tzinfo=dt.timezone.utc)  # date_trunc('month', …) on a timestamptz
    assert display_text(month) == "2025-01-01" and export_text(month).startswith("2025-01-01T00:00:00")
    assert display_text(dt.datetime(2025, 1, 1, 12, 30)) == "2025-01-01 12:30:00"


def test_a_column_gets_the_format_chosen_from_its_header_and_keeps_it_for_the_next_answer(qtbot, tmp_path):
    """DataGrip-style per-column formats (issue 30): right-click a header, pick decimals, percent, money or date;
    cells and the header change, the filter matches the new text, exports keep the stored values."""
    from PySide6.QtWidgets import QMenu

    from desktop.panels.cell_text import ColumnFormat

    view = ResultView()
    qtbot.addWidget(view)
    columns = ("region", "share", "revenue", "ordered_at", "note")
    rows = (("North", 0.1534, decimal.Decimal("1234.5"), dt.datetime(2024, 3, 1, 14, 5), "x"),
            ("South", "0.5", decimal.Decimal("99"), "2024-03-02 09:00:00", None))  # SQLite: numbers and dates as text
    view.show_answer(Answer(question="q", sql="SELECT 1", columns=columns, rows=rows, display={"currency": "EUR"}))
    model = view.model

    def cell(r: int, c: int) -> object:
        return model.data(model.index(r, c), DISPLAY)

    menu = QMenu()
    view.format_choices(1, menu)
    labels = [a.text() for a in menu.actions()]
    assert labels[:2] == ["Show “share” as", "As Cairn shows it"] and "Percent, 1 decimal" in labels
    assert "Money (EUR), 2 decimals" in labels  # the saved currency, not a list of them
    next(a for a in menu.actions() if a.text() == "Percent, 1 decimal").trigger()
    assert [cell(0, 1), cell(1, 1)] == ["15.3%", "50.0%"]
    assert model.headerData(1, Qt.Orientation.Horizontal, DISPLAY) == "share (%)"
    view.set_column_format(2, ColumnFormat("money", 0, "EUR"))
    assert [cell(0, 2), cell(1, 2)] == ["1,234", "99"]
    view.set_column_format(3, ColumnFormat("date"))
    assert [cell(0, 3), cell(1, 3)] == ["2024-03-01", "2024-03-02"]
    view.filter_edit.setText("15.3%")  # the filter reads what is shown
    qtbot.waitUntil(lambda: model.rowCount() == 1, timeout=2_000)
    view.filter_edit.setText("")
    qtbot.waitUntil(lambda: model.rowCount() == 2, timeout=2_000)

    text_menu = QMenu()
    view.format_choices(4, text_menu)  # words: nothing to choose
    assert [a.text() for a in text_menu.actions()][-1] == "No other format fits its values"

    path = tmp_path / "raw.csv"
    view.export_csv(path)
    qtbot.waitUntil(path.exists, timeout=5_000)
    assert "0.1534" in path.read_text(encoding="utf-8")  # exports keep the stored value

    view.show_answer(Answer(question="q2", sql="SELECT 2", columns=("share",), rows=((0.25,),)))
    assert cell(0, 0) == "25.0%"  # the same column name in the next answer keeps its format
    view.set_column_format(0, None)
    assert cell(0, 0) == "0.25"
    view.set_column_format(0, ColumnFormat("percent", 1))
    view.show_answer(Answer(question="q3", sql="SELECT 3", columns=("share",), rows=(("n/a",),)))
    assert cell(0, 0) == "n/a"  # a format that does not fit the new values is not applied


def test_the_saved_currency_labels_only_columns_that_hold_numbers(qtbot) -> None:
    view = ResultView()
    qtbot.addWidget(view)
    view.show_answer(Answer(question="q", sql="SELECT 1", columns=("payment_method", "amount"),
                            rows=(("card", decimal.Decimal("12.5")),), display={"currency": "INR"}))
    headers = [view.model.headerData(c, Qt.Orientation.Horizontal, DISPLAY) for c in range(2)]
    assert headers == ["payment_method", "amount (INR)"]


def test_columns_fit_a_font_size_changed_while_rows_are_shown(qtbot, qapp) -> None:
    from core.config import Settings
    from desktop.shell.app import apply_theme

    apply_theme(qapp, Settings())  # as the app starts: its theme before any window
    view = ResultView()
    qtbot.addWidget(view)
    view.show()
    view.show_rows(("n",), ((4880,), (408,)))
    before = view.table.horizontalHeader().sectionSize(0)
    try:
        apply_theme(qapp, Settings(font_size=24))  # what Save in Settings does, the window open
        qtbot.waitUntil(lambda: view.table.horizontalHeader().sectionSize(0) > before, timeout=2_000)
    finally:  # "4,880" is no longer cut to "4…"
        apply_theme(qapp, Settings())


def test_markdown_copy_is_the_text_shown_and_csv_keeps_the_values(qtbot) -> None:
    from desktop.panels.cell_text import ColumnFormat

    view = ResultView()
    qtbot.addWidget(view)
    view.show_rows(("region", "share"), (("North", 0.2295), ("South", None)))
    view.set_column_format(1, ColumnFormat("percent", 1))
    view.copy_selection("markdown")
    text = QGuiApplication.clipboard().text()
    assert "share (%)" in text and "23.0%" in text and "0.2295" not in text
    view.copy_selection("csv")
    assert "0.2295" in QGuiApplication.clipboard().text()
