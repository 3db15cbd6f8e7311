"""The JSON-lines shared-insights store: the contract, plus what a shared folder brings (several writers, a
torn last line, a file replaced under a reader, a line that is not ours)."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest

from core.errors import InsightStoreError
from core.insights._store_jsonl import JsonlInsightStore
from tests.insight_store_contract import MODEL, InsightStoreContract, author, key_of, record, vec


class TestJsonlStore(InsightStoreContract):
    @pytest.fixture
    def make_store(self, tmp_path: Path):
        return lambda: JsonlInsightStore(tmp_path / "shared")


def _writer(folder: str, agent: str, count: int) -> None:
    store = JsonlInsightStore(folder)
    for i in range(count):
        store.put(record(agent, f"{agent} insight number {i} about orders"))


def test_several_processes_append_without_tearing_lines(tmp_path: Path) -> None:
    folder = str(tmp_path / "shared")
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(folder, f"agent-{n}", 40)) for n in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    lines = (tmp_path / "shared" / "insights.jsonl").read_bytes().splitlines()
    assert len(lines) == 160 and all(json.loads(line)["op"] == "put" for line in lines)
    store = JsonlInsightStore(folder)
    assert len(store) == 160 and store.skipped_lines == 0


def test_a_torn_last_line_waits_and_a_foreign_line_is_skipped(tmp_path: Path) -> None:
    store = JsonlInsightStore(tmp_path)
    store.put(record("agent-a", "Stock turnover by warehouse"))
    path = tmp_path / "insights.jsonl"
    whole = json.dumps({"op": "put", "record": record("agent-a", "Shrinkage by store").to_json()}) + "\n"
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("not json at all\n")
        fh.write(whole[:40])  # a writer on another machine, halfway
    reader = JsonlInsightStore(tmp_path)
    assert len(reader) == 1 and reader.skipped_lines == 1
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(whole[40:])
    assert len(reader) == 2  # the line, once complete, is read


def test_a_reader_notices_the_file_rewritten_by_expire(tmp_path: Path) -> None:
    writer, reader = JsonlInsightStore(tmp_path), JsonlInsightStore(tmp_path)
    writer.put(record("agent-a", "Old insight", ttl_s=-1))
    writer.put(record("agent-a", "Fresh insight about returns"))
    assert len(reader) == 2
    assert writer.expire() == 1
    writer.put(record("agent-a", "Another fresh insight"))
    hits = reader.query(vec("Fresh insight about returns"), exclude_author=author("b"), embedding_model=MODEL, top_k=5)
    assert {h.record.insight_summary for h in hits} == {"Fresh insight about returns", "Another fresh insight"}


def test_a_folder_that_cannot_be_written_says_so(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(InsightStoreError) as err:
        JsonlInsightStore(blocker / "sub")
    assert err.value.hint


# -- what someone else sharing the folder (or a full disk) can do --------------------------------------------

def test_a_planted_symlink_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    victim = tmp_path / "private.txt"
    victim.write_text("mine\n")
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "insights.jsonl").symlink_to(victim)
    store = JsonlInsightStore(shared)
    with pytest.raises(InsightStoreError):
        store.put(record("agent-a", "Anything at all"))
    assert victim.read_text() == "mine\n"
    with pytest.raises(InsightStoreError):
        store.list_author(author("agent-a"))


def test_a_fifo_in_place_of_the_file_fails_at_once(tmp_path: Path) -> None:
    import os
    import time

    os.mkfifo(tmp_path / "insights.jsonl")
    store = JsonlInsightStore(tmp_path)
    started = time.monotonic()
    with pytest.raises(InsightStoreError):
        store.put(record("agent-a", "Anything at all"))
    assert time.monotonic() - started < 2


def test_a_deeply_nested_line_is_skipped_not_fatal(tmp_path: Path) -> None:
    (tmp_path / "insights.jsonl").write_text("[" * 100_000 + "\n")
    store = JsonlInsightStore(tmp_path)
    store.put(record("agent-a", "Stock turnover by warehouse"))
    assert len(store) == 1 and store.skipped_lines == 1


def test_a_torn_line_never_swallows_the_next_record(tmp_path: Path) -> None:
    store = JsonlInsightStore(tmp_path)
    store.put(record("agent-a", "First insight"))
    with open(tmp_path / "insights.jsonl", "a", encoding="utf-8") as fh:
        fh.write('{"op":"put","record":{"record_id":"torn')  # the disk filled up here
    store.put(record("agent-a", "Second insight"))
    fresh = JsonlInsightStore(tmp_path)
    assert {r.insight_summary for r in fresh.list_author(author("agent-a"))} == {"First insight", "Second insight"}
    assert fresh.skipped_lines == 1


def test_unnormalised_or_other_sized_vectors_never_crowd_out_the_rest(tmp_path: Path) -> None:
    import dataclasses

    import numpy as np

    store = JsonlInsightStore(tmp_path)
    good = record("agent-a", "Refund rate by product category")
    store.put(good)
    for i in range(12):  # another program's records: huge vectors, and vectors of another size
        mallory = key_of("mallory")  # signed: the vectors, not the signatures, are what is odd here
        loud = dataclasses.replace(record("mallory", f"noise {i}"), vector=np.full(384, 1e6, dtype=np.float32))
        store.put(loud.signed_by(mallory))
        small = dataclasses.replace(record("mallory", f"small {i}"), vector=np.ones(8, dtype=np.float32))
        store.put(small.signed_by(mallory))
    hits = store.query(vec("Refund rate by product category"), exclude_author=author("b"), embedding_model=MODEL,
                       top_k=3)
    assert hits[0].record.record_id == good.record_id and all(h.similarity <= 1.0 + 1e-5 for h in hits)


def test_files_created_in_a_shared_folder_are_group_writable(tmp_path: Path) -> None:
    import os
    import stat

    store = JsonlInsightStore(tmp_path)
    store.put(record("agent-a", "Anything at all"))
    for name in ("insights.jsonl", "insights.lock"):
        assert os.stat(tmp_path / name).st_mode & stat.S_IWGRP, name
