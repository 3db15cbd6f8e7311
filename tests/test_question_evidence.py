"""What the question says against what the query does (core.evidence._question, _asked, _question_dates).

A query that runs and answers another question than the one asked is the worst thing Cairn can show. These checks
read the question narrowly (a bound, a count of rows, a direction, an aggregate, a column, a year, a span) and,
where the query writes it otherwise, say so with both results and offer the query the words describe; the query
that ran stays the answer, and with a model the finding goes to its review round. Questions the reading does not
understand check nothing. Real SQLite through Cairn's backend; the model is scripted.
"""

from __future__ import annotations

import sqlite3
from decimal import Decimal
from pathlib import Path

import pytest

from core.databases import open_database
from core.evidence._asked import read_question
from tests.scripted_asking import ask as _ask
from tests.scripted_asking import rows as _rows


@pytest.fixture()
def shop(tmp_path: Path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:  # no declared keys
        conn.executescript(
            "CREATE TABLE client(client_id INTEGER, full_name TEXT, email TEXT, town TEXT);"
            "CREATE TABLE sale(sale_id INTEGER, client_id INTEGER, amount REAL, sold_on TEXT, sale_year INTEGER);"
            "INSERT INTO client VALUES (1,'Asha','a@x.in','Pune'),(2,'Bilal','b@x.in','Agra'),(3,'Chen','c@x.in','Pune');"
            "INSERT INTO sale VALUES (1,1,10,'2021-01-04',2021),(2,1,20,'2021-02-01',2021),(3,2,5,'2021-03-01',2021),"
            "(4,3,50,'2022-01-01',2022),(5,1,7,'2022-01-05',2022),(6,3,5,'2022-01-06',2022),"
            "(7,2,5,'2021-05-01',2021);"
            "INSERT INTO sale VALUES (8,2,9,date('now','-3 days'),NULL);"
        )
    db = open_database(str(path))
    yield db
    db.close()


# --- reading the question -------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("question", "op", "value"), [
    ("clients with more than 2 sales", "gt", 2),
    ("clients having at least 3 sales", "ge", 3),
    ("sales of 5 or more rupees", "ge", 5),
    ("sales under 1.5 lakh", "lt", 150_000),
    ("no more than ten items", "le", 10),
    ("3 se zyada orders wale customers", "gt", 3),
    ("kam se kam 4 bookings", "ge", 4),
])
def test_the_bound_a_question_says_is_read_with_its_direction(question, op, value) -> None:
    (bound,) = read_question(question).bounds
    assert (bound.op, bound.value) == (op, Decimal(value))


def test_ranks_counts_spans_and_aggregates_are_read_narrowly() -> None:
    top = read_question("Top 5 towns by total sales amount")
    assert (top.limit, top.direction, "sum" in top.aggregates) == (5, "desc", True)
    assert read_question("sabse kam price wala product").direction == "asc"
    assert read_question("the highest and the lowest fare").direction is None  # both ways: nothing to check
    assert read_question("at most 4 items").direction is None  # "at most" is a bound, not a superlative
    span = read_question("sales in the past 3 weeks").span
    assert span is not None and (span.count, span.unit) == (3, "week")
    assert read_question("sales last month").span is None  # a calendar month, not a span: left alone
    assert read_question("pichhle 2 mahine ki bikri").span.unit == "month"
    assert read_question("orders on 2021-03-04").years == ()  # a full date is not a year on its own
    assert read_question("kitne orders hain?").aggregates == frozenset({"count"})


# --- each finding, said with both results and offered ---------------------------------------------------------------

def test_a_bound_written_the_other_way_is_said_and_offered(shop) -> None:
    sql = "SELECT client_id FROM sale GROUP BY client_id HAVING COUNT(*) > 3"
    answer = _ask(shop, "Which clients made at least 3 sales?", sql)
    assert answer.ok and answer.rows == ()  # nothing changed on a reading
    (note,) = [n for n in answer.notes if "at least 3" in n]
    assert "COUNT(*) > 3" in note and "2 rows instead of 0" in note
    (other,) = answer.alternatives
    assert "COUNT(*) >= 3" in other.sql and sorted(_rows(shop, other.sql)) == [(1,), (2,)]


def test_a_bound_the_query_keeps_in_an_equal_form_is_not_doubted(shop) -> None:
    for sql in ("SELECT client_id FROM sale GROUP BY client_id HAVING COUNT(*) >= 3",
                "SELECT client_id FROM sale GROUP BY client_id HAVING COUNT(*) > 2",  # whole numbers: > 2 is >= 3
                "SELECT client_id FROM sale GROUP BY client_id HAVING 3 <= COUNT(*)"):
        assert not _ask(shop, "Which clients made at least 3 sales?", sql).alternatives


def test_a_limit_or_a_direction_other_than_the_words_is_offered(shop) -> None:
    top = "SELECT client_id, SUM(amount) AS s FROM sale GROUP BY client_id ORDER BY s"
    wrong_way = _ask(shop, "Top 2 clients by total amount", top + " LIMIT 2")
    assert [a.label for a in wrong_way.alternatives] == ["Order from the other end"]
    assert "DESC" in wrong_way.alternatives[0].sql
    all_rows = _ask(shop, "Top 2 clients by total amount", top + " DESC")
    assert [a.label for a in all_rows.alternatives] == ["Keep 2"]
    assert len(_rows(shop, all_rows.alternatives[0].sql)) == 2


@pytest.mark.parametrize("question", ["Total amount for each client", "Sale amounts per client, sorted by amount"])
def test_a_limit_the_question_does_not_ask_for_is_offered_without_it(shop, question) -> None:
    answer = _ask(shop, question, "SELECT client_id, SUM(amount) AS s FROM sale GROUP BY client_id ORDER BY s DESC "
                  "LIMIT 1")
    other = next(a for a in answer.alternatives if a.label == "Every row")
    assert len(_rows(shop, other.sql)) > 1 and "LIMIT" not in other.sql


def test_first_and_last_that_name_a_column_ask_for_no_few_rows(tmp_path: Path) -> None:
    path = tmp_path / "staff.sqlite"
    with sqlite3.connect(path) as conn:  # held-out fresh17: "Return the first name, last name …" with a LIMIT 5
        conn.executescript("CREATE TABLE staff(id INTEGER, first_name TEXT, last_name TEXT);" + "".join(
            f"INSERT INTO staff VALUES ({i}, 'F{i}', 'L{i}');" for i in range(8)))
    conn.close()
    db = open_database(str(path))
    try:
        answer = _ask(db, "Return the first name and last name of every staff member",
                      "SELECT first_name, last_name FROM staff LIMIT 5")
        other = next(a for a in answer.alternatives if a.label == "Every row")
        assert len(_rows(db, other.sql)) == 8
        first = _ask(db, "Who is the first staff member by id?", "SELECT first_name FROM staff ORDER BY id LIMIT 1")
        assert not any(a.label == "Every row" for a in first.alternatives)
    finally:
        db.close()


@pytest.mark.parametrize("question", ["Which clients have the highest totals, ordered from highest to lowest?",
                                      "Clients with the largest total amounts, sorted in descending order"])
def test_an_extreme_that_orders_a_list_the_words_ask_for_asks_for_no_limit(shop, question) -> None:
    answer = _ask(shop, question, "SELECT client_id, SUM(amount) AS s FROM sale GROUP BY client_id ORDER BY s DESC "
                  "LIMIT 1")
    other = next(a for a in answer.alternatives if a.label == "Every row")
    assert len(_rows(shop, other.sql)) == 3


@pytest.mark.parametrize("question", ["Which client has the highest total amount?", "Show a few clients",
                                      "The biggest client by amount", "top client by amount",
                                      "Which client has the highest total, sorted by name?",
                                      "Top clients by total, ordered from highest to lowest",
                                      "Which client spends the most? Sort by total."])  # attack round 3
def test_a_limit_an_extreme_or_a_few_rows_ask_for_is_not_doubted(shop, question) -> None:
    answer = _ask(shop, question, "SELECT client_id, SUM(amount) AS s FROM sale GROUP BY client_id ORDER BY s DESC "
                  "LIMIT 1")
    assert not any(a.label == "Every row" for a in answer.alternatives)


def test_a_count_of_a_column_that_holds_counts_is_offered_as_its_total(tmp_path: Path) -> None:
    path = tmp_path / "school.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE course(course_id INTEGER, dept TEXT, num_students INTEGER, fee REAL);"
                           "INSERT INTO course VALUES (1,'art',30,5),(2,'art',12,6),(3,'law',40,7);")
    db = open_database(str(path))
    try:
        answer = _ask(db, "What is the total number of students in each dept?",
                      "SELECT dept, COUNT(num_students) FROM course GROUP BY dept")
        other = next(a for a in answer.alternatives if a.label == "Use SUM")
        assert sorted(_rows(db, other.sql)) == [("art", 42), ("law", 40)]
        # sorted by its alias: "total_students" names no column, so the question's "total" is still said
        sorted_by = _ask(db, "What is the total count of students in each dept?",
                         "SELECT dept, COUNT(num_students) AS total_students FROM course GROUP BY dept "
                         "ORDER BY total_students DESC")
        # (the alias check finds the same query first: it is offered once, under that check's label)
        assert [a.sql for a in sorted_by.alternatives if "SUM(num_students)" in a.sql]
        # the total number of courses: COUNT of a column that measures something else is the count asked for
        courses = _ask(db, "What is the total number of courses in each dept?",
                       "SELECT dept, COUNT(fee) FROM course GROUP BY dept")
        assert not any(a.label == "Use SUM" for a in courses.alternatives)
    finally:
        db.close()


def test_a_date_the_question_writes_and_the_query_reads_otherwise_is_offered(shop) -> None:
    answer = _ask(shop, "Total sales between Jan 1st and March 1st, 2021",
                  "SELECT SUM(amount) FROM sale WHERE sold_on BETWEEN '2021-01-01' AND '2021-02-01'")
    assert answer.rows[0][0] == 30  # the query that ran stays the answer
    other = next(a for a in answer.alternatives if a.label == "Read 2021-03-01")
    assert _rows(shop, other.sql) == [(35.0,)]


@pytest.mark.parametrize("where", ["sold_on >= '2021-01-01' AND sold_on < '2021-03-02'",  # the exclusive end
                                   "sold_on BETWEEN '2021-01-01' AND '2021-03-01 23:59:59'",
                                   "sold_on > '2020-12-31' AND sold_on <= '2021-03-01'"])  # the exclusive start
def test_a_range_written_with_the_next_day_or_a_time_is_the_same_range(shop, where: str) -> None:
    answer = _ask(shop, "Total sales from Jan 1st to March 1st, 2021", f"SELECT SUM(amount) FROM sale WHERE {where}")
    assert not any(a.label.startswith("Read 20") for a in answer.alternatives)


def test_dates_are_read_in_the_ways_people_write_them() -> None:
    from datetime import date

    from core.evidence._question_dates import said_dates

    assert said_dates("between jan 1, 2023 and 31st march 2023") == {date(2023, 1, 1), date(2023, 3, 31)}
    assert said_dates("ended in 2022 (from jan 1st to dec 31st)") == {date(2022, 1, 1), date(2022, 12, 31)}
    assert said_dates("sales in may 2023, 2022-02-30 or march 5") == set()  # a month, no such day, no year


def test_an_aggregate_the_words_do_not_say_is_offered_as_the_one_they_do(shop) -> None:
    average = _ask(shop, "average sale amount per town",
                   "SELECT c.town, SUM(s.amount) FROM sale s JOIN client c ON c.client_id = s.client_id GROUP BY c.town")
    assert [a.label for a in average.alternatives] == ["Use AVG"] and "AVG(s.amount)" in average.alternatives[0].sql
    highest = _ask(shop, "What is the highest sale amount?", "SELECT MIN(amount) FROM sale")
    assert _rows(shop, highest.alternatives[0].sql) == [(50.0,)]
    total = _ask(shop, "total amount of sales", "SELECT SUM(DISTINCT amount) FROM sale")
    assert total.alternatives[0].label == "Every row's value" and _rows(shop, total.alternatives[0].sql) == [(111.0,)]
    distinct = _ask(shop, "total of the distinct amounts", "SELECT SUM(DISTINCT amount) FROM sale")
    assert not distinct.alternatives  # the question asks for distinct values


def test_a_column_shown_in_place_of_the_one_the_question_names_is_offered(shop) -> None:
    answer = _ask(shop, "What are the emails of clients in Pune?", "SELECT full_name FROM client WHERE town = 'Pune'")
    assert [a.label for a in answer.alternatives] == ["Show email"]
    assert sorted(_rows(shop, answer.alternatives[0].sql)) == [("a@x.in",), ("c@x.in",)]
    per_year = _ask(shop, "number of sales in each year", "SELECT sale_id, COUNT(*) FROM sale GROUP BY sale_id")
    assert per_year.alternatives and "GROUP BY sale_year" in per_year.alternatives[0].sql


def test_a_table_shown_by_its_name_or_key_is_not_doubted(shop) -> None:
    for question, sql in (("Which clients live in Pune?", "SELECT full_name FROM client WHERE town = 'Pune'"),
                          ("Which clients live in Pune?", "SELECT client_id FROM client WHERE town = 'Pune'"),
                          ("emails of the clients in Pune", "SELECT email FROM client WHERE town = 'Pune'")):
        assert not _ask(shop, question, sql).alternatives


def test_a_year_or_a_span_written_otherwise_is_offered(shop) -> None:
    year = _ask(shop, "How many sales were made in 2021?",
                "SELECT COUNT(*) FROM sale WHERE sold_on BETWEEN '2022-01-01' AND '2022-12-31'")
    assert "2021-01-01" in year.alternatives[0].sql and _rows(shop, year.alternatives[0].sql) == [(4,)]
    forward = _ask(shop, "sales in the last 30 days", "SELECT COUNT(*) FROM sale WHERE sold_on >= date('now', '+30 days')")
    assert "-30 days" in forward.alternatives[0].sql and _rows(shop, forward.alternatives[0].sql) == [(1,)]
    weeks = _ask(shop, "sales in the last 2 weeks", "SELECT COUNT(*) FROM sale WHERE sold_on >= date('now', '-14 days')")
    assert not weeks.alternatives  # 2 weeks is 14 days
    on = _ask(shop, "sales in the past 30 days", "SELECT COUNT(*) FROM sale WHERE sold_on = date('now', '-30 days')")
    assert _rows(shop, on.alternatives[0].sql) == [(1,)]  # fresh25: "since" read as "on" that one day
    assert any("only the one day" in n for n in on.notes)
    exact = _ask(shop, "sales made exactly 3 days ago", "SELECT COUNT(*) FROM sale WHERE sold_on = date('now', '-3 days')")
    assert not exact.alternatives  # no span asked: the day is what the question says
    both = _ask(shop, "sales in the last 30 days by clients who joined exactly 30 days ago",
                "SELECT COUNT(*) FROM sale AS s JOIN client AS c ON c.client_id = s.client_id WHERE c.email = "
                "date('now', '-30 days') AND s.sold_on BETWEEN date('now', '-30 days') AND date('now')")
    assert not any("only the one day" in n for n in both.notes)  # the span is the BETWEEN's (attack 17)


def test_a_comparison_with_null_is_said_to_be_never_true(shop) -> None:
    answer = _ask(shop, "sales with no year", "SELECT sale_id FROM sale WHERE sale_year = NULL")
    assert answer.ok and answer.rows == ()
    assert any("is never true" in n for n in answer.notes)
    assert _rows(shop, answer.alternatives[0].sql) == [(8,)]


def test_with_a_model_the_finding_goes_to_its_review_and_the_first_query_is_offered(shop) -> None:
    wrong = "SELECT MIN(amount) FROM sale"
    answer = _ask(shop, "What is the highest sale amount?", wrong, again="SELECT MAX(amount) FROM sale")
    assert answer.ok and list(answer.rows) == [(50.0,)]
    assert [a.sql for a in answer.alternatives] == [wrong]


def test_a_question_the_reading_does_not_understand_checks_nothing(shop) -> None:
    for question in ("show me everything about Asha", "kya chal raha hai sales mein?", "sales by town pls"):
        assert not _ask(shop, question, "SELECT * FROM sale").alternatives


# --- the query's own names, conditions left out, OR for AND -----------------------------------------------------

@pytest.fixture()
def shops(tmp_path: Path):
    path = tmp_path / "shops.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE merchant(mid INTEGER, name TEXT, state TEXT, kind TEXT, rating REAL);"
            "INSERT INTO merchant VALUES (1,'Alpha','active','retail',4.5),(2,'Beta','closed','retail',3.0),"
            "(3,'Gamma','active','food',4.8),(4,'Delta','active','retail',2.0);"
            "CREATE TABLE payment(pid INTEGER, mid INTEGER, amount REAL);"
            "INSERT INTO payment VALUES (1,1,10),(2,1,30),(3,2,5),(4,3,7);"
        )
    db = open_database(str(path))
    yield db
    db.close()


def test_an_aggregate_its_own_alias_names_otherwise_is_offered(shops) -> None:
    answer = _ask(shops, "revenue per merchant",
                  "SELECT mid, COUNT(amount) AS total_revenue FROM payment GROUP BY mid")
    assert [a.label for a in answer.alternatives] == ["As the query names it"]
    assert sorted(_rows(shops, answer.alternatives[0].sql)) == [(1, 40.0), (2, 5.0), (3, 7.0)]
    for sql in ("SELECT mid, COUNT(pid) AS total_payments FROM payment GROUP BY mid",  # counting payments: meant
                "SELECT mid, COUNT(*) AS total FROM payment GROUP BY mid",
                "SELECT mid, SUM(amount) AS total_amount FROM payment GROUP BY mid"):
        assert not _ask(shops, "payments per merchant", sql).alternatives


def test_columns_named_for_totals_in_a_query_that_aggregates_nothing_are_offered_as_totals(shops) -> None:
    answer = _ask(shops, "revenue and payments per merchant", "SELECT m.name, p.amount AS total_revenue, p.pid AS "
                  "num_payments, p.mid AS unique_merchants FROM payment p JOIN merchant m ON m.mid = p.mid")
    other = next(a for a in answer.alternatives if a.label == "Totals as the query names them")
    assert sorted(_rows(shops, other.sql)) == [("Alpha", 40.0, 2, 1), ("Beta", 5.0, 1, 1), ("Gamma", 7.0, 1, 1)]
    listed = _ask(shops, "each payment", "SELECT p.pid AS payment_id, p.amount AS amount FROM payment p")
    assert not any(a.label.startswith("Totals") for a in listed.alternatives)  # names of one row's values


def test_a_column_the_question_asks_to_return_and_the_query_leaves_out_is_offered(shops) -> None:
    answer = _ask(shops, "Which merchants have payments? Return the merchant id, name and kind.",
                  "SELECT DISTINCT m.mid, m.name FROM merchant m JOIN payment p ON p.mid = m.mid")
    assert [a.label for a in answer.alternatives] == ["Also show kind"]  # "the merchant id" asks for mid
    assert [row[:2] for row in sorted(_rows(shops, answer.alternatives[0].sql))] == [(1, "Alpha"), (2, "Beta"),
                                                                                     (3, "Gamma")]
    assert "m.kind" in answer.alternatives[0].sql
    split = _ask(shops, "Total payments per state, split by the kind", "SELECT m.state, SUM(p.amount) FROM payment p "
                 "JOIN merchant m ON m.mid = p.mid GROUP BY m.state, m.kind")  # grouped by it, never shown
    assert any(a.label == "Also show kind" for a in split.alternatives)
    for question, sql in (("Return each merchant's name and total revenue",  # the alias says revenue
                           "SELECT m.name, SUM(p.amount) AS total_revenue FROM merchant m JOIN payment p ON "
                           "p.mid = m.mid GROUP BY m.name"),
                          ("Return the names of retail merchants", "SELECT name FROM merchant WHERE kind = 'retail'")):
        assert not any(a.label.startswith("Also show") for a in _ask(shops, question, sql).alternatives)


def test_a_key_shown_where_the_question_names_its_table_is_offered_with_the_tables_label(shops) -> None:
    sql = ("SELECT p.mid, SUM(p.amount) AS revenue FROM payment p JOIN merchant m ON m.mid = p.mid GROUP BY p.mid")
    other = next(a for a in _ask(shops, "Revenue of each merchant", sql).alternatives
                 if a.label == "Also show merchant's name")
    assert sorted(_rows(shops, other.sql)) == [(1, "Alpha", 40.0), (2, "Beta", 5.0), (3, "Gamma", 7.0)]
    ids = _ask(shops, "Revenue per merchant id", sql)  # the ids are what is asked
    assert not any(a.label.startswith("Also show merchant") for a in ids.alternatives)


def test_a_limit_with_no_order_where_the_question_ranks_is_offered_ranked_by_the_measure_it_names(shops) -> None:
    answer = _ask(shops, "The top 2 merchants by total revenue", "SELECT m.name, COUNT(*) AS payments, SUM(p.amount) "
                  "AS total_revenue FROM merchant m JOIN payment p ON p.mid = m.mid GROUP BY m.name LIMIT 2")
    other = next(a for a in answer.alternatives if a.label == "Ranked by total_revenue")
    assert _rows(shops, other.sql) == [("Alpha", 2, 40.0), ("Gamma", 1, 7.0)]
    listed = _ask(shops, "Some merchants", "SELECT name FROM merchant LIMIT 2")  # no ranking asked: no order offered
    assert not any(a.label.startswith("Ranked by") for a in listed.alternatives)


def test_a_top_n_question_answered_with_every_row_unranked_is_offered_ranked_and_cut(shops) -> None:
    """"The top 2 … by total revenue" and a query with no ORDER BY and no LIMIT (each measure from its own derived
    table, joined on the group): offered ranked by the measure the words name and cut to 2."""
    sql = ("SELECT a.name, a.payments, b.total_revenue FROM (SELECT m.name, COUNT(*) AS payments FROM merchant m JOIN "
           "payment p ON p.mid = m.mid GROUP BY m.name) a JOIN (SELECT m.name, SUM(p.amount) AS total_revenue FROM "
           "merchant m JOIN payment p ON p.mid = m.mid GROUP BY m.name) b ON a.name = b.name")
    answer = _ask(shops, "The top 2 merchants by total revenue, with their number of payments", sql)
    assert len(answer.rows) == 3  # the query as written stays the answer
    other = next(a for a in answer.alternatives if a.label == "Top 2 by total_revenue")
    assert _rows(shops, other.sql) == [("Alpha", 2, 40.0), ("Gamma", 1, 7.0)]
    for question in ("Total revenue of each merchant", "The top 2 merchants in each state by total revenue",
                     "The top 2 fastest merchants by total revenue"):  # no number from one end, per group, or a
        # superlative that decides the direction: nothing offered
        assert not any(a.label.startswith("Top 2") for a in _ask(shops, question, sql).alternatives), question


def test_an_offset_the_question_does_not_ask_for_is_offered_without_it(shops) -> None:
    top = _ask(shops, "The top 2 merchants by rating", "SELECT name FROM merchant ORDER BY rating DESC LIMIT 2 OFFSET 1")
    other = next(a for a in top.alternatives if a.label == "Without the OFFSET")
    assert _rows(shops, other.sql) == [("Gamma",), ("Alpha",)]
    for question in ("The second highest rated merchant", "Merchants after the top 1, by rating", "page 2 of merchants"):
        asked = _ask(shops, question, "SELECT name FROM merchant ORDER BY rating DESC LIMIT 1 OFFSET 1")
        assert not any(a.label == "Without the OFFSET" for a in asked.alternatives)


def test_a_condition_the_question_says_and_the_query_leaves_out_is_offered(shops) -> None:
    value = _ask(shops, "How many active retail merchants are there?",
                 "SELECT COUNT(*) FROM merchant WHERE kind = 'retail'")
    assert [a.label for a in value.alternatives] == ["Only active"]
    assert _rows(shops, value.alternatives[0].sql) == [(2,)]
    bound = _ask(shops, "names of merchants with a rating higher than 4", "SELECT name FROM merchant")
    assert [a.label for a in bound.alternatives] == ["Add the condition"]
    assert sorted(_rows(shops, bound.alternatives[0].sql)) == [("Alpha",), ("Gamma",)]


def test_or_between_two_columns_is_offered_as_and_when_the_question_says_no_or(shops) -> None:
    sql = "SELECT name FROM merchant WHERE state = 'active' OR kind = 'retail'"
    answer = _ask(shops, "retail merchants that are active", sql)
    assert [a.label for a in answer.alternatives] == ["Both conditions (AND)"]
    assert sorted(_rows(shops, answer.alternatives[0].sql)) == [("Alpha",), ("Delta",)]
    assert not _ask(shops, "merchants that are active or retail", sql).alternatives
    same_column = "SELECT name FROM merchant WHERE kind = 'retail' OR kind = 'food'"
    assert not _ask(shops, "retail and food merchants", same_column).alternatives


def test_a_span_written_from_a_fixed_date_is_offered_from_today(shop) -> None:
    answer = _ask(shop, "How many sales in the last 30 days?", "SELECT COUNT(*) FROM sale WHERE sold_on >= '2021-06-01'")
    assert [a.label for a in answer.alternatives] == ["The last 30 days"]
    assert "now" in answer.alternatives[0].sql and _rows(shop, answer.alternatives[0].sql) == [(1,)]
    kept = _ask(shop, "How many sales in the last 30 days?",
                "SELECT COUNT(*) FROM sale WHERE sold_on >= date('now', '-30 days')")
    assert not kept.alternatives


def test_a_grouping_at_another_period_than_the_question_s_is_offered(shop) -> None:
    answer = _ask(shop, "total sale amount per month", "SELECT strftime('%Y', sold_on) AS y, SUM(amount) FROM sale "
                  "GROUP BY y")
    assert [a.label for a in answer.alternatives] == ["Per month"] and "%Y-%m" in answer.alternatives[0].sql
    same = _ask(shop, "total sale amount per month in 2021", "SELECT strftime('%m', sold_on) AS m, SUM(amount) "
                "FROM sale WHERE sold_on LIKE '2021%' GROUP BY m")
    assert not same.alternatives  # the month of the year, within one year: months


def test_attack_round_20_a_top_n_that_keeps_its_ties_by_the_number_asked_is_not_doubted(shops) -> None:
    sql = ("SELECT m.name FROM merchant m WHERE (SELECT COUNT(*) FROM merchant t WHERE t.rating > m.rating) < 2")
    answer = _ask(shops, "The top 2 merchants by rating", sql)
    assert not [a for a in answer.alternatives if a.label.startswith("Top 2")]
