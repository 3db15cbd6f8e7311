"""The default shared-insights store: one JSON-lines file in a folder, which may be a shared folder.

Every change is one appended line — a record put, a follow-up invalidated, records deleted — written with a
single ``write`` on an ``O_APPEND`` descriptor and fsynced, under an inter-process lock, so agents on several
machines can append to the same file without tearing each other's lines. Readers never lock: they read the
complete lines added since they last looked (a torn last line is left for later) and fold them into memory,
as a bounded stream: a chunk at a time, a line over ``MAX_LINE_BYTES`` skipped unread, and a scan stopped with a
warning (``describe``) at ``MAX_SCAN_BYTES`` or ``MAX_RECORDS`` entries held, whatever the file's size.
``expire`` rewrites the file without expired or deleted records (write a temporary file, fsync, rename), and
readers notice the new file by its identity and read it again from the start.

Anyone who can write the folder can append a line, so a line counts only when its author signed it (``_signing``):
a put whose record is unsigned or does not match its signature is dropped; a ``replace`` (the author's record less
a follow-up, re-signed) applies only when signed by the same key as the record it replaces and only removes
follow-ups, so replaying an older version changes nothing; a ``delete`` line carries the author's key and a
signature over the record ids it names, so it deletes only that key's records and cannot be replayed on others
(and a deleted record put again by a replayed line stays deleted).
"""

from __future__ import annotations

import json
import logging
import os
import stat as _stat
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from core.errors import InsightStoreError
from core.insights._record import InsightRecord, ScoredInsight, followup_key
from core.insights._signing import AgentKey, change_bytes, verify

__all__ = ["JsonlInsightStore"]

logger = logging.getLogger(__name__)

FILE_NAME = "insights.jsonl"
LOCK_NAME = "insights.lock"
# A record line is a few KB: a 384-value vector is 2 KB of base64, and even a 4,096-value one is 22 KB with its
# short redacted text. A longer line is not one of ours; it is skipped without ever being held whole.
MAX_LINE_BYTES = 64 * 1024
# One scan of the file stops at this many bytes or records held (a warning says so): a shared file grown by
# someone else (2.6 GB was tried) costs a bounded time and memory, never the file's size.
MAX_SCAN_BYTES = 256 * 1024 * 1024
MAX_RECORDS = 20_000
_CHUNK = 1024 * 1024
# How long a rewrite keeps a delete line at the least, from its signed time: the longest a record lives (settings
# allow insight_ttl_days up to 3,650). Its "until" is not signed (an editor of the file could set it to 0 and
# have a rewrite drop the line, then replay the deleted record's put), so it may only lengthen this.
_DELETE_KEPT_S = 3_651 * 86_400.0
LOCK_TIMEOUT_S = 10.0


_SHARED_HINT = ("For a folder several people share, make it group-owned and group-writable with the set-group-id "
                "bit (chmod 2775) so each file Cairn creates there is writable by the group.")


def _open_regular(path: Path, flags: int) -> int:
    """``path`` opened with ``flags``, never through a symbolic link and only when it is a regular file (a pipe
    would block, a device or a link planted by someone else sharing the folder would redirect our writes).
    A file it creates is readable and writable by its group, so a group-shared folder works."""
    fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        info = os.fstat(fd)
        if not _stat.S_ISREG(info.st_mode):
            raise OSError(22, "not a regular file (a link, a folder or a pipe)")
        if flags & os.O_CREAT and info.st_size == 0 and info.st_uid == os.geteuid():
            os.fchmod(fd, info.st_mode & 0o777 | 0o660)  # group members append too (the folder says who they are)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


class JsonlInsightStore:
    """Insights in ``folder/insights.jsonl``. Safe for several processes and machines sharing the folder."""

    kind = "jsonl"

    def __init__(self, folder: str | os.PathLike[str], **_options: Any) -> None:
        self.folder = Path(folder).expanduser()
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InsightStoreError(f"Cannot use the shared-insights folder {self.folder}: {exc.strerror or exc}.",
                                    hint="Choose a folder you can write to in Settings → Sharing.") from exc
        self.path = self.folder / FILE_NAME
        self._lock_path = self.folder / LOCK_NAME
        self._guard = threading.RLock()
        self._records: dict[str, InsightRecord] = {}
        self._tombstones: set[tuple[str, str]] = set()  # (record id, the key whose signed delete named it)
        self._deletes: list[dict[str, Any]] = []  # the signed delete lines seen (kept by a rewrite while useful)
        self._identity: tuple[int, int] | None = None
        self._offset = 0
        self._matrix: dict[int, tuple[list[InsightRecord], np.ndarray]] | None = None
        self.warning = ""  # set when a scan stopped at a cap: the records past it are not read
        self.skipped_lines = 0
        self.dropped_lines = 0  # well-formed lines that are unsigned, badly signed, or not their record's author's

    # -- the interface ------------------------------------------------------------------------------------

    def put(self, record: InsightRecord) -> None:
        self._append({"op": "put", "record": record.to_json()})

    def query(self, vector: Sequence[float] | np.ndarray, *, exclude_author: str, embedding_model: str,
              top_k: int = 3, min_similarity: float = 0.0, now: float | None = None) -> list[ScoredInsight]:
        now = time.time() if now is None else now
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        with self._guard:
            self._refresh()
            records, matrix = self._vectors(query.shape[0])
        if not records or top_k <= 0:
            return []
        norm = float(np.linalg.norm(query))
        if norm == 0.0 or not np.isfinite(norm):
            return []
        scores = matrix @ (query / norm)
        keep = np.fromiter((r.author_key != exclude_author and r.embedding_model == embedding_model
                            and r.expires_at > now for r in records), dtype=bool, count=len(records))
        scores = np.where(keep & (scores >= min_similarity), scores, -np.inf)
        count = min(top_k, int(np.isfinite(scores).sum()))
        if count == 0:
            return []
        best = np.argpartition(-scores, count - 1)[:count]
        best = best[np.argsort(-scores[best])]
        return [ScoredInsight(records[i], float(scores[i])) for i in best]

    def invalidate_followup(self, followup: str, *, key: AgentKey, record_id: str | None = None) -> int:
        with self._guard:
            self._refresh()
            own = [r for r in self._records.values() if r.author_key == key.public_b64
                   and (record_id is None or r.record_id == record_id)]
        changed = [(r, r.without_followup(followup)) for r in own]
        changed = [(old, new) for old, new in changed if new.suggested_followups != old.suggested_followups]
        if changed:
            self._append(*({"op": "replace", "record": new.signed_by(key).to_json()} for _old, new in changed))
        return sum(len(old.suggested_followups) - len(new.suggested_followups) for old, new in changed)

    def expire(self, now: float | None = None) -> int:
        now = time.time() if now is None else now
        with self._locked():
            with self._guard:
                self._refresh()
                expired = [r for r in self._records.values() if r.expired(now)]
                if not expired:
                    return 0
                kept = [r for r in self._records.values() if not r.expired(now)]
                self._rewrite(kept, now)
                return len(expired)

    def list_author(self, author_key: str) -> list[InsightRecord]:
        with self._guard:
            self._refresh()
            own = [r for r in self._records.values() if r.author_key == author_key]
        return sorted(own, key=lambda r: r.created_at, reverse=True)

    def delete(self, record_ids: Sequence[str], *, key: AgentKey) -> int:
        with self._guard:
            self._refresh()
            found = [r for i in dict.fromkeys(str(i) for i in record_ids)
                     if (r := self._records.get(i)) is not None and r.author_key == key.public_b64]
        if found:
            ids, at = [r.record_id for r in found], time.time()
            self._append({"op": "delete", "record_ids": ids, "at": at, "author_key": key.public_b64,
                          "signature": key.sign(change_bytes("delete", ids, "", at)),
                          "until": max(r.expires_at for r in found)})  # not signed: it may only lengthen _DELETE_KEPT_S
        return len(found)

    def describe(self) -> str:
        with self._guard:
            self._refresh()
            warning = self.warning
        return f"Shared insights: JSON lines in {self.folder}" + (f" ({warning})" if warning else "")

    def close(self) -> None:
        with self._guard:
            self._records.clear()
            self._matrix = None

    def __len__(self) -> int:
        with self._guard:
            self._refresh()
            return len(self._records)

    # -- writing ------------------------------------------------------------------------------------------

    def _append(self, *entries: dict[str, Any]) -> None:
        line = b"".join(_line(entry) for entry in entries)
        with self._locked():
            try:
                fd = _open_regular(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT)
                try:
                    size = os.fstat(fd).st_size
                    if size and os.pread(fd, 1, size - 1) != b"\n":
                        line = b"\n" + line  # a torn line (a full disk, a crash) ends here, not glued to ours
                    written = os.write(fd, line)
                    if written != len(line):
                        raise OSError(28, "short write")  # never leave half a line unexplained
                    os.fsync(fd)
                finally:
                    os.close(fd)
            except OSError as exc:
                raise InsightStoreError(f"Could not write to the shared insights in {self.path}: "
                                        f"{exc.strerror or exc}.") from exc
        with self._guard:
            self._refresh()

    def _rewrite(self, records: list[InsightRecord], now: float) -> None:
        """The file anew with just ``records`` (each as its author last signed it) and the delete lines whose
        records have not expired yet, first, so a replayed put of a deleted record stays deleted (called under
        the file lock)."""
        deletes = [d for d in self._deletes
                   if max(float(d.get("until") or 0.0), float(d.get("at") or 0.0) + _DELETE_KEPT_S) > now]
        try:
            fd, tmp = tempfile.mkstemp(prefix=".insights-", suffix=".tmp", dir=self.folder)
            try:
                with os.fdopen(fd, "wb") as fh:
                    for entry in deletes:
                        fh.write(_line(entry))
                    for record in records:
                        fh.write(_line({"op": "put", "record": record.to_json()}))
                    if self.warning:
                        self._copy_unread(fh)  # what a capped scan never read is kept as it was, not lost
                    fh.flush()
                    os.fsync(fh.fileno())
                os.chmod(tmp, 0o664)
                os.replace(tmp, self.path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as exc:
            raise InsightStoreError(f"Could not rewrite the shared insights in {self.path}: "
                                    f"{exc.strerror or exc}.") from exc
        self._forget()
        self._refresh()

    @contextmanager
    def _locked(self) -> Iterator[None]:
        import fasteners

        try:
            os.close(_open_regular(self._lock_path, os.O_RDWR | os.O_CREAT))  # not a link, not a FIFO
        except OSError as exc:
            raise InsightStoreError(f"Cannot lock the shared insights in {self.folder}: {exc.strerror or exc}.",
                                    hint=_SHARED_HINT) from exc
        lock = fasteners.InterProcessLock(str(self._lock_path))
        try:
            got = lock.acquire(timeout=LOCK_TIMEOUT_S)
        except OSError as exc:
            raise InsightStoreError(f"Cannot lock the shared insights in {self.folder}: {exc.strerror or exc}.",
                                    hint=_SHARED_HINT) from exc
        if not got:
            raise InsightStoreError(f"The shared insights in {self.folder} stayed locked for {LOCK_TIMEOUT_S:.0f} s.",
                                    hint="Another Cairn may be stuck writing there; try again later.")
        try:
            yield
        finally:
            lock.release()

    # -- reading ------------------------------------------------------------------------------------------

    def _refresh(self) -> None:
        """Fold in the complete lines added since the last look (all of them when the file was replaced)."""
        try:
            stat = os.lstat(self.path)
            if not _stat.S_ISREG(stat.st_mode):
                raise OSError(22, "not a regular file (a link, a folder or a pipe)")
        except FileNotFoundError:
            self._forget()
            return
        except OSError as exc:
            raise InsightStoreError(f"Cannot read the shared insights in {self.path}: {exc.strerror or exc}.") \
                from exc
        identity = (stat.st_dev, stat.st_ino)
        if identity != self._identity or stat.st_size < self._offset:
            self._forget()
            self._identity = identity
        if stat.st_size == self._offset or self.warning:
            return  # nothing new, or a scan stopped at a cap: the rest is not read until the file is rewritten
        try:
            fd = _open_regular(self.path, os.O_RDONLY)
            with os.fdopen(fd, "rb") as fh:
                fh.seek(self._offset)
                self._scan(fh, stat.st_size)
        except OSError as exc:
            raise InsightStoreError(f"Cannot read the shared insights in {self.path}: {exc.strerror or exc}.") \
                from exc
        self._matrix = None

    def _scan(self, fh: Any, size: int) -> None:
        """Fold in the complete lines from the current offset to ``size``, a chunk at a time: a line longer than
        ``MAX_LINE_BYTES`` is skipped while it is read (never held whole), a torn last line waits, and the scan
        stops at ``MAX_SCAN_BYTES`` or ``MAX_RECORDS`` with a warning."""
        dropped, skipped = self.dropped_lines, self.skipped_lines
        position = self._offset  # the file offset of the start of ``chunk``
        pending = bytearray()  # the start of a line whose end is in a later chunk
        overlong = False  # the line being read is already too long: its bytes are dropped until its end
        while position < size:
            chunk = fh.read(min(_CHUNK, size - position))
            if not chunk:
                break
            start = 0
            while (end := chunk.find(b"\n", start)) >= 0:
                if overlong or len(pending) + end - start > MAX_LINE_BYTES:
                    self.skipped_lines += 1
                    logger.debug("shared insights: skipped a line of %s longer than %d bytes", self.path,
                                 MAX_LINE_BYTES)
                else:
                    self._apply(bytes(pending) + chunk[start:end] if pending else chunk[start:end])
                pending.clear()
                overlong, start = False, end + 1
                self._offset = position + start
                if self._offset < size and (self._offset >= MAX_SCAN_BYTES or self._held() >= MAX_RECORDS):
                    self._stop_scan()
                    break
            if self.warning:
                break
            if not overlong:
                pending += chunk[start:]
                if len(pending) > MAX_LINE_BYTES:
                    pending.clear()
                    overlong = True
            position += len(chunk)
        if self.dropped_lines > dropped:
            logger.info("shared insights: ignored %d unsigned or badly signed lines of %s",
                        self.dropped_lines - dropped, self.path)
        if self.skipped_lines > skipped:
            logger.warning("shared insights: skipped %d lines of %s that are not valid entries",
                           self.skipped_lines - skipped, self.path)

    def _held(self) -> int:
        """What the folded-in lines keep in memory, counted in entries: records, deleted ids, delete lines."""
        return len(self._records) + len(self._tombstones) + len(self._deletes)

    def _stop_scan(self) -> None:
        mb = 1024 * 1024
        self.warning = (f"read only the first {self._offset / mb:.1f} MB and {len(self._records)} records of a "
                        f"file of {_size_of(self.path) / mb:.1f} MB; expire old insights to read the rest")
        logger.warning("shared insights: %s in %s", self.warning, self.path)

    def _copy_unread(self, out: Any) -> None:
        """The bytes past the offset a capped scan stopped at, copied a chunk at a time into ``out``."""
        fd = _open_regular(self.path, os.O_RDONLY)
        with os.fdopen(fd, "rb") as fh:
            fh.seek(self._offset)
            while chunk := fh.read(_CHUNK):
                out.write(chunk)

    def _forget(self) -> None:
        """Nothing read yet: the next refresh reads the file from the start."""
        self._records.clear()
        self._tombstones.clear()
        self._deletes.clear()
        self._identity, self._offset, self._matrix, self.warning = None, 0, None, ""

    def _apply(self, raw: bytes) -> None:
        if not raw.strip():
            return
        try:
            entry = json.loads(raw)
            op = entry["op"]
            if op == "put":
                applied = self._put(InsightRecord.from_json(entry["record"]))
            elif op == "replace":
                applied = self._replace(InsightRecord.from_json(entry["record"]))
            elif op == "delete":
                applied = self._delete(entry)
            elif op == "invalidate":
                applied = False  # an earlier Cairn's unsigned change: anyone could have written it
            else:
                raise ValueError(f"unknown op {op!r}")
            if not applied:
                self.dropped_lines += 1
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError, OverflowError) as exc:
            self.skipped_lines += 1
            logger.debug("shared insights: skipped a line of %s that is not a valid entry (%s)", self.path,
                         type(exc).__name__)

    def _put(self, record: InsightRecord) -> bool:
        """A new record, when signed by its author and not deleted by that author before (a replayed put)."""
        if not record.verified() or (record.record_id, record.author_key) in self._tombstones:
            return False
        self._records.setdefault(record.record_id, record)
        return True

    def _replace(self, record: InsightRecord) -> bool:
        """The author's record less some follow-ups, re-signed: nothing else may change, nothing come back."""
        old = self._records.get(record.record_id)
        if old is None or record.author_key != old.author_key or not record.verified():
            return False
        keys = {followup_key(f) for f in old.suggested_followups}
        if not all(followup_key(f) in keys for f in record.suggested_followups):
            return False  # an older version replayed, or a follow-up added: never
        same = (record.agent_id, record.db_kind, record.created_at, record.expires_at, record.embedding_model,
                record.insight_summary, record.entities)
        if same != (old.agent_id, old.db_kind, old.created_at, old.expires_at, old.embedding_model,
                    old.insight_summary, old.entities) or not np.array_equal(record.vector, old.vector):
            return False
        self._records[record.record_id] = record
        return True

    def _delete(self, entry: dict[str, Any]) -> bool:
        """A delete line: the records it names that its signer wrote (and tombstones against their replay)."""
        if not all(name in entry for name in ("author_key", "signature", "at")):
            return False  # an earlier Cairn's unsigned delete: anyone could have written it
        ids, author, at = [str(i) for i in entry["record_ids"]], str(entry["author_key"]), float(entry["at"])
        if not verify(author, change_bytes("delete", ids, "", at), str(entry["signature"])):
            return False
        self._deletes.append(entry)
        for rid in ids:
            self._tombstones.add((rid, author))
            record = self._records.get(rid)
            if record is not None and record.author_key == author:
                del self._records[rid]
        return True

    def _vectors(self, dims: int) -> tuple[list[InsightRecord], np.ndarray]:
        """The records whose vectors have ``dims`` values, and those vectors as unit rows (a vector written
        un-normalised or not finite by another program never outweighs the others)."""
        if self._matrix is None:
            self._matrix = {}
        if dims not in self._matrix:
            records = [r for r in self._records.values() if r.vector.shape[0] == dims]
            if records:
                matrix = np.stack([r.vector for r in records]).astype(np.float32)
                norms = np.linalg.norm(matrix, axis=1)
                ok = np.isfinite(norms) & (norms > 0)
                records = [r for r, good in zip(records, ok, strict=True) if good]
                matrix = matrix[ok] / norms[ok][:, None]
            else:
                matrix = np.zeros((0, dims), dtype=np.float32)
            self._matrix[dims] = (records, matrix)
        return self._matrix[dims]


def _size_of(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _line(entry: dict[str, Any]) -> bytes:
    return (json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
