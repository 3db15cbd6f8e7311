"""SQL written as typed at a terminal or as a writer formats it (core.sql.layout._terminal, through
``extract_queries``): a database shell's prompts, a shell command carrying the query, a session variable set then
read, a Markdown block quote, Markdown's escapes, full-width punctuation and arrows that annotate a line."""

from __future__ import annotations

import pytest

from core.errors import LLMReplyError
from core.sql import extract_sql


@pytest.mark.parametrize(("reply", "sql"), [
    # psql: the prompts go, and the result printed after the query
    ("I ran it:\n```console\nshop=> SELECT town, COUNT(*) AS n\nshop-> FROM sale\nshop-> GROUP BY town;\n town | n\n"
     "------+---\n Pune | 2\n(1 row)\n```", "SELECT town, COUNT(*) AS n\nFROM sale\nGROUP BY town"),
    ("```\nsqlite> SELECT id\n   ...> FROM sale WHERE amount > 5;\n1\n2\n```", "SELECT id\nFROM sale WHERE amount > 5"),
    ("mysql> SELECT id FROM sale\n    -> WHERE town = 'Pune';", "SELECT id FROM sale\nWHERE town = 'Pune'"),
    # a shell command that carries the query, with the shell's own quoting
    ("```bash\npsql -d shop -c \"SELECT id FROM sale WHERE town = 'Pune'\"\n```", "SELECT id FROM sale WHERE town = 'Pune'"),
    ("```sh\npsql -d shop -c 'SELECT id FROM sale WHERE town = '\\''Pune'\\'''\n```",
     "SELECT id FROM sale WHERE town = 'Pune'"),
    ("```bash\npsql -d shop <<'SQL'\nSELECT id\nFROM sale;\nSQL\n```", "SELECT id\nFROM sale"),
    # a session variable set to a literal, then read: the value where it is read
    ("```sql\nSET @town = 'Pune';\n\nSELECT id FROM sale WHERE town = @town;\n```", "SELECT id FROM sale WHERE town = 'Pune'"),
    ("```sql\nDECLARE @since DATE = '2023-01-01';\nSELECT id FROM sale WHERE sold_on >= @since AND note <> '@since';\n```",
     "SELECT id FROM sale WHERE sold_on >= '2023-01-01' AND note <> '@since'"),  # never inside a value
    ("```\n\\set town 'Pune'\nSELECT id FROM sale WHERE town = :'town' AND amount::int > 1;\n```",
     "SELECT id FROM sale WHERE town = 'Pune' AND amount::int > 1"),  # psql; a cast's :: is no variable
    # Markdown: a block quote, escapes outside values, full-width punctuation outside values
    ("Here it is.\n\n> SELECT town\n> FROM sale\n> WHERE amount > 5;\n\nDone.", "SELECT town\nFROM sale\nWHERE amount > 5"),
    ("SELECT first\\_name, COUNT(\\*) FROM sale WHERE note = 'a\\_b' GROUP BY first\\_name",
     "SELECT first_name, COUNT(*) FROM sale WHERE note = 'a\\_b' GROUP BY first_name"),
    ("```sql\nSELECT town， COUNT（*） FROM sale WHERE note = '，' GROUP BY town\n```",
     "SELECT town, COUNT(*) FROM sale WHERE note = '，' GROUP BY town"),
    # a session set up around the query: settings, a transaction, a shell's dot commands
    ("```sql\nSET statement_timeout = '30s';\nSET search_path TO shop;\nSELECT id FROM sale;\n```", "SELECT id FROM sale"),
    ("```sql\nBEGIN;\nSELECT id FROM sale;\nCOMMIT;\n```", "SELECT id FROM sale"),
    ("```\n.headers on\nPRAGMA case_sensitive_like = ON;\nSELECT id FROM sale;\n```", "SELECT id FROM sale"),
    # arrows that annotate a line, in any script; never a comparison with a negative number
    ("```sql\nSELECT town  <- the columns we need\nFROM sale  ⬅ मुख्य टेबल\nLIMIT 1;  <-- top row\n```",
     "SELECT town\nFROM sale\nLIMIT 1"),
    ("```sql\nSELECT id FROM sale WHERE amount <- 5\n```", "SELECT id FROM sale WHERE amount <- 5"),
])
def test_a_terminal_or_markdown_layout_is_read_as_its_query(reply: str, sql: str) -> None:
    assert extract_sql(reply, "postgres") == sql


@pytest.mark.parametrize("reply", [
    "```bash\npsql -d shop -c \"\\dt\"\n```",  # a shell command with no query in it
    "> Note: the table is big.\n> It may take a while.",  # a block quote of prose
])
def test_a_layout_without_a_query_gives_none(reply: str) -> None:
    with pytest.raises(LLMReplyError):
        extract_sql(reply, "postgres")


def test_a_session_statement_alone_is_left_for_the_guard_to_refuse() -> None:
    assert extract_sql("```sql\nSET search_path TO shop;\n```", "postgres") == "SET search_path TO shop"


def test_a_variable_set_twice_is_left_as_written() -> None:
    reply = "```sql\nSET @t = 'Pune';\nSET @t = 'Agra';\nSELECT id FROM sale WHERE town = @t;\n```"
    assert "@t" in extract_sql(reply, "mysql")
