"""Memory store benchmark (not in CI): JSON files vs pgvector vs the seed's Python loop, plus MiniLM speed.

    .venv/bin/python -m bench.memory_store [--sizes 1000,10000,100000] [--vectors structured|uniform]

For each size, with all memories of one user and spread over 100 users: insert throughput, search p50/p95,
fewest rows returned and recall@5 against an exact NumPy search. ``structured`` vectors have a low intrinsic
dimension like real sentence embeddings; ``uniform`` random unit vectors are the worst case for any ANN index
(every point is almost equally far), so HNSW recall there says little about real use.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from core.memory import Memory

DIMS = 384
K = 5
USERS_SPREAD = 100


def make_vectors(rng: np.random.Generator, n: int, kind: str, basis: np.ndarray) -> np.ndarray:
    if kind == "uniform":
        x = rng.standard_normal((n, DIMS)).astype(np.float32)
    else:
        x = rng.standard_normal((n, basis.shape[0])).astype(np.float32) @ basis
        x += 0.3 * rng.standard_normal((n, DIMS)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def memories(vectors: np.ndarray, owners: np.ndarray, start: int = 0) -> list[Memory]:
    return [Memory(user=str(owners[i]), category="entity", content=f"memory {start + i}", id=str(start + i),
                   embedding=tuple(vectors[i].tolist()), created_at=float(start + i))  # fmt: skip
            for i in range(len(vectors))]  # fmt: skip


def pct(values: Sequence[float]) -> tuple[float, float]:
    arr = np.asarray(values) * 1000
    return float(np.percentile(arr, 50)), float(np.percentile(arr, 95))


def timed_search(search: Callable[[str, list[float]], list[Any]], queries: list[tuple[str, np.ndarray]],
                 truth: list[set[str]]) -> dict[str, float]:  # fmt: skip
    times, recalls, fewest = [], [], K
    for (user, q), exact in zip(queries, truth, strict=True):
        started = time.perf_counter()
        hits = search(user, q.tolist())
        times.append(time.perf_counter() - started)
        ids = {h.memory.id for h in hits}
        fewest = min(fewest, len(hits))
        recalls.append(len(ids & exact) / K)
    p50, p95 = pct(times)
    return {"p50": p50, "p95": p95, "rows": fewest, "recall": statistics.fmean(recalls)}


def seed_loop_search(mems_by_user: dict[str, list[Memory]]) -> Callable[[str, list[float]], list[Any]]:
    """The seed's JSON fallback: a Python loop computing one cosine per memory."""
    from core.memory import ScoredMemory

    def search(user: str, vector: list[float]) -> list[Any]:
        q = np.asarray(vector)
        qn = float(np.linalg.norm(q))
        scored = []
        for m in mems_by_user.get(user, []):
            v = np.asarray(m.embedding)
            scored.append(ScoredMemory(m, float(v @ q) / (float(np.linalg.norm(v)) * qn)))
        scored.sort(key=lambda s: s.similarity, reverse=True)
        return scored[:K]

    return search


def bench_case(n: int, users: int, kind: str, pg: Any, rng: np.random.Generator, basis: np.ndarray,
               n_queries: int) -> list[str]:  # fmt: skip
    from core.memory import JsonMemoryStore

    vectors = make_vectors(rng, n, kind, basis)
    owners = np.array([f"user{i % users}" for i in range(n)])
    qvecs = make_vectors(rng, n_queries, kind, basis)
    queries = [(f"user{rng.integers(users)}", qvecs[i]) for i in range(n_queries)]
    truth = []
    for user, q in queries:
        mine = np.flatnonzero(owners == user)
        truth.append({str(i) for i in mine[np.argsort(-(vectors[mine] @ q))[:K]]})
    label = f"{n:>6} memories, {'1 user' if users == 1 else f'{users} users'}"
    lines = []

    mems = memories(vectors, owners)
    with tempfile.TemporaryDirectory() as tmp:
        store = JsonMemoryStore(Path(tmp))
        started = time.perf_counter()
        store.put_many(mems)
        bulk = n / (time.perf_counter() - started)
        put_times = []
        for extra in memories(make_vectors(rng, 5, kind, basis), owners[:5], start=n):
            started = time.perf_counter()
            store.put(extra)
            put_times.append(time.perf_counter() - started)
            store.delete(extra.user, [extra.id])
        store.close()  # first searches load files from disk
        started = time.perf_counter()
        store.search(queries[0][0], queries[0][1].tolist())
        cold = (time.perf_counter() - started) * 1000
        for user in {u for u, _ in queries}:
            store.search(user, queries[0][1].tolist())
        res = timed_search(lambda u, v: store.search(u, v, k=K), queries, truth)
        put_ms = statistics.fmean(put_times) * 1000
        lines.append(f"{label} | json     | bulk {bulk:8.0f}/s, one put at this size {put_ms:6.1f} ms"
                     f" | cold load {cold:7.1f} ms | p50 {res['p50']:6.2f} ms p95 {res['p95']:6.2f} ms"
                     f" | rows {res['rows']} recall@5 {res['recall']:.3f}")  # fmt: skip
        json_p95 = res["p95"]

    by_user: dict[str, list[Memory]] = {}
    for m in mems:
        by_user.setdefault(m.user, []).append(m)
    loop_n = min(20 if n <= 10_000 else 5, n_queries)
    res = timed_search(seed_loop_search(by_user), queries[:loop_n], truth[:loop_n])
    lines.append(f"{label} | seed loop|{'':52}| p50 {res['p50']:6.2f} ms p95 {res['p95']:6.2f} ms"
                 f" | rows {res['rows']} recall@5 {res['recall']:.3f} ({loop_n} queries; json is "
                 f"{res['p95'] / max(json_p95, 1e-9):.0f}x faster at p95)")  # fmt: skip
    del by_user

    if pg is not None:
        lines.append(bench_pgvector(pg, label, mems, queries, truth, rng, kind, basis, owners))
    return lines


def bench_pgvector(pg: Any, label: str, mems: list[Memory], queries: list[tuple[str, np.ndarray]],
                   truth: list[set[str]], rng: np.random.Generator, kind: str, basis: np.ndarray,
                   owners: np.ndarray) -> str:  # fmt: skip
    from core.memory import PgVectorMemoryStore

    store = PgVectorMemoryStore(pg)
    n = len(mems)
    store._run(lambda c: c.execute("TRUNCATE memories"))
    # incremental inserts (HNSW maintained row by row), measured on a small batch
    sample = memories(make_vectors(rng, 300, kind, basis), owners[:300], start=10 * n)
    started = time.perf_counter()
    store.put_many(sample)
    incremental = len(sample) / (time.perf_counter() - started)
    store._run(lambda c: c.execute("TRUNCATE memories"))
    store._run(lambda c: c.execute("DROP INDEX memories_embedding_hnsw"))
    started = time.perf_counter()
    for i in range(0, n, 5000):
        store.copy_many(mems[i:i + 5000])
    copy_rate = n / (time.perf_counter() - started)
    started = time.perf_counter()
    store._run(lambda c: (c.execute("SET LOCAL maintenance_work_mem = '1GB'"), c.execute(
        "CREATE INDEX memories_embedding_hnsw ON memories USING hnsw (embedding vector_cosine_ops)"),
        c.execute("ANALYZE memories")))  # fmt: skip
    build = time.perf_counter() - started
    for user, q in queries[:5]:
        store.search(user, q.tolist())
    res = timed_search(lambda u, v: store.search(u, v, k=K), queries, truth)
    store.close()
    return (f"{label} | pgvector | put_many {incremental:5.0f}/s, "
            f"COPY {copy_rate:6.0f}/s + HNSW build {build:5.1f} s"
            f" | p50 {res['p50']:6.2f} ms p95 {res['p95']:6.2f} ms | rows {res['rows']} recall@5 {res['recall']:.3f}")  # fmt: skip


def bench_minilm() -> str:
    from core.memory import MiniLMEmbedder

    embedder = MiniLMEmbedder(batch_size=64)
    embedder.embed_batch(["warm up"])
    texts = [f"Remember that order {i} from customer {i % 97} counts as high value in {i % 12} region"
             for i in range(640)]  # fmt: skip
    started = time.perf_counter()
    embedder.embed_batch(texts)
    return f"MiniLM all-MiniLM-L6-v2 on CPU, batch 64: {len(texts) / (time.perf_counter() - started):.0f} texts/s"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--vectors", choices=("structured", "uniform"), default="structured")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--no-pg", action="store_true")
    parser.add_argument("--no-minilm", action="store_true")
    parser.add_argument("--uri", help="a PostgreSQL database with pgvector to use instead of an embedded one")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    rng = np.random.default_rng(42)
    basis = rng.standard_normal((24, DIMS)).astype(np.float32)

    server = None
    uri = args.uri
    if uri is None and not args.no_pg:
        from core.databases import EmbeddedPostgres

        server = EmbeddedPostgres(Path(tempfile.mkdtemp(prefix="cairn-bench-")))
        server.ensure_database("cairn_memory_bench")
        uri = server.uri("cairn_memory_bench")
    print(f"vectors: {args.vectors}, k={K}, {args.queries} queries per case", flush=True)
    try:
        for n in (int(s) for s in args.sizes.split(",")):
            for users in (1, USERS_SPREAD):
                for line in bench_case(n, users, args.vectors, uri, rng, basis, args.queries):
                    print(line, flush=True)
        if not args.no_minilm:
            print(bench_minilm(), flush=True)
    finally:
        if server is not None:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
