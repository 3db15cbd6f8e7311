"""Shared fixtures: an isolated data dir per test, one embedded PostgreSQL per session, the fake Ollama."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.databases import EmbeddedPostgres

# Qt widgets in tests render offscreen (no display needed).
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# CI lays shared/ beside the clone; CAIRN_SHARED_DATA points elsewhere when it is not there.
SHARED_DATA = Path(os.environ.get("CAIRN_SHARED_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets its own data/config dir and never sees the developer's Ollama or keyring."""
    monkeypatch.setenv("CAIRN_DATA_DIR", str(tmp_path / "cairn-data"))
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")  # discard port: nothing listens
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    import keyring
    from keyring.backends import fail

    # No test may touch the developer's real keyring; tests that need one install their own backend.
    keyring.set_keyring(fail.Keyring())


@pytest.fixture(scope="session")
def embedded_pg() -> Iterator[EmbeddedPostgres]:
    """One embedded PostgreSQL for the whole test session, in a short temp path (socket length)."""
    root = Path(tempfile.mkdtemp(prefix="cairn-pg-"))
    server = EmbeddedPostgres(root)
    server.start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)  # ~650 MB a run: left behind, repeated runs fill the disk


@pytest.fixture(scope="session")
def sample_db_uri(embedded_pg: EmbeddedPostgres) -> str:
    """URI of the sample e-commerce database on the session's embedded server."""
    from core.databases import ensure_sample_database

    return ensure_sample_database(embedded_pg)


@pytest.fixture
def db(sample_db_uri: str) -> Iterator[Any]:
    """The embedded sample database, opened for one test."""
    from core.databases import open_database

    database = open_database(sample_db_uri)
    yield database
    database.close()


@pytest.fixture
def fake_ollama(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    """A real HTTP server on 127.0.0.1 speaking the Ollama API; OLLAMA_HOST points at it."""
    from tests.fakes.fake_ollama import FakeOllama

    with FakeOllama() as server:
        monkeypatch.setenv("OLLAMA_HOST", server.url)
        yield server


def shared_data_path(*parts: str) -> Path:
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not found: {path}")
    return path


@pytest.fixture
def lite(tmp_path: Path) -> Iterator[Any]:
    """A small SQLite database (table t: 100 rows of id, name), opened by Cairn's SqliteDatabase."""
    import sqlite3

    from core.databases import SqliteDatabase

    path = tmp_path / "small.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
        conn.executemany("INSERT INTO t (name) VALUES (?)", [(f"row {i}",) for i in range(100)])
    db = SqliteDatabase(path)
    yield db
    db.close()
