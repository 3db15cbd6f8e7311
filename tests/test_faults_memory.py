"""Memory faults: disk full / read-only at the JSON store's write boundary, damaged store files, the embedding
model missing, the pgvector server dropping the connection or stopping. Each gives a clear MemoryStoreError
(or EmbeddingModelMissing) with a hint, the Assistant keeps answering questions, and every put that returned
is still there once the fault is cleared (acknowledged writes lost: 0).

Tests run as root, so read-only and full disks are injected where the store writes (open/fsync/replace/mkdir,
and /dev/full for a real ENOSPC from the kernel), not with chmod.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

import core.config
import core.memory.stores._store_json as store_json
from core.assistant import Assistant
from core.config import Settings
from core.databases import open_database
from core.databases import Database
from core.databases import EmbeddedPostgres
from core.errors import CorruptMemoryFile, EmbeddingModelMissing, MemoryStoreError
from core.memory import MemoryBank
from core.memory import MiniLMEmbedder
from core.memory import Memory, Message
from core.memory import JsonMemoryStore
from core.memory import PgVectorMemoryStore
from core.pipeline import AskPipeline
from tests.conftest import shared_data_path
from tests.fakes.fake_embedder import FakeEmbedder
from tests.fakes.scripted_llm import ScriptedLLM

USER = "ann"
EMBED = FakeEmbedder()


def _memory(text: str, user: str = USER) -> Memory:
    return Memory(user=user, category="preference", content=text,
                  embedding=tuple(float(x) for x in EMBED.embed_batch([text])[0]))


def _contents(store: Any, user: str = USER) -> set[str]:
    return {m.content for m in store.list(user)}


# -- the JSON store's write boundary ---------------------------------------------------------------------


def _oserror(code: int) -> OSError:
    return OSError(code, os.strerror(code))


def _fail_fsync(monkeypatch: pytest.MonkeyPatch, code: int) -> None:
    def fsync(fd: int) -> None:
        raise _oserror(code)

    monkeypatch.setattr(store_json.os, "fsync", fsync)


def _fail_replace(monkeypatch: pytest.MonkeyPatch, code: int) -> None:
    def replace(src: Any, dst: Any) -> None:
        raise _oserror(code)

    monkeypatch.setattr(store_json.os, "replace", replace)


def _dev_full(monkeypatch: pytest.MonkeyPatch, code: int) -> None:
    """Temp files are opened on /dev/full: the kernel itself answers ENOSPC on write/flush."""
    real_open = open

    def fake_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if "w" in mode and ".tmp-" in str(file):
            return real_open("/dev/full", mode, *args, **kwargs)
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(store_json, "open", fake_open, raising=False)


def _fail_open_for_write(monkeypatch: pytest.MonkeyPatch, code: int) -> None:
    real_open = open

    def fake_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if "w" in mode:
            raise _oserror(code)
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(store_json, "open", fake_open, raising=False)


def _fail_lock_file(monkeypatch: pytest.MonkeyPatch, code: int) -> None:
    import fasteners

    def acquire(self: Any, *args: Any, **kwargs: Any) -> bool:
        raise _oserror(code)

    monkeypatch.setattr(fasteners.InterProcessLock, "acquire", acquire)


INJECTIONS: dict[str, tuple[Callable[[pytest.MonkeyPatch, int], None], int, str]] = {
    "ENOSPC at fsync": (_fail_fsync, errno.ENOSPC, "disk is full"),
    "EROFS at rename": (_fail_replace, errno.EROFS, "read-only"),
    "ENOSPC from /dev/full": (_dev_full, errno.ENOSPC, "disk is full"),
    "EROFS opening the temp file": (_fail_open_for_write, errno.EROFS, "read-only"),
    "EROFS creating the lock file": (_fail_lock_file, errno.EROFS, "read-only"),
    "EDQUOT at fsync": (_fail_fsync, errno.EDQUOT, "quota"),
}
WRITES: dict[str, Callable[[JsonMemoryStore], object]] = {
    "put": lambda s: s.put(_memory("Only show invoices from Canada")),
    "put_many": lambda s: s.put_many([_memory("Only rock tracks"), _memory("Only paid invoices")]),
    "delete": lambda s: s.delete(USER, [s.list(USER)[0].id]),
    "clear": lambda s: s.clear(USER),
    "append_message": lambda s: s.append_message(USER, Message("user", "How many artists?")),
    "set_summary": lambda s: s.set_summary(USER, "Earlier questions: artists"),
}
ACKED = ("Only show customers from Brazil", "Only show albums after 2000", "Only count active employees")


@pytest.fixture
def filled(tmp_path: Path) -> JsonMemoryStore:
    store = JsonMemoryStore(tmp_path / "memory")
    for text in ACKED:
        store.put(_memory(text))
    store.append_message(USER, Message("user", "first question"))
    return store


@pytest.mark.parametrize("write", list(WRITES))
@pytest.mark.parametrize("fault", list(INJECTIONS))
def test_write_fault_is_clear_and_loses_nothing(filled: JsonMemoryStore, monkeypatch: pytest.MonkeyPatch,
                                                fault: str, write: str) -> None:
    inject, code, words = INJECTIONS[fault]
    before = filled.path_for(USER).read_bytes()
    with monkeypatch.context() as patch:
        inject(patch, code)
        with pytest.raises(MemoryStoreError) as err:
            WRITES[write](filled)
    assert words in str(err.value) and err.value.hint
    assert not isinstance(err.value, CorruptMemoryFile)
    # the file on disk is the last acknowledged version, byte for byte, and no temp file is left behind
    assert filled.path_for(USER).read_bytes() == before
    assert not list(filled.root.glob("*.tmp-*"))
    reopened = JsonMemoryStore(filled.root)
    assert _contents(reopened) == set(ACKED)
    assert [m.content for m in reopened.recent_messages(USER)] == ["first question"]
    # fault cleared: the same store instance writes again, and nothing was lost
    filled.put(_memory("Only show orders over 100"))
    assert _contents(JsonMemoryStore(filled.root)) == {*ACKED, "Only show orders over 100"}


def test_new_data_directory_on_a_read_only_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = JsonMemoryStore(tmp_path / "nowhere" / "memory")

    def mkdir(self: Path, *args: Any, **kwargs: Any) -> None:
        raise _oserror(errno.EROFS)

    with monkeypatch.context() as patch:
        patch.setattr(Path, "mkdir", mkdir)
        with pytest.raises(MemoryStoreError, match="read-only"):
            store.put(_memory("Only show customers from Brazil"))
    assert store.list(USER) == []  # reading a user with no file is fine
    store.put(_memory("Only show customers from Brazil"))
    assert _contents(store) == {"Only show customers from Brazil"}


def test_many_puts_with_random_disk_full_lose_no_acknowledged_write(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Every third fsync fails: each put either returned (and must stay) or raised MemoryStoreError."""
    store = JsonMemoryStore(tmp_path / "memory")
    real_fsync = os.fsync
    calls = {"n": 0}

    def flaky(fd: int) -> None:
        calls["n"] += 1
        if calls["n"] % 3 == 0:
            raise _oserror(errno.ENOSPC)
        real_fsync(fd)

    acked: set[str] = set()
    refused = 0
    with monkeypatch.context() as patch:
        patch.setattr(store_json.os, "fsync", flaky)
        for i in range(30):
            text = f"Only show region number {i}"
            try:
                store.put(_memory(text))
            except MemoryStoreError:
                refused += 1
                continue
            acked.add(text)
    assert refused > 0 and acked
    assert acked <= _contents(JsonMemoryStore(store.root))


# -- damaged JSON store files -------------------------------------------------------------------------------


def _damage(kind: str, good: bytes) -> bytes:
    return {
        "garbage": b"\x00\xff not json at all \x13\x37",
        "truncated": good[: len(good) // 2],
        "a JSON list": b"[1, 2, 3]",
        "the wrong format": json.dumps({"format": 99, "token": "0" * 32, "user": USER}).encode(),
        "memories not a list": json.dumps({"format": 1, "token": "0" * 32, "user": USER, "summary": "",
                                           "messages": [], "memories": {"a": 1}}).encode(),
        "another user's file": good.replace(json.dumps(USER).encode(), b'"mallory"'),
        "empty": b"",
    }[kind]


@pytest.fixture
def sqlite_db(tmp_path: Path) -> Iterator[Database]:
    target = tmp_path / "chinook.sqlite"
    shutil.copy(shared_data_path("chinook", "Chinook_Sqlite.sqlite"), target)
    database = open_database(str(target))
    yield database
    database.close()


def _assistant(db: Database, store: Any, tmp_path: Path, embedder: Any = EMBED) -> tuple[Assistant, ScriptedLLM]:
    llm = ScriptedLLM()
    pipeline = AskPipeline(db, llm, Settings(repair_rounds=0))
    return Assistant(pipeline, store, embedder, MemoryBank(store, embedder, tmp_path / "journal")), llm


def _asks(bot: Assistant, llm: ScriptedLLM) -> Any:
    llm.enqueue("SELECT COUNT(*) AS n FROM Artist", "NONE")
    reply = bot.handle(USER, "How many artists are there?")
    assert reply.answer is not None and reply.answer.ok and reply.answer.rows == ((275,),), reply
    return reply


@pytest.mark.parametrize("kind", ["garbage", "truncated", "a JSON list", "the wrong format",
                                  "memories not a list", "another user's file", "empty"])
def test_damaged_file_is_kept_aside_and_questions_still_work(filled: JsonMemoryStore, sqlite_db: Database,
                                                             tmp_path: Path, kind: str) -> None:
    path = filled.path_for(USER)
    damaged = _damage(kind, path.read_bytes())
    path.write_bytes(damaged)
    with pytest.raises(CorruptMemoryFile) as err:
        JsonMemoryStore(filled.root).list(USER)
    assert "damaged" in str(err.value) and "backup" in err.value.hint
    [backup] = filled.root.glob(f"{path.name}.corrupt-*")
    assert backup.read_bytes() == damaged
    # writes are refused: the damaged file is never overwritten by a partial view of it
    with pytest.raises(CorruptMemoryFile):
        filled.put(_memory("Only show orders over 100"))
    assert path.read_bytes() == damaged
    bot, llm = _assistant(sqlite_db, filled, tmp_path)
    reply = _asks(bot, llm)
    assert any("could not be read" in n for n in reply.notes)
    llm.enqueue("NONE")
    stored = bot.handle(USER, "Always show only customers from Brazil")
    assert stored.error and stored.hint and stored.text == "Nothing was stored."
    assert path.read_bytes() == damaged
    # the way out: clear (the backup stays), then memory works again
    filled.clear(USER)
    assert backup.read_bytes() == damaged
    filled.put(_memory("Only show orders over 100"))
    assert _contents(filled) == {"Only show orders over 100"}


# -- the Assistant when the disk fills ---------------------------------------------------------------------


def test_assistant_on_a_full_disk_says_nothing_was_stored_and_keeps_answering(
    filled: JsonMemoryStore, sqlite_db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot, llm = _assistant(sqlite_db, filled, tmp_path)
    with monkeypatch.context() as patch:
        _dev_full(patch, errno.ENOSPC)
        llm.enqueue("NONE")
        reply = bot.handle(USER, "Always show only invoices from Canada")
        assert reply.error and "disk is full" in reply.error and reply.hint and reply.text == "Nothing was stored."
        answered = _asks(bot, llm)
        assert any("conversation could not be saved" in n for n in answered.notes)
    assert _contents(JsonMemoryStore(filled.root)) == set(ACKED)
    llm.enqueue("NONE")
    assert bot.handle(USER, "Always show only invoices from Canada").error is None
    assert "invoices from Canada" in " ".join(_contents(JsonMemoryStore(filled.root)))


def test_a_stored_memory_whose_undo_journal_cannot_be_written_is_kept_and_noted(
    filled: JsonMemoryStore, sqlite_db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: a journal write failing after the store write escaped Assistant.handle as an exception."""
    bot, llm = _assistant(sqlite_db, filled, tmp_path)
    real_replace = os.replace

    def replace(src: Any, dst: Any) -> None:
        if "journal" in str(dst):
            raise _oserror(errno.ENOSPC)
        real_replace(src, dst)

    with monkeypatch.context() as patch:
        patch.setattr(core.config.os, "replace", replace)
        llm.enqueue("NONE")
        reply = bot.handle(USER, "Always show only invoices from Canada")
    assert reply.error is None and reply.changes and reply.changes[0].operation == "ADD"
    assert any("cannot be undone" in n for n in reply.notes)
    assert len(_contents(JsonMemoryStore(filled.root))) == len(ACKED) + 1


# -- the embedding model missing ------------------------------------------------------------------------


@pytest.fixture
def model_missing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The encoder's export is not where Cairn looks (never made, or deleted)."""
    monkeypatch.setenv("CAIRN_EMBEDDER_DIR", str(tmp_path / "no-embedder"))


def test_missing_embedding_model_has_the_install_hint(model_missing: None) -> None:
    with pytest.raises(EmbeddingModelMissing) as err:
        MiniLMEmbedder().embed_batch(["Only show customers from Brazil"])
    assert "export_embedder.py" in err.value.hint


def test_missing_embedding_model_questions_still_work(model_missing: None, filled: JsonMemoryStore,
                                                      sqlite_db: Database, tmp_path: Path) -> None:
    bot, llm = _assistant(sqlite_db, filled, tmp_path, embedder=MiniLMEmbedder())
    reply = _asks(bot, llm)
    assert any("export_embedder.py" in n for n in reply.notes)  # memories could not be recalled
    llm.enqueue("NONE")
    stored = bot.handle(USER, "Always show only invoices from Canada")
    assert stored.text == "Nothing was stored." and "export_embedder.py" in (stored.hint or "")
    assert _contents(filled) == set(ACKED)


def test_cli_user_without_the_embedding_model(tmp_path: Path) -> None:
    """Decision: --user degrades. Questions are answered (memories are not recalled, with a note when the
    person has some); remembering fails with exit 1 and the install hint. Never a traceback."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "settings.json").write_text(json.dumps({"memory_store": "json"}))
    db = tmp_path / "chinook.sqlite"
    shutil.copy(shared_data_path("chinook", "Chinook_Sqlite.sqlite"), db)
    env = {**os.environ, "CAIRN_DATA_DIR": str(data), "OLLAMA_HOST": "http://127.0.0.1:9",
           "CAIRN_EMBEDDER_DIR": str(tmp_path / "no-embedder")}

    def cairn(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "core.cli", *args], capture_output=True, text=True,
                              env=env, timeout=120)

    asked = cairn("ask", "How many artists are there?", "--db", str(db), "--user", USER, "--json")
    assert asked.returncode == 0 and json.loads(asked.stdout)["rows"] == [[275]], asked.stderr
    remembered = cairn("ask", "Always show only customers from Brazil", "--db", str(db), "--user", USER)
    assert remembered.returncode == 1 and "export_embedder.py" in remembered.stderr
    added = cairn("memory", "add", "preference", "Only customers from Brazil", "--user", USER)
    assert added.returncode == 1 and "export_embedder.py" in added.stderr
    for proc in (asked, remembered, added):
        assert "Traceback" not in proc.stderr


# -- the pgvector store -----------------------------------------------------------------------------------


@pytest.fixture
def pg_store(embedded_pg: EmbeddedPostgres) -> Iterator[tuple[PgVectorMemoryStore, str]]:
    name = f"cairn_memory_{uuid.uuid4().hex[:8]}"
    embedded_pg.ensure_database(name)
    store = PgVectorMemoryStore(embedded_pg.uri(name))
    yield store, embedded_pg.uri(name)
    store.close()


def test_pgvector_connection_killed_during_a_put(pg_store: tuple[PgVectorMemoryStore, str]) -> None:
    store, uri = pg_store
    for text in ACKED:
        store.put(_memory(text))
    backend = store._connect().info.backend_pid
    with psycopg.connect(uri) as blocker:
        blocker.execute("LOCK TABLE memories IN ACCESS EXCLUSIVE MODE")  # the put below waits on this lock

        def kill() -> None:
            time.sleep(0.3)
            with psycopg.connect(uri, autocommit=True) as admin:
                admin.execute("SELECT pg_terminate_backend(%s)", (backend,))

        killer = threading.Thread(target=kill)
        killer.start()
        with pytest.raises(MemoryStoreError) as err:
            store.put(_memory("Only show invoices from Canada"))
        killer.join()
        blocker.rollback()
    assert err.value.hint
    assert _contents(store) == set(ACKED)  # reconnects; the interrupted put is absent, the rest present
    store.put(_memory("Only show invoices from Canada"))
    assert _contents(store) == {*ACKED, "Only show invoices from Canada"}


def test_pgvector_server_stopped_then_started(tmp_path: Path) -> None:
    root = Path(tempfile.mkdtemp(prefix="cairn-memfault-"))
    server = EmbeddedPostgres(root)
    try:
        server.ensure_database("cairn_memory")
        store = PgVectorMemoryStore(server.uri("cairn_memory"))
        for text in ACKED:
            store.put(_memory(text))
        server.stop()
        with pytest.raises(MemoryStoreError) as err:
            store.put(_memory("Only show invoices from Canada"))
        assert err.value.hint
        with pytest.raises(MemoryStoreError):
            store.list(USER)
        server.start()
        assert _contents(store) == set(ACKED)
        store.put(_memory("Only show invoices from Canada"))
        assert _contents(store) == {*ACKED, "Only show invoices from Canada"}
        store.close()
    finally:
        server.stop()
