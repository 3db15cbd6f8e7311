"""First screen: pick or create the username whose memory Cairn uses (each person's memory is separate)."""

from __future__ import annotations

import qtawesome as qta
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QVBoxLayout,
    QWidget,
)

__all__ = ["LoginDialog"]

MAX_NAME = 64


class LoginDialog(QDialog):
    def __init__(self, users: list[str], last_user: str | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Cairn — who is asking?")
        self.setObjectName("loginDialog")
        self.setMinimumWidth(420)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 24, 24, 18)
        layout.setSpacing(10)

        icon = QLabel()
        icon.setPixmap(qta.icon("fa5s.mountain", color=self.palette().highlight().color()).pixmap(48, 48))
        icon.setAlignment(Qt.AlignmentFlag.AlignCenter)
        title = QLabel("Welcome to Cairn")
        font = QFont(title.font())
        font.setPointSizeF(font.pointSizeF() * 1.5)
        font.setBold(True)
        title.setFont(font)
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        blurb = QLabel(
            "Ask your database questions in plain words. Cairn remembers each person's preferences and "
            "terms separately, and nothing leaves this computer."
        )
        blurb.setWordWrap(True)
        blurb.setAlignment(Qt.AlignmentFlag.AlignCenter)

        self.name = QComboBox()
        self.name.setObjectName("userName")
        self.name.setEditable(True)
        self.name.addItems(users)
        self.name.setCurrentText(last_user or (users[0] if users else ""))
        self.name.lineEdit().setPlaceholderText("Your name, e.g. priya")
        self.name.lineEdit().setMaxLength(MAX_NAME)
        # What is typed is the name: no inline completion that turns "ann" into a longer saved name on Enter.
        self.name.setCompleter(None)
        self.name.editTextChanged.connect(self._validate)

        self.problem = QLabel()
        self.problem.setObjectName("loginProblem")
        self.problem.setStyleSheet("color: palette(link-visited);")

        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Start")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

        layout.addWidget(icon)
        layout.addWidget(title)
        layout.addWidget(blurb)
        layout.addSpacing(8)
        layout.addWidget(QLabel("Username (pick one or type a new one):"))
        layout.addWidget(self.name)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self._validate(self.name.currentText())

    def user(self) -> str:
        return self.name.currentText().strip()

    def _validate(self, text: str) -> None:
        name = text.strip()
        problem = ""
        if not name:
            problem = "Type a name to start."
        elif any(not ch.isprintable() for ch in name):
            problem = "Use printable characters only."
        self.problem.setText(problem)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(not problem)
