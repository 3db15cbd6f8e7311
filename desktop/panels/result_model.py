"""The table model behind the result grid: O(1) cells, text made on demand, sorting done here.

A result can hold 100,000 rows, so the model keeps the caller's row tuples as they are and only a
permutation list (``_order``) for sorting; nothing is formatted or wrapped per cell up front. Column
kinds come from a small sample so a header tooltip can say the type and numbers can align right.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import json
import logging
import math
import re
import uuid
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont, QGuiApplication, QPalette

from core.answer import json_value
from core.number_format import NumberFormat

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

_SAMPLE = 500  # values per column looked at to name its kind
_MAX_CELL_CHARS = 300  # longer text is cut in the cell; the tooltip has more
_MAX_TOOLTIP_CHARS = 2000
_RIGHT = int((Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter).value)
_LEFT = int((Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter).value)

_NUMERIC_KINDS = frozenset({"integer", "float", "decimal", "number"})
_KIND_LABELS = {
    "integer": "integer",
    "float": "floating point",
    "decimal": "decimal",
    "number": "number (mixed)",
    "boolean": "boolean",
    "date": "date",
    "timestamp": "timestamp",
    "time": "time",
    "interval": "interval",
    "text": "text",
    "bytes": "binary",
    "uuid": "uuid",
    "json": "json/array",
    "mixed": "mixed",
    "null": "unknown (all NULL)",
}
# Last word of a column name that marks a code rather than a quantity: no thousands separators there.
_ID_WORDS = frozenset(
    {"id", "ids", "key", "pk", "fk", "year", "yr", "zip", "zipcode", "postcode", "postal", "code", "phone",
     "number", "no", "sku", "ean", "isbn", "upc"}
)
_WORD_SPLIT = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])")


def _value_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "float"
    if isinstance(value, decimal.Decimal):
        return "decimal"
    if isinstance(value, _dt.datetime):
        return "timestamp"
    if isinstance(value, _dt.date):
        return "date"
    if isinstance(value, _dt.time):
        return "time"
    if isinstance(value, _dt.timedelta):
        return "interval"
    if isinstance(value, str):
        return "text"
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "bytes"
    if isinstance(value, uuid.UUID):
        return "uuid"
    if isinstance(value, (list, tuple, dict)):
        return "json"
    return "mixed"


def column_kind(rows: Sequence[Sequence[Any]], column: int, sample: int = _SAMPLE) -> str:
    """The kind of one column from its first ``sample`` non-NULL values ("integer", "text", "date"...)."""
    kinds: set[str] = set()
    seen = 0
    for row in rows:
        value = row[column]
        if value is None:
            continue
        kinds.add(_value_kind(value))
        seen += 1
        if seen >= sample:
            break
    if not kinds:
        return "null"
    if len(kinds) == 1:
        return next(iter(kinds))
    if kinds <= _NUMERIC_KINDS:
        return "number"
    if kinds == {"date", "timestamp"}:
        return "timestamp"
    return "mixed"


def is_numeric_kind(kind: str) -> bool:
    return kind in _NUMERIC_KINDS


def is_identifier_column(name: str) -> bool:
    """True for names like ``id``, ``customer_id``, ``CustomerId``, ``order_year``: codes, not amounts."""
    words = [w for w in _WORD_SPLIT.split(name) if w]
    return bool(words) and words[-1].lower() in _ID_WORDS


def export_text(value: Any) -> str:
    """Plain text for CSV/TSV: NULL empty, dates ISO, numbers without separators, bytes hex."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, decimal.Decimal):
        return format(value, "f")
    if isinstance(value, (int, float)):
        return repr(value) if isinstance(value, float) else str(value)
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(json_value(value), ensure_ascii=False)
    converted = json_value(value)
    return converted if isinstance(converted, str) else str(converted)


SHOWN_DECIMALS = 4  # an average's 16 decimals are noise on screen; the exports and the tooltip keep them all


def _readable(value: decimal.Decimal, separators: bool) -> str:
    """A number as a person reads it: as stored up to 4 decimals (12.50 stays 12.50); beyond, 4 decimals for
    |x| ≥ 1 and 4 significant digits below (0.0001234), trailing zeros dropped."""
    exponent = value.as_tuple().exponent
    if isinstance(exponent, int) and -exponent > SHOWN_DECIMALS:
        if value == 0:
            return "0"
        if abs(value) >= 1:
            value = value.quantize(decimal.Decimal(1).scaleb(-SHOWN_DECIMALS), rounding=decimal.ROUND_HALF_EVEN)
        else:
            value = decimal.Context(prec=SHOWN_DECIMALS).plus(value)
        value = value.normalize() if value != value.to_integral_value() else value.quantize(decimal.Decimal(1))
    return format(value, ",f" if separators else "f")


def display_text(value: Any, *, separators: bool = True) -> str:
    """What a grid cell shows: thousands separators for quantities, ISO dates, one line, cut if long."""
    if value is None:
        return "NULL"
    if isinstance(value, str):
        text = value
    elif isinstance(value, bool):
        return "true" if value else "false"
    elif isinstance(value, int):
        return f"{value:,}" if separators else str(value)
    elif isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return str(value)
        return _readable(decimal.Decimal(repr(value)), separators)
    elif isinstance(value, decimal.Decimal):
        if not value.is_finite():
            return str(value)
        return _readable(value, separators)
    elif isinstance(value, _dt.datetime):  # a month or day cut by date_trunc is a date to read (exports keep all)
        return value.date().isoformat() if value.time() == _dt.time(0) else value.isoformat(sep=" ")
    elif isinstance(value, (bytes, bytearray, memoryview)):
        raw = bytes(value)
        hexed = raw[: _MAX_CELL_CHARS // 2].hex()
        return f"\\x{hexed}" + ("…" if len(raw) > _MAX_CELL_CHARS // 2 else "")
    else:
        text = export_text(value)
    if len(text) > _MAX_CELL_CHARS:
        text = text[:_MAX_CELL_CHARS] + "…"
    if "\n" in text or "\r" in text or "\t" in text:
        text = text.replace("\r\n", " ⏎ ").replace("\n", " ⏎ ").replace("\r", " ").replace("\t", " ")
    return text


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
        self.endResetModel()

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
        if self._texts is None:  # once per result: each row as the grid shows it
            separators = self._separators
            self._texts = [" ".join(display_text(v, separators=separators[c]) for c, v in enumerate(row)).casefold()
                           for row in self._rows]
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
            shown = self._format.number(value, separators=self._separators[column])
            return shown if shown is not None else display_text(value, separators=self._separators[column])
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
                return self._format.header(self._columns[section])
            if role == _TOOLTIP:
                return f"{self._columns[section]}\nType: {_KIND_LABELS.get(self._kinds[section], 'mixed')}"
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
