"""Odd input never crashes Cairn: empty, huge, control characters, bidi overrides, emoji, other languages.

Through AskPipeline, the Assistant (with a JSON memory store) and the CLI: each case gets an answer or a
clear message with a hint, garbage stores nothing, and the exit codes are the documented ones.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from core.answer import Answer

HUGE = "How many customers are there? " + "x" * 100_000
GARBAGE = {  # nothing to answer: an InputError with a hint, nothing stored
    "empty": "",
    "whitespace": " \t\n \r\n  ",
    "nul": "\x00\x00\x00",
    "escape only": "\x1b\x1b\x07\x08",
    "bidi only": "\u202e\u202d\u2066\u2069\u200f",
    "control mix": "\x00 \x1b \u202e \t",
}
ODD = {  # a real question with odd characters around it: answered (or refused with a hint), never a crash
    "nul inside": "How many\x00 customers are there?",
    "ansi escape": "\x1b[31mHow many customers\x1b[0m are there?\x1b[2J",
    "bidi override": "\u202eHow many customers are there?\u202c",
    "zero width": "How\u200b many\u200d customers\ufeff are there?",
    "mixed scripts": "How many customers (клиенты, 客户, ग्राहक) are there?",
    "emoji": "🛒 How many customers are there? 🎉👩‍💻",
    "emoji only": "🎉🎉🎉",
    "hindi": "कितने ग्राहक हैं?",
    "german": "Wie viele Kunden gibt es?",
    "chinese": "有多少客户？",
    "arabic": "كم عدد العملاء؟",
    "lone surrogate": "How many customers \ud800 are there?",
    "sql-looking": "'; DROP TABLE customers; --",
}
_BAD_CHARS = ("\x00", "\x1b", "\u202e", "\u202d", "\u2066")


class EchoModel:
    """A stand-in model: SQL for SQL prompts, NONE for extraction; keeps every prompt it was sent."""

    model = "echo"

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def chat(self, system: str, user: str, *, options: Mapping[str, Any] | None = None,
             format: Any = None) -> str:  # noqa: A002
        if format is not None:
            return ""  # no structured output: the rules' reading stands
        self.prompts.append(system + user)
        if system.startswith("You extract"):
            return "NONE"
        return "SELECT count(*) AS n FROM customers"


@pytest.fixture
def assistant(sample_db_uri: str, tmp_path: Path) -> Any:
    from core.assistant import Assistant
    from core.databases import open_database
    from core.memory import MemoryBank
    from core.memory import JsonMemoryStore
    from core.pipeline import AskPipeline
    from tests.fakes.fake_embedder import FakeEmbedder

    pipeline = AskPipeline(open_database(sample_db_uri), EchoModel())
    store, embedder = JsonMemoryStore(tmp_path / "memory"), FakeEmbedder()
    yield Assistant(pipeline, store, embedder, MemoryBank(store, embedder, tmp_path / "journal"))
    pipeline.database.close()


def assert_clear(answer: Answer) -> None:
    assert answer.ok or (answer.error and answer.hint), answer


# -- the pipeline --------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", list(GARBAGE.values()), ids=list(GARBAGE))
def test_pipeline_refuses_garbage_with_a_hint(assistant: Any, text: str) -> None:
    answer = assistant.pipeline.ask(text)
    assert answer.error_kind == "InputError" and "empty" in answer.error.lower() and answer.hint
    assert assistant.pipeline.llm.prompts == []


def test_pipeline_refuses_100_kb_with_the_limit(assistant: Any) -> None:
    answer = assistant.pipeline.ask(HUGE)
    assert answer.error_kind == "InputError" and "limit" in answer.error and answer.hint
    assert assistant.pipeline.llm.prompts == []


@pytest.mark.parametrize("text", list(ODD.values()), ids=list(ODD))
def test_pipeline_answers_odd_text_and_cleans_the_prompt(assistant: Any, text: str) -> None:
    answer = assistant.pipeline.ask(text)
    assert_clear(answer)
    assert answer.ok and answer.rows == ((600,),)
    prompts = assistant.pipeline.llm.prompts
    assert prompts and not any(c in p for p in prompts for c in _BAD_CHARS)
    json.dumps(answer.to_json())  # serialisable, even with a lone surrogate in the question


# -- the assistant and its memory ----------------------------------------------------------------------


@pytest.mark.parametrize("text", [*GARBAGE.values(), HUGE], ids=[*GARBAGE, "100 KB"])
def test_assistant_stores_nothing_for_garbage(assistant: Any, text: str) -> None:
    reply = assistant.handle("priya", text)
    assert reply.error and reply.hint and not reply.changes
    assert assistant.store.list("priya") == []
    assert not assistant.conversation.has_history("priya")


@pytest.mark.parametrize("text", list(ODD.values()), ids=list(ODD))
def test_assistant_answers_odd_text_without_learning_garbage(assistant: Any, text: str) -> None:
    reply = assistant.handle("priya", text)
    assert reply.answer is not None or reply.text, reply
    if reply.answer is not None:
        assert_clear(reply.answer)
    for memory in assistant.store.list("priya"):
        assert not any(c in memory.content for c in _BAD_CHARS)


def test_memory_statement_with_control_characters_is_stored_clean(assistant: Any) -> None:
    reply = assistant.handle("priya", "\u202eAlways show me customers from India\x00\x1b[2J")
    assert reply.changes and not reply.error
    [memory] = assistant.store.list("priya")
    assert "India" in memory.content and not any(c in memory.content for c in _BAD_CHARS)


def test_overlong_memory_statement_is_refused_or_kept_within_the_limit(assistant: Any) -> None:
    text = "Always show me customers from India " + "and remember this detail " * 150  # ~3.8 KB < 4,000
    reply = assistant.handle("priya", text)
    stored = assistant.store.list("priya")
    assert all(len(m.content) <= 2000 for m in stored), [len(m.content) for m in stored]
    assert stored or (reply.error and reply.hint)


def test_bank_rejects_overlong_and_empty_memories_with_a_hint(assistant: Any) -> None:
    from core.errors import InputError

    for content in ("x" * 2001, "x" * 100_000, "   ", "\x00\x00"):
        with pytest.raises(InputError) as err:
            assistant.bank.add("priya", "preference", content)
        assert err.value.hint
    assert assistant.store.list("priya") == []


# -- the command line ----------------------------------------------------------------------------------


def cairn(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    data = Path(os.environ["CAIRN_DATA_DIR"])
    data.mkdir(parents=True, exist_ok=True)
    (data / "settings.json").write_text(json.dumps({"memory_store": "json"}))
    return subprocess.run([sys.executable, "-m", "core.cli", *args], capture_output=True, text=True,
                          env=dict(os.environ), timeout=timeout)


def test_cli_exit_codes_for_odd_questions(sample_db_uri: str) -> None:
    procs = {
        "empty": cairn("ask", "", "--db", sample_db_uri),
        "whitespace": cairn("ask", " \t ", "--db", sample_db_uri),
        "control only": cairn("ask", "\x1b\x07 \u202e", "--db", sample_db_uri, "--json"),
        "100 KB": cairn("ask", HUGE, "--db", sample_db_uri, "--json"),
        "escape inside": cairn("ask", "\x1b[2JHow many customers are there?", "--db", sample_db_uri),
        "german": cairn("ask", "Wie viele Kunden gibt es?", "--db", sample_db_uri, "--json"),
    }
    codes = {name: p.returncode for name, p in procs.items()}
    assert codes["empty"] == codes["whitespace"] == codes["control only"] == codes["100 KB"] == 2, codes
    assert codes["escape inside"] == 0 and codes["german"] in (0, 1), codes
    for name, proc in procs.items():
        assert "Traceback" not in proc.stderr, f"{name}: {proc.stderr[-1500:]}"
        if proc.returncode:
            assert "Hint:" in proc.stderr or json.loads(proc.stdout)["hint"], name
    assert "\x1b" not in procs["escape inside"].stdout  # nothing of the escape sequence reaches the terminal
    assert json.loads(procs["100 KB"].stdout)["error_kind"] == "InputError"


def test_cli_batch_with_a_100_kb_line(sample_db_uri: str, tmp_path: Path) -> None:
    batch = tmp_path / "batch.jsonl"
    lines = [{"id": 1, "question": "How many customers are there?"}, {"id": 2, "question": HUGE},
             {"id": 3, "question": "\x00\u202e"}, {"id": 4, "question": "有多少客户？"}]
    batch.write_text("\n".join(json.dumps(item) for item in lines) + "\n")
    out = tmp_path / "answers.jsonl"
    proc = cairn("ask", "--batch", str(batch), "--db", sample_db_uri, "--out", str(out))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    answers = {a["id"]: a for a in map(json.loads, out.read_text().splitlines())}
    assert answers[1]["rows"] == [[600]]
    assert answers[2]["error_kind"] == "InputError" and answers[2]["hint"]
    assert answers[3]["error_kind"] == "InputError" and answers[4]["hint"] or answers[4]["rows"] is not None
    assert len(answers[2]["question"]) <= 100_100  # echoed once, not multiplied


def test_cli_overlong_and_odd_user_names_are_rejected_with_a_hint(sample_db_uri: str) -> None:
    long_name = "u" * 201
    for args in (("ask", "How many customers are there?", "--db", sample_db_uri, "--user", long_name),
                 ("memory", "list", "--user", long_name),
                 ("memory", "add", "--user", "x" * 100_000, "preference", "Only show customers from India"),
                 ("memory", "list", "--user", "   "),
                 ("memory", "list", "--user", "pri\x1bya")):
        proc = cairn(*args)
        assert proc.returncode == 2 and "Hint:" in proc.stderr and "Traceback" not in proc.stderr, (args[:2],
                                                                                                     proc.stderr)
        assert len(proc.stderr) < 1000  # the name is not echoed back in full
    proc = cairn("memory", "add", "--user", "priya", "preference", "x" * 5000)
    assert proc.returncode == 2 and "2,000" in proc.stderr and "Hint:" in proc.stderr
