"""The real window: hand-run SQL lands in the history of its database, and the last connection is remembered
(and reopened at start) without its password."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from core.databases import ConnectionStore, SavedConnection, default_connections_path
from core.databases.connections._secrets import SessionSecretStore
from core.history import TYPED_SQL
from desktop.connections.password_prompt import restore_last_connection
from tests.conftest import shared_data_path
from tests.desktop.test_main_window import window  # noqa: F401 - the fixture


def test_sql_run_by_hand_is_in_the_history_of_this_database(qtbot, window: Any) -> None:  # noqa: F811
    view = window.history_view
    assert view.database_filter() == window.assistant.database_id
    window.run_sql("SELECT count(*) FROM customers")
    qtbot.waitUntil(lambda: any(e.kind == TYPED_SQL for e in view.entries()), timeout=10_000)
    [entry] = [e for e in view.entries() if e.kind == TYPED_SQL]
    assert entry.sql == "SELECT count(*) FROM customers" and entry.ok and entry.row_count == 1
    assert entry.database_id == window.assistant.database_id
    [saved] = window.context.history.entries(window.user)
    assert saved == entry


def test_last_connection_is_remembered_and_reopened(qtbot, window: Any, tmp_path: Path) -> None:  # noqa: F811
    store = ConnectionStore(default_connections_path())
    window.context.connections = store
    copy = tmp_path / "Chinook.sqlite"
    shutil.copyfile(shared_data_path("chinook", "Chinook_Sqlite.sqlite"), copy)
    conn = SavedConnection(name="Chinook", kind="sqlite", path=str(copy))
    with qtbot.waitSignal(window.database_ready, timeout=30_000):
        window.start(conn.url(), connection=conn)
    qtbot.waitUntil(lambda: store.last() == conn, timeout=5000)
    assert window.connection == conn and window.history_view.database_filter() == window.assistant.database_id

    with qtbot.waitSignal(window.database_ready, timeout=30_000):  # back to the sample (Connect…'s button)
        window.start(None)
    qtbot.waitUntil(lambda: store.last_path.exists() and store.last() is None, timeout=5000)

    store.remember_last(conn)  # as if Cairn had quit on Chinook: the next start reopens it
    with qtbot.waitSignal(window.database_ready, timeout=30_000):
        restore_last_connection(window, store, SessionSecretStore())
    assert window.target == conn.url() and window.connection == conn
