"""The memory bank panel over a real MemoryBank (JSON store, fake embedder): list, add, edit, delete, undo, io."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt, QThreadPool
from PySide6.QtWidgets import QPushButton, QStackedWidget, QToolButton

from core.memory import MemoryBank
from core.memory import JsonMemoryStore
from desktop.memory.memory_bank import EMPTY_TEXT, MemoryBankView
from desktop.memory.memory_edit_dialog import MemoryEditDialog
from tests.fakes.fake_embedder import FakeEmbedder

USER = "ann"

# The offscreen platform plugin warns when a top-level dialog is shown; that is not a fault of the widget.
pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")


@pytest.fixture(autouse=True)
def _drain_pool() -> Iterator[None]:
    yield
    QThreadPool.globalInstance().waitForDone(5000)


@pytest.fixture
def bank(tmp_path: Path) -> MemoryBank:
    return MemoryBank(JsonMemoryStore(tmp_path / "memories"), FakeEmbedder(), tmp_path / "journal")


class Answers:
    """Stand-ins for the blocking dialogs: a scripted confirmation and fixed file paths."""

    def __init__(self, tmp_path: Path) -> None:
        self.confirm_answer = True
        self.questions: list[str] = []
        self.path: Path | None = tmp_path / "export.json"

    def confirm(self, _parent: object, text: str) -> bool:
        self.questions.append(text)
        return self.confirm_answer

    def choose(self, _parent: object) -> Path | None:
        return self.path


@pytest.fixture
def answers(tmp_path: Path) -> Answers:
    return Answers(tmp_path)


@pytest.fixture
def view(qtbot, bank: MemoryBank, answers: Answers) -> MemoryBankView:
    widget = MemoryBankView(bank, USER, confirm=answers.confirm, choose_export_path=answers.choose,
                            choose_import_path=answers.choose)
    qtbot.addWidget(widget)
    return widget


def loaded(qtbot, view: MemoryBankView) -> MemoryBankView:
    with qtbot.waitSignal(view.refreshed, timeout=3000):
        view.refresh()
    return view


def button(view: MemoryBankView, name: str) -> QPushButton:
    found = view.findChild(QPushButton, name)
    assert found is not None, name
    return found


def seed(bank: MemoryBank) -> dict[str, str]:
    ids = {
        "india": bank.add(USER, "preference", "Always show me customers from India",
                          structured={"kind": "filter", "sql": "customers.country = 'India'"}).id,
        "big": bank.add(USER, "terminology", "A big order is one over 10000").id,
        "revenue": bank.add(USER, "metric", "Revenue is the sum of total_amount").id,
        "cash": bank.add(USER, "preference", "Ignore orders paid in cash").id,
    }
    bank.add("bob", "entity", "Someone else's memory, never shown to ann")
    return ids


def test_empty_state_tells_how_to_teach(qtbot, view: MemoryBankView) -> None:
    loaded(qtbot, view)
    stack = view.findChild(QStackedWidget)
    assert stack.currentWidget().objectName() == "memoryEmptyState"
    assert stack.currentWidget().text() == EMPTY_TEXT


def test_lists_memories_grouped_by_category_with_counts(qtbot, view: MemoryBankView, bank: MemoryBank) -> None:
    seed(bank)
    loaded(qtbot, view)
    assert view.group_item("preference").text(0) == "Preferences (2)"
    assert view.group_item("terminology").text(0) == "Terminology (1)"
    assert view.group_item("metric").text(0) == "Metrics (1)"
    assert view.group_item("entity").text(0) == "Entities (0)"
    assert {m.user for m in view.memories()} == {USER}
    india = next(m for m in view.memories() if "India" in m.content)
    view.select_memory(india.id)
    item = view.findChild(QStackedWidget).currentWidget().currentItem()
    assert "customers.country = 'India'" in item.text(1)
    assert "All databases" in item.text(1)
    assert "Applies to: All databases" in item.toolTip(0)
    assert "Updated:" in item.toolTip(0)


def test_add_through_the_dialog(qtbot, view: MemoryBankView, bank: MemoryBank) -> None:
    loaded(qtbot, view)
    button(view, "memoryAdd").click()
    dialog = view.findChild(MemoryEditDialog)
    assert dialog is not None and dialog.isVisible()
    dialog.set_content("tiny")
    assert not dialog.ok_button().isEnabled()
    assert "more than 5 characters" in dialog.error_text()
    dialog.set_category("metric")
    dialog.set_content("Margin is   revenue minus cost")
    assert dialog.ok_button().isEnabled() and dialog.error_text() == ""
    with qtbot.waitSignal(view.memories_changed, timeout=3000):
        dialog.ok_button().click()
    qtbot.waitUntil(lambda: view.group_item("metric").childCount() == 1, timeout=3000)
    [memory] = bank.list(USER)
    assert (memory.category, memory.content) == ("metric", "Margin is revenue minus cost")
    assert view.is_highlighted(memory.id)
    assert view.group_item("metric").text(0) == "Metrics (1)"


def test_edit_changes_content_and_reembeds(qtbot, view: MemoryBankView, bank: MemoryBank) -> None:
    ids = seed(bank)
    loaded(qtbot, view)
    assert view.select_memory(ids["big"])
    button(view, "memoryEdit").click()
    dialog = view.findChild(MemoryEditDialog)
    assert dialog.content() == "A big order is one over 10000"
    dialog.set_content("A big order is one over 50000")
    with qtbot.waitSignal(view.memories_changed, timeout=3000):
        dialog.ok_button().click()
    stored = bank.get(USER, ids["big"])
    assert stored.content == "A big order is one over 50000"
    expected = FakeEmbedder().embed_batch([stored.content])[0]
    assert np.allclose(np.asarray(stored.embedding), expected, atol=1e-5)
    qtbot.waitUntil(lambda: any(m.content.endswith("50000") for m in view.memories()), timeout=3000)


def test_delete_asks_first_and_undo_restores(qtbot, view: MemoryBankView, bank: MemoryBank,
                                             answers: Answers) -> None:
    ids = seed(bank)
    loaded(qtbot, view)
    view.select_memory(ids["cash"])

    answers.confirm_answer = False
    button(view, "memoryDelete").click()
    assert len(answers.questions) == 1 and "Ignore orders paid in cash" in answers.questions[0]
    assert len(bank.list(USER)) == 4

    answers.confirm_answer = True
    with qtbot.waitSignal(view.memories_changed, timeout=3000):
        button(view, "memoryDelete").click()
    assert ids["cash"] not in {m.id for m in bank.list(USER)}
    qtbot.waitUntil(lambda: view.group_item("preference").text(0) == "Preferences (1)", timeout=3000)

    with qtbot.waitSignal(view.memories_changed, timeout=3000):
        button(view, "memoryUndo").click()
    assert ids["cash"] in {m.id for m in bank.list(USER)}
    qtbot.waitUntil(lambda: view.group_item("preference").text(0) == "Preferences (2)", timeout=3000)
    assert view.is_highlighted(ids["cash"])


def test_live_refresh_after_a_change_made_elsewhere(qtbot, view: MemoryBankView, bank: MemoryBank) -> None:
    seed(bank)
    loaded(qtbot, view)
    learned = bank.add(USER, "entity", "ACME is the customer with id 42", source="chat")
    with qtbot.waitSignal(view.refreshed, timeout=3000):
        view.on_memory_changed()
    assert view.group_item("entity").text(0) == "Entities (1)"
    assert view.is_highlighted(learned.id)
    view.highlight([])
    assert not view.is_highlighted(learned.id)

    # The app may name what changed right after telling the view: its choice beats the journal's.
    other = bank.add(USER, "entity", "Globex is the customer with id 7", source="chat")
    with qtbot.waitSignal(view.refreshed, timeout=3000):
        view.on_memory_changed()
        view.highlight([learned.id])
    assert view.is_highlighted(learned.id) and not view.is_highlighted(other.id)


def test_export_then_import_round_trip(qtbot, view: MemoryBankView, bank: MemoryBank, answers: Answers) -> None:
    seed(bank)
    loaded(qtbot, view)
    button(view, "memoryExport").click()
    qtbot.waitUntil(lambda: view.status_text().startswith("Exported 4 memories"), timeout=3000)
    assert answers.path is not None and answers.path.exists()

    before = sorted((m.category, m.content) for m in bank.list(USER))
    bank.clear(USER)
    loaded(qtbot, view)
    assert view.memories() == []

    with qtbot.waitSignal(view.memories_changed, timeout=3000):
        button(view, "memoryImport").click()
    assert sorted((m.category, m.content) for m in bank.list(USER)) == before
    qtbot.waitUntil(lambda: len(view.memories()) == 4, timeout=3000)
    assert view.status_text() == "Imported 4 memories."


def test_import_of_a_broken_file_shows_the_error(qtbot, view: MemoryBankView, answers: Answers,
                                                 tmp_path: Path) -> None:
    loaded(qtbot, view)
    answers.path = tmp_path / "broken.json"
    answers.path.write_text("{not json", encoding="utf-8")
    button(view, "memoryImport").click()
    qtbot.waitUntil(lambda: view.findChild(object, "errorBox") is not None, timeout=3000)
    box = view.findChild(object, "errorBox")
    assert "Cannot read" in box.text()
    box.close()


def test_search_filters_locally_and_finds_similar(qtbot, view: MemoryBankView, bank: MemoryBank) -> None:
    ids = seed(bank)
    loaded(qtbot, view)
    qtbot.keyClicks(view.findChild(object, "memorySearch"), "india")
    assert [m.id for m in view.visible_memories()] == [ids["india"]]
    assert view.group_item("preference").text(0) == "Preferences (1 of 2)"
    assert view.group_item("metric").isHidden()

    search = view.findChild(object, "memorySearch")
    search.setText("revenue sum")
    view.findChild(QToolButton, "memorySimilar").click()
    qtbot.waitUntil(lambda: view.group_item("similar") is not None, timeout=3000)
    assert view.visible_memories()[0].id == ids["revenue"]
    assert len(view.visible_memories()) == 4

    search.clear()
    assert view.group_item("similar") is None
    assert len(view.visible_memories()) == 4


def test_a_memory_the_filter_hides_is_never_deleted(qtbot, view: MemoryBankView, bank: MemoryBank,
                                                    answers: Answers) -> None:
    ids = seed(bank)
    loaded(qtbot, view)
    view.select_memory(ids["big"])
    qtbot.keyClicks(view.findChild(object, "memorySearch"), "india")  # hides the one selected
    assert view.selected_memory() is None
    view.delete_selected()
    assert ids["big"] in {m.id for m in bank.list(USER)} and answers.questions == []  # nothing asked or forgotten


def test_loads_on_its_own_and_keyboard_delete_and_undo(qtbot, bank: MemoryBank, answers: Answers) -> None:
    ids = seed(bank)
    view = MemoryBankView(bank, USER, confirm=answers.confirm)
    qtbot.addWidget(view)
    qtbot.waitUntil(lambda: len(view.memories()) == 4, timeout=3000)  # no refresh() call needed
    with qtbot.waitActive(view):
        view.show()
        view.activateWindow()
    tree = view.findChild(object, "memoryTree")
    tree.setFocus()
    view.select_memory(ids["big"])
    with qtbot.waitSignal(view.memories_changed, timeout=3000):
        qtbot.keyClick(tree, Qt.Key.Key_Delete)
    assert ids["big"] not in {m.id for m in bank.list(USER)}
    with qtbot.waitSignal(view.memories_changed, timeout=3000):
        qtbot.keyClick(tree, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert ids["big"] in {m.id for m in bank.list(USER)}


def test_a_long_memory_wraps_in_its_row_and_the_tooltip_holds_all_of_it(qtbot, view: MemoryBankView,
                                                                        bank: MemoryBank) -> None:
    """Long memories were cut to one elided line (issue 13, item 14): the row wraps (clipped at a few lines),
    re-wraps when the column is widened, and the tooltip has every word in lines of readable length."""
    words = "Always show me customers from India " + "and explain every assumption behind each number " * 40
    long = bank.add(USER, "preference", words[:1900]).id
    short = bank.add(USER, "preference", "Ignore orders paid in cash").id
    loaded(qtbot, view)
    view.resize(700, 600)
    view.show()
    qtbot.waitExposed(view)
    tree = view.findChild(QStackedWidget).currentWidget()
    items = []
    for memory_id in (long, short):
        assert tree.select_memory(memory_id)
        items.append(tree.currentItem())
    long_item, short_item = items
    tall, low = tree.visualItemRect(long_item).height(), tree.visualItemRect(short_item).height()
    assert tall >= 4 * low
    assert long_item.text(0).endswith("…") and len(long_item.text(0)) <= 280
    tip = long_item.toolTip(0)
    assert " ".join(tip.split()).startswith(" ".join(words[:1900].split()))
    assert max(len(line) for line in tip.splitlines()) <= 80
    assert "Used as context only" in tip or "Enforced" in tip

    assert tree.columnWidth(0) > tree.viewport().width() // 2  # the memory column takes most of the width
    assert low < 2.5 * tree.fontMetrics().height()  # the details column never makes a row tall
    tree.setColumnWidth(0, tree.columnWidth(0) // 2)  # dragged narrower: re-wrapped, taller, and kept so
    qtbot.waitUntil(lambda: tree.visualItemRect(long_item).height() > tall, timeout=3000)
    view.resize(720, 600)
    qtbot.wait(50)
    assert tree.visualItemRect(long_item).height() > tall


def test_the_buttons_stay_put_as_the_status_changes(qtbot) -> None:
    from PySide6.QtWidgets import QWidget

    from desktop.toolkit.widgets import StatusLine

    holder = QWidget()
    qtbot.addWidget(holder)
    line = StatusLine(holder, "status")
    height = line.height()
    for text in ("", "Saved.", "Exported 4 memories to /home/ann/a/very/long/folder/name/that/wraps/memories.json " * 3):
        line.setText(text)
        assert line.height() == height and line.toolTip() == text
