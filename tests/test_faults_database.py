"""Database faults through the real PostgresDatabase + AskPipeline (and the CLI): a clear error with a hint and
the exit code documented in core/cli/_commands.py, never a traceback, and the next question works (the pool recovers).

Faults: unreachable (closed port), the connection killed mid-query and while idle in the pool, the server
stopped and started again, a refused password, the statement timeout, the embedded server's data directory
locked by another process, damaged, or with a stale postmaster.pid.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from core.config import Settings
from core.databases import open_database
from core.databases import Database
from core.databases import EmbeddedPostgres
from core.pipeline import AskPipeline
from tests.fakes.scripted_llm import ScriptedLLM

COUNT_SQL = "SELECT COUNT(*) AS n FROM customers"
HEAVY_SQL = "SELECT COUNT(*) AS n FROM customers c1, customers c2, customers c3, customers c4, customers c5"
ROLE = "cairn_faults_pw"
SECRET = "f4ult-Pa55"


def _cairn(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "core.cli", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=timeout)


def _clean(proc: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr
    assert "Hint:" in proc.stderr, proc.stderr


def _pipe(db: Database, llm: ScriptedLLM, **settings: object) -> AskPipeline:
    return AskPipeline(db, llm, Settings(repair_rounds=0, **settings))  # type: ignore[arg-type]


def _next_question_works(pipe: AskPipeline, llm: ScriptedLLM) -> None:
    llm.enqueue(COUNT_SQL)
    answer = pipe.ask("How many customers are there?")
    assert answer.ok and answer.rows[0][0] > 0, answer


# -- unreachable ---------------------------------------------------------------------------------------


def test_closed_port_is_database_unavailable_with_a_hint(tmp_path: Path) -> None:
    url = "postgresql://analyst@127.0.0.1:9/shop"
    answer = AskPipeline(open_database(url), ScriptedLLM(COUNT_SQL)).ask("How many customers are there?")
    assert not answer.ok and answer.error_kind == "DatabaseUnavailable"
    assert "127.0.0.1" in (answer.error or "") and answer.hint
    proc = _cairn("ask", "How many customers are there?", "--db", url)
    assert proc.returncode == 3
    _clean(proc)


# -- the connection dropped --------------------------------------------------------------------------------


def _terminate(embedded_pg: EmbeddedPostgres, state: str, after_s: float) -> threading.Thread:
    def kill() -> None:
        deadline = time.monotonic() + 5
        time.sleep(after_s)
        with psycopg.connect(embedded_pg.uri(), autocommit=True) as conn:
            while time.monotonic() < deadline:
                killed = conn.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE application_name = 'cairn' AND datname = 'cairn_sample' AND state = %s",
                    (state,),
                ).fetchall()
                if killed:
                    return
                time.sleep(0.05)

    thread = threading.Thread(target=kill)
    thread.start()
    return thread


def test_connection_killed_mid_query_then_the_pool_recovers(db: Database, embedded_pg: EmbeddedPostgres) -> None:
    llm = ScriptedLLM(HEAVY_SQL)
    pipe = _pipe(db, llm)
    killer = _terminate(embedded_pg, "active", 0.3)
    answer = pipe.ask("How many customer combinations are there?")
    killer.join()
    assert not answer.ok and answer.error_kind == "DatabaseUnavailable", answer
    assert "terminating connection" in (answer.error or "") and answer.hint
    _next_question_works(pipe, llm)
    _next_question_works(pipe, llm)


def test_idle_pooled_connections_killed_are_replaced(db: Database, embedded_pg: EmbeddedPostgres) -> None:
    llm = ScriptedLLM()
    pipe = _pipe(db, llm)
    _next_question_works(pipe, llm)
    _terminate(embedded_pg, "idle", 0.0).join()
    _next_question_works(pipe, llm)


def test_server_stopped_then_started_again(tmp_path: Path) -> None:
    root = Path(tempfile.mkdtemp(prefix="cairn-fault-"))
    server = EmbeddedPostgres(root)
    try:
        server.ensure_database("shop")
        with psycopg.connect(server.uri("shop"), autocommit=True) as conn:
            conn.execute("CREATE TABLE customers (customer_id int PRIMARY KEY, name text)")
            conn.execute("INSERT INTO customers VALUES (1, 'Asha'), (2, 'Ben')")
        database = open_database(server.uri("shop"))
        llm = ScriptedLLM()
        pipe = _pipe(database, llm)
        _next_question_works(pipe, llm)
        server.stop()
        llm.enqueue(COUNT_SQL)
        down = pipe.ask("How many customers are there?")
        assert not down.ok and down.error_kind == "DatabaseUnavailable" and down.hint, down
        server.start()
        _next_question_works(pipe, llm)
        database.close()
    finally:
        server.stop()


# -- login refused -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def password_uri(embedded_pg: EmbeddedPostgres, sample_db_uri: str) -> Iterator[str]:
    """A role that must log in with scram-sha-256 (a pg_hba line above pgserver's trust lines)."""
    hba = embedded_pg.pgdata / "pg_hba.conf"
    original = hba.read_text()
    line = f"local all {ROLE} scram-sha-256\n"
    with psycopg.connect(embedded_pg.uri(), autocommit=True) as conn:
        conn.execute("SET password_encryption = 'scram-sha-256'")
        if not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (ROLE,)).fetchone():
            conn.execute(f"CREATE ROLE {ROLE} LOGIN PASSWORD '{SECRET}'")
        conn.execute(f"GRANT CONNECT ON DATABASE cairn_sample TO {ROLE}")
        hba.write_text(line + original)
        conn.execute("SELECT pg_reload_conf()")
    with psycopg.connect(embedded_pg.uri("cairn_sample"), autocommit=True) as conn:
        conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {ROLE}")
    yield sample_db_uri
    with psycopg.connect(embedded_pg.uri(), autocommit=True) as conn:
        hba.write_text(original)
        conn.execute("SELECT pg_reload_conf()")


def test_wrong_password_is_refused_clearly_and_the_right_one_then_works(password_uri: str) -> None:
    bad_url = password_uri.replace("postgresql://cairn_query:@", f"postgresql://{ROLE}:wrong-{SECRET}@", 1)
    answer = AskPipeline(open_database(bad_url), ScriptedLLM(COUNT_SQL)).ask("How many customers are there?")
    assert not answer.ok and answer.error_kind == "AuthenticationFailed" and answer.hint
    assert SECRET not in (answer.error or "")
    proc = _cairn("ask", "How many customers are there?", "--db", bad_url)
    assert proc.returncode == 3 and SECRET not in proc.stdout + proc.stderr
    _clean(proc)
    good = open_database(password_uri.replace("postgresql://cairn_query:@", f"postgresql://{ROLE}:{SECRET}@", 1))
    llm = ScriptedLLM()
    _next_question_works(_pipe(good, llm), llm)
    good.close()


# -- statement timeout -----------------------------------------------------------------------------------


def test_statement_timeout_is_its_own_error_and_the_next_question_works(db: Database, sample_db_uri: str,
                                                                         tmp_path: Path) -> None:
    llm = ScriptedLLM(HEAVY_SQL)
    pipe = _pipe(db, llm, statement_timeout_s=0.3)
    answer = pipe.ask("How many customer combinations are there?")
    assert not answer.ok and answer.error_kind == "QueryTimeout" and "timeout" in (answer.hint or "")
    _next_question_works(pipe, llm)

    data = tmp_path / "data"
    data.mkdir()
    (data / "settings.json").write_text(json.dumps({"statement_timeout_s": 0.3}))
    proc = _cairn("ask", "How many customer combinations are there?", "--db", sample_db_uri,
                  env={"CAIRN_DATA_DIR": str(data), "OLLAMA_HOST": _fake_ollama_with(HEAVY_SQL)})
    assert proc.returncode == 4, proc.stderr
    _clean(proc)


def _fake_ollama_with(reply: str) -> str:
    """A fake Ollama (kept for the session) that always answers ``reply``."""
    from tests.fakes.fake_ollama import FakeOllama

    server = FakeOllama().start()
    server.default_chat = lambda _body: reply
    _SERVERS.append(server)
    return server.url


_SERVERS: list[object] = []


@pytest.fixture(autouse=True, scope="module")
def _stop_servers() -> Iterator[None]:
    yield
    for server in _SERVERS:
        server.stop()  # type: ignore[attr-defined]


# -- the embedded server's data directory ---------------------------------------------------------------


@pytest.fixture(scope="module")
def initialised_root() -> Path:
    """A data directory with an initialised, stopped embedded server (copied per test)."""
    root = Path(tempfile.mkdtemp(prefix="cairn-fault-"))
    server = EmbeddedPostgres(root)
    server.start()
    server.stop()
    return root


def _copy_root(src: Path) -> Path:
    dst = Path(tempfile.mkdtemp(prefix="cairn-fault-"))
    shutil.copytree(src / "pgdata", dst / "pgdata", symlinks=True)
    owner = (src / "pgdata").stat()
    if hasattr(os, "chown") and owner.st_uid != os.getuid():  # as root, postgres runs as its own user
        for path in [dst / "pgdata", *(dst / "pgdata").rglob("*")]:
            os.chown(path, owner.st_uid, owner.st_gid, follow_symlinks=False)
    (dst / "pgdata" / "postmaster.pid").unlink(missing_ok=True)
    return dst


def test_locked_data_directory(monkeypatch: pytest.MonkeyPatch, initialised_root: Path, capsys) -> None:
    import core.databases.embedded._server as ep
    from core.cli import main

    root = _copy_root(initialised_root)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fasteners, sys, time; lock = fasteners.InterProcessLock(sys.argv[1]); "
         "lock.acquire(); print('held', flush=True); time.sleep(60)", str(root / "pgserver.lock")],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        monkeypatch.setattr(ep, "LOCK_TIMEOUT_S", 0.3)
        monkeypatch.setenv("CAIRN_DATA_DIR", str(root))
        assert main(["ask", "How many customers are there?"]) == 3
        err = capsys.readouterr().err
        assert "locked by another process" in err and "Hint:" in err
    finally:
        holder.kill()
        holder.wait()
    server = EmbeddedPostgres(root)  # the lock is free again: the same directory starts
    try:
        server.start()
    finally:
        server.stop()


def test_damaged_data_directory_gives_exit_3_and_a_hint(initialised_root: Path) -> None:
    root = _copy_root(initialised_root)
    control = root / "pgdata" / "global" / "pg_control"
    control.write_bytes(b"\0" * control.stat().st_size)
    proc = _cairn("ask", "How many customers are there?", env={"CAIRN_DATA_DIR": str(root)})
    assert proc.returncode == 3
    _clean(proc)
    assert "move" in proc.stderr and "aside" in proc.stderr


def test_stale_postmaster_pid_of_a_dead_process_is_ignored(initialised_root: Path) -> None:
    root = _copy_root(initialised_root)
    dead = subprocess.Popen(["true"])
    dead.wait()
    (root / "pgdata" / "postmaster.pid").write_text(
        f"{dead.pid}\n{root / 'pgdata'}\n1712346200\n5432\n/tmp\n\n  8826964     65536\nready   \n")
    server = EmbeddedPostgres(root)
    try:
        server.ensure_database("shop")
    finally:
        server.stop()


def test_garbage_pg_version_is_an_embedded_server_error(initialised_root: Path) -> None:
    root = _copy_root(initialised_root)
    (root / "pgdata" / "PG_VERSION").write_text("garbage\n")
    proc = _cairn("ask", "How many customers are there?", env={"CAIRN_DATA_DIR": str(root)})
    assert proc.returncode == 3
    _clean(proc)


def test_stale_postmaster_pid_of_an_unrelated_live_process(initialised_root: Path) -> None:
    root = _copy_root(initialised_root)
    bystander = subprocess.Popen(["sleep", "60"])
    try:
        (root / "pgdata" / "postmaster.pid").write_text(
            f"{bystander.pid}\n{root / 'pgdata'}\n1712346200\n5432\n/tmp/cairn-no-socket\n\n  8826964     65536\n"
            "ready   \n")
        proc = _cairn("ask", "How many customers are there?", env={"CAIRN_DATA_DIR": str(root)})
        assert bystander.poll() is None, "Cairn killed an unrelated process named in a stale postmaster.pid"
        assert "Traceback" not in proc.stderr
        assert proc.returncode in (0, 3)
    finally:
        bystander.kill()
        bystander.wait()
