"""What the pgvector memory store says when its server fails: stopped, out of disk, memory or connections.

A full disk under the store (SQLSTATE 53100) is a :class:`MemoryStoreFull` whose hint names the folder to free;
the other resource errors of class 53 say what to do about each; a lost connection says the server stopped.
"""

from __future__ import annotations

import logging
from typing import Any

from core.errors import MemoryStoreError, MemoryStoreFull, disk_full_hint

__all__ = ["abort", "disk_is_full", "refused", "server_stopped"]

logger = logging.getLogger(__name__)


def disk_is_full(exc: Exception) -> bool:
    """PostgreSQL's disk_full (53100), or a connection refused because the server could not write (no SQLSTATE
    reaches the client then, only the words)."""
    return getattr(exc, "sqlstate", None) == "53100" or "No space left on device" in str(exc)


def server_stopped(exc: Exception, where: str = "") -> MemoryStoreError:
    if where and disk_is_full(exc):
        return refused(exc, where)
    return MemoryStoreError(
        f"Cannot connect to the memory database: {exc}".strip(),
        hint="The memory store's PostgreSQL server stopped: start it again (restarting Cairn starts the embedded "
             "one), or switch memory to JSON files in Settings.",
    )


def refused(exc: Exception, where: str) -> MemoryStoreError:
    """The server's refusal in words; its resource errors (SQLSTATE class 53) with what to do about each."""
    import psycopg

    sqlstate = getattr(exc, "sqlstate", None) or ""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if isinstance(exc, psycopg.OperationalError) and not sqlstate and not disk_is_full(exc):
        return server_stopped(exc)
    if disk_is_full(exc):
        return MemoryStoreFull(f"The disk under the memory database is full ({text}); nothing was saved.",
                               hint=disk_full_hint(where))
    if sqlstate == "53200":  # out_of_memory
        return MemoryStoreError(f"The memory database's server ran out of memory ({text}).",
                                hint="Close other programs (or large Cairn windows) and try again.")
    if sqlstate.startswith("53"):  # too many connections, a configured limit
        return MemoryStoreError(f"The memory database's server hit a limit ({text}).",
                                hint="Close other Cairn windows or commands, then try again.")
    return MemoryStoreError(
        f"The memory database refused the operation: {exc}".strip(),
        hint="Check the memory store's PostgreSQL (disk space, permissions) and try again.",
    )


def abort(tx: Any) -> None:
    """Roll the transaction back after a failure in it; a broken connection has nothing to roll back."""
    import psycopg

    try:
        tx.__exit__(RuntimeError, RuntimeError("rolled back"), None)
    except psycopg.Error as exc:
        logger.debug("rollback failed: %s", exc)
