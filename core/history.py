"""Every question a person asked and the SQL that ran, across sessions: searchable, one click to rerun.

One append-only JSON-lines file per user under ``<data dir>/history``; each line is written whole with an
fsync, under an inter-process lock, so a crash leaves at most a missing last line, never a broken file.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from core.errors import MemoryStoreError

__all__ = ["HistoryEntry", "QuestionHistory"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class HistoryEntry:
    question: str
    sql: str | None
    database_id: str
    row_count: int = 0
    ok: bool = True
    path: str | None = None
    at: float = field(default_factory=time.time)


class QuestionHistory:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def _path(self, user: str) -> Path:
        return self.root / (hashlib.sha256(user.encode("utf-8")).hexdigest()[:32] + ".jsonl")

    def append(self, user: str, entry: HistoryEntry) -> None:
        import fasteners

        path = self._path(user)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            line = json.dumps({"user": user, **asdict(entry)}, ensure_ascii=False) + "\n"
            with fasteners.InterProcessLock(str(path) + ".lock"):
                with open(path, "a+b") as fh:
                    if fh.tell() > 0:  # a crash mid-line left a fragment: end it, or this line is glued on
                        fh.seek(-1, os.SEEK_END)
                        if fh.read(1) != b"\n":
                            line = "\n" + line
                    fh.write(line.encode("utf-8"))
                    fh.flush()
                    os.fsync(fh.fileno())
        except OSError as exc:
            raise MemoryStoreError(f"Could not save the question history: {exc.strerror or exc}.") from exc

    def entries(self, user: str, *, limit: int = 500) -> list[HistoryEntry]:
        """Newest first. Lines that do not parse (a torn last line) are skipped."""
        path = self._path(user)
        if not path.exists():
            return []
        out: list[HistoryEntry] = []
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                try:
                    data = json.loads(line)
                except ValueError:
                    continue
                if data.pop("user", None) != user:
                    continue
                try:
                    out.append(HistoryEntry(**data))
                except TypeError:
                    continue
        return list(reversed(out))[:limit]

    def search(self, user: str, text: str, *, limit: int = 200) -> list[HistoryEntry]:
        needle = text.strip().lower()
        if not needle:
            return self.entries(user, limit=limit)
        return [
            e for e in self.entries(user, limit=10_000)
            if needle in e.question.lower() or (e.sql and needle in e.sql.lower())
        ][:limit]
