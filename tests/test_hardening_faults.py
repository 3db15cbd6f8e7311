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
