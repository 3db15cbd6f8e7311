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
from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from core.memory import ALL_DATABASES, CATEGORIES, Memory, Understanding, describe_form
from desktop.toolkit.widgets import mark_muted

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
CONTEXT_ONLY = "Used as context only: the model sees your words; nothing is enforced."
CONTEXT_HINT: dict[str, str] = {
    "preference": "To have it enforced, name a value as it is in the data, e.g. 'Only customers from India'.",
    "terminology": "To put it in the SQL, say it with a column, e.g. 'A big order has total_amount over 10000'.",
    "metric": "To have it computed, say it with a column, e.g. 'Revenue is the sum of total_amount'.",
    "entity": "That is what entities are for: Cairn brings it up when a question names it.",
}
NO_DATABASE = "No database is open"  # the start of the engine's warning: the meaning is worked out later


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
        self.setMinimumWidth(min(420, self.fontMetrics().averageCharWidth() * 44))
        self._memory = memory

        self._category = QComboBox(self)
        self._category.setObjectName("memoryCategory")
        for category in CATEGORIES:
            self._category.addItem(CATEGORY_LABELS.get(category, category.title()), category)
        if memory is not None:
            self._category.setCurrentIndex(max(0, self._category.findData(memory.category)))
        self._category.currentIndexChanged.connect(lambda _i: self._validate())

        self._content = _MemoryText(self)
        self._content.setObjectName("memoryContent")
        self._content.setTabChangesFocus(True)
        self._content.setMinimumHeight(self.fontMetrics().lineSpacing() * 3 + 12)
        if memory is not None:
            self._content.setPlainText(memory.content)
        self._content.textChanged.connect(self._validate)

        self._help = QLabel(self)
        self._help.setObjectName("memoryCategoryHelp")
        self._help.setWordWrap(True)
        mark_muted(self._help)  # quieter, still 4.5:1

        self._only_here: QCheckBox | None = None
        if memory is None and database_id and database_id != ALL_DATABASES:
            shown = self.fontMetrics().elidedText(database_id, Qt.TextElideMode.ElideMiddle,
                                                  self.fontMetrics().averageCharWidth() * 28)
            self._only_here = QCheckBox(f"Only for {shown}", self)  # a long path must not widen the dialog
            self._only_here.setObjectName("memoryOnlyThisDatabase")
            self._only_here.setToolTip(f"Only for {database_id}. Unticked, the memory applies to every database "
                                       "you use.")
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
        self._preview = _PreviewArea(self)
        reading = QWidget(self._preview)
        reading.setObjectName("memoryReading")
        column = QVBoxLayout(reading)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(6)
        self._understood = QLabel(reading)
        self._understood.setObjectName("memoryUnderstood")
        self._understood.setWordWrap(True)
        self._understood.setTextFormat(Qt.TextFormat.RichText)
        self._understood.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._understood.setToolTip("What Cairn will do with this memory; it follows the words as you type.")
        self._context_frame, self._context_note = _note("memoryContextNote", "fa5s.info-circle", reading)
        self._warnings_frame, self._warnings = _note("memoryUnderstoodWarnings", "fa5s.exclamation-triangle", reading)
        for widget in (self._understood, self._context_frame, self._warnings_frame):
            column.addWidget(widget)
        column.addStretch(1)
        self._preview.setWidget(reading)
        form.addRow("Understood", self._preview)
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
        """The "Understood" line for the words as they are now (the pending preview is run at once)."""
        self._understand_timer.stop()
        self._show_understanding()
        return self._understood.text()

    def context_note(self) -> str:
        """The context-only note as shown; empty when the memory will be enforced or used as a definition."""
        return self._context_note.text() if not self._context_frame.isHidden() else ""

    def warnings(self) -> str:
        """The warnings about the reading (values not found, no database open) as shown; empty when none."""
        return self._warnings.text() if not self._warnings_frame.isHidden() else ""

    def accept(self) -> None:
        if self._validate():
            super().accept()

    # -- internals ------------------------------------------------------------------------------------

    def _show_understanding(self) -> None:
        text = self.content()
        self._context_frame.hide()
        self._warnings_frame.hide()
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
        context = u.use == "context"
        use = "Context only" if context else u.use.capitalize()
        description = u.description if u.form else "nothing to enforce was found in these words."
        shown = html.escape(_wrappable(description))
        if description.lower().startswith(use.lower()):  # "Enforced on every query…" needs no "Enforced:" first
            self._understood.setText(f"<b>{html.escape(use)}</b>{shown[len(use):]}")
        else:
            self._understood.setText(f"<b>{html.escape(use)}</b>: {shown}")
        waiting = any(w.startswith(NO_DATABASE) for w in u.warnings)
        if context and not waiting:
            hint = CONTEXT_HINT.get(u.category, "")
            self._context_note.setText(CONTEXT_ONLY + (f" {hint}" if hint else ""))
            self._context_frame.show()
        if u.warnings:
            self._warnings.setText("\n".join(_wrappable(w) for w in u.warnings))
            self._warnings_frame.show()
        self._preview.updateGeometry()

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
PREVIEW_COLUMNS = 48  # the reading's width in average characters
PREVIEW_LINES = 8  # its height before it scrolls
EDITOR_LINES = 4  # the memory's text box, before it is made taller
_LONG_RUN = re.compile(r"\S{40}")


def _wrappable(text: str) -> str:
    """The preview line clipped, with break opportunities in long runs (an SQL literal, a pasted token), so the
    label wraps inside the dialog instead of widening it past the screen."""
    clipped = text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 1] + "…"
    return _LONG_RUN.sub(lambda m: m.group() + "\u200b", clipped)


class _MemoryText(QPlainTextEdit):
    """The memory's words: a few lines tall to begin with (Qt's default is about twelve), so the reading below
    keeps its room on a small screen; it grows with the dialog."""

    def sizeHint(self) -> QSize:
        margins = self.contentsMargins()
        height = self.fontMetrics().lineSpacing() * EDITOR_LINES + 2 * round(self.document().documentMargin())
        return QSize(super().sizeHint().width(), height + margins.top() + margins.bottom())


class _PreviewArea(QScrollArea):
    """The reading of the words, scrolling when it is long, so the dialog fits a small screen at a large font
    (a long list of values or warnings never clips and never pushes the buttons off the screen)."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("memoryPreview")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def sizeHint(self) -> QSize:
        metrics = self.fontMetrics()
        width = metrics.averageCharWidth() * PREVIEW_COLUMNS
        inner = self.widget()
        height = metrics.lineSpacing() * 2
        if inner is not None:
            height = inner.heightForWidth(width) if inner.hasHeightForWidth() else inner.sizeHint().height()
        return QSize(width, max(metrics.lineSpacing() * 2, min(height, metrics.lineSpacing() * PREVIEW_LINES)))

    def minimumSizeHint(self) -> QSize:
        metrics = self.fontMetrics()
        return QSize(metrics.averageCharWidth() * 20, metrics.lineSpacing() * 2)


def _note(name: str, icon: str, parent: QWidget) -> tuple[QFrame, QLabel]:
    """A framed note with an icon beside wrapped text, hidden until there is something to say."""
    frame = QFrame(parent)
    frame.setObjectName(name)
    frame.setFrameShape(QFrame.Shape.StyledPanel)
    row = QHBoxLayout(frame)
    row.setContentsMargins(6, 4, 6, 4)
    row.setSpacing(6)
    glyph = QLabel(frame)
    size = max(14, frame.fontMetrics().height())
    glyph.setPixmap(qta.icon(icon).pixmap(size, size))
    glyph.setAlignment(Qt.AlignmentFlag.AlignTop)
    text = QLabel(frame)
    text.setObjectName(name + "Text")
    text.setWordWrap(True)
    text.setTextFormat(Qt.TextFormat.PlainText)
    text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    row.addWidget(glyph)
    row.addWidget(text, 1)
    frame.hide()
    return frame, text


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
