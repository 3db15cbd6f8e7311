"""Issue 32, hardening 4 (resources): the shared JSON-lines insights file is read as a bounded stream. A file
grown by someone else sharing the folder (2.6 GB used 2.6 GB of memory) costs a bounded memory: peak allocation
is measured with tracemalloc, far below the file's size; a huge single line is skipped without being held; a
scan stops at a cap with a warning the store reports, and expiring then keeps what was not read."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from core.insights import _store_jsonl
from core.insights._store_jsonl import FILE_NAME, MAX_LINE_BYTES, JsonlInsightStore
from tests.insight_store_contract import author, record

MB = 1024 * 1024


def _peak_while(fn) -> int:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _put_line(agent: str, summary: str) -> bytes:
    return (json.dumps({"op": "put", "record": record(agent, summary).to_json()}) + "\n").encode()


def test_a_50_mb_file_of_foreign_lines_is_read_in_a_few_mb(tmp_path: Path) -> None:
    path = tmp_path / FILE_NAME
    unsigned = dict(record("agent-x", "Returns by region").to_json(), signature="", author_key="")
    line = (json.dumps({"op": "put", "record": unsigned}) + "\n").encode()
    with open(path, "wb") as fh:
        fh.write(_put_line("agent-a", "Stock turnover by warehouse"))
        fh.writelines(line for _ in range(50 * MB // len(line)))
        fh.write(_put_line("agent-b", "Shrinkage by store"))
    assert path.stat().st_size >= 50 * MB
    store = JsonlInsightStore(tmp_path)
    peak = _peak_while(lambda: len(store))
    assert len(store) == 2 and store.dropped_lines >= 50 * MB // len(line)  # every line read, the two kept
    assert peak < 8 * MB, f"reading a {path.stat().st_size // MB} MB file peaked at {peak // MB} MB"


def test_a_huge_single_line_is_skipped_without_being_held(tmp_path: Path) -> None:
    path = tmp_path / FILE_NAME
    with open(path, "wb") as fh:
        fh.write(b'{"op":"put","record":{"insight_summary":"' + b"x" * (40 * MB) + b'"}}\n')
        fh.write(_put_line("agent-a", "Stock turnover by warehouse"))
    store = JsonlInsightStore(tmp_path)
    peak = _peak_while(lambda: len(store))
    assert len(store) == 1 and store.skipped_lines == 1
    assert peak < 4 * MB, f"a 40 MB line peaked at {peak // MB} MB"


def test_an_overlong_line_still_being_written_is_not_held_either(tmp_path: Path) -> None:
    path = tmp_path / FILE_NAME
    path.write_bytes(_put_line("agent-a", "Stock turnover by warehouse") + b"y" * (MAX_LINE_BYTES * 40))
    store = JsonlInsightStore(tmp_path)
    peak = _peak_while(lambda: len(store))
    assert len(store) == 1 and peak < 4 * MB
    with open(path, "ab") as fh:  # the line ends: skipped as a whole, the next one read
        fh.write(b"\n" + _put_line("agent-b", "Shrinkage by store"))
    assert len(store) == 2 and store.skipped_lines == 1


def test_a_scan_stops_at_the_cap_says_so_and_expire_keeps_the_rest(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_store_jsonl, "MAX_RECORDS", 3)
    path = tmp_path / FILE_NAME
    old = (json.dumps({"op": "put", "record": record("agent-a", "Old turnover", ttl_s=-10).to_json()}) + "\n")
    with open(path, "wb") as fh:
        fh.write(old.encode())
        fh.writelines(_put_line("agent-b", f"Shrinkage by store {i}") for i in range(5))
    store = JsonlInsightStore(tmp_path)
    assert len(store) == 3
    assert "read only the first" in store.describe() and "expire old insights" in store.describe()
    assert store.expire() == 1  # the expired record goes; the lines never read are copied, not lost
    assert len(store) == 3 and store.warning  # the cap still holds after the rewrite
    monkeypatch.setattr(_store_jsonl, "MAX_RECORDS", 100)
    reader = JsonlInsightStore(tmp_path)
    assert len(reader) == 5 and not reader.warning and "read only" not in reader.describe()
    assert {r.insight_summary for r in reader.list_author(author("agent-b"))} == {
        f"Shrinkage by store {i}" for i in range(5)}


def test_a_scan_stops_at_the_byte_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    line = _put_line("agent-a", "Stock turnover by warehouse")
    monkeypatch.setattr(_store_jsonl, "MAX_SCAN_BYTES", len(line) + 1)
    (tmp_path / FILE_NAME).write_bytes(line + _put_line("agent-b", "Shrinkage") + _put_line("agent-c", "Returns"))
    store = JsonlInsightStore(tmp_path)
    assert len(store) == 2 and store.warning
