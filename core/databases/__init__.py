"""The databases Cairn reads: PostgreSQL, SQLite and data files (through DuckDB) behind one :class:`Database`
protocol, the embedded PostgreSQL server with the sample database, saved connections and the secret store for their
passwords.

Each backend is a sub-package (``postgres``, ``sqlite``, ``files``) that imports no other backend; what they share sits
here (``_base``: the protocol and limits, ``_fetch``: rows under the caps, ``_shared``: the schema cache and value
hints, ``_inferred_keys``), and ``_open``/``_targets`` turn what a person typed into one of them.
"""

from core.databases._base import Database, QueryLimits, QueryResult
from core.databases.connections import (
    DEFAULT_PORT,
    ConnectionStore,
    SavedConnection,
    SecretStore,
    connection_url,
    default_connections_path,
    delete_connection,
    file_kind,
    open_secret_store,
    redact_url,
    save_connection,
)
from core.databases.embedded import SAMPLE_DATABASE, EmbeddedPostgres, ensure_sample_database
from core.databases._open import open_database
from core.databases._plugins import BUILT_IN, ENTRY_POINT_GROUP, Backend, plugin_backends
from core.databases.postgres import PostgresDatabase, RoleReport, check_privileges, read_only_role_sql
from core.databases.files import FilesDatabase
from core.databases.mysql import MysqlDatabase
from core.databases.sqlite import SqliteDatabase
from core.databases._sample_files import write_sample_files
from core.databases._targets import open_target

__all__ = [
    "BUILT_IN",
    "ENTRY_POINT_GROUP",
    "Backend",
    "DEFAULT_PORT",
    "SAMPLE_DATABASE",
    "ConnectionStore",
    "Database",
    "EmbeddedPostgres",
    "FilesDatabase",
    "MysqlDatabase",
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
    "file_kind",
    "open_database",
    "open_secret_store",
    "open_target",
    "plugin_backends",
    "read_only_role_sql",
    "redact_url",
    "save_connection",
    "write_sample_files",
]
