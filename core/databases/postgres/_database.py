"""PostgreSQL backend: a small psycopg pool, read-only transactions that are always rolled back, capped fetches.

Defence in depth: every query runs inside ``BEGIN READ ONLY`` with ``statement_timeout``, ``work_mem`` and (where
the role may) ``temp_file_limit`` set locally, through the extended protocol (one statement only, so
``...; COMMIT; INSERT ...`` cannot escape the transaction), and the transaction is rolled back afterwards; the
session is reset with ``DISCARD ALL`` before the pool reuses it. Rows come through a server-side cursor in
bounded batches, with long values cut on the server (:mod:`core.databases.postgres._fetch`); a watchdog
(:mod:`core.databases.postgres._deadline`) cancels, then abandons, a query the server does not stop in time.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from core.cancellation import Cancellation
from core.databases.postgres import _fetch as fetch
from core.databases.postgres._deadline import Watchdog
from core.databases._base import QueryLimits, QueryResult
from core.databases._fetch import human_size
from core.databases._shared import cached_schema, forget_schema
from core.databases.connections import parse_postgres_url, postgres_id, redact_url
from core.errors import (
    AuthenticationFailed,
    CairnError,
    DatabaseError,
    DatabaseUnavailable,
    QueryCancelled,
    QueryFailed,
    QueryTimeout,
)
from core.schema import Schema

__all__ = ["PostgresDatabase"]

logger = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 10
POOL_TIMEOUT_S = 10.0
FIRST_WAIT_S = 1.0  # then the server is probed: a stopped server is reported at once
CANCEL_TIMEOUT_S = 5.0
_DECLARE_PREFIX = fetch.DECLARE_PREFIX
_TEMP_SPILL_HINT = ("Narrow the question: filter the rows, aggregate before sorting, or add a LIMIT; sorting, "
                    "grouping or joining everything spills to temporary files.")

_LOST_HINT = ("The database server stopped or dropped the connection: start it again (or check the network), then "
              "ask again; Cairn reconnects by itself.")

# libpq reports connection failures as text only (no SQLSTATE): these server phrases mean "who you are".
_AUTH_PHRASES = (
    "password authentication failed",
    "authentication failed",
    "no password supplied",
    "fe_sendauth",
    "is not permitted to log in",
    "pg_hba.conf",
    "permission denied for database",
)


class PostgresDatabase:
    """One PostgreSQL database reached by a libpq URL; the pool opens on first use."""

    dialect = "postgres"

    def __init__(self, url: str, *, pool_size: int = 4, connect_timeout: int = CONNECT_TIMEOUT_S) -> None:
        self._params = parse_postgres_url(url)  # raises ConfigError on a malformed URL
        self._url = url
        self.id = postgres_id(url)
        self._pool_size = max(1, pool_size)
        self._connect_timeout = connect_timeout
        self._pool: Any = None
        self._lock = threading.Lock()
        self._closed = False
        self._in_use = 0
        self._may_limit_temp: bool | None = None  # whether the role may set temp_file_limit; asked once
        # Starts the server again when it is Cairn's own (embedded) and its postmaster died; set by open_target.
        self.revive: Callable[[], bool] | None = None

    def __repr__(self) -> str:
        return f"PostgresDatabase({self.id!r})"

    # -- connections -------------------------------------------------------------------------------------

    def _connect_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"prepare_threshold": None}
        if "connect_timeout" not in self._params:
            kwargs["connect_timeout"] = self._connect_timeout
        if "application_name" not in self._params:
            kwargs["application_name"] = "cairn"
        return kwargs

    def _probe(self) -> None:
        """Connect once outside the pool, so a wrong password or a dead host fails at once with its reason.

        When the server is Cairn's embedded one and its postmaster died (killed mid-batch), it is started again
        once and the connection tried once more: later questions work instead of all failing."""
        import psycopg

        try:
            psycopg.connect(self._url, **self._connect_kwargs()).close()
            return
        except psycopg.Error as exc:
            error = self._connect_error(exc)
            if self.revive is None or isinstance(error, AuthenticationFailed):
                raise error from exc
        try:
            if not self.revive():
                raise error
        except CairnError as exc:
            if exc is error:
                raise
            raise DatabaseUnavailable(f"{error} The embedded database server stopped and could not be started "
                                      f"again: {exc}", hint=exc.hint) from exc
        try:
            psycopg.connect(self._url, **self._connect_kwargs()).close()
        except psycopg.Error as exc:
            raise self._connect_error(exc) from exc

    def _connect_error(self, exc: Exception) -> DatabaseError:
        text = str(exc)
        low = text.lower()
        where = redact_url(self.id)
        if "database" in low and "does not exist" in low:
            return DatabaseUnavailable(
                f"Cannot connect to {where}: {text}",
                hint="The database name is wrong or the database was dropped; check the name in the URL.",
            )
        if any(p in low for p in _AUTH_PHRASES) or ("role" in low and "does not exist" in low):
            return AuthenticationFailed(f"The server refused the login for {where}: {text}")
        return DatabaseUnavailable(f"Cannot connect to {where}: {text}")

    def _get_pool(self) -> Any:
        with self._lock:
            if self._closed:
                raise DatabaseUnavailable(f"The connection to {self.id} was closed.", hint="Open the database again.")
            if self._pool is not None:
                return self._pool
            self._probe()
            from psycopg_pool import ConnectionPool

            pool = ConnectionPool(
                self._url,
                min_size=1,
                max_size=self._pool_size,
                timeout=POOL_TIMEOUT_S,
                kwargs=self._connect_kwargs(),
                configure=_configure,
                reset=_reset,
                check=ConnectionPool.check_connection,
                name=f"cairn:{self.id}",
                open=False,
            )
            pool.open(wait=False)
            self._pool = pool
            return pool

    @contextmanager
    def _connection(self) -> Iterator[Any]:
        """A pooled connection; when the pool has none although not all are in use, the server is asked at once.

        After the server went away the pool reconnects with a growing back-off: without this a stopped server
        is reported only after POOL_TIMEOUT_S, and a restarted one is used again only seconds later.
        """
        from psycopg_pool import PoolTimeout

        pool = self._get_pool()
        conn: Any = None
        try:
            conn = pool.getconn(timeout=FIRST_WAIT_S)
        except PoolTimeout:
            self._probe()  # raises the real reason (down, login refused) when the server is the problem
        if conn is None:
            with self._lock:
                busy = self._in_use >= self._pool_size
            if not busy:  # the server answers but the pool is still backing off: use a connection of our own
                yield from self._direct_connection()
                return
            try:
                conn = pool.getconn(timeout=POOL_TIMEOUT_S)
            except PoolTimeout as exc:
                self._probe()
                raise DatabaseUnavailable(
                    f"No free connection to {self.id} within {POOL_TIMEOUT_S:.0f} s.",
                    hint="Other queries are still running; wait for them or cancel them and try again.",
                ) from exc
        with self._lock:
            self._in_use += 1
        try:
            yield conn
        finally:
            with self._lock:
                self._in_use -= 1
            pool.putconn(conn)  # the pool rolls back, resets, or discards a broken connection

    def _direct_connection(self) -> Iterator[Any]:
        import psycopg

        try:
            conn = psycopg.connect(self._url, **self._connect_kwargs())
        except psycopg.Error as exc:
            raise self._connect_error(exc) from exc
        logger.info("pool of %s is reconnecting; using a direct connection meanwhile", self.id)
        try:
            _configure(conn)
            yield conn
        finally:
            conn.close()

    # -- Database protocol --------------------------------------------------------------------------------

    def schema(self, *, refresh: bool = False) -> Schema:
        """Introspected schema, cached per database id until ``refresh``.

        The cache is shared by every connection to the same database, so this connection first proves it can
        log in: a wrong password must not look connected just because another connection read the schema.
        """
        self._get_pool()
        return cached_schema(self.id, self._introspect, refresh=refresh)

    def _introspect(self) -> Schema:
        import psycopg

        from core.databases.postgres._introspect import introspect

        with self._connection() as conn:
            try:
                return introspect(conn, self.id)
            except psycopg.Error as exc:
                _rollback_quietly(conn)
                raise self._query_error(exc, None, "", 0) from exc

    def execute(
        self, sql: str, *, limits: QueryLimits = QueryLimits(), cancel: Cancellation | None = None
    ) -> QueryResult:
        """Run one statement read-only; at most ``limits.max_rows`` rows and ``limits.max_bytes`` of cells
        (``truncated`` and a ``note`` when more), any cell longer than ``limits.max_cell_bytes`` cut and marked."""
        import psycopg

        limits = limits.clamped()
        if cancel is not None:
            cancel.raise_if_cancelled()
        started = time.perf_counter()
        if _starts_with_copy(sql):
            # A read-only transaction still allows COPY ... TO (a file, or a shell PROGRAM for a superuser).
            raise QueryFailed("COPY is not allowed: Cairn only runs read-only queries.",
                              hint="Ask for the rows instead; export them with --csv or Export CSV.")
        use_cursor = _is_plain_query(sql)
        with self._connection() as conn:
            canceller = _Canceller(conn)
            unregister = cancel.register(canceller) if cancel is not None else None
            watchdog = Watchdog(conn, limits.timeout_s)  # the call returns soon after the timeout, stuck server or not
            try:
                try:
                    if cancel is not None:
                        cancel.raise_if_cancelled()  # cancelled between the first check and register()
                    with watchdog:
                        self._apply_session_limits(conn, limits)
                        result = fetch.run(conn, sql, limits, use_cursor=use_cursor, started=started)
                finally:
                    canceller.done()
                    if unregister is not None:
                        unregister()
            except psycopg.Error as exc:
                if not watchdog.abandoned:
                    _rollback_quietly(conn)
                if watchdog.fired and not (cancel is not None and cancel.cancelled):
                    how = "; its connection was given up" if watchdog.abandoned else ""
                    raise QueryTimeout(f"The query ran past the statement timeout of {limits.timeout_s:g} s and the "
                                       f"server did not stop it in time{how}.") from exc
                offset = len(_DECLARE_PREFIX) if use_cursor else 0
                raise self._query_error(exc, cancel, sql, offset, limits) from exc
            except DatabaseError:  # our own (the total timeout between batches): the transaction still ends
                _rollback_quietly(conn)
                raise
            except MemoryError as exc:
                _rollback_quietly(conn)
                raise QueryFailed("The result is too large to hold in memory.",
                                  hint="Select fewer or shorter columns, or add a LIMIT.") from exc
            _rollback_quietly(conn)
        return result

    def _apply_session_limits(self, conn: Any, limits: QueryLimits) -> None:
        if self._may_limit_temp is None:
            self._may_limit_temp = fetch.can_limit_temp_files(conn)
            if not self._may_limit_temp:
                logger.info("the role of %s may not set temp_file_limit: temporary files of its queries are only "
                            "bounded by the statement timeout (GRANT SET ON PARAMETER temp_file_limit to it)", self.id)
        in_force = fetch.apply_session_limits(conn, limits, limit_temp=self._may_limit_temp)
        if self._may_limit_temp and limits.temp_file_bytes > 0 and not in_force:
            logger.warning("%s refused temp_file_limit; its queries go on without it", self.id)
            self._may_limit_temp = False

    def close(self) -> None:
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()

    def forget_schema(self) -> None:
        """Drop the cached schema (the next ``schema()`` introspects again)."""
        forget_schema(self.id)

    # -- errors -------------------------------------------------------------------------------------------

    def _query_error(
        self,
        exc: Exception,
        cancel: Cancellation | None,
        sql: str,
        offset: int,
        limits: QueryLimits | None = None,
    ) -> DatabaseError:
        import psycopg
        from psycopg import errors as pge

        if isinstance(exc, pge.QueryCanceled):
            if cancel is not None and cancel.cancelled:
                return QueryCancelled("The query was cancelled; the database stopped it.")
            timeout = f" of {limits.timeout_s:g} s" if limits else ""
            return QueryTimeout(f"The query ran past the statement timeout{timeout} and was stopped.")
        sqlstate = getattr(exc, "sqlstate", None) or ""
        if sqlstate.startswith(("53", "54")):
            return _resource_error(exc, sqlstate, limits)
        conn_lost = isinstance(exc, psycopg.OperationalError) and not sqlstate
        if conn_lost or sqlstate.startswith("08") or sqlstate in ("57P01", "57P02", "57P03"):
            return DatabaseUnavailable(f"Lost the connection to {self.id}: {exc}", hint=_LOST_HINT)
        return QueryFailed(describe_server_error(exc, sql, offset))


def _configure(conn: Any) -> None:
    """Every pooled connection starts each transaction with BEGIN READ ONLY."""
    conn.read_only = True


def _reset(conn: Any) -> None:
    """Forget anything a query left on the session (advisory locks, prepared statements) before reuse."""
    conn.autocommit = True
    try:
        conn.execute("DISCARD ALL")
    finally:
        conn.autocommit = False
    conn.read_only = True


def _rollback_quietly(conn: Any) -> None:
    import psycopg

    try:
        conn.rollback()
    except psycopg.Error as exc:  # a broken connection: the pool discards it
        logger.debug("rollback failed: %s", exc)


class _Canceller:
    """Calls ``conn.cancel_safe`` only while this query runs, never after the connection went back to the pool."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn
        self._lock = threading.Lock()
        self._active = True

    def __call__(self) -> None:
        with self._lock:
            if self._active:
                try:
                    self._conn.cancel_safe(timeout=CANCEL_TIMEOUT_S)
                except Exception as exc:  # noqa: BLE001 - the query may have ended meanwhile
                    logger.debug("cancel request failed: %s", exc)

    def done(self) -> None:
        with self._lock:
            self._active = False


def _starts_with_copy(sql: str) -> bool:
    """True when the statement's first keyword is COPY (comments and parentheses skipped by the tokenizer)."""
    import sqlglot

    try:
        tokens = sqlglot.tokenize(sql, read="postgres")
    except sqlglot.errors.SqlglotError:
        return sql.lstrip().lower().startswith("copy")
    return bool(tokens) and tokens[0].text.upper() == "COPY"


def _is_plain_query(sql: str) -> bool:
    """True for a single SELECT/UNION/VALUES-style query that can be declared as a cursor."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.tokens import TokenType

    try:
        tokens = sqlglot.tokenize(sql, read="postgres")
    except sqlglot.errors.SqlglotError:
        return True  # let the server report the error
    if not tokens:
        return True
    starts = (TokenType.SELECT, TokenType.WITH, TokenType.VALUES, TokenType.TABLE, TokenType.L_PAREN)
    if tokens[0].token_type not in starts:
        return False  # SHOW, EXPLAIN, writes...: parsing them would only log sqlglot's "unsupported" warning
    try:
        statements = [s for s in sqlglot.parse(sql, read="postgres") if s is not None]
    except sqlglot.errors.SqlglotError:
        return True
    if len(statements) != 1:
        return False
    tree = statements[0]
    if not isinstance(tree, exp.Query) or tree.args.get("into") is not None:
        return False
    return tree.find(exp.Insert, exp.Update, exp.Delete, exp.Merge) is None


def _resource_error(exc: Exception, sqlstate: str, limits: QueryLimits | None) -> QueryFailed:
    """A query stopped by a limit on disk, memory or sizes: what happened, in words, and what to do."""
    server = describe_server_error(exc, "")
    if sqlstate == "53400" and "temp_file_limit" in server:
        limit = f" of {human_size(limits.temp_file_bytes)}" if limits and limits.temp_file_bytes > 0 else ""
        return QueryFailed(f"The query needed more temporary disk space than its limit{limit} and was stopped "
                           f"({server}).", hint=_TEMP_SPILL_HINT)
    if sqlstate == "53100":
        return QueryFailed(f"The database server ran out of disk space while running the query ({server}).",
                           hint=_TEMP_SPILL_HINT + " Ask the database's administrator to free disk space.")
    if sqlstate == "53200":
        return QueryFailed(f"The database server ran out of memory while running the query ({server}).",
                           hint=_TEMP_SPILL_HINT)
    return QueryFailed(f"The query hit a limit of the database server ({server}).",
                       hint="A value or a result is larger than the server allows; select less, or add a LIMIT.")


def describe_server_error(exc: Exception, sql: str, offset: int = 0) -> str:
    """The server's message, detail, hint and the offending line of ``sql`` (what a person or LLM needs)."""
    diag = getattr(exc, "diag", None)
    primary = getattr(diag, "message_primary", None)
    if not primary:
        return str(exc).strip() or type(exc).__name__
    parts = [primary]
    if diag.message_detail:
        parts.append(f"DETAIL: {diag.message_detail}")
    if diag.message_hint:
        parts.append(f"HINT: {diag.message_hint}")
    position = diag.statement_position
    if position and sql:
        try:
            pos = int(position) - 1 - offset
        except ValueError:
            pos = -1
        if 0 <= pos <= len(sql):
            line_no = sql.count("\n", 0, pos) + 1
            line_start = sql.rfind("\n", 0, pos) + 1
            line_end = sql.find("\n", pos)
            line = sql[line_start : line_end if line_end >= 0 else len(sql)]
            prefix = f"LINE {line_no}: "
            parts.append(f"{prefix}{line}\n{' ' * (len(prefix) + pos - line_start)}^")
    return "\n".join(parts)
