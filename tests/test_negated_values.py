"""A value kept out that the question never says, where the question names the value it asks for
(``core.evidence._question_values.negated_value``, ``_question_filters.unasked_filter``).

``status <> 'failed'`` for "successful payments" keeps every other status too ('pending', 'refunded'); a model
writes it for "= 'success'" and the rows run without an error. Where the question names exactly one value the
column holds that the query writes nowhere, and never says the value kept out, the query keeping that value is
offered beside the answer (both results said); a value kept out that nobody asked for is offered without its
condition. The query that ran stays the answer. Real SQLite through Cairn's backend; the model is scripted.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.config import Settings
from core.databases import open_database
from core.pipeline import AskPipeline
from tests.fakes.scripted_llm import ScriptedLLM


@pytest.fixture()
def garage(tmp_path: Path):
    path = tmp_path / "garage.sqlite"
    with sqlite3.connect(path) as conn:  # no declared keys
        conn.executescript(
            "CREATE TABLE vehicle(vehicle_id INTEGER, maker TEXT, fuel TEXT, seats INTEGER);"
            "CREATE TABLE payment(payment_id INTEGER, vehicle_id INTEGER, amount REAL, status TEXT);"
            "INSERT INTO vehicle VALUES (1,'Tata','diesel',5),(2,'Maruti','petrol',4),(3,'Tata','petrol',7),"
            "(4,'Honda','electric',5),(5,'Maruti','diesel',5);"
            "INSERT INTO payment VALUES (1,1,100,'success'),(2,2,50,'failed'),(3,3,70,'pending'),(4,4,20,'success'),"
            "(5,5,30,'refunded');"
        )
    db = open_database(str(path))
    yield db
    db.close()


def _ask(db, question: str, sql: str):
    return AskPipeline(db, ScriptedLLM(sql, sql, sql, sql), Settings()).ask(question)


def _offered(answer, label: str) -> list[tuple]:
    (other,) = [a for a in answer.alternatives if a.label == label]
    return other


@pytest.mark.parametrize(("question", "sql", "label", "rows"), [
    ("What is the total amount of successful payments?",
     "SELECT SUM(amount) FROM payment WHERE status <> 'failed'", "Only success", [(120.0,)]),
    ("How many petrol vehicles does each maker have?",
     "SELECT maker, COUNT(*) FROM vehicle WHERE fuel != 'diesel' GROUP BY maker", "Only petrol",
     [("Maruti", 1), ("Tata", 1)]),
    ("How many vehicles does the maker 'Maruti' have?",
     "SELECT COUNT(*) FROM vehicle WHERE maker NOT IN ('Tata')", "Only Maruti", [(2,)]),
    ("Seats of each Honda vehicle", "SELECT vehicle_id, seats FROM vehicle WHERE NOT maker = 'Tata'", "Only Honda",
     [(4, 5)]),
])
def test_a_value_kept_out_unsaid_where_the_question_names_another_is_offered_kept(garage, question, sql, label,
                                                                                   rows) -> None:
    answer = _ask(garage, question, sql)
    assert answer.ok and answer.sql.replace("!=", "<>").upper().startswith(sql.replace("!=", "<>").upper()[:20])
    other = _offered(answer, label)
    assert "never says" in other.why
    assert sorted(garage.execute(other.sql).rows) == rows


@pytest.mark.parametrize(("question", "sql"), [
    # the value kept out is the question's own
    ("What is the total amount of payments other than failed ones?",
     "SELECT SUM(amount) FROM payment WHERE status <> 'failed'"),
    # a negation before the value the question names: no value asked for
    ("Which vehicles are not petrol?", "SELECT vehicle_id FROM vehicle WHERE fuel <> 'diesel'"),
    # two values of the column named: no one value to keep
    ("How many Tata or Maruti vehicles use petrol?", "SELECT COUNT(*) FROM vehicle WHERE maker <> 'Honda'"),
    # the value named is written elsewhere in the query
    ("How many petrol vehicles are there?",
     "SELECT COUNT(*) FROM vehicle WHERE fuel = 'petrol' AND maker <> 'Honda'"),
])
def test_a_value_kept_out_is_not_read_as_another_where_the_words_do_not_name_one(garage, question, sql) -> None:
    answer = _ask(garage, question, sql)
    assert answer.ok
    assert not [a for a in answer.alternatives if "never says" in a.why]


def test_a_value_kept_out_that_nobody_asked_for_is_offered_without_its_condition(garage) -> None:
    answer = _ask(garage, "How many vehicles does each maker have?",
                  "SELECT maker, COUNT(*) FROM vehicle WHERE fuel <> 'electric' GROUP BY maker")
    assert answer.ok and sorted(answer.rows) == [("Maruti", 2), ("Tata", 2)]  # the query that ran stays
    other = _offered(answer, "Without fuel <> 'electric'")
    assert sorted(garage.execute(other.sql).rows) == [("Honda", 1), ("Maruti", 2), ("Tata", 2)]


def test_a_value_kept_out_that_gives_the_same_rows_is_not_doubted(garage) -> None:
    answer = _ask(garage, "How many petrol vehicles are there?",
                  "SELECT COUNT(*) FROM vehicle WHERE fuel NOT IN ('diesel', 'electric')")
    assert answer.ok and answer.rows == ((2,),)
    assert not [a for a in answer.alternatives if a.label == "Only petrol"]



@pytest.fixture()
def flights(tmp_path: Path):
    path = tmp_path / "flights.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE flight(id INTEGER, from_airport TEXT, to_airport TEXT, airline TEXT);"
            "INSERT INTO flight VALUES (1,'LAX','ORD','UA'),(2,'LAX','JFK','AA'),(3,'ORD','LAX','UA'),(4,'LAX','LAX','XX');")
    db = open_database(str(path))
    yield db
    db.close()


def test_one_value_written_for_two_columns_is_offered_with_the_question_s_other_value(flights) -> None:
    answer = _ask(flights, "Which airlines fly from LAX to ORD?",
                  "SELECT airline FROM flight WHERE from_airport = 'LAX' AND to_airport = 'LAX'")
    assert answer.ok and answer.rows == (("XX",),)  # the query that ran stays
    other = _offered(answer, "to_airport = 'ORD'")
    assert flights.execute(other.sql).rows == (("UA",),)
    same = _ask(flights, "Which flights go from LAX back to LAX?",
                "SELECT id FROM flight WHERE from_airport = 'LAX' AND to_airport = 'LAX'")
    assert not [a for a in same.alternatives if a.label.startswith("to_airport")]


def test_one_column_equal_to_two_values_reads_the_second_on_its_sibling(flights) -> None:
    answer = _ask(flights, "Which airlines fly from LAX to ORD?",
                  "SELECT airline FROM flight WHERE from_airport = 'LAX' AND from_airport = 'ORD'")
    assert answer.ok and answer.rows == (("UA",),) and "to_airport = 'ORD'" in answer.sql
    (written,) = [a for a in answer.alternatives if a.label == "As the model wrote it"]
    assert flights.execute(written.sql).rows == ()  # as written no row can hold both
    either = _ask(flights, "Flights from LAX or ORD",
                  "SELECT id FROM flight WHERE from_airport = 'LAX' OR from_airport = 'ORD'")
    assert either.ok and sorted(either.rows) == [(1,), (2,), (3,), (4,)]  # apart: left


def test_attack_round_19_a_value_the_question_includes_and_values_meant_apart_are_left(flights, garage) -> None:
    kept = _ask(garage, "Total of payments that went through, even if pending",
                "SELECT SUM(amount) FROM payment WHERE status <> 'failed'")
    assert not [a for a in kept.alternatives if a.label == "Only pending"]
    either = _ask(flights, "List flights departing from LAX or ORD",
                  "SELECT id FROM flight WHERE from_airport = 'LAX' AND from_airport = 'ORD'")
    assert "to_airport" not in (either.sql or "")  # "or": the values meant apart, never read on the sibling
    unsaid = _ask(flights, "Flights out of LAX", "SELECT id FROM flight WHERE from_airport = 'LAX' AND "
                  "from_airport = 'ORD'")
    assert "to_airport" not in (unsaid.sql or "")  # ORD is not the question's


def test_a_case_test_inside_an_aggregate_reads_the_second_value_on_the_sibling_before_the_in_list(flights) -> None:
    """Attack round 19: ``SUM(CASE WHEN from_airport = 'LAX' AND from_airport = 'ORD' …)`` for "from LAX to ORD" was
    read as ``from_airport IN (…)`` (3 flights, not 1). The sibling's reading comes first; where the question does
    not say the second value as the sibling's, the per-row IN reading stays (a guess)."""
    sql = ("SELECT SUM(CASE WHEN from_airport = 'LAX' AND from_airport = 'ORD' THEN 1 ELSE 0 END) AS n FROM flight")
    answer = _ask(flights, "How many flights go from LAX to ORD?", sql)
    assert answer.ok and answer.rows == ((1,),) and "to_airport = 'ORD'" in answer.sql, (answer.sql, answer.notes)
    weekend = _ask(flights, "How many flights leave LAX or ORD?", sql)
    assert weekend.ok and weekend.rows == ((4,),) and "IN ('LAX', 'ORD')" in weekend.sql, (weekend.sql, weekend.notes)
