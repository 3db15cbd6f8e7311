"""fresh28's slips, read as what they stand for: a host language's range test, timedelta and LIKE called as a
function (``repair.idioms._python``); what PostgreSQL's types reject — ``COUNT()``, a sum of a condition, a yes/no
column against 1, a date matched as text (``repair.idioms._typed``); a window written without its brackets and
PARTITION BY for GROUP BY (``written._misplaced``); and three reply layouts: a Llama tool call after its
``<|python_tag|>``, a data stream of typed parts (Vercel AI SDK), a query written clause by clause, a block each."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.databases import open_database
from core.errors import LLMReplyError
from core.schema import Column, Schema, Table
from core.sql import extract_queries, guard, validate_sql
from tests.scripted_asking import ask


@pytest.fixture()
def shop(tmp_path: Path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE cars(id INTEGER PRIMARY KEY, make TEXT, model TEXT);"
            "CREATE TABLE sales(id INTEGER PRIMARY KEY, car_id INTEGER, sale_date DATE, price REAL);"
            "INSERT INTO cars VALUES (1,'Toyota','Camry'),(2,'Ford','F150'),(3,'Toyota','Corolla');"
            "INSERT INTO sales VALUES (1,1,date('now','-3 days'),100),(2,2,date('now','-60 days'),50),"
            "(3,3,'2023-02-10',70),(4,1,'2023-05-01',90),(5,2,'2023-03-31',40);")
    db = open_database(str(path))
    yield db
    db.close()


@pytest.mark.parametrize(("written", "meant"), [
    ("SELECT COUNT(*) FROM sales WHERE '2023-01-01' <= sale_date <= '2023-03-31'",
     "SELECT COUNT(*) FROM sales WHERE sale_date BETWEEN '2023-01-01' AND '2023-03-31'"),
    ("SELECT COUNT(*) FROM sales WHERE 100 > price > 40",  # downward, strict on both sides
     "SELECT COUNT(*) FROM sales WHERE price < 100 AND price > 40"),
    ("SELECT COUNT(*) FROM sales WHERE sale_date >= date('now') - timedelta(days=30)",
     "SELECT COUNT(*) FROM sales WHERE sale_date >= date('now', '-30 days')"),
    ("SELECT COUNT(*) FROM sales WHERE sale_date >= date('now') - relativedelta(months=6)",
     "SELECT COUNT(*) FROM sales WHERE sale_date >= date('now', '-6 months')"),
    ("SELECT model FROM cars WHERE ILIKE(model, 'c%')", "SELECT model FROM cars WHERE model LIKE 'c%'"),
])
def test_a_host_language_s_idioms_are_read_as_the_sql_they_stand_for(shop, written, meant) -> None:
    answer = ask(shop, "q", written)
    assert answer.ok and sorted(answer.rows) == sorted(shop.execute(meant).rows)


def test_comparisons_bracketed_as_written_are_left() -> None:
    out = guard("SELECT COUNT(*) FROM t WHERE (a < b) < c AND x > 1", "sqlite").sql
    assert "(a < b) < c" in out  # brackets say the comparison of a comparison is meant


def test_postgres_runs_what_its_types_rejected(db) -> None:
    cases = [("SELECT COUNT() FROM orders", "SELECT COUNT(*) FROM orders"),
             ("SELECT status, SUM(total_amount > 100) AS big, AVG(total_amount > 100) AS share FROM orders "
              "GROUP BY status",
              "SELECT status, SUM(CASE WHEN total_amount > 100 THEN 1 ELSE 0 END), AVG(CASE WHEN total_amount > 100 "
              "THEN 1.0 ELSE 0 END) FROM orders GROUP BY status"),
             ("SELECT COUNT(*) FROM orders WHERE order_date LIKE '20%'", "SELECT COUNT(*) FROM orders")]
    for written, meant in cases:
        answer = ask(db, "q", written)
        assert answer.ok, answer.error
        assert [[str(v) if isinstance(v, str) else round(float(v), 6) for v in r] for r in sorted(answer.rows)] == \
            [[str(v) if isinstance(v, str) else round(float(v), 6) for v in r] for r in sorted(db.execute(meant).rows)]


def test_a_yes_no_column_against_one_or_zero_on_postgres_and_nothing_on_sqlite() -> None:
    schema = Schema("postgres", (Table("cars", (Column("id", "integer"), Column("active", "boolean"),
                                                Column("doors", "integer"))),))
    checked = validate_sql("SELECT COUNT(*) FROM cars WHERE active = 1 AND doors = 1", schema, "postgres")
    assert "active = TRUE AND doors = 1" in checked.sql
    sqlite = Schema("sqlite", (Table("cars", (Column("id", "INTEGER"), Column("active", "BOOLEAN"))),))
    assert not validate_sql("SELECT COUNT(*) FROM cars WHERE active = 1", sqlite, "sqlite").fixes


@pytest.mark.parametrize(("written", "meant"), [
    ("SELECT c.make, COUNT(*) AS n FROM sales s JOIN cars c ON c.id = s.car_id PARTITION BY c.make",
     "SELECT c.make, COUNT(*) AS n FROM sales s JOIN cars c ON c.id = s.car_id GROUP BY c.make"),
    ("SELECT id, RANK() OVER PARTITION BY car_id ORDER BY price DESC AS r FROM sales",
     "SELECT id, RANK() OVER (PARTITION BY car_id ORDER BY price DESC) AS r FROM sales"),
])
def test_a_window_without_brackets_and_partition_by_for_group_by(shop, written, meant) -> None:
    answer = ask(shop, "q", written)
    assert answer.ok and sorted(answer.rows) == sorted(shop.execute(meant).rows)
    assert len(answer.columns) == len(shop.execute(meant).columns)


QUERY = "SELECT c.make, COUNT(*) AS n FROM sales s JOIN cars c ON c.id = s.car_id WHERE s.price > 45 GROUP BY c.make"


def test_a_llama_tool_call_after_its_python_tag_gives_its_query() -> None:
    for reply in (f'<|python_tag|>sql_db_query.call(query="{QUERY}")<|eom_id|>',
                  f'run_query(sql="{QUERY}")\n<|eot_id|>'):
        assert extract_queries(reply, "sqlite") == [QUERY]
    assert extract_queries("make, model FROM cars", "sqlite") == ["SELECT make, model FROM cars"]  # still read


def test_a_data_stream_of_typed_parts_is_read_back_to_its_text() -> None:
    pieces = ["Here:\n\n```sq", "l\n", QUERY[:20], QUERY[20:50], QUERY[50:], "\n```"]
    reply = "\n".join(['f:{"messageId":"msg-1"}', *(f"0:{__import__('json').dumps(p)}" for p in pieces),
                       'e:{"finishReason":"stop"}', 'd:{"finishReason":"stop"}'])
    assert extract_queries(reply, "sqlite") == [QUERY]
    with pytest.raises(LLMReplyError):  # numbered lines with no query are no stream of one
        extract_queries('0:"a"\n1:"b"\n2:"c"', "sqlite")


def test_a_query_written_clause_by_clause_is_put_together(shop) -> None:
    clauses = ["SELECT c.make, COUNT(*) AS n", "FROM sales s JOIN cars c ON c.id = s.car_id", "WHERE s.price > 45",
               "GROUP BY c.make"]
    labels = ["**1.** Pehle columns select karo:", "**2.** Phir table batao:", "**3.** Ab filter lagao:",
              "**4.** Then group it:"]
    reply = "Step by step:\n\n" + "\n\n".join(f"{label}\n```sql\n{c}\n```" for label, c in zip(labels, clauses,
                                                                                             strict=True))
    answer = ask(shop, "Sales over 45 per make", reply)
    assert answer.ok and sorted(answer.rows) == sorted(shop.execute(QUERY).rows)
    options = ("1. Every sale:\n```sql\nSELECT id, price FROM sales\n```\n2. Only the first 2:\n```sql\nLIMIT 2\n```")
    first = ask(shop, "Every sale", options)  # two numbered blocks after a whole query: an option, not a part
    assert first.ok and len(first.rows) == 5


@pytest.mark.parametrize("reply", [
    'Chat history (exported):\n[["need SQL", "Sure:\\n\\n```sql\\n' + QUERY.replace("45", "45 AND c.make <> 'x'")
    + '\\n```\\n\\nIsme `cars` hai."]]',
    "AIMessage(content='```\\n" + QUERY + "\\n```\\n\\nKoi issue ho toh batana.', additional_kwargs={}, "
    "response_metadata={'model': 'codegemma:7b', 'done': True})",
    "[{'generated_text': \"### Answer\\n```sql\\n" + QUERY.replace("45", "45 AND c.make <> 'x'") + "\\n```\"}]",
])
def test_a_reply_printed_as_a_string_is_read_back_to_its_text(reply) -> None:
    (query,) = extract_queries(reply, "sqlite")
    assert query.startswith("SELECT c.make, COUNT(*) AS n FROM sales s") and query.count("'") in (0, 2)


def test_a_fence_inside_a_program_s_string_does_not_close_its_block() -> None:
    reply = ("```python\nfrom IPython.display import Markdown, display\n\nq = \"\"\"\n" + QUERY + "\n\"\"\"\n"
             "display(Markdown(f\"```sql\\n{q}\\n```\"))\n```\n")
    assert extract_queries(reply, "sqlite") == [QUERY]
    built = "```python\nq = f\"SELECT * FROM cars WHERE id = {car}\"\ncur.execute(q)\n```"  # an f-string that
    with pytest.raises(LLMReplyError):  # builds the query gives no one piece as the query
        extract_queries(built, "sqlite")


@pytest.mark.parametrize(("question", "sql", "label"), [
    ("Total sales amount per make", "SELECT c.make, SUM(s.price) / 1000.0 AS total FROM sales s JOIN cars c ON "
     "c.id = s.car_id GROUP BY c.make", "The measure as stored"),
    ("Highest sale price", "SELECT MAX(price) * 83 AS top FROM sales", "The measure as stored"),
    ("Total sales amount", "SELECT SUM(total_amount) / 1000 AS total FROM orders", "The measure as stored"),  # a
    # whole number read as written, 1000 (not 1: the diff review)
    ("What is the average sale price per make?", "SELECT c.make, PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY "
     "s.price) AS avg_price FROM sales s JOIN cars c ON c.id = s.car_id GROUP BY c.make", "Use AVG"),
])
def test_a_measure_in_a_unit_not_asked_for_and_a_median_for_an_average_are_offered(db, question, sql, label) -> None:
    """fresh28 (family B): the query that ran stays the answer; the other is offered and the model asked once."""
    sql = sql.replace("sales s JOIN cars c ON c.id = s.car_id", "orders s JOIN customers c ON c.customer_id = "
                      "s.customer_id").replace("c.make", "c.city").replace("s.price", "s.total_amount").replace(
        "MAX(price)", "MAX(total_amount)").replace("FROM sales", "FROM orders")
    answer = ask(db, question, sql)
    assert answer.ok and any(a.label == label for a in answer.alternatives)


@pytest.mark.parametrize(("question", "sql"), [
    ("Total sales in thousands per city", "SELECT c.city, SUM(s.total_amount) / 1000.0 AS total FROM orders s JOIN "
     "customers c ON c.customer_id = s.customer_id GROUP BY c.city"),
    ("Average order value in INR (1 USD = 83 INR)", "SELECT AVG(total_amount) * 83 AS avg_inr FROM orders"),
    ("What is twice the total order amount?", "SELECT SUM(total_amount) * 2 FROM orders"),  # attack round 23
    ("Average order value out of 10", "SELECT AVG(total_amount) / 50 AS score FROM orders"),
    ("Total order amount in GBP", "SELECT SUM(total_amount) * 0.79 FROM orders"),
    ("What is the median order value, not the average?",  # the word "median" said beside "average"
     "SELECT PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY total_amount) FROM orders"),
    ("Average order value in minutes of work", "SELECT AVG(total_amount) / 60 FROM orders"),
])
def test_a_unit_or_a_median_the_question_asks_for_is_left(db, question, sql) -> None:
    answer = ask(db, question, sql)
    assert answer.ok and not any(a.label in ("The measure as stored", "Use AVG") for a in answer.alternatives)


def test_a_window_without_brackets_whose_end_is_unclear_is_not_guessed() -> None:
    """Attack round 23: ``OVER PARTITION BY a ORDER BY b DESC, id FROM`` — ``id`` the next column, or a tie-break of
    the window? Neither is taken: the block does not read, and the model is asked."""
    from core.sql.written._misplaced import _windows_bracketed

    block = "SELECT id, RANK() OVER PARTITION BY car_id ORDER BY price DESC, id FROM sales"
    assert _windows_bracketed(block) == block


def test_a_query_written_clause_by_clause_after_its_with_is_put_together(shop) -> None:
    blocks = ["WITH big AS (SELECT car_id, price FROM sales WHERE price > 45)", "SELECT c.make, COUNT(*) AS n",
              "FROM big b JOIN cars c ON c.id = b.car_id", "GROUP BY c.make"]
    reply = "\n\n".join(f"**{i}.** Step {i}:\n```sql\n{b}\n```" for i, b in enumerate(blocks, 1))
    answer = ask(shop, "Sales over 45 per make", reply)
    assert answer.ok and sorted(answer.rows) == sorted(shop.execute(QUERY).rows)


def test_a_quote_escaped_with_a_backslash_is_written_twice(tmp_path) -> None:
    """Attack round 23: ``'O\\'Brien'`` (MySQL's and C's way) could not even be split into words on SQLite."""
    path = tmp_path / "people.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE people(id INTEGER, name TEXT); INSERT INTO people VALUES (1, 'O''Brien'), "
                           "(2, 'Obi'), (3, 'C:\\');")
    db = open_database(str(path))
    try:
        answer = ask(db, "Who is O'Brien?", "SELECT id FROM people WHERE name = 'O\\'Brien'")
        assert answer.ok and list(answer.rows) == [(1,)]
        kept = ask(db, "Which path is C:\\?", "SELECT id FROM people WHERE name = 'C:\\'")  # reads as written
        assert kept.ok and list(kept.rows) == [(3,)]
    finally:
        db.close()


def test_review_mends_longer_chains_glued_keys_and_json_emoji() -> None:
    """Diff review: a chain of three comparisons is left whole (and what was read is said); ``postcode`` names no
    table ``post``; a JSON-escaped emoji in a reply printed as a string is one character."""
    assert "1 < a < 5 < 9" in guard("SELECT COUNT(*) FROM t WHERE 1 < a < 5 < 9", "sqlite").sql.replace("(", "").replace(
        ")", "")
    said = guard("SELECT COUNT(*) FROM t WHERE 1 < a < 5", "sqlite")
    assert "1 < a AND a < 5" in said.sql and "chained comparison" in said.mended
    from core.schema import Table as T
    from core.sql.repair.joins._keys import _names_table
    assert not _names_table("postcode", T("post", ())) and _names_table("postid", T("post", ()))
    reply = '[["q", "Sure:\\n```sql\\nSELECT id FROM t WHERE tag = \'\\ud83d\\ude00\'\\n```"]]'
    assert extract_queries(reply, "sqlite") == ["SELECT id FROM t WHERE tag = '\U0001f600'"]
