"""Answers shaped otherwise than the question asks, read as asked (guesses the model sees first): a rank in place of
the measure (grouping._ranks.unasked_ranks), the n-th row for the top n (nth_as_top), a filter turned into a yes/no
column (filters._flags), the largest key for a count (grouping._collapsed.counts_by_max_key), T-SQL's LIKE classes
(filters._vacuous); and each left where the question asks for that shape."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlglot

from core.databases import open_database
from core.sql._guard import guard
from core.sql._validate import validate
from tests.scripted_asking import ask


@pytest.fixture()
def shop(tmp_path: Path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE seller(id INTEGER PRIMARY KEY, name TEXT, city TEXT);"
            "CREATE TABLE sale(id INTEGER PRIMARY KEY, seller_id INTEGER, amount REAL);"
            "INSERT INTO seller VALUES (1,'Ann','SF'),(2,'Bob','LA'),(3,'Cy','SF'),(4,'Di','Italian Town');"
            "INSERT INTO sale VALUES (1,1,10),(2,2,50),(3,2,5),(4,3,30),(7,1,1),(9,4,2);")
    db = open_database(str(path))
    yield db
    db.close()


TOTALS = "SELECT s.name, {item} FROM seller AS s JOIN sale AS x ON x.seller_id = s.id GROUP BY s.name {order}"


def test_a_rank_shown_for_its_measure_is_the_measure(shop) -> None:
    sql = TOTALS.format(item="RANK() OVER (ORDER BY SUM(x.amount) DESC) AS total_rank", order="ORDER BY total_rank LIMIT 2")
    answer = ask(shop, "Who are the top 2 sellers by total sales?", sql)
    assert [tuple(r) for r in answer.rows] == [("Bob", 55.0), ("Cy", 30.0)]
    assert answer.columns[1] == "total"
    assert any("(a guess)" in n and "a position the question does not ask for" in n for n in answer.notes)


@pytest.mark.parametrize(("question", "alias"), [
    ("Rank the sellers by their total sales", "r"),
    ("Return each seller's name and SR", "sr"),  # a name of its own: a measure the question defines
])
def test_a_rank_asked_for_stays(shop, question: str, alias: str) -> None:
    sql = TOTALS.format(item=f"RANK() OVER (ORDER BY SUM(x.amount) DESC) AS {alias}", order=f"ORDER BY {alias}")
    checked = validate(sqlglot.parse_one(sql, read="sqlite"), shop.schema(), "sqlite", question=question)
    assert not any("position" in f for f in checked.fixes)


def test_the_nth_row_for_the_top_n_is_the_top_n(shop) -> None:
    sql = TOTALS.format(item="SUM(x.amount) AS total", order="ORDER BY total DESC LIMIT 1 OFFSET 2")
    answer = ask(shop, "Which 3 sellers have the highest sales?", sql)
    assert [tuple(r) for r in answer.rows] == [("Bob", 55.0), ("Cy", 30.0), ("Ann", 11.0)]
    for question in ("Who is the 3rd best seller?", "Which seller is third by sales?", "Top 2 sellers by sales"):
        checked = validate(sqlglot.parse_one(sql, read="sqlite"), shop.schema(), "sqlite", question=question)
        assert not any("top" in f for f in checked.fixes), question


def test_a_filter_turned_into_a_flag_is_the_filter(shop) -> None:
    answer = ask(shop, "Which sellers are based in SF?",
                 "SELECT name, CASE WHEN city = 'SF' THEN 'Yes' ELSE 'No' END AS in_sf FROM seller ORDER BY name")
    assert [tuple(r) for r in answer.rows] == [("Ann",), ("Cy",)]
    assert any("(a guess)" in n and "yes/no" in n for n in answer.notes)


@pytest.mark.parametrize("question", ["List the sellers and whether they are based in SF",
                                      "Flag the sellers based in SF", "Show all sellers and if they are in SF"])
def test_a_flag_asked_for_stays(shop, question: str) -> None:
    sql = "SELECT name, CASE WHEN city = 'SF' THEN 1 ELSE 0 END AS in_sf FROM seller"
    checked = validate(sqlglot.parse_one(sql, read="sqlite"), shop.schema(), "sqlite", question=question)
    assert not any("yes/no" in f for f in checked.fixes)


def test_the_largest_key_for_a_count_is_the_count(shop) -> None:
    answer = ask(shop, "How many sales did Ann make?",
                 "SELECT MAX(x.id) FROM sale AS x JOIN seller AS s ON s.id = x.seller_id WHERE s.name = 'Ann'")
    assert [tuple(r) for r in answer.rows] == [(2,)]
    for question in ("What is the highest sale id of Ann?", "What is the latest sale number for Ann?"):
        checked = validate(sqlglot.parse_one("SELECT MAX(x.id) FROM sale AS x", read="sqlite"), shop.schema(),
                           "sqlite", question=question)
        assert checked.fixes == ()


def test_tsql_letter_classes_in_like_match_either_case(shop) -> None:
    answer = ask(shop, "Sellers in an Italian town", "SELECT name FROM seller WHERE city LIKE '%[Ii]talian%'")
    assert [tuple(r) for r in answer.rows] == [("Di",)]
    assert "LIKE '[0-9]%'" in guard("SELECT code FROM t WHERE code LIKE '[0-9]%'", "postgres").sql  # left


def test_one_total_split_by_an_unnamed_column_is_the_total(shop) -> None:
    answer = ask(shop, "What is the average sale amount of sellers in SF?",
                 "SELECT s.name, AVG(x.amount) AS avg_amount FROM sale AS x JOIN seller AS s ON s.id = x.seller_id "
                 "WHERE s.city = 'SF' GROUP BY s.name")
    assert [tuple(r) for r in answer.rows] == [(pytest.approx(41 / 3),)]
    assert any("(a guess)" in n and "the total alone" in n for n in answer.notes)


@pytest.mark.parametrize("question", ["What is the average sale amount per seller?",
                                      "Average sale amount of each seller name", "Which seller has the highest average?",
                                      "Average sale amount by seller", "What is the average sale amount of the names?"])
def test_a_split_asked_for_stays(shop, question: str) -> None:
    sql = "SELECT s.name, AVG(x.amount) FROM sale AS x JOIN seller AS s ON s.id = x.seller_id GROUP BY s.name"
    checked = validate(sqlglot.parse_one(sql, read="sqlite"), shop.schema(), "sqlite", question=question)
    assert not any("the total alone" in f for f in checked.fixes), question


def test_a_threshold_for_the_top_n_is_the_top_n(shop) -> None:
    sql = ("SELECT s.name, COUNT(*) AS n FROM sale AS x JOIN seller AS s ON s.id = x.seller_id GROUP BY s.name "
           "HAVING COUNT(*) >= 2 ORDER BY n DESC, s.name")
    answer = ask(shop, "Who are the top 2 sellers by number of sales?", sql)
    assert [tuple(r) for r in answer.rows] == [("Ann", 2), ("Bob", 2)]
    assert any("(a guess)" in n and "LIMIT 2" in n for n in answer.notes)
    checked = validate(sqlglot.parse_one(sql, read="sqlite"), shop.schema(), "sqlite",
                       question="Which sellers made at least 2 sales?")
    assert not any("LIMIT" in f for f in checked.fixes)


def test_a_flag_whose_test_reads_a_subquery_is_read_as_the_filter(shop) -> None:
    answer = ask(shop, "Which sellers sold something over 20?",
                 "SELECT name, CASE WHEN id IN (SELECT seller_id FROM sale WHERE amount > 20) THEN 'Yes' ELSE 'No' END "
                 "AS big FROM seller ORDER BY name")
    assert [tuple(r) for r in answer.rows] == [("Bob",), ("Cy",)]



@pytest.mark.parametrize(("question", "sql"), [
    # a rank asked for in other words, or a numbering by a label, or a fraction
    ("Number the sellers alphabetically", "SELECT name, ROW_NUMBER() OVER (ORDER BY name) AS rn FROM seller"),
    ("Who finished 1st, 2nd and 3rd by sales?",
     TOTALS.format(item="RANK() OVER (ORDER BY SUM(x.amount) DESC) AS r", order="")),
    ("What fraction of sellers sold less than each seller?",
     TOTALS.format(item="PERCENT_RANK() OVER (ORDER BY SUM(x.amount)) AS pct_rank", order="")),
    # an n-th row or a threshold the question asks for
    ("What is the lowest total among the top 3 sellers?",
     TOTALS.format(item="SUM(x.amount) AS total", order="ORDER BY total DESC LIMIT 1 OFFSET 2")),
    ("Sellers with 2 or more sales, from most to fewest",
     TOTALS.format(item="COUNT(*) AS n", order="HAVING COUNT(*) >= 2 ORDER BY n DESC")),
    # a flag asked for in other words, or under a LIMIT
    ("Seller names with 1 when in SF and 0 otherwise", "SELECT name, CASE WHEN city = 'SF' THEN 1 ELSE 0 END FROM seller"),
    ("The 2 newest sellers: were they in SF?",
     "SELECT name, CASE WHEN city = 'SF' THEN 'Y' ELSE 'N' END FROM seller ORDER BY id DESC LIMIT 2"),
    # the largest key asked for
    ("What is the number of the last sale?", "SELECT MAX(id) AS last_sale FROM sale"),
    # a split asked for in other words
    ("How many SF sellers and LA sellers are there?", "SELECT city, COUNT(*) FROM seller GROUP BY city"),
])
def test_shapes_asked_in_other_words_stay(shop, question: str, sql: str) -> None:
    checked = validate(sqlglot.parse_one(sql, read="sqlite"), shop.schema(), "sqlite", question=question)
    assert not any("(a guess" in f for f in checked.fixes), (question, checked.fixes)


def test_a_negated_like_with_letter_classes_stays_negated() -> None:
    assert guard("SELECT a FROM t WHERE c NOT LIKE '%[Ii]talian%'", "postgres").sql == (
        "SELECT a FROM t WHERE c NOT ILIKE '%italian%'")


@pytest.mark.parametrize("question", ["Sales support agents' customers",  # asks for no one number
                                      "What is the name of the city and how many sellers are there in total?"])
def test_a_split_the_words_imply_stays(shop, question: str) -> None:
    sql = "SELECT city, COUNT(*) FROM seller GROUP BY city"
    checked = validate(sqlglot.parse_one(sql, read="sqlite"), shop.schema(), "sqlite", question=question)
    assert not any("the total alone" in f for f in checked.fixes), question


def test_a_row_number_compared_with_zero_is_the_first_row(shop) -> None:
    sql = ("WITH ranked AS (SELECT s.name, x.amount, ROW_NUMBER() OVER (PARTITION BY s.id ORDER BY x.amount DESC) AS rn "
           "FROM seller AS s JOIN sale AS x ON x.seller_id = s.id) SELECT name, amount FROM ranked WHERE rn = 0 "
           "ORDER BY name")
    answer = ask(shop, "Each seller's largest sale", sql)
    assert [tuple(r) for r in answer.rows] == [("Ann", 10.0), ("Bob", 50.0), ("Cy", 30.0), ("Di", 2.0)]
    assert any("keeps no row" in n and "(a guess)" in n for n in answer.notes)
    derived = ("SELECT t.name FROM (SELECT name, DENSE_RANK() OVER (ORDER BY city) AS pos FROM seller) AS t "
               "WHERE t.pos < 1 AND t.name <> 'x'")
    checked = validate(sqlglot.parse_one(derived, read="sqlite"), shop.schema(), "sqlite", question="first city")
    assert "t.pos = 1" in checked.sql
    qualify = "SELECT name FROM seller QUALIFY RANK() OVER (ORDER BY id) <= 0"
    checked = validate(sqlglot.parse_one(qualify, read="duckdb"), shop.schema(), "duckdb", question="first")
    assert "= 1" in checked.sql


@pytest.mark.parametrize("sql", [
    "WITH r AS (SELECT name, ROW_NUMBER() OVER (ORDER BY id) AS rn FROM seller) SELECT name FROM r WHERE rn = 1",
    "WITH r AS (SELECT name, ROW_NUMBER() OVER (ORDER BY id) AS rn FROM seller) SELECT name FROM r WHERE rn = 0 OR "
    "name = 'Ann'",  # an OR: the other side holds rows
    "WITH r AS (SELECT name, PERCENT_RANK() OVER (ORDER BY id) AS rn FROM seller) SELECT name FROM r WHERE rn = 0",
    "WITH r AS (SELECT name, id AS rn FROM seller) SELECT name FROM r WHERE rn = 0",  # no rank: a value of its own
    "SELECT name, CASE WHEN ROW_NUMBER() OVER (ORDER BY id) = 0 THEN 1 END AS f FROM seller",  # a flag
    "WITH r AS (SELECT name, ROW_NUMBER() OVER (ORDER BY id) AS rn FROM seller UNION ALL SELECT name, 0 AS rn FROM "
    "seller) SELECT name FROM r WHERE rn = 0",  # another branch gives 0 (attack 16)
    "SELECT s.name FROM (SELECT name, RANK() OVER (ORDER BY id) AS rk FROM seller UNION ALL SELECT name, 0 FROM "
    "seller) AS s WHERE s.rk < 1",
    "WITH RECURSIVE c AS (SELECT id, ROW_NUMBER() OVER (ORDER BY id) AS rn FROM seller UNION ALL SELECT id, rn - 1 "
    "FROM c WHERE rn > 0) SELECT id FROM c WHERE rn = 0",
])
def test_a_zero_that_is_no_rank_filter_stays(shop, sql: str) -> None:
    checked = validate(sqlglot.parse_one(sql, read="sqlite"), shop.schema(), "sqlite", question="the first seller")
    assert not any("keeps no row" in f for f in checked.fixes), checked.fixes


def test_a_limit_before_the_order_it_was_for_is_read_after_it(shop) -> None:
    sql = ("WITH base AS (SELECT s.name, SUM(x.amount) AS total FROM seller AS s JOIN sale AS x ON x.seller_id = s.id "
           "GROUP BY s.name LIMIT 2) SELECT * FROM base ORDER BY total DESC")
    answer = ask(shop, "Who are the top 2 sellers by total sales?", sql)
    assert [tuple(r) for r in answer.rows] == [("Bob", 55.0), ("Cy", 30.0)]
    assert any("a LIMIT with no order" in n and "(a guess)" in n for n in answer.notes)


@pytest.mark.parametrize("sql", [
    "WITH b AS (SELECT name FROM seller ORDER BY id LIMIT 2) SELECT * FROM b ORDER BY name",  # ordered inside
    "WITH b AS (SELECT name, id FROM seller LIMIT 2) SELECT * FROM b WHERE id > 1 ORDER BY name",  # a WHERE outside
    "WITH b AS (SELECT name FROM seller LIMIT 2) SELECT * FROM b ORDER BY name LIMIT 1",  # a LIMIT outside
    "WITH b AS (SELECT name, id FROM seller LIMIT 2) SELECT COUNT(*) FROM b",  # no order: a sample counted
    "WITH b AS (SELECT name FROM seller LIMIT 2) SELECT * FROM b JOIN seller AS s ON s.name = b.name ORDER BY b.name",
])
def test_a_limit_inside_that_is_not_the_top_stays(shop, sql: str) -> None:
    checked = validate(sqlglot.parse_one(sql, read="sqlite"), shop.schema(), "sqlite", question="the first sellers")
    assert not any("a LIMIT with no order" in f for f in checked.fixes), checked.fixes


def test_a_sample_ordered_after_it_is_taken_stays(shop) -> None:
    sql = "WITH b AS (SELECT name, id FROM seller LIMIT 2) SELECT * FROM b ORDER BY id DESC"
    for question in ("Show a sample of 2 sellers, by id", "Take any 2 sellers and sort them",
                     "The first 2 sellers in the table, newest id first"):
        checked = validate(sqlglot.parse_one(sql, read="sqlite"), shop.schema(), "sqlite", question=question)
        assert not any("a LIMIT with no order" in f for f in checked.fixes), question


def test_a_partition_is_read_only_through_the_filter_that_reads_it(shop) -> None:
    """Two CTEs each name a row number ``rn``: the ``<= 3`` on the second is no top n of the first."""
    sql = ("WITH seq AS (SELECT id, amount, ROW_NUMBER() OVER (PARTITION BY id ORDER BY amount DESC) AS rn FROM sale), "
           "top AS (SELECT id, amount, rn AS pos, ROW_NUMBER() OVER (ORDER BY amount DESC) AS rn FROM seq) "
           "SELECT id, pos FROM top WHERE rn <= 3")
    checked = validate(sqlglot.parse_one(sql, read="sqlite"), shop.schema(), "sqlite", question="the top 3 sales")
    assert not any("ranks each row alone" in f for f in checked.fixes), checked.fixes
    alone = ("WITH r AS (SELECT id, amount, ROW_NUMBER() OVER (PARTITION BY id ORDER BY amount DESC) AS rn FROM sale) "
             "SELECT id FROM r WHERE rn <= 3")
    read = validate(sqlglot.parse_one(alone, read="sqlite"), shop.schema(), "sqlite", question="the top 3 sales")
    assert any("ranks each row alone" in f for f in read.fixes), read.fixes
