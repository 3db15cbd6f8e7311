"""What Cairn understood from a rule the person stated, shown before it shapes an answer, and their choice about it.

:class:`RuleConfirmation` is one block under a chat reply per rule the message saved or changed (an item of
``Reply.understood()``, or of :func:`understood` for what was learned after an answer): an enforced rule in plain
words and where it applies, with "Only as context" and "Edit…"; a pending one (nothing is enforced until the person
keeps a reading) with its readings numbered, one "Keep" per reading and "Only as context". The block only asks; the
memory bank view makes the change off the GUI thread and tells the block how it went (:meth:`RuleConfirmation.
waiting`, :meth:`settled`, :meth:`failed`). :class:`RuleButtons` are the bank's own Keep / Only as context buttons
for the selected memory. Everything shown is plain text: the words are the person's and the data's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QAction, QResizeEvent
from PySide6.QtWidgets import (
    QBoxLayout,
    QFrame,
    QLabel,
    QLayout,
    QMenu,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from core.memory import Memory, UpdateReport, confirmation, describe_form
from desktop.toolkit.widgets import mark_muted, push_button, selectable_label

__all__ = ["CONTEXT_DONE", "RuleButtons", "RuleConfirmation", "outcome_text", "understood"]

CONTEXT_DONE = "Kept as context only: Cairn reads your words, nothing is enforced."
_KEEP_TIP = "Enforce this reading on every question from now on: {words}"
_CONTEXT_TIP = "Keep only your words, as context for the model: nothing of this rule is put into the SQL"
_EDIT_TIP = "Change the words of this rule in the memory bank (Cairn reads them again)"


def understood(changes: Iterable[UpdateReport]) -> list[dict[str, Any]]:
    """``Reply.understood()`` for update reports (what learning after an answer changed)."""
    return [shown for c in changes if c.operation != "NOOP" for m in c.after
            if (shown := confirmation(m)) is not None]


def outcome_text(result: object) -> str:
    """What the block says once the bank made the change: "Enforced: …" after Keep, or kept as context only."""
    if isinstance(result, UpdateReport):
        kept = result.after or result.before
        if not kept:
            return "Enforced."
        words = describe_form(kept[0].structured, kept[0].category)
        return words if words.startswith("Enforced") else f"Enforced: {words}"
    return CONTEXT_DONE


def _label(text: str, name: str, *, bold: bool = False, muted: bool = False) -> QLabel:
    """Plain, word-wrapped text that lets the narrow chat column wrap it instead of growing wider."""
    label = selectable_label(name, text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    policy = QSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    policy.setHeightForWidth(True)  # as tall as the text wrapped at the width it gets, not at its narrowest
    label.setSizePolicy(policy)
    label.setMinimumWidth(60)
    if bold:
        label.setStyleSheet("font-weight: 600")
    if muted:
        mark_muted(label)
    return label


class _ButtonFlow(QWidget):
    """Small text buttons side by side when they fit, one under another when the column is narrower."""

    def __init__(self, parent: QWidget, buttons: Sequence[QPushButton]) -> None:
        super().__init__(parent)
        self._buttons = list(buttons)
        self._box = QBoxLayout(QBoxLayout.Direction.LeftToRight, self)
        self._box.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)  # the row may get narrower: it stacks
        self._box.setContentsMargins(0, 2, 0, 0)
        self._box.setSpacing(4)
        for button in self._buttons:
            button.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
            self._box.addWidget(button, 0, Qt.AlignmentFlag.AlignLeft)
        self._box.addStretch(1)
        self._full = sum(b.sizeHint().width() for b in self._buttons) + 4 * max(0, len(self._buttons) - 1)

    @property
    def stacked(self) -> bool:
        return self._box.direction() == QBoxLayout.Direction.TopToBottom

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt naming
        """The widest button: narrower than the row, the buttons go one under another."""
        widest = max((b.sizeHint().width() for b in self._buttons), default=0)
        return QSize(widest, super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt naming
        super().resizeEvent(event)
        direction = (QBoxLayout.Direction.TopToBottom if event.size().width() < self._full
                     else QBoxLayout.Direction.LeftToRight)
        if direction != self._box.direction():
            self._box.setDirection(direction)


class RuleConfirmation(QFrame):
    """One rule a message saved or changed, as the person must see it, with what they can do about it."""

    keep_requested = Signal(str, int)
    """Enforce reading N (from 1) of this pending memory."""
    context_requested = Signal(str)
    """Keep this memory as words only: nothing enforced."""
    edit_requested = Signal(str)
    """Open this memory in the memory bank's edit dialog."""

    def __init__(self, shown: Mapping[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ruleConfirmation")
        self.memory_id = str(shown.get("memory_id") or "")
        self.pending = shown.get("status") == "pending"
        self.readings = [str(r) for r in shown.get("readings") or ()]
        self.understood_as = str(shown.get("understood_as") or "")
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 8, 0, 0)  # apart from the text above and from the rule before
        column.setSpacing(2)
        if self.pending:
            why = str(shown.get("why") or "").strip()
            self.headline = _label("Not enforced until you confirm" + (f" ({why})" if why else ""), "ruleHeadline",
                                   bold=True)
            column.addWidget(self.headline)
            for n, words in enumerate(self.readings, 1):
                column.addWidget(_label(f"{n}. {words}", "ruleReading"))
            column.addWidget(_label("Until then Cairn reads your words as context only.", "ruleNote", muted=True))
        else:
            tables = [str(t) for t in shown.get("applies_to") or ()]
            where = ("every list" if not tables or tables == ["every list"]
                     else "every question on " + ", ".join(tables))
            self.headline = _label(f"Understood as: {self.understood_as} — applies to {where}", "ruleHeadline")
            column.addWidget(self.headline)
        self.buttons = self._buttons()
        self._flow = _ButtonFlow(self, self.buttons)
        column.addWidget(self._flow)
        self.outcome = _label("", "ruleOutcome", bold=True)
        self.outcome.setVisible(False)
        column.addWidget(self.outcome)
        self.done = False

    def _buttons(self) -> list[QPushButton]:
        buttons: list[QPushButton] = []
        if self.pending:
            for n, words in enumerate(self.readings, 1):
                text = "Keep" if len(self.readings) == 1 else f"Keep {n}"
                buttons.append(push_button(self, None, text, f"ruleKeep{n}", _KEEP_TIP.format(words=words),
                                           lambda n=n: self.keep_requested.emit(self.memory_id, n)))
        buttons.append(push_button(self, None, "Only as context", "ruleContext", _CONTEXT_TIP,
                                   lambda: self.context_requested.emit(self.memory_id)))
        if not self.pending:
            buttons.append(push_button(self, None, "Edit…", "ruleEdit", _EDIT_TIP,
                                       lambda: self.edit_requested.emit(self.memory_id)))
        return buttons

    def button(self, text: str) -> QPushButton | None:
        """The button that says ``text`` ("Keep 2", "Only as context", "Edit…")."""
        return next((b for b in self.buttons if b.text() == text), None)

    def waiting(self) -> None:
        """The bank is making the change: no second click meanwhile."""
        self._enable(False)
        self._say("Saving…")

    def settled(self, text: str) -> None:
        """The change is made: say what happened; the choice is spent (the memory bank can change it again)."""
        self.done = True
        self._enable(False)
        self._say(text)

    def failed(self) -> None:
        """The change failed (the error is shown elsewhere): the person may choose again."""
        if not self.done:
            self._enable(True)
            self._say("")

    def _enable(self, enabled: bool) -> None:
        for button in self.buttons:
            button.setEnabled(enabled)

    def _say(self, text: str) -> None:
        self.outcome.setText(text)
        self.outcome.setVisible(bool(text))


class RuleButtons:
    """The memory bank's "Keep" (one reading; a menu when there are two) and "Only as context" buttons, for the
    selected memory: Keep only for one that waits for confirmation, context only for one that enforces a rule."""

    def __init__(self, parent: QWidget, keep: Callable[[int], None], context_only: Callable[[], None]) -> None:
        self._keep = keep
        self.keep_button = push_button(parent, "fa5s.check", "Keep", "memoryKeep",
                                       "Enforce the selected memory, which waits for you to confirm it",
                                       lambda: keep(1))
        self.context_button = push_button(parent, "fa5s.comment", "Only as context", "memoryContext",
                                          "Keep the selected memory as words only: nothing of it is enforced",
                                          context_only)
        self.menu = QMenu(parent)
        self.menu.setObjectName("memoryKeepMenu")
        self._menu_for: tuple[str, ...] = ()  # the readings the menu offers now

    def show_for(self, memory: Memory | None, busy: bool) -> None:
        """Enable the buttons for ``memory`` (None: nothing selected); two readings put a menu on Keep."""
        shown = confirmation(memory) if memory is not None else None
        readings = shown["readings"] if shown is not None and shown["status"] == "pending" else []
        self.keep_button.setEnabled(bool(readings) and not busy)
        self.context_button.setEnabled(shown is not None and not busy)
        offered = tuple(readings) if len(readings) > 1 else ()
        if offered == self._menu_for:  # unchanged (a reload while the menu is open must not empty it)
            return
        self._menu_for = offered
        self.menu.clear()
        for n, words in enumerate(offered, 1):
            action = QAction(f"Keep {n}: {_short(words)}".replace("&", "&&"), self.menu)  # no mnemonic
            action.setToolTip(words)
            action.triggered.connect(lambda _checked=False, n=n: self._keep(n))
            self.menu.addAction(action)
        self.keep_button.setMenu(self.menu if offered else None)
        self.keep_button.setToolTip("Enforce one of the readings of the selected memory" if len(readings) > 1
                                    else "Enforce the selected memory, which waits for you to confirm it")


def _short(text: str, room: int = 90) -> str:
    return text if len(text) <= room else text[: room - 1] + "…"
