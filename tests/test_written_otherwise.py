"""SQL written in another habit that no database here runs as written, read the one way it can mean (issue 27,
fresh13's kinds): a second WHERE of one clause, T-SQL's ``alias = expression``, an aggregate of an aggregate, and
DuckDB's ``GROUP BY ALL``. Each reading is said in the answer's notes; real SQLite through Cairn's pipeline."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.config import Settings
from core.databases import open_database
from core.errors import SQLRejected
from core.pipeline import AskPipeline
from core.sql import guard
from tests.fakes.scripted_llm import ScriptedLLM


@pytest.fixture()
def shop(tmp_path: Path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE sale(id INTEGER, seller TEXT, amount REAL, status TEXT);"
            "INSERT INTO sale VALUES (1,'ann',10,'paid'),(2,'ann',20,'paid'),(3,'bo',5,'open'),(4,'bo',7,'paid'),"
            "(5,'cy',1,'paid');")
    db = open_database(str(path))
    yield db
    db.close()


def _ask(db, sql: str):
    return AskPipeline(db, ScriptedLLM(sql, sql, sql), Settings()).ask("the question")


def test_a_second_where_is_read_as_and_only_where_no_or_stands_outside_brackets() -> None:
    mended = guard("SELECT id FROM sale WHERE status = 'paid' WHERE amount > 5", "sqlite")
    assert mended.sql == "SELECT id FROM sale WHERE status = 'paid' AND amount > 5" and "second WHERE" in mended.mended
    assert "AND" in guard("SELECT id FROM sale WHERE (a = 1 OR b = 2) WHERE c = 3", "postgres").sql
    with pytest.raises(SQLRejected):  # a = 1 OR b = 2 AND c = 3 would join the OR otherwise
        guard("SELECT id FROM sale WHERE a = 1 OR b = 2 WHERE c = 3", "postgres")
    for denied in ("SELECT id FROM sale WHERE note IS NULL WHERE note IS NOT NULL",  # together no row: which one?
                   "SELECT id FROM sale s WHERE s.Note IS NULL WHERE note IS NOT NULL",  # however the column is written
                   "SELECT id FROM sale WHERE amount >= 50 WHERE 50 > amount",
                   "SELECT id FROM sale WHERE status = 'paid' WHERE status <> 'paid'",
                   "SELECT id FROM sale WHERE amount > 5 WHERE NOT amount > 5"):
        with pytest.raises(SQLRejected):
            guard(denied, "postgres")


def test_tsql_alias_assignment_is_read_as_an_alias(shop) -> None:
    answer = _ask(shop, "SELECT seller, total = SUM(amount) FROM sale GROUP BY seller ORDER BY total DESC")
    assert answer.ok and answer.columns == ("seller", "total") and answer.rows[0] == ("ann", 30.0)
    assert any("alias = expression" in n for n in answer.notes)
    compared = _ask(shop, "SELECT id, status = 'paid' AS paid FROM sale ORDER BY id")  # a comparison stays one
    assert compared.ok and compared.rows[0] == (1, 1)
    # a column the query has, compared with what its join already equates: true on every row, so an alias
    joined = _ask(shop, "SELECT DISTINCT seller = s.seller FROM sale s JOIN sale t ON s.seller = t.seller "
                  "WHERE s.status = 'open'")
    assert joined.ok and joined.rows == (("bo",),) and any("same on every row" in n for n in joined.notes)


def test_an_aggregate_of_an_aggregate_is_read_per_group_or_over_the_groups(shop) -> None:
    per_group = _ask(shop, "SELECT seller, SUM(SUM(amount)) AS total FROM sale GROUP BY seller")
    assert per_group.ok and sorted(per_group.rows) == [("ann", 30.0), ("bo", 12.0), ("cy", 1.0)]
    over_groups = _ask(shop, "SELECT AVG(COUNT(*)) AS sales_per_seller FROM sale GROUP BY seller")
    assert over_groups.ok and over_groups.rows == ((pytest.approx(5 / 3),),)
    assert any("over the groups" in n for n in over_groups.notes)
    one_total = _ask(shop, "SELECT SUM(COUNT(*)) AS n FROM sale WHERE status = 'paid'")
    assert one_total.ok and one_total.rows == ((4,),)


def test_group_by_all_is_read_as_every_column_shown(shop) -> None:
    answer = _ask(shop, "SELECT seller, status, COUNT(*) AS n FROM sale GROUP BY ALL ORDER BY n DESC, seller")
    assert answer.ok and answer.rows[0] == ("ann", "paid", 2) and len(answer.rows) == 4


# --- attack round 4 on the readings above -----------------------------------------------------------------------------

def test_a_nested_aggregate_keeps_the_expression_around_it_and_several_read_over_the_groups(shop) -> None:
    share = _ask(shop, "SELECT 100.0 * MAX(COUNT(*)) / 5 AS pct FROM sale GROUP BY seller")
    assert share.ok and share.rows == ((40.0,),)
    spread = _ask(shop, "SELECT MAX(COUNT(*)) - MIN(COUNT(*)) AS spread FROM sale GROUP BY seller")
    assert spread.ok and spread.rows == ((1,),)
    distinct = _ask(shop, "SELECT DISTINCT AVG(COUNT(*)) FROM sale GROUP BY seller")
    assert distinct.ok and distinct.rows == ((pytest.approx(5 / 3),),)
    having = _ask(shop, "SELECT AVG(COUNT(*)) FROM sale GROUP BY seller HAVING COUNT(*) > 1")
    assert not having.ok or len(having.rows) == 1  # no reading of its own: never per-group counts unlabelled


def test_a_comparison_on_a_cte_column_is_not_read_as_an_alias(shop) -> None:
    answer = _ask(shop, "WITH t AS (SELECT seller, SUM(amount) AS total FROM sale GROUP BY seller) "
                        "SELECT seller, total = (SELECT MAX(total) FROM t) AS top FROM t ORDER BY seller")
    assert answer.ok and answer.rows == (("ann", 1), ("bo", 0), ("cy", 0))


def test_a_second_where_after_a_join_is_not_moved_into_it() -> None:
    with pytest.raises(SQLRejected):
        guard("SELECT c.name FROM customer c WHERE c.city = 'Oslo' LEFT JOIN orders o ON o.customer_id = c.id "
              "WHERE o.status = 'paid'", "sqlite")


def test_escapes_inside_a_value_of_a_query_with_real_lines_are_kept() -> None:
    from core.sql import extract_sql

    reply = ("```sql\nSELECT seller FROM sale WHERE path = 'C:\\new';\n```\nIn Python: \"SELECT seller\\nFROM sale\".")
    assert "'C:\\new'" in extract_sql(reply, "sqlite")
    stored = "```sql\nSELECT spend FROM vendor WHERE name = 'AT&amp;T';\n```"
    assert "'AT&amp;T'" in extract_sql(stored, "sqlite")  # the data may hold the entity: a value is left as written


def test_a_second_where_read_as_and_is_a_guess_the_model_sees_first(shop) -> None:
    written = "SELECT id FROM sale WHERE status = 'paid' WHERE amount > 8"
    fixed = "SELECT id FROM sale WHERE status = 'paid' ORDER BY id"
    llm = ScriptedLLM(written, fixed, fixed)
    answer = AskPipeline(shop, llm, Settings()).ask("the paid sales")
    assert answer.ok and answer.rows == ((1,), (2,), (4,), (5,))  # the model's rewrite, not the AND reading
    assert "a guess" in llm.history[1].user  # the repair prompt says what was guessed
    never = _ask(shop, written)  # a model that never improves: the reading runs, said
    assert never.ok and any("second WHERE" in n for n in never.notes)


def test_a_nested_aggregate_in_a_scalar_subquery_of_having_is_not_read_as_the_inner_one(shop) -> None:
    answer = _ask(shop, "SELECT seller FROM sale GROUP BY seller HAVING COUNT(*) = (SELECT MAX(COUNT(*)))")
    assert not answer.ok or sorted(answer.rows) != [("ann",), ("bo",), ("cy",)]  # never every group


def test_a_json_reply_keeps_its_escapes_for_its_reader() -> None:
    from core.sql import extract_sql

    assert extract_sql('{"sql": "SELECT a\\nFROM t\\nWHERE b = 1", "why": "x"}', "sqlite") == "SELECT a\nFROM t\nWHERE b = 1"
