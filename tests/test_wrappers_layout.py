"""A query carried inside something else — a statement, another language's strings, a formula, a writer's marks —
read back to the query alone (``core.sql.layout._wrappers``), and what is never read that way."""

from __future__ import annotations

import pytest

from core.errors import LLMReplyError
from core.sql import extract_queries

QUERY = "SELECT g.name, COUNT(*) AS tracks FROM track t JOIN genre g ON t.genre_id = g.genre_id GROUP BY g.name"


def _one(reply: str) -> str:
    [sql] = extract_queries(reply, "postgres")
    return " ".join(sql.split())


@pytest.mark.parametrize("reply", [
    f"With the plan:\n\n```sql\nEXPLAIN ANALYZE\n{QUERY};\n```\n\nRemove the first line for the rows.",
    f"```sql\nEXPLAIN (ANALYZE, BUFFERS) {QUERY};\n```",
    f"```sql\nEXPLAIN QUERY PLAN\n{QUERY}\n```",
    f"To a file:\n\n```sql\n\\copy ({QUERY}) TO '/tmp/result.csv' WITH (FORMAT csv, HEADER)\n```",
    f"```sql\nCOPY ({QUERY}) TO STDOUT WITH CSV HEADER;\n```",
    f"```sql\nPREPARE q AS\n{QUERY};\nEXECUTE q;\n```",
    f"$\\boxed{{{QUERY}}}$",
    "The final answer is:\n\\[\n\\boxed{\\text{" + QUERY.replace("_", "\\_") + "}}\n\\]",
    "```sql\n" + QUERY.replace(" FROM", " \\\nFROM").replace(" JOIN", " \\\nJOIN").replace(" GROUP", " \\\nGROUP")
    + "\n```",
    "```sql\nSELECT g.name, COUNT(*) AS tracks\nFROM track t\n**JOIN genre g ON t.genre_id = g.genre_id**\n"
    "**GROUP BY g.name;**\n```",
])
def test_the_query_inside_a_wrapper_is_read_as_written(reply: str) -> None:
    assert _one(reply) == QUERY


def test_another_languages_string_pieces_joined_by_plus_are_one_query() -> None:
    java = ('Run it with JDBC:\n\n```java\nString sql = "SELECT g.name, COUNT(*) AS tracks " +\n'
            '             "FROM track t " +\n             "JOIN genre g ON t.genre_id = g.genre_id " +\n'
            '             "GROUP BY g.name";\nResultSet rs = stmt.executeQuery(sql);\n```')
    assert _one(java) == QUERY
    js = 'const q = "SELECT name FROM artist " + "WHERE name = \\"AC/DC\\"";'
    assert _one(js) == 'SELECT name FROM artist WHERE name = "AC/DC"'


def test_pieces_joined_to_a_variable_are_no_whole_query() -> None:
    """``"… WHERE id = " + id`` or an optional clause added by code: no literal chain is the query."""
    for code in ('String sql = "SELECT name FROM artist " + "WHERE artist_id = " + id;',
                 'String sql = base + "SELECT name FROM artist " + "ORDER BY name";'):
        with pytest.raises(LLMReplyError):
            extract_queries(f"```java\n{code}\n```", "postgres")


def test_prepared_parameters_are_read_as_the_literals_execute_passes() -> None:
    reply = ("```sql\nPREPARE top_n (int, text) AS\nSELECT name FROM artist WHERE name <> $2 LIMIT $1;\n"
             "EXECUTE top_n(5, 'AC/DC');\n```")
    assert _one(reply) == "SELECT name FROM artist WHERE name <> CAST('AC/DC' AS text) LIMIT CAST(5 AS int)"
    # attack round 7: an argument is a value, whole — a negative one is no comment, a quoted $1 is text, a declared
    # type is kept ('007' as text is not 7)
    untyped = "```sql\nPREPARE q AS\nSELECT name, price-$1 AS adjusted FROM product WHERE code <> '$1';\nEXECUTE q(-5);\n```"
    assert _one(untyped) == "SELECT name, price-(-5) AS adjusted FROM product WHERE code <> '$1'"
    typed = "```sql\nPREPARE q(text) AS SELECT name FROM product WHERE code = $1;\nEXECUTE q(007);\n```"
    assert _one(typed) == "SELECT name FROM product WHERE code = CAST(007 AS text)"
    # a parameter with no literal for it: left as written (and the guard refuses a PREPARE)
    for execute in ("EXECUTE top_n;", "EXECUTE top_n(n, 'x');"):
        kept = f"```sql\nPREPARE top_n AS SELECT name FROM artist LIMIT $1;\n{execute}\n```"
        assert all("$1" in q or "PREPARE" in q for q in _queries_or_none(kept))


def _queries_or_none(reply: str) -> list[str]:
    try:
        return extract_queries(reply, "postgres")
    except LLMReplyError:
        return ["PREPARE"]


def test_emphasis_is_dropped_only_around_clauses_and_never_inside_a_value() -> None:
    reply = "```sql\nSELECT note FROM ticket\n**WHERE note LIKE '%**WHERE** it broke%'**\n```"
    assert _one(reply) == "SELECT note FROM ticket WHERE note LIKE '%**WHERE** it broke%'"
    kept = "```sql\nSELECT note FROM ticket\nWHERE note LIKE '%**WHERE** it broke%'\n```"
    assert _one(kept) == "SELECT note FROM ticket WHERE note LIKE '%**WHERE** it broke%'"
    prose = "**Note:** this counts every track.\n\n```sql\nSELECT COUNT(*) FROM track\n```"
    assert _one(prose) == "SELECT COUNT(*) FROM track"


def test_a_copy_of_a_table_or_into_a_table_is_left_for_the_guard_to_refuse() -> None:
    from core.errors import SQLRejected
    from core.sql._guard import guard

    for statement in ("COPY track TO STDOUT", "COPY track FROM '/tmp/x.csv'"):
        assert _queries_or_none(f"```sql\n{statement};\n```") != [] and all(
            not q.lstrip().upper().startswith("SELECT") for q in _queries_or_none(f"```sql\n{statement};\n```"))
        with pytest.raises(SQLRejected):
            guard(statement, "postgres")



def test_beside_a_plain_query_a_wrapped_one_is_an_illustration_never_the_answer() -> None:
    """Attack round 7: a plan to check, an export, a prepared call, a formula or a Java call written after the
    answer had become the query that ran (the last one)."""
    answer = "```sql\nSELECT name FROM emp WHERE dept = 'Sales'\n```\n\n"
    for after in ("To check the index:\n```sql\nEXPLAIN QUERY PLAN SELECT name FROM emp WHERE dept = 'HR';\n```",
                  "```sql\nPREPARE by_dept(text) AS SELECT name FROM emp WHERE dept = $1;\nEXECUTE by_dept('HR');\n```",
                  "To export:\n```sql\n\\copy (SELECT name FROM emp) TO 'emp.csv' CSV HEADER\n```",
                  "For HR: $\\boxed{\\text{SELECT name FROM emp WHERE dept = 'HR'}}$",
                  '```java\nString q = "SELECT name FROM emp " + "WHERE dept = \'HR\'";\n```'):
        queries = _queries_or_none(answer + after)
        assert [" ".join(q.split()) for q in queries if q.lstrip().upper().startswith(("SELECT", "WITH"))] == [
            "SELECT name FROM emp WHERE dept = 'Sales'"], after


def test_a_comment_between_string_pieces_never_cuts_the_query_short() -> None:
    java = ('```java\nString sql = "SELECT name, salary FROM emp " +\n    "WHERE active = 1 " // active staff only\n'
            '    + "AND salary > 4500";\n```')
    assert _one(java) == "SELECT name, salary FROM emp WHERE active = 1 AND salary > 4500"
    joined = '```java\nString sql = prefix +\n    "SELECT name FROM emp " + "ORDER BY name";\n```'
    with pytest.raises(LLMReplyError):
        extract_queries(joined, "postgres")


def test_bold_prose_after_a_query_stays_prose() -> None:
    for prose in ("**WHERE** keeps only active employees.", "**ORDER BY salary DESC** sorts the highest first."):
        assert _one(f"SELECT name FROM emp WHERE active = 1 ORDER BY salary DESC\n\n{prose}") == (
            "SELECT name FROM emp WHERE active = 1 ORDER BY salary DESC")
    assert _one("```sql\nSELECT __on FROM t WHERE __on_x = 1\n```") == "SELECT __on FROM t WHERE __on_x = 1"



def test_a_double_slash_inside_a_string_piece_is_text() -> None:
    java = ('```java\nString sql = "SELECT url FROM page " + // pages\n'
            '    "WHERE url LIKE \'http://%\'";\n```')
    assert _one(java) == "SELECT url FROM page WHERE url LIKE 'http://%'"
