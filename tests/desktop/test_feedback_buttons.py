"""Thumbs on answers in the real window, offscreen: up keeps a verified example, the list shows it, down and
Remove take it away; the thumbs show their state and can be taken back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QThreadPool
from PySide6.QtWidgets import QTabWidget, QToolButton

from core.composition import Services
from core.config import Settings
from core.feedback import ExampleStore
from core.history import QuestionHistory
from desktop.memory.verified_examples import ThumbsBar, VerifiedExamplesView
from desktop.shell.app import AppContext
from desktop.shell.main_window import MainWindow
from tests.fakes.analyst_model import analyst_model
from tests.fakes.fake_embedder import FakeEmbedder

SQL = {"wholesale customers": "SELECT name, city, country FROM customers WHERE segment = 'wholesale'"}


@pytest.fixture(autouse=True)
def _drain_pool() -> Iterator[None]:
    yield
    QThreadPool.globalInstance().waitForDone(5000)


@pytest.fixture
def window(qtbot, fake_ollama, embedded_pg, tmp_path: Path) -> Any:
    fake_ollama.default_chat = analyst_model(SQL, {})
    settings = Settings(ollama_host=fake_ollama.url, memory_store="json")
    context = AppContext(settings=settings, services=Services(settings, embedded=embedded_pg, embedder=FakeEmbedder()),
                         history=QuestionHistory(tmp_path / "history"))
    win = MainWindow(context, "priya")
    qtbot.addWidget(win)
    with qtbot.waitSignal(win.database_ready, timeout=30_000):
        win.start(None)
    yield win
    win.close()
    context.services.close()


def ask(qtbot, win: MainWindow, text: str) -> Any:
    with qtbot.waitSignal(win.answer_ready, timeout=30_000) as blocker:
        win.chat.input.setText(text)
        win.chat.input.returnPressed.emit()
    return blocker.args[0]


def thumb(win: MainWindow, name: str) -> QToolButton:
    """The thumb of the newest answer."""
    return win.chat.findChildren(QToolButton, name)[-1]


def test_thumbs_up_keeps_the_answer_as_a_verified_example_and_down_removes_it(qtbot, window: MainWindow) -> None:
    reply = ask(qtbot, window, "List the wholesale customers")
    assert reply.answer is not None and reply.answer.ok
    store = window.context.services.feedback().examples
    view = window.memory_bank.examples_view
    assert isinstance(view, VerifiedExamplesView)
    tabs = window.memory_bank.findChild(QTabWidget, "memoryBankTabs")
    assert tabs is not None and tabs.tabText(1) == "Verified examples"

    up, down = thumb(window, "thumbUp"), thumb(window, "thumbDown")
    qtbot.mouseClick(up, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(store.list("priya")) == 1, timeout=10_000)
    example = store.list("priya")[0]
    assert example.question == "List the wholesale customers" and example.sql == reply.answer.sql
    assert example.database_id == window.assistant.database_id
    assert up.isChecked() and not down.isChecked()
    qtbot.waitUntil(lambda: [e.id for e in view.examples()] == [example.id], timeout=10_000)
    assert view.table.item(0, 0).text() == "List the wholesale customers"

    qtbot.mouseClick(down, Qt.MouseButton.LeftButton)  # changed my mind: wrong after all
    qtbot.waitUntil(lambda: store.list("priya") == [], timeout=10_000)
    assert down.isChecked() and not up.isChecked()
    qtbot.waitUntil(lambda: view.examples() == [], timeout=10_000)
    log = window.context.services.feedback().log.events("priya")
    assert [(e.verdict, e.removed) for e in log] == [("up", 0), ("down", 1)]
    assert log[0].model == window.context.settings.model


def test_the_list_removes_an_example_and_a_thumb_can_be_taken_back(qtbot, window: MainWindow) -> None:
    ask(qtbot, window, "List the wholesale customers")
    store = window.context.services.feedback().examples
    view = window.memory_bank.examples_view
    up = thumb(window, "thumbUp")
    qtbot.mouseClick(up, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(view.examples()) == 1, timeout=10_000)
    view.select_row(0)
    assert view.remove_button.isEnabled()
    with qtbot.waitSignal(view.examples_changed, timeout=10_000):
        qtbot.mouseClick(view.remove_button, Qt.MouseButton.LeftButton)
    assert store.list("priya") == []
    qtbot.waitUntil(lambda: view.examples() == [], timeout=10_000)

    qtbot.mouseClick(up, Qt.MouseButton.LeftButton)  # was still pressed: this takes the thumb back
    assert not up.isChecked()
    qtbot.mouseClick(up, Qt.MouseButton.LeftButton)  # and up again
    qtbot.waitUntil(lambda: len(store.list("priya")) == 1, timeout=10_000)
    qtbot.mouseClick(up, Qt.MouseButton.LeftButton)  # taken back: the example goes, no thumbs-down logged
    qtbot.waitUntil(lambda: store.list("priya") == [], timeout=10_000)
    verdicts = [e.verdict for e in window.context.services.feedback().log.events("priya")]
    assert verdicts == ["up", "clear", "up", "clear"]


def test_a_thumb_whose_recording_fails_shows_its_old_state_again(qtbot, tmp_path: Path) -> None:
    bar = ThumbsBar()
    qtbot.addWidget(bar)
    seen: list[str] = []
    bar.verdict_changed.connect(seen.append)
    qtbot.mouseClick(bar.buttons["up"], Qt.MouseButton.LeftButton)
    qtbot.mouseClick(bar.buttons["down"], Qt.MouseButton.LeftButton)
    assert seen == ["up", "down"] and bar.verdict() == "down"
    bar.revert()  # the thumbs-down could not be recorded
    assert bar.verdict() == "up" and bar.buttons["up"].isChecked() and not bar.buttons["down"].isChecked()

    store = ExampleStore(tmp_path / "fb")
    store.add("ann", "db", "How many orders?", "SELECT count(*) FROM orders")
    store.add("ann", "other", "Invoices?", "SELECT * FROM invoices")
    view = VerifiedExamplesView(store, "ann", database_id="db")
    qtbot.addWidget(view)
    qtbot.waitUntil(lambda: len(view.examples()) == 1, timeout=10_000)
    assert not view.remove_button.isEnabled()  # nothing selected
    with qtbot.waitSignal(view.refreshed, timeout=10_000):
        view.set_database(None)
    assert len(view.examples()) == 2
