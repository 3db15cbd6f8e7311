"""Files and DuckDB databases, through DuckDB: ``cairn ask --db sales.csv`` (or a folder, Parquet, JSON, Excel,
a ``.duckdb`` file).

Each data file is a view over DuckDB's reader of the file (see ``_sources``), in an in-memory catalogue; a
``.duckdb`` file is opened read-only. Then DuckDB itself is locked down before any question runs: no file but the
opened ones may be read (``allowed_paths`` + ``enable_external_access = false``), no extension may be installed or
loaded, and the configuration is locked (``lock_configuration``), so ``SET`` cannot undo it. Every query runs in a
``READ ONLY`` transaction that is rolled back; a timer interrupts it at the timeout, ``cancel`` interrupts it from
another thread, and rows are fetched in batches under the row and byte caps.
"""

from __future__ import annotations

import logging
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from core.cancellation import Cancellation
from core.databases._base import QueryLimits, QueryResult
from core.databases._fetch import RowCollector
from core.databases._inferred_keys import SAMPLE_ROWS, with_inferred_keys
from core.databases._shared import (HINT_SAMPLE_ROWS, MAX_HINT_VALUE_CHARS, MAX_VALUE_HINTS, OneConnection, cached_schema,
                                    clean_hints)
from core.databases.files._sources import (Source, discover, excel_as_csv, number_format, reader_sql, table_name,
                                           utf8_copy)
from core.errors import ConfigError, DatabaseError, DatabaseUnavailable, QueryCancelled, QueryFailed, QueryTimeout
from core.schema import Column, Schema, Table

__all__ = ["DUCKDB_SUFFIXES", "FilesDatabase", "is_duckdb_file"]

logger = logging.getLogger(__name__)

DUCKDB_SUFFIXES = (".duckdb", ".ddb")
_MAGIC = b"DUCK"  # bytes 8..12 of a DuckDB database file
_BATCH = 1000
MEMORY_LIMIT = "1GB"
KEY_CHECK_S = 2.0  # time for proving one file's key column unique
KEY_CHECK_MAX_BYTES = 64 * 1024 * 1024  # a bigger file gets no key proof: it would read the whole file at open  # DuckDB's own cap; sorts and joins beyond it fail with a clear error


def is_duckdb_file(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return fh.read(12)[8:12] == _MAGIC
    except OSError:
        return False


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class FilesDatabase(OneConnection):
    """Data files (or one DuckDB database file) queried read-only through DuckDB."""

    dialect = "duckdb"

    def __init__(self, paths: Sequence[str | Path], *, cache_dir: Path | None = None) -> None:
        import duckdb  # noqa: F401 - fail here, with a hint, not on the first question

        resolved = [Path(p).expanduser().resolve() for p in paths]
        missing = [p for p in resolved if not p.exists()]
        if not resolved or missing:
            raise ConfigError(f"No file at {missing[0] if missing else '(nothing given)'}.",
                              hint="Check the path; a folder opens every data file in it.")
        self.paths = resolved
        self.database_file = resolved[0] if len(resolved) == 1 and is_duckdb_file(resolved[0]) else None
        self.sources: list[Source] = [] if self.database_file else discover(resolved)
        self._cache_dir = cache_dir
        self.id = "duckdb:///" + ";".join(str(p) for p in resolved)
        self._conn: Any = None
        self._lock = threading.Lock()
        self._closed = False
        self._temp: Path | None = None

    def __repr__(self) -> str:
        return f"FilesDatabase({self.id!r})"

    # -- connection --------------------------------------------------------------------------------------

    def _connection(self) -> Any:
        """The shared, locked-down connection (caller holds the lock)."""
        if self._closed:
            raise DatabaseUnavailable(f"{self.id} was closed.", hint="Open the files again.")
        if self._conn is None:
            self._conn = self._open()
        return self._conn

    def _open(self) -> Any:
        import duckdb

        # DuckDB always allows its temp folder (by default .tmp in the working folder): a private, empty one instead
        self._temp = Path(tempfile.mkdtemp(prefix="cairn-duckdb-"))
        config = {"autoinstall_known_extensions": False, "autoload_known_extensions": False,
                  "memory_limit": MEMORY_LIMIT, "temp_directory": str(self._temp)}
        try:
            if self.database_file is not None:
                conn = duckdb.connect(str(self.database_file), read_only=True, config=config)
                allowed = [str(self.database_file)]
            else:
                conn = duckdb.connect(":memory:", config=config)
                self._avoid_key_words(conn)
                allowed = [self._define(conn, source) for source in self.sources]
            conn.execute("SET allowed_paths = $paths", {"paths": allowed})
            conn.execute("SET enable_external_access = false")
            conn.execute("SET lock_configuration = true")
        except duckdb.Error as exc:
            raise ConfigError(f"Cannot open {self._shown()}: {_first_line(exc)}",
                              hint="Check the file is complete and in one of the formats Cairn reads.") from exc
        return conn

    def close(self) -> None:
        super().close()
        if self._temp is not None:
            shutil.rmtree(self._temp, ignore_errors=True)

    def _avoid_key_words(self, conn: Any) -> None:
        """A file named like a reserved word (``order.csv``) gets a table name a model can write bare."""
        reserved = {r[0] for r in conn.execute(
            "SELECT keyword_name FROM duckdb_keywords() WHERE keyword_category <> 'unreserved'").fetchall()}
        taken = {s.table for s in self.sources}
        for source in self.sources:
            if source.table in reserved:
                source.table = table_name(source.table + "_table", taken)
                taken.add(source.table)

    def _define(self, conn: Any, source: Source) -> str:
        """Create the view of one file; returns the path DuckDB must be allowed to read."""
        import duckdb

        if source.kind == "xlsx":
            excel_as_csv(source, self._cache("excel"))
        elif source.path.stat().st_size == 0:
            raise ConfigError(f"{source.path.name} is empty: there is no table to read.",
                              hint="Export the data again, with a header row and at least the column names.")
        for attempt in range(3):
            try:
                conn.execute(f"CREATE OR REPLACE VIEW {_q(source.table)} AS SELECT * FROM {reader_sql(source)}")
                described = conn.execute(f"DESCRIBE {_q(source.table)}").fetchall()
            except duckdb.Error as exc:
                text = str(exc)
                if source.kind == "csv" and source.read_path is None and ("unicode" in text.lower()
                                                                          or "utf" in text.lower()):
                    utf8_copy(source, self._cache("text"))  # not UTF-8: a UTF-8 copy, and say so
                    continue
                raise ConfigError(f"Cannot read {source.path.name} as a table: {_first_line(exc)}",
                                  hint=_read_hint(source)) from exc
            if source.kind != "csv" or attempt == 2 or "thousands" in source.options:
                break
            found = self._number_options(conn, source, described)
            if not found:
                break
            options, columns = found
            source.options.update(options)
            source.types.update({name: "DOUBLE" for name in columns})  # DuckDB's sniffer may not see them alone
        else:
            raise ConfigError(f"Cannot read {source.path.name} as a table.", hint=_read_hint(source))
        columns = [row[0] for row in described]
        if columns and all(c.startswith("column") and c[6:].isdigit() for c in columns):
            source.notes.append("no header row: columns are named column0, column1, …")
        if "thousands" in source.options:
            sep = "1.200,50" if source.options.get("decimal_separator") == "," else "1,200.50"
            source.notes.append(f"numbers written like {sep} read as numbers")
        return str(source.reads)

    @staticmethod
    def _number_options(conn: Any, source: Source, described: list[Any]) -> tuple[dict[str, str], list[str]] | None:
        """Separators that read every sampled text column holding numbers as numbers, and those columns; None when
        there are none or two columns disagree on the separators (both are then read as written)."""
        texts = [row[0] for row in described if str(row[1]).upper() == "VARCHAR"]
        found: dict[str, str] | None = None
        columns: list[str] = []
        for name in texts[:50]:
            sample = [r[0] for r in conn.execute(
                f"SELECT {_q(name)} FROM {_q(source.table)} WHERE {_q(name)} IS NOT NULL LIMIT 1000").fetchall()]
            options = number_format([str(v) for v in sample])
            if options is None:
                continue
            if found is not None and options != found:
                return None
            found = options
            columns.append(name)
        return (found, columns) if found else None

    def _cache(self, kind: str) -> Path:
        """Where copies are kept (an Excel sheet as CSV, a file as UTF-8): the given folder, else Cairn's cache."""
        if self._cache_dir is not None:
            return self._cache_dir / kind
        from platformdirs import user_cache_dir

        return Path(user_cache_dir("cairn")) / kind

    def _shown(self) -> str:
        return str(self.database_file or (self.paths[0] if len(self.paths) == 1 else f"{len(self.paths)} files"))

    # -- Database protocol --------------------------------------------------------------------------------

    def schema(self, *, refresh: bool = False) -> Schema:
        return cached_schema(self.id, self._introspect, refresh=refresh)

    def execute(
        self, sql: str, *, limits: QueryLimits = QueryLimits(), cancel: Cancellation | None = None
    ) -> QueryResult:
        """Run one statement in a read-only transaction, under the row, byte and time limits."""
        import duckdb

        limits = limits.clamped()
        if cancel is not None:
            cancel.raise_if_cancelled()
        if not _plain_query(sql):
            raise QueryFailed("Only a plain query runs on files: this statement was refused before it ran.",
                              hint="Ask a question, or run a SELECT.")
        started = time.perf_counter()
        collector = RowCollector(limits)
        with self._lock:
            conn = self._connection()
            timer = threading.Timer(limits.timeout_s, conn.interrupt)
            timer.daemon = True
            unregister = cancel.register(conn.interrupt) if cancel is not None else None
            try:
                conn.execute("BEGIN TRANSACTION READ ONLY")
                timer.start()
                cur = conn.execute(sql)
                columns = tuple(d[0] for d in cur.description or ())
                while cur.description and collector.wanted:
                    batch = cur.fetchmany(min(_BATCH, collector.wanted))
                    if not batch or not all(collector.add(row) for row in batch):
                        break
            except duckdb.InterruptException as exc:
                if cancel is not None and cancel.cancelled:
                    raise QueryCancelled("The query was cancelled.") from exc
                raise QueryTimeout(f"The query ran past the timeout of {limits.timeout_s:g} s and was stopped.") from exc
            except duckdb.OutOfMemoryException as exc:
                raise QueryFailed(f"The query needed more than DuckDB's {MEMORY_LIMIT} memory limit and was stopped.",
                                  hint="Aggregate before sorting, or select fewer columns or rows.") from exc
            except (duckdb.Error, ValueError, OverflowError, MemoryError) as exc:
                raise _failed(exc) from exc
            finally:
                timer.cancel()
                if unregister is not None:
                    unregister()
                try:
                    conn.execute("ROLLBACK")
                except duckdb.Error:
                    pass
        return collector.result(columns, started)

    # -- introspection ------------------------------------------------------------------------------------

    def _introspect(self) -> Schema:
        import duckdb

        started = time.perf_counter()
        with self._lock:
            conn = self._connection()
            try:
                rows = conn.execute(
                    "SELECT table_schema, table_name, column_name, data_type, is_nullable FROM information_schema.columns "
                    "WHERE table_schema NOT IN ('information_schema', 'pg_catalog') AND table_catalog = current_database() "
                    "ORDER BY table_schema, table_name, ordinal_position").fetchall()
                keys = self._primary_keys(conn)
                by_table: dict[tuple[str, str], list[Column]] = {}
                for schema_name, table, column, type_, nullable in rows:
                    by_table.setdefault((schema_name, table), []).append(
                        Column(column, str(type_), nullable=nullable == "YES"))
                notes = {s.table: s for s in self.sources}
                tables = []
                for (schema_name, name), columns in by_table.items():
                    hints = self._value_hints(conn, schema_name, name, columns)
                    columns = [Column(c.name, c.type, c.nullable, value_hints=hints.get(c.name, ())) for c in columns]
                    key = keys.get((schema_name, name)) or self._proven_key(conn, schema_name, name, columns)
                    tables.append(Table(name, tuple(columns), schema=None if schema_name == "main" else schema_name,
                                        primary_key=key, comment=_comment(notes.get(name))))
            except duckdb.Error as exc:
                raise QueryFailed(f"Cannot read the tables of {self._shown()}: {_first_line(exc)}") from exc
            schema = Schema(dialect="duckdb", tables=tuple(tables), database_id=self.id)
            schema = with_inferred_keys(schema, lambda t, c, r, k: self._orphan_found(conn, t, c, r, k))
        logger.info("introspected %s: %d tables in %.2fs", self.id, len(tables), time.perf_counter() - started)
        return schema

    @staticmethod
    def _primary_keys(conn: Any) -> dict[tuple[str, str], tuple[str, ...]]:
        keys: dict[tuple[str, str], tuple[str, ...]] = {}
        for schema_name, table, columns in conn.execute(
                "SELECT schema_name, table_name, constraint_column_names FROM duckdb_constraints() "
                "WHERE constraint_type = 'PRIMARY KEY'").fetchall():
            keys[(schema_name, table)] = tuple(columns)
        return keys

    def _source_of(self, table: str) -> Source | None:
        return next((s for s in self.sources if s.table == table), None)

    def _proven_key(self, conn: Any, schema_name: str, table: str, columns: list[Column]) -> tuple[str, ...]:
        """A file declares no key: a column named like one (``id``, ``<table>_id``, ``<table>id``) that is unique
        and never empty over the whole file is its key (a proof, not a sample: the file is read once, within
        KEY_CHECK_S; a file over KEY_CHECK_MAX_BYTES gets no key). A table of a DuckDB file keeps what it declares."""
        import duckdb

        source = self._source_of(table)
        if source is None or source.reads.stat().st_size > KEY_CHECK_MAX_BYTES:
            return ()
        stem = table.lower().rstrip("s")
        wanted = {"id", f"{table.lower()}_id", f"{stem}_id", f"{table.lower()}id", f"{stem}id"}
        for col in columns:
            if col.name.lower() not in wanted:
                continue
            timer = threading.Timer(KEY_CHECK_S, conn.interrupt)
            timer.start()
            try:
                total, distinct = conn.execute(
                    f"SELECT COUNT(*), COUNT(DISTINCT {_q(col.name)}) FROM {_q(schema_name)}.{_q(table)}").fetchone()
            except duckdb.Error as exc:
                logger.info("no key checked for %s.%s: %s", table, col.name, exc)
                return ()
            finally:
                timer.cancel()
            return (col.name,) if total and total == distinct else ()
        return ()

    @staticmethod
    def _value_hints(conn: Any, schema_name: str, table: str, columns: list[Column]) -> dict[str, tuple[str, ...]]:
        """Up to MAX_VALUE_HINTS frequent values per text column, from the first HINT_SAMPLE_ROWS rows."""
        import duckdb

        out: dict[str, tuple[str, ...]] = {}
        source = f"{_q(schema_name)}.{_q(table)}"
        for col in columns:
            if "CHAR" not in col.type.upper() and "TEXT" not in col.type.upper() and col.type.upper() != "STRING":
                continue
            try:
                rows = conn.execute(
                    f"SELECT v FROM (SELECT left(CAST({_q(col.name)} AS VARCHAR), {MAX_HINT_VALUE_CHARS + 1}) AS v "
                    f"FROM (SELECT {_q(col.name)} FROM {source} LIMIT {HINT_SAMPLE_ROWS})) WHERE v IS NOT NULL "
                    f"GROUP BY v ORDER BY count(*) DESC, v LIMIT {MAX_VALUE_HINTS + 1}").fetchall()
            except duckdb.Error as exc:
                logger.info("no value hints for %s.%s: %s", table, col.name, exc)
                continue
            out[col.name] = clean_hints(r[0] for r in rows)
        return out

    @staticmethod
    def _orphan_found(conn: Any, table: Table, col: Column, ref: Table, key: Column) -> bool:
        query = (f"SELECT 1 FROM (SELECT {_q(col.name)} AS v FROM {_q(table.name)} WHERE {_q(col.name)} IS NOT NULL "
                 f"LIMIT {SAMPLE_ROWS}) s WHERE NOT EXISTS (SELECT 1 FROM {_q(ref.name)} r WHERE r.{_q(key.name)} = s.v) "
                 "LIMIT 1")
        return conn.execute(query).fetchone() is not None


def _comment(source: Source | None) -> str | None:
    if source is None:
        return None
    return f"from {source.path.name}" + (f" ({'; '.join(source.notes)})" if source.notes else "")


def _read_hint(source: Source) -> str:
    if source.kind == "csv":
        return ("Check the file is text with one header row and one separator (comma, semicolon or tab); an empty "
                "file has no table to read.")
    return f"Check the file is a complete {source.kind} file."


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _failed(exc: BaseException) -> DatabaseError:
    text = _first_line(exc)
    line = re.search(r"CSV Error on Line:? (\d+)", str(exc))
    if line or "Could not convert" in text:
        where = f" on line {line.group(1)}" if line else ""
        return QueryFailed(f"A value in the file{where} does not fit its column's type ({text}).",
                           hint="Fix that value in the file, or export it again; Cairn reads each column's type from "
                                "the file's first rows.")
    if "permission" in text.lower() or "external access" in text.lower():
        return QueryFailed(f"The query tried to reach outside the opened files: {text}",
                           hint="Ask about the tables Cairn opened; other files are not read.")
    return QueryFailed(text)


def _plain_query(sql: str) -> bool:
    """A SELECT, WITH, VALUES, TABLE or DuckDB's FROM-first query, by DuckDB's own tokenizer: not SET (search_path is
    the one setting lock_configuration leaves open), PRAGMA, CALL, DESCRIBE or a write."""
    import duckdb

    try:
        tokens = [start for start, kind in duckdb.tokenize(sql) if kind != duckdb.token_type.comment]
    except (duckdb.Error, RuntimeError, ValueError):
        return False
    for start in tokens:
        if sql[start] == "(":
            continue
        word = re.match(r"[A-Za-z_]+", sql[start:])
        return word is not None and word.group(0).upper() in ("SELECT", "WITH", "VALUES", "TABLE", "FROM")
    return False
