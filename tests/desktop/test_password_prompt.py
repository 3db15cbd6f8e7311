"""The password prompt: a saved connection with no password at hand asks for one (a real scram login on the
embedded server), and the last connection is reopened at start, or the sample with a note why not."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict
from PySide6.QtCore import QThreadPool
from PySide6.QtWidgets import QCheckBox, QLabel, QLineEdit, QWidget

from core.config import config_dir, data_dir
from core.databases import ConnectionStore, EmbeddedPostgres, SavedConnection, default_connections_path
from core.databases.connections._secrets import SessionSecretStore
from desktop.connections.password_prompt import (
    ConnectionAttempt,
    PasswordAnswer,
    PasswordDialog,
    connection_for,
    needs_password,
    restore_last_connection,
)
from tests.conftest import shared_data_path

ROLE = "cairn_prompt_test"
SECRET = "pr0mpt-Pa55:w@rd"


@pytest.fixture(autouse=True)
def _drain_pool() -> Iterator[None]:
    yield
    QThreadPool.globalInstance().waitForDone(5000)


class Prompt:
    """The prompt as a plain function: answers in turn, and the error each call showed."""

    def __init__(self, *answers: PasswordAnswer | None) -> None:
        self.answers = list(answers)
        self.errors: list[str | None] = []

    def __call__(self, parent: Any, conn: SavedConnection, *, secure: bool, why: str,
                 error: str | None = None) -> PasswordAnswer | None:
        self.errors.append(error)
        return self.answers.pop(0)


def _files_containing(root: Path, text: str) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and text.encode() in p.read_bytes()]


# -- the dialog itself ---------------------------------------------------------------------------------------------


def test_dialog_is_masked_and_offers_the_keyring_only_when_there_is_one(qtbot) -> None:
    conn = SavedConnection(name="Sales", kind="postgres", host="db.example.com", database="sales", user="ann")
    secure = PasswordDialog(conn, secure=True, why="Passwords are kept in the system keyring.",
                            error="password authentication failed")
    qtbot.addWidget(secure)
    edit = secure.findChild(QLineEdit, "passwordEdit")
    assert edit.echoMode() == QLineEdit.EchoMode.Password
    assert secure.findChild(QCheckBox, "passwordRemember").text() == "Save in the system keyring"
    assert secure.findChild(QLabel, "passwordError").isVisibleTo(secure)
    assert secure.findChild(QLabel, "passwordNote") is None
    edit.setText(SECRET)
    secure.accept()
    assert secure.answer() == PasswordAnswer(SECRET, True) and SECRET not in repr(secure.answer())

    session = PasswordDialog(conn, secure=False, why=SessionSecretStore().why)
    qtbot.addWidget(session)
    assert session.findChild(QCheckBox, "passwordRemember").text() == "Remember for this session"
    assert not session.findChild(QLabel, "passwordError").isVisibleTo(session)
    assert "never written to disk" in session.findChild(QLabel, "passwordNote").text()
    session.findChild(QLineEdit, "passwordEdit").setText("typed")
    session.reject()
    assert session.answer().password == ""  # a cancelled prompt keeps nothing


def test_connection_for_reads_no_password() -> None:
    conn = connection_for("postgresql://ann:secret@db.example.com:5433/sales")
    assert conn is not None and conn.user == "ann" and conn.port == 5433 and "secret" not in repr(conn)
    assert connection_for(None) is None and connection_for("oracle://x/y") is None


# -- a real scram login on the embedded server ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def password_role(embedded_pg: EmbeddedPostgres, sample_db_uri: str) -> Iterator[SavedConnection]:
    """A role that must log in with scram-sha-256 over the server's socket; the saved connection for it."""
    hba = embedded_pg.pgdata / "pg_hba.conf"
    original = hba.read_text()
    line = f"local all {ROLE} scram-sha-256\n"
    with psycopg.connect(embedded_pg.uri(), autocommit=True) as conn:
        conn.execute("SET password_encryption = 'scram-sha-256'")
        if not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (ROLE,)).fetchone():
            conn.execute(f"CREATE ROLE {ROLE} LOGIN PASSWORD '{SECRET}'")
        conn.execute(f"GRANT CONNECT ON DATABASE cairn_sample TO {ROLE}")
        if line not in original:
            hba.write_text(line + original)
        conn.execute("SELECT pg_reload_conf()")
    params = conninfo_to_dict(sample_db_uri)
    yield SavedConnection(name="Sample as a password user", kind="postgres", host=params["host"],
                          database="cairn_sample", user=ROLE)
    with psycopg.connect(embedded_pg.uri(), autocommit=True) as conn:
        hba.write_text(original)
        conn.execute("SELECT pg_reload_conf()")


def test_real_server_no_password_then_wrong_then_right(qtbot, password_role: SavedConnection,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("PGPASSFILE", str(Path(config_dir()) / "no-such-pgpass"))
    secrets = SessionSecretStore()  # a new session with no keyring: nothing stored
    prompt = Prompt(PasswordAnswer("not-it", True), PasswordAnswer(SECRET, True))
    outcome: dict[str, Any] = {}
    parent = QWidget()
    qtbot.addWidget(parent)
    attempt = ConnectionAttempt(password_role, secrets, parent=parent, ask=prompt,
                                on_ready=lambda url: outcome.setdefault("url", url),
                                on_failure=lambda exc: outcome.setdefault("failed", exc),
                                on_cancel=lambda: outcome.setdefault("cancelled", True))
    attempt.start()
    qtbot.waitUntil(lambda: bool(outcome), timeout=20_000)
    assert "failed" not in outcome and conninfo_to_dict(outcome["url"])["password"] == SECRET
    assert prompt.errors[0] is None  # "fe_sendauth: no password supplied": just asked
    assert "password authentication failed" in (prompt.errors[1] or "") and SECRET not in prompt.errors[1]
    assert secrets.get(password_role.secret_key()) == SECRET
    assert _files_containing(data_dir(), SECRET) == [] and _files_containing(config_dir(), SECRET) == []


def test_needs_password_only_for_password_refusals() -> None:
    from core.errors import AuthenticationFailed, DatabaseUnavailable

    assert needs_password(AuthenticationFailed("connection failed: fe_sendauth: no password supplied"))
    assert not needs_password(AuthenticationFailed('role "x" is not permitted to log in'))
    assert not needs_password(DatabaseUnavailable("Cannot connect: password refused"))


# -- reopening the last connection at start ------------------------------------------------------------------------


class FakeChat:
    def __init__(self) -> None:
        self.notes: list[str] = []
        self.status = QLabel()

    def add_note(self, text: str) -> None:
        self.notes.append(text)

    def set_busy(self, busy: bool, stage: Any = None) -> None:
        pass


class FakeWindow(QWidget):
    """What restore_last_connection uses of MainWindow: start() and the chat's notes."""

    def __init__(self) -> None:
        super().__init__()
        self.chat = FakeChat()
        self.starts: list[tuple[Any, Any, bool]] = []

    def start(self, target: str | None = None, connection: Any = None, *, remember: bool = True) -> None:
        self.starts.append((target, connection, remember))


def _window(qtbot) -> FakeWindow:
    window = FakeWindow()
    qtbot.addWidget(window)
    return window


def test_nothing_remembered_opens_the_sample(qtbot) -> None:
    window = _window(qtbot)
    restore_last_connection(window, ConnectionStore(default_connections_path()), SessionSecretStore())
    assert window.starts == [(None, None, True)] and window.chat.notes == []


def test_remembered_sqlite_file_is_reopened(qtbot, tmp_path: Path) -> None:
    copy = tmp_path / "Chinook.sqlite"
    shutil.copyfile(shared_data_path("chinook", "Chinook_Sqlite.sqlite"), copy)
    store = ConnectionStore(default_connections_path())
    conn = SavedConnection(name="Chinook", kind="sqlite", path=str(copy))
    store.remember_last(conn)
    window = _window(qtbot)
    restore_last_connection(window, store, SessionSecretStore())
    qtbot.waitUntil(lambda: bool(window.starts), timeout=5000)
    assert window.starts == [("sqlite:///" + str(copy), conn, True)]


def test_a_failed_restore_opens_the_sample_with_a_note(qtbot, tmp_path: Path) -> None:
    store = ConnectionStore(default_connections_path())
    store.remember_last(SavedConnection(name="Gone", kind="sqlite", path=str(tmp_path / "gone.sqlite")))
    window = _window(qtbot)
    restore_last_connection(window, store, SessionSecretStore())
    qtbot.waitUntil(lambda: bool(window.starts), timeout=5000)
    assert window.starts == [(None, None, False)]  # the sample, not remembered in place of "Gone"
    assert "Could not reopen “Gone”" in window.chat.notes[0] and "gone.sqlite" in window.chat.notes[0]
    assert store.last() is not None and store.last().name == "Gone"


def test_a_cancelled_password_opens_the_sample_with_a_note(qtbot) -> None:
    store = ConnectionStore(default_connections_path())
    store.remember_last(SavedConnection(name="Sales", kind="postgres", host="db.example.com", user="ann",
                                        database="sales"))

    def opener(url: str) -> Any:
        from core.errors import AuthenticationFailed

        raise AuthenticationFailed("connection failed: fe_sendauth: no password supplied")

    prompt = Prompt(None)
    window = _window(qtbot)
    restore_last_connection(window, store, SessionSecretStore(), opener=opener, ask=prompt)
    qtbot.waitUntil(lambda: bool(window.starts), timeout=5000)
    assert prompt.errors == [None] and window.starts == [(None, None, False)]
    assert "No password was given for “Sales”" in window.chat.notes[0]


def test_a_damaged_last_connection_file_opens_the_sample_with_a_note(qtbot) -> None:
    store = ConnectionStore(default_connections_path())
    store.last_path.parent.mkdir(parents=True, exist_ok=True)
    store.last_path.write_text("{not json", encoding="utf-8")
    window = _window(qtbot)
    restore_last_connection(window, store, SessionSecretStore())
    assert window.starts == [(None, None, True)] and "last connection" in window.chat.notes[0]
