"""The Milvus shared-insights store on Milvus Lite (in tmp_path): the contract, plus filter escaping, another
collection's size, a Lite file another process holds, and a cluster that is not there."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pymilvus", reason="the milvus extra (pymilvus) is not installed")
pytest.importorskip("milvus_lite", reason="the milvus extra (milvus-lite) is not installed")

from core.errors import InsightStoreError
from core.insights import open_insight_store
from core.insights._store_milvus import MilvusInsightStore, _quote
from tests.insight_store_contract import MODEL, InsightStoreContract, author, key_of, record, vec


@pytest.fixture
def make_store(tmp_path: Path) -> Iterator[Callable[..., MilvusInsightStore]]:
    opened: list[MilvusInsightStore] = []

    def make(**kw: Any) -> MilvusInsightStore:
        store = MilvusInsightStore(str(tmp_path / "insights.db"), **kw)
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()


class TestMilvusStore(InsightStoreContract):
    pass  # make_store comes from the module fixture


NASTY = ['agent"a', "agent'b", "agent\\c", 'x" or agent_id != "y', "名前-агент", 'a\\" or true or \\"']


def test_quoting_keeps_every_identifier_a_literal(make_store: Callable[..., MilvusInsightStore]) -> None:
    store = make_store()
    for agent in NASTY:
        store.put(record(agent, f"Insight by {agent}"))
    for agent in NASTY:
        assert [r.agent_id for r in store.list_author(author(agent))] == [agent]
        hits = store.query(vec("Insight by"), exclude_author=author(agent), embedding_model=MODEL, top_k=20)
        assert len(hits) == len(NASTY) - 1 and agent not in {h.record.agent_id for h in hits}
    [victim] = store.list_author(author(NASTY[0]))
    assert store.delete([victim.record_id, 'x" or record_id != "'], key=key_of(NASTY[3])) == 0
    assert store.delete([victim.record_id], key=key_of(NASTY[0])) == 1
    assert len(store) == len(NASTY) - 1
    with pytest.raises(InsightStoreError):
        _quote("line\nbreak")


def test_followups_with_quotes_are_invalidated_by_their_folded_text(
        make_store: Callable[..., MilvusInsightStore]) -> None:
    store = make_store()
    odd = 'Which "VIP" customers\\segments grew?'
    rec = record("agent-a", "Customer growth by segment", (odd, "Which region?"))
    store.put(rec)
    assert store.invalidate_followup('  which "vip" CUSTOMERS\\segments grew ', key=key_of("agent-a")) == 1
    [hit] = store.query(vec("Customer growth by segment"), exclude_author=author("b"), embedding_model=MODEL)
    assert hit.record.suggested_followups == ("Which region?",)


def test_a_collection_of_another_size_is_refused(make_store: Callable[..., MilvusInsightStore]) -> None:
    make_store().close()
    with pytest.raises(InsightStoreError, match="384"):
        make_store(dims=512)


def test_a_vector_of_another_size_finds_nothing_and_is_refused_on_put(
        make_store: Callable[..., MilvusInsightStore]) -> None:
    store = make_store()
    store.put(record("agent-a", "Orders per day"))
    assert store.query(np.ones(128, dtype=np.float32), exclude_author=author("b"), embedding_model=MODEL) == []
    bad = record("agent-a", "x")
    object.__setattr__(bad, "vector", np.ones(128, dtype=np.float32) / np.sqrt(128))
    with pytest.raises(InsightStoreError):
        store.put(bad)


def test_many_records_are_listed_and_expired_past_one_page(make_store: Callable[..., MilvusInsightStore]) -> None:
    store = make_store()
    now = time.time()
    old = [record("agent-a", f"Old {i}", ttl_s=1, now=now - 100) for i in range(1200)]
    fresh = [record("agent-a", f"Fresh {i}") for i in range(300)]
    store.put_many(old + fresh)
    assert len(store.list_author(author("agent-a"))) == 1500
    assert store.expire() == 1200
    assert len(store) == 300


def test_the_registry_opens_it_and_a_default_file_in_the_data_folder(tmp_path: Path) -> None:
    store = open_insight_store("milvus", "", data_dir=tmp_path)
    try:
        assert "Milvus Lite" in store.describe() and str(tmp_path) in store.describe()
        assert (tmp_path / "insights_milvus.db").exists()
    finally:
        store.close()


def test_describe_shows_no_token_or_user(monkeypatch: pytest.MonkeyPatch) -> None:
    store = MilvusInsightStore.__new__(MilvusInsightStore)
    store.uri, store.lite, store.collection = "https://alice:pw@milvus.example:19530", False, "cairn_insights"
    text = store.describe()
    assert "milvus.example:19530" in text and "alice" not in text and "pw" not in text


def test_a_lite_file_held_by_another_process_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "held.db"
    holder = subprocess.Popen(
        [sys.executable, "-c", ("import sys; from pymilvus import MilvusClient; "
                                f"c = MilvusClient({str(path)!r}); print('ready', flush=True); sys.stdin.readline()")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=os.getcwd())
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        with pytest.raises(InsightStoreError) as err:
            MilvusInsightStore(str(path))
        assert "one process" in err.value.hint
        code = ("import logging, sys; logging.basicConfig(level=logging.WARNING); "
                "from core.insights._store_milvus import MilvusInsightStore\n"
                f"try: MilvusInsightStore({str(path)!r})\nexcept Exception as e: print(type(e).__name__)")
        second = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=os.getcwd(),
                                timeout=120)
        assert second.stdout.strip() == "InsightStoreError"
        assert "Traceback" not in second.stderr and "Failed to start" not in second.stderr, second.stderr
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(30)


@pytest.mark.slow
def test_a_cluster_that_is_not_there_is_an_error_within_seconds() -> None:
    started = time.monotonic()
    with pytest.raises(InsightStoreError):
        MilvusInsightStore("http://127.0.0.1:9", timeout_s=2.0)  # the discard port: nothing listens
    assert time.monotonic() - started < 10.0


@pytest.mark.slow
def test_a_stalled_cluster_is_an_error_within_seconds() -> None:
    server = socket.socket()  # accepts connections and never says a word
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    accepted: list[Any] = []
    threading.Thread(target=lambda: [accepted.append(server.accept()) for _ in range(64)], daemon=True).start()
    try:
        started = time.monotonic()
        with pytest.raises(InsightStoreError):
            MilvusInsightStore(f"http://127.0.0.1:{server.getsockname()[1]}", timeout_s=3.0)
        assert time.monotonic() - started < 8.0
    finally:
        server.close()
        for conn, _ in accepted:
            conn.close()


def test_a_uri_of_another_kind_is_refused() -> None:
    with pytest.raises(InsightStoreError):
        MilvusInsightStore("postgresql://host/db")
