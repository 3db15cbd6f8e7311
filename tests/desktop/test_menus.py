"""The menu bar and its shortcuts, and the first-run banner (issue 13): one owner per key, the keys do what the
menu says, and a missing Ollama or model says what to do and goes away once fixed."""

from __future__ import annotations

from collections import Counter
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QToolButton

from desktop.models.ollama_watch import FirstRunBanner, OllamaState
from desktop.shell.main_window import MainWindow
from tests.desktop.test_main_window import ask, window  # noqa: F401 - the fixture


_CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


def _window_keys(win: MainWindow) -> Counter[str]:
    """Every key sequence an enabled window-wide action or shortcut listens to."""
    keys: Counter[str] = Counter()
    for action in win.findChildren(QAction):
        if action.shortcutContext() != Qt.ShortcutContext.WindowShortcut:
            continue
        for seq in action.shortcuts():
            keys[seq.toString()] += 1
    for shortcut in win.findChildren(QShortcut):
        if shortcut.isEnabled() and shortcut.context() == Qt.ShortcutContext.WindowShortcut \
                and not shortcut.key().isEmpty():
            keys[shortcut.key().toString()] += 1
    return keys


def test_every_key_has_one_owner_and_the_standard_ones_exist(qtbot, window: MainWindow) -> None:  # noqa: F811
    keys = _window_keys(window)
    assert [k for k, n in keys.items() if n > 1] == []
    for key in ("Ctrl+Return", "Esc", "Ctrl+L", "Ctrl+,", "Ctrl+Shift+C", "Ctrl+Shift+X", "Ctrl+Q", "Ctrl+1"):
        assert keys[QKeySequence(key).toString()] == 1, key
    titles = [a.text().replace("&", "") for a in window.menuBar().actions()]
    assert titles == ["File", "Edit", "Query", "View", "Tools", "Help"]


def test_keys_do_what_the_menu_says(qtbot, window: MainWindow) -> None:  # noqa: F811
    window.show()
    qtbot.waitExposed(window)
    window.chat.input.setText("List the wholesale customers")
    window.chat.input.setFocus()
    with qtbot.waitSignal(window.answer_ready, timeout=30_000):
        qtbot.keyClick(window.chat.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert window.results.model.rowCount() > 0

    qtbot.keyClick(window, Qt.Key.Key_3, Qt.KeyboardModifier.ControlModifier)
    assert window.tabs.currentWidget() is window.sql_editor
    window.sql_editor.set_sql("SELECT name FROM customers WHERE country = 'India'")
    window.results.clear()
    qtbot.keyClick(window.sql_editor.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.results.model.rowCount() > 0, timeout=10_000)

    window.sql_editor.edit.setFocus()
    qtbot.keyClick(window.sql_editor.edit, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    assert window.chat.input.hasFocus()
    assert not window.menu_actions["stop"].isEnabled()  # Esc belongs to other widgets when nothing runs


def test_esc_stops_a_question_in_progress(qtbot, window: MainWindow, fake_ollama) -> None:  # noqa: F811
    window.show()
    qtbot.waitExposed(window)
    fake_ollama.chat_delay_s = 10.0
    try:
        window.chat.input.setText("List the wholesale customers")
        with qtbot.waitSignal(window.answer_ready, timeout=5_000) as blocker:
            window.chat.submit()
            qtbot.waitUntil(lambda: window.menu_actions["stop"].isEnabled(), timeout=2_000)
            qtbot.wait(300)
            qtbot.keyClick(window, Qt.Key.Key_Escape)
    finally:
        fake_ollama.chat_delay_s = 0.0
    assert blocker.args[0].answer.error_kind == "QueryCancelled"


def test_the_shortcut_list_names_every_key(qtbot, window: MainWindow) -> None:  # noqa: F811
    from desktop.shell.menus import shortcut_table

    table = dict(shortcut_table(window.menu_actions))
    assert "Copy SQL" in table and "Stop" in table and "Up / Down" in table.values()
    assert all("Help" not in keys.split(", ") and "Exit" not in keys.split(", ") for keys in table.values())


def test_first_run_banner_says_what_to_do_and_leaves_once_fixed(qtbot, window: MainWindow, fake_ollama) -> None:  # noqa: F811
    qtbot.waitUntil(lambda: window.ollama_watch.state is not None and window.ollama_watch.state.ready,
                    timeout=10_000)
    assert not window.banner.isVisibleTo(window)
    fake_ollama.remove_model("qwen2.5-coder:7b")
    window.check_ollama()
    qtbot.waitUntil(lambda: window.banner.isVisibleTo(window), timeout=10_000)
    assert "not installed" in window.banner.title.text() and window.banner.models_button.isVisibleTo(window)
    opened: list[Any] = []
    window.context.open_model_manager = lambda parent: opened.append(parent)
    window.banner.models_button.click()
    assert opened == [window]
    fake_ollama.add_model("qwen2.5-coder:7b")
    window.banner.check_button.click()
    qtbot.waitUntil(lambda: not window.banner.isVisibleTo(window), timeout=10_000)


def test_banner_when_ollama_is_not_running_and_dismiss(qtbot) -> None:
    banner = FirstRunBanner()
    qtbot.addWidget(banner)
    down = OllamaState(False, "qwen2.5-coder:7b", message="connection refused", host="http://127.0.0.1:1")
    banner.show_state(down)
    assert not banner.isHidden()
    assert "not running" in banner.title.text() and "ollama serve" in banner.body.text()
    assert "No Ollama answered at http://127.0.0.1:1." in banner.body.text()  # where it looked
    assert banner.models_button.isHidden()
    banner.findChild(QToolButton, "bannerClose").click()
    banner.show_state(down)
    assert banner.isHidden()  # dismissed stays dismissed for the same state
    banner.show_state(OllamaState(True, "qwen2.5-coder:7b", "0.5", installed=False))
    assert not banner.isHidden()  # a new problem shows again


def test_ctrl_shift_x_explains_the_sql_from_the_model_and_from_its_structure_without_it(
        qtbot, window: MainWindow, fake_ollama) -> None:  # noqa: F811
    window.show()
    qtbot.waitUntil(window.isActiveWindow, timeout=3_000)  # window-wide shortcuts need the active window
    window.sql_editor.set_sql("SELECT name FROM customers WHERE country = 'India'")
    panel = window.sql_editor.explanation_panel
    fake_ollama.enqueue_chat("It lists the names of customers who are in India.")
    window.chat.input.setFocus()  # typing a question: a line edit keeps plain Ctrl+E (end of line) for itself
    qtbot.keyClick(window.chat.input, Qt.Key.Key_X, _CTRL_SHIFT)
    assert window.tabs.currentWidget() is window.sql_editor
    qtbot.waitUntil(lambda: "customers who are in India" in panel.text.toPlainText(), timeout=10_000)
    assert fake_ollama.chat_requests()[-1]["messages"][-1]["content"].count("country = 'India'") == 1

    fake_ollama.remove_model("qwen2.5-coder:7b")  # no model: the SQL is read from its parsed structure
    try:
        window.sql_editor.set_sql("SELECT count(*) FROM orders WHERE status IS NOT NULL")
        qtbot.keyClick(window.sql_editor.edit, Qt.Key.Key_X, _CTRL_SHIFT)
        qtbot.waitUntil(lambda: "orders" in panel.text.toPlainText() and "not empty" in panel.text.toPlainText(),
                        timeout=10_000)
        assert "not installed" in panel.source.text()
    finally:
        fake_ollama.add_model("qwen2.5-coder:7b")


def _front_dock(win: MainWindow) -> str:
    """The title of the dock in front in the tabbed dock area."""
    from PySide6.QtWidgets import QTabBar

    bars = [b for b in win.findChildren(QTabBar) if "Memory bank" in [b.tabText(i) for i in range(b.count())]]
    return bars[0].tabText(bars[0].currentIndex())


def test_view_menu_brings_each_dock_to_the_front_by_menu_and_key(qtbot, window: MainWindow) -> None:  # noqa: F811
    window.show()
    qtbot.waitExposed(window)
    docks = {"Ctrl+Shift+M": window._memory_dock, "Ctrl+Shift+H": window._history_dock,
             "Ctrl+Shift+S": window._schema_dock}
    for key, dock in docks.items():
        action = window.menu_actions[f"dock_{dock.objectName()}"]
        assert action.isEnabled() and QKeySequence(key) in action.shortcuts()
    for key, dock in [*docks.items(), *docks.items()]:  # each in turn, from any other in front
        window.chat.input.setFocus()
        qtbot.keyClick(window.chat.input, QKeySequence(key)[0].key(), _CTRL_SHIFT)
        qtbot.wait(50)  # the key event, then the dock area re-lays out
        qtbot.waitUntil(lambda d=dock: _front_dock(window) == d.windowTitle(), timeout=2_000)
    window.menu_actions["dock_historyDock"].trigger()
    qtbot.waitUntil(lambda: _front_dock(window) == "History", timeout=2_000)
