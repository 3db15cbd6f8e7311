"""Open a database from what a person typed: a PostgreSQL URL or a SQLite file."""

from __future__ import annotations

import logging
from pathlib import Path
from urllib.parse import urlsplit

from core.databases._base import Database
from core.databases.connections import (
    POSTGRES_SCHEMES,
    SQLITE_PREFIX,
    TARGET_FORMS_HINT,
    redact_url,
    sqlite_path_from_target,
)
from core.databases.postgres import PostgresDatabase
from core.databases.sqlite import SqliteDatabase
from core.errors import ConfigError

__all__ = ["open_database"]

logger = logging.getLogger(__name__)


def open_database(target: str, *, pool_size: int = 4) -> Database:
    """A PostgreSQL URL -> PostgresDatabase; a SQLite file path or sqlite:/// URL -> SqliteDatabase.

    Nothing connects yet for PostgreSQL (the pool opens on first use); a SQLite file must already exist.
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
    if scheme:
        raise ConfigError(f"Unsupported database URL scheme {scheme!r} in {redact_url(text)}.", hint=TARGET_FORMS_HINT)
    path = Path(text).expanduser()
    if not path.exists():
        raise ConfigError(f"{text!r} is neither a PostgreSQL URL nor an existing SQLite file.", hint=TARGET_FORMS_HINT)
    if path.is_dir():
        raise ConfigError(f"{path} is a folder, not a SQLite file.", hint=TARGET_FORMS_HINT)
    return SqliteDatabase(path)
