"""MySQL and MariaDB through PyMySQL: ``cairn ask --db mysql://reader@db.local/sales`` (or ``mariadb://``).

Every query runs on a fresh connection in a read-only session (``SET SESSION TRANSACTION READ ONLY``: DDL, which
commits a transaction and runs outside it, is refused too) and ``START TRANSACTION READ ONLY``, with the statement
time limit
(MariaDB ``max_statement_time``, MySQL ``max_execution_time``), is rolled back, and its rows stream through an
unbuffered cursor under the row and byte caps. A timeout or a cancel is also sent as ``KILL QUERY`` from a second
connection, so the server stops working, not just the client waiting. Introspection reads information_schema:
columns with their comments, primary and foreign keys, value hints from a bounded sample.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from contextlib import contextmanager
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote, urlsplit

from core.cancellation import Cancellation
from core.databases._base import QueryLimits, QueryResult
from core.databases._fetch import RowCollector
from core.databases._inferred_keys import SAMPLE_ROWS, with_inferred_keys
from core.databases._shared import HINT_SAMPLE_ROWS, MAX_HINT_VALUE_CHARS, MAX_VALUE_HINTS, cached_schema, clean_hints, forget_schema
from core.databases.connections import redact_url
from core.errors import (AuthenticationFailed, ConfigError, DatabaseError, DatabaseUnavailable, QueryCancelled,
                         QueryFailed, QueryTimeout)
from core.schema import Column, ForeignKey, Schema, Table

__all__ = ["MYSQL_SCHEMES", "MysqlDatabase", "write_privileges"]

logger = logging.getLogger(__name__)

MYSQL_SCHEMES = ("mysql", "mariadb")
CONNECT_TIMEOUT_S = 10
_BATCH = 500
_TEXT = ("char", "text", "enum", "set")


def _q(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


class MysqlDatabase:
    """One MySQL/MariaDB database reached by a ``mysql://user:password@host:port/db`` URL (``?unix_socket=``)."""

    dialect = "mysql"
    reads = "mysql:// and mariadb:// URLs"

    def __init__(self, url: str) -> None:
        try:
            import pymysql  # noqa: F401 - fail here, with a hint, not on the first question
        except ImportError as exc:  # pragma: no cover - a dependency of the project
            raise ConfigError("MySQL/MariaDB needs PyMySQL.", hint="Reinstall Cairn.") from exc
        parts = urlsplit(url)
        if parts.scheme.lower() not in MYSQL_SCHEMES or not parts.path.strip("/"):
            raise ConfigError(f"Cannot read the MySQL URL {redact_url(url)}.",
                              hint="Use mysql://user:password@host:3306/database (or ?unix_socket=/path).")
        query = dict(p.split("=", 1) for p in parts.query.split("&") if "=" in p)
        self._kwargs: dict[str, Any] = {
            "user": unquote(parts.username or ""), "password": unquote(parts.password or ""),
            "database": unquote(parts.path.strip("/")), "connect_timeout": CONNECT_TIMEOUT_S, "charset": "utf8mb4",
            "autocommit": False,
        }
        if query.get("unix_socket"):
            self._kwargs["unix_socket"] = unquote(query["unix_socket"])
        else:
            self._kwargs.update(host=parts.hostname or "127.0.0.1", port=parts.port or 3306)
        where = query.get("unix_socket") or f"{parts.hostname or '127.0.0.1'}:{parts.port or 3306}"
        self.id = f"mysql://{self._kwargs['user']}@{where}/{self._kwargs['database']}"
        self._mariadb: bool | None = None
        self._closed = False

    def __repr__(self) -> str:
        return f"MysqlDatabase({self.id!r})"

    # -- connections ----------------------------------------------------------------------------------------

    @contextmanager
    def _connection(self, wait_s: float = 60.0) -> Iterator[Any]:
        """A new connection; a server that stops answering is given up after ``wait_s`` (not only at connect)."""
        import pymysql

        if self._closed:
            raise DatabaseUnavailable(f"The connection to {self.id} was closed.", hint="Open the database again.")
        try:
            conn = pymysql.connect(**self._kwargs, read_timeout=wait_s, write_timeout=wait_s)
        except pymysql.err.OperationalError as exc:
            code = exc.args[0] if exc.args else 0
            if code in (1044, 1045, 1698):
                raise AuthenticationFailed(f"{self.id} refused the login: {exc.args[-1]}",
                                           hint="Check the user name and password.") from exc
            raise DatabaseUnavailable(f"Cannot reach {self.id}: {exc.args[-1]}",
                                      hint="Check that the server runs and the host and port are right.") from exc
        try:
            if self._mariadb is None:
                with conn.cursor() as cur:
                    cur.execute("SELECT VERSION()")
                    self._mariadb = "mariadb" in str(cur.fetchone()[0]).lower()
            yield conn
        finally:
            conn.close()

    def _kill(self, thread_id: int) -> None:
        """Stop the running statement of connection ``thread_id`` from a second connection."""
        import pymysql

        try:
            killer = pymysql.connect(**{**self._kwargs, "connect_timeout": 5})
            try:
                with killer.cursor() as cur:
                    cur.execute(f"KILL QUERY {int(thread_id)}")
            finally:
                killer.close()
        except pymysql.Error as exc:
            logger.info("KILL QUERY %s failed: %s", thread_id, exc)

    # -- Database protocol ------------------------------------------------------------------------------------

    def schema(self, *, refresh: bool = False) -> Schema:
        return cached_schema(self.id, self._introspect, refresh=refresh)

    def execute(self, sql: str, *, limits: QueryLimits = QueryLimits(), cancel: Cancellation | None = None
                ) -> QueryResult:
        """One statement in a read-only transaction with the server's time limit; rolled back; rows capped."""
        import pymysql

        limits = limits.clamped()
        if cancel is not None:
            cancel.raise_if_cancelled()
        if not _plain_query(sql):
            raise QueryFailed("Only a plain query runs on MySQL/MariaDB: this statement was refused before it was sent.",
                              hint="Ask a question, or run a SELECT.")
        started = time.perf_counter()
        collector = RowCollector(limits)
        with self._connection(limits.timeout_s + 15) as conn:
            thread_id = conn.thread_id()
            stopped = {"by": ""}

            def stop(reason: str) -> None:
                stopped["by"] = stopped["by"] or reason
                self._kill(thread_id)

            timer = threading.Timer(limits.timeout_s + 0.5, stop, ("timeout",))  # the server's own limit first
            timer.daemon = True
            unregister = cancel.register(lambda: stop("cancel")) if cancel is not None else None
            try:
                with conn.cursor() as cur:
                    if self._mariadb:
                        cur.execute(f"SET SESSION max_statement_time = {limits.timeout_s:.3f}")
                    else:
                        cur.execute(f"SET SESSION max_execution_time = {int(limits.timeout_s * 1000)}")
                    cur.execute("SET SESSION TRANSACTION READ ONLY")  # DDL would commit a transaction and run
                    cur.execute("START TRANSACTION READ ONLY")
                timer.start()
                with conn.cursor(pymysql.cursors.SSCursor) as cur:
                    cur.execute(sql)
                    columns = tuple(d[0] for d in cur.description or ())
                    while cur.description and collector.wanted:
                        batch = cur.fetchmany(min(_BATCH, collector.wanted))
                        if not batch or not all(collector.add(row) for row in batch):
                            break
            except pymysql.Error as exc:
                raise self._query_error(exc, stopped["by"], cancel, limits) from exc
            finally:
                timer.cancel()
                if unregister is not None:
                    unregister()
                try:
                    conn.rollback()
                except pymysql.Error:
                    pass
        return collector.result(columns, started)

    def grants(self) -> tuple[str, list[str]]:
        """The account Cairn logs in as and its grants (``SHOW GRANTS``), for ``cairn doctor``."""
        with self._connection() as conn, conn.cursor() as cur:
            cur.execute("SELECT CURRENT_USER()")
            account = str(cur.fetchone()[0])
            cur.execute("SHOW GRANTS")
            return account, [str(r[0]) for r in cur.fetchall()]

    def read_only_account_sql(self) -> str:
        """The statements a DBA runs to give Cairn an account that can only read this database."""
        db = _q(self._kwargs["database"])
        return (f"CREATE USER 'cairn_reader'@'%' IDENTIFIED BY '<a password>';\n"
                f"GRANT SELECT, SHOW VIEW ON {db}.* TO 'cairn_reader'@'%';")

    def close(self) -> None:
        self._closed = True

    def forget_schema(self) -> None:
        forget_schema(self.id)

    @staticmethod
    def _query_error(exc: Exception, stopped: str, cancel: Cancellation | None, limits: QueryLimits) -> DatabaseError:
        code = exc.args[0] if exc.args and isinstance(exc.args[0], int) else 0
        text = str(exc.args[-1]) if exc.args else type(exc).__name__
        if stopped == "cancel" or (cancel is not None and cancel.cancelled):
            return QueryCancelled("The query was cancelled.")
        if stopped == "timeout" or code in (1969, 3024) or "max_statement_time" in text:
            return QueryTimeout(f"The query ran past the timeout of {limits.timeout_s:g} s and was stopped.")
        if code in (2006, 2013):
            return DatabaseUnavailable(f"The server stopped answering or closed the connection: {text}",
                                       hint="Check that the MySQL/MariaDB server runs and is not overloaded.")
        return QueryFailed(text)

    # -- introspection ----------------------------------------------------------------------------------------

    def _introspect(self) -> Schema:
        with self._connection() as conn, conn.cursor() as cur:
            db = self._kwargs["database"]
            cur.execute("SELECT table_name, table_comment FROM information_schema.tables WHERE table_schema = %s "
                        "ORDER BY table_name", (db,))
            tables = {r[0]: r[1] or None for r in cur.fetchall()}
            cur.execute("SELECT table_name, column_name, column_type, is_nullable, column_default, column_comment "
                        "FROM information_schema.columns WHERE table_schema = %s ORDER BY table_name, "
                        "ordinal_position", (db,))
            columns: dict[str, list[Column]] = {}
            for table, name, type_, nullable, default, comment in cur.fetchall():
                columns.setdefault(table, []).append(
                    Column(name, str(type_), nullable == "YES", None if default is None else str(default),
                           comment or None))
            cur.execute("SELECT k.table_name, k.column_name, k.referenced_table_name, k.referenced_column_name, "
                        "k.constraint_name FROM information_schema.key_column_usage k WHERE k.table_schema = %s "
                        "ORDER BY k.table_name, k.constraint_name, k.ordinal_position", (db,))
            keys: dict[str, list[str]] = {}
            refs: dict[tuple[str, str], list[tuple[str, str, str]]] = {}
            for table, column, ref_table, ref_column, constraint in cur.fetchall():
                if constraint == "PRIMARY":
                    keys.setdefault(table, []).append(column)
                elif ref_table:
                    refs.setdefault((table, constraint), []).append((column, ref_table, ref_column))
            out = []
            for name, comment in tables.items():
                cols = columns.get(name, [])
                hints = self._value_hints(cur, name, cols)
                fks = tuple(ForeignKey(tuple(c for c, _, _ in parts), parts[0][1], tuple(r for _, _, r in parts))
                            for (table, _), parts in refs.items() if table == name)
                out.append(Table(name, tuple(Column(c.name, c.type, c.nullable, c.default, c.comment,
                                                    value_hints=hints.get(c.name, ())) for c in cols),
                                 primary_key=tuple(keys.get(name, ())), foreign_keys=fks, comment=comment))
            schema = Schema(dialect="mysql", tables=tuple(out), database_id=self.id)
            return with_inferred_keys(schema, lambda t, c, r, k: self._orphan_found(cur, t, c, r, k))

    @staticmethod
    def _value_hints(cur: Any, table: str, columns: list[Column]) -> dict[str, tuple[str, ...]]:
        import pymysql

        out: dict[str, tuple[str, ...]] = {}
        for col in columns:
            if not col.type.lower().startswith(_TEXT) and "char" not in col.type.lower():
                continue
            try:
                cur.execute(f"SELECT v FROM (SELECT LEFT({_q(col.name)}, {MAX_HINT_VALUE_CHARS + 1}) AS v FROM "
                            f"(SELECT {_q(col.name)} FROM {_q(table)} LIMIT {HINT_SAMPLE_ROWS}) s) t WHERE v IS NOT "
                            f"NULL GROUP BY v ORDER BY COUNT(*) DESC, v LIMIT {MAX_VALUE_HINTS + 1}")
                out[col.name] = clean_hints(r[0] for r in cur.fetchall())
            except pymysql.Error as exc:
                logger.info("no value hints for %s.%s: %s", table, col.name, exc)
        return out

    @staticmethod
    def _orphan_found(cur: Any, table: Table, col: Column, ref: Table, key: Column) -> bool:
        cur.execute(f"SELECT 1 FROM (SELECT {_q(col.name)} AS v FROM {_q(table.name)} WHERE {_q(col.name)} IS NOT "
                    f"NULL LIMIT {SAMPLE_ROWS}) s WHERE NOT EXISTS (SELECT 1 FROM {_q(ref.name)} r WHERE "
                    f"r.{_q(key.name)} = s.v) LIMIT 1")
        return cur.fetchone() is not None


def _plain_query(sql: str) -> bool:
    """A SELECT (or WITH/VALUES/TABLE) with no INTO anywhere: not ``SET``, ``DO``, ``HANDLER`` or ``CALL``, and no
    ``INTO OUTFILE``/``DUMPFILE``/``@var`` (which a read-only transaction does not stop), read by MySQL's tokenizer;
    and no executable comment (``/*!50000 INTO OUTFILE … */``), which the tokenizer drops and the server runs."""
    from sqlglot.dialects.mysql import MySQL
    from sqlglot.errors import SqlglotError

    if _EXECUTABLE_COMMENT.search(sql):  # /*! … */ and /*M! … */ are run by the server: never "just a comment"
        return False
    try:
        tokens = [t for t in MySQL().tokenize(sql) if t.text != "("]
    except SqlglotError:
        return False
    if not tokens or tokens[0].text.upper() not in ("SELECT", "WITH", "VALUES", "TABLE"):
        return False
    return not any(t.text.upper() in ("INTO", "OUTFILE", "DUMPFILE") and t.token_type.name != "STRING" for t in tokens)


_EXECUTABLE_COMMENT = re.compile(r"/\*\s*M?!")
_READ_PRIVILEGES = frozenset({"SELECT", "SHOW VIEW", "USAGE", "SHOW DATABASES", "PROCESS", "REPLICATION CLIENT"})


def write_privileges(grants: list[str]) -> list[str]:
    """The privileges in ``SHOW GRANTS`` lines that let the account change something (not SELECT/SHOW VIEW/USAGE)."""
    found: list[str] = []
    for line in grants:
        head = line.upper().split(" ON ", 1)[0].removeprefix("GRANT ").strip()
        if head.startswith("PROXY"):
            continue
        for privilege in (p.strip() for p in head.split(",")):
            if privilege and privilege not in _READ_PRIVILEGES and privilege not in found:
                found.append(privilege)
    return found
