"""The feedback log: every thumbs-up, thumbs-down and withdrawn verdict, append-only, for a quality dashboard.

One JSON-lines file per user under ``<data dir>/feedback`` (0600 in a 0700 folder); each line is written whole
with an fsync under an inter-process lock, so a crash leaves at most a missing last line. Reading skips any line
that is not a whole, well-typed event. :meth:`FeedbackLog.feedback_counts` is the dashboard's typed view.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import logging
import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal, NamedTuple

from core.errors import MemoryStoreError
from core.private_files import append_json_line

__all__ = ["FEEDBACK_DIR", "VERDICTS", "DayCount", "FeedbackEvent", "FeedbackLog", "Verdict", "cairn_version",
           "feedback_counts", "feedback_dir"]

logger = logging.getLogger(__name__)

Verdict = Literal["up", "down", "clear"]
VERDICTS: tuple[Verdict, ...] = ("up", "down", "clear")  # clear: a thumb taken back (neither up nor down)
MAX_LINE_CHARS = 40_000
FEEDBACK_DIR = "feedback"  # under the data dir: the verified examples and the log, one pair of files per user


def feedback_dir() -> Path:
    from core.config import data_dir

    return data_dir() / FEEDBACK_DIR


def feedback_counts(since: _dt.date | None = None, *, user: str | None = None,
                    root: Path | None = None) -> list[DayCount]:
    """Thumbs up and down per day in this data dir's feedback log (every user's, or ``user``'s), oldest first.

    The quality dashboard's view; see :meth:`FeedbackLog.feedback_counts`.
    """
    return FeedbackLog(root or feedback_dir()).feedback_counts(since, user=user)


def cairn_version() -> str:
    """The installed Cairn's version, or "unknown" in a checkout that was never installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("cairn-sql")
    except PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True)
class FeedbackEvent:
    """One verdict on one answer."""

    verdict: Verdict
    question: str
    sql: str
    database_id: str
    model: str = ""
    version: str = ""
    removed: int = 0  # verified examples this verdict removed
    at: float = field(default_factory=time.time)

    @property
    def day(self) -> _dt.date:
        return _dt.datetime.fromtimestamp(self.at).date()


class DayCount(NamedTuple):
    """Thumbs up and down given on one (local) day."""

    day: _dt.date
    ups: int
    downs: int


_TYPES: dict[str, tuple[type, ...]] = {
    "verdict": (str,), "question": (str,), "sql": (str,), "database_id": (str,), "model": (str,),
    "version": (str,), "removed": (int,), "at": (int, float),
}  # fmt: skip


def _event(line: str, user: str | None) -> FeedbackEvent | None:
    """One log line, or None when it is torn, another user's, or of the wrong shape."""
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or (user is not None and data.get("user") != user):
        return None
    values: dict[str, Any] = {}
    for name, types in _TYPES.items():
        if name not in data:
            if name in ("verdict", "question", "sql", "database_id", "at"):
                return None
            continue
        value = data[name]
        if not isinstance(value, types) or (name in ("removed", "at") and isinstance(value, bool)):
            return None
        if name == "at" and not math.isfinite(value):
            return None
        values[name] = value
    if values["verdict"] not in VERDICTS:
        return None
    return FeedbackEvent(**values)


class FeedbackLog:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def path(self, user: str) -> Path:
        return self.root / (hashlib.sha256(user.encode("utf-8", "surrogatepass")).hexdigest()[:32] + ".log.jsonl")

    def append(self, user: str, event: FeedbackEvent) -> None:
        try:
            append_json_line(self.path(user), {"user": user, **asdict(event)})
        except OSError as exc:
            raise MemoryStoreError(f"Could not record the feedback: {exc.strerror or exc}.",
                                   hint=f"Check the free space and permissions of {self.root}.") from exc

    def events(self, user: str | None = None, *, since: _dt.date | None = None) -> list[FeedbackEvent]:
        """Oldest first: ``user``'s, or every user's on this machine; from the day ``since`` on when given."""
        paths = [self.path(user)] if user is not None else sorted(self.root.glob("*.log.jsonl"))
        out: list[FeedbackEvent] = []
        for path in paths:
            try:
                with open(path, encoding="utf-8", errors="replace") as fh:
                    for line in fh:
                        event = _event(line, user) if len(line) <= MAX_LINE_CHARS else None
                        if event is not None and (since is None or event.day >= since):
                            out.append(event)
            except FileNotFoundError:
                continue
            except OSError as exc:
                raise MemoryStoreError(f"Could not read the feedback log {path}: {exc.strerror or exc}.") from exc
        return sorted(out, key=lambda e: e.at)

    def feedback_counts(self, since: _dt.date | None = None, *, user: str | None = None) -> list[DayCount]:
        """Thumbs up and down per day, oldest day first; only days with at least one."""
        days: dict[_dt.date, list[int]] = {}
        for event in self.events(user, since=since):
            if event.verdict in ("up", "down"):
                counts = days.setdefault(event.day, [0, 0])
                counts[0 if event.verdict == "up" else 1] += 1
        return [DayCount(day, ups, downs) for day, (ups, downs) in sorted(days.items())]

    def forget(self, user: str) -> None:
        """Delete ``user``'s log (part of "forget everything about me")."""
        path = self.path(user)
        try:
            path.unlink(missing_ok=True)
            Path(str(path) + ".lock").unlink(missing_ok=True)
        except OSError as exc:
            raise MemoryStoreError(f"Could not delete the feedback log: {exc.strerror or exc}.") from exc
