"""One source of truth for memories: a configured store that is down refuses, recovers, and is never
replaced by another behind the person's back (issue: an acknowledged memory disappeared)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.errors import MemoryStoreError
from core.memory import Memory, open_memory_store
from core.memory.stores._unavailable import ReconnectingStore
from tests.fakes.in_memory_store import InMemoryStore

REPO = Path(__file__).resolve().parents[1]


def _memory(user: str, text: str) -> Memory:
    return Memory(user=user, category="preference", content=text, embedding=(1.0, 0.0, 0.0))


def test_a_store_that_comes_back_is_used_again_without_a_restart() -> None:
    real = InMemoryStore()
    attempts: list[int] = []

    def opener() -> InMemoryStore:
        attempts.append(1)
        if len(attempts) < 2:
            raise MemoryStoreError("server is starting")
        return real

    store = ReconnectingStore("pgvector", opener, "server is down", retry_s=0.0)
    with pytest.raises(MemoryStoreError, match="unavailable"):
        store.list("ann")
    store.put(_memory("ann", "Only show customers from India"))  # the second attempt opens it
    assert store.kind != "unavailable" and [m.content for m in real.list("ann")] == ["Only show customers from India"]


def _cairn(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CAIRN_DATA_DIR": str(data), "OLLAMA_HOST": "http://127.0.0.1:9", "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "core.cli", *args], capture_output=True, text=True, env=env,
                          timeout=120, cwd=REPO)  # fmt: skip


@pytest.mark.slow
def test_memory_added_during_an_outage_is_refused_and_nothing_is_split(tmp_path: Path, embedded_pg) -> None:
    data = tmp_path / "data"
    data.mkdir()
    good_uri = embedded_pg.memory_uri("cairn_truth_memory")
    down_uri = f"postgresql://cairn_memory@/cairn_truth_memory?host={tmp_path}&connect_timeout=2"
    settings = data / "settings.json"

    settings.write_text(json.dumps({"memory_store": "pgvector", "memory_store_uri": down_uri}))
    added = _cairn(data, "memory", "add", "--user", "ann", "preference", "Only show customers from India")
    assert added.returncode != 0, added.stdout
    assert "unavailable" in (added.stdout + added.stderr) and "Traceback" not in added.stderr
    assert not (data / "memory").exists()  # no JSON copy on the side

    settings.write_text(json.dumps({"memory_store": "pgvector", "memory_store_uri": good_uri}))
    assert _cairn(data, "memory", "add", "--user", "ann", "preference", "Only show customers from India").returncode == 0
    listed = _cairn(data, "memory", "list", "--user", "ann", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [m["content"] for m in json.loads(listed.stdout)] == ["Only show customers from India"]


def test_open_memory_store_keeps_json_when_json_is_chosen(tmp_path: Path) -> None:
    store = open_memory_store("json", data_dir=tmp_path)
    assert store.kind == "json"


def test_memories_left_in_json_files_are_found_and_adopted_once(tmp_path: Path) -> None:
    from core.memory import JsonMemoryStore, adopt_memories, stray_memories

    old = JsonMemoryStore(tmp_path / "memory")
    kept = _memory("ann", "Only show customers from India")
    old.put(kept)
    old.put(_memory("bob", "Default currency is EUR"))
    assert {(s.user, s.count) for s in stray_memories(tmp_path, "pgvector")} == {("ann", 1), ("bob", 1)}
    assert stray_memories(tmp_path, "json") == []  # they are the active store then

    active = InMemoryStore()
    active.put(kept)  # already there: not copied twice
    assert adopt_memories(tmp_path, active) == 1
    assert [m.content for m in active.list("bob")] == ["Default currency is EUR"]
    assert [m.id for m in active.list("ann")] == [kept.id]
    assert stray_memories(tmp_path, "pgvector") == []
    assert not list((tmp_path / "memory").glob("*.json"))
    assert len(list((tmp_path / "memory").glob("*.json.adopted"))) == 2  # kept, not deleted


@pytest.mark.slow
def test_doctor_reports_stray_memories_and_adopt_brings_them_in(tmp_path: Path, embedded_pg) -> None:
    from core.memory import JsonMemoryStore

    data = tmp_path / "data"
    JsonMemoryStore(data / "memory").put(_memory("ann", "Only show customers from India"))
    uri = embedded_pg.memory_uri("cairn_adopt_memory")
    (data / "settings.json").write_text(json.dumps({"memory_store": "pgvector", "memory_store_uri": uri}))
    doctor = _cairn(data, "doctor")
    assert "memories left in JSON files: ann (1)" in doctor.stdout and "cairn memory adopt" in doctor.stdout
    adopt = _cairn(data, "memory", "adopt", "--user", "ann")
    assert adopt.returncode == 0 and "Adopted 1 memories" in adopt.stdout, adopt.stderr
    listed = _cairn(data, "memory", "list", "--user", "ann", "--json")
    assert [m["content"] for m in json.loads(listed.stdout)] == ["Only show customers from India"]
    assert "memories left in JSON files" not in _cairn(data, "doctor").stdout
