"""extract_sql: the one statement inside a model's reply, whatever wraps it."""

from __future__ import annotations

import psycopg
import pytest

from core.errors import LLMReplyError
from core.sql import extract_queries, extract_sql
from core.sql import guard

CASES: list[tuple[str, str]] = [
    ("SELECT 1", "SELECT 1"),
    ("SELECT 1;", "SELECT 1"),
    ("SELECT 1;;  \n", "SELECT 1"),
    ("```sql\nSELECT name FROM customers;\n```", "SELECT name FROM customers"),
    ("```\nSELECT *\nFROM orders\nLIMIT 5\n```", "SELECT *\nFROM orders\nLIMIT 5"),
    ("```SQL\nSELECT 1\n```", "SELECT 1"),
    ("~~~sql\nSELECT 1\n~~~", "SELECT 1"),
    ("```postgresql\nSELECT 2\n```\nThat's all.", "SELECT 2"),
    (
        "Here is the query:\n```sql\nSELECT country, COUNT(*) AS n\nFROM customers\nGROUP BY country;\n```\n"
        "This query counts customers per country.",
        "SELECT country, COUNT(*) AS n\nFROM customers\nGROUP BY country",
    ),
    (
        "SELECT COUNT(*) FROM orders WHERE status = 'delivered'\n\nThis query counts the delivered orders.",
        "SELECT COUNT(*) FROM orders WHERE status = 'delivered'",
    ),
    ("SQL: SELECT name FROM customers WHERE city = 'Paris'", "SELECT name FROM customers WHERE city = 'Paris'"),
    ("SQL: SELECT name FROM customers. It returns the names.", "SELECT name FROM customers"),
    ("Query: select count(*) from orders", "select count(*) from orders"),
    ("The query is `SELECT COUNT(*) FROM orders`.", "SELECT COUNT(*) FROM orders"),
    (
        "To answer, select the customers from India:\nSELECT name FROM customers WHERE country = 'India';",
        "SELECT name FROM customers WHERE country = 'India'",
    ),
    ("```python\nprint(1)\n```\n```sql\nSELECT 1 AS one\n```\n```sql\nSELECT 2\n```", "SELECT 2"),  # the last query
    ("```sql\nSELECT 1 AS first\n```\nor\n```sql\nSELECT 2 AS second\n```", "SELECT 2 AS second"),  # the other offered
    ("SELECT 1;\nSELECT 2;", "SELECT 1"),
    ("SELECT 1; -- trailing remark", "SELECT 1"),
    ("SELECT 1; -- x\nDROP TABLE t", "SELECT 1"),
    ("SELECT * FROM orders\nDone.", "SELECT * FROM orders"),
    ("WITH x AS (SELECT 1 AS a) SELECT a FROM x;\nThis uses a CTE.", "WITH x AS (SELECT 1 AS a) SELECT a FROM x"),
    ("(SELECT a FROM t) UNION (SELECT b FROM u)", "(SELECT a FROM t) UNION (SELECT b FROM u)"),
    ("SELECT a -- first; \nFROM t;", "SELECT a -- first; \nFROM t"),
    ("-- top customers\nSELECT name FROM customers", "SELECT name FROM customers"),
    ("SELECT name -- the name\nFROM customers\n-- done", "SELECT name -- the name\nFROM customers\n-- done"),
    ("<think>Maybe SELECT * FROM t</think>\nSELECT a FROM b", "SELECT a FROM b"),
    ("DROP TABLE customers;", "DROP TABLE customers"),
    ("Sure.\n```sql\nDELETE FROM orders WHERE 1 = 1;\n```", "DELETE FROM orders WHERE 1 = 1"),
    ("SELECT `name` FROM `t` LIMIT 2, 3", "SELECT `name` FROM `t` LIMIT 2, 3"),
    ("SELECT TOP 5 name FROM t ORDER BY x", "SELECT TOP 5 name FROM t ORDER BY x"),
    (
        "Sure! Here's the SQL query with a join:\n\nSELECT c.name, SUM(o.total_amount) AS total\n"
        "FROM customers c\nJOIN orders o ON o.customer_id = c.customer_id\nGROUP BY c.name\n"
        "ORDER BY total DESC\nLIMIT 10;\n\nExplanation:\n- We join customers and orders.\n"
        "- Then we group by name.",
        "SELECT c.name, SUM(o.total_amount) AS total\nFROM customers c\n"
        "JOIN orders o ON o.customer_id = c.customer_id\nGROUP BY c.name\nORDER BY total DESC\nLIMIT 10",
    ),
    ("SELECT\n  *\nFROM t\nWHERE a > 1", "SELECT\n  *\nFROM t\nWHERE a > 1"),
    ("VALUES (1), (2)", "VALUES (1), (2)"),
    ("update orders set status = 'x' where order_id = 1;", "update orders set status = 'x' where order_id = 1"),
    ("Update the filter as needed:\nselect 1", "select 1"),
    ("Drop me a line if this helps.\nselect name from customers", "select name from customers"),
]

LITERAL_CASES = [
    "SELECT note FROM t WHERE note = 'a; b'",
    "SELECT note FROM t WHERE note = 'Note: this. That'",
    "SELECT note FROM t WHERE note = 'back`tick'",
    "SELECT note FROM t WHERE note = '```sql'",
    "SELECT note FROM t WHERE note = 'It''s done. Really!'",
    "SELECT note FROM t WHERE note LIKE '%-- not a comment%'",
    "SELECT $$a; b$$ AS x",
]


@pytest.mark.parametrize(("reply", "expected"), CASES)
def test_extracts_the_statement(reply: str, expected: str) -> None:
    assert extract_sql(reply) == expected


@pytest.mark.parametrize("sql", LITERAL_CASES)
def test_string_literals_are_kept_whole(sql: str) -> None:
    assert extract_sql(sql) == sql
    assert extract_sql(f"Here you go:\n```sql\n{sql};\n```\nNote: adjust as needed.") == sql
    assert extract_sql(f"{sql};\nNote: this is it.") == sql


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "   ",
        "I cannot answer that question.",
        "Sorry, the schema has no table for that. Could you rephrase?",
        "```\nno sql here\n```",
        "Please select a database first.",
    ],
)
def test_no_sql_raises(reply: str) -> None:
    with pytest.raises(LLMReplyError) as info:
        extract_sql(reply)
    assert info.value.hint


def test_long_chatty_reply_is_fast() -> None:
    prose = "We select the rows with the filter and then, with care, select again. " * 200
    assert extract_sql(prose + "\n```sql\nSELECT 1\n```\n" + prose) == "SELECT 1"


def test_extracted_and_guarded_queries_run_on_the_sample_database(sample_db_uri: str) -> None:
    replies = [
        "Here is the query:\n```sql\nSELECT country, COUNT(*) AS n FROM customers GROUP BY country "
        "ORDER BY n DESC;\n```\nThis counts customers per country.",
        "SELECT TOP 3 name FROM customers ORDER BY customer_id",
        "SQL: SELECT `segment`, ISNULL(SUM(o.total_amount), 0) AS revenue FROM customers c "
        "JOIN orders o ON o.customer_id = c.customer_id GROUP BY `segment`",
        "```sql\nSELECT order_id FROM orders ORDER BY order_id LIMIT 10, 5\n```",
    ]
    with psycopg.connect(sample_db_uri) as conn:
        conn.read_only = True
        counts = []
        for reply in replies:
            guarded = guard(extract_sql(reply), "postgres")
            counts.append(len(conn.execute(guarded.sql).fetchall()))
    assert counts[0] >= 5
    assert counts[1:] == [3, 3, 5]


@pytest.mark.parametrize(
    "reply",
    [
        # PostgreSQL's ~ in a reply with MySQL backticks: no dialect reads all of it, and the longest prefix that
        # parses ends before a JOIN's ON. Dropping the rest would run a different query (no WHERE, a cross join).
        "SELECT COUNT(DISTINCT `t`.`a`) FROM `tx` AS t JOIN `c` AS c ON `t`.`b` = `c`.`b` JOIN `k` AS tk "
        "ON `t`.`x` = `tk`.`y` WHERE `c`.`e` LIKE '%.com' AND `tk`.`s` ~ '(AMZN|AAPL)'",
        "SELECT a FROM t WHERE b = 1 QUALIFY ROW_NUMBER() OVER (PARTITION BY c) = 1 AND @@@",
    ],
)
def test_a_prefix_that_parses_never_drops_clauses(reply: str) -> None:
    try:
        sql = extract_sql(reply)
    except LLMReplyError:
        return  # no statement found is honest: the repair round shows the model the error
    assert "WHERE" in sql and sql.rstrip().endswith(reply.rstrip()[-6:]), sql


def test_backticks_with_postgres_operators_read_as_postgres() -> None:
    reply = "SELECT `t`.`name` FROM `artist` AS t WHERE `t`.`name` ~ '^A'"
    guarded = guard(extract_sql(reply), "postgres")
    assert guarded.sql == """SELECT "t"."name" FROM "artist" AS t WHERE "t"."name" ~ '^A'"""


def test_a_looser_trailing_limit_after_fetch_first_is_dropped() -> None:
    assert extract_sql("SELECT a FROM t ORDER BY a\nFETCH FIRST 5 ROWS ONLY\nLIMIT 100") == (
        "SELECT a FROM t ORDER BY a\nFETCH FIRST 5 ROWS ONLY"
    )
    with pytest.raises(LLMReplyError):  # a tighter one would change the rows: nothing is dropped silently
        extract_sql("SELECT a FROM t ORDER BY a\nFETCH FIRST 50 ROWS ONLY\nLIMIT 10")


@pytest.mark.parametrize(("reply", "sql"), [
    ("SELECT COUNT(*) FROM Like", 'SELECT COUNT(*) FROM "like"'),
    ("SELECT h.name FROM Highschooler AS h JOIN Like AS l ON h.id = l.student_id",
     'SELECT h.name FROM Highschooler AS h JOIN "like" AS l ON h.id = l.student_id'),
    # the parser stops only at the later "Like.", after the word: the last such word before it is quoted
    ("SELECT a FROM t WHERE EXISTS (SELECT 1 FROM Like WHERE Like.u = t.id)",
     'SELECT a FROM t WHERE EXISTS (SELECT 1 FROM "like" WHERE "like".u = t.id)'),
])
def test_a_table_named_like_a_key_word_is_quoted_not_lost(reply: str, sql: str) -> None:
    assert extract_sql(reply) == sql


def test_a_table_named_like_a_key_word_answers_on_sqlite(tmp_path) -> None:
    import sqlite3

    from core.databases import open_database
    from core.pipeline import AskPipeline
    from tests.fakes.scripted_llm import ScriptedLLM

    path = tmp_path / "network.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript('CREATE TABLE "Like" (student_id INTEGER, liked_id INTEGER);'
                           'INSERT INTO "Like" VALUES (1, 2), (2, 3), (3, 1);')
    db = open_database(str(path))
    try:
        answer = AskPipeline(db, ScriptedLLM("SELECT COUNT(*) FROM Like")).ask("how many likes are there?")
    finally:
        db.close()
    assert answer.ok and list(answer.rows) == [(3,)], answer.error


@pytest.mark.parametrize(("reply", "answer", "others"), [
    # a draft, then its correction
    ("```sql\nSELECT title FROM p ORDER BY n DESC;\n```\nWait, that misses the LIMIT. Corrected:\n```sql\n"
     "SELECT title FROM p ORDER BY n DESC LIMIT 1;\n```", "SELECT title FROM p ORDER BY n DESC LIMIT 1",
     ["SELECT title FROM p ORDER BY n DESC"]),
    # a look at the data, then the query
    ("First, the data:\n```sql\nSELECT * FROM p LIMIT 5;\n```\nNow the query:\n```sql\nSELECT COUNT(*) FROM p;\n```",
     "SELECT COUNT(*) FROM p", ["SELECT * FROM p LIMIT 5"]),
    # the schema echoed before the query: not a query, not offered
    ("Given:\n```sql\nCREATE TABLE p (id INT);\n```\nthe query is:\n```sql\nSELECT id FROM p\n```", "SELECT id FROM p", []),
    # only a write: kept, for the guard to refuse with its reason
    ("```sql\nDELETE FROM p\n```", "DELETE FROM p", []),
])
def test_a_reply_with_several_blocks_answers_with_its_last_query_and_offers_the_others(reply, answer, others) -> None:
    from core.sql import extract_queries

    assert extract_queries(reply) == [answer, *others]


def test_the_same_query_in_another_dialect_is_not_offered_again() -> None:
    from core.sql import extract_queries

    reply = ("```sql\nSELECT name FROM t ORDER BY n DESC LIMIT 3\n```\nIn MySQL:\n```sql\n"
             "SELECT `name` FROM `t` ORDER BY `n` DESC LIMIT 3;\n```")
    assert extract_queries(reply) == ["SELECT `name` FROM `t` ORDER BY `n` DESC LIMIT 3"]


def test_with_the_target_dialect_known_the_last_query_written_in_it_answers() -> None:
    """"If you are on MySQL instead, use: …" after the SQLite query: the SQLite one answers, the other is offered."""
    from core.sql import extract_queries

    reply = ("```sql\nSELECT d, COUNT(*) FROM t WHERE d >= DATE('now', '-7 days') GROUP BY d;\n```\n"
             "If you are on MySQL instead, use:\n```sql\nSELECT d, COUNT(*) FROM t WHERE d >= DATE_SUB(CURDATE(), "
             "INTERVAL 7 DAY) GROUP BY d;\n```")
    sqlite_query = "SELECT d, COUNT(*) FROM t WHERE d >= DATE('now', '-7 days') GROUP BY d"
    assert extract_queries(reply, "sqlite")[0] == sqlite_query
    assert extract_queries(reply)[0] != sqlite_query  # without the dialect: the last block


def test_typographic_quotes_from_a_word_processor_are_read_as_quotes() -> None:
    assert extract_sql("SELECT AVG(p) FROM s WHERE d >= \u20182023-01-01\u2019 AND d < \u20182023-04-01\u2019;") == (
        "SELECT AVG(p) FROM s WHERE d >= '2023-01-01' AND d < '2023-04-01'")
    assert extract_sql("SELECT name FROM t WHERE x = 'it\u2019s'") == "SELECT name FROM t WHERE x = 'it\u2019s'"


@pytest.mark.parametrize(("reply", "sql"), [
    ("<sql>\nSELECT a FROM t WHERE x = 1\n</sql>", "SELECT a FROM t WHERE x = 1"),
    ("Answer:\n<SQL>SELECT COUNT(*) FROM t</SQL>\nDone.", "SELECT COUNT(*) FROM t"),
    ("You can get this with `SELECT a, b FROM t ORDER BY a DESC LIMIT 3`, which reads from `t`.",
     "SELECT a, b FROM t ORDER BY a DESC LIMIT 3"),
])
def test_sql_in_tags_or_an_inline_code_span_is_found(reply: str, sql: str) -> None:
    assert extract_sql(reply) == sql


@pytest.mark.parametrize("reply", [
    '{"SQL": "SELECT name FROM t ORDER BY name", "explanation": "Pehle rows filter hoti hain."}',
    'Here you go: {"query": "SELECT name FROM t ORDER BY name"} hope it helps',
    '```json\n{"answer": {"sql": "SELECT name FROM t ORDER BY name"}}\n```',
])
def test_a_query_inside_a_json_reply_is_the_query(reply) -> None:
    assert extract_queries(reply, "sqlite")[0] == "SELECT name FROM t ORDER BY name"


def test_a_table_of_made_up_results_after_the_query_in_its_block_is_not_part_of_it() -> None:
    reply = ("```sql\nSELECT town, SUM(amount) AS total FROM sale GROUP BY town;\n\n| town | total |\n|---|---|\n"
             "| Pune | ... |\n```\n\nThe table above shows the expected output.")
    assert extract_sql(reply, "sqlite") == "SELECT town, SUM(amount) AS total FROM sale GROUP BY town"
    assert extract_sql("SELECT a || '|' || b FROM t", "sqlite") == "SELECT a || '|' || b FROM t"


@pytest.mark.parametrize(("reply", "sql"), [
    ("You would run SELECT title FROM book ORDER BY sold DESC LIMIT 1 on your data, and it lists the best seller.",
     "SELECT title FROM book ORDER BY sold DESC LIMIT 1"),
    ("Chalaiye SELECT city, COUNT(*) FROM shop GROUP BY city jisse har city ka count mil jayega.",
     "SELECT city, COUNT(*) FROM shop GROUP BY city"),
    ("Running SELECT a FROM flight against the database returns the rows.", "SELECT a FROM flight"),  # no alias
    ("Use SELECT f.a FROM flight f which gives every flight.", "SELECT f.a FROM flight f"),  # an alias in use
    # the last clause is kept whole, a lone boolean column or GROUP BY key included
    ("Use SELECT name FROM customer where active which gives the list.", "SELECT name FROM customer where active"),
    ("Use SELECT count(*) FROM orders group by customer_id which returns one count per customer.",
     "SELECT count(*) FROM orders group by customer_id"),
])
def test_a_query_written_inside_a_sentence_ends_where_the_sentence_goes_on(reply: str, sql: str) -> None:
    assert extract_sql(reply, "sqlite") == sql


@pytest.mark.parametrize(("reply", "sql"), [
    ("Yeh chalaiye: SELECT title FROM book ORDER BY sold DESC LIMIT 1 - isse sabse zyada bikne wali kitaab milegi.",
     "SELECT title FROM book ORDER BY sold DESC LIMIT 1"),
    ("Query -> SELECT city FROM shop GROUP BY city ORDER BY city NULLS LAST <- bas isko copy karke chala dijiye.",
     "SELECT city FROM shop GROUP BY city ORDER BY city NULLS LAST"),
    ("Run SELECT a FROM t WHERE b > 2 \u2014 it keeps the larger ones.", "SELECT a FROM t WHERE b > 2"),
    # the query's own minus stays: the last dash is the one before the sentence
    ("You can run select price - discount as net from sales - this gives the net for each sale.",
     "select price - discount as net from sales"),
    ("Try SELECT a - b FROM t \u2014 this subtracts them.", "SELECT a - b FROM t"),
    ("SELECT name FROM emp ORDER BY salary DESC LIMIT 1 - isse sabse zyada salary wala mil jayega",  # at a line start
     "SELECT name FROM emp ORDER BY salary DESC LIMIT 1"),
])
def test_a_query_ends_at_a_dash_or_arrow_before_a_sentence(reply: str, sql: str) -> None:
    assert extract_sql(reply, "sqlite") == sql


def test_a_minus_before_more_of_the_query_is_never_a_cut() -> None:
    # what follows the dash has SQL in capitals: the statement goes on, and reads whole
    assert extract_sql("Run SELECT a - b AS d FROM t WHERE c = 1 to get it.", "sqlite").startswith(
        "SELECT a - b AS d FROM t WHERE c = 1")


@pytest.mark.parametrize("reply", [
    # a value left open after the minus: what follows is the query going on, not a sentence
    "```sql\nselect a from t where d >= current_date - interval '3 months group by a order by a desc limit 3\n```",
    "```sql\nselect a, count(*) from t where d >= current_date - interval '7 days group by a\n```",
])
def test_a_minus_before_a_value_left_open_or_clauses_in_lower_case_is_never_a_cut(reply: str) -> None:
    assert "interval" in extract_sql(reply, "postgres")  # read whole, for the slips to mend (or refuse)


def test_a_word_of_the_sentence_is_never_a_reason_to_drop_a_condition() -> None:
    # "and you" may be a column (the validator will say it is not); the condition is never cut to x = 1
    assert extract_sql("Try SELECT name FROM t where x = 1 and you will see them.", "sqlite").endswith("and you")


@pytest.mark.parametrize("reply", [
    "SELECT a FROM t WHERE x = 1 and b is",  # cut off: no statement is dropped to make it read
    "Run SELECT a FROM t WHERE x = 1 then see them ORDER BY a.",  # what follows has SQL in capitals: no sentence
    "SELECT count(*) from orders gives you the number of orders.",  # a query at a line's start: not in a sentence
    "Run SELECT COUNT(*) FROM orders WHERE status in ('shipped', 'open' and region",  # a bracket left open
    "Yeh query SELECT name FROM c WHERE city = 'Pune' aur vip ke liye hai.",  # "aur": the condition goes on
])
def test_sql_that_goes_on_after_a_cut_is_not_read_as_a_sentence(reply: str) -> None:
    with pytest.raises(LLMReplyError):
        extract_sql(reply, "sqlite")


@pytest.mark.parametrize("reply", [
    "Here you go:\n```sql\nSELECT sp.first_name, COUNT(s.id) FROM sales AS s JOIN salespersons",  # cut at a JOIN
    "```sql\nSELECT state, SUM(x) FROM t GROUP BY state HAVING SUM(x) > 10",  # may have gone on
])
def test_a_reply_that_stops_inside_its_open_block_is_cut_off(reply: str) -> None:
    with pytest.raises(LLMReplyError, match="cut off"):
        extract_sql(reply, "sqlite")
    # the model said it finished (Ollama's done_reason "stop"): it only forgot the closing fence
    assert extract_queries(reply, "sqlite", finished=True)[0].startswith("SELECT")


@pytest.mark.parametrize("reply", [
    "```sql\nSELECT a FROM t;",  # ended with ';'
    "```sql\nSELECT a FROM t\n```",  # the block closed
    "SELECT a FROM t",  # no block
])
def test_a_statement_the_reply_ended_is_not_cut_off(reply: str) -> None:
    assert extract_sql(reply, "sqlite") == "SELECT a FROM t"


@pytest.mark.parametrize("reply", [
    "Yeh rahi query:\n\n```sql\nSELECT town FROM shop LIMIT 5\n\nइस query में हमने `shop` table से data लिया है। कोई और मदद चाहिए तो बताइए।\n```",
    "Bilkul! Iske liye yeh query chalao:\n\nSELECT town FROM shop LIMIT 5\n\nइस query में `shop` table है।",
])
def test_prose_in_another_script_after_the_query_is_not_read_as_sql(reply: str) -> None:
    assert extract_sql(reply, "sqlite") == "SELECT town FROM shop LIMIT 5"


@pytest.mark.parametrize(("reply", "sql"), [
    ("```sql\nSELECT ProductName\nFROM Products\nWHERE UnitsInStock\n    + UnitsOnOrder < ReorderLevel;\n```",
     "SELECT ProductName\nFROM Products\nWHERE UnitsInStock\n    + UnitsOnOrder < ReorderLevel"),
    ("```sql\nSELECT Name, Salary\n  + Bonus AS TotalPay\nFROM Staff\n```", "SELECT Name, Salary\n  + Bonus AS TotalPay\nFROM Staff"),
    ("```sql\nSELECT Name FROM Staff\n- This lists every member of the staff\n```", "SELECT Name FROM Staff"),
])
def test_a_line_that_goes_on_with_an_operator_is_sql_and_a_bullet_sentence_is_not(reply: str, sql: str) -> None:
    assert extract_sql(reply, "sqlite") == sql


def test_a_prose_list_item_between_clauses_of_a_reply_with_no_code_block_is_a_note() -> None:
    reply = ("Here you go:\nSELECT name\nFROM staff\n- Keep only the active staff members\nWHERE active = 1\n"
             "ORDER BY name;\n\n- This lists the active staff alphabetically")
    sql = extract_sql(reply, "sqlite")
    assert "WHERE active = 1" in sql and "ORDER BY name" in sql and "This lists" not in sql


def test_a_reply_whose_sql_sqlglot_trips_on_is_read_without_a_crash() -> None:
    reply = 'Here you go:\n```sql\nSELECT name FROM t WHERE d = DATE("")\n```\nHope this helps.'
    for dialect in ("sqlite", "postgres"):
        assert "DATE(\"\")" in extract_sql(reply, dialect)
    series = "```sql\nSELECT * FROM GENERATE_SERIES(1, 10, 'x y z')\n```"  # an assertion deep in sqlglot's parser
    assert "GENERATE_SERIES" in extract_sql(series, "postgres")


def test_a_function_call_envelope_after_llama_s_python_tag_is_read() -> None:
    reply = ('I\'ll query the database for this.\n\n<|python_tag|>{"name": "run_query", "parameters": '
             '{"query": "SELECT name FROM author\\nWHERE aid > 3"}}<|eom_id|>')
    assert extract_sql(reply, "postgres") == "SELECT name FROM author\nWHERE aid > 3"


def _blocks(*queries: str) -> str:
    return "One query per number:\n\n" + "\n\n".join(f"{n}. part:\n\n```sql\n{q}\n```" for n, q in enumerate(queries, 1))


def test_one_query_per_measure_answers_as_one_query_showing_them_all() -> None:
    first = "SELECT year, COUNT(pid) AS papers FROM publication WHERE year > 2000 GROUP BY year ORDER BY year"
    second = "SELECT year, SUM(citation_num) AS citations FROM publication WHERE year > 2000 GROUP BY year ORDER BY year"
    queries = extract_queries(_blocks(first, second), "postgres")
    assert queries[0] == ("SELECT year, COUNT(pid) AS papers, SUM(citation_num) AS citations FROM publication WHERE "
                          "year > 2000 GROUP BY year ORDER BY year")
    assert set(queries[1:]) == {first, second}  # each as written, offered


@pytest.mark.parametrize("second", [
    "SELECT year, SUM(citation_num) AS citations FROM publication WHERE year > 2010 GROUP BY year",  # other rows
    "SELECT year, title FROM publication WHERE year > 2000 GROUP BY year, title",  # no measure: a draft's fix
    "SELECT year, SUM(citation_num) AS papers FROM publication WHERE year > 2000 GROUP BY year",  # one name twice
])
def test_queries_that_differ_in_more_than_a_measure_are_not_merged(second: str) -> None:
    first = "SELECT year, COUNT(pid) AS papers FROM publication WHERE year > 2000 GROUP BY year"
    assert extract_queries(_blocks(first, second), "postgres")[0] == second  # the last one answers, as before


def test_a_draft_and_its_correction_are_never_merged() -> None:
    reply = ("```sql\nSELECT customer_id, SUM(amount) AS total FROM orders GROUP BY customer_id;\n```\nActually you "
             "asked for the average, so:\n```sql\nSELECT customer_id, AVG(amount) AS avg_value FROM orders GROUP BY "
             "customer_id;\n```")  # attack round 18
    assert extract_queries(reply, "postgres")[0] == ("SELECT customer_id, AVG(amount) AS avg_value FROM orders GROUP "
                                                      "BY customer_id")
