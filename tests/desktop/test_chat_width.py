"""At 1280×720 and 14 pt the window stays on the screen: chat replies and the working status wrap in the chat
column, and nothing it shows while answering makes the window wider (issue 30, item 1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication, QLabel

from core.composition import Services
from core.config import Settings
from core.history import QuestionHistory
from desktop.shell.app import AppContext, apply_theme
from desktop.shell.main_window import MainWindow
from tests.fakes.analyst_model import analyst_model
from tests.fakes.fake_embedder import FakeEmbedder

WIDTH, HEIGHT = 1280, 720


@pytest.fixture
def big_font_window(qtbot, qapp, fake_ollama, embedded_pg, tmp_path: Path) -> Any:
    fake_ollama.default_chat = analyst_model({"how many customers": "SELECT count(*) FROM customers",
                                              "wholesale customers": "SELECT name, city, country FROM customers "
                                                                     "WHERE segment = 'wholesale'"}, {})
    settings = Settings(ollama_host=fake_ollama.url, memory_store="json", font_size=14)
    apply_theme(qapp, settings)
    context = AppContext(settings=settings, history=QuestionHistory(tmp_path / "history"),
                         services=Services(settings, embedded=embedded_pg, embedder=FakeEmbedder()))
    win = MainWindow(context, "ann")
    qtbot.addWidget(win)
    win.resize(WIDTH, HEIGHT)
    win.show()
    with qtbot.waitSignal(win.database_ready, timeout=30_000):
        win.start(None)
    yield win
    win.close()
    context.services.close()
    apply_theme(qapp, Settings())


def _ask(qtbot, win: MainWindow, text: str) -> Any:
    with qtbot.waitSignal(win.answer_ready, timeout=30_000) as blocker:
        win.ask(text)
    return blocker.args[0]


def test_replies_and_the_working_status_wrap_and_the_window_stays_on_screen(qtbot, big_font_window) -> None:
    win = big_font_window
    for text in ("hi", "Always show only customers from India", "what tables do you have?",
                 "List the wholesale customers", "How many customers are there?"):
        _ask(qtbot, win, text)
        qtbot.wait(50)
        assert win.width() <= WIDTH, f"after {text!r} the window is {win.width()} px wide"
    win.chat.set_busy(True, "check_answer")  # the longest stage, with a token count and seconds
    win.chat.show_stage(41)
    qtbot.wait(50)
    assert win.width() <= WIDTH and win.chat.status.height() > 0
    win.chat.set_busy(False)
    viewport = win.chat.findChild(QLabel, "chatStatus").parentWidget().width()
    long_labels = [label for label in win.chat.findChildren(QLabel) if label.isVisible() and label.wordWrap()]
    assert long_labels and all(label.width() <= viewport for label in long_labels)
    assert win.chat._content.minimumSizeHint().width() <= viewport  # nothing (a memory chip…) wider than the column
    win._splitter.setSizes([300, win._splitter.width() - 300])  # the chat made narrow by hand
    qtbot.wait(50)
    assert win.chat._content.minimumSizeHint().width() <= win.chat.scroll.viewport().width()


def test_the_chart_tab_leaves_the_chat_its_width_and_the_sql_follows_the_font(qtbot, big_font_window) -> None:
    win = big_font_window
    _ask(qtbot, win, "List the wholesale customers")
    before = win.chat.width()
    for tab in (win.chart, win.sql_editor, win.results, win.chart):
        win.tabs.setCurrentWidget(tab)
        qtbot.wait(50)
    assert win.chat.width() >= before * 0.9, (before, win.chat.width())
    assert win.width() <= WIDTH
    assert abs(win.sql_editor.edit.font().pointSizeF() - 14) < 0.6
    apply_theme(QApplication.instance(), Settings(font_size=11))  # changed in Settings while the window is open
    qtbot.wait(50)
    assert abs(win.sql_editor.edit.font().pointSizeF() - 11) < 0.6


def test_dock_titles_follow_a_font_size_changed_while_the_window_is_open(qtbot, big_font_window) -> None:
    from PySide6.QtWidgets import QDockWidget

    win = big_font_window
    dock = next(d for d in win.findChildren(QDockWidget) if d.isVisible())

    def title_height() -> int:
        return dock.widget().geometry().top()

    at_14 = title_height()
    apply_theme(QApplication.instance(), Settings(font_size=22))
    qtbot.wait(50)
    assert title_height() > at_14  # the title bar grew with its text (it kept its old height before)
    apply_theme(QApplication.instance(), Settings(font_size=9))
    qtbot.wait(50)
    assert title_height() < at_14


def test_a_small_window_keeps_the_chat_wide_enough_to_type_in(qtbot, big_font_window) -> None:
    win = big_font_window
    win.resize(1046, 500)
    win._splitter.setSizes([10, 2000])  # dragged all the way, or a small screen
    qtbot.wait(50)
    assert win.chat.width() >= win.chat.fontMetrics().averageCharWidth() * 34
    assert win.chat.input.width() > win.chat.send.width()  # the question box, not "A…"


def test_the_status_bar_gives_up_width_in_a_narrow_window(qtbot, big_font_window) -> None:
    win = big_font_window
    win.db_label.setText("Database: a saved connection with a really quite long name on a far server")
    qtbot.wait(20)
    label = win.db_label  # cut with "…" rather than holding the window wide
    assert label.minimumSizeHint().width() < label.sizeHint().width() / 3
    assert win.statusBar().minimumSizeHint().width() < win.statusBar().sizeHint().width()
    assert win.db_label.text().endswith("far server")  # the whole text is kept (and read by the code)
