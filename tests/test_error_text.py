"""Values quoted from rows are removed from error text before it goes back to the model."""

from __future__ import annotations

from core.schema import Column, Schema, Table
from core.sql import redact_error_values

SCHEMA = Schema(dialect="postgres", tables=(
    Table(name="customers", schema="public", columns=(Column("customer_id", "integer"), Column("name", "text"))),
))  # fmt: skip


def test_row_data_quoted_by_the_database_is_removed() -> None:
    error = 'invalid input syntax for type integer: "(1,Ann Lee,ann@example.com,Pune)"'
    out = redact_error_values(error, "SELECT CAST(CAST(c AS text) AS integer) FROM customers c", SCHEMA)
    assert "ann@example.com" not in out and out.endswith('"<value>"') and "integer" in out


def test_names_and_literals_the_sql_already_holds_are_kept() -> None:
    sql = "SELECT nam FROM customers WHERE name = 'Zed'"
    assert redact_error_values('column "nam" does not exist', sql, SCHEMA) == 'column "nam" does not exist'
    assert redact_error_values('relation "customers" is odd', "SELECT 1", SCHEMA) == 'relation "customers" is odd'
    assert "'Zed'" in redact_error_values("no row for 'Zed'", sql, SCHEMA)


def test_key_details_lose_their_values() -> None:
    out = redact_error_values("DETAIL: Key (email)=(ann@example.com) already exists.", "SELECT 1", SCHEMA)
    assert "ann@example.com" not in out and "=(<value>)" in out
