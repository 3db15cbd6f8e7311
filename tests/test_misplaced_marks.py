"""Code fences written wrong, a query as a list of its lines, and SQL's words and marks put where its grammar has no
place for them (``layout/_fences``, ``written/_misplaced``): each read as its one meaning, and only there."""

from __future__ import annotations

import pytest

from core.sql import extract_queries

QUERY = ("SELECT c.city, SUM(o.amount) AS total FROM customers AS c JOIN orders AS o ON o.customer_id = c.customer_id "
         "WHERE c.status = 'active' GROUP BY c.city ORDER BY total DESC")


def _one(reply: str, dialect: str = "sqlite") -> str:
    return " ".join(extract_queries(reply, dialect)[0].split())


@pytest.mark.parametrize("reply", [
    f"Here:\n\n```sql{QUERY}\n```\n\nDone.",  # the label run into the query
    f"```SQL{QUERY}\n```",
    f"```{QUERY}\n```",
    f"Try this, it shoud work:\n\n{QUERY}\n```\n\nKoi doubt ho toh puchiye!",  # only the closing fence
    "Use this:\n\nSELECT c.city, SUM(o.amount) AS total\nFROM customers AS c JOIN orders AS o ON o.customer_id = "
    "c.customer_id\nWHERE c.status = 'active'\nGROUP BY c.city\nORDER BY total DESC\n```",
    '```json\n{"sql_lines": ["SELECT c.city, SUM(o.amount) AS total", "FROM customers AS c JOIN orders AS o ON '
    'o.customer_id = c.customer_id", "WHERE c.status = \'active\'", "GROUP BY c.city", "ORDER BY total DESC"]}\n```',
    "```python\nquery_lines = [\n    \"SELECT c.city, SUM(o.amount) AS total\",\n    \"FROM customers AS c JOIN "
    "orders AS o ON o.customer_id = c.customer_id\",\n    \"WHERE c.status = 'active'\",\n    \"GROUP BY c.city\",\n"
    "    \"ORDER BY total DESC\",\n]\nquery = \"\\n\".join(query_lines)\n```",
])
def test_a_fence_written_wrong_or_a_list_of_lines_is_read_as_the_query(reply: str) -> None:
    assert _one(reply) == QUERY


def test_a_label_that_is_no_sql_language_and_a_list_that_is_no_query_are_left() -> None:
    listed = '```python\nnames = ["SELECT a", "FROM"]\nprint(names)\n```'  # the lines read as no statement
    assert "FROM" not in extract_queries(listed, "sqlite")[0]
    assert "```selections" not in _one(f"```selections\n{QUERY}\n```")  # a label of its own: the block as it is


@pytest.mark.parametrize(("written", "meant"), [
    ("SELECT city, SUM(amount AS total) FROM t GROUP BY city", "SELECT city, SUM(amount) AS total FROM t GROUP BY city"),
    ("SELECT city, SUM(amount) AS total FROM t GROUP BY city ORDER BY total, DESC",
     "SELECT city, SUM(amount) AS total FROM t GROUP BY city ORDER BY total DESC"),
    ("SELECT city, COUNT DISTINCT(cid) AS n FROM t GROUP BY city",
     "SELECT city, COUNT(DISTINCT cid) AS n FROM t GROUP BY city"),
    ("SELECT COUNT DISTINCT t.cid FROM t", "SELECT COUNT(DISTINCT t.cid) FROM t"),
    ("SELECT CAST(amount, FLOAT) / 2 AS half FROM t", "SELECT CAST(amount AS FLOAT) / 2 AS half FROM t"),
    ("WITH a AS SELECT city, SUM(amount) AS s FROM t GROUP BY city SELECT city FROM a ORDER BY s",
     "WITH a AS (SELECT city, SUM(amount) AS s FROM t GROUP BY city) SELECT city FROM a ORDER BY s"),
    ("WITH a AS SELECT x FROM t, b AS (SELECT y FROM u) SELECT x, y FROM a, b",
     "WITH a AS (SELECT x FROM t), b AS (SELECT y FROM u) SELECT x, y FROM a, b"),
    ("SELECT x FROM t WHERE a = 1 aur b = 2 ya c = 3", "SELECT x FROM t WHERE a = 1 AND b = 2 OR c = 3"),
    ("SELECT a.x FROM a JOIN b WHERE a.id = b.aid JOIN c WHERE c.bid = b.id WHERE a.y = 1",
     "SELECT a.x FROM a JOIN b ON a.id = b.aid JOIN c ON c.bid = b.id WHERE a.y = 1"),
    ("SELECT c.customer _id FROM c JOIN o ON o.customer_ id = c.customer_id",
     "SELECT c.customer_id FROM c JOIN o ON o.customer_id = c.customer_id"),
])
def test_a_word_or_mark_out_of_place_is_read_as_its_one_meaning(written: str, meant: str) -> None:
    assert _one(f"```sql\n{written}\n```") == meant


@pytest.mark.parametrize("kept", [
    "SELECT CAST(amount AS FLOAT) AS a FROM t",
    "SELECT x FROM t WHERE name = 'aur ya' AND aur_id = 1",  # in a value, or part of a name
    "SELECT a.x FROM a LEFT JOIN b WHERE a.id = b.aid",  # a lone outer join: which reading is meant is unsaid
    "SELECT name AS _id FROM t",
    "SELECT COUNT(DISTINCT cid) FROM t",
])
def test_what_reads_as_written_is_left(kept: str) -> None:
    assert _one(f"```sql\n{kept}\n```") == kept


@pytest.mark.parametrize(("reply", "meant"), [  # attack round 20
    ("SELECT customer FROM orders WHERE region = 'north'\nUNION\nSELECT customer FROM orders WHERE region = 'south'"
     "\n```\nThis combines both regions.",
     "SELECT customer FROM orders WHERE region = 'north' UNION SELECT customer FROM orders WHERE region = 'south'"),
    ("Select customer from orders\n```\nSELECT customer FROM orders WHERE total > 100;\n",
     "SELECT customer FROM orders WHERE total > 100"),  # a fence a query follows opens a block: not a closing one
    ("SELECT x FROM t WHERE ya = 1 aur region = 'north'", "SELECT x FROM t WHERE ya = 1 AND region = 'north'"),
])
def test_attack_round_20_the_whole_statement_is_read_and_names_stay_names(reply: str, meant: str) -> None:
    assert _one(reply if "```" in reply else f"```sql\n{reply}\n```") == meant


def test_attack_round_20_lines_the_code_adds_to_are_not_read_as_the_query() -> None:
    reply = ('```python\nquery_lines = [\n "SELECT c.name, SUM(o.total) AS total",\n "FROM customers c JOIN orders o ON '
             'o.customer_id = c.id",\n "GROUP BY c.name",\n]\nsql = "\\n".join(query_lines) + "\\nHAVING SUM(o.total) > '
             '35"\n```')
    assert "GROUP BY" not in _one(reply)  # never the query without its HAVING: the code's own reading is Python's


@pytest.mark.parametrize(("written", "meant"), [
    ("SELECT a FROM t LEFTJOIN u ON t.id = u.id GROUPBY a ORDERBY a",
     "SELECT a FROM t LEFT JOIN u ON t.id = u.id GROUP BY a ORDER BY a"),
    ("select a from t leftouterjoin u on t.id = u.id", "select a from t left outer join u on t.id = u.id"),
    ("SELECT a FROM t WHERE x > 1 GROUPBY sp.a ORDERBY a", "SELECT a FROM t WHERE x > 1 GROUP BY sp.a ORDER BY a"),
    ("SELECT STRFTIME('%H', departure_ time) AS h FROM flight ORDER BY departure_ time",
     "SELECT STRFTIME('%H', departure_time) AS h FROM flight ORDER BY departure_time"),  # a keyword's piece too
])
def test_glued_join_words_and_names_broken_before_a_keyword_are_read(written: str, meant: str) -> None:
    assert _one(f"```sql\n{written}\n```") == meant


def test_a_name_of_the_schema_broken_by_a_space_anywhere_is_written_whole() -> None:
    from core.schema import Column, Schema, Table
    from core.sql import guard_named
    schema = Schema(dialect="sqlite", tables=(Table("paper", (Column("paperid", "integer"), Column("title", "text"))),))
    out = guard_named("SELECT p.pap erid, title FROM paper p WHERE p.pap erid > 3", schema)
    assert out.sql == "SELECT p.paperid, title FROM paper AS p WHERE p.paperid > 3" and "broken by a space" in out.mended
    for kept in ("SELECT paperid id FROM paper", "SELECT title t FROM paper"):  # an alias: a piece is a name
        assert guard_named(kept, schema).mended == ""
