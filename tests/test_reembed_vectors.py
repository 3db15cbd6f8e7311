"""Memories whose vectors another encoder made are found by their own text and embedded again, once, in one write."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from core.memory import JsonMemoryStore, Memory, reembed_foreign_vectors
from tests.fakes.fake_embedder import FakeEmbedder


def _memory(i: int, text: str, vector: np.ndarray) -> Memory:
    return Memory(id=f"m{i}", user="asha", database_id="shop", category="terminology", content=text,
                  structured=None, source=text, created_at=1.0, updated_at=1.0,
                  embedding=tuple(float(x) for x in vector))


TEXTS = ["revenue means the sum of amount", "active customers are those with an order this year",
         "I prefer tables sorted by date", "the north region is states NY, NJ and CT", "show amounts in euros"]


def test_vectors_of_this_encoder_are_left_alone(tmp_path: Path) -> None:
    embedder = FakeEmbedder()
    store = JsonMemoryStore(tmp_path)
    store.put_many([_memory(i, t, embedder.embed_batch([t])[0]) for i, t in enumerate(TEXTS)])
    before = (tmp_path / f"{next(tmp_path.glob('*.json')).name}").read_bytes()
    assert reembed_foreign_vectors(store, embedder, "asha") == 0
    assert next(tmp_path.glob("*.json")).read_bytes() == before


def test_vectors_of_another_encoder_are_replaced_once(tmp_path: Path) -> None:
    embedder = FakeEmbedder()
    rng = np.random.default_rng(7)
    store = JsonMemoryStore(tmp_path)
    store.put_many([_memory(i, t, rng.normal(size=embedder.dims)) for i, t in enumerate(TEXTS)])
    assert reembed_foreign_vectors(store, embedder, "asha") == len(TEXTS)
    for memory in store.list("asha"):
        assert np.allclose(memory.embedding, embedder.embed_batch([memory.content])[0], atol=1e-6)
        assert memory.updated_at == 1.0  # the memory did not change, its vector did
    assert reembed_foreign_vectors(store, embedder, "asha") == 0  # once


def test_vectors_of_another_size_are_replaced_in_one_write(tmp_path: Path) -> None:
    embedder = FakeEmbedder()
    store = JsonMemoryStore(tmp_path)
    store.put_many([_memory(i, t, np.ones(768) / np.sqrt(768)) for i, t in enumerate(TEXTS)])
    assert reembed_foreign_vectors(store, embedder, "asha") == len(TEXTS)
    doc = json.loads(next(tmp_path.glob("*.json")).read_text())
    assert len(doc["memories"]) == len(TEXTS)
    assert {len(m.embedding) for m in store.list("asha")} == {embedder.dims}
    assert store.search("asha", embedder.embed_batch([TEXTS[2]])[0], k=1)[0].memory.content == TEXTS[2]


def test_a_failing_embedder_leaves_the_store_as_it_was(tmp_path: Path) -> None:
    class Broken(FakeEmbedder):
        calls = 0

        def embed_batch(self, texts):  # noqa: ANN001, ANN201 - the fake's signature
            Broken.calls += 1
            if Broken.calls > 1:
                raise RuntimeError("out of memory")
            return super().embed_batch(texts)

    store = JsonMemoryStore(tmp_path)
    store.put_many([_memory(i, t, np.ones(384) * (-1) ** i) for i, t in enumerate(TEXTS)])
    before = next(tmp_path.glob("*.json")).read_bytes()
    with pytest.raises(RuntimeError):
        reembed_foreign_vectors(store, Broken(), "asha")
    assert next(tmp_path.glob("*.json")).read_bytes() == before


def test_the_assistant_re_embeds_a_pgvector_store_at_the_first_question(embedded_pg, db, tmp_path: Path) -> None:
    import uuid

    from core.assistant import Assistant
    from core.config import Settings
    from core.memory import MemoryBank, PgVectorMemoryStore
    from core.pipeline import AskPipeline
    from tests.fakes.scripted_llm import ScriptedLLM

    name = f"cairn_memory_{uuid.uuid4().hex[:8]}"
    embedded_pg.ensure_database(name)
    store = PgVectorMemoryStore(embedded_pg.uri(name))
    try:
        embedder = FakeEmbedder()
        rng = np.random.default_rng(3)
        store.put_many([_memory(i, t, rng.normal(size=embedder.dims)) for i, t in enumerate(TEXTS)])
        llm = ScriptedLLM("SELECT count(*) FROM customers", "NONE")
        assistant = Assistant(AskPipeline(db, llm, Settings()), store, embedder,
                              MemoryBank(store, embedder, tmp_path / "journal"))
        assistant.handle("asha", "How many customers are there?")
        hit = store.search("asha", embedder.embed_batch([TEXTS[3]])[0], k=1)[0]
        assert hit.memory.content == TEXTS[3] and hit.similarity > 0.99
    finally:
        store.close()


def test_one_vector_of_another_size_is_embedded_again_before_a_search(tmp_path: Path) -> None:
    import base64

    from core.memory import MemoryBank

    embedder = FakeEmbedder()
    store = JsonMemoryStore(tmp_path / "memory")
    store.put_many([_memory(i, t, embedder.embed_batch([t])[0]) for i, t in enumerate(TEXTS)])
    path = next((tmp_path / "memory").glob("*.json"))
    doc = json.loads(path.read_text())
    doc["memories"][2]["embedding"] = base64.b64encode(np.ones(768, dtype="<f4").tobytes()).decode()
    path.write_text(json.dumps(doc))  # another encoder's vector, read leniently as none
    bank = MemoryBank(JsonMemoryStore(tmp_path / "memory"), embedder, tmp_path / "journal")
    hit = bank.search("asha", TEXTS[2], k=1)[0]  # before any question: the bank checks first
    assert hit.memory.content == TEXTS[2] and hit.similarity > 0.99
    assert len(json.loads(path.read_text())["memories"]) == len(TEXTS)
