"""Shared insights in the window: "Suggested by other agents" under an answer, and sharing the answer after it.

:class:`SuggestionsBar` sits under each answer bubble: one button per follow-up question another agent's insight
suggests (clicking asks it) and a thumbs-down beside each (this agent is not suggested that follow-up again; the
other agent's record is its own and stays as it is).
Shared text comes from other machines, so it is shown as plain text only: button texts (never rich text), and
tool tips built as escaped HTML, so "<b>x</b>" or a planted instruction shows as the characters it is and does
nothing. It never reaches the SQL prompt either: a person decides whether to ask it.

:class:`WindowSharing` is the glue ``MainWindow`` calls when an answer arrives: suggestions are fetched and the
answer is shared on workers, after the answer is on screen; a store that is down is a status-bar message and
the answer is untouched.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Sequence
from typing import Any

import qtawesome as qta
from PySide6.QtCore import QObject, QSize, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSizePolicy, QToolButton, QVBoxLayout, QWidget

from core.errors import CairnError
from core.llm import cancellable
from desktop.toolkit.errors import error_text
from desktop.toolkit.widgets import mark_muted, wrap_words
from desktop.toolkit.workers import run_in_background

__all__ = ["MAX_BUTTON_CHARS", "SuggestionButton", "SuggestionsBar", "WindowSharing", "plain_tooltip"]

logger = logging.getLogger(__name__)

MAX_BUTTON_CHARS = 80  # a follow-up is at most 200 characters; the button shows this much, the tip all of it
STATUS_MS = 10_000


def plain_tooltip(text: str) -> str:
    """``text`` as a tool tip that shows exactly these characters (Qt guesses rich text from tags otherwise)."""
    return "<qt>" + html.escape(text).replace("\n", "<br>") + "</qt>"


class SuggestionButton(QPushButton):
    """A follow-up question as a left-aligned button, its words wrapped onto up to three lines in the room it has
    and only then cut (all of it in the tip), so a narrow chat column still shows the question.

    The size hint comes from the whole text on one line, so wrapping on resize never widens the layout; the height
    follows the lines shown."""

    MAX_LINES = 3

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.full_text = text
        self.setStyleSheet("text-align: left;")
        self._shown = text if len(text) <= MAX_BUTTON_CHARS else text[:MAX_BUTTON_CHARS - 1] + "…"
        self._one_line = super().sizeHint().height()
        self._lines = 1
        self._elide()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt naming
        width = self.fontMetrics().horizontalAdvance(self._shown) + self.iconSize().width() + _BUTTON_CHROME
        return QSize(width, self._height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt naming
        return QSize(60, self._height())

    def _height(self) -> int:
        return self._one_line + self.fontMetrics().lineSpacing() * (self._lines - 1)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt naming
        super().resizeEvent(event)
        self._elide()

    def shown_lines(self) -> list[str]:
        """The lines the button shows now (``&`` as typed)."""
        return self.text().replace("&&", "&").split("\n")

    def _elide(self) -> None:
        room = max(24, self.width() - self.iconSize().width() - _BUTTON_CHROME)
        metrics = self.fontMetrics()
        lines = wrap_words(self._shown, metrics, room)
        if len(lines) > self.MAX_LINES:
            lines = [*lines[:self.MAX_LINES - 1], " ".join(lines[self.MAX_LINES - 1:])]
        lines = [metrics.elidedText(line, Qt.TextElideMode.ElideRight, room) for line in lines] or [""]
        self.setText("\n".join(lines).replace("&", "&&"))  # a single & would become a keyboard mnemonic and vanish
        if len(lines) != self._lines:
            self._lines = len(lines)
            self.setFixedHeight(self._height())
            self.updateGeometry()


_BUTTON_CHROME = 28  # the button's frame and padding around its icon and text, in pixels


class SuggestionsBar(QWidget):
    """Other agents' follow-up questions under one answer; hidden until there are some."""

    ask_requested = Signal(str)
    """A suggestion was clicked: ask this question."""
    reject_requested = Signal(object)
    """Thumbs-down on a suggestion (the Suggestion): do not suggest that follow-up to this agent again."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("suggestionsBar")
        self._rows: dict[tuple[str, str], tuple[QWidget, Any]] = {}  # (record, text) -> (row, Suggestion)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 4, 0, 0)
        column.setSpacing(2)
        self.title = QLabel("Suggested by other agents")
        self.title.setObjectName("suggestionsTitle")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        mark_muted(self.title)
        self.title.setToolTip("Follow-up questions from other Cairn agents' redacted insights, on their own "
                              "databases. Nothing is asked until you click one.")
        column.addWidget(self.title)
        self._column = column
        self.setVisible(False)

    def suggestions(self) -> list[Any]:
        """The suggestions shown (those thumbed down are gone)."""
        return [suggestion for row, suggestion in self._rows.values() if not row.isHidden()]

    def set_suggestions(self, suggestions: Sequence[Any]) -> None:
        for suggestion in suggestions:
            key = (suggestion.record_id, suggestion.text)
            if key in self._rows:
                continue
            row = self._row(suggestion)
            self._rows[key] = (row, suggestion)
            self._column.addWidget(row)
        self.setVisible(bool(self.suggestions()))

    def remove(self, suggestion: Any) -> None:
        """Hide the row of ``suggestion`` (it was turned down)."""
        entry = self._rows.get((suggestion.record_id, suggestion.text))
        if entry is not None:
            entry[0].setVisible(False)
        self.setVisible(bool(self.suggestions()))

    def _row(self, suggestion: Any) -> QWidget:
        row = QWidget(self)
        row.setObjectName("suggestionRow")
        line = QHBoxLayout(row)
        line.setContentsMargins(0, 0, 0, 0)
        line.setSpacing(2)
        button = SuggestionButton(suggestion.text, row)
        button.setObjectName("suggestionButton")
        button.setIcon(qta.icon("fa5s.lightbulb"))
        button.setAccessibleName(suggestion.text)
        signer = f", key {suggestion.author}" if suggestion.author else ""
        button.setToolTip(plain_tooltip(f"Ask: {suggestion.text}\n\nFrom another agent ({suggestion.db_kind}{signer}), "
                                        f"whose insight was: {suggestion.insight}"))
        button.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)  # narrow: elided, no scroll
        button.clicked.connect(lambda _checked=False, text=suggestion.text: self.ask_requested.emit(text))
        reject = QToolButton(row)
        reject.setObjectName("suggestionReject")
        reject.setAutoRaise(True)
        reject.setIcon(qta.icon("fa5.thumbs-down"))
        reject.setToolTip("Not a useful question: never suggest it to me again (the other agent's insight stays)")
        reject.clicked.connect(lambda _checked=False, s=suggestion: self.reject_requested.emit(s))
        line.addWidget(button, 1)
        line.addWidget(reject)
        return row


class WindowSharing(QObject):
    """What the main window does with shared insights. Built once with the window; every call is cheap."""

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.window = window
        window.chat.suggestion_asked.connect(self.ask)
        window.chat.suggestion_rejected.connect(self.reject)

    def _status(self, text: str) -> None:
        self.window.statusBar().showMessage(text, STATUS_MS)

    def _store_failed(self, exc: BaseException) -> None:
        message, _hint = error_text(exc)
        logger.info("shared insights: %s", message)
        self._status(f"Shared insights unavailable: {message} The answer is not affected.")

    def sharing(self) -> Any:
        """The current database's InsightSharing, or None (sharing off, or not connected yet)."""
        assistant = self.window.assistant
        if assistant is None:
            return None
        try:
            return self.window.context.services.sharing(self.window.target, pipeline=assistant.pipeline)
        except CairnError as exc:
            self._store_failed(exc)
            return None

    def after_answer(self, reply: Any) -> None:
        """The answer is on screen: fetch other agents' suggestions for it and share it, both on workers."""
        answer, bar = reply.answer, getattr(self.window.chat, "last_suggestions", None)
        if answer is None or not answer.ok or not answer.sql:
            return
        sharing = self.sharing()
        if sharing is None:
            return
        services, pipeline, user, question = (self.window.context.services, self.window.assistant.pipeline,
                                              self.window.user, reply.message)
        if bar is not None:
            run_in_background(lambda cancel, report: sharing.suggestions(question), on_success=bar.set_suggestions,
                              on_failure=self._store_failed, receiver=bar)

        def share(cancel: Any, _report: Any) -> Any:
            with cancellable(cancel):  # closing the window cuts the summary call too
                return services.share_answer(sharing, answer, pipeline=pipeline, user=user, question=question)

        run_in_background(share, on_success=self._shared, on_failure=self._store_failed, receiver=self.window)

    def _shared(self, outcome: Any) -> None:
        if outcome.store_down:
            self._status(f"Shared insights unavailable: {outcome.reason} The answer is not affected.")
        elif outcome.record is not None:
            self._status("Shared a redacted insight with other agents.")
        else:
            logger.info("not shared: %s", outcome.reason)

    def ask(self, text: str) -> None:
        """A suggestion was clicked: ask it, as if typed (a person chose it)."""
        if self.window.chat.busy:
            self._status("Cairn is still answering; ask the suggestion when it is done.")
            return
        self.window.ask(text)

    def reject(self, suggestion: Any, bar: Any) -> None:
        """Thumbs-down: that follow-up is not suggested to this agent again (kept in its own data folder; the other
        agent's signed record is not ours to change), and its row goes."""
        services = self.window.context.services

        def done(removed: int) -> None:
            bar.remove(suggestion)
            self._status("That suggestion will not be suggested to you again." if removed
                         else "That suggestion was turned down already.")

        run_in_background(lambda cancel, report: services.insight_sharing("").reject(suggestion), on_success=done,
                          on_failure=self._store_failed, receiver=bar)
