"""``cairn insights …`` and the ``suggestions`` of ``cairn ask --json`` as a person runs them: real subprocesses,
two agents (two data folders) sharing one insights folder, a real SQLite file, the real MiniLM, the fake Ollama."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from core.config import Settings
from tests.fakes.analyst_model import analyst_model

A_QUESTION = "What is the revenue by country?"
B_QUESTION = "Which countries bring in the most revenue?"
SQL = {"revenue": "SELECT country, SUM(total) AS revenue FROM invoices GROUP BY country ORDER BY revenue DESC"}
FOLLOWUPS = ["How has revenue by country changed from month to month?",
             "Which countries have the highest average invoice total?"]
SUMMARY = {"worth_sharing": True,
           "insight_summary": "Revenue was compared across countries to see which markets bring in the most.",
           "entities": ["table:invoices", "column:invoices.country"], "suggested_followups": FOLLOWUPS}
SUGGESTION_KEYS = {"text", "record_id", "agent_id", "author", "db_kind", "similarity"}


class Model:
    """SQL for SQL prompts; for the summary call, A's question is worth sharing, others are not."""

    def __init__(self) -> None:
        self.sql = analyst_model(SQL)
        self.summary_delay_s = 0.0
        self.summary_at: list[float] = []

    def __call__(self, body: dict[str, Any]) -> str:
        if not body["messages"][0]["content"].startswith("You write a short, redacted note"):
            return self.sql(body)
        self.summary_at.append(time.monotonic())
        time.sleep(self.summary_delay_s)
        worth = "revenue by country" in body["messages"][-1]["content"]
        return json.dumps(SUMMARY if worth else {**SUMMARY, "worth_sharing": False})


@pytest.fixture
def world(tmp_path: Path, fake_ollama) -> dict[str, Any]:
    db = tmp_path / "shop.sqlite"
    with sqlite3.connect(db) as conn:
        conn.executescript("""
            CREATE TABLE invoices (invoice_id INTEGER PRIMARY KEY, country TEXT NOT NULL, total REAL NOT NULL);
            INSERT INTO invoices VALUES (1, 'Poland', 120.5), (2, 'Japan', 80.0), (3, 'Poland', 42.25);
        """)
    conn.close()
    model = Model()
    fake_ollama.default_chat = model
    folder = tmp_path / "team-share"
    return {"db": str(db), "folder": folder, "model": model, "tmp": tmp_path, "url": fake_ollama.url}


def profile(world: dict[str, Any], name: str, **settings: Any) -> dict[str, str]:
    """A data folder with its own settings.json: one agent."""
    home = world["tmp"] / f"profile-{name}"
    home.mkdir(exist_ok=True)
    Settings(memory_store="json", **settings).save(home / "settings.json")
    # A cold start loads MiniLM while the answer is made; on a busy test machine that can outlast the default wait.
    return {"CAIRN_DATA_DIR": str(home), "OLLAMA_HOST": world["url"], "CAIRN_SUGGESTIONS_WAIT_S": "120"}


def sharing(world: dict[str, Any], name: str, **more: Any) -> dict[str, str]:
    return profile(world, name, sharing_enabled=True, agent_id=name, insight_url=str(world["folder"]), **more)


def cairn(env: dict[str, str], *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core.cli", *args], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=timeout)


def ask_json(env: dict[str, str], world: dict[str, Any], question: str) -> dict[str, Any]:
    proc = cairn(env, "ask", question, "--db", world["db"], "--json")
    assert proc.returncode == 0, proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    assert out["error"] is None and out["rows"]
    return out


def test_two_agents_share_through_the_cli_and_manage_their_insights(world: dict[str, Any]) -> None:
    a, b = sharing(world, "agent-a"), sharing(world, "agent-b")
    first = ask_json(a, world, A_QUESTION)
    assert first["suggestions"] == []  # nothing shared yet

    listed = cairn(a, "insights", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    [record] = json.loads(listed.stdout)["records"]
    assert record["agent_id"] == "agent-a" and record["db_kind"] == "sqlite" and "vector" not in record
    assert record["embedding_model"] == "all-MiniLM-L6-v2" and record["suggested_followups"] == FOLLOWUPS
    assert "Poland" not in listed.stdout and "SELECT" not in listed.stdout

    out = ask_json(b, world, B_QUESTION)  # B's own answer is not worth sharing (the fake model says so)
    [suggested] = [s["text"] for s in out["suggestions"]]  # one follow-up per record: no record fills the list
    assert suggested in FOLLOWUPS
    assert all(set(s) == SUGGESTION_KEYS and s["agent_id"] == "agent-a" and s["db_kind"] == "sqlite"
               and s["record_id"] == record["record_id"] and 0.45 <= s["similarity"] <= 1 for s in out["suggestions"])
    from core.insights._share import key_fingerprint

    assert all(s["author"] == key_fingerprint(record["author_key"]) for s in out["suggestions"])  # the signer

    query = cairn(b, "insights", "query", B_QUESTION)
    assert query.returncode == 0 and suggested in query.stdout and "agent-a" in query.stdout

    # A's record is signed with A's key: B cannot change it, and an agent claiming A's id is not A
    not_theirs = cairn(b, "insights", "invalidate", suggested, "--record", record["record_id"])
    assert not_theirs.returncode == 1 and "No follow-up question of this agent's" in not_theirs.stdout
    impostor = profile(world, "impostor", sharing_enabled=True, agent_id="agent-a",  # A's label, not A's key
                       insight_url=str(world["folder"]))
    assert json.loads(cairn(impostor, "insights", "list", "--json").stdout)["records"] == []
    assert json.loads(cairn(impostor, "insights", "purge", "--mine", "--yes", "--json").stdout)["deleted"] == 0
    assert cairn(impostor, "insights", "invalidate", suggested).returncode == 1

    invalidate = cairn(a, "insights", "invalidate", suggested.upper(), "--record", record["record_id"])
    assert invalidate.returncode == 0 and "Removed 1 follow-up" in invalidate.stdout
    assert cairn(a, "insights", "invalidate", suggested).returncode == 1  # gone already
    [after] = json.loads(cairn(a, "insights", "list", "--json").stdout)["records"]
    assert after["suggested_followups"] == [f for f in FOLLOWUPS if f != suggested]
    assert after["insight_summary"] == SUMMARY["insight_summary"]
    [next_one] = [s["text"] for s in ask_json(b, world, B_QUESTION)["suggestions"]]
    assert next_one in FOLLOWUPS and next_one != suggested  # the record's other follow-up, once the first is gone

    purge = cairn(a, "insights", "purge")
    assert purge.returncode == 0 and "Removed 0 expired" in purge.stdout
    refused = cairn(a, "insights", "purge", "--mine")
    assert refused.returncode == 2 and "--yes" in refused.stderr
    assert json.loads(cairn(b, "insights", "purge", "--mine", "--yes", "--json").stdout)["deleted"] == 0
    assert json.loads(cairn(a, "insights", "purge", "--mine", "--yes", "--json").stdout)["deleted"] == 1
    assert json.loads(cairn(a, "insights", "list", "--json").stdout)["records"] == []


def test_ask_json_always_carries_suggestions(world: dict[str, Any]) -> None:
    off = profile(world, "off")  # sharing off, the default
    out = ask_json(off, world, A_QUESTION)
    assert out["suggestions"] == []
    assert not world["folder"].exists() and world["model"].summary_at == []  # nothing shared, no summary call

    failed = cairn(off, "ask", "Which artists sound happiest?", "--db", str(world["tmp"] / "missing.sqlite"),
                   "--json")
    assert failed.returncode != 0 and json.loads(failed.stdout)["suggestions"] == []


def test_a_store_that_is_down_is_one_stderr_line_and_the_exit_code_stays(world: dict[str, Any]) -> None:
    blocker = world["tmp"] / "a-file"
    blocker.write_text("not a folder")
    down = profile(world, "down", sharing_enabled=True, agent_id="down", insight_url=str(blocker / "share"))
    started = time.perf_counter()
    proc = cairn(down, "ask", A_QUESTION, "--db", world["db"], "--json")
    elapsed = time.perf_counter() - started
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["error"] is None and out["rows"] and out["suggestions"] == []
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Shared insights:") and "not affected" in lines[0], proc.stderr
    print(f"cairn ask --json with the shared store down: {elapsed:.1f}s")


def test_the_answer_is_printed_before_the_share_starts(world: dict[str, Any]) -> None:
    env = sharing(world, "agent-a")
    world["model"].summary_delay_s = 3.0
    proc = subprocess.Popen([sys.executable, "-m", "core.cli", "ask", A_QUESTION, "--db", world["db"]],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, **env})
    assert proc.stdout is not None
    first_line = proc.stdout.readline()
    printed_at = time.monotonic()
    rest = proc.stdout.read()  # to the end: the process has closed its output
    assert proc.stderr is not None
    err = proc.stderr.read()
    proc.wait(timeout=120)
    ended_at = time.monotonic()
    assert proc.returncode == 0, err
    assert first_line.startswith("SQL (llm)") and "Poland" in rest
    [summary_at] = world["model"].summary_at
    assert printed_at < summary_at < ended_at  # the answer was out before the summary call began
    assert ended_at - printed_at >= 3.0
    print(f"answer out {ended_at - printed_at:.1f}s before the command ended (the share ran after it)")


def test_suggestions_wait_a_bounded_time_then_the_answer_goes_out_without_them(world: dict[str, Any]) -> None:
    import socket

    with socket.socket() as stalled:  # a store server that accepts the connection and never answers
        stalled.bind(("127.0.0.1", 0))
        stalled.listen(8)
        url = f"postgresql://cairn@127.0.0.1:{stalled.getsockname()[1]}/insights"
        env = profile(world, "agent-a", sharing_enabled=True, agent_id="agent-a", insight_store="pgvector",
                      insight_url=url)
        del env["CAIRN_SUGGESTIONS_WAIT_S"]  # the default: --json prints with what arrived, never waits 20 s
        started = time.monotonic()
        proc = cairn(env, "ask", A_QUESTION, "--db", world["db"], "--json")
        took = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["rows"] and out["suggestions"] == []
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "no suggestions this time" in lines[0], proc.stderr  # and no share tried after it
    assert "pgvector at postgresql://cairn@127.0.0.1" in lines[0] and "had not answered" in lines[0]  # its state
    print(f"ask with a stalled store: {took:.1f} s")


def test_ask_json_with_sharing_on_exits_0_every_time(world: dict[str, Any]) -> None:
    """The suggestion look-up may outlive the command (it is not waited for): the process still ends cleanly."""
    a, b = sharing(world, "agent-a"), sharing(world, "agent-b")
    ask_json(a, world, A_QUESTION)  # a record for B's look-ups to embed and score
    b = {**b, "CAIRN_SUGGESTIONS_WAIT_S": "0"}
    codes = []
    for _ in range(20):
        proc = cairn(b, "ask", B_QUESTION, "--db", world["db"], "--json")
        codes.append(proc.returncode)
        assert json.loads(proc.stdout)["rows"], proc.stderr
    assert codes == [0] * 20


def test_a_store_problem_is_said_on_one_line_with_what_to_do() -> None:
    from core.cli._insights_command import _reason
    from core.errors import InsightStoreError

    line = _reason(InsightStoreError("Cannot lock /x/insights.jsonl: Read-only file system.",
                                     hint="Point the shared store at a folder you can write (Settings → Sharing)."))
    assert line == ("Cannot lock /x/insights.jsonl: Read-only file system. "
                    "Point the shared store at a folder you can write (Settings → Sharing).")
    assert _reason(ValueError("plain")) == "plain"
