"""Rows that do not say what they are about, and groups that compute nothing (core.evidence._labels, issue 27): a
grouped query showing only its aggregates, a ranking showing only numbers of the table the question names, a GROUP
BY with no aggregate where the question asks how many / what total / what average; and a GROUP BY column the question
never names where it names another of its table (``_question_filters.group_column``). Each is offered, never
enforced; with a model, it is shown the finding once and its rewrite is the answer. Real SQLite with no declared
keys, the model scripted.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.databases import open_database
from tests.scripted_asking import ask as _ask
from tests.scripted_asking import rows as db_rows_in_order
from tests.scripted_asking import sorted_rows as _rows


@pytest.fixture()
def library(tmp_path: Path):
    path = tmp_path / "library.sqlite"
    with sqlite3.connect(path) as conn:  # no declared keys
        conn.executescript(
            "CREATE TABLE writer(writer_id INTEGER, name TEXT, country TEXT, city TEXT, homepage TEXT, agent_name TEXT);"
            "CREATE TABLE book(book_id INTEGER, title TEXT, writer_id INTEGER, pages INTEGER, price REAL, "
            "published INTEGER);"
            "INSERT INTO writer VALUES (1,'Anita','IN','Pune','a.in','Lee'),(2,'Bruno','BR','Rio','b.br','Lee'),"
            "(3,'Chiara','IT','Pune','c.it','Kim');"
            "INSERT INTO book VALUES (1,'Rain',1,120,10,2020),(2,'Sun',1,300,25,2021),(3,'Wind',2,90,8,2021),"
            "(4,'Snow',3,450,30,2020),(5,'Fog',3,200,12,2021);"
        )
    db = open_database(str(path))
    yield db
    db.close()


def test_groups_shown_without_their_columns_are_offered_with_them(library) -> None:
    answer = _ask(library, "Total pages written by each writer?",
                  "SELECT SUM(b.pages) FROM book b JOIN writer w ON w.writer_id = b.writer_id GROUP BY w.name")
    assert answer.ok and sorted(answer.rows) == [(90,), (420,), (650,)]  # the answer stays
    other = next(a for a in answer.alternatives if a.label == "Also show w.name")
    assert _rows(library, other.sql) == [("Anita", 420), ("Bruno", 90), ("Chiara", 650)]
    assert "do not say which" in other.why
    # the one with the most, ranked: one row, still unnamed
    top = _ask(library, "Which writer wrote the most pages?", "SELECT SUM(b.pages) AS p FROM book b JOIN writer w "
               "ON w.writer_id = b.writer_id GROUP BY w.name ORDER BY p DESC LIMIT 1")
    assert [a.label for a in top.alternatives] == ["Also show w.name"]


@pytest.mark.parametrize("sql", [
    "SELECT w.name, SUM(b.pages) FROM book b JOIN writer w ON w.writer_id = b.writer_id GROUP BY w.name",
    # one group that a filter chose, not ranked: which one it is, the question says
    "SELECT SUM(b.pages) FROM book b JOIN writer w ON w.writer_id = b.writer_id WHERE w.name = 'Anita' "
    "GROUP BY w.name",
    "SELECT SUM(pages) FROM book",  # one total
])
def test_rows_that_say_what_they_are_are_not_doubted(library, sql) -> None:
    assert not any(a.label.startswith("Also show") for a in _ask(library, "pages per writer", sql).alternatives)


def test_a_ranking_shown_only_as_numbers_is_offered_with_the_label_of_what_it_ranks(library) -> None:
    answer = _ask(library, "What are the 2 longest books?", "SELECT pages FROM book ORDER BY pages DESC LIMIT 2")
    assert answer.ok and answer.rows == ((450,), (300,))
    other = next(a for a in answer.alternatives if a.label == "Also show title")
    assert db_rows_in_order(library, other.sql) == [("Snow", 450), ("Sun", 300)]
    # the numbers are what is asked when the words do not name the table
    plain = _ask(library, "What are the 2 highest page counts?", "SELECT pages FROM book ORDER BY pages DESC LIMIT 2")
    assert not any(a.label == "Also show title" for a in plain.alternatives)
    # a label shown already says which row each is
    named = _ask(library, "What are the 2 longest books?",
                 "SELECT title, pages FROM book ORDER BY pages DESC LIMIT 2")
    assert not any(a.label.startswith("Also show") for a in named.alternatives)


@pytest.mark.parametrize(("question", "label", "rows"), [
    ("How many books were published in each year?", "Also show the number of rows per group",
     [(2020, 2), (2021, 3)]),
    ("What is the average price of books per year?", "Also show the average price", [(2020, 20.0), (2021, 15.0)]),
    ("Total pages published per year", "Also show the total pages", [(2020, 570), (2021, 590)]),
])
def test_a_grouping_that_computes_nothing_is_offered_with_the_measure_asked(library, question, label, rows) -> None:
    answer = _ask(library, question, "SELECT published FROM book GROUP BY published")
    assert answer.ok and sorted(answer.rows) == [(2020,), (2021,)]
    other = next(a for a in answer.alternatives if a.label == label)
    assert _rows(library, other.sql) == rows


@pytest.mark.parametrize("question", [
    "Which years had books published?",  # no measure asked: the list is the answer
    "What is the average of the book numbers per year?",  # no number column the words name: no guess
])
def test_a_grouping_that_computes_nothing_is_left_where_no_measure_is_named(library, question) -> None:
    answer = _ask(library, question, "SELECT published FROM book GROUP BY published")
    assert not any(a.label.startswith("Also show") for a in answer.alternatives)


def test_with_a_model_the_finding_is_shown_and_its_rewrite_is_the_answer(library) -> None:
    first = "SELECT SUM(b.pages) FROM book b JOIN writer w ON w.writer_id = b.writer_id GROUP BY w.name"
    fixed = "SELECT w.name, SUM(b.pages) FROM book b JOIN writer w ON w.writer_id = b.writer_id GROUP BY w.name"
    answer = _ask(library, "Total pages written by each writer?", first, again=fixed)
    assert sorted(answer.rows) == [("Anita", 420), ("Bruno", 90), ("Chiara", 650)]
    assert [a.label for a in answer.alternatives] == ["The first query"]


def test_a_column_asked_for_is_missed_though_a_shown_name_shares_one_of_its_words(tmp_path: Path) -> None:
    """``last_name`` shown twice where "first name, last name" is asked: "name" is said by a shown column, "first" is
    not (core.evidence._question_columns.asked_column_finding)."""
    path = tmp_path / "staff.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE staff(id INTEGER, first_name TEXT, last_name TEXT, pay REAL);"
                           "INSERT INTO staff VALUES (1,'Ana','Diaz',10),(2,'Bo','Diaz',30),(3,'Cy','Ito',20);")
    db = open_database(str(path))
    try:
        answer = _ask(db, "Who are the 2 best paid staff? Return their first name, last name and pay.",
                      "SELECT last_name, last_name, pay FROM staff ORDER BY pay DESC LIMIT 2")
        other = next(a for a in answer.alternatives if a.label == "Also show first_name")
        assert "Bo" in db_rows_in_order(db, other.sql)[0]  # the best paid, by her first name too
        shown = _ask(db, "Who are the 2 best paid staff? Return their first name, last name and pay.",
                     "SELECT first_name, last_name, pay FROM staff ORDER BY pay DESC LIMIT 2")
        assert not any(a.label.startswith("Also show") for a in shown.alternatives)
    finally:
        db.close()


@pytest.mark.parametrize(("question", "sql", "label", "rows"), [
    ("How many writers are there in each country?", "SELECT city, COUNT(*) FROM writer GROUP BY city",
     "Group by country", [("BR", 1), ("IN", 1), ("IT", 1)]),
    ("Total pages by each writer", "SELECT w.homepage, SUM(b.pages) FROM book b JOIN writer w "
     "ON w.writer_id = b.writer_id GROUP BY w.homepage", "Group by name", [("Anita", 420), ("Bruno", 90),
                                                                          ("Chiara", 650)]),
])
def test_a_grouping_column_the_question_never_names_is_offered_as_the_one_it_does(library, question, sql, label,
                                                                                   rows) -> None:
    answer = _ask(library, question, sql)  # (a shown column: ``label_finding`` may offer the same query first)
    assert any(a.label in (label, label.replace("Group by", "Show")) and _rows(library, a.sql) == rows
               for a in answer.alternatives), [(a.label, a.sql) for a in answer.alternatives]


@pytest.mark.parametrize(("question", "sql"), [
    ("How many writers are there in each city?", "SELECT city, COUNT(*) FROM writer GROUP BY city"),
    ("Total pages per writer and homepage", "SELECT w.homepage, SUM(b.pages) FROM book b JOIN writer w "
     "ON w.writer_id = b.writer_id GROUP BY w.homepage"),
    ("Total pages per group", "SELECT w.homepage, SUM(b.pages) FROM book b JOIN writer w "
     "ON w.writer_id = b.writer_id GROUP BY w.homepage"),  # the words name neither the table nor a column
])
def test_a_grouping_column_the_question_names_or_leaves_open_is_not_doubted(library, question, sql) -> None:
    assert not any(a.label.startswith("Group by") for a in _ask(library, question, sql).alternatives)


def test_a_grouping_column_named_like_a_label_is_read_as_the_label_the_words_name(library) -> None:
    """``GROUP BY w.agent_name`` where the words name the writer: a name, but the agent's (only the grouping check
    sees it: the column shown is a name)."""
    answer = _ask(library, "Which 2 writers wrote the most pages?", "SELECT w.agent_name, SUM(b.pages) AS p "
                  "FROM book b JOIN writer w ON w.writer_id = b.writer_id GROUP BY w.agent_name ORDER BY p DESC "
                  "LIMIT 2")
    other = next(a for a in answer.alternatives if a.label == "Group by name")
    assert db_rows_in_order(library, other.sql) == [("Chiara", 650), ("Anita", 420)]


def test_a_look_alike_table_the_question_never_names_is_offered_as_the_one_it_does(tmp_path: Path) -> None:
    path = tmp_path / "pay.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE payments_received(id INTEGER, amount REAL, paid_on TEXT);"
                           "CREATE TABLE payments_made(id INTEGER, amount REAL, paid_on TEXT);"
                           "INSERT INTO payments_received VALUES (1, 10, '2024-01-01'), (2, 5, '2024-01-02');"
                           "INSERT INTO payments_made VALUES (1, 99, '2024-01-01');")
    db = open_database(str(path))
    try:
        answer = _ask(db, "What is the total amount of payments received?", "SELECT SUM(p.amount) FROM payments_made p")
        other = next(a for a in answer.alternatives if a.label == "Read payments_received instead of payments_made")
        assert _rows(db, other.sql) == [(15.0,)]
        plain = _ask(db, "What is the total of payments received?", "SELECT SUM(amount) FROM payments_made")
        assert any(_rows(db, a.sql) == [(15.0,)] for a in plain.alternatives)  # unaliased: its name kept as alias
        right = _ask(db, "What is the total amount of payments received?",
                     "SELECT SUM(amount) FROM payments_received")
        assert not any(a.label.startswith("Read ") for a in right.alternatives)
    finally:
        db.close()


def test_a_count_of_another_table_s_keys_than_the_one_the_question_counts_is_offered(tmp_path: Path) -> None:
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE customers(id INTEGER, name TEXT);"
                           "CREATE TABLE sales(id INTEGER, customer_id INTEGER, price REAL);"
                           "INSERT INTO customers VALUES (1, 'a'), (2, 'b');"
                           "INSERT INTO sales VALUES (1, 1, 5), (2, 1, 6), (3, 2, 7);")
    db = open_database(str(path))
    try:
        answer = _ask(db, "How many sales were made?", "SELECT COUNT(DISTINCT s.customer_id) FROM sales s")
        other = next(a for a in answer.alternatives if a.label == "Count sales")
        assert _rows(db, other.sql) == [(3,)]
        right = _ask(db, "How many customers bought something?", "SELECT COUNT(DISTINCT s.customer_id) FROM sales s")
        assert not any(a.label.startswith("Count ") for a in right.alternatives)
    finally:
        db.close()


def test_one_column_two_unrelated_tables_share_is_no_likeness(tmp_path: Path) -> None:
    path = tmp_path / "o.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE orders_2024(order_id INTEGER, customer TEXT);"
                           "CREATE TABLE customers(customer TEXT, city TEXT);"
                           "INSERT INTO orders_2024 VALUES (1, 'a'), (2, 'a');"
                           "INSERT INTO customers VALUES ('a', 'x');")
    db = open_database(str(path))
    try:
        answer = _ask(db, "orders per customer", "SELECT customer, COUNT(*) FROM orders_2024 GROUP BY customer")
        assert not any(a.label.startswith("Read ") for a in answer.alternatives)
    finally:
        db.close()


def test_a_count_of_a_short_key_is_read_as_the_table_whose_key_it_is(tmp_path: Path) -> None:
    path = tmp_path / "pubs.sqlite"
    with sqlite3.connect(path) as conn:  # no declared keys: jid is journal's by its initial
        conn.executescript("CREATE TABLE journal(jid INTEGER, name TEXT);"
                           "CREATE TABLE publication(pid INTEGER, jid INTEGER, year INTEGER);"
                           "CREATE TABLE journal_editor(jid INTEGER, editor TEXT);"
                           "INSERT INTO publication VALUES (1, 1, 2020), (2, 1, 2020), (3, 2, 2021);")
    db = open_database(str(path))
    try:
        answer = _ask(db, "What is the number of publications in each year?",
                      "SELECT year, COUNT(DISTINCT jid) FROM publication GROUP BY year")
        other = next(a for a in answer.alternatives if a.label == "Count publication")
        assert _rows(db, other.sql) == [(2020, 2), (2021, 1)]
    finally:
        db.close()


def test_a_length_of_time_below_zero_on_every_row_is_offered_the_other_way_round(tmp_path: Path) -> None:
    path = tmp_path / "staff.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE staff(id INTEGER, name TEXT, hire_date TEXT, termination_date TEXT);"
                           "INSERT INTO staff VALUES (1, 'a', '2020-01-01', '2020-01-31'), "
                           "(2, 'b', '2020-01-01', '2020-01-11');")
    db = open_database(str(path))
    try:
        answer = _ask(db, "Who was employed the shortest time?", "SELECT name, julianday(hire_date) - "
                      "julianday(termination_date) AS days FROM staff ORDER BY days LIMIT 1")
        other = next(a for a in answer.alternatives if a.label == "The other way round")
        assert db_rows_in_order(db, other.sql) == [("b", 10.0)]
        fine = _ask(db, "How long was each employed?", "SELECT name, julianday(termination_date) - julianday("
                    "hire_date) AS days FROM staff")
        assert not any(a.label == "The other way round" for a in fine.alternatives)
    finally:
        db.close()


def test_a_row_of_totals_under_the_groups_is_offered_without_it(library) -> None:
    sql = ("SELECT w.name, SUM(b.pages) AS pages FROM writer w JOIN book b ON b.writer_id = w.writer_id "
           "GROUP BY w.name UNION ALL SELECT 'Total', SUM(pages) FROM book ORDER BY pages DESC LIMIT 2")
    answer = _ask(library, "Which 2 writers wrote the most pages?", sql)
    assert answer.ok and answer.rows[0][0] == "Total"  # the answer stays as it ran
    [other] = [a for a in answer.alternatives if a.label == "Without the total row"]
    assert _rows(library, other.sql) == [("Anita", 420), ("Chiara", 650)]
    asked = _ask(library, "Pages per writer, with a grand total row", sql.replace(" ORDER BY pages DESC LIMIT 2", ""))
    assert not [a for a in asked.alternatives if a.label == "Without the total row"]


def test_a_filter_in_a_left_joins_on_is_offered_as_a_filter_of_the_rows(library) -> None:
    sql = ("SELECT COUNT(DISTINCT b.book_id) FROM book b LEFT JOIN writer w ON b.writer_id = w.writer_id "
           "AND w.country = 'IN'")
    answer = _ask(library, "How many books were written by writers from India?", sql)
    assert answer.ok and answer.rows == ((5,),)  # every book, as it ran
    [other] = [a for a in answer.alternatives if a.label == "The filter applied to the rows"]
    assert _rows(library, other.sql) == [(2,)]
    # the two uses that need it in the ON: a count per writer that may be zero, and an anti-join
    zero = ("SELECT w.name, COUNT(b.book_id) FROM writer w LEFT JOIN book b ON b.writer_id = w.writer_id "
            "AND b.published = 2020 GROUP BY w.name")
    anti = ("SELECT w.name FROM writer w LEFT JOIN book b ON b.writer_id = w.writer_id AND b.published = 2021 "
            "WHERE b.book_id IS NULL")
    for kept in (zero, anti):
        asked = _ask(library, "Books per writer in 2020", kept)
        assert not [a for a in asked.alternatives if a.label == "The filter applied to the rows"]


def test_attack_round7_no_false_alarm_where_the_left_join_or_the_extra_row_is_meant(library) -> None:
    """A LEFT JOIN whose joined side is read keeps every row on purpose; a row for another group, or a total the words
    ask for, is no stray total."""
    keep_all = ("SELECT w.name, COALESCE(SUM(b.pages), 0) AS pages FROM writer w LEFT JOIN book b "
                "ON b.writer_id = w.writer_id AND b.published = 2020 GROUP BY w.name")
    listed = ("SELECT w.name, b.title FROM writer w LEFT JOIN book b ON b.writer_id = w.writer_id "
              "AND b.published = 2021")
    other = ("SELECT country, COUNT(*) AS n FROM writer WHERE country <> 'IN' GROUP BY country "
             "UNION ALL SELECT 'Other', COUNT(*) FROM writer WHERE country = 'IN'")
    whole = ("SELECT country, COUNT(*) AS n FROM writer GROUP BY country UNION ALL SELECT 'All', COUNT(*) FROM writer")
    for question, sql in (("Pages per writer in 2020, every writer", keep_all),
                          ("Every writer with their 2021 books, if any", listed),
                          ("Writers per country, India as Other", other),
                          ("Writers per country and for the whole agency", whole)):
        answer = _ask(library, question, sql)
        assert answer.ok and not [a for a in answer.alternatives if a.label in (
            "The filter applied to the rows", "Without the total row")], question
