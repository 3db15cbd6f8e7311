"""Shared-insights store benchmark (not in CI): put and query p50/p95 per backend, side by side.

    .venv/bin/python -m bench.insights [--sizes 10000,100000] [--backends jsonl,pgvector,milvus] [--uri URL]
                                       [--vectors uniform|structured]

For each size N and backend: a fresh store is bulk-loaded with N records (timed on its own, and not part of the
put figures: jsonl writes the file at once, line for line what ``put`` appends; pgvector COPYs with the HNSW
index dropped and rebuilt after; Milvus upserts batches of 1,000), then 200 single ``put`` calls and 200
``query`` calls (top 3, another agent's view, no threshold) are timed one by one. Vectors are seeded random unit
vectors (384 dimensions) and texts are short; records come from 20 agents. Random uniform vectors are the worst
case for an approximate index (every point is almost equally far), so the recall@3 column — against an exact
NumPy search with the same filters — is a floor, not what MiniLM vectors get; ``--vectors structured`` draws
vectors of a low intrinsic dimension, like sentence embeddings, for the recall an index gets on real text. "open" is the time to open the
loaded store and answer its first query (jsonl reads and folds the whole file then).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from core.insights import AgentKey, InsightRecord, ScoredInsight

DIMS = 384
AGENTS = 20
TOP_K = 3
MODEL = "all-MiniLM-L6-v2"
KEYS = [AgentKey.generate() for _ in range(AGENTS)]  # records are signed: readers drop unsigned ones
ASKER = KEYS[0].public_b64  # the asking agent: its own records are never returned


def unit_vectors(rng: np.random.Generator, n: int, basis: np.ndarray | None = None) -> np.ndarray:
    if basis is None:
        x = rng.standard_normal((n, DIMS)).astype(np.float32)
    else:  # low intrinsic dimension plus noise, as bench.memory_store draws them
        x = rng.standard_normal((n, basis.shape[0])).astype(np.float32) @ basis
        x += 0.3 * rng.standard_normal((n, DIMS)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def make_records(vectors: np.ndarray, start: int, now: float) -> list[InsightRecord]:
    return [InsightRecord(record_id=f"r{start + i:08d}", agent_id=f"agent-{(start + i) % AGENTS}",
                          db_kind="postgres" if i % 2 else "sqlite", created_at=now - i, expires_at=now + 30 * 86400,
                          embedding_model=MODEL, insight_summary=f"Monthly revenue of segment {(start + i) % 97} "
                          "by region, delivered orders only", entities=("table:orders", "column:orders.status"),
                          suggested_followups=(f"Which region grew most in segment {i % 97}?",
                                               "How does it split by payment method?"),
                          vector=vectors[i]).signed_by(KEYS[(start + i) % AGENTS])
            for i in range(len(vectors))]


def pct(values: Sequence[float]) -> tuple[float, float]:
    arr = np.asarray(values) * 1000
    return float(np.percentile(arr, 50)), float(np.percentile(arr, 95))


class Case:
    """One backend at one size: open → bulk load → reopen → puts → queries."""

    def __init__(self, name: str, opener: Callable[[], Any], bulk: Callable[[Any, list[InsightRecord]], None]):
        self.name, self.opener, self.bulk = name, opener, bulk

    def run(self, records: list[InsightRecord], extra: list[InsightRecord], queries: np.ndarray,
            truth: list[set[str]]) -> dict[str, Any]:
        store = self.opener()
        started = time.perf_counter()
        self.bulk(store, records)
        bulk_s = time.perf_counter() - started
        store.close()
        started = time.perf_counter()
        store = self.opener()
        store.query(queries[0], exclude_author=ASKER, embedding_model=MODEL, top_k=TOP_K)
        open_ms = (time.perf_counter() - started) * 1000
        try:
            put_times = []
            for record in extra:
                started = time.perf_counter()
                store.put(record)
                put_times.append(time.perf_counter() - started)
            store.query(queries[0], exclude_author=ASKER, embedding_model=MODEL, top_k=TOP_K)  # after the puts
            query_times, recalls = [], []
            for q, exact in zip(queries, truth, strict=True):
                started = time.perf_counter()
                hits: list[ScoredInsight] = store.query(q, exclude_author=ASKER, embedding_model=MODEL, top_k=TOP_K)
                query_times.append(time.perf_counter() - started)
                recalls.append(len({h.record.record_id for h in hits} & exact) / TOP_K)
        finally:
            store.close()
        return {"bulk_s": bulk_s, "open_ms": open_ms, "put": pct(put_times), "query": pct(query_times),
                "recall": float(np.mean(recalls))}


def jsonl_case(tmp: Path) -> Case:
    from core.insights._store_jsonl import FILE_NAME, JsonlInsightStore

    folder = tmp / "jsonl"

    def bulk(store: Any, records: list[InsightRecord]) -> None:
        with open(folder / FILE_NAME, "wb") as fh:
            fh.writelines((json.dumps({"op": "put", "record": r.to_json()}, ensure_ascii=False,
                                      separators=(",", ":")) + "\n").encode("utf-8") for r in records)
            fh.flush()

    return Case("jsonl", lambda: JsonlInsightStore(folder), bulk)


def pgvector_case(uri: str, table: str) -> Case:
    from core.insights._store_pgvector import PgVectorInsightStore

    def bulk(store: Any, records: list[InsightRecord]) -> None:
        store._run(lambda c: c.execute(f"DROP INDEX {table}_embedding_hnsw"))
        for i in range(0, len(records), 5000):
            store.copy_many(records[i:i + 5000])
        store.statement_timeout_s = 3600.0  # the index build is an admin step, not one of the store's calls
        store._run(lambda c: (c.execute("SET LOCAL statement_timeout = 0"),
                              c.execute("SET LOCAL maintenance_work_mem = '1GB'"),
                              c.execute(f"CREATE INDEX {table}_embedding_hnsw ON {table} "
                                        "USING hnsw (embedding vector_cosine_ops)"),
                              c.execute(f"ANALYZE {table}")))

    return Case("pgvector", lambda: PgVectorInsightStore(uri, table=table), bulk)


def milvus_case(tmp: Path) -> Case:
    from core.insights._store_milvus import MilvusInsightStore

    path = tmp / "milvus" / "insights.db"
    return Case("milvus-lite", lambda: MilvusInsightStore(str(path), timeout_s=600.0),
                lambda store, records: store.put_many(records))


def exact_truth(vectors: np.ndarray, agents: np.ndarray, queries: np.ndarray) -> list[set[str]]:
    scores = queries @ vectors.T
    scores[:, agents == ASKER] = -np.inf
    best = np.argsort(-scores, axis=1)[:, :TOP_K]
    return [{f"r{i:08d}" for i in row} for row in best]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--backends", default="jsonl,pgvector,milvus")
    parser.add_argument("--puts", type=int, default=200)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--vectors", choices=("uniform", "structured"), default="uniform")
    parser.add_argument("--uri", help="a PostgreSQL database with pgvector instead of an embedded server")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    rng = np.random.default_rng(15)
    basis = rng.standard_normal((24, DIMS)).astype(np.float32) if args.vectors == "structured" else None
    now = time.time()

    server, uri = None, args.uri
    if "pgvector" in backends and uri is None:
        from core.databases import EmbeddedPostgres

        server = EmbeddedPostgres(Path(tempfile.mkdtemp(prefix="cairn-bench-")))
        server.ensure_database("cairn_insights_bench")
        uri = server.uri("cairn_insights_bench")
    print(f"{DIMS}-d {args.vectors} random unit vectors, {AGENTS} agents, top {TOP_K}, {args.puts} puts and {args.queries} "
          "queries timed one by one after a bulk load (timed apart)", flush=True)
    header = (f"{'records':>8} | {'backend':<11} | {'bulk load':>9} | {'open+1st q':>10} | {'put p50':>8} | "
              f"{'put p95':>8} | {'query p50':>9} | {'query p95':>9} | recall@3")
    rows = [header, "-" * len(header)]
    try:
        for n in (int(s) for s in args.sizes.split(",")):
            vectors = unit_vectors(rng, n + args.puts, basis)
            records = make_records(vectors[:n], 0, now)
            extra = make_records(vectors[n:], n, now)
            agents = np.array([r.author_key for r in records + extra])
            queries = unit_vectors(rng, args.queries, basis)
            truth = exact_truth(vectors, agents, queries)
            for backend in backends:
                with tempfile.TemporaryDirectory(prefix="cairn-bench-") as tmp:
                    table = f"insights_bench_{n}"
                    case = {"jsonl": lambda tmp=tmp: jsonl_case(Path(tmp)),
                            "pgvector": lambda table=table: pgvector_case(str(uri), table),
                            "milvus": lambda tmp=tmp: milvus_case(Path(tmp))}[backend]()
                    try:
                        res = case.run(records, extra, queries, truth)
                    except Exception as exc:  # noqa: BLE001 - one backend failing must not hide the others
                        rows.append(f"{n:>8} | {case.name:<11} | failed: {exc}")
                        print(rows[-1], flush=True)
                        continue
                    finally:
                        if backend == "pgvector":
                            _drop_table(str(uri), table)
                rows.append(f"{n:>8} | {case.name:<11} | {res['bulk_s']:>7.1f} s | {res['open_ms']:>7.0f} ms | "
                            f"{res['put'][0]:>5.2f} ms | {res['put'][1]:>5.2f} ms | {res['query'][0]:>6.2f} ms | "
                            f"{res['query'][1]:>6.2f} ms | {res['recall']:.3f}")
                print(rows[-1], flush=True)
    finally:
        if server is not None:
            server.stop()
    print("\n" + "\n".join(rows))
    return 0


def _drop_table(uri: str, table: str) -> None:
    import psycopg

    with psycopg.connect(uri, autocommit=True) as conn:
        conn.execute(f"DROP TABLE IF EXISTS {table}")


if __name__ == "__main__":
    sys.exit(main())
