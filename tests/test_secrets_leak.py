"""A database password goes in and never comes out: not on screen, in output, logs, files or memory.

A scram-sha-256 role on the embedded server (as in test_wrong_password.py) is used for a whole session:
the CLI (plain, --json, --user, --batch, a failing query, a wrong password, with -v logging), the pipeline
and assistant objects, the pgvector memory store pointed at a password URL, and the desktop's connection
dialog and main window. Afterwards every file, stream, log record and widget text is searched for it.
"""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import psycopg
import pytest

from core.databases import EmbeddedPostgres
from tests.fakes.analyst_model import analyst_model

ROLE = "cairn_leak_role"
SECRET = "LeakCanary7Qz9"
WRONG = "WrongCanary3Xy"
MEMORY_DB = "cairn_leak_memory"
SQL = {
    "how many customers": "SELECT count(*) AS n FROM customers",
    "wholesale customers": "SELECT name, city, country FROM customers WHERE segment = 'wholesale'",
    "nonexistent widget": "SELECT * FROM widgets",
}
FACTS = {"customers from india": "[PREFERENCE] Only show customers from India"}
# user:password@ in any URL; the password part must be *** wherever a URL is shown.
_USERINFO = re.compile(r"postgres(?:ql)?://[^/@\s:'\"]*:([^@\s'\"]*)@")


def with_user(uri: str, password: str, dbname: str | None = None) -> str:
    # The embedded sample URI is postgresql://cairn_query:@/cairn_sample?host=/dir
    url = re.sub(r"^postgresql://\w+:@", f"postgresql://{ROLE}:{quote(password, safe='')}@", uri, count=1)
    return url.replace("/cairn_sample?", f"/{dbname}?", 1) if dbname else url


def leaks(text: str) -> list[str]:
    """What in ``text`` gives a password away (either one), or shows a URL's password unredacted."""
    found = [s for s in (SECRET, WRONG) if s in text]
    found += [m for m in _USERINFO.findall(text) if m not in ("", "***", "password")]  # "password": a placeholder
    return found


def files_with_secret(root: Path) -> list[Path]:
    needles = [s.encode() for s in (SECRET, WRONG)]
    return [p for p in root.rglob("*") if p.is_file() and any(n in p.read_bytes() for n in needles)]


@pytest.fixture(scope="module")
def secret_url(embedded_pg: EmbeddedPostgres, sample_db_uri: str) -> Iterator[str]:
    """A password role that may read the sample database and owns a memory database (scram on the socket)."""
    hba = embedded_pg.pgdata / "pg_hba.conf"
    original = hba.read_text()
    line = f"local all {ROLE} scram-sha-256\n"
    embedded_pg.ensure_database(MEMORY_DB)
    with psycopg.connect(embedded_pg.uri(), autocommit=True) as conn:
        conn.execute("SET password_encryption = 'scram-sha-256'")
        if not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (ROLE,)).fetchone():
            conn.execute(f"CREATE ROLE {ROLE} LOGIN PASSWORD '{SECRET}'")
        conn.execute(f"GRANT CONNECT ON DATABASE cairn_sample TO {ROLE}")
        conn.execute(f"ALTER DATABASE {MEMORY_DB} OWNER TO {ROLE}")
    with psycopg.connect(embedded_pg.uri("cairn_sample"), autocommit=True) as conn:
        conn.execute(f"GRANT USAGE ON SCHEMA public TO {ROLE}")
        conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {ROLE}")
    with psycopg.connect(embedded_pg.uri(MEMORY_DB), autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        conn.execute(f"ALTER SCHEMA public OWNER TO {ROLE}")
    if line not in original:
        hba.write_text(line + original)
    with psycopg.connect(embedded_pg.uri(), autocommit=True) as conn:
        conn.execute("SELECT pg_reload_conf()")
    yield with_user(sample_db_uri, SECRET)
    hba.write_text(original)
    with psycopg.connect(embedded_pg.uri(), autocommit=True) as conn:
        conn.execute("SELECT pg_reload_conf()")


@pytest.fixture
def model(fake_ollama: Any) -> Any:
    fake_ollama.default_chat = analyst_model(SQL, FACTS)
    return fake_ollama


def start(*args: str, settings: dict[str, Any] | None = None) -> subprocess.Popen[str]:
    """``cairn -v ARGS`` started in the background (independent runs go in parallel)."""
    data = Path(os.environ["CAIRN_DATA_DIR"])
    data.mkdir(parents=True, exist_ok=True)
    if settings is not None:
        (data / "settings.json").write_text(json.dumps(settings))
    env = dict(os.environ, PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    return subprocess.Popen([sys.executable, "-m", "core.cli", "-v", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


def finish(procs: dict[str, subprocess.Popen[str]]) -> dict[str, subprocess.CompletedProcess[str]]:
    done = {}
    for name, proc in procs.items():
        out, err = proc.communicate(timeout=120)
        done[name] = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    return done


def cairn(*args: str, settings: dict[str, Any] | None = None) -> subprocess.CompletedProcess[str]:
    return finish({"run": start(*args, settings=settings)})["run"]


# -- the command line ----------------------------------------------------------------------------------


@pytest.mark.slow
def test_cli_session_never_shows_or_stores_the_password(secret_url: str, model: Any, tmp_path: Path) -> None:
    json_store = {"memory_store": "json"}
    batch = tmp_path / "batch.jsonl"  # the person's own file: it holds the URL, and is not searched
    batch.write_text("\n".join(json.dumps({"id": n, "question": q, "db": secret_url}) for n, q in
                               enumerate(["How many customers are there?", "Show the nonexistent widget table",
                                          "x" * 100_000])) + "\n")
    wrong_url = secret_url.replace(SECRET, WRONG)
    (Path(os.environ["CAIRN_DATA_DIR"])).mkdir(parents=True, exist_ok=True)
    (Path(os.environ["CAIRN_DATA_DIR"]) / "settings.json").write_text(json.dumps(json_store))
    runs = finish({
        "json": start("ask", "How many customers are there?", "--db", secret_url, "--json"),
        "plain": start("ask", "How many customers are there?", "--db", secret_url),
        "failing": start("ask", "Show the nonexistent widget table", "--db", secret_url, "--json"),
        "wrong": start("ask", "How many customers are there?", "--db", wrong_url),
        "wrong_json": start("ask", "How many customers?", "--db", wrong_url, "--json"),
        "schema": start("schema", "--db", secret_url),
        "batch": start("ask", "--batch", str(batch), "--out", str(tmp_path / "answers.jsonl")),
        "teach": start("ask", "Always show me customers from India", "--db", secret_url, "--user", "priya",
                       "--json"),
    })
    runs.update(finish({
        "hidden": start("hidden", "--db", secret_url, "--add", "customers.email"),
        "memory_list": start("memory", "list", "--user", "priya", "--db", secret_url),
    }))
    codes = {name: proc.returncode for name, proc in runs.items()}
    assert codes == {"json": 0, "plain": 0, "failing": 1, "wrong": 3, "wrong_json": 3, "schema": 0, "hidden": 0,
                     "batch": 1, "teach": 0, "memory_list": 0}, \
        {n: p.stderr[-500:] for n, p in runs.items()}
    assert "India" in runs["memory_list"].stdout
    assert "password" in runs["wrong"].stderr.lower() and "Hint:" in runs["wrong"].stderr
    for name, proc in runs.items():
        assert leaks(proc.stdout + proc.stderr) == [], f"{name}: {proc.stdout[-800:]}{proc.stderr[-800:]}"
        assert "Traceback" not in proc.stderr, f"{name}: {proc.stderr[-2000:]}"
    assert json.loads(runs["wrong_json"].stdout)["error_kind"] == "AuthenticationFailed"
    assert leaks((tmp_path / "answers.jsonl").read_text()) == []
    assert files_with_secret(Path(os.environ["CAIRN_DATA_DIR"])) == []


def test_cli_memory_store_uri_with_a_password_is_not_printed(secret_url: str, embedded_pg: Any) -> None:
    memory_url = with_user(embedded_pg.uri(MEMORY_DB), SECRET)
    assert SECRET in memory_url and ROLE in memory_url
    ok = cairn("memory", "list", "--user", "priya", "--json",
               settings={"memory_store": "pgvector", "memory_store_uri": memory_url})
    assert ok.returncode == 0 and json.loads(ok.stdout) == [], ok.stderr
    assert "using json" not in ok.stderr.lower(), "the password URL did not reach the pgvector store"
    bad = cairn("memory", "list", "--user", "priya", "--json",
                settings={"memory_store": "pgvector", "memory_store_uri": memory_url.replace(SECRET, WRONG)})
    assert bad.returncode != 0 and "unavailable" in (bad.stdout + bad.stderr).lower(), bad.stderr
    for proc in (ok, bad):
        assert leaks(proc.stdout + proc.stderr) == [], proc.stderr
    data = Path(os.environ["CAIRN_DATA_DIR"])
    # settings.json is the person's own file (where they typed the URL); nothing else may hold it.
    assert [p for p in files_with_secret(data) if p.name != "settings.json"] == []


# -- the core objects ----------------------------------------------------------------------------------


def test_answers_replies_and_logs_hold_no_password(secret_url: str, tmp_path: Path,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    from core.assistant import Assistant
    from core.databases import open_database
    from core.memory import MemoryBank
    from core.memory import JsonMemoryStore
    from core.pipeline import AskPipeline
    from tests.fakes.fake_embedder import FakeEmbedder
    from tests.fakes.scripted_llm import ScriptedLLM

    caplog.set_level(logging.DEBUG)
    llm = ScriptedLLM()
    database = open_database(secret_url)
    pipeline = AskPipeline(database, llm)
    store, embedder = JsonMemoryStore(tmp_path / "memory"), FakeEmbedder()
    assistant = Assistant(pipeline, store, embedder, MemoryBank(store, embedder, tmp_path / "journal"))
    seen: list[Any] = [repr(database), database.id]

    llm.enqueue("SELECT count(*) FROM customers")
    answer = pipeline.ask("How many customers are there?")
    assert answer.ok
    llm.enqueue("SELECT * FROM widgets", "SELECT nope FROM customers", "SELECT 1/0 FROM customers")
    failing = pipeline.ask("Show the nonexistent widget table")
    assert not failing.ok
    seen += [answer, failing, answer.to_json(), failing.to_json()]

    llm.enqueue("[PREFERENCE] Only show customers from India")
    taught = assistant.handle("priya", "Always show me customers from India")
    llm.enqueue("SELECT name, country FROM customers", "NONE")
    asked = assistant.handle("priya", "List the customers")
    assert taught.changes and asked.answer is not None and asked.answer.ok
    seen += [taught, asked, taught.to_json(), asked.to_json(), store.list("priya")]

    wrong = AskPipeline(open_database(secret_url.replace(SECRET, WRONG)), None)
    refused = wrong.ask("How many customers are there?")
    assert refused.error_kind == "AuthenticationFailed" and refused.hint
    seen += [refused, refused.to_json(), repr(wrong.database)]
    reply = Assistant(wrong, store, embedder, assistant.bank).handle("priya", "How many customers are there?")
    seen += [reply, reply.to_json()]
    database.close()
    wrong.database.close()

    text = "\n".join(str(s) for s in seen) + "\n".join(f"{r.getMessage()} {r.exc_text or ''}" for r in caplog.records)
    assert leaks(text) == []
    assert files_with_secret(tmp_path) == []


def test_pgvector_store_at_a_password_url_keeps_no_password(secret_url: str, embedded_pg: Any, tmp_path: Path,
                                                            caplog: pytest.LogCaptureFixture) -> None:
    from core.memory import MemoryBank
    from core.memory import open_memory_store
    from tests.fakes.fake_embedder import FakeEmbedder

    caplog.set_level(logging.DEBUG)
    url = with_user(embedded_pg.uri(MEMORY_DB), SECRET)
    assert SECRET in url and ROLE in url
    store = open_memory_store("pgvector", data_dir=tmp_path, uri=url)
    try:
        assert store.kind == "pgvector"
        bank = MemoryBank(store, FakeEmbedder(), tmp_path / "journal")
        memory = bank.add("priya", "preference", "Only show customers from India")
        shown = [store.describe(), repr(store), str(memory), memory.to_json(), bank.export("priya")]
    finally:
        store.close()
    with psycopg.connect(url) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'").fetchall()]
        dump = "".join(str(conn.execute(f'SELECT string_agg(t::text, \'|\') FROM "{t}" t').fetchone()[0])
                       for t in tables)
    assert tables and "India" in dump and leaks(dump) == []

    fallback = open_memory_store("pgvector", data_dir=tmp_path, uri=url.replace(SECRET, WRONG))
    try:
        assert fallback.kind == "unavailable"
        shown += [fallback.describe(), getattr(fallback, "reason", "")]
    finally:
        fallback.close()
    logs = "\n".join(f"{r.getMessage()} {r.exc_text or ''}" for r in caplog.records)
    assert leaks("\n".join(map(str, shown)) + logs) == []
    assert files_with_secret(tmp_path) == []


# -- the desktop ---------------------------------------------------------------------------------------


def test_desktop_connection_dialog_and_window_never_show_the_password(
    qtbot: Any, secret_url: str, model: Any, embedded_pg: Any, caplog: pytest.LogCaptureFixture
) -> None:
    from core.composition import Services
    from core.config import Settings, data_dir
    from core.databases import ConnectionStore, default_connections_path
    from core.history import QuestionHistory
    from core.databases.connections._secrets import SessionSecretStore
    from desktop.connections.connection_dialog import ConnectionDialog
    from desktop.shell.app import AppContext
    from desktop.shell.main_window import MainWindow
    from tests.egress_guard.desktop_session import widget_texts
    from tests.fakes.fake_embedder import FakeEmbedder

    caplog.set_level(logging.DEBUG)
    settings = Settings(ollama_host=model.url, memory_store="json")
    context = AppContext(settings=settings, services=Services(settings, embedded=embedded_pg,
                                                              embedder=FakeEmbedder()),
                         history=QuestionHistory(data_dir() / "history"))
    window = MainWindow(context, "priya")
    qtbot.addWidget(window)
    dialog = ConnectionDialog(ConnectionStore(default_connections_path()), SessionSecretStore(), parent=window)
    dialog.connection_chosen.connect(window.start)
    texts: list[str] = []

    assert dialog.fill_from_url(secret_url) and dialog.url_edit.text() == ""
    dialog.name_edit.setText("Sample with password")
    assert dialog.password_edit.text() == SECRET  # held in the masked field only
    texts += widget_texts(dialog)
    dialog.save()
    qtbot.waitUntil(lambda: not dialog.busy(), timeout=10_000)
    assert "Sample with password" in dialog.saved_names()
    dialog.test_connection()
    qtbot.waitUntil(lambda: "Connected" in dialog.status_label.text(), timeout=20_000)
    texts += widget_texts(dialog)
    with qtbot.waitSignal(window.database_ready, timeout=30_000):
        dialog.connect_chosen()

    def ask(text: str) -> Any:
        with qtbot.waitSignal(window.answer_ready, timeout=30_000) as blocker:
            window.chat.input.setText(text)
            window.chat.input.returnPressed.emit()
        return blocker.args[0]

    assert ask("How many customers are there?").answer.ok
    assert ask("Always show me customers from India").answer is None
    assert not ask("Show the nonexistent widget table").answer.ok
    texts += widget_texts(window)

    # The schema may come from the process's cache (same database id), so the refusal can come at the query.
    ready: list[Any] = []
    window.database_ready.connect(ready.append)
    window.start(secret_url.replace(SECRET, WRONG))
    # a refused login keeps the database in use (issue 13): the chat says so instead of "not connected"
    qtbot.waitUntil(lambda: bool(ready) or any("Still using" in t for t in widget_texts(window)), timeout=20_000)
    if ready:
        assert ask("How many customers are there?").answer.error_kind == "AuthenticationFailed"
    texts += widget_texts(window)
    assert any("password" in t.lower() for t in texts), "the refused login was not explained"
    window.close()
    context.services.close()

    logs = [f"{r.name}: {r.getMessage()} {r.exc_text or ''}" for r in caplog.records]
    assert [t for t in texts + logs if leaks(t)] == []
    assert files_with_secret(data_dir()) == []
