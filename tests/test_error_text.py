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


def test_names_the_schema_or_the_sql_proves_are_kept_and_nothing_else() -> None:
    sql = "SELECT nam FROM customers WHERE name = 'Zed'"
    assert redact_error_values('column "nam" does not exist', sql, SCHEMA) == 'column "nam" does not exist'
    assert redact_error_values('relation "customers" is odd', "SELECT 1", SCHEMA) == 'relation "customers" is odd'
    assert redact_error_values('invalid input syntax for type "integer"', sql, SCHEMA).endswith('"integer"')
    # A value is never kept because the SQL spells it (a comment of guesses would make the error an oracle)
    assert "Zed" not in redact_error_values("no row for 'Zed'", sql, SCHEMA)
    guesses = "SELECT CAST(name AS integer) FROM customers /* ann@example.com bob@example.com */"
    out = redact_error_values('invalid input syntax for type integer: "ann@example.com"', guesses, SCHEMA)
    assert "ann@example.com" not in out


def test_numbers_a_crafted_query_packs_into_an_error_are_removed() -> None:
    sql = "SELECT chr(ascii(substr(name, 1, 1)) + 1000000) FROM customers"
    out = redact_error_values("requested character too large for encoding: 1000097", sql, SCHEMA)
    assert "1000097" not in out and out.endswith("<n>")
    echo = 'syntax error at or near "FORM"\nLINE 1: SELECT 1 FORM x\n                 ^'
    kept = redact_error_values(echo, "SELECT 1 FORM x", SCHEMA)
    assert "LINE 1: SELECT 1 FORM x" in kept and '"FORM"' in kept  # the model's own text and position stay


def test_key_details_lose_their_values() -> None:
    out = redact_error_values("DETAIL: Key (email)=(ann@example.com) already exists.", "SELECT 1", SCHEMA)
    assert "ann@example.com" not in out and "=(<value>)" in out
