"""PostgresDatabase against the real embedded server: introspection, read-only execution, limits, errors."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from datetime import date
from decimal import Decimal
from urllib.parse import quote

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict

from core.cancellation import Cancellation
from core.databases import PostgresDatabase, QueryLimits, open_database, redact_url
from core.databases import EmbeddedPostgres
from core.errors import (
    AuthenticationFailed,
    ConfigError,
    DatabaseUnavailable,
    QueryCancelled,
    QueryFailed,
    QueryTimeout,
)
from tests.conftest import shared_data_path

HEAVY = "SELECT count(*) FROM generate_series(1, 1e9)"

_MIXED_DDL = """
DROP SCHEMA IF EXISTS "Sales" CASCADE;
DROP TABLE IF EXISTS public."Region" CASCADE;
CREATE SCHEMA "Sales";
CREATE TYPE "Sales"."Tier" AS ENUM ('bronze', 'silver', 'gold');
CREATE TABLE public."Region" (
    "RegionCode" text, "CountryCode" char(2), "RegionName" text NOT NULL,
    PRIMARY KEY ("RegionCode", "CountryCode"));
CREATE TABLE "Sales"."Customer" (
    "CustomerId" integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    "FullName" text NOT NULL,
    "Tier" "Sales"."Tier" NOT NULL DEFAULT 'bronze',
    "RegionCode" text, "CountryCode" char(2), "Notes" text,
    FOREIGN KEY ("RegionCode", "CountryCode") REFERENCES public."Region" ("RegionCode", "CountryCode"));
COMMENT ON TABLE "Sales"."Customer" IS 'Buyers, with mixed-case names';
COMMENT ON COLUMN "Sales"."Customer"."Tier" IS 'Loyalty tier';
CREATE UNIQUE INDEX "Customer_FullName_uq" ON "Sales"."Customer" ("FullName");
CREATE INDEX "Customer_lower_name" ON "Sales"."Customer" (lower("FullName"));
CREATE TABLE "Sales"."Order" (
    "OrderId" serial PRIMARY KEY,
    "CustomerId" integer NOT NULL REFERENCES "Sales"."Customer",
    "Channel" varchar(20) NOT NULL,
    "Amount" numeric(10, 2));
CREATE VIEW "Sales"."BigOrders" AS SELECT * FROM "Sales"."Order" WHERE "Amount" > 100;
INSERT INTO public."Region" VALUES ('north', 'GB', 'North'), ('south', 'GB', 'South'), ('bay', 'US', 'Bay Area');
INSERT INTO "Sales"."Customer" ("FullName", "Tier", "RegionCode", "CountryCode", "Notes")
    SELECT 'Customer ' || i, (ARRAY['bronze', 'silver', 'gold'])[1 + i % 3]::"Sales"."Tier",
           (ARRAY['north', 'south', 'bay'])[1 + i % 3], (ARRAY['GB', 'GB', 'US'])[1 + i % 3],
           'free text note number ' || i
    FROM generate_series(1, 30) i;
INSERT INTO "Sales"."Order" ("CustomerId", "Channel", "Amount")
    SELECT 1 + i % 30, (ARRAY['web', 'store', 'phone'])[1 + i % 3], i
    FROM generate_series(1, 200) i;
"""


@pytest.fixture(scope="module")
def sample_db(sample_db_uri: str) -> Iterator[PostgresDatabase]:
    db = open_database(sample_db_uri)
    assert isinstance(db, PostgresDatabase)
    yield db
    db.close()


@pytest.fixture(scope="module")
def mixed_uri(embedded_pg: EmbeddedPostgres) -> str:
    embedded_pg.ensure_database("cairn_mixed")
    uri = embedded_pg.uri("cairn_mixed")
    with psycopg.connect(uri) as conn:
        conn.execute(_MIXED_DDL)
    return uri


def _load_sql_dump(embedded_pg: EmbeddedPostgres, dbname: str, sql: str) -> str:
    if embedded_pg.ensure_database(dbname):
        with psycopg.connect(embedded_pg.uri(dbname)) as conn:
            conn.execute(sql)
    return embedded_pg.uri(dbname)


@pytest.fixture(scope="module")
def chinook_pg_uri(embedded_pg: EmbeddedPostgres) -> str:
    text = shared_data_path("chinook", "Chinook_PostgreSql.sql").read_text(encoding="utf-8")
    # The script drops/creates its own database and switches with psql's \c: keep what follows.
    marker = "\\c chinook;"
    assert marker in text
    return _load_sql_dump(embedded_pg, "chinook", text.split(marker, 1)[1])


def _host(uri: str) -> str:
    return conninfo_to_dict(uri)["host"]  # type: ignore[return-value]


# -- opening, ids, URLs ---------------------------------------------------------------------------------


def test_id_and_redaction_never_show_a_password() -> None:
    db = open_database("postgresql://ann:s3cret@db.example:6543/sales?sslmode=require&password=other")
    assert db.id == "postgresql://ann@db.example:6543/sales"
    assert "s3cret" not in repr(db) and "other" not in db.id
    assert open_database("postgres://bob@db.example/shop").id == "postgresql://bob@db.example:5432/shop"
    assert redact_url("postgresql://ann:s3cret@h:5/d?password=p2&sslmode=require") == (
        "postgresql://ann:***@h:5/d?password=***&sslmode=require"
    )
    assert redact_url("host=h password='a b' user=u") == "host=h password=*** user=u"
    assert redact_url("postgresql://ann@h/d") == "postgresql://ann@h/d"


def test_socket_host_is_shown_as_its_directory(sample_db_uri: str) -> None:
    db = open_database(sample_db_uri)
    assert db.id == f"postgresql://cairn_query@{_host(sample_db_uri)}:5432/cairn_sample"
    assert db.dialect == "postgres"


@pytest.mark.parametrize(
    "target", ["", "oracle://u@h/db", "postgresql://u@h:notaport/db", "/no/such/file.sqlite", "sqlite:/x.db"]
)
def test_bad_targets_are_config_errors_with_both_forms_in_the_hint(target: str) -> None:
    with pytest.raises(ConfigError) as info:
        open_database(target)
    assert "postgresql://" in info.value.hint and "SQLite" in info.value.hint


# -- introspection -------------------------------------------------------------------------------------


def test_sample_schema_keys_comments_and_hints(sample_db: PostgresDatabase) -> None:
    schema = sample_db.schema()
    assert schema.dialect == "postgres" and schema.database_id == sample_db.id
    assert set(schema.table_names) == {"customers", "orders"}
    customers, orders = schema.table("customers"), schema.table("orders")
    assert customers is not None and orders is not None
    assert orders.primary_key == ("order_id",)
    assert [(fk.columns, fk.ref_table, fk.ref_columns) for fk in orders.foreign_keys] == [
        (("customer_id",), "customers", ("customer_id",))
    ]
    assert customers.comment == "People and companies that buy from the shop"
    status = orders.column("status")
    assert status is not None and status.comment == "Fulfilment status of the order"
    assert set(status.value_hints) == {"delivered", "shipped", "processing", "pending", "cancelled", "returned"}
    assert status.value_hints[0] == "delivered"  # most frequent first
    assert customers.column("email").value_hints == ()  # type: ignore[union-attr]  # 600 distinct
    assert customers.column("name").value_hints == ()  # type: ignore[union-attr]
    assert orders.column("order_date").type == "date"  # type: ignore[union-attr]
    assert orders.column("total_amount").type == "numeric(12,2)"  # type: ignore[union-attr]
    assert not orders.column("status").nullable  # type: ignore[union-attr]
    assert customers.is_unique(["email"]) and not orders.is_unique(["customer_id"])
    assert any(ix.name == "orders_order_date_idx" and not ix.unique for ix in orders.indexes)


def test_schema_is_cached_per_id_and_refreshable(mixed_uri: str) -> None:
    db = open_database(mixed_uri)
    first = db.schema()
    other = open_database(mixed_uri)
    assert other.schema() is first  # same id, same cache entry
    with psycopg.connect(mixed_uri, autocommit=True) as conn:
        conn.execute('CREATE TABLE IF NOT EXISTS "Sales"."Late" (x int)')
    assert db.schema().table("Sales.Late") is None
    fresh = db.schema(refresh=True)
    assert fresh.table("Sales.Late") is not None
    with psycopg.connect(mixed_uri, autocommit=True) as conn:
        conn.execute('DROP TABLE "Sales"."Late"')
    db.schema(refresh=True)
    db.close()
    other.close()


def test_mixed_case_identifiers_namespaces_views_and_multicolumn_keys(mixed_uri: str) -> None:
    db = open_database(mixed_uri)
    schema = db.schema(refresh=True)
    assert {"Region", "Sales.Customer", "Sales.Order", "Sales.BigOrders"} <= set(schema.table_names)
    customer = schema.table("Sales.Customer")
    assert customer is not None and customer.schema == "Sales" and customer.comment == "Buyers, with mixed-case names"
    assert customer.column_names == ("CustomerId", "FullName", "Tier", "RegionCode", "CountryCode", "Notes")
    assert customer.primary_key == ("CustomerId",)
    assert customer.foreign_keys[0].columns == ("RegionCode", "CountryCode")
    assert customer.foreign_keys[0].ref_table == "Region"
    assert customer.foreign_keys[0].ref_columns == ("RegionCode", "CountryCode")
    tier = customer.column("Tier")
    assert tier is not None and tier.comment == "Loyalty tier" and tier.value_hints == ("bronze", "silver", "gold")
    assert tier.default is not None and "bronze" in tier.default
    assert customer.column("CustomerId").default == "GENERATED AS IDENTITY"  # type: ignore[union-attr]
    assert customer.column("Notes").value_hints == ()  # type: ignore[union-attr]  # 30 distinct
    assert set(customer.column("RegionCode").value_hints) == {"north", "south", "bay"}  # type: ignore[union-attr]
    indexes = {ix.name: ix for ix in customer.indexes}
    assert indexes["Customer_FullName_uq"].unique and indexes["Customer_FullName_uq"].columns == ("FullName",)
    assert indexes["Customer_lower_name"].columns == ('lower("FullName")',)
    order = schema.table("Sales.Order")
    assert order is not None
    assert order.foreign_keys[0].ref_table == "Sales.Customer" and order.foreign_keys[0].ref_columns == ("CustomerId",)
    assert set(order.column("Channel").value_hints) == {"web", "store", "phone"}  # type: ignore[union-attr]
    assert schema.table("Region").primary_key == ("RegionCode", "CountryCode")  # type: ignore[union-attr]
    view = schema.table("Sales.BigOrders")
    assert view is not None and "Channel" in view.column_names
    assert set(view.column("Channel").value_hints) == {"web", "store", "phone"}  # type: ignore[union-attr]
    result = db.execute('SELECT c."FullName", o."Amount" FROM "Sales"."Order" o JOIN "Sales"."Customer" c '
                        'USING ("CustomerId") WHERE c."Tier" = \'gold\' ORDER BY o."Amount" DESC LIMIT 2')
    assert result.columns == ("FullName", "Amount") and len(result.rows) == 2
    db.close()


def test_hints_include_rare_values_that_analyze_left_out(embedded_pg: EmbeddedPostgres) -> None:
    embedded_pg.ensure_database("cairn_rare")
    uri = embedded_pg.uri("cairn_rare")
    with psycopg.connect(uri, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS t")
        conn.execute("CREATE TABLE t (kind text, code text)")
        conn.execute(
            "INSERT INTO t SELECT (ARRAY['a','b','c'])[1 + i % 3], 'code' || i FROM generate_series(1, 3000) i"
        )
        conn.execute("INSERT INTO t VALUES ('zz-rare', 'x')")
        conn.execute("ANALYZE t")
    db = open_database(uri)
    table = db.schema(refresh=True).table("t")
    assert table is not None
    assert set(table.column("kind").value_hints) == {"a", "b", "c", "zz-rare"}  # type: ignore[union-attr]
    assert table.column("code").value_hints == ()  # type: ignore[union-attr]
    db.close()


def test_a_not_valid_foreign_key_plans_joins_but_proves_nothing(embedded_pg: EmbeddedPostgres) -> None:
    """Rows written before a NOT VALID key may break it: it is read like an inferred key, never as a proof (a
    join through it is not removed as needless)."""
    from core.sql import validate_sql

    embedded_pg.ensure_database("cairn_notvalid")
    uri = embedded_pg.uri("cairn_notvalid")
    with psycopg.connect(uri, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS course; DROP TABLE IF EXISTS teacher")
        conn.execute("CREATE TABLE teacher (id int PRIMARY KEY, name text)")
        conn.execute("CREATE TABLE course (id int PRIMARY KEY, teacher_id int NOT NULL, title text)")
        conn.execute("INSERT INTO teacher VALUES (1, 'Ada'); INSERT INTO course VALUES (1, 1, 'A'), (2, 99, 'B')")
        conn.execute("ALTER TABLE course ADD CONSTRAINT course_teacher FOREIGN KEY (teacher_id) "
                     "REFERENCES teacher(id) NOT VALID")
    db = open_database(uri)
    try:
        schema = db.schema(refresh=True)
        (fk,) = schema.table("course").foreign_keys  # type: ignore[union-attr]
        assert fk.ref_table == "teacher" and fk.inferred
        validated = validate_sql("SELECT COUNT(*) FROM course c JOIN teacher t ON t.id = c.teacher_id", schema,
                                 "postgres")
        assert "JOIN" in validated.sql.upper()  # the join drops course 2: kept
        assert list(db.execute(validated.sql).rows) == [(1,)]
    finally:
        db.close()


def test_chinook_postgres_introspection_and_query(chinook_pg_uri: str) -> None:
    db = open_database(chinook_pg_uri)
    started = time.perf_counter()
    schema = db.schema(refresh=True)
    elapsed = time.perf_counter() - started
    assert len(schema.tables) == 11 and elapsed < 5
    assert schema.table("playlist_track").primary_key == ("playlist_id", "track_id")  # type: ignore[union-attr]
    line = schema.table("invoice_line")
    assert line is not None
    assert {(fk.columns, fk.ref_table) for fk in line.foreign_keys} == {
        (("invoice_id",), "invoice"),
        (("track_id",), "track"),
    }
    media = schema.table("media_type").column("name")  # type: ignore[union-attr]
    assert media is not None and len(media.value_hints) == 5 and "MPEG audio file" in media.value_hints
    assert schema.table("genre").column("name").value_hints == ()  # type: ignore[union-attr]  # 25 genres
    assert schema.neighbours("track") >= {"album", "genre", "media_type", "invoice_line", "playlist_track"}
    result = db.execute(
        "SELECT g.name, count(*) AS n FROM track t JOIN genre g USING (genre_id) GROUP BY g.name ORDER BY n DESC",
        limits=QueryLimits(max_rows=3),
    )
    assert result.rows[0] == ("Rock", 1297) and result.truncated
    db.close()


def test_defog_dump_with_a_second_namespace(embedded_pg: EmbeddedPostgres) -> None:
    text = shared_data_path("defog", "ewallet", "ewallet.sql").read_text(encoding="utf-8")
    db = open_database(_load_sql_dump(embedded_pg, "defog_ewallet", text))
    started = time.perf_counter()
    schema = db.schema(refresh=True)
    assert time.perf_counter() - started < 5
    users = schema.table("consumer_div.users")
    assert users is not None and users.primary_key == ("uid",)
    assert all(t.schema == "consumer_div" for t in schema.tables)
    coupons = schema.table("consumer_div.coupons")
    assert coupons is not None and coupons.foreign_keys[0].ref_table == "consumer_div.merchants"
    status = users.column("status")
    assert status is not None and status.value_hints
    assert set(status.value_hints) <= {"active", "inactive", "suspended", "deleted"}
    db.close()


# -- execution -------------------------------------------------------------------------------------------


def test_rows_keep_python_types_and_cap_sets_truncated(sample_db: PostgresDatabase) -> None:
    result = sample_db.execute("SELECT order_id, order_date, total_amount FROM orders ORDER BY order_id")
    assert result.columns == ("order_id", "order_date", "total_amount")
    assert len(result.rows) == 1000 and result.truncated  # default cap
    assert isinstance(result.rows[0][1], date) and isinstance(result.rows[0][2], Decimal)
    capped = sample_db.execute("SELECT order_id FROM orders", limits=QueryLimits(max_rows=10))
    assert len(capped.rows) == 10 and capped.truncated and capped.elapsed_s >= 0
    exact = sample_db.execute("SELECT * FROM customers", limits=QueryLimits(max_rows=600))
    assert len(exact.rows) == 600 and not exact.truncated
    empty = sample_db.execute("SELECT * FROM orders WHERE false")
    assert empty.rows == () and not empty.truncated and "status" in empty.columns
    like = sample_db.execute("SELECT count(*) FROM customers WHERE email LIKE '%@example.com' -- trailing comment")
    assert like.rows == ((600,),)


def test_non_cursor_statements_still_run_read_only(sample_db: PostgresDatabase) -> None:
    assert sample_db.execute("SHOW transaction_read_only").rows == (("on",),)
    plan = sample_db.execute(
        "EXPLAIN SELECT * FROM orders JOIN customers USING (customer_id)", limits=QueryLimits(max_rows=1)
    )
    assert plan.columns == ("QUERY PLAN",) and len(plan.rows) == 1 and plan.truncated


@pytest.mark.parametrize(
    "sql",
    [
        "INSERT INTO orders VALUES (999999, 1, 'x', '2020-01-01', 1, 'upi')",
        "UPDATE orders SET status = 'hacked'",
        "DELETE FROM orders",
        "SELECT 1; COMMIT; DELETE FROM orders",
        "COMMIT; DELETE FROM orders",
        "CREATE TABLE evil (x int)",
        "WITH d AS (DELETE FROM orders RETURNING 1) SELECT count(*) FROM d",
        "SELECT * FROM orders FOR UPDATE",
        "SELECT * INTO evil FROM orders",
        "TRUNCATE orders",
    ],
)
def test_writes_fail_even_without_the_guard(sample_db: PostgresDatabase, sample_db_uri: str, sql: str) -> None:
    with psycopg.connect(sample_db_uri) as conn:
        before = conn.execute("SELECT count(*), count(*) FILTER (WHERE status = 'hacked') FROM orders").fetchone()
    with pytest.raises(QueryFailed) as info:
        sample_db.execute(sql)
    assert "read-only transaction" in str(info.value) or "multiple commands" in str(info.value)
    with psycopg.connect(sample_db_uri) as conn:
        after = conn.execute("SELECT count(*), count(*) FILTER (WHERE status = 'hacked') FROM orders").fetchone()
        evil = conn.execute("SELECT to_regclass('evil')").fetchone()
    assert before == after and evil == (None,)


def test_server_error_text_is_kept_for_the_repair_loop(sample_db: PostgresDatabase) -> None:
    with pytest.raises(QueryFailed) as info:
        sample_db.execute("SELECT statu FROM orders")
    text = str(info.value)
    assert 'column "statu" does not exist' in text
    assert "HINT:" in text and "orders.status" in text
    assert "LINE 1: SELECT statu FROM orders" in text and "DECLARE" not in text
    with pytest.raises(QueryFailed, match="does not exist"):
        sample_db.execute("SELECT * FROM no_such_table")
    with pytest.raises(QueryFailed, match="syntax error"):
        sample_db.execute("SELEC 1")
    assert sample_db.execute("SELECT 1").rows == ((1,),)


def test_statement_timeout(sample_db: PostgresDatabase) -> None:
    started = time.perf_counter()
    with pytest.raises(QueryTimeout) as info:
        sample_db.execute(HEAVY, limits=QueryLimits(timeout_s=0.5))
    assert time.perf_counter() - started < 5
    assert "timeout" in info.value.hint.lower()
    assert sample_db.execute("SELECT 2").rows == ((2,),)


def test_cancel_from_another_thread_stops_the_query_in_the_database(
    sample_db: PostgresDatabase, sample_db_uri: str
) -> None:
    token = Cancellation()
    timer = threading.Timer(0.3, token.cancel)
    timer.start()
    started = time.perf_counter()
    with pytest.raises(QueryCancelled):
        sample_db.execute(HEAVY, cancel=token)
    assert time.perf_counter() - started < 3
    timer.join()
    with psycopg.connect(sample_db_uri) as conn:
        running = conn.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE query LIKE %s AND state = 'active' AND pid <> pg_backend_pid()",
            ("%generate_series(1, 1e9)%",),
        ).fetchone()
    assert running == (0,)  # the heavy query is gone from the server, not just abandoned
    for _ in range(6):  # more than the pool size: every connection came back healthy
        assert sample_db.execute("SELECT 3").rows == ((3,),)
    with pytest.raises(QueryCancelled):
        sample_db.execute("SELECT 4", cancel=token)  # an already-cancelled token runs nothing


def test_session_state_does_not_leak_between_queries(sample_db: PostgresDatabase) -> None:
    sample_db.execute("SELECT pg_advisory_lock(4242)")
    sample_db.execute("SELECT set_config('search_path', 'nowhere', false)")
    # The pool resets a returned connection in the background: another one may see the lock for a moment.
    deadline = time.monotonic() + 5
    while sample_db.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'").rows != ((0,),):
        assert time.monotonic() < deadline, "the advisory lock outlived its session's return to the pool"
        time.sleep(0.05)
    assert sample_db.execute("SELECT count(*) FROM orders").rows[0][0] > 0


def test_parallel_queries_share_the_pool(sample_db: PostgresDatabase) -> None:
    results: list[object] = []

    def work() -> None:
        results.append(sample_db.execute("SELECT pg_sleep(0.2), 1").rows)

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 6


# -- connection errors ------------------------------------------------------------------------------------


def test_unknown_role_is_an_authentication_failure(embedded_pg: EmbeddedPostgres, sample_db_uri: str) -> None:
    # The embedded server trusts its socket, so a wrong password cannot be provoked honestly; a role that does
    # not exist, or may not log in, is refused by the real server in the same authentication phase.
    host = quote(_host(sample_db_uri), safe="")
    with psycopg.connect(embedded_pg.uri(), autocommit=True) as conn:
        conn.execute(
            "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'cairn_nologin') "
            "THEN CREATE ROLE cairn_nologin NOLOGIN; END IF; END $$"
        )
    for user in ("cairn_no_such_role", "cairn_nologin"):
        db = open_database(f"postgresql://{user}:pw@/cairn_sample?host={host}")
        with pytest.raises(AuthenticationFailed) as info:
            db.execute("SELECT 1")
        assert user in str(info.value) and "pw@" not in str(info.value)
        with pytest.raises(AuthenticationFailed):
            db.schema(refresh=True)
        db.close()


def test_missing_database_and_closed_port_are_unavailable(sample_db_uri: str) -> None:
    host = quote(_host(sample_db_uri), safe="")
    db = open_database(f"postgresql://postgres@/cairn_no_such_db?host={host}")
    with pytest.raises(DatabaseUnavailable) as info:
        db.execute("SELECT 1")
    assert "database name" in info.value.hint
    db.close()
    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens there now
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    closed = open_database(f"postgresql://ann:secret@127.0.0.1:{port}/x")
    started = time.perf_counter()
    with pytest.raises(DatabaseUnavailable) as info2:
        closed.execute("SELECT 1")
    assert time.perf_counter() - started < 5
    assert "secret" not in str(info2.value) and "running" in info2.value.hint
    closed.close()


def test_closed_database_refuses_work(sample_db_uri: str) -> None:
    db = open_database(sample_db_uri)
    assert db.execute("SELECT 1").rows == ((1,),)
    db.close()
    with pytest.raises(DatabaseUnavailable):
        db.execute("SELECT 1")


def test_cancel_and_timeout_also_stop_statements_that_are_not_cursors(sample_db: PostgresDatabase) -> None:
    explain = "EXPLAIN ANALYZE " + HEAVY
    with pytest.raises(QueryTimeout):
        sample_db.execute(explain, limits=QueryLimits(timeout_s=0.3))
    token = Cancellation()
    timer = threading.Timer(0.3, token.cancel)
    timer.start()
    started = time.perf_counter()
    with pytest.raises(QueryCancelled):
        sample_db.execute(explain, cancel=token)
    assert time.perf_counter() - started < 3
    timer.join()
    assert sample_db.execute("SELECT 5").rows == ((5,),)
