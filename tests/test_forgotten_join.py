"""A join the model left out while its columns stay in the query: put back only when the schema settles the table and
the key, shown as a guess the model is asked about first, and never read as another table's column."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.config import Settings
from core.databases import open_database
from core.errors import SQLValidationError
from core.pipeline import AskPipeline
from core.sql import silences_an_error, validate_sql
from tests.fakes.scripted_llm import ScriptedLLM

# No declared keys, as in most SQLite files; keys only by convention (``gid`` on genre, ``bid`` on band).
MUSIC = """
CREATE TABLE band(bid INTEGER PRIMARY KEY, title TEXT, formed INTEGER);
CREATE TABLE record(rid INTEGER PRIMARY KEY, name TEXT, bid INTEGER, gid INTEGER, sold INTEGER);
CREATE TABLE genre(gid INTEGER PRIMARY KEY, label TEXT);
CREATE TABLE band_member(bid INTEGER, mid INTEGER);
CREATE TABLE member(mid INTEGER PRIMARY KEY, title TEXT, born INTEGER);
CREATE TABLE poster(pid INTEGER PRIMARY KEY, title TEXT, price REAL);
CREATE TABLE playlist(pid INTEGER PRIMARY KEY, title TEXT, price REAL);
INSERT INTO band VALUES (1, 'Owls', 1990), (2, 'Foxes', 2001), (3, 'Silent', 2010);
INSERT INTO record VALUES (10, 'Hoot', 1, 100, 50), (11, 'Night', 1, 101, 20), (12, 'Den', 2, 100, 5);
INSERT INTO genre VALUES (100, 'rock'), (101, 'folk');
INSERT INTO band_member VALUES (1, 7), (2, 8);
INSERT INTO member VALUES (7, 'Ann', 1970), (8, 'Bo', 1980);
"""


@pytest.fixture()
def music(tmp_path: Path):
    path = tmp_path / "music.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(MUSIC)
    db = open_database(str(path))
    yield db
    db.close()


def _repair(db, sql: str):
    return validate_sql(sql, db.schema(), db.dialect)


def _rows(db, sql: str) -> list[tuple]:
    return sorted(tuple(r) for r in db.execute(sql).rows)


def test_a_table_read_by_its_name_but_never_joined_is_joined_on_its_key(music) -> None:
    fixed = _repair(music, "SELECT genre.label, SUM(record.sold) AS sold FROM record GROUP BY genre.label")
    assert "JOIN genre ON genre.gid = record.gid" in fixed.sql
    assert any(silences_an_error(f) for f in fixed.fixes)  # a guess: the model is asked first
    assert _rows(music, fixed.sql) == [("folk", 20), ("rock", 55)]


def test_the_join_goes_before_the_join_whose_condition_already_uses_it(music) -> None:
    # band_member bridges band and member; the reply kept its use in member's ON but dropped its own JOIN
    fixed = _repair(music, "SELECT band.title, COUNT(member.mid) AS n FROM band "
                           "JOIN member ON band_member.mid = member.mid GROUP BY band.title")
    assert "FROM band JOIN band_member ON band_member.bid = band.bid JOIN member" in fixed.sql
    assert _rows(music, fixed.sql) == [("Foxes", 1), ("Owls", 1)]


def test_an_alias_is_read_by_its_initials_or_first_letters(music) -> None:
    fixed = _repair(music, "SELECT b.title, g.label FROM record AS r JOIN band AS b ON b.bid = r.bid "
                           "WHERE g.label = 'rock'")
    assert "JOIN genre AS g ON g.gid = r.gid" in fixed.sql
    bm = _repair(music, "SELECT m.title FROM member AS m JOIN band AS b ON bm.bid = b.bid")
    assert "JOIN band_member AS bm ON bm.mid = m.mid" in bm.sql


def test_an_alias_naming_no_table_is_the_one_table_holding_every_column_read_through_it(music) -> None:
    fixed = _repair(music, "SELECT r.name, x.label FROM record AS r")  # only genre has a label
    assert "JOIN genre AS x ON x.gid = r.gid" in fixed.sql
    assert any(silences_an_error(f) for f in fixed.fixes)  # a guess: the model is asked first
    assert _rows(music, fixed.sql) == [("Den", "rock"), ("Hoot", "rock"), ("Night", "folk")]
    with pytest.raises(SQLValidationError):  # x.title: band, member, poster and playlist all have one
        _repair(music, "SELECT r.name, x.title FROM record AS r")


def test_a_where_that_asks_for_no_match_gets_a_left_join(music) -> None:
    fixed = _repair(music, "SELECT b.title FROM band AS b WHERE r.rid IS NULL")
    assert "LEFT JOIN record AS r ON r.bid = b.bid" in fixed.sql
    assert _rows(music, fixed.sql) == [("Silent",)]


def test_a_qualifier_that_names_two_candidate_tables_is_an_error_naming_them(music) -> None:
    with pytest.raises(SQLValidationError) as err:  # p: poster or playlist, both hold title
        _repair(music, "SELECT p.title FROM band AS b WHERE b.formed > 2000")
    assert "poster" in str(err.value) and "playlist" in str(err.value)


def test_a_table_no_key_relates_is_not_joined(music) -> None:
    with pytest.raises(SQLValidationError):
        _repair(music, "SELECT poster.title, band.title FROM band")


def test_a_forgotten_table_is_never_read_as_the_query_s_own_column(music) -> None:
    # ``band.title`` is not ``member.title``, and ``band_member.mid = member.mid`` must not become member = member
    with pytest.raises(SQLValidationError) as err:
        _repair(music, "SELECT band.title FROM member WHERE member.born > 1975")  # member: no key to band
    assert "does not join band" in str(err.value)


def test_an_alias_naming_no_table_read_as_the_one_owner_is_a_guess_the_model_hears_first(music) -> None:
    # a self-join alias (``boss``) is not the table that happens to hold the column
    fixed = _repair(music, "SELECT m.title, boss.born FROM member AS m")
    assert "m.born" in fixed.sql and any(silences_an_error(f) for f in fixed.fixes)


def test_a_comma_join_gets_no_join_added(music) -> None:
    with pytest.raises(SQLValidationError):  # ``FROM a, b JOIN c ON c.k = a.k`` cannot reach a on PostgreSQL
        _repair(music, "SELECT genre.label FROM record, band WHERE record.bid = band.bid")


def test_an_outer_query_s_alias_is_not_a_forgotten_table(music) -> None:
    sql = "SELECT b.title FROM band AS b WHERE EXISTS (SELECT 1 FROM record AS r WHERE r.bid = b.bid)"
    assert _repair(music, sql).fixes == ()


def test_the_model_sees_the_missing_join_first_and_its_rewrite_wins(music) -> None:
    right = "SELECT g.label, SUM(r.sold) AS sold FROM record AS r JOIN genre AS g ON g.gid = r.gid GROUP BY g.label"
    llm = ScriptedLLM("SELECT genre.label, SUM(record.sold) AS sold FROM record GROUP BY genre.label", right)
    answer = AskPipeline(music, llm, Settings(repair_rounds=1)).ask("copies sold per genre")
    assert answer.ok and answer.sql == right
    assert "joined" in llm.history[-1].user or "JOIN genre" in llm.history[-1].user


def test_when_the_model_repeats_itself_the_join_is_added_and_said(music) -> None:
    reply = "SELECT genre.label, SUM(record.sold) AS sold FROM record GROUP BY genre.label"
    answer = AskPipeline(music, ScriptedLLM(reply, reply, reply), Settings(repair_rounds=2)).ask("copies sold per genre")
    assert answer.ok and sorted(answer.rows) == [("folk", 20), ("rock", 55)]
    assert any("JOIN genre ON genre.gid = record.gid" in n for n in answer.notes)


def test_an_ambiguous_column_in_a_join_condition_is_read_as_the_table_that_is_not_its_other_side(music) -> None:
    fixed = _repair(music, "SELECT genre.label, record.name FROM record JOIN genre ON gid = record.gid")
    assert "ON genre.gid = record.gid" in fixed.sql  # record.gid = record.gid would join every pair
    assert not any(silences_an_error(f) for f in fixed.fixes)


def test_a_table_s_key_called_by_the_table_s_name_is_its_key(music) -> None:
    assert _repair(music, "SELECT band.band_id, band.title FROM band").sql == "SELECT band.bid, band.title FROM band"
    assert _repair(music, "SELECT band_id, title FROM band").sql == "SELECT band.bid, title FROM band"
    joined = _repair(music, "SELECT r.name FROM record AS r JOIN band AS b ON r.band_id = b.bid").sql
    assert "ON r.bid = b.bid" in joined  # record's column that holds band's key
    assert _repair(music, "SELECT record.rids FROM record").sql == "SELECT record.rid FROM record"  # "ids"


# --- found by attacking the repair by hand ------------------------------------------------------------------------

@pytest.fixture()
def films(tmp_path: Path):
    path = tmp_path / "films.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE movie(mid INTEGER PRIMARY KEY, title TEXT, director_id INTEGER);"
            "CREATE TABLE director(did INTEGER PRIMARY KEY, name TEXT, best_movie_id INTEGER REFERENCES movie(mid));"
            "CREATE TABLE employee(id INTEGER PRIMARY KEY, name TEXT, manager_id INTEGER);"
            "CREATE TABLE manager_note(id INTEGER PRIMARY KEY, name TEXT, employee_id INTEGER REFERENCES employee(id));"
            "CREATE TABLE journal(jid INTEGER PRIMARY KEY, name TEXT);"
            "CREATE TABLE publication(pid INTEGER PRIMARY KEY, title TEXT, jid INTEGER);")
    db = open_database(str(path))
    yield db
    db.close()


@pytest.mark.parametrize("sql", [
    "SELECT m.title, d.name FROM movie m",         # two keys relate them: a declared one and director_id by name
    "SELECT e.name, m.name FROM employee e",       # m beside manager_id: a self-join, not manager_note
])
def test_a_join_two_readings_could_mean_is_not_added(films, sql) -> None:
    with pytest.raises(SQLValidationError):
        _repair(films, sql)


def test_a_table_named_exactly_is_never_read_as_another_table_s_column(films) -> None:
    with pytest.raises(SQLValidationError, match="does not join journal"):
        _repair(films, "SELECT p.title, journal.title FROM publication p")  # journal has no title


def test_a_cte_that_shadows_a_table_is_not_joined_as_the_table(films) -> None:
    sql = ("WITH journal AS (SELECT jid, name FROM journal WHERE name = 'JA') "
           "SELECT p.title, journal.name FROM publication p")
    with pytest.raises(SQLValidationError):
        _repair(films, sql)


def test_a_table_s_name_and_key_word_is_the_column_so_named_when_the_table_has_one(tmp_path: Path) -> None:
    path = tmp_path / "biz.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE business(bid INTEGER PRIMARY KEY, business_id TEXT, name TEXT);")
    db = open_database(str(path))
    try:
        fixed = validate_sql('SELECT business."BusinessId" FROM business', db.schema(), "sqlite")
        assert "business_id" in fixed.sql and "bid" not in fixed.sql
    finally:
        db.close()


def test_a_link_table_left_out_between_two_joined_tables_is_joined_on_the_key_both_point_at(music) -> None:
    # band_member(bid, mid) dropped between member and band: mid is member's key, held by both band_member and member
    fixed = _repair(music, "SELECT band.title FROM member JOIN band ON band_member.bid = band.bid WHERE member.title "
                           "= 'Ann'")
    assert "JOIN band_member ON band_member.mid = member.mid" in fixed.sql
    assert _rows(music, fixed.sql) == [("Owls",)]


def test_a_qualifier_made_of_a_compound_name_s_letters_is_read_as_that_table(tmp_path: Path) -> None:
    path = tmp_path / "dealer.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE salespersons(id INTEGER PRIMARY KEY, first_name TEXT);"
            "CREATE TABLE customers(id INTEGER PRIMARY KEY, first_name TEXT);"
            "CREATE TABLE sales(id INTEGER PRIMARY KEY, salesperson_id INTEGER, customer_id INTEGER, price REAL);"
            "INSERT INTO salespersons VALUES (1, 'Ann'), (2, 'Raj'); INSERT INTO customers VALUES (1, 'Zed');"
            "INSERT INTO sales VALUES (1, 1, 1, 10), (2, 2, 1, 20), (3, 2, 1, 5);")
    db = open_database(str(path))
    try:
        fixed = _repair(db, "SELECT sp.first_name, SUM(s.price) FROM sales s GROUP BY sp.first_name")
        assert "JOIN salespersons AS sp ON sp.id = s.salesperson_id" in fixed.sql
        assert _rows(db, fixed.sql) == [("Ann", 10.0), ("Raj", 25.0)]
    finally:
        db.close()
