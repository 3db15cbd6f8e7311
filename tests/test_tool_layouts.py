"""Replies laid out by other tools, and other engines' ways of writing a clause (held-out fresh19's family A): an
agent's transcript, a TOML document, the MySQL client's ``\\G``, a JavaScript template literal, an HTML paragraph
broken by ``<br>``, invisible characters, a sort direction before its key, a CASE without its first WHEN, an IN list
without brackets, ClickHouse's ``countIf``/``uniqExact``, MySQL's ``ISNULL(x)``, Snowflake's ``DIV0``."""

from __future__ import annotations

import sqlite3

import pytest

from core.errors import SQLRejected
from core.sql import extract_queries
from core.sql._guard import guard

QUERY = "SELECT name, COUNT(*) AS n FROM author WHERE name LIKE '%Li%' GROUP BY name ORDER BY n DESC LIMIT 5"
LINES = QUERY.replace(" FROM", "\nFROM").replace(" WHERE", "\nWHERE").replace(" GROUP", "\nGROUP").replace(
    " ORDER", "\nORDER").replace(" LIMIT", "\nLIMIT")


def flat(sql: str) -> str:
    return " ".join(sql.split())


@pytest.mark.parametrize("reply", [
    f"Thought: I should query the database.\nAction: sql_db_query\nAction Input: {QUERY}\n"
    "Observation: (waiting for the result)\nThought: Then I can answer.",
    f"[answer]\nsummary = \"the query\"\nsql = '''\n{LINES}\n'''\n\n[answer.notes]\nverified = false\n",
    f"```toml\n[answer]\nsql = \"\"\"\n{LINES}\n\"\"\"\n```\n",
    f"Run it in the client:\n\n```sql\n{QUERY}\\G\n```\n\n`\\G` prints each row vertically.",
    f"From Node:\n\n```js\nconst {{ rows }} = await pool.query(`\n{LINES}\n`);\nconsole.table(rows);\n```\n",
    "<p>Here is the query:</p>\n<p><code>" + LINES.replace("\n", "<br>") + "</code></p>\n<p>It counts them.</p>",
    f"```sql\n{QUERY.replace('FROM', 'FR' + chr(0x200B) + 'OM').replace('author', 'au' + chr(0x2060) + 'thor')};\n```",
    f"```sql\n{QUERY.replace('GROUP BY', 'GROUP' + chr(0x200B) + ' BY')}\n```",
])
def test_a_query_laid_out_by_another_tool_is_read(reply: str) -> None:
    assert flat(extract_queries(reply, "postgres")[0]) == QUERY


def test_a_draft_key_in_a_toml_reply_is_not_the_answer() -> None:
    reply = f"[draft]\nsql = '''SELECT 1'''\n\n[final]\nquery = '''\n{LINES}\n'''\n"
    assert flat(extract_queries(reply, "postgres")[0]) == QUERY


def test_a_template_literal_with_an_interpolation_is_not_read_as_a_query() -> None:
    from core.sql.layout._markup import markup_read

    reply = "```js\nconst rows = await pool.query(`SELECT name FROM author WHERE aid = ${id}`);\n```"
    assert "```sql" not in markup_read(reply)  # a value the program fills in: no query of its own to run


def test_a_line_break_tag_inside_a_quoted_value_stays() -> None:
    reply = "<p><code>SELECT name FROM author<br>WHERE homepage = 'a<br>b'</code></p>"
    assert extract_queries(reply, "postgres")[0] == "SELECT name FROM author\nWHERE homepage = 'a<br>b'"


def test_a_zero_width_character_inside_a_quoted_value_stays() -> None:
    value = "Li" + chr(0x200B)
    reply = f"```sql\nSELECT name FROM author WHERE name = '{value}'\n```"
    assert extract_queries(reply, "postgres")[0] == f"SELECT name FROM author WHERE name = '{value}'"


@pytest.mark.parametrize(("written", "read"), [
    ("SELECT name FROM author ORDER BY DESC COUNT(*), ASC name LIMIT 5",
     "SELECT name FROM author ORDER BY COUNT(*) DESC, name ASC LIMIT 5"),
    ("SELECT name FROM author ORDER BY DESC aid NULLS LAST", "SELECT name FROM author ORDER BY aid DESC NULLS LAST"),
    ("SELECT SUM(CASE year > 2010 THEN 1 ELSE 0 END) FROM publication",
     "SELECT SUM(CASE WHEN year > 2010 THEN 1 ELSE 0 END) FROM publication"),
    ("SELECT name FROM author WHERE name IN 'Li', 'O''Hara' ORDER BY name",
     "SELECT name FROM author WHERE name IN ('Li', 'O''Hara') ORDER BY name"),
    ("SELECT aid, COUNT(*) AS n FROM writes GROUP BY aid ORDER BY COUNT(*) AS n DESC, aid AS a LIMIT 5",
     "SELECT aid, COUNT(*) AS n FROM writes GROUP BY aid ORDER BY COUNT(*) DESC, aid LIMIT 5"),
    ("SELECT a.name, w.pid FROM author a, writes w ON a.aid = w.aid, publication AS p ON p.pid = w.pid",
     "SELECT a.name, w.pid FROM author a JOIN writes w ON a.aid = w.aid JOIN publication AS p ON p.pid = w.pid"),
    ("SELECT a.name FROM author a, writes w WHERE a.aid = w.aid", "SELECT a.name FROM author a, writes w WHERE "
     "a.aid = w.aid"),  # a comma join with its condition in WHERE is SQL as written
])
def test_a_clause_written_in_another_order_is_read(written: str, read: str) -> None:
    assert flat(extract_queries(f"```sql\n{written}\n```", "postgres")[0]) == read


def test_a_simple_case_and_a_column_named_like_a_direction_are_left() -> None:
    sql = "SELECT CASE kind WHEN 1 THEN 'a' END, \"desc\" FROM t ORDER BY \"desc\""
    assert extract_queries(f"```sql\n{sql}\n```", "postgres")[0] == sql


ROWS = [(1, "a", 10.0, None), (2, "a", 0.0, "x"), (3, "b", 5.0, None)]


def run(sql: str) -> list[tuple]:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE t (id INTEGER, grp TEXT, amount REAL, note TEXT)")
    db.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", ROWS)
    return db.execute(guard(sql, "sqlite").sql).fetchall()


@pytest.mark.parametrize(("borrowed", "native"), [
    ("SELECT grp, countIf(amount > 1), sumIf(amount, id > 1), uniqExact(note) FROM t GROUP BY grp ORDER BY grp",
     "SELECT grp, COUNT(CASE WHEN amount > 1 THEN 1 END), SUM(CASE WHEN id > 1 THEN amount END), "
     "COUNT(DISTINCT note) FROM t GROUP BY grp ORDER BY grp"),
    ("SELECT COUNTIF(amount > 100) FROM t", "SELECT 0"),  # zero over no matching row, as ClickHouse counts
    ("SELECT id FROM t WHERE ISNULL(note) ORDER BY id", "SELECT id FROM t WHERE note IS NULL ORDER BY id"),
    ("SELECT id, ISNULL(note, '-') FROM t ORDER BY id", "SELECT id, COALESCE(note, '-') FROM t ORDER BY id"),
    ("SELECT id, DIV0(amount, amount - 10) FROM t ORDER BY id",
     "SELECT id, CASE WHEN amount - 10 = 0 THEN 0 ELSE amount / (amount - 10) END FROM t ORDER BY id"),
])
def test_another_engines_function_means_what_it_means_there(borrowed: str, native: str) -> None:
    assert run(borrowed) == run(native)


@pytest.mark.parametrize("dialect", ["postgres", "sqlite"])
def test_a_spreadsheet_countif_is_refused_not_read_without_its_criterion(dialect: str) -> None:
    with pytest.raises(SQLRejected) as caught:
        guard("SELECT COUNTIF(grp, 'a') FROM t", dialect)
    assert "COUNT(CASE WHEN" in caught.value.hint


def test_positions_in_is_no_list() -> None:
    sql = "SELECT name FROM author WHERE POSITION('Li' IN name) > 0"
    assert extract_queries(f"```sql\n{sql}\n```", "postgres")[0] == sql


# --- held-out fresh20's family A: more tools' layouts and other languages' syntax ---------------------------------

@pytest.mark.parametrize("reply", [
    f"<|repo_name|>analytics\n<|file_sep|>queries/report.sql\n{LINES}\n",
    "Here:\n\n```\n+" + "-" * 90 + "+\n" + "\n".join(f"| {line.ljust(88)} |" for line in LINES.splitlines()) + "\n+"
    + "-" * 90 + "+\n```\n\nDone.",
    f'You can run this from PowerShell:\n\n```powershell\nInvoke-Sqlcmd -ServerInstance "localhost" -Database "db" '
    f'-Query "{QUERY}" |\n    Format-Table -AutoSize\n```\n',
    "Send it:\n\n```bash\ncurl -s -X POST http://localhost:8080/v1/query \\\n  -H 'Content-Type: application/json' \\\n"
    "  -d '{\"query\": \"" + QUERY.replace("'", "'\\''") + "\"}'\n```\n",
    f'Run:\n\n```bash\npsql -d shop -c "{QUERY}" | less\n```\n',
])
def test_a_query_in_a_repository_header_a_box_or_a_shell_call_is_read(reply: str) -> None:
    assert flat(extract_queries(reply, "postgres")[0]) == QUERY


@pytest.mark.parametrize(("written", "read"), [
    ("SELECT a.name FROM author a JOIN writes w ON a.aid equals w.aid WHERE a.name === 'x' AND a.oid !== 3",
     "SELECT a.name FROM author a JOIN writes w ON a.aid = w.aid WHERE a.name = 'x' AND a.oid <> 3"),
    ("SELECT name FROM author WHERE aid > 4.5f AND oid = 2021L AND name <> 'v2021L'",
     "SELECT name FROM author WHERE aid > 4.5 AND oid = 2021 AND name <> 'v2021L'"),
    ("SELECT name FROM author WHERE name IN ['Li', 'Ng']", "SELECT name FROM author WHERE name IN ('Li', 'Ng')"),
    ("SELECT SUM(aid) / NULLIF(COUNT(oid)) AS r FROM author", "SELECT SUM(aid) / NULLIF(COUNT(oid), 0) AS r FROM author"),
])
def test_another_languages_operators_and_literals_are_read(written: str, read: str) -> None:
    assert flat(extract_queries(f"```sql\n{written}\n```", "sqlite")[0]) == read


@pytest.mark.parametrize(("borrowed", "native"), [
    ("SELECT grp.upper(), amount.round(), (amount + 1).round(1) FROM t ORDER BY id",
     "SELECT UPPER(grp), ROUND(amount), ROUND(amount + 1, 1) FROM t ORDER BY id"),
    ("SELECT amount.avg() FROM t", "SELECT AVG(amount) FROM t"),
    ("SELECT id FROM t SORT BY amount LIMIT 1", "SELECT 2"),  # Hive's SORT BY: the order (the lowest), not dropped
])
def test_methods_and_hive_sorts_mean_what_they_mean_there(borrowed: str, native: str) -> None:
    assert run(borrowed) == run(native)


def test_a_with_list_and_no_query_after_it_reads_as_the_last_ones_rows() -> None:
    reply = f"```sql\nWITH result AS (\n{LINES}\n)\n```\n\nIt reads the tables."
    assert flat(extract_queries(reply, "postgres")[0]) == f"WITH result AS ( {QUERY} ) SELECT * FROM result"


# --- fresh21's family A: more program strings, tools' marks and warehouse functions ------------------------------

@pytest.mark.parametrize(("reply", "read"), [
    ('```rust\nlet rows = sqlx::query(\n    r#"\n    SELECT name FROM author WHERE name = "x"\n    "#,\n)\n.fetch_all(&pool)'
     '\n.await?;\n```', 'SELECT name FROM author WHERE name = "x"'),
    ("```sql\n(\n    SELECT name FROM author WHERE aid IN (SELECT aid FROM writes)\n) AS result;\n```",
     "SELECT name FROM author WHERE aid IN (SELECT aid FROM writes)"),
    ("```sql\n\u2013 Final query\nSELECT name  \u2013 the names\nFROM author  \u2014 source table\nWHERE aid > 2\n```",
     "SELECT name -- the names FROM author -- source table WHERE aid > 2"),
    ("```sql\nSELECT SUM(CASE WHEN aid > 1 THEN 1 ELSE 0 END CASE) FROM author\n```",
     "SELECT SUM(CASE WHEN aid > 1 THEN 1 ELSE 0 END) FROM author"),
    ("```sql\nSELECT name FROM author WHERE 1 = 1\n  [[AND aid > 3]]\nORDER BY name\n```",
     "SELECT name FROM author WHERE 1 = 1 AND aid > 3 ORDER BY name"),
    ("```sql\nSELECT [author.name](http://author.name) FROM author\n```", "SELECT author.name FROM author"),
    ("```sql\nSELECT CASE aid WHEN > 4 THEN 'high' WHEN > 2 THEN 'mid' END FROM author\n```",
     "SELECT CASE WHEN aid > 4 THEN 'high' WHEN aid > 2 THEN 'mid' END FROM author"),
])
def test_tools_marks_and_program_strings_are_read(reply: str, read: str) -> None:
    assert flat(extract_queries(reply, "sqlite")[0]) == read


def test_a_minus_between_operands_is_no_comment() -> None:
    assert "\u2013" in extract_queries("```sql\nSELECT amount \u2013 1 FROM t\n```", "sqlite")[0]


@pytest.mark.parametrize(("borrowed", "native"), [
    ("SELECT APPROX_COUNT_DISTINCT(grp) FROM t", "SELECT COUNT(DISTINCT grp) FROM t"),
    ("SELECT id FROM t WHERE CONTAINS(note, 'x') ORDER BY id", "SELECT id FROM t WHERE note LIKE '%x%' ORDER BY id"),
])
def test_warehouse_functions_are_read_as_the_exact_forms(borrowed: str, native: str) -> None:
    assert run(borrowed) == run(native)
