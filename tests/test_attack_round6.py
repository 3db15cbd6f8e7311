"""Attack round 6 (issue 27): this session's new readings, attacked by hand; each of these once gave a confident
wrong answer and must not again. Real SQLite through Cairn's pipeline, the model scripted to repeat itself."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.databases import open_database
from core.errors import LLMReplyError
from core.sql import extract_sql
from tests.scripted_asking import ask


@pytest.fixture()
def shop(tmp_path: Path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT, country TEXT, tier TEXT);"
            "CREATE TABLE orders(order_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), "
            "total REAL, status TEXT);"
            "CREATE TABLE employees(id INTEGER PRIMARY KEY, name TEXT, manager_id INTEGER REFERENCES employees(id));"
            "CREATE TABLE posts(id INTEGER, title TEXT, body TEXT);"
            "INSERT INTO customers VALUES (1,'Ann','US','vip'),(2,'Bob','UK','basic'),(3,'Cy','US','basic');"
            "INSERT INTO orders VALUES (1,1,10,'cancelled'),(2,1,20,'shipped'),(3,2,5,'shipped');"
            "INSERT INTO employees VALUES (1,'Boss',NULL),(2,'Ann',1),(3,'Bob',2);"
            "INSERT INTO posts VALUES (1,'a','hello<br>world'),(2,'b','<p>para</p>'),(3,'c','plain');")
    db = open_database(str(path))
    yield db
    db.close()


@pytest.mark.parametrize("table", ["us_orders", "orders_2023", "large_orders"])
def test_a_made_up_table_name_that_implies_a_filter_is_never_read_as_the_base_table(shop, table) -> None:
    answer = ask(shop, "Total of US customers' orders", f"SELECT SUM(o.total), COUNT(o.order_id) FROM {table} o")
    assert not (answer.ok and answer.rows == ((35.0, 3),) and not answer.alternatives)


def test_a_self_join_on_the_key_is_never_read_as_each_row_with_itself(shop) -> None:
    answer = ask(shop, "Each employee with their manager's name",
                 "SELECT e.name, m.name AS manager FROM employees e JOIN employees m ON m.id = m.id")
    assert not (answer.ok and sorted(answer.rows) == [("Ann", "Ann"), ("Bob", "Bob"), ("Boss", "Boss")])


def test_a_title_case_alias_without_as_is_not_quoted_into_a_value(shop) -> None:
    answer = ask(shop, "names and countries", "```sql\nSELECT name, country Land\nFROM customers\nWHRE tier = 'vip'\n```")
    assert answer.ok and answer.rows == (("Ann", "US"),)


def test_a_condition_suggested_in_prose_after_the_query_is_not_added(shop) -> None:
    reply = ("SELECT name FROM customers WHERE country = 'US'\nThis lists the US customers.\n"
             "If you only want VIP ones, add:\nAND tier = 'vip'")
    answer = ask(shop, "names of US customers", reply)
    assert answer.ok and sorted(answer.rows) == [("Ann",), ("Cy",)]
    later = ask(shop, "names", "SELECT name FROM customers\n\nIf the table is big, consider adding\nLIMIT 1\nat the end.")
    assert later.ok and len(later.rows) == 3


def test_html_tags_inside_a_value_stay_and_a_code_line_in_prose_never_beats_the_fence(shop) -> None:
    reply = ("This counts posts whose <code>body</code> holds a line break tag.\n\n```sql\n"
             "SELECT COUNT(*) FROM posts WHERE body LIKE '%<br>%'\n```")
    assert ask(shop, "How many posts contain <br>?", reply).rows == ((1,),)
    reply = ("```sql\nSELECT title FROM posts WHERE body LIKE '%para%'\n```\nFor all posts you could instead run:\n"
             "<code>SELECT title FROM posts</code>")
    assert ask(shop, "titles of posts mentioning para", reply).rows == (("b",),)


def test_a_lower_case_condition_line_in_a_capitals_block_is_never_a_note() -> None:
    reply = "```sql\nSELECT region, amount\nFROM sales\nWHERE amount => 5\nand not deleted\nORDER BY amount DESC\n```"
    try:
        sql = extract_sql(reply, "sqlite")
    except LLMReplyError:
        return
    assert "-- and not deleted" not in sql


def test_many_note_lines_keep_the_clause_after_them() -> None:
    """3,000 note lines before the WHERE (its speed is bench material: it had been quadratic, sql_end per cut)."""
    reply = "```sql\nSELECT a\nचरण 1: टेबल चुनो\nFROM t\n" + "चरण: शर्त लगाओ\n" * 3000 + "WHERE a = 1\n```"
    assert extract_sql(reply, "sqlite").endswith("WHERE a = 1")
