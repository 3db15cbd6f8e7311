"""The memory bank a person sees and edits: list, search, add, edit, delete, clear, undo, export, import.

Every operation is per user. Each change is journalled (before/after) so the last one can be undone, also
from another process (the journal is a small JSON file per user, written atomically).
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from core.config import write_json_atomic
from core.feedback import ExampleStore, FeedbackRecorder
from core.history import QuestionHistory
from core.errors import CairnError, InputError, MemoryStoreError, MemoryStoreFull, disk_full_hint
from core.private_files import make_private_dir, touch_private
from core.text import clean_text
from core.memory.kernel import ALL_DATABASES, CATEGORIES, MAX_MEMORY_CHARS, Category, Embedder, Memory, ScoredMemory
from core.memory.cycle._extraction import Fact
from core.memory.stores import MemoryStore, reembed_foreign_vectors
from core.memory.forms import ENFORCED_KINDS, Grounding, Understanding, understand
from core.memory.cycle._sameness import slot_key, slots_clash
from core.memory.cycle._update import UpdateReport, apply_fact

__all__ = ["BankChange", "MemoryBank"]

logger = logging.getLogger(__name__)

EXPORT_FORMAT = "cairn-memories/1"
UNDO_DEPTH = 20
_JOURNAL_THREAD_LOCK = threading.Lock()  # file locks are per process: threads of one process queue here


@dataclass(frozen=True)
class BankChange:
    """One change to the bank: what was there before and what is there after (either may be empty)."""

    operation: str  # ADD, UPDATE, DELETE, CLEAR, IMPORT, UNDO
    before: tuple[Memory, ...]
    after: tuple[Memory, ...]
    at: float

    def to_json(self) -> dict[str, Any]:
        return {
            "operation": self.operation,
            "before": [m.to_json(with_embedding=True) for m in self.before],
            "after": [m.to_json(with_embedding=True) for m in self.after],
            "at": self.at,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> BankChange:
        return cls(
            operation=str(data["operation"]),
            before=tuple(Memory.from_json(m) for m in data.get("before", [])),
            after=tuple(Memory.from_json(m) for m in data.get("after", [])),
            at=float(data.get("at", 0)),
        )


def _user_key(user: str) -> str:
    return hashlib.sha256(user.encode("utf-8")).hexdigest()[:32]


PENDING_SOURCE = "import (waiting for its database)"


class MemoryBank:
    """The person's memories as a list to read and change by hand (CLI, the window's bank).

    Changes by hand take the same path as a statement made in the chat: ``understand`` against the open
    database (``grounding``, set by the composition root) and, for an addition, the update cycle, so an added
    "only Germany" replaces a standing "only India" exactly as saying it would.
    """

    def __init__(self, store: MemoryStore, embedder: Embedder, journal_dir: Path, *,
                 grounding: Callable[[], Grounding] | None = None, history: QuestionHistory | None = None,
                 feedback: FeedbackRecorder | None = None) -> None:
        self.store = store
        self.embedder = embedder
        self.journal_dir = journal_dir
        self.grounding = grounding
        self.question_history = history  # the window's list of past questions, forgotten with everything else
        self.feedback = feedback  # verified examples: exported and imported with the memories, forgotten with them
        self._vectors_checked: set[str] = set()

    def check_vectors(self, user: str) -> None:
        """Once per person: memories whose vectors another encoder made, or that have none, are embedded again
        before anything compares vectors (a question, a search, an addition). Raises what embedding raises."""
        if user not in self._vectors_checked:
            reembed_foreign_vectors(self.store, self.embedder, user)
            self._vectors_checked.add(user)

    def _grounding(self) -> Grounding:
        if self.grounding is None:
            return Grounding()
        try:
            return self.grounding()
        except CairnError as exc:  # no database reachable: the words are kept, understood later
            logger.info("memory understood without a database: %s", exc)
            return Grounding()

    def understand(self, category: str, content: str, *, lookup: bool = True) -> Understanding:
        """What Cairn would make of this memory (the window shows it live while the person types, with
        ``lookup=False``: the schema's cached values only, no query per keystroke)."""
        g = self._grounding()
        if not lookup:
            g = Grounding(schema=g.schema, lookup=None, database_id=g.database_id)
        return understand(_category(category), _content(content), g)

    # -- reading ------------------------------------------------------------------------------------

    def list(self, user: str, *, database_id: str | None = None) -> list[Memory]:
        return self.store.list(user, database_id=database_id)

    def search(self, user: str, text: str, *, k: int = 10, database_id: str | None = None) -> list[ScoredMemory]:
        self.check_vectors(user)
        vector = self.embedder.embed_batch([text])[0]
        return self.store.search(user, vector, k=k, database_id=database_id)

    def get(self, user: str, memory_id: str) -> Memory:
        for m in self.store.list(user):
            if m.id == memory_id or (len(memory_id) >= 6 and m.id.startswith(memory_id)):
                return m
        raise InputError(f"No memory {memory_id!r} for user {user!r}.", hint="List them with `cairn memory list`.")

    # -- changing -----------------------------------------------------------------------------------

    def add(
        self,
        user: str,
        category: str,
        content: str,
        *,
        database_id: str = ALL_DATABASES,
        structured: Mapping[str, Any] | None = None,
        source: str = "memory bank",
    ) -> Memory:
        """Remember ``content`` through the update cycle (it may update or replace a memory it contradicts, or
        be found already there); returns the memory that now holds it. ``structured`` skips understanding."""
        return self.remember(user, category, content, database_id=database_id, structured=structured,
                             source=source)[1]

    def remember(
        self, user: str, category: str, content: str, *, database_id: str = ALL_DATABASES,
        structured: Mapping[str, Any] | None = None, source: str = "memory bank",
    ) -> tuple[UpdateReport, Memory]:
        self.check_vectors(user)
        g = self._grounding()
        form = structured if structured is not None else understand(_category(category), _content(content), g).form
        report = apply_fact(Fact(_category(category), _content(content)), user=user, database_id=database_id,
                            store=self.store, embedder=self.embedder, llm=None, schema=g.schema, source=source,
                            lookup=g.lookup, form=form or {}, unsure="ADD")  # {}: understood, no form
        if report.operation != "NOOP":
            self.record(user, BankChange(report.operation, report.before, report.after, time.time()))
        memory = (report.after or report.before)[0]
        return report, memory

    def edit(
        self,
        user: str,
        memory_id: str,
        *,
        content: str | None = None,
        category: str | None = None,
        structured: Mapping[str, Any] | None = None,
        clear_structured: bool = False,
        database_id: str | None = None,
    ) -> Memory:
        """Change a memory; new content is re-embedded. A stale structured form is dropped unless given.
        ``database_id``: where it applies from now on (``ALL_DATABASES``: every database)."""
        before = self.get(user, memory_id)
        changes: dict[str, Any] = {}
        if database_id is not None:
            changes["database_id"] = database_id
        if content is not None:
            changes["content"] = _content(content)
        if category is not None:
            changes["category"] = _category(category)
        if structured is None and not clear_structured and (
            changes.get("content", before.content) != before.content
            or changes.get("category", before.category) != before.category
        ):  # the words changed: so does their meaning (an edited India -> Germany filter filters Germany)
            changes["structured"] = self.understand(changes.get("category", before.category),
                                                    changes.get("content", before.content)).form
        if structured is not None:
            changes["structured"] = dict(structured)
        if clear_structured:
            changes["structured"] = None
        after = self._embedded(before.edited(**changes))
        self.store.put(after)
        self.record(user, BankChange("UPDATE", (before,), (after,), time.time()))
        return after

    def keep(self, user: str, memory_id: str, reading: int = 1) -> UpdateReport:
        """Enforce a reading of a memory that waits for confirmation (or keep an enforced one as it is). The chosen
        form goes through the update cycle as the person's own choice, so it combines with or replaces the rule it
        is about; the waiting memory goes. One undo step puts everything back."""
        memory = self.get(user, memory_id)
        form = dict(memory.structured or {})
        if form.get("kind") == "context" and form.get("readings"):  # kept as context before: enforced again
            form = {**form, "kind": "pending"}
        if form.get("kind") != "pending":
            if form.get("kind") in ENFORCED_KINDS:
                return UpdateReport("NOOP", (memory.id,), (memory,), (memory,), "already enforced")
            raise InputError("That memory does not wait for confirmation.",
                             hint="`cairn memory list` marks the ones that do (waiting for you).")
        readings = [r for r in form.get("readings") or () if isinstance(r, Mapping)]
        if not 1 <= reading <= len(readings):
            raise InputError(f"That memory has {len(readings)} reading(s); there is no reading {reading}.",
                             hint=f"Pick one from 1 to {len(readings)}.")
        if form.get("replaces"):  # a whole rule for its column ("a switch, or both?"): it replaces the saved one
            chosen = dict(readings[reading - 1])
            slot = slot_key(chosen)
            olds = [m for m in self.store.list(user, database_id=memory.database_id)
                    if m.id != memory.id and slots_clash(slot_key(m.structured), slot)]
            kept = self._embedded(memory.edited(structured=chosen))
            self.store.delete(user, [m.id for m in olds])
            self.store.put(kept)
            self.record(user, BankChange("UPDATE", (memory, *olds), (kept,), time.time()))
            return UpdateReport("UPDATE", (kept.id,), (memory, *olds), (kept,),
                                "the reading you kept replaces the rule")
        g = self._grounding()
        self.store.delete(user, [memory.id])  # first: its words must not be taken for the same memory again
        try:
            report = apply_fact(Fact(memory.category, memory.content), user=user, database_id=memory.database_id,
                                store=self.store, embedder=self.embedder, llm=None, schema=g.schema,
                                source=memory.source, lookup=g.lookup, form=readings[reading - 1], unsure="ADD")
        except BaseException:
            self.store.put(memory)
            raise
        self.record(user, BankChange("UPDATE", (memory, *report.before), report.after, time.time()))
        return report

    def context_only(self, user: str, memory_id: str) -> Memory:
        """Keep a memory as the person's words only: nothing of it is enforced on SQL any more. What it could be
        enforced as stays with it (its readings), so ``keep`` can enforce it again later."""
        form = dict(self.get(user, memory_id).structured or {})
        readings = (form.get("readings") if form.get("kind") in ("pending", "context")
                    else [form] if form.get("kind") in ENFORCED_KINDS else None)
        kept: dict[str, Any] = {"kind": "context"}
        if readings:
            kept["readings"] = [dict(r) for r in readings if isinstance(r, Mapping)]
            if form.get("replaces"):
                kept["replaces"] = True
        return self.edit(user, memory_id, structured=kept)

    def delete(self, user: str, memory_id: str) -> Memory:
        memory = self.get(user, memory_id)
        self.store.delete(user, [memory.id])
        self.record(user, BankChange("DELETE", (memory,), (), time.time()))
        return memory

    def clear(self, user: str) -> int:
        """Forget everything about ``user``: the undo journal (it holds memories' text too), the question history,
        the memories and the conversation (recent turns and summary). Cannot be undone; returns how many memories
        went. The journal goes first: if it cannot be removed, nothing else has been touched yet."""
        with self._journal_locked(user):
            try:
                self._journal_path(user).unlink(missing_ok=True)
            except OSError as exc:
                raise MemoryStoreError(
                    f"Could not delete the undo journal: {exc.strerror or exc}. Nothing was deleted.",
                    hint=f"Check the permissions of {self.journal_dir} and try again.",
                ) from exc
        if self.question_history is not None:
            self.question_history.forget(user)
        if self.feedback is not None:
            self.feedback.forget(user)
        count = self.store.clear(user)
        forget = getattr(self.store, "forget_conversation", None)
        if forget is not None:
            forget(user)
        return count

    def undo(self, user: str) -> BankChange | None:
        """Reverse the last change (from the chat or the bank). Returns it, or None when nothing is left."""
        with self._journal_locked(user):
            changes = self._journal(user)
            if not changes:
                return None
            last = changes[-1]
            after_ids = [m.id for m in last.after]
            if after_ids:
                self.store.delete(user, after_ids)
            for memory in last.before:
                self.store.put(memory)
            self._write_journal(user, changes[:-1])
        return last

    def history(self, user: str) -> list[BankChange]:
        return self._journal(user)

    def record(self, user: str, change: BankChange) -> None:
        """Journal a change made elsewhere too (the chat's memory updates), so undo covers it."""
        with self._journal_locked(user):
            changes = self._journal(user)
            changes.append(change)
            self._write_journal(user, changes[-UNDO_DEPTH:])

    # -- export / import ------------------------------------------------------------------------------

    def export(self, user: str) -> dict[str, Any]:
        payload = {
            "format": EXPORT_FORMAT,
            "user": user,
            "exported_at": time.time(),
            "memories": [m.to_json() for m in self.store.list(user)],
        }
        if self.feedback is not None:
            payload["verified_examples"] = self.feedback.examples.export(user)
        return payload

    def import_(self, user: str, payload: Mapping[str, Any]) -> list[Memory]:
        """Add the memories (and verified examples) of an export to ``user`` (re-embedded; new ids). Checks
        everything first."""
        if not isinstance(payload, Mapping) or payload.get("format") != EXPORT_FORMAT:
            raise InputError(
                "This file is not a Cairn memory export.",
                hint=f'Export files are JSON objects with "format": "{EXPORT_FORMAT}".',
            )
        raw = payload.get("memories")
        if not isinstance(raw, list):
            raise InputError("The export has no list of memories.", hint="Export again with `cairn memory export`.")
        parsed: list[Memory] = []
        here: str | None = None
        for n, item in enumerate(raw, 1):
            try:
                m = Memory.from_json({**item, "id": "x", "user": user})
            except (KeyError, TypeError, ValueError) as exc:
                raise InputError(f"Memory {n} of the export is malformed: {exc}.", hint="Fix the file and retry.")
            # The form is derived from the words and the memory's own database, never taken from the file: an
            # export is data, and a form edited by hand could enforce something other than what the bank shows.
            # A memory for another database keeps its words until that database is next used (ground_pending).
            try:
                content = _content(m.content)
            except InputError as exc:  # "A memory needs more than 5 characters": say which one
                raise InputError(f"Memory {n} of the export: {exc}", hint=exc.hint or "Fix the file and retry.") from exc
            if here is None:
                here = self._grounding().database_id or ""
            if m.database_id in (here, ALL_DATABASES):
                form, source = self.understand(m.category, content).form, m.source or "import"
            else:
                form, source = None, PENDING_SOURCE
            parsed.append(Memory(user=user, category=m.category, content=content,
                                 database_id=m.database_id, structured=form, source=source))
        examples = ExampleStore.parse_export(payload["verified_examples"], user) if (
            self.feedback is not None and "verified_examples" in payload) else []  # fmt: skip
        if examples and self.feedback is not None:
            self.feedback.examples.list(user)  # a damaged examples file fails the import before anything is written
        seen = {(m.category, m.content.strip().lower(), m.database_id) for m in self.store.list(user)}
        fresh = []
        for m in parsed:  # a duplicate of a saved memory, or of one earlier in the same file, is skipped
            key = (m.category, m.content.strip().lower(), m.database_id)
            if key not in seen:
                seen.add(key)
                fresh.append(m)
        vectors = self.embedder.embed_batch([m.content for m in fresh]) if fresh else []
        added = [replace(m, embedding=tuple(float(x) for x in v)) for m, v in zip(fresh, vectors)]
        for m in added:
            self.store.put(m)
        if added:
            self.record(user, BankChange("IMPORT", (), tuple(added), time.time()))
        if examples and self.feedback is not None:
            self.feedback.examples.restore(user, examples)
        return added

    def ground_pending(self, user: str, grounding: Grounding) -> int:
        """Understand the imported memories of ``grounding``'s database that waited for it (see ``import_``);
        returns how many. Called when that database is used; a memory that fails stays as words."""
        pending = [m for m in self.store.list(user, database_id=grounding.database_id)
                   if m.source == PENDING_SOURCE and m.database_id == grounding.database_id]  # fmt: skip
        for m in pending:
            form = understand(_category(m.category), m.content, grounding).form
            self.store.put(replace(m, structured=form, source="import", updated_at=time.time()))
        return len(pending)

    # -- internals ------------------------------------------------------------------------------------

    def _embedded(self, memory: Memory) -> Memory:
        vector = self.embedder.embed_batch([memory.content])[0]
        return replace(memory, embedding=tuple(float(x) for x in vector))

    def _journal_path(self, user: str) -> Path:
        return self.journal_dir / f"{_user_key(user)}.json"

    @contextmanager
    def _journal_locked(self, user: str) -> Iterator[None]:
        """Read-modify-write of the journal under an inter-process lock: two Cairn processes recording at
        once must not drop each other's change. Temp files of a writer killed mid-write are swept here."""
        import fasteners

        path = self._journal_path(user)
        with _JOURNAL_THREAD_LOCK:
            try:
                path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                make_private_dir(path.parent)  # the journal holds memories' text: the owner's alone
                lock_path = path.with_name(path.name + ".lock")
                touch_private(lock_path)
                lock = fasteners.InterProcessLock(str(lock_path))
                acquired = lock.acquire(timeout=30.0)
            except OSError as exc:
                raise MemoryStoreError(f"Could not open the undo journal: {exc.strerror or exc}.") from exc
            if not acquired:
                raise MemoryStoreError("The undo journal is locked by another process.",
                                       hint="Close other Cairn windows or commands and try again.")  # fmt: skip
            try:
                for tmp in path.parent.glob(f".{path.name}.*"):  # only a lock holder writes one
                    with suppress(OSError):
                        tmp.unlink()
                yield
            finally:
                lock.release()

    def _journal(self, user: str) -> list[BankChange]:
        path = self._journal_path(user)
        if not path.exists():
            return []
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("user") != user:
                return []
            return [BankChange.from_json(c) for c in data.get("changes", [])]
        except (OSError, ValueError, KeyError) as exc:
            logger.warning("undo journal %s unreadable (%s); starting a new one", path, exc)
            return []

    def _write_journal(self, user: str, changes: Sequence[BankChange]) -> None:
        try:
            write_json_atomic(self._journal_path(user), {"user": user, "changes": [c.to_json() for c in changes]})
        except OSError as exc:
            message = f"Could not write the undo journal: {exc.strerror or exc}."
            if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                raise MemoryStoreFull(message, hint=disk_full_hint(self._journal_path(user).parent)) from exc
            raise MemoryStoreError(message) from exc


def _category(value: str) -> Category:
    v = value.strip().lower()
    aliases = {"term": "terminology", "terms": "terminology", "pref": "preference", "preferences": "preference",
               "metrics": "metric", "entities": "entity"}
    v = aliases.get(v, v)
    if v not in CATEGORIES:
        raise InputError(f"Unknown memory category {value!r}.", hint=f"Use one of: {', '.join(CATEGORIES)}.")
    return v  # type: ignore[return-value]


def _content(text: str) -> str:
    cleaned = " ".join(clean_text(str(text)).split())
    if len(cleaned) <= 5:
        raise InputError("A memory needs more than 5 characters.", hint='e.g. "Only show customers from India".')
    if len(cleaned) > MAX_MEMORY_CHARS:
        raise InputError("A memory is limited to 2,000 characters.", hint="Split it into several memories.")
    return cleaned
