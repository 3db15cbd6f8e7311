"""Layouts of forum posts and database clients, and a note that swallowed a clause (held-out fresh17's family A)."""

from __future__ import annotations

import pytest

from core.sql import extract_queries

QUERY = "SELECT name, aid FROM author WHERE aid IN (SELECT aid FROM domain_author WHERE did = 2)"


@pytest.mark.parametrize("reply", [
    f"Here you go:\n\n[code=sql]\n{QUERY};\n[/code]\n\nHope this helps!",
    f"[code]\n{QUERY}\n[/code]",
    f"[SQL]{QUERY};[/SQL] runs on both.",
    f"Run this:\n{QUERY};\n[/code]",  # the closing tag alone: the end of the markup, not more SQL
    f"Run this:\n{QUERY};\n</code>",
])
def test_a_query_in_forum_markup_is_read(reply: str) -> None:
    assert extract_queries(reply, "postgres")[0] == QUERY


@pytest.mark.parametrize("mark", ["$$", "//", "|"])
def test_a_client_delimiter_directive_ends_the_statement(mark: str) -> None:
    reply = f"Here's how:\n\n```sql\nDELIMITER {mark}\n\n{QUERY}{mark}\n\nDELIMITER ;\n```\n"
    assert extract_queries(reply, "sqlite")[0] == QUERY


def test_a_delimiter_inside_a_quoted_value_is_left() -> None:
    reply = "```sql\nDELIMITER //\nSELECT name FROM author WHERE homepage = 'http://x.org//'\n//\nDELIMITER ;\n```"
    assert extract_queries(reply, "postgres")[0] == "SELECT name FROM author WHERE homepage = 'http://x.org//'"


def test_a_clause_a_mid_line_note_swallowed_is_read_and_the_reading_as_written_offered() -> None:
    reply = ("The following query should give you the result:\n\n```sql\n"
             "SELECT author.name FROM author -- apply the filter WHERE author.aid IN (SELECT aid FROM domain_author "
             "WHERE did = 2) ORDER BY 1;\n```\nThis returns the authors.")
    answer, *others = extract_queries(reply, "postgres")
    assert answer.replace("\n", " ").endswith("-- apply the filter WHERE author.aid IN (SELECT aid FROM domain_author "
                                              "WHERE did = 2) ORDER BY 1")
    assert "\nWHERE author.aid" in answer
    assert len(others) == 1 and "-- apply the filter WHERE" in others[0]  # as written, one click away


@pytest.mark.parametrize("note", ["you could also add", "optionally", "if you want only ML authors, add"])
def test_a_note_that_suggests_a_clause_stays_a_note(note: str) -> None:
    reply = f"```sql\nSELECT author.name FROM author -- {note} WHERE author.aid = 3\n```"
    assert extract_queries(reply, "postgres") == [f"SELECT author.name FROM author -- {note} WHERE author.aid = 3"]


def test_a_note_with_a_lower_case_clause_word_stays_a_note() -> None:
    reply = "```sql\nSELECT name, -- the name where it is set\n  aid FROM author\n```"
    assert extract_queries(reply, "postgres") == ["SELECT name, -- the name where it is set\n  aid FROM author"]


def test_a_swallowed_clause_that_would_not_read_is_left_as_written() -> None:
    reply = "```sql\nSELECT name FROM author -- keep these WHERE IN THE LIST (\n```"
    assert extract_queries(reply, "postgres") == ["SELECT name FROM author -- keep these WHERE IN THE LIST ("]


def test_a_block_tagged_as_sql_outranks_a_plain_code_block() -> None:
    reply = (f"[code=sql]\n{QUERY};\n[/code]\nTo check the table first:\n[code]SELECT aid FROM domain_author[/code]")
    assert extract_queries(reply, "sqlite")[0] == QUERY
