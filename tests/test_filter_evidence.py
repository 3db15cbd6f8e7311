"""Filters and dates that answer another question than the one asked (core.evidence: ``_question_filters``,
``_question_dates``, ``_values.format_evidence``).

A filter the question never asks for, a filter on a column the question does not name, a count from a fixed date
where the question counts from today, a date format that can never equal the text it is compared with, and "per
month" grouped by the month of the year over several years: each is said on the answer with both results and the
other query offered; the query that ran stays the answer. Real SQLite through Cairn's backend; the model is scripted.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlglot

from core.config import Settings
from core.databases import open_database
from core.evidence._asked import read_question
from core.evidence._question_values import missing_quoted
from core.pipeline import AskPipeline
from tests.fakes.scripted_llm import ScriptedLLM


@pytest.fixture()
def garage(tmp_path: Path):
    path = tmp_path / "garage.sqlite"
    with sqlite3.connect(path) as conn:  # no declared keys
        conn.executescript(
            "CREATE TABLE vehicle(vehicle_id INTEGER, maker TEXT, fuel TEXT, seats INTEGER, top_speed INTEGER,"
            " state TEXT);"
            "CREATE TABLE repair(repair_id INTEGER, vehicle_id INTEGER, cost REAL, done_on TEXT, logged_at TEXT);"
            "INSERT INTO vehicle VALUES (1,'Tata','diesel',5,160,'MH'),(2,'Maruti','petrol',4,150,'KA'),"
            "(3,'Tata','petrol',7,210,'MH'),(4,'Honda','electric',5,230,'DL');"
            "INSERT INTO repair VALUES (1,1,100,'2022-01-10','2020-01-01'),(2,1,50,'2023-01-21','2020-01-01'),"
            "(3,2,70,'2023-02-03','2020-01-01'),(4,3,20,'2023-03-15','2020-01-01');"
            "INSERT INTO repair VALUES (5,4,30,date('now','-2 days'),'2020-01-01'),"
            "(6,2,40,date('now','-400 days'),'2020-01-01');"
        )
    db = open_database(str(path))
    yield db
    db.close()


def _ask(db, question: str, sql: str):
    return AskPipeline(db, ScriptedLLM(sql, sql, sql, sql), Settings()).ask(question)


def _labels(answer) -> list[str]:
    return [a.label for a in answer.alternatives]


# --- a filter the question does not ask for --------------------------------------------------------------------------

def test_a_text_filter_nobody_asked_for_is_said_and_the_query_without_it_offered(garage) -> None:
    answer = _ask(garage, "How many vehicles does each maker have?",
                  "SELECT maker, COUNT(*) FROM vehicle WHERE fuel = 'petrol' GROUP BY maker")
    assert answer.ok and sorted(answer.rows) == [("Maruti", 1), ("Tata", 1)]  # the query that ran stays
    assert "Without fuel = 'petrol'" in _labels(answer)
    other = next(a for a in answer.alternatives if a.label.startswith("Without"))
    assert sorted(garage.execute(other.sql).rows) == [("Honda", 1), ("Maruti", 1), ("Tata", 2)]


@pytest.mark.parametrize("question", [
    "How many petrol vehicles does each maker have?",      # the value is said
    "Vehicles per maker by fuel type, only petrol",        # said with other words around it
    "Petrol gaadiyan har maker ki kitni hain?",            # Hindi-English
])
def test_a_filter_the_question_says_is_not_doubted(garage, question) -> None:
    answer = _ask(garage, question, "SELECT maker, COUNT(*) FROM vehicle WHERE fuel = 'petrol' GROUP BY maker")
    assert not any(label.startswith("Without") for label in _labels(answer))


def test_a_state_code_is_said_by_the_state_s_name(garage) -> None:
    answer = _ask(garage, "vehicles registered in Maharashtra", "SELECT vehicle_id FROM vehicle WHERE state = 'MH'")
    assert not any(label.startswith("Without") for label in _labels(answer))


def test_a_filter_the_conversation_explains_is_not_doubted(garage) -> None:
    sql = "SELECT maker, COUNT(*) FROM vehicle WHERE fuel = 'electric' GROUP BY maker"
    answer = AskPipeline(garage, ScriptedLLM(sql, sql, sql, sql), Settings()).ask(
        "How many green vehicles per maker?", conversation=["User: by green I mean the electric ones"])
    assert not any(label.startswith("Without") for label in _labels(answer))


# --- a filter on a column the question does not name -----------------------------------------------------------------

def test_a_bound_on_a_sibling_column_is_said_with_the_column_the_words_name(garage) -> None:
    answer = _ask(garage, "Which vehicles have a top speed above 200?",
                  "SELECT vehicle_id FROM vehicle WHERE seats > 200")
    assert answer.ok and list(answer.rows) == []
    other = next(a for a in answer.alternatives if a.label == "Filter on top_speed")
    assert sorted(garage.execute(other.sql).rows) == [(3,), (4,)]


@pytest.fixture()
def papers(tmp_path: Path):
    path = tmp_path / "papers.sqlite"
    with sqlite3.connect(path) as conn:  # no declared keys
        conn.executescript(
            "CREATE TABLE paper(pid INTEGER, title TEXT, citation_num INTEGER, reference_num INTEGER, city_name TEXT,"
            " street_name TEXT);"
            "INSERT INTO paper VALUES (1,'A',10,2,'Pune','MG Road'),(2,'B',3,30,'Pune','FC Road'),"
            "(3,'C',7,1,'Agra','Mall Road');"
        )
    db = open_database(str(path))
    yield db
    db.close()


@pytest.mark.parametrize(("question", "sql", "label", "rows"), [
    ("What is the total number of citations received?", "SELECT SUM(reference_num) FROM paper", "Use citation_num",
     [(20,)]),
    ("How many papers are there in each city?", "SELECT street_name, COUNT(*) FROM paper GROUP BY city_name",
     "Use city_name", [("Agra", 1), ("Pune", 2)]),
    ("Top 2 papers by citations", "SELECT title FROM paper ORDER BY reference_num DESC LIMIT 2", "Use citation_num",
     [("A",), ("C",)]),
])
def test_a_column_used_where_the_question_names_its_sibling_is_said(papers, question, sql, label, rows) -> None:
    answer = _ask(papers, question, sql)
    assert answer.ok  # the query that ran stays the answer
    other = next(a for a in answer.alternatives if a.label == label)
    assert sorted(papers.execute(other.sql).rows) == rows


@pytest.mark.parametrize(("question", "sql"), [
    ("What is the total number of citations received?", "SELECT SUM(citation_num) FROM paper"),  # as the words say
    ("Citations and references of each paper", "SELECT title, citation_num, reference_num FROM paper"),
    ("Which street has the most papers?", "SELECT street_name FROM paper GROUP BY street_name ORDER BY COUNT(*) DESC"),
    ("Papers with their numbers", "SELECT title, reference_num FROM paper"),  # neither sibling named: no guess
    # both siblings in one expression: used together on purpose ("citations beyond references")
    ("Citations minus what each paper cites", "SELECT title, citation_num - reference_num FROM paper"),
])
def test_a_column_the_words_name_or_leave_open_is_not_doubted(papers, question, sql) -> None:
    answer = _ask(papers, question, sql)
    assert not any(a.label.startswith("Use ") for a in answer.alternatives)


def test_a_filter_whose_column_the_question_names_is_not_moved(garage) -> None:
    answer = _ask(garage, "Which vehicles have more than 5 seats?", "SELECT vehicle_id FROM vehicle WHERE seats > 5")
    assert not any(label.startswith("Filter on") for label in _labels(answer))


# --- counted from today, not from a fixed date ------------------------------------------------------------------------

def test_reading_a_question_that_counts_from_today() -> None:
    for question in ("repairs in the past 30 days", "repairs done today", "cost so far this year",
                     "is mahine ki repairs"):
        assert read_question(question).from_today, question
    assert not read_question("repairs in March 2023").from_today


def test_a_span_counted_from_a_fixed_date_is_offered_counted_from_today(garage) -> None:
    answer = _ask(garage, "Total repair cost in the last 7 days",
                  "SELECT SUM(cost) FROM repair WHERE done_on >= DATE('2023-03-20', '-7 days')")
    assert answer.ok and [tuple(r) for r in answer.rows] == [(90.0,)]  # 2023-03-15, two days ago, 400 days ago
    other = next(a for a in answer.alternatives if a.label == "Count from today")
    assert "'now'" in other.sql and garage.execute(other.sql).rows[0][0] == 30


def test_a_span_counted_from_the_data_s_latest_date_is_offered_counted_from_today(garage) -> None:
    """fresh28 (family B): "the last 30 days" anchored to ``(SELECT MAX(done_on) FROM repair)``, every such anchor."""
    answer = _ask(garage, "Total cost of repairs logged in the last 30 days",  # every repair was logged in 2020
                  "SELECT SUM(cost) FROM repair WHERE logged_at >= DATE((SELECT MAX(logged_at) FROM repair), "
                  "'-30 days') AND logged_at <= (SELECT MAX(logged_at) FROM repair)")
    assert answer.ok and list(answer.rows) == [(310.0,)]  # the query that ran stays the answer
    other = next(a for a in answer.alternatives if a.label == "Count from today")
    assert "latest date" in other.why and "MAX(" not in other.sql and garage.execute(other.sql).rows[0][0] is None
    kept = _ask(garage, "Total cost of repairs logged in the 30 days before the latest log",  # from no "today"
                "SELECT SUM(cost) FROM repair WHERE logged_at >= DATE((SELECT MAX(logged_at) FROM repair), '-30 days')")
    assert "Count from today" not in _labels(kept)


def test_a_date_the_question_itself_says_is_not_replaced_by_today(garage) -> None:
    answer = _ask(garage, "Repair cost in the 7 days before 2023-03-20, and how it compares to today",
                  "SELECT SUM(cost) FROM repair WHERE done_on >= DATE('2023-03-20', '-7 days')")
    assert "Count from today" not in _labels(answer)


def test_a_fixed_range_is_not_a_count_from_today(garage) -> None:
    answer = _ask(garage, "repair cost this year",
                  "SELECT SUM(cost) FROM repair WHERE done_on BETWEEN '2023-01-01' AND '2023-12-31'")
    assert "Count from today" not in _labels(answer)


# --- a date format that never writes the text it is compared with ---------------------------------------------------

def test_a_month_format_compared_with_a_year_is_offered_as_a_year(garage) -> None:
    answer = _ask(garage, "Total repair cost in 2023",
                  "SELECT SUM(cost) FROM repair WHERE strftime('%Y-%m', done_on) = '2023'")
    assert answer.ok and [tuple(r) for r in answer.rows] == [(None,)]
    other = next(a for a in answer.alternatives if a.label == "Format the date as compared")
    assert "'%Y'" in other.sql and [tuple(r) for r in garage.execute(other.sql).rows] == [(140.0,)]


def test_a_day_of_month_compared_with_weekdays_is_offered_as_the_weekday(garage) -> None:
    answer = _ask(garage, "How many repairs were done on weekends?",
                  "SELECT COUNT(*) FROM repair WHERE strftime('%d', done_on) IN ('0', '6')")
    other = next(a for a in answer.alternatives if a.label == "Format the date as compared")
    assert "'%w'" in other.sql


def test_a_format_that_writes_the_values_compared_is_left(garage) -> None:
    answer = _ask(garage, "Repairs in 2023", "SELECT COUNT(*) FROM repair WHERE strftime('%Y', done_on) = '2023'")
    assert "Format the date as compared" not in _labels(answer)


# --- "per month" grouped by the month of the year ------------------------------------------------------------------

def test_per_month_over_several_years_grouped_by_month_of_year_is_offered_by_year_and_month(garage) -> None:
    answer = _ask(garage, "Total repair cost per month",
                  "SELECT strftime('%m', done_on) AS m, SUM(cost) FROM repair GROUP BY m")
    other = next(a for a in answer.alternatives if a.label == "Each month of each year")
    assert "'%Y-%m'" in other.sql


def test_the_month_of_the_year_asked_for_is_left(garage) -> None:
    answer = _ask(garage, "Which month of the year has the most repairs, per month?",
                  "SELECT strftime('%m', done_on) AS m, COUNT(*) FROM repair GROUP BY m")
    assert "Each month of each year" not in _labels(answer)


def test_months_of_one_year_are_not_doubted(garage) -> None:
    answer = _ask(garage, "Repair cost per month in 2023",
                  "SELECT strftime('%m', done_on) AS m, SUM(cost) FROM repair "
                  "WHERE strftime('%Y', done_on) = '2023' GROUP BY m")
    assert "Each month of each year" not in _labels(answer)


# --- a value the question quotes that the query never filters on --------------------------------------------------

def test_a_quoted_value_the_query_leaves_out_is_found_in_its_column_and_offered(garage) -> None:
    answer = _ask(garage, "How many repairs were there for vehicles made by 'Tata'?",
                  "SELECT COUNT(*) FROM repair AS r JOIN vehicle AS v ON v.vehicle_id = r.vehicle_id")
    assert answer.ok and answer.rows[0][0] == 6
    other = next(a for a in answer.alternatives if a.label == "Only Tata")
    assert "v.maker" in other.sql and garage.execute(other.sql).rows[0][0] == 3
    # found by probing the data, not from the few values Cairn keeps per column
    question = "How many repairs were there for vehicles made by 'Tata'?"
    tree = sqlglot.parse_one("SELECT COUNT(*) FROM repair AS r JOIN vehicle AS v ON v.vehicle_id = r.vehicle_id",
                             read="sqlite")
    found = missing_quoted(read_question(question), tree, garage.schema(), garage.execute, question)
    assert found is not None and "LOWER(v.maker) = LOWER('Tata')" in found[2].sql(dialect="sqlite")


def test_a_quoted_value_no_column_holds_is_left(garage) -> None:
    answer = _ask(garage, "How many repairs for vehicles made by 'Tesla'?", "SELECT COUNT(*) FROM repair")
    assert not any(label.startswith("Only") for label in _labels(answer))


def test_a_quoted_value_the_query_writes_is_left(garage) -> None:
    answer = _ask(garage, "Repairs of 'Tata' vehicles", "SELECT COUNT(*) FROM repair AS r JOIN vehicle AS v "
                  "ON v.vehicle_id = r.vehicle_id WHERE v.maker LIKE '%tata%'")
    assert not any(label.startswith("Only") for label in _labels(answer))


def test_a_name_typed_without_quotes_that_the_query_leaves_out_is_found_in_its_column_and_offered(garage) -> None:
    answer = _ask(garage, "How many repairs were there for vehicles made by Tata?",
                  "SELECT COUNT(*) FROM repair AS r JOIN vehicle AS v ON v.vehicle_id = r.vehicle_id")
    assert answer.ok and answer.rows[0][0] == 6  # the query that ran stays the answer
    other = next(a for a in answer.alternatives if a.label == "Only Tata")
    assert "v.maker" in other.sql and garage.execute(other.sql).rows[0][0] == 3


def test_a_code_typed_in_capitals_is_probed_like_a_name(garage) -> None:
    answer = _ask(garage, "how many vehicles are registered in MH?", "SELECT COUNT(*) FROM vehicle")
    other = next(a for a in answer.alternatives if a.label == "Only MH")
    assert "state" in other.sql and garage.execute(other.sql).rows[0][0] == 2


@pytest.mark.parametrize("question", [
    "Which maker has the most seats? Tesla fans ask.",  # a name no column holds
    "Show Vehicle counts by Maker",  # capitalised schema words, not values
    "In March 2023, how many repairs were logged?",  # a month is a date, never probed as a value
    "How many vehicles by Tata or Maruti?",  # two values of one column: not "only" one of them
    "Seats of every vehicle, including Honda",  # attack round 3: "including" is no filter
])
def test_a_capitalised_word_no_text_column_holds_or_the_schema_names_is_left(garage, question: str) -> None:
    answer = _ask(garage, question, "SELECT COUNT(*) FROM vehicle")
    assert not any(label.startswith("Only") for label in _labels(answer))


def test_a_sentence_first_word_is_capitalised_for_the_sentence_not_a_name(garage) -> None:
    from core.evidence._question_values import _named_values

    assert _named_values("Calculate the total for Martin's shop. Show ORD too", garage.schema()) == [
        "Martin", "Martin's", "ORD"]


def test_a_name_two_columns_hold_is_no_single_reading_and_is_left(tmp_path: Path) -> None:
    path = tmp_path / "flights.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE flight(fid INTEGER, origin TEXT, destination TEXT);"
                           "INSERT INTO flight VALUES (1,'ORD','JFK'),(2,'JFK','ORD'),(3,'JFK','LAX');")
    db = open_database(str(path))
    try:
        answer = _ask(db, "How many flights touch ORD?", "SELECT COUNT(*) FROM flight")
        assert answer.rows[0][0] == 3 and not any(label.startswith("Only") for label in _labels(answer))
    finally:
        db.close()


# --- a table the question names, shown by a column that is not its label ------------------------------------------

def test_each_entity_shown_by_an_unnamed_text_column_is_offered_with_its_label(tmp_path: Path) -> None:
    path = tmp_path / "club.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE coach(cid INTEGER, name TEXT, homepage TEXT);"
            "CREATE TABLE match(mid INTEGER, cid INTEGER, goals INTEGER);"
            "INSERT INTO coach VALUES (1,'Ria','r.example'),(2,'Sam','r.example');"
            "INSERT INTO match VALUES (1,1,3),(2,2,1),(3,2,2);")
    db = open_database(str(path))
    try:
        answer = _ask(db, "Total goals for each coach",
                      "SELECT coach.homepage, SUM(match.goals) FROM coach JOIN match ON match.cid = coach.cid "
                      "GROUP BY coach.homepage")
        other = next(a for a in answer.alternatives if a.label == "Show name")
        assert sorted(db.execute(other.sql).rows) == [("Ria", 3), ("Sam", 3)]
        named = _ask(db, "Total goals per coach homepage", "SELECT coach.homepage, SUM(match.goals) FROM coach "
                     "JOIN match ON match.cid = coach.cid GROUP BY coach.homepage")
        assert "Show name" not in _labels(named)
    finally:
        db.close()


# --- one thing asked for, and the order's ranking key --------------------------------------------------------------

def test_the_one_thing_a_superlative_asks_for_is_offered_as_one_row(garage) -> None:
    assert read_question("Which maker has the most vehicles?").one
    assert not read_question("Which makers have the most vehicles?").one  # plural: how many is not said
    answer = _ask(garage, "Which maker has the most vehicles?",
                  "SELECT maker, COUNT(*) AS n FROM vehicle GROUP BY maker ORDER BY n DESC LIMIT 3")
    other = next(a for a in answer.alternatives if a.label == "Keep 1")
    assert [tuple(r) for r in garage.execute(other.sql).rows] == [("Tata", 2)]


def test_a_sort_key_that_only_places_nulls_is_not_read_as_the_ranking(garage) -> None:
    answer = _ask(garage, "Top 2 makers by total seats",
                  "SELECT maker, SUM(seats) AS s FROM vehicle GROUP BY maker "
                  "ORDER BY CASE WHEN s IS NULL THEN 1 ELSE 0 END DESC, s ASC LIMIT 2")
    assert "Order from the other end" in _labels(answer)


def test_attack_findings_on_the_filter_checks(garage) -> None:
    from core.evidence._question_filters import _mentioned

    assert _mentioned("USA", {"cars", "made", "in", "the", "us"})  # "US", a shorter code for 'USA'
    never = _ask(garage, "Vehicles that have never been petrol", "SELECT vehicle_id FROM vehicle")
    assert not any(label == "Only petrol" for label in _labels(never))  # a value after a negation is not asked for


def test_a_known_value_said_with_another_ending_or_after_an_article_is_offered(garage) -> None:
    electric = _ask(garage, "Average top speed of the electrical vehicles", "SELECT AVG(top_speed) FROM vehicle")
    assert "Only electric" in _labels(electric)  # 'electric' said as "electrical"
    had = _ask(garage, "Which makers have had a diesel vehicle repaired?", "SELECT DISTINCT v.maker FROM vehicle v "
               "JOIN repair r ON r.vehicle_id = v.vehicle_id")
    assert "Only diesel" in _labels(had)  # "have had a diesel …": the article makes it a thing, not a verb
    was = _ask(garage, "How many vehicles were diesel powered before?", "SELECT COUNT(*) FROM vehicle")
    assert "Only diesel" not in _labels(was)  # "were diesel": no article, read as no filter (as "has paid")


# --- a span or a year the question says and the query leaves out -----------------------------------------------------

@pytest.fixture()
def shop(tmp_path: Path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:  # dates kept as text, no declared keys
        conn.executescript(
            "CREATE TABLE sale(id INTEGER, amount REAL, sold_on TEXT);"
            "INSERT INTO sale VALUES (1, 10, date('now', '-3 days')), (2, 20, date('now', '-100 days')),"
            "(3, 5, '2023-05-02'), (4, 7, '2022-01-09');"
        )
    db = open_database(str(path))
    yield db
    db.close()


@pytest.mark.parametrize(("question", "sql", "label", "rows"), [
    ("Total sales in the past 30 days", "SELECT SUM(amount) FROM sale", "Only past 30 days", [(10.0,)]),
    ("How much did we sell in 2023?", "SELECT SUM(amount) FROM sale", "Only 2023", [(5.0,)]),
    ("Total sales in the past week", "SELECT SUM(amount) FROM sale", "Only past week", [(10.0,)]),  # one week
])
def test_a_span_or_year_the_query_leaves_out_is_said_with_the_condition(shop, question, sql, label, rows) -> None:
    answer = _ask(shop, question, sql)
    assert answer.ok and answer.rows == ((42.0,),)  # the query that ran stays the answer
    other = next(a for a in answer.alternatives if a.label == label)
    assert list(shop.execute(other.sql).rows) == rows


@pytest.mark.parametrize(("question", "sql"), [
    ("Total sales in the past 30 days", "SELECT SUM(amount) FROM sale WHERE sold_on >= DATE('now', '-30 days')"),
    ("How much did we sell in 2023?", "SELECT SUM(amount) FROM sale WHERE sold_on LIKE '2023%'"),
    ("Total sales", "SELECT SUM(amount) FROM sale"),
])
def test_a_query_that_says_the_date_or_a_question_without_one_is_not_doubted(shop, question, sql) -> None:
    answer = _ask(shop, question, sql)
    assert not any(a.label.startswith("Only ") for a in answer.alternatives)


def test_two_date_columns_and_no_word_for_either_leave_the_span_unsaid(garage) -> None:
    answer = _ask(garage, "Repair cost in the last 30 days", "SELECT SUM(cost) FROM repair")
    assert not any(a.label.startswith("Only ") for a in answer.alternatives)


@pytest.mark.parametrize("sql", [
    "SELECT SUM(amount) FROM sale WHERE sold_on <= DATE('now', '-30 days')",
    "SELECT SUM(amount) FROM sale WHERE DATE('now', '-30 days') > sold_on",
])
def test_a_span_back_from_today_kept_the_wrong_way_round_is_said(shop, sql) -> None:
    answer = _ask(shop, "Total sales in the past 30 days", sql)
    assert answer.ok and answer.rows == ((32.0,),)
    other = next(a for a in answer.alternatives if a.label == "The past 30 days")
    assert list(shop.execute(other.sql).rows) == [(10.0,)]


def test_a_window_between_two_points_before_today_is_not_turned_round(shop) -> None:
    answer = _ask(shop, "Total sales in the past 30 days", "SELECT SUM(amount) FROM sale WHERE sold_on <= "
                  "DATE('now', '-1 days') AND sold_on >= DATE('now', '-30 days')")
    assert not any(a.label == "The past 30 days" for a in answer.alternatives)


def test_of_two_date_columns_the_one_named_for_its_table_carries_an_unnamed_span(tmp_path) -> None:
    path = tmp_path / "sales.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE sales(id INTEGER, sale_date TEXT, crtd_ts TEXT);"
                           "INSERT INTO sales VALUES (1, date('now', '-2 days'), '2020-01-01'),"
                           "(2, '2021-05-05', date('now'));")
    db = open_database(str(path))
    answer = _ask(db, "What is the TSC in the past 7 days?", "SELECT COUNT(id) AS tsc FROM sales")
    other = next(a for a in answer.alternatives if a.label == "Only past 7 days")
    assert "sale_date >=" in other.sql and list(db.execute(other.sql).rows) == [(1,)]
    db.close()


def test_a_value_no_row_holds_under_lower_is_offered_as_the_question_s_value_in_lower_case(garage) -> None:
    answer = _ask(garage, "How many vehicles are registered in MH?",
                  "SELECT COUNT(*) FROM vehicle WHERE LOWER(state) = 'maharashtra'")
    assert answer.ok and answer.rows[0][0] == 0
    other = next(a for a in answer.alternatives if "'MH'" in a.label)
    assert "LOWER(state) = 'mh'" in other.sql and garage.execute(other.sql).rows[0][0] == 2
