"""Connections a person saves: `_saved` (`ConnectionStore`: saved connections without passwords), `_secrets`
(keyring or session-only passwords) and `_connection_id` (stable password-free ids, URL parsing and redaction)."""

from core.databases.connections._connection_id import (
    POSTGRES_SCHEMES,
    FILES_PREFIX,
    SQLITE_PREFIX,
    TARGET_FORMS_HINT,
    parse_postgres_url,
    postgres_id,
    redact_url,
    sqlite_id,
    sqlite_path_from_target,
)
from core.databases.connections._saved import (
    DEFAULT_PORT,
    MYSQL_PORT,
    ConnectionStore,
    SavedConnection,
    connection_url,
    default_connections_path,
    delete_connection,
    file_kind,
    save_connection,
)
from core.databases.connections._secrets import SecretStore, open_secret_store

__all__ = [
    "DEFAULT_PORT",
    "MYSQL_PORT",
    "POSTGRES_SCHEMES",
    "FILES_PREFIX",
    "SQLITE_PREFIX",
    "TARGET_FORMS_HINT",
    "ConnectionStore",
    "SavedConnection",
    "SecretStore",
    "connection_url",
    "default_connections_path",
    "delete_connection",
    "file_kind",
    "open_secret_store",
    "parse_postgres_url",
    "postgres_id",
    "redact_url",
    "save_connection",
    "sqlite_id",
    "sqlite_path_from_target",
]
