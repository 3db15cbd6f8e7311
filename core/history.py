"""Every question a person asked and the SQL that ran, across sessions: searchable, one click to rerun.

One append-only JSON-lines file per user under ``<data dir>/history``; each line is written whole with an
fsync, under an inter-process lock, so a crash leaves at most a missing last line, never a broken file.
Reading skips any line that is not a whole, well-typed entry. The files are the person's own: 0600 in a 0700
folder, whatever the umask.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from core.private_files import append_json_line
from core.errors import MemoryStoreError

__all__ = ["QUESTION", "TYPED_SQL", "HistoryEntry", "QuestionHistory"]

logger = logging.getLogger(__name__)

QUESTION = "question"  # a question asked in the chat
TYPED_SQL = "sql"  # SQL the person typed and ran in the SQL tab (``question`` is empty)


@dataclass(frozen=True)
class HistoryEntry:
    """One question (or hand-run SQL) on one database. ``kind`` was added later: old lines read as questions."""

    question: str
    sql: str | None
    database_id: str
    row_count: int = 0
    ok: bool = True
    path: str | None = None
    at: float = field(default_factory=time.time)
    kind: str = QUESTION
    stopped: bool = False  # the person stopped it: not a failure


class QuestionHistory:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def _path(self, user: str) -> Path:
        return self.root / (hashlib.sha256(user.encode("utf-8", "surrogatepass")).hexdigest()[:32] + ".jsonl")

    def append(self, user: str, entry: HistoryEntry) -> None:
        try:
            append_json_line(self._path(user), {"user": user, **asdict(entry)})
        except OSError as exc:
            raise MemoryStoreError(f"Could not save the question history: {exc.strerror or exc}.") from exc

    def record(self, user: str, entry: HistoryEntry) -> bool:
        """:meth:`append`, but a failure is logged, not raised: history is a convenience, the answer still shows."""
        try:
            self.append(user, entry)
        except MemoryStoreError as exc:
            logger.warning("history not saved: %s", exc)
            return False
        return True

    def forget(self, user: str) -> None:
        """Delete ``user``'s question history (part of "forget everything about me")."""
        import fasteners

        path = self._path(user)
        if not path.exists():
            return
        try:
            with fasteners.InterProcessLock(str(path) + ".lock"):
                path.unlink(missing_ok=True)
            Path(str(path) + ".lock").unlink(missing_ok=True)
        except OSError as exc:
            raise MemoryStoreError(f"Could not delete the question history: {exc.strerror or exc}.") from exc

    def entries(self, user: str, *, limit: int = 500, database_id: str | None = None) -> list[HistoryEntry]:
        """Newest first, only ``database_id``'s when given. Lines that do not parse (a torn last line) are skipped."""
        path = self._path(user)
        if not path.exists():
            return []
        out: list[HistoryEntry] = []
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    entry = _entry(line, user)
                    if entry is not None and (database_id is None or entry.database_id == database_id):
                        out.append(entry)
        except OSError as exc:
            raise MemoryStoreError(f"Could not read the question history: {exc.strerror or exc}.") from exc
        return list(reversed(out))[:limit]

    def search(self, user: str, text: str, *, limit: int = 200, database_id: str | None = None) -> list[HistoryEntry]:
        needle = text.strip().lower()
        if not needle:
            return self.entries(user, limit=limit, database_id=database_id)
        return [
            e for e in self.entries(user, limit=10_000, database_id=database_id)
            if needle in e.question.lower() or (e.sql and needle in e.sql.lower())
        ][:limit]


_TYPES: dict[str, tuple[type, ...]] = {
    "question": (str,), "sql": (str, type(None)), "database_id": (str,), "row_count": (int,), "ok": (bool,),
    "path": (str, type(None)), "at": (int, float), "kind": (str,), "stopped": (bool,),
}  # fmt: skip
_REQUIRED = ("question", "sql", "database_id")


def _entry(line: str, user: str) -> HistoryEntry | None:
    """One history line, or None when it is torn, of another user or of the wrong shape."""
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("user") != user or any(k not in data for k in _REQUIRED):
        return None
    values: dict[str, Any] = {}
    for f in fields(HistoryEntry):
        if f.name not in data:
            continue
        value = data[f.name]
        if not isinstance(value, _TYPES[f.name]) or (f.name in ("row_count", "at") and isinstance(value, bool)):
            return None
        if f.name == "at" and not math.isfinite(value):
            return None
        values[f.name] = value
    return HistoryEntry(**values)
