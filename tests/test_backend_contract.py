"""Every backend keeps the same contract (tests/backend_contract.py), and a plugin registered under the entry-point
group ``cairn.databases`` is found by ``open_database``, listed by ``cairn doctor`` and held to the contract too."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import duckdb
import pytest

from core.cli._doctor import check_database_backends
from core.databases import FilesDatabase, open_database
from tests.backend_contract import contract_failures


def _sqlite(path: Path) -> Path:
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE t(a INTEGER); INSERT INTO t VALUES (1), (2), (3);")
    return path


def test_sqlite_keeps_the_contract(tmp_path: Path) -> None:
    db = open_database(str(_sqlite(tmp_path / "t.sqlite")))
    try:
        assert contract_failures(db) == []
    finally:
        db.close()


def test_files_and_a_duckdb_file_keep_the_contract(tmp_path: Path) -> None:
    (tmp_path / "t.csv").write_text("a\n1\n2\n3\n")
    files = FilesDatabase([tmp_path / "t.csv"])
    writer = duckdb.connect(str(tmp_path / "store.duckdb"))
    writer.execute("CREATE TABLE t(a INTEGER); INSERT INTO t VALUES (1), (2)")
    writer.close()
    stored = open_database(str(tmp_path / "store.duckdb"))
    try:
        assert contract_failures(files) == []
        assert contract_failures(stored) == []
    finally:
        files.close()
        stored.close()


def test_postgres_keeps_the_contract(embedded_pg) -> None:
    """Even connected as the superuser, the executor's read-only transactions refuse every write."""
    import psycopg

    with psycopg.connect(embedded_pg.uri(), autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS contract_db")
        conn.execute("CREATE DATABASE contract_db")
    with psycopg.connect(embedded_pg.uri("contract_db"), autocommit=True) as conn:
        conn.execute("CREATE TABLE t(a INTEGER); INSERT INTO t VALUES (1), (2)")
    db = open_database(embedded_pg.uri("contract_db"))
    try:
        assert contract_failures(db) == []
    finally:
        db.close()


@pytest.fixture()
def plugin_installed(tmp_path: Path, monkeypatch):
    """A package's metadata on sys.path registering FakeSqlDatabase, as pip would install it."""
    info = tmp_path / "site" / "cairn_fakesql-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: cairn-fakesql\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[cairn.databases]\nfakesql = tests.fakes.plugin_backend:FakeSqlDatabase\n"
                                           "broken = tests.fakes.no_such_module:Nothing\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    yield
    sys.modules.pop("tests.fakes.no_such_module", None)


def test_a_plugin_backend_is_found_listed_and_held_to_the_contract(plugin_installed, tmp_path: Path) -> None:
    db = open_database(f"fakesql:///{_sqlite(tmp_path / 'p.sqlite')}")
    try:
        assert type(db).__name__ == "FakeSqlDatabase" and contract_failures(db) == []
    finally:
        db.close()
    check = check_database_backends()
    assert "fakesql from cairn-fakesql" in check.detail and check.status == "warn"  # the broken one is said
    assert "broken from cairn-fakesql: ModuleNotFoundError" in check.detail


def test_an_unknown_scheme_without_a_plugin_says_plugins_exist() -> None:
    from core.errors import ConfigError

    with pytest.raises(ConfigError) as err:
        open_database("mssql://sa@db/sales")
    assert "plugins" in err.value.hint
