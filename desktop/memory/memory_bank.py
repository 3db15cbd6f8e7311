"""The memory bank panel: what Cairn has learned about a person, grouped by kind, editable and undoable.

Every bank call (disk, embedding) runs through ``run_in_background``; the tree is rebuilt from the bank after
each change, so edits made elsewhere (the chat, the command line) show up on ``refresh``/``on_memory_changed``.
Dialogs that block (confirmation, file choosers) are constructor arguments so tests can answer them.
The tree itself is drawn by :mod:`desktop.memory.memory_tree`; export files are read and written by
:mod:`desktop.memory.memory_files`. A rule that waits for confirmation is kept (one of its readings enforced) or kept
as context only here, from the bank's buttons or from the block under a chat reply
(:mod:`desktop.memory.rule_confirmation`), which MainWindow routes to :meth:`MemoryBankView.keep` and its siblings.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import qtawesome as qta
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QStackedWidget,
    QTabWidget,
    QToolButton,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.cancellation import Cancellation
from core.memory import ALL_DATABASES, BankChange, MemoryBank
from core.memory import Memory, ScoredMemory, Understanding, UpdateReport, describe_form
from desktop.memory.memory_edit_dialog import (
    MemoryEditDialog,
    ask_to_confirm,
    choose_export_file,
    choose_import_file,
)
from desktop.memory.memory_files import export_to_file, import_from_file
from desktop.memory.memory_tree import GROUP_LABELS, MemoryTree
from desktop.memory.rule_confirmation import RuleButtons, RuleConfirmation, outcome_text
from desktop.memory.verified_examples import VerifiedExamplesView
from desktop.toolkit.errors import show_error
from desktop.toolkit.widgets import ButtonRow, StatusLine, push_button
from desktop.toolkit.workers import run_in_background

__all__ = ["EMPTY_TEXT", "GROUP_LABELS", "MemoryBankView"]

logger = logging.getLogger(__name__)

Confirm = Callable[[QWidget, str], bool]
PathChooser = Callable[[QWidget], Path | None]

EMPTY_TEXT = "Cairn has not learned anything yet. Tell it a preference, e.g. 'Always show me customers from India'."
SIMILAR_K = 10
RECENT_CHANGE_S = 300.0  # a journalled change older than this is not "the last chat operation" any more




class MemoryBankView(QWidget):
    """One user's memories: grouped tree, local and similarity search, add/edit/delete/undo, export/import."""

    memories_changed = Signal()
    """This view changed the bank (add, edit, delete, undo, import), so chips and prompts may be stale."""
    refreshed = Signal()
    """The tree was reloaded from the bank."""

    def __init__(
        self,
        bank: MemoryBank,
        user: str,
        *,
        database_id: str | None = None,
        confirm: Confirm = ask_to_confirm,
        choose_export_path: PathChooser = choose_export_file,
        choose_import_path: PathChooser = choose_import_file,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("memoryBankView")
        self._bank = bank
        self._user = user
        self._database_id = database_id
        self._confirm = confirm
        self._choose_export_path = choose_export_path
        self._choose_import_path = choose_import_path
        self._memories: list[Memory] = []
        self._similar: list[ScoredMemory] | None = None
        self._similar_text = ""
        self._highlighted: set[str] = set()
        self._highlight_version = 0  # bumped by highlight(): an explicit highlight beats the journal's guess
        self._seq = 0
        self._busy = False

        self._search = QLineEdit(self)
        self._search.setObjectName("memorySearch")
        self._search.setPlaceholderText("Filter memories")
        self._search.setToolTip("Type to filter; Enter finds memories similar in meaning")
        self._search.setClearButtonEnabled(True)
        self._search.addAction(qta.icon("fa5s.search"), QLineEdit.ActionPosition.LeadingPosition)
        self._search.textChanged.connect(self._filter_changed)
        self._search.returnPressed.connect(self.search_similar)
        self._similar_button = QToolButton(self)
        self._similar_button.setObjectName("memorySimilar")
        self._similar_button.setIcon(qta.icon("fa5s.magic"))
        self._similar_button.setText("Similar")
        self._similar_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self._similar_button.setToolTip("Find memories similar in meaning to the search text")
        self._similar_button.clicked.connect(self.search_similar)

        self._tree = MemoryTree(self)
        self._tree.currentItemChanged.connect(lambda _cur, _prev: self._update_buttons())
        self._tree.itemDoubleClicked.connect(self._double_clicked)

        self._empty = QLabel(EMPTY_TEXT, self)
        self._empty.setObjectName("memoryEmptyState")
        self._empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._empty.setWordWrap(True)
        self._stack = QStackedWidget(self)
        self._stack.addWidget(self._tree)
        self._stack.addWidget(self._empty)

        self._add_button = push_button(self, "fa5s.plus", "Add", "memoryAdd", "Teach Cairn something new",
                                       self.add_memory)
        self._edit_button = push_button(self, "fa5s.pen", "Edit", "memoryEdit", "Change the selected memory",
                                        self.edit_selected)
        self._delete_button = push_button(self, "fa5s.trash-alt", "Delete", "memoryDelete",
                                          "Forget the selected memory (Del)", self.delete_selected)
        self._rules = RuleButtons(self, lambda n: self._selected(lambda m: self.keep(m.id, n)),
                                  lambda: self._selected(lambda m: self.context_only(m.id)))
        self._undo_button = push_button(self, "fa5s.undo", "Undo", "memoryUndo",
                                        "Undo the last change, also one made in the chat (Ctrl+Z)", self.undo)
        self._export_button = push_button(self, "fa5s.file-export", "Export…", "memoryExport",
                                          "Save all memories to a JSON file", self.export_memories)
        self._import_button = push_button(self, "fa5s.file-import", "Import…", "memoryImport",
                                          "Add the memories of an export file", self.import_memories)
        self._status = StatusLine(self, "memoryStatus")

        search_row = QHBoxLayout()
        search_row.setSpacing(6)
        search_row.addWidget(self._search, 1)
        search_row.addWidget(self._similar_button)
        buttons = ButtonRow(self, (self._add_button, self._edit_button, self._rules.keep_button,
                                   self._rules.context_button, self._delete_button, self._undo_button),
                            (self._export_button, self._import_button))

        memories = QWidget(self)
        layout = QVBoxLayout(memories)
        layout.setContentsMargins(10, 10, 10, 10)
        layout.setSpacing(8)
        layout.addLayout(search_row)
        layout.addWidget(self._stack, 1)
        layout.addWidget(buttons)
        layout.addWidget(self._status)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.examples_view: VerifiedExamplesView | None = None  # the thumbs-up examples, beside the memories
        if getattr(bank, "feedback", None) is not None:
            self.examples_view = VerifiedExamplesView(bank.feedback.examples, user, database_id=database_id)
            self.tabs = QTabWidget(self)
            self.tabs.setObjectName("memoryBankTabs")
            self.tabs.addTab(memories, qta.icon("fa5s.brain"), "Memories")
            self.tabs.addTab(self.examples_view, qta.icon("fa5s.check-circle"), "Verified examples")
            outer.addWidget(self.tabs)
        else:
            outer.addWidget(memories)

        for keys, slot in ((QKeySequence.StandardKey.Delete, self.delete_selected),
                           (QKeySequence.StandardKey.Undo, self.undo)):
            shortcut = QShortcut(QKeySequence(keys), memories)  # not on the verified examples tab
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)
        self._rebuild()
        self.refresh()  # the first load; the app need not remember to ask

    # -- public ---------------------------------------------------------------------------------------

    def refresh(self) -> None:
        """Reload the memories from the bank off the GUI thread."""
        self._reload(highlight_last=False)

    def on_memory_changed(self, *_args: object) -> None:
        """The chat changed memories: reload and highlight what its last change touched."""
        self._reload(highlight_last=True)

    def set_database(self, database_id: str | None) -> None:
        """Show the memories that apply to another database (None: all of them)."""
        self._database_id = database_id
        self.refresh()
        if self.examples_view is not None:
            self.examples_view.set_database(database_id)

    def highlight(self, ids: Iterable[str]) -> None:
        """Mark these memories (e.g. those the last chat turn learned) until the next highlight."""
        self._highlighted = set(ids)
        self._highlight_version += 1
        self._rebuild()

    def memories(self) -> list[Memory]:
        """The memories last loaded from the bank."""
        return list(self._memories)

    def group_item(self, category: str) -> QTreeWidgetItem | None:
        return self._tree.group_item(category)

    def visible_memories(self) -> list[Memory]:
        """The memories shown now (after filtering), in tree order."""
        return self._tree.visible_memories()

    def select_memory(self, memory_id: str) -> bool:
        return self._tree.select_memory(memory_id)

    def selected_memory(self) -> Memory | None:
        return self._tree.selected_memory()

    def is_highlighted(self, memory_id: str) -> bool:
        return memory_id in self._highlighted

    def status_text(self) -> str:
        return self._status.text()

    # -- actions --------------------------------------------------------------------------------------

    def add_memory(self) -> None:
        dialog = MemoryEditDialog(None, self, database_id=self._database_id, understand=self._preview)
        dialog.accepted.connect(lambda: self._add_accepted(dialog))
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()

    def edit_selected(self) -> None:
        memory = self.selected_memory()
        if memory is not None:
            self._open_edit(memory)

    def edit_memory(self, memory_id: str) -> None:
        """Open the edit dialog for this memory (e.g. "Edit…" under a chat reply), read fresh from the bank."""
        bank, user = self._bank, self._user

        def opened(memory: Memory) -> None:
            self.select_memory(memory.id)
            self._open_edit(memory)

        run_in_background(lambda _cancel, _report: bank.get(user, memory_id), on_success=opened,
                          on_failure=self._failed, receiver=self)

    def keep(self, memory_id: str, reading: int = 1, block: RuleConfirmation | None = None) -> None:
        """Enforce reading ``reading`` of a memory that waits for confirmation (one undo step). ``block``: the
        chat's confirmation block, told how it went."""
        bank, user = self._bank, self._user
        self._change(lambda: bank.keep(user, memory_id, reading), "", block=block)

    def set_scope(self, memory_id: str, everywhere: bool, block: Any = None) -> None:
        """Apply a memory to every database, or only to the one in use (one undo step); ``block``: told how it went."""
        bank, user = self._bank, self._user
        where = ALL_DATABASES if everywhere or not self._database_id else self._database_id
        text = "It applies to every database now." if where == ALL_DATABASES else "It applies to this database only."
        self._change(lambda: bank.edit(user, memory_id, database_id=where), text, block=block)

    def context_only(self, memory_id: str, block: RuleConfirmation | None = None) -> None:
        """Keep a memory as the person's words only: nothing of it is enforced any more (undoable)."""
        bank, user = self._bank, self._user
        self._change(lambda: bank.context_only(user, memory_id), outcome_text(None), block=block)

    def _selected(self, act: Callable[[Memory], None]) -> None:
        memory = self.selected_memory()
        if memory is not None and not self._busy:
            act(memory)

    def _open_edit(self, memory: Memory) -> None:
        dialog = MemoryEditDialog(memory, self, understand=self._preview)
        dialog.accepted.connect(lambda: self._edit_accepted(dialog, memory))
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()

    def _preview(self, category: str, content: str) -> Understanding:
        """The live reading of the dialog's words: the schema only (no query runs while typing)."""
        return self._bank.understand(category, content, lookup=False)

    def delete_selected(self) -> None:
        memory = self.selected_memory()
        if memory is None or self._busy:
            return
        if not self._confirm(self, f"Forget this memory?\n\n“{memory.content}”\n\nYou can undo this with Ctrl+Z."):
            return
        bank, user = self._bank, self._user
        self._change(lambda: bank.delete(user, memory.id), "Forgot it. Undo with Ctrl+Z.")

    def undo(self) -> None:
        if self._busy:
            return
        bank, user = self._bank, self._user
        self._change(lambda: bank.undo(user), "")

    def search_similar(self) -> None:
        """Rank memories by meaning against the search text (embedding work, so in the background)."""
        text = self._search.text().strip()
        if not text:
            return
        bank, user, database_id = self._bank, self._user, self._database_id

        def work(cancel: Cancellation, _report: object) -> list[ScoredMemory]:
            return bank.search(user, text, k=SIMILAR_K, database_id=database_id)

        def done(hits: list[ScoredMemory]) -> None:
            if self._search.text().strip() != text:
                return  # the person typed on; the local filter already shows what they want
            self._similar, self._similar_text = list(hits), text
            self._status.setText(f"{len(hits)} similar memor{'y' if len(hits) == 1 else 'ies'}.")
            self._rebuild()

        self._status.setText("Looking for similar memories…")
        run_in_background(work, on_success=done, on_failure=self._failed, receiver=self)

    def export_memories(self) -> None:
        path = self._choose_export_path(self)
        if path is None:
            return
        bank, user = self._bank, self._user

        def work(cancel: Cancellation, _report: object) -> int:
            return export_to_file(bank, user, path)

        def done(count: int) -> None:
            self._status.setText(f"Exported {count} memor{'y' if count == 1 else 'ies'} to {path}.")

        self._status.setText("Exporting…")
        run_in_background(work, on_success=done, on_failure=self._failed, receiver=self)

    def import_memories(self) -> None:
        path = self._choose_import_path(self)
        if path is None or self._busy:
            return
        bank, user = self._bank, self._user
        self._change(lambda: import_from_file(bank, user, path), "")

    # -- internals: loading -----------------------------------------------------------------------------

    def _reload(self, *, highlight_last: bool) -> None:
        self._seq += 1
        seq, version = self._seq, self._highlight_version
        bank, user, database_id = self._bank, self._user, self._database_id

        def work(cancel: Cancellation, _report: object) -> tuple[list[Memory], BankChange | None]:
            memories = bank.list(user, database_id=database_id)
            last = None
            if highlight_last:
                changes = bank.history(user)
                last = changes[-1] if changes else None
            return memories, last

        def done(result: tuple[list[Memory], BankChange | None]) -> None:
            if seq != self._seq:
                return
            memories, last = result
            self._memories = memories
            explicit = version != self._highlight_version
            if last is not None and not explicit and time.time() - last.at < RECENT_CHANGE_S:
                self._highlighted = {m.id for m in last.after}
            if self._similar is not None:  # keep similarity results, minus what is gone
                alive = {m.id: m for m in memories}
                self._similar = [ScoredMemory(alive[s.memory.id], s.similarity)
                                 for s in self._similar if s.memory.id in alive]
            self._rebuild()
            self.refreshed.emit()

        run_in_background(work, on_success=done, on_failure=self._failed, receiver=self)

    def _failed(self, exc: BaseException) -> None:
        self._status.clear()
        show_error(self, exc)

    # -- internals: changing ----------------------------------------------------------------------------

    def _add_accepted(self, dialog: MemoryEditDialog) -> None:
        bank, user = self._bank, self._user
        category, content, database_id = dialog.category(), dialog.content(), dialog.database_id()
        self._change(lambda: bank.add(user, category, content, database_id=database_id), "Learned it.",
                     say_form=True)

    def _edit_accepted(self, dialog: MemoryEditDialog, memory: Memory) -> None:
        """Save new words (the bank understands them again: India -> Germany filters Germany). Unchanged words
        are saved only when they were kept as context but now have a form, as the dialog showed."""
        bank, user = self._bank, self._user
        category, content = dialog.category(), dialog.content()
        unchanged = category == memory.category and content == memory.content
        if unchanged and memory.structured:
            return

        def save() -> Memory:
            if not unchanged:
                return bank.edit(user, memory.id, content=content, category=category)
            form = bank.understand(category, content).form
            return bank.edit(user, memory.id, structured=form) if form else memory

        self._change(save, "Saved.", say_form=True)

    def _change(self, fn: Callable[[], object], done_text: str, *, say_form: bool = False,
                block: RuleConfirmation | None = None) -> None:
        """Run one bank change in the background; then highlight what changed, reload and tell the app.
        ``say_form``: the status also says what the saved memory will do. ``block``: told how it went."""
        self._set_busy(True)
        self._status.setText("Saving…")
        if block is not None:
            block.waiting()

        def done(result: object) -> None:
            self._set_busy(False)
            ids, text = _describe(result)
            text = done_text or text
            if say_form and isinstance(result, Memory):
                text += " " + describe_form(result.structured, result.category)
            self._status.setText(text)
            if block is not None:
                block.settled(text)
            if ids:
                self._highlighted = set(ids)
            self.memories_changed.emit()
            self.refresh()
            if self.examples_view is not None:  # an import or "forget everything" changes them too
                self.examples_view.refresh()

        def failed(exc: BaseException) -> None:
            self._set_busy(False)
            if block is not None:
                block.failed()
            self._failed(exc)

        run_in_background(lambda _cancel, _report: fn(), on_success=done, on_failure=failed, receiver=self)

    def _set_busy(self, busy: bool) -> None:
        self._busy = busy
        self._update_buttons()

    # -- internals: the tree ------------------------------------------------------------------------------

    def _rebuild(self) -> None:
        selected = self.selected_memory()
        if self._similar is not None:
            self._tree.show_similar(self._similar, self._similar_text, self._highlighted)
        else:
            self._tree.show_grouped(self._memories, self._highlighted)
        self._stack.setCurrentWidget(self._tree if self._memories or self._similar is not None else self._empty)
        self._apply_filter()
        if selected is not None:
            self.select_memory(selected.id)
        self._update_buttons()

    def _filter_changed(self, _text: str) -> None:
        if self._similar is not None:  # typing again goes back to the plain, filtered list
            self._similar = None
            self._status.clear()
            self._rebuild()
        else:
            self._apply_filter()

    def _apply_filter(self) -> None:
        if self._similar is None:
            self._tree.apply_filter(self._search.text().strip().lower())

    def _double_clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        if MemoryTree.memory_of(item) is not None:
            self.edit_selected()

    def _update_buttons(self) -> None:
        has_selection = self.selected_memory() is not None
        self._add_button.setEnabled(not self._busy)
        self._edit_button.setEnabled(has_selection and not self._busy)
        self._delete_button.setEnabled(has_selection and not self._busy)
        self._undo_button.setEnabled(not self._busy)
        self._import_button.setEnabled(not self._busy)
        self._rules.show_for(self.selected_memory(), self._busy)


def _describe(result: object) -> tuple[list[str], str]:
    """Which memories to highlight after a change, and what to say about it."""
    if isinstance(result, Memory):
        return [result.id], ""
    if isinstance(result, UpdateReport):  # a reading kept: the rule it became
        return [m.id for m in result.after], outcome_text(result)
    if isinstance(result, BankChange):
        restored = [m.id for m in result.before]
        return restored, f"Undid the last change ({result.operation.lower()})."
    if result is None:
        return [], "Nothing to undo."
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[0], list):
        added, total = result
        skipped = total - len(added)
        text = f"Imported {len(added)} memor{'y' if len(added) == 1 else 'ies'}"
        text += f" ({skipped} already known)." if skipped else "."
        return [m.id for m in added], text
    return [], ""
