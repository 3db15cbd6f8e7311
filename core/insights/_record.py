"""One shared insight: what one agent learned from one answered question, with nothing of the data in it.

A record holds an insight summary, the entities it refers to (``table:orders``, ``column:orders.status`` — a
type and a schema identifier, never a value), up to three follow-up questions, who shared it (agent id and
database kind), when, until when, and the embedding of its text with the name of the model that made it:
vectors of two different models are not comparable, so a query never mixes them.
"""

from __future__ import annotations

import base64
import math
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

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

    @classmethod
    def create(cls, draft: InsightDraft, vector: Sequence[float] | np.ndarray, *, agent_id: str, db_kind: str,
               ttl_s: float, embedding_model: str, now: float | None = None) -> InsightRecord:
        created = time.time() if now is None else now
        return cls(
            record_id=uuid.uuid4().hex, agent_id=agent_id, db_kind=db_kind, created_at=created,
            expires_at=created + ttl_s, embedding_model=embedding_model,
            insight_summary=draft.insight_summary, entities=tuple(draft.entities),
            suggested_followups=tuple(draft.suggested_followups[:MAX_FOLLOWUPS]), vector=unit_vector(vector),
        )

    def expired(self, now: float | None = None) -> bool:
        return (time.time() if now is None else now) >= self.expires_at

    def without_followup(self, followup: str) -> InsightRecord:
        """This record less the follow-up equal to ``followup`` (case and spacing aside); the insight stays."""
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
