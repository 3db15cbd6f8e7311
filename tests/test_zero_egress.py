"""Nothing leaves the machine: a whole session under a guard that refuses any non-loopback connection.

The guard (tests/egress_guard) is a ``sys.addaudithook`` on socket connects, UDP sends and name lookups plus
a check on every libpq connection; it runs in this process and, through ``sitecustomize.py`` on PYTHONPATH,
in every child, which log each attempt for the test to read. Unix sockets and 127.0.0.0/8 / ::1 are fine.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.egress_guard.cairn_egress_guard import (
    TELEMETRY_MODULES,
    EgressBlocked,
    install,
    is_local_address,
    read_log,
)
from tests.fakes.analyst_model import analyst_model

REPO = Path(__file__).resolve().parents[1]
GUARD_DIR = REPO / "tests" / "egress_guard"
SQL = {
    "how many customers": "SELECT count(*) AS n FROM customers",
    "wholesale customers": "SELECT name, city, country FROM customers WHERE segment = 'wholesale'",
    "nonexistent widget": "SELECT * FROM widgets",
}
FACTS = {"customers from india": "[PREFERENCE] Only show customers from India"}


@pytest.fixture
def guarded_env(tmp_path: Path, fake_ollama: Any) -> dict[str, str]:
    """Environment for a child: guard armed, its own data dir, the fake Ollama, no keyring daemon."""
    fake_ollama.default_chat = analyst_model(SQL, FACTS)
    env = dict(os.environ)
    env.update({
        "PYTHONPATH": os.pathsep.join([str(GUARD_DIR), str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
        "CAIRN_EGRESS_LOG": str(tmp_path / "egress.jsonl"),
        "CAIRN_EGRESS_ARMED": "1",
        "CAIRN_DATA_DIR": str(tmp_path / "data"),
        "OLLAMA_HOST": fake_ollama.url,
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "QT_QPA_PLATFORM": "offscreen",
    })
    return env


def run_child(env: dict[str, str], *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, timeout=timeout,
                          cwd=REPO)


def cairn(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return run_child(env, "-m", "core.cli", *args)


def assert_no_egress(log: list[dict[str, Any]], *, min_loopback: int = 1) -> None:
    attempts = [e for e in log if e["event"] != "exit"]
    outside = [e for e in attempts if not e["local"]]
    assert outside == [], f"non-loopback network attempts: {outside}"
    assert len(attempts) >= min_loopback, "the guard saw no connection at all: is it installed in the child?"
    exits = [e for e in log if e["event"] == "exit"]
    assert exits, "no child process reported at exit (sitecustomize not loaded?)"
    for e in exits:
        assert e["telemetry_modules"] == [], f"telemetry modules loaded: {e['telemetry_modules']}"


# -- the guard itself ----------------------------------------------------------------------------------


def test_guard_blocks_and_records_in_a_child(guarded_env: dict[str, str]) -> None:
    probe = (
        "import socket\n"
        "for target in [('192.0.2.1', 80), ('2001:db8::1', 80)]:\n"
        "    try:\n"
        "        socket.socket(socket.AF_INET6 if ':' in target[0] else socket.AF_INET).connect(target)\n"
        "    except PermissionError: print('blocked')\n"
        "try:\n"
        "    socket.getaddrinfo('huggingface.co', 443)\n"
        "except PermissionError: print('blocked')\n"
        "import psycopg\n"
        "try:\n"
        "    psycopg.connect('postgresql://u:p@203.0.113.5/db')\n"
        "except PermissionError: print('blocked')\n"
    )
    proc = run_child(guarded_env, "-c", probe)
    assert proc.stdout.split() == ["blocked"] * 4, proc.stderr
    log = read_log(guarded_env["CAIRN_EGRESS_LOG"])
    outside = [e for e in log if not e["local"]]
    assert len(outside) == 4 and {e["event"] for e in outside} == {"socket.connect", "socket.getaddrinfo",
                                                                    "libpq.connect"}


def test_guard_allows_loopback_and_unix_sockets() -> None:
    assert is_local_address(("127.0.0.1", 11434)) and is_local_address(("127.8.9.10", 1))
    assert is_local_address(("::1", 5432, 0, 0)) and is_local_address(("localhost", 80))
    assert is_local_address("/tmp/.s.PGSQL.5432") and is_local_address(b"\0abstract")
    assert not is_local_address(("10.0.0.1", 80)) and not is_local_address(("example.com", 443))
    assert not is_local_address(("0.0.0.0", 80)) and not is_local_address(("::ffff:8.8.8.8", 53))


def test_guard_in_this_process_refuses_egress() -> None:
    guard = install()
    with guard.arm():
        with pytest.raises(EgressBlocked):
            socket.create_connection(("198.51.100.7", 443), timeout=1)
        with pytest.raises(EgressBlocked):
            socket.getaddrinfo("telemetry.example.org", 443)
    assert len(guard.violations) == 2


# -- whole sessions ------------------------------------------------------------------------------------


def test_in_process_session_ask_remember_recall(embedded_pg, sample_db_uri: str, fake_ollama: Any,
                                                tmp_path: Path) -> None:
    from core.assistant import Assistant
    from core.config import Settings
    from core.databases import open_database
    from core.llm import OllamaLLM
    from core.memory import MemoryBank
    from core.memory import JsonMemoryStore
    from core.pipeline import AskPipeline
    from tests.fakes.fake_embedder import FakeEmbedder

    fake_ollama.default_chat = analyst_model(SQL, FACTS)
    guard = install()
    with guard.arm():
        settings = Settings(ollama_host=fake_ollama.url, memory_store="json")
        llm = OllamaLLM(fake_ollama.url, settings.model, timeout_s=10)
        pipeline = AskPipeline(open_database(sample_db_uri), llm, settings)
        store, embedder = JsonMemoryStore(tmp_path / "memory"), FakeEmbedder()
        assistant = Assistant(pipeline, store, embedder, MemoryBank(store, embedder, tmp_path / "journal"))
        assert assistant.handle("priya", "How many customers are there?").answer.ok
        assert assistant.handle("priya", "Always show me customers from India").changes
        reply = assistant.handle("priya", "List the wholesale customers")
        assert reply.answer.ok and {row[2] for row in reply.answer.rows} == {"India"}
        pipeline.database.close()
        llm.close()
    assert guard.violations == []
    assert any(e["event"] == "socket.connect" for e in guard.events), "the fake Ollama call was not seen"
    loaded = [m for m in sys.modules if m.split(".")[0] in {t.split(".")[0] for t in TELEMETRY_MODULES}]
    assert loaded == []


def test_cli_ask_schema_and_doctor_in_guarded_children(guarded_env: dict[str, str]) -> None:
    ask = cairn(guarded_env, "-v", "ask", "How many customers are there?", "--json")
    assert ask.returncode == 0, ask.stderr
    assert json.loads(ask.stdout)["rows"] == [[600]]
    failing = cairn(guarded_env, "ask", "Show the nonexistent widget table", "--json")
    assert failing.returncode in (0, 1) and "Traceback" not in failing.stderr
    schema = cairn(guarded_env, "schema", "--json")
    assert schema.returncode == 0, schema.stderr
    doctor = cairn(guarded_env, "doctor")
    assert "Traceback" not in doctor.stderr and "[ok  ] Ollama" in doctor.stdout, doctor.stdout + doctor.stderr
    log = read_log(guarded_env["CAIRN_EGRESS_LOG"])
    assert_no_egress(log, min_loopback=4)
    assert any(e["event"] == "socket.connect" for e in log), "no call to the fake Ollama was seen"
    assert len({e["pid"] for e in log if e["event"] == "exit"}) == 4


def test_desktop_session_in_a_guarded_child(guarded_env: dict[str, str]) -> None:
    proc = run_child(guarded_env, "-m", "tests.egress_guard.desktop_session")
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["connected"] and summary["answer_ok"] and summary["taught"], summary
    assert "Only show customers from India" in summary["bank"]
    assert_no_egress(read_log(guarded_env["CAIRN_EGRESS_LOG"]), min_loopback=2)


@pytest.mark.slow
def test_cli_memory_with_the_real_minilm_makes_no_hub_call(guarded_env: dict[str, str]) -> None:
    """Learn then recall with the real embedding model; one run without HF_HUB_OFFLINE in the environment."""
    env = dict(guarded_env)
    teach = cairn(env, "-v", "ask", "Always show me customers from India", "--user", "priya", "--json")
    assert teach.returncode == 0, teach.stderr[-2000:]
    assert json.loads(teach.stdout)["memory_changes"], teach.stdout

    for key in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HUB_DISABLE_TELEMETRY"):
        env.pop(key, None)
    recall = cairn(env, "-v", "ask", "List the wholesale customers", "--user", "priya", "--json")
    assert recall.returncode == 0, recall.stderr[-2000:]
    out = json.loads(recall.stdout)
    assert out["memories"] and {row[2] for row in out["rows"]} == {"India"}, out

    log = read_log(env["CAIRN_EGRESS_LOG"])
    assert_no_egress(log, min_loopback=2)
    exits = [e for e in log if e["event"] == "exit"]
    # The run without HF_HUB_OFFLINE: no Hugging Face hub client is even imported (the encoder is ONNX, on disk).
    assert exits[-1]["hf_hub_offline"] is None, exits
