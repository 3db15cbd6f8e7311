"""The result grid: row count and truncation banner, copy as TSV, export to CSV off the GUI thread."""

from __future__ import annotations

import csv
import decimal
import io
import logging
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import qtawesome as qta
from PySide6.QtCore import QEvent, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QMessageBox,
    QPushButton,
    QStackedWidget,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.answer import Answer
from core.cancellation import Cancellation
from core.errors import CairnError, QueryCancelled
from core.number_format import NumberFormat
from core.text import counted
from desktop.panels.cell_text import ColumnFormat, column_formats
from desktop.panels.result_model import ResultTableModel, export_text
from desktop.toolkit.errors import show_error
from desktop.toolkit.widgets import mark_muted
from desktop.toolkit.workers import run_in_background

__all__ = ["ResultView", "rows_as_tsv", "write_csv_atomically"]

logger = logging.getLogger(__name__)

SavePathChooser = Callable[[QWidget, str], str | None]
"""(parent, suggested file name) -> the chosen path, or None when the person cancelled."""

_MAX_COLUMN_WIDTH = 360
_CANCEL_CHECK_EVERY = 5000


def rows_as_tsv(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Tab-separated text with a header line; tabs and newlines inside values become spaces."""

    def clean(text: str) -> str:
        return text.replace("\t", " ").replace("\r\n", " ").replace("\n", " ").replace("\r", " ")

    lines = ["\t".join(clean(c) for c in columns)]
    lines.extend("\t".join(clean(export_text(v)) for v in row) for row in rows)
    return "\n".join(lines) + "\n"


def rows_as_csv(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """CSV text (RFC 4180 quoting) with a header line, as Export CSV writes it."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([export_text(v) for v in row] for row in rows)
    return out.getvalue()


def rows_as_markdown(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A Markdown table (GitHub's): pipes and newlines inside values escaped, numbers right-aligned."""

    def cell(text: str) -> str:
        return text.replace("\\", "\\\\").replace("|", "\\|").replace("\r\n", " ").replace("\n", " ") or " "

    numeric = [bool(rows) and all(isinstance(r[c], (int, float, decimal.Decimal)) and not isinstance(r[c], bool)
                                  for r in rows if r[c] is not None) for c in range(len(columns))]
    lines = ["| " + " | ".join(cell(str(c)) for c in columns) + " |",
             "|" + "|".join("---:" if n else "---" for n in numeric) + "|"]
    lines.extend("| " + " | ".join(cell(export_text(v)) for v in row) + " |" for row in rows)
    return "\n".join(lines) + "\n"


def write_csv_atomically(
    path: Path, columns: Sequence[str], rows: Sequence[Sequence[Any]], cancel: Cancellation | None = None
) -> Path:
    """UTF-8 CSV via a temp file in the same folder and a rename, so a failed export leaves no half file."""
    path = Path(path)
    tmp_name = ""
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(columns)
            for n, row in enumerate(rows):
                if cancel is not None and n % _CANCEL_CHECK_EVERY == 0 and cancel.cancelled:
                    raise QueryCancelled("The export was cancelled.", hint="Nothing was written.")
                writer.writerow([export_text(v) for v in row])
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except OSError as exc:
        _remove_quietly(tmp_name)
        raise CairnError(
            f"Could not write {path}: {exc.strerror or exc}",
            hint="Choose a folder you can write to and check the free disk space.",
        ) from exc
    except BaseException:
        _remove_quietly(tmp_name)
        raise
    return path


def _remove_quietly(name: str) -> None:
    if not name:
        return
    try:
        os.unlink(name)
    except OSError:
        pass


def _ask_save_path(parent: QWidget, suggested: str) -> str | None:
    path, _ = QFileDialog.getSaveFileName(parent, "Export CSV", suggested, "CSV files (*.csv);;All files (*)")
    return path or None


class _ResultTable(QTableView):
    """A table view whose copy shortcut copies the whole selection, not just the current cell."""

    copy_requested = Signal()
    """The person pressed the copy shortcut in the grid."""

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copy_requested.emit()
            event.accept()
            return
        super().keyPressEvent(event)


class ResultView(QWidget):
    """Shows one answer's rows; copy and CSV export work on the rows in the order shown."""

    export_finished = Signal(str)
    """A CSV export was written to this path."""

    pin_requested = Signal(object)
    """Pin was pressed: keep this answer's rows in a tab of their own (the Answer)."""

    def __init__(self, parent: QWidget | None = None, *, ask_save_path: SavePathChooser | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("resultView")
        self._ask_save_path = ask_save_path or _ask_save_path
        self._truncated = False
        self._exporting = False
        self.answer: Answer | None = None  # what Pin keeps (rows shown by show_rows alone are not pinned)
        self.model = ResultTableModel(self)

        self.count_label = QLabel(objectName="rowCountLabel")
        self.truncated_label = QLabel(objectName="truncatedLabel")
        self.truncated_label.setToolTip("The row limit or the limit on fetched data stopped the query early; add "
                                        "filters or select fewer or shorter columns. The answer's note says which.")
        self.truncated_label.setVisible(False)
        self.copy_button = QToolButton(objectName="copyButton")  # a click copies for a spreadsheet; ▾ offers more
        self.copy_button.setIcon(qta.icon("fa5s.copy"))
        self.copy_button.setText("Copy")
        self.copy_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.copy_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        self.copy_button.setToolTip("Copy the selected cells (or every row shown) for a spreadsheet (Ctrl+C); the "
                                    "arrow copies them as CSV or as a Markdown table")
        self.copy_button.clicked.connect(lambda _checked=False: self.copy_selection())
        copy_menu = QMenu(self.copy_button)
        for text, as_format in (("For a spreadsheet (tab-separated)", "tsv"), ("As CSV", "csv"),
                                ("As a Markdown table", "markdown")):
            copy_menu.addAction(text, lambda f=as_format: self.copy_selection(f))
        self.copy_button.setMenu(copy_menu)
        self.filter_edit = QLineEdit(objectName="resultFilter")
        self.filter_edit.setPlaceholderText("Filter rows…")
        self.filter_edit.setToolTip("Show only the rows whose cells hold every word typed (any case); exports "
                                    "still hold every row")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.setMaximumWidth(self.fontMetrics().horizontalAdvance("x") * 28)
        self._filter_timer = QTimer(self, singleShot=True, interval=150)  # a big result is filtered once typing pauses
        self._filter_timer.timeout.connect(self._apply_filter)
        self.filter_edit.textChanged.connect(lambda _text: self._filter_timer.start())
        self.export_button = QPushButton(qta.icon("fa5s.file-csv"), "Export CSV…", objectName="exportCsvButton")
        self.export_button.setToolTip("Save all rows, in the order shown, as a UTF-8 CSV file")
        self.export_button.clicked.connect(self._choose_and_export)

        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.setSpacing(8)
        bar.addWidget(self.count_label)
        bar.addWidget(self.truncated_label)
        bar.addStretch(1)
        bar.addWidget(self.filter_edit)
        self.pin_button = QToolButton(objectName="pinButton")
        self.pin_button.setIcon(qta.icon("fa5s.thumbtack"))
        self.pin_button.setToolTip("Pin these rows in a tab of their own, to compare with the next answer")
        self.pin_button.clicked.connect(lambda _checked=False: self.answer and self.pin_requested.emit(self.answer))
        bar.addWidget(self.pin_button)
        bar.addWidget(self.copy_button)
        bar.addWidget(self.export_button)

        self.table = _ResultTable(objectName="resultTable")
        self.table.setModel(self.model)
        self.table.setWordWrap(False)
        self.table.setAlternatingRowColors(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        header = self.table.horizontalHeader()
        header.setSortIndicatorClearable(True)  # third click returns to the query's own order
        header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        header.setHighlightSections(False)
        header.setStretchLastSection(False)
        header.setResizeContentsPrecision(200)  # size columns from the first rows, not all 100k
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)  # right-click: the column's format
        header.customContextMenuRequested.connect(self._format_menu)
        self._formats: dict[str, ColumnFormat] = {}  # chosen per column name; kept for the next answers
        self._currency: str | None = None
        rows_header = self.table.verticalHeader()
        rows_header.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)  # uniform row heights
        rows_header.setDefaultSectionSize(self.table.fontMetrics().height() + 8)
        self.table.setSortingEnabled(True)
        self.table.setTabKeyNavigation(False)  # Tab leaves the grid for the next control (arrows move in it)
        self.table.copy_requested.connect(self.copy_selection)

        self.empty_label = QLabel("No results yet", objectName="resultEmptyLabel")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        mark_muted(self.empty_label)  # quiet, 4.5:1, and it follows a switch of theme

        self.stack = QStackedWidget(objectName="resultStack")
        self.stack.addWidget(self.empty_label)
        self.stack.addWidget(self.table)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.setSpacing(6)
        layout.addLayout(bar)
        layout.addWidget(self.stack, 1)
        self.clear()

    # -- content -----------------------------------------------------------------------------------
    def show_answer(self, answer: Answer) -> None:
        """Show the answer's rows; an answer without columns (an error) shows the empty state."""
        self.answer = answer if answer.columns else None
        self._update_buttons()
        if not answer.columns:
            self.clear("No rows to show" if answer.ok else "No results yet")
            return
        self.show_rows(answer.columns, answer.rows, truncated=answer.truncated,
                       number_format=NumberFormat.of(answer.display))

    def show_rows(self, columns: Sequence[str], rows: Sequence[Sequence[Any]], *, truncated: bool = False,
                  number_format: NumberFormat | None = None) -> None:
        """Show rows directly (for SQL the person ran, or a test)."""
        self.table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.model.set_result(columns, rows, number_format)
        self._currency = number_format.currency if number_format else None
        for column, name in enumerate(self.model.columns):  # a format chosen for this name before, where it fits
            chosen = self._formats.get(name)
            if chosen is not None and chosen in column_formats(self.model.sample(column, 50), self._currency):
                self.model.set_column_format(column, chosen)
        self._truncated = truncated
        n = len(rows)
        self.filter_edit.blockSignals(True)
        self.filter_edit.clear()  # a new answer: every row
        self.filter_edit.blockSignals(False)
        self._count()
        self.truncated_label.setText(f"showing the first {n:,} — the query returned more")
        self.truncated_label.setVisible(truncated)
        self.stack.setCurrentWidget(self.table)
        self._size_columns()
        self.table.scrollToTop()
        self._update_buttons()

    def clear(self, message: str = "No results yet") -> None:
        self.answer = None
        self.model.clear()
        self._truncated = False
        self.count_label.setText("")
        self.truncated_label.setVisible(False)
        self.empty_label.setText(message)
        self.stack.setCurrentWidget(self.empty_label)
        self._update_buttons()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt naming
        """A font size changed in Settings while rows are shown: the columns and rows fit the new text."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            QTimer.singleShot(0, self, self._fit_font)  # after the grid itself has the new font

    def _fit_font(self) -> None:
        if self.model.columnCount():
            self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 8)
            self._size_columns()

    def _format_menu(self, position: QPoint) -> None:
        """Right-click on a column's header: how its numbers or dates read (exports stay as stored)."""
        column = self.table.horizontalHeader().logicalIndexAt(position)
        if column < 0:
            return
        menu = QMenu(self)
        self.format_choices(column, menu)
        menu.popup(self.table.horizontalHeader().mapToGlobal(position))

    def format_choices(self, column: int, menu: QMenu) -> None:
        """Fill ``menu`` with the formats that fit ``column``'s values, the one in use checked."""
        name = self.model.columns[column]
        title = menu.addAction(f"Show “{name}” as")
        title.setEnabled(False)
        current = self.model.column_format(column)
        choices: list[ColumnFormat | None] = [None, *column_formats(self.model.sample(column), self._currency)]
        if len(choices) == 1:
            menu.addAction("No other format fits its values").setEnabled(False)
            return
        for choice in choices:
            action = menu.addAction("As Cairn shows it" if choice is None else choice.label)
            action.setCheckable(True)
            action.setChecked(choice == current)
            action.triggered.connect(lambda _checked=False, c=choice: self.set_column_format(column, c))

    def set_column_format(self, column: int, chosen: ColumnFormat | None) -> None:
        """Show ``column`` as ``chosen`` (None: as Cairn shows it), here and for the next answers with its name."""
        name = self.model.columns[column]
        if chosen is None:
            self._formats.pop(name, None)
        else:
            self._formats[name] = chosen
        self.model.set_column_format(column, chosen)
        self._count()
        self.table.resizeColumnToContents(column)

    def _apply_filter(self) -> None:
        self.model.set_filter(self.filter_edit.text())
        self._count()

    def _count(self) -> None:
        total, shown = self.model.total_rows, self.model.rowCount()
        self.count_label.setText(counted(total, "row") if not self.model.filter_text else
                                 f"{shown:,} of {counted(total, 'row')} shown")

    @property
    def truncated(self) -> bool:
        return self._truncated

    def _size_columns(self) -> None:
        self.table.resizeColumnsToContents()
        header = self.table.horizontalHeader()
        for column in range(self.model.columnCount()):
            if header.sectionSize(column) > _MAX_COLUMN_WIDTH:
                header.resizeSection(column, _MAX_COLUMN_WIDTH)

    def _update_buttons(self) -> None:
        has_rows = self.model.columnCount() > 0
        self.pin_button.setEnabled(self.answer is not None)
        self.copy_button.setEnabled(has_rows)
        self.export_button.setEnabled(has_rows and not self._exporting)

    # -- copy --------------------------------------------------------------------------------------
    def selection_tsv(self) -> str:
        """The selected cells as TSV with headers (all rows shown when nothing is selected), in view order."""
        return rows_as_tsv(*self.selection()) if self.model.columns else ""

    def selection(self) -> tuple[list[str], list[Sequence[Any]]]:
        """(columns, rows) of the selected cells (every row the filter shows when nothing is selected)."""
        columns = self.model.columns
        ranges = list(self.table.selectionModel().selection())
        if not ranges:
            return list(columns), self.model.rows_in_view_order(filtered=True)
        row_set: set[int] = set()
        col_set: set[int] = set()
        for r in ranges:
            row_set.update(range(r.top(), r.bottom() + 1))
            col_set.update(range(r.left(), r.right() + 1))
        cols = sorted(col_set)
        bounds = [(r.top(), r.bottom(), r.left(), r.right()) for r in ranges]
        rectangular = len(ranges) == 1

        def selected(row: int, column: int) -> bool:
            return rectangular or any(t <= row <= b and lft <= column <= rgt for t, b, lft, rgt in bounds)

        rows = []
        for row in sorted(row_set):
            values = self.model.row_values(row)
            rows.append(tuple(values[c] if selected(row, c) else None for c in cols))
        self._selected_columns = cols
        return [columns[c] for c in cols], rows

    def copy_selection(self, as_format: str = "tsv") -> None:
        """The selection (or every row shown) to the clipboard: "tsv" (Ctrl+C, for spreadsheets), "csv" or
        "markdown"."""
        if not self.model.columns:
            return
        write = {"tsv": rows_as_tsv, "csv": rows_as_csv, "markdown": rows_as_markdown}[as_format]
        self._selected_columns = list(range(len(self.model.columns)))
        columns, rows = self.selection()
        if as_format == "markdown":  # a table for people: the text the grid shows (TSV and CSV keep the values)
            at = self._selected_columns
            header = self.model.headerData
            columns = [str(header(c, Qt.Orientation.Horizontal)) for c in at]
            rows = [tuple(None if v is None else self.model.shown_text(v, c) for v, c in zip(r, at, strict=True))
                    for r in rows]
        QGuiApplication.clipboard().setText(write(columns, rows))

    # -- export ------------------------------------------------------------------------------------
    def _choose_and_export(self) -> None:
        if not self.model.columns:  # File → Export results with nothing shown yet
            QMessageBox.information(self, "Export CSV", "There are no rows to export yet: ask a question first.")
            return
        path = self._ask_save_path(self, "result.csv")
        if path:
            self.export_csv(path)

    def export_csv(self, path: str | os.PathLike[str]) -> None:
        """Write all rows in the order shown to ``path`` on a pool thread; ``export_finished`` when done."""
        if self._exporting or not self.model.columns:
            return
        target = Path(path)
        if not target.suffix:
            target = target.with_suffix(".csv")
        columns = self.model.columns
        rows = self.model.rows_in_view_order()
        self._exporting = True
        self._update_buttons()

        def work(cancel: Cancellation, report: Callable[[object], None]) -> str:
            return str(write_csv_atomically(target, columns, rows, cancel))

        run_in_background(work, on_success=self._export_done, on_failure=self._export_failed, receiver=self)

    def _export_done(self, path: object) -> None:
        self._exporting = False
        self._update_buttons()
        logger.info("exported %s", path)
        self.export_finished.emit(str(path))

    def _export_failed(self, exc: BaseException) -> None:
        self._exporting = False
        self._update_buttons()
        show_error(self, exc, title="Export CSV")
