"""Evidence about an answer (core.evidence): what could make it wrong is measured and said, never changed on a guess.

Real SQLite databases through Cairn's own backend; the model is scripted. The other query (without a join that adds
no column, reading text as numbers, one total, keeping the fraction, counting only the matches) runs under the same
guard and limits; when its rows differ, the answer carries a note with both results and the other query.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlglot

from core.config import Settings
from core.databases import open_database
from core.pipeline import AskPipeline
from core.sql import joins_adding_no_column
from tests.fakes.scripted_llm import ScriptedLLM


@pytest.fixture()
def school(tmp_path: Path):
    path = tmp_path / "school.sqlite"
    with sqlite3.connect(path) as conn:  # no declared keys, as many real databases
        conn.executescript(
            "CREATE TABLE teacher(tid INTEGER, name TEXT);"
            "CREATE TABLE course(cid INTEGER, tid INTEGER, title TEXT);"
            "INSERT INTO teacher VALUES (1,'Ada'),(2,'Bo'),(3,'Cy'),(4,'Dee');"
            "INSERT INTO course VALUES (1,1,'Maths'),(2,1,'Logic'),(3,2,'Art');"
        )
    db = open_database(str(path))
    yield db
    db.close()


def _ask(db, sql: str, question: str = "how many teachers are there?"):
    return AskPipeline(db, ScriptedLLM(sql, sql, sql), Settings()).ask(question)


def test_a_child_join_that_changes_the_count_is_said_with_both_counts(school) -> None:
    answer = _ask(school, "SELECT COUNT(*) AS n FROM teacher t JOIN course c ON c.tid = t.tid")
    assert answer.ok and list(answer.rows) == [(3,)]  # nothing removed on a guess
    assert any("join to course adds no column" in n and "4 instead of 3" in n for n in answer.notes)
    (other,) = answer.alternatives
    assert other.label == "Without the join to course" and "JOIN" not in other.sql.upper()
    assert list(school.execute(other.sql).rows) == [(4,)]
    assert answer.to_json()["alternatives"][0]["sql"] == other.sql


def test_a_join_that_changes_nothing_or_is_used_says_nothing(school) -> None:
    same = _ask(school, "SELECT COUNT(*) AS n FROM course c JOIN teacher t ON t.tid = c.tid")  # each course has one
    used = _ask(school, "SELECT t.name, COUNT(*) AS n FROM teacher t JOIN course c ON c.tid = t.tid GROUP BY t.name",
                "how many courses does each teacher give?")  # the question names the joined table: meant
    assert same.ok and used.ok and not same.alternatives and not used.alternatives


@pytest.mark.parametrize("sql", [
    "SELECT * FROM teacher t JOIN course c ON c.tid = t.tid",  # every column of both is shown
    "SELECT name FROM teacher t LEFT JOIN course c ON c.tid = t.tid",  # an outer join drops nothing
    "SELECT name FROM teacher t JOIN course c ON c.tid = t.tid WHERE title = 'Art'",  # filtered by its column
    "SELECT name FROM teacher t JOIN course c USING (tid)",
])
def test_only_a_join_that_adds_nothing_is_a_candidate(school, sql: str) -> None:
    schema = school.schema()
    assert joins_adding_no_column(sqlglot.parse_one(sql, read="sqlite"), schema, "sqlite") == []


def test_the_window_offers_the_other_query_as_one_click(qtbot, school) -> None:
    from PySide6.QtWidgets import QPushButton

    from desktop.chat.chat_panel import ChatPanel

    answer = _ask(school, "SELECT COUNT(*) AS n FROM teacher t JOIN course c ON c.tid = t.tid")
    chat = ChatPanel()
    qtbot.addWidget(chat)
    from core.memory import Route
    from core.assistant import Reply

    chat.add_reply(Reply("how many teachers are there?", Route("question", False, ()), answer=answer))
    (button,) = [b for b in chat.findChildren(QPushButton) if b.objectName() == "alternativeQuery"]
    with qtbot.waitSignal(chat.alternative_requested) as signal:
        button.click()
    assert signal.args == [answer.alternatives[0].sql] and "4 instead of 3" in button.toolTip()


def test_a_join_inside_a_cte_or_derived_table_is_checked_too(school) -> None:
    sql = ("WITH taught AS (SELECT t.tid FROM teacher t JOIN course c ON c.tid = t.tid) "
           "SELECT COUNT(*) AS n FROM taught")
    answer = _ask(school, sql)
    assert answer.ok and list(answer.rows) == [(3,)]
    (other,) = answer.alternatives
    assert "JOIN" not in other.sql.upper() and list(school.execute(other.sql).rows) == [(4,)]


@pytest.mark.parametrize("sql", [
    "SELECT name FROM teacher WHERE tid IN (SELECT t.tid FROM teacher t JOIN course c ON c.tid = t.tid)",
    "SELECT name FROM teacher t0 WHERE EXISTS (SELECT 1 FROM teacher t JOIN course c ON c.tid = t.tid "
    "WHERE t.tid = t0.tid)",
])
def test_a_join_that_tests_existence_is_what_the_query_means(school, sql: str) -> None:
    assert joins_adding_no_column(sqlglot.parse_one(sql, read="sqlite"), school.schema(), "sqlite") == []


def test_a_stalled_server_during_the_check_leaves_the_answer_as_it_was(school) -> None:
    """The query without the join times out (a stalled server): the answer stands, with no claim about the join,
    and the check asked for a short timeout, not the answer's own."""
    from core.errors import QueryTimeout

    seen: list[float] = []
    real = school.execute

    def stalling(sql, *, limits=None, cancel=None):
        if "JOIN" not in sql.upper():  # the evidence query
            seen.append(limits.timeout_s)
            raise QueryTimeout("canceling statement due to statement timeout")
        return real(sql, limits=limits, cancel=cancel)

    school.execute = stalling
    answer = _ask(school, "SELECT COUNT(*) AS n FROM teacher t JOIN course c ON c.tid = t.tid")
    assert answer.ok and list(answer.rows) == [(3,)] and not answer.alternatives
    assert not any("adds no column" in n for n in answer.notes)
    assert seen and seen[0] <= 4.0 < Settings().statement_timeout_s


def test_a_column_word_of_the_joined_table_does_not_make_its_join_meant(tmp_path: Path) -> None:
    """"list employee names" says nothing of departments, though dept has a column dname."""
    path = tmp_path / "staff.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE emp(id INTEGER, name TEXT, dept_id INTEGER);"
                           "CREATE TABLE dept(id INTEGER, dname TEXT);"
                           "INSERT INTO emp VALUES (1,'a',1),(2,'b',1),(3,'c',2),(4,'d',NULL),(5,'e',9);"
                           "INSERT INTO dept VALUES (1,'A'),(2,'B');")
    db = open_database(str(path))
    try:
        answer = _ask(db, "SELECT e.name FROM emp e JOIN dept d ON e.dept_id = d.id", "list employee names")
        meant = _ask(db, "SELECT e.name FROM emp e JOIN dept d ON e.dept_id = d.id",
                     "list employee names with a dept")
    finally:
        db.close()
    assert answer.ok and len(answer.rows) == 3 and answer.alternatives  # said: 5 rows without the join
    assert meant.ok and not meant.alternatives


JOINED = "SELECT COUNT(*) AS n FROM teacher t JOIN course c ON c.tid = t.tid"


def test_the_model_is_asked_once_with_both_counts_and_its_rewrite_is_shown(school) -> None:
    """With a model, the finding goes back to it once: it writes the query without the join, which is shown,
    and the first query stays one click away."""
    llm = ScriptedLLM(JOINED, "SELECT COUNT(*) AS n FROM teacher")
    answer = AskPipeline(school, llm, Settings()).ask("how many teachers are there?")
    assert answer.ok and list(answer.rows) == [(4,)] and answer.path == "repaired"
    assert len(llm.history) == 2 and "4 instead of 3" in llm.history[1].user and "same SQL" in llm.history[1].user
    (first,) = answer.alternatives
    assert first.label == "The first query" and "JOIN" in first.sql.upper()
    assert any("the model rewrote its query" in n and "4 instead of 3" in n for n in answer.notes)


@pytest.mark.parametrize("review", [
    JOINED,  # the model says the join is meant: the same SQL back
    "SELECT COUNT(*) FROM staff_roster",  # a rewrite that does not run
    "SELECT COUNT(c.cid) AS n FROM teacher t JOIN course c ON c.tid = t.tid",  # the same rows
])
def test_a_review_that_changes_nothing_keeps_the_answer_and_its_note(school, review: str) -> None:
    answer = AskPipeline(school, ScriptedLLM(JOINED, review), Settings()).ask("how many teachers are there?")
    assert answer.ok and list(answer.rows) == [(3,)]
    assert [a.label for a in answer.alternatives] == ["Without the join to course"]
    assert sum("adds no column" in n for n in answer.notes) == 1 and not any("rewrote" in n for n in answer.notes)


def test_no_review_when_repairs_are_off(school) -> None:
    llm = ScriptedLLM(JOINED)  # a second call would fail the test
    answer = AskPipeline(school, llm, Settings(repair_rounds=0)).ask("how many teachers are there?")
    assert answer.ok and list(answer.rows) == [(3,)] and len(llm.history) == 1 and answer.alternatives


# -- a SQLite text column holding numbers, ordered or taken as an extreme ----------------------------------------


@pytest.fixture()
def shop(tmp_path: Path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:  # a CSV loaded as text
        conn.executescript("CREATE TABLE items(id INTEGER, name TEXT, price TEXT, code TEXT);"
                           "INSERT INTO items VALUES (1,'pen','25','007'),(2,'ink','150','010'),(3,'pad','9','100'),"
                           "(4,'cap','1200','020');")
    db = open_database(str(path))
    yield db
    db.close()


@pytest.mark.parametrize(("sql", "said"), [
    ("SELECT name, price FROM items ORDER BY price DESC LIMIT 2", "2 of the 2 rows differ"),
    ("SELECT MAX(price) AS top FROM items", "the result is 1200 instead of 9"),
    ("SELECT name FROM items ORDER BY items.price", "the rows come in another order"),
])
def test_an_order_of_numbers_held_as_text_is_said_with_the_other_query(shop, sql: str, said: str) -> None:
    answer = _ask(shop, sql, "most expensive items")
    assert answer.ok and any("price holds numbers stored as text" in n and said in n for n in answer.notes)
    (other,) = answer.alternatives
    assert other.label == "Read price as numbers" and "CAST(" in other.sql.upper()
    assert list(shop.execute(other.sql).rows) != list(answer.rows)


@pytest.mark.parametrize("sql", [
    "SELECT code FROM items ORDER BY code",  # codes with leading zeros keep their text order
    "SELECT name FROM items ORDER BY name",  # words
    "SELECT name FROM items ORDER BY id",
])
def test_no_order_note_for_codes_words_or_numbers(shop, sql: str) -> None:
    answer = _ask(shop, sql, "list the items")
    assert answer.ok and not answer.alternatives and not any("stored as text" in n for n in answer.notes)


def test_the_model_shown_the_order_finding_may_read_the_column_as_numbers(shop) -> None:
    sql = "SELECT name FROM items ORDER BY price DESC LIMIT 1"
    llm = ScriptedLLM(sql, "SELECT name FROM items ORDER BY CAST(price AS INTEGER) DESC LIMIT 1")
    answer = AskPipeline(shop, llm, Settings()).ask("most expensive item")
    assert answer.ok and list(answer.rows) == [("cap",)] and answer.alternatives[0].label == "The first query"


# -- a GROUP BY completed where the query had none -------------------------------------------------------------


def test_a_group_by_completed_where_the_question_names_the_split(shop) -> None:
    """``SELECT name, SUM(...)`` with no GROUP BY, asked "of each item": the completion splits the total by name,
    and the question said that split, so no one total is offered."""
    answer = _ask(shop, "SELECT name, SUM(CAST(price AS INTEGER)) AS revenue FROM items", "revenue of each item")
    assert answer.ok and len(answer.rows) == 4  # completed: one row per name
    assert not any(a.label.startswith("One total") for a in answer.alternatives)


def test_an_ungrouped_column_the_question_does_not_name_is_run_as_written_and_the_split_offered(shop) -> None:
    """"total revenue" with ``SELECT name, SUM(...)`` and no GROUP BY: the question asks for one total and names no
    split; SQLite's one row runs (its total is the answer), the split by name is offered."""
    answer = _ask(shop, "SELECT name, SUM(CAST(price AS INTEGER)) AS revenue FROM items", "total revenue")
    assert answer.ok and len(answer.rows) == 1 and answer.rows[0][1] == 1384
    split = next(a for a in answer.alternatives if a.label == "One row per name")
    assert len(shop.execute(split.sql).rows) == 4


def test_a_group_by_the_model_wrote_offers_no_total(shop) -> None:
    answer = _ask(shop, "SELECT name, SUM(CAST(price AS INTEGER)) AS revenue FROM items GROUP BY name",
                  "revenue per item")
    assert answer.ok and not answer.alternatives


# -- numbers that come out other than the words mean ------------------------------------------------------------


@pytest.fixture()
def flights(tmp_path: Path):
    path = tmp_path / "flights.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE airport(code TEXT PRIMARY KEY, city TEXT);"
            "CREATE TABLE flight(id INTEGER PRIMARY KEY, origin TEXT, stops INTEGER, minutes INTEGER);"
            "INSERT INTO airport VALUES ('BOM','Mumbai'),('DEL','Delhi'),('GOI','Goa');"
            "INSERT INTO flight VALUES (1,'BOM',0,95),(2,'BOM',1,200),(3,'DEL',0,130),(4,'BOM',0,100);")
    db = open_database(str(path))
    yield db
    db.close()


def test_a_division_of_whole_numbers_offers_the_fraction(flights) -> None:
    answer = _ask(flights, "SELECT origin, SUM(CASE WHEN stops > 0 THEN 1 ELSE 0 END) / COUNT(*) AS share "
                           "FROM flight GROUP BY origin", "share of flights with stops per origin")
    assert answer.ok and sorted(answer.rows) == [("BOM", 0), ("DEL", 0)]  # as written: nothing changed
    (fraction,) = answer.alternatives
    assert fraction.label == "Keep the fraction" and "divides whole numbers" in fraction.why
    assert sorted(flights.execute(fraction.sql).rows) == [("BOM", pytest.approx(1 / 3)), ("DEL", 0.0)]


def test_a_division_that_keeps_its_fraction_or_changes_nothing_says_nothing(flights) -> None:
    for sql in ("SELECT origin, SUM(stops) * 1.0 / COUNT(*) FROM flight GROUP BY origin",
                "SELECT origin, AVG(minutes) / 60 FROM flight GROUP BY origin",  # AVG is a decimal already
                "SELECT id, minutes / 5 FROM flight WHERE minutes = 100"):  # 100 / 5 has no fraction to lose
        answer = _ask(flights, sql, "a question")
        assert answer.ok and not answer.alternatives, sql


def test_a_count_of_a_case_with_an_else_counts_every_row(flights) -> None:
    answer = _ask(flights, "SELECT COUNT(CASE WHEN stops > 0 THEN 1 ELSE 0 END) AS with_stops FROM flight",
                  "how many flights have stops")
    assert answer.ok and list(answer.rows) == [(4,)]
    (matches,) = answer.alternatives
    assert "counts every row" in matches.why and flights.execute(matches.sql).rows == ((1,),)


def test_count_star_over_a_left_join_offers_counting_the_matches(flights) -> None:
    answer = _ask(flights, "SELECT a.code, COUNT(*) AS departures FROM airport a LEFT JOIN flight f "
                           "ON f.origin = a.code GROUP BY a.code", "departures per airport")
    assert answer.ok and sorted(answer.rows) == [("BOM", 3), ("DEL", 1), ("GOI", 1)]
    (matches,) = answer.alternatives
    assert "LEFT JOIN finds no f" in matches.why
    assert sorted(flights.execute(matches.sql).rows) == [("BOM", 3), ("DEL", 1), ("GOI", 0)]


# -- what a join repeats or merges -------------------------------------------------------------------------------


@pytest.fixture()
def library(tmp_path: Path):
    path = tmp_path / "library.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE author(aid INTEGER PRIMARY KEY, name TEXT, city TEXT);"
            "CREATE TABLE book(bid INTEGER PRIMARY KEY, aid INTEGER, title TEXT);"
            "INSERT INTO author VALUES (1,'Ann','Pune'),(2,'Bo','Goa'),(3,'Ann','Goa');"
            "INSERT INTO book VALUES (1,1,'x'),(2,1,'y'),(3,2,'z'),(4,3,'w');")
    db = open_database(str(path))
    yield db
    db.close()


def test_repeated_rows_from_a_join_offer_each_row_once(library) -> None:
    answer = _ask(library, "SELECT a.city FROM author a JOIN book b ON b.aid = a.aid", "cities of authors with books")
    assert answer.ok and len(answer.rows) == 4
    distinct = next(a for a in answer.alternatives if a.label == "Each row once (DISTINCT)")
    assert sorted(library.execute(distinct.sql).rows) == [("Goa",), ("Pune",)] and "repeat" in distinct.why


def test_a_key_counted_after_a_join_and_namesakes_grouped_together_are_said(library) -> None:
    counted = _ask(library, "SELECT COUNT(a.aid) FROM author a JOIN book b ON b.aid = a.aid", "how many authors")
    assert counted.ok and counted.rows == ((4,),)
    once = next(a for a in counted.alternatives if a.label == "Count each once")
    assert library.execute(once.sql).rows == ((3,),) and "once per row the joins give it" in once.why
    grouped = _ask(library, "SELECT a.name, COUNT(*) FROM author a JOIN book b ON b.aid = a.aid GROUP BY a.name",
                   "books per author")
    assert grouped.ok and sorted(grouped.rows) == [("Ann", 3), ("Bo", 1)]
    apart = next(a for a in grouped.alternatives if a.label == "Count each once")
    assert sorted(library.execute(apart.sql).rows) == [("Ann", 1), ("Ann", 2), ("Bo", 1)]


def test_no_doubt_when_nothing_repeats(library) -> None:
    for sql, question in (("SELECT DISTINCT a.aid FROM author a JOIN book b ON b.aid = a.aid", "author ids of books"),
                          ("SELECT b.title, a.name FROM author a JOIN book b ON b.aid = a.aid", "books and their authors"),
                          ("SELECT COUNT(b.bid) FROM author a JOIN book b ON b.aid = a.aid", "books and their authors")):
        answer = _ask(library, sql, question)
        assert answer.ok and not answer.alternatives, sql


def test_a_filter_value_spelled_otherwise_than_the_data_offers_the_data_s_spelling(shop) -> None:
    """The model writes 'PEN' (and 'INK'); the column holds 'pen' and 'ink': as written nothing matches. (A value with
    spaces at its ends, ``' ink '``, is read without them: ``filters._held_values``.)"""
    answer = _ask(shop, "SELECT COUNT(*) FROM items WHERE name IN ('PEN', 'INK')", "how many pens and inks")
    assert answer.ok and answer.rows == ((0,),)
    spelled = next(a for a in answer.alternatives if a.label == "As the data spells it")
    assert shop.execute(spelled.sql).rows == ((2,),) and "holds 'pen', not 'PEN'" in spelled.why
    right = _ask(shop, "SELECT COUNT(*) FROM items WHERE name = 'pen'", "how many pens")
    assert right.ok and not right.alternatives


def test_a_join_on_columns_the_schema_does_not_relate_offers_its_key(tmp_path: Path) -> None:
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE customers(customer_id INTEGER PRIMARY KEY, name TEXT);"
            "CREATE TABLE orders(order_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(customer_id),"
            " amount INTEGER);"
            "INSERT INTO customers VALUES (1,'Asha'),(2,'Ravi'),(3,'Meera');"
            "INSERT INTO orders VALUES (1,2,10),(2,2,20),(3,1,5);")
    db = open_database(str(path))
    try:
        wrong = _ask(db, "SELECT c.name, SUM(o.amount) FROM orders o JOIN customers c ON o.order_id = c.customer_id "
                         "GROUP BY c.name", "amount per customer")
        assert wrong.ok and sorted(wrong.rows) == [("Asha", 10), ("Meera", 5), ("Ravi", 20)]
        keyed = next(a for a in wrong.alternatives if a.label == "Joined on the schema's key")
        assert sorted(db.execute(keyed.sql).rows) == [("Asha", 5), ("Ravi", 30)]
        assert "orders.customer_id = customers.customer_id" in keyed.why
        right = _ask(db, "SELECT c.name, SUM(o.amount) FROM orders o JOIN customers c ON c.customer_id = "
                         "o.customer_id GROUP BY c.name", "amount per customer")
        assert right.ok and not right.alternatives
    finally:
        db.close()


def test_another_query_of_the_reply_is_offered_only_when_its_rows_differ(school) -> None:
    draft = "```sql\nSELECT name FROM teacher\n```\nCorrected:\n```sql\nSELECT name FROM teacher ORDER BY name LIMIT 2\n```"
    same = "```sql\nSELECT COUNT(*) FROM teacher\n```\nor:\n```sql\nSELECT COUNT(tid) FROM teacher\n```"
    answered = AskPipeline(school, ScriptedLLM(draft, draft, draft, draft), Settings()).ask("two teachers by name")
    assert answered.ok and list(answered.rows) == [("Ada",), ("Bo",)]
    (other,) = answered.alternatives
    assert other.label == "Another query in the model's reply" and "4 rows instead of 2" in other.why
    quiet = AskPipeline(school, ScriptedLLM(same, same, same, same), Settings()).ask("how many teachers")
    assert quiet.ok and not quiet.alternatives


def test_a_check_written_after_the_answer_is_not_run_in_its_place(school) -> None:
    """A reply with the answer, then "to check, count the rows": the count is a look at the data, not an answer;
    the first runs and the count is not offered as another answer."""
    reply = ("```sql\nSELECT title FROM course ORDER BY title\n```\nTo check how many there are:\n"
             "```sql\nSELECT COUNT(*) FROM course\n```")
    answer = AskPipeline(school, ScriptedLLM(reply, reply, reply, reply), Settings()).ask(
        "course titles in alphabetical order")
    assert answer.ok and list(answer.rows) == [("Art",), ("Logic",), ("Maths",)]
    assert not any(a.label == "Another query in the model's reply" for a in answer.alternatives)


def test_a_draft_and_its_fix_both_naming_the_columns_run_the_fix(school) -> None:
    reply = ("```sql\nSELECT title FROM course ORDER BY titel\n```\nSorry, corrected:\n"
             "```sql\nSELECT title FROM course WHERE tid = 1 ORDER BY title\n```")
    answer = AskPipeline(school, ScriptedLLM(reply, reply, reply, reply), Settings()).ask("titles of teacher 1's courses")
    assert answer.ok and list(answer.rows) == [("Logic",), ("Maths",)]


@pytest.mark.parametrize("reply", [
    "```sql\nSELECT name FROM teacher ORDER BY name LIMIT 2\n```\nYou can verify the table size with:\n"
    "```sql\nSELECT COUNT(*) FROM teacher\n```",
    "```sql\nSELECT name FROM teacher ORDER BY name LIMIT 2\n```\nAnd a look at the data:\n```sql\nSELECT * FROM teacher "
    "LIMIT 5\n```",
])
def test_a_look_at_the_data_after_the_answer_is_not_run_in_its_place(school, reply) -> None:
    answer = AskPipeline(school, ScriptedLLM(reply, reply, reply, reply), Settings()).ask("first two, alphabetically")
    assert answer.ok and list(answer.rows) == [("Ada",), ("Bo",)]


def test_a_look_at_the_data_before_the_answer_still_leaves_the_answer_last(school) -> None:
    reply = ("First a look:\n```sql\nSELECT * FROM teacher LIMIT 3\n```\nNow the answer:\n```sql\nSELECT COUNT(*) "
             "FROM teacher WHERE name LIKE 'B%'\n```")
    answer = AskPipeline(school, ScriptedLLM(reply, reply, reply, reply), Settings()).ask("teachers starting with B")
    assert answer.ok and list(answer.rows) == [(1,)]


def test_a_count_asked_for_beside_a_sample_of_rows_runs_the_count(school) -> None:
    reply = ("```sql\nSELECT COUNT(*) FROM teacher\n```\nAnd a few rows to see them:\n```sql\nSELECT * FROM teacher "
             "LIMIT 5\n```")
    answer = AskPipeline(school, ScriptedLLM(reply, reply, reply, reply), Settings()).ask("How many teachers are there?")
    assert answer.ok and list(answer.rows) == [(4,)]


@pytest.mark.parametrize(("reply", "question", "rows"), [
    # sorted rows are the answer ("the two first alphabetically"), not a look; the sample before them is the look
    ("Check the format:\n```sql\nSELECT name FROM teacher LIMIT 3\n```\nNow:\n```sql\nSELECT * FROM teacher ORDER BY "
     "name DESC LIMIT 2\n```", "the last two teachers alphabetically", [(3, "Cy"), (4, "Dee")]),
    # the whole table asked for, then "if you only need the number": the rows
    ("```sql\nSELECT * FROM teacher\n```\nIf you only need the number:\n```sql\nSELECT COUNT(*) FROM teacher\n```",
     "list all teachers", [(1, "Ada"), (2, "Bo"), (3, "Cy"), (4, "Dee")]),
    # a sample of columns, then the count asked for
    ("```sql\nSELECT tid, name FROM teacher LIMIT 2\n```\nAnd the number:\n```sql\nSELECT COUNT(*) FROM teacher\n```",
     "how many teachers are there?", [(4,)]),
])
def test_a_sample_or_a_count_beside_the_answer_is_the_look(school, reply, question, rows) -> None:
    answer = AskPipeline(school, ScriptedLLM(reply, reply, reply, reply), Settings()).ask(question)
    assert answer.ok and sorted(answer.rows) == rows


def test_a_sample_of_the_size_the_question_asks_for_is_the_answer(school) -> None:
    reply = ("First the teachers per course count:\n```sql\nSELECT tid, COUNT(*) FROM course GROUP BY tid\n```\n"
             "And three teachers:\n```sql\nSELECT * FROM teacher LIMIT 3\n```")
    answer = AskPipeline(school, ScriptedLLM(reply, reply, reply, reply), Settings()).ask("show me any 3 teachers")
    assert answer.ok and len(answer.rows) == 3 and len(answer.rows[0]) == 2
