"""The client's side of a query's time limit: a query's call returns soon after its timeout, whatever the server does.

``statement_timeout`` is checked by the server only where a backend looks for interrupts: a backend deep in one
long operation (concatenating a gigabyte, freeing what it built, a function that never checks) answers minutes
late, and the caller waited with it (issue 32: a 30 s timeout took 57 s). A ``Watchdog`` thread watches each
query: ``GRACE_S`` after the deadline it asks the server to cancel (the same request Stop sends), and
``ABANDON_S`` later, if the call has still not returned, it shuts the connection's socket down, so the waiting
call fails at once and the pool discards that connection. The caller then reports a timeout. A backend that was
abandoned ends when it next looks for interrupts (its memory is bounded by the server's own limits meanwhile).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from typing import Any, Self

__all__ = ["ABANDON_S", "GRACE_S", "Watchdog"]

logger = logging.getLogger(__name__)

GRACE_S = 0.5  # after the deadline: the server's own statement_timeout should have answered by then
ABANDON_S = 1.5  # after the cancel request: the connection is given up
_CANCEL_TIMEOUT_S = 1.0


class Watchdog:
    """Cancels, then abandons, the query running on ``conn`` if it runs ``timeout_s`` + the grace periods.

    Use as a context manager around the query; ``fired`` says whether it had to step in (the caller's error is
    then a timeout, whatever psycopg raised)."""

    def __init__(self, conn: Any, timeout_s: float) -> None:
        self._conn = conn
        self._timeout_s = timeout_s
        self._done = threading.Event()
        self._lock = threading.Lock()
        self.fired = False
        self.abandoned = False
        self._thread = threading.Thread(target=self._watch, name="cairn-pg-deadline", daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        with self._lock:
            self._done.set()  # under the lock: never shut a socket the pool already has back

    def _watch(self) -> None:
        if self._done.wait(self._timeout_s + GRACE_S):
            return
        with self._lock:
            if self._done.is_set():
                return
            self.fired = True
            logger.info("a query ran %.1f s past its timeout; asking the server to cancel it", GRACE_S)
            try:
                self._conn.cancel_safe(timeout=_CANCEL_TIMEOUT_S)
            except Exception as exc:  # noqa: BLE001 - the query may have ended meanwhile, the server be gone
                logger.debug("cancel request failed: %s", exc)
        if self._done.wait(ABANDON_S):
            return
        with self._lock:
            if self._done.is_set():
                return
            self.abandoned = True
            logger.warning("the server did not stop a query %.1f s after its timeout; its connection is given up",
                           GRACE_S + ABANDON_S)
            _shut_down(self._conn)


def _shut_down(conn: Any) -> None:
    """Shut the connection's socket down (both ways) without closing the descriptor libpq owns: the call waiting
    on it wakes with an error at once."""
    try:
        fd = conn.pgconn.socket
        duplicate = socket.socket(fileno=os.dup(fd))
    except Exception as exc:  # noqa: BLE001 - already closed
        logger.debug("no socket to shut down: %s", exc)
        return
    try:
        duplicate.shutdown(socket.SHUT_RDWR)
    except OSError as exc:
        logger.debug("socket shutdown failed: %s", exc)
    finally:
        duplicate.close()
