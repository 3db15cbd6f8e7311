"""Verified examples: questions a person marked right (thumbs-up), with the SQL that answered them, per database.

One private JSON file per user under ``<data dir>/feedback`` (0600 in a 0700 folder), rewritten whole and
atomically under an inter-process lock, so a crash leaves the old list or the new one. Reading is lenient inside
a good file: an entry that is not a whole, well-typed example is skipped (and written back as it was). A file
that is not a list of verified examples at all is refused with a hint and never overwritten. Each database keeps
at most ``MAX_PER_DATABASE`` examples; a new one beyond that drops the oldest.

"Database" is the connection's stable, password-free id (``Database.id``, from ``core/databases/_connection_id``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import threading
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from core.config import write_json_atomic
from core.errors import CorruptMemoryFile, InputError, MemoryStoreError
from core.private_files import make_private_dir, touch_private
from core.text import clean_text

__all__ = [
    "EXAMPLES_FORMAT",
    "MAX_PER_DATABASE",
    "ExampleStore",
    "VerifiedExample",
    "check_example",
    "same_sql",
]

logger = logging.getLogger(__name__)

EXAMPLES_FORMAT = "cairn-verified-examples/1"
MAX_PER_DATABASE = 500
MAX_QUESTION_CHARS = 4000
MAX_SQL_CHARS = 20_000
_THREAD_LOCK = threading.Lock()  # file locks are per process: threads of one process queue here
_DAMAGED_HINT = ("Cairn left the file as it is. Fix it, or move it away to start a new list of verified "
                 "examples (your memories are not affected).")


def _sql_key(sql: str) -> str:
    return " ".join(sql.split()).rstrip(";").strip()


def same_sql(a: str, b: str) -> bool:
    """Whether two SQL texts are the same query as written (whitespace and a final semicolon aside)."""
    return _sql_key(a) == _sql_key(b)


def _question_key(question: str) -> str:
    return " ".join(question.split()).casefold().rstrip("?!. ")


@dataclass(frozen=True)
class VerifiedExample:
    """A question and the SQL that answered it, marked right by ``user`` for the database ``database_id``."""

    id: str
    user: str
    database_id: str
    question: str
    sql: str
    created_at: float

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "user": self.user, "database_id": self.database_id, "question": self.question,
                "sql": self.sql, "created_at": self.created_at}

    @classmethod
    def from_json(cls, data: Any, user: str) -> VerifiedExample | None:
        """The example a stored object holds, or None when it is not a whole, well-typed one."""
        if not isinstance(data, Mapping):
            return None
        texts = [data.get(k) for k in ("id", "database_id", "question", "sql")]
        at = data.get("created_at")
        if not all(isinstance(t, str) and t.strip() for t in texts):
            return None
        if isinstance(at, bool) or not isinstance(at, (int, float)) or not math.isfinite(at):
            return None
        if len(data["question"]) > MAX_QUESTION_CHARS or len(data["sql"]) > MAX_SQL_CHARS:
            return None
        return cls(id=data["id"], user=user, database_id=data["database_id"], question=data["question"],
                   sql=data["sql"], created_at=float(at))

    def same_as(self, database_id: str, question: str, sql: str) -> bool:
        return (self.database_id == database_id and _question_key(self.question) == _question_key(question)
                and same_sql(self.sql, sql))


@dataclass(frozen=True)
class _File:
    examples: list[VerifiedExample]  # oldest first, as stored
    unreadable: list[Any]  # entries that are not examples, written back as they were


def _user_key(user: str) -> str:
    return hashlib.sha256(user.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def check_example(question: str, sql: str) -> tuple[str, str]:
    """The question and SQL as stored: cleaned, within limits; InputError (with what to do) when not usable."""
    q = " ".join(clean_text(str(question)).split())
    s = str(sql).strip()
    if not q:
        raise InputError("The question of a verified example is empty.", hint="Pass the question the SQL answers.")
    if not s:
        raise InputError("The SQL of a verified example is empty.", hint="Pass the SQL that answered the question.")
    if len(q) > MAX_QUESTION_CHARS:
        raise InputError(f"The question is longer than {MAX_QUESTION_CHARS:,} characters.",
                         hint="Verify a shorter question.")
    if len(s) > MAX_SQL_CHARS:
        raise InputError(f"The SQL is longer than {MAX_SQL_CHARS:,} characters.", hint="Verify a shorter query.")
    return q, s


class ExampleStore:
    """Each user's verified examples, by database. Thread- and process-safe; every change is one atomic write."""

    def __init__(self, root: Path, *, cap: int = MAX_PER_DATABASE) -> None:
        self.root = Path(root)
        self.cap = max(1, cap)

    def path(self, user: str) -> Path:
        return self.root / f"{_user_key(user)}.json"

    # -- reading ------------------------------------------------------------------------------------

    def list(self, user: str, *, database_id: str | None = None) -> list[VerifiedExample]:
        """Newest first; only ``database_id``'s when given. CorruptMemoryFile when the file is damaged."""
        found = self._read(user).examples
        if database_id is not None:
            found = [e for e in found if e.database_id == database_id]
        return sorted(found, key=lambda e: e.created_at, reverse=True)

    def get(self, user: str, example_id: str) -> VerifiedExample:
        """By id or by its first 6+ characters (as `cairn feedback list` shows them)."""
        wanted = example_id.strip()
        hits = [e for e in self._read(user).examples
                if e.id == wanted or (len(wanted) >= 6 and e.id.startswith(wanted))]
        if len(hits) != 1:
            why = "matches several examples" if hits else "is not a verified example"
            raise InputError(f"{wanted!r} {why} of {user!r}.",
                             hint="List them with `cairn feedback list --user NAME` and pass a longer id.")
        return hits[0]

    def export(self, user: str) -> list[dict[str, Any]]:
        """Every example of ``user``, oldest first, for a memory export file."""
        return [e.to_json() for e in self._read(user).examples]

    # -- changing -----------------------------------------------------------------------------------

    def add(self, user: str, database_id: str, question: str, sql: str) -> VerifiedExample:
        """Keep a verified example; verifying the same question and SQL again only renews its time."""
        question, sql = check_example(question, sql)
        if not database_id.strip():
            raise InputError("A verified example needs its database.", hint="Pass --db or use --last.")
        with self._locked(user):
            current = self._read(user)
            kept = [e for e in current.examples if not e.same_as(database_id, question, sql)]
            old = next((e for e in current.examples if e.same_as(database_id, question, sql)), None)
            example = (replace(old, created_at=time.time()) if old is not None else
                       VerifiedExample(uuid.uuid4().hex, user, database_id, question, sql, time.time()))
            self._write(user, _File(self._capped([*kept, example]), current.unreadable))
        return example

    def remove(self, user: str, example_id: str) -> VerifiedExample:
        with self._locked(user):
            gone = self.get(user, example_id)
            current = self._read(user)
            self._write(user, _File([e for e in current.examples if e.id != gone.id], current.unreadable))
        return gone

    def remove_matching(self, user: str, database_id: str, sql: str, *, question: str | None = None
                        ) -> list[VerifiedExample]:
        """Remove ``database_id``'s examples with this SQL (and this question, when given); returns them."""
        with self._locked(user):
            current = self._read(user)
            gone = [e for e in current.examples if e.database_id == database_id and same_sql(e.sql, sql)
                    and (question is None or _question_key(e.question) == _question_key(question))]
            if gone:
                ids = {e.id for e in gone}
                self._write(user, _File([e for e in current.examples if e.id not in ids], current.unreadable))
        return gone

    def restore(self, user: str, examples: Sequence[VerifiedExample]) -> list[VerifiedExample]:
        """Add the examples of an export (checked with :meth:`parse_export`); those already kept are skipped."""
        with self._locked(user):
            current = self._read(user)
            mine = list(current.examples)
            added = []
            for e in examples:
                if not any(m.same_as(e.database_id, e.question, e.sql) for m in mine):
                    fresh = replace(e, id=uuid.uuid4().hex, user=user)
                    mine.append(fresh)
                    added.append(fresh)
            if added:
                mine.sort(key=lambda e: e.created_at)
                self._write(user, _File(self._capped(mine), current.unreadable))
        return added

    def clear(self, user: str) -> None:
        """Forget all of ``user``'s verified examples (part of "forget everything about me")."""
        with self._locked(user):
            try:
                self.path(user).unlink(missing_ok=True)
            except OSError as exc:
                raise MemoryStoreError(f"Could not delete the verified examples: {exc.strerror or exc}.") from exc

    @staticmethod
    def parse_export(items: Any, user: str) -> list[VerifiedExample]:
        """The examples of an export's ``verified_examples`` list; InputError naming the first bad one."""
        if not isinstance(items, list):
            raise InputError("The export's verified examples are not a list.",
                             hint="Export again, or remove the \"verified_examples\" key to import the memories.")
        out = []
        for n, item in enumerate(items, 1):
            example = VerifiedExample.from_json({**item, "id": "import"} if isinstance(item, Mapping) else item,
                                                user)
            if example is None:
                raise InputError(f"Verified example {n} of the export is malformed.",
                                 hint="Each needs database_id, question, sql and created_at; fix the file and retry.")
            question, sql = check_example(example.question, example.sql)
            out.append(replace(example, question=question, sql=sql))
        return out

    # -- internals ----------------------------------------------------------------------------------

    def _capped(self, examples: list[VerifiedExample]) -> list[VerifiedExample]:
        """At most ``cap`` per database: the oldest of a database over it are dropped."""
        per_db: dict[str, int] = {}
        keep: list[VerifiedExample] = []
        for e in sorted(examples, key=lambda e: e.created_at, reverse=True):
            per_db[e.database_id] = per_db.get(e.database_id, 0) + 1
            if per_db[e.database_id] <= self.cap:
                keep.append(e)
        dropped = len(examples) - len(keep)
        if dropped:
            logger.info("dropped the %d oldest verified example(s) over the cap of %d", dropped, self.cap)
        return sorted(keep, key=lambda e: e.created_at)

    def _read(self, user: str) -> _File:
        path = self.path(user)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return _File([], [])
        except OSError as exc:
            raise MemoryStoreError(f"Could not read the verified examples in {path}: {exc.strerror or exc}.",
                                   hint=f"Check the permissions of {self.root}.") from exc
        try:
            body = json.loads(data.decode("utf-8"))
        except (ValueError, RecursionError) as exc:
            raise CorruptMemoryFile(f"The verified examples file {path} is damaged (not JSON).",
                                    hint=_DAMAGED_HINT) from exc
        if not isinstance(body, dict) or body.get("format") != EXAMPLES_FORMAT:
            raise CorruptMemoryFile(f"{path} is not a file of verified examples.", hint=_DAMAGED_HINT)
        if body.get("user") != user or not isinstance(body.get("examples"), list):
            raise CorruptMemoryFile(f"The verified examples file {path} is damaged (wrong user or no list).",
                                    hint=_DAMAGED_HINT)
        examples: list[VerifiedExample] = []
        unreadable: list[Any] = []
        for item in body["examples"]:
            example = VerifiedExample.from_json(item, user)
            if example is None:
                unreadable.append(item)
            else:
                examples.append(example)
        if unreadable:
            logger.warning("%d unreadable verified example(s) in %s skipped (kept in the file)", len(unreadable), path)
        return _File(examples, unreadable)

    def _write(self, user: str, content: _File) -> None:
        body = {"format": EXAMPLES_FORMAT, "user": user,
                "examples": [e.to_json() for e in content.examples] + content.unreadable}
        try:
            write_json_atomic(self.path(user), body)
        except OSError as exc:
            raise MemoryStoreError(f"Could not save the verified examples: {exc.strerror or exc}.",
                                   hint=f"Check the free space and permissions of {self.root}.") from exc

    @contextmanager
    def _locked(self, user: str) -> Iterator[None]:
        """Read-modify-write under a lock: two Cairn processes verifying at once must not lose either."""
        import fasteners

        path = self.path(user)
        with _THREAD_LOCK:
            try:
                self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
                make_private_dir(self.root)
                lock_path = path.with_name(path.name + ".lock")
                touch_private(lock_path)
                lock = fasteners.InterProcessLock(str(lock_path))
                acquired = lock.acquire(timeout=30.0)
            except OSError as exc:
                raise MemoryStoreError(f"Could not open the verified examples: {exc.strerror or exc}.",
                                       hint=f"Check the permissions of {self.root}.") from exc
            if not acquired:
                raise MemoryStoreError("The verified examples are locked by another process.",
                                       hint="Close other Cairn windows or commands and try again.")
            try:
                for tmp in self.root.glob(f".{path.name}.*"):  # a writer killed mid-write left it; only we write
                    with suppress(OSError):
                        tmp.unlink()
                yield
            finally:
                lock.release()
