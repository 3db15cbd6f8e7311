"""The child the crash-safety test kills with SIGKILL: writes memories through the real stores in a loop.

An id is acknowledged (appended to the ack log, flushed and fsynced) only after every store call for it has
returned, so an acknowledged id is one the product promised was saved. The parent kills this process at
random moments and then checks that every acknowledged id survived.

Modes:
  json      MemoryBank.add on a JsonMemoryStore (the memory file and the undo journal), then
            QuestionHistory.append (the question history): one id covers all three files.
  pgvector  PgVectorMemoryStore.put on the embedded server (ack after the commit returned).

Usage: python -m tests.crash_writer MODE TARGET ACK_LOG USER
(TARGET: a data directory for json, a libpq URI for pgvector). Prints "ready" once set up.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TextIO

PAD = "padding so each memory is a realistic size " * 3


def _ack(log: TextIO, memory_id: str) -> None:
    log.write(memory_id + "\n")
    log.flush()
    os.fsync(log.fileno())


def run_json(root: Path, ack_log: Path, user: str) -> None:
    from core.history import HistoryEntry, QuestionHistory
    from core.memory import MemoryBank
    from core.memory import JsonMemoryStore
    from tests.fakes.fake_embedder import FakeEmbedder

    bank = MemoryBank(JsonMemoryStore(root / "memory"), FakeEmbedder(), root / "memory-journal")
    history = QuestionHistory(root / "history")
    with open(ack_log, "a", encoding="utf-8") as log:
        print("ready", flush=True)
        n = 0
        while True:
            n += 1
            memory = bank.add(user, "preference", f"Only show customers from country number {os.getpid()}-{n} {PAD}")
            history.append(user, HistoryEntry(question=f"question about {memory.id}", sql="SELECT 1",
                                              database_id="crash"))  # fmt: skip
            _ack(log, memory.id)


def run_pgvector(uri: str, ack_log: Path, user: str) -> None:
    from core.memory import Memory
    from core.memory import PgVectorMemoryStore
    from tests.fakes.fake_embedder import FakeEmbedder

    store = PgVectorMemoryStore(uri, dims=384)
    embedder = FakeEmbedder()
    with open(ack_log, "a", encoding="utf-8") as log:
        print("ready", flush=True)
        n = 0
        while True:
            n += 1
            content = f"Revenue means the sum of paid orders, variant {os.getpid()}-{n} {PAD}"
            vector = tuple(float(x) for x in embedder.embed_batch([content])[0])
            memory = Memory(user=user, category="metric", content=content, embedding=vector)
            store.put(memory)
            _ack(log, memory.id)


def main(argv: list[str]) -> int:
    mode, target, ack_log, user = argv
    if mode == "json":
        run_json(Path(target), Path(ack_log), user)
    elif mode == "pgvector":
        run_pgvector(target, Path(ack_log), user)
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
