"""Explanations a model writes inside its SQL block (``core/sql/_explanations.py``) read as comments: the query as
written runs, with every clause, on real SQLite."""

from __future__ import annotations

import sqlite3

import pytest

from core.errors import LLMReplyError
from core.sql import extract_sql, guard
from core.sql._explanations import explanations_as_comments

DB = sqlite3.connect(":memory:")
DB.executescript("CREATE TABLE sale(id INTEGER, town TEXT, amount REAL, sold_on TEXT);"
                 "INSERT INTO sale VALUES (1,'Pune',10,date('now','-1 day')),(2,'Pune',20,'2020-01-01'),"
                 "(3,'Agra',5,date('now','-2 days'));")


@pytest.mark.parametrize("reply", [
    "```sql\nSELECT town, SUM(amount) AS total  # what we need\nFROM sale  # the sales table\n"
    "WHERE sold_on >= DATE('now', '-30 days')  // only recent ones\nGROUP BY town  # one row per town\n```",
    "```sql\nSELECT town, SUM(amount) AS total\nStart from sales:\nFROM sale\nKeep the recent ones:\n"
    "WHERE sold_on >= DATE('now', '-30 days')\nOne row per town:\nGROUP BY town\n```",
    # comments with commas, brackets and quotes: sentences all the same
    "```sql\nSELECT town, SUM(amount) AS total\nFROM sale  # main table, one row per sale\n"
    "WHERE sold_on >= DATE('now', '-30 days')  # last 30 days, inclusive\nGROUP BY town  // we use town (not id) here\n```",
    # a list item of prose between two clauses
    "```sql\nSELECT town, SUM(amount) AS total\nFROM sale\n- Keep only the recent sales of each town\n"
    "WHERE sold_on >= DATE('now', '-30 days')\nGROUP BY town\n```",
])
def test_explanations_inside_the_block_are_comments_and_every_clause_runs(reply: str) -> None:
    sql = guard(extract_sql(reply, "sqlite"), "sqlite").sql
    assert "DATE('now', '-30 days')" in sql and "GROUP BY town" in sql
    assert sorted(DB.execute(sql).fetchall()) == [("Agra", 5.0), ("Pune", 10.0)]


@pytest.mark.parametrize("line", [
    "SELECT a # b FROM t",  # PostgreSQL's XOR between operands
    "WHERE note = 'item # 5 is out'",  # inside a string
    "WHERE x = 1  # y = 2",  # more SQL after the mark, not prose
    "SELECT a // b + c FROM t",  # DuckDB's integer division
    "WHERE flags # 4 > 0",
    "SELECT x # y, z FROM t",
])
def test_sql_that_holds_a_mark_is_left_as_written(line: str) -> None:
    assert explanations_as_comments(line) == line


def test_a_long_block_is_read_in_one_pass() -> None:
    block = "SELECT id FROM sale\nWHERE town IN (\n" + "".join(f"    'town{i}',\n" for i in range(20000)) + "    'Pune'\n);"
    assert explanations_as_comments(block) == block  # quadratic before: minutes for a model repeating itself


@pytest.mark.parametrize(("reply", "dialect"), [
    ("```sql\nselect amount // qty as unit_price from sales\n```", "duckdb"),  # integer division, lower case
    ("```sql\nSELECT flags # mask as x FROM t\n```", "postgres"),  # XOR with an alias
])
def test_a_block_the_target_dialect_reads_as_written_keeps_its_operators(reply: str, dialect: str) -> None:
    assert extract_sql(reply, dialect) == reply.split("\n")[1]


@pytest.mark.parametrize("reply", [
    # notes after a label, and in Devanagari, between the clauses
    "```sql\nDekhiye:\nSELECT town, SUM(amount) AS total\nStep 1: pehle table chuno\nFROM sale\n"
    "चरण 3: शर्त लगाओ\nWHERE sold_on >= DATE('now', '-30 days')\nStep 4: group karke ginti karo\nGROUP BY town\n```",
    # sentences in lower case and numbered steps between the clauses
    "```sql\nSELECT town, SUM(amount) AS total\npehle yahan se data lenge\nFROM sale\nStep 2: filter\n"
    "WHERE sold_on >= DATE('now', '-30 days')\naakhir mein group karo sab\nGROUP BY town\n```",
    # in a block whose keywords are in capitals, a line of lower-case words is a note
    "```sql\nSELECT town, SUM(amount) AS total\nFROM sale\nab filter lagao\n"
    "WHERE sold_on >= DATE('now', '-30 days')\nGROUP BY town\n```",
    # a note the reading cannot place is never a place to cut the query: the WHERE after it stays
    "```sql\nQuery ka structure:\nSELECT town, SUM(amount) AS total\nFROM sale\nशर्त: sirf haal ki bikri ✔\n"
    "WHERE sold_on >= DATE('now', '-30 days')\nGROUP BY town\n```",
])
def test_notes_between_clauses_in_hindi_english_or_devanagari_keep_every_clause(reply: str) -> None:
    sql = extract_sql(reply, "sqlite")
    assert "WHERE sold_on" in sql and sorted(DB.execute(guard(sql, "sqlite").sql).fetchall()) == [("Agra", 5.0),
                                                                                                 ("Pune", 10.0)]


def test_a_query_is_never_cut_before_prose_that_a_clause_of_it_follows() -> None:
    reply = ("```sql\nSELECT town FROM sale\nThen we filter (recent ones only) for you\n"
             "WHERE sold_on >= DATE('now', '-30 days')\n```")
    try:
        sql = extract_sql(reply, "sqlite")
    except LLMReplyError:
        return  # refused: the model is asked again, and nothing wrong is shown
    assert "WHERE sold_on" in sql  # never "SELECT town FROM sale", which answers another question


def test_a_comment_with_more_clauses_after_it_is_never_where_the_query_ends() -> None:
    """``… JOIN author ON …`` then a note read as a comment, then ``JOIN writes …``: the statement before the
    comment parses, but cutting there drops joins and the WHERE (a wrong answer shown, fresh15)."""
    reply = ("```sql\nSELECT town FROM sale\n-- Step 2: dono tables ko join karo\nJOIN sale s2 ON s2.id = sale.id\n"
             "Then we keep (recent) ones\nWHERE sale.amount > 6\n```")
    try:
        sql = extract_sql(reply, "sqlite")
    except LLMReplyError:
        return
    assert "WHERE sale.amount > 6" in sql
