"""Asking for a connection's password when the server wants one, and reopening the last connection at start.

A saved PostgreSQL connection keeps no password in its file; the secret store may hold one (the system keyring,
or memory for this session). When none works, the server's "no password supplied" or "password authentication
failed" brings up a small masked prompt instead of an error, again with the error shown after a wrong one.
The password is kept only where the person says (keyring or this session) and never written to a file or a log.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import qtawesome as qta
from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from core.cancellation import Cancellation
from core.databases import Database, SavedConnection, SecretStore, connection_url, open_database
from core.errors import AuthenticationFailed, CairnError
from desktop.toolkit.errors import error_text
from desktop.toolkit.widgets import mark_muted
from desktop.toolkit.workers import Worker, run_in_background

__all__ = [
    "UNSAVED_NAME",
    "ConnectionAttempt",
    "PasswordAnswer",
    "PasswordDialog",
    "ask_password",
    "connection_for",
    "needs_password",
    "restore_last_connection",
]

logger = logging.getLogger(__name__)

UNSAVED_NAME = "Unsaved connection"
_ERROR_COLOR = "#d64545"


@dataclass(frozen=True)
class PasswordAnswer:
    """What the person typed in the prompt, and whether to keep it (keyring, or memory for this session)."""

    password: str
    remember: bool

    def __repr__(self) -> str:  # never show the password, even in a traceback
        return f"PasswordAnswer(password='***', remember={self.remember})"


AskPassword = Callable[..., "PasswordAnswer | None"]
"""``ask(parent, conn, *, secure, why, error)``: the person's answer, or None when they cancelled."""


def needs_password(exc: BaseException) -> bool:
    """The server refused the login for want of a (right) password: worth asking for one."""
    return isinstance(exc, AuthenticationFailed) and "password" in str(exc).lower()


def connection_for(target: str | None) -> SavedConnection | None:
    """The password-free connection a URL or SQLite path names (None for the sample or what cannot be read)."""
    if not target:
        return None
    try:
        return SavedConnection.from_url(UNSAVED_NAME, target)[0]
    except CairnError:
        return None


class PasswordDialog(QDialog):
    """A masked password field for one connection, the error that brought it up, and whether to keep it."""

    def __init__(self, conn: SavedConnection, *, secure: bool, why: str, error: str | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("passwordDialog")
        self.setWindowTitle("Password needed")
        self.setWindowIcon(qta.icon("fa5s.key"))
        self.setMinimumWidth(420)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 16, 16, 12)
        layout.setSpacing(8)
        who = f"“{conn.user}”" if conn.user else "this connection"
        intro = QLabel(f"Type the password of {who} to connect to “{conn.name}”.", self)
        intro.setWordWrap(True)
        layout.addWidget(intro)
        where = QLabel(conn.display(), self)
        where.setObjectName("passwordTarget")
        mark_muted(where)
        where.setWordWrap(True)
        layout.addWidget(where)
        self.error_label = QLabel(error or "", self)
        self.error_label.setObjectName("passwordError")
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet(f"color: {_ERROR_COLOR};")
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label.setVisible(bool(error))
        layout.addWidget(self.error_label)
        self.password_edit = QLineEdit(self)
        self.password_edit.setObjectName("passwordEdit")
        self.password_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.password_edit.setPlaceholderText("Password")
        layout.addWidget(self.password_edit)
        label = "Save in the system keyring" if secure else "Remember for this session"
        self.remember_check = QCheckBox(label, self)
        self.remember_check.setObjectName("passwordRemember")
        self.remember_check.setChecked(True)
        self.remember_check.setToolTip(why)
        layout.addWidget(self.remember_check)
        if not secure:
            note = QLabel(why, self)
            note.setObjectName("passwordNote")
            note.setWordWrap(True)
            mark_muted(note)
            layout.addWidget(note)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel,
                                        self)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Connect")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.password_edit.setFocus()

    def answer(self) -> PasswordAnswer:
        return PasswordAnswer(self.password_edit.text(), self.remember_check.isChecked())

    def done(self, result: int) -> None:
        if result != QDialog.DialogCode.Accepted:
            self.password_edit.clear()
        super().done(result)


def ask_password(parent: QWidget | None, conn: SavedConnection, *, secure: bool, why: str,
                 error: str | None = None) -> PasswordAnswer | None:
    """The default prompt: a modal :class:`PasswordDialog`; None when cancelled."""
    dialog = PasswordDialog(conn, secure=secure, why=why, error=error, parent=parent)
    try:
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        return dialog.answer()
    finally:
        dialog.password_edit.clear()
        dialog.deleteLater()


class ConnectionAttempt(QObject):
    """Opens one connection off the GUI thread (typed, stored or no password) and asks when the server wants one.

    Exactly one of ``on_ready(url)`` (the full URL, password included: never log it), ``on_failure(exc)`` or
    ``on_cancel()`` is called, on the GUI thread. A password typed in the prompt is kept in the secret store only
    after the server accepted it and only when the person chose to keep it.
    """

    def __init__(
        self,
        conn: SavedConnection,
        secrets: SecretStore,
        *,
        parent: QWidget,
        on_ready: Callable[[str], None],
        on_failure: Callable[[BaseException], None],
        on_cancel: Callable[[], None],
        opener: Callable[[str], Database] = open_database,
        ask: AskPassword = ask_password,
    ) -> None:
        super().__init__(parent)
        self._conn, self._secrets, self._parent = conn, secrets, parent
        self._on_ready, self._on_failure, self._on_cancel = on_ready, on_failure, on_cancel
        self._opener, self._ask = opener, ask
        self._worker: Worker | None = None
        self.asked = 0  # how many times the prompt came up

    def start(self, password: str | None = None, *, remember: bool = False) -> None:
        """Try ``password`` (else the stored one, else none); ``remember`` keeps it once it works."""
        conn, secrets, opener = self._conn, self._secrets, self._opener

        def work(cancel: Cancellation, _report: Callable[[object], None]) -> str:
            url = connection_url(conn, secrets, password)
            db = opener(url)
            try:
                cancel.raise_if_cancelled()
                db.schema()  # proves the login; the schema is cached for the window that opens it next
            finally:
                db.close()
            if password and remember:
                secrets.set(conn.secret_key(), password)
            return url

        self._worker = run_in_background(work, on_success=self._ready, on_failure=self._failed, receiver=self)

    def cancel(self) -> None:
        """Stop waiting: no callback is called any more."""
        if self._worker is not None:
            self._worker.cancel()
        self._on_ready = self._on_cancel = lambda *_args: None  # type: ignore[assignment]
        self._on_failure = lambda _exc: None
        self.deleteLater()

    def _ready(self, url: Any) -> None:
        self._worker = None
        self._on_ready(str(url))
        self.deleteLater()

    def _failed(self, exc: BaseException) -> None:
        self._worker = None
        if self._conn.kind not in ("postgres", "mysql") or not needs_password(exc):
            self._on_failure(exc)
            self.deleteLater()
            return
        message, _hint = error_text(exc)
        self.asked += 1
        if "no password supplied" not in message.lower():
            error: str | None = message
        else:  # none was given: nothing is wrong the first time
            error = None if self.asked == 1 else "The server needs a password; type it to connect."
        answer = self._ask(self._parent, self._conn, secure=self._secrets.secure, why=self._secrets.why,
                           error=error)
        if answer is None:
            self._on_cancel()
            self.deleteLater()
            return
        self.start(answer.password or None, remember=answer.remember)


def restore_last_connection(
    window: Any,
    store: Any,
    secrets: SecretStore | None,
    *,
    opener: Callable[[str], Database] = open_database,
    ask: AskPassword = ask_password,
) -> ConnectionAttempt | None:
    """Reconnect ``window`` to what it last connected (asking for a password when needed); the sample database
    when there is nothing to reopen, with a note in the chat when reopening failed or was cancelled."""
    try:
        conn = store.last() if store is not None and secrets is not None else None
    except CairnError as exc:
        window.start(None)
        window.chat.add_note(f"Cairn opened the sample database: {error_text(exc)[0]}")
        return None
    if conn is None or secrets is None:
        window.start(None)
        return None

    def ready(url: str) -> None:
        window.start(url, connection=conn)

    def failed(exc: BaseException) -> None:
        window.start(None, remember=False)
        window.chat.add_note(f"Could not reopen “{conn.name}”, so Cairn opened the sample database. "
                             f"{error_text(exc)[0]} Use Connect… to try again.")

    def cancelled() -> None:
        window.start(None, remember=False)
        window.chat.add_note(f"No password was given for “{conn.name}”, so Cairn opened the sample database. "
                             "Use Connect… to open it.")

    window.chat.set_busy(True, None)
    window.chat.status.setText(f"Reconnecting to {conn.name}…")
    attempt = ConnectionAttempt(conn, secrets, parent=window, on_ready=ready, on_failure=failed,
                                on_cancel=cancelled, opener=opener, ask=ask)
    attempt.start()
    return attempt
