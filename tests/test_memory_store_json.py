"""The JSON-file memory store: the shared contract, plus damage, full disks and two writing processes."""

from __future__ import annotations

import errno
import multiprocessing
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from core.errors import CorruptMemoryFile, MemoryStoreError
from core.memory.stores import _store_json as store_json
from core.memory import Memory, Message
from core.memory.stores._store_json import JsonMemoryStore, user_file_name
from tests.memory_store_contract import ODD_NAMES, MemoryStoreContract, memory, query


class TestJsonContract(MemoryStoreContract):
    @pytest.fixture
    def make_store(self, tmp_path: Path) -> Callable[[], Any]:
        return lambda: JsonMemoryStore(tmp_path / "memory")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "memory"


def test_file_names_are_safe_and_distinct(root: Path) -> None:
    store = JsonMemoryStore(root)
    names = {user_file_name(n) for n in ODD_NAMES + ["nul\x00byte"]}
    assert len(names) == len(ODD_NAMES) + 1
    for name in ODD_NAMES:
        path = store.path_for(name)
        assert path.parent == root
        assert "/" not in path.name and "\\" not in path.name and not path.name.startswith(".")
        assert path.name.isascii() and path.name == path.name.lower()


def test_nul_in_user_name_is_fine(root: Path) -> None:
    store = JsonMemoryStore(root)
    store.put(memory("nul\x00byte", "x"))
    assert store.list("nul\x00byte")[0].user == "nul\x00byte"


def test_another_instance_sees_writes(root: Path) -> None:
    first, second = JsonMemoryStore(root), JsonMemoryStore(root)
    first.put(memory("ann", "orders from India"))
    assert len(second.search("ann", query("India"))) == 1  # second caches the file now
    first.put(memory("ann", "orders from Chile"))
    assert {h.memory.content for h in second.search("ann", query("orders"))} == {
        "orders from India", "orders from Chile"}  # fmt: skip


def _damage(store: JsonMemoryStore, user: str, data: bytes = b'{"format": 1, "token": "x", "memories": [') -> Path:
    path = store.path_for(user)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_corrupt_file_is_kept_and_never_overwritten(root: Path) -> None:
    store = JsonMemoryStore(root)
    store.put(memory("ann", "keep me"))
    store.put(memory("bob", "bob's"))
    damaged = b'{"format": 1, "token": "0", "memories": [{"id": '
    path = _damage(store, "ann", damaged)
    fresh = JsonMemoryStore(root)
    with pytest.raises(CorruptMemoryFile) as info:
        fresh.list("ann")
    assert str(path) in str(info.value)
    assert "backup" in info.value.hint or "restore" in info.value.hint.lower()
    backups = list(root.glob(f"{path.name}.corrupt-*"))
    assert len(backups) == 1 and backups[0].read_bytes() == damaged
    # writes are refused, the damaged file stays as it was, no second backup is made
    for write in (lambda: fresh.put(memory("ann", "new")), lambda: fresh.set_summary("ann", "s"),
                  lambda: fresh.append_message("ann", Message(role="user", content="hi")),
                  lambda: fresh.delete("ann", ["x"]), lambda: fresh.search("ann", query("x"))):  # fmt: skip
        with pytest.raises(CorruptMemoryFile):
            write()
    assert path.read_bytes() == damaged
    assert len(list(root.glob(f"{path.name}.corrupt-*"))) == 1
    assert [m.content for m in fresh.list("bob")] == ["bob's"]  # other users unaffected
    # clearing is the person's way out: a fresh file, the backup stays
    assert fresh.clear("ann") == 0
    assert fresh.list("ann") == []
    assert backups[0].read_bytes() == damaged
    fresh.put(memory("ann", "after"))
    assert [m.content for m in JsonMemoryStore(root).list("ann")] == ["after"]


@pytest.mark.parametrize(
    "data",
    [b"", b"not json", b"[]", b'{"format": 99}', b'{"format": 1, "token": "a", "user": "other", "summary": "",'
     b' "messages": [], "memories": []}', b"\xff\xfe"],
)  # fmt: skip
def test_every_kind_of_damage_is_reported(root: Path, data: bytes) -> None:
    store = JsonMemoryStore(root)
    _damage(store, "ann", data)
    with pytest.raises(CorruptMemoryFile):
        store.summary("ann")


def test_truncated_file_is_noticed_even_when_cached(root: Path) -> None:
    store = JsonMemoryStore(root)
    store.put(memory("ann", "a"))
    store.list("ann")
    path = store.path_for("ann")
    path.write_bytes(path.read_bytes()[:-40])
    with pytest.raises(CorruptMemoryFile):
        store.list("ann")


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS])
def test_failed_replace_keeps_the_old_file(root: Path, monkeypatch: pytest.MonkeyPatch, code: int) -> None:
    store = JsonMemoryStore(root)
    store.put(memory("ann", "old"))
    before = store.path_for("ann").read_bytes()

    def fail(*_args: Any, **_kw: Any) -> None:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(store_json.os, "replace", fail)
    with pytest.raises(MemoryStoreError) as info:
        store.put(memory("ann", "new"))
    assert not isinstance(info.value, CorruptMemoryFile)
    assert ("full" if code == errno.ENOSPC else "read-only") in str(info.value)
    monkeypatch.undo()
    assert store.path_for("ann").read_bytes() == before
    assert [m.content for m in store.list("ann")] == ["old"]
    assert [m.content for m in JsonMemoryStore(root).list("ann")] == ["old"]
    assert [p.name for p in root.iterdir() if ".tmp-" in p.name] == []


def test_failed_write_of_temp_file(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = JsonMemoryStore(root)
    store.set_summary("ann", "old summary")
    real_open = open

    def full_disk_open(file: Any, mode: str = "r", *args: Any, **kw: Any) -> Any:
        if "w" in mode:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_open(file, mode, *args, **kw)

    monkeypatch.setattr(store_json, "open", full_disk_open, raising=False)
    with pytest.raises(MemoryStoreError, match="full"):
        store.set_summary("ann", "new summary")
    assert store.summary("ann") == "old summary"


def test_wrong_dimensions_are_refused(root: Path) -> None:
    store = JsonMemoryStore(root, dims=384)
    with pytest.raises(MemoryStoreError):
        store.put(Memory(user="ann", category="entity", content="x", embedding=(1.0, 0.0)))
    store.put(memory("ann", "fine"))
    with pytest.raises(MemoryStoreError):
        store.search("ann", [1.0, 0.0])


def test_mixed_dimensions_are_refused_without_a_fixed_size(root: Path) -> None:
    store = JsonMemoryStore(root)
    store.put(memory("ann", "384 dims"))
    with pytest.raises(MemoryStoreError, match="embedding size"):
        store.put(Memory(user="ann", category="entity", content="x", embedding=(1.0, 0.0)))
    assert len(store.list("ann")) == 1


def _writer(root: str, tag: str, count: int) -> None:
    store = JsonMemoryStore(Path(root))
    for i in range(count):
        store.put(Memory(user="shared", category="entity", content=f"{tag}-{i}", id=f"{tag}-{i}",
                         embedding=(float(i), 1.0, 0.0, 0.5)))  # fmt: skip
        store.append_message("shared", Message(role="user", content=f"{tag}-{i}"), keep=1000)


@pytest.mark.slow
def test_two_processes_writing_lose_nothing(root: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(root), tag, 200)) for tag in ("a", "b")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=100)
        assert p.exitcode == 0
    store = JsonMemoryStore(root)
    ids = {m.id for m in store.list("shared")}
    assert ids == {f"{t}-{i}" for t in ("a", "b") for i in range(200)}
    assert len(store.recent_messages("shared", limit=1000)) == 400
