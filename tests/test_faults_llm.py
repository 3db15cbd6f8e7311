"""Ollama faults through the real OllamaLLM + AskPipeline (and the CLI): each gives a clear note or error with a
hint, never a traceback, and the same process answers the next question.

Faults: down (closed port), slow past the timeout, prose without SQL, empty, a 2 MB reply, HTTP 500, a model
not pulled, a reply cut mid-body, a server that is not Ollama (HTML, JSON of another shape).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from core.config import Settings
from core.databases import open_database
from core.databases import Database
from core.llm import OllamaLLM
from core.pipeline import AskPipeline
from tests.conftest import shared_data_path

QUESTION = "How many artists are there?"  # the rule-based fallback understands this one
UNANSWERABLE = "Which artists sound happiest?"  # ...and not this one
GOOD_SQL = "SELECT COUNT(*) AS n FROM Artist"
MODEL = "qwen2.5-coder:7b"


@pytest.fixture
def chinook(tmp_path: Path) -> Path:
    target = tmp_path / "chinook.sqlite"
    shutil.copy(shared_data_path("chinook", "Chinook_Sqlite.sqlite"), target)
    return target


@pytest.fixture
def db(chinook: Path) -> Iterator[Database]:
    database = open_database(str(chinook))
    yield database
    database.close()


def _pipeline(db: Database, host: str, *, timeout_s: float = 5.0, model: str = MODEL) -> AskPipeline:
    return AskPipeline(db, OllamaLLM(host, model, timeout_s=timeout_s), Settings(repair_rounds=1))


def _survives(pipe: AskPipeline, expect_note: str) -> None:
    """The faulty turn fell back with a note naming the fault; the fallback answered."""
    answer = pipe.ask(QUESTION)
    assert answer.ok, answer
    assert answer.path == "fallback" and answer.rows == ((275,),)
    joined = " ".join(answer.notes)
    assert expect_note.lower() in joined.lower(), joined
    assert "Traceback" not in joined


def _answers_next(pipe: AskPipeline) -> None:
    answer = pipe.ask(QUESTION)
    assert answer.ok and answer.path == "llm" and answer.rows == ((275,),), answer


# -- faults of a real (fake) Ollama server -------------------------------------------------------------


def test_ollama_down_falls_back_with_the_start_hint(db: Database, fake_ollama) -> None:
    pipe = _pipeline(db, "http://127.0.0.1:9")
    _survives(pipe, "ollama serve")
    fake_ollama.enqueue_chat(GOOD_SQL)
    _answers_next(_pipeline(db, fake_ollama.url))


def test_ollama_slower_than_the_timeout(db: Database, fake_ollama) -> None:
    fake_ollama.chat_delay_s = 1.5
    pipe = _pipeline(db, fake_ollama.url, timeout_s=0.3)
    _survives(pipe, "did not answer in time")
    fake_ollama.chat_delay_s = 0.0
    fake_ollama.enqueue_chat(GOOD_SQL)
    _answers_next(pipe)


@pytest.mark.parametrize(
    ("name", "replies", "note"),
    [
        ("prose", ["I am sorry, I cannot help with that request.", "As I said, I cannot."], "still failed"),
        ("empty", ["", "", "", ""], "still failed"),
        ("huge prose", ["word " * 400_000, "word " * 400_000], "still failed"),
    ],
)
def test_useless_replies_fall_back(db: Database, fake_ollama, name: str, replies: list[str], note: str) -> None:
    pipe = _pipeline(db, fake_ollama.url)
    for reply in replies:
        fake_ollama.enqueue_chat(reply)
    _survives(pipe, note)
    fake_ollama.enqueue_chat(GOOD_SQL)
    _answers_next(pipe)


def test_huge_reply_with_sql_in_it_is_used(db: Database, fake_ollama) -> None:
    fake_ollama.enqueue_chat(GOOD_SQL + "\n-- " + "x" * 2_000_000)
    _answers_next(_pipeline(db, fake_ollama.url))


def test_useless_replies_to_an_unanswerable_question_say_so(db: Database, fake_ollama) -> None:
    fake_ollama.enqueue_chat("I don't know.")
    fake_ollama.enqueue_chat("Still no idea.")
    answer = _pipeline(db, fake_ollama.url).ask(UNANSWERABLE)
    assert not answer.ok and answer.error_kind == "NoAnswer" and answer.hint


@pytest.mark.parametrize("message", ["llama runner process has terminated", "model requires more system memory"])
def test_http_500_falls_back_with_the_servers_message(db: Database, fake_ollama, message: str) -> None:
    fake_ollama.enqueue_error(500, message)
    pipe = _pipeline(db, fake_ollama.url)
    _survives(pipe, message)
    fake_ollama.enqueue_chat(GOOD_SQL)
    _answers_next(pipe)


def test_model_not_pulled_names_the_pull_command(db: Database, fake_ollama) -> None:
    _survives(_pipeline(db, fake_ollama.url, model="llama3:70b"), "ollama pull llama3:70b")
    fake_ollama.enqueue_chat(GOOD_SQL)
    _answers_next(_pipeline(db, fake_ollama.url))


# -- faults below HTTP: a scripted raw socket server ---------------------------------------------------


def _chat_ok(content: str) -> bytes:
    body = json.dumps({"model": MODEL, "created_at": "2025-01-01T00:00:00Z",
                       "message": {"role": "assistant", "content": content}, "done": True}).encode()
    return b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)


class RawServer:
    """Answers each connection with the next scripted bytes (then a good reply), then closes it."""

    def __init__(self, *payloads: bytes) -> None:
        self.payloads: deque[bytes] = deque(payloads)
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.05)
        self.stopping = threading.Event()
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            conn.settimeout(5)
            with conn:
                conn.recv(1 << 20)
                payload = self.payloads.popleft() if self.payloads else _chat_ok(GOOD_SQL)
                if payload:
                    conn.sendall(payload)

    def close(self) -> None:
        self.stopping.set()
        self.thread.join(5)
        self.sock.close()


def _json_200(body: bytes, ctype: bytes = b"application/json") -> bytes:
    return b"HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n%s" % (ctype, len(body), body)


RAW_FAULTS: dict[str, tuple[bytes, str]] = {
    "cut mid-body": (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n"
                     b'{"model": "x", "message": {"role": "assis', "closed the connection"),
    "cut mid-chunk": (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                      b'40\r\n{"model": "x", "mess', "closed the connection"),
    "closed without a reply": (b"", "closed the connection"),
    "HTML page": (_json_200(b"<html><body>It works!</body></html>", b"text/html"), "not an Ollama answer"),
    "JSON of another shape": (_json_200(b'{"status": "ok"}'), "not an Ollama answer"),
    "JSON list": (_json_200(b"[]"), "not an Ollama answer"),
    "502 from a proxy": (b"HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/html\r\nContent-Length: 11\r\n\r\n"
                         b"Bad Gateway", "Bad Gateway"),
}


@pytest.mark.parametrize("name", list(RAW_FAULTS))
def test_broken_or_foreign_replies_fall_back_and_the_next_question_works(db: Database, name: str) -> None:
    payload, note = RAW_FAULTS[name]
    server = RawServer(payload)
    try:
        pipe = _pipeline(db, server.url)
        _survives(pipe, note)
        _answers_next(pipe)  # the same client, after the broken connection
    finally:
        server.close()


# -- the command line: exit codes from core/cli/_commands.py, never a traceback --------------------------------------


def _cairn(*args: str, env: dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "core.cli", *args], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=timeout)


def _settings(data_dir: Path, **values: object) -> dict[str, str]:
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "settings.json").write_text(json.dumps(values), encoding="utf-8")
    return {"CAIRN_DATA_DIR": str(data_dir)}


@pytest.mark.slow
def test_cli_exit_codes_for_ollama_faults(chinook: Path, tmp_path: Path, fake_ollama) -> None:
    env = {"OLLAMA_HOST": "http://127.0.0.1:9"}
    down = _cairn("ask", QUESTION, "--db", str(chinook), env=env)
    assert down.returncode == 0 and "ollama serve" in down.stdout and "Traceback" not in down.stderr
    down = _cairn("ask", UNANSWERABLE, "--db", str(chinook), env=env)
    assert down.returncode == 1 and "Hint:" in down.stderr and "Traceback" not in down.stderr

    missing = _cairn("ask", UNANSWERABLE, "--db", str(chinook), "--model", "llama3:70b", "--json",
                     env={"OLLAMA_HOST": fake_ollama.url})
    out = json.loads(missing.stdout)
    assert missing.returncode == 1 and "ollama pull llama3:70b" in " ".join(out["notes"])
    assert out["error"] and out["hint"] and "Traceback" not in missing.stderr

    fake_ollama.chat_delay_s = 3.0
    slow = _cairn("ask", QUESTION, "--db", str(chinook), "--json",
                  env={"OLLAMA_HOST": fake_ollama.url, **_settings(tmp_path / "slow", llm_timeout_s=0.5)})
    fake_ollama.chat_delay_s = 0.0
    out = json.loads(slow.stdout)
    assert slow.returncode == 0 and out["path"] == "fallback" and "in time" in " ".join(out["notes"])

    foreign = RawServer(_json_200(b"<html></html>", b"text/html"))
    try:
        html = _cairn("ask", UNANSWERABLE, "--db", str(chinook), env={"OLLAMA_HOST": foreign.url})
    finally:
        foreign.close()
    assert html.returncode == 1 and "not an Ollama answer" in html.stdout + html.stderr
    assert "Traceback" not in html.stderr


def test_cli_batch_keeps_answering_after_each_fault(chinook: Path, tmp_path: Path, fake_ollama) -> None:
    """One process, one pipeline: 500, prose, empty (asked twice), 2 MB of prose, then a good reply."""
    fake_ollama.enqueue_error(500, "llama runner process has terminated")
    script: list[str | Callable[[dict[str, object]], str]] = ["Sorry, no idea.", "", "", "word " * 400_000, GOOD_SQL]
    for reply in script:
        fake_ollama.enqueue_chat(reply)
    batch = tmp_path / "batch.jsonl"
    batch.write_text("".join(json.dumps({"id": i, "question": QUESTION}) + "\n" for i in range(5)))
    env = {"OLLAMA_HOST": fake_ollama.url, **_settings(tmp_path / "data", repair_rounds=0)}
    proc = _cairn("ask", "--batch", str(batch), "--db", str(chinook), env=env)
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    assert [x["path"] for x in lines] == ["fallback", "fallback", "fallback", "fallback", "llm"]
    assert all(x["rows"] == [[275]] for x in lines)


# -- faults of a streamed reply (issue 13, item 2: model calls stream) ---------------------------------------------------


def test_an_error_mid_stream_falls_back_with_the_servers_message(db: Database, fake_ollama) -> None:
    fake_ollama.chat_fail_after_chunks = 2
    fake_ollama.chat_fail_message = "llama runner process has terminated: CUDA out of memory"
    fake_ollama.enqueue_chat(GOOD_SQL)  # two of its chunks arrive, then the error line
    pipe = _pipeline(db, fake_ollama.url)
    _survives(pipe, "CUDA out of memory")
    fake_ollama.chat_fail_after_chunks = None
    fake_ollama.enqueue_chat(GOOD_SQL)
    _answers_next(pipe)


def _ndjson_stream(*lines: bytes, end: bool = True) -> bytes:
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n"
    body = b"".join(b"%x\r\n%s\r\n" % (len(line), line) for line in lines)
    return head + body + (b"0\r\n\r\n" if end else b"")


_PIECE = b'{"model": "x", "message": {"role": "assistant", "content": "SELECT COUNT(*) "}, "done": false}\n'
STREAM_FAULTS: dict[str, tuple[bytes, str]] = {
    "ended before the final chunk": (_ndjson_stream(_PIECE), "closed the connection"),
    "cut mid-line": (_ndjson_stream(_PIECE, _PIECE[:30], end=False), "closed the connection"),
    "error line": (_ndjson_stream(_PIECE, b'{"error": "unexpected EOF"}\n'), "unexpected EOF"),
    "a line that is not JSON": (_ndjson_stream(_PIECE, b"<html>\n"), "not an Ollama answer"),
    "a JSON list line": (_ndjson_stream(b"[]\n"), "not an Ollama answer"),
}


@pytest.mark.parametrize("name", list(STREAM_FAULTS))
def test_broken_streams_fall_back_and_the_next_question_works(db: Database, name: str) -> None:
    payload, note = STREAM_FAULTS[name]
    server = RawServer(payload)
    try:
        pipe = _pipeline(db, server.url)
        _survives(pipe, note)
        _answers_next(pipe)
    finally:
        server.close()
