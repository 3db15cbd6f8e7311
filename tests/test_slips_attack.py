"""Attacks on the syntax-slip mending (core.sql._slips), the JSON reply reading (core.sql.layout._json)
and the removal of aggregates from GROUP BY (core.sql.repair.grouping._groupby._drop_grouped_aggregates).

Each test asserts the correct behaviour; real SQLite through Cairn's pipeline where rows matter, with a scripted model.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from core.config import Settings
from core.databases import open_database
from core.errors import LLMReplyError, SQLRejected
from core.pipeline import AskPipeline
from core.sql import extract_queries, guard
from tests.fakes.scripted_llm import ScriptedLLM
from tests.parse_counting import count_parses

_SHOP = (
    "CREATE TABLE sale(id INTEGER PRIMARY KEY, town TEXT, amount REAL, refund REAL, total REAL);"
    "INSERT INTO sale VALUES (1,'Pune',10,1,10),(2,'Pune',20,0,20),(3,'Agra',5,0,5),(4,'Agra',9,2,27),"
    "(5,'Delhi',7,0,9),(6,'Pune',10,0,20);"
)


@pytest.fixture()
def shop(tmp_path: Path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(_SHOP)
    db = open_database(str(path))
    yield db, path
    db.close()


def _ask(db, reply: str):
    return AskPipeline(db, ScriptedLLM(reply, reply, reply), Settings()).ask("sales")


def _direct(path: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return sorted(conn.execute(sql).fetchall())


# --- mend_syntax: a reading picked where the person plausibly meant another -------------------------------------

def test_a_stray_close_paren_is_not_read_as_one_too_many_when_an_open_paren_may_be_missing(shop) -> None:
    # "(Pune or Agra) and amount > 15" with its '(' lost: removing the ')' silently gives
    # Pune OR (Agra AND amount > 15), i.e. every Pune sale. Adding the '(' is an equally small edit with
    # another reading, so the slip has two readings and must be refused, not mended.
    db, _ = shop
    reply = "SELECT id FROM sale WHERE town = 'Pune' OR town = 'Agra') AND amount > 15"
    with pytest.raises(SQLRejected):
        guard(reply, "sqlite")
    answer = _ask(db, reply)
    assert not (answer.ok and sorted(answer.rows) == [(1,), (2,), (6,)])  # rows of a reading never meant


def test_a_stray_close_paren_in_arithmetic_is_not_mended_to_other_arithmetic() -> None:
    # (amount - 5) * 2 with its '(' lost: mended to amount - 5 * 2 = amount - 10.
    with pytest.raises(SQLRejected):
        guard("SELECT id, amount - 5) * 2 AS doubled_net FROM sale", "postgres")


def test_the_cap_on_tries_does_not_turn_an_ambiguous_slip_into_one_reading() -> None:
    # The short form of this query is refused (the ')' may close the subquery before AND or at the end); with a
    # long IN list the end-of-text reading lies past _MAX_TRIES and is never tried, so the other is taken.
    short = "SELECT id FROM sale WHERE amount > (SELECT AVG(amount) FROM sale WHERE town LIKE 'P%' AND id IN (1, 2, 3)"
    with pytest.raises(SQLRejected):
        guard(short, "sqlite")
    ids = ", ".join(str(i) for i in range(1, 131))
    long = f"SELECT id FROM sale WHERE amount > (SELECT AVG(amount) FROM sale WHERE town LIKE 'P%' AND id IN ({ids})"
    with pytest.raises(SQLRejected):
        guard(long, "sqlite")


def test_a_missing_close_paren_before_an_operator_is_a_reading_too() -> None:
    # ORDER BY (amount - refund) * 3 with the ')' lost: only places before clause words are tried, so the one
    # reading found is (amount - refund * 3), which orders the rows differently.
    with pytest.raises(SQLRejected):
        guard("SELECT id FROM sale ORDER BY (amount - refund * 3 LIMIT 1", "sqlite")


# --- json_queries: a JSON string that is not the answer taken as the answer -----------------------------------

def test_json_prose_in_an_explanation_is_not_taken_as_the_query(shop) -> None:
    db, path = shop
    reply = json.dumps({"explanation": "Select town from sale. Then count the rows of each town.",
                        "sql": "SELECT town, COUNT(*) AS n FROM sale GROUP BY town"})
    assert extract_queries(reply, "sqlite")[0] == "SELECT town, COUNT(*) AS n FROM sale GROUP BY town"
    answer = _ask(db, reply)
    assert answer.ok and sorted(answer.rows) == _direct(path, "SELECT town, COUNT(*) FROM sale GROUP BY town")


@pytest.mark.parametrize(("reply", "answer"), [
    ({"draft_sql": "SELECT town, amount FROM sale",
      "final_sql": "SELECT town, SUM(amount) AS total FROM sale GROUP BY town"},
     "SELECT town, SUM(amount) AS total FROM sale GROUP BY town"),
    ({"bad_query": "SELECT town, amount FROM sale GROUP BY town",
      "sql": "SELECT town, MAX(amount) FROM sale GROUP BY town"},
     "SELECT town, MAX(amount) FROM sale GROUP BY town"),
    ({"example": "SELECT * FROM sale LIMIT 5", "sql": "SELECT COUNT(*) FROM sale"}, "SELECT COUNT(*) FROM sale"),
    ({"steps": [{"sql": "SELECT COUNT(*) FROM sale"}, {"sql": "SELECT town FROM sale"}],
      "sql": "SELECT town, COUNT(*) FROM sale GROUP BY town"},
     "SELECT town, COUNT(*) FROM sale GROUP BY town"),
])
def test_json_answer_is_the_sql_key_not_the_first_query_string(reply, answer) -> None:
    assert extract_queries(json.dumps(reply), "sqlite")[0] == answer


def test_json_write_in_the_sql_key_is_not_replaced_by_another_keys_select() -> None:
    # The answer is a write (the guard must refuse it with a reason); a side query must not run in its place.
    reply = json.dumps({"sql": "UPDATE sale SET amount = 0", "check": "SELECT COUNT(*) FROM sale"})
    assert extract_queries(reply, "sqlite")[0].startswith("UPDATE")


def test_json_object_followed_by_braces_in_prose_is_still_read() -> None:
    reply = 'Sure! {"sql": "SELECT id FROM sale WHERE amount > 5"}. Note: {x} is a placeholder.'
    assert extract_queries(reply, "sqlite")[0] == "SELECT id FROM sale WHERE amount > 5"


# --- _drop_grouped_aggregates: a valid query changed ---------------------------------------------------------

@pytest.mark.parametrize("sql", [
    # GROUP BY amount / total names the table's column (SQLite and PostgreSQL resolve an input column first),
    # not the output alias of the aggregate: valid as written.
    "SELECT town, SUM(amount) AS amount, COUNT(*) AS n FROM sale GROUP BY town, amount",
    "SELECT town, COUNT(*) AS total FROM sale GROUP BY town, total",
])
def test_a_grouped_column_named_like_an_aggregate_alias_stays_grouped(shop, sql) -> None:
    db, path = shop
    answer = _ask(db, sql)
    assert answer.ok and sorted(answer.rows) == _direct(path, sql)
    assert not any("from GROUP BY" in n for n in answer.notes)


def test_group_by_positions_count_the_columns_a_star_expands_to(shop) -> None:
    # With SELECT *, position 2 is the table's second column (town), not the COUNT(*) written second.
    db, path = shop
    sql = "SELECT *, COUNT(*) AS n FROM sale GROUP BY 2, 3"
    answer = _ask(db, sql)
    assert not any("removed 2 from GROUP BY" in n for n in answer.notes)
    if answer.ok:
        assert len(answer.rows) == len(_direct(path, sql))


# --- slowness -------------------------------------------------------------------------------------------------

def test_a_long_reply_with_a_slip_is_read_with_bounded_work(monkeypatch: pytest.MonkeyPatch) -> None:
    # ~1,500 words (~5,000 tokens) of SQL with one ')' too many at the end: extract_queries took ~30 s once (ask()
    # ~100 s), each of up to 120 mend tries parsing the whole text in six dialects; later the same cut was still
    # parsed 49 times (each dialect from several places, ~3 s). The work is counted, not timed (bench/ times things):
    # the whole statement is parsed at most once per dialect, and the text parsed in all is a few times the reply.
    parsed = count_parses(monkeypatch)
    cols = ", ".join(f"SUM(CASE WHEN town = 'T{i}' THEN amount ELSE 0 END) AS c{i}" for i in range(120))
    reply = f"Here you go:\n```sql\nSELECT town, {cols}) FROM sale GROUP BY town\n```\nThis pivots."
    try:
        extract_queries(reply, "sqlite")
    except LLMReplyError:
        pass
    whole = [n for n in parsed if n > len(reply) // 2]
    assert len(whole) <= 8, f"the whole statement was parsed {len(whole)} times"
    assert sum(parsed) <= 10 * len(reply), f"{sum(parsed):,} characters parsed for a {len(reply):,}-character reply"


# --- a slip with one reading refused ---------------------------------------------------------------------------

def test_a_missing_end_right_before_a_paren_is_mended() -> None:
    # "END " is inserted without a space before it: "ELSE 0)" becomes "ELSE 0END )", which never parses, so the
    # commonest form of the slip (CASE inside SUM) is refused although it has one reading.
    out = guard("SELECT SUM(CASE WHEN amount > 8 THEN amount ELSE 0) AS big FROM sale", "sqlite")
    assert "END" in out.sql and out.mended
