"""The chat's building blocks: a message bubble whose text wraps in the column, and a memory chip cut to its room."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QFrame, QLabel, QSizePolicy, QToolButton, QVBoxLayout

from desktop.toolkit.widgets import mark_muted

__all__ = ["Bubble", "Chip", "wrapping_policy"]


def wrapping_policy() -> QSizePolicy:
    """Any width the column gives, and as tall as the text wrapped at that width."""
    policy = QSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    policy.setHeightForWidth(True)
    return policy


class Bubble(QFrame):
    def __init__(self, mine: bool) -> None:
        super().__init__()
        self.setObjectName("userBubble" if mine else "assistantBubble")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.body = QVBoxLayout(self)
        self.body.setContentsMargins(10, 8, 10, 8)
        self.body.setSpacing(4)

    def add_text(self, text: str, *, bold: bool = False, muted: bool = False, name: str = "") -> QLabel:
        label = QLabel(text)
        label.setTextFormat(Qt.TextFormat.PlainText)  # questions, model and database text: never markup
        label.setWordWrap(True)
        # Let long words wrap instead of widening the column.
        label.setSizePolicy(wrapping_policy())
        label.setMinimumWidth(60)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        if name:
            label.setObjectName(name)
        if bold:
            label.setStyleSheet("font-weight: 600")
        if muted:
            mark_muted(label)
        self.body.addWidget(label)
        return label


class Chip(QToolButton):
    """A memory chip whose words are cut to the room it has (all of them in its tip), so a narrow chat column or a
    large font never pushes the bubble past the column."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self._full = text
        self.setText(text)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt naming
        whole = self.fontMetrics().horizontalAdvance(self._full) + self.iconSize().width() + 36
        return QSize(whole, super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt naming
        return QSize(self.iconSize().width() + 48, super().minimumSizeHint().height())

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt naming
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        room = max(16, self.width() - self.iconSize().width() - 36)  # the icon, the menu arrow and the frame
        self.setText(self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight, room))
