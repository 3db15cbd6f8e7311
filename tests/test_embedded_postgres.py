from __future__ import annotations

import psycopg
import pytest

from core.databases import EmbeddedPostgres
from core.errors import EmbeddedServerError
from core.databases import SAMPLE_DATABASE, ensure_sample_database


def test_embedded_server_has_pgvector(embedded_pg: EmbeddedPostgres) -> None:
    with psycopg.connect(embedded_pg.uri()) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        dist = conn.execute("SELECT '[1,0]'::vector <=> '[0,1]'::vector").fetchone()
    assert dist is not None and dist[0] == pytest.approx(1.0)


def test_sample_database_is_complete_and_reused(embedded_pg: EmbeddedPostgres, sample_db_uri: str) -> None:
    with psycopg.connect(sample_db_uri) as conn:
        customers = conn.execute("SELECT count(*), count(DISTINCT country) FROM customers").fetchone()
        india = conn.execute("SELECT count(*) FROM customers WHERE country = 'India'").fetchone()
        wholesale = conn.execute("SELECT count(*) FROM customers WHERE segment = 'wholesale'").fetchone()
        orders = conn.execute(
            "SELECT count(*), count(DISTINCT status), count(DISTINCT payment_method) FROM orders"
        ).fetchone()
        last_month = conn.execute(
            "SELECT count(*) FROM orders WHERE order_date >= date_trunc('month', current_date) - interval '1 month'"
            " AND order_date < date_trunc('month', current_date)"
        ).fetchone()
        last_year = conn.execute(
            "SELECT count(*) FROM orders WHERE extract(year FROM order_date) = extract(year FROM current_date) - 1"
        ).fetchone()
        comment = conn.execute(
            "SELECT obj_description('customers'::regclass, 'pg_class'), "
            "col_description('orders'::regclass, 4)"
        ).fetchone()
    assert customers == (600, 10)
    assert india and india[0] > 50 and wholesale and wholesale[0] > 50
    assert orders and orders[0] >= 5000 and orders[1] >= 4 and orders[2] >= 4
    assert last_month and last_month[0] > 0 and last_year and last_year[0] > 0
    assert comment and all(comment)
    # A second call finds the finished database and returns the same URI without recreating it.
    assert ensure_sample_database(embedded_pg) == sample_db_uri
    assert SAMPLE_DATABASE in sample_db_uri


def test_locked_data_dir_gives_clear_message(tmp_path, monkeypatch) -> None:
    import fasteners

    import core.databases.embedded._server as ep

    monkeypatch.setattr(ep, "LOCK_TIMEOUT_S", 0.2)
    lock = fasteners.InterProcessLock(str(tmp_path / "pgserver.lock"))
    assert lock.acquire()
    try:
        import multiprocessing

        # fasteners' lock is per process (fcntl), so try from a child process.
        ctx = multiprocessing.get_context("spawn")
        q = ctx.Queue()
        p = ctx.Process(target=_try_start, args=(str(tmp_path), q))
        p.start()
        p.join(60)
        msg = q.get(timeout=5)
    finally:
        lock.release()
    assert "locked by another process" in msg


def _try_start(root: str, q) -> None:  # pragma: no cover - runs in a child
    import core.databases.embedded._server as ep

    ep.LOCK_TIMEOUT_S = 0.2
    try:
        ep.EmbeddedPostgres(__import__("pathlib").Path(root)).start()
        q.put("started")
    except EmbeddedServerError as exc:
        q.put(f"{exc} | {exc.hint}")


def test_foreign_pgdata_version_is_reported(tmp_path) -> None:
    pgdata = tmp_path / "pgdata"
    pgdata.mkdir()
    (pgdata / "PG_VERSION").write_text("9\n")
    with pytest.raises(EmbeddedServerError) as err:
        EmbeddedPostgres(tmp_path).start()
    assert "cannot be used" in str(err.value) and "aside" in err.value.hint
