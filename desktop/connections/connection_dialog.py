"""Pick, edit, test and save database connections. Passwords go to the secret store, never to the JSON file.

Every call that may block (keyring, database, file) runs through :func:`desktop.toolkit.workers.run_in_background`.
The fields themselves live in :class:`desktop.connections.connection_form.ConnectionForm`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import qtawesome as qta
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from core.cancellation import Cancellation
from core.databases import (
    ConnectionStore,
    SavedConnection,
    connection_url,
    delete_connection,
    save_connection,
)
from core.databases import Database, open_database
from core.errors import ConfigError
from core.databases import SecretStore
from desktop.connections.connection_form import POSTGRES_TAB, SQLITE_TAB, ConnectionForm
from desktop.connections.password_prompt import AskPassword, ConnectionAttempt, ask_password
from desktop.toolkit.errors import error_text
from desktop.toolkit.widgets import mark_muted, push_button
from desktop.toolkit.workers import Worker, run_in_background

__all__ = ["POSTGRES_TAB", "SQLITE_TAB", "ConnectionDialog"]

logger = logging.getLogger(__name__)


class ConnectionDialog(QDialog):
    """Saved connections on the left; a PostgreSQL / SQLite form on the right; Test, Save, Delete, Connect."""

    connection_chosen = Signal(str)
    """The person chose a connection: its full URL, password included (never log or show it)."""
    target_chosen = Signal(object, object)
    """The person chose a database: (full URL or None for the sample, the password-free SavedConnection or None)."""

    def __init__(
        self,
        store: ConnectionStore,
        secrets: SecretStore,
        *,
        opener: Callable[[str], Database] = open_database,
        ask: AskPassword = ask_password,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._store = store
        self._secrets = secrets
        self._opener = opener
        self._ask = ask  # the password prompt (a plain function, so tests can answer it)
        self._attempt: ConnectionAttempt | None = None  # a Connect in progress
        self._editing: str | None = None  # name of the saved connection shown in the form
        self._workers: dict[object, Worker] = {}  # running background calls, cancelled on close
        self.setObjectName("connectionDialog")
        self.setWindowTitle("Database connections")
        self.setWindowIcon(qta.icon("fa5s.database"))
        self.resize(820, 480)
        self._build()
        self.reload()

    # -- building ------------------------------------------------------------------------------------------

    def _build(self) -> None:
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self._build_list())
        splitter.addWidget(self._build_form())
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([240, 580])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 10, 10, 10)
        layout.addWidget(splitter)

    def _build_list(self) -> QWidget:
        box = QWidget(self)
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 8, 0)
        layout.addWidget(QLabel("<b>Saved connections</b>", box))
        self.list_widget = QListWidget(box)
        self.list_widget.setObjectName("connectionList")
        self.list_widget.currentItemChanged.connect(self._on_selected)
        self.list_widget.itemDoubleClicked.connect(lambda _item: self.connect_chosen())
        layout.addWidget(self.list_widget, 1)
        self.empty_label = QLabel("No saved connections yet.\nFill in the form and press Save.", box)
        self.empty_label.setObjectName("emptyListLabel")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        mark_muted(self.empty_label)
        layout.addWidget(self.empty_label)
        row = QHBoxLayout()
        self.new_button = push_button(box, "fa5s.plus", "New", "newButton", "Start a new connection (Ctrl+N)",
                                      self.new_connection, QKeySequence.StandardKey.New)
        self.delete_button = push_button(box, "fa5s.trash-alt", "Delete", "deleteButton",
                                         "Delete the selected connection and its saved password (Del)",
                                         self.delete_selected)
        delete_key = QShortcut(QKeySequence.StandardKey.Delete, self.list_widget)
        delete_key.setContext(Qt.ShortcutContext.WidgetShortcut)
        delete_key.activated.connect(self.delete_selected)
        row.addWidget(self.new_button)
        row.addWidget(self.delete_button)
        row.addStretch(1)
        layout.addLayout(row)
        self.sample_button = push_button(box, "fa5s.flask", "Sample database (embedded)", "sampleButton",
                                         "Switch back to the sample shop database that comes with Cairn",
                                         self.choose_sample)
        layout.addWidget(self.sample_button)
        return box

    def _build_form(self) -> QWidget:
        box = QWidget(self)
        layout = QVBoxLayout(box)
        layout.setContentsMargins(8, 0, 0, 0)
        layout.setSpacing(8)
        self.form = form = ConnectionForm(self._secrets, box)
        form.url_filled.connect(lambda: self._set_status("Filled in from the URL.", "fa5s.check"))
        form.url_rejected.connect(self._show_error)
        layout.addWidget(form, 1)
        # The form's widgets are also the dialog's attributes (dialog.host_edit is dialog.form.host_edit).
        self.name_edit, self.tabs, self.url_edit = form.name_edit, form.tabs, form.url_edit
        self.host_edit, self.port_spin, self.database_edit = form.host_edit, form.port_spin, form.database_edit
        self.user_edit, self.password_edit, self.ssl_combo = form.user_edit, form.password_edit, form.ssl_combo
        self.remember_check, self.secrets_note = form.remember_check, form.secrets_note
        self.sqlite_path_edit, self.browse_button = form.sqlite_path_edit, form.browse_button
        status_row = QHBoxLayout()
        self.status_icon = QLabel(box)
        self.status_icon.setObjectName("statusIcon")
        self.status_icon.setFixedWidth(20)
        self.status_label = QLabel("", box)
        self.status_label.setObjectName("statusLabel")
        self.status_label.setWordWrap(True)
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        status_row.addWidget(self.status_icon, 0, Qt.AlignmentFlag.AlignTop)
        status_row.addWidget(self.status_label, 1)
        layout.addLayout(status_row)
        layout.addLayout(self._build_buttons(box))
        return box

    def _build_buttons(self, parent: QWidget) -> QHBoxLayout:
        row = QHBoxLayout()
        self.test_button = push_button(parent, "fa5s.plug", "Test connection", "testButton",
                                       "Connect and read the schema, without saving (Ctrl+T)",
                                       self.test_connection, "Ctrl+T")
        self.save_button = push_button(parent, "fa5s.save", "Save", "saveButton",
                                       "Save this connection; the password goes to the secret store (Ctrl+S)",
                                       self.save, QKeySequence.StandardKey.Save)
        self.close_button = push_button(parent, None, "Close", "closeButton", "Close without connecting (Esc)",
                                        self.reject)
        self.connect_button = push_button(parent, "fa5s.play", "Connect", "connectButton",
                                          "Use this connection (Enter or Ctrl+Enter)", self.connect_chosen,
                                          "Ctrl+Return")
        self.connect_button.setDefault(True)
        row.addWidget(self.test_button)
        row.addStretch(1)
        row.addWidget(self.save_button)
        row.addWidget(self.close_button)
        row.addWidget(self.connect_button)
        return row

    # -- list ----------------------------------------------------------------------------------------------

    def reload(self, select: str | None = None) -> None:
        """Re-read the saved connections (a small local file) and select ``select`` if given."""
        try:
            saved = self._store.list()
        except ConfigError as exc:
            saved = []
            self._show_error(exc)
        self.list_widget.blockSignals(True)
        self.list_widget.clear()
        for conn in saved:
            icon = qta.icon("fa5s.server" if conn.kind in ("postgres", "mysql") else "fa5s.file")
            item = QListWidgetItem(icon, conn.name)
            item.setData(Qt.ItemDataRole.UserRole, conn)
            item.setToolTip(conn.display())
            self.list_widget.addItem(item)
        self.list_widget.blockSignals(False)
        self.empty_label.setVisible(not saved)
        self.delete_button.setEnabled(bool(saved))
        if select is not None:
            self.select(select)

    def saved_names(self) -> list[str]:
        return [self.list_widget.item(i).text() for i in range(self.list_widget.count())]

    def select(self, name: str) -> bool:
        """Select the saved connection ``name`` and show it in the form."""
        for i in range(self.list_widget.count()):
            if self.list_widget.item(i).text() == name:
                self.list_widget.setCurrentRow(i)
                return True
        return False

    def _on_selected(self, current: QListWidgetItem | None, _previous: QListWidgetItem | None) -> None:
        if current is None:
            return
        conn = current.data(Qt.ItemDataRole.UserRole)
        if isinstance(conn, SavedConnection):
            self._editing = conn.name
            self.form.show_connection(conn)
            self._set_status("", None)

    def new_connection(self) -> None:
        """Clear the form for a connection that is not saved yet."""
        self.list_widget.clearSelection()
        self.list_widget.setCurrentRow(-1)
        self._editing = None
        self.form.clear()
        self._set_status("", None)
        self.form.name_edit.setFocus()

    def fill_from_url(self, text: str) -> bool:
        """Fill the form from a pasted URL (see :meth:`ConnectionForm.fill_from_url`); the outcome shows inline."""
        return self.form.fill_from_url(text)

    def form_connection(self, *, require_name: bool = True) -> SavedConnection:
        """The connection the form describes (no password). Raises ConfigError when it is incomplete."""
        return self.form.form_connection(require_name=require_name)

    def _checked_form(self, *, require_name: bool) -> SavedConnection | None:
        """The form's connection, or None after showing why it is incomplete."""
        if not self.form.apply_pending_url():
            return None
        try:
            return self.form.form_connection(require_name=require_name)
        except ConfigError as exc:
            self._show_error(exc)
            return None

    # -- actions -------------------------------------------------------------------------------------------

    def test_connection(self) -> None:
        """Open the connection and read its schema off the GUI thread; the result shows inline."""
        conn = self._checked_form(require_name=False)
        if conn is None:
            return
        password, secrets, opener = self.form.typed_password(), self._secrets, self._opener

        def work(cancel: Cancellation, _report: Callable[[object], None]) -> int:
            db = opener(connection_url(conn, secrets, password))
            try:
                cancel.raise_if_cancelled()
                return len(db.schema(refresh=True).tables)
            finally:
                db.close()

        self._set_status("Testing the connection…", "fa5s.hourglass-half")
        self._start(work, self._on_test_ok, button=self.test_button)

    def _on_test_ok(self, tables: Any) -> None:
        self._set_status(f"Connected: {tables} table{'s' if tables != 1 else ''}", "fa5s.check-circle")

    def save(self) -> None:
        """Save the form as a connection; the password goes to the secret store (keyring or this session)."""
        conn = self._checked_form(require_name=True)
        if conn is None:
            return
        password, remember = self.form.typed_password(), self.form.remember_password()
        previous, store, secrets = self._editing, self._store, self._secrets

        def work(_cancel: Cancellation, _report: Callable[[object], None]) -> SavedConnection:
            return save_connection(store, secrets, conn, password, remember=remember, previous=previous)

        self._start(work, self._on_saved, button=self.save_button)

    def _on_saved(self, conn: Any) -> None:
        self.reload(select=conn.name)
        self.form.password_edit.clear()
        where = "the system keyring" if self._secrets.secure else "memory for this session"
        self._set_status(f"Saved “{conn.name}”. Any password is kept in {where}.", "fa5s.check")

    def delete_selected(self) -> None:
        """Delete the selected saved connection and its stored password."""
        item = self.list_widget.currentItem()
        if item is None:
            return
        name, store, secrets = item.text(), self._store, self._secrets

        def work(_cancel: Cancellation, _report: Callable[[object], None]) -> str:
            delete_connection(store, secrets, name)
            return name

        self._start(work, self._on_deleted, button=self.delete_button)

    def _on_deleted(self, name: Any) -> None:
        self.reload()
        self.new_connection()
        self._set_status(f"Deleted “{name}”.", "fa5s.trash-alt")

    def connect_chosen(self) -> None:
        """Log in with the typed, stored or no password (asking for one when the server wants it), then emit
        ``target_chosen`` and ``connection_chosen`` and close. A failure shows inline and the dialog stays."""
        conn = self._checked_form(require_name=False)
        if conn is None or self._attempt is not None:
            return

        def finish() -> None:
            self._attempt = None
            self.connect_button.setEnabled(True)

        def ready(url: str) -> None:
            finish()
            self.target_chosen.emit(url, conn)
            self.connection_chosen.emit(url)
            self.accept()

        def failed(exc: BaseException) -> None:
            finish()
            self._show_error(exc)

        def cancelled() -> None:
            finish()
            self._set_status("Not connected: no password was given.", "fa5s.info-circle")

        self.connect_button.setEnabled(False)
        self._set_status(f"Connecting to “{conn.name}”…", "fa5s.hourglass-half")
        self._attempt = ConnectionAttempt(conn, self._secrets, parent=self, on_ready=ready, on_failure=failed,
                                          on_cancel=cancelled, opener=self._opener, ask=self._ask)
        self._attempt.start(self.form.typed_password())

    def choose_sample(self) -> None:
        """Switch back to the embedded sample database."""
        self.target_chosen.emit(None, None)
        self.accept()

    # -- plumbing ------------------------------------------------------------------------------------------

    def _start(
        self,
        work: Callable[[Cancellation, Callable[[object], None]], Any],
        on_success: Callable[[Any], None],
        *,
        button: QPushButton,
    ) -> None:
        """Run ``work`` off the GUI thread with ``button`` disabled meanwhile; failures show inline."""
        token = object()

        def finish() -> None:
            self._workers.pop(token, None)
            button.setEnabled(True)

        def succeeded(value: Any) -> None:
            finish()
            on_success(value)

        def failed(exc: BaseException) -> None:
            finish()
            self._show_error(exc)

        button.setEnabled(False)
        self._workers[token] = run_in_background(work, on_success=succeeded, on_failure=failed, receiver=self)

    def busy(self) -> bool:
        """True while a test, save, delete or connect is still running."""
        return bool(self._workers) or self._attempt is not None

    def done(self, result: int) -> None:
        for worker in list(self._workers.values()):
            worker.cancel()
        if self._attempt is not None:
            self._attempt.cancel()
            self._attempt = None
        super().done(result)

    def _show_error(self, exc: BaseException) -> None:
        message, hint = error_text(exc)
        self._set_status(f"{message}\n{hint}", "fa5s.exclamation-triangle")

    def _set_status(self, text: str, icon: str | None) -> None:
        self.status_label.setText(text)
        if icon is None:
            self.status_icon.clear()
        else:
            self.status_icon.setPixmap(qta.icon(icon).pixmap(16, 16))
