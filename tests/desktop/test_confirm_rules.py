"""Nothing is enforced that the person has not seen: the rule blocks under a reply (enforced, or waiting with its
readings), their Keep / Only as context / Edit… buttons through to a real MemoryBank, and the bank marking and
settling a memory that waits for confirmation."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QThreadPool
from PySide6.QtWidgets import QLabel, QMessageBox, QPushButton, QStackedWidget

from core.assistant import Reply
from core.memory import JsonMemoryStore, Memory, MemoryBank, Route, UpdateReport, describe_form
from desktop.memory.memory_bank import MemoryBankView
from desktop.memory.memory_edit_dialog import MemoryEditDialog
from desktop.memory.rule_confirmation import CONTEXT_DONE, RuleConfirmation
from desktop.chat.chat_panel import ChatPanel
from tests.fakes.fake_embedder import FakeEmbedder

USER = "ann"
DELIVERED = {"kind": "filter", "table": "orders", "column": "status", "op": "=", "value": "delivered",
             "sql": "orders.status = 'delivered'"}
BOTH = {"kind": "filter", "table": "orders", "column": "status", "op": "IN", "value": ["delivered", "shipped"],
        "sql": "orders.status IN ('delivered', 'shipped')"}
WHY = "it names a saved value and a new one: a switch, or both?"

# The offscreen platform plugin warns when a top-level dialog is shown; that is not a fault of the widget.
pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")


@pytest.fixture(autouse=True)
def _drain_pool() -> Iterator[None]:
    yield
    QThreadPool.globalInstance().waitForDone(5000)


@pytest.fixture
def bank(tmp_path: Path) -> MemoryBank:
    return MemoryBank(JsonMemoryStore(tmp_path / "memories"), FakeEmbedder(), tmp_path / "journal")


@pytest.fixture
def memories(bank: MemoryBank) -> dict[str, Memory]:
    """A memory that waits for the person (two readings) and one that is enforced, straight into the store."""
    pending = Memory(user=USER, category="preference", content="Delivered orders, and shipped ones too",
                     structured={"kind": "pending", "readings": [DELIVERED, BOTH], "why": WHY})
    enforced = Memory(user=USER, category="preference", content="Only delivered orders from now on",
                      structured=dict(DELIVERED))
    for memory in (pending, enforced):
        bank.store.put(memory)
    return {"pending": pending, "enforced": enforced}


@pytest.fixture
def view(qtbot, bank: MemoryBank) -> MemoryBankView:
    widget = MemoryBankView(bank, USER)
    qtbot.addWidget(widget)
    with qtbot.waitSignal(widget.refreshed, timeout=3000):
        pass
    return widget


@pytest.fixture
def chat(qtbot, view: MemoryBankView) -> ChatPanel:
    """The chat panel wired to the bank view as MainWindow wires them."""
    panel = ChatPanel()
    qtbot.addWidget(panel)
    panel.keep_requested.connect(lambda *args: view.keep(*args))
    panel.context_requested.connect(lambda *args: view.context_only(*args))
    panel.edit_requested.connect(view.edit_memory)
    return panel


def reply_for(*saved: Memory, notes: tuple[str, ...] = ()) -> Reply:
    """The Reply to a message that saved these memories (as the assistant builds it)."""
    changes = tuple(UpdateReport("ADD", (m.id,), (), (m,), "no similar memory") for m in saved)
    return Reply("only delivered orders from now on", Route("preference", False, ()), changes=changes,
                 text="Preference stored — no SQL executed", notes=notes)


def block_for(panel: ChatPanel, memory: Memory) -> RuleConfirmation:
    return next(b for b in panel.rule_blocks() if b.memory_id == memory.id)


def texts(block: RuleConfirmation, name: str) -> list[str]:
    return [label.text() for label in block.findChildren(QLabel, name)]


def labels(widget: Any) -> list[str]:
    return [label.text() for label in widget.findChildren(QLabel)]


def press(qtbot, block: RuleConfirmation, text: str) -> None:
    """Click a block's button and wait until the bank has made the change."""
    button = block.button(text)
    assert button is not None and button.isEnabled(), text
    button.click()
    qtbot.waitUntil(lambda: block.done, timeout=5000)


# -- the chat block -------------------------------------------------------------------------------------------


def test_a_pending_rule_says_why_it_waits_with_its_readings_and_a_keep_each(qtbot, chat: ChatPanel,
                                                                            memories: dict[str, Memory]) -> None:
    pending = memories["pending"]
    note = "Understood as: " + describe_form(pending.structured, "preference")
    chat.add_reply(reply_for(pending, notes=(note, "Another note")))
    block = block_for(chat, pending)
    assert texts(block, "ruleHeadline") == [f"Not enforced until you confirm ({WHY})"]
    assert texts(block, "ruleReading") == ["1. Enforced on every query reading orders: orders.status = 'delivered'",
                                           "2. Enforced on every query reading orders: "
                                           "orders.status IN ('delivered', 'shipped')"]
    assert [b.text() for b in block.buttons] == ["Keep 1", "Keep 2", "Only as context"]
    assert all(b.isEnabled() for b in block.buttons)
    assert "orders.status IN ('delivered', 'shipped')" in block.button("Keep 2").toolTip()
    shown = labels(chat)
    assert note not in shown, "the block says it, with its buttons: not a second time as a note"
    assert "Another note" in shown


def test_an_enforced_rule_says_what_it_does_and_where_with_context_and_edit(qtbot, chat: ChatPanel,
                                                                           memories: dict[str, Memory]) -> None:
    enforced = memories["enforced"]
    chat.add_reply(reply_for(enforced))
    block = block_for(chat, enforced)
    assert texts(block, "ruleHeadline") == ["Understood as: Enforced on every query reading orders: "
                                            "orders.status = 'delivered' — applies to every question on orders"]
    assert [b.text() for b in block.buttons] == ["Only as context", "Edit…"]


def test_one_reading_is_kept_with_a_plain_keep(qtbot, chat: ChatPanel, bank: MemoryBank) -> None:
    single = Memory(user=USER, category="preference", content="Only delivered orders please",
                    structured={"kind": "pending", "readings": [DELIVERED], "why": "the model read it differently"})
    bank.store.put(single)
    chat.add_reply(reply_for(single))
    assert [b.text() for b in block_for(chat, single).buttons] == ["Keep", "Only as context"]


def test_a_context_memory_gets_no_block(qtbot, chat: ChatPanel) -> None:
    words = Memory(user=USER, category="preference", content="I like tidy answers", structured={"kind": "context"})
    chat.add_reply(reply_for(words))
    assert chat.rule_blocks() == []


def test_keep_2_enforces_the_second_reading_and_the_bank_follows(qtbot, chat: ChatPanel, view: MemoryBankView,
                                                                 bank: MemoryBank,
                                                                 memories: dict[str, Memory]) -> None:
    chat.add_reply(reply_for(memories["pending"]))
    block = block_for(chat, memories["pending"])
    with qtbot.waitSignal(view.refreshed, timeout=5000):
        press(qtbot, block, "Keep 2")
    # Reading 2 went through the update cycle: it widened the saved delivered-orders rule on the same slot.
    [kept] = bank.list(USER)
    assert kept.structured == BOTH and kept.id == memories["enforced"].id
    assert memories["pending"].content in kept.content
    assert block.outcome.text() == "Enforced on every query reading orders: orders.status IN ('delivered', 'shipped')"
    assert not any(b.isEnabled() for b in block.buttons)
    assert {m.id for m in view.memories()} == {m.id for m in bank.list(USER)}
    assert view.is_highlighted(kept.id)
    assert bank.undo(USER) is not None  # one undo step puts the waiting memory back
    assert bank.get(USER, memories["pending"].id).structured["kind"] == "pending"


def test_only_as_context_keeps_the_words_and_enforces_nothing(qtbot, chat: ChatPanel, bank: MemoryBank,
                                                             memories: dict[str, Memory]) -> None:
    chat.add_reply(reply_for(memories["enforced"], memories["pending"]))
    for memory in (memories["enforced"], memories["pending"]):
        block = block_for(chat, memory)
        press(qtbot, block, "Only as context")
        assert bank.get(USER, memory.id).structured["kind"] == "context"
        assert block.outcome.text() == CONTEXT_DONE and CONTEXT_DONE.startswith("Kept as context only")
        assert not any(b.isEnabled() for b in block.buttons)


def test_edit_opens_the_bank_dialog_on_that_memory(qtbot, memories: dict[str, Memory], chat: ChatPanel,
                                                   view: MemoryBankView) -> None:
    chat.add_reply(reply_for(memories["enforced"]))
    block_for(chat, memories["enforced"]).button("Edit…").click()
    qtbot.waitUntil(lambda: view.findChild(MemoryEditDialog) is not None, timeout=5000)
    dialog = view.findChild(MemoryEditDialog)
    assert dialog.content() == memories["enforced"].content
    assert view.selected_memory() is not None and view.selected_memory().id == memories["enforced"].id
    dialog.reject()


def test_a_failed_keep_shows_the_error_and_lets_the_person_choose_again(qtbot, chat: ChatPanel,
                                                                       view: MemoryBankView, bank: MemoryBank,
                                                                       memories: dict[str, Memory]) -> None:
    chat.add_reply(reply_for(memories["pending"]))
    block = block_for(chat, memories["pending"])
    bank.delete(USER, memories["pending"].id)  # gone meanwhile (the command line, another window)
    block.button("Keep 1").click()
    qtbot.waitUntil(lambda: view.findChild(QMessageBox, "errorBox") is not None, timeout=5000)
    qtbot.waitUntil(lambda: all(b.isEnabled() for b in block.buttons), timeout=5000)
    assert not block.done and not block.outcome.isVisible()


def test_rules_learned_after_an_answer_are_shown_under_the_note(qtbot, chat: ChatPanel,
                                                                memories: dict[str, Memory]) -> None:
    report = UpdateReport("ADD", (memories["pending"].id,), (), (memories["pending"],), "no similar memory")
    chat.add_note("Learned: Delivered orders, and shipped ones too.", [report])
    assert [b.memory_id for b in chat.rule_blocks()] == [memories["pending"].id]


def test_the_block_wraps_in_a_narrow_chat_column(qtbot, chat: ChatPanel, memories: dict[str, Memory],
                                                 tmp_path: Path) -> None:
    chat.resize(300, 700)  # narrower than the chat column of a 1366×768 window (about 440 px)
    chat.show()
    qtbot.waitExposed(chat)
    chat.add_reply(reply_for(memories["pending"], memories["enforced"]))
    viewport = chat.scroll.viewport()
    qtbot.waitUntil(lambda: len(chat.rule_blocks()) == 2 and all(b.height() > 0 for b in chat.rule_blocks()),
                    timeout=3000)
    qtbot.wait(50)  # the stacked buttons settle the height of the bubble
    assert chat.scroll.widget().width() <= viewport.width(), "the reply must not widen the column"
    for block in chat.rule_blocks():
        headline = block.findChild(QLabel, "ruleHeadline")
        assert headline.wordWrap() and headline.height() > headline.fontMetrics().lineSpacing() * 1.5
        for widget in (headline, *block.buttons):
            right = widget.mapTo(chat.scroll.widget(), widget.rect().topRight()).x()
            assert right <= viewport.width(), f"{widget.objectName()} runs out of the column"
    pending = block_for(chat, memories["pending"])
    keep1, keep2 = pending.button("Keep 1"), pending.button("Keep 2")
    assert keep2.y() > keep1.y(), "too narrow for a row: the buttons go one under another"
    chat.grab().save(str(tmp_path / "rules-narrow.png"))

    chat.resize(700, 700)  # room again: side by side
    qtbot.waitUntil(lambda: keep2.y() == keep1.y(), timeout=3000)


# -- the memory bank --------------------------------------------------------------------------------------------


def bank_item(view: MemoryBankView, memory: Memory) -> Any:
    assert view.select_memory(memory.id)
    return view.findChild(QStackedWidget).currentWidget().currentItem()


def bank_button(view: MemoryBankView, name: str) -> QPushButton:
    found = view.findChild(QPushButton, name)
    assert found is not None, name
    return found


def test_the_bank_marks_a_waiting_memory_and_lists_its_readings(qtbot, view: MemoryBankView,
                                                                memories: dict[str, Memory]) -> None:
    view.refresh()
    qtbot.waitUntil(lambda: len(view.memories()) == 2, timeout=3000)
    item = bank_item(view, memories["pending"])
    assert item.text(1).startswith("waiting for you")
    tip = " ".join(item.toolTip(0).split())  # wrapped in lines of readable length
    assert "Waiting for you" in tip and WHY in tip
    assert "1. Enforced on every query reading orders: orders.status = 'delivered'" in tip
    assert "2. Enforced on every query reading orders: orders.status IN ('delivered', 'shipped')" in tip
    assert not item.icon(0).isNull()
    assert "waiting for you" not in bank_item(view, memories["enforced"]).text(1)


def test_the_bank_keeps_a_reading_from_its_menu_and_context_for_an_enforced_one(
        qtbot, view: MemoryBankView, bank: MemoryBank, memories: dict[str, Memory]) -> None:
    view.refresh()
    qtbot.waitUntil(lambda: len(view.memories()) == 2, timeout=3000)
    keep, context = bank_button(view, "memoryKeep"), bank_button(view, "memoryContext")

    bank_item(view, memories["enforced"])
    assert not keep.isEnabled() and context.isEnabled()

    bank_item(view, memories["pending"])
    assert keep.isEnabled() and context.isEnabled()
    menu = keep.menu()
    assert menu is not None and [a.text().split(":")[0] for a in menu.actions()] == ["Keep 1", "Keep 2"]
    with qtbot.waitSignal(view.memories_changed, timeout=5000):
        menu.actions()[1].trigger()
    assert [m.structured for m in bank.list(USER)] == [BOTH]  # the saved rule on the same slot, widened
    qtbot.waitUntil(lambda: memories["pending"].id not in {m.id for m in view.memories()}, timeout=3000)
    assert view.status_text().startswith("Enforced")

    bank_item(view, memories["enforced"])
    with qtbot.waitSignal(view.memories_changed, timeout=5000):
        context.click()
    assert bank.get(USER, memories["enforced"].id).structured["kind"] == "context"
    qtbot.waitUntil(lambda: not bank_button(view, "memoryContext").isEnabled(), timeout=3000)


def test_the_bank_keeps_a_single_reading_with_a_plain_click(qtbot, view: MemoryBankView, bank: MemoryBank) -> None:
    single = Memory(user=USER, category="preference", content="Only delivered orders please",
                    structured={"kind": "pending", "readings": [DELIVERED], "why": ""})
    bank.store.put(single)
    view.refresh()
    qtbot.waitUntil(lambda: len(view.memories()) == 1, timeout=3000)
    bank_item(view, single)
    keep = bank_button(view, "memoryKeep")
    assert keep.isEnabled() and keep.menu() is None
    with qtbot.waitSignal(view.memories_changed, timeout=5000):
        keep.click()
    assert [m.structured for m in bank.list(USER)] == [DELIVERED]


# -- in the real window, 1366×768 -------------------------------------------------------------------------------


@pytest.fixture
def window(qtbot, fake_ollama, embedded_pg, tmp_path: Path) -> Iterator[Any]:
    from core.composition import Services
    from core.config import Settings
    from core.history import QuestionHistory
    from desktop.shell.app import AppContext
    from desktop.shell.main_window import MainWindow

    settings = Settings(ollama_host=fake_ollama.url, memory_store="json")
    context = AppContext(settings=settings, services=Services(settings, embedded=embedded_pg, embedder=FakeEmbedder()),
                         history=QuestionHistory(tmp_path / "history"))
    win = MainWindow(context, USER)
    qtbot.addWidget(win)
    win.resize(1366, 768)
    win.show()
    with qtbot.waitSignal(win.database_ready, timeout=30_000):
        win.start(None)
    yield win
    win.close()
    context.services.close()


def test_the_window_routes_keep_to_the_bank_and_the_bank_follows(qtbot, window: Any, tmp_path: Path) -> None:
    bank = window.context.services.bank()
    pending = Memory(user=USER, category="preference", content="Delivered orders, and shipped ones too",
                     structured={"kind": "pending", "readings": [DELIVERED, BOTH], "why": WHY})
    enforced = Memory(user=USER, category="preference", content="Only big orders from now on",
                      structured={"kind": "filter", "table": "orders", "column": "total_amount", "op": ">",
                                  "value": 10000, "sql": "orders.total_amount > 10000"})
    for memory in (pending, enforced):
        bank.store.put(memory)
    window._on_reply(reply_for(pending, enforced))  # as if the assistant had just stored them
    qtbot.waitUntil(lambda: {m.id for m in window.memory_bank.memories()} == {pending.id, enforced.id}, timeout=5000)
    column = window.chat.scroll.viewport().width()
    for block in window.chat.rule_blocks():
        assert 0 < block.width() <= column
    window.grab().save(str(tmp_path / "rules-1366x768.png"))

    press(qtbot, block_for(window.chat, pending), "Keep 2")
    assert [m.structured for m in bank.list(USER) if m.content == pending.content] == [BOTH]
    qtbot.waitUntil(lambda: pending.id not in {m.id for m in window.memory_bank.memories()}, timeout=5000)

    press(qtbot, block_for(window.chat, enforced), "Only as context")
    assert bank.get(USER, enforced.id).structured["kind"] == "context"
    qtbot.wait(50)  # the outcome lines are laid out
    headline = block_for(window.chat, enforced).findChild(QLabel, "ruleHeadline")
    assert headline.height() >= headline.heightForWidth(headline.width()), "the words are cut off"
    window.grab().save(str(tmp_path / "rules-settled-1366x768.png"))

    window.chat.add_reply(reply_for(bank.get(USER, [m.id for m in bank.list(USER) if m.structured == BOTH][0])))
    window.chat.rule_blocks()[-1].button("Edit…").click()
    qtbot.waitUntil(lambda: window.memory_bank.findChild(MemoryEditDialog) is not None, timeout=5000)
    window.memory_bank.findChild(MemoryEditDialog).reject()
