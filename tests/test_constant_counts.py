"""A count that is 1 in every group by construction (``COUNT(DISTINCT year) … GROUP BY year``): the count of the
thing its name or the question counts, by that table's own key (a guess the model sees first), or refused with what
to write (``core/sql/repair/grouping/_constant_counts.py``)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.databases import open_database
from tests.scripted_asking import ask


@pytest.fixture()
def library(tmp_path: Path):
    path = tmp_path / "library.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE publication(pid INTEGER PRIMARY KEY, title TEXT, year INTEGER, jid INTEGER);"
            "INSERT INTO publication VALUES (1,'a',2020,1),(2,'b',2020,1),(3,'c',2021,2),(4,'d',2021,2),(5,'e',2021,1);"
            "CREATE TABLE journal(jid INTEGER PRIMARY KEY, name TEXT);"
            "INSERT INTO journal VALUES (1,'J1'),(2,'J2');")
    db = open_database(str(path))
    yield db
    db.close()


@pytest.mark.parametrize(("question", "sql", "want"), [
    ("What is the total number of publications published in each year?",
     "SELECT publication.year, COUNT(DISTINCT publication.year) AS total_publications FROM publication "
     "GROUP BY publication.year ORDER BY publication.year", [(2020, 2), (2021, 3)]),
    ("Number of publications per journal name",  # no name on the count: the question's "number of publications"
     "SELECT j.name, COUNT(DISTINCT j.name) FROM publication p JOIN journal j ON p.jid = j.jid GROUP BY j.name",
     [("J1", 3), ("J2", 2)]),
])
def test_a_count_of_the_groups_own_key_counts_the_named_thing(library, question, sql, want) -> None:
    answer = ask(library, question, sql)
    assert sorted(tuple(r) for r in answer.rows) == want, (answer.sql, answer.notes, answer.error)
    assert any("1 in every group" in n and "(a guess)" in n for n in answer.notes), answer.notes


@pytest.mark.parametrize(("question", "sql"), [
    ("How many journals per year?",  # attack round 13: the name and the question disagree
     "SELECT year, COUNT(DISTINCT year) AS publication_count FROM publication GROUP BY year"),
    ("How many journals per year?",  # the question counts a table the query does not read
     "SELECT year, COUNT(DISTINCT year) AS c FROM publication GROUP BY year"),
    ("Count per journal name",  # a query of joins whose count names nothing
     "SELECT j.name, COUNT(DISTINCT j.name) AS c FROM publication p JOIN journal j ON p.jid = j.jid GROUP BY j.name"),
])
def test_a_count_nothing_names_is_left_as_written(library, question: str, sql: str) -> None:
    """Refusing it broke a held-out reply that was right as written; what to count is not said, so nothing is
    guessed."""
    answer = ask(library, question, sql)
    assert answer.ok and not any("1 in every group (it counts" in n for n in answer.notes), answer.notes
    assert [a.label for a in answer.alternatives] == ["Count the rows of each group"], answer.notes  # said, offered


def test_a_constant_count_inside_an_expression_is_left(library) -> None:
    """A term of a ratio (a held-out reply right as written held one): what it stands for is not said."""
    answer = ask(library, "Ratio per year", "SELECT year, COUNT(DISTINCT pid) / COUNT(DISTINCT year) AS r "
                 "FROM publication GROUP BY year")
    assert answer.ok and not any("1 in every group (it counts" in n for n in answer.notes), answer.notes
    assert any("1 in every group; counting each group's rows" in n for n in answer.notes), answer.notes


@pytest.mark.parametrize("sql", [
    "SELECT year, COUNT(year) AS n FROM publication GROUP BY year",  # the group's size
    "SELECT year, COUNT(DISTINCT jid) AS journals FROM publication GROUP BY year",  # another column
    "SELECT COUNT(DISTINCT year) AS years FROM publication",  # nothing grouped
])
def test_counts_that_vary_are_left(library, sql: str) -> None:
    answer = ask(library, "How many publications and journals by year?", sql)
    assert not any("1 in every group" in n for n in answer.notes), answer.notes


def test_the_table_the_word_names_whole_is_counted_before_a_link_table_holding_it(tmp_path: Path) -> None:
    path = tmp_path / "academic.sqlite"
    with sqlite3.connect(path) as conn:  # no declared keys: aid and did are the tables' own by name
        conn.executescript("CREATE TABLE author(aid bigint, name text); INSERT INTO author VALUES (1,'a'),(2,'b');"
                           "CREATE TABLE domain(did bigint, name text); INSERT INTO domain VALUES (1,'x'),(2,'y');"
                           "CREATE TABLE domain_author(aid bigint, did bigint);"
                           "INSERT INTO domain_author VALUES (1,1),(2,1),(2,2);")
    db = open_database(str(path))
    try:
        answer = ask(db, "What are the top 5 domains with the highest number of authors?",
                     "SELECT d.name, COUNT(DISTINCT d.name) AS author_count FROM author AS a JOIN domain_author AS da "
                     "ON a.aid = da.aid JOIN domain AS d ON da.did = d.did GROUP BY d.name ORDER BY author_count DESC "
                     "LIMIT 5")
    finally:
        db.close()
    assert [tuple(r) for r in answer.rows] == [("x", 2), ("y", 1)], (answer.sql, answer.notes)


def test_a_count_of_one_table_that_names_nothing_counts_its_rows(library) -> None:
    """"Show each year" of one table, its count named ``c``: the group's rows (``COUNT(*)``), a guess said so."""
    answer = ask(library, "Show each year with a count", "SELECT year, COUNT(DISTINCT year) AS c FROM publication "
                 "GROUP BY year ORDER BY year")
    assert [tuple(r) for r in answer.rows] == [(2020, 2), (2021, 3)], (answer.sql, answer.notes)
    assert any("COUNT(*)" in n and "(a guess)" in n for n in answer.notes), answer.notes
    assert [a.label for a in answer.alternatives] == ["As the model wrote it"]


@pytest.fixture()
def broker(tmp_path: Path):
    """No declared keys; each table's columns start with its own prefix (``sbTxId``, ``sbCustId``)."""
    path = tmp_path / "broker.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE sbCustomer(sbCustId TEXT, sbCustName TEXT, sbCustCountry TEXT);"
            "INSERT INTO sbCustomer VALUES ('c1','a','US'),('c2','b','US'),('c3','c','FR');"
            "CREATE TABLE sbTransaction(sbTxId TEXT, sbTxCustId TEXT, sbTxType TEXT, sbTxAmount REAL);"
            "INSERT INTO sbTransaction VALUES ('t1','c1','buy',10),('t2','c1','buy',5),('t3','c2','sell',7),"
            "('t4','c3','buy',1);"
            "CREATE TABLE food_service(meal_code TEXT, meal_number INTEGER, compartment TEXT);"
            "INSERT INTO food_service VALUES ('B',1,'first'),('B',2,'first'),('L',1,'economy');")
    db = open_database(str(path))
    yield db
    db.close()


@pytest.mark.parametrize(("question", "sql", "want"), [
    ("What are the top 2 countries by number of transactions?",  # the key named for the table by its prefix
     "SELECT c.sbCustCountry, COUNT(DISTINCT c.sbCustCountry) AS num_transactions FROM sbCustomer c JOIN sbTransaction t "
     "ON c.sbCustId = t.sbTxCustId GROUP BY c.sbCustCountry ORDER BY num_transactions DESC LIMIT 2",
     [("US", 3), ("FR", 1)]),
    ("How many distinct customers made each type of transaction?",  # a column naming the thing as a reference
     "SELECT sbTxType, COUNT(DISTINCT sbTxType) AS num_customers FROM sbTransaction GROUP BY sbTxType ORDER BY 1",
     [("buy", 2), ("sell", 1)]),
    ("How many meals are served in each compartment?",  # several columns name meals: the one table's rows
     "SELECT compartment, COUNT(DISTINCT compartment) AS number_of_meals FROM food_service GROUP BY compartment "
     "ORDER BY 1", [("economy", 1), ("first", 2)]),
])
def test_tables_without_declared_keys_are_counted_by_what_names_the_thing(broker, question, sql, want) -> None:
    answer = ask(broker, question, sql)
    assert [tuple(r) for r in answer.rows] == want, (answer.sql, answer.notes, answer.error)
    assert any("1 in every group" in n and "(a guess)" in n for n in answer.notes), answer.notes


def test_a_question_whose_words_name_nothing_leaves_the_count_to_its_name(library) -> None:
    """"the number of unread … notifications": the question's words name nothing of the schema, the count's name
    (``publication_count``) names a table of the query."""
    answer = ask(library, "Return the year and the number of recent indexed items",
                 "SELECT year, COUNT(DISTINCT year) AS publication_count FROM publication GROUP BY year ORDER BY year")
    assert [tuple(r) for r in answer.rows] == [(2020, 2), (2021, 3)], (answer.sql, answer.notes)


def test_a_grouped_pair_counts_the_one_tables_rows_when_the_question_says_them(library) -> None:
    """"how many of them" of one table (its rows) and a name naming the table (its key) are one count."""
    answer = ask(library, "Which journals have more than one publication in a year, and how many of them are there?",
                 "SELECT jid, year, COUNT(DISTINCT year) AS publication_count FROM publication GROUP BY jid, year "
                 "HAVING COUNT(pid) > 1 ORDER BY jid, year")
    assert [tuple(r) for r in answer.rows] == [(1, 2020, 2), (2, 2021, 2)], (answer.sql, answer.notes)


def test_a_count_of_the_groups_output_name_is_the_same_constant(library) -> None:
    """``COUNT(DISTINCT y)`` where ``y`` names ``year + 0`` and the query groups by ``y``: PostgreSQL and SQLite read
    no output name there, so the name is read as its expression, still the group's own key."""
    answer = ask(library, "What is the number of publications in each year?",
                 "SELECT year + 0 AS y, COUNT(DISTINCT y) AS total_publications FROM publication GROUP BY y ORDER BY y")
    assert [tuple(r) for r in answer.rows] == [(2020, 2), (2021, 3)], (answer.sql, answer.notes, answer.error)


@pytest.fixture()
def academic(tmp_path: Path):
    """No declared keys; ``domain_author`` links domain and author, its ``did`` domain's key, ``aid`` author's."""
    path = tmp_path / "acad.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE author(aid bigint, name text); INSERT INTO author VALUES (1,'a'),(2,'b'),(3,'c');"
            "CREATE TABLE domain(did bigint, name text); INSERT INTO domain VALUES (1,'DB'),(2,'ML');"
            "CREATE TABLE domain_author(aid bigint, did bigint);"
            "INSERT INTO domain_author VALUES (1,1),(2,1),(3,1),(3,2);"
            "CREATE TABLE orders(order_id INTEGER PRIMARY KEY, city TEXT, status TEXT, qty INTEGER);"
            "INSERT INTO orders VALUES (1,'Oslo','open',5),(2,'Paris','open',1),(3,'Paris','shut',2),"
            "(4,'Rome','open',7),(5,'Paris','open',1),(6,'Rome','shut',1);")
    db = open_database(str(path))
    yield db
    db.close()


def test_a_link_tables_initial_and_id_is_not_its_own_key(academic) -> None:
    """Attack round 14: ``did`` on domain_author is domain's key — the group's key again through the join. The
    column naming authors (``aid``) is counted."""
    answer = ask(academic, "Number of authors per domain name",
                 "SELECT d.name, COUNT(DISTINCT d.name) AS authors FROM domain d JOIN domain_author da ON da.did = d.did "
                 "GROUP BY d.name ORDER BY d.name")
    assert [tuple(r) for r in answer.rows] == [("DB", 3), ("ML", 1)], (answer.sql, answer.notes)


def test_the_counts_copies_in_order_by_and_having_are_read_with_it(academic) -> None:
    """Attack round 14: the same constant count in ORDER BY and HAVING is one count, read once."""
    answer = ask(academic, "Which 2 cities have the most orders?",
                 "SELECT city, COUNT(DISTINCT city) AS orders FROM orders GROUP BY city HAVING COUNT(DISTINCT city) > 1 "
                 "ORDER BY COUNT(DISTINCT city) DESC, city LIMIT 2")
    assert [tuple(r) for r in answer.rows] == [("Paris", 3), ("Rome", 2)], (answer.sql, answer.notes)


@pytest.mark.parametrize(("question", "sql"), [
    ("How many statuses per city?",  # the thing counted is the group's key itself: nothing to read
     "SELECT status, COUNT(DISTINCT status) AS statuses FROM orders GROUP BY status"),
    ("How many units were sold per status?",  # "units" names nothing of the schema: no count is taken for it
     "SELECT status, COUNT(DISTINCT status) AS units_sold FROM orders GROUP BY status"),
])
def test_a_count_read_as_the_key_again_or_as_nothing_is_left_and_offered(academic, question, sql) -> None:
    answer = ask(academic, question, sql)
    assert not any("(it counts the group's own key)" in n for n in answer.notes), answer.notes
    assert [a.label for a in answer.alternatives] == ["Count the rows of each group"], answer.notes


def test_a_possessive_counts_the_noun_after_it(academic) -> None:
    """Attack round 14: "the number of the customer's orders" counts orders, not customers."""
    from core.sql.repair._names import COUNTED_THING, counted_thing
    said = COUNTED_THING.search("the number of the customer's orders per city")
    assert said is not None and counted_thing(said) == "orders"
