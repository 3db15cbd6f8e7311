"""The main memory store: PostgreSQL with pgvector, in its own database (never the database being queried).

Search correctness matters more than the last millisecond: an HNSW scan combined with ``WHERE user_id = ...``
filters *after* the index walk and silently returns fewer rows than asked. So:
- a user with few memories (<= EXACT_SEARCH_MAX) is searched exactly: their rows come through the per-user
  B-tree index into a materialised CTE and are sorted by distance (the HNSW index cannot be used there);
- a larger user goes through HNSW with pgvector 0.8 iterative scans (``hnsw.iterative_scan = relaxed_order; the k rows are sorted here``)
  and a raised ``hnsw.ef_search``; if that still returns fewer rows than the user has, the search is re-run
  exactly. k rows always come back.
Every value is a bound parameter and every statement is filtered by ``user_id``.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from core.errors import CairnError, MemoryStoreError
from core.memory.kernel import ALL_DATABASES, Memory, Message, ScoredMemory
from core.memory.stores._pg_faults import abort, refused, server_stopped

__all__ = ["EXACT_SEARCH_MAX", "PgVectorMemoryStore", "SCHEMA_VERSION"]

logger = logging.getLogger(__name__)

SCHEMA_VERSION = 1
EXACT_SEARCH_MAX = 5000  # below this many rows an exact scan of one user costs a few ms
DEFAULT_EF_SEARCH = 100
MAX_SCAN_TUPLES = 50000
_MIGRATION_LOCK = 0x43A1_4E4D  # pg_advisory_xact_lock key: two processes never migrate at once

T = TypeVar("T")

_COLUMNS = "id, user_id, database_id, category, content, structured, source, created_at, updated_at"


def _migration_1(dims: int) -> list[str]:
    return [
        "CREATE EXTENSION IF NOT EXISTS vector",
        f"""CREATE TABLE IF NOT EXISTS memories (
                id text NOT NULL,
                user_id text NOT NULL,
                database_id text NOT NULL DEFAULT '{ALL_DATABASES}',
                category text NOT NULL,
                content text NOT NULL,
                structured jsonb,
                source text NOT NULL DEFAULT '',
                created_at double precision NOT NULL,
                updated_at double precision NOT NULL,
                embedding vector({int(dims)}),
                PRIMARY KEY (user_id, id))""",
        "CREATE INDEX IF NOT EXISTS memories_user_db_idx ON memories (user_id, database_id)",
        "CREATE INDEX IF NOT EXISTS memories_embedding_hnsw ON memories USING hnsw (embedding vector_cosine_ops)",
        """CREATE TABLE IF NOT EXISTS conversation_summaries (
                user_id text PRIMARY KEY,
                summary text NOT NULL,
                updated_at double precision NOT NULL)""",
        """CREATE TABLE IF NOT EXISTS recent_messages (
                id bigserial PRIMARY KEY,
                user_id text NOT NULL,
                role text NOT NULL CHECK (role IN ('user', 'assistant')),
                content text NOT NULL,
                sql text,
                created_at double precision NOT NULL)""",
        "CREATE INDEX IF NOT EXISTS recent_messages_user_idx ON recent_messages (user_id, id)",
        # which database a turn was about (follow-ups read only that database's turns); null for older rows
        "ALTER TABLE recent_messages ADD COLUMN IF NOT EXISTS database_id text",
    ]


def vector_literal(vector: Sequence[float]) -> str:
    """pgvector's text form; 9 significant digits round-trip every float32 (pgvector stores float32)."""
    return "[" + ",".join(f"{float(x):.9g}" for x in vector) + "]"


def _parse_vector(text: str | None) -> tuple[float, ...] | None:
    if text is None:
        return None
    body = text.strip()[1:-1]
    return tuple(float(x) for x in body.split(",")) if body else ()


LARGE_USER_TTL_S = 60.0


class PgVectorMemoryStore:
    """MemoryStore and ConversationStore on PostgreSQL + pgvector at ``uri`` (its own database)."""

    kind = "pgvector"

    def __init__(self, uri: str, *, dims: int = 384, ef_search: int = DEFAULT_EF_SEARCH,
                 exact_search_max: int = EXACT_SEARCH_MAX, embedded: Any | None = None,
                 owns_embedded: bool = False) -> None:  # fmt: skip
        self.uri = uri
        self.dims = dims
        self.ef_search = ef_search
        self.exact_search_max = exact_search_max
        # pgvector >= 0.8: keep walking until k rows pass the user filter. relaxed_order is enough: the k rows
        # are sorted by distance here anyway, and it is faster than strict_order.
        self.iterative_scan = "relaxed_order"
        self._lock = threading.RLock()
        # (user, database_id) -> time it was seen above exact_search_max: counting a large user costs ~7 ms a
        # search at 100k rows, so remember it for a while (a stale answer only picks HNSW, which falls back).
        self._large_users: dict[tuple[str, str | None], float] = {}
        self._conn: Any = None
        self._embedded = embedded  # the EmbeddedPostgres holding this database, if any (kept referenced)
        self._owns_embedded = owns_embedded
        try:
            self.migrate()
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ connection and migrations

    def describe(self) -> str:
        from psycopg.conninfo import conninfo_to_dict

        try:
            info = conninfo_to_dict(self.uri)
        except Exception:  # noqa: BLE001 - only for display
            info = {}
        pgdata = getattr(self._embedded, "pgdata", None)
        if pgdata is None:
            where = "embedded server" if self._embedded is not None else (info.get("host") or "local socket")
            return f"memory: PostgreSQL + pgvector, database {info.get('dbname', '?')} on {where}"
        root = getattr(self._embedded, "root", None)
        outside = f", outside the data directory {root}" if root is not None and not pgdata.is_relative_to(root) else ""
        return (f"memory: PostgreSQL + pgvector, database {info.get('dbname', '?')} on the embedded server, "
                f"kept in {pgdata}{outside}")

    def _where(self) -> str:
        """Where the memories are on disk: the embedded cluster's folder, or the named server."""
        pgdata = getattr(self._embedded, "pgdata", None)
        if pgdata is not None:
            return str(pgdata)
        from psycopg.conninfo import conninfo_to_dict

        try:
            host = conninfo_to_dict(self.uri).get("host") or "the local socket"
        except Exception:  # noqa: BLE001 - only for display
            host = "its host"
        return f"the memory database's server ({host})"

    def _connect(self) -> Any:
        if self._conn is None or self._conn.closed or self._conn.broken:
            self._conn = None
            self._conn = self._open(autocommit=False)
        return self._conn

    def _open(self, *, autocommit: bool) -> Any:
        """A new connection; when that fails and the server is Cairn's embedded one whose postmaster died, the
        server is started again once and the connection tried once more."""
        import psycopg

        try:
            return psycopg.connect(self.uri, autocommit=autocommit, connect_timeout=10)
        except psycopg.Error as exc:
            if not self._revive():
                raise server_stopped(exc, self._where()) from exc
        try:
            return psycopg.connect(self.uri, autocommit=autocommit, connect_timeout=10)
        except psycopg.Error as exc:
            raise server_stopped(exc, self._where()) from exc

    def _revive(self) -> bool:
        if self._embedded is None or not hasattr(self._embedded, "revive"):
            return False
        try:
            return bool(self._embedded.revive())
        except CairnError as exc:
            raise MemoryStoreError(f"The memory database's server stopped and could not be started again: {exc}",
                                   hint=exc.hint) from exc

    def _begin(self) -> tuple[Any, Any]:
        """A connection with a transaction begun. A connection the server dropped while it sat idle (the server
        restarted, the backend terminated) fails at BEGIN, before anything ran: it is opened again once."""
        import psycopg

        conn = self._connect()
        tx = conn.transaction()
        try:
            tx.__enter__()
        except psycopg.OperationalError as exc:
            if not conn.broken and not conn.closed:
                raise
            logger.info("the memory database dropped its connection (%s); connecting again", exc)
            conn = self._connect()
            tx = conn.transaction()
            tx.__enter__()
        return conn, tx

    @contextmanager
    def _tx(self) -> Iterator[Any]:
        """One transaction on the store's connection, errors translated to MemoryStoreError."""
        import psycopg

        with self._lock:
            try:
                conn, tx = self._begin()
                ok = False
                try:
                    yield conn
                    ok = True
                finally:
                    if ok:
                        tx.__exit__(None, None, None)
                    else:
                        abort(tx)
            except psycopg.Error as exc:
                raise refused(exc, self._where()) from exc

    @contextmanager
    def update_lock(self, user: str) -> Iterator[None]:
        """Held around one whole update cycle for ``user``: a session advisory lock on a connection of its own,
        so other processes updating the same person's memories wait their turn."""
        conn = self._open(autocommit=True)
        try:
            conn.execute("SELECT pg_advisory_lock(hashtextextended(%s, 0))", ("cairn-memory-update:" + user,))
            yield
        finally:
            conn.close()  # closing the session releases its advisory locks

    def _run(self, work: Callable[[Any], T]) -> T:
        with self._tx() as conn:
            return work(conn)

    def migrate(self) -> int:
        """Bring the schema to SCHEMA_VERSION; safe to run any number of times, from several processes."""

        def work(conn: Any) -> int:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
            conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version integer NOT NULL, "
                         "applied_at timestamptz NOT NULL DEFAULT now())")  # fmt: skip
            row = conn.execute("SELECT max(version) FROM schema_version").fetchone()
            current = int(row[0] or 0)
            if current < 1:
                for statement in _migration_1(self.dims):
                    conn.execute(statement)
                conn.execute("INSERT INTO schema_version (version) VALUES (1)")
                logger.info("memory schema created (version 1, %d dims)", self.dims)
            if current > SCHEMA_VERSION:
                raise MemoryStoreError(
                    f"The memory database has schema version {current}; this Cairn knows {SCHEMA_VERSION}.",
                    hint="Update Cairn, or point memory at another database.",
                )
            typmod = conn.execute(
                "SELECT atttypmod FROM pg_attribute WHERE attrelid = 'memories'::regclass AND attname = 'embedding'"
            ).fetchone()
            if typmod and typmod[0] != self.dims:
                raise MemoryStoreError(
                    f"The memory database holds {typmod[0]}-dimensional embeddings; this store uses {self.dims}.",
                    hint="Use the embedding model the memories were made with, or another memory database.",
                )
            return max(current, SCHEMA_VERSION)

        try:
            return self._run(work)
        except MemoryStoreError as exc:
            if "vector" in str(exc) and "extension" in str(exc):
                raise MemoryStoreError(
                    f"pgvector is not available in the memory database: {exc}",
                    hint="Install the pgvector extension on that server, or use the embedded one.",
                ) from exc
            raise

    def close(self) -> None:
        with self._lock:
            if self._conn is not None and not self._conn.closed:
                self._conn.close()
            self._conn = None
            embedded, self._embedded = self._embedded, None
        if embedded is not None and self._owns_embedded:
            embedded.stop()

    # ------------------------------------------------------------------ MemoryStore

    def _check(self, memory: Memory) -> None:
        if memory.embedding is not None and len(memory.embedding) != self.dims:
            raise MemoryStoreError(
                f"The memory embedding has {len(memory.embedding)} dimensions; this store holds {self.dims}.",
                hint="Use the same embedding model for every memory.",
            )

    @staticmethod
    def _row(memory: Memory) -> tuple[Any, ...]:
        from psycopg.types.json import Jsonb

        return (
            memory.id, memory.user, memory.database_id, memory.category, memory.content,
            Jsonb(dict(memory.structured)) if memory.structured else None, memory.source,
            memory.created_at, memory.updated_at,
            vector_literal(memory.embedding) if memory.embedding is not None else None,
        )  # fmt: skip

    def put(self, memory: Memory) -> None:
        self.put_many([memory])

    def put_many(self, memories: Sequence[Memory]) -> None:
        """Insert or replace by (user, id) in one transaction."""
        for memory in memories:
            self._check(memory)
        rows = [self._row(m) for m in memories]
        if not rows:
            return

        def work(conn: Any) -> None:
            with conn.cursor() as cur:
                cur.executemany(
                    f"INSERT INTO memories ({_COLUMNS}, embedding) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s::vector) "
                    "ON CONFLICT (user_id, id) DO UPDATE SET database_id = EXCLUDED.database_id, "
                    "category = EXCLUDED.category, content = EXCLUDED.content, "
                    "structured = EXCLUDED.structured, source = EXCLUDED.source, "
                    "created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at, "
                    "embedding = EXCLUDED.embedding",
                    rows,
                )

        self._run(work)
        self._forget_sizes(m.user for m in memories)

    def _forget_sizes(self, users: Any) -> None:
        gone = set(users)
        for key in [k for k in self._large_users if k[0] in gone]:
            self._large_users.pop(key, None)

    def copy_many(self, memories: Sequence[Memory]) -> None:
        """Bulk-load new memories with COPY (ids must not exist yet): imports and benchmarks."""
        for memory in memories:
            self._check(memory)

        def work(conn: Any) -> None:
            with conn.cursor() as cur, cur.copy(f"COPY memories ({_COLUMNS}, embedding) FROM STDIN") as copy:
                for memory in memories:
                    row = list(self._row(memory))
                    row[5] = json.dumps(dict(memory.structured)) if memory.structured else None
                    copy.write_row(row)

        self._run(work)
        self._forget_sizes(m.user for m in memories)

    def delete(self, user: str, memory_ids: Sequence[str]) -> int:
        ids = list(memory_ids)
        if not ids:
            return 0
        self._forget_sizes([user])
        return self._run(lambda conn: conn.execute(
            "DELETE FROM memories WHERE user_id = %s AND id = ANY(%s)", (user, ids)).rowcount)  # fmt: skip

    def clear(self, user: str) -> int:
        self._forget_sizes([user])
        return self._run(lambda conn: conn.execute("DELETE FROM memories WHERE user_id = %s", (user,)).rowcount)

    def list(self, user: str, *, database_id: str | None = None) -> list[Memory]:
        sql = f"SELECT {_COLUMNS}, embedding::text FROM memories WHERE user_id = %s"
        params: list[Any] = [user]
        if database_id is not None:
            sql += " AND database_id IN (%s, %s)"
            params += [database_id, ALL_DATABASES]
        sql += " ORDER BY created_at, id"
        rows = self._run(lambda conn: conn.execute(sql, params).fetchall())
        return [self._memory(row) for row in rows]

    @staticmethod
    def _memory(row: Sequence[Any]) -> Memory:
        return Memory(
            id=row[0], user=row[1], database_id=row[2], category=row[3], content=row[4],
            structured=row[5], source=row[6], created_at=float(row[7]), updated_at=float(row[8]),
            embedding=_parse_vector(row[9]),
        )  # fmt: skip

    def search(
        self, user: str, vector: Sequence[float], *, k: int = 5, database_id: str | None = None
    ) -> list[ScoredMemory]:
        if k <= 0:
            return []
        if len(vector) != self.dims:
            raise MemoryStoreError(
                f"The query vector has {len(vector)} dimensions; the memories have {self.dims}.",
                hint="Use the same embedding model for every memory.",
            )
        query = vector_literal(vector)
        where = "user_id = %(user)s"
        params: dict[str, Any] = {"user": user, "q": query, "k": k, "db": database_id, "all": ALL_DATABASES,
                                  "cap": self.exact_search_max + 1}  # fmt: skip
        if database_id is not None:
            where += " AND database_id IN (%(db)s, %(all)s)"

        size_key = (user, database_id)

        def work(conn: Any) -> list[Any]:
            seen_large = self._large_users.get(size_key)
            if seen_large is None or time.monotonic() - seen_large > LARGE_USER_TTL_S:
                available = conn.execute(
                    f"SELECT count(*) FROM (SELECT 1 FROM memories WHERE {where} LIMIT %(cap)s) few", params
                ).fetchone()[0]
                if available <= self.exact_search_max:
                    self._large_users.pop(size_key, None)
                    return self._exact(conn, where, params)
                self._large_users[size_key] = time.monotonic()
            # enable_sort=off leaves the planner one plan without a sort: the HNSW index walk (otherwise it may
            # pick the user index + sort, exact but slow for a large user, depending on stale statistics)
            conn.execute("SELECT set_config('hnsw.iterative_scan', %s, true), "
                         "set_config('hnsw.ef_search', %s, true), set_config('hnsw.max_scan_tuples', %s, true), "
                         "set_config('enable_sort', 'off', true)",
                         (self.iterative_scan, str(max(self.ef_search, k)), str(MAX_SCAN_TUPLES)))  # fmt: skip
            rows = conn.execute(  # the vector-to-text cast only for the k rows kept
                f"WITH top AS (SELECT {_COLUMNS}, embedding, embedding <=> %(q)s::vector AS distance "
                f"FROM memories WHERE {where} AND embedding IS NOT NULL "
                "ORDER BY embedding <=> %(q)s::vector LIMIT %(k)s) "
                f"SELECT {_COLUMNS}, embedding::text, distance FROM top",
                params,
            ).fetchall()
            if len(rows) < k:  # the user has more than k rows: fewer means the walk gave up early
                logger.info("HNSW returned %d of %d rows for a user; searching exactly", len(rows), k)
                conn.execute("SELECT set_config('enable_sort', 'on', true)")
                return self._exact(conn, where, params)
            return list(rows)

        started = time.perf_counter()
        rows = sorted(self._run(work), key=lambda row: float(row[10]))  # best first (no SQL sort: see above)
        logger.debug("memory search: %d rows in %.1f ms", len(rows), (time.perf_counter() - started) * 1000)
        return [ScoredMemory(self._memory(row), 1.0 - float(row[10])) for row in rows]

    @staticmethod
    def _exact(conn: Any, where: str, params: dict[str, Any]) -> list[Any]:
        """Every row of the user through the B-tree index, sorted by true distance (no ANN index possible)."""
        rows = conn.execute(
            f"WITH mine AS MATERIALIZED (SELECT {_COLUMNS}, embedding FROM memories WHERE {where} "
            "AND embedding IS NOT NULL), "
            f"top AS (SELECT {_COLUMNS}, embedding, embedding <=> %(q)s::vector AS distance "
            "FROM mine ORDER BY distance LIMIT %(k)s) "
            f"SELECT {_COLUMNS}, embedding::text, distance FROM top",
            params,
        ).fetchall()
        return list(rows)

    # ------------------------------------------------------------------ ConversationStore

    def append_message(self, user: str, message: Message, *, keep: int = 20) -> None:
        def work(conn: Any) -> None:
            conn.execute(
                "INSERT INTO recent_messages (user_id, role, content, sql, created_at, database_id) "
                "VALUES (%s, %s, %s, %s, %s, %s)",
                (user, message.role, message.content, message.sql, message.created_at, message.database_id),
            )
            conn.execute(
                "DELETE FROM recent_messages WHERE user_id = %(u)s AND id NOT IN "
                "(SELECT id FROM recent_messages WHERE user_id = %(u)s ORDER BY id DESC LIMIT %(keep)s)",
                {"u": user, "keep": max(keep, 0)},
            )

        self._run(work)

    def recent_messages(self, user: str, *, limit: int = 20) -> list[Message]:
        if limit <= 0:
            return []
        rows = self._run(lambda conn: conn.execute(
            "SELECT role, content, sql, created_at, database_id FROM recent_messages WHERE user_id = %s "
            "ORDER BY id DESC LIMIT %s", (user, limit)).fetchall())  # fmt: skip
        return [Message(role=r[0], content=r[1], sql=r[2], created_at=float(r[3]), database_id=r[4])
                for r in reversed(rows)]  # fmt: skip

    def summary(self, user: str) -> str:
        row = self._run(lambda conn: conn.execute(
            "SELECT summary FROM conversation_summaries WHERE user_id = %s", (user,)).fetchone())  # fmt: skip
        return str(row[0]) if row else ""

    def set_summary(self, user: str, summary: str) -> None:
        self._run(lambda conn: conn.execute(
            "INSERT INTO conversation_summaries (user_id, summary, updated_at) VALUES (%s, %s, %s) "
            "ON CONFLICT (user_id) DO UPDATE SET summary = EXCLUDED.summary, updated_at = EXCLUDED.updated_at",
            (user, summary, time.time())))  # fmt: skip

    def forget_conversation(self, user: str) -> None:
        def work(conn: Any) -> None:
            conn.execute("DELETE FROM recent_messages WHERE user_id = %s", (user,))
            conn.execute("DELETE FROM conversation_summaries WHERE user_id = %s", (user,))

        self._run(work)
