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
