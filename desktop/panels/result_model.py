"""The table model behind the result grid: O(1) cells, text made on demand, sorting done here.

A result can hold 100,000 rows, so the model keeps the caller's row tuples as they are and only a
permutation list (``_order``) for sorting; nothing is formatted or wrapped per cell up front. Column
kinds come from a small sample so a header tooltip can say the type and numbers can align right.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import logging
import math
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont, QGuiApplication, QPalette

from core.number_format import NumberFormat
from desktop.panels.cell_text import (
    KIND_LABELS,
    ColumnFormat,
    column_kind,
    display_text,
    export_text,
    is_identifier_column,
    is_numeric_kind,
)

__all__ = [
    "NULL_ROLE",
    "RAW_VALUE_ROLE",
    "ResultTableModel",
    "column_kind",
    "display_text",
    "export_text",
    "is_identifier_column",
    "is_numeric_kind",
]

logger = logging.getLogger(__name__)

RAW_VALUE_ROLE = int(Qt.ItemDataRole.UserRole.value) + 1
"""data() with this role returns the cell's Python value untouched."""
NULL_ROLE = int(Qt.ItemDataRole.UserRole.value) + 2
"""data() with this role returns True when the cell is SQL NULL (the delegate/tests use it)."""

_DISPLAY = int(Qt.ItemDataRole.DisplayRole.value)
_ALIGN = int(Qt.ItemDataRole.TextAlignmentRole.value)
_FOREGROUND = int(Qt.ItemDataRole.ForegroundRole.value)
_FONT = int(Qt.ItemDataRole.FontRole.value)
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole.value)

_MAX_TOOLTIP_CHARS = 2000
_RIGHT = int((Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter).value)
_LEFT = int((Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter).value)


class ResultTableModel(QAbstractTableModel):
    """Read-only rows of one query; the rows are referenced, never copied or wrapped per cell."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._columns: tuple[str, ...] = ()
        self._rows: Sequence[Sequence[Any]] = ()
        self._order: list[int] | None = None  # the rows shown, in view order; None: all, in the query's order
        self._sorted: list[int] | None = None  # every row in the sort chosen (None: the query's order)
        self._texts: list[str] | None = None  # each row as shown, folded, built at the first filter
        self._kinds: list[str] = []
        self._right: list[bool] = []
        self._separators: list[bool] = []
        self._format = NumberFormat()
        self._chosen: dict[int, ColumnFormat] = {}  # formats the person chose for a column of this result
        self._sort_column = -1
        self._sort_order = Qt.SortOrder.AscendingOrder
        self._filter = ""  # case-folded words every shown row holds; "" shows all
        self._null_font = QFont()
        self._null_font.setItalic(True)

    # -- content -----------------------------------------------------------------------------------
    def set_result(self, columns: Sequence[str], rows: Sequence[Sequence[Any]],
                   number_format: NumberFormat | None = None) -> None:
        """Show new rows in the query's order; the kinds of the columns are sampled once here.
        ``number_format``: the person's saved currency and decimals (headers and cells; exports stay raw)."""
        self.beginResetModel()
        self._format = number_format or NumberFormat()
        self._columns = tuple(str(c) for c in columns)
        self._rows = rows
        self._order = self._sorted = self._texts = None
        self._sort_column = -1
        self._sort_order = Qt.SortOrder.AscendingOrder
        self._filter = ""
        self._kinds = [column_kind(rows, c) for c in range(len(self._columns))]
        self._right = [is_numeric_kind(k) for k in self._kinds]
        self._separators = [not is_identifier_column(name) for name in self._columns]
        self._chosen = {}
        self.endResetModel()

    def sample(self, column: int, count: int = 500) -> list[Any]:
        """Up to ``count`` non-NULL values of ``column``, in the query's order."""
        found: list[Any] = []
        for row in self._rows:
            if row[column] is not None:
                found.append(row[column])
                if len(found) >= count:
                    break
        return found

    def column_format(self, column: int) -> ColumnFormat | None:
        return self._chosen.get(column)

    def set_column_format(self, column: int, chosen: ColumnFormat | None) -> None:
        """Show ``column`` in ``chosen`` (None: as Cairn shows it); the filter then matches the new text."""
        if not 0 <= column < len(self._columns):
            return
        if chosen is None:
            self._chosen.pop(column, None)
        else:
            self._chosen[column] = chosen
        self._texts = None
        if self._filter:
            self.set_filter(self._filter)
        if self._rows:
            self.dataChanged.emit(self.index(0, column), self.index(self.rowCount() - 1, column))
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, column, column)

    def shown_text(self, value: Any, column: int) -> str:
        """``value`` of ``column`` as its cell shows it (the chosen format, the saved decimals)."""
        return self._shown(value, column)

    def _shown(self, value: Any, column: int) -> str:
        """A cell's text: the column's chosen format, else the saved currency and decimals, else the default."""
        chosen = self._chosen.get(column)
        shown = chosen.text(value) if chosen is not None else None
        if shown is None:
            shown = self._format.number(value, separators=self._separators[column])
        return shown if shown is not None else display_text(value, separators=self._separators[column])

    def clear(self) -> None:
        self.set_result((), ())

    @property
    def columns(self) -> tuple[str, ...]:
        return self._columns

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(self._kinds)

    @property
    def sort_column(self) -> int:
        return self._sort_column

    def row_values(self, row: int) -> Sequence[Any]:
        """The row tuple shown at visible position ``row`` (after sorting)."""
        return self._rows[row if self._order is None else self._order[row]]

    def rows_in_view_order(self, *, filtered: bool = False) -> list[Sequence[Any]]:
        """All rows in the order shown, or (``filtered``) only those the filter shows: references, for export."""
        order = self._order if filtered else self._sorted
        if order is None:
            return list(self._rows)
        rows = self._rows
        return [rows[i] for i in order]

    @property
    def filter_text(self) -> str:
        return self._filter

    @property
    def total_rows(self) -> int:
        return len(self._rows)

    def set_filter(self, text: str) -> None:
        """Show only the rows whose cells, as shown, hold every word of ``text`` (any case); "" shows all."""
        self.beginResetModel()
        self._filter = " ".join(text.split()).casefold()
        self._order = self._filtered(self._sorted)
        self.endResetModel()

    def _filtered(self, order: list[int] | None) -> list[int] | None:
        if not self._filter:
            return order
        if self._texts is None:  # once per result (and format chosen): each row as the grid shows it
            shown = self._shown
            self._texts = [" ".join(shown(v, c) for c, v in enumerate(row)).casefold() for row in self._rows]
        words, texts = self._filter.split(), self._texts
        return [i for i in (range(len(texts)) if order is None else order) if all(w in texts[i] for w in words)]

    # -- QAbstractTableModel -------------------------------------------------------------------------
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows) if self._order is None else len(self._order)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._columns)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = _DISPLAY) -> Any:
        if not index.isValid():
            return None
        role = int(role) if not isinstance(role, int) else role
        row = index.row()
        column = index.column()
        if self._order is not None:
            row = self._order[row]
        value = self._rows[row][column]
        if role == _DISPLAY:
            return self._shown(value, column)
        if role == _ALIGN:
            return _RIGHT if self._right[column] else _LEFT
        if role == _FOREGROUND:
            if value is None:
                return QGuiApplication.palette().color(QPalette.ColorRole.PlaceholderText)
            return None
        if role == _FONT:
            return self._null_font if value is None else None
        if role == NULL_ROLE:
            return value is None
        if role == RAW_VALUE_ROLE:
            return value
        if role == _TOOLTIP:
            if isinstance(value, str) and (len(value) > 60 or "\n" in value):
                return value[:_MAX_TOOLTIP_CHARS] + ("…" if len(value) > _MAX_TOOLTIP_CHARS else "")
            if isinstance(value, (float, decimal.Decimal)):  # every digit, where the cell rounds
                whole = export_text(value)
                return whole if whole != display_text(value, separators=False) else None
            return None
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = _DISPLAY) -> Any:
        role = int(role) if not isinstance(role, int) else role
        if orientation == Qt.Orientation.Horizontal:
            if not 0 <= section < len(self._columns):
                return None
            if role == _DISPLAY:
                chosen = self._chosen.get(section)
                name = self._columns[section]
                if chosen is not None:
                    return chosen.header(name)
                # the saved currency labels money: a column named like it that holds numbers ("payment_method" no)
                return self._format.header(name) if self._right[section] else name
            if role == _TOOLTIP:
                return f"{self._columns[section]}\nType: {KIND_LABELS.get(self._kinds[section], 'mixed')}"
            if role == _ALIGN:
                return _RIGHT if self._right[section] else _LEFT
            return None
        if role == _DISPLAY:
            return str(section + 1)
        if role == _ALIGN:
            return _RIGHT
        return None

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort in Python with NULLs last; column -1 restores the query's own order. Selection follows."""
        if column >= len(self._columns):
            return
        self._sorted = None if column < 0 else _sorted_order(
            self._rows, column, self._kinds[column], descending=order == Qt.SortOrder.DescendingOrder
        )
        if self._filter:  # rows come and go with the filter: a reset, the selection starts again
            self.beginResetModel()
            self._sort_column, self._sort_order = column, order
            self._order = self._filtered(self._sorted)
            self.endResetModel()
            return
        self.layoutAboutToBeChanged.emit()
        persistent = self.persistentIndexList()
        old_order = self._order
        self._order = self._sorted
        self._sort_column = column
        self._sort_order = order
        if persistent:
            self._move_persistent(persistent, old_order)
        self.layoutChanged.emit()

    def _move_persistent(self, persistent: list[QModelIndex], old_order: list[int] | None) -> None:
        """Point the view's selection/current index at the same rows after a sort."""
        order = self._order
        sources = [idx.row() if old_order is None else old_order[idx.row()] for idx in persistent]
        if order is None:
            positions = sources
        elif len(set(sources)) <= 32:  # usually a current index and a small selection: a C scan each
            where = {source: order.index(source) for source in set(sources)}
            positions = [where[source] for source in sources]
        else:
            inverse = [0] * len(order)
            for position, source in enumerate(order):
                inverse[source] = position
            positions = [inverse[source] for source in sources]
        new = [self.index(row, idx.column()) for row, idx in zip(positions, persistent)]
        self.changePersistentIndexList(persistent, new)


def _sorted_order(rows: Sequence[Sequence[Any]], column: int, kind: str, *, descending: bool) -> list[int]:
    """Row positions sorted by one column; NULLs always last; stable; falls back for mixed types."""
    keys = [row[column] for row in rows]
    present = [i for i, k in enumerate(keys) if k is not None]
    nulls = [i for i, k in enumerate(keys) if k is None] if len(present) != len(keys) else []
    if kind == "text":
        try:
            folded = [k.casefold() if k is not None else "" for k in keys]
        except AttributeError:  # a non-text value past the sampled ones: use the general path
            pass
        else:
            present.sort(key=folded.__getitem__, reverse=descending)
            return present + nulls
    if kind in ("decimal", "number"):
        try:
            _sort_decimals(present, keys, descending)
        except (TypeError, ValueError, ArithmeticError):  # text, NaN, a huge int: the general path
            pass
        else:
            return present + nulls
    try:
        present.sort(key=keys.__getitem__, reverse=descending)
    except (TypeError, ArithmeticError):
        normalized = [_comparable(k) for k in keys]
        try:
            present.sort(key=normalized.__getitem__, reverse=descending)
        except (TypeError, ArithmeticError):  # e.g. naive and aware datetimes, a Decimal NaN
            texts = [(type(k).__name__, export_text(k)) for k in keys]
            present.sort(key=texts.__getitem__, reverse=descending)
    return present + nulls


def _sort_decimals(present: list[int], keys: list[Any], descending: bool) -> None:
    """Sort by float keys (about twice as fast as comparing Decimals); exact order is put back only
    when two distinct decimals round to the same float (then fewer distinct floats than decimals)."""
    has_nulls = len(present) != len(keys)
    floats = [float(k) if k is not None else 0.0 for k in keys] if has_nulls else list(map(float, keys))
    if any(map(math.isnan, floats)):
        raise ValueError("NaN in a numeric column")
    present.sort(key=floats.__getitem__, reverse=descending)
    distinct = set(keys)
    distinct_floats = len(set(floats))
    if has_nulls:
        distinct.discard(None)
        if 0 not in distinct:
            distinct_floats -= 1  # the 0.0 stand-in for NULL
    if distinct_floats == len(distinct):
        return  # float() is one-to-one on these values: the float order is the exact order
    ordered = [floats[i] for i in present]
    start = 0
    n = len(present)
    for position in range(1, n + 1):
        if position < n and ordered[position] == ordered[start]:
            continue
        if position - start > 1:
            run = present[start:position]
            if len({keys[i] for i in run}) > 1:
                run.sort(key=keys.__getitem__, reverse=descending)
                present[start:position] = run
        start = position


def _comparable(value: Any) -> tuple[int, Any]:
    """A key that orders mixed values: numbers, then dates/times, then text, then anything else."""
    if value is None:
        return (9, 0)
    if isinstance(value, (bool, int, float, decimal.Decimal)):
        return (0, value)
    if isinstance(value, _dt.datetime):
        return (1, value.replace(tzinfo=None) if value.tzinfo is None else value.astimezone().replace(tzinfo=None))
    if isinstance(value, _dt.date):
        return (1, _dt.datetime.combine(value, _dt.time.min))
    if isinstance(value, str):
        return (3, value.casefold())
    return (4, export_text(value))
