"""A deterministic stand-in for MiniLM: texts sharing words get similar vectors. Unit tests only."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

__all__ = ["FakeEmbedder"]

_WORD = re.compile(r"\w+", re.UNICODE)


class FakeEmbedder:
    """Hashes lower-cased word tokens and bigrams into signed buckets, then L2-normalises.

    Cheap, stable across processes (blake2b, not ``hash()``), and similar enough to a real embedder for
    ranking tests: "orders from India" is closer to "Indian orders count" than to "customer email".
    """

    def __init__(self, dims: int = 384) -> None:
        self.dims = dims

    def _features(self, text: str) -> list[str]:
        words = _WORD.findall(text.lower())
        return words + [f"{a} {b}" for a, b in zip(words, words[1:], strict=False)]

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        for row, text in enumerate(texts):
            features = self._features(text) or ["\x00empty"]
            for feature in features:
                digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
                value = int.from_bytes(digest, "little")
                bucket = value % self.dims
                sign = 1.0 if (value >> 63) & 1 else -1.0
                weight = 1.0 if " " not in feature else 0.5  # words count more than bigrams
                out[row, bucket] += sign * weight
            norm = float(np.linalg.norm(out[row]))
            if norm > 0:
                out[row] /= norm
        return out
