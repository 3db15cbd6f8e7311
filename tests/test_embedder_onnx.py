"""MiniLM on ONNX Runtime (core.memory.kernel._embedder): the vectors of sentence-transformers without PyTorch.

Reference vectors were computed once with sentence-transformers on the same weights and are committed
(``tests/data/minilm_reference.*``, float16); stored memories, examples and insights stay valid only while the new
runtime gives the same vectors. The export itself is ``scripts/export_embedder.py`` (run by the install script).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core.errors import EmbeddingModelMissing
from core.memory.kernel._embedder import MiniLMEmbedder, embedder_dir

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    if not (embedder_dir() / "embedder.json").exists():
        pytest.fail(f"no exported embedder in {embedder_dir()}: run scripts/export_embedder.py (install.sh does)")
    return MiniLMEmbedder()


def test_the_vectors_are_those_of_sentence_transformers(embedder: MiniLMEmbedder) -> None:
    texts = json.loads((DATA / "minilm_reference.json").read_text(encoding="utf-8"))
    reference = np.load(DATA / "minilm_reference.npy").astype(np.float32)
    reference /= np.linalg.norm(reference, axis=1, keepdims=True)
    got = embedder.embed_batch(texts)
    assert got.shape == (len(texts), 384) and got.dtype == np.float32
    cosine = (got * reference).sum(axis=1)
    assert cosine.min() >= 0.999, [t[:40] for t, c in zip(texts, cosine) if c < 0.999]
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)


def test_a_text_alone_or_in_a_batch_gives_the_same_vector(embedder: MiniLMEmbedder) -> None:
    texts = ["revenue by city", "x " * 400, "kitne orders aaye?", ""]
    batch = embedder.embed_batch(texts)
    for i, text in enumerate(texts):
        np.testing.assert_allclose(MiniLMEmbedder().embed_batch([text])[0], batch[i], atol=1e-5)
    assert embedder.embed_batch([]).shape == (0, 384)


def test_embedding_imports_no_pytorch() -> None:
    code = ("import sys; from core.memory.kernel._embedder import MiniLMEmbedder; MiniLMEmbedder().embed_batch(['hi']);"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'transformers', "
            "'sentence_transformers')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]"


def test_a_missing_or_foreign_export_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingModelMissing) as missing:
        MiniLMEmbedder(folder=tmp_path).embed_batch(["hi"])
    assert "export_embedder.py" in (missing.value.hint or "")
    (tmp_path / "embedder.json").write_text(json.dumps({"model_id": "bge-small", "dims": 384}))
    with pytest.raises(EmbeddingModelMissing, match="not all-MiniLM-L6-v2"):
        MiniLMEmbedder(folder=tmp_path).embed_batch(["hi"])


def test_doctor_loads_the_export_or_says_how_to_make_it(embedder: MiniLMEmbedder, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from core.cli._doctor import check_embedding_model

    ok = check_embedding_model()
    assert ok.status == "ok" and "384 dimensions" in ok.detail and str(embedder_dir()) in ok.detail
    monkeypatch.setenv("CAIRN_EMBEDDER_DIR", str(tmp_path / "gone"))
    failed = check_embedding_model()
    assert failed.status == "fail" and "export_embedder.py" in failed.hint


@pytest.mark.parametrize("damage", ["no model", "cut model", "empty model", "cut tokenizer", "no tokenizer",
                                    "config a list", "config bad length"])
def test_a_damaged_export_is_the_same_clear_error(embedder: MiniLMEmbedder, tmp_path: Path, damage: str) -> None:
    import shutil

    folder = tmp_path / "embedder"
    shutil.copytree(embedder_dir(), folder)
    model, tokenizer, config = folder / "model.onnx", folder / "tokenizer.json", folder / "embedder.json"
    if damage == "no model":
        model.unlink()
    elif damage == "cut model":
        model.write_bytes(model.read_bytes()[:100_000])
    elif damage == "empty model":
        model.write_bytes(b"")
    elif damage == "cut tokenizer":
        tokenizer.write_text(tokenizer.read_text(encoding="utf-8")[:3000], encoding="utf-8")
    elif damage == "no tokenizer":
        tokenizer.unlink()
    elif damage == "config a list":
        config.write_text("[1, 2]")
    else:
        config.write_text(json.dumps({**json.loads(config.read_text()), "max_seq_length": "abc"}))
    with pytest.raises(EmbeddingModelMissing) as err:
        MiniLMEmbedder(folder=folder).embed_batch(["How many customers?"])
    assert str(folder) in str(err.value) and "export_embedder.py" in (err.value.hint or "")
