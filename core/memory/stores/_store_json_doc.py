"""One user's JSON memory file in memory: parsed leniently, written back without losing anything.

A file that is not a Cairn memory file at all (not JSON, another format, another user's, the memories not a
list) raises ValueError: the store keeps it aside and refuses writes. Inside a good file, one bad entry never
costs the others: a memory missing what makes it a memory (id, category, content...) is left out of reading and
written back as it was; a memory with a bad optional field (a non-object ``structured``, a bad timestamp or
embedding) is read without that field and also written back as it was until it is changed; a message that is
not one is skipped when reading and kept in the file. Each is logged once per file version.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.memory.kernel import ALL_DATABASES, Memory, Message

__all__ = ["FORMAT_VERSION", "Doc", "decode_vector", "encode_vector", "parse_doc"]

logger = logging.getLogger(__name__)

FORMAT_VERSION = 1
_KNOWN_KEYS = ("format", "token", "user", "summary", "messages", "memories")


def encode_vector(vector: Sequence[float] | None) -> str | None:
    if vector is None:
        return None
    return base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode("ascii")


def decode_vector(text: Any) -> np.ndarray | None:
    """The float32 vector of a stored embedding; ValueError when it is not one (or not finite)."""
    if text is None:
        return None
    if not isinstance(text, str):
        raise ValueError("the embedding is not base64 text")
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError("the embedding is not base64 text") from exc
    if not raw or len(raw) % 4:
        raise ValueError("the embedding is not a whole number of float32 values")
    vec = np.frombuffer(raw, dtype="<f4")
    if not np.isfinite(vec).all():
        raise ValueError("the embedding holds non-finite numbers")
    return vec


@dataclass
class Doc:
    """One parsed user file. Treated as immutable: a write builds a new one with :meth:`derive`."""

    token: str
    user: str
    memories: list[dict[str, Any]]  # normalised Memory.to_json() plus "embedding" as base64 float32 (or None)
    messages: list[Any]  # as stored; read through Message.from_json
    summary: str
    size: int = -1  # bytes of the file this came from (or was written to)
    # id -> (the normalised item, the item as it was in the file): written back as it was while unchanged
    repaired: dict[str, tuple[dict[str, Any], Any]] = field(default_factory=dict, repr=False)
    unreadable: list[Any] = field(default_factory=list, repr=False)  # memories we cannot read, kept as they were
    summary_raw: Any = None  # a non-text summary, kept until a new summary is set
    extra: dict[str, Any] = field(default_factory=dict, repr=False)  # unknown top-level keys, kept
    _matrix: np.ndarray | None = field(default=None, repr=False)
    _rows: np.ndarray | None = field(default=None, repr=False)  # memory index of each matrix row
    _masks: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    @classmethod
    def empty(cls, user: str) -> Doc:
        return cls(token="", user=user, memories=[], messages=[], summary="")

    def derive(self, *, memories: list[dict[str, Any]] | None = None, messages: list[Any] | None = None,
               summary: str | None = None, forget_unreadable: bool = False) -> Doc:
        """A new version with some parts replaced; everything kept aside travels along."""
        return Doc(
            token="", user=self.user,
            memories=self.memories if memories is None else memories,
            messages=self.messages if messages is None else messages,
            summary=self.summary if summary is None else summary,
            repaired=self.repaired,
            unreadable=[] if forget_unreadable else self.unreadable,
            summary_raw=self.summary_raw if summary is None else None,
            extra=self.extra,
        )  # fmt: skip

    def stored_memories(self) -> list[Any]:
        out: list[Any] = []
        for item in self.memories:
            kept = self.repaired.get(item["id"])
            out.append(kept[1] if kept is not None and kept[0] is item else item)
        return out + self.unreadable

    def to_bytes(self) -> bytes:
        body = {
            "format": FORMAT_VERSION,
            "token": self.token,  # must stay the second key: read back from the file's first bytes
            "user": self.user,
            "summary": self.summary if self.summary_raw is None else self.summary_raw,
            "messages": self.messages,
            "memories": self.stored_memories(),
            **{k: v for k, v in self.extra.items() if k not in _KNOWN_KEYS},
        }
        text = json.dumps(body, ensure_ascii=False, separators=(", ", ": "))
        try:
            return text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate in some text: keep it as a JSON escape
            return json.dumps(body, ensure_ascii=True, separators=(", ", ": ")).encode("ascii")

    def matrix(self) -> tuple[np.ndarray, np.ndarray]:
        """Row-normalised embeddings of the memories that have one, built once per file version."""
        if self._matrix is None:
            rows = [i for i, m in enumerate(self.memories) if m.get("embedding") is not None]
            if rows:
                raw = b"".join(base64.b64decode(self.memories[i]["embedding"]) for i in rows)
                mat = np.frombuffer(raw, dtype="<f4").reshape(len(rows), -1).astype(np.float32)
                norms = np.linalg.norm(mat, axis=1, keepdims=True)
                norms[norms == 0] = 1.0
                mat /= norms
            else:
                mat = np.zeros((0, 0), dtype=np.float32)
            self._matrix, self._rows = mat, np.asarray(rows, dtype=np.int64)
        assert self._rows is not None
        return self._matrix, self._rows

    def mask(self, database_id: str) -> np.ndarray:
        """Which matrix rows belong to ``database_id`` (its own plus the all-databases ones)."""
        cached = self._masks.get(database_id)
        if cached is None:
            _, rows = self.matrix()
            cached = np.fromiter(
                (self.memories[i]["database_id"] in (database_id, ALL_DATABASES) for i in rows),
                dtype=bool,
                count=len(rows),
            )
            self._masks[database_id] = cached
        return cached


def parse_doc(data: bytes, user: str, *, where: str = "memory file") -> Doc:
    """The file's content; ValueError (or RecursionError) when it is not a memory file of ``user``."""
    body = json.loads(data.decode("utf-8"))
    if not isinstance(body, dict) or body.get("format") != FORMAT_VERSION:
        raise ValueError(f"not a Cairn memory file of format {FORMAT_VERSION}")
    if body.get("user") != user:
        raise ValueError("the file belongs to another user")
    memories, messages = body.get("memories", []), body.get("messages", [])
    if not isinstance(memories, list) or not isinstance(messages, list):
        raise ValueError("memories and messages must be lists")
    doc = Doc(token=str(body.get("token", "")), user=user, memories=[], messages=messages, summary="",
              extra={k: v for k, v in body.items() if k not in _KNOWN_KEYS})  # fmt: skip
    summary = body.get("summary")
    if isinstance(summary, str) or summary is None:
        doc.summary = summary or ""
    else:
        doc.summary_raw = summary
        logger.warning("%s: the summary is not text; it is ignored (and kept in the file)", where)
    _read_memories(doc, memories, where)
    bad_messages = sum(Message.from_json(m) is None for m in messages)
    if bad_messages:
        logger.warning("%s: %d message(s) are not readable; they are skipped (and kept in the file)",
                       where, bad_messages)
    return doc


def _read_memories(doc: Doc, items: list[Any], where: str) -> None:
    dims: int | None = None
    seen: set[str] = set()
    for n, item in enumerate(items, 1):
        repairs: list[str] = []
        try:
            memory = Memory.from_json({**item, "embedding": None}, repairs=repairs)
            if memory.user != doc.user:
                raise ValueError("it belongs to another user")
            if memory.id in seen:
                raise ValueError(f"its id {memory.id!r} is used twice")
        except (ValueError, TypeError) as exc:  # TypeError: ``item`` is not an object
            logger.warning("%s: memory %d is not readable (%s); it is skipped and kept in the file", where, n, exc)
            doc.unreadable.append(item)
            continue
        seen.add(memory.id)
        normal: dict[str, Any] = {**memory.to_json(), "embedding": None}
        try:
            vec = decode_vector(item.get("embedding"))
            if vec is not None and dims is not None and len(vec) != dims:
                raise ValueError(f"the embedding has {len(vec)} dimensions, the others {dims}")
        except ValueError as exc:
            repairs.append(str(exc))
            vec = None
        if vec is not None:
            dims = len(vec)
            normal["embedding"] = item["embedding"]
        if repairs:
            logger.warning("%s: memory %s read without a bad field (%s); the file keeps it as it was",
                           where, memory.id, "; ".join(repairs))
        # 5 == 5.0 in Python but not in the file: an int timestamp is kept as written too
        if repairs or normal != item or any(type(item.get(k)) is not float for k in ("created_at", "updated_at")):
            doc.repaired[memory.id] = (normal, item)
        doc.memories.append(normal)
