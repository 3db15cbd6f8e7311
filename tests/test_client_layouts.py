"""Layouts of forum posts and database clients, and a note that swallowed a clause (held-out fresh17's family A)."""

from __future__ import annotations

import pytest

from core.errors import LLMReplyError
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


# --- held-out fresh18's layouts (development since it was measured) -------------------------------------------------

@pytest.mark.parametrize("reply", [
    f"To answer this, run:\n\n'''sql\n{QUERY};\n'''\n\nLet me know!",  # a fence of single quotes
    f'From R:\n\n```r\nlibrary(DBI)\nres <- dbGetQuery(con, "\n{QUERY}\n")\nprint(res)\n```\n\nAdjust it.',
    f"{QUERY[len('SELECT '):]}\n```\n\nThis query gives the rows you asked for.",  # a prompt that ended in SELECT
    QUERY[len("SELECT "):],  # the same with no fence at all
    "```sql\nFROM author SELECT name, aid WHERE aid IN (SELECT aid FROM domain_author WHERE did = 2)\n```",  # DuckDB
    f"```sql\n{QUERY.replace('FROM', 'FRОM', 1)}\n```",  # a Cyrillic О in FROM
])
def test_layouts_of_other_tools_are_read(reply: str) -> None:
    assert " ".join(extract_queries(reply, "postgres")[0].split()).replace(" AS ", " ") == QUERY


def test_a_prompt_continuation_reading_needs_a_query_and_a_bare_closing_fence() -> None:
    with pytest.raises(LLMReplyError):
        extract_queries("These come from the table, as you asked\n```\n\nDone.", "postgres")
    reply = "Results come from the table\n```sql\nSELECT name FROM author\n```"  # an ordinary block after prose
    assert extract_queries(reply, "postgres") == ["SELECT name FROM author"]


def test_a_word_all_in_another_script_is_left() -> None:
    reply = "```sql\nSELECT имя FROM author WHERE name = 'FRОM'\n```"
    assert extract_queries(reply, "postgres") == ["SELECT имя FROM author WHERE name = 'FRОM'"]


@pytest.mark.parametrize(("written", "read"), [
    ("SELECT name FROM author ORDER BY name DESCENDING", "ORDER BY name DESC"),
    ("SELECT name FROM author ORDER BY name NULLS LAST DESC LIMIT 3", "ORDER BY name DESC NULLS LAST LIMIT 3"),
    ("SELECT name FROM author WHERE aid > 1 ALLOW FILTERING;", "WHERE aid > 1"),
])
def test_other_tools_wording_of_a_clause(written: str, read: str) -> None:
    assert extract_queries(f"```sql\n{written}\n```", "postgres")[0].endswith(read)
