"""Ctrl+F finds words in the conversation (issue 30: searchable like a chat app): every match in reading order,
restored turns included, shown one at a time; Esc closes the bar without stopping a running answer."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from desktop.shell.main_window import MainWindow
from tests.desktop.test_main_window import ask, window  # noqa: F401 - the fixture


def test_ctrl_f_finds_each_mention_in_order_and_wraps(qtbot, window: MainWindow) -> None:  # noqa: F811
    window.show()
    qtbot.waitExposed(window)
    ask(qtbot, window, "List the wholesale customers")
    ask(qtbot, window, "How many customers are there?")
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    bar = window.chat.find
    assert bar.isVisible() and bar.field.hasFocus()
    qtbot.keyClicks(bar.field, "CUSTOMERS")  # any case
    assert bar.matches >= 2
    first = bar.current
    assert first is not None and "customers" in first.text().casefold()
    assert first.property("findMatch") is True and first.selectedText().casefold() == "customers"
    assert bar.count.text() == f"1 of {bar.matches}"
    qtbot.keyClick(bar.field, Qt.Key.Key_Return)
    assert bar.count.text() == f"2 of {bar.matches}"
    assert first.property("findMatch") is False  # one match framed at a time
    qtbot.keyClick(bar.field, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClick(bar.field, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert bar.count.text() == f"{bar.matches} of {bar.matches}"  # back past the first: the last
    bar.field.setText("no such words anywhere")
    assert bar.matches == 0 and bar.count.text() == "No match" and bar.current is None
    qtbot.keyClick(bar.field, Qt.Key.Key_Escape)
    assert not bar.isVisible()


def test_the_empty_state_text_is_not_searched(qtbot, window: MainWindow) -> None:  # noqa: F811
    window.chat.find_in_conversation()
    window.chat.find.field.setText("Ask a question")  # words of the empty-state hint only
    assert window.chat.find.matches == 0


def test_esc_in_the_find_bar_closes_it_and_does_not_stop_the_answer(qtbot, window: MainWindow,  # noqa: F811
                                                                     fake_ollama) -> None:
    window.show()
    qtbot.waitExposed(window)
    answers: list[Any] = []
    window.answer_ready.connect(answers.append)
    fake_ollama.chat_delay_s = 1.5
    try:
        window.ask("List the wholesale customers")
        qtbot.waitUntil(lambda: window.menu_actions["stop"].isEnabled(), timeout=2_000)
        window.chat.find_in_conversation()
        qtbot.keyClick(window.chat.find.field, Qt.Key.Key_Escape)
        assert not window.chat.find.isVisible()
        qtbot.waitUntil(lambda: len(answers) == 1, timeout=15_000)
    finally:
        fake_ollama.chat_delay_s = 0.0
    assert answers[0].answer.ok  # not cancelled
