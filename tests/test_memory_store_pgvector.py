"""The pgvector memory store on the embedded server: the shared contract, migrations, filtered-search recall."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
import pytest

from core.errors import MemoryStoreError
from core.memory.stores import _store_pgvector as store_pgvector
from core.memory import Memory
from core.memory import PgVectorMemoryStore
from core.memory import open_memory_store
from tests.memory_store_contract import MemoryStoreContract, memory

DB = "cairn_memory_test_pgvector"


@pytest.fixture(scope="module")
def memory_uri(embedded_pg: Any) -> str:
    embedded_pg.ensure_database(DB)
    uri: str = embedded_pg.uri(DB)
    with psycopg.connect(uri, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS memories, conversation_summaries, recent_messages, schema_version")
    return uri


@pytest.fixture
def make_store(memory_uri: str) -> Iterator[Callable[..., PgVectorMemoryStore]]:
    opened: list[PgVectorMemoryStore] = []

    def make(**kw: Any) -> PgVectorMemoryStore:
        store = PgVectorMemoryStore(memory_uri, **kw)
        opened.append(store)
        return store

    make()._run(lambda conn: conn.execute("TRUNCATE memories, conversation_summaries, recent_messages"))
    yield make
    for store in opened:
        store.close()


class TestPgVectorContract(MemoryStoreContract):
    pass  # make_store comes from the module fixture


def test_migrations_are_idempotent(make_store: Callable[..., PgVectorMemoryStore]) -> None:
    store = make_store()
    assert store.migrate() == store_pgvector.SCHEMA_VERSION
    assert store.migrate() == store_pgvector.SCHEMA_VERSION
    make_store()
    versions = store._run(lambda c: c.execute("SELECT version FROM schema_version").fetchall())
    assert versions == [(1,)]
    indexes = {r[0]: r[1] for r in store._run(lambda c: c.execute(
        "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'memories'").fetchall())}  # fmt: skip
    assert "hnsw" in indexes["memories_embedding_hnsw"] and "vector_cosine_ops" in indexes["memories_embedding_hnsw"]
    assert "user_id" in indexes["memories_user_db_idx"]


def test_other_dimensions_are_refused(make_store: Callable[..., PgVectorMemoryStore]) -> None:
    with pytest.raises(MemoryStoreError, match="384"):
        make_store(dims=512)
    store = make_store()
    with pytest.raises(MemoryStoreError):
        store.put(Memory(user="ann", category="entity", content="x", embedding=(1.0, 0.0)))


def test_unstorable_text_is_a_clear_error(make_store: Callable[..., PgVectorMemoryStore]) -> None:
    store = make_store()
    with pytest.raises(MemoryStoreError):
        store.put(memory("nul\x00byte", "x"))
    store.put(memory("ann", "still works"))  # the connection recovered
    assert len(store.list("ann")) == 1


def test_unreachable_server_is_a_memory_store_error(tmp_path: Path) -> None:
    with pytest.raises(MemoryStoreError):
        PgVectorMemoryStore(f"postgresql://nobody@/nodb?host={tmp_path}&connect_timeout=2")


def _structured_vectors(rng: np.random.Generator, n: int, basis: np.ndarray) -> np.ndarray:
    """Unit vectors with a low intrinsic dimension, like sentence embeddings (uniform noise is ANN's worst case)."""
    x = rng.standard_normal((n, basis.shape[0])).astype(np.float32) @ basis
    x += 0.3 * rng.standard_normal((n, basis.shape[1])).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _load(store: PgVectorMemoryStore, vectors: np.ndarray, owners: list[str]) -> list[Memory]:
    """COPY with the HNSW index dropped and rebuilt after: ~10x faster than incremental inserts."""
    mems = [Memory(user=owners[i], category="entity", content=str(i), id=str(i),
                   embedding=tuple(vectors[i].tolist())) for i in range(len(vectors))]  # fmt: skip
    store._run(lambda c: c.execute("DROP INDEX memories_embedding_hnsw"))
    store.copy_many(mems)
    store._run(lambda c: (c.execute("SET LOCAL maintenance_work_mem = '256MB'"), c.execute(
        "CREATE INDEX memories_embedding_hnsw ON memories USING hnsw (embedding vector_cosine_ops)"),
        c.execute("ANALYZE memories")))  # fmt: skip
    return mems


@pytest.mark.slow
def test_search_returns_k_rows_for_one_user_among_many(
    make_store: Callable[..., PgVectorMemoryStore], caplog: pytest.LogCaptureFixture
) -> None:
    rng = np.random.default_rng(7)
    basis = rng.standard_normal((24, 384)).astype(np.float32)
    n = 10_000  # 7000 memories over 100 users, 3000 of one big user
    vectors = _structured_vectors(rng, n, basis)
    owner = np.array([f"u{i % 100}" if i < 7000 else "big" for i in range(n)])
    _load(make_store(), vectors, owner.tolist())
    queries = _structured_vectors(rng, 20, basis)
    caplog.set_level("INFO", logger=store_pgvector.__name__)
    # default: every user goes the exact way; exact_search_max=50 sends them all through filtered HNSW
    for store in (make_store(), make_store(exact_search_max=50)):
        recalls = []
        for qi, q in enumerate(queries):
            user = "big" if qi % 2 else f"u{qi * 5 % 100}"
            hits = store.search(user, q.tolist(), k=5)
            assert len(hits) == 5
            assert all(h.memory.user == user for h in hits)
            mine = np.flatnonzero(owner == user)
            exact = {str(i) for i in mine[np.argsort(-(vectors[mine] @ q))[:5]]}
            recalls.append(len(exact & {h.memory.id for h in hits}) / 5)
        assert np.mean(recalls) >= 0.99
    assert not [r for r in caplog.records if "searching exactly" in r.getMessage()]  # iterative scan sufficed
    # a plain HNSW walk (no iterative scan, tiny ef_search) stops short; the store then searches exactly
    store.iterative_scan, store.ef_search = "off", 5
    assert len(store.search("big", queries[0].tolist(), k=5)) == 5
    assert [r for r in caplog.records if "searching exactly" in r.getMessage()]


def test_open_memory_store_picks_pgvector(memory_uri: str, tmp_path: Path) -> None:
    store = open_memory_store("pgvector", data_dir=tmp_path, uri=memory_uri)
    try:
        assert store.kind == "pgvector"
        assert "pgvector" in store.describe()
    finally:
        store.close()


def test_open_memory_store_uses_embedded_cairn_memory(embedded_pg: Any, tmp_path: Path) -> None:
    store = open_memory_store("pgvector", data_dir=tmp_path, uri=None, embedded=embedded_pg)
    try:
        assert store.kind == "pgvector"
        assert "cairn_memory" in store.describe()
        store.put(memory("ann", "x"))
        assert len(store.list("ann")) == 1
        store.clear("ann")
    finally:
        store.close()
    assert embedded_pg.running  # a server we did not start is not stopped


def test_an_unreachable_store_is_never_swapped_for_another(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from core.errors import MemoryStoreError

    bad = f"postgresql://nobody@/nodb?host={tmp_path}&connect_timeout=2"
    store = open_memory_store("pgvector", data_dir=tmp_path, uri=bad)
    assert store.kind == "unavailable"
    assert "unavailable" in store.describe()
    assert any("unavailable" in r.getMessage() for r in caplog.records)
    for call in (lambda: store.put(memory("ann", "not kept anywhere")), lambda: store.list("ann")):
        with pytest.raises(MemoryStoreError) as err:
            call()
        assert "Nothing was read or saved" in str(err.value) and err.value.hint
    assert not (tmp_path / "memory").exists()  # no JSON copy that nobody would read later


def test_open_memory_store_json_and_unknown(tmp_path: Path) -> None:
    from core.errors import ConfigError

    assert open_memory_store("json", data_dir=tmp_path, uri=None).kind == "json"
    with pytest.raises(ConfigError):
        open_memory_store("redis", data_dir=tmp_path, uri=None)
