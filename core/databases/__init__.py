"""The databases Cairn reads: PostgreSQL and SQLite behind one :class:`Database` protocol, the embedded
PostgreSQL server with the sample database, saved connections and the secret store for their passwords."""

from core.databases._base import Database, QueryLimits, QueryResult
from core.databases._connection_id import redact_url
from core.databases._connections import (
    DEFAULT_PORT,
    ConnectionStore,
    SavedConnection,
    connection_url,
    default_connections_path,
    delete_connection,
    save_connection,
)
from core.databases._embedded import EmbeddedPostgres
from core.databases._open import open_database
from core.databases._postgres import PostgresDatabase
from core.databases._privileges import RoleReport, check_privileges, read_only_role_sql
from core.databases._sample import SAMPLE_DATABASE, ensure_sample_database
from core.databases._secrets import SecretStore, open_secret_store
from core.databases._sqlite import SqliteDatabase
from core.databases._targets import open_target

__all__ = [
    "DEFAULT_PORT",
    "SAMPLE_DATABASE",
    "ConnectionStore",
    "Database",
    "EmbeddedPostgres",
    "PostgresDatabase",
    "QueryLimits",
    "QueryResult",
    "RoleReport",
    "SavedConnection",
    "SecretStore",
    "SqliteDatabase",
    "check_privileges",
    "connection_url",
    "default_connections_path",
    "delete_connection",
    "ensure_sample_database",
    "open_database",
    "open_secret_store",
    "open_target",
    "read_only_role_sql",
    "redact_url",
    "save_connection",
]
