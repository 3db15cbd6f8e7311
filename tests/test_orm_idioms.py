"""An ORM's way of writing a query read as the SQL it stands for: Django's field lookups, Python's ``None``,
SQLAlchemy's ``desc(x)`` — only where the name as written is no column, so no running query changes."""

from __future__ import annotations

import pytest

from core.errors import SQLValidationError
from core.schema import Column, Schema, Table
from core.sql import extract_queries, validate_sql

SCHEMA = Schema("sqlite", (
    Table("journal", (Column("jid", "integer"), Column("name", "text"), Column("founded", "text"))),
    Table("author", (Column("aid", "integer"), Column("name", "text"), Column("oid", "integer"))),
))


@pytest.mark.parametrize(("written", "read"), [
    ("SELECT name FROM journal WHERE name__istartswith = 'J'", "WHERE LOWER(name) LIKE LOWER('J%')"),
    ("SELECT name FROM journal WHERE name__contains = 'Data'", "WHERE name LIKE '%Data%'"),
    ("SELECT name FROM journal WHERE name__iexact = 'nature'", "WHERE LOWER(name) = LOWER('nature')"),
    ("SELECT name FROM author WHERE oid__isnull = TRUE", "WHERE oid IS NULL"),
    ("SELECT name FROM author WHERE oid__isnull = FALSE", "WHERE NOT oid IS NULL"),
    ("SELECT name FROM journal j WHERE j.name__in = ('A', 'B')", "WHERE j.name IN ('A', 'B')"),
    ("SELECT name FROM journal WHERE jid__range = (1, 5)", "WHERE jid BETWEEN 1 AND 5"),
    ("SELECT name FROM journal WHERE jid__gte = 3 AND jid__lt = 9", "WHERE jid >= 3 AND jid < 9"),
    ("SELECT name FROM author WHERE oid IS None", "WHERE oid IS NULL"),
])
def test_django_lookups_and_python_none_are_read_as_sql(written: str, read: str) -> None:
    fixed = validate_sql(written, SCHEMA, "sqlite")
    assert read in fixed.sql and fixed.fixes


def test_a_real_column_with_a_lookup_like_name_is_left_as_written() -> None:
    schema = Schema("sqlite", (Table("t", (Column("price", "real"), Column("price__gt", "real"))),))
    assert validate_sql("SELECT price FROM t WHERE price__gt = 3", schema, "sqlite").fixes == ()


def test_an_unknown_lookup_or_stem_is_no_reading() -> None:
    for sql in ("SELECT name FROM journal WHERE name__regexx = 'x'", "SELECT name FROM journal WHERE title__gt = 3"):
        with pytest.raises(SQLValidationError):
            validate_sql(sql, SCHEMA, "sqlite")


def test_a_sort_direction_written_as_a_call_is_the_direction() -> None:
    reply = "```sql\nSELECT name, COUNT(*) AS n FROM journal GROUP BY name ORDER BY desc(COUNT(*)), asc(name)\n```"
    assert extract_queries(reply, "postgres") == [
        "SELECT name, COUNT(*) AS n FROM journal GROUP BY name ORDER BY COUNT(*) DESC, name ASC"]
    # a function of that name in a value, or before any ORDER BY, is left
    kept = "```sql\nSELECT 'desc(x)' AS note FROM journal ORDER BY name DESC\n```"
    assert extract_queries(kept, "postgres") == ["SELECT 'desc(x)' AS note FROM journal ORDER BY name DESC"]


def test_attack_round7_date_parts_run_on_sqlite_and_pattern_values_match_literally(tmp_path) -> None:
    import sqlite3

    from core.databases import open_database
    from tests.scripted_asking import ask

    path = tmp_path / "p.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE product (name TEXT, code TEXT, created TEXT);"
                           "INSERT INTO product VALUES ('Pen', 'e_1', '2021-03-01'), ('Desk', 'ex1', '2022-01-02'),"
                           "('Ink', '50%', '2021-07-09');")
    conn.close()
    db = open_database(str(path))
    try:
        assert sorted(ask(db, "products made in 2021", "SELECT name FROM product WHERE created__year = 2021").rows) == [
            ("Ink",), ("Pen",)]
        assert ask(db, "codes with e_", "SELECT name FROM product WHERE code__contains = 'e_'").rows == (("Pen",),)
        assert ask(db, "codes with 50%", "SELECT name FROM product WHERE code__icontains = '50%'").rows == (("Ink",),)
    finally:
        db.close()
