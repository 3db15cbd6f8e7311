"""The fallback memory store: one JSON file per user, searched with one NumPy matrix-vector product.

Used when PostgreSQL with pgvector is not available. Each user's file holds their memories (embeddings as
base64 float32, so a 10k file stays ~20 MB and loads fast), their recent messages and their summary.

Why it is shaped like this:
- Writes go to a temp file, are fsynced, renamed over the old file and the directory is fsynced: a crash or a
  full disk leaves the old file whole. An inter-process lock per user file is held around read-modify-write,
  so two Cairn processes never lose each other's writes.
- A parsed file and its embedding matrix are cached per user and revalidated by a random token written first
  in the file (stat alone can miss a rewrite of equal size within one timestamp tick).
- A file that does not parse is copied aside to ``<name>.corrupt-<timestamp>`` and every later write for that
  user is refused (CorruptMemoryFile) until the person restores the file or clears the user's memories.
- Inside a file that parses, a bad entry is skipped or read without its bad field and written back as it was
  (``_store_json_doc``): one bad memory never hides the good ones, and no write loses it.
- Memories are private: files, locks, backups and temp files are created 0600 and the folder 0700 whatever
  the umask, and looser modes found on the owner's files are tightened when they are opened.
"""

from __future__ import annotations

import base64
import errno
import hashlib
import logging
import os
import re
import threading
import time
import unicodedata
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from core.private_files import make_private, make_private_dir, private_opener, touch_private
from core.errors import CorruptMemoryFile, MemoryStoreError, MemoryStoreFull, disk_full_hint
from core.memory.kernel import ALL_DATABASES, Memory, Message, ScoredMemory
from core.memory.stores._store_json_doc import Doc, decode_vector, encode_vector, parse_doc

__all__ = ["JsonMemoryStore", "user_file_name"]

logger = logging.getLogger(__name__)

LOCK_TIMEOUT_S = 30.0
_TOKEN_RE = re.compile(rb'^\{"format": (\d+), "token": "([0-9a-f]{32})"')
_SLUG_RE = re.compile(r"[^a-z0-9]+")


def user_file_name(user: str) -> str:
    """A safe, case-insensitive-filesystem-proof file stem for any unicode user name.

    A readable ASCII slug (may be empty) plus a hash of the exact name: no separators, no dots, no
    traversal, and two names differing only in case or accents still get different files.
    """
    ascii_name = unicodedata.normalize("NFKD", user).encode("ascii", "ignore").decode("ascii")
    slug = _SLUG_RE.sub("-", ascii_name.lower()).strip("-")[:40]
    digest = hashlib.sha256(user.encode("utf-8", "surrogatepass")).hexdigest()[:20]
    return f"{slug}-{digest}" if slug else f"user-{digest}"


def _write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so a reader sees the old file or the new one, never half of either."""
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}")
    try:
        with open(tmp, "wb", opener=private_opener) as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(directory: Path) -> None:
    if os.name != "posix":  # Windows cannot open a directory for fsync; the rename is durable there anyway
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class JsonMemoryStore:
    """MemoryStore and ConversationStore over one JSON file per user under ``root``."""

    kind = "json"

    def __init__(self, root: Path, *, dims: int | None = None, fallback_reason: str | None = None) -> None:
        self.root = Path(root)
        self.dims = dims
        self.fallback_reason = fallback_reason
        self._cache: dict[str, Doc] = {}
        self._cache_lock = threading.Lock()
        self._thread_locks: dict[str, threading.Lock] = {}

    # ------------------------------------------------------------------ paths, locks, load, save

    def path_for(self, user: str) -> Path:
        """The file holding ``user``'s memories (it may not exist yet)."""
        return self.root / f"{user_file_name(user)}.json"

    def describe(self) -> str:
        text = f"memory: JSON files in {self.root}"
        return f"{text} (PostgreSQL memory unavailable: {self.fallback_reason})" if self.fallback_reason else text

    def close(self) -> None:
        with self._cache_lock:
            self._cache.clear()

    @contextmanager
    def update_lock(self, user: str) -> Iterator[None]:
        """Held around one whole update cycle (list, decide, write) for ``user``, across processes."""
        import fasteners

        path = self.path_for(user)
        lock_path = path.with_name(path.name + ".update.lock")
        try:
            self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
            touch_private(lock_path)
        except OSError as exc:
            raise self._write_error(path, exc) from exc
        lock = fasteners.InterProcessLock(str(lock_path))
        if not lock.acquire(timeout=LOCK_TIMEOUT_S):
            raise MemoryStoreError(f"The memory file {path} is being updated by another process.",
                                   hint="Close other Cairn windows or commands and try again.")
        try:
            yield
        finally:
            lock.release()

    def _locked(
        self, user: str, action: Callable[[Doc, Path], tuple[Doc | None, Any]], *, discard_damaged: bool = False
    ) -> Any:
        """Run a read-modify-write under this thread's and every other process's lock for ``user``.

        ``discard_damaged`` (clear only) starts from an empty file when the current one does not parse.
        """
        import fasteners

        path = self.path_for(user)
        lock_path = path.with_name(path.name + ".lock")
        try:
            self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
            make_private_dir(self.root)
        except OSError as exc:
            raise self._write_error(path, exc) from exc
        with self._cache_lock:
            thread_lock = self._thread_locks.setdefault(path.name, threading.Lock())
        with thread_lock:
            lock = fasteners.InterProcessLock(str(lock_path))
            try:
                touch_private(lock_path)
                acquired = lock.acquire(timeout=LOCK_TIMEOUT_S)
            except OSError as exc:
                raise self._write_error(path, exc) from exc
            if not acquired:
                raise MemoryStoreError(
                    f"The memory file {path} is locked by another process.",
                    hint="Close other Cairn windows or commands and try again.",
                )
            try:
                self._sweep_temp_files(path)
                try:
                    doc = self._load(user, path)
                except CorruptMemoryFile:
                    if not discard_damaged:
                        raise
                    logger.warning("replacing the damaged memory file %s; its backup is kept", path)
                    doc = Doc.empty(user)
                new_doc, result = action(doc, path)
                if new_doc is not None:
                    self._save(path, new_doc)
                return result
            finally:
                lock.release()

    @staticmethod
    def _sweep_temp_files(path: Path) -> None:
        """Remove temp files of writers killed mid-write. Only a lock holder writes one, and we hold the lock."""
        for tmp in path.parent.glob(f"{path.name}.tmp-*"):
            try:
                tmp.unlink()
                logger.info("removed %s, left by an interrupted write", tmp.name)
            except OSError as exc:  # a read-only disk: harmless, the next write will say so
                logger.debug("could not remove %s: %s", tmp, exc)

    def _load(self, user: str, path: Path) -> Doc:
        """The current file for ``user`` (cached while its token is unchanged). Raises CorruptMemoryFile."""
        try:
            with open(path, "rb") as fh:
                self._secure(fh.fileno())
                head = fh.read(96)
                match = _TOKEN_RE.match(head)
                with self._cache_lock:
                    cached = self._cache.get(path.name)
                if (cached is not None and match and match.group(2).decode() == cached.token
                        and os.fstat(fh.fileno()).st_size == cached.size):
                    return cached
                data = head + fh.read()
        except FileNotFoundError:
            return Doc.empty(user)
        except OSError as exc:
            raise MemoryStoreError(
                f"Cannot read the memory file {path}: {exc.strerror or exc}.",
                hint="Check that the data directory is readable by you.",
            ) from exc
        try:
            doc = parse_doc(data, user, where=str(path))
            doc.size = len(data)
        except (ValueError, RecursionError) as exc:
            backup = self._keep_corrupt(path, data)
            raise CorruptMemoryFile(
                f"The memory file {path} is damaged ({exc}); a copy was kept at {backup}. "
                "Memories for this user will not be changed until it is fixed.",
                hint=f"Repair or restore {path.name} from the backup, or clear this user's memories "
                "to start afresh (the backup stays).",
            ) from exc
        with self._cache_lock:
            self._cache[path.name] = doc
        return doc

    def _secure(self, fd: int) -> None:
        """Memory files are the person's own: 0600 files in a 0700 folder, fixed when found looser."""
        try:
            make_private(fd)
            make_private_dir(self.root)
        except OSError as exc:  # a read-only disk: reading still works
            logger.debug("could not tighten the permissions in %s: %s", self.root, exc)

    def _keep_corrupt(self, path: Path, data: bytes) -> Path:
        """Copy a damaged file aside once (an identical earlier backup is reused)."""
        for old in sorted(path.parent.glob(f"{path.name}.corrupt-*")):
            try:
                with open(old, "rb") as fh:
                    make_private(fh.fileno())
                    if os.fstat(fh.fileno()).st_size == len(data) and fh.read() == data:
                        return old
            except OSError:
                continue
        backup = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:6]}")
        try:
            with open(backup, "xb", opener=private_opener) as fh:
                fh.write(data)
        except OSError as exc:
            logger.error("could not back up damaged memory file %s: %s", path, exc)
            return path  # the damaged file itself stays untouched: writes are refused anyway
        logger.error("memory file %s is damaged; kept a copy at %s", path, backup)
        return backup

    def _save(self, path: Path, doc: Doc) -> None:
        doc.token = uuid.uuid4().hex
        data = doc.to_bytes()
        doc.size = len(data)
        try:
            _write_atomic(path, data)
        except OSError as exc:
            raise self._write_error(path, exc) from exc
        with self._cache_lock:
            self._cache[path.name] = doc

    @staticmethod
    def _write_error(path: Path, exc: OSError) -> MemoryStoreError:
        reason = {errno.ENOSPC: "the disk is full", errno.EROFS: "the disk is read-only",
                  errno.EACCES: "permission denied", errno.EDQUOT: "the disk quota is used up"}.get(
            exc.errno or 0, exc.strerror or str(exc))  # fmt: skip
        message = f"Could not save the memory file {path}: {reason}. The previous version is intact."
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return MemoryStoreFull(message, hint=disk_full_hint(path.parent))
        return MemoryStoreError(message)

    def _read(self, user: str) -> Doc:
        return self._load(user, self.path_for(user))

    # ------------------------------------------------------------------ MemoryStore

    def put(self, memory: Memory) -> None:
        self.put_many([memory])

    def put_many(self, memories: Sequence[Memory]) -> None:
        """Insert or replace several memories of one or more users, one file write per user."""
        by_user: dict[str, list[Memory]] = {}
        for memory in memories:
            self._check_dims(memory)
            by_user.setdefault(memory.user, []).append(memory)
        for user, batch in by_user.items():

            def action(doc: Doc, _path: Path, batch: list[Memory] = batch) -> tuple[Doc, None]:
                self._check_same_dims(doc, batch)
                items = list(doc.memories)
                where = {item["id"]: i for i, item in enumerate(items)}
                for memory in batch:
                    item = memory.to_json()
                    item["embedding"] = encode_vector(memory.embedding)
                    if memory.id in where:
                        items[where[memory.id]] = item
                    else:
                        where[memory.id] = len(items)
                        items.append(item)
                return doc.derive(memories=items), None

            self._locked(user, action)

    def _check_dims(self, memory: Memory) -> None:
        if memory.embedding is not None and self.dims is not None and len(memory.embedding) != self.dims:
            raise MemoryStoreError(
                f"The memory embedding has {len(memory.embedding)} dimensions; this store holds {self.dims}.",
                hint="Use the same embedding model for every memory.",
            )

    @staticmethod
    def _check_same_dims(doc: Doc, batch: Sequence[Memory]) -> None:
        """One file holds one embedding size, else its matrix cannot be built (and it would read as damaged)."""
        sizes = {len(m.embedding) for m in batch if m.embedding is not None}
        replaced = {m.id for m in batch}  # all of them replaced at once: another size may take their place
        for item in doc.memories:
            if item.get("embedding") is not None and item["id"] not in replaced:
                sizes.add(len(base64.b64decode(item["embedding"])) // 4)
                break
        if len(sizes) > 1:
            raise MemoryStoreError(
                f"Memories of one user must share one embedding size; got {sorted(sizes)} dimensions.",
                hint="Use the same embedding model for every memory.",
            )

    def delete(self, user: str, memory_ids: Sequence[str]) -> int:
        wanted = set(memory_ids)

        def action(doc: Doc, _path: Path) -> tuple[Doc | None, int]:
            kept = [m for m in doc.memories if m["id"] not in wanted]
            gone = len(doc.memories) - len(kept)
            return (doc.derive(memories=kept) if gone else None), gone

        if not wanted:
            return 0
        result: int = self._locked(user, action)
        return result

    def list(self, user: str, *, database_id: str | None = None) -> list[Memory]:
        doc = self._read(user)
        items = doc.memories
        if database_id is not None:
            items = [m for m in items if m["database_id"] in (database_id, ALL_DATABASES)]
        out = [self._to_memory(m) for m in items]
        out.sort(key=lambda m: m.created_at)  # stable: equal times keep insertion order
        return out

    @staticmethod
    def _to_memory(item: dict[str, Any]) -> Memory:
        vec = decode_vector(item.get("embedding"))
        memory = Memory.from_json({**item, "embedding": None})
        if vec is None:
            return memory
        object.__setattr__(memory, "embedding", tuple(vec.tolist()))
        return memory

    def search(
        self, user: str, vector: Sequence[float], *, k: int = 5, database_id: str | None = None
    ) -> list[ScoredMemory]:
        if k <= 0:
            return []
        doc = self._read(user)
        matrix, rows = doc.matrix()
        if len(rows) == 0:
            return []
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        if query.shape[0] != matrix.shape[1]:
            raise MemoryStoreError(
                f"The query vector has {query.shape[0]} dimensions; the memories have {matrix.shape[1]}.",
                hint="Use the same embedding model for every memory.",
            )
        norm = float(np.linalg.norm(query))
        scores = matrix @ (query / norm if norm > 0 else query)
        if database_id is not None:
            mask = doc.mask(database_id)
            candidates = np.flatnonzero(mask)
            scores = scores[candidates]
        else:
            candidates = np.arange(len(rows))
        if len(candidates) == 0:
            return []
        if k < len(scores):
            top = np.argpartition(-scores, k - 1)[:k]
            top = top[np.argsort(-scores[top], kind="stable")]
        else:
            top = np.argsort(-scores, kind="stable")
        return [
            ScoredMemory(self._to_memory(doc.memories[int(rows[candidates[i]])]), float(scores[i])) for i in top
        ]

    def clear(self, user: str) -> int:
        """Forget all of ``user``'s memories. On a damaged file this is the way out: the backup stays."""

        def action(doc: Doc, _path: Path) -> tuple[Doc | None, int]:
            if not doc.memories and not doc.unreadable:
                return None, 0
            return doc.derive(memories=[], forget_unreadable=True), len(doc.memories)

        try:
            result: int = self._locked(user, action)
        except CorruptMemoryFile:
            # the person asked to forget everything: start afresh, the backup made by _load stays
            result = self._locked(user, lambda _doc, _path: (Doc.empty(user), 0), discard_damaged=True)
        return result

    # ------------------------------------------------------------------ ConversationStore

    def append_message(self, user: str, message: Message, *, keep: int = 20) -> None:
        item = {"role": message.role, "content": message.content, "sql": message.sql,
                "created_at": message.created_at, "database_id": message.database_id}  # fmt: skip

        def action(doc: Doc, _path: Path) -> tuple[Doc, None]:
            messages = [*doc.messages, item][-keep:] if keep > 0 else []
            return doc.derive(messages=messages), None

        self._locked(user, action)

    def recent_messages(self, user: str, *, limit: int = 20) -> list[Message]:
        if limit <= 0:
            return []
        doc = self._read(user)
        messages = [m for m in (Message.from_json(item) for item in doc.messages) if m is not None]
        return messages[-limit:]

    def summary(self, user: str) -> str:
        return self._read(user).summary

    def set_summary(self, user: str, summary: str) -> None:
        def action(doc: Doc, _path: Path) -> tuple[Doc, None]:
            return doc.derive(summary=summary), None

        self._locked(user, action)

    def forget_conversation(self, user: str) -> None:
        def action(doc: Doc, _path: Path) -> tuple[Doc | None, None]:
            if not doc.messages and not doc.summary:
                return None, None
            return doc.derive(messages=[], summary=""), None

        self._locked(user, action)
