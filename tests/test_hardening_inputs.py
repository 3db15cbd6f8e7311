"""Hardening, round 2: bad input anywhere gives one clear message, a documented exit code, and loses nothing.

Batch lines, --db URLs, settings.json, --csv/--out paths, damaged JSON memory files and their modes, filler-only
messages, and terminal escapes in plain output. The CLI runs in-process through ``core.cli.main`` on a copy of
the Chinook SQLite file; Ollama is absent (the autouse fixture points OLLAMA_HOST at a port nothing listens on).
"""

from __future__ import annotations

import json
import logging
import math
import os
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest

from core.cli import main
from core.config import ROW_CAP_MAX, Settings, check_settings, config_dir, fix_settings
from core.errors import ConfigError
from tests.conftest import shared_data_path

DOCUMENTED = {0, 1, 2, 3, 4, 130}


@pytest.fixture
def chinook(tmp_path: Path) -> Path:
    target = tmp_path / "chinook.sqlite"
    shutil.copy(shared_data_path("chinook", "Chinook_Sqlite.sqlite"), target)
    return target


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code in DOCUMENTED and "Traceback" not in err, (code, err)
    return code, out, err


# -- 1. batch lines ---------------------------------------------------------------------------------------------


BAD_LINES: dict[str, bytes] = {
    "lone surrogate": b'{"id": "s", "question": "\\ud800"}',
    "not utf-8": b'{"id": "u", "question": "caf\xe9"}',
    "db is a number": b'{"id": "d", "question": "How many albums?", "db": 42}',
    "question is a list": b'{"id": "q", "question": ["How many?"]}',
    "id is an object": b'{"id": {"a": 1}, "question": "How many albums?"}',
    "no question": b'{"id": "n"}',
    "an array": b"[1, 2]",
    "not json": b"How many albums?",
    "deep nesting": b"[" * 100_000 + b"]" * 100_000,
    "deep object": b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
}


def test_one_bad_batch_line_never_stops_the_others(chinook: Path, tmp_path: Path, capsys) -> None:
    good = b'{"id": "good-%d", "question": "How many artists are there?"}'
    lines = [good % 0, *BAD_LINES.values(), good % 1]
    batch = tmp_path / "q.jsonl"
    batch.write_bytes(b"\n".join(lines) + b"\n")
    out = tmp_path / "a.jsonl"
    code, _, err = run(capsys, "ask", "--batch", str(batch), "--db", str(chinook), "--out", str(out))
    assert code == 2  # a bad batch file, but every good line was answered
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["line"] for r in records] == list(range(1, len(lines) + 1))
    assert records[0]["rows"] == [[275]] and records[-1]["rows"] == [[275]] and records[-1]["id"] == "good-1"
    for record in records[1:-1]:
        assert record["error"] and record["hint"] and record["error_kind"] == "InputError"
        assert record["sql"] is None
    assert "2 of 2 questions answered" in err and f"{len(BAD_LINES)} line(s)" in err
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".a.jsonl")] == []  # no temp file left


def test_batch_from_dev_zero_ends_with_a_record(chinook: Path, capsys) -> None:
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    code, out, err = run(capsys, "ask", "--batch", "/dev/zero", "--db", str(chinook))
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 2 and len(records) == 2
    assert "longer than 1 MB" in records[0]["error"] and "the rest was not read" in records[1]["error"]


def test_batch_stops_after_the_question_cap_and_says_so(chinook: Path, tmp_path: Path, capsys,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from core.cli import _batch

    monkeypatch.setattr(_batch, "MAX_BATCH_LINES", 3)
    batch = tmp_path / "q.jsonl"
    batch.write_text("".join(json.dumps({"id": i, "question": "How many artists?"}) + "\n" for i in range(5)))
    code, out, err = run(capsys, "ask", "--batch", str(batch), "--db", str(chinook))
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 2 and [r["rows"] for r in records[:3]] == [[[275]]] * 3
    assert "at most 3 questions" in records[3]["error"] and len(records) == 4


def test_unreadable_batch_file_is_bad_input(tmp_path: Path, capsys) -> None:
    for path in (tmp_path / "missing.jsonl", tmp_path):
        code, out, err = run(capsys, "ask", "--batch", str(path), "--json")
        assert code == 2 and "Cannot read batch file" in err
        assert json.loads(out)["error_kind"] == "InputError"


def test_cancelled_batch_keeps_the_whole_lines_answered(chinook: Path, tmp_path: Path, capsys,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from core.cli import _batch

    real = _batch._answer
    calls = {"n": 0}

    def answer(line: Any, ask: Any, db: Any) -> dict[str, Any]:
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(line, ask, db)

    monkeypatch.setattr(_batch, "_answer", answer)
    batch = tmp_path / "q.jsonl"
    batch.write_text("".join(json.dumps({"id": i, "question": "How many artists?"}) + "\n" for i in range(5)))
    out = tmp_path / "a.jsonl"
    code, _, err = run(capsys, "ask", "--batch", str(batch), "--db", str(chinook), "--out", str(out))
    assert code == 130 and "answers so far" in err
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == [0, 1]


# -- 2. database URLs ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("url", [
    "postgresql://u:s3cretpw@[::1", "postgresql://u:s3cretpw@[zz]/db", "postgresql://u:[s3cretpw]@h/db",
    "postgresql://u:s3cretpw@h:99999/db", "postgresql://u:s3cretpw@h:0/db", "postgresql://u:s3cretpw@h:abc/db",
    "postgresql://u:s3c%ZZretpw@h/db", "postgresql://u@h/db?password=s3cretpw&port=x",
    "postgresql://u:s3cretpw@h/d%00b", "postgres://u:s3cretpw@h:-1/db", "sqlite:///", "sqlite:relative.db",
    "oracle://u:s3cretpw@h/db", "postgresql://u:s3cretpw@h/db\x1b[2J", "",
])  # fmt: skip
def test_malformed_database_urls_exit_2_without_the_password(url: str, capsys) -> None:
    code, out, err = run(capsys, "ask", "How many artists?", "--db", url, "--json")
    assert code == 2, err
    body = json.loads(out)
    assert body["error"] and body["hint"] and body["error_kind"] in ("InputError", "ConfigError")
    assert "s3cretpw" not in out + err and "s3c%ZZretpw" not in out + err


def test_redact_url_works_on_urls_that_do_not_parse() -> None:
    from core.databases import redact_url

    assert redact_url("postgresql://ann:pw@[::1") == "postgresql://ann:***@[::1"
    assert "topsecret" not in redact_url("postgresql://a:topsecret@[zz]/d?password=topsecret")


# -- 3. settings.json -----------------------------------------------------------------------------------------------

BAD_VALUES: dict[str, Any] = {
    "row_cap": ["abc", -5, 0, 1e308, ROW_CAP_MAX + 1, True, 2.5, None, [], {}],
    "statement_timeout_s": [float("nan"), float("inf"), -1, 0, "30", None, False, 1e308],
    "llm_timeout_s": [float("nan"), -0.5, "fast", [1]],
    "num_ctx": [1e308, -1, "4096", 10**12],
    "repair_rounds": [-1, 1000, "two"],
    "model": [5, "", "qwen coder", "bad\x1bname", None, "x" * 500],
    "ollama_host": [5, "", "http://[::1", "ftp://host", "http://h:99999", "two words"],
    "memory_store": ["mongo", 1, None],
    "memory_store_uri": [5, "mysql://x/y", "postgresql://[zz]/m"],
    "theme": ["purple", 0],
    "font_size": [-1, 500, "12"],
    "users": ["ann", {"a": 1}, 3],
    "last_user": [3, ["a"]],
    "last_connection": [{"x": 1}, "\x00"],
    "hidden": [[], "customers.email", 5, {"db": "customers.email"}],
}


@pytest.mark.parametrize(("key", "value"), [(k, v) for k, vs in BAD_VALUES.items() for v in vs])
def test_a_bad_setting_names_the_key_and_falls_back_to_its_default(key: str, value: Any,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    path = config_dir() / "settings.json"
    path.write_text(json.dumps({key: value, "model": "kept:1b"} if key != "model" else {key: value}))
    with caplog.at_level(logging.WARNING):
        loaded = Settings.load()
    assert getattr(loaded, key) == getattr(Settings(), key)
    if key != "model":
        assert loaded.model == "kept:1b"  # the good keys stay
    assert key in caplog.text and "is not allowed" in caplog.text and "cairn settings --fix" in caplog.text
    problems = check_settings().problems
    assert len(problems) == 1 and problems[0].key.startswith(key) and problems[0].allowed


def test_nan_timeout_never_reaches_the_database(chinook: Path, capsys) -> None:
    (config_dir() / "settings.json").write_text('{"statement_timeout_s": NaN, "row_cap": -5}')
    loaded = Settings.load()
    assert loaded.statement_timeout_s == 30.0 and loaded.row_cap == 1000
    code, out, _ = run(capsys, "ask", "List all genre names", "--db", str(chinook), "--json")
    assert code == 0 and json.loads(out)["row_count"] == 25


def test_partly_bad_containers_keep_their_good_entries() -> None:
    (config_dir() / "settings.json").write_text(json.dumps(
        {"hidden": {"db1": ["customers.email", 7, "\u202eevil"], "db2": 5, "db3": ["orders"]},
         "users": ["ann", None, "bob"]}))  # fmt: skip
    loaded = Settings.load()
    assert loaded.hidden == {"db1": ["customers.email"], "db3": ["orders"]} and loaded.users == ["ann", "bob"]
    assert {p.key for p in check_settings().problems} == {'hidden["db1"][1]', 'hidden["db1"][2]',
                                                          'hidden["db2"]', "users[1]"}


@pytest.mark.parametrize("content", ["[]", "5", '"text"', "null", "{not json", "\xff", "[" * 100_000])
def test_a_settings_file_that_is_not_an_object_is_bad_input_with_a_reset(content: str, chinook: Path,
                                                                         capsys) -> None:
    path = config_dir() / "settings.json"
    path.write_bytes(content.encode("latin-1"))
    with pytest.raises(ConfigError) as info:
        Settings.load()
    assert "settings" in str(info.value) and "--reset" in info.value.hint
    code, out, err = run(capsys, "ask", "How many artists?", "--db", str(chinook), "--json")
    assert code == 2 and json.loads(out)["error_kind"] == "ConfigError"
    code, _, err = run(capsys, "settings")
    assert code == 2 and "settings.json" in err + _
    code, out, _ = run(capsys, "settings", "--reset")
    assert code == 0 and "kept at" in out
    assert Path(str(path) + ".bak").read_bytes() == content.encode("latin-1")  # nothing lost
    assert Settings.load() == Settings()


def test_settings_fix_keeps_good_keys_and_a_backup(capsys) -> None:
    path = config_dir() / "settings.json"
    original = json.dumps({"row_cap": "abc", "model": "mine:3b", "hidden": {"db": ["t.c"]}})
    path.write_text(original)
    code, out, _ = run(capsys, "settings", "--json")
    assert code == 2 and json.loads(out)["bad_keys"] == ["row_cap"]
    code, out, _ = run(capsys, "settings", "--fix")
    assert code == 0 and "row_cap" in out
    assert json.loads(path.read_text())["row_cap"] == 1000 and Settings.load().model == "mine:3b"
    assert Settings.load().hidden == {"db": ["t.c"]}
    assert Path(str(path) + ".bak").read_text() == original
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    code, out, _ = run(capsys, "settings")
    assert code == 0


def test_doctor_reports_bad_settings() -> None:
    from core.cli._doctor import check_settings_file

    assert check_settings_file().status == "ok"
    (config_dir() / "settings.json").write_text('{"row_cap": -5}')
    check = check_settings_file()
    assert check.status == "warn" and "row_cap" in check.detail and "--fix" in check.hint
    (config_dir() / "settings.json").write_text("[]")
    assert check_settings_file().status == "fail"


def test_saving_over_a_file_with_problems_keeps_a_backup() -> None:
    path = config_dir() / "settings.json"
    path.write_text('{"row_cap": "lots", "theme": "dark"}')
    Settings(theme="dark").save()
    assert json.loads(Path(str(path) + ".bak").read_text())["row_cap"] == "lots"
    check, backup = fix_settings()
    assert check.problems == () and backup is not None


def test_bad_ollama_host_in_the_environment_is_ignored_with_a_warning(monkeypatch: pytest.MonkeyPatch,
                                                                      caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "http://[::1")
    with caplog.at_level(logging.WARNING):
        assert Settings().with_env().ollama_host == Settings().ollama_host
    assert "OLLAMA_HOST" in caplog.text


def test_cli_numbers_are_range_checked(chinook: Path, capsys) -> None:
    for value in ("0", "-5", str(ROW_CAP_MAX + 1)):
        code, _, err = run(capsys, "ask", "How many artists?", "--db", str(chinook), "--max-rows", value)
        assert code == 2 and "--max-rows" in err
    code, out, _ = run(capsys, "ask", "How many artists?", "--max-rows", "abc", "--json")
    assert code == 2 and json.loads(out)["error_kind"] == "InputError"


# -- 4. output files ------------------------------------------------------------------------------------------------


def test_csv_to_a_folder_or_under_a_file_is_bad_input(chinook: Path, tmp_path: Path, capsys) -> None:
    (tmp_path / "plain").write_text("x")
    for target, why in ((tmp_path, "folder"), (tmp_path / "plain" / "rows.csv", "not a folder")):
        code, out, err = run(capsys, "ask", "How many artists?", "--db", str(chinook), "--csv", str(target),
                             "--json")
        assert code == 2 and why in err and json.loads(out)["error_kind"] == "InputError"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chinook.sqlite", "plain"]


def test_a_failed_csv_write_leaves_the_old_file_and_no_temp(chinook: Path, tmp_path: Path, capsys,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    from core.cli import _outfile

    target = tmp_path / "rows.csv"
    target.write_text("old\n")

    def full(*_a: Any) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(_outfile.os, "replace", full)
    code, out, err = run(capsys, "ask", "How many artists?", "--db", str(chinook), "--csv", str(target), "--json")
    assert code == 2 and "No space left" in err
    assert json.loads(out)["rows"] == [[275]]  # still exactly one JSON object
    assert target.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == [
        "cairn-data", "chinook.sqlite", "rows.csv"]  # fmt: skip


def test_out_to_a_folder_is_bad_input_before_any_work(tmp_path: Path, capsys) -> None:
    batch = tmp_path / "q.jsonl"
    batch.write_text('{"question": "How many artists?"}\n')
    code, _, err = run(capsys, "ask", "--batch", str(batch), "--out", str(tmp_path))
    assert code == 2 and "--out" in err and "folder" in err


# -- 5. JSON memory files -------------------------------------------------------------------------------------------


def _memory_file(root: Path, user: str) -> tuple[Any, Path]:
    from core.memory import JsonMemoryStore
    from tests.memory_store_contract import memory

    store = JsonMemoryStore(root)
    store.put(memory(user, "Only customers from India"))
    store.put(memory(user, "High value means total over 1000", category="terminology"))
    from core.memory import Message

    store.append_message(user, Message("user", "How many customers?"))
    return store, store.path_for(user)


def test_damaged_entries_are_skipped_or_repaired_and_never_lost(tmp_path: Path,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    from core.memory import JsonMemoryStore, Message
    from tests.memory_store_contract import memory, query

    store, path = _memory_file(tmp_path / "memory", "ann")
    body = json.loads(path.read_text())
    good = body["memories"][0]
    body["memories"] += [
        {**good, "id": "structured-text", "structured": "customers.country = 'X'"},
        {**good, "id": "bad-times", "created_at": "yesterday", "updated_at": None, "source": 5},
        {**good, "id": "bad-embedding", "embedding": "!!notbase64"},
        {**good, "id": "no-category", "category": "gossip"},
        {**good, "id": 7, "content": None},
        "not a memory", None, [1, 2],
    ]
    body["messages"] += [{"role": "assistant", "content": "no time"}, {"role": "user", "content": 5},
                         {"role": "assistant", "content": "odd time", "created_at": "noon"}, 42]
    body["summary"] = {"not": "text"}
    body["future_key"] = [1, 2, 3]
    path.write_text(json.dumps(body))
    fresh = JsonMemoryStore(tmp_path / "memory")
    with caplog.at_level(logging.WARNING):
        listed = {m.id: m for m in fresh.list("ann")}
    assert {"structured-text", "bad-times", "bad-embedding"} <= set(listed) and len(listed) == 5
    assert listed["structured-text"].structured is None and listed["bad-times"].created_at >= 0
    assert fresh.search("ann", query("India"), k=10)  # the good embeddings still search
    assert [m.content for m in fresh.recent_messages("ann")] == ["How many customers?", "no time", "odd time"]
    assert fresh.summary("ann") == ""
    assert "not readable" in caplog.text
    # a write keeps every entry it could not read, as it was
    fresh.put(memory("ann", "Only paid invoices"))
    fresh.append_message("ann", Message("user", "next"))
    after = json.loads(path.read_text())
    stored = {json.dumps(m, sort_keys=True) for m in after["memories"]}
    for item in body["memories"]:
        assert json.dumps(item, sort_keys=True) in stored
    assert after["summary"] == {"not": "text"} and after["future_key"] == [1, 2, 3]
    assert all(m in after["messages"] for m in body["messages"])
    fresh.set_summary("ann", "new")
    assert JsonMemoryStore(tmp_path / "memory").summary("ann") == "new"


def test_memory_files_are_private_whatever_the_umask(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from core.memory import JsonMemoryStore
    from core.memory.stores import _store_json

    if os.name != "posix":
        pytest.skip("POSIX modes")
    modes: list[int] = []
    real_replace = _store_json.os.replace

    def replace(src: Any, dst: Any) -> None:
        modes.append(stat.S_IMODE(os.stat(src).st_mode))
        real_replace(src, dst)

    monkeypatch.setattr(_store_json.os, "replace", replace)
    old = os.umask(0)
    try:
        store, path = _memory_file(tmp_path / "memory", "ann")
        path.write_bytes(b"{broken")
        with pytest.raises(Exception):
            JsonMemoryStore(tmp_path / "memory").list("ann")
    finally:
        os.umask(old)
    assert modes and set(modes) == {0o600}  # every temp file
    root = tmp_path / "memory"
    assert stat.S_IMODE(root.stat().st_mode) == 0o700
    for child in root.iterdir():
        assert stat.S_IMODE(child.stat().st_mode) == 0o600, child.name  # file, lock, .corrupt backup


def test_loose_modes_are_tightened_when_opened(tmp_path: Path) -> None:
    from core.memory import JsonMemoryStore

    if os.name != "posix":
        pytest.skip("POSIX modes")
    _, path = _memory_file(tmp_path / "memory", "ann")
    path.chmod(0o644)
    path.parent.chmod(0o755)
    assert [m.content for m in JsonMemoryStore(tmp_path / "memory").list("ann")]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_memory_from_json_names_the_bad_field() -> None:
    from core.memory import Memory

    good = Memory(user="ann", category="entity", content="x").to_json()
    for field, value in (("content", 5), ("user", None), ("category", "nope"), ("structured", "text"),
                         ("created_at", "noon"), ("database_id", 3)):
        with pytest.raises(ValueError, match=field if field != "category" else "category"):
            Memory.from_json({**good, field: value})
    repairs: list[str] = []
    assert Memory.from_json({**good, "structured": [1], "created_at": math.nan}, repairs=repairs).structured is None
    assert len(repairs) == 2


# -- history ------------------------------------------------------------------------------------------------------


def test_history_skips_wrong_typed_lines_and_is_private(tmp_path: Path) -> None:
    from core.history import HistoryEntry, QuestionHistory

    history = QuestionHistory(tmp_path / "history")
    history.append("ann", HistoryEntry("How many?", "SELECT 1", "db"))
    history.append("a\ud800", HistoryEntry("lone \ud800 surrogate", None, "db"))
    path = history._path("ann")
    with open(path, "a", encoding="utf-8") as fh:
        for bad in ([1], 5, {"user": "ann", "question": 5, "sql": None, "database_id": "db"},
                    {"user": "ann", "question": "q", "sql": None, "database_id": "db", "at": "noon"},
                    {"user": "ann", "question": "q", "sql": None}):
            fh.write(json.dumps(bad) + "\n")
        fh.write("[" * 100_000 + "\n")
    assert [e.question for e in history.entries("ann")] == ["How many?"]
    assert history.search("ann", "how")[0].sql == "SELECT 1"
    assert history.entries("a\ud800")[0].question == "lone \ud800 surrogate"
    if os.name == "posix":
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


# -- 6. filler-only messages ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("message", ["hello!", "hi", "ok thanks", "hey, hello, thanks!", "now", "please",
                                     "and", "remember that hi ok", "please remember: hello, thanks", "so... ok?"])
def test_filler_only_messages_route_without_crashing(message: str) -> None:
    from core.memory import classify

    for history in (False, True):
        route = classify(message, has_history=history)
        assert route.kind == "chat"  # small talk: answered without SQL, nothing stored


def test_cairn_ask_hello_is_an_honest_no_answer(chinook: Path, capsys) -> None:
    code, out, err = run(capsys, "ask", "hello!", "--db", str(chinook), "--json")
    assert code in (0, 1) and json.loads(out)["question"] == "hello!"


# -- 7. terminal escapes in plain output ----------------------------------------------------------------------------

NASTY = ["a\x1b[2Jb", "bell\x07", "back\x08space", "cr\rline", "rtl\u202eevil", "tab\there", "nl\nnext",
         "osc\x1b]0;title\x07", "c1\x9bcsi", "del\x7f", "ls\u2028sep", "lone\ud800"]


@pytest.fixture
def nasty_db(tmp_path: Path) -> Path:
    import sqlite3

    path = tmp_path / "nasty.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (name TEXT)")
        conn.executemany("INSERT INTO t VALUES (?)", [(v.encode("utf-8", "surrogatepass").decode("utf-8", "replace"),)
                                                      for v in NASTY])
    conn.close()
    return path


def test_plain_output_escapes_control_and_bidi_characters(nasty_db: Path, capsys) -> None:
    code, out, _ = run(capsys, "ask", "list all t names", "--db", str(nasty_db))
    assert code == 0
    for raw in ("\x1b", "\x07", "\x08", "\r", "\u202e", "\x9b", "\x7f", "\u2028"):
        assert raw not in out
    assert "a\\x1b[2Jb" in out and "rtl\\u202eevil" in out and "tab\\there" in out and "nl\\nnext" in out
    table = out.split("\n\n")[1].splitlines()
    assert len(table) == 2 + len(NASTY)  # one line per row: no newline or carriage return inside a cell


def test_json_output_stays_exact(nasty_db: Path, capsys) -> None:
    code, out, _ = run(capsys, "ask", "list all t names", "--db", str(nasty_db), "--json")
    rows = [r[0] for r in json.loads(out)["rows"]]
    assert rows[:8] == NASTY[:8]


def test_visible_keeps_ordinary_text() -> None:
    from core.cli._output import visible

    for text in ("plain", "naïve café", "客户 ग्राहक", "emoji 👩‍💻", "1\u00a0000", "line\nnext\tcol"):
        assert visible(text) == text
    assert visible("a\nb", multiline=False) == "a\\nb"
    assert visible("\ud800x") == "\\ud800x"


def test_a_home_folder_that_cannot_hold_settings_is_said_with_what_to_do(tmp_path: Path) -> None:
    """``nobody``'s HOME is /nonexistent: the settings folder cannot be made. A message and a hint, not
    'failed unexpectedly'."""
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith(("CAIRN_", "XDG_"))}
    env |= {"HOME": "/proc/no-such-home", "OLLAMA_HOST": "http://127.0.0.1:9"}
    done = subprocess.run([sys.executable, "-m", "core.cli", "ask", "How many customers?"], env=env,
                          capture_output=True, text=True, timeout=120, cwd=Path(__file__).resolve().parents[1])
    assert done.returncode != 0 and "cannot make its settings folder" in done.stderr, done.stderr
    assert "CAIRN_DATA_DIR" in done.stderr and "unexpectedly" not in done.stderr
