"""A real password refusal: a role that must log in with scram-sha-256 on the embedded server."""

from __future__ import annotations

import psycopg
import pytest

from core.databases import open_database, redact_url
from core.databases import EmbeddedPostgres
from core.errors import AuthenticationFailed

ROLE = "cairn_pw_test"
SECRET = "s3cret-Pa55"


@pytest.fixture(scope="module")
def password_role(embedded_pg: EmbeddedPostgres, sample_db_uri: str) -> str:
    """Creates the role and puts a scram line for it above pgserver's trust lines (then reloads)."""
    hba = embedded_pg.pgdata / "pg_hba.conf"
    original = hba.read_text()
    line = f"local all {ROLE} scram-sha-256\n"
    with psycopg.connect(embedded_pg.uri(), autocommit=True) as conn:
        conn.execute("SET password_encryption = 'scram-sha-256'")
        exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (ROLE,)).fetchone()
        if not exists:
            conn.execute(f"CREATE ROLE {ROLE} LOGIN PASSWORD '{SECRET}'")
        conn.execute(f"GRANT CONNECT ON DATABASE cairn_sample TO {ROLE}")
        if line not in original:
            hba.write_text(line + original)
        conn.execute("SELECT pg_reload_conf()")
    yield sample_db_uri
    with psycopg.connect(embedded_pg.uri(), autocommit=True) as conn:
        hba.write_text(original)
        conn.execute("SELECT pg_reload_conf()")


def _with_user(uri: str, user: str, password: str) -> str:
    # The embedded sample URI is postgresql://cairn_query:@/cairn_sample?host=/dir
    return uri.replace("postgresql://cairn_query:@", f"postgresql://{user}:{password}@", 1)


def test_wrong_password_is_an_authentication_failure_without_the_secret(password_role: str) -> None:
    good = open_database(_with_user(password_role, ROLE, SECRET))
    assert good.execute("SELECT 1").rows == ((1,),)
    assert SECRET not in good.id
    good.close()

    bad = open_database(_with_user(password_role, ROLE, "wrong-" + SECRET))
    with pytest.raises(AuthenticationFailed) as err:
        bad.schema()
    assert "password" in str(err.value).lower() and err.value.hint
    assert SECRET not in str(err.value) and "wrong-" not in str(err.value)
    assert SECRET not in redact_url(_with_user(password_role, ROLE, SECRET))


def test_wrong_password_is_refused_even_when_the_schema_is_cached(password_role: str) -> None:
    good = open_database(_with_user(password_role, ROLE, SECRET))
    good.schema()  # fills the per-database schema cache
    bad = open_database(_with_user(password_role, ROLE, "nope"))
    try:
        with pytest.raises(AuthenticationFailed):
            bad.schema()
    finally:
        good.close()
        bad.close()
