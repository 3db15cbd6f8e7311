"""The SQL editor: highlighted, monospace, Ctrl+Enter to run, a Format button (sqlglot pretty print), and an
Explain button that says in plain words what the SQL does, in a panel under the editor.

Running is not done here: ``run_requested`` carries the text to the app, which sends it through the
same guard as generated SQL. Highlighting uses a small line scanner (with state for multi-line
comments and strings); the keyword and function lists come from sqlglot's tokenizer and parser.
Explaining never runs the SQL: the explainer the app gives (``set_explainer``) runs off the GUI thread, with the
worker's Stop bound around it; until there is one, the SQL is read from its structure alone.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import qtawesome as qta
import sqlglot
from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QGuiApplication,
    QKeyEvent,
    QKeySequence,
    QPalette,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)
from sqlglot.errors import SqlglotError
from sqlglot.parser import Parser
from sqlglot.tokens import Tokenizer

from core.cancellation import Cancellation
from core.llm import cancellable
from core.replies import Explanation, describe_sql
from desktop.panels.sql_completion import SqlCompleter, dialect_keywords
from desktop.panels.plan_view import PlanButton, Planner
from desktop.panels.sql_explanation import ExplanationPanel
from desktop.toolkit.workers import Worker, run_in_background

__all__ = ["Explainer", "SqlEditor", "SqlHighlighter", "format_sql"]

logger = logging.getLogger(__name__)

_NORMAL, _IN_COMMENT, _IN_STRING = -1, 1, 2

Explainer = Callable[[str], Explanation]
"""SQL text -> its explanation; called on a worker thread (e.g. ``lambda sql: services.explain(sql, ...)``)."""

_EXPLAIN_TIP = "Say in plain words what this SQL does (it is not run)"


@lru_cache(maxsize=1)
def _words() -> tuple[frozenset[str], frozenset[str]]:
    """(keywords, function names), upper case, from sqlglot's own tables."""
    keywords = {
        word
        for key in Tokenizer.KEYWORDS
        for word in key.split()
        if word.replace("_", "").isalpha()
    }
    functions = {name for name in Parser.FUNCTIONS if name.replace("_", "").isalnum()}
    return frozenset(keywords), frozenset(functions)


def format_sql(sql: str, dialect: str | None = "postgres") -> str:
    """Pretty-printed SQL (comments kept); raises sqlglot's ParseError when it cannot be read."""
    statements = sqlglot.transpile(sql, read=dialect, write=dialect, pretty=True)
    return ";\n\n".join(s for s in statements if s.strip())


class SqlHighlighter(QSyntaxHighlighter):
    """Colours keywords, functions, strings, numbers and comments with palette-derived colours."""

    def __init__(self, document: QTextDocument, palette: QPalette) -> None:
        super().__init__(document)
        self.formats: dict[str, QTextCharFormat] = {}
        self.set_palette(palette)

    def set_palette(self, palette: QPalette) -> None:
        """Pick colours readable on this palette's base colour (light or dark theme)."""
        dark = palette.color(QPalette.ColorRole.Base).lightness() < 128
        lightness = 175 if dark else 95

        def fmt(color: QColor, *, bold: bool = False, italic: bool = False) -> QTextCharFormat:
            f = QTextCharFormat()
            f.setForeground(color)
            if bold:
                f.setFontWeight(QFont.Weight.Bold)
            f.setFontItalic(italic)
            return f

        self.formats = {
            "keyword": fmt(palette.color(QPalette.ColorRole.Link), bold=True),
            "function": fmt(QColor.fromHsl(280, 140, lightness)),
            "string": fmt(QColor.fromHsl(120, 120, lightness - 20 if not dark else lightness)),
            "number": fmt(QColor.fromHsl(25, 200, lightness)),
            "comment": fmt(palette.color(QPalette.ColorRole.PlaceholderText), italic=True),
        }
        self.rehighlight()

    def highlightBlock(self, text: str) -> None:
        keywords, functions = _words()
        state = self.previousBlockState()
        i, n = 0, len(text)
        if state == _IN_COMMENT:
            end = text.find("*/")
            i = n if end < 0 else end + 2
            self.setFormat(0, i, self.formats["comment"])
            if end < 0:
                self.setCurrentBlockState(_IN_COMMENT)
                return
        elif state == _IN_STRING:
            i = self._string_end(text, 0)
            self.setFormat(0, min(i, n), self.formats["string"])
            if i > n:
                self.setCurrentBlockState(_IN_STRING)
                return
        self.setCurrentBlockState(_NORMAL)
        while i < n:
            ch = text[i]
            if ch == "-" and text.startswith("--", i):
                self.setFormat(i, n - i, self.formats["comment"])
                return
            if ch == "/" and text.startswith("/*", i):
                end = text.find("*/", i + 2)
                stop = n if end < 0 else end + 2
                self.setFormat(i, stop - i, self.formats["comment"])
                if end < 0:
                    self.setCurrentBlockState(_IN_COMMENT)
                    return
                i = stop
            elif ch == "'":
                end = self._string_end(text, i + 1)
                self.setFormat(i, min(end, n) - i, self.formats["string"])
                if end > n:
                    self.setCurrentBlockState(_IN_STRING)
                    return
                i = end
            elif ch == '"':  # a quoted identifier: skip it whole so words inside are not keywords
                end = text.find('"', i + 1)
                i = n if end < 0 else end + 1
            elif ch.isdigit() and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
                j = i
                while j < n and (text[j].isdigit() or text[j] == "."):
                    j += 1
                self.setFormat(i, j - i, self.formats["number"])
                i = j
            elif ch.isalpha() or ch == "_":
                j = i
                while j < n and (text[j].isalnum() or text[j] in "_$"):
                    j += 1
                word = text[i:j].upper()
                k = j
                while k < n and text[k] == " ":
                    k += 1
                called = k < n and text[k] == "("
                if called and word in functions:
                    self.setFormat(i, j - i, self.formats["function"])
                elif word in keywords:
                    self.setFormat(i, j - i, self.formats["keyword"])
                i = j
            else:
                i += 1

    @staticmethod
    def _string_end(text: str, start: int) -> int:
        """Index just past the closing quote ('' is an escaped quote); len(text)+1 when still open."""
        i = start
        n = len(text)
        while i < n:
            if text[i] == "'":
                if i + 1 < n and text[i + 1] == "'":
                    i += 2
                    continue
                return i + 1
            i += 1
        return n + 1


class _SqlTextEdit(QPlainTextEdit):
    """Turns Ctrl+Enter into a run request instead of a new line."""

    run_shortcut = Signal()
    """Ctrl+Enter (or Ctrl+Return) was pressed in the editor."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.completer = SqlCompleter(self)  # tables, columns and keywords as you type

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and (
            event.modifiers() & Qt.KeyboardModifier.ControlModifier
        ):
            event.accept()
            self.run_shortcut.emit()
            return
        if self.completer.takes(event.key()):
            event.accept()
            return
        super().keyPressEvent(event)
        self.completer.typed(event.text())


class SqlEditor(QWidget):
    """Edit and run SQL; the app decides what running means (guard, validate, execute)."""

    run_requested = Signal(str)
    """The person asked to run this SQL (Run button or Ctrl+Enter)."""
    explain_requested = Signal(str)
    """An explanation of this SQL was started (Explain button or :meth:`explain`)."""
    explanation_shown = Signal(object)
    """An explanation (a ``core.replies.Explanation``) is shown under the editor."""

    def __init__(self, parent: QWidget | None = None, *, dialect: str | None = "postgres") -> None:
        super().__init__(parent)
        self.setObjectName("sqlEditor")
        self._dialect = dialect
        self._running = False
        self._explainer: Explainer | None = None
        self._explain_worker: Worker | None = None
        self._explain_round = 0  # an answer from an older round (replaced, stopped, SQL replaced) is dropped
        self._explained_sql = ""

        self.edit = _SqlTextEdit(objectName="sqlTextEdit")
        self._fit_font()
        self.edit.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)  # a long line wraps, never scrolls away
        self.edit.setPlaceholderText("SELECT … — write or edit SQL here, then press Ctrl+Enter to run it")
        self.edit.run_shortcut.connect(self._request_run)
        self.highlighter = SqlHighlighter(self.edit.document(), self.edit.palette())

        self.run_button = QPushButton(qta.icon("fa5s.play"), "Run", objectName="runSqlButton")
        self.run_button.setToolTip("Run this SQL, read-only (Ctrl+Enter)")
        self.run_button.clicked.connect(self._request_run)
        self.format_button = QPushButton(qta.icon("fa5s.align-left"), "Format", objectName="formatSqlButton")
        self.format_button.setToolTip("Pretty-print the SQL")
        self.format_button.clicked.connect(self.format)
        self.copy_button = QPushButton(qta.icon("fa5s.copy"), "Copy SQL", objectName="copySqlButton")
        self.copy_button.setToolTip("Copy the SQL to the clipboard (Ctrl+Shift+C)")
        self.copy_button.setShortcut(QKeySequence("Ctrl+Shift+C"))
        self.copy_button.clicked.connect(self.copy)
        self.explain_button = QPushButton(qta.icon("fa5s.comment-dots"), "Explain", objectName="explainSqlButton")
        self.explain_button.setToolTip(_EXPLAIN_TIP)
        self.explain_button.clicked.connect(self._explain_clicked)
        self.status_label = QLabel(objectName="sqlStatusLabel")
        self.status_label.setWordWrap(True)
        self.explanation_panel = ExplanationPanel()
        self.explanation_panel.hide_requested.connect(self._drop_explanation)

        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.setSpacing(8)
        buttons.addStretch(1)
        buttons.addWidget(self.copy_button)
        buttons.addWidget(self.explain_button)
        self.plan_button = PlanButton(self.sql, self)
        buttons.addWidget(self.plan_button)
        buttons.addWidget(self.format_button)
        buttons.addWidget(self.run_button)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.setSpacing(6)
        layout.addWidget(self.edit, 1)
        # its own line, the editor's width: beside the buttons it wrapped a word per line in a narrow tab
        layout.addWidget(self.status_label)
        layout.addLayout(buttons)
        layout.addWidget(self.explanation_panel)
        self.edit.textChanged.connect(self._update_buttons)
        self._update_buttons()

    # -- public API --------------------------------------------------------------------------------
    def sql(self) -> str:
        return self.edit.toPlainText()

    def set_sql(self, sql: str) -> None:
        """Replace the SQL; an explanation of the SQL before is put away (and one still coming is dropped)."""
        self._drop_explanation()
        self.edit.setPlainText(sql)
        self.status_label.setText("")

    def show_answer_sql(self, sql: str) -> None:
        """Show an answer's SQL pretty-printed when it parses, as written otherwise."""
        self.set_sql(self._pretty(sql))

    def show_ran(self, typed: str, ran: str, notes: Sequence[str] = ()) -> bool:
        """After SQL the person typed has run: when Cairn changed it first (a name repaired to the schema), put
        the SQL that ran in the editor (one undo step: Ctrl+Z brings back what was typed), say so, and say True."""
        if not ran or self._pretty(ran) == self._pretty(typed):
            self.status_label.setText("")
            return False
        cursor = QTextCursor(self.edit.document())
        cursor.beginEditBlock()
        cursor.select(QTextCursor.SelectionType.Document)
        cursor.insertText(self._pretty(ran))
        cursor.endEditBlock()
        detail = "; ".join(n for n in notes if n) or "names matched to the schema"
        self.status_label.setText(f"Cairn changed your SQL before running it ({detail}). Ctrl+Z shows what you typed.")
        return True

    def copy(self) -> None:
        """The SQL to the clipboard."""
        text = self.sql().strip()
        if text:
            QGuiApplication.clipboard().setText(text)
            self.status_label.setText("SQL copied to the clipboard.")

    def _pretty(self, sql: str) -> str:
        try:
            return format_sql(sql, self._dialect) if sql.strip() else sql
        except SqlglotError:
            return sql

    def set_schema(self, schema: Any) -> None:
        """The connected database: its dialect (Format) and its tables and columns (completion)."""
        self.set_dialect(schema.dialect)
        self.edit.completer.set_schema({t.name: [c.name for c in t.columns] for t in schema.tables},
                                       dialect_keywords(schema.dialect))

    def set_dialect(self, dialect: str | None) -> None:
        """The sqlglot dialect used by Format (the connected database's)."""
        self._dialect = dialect

    @property
    def dialect(self) -> str | None:
        return self._dialect

    def set_running(self, running: bool) -> None:
        """While a query runs the text is read-only and Run/Format are off."""
        self._running = running
        self.edit.setReadOnly(running)
        self.run_button.setText("Running…" if running else "Run")
        self._update_buttons()

    @property
    def running(self) -> bool:
        return self._running

    def format(self) -> None:
        """Pretty-print in place (one undo step); a parse failure is shown under the editor."""
        sql = self.sql()
        if not sql.strip() or self._running:
            return
        try:
            pretty = format_sql(sql, self._dialect)
        except SqlglotError as exc:
            logger.debug("format failed", exc_info=True)
            first_line = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            self.status_label.setText(f"Could not format: {first_line}")
            return
        cursor = QTextCursor(self.edit.document())
        cursor.beginEditBlock()
        cursor.select(QTextCursor.SelectionType.Document)
        cursor.insertText(pretty)
        cursor.endEditBlock()
        self.status_label.setText("")

    # -- explaining --------------------------------------------------------------------------------
    def set_explainer(self, explainer: Explainer | None, *, planner: Planner | None = None) -> None:
        """What explains SQL from now on (the connected database's model, with its structure as fallback);
        None: read the SQL's structure only. ``planner``: the connected database's query plan (Plan)."""
        self._explainer = explainer
        self.plan_button.planner = planner

    @property
    def explaining(self) -> bool:
        return self._explain_worker is not None

    def explain(self) -> None:
        """Explain the SQL in the editor, off the GUI thread; the words show under the editor. Never runs it."""
        sql = self.sql().strip()
        if not sql:
            return
        self._drop_explanation()
        self._explain_round += 1
        round_ = self._explain_round
        explainer = self._explainer or self._read_structure
        self.explain_requested.emit(sql)
        self._explained_sql = sql
        self.explanation_panel.show_waiting()

        def work(cancel: Cancellation, _report: Callable[[Any], None]) -> Explanation:
            with cancellable(cancel):  # Stop reaches every model call the explainer makes
                return explainer(sql)

        self._explain_worker = run_in_background(
            work,
            on_success=lambda result: self._explained(round_, result),
            on_failure=lambda exc: self._explain_failed(round_, exc),
            receiver=self,
        )
        self._update_buttons()

    def stop_explaining(self) -> None:
        """Stop waiting for the model: the explainer falls back to the SQL's structure at once."""
        if self._explain_worker is not None:
            self._explain_worker.cancel()
            self.explanation_panel.show_waiting("Stopping…")

    def _read_structure(self, sql: str) -> Explanation:
        return Explanation(describe_sql(sql, dialect=self._dialect), "structure", "not connected to a database yet")

    def _explain_clicked(self) -> None:
        if self.explaining:
            self.stop_explaining()
        else:
            self.explain()

    def _explained(self, round_: int, result: Explanation) -> None:
        if round_ == self._explain_round:
            self._explain_worker = None
            self.explanation_panel.show_explanation(result)
            self._update_buttons()
            self.explanation_shown.emit(result)

    def _explain_failed(self, round_: int, exc: BaseException) -> None:
        if round_ == self._explain_round:
            self._explain_worker = None
            self.explanation_panel.show_failure(exc)
            self._update_buttons()

    def _drop_explanation(self) -> None:
        """Put the explanation away; a running one is stopped and its answer ignored."""
        self._explain_round += 1
        if self._explain_worker is not None:
            self._explain_worker.cancel()
            self._explain_worker = None
        self._explained_sql = ""
        self.explanation_panel.clear()
        self._update_buttons()

    # -- internals ---------------------------------------------------------------------------------
    def _request_run(self) -> None:
        sql = self.sql().strip()
        if sql and not self._running:
            self.run_requested.emit(sql)

    def _update_buttons(self) -> None:
        has_text = bool(self.sql().strip())
        self.run_button.setEnabled(has_text and not self._running)
        self.format_button.setEnabled(has_text and not self._running)
        self.copy_button.setEnabled(has_text)
        explaining = self._explain_worker is not None
        self.explain_button.setEnabled(has_text or explaining)
        if (self.explain_button.text() == "Stop") != explaining:
            self.explain_button.setText("Stop" if explaining else "Explain")
            self.explain_button.setIcon(qta.icon("fa5s.stop" if explaining else "fa5s.comment-dots"))
            self.explain_button.setToolTip("Stop waiting for the model and read the SQL's structure instead"
                                           if explaining else _EXPLAIN_TIP)
        if not explaining:
            self.explanation_panel.set_changed(bool(self._explained_sql) and self.sql().strip() != self._explained_sql)

    def _fit_font(self) -> None:
        """The fixed-width font at the window's font size (Settings → Font size), not the system's 9 pt."""
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        size = self.font().pointSizeF()
        if size > 0:
            font.setPointSizeF(size)
        self.edit.setFont(font)
        self.edit.setTabStopDistance(self.edit.fontMetrics().horizontalAdvance(" ") * 4)

    def _recolour(self) -> None:
        """The highlighter's colours for the theme now in use (the application's palette: the editor sets none of
        its own, and a hidden tab's editor may not have resolved the new one yet)."""
        from PySide6.QtWidgets import QApplication

        self.highlighter.set_palette(QApplication.palette())

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.StyleChange):  # after the editor's own palette:
            QTimer.singleShot(0, self, self._recolour)  # it comes later
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):  # Settings → Font size, theme
            QTimer.singleShot(0, self, self._fit_font)  # after the style sheet has re-polished the editor's own font
        super().changeEvent(event)
