"""Clause keywords misspelt by one keystroke (``core/sql/written/_keywords.py``): written right only where the
statement then reads and did not as written; a block that reads, a word in quotes and prose are left alone."""

from __future__ import annotations

import sqlite3

import pytest

from core.errors import LLMReplyError
from core.sql import extract_sql
from core.sql.written import spelled_keywords

DB = sqlite3.connect(":memory:")
DB.executescript("CREATE TABLE t(id INTEGER, name TEXT, form TEXT, x INTEGER);"
                 "INSERT INTO t VALUES (1, 'a', 'f1', 1), (2, 'b', 'f2', 2), (3, 'b', 'f3', 1);")


@pytest.mark.parametrize(("reply", "rows"), [
    ("```sql\nSELCT name FROM t WHERE x = 1\n```", [("a",), ("b",)]),
    ("```sql\nSELECT name\nFORM t\nWHERE x = 2;\n```", [("b",)]),
    ("```sql\nselect name, count(*) from t gruop by name oder by 2 desc\n```", [("a", 1), ("b", 2)]),
    ("```sql\nSELECT name, COUNT(*) FROM t GROUPBY name HAVIG COUNT(*) > 1\n```", [("b", 2)]),
    ("```sql\nSELECT a.name FROM t a JION t b ON a.id = b.id WHRE a.x = 2\n```", [("b",)]),
    ("```sql\nSELECT form FROM t WHRE x = 2\n```", [("f2",)]),  # a column one edit from FROM stays the column
    ("Query: SELCT name FROM t WHRE x = 2\nThis lists the names.", [("b",)]),  # no code block
])
def test_a_keyword_one_keystroke_off_is_the_keyword(reply: str, rows) -> None:
    assert sorted(DB.execute(extract_sql(reply, "sqlite")).fetchall()) == rows


def test_a_block_that_reads_is_left_as_written() -> None:
    for sql in ("SELECT form AS limt FROM t", "SELECT name FROM t AS wher", "SELECT 'SELCT' FROM t"):
        assert spelled_keywords(sql, lambda s: True) == sql


def test_words_in_quotes_and_comments_are_never_read() -> None:
    sql = "SELECT name FORM t WHERE name = 'FORM' -- FORM a comment"
    assert spelled_keywords(sql, lambda s: "FROM t" in s) == "SELECT name FROM t WHERE name = 'FORM' -- FORM a comment"


def test_prose_without_a_query_still_has_no_query() -> None:
    with pytest.raises(LLMReplyError):
        extract_sql("Please fill the form with the selct few you want.", "sqlite")


def test_words_with_no_clause_spelled_right_are_not_made_sql() -> None:
    assert spelled_keywords("SELEC nothing useful", lambda s: True) == "SELEC nothing useful"


@pytest.mark.parametrize("reply", [
    "SELECT name, COUNT(*) AS n\nFROM t\nWHRE x = 1\nGROUP BY name\nORDER BY n DESC;\n\nThis gives the counts.",
    "```sql\nSELECT name, COUNT(*) AS n\nFROM t\nWHRE x = 1\nGROUP BY name\nORDER BY n DESC;\n"
    "-- This gives the counts.\nThis gives the counts per name.\n```",
])
def test_a_misspelt_keyword_is_mended_before_the_query_would_end_there(reply: str) -> None:
    # unmended, the statement read up to the line before WHRE (a query that ran without its filter)
    assert sorted(DB.execute(extract_sql(reply, "sqlite")).fetchall()) == [("a", 1), ("b", 1)]


@pytest.mark.parametrize(("reply", "rows"), [
    ("```sql\nSELECT name FROM t WHERE WHERE x = 1\n```", [("a",), ("b",)]),  # a keyword written twice
    ("```sql\nSELECT a.name FROM t a JOIN t b ON ON a.id = b.id WHERE a.x = 2\n```", [("b",)]),
    ("```sql\nselect select name from t where x = 2\n```", [("b",)]),
    ("```sql\nSELECT name FROM\nFROM t WHERE x = 2\n```", [("b",)]),  # reads as written: a table named FROM
    ("```sql\nSELECT t.nameFROM t\nWHERE t.x = 2\n```", [("b",)]),  # a line break lost before a keyword
    ("```sql\nWITH c AS (SELECT name, x FROM t) SELECT c.nameFROM c\nWHERE c.x = 2\n```", [("b",)]),
    ("```sql\nSELECT a.name FROM tLEFT JOIN t a ON a.id = t.id\nWHERE t.x = 2\n```", [("b",)]),
    ("```sql\nSELECT name, COUNT(*) AS n FROM t\nWHERE x > 0GROUP BY name\nORDER BY n DESCLIMIT 1\n```",
     [("b", 2)]),
    ("```sql\nSELECT name FROM t WHERE x => 2 AND id =< 2\n```", [("b",)]),  # a comparison back to front
    ("```sql\nSELECT name FROM t WHERE x ≥ 2 AND id ≤ 2 AND name >< 'a'\n```", [("b",)]),  # glyphs, ><
    ("```sql\nSELECT x FROM t WHERE form IN ('f1', Fresh Form) OR name = Big Name\n```", [(1,)]),  # unquoted
])
def test_a_keyword_written_twice_or_glued_and_a_comparison_back_to_front_are_read(reply: str, rows) -> None:
    assert sorted(DB.execute(extract_sql(reply, "sqlite")).fetchall()) == rows


@pytest.mark.parametrize("reply", [
    "```sql\nSELECT name FROM t WHERE name = 'WHERE WHERE' AND x = 1\n```",  # inside a value: as written
    "```sql\nSELECT name FROM t WHERE name = 'nameFROM' AND x = 1\n```",
])
def test_a_value_that_looks_like_a_stutter_or_a_glued_keyword_is_left(reply: str) -> None:
    assert extract_sql(reply, "sqlite") == reply.split("\n")[1]
