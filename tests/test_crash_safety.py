"""Crash safety: a writer killed with SIGKILL at random moments loses no acknowledged write and breaks no file.

The child (tests/crash_writer.py) writes through the real stores and acknowledges an id only after the store
call returned (the store's fsync or commit is done by then). The test kills it about 50 times, 5-300 ms after it
is ready, so many kills land in the middle of a write (a temp file left behind proves one did). Then every
file must load, and every acknowledged id must be there.
"""

from __future__ import annotations

import json
import os
import random
import select
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from core.databases import EmbeddedPostgres
from core.history import HistoryEntry, QuestionHistory
from core.memory import MemoryBank
from core.memory import Memory
from core.memory import JsonMemoryStore
from tests.fakes.fake_embedder import FakeEmbedder

REPO = Path(__file__).resolve().parents[1]
SEED = int(os.environ.get("CAIRN_CRASH_SEED") or time.time())


@dataclass
class KillStats:
    kills: int = 0
    torn_writes: int = 0  # kills that left a temp file behind: the kill landed mid-write
    seconds: float = 0.0


def _acked(ack_log: Path) -> list[str]:
    """Ids whose whole line (newline included) reached the log: only those were acknowledged."""
    if not ack_log.exists():
        return []
    text = ack_log.read_text(encoding="utf-8")
    lines = text.split("\n")
    return [line for line in lines[:-1] if line]  # the part after the last newline is not an ack


def _wait_ready(proc: subprocess.Popen[bytes], err_path: Path, timeout: float = 30.0) -> None:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    line = proc.stdout.readline() if ready else b""
    if line.strip() != b"ready":
        proc.kill()
        proc.wait()
        raise AssertionError(f"crash writer did not start: {err_path.read_text(errors='replace')[-2000:]}")


def _kill_loop(mode: str, target: str, ack_log: Path, user: str, *, kills: int, budget_s: float,
               temp_files: list[Path] | None = None) -> KillStats:  # fmt: skip
    """Start the writer, let it write 5-300 ms, SIGKILL it; again and again."""
    rng = random.Random(f"{SEED}-{mode}")
    stats = KillStats()
    err_path = ack_log.with_suffix(".stderr")
    started = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    while stats.kills < kills and time.perf_counter() - started < budget_s:
        with open(err_path, "wb") as err:
            proc = subprocess.Popen([sys.executable, "-m", "tests.crash_writer", mode, target, str(ack_log), user],
                                    cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=err)  # fmt: skip
        try:
            _wait_ready(proc, err_path)
            time.sleep(rng.uniform(0.005, 0.3))
            assert proc.poll() is None, f"writer died by itself: {err_path.read_text(errors='replace')[-2000:]}"
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            assert proc.stdout is not None
            proc.stdout.close()
        stats.kills += 1
        if temp_files is not None:
            left = [p for folder in temp_files for p in folder.iterdir() if ".tmp-" in p.name or p.name.startswith(".")]
            stats.torn_writes += bool(left)
    stats.seconds = time.perf_counter() - started
    return stats


def _seed_json(root: Path, user: str, n: int) -> list[str]:
    """Give the user a realistically large file first, so each rewrite takes long enough to be hit."""
    embedder = FakeEmbedder()
    texts = [f"Seeded memory number {i} about customers and orders" for i in range(n)]
    vectors = embedder.embed_batch(texts)
    memories = [Memory(user=user, category="terminology", content=t, embedding=tuple(float(x) for x in v))
                for t, v in zip(texts, vectors, strict=True)]  # fmt: skip
    JsonMemoryStore(root / "memory").put_many(memories)
    return [m.id for m in memories]


@pytest.mark.slow
def test_json_store_journal_and_history_survive_sigkill(tmp_path: Path) -> None:
    root = tmp_path / "data"
    user = "crash-test"
    ack_log = tmp_path / "acks.log"
    seeded = _seed_json(root, user, 400)
    (root / "memory-journal").mkdir(parents=True)
    stats = _kill_loop("json", str(root), ack_log, user, kills=50, budget_s=40,
                       temp_files=[root / "memory", root / "memory-journal"])  # fmt: skip
    acked = _acked(ack_log)
    assert stats.kills >= 30 and len(acked) >= 10, (stats, len(acked), SEED)
    assert len(set(acked)) == len(acked)  # each acknowledgement a new memory (the file and journal rewritten each time)

    # the memory file: parses whole, nothing damaged, every acknowledged id there
    memory_dir = root / "memory"
    store = JsonMemoryStore(memory_dir)
    path = store.path_for(user)
    json.loads(path.read_bytes())
    stored = {m.id for m in store.list(user)}  # raises CorruptMemoryFile if the file were torn
    lost = [i for i in (*seeded, *acked) if i not in stored]
    assert not lost, f"{len(lost)} acknowledged writes lost (seed {SEED})"
    assert not list(memory_dir.glob("*.corrupt-*"))
    # temp files of killed writers never break loading, and the next write sweeps them away
    store.put(Memory(user=user, category="preference", content="one more after the crashes"))
    assert not [p for p in memory_dir.iterdir() if ".tmp-" in p.name]

    # the undo journal: valid JSON, its newest acknowledged change is the last acknowledged add
    bank = MemoryBank(store, FakeEmbedder(), root / "memory-journal")
    for journal in (root / "memory-journal").glob("*.json"):
        json.loads(journal.read_text(encoding="utf-8"))
    journal_ids = [m.id for change in bank.history(user) for m in change.after]
    assert journal_ids and acked[-1] in journal_ids
    first_in_journal = next(i for i in journal_ids if i in acked)
    assert set(acked[acked.index(first_in_journal):]) <= set(journal_ids), "journal lost an acknowledged change"
    assert set(journal_ids) <= stored  # the journal never names a memory the store lacks
    assert bank.undo(user) is not None  # and undo works on it

    # the question history: every acknowledged question is there, every line parses
    history = QuestionHistory(root / "history")
    asked = {e.question.removeprefix("question about ") for e in history.entries(user, limit=100_000)}
    assert set(acked) <= asked
    print(f"\nJSON/journal/history crash test (seed {SEED}): {stats.kills} kills in {stats.seconds:.1f}s, "
          f"{stats.torn_writes} left a temp file (mid-write), {len(acked)} acknowledged writes "
          f"(+{len(seeded)} seeded), 0 lost")


def test_torn_history_line_is_skipped_and_next_append_is_whole(tmp_path: Path) -> None:
    """A crash mid-line (power loss) leaves a fragment; the next entry must not be glued onto it."""
    history = QuestionHistory(tmp_path / "history")
    for n in range(3):
        history.append("ana", HistoryEntry(question=f"question {n}", sql="SELECT 1", database_id="db"))
    path = next((tmp_path / "history").glob("*.jsonl"))
    whole = path.read_bytes()
    with open(path, "ab") as fh:
        fh.write(b'{"user": "ana", "question": "torn que')
    assert [e.question for e in history.entries("ana")] == ["question 2", "question 1", "question 0"]
    history.append("ana", HistoryEntry(question="after the crash", sql=None, database_id="db"))
    assert [e.question for e in history.entries("ana")] == [
        "after the crash", "question 2", "question 1", "question 0"]  # fmt: skip
    assert path.read_bytes().startswith(whole)  # earlier lines untouched


def test_torn_undo_journal_still_lets_the_bank_work(tmp_path: Path) -> None:
    """A journal that does not parse (written by something else, or a disk fault) costs only the undo history."""
    store = JsonMemoryStore(tmp_path / "memory")
    bank = MemoryBank(store, FakeEmbedder(), tmp_path / "journal")
    bank.add("ana", "preference", "Only show customers from India")
    journal = next((tmp_path / "journal").glob("*.json"))
    journal.write_bytes(journal.read_bytes()[: journal.stat().st_size // 2])
    added = bank.add("ana", "preference", "Only show delivered orders")
    assert [m.id for m in bank.history("ana")[-1].after] == [added.id]
    assert {m.content for m in bank.list("ana")} == {"Only show customers from India", "Only show delivered orders"}


@pytest.mark.slow
def test_pgvector_store_survives_sigkill(embedded_pg: EmbeddedPostgres, tmp_path: Path) -> None:
    from core.memory import PgVectorMemoryStore

    embedded_pg.ensure_database("cairn_crash")
    uri = embedded_pg.uri("cairn_crash")
    user = f"crash-{uuid.uuid4().hex[:8]}"
    ack_log = tmp_path / "acks.log"
    PgVectorMemoryStore(uri, dims=384).close()  # schema made once, so every child starts writing at once
    stats = _kill_loop("pgvector", uri, ack_log, user, kills=30, budget_s=20)
    acked = _acked(ack_log)
    assert stats.kills >= 15 and len(acked) >= 10, (stats, len(acked), SEED)
    store = PgVectorMemoryStore(uri, dims=384)
    try:
        stored = {m.id for m in store.list(user)}
        lost = [i for i in acked if i not in stored]
        assert not lost, f"{len(lost)} acknowledged writes lost (seed {SEED})"
        assert len(store.search(user, FakeEmbedder().embed_batch(["revenue"])[0], k=3)) == 3
    finally:
        store.close()
    print(f"\npgvector crash test (seed {SEED}): {stats.kills} kills in {stats.seconds:.1f}s, "
          f"{len(acked)} acknowledged writes, 0 lost")
