"""Queries that run and cannot mean what they say, by their own shape (core.evidence, round of issue 27): a GROUP BY
column not shown that splits the rows shown, a date part compared with a value it never takes, a range that starts
after its end, a literal no row holds where the question names one the column does, a ratio at the other scale or
the other way up. Each is offered, never enforced: the query that ran stays the answer. Real SQLite and the embedded
PostgreSQL sample through Cairn's backends; the model is scripted.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.databases import open_database
from tests.scripted_asking import ask as _ask
from tests.scripted_asking import sorted_rows as _rows


@pytest.fixture()
def shop(tmp_path: Path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:  # no declared keys
        conn.executescript(
            "CREATE TABLE client(client_id INTEGER, full_name TEXT, town TEXT, state TEXT);"
            "CREATE TABLE sale(sale_id INTEGER, client_id INTEGER, amount REAL, cost REAL, sold_on TEXT, "
            "channel TEXT);"
            "INSERT INTO client VALUES (1,'Asha','Pune','MH'),(2,'Bilal','Agra','UP'),(3,'Chen','Nagpur','MH');"
            "INSERT INTO sale VALUES (1,1,10,4,'2021-01-02',' web'),(2,1,20,5,'2021-02-01','Walk In'),"
            "(3,2,5,1,'2021-03-06','Walk In'),(4,3,50,10,'2022-01-01','Phone Order'),(5,1,7,2,'2022-01-05','web');"
        )
    db = open_database(str(path))
    yield db
    db.close()


def test_a_hidden_grouping_column_that_splits_the_rows_shown_is_offered_without_it(shop) -> None:
    answer = _ask(shop, "How many clients are there in each state?",
                  "SELECT state, COUNT(*) AS n FROM client GROUP BY state, town")
    assert answer.ok and sorted(answer.rows) == [("MH", 1), ("MH", 1), ("UP", 1)]  # the answer stays
    other = next(a for a in answer.alternatives if a.label.startswith("Not split by"))
    assert _rows(shop, other.sql) == [("MH", 2), ("UP", 1)]
    assert "does not show" in other.why
    # a key beside its label keeps namesakes apart: not doubted; nor a grouping whose rows shown are all different
    for sql in ("SELECT full_name, COUNT(*) FROM sale s JOIN client c ON c.client_id = s.client_id "
                "GROUP BY c.client_id, full_name",
                "SELECT town, COUNT(*) FROM client GROUP BY town, state"):
        assert not any(a.label.startswith("Not split by") for a in _ask(shop, "sales per client", sql).alternatives)


def test_a_date_part_compared_with_a_value_it_never_takes_is_offered_as_the_part_that_takes_it(shop) -> None:
    answer = _ask(shop, "Total sales in 2021?",
                  "SELECT SUM(amount) FROM sale WHERE CAST(strftime('%m', sold_on) AS INTEGER) = 2021")
    other = next(a for a in answer.alternatives if a.label == "Compare the year")
    assert _rows(shop, other.sql) == [(35.0,)]
    weekend = _ask(shop, "How many sales were made on weekends?",
                   "SELECT COUNT(*) FROM sale WHERE CAST(strftime('%d', sold_on) AS INTEGER) IN (0, 6)")
    other = next(a for a in weekend.alternatives if a.label == "Compare the day of the week")
    assert "'%w'" in other.sql and _rows(shop, other.sql) == [(3,)]
    # values that several parts take, and words that name none of them: nothing is guessed
    vague = _ask(shop, "How many sales?", "SELECT COUNT(*) FROM sale WHERE CAST(strftime('%d', sold_on) AS INTEGER) "
                 "IN (0, 6)")
    assert not any(a.label.startswith("Compare the") for a in vague.alternatives)


def test_a_postgres_date_part_and_a_range_that_starts_after_its_end(db) -> None:
    answer = _ask(db, "How many orders were placed in 2025?",
                  "SELECT COUNT(*) FROM orders WHERE EXTRACT(MONTH FROM order_date) = 2025")
    assert any("EXTRACT(YEAR FROM order_date)" in a.sql for a in answer.alternatives)
    empty = _ask(db, "Orders in the 30 days before the newest order",
                 "SELECT COUNT(*) FROM orders WHERE order_date >= (SELECT MAX(order_date) FROM orders) "
                 "AND order_date < DATE '2024-03-01' + INTERVAL '30 days' AND order_date >= DATE '2024-03-01' "
                 "+ INTERVAL '60 days'")
    assert empty.ok  # bounds from both sides beside a subquery: read, not crashed on
    window = _ask(db, "How many orders in the previous month?",
                  "SELECT COUNT(*) FROM orders WHERE order_date >= DATE_TRUNC('month', CURRENT_DATE) + INTERVAL "
                  "'1 month' AND order_date < DATE_TRUNC('month', CURRENT_DATE)")
    assert list(window.rows) == [(0,)]
    other = next(a for a in window.alternatives if "turned the other way" in a.why)
    assert db.execute(other.sql).rows[0][0] == db.execute(
        "SELECT COUNT(*) FROM orders WHERE order_date >= DATE_TRUNC('month', CURRENT_DATE) - INTERVAL '1 month' "
        "AND order_date < DATE_TRUNC('month', CURRENT_DATE)").rows[0][0] > 0


def test_sqlite_range_with_a_date_modifier_the_wrong_way_and_one_with_its_bounds_swapped(shop) -> None:
    answer = _ask(shop, "Sales in the 40 days before 2021-03-01",
                  "SELECT COUNT(*) FROM sale WHERE sold_on >= date('2021-03-01', '+40 days') AND sold_on < '2021-03-01'")
    other = next(a for a in answer.alternatives if "turned the other way" in a.why)
    assert "'-40 days'" in other.sql and _rows(shop, other.sql) == [(1,)]
    swapped = _ask(shop, "Sales between January and February 2021",
                   "SELECT COUNT(*) FROM sale WHERE sold_on >= '2021-02-28' AND sold_on <= '2021-01-01'")
    other = next(a for a in swapped.alternatives if "bounds swapped" in a.why)
    assert _rows(shop, other.sql) == [(2,)]
    same_day = _ask(shop, "Sales on 2 January 2021",
                    "SELECT COUNT(*) FROM sale WHERE sold_on >= '2021-01-02' AND sold_on <= '2021-01-02'")
    assert not any("keeps no row" in a.why for a in same_day.alternatives)  # one day, both ends kept: a range


def test_a_literal_no_row_holds_is_offered_as_the_value_the_question_names(shop) -> None:
    answer = _ask(shop, "Total amount of sales made through 'Phone Order'?",
                  "SELECT SUM(amount) FROM sale WHERE channel = 'Telephone'")
    other = next(a for a in answer.alternatives if a.label == "sale.channel = 'Phone Order'")
    assert _rows(shop, other.sql) == [(50.0,)]
    # a value some row holds is left as written, whatever the question names
    held = _ask(shop, "Total amount of sales made through 'Phone Order'?",
                "SELECT SUM(amount) FROM sale WHERE channel = 'Walk In'")
    assert not any(a.label.startswith("sale.channel =") for a in held.alternatives)


def test_a_ratio_at_the_other_scale_or_the_other_way_up_is_offered(shop) -> None:
    ratio = _ask(shop, "What is the ratio of cost to amount across all sales?",
                 "SELECT 100.0 * SUM(cost) / SUM(amount) AS r FROM sale")
    other = next(a for a in ratio.alternatives if a.label == "As a ratio, not × 100")
    assert _rows(shop, other.sql) == [(pytest.approx(22 / 92),)]
    percent = _ask(shop, "What percentage of sales came from Pune clients?",
                   "SELECT CAST(SUM(CASE WHEN c.town = 'Pune' THEN 1 ELSE 0 END) AS REAL) / COUNT(*) AS share "
                   "FROM sale s JOIN client c ON c.client_id = s.client_id")
    other = next(a for a in percent.alternatives if a.label == "As a percentage, × 100")
    assert _rows(shop, other.sql) == [(60.0,)]
    upside_down = _ask(shop, "What is the ratio of cost to amount across all sales?",
                       "SELECT SUM(amount) / SUM(cost) AS r FROM sale")
    other = next(a for a in upside_down.alternatives if a.label == "The ratio the other way up")
    assert _rows(shop, other.sql) == [(pytest.approx(22 / 92),)]
    # a percentage asked and written as one, a ratio asked and written as one: nothing to say
    for question, sql in (("What percentage of sales are above 10?", "SELECT 100.0 * SUM(amount > 10) / COUNT(*) "
                           "FROM sale"), ("ratio of cost to amount", "SELECT SUM(cost) / SUM(amount) FROM sale")):
        assert not any(a.label.startswith(("As a", "The ratio")) for a in _ask(shop, question, sql).alternatives)


def test_a_date_column_the_words_never_name_is_offered_as_the_one_they_do(tmp_path: Path) -> None:
    path = tmp_path / "dealer.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE sales(id INTEGER, price REAL, sale_date TEXT, crtd_ts TEXT);"
            "CREATE TABLE staff(id INTEGER, name TEXT, hire_date TEXT, termination_date TEXT, crtd_ts TEXT);"
            "INSERT INTO sales VALUES (1,10,'2023-01-05','2022-12-01'),(2,20,'2023-02-05','2023-02-01'),"
            "(3,30,'2023-03-05','2023-01-20');"
            "INSERT INTO staff VALUES (1,'Ana','2020-01-01','2020-03-01','2019-12-01'),"
            "(2,'Raj','2021-01-01','2022-01-01','2019-01-01');")
    db = open_database(str(path))
    try:
        answer = _ask(db, "Total sales in January 2023?", "SELECT SUM(price) FROM sales WHERE crtd_ts >= '2023-01-01' "
                      "AND crtd_ts < '2023-02-01'")
        other = next(a for a in answer.alternatives if a.label == "Use sale_date")
        assert _rows(db, other.sql) == [(10.0,)]
        staff = _ask(db, "Who had the shortest time from hire to termination?",
                     "SELECT name FROM staff ORDER BY julianday(crtd_ts) - julianday(hire_date) LIMIT 1")
        assert any(a.label == "Use termination_date" for a in staff.alternatives), (staff.notes, staff.alternatives)
        # the words name the column used ("created"): nothing to say
        created = _ask(db, "Sales records created in January 2023", "SELECT id FROM sales WHERE crtd_ts >= "
                       "'2023-01-01' AND crtd_ts < '2023-02-01'")
        assert not any(a.label.startswith("Use ") for a in created.alternatives)
    finally:
        db.close()


def test_a_value_no_row_of_its_column_holds_is_offered_on_the_one_other_column_of_its_table_that_does(shop) -> None:
    answer = _ask(shop, "How many clients are in MH?", "SELECT COUNT(*) FROM client WHERE town = 'MH'")
    assert list(answer.rows) == [(0,)]
    other = next(a for a in answer.alternatives if a.label == "Filter on state")
    assert _rows(shop, other.sql) == [(2,)]
    # held by the column as written: nothing to say; held by no column, or by two: nothing offered
    for sql in ("SELECT COUNT(*) FROM client WHERE town = 'Pune'", "SELECT COUNT(*) FROM client WHERE town = 'Goa'"):
        assert not any(a.label.startswith("Filter on") for a in _ask(shop, "clients", sql).alternatives)


def test_rows_without_a_match_asked_for_with_a_left_join_that_tests_nothing_are_offered(shop) -> None:
    answer = _ask(shop, "Which clients have not bought anything?",
                  "SELECT c.full_name FROM client c LEFT JOIN sale s ON s.client_id = c.client_id")
    other = next(a for a in answer.alternatives if a.label == "Rows without a match")
    assert "s.client_id IS NULL" in other.sql and _rows(shop, other.sql) == []  # every client bought
    # a question without a negation, or a LEFT JOIN whose table is counted: nothing to say
    for question, sql in (("Clients and their sales", "SELECT c.full_name FROM client c LEFT JOIN sale s ON "
                                                      "s.client_id = c.client_id"),
                          ("Clients with no sales counted as zero", "SELECT c.full_name, COUNT(s.sale_id) FROM client "
                           "c LEFT JOIN sale s ON s.client_id = c.client_id GROUP BY c.full_name")):
        assert not any(a.label == "Rows without a match" for a in _ask(shop, question, sql).alternatives)


def test_a_value_two_tables_hold_is_read_as_the_one_the_question_names_after_it(tmp_path: Path) -> None:
    path = tmp_path / "wallet.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE merchants(mid INTEGER, name TEXT, status TEXT);"
            "CREATE TABLE coupons(cid INTEGER, merchant_id INTEGER, status TEXT);"
            "INSERT INTO merchants VALUES (1,'A','active'),(2,'B','inactive');"
            "INSERT INTO coupons VALUES (1,1,'active'),(2,2,'active'),(3,2,'inactive');")
    db = open_database(str(path))
    try:
        answer = _ask(db, "Count the coupons of active merchants", "SELECT COUNT(c.cid) FROM merchants m "
                      "JOIN coupons c ON m.mid = c.merchant_id")
        other = next(a for a in answer.alternatives if a.label == "Only active")
        assert "m.status = 'active'" in other.sql and _rows(db, other.sql) == [(1,)]
    finally:
        db.close()


def test_a_top_n_ordered_by_a_label_is_offered_ranked_by_the_measure_the_words_name(shop) -> None:
    answer = _ask(shop, "Top 1 town by total amount, with the number of sales",
                  "SELECT c.town, COUNT(*) AS number_of_sales, SUM(s.amount) AS total_amount FROM sale s JOIN client c "
                  "ON c.client_id = s.client_id GROUP BY c.town ORDER BY c.town DESC LIMIT 1")
    other = next(a for a in answer.alternatives if a.label == "Rank by total_amount")
    assert _rows(shop, other.sql) == [("Nagpur", 1, 50.0)]
    ranked = _ask(shop, "Top 1 town by total amount", "SELECT c.town, SUM(s.amount) AS total_amount FROM sale s JOIN "
                  "client c ON c.client_id = s.client_id GROUP BY c.town ORDER BY total_amount DESC LIMIT 1")
    assert not any(a.label.startswith("Rank by") for a in ranked.alternatives)


def test_an_average_rounded_to_a_whole_number_unasked_is_offered_with_its_fraction(shop) -> None:
    answer = _ask(shop, "Average amount per client", "SELECT client_id, ROUND(AVG(amount)) AS avg_amount FROM sale "
                  "GROUP BY client_id")
    other = next(a for a in answer.alternatives if a.label == "With its fraction")
    assert (1, pytest.approx(37 / 3)) in _rows(shop, other.sql)
    asked = _ask(shop, "Average amount per client, rounded", "SELECT client_id, ROUND(AVG(amount)) FROM sale "
                 "GROUP BY client_id")
    assert not any(a.label == "With its fraction" for a in asked.alternatives)


def test_each_value_rounded_before_a_sum_unasked_is_offered_unrounded(tmp_path: Path) -> None:
    path = tmp_path / "scores.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE score(player TEXT, points REAL);"
                           "INSERT INTO score VALUES ('a', 1.4), ('a', 1.4), ('b', 2.6);")
    db = open_database(str(path))
    try:
        answer = _ask(db, "Total points per player", "SELECT player, SUM(ROUND(points)) AS total FROM score "
                      "GROUP BY player")
        other = next(a for a in answer.alternatives if a.label == "Without rounding each value")
        assert sorted(_rows(db, other.sql)) == [("a", pytest.approx(2.8)), ("b", pytest.approx(2.6))]
        asked = _ask(db, "Total points per player, each rounded to the nearest whole number",
                     "SELECT player, SUM(ROUND(points)) AS total FROM score GROUP BY player")
        assert not any(a.label == "Without rounding each value" for a in asked.alternatives)
    finally:
        db.close()


def test_an_id_shown_under_another_table_s_name_is_offered_as_that_table_s_key(shop) -> None:
    answer = _ask(shop, "Client ids with a sale", "SELECT DISTINCT s.sale_id AS client_id FROM client c JOIN sale s "
                  "ON s.client_id = c.client_id")
    other = next(a for a in answer.alternatives if a.label == "Show c.client_id")
    assert _rows(shop, other.sql) == [(1,), (2,), (3,)]


def test_one_total_where_the_question_splits_is_offered_per_the_column_it_names(shop) -> None:
    answer = _ask(shop, "How many clients are there in each town?", "SELECT COUNT(*) AS n FROM client")
    other = next(a for a in answer.alternatives if a.label == "Per town")
    assert _rows(shop, other.sql) == [("Agra", 1), ("Nagpur", 1), ("Pune", 1)]
    total = _ask(shop, "How many clients are there?", "SELECT COUNT(*) AS n FROM client")
    assert not any(a.label.startswith("Per ") for a in total.alternatives)


def test_one_total_where_the_question_splits_by_a_table_is_offered_per_its_key_and_label(shop) -> None:
    each = _ask(shop, "What is the total amount spent by each client?", "SELECT SUM(s.amount) AS total FROM sale s "
                "JOIN client c ON c.client_id = s.client_id")  # "each client" names the table: its key and its name
    other = next(a for a in each.alternatives if a.label == "Per client_id and full_name")
    assert _rows(shop, other.sql) == [(1, "Asha", 37.0), (2, "Bilal", 5.0), (3, "Chen", 50.0)]
    top = _ask(shop, "Which client spent the most?", "SELECT SUM(s.amount) AS total FROM sale s JOIN client c ON "
               "c.client_id = s.client_id LIMIT 1")  # the thing ranked is the split, ranked by the total
    assert db_rows(shop, next(a for a in top.alternatives if a.label.startswith("Per client_id")).sql) == [
        (3, "Chen", 50.0)]
    every = _ask(shop, "What is the total amount of every sale?", "SELECT SUM(amount) FROM sale")  # all of them
    assert not any(a.label.startswith("Per ") for a in every.alternatives)
    year = _ask(shop, "How many sales were there for each sale_year?", "SELECT COUNT(*) FROM sale")
    assert not any(a.label.startswith("Per ") for a in year.alternatives)  # no column holds it: nothing offered


def test_a_rank_per_group_nothing_reads_is_offered_keeping_each_groups_first_row(shop) -> None:
    latest = ("WITH ranked AS (SELECT client_id, amount, ROW_NUMBER() OVER (PARTITION BY client_id ORDER BY sold_on "
              "DESC) AS rn FROM sale) SELECT client_id, amount FROM ranked")
    answer = _ask(shop, "Each client's latest sale amount", latest)
    other = next(a for a in answer.alternatives if a.label == "Only the first row per client_id")
    assert _rows(shop, other.sql) == [(1, 7.0), (2, 5.0), (3, 50.0)]
    derived = _ask(shop, "Each client's latest sale amount", "SELECT t.client_id, t.amount FROM (SELECT client_id, "
                   "amount, RANK() OVER (PARTITION BY client_id ORDER BY sold_on DESC) AS r FROM sale) AS t")
    assert any(a.label == "Only the first row per client_id" for a in derived.alternatives)
    kept = _ask(shop, "Each client's latest sale amount", latest + " WHERE rn = 1")  # read: nothing to say
    numbered = _ask(shop, "Number each client's sales", latest.replace("SELECT client_id, amount FROM ranked",
                                                                       "SELECT * FROM ranked"))  # shown: asked for
    assert not any(a.label.startswith("Only the first row") for a in [*kept.alternatives, *numbered.alternatives])


def db_rows(db, sql: str) -> list[tuple]:
    return [tuple(r) for r in db.execute(sql).rows]


def test_a_between_whose_start_is_after_its_end_is_offered_turned_round(shop) -> None:
    answer = _ask(shop, "Sales in the 40 days before 2021-03-01", "SELECT COUNT(*) FROM sale WHERE sold_on BETWEEN "
                  "date('2021-03-01', '+40 days') AND '2021-03-01'")
    other = next(a for a in answer.alternatives if "turned the other way" in a.why)
    assert _rows(shop, other.sql) == [(1,)]  # 2021-01-20 to 2021-03-01
    swapped = _ask(shop, "Sales in early 2021", "SELECT COUNT(*) FROM sale WHERE sold_on BETWEEN '2021-02-28' AND "
                   "'2021-01-01'")  # literal bounds the wrong way round: swapped by the guard, as a guess
    assert swapped.rows == ((2,),) and any("bounds swapped" in n and "(a guess)" in n for n in swapped.notes)


def test_an_id_under_its_own_table_s_name_and_a_bare_by_are_not_doubted(shop) -> None:
    own = _ask(shop, "Clients with no sale", "SELECT c.client_id AS client_id FROM client c LEFT JOIN sale s ON "
               "s.client_id = c.client_id WHERE s.sale_id IS NULL")
    assert not any(a.label.startswith("Show ") for a in own.alternatives)
    by = _ask(shop, "How many sales were made by clients from Pune?", "SELECT COUNT(*) FROM sale s JOIN client c ON "
              "c.client_id = s.client_id WHERE c.town = 'Pune'")
    assert not any(a.label.startswith("Per ") for a in by.alternatives)


def test_a_range_written_as_its_two_ends_is_offered_whole(shop) -> None:
    answer = _ask(shop, "Sales with an amount between 5 and 20", "SELECT sale_id FROM sale WHERE amount IN (5, 20)")
    other = next(a for a in answer.alternatives if a.label == "The whole range")
    assert sorted(_rows(shop, other.sql)) == [(1,), (2,), (3,), (5,)]
    listed = _ask(shop, "Sales with an amount of 5 or 20", "SELECT sale_id FROM sale WHERE amount IN (5, 20)")
    assert not any(a.label == "The whole range" for a in listed.alternatives)


def test_a_ratio_asked_and_nothing_divided_is_said(shop) -> None:
    answer = _ask(shop, "What is the ratio of web sales to all sales?",
                  "SELECT COUNT(CASE WHEN channel = 'web' THEN 1 END) AS web_ratio FROM sale")
    assert any("divides nothing" in n for n in answer.notes)
    divided = _ask(shop, "What is the ratio of web sales to all sales?",
                   "SELECT AVG(CASE WHEN channel = 'web' THEN 1.0 ELSE 0 END) AS web_ratio FROM sale")
    assert not any("divides nothing" in n for n in divided.notes)


def test_a_divisor_with_one_added_unasked_is_offered_as_the_ratio_itself(shop) -> None:
    answer = _ask(shop, "Average amount per sale for each client",
                  "SELECT client_id, SUM(amount) / (COUNT(*) + 1) AS avg_amount FROM sale GROUP BY client_id")
    other = next(a for a in answer.alternatives if a.label == "The ratio itself")
    assert (2, 5.0) in _rows(shop, other.sql)


@pytest.mark.parametrize(("question", "sql", "label", "whole"), [
    ("What is the total session duration in seconds for each user?",
     "SELECT user_id, SUM(EXTRACT(SECOND FROM end_ts - start_ts)) AS secs FROM sessions GROUP BY user_id",
     "The whole length in seconds", [(1, 3630.0), (2, 90.0)]),
    ("How many minutes did each session last?",
     "SELECT id, EXTRACT(MINUTE FROM (end_ts - start_ts)) AS mins FROM sessions",
     "The whole length in minutes", [(1, 60.0), (2, 0.5), (3, 1.5)]),
])
def test_the_seconds_field_of_a_length_of_time_is_offered_as_the_whole_length(tmp_path: Path, question, sql, label,
                                                                               whole) -> None:
    path = tmp_path / "sessions.csv"
    path.write_text("id,user_id,start_ts,end_ts\n1,1,2023-06-01 10:00:00,2023-06-01 11:00:00\n"
                    "2,1,2023-06-01 12:00:00,2023-06-01 12:00:30\n3,2,2023-06-02 09:00:00,2023-06-02 09:01:30\n")
    db = open_database(str(path))
    try:
        answer = _ask(db, question, sql)
        assert answer.ok  # the query that ran stays the answer
        (other,) = [a for a in answer.alternatives if a.label == label]
        assert "field" in other.why
        assert sorted((r[0], float(r[1])) for r in db.execute(other.sql).rows) == whole
        kept = _ask(db, "The seconds part of each session's length", sql.replace("MINUTE", "SECOND"))
        assert not [a for a in kept.alternatives if a.label.startswith("The whole length")]
    finally:
        db.close()

