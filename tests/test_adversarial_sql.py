"""Nothing a model writes may change data: the guard refuses the adversarial corpus with a reason, and the
executors refuse the same writes on their own when the guard is bypassed (defence in depth).

Counts are logged (run with ``-o log_cli=true --log-cli-level=INFO`` to see them) and asserted.
"""

from __future__ import annotations

import hashlib
import logging
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlglot import exp

from core.databases import SqliteDatabase, open_database
from core.errors import CairnError, LLMReplyError, SQLRejected
from core.sql import extract_sql
from core.sql import guard
from tests.adversarial_corpus import (
    BYPASS_POSTGRES,
    BYPASS_SEQUENCES,
    BYPASS_SQLITE,
    CASES,
    HARMLESS_LOOKALIKES,
    LOCKED_READS,
    AdversarialCase,
)
from tests.conftest import shared_data_path
from tests.defog_gold import gold_queries

logger = logging.getLogger(__name__)

MIN_CASES = 150
MIN_BYPASS = 20


# --- 1. the guard refuses every case, with its reason -----------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.category}:{c.sql[:40]}")
def test_guard_rejects_with_a_clear_reason(case: AdversarialCase) -> None:
    with pytest.raises(SQLRejected) as info:
        guard(case.sql, case.dialect)
    message = str(info.value)
    assert case.reason in message, message
    assert "not allowed" in message or "only one statement" in message, message  # a reason, not a parse error
    assert info.value.hint


def test_corpus_counts_tried_and_blocked() -> None:
    """Every case is tried; the number blocked must equal the number tried."""
    tried, blocked = len(CASES), 0
    for case in CASES:
        try:
            guard(case.sql, case.dialect)
        except SQLRejected as exc:
            blocked += case.reason in str(exc)
    by_category = Counter(c.category for c in CASES)
    logger.info("adversarial corpus: %d tried, %d blocked; by category %s", tried, blocked, dict(by_category))
    assert tried >= MIN_CASES
    assert blocked == tried
    assert len({(c.sql, c.dialect) for c in CASES}) == tried  # no duplicates padding the count
    assert by_category["sqlite"] >= 20 and len(by_category) >= 12


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.category}:{c.sql[:40]}")
def test_extracted_from_a_chatty_reply_still_refused(case: AdversarialCase) -> None:
    """Wrapped the way a model wraps SQL, the statement is refused, not found at all, or cut to its harmless
    first statement or a read-only part of it (``VALUES (1)`` of an UPSERT): no write ever comes out."""
    reply = f"Sure! Here is the query you asked for:\n```sql\n{case.sql}\n```\nThis returns what you need."
    try:
        checked = guard(extract_sql(reply), case.dialect)
    except (SQLRejected, LLMReplyError):
        return
    assert isinstance(checked.expression, (exp.Query, exp.Values)) and not _writes(checked.expression)


def _writes(tree: exp.Expression) -> bool:
    return tree.find(exp.Insert, exp.Update, exp.Delete, exp.Merge, exp.Create, exp.Drop, exp.Into) is not None


def test_unicode_lookalikes_are_refused_or_harmless(sample_db_uri: str) -> None:
    """A fullwidth ';' is not a separator to PostgreSQL: what passes is one read-only SELECT, and it runs."""
    before = _pg_snapshot(sample_db_uri)
    for sql in HARMLESS_LOOKALIKES:
        try:
            checked = guard(sql, "postgres")
        except SQLRejected:
            continue
        assert isinstance(checked.expression, exp.Select) and not _writes(checked.expression)
        with psycopg.connect(sample_db_uri) as conn:
            conn.read_only = True
            conn.execute(checked.sql).fetchall()
    assert _pg_snapshot(sample_db_uri) == before


# --- 2. defence in depth: the executors refuse writes without the guard -----------------------------------


def _pg_snapshot(uri: str) -> dict[str, Any]:
    """Row counts, content checksums, columns, relations, comments and sequence positions of public."""
    with psycopg.connect(uri, autocommit=True) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY 1").fetchall()]  # fmt: skip
        snap: dict[str, Any] = {
            "relations": conn.execute(
                "SELECT relname, relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = 'public' ORDER BY 1"
            ).fetchall(),
            "columns": conn.execute(
                "SELECT table_name, column_name, data_type FROM information_schema.columns "
                "WHERE table_schema = 'public' ORDER BY 1, 2"
            ).fetchall(),
            "comments": conn.execute(
                "SELECT c.relname, obj_description(c.oid, 'pg_class') FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' ORDER BY 1"
            ).fetchall(),
            "sequences": conn.execute(
                "SELECT sequencename, last_value FROM pg_sequences WHERE schemaname = 'public' ORDER BY 1"
            ).fetchall(),
        }
        for table in tables:
            snap[table] = conn.execute(
                f'SELECT count(*), md5(coalesce(string_agg(t::text, \'|\' ORDER BY t::text), \'\')) FROM "{table}" t'
            ).fetchone()
    return snap


def test_postgres_executor_refuses_writes_without_the_guard(sample_db_uri: str) -> None:
    assert len(BYPASS_POSTGRES) >= MIN_BYPASS
    before = _pg_snapshot(sample_db_uri)
    assert before["orders"][0] > 0 and before["customers"][0] > 0
    db = open_database(sample_db_uri)
    failed: list[str] = []
    try:
        for sql in BYPASS_POSTGRES:
            try:
                db.execute(sql)
            except CairnError as exc:
                failed.append(sql)
                logger.debug("refused by the server: %s -> %s", sql, exc)
            # the pooled connection must stay read-only after every attempt
            assert db.execute("SELECT current_setting('transaction_read_only')").rows == (("on",),)
    finally:
        db.close()
    logger.info("postgres bypass writes: %d tried, %d failed", len(BYPASS_POSTGRES), len(failed))
    assert failed == BYPASS_POSTGRES
    assert _pg_snapshot(sample_db_uri) == before


def test_sequences_do_not_move_without_the_guard(embedded_pg: Any) -> None:
    """nextval/setval are writes too; the sample database has no sequence, so a fresh one is made."""
    name = "cairn_adversarial_seq"
    embedded_pg.ensure_database(name)
    uri = embedded_pg.uri(name)
    with psycopg.connect(uri, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS counters; CREATE TABLE counters (id serial PRIMARY KEY, v text)")
        conn.execute("INSERT INTO counters (v) VALUES ('a'), ('b'), ('c')")
        seq = conn.execute("SELECT pg_get_serial_sequence('counters', 'id')").fetchone()[0]

    def position() -> tuple[Any, ...]:
        with psycopg.connect(uri, autocommit=True) as conn:
            return tuple(conn.execute(f"SELECT last_value, is_called FROM {seq}").fetchone())

    before = position()
    db = open_database(uri)
    failed = 0
    try:
        for template in BYPASS_SEQUENCES:
            sql = template.replace("{seq}", seq)
            with pytest.raises(CairnError, match="read-only"):
                db.execute(sql)
            failed += 1
            with pytest.raises(SQLRejected):
                guard(sql, "postgres")
    finally:
        db.close()
    logger.info("sequence bypass writes: %d tried, %d failed", len(BYPASS_SEQUENCES), failed)
    assert position() == before == (3, True)


def test_copy_to_program_is_refused_by_the_executor_too(sample_db_uri: str) -> None:
    drop = Path(tempfile.mkdtemp(prefix="cairn-copy-"))  # directly in /tmp: the server's OS user can reach it
    drop.chmod(0o777)
    marker = drop / "ran"
    db = open_database(sample_db_uri)
    try:
        with pytest.raises(CairnError):
            db.execute(f"COPY (SELECT 1) TO PROGRAM 'touch {marker}'")
        assert not marker.exists(), "the shell command ran on the database server"
    finally:
        db.close()
        shutil.rmtree(drop, ignore_errors=True)


def _file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_sqlite_executor_refuses_writes_without_the_guard(tmp_path: Path) -> None:
    assert len(BYPASS_SQLITE) >= MIN_BYPASS
    copy = tmp_path / "chinook.sqlite"
    shutil.copyfile(shared_data_path("chinook", "Chinook_Sqlite.sqlite"), copy)
    before = _file_hash(copy)
    db = SqliteDatabase(copy)
    counts_before = {t.name: db.execute(f'SELECT count(*) FROM "{t.name}"').rows for t in db.schema().tables}
    failed: list[str] = []
    try:
        for template in BYPASS_SQLITE:
            sql = template.replace("{tmp}", str(tmp_path))
            try:
                db.execute(sql)
            except CairnError as exc:
                failed.append(template)
                logger.debug("refused by SQLite: %s -> %s", sql, exc)
        counts_after = {t: db.execute(f'SELECT count(*) FROM "{t}"').rows for t in counts_before}
    finally:
        db.close()
    logger.info("sqlite bypass writes: %d tried, %d failed", len(BYPASS_SQLITE), len(failed))
    assert failed == BYPASS_SQLITE
    assert counts_after == counts_before
    assert _file_hash(copy) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chinook.sqlite"]  # no journal, copy or dropped file


# --- 3. no false rejections ----------------------------------------------------------------------------------


@pytest.mark.parametrize("dialect", ["postgres", "sqlite"])
def test_gold_queries_survive_extraction_and_guard(dialect: str) -> None:
    """Every defog gold query, wrapped in a chatty reply, is extracted whole and accepted by the guard."""
    queries = list(gold_queries(shared_data_path("defog", "questions"), dialect))
    assert len(queries) > 300
    problems = []
    for q in queries:
        reply = f"Here is the SQL:\n```sql\n{q.sql};\n```\nIt answers the question."
        try:
            guarded = guard(extract_sql(reply), dialect)
        except CairnError as exc:
            problems.append(f"{q.source}:{q.row}: {exc}")
            continue
        if guarded.sql != guard(q.sql, dialect).sql:
            problems.append(f"{q.source}:{q.row}: extraction changed the query")
    assert problems == []


@pytest.mark.parametrize("sql", LOCKED_READS)
@pytest.mark.parametrize("dialect", ["postgres", "sqlite"])
def test_a_locking_clause_is_read_off_and_said(sql: str, dialect: str) -> None:
    """A read-only session refuses FOR UPDATE / FOR SHARE; the rows are the same without it (fresh25)."""
    guarded = guard(sql, dialect)
    assert " FOR " not in guarded.sql.upper() and "locking clause" in guarded.mended
