"""A Cairn process that is told to stop takes its running query with it (SIGTERM, like Ctrl+C)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

REPO = Path(__file__).resolve().parents[1]
SLOW = "SELECT count(*) FROM orders a, orders b, orders c"
_RUNNING = ("SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() "
            "AND usename = 'cairn_query'")  # a server-side cursor shows as FETCH  # fmt: skip


def _running(conn: psycopg.Connection) -> int:
    return int(conn.execute(_RUNNING).fetchone()[0])  # type: ignore[index]


@pytest.mark.slow
def test_sigterm_cancels_the_running_query_in_the_database(fake_ollama, embedded_pg, sample_db_uri) -> None:
    fake_ollama.default_chat = lambda body: SLOW
    env = {**os.environ, "OLLAMA_HOST": fake_ollama.url, "CAIRN_DATA_DIR": str(embedded_pg.root),
           "PYTHONPATH": str(REPO)}  # fmt: skip
    proc = subprocess.Popen([sys.executable, "-m", "core.cli", "ask", "How many order triples are there?", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO)  # fmt: skip
    with psycopg.connect(embedded_pg.uri(), autocommit=True) as conn:
        deadline = time.monotonic() + 150  # the CLI loads the embedding model first: 12–22 s alone, more under a full suite
        while not _running(conn) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _running(conn), proc.communicate(timeout=5)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 143, err
        assert "Traceback" not in err and json.loads(out)["error_kind"] == "QueryCancelled"
        deadline = time.monotonic() + 10  # well before the 30 s statement timeout
        while _running(conn) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _running(conn), "the query outlived the process that started it"
