"""The history panel over a real QuestionHistory: newest first, failures marked, search, rerun, open SQL."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QThreadPool
from PySide6.QtWidgets import QPushButton

from core.history import QUESTION, TYPED_SQL, HistoryEntry, QuestionHistory
from desktop.panels.history_view import HistoryView
from desktop.toolkit.time_text import time_ago

USER = "ann"


@pytest.fixture(autouse=True)
def _drain_pool() -> Iterator[None]:
    yield
    QThreadPool.globalInstance().waitForDone(5000)


@pytest.fixture
def history(tmp_path: Path) -> QuestionHistory:
    h = QuestionHistory(tmp_path / "history")
    now = time.time()
    h.append(USER, HistoryEntry("How many customers are there?", "SELECT COUNT(*) FROM customers", "shop",
                                row_count=1, at=now - 7200))
    h.append(USER, HistoryEntry("Top cities by revenue", None, "shop", ok=False, at=now - 600))
    h.append(USER, HistoryEntry("Orders paid by paypal", "SELECT * FROM orders WHERE payment_method = 'paypal'",
                                "shop", row_count=12, at=now - 5))
    h.append("bob", HistoryEntry("Bob's private question", "SELECT 1", "shop"))
    return h


@pytest.fixture
def view(qtbot, history: QuestionHistory) -> HistoryView:
    widget = HistoryView(history, USER)
    qtbot.addWidget(widget)
    widget.refresh()
    qtbot.waitUntil(lambda: len(widget.entries()) == 3, timeout=3000)
    return widget


def test_lists_newest_first_with_time_rows_and_failures(view: HistoryView) -> None:
    questions = [e.question for e in view.entries()]
    assert questions == ["Orders paid by paypal", "Top cities by revenue", "How many customers are there?"]
    tree = view.findChild(object, "historyList")
    newest, failed, oldest = (tree.topLevelItem(i) for i in range(3))
    assert (newest.text(1), newest.text(2)) == ("just now", "12")
    assert failed.text(1) == "10 min ago" and failed.text(2) == "failed"
    assert "This question failed" in failed.toolTip(0)
    assert "SELECT COUNT(*) FROM customers" in oldest.toolTip(0) and oldest.text(1) == "2 h ago"


def test_search_narrows_the_list(qtbot, view: HistoryView) -> None:
    qtbot.keyClicks(view.findChild(object, "historySearch"), "PAYPAL")
    qtbot.waitUntil(lambda: [e.question for e in view.entries()] == ["Orders paid by paypal"], timeout=3000)
    view.findChild(object, "historySearch").setText("nothing like this")
    qtbot.waitUntil(lambda: view.entries() == [], timeout=3000)
    assert view.findChild(object, "historyEmptyState").text() == "No question matches this search."


def test_rerun_and_open_sql_signals(qtbot, view: HistoryView) -> None:
    view.select_row(2)
    assert view.findChild(object, "historySqlPreview").toPlainText() == "SELECT COUNT(*) FROM customers"
    with qtbot.waitSignal(view.rerun_requested, timeout=1000) as rerun:
        view.findChild(QPushButton, "historyRerun").click()
    assert rerun.args == ["How many customers are there?"]
    with qtbot.waitSignal(view.sql_requested, timeout=1000) as sql:
        view.findChild(QPushButton, "historyOpenSql").click()
    assert sql.args == ["SELECT COUNT(*) FROM customers"]

    tree = view.findChild(object, "historyList")
    with qtbot.waitSignal(view.rerun_requested, timeout=1000) as double:
        tree.itemDoubleClicked.emit(tree.topLevelItem(0), 0)
    assert double.args == ["Orders paid by paypal"]

    view.select_row(1)  # the failed one has no SQL to open
    assert not view.findChild(QPushButton, "historyOpenSql").isEnabled()


def test_add_entry_prepends_live(view: HistoryView) -> None:
    view.add_entry(HistoryEntry("Average order value", "SELECT AVG(total_amount) FROM orders", "shop", row_count=1))
    assert view.entries()[0].question == "Average order value"
    assert len(view.entries()) == 4


def test_empty_history_says_so(qtbot, tmp_path: Path) -> None:
    widget = HistoryView(QuestionHistory(tmp_path / "empty"), USER)
    qtbot.addWidget(widget)
    widget.refresh()
    label = widget.findChild(object, "historyEmptyState")
    qtbot.waitUntil(lambda: label.text().startswith("No questions yet"), timeout=3000)


def test_time_ago() -> None:
    assert time_ago(1000, now=1010) == "just now"
    assert time_ago(1000, now=1000 + 300) == "5 min ago"
    assert time_ago(1000, now=1000 + 86400 * 1.5) == "yesterday"
    assert time_ago(1000, now=1000 + 86400 * 4) == "4 days ago"


# -- per database, and SQL run by hand -----------------------------------------------------------------------------


def test_only_the_current_database_unless_all_databases(qtbot, view: HistoryView, history: QuestionHistory) -> None:
    history.append(USER, HistoryEntry("Tracks per genre", "SELECT 1", "chinook", row_count=25))
    view.refresh()
    qtbot.waitUntil(lambda: len(view.entries()) == 4, timeout=3000)  # no database known yet: all of them
    view.set_database("chinook")
    qtbot.waitUntil(lambda: [e.question for e in view.entries()] == ["Tracks per genre"], timeout=3000)
    view.add_entry(HistoryEntry("A shop question", "SELECT 2", "shop"))  # asked elsewhere: not listed here
    assert len(view.entries()) == 1
    view.set_all_databases(True)
    qtbot.waitUntil(lambda: len(view.entries()) == 4, timeout=3000)
    view.set_all_databases(False)
    view.set_database("empty-db")
    label = view.findChild(object, "historyEmptyState")
    qtbot.waitUntil(lambda: label.text().startswith("No questions yet on this database"), timeout=3000)


def test_sql_run_by_hand_is_listed_and_reopens_in_the_editor(qtbot, view: HistoryView,
                                                            history: QuestionHistory) -> None:
    history.append(USER, HistoryEntry("", "SELECT name\n  FROM customers", "shop", row_count=3, path="user",
                                      kind=TYPED_SQL))
    view.refresh()
    qtbot.waitUntil(lambda: len(view.entries()) == 4, timeout=3000)
    tree = view.findChild(object, "historyList")
    assert tree.topLevelItem(0).text(0) == "SQL you ran: SELECT name FROM customers"
    view.select_row(0)
    with qtbot.waitSignal(view.sql_requested, timeout=1000) as sql:
        view.findChild(QPushButton, "historyRerun").click()
    assert sql.args == ["SELECT name\n  FROM customers"]
    with qtbot.assertNotEmitted(view.rerun_requested, wait=100):
        tree.itemDoubleClicked.emit(tree.topLevelItem(0), 0)


def test_old_history_lines_still_load(tmp_path: Path) -> None:
    history = QuestionHistory(tmp_path / "history")
    history.append(USER, HistoryEntry("placeholder", None, "shop"))
    path = next((tmp_path / "history").glob("*.jsonl"))
    old = ('{"user": "ann", "question": "Old question", "sql": "SELECT 1", "database_id": "shop", '
           '"row_count": 1, "ok": true, "path": "llm", "at": 1700000000.0}\n')
    path.write_text(old, encoding="utf-8")  # written before entries had a kind
    [entry] = history.entries(USER)
    assert entry.question == "Old question" and entry.kind == QUESTION
    assert history.entries(USER, database_id="other") == []
    assert history.search(USER, "old", database_id="shop") == [entry]


def test_a_stopped_question_reads_stopped_not_failed(view: HistoryView, tmp_path: Path) -> None:
    view.add_entry(HistoryEntry("A slow question", None, "shop", ok=False, stopped=True))
    item = view._list.topLevelItem(0)
    assert item.text(2) == "stopped" and item.toolTip(0).startswith("Stopped before it was done")
    history = QuestionHistory(tmp_path / "h")
    history.append(USER, HistoryEntry("A slow question", None, "shop", ok=False, stopped=True))
    assert history.entries(USER)[0].stopped  # kept across a restart; older lines read as not stopped
