"""The pgvector shared-insights store on the embedded server: the contract, plus what a team's server brings
(a least-privilege role, a server that stalls, an existing table of another size) and the embedded database."""

from __future__ import annotations

import itertools
import select
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
import pytest
from psycopg import sql

from core.errors import InsightStoreError
from core.insights import open_insight_store
from core.insights._store_pgvector import PgVectorInsightStore, create_table_sql
from tests.insight_store_contract import MODEL, InsightStoreContract, author, key_of, record, vec

DB = "cairn_insights_test"
_tables = itertools.count()


@pytest.fixture(scope="module")
def insights_uri(embedded_pg: Any) -> str:
    embedded_pg.ensure_database(DB)
    uri: str = embedded_pg.uri(DB)
    with psycopg.connect(uri, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    return uri


@pytest.fixture
def table(insights_uri: str) -> Iterator[str]:
    """A fresh table per test, dropped after."""
    name = f"insights_t{next(_tables)}"
    yield name
    with psycopg.connect(insights_uri, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(sql.Identifier(name)))


@pytest.fixture
def make_store(insights_uri: str, table: str) -> Iterator[Callable[..., PgVectorInsightStore]]:
    opened: list[PgVectorInsightStore] = []

    def make(**kw: Any) -> PgVectorInsightStore:
        store = PgVectorInsightStore(insights_uri, table=table, **kw)
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()


class TestPgVectorStore(InsightStoreContract):
    pass  # make_store comes from the module fixture


def test_the_table_has_an_hnsw_cosine_index(make_store: Callable[..., PgVectorInsightStore], table: str) -> None:
    store = make_store()
    indexes = dict(store._run(lambda c: c.execute(
        "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = %s", (table,)).fetchall()))
    assert "hnsw" in indexes[f"{table}_embedding_hnsw"] and "vector_cosine_ops" in indexes[f"{table}_embedding_hnsw"]


def test_a_least_privilege_role_needs_no_create(insights_uri: str, embedded_pg: Any, table: str) -> None:
    role = "cairn_insights_agent"
    with psycopg.connect(insights_uri, autocommit=True) as conn:
        for statement in create_table_sql(table):
            conn.execute(statement)
        if not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone():
            conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(role)))
        conn.execute(sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(sql.Identifier(DB), sql.Identifier(role)))
        conn.execute(sql.SQL("REVOKE CREATE ON SCHEMA public FROM PUBLIC"))
        conn.execute(sql.SQL("GRANT USAGE ON SCHEMA public TO {}").format(sql.Identifier(role)))
        conn.execute(sql.SQL("GRANT SELECT, INSERT, UPDATE, DELETE ON {} TO {}").format(
            sql.Identifier(table), sql.Identifier(role)))
    # the embedded server maps only its own roles by peer authentication: log in, then act as the role alone
    uri = embedded_pg.uri(DB) + f"&options=-c%20role%3D{role}"
    store = PgVectorInsightStore(uri, table=table)
    try:
        rec = record("agent-a", "Weekly active users by plan", ("Which plan churns most?",))
        store.put(rec)
        assert store.invalidate_followup("which plan churns most", key=key_of("agent-a"), record_id=rec.record_id) == 1
        [hit] = store.query(vec("Weekly active users by plan"), exclude_author=author("b"), embedding_model=MODEL)
        assert hit.record.suggested_followups == ()
        assert store.delete([rec.record_id], key=key_of("agent-a")) == 1 and store.expire() == 0
        assert store._run(lambda c: c.execute("SELECT current_user").fetchone()[0]) == role
    finally:
        store.close()
    # the same role cannot make a table that is missing: the error says what the admin should run
    with pytest.raises(InsightStoreError) as err:
        PgVectorInsightStore(uri, table=table + "_missing")
    assert "set-up script" in err.value.hint


def test_a_table_of_another_vector_size_is_refused(make_store: Callable[..., PgVectorInsightStore]) -> None:
    make_store()
    with pytest.raises(InsightStoreError, match="384"):
        make_store(dims=512)


def test_a_vector_of_another_size_is_refused_on_put_and_finds_nothing(
        make_store: Callable[..., PgVectorInsightStore]) -> None:
    store = make_store()
    store.put(record("agent-a", "Orders per day"))
    assert store.query(np.ones(128, dtype=np.float32), exclude_author=author("b"), embedding_model=MODEL) == []
    small = make_store(dims=384)
    bad = record("agent-a", "x")
    object.__setattr__(bad, "vector", np.ones(128, dtype=np.float32) / np.sqrt(128))
    with pytest.raises(InsightStoreError):
        small.put(bad)


def test_a_nul_byte_is_a_clear_error_and_the_store_goes_on(make_store: Callable[..., PgVectorInsightStore]) -> None:
    store = make_store()
    with pytest.raises(InsightStoreError):
        store.put(record("agent-a", "nul\x00byte"))
    store.put(record("agent-a", "still works"))
    assert len(store.list_author(author("agent-a"))) == 1


def test_bulk_copy_and_many_other_agents_records(make_store: Callable[..., PgVectorInsightStore]) -> None:
    """Filtered HNSW: the asking agent's own records crowd its neighbourhood; k of the others' still come back."""
    store = make_store()
    rng = np.random.default_rng(3)
    base = vec("Revenue by month")
    own = [record("me", f"Revenue by month variant {i}") for i in range(300)]
    for r in own:
        object.__setattr__(r, "vector", (base + 0.05 * rng.standard_normal(384)).astype(np.float32))
    others = [record(f"agent-{i % 7}", f"Something else {i}") for i in range(700)]
    store.copy_many(own + others)
    store._run(lambda c: c.execute(f"ANALYZE {store.table}"))
    hits = store.query(base, exclude_author=author("me"), embedding_model=MODEL, top_k=5)
    assert len(hits) == 5 and all(h.record.agent_id != "me" for h in hits)
    assert [h.similarity for h in hits] == sorted((h.similarity for h in hits), reverse=True)


def test_the_embedded_server_gets_its_own_database(embedded_pg: Any) -> None:
    store = open_insight_store("pgvector", "embedded", embedded=embedded_pg)
    try:
        assert "cairn_insights" in store.describe() and "embedded" in store.describe()
        rec = record("agent-a", "Embedded insight about stock")
        store.put(rec)
        assert [r.record_id for r in store.list_author(author("agent-a"))] == [rec.record_id]
        assert store.delete([rec.record_id], key=key_of("agent-a")) == 1
    finally:
        store.close()
    assert embedded_pg.running  # an embedded server it did not start is left running


def test_describe_never_shows_a_password(make_store: Callable[..., PgVectorInsightStore], insights_uri: str,
                                         table: str) -> None:
    store = PgVectorInsightStore(insights_uri, table=table, password="s3cret-pw")
    try:
        assert "s3cret" not in store.describe()
    finally:
        store.close()
    # the embedded server authenticates by peer and ignores a password: one in the URL is accepted, never shown
    with_password = insights_uri.replace("postgresql://postgres:@", "postgresql://postgres:s3cret-pw@")
    assert with_password != insights_uri
    store = PgVectorInsightStore(with_password, table=table)
    try:
        assert "s3cret" not in store.describe() and DB in store.describe()
    finally:
        store.close()


def _stalled_server() -> tuple[socket.socket, list[socket.socket]]:
    """A socket that accepts connections and never says a word."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    accepted: list[socket.socket] = []

    def loop() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            accepted.append(conn)

    threading.Thread(target=loop, daemon=True).start()
    return server, accepted


@pytest.mark.slow
def test_a_stalled_server_is_an_error_within_seconds() -> None:
    server, accepted = _stalled_server()
    try:
        port = server.getsockname()[1]
        started = time.monotonic()
        with pytest.raises(InsightStoreError) as err:
            PgVectorInsightStore(f"postgresql://agent@127.0.0.1:{port}/insights?sslmode=disable")
        assert time.monotonic() - started < 8.0  # the 5 s connect timeout, not the OS's minutes
        assert err.value.hint and accepted
    finally:
        server.close()
        for conn in accepted:
            conn.close()


class _FreezableProxy:
    """TCP → the embedded server's Unix socket, forwarding until frozen (then it holds every byte)."""

    def __init__(self, unix_path: str) -> None:
        self.unix_path = unix_path
        self.frozen = threading.Event()
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(8)
        self.port = self.server.getsockname()[1]
        self.sockets: list[socket.socket] = [self.server]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            upstream = socket.socket(socket.AF_UNIX)
            upstream.connect(self.unix_path)
            self.sockets += [client, upstream]
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        try:
            while True:
                ready, _, _ = select.select([a, b], [], [], 0.1)
                if self.frozen.is_set():
                    continue
                for src in ready:
                    data = src.recv(65536)
                    if not data:
                        return
                    (b if src is a else a).sendall(data)
        except (OSError, ValueError):
            return

    def close(self) -> None:
        for s in self.sockets:
            s.close()


@pytest.mark.slow
def test_a_server_that_stops_answering_mid_session_is_an_error_within_seconds(
        embedded_pg: Any, insights_uri: str, table: str) -> None:
    PgVectorInsightStore(insights_uri, table=table).close()  # the table exists
    proxy = _FreezableProxy(str(Path(str(embedded_pg.socket_dir)) / ".s.PGSQL.5432"))
    try:
        store = PgVectorInsightStore(f"postgresql://postgres@127.0.0.1:{proxy.port}/{DB}?sslmode=disable",
                                     table=table, statement_timeout_s=1.0)
        store.put(record("agent-a", "Before the freeze"))
        proxy.frozen.set()
        started = time.monotonic()
        with pytest.raises(InsightStoreError):
            store.query(vec("Before the freeze"), exclude_author=author("b"), embedding_model=MODEL)
        assert time.monotonic() - started < 5.0  # 1 s statement timeout + 2 s grace, then the socket is cut
        proxy.frozen.clear()
        [hit] = store.query(vec("Before the freeze"), exclude_author=author("b"), embedding_model=MODEL)  # reconnected
        assert hit.record.insight_summary == "Before the freeze"
        store.close()
    finally:
        proxy.close()


def test_a_url_that_is_not_postgresql_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InsightStoreError):
        PgVectorInsightStore(str(tmp_path / "insights.db"))
