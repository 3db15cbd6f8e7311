"""Least privilege: questions on the embedded server run as a role that cannot write; doctor's role report."""

from __future__ import annotations

import psycopg
import pytest

from core.databases import EmbeddedPostgres, check_privileges, open_database, read_only_role_sql


def test_the_sample_database_is_queried_by_a_read_only_role(sample_db_uri: str) -> None:
    db = open_database(sample_db_uri)
    try:
        report = check_privileges(db)
    finally:
        db.close()
    assert report is not None and report.role == "cairn_query" and report.read_only, report


def test_a_superuser_connection_is_reported_with_its_problems(embedded_pg: EmbeddedPostgres) -> None:
    db = open_database(embedded_pg.uri("cairn_sample"))
    try:
        report = check_privileges(db)
    finally:
        db.close()
    assert report is not None and report.superuser and not report.read_only
    assert any("superuser" in p for p in report.problems())
    assert "GRANT SELECT ON ALL TABLES" in read_only_role_sql("sales")


@pytest.mark.parametrize("statement", [
    "SELECT pg_terminate_backend(pg_backend_pid())",
    "SELECT pg_cancel_backend(pg_backend_pid())",
    "COPY customers TO PROGRAM 'id'",
    "SELECT brin_summarize_new_values('orders_pkey')",
    "CREATE TEMP TABLE t (a int)",
    "SELECT lo_import('/etc/passwd')",
    "SELECT pg_read_file('/etc/passwd')",
])  # fmt: skip
def test_the_query_role_cannot_misuse_server_functions(sample_db_uri: str, statement: str) -> None:
    """Even sent straight to the server (no guard, no read-only transaction), the role itself is refused."""
    with psycopg.connect(sample_db_uri, autocommit=True) as conn:
        with pytest.raises(psycopg.Error):
            conn.execute(statement)


def test_the_query_role_cannot_open_the_memory_database(embedded_pg: EmbeddedPostgres, sample_db_uri: str) -> None:
    embedded_pg.memory_uri("cairn_memory")
    with pytest.raises(psycopg.OperationalError, match="permission denied"):
        psycopg.connect(sample_db_uri.replace("/cairn_sample?", "/cairn_memory?", 1)).close()
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(sample_db_uri.replace("/cairn_sample?", "/postgres?", 1)).close()


def test_doctor_warns_about_a_role_that_can_write_and_says_how_to_fix_it(embedded_pg: EmbeddedPostgres,
                                                                          sample_db_uri: str) -> None:
    from core.cli._doctor import check_database_role

    owner = check_database_role(embedded_pg.uri("cairn_sample"))
    assert owner.status == "warn" and "superuser" in owner.detail
    assert "GRANT SELECT ON ALL TABLES IN SCHEMA public" in owner.hint
    reader = check_database_role(sample_db_uri)
    assert reader.status == "ok" and "can only read" in reader.detail


def test_defaults_the_query_role_changed_for_itself_are_put_back_at_start(embedded_pg: EmbeddedPostgres,
                                                                         sample_db_uri: str) -> None:
    with psycopg.connect(sample_db_uri, autocommit=True) as conn:
        conn.execute("SET default_transaction_read_only = off")  # its own session: allowed
        conn.execute("ALTER ROLE cairn_query SET default_transaction_read_only = off")
        with pytest.raises(psycopg.Error):
            conn.execute("SELECT lo_from_bytea(0, 'x'::bytea)")
    embedded_pg._ensure_roles()  # what every start does
    with psycopg.connect(sample_db_uri, autocommit=True) as conn:
        assert conn.execute("SHOW default_transaction_read_only").fetchone() == ("on",)


def test_per_database_defaults_the_query_role_set_are_put_back_too(embedded_pg: EmbeddedPostgres,
                                                                  sample_db_uri: str) -> None:
    with psycopg.connect(sample_db_uri, autocommit=True) as conn:
        conn.execute("SET default_transaction_read_only = off")
        conn.execute("ALTER ROLE cairn_query IN DATABASE cairn_sample SET default_transaction_read_only = off")
    embedded_pg._ensure_roles()
    with psycopg.connect(sample_db_uri, autocommit=True) as conn:
        assert conn.execute("SHOW default_transaction_read_only").fetchone() == ("on",)
