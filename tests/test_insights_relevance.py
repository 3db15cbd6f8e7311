"""Which shared insights reach a question: word-by-word matching (``core.insights._relevance``) with the real
MiniLM encoder, and the sharing code's use of it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from core.insights import AgentKey, InsightDraft, InsightRecord, InsightSharing
from core.insights._relevance import MATCH_FLOOR, content_states, word_match
from core.insights._store_jsonl import JsonlInsightStore
from core.memory import MiniLMEmbedder

RECORD = ("Investigated late shipments by carrier and the average delay in days.",
          "Which routes are most often late?", "Did delays change after a carrier switch?")


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def test_token_states_come_from_the_same_pass_as_the_vectors(embedder: MiniLMEmbedder) -> None:
    texts = ["late shipments by carrier", "x", "Lieferungen pro Monat — पिछले महीने"]
    vectors, tokens = embedder.embed_tokens(texts)
    assert np.allclose(vectors, embedder.embed_batch(texts), atol=1e-5)
    for (states, words), text in zip(tokens, texts, strict=True):
        assert states.shape == (len(words), embedder.dims)
        assert np.allclose(np.linalg.norm(states, axis=1), 1.0, atol=1e-4)
        assert "[CLS]" not in words and "[SEP]" not in words
    assert tokens[0][1][:2] == ["late", "shipments"]


def test_function_words_are_left_out_of_the_match(embedder: MiniLMEmbedder) -> None:
    _, [(states, words)] = embedder.embed_tokens(["what is the delay of the shipments ka kitna hai ?"])
    kept = content_states((states, words))
    assert len(kept) == 2  # delay, shipments


def _score(embedder: MiniLMEmbedder, question: str) -> float:
    _, tokens = embedder.embed_tokens([*RECORD, question])
    return word_match(tokens[-1], tokens[:-1])


def test_the_same_topic_in_other_words_outscores_another_measure_of_the_same_table(embedder: MiniLMEmbedder) -> None:
    paraphrase = _score(embedder, "which shipping companies deliver late most often")
    hinglish = _score(embedder, "kaun sa carrier sabse zyada late deliver karta hai")
    other_measure = _score(embedder, "average shipping cost per carrier")
    far = _score(embedder, "revenue per product category this year")
    assert min(paraphrase, hinglish) >= MATCH_FLOOR > far
    assert min(paraphrase, hinglish) > other_measure


def test_word_match_of_nothing_is_zero() -> None:
    empty = (np.zeros((0, 4), dtype=np.float32), [])
    one = (np.eye(4, dtype=np.float32)[:1], ["delay"])
    assert word_match(empty, [one]) == 0.0 and word_match(one, [empty]) == 0.0 and word_match(one, []) == 0.0


def test_sharing_scores_records_word_by_word_with_one_batch_per_look_up(tmp_path: Path,
                                                                           embedder: MiniLMEmbedder) -> None:
    store, author = JsonlInsightStore(tmp_path), AgentKey.generate()
    draft = InsightDraft(True, RECORD[0], ("table:shipments",), RECORD[1:])
    store.put(InsightRecord.create(draft, embedder.embed_batch([draft.text_for_embedding()])[0], agent_id="oltp",
                                   db_kind="postgresql", ttl_s=3600, embedding_model=embedder.model_id, key=author))
    batches: list[int] = []

    def embed_tokens(texts):
        batches.append(len(texts))
        return embedder.embed_tokens(texts)

    def no_single(text: str):
        raise AssertionError("the word-by-word path embeds in batches only")

    reader = InsightSharing(open_store=lambda: JsonlInsightStore(tmp_path), embed=no_single,
                            embed_tokens=embed_tokens, embedding_model=embedder.model_id, agent_id="warehouse",
                            db_kind="sqlite", key=AgentKey.generate())
    related = reader.suggestions("which shipping companies deliver late most often")
    assert len(related) == 1 and related[0].text in RECORD[1:] and related[0].similarity >= MATCH_FLOOR
    assert batches == [1, 3]  # the question, then the record's three parts together
    assert reader.suggestions("revenue per product category this year") == []
    assert reader.suggestions("kaun sa carrier sabse zyada late deliver karta hai")
    assert batches[2:] == [1, 1]  # the record's parts are kept between look-ups


def test_the_records_table_names_count_less_than_what_it_found(embedder: MiniLMEmbedder) -> None:
    """Another question about the same table shares its name, not the record's measure."""
    from core.insights._relevance import table_words

    tables = table_words(["table:shipments", "column:shipments.delay_days"])
    assert {"shipment", "shipments"} <= tables and "delay" not in tables
    _, tokens = embedder.embed_tokens([*RECORD, "number of shipments per warehouse"])
    plain = word_match(tokens[-1], tokens[:-1])
    weighted = word_match(tokens[-1], tokens[:-1], tables)
    assert weighted < plain
