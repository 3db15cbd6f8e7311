"""MySQL and MariaDB, through PyMySQL: :class:`MysqlDatabase`."""

from core.databases.mysql._database import MYSQL_SCHEMES, MysqlDatabase, write_privileges

__all__ = ["MYSQL_SCHEMES", "MysqlDatabase", "write_privileges"]
