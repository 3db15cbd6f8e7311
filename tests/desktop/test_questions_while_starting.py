"""A question typed while Cairn starts (or switches databases) waits visibly and is asked once it is ready; when
the database does not connect, or the person stops it, the words come back to the question box."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.composition import Services
from core.config import Settings
from core.history import QuestionHistory
from desktop.shell.app import AppContext
from desktop.shell.main_window import MainWindow
from tests.fakes.analyst_model import analyst_model
from tests.fakes.fake_embedder import FakeEmbedder

SQL = {"wholesale customers": "SELECT name, city, country FROM customers WHERE segment = 'wholesale'",
       "how many customers": "SELECT count(*) FROM customers"}


@pytest.fixture
def window(qtbot, fake_ollama, embedded_pg, tmp_path: Path) -> Any:
    fake_ollama.default_chat = analyst_model(SQL, {})
    settings = Settings(ollama_host=fake_ollama.url, memory_store="json")
    context = AppContext(settings=settings, history=QuestionHistory(tmp_path / "history"),
                         services=Services(settings, embedded=embedded_pg, embedder=FakeEmbedder()))
    win = MainWindow(context, "priya")
    qtbot.addWidget(win)
    yield win
    win.close()
    context.services.close()


def _type(win: MainWindow, text: str) -> None:
    win.chat.input.setText(text)
    win.chat.input.returnPressed.emit()


def _chat_text(win: MainWindow) -> str:
    from PySide6.QtWidgets import QLabel

    return " ".join(label.text() for label in win.chat.findChildren(QLabel))


def test_questions_typed_during_start_up_are_answered_in_order(qtbot, window: MainWindow) -> None:
    window.start(None)
    assert window.chat.input.isEnabled()  # usable from the first frame
    assert "Starting the database" in window.chat.status.text()
    answers: list[Any] = []
    window.answer_ready.connect(answers.append)
    _type(window, "List the wholesale customers")
    _type(window, "How many customers are there?")
    assert window.assistant is None  # still connecting: both wait, shown
    text = _chat_text(window)
    assert "List the wholesale customers" in text and "How many customers are there?" in text
    assert "Asked as soon as the database is connected" in text and "after 1 earlier question" in text
    qtbot.waitUntil(lambda: len(answers) == 2, timeout=60_000)
    assert [a.message for a in answers] == ["List the wholesale customers", "How many customers are there?"]
    assert all(a.answer is not None and a.answer.ok for a in answers)
    assert answers[1].answer.rows[0][0] > 0
    assert _chat_text(window).count("How many customers are there?") == 1  # its bubble once, not twice
    assert window.chat.status.text() == ""
    text = _chat_text(window)  # the waiting notes say what happened, not that they still wait
    assert "Asked as soon as" not in text and text.count("Waited until the database is connected; asked now.") == 2


def test_a_question_asked_while_another_runs_waits_for_it(qtbot, window: MainWindow, fake_ollama) -> None:
    with qtbot.waitSignal(window.database_ready, timeout=30_000):
        window.start(None)
    answers: list[Any] = []
    window.answer_ready.connect(answers.append)
    window.ask("List the wholesale customers")
    window.ask("How many customers are there?")  # a suggestion clicked mid-answer, say
    qtbot.waitUntil(lambda: len(answers) == 2, timeout=60_000)
    assert [a.message for a in answers] == ["List the wholesale customers", "How many customers are there?"]


def test_a_database_that_does_not_connect_gives_the_words_back(qtbot, window: MainWindow, tmp_path: Path) -> None:
    window.start(str(tmp_path / "nowhere" / "none.sqlite"))
    _type(window, "How many customers are there?")
    qtbot.waitUntil(lambda: "Not asked" in _chat_text(window), timeout=30_000)
    assert window.chat.input.text() == "How many customers are there?"
    assert "The database did not connect" in _chat_text(window)


def test_stop_takes_a_waiting_question_back(qtbot, window: MainWindow) -> None:
    window.start(None)
    _type(window, "How many customers are there?")
    assert window.menu_actions["stop"].isEnabled()
    assert not window.chat.stop.isHidden()  # the Stop button, not only Esc, while a question waits
    window.chat.stop.click()
    assert window.chat.stop.isHidden()
    assert "Not asked: taken back." in _chat_text(window) and "Asked as soon as" not in _chat_text(window)
    assert window.chat.input.text() == "How many customers are there?"
    assert len(window.pending) == 0
    answers: list[Any] = []
    window.answer_ready.connect(answers.append)
    qtbot.waitSignal(window.database_ready, timeout=30_000).wait()
    qtbot.wait(300)
    assert answers == []  # taken back: not asked behind the person's back


def _slow_connect(window: MainWindow, monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """The database takes ``seconds`` to connect (a server far away)."""
    import time as _time

    services = window.context.services
    real = services.pipeline

    def slow(target: Any) -> Any:
        _time.sleep(seconds)
        return real(target)

    monkeypatch.setattr(services, "pipeline", slow)


def test_a_switch_during_an_answer_keeps_the_order_and_one_bubble_each(qtbot, window: MainWindow,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    with qtbot.waitSignal(window.database_ready, timeout=30_000):
        window.start(None)
    answers: list[Any] = []
    window.answer_ready.connect(answers.append)
    window.ask("List the wholesale customers")
    _slow_connect(window, monkeypatch, 1.5)
    window.start(None)  # switching while the first answer is made
    window.ask("How many customers are there?")
    window.ask("How many customers are there in total?")
    qtbot.waitUntil(lambda: len(answers) == 3, timeout=60_000)
    assert [a.message for a in answers] == ["List the wholesale customers", "How many customers are there?",
                                            "How many customers are there in total?"]
    assert _chat_text(window).count("How many customers are there?") == 1


def test_asking_again_without_a_memory_waits_without_changing_the_question(qtbot, window: MainWindow) -> None:
    with qtbot.waitSignal(window.database_ready, timeout=30_000):
        window.start(None)
    answers: list[Any] = []
    window.answer_ready.connect(answers.append)
    window.ask("List the wholesale customers")
    window.ask("How many customers are there?", ["m-1"])  # a rerun without one memory, clicked meanwhile
    assert "Asked as soon as this answer is done" in _chat_text(window)
    qtbot.waitUntil(lambda: len(answers) == 2, timeout=60_000)
    assert answers[1].message == "How many customers are there?"


def test_closing_the_window_asks_nothing_that_waits(qtbot, window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> None:
    _slow_connect(window, monkeypatch, 1.0)
    asked: list[str] = []
    real_ask = window.ask
    monkeypatch.setattr(window, "ask", lambda text, exclude=None, *, shown=False: (
        asked.append(text) if shown else None, real_ask(text, exclude, shown=shown)))
    window.start(None)
    _type(window, "How many customers are there?")
    window.close()
    qtbot.wait(2500)
    assert asked == [] and len(window.pending) == 0


def test_what_is_being_typed_is_not_overwritten_when_questions_come_back(qtbot, window: MainWindow,
                                                                         tmp_path: Path) -> None:
    window.start(str(tmp_path / "nowhere" / "none.sqlite"))
    _type(window, "How many customers are there?")
    window.chat.input.setText("a draft")
    qtbot.waitUntil(lambda: "Not asked" in _chat_text(window), timeout=30_000)
    assert window.chat.input.text() == "a draft"


def test_closing_while_the_database_starts_hides_the_window_at_once(qtbot, window: MainWindow,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import desktop.toolkit.workers as workers

    _slow_connect(window, monkeypatch, 1.5)
    seen: list[bool] = []
    real_wait = workers.wait_for_workers
    monkeypatch.setattr(workers, "wait_for_workers", lambda ms: (seen.append(window.isVisible()), real_wait(ms))[1])
    window.show()
    window.start(None)
    window.close()
    assert seen == [False]  # off the screen before waiting for the start to finish
    qtbot.wait(2_000)
    assert window.memory_bank is None and window.assistant is None  # nothing built on the closed window


def test_the_next_question_can_be_typed_while_one_runs(qtbot, window: MainWindow, fake_ollama) -> None:
    with qtbot.waitSignal(window.database_ready, timeout=30_000):
        window.start(None)
    answers: list[Any] = []
    window.answer_ready.connect(answers.append)
    fake_ollama.chat_delay_s = 1.0
    _type(window, "List the wholesale customers")
    assert window.chat.busy and window.chat.input.isEnabled()
    _type(window, "How many customers are there?")  # typed while the first is being answered
    assert "Asked as soon as this answer is done" in _chat_text(window)
    qtbot.waitUntil(lambda: len(answers) == 2, timeout=60_000)
    fake_ollama.chat_delay_s = 0.0
    assert [a.message for a in answers] == ["List the wholesale customers", "How many customers are there?"]


def test_stop_ends_the_running_question_and_gives_back_the_waiting_one(qtbot, window: MainWindow,
                                                                       fake_ollama) -> None:
    with qtbot.waitSignal(window.database_ready, timeout=30_000):
        window.start(None)
    answers: list[Any] = []
    window.answer_ready.connect(answers.append)
    fake_ollama.chat_delay_s = 10.0
    _type(window, "List the wholesale customers")
    _type(window, "How many customers are there?")
    qtbot.wait(300)
    window.cancel()
    qtbot.waitUntil(lambda: len(answers) == 1, timeout=5_000)
    fake_ollama.chat_delay_s = 0.0
    assert answers[0].answer.error_kind == "QueryCancelled"
    assert window.chat.input.text() == "How many customers are there?" and len(window.pending) == 0
    qtbot.wait(300)
    assert len(answers) == 1


def test_the_chat_names_databases_as_a_person_does() -> None:
    from desktop.shell.bars import database_name

    assert database_name(None, None, "postgresql://postgres@/tmp/x/pgdata:5432/cairn_sample") == "the sample database"
    assert database_name("/home/ann/shop.sqlite", None, "/home/ann/shop.sqlite") == "shop.sqlite"
    assert database_name("postgresql://ann@db.local/sales", None, "postgresql://ann@db.local:5432/sales") == \
        "sales on db.local"

    class Saved:
        name = "Sales (prod)"

    assert database_name("postgresql://ann@db.local/sales", Saved(), "postgresql://ann@db.local/sales") == \
        "Sales (prod)"


def test_an_earlier_question_can_be_edited_and_asked_again(qtbot, window: MainWindow) -> None:
    from PySide6.QtWidgets import QToolButton

    with qtbot.waitSignal(window.database_ready, timeout=30_000):
        window.start(None)
    with qtbot.waitSignal(window.answer_ready, timeout=30_000):
        _type(window, "How many customers are there?")
    edit = window.chat.findChildren(QToolButton, "editQuestion")[-1]
    edit.click()
    assert window.chat.input.text() == "How many customers are there?"
    window.chat.input.setText("List the wholesale customers")
    with qtbot.waitSignal(window.answer_ready, timeout=30_000) as blocker:
        window.chat.input.returnPressed.emit()
    assert blocker.args[0].message == "List the wholesale customers"


def test_the_conversation_with_this_database_is_there_after_a_restart(qtbot, fake_ollama, embedded_pg,
                                                                      tmp_path: Path) -> None:
    fake_ollama.default_chat = analyst_model(SQL, {})
    settings = Settings(ollama_host=fake_ollama.url, memory_store="json")

    def open_window() -> tuple[MainWindow, AppContext]:
        context = AppContext(settings=settings, history=QuestionHistory(tmp_path / "history"),
                             services=Services(settings, embedded=embedded_pg, embedder=FakeEmbedder()))
        win = MainWindow(context, "priya")
        qtbot.addWidget(win)
        with qtbot.waitSignal(win.database_ready, timeout=30_000):
            win.start(None)
        return win, context

    first, context = open_window()
    with qtbot.waitSignal(first.answer_ready, timeout=30_000):
        _type(first, "How many customers are there?")
    first.close()
    context.services.close()
    again, context = open_window()  # a restart: same person, same data folder
    text = _chat_text(again)
    assert "How many customers are there?" in text and "with this database" in text
    again.close()
    context.services.close()
