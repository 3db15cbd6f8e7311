"""Thumbs on answers and the list of verified examples they keep.

:class:`ThumbsBar` sits under each answer in the chat (up / down, checkable, either may be taken back);
:class:`VerifiedExamplesView` lists the person's verified examples for the open database, with Remove. Both are
plain widgets: the store is read and changed through ``run_in_background``, never on the GUI thread.
"""

from __future__ import annotations

import datetime as _dt
import logging
from collections.abc import Callable
from typing import Any

import qtawesome as qta
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QTableWidgetItem, QToolButton, QVBoxLayout, QWidget

from core.cancellation import Cancellation
from core.feedback import ExampleStore, VerifiedExample
from desktop.toolkit.errors import show_error
from desktop.toolkit.widgets import item_table, push_button
from desktop.toolkit.workers import run_in_background

__all__ = ["EXAMPLES_EMPTY_TEXT", "FeedbackQueue", "ThumbsBar", "VerifiedExamplesView"]

logger = logging.getLogger(__name__)

EXAMPLES_EMPTY_TEXT = ("No verified examples for this database yet. Give an answer a thumbs-up and similar "
                       "questions will show the model its SQL.")
_ICONS = {"up": ("fa5.thumbs-up", "fa5s.thumbs-up"), "down": ("fa5.thumbs-down", "fa5s.thumbs-down")}
_TIPS = {"up": "Right answer: keep this question and its SQL as a verified example",
         "down": "Wrong answer: tell Cairn (a verified example with this SQL is removed)"}


class ThumbsBar(QWidget):
    """Thumbs up and down for one answer; the chosen one stays pressed, clicking it again takes it back."""

    verdict_changed = Signal(str)
    """The person chose "up" or "down", or took their thumb back ("clear")."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(2)
        self.buttons: dict[str, QToolButton] = {}
        self._previous = "clear"
        for verdict in ("up", "down"):
            button = QToolButton(self)
            button.setObjectName("thumbUp" if verdict == "up" else "thumbDown")
            button.setCheckable(True)
            button.setAutoRaise(True)
            button.setToolTip(_TIPS[verdict])
            button.setIcon(qta.icon(_ICONS[verdict][0]))
            button.clicked.connect(lambda checked, v=verdict: self._clicked(v, checked))
            self.buttons[verdict] = button
            row.addWidget(button)
        row.addStretch(1)

    def verdict(self) -> str:
        """"up", "down" or "clear" (none chosen)."""
        return next((v for v, b in self.buttons.items() if b.isChecked()), "clear")

    def set_verdict(self, verdict: str) -> None:
        """Show ``verdict`` without emitting (e.g. to undo a click whose recording failed)."""
        for v, button in self.buttons.items():
            button.setChecked(v == verdict)
            self._paint(v)

    def revert(self) -> None:
        """Show the verdict from before the last click again (its recording failed)."""
        self.set_verdict(self._previous)

    def _clicked(self, verdict: str, checked: bool) -> None:
        other = self.buttons["down" if verdict == "up" else "up"]
        self._previous = verdict if not checked else ("clear" if not other.isChecked() else
                                                      ("down" if verdict == "up" else "up"))
        if checked:
            other.setChecked(False)
        for v in self.buttons:
            self._paint(v)
        self.verdict_changed.emit(verdict if checked else "clear")

    def _paint(self, verdict: str) -> None:
        button = self.buttons[verdict]
        off, on = _ICONS[verdict]
        button.setIcon(qta.icon(on, color="#2e7d32" if verdict == "up" else "#c62828") if button.isChecked()
                       else qta.icon(off))


class FeedbackQueue(QObject):
    """Records thumbs one after another, in the order they were given (up, then taken back, must not land
    the other way round); a thumb whose recording fails shows its old state again and the error is shown."""

    recorded = Signal(object)
    """A thumb was recorded (the FeedbackOutcome)."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self._window = parent
        self._pending: list[tuple[Callable[[], Any], ThumbsBar]] = []
        self._busy = False

    def submit(self, record: Callable[[], Any], thumbs: ThumbsBar) -> None:
        self._pending.append((record, thumbs))
        self._next()

    def _next(self) -> None:
        if self._busy or not self._pending:
            return
        record, thumbs = self._pending.pop(0)
        self._busy = True

        def done(outcome: Any) -> None:
            self._busy = False
            self.recorded.emit(outcome)
            self._next()

        def failed(exc: BaseException) -> None:
            self._busy = False
            thumbs.revert()
            show_error(self._window, exc)
            self._next()

        run_in_background(lambda _c, _r: record(), on_success=done, on_failure=failed, receiver=self)


class VerifiedExamplesView(QWidget):
    """One person's verified examples for one database: question, SQL and day; select one and Remove."""

    examples_changed = Signal()
    """This view removed an example."""
    refreshed = Signal()
    """The list was reloaded from the store."""

    def __init__(self, store: ExampleStore, user: str, *, database_id: str | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("verifiedExamplesView")
        self._store = store
        self._user = user
        self._database_id = database_id
        self._examples: list[VerifiedExample] = []
        self._seq = 0
        self.table = item_table("verifiedExamples", ["Question", "Verified", "SQL"])
        self.table.itemSelectionChanged.connect(self._update_buttons)
        self._empty = QLabel(EXAMPLES_EMPTY_TEXT, self)
        self._empty.setObjectName("examplesEmptyState")
        self._empty.setWordWrap(True)
        self._empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.remove_button = push_button(self, "fa5s.trash-alt", "Remove", "exampleRemove",
                                         "Stop showing the model this example", self.remove_selected)
        self.status = QLabel(self)
        self.status.setObjectName("examplesStatus")
        self.status.setWordWrap(True)
        buttons = QHBoxLayout()
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 10, 10, 10)
        layout.addWidget(self.table, 1)
        layout.addWidget(self._empty, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        self._show([])
        self.refresh()

    def examples(self) -> list[VerifiedExample]:
        """The examples last loaded, newest first."""
        return list(self._examples)

    def set_database(self, database_id: str | None) -> None:
        self._database_id = database_id
        self.refresh()

    def refresh(self) -> None:
        self._seq += 1
        seq, store, user, database_id = self._seq, self._store, self._user, self._database_id

        def work(_cancel: Cancellation, _report: object) -> list[VerifiedExample]:
            return store.list(user, database_id=database_id)

        def done(examples: list[VerifiedExample]) -> None:
            if seq == self._seq:
                self._show(examples)
                self.refreshed.emit()

        run_in_background(work, on_success=done, on_failure=self._failed, receiver=self)

    def select_row(self, row: int) -> None:
        self.table.selectRow(row)

    def remove_selected(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return
        example = self._examples[rows[0].row()]
        store, user = self._store, self._user
        self.remove_button.setEnabled(False)

        def done(gone: VerifiedExample) -> None:
            self.status.setText(f"Removed: {gone.question}")
            self.examples_changed.emit()
            self.refresh()

        run_in_background(lambda _c, _r: store.remove(user, example.id), on_success=done, on_failure=self._failed,
                          receiver=self)

    def _failed(self, exc: BaseException) -> None:
        self._update_buttons()
        show_error(self, exc)

    def _show(self, examples: list[VerifiedExample]) -> None:
        self._examples = list(examples)
        self.table.setRowCount(len(examples))
        for row, e in enumerate(examples):
            day = _dt.datetime.fromtimestamp(e.created_at).date().isoformat()
            sql = " ".join(e.sql.split())
            for column, text in enumerate((e.question, day, sql)):
                item = QTableWidgetItem(text)
                item.setToolTip(f"{e.question}\n\n{e.sql}")
                self.table.setItem(row, column, item)
        self.table.setVisible(bool(examples))
        self._empty.setVisible(not examples)
        self._update_buttons()

    def _update_buttons(self) -> None:
        self.remove_button.setEnabled(bool(self.table.selectionModel().selectedRows()))
