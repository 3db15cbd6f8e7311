"""Two Cairn processes on one data directory (CAIRN_DATA_DIR) at the same time.

The embedded server is initialised once and shared (the second process attaches; the one that exits first
does not stop it under the other), databases on it are created once, both processes' memories and undo
journal entries are kept (JSON and pgvector stores), and a process that cannot get the server says why.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.databases.embedded import _server as embedded_postgres
from core.databases import EmbeddedPostgres
from core.errors import EmbeddedServerError
from tests.fakes.analyst_model import analyst_model

REPO = Path(__file__).resolve().parents[1]
ADDS = 8  # per process; two processes stay within the undo journal's depth of 20, so none may be missing


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A fresh data directory with a short path (the server's Unix socket lives in it)."""
    root = Path(tempfile.mkdtemp(prefix="cairn-2i-"))
    yield root
    shutil.rmtree(root, ignore_errors=True)


def _services_child(data_dir: str, store_kind: str, tag: str, log_path: str, linger_s: float,
                    barrier: Any) -> None:  # fmt: skip
    """One Cairn process: Services on ``data_dir`` with the FakeEmbedder, adding memories through the bank.

    Both processes open their store at the same moment (first barrier) and both have it open before either
    writes (second barrier); then ``a`` finishes and exits while ``b`` lingers and must still work.
    """
    import logging

    os.environ["CAIRN_DATA_DIR"] = data_dir
    logging.basicConfig(level=logging.INFO, filename=log_path, format="%(name)s: %(message)s")
    from core.composition import Services
    from core.config import Settings
    from tests.fakes.fake_embedder import FakeEmbedder

    services = Services(Settings(memory_store=store_kind), embedder=FakeEmbedder())
    try:
        barrier.wait(timeout=60)
        bank = services.bank()
        barrier.wait(timeout=60)
        if services.store().kind != store_kind:
            raise SystemExit(f"{tag}: fell back to {services.store().describe()}")
        for n in range(ADDS):
            bank.add("shared", "preference", f"Process {tag} wants rule number {n} applied")
            if n == ADDS // 2:
                time.sleep(linger_s)  # the other process exits meanwhile; this one must still work
    finally:
        services.close()


def _run_two(shared_dir: Path, store_kind: str) -> list[str]:
    ctx = multiprocessing.get_context("spawn")
    logs = [shared_dir.parent / f"{shared_dir.name}-{tag}.log" for tag in ("a", "b")]
    barrier = ctx.Barrier(2)
    procs = [ctx.Process(target=_services_child,
                         args=(str(shared_dir), store_kind, tag, str(log), linger, barrier))
             for tag, log, linger in (("a", logs[0], 0.0), ("b", logs[1], 1.5))]  # fmt: skip
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    texts = [log.read_text(errors="replace") if log.exists() else "" for log in logs]
    for log in logs:
        log.unlink(missing_ok=True)
    assert [p.exitcode for p in procs] == [0, 0], texts
    return texts


def _check_bank(shared_dir: Path, store: object) -> None:
    from core.memory import MemoryBank
    from tests.fakes.fake_embedder import FakeEmbedder

    bank = MemoryBank(store, FakeEmbedder(), shared_dir / "memory-journal")  # type: ignore[arg-type]
    contents = {m.content for m in bank.list("shared")}
    assert contents == {f"Process {t} wants rule number {n} applied" for t in "ab" for n in range(ADDS)}
    assert len(bank.history("shared")) == 2 * ADDS  # the journal kept every change of both processes


@pytest.mark.slow
def test_two_processes_share_the_embedded_server_and_pgvector_store(shared_dir: Path) -> None:
    logs = _run_two(shared_dir, "pgvector")
    joined = "\n".join(logs)
    events = [line[:160] for line in joined.splitlines() if "embedded" in line]
    assert joined.count("initialising the embedded cluster") == 1, events  # initdb ran once
    assert joined.count("embedded PostgreSQL ready") == 1, events  # the second process attached, did not start another
    assert "attached to the embedded PostgreSQL" in joined
    server = EmbeddedPostgres(shared_dir)
    try:
        from core.memory import PgVectorMemoryStore

        store = PgVectorMemoryStore(server.uri("cairn_memory"))
        try:
            _check_bank(shared_dir, store)
        finally:
            store.close()
    finally:
        server.stop()


@pytest.mark.slow
def test_two_processes_share_the_json_store(shared_dir: Path) -> None:
    _run_two(shared_dir, "json")
    from core.memory import JsonMemoryStore

    store = JsonMemoryStore(shared_dir / "memory")
    _check_bank(shared_dir, store)
    assert not [p for p in (shared_dir / "memory").iterdir() if ".tmp-" in p.name or ".corrupt-" in p.name]


def _cairn(data_dir: Path, ollama_url: str, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "CAIRN_DATA_DIR": str(data_dir), "OLLAMA_HOST": ollama_url, "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, "-m", "core.cli", "-v", *args], cwd=REPO, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip


@pytest.mark.slow
def test_two_cli_processes_at_once_on_a_fresh_data_dir(shared_dir: Path, fake_ollama) -> None:
    fake_ollama.default_chat = analyst_model({}, {
        "customers from india": "[PREFERENCE] Only show customers from India",
        "revenue means": "[METRIC] Revenue means the sum of total_amount of delivered orders",
    })  # fmt: skip
    procs = [_cairn(shared_dir, fake_ollama.url, "ask", "--user", "x", "Always show me customers from India"),
             _cairn(shared_dir, fake_ollama.url, "ask", "--user", "x",
                    "Remember that revenue means the sum of delivered orders")]  # fmt: skip
    outputs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    stderr = "\n".join(err for _, err in outputs)
    assert stderr.count("initialising the embedded cluster") == 1
    assert "fell back" not in stderr and "using json instead" not in stderr
    server = EmbeddedPostgres(shared_dir)
    try:
        from core.memory import PgVectorMemoryStore

        store = PgVectorMemoryStore(server.uri("cairn_memory"))
        try:
            contents = {m.content for m in store.list("x")}
        finally:
            store.close()
    finally:
        server.stop()
    assert any("India" in c for c in contents) and any("Revenue" in c for c in contents), contents


_HOLD_LOCK = """
import sys, time, fasteners
lock = fasteners.InterProcessLock(sys.argv[1])
lock.acquire()
print("held", flush=True)
time.sleep(60)
"""


def test_second_instance_says_why_when_the_start_lock_is_held(shared_dir: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    holder = subprocess.Popen([sys.executable, "-c", _HOLD_LOCK, str(shared_dir / "pgserver.lock")],
                              stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        monkeypatch.setattr(embedded_postgres, "LOCK_TIMEOUT_S", 0.5)
        started = time.perf_counter()
        with pytest.raises(EmbeddedServerError) as info:
            EmbeddedPostgres(shared_dir).start()
        assert time.perf_counter() - started < 10
        assert "locked by another process" in str(info.value)
        assert "Close other Cairn" in info.value.hint
        assert not (shared_dir / "pgdata").exists()  # nothing was initialised behind the holder's back
    finally:
        holder.kill()
        holder.wait()


def test_database_creation_waits_for_the_setup_lock_and_says_why(embedded_pg: EmbeddedPostgres,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    import psycopg

    with psycopg.connect(embedded_pg.uri(), autocommit=True) as other:  # another process setting up
        other.execute("SELECT pg_advisory_lock(%s)", (embedded_postgres._SETUP_LOCK,))
        monkeypatch.setattr(embedded_postgres, "LOCK_TIMEOUT_S", 0.3)
        with pytest.raises(EmbeddedServerError) as info:
            embedded_pg.ensure_database("cairn_two_instances")
        assert "setting up" in str(info.value) and info.value.hint
    assert embedded_pg.ensure_database("cairn_two_instances") in (True, False)  # free again once released
    assert embedded_pg.ensure_database("cairn_two_instances") is False


def test_concurrent_ensure_database_creates_once(embedded_pg: EmbeddedPostgres) -> None:
    """Eight threads (standing in for processes: the lock is server-side) race to create one database."""
    from concurrent.futures import ThreadPoolExecutor

    import psycopg

    name = f"cairn_race_{os.getpid()}"
    with ThreadPoolExecutor(8) as pool:
        created = list(pool.map(lambda _: embedded_pg.ensure_database(name), range(8)))
    assert created.count(True) == 1
    with psycopg.connect(embedded_pg.uri(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE "{name}"')
