"""Recovery from damaged model replies: one case per damage kind through the whole pipeline, on the sample
database and on Chinook (PostgreSQL), plus the guard/repair fixes the recovery bench found."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import psycopg
import pytest

from core.config import Settings
from core.databases import open_database
from core.databases import EmbeddedPostgres
from core.pipeline import AskPipeline
from core.schema import Column, Schema, Table
from core.sql import guard
from core.sql import validate_sql
from tests.conftest import shared_data_path
from tests.damage import DAMAGE_KINDS, damage
from tests.fakes.scripted_llm import ScriptedLLM

TODAY = dt.date.today()

SAMPLE_GOLD = (
    "SELECT c.name, COUNT(o.order_id) AS n FROM customers c JOIN orders o ON o.customer_id = c.customer_id "
    "GROUP BY c.customer_id, c.name ORDER BY n DESC, c.name LIMIT 5",
    "SELECT status, COUNT(*) AS n FROM orders WHERE order_date <= CURRENT_DATE GROUP BY status",
    "SELECT country, COALESCE(MAX(city), 'none') AS city FROM customers GROUP BY country ORDER BY country "
    "LIMIT 3 OFFSET 2",
)
CHINOOK_GOLD = (
    "SELECT g.name, COUNT(*) AS tracks FROM track t JOIN genre g ON t.genre_id = g.genre_id GROUP BY g.name",
    "SELECT first_name, COALESCE(company, 'n/a') AS company FROM customer WHERE country = 'Brazil'",
    "SELECT billing_country, SUM(total) AS amount FROM invoice WHERE invoice_date <= CURRENT_DATE "
    "GROUP BY billing_country ORDER BY amount DESC LIMIT 4",
    "SELECT name, milliseconds FROM track ORDER BY milliseconds DESC LIMIT 3 OFFSET 1",
)


def _norm(value: Any) -> Any:
    return round(float(value), 4) if isinstance(value, (Decimal, float)) else value


def _rows(rows: Any) -> frozenset[tuple[Any, ...]]:
    return frozenset(tuple(_norm(v) for v in r) for r in rows)


@pytest.fixture(scope="module")
def chinook_uri(embedded_pg: EmbeddedPostgres) -> str:
    text = shared_data_path("chinook", "Chinook_PostgreSql.sql").read_text(encoding="utf-8")
    if embedded_pg.ensure_database("chinook"):
        with psycopg.connect(embedded_pg.uri("chinook")) as conn:
            conn.execute(text.split("\\c chinook;", 1)[1])  # type: ignore[arg-type]
    return embedded_pg.uri("chinook")


@pytest.fixture(scope="module")
def databases(sample_db_uri: str, chinook_uri: str) -> Iterator[dict[str, tuple[Any, str]]]:
    opened = {name: open_database(uri) for name, uri in (("sample", sample_db_uri), ("chinook", chinook_uri))}
    uris = {"sample": sample_db_uri, "chinook": chinook_uri}
    yield {name: (db, uris[name]) for name, db in opened.items()}
    for db in opened.values():
        db.close()


@pytest.mark.parametrize("kind", DAMAGE_KINDS)
@pytest.mark.parametrize("name", ["sample", "chinook"])
def test_each_damage_kind_is_recovered(name: str, kind: str, databases: dict[str, Any]) -> None:
    db, uri = databases[name]
    schema = db.schema()
    golds = SAMPLE_GOLD if name == "sample" else CHINOOK_GOLD
    picked = next(
        ((gold, d) for gold in golds for seed in range(4) if (d := damage(gold, schema, kind, seed)) is not None),
        None,
    )
    assert picked is not None, f"no {kind} damage applies to the {name} gold queries"
    gold, damaged = picked
    if kind != "clean":
        assert damaged.reply.strip() != gold
    with psycopg.connect(uri) as conn:
        want = _rows(conn.execute(gold).fetchall())  # type: ignore[arg-type]
    assert want
    llm = ScriptedLLM(damaged.reply, damaged.reply, damaged.reply)
    answer = AskPipeline(db, llm, Settings(row_cap=100_000), today=lambda: TODAY).ask("a question")
    assert answer.ok, f"{damaged.note}: {answer.error}\n{damaged.reply}"
    assert _rows(answer.rows) == want, f"{damaged.note}\n{damaged.reply}\n-> {answer.sql}"
    if kind == "clean":
        assert answer.path == "llm"


def test_damage_is_deterministic_and_skips_what_does_not_apply(databases: dict[str, Any]) -> None:
    schema = databases["sample"][0].schema()
    first = [damage(SAMPLE_GOLD[0], schema, k, 7) for k in DAMAGE_KINDS]
    assert first == [damage(SAMPLE_GOLD[0], schema, k, 7) for k in DAMAGE_KINDS]
    assert damage("SELECT name FROM customers", schema, "fetch_limit") is None  # no LIMIT to turn into FETCH
    assert damage("SELECT name FROM customers", schema, "group_by") is None
    with pytest.raises(ValueError):
        damage("SELECT 1", schema, "nonsense")


# -- the fixes the bench found ---------------------------------------------------------------------------------


def test_borrowed_dialect_keeps_the_targets_null_order() -> None:
    assert "NULLS" not in guard("SELECT TOP 2 name FROM t ORDER BY a, b DESC", "postgres").sql
    assert "NULLS FIRST" in guard("SELECT TOP 2 name FROM t ORDER BY a NULLS FIRST", "postgres").sql


def test_backticks_keep_pipes_as_concatenation() -> None:
    guarded = guard("SELECT `first` || ' ' || `last` AS n, IFNULL(a, 0) FROM `people`", "postgres")
    assert guarded.read_dialect in ("mysql", "sqlite", "postgres")  # postgres: read with backtick identifiers
    assert "||" in guarded.sql and " OR " not in guarded.sql and "COALESCE" in guarded.sql


def test_sqlite_date_modifiers_become_intervals(sample_db_uri: str) -> None:
    sql = guard(
        "SELECT COUNT(*) FROM orders WHERE order_date >= date('now', '-1 month', 'start of month') "
        "AND order_date < datetime('now', '+1 day')",
        "postgres",
    ).sql
    assert "INTERVAL" in sql and "DATE_TRUNC" in sql
    with psycopg.connect(sample_db_uri) as conn:
        conn.execute(sql).fetchall()  # type: ignore[arg-type]


_SCHEMA = Schema(
    "postgres",
    (
        Table("author", (Column("aid", "int"), Column("name", "text"), Column("oid", "int")), schema="public"),
        Table("sales", (Column("id", "int", nullable=False), Column("rep_id", "int"), Column("amount", "int")),
              schema="public", primary_key=("id",)),
        Table("reps", (Column("id", "int", nullable=False), Column("name", "text")), schema="public",
              primary_key=("id",)),
    ),
)  # fmt: skip


def test_quoted_alias_and_real_pseudo_column_are_respelt() -> None:
    fixed = validate_sql('SELECT "Name" FROM author WHERE "Oid" IS NULL', _SCHEMA, "postgres").sql
    assert fixed == "SELECT name FROM author WHERE oid IS NULL"
    fixed = validate_sql('SELECT SUM(amount) AS total FROM sales ORDER BY "TOTAL"', _SCHEMA, "postgres").sql
    assert fixed.endswith("ORDER BY total")


def test_a_useless_join_that_makes_a_column_ambiguous_is_removed() -> None:
    sql = "SELECT COUNT(id) FROM sales LEFT JOIN reps AS r ON sales.rep_id = r.id"
    assert validate_sql(sql, _SCHEMA, "postgres").sql == "SELECT COUNT(id) FROM sales"
    kept = "SELECT COUNT(id) FROM sales LEFT JOIN reps AS r ON sales.rep_id = r.id WHERE r.name = 'x'"
    assert "JOIN" in validate_sql(kept, _SCHEMA, "postgres").sql
