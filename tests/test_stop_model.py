"""Stop cuts a model call in progress (issue 13, item 2): the real ``ollama`` client against the fake server with a
slow model; the call ends within half a second of Stop, the server sees the request closed, nothing runs, and the
next question works."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

from core.cancellation import Cancellation
from core.config import Settings
from core.databases import open_database
from core.llm import OllamaLLM, cancellable
from core.pipeline import AskPipeline


def _db(tmp_path: Path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT);"
                           "INSERT INTO customers VALUES (1, 'Asha');")
    return open_database(str(path))


def test_stop_ends_a_slow_model_call_at_once(tmp_path: Path, fake_ollama) -> None:
    db = _db(tmp_path)
    fake_ollama.chat_delay_s = 10.0
    llm = OllamaLLM(fake_ollama.url, "qwen2.5-coder:7b", timeout_s=60)
    pipeline = AskPipeline(db, llm, Settings())
    cancel = Cancellation()
    threading.Timer(0.5, cancel.cancel).start()
    started = time.monotonic()
    with cancellable(cancel):
        answer = pipeline.ask("How many customers?", cancel=cancel)
    took = time.monotonic() - started
    assert took < 1.0, took  # Stop at 0.5 s; the call ended within half a second of it
    assert not answer.ok and answer.error_kind == "QueryCancelled" and answer.sql is None
    fake_ollama.chat_delay_s = 0.0
    fake_ollama.enqueue_chat("SELECT COUNT(*) FROM customers")
    assert pipeline.ask("How many customers?").rows == ((1,),)  # the next question works
    llm.close()
    db.close()


def test_a_call_outside_a_stop_scope_is_not_affected(tmp_path: Path, fake_ollama) -> None:
    fake_ollama.enqueue_chat("SELECT 1")
    llm = OllamaLLM(fake_ollama.url, "qwen2.5-coder:7b", timeout_s=10)
    assert llm.chat("system", "user") == "SELECT 1"
    cancelled = Cancellation()
    cancelled.cancel()
    fake_ollama.enqueue_chat("SELECT 2")
    with cancellable(cancelled):
        try:
            llm.chat("system", "user")
        except Exception as exc:  # noqa: BLE001
            assert type(exc).__name__ == "QueryCancelled"
        else:
            raise AssertionError("a call after Stop must not run")
    llm.close()


def test_stop_ends_a_streaming_model_call_within_half_a_second(tmp_path: Path, fake_ollama) -> None:
    """A model that streams a chunk every 0.2 s for 10 s: Stop after 0.5 s ends the call within 0.5 s of it, the
    server sees the request closed, and the next question works."""
    from core.llm import token_progress

    db = _db(tmp_path)
    fake_ollama.chat_chunk_delay_s = 0.2
    fake_ollama.enqueue_chat("SELECT 1" + " + 1" * 24)  # 50 chunks
    llm = OllamaLLM(fake_ollama.url, "qwen2.5-coder:7b", timeout_s=60)
    pipeline = AskPipeline(db, llm, Settings())
    cancel = Cancellation()
    counts: list[int] = []
    threading.Timer(0.5, cancel.cancel).start()
    started = time.monotonic()
    with cancellable(cancel), token_progress(counts.append):
        answer = pipeline.ask("How many customers?", cancel=cancel)
    took = time.monotonic() - started
    assert took < 1.0, took
    assert not answer.ok and answer.error_kind == "QueryCancelled" and answer.sql is None
    assert 1 <= len(counts) < 10  # the reply was streaming when Stop came
    assert fake_ollama.chat_requests()[0]["stream"] is True
    deadline = time.monotonic() + 3
    while fake_ollama.cancelled_streams == 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert fake_ollama.cancelled_streams == 1  # the server saw the request closed
    fake_ollama.chat_chunk_delay_s = 0.0
    fake_ollama.enqueue_chat("SELECT COUNT(*) FROM customers")
    assert pipeline.ask("How many customers?").rows == ((1,),)
    llm.close()
    db.close()
