"""What the role Cairn connects as may do: questions should run as a read-only role, not as an owner.

Cairn never writes (read-only transactions, the guard), but least privilege means a role that *cannot*
write either, so a bug or a clever statement has nothing to misuse. ``cairn doctor`` shows this report.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from core.databases._base import Database

__all__ = ["RoleReport", "check_privileges", "read_only_role_sql"]

logger = logging.getLogger(__name__)

_ROLE_SQL = ("SELECT current_user, r.rolsuper, r.rolcreaterole, r.rolcreatedb, "
             "has_database_privilege(current_database(), 'CREATE') "
             "FROM pg_roles r WHERE r.rolname = current_user")  # fmt: skip
_WRITABLE_SQL = (
    "SELECT n.nspname || '.' || c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
    "WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema') "
    "AND n.nspname NOT LIKE 'pg\\_%' AND (has_table_privilege(c.oid, 'INSERT') OR "
    "has_table_privilege(c.oid, 'UPDATE') OR has_table_privilege(c.oid, 'DELETE') OR "
    "has_table_privilege(c.oid, 'TRUNCATE')) ORDER BY 1 LIMIT 6"
)
_CREATE_SQL = ("SELECT n.nspname FROM pg_namespace n WHERE n.nspname NOT LIKE 'pg\\_%' "
               "AND n.nspname <> 'information_schema' AND has_schema_privilege(n.oid, 'CREATE') ORDER BY 1 LIMIT 6")


@dataclass(frozen=True)
class RoleReport:
    role: str
    superuser: bool = False
    can_create_roles_or_databases: bool = False
    writable_tables: tuple[str, ...] = ()  # a few examples
    creatable_schemas: tuple[str, ...] = ()

    @property
    def read_only(self) -> bool:
        return not (self.superuser or self.can_create_roles_or_databases or self.writable_tables
                    or self.creatable_schemas)  # fmt: skip

    def problems(self) -> list[str]:
        out = []
        if self.superuser:
            out.append(f"role {self.role!r} is a superuser")
        if self.can_create_roles_or_databases:
            out.append(f"role {self.role!r} can create roles or databases")
        if self.writable_tables:
            out.append(f"it can write to tables such as {', '.join(self.writable_tables[:3])}")
        if self.creatable_schemas:
            out.append(f"it can create objects in schema {', '.join(self.creatable_schemas[:3])}")
        return out


def check_privileges(database: Database) -> RoleReport | None:
    """The connecting role's powers on a PostgreSQL database (None for SQLite, opened read-only anyway)."""
    if database.dialect != "postgres":
        return None
    role_row = database.execute(_ROLE_SQL).rows[0]
    writable = tuple(str(r[0]) for r in database.execute(_WRITABLE_SQL).rows)
    creatable = tuple(str(r[0]) for r in database.execute(_CREATE_SQL).rows)
    return RoleReport(role=str(role_row[0]), superuser=bool(role_row[1]),
                      can_create_roles_or_databases=bool(role_row[2] or role_row[3]),
                      writable_tables=writable, creatable_schemas=creatable)  # fmt: skip


def read_only_role_sql(database_name: str, role: str = "cairn_reader") -> str:
    """The statements a DBA runs to give Cairn a read-only role (shown by ``cairn doctor``)."""
    return (f"CREATE ROLE {role} LOGIN PASSWORD '<choose one>';\n"
            f"GRANT CONNECT ON DATABASE \"{database_name}\" TO {role};\n"
            f"GRANT USAGE ON SCHEMA public TO {role};\n"
            f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role};\n"
            f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO {role};\n"
            f"ALTER ROLE {role} SET default_transaction_read_only = on;")  # fmt: skip
