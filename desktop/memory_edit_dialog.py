"""The dialogs of the memory bank: add or edit one memory (validated inline), confirm, choose a file.

The blocking ones (confirm, file choosers) are plain functions so the bank view can take stand-ins in tests.
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Callable
from pathlib import Path

import qtawesome as qta
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.memory import ALL_DATABASES, CATEGORIES, Memory, Understanding, describe_form

__all__ = [
    "CATEGORY_LABELS",
    "MIN_CONTENT_CHARS",
    "MemoryEditDialog",
    "ask_to_confirm",
    "choose_export_file",
    "choose_import_file",
]

logger = logging.getLogger(__name__)

MIN_CONTENT_CHARS = 6  # the bank refuses 5 characters or fewer
MAX_CONTENT_CHARS = 2000
CATEGORY_LABELS: dict[str, str] = {
    "preference": "Preference",
    "terminology": "Terminology",
    "metric": "Metric",
    "entity": "Entity",
}
CATEGORY_HELP: dict[str, str] = {
    "preference": "How you like answers, e.g. 'Always show me customers from India'.",
    "terminology": "What a word means here, e.g. 'A big order is one over 10,000'.",
    "metric": "How a number is computed, e.g. 'Revenue is the sum of total_amount of delivered orders'.",
    "entity": "A thing you talk about, e.g. 'ACME is the customer with id 42'.",
}


def normalised(text: str) -> str:
    """The content as the bank stores it (runs of whitespace collapsed)."""
    return " ".join(text.split())


class MemoryEditDialog(QDialog):
    """A small form for one memory; ``category()`` and ``content()`` hold the answer once accepted."""

    def __init__(
        self, memory: Memory | None, parent: QWidget | None = None, *, database_id: str | None = None,
        understand: Callable[[str, str], Understanding] | None = None,
    ) -> None:
        """``database_id`` (adding only): offer to keep the new memory to that one database. ``understand``:
        what Cairn would make of the words (the bank's), shown live under the text while the person types."""
        super().__init__(parent)
        self.setObjectName("memoryEditDialog")
        self.setWindowTitle("Edit memory" if memory is not None else "Add memory")
        self.setWindowIcon(qta.icon("fa5s.brain"))
        self.setMinimumWidth(420)
        self._memory = memory

        self._category = QComboBox(self)
        self._category.setObjectName("memoryCategory")
        for category in CATEGORIES:
            self._category.addItem(CATEGORY_LABELS.get(category, category.title()), category)
        if memory is not None:
            self._category.setCurrentIndex(max(0, self._category.findData(memory.category)))
        self._category.currentIndexChanged.connect(lambda _i: self._validate())

        self._content = QPlainTextEdit(self)
        self._content.setObjectName("memoryContent")
        self._content.setTabChangesFocus(True)
        self._content.setMinimumHeight(90)
        if memory is not None:
            self._content.setPlainText(memory.content)
        self._content.textChanged.connect(self._validate)

        self._help = QLabel(self)
        self._help.setObjectName("memoryCategoryHelp")
        self._help.setWordWrap(True)
        self._help.setEnabled(False)  # the palette's disabled text: a quieter, theme-aware hint

        self._only_here: QCheckBox | None = None
        if memory is None and database_id and database_id != ALL_DATABASES:
            self._only_here = QCheckBox(f"Only for {database_id}", self)
            self._only_here.setObjectName("memoryOnlyThisDatabase")
            self._only_here.setToolTip("Unticked, the memory applies to every database you use.")
            self._only_here.setProperty("database_id", database_id)

        self._error = QLabel(self)
        self._error.setObjectName("memoryContentError")
        self._error.setWordWrap(True)

        form = QFormLayout()
        form.addRow("Category", self._category)
        form.addRow("", self._help)
        form.addRow("Memory", self._content)
        form.addRow("", self._error)
        if self._only_here is not None:
            form.addRow("", self._only_here)
        self._understand = understand
        self._understood = QLabel(self)
        self._understood.setObjectName("memoryUnderstood")
        self._understood.setWordWrap(True)
        self._understood.setTextFormat(Qt.TextFormat.RichText)
        self._understood.setToolTip("What Cairn will do with this memory; it follows the words as you type.")
        form.addRow("Understood", self._understood)
        self._understand_timer = QTimer(self)
        self._understand_timer.setSingleShot(True)
        self._understand_timer.setInterval(250)
        self._understand_timer.timeout.connect(self._show_understanding)
        self._content.textChanged.connect(self._understand_timer.start)
        self._category.currentIndexChanged.connect(lambda _i: self._understand_timer.start())

        self._buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, parent=self
        )
        self._buttons.setObjectName("memoryDialogButtons")
        self._buttons.accepted.connect(self.accept)
        self._buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 12, 12, 12)
        layout.setSpacing(8)
        layout.addLayout(form)
        layout.addWidget(self._buttons)
        self._content.setFocus()
        self._validate()
        self._show_understanding()

    # -- public ---------------------------------------------------------------------------------------

    def memory(self) -> Memory | None:
        """The memory being edited; None when adding."""
        return self._memory

    def category(self) -> str:
        return str(self._category.currentData())

    def content(self) -> str:
        return normalised(self._content.toPlainText())

    def database_id(self) -> str:
        """Where the memory applies: the edited memory's database, or the choice made when adding."""
        if self._memory is not None:
            return self._memory.database_id
        if self._only_here is not None and self._only_here.isChecked():
            return str(self._only_here.property("database_id"))
        return ALL_DATABASES

    def set_category(self, category: str) -> None:
        self._category.setCurrentIndex(max(0, self._category.findData(category)))

    def set_content(self, text: str) -> None:
        self._content.setPlainText(text)

    def ok_button(self) -> QPushButton:
        return self._buttons.button(QDialogButtonBox.StandardButton.Ok)

    def error_text(self) -> str:
        return self._error.text()

    def understood_text(self) -> str:
        self._understand_timer.stop()
        self._show_understanding()
        return self._understood.text()

    def accept(self) -> None:
        if self._validate():
            super().accept()

    # -- internals ------------------------------------------------------------------------------------

    def _show_understanding(self) -> None:
        text = self.content()
        if self._understand is None or len(text) < MIN_CONTENT_CHARS:
            stored = (self._memory.structured if self._memory is not None else None) or {}
            shown = describe_form(stored) if stored and text == (self._memory.content if self._memory else "") \
                else "Type the memory to see how Cairn will use it."
            self._understood.setText(html.escape(_wrappable(shown)))
            return
        try:
            u = self._understand(self.category(), text)
        except Exception as exc:  # never lose the dialog over a preview
            logger.warning("memory preview failed: %s", exc)
            self._understood.setText(html.escape("Cairn will work out the meaning when you save."))
            return
        lines = [f"<b>{html.escape(u.use.capitalize())}</b>: {html.escape(_wrappable(u.description))}"]
        lines += [f"<i>{html.escape(_wrappable(w))}</i>" for w in u.warnings]
        self._understood.setText("<br>".join(lines))

    def _validate(self) -> bool:
        self._help.setText(CATEGORY_HELP.get(self.category(), ""))
        text = self.content()
        if not text:
            message = ""  # nothing typed yet: no scolding, OK simply stays off
            ok = False
        elif len(text) < MIN_CONTENT_CHARS:
            message = f"A memory needs more than {MIN_CONTENT_CHARS - 1} characters."
            ok = False
        elif len(text) > MAX_CONTENT_CHARS:
            message = f"A memory is limited to {MAX_CONTENT_CHARS:,} characters; split it into several."
            ok = False
        else:
            message = ""
            ok = True
        self._error.setText(message)
        self._error.setVisible(bool(message))
        self.ok_button().setEnabled(ok)
        return ok


PREVIEW_CHARS = 400
_LONG_RUN = re.compile(r"\S{40}")


def _wrappable(text: str) -> str:
    """The preview line clipped, with break opportunities in long runs (an SQL literal, a pasted token), so the
    label wraps inside the dialog instead of widening it past the screen."""
    clipped = text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 1] + "…"
    return _LONG_RUN.sub(lambda m: m.group() + "\u200b", clipped)


def ask_to_confirm(parent: QWidget, text: str) -> bool:
    """The default confirmation: a Yes/No question that defaults to No."""
    answer = QMessageBox.question(
        parent, "Cairn", text, QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
        QMessageBox.StandardButton.No,
    )
    return answer == QMessageBox.StandardButton.Yes


def choose_export_file(parent: QWidget) -> Path | None:
    path, _ = QFileDialog.getSaveFileName(parent, "Export memories", "cairn-memories.json", "JSON files (*.json)")
    return Path(path) if path else None


def choose_import_file(parent: QWidget) -> Path | None:
    path, _ = QFileDialog.getOpenFileName(parent, "Import memories", "", "JSON files (*.json);;All files (*)")
    return Path(path) if path else None
