""""What I've shared…": the insights this agent put in the shared store, as other agents see them, with Delete.

Each row is one record: its summary, the entities it names (type and schema name only), its follow-up
questions, when it was shared and when it expires. The store may be a slow shared folder or a server that is
down, so it is read and changed on workers; a failure is said in the dialog, never a crash.
"""

from __future__ import annotations

import datetime as _dt
import logging
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.toolkit.errors import error_text
from desktop.toolkit.widgets import item_table, mark_muted, push_button
from desktop.toolkit.workers import run_in_background
from core.text import counted

__all__ = ["SharedInsightsDialog", "open_shared_insights"]

logger = logging.getLogger(__name__)

HEADERS = ["Summary", "Entities", "Follow-ups", "Shared", "Expires"]


class SharedInsightsDialog(QDialog):
    """``load()`` lists this agent's records; ``delete(ids)`` deletes some of them (both run on workers)."""

    def __init__(self, load: Callable[[], Sequence[Any]], delete: Callable[[list[str]], int], *,
                 agent_id: str = "", where: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("What I've shared")
        self.setObjectName("sharedInsightsDialog")
        self._load, self._delete = load, delete
        self.records: list[Any] = []
        layout = QVBoxLayout(self)
        intro = QLabel(f"Insights agent {agent_id or 'this agent'} shared" + (f" in {where}" if where else "")
                       + ". Other agents see these summaries, names and questions — never your rows, SQL, "
                       "questions or name.")
        intro.setTextFormat(Qt.TextFormat.PlainText)
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.table = item_table("sharedInsightsTable", HEADERS)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setWordWrap(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        for column, width in ((1, 150), (2, 230), (3, 115), (4, 115)):
            self.table.setColumnWidth(column, width)
        self.table.setMinimumSize(320, 160)
        layout.addWidget(self.table, 1)
        self.status = QLabel("Loading…")
        self.status.setObjectName("sharedInsightsStatus")
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        mark_muted(self.status)
        layout.addWidget(self.status)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.delete_button = push_button(self, "fa5s.trash-alt", "Delete", "deleteSharedInsight",
                                         "Delete the selected insights from the shared store", self.delete_selected)
        self.delete_button.setEnabled(False)
        buttons.addButton(self.delete_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.table.itemSelectionChanged.connect(
            lambda: self.delete_button.setEnabled(bool(self.table.selectionModel().selectedRows())))
        self.resize(900, 420)
        self.refresh()

    def refresh(self) -> None:
        self.status.setText("Loading…")
        load = self._load
        run_in_background(lambda cancel, report: list(load()), on_success=self._show, on_failure=self._failed,
                          receiver=self)

    def _show(self, records: list[Any]) -> None:
        self.records = records
        self.table.setRowCount(0)
        for record in records:
            row = self.table.rowCount()
            self.table.insertRow(row)
            expires = _when(record.expires_at) + (" (expired)" if record.expired() else "")
            cells = [record.insight_summary, "\n".join(record.entities), "\n".join(record.suggested_followups),
                     _when(record.created_at), expires]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)  # an item is plain text: shared words never render as markup
                item.setToolTip(text)
                self.table.setItem(row, column, item)
        self.status.setText(f"{counted(len(records), 'insight')} shared." if records
                            else "Nothing shared yet. Turn sharing on in Settings; answers are shared after "
                                 "they are shown.")

    def _failed(self, exc: BaseException) -> None:
        message, hint = error_text(exc)
        self.status.setText(f"{message} {hint}")

    def selected_ids(self) -> list[str]:
        rows = sorted({index.row() for index in self.table.selectionModel().selectedRows()})
        return [self.records[r].record_id for r in rows if r < len(self.records)]

    def delete_selected(self) -> None:
        ids = self.selected_ids()
        if not ids:
            return
        delete = self._delete
        self.delete_button.setEnabled(False)
        self.status.setText("Deleting…")

        def done(count: int) -> None:
            self.refresh()
            self.status.setText(f"Deleted {counted(count, 'insight')}.")

        run_in_background(lambda cancel, report: delete(ids), on_success=done, on_failure=self._failed,
                          receiver=self)


def open_shared_insights(services: Any, parent: QWidget | None = None) -> SharedInsightsDialog:
    """The dialog over the store in ``services``' settings, for this agent."""
    agent = services.agent_id()

    def load() -> list[Any]:  # this agent's own: the records signed with its key, whatever agent_id others claim
        return list(services.insight_store().list_author(services.agent_key().public_b64))

    def delete(ids: list[str]) -> int:
        return int(services.insight_store().delete(ids, key=services.agent_key()))

    dialog = SharedInsightsDialog(load, delete, agent_id=agent, parent=parent)
    dialog.open()
    return dialog


def _when(seconds: float) -> str:
    return _dt.datetime.fromtimestamp(seconds).astimezone().strftime("%Y-%m-%d %H:%M")
