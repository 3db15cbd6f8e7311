"""Saved connections: URLs in and out, a JSON file that never holds a password, secrets kept aside."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from urllib.parse import quote

import pytest
from psycopg.conninfo import conninfo_to_dict

from core.config import data_dir
from core.databases import (
    ConnectionStore,
    SavedConnection,
    connection_url,
    default_connections_path,
    delete_connection,
    save_connection,
)
from core.databases import open_database
from core.errors import ConfigError
from core.databases.connections._secrets import SessionSecretStore

SECRET = "s3cr:t@/?#&pw"


def _grep(root: Path, text: str) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and text.encode() in p.read_bytes()]


def test_url_percent_encodes_every_part() -> None:
    conn = SavedConnection("Sales", "postgres", host="db.example.com", port=6543, database="sales db",
                           user="ann@corp", options={"sslmode": "require"})
    params = conninfo_to_dict(conn.url(SECRET))
    assert params == {"host": "db.example.com", "port": "6543", "dbname": "sales db", "user": "ann@corp",
                      "password": SECRET, "sslmode": "require"}
    assert "password" not in conninfo_to_dict(conn.url(None))


def test_socket_and_ipv6_hosts() -> None:
    socket = SavedConnection("Local", "postgres", host="/tmp/pg sock", database="d", user="u")
    assert conninfo_to_dict(socket.url("pw"))["host"] == "/tmp/pg sock"
    v6 = SavedConnection("V6", "postgres", host="::1", database="d")
    assert conninfo_to_dict(v6.url())["host"] == "::1"


def test_from_url_splits_off_the_password() -> None:
    url = "postgresql://ann:" + "s3cr%3At%40pw" + "@db.local:5433/sales?sslmode=verify-full&connect_timeout=5"
    conn, password = SavedConnection.from_url("Sales", url)
    assert password == "s3cr:t@pw"
    assert (conn.host, conn.port, conn.database, conn.user) == ("db.local", 5433, "sales", "ann")
    assert conn.options == {"sslmode": "verify-full", "connect_timeout": "5"}
    assert "s3cr" not in json.dumps(conn.to_json()) and "s3cr" not in conn.display()
    assert conninfo_to_dict(conn.url(password)) == conninfo_to_dict(url)


def test_from_url_reads_password_in_query_and_empty_password() -> None:
    conn, password = SavedConnection.from_url("x", "postgresql://u@h/d?password=qp&sslpassword=k")
    assert password == "qp" and conn.options == {}
    conn, password = SavedConnection.from_url("y", "postgresql://postgres:@/cairn_sample?host=/tmp/s")
    assert password is None and conn.host == "/tmp/s" and conn.database == "cairn_sample"


def test_from_url_rejects_what_it_cannot_save() -> None:
    with pytest.raises(ConfigError):
        SavedConnection.from_url("x", "oracle://u:p@h/d")
    with pytest.raises(ConfigError):
        SavedConnection.from_url("x", "postgresql://u@h1,h2/d")
    with pytest.raises(ConfigError) as info:
        SavedConnection.from_url("x", "postgresql://u:hunter2@h:notaport/d")
    assert "hunter2" not in str(info.value)


def test_options_may_not_hold_a_password() -> None:
    with pytest.raises(ConfigError):
        SavedConnection("x", "postgres", options={"password": "p"})
    with pytest.raises(ConfigError):
        SavedConnection("", "postgres")


def test_sqlite_round_trip(tmp_path: Path) -> None:
    db = tmp_path / "shop.db"
    with sqlite3.connect(db) as raw:
        raw.execute("CREATE TABLE t (x integer)")
    raw.close()
    conn, password = SavedConnection.from_url("Shop", str(db))
    assert password is None and conn.kind == "sqlite" and conn.path == str(db.resolve())
    assert SavedConnection.from_url("Shop", conn.url())[0] == conn
    assert conn.display() == f"SQLite: {db.resolve()}"
    database = open_database(conn.url())
    try:
        assert [t.name for t in database.schema().tables] == ["t"]
    finally:
        database.close()


def test_saved_url_opens_the_embedded_server(sample_db_uri: str) -> None:
    conn, password = SavedConnection.from_url("Sample", sample_db_uri)
    database = open_database(conn.url(password))
    try:
        names = {t.name for t in database.schema().tables}
    finally:
        database.close()
    assert {"customers", "orders"} <= names


def test_store_save_list_rename_delete(tmp_path: Path) -> None:
    store = ConnectionStore(tmp_path / "conf" / "connections.json")
    assert store.list() == []
    a = SavedConnection("A", "postgres", host="h", database="d", user="u", options={"sslmode": "require"})
    b = SavedConnection("B", "sqlite", path="/data/b.db")
    store.save(a)
    store.save(b)
    store.save(SavedConnection("A", "postgres", host="h2"))  # replaces in place
    assert [c.name for c in store.list()] == ["A", "B"]
    assert store.get("A").host == "h2"  # type: ignore[union-attr]
    renamed = store.rename("B", "Books")
    assert renamed.path == "/data/b.db" and [c.name for c in store.list()] == ["A", "Books"]
    with pytest.raises(ConfigError):
        store.rename("A", "Books")
    with pytest.raises(ConfigError):
        store.rename("missing", "X")
    assert store.delete("A") and not store.delete("A")
    assert [c.name for c in ConnectionStore(store.path).list()] == ["Books"]
    assert not list(store.path.parent.glob(".connections.json.*"))  # no temp files left behind


def test_corrupt_file_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "connections.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        ConnectionStore(path).list()
    assert str(path) in info.value.hint


def test_save_connection_keeps_the_password_out_of_the_file() -> None:
    store, secrets = ConnectionStore(default_connections_path()), SessionSecretStore()
    conn, password = SavedConnection.from_url("Sales", "postgresql://ann:" + "pw%2Fxyz-123" + "@db:5432/sales")
    save_connection(store, secrets, conn, password)
    assert secrets.get(conn.secret_key()) == "pw/xyz-123"
    assert store.path.is_relative_to(data_dir())
    assert _grep(data_dir(), "pw/xyz-123") == [] and _grep(data_dir(), "pw%2Fxyz-123") == []
    assert conninfo_to_dict(connection_url(conn, secrets))["password"] == "pw/xyz-123"
    assert conninfo_to_dict(connection_url(conn, secrets, "typed"))["password"] == "typed"


def test_save_connection_rename_move_and_forget() -> None:
    store, secrets = ConnectionStore(default_connections_path()), SessionSecretStore()
    conn = SavedConnection("Sales", "postgres", host="db", database="sales", user="ann")
    save_connection(store, secrets, conn, "pw1")
    with pytest.raises(ConfigError):  # a new connection may not silently replace another
        save_connection(store, secrets, SavedConnection("Sales", "postgres", host="other"), "x")
    renamed = SavedConnection("Sales EU", "postgres", host="db", database="sales", user="ann")
    save_connection(store, secrets, renamed, None, previous="Sales")
    assert [c.name for c in store.list()] == ["Sales EU"] and secrets.get(renamed.secret_key()) == "pw1"
    moved = SavedConnection("Sales EU", "postgres", host="db2", database="sales", user="ann")
    save_connection(store, secrets, moved, None, previous="Sales EU")
    assert secrets.get(moved.secret_key()) == "pw1" and secrets.get(renamed.secret_key()) is None
    save_connection(store, secrets, moved, None, remember=False, previous="Sales EU")
    assert secrets.get(moved.secret_key()) is None
    save_connection(store, secrets, moved, "pw2", previous="Sales EU")
    assert delete_connection(store, secrets, "Sales EU")
    assert secrets.get(moved.secret_key()) is None and store.list() == []
    assert not delete_connection(store, secrets, "Sales EU")


# -- the last connection, restored at start ------------------------------------------------------------------------


def test_last_connection_is_remembered_without_its_password(tmp_path: Path) -> None:
    store = ConnectionStore(tmp_path / "config" / "connections.json")
    assert store.last() is None  # nothing yet: the sample
    conn, password = SavedConnection.from_url("Sales", f"postgresql://ann:{quote(SECRET, safe='')}@db:5433/s")
    assert password
    store.remember_last(conn)
    assert store.last() == conn and store.last_path.parent == store.path.parent
    assert _grep(tmp_path, "s3cr") == []
    store.remember_last(None)  # back on the sample
    assert store.last() is None
    assert json.loads(store.last_path.read_text(encoding="utf-8"))["sample"] is True


def test_a_damaged_last_connection_file_is_a_config_error(tmp_path: Path) -> None:
    store = ConnectionStore(tmp_path / "connections.json")
    store.last_path.write_text('{"connection": {"kind": "postgres"}}', encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        store.last()
    assert err.value.hint
