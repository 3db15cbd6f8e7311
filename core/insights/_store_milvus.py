"""Shared insights in Milvus through pymilvus: Milvus Lite (a local ``.db`` folder) or a Milvus cluster.

Milvus is the distributed option, for an organisation that outgrows one PostgreSQL: ``http(s)://host:19530``
reaches a cluster (a token, when it needs one, comes from the ``MILVUS_TOKEN`` environment variable or the
``token=`` option and is never saved). A path ending ``.db`` opens Milvus Lite, which runs inside this process
on that folder: one process at a time may hold it (a second one is refused with a clear error), so Lite suits
tests and a single agent, not a team.

One collection (``cairn_insights``) holds every agent's records, its vectors under a COSINE index. A query is a
filtered search (Milvus filters while it walks the index, so k rows come back when k exist). Filter expressions
are the one place text meets the query language: every string in them is escaped by ``_quote`` — and follow-ups
are matched by a hash of their folded text, so a follow-up's own words never enter an expression at all.
Searches and queries ask for strong consistency: what one agent put, the next query of any agent sees.

Rows are signed by their authors (``_signing``): a row whose signature does not match is never returned, and an
invalidation or a delete touches only the caller's key's rows (an invalidated row is re-signed by that key). A
collection made by an earlier Cairn has no fields for signatures and is refused: name another collection.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import numpy as np

from core.errors import InsightStoreError
from core.insights._record import InsightRecord, ScoredInsight, followup_key
from core.insights._signing import AgentKey

__all__ = ["COLLECTION", "LITE_FILE", "MilvusInsightStore"]

logger = logging.getLogger(__name__)

COLLECTION = "cairn_insights"
LITE_FILE = "insights_milvus.db"  # in the data folder, when no URI is given
DEFAULT_DIMS = 384
TIMEOUT_S = 5.0
MAX_TEXT = 65_535  # Milvus's VARCHAR limit, in bytes
MAX_FOLLOWUP_KEYS = 64
PAGE = 1000  # rows per page when reading many records; ids per delete
MAX_TOP_K = 16_384  # Milvus's own limit on one search
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,254}")
_HINT = "Check the Milvus server or file in Settings → Sharing, or choose the jsonl store."
_OUTPUT = ["record_id", "agent_id", "db_kind", "created_at", "expires_at", "embedding_model", "insight_summary",
           "entities", "suggested_followups", "embedding", "author_key", "signature"]

T = TypeVar("T")


class _Relay(logging.Handler):
    """Milvus Lite and pymilvus log their own failures with tracebacks (a Lite file another process holds, a
    server that is down); every one of them reaches the person once, as an InsightStoreError with a hint. Their
    records (their loggers' children's too) go to this module's debug log instead of the terminal."""

    def emit(self, record: logging.LogRecord) -> None:
        logger.debug("%s: %s", record.name, record.getMessage())


for _name in ("milvus_lite", "pymilvus"):
    logging.getLogger(_name).addHandler(_Relay())
    logging.getLogger(_name).propagate = False


def _quote(text: str) -> str:
    """``text`` as a double-quoted string literal of Milvus's expression language: backslashes and quotes
    escaped, control characters refused (nothing of ours contains them; a caller's typo must not become syntax)."""
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in text):
        raise InsightStoreError("A shared-insights identifier contains a control character.",
                                hint="Agent ids, model names and record ids are plain text on one line.")
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _quote_list(items: Iterable[str]) -> str:
    return "[" + ", ".join(_quote(i) for i in items) + "]"


def followup_hash(text: str) -> str:
    """What a follow-up is found by: a hash of its folded text (case and spacing aside)."""
    return hashlib.sha256(followup_key(text).encode("utf-8")).hexdigest()[:32]


class MilvusInsightStore:
    """Insights in the collection ``collection`` of the Milvus at ``uri`` (a ``.db`` path for Milvus Lite)."""

    kind = "milvus"

    def __init__(self, uri: str | os.PathLike[str] | None = None, *, collection: str = COLLECTION,
                 dims: int = DEFAULT_DIMS, token: str | None = None,
                 data_dir: str | os.PathLike[str] | None = None, timeout_s: float = TIMEOUT_S,
                 **_options: Any) -> None:
        if not _NAME.fullmatch(collection):
            raise InsightStoreError(f"{collection!r} is not a usable Milvus collection name.",
                                    hint="Use letters, digits and underscores.")
        self.collection, self.dims, self.timeout_s = collection, int(dims), float(timeout_s)
        self._lock = threading.RLock()
        text = os.fspath(uri).strip() if uri is not None else ""
        if not text and data_dir is not None:
            text = str(Path(data_dir) / LITE_FILE)
        if text.startswith(("http://", "https://")):
            self.uri, self.lite = text, False
            token = token if token is not None else os.environ.get("MILVUS_TOKEN") or None
        elif text.endswith(".db"):
            path = Path(text).expanduser().resolve()
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise InsightStoreError(f"Cannot use {path.parent} for Milvus Lite: {exc.strerror or exc}.",
                                        hint=_HINT) from exc
            self.uri, self.lite, token = str(path), True, None
        else:
            raise InsightStoreError("The Milvus store needs http(s)://host:19530 or a local path ending in .db.",
                                    hint="Enter the Milvus address in Settings → Sharing.")
        self._client: Any = self._call("connect", lambda: self._connect(token))
        try:
            self._ensure_collection()
        except BaseException:
            self.close()
            raise

    # -- the interface ------------------------------------------------------------------------------------

    def put(self, record: InsightRecord) -> None:
        self.put_many([record])

    def put_many(self, records: Sequence[InsightRecord], *, batch: int = PAGE) -> None:
        """Write records (a record_id already there is replaced): bulk loads and imports. A load of more than one
        batch is flushed after, so it is searched through the index rather than row by row (on Milvus Lite a
        search over 10,000 unflushed rows takes ~0.8 s, flushed ~0.1 s)."""
        rows = [self._row(r) for r in self._not_anothers(records, batch)]
        for start in range(0, len(rows), batch):
            chunk = rows[start:start + batch]
            self._call("write", lambda chunk=chunk: self._client.upsert(self.collection, chunk,
                                                                        timeout=self.timeout_s))
        if len(rows) > batch:
            self._call("flush", lambda: self._client.flush(self.collection, timeout=self.timeout_s))

    def _not_anothers(self, records: Sequence[InsightRecord], batch: int) -> list[InsightRecord]:
        """``records`` less those whose id another author's row holds: Milvus writes by upsert, which would let
        anyone replace a record by reusing its id (the other stores keep the first record with an id)."""
        owners: dict[str, str] = {}
        ids = list(dict.fromkeys(r.record_id for r in records))
        for start in range(0, len(ids), batch):
            expr = f"record_id in {_quote_list(ids[start:start + batch])}"
            rows = self._scan(expr, ["record_id", "author_key"])
            owners.update((row["record_id"], row["author_key"]) for row in rows)
        kept = [r for r in records if owners.get(r.record_id, r.author_key) == r.author_key]
        if len(kept) < len(records):
            logger.info("not written: %d record(s) whose id another author's record holds", len(records) - len(kept))
        return kept

    def query(self, vector: Sequence[float] | np.ndarray, *, exclude_author: str, embedding_model: str,
              top_k: int = 3, min_similarity: float = 0.0, now: float | None = None) -> list[ScoredInsight]:
        now = time.time() if now is None else now
        q = np.asarray(vector, dtype=np.float32).reshape(-1)
        norm = float(np.linalg.norm(q)) if q.size else 0.0
        if top_k <= 0 or q.shape[0] != self.dims or norm == 0.0 or not np.isfinite(norm):
            return []  # another model's size, or no direction: nothing here is comparable
        expr = (f"author_key != {_quote(exclude_author)} and embedding_model == {_quote(embedding_model)} "
                f"and expires_at > {float(now)!r}")
        result = self._call("search", lambda: self._client.search(
            self.collection, data=[(q / norm).tolist()], limit=min(int(top_k), MAX_TOP_K), filter=expr,
            output_fields=_OUTPUT, search_params={"metric_type": "COSINE"}, consistency_level="Strong",
            timeout=self.timeout_s))
        hits = []
        for hit in result[0] if result else []:
            similarity = float(hit["distance"])  # COSINE: the cosine itself, higher is closer
            record = self._record(hit["entity"])
            if similarity >= min_similarity and record.verified():  # a forged or edited row is never suggested
                hits.append(ScoredInsight(record, similarity))
        hits.sort(key=lambda h: -h.similarity)
        return hits

    def invalidate_followup(self, followup: str, *, key: AgentKey, record_id: str | None = None) -> int:
        expr = (f"author_key == {_quote(key.public_b64)} and "
                f"array_contains(followup_hashes, {_quote(followup_hash(followup))})")
        if record_id is not None:
            expr += f" and record_id == {_quote(record_id)}"
        with self._lock:  # one writer per process; across agents, the last write of a record wins
            removed, rows = 0, []
            for entity in self._scan(expr, _OUTPUT):
                record = self._record(entity)
                kept = record.without_followup(followup)
                if len(kept.suggested_followups) != len(record.suggested_followups):
                    removed += len(record.suggested_followups) - len(kept.suggested_followups)
                    rows.append(self._row(kept.signed_by(key)))  # the author's change, signed again
            if rows:
                self._call("write", lambda: self._client.upsert(self.collection, rows, timeout=self.timeout_s))
        return removed

    def expire(self, now: float | None = None) -> int:
        now = time.time() if now is None else now
        ids = [e["record_id"] for e in self._scan(f"expires_at <= {float(now)!r}", ["record_id"])]
        self._delete_ids(ids)
        return len(ids)

    def list_author(self, author_key: str) -> list[InsightRecord]:
        records = [self._record(e) for e in self._scan(f"author_key == {_quote(author_key)}", _OUTPUT)]
        return sorted((r for r in records if r.verified()), key=lambda r: r.created_at, reverse=True)

    def delete(self, record_ids: Sequence[str], *, key: AgentKey) -> int:
        wanted = list(dict.fromkeys(str(i) for i in record_ids))
        existing: list[str] = []
        for start in range(0, len(wanted), PAGE):
            expr = (f"author_key == {_quote(key.public_b64)} and "
                    f"record_id in {_quote_list(wanted[start:start + PAGE])}")
            existing += [e["record_id"] for e in self._scan(expr, ["record_id"])]
        self._delete_ids(existing)
        return len(existing)

    def describe(self) -> str:
        if self.lite:
            return f"Shared insights: Milvus Lite in {self.uri}, collection {self.collection}"
        parts = urlsplit(self.uri)
        where = f"{parts.scheme}://{parts.hostname or '?'}" + (f":{parts.port}" if parts.port else "")
        return f"Shared insights: Milvus at {where}, collection {self.collection}"  # no user, no token

    def close(self) -> None:
        with self._lock:
            client, self._client = getattr(self, "_client", None), None
        if client is not None:
            try:
                client.close()
            except Exception:  # closing: nothing left to save
                logger.debug("closing the Milvus client failed", exc_info=True)

    def __len__(self) -> int:
        rows = self._call("count", lambda: self._client.query(
            self.collection, filter="", output_fields=["count(*)"], consistency_level="Strong",
            timeout=self.timeout_s))
        return int(rows[0]["count(*)"]) if rows else 0

    # -- rows ---------------------------------------------------------------------------------------------

    def _row(self, record: InsightRecord) -> dict[str, Any]:
        if record.vector.shape[0] != self.dims:
            raise InsightStoreError(f"The insight's embedding has {record.vector.shape[0]} dimensions; this store "
                                    f"holds {self.dims}.", hint="Share with the same embedding model as the others.")
        if len(record.insight_summary.encode("utf-8")) > MAX_TEXT:
            raise InsightStoreError("The insight is too long for Milvus.", hint="Shorter summaries are shared.")
        hashes = list(dict.fromkeys(followup_hash(f) for f in record.suggested_followups))[:MAX_FOLLOWUP_KEYS]
        return {"record_id": record.record_id, "agent_id": record.agent_id, "db_kind": record.db_kind,
                "created_at": float(record.created_at), "expires_at": float(record.expires_at),
                "embedding_model": record.embedding_model, "insight_summary": record.insight_summary,
                "entities": list(record.entities), "suggested_followups": list(record.suggested_followups),
                "followup_hashes": hashes, "embedding": np.asarray(record.vector, dtype=np.float32).tolist(),
                "author_key": record.author_key, "signature": record.signature}

    @staticmethod
    def _record(entity: dict[str, Any]) -> InsightRecord:
        return InsightRecord(
            record_id=str(entity["record_id"]), agent_id=str(entity["agent_id"]), db_kind=str(entity["db_kind"]),
            created_at=float(entity["created_at"]), expires_at=float(entity["expires_at"]),
            embedding_model=str(entity["embedding_model"]), insight_summary=str(entity["insight_summary"]),
            entities=tuple(str(e) for e in entity.get("entities") or ()),
            suggested_followups=tuple(str(f) for f in entity.get("suggested_followups") or ()),
            vector=np.asarray(entity["embedding"], dtype=np.float32).reshape(-1),
            author_key=str(entity.get("author_key") or ""), signature=str(entity.get("signature") or ""))

    # -- Milvus -------------------------------------------------------------------------------------------

    def _connect(self, token: str | None) -> Any:
        from pymilvus import MilvusClient

        kwargs: dict[str, Any] = {"timeout": self.timeout_s}
        if token:
            kwargs["token"] = token
        return MilvusClient(self.uri, **kwargs)

    def _call(self, what: str, work: Callable[[], T]) -> T:
        """Run one pymilvus call; whatever it raises (MilvusException, gRPC, a Lite folder another process
        holds) becomes an InsightStoreError."""
        try:
            return work()
        except InsightStoreError:
            raise
        except Exception as exc:  # pymilvus raises several unrelated types: translate them all
            message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
            hint = _HINT
            if self.lite and ("lock" in message.lower() or "Open local milvus failed" in message):
                hint = "Another process holds this Milvus Lite file; Lite serves one process at a time."
            raise InsightStoreError(f"Milvus could not {what}: {str(message).splitlines()[0]}", hint=hint) from exc

    def _ensure_collection(self) -> None:
        if self._call("check the collection", lambda: self._client.has_collection(self.collection,
                                                                                   timeout=self.timeout_s)):
            info = self._call("describe the collection", lambda: self._client.describe_collection(
                self.collection, timeout=self.timeout_s))
            fields = {f["name"]: f for f in info.get("fields", [])}
            dim = (fields.get("embedding") or {}).get("params", {}).get("dim")
            if dim is None or int(dim) != self.dims or "followup_hashes" not in fields:
                raise InsightStoreError(f"The Milvus collection {self.collection} is not one of Cairn's "
                                        f"{self.dims}-dimensional insight collections (dim {dim}).",
                                        hint="Use another collection or embedding model.")
            if "signature" not in fields or "author_key" not in fields:
                raise InsightStoreError(f"The Milvus collection {self.collection} was made by an earlier Cairn, "
                                        "without signed records.",
                                        hint="Name another collection (its unsigned records would never be "
                                             "suggested), or drop this one.")
            self._call("load the collection", lambda: self._client.load_collection(self.collection,
                                                                                    timeout=self.timeout_s))
            return
        self._call("create the collection", self._create_collection)
        logger.info("Milvus collection %s created (%d dims)", self.collection, self.dims)

    def _create_collection(self) -> None:
        from pymilvus import DataType, MilvusClient

        schema = MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
        schema.add_field("record_id", DataType.VARCHAR, is_primary=True, max_length=128)
        schema.add_field("agent_id", DataType.VARCHAR, max_length=256)
        schema.add_field("db_kind", DataType.VARCHAR, max_length=64)
        schema.add_field("created_at", DataType.DOUBLE)
        schema.add_field("expires_at", DataType.DOUBLE)
        schema.add_field("embedding_model", DataType.VARCHAR, max_length=256)
        schema.add_field("insight_summary", DataType.VARCHAR, max_length=MAX_TEXT)
        schema.add_field("entities", DataType.JSON)
        schema.add_field("suggested_followups", DataType.JSON)
        schema.add_field("followup_hashes", DataType.ARRAY, element_type=DataType.VARCHAR,
                         max_capacity=MAX_FOLLOWUP_KEYS, max_length=64)
        schema.add_field("embedding", DataType.FLOAT_VECTOR, dim=self.dims)
        schema.add_field("author_key", DataType.VARCHAR, max_length=128)
        schema.add_field("signature", DataType.VARCHAR, max_length=256)
        index = self._client.prepare_index_params()
        index.add_index(field_name="embedding", index_type="AUTOINDEX", metric_type="COSINE")
        self._client.create_collection(self.collection, schema=schema, index_params=index,
                                       consistency_level="Strong", timeout=self.timeout_s)

    def _scan(self, expr: str, fields: list[str]) -> list[dict[str, Any]]:
        """Every row matching ``expr``: on a cluster a page at a time (a plain query stops at 16,384 rows); Milvus
        Lite has no such cap, and its server lacks a call the iterator makes (it logs an error each time)."""

        def work() -> list[dict[str, Any]]:
            if self.lite:
                return list(self._client.query(self.collection, filter=expr, output_fields=fields,
                                               consistency_level="Strong", timeout=self.timeout_s))
            iterator = self._client.query_iterator(self.collection, batch_size=PAGE, filter=expr,
                                                   output_fields=fields, consistency_level="Strong",
                                                   timeout=self.timeout_s)
            rows: list[dict[str, Any]] = []
            try:
                while page := iterator.next():
                    rows.extend(page)
            finally:
                iterator.close()
            return rows

        return self._call("read", work)

    def _delete_ids(self, ids: Sequence[str]) -> None:
        for start in range(0, len(ids), PAGE):
            chunk = list(ids[start:start + PAGE])
            self._call("delete", lambda chunk=chunk: self._client.delete(self.collection, ids=chunk,
                                                                         timeout=self.timeout_s))
