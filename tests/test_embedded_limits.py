"""Issue 32, hardening 4 (resources): the embedded PostgreSQL is bounded by the OS, so a runaway backend (a
string_agg of a gigabyte grew one by 1.9 GB per GB, 5.76 GB seen) fails with "out of memory" instead of eating
the machine: the postmaster and every backend it forks carry RLIMIT_DATA (read from /proc/<pid>/limits), and
temp_file_limit is set for every session of the server."""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.databases import (
    SAMPLE_DATABASE,
    EmbeddedPostgres,
    PostgresDatabase,
    QueryLimits,
)
from core.databases.embedded import _cluster as cluster
from core.databases.embedded import _limits
from core.databases.embedded._limits import GIB, backend_memory_limit
from core.errors import QueryFailed

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_DATA through prlimit is Linux's")
MIB = 1024 * 1024
GIGABYTE_AGGREGATE = "SELECT length(string_agg(repeat('x', 1000000), '')) FROM generate_series(1, 1000)"


def _data_limit(pid: int) -> int | None:
    """The soft 'Max data size' of a process, None when unlimited."""
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max data size"):
            soft = line[len("Max data size"):].split()[0]
            return None if soft == "unlimited" else int(soft)
    raise AssertionError("no 'Max data size' line")


@pytest.fixture
def postmaster(embedded_pg: EmbeddedPostgres) -> int:
    found = cluster.read_postmaster(embedded_pg.pgdata)
    assert found is not None
    return found.pid


@pytest.fixture
def superuser(embedded_pg: EmbeddedPostgres, sample_db_uri: str) -> Iterator[PostgresDatabase]:
    db = PostgresDatabase(embedded_pg.uri(SAMPLE_DATABASE))
    yield db
    db.close()


def test_the_limit_is_an_eighth_of_memory_within_bounds() -> None:
    assert 1 * GIB <= backend_memory_limit() <= 4 * GIB


def test_the_postmaster_and_its_backends_carry_the_data_limit(postmaster: int, superuser: PostgresDatabase) -> None:
    assert _data_limit(postmaster) == backend_memory_limit()
    backend = int(superuser.execute("SELECT pg_backend_pid()").rows[0][0])
    assert backend != postmaster and _data_limit(backend) == backend_memory_limit()


def test_every_session_has_a_temp_file_limit(superuser: PostgresDatabase) -> None:
    # the superuser's session does not set its own (QueryLimits(temp_file_bytes=0)): the server's is in force
    assert superuser.execute("SHOW temp_file_limit", limits=QueryLimits(temp_file_bytes=0)).rows[0][0] == "4GB"


def test_a_runaway_backend_runs_out_of_memory_not_the_machine(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_limits, "backend_memory_limit", lambda: 512 * MIB)  # small: the test needs little memory
    server = EmbeddedPostgres(Path(tempfile.mkdtemp(prefix="cairn-lim-")), stop_at_exit=False)
    server.start()
    try:
        found = cluster.read_postmaster(server.pgdata)
        assert found is not None and _data_limit(found.pid) == 512 * MIB
        db = PostgresDatabase(server.uri("postgres"))
        try:
            with pytest.raises(QueryFailed) as info:
                db.execute(GIGABYTE_AGGREGATE, limits=QueryLimits(timeout_s=300))
            assert "ran out of memory" in str(info.value) and "LIMIT" in info.value.hint
            assert db.execute("SELECT 1").rows[0][0] == 1  # the query failed, the server goes on
        finally:
            db.close()
    finally:
        server.stop()
        shutil.rmtree(server.root, ignore_errors=True)
