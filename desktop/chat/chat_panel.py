"""The conversation: questions, answers with row count, time and memory chips, and memory confirmations.

Under a reply that saved or changed rules, each rule is shown as it will be used (``RuleConfirmation``: enforced,
or waiting until the person keeps a reading), with its buttons; what they ask is emitted for MainWindow to route
to the memory bank, which tells the block how it went."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import qtawesome as qta
from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence, QPalette, QShortcut
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.text import counted
from desktop.memory.memory_scope import ScopeLine
from desktop.memory.rule_confirmation import RuleConfirmation, understood
from desktop.memory.verified_examples import ThumbsBar
from desktop.chat.bubbles import Bubble, Chip, wrapping_policy
from desktop.chat.find_bar import FindBar
from desktop.chat.chat_words import CATEGORY_ICONS, STAGE_TEXT, one_value
from desktop.sharing.suggestions import SuggestionsBar
from desktop.toolkit.errors import window_hint
from desktop.toolkit.widgets import mark_muted

__all__ = ["ChatPanel"]

class ChatPanel(QWidget):
    message_submitted = Signal(str)
    """The person pressed Enter on a message."""
    cancel_requested = Signal()
    """The person asked to stop the running question."""
    memory_show_requested = Signal(str)
    """A memory chip was clicked: show this memory id in the memory bank."""
    rerun_without_requested = Signal(str, str)
    """Rerun (question, without this memory id)."""
    feedback_given = Signal(str, str, str, object)
    """A thumb on an answer: (question, SQL, "up" / "down" / "clear", the answer's ThumbsBar)."""
    suggestion_asked = Signal(str)
    """A suggestion from another agent was clicked: ask it."""
    suggestion_rejected = Signal(object, object)
    # another query offered beside an answer ("Without the join to courses"): the window runs it as the person's SQL
    alternative_requested = Signal(str)
    """Thumbs-down on another agent's suggestion: (the Suggestion, its SuggestionsBar)."""
    busy_changed = Signal(bool)
    """A question started (True) or ended (False): Stop is offered only while one runs."""
    keep_requested = Signal(str, int, object)
    """Keep a rule under a reply: (memory id, the reading to enforce from 1, its RuleConfirmation block)."""
    scope_requested = Signal(str, bool, object)
    """Apply a memory learned here to every database (True) or only this one: (memory id, everywhere, its line)."""
    context_requested = Signal(str, object)
    """Keep a rule under a reply as context only: (memory id, its RuleConfirmation block)."""
    edit_requested = Signal(str)
    """Edit… a rule under a reply: open this memory id in the memory bank's edit dialog."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatPanel")
        outer = QVBoxLayout(self)
        outer.setContentsMargins(8, 8, 8, 8)
        outer.setSpacing(6)

        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self._content = QWidget()
        self._list = QVBoxLayout(self._content)
        self._list.setContentsMargins(4, 4, 4, 4)
        self._list.setSpacing(8)
        self._empty = QLabel(
            "Ask a question about your data, for example:\n"
            "“How many delivered orders did customers from India place last year?”\n\n"
            "Or teach Cairn something to remember:\n“Always show me customers from India”"
        )
        self._empty.setObjectName("chatEmpty")
        self._empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._empty.setWordWrap(True)
        self._empty.setStyleSheet("padding: 24px;")
        mark_muted(self._empty)
        self._list.addWidget(self._empty)
        self._list.addStretch(1)
        self.scroll.setWidget(self._content)
        self.find = FindBar(self._content, self.scroll, skip=(self._empty,), parent=self)
        bar = self.scroll.verticalScrollBar()
        bar.rangeChanged.connect(lambda _min, maximum: bar.setValue(maximum))

        self.status = QLabel("")
        self.status.setObjectName("chatStatus")
        # The stage text ("Checking joins … · 41 tokens  3 s") wraps in the column: a one-line label would set the
        # chat's minimum width to the longest stage and push the window past a small screen, for good.
        self.status.setWordWrap(True)
        self.status.setSizePolicy(wrapping_policy())
        mark_muted(self.status)
        self.input = QLineEdit()
        self.input.setObjectName("chatInput")
        self.input.setPlaceholderText("Ask a question or state a preference")
        self.input.setClearButtonEnabled(True)
        self.input.returnPressed.connect(self._submit)
        self.send = QPushButton(qta.icon("fa5s.paper-plane"), "Ask")
        self.send.setObjectName("sendButton")
        self.send.clicked.connect(self._submit)
        self.stop = QPushButton(qta.icon("fa5s.stop-circle"), "Stop")
        self.stop.setObjectName("stopButton")
        self.stop.setVisible(False)
        self.stop.clicked.connect(lambda _checked=False: (self.cancel_requested.emit(), self.input.setFocus()))
        row = QHBoxLayout()
        row.addWidget(self.input, 1)
        row.addWidget(self.send)
        row.addWidget(self.stop)

        outer.addWidget(self.find)
        outer.addWidget(self.scroll, 1)
        outer.addWidget(self.status)
        outer.addLayout(row)
        self._busy = False
        self._waiting = 0  # questions held until the database connects or this answer is done
        self._stage_text = ""
        self._busy_since = 0.0
        self._starting_text: str | None = None
        self._clock = QTimer(self)
        self._clock.setInterval(500)
        self._clock.timeout.connect(self._tick)
        self.last_suggestions: SuggestionsBar | None = None  # under the newest answer, filled when found
        self._asked: list[str] = []  # what was sent, oldest first: Up/Down bring it back
        self._recall_at = 0
        self.input.installEventFilter(self)
        # On its own the panel answers Esc and Ctrl+L; in the main window the menu bar owns those keys.
        stop = QShortcut(QKeySequence(Qt.Key.Key_Escape), self, activated=self._escape)
        stop.setContext(Qt.ShortcutContext.WindowShortcut)
        focus = QShortcut(QKeySequence("Ctrl+L"), self, activated=self.focus_input)
        focus.setContext(Qt.ShortcutContext.WindowShortcut)
        self._shortcuts = [stop, focus]

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt naming
        """Room for a question and its buttons in any font: a small window narrows the tabs, not the chat to
        a sliver."""
        hint = super().minimumSizeHint()
        return QSize(max(hint.width(), self.fontMetrics().averageCharWidth() * 34), hint.height())

    def drop_window_shortcuts(self) -> None:
        """Give Esc and Ctrl+L to the window's menu (one owner per key)."""
        for shortcut in self._shortcuts:
            shortcut.setEnabled(False)
            shortcut.setKey(QKeySequence())
        self._shortcuts = []

    @property
    def busy(self) -> bool:
        return self._busy

    def submit(self) -> None:
        """Send what is in the question box (Enter, the Ask button, Ctrl+Enter from the menu)."""
        self._submit()

    def focus_input(self) -> None:
        """Ctrl+L: to the question box, its text selected."""
        self.input.setFocus()
        self.input.selectAll()

    def find_in_conversation(self) -> None:
        """Ctrl+F: the find bar over the conversation, its words selected."""
        self.find.open_bar()

    def _escape(self) -> None:
        if self._busy or self._waiting:
            self.cancel_requested.emit()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt naming
        """Up/Down in the question box walk through the questions asked before."""
        if watched is self.input and event.type() == QEvent.Type.KeyPress and self._asked:
            key = event.key()  # type: ignore[attr-defined]
            if key in (Qt.Key.Key_Up, Qt.Key.Key_Down):
                step = -1 if key == Qt.Key.Key_Up else 1
                self._recall_at = max(0, min(len(self._asked), self._recall_at + step))
                self.input.setText(self._asked[self._recall_at] if self._recall_at < len(self._asked) else "")
                return True
        return super().eventFilter(watched, event)

    # -- input ---------------------------------------------------------------------------------------

    def _submit(self) -> None:
        text = self.input.text().strip()
        if not text:
            return  # while an answer is being made, the window holds the next question until it is done
        self.input.clear()
        self.input.setFocus()  # after a click on Ask too: the next question is typed straight away
        if not self._asked or self._asked[-1] != text:
            self._asked.append(text)
        self._recall_at = len(self._asked)
        self.message_submitted.emit(text)

    def set_waiting(self, count: int) -> None:
        """How many questions wait (for the database, or behind this answer): Stop takes them back."""
        self._waiting = count
        self.stop.setVisible(self._busy or count > 0)

    def set_busy(self, busy: bool, stage: str | None = None) -> None:
        changed = busy != self._busy
        self._busy = busy
        self.send.setVisible(not busy)
        self.stop.setVisible(busy or self._waiting > 0)
        self._stage_text = STAGE_TEXT.get(stage or "", "Working…")
        self._busy_since = time.monotonic()
        if busy:
            self._clock.start()
            self._tick()
        elif self._starting_text:
            self._tick()
        else:
            self._clock.stop()
            self.status.setText("")
            self.input.setFocus()
        if changed:
            self.busy_changed.emit(busy)

    def set_starting(self, text: str | None) -> None:
        """What the app is getting ready (None: ready), with its time, while the question box stays usable: a
        question asked meanwhile waits for it (the window holds it) instead of being refused."""
        self._starting_text = text
        if self._busy:
            return
        if text:
            self._busy_since = time.monotonic()
            self._clock.start()
            self._tick()
        else:
            self._clock.stop()
            self.status.setText("")

    def show_stage(self, stage: object) -> None:
        """A stage name, or (an int) how many tokens the model has written so far in this stage."""
        if not self._busy:
            return
        if isinstance(stage, str):
            self._stage_text = STAGE_TEXT.get(stage, stage)
        elif isinstance(stage, int) and not isinstance(stage, bool):
            base = self._stage_text.split("  ·", 1)[0]
            self._stage_text = f"{base}  · {stage} tokens"
        self._tick()

    def _tick(self) -> None:
        """The stage and how long the question has taken so far (a slow model is visibly still working)."""
        text = self._stage_text if self._busy else self._starting_text
        if text:
            elapsed = time.monotonic() - self._busy_since
            self.status.setText(f"{text}  {elapsed:.0f} s" if elapsed >= 1 else text)

    # -- messages ------------------------------------------------------------------------------------

    def _append(self, bubble: Bubble, mine: bool) -> None:
        self._empty.setVisible(False)
        row = QHBoxLayout()
        if mine:
            row.addStretch(1)
        row.addWidget(bubble, 4)
        if not mine:
            row.addStretch(1)
        holder = QWidget()
        holder.setLayout(row)
        row.setContentsMargins(0, 0, 0, 0)
        self._list.insertWidget(self._list.count() - 1, holder)

    def add_question(self, text: str) -> None:
        """The person's question, with Edit: its words back in the question box to change and send again."""
        bubble = Bubble(True)
        bubble.add_text(text)
        edit = QToolButton(bubble)
        edit.setObjectName("editQuestion")
        edit.setAutoRaise(True)
        edit.setIcon(qta.icon("fa5s.pen", color=bubble.palette().color(QPalette.ColorRole.HighlightedText)))
        edit.setToolTip("Edit this question and ask it again")
        edit.clicked.connect(lambda _checked=False, t=text: self.edit_question(t))
        bubble.body.addWidget(edit, 0, Qt.AlignmentFlag.AlignRight)
        self._append(bubble, True)

    def show_earlier(self, messages: Sequence[Any], database_id: str) -> int:
        """The last turns of the conversation about ``database_id`` from before this start (the conversation is
        kept per person across restarts), above a line that says so; how many were shown. Only into an empty chat."""
        if self._list.count() > 2:  # the empty state and a stretch; more: never mix old turns into what is shown
            return 0
        turns = [m for m in messages if m.database_id == database_id]
        if not turns:
            return 0
        for message in turns:
            if message.role == "user":
                self.add_question(message.content)
                self._asked.append(message.content)  # Up in the question box reaches them too
            else:
                bubble = Bubble(False)
                bubble.add_text(message.content)
                if message.sql:
                    bubble.add_text(message.sql, muted=True, name="earlierSql")
                self._append(bubble, False)
        when = time.strftime("%d %b %H:%M", time.localtime(turns[-1].created_at)) if turns[-1].created_at else ""
        self._recall_at = len(self._asked)
        self.add_note(f"Above: the last {counted(len(turns), 'message')} with this database"
                      + (f", until {when}" if when else "") + ". New answers follow.")
        return len(turns)

    def edit_question(self, text: str) -> None:
        """``text`` in the question box, the cursor at its end, ready to change and send (Enter)."""
        self.input.setText(text)
        self.input.setFocus()
        self.input.end(False)

    def add_reply(self, reply: Any) -> None:
        """Show an Assistant Reply: an answer, or a memory confirmation."""
        bubble = Bubble(False)
        answer = reply.answer
        self.last_suggestions = None
        if answer is None and not reply.changes and reply.route.kind not in CATEGORY_ICONS:
            bubble.add_text(reply.text or "", name="chatReply")  # talk ("hi"), a reply about Cairn: plain words
        elif answer is None:
            kind = reply.route.kind
            header = QHBoxLayout()
            icon = QLabel()
            icon.setPixmap(qta.icon(CATEGORY_ICONS.get(kind, "fa5s.brain")).pixmap(16, 16))
            header.addWidget(icon)
            title = QLabel(reply.text or "Noted")
            title.setTextFormat(Qt.TextFormat.PlainText)
            title.setObjectName("memoryConfirmation")
            title.setStyleSheet("font-weight: 600")
            title.setWordWrap(True)  # a narrow column wraps it instead of growing wider
            title.setMinimumWidth(60)
            title.setSizePolicy(wrapping_policy())
            header.addWidget(title, 1)
            bubble.body.addLayout(header)
            for change in reply.changes:
                if change.operation == "NOOP":
                    continue
                after = "; ".join(m.content for m in change.after)
                before = "; ".join(m.content for m in change.before)
                line = {"ADD": f"Remembered: {after}", "UPDATE": f"Updated: {after}",
                        "DELETE": f"Replaced “{before}” with “{after}”" if after else f"Forgot: {before}"}
                bubble.add_text(line.get(change.operation, after), muted=True)
                for memory in change.after:  # where it applies, and the other choice
                    scope = ScopeLine(memory, bubble)
                    scope.scope_requested.connect(self.scope_requested.emit)
                    bubble.body.addWidget(scope)
        else:
            self._fill_answer(bubble, reply.message, answer)
        rules = reply.understood() if hasattr(reply, "understood") else []
        shown = self._add_rules(bubble, rules)
        for note in reply.notes:
            if note not in shown:  # "Understood as: …" is in the rule's block, with its buttons
                bubble.add_text(window_hint(note), muted=True)
        if reply.error:
            bubble.add_text(reply.error, bold=True, name="chatError")
            bubble.add_text(window_hint(reply.hint or ""), muted=True)
        self._append(bubble, False)

    def _fill_answer(self, bubble: Bubble, question: str, answer: Any) -> None:
        if answer.ok:
            secs = sum(answer.timings.values())
            via = {"llm": "written by the model", "repaired": "repaired from the schema",
                   "fallback": "rule-based fallback", "user": "your SQL"}.get(answer.path or "", "")
            more = " (more rows not shown)" if answer.truncated else ""
            if answer.row_count == 1 and len(answer.columns) == 1:  # one value: say it, not just "1 row"
                bubble.add_text(one_value(answer.columns[0], answer.rows[0][0]), name="answerValue")
            rows = f"{answer.row_count:,} row" + ("" if answer.row_count == 1 else "s")
            bubble.add_text(f"{rows}{more} · {secs:.2f} s · {via}", bold=True,
                            name="answerSummary")
        else:
            bubble.add_text(answer.error or "Could not answer.", bold=True, name="chatError")
            if answer.hint:
                bubble.add_text(window_hint(answer.hint), muted=True)
        if answer.memories:
            # One chip a row, so a narrow chat column never needs to scroll sideways.
            for memory in answer.memories:
                chips = QHBoxLayout()
                chips.addWidget(self._chip(question, memory))
                chips.addStretch(1)
                bubble.body.addLayout(chips)
        for note in answer.notes:
            if note.startswith("Applied your memories"):
                continue
            bubble.add_text(window_hint(note), muted=True)
        for other in answer.alternatives:
            button = QPushButton(qta.icon("fa5s.code-branch"), f"Run: {other.label}")
            button.setObjectName("alternativeQuery")
            button.setToolTip(f"{other.why}\n\n{other.sql}")
            button.clicked.connect(lambda _=False, sql=other.sql: self.alternative_requested.emit(sql))
            row = QHBoxLayout()
            row.addWidget(button)
            row.addStretch(1)
            bubble.body.addLayout(row)
        if answer.ok and answer.sql:
            thumbs = ThumbsBar(bubble)
            thumbs.verdict_changed.connect(lambda v, q=question, sql=answer.sql, bar=thumbs:
                                           self.feedback_given.emit(q, sql, v, bar))
            bubble.body.addWidget(thumbs)
            suggestions = SuggestionsBar(bubble)  # other agents' follow-ups, plain text (desktop.sharing.suggestions)
            suggestions.ask_requested.connect(self.suggestion_asked.emit)
            suggestions.reject_requested.connect(lambda s, bar=suggestions: self.suggestion_rejected.emit(s, bar))
            bubble.body.addWidget(suggestions)
            self.last_suggestions = suggestions

    def _chip(self, question: str, memory: Any) -> QToolButton:
        chip = Chip(memory.content if len(memory.content) <= 34 else memory.content[:33] + "…")
        chip.setObjectName("memoryChip")
        chip.setIcon(qta.icon(CATEGORY_ICONS.get(memory.category, "fa5s.brain")))
        chip.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        chip.setToolTip(f"{memory.category}: {memory.content}\nApplied because: {memory.reason}")
        chip.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        chip.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        menu = QMenu(chip)
        show = QAction(qta.icon("fa5s.eye"), "Show in memory bank", menu)
        show.triggered.connect(lambda: self.memory_show_requested.emit(memory.id))
        rerun = QAction(qta.icon("fa5s.redo"), "Rerun without this memory", menu)
        rerun.triggered.connect(lambda: self.rerun_without_requested.emit(question, memory.id))
        menu.addAction(show)
        menu.addAction(rerun)
        chip.setMenu(menu)
        return chip

    def add_note(self, text: str, changes: Any = ()) -> QLabel:
        """A short line from Cairn after an answer (what it learned in the background, with the rules that
        learning saved or changed: the UpdateReports). Returns its label, for a note that changes later."""
        bubble = Bubble(False)
        label = bubble.add_text(window_hint(text), muted=True, name="chatNote")
        self._add_rules(bubble, understood(changes))
        self._append(bubble, False)
        return label

    def rule_blocks(self) -> list[RuleConfirmation]:
        """The rule blocks under replies, oldest first."""
        return self._content.findChildren(RuleConfirmation)

    def _add_rules(self, bubble: Bubble, rules: list[dict[str, Any]]) -> set[str]:
        """One block per rule saved or changed; returns the "Understood as: …" notes the blocks now say."""
        for shown in rules:
            block = RuleConfirmation(shown, bubble)
            block.keep_requested.connect(lambda mid, n, b=block: self.keep_requested.emit(mid, n, b))
            block.context_requested.connect(lambda mid, b=block: self.context_requested.emit(mid, b))
            block.edit_requested.connect(self.edit_requested.emit)
            bubble.body.addWidget(block)
        return {f"Understood as: {shown['understood_as']}" for shown in rules}

    def add_error(self, message: str, hint: str) -> None:
        bubble = Bubble(False)
        bubble.add_text(message, bold=True, name="chatError")
        bubble.add_text(window_hint(hint), muted=True)
        self._append(bubble, False)
