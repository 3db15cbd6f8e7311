"""The main flows in the real window, offscreen: login, ask, teach, chips, edit in the bank, rerun without."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.composition import Services
from core.config import Settings
from core.history import QuestionHistory
from desktop.dialogs.login import LoginDialog
from desktop.shell.app import AppContext
from desktop.shell.main_window import MainWindow
from tests.fakes.analyst_model import analyst_model
from tests.fakes.fake_embedder import FakeEmbedder

SQL = {
    "wholesale customers": "SELECT name, city, country FROM customers WHERE segment = 'wholesale'",
    "high order value": "SELECT DISTINCT c.name, c.country, o.total_amount FROM customers c "
    "JOIN orders o ON o.customer_id = c.customer_id WHERE o.total_amount > 10000",
}
FACTS = {
    "customers from india": "[PREFERENCE] Only show customers from India",
    "customers from germany": "[PREFERENCE] Only show customers from Germany",
}


@pytest.fixture
def window(qtbot, fake_ollama, embedded_pg, tmp_path: Path) -> Any:
    fake_ollama.default_chat = analyst_model(SQL, FACTS)
    settings = Settings(ollama_host=fake_ollama.url, memory_store="json")
    context = AppContext(
        settings=settings,
        services=Services(settings, embedded=embedded_pg, embedder=FakeEmbedder()),
        history=QuestionHistory(tmp_path / "history"),
    )
    win = MainWindow(context, "priya")
    qtbot.addWidget(win)
    with qtbot.waitSignal(win.database_ready, timeout=30_000):
        win.start(None)
    yield win
    win.close()
    context.services.close()


def bank_text(win: MainWindow) -> str:
    """What the memory bank panel lists now."""
    if win.memory_bank is None:
        return ""
    return " | ".join(m.content for m in win.memory_bank.memories())


def ask(qtbot, win: MainWindow, text: str) -> Any:
    with qtbot.waitSignal(win.answer_ready, timeout=30_000) as blocker:
        win.chat.input.setText(text)
        win.chat.input.returnPressed.emit()
    return blocker.args[0]


def test_login_dialog_picks_or_creates_a_user(qtbot) -> None:
    dialog = LoginDialog(["rahul", "priya"], "priya")
    qtbot.addWidget(dialog)
    assert dialog.user() == "priya"
    dialog.name.setCurrentText("   ")
    assert not dialog.buttons.buttons()[0].isEnabled() or dialog.problem.text()
    dialog.name.setCurrentText("anu")
    assert dialog.user() == "anu" and dialog.problem.text() == ""


def test_ask_shows_rows_in_the_grid_and_sql(qtbot, window: MainWindow) -> None:
    reply = ask(qtbot, window, "List the wholesale customers")
    assert reply.answer is not None and reply.answer.ok
    assert window.results.model.rowCount() == reply.answer.row_count > 10
    assert "wholesale" in window.sql_editor.sql()
    assert window.history_view is not None


def test_teach_preference_then_chip_and_filtered_rows(qtbot, window: MainWindow) -> None:
    reply = ask(qtbot, window, "Always show me customers from India")
    assert reply.answer is None and reply.text == "Preference stored — no SQL executed"
    qtbot.waitUntil(lambda: "India" in bank_text(window), timeout=10_000)

    reply = ask(qtbot, window, "List the wholesale customers")
    answer = reply.answer
    assert answer.ok and answer.memories and {row[2] for row in answer.rows} == {"India"}
    chips = [w for w in window.chat.findChildren(object) if getattr(w, "objectName", lambda: "")() == "memoryChip"]
    assert chips and "India" in chips[-1].text()

    # Rerun without that memory: unfiltered rows.
    memory_id = answer.memories[0].id
    with qtbot.waitSignal(window.answer_ready, timeout=30_000) as blocker:
        window.chat.rerun_without_requested.emit("List the wholesale customers", memory_id)
    assert len({row[2] for row in blocker.args[0].answer.rows}) > 1


def test_edit_in_the_bank_changes_the_next_answer(qtbot, window: MainWindow) -> None:
    ask(qtbot, window, "Always show me customers from India")
    qtbot.waitUntil(lambda: "India" in bank_text(window), timeout=10_000)
    bank = window.context.services.bank()
    [memory] = bank.list("priya")
    bank.edit("priya", memory.id, content="Only show customers from Germany",
              structured={"kind": "filter", "table": "customers", "column": "country", "op": "=",
                          "value": "Germany", "sql": "customers.country = 'Germany'"})
    window.memory_changed.emit()
    qtbot.waitUntil(lambda: "Germany" in bank_text(window), timeout=10_000)
    answer = ask(qtbot, window, "List the wholesale customers").answer
    assert answer.ok and {row[2] for row in answer.rows} == {"Germany"}


def test_stop_cancels_a_long_query_in_the_database(qtbot, window: MainWindow, fake_ollama, sample_db_uri) -> None:
    import psycopg

    heavy = "SELECT count(*) FROM generate_series(1, 3000000000) AS g(x)"
    fake_ollama.default_chat = analyst_model({"count to three billion": heavy})
    with qtbot.waitSignal(window.answer_ready, timeout=30_000) as blocker:
        window.chat.input.setText("Count to three billion")
        window.chat.input.returnPressed.emit()
        qtbot.waitUntil(lambda: window.chat.stop.isVisibleTo(window.chat), timeout=5_000)
        qtbot.wait(800)
        window.chat.stop.click()
    answer = blocker.args[0].answer
    assert answer.error_kind == "QueryCancelled"
    with psycopg.connect(sample_db_uri) as conn:
        running = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%3000000000%' AND state = 'active' "
            "AND pid <> pg_backend_pid()"
        ).fetchone()
    assert running == (0,)
    assert window.chat.input.isEnabled()


def test_hand_typed_sql_that_cairn_changed_says_so(qtbot, window: MainWindow) -> None:
    typed = "SELECT nme FROM customers LIMIT 3"
    window.tabs.setCurrentWidget(window.sql_editor)
    window.sql_editor.set_sql(typed)
    window.run_sql(typed)
    qtbot.waitUntil(lambda: not window.sql_editor.running, timeout=30_000)
    assert window.results.model.rowCount() == 3
    assert "changed your SQL" in window.sql_editor.status_label.text()
    assert window.tabs.currentWidget() is window.sql_editor  # the note stays in sight; the rows are a key away
    assert "Results tab" in window.statusBar().currentMessage()
    assert "nme" not in window.sql_editor.sql() and "name" in window.sql_editor.sql()
    window.sql_editor.edit.undo()
    assert window.sql_editor.sql() == typed
    window.run_sql("SELECT name FROM customers LIMIT 2")  # SQL that runs as typed: straight to its rows
    qtbot.waitUntil(lambda: window.results.model.rowCount() == 2, timeout=30_000)
    assert window.tabs.currentWidget() is window.results


def test_the_answer_shows_before_learning_finishes(qtbot, window: MainWindow, fake_ollama) -> None:
    """Learning (a second model call) runs after the answer is on screen, not before it."""
    import time

    base = fake_ollama.default_chat

    def slow_learning(body: dict) -> str:
        reply = base(body)
        if "Output ONLY one valid SQL" not in body["messages"][0]["content"]:
            time.sleep(1.5)  # extraction: a slow second call
        return reply

    fake_ollama.default_chat = slow_learning
    learned: list[object] = []
    window.learning_done.connect(learned.append)
    started = time.monotonic()
    reply = ask(qtbot, window, "List the wholesale customers")
    shown_after = time.monotonic() - started
    assert reply.answer.ok and learned == []  # the rows are on screen; learning still running
    qtbot.waitUntil(lambda: len(learned) == 1, timeout=30_000)
    assert shown_after < 1.5


def test_the_status_bar_follows_ollama_and_the_model(qtbot, window: MainWindow, fake_ollama) -> None:
    qtbot.waitUntil(lambda: "✓" in window.ollama_label.text(), timeout=10_000)
    fake_ollama.remove_model("qwen2.5-coder:7b")
    window.check_ollama()
    qtbot.waitUntil(lambda: window.ollama_label.text() == "Model qwen2.5-coder:7b not installed", timeout=10_000)
    assert "Models…" in window.ollama_label.toolTip()
    fake_ollama.add_model("qwen2.5-coder:7b")
    window.check_ollama()
    qtbot.waitUntil(lambda: "✓" in window.ollama_label.text(), timeout=10_000)


def test_stop_during_a_slow_model_returns_at_once(qtbot, window: MainWindow, fake_ollama) -> None:
    import time

    ask(qtbot, window, "List the wholesale customers")
    shown = window.results.model.rowCount()
    fake_ollama.chat_delay_s = 10.0
    window.tabs.setCurrentWidget(window.chart)
    window.chat.input.setText("List the wholesale customers")
    with qtbot.waitSignal(window.answer_ready, timeout=5_000) as blocker:
        window.chat.input.returnPressed.emit()
        qtbot.wait(400)
        started = time.monotonic()
        window.cancel()
    assert time.monotonic() - started < 0.5 + 0.5  # the reply is back within half a second of Stop (+ Qt slack)
    fake_ollama.chat_delay_s = 0.0
    answer = blocker.args[0].answer
    assert answer is not None and not answer.ok and answer.error_kind == "QueryCancelled"
    assert window.tabs.currentWidget() is window.chart  # no SQL to show: no jump to an empty SQL tab
    assert window.results.model.rowCount() == shown > 0  # the last answer's rows stay


def test_a_failed_connect_keeps_the_database_in_use(qtbot, window: MainWindow, tmp_path: Path) -> None:
    ask(qtbot, window, "List the wholesale customers")
    missing = str(tmp_path / "nowhere" / "none.sqlite")
    before = window.assistant
    window.start(missing)
    qtbot.waitUntil(lambda: "Still using" in _chat_text(window), timeout=30_000)
    assert window.assistant is before and window.target is None
    assert "not connected" not in window.db_label.text()
    reply = ask(qtbot, window, "List the wholesale customers")  # the next question still works
    assert reply.answer is not None and reply.answer.ok


def test_switching_databases_clears_what_belongs_to_the_old_one(qtbot, window: MainWindow, tmp_path: Path) -> None:
    import sqlite3

    ask(qtbot, window, "List the wholesale customers")
    assert window.results.model.rowCount() > 0
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE t(x INTEGER)")
    with qtbot.waitSignal(window.database_ready, timeout=30_000):
        window.start(str(other))
    assert window.target == str(other) and window.results.model.rowCount() == 0
    assert "Now connected to" in _chat_text(window) and window.sql_editor.sql() == ""


def _chat_text(win: MainWindow) -> str:
    from PySide6.QtWidgets import QLabel

    return " ".join(label.text() for label in win.chat.findChildren(QLabel))


def test_keyboard_recall_stop_and_focus(qtbot) -> None:
    from PySide6.QtCore import Qt

    from desktop.chat.chat_panel import ChatPanel

    chat = ChatPanel()
    qtbot.addWidget(chat)
    chat.show()
    for text in ("first question", "second question"):
        chat.input.setText(text)
        chat._submit()
    qtbot.keyClick(chat.input, Qt.Key.Key_Up)
    assert chat.input.text() == "second question"
    qtbot.keyClick(chat.input, Qt.Key.Key_Up)
    assert chat.input.text() == "first question"
    qtbot.keyClick(chat.input, Qt.Key.Key_Down)
    qtbot.keyClick(chat.input, Qt.Key.Key_Down)
    assert chat.input.text() == ""
    chat.set_busy(True, "generate")
    with qtbot.waitSignal(chat.cancel_requested, timeout=1000):
        chat._escape()


def test_a_single_value_is_stated_in_the_chat() -> None:
    from decimal import Decimal

    from desktop.chat.chat_words import one_value as _one_value

    assert _one_value("delivered_orders", 591) == "591 · delivered orders"
    assert _one_value("revenue", Decimal("1234567.5")) == "1,234,567.50 · revenue"
    assert _one_value("n", None) == "— · n"


def test_the_status_says_the_stage_and_the_time_taken(qtbot) -> None:
    from desktop.chat.chat_panel import ChatPanel

    chat = ChatPanel()
    qtbot.addWidget(chat)
    chat.set_busy(True, "load_embedder")
    assert chat.status.text().startswith("Loading the embedding model")
    chat.show_stage("generate")
    qtbot.waitUntil(lambda: chat.status.text().startswith("The model is writing SQL…") and " s" in chat.status.text(),
                    timeout=3_000)
    chat.show_stage(41)  # the streamed reply's running token count
    assert "The model is writing SQL…  · 41 tokens" in chat.status.text()
    chat.show_stage(46)
    assert chat.status.text().count("tokens") == 1 and "46 tokens" in chat.status.text()
    chat.show_stage("run")
    assert "tokens" not in chat.status.text()
    chat.set_busy(False)
    assert chat.status.text() == ""


def test_hints_in_the_window_name_its_menus_not_command_line_flags() -> None:
    """Every error's default hint, and the engine's own hints in the chat, read in the window's words."""
    import inspect
    import re

    import core.errors as errors
    from desktop.toolkit.errors import window_hint

    for _name, cls in inspect.getmembers(errors, inspect.isclass):
        if issubclass(cls, errors.CairnError):
            hint = window_hint(cls.default_hint)
            assert "`" not in hint and not re.search(r"(?<!\w)--[a-z]|\bcairn [a-z]", hint), hint
    assert window_hint("Rephrase with the table or column names (see `cairn schema`), or edit the SQL.") == \
        "Rephrase with the table or column names (see the Schema panel), or edit the SQL."
    assert "Models…" in window_hint("Pull it with `ollama pull x`, or pick an installed model with --model.")
    from core.config import SETTINGS_FIX_HINT

    for hint in (SETTINGS_FIX_HINT, "2 rules wait for your confirmation (Memory bank, or `cairn memory keep`)."):
        shown = window_hint(hint)
        assert "`" not in shown and not re.search(r"(?<!\w)--[a-z]|\bcairn [a-z]", shown), shown


def test_notes_in_the_chat_are_in_the_window_s_words(qtbot) -> None:
    from PySide6.QtWidgets import QLabel

    from desktop.chat.chat_panel import ChatPanel

    chat = ChatPanel()
    qtbot.addWidget(chat)
    chat.add_note("2 rules wait for your confirmation (Memory bank, or `cairn memory keep`).")
    chat.add_error("The SQL names a column that is not there.", "Run `cairn schema` to see them.")
    shown = " ".join(label.text() for label in chat.findChildren(QLabel))
    assert "`" not in shown and "cairn " not in shown and "Schema panel" in shown


def test_closing_the_window_mid_question_cuts_the_model_at_once(qtbot, fake_ollama, embedded_pg,
                                                                tmp_path: Path) -> None:
    """Closing while a slow model streams its reply: the window closes within a second, not after the call."""
    import time

    settings = Settings(ollama_host=fake_ollama.url, memory_store="json")
    context = AppContext(settings=settings, services=Services(settings, embedded=embedded_pg,
                                                              embedder=FakeEmbedder()),
                         history=QuestionHistory(tmp_path / "history"))
    win = MainWindow(context, "priya")
    qtbot.addWidget(win)
    with qtbot.waitSignal(win.database_ready, timeout=30_000):
        win.start(None)
    fake_ollama.chat_chunk_delay_s = 0.2
    fake_ollama.enqueue_chat("SELECT 1" + " + 1" * 100)  # 20 s of streaming
    try:
        win.chat.input.setText("How many customers are there?")
        win.chat.submit()
        qtbot.waitUntil(lambda: len(fake_ollama.chat_requests()) == 1, timeout=5_000)
        qtbot.wait(300)
        started = time.monotonic()
        win.close()
        took = time.monotonic() - started
    finally:
        fake_ollama.chat_chunk_delay_s = 0.0
        context.services.close()
    assert took < 1.0, took


def test_chat_text_is_plain_text_never_markup(qtbot) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QLabel

    from desktop.chat.chat_panel import ChatPanel

    chat = ChatPanel()
    qtbot.addWidget(chat)
    chat.add_question("<b>bold</b> & <a href='http://x'>link</a>")
    labels = [w for w in chat.findChildren(QLabel) if "bold" in w.text()]
    assert labels and all(w.textFormat() == Qt.TextFormat.PlainText for w in labels)


def test_a_memory_learned_in_chat_says_where_it_applies_and_can_apply_everywhere(qtbot, window: MainWindow) -> None:
    from core.memory import ALL_DATABASES
    from desktop.memory.memory_scope import ScopeLine

    reply = ask(qtbot, window, "Always show only customers from India")
    learned = reply.changes[0].after[0]
    assert learned.database_id == window.assistant.database_id  # learned for the database it was said about
    line = window.chat.findChildren(ScopeLine)[-1]
    assert line.label.text() == "Applies to this database only." and line.switch.text() == "Every database"
    line.switch.click()
    qtbot.waitUntil(lambda: line.everywhere, timeout=10_000)
    bank = window.context.services.bank()
    assert bank.get(window.user, learned.id).database_id == ALL_DATABASES
    assert line.label.text() == "Applies to every database." and line.switch.isEnabled()
    line.switch.click()  # and back
    qtbot.waitUntil(lambda: not line.everywhere, timeout=10_000)
    assert bank.get(window.user, learned.id).database_id == window.assistant.database_id


def test_an_answer_pinned_stays_in_a_tab_beside_the_next(qtbot, window: MainWindow) -> None:
    from PySide6.QtWidgets import QToolButton

    from desktop.panels.result_view import ResultView

    ask(qtbot, window, "List the wholesale customers")
    wholesale = window.results.model.rowCount()
    window.results.pin_button.click()
    pinned = window.tabs.currentWidget()
    assert isinstance(pinned, ResultView) and pinned is not window.results
    assert window.tabs.tabText(window.tabs.indexOf(pinned)).startswith("List the wholesale")
    ask(qtbot, window, "How many customers are there?")
    assert window.results.model.rowCount() == 1 and pinned.model.rowCount() == wholesale  # both to compare
    close = window.tabs.tabBar().tabButton(window.tabs.indexOf(pinned), window.tabs.tabBar().ButtonPosition.RightSide)
    assert isinstance(close, QToolButton)
    close.click()
    qtbot.waitUntil(lambda: window.tabs.count() == 3, timeout=2_000)  # Results, Chart and SQL stay


def test_what_a_walk_through_found(qtbot, window: MainWindow, monkeypatch) -> None:
    """File → Export with nothing to export says so; Tab leaves the grid; Ctrl+Enter in the question box asks what
    is typed there even with the SQL tab shown; a talk reply is plain words."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QFileDialog, QMessageBox

    told: list[str] = []
    monkeypatch.setattr(QMessageBox, "information", lambda parent, title, text, *a: told.append(text))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: ("/tmp/never.png", "")))
    window.menu_actions["export_chart"].trigger()
    window.menu_actions["export_csv"].trigger()
    assert len(told) == 2 and "no chart to export" in told[0] and "no rows to export" in told[1]
    assert not window.results.table.tabKeyNavigation()
    reply = ask(qtbot, window, "hi")
    assert reply.answer is None and window.chat.findChildren(type(window.chat.status), "memoryConfirmation") == []
    ask(qtbot, window, "List the wholesale customers")
    window.tabs.setCurrentWidget(window.sql_editor)
    window.show()
    qtbot.waitExposed(window)
    window.chat.input.setFocus()
    window.chat.input.setText("How many customers are there?")
    with qtbot.waitSignal(window.answer_ready, timeout=30_000) as blocker:
        qtbot.keyClick(window.chat.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert blocker.args[0].message == "How many customers are there?"


def test_the_login_takes_the_name_typed_not_a_longer_saved_one(qtbot) -> None:
    from desktop.dialogs.login import LoginDialog

    dialog = LoginDialog(["annika", "bob"], "bob")
    qtbot.addWidget(dialog)
    dialog.show()
    edit = dialog.name.lineEdit()
    edit.selectAll()
    qtbot.keyClicks(edit, "ann")  # a saved name starts with it: no inline completion to "annika"
    assert dialog.user() == "ann"
