"""The tables and columns Cairn sees, so a person can check what the model is told and insert names.

Hidden tables and columns (never shown to the model) stay visible here, greyed with an eye-slash, so it is
obvious what was withheld. Double-clicking a name asks the app to insert it (quoted when the dialect needs it).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

import qtawesome as qta
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QStackedWidget,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)
from sqlglot import exp

from core.schema import Column, ForeignKey, Schema, Table

__all__ = ["SchemaBrowser"]

logger = logging.getLogger(__name__)

NAME_ROLE = Qt.ItemDataRole.UserRole  # the text to insert on double-click
HIDDEN_ROLE = Qt.ItemDataRole.UserRole + 1
MAX_HINTS_SHOWN = 15
_PLAIN_IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]*$")
_ANY_CASE_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# PostgreSQL's reserved key words (also reserved or risky in SQLite): a column named like one must be quoted.
_RESERVED = frozenset(
    """all analyse analyze and any array as asc asymmetric both case cast check collate column constraint create
    current_catalog current_date current_role current_time current_timestamp current_user default deferrable desc
    distinct do else end except false fetch for foreign from grant group having in initially intersect into lateral
    leading limit localtime localtimestamp not null offset on only or order placing primary references returning
    select session_user some symmetric system_user table then to trailing true union unique user using variadic
    when where window with""".split()
)


class SchemaBrowser(QWidget):
    """A filterable tree: tables → columns with type, key icons, foreign-key targets and value hints."""

    insert_requested = Signal(str)
    """The person double-clicked a table or column whose name should be inserted where they are typing."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("schemaBrowser")
        self._schema: Schema | None = None
        self._hidden: set[str] = set()

        self._filter = QLineEdit(self)
        self._filter.setObjectName("schemaFilter")
        self._filter.setPlaceholderText("Filter tables and columns…")
        self._filter.setClearButtonEnabled(True)
        self._filter.addAction(qta.icon("fa5s.filter"), QLineEdit.ActionPosition.LeadingPosition)
        self._filter.textChanged.connect(self._apply_filter)
        self._show_hidden = QToolButton(self)
        self._show_hidden.setObjectName("schemaShowHidden")
        self._show_hidden.setCheckable(True)
        self._show_hidden.setChecked(True)
        self._show_hidden.setIcon(qta.icon("fa5s.eye"))
        self._show_hidden.setToolTip("Show tables and columns hidden from the model (greyed)")
        self._show_hidden.toggled.connect(lambda _on: self._apply_filter(self._filter.text()))

        self._tree = QTreeWidget(self)
        self._tree.setObjectName("schemaTree")
        self._tree.setHeaderLabels(["Name", "Type", "References"])
        self._tree.setUniformRowHeights(True)
        header = self._tree.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self._tree.itemDoubleClicked.connect(self._double_clicked)

        self._empty = QLabel("No database connected yet.", self)
        self._empty.setObjectName("schemaEmptyState")
        self._empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._empty.setWordWrap(True)
        self._stack = QStackedWidget(self)
        self._stack.addWidget(self._empty)
        self._stack.addWidget(self._tree)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.setSpacing(6)
        filter_row = QHBoxLayout()
        filter_row.setSpacing(6)
        filter_row.addWidget(self._filter, 1)
        filter_row.addWidget(self._show_hidden)
        layout.addLayout(filter_row)
        layout.addWidget(self._stack, 1)

    # -- public ---------------------------------------------------------------------------------------

    def set_schema(self, schema: Schema, hidden: Iterable[str] = frozenset()) -> None:
        """Show ``schema``; ``hidden`` holds ``table`` and ``table.column`` names the model never sees."""
        self._schema = schema
        self._hidden = {h.lower() for h in hidden}
        self._tree.clear()
        for table in schema.tables:
            self._tree.addTopLevelItem(self._table_item(schema, table))
        if schema.tables:
            self._stack.setCurrentWidget(self._tree)
        else:
            self._empty.setText("This database has no tables Cairn can read.")
            self._stack.setCurrentWidget(self._empty)
        self._apply_filter(self._filter.text())

    def clear(self) -> None:
        self._schema = None
        self._tree.clear()
        self._empty.setText("No database connected yet.")
        self._stack.setCurrentWidget(self._empty)

    def tree(self) -> QTreeWidget:
        """The tree itself (for the app's stylesheet and for tests)."""
        return self._tree

    # -- building -------------------------------------------------------------------------------------

    def _table_hidden(self, table: Table) -> bool:
        return table.qualified_name.lower() in self._hidden or table.name.lower() in self._hidden

    def _column_hidden(self, table: Table, column: Column) -> bool:
        c = column.name.lower()
        return f"{table.qualified_name.lower()}.{c}" in self._hidden or f"{table.name.lower()}.{c}" in self._hidden

    def _table_item(self, schema: Schema, table: Table) -> QTreeWidgetItem:
        hidden = self._table_hidden(table)
        item = QTreeWidgetItem([table.qualified_name, f"{len(table.columns)} columns", ""])
        item.setData(0, NAME_ROLE, _quoted_path(schema.dialect, table.schema, table.name, table.qualified_name))
        item.setData(0, HIDDEN_ROLE, hidden)
        tip = table.comment or "No description."
        if table.primary_key:
            tip += f"\nPrimary key: {', '.join(table.primary_key)}"
        if hidden:
            tip += "\n\nHidden: this table is never shown to the model."
        item.setToolTip(0, tip)
        item.setIcon(0, qta.icon("fa5s.eye-slash") if hidden else qta.icon("fa5s.table"))
        fk_by_column = {fk.columns[0].lower(): fk for fk in table.foreign_keys if len(fk.columns) == 1}
        for column in table.columns:
            item.addChild(self._column_item(schema, table, column, fk_by_column, hidden))
        if hidden:
            self._grey(item)
        return item

    def _column_item(
        self, schema: Schema, table: Table, column: Column, fks: dict[str, ForeignKey], table_hidden: bool
    ) -> QTreeWidgetItem:
        hidden = table_hidden or self._column_hidden(table, column)
        fk = fks.get(column.name.lower())
        reference = f"→ {fk.ref_table}.{fk.ref_columns[0]}" if fk is not None else ""
        item = QTreeWidgetItem([column.name, column.type, reference])
        item.setData(0, NAME_ROLE, _quoted_path(schema.dialect, None, table.name, column.name, column=True))
        item.setData(0, HIDDEN_ROLE, hidden)
        is_pk = column.name.lower() in {c.lower() for c in table.primary_key}
        lines = [f"{table.qualified_name}.{column.name}: {column.type}{'' if column.nullable else ', not null'}"]
        if is_pk:
            lines.append("Primary key")
        if fk is not None:
            lines.append(f"References {fk.ref_table}.{', '.join(fk.ref_columns)}")
        if column.comment:
            lines.append(column.comment)
        if column.value_hints:
            shown = ", ".join(column.value_hints[:MAX_HINTS_SHOWN])
            more = len(column.value_hints) - MAX_HINTS_SHOWN
            lines.append(f"Values: {shown}" + (f" and {more} more" if more > 0 else ""))
        if hidden:
            lines.append("Hidden: never shown to the model.")
        tip = "\n".join(lines)
        for col in range(3):
            item.setToolTip(col, tip)
        if hidden:
            item.setIcon(0, qta.icon("fa5s.eye-slash"))
            self._grey(item)
        elif is_pk:
            item.setIcon(0, qta.icon("fa5s.key"))
        elif fk is not None:
            item.setIcon(0, qta.icon("fa5s.link"))
        else:
            item.setIcon(0, qta.icon("fa5s.columns"))
        return item

    def _grey(self, item: QTreeWidgetItem) -> None:
        color = self.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
        for col in range(3):
            item.setForeground(col, color)

    # -- interaction ----------------------------------------------------------------------------------

    def set_show_hidden(self, show: bool) -> None:
        """Show (greyed) or leave out the tables and columns hidden from the model."""
        self._show_hidden.setChecked(show)

    def _apply_filter(self, text: str) -> None:
        """A table stays when its name matches (all columns shown) or some column matches (only those)."""
        needle = text.strip().lower()
        show_hidden = self._show_hidden.isChecked()
        for i in range(self._tree.topLevelItemCount()):
            table = self._tree.topLevelItem(i)
            table_match = not needle or needle in table.text(0).lower()
            any_column = False
            for j in range(table.childCount()):
                child = table.child(j)
                match = (table_match or needle in child.text(0).lower()) and (
                    show_hidden or not child.data(0, HIDDEN_ROLE)
                )
                child.setHidden(not match)
                any_column = any_column or match
            visible = (table_match or any_column) and (show_hidden or not table.data(0, HIDDEN_ROLE))
            table.setHidden(not visible)
            table.setExpanded(bool(needle) and any_column and not table_match)

    def _double_clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        name = item.data(0, NAME_ROLE)
        if name:
            self.insert_requested.emit(str(name))


def _quote(dialect: str, name: str) -> str:
    """Quote an identifier only when it would not survive unquoted (case folding, spaces, keywords)."""
    pattern = _PLAIN_IDENTIFIER if dialect == "postgres" else _ANY_CASE_IDENTIFIER
    needs = not pattern.match(name) or name.lower() in _RESERVED
    return exp.to_identifier(name, quoted=needs).sql(dialect=dialect)


def _quoted_path(dialect: str, namespace: str | None, table: str, name: str, *, column: bool = False) -> str:
    if column:
        return f"{_quote(dialect, table)}.{_quote(dialect, name)}"
    if namespace in (None, "public", "main"):
        return _quote(dialect, table)
    return f"{_quote(dialect, namespace)}.{_quote(dialect, table)}"
