"""The learned message router: multinomial logistic regression over MiniLM embeddings, hashed word n-grams
and the rule cascade's verdict, trained on core/memory/routing/data/routing_train.csv by scripts/train_router.py.

Why learned: every list of cue phrases generalised worse than it measured (99% on the project's own messages,
0.897 on new ones). The embedding carries the topic and the sentence shape, the hashed n-grams carry the cue
words the training set teaches (including Hindi-English: "matlab", "hamesha", "hata do"), and the rule verdict
carries the clause analysis the rules already do well. The weights ship in core/memory/routing/data/router.npz with the
hash of the training file they came from (a test checks the pair is in step).

Inference is a matrix product in numpy (no scikit-learn at run time): well under a millisecond after the one
embedding the assistant computes anyway.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import zlib
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING

import numpy as np

from core.memory.routing._classify_rules import RuleResult, classify_rules
from core.memory.routing._classify_text import (
    Text,
    anaphora_cue,
    has_arithmetic,
    is_interrogative,
    is_request_start,
    one_off_cue,
    presentation_cue,
    standing_cue,
)

if TYPE_CHECKING:
    from core.memory.kernel import Embedder

__all__ = [
    "LABELS",
    "ROUTER_EMBEDDER",
    "RouterModel",
    "feature_names",
    "features",
    "load_router",
    "training_file_digest",
]

logger = logging.getLogger(__name__)

LABELS: tuple[str, ...] = (
    "question", "follow_up", "refine", "chat", "meta",
    "preference", "terminology", "metric", "entity", "forget",
)  # fmt: skip
ROUTER_EMBEDDER = "all-MiniLM-L6-v2"  # the weights are only valid beside this embedding model
HASH_DIMS = 2048
_RULE_KINDS = ("question", "follow_up", "preference", "terminology", "metric", "entity", "forget")
_CUES = ("has_history", "rule_uncertain", "question_mark", "interrogative", "request_start", "standing",
         "one_off", "anaphora", "presentation", "arithmetic", "short", "length")  # fmt: skip
_DATA_FILE = "routing_train.csv"
_MODEL_FILE = "router.npz"


EMBEDDING_DIMS = 384


def feature_names() -> list[str]:
    return ([f"emb{i}" for i in range(EMBEDDING_DIMS)] + [f"rule={k}" for k in _RULE_KINDS] + list(_CUES)
            + [f"hash{i}" for i in range(HASH_DIMS)])


def _ngrams(t: Text) -> list[str]:
    w = [x for x in t.words if x]
    grams = [f"w:{x}" for x in w] + [f"b:{a}_{b}" for a, b in zip(w, w[1:])]
    if w:
        grams += [f"first:{w[0]}", f"last:{w[-1]}"]
    return grams


def _hashed(t: Text) -> np.ndarray:
    vec = np.zeros(HASH_DIMS, dtype=np.float32)
    for g in _ngrams(t):
        vec[zlib.crc32(g.encode("utf-8")) % HASH_DIMS] = 1.0
    norm = float(np.linalg.norm(vec))
    return vec / norm if norm else vec


def _rule_part(t: Text, rule: RuleResult, has_history: bool) -> np.ndarray:
    onehot = [1.0 if rule.kind == k else 0.0 for k in _RULE_KINDS]
    n = len(t.words)
    cues = [
        float(has_history), float(rule.uncertain), float(t.ends_with_question_mark), float(is_interrogative(t)),
        float(is_request_start(t)), float(standing_cue(t) is not None), float(one_off_cue(t) is not None),
        float(anaphora_cue(t) is not None), float(presentation_cue(t) is not None), float(has_arithmetic(t.s)),
        float(n <= 3), min(n, 30) / 30.0,
    ]
    return np.asarray(onehot + cues, dtype=np.float32)


def features(message: str, embedding: np.ndarray, *, has_history: bool, rule: RuleResult | None = None) -> np.ndarray:
    """One feature row: [embedding | rule verdict and cues | hashed n-grams]."""
    t = Text(message)
    rule = rule or classify_rules(message, has_history=has_history)
    return np.concatenate([np.asarray(embedding, dtype=np.float32), _rule_part(t, rule, has_history), _hashed(t)])


def training_file_digest() -> str:
    data = resources.files("core.memory.routing").joinpath("data", _DATA_FILE).read_bytes()
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class RouterModel:
    weights: np.ndarray  # (labels, features)
    bias: np.ndarray  # (labels,)
    labels: tuple[str, ...]
    embedder: str
    train_digest: str

    def accepts(self, embedder: Embedder) -> bool:
        return getattr(embedder, "model_id", None) == self.embedder

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        logits = np.atleast_2d(rows) @ self.weights.T + self.bias
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        return p / p.sum(axis=1, keepdims=True)

    def predict(self, message: str, embedder: Embedder, *, has_history: bool,
                rule: RuleResult | None = None) -> dict[str, float]:
        vec = embedder.embed_batch([message])[0]
        row = features(message, vec, has_history=has_history, rule=rule)
        return dict(zip(self.labels, self.probabilities(row)[0].tolist(), strict=True))


_lock = threading.Lock()
_cached: list[RouterModel | None] = []


def load_router() -> RouterModel | None:
    """The shipped model, loaded once; None (rules only) when the file is missing or unreadable."""
    with _lock:
        if _cached:
            return _cached[0]
        model: RouterModel | None = None
        try:
            with resources.files("core.memory.routing").joinpath("data", _MODEL_FILE).open("rb") as fh:
                data = np.load(fh, allow_pickle=False)
                model = RouterModel(
                    weights=np.asarray(data["weights"], dtype=np.float32),
                    bias=np.asarray(data["bias"], dtype=np.float32),
                    labels=tuple(str(x) for x in data["labels"]),
                    embedder=str(data["embedder"]),
                    train_digest=str(data["train_digest"]),
                )
            if model.weights.shape[1] != len(feature_names()):
                logger.warning("router weights do not fit the feature layout; using rules only")
                model = None
        except (OSError, KeyError, ValueError) as exc:
            logger.warning("router model unavailable (%s); using rules only", exc)
        _cached.append(model)
        return model
