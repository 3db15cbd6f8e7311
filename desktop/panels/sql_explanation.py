"""The panel under the SQL editor that shows what its SQL does in plain words, and where the words came from
(the model, or the SQL's structure). It only shows: the editor asks for explanations and passes them in."""

from __future__ import annotations

import qtawesome as qta
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.replies import Explanation
from desktop.toolkit.errors import error_text

__all__ = ["SOURCE_LABELS", "ExplanationPanel"]

SOURCE_LABELS = {"model": "Explained by the model", "structure": "Read from the SQL's structure"}
_CHANGED = " — for the SQL as it was; it has changed since"


class ExplanationPanel(QFrame):
    """A source line (italic) over the explanation's text (read-only, scrolls when long); hidden until used."""

    hide_requested = Signal()
    """The person closed the panel."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="sqlExplanationPanel")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self._label = ""
        self.source = QLabel(objectName="sqlExplanationSource")
        self.source.setWordWrap(True)
        self.source.setTextFormat(Qt.TextFormat.PlainText)
        font = self.source.font()
        font.setItalic(True)
        self.source.setFont(font)
        self.text = QPlainTextEdit(objectName="sqlExplanationText")
        self.text.setReadOnly(True)
        self.text.setFrameShape(QFrame.Shape.NoFrame)
        self.text.setMaximumHeight(self.text.fontMetrics().lineSpacing() * 7 + 12)
        close = QToolButton(objectName="sqlExplanationClose")
        close.setIcon(qta.icon("fa5s.times"))
        close.setToolTip("Hide the explanation")
        close.setAutoRaise(True)
        close.clicked.connect(self.hide_requested)
        header = QHBoxLayout()
        header.setContentsMargins(0, 0, 0, 0)
        header.addWidget(self.source, 1)
        header.addWidget(close)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(4)
        layout.addLayout(header)
        layout.addWidget(self.text)
        self.hide()

    def show_waiting(self, text: str = "Explaining…") -> None:
        self._label = ""
        self.source.setText(text)
        self.text.setPlainText("")
        self.show()

    def show_explanation(self, explanation: Explanation) -> None:
        """The words, under a line saying where they came from (and why the structure, when it was)."""
        label = SOURCE_LABELS.get(explanation.source, "Explained")
        self._set(label + (f" ({explanation.note})" if explanation.note else ""), explanation.text)

    def show_failure(self, exc: BaseException) -> None:
        message, hint = error_text(exc)
        self._set("Could not explain this SQL", message + (f"\n{hint}" if hint else ""))

    def set_changed(self, changed: bool) -> None:
        """Say so when the SQL in the editor is no longer the SQL explained."""
        if self._label:
            self.source.setText(self._label + (_CHANGED if changed else ""))

    def clear(self) -> None:
        self._label = ""
        self.source.setText("")
        self.text.setPlainText("")
        self.hide()

    def _set(self, label: str, text: str) -> None:
        self._label = label
        self.source.setText(label)
        self.text.setPlainText(text)
        self.show()
