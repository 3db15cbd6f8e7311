"""Issue 32, hardening 4 (resources): a PostgreSQL query's call returns soon after its timeout, whatever the
server does (a 30 s timeout once took 57 s: the backend stopped only when it next looked for interrupts).

The server's own statement_timeout answers the ordinary cases (pg_sleep, a gigabyte built with repeat); a
server that does not stop the query — its timeout switched off, or its backend stuck (SIGSTOP here, as a
backend deep in one long operation is) — is cancelled by the client, then its connection given up. Assertions
are on the error kind; the stuck backend would otherwise hold the call for 30 s or for ever.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from dataclasses import replace

import pytest

from core.databases import SAMPLE_DATABASE, EmbeddedPostgres, PostgresDatabase, QueryLimits
from core.databases.postgres import _fetch as _fetch_postgres
from core.errors import QueryTimeout

SLEEP = "SELECT pg_sleep(30) AS cairn_stuck"


@pytest.fixture
def pg(sample_db_uri: str) -> Iterator[PostgresDatabase]:
    db = PostgresDatabase(sample_db_uri)
    yield db
    db.close()


@pytest.fixture
def pg_super(embedded_pg: EmbeddedPostgres, sample_db_uri: str) -> Iterator[PostgresDatabase]:
    db = PostgresDatabase(embedded_pg.uri(SAMPLE_DATABASE))
    yield db
    db.close()


@pytest.fixture
def server_ignores_timeouts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The session's statement_timeout set to an hour: only the client's own deadline can stop a query."""
    apply, run = _fetch_postgres.apply_session_limits, _fetch_postgres.run
    monkeypatch.setattr(_fetch_postgres, "apply_session_limits",
                        lambda conn, limits, **kw: apply(conn, replace(limits, timeout_s=3600.0), **kw))
    monkeypatch.setattr(_fetch_postgres, "run", lambda conn, sql, limits, **kw: run(conn, sql, replace(
        limits, timeout_s=3600.0), **kw))


def test_pg_sleep_stops_at_the_timeout(pg: PostgresDatabase) -> None:
    with pytest.raises(QueryTimeout):
        pg.execute(SLEEP, limits=QueryLimits(timeout_s=1))
    assert pg.execute("SELECT 1").rows[0][0] == 1


def test_a_gigabyte_built_with_repeat_stops_as_a_timeout(pg: PostgresDatabase) -> None:
    sql = "SELECT md5(string_agg(repeat('x', 1000000), '')) FROM generate_series(1, 1000)"
    with pytest.raises(QueryTimeout):
        pg.execute(sql, limits=QueryLimits(timeout_s=0.5))
    assert pg.execute("SELECT 1").rows[0][0] == 1


@pytest.mark.usefixtures("server_ignores_timeouts")
def test_a_query_the_server_does_not_stop_is_cancelled_by_the_client(pg: PostgresDatabase) -> None:
    with pytest.raises(QueryTimeout, match="did not stop it in time"):
        pg.execute(SLEEP, limits=QueryLimits(timeout_s=1))
    assert pg.execute("SELECT 1").rows[0][0] == 1  # the connection is usable again


@pytest.mark.usefixtures("server_ignores_timeouts")
def test_a_stuck_backend_is_given_up(pg: PostgresDatabase, pg_super: PostgresDatabase) -> None:
    outcome: dict[str, BaseException | object] = {}

    def ask() -> None:
        try:
            outcome["result"] = pg.execute(SLEEP, limits=QueryLimits(timeout_s=1))
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            outcome["error"] = exc

    worker = threading.Thread(target=ask)
    worker.start()
    pid = None
    for _ in range(400):  # the backend running the sleep (not a timed assertion: it is found or the test fails)
        rows = pg_super.execute("SELECT pid FROM pg_stat_activity WHERE application_name = 'cairn' AND state = "
                                "'active' AND wait_event = 'PgSleep'").rows
        if rows:
            pid = int(rows[0][0])
            break
        worker.join(0.01)
    assert pid is not None, "the sleeping backend was not seen"
    os.kill(pid, signal.SIGSTOP)  # as a backend deep in one long operation: neither timeout nor cancel reach it
    safety = threading.Timer(60, os.kill, (pid, signal.SIGCONT))  # before the fix the call waits for this
    safety.start()
    try:
        worker.join(90)
    finally:
        safety.cancel()
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGCONT)
    assert isinstance(outcome.get("error"), QueryTimeout), outcome
    assert "given up" in str(outcome["error"])
    assert pg.execute("SELECT 1").rows[0][0] == 1  # the pool replaced the connection it gave up
