"""What the embedded server may use of the machine: a data-size limit on every backend, a cap on temporary files.

PostgreSQL bounds sorts and hashes by ``work_mem``, but nothing bounds one value being built: a ``string_agg`` of
a gigabyte grew a backend by 1.9 GB per GB (5.76 GB seen, issue 32). On Linux every backend the postmaster forks
inherits its ``RLIMIT_DATA`` (heap and private mappings; the shared buffers are shared mappings and do not count),
so once the postmaster has a limit a runaway backend gets "out of memory" (an error of that query, SQLSTATE 53200;
the server goes on) instead of eating the machine. The limit is an eighth of the machine's memory — so even four
runaway backends leave half of it — and never under 1 GiB (room for PostgreSQL's largest value being built, a
pgvector index build and the caches) nor over 4 GiB. It is set by the shell that starts pg_ctl (lowering one's
own soft limit needs no privilege, whoever the server runs as); a server already running when Cairn attaches gets
it through prlimit where the OS lets us. Only the soft limit is lowered: the hard one stays. Elsewhere (macOS, Windows) there is no such per-process limit: the guard's bounds and
the statement timeout are what remains. ``temp_file_limit`` is set for the whole server too, so the superuser's
and the memory role's sessions are bounded like the query role's (whose queries set their own, smaller one).
"""

from __future__ import annotations

import logging
import os
import sys

__all__ = ["SERVER_TEMP_FILE_LIMIT", "backend_memory_limit", "limit_server_memory", "limited_command",
           "server_options"]

logger = logging.getLogger(__name__)

GIB = 1024 * 1024 * 1024
MIN_BACKEND_BYTES = 1 * GIB
MAX_BACKEND_BYTES = 4 * GIB
SERVER_TEMP_FILE_LIMIT = "4GB"


def backend_memory_limit() -> int:
    """Bytes of data one backend may hold: an eighth of physical memory, within [1 GiB, 4 GiB], in whole KiB (the unit
    ``ulimit -d`` sets it in: an odd number of physical pages would leave 512 bytes the limit cannot carry)."""
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        total = 0
    return min(max(total // 8, MIN_BACKEND_BYTES), MAX_BACKEND_BYTES) // 1024 * 1024


def limited_command(args: list[str]) -> list[str]:
    """``args`` run under the backend data limit (Linux): a shell lowers its own soft RLIMIT_DATA, which needs no
    privilege, then becomes ``args``, so pg_ctl and the postmaster it starts inherit it. Unchanged elsewhere."""
    if not sys.platform.startswith("linux") or not os.path.exists("/bin/sh"):
        return args
    kib = backend_memory_limit() // 1024
    return ["/bin/sh", "-c", 'ulimit -S -d "$1" 2>/dev/null; shift; exec "$@"', "sh", str(kib), *args]


def server_options() -> str:
    """``postgres -c`` options bounding every session's temporary files."""
    return f"-c temp_file_limit={SERVER_TEMP_FILE_LIMIT}"


def limit_server_memory(pid: int, limit: int | None = None) -> int | None:
    """Give the running postmaster ``pid`` (and so every backend it forks from now on) a soft RLIMIT_DATA of
    ``limit`` bytes (``backend_memory_limit()`` by default): for a server started before Cairn set the limit at
    start (``limited_command``). Returns the limit set, or None where the OS has no such limit or refuses (another
    account's process without CAP_SYS_RESOURCE: logged)."""
    try:
        import resource
    except ImportError:
        return None
    prlimit = getattr(resource, "prlimit", None)
    if prlimit is None or not hasattr(resource, "RLIMIT_DATA"):
        return None  # macOS and the BSDs have no prlimit (and do not enforce RLIMIT_DATA on mmap)
    wanted = backend_memory_limit() if limit is None else limit
    try:
        _soft, hard = prlimit(pid, resource.RLIMIT_DATA)
        soft = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        prlimit(pid, resource.RLIMIT_DATA, (soft, hard))
    except (OSError, ValueError) as exc:
        logger.info("could not limit the running embedded server's memory (pid %d): %s", pid, exc)
        return None
    logger.info("embedded PostgreSQL backends limited to %.1f GiB of data each", soft / GIB)
    return soft
