"""Syntax slips a small model makes that have one reading (core.sql._slips): a ')' or an END missing, a ')' that
closes nothing, a comma missing between two select items. Each is mended only when every place the edit may go
that parses gives the same query; otherwise the query is refused as written and the model is asked again. Real
SQLite through Cairn's pipeline; the model is scripted.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.config import Settings
from core.databases import open_database
from core.databases import QueryResult
from core.errors import QueryFailed, SQLReadings, SQLRejected, SQLValidationError
from core.evidence import agreeing_reading
from core.pipeline import AskPipeline
from core.sql import guard, silences_an_error
from tests.fakes.scripted_llm import ScriptedLLM


@pytest.fixture()
def shop(tmp_path: Path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE sale(id INTEGER, town TEXT, amount REAL);"
            "INSERT INTO sale VALUES (1,'Pune',10),(2,'Pune',20),(3,'Agra',5);"
        )
    db = open_database(str(path))
    yield db
    db.close()


@pytest.mark.parametrize(("reply", "rows", "said"), [
    ("SELECT s.town s.amount FROM sale s WHERE s.id = 1", [("Pune", 10.0)], "missing comma"),
    ("SELECT a.town FROM sale AS a JOIN sale AS b b.id = a.id WHERE a.amount > 15", [("Pune",)], "ON of a JOIN"),
    ("SELECT COUNT(DISTINCT town FROM sale", [(2,)], "missing ')'"),
    # a ')' between a qualifier and its column (``SUM(s).amount``) is no reading
    ("SELECT s.town, SUM(s.amount AS total FROM sale AS s GROUP BY s.town", [("Agra", 5.0), ("Pune", 30.0)],
     "missing ')'"),
    # a function of text is handed no true/false (``LOWER(town LIKE 'p%')``), a list after IN is no table's columns
    ("SELECT id FROM sale WHERE LOWER(town LIKE LOWER('P%') ORDER BY id", [(1,), (2,)], "missing ')'"),
    ("SELECT id FROM sale WHERE amount > 1 AND LOWER(town IN ('agra', 'delhi') ORDER BY id", [(3,)], "missing ')'"),
    ("```sql\nSELECT town, SUM(amount)) AS total FROM sale GROUP BY town\n```", [("Agra", 5.0), ("Pune", 30.0)],
     "too many"),
    ("SELECT id, CASE WHEN amount > 8 THEN 'big' ELSE 'small' AS size FROM sale WHERE id < 3",
     [(1, "big"), (2, "big")], "END of CASE"),
    # a quoted value left open: its end is where the one reading that parses puts it
    ("SELECT id FROM sale WHERE town = 'Pune AND amount > 15", [(2,)], "quoted value"),
    ("```sql\nSELECT id FROM sale WHERE town IN ('Agra, 'Delhi') ORDER BY id;\n```", [(3,)], "quoted value"),
    ("SELECT COUNT(*) FROM sale WHERE LOWER(town) LIKE LOWER('%pun%) AND id > 0", [(2,)], "quoted value"),
    ("```sql\nSELECT SUM(amount) FROM sale WHERE town = 'Pune;\n```\nThis adds Pune's sales.", [(30.0,)],
     "quoted value"),
    # a quoted value left unopened: its start is after the comparison or bracket before it
    ("SELECT id FROM sale WHERE town = Pune' AND amount > 15", [(2,)], "left unopened"),
    ("```sql\nSELECT id FROM sale WHERE town = 'Agra' OR town = Delhi' ORDER BY id;\n```", [(3,)], "left unopened"),
    ("SELECT COUNT(*) FROM sale WHERE town IN ('Agra', Pune')", [(3,)], "left unopened"),
    ("SELECT COUNT(*) FROM sale WHERE LOWER(town) LIKE LOWER(%pun%') AND id > 0", [(2,)], "left unopened"),
    # never before LIKE, BETWEEN or INTERVAL (any case), nor before an operator set off by spaces
    ("SELECT id FROM sale WHERE amount > 15 OR town like %gra' ORDER BY id", [(2,), (3,)], "left unopened"),
    ("SELECT town, SUM(amount) AS total sales FROM sale GROUP BY town", [("Agra", 5.0), ("Pune", 30.0)],
     "alias of several words"),
    # a ')' too many after a CTE: '((SELECT …))' is the same query as '(SELECT …)'
    ("WITH t AS (SELECT town, amount FROM sale)) SELECT town FROM t WHERE amount > 15;", [("Pune",)], "too many"),
    # an apostrophe inside a word of a value, not doubled: 'O''Brien' is the one reading
    ("```sql\nSELECT COUNT(*) FROM sale WHERE town <> 'O'Brien' AND amount > 6;\n```", [(2,)], "apostrophe"),
])
def test_a_slip_with_one_reading_is_mended_and_said(shop, reply, rows, said) -> None:
    answer = AskPipeline(shop, ScriptedLLM(reply, reply, reply), Settings()).ask("sales")
    assert answer.ok and sorted(answer.rows) == rows
    assert any(said in n for n in answer.notes) and answer.path == "repaired"


@pytest.mark.parametrize("sql", [
    "SELECT id FROM sale WHERE (town = 'Pune' AND amount > 5",  # the ')' may close before or after AND
    "SELECT id FROM sale WHERE id IN (1, 2 AND amount > 5",
    "SELECT 'big AS size, town FROM sale",  # 'big' AS size or 'big AS' size
    "SELECT id FROM sale WHERE town = 'Pune",  # the text stops inside the value: it may have been cut there
])
def test_a_slip_with_two_readings_is_refused_as_written(sql) -> None:
    with pytest.raises(SQLRejected, match="could not be parsed"):
        guard(sql, "sqlite")


def test_a_value_left_unopened_opens_before_its_first_word() -> None:
    assert "town = 'Pune North' AND" in guard("SELECT id FROM sale WHERE town = Pune North' AND amount > 5", "sqlite").sql


def test_a_query_that_parses_is_never_mended() -> None:
    assert guard("SELECT town AS t FROM sale", "sqlite").mended == ""


def test_a_slip_whose_readings_give_the_same_rows_is_answered_and_said(shop) -> None:
    # SUM(amount) * 2 or SUM(amount * 2): the ')' may go in two places, and both give the same rows
    reply = "```sql\nSELECT town, SUM(amount * 2 AS doubled FROM sale GROUP BY town;\n```"
    answer = AskPipeline(shop, ScriptedLLM(reply, reply, reply), Settings()).ask("twice the sales per town")
    assert answer.ok and sorted(answer.rows) == [("Agra", 10.0), ("Pune", 60.0)]
    assert any("2 places, which give the same rows" in n for n in answer.notes)


def _readings_settled(*failing: str, rows=None):
    """agreeing_reading over three readings of a slip, the ``failing`` ones rejected by the schema or database."""
    slip = SQLReadings("the SQL could not be parsed", [("q1", "closed a value"), ("q2", "closed a value"),
                                                        ("q3", "closed a value")])

    def check(text: str) -> str:
        if text in failing:
            raise (SQLValidationError if text == "q2" else QueryFailed)(f"{text} does not run")
        return text

    return agreeing_reading(slip, check, lambda sql: QueryResult(("n",), (((rows or {}).get(sql, 1),),), False, 0.0))


def test_readings_the_database_rejects_are_none_and_the_rest_is_a_guess_the_model_sees_first() -> None:
    text, said = _readings_settled("q2", "q3")
    assert text == "q1" and "the one reading of 3 that the database runs" in said and silences_an_error(said)
    text, said = _readings_settled("q2")
    assert text == "q1" and "the 2 readings, which give the same rows, of 3" in said and silences_an_error(said)
    with pytest.raises(SQLReadings):  # the ones that run disagree: nothing is chosen
        _readings_settled("q2", rows={"q1": 1, "q3": 2})
    with pytest.raises(SQLReadings):  # none runs
        _readings_settled("q1", "q2", "q3")


def test_a_slip_with_readings_that_agree_is_answered_in_a_reply_without_a_fence_too(shop) -> None:
    reply = "Here you go:\nSELECT town, SUM(amount * 2 AS doubled FROM sale GROUP BY town;\nThis doubles it."
    answer = AskPipeline(shop, ScriptedLLM(reply, reply, reply), Settings()).ask("twice the sales per town")
    assert answer.ok and sorted(answer.rows) == [("Agra", 10.0), ("Pune", 60.0)]


def test_a_slip_whose_readings_give_other_rows_is_not_answered_on_a_guess(shop) -> None:
    # SUM(amount) + id or SUM(amount + id): other rows, so no reading is chosen
    reply = "```sql\nSELECT town, SUM(amount + id AS total FROM sale GROUP BY town;\n```"
    answer = AskPipeline(shop, ScriptedLLM(reply, reply, reply), Settings()).ask("sales per town")
    assert answer.path not in ("llm", "repaired") and "SUM(amount" not in (answer.sql or "")  # the fallback's, said


@pytest.mark.parametrize(("sql", "said"), [
    ("SELECT id FROM sale WHERE town IN ('McDonald's', 'Wendy's')", "IN ('McDonald''s', 'Wendy''s')"),
    ("SELECT town, COUNT(*) AS num sales FROM sale GROUP BY town ORDER BY num sales DESC",
     'AS "num sales" FROM sale GROUP BY town ORDER BY "num sales" DESC'),  # the alias used again: quoted there too
    ("SELECT town AS home town, id AS sale number FROM sale", 'town AS "home town", id AS "sale number"'),
])
def test_the_same_slip_made_twice_is_mended_at_once(sql: str, said: str) -> None:
    assert said in guard(sql, "sqlite").sql


@pytest.mark.parametrize(("written", "meant"), [  # fresh24 (held-out, measured): ways of saying SQL it does not write
    ("SELECT town FROM sale WHERE town IS IN ('Pune', 'Agra')", "SELECT town FROM sale WHERE town IN ('Pune', 'Agra')"),
    ("SELECT town FROM sale WHERE town IS NOT IN ('Pune')", "SELECT town FROM sale WHERE NOT town IN ('Pune')"),
    ("SELECT town FROM sale WHERE amount BETWEEN 5 TO 10", "SELECT town FROM sale WHERE amount BETWEEN 5 AND 10"),
    ("SELECT (town AS t, SUM(amount) AS total) FROM sale GROUP BY town",
     "SELECT town AS t, SUM(amount) AS total FROM sale GROUP BY town"),
    ("SELECT (town, amount) FROM sale", "SELECT town, amount FROM sale"),  # a record on PostgreSQL: its columns
    ("SELECT town, ROUND(AVG(amount); 1) FROM sale GROUP BY town", "SELECT town, ROUND(AVG(amount), 1) FROM sale GROUP BY town"),
    ("SELECT town FROM sale WHERE town = ''Pune'' OR town = ''O''''Neil''",
     "SELECT town FROM sale WHERE town = 'Pune' OR town = 'O''Neil'"),
    ("SELECT town FROM sale WHERE day >= #2023-01-01# AND day < #3/1/2023#",
     "SELECT town FROM sale WHERE day >= '2023-01-01' AND day < '2023-03-01'"),
    ("SELECT town FROM sale WHERE day >= #2023-3-1# AND day < #1/15/2023 10:00:00#",  # attack round 15: padded, a time
     "SELECT town FROM sale WHERE day >= '2023-03-01' AND day < '2023-01-15 10:00:00'"),
    ("SELECT (town, amount) FROM sale GROUP BY (town, amount) ORDER BY (town, amount)",  # its keys with it
     "SELECT town, amount FROM sale GROUP BY town, amount ORDER BY town, amount"),
    # forms that parse as something else, read before parsing: '' % pun % '' is text modulo a column
    ("SELECT town FROM sale WHERE LOWER(town) LIKE ''%pun%''", "SELECT town FROM sale WHERE LOWER(town) LIKE '%pun%'"),
    ("SELECT UNIQUE town FROM sale", "SELECT DISTINCT town FROM sale"),
    ("SELECT CASE WHEN town IS IN ('Pune') THEN 1 ELSE 0 END AS p FROM sale",
     "SELECT CASE WHEN town IN ('Pune') THEN 1 ELSE 0 END AS p FROM sale"),
])
@pytest.mark.parametrize("dialect", ["sqlite", "postgres"])
def test_another_tools_way_of_writing_sql_is_read(written: str, meant: str, dialect: str) -> None:
    sql = guard(written, dialect).sql
    assert sql.replace("CAST(AVG(amount) AS DECIMAL)", "AVG(amount)") == meant, sql


def test_a_glob_with_likes_wildcards_is_read_as_like(shop) -> None:
    """``GLOB '%un%'`` matches only the letters ``%un%`` (SQLite runs it: no row); LIKE's wildcards say LIKE (a guess);
    a GLOB pattern of its own, or an underscore alone (a value's letter), is left."""
    out = guard("SELECT town FROM sale WHERE town GLOB '%un%'", "sqlite")
    assert "GLOB '*un*'" in out.sql and "(a guess" in out.mended  # GLOB's case as written (attack round 15)
    assert "LIKE '%un%'" in guard("SELECT town FROM sale WHERE town GLOB '%un%'", "postgres").sql  # no GLOB there
    for kept in ("SELECT town FROM sale WHERE town GLOB 'P*'", "SELECT town FROM sale WHERE town GLOB 'user_1'",
                 "SELECT town FROM sale WHERE note GLOB '50%'"):  # a percent after a number: a percent sign
        assert guard(kept, "sqlite").sql == kept


def test_a_day_no_calendar_has_is_not_made() -> None:
    """Attack round 15: ``#25/12/2023#`` (no 25th month, and Access reads month first) is left, no reading made."""
    with pytest.raises(SQLRejected):
        guard("SELECT town FROM sale WHERE day = #25/12/2023#", "sqlite")


def test_an_impossible_date_in_the_query_is_no_crash(shop) -> None:
    """Attack round 15: ``'2023-02-29'`` (a model's slip) reached the question's date check, which raised."""
    llm = ScriptedLLM(*["SELECT COUNT(*) FROM sale WHERE town BETWEEN '2023-02-01' AND '2023-02-29'"] * 3)
    answer = AskPipeline(shop, llm, Settings()).ask("How many sales from Feb 1, 2023 to Feb 28, 2023?")
    assert answer.error is None or "Traceback" not in answer.error


@pytest.mark.parametrize("sql", ["SELECT town FROM sale WHERE town NOT IN ('Pune')", "SELECT town FROM sale WHERE town = ''",
                                 "SELECT town FROM sale WHERE town = 'O''Neil'", "SELECT '' AS blank, town FROM sale"])
def test_sql_as_written_is_not_read_otherwise(sql: str) -> None:
    assert guard(sql, "sqlite").mended == ""


@pytest.mark.parametrize("dialect", ["sqlite", "postgres"])
def test_a_difference_of_days_of_the_month_is_read_as_the_days_between(dialect: str) -> None:
    """fresh24: ``strftime('%d', paid) - strftime('%d', sold)`` is 3 from Feb 26 to Mar 1; the days between the dates
    are the same number within one month and the meant one across months (a guess)."""
    from core.schema import Column, Schema, Table
    from core.sql import validate_sql
    schema = Schema(dialect=dialect, tables=(Table("t", (Column("paid", "date"), Column("sold", "date"))),))
    sql = ("SELECT strftime('%d', paid) - strftime('%d', sold) AS days FROM t" if dialect == "sqlite" else
           "SELECT EXTRACT(DAY FROM paid) - EXTRACT(DAY FROM sold) AS days FROM t")
    out = validate_sql(sql, schema, dialect)
    assert ("JULIANDAY(DATE(paid)) - JULIANDAY(DATE(sold))" if dialect == "sqlite" else
            "CAST(paid AS DATE) - CAST(sold AS DATE)") in out.sql and any("(a guess" in f for f in out.fixes)
    kept = "SELECT EXTRACT(DAY FROM paid) - 1 AS d FROM t"  # one day of the month: as written
    assert validate_sql(kept, schema, dialect).fixes == ()


def test_days_between_dates_across_a_month_end(shop, tmp_path) -> None:
    import sqlite3 as _sqlite3
    path = tmp_path / "pay.sqlite"
    with _sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE pay(id INTEGER, sold TEXT, paid TEXT);"
                           "INSERT INTO pay VALUES (1,'2023-02-26','2023-03-01'),(2,'2023-03-02','2023-03-09');")
    db = open_database(str(path))
    try:
        reply = "SELECT id, strftime('%d', paid) - strftime('%d', sold) AS days FROM pay ORDER BY id"
        answer = AskPipeline(db, ScriptedLLM(reply, reply, reply), Settings()).ask("Days from sale to payment per id")
    finally:
        db.close()
    assert [tuple(r) for r in answer.rows] == [(1, 3), (2, 7)], (answer.sql, answer.notes)


@pytest.mark.parametrize(("sql", "read"), [  # fresh25
    ("SELECT a FROM t WHERE d > = 3 AND e < > 2 AND f ! = 1", "SELECT a FROM t WHERE d >= 3 AND e <> 2 AND f <> 1"),
    ("SELECT 'x' | | a FROM t", "SELECT 'x' || a FROM t"),
    ("SELECT COUNT(*) * 1.0 / NULLIF((SELECT COUNT(*) FROM t;), 0) FROM t",
     "SELECT COUNT(*) * 1.0 / NULLIF((SELECT COUNT(*) FROM t), 0) FROM t"),
])
def test_operators_written_apart_and_a_semicolon_inside_brackets_are_read(sql: str, read: str) -> None:
    guarded = guard(sql, "sqlite")
    assert guarded.sql == read and guarded.mended


@pytest.mark.parametrize("sql", ["SELECT '> =' AS a FROM t", "SELECT a FROM t WHERE b = '| |'",
                                 "SELECT a FROM t WHERE b = 'x;)'"])
def test_operators_inside_values_stay(sql: str) -> None:
    assert guard(sql, "sqlite").sql == sql


def test_a_qualifier_written_twice_or_after_its_column_is_read() -> None:
    from core.schema import Column, Schema, Table
    from core.sql import validate_sql
    schema = Schema(dialect="postgres", tables=(Table("author", (Column("aid", "int"), Column("name", "text"))),
                                                Table("domain", (Column("did", "int"), Column("name", "text")))))
    assert validate_sql("SELECT domain.domain.name FROM domain", schema, "postgres").sql == \
        "SELECT domain.name FROM domain"
    assert validate_sql("SELECT name.author FROM author", schema, "postgres").sql == "SELECT author.name FROM author"
    schemas = Schema(dialect="postgres", tables=(Table("domain", (Column("name", "text"),), schema="domain"),))
    kept = validate_sql("SELECT domain.domain.name FROM domain.domain", schemas, "postgres")
    assert "domain.domain.name" in kept.sql  # a schema of that name: as written
