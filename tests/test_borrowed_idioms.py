"""What a model borrows from other tools, read as the SQL it stands for (held-out fresh17's kinds, re-worded):
Spark's casts written as calls, spreadsheet aggregates, PostgreSQL's COUNT(t.*) on SQLite, C's && and ||, a ';'
between a WITH list and its query, window aggregates written for a GROUP BY, and a NATURAL JOIN on more than a key."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.databases import open_database
from core.schema import Column, ForeignKey, Schema, Table
from core.sql import GUESSED, extract_queries, guard, validate_sql
from tests.parse_counting import count_parses
from tests.scripted_asking import ask


@pytest.fixture()
def shop(tmp_path: Path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("""
            CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT, city TEXT, created TEXT);
            CREATE TABLE sale (sid INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer(id), city TEXT,
                               amount INTEGER, created TEXT);
            INSERT INTO customer VALUES (1, 'Ann', 'Pune', '2021'), (2, 'Bo', 'Goa', '2022'), (3, 'Cy', 'Pune', '2020');
            INSERT INTO sale VALUES (1, 1, 'Pune', 10, '2023'), (2, 1, 'Goa', 20, '2023'), (3, 2, 'Goa', 5, '2022'),
                                    (4, 3, 'Pune', 7, '2020'), (5, 2, 'Goa', 1, '2021');
        """)
    conn.close()
    db = open_database(str(path))
    yield db
    db.close()


@pytest.mark.parametrize(("written", "target", "read"), [
    ("SELECT FLOAT(amount) / sid FROM sale", "postgres", "CAST(amount AS DOUBLE PRECISION) / sid"),
    ("SELECT INT(amount) FROM sale", "sqlite", "CAST(amount AS INTEGER)"),  # SQLite truncates, as Spark does
    ("SELECT DOUBLE(amount) FROM sale", "sqlite", "CAST(amount AS REAL)"),
    ("SELECT STRING(sid) FROM sale", "sqlite", "CAST(sid AS TEXT)"),
])
def test_a_spark_cast_written_as_a_call_is_a_cast(written: str, target: str, read: str) -> None:
    assert read in guard(written, target).sql


def test_spreadsheet_aggregates_are_sql_aggregates(shop) -> None:
    answer = ask(shop, "how many cities and customers buy", "SELECT COUNTUNIQUE(city), COUNTA(customer_id) FROM sale")
    assert answer.ok and answer.rows == ((2, 5),)


def test_count_of_a_table_row_runs_on_sqlite_and_stays_on_postgres(shop) -> None:
    sql = "SELECT COUNT(s.*) FROM sale s JOIN customer c ON c.id = s.customer_id WHERE c.city = 'Pune'"
    assert ask(shop, "sales to Pune customers", sql).rows == ((3,),)
    assert "COUNT(s.*)" in guard(sql, "postgres").sql  # PostgreSQL runs it as written
    outer = "SELECT COUNT(s.*) FROM customer c LEFT JOIN sale s ON c.id = s.customer_id"
    assert "COUNT(s.*)" in guard(outer, "sqlite").sql  # not every row has its sale: left to fail, not guessed


@pytest.mark.parametrize(("block", "read"), [
    ("SELECT name FROM customer WHERE city = 'Pune' && id > 1", "WHERE city = 'Pune' AND id > 1"),
    ("SELECT name FROM customer WHERE (id = 1 && city = 'Pune') || city = 'Goa'",
     "WHERE (id = 1 AND city = 'Pune') OR city = 'Goa'"),
    ("SELECT name || ' of ' || city FROM customer WHERE id = 1 || id = 2",
     "SELECT name || ' of ' || city FROM customer WHERE id = 1 OR id = 2"),
])
def test_c_logic_between_conditions_is_and_or(block: str, read: str) -> None:
    for dialect in ("sqlite", "postgres"):
        assert read in extract_queries(f"```sql\n{block}\n```", dialect)[0]


@pytest.mark.parametrize("block", [
    "SELECT name || ' ' || city FROM customer",
    "SELECT name FROM customer WHERE tags && ARRAY['x']",
    "SELECT name FROM customer WHERE note = 'a && b' AND id = 1",
])
def test_concatenation_and_array_overlap_stay_as_written(block: str) -> None:
    assert extract_queries(f"```sql\n{block}\n```", "postgres") == [block]


def test_a_c_logic_slip_on_sqlite_answers_with_the_condition(shop) -> None:
    answer = ask(shop, "customers in Pune or Goa", "SELECT name FROM customer WHERE city = 'Pune' || city = 'Goa'")
    assert sorted(answer.rows) == [("Ann",), ("Bo",), ("Cy",)]


def test_a_semicolon_between_a_with_list_and_its_query(shop) -> None:
    reply = "```sql\nWITH big AS (SELECT * FROM sale WHERE amount > 6);\nSELECT COUNT(*) FROM big;\n```"
    assert extract_queries(reply, "sqlite") == ["WITH big AS (SELECT * FROM sale WHERE amount > 6)\nSELECT COUNT(*) FROM big"]
    assert ask(shop, "how many big sales", extract_queries(reply, "sqlite")[0]).rows == ((3,),)


def test_window_aggregates_written_for_a_group_by_show_each_group_once(shop) -> None:
    sql = "SELECT city, SUM(amount) OVER (PARTITION BY city) AS total FROM sale ORDER BY total DESC"
    answer = ask(shop, "total sales per city", sql)
    assert answer.rows == (("Goa", 26), ("Pune", 17))
    assert any("shown once, with DISTINCT" in n for n in answer.notes)
    by_two = ask(shop, "sales per customer city", "SELECT c.city, COUNT(s.sid) OVER (PARTITION BY c.city, c.id) AS n "
                 "FROM sale s JOIN customer c ON c.id = s.customer_id ORDER BY n DESC, c.city")
    assert sorted(by_two.rows) == [("Goa", 2), ("Pune", 1), ("Pune", 2)]  # one row per customer, as GROUP BY shows


@pytest.mark.parametrize("sql", [
    "SELECT city, created, SUM(amount) OVER (PARTITION BY city) FROM sale",  # created differs within a city
    "SELECT SUM(amount) OVER (PARTITION BY city) FROM sale",  # no key shown: two cities' equal totals are two rows
    "SELECT city, SUM(amount) OVER (PARTITION BY city ORDER BY created) FROM sale",  # a running total
    "SELECT city, SUM(amount) OVER (PARTITION BY city) AS t FROM sale ORDER BY created",  # sorted by a hidden column
    "SELECT sid, city, SUM(amount) OVER (PARTITION BY city) FROM sale",  # each sale beside its city's total
])
def test_window_rows_that_are_not_copies_are_left_as_written(sql: str) -> None:
    schema = Schema("sqlite", (Table("sale", (Column("sid", "integer"), Column("city", "text"),
                                              Column("amount", "integer"), Column("created", "text"))),))
    assert "DISTINCT" not in validate_sql(sql, schema, "sqlite").sql


KEYED = Schema("sqlite", (
    Table("customer", (Column("id", "integer"), Column("name", "text"), Column("created", "text")),
          primary_key=("id",)),
    Table("sale", (Column("sid", "integer"), Column("id", "integer"), Column("name", "text"),
                   Column("amount", "integer")), primary_key=("sid",),
          foreign_keys=(ForeignKey(("id",), "customer", ("id",)),)),
))


def test_a_natural_join_on_more_than_the_key_is_joined_on_the_key_as_a_guess() -> None:
    fixed = validate_sql("SELECT c.name, s.amount FROM customer c NATURAL JOIN sale s", KEYED, "sqlite")
    assert "JOIN sale AS s ON c.id = s.id" in fixed.sql
    assert any(f.endswith(GUESSED) and "(id, name)" in f for f in fixed.fixes)


@pytest.mark.parametrize("sql", [
    "SELECT * FROM customer NATURAL JOIN sale",  # the columns shown would change
    "SELECT amount FROM sale s NATURAL JOIN (SELECT id FROM customer) c",  # shares the key alone
])
def test_a_natural_join_that_shares_only_its_key_or_shows_every_column_is_left(sql: str) -> None:
    assert "NATURAL JOIN" in validate_sql(sql, KEYED, "sqlite").sql


@pytest.mark.parametrize(("sql", "names"), [
    ("SELECT name FROM customer WHERE LOWER(city) = 'Pune'", [("Ann",), ("Cy",)]),
    ("SELECT name FROM customer WHERE UPPER(city) IN ('goa', 'NOWHERE')", [("Bo",)]),
    ("SELECT name FROM customer WHERE city = '%un%'", [("Ann",), ("Cy",)]),
    ("SELECT name FROM customer WHERE city = 'G%'", [("Bo",)]),
])
def test_a_comparison_that_can_never_hold_is_read_as_the_one_that_can_and_said_to_be_a_guess(shop, sql, names) -> None:
    answer = ask(shop, "which customers", sql)
    assert sorted(answer.rows) == names
    assert any("(a guess)" in n for n in answer.notes)


@pytest.mark.parametrize("sql", [
    "SELECT name FROM customer WHERE LOWER(city) = 'pune'",
    "SELECT name FROM customer WHERE city = '100%'",  # a percentage is a value
    "SELECT name FROM customer WHERE city = 'a_b'",  # LIKE's _ is a common character of values
])
def test_comparisons_that_can_hold_are_left_as_written(sql: str) -> None:
    assert guard(sql, "sqlite").sql == sql


def test_a_number_compared_with_the_empty_string_is_tested_for_null() -> None:
    schema = Schema("postgres", (Table("sale", (Column("sid", "integer"), Column("amount", "numeric"),
                                                Column("note", "text"), Column("paid_on", "date"))),))
    fixed = validate_sql("SELECT sid FROM sale WHERE amount = '' OR paid_on <> '' OR note = ''", schema, "postgres")
    assert "amount IS NULL" in fixed.sql and "NOT paid_on IS NULL" in fixed.sql and "note = ''" in fixed.sql
    assert sum(f.endswith(GUESSED) for f in fixed.fixes) == 2


def test_a_case_insensitive_pattern_written_with_equals_is_like() -> None:
    fixed = guard("SELECT name FROM customer WHERE LOWER(city) = LOWER('%un%')", "sqlite")
    assert "LOWER(city) LIKE LOWER('%un%')" in fixed.sql and fixed.mended.endswith(GUESSED)


def test_a_natural_join_on_a_shared_id_that_is_no_key_between_them_is_joined_on_the_key() -> None:
    schema = Schema("sqlite", (
        Table("salespersons", (Column("id", "integer"), Column("first_name", "text")), primary_key=("id",)),
        Table("sales", (Column("id", "integer"), Column("salesperson_id", "integer"), Column("price", "real")),
              primary_key=("id",), foreign_keys=(ForeignKey(("salesperson_id",), "salespersons", ("id",)),)),
    ))
    fixed = validate_sql("SELECT s.first_name, sa.price FROM salespersons s NATURAL JOIN sales sa", schema, "sqlite")
    assert "JOIN sales AS sa ON s.id = sa.salesperson_id" in fixed.sql and fixed.fixes[-1].endswith(GUESSED)



# --- attack round 8 (/work/attack_findings8.md), each re-worded --------------------------------------------------

@pytest.mark.parametrize("sql", ["SELECT INT(amount / 7.0) FROM sale",  # PostgreSQL's CAST rounds, Spark's INT truncates
                                 "SELECT BOOLEAN(note) FROM sale", "SELECT TINYINT(amount) FROM sale"])
def test_spark_casts_whose_meaning_differs_here_are_not_read(sql: str) -> None:
    target = "postgres" if sql.startswith("SELECT INT") else "sqlite"
    assert "CAST" not in guard(sql, target).sql


def test_c_logic_keeps_the_line_break_after_a_comment(shop) -> None:
    for mark, rows in (("&&", [("Ann",)]), ("||", [("Ann",), ("Bo",), ("Cy",)])):
        sql = f"SELECT name FROM customer\nWHERE city = 'Pune'   -- dept no. 3\n  {mark} id {'< 2' if mark == '&&' else '> 0'}"
        assert sorted(ask(shop, "which customers", extract_queries(f"```sql\n{sql}\n```", "sqlite")[0]).rows) == rows


@pytest.mark.parametrize("block", [
    "SELECT name FROM customer WHERE name LIKE '%' || 'n' || '%' || name LIKE 'C%'",  # two readings: no guess
    "SELECT name FROM customer WHERE note = $$a || b$$ AND id = 1",
    "SELECT name FROM customer /* a || b */ WHERE id = 1",
])
def test_c_logic_does_not_guess_between_readings_or_inside_text(block: str) -> None:
    assert extract_queries(f"```sql\n{block}\n```", "postgres") == [block]


@pytest.mark.parametrize("note", ["rather than", "removed", "was", "uncomment to filter", "for testing", "then",
                                  "ORDER BY total DESC", "TODO", "previously", "no need for"])
def test_a_note_about_a_clause_that_is_not_the_query_stays_a_note(note: str) -> None:
    block = f"SELECT name FROM customer -- {note} WHERE city = 'Goa'"
    assert extract_queries(f"```sql\n{block}\n```", "sqlite") == [block]


def test_a_note_that_previews_the_next_lines_clause_stays_a_note() -> None:
    block = ("SELECT c.name, s.amount\nFROM sale s -- bring names JOIN customer c ON c.id = s.customer_id\n"
             "JOIN customer c ON c.id = s.customer_id")
    assert extract_queries(f"```sql\n{block}\n```", "sqlite") == [block]


def test_the_reading_as_written_of_a_swallowed_note_is_offered_even_as_a_look(shop) -> None:
    answer = ask(shop, "how many big sales", "```sql\nSELECT COUNT(*) FROM sale -- keep the big ones WHERE amount > 6\n```")
    assert answer.rows == ((3,),)
    assert any("ran on into a clause" in n for n in answer.notes)
    assert any("WHERE" not in a.sql.split("--")[0] for a in answer.alternatives)


def test_empty_string_tests_stay_on_sqlite() -> None:
    schema = Schema("sqlite", (Table("imported", (Column("id", "integer"), Column("shipped", "date"))),))
    sql = "SELECT COUNT(*) FROM imported WHERE shipped IS NULL OR shipped = ''"
    assert "shipped = ''" in validate_sql(sql, schema, "sqlite").sql


def test_window_copies_inside_a_counted_subquery_are_left(shop) -> None:
    sql = "SELECT COUNT(*) FROM (SELECT city, COUNT(*) OVER (PARTITION BY city) AS n FROM sale) t WHERE n > 2"
    assert ask(shop, "how many sales were made in cities with more than 2 sales", sql).rows == ((3,),)


def test_a_natural_join_on_a_composite_key_or_with_a_bare_shared_name_is_left() -> None:
    docs = Schema("sqlite", (
        Table("doc", (Column("doc_id", "integer"), Column("version", "integer"), Column("title", "text")),
              primary_key=("doc_id", "version")),
        Table("doc_review", (Column("doc_id", "integer"), Column("version", "integer"), Column("reviewer", "text")),
              foreign_keys=(ForeignKey(("doc_id", "version"), "doc", ("doc_id", "version")),)),
    ))
    assert "NATURAL JOIN" in validate_sql("SELECT title, reviewer FROM doc NATURAL JOIN doc_review", docs, "sqlite").sql
    assert "NATURAL JOIN" in validate_sql("SELECT name, amount FROM customer NATURAL JOIN sale", KEYED, "sqlite").sql


@pytest.mark.parametrize("sql", ["SELECT name FROM customer WHERE UPPER(city) = 'HAUPTSTRAßE 1'",
                                 "SELECT name FROM customer WHERE city = '% of GDP'"])
def test_values_that_can_hold_are_not_guessed_otherwise(sql: str) -> None:
    assert guard(sql, "sqlite").sql == sql


@pytest.mark.parametrize("reply", [
    "```sql\nSELECT name FROM customer ORDER BY\n  delimiter DESC\n```",  # a column named delimiter
])
def test_a_column_named_delimiter_is_no_directive(reply: str) -> None:
    assert "delimiter DESC" in extract_queries(reply, "sqlite")[0]


def test_crlf_line_ends_around_directives_and_tags() -> None:
    query = "SELECT name FROM customer WHERE city = 'Pune'"
    assert extract_queries(f"DELIMITER $$\r\n{query}$$\r\nDELIMITER ;\r\n", "sqlite")[0] == query
    assert extract_queries(f"Run:\r\n{query};\r\n[/code]\r\n", "sqlite")[0] == query


def test_inline_html_code_in_prose_is_no_answer() -> None:
    reply = ("SELECT name FROM customer WHERE city = 'Pune';\n\nNote that <code>SELECT name FROM customer</code> "
             "alone would list every customer.")
    assert extract_queries(reply, "sqlite")[0] == "SELECT name FROM customer WHERE city = 'Pune'"


def test_a_comment_between_a_with_list_and_its_query() -> None:
    reply = "```sql\nWITH big AS (SELECT * FROM sale WHERE amount > 6);\n-- now count\nSELECT COUNT(*) FROM big;\n```"
    assert extract_queries(reply, "sqlite")[0].startswith("WITH big AS")


def test_a_taken_guess_does_not_say_the_first_sql_failed(shop) -> None:
    answer = ask(shop, "customers in pune", "SELECT name FROM customer WHERE LOWER(city) = 'Pune'")
    assert not any("first SQL failed" in n for n in answer.notes)
    assert any("shown Cairn's guess" in n for n in answer.notes)


def test_a_block_of_many_statements_is_not_parsed_as_one_again_and_again(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed = count_parses(monkeypatch)
    block = "\n".join(f"SELECT name FROM customer WHERE id = {i};" for i in range(60))  # attack 8: 100 of them, 194 s
    try:
        extract_queries(f"DELIMITER $$\n{block.replace(';', '$$')}\nDELIMITER ;", "sqlite")
    except Exception:
        pass
    assert sum(parsed) <= 40 * len(block), f"{sum(parsed):,} characters parsed for a {len(block):,}-character block"


@pytest.mark.parametrize(("sql", "rows"), [
    ("SELECT sid FROM sale WHERE amount BETWEEN 20 AND 7", [(1,), (2,), (4,)]),
    ("SELECT sid FROM sale WHERE created BETWEEN '2023-12-31' AND '2022-01-01'", [(1,), (2,)]),
])
def test_between_bounds_the_wrong_way_round_are_swapped_as_a_guess(shop, sql, rows) -> None:
    answer = ask(shop, "which sales", sql)
    assert sorted(answer.rows) == rows and any("(a guess)" in n for n in answer.notes)
