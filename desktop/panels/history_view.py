"""Every question asked before, newest first: search it, preview its SQL, rerun it in one click.

By default only the current database's entries show ("All databases" shows every one); SQL run by hand in
the SQL tab is listed too, marked as such (rerunning it opens it in the editor).

Reading and searching the history file is disk work, so it runs through ``run_in_background``; a newer
search supersedes an older one still in flight (results are matched by a sequence number).
"""

from __future__ import annotations

import logging
import time

import qtawesome as qta
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.cancellation import Cancellation
from core.history import TYPED_SQL, HistoryEntry, QuestionHistory
from desktop.toolkit.errors import error_text
from desktop.toolkit.time_text import time_ago
from desktop.toolkit.workers import run_in_background

__all__ = ["HistoryView"]

logger = logging.getLogger(__name__)

ENTRY_ROLE = Qt.ItemDataRole.UserRole
SEARCH_DELAY_MS = 150
FAILED_COLOR = "#d64545"  # the one semantic colour: a failed question is marked red in light and dark themes
TYPED_SQL_LABEL = "SQL you ran"


class HistoryView(QWidget):
    """The question history of one user on the current database (or all), with search, SQL preview, Rerun and
    Open SQL."""

    rerun_requested = Signal(str)
    """The person asked to run this earlier question again."""
    sql_requested = Signal(str)
    """The person asked to open this earlier SQL in the editor."""

    def __init__(self, history: QuestionHistory, user: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("historyView")
        self._history = history
        self._user = user
        self._seq = 0
        self._entries: list[HistoryEntry] = []
        self._database_id: str | None = None  # the database in use; None = not known yet (all are shown)

        self._search = QLineEdit(self)
        self._search.setObjectName("historySearch")
        self._search.setPlaceholderText("Search questions and SQL…")
        self._search.setClearButtonEnabled(True)
        self._search.addAction(qta.icon("fa5s.search"), QLineEdit.ActionPosition.LeadingPosition)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(self.refresh)
        self._search.textChanged.connect(lambda _text: self._search_timer.start())
        self._all_databases = QCheckBox("All databases", self)
        self._all_databases.setObjectName("historyAllDatabases")
        self._all_databases.setToolTip("Show questions asked on every database, not only the one in use")
        self._all_databases.toggled.connect(lambda _on: self.refresh())

        self._list = QTreeWidget(self)
        self._list.setObjectName("historyList")
        self._list.setHeaderLabels(["Question", "When", "Rows"])
        self._list.setRootIsDecorated(False)
        self._list.setUniformRowHeights(True)
        self._list.setAlternatingRowColors(True)
        header = self._list.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self._list.itemDoubleClicked.connect(self._rerun_item)
        self._list.currentItemChanged.connect(lambda _cur, _prev: self._show_selected())

        self._empty = QLabel("No questions yet. Ask Cairn something and it will appear here.", self)
        self._empty.setObjectName("historyEmptyState")
        self._empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._empty.setWordWrap(True)
        self._stack = QStackedWidget(self)
        self._stack.addWidget(self._list)
        self._stack.addWidget(self._empty)

        self._preview = QPlainTextEdit(self)
        self._preview.setObjectName("historySqlPreview")
        self._preview.setReadOnly(True)
        self._preview.setPlaceholderText("Select a question to see its SQL")

        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(self._stack)
        splitter.addWidget(self._preview)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 1)

        self._rerun_button = QPushButton(qta.icon("fa5s.redo"), "Rerun", self)
        self._rerun_button.setObjectName("historyRerun")
        self._rerun_button.setToolTip("Ask this question again (Enter)")
        self._rerun_button.clicked.connect(self._rerun)
        self._open_sql_button = QPushButton(qta.icon("fa5s.code"), "Open SQL", self)
        self._open_sql_button.setObjectName("historyOpenSql")
        self._open_sql_button.setToolTip("Open this SQL in the editor")
        self._open_sql_button.clicked.connect(self._open_sql)
        self._status = QLabel(self)
        self._status.setObjectName("historyStatus")

        buttons = QHBoxLayout()
        buttons.addWidget(self._status, 1)
        buttons.addWidget(self._open_sql_button)
        buttons.addWidget(self._rerun_button)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 10, 10, 10)
        layout.setSpacing(8)
        search_row = QHBoxLayout()
        search_row.addWidget(self._search, 1)
        search_row.addWidget(self._all_databases)
        layout.addLayout(search_row)
        layout.addWidget(splitter, 1)
        layout.addLayout(buttons)

        for key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            shortcut = QShortcut(QKeySequence(key), self._list)
            shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)
            shortcut.activated.connect(self._rerun)
        self._update_buttons()
        self.refresh()  # the first load; the app need not remember to ask

    # -- public ---------------------------------------------------------------------------------------

    def set_database(self, database_id: str | None) -> None:
        """The database now in use: its entries are the ones shown unless "All databases" is ticked."""
        if database_id != self._database_id:
            self._database_id = database_id
            self.refresh()

    def database_filter(self) -> str | None:
        """The database whose entries are listed, or None when every database's are."""
        return None if self._all_databases.isChecked() else self._database_id

    def set_all_databases(self, on: bool) -> None:
        self._all_databases.setChecked(on)

    def refresh(self) -> None:
        """Reload (or search) the history off the GUI thread."""
        self._seq += 1
        seq = self._seq
        text = self._search.text()
        history, user, database_id = self._history, self._user, self.database_filter()

        def load(cancel: Cancellation, _report: object) -> list[HistoryEntry]:
            if text.strip():
                return history.search(user, text, database_id=database_id)
            return history.entries(user, database_id=database_id)

        run_in_background(
            load,
            on_success=lambda entries: self._loaded(seq, entries),
            on_failure=lambda exc: self._failed(seq, exc),
            receiver=self,
        )

    def add_entry(self, entry: HistoryEntry) -> None:
        """Show a question that was just asked at the top, without rereading the file."""
        wanted = self.database_filter()
        if wanted is not None and entry.database_id != wanted:
            return
        self._entries.insert(0, entry)
        needle = self._search.text().strip().lower()
        if needle and needle not in entry.question.lower() and needle not in (entry.sql or "").lower():
            return
        self._list.insertTopLevelItem(0, self._item(entry))
        self._stack.setCurrentWidget(self._list)

    def entries(self) -> list[HistoryEntry]:
        """The entries now listed, newest first (what a test or the app can read back)."""
        return [self._list.topLevelItem(i).data(0, ENTRY_ROLE) for i in range(self._list.topLevelItemCount())]

    def select_row(self, row: int) -> None:
        item = self._list.topLevelItem(row)
        if item is not None:
            self._list.setCurrentItem(item)

    # -- internals ------------------------------------------------------------------------------------

    def _loaded(self, seq: int, entries: list[HistoryEntry]) -> None:
        if seq != self._seq:
            return
        self._entries = list(entries)
        self._status.clear()
        self._list.clear()
        self._list.addTopLevelItems([self._item(e) for e in entries])
        if entries:
            self._stack.setCurrentWidget(self._list)
        else:
            if self._search.text().strip():
                text = "No question matches this search."
            elif self.database_filter() is not None:
                text = "No questions yet on this database. Tick All databases to see the others."
            else:
                text = "No questions yet. Ask Cairn something and it will appear here."
            self._empty.setText(text)
            self._stack.setCurrentWidget(self._empty)
        self._show_selected()

    def _failed(self, seq: int, exc: BaseException) -> None:
        if seq != self._seq:
            return
        message, hint = error_text(exc)
        self._status.setText(message)
        self._status.setToolTip(hint)

    def _item(self, entry: HistoryEntry) -> QTreeWidgetItem:
        rows = f"{entry.row_count:,}" if entry.ok else "stopped" if entry.stopped else "failed"
        typed = entry.kind == TYPED_SQL
        item = QTreeWidgetItem([_title(entry), time_ago(entry.at), rows])
        item.setData(0, ENTRY_ROLE, entry)
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(entry.at))
        where = entry.database_id or "an unknown database"
        tip = f"{TYPED_SQL_LABEL}, {when} on {where}" if typed else f"{entry.question}\n\nAsked {when} on {where}"
        tip += f"\n\n{entry.sql}" if entry.sql else "\n\n(no SQL was produced)"
        for col in range(3):
            item.setToolTip(col, tip)
        item.setTextAlignment(2, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if entry.ok:
            item.setIcon(0, qta.icon("fa5s.code" if typed else "fa5s.comment-dots"))
        elif entry.stopped:  # the person's own Stop: no red mark
            item.setIcon(0, qta.icon("fa5s.stop-circle"))
            item.setToolTip(0, "Stopped before it was done.\n\n" + tip)
        else:
            item.setIcon(0, qta.icon("fa5s.times-circle", color=FAILED_COLOR))
            item.setToolTip(0, ("This SQL failed.\n\n" if typed else "This question failed.\n\n") + tip)
        return item

    def _current(self) -> HistoryEntry | None:
        item = self._list.currentItem()
        return None if item is None else item.data(0, ENTRY_ROLE)

    def _show_selected(self) -> None:
        entry = self._current()
        self._preview.setPlainText("" if entry is None else (entry.sql or "-- no SQL was produced"))
        self._update_buttons()

    def _update_buttons(self) -> None:
        entry = self._current()
        typed = entry is not None and entry.kind == TYPED_SQL
        self._rerun_button.setEnabled(entry is not None and (bool(entry.sql) if typed else bool(entry.question)))
        self._rerun_button.setToolTip("Open this SQL in the editor to run it again" if typed
                                      else "Ask this question again (Enter)")
        self._open_sql_button.setEnabled(entry is not None and bool(entry.sql))

    def _rerun(self) -> None:
        self._rerun_entry(self._current())

    def _rerun_item(self, item: QTreeWidgetItem, _column: int) -> None:
        self._rerun_entry(item.data(0, ENTRY_ROLE))

    def _rerun_entry(self, entry: HistoryEntry | None) -> None:
        """A question is asked again; SQL run by hand goes back to the editor (the person presses Run)."""
        if entry is None:
            return
        if entry.kind == TYPED_SQL:
            if entry.sql:
                self.sql_requested.emit(entry.sql)
        elif entry.question:
            self.rerun_requested.emit(entry.question)

    def _open_sql(self) -> None:
        entry = self._current()
        if entry is not None and entry.sql:
            self.sql_requested.emit(entry.sql)


def _title(entry: HistoryEntry) -> str:
    """The list's first column: the question, or "SQL you ran:" and the SQL's first line."""
    if entry.kind != TYPED_SQL:
        return entry.question
    first = " ".join((entry.sql or "").split())
    return f"{TYPED_SQL_LABEL}: {first[:117] + '…' if len(first) > 120 else first}"
