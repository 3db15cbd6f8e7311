"""PostgreSQL, a server the person names or the embedded one: `_database` (`PostgresDatabase`: a psycopg pool,
read-only sessions with their limits), `_introspect` (tables, columns, keys, comments and value hints from the
catalogs), `_fetch` (a server-side cursor that cuts long values on the server, under the row and byte caps) and
`_privileges` (what a connection's role may do, for `cairn doctor`)."""

from core.databases.postgres._database import PostgresDatabase
from core.databases.postgres._privileges import RoleReport, check_privileges, read_only_role_sql

__all__ = [
    "PostgresDatabase",
    "RoleReport",
    "check_privileges",
    "read_only_role_sql",
]
