"""One shared insight: what one agent learned from one answered question, with nothing of the data in it.

A record holds an insight summary, the entities it refers to (``table:orders``, ``column:orders.status`` — a
type and a schema identifier, never a value), up to three follow-up questions, who shared it (agent id and
database kind), when, until when, and the embedding of its text with the name of the model that made it:
vectors of two different models are not comparable, so a query never mixes them.

A record is signed by its author (``_signing``): ``author_key`` is the public key, ``signature`` covers every
content field (the vector by its SHA-256), so a record edited after signing, or unsigned, is not ``verified()``
and readers drop it. The key, not the ``agent_id`` label, says whose record it is.
"""

from __future__ import annotations

import base64
import hashlib
import math
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from core.insights._signing import AgentKey, canonical, verify

__all__ = [
    "MAX_FOLLOWUPS", "InsightDraft", "InsightRecord", "ScoredInsight", "decode_vector", "encode_vector", "unit_vector",
]

MAX_FOLLOWUPS = 3


@dataclass(frozen=True)
class InsightDraft:
    """What the model proposed (already redacted once it reaches a store): text only, no vector, no identity."""

    worth_sharing: bool
    insight_summary: str
    entities: tuple[str, ...] = ()
    suggested_followups: tuple[str, ...] = ()

    def text_for_embedding(self) -> str:
        """The summary and the follow-ups: what another agent's question is compared with."""
        return " ".join([self.insight_summary, *self.suggested_followups]).strip()


@dataclass(frozen=True)
class InsightRecord:
    """A stored insight. ``expires_at`` and ``created_at`` are Unix seconds; ``vector`` is L2-normalised."""

    record_id: str
    agent_id: str
    db_kind: str
    created_at: float
    expires_at: float
    embedding_model: str
    insight_summary: str
    entities: tuple[str, ...]
    suggested_followups: tuple[str, ...]
    vector: np.ndarray = field(repr=False, compare=False)
    author_key: str = ""  # the author's Ed25519 public key, base64
    signature: str = field(default="", repr=False)  # the author's signature of signed_bytes(), base64

    @classmethod
    def create(cls, draft: InsightDraft, vector: Sequence[float] | np.ndarray, *, agent_id: str, db_kind: str,
               ttl_s: float, embedding_model: str, now: float | None = None,
               key: AgentKey | None = None) -> InsightRecord:
        """A new record, signed by ``key`` when given (an unsigned one is dropped by every reader)."""
        created = time.time() if now is None else now
        record = cls(
            record_id=uuid.uuid4().hex, agent_id=agent_id, db_kind=db_kind, created_at=created,
            expires_at=created + ttl_s, embedding_model=embedding_model,
            insight_summary=draft.insight_summary, entities=tuple(draft.entities),
            suggested_followups=tuple(draft.suggested_followups[:MAX_FOLLOWUPS]), vector=unit_vector(vector),
        )
        return record if key is None else record.signed_by(key)

    def signed_bytes(self) -> bytes:
        """What the signature covers: every content field and the author's key, canonically serialised, the
        vector by the SHA-256 of its float32 bytes. Changing any of them breaks the signature."""
        vector = hashlib.sha256(np.asarray(self.vector, dtype="<f4").tobytes()).hexdigest()
        return canonical({
            "record_id": self.record_id, "agent_id": self.agent_id, "db_kind": self.db_kind,
            "created_at": float(self.created_at), "expires_at": float(self.expires_at),
            "embedding_model": self.embedding_model, "insight_summary": self.insight_summary,
            "entities": list(self.entities), "suggested_followups": list(self.suggested_followups),
            "vector_sha256": vector, "author_key": self.author_key,
        })

    def signed_by(self, key: AgentKey) -> InsightRecord:
        """This record with ``key`` as its author and its signature (after any change by its author)."""
        authored = replace(self, author_key=key.public_b64, signature="")
        return replace(authored, signature=key.sign(authored.signed_bytes()))

    def verified(self) -> bool:
        """Whether ``author_key`` signed exactly this content (False when unsigned, edited or malformed)."""
        if not self.author_key or not self.signature:
            return False
        try:
            data = self.signed_bytes()
        except (ValueError, TypeError, UnicodeError):
            return False
        return verify(self.author_key, data, self.signature)

    def expired(self, now: float | None = None) -> bool:
        return (time.time() if now is None else now) >= self.expires_at

    def without_followup(self, followup: str) -> InsightRecord:
        """This record less the follow-up equal to ``followup`` (case and spacing aside); the insight stays.
        The signature no longer matches: only the author can re-sign it (``signed_by``)."""
        key = followup_key(followup)
        return replace(self, suggested_followups=tuple(f for f in self.suggested_followups
                                                       if followup_key(f) != key))

    def to_json(self) -> dict[str, Any]:
        """Everything, the vector as base64 float32 (a quarter the size of a list of decimals)."""
        return {
            "record_id": self.record_id, "agent_id": self.agent_id, "db_kind": self.db_kind,
            "created_at": self.created_at, "expires_at": self.expires_at, "embedding_model": self.embedding_model,
            "insight_summary": self.insight_summary, "entities": list(self.entities),
            "suggested_followups": list(self.suggested_followups), "vector": encode_vector(self.vector),
            "author_key": self.author_key, "signature": self.signature,
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> InsightRecord:
        """Raises KeyError, TypeError or ValueError on a malformed record."""
        entities = raw.get("entities") or []
        followups = raw.get("suggested_followups") or []
        if not isinstance(entities, list) or not isinstance(followups, list):
            raise TypeError("entities and suggested_followups must be lists")
        created, expires = float(raw["created_at"]), float(raw["expires_at"])
        if not (math.isfinite(created) and math.isfinite(expires)):
            raise ValueError("times must be finite")
        return cls(
            record_id=str(raw["record_id"]), agent_id=str(raw["agent_id"]), db_kind=str(raw["db_kind"]),
            created_at=created, expires_at=expires, embedding_model=str(raw["embedding_model"]),
            insight_summary=str(raw["insight_summary"]), entities=tuple(str(e) for e in entities),
            suggested_followups=tuple(str(f) for f in followups), vector=decode_vector(str(raw["vector"])),
            author_key=str(raw.get("author_key") or ""), signature=str(raw.get("signature") or ""),
        )


@dataclass(frozen=True)
class ScoredInsight:
    record: InsightRecord
    similarity: float


def followup_key(text: str) -> str:
    """How two follow-ups are compared: case, spacing and a trailing question mark aside."""
    return " ".join(text.casefold().split()).rstrip(" ?")


def encode_vector(vector: np.ndarray) -> str:
    return base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode("ascii")


def decode_vector(text: str) -> np.ndarray:
    data = base64.b64decode(text.encode("ascii"), validate=True)
    if len(data) % 4:
        raise ValueError("a vector is whole float32 values")
    return np.frombuffer(data, dtype="<f4").astype(np.float32)


def unit_vector(vector: Sequence[float] | np.ndarray) -> np.ndarray:
    v = np.asarray(vector, dtype=np.float32).reshape(-1)
    norm = float(np.linalg.norm(v))
    if not math.isfinite(norm) or norm == 0.0:
        raise ValueError("an insight's vector must be finite and non-zero")
    return v / norm
