"""Faults (issue 32, hardening 5): the embedded server killed mid-batch is started again once and later questions
work; a memory-store connection dropped while idle is opened again instead of failing the next call; a full disk
under the memory store is a MemoryStoreFull naming the folder to free, never a traceback; the embedded server of a
deleted data directory stops by itself; a data directory made again at the same path never brings back the
memories of the deleted one.

The server is killed for real (SIGKILL to the postmaster) and disks are filled for real (a small tmpfs, which
needs root and mount rights: those tests are skipped without them).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import psycopg
import pytest

from core.databases import EmbeddedPostgres
from core.databases.embedded import _cluster as cluster
from core.errors import EmbeddedServerError
from core.memory import Memory, PgVectorMemoryStore
from tests.fakes.fake_embedder import FakeEmbedder

REPO = Path(__file__).resolve().parents[1]
USER = "ann"
EMBED = FakeEmbedder()
DEADLINE_S = 60.0  # a generous bound for a process to go away: a failure condition, not a speed claim


def _memory(text: str) -> Memory:
    return Memory(user=USER, category="preference", content=text,
                  embedding=tuple(float(x) for x in EMBED.embed_batch([text])[0]))


def _contents(store: Any) -> set[str]:
    return {m.content for m in store.list(USER)}


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def _wait_gone(pid: int, deadline_s: float = DEADLINE_S) -> bool:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if _gone(pid):
            return True
        time.sleep(0.2)
    return _gone(pid)


def _kill_postmaster(pgdata: Path) -> int:
    running = cluster.read_postmaster(pgdata)
    assert running is not None, f"no postmaster runs in {pgdata}"
    os.kill(running.pid, signal.SIGKILL)
    assert _wait_gone(running.pid)
    return running.pid


def _cairn(*args: str, env: dict[str, str], timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "core.cli", *args], capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONPATH": str(REPO), **env}, timeout=timeout, cwd=REPO)


@pytest.fixture
def own_server() -> Iterator[EmbeddedPostgres]:
    root = Path(tempfile.mkdtemp(prefix="cairn-hf-"))
    server = EmbeddedPostgres(root)
    server.start()
    yield server
    server.stop()
    import shutil

    shutil.rmtree(root, ignore_errors=True)


# -- a. a server killed mid-session ------------------------------------------------------------------------


@pytest.mark.slow
def test_embedded_server_killed_mid_batch_later_questions_work(tmp_path: Path, fake_ollama) -> None:
    """``cairn ask --batch`` on the sample database; while the model answers the second question the embedded
    postmaster is SIGKILLed. That question and every later one are answered (the server is started once again)."""
    data = Path(tempfile.mkdtemp(prefix="cairn-hfb-"))  # short: the socket lives in the cluster folder
    killed: list[int] = []

    def kill_then_answer(_body: dict[str, Any]) -> str:
        killed.append(_kill_postmaster(data / "pgdata"))
        return "SELECT COUNT(*) FROM customers"

    fake_ollama.enqueue_chat("SELECT COUNT(*) FROM customers")
    fake_ollama.enqueue_chat(kill_then_answer)
    fake_ollama.default_chat = lambda _body: "SELECT COUNT(*) FROM orders"
    batch = tmp_path / "q.jsonl"
    batch.write_text("\n".join(json.dumps({"id": i, "question": q}) for i, q in enumerate(
        ["How many customers?", "How many customers now?", "How many orders?", "How many orders now?"])))
    out = tmp_path / "a.jsonl"
    try:
        proc = _cairn("ask", "--batch", str(batch), "--out", str(out),
                      env={"CAIRN_DATA_DIR": str(data), "OLLAMA_HOST": fake_ollama.url})
        answers = [json.loads(line) for line in out.read_text().splitlines()]
        assert killed, proc.stderr
        assert [a.get("error") for a in answers] == [None] * 4, proc.stderr
        assert all(a["rows"][0][0] > 0 for a in answers)
        assert proc.returncode == 0 and "Traceback" not in proc.stderr
    finally:
        subprocess.run(["rm", "-rf", str(data)], check=False)


def test_memory_store_connection_terminated_while_idle_next_call_works(own_server: EmbeddedPostgres) -> None:
    store = PgVectorMemoryStore(own_server.memory_uri(f"mem_{uuid.uuid4().hex[:8]}"))
    try:
        store.put(_memory("Only show invoices from Canada"))
        backend = store._connect().info.backend_pid
        with psycopg.connect(own_server.uri(), autocommit=True) as admin:
            assert admin.execute("SELECT pg_terminate_backend(%s)", (backend,)).fetchone()[0]
        assert _contents(store) == {"Only show invoices from Canada"}  # no error: reconnected once
        store.put(_memory("Only show paid invoices"))
        assert len(_contents(store)) == 2
    finally:
        store.close()


def test_memory_store_on_a_killed_embedded_server_starts_it_again(own_server: EmbeddedPostgres) -> None:
    store = PgVectorMemoryStore(own_server.memory_uri(f"mem_{uuid.uuid4().hex[:8]}"), embedded=own_server)
    try:
        store.put(_memory("Only show invoices from Canada"))
        old = _kill_postmaster(own_server.pgdata)
        store.put(_memory("Only show paid invoices"))  # reconnects once, starting the server again
        assert _contents(store) == {"Only show invoices from Canada", "Only show paid invoices"}
        again = cluster.read_postmaster(own_server.pgdata)
        assert again is not None and again.pid != old
    finally:
        store.close()


# -- b. a full disk under the memory store -----------------------------------------------------------------


@pytest.fixture
def small_disk() -> Iterator[Path]:
    """A real 160 MB file system (tmpfs) that fills up for real; needs root and the right to mount."""
    mount = Path(tempfile.mkdtemp(prefix="cairn-full-"))
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=160m,mode=0755", "tmpfs", str(mount)],
                          capture_output=True, text=True, check=False)
    if made.returncode != 0:
        mount.rmdir()
        pytest.skip(f"cannot mount a small tmpfs here (needs root and mount rights): {made.stderr.strip()}")
    try:
        yield mount
    finally:
        for proc in psutil.process_iter(["name"]):  # a server left on it would keep the mount busy
            try:
                if (proc.info["name"] or "").startswith("postgres") and proc.cwd().startswith(str(mount)):
                    proc.kill()
            except (psutil.Error, OSError):
                continue
        subprocess.run(["umount", "-l", str(mount)], check=False)
        mount.rmdir()


def _fill(disk: Path) -> Path:
    filler = disk / "filler"
    subprocess.run(["dd", "if=/dev/zero", f"of={filler}", "bs=1M"], capture_output=True, check=False)
    return filler


def test_full_disk_under_the_pgvector_store_names_the_folder_and_loses_nothing(small_disk: Path) -> None:
    from core.errors import MemoryStoreFull

    server = EmbeddedPostgres(small_disk / "data")
    store = PgVectorMemoryStore(server.memory_uri("cairn_memory"), embedded=server)
    acked: set[str] = set()
    try:
        filler = _fill(small_disk)
        with pytest.raises(MemoryStoreFull) as err:
            for i in range(10_000):  # rows until a page must be added: PostgreSQL's own 53100 disk_full
                batch = [_memory(f"Only show region {i}-{j} {os.urandom(1500).hex()}") for j in range(20)]
                store.put_many(batch)
                acked |= {m.content for m in batch}
        assert str(server.pgdata) in err.value.hint and "Free disk space" in err.value.hint
        assert "Traceback" not in str(err.value)
        filler.unlink()
        assert _contents(store) == acked  # every put that returned is there; the refused one is absent
        store.put(_memory("Only show paid invoices"))
        assert "Only show paid invoices" in _contents(store)
    finally:
        store.close()
        server.stop()


@pytest.mark.slow
def test_cli_memory_commands_on_a_full_disk_say_where_to_free_space(small_disk: Path) -> None:
    """Another Cairn process keeps the embedded server running (its handle here); the disk then fills up.
    Listing or adding a memory either works (PostgreSQL's free page space) or fails with the folder to free
    (a new connection needs to write its cache file) — never a traceback or 'failed unexpectedly'."""
    data = small_disk / "data"
    env = {"CAIRN_DATA_DIR": str(data), "OLLAMA_HOST": "http://127.0.0.1:9"}
    first = _cairn("memory", "add", "preference", "Only show customers from Brazil", "--user", USER, env=env)
    assert first.returncode == 0, first.stderr
    holder = EmbeddedPostgres(data)
    holder.start()
    try:
        _fill(small_disk)
        for args in (("list",), ("add", "terminology", "Revenue means the sum of the amount column"),
                     ("add", "terminology", "Big orders are orders over 500")):
            added = _cairn("memory", *args, "--user", USER, env=env)
            out = added.stdout + added.stderr
            assert "Traceback" not in out and "unexpectedly" not in out, out
            if added.returncode != 0:
                assert "Free disk space at" in out and str(data) in out, out
    finally:
        holder.stop()


@pytest.mark.slow
def test_a_server_that_cannot_start_on_a_full_disk_says_so(small_disk: Path) -> None:
    """Used once, stopped, then the disk fills: the start fails writing its lock file. The message names the
    disk and the folder to free — not 'it is damaged, move it aside', which would set the memories aside."""
    data = small_disk / "data"
    env = {"CAIRN_DATA_DIR": str(data), "OLLAMA_HOST": "http://127.0.0.1:9"}
    first = _cairn("memory", "add", "preference", "Only show customers from Brazil", "--user", USER, env=env)
    assert first.returncode == 0, first.stderr
    filler = _fill(small_disk)
    for args in (("memory", "list", "--user", USER), ("memory", "add", "preference", "Only show paid orders",
                                                        "--user", USER), ("ask", "How many customers?")):
        listed = _cairn(*args, env=env)
        out = listed.stdout + listed.stderr
        assert "Free disk space at" in out and "aside" not in out and "damaged" not in out, (args, out)
        assert "Traceback" not in out and "unexpectedly" not in out
    filler.unlink()
    again = _cairn("memory", "list", "--user", USER, env=env)
    assert again.returncode == 0 and "Brazil" in again.stdout, again.stderr  # nothing was lost


def test_json_store_on_a_full_disk_keeps_the_old_file_and_names_the_folder(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """ENOSPC raised where the store makes its bytes durable (fsync), as a full disk does on write-back."""
    import errno

    import core.memory.stores._store_json as store_json
    from core.errors import MemoryStoreFull
    from core.memory import JsonMemoryStore

    store = JsonMemoryStore(tmp_path / "memory")
    store.put(_memory("Only show customers from Brazil"))
    before = store.path_for(USER).read_bytes()

    def full(_fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with monkeypatch.context() as patch:
        patch.setattr(store_json.os, "fsync", full)
        with pytest.raises(MemoryStoreFull) as err:
            store.put(_memory("Only show paid invoices"))
    assert str(tmp_path / "memory") in err.value.hint
    assert store.path_for(USER).read_bytes() == before
    assert _contents(JsonMemoryStore(tmp_path / "memory")) == {"Only show customers from Brazil"}


# -- c. the data directory deleted while its server runs --------------------------------------------------

needs_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                                reason="as root the cluster lives outside the data directory")


def _data_dir(tmp_path: Path, *, outside: bool) -> Path:
    """A data directory whose cluster is beside it, or (``outside``, as root) under /var/lib/cairn/pgserver:
    a 0700 parent is what root's home is, which the server's account cannot pass."""
    base = Path(tempfile.mkdtemp(prefix="cairn-rm-"))
    base.chmod(0o700 if outside else 0o755)
    return base / "data"


@pytest.mark.parametrize("outside", [False, pytest.param(True, marks=needs_root)], ids=["beside", "outside"])
def test_rm_rf_of_the_data_dir_stops_its_server(tmp_path: Path, outside: bool) -> None:
    """PostgreSQL itself stops a minute after its own postmaster.pid goes; a cluster outside the data directory
    never noticed. The watcher stops it; the bound is far above its 2 s poll and below PostgreSQL's own minute."""
    root = _data_dir(tmp_path, outside=outside)
    server = EmbeddedPostgres(root)
    try:
        server.start()
        assert server.pgdata.is_relative_to(cluster.ROOT_CLUSTERS) == outside
        pid = cluster.read_postmaster(server.pgdata).pid  # type: ignore[union-attr]
        subprocess.run(["rm", "-rf", str(root)], check=True)
        assert _wait_gone(pid, 30.0), "the server of a deleted data directory still runs"
        assert not server.running
        with pytest.raises(EmbeddedServerError, match="deleted"):
            server.uri()  # this process does not make the deleted directory again
        assert not root.exists()
    finally:
        server.stop()
        subprocess.run(["rm", "-rf", str(root.parent)], check=False)


@needs_root
def test_server_of_a_deleted_data_dir_stops_when_the_cairn_process_exits(tmp_path: Path) -> None:
    """A Cairn process that exits after its data directory was deleted stops the server (the lock file and the
    list of processes went with the folder, and stop() gave up: the server ran for ever)."""
    root = _data_dir(tmp_path, outside=True)
    code = ("import sys, subprocess; from pathlib import Path; from core.databases import EmbeddedPostgres; "
            "from core.databases.embedded import _cluster as c; import core.databases.embedded._server as s; "
            "s.WATCH_INTERVAL_S = 3600; root = Path(sys.argv[1]); e = EmbeddedPostgres(root); e.start(); "
            "print(c.read_postmaster(e.pgdata).pid, flush=True); subprocess.run(['rm', '-rf', str(root)])")
    proc = subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True, text=True, timeout=120,
                          cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, check=False)
    try:
        pid = int(proc.stdout.split()[0])
        assert _wait_gone(pid, 30.0), proc.stderr
    finally:
        subprocess.run(["rm", "-rf", str(root.parent)], check=False)


# -- d. where memories live, and a data directory made again --------------------------------------------


@needs_root
def test_a_data_dir_made_again_at_the_same_path_has_none_of_the_old_memories(tmp_path: Path) -> None:
    root = _data_dir(tmp_path, outside=True)
    try:
        server = EmbeddedPostgres(root)
        store = PgVectorMemoryStore(server.memory_uri("cairn_memory"), embedded=server, owns_embedded=True)
        store.put(_memory("Only show invoices from Canada"))
        old_cluster = server.pgdata.parent
        assert old_cluster.is_relative_to(cluster.ROOT_CLUSTERS) and str(old_cluster) in store.describe()
        store.close()  # the server stops: this process was its only user
        subprocess.run(["rm", "-rf", str(root)], check=True)
        again = EmbeddedPostgres(root)
        store = PgVectorMemoryStore(again.memory_uri("cairn_memory"), embedded=again, owns_embedded=True)
        try:
            assert _contents(store) == set()  # the deleted directory's memories did not come back
            assert again.pgdata == server.pgdata  # the same folder, made anew
        finally:
            store.close()
    finally:
        subprocess.run(["rm", "-rf", str(root.parent)], check=False)


@pytest.mark.slow
def test_memory_clear_says_where_memories_live_and_deletes_them_in_both_places(tmp_path: Path) -> None:
    from core.memory import JsonMemoryStore

    data = Path(tempfile.mkdtemp(prefix="cairn-clr-"))
    env = {"CAIRN_DATA_DIR": str(data), "OLLAMA_HOST": "http://127.0.0.1:9"}
    try:
        added = _cairn("memory", "add", "preference", "Only show customers from Brazil", "--user", USER, env=env)
        assert added.returncode == 0, added.stderr
        stray = JsonMemoryStore(data / "memory")  # what an older Cairn left in the data directory
        stray.put(_memory("Only show invoices from Canada"))
        cleared = _cairn("memory", "clear", "--user", USER, "--yes", env=env)
        assert cleared.returncode == 0, cleared.stderr
        out = cleared.stdout + cleared.stderr
        pgdata = cluster.cluster_dir(data.resolve())
        assert f"kept in {pgdata}" in out and str(stray.path_for(USER)) in out, out
        assert not stray.path_for(USER).exists()
        listed = _cairn("memory", "list", "--user", USER, "--json", env=env)
        assert json.loads(listed.stdout) == [], listed.stderr
    finally:
        subprocess.run(["rm", "-rf", str(data)], check=False)
