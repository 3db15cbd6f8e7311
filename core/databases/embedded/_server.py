"""The embedded PostgreSQL (with pgvector) that hosts the sample database and the memory store.

Started on demand in the data directory (see :mod:`core.databases.embedded._cluster` for where the cluster lives and
why only its owner can reach it); reused when already running; stopped when the last Cairn process using it
exits. Three roles: ``postgres`` (superuser) only for setting databases up, ``cairn_query`` (read-only, the
sample database only) for questions, ``cairn_memory`` (owner of ``cairn_memory`` only) for memories.
"""

from __future__ import annotations

import atexit
import errno
import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from core.config import data_dir
from core.databases.embedded import _cluster as cluster
from core.databases.embedded._limits import limit_server_memory
from core.errors import EmbeddedServerError, disk_full_hint
from core.private_files import touch_private

__all__ = ["MEMORY_ROLE", "QUERY_ROLE", "SUPERUSER", "EmbeddedPostgres"]

logger = logging.getLogger(__name__)

LOCK_TIMEOUT_S = 60.0
WATCH_INTERVAL_S = 2.0  # how often a process using the server looks whether its data directory still exists
_SETUP_LOCK = 0x43A1_5E70  # pg_advisory_lock key: one process at a time creates databases on the server
SUPERUSER, QUERY_ROLE, MEMORY_ROLE = cluster.ROLES
# Each of our roles with its settings (global and per database), as they are after _ensure_roles.
_ROLE_STATE_SQL = ("SELECT r.rolname, s.setdatabase, s.setconfig FROM pg_roles r LEFT JOIN pg_db_role_setting s "
                   "ON s.setrole = r.oid WHERE r.rolname = ANY(%s) ORDER BY 1, 2")  # fmt: skip
_EXPECTED_ROLE_STATE = [(MEMORY_ROLE, None, None), (QUERY_ROLE, 0, ["default_transaction_read_only=on"])]


class EmbeddedPostgres:
    """One embedded server per data directory."""

    def __init__(self, root: Path | None = None, *, stop_at_exit: bool = True) -> None:
        self.root = (root or data_dir()).resolve()
        self.pgdata = cluster.cluster_dir(self.root)
        self._stop_at_exit = stop_at_exit
        self._socket_dir: Path | None = None
        self._in_use = False  # started by this process and not stopped: revive() may start it again
        self._pid: int | None = None  # the postmaster's, kept for when postmaster.pid goes with a deleted folder
        self._deleted = False  # its data directory was deleted while this process used it
        self._watching = threading.Event()  # set while the watcher thread runs; cleared to end it
        self._lock = threading.Lock()

    @property
    def running(self) -> bool:
        return self._socket_dir is not None

    @property
    def socket_dir(self) -> Path | None:
        return self._socket_dir

    def start(self) -> None:
        """Start (or attach to) the server. Raises EmbeddedServerError with a fix hint."""
        with self._lock:
            if self._socket_dir is not None:
                return
            if self._deleted:
                raise self._deleted_error()
            try:
                self.root.mkdir(mode=0o700, parents=True, exist_ok=True)  # a new data directory is private
                with self._file_lock():
                    self._socket_dir = self._start_server()
                    self._add_handle()
            except OSError as exc:  # the lock or the list of processes could not be written
                raise self._os_error(exc) from exc
            self._in_use = True
            running = cluster.read_postmaster(self.pgdata)
            self._pid = running.pid if running is not None else None
            atexit.register(self.stop)
            if not self._watching.is_set():
                self._watching.set()
                threading.Thread(target=self._watch, name="cairn-pgdata-watch", daemon=True).start()
        self._ensure_roles()

    def _watch(self) -> None:
        """While this process uses the server: when the data directory is deleted (``rm -rf`` of it), stop the
        server. Its cluster may live outside that directory (as root), where nothing else would ever stop it."""
        while self._watching.is_set():
            time.sleep(WATCH_INTERVAL_S)
            if self._watching.is_set() and not self.root.exists():
                self._data_dir_gone()
                return

    def _deleted_error(self) -> EmbeddedServerError:
        return EmbeddedServerError(f"The data directory {self.root} was deleted while Cairn was using it.",
                                   hint="Close Cairn and open it again: it starts with a new, empty data directory.")

    def _data_dir_gone(self) -> None:
        with self._lock:
            self._socket_dir, self._in_use, pid = None, False, self._pid
            self._deleted = True  # this process never makes it again behind the person's back
            self._watching.clear()
        atexit.unregister(self.stop)
        logger.warning("the data directory %s was deleted: stopping its database server", self.root)
        if not cluster.stop_postmaster(self.pgdata, pid):
            logger.warning("the database server of the deleted data directory %s did not stop", self.root)

    def revive(self) -> bool:
        """Start the server again when its postmaster died (killed, crashed) after this process started it: the
        one reconnect a question makes before it fails. True when it was started again; False when it was not
        started by this process or still runs (the fault is elsewhere). A deleted data directory is never made
        again: that raises EmbeddedServerError."""
        with self._lock:
            if not self._in_use or cluster.read_postmaster(self.pgdata) is not None:
                return False
            if not self.root.is_dir():
                raise self._deleted_error()
            cluster.clear_dead_server(self.pgdata, self._socket_dir)
            self._socket_dir = None
        logger.warning("the embedded PostgreSQL of %s stopped; starting it again", self.root)
        self.start()
        return True

    @contextmanager
    def _file_lock(self) -> Iterator[None]:
        """Our lock around start-up and shut-down, with a timeout: two Cairn processes never both run initdb
        or both decide to stop the server, and a wedged one does not hang the other for ever."""
        import fasteners

        lock_path = self.root / "pgserver.lock"
        touch_private(lock_path)
        lock = fasteners.InterProcessLock(str(lock_path))
        if not lock.acquire(timeout=LOCK_TIMEOUT_S):
            raise EmbeddedServerError(
                f"The embedded database in {self.pgdata} is locked by another process.",
                hint="Close other Cairn windows or commands and try again; if none runs, "
                f"delete {self.root / 'pgserver.lock'}.",
            )
        try:
            yield
        finally:
            lock.release()

    def _start_server(self) -> Path:
        started = time.perf_counter()
        try:
            cluster.prepare_cluster_dir(self.root, self.pgdata)
            version = self.pgdata / "PG_VERSION"
            if version.exists():
                self._check_version(version)
            else:
                cluster.initdb(self.pgdata)
            running = cluster.read_postmaster(self.pgdata)
            if running is not None:
                logger.info("attached to the embedded PostgreSQL (pid %d) at %s", running.pid, self.pgdata)
                limit_server_memory(running.pid)  # one started by an older Cairn gets the limit too
                return running.socket_dir
            cluster.write_auth_files(self.pgdata)
            socket_dir = cluster.socket_dir_for(self.pgdata)
            cluster.pg_ctl(self.pgdata, "start", socket_dir)  # under the backend data limit (_limits)
        except OSError as exc:
            raise self._os_error(exc) from exc
        logger.info("embedded PostgreSQL ready in %.2fs at %s", time.perf_counter() - started, self.pgdata)
        return socket_dir

    def _add_handle(self) -> None:
        """List this process as a user of the running server. On a full disk the list cannot be written: the
        server is used anyway (reading memories needs no space), only its stop at exit is then less sure."""
        try:
            cluster.update_handles(self.root, add=True)
        except OSError as exc:
            if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
                raise
            logger.warning("the disk of %s is full: this process is not listed as using its database server", self.root)

    def _os_error(self, exc: OSError) -> EmbeddedServerError:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return EmbeddedServerError(f"The embedded database in {self.pgdata} cannot start: the disk is full "
                                       f"({exc.strerror}).", hint=disk_full_hint(self.root))
        return EmbeddedServerError(
            f"The embedded database in {self.pgdata} did not start: {exc}",
            hint="Check that the data directory is yours and writable; if it is damaged, move "
            f"{self.pgdata} aside to start fresh.",
        )

    def _check_version(self, version_file: Path) -> None:
        _, TARGET_POSTGRES_VERSION = cluster.shipped_versions()  # noqa: N806 - the package's own name

        try:
            found = int(version_file.read_text().strip())
        except (OSError, ValueError) as exc:
            raise EmbeddedServerError(
                f"The embedded database in {self.pgdata} cannot be used: unreadable PG_VERSION ({exc}).",
                hint=f"Move {self.pgdata} aside (it may come from another Cairn version) and start again.",
            ) from exc
        if found != TARGET_POSTGRES_VERSION:
            raise EmbeddedServerError(
                f"The embedded database in {self.pgdata} cannot be used: it is PostgreSQL {found}, "
                f"this Cairn runs PostgreSQL {TARGET_POSTGRES_VERSION}.",
                hint=f"Move {self.pgdata} aside (it comes from another Cairn version) and start again.",
            )

    def uri(self, database: str = "postgres", *, role: str = SUPERUSER) -> str:
        """A libpq URI for ``database`` on the embedded server, as ``role`` (peer authentication, no password)."""
        self.start()
        return f"postgresql://{role}:@/{quote(database)}?host={self._socket_dir}"

    def database_id(self, database: str) -> str:
        """The stable id of ``database`` here: the form it had before questions ran as their own role (and
        whatever directory the socket is in), so memories scoped to the sample database keep applying."""
        return f"postgresql://{SUPERUSER}@{self.pgdata}:5432/{quote(database, safe='')}"

    def _ensure_roles(self) -> None:
        """The unprivileged roles exist with the defaults Cairn gives them, and only those: a role may change its
        own defaults (globally or per database), so they are checked at every start and put back if changed.
        Each query also runs in a read-only transaction with its own limits: this is a second line, not the only
        one. One query when all is as it should be."""
        import psycopg

        with psycopg.connect(self.uri(), autocommit=True) as conn:
            if conn.execute(_ROLE_STATE_SQL, ([QUERY_ROLE, MEMORY_ROLE],)).fetchall() == _EXPECTED_ROLE_STATE:
                return
        from psycopg import sql

        with self.setup_lock() as conn:
            for role in (QUERY_ROLE, MEMORY_ROLE):
                name = sql.Identifier(role)
                if not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone():
                    conn.execute(sql.SQL("CREATE ROLE {} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION "
                                         "NOBYPASSRLS").format(name))  # fmt: skip
                conn.execute(sql.SQL("ALTER ROLE {} RESET ALL").format(name))
                for (db,) in conn.execute("SELECT d.datname FROM pg_db_role_setting s JOIN pg_database d ON "
                                          "d.oid = s.setdatabase JOIN pg_roles r ON r.oid = s.setrole "
                                          "WHERE r.rolname = %s", (role,)).fetchall():  # fmt: skip
                    conn.execute(sql.SQL("ALTER ROLE {} IN DATABASE {} RESET ALL").format(name, sql.Identifier(db)))
            conn.execute(sql.SQL("ALTER ROLE {} SET default_transaction_read_only = on").format(
                sql.Identifier(QUERY_ROLE)))
            # Nobody but the superuser connects to the maintenance databases.
            for db in ("postgres", "template1"):
                conn.execute(sql.SQL("REVOKE CONNECT, TEMPORARY ON DATABASE {} FROM PUBLIC").format(
                    sql.Identifier(db)))

    @contextmanager
    def setup_lock(self) -> Iterator[Any]:
        """An autocommit admin connection holding the server-wide setup lock.

        Two Cairn processes on one data directory must not both see a database missing and both create it
        (the second fails, or drops the first one's half-made copy). The lock is a PostgreSQL advisory lock,
        so a process killed while holding it releases it with its connection.
        """
        import psycopg

        try:
            conn = psycopg.connect(self.uri(), autocommit=True)
        except psycopg.Error as exc:
            raise EmbeddedServerError(
                f"Cannot connect to the embedded database in {self.pgdata}: {exc}".strip(),
                hint="Stop other Cairn processes and try again; if that does not help, restart the computer.",
            ) from exc
        with conn:
            try:
                conn.execute(f"SET lock_timeout = '{int(LOCK_TIMEOUT_S * 1000)}ms'")
                conn.execute("SELECT pg_advisory_lock(%s)", (_SETUP_LOCK,))
            except psycopg.Error as exc:
                raise EmbeddedServerError(
                    f"Another process has been setting up the embedded database for over {LOCK_TIMEOUT_S:.0f}s.",
                    hint="Close other Cairn windows or commands and try again.",
                ) from exc
            try:
                yield conn  # closing the connection releases the lock
            except psycopg.Error as exc:  # e.g. CREATE DATABASE on a full disk
                full = getattr(exc, "sqlstate", None) == "53100" or "No space left on device" in str(exc)
                raise EmbeddedServerError(
                    f"The embedded database in {self.pgdata} could not be set up: {str(exc).strip()}",
                    hint=disk_full_hint(self.pgdata) if full else "Stop other Cairn processes and try again.",
                ) from exc

    def ensure_database(self, name: str) -> bool:
        """Create database ``name`` if missing. Returns True when it was created."""
        from psycopg import sql

        with self.setup_lock() as conn:
            exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
            if exists:
                return False
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            return True

    def memory_uri(self, name: str) -> str:
        """Database ``name`` for the memory store, owned by the memory role (which can reach nothing else), with
        pgvector installed; returns its URI as that role. Tables an older Cairn made as superuser move to it."""
        import psycopg
        from psycopg import sql

        db, role = sql.Identifier(name), sql.Identifier(MEMORY_ROLE)
        with self.setup_lock() as conn:
            if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
                conn.execute(sql.SQL("CREATE DATABASE {} OWNER {}").format(db, role))
            conn.execute(sql.SQL("ALTER DATABASE {} OWNER TO {}").format(db, role))
            conn.execute(sql.SQL("REVOKE ALL ON DATABASE {} FROM PUBLIC").format(db))
            conn.execute(sql.SQL("GRANT CONNECT, TEMPORARY ON DATABASE {} TO {}").format(db, role))
            with psycopg.connect(self.uri(name), autocommit=True) as mem:
                mem.execute("CREATE EXTENSION IF NOT EXISTS vector")
                owned = mem.execute("SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                                    "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') "
                                    "AND pg_get_userbyid(c.relowner) <> %s", (MEMORY_ROLE,)).fetchall()  # fmt: skip
                for (table,) in owned:
                    mem.execute(sql.SQL("ALTER TABLE public.{} OWNER TO {}").format(sql.Identifier(table), role))
        return self.uri(name, role=MEMORY_ROLE)

    def grant_read_only(self, name: str) -> str:
        """Let the query role read database ``name`` (SELECT on its tables, nothing else); return its URI as that
        role. Run again after the database's tables change."""
        import psycopg
        from psycopg import sql

        db, role = sql.Identifier(name), sql.Identifier(QUERY_ROLE)
        with self.setup_lock() as conn:
            conn.execute(sql.SQL("REVOKE ALL ON DATABASE {} FROM PUBLIC").format(db))
            conn.execute(sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(db, role))
            # Each question caps its own temporary files (a runaway sort must not fill the disk).
            conn.execute(sql.SQL("GRANT SET ON PARAMETER temp_file_limit TO {}").format(role))
            with psycopg.connect(self.uri(name), autocommit=True) as target:
                schemas = [r[0] for r in target.execute(
                    "SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' "
                    "AND nspname <> 'information_schema'").fetchall()]  # fmt: skip
                for schema in schemas:
                    s = sql.Identifier(schema)
                    target.execute(sql.SQL("REVOKE CREATE ON SCHEMA {} FROM PUBLIC").format(s))
                    target.execute(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(s, role))
                    target.execute(sql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA {} TO {}").format(s, role))
                # Signalling other sessions is no business of a question, even its own role's.
                target.execute("REVOKE EXECUTE ON FUNCTION pg_terminate_backend(integer, bigint), "
                               "pg_cancel_backend(integer) FROM PUBLIC")  # fmt: skip
                # Large objects are storage outside any table (and outside temp_file_limit): none for questions.
                target.execute("REVOKE EXECUTE ON FUNCTION lo_create(oid), lo_creat(integer), "
                               "lo_from_bytea(oid, bytea), lo_put(oid, bigint, bytea), lo_unlink(oid), "
                               "lo_open(oid, integer), lowrite(integer, bytea) FROM PUBLIC")  # fmt: skip
        return self.uri(name, role=QUERY_ROLE)

    def stop(self) -> None:
        """Forget this process's handle; stop the server if no live Cairn process uses it any more."""
        if not self.root.exists() and (self._in_use or self._socket_dir is not None):
            self._data_dir_gone()  # no lock file or list of processes to update: the folder is gone
            return
        with self._lock:
            was_running, self._socket_dir = self._socket_dir is not None or self._in_use, None
            self._in_use = False
            self._watching.clear()
        if not was_running:
            return
        atexit.unregister(self.stop)
        try:
            with self._file_lock():
                remaining = cluster.update_handles(self.root, add=False)
                if remaining == 0 and self._stop_at_exit and cluster.read_postmaster(self.pgdata) is not None:
                    cluster.pg_ctl(self.pgdata, "stop")
                    logger.info("embedded PostgreSQL stopped (%s)", self.pgdata)
        except (EmbeddedServerError, OSError) as exc:
            logger.warning("could not stop the embedded PostgreSQL cleanly: %s", exc)
