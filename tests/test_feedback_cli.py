"""``cairn feedback`` as a person runs it: a real subprocess, a real SQLite file, the fake Ollama."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from core.config import Settings, data_dir
from core.databases import SqliteDatabase
from core.history import HistoryEntry, QuestionHistory
from tests.test_cli import cairn


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    path = tmp_path / "shop.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, status TEXT, total REAL)")
        conn.executemany("INSERT INTO orders (status, total) VALUES (?, ?)",
                         [("delivered", 10.0), ("delivered", 20.0), ("cancelled", 5.0)])
    Settings(memory_store="json").save()  # the conversation `--last` also reads lives in JSON files
    return path


def shop_id(path: Path) -> str:
    db = SqliteDatabase(path)
    try:
        return db.id
    finally:
        db.close()


def test_up_list_down_and_remove_with_question_and_sql(shop: Path) -> None:
    sql = "SELECT count(*) FROM orders WHERE status = 'delivered'"
    up = cairn("feedback", "up", "--question", "How many delivered orders?", "--sql", sql, "--db", str(shop),
               "--user", "priya", "--json")
    assert up.returncode == 0, up.stderr
    stored = json.loads(up.stdout)["stored"]
    assert stored["database_id"] == shop_id(shop) and stored["sql"] == sql and "password" not in up.stdout

    listed = cairn("feedback", "list", "--db", str(shop), "--user", "priya")
    assert listed.returncode == 0 and "How many delivered orders?" in listed.stdout and stored["id"][:8] in listed.stdout
    assert "No verified examples" in cairn("feedback", "list", "--user", "ravi").stdout

    down = cairn("feedback", "down", "--question", "Delivered orders?", "--sql", sql + ";", "--db", str(shop),
                 "--user", "priya")
    assert down.returncode == 0 and "Removed 1 verified example" in down.stdout
    assert json.loads(cairn("feedback", "list", "--user", "priya", "--json").stdout) == []

    cairn("feedback", "up", "--question", "All orders", "--sql", "SELECT * FROM orders", "--db", str(shop),
          "--user", "priya")
    example = json.loads(cairn("feedback", "list", "--user", "priya", "--json").stdout)[0]
    removed = cairn("feedback", "remove", example["id"][:8], "--user", "priya")
    assert removed.returncode == 0 and "Removed" in removed.stdout
    counts = json.loads(cairn("feedback", "counts", "--json").stdout)
    assert [(c["ups"], c["downs"]) for c in counts] == [(2, 1)]


def test_bad_input_says_what_to_do(shop: Path) -> None:
    write = cairn("feedback", "up", "--question", "Wipe", "--sql", "DELETE FROM orders", "--db", str(shop),
                  "--user", "priya")
    assert write.returncode != 0 and "read-only" in write.stderr.lower() + write.stdout.lower()
    neither = cairn("feedback", "up", "--db", str(shop), "--user", "priya")
    assert neither.returncode == 2 and "--last" in neither.stderr
    nothing = cairn("feedback", "down", "--last", "--user", "priya")
    assert nothing.returncode == 2 and "no answered question" in nothing.stderr
    unknown = cairn("feedback", "remove", "abcdef12", "--user", "priya")
    assert unknown.returncode == 2 and "cairn feedback list" in unknown.stderr
    no_user = cairn("feedback", "list")
    assert no_user.returncode == 2 and "--user" in no_user.stderr
    bad_day = cairn("feedback", "counts", "--since", "yesterday")
    assert bad_day.returncode == 2
    with sqlite3.connect(shop) as conn:
        assert conn.execute("SELECT count(*) FROM orders").fetchone()[0] == 3


def test_last_takes_the_newest_answered_question_of_the_window_history(shop: Path) -> None:
    history = QuestionHistory(data_dir() / "history")
    history.append("priya", HistoryEntry("Old question", "SELECT 1", shop_id(shop), at=1.0))
    history.append("priya", HistoryEntry("Failed question", None, shop_id(shop), ok=False, at=3.0))
    history.append("priya", HistoryEntry("How many orders?", "SELECT count(*) FROM orders", shop_id(shop), at=2.0))
    up = cairn("feedback", "up", "--last", "--user", "priya", "--json")
    assert up.returncode == 0, up.stderr
    assert json.loads(up.stdout)["stored"]["question"] == "How many orders?"
    elsewhere = cairn("feedback", "up", "--last", "--db", str(shop.with_name("other.db")), "--user", "priya")
    assert elsewhere.returncode != 0  # no such file: said so, nothing stored
    assert len(json.loads(cairn("feedback", "list", "--user", "priya", "--json").stdout)) == 1


def test_a_verified_cli_answer_is_shown_to_the_model_for_a_similar_question(shop: Path, fake_ollama) -> None:
    fake_ollama.enqueue_chat("SELECT count(*) FROM orders WHERE status = 'delivered'")
    asked = cairn("ask", "How many delivered orders are there?", "--db", str(shop), "--user", "priya", "--json",
                  timeout=120)
    assert asked.returncode == 0, asked.stderr
    up = cairn("feedback", "up", "--last", "--user", "priya")
    assert up.returncode == 0 and "verified example" in up.stdout, up.stderr
    dry = cairn("ask", "How many cancelled orders are there?", "--db", str(shop), "--user", "priya", "--dry-run",
                "--json", timeout=120)
    prompt = json.loads(dry.stdout)["prompt"]["user"]
    assert "Verified examples for this database" in prompt
    assert "SQL: SELECT COUNT(*) FROM orders WHERE status = 'delivered'" in prompt  # the SQL that ran, as it ran
