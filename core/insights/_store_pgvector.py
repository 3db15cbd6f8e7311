"""Shared insights in PostgreSQL + pgvector: a team's server by URL, or the embedded server's ``cairn_insights``.

One table (``cairn_insights`` by default) holds every agent's records; a query is one ``ORDER BY embedding <=> q``
through an HNSW cosine index, filtered to other agents, unexpired records and the same embedding model. pgvector
>= 0.8's iterative scan keeps the index walk going until k rows pass that filter (an agent whose own records
crowd the neighbourhood still gets k of the others'); the rows are sorted again by exact distance.

A team's server: the store needs only SELECT, INSERT, UPDATE and DELETE on its table. When the table exists it
never creates anything; when it does not, the store creates it (which needs CREATE on the schema, and the
extension may need a superuser). An admin can run this once instead, then give Cairn a least-privilege role::

    CREATE EXTENSION IF NOT EXISTS vector;
    CREATE TABLE IF NOT EXISTS cairn_insights (
        record_id text PRIMARY KEY,
        agent_id text NOT NULL,
        db_kind text NOT NULL,
        created_at double precision NOT NULL,          -- Unix seconds
        expires_at double precision NOT NULL,
        embedding_model text NOT NULL,
        insight_summary text NOT NULL,
        entities jsonb NOT NULL DEFAULT '[]',
        suggested_followups jsonb NOT NULL DEFAULT '[]',
        followup_keys text[] NOT NULL DEFAULT '{}',    -- the follow-ups folded (case, spacing): invalidation
        embedding vector(384) NOT NULL,
        author_key text NOT NULL DEFAULT '',           -- the author's public key: whose record it is
        signature text NOT NULL DEFAULT '');           -- the author's signature of the content
    CREATE INDEX IF NOT EXISTS cairn_insights_embedding_hnsw ON cairn_insights
        USING hnsw (embedding vector_cosine_ops);
    CREATE INDEX IF NOT EXISTS cairn_insights_author_idx ON cairn_insights (author_key, created_at);
    CREATE INDEX IF NOT EXISTS cairn_insights_expires_idx ON cairn_insights (expires_at);
    CREATE INDEX IF NOT EXISTS cairn_insights_followup_keys_idx ON cairn_insights USING gin (followup_keys);
    CREATE ROLE cairn_agent LOGIN PASSWORD '...';
    GRANT SELECT, INSERT, UPDATE, DELETE ON cairn_insights TO cairn_agent;

The URL carries no password (Cairn never saves one): libpq reads it from ``PGPASSWORD`` or ``~/.pgpass``, or
the caller passes ``password=``. A server that stalls never holds the caller long: connecting gives up after
``connect_timeout_s`` (5 s), a statement after ``statement_timeout_s`` (5 s) on the server, and should the server
not even answer that, the socket is shut from here two seconds later. Every value is a bound parameter.

Rows are signed by their authors (``_signing``): a row whose signature does not match is never returned, and an
invalidation or a delete touches only the caller's key's rows (an invalidated row is re-signed by that key). A
table made by an earlier Cairn gains the two columns on first use (its unsigned rows are then never suggested);
a role that may not ALTER it needs the admin to add them.
"""

from __future__ import annotations

import json
import logging
import os
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Self, TypeVar

import numpy as np

from core.errors import InsightStoreError
from core.insights._record import InsightRecord, ScoredInsight, followup_key
from core.insights._signing import AgentKey

__all__ = ["INSIGHTS_DATABASE", "INSIGHTS_TABLE", "PgVectorInsightStore", "create_table_sql"]

logger = logging.getLogger(__name__)

INSIGHTS_DATABASE = "cairn_insights"  # on the embedded server
INSIGHTS_TABLE = "cairn_insights"
DEFAULT_DIMS = 384
CONNECT_TIMEOUT_S = 5.0
STATEMENT_TIMEOUT_S = 5.0
DEADLINE_GRACE_S = 2.0  # after the server's own statement timeout, the socket is shut from here
EF_SEARCH = 100
_CREATE_LOCK = 0x43A1_1715  # pg_advisory_xact_lock key: two agents never create the table at once
_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")
_HINT = "Check the shared-insights server in Settings → Sharing, or choose the jsonl store."
_SETUP_HINT = ("Ask the server's admin to run the set-up script in core/insights/_store_pgvector.py once "
               "(CREATE EXTENSION vector, the table and its grants), or use the embedded server.")

T = TypeVar("T")


def create_table_sql(table: str = INSIGHTS_TABLE, dims: int = DEFAULT_DIMS) -> list[str]:
    """The statements that make ``table`` (an admin may run them by hand; see the module docstring)."""
    t = _identifier(table)
    return [
        f"""CREATE TABLE IF NOT EXISTS {t} (
                record_id text PRIMARY KEY,
                agent_id text NOT NULL,
                db_kind text NOT NULL,
                created_at double precision NOT NULL,
                expires_at double precision NOT NULL,
                embedding_model text NOT NULL,
                insight_summary text NOT NULL,
                entities jsonb NOT NULL DEFAULT '[]',
                suggested_followups jsonb NOT NULL DEFAULT '[]',
                followup_keys text[] NOT NULL DEFAULT '{{}}',
                embedding vector({int(dims)}) NOT NULL,
                author_key text NOT NULL DEFAULT '',
                signature text NOT NULL DEFAULT '')""",
        f"CREATE INDEX IF NOT EXISTS {t}_embedding_hnsw ON {t} USING hnsw (embedding vector_cosine_ops)",
        f"CREATE INDEX IF NOT EXISTS {t}_author_idx ON {t} (author_key, created_at)",
        f"CREATE INDEX IF NOT EXISTS {t}_expires_idx ON {t} (expires_at)",
        f"CREATE INDEX IF NOT EXISTS {t}_followup_keys_idx ON {t} USING gin (followup_keys)",
    ]


def _identifier(name: str) -> str:
    """A table name we put into SQL text: lower-case letters, digits and underscores only (never quoted)."""
    if not _NAME.fullmatch(name):
        raise InsightStoreError(f"{name!r} is not a usable table name for shared insights.",
                                hint="Use lower-case letters, digits and underscores.")
    return name


def _vector_literal(vector: np.ndarray) -> str:
    return "[" + ",".join(f"{float(x):.9g}" for x in vector) + "]"


def _parse_vector(text: str) -> np.ndarray:
    return np.array([float(x) for x in text.strip()[1:-1].split(",")], dtype=np.float32)


_COLUMNS = ("record_id, agent_id, db_kind, created_at, expires_at, embedding_model, insight_summary, entities, "
            "suggested_followups, author_key, signature")


class PgVectorInsightStore:
    """Insights in one pgvector table at ``url`` ("embedded" or "" for the embedded server's own database)."""

    kind = "pgvector"

    def __init__(self, url: str | None = None, *, table: str = INSIGHTS_TABLE, dims: int = DEFAULT_DIMS,
                 embedded: Any | None = None, data_dir: str | os.PathLike[str] | None = None,
                 password: str | None = None, connect_timeout_s: float = CONNECT_TIMEOUT_S,
                 statement_timeout_s: float = STATEMENT_TIMEOUT_S, ef_search: int = EF_SEARCH,
                 **_options: Any) -> None:
        self.table = _identifier(table)
        self.dims = int(dims)
        self.connect_timeout_s = max(2.0, float(connect_timeout_s))  # libpq's floor is 2 s
        self.statement_timeout_s = float(statement_timeout_s)
        self.ef_search = int(ef_search)
        self._password = password
        self._lock = threading.RLock()
        self._conn: Any = None
        self._embedded, self._owns_embedded = embedded, False
        url = (url or "").strip()
        if url in ("", "embedded"):
            self.url = self._embedded_url(data_dir)
        elif url.startswith(("postgresql://", "postgres://")):
            self.url = url
        else:
            raise InsightStoreError("The pgvector store needs a postgresql:// URL, or \"embedded\".",
                                    hint="Enter the team server's URL in Settings → Sharing (no password in it).")
        try:
            self._ensure_table()
        except BaseException:
            self.close()
            raise

    # -- the interface ------------------------------------------------------------------------------------

    def put(self, record: InsightRecord) -> None:
        self.put_many([record])

    def put_many(self, records: Sequence[InsightRecord]) -> None:
        """Add records in one transaction (a record_id already there is kept as it was)."""
        rows = [self._row(r) for r in records]
        if not rows:
            return
        sql = (f"INSERT INTO {self.table} ({_COLUMNS}, followup_keys, embedding) VALUES "
               "(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s::vector) ON CONFLICT (record_id) DO NOTHING")

        def work(conn: Any) -> None:
            with conn.cursor() as cur:
                cur.executemany(sql, rows)

        self._run(work)

    def copy_many(self, records: Sequence[InsightRecord]) -> None:
        """Bulk-load new records with COPY (ids must not exist yet): imports and benchmarks."""
        rows = [self._row(r, as_json_text=True) for r in records]

        def work(conn: Any) -> None:
            with conn.cursor() as cur, cur.copy(
                    f"COPY {self.table} ({_COLUMNS}, followup_keys, embedding) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)

        self._run(work)

    def query(self, vector: Sequence[float] | np.ndarray, *, exclude_author: str, embedding_model: str,
              top_k: int = 3, min_similarity: float = 0.0, now: float | None = None) -> list[ScoredInsight]:
        now = time.time() if now is None else now
        q = np.asarray(vector, dtype=np.float32).reshape(-1)
        norm = float(np.linalg.norm(q)) if q.size else 0.0
        if top_k <= 0 or q.shape[0] != self.dims or norm == 0.0 or not np.isfinite(norm):
            return []  # another model's size, or no direction: nothing here is comparable
        literal = _vector_literal(q / norm)
        # The inner walk may come back in relaxed order (iterative scan): the outer query sorts exactly.
        sql = (f"WITH nearest AS MATERIALIZED (SELECT {_COLUMNS}, embedding, embedding <=> %s::vector AS distance "
               f"FROM {self.table} WHERE author_key <> %s AND expires_at > %s AND embedding_model = %s "
               "ORDER BY distance LIMIT %s) "
               f"SELECT {_COLUMNS}, embedding::text, distance FROM nearest WHERE 1 - distance >= %s "
               "ORDER BY distance LIMIT %s")
        params = (literal, exclude_author, now, embedding_model, top_k, min_similarity, top_k)

        def work(conn: Any) -> list[tuple[Any, ...]]:
            conn.execute("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), "
                         "set_config('hnsw.ef_search', %s, true)", (str(max(self.ef_search, top_k)),))
            rows: list[tuple[Any, ...]] = conn.execute(sql, params).fetchall()
            return rows

        scored = [ScoredInsight(self._record(row[:-1]), 1.0 - float(row[-1])) for row in self._run(work)]
        return [hit for hit in scored if hit.record.verified()]  # a forged or edited row is never suggested

    def invalidate_followup(self, followup: str, *, key: AgentKey, record_id: str | None = None) -> int:
        folded = followup_key(followup)

        def work(conn: Any) -> int:
            rows = conn.execute(
                f"SELECT {_COLUMNS}, embedding::text FROM {self.table} WHERE author_key = %s "
                "AND followup_keys @> ARRAY[%s] AND (%s::text IS NULL OR record_id = %s) FOR UPDATE",
                (key.public_b64, folded, record_id, record_id)).fetchall()
            removed = 0
            for old in (self._record(row) for row in rows):
                new = old.without_followup(folded).signed_by(key)  # the author's change, signed again
                removed += len(old.suggested_followups) - len(new.suggested_followups)
                kept = list(new.suggested_followups)
                conn.execute(f"UPDATE {self.table} SET suggested_followups = %s::jsonb, followup_keys = %s, "
                             "signature = %s WHERE record_id = %s AND author_key = %s",
                             (json.dumps(kept), [followup_key(f) for f in kept], new.signature, old.record_id,
                              key.public_b64))
            return removed

        return self._run(work)

    def expire(self, now: float | None = None) -> int:
        now = time.time() if now is None else now
        return self._run(lambda conn: conn.execute(
            f"DELETE FROM {self.table} WHERE expires_at <= %s", (now,)).rowcount)

    def list_author(self, author_key: str) -> list[InsightRecord]:
        rows = self._run(lambda conn: conn.execute(
            f"SELECT {_COLUMNS}, embedding::text FROM {self.table} WHERE author_key = %s "
            "ORDER BY created_at DESC", (author_key,)).fetchall())
        return [r for r in (self._record(row) for row in rows) if r.verified()]

    def delete(self, record_ids: Sequence[str], *, key: AgentKey) -> int:
        ids = [str(i) for i in record_ids]
        if not ids:
            return 0
        return self._run(lambda conn: conn.execute(
            f"DELETE FROM {self.table} WHERE author_key = %s AND record_id = ANY(%s)", (key.public_b64, ids)).rowcount)

    def describe(self) -> str:
        from psycopg.conninfo import conninfo_to_dict

        try:
            info = conninfo_to_dict(self.url)
        except Exception:  # noqa: BLE001 - only for display
            info = {}
        where = "the embedded server" if self._embedded is not None else (
            f"{info.get('host') or 'local socket'}:{info.get('port') or 5432}")
        return (f"Shared insights: PostgreSQL + pgvector, table {self.table} in database "
                f"{info.get('dbname', '?')} on {where}")

    def close(self) -> None:
        with self._lock:
            conn, self._conn = self._conn, None
            if conn is not None and not conn.closed:
                conn.close()
            embedded, self._embedded = self._embedded, None
        if embedded is not None and self._owns_embedded:
            embedded.stop()

    def __len__(self) -> int:
        return int(self._run(lambda conn: conn.execute(f"SELECT count(*) FROM {self.table}").fetchone()[0]))

    # -- rows ---------------------------------------------------------------------------------------------

    def _row(self, record: InsightRecord, *, as_json_text: bool = False) -> tuple[Any, ...]:
        if record.vector.shape[0] != self.dims:
            raise InsightStoreError(f"The insight's embedding has {record.vector.shape[0]} dimensions; this store "
                                    f"holds {self.dims}.", hint="Share with the same embedding model as the others.")
        from psycopg.types.json import Jsonb

        entities, followups = list(record.entities), list(record.suggested_followups)
        return (record.record_id, record.agent_id, record.db_kind, record.created_at, record.expires_at,
                record.embedding_model, record.insight_summary,
                json.dumps(entities) if as_json_text else Jsonb(entities),
                json.dumps(followups) if as_json_text else Jsonb(followups), record.author_key, record.signature,
                [followup_key(f) for f in followups], _vector_literal(record.vector))

    @staticmethod
    def _record(row: Sequence[Any]) -> InsightRecord:
        (rid, agent, db_kind, created, expires, model, summary, entities, followups, author, signature, vector) = row
        return InsightRecord(record_id=rid, agent_id=agent, db_kind=db_kind, created_at=float(created),
                             expires_at=float(expires), embedding_model=model, insight_summary=summary,
                             entities=tuple(str(e) for e in entities or ()),
                             suggested_followups=tuple(str(f) for f in followups or ()),
                             vector=_parse_vector(vector), author_key=str(author or ""),
                             signature=str(signature or ""))

    # -- connection ---------------------------------------------------------------------------------------

    def _embedded_url(self, data_dir: str | os.PathLike[str] | None) -> str:
        if self._embedded is None:
            from core.databases import EmbeddedPostgres

            self._embedded = EmbeddedPostgres(Path(data_dir) if data_dir else None)
            self._owns_embedded = True
        try:
            url: str = self._embedded.memory_uri(INSIGHTS_DATABASE)  # its own database, the unprivileged role
        except BaseException:
            self.close()
            raise
        return url

    def _connect(self) -> Any:
        import psycopg

        if self._conn is None or self._conn.closed or self._conn.broken:
            self._conn = None
            extra: dict[str, Any] = {"password": self._password} if self._password else {}
            try:
                conn = psycopg.connect(self.url, autocommit=False, connect_timeout=int(self.connect_timeout_s),
                                       application_name="cairn-insights", **extra)
            except psycopg.Error as exc:
                raise InsightStoreError(f"Cannot connect to the shared-insights server: {_first_line(exc)}",
                                        hint=_HINT) from exc
            try:
                conn.execute("SELECT set_config('statement_timeout', %s, false), "
                             "set_config('lock_timeout', %s, false)",
                             (f"{int(self.statement_timeout_s * 1000)}ms",) * 2)
                conn.commit()
            except psycopg.Error as exc:
                conn.close()
                raise InsightStoreError(f"The shared-insights server refused the session: {_first_line(exc)}",
                                        hint=_HINT) from exc
            self._conn = conn
        return self._conn

    @contextmanager
    def _tx(self) -> Iterator[Any]:
        """One transaction, every psycopg error an InsightStoreError, and a deadline on a silent server."""
        import psycopg

        with self._lock:
            conn = self._connect()
            try:
                with _Deadline(conn, self.statement_timeout_s + DEADLINE_GRACE_S), conn.transaction():
                    yield conn
            except psycopg.errors.QueryCanceled as exc:
                raise InsightStoreError(f"The shared-insights server took over {self.statement_timeout_s:g} s.",
                                        hint=_HINT) from exc
            except psycopg.errors.InsufficientPrivilege as exc:
                raise InsightStoreError(f"The shared-insights role may not do that: {_first_line(exc)}",
                                        hint=_SETUP_HINT) from exc
            except psycopg.Error as exc:
                if conn.broken or conn.closed:
                    self._conn = None
                raise InsightStoreError(f"The shared-insights server refused the operation: {_first_line(exc)}",
                                        hint=_HINT) from exc

    def _run(self, work: Callable[[Any], T]) -> T:
        with self._tx() as conn:
            return work(conn)

    def _ensure_table(self) -> None:
        """The table, created only when it is missing (a least-privilege role never needs CREATE), and of our
        vector size."""

        def typmod(conn: Any) -> int | None:
            row = conn.execute("SELECT a.atttypmod FROM pg_attribute a WHERE a.attrelid = to_regclass(%s) "
                               "AND a.attname = 'embedding'", (self.table,)).fetchone()
            return None if row is None else int(row[0])

        found = self._run(typmod)
        if found is None:
            def create(conn: Any) -> int | None:
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_CREATE_LOCK,))
                if typmod(conn) is None:
                    if not conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone():
                        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
                    for statement in create_table_sql(self.table, self.dims):
                        conn.execute(statement)
                    logger.info("shared-insights table %s created (%d dims)", self.table, self.dims)
                return typmod(conn)

            try:
                found = self._run(create)
            except InsightStoreError as exc:
                raise InsightStoreError(f"The shared-insights table {self.table} does not exist and could not be "
                                        f"created: {exc.message}", hint=_SETUP_HINT) from exc
        if found != self.dims:
            raise InsightStoreError(f"The shared-insights table {self.table} holds {found}-dimensional embeddings; "
                                    f"this Cairn uses {self.dims}.",
                                    hint="Use another table or database for this embedding model.")
        self._ensure_signature_columns()

    def _ensure_signature_columns(self) -> None:
        """A table an earlier Cairn made has no author_key and signature: added once (its rows stay unsigned, so
        they are never suggested), or a clear error for a role that may not alter it."""

        def missing(conn: Any) -> list[str]:
            rows = conn.execute("SELECT a.attname FROM pg_attribute a WHERE a.attrelid = to_regclass(%s) "
                                "AND a.attname IN ('author_key', 'signature') AND NOT a.attisdropped",
                                (self.table,)).fetchall()
            return sorted({"author_key", "signature"} - {str(r[0]) for r in rows})

        if not self._run(missing):
            return

        def add(conn: Any) -> None:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_CREATE_LOCK,))
            for column in missing(conn):
                conn.execute(f"ALTER TABLE {self.table} ADD COLUMN IF NOT EXISTS {column} text NOT NULL DEFAULT ''")
            conn.execute(f"CREATE INDEX IF NOT EXISTS {self.table}_author_idx ON {self.table} (author_key, created_at)")

        try:
            self._run(add)
        except InsightStoreError as exc:
            raise InsightStoreError(f"The shared-insights table {self.table} has no columns for signatures and "
                                    f"they could not be added: {exc.message}",
                                    hint="Ask the server's admin to run: ALTER TABLE "
                                         f"{self.table} ADD COLUMN author_key text NOT NULL DEFAULT '', "
                                         "ADD COLUMN signature text NOT NULL DEFAULT ''.") from exc
        logger.info("shared-insights table %s: signature columns added", self.table)


class _Deadline:
    """Shuts the connection's socket if the block outlives ``seconds``: the server's statement timeout covers a
    slow query, this a server (or network) that has stopped answering at all. The blocked call then fails with a
    psycopg error at once, and the broken connection is replaced on the next call."""

    def __init__(self, conn: Any, seconds: float) -> None:
        self._conn, self._seconds = conn, seconds
        self._timer: threading.Timer | None = None

    def __enter__(self) -> Self:
        self._timer = threading.Timer(self._seconds, self._shut)
        self._timer.daemon = True
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._timer is not None:
            self._timer.cancel()

    def _shut(self) -> None:
        try:
            sock = socket.socket(fileno=os.dup(self._conn.fileno()))
        except (OSError, Exception):  # noqa: BLE001 - the connection may be gone already
            return
        try:
            sock.shutdown(socket.SHUT_RDWR)
            logger.warning("shared-insights server silent for %.0f s: connection cut", self._seconds)
        except OSError:
            pass
        finally:
            sock.close()


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
