"""Open a database from what a person typed: a PostgreSQL URL, a SQLite file, data files or a DuckDB file."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from urllib.parse import urlsplit

from core.databases._base import Database
from core.databases.connections import (
    FILES_PREFIX,
    POSTGRES_SCHEMES,
    SQLITE_PREFIX,
    TARGET_FORMS_HINT,
    redact_url,
    sqlite_path_from_target,
)
from core.databases._plugins import plugin_for
from core.databases.files import DATA_SUFFIXES, DUCKDB_SUFFIXES, FilesDatabase, is_duckdb_file
from core.databases.mysql import MYSQL_SCHEMES, MysqlDatabase
from core.databases.postgres import PostgresDatabase
from core.databases.sqlite import SqliteDatabase
from core.errors import ConfigError

__all__ = ["open_database"]

_SQLITE_SUFFIXES = (".sqlite", ".sqlite3", ".db", ".db3")  # said to be SQLite: the SQLite backend says what is wrong

logger = logging.getLogger(__name__)


def open_database(target: str, *, pool_size: int = 4) -> Database:
    """A PostgreSQL URL -> PostgresDatabase; a SQLite file path or sqlite:/// URL -> SqliteDatabase; a data file
    (CSV/TSV, Parquet, JSON, Excel), a folder of them, several joined by ``os.pathsep``, a ``duckdb:///`` URL or a
    DuckDB file -> FilesDatabase.

    Nothing connects yet for PostgreSQL (the pool opens on first use); files must already exist.
    """
    text = (target or "").strip()
    if not text:
        raise ConfigError("No database given.", hint=TARGET_FORMS_HINT)
    try:
        scheme = urlsplit(text).scheme.lower() if "://" in text else ""
    except ValueError as exc:  # e.g. an unclosed IPv6 bracket
        raise ConfigError(f"Cannot read the database URL {redact_url(text)}: {exc}.", hint=TARGET_FORMS_HINT) from exc
    if scheme in POSTGRES_SCHEMES:
        return PostgresDatabase(text, pool_size=pool_size)
    if scheme == "sqlite" or text.startswith("sqlite:"):
        if not text.startswith(SQLITE_PREFIX):
            raise ConfigError(f"Cannot read the SQLite URL {text!r}.", hint=TARGET_FORMS_HINT)
        return SqliteDatabase(sqlite_path_from_target(text))
    if scheme in MYSQL_SCHEMES:
        return MysqlDatabase(text)
    if scheme == "duckdb":
        if not text.startswith(FILES_PREFIX):
            raise ConfigError(f"Cannot read the DuckDB URL {text!r}.", hint=TARGET_FORMS_HINT)
        return FilesDatabase(text[len(FILES_PREFIX):].split(";"))
    if scheme:
        plugin = plugin_for(text)
        if plugin is not None and plugin.factory is not None:
            return plugin.factory(text)
        raise ConfigError(f"Unsupported database URL scheme {scheme!r} in {redact_url(text)}.",
                          hint=TARGET_FORMS_HINT + " Other databases come as plugins: `cairn doctor` lists them.")
    parts = [Path(p).expanduser() for p in text.split(os.pathsep)] if os.pathsep in text else [Path(text).expanduser()]
    for path in parts:
        try:
            there = path.exists()
        except OSError as exc:  # a name too long for the file system, a loop of links
            shown = str(path) if len(str(path)) <= 80 else f"{str(path)[:40]}…{str(path)[-30:]}"
            raise ConfigError(f"Cannot look at {shown!r} ({len(str(path)):,} characters): {exc.strerror or exc}.",
                              hint=TARGET_FORMS_HINT) from exc
        if not there:
            raise ConfigError(f"{str(path)!r} is neither a database URL nor an existing file or folder.",
                              hint=TARGET_FORMS_HINT)
    path = parts[0]
    if len(parts) > 1 or path.is_dir() or path.suffix.lower() in (*DATA_SUFFIXES, *DUCKDB_SUFFIXES):
        return FilesDatabase(parts)
    if is_duckdb_file(path) or not (_sqlite_header(path) or path.suffix.lower() in _SQLITE_SUFFIXES):
        return FilesDatabase([path])  # a DuckDB file; anything else is refused there as "not a table"
    return SqliteDatabase(path)


def _sqlite_header(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return fh.read(16) == b"SQLite format 3\x00"
    except OSError:
        return True  # let the SQLite backend say what is wrong with the file
