"""The memory bank's Add/Edit dialog over the real engine (SQLite shop, JSON store, the fake Ollama): the
"Understood" line follows the words as they are typed, a context-only memory says so plainly with a hint, values
not found are named, and what OK saves is the recomputed form that the next answer enforces (issue 13, item 1)."""

from __future__ import annotations

import html
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QThreadPool
from PySide6.QtWidgets import (
    QApplication,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QWidget,
)

from core.composition import Services
from core.config import Settings
from core.memory import MemoryBank, Understanding
from desktop.memory.memory_bank import MemoryBankView
from desktop.memory.memory_edit_dialog import MemoryEditDialog
from desktop.shell.app import apply_theme
from tests.fakes.analyst_model import analyst_model
from tests.fakes.fake_embedder import FakeEmbedder

USER = "ann"
QUESTION = "List the wholesale customers"
SQL = {"wholesale customers": "SELECT name, city, country FROM customers WHERE segment = 'wholesale'"}
COUNTRIES = ("India", "Germany", "France")

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")


@pytest.fixture(autouse=True)
def _drain_pool() -> Iterator[None]:
    yield
    QThreadPool.globalInstance().waitForDone(5000)


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT, city TEXT, country TEXT, "
                     "segment TEXT)")
        conn.executemany("INSERT INTO customers VALUES (?, ?, ?, ?, ?)",
                         [(i, f"Customer {i}", f"City {i}", COUNTRIES[i % 3], ("wholesale", "retail")[i % 2])
                          for i in range(1, 31)])
    conn.close()
    return path


@pytest.fixture
def services(fake_ollama, shop: Path) -> Iterator[tuple[Services, Any]]:
    """The window's engine objects as ``MainWindow`` wires them: the assistant for the shop, and its bank."""
    fake_ollama.default_chat = analyst_model(SQL, {})
    found = Services(Settings(ollama_host=fake_ollama.url, memory_store="json"), embedder=FakeEmbedder())
    assistant = found.assistant(str(shop))
    yield found, assistant
    found.close()


@pytest.fixture
def view(qtbot, services: tuple[Services, Any]) -> MemoryBankView:
    found, assistant = services
    widget = MemoryBankView(found.bank(), USER, database_id=assistant.database_id)
    qtbot.addWidget(widget)
    return widget


def loaded(qtbot, view: MemoryBankView) -> MemoryBankView:
    with qtbot.waitSignal(view.refreshed, timeout=5000):
        view.refresh()
    return view


def plain(rich: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", rich)).replace("\u200b", "")


def understood(dialog: MemoryEditDialog) -> str:
    """The "Understood" line as shown now, as plain text (no preview forced)."""
    return plain(dialog.findChild(QLabel, "memoryUnderstood").text())


def type_over(qtbot, dialog: MemoryEditDialog, text: str) -> None:
    editor = dialog.findChild(QPlainTextEdit, "memoryContent")
    editor.selectAll()
    qtbot.keyClicks(editor, text)


def countries_asked(assistant: Any) -> tuple[str, set[str]]:
    reply = assistant.handle(USER, QUESTION)
    assert reply.answer is not None and reply.answer.ok, reply
    return reply.answer.sql, {row[2] for row in reply.answer.rows}


def test_editing_india_to_germany_shows_and_applies_the_germany_filter(qtbot, view: MemoryBankView,
                                                                       services: tuple[Services, Any],
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    found, assistant = services
    bank: MemoryBank = found.bank()
    india = bank.add(USER, "preference", "Always show me customers from India", database_id=assistant.database_id)
    assert india.structured and india.structured["value"] == "India"
    assert countries_asked(assistant)[1] == {"India"}

    loaded(qtbot, view)
    assert view.select_memory(india.id)
    calls: list[str] = []
    real = bank.understand

    def counted(category: str, content: str, **kw: Any) -> Understanding:
        calls.append(content)
        return real(category, content, **kw)

    monkeypatch.setattr(bank, "understand", counted)
    view.findChild(QPushButton, "memoryEdit").click()
    dialog = view.findChild(MemoryEditDialog)
    assert dialog is not None and dialog.isVisible()
    assert "customers.country = 'India'" in understood(dialog) and understood(dialog).startswith("Enforced on every query")

    calls.clear()
    type_over(qtbot, dialog, "Always show me customers from Germany")
    assert "India" in understood(dialog)  # not re-read on every key: the preview waits for a pause
    qtbot.waitUntil(lambda: "customers.country = 'Germany'" in understood(dialog), timeout=3000)
    assert "India" not in understood(dialog) and len(calls) == 1
    assert dialog.context_note() == "" and dialog.warnings() == ""

    with qtbot.waitSignal(view.memories_changed, timeout=5000):
        dialog.ok_button().click()
    stored = bank.get(USER, india.id)
    assert stored.content == "Always show me customers from Germany"
    assert stored.structured["kind"] == "filter" and stored.structured["value"] == "Germany"
    assert "India" not in str(stored.structured)
    assert "customers.country = 'Germany'" in view.status_text()

    sql, countries = countries_asked(assistant)
    assert "Germany" in sql and "India" not in sql
    assert countries == {"Germany"}


def test_add_stores_the_filter_and_the_next_answer_enforces_it(qtbot, view: MemoryBankView,
                                                               services: tuple[Services, Any]) -> None:
    found, assistant = services
    loaded(qtbot, view)
    view.findChild(QPushButton, "memoryAdd").click()
    dialog = view.findChild(MemoryEditDialog)
    dialog.set_category("preference")
    type_over(qtbot, dialog, "Only show customers from Germany")
    qtbot.waitUntil(lambda: "customers.country = 'Germany'" in understood(dialog), timeout=3000)
    assert dialog.context_note() == ""

    with qtbot.waitSignal(view.memories_changed, timeout=5000):
        dialog.ok_button().click()
    [memory] = found.bank().list(USER)
    assert memory.structured["kind"] == "filter" and memory.structured["sql"] == "customers.country = 'Germany'"
    assert view.status_text().startswith("Learned it. Enforced on every query reading customers")
    sql, countries = countries_asked(assistant)
    assert "Germany" in sql and countries == {"Germany"}


def test_a_context_only_memory_says_so_with_a_hint_and_unknown_values_are_named(
        qtbot, services: tuple[Services, Any]) -> None:
    bank = services[0].bank()
    dialog = MemoryEditDialog(None, understand=lambda c, t: bank.understand(c, t, lookup=False))
    qtbot.addWidget(dialog)

    dialog.set_content("I like short answers please")
    assert understood_now(dialog).startswith("Context only: ")
    note = dialog.context_note()
    assert note.startswith("Used as context only: the model sees your words; nothing is enforced.")
    assert "To have it enforced, name a value as it is in the data, e.g." in note
    assert dialog.findChild(object, "memoryContextNote").isVisibleTo(dialog)
    assert dialog.warnings() == ""

    dialog.set_content("Only show customers from Germany or Atlantis")
    assert "customers.country IN ('Germany', 'Atlantis')" in understood_now(dialog)
    assert dialog.context_note() == ""
    assert dialog.warnings() == "Not found in customers.country: Atlantis (kept as written)."
    assert dialog.findChild(object, "memoryUnderstoodWarnings").isVisibleTo(dialog)

    dialog.set_category("entity")
    dialog.set_content("ACME is the customer with id 42")
    assert understood_now(dialog).startswith("Context only: ")
    assert "entities" in dialog.context_note() and dialog.warnings() == ""


def test_without_a_database_the_dialog_says_the_meaning_comes_later(qtbot, tmp_path: Path) -> None:
    from core.memory import JsonMemoryStore

    bank = MemoryBank(JsonMemoryStore(tmp_path / "memories"), FakeEmbedder(), tmp_path / "journal")
    dialog = MemoryEditDialog(None, understand=lambda c, t: bank.understand(c, t, lookup=False))
    qtbot.addWidget(dialog)
    dialog.set_content("Always show me customers from Germany")
    understood_now(dialog)
    assert dialog.warnings().startswith("No database is open")
    assert dialog.context_note() == ""  # no hint to rephrase: the words may be fine once a database is open


def test_saving_unchanged_words_grounds_a_memory_kept_as_context(qtbot, view: MemoryBankView,
                                                                 services: tuple[Services, Any]) -> None:
    """A memory stored while no database was open has no form; the dialog shows the filter it now reads, and OK
    saves that filter (what the dialog showed is what is enforced)."""
    found, assistant = services
    bank = found.bank()
    memory = bank.add(USER, "preference", "Always show me customers from Germany", structured={})
    assert not memory.structured
    loaded(qtbot, view)
    view.select_memory(memory.id)
    view.findChild(QPushButton, "memoryEdit").click()
    dialog = view.findChild(MemoryEditDialog)
    assert "customers.country = 'Germany'" in understood(dialog)
    with qtbot.waitSignal(view.memories_changed, timeout=5000):
        dialog.ok_button().click()
    assert bank.get(USER, memory.id).structured["value"] == "Germany"
    assert countries_asked(assistant)[1] == {"Germany"}


@pytest.mark.parametrize("text", [
    "Only show customers from Germany or " + " or ".join(f"Place{i}" for i in range(150)),
    "I like my answers explained " + "in great detail with every single assumption spelled out " * 30,
    "Only show customers from " + "Z" * 1970,
])
def test_the_dialog_fits_a_1280x720_screen_at_14_points(qtbot, services: tuple[Services, Any], text: str) -> None:
    bank = services[0].bank()
    app = QApplication.instance()
    apply_theme(app, Settings(font_size=14))
    try:
        dialog = MemoryEditDialog(None, understand=lambda c, t: bank.understand(c, t, lookup=False),
                                  database_id=services[1].database_id)
        qtbot.addWidget(dialog)
        dialog.set_content(text[:2000])
        assert understood_now(dialog) and dialog.ok_button().isEnabled()
        assert dialog.context_note() or dialog.warnings()
        dialog.show()
        dialog.adjustSize()
        assert dialog.font().pointSize() == 14
        hint, least = dialog.sizeHint(), dialog.minimumSizeHint()
        assert hint.width() <= 1280 and hint.height() <= 720 - 60, hint  # room for a title bar and a panel
        assert least.width() <= 1280 and least.height() <= 720 - 60, least
        # Opened on a 1280×720 screen a window gets at most two thirds of it: nothing is cut off even then.
        dialog.resize(min(hint.width(), 853), min(hint.height(), 453))
        qtbot.waitUntil(lambda: dialog.height() <= 453)
        QApplication.processEvents()
        buttons = dialog.findChild(QDialogButtonBox, "memoryDialogButtons")
        assert buttons.geometry().bottom() <= dialog.height() and buttons.isVisible()
        reading = dialog.findChild(QWidget, "memoryReading")
        assert reading.height() >= reading.heightForWidth(reading.width())  # longer than the area: it scrolls
        for label in reading.findChildren(QLabel):
            if label.isVisibleTo(dialog) and label.wordWrap():
                assert label.height() >= label.heightForWidth(label.width()), label.objectName()
        dialog.close()
    finally:
        apply_theme(app, Settings(theme="system"))


def understood_now(dialog: MemoryEditDialog) -> str:
    """The "Understood" line for the words as they are now (the pending preview run at once), as plain text."""
    return plain(dialog.understood_text())
