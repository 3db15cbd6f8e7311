"""The JSON-lines shared-insights store: the contract, plus what a shared folder brings (several writers, a
torn last line, a file replaced under a reader, a line that is not ours)."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest

from core.errors import InsightStoreError
from core.insights._store_jsonl import JsonlInsightStore
from tests.insight_store_contract import MODEL, InsightStoreContract, record, vec


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
    hits = reader.query(vec("Fresh insight about returns"), exclude_agent="b", embedding_model=MODEL, top_k=5)
    assert {h.record.insight_summary for h in hits} == {"Fresh insight about returns", "Another fresh insight"}


def test_a_folder_that_cannot_be_written_says_so(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(InsightStoreError) as err:
        JsonlInsightStore(blocker / "sub")
    assert err.value.hint
