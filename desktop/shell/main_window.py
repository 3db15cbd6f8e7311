"""The main window: chat on the left, results / chart / SQL in the middle, memory bank, history and schema docks.

It only wires widgets to core objects from the composition root; every slow call goes through
``run_in_background`` so the window never freezes.
"""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QEventLoop, Qt, Signal
from PySide6.QtWidgets import QApplication, QDockWidget, QLabel, QMainWindow, QSplitter, QVBoxLayout, QWidget

from core.errors import CairnError
from core.history import HistoryEntry
from core.llm import cancellable, token_progress
from desktop.memory.verified_examples import FeedbackQueue
from desktop.chat.chat_panel import ChatPanel
from desktop.sharing.suggestions import WindowSharing
from desktop.shell.bars import database_name, earlier_turns
from desktop.shell.file_drop import FileDrop
from desktop.toolkit.errors import error_text, show_error
from desktop.toolkit.widgets import mark_muted
from desktop.toolkit.workers import Worker, run_in_background

__all__ = ["MainWindow"]

logger = logging.getLogger(__name__)


class MainWindow(QMainWindow):
    answer_ready = Signal(object)
    """An Assistant Reply arrived (answer or memory confirmation)."""
    memory_changed = Signal()
    """The chat stored, changed or deleted a memory."""
    database_ready = Signal(object)
    """The database is connected and its schema read (the Schema)."""
    learning_done = Signal(object)
    """Learning from an answered question finished in the background (the UpdateReports that changed memory)."""

    def __init__(self, context: Any, user: str) -> None:
        super().__init__()
        self.context = context
        self.user = user
        self.assistant: Any = None
        self._worker: Worker | None = None
        self._last_question = ""
        self.target: str | None = None  # None = the embedded sample database; else a URL or SQLite path
        self._connecting: str | None = None  # the target being connected (becomes ``target`` once it is)
        self._assistant_services: Any = None  # the services the assistant was built from
        self.setWindowTitle(f"Cairn — {user}")
        self.setObjectName("mainWindow")
        from desktop.shell.window_geometry import fit_to_screen, restore_geometry

        if not restore_geometry(self):
            fit_to_screen(self)

        from desktop.panels.history_view import HistoryView
        from desktop.panels.schema_browser import SchemaBrowser
        from desktop.shell.result_tabs import build_tabs

        self.chat = ChatPanel()
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.chat)
        splitter.addWidget(build_tabs(self))  # self.results, .chart, .sql_editor in self.tabs
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([470, 530])
        self._splitter = splitter
        from desktop.models.ollama_watch import FirstRunBanner

        self.banner = FirstRunBanner()
        central = QWidget()
        column = QVBoxLayout(central)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.banner)
        column.addWidget(splitter, 1)
        self.setCentralWidget(central)
        self._file_drop = FileDrop(self, lambda conn: self.start(conn.url(), connection=conn))

        self.memory_bank: Any = None
        self._memory_dock = self._dock("Memory bank", "memoryDock", self._placeholder("Loading memories…"))
        self.history_view = HistoryView(context.history, user)
        self._history_dock = self._dock("History", "historyDock", self.history_view)
        self.schema_browser = SchemaBrowser()
        self._schema_dock = self._dock("Schema", "schemaDock", self.schema_browser)
        self.tabifyDockWidget(self._memory_dock, self._history_dock)
        self.tabifyDockWidget(self._history_dock, self._schema_dock)
        self._memory_dock.raise_()
        self._docks_sized = False

        from desktop.shell.bars import build_status_bar, build_toolbar

        build_toolbar(self)
        build_status_bar(self)
        from desktop.shell.menus import build_menus

        self.menu_actions = build_menus(self)
        self.chat.busy_changed.connect(lambda busy: self.menu_actions["stop"].setEnabled(busy or bool(self.pending)))
        from desktop.shell.pending_questions import PendingQuestions

        self.pending = PendingQuestions(self.chat, lambda text, exclude: self.ask(text, exclude, shown=True))
        self._starting = False  # connecting a database: questions wait in ``pending``
        self._closing = False
        self.banner.models_requested.connect(self.open_model_manager)
        self.banner.check_requested.connect(self.check_ollama)

        self.chat.message_submitted.connect(self.ask)
        self.chat.cancel_requested.connect(self.cancel)
        self.chat.rerun_without_requested.connect(lambda q, mid: self.ask(q, exclude=[mid]))
        self.chat.memory_show_requested.connect(self._show_memory)
        self.chat.alternative_requested.connect(self.run_sql)
        self.chat.feedback_given.connect(self._feedback)
        # A rule under a reply: kept, kept as context only or edited by the memory bank, which then refreshes.
        self.chat.keep_requested.connect(lambda *args: self.memory_bank and self.memory_bank.keep(*args))
        self.chat.context_requested.connect(lambda *args: self.memory_bank and self.memory_bank.context_only(*args))
        self.chat.scope_requested.connect(lambda *args: self.memory_bank and self.memory_bank.set_scope(*args))
        self.chat.edit_requested.connect(lambda mid: self.memory_bank and self.memory_bank.edit_memory(mid))
        self._feedback_queue = FeedbackQueue(self)
        self._feedback_queue.recorded.connect(self._feedback_recorded)
        self.sql_editor.run_requested.connect(self.run_sql)
        self.history_view.rerun_requested.connect(self.ask)
        self.history_view.sql_requested.connect(self._open_sql)
        self.schema_browser.insert_requested.connect(self._insert_name)
        self.sharing = WindowSharing(self)  # other agents' suggestions under answers; answers shared after

    # -- layout helpers ------------------------------------------------------------------------------

    def _placeholder(self, text: str) -> QLabel:
        label = QLabel(text)
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        return mark_muted(label)

    def _dock(self, title: str, name: str, widget: QWidget) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                         | QDockWidget.DockWidgetFeature.DockWidgetFloatable)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        return dock

    # -- start-up (all off the GUI thread) -----------------------------------------------------------

    def start(self, target: str | None = None, connection: Any = None, *, remember: bool = True) -> None:
        """Connect the database and memory, warm the embedding model and check Ollama, in the background.
        ``connection``: the password-free SavedConnection behind ``target``, remembered for the next start once
        connected unless ``remember`` is False (a fallback to the sample)."""
        from desktop.connections.password_prompt import connection_for

        # The database in use stays until the new one is connected: a failed Connect keeps it.
        self._connecting = target
        if connection is None and target is not None:  # the same target again keeps its name
            connection = getattr(self, "connection", None) if target == self.target else connection_for(target)
        self._connecting_connection = connection
        self._remember_connection = remember and (target is None or connection is not None)
        if self.assistant is not None and self._assistant_services is not self.context.services:
            self.assistant = None  # its services were rebuilt (settings changed): it cannot answer any more
        self._starting = True
        self.chat.set_starting("Starting the database…")  # the question box stays usable: questions wait
        services, user = self.context.services, self.user

        def connect(cancel: Any, report: Any) -> tuple[Any, Any, Any, list[Any]]:
            pipeline = services.pipeline(target)
            schema = pipeline.database.schema()
            report("memory")
            store = services.store()
            return pipeline, schema, store, earlier_turns(store, user)

        run_in_background(connect, on_success=self._on_connected, on_failure=self._on_connect_failed,
                          receiver=self)
        self.check_ollama()
        embedder = services.embedder()
        if hasattr(embedder, "warm_up"):
            run_in_background(lambda c, r: embedder.warm_up(), on_failure=self._on_embedder_failed, receiver=self)

    def _on_connected(self, result: tuple[Any, Any, Any, list[Any]]) -> None:
        from desktop.memory.memory_bank import MemoryBankView

        pipeline, schema, store, earlier = result
        if self._closing:  # closed while it started: nothing more to show
            return
        services = self.context.services
        switched = self.assistant is not None and self.target != self._connecting
        self.target = self._connecting
        self.connection = self._connecting_connection  # password-free; None = the sample database
        self.history_view.set_database(pipeline.database.id)
        connections, remembered = self.context.connections, self.connection
        if connections is not None and self._remember_connection:  # restored at the next start
            run_in_background(lambda c, r: connections.remember_last(remembered), receiver=self,
                              on_failure=lambda exc: logger.warning("last connection not remembered: %s", exc))
        self.assistant = services.assistant(self.target, pipeline=pipeline)
        self._assistant_services = services
        self.sql_editor.set_explainer(lambda sql: services.explain(sql, pipeline=pipeline), planner=lambda sql, cancel:
                                      services.query_plan(sql, pipeline=pipeline, cancel=cancel))
        name = database_name(self.target, self.connection, pipeline.database.id)
        if switched:  # another database: what is on screen belongs to the old one
            self.results.clear("No results yet for this database")
            self.chart.clear()
            self.sql_editor.set_sql("")
            self.chat.add_note(f"Now connected to {name}. Earlier answers above are from the previous database.")
        self.chat.show_earlier(earlier, pipeline.database.id)  # the last turns with it (into an empty chat only)
        self.assistant.learn_after_answer = False  # the answer shows first; learning follows in the background
        self.schema_browser.set_schema(schema, set(self.context.settings.hidden.get(pipeline.database.id, [])))
        self.sql_editor.set_schema(schema)
        self.db_label.setText(f"Database: {name}")
        self.db_label.setToolTip(pipeline.database.id)
        describe = getattr(store, "describe", None)
        text = describe() if describe else type(store).__name__
        short = text.split(",", 1)[0].removeprefix("memory: ").removeprefix("Memory: ")  # the rest on hover
        self.store_label.setText(f"Memory: {short}")
        self.store_label.setToolTip(text)
        self.memory_bank = MemoryBankView(services.bank(), self.user, database_id=pipeline.database.id)
        self._memory_dock.setWidget(self.memory_bank)
        self.memory_changed.connect(self.memory_bank.on_memory_changed)
        self._starting = False
        self.chat.set_starting(None)
        self.database_ready.emit(schema)
        self._ask_next()

    def _on_connect_failed(self, exc: BaseException) -> None:
        self._starting = False
        self.chat.set_starting(None)
        message, hint = error_text(exc)
        self.chat.add_error(message, hint)
        self.pending.give_back("The database did not connect.")
        if self.assistant is not None:  # still connected to the database in use before
            in_use = database_name(self.target, self.connection, self.assistant.database_id)
            self.chat.add_note(f"Still using {in_use}.")
        else:
            self.db_label.setText("Database: not connected")

    def check_ollama(self) -> None:
        """Ask Ollama again now (it is also asked every 15 s): the status label and the first-run banner follow."""
        self.ollama_watch.check()

    def _on_embedder_failed(self, exc: BaseException) -> None:
        message, hint = error_text(exc)
        self.statusBar().showMessage(f"{message} {hint}", 15000)

    # -- asking --------------------------------------------------------------------------------------

    def ask(self, text: str, exclude: list[str] | None = None, *, shown: bool = False) -> None:
        """Ask ``text`` (``shown``: its bubble is on screen already); while the database connects, it waits."""
        if self.assistant is None and not self._starting:
            self.chat.add_error("No database is connected.", "Connect one (Connect… on the toolbar) and ask again.")
            return
        if self._starting or self.chat.busy:
            self.pending.hold(text, exclude, shown_as=text if not exclude else f"{text}  (without one memory)",
                              behind_answer=not self._starting)
            self.menu_actions["stop"].setEnabled(True)
            return
        assistant, user, history = self.assistant, self.user, self.context.history
        self._last_question = text
        if not shown:
            self.chat.add_question(text if not exclude else f"{text}  (without one memory)")
        warm = getattr(self.context.services.embedder(), "loaded", True)
        self.chat.set_busy(True, "load_schema" if warm else "load_embedder")

        def work(cancel: Any, report: Any) -> Any:
            with token_progress(lambda n: report(n) if n % 5 == 1 else None):  # "writing SQL… 41 tokens"
                reply = assistant.handle(user, text, cancel=cancel, on_stage=report, exclude=exclude or ())
            answer = reply.answer
            if answer is not None and answer.error_kind != "InputError":  # history is a convenience: never fails
                history.record(user, HistoryEntry(
                    question=text, sql=answer.sql or answer.rejected_sql, database_id=assistant.database_id,
                    row_count=answer.row_count, ok=answer.ok, path=answer.path,
                    stopped=answer.error_kind == "QueryCancelled"))
            return reply

        self._worker = run_in_background(work, on_success=self._on_reply, on_failure=self._on_failed,
                                         on_progress=self.chat.show_stage, receiver=self)

    def run_current(self) -> None:
        """Ctrl+Enter: ask what is typed in the question box when it has the keyboard, else run the SQL when the SQL
        tab is shown, else ask."""
        typing = self.chat.input.hasFocus() and bool(self.chat.input.text().strip())
        if not typing and self.tabs.currentWidget() is self.sql_editor and self.sql_editor.sql().strip():
            self.run_sql(self.sql_editor.sql())
        else:
            self.chat.submit()

    def ask_again(self) -> None:
        if self._last_question and not self.chat.busy:
            self.ask(self._last_question)

    def explain_sql(self) -> None:
        """Ctrl+Shift+X: the SQL tab, with what its SQL does in plain words."""
        self.tabs.setCurrentWidget(self.sql_editor)
        self.sql_editor.explain()

    def reset_layout(self) -> None:
        """Docks back on the right, tabbed, at their first proportions."""
        for dock in (self._memory_dock, self._history_dock, self._schema_dock):
            dock.setFloating(False)
            dock.show()
            self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        self.tabifyDockWidget(self._memory_dock, self._history_dock)
        self.tabifyDockWidget(self._history_dock, self._schema_dock)
        self._memory_dock.raise_()
        self._size_docks()

    def cancel(self) -> None:
        """Esc / Stop: the answer being made stops, and the questions waiting come back to the question box."""
        self.pending.give_back("Stopped.")
        if self._worker is not None:
            self._worker.cancel()
            self.chat.show_stage("Cancelling…")  # the stage clock keeps it, with the seconds

    def _on_reply(self, reply: Any) -> None:
        self._worker = None
        self.chat.set_busy(False)
        self.chat.add_reply(reply)
        answer = reply.answer
        if answer is not None:
            self._show_answer(answer)
            self.history_view.refresh()
        self._memory_changes(reply.changes)
        self.answer_ready.emit(reply)
        self.sharing.after_answer(reply)  # off the GUI thread, after the answer is shown; nothing when off
        if answer is not None and answer.ok and self.assistant is not None \
                and not self.assistant.learn_after_answer:
            self._learn_later(reply.message)
        self._ask_next()

    def _memory_changes(self, changes: Any) -> None:
        changed = [m.id for c in changes for m in c.after] + [m.id for c in changes for m in c.before]
        if changes:
            self.memory_changed.emit()
            if self.memory_bank is not None:
                self.memory_bank.highlight(changed)

    def _learn_later(self, message: str) -> None:
        """After the answer is on screen: extraction and update, off the GUI thread (a second model call)."""
        assistant, user = self.assistant, self.user
        self.statusBar().showMessage("Learning from your question…")

        def done(result: Any) -> None:
            reports, notes = result
            self.statusBar().clearMessage()
            if reports:
                self.chat.add_note(" ".join(notes), reports)  # with the rules learned, to confirm
                self._memory_changes(reports)
            self.learning_done.emit(reports)

        def failed(exc: BaseException) -> None:
            self.statusBar().clearMessage()
            logger.info("learning failed: %s", exc)
            self.learning_done.emit([])

        def work(cancel: Any, _report: Any) -> Any:
            with cancellable(cancel):  # closing the window cuts the learning model call too
                return assistant.learn(user, message)

        run_in_background(work, on_success=done, on_failure=failed, receiver=self)

    def _feedback(self, question: str, sql: str, verdict: str, thumbs: Any) -> None:
        """A thumb on an answer: logged, and the verified examples follow it (in order, off the GUI thread)."""
        if self.assistant is None:
            return
        recorder, user, db, model = (self.context.services.feedback(), self.user, self.assistant.database_id,
                                     self.context.settings.model)
        self._feedback_queue.submit(lambda: recorder.record(verdict, user=user, database_id=db, question=question,
                                                            sql=sql, model=model), thumbs)

    def _feedback_recorded(self, outcome: Any) -> None:
        self.statusBar().showMessage(outcome.text, 8000)
        if self.memory_bank is not None and self.memory_bank.examples_view is not None:
            self.memory_bank.examples_view.refresh()

    def _show_answer(self, answer: Any) -> None:
        if answer.error_kind == "QueryCancelled":  # stopped: the last answer's rows, chart and SQL stay
            return
        self.results.show_answer(answer)
        if answer.ok:
            self.chart.show_answer(answer)
        sql = answer.sql or answer.rejected_sql or ""
        self.sql_editor.show_answer_sql(sql)
        if answer.ok or sql:  # a failure with SQL shows the SQL; one without any leaves the tabs alone
            self.tabs.setCurrentWidget(self.results if answer.ok else self.sql_editor)

    def _on_failed(self, exc: BaseException) -> None:
        self._worker = None
        self.chat.set_busy(False)
        message, hint = error_text(exc)
        self.chat.add_error(message, hint)
        self._ask_next()

    def _ask_next(self) -> None:
        """The next waiting question, once a database is connected and no answer is being made."""
        if not self._starting and not self.chat.busy and self.assistant is not None and not self._closing:
            self.pending.release()

    def run_sql(self, sql: str) -> None:
        """Run SQL from the editor through the same guard, checks and read-only executor."""
        if self.assistant is None:
            return
        from core.history import TYPED_SQL

        pipeline, history, user, database_id = (self.assistant.pipeline, self.context.history, self.user,
                                                 self.assistant.database_id)
        self.sql_editor.set_running(True)

        def work(cancel: Any, report: Any) -> Any:
            answer = pipeline.run_sql(sql, cancel=cancel)
            if answer.error_kind != "InputError":  # the SQL as typed, marked as run by hand
                history.record(user, HistoryEntry("", sql, database_id, answer.row_count, answer.ok, answer.path,
                                                  kind=TYPED_SQL, stopped=answer.error_kind == "QueryCancelled"))
            return answer

        def done(answer: Any) -> None:
            self.sql_editor.set_running(False)
            self.history_view.refresh()
            changed = self.sql_editor.show_ran(sql, answer.sql or "", [n for n in answer.notes if "->" in n])
            self.results.show_answer(answer)
            if answer.ok:
                self.chart.show_answer(answer)
                if changed:  # the note on the SQL tab comes first; the rows are a key away
                    self.statusBar().showMessage("Ran the changed SQL: the rows are on the Results tab (Ctrl+1).", 15000)
                else:
                    self.tabs.setCurrentWidget(self.results)
            else:
                show_error(self, _AnswerError(answer))

        def failed(exc: BaseException) -> None:
            self.sql_editor.set_running(False)
            show_error(self, exc)

        run_in_background(work, on_success=done, on_failure=failed, receiver=self)

    # -- other panels --------------------------------------------------------------------------------

    def _show_memory(self, memory_id: str) -> None:
        self._memory_dock.raise_()
        if self.memory_bank is not None:
            self.memory_bank.highlight([memory_id])

    def _open_sql(self, sql: str) -> None:
        self.sql_editor.set_sql(sql)
        self.tabs.setCurrentWidget(self.sql_editor)

    def _insert_name(self, name: str) -> None:
        self.chat.input.insert(name)
        self.chat.input.setFocus()

    def open_connections(self) -> None:
        self.context.open_connections(self)

    def open_model_manager(self) -> None:
        self.context.open_model_manager(self)

    def open_settings(self) -> None:
        self.context.open_settings(self)

    def open_quality(self) -> None:
        self.context.open_quality(self)

    def set_model_label(self, model: str) -> None:
        self.model_label.setText(f"Model: {model}")
        self.check_ollama()

    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt naming
        super().showEvent(event)
        if not self._docks_sized:  # docks only take a size once the window has one
            self._docks_sized = True
            self._size_docks()

    def _size_docks(self) -> None:
        """The docks a quarter of the width (never under 280 px); chat and answer share the rest evenly."""
        dock = max(280, self.width() // 4)
        self.resizeDocks([self._memory_dock], [dock], Qt.Orientation.Horizontal)
        rest = max(2, self.width() - dock)
        self._splitter.setSizes([rest * 9 // 20, rest * 11 // 20])

    def closeEvent(self, event: Any) -> None:  # noqa: N802 - Qt naming
        from desktop.shell.window_geometry import save_geometry
        from desktop.toolkit.workers import wait_for_workers

        save_geometry(self)
        self.hide()  # gone from the screen now, even while a database start finishes below
        QApplication.processEvents(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents)
        self._closing = True
        self.pending.drop()  # closing: nothing waiting is asked behind the person's back
        if self._worker is not None:
            self._worker.cancel()  # a model call or query in progress stops now, not after its timeout
        wait_for_workers(5000)
        super().closeEvent(event)


class _AnswerError(CairnError):
    """An Answer's error shown through the one error display."""

    def __init__(self, answer: Any) -> None:
        super().__init__(answer.error or "Could not run the SQL.", hint=answer.hint)
