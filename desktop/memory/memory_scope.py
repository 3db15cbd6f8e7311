"""Where a memory learned in the chat applies, said under the reply, with the other choice one click away.

A memory the chat learns applies to the database it was said about; one added in the bank, to every database. The
person sees which and can switch: the line asks the window (``scope_requested``), the bank makes the change (one
undo step) and tells the line how it went (``waiting`` / ``settled`` / ``failed``, as a rule's block is told).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout, QWidget

from core.memory import ALL_DATABASES, Memory
from desktop.toolkit.widgets import mark_muted

__all__ = ["ScopeLine"]


class ScopeLine(QWidget):
    scope_requested = Signal(str, bool, object)
    """(memory id, True: every database / False: only the one in use, this line)."""

    def __init__(self, memory: Memory, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("memoryScope")
        self.memory_id = memory.id
        self.everywhere = memory.database_id == ALL_DATABASES
        self.label = QLabel(self)
        self.label.setObjectName("memoryScopeText")
        self.label.setWordWrap(True)
        mark_muted(self.label)
        self.switch = QPushButton(self)
        self.switch.setObjectName("memoryScopeSwitch")
        self.switch.setFlat(True)
        self.switch.clicked.connect(lambda _checked=False: self.scope_requested.emit(
            self.memory_id, not self.everywhere, self))
        column = QVBoxLayout(self)  # the button under the words: a narrow chat column keeps both whole
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addWidget(self.label)
        column.addWidget(self.switch, 0, Qt.AlignmentFlag.AlignLeft)
        self._show()

    def _show(self) -> None:
        self.label.setText("Applies to every database." if self.everywhere else
                           "Applies to this database only.")
        self.switch.setText("Only this database" if self.everywhere else "Every database")
        self.switch.setToolTip("Keep this memory to the database in use" if self.everywhere else
                               "Use this memory for every database you ask")

    def waiting(self) -> None:
        self.switch.setEnabled(False)

    def settled(self, _text: str = "") -> None:
        self.everywhere = not self.everywhere
        self.switch.setEnabled(True)
        self._show()

    def failed(self) -> None:
        self.switch.setEnabled(True)
