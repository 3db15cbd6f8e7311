"""Model calls stream (issue 13, item 2): ``OllamaLLM.chat`` asks the real ``ollama`` client for a stream from the fake
server and joins the chunks; the total deadline, Stop, error translation and the fixed options still hold, and a
bound progress callback sees the running token count."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from core.cancellation import Cancellation
from core.config import Settings
from core.databases import Database, open_database
from core.errors import LLMError, LLMTimeout, LLMUnavailable, ModelNotFound, QueryCancelled
from core.llm import OllamaLLM, cancellable, token_progress
from core.llm import _deadline
from core.pipeline import AskPipeline

MODEL = "qwen2.5-coder:7b"


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT, city TEXT);"
                           "INSERT INTO customers VALUES (1, 'Asha', 'Pune'), (2, 'Zoë', 'Oslo'), (3, 'Li', 'Oslo');")
    database = open_database(str(path))
    yield database
    database.close()


@pytest.fixture
def llm(fake_ollama) -> Iterator[OllamaLLM]:
    client = OllamaLLM(fake_ollama.url, MODEL, timeout_s=30)
    yield client
    client.close()


def _wait_for(condition: Callable[[], bool], timeout_s: float = 3.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def _helper_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "ollama-call"]


# -- the reply is streamed and joined ------------------------------------------------------------------------------


def test_the_request_streams_with_the_fixed_options_and_the_reply_is_joined_exactly(fake_ollama, llm) -> None:
    reply = "Here you go:\n```sql\nSELECT name\n  FROM customers\n WHERE city = 'Oslo'  -- Zoë, Li 🙂\n```\n"
    fake_ollama.enqueue_chat(reply)
    counts: list[int] = []
    with token_progress(counts.append):
        assert llm.chat("Write SQL.", "Who lives in Oslo?") == reply
    [body] = fake_ollama.chat_requests()
    assert body["stream"] is True and body["model"] == MODEL
    opts = body["options"]
    assert (opts["temperature"], opts["top_k"], opts["top_p"]) == (0.0, 1, 0.1)
    assert (opts["num_predict"], opts["num_ctx"], opts["repeat_penalty"]) == (400, 4096, 1.0)
    assert len(counts) > 5 and counts == list(range(1, len(counts) + 1))  # one report per chunk, in order
    assert llm.last_prompt_tokens > 0  # read from the final chunk


def test_a_multi_chunk_reply_becomes_sql_through_the_pipeline(db: Database, fake_ollama, llm) -> None:
    fake_ollama.chat_chunk_delay_s = 0.005  # each token its own write, a little apart, like a real model
    fake_ollama.enqueue_chat("```sql\nSELECT COUNT(*) AS n\nFROM customers\nWHERE city = 'Oslo'\n```")
    answer = AskPipeline(db, llm, Settings()).ask("How many customers live in Oslo?")
    assert answer.ok and answer.path == "llm" and answer.rows == ((2,),), answer
    assert "WHERE city = 'Oslo'" in (answer.sql or "")
    assert fake_ollama.chat_requests()[0]["stream"] is True


def test_a_failing_progress_display_does_not_end_the_call(fake_ollama, llm) -> None:
    fake_ollama.enqueue_chat("SELECT 1 AS one")

    def broken(count: int) -> None:
        raise RuntimeError("the display is gone")

    with token_progress(broken):
        assert llm.chat("s", "u") == "SELECT 1 AS one"


def test_the_pooled_client_is_reused_after_a_streamed_reply(fake_ollama, llm) -> None:
    for i in range(3):
        fake_ollama.enqueue_chat(f"SELECT {i}")
        assert llm.chat("s", "u") == f"SELECT {i}"
    assert len(llm._pool._idle) == 1  # one client, kept alive between calls


# -- errors ----------------------------------------------------------------------------------------------------------


def test_an_error_line_mid_stream_is_an_llm_error_with_a_hint(fake_ollama, llm) -> None:
    fake_ollama.chat_fail_after_chunks = 3
    fake_ollama.enqueue_chat("SELECT name FROM customers WHERE city = 'Oslo'")
    with pytest.raises(LLMError) as info:
        llm.chat("s", "u")
    error = info.value
    assert type(error) is LLMError  # not ModelNotFound, not LLMUnavailable
    assert "llama runner process has terminated" in error.message
    assert "mid-reply" in error.hint and "Traceback" not in error.hint
    fake_ollama.chat_fail_after_chunks = None
    fake_ollama.enqueue_chat("SELECT 2")
    assert llm.chat("s", "u") == "SELECT 2"  # the same client answers the next call


def test_a_model_not_pulled_is_still_model_not_found(fake_ollama) -> None:
    missing = OllamaLLM(fake_ollama.url, "llama3:70b", timeout_s=5)
    with pytest.raises(ModelNotFound) as info:
        missing.chat("s", "u")
    assert "ollama pull llama3:70b" in info.value.hint
    missing.close()


def test_ollama_down_is_still_unavailable() -> None:
    down = OllamaLLM("http://127.0.0.1:9", MODEL, timeout_s=5)
    with pytest.raises(LLMUnavailable):
        down.chat("s", "u")
    down.close()


# -- the total deadline and Stop on a stream ---------------------------------------------------------------------------


@pytest.mark.parametrize("trickle", ["chunks", "bytes"])
def test_the_total_deadline_fires_on_a_stream_that_trickles_forever(fake_ollama, trickle: str) -> None:
    if trickle == "chunks":
        fake_ollama.chat_chunk_delay_s = 0.1  # a whole chunk every 0.1 s, for 100 s
    else:
        fake_ollama.chat_drip_s = 0.02  # one byte of NDJSON every 0.02 s
    fake_ollama.enqueue_chat("SELECT 1" + " + 1" * 999)
    slow = OllamaLLM(fake_ollama.url, MODEL, timeout_s=0.6)
    counts: list[int] = []
    started = time.monotonic()
    with token_progress(counts.append), pytest.raises(LLMTimeout) as info:
        slow.chat("s", "u")
    took = time.monotonic() - started
    assert 0.55 < took < 1.5, took
    assert "0.6 s in total" in info.value.message and info.value.hint
    if trickle == "chunks":
        assert counts  # the stream was flowing, each chunk in time for a per-read timeout
    assert _wait_for(lambda: fake_ollama.cancelled_streams == 1)  # the server saw the request closed
    fake_ollama.chat_chunk_delay_s = fake_ollama.chat_drip_s = 0.0
    fake_ollama.enqueue_chat("SELECT 3")
    assert slow.chat("s", "u") == "SELECT 3"  # a fresh client for the next call
    slow.close()


def test_stop_between_chunks_ends_the_stream_even_when_the_cut_is_late(fake_ollama, llm, monkeypatch) -> None:
    """Cutting the socket does nothing here (as if it came late): the helper thread sees Stop at the next chunk,
    closes the stream itself and ends."""
    monkeypatch.setattr(_deadline.Lease, "cut", lambda self: None)
    fake_ollama.chat_chunk_delay_s = 0.2
    fake_ollama.enqueue_chat("SELECT 1" + " + 1" * 24)  # 50 chunks, 10 s
    cancel = Cancellation()
    threading.Timer(0.5, cancel.cancel).start()
    started = time.monotonic()
    with cancellable(cancel), pytest.raises(QueryCancelled):
        llm.chat("s", "u")
    assert time.monotonic() - started < 1.0
    assert _wait_for(lambda: fake_ollama.cancelled_streams == 1)  # the stream was closed by the helper thread
    assert _wait_for(lambda: not _helper_threads())
