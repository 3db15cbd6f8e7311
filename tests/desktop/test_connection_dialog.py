"""The connection dialog: passwords go to the keyring (or this session's memory), never to disk."""

from __future__ import annotations

import shutil
import socket
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import fail
from psycopg.conninfo import conninfo_to_dict
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QPushButton

from core.config import config_dir, data_dir
from core.databases import ConnectionStore, SavedConnection, default_connections_path
from core.errors import AuthenticationFailed
from core.databases.connections._secrets import KEYRING_SERVICE, SecretStore, SessionSecretStore, open_secret_store
from desktop.connections.connection_dialog import POSTGRES_TAB, SQLITE_TAB, ConnectionDialog
from desktop.connections.password_prompt import PasswordAnswer
from tests.conftest import shared_data_path
from tests.test_secrets import MemoryKeyring

PASSWORD = "Tr0ub4dor&3:x@y"


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def fail_keyring() -> Iterator[KeyringBackend]:
    previous = keyring.get_keyring()
    backend = fail.Keyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


class FakeServer:
    """Stands in for a PostgreSQL server that wants ``password`` (libpq's own refusals), for ``opener=``."""

    def __init__(self, password: str = PASSWORD) -> None:
        self.password = password
        self.opened: list[str] = []

    def __call__(self, url: str) -> object:
        self.opened.append(url)
        given = conninfo_to_dict(url).get("password")
        server = self

        class FakeDatabase:
            def schema(self, *, refresh: bool = False) -> object:
                if given is None:
                    raise AuthenticationFailed("The server refused the login for ann@db: connection failed: "
                                               "fe_sendauth: no password supplied")
                if given != server.password:
                    raise AuthenticationFailed('The server refused the login for ann@db: connection failed: '
                                               'FATAL: password authentication failed for user "ann"')
                return type("S", (), {"tables": (1,)})()

            def close(self) -> None:
                pass

        return FakeDatabase()


def _dialog(qtbot, secrets: SecretStore, **kwargs) -> ConnectionDialog:
    dialog = ConnectionDialog(ConnectionStore(default_connections_path()), secrets, **kwargs)
    qtbot.addWidget(dialog)
    return dialog


def _files_containing(root: Path, text: str) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and text.encode() in p.read_bytes()]


def _fill_postgres(dialog: ConnectionDialog, name: str, *, host: str = "db.example.com", port: int = 5432,
                   password: str = PASSWORD) -> None:
    dialog.tabs.setCurrentIndex(POSTGRES_TAB)
    dialog.name_edit.setText(name)
    dialog.host_edit.setText(host)
    dialog.port_spin.setValue(port)
    dialog.database_edit.setText("sales")
    dialog.user_edit.setText("ann")
    dialog.password_edit.setText(password)
    dialog.ssl_combo.setCurrentIndex(dialog.ssl_combo.findData("require"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_empty_state_and_secure_form(qtbot, memory_keyring: MemoryKeyring) -> None:
    dialog = _dialog(qtbot, open_secret_store())
    assert dialog.empty_label.isVisibleTo(dialog)
    assert dialog.remember_check is not None and dialog.remember_check.isChecked()
    assert dialog.secrets_note is None
    assert dialog.findChild(object, "connectButton") is dialog.connect_button


def test_save_puts_the_password_in_the_keyring_not_on_disk(qtbot, memory_keyring: MemoryKeyring) -> None:
    dialog = _dialog(qtbot, open_secret_store())
    _fill_postgres(dialog, "Sales")
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.saved_names() == ["Sales"], timeout=3000)
    assert not dialog.empty_label.isVisibleTo(dialog)
    assert list(memory_keyring.secrets.values()) == [PASSWORD]
    assert next(iter(memory_keyring.secrets))[0] == KEYRING_SERVICE
    assert default_connections_path().is_file()
    assert _files_containing(data_dir(), PASSWORD) == []
    assert _files_containing(data_dir(), "Tr0ub4dor") == []
    assert dialog.password_edit.text() == ""  # not left lying in the form either
    saved = ConnectionStore(default_connections_path()).get("Sales")
    assert saved is not None and saved.options == {"sslmode": "require"}


def test_connect_uses_the_stored_password(qtbot, memory_keyring: MemoryKeyring) -> None:
    server = FakeServer()
    dialog = _dialog(qtbot, open_secret_store(), opener=server)
    _fill_postgres(dialog, "Sales")
    dialog.save()
    qtbot.waitUntil(lambda: dialog.saved_names() == ["Sales"], timeout=3000)
    dialog.new_connection()
    assert dialog.select("Sales") and dialog.host_edit.text() == "db.example.com"
    assert dialog.password_edit.text() == ""
    with qtbot.waitSignal(dialog.connection_chosen, timeout=3000) as blocker:
        qtbot.mouseClick(dialog.connect_button, Qt.MouseButton.LeftButton)
    params = conninfo_to_dict(blocker.args[0])
    assert params["password"] == PASSWORD and params["host"] == "db.example.com"
    assert params["sslmode"] == "require"
    assert len(server.opened) == 1  # the stored password worked: nothing was asked


def test_unchecked_remember_stores_no_password(qtbot, memory_keyring: MemoryKeyring) -> None:
    dialog = _dialog(qtbot, open_secret_store())
    _fill_postgres(dialog, "Sales")
    assert dialog.remember_check is not None
    dialog.remember_check.setChecked(False)
    dialog.save()
    qtbot.waitUntil(lambda: dialog.saved_names() == ["Sales"], timeout=3000)
    assert memory_keyring.secrets == {}


def test_without_keyring_the_note_shows_and_nothing_reaches_disk(qtbot, fail_keyring: KeyringBackend) -> None:
    secrets = open_secret_store()
    assert isinstance(secrets, SessionSecretStore)
    dialog = _dialog(qtbot, secrets, opener=FakeServer())
    assert dialog.remember_check is None and dialog.findChild(object, "rememberCheck") is None
    assert dialog.secrets_note is not None and dialog.secrets_note.isVisibleTo(dialog)
    assert dialog.secrets_note.text() == secrets.why
    _fill_postgres(dialog, "Sales")
    dialog.save()
    qtbot.waitUntil(lambda: dialog.saved_names() == ["Sales"], timeout=3000)
    assert "memory for this session" in dialog.status_label.text()
    assert _files_containing(data_dir(), "Tr0ub4dor") == []
    conn = ConnectionStore(default_connections_path()).get("Sales")
    assert conn is not None and secrets.get(conn.secret_key()) == PASSWORD
    with qtbot.waitSignal(dialog.connection_chosen, timeout=3000) as blocker:
        dialog.connect_chosen()
    assert conninfo_to_dict(blocker.args[0])["password"] == PASSWORD


def test_pasted_url_fills_the_form_and_tests_against_the_server(qtbot, memory_keyring, sample_db_uri) -> None:
    dialog = _dialog(qtbot, open_secret_store())
    dialog.url_edit.setText(sample_db_uri)
    dialog.url_edit.editingFinished.emit()
    assert dialog.url_edit.text() == ""
    assert dialog.database_edit.text() == "cairn_sample" and dialog.user_edit.text() == "cairn_query"
    assert dialog.host_edit.text().startswith("/")
    assert dialog.name_edit.text() == "cairn_sample"
    qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.status_label.text().startswith("Connected:"), timeout=4000)
    assert dialog.status_label.text() == "Connected: 2 tables"
    assert dialog.test_button.isEnabled()


def test_closed_port_shows_the_error_inline(qtbot, memory_keyring: MemoryKeyring) -> None:
    dialog = _dialog(qtbot, open_secret_store())
    _fill_postgres(dialog, "Nowhere", host="127.0.0.1", port=_free_port())
    dialog.test_connection()
    qtbot.waitUntil(lambda: dialog.test_button.isEnabled(), timeout=4000)
    text = dialog.status_label.text()
    assert "Cannot connect" in text and "server is running" in text  # message and hint
    assert PASSWORD not in text


def test_sqlite_tab_with_chinook(qtbot, memory_keyring: MemoryKeyring, tmp_path: Path) -> None:
    copy = tmp_path / "Chinook.sqlite"
    shutil.copyfile(shared_data_path("chinook", "Chinook_Sqlite.sqlite"), copy)
    dialog = _dialog(qtbot, open_secret_store())
    dialog.tabs.setCurrentIndex(SQLITE_TAB)
    dialog.name_edit.setText("Chinook")
    dialog.sqlite_path_edit.setText(str(copy))
    dialog.test_connection()
    qtbot.waitUntil(lambda: dialog.status_label.text().startswith("Connected:"), timeout=4000)
    assert dialog.status_label.text() == "Connected: 11 tables"
    dialog.save()
    qtbot.waitUntil(lambda: dialog.saved_names() == ["Chinook"], timeout=3000)
    assert memory_keyring.secrets == {}
    dialog.new_connection()
    dialog.select("Chinook")
    assert dialog.tabs.currentIndex() == SQLITE_TAB and dialog.sqlite_path_edit.text() == str(copy)
    with qtbot.waitSignal(dialog.connection_chosen, timeout=3000) as blocker:
        dialog.connect_chosen()
    assert blocker.args[0] == "sqlite:///" + str(copy)


def test_delete_forgets_connection_and_password(qtbot, memory_keyring: MemoryKeyring) -> None:
    store = ConnectionStore(default_connections_path())
    dialog = _dialog(qtbot, open_secret_store())
    _fill_postgres(dialog, "Sales")
    dialog.save()
    qtbot.waitUntil(lambda: dialog.saved_names() == ["Sales"], timeout=3000)
    dialog.select("Sales")
    qtbot.mouseClick(dialog.delete_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.saved_names() == [], timeout=3000)
    assert store.list() == [] and memory_keyring.secrets == {}
    assert dialog.empty_label.isVisibleTo(dialog) and dialog.name_edit.text() == ""


def test_test_uses_the_opener_and_errors_need_a_name_to_save(qtbot, memory_keyring: MemoryKeyring) -> None:
    opened: list[str] = []

    class FakeDatabase:
        closed = False

        def schema(self, *, refresh: bool = False) -> object:
            return type("S", (), {"tables": (1,)})()

        def close(self) -> None:
            FakeDatabase.closed = True

    def opener(url: str) -> FakeDatabase:
        opened.append(url)
        return FakeDatabase()

    dialog = _dialog(qtbot, open_secret_store(), opener=opener)
    _fill_postgres(dialog, "")
    dialog.test_connection()
    qtbot.waitUntil(lambda: dialog.status_label.text() == "Connected: 1 table", timeout=3000)
    assert FakeDatabase.closed and conninfo_to_dict(opened[0])["password"] == PASSWORD
    dialog.save()
    assert "needs a name" in dialog.status_label.text()
    assert not default_connections_path().exists()
    dialog.fill_from_url("oracle://u:p@h/d")
    assert "Unsupported" in dialog.status_label.text() and "p@h" not in dialog.status_label.text()


def test_rename_keeps_the_stored_password(qtbot, memory_keyring: MemoryKeyring) -> None:
    dialog = _dialog(qtbot, open_secret_store())
    _fill_postgres(dialog, "Sales")
    dialog.save()
    qtbot.waitUntil(lambda: dialog.saved_names() == ["Sales"], timeout=3000)
    dialog.name_edit.setText("Sales EU")
    dialog.save()
    qtbot.waitUntil(lambda: dialog.saved_names() == ["Sales EU"], timeout=3000)
    conn = ConnectionStore(default_connections_path()).list()[0]
    assert memory_keyring.get_password(KEYRING_SERVICE, conn.secret_key()) == PASSWORD


def test_pasted_url_password_goes_to_the_password_field(qtbot, memory_keyring: MemoryKeyring) -> None:
    dialog = _dialog(qtbot, open_secret_store())
    dialog.name_edit.setText("Reports")
    assert dialog.fill_from_url("postgresql://ann:pw%40x@reports.local:5433/dw?sslmode=verify-full")
    assert dialog.url_edit.text() == "" and dialog.password_edit.text() == "pw@x"
    assert (dialog.host_edit.text(), dialog.port_spin.value()) == ("reports.local", 5433)
    assert dialog.ssl_combo.currentData() == "verify-full" and dialog.name_edit.text() == "Reports"


def test_enter_on_a_bad_url_does_not_connect(qtbot, memory_keyring: MemoryKeyring) -> None:
    dialog = _dialog(qtbot, open_secret_store())
    dialog.url_edit.setText("postgresql://u@h:notaport/d")
    with qtbot.assertNotEmitted(dialog.connection_chosen, wait=200):
        dialog.connect_chosen()
    assert "not a number" in dialog.status_label.text()


def test_the_file_label_has_its_shortcut_not_a_literal_ampersand(qtbot) -> None:
    from PySide6.QtWidgets import QLabel

    from desktop.connections.connection_form import ConnectionForm

    form = ConnectionForm(SessionSecretStore())
    qtbot.addWidget(form)
    labels = {label.text(): label for label in form.findChildren(QLabel)}
    assert labels["&File:"].buddy() is form.sqlite_path_edit


# -- a saved connection with no password at hand: the prompt ------------------------------------------------------


class Prompt:
    """The password prompt as a plain function: answers in turn, and what each call was shown."""

    def __init__(self, *answers: PasswordAnswer | None) -> None:
        self.answers = list(answers)
        self.calls: list[dict] = []

    def __call__(self, parent, conn, *, secure: bool, why: str, error: str | None = None) -> PasswordAnswer | None:
        self.calls.append({"name": conn.name, "secure": secure, "error": error})
        return self.answers.pop(0)


def _saved_without_password(qtbot, secrets: SecretStore, prompt: Prompt, server: FakeServer) -> ConnectionDialog:
    """A saved connection from an earlier session: its file is there, its password is not."""
    conn = SavedConnection(name="Sales", kind="postgres", host="db.example.com", database="sales", user="ann")
    ConnectionStore(default_connections_path()).save(conn)
    dialog = _dialog(qtbot, secrets, opener=server, ask=prompt)
    assert dialog.select("Sales") and dialog.password_edit.text() == ""
    return dialog


def test_saved_connection_prompts_for_its_password(qtbot, fail_keyring: KeyringBackend) -> None:
    secrets = open_secret_store()
    assert isinstance(secrets, SessionSecretStore) and secrets.get("anything") is None
    prompt, server = Prompt(PasswordAnswer("wrong", True), PasswordAnswer(PASSWORD, True)), FakeServer()
    dialog = _saved_without_password(qtbot, secrets, prompt, server)
    with qtbot.waitSignal(dialog.target_chosen, timeout=5000) as blocker:
        qtbot.mouseClick(dialog.connect_button, Qt.MouseButton.LeftButton)
    url, conn = blocker.args
    assert conninfo_to_dict(url)["password"] == PASSWORD and conn.name == "Sales"
    # First asked with nothing wrong; then again, with the server's refusal shown.
    assert [c["error"] for c in prompt.calls][0] is None
    assert "password authentication failed" in prompt.calls[1]["error"] and PASSWORD not in prompt.calls[1]["error"]
    assert not prompt.calls[0]["secure"]
    assert [conninfo_to_dict(u).get("password") for u in server.opened] == [None, "wrong", PASSWORD]
    assert secrets.get(conn.secret_key()) == PASSWORD  # kept for this session, only the one that worked
    assert _files_containing(data_dir(), PASSWORD) == [] and _files_containing(config_dir(), PASSWORD) == []
    assert dialog.result() == QDialog.DialogCode.Accepted


def test_keyring_prompt_saves_there_only_when_asked(qtbot, memory_keyring: MemoryKeyring) -> None:
    prompt = Prompt(PasswordAnswer(PASSWORD, False))
    dialog = _saved_without_password(qtbot, open_secret_store(), prompt, FakeServer())
    with qtbot.waitSignal(dialog.connection_chosen, timeout=5000) as blocker:
        dialog.connect_chosen()
    assert conninfo_to_dict(blocker.args[0])["password"] == PASSWORD
    assert prompt.calls[0]["secure"] and memory_keyring.secrets == {}


def test_cancelled_prompt_keeps_the_dialog_open(qtbot, fail_keyring: KeyringBackend) -> None:
    prompt = Prompt(None)
    dialog = _saved_without_password(qtbot, open_secret_store(), prompt, FakeServer())
    with qtbot.assertNotEmitted(dialog.connection_chosen, wait=300):
        dialog.connect_chosen()
        qtbot.waitUntil(lambda: dialog.connect_button.isEnabled(), timeout=3000)
    assert len(prompt.calls) == 1 and "no password was given" in dialog.status_label.text()
    assert not dialog.busy()


def test_other_failures_show_inline_without_a_prompt(qtbot, memory_keyring: MemoryKeyring, tmp_path: Path) -> None:
    prompt = Prompt()
    dialog = _dialog(qtbot, open_secret_store(), ask=prompt)
    dialog.tabs.setCurrentIndex(SQLITE_TAB)
    dialog.sqlite_path_edit.setText(str(tmp_path / "missing.sqlite"))
    with qtbot.assertNotEmitted(dialog.connection_chosen, wait=300):
        dialog.connect_chosen()
        qtbot.waitUntil(lambda: dialog.connect_button.isEnabled(), timeout=3000)
    assert prompt.calls == [] and "missing.sqlite" in dialog.status_label.text()


def test_sample_button_switches_back_to_the_embedded_database(qtbot) -> None:
    dialog = _dialog(qtbot, SessionSecretStore())
    button = dialog.findChild(QPushButton, "sampleButton")
    assert button is dialog.sample_button and "Sample database" in button.text()
    with qtbot.waitSignal(dialog.target_chosen, timeout=1000) as blocker:
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert blocker.args == [None, None] and dialog.result() == QDialog.DialogCode.Accepted
