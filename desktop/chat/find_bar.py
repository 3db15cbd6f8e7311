"""Ctrl+F in the conversation: the words found in every message shown (restored turns too), one match at a time.

The bar searches the text of the chat's labels in reading order, ignoring case; the match shown is selected in its
label, framed, and scrolled into view. Enter goes to the next match, Shift+Enter to the one before; Esc closes."""

from __future__ import annotations

from dataclasses import dataclass

import qtawesome as qta
import shiboken6
from PySide6.QtCore import QEvent, QObject, QPoint, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QScrollArea, QToolButton, QWidget

from desktop.toolkit.widgets import mark_muted

__all__ = ["FindBar"]

_MATCH = "findMatch"  # a label's dynamic property while it holds the match shown (styled in app.qss)


@dataclass(frozen=True)
class _Match:
    label: QLabel
    start: int
    length: int


class FindBar(QWidget):
    """Finds words in the labels under ``content``, shown in ``scroll``; ``skip`` are labels never searched (the
    empty-state text)."""

    def __init__(self, content: QWidget, scroll: QScrollArea, *, skip: tuple[QLabel, ...] = (),
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatFind")
        self._content = content
        self._scroll = scroll
        self._skip = skip
        self._matches: list[_Match] = []
        self._at = -1
        self._framed: QLabel | None = None
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.field = QLineEdit()
        self.field.setObjectName("chatFindField")
        self.field.setPlaceholderText("Find in the conversation")
        self.field.setClearButtonEnabled(True)
        self.field.textChanged.connect(self.search)
        self.field.returnPressed.connect(self.next)
        self.field.installEventFilter(self)
        self.count = QLabel("")
        self.count.setObjectName("chatFindCount")
        mark_muted(self.count)
        self.previous_button = self._button("fa5s.chevron-up", "Previous match (Shift+Enter)", self.previous)
        self.next_button = self._button("fa5s.chevron-down", "Next match (Enter)", self.next)
        close = self._button("fa5s.times", "Close (Esc)", self.close_bar)
        row.addWidget(self.field, 1)
        row.addWidget(self.count)
        row.addWidget(self.previous_button)
        row.addWidget(self.next_button)
        row.addWidget(close)
        self.setVisible(False)

    def _button(self, icon: str, tip: str, slot: object) -> QToolButton:
        button = QToolButton(self)
        button.setIcon(qta.icon(icon))
        button.setAutoRaise(True)
        button.setToolTip(tip)
        button.clicked.connect(slot)
        return button

    # -- opening and closing ---------------------------------------------------------------------------

    def open_bar(self) -> None:
        """Show the bar with its words selected; searching again finds what was added since."""
        self.setVisible(True)
        self.field.setFocus()
        self.field.selectAll()
        self.search(self.field.text())

    def close_bar(self) -> None:
        self._show(None)
        self._matches = []
        self.setVisible(False)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt naming
        if watched is self.field and event.type() == QEvent.Type.ShortcutOverride and \
                event.key() == Qt.Key.Key_Escape:  # type: ignore[attr-defined]
            event.accept()  # Esc closes the bar here; it is not the window's Stop
            return True
        if watched is self.field and event.type() == QEvent.Type.KeyPress:
            key_event: QKeyEvent = event  # type: ignore[assignment]
            if key_event.key() == Qt.Key.Key_Escape:
                self.close_bar()
                return True
            if key_event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and \
                    key_event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                self.previous()
                return True
        return super().eventFilter(watched, event)

    # -- searching -----------------------------------------------------------------------------------

    @property
    def matches(self) -> int:
        return len(self._matches)

    @property
    def current(self) -> QLabel | None:
        return self._matches[self._at].label if 0 <= self._at < len(self._matches) else None

    def search(self, text: str) -> None:
        """Every place the words occur, in reading order; the first at or after the one shown before is shown."""
        words = text.strip().casefold()
        previous = self.current
        self._matches = []
        self._at = -1
        if words:
            for label in self._labels():
                shown = label.text().casefold()
                start = shown.find(words)
                while start >= 0:
                    self._matches.append(_Match(label, start, len(words)))
                    start = shown.find(words, start + 1)
        at = next((i for i, m in enumerate(self._matches) if m.label is previous), 0)
        self._show(at if self._matches else None)

    def next(self) -> None:
        if self._matches:
            self._show((self._at + 1) % len(self._matches))

    def previous(self) -> None:
        if self._matches:
            self._show((self._at - 1) % len(self._matches))

    def _labels(self) -> list[QLabel]:
        labels = [label for label in self._content.findChildren(QLabel)
                  if label not in self._skip and label.text() and not label.isHidden()
                  and label.textFormat() != Qt.TextFormat.RichText]
        origin = QPoint(0, 0)
        return sorted(labels, key=lambda lb: (lb.mapTo(self._content, origin).y(), lb.mapTo(self._content, origin).x()))

    def _show(self, at: int | None) -> None:
        if self._framed is not None and shiboken6.isValid(self._framed):
            self._framed.setProperty(_MATCH, False)
            self._restyle(self._framed)
            self._framed.setSelection(0, 0)
        self._framed = None
        self._at = -1 if at is None else at
        for button in (self.previous_button, self.next_button):
            button.setEnabled(len(self._matches) > 1)
        if at is None:
            self.count.setText("No match" if self.field.text().strip() else "")
            return
        match = self._matches[at]
        self.count.setText(f"{at + 1} of {len(self._matches)}")
        match.label.setProperty(_MATCH, True)
        self._restyle(match.label)
        match.label.setSelection(match.start, match.length)
        self._framed = match.label
        self._scroll.ensureWidgetVisible(match.label, 0, 40)

    @staticmethod
    def _restyle(label: QLabel) -> None:
        label.style().unpolish(label)
        label.style().polish(label)
