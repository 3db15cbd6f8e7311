"""Join conditions the schema settles: a guessed key, USING on a column one side lacks, JOIN without ON, and a number
compared with a text. Each repair takes the one column the schema gives, or leaves the query to fail visibly; none
makes a join true of every pair of rows."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.config import Settings
from core.databases import open_database
from core.errors import SQLValidationError
from core.pipeline import AskPipeline
from core.schema import Column, ForeignKey, Schema, Table
from core.sql import validate_sql
from tests.fakes.scripted_llm import ScriptedLLM

# No declared keys, as in most SQLite files: journals by jid, papers pointing at them by jid.
LIBRARY = """
CREATE TABLE journal(jid INTEGER, name TEXT, homepage TEXT);
CREATE TABLE paper(pid INTEGER, title TEXT, jid INTEGER, year INTEGER);
CREATE TABLE shelf(code TEXT, room TEXT);
INSERT INTO journal VALUES (1, 'Nature', 'n.org'), (2, 'Cell', 'c.org'), (3, 'Empty', 'e.org');
INSERT INTO paper VALUES (10, 'A', 1, 2020), (11, 'B', 1, 2021), (12, 'C', 2, 2021);
INSERT INTO shelf VALUES ('x1', 'north'), ('x2', 'south');
"""

# Declared keys named differently on each side: sales.customer_id -> customers.id.
SHOP = """
CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT, state TEXT);
CREATE TABLE sales(id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), amount REAL);
INSERT INTO customers VALUES (1, 'Ann', 'CA'), (2, 'Bo', 'NY'), (3, 'Cy', 'NY');
INSERT INTO sales VALUES (1, 1, 10.0), (2, 1, 5.0), (3, 2, 7.0);
"""


def _db(tmp_path: Path, name: str, script: str):
    path = tmp_path / f"{name}.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(script)
    return open_database(str(path))


@pytest.fixture()
def library(tmp_path: Path):
    db = _db(tmp_path, "library", LIBRARY)
    yield db
    db.close()


@pytest.fixture()
def shop(tmp_path: Path):
    db = _db(tmp_path, "shop", SHOP)
    yield db
    db.close()


def _ask(db, sql: str):
    return AskPipeline(db, ScriptedLLM(sql, sql, sql), Settings()).ask("a question")


def test_a_key_guessed_as_id_is_the_column_named_like_the_other_side(library) -> None:
    answer = _ask(library, "SELECT journal.name, COUNT(*) FROM paper JOIN journal ON paper.jid = journal.id "
                           "GROUP BY journal.name")
    assert answer.ok and answer.path == "repaired"
    assert "paper.jid = journal.jid" in (answer.sql or "")
    assert sorted(answer.rows) == [("Cell", 1), ("Nature", 2)]


def test_a_guessed_key_under_the_other_alias_never_becomes_a_join_true_of_every_row(shop) -> None:
    # customers has no customer_id; sales has. Moving c.customer_id to s would compare s.customer_id with itself.
    sql = "SELECT c.name, SUM(s.amount) FROM sales s JOIN customers c ON s.customer_id = c.customer_id GROUP BY c.name"
    answer = _ask(shop, sql)
    assert answer.ok and "s.customer_id = c.id" in (answer.sql or "")
    assert sorted(answer.rows) == [("Ann", 15.0), ("Bo", 7.0)]


def test_without_a_key_the_self_comparison_is_refused_and_the_error_is_shown() -> None:
    schema = Schema("sqlite", (Table("a", (Column("x", "INTEGER"), Column("label", "TEXT"))),
                               Table("b", (Column("y", "INTEGER"), Column("note", "TEXT")))))
    # b has no label and nothing of b fits a.x: moving b.label to a would leave the join relating a with itself
    with pytest.raises(SQLValidationError, match="Unknown column"):
        validate_sql("SELECT a.label FROM a JOIN b ON a.x = b.label", schema, "sqlite")


def test_using_a_column_one_side_lacks_becomes_on_with_the_schemas_key(shop) -> None:
    answer = _ask(shop, "SELECT name, SUM(amount) FROM sales JOIN customers USING (customer_id) GROUP BY name")
    assert answer.ok and "ON sales.customer_id = customers.id" in (answer.sql or "")
    assert sorted(answer.rows) == [("Ann", 15.0), ("Bo", 7.0)]


def test_a_join_without_on_takes_the_one_key_the_schema_gives(shop) -> None:
    answer = _ask(shop, "SELECT c.state, COUNT(*) FROM sales s JOIN customers c GROUP BY c.state")
    assert answer.ok and "ON s.customer_id = c.id" in (answer.sql or "")
    assert sorted(answer.rows) == [("CA", 2), ("NY", 1)]  # not 3 sales x 3 customers


def test_a_join_without_on_and_no_key_is_an_error_not_a_cross_join(library) -> None:
    answer = _ask(library, "SELECT shelf.room, COUNT(*) FROM paper JOIN shelf GROUP BY shelf.room")
    assert not answer.ok
    assert "has no ON condition" in (answer.error or "")


def test_a_join_without_on_onto_a_row_of_totals_is_left_as_written(library) -> None:
    sql = ("SELECT p.title, p.year * 1.0 / t.n FROM paper p JOIN (SELECT COUNT(*) AS n FROM paper) t "
           "ORDER BY p.title")
    answer = _ask(library, sql)
    assert answer.ok and answer.path == "llm" and len(answer.rows) == 3


def test_a_number_compared_with_a_text_that_matches_nothing_joins_on_the_schemas_column(library) -> None:
    # paper.title = journal.jid: text against number, matches no pair on SQLite (it would be an error on PostgreSQL)
    answer = _ask(library, "SELECT journal.name, COUNT(*) FROM paper JOIN journal ON paper.title = journal.jid "
                           "GROUP BY journal.name")
    assert answer.ok and "paper.jid = journal.jid" in (answer.sql or "")
    assert sorted(answer.rows) == [("Cell", 1), ("Nature", 2)]


def test_a_number_and_a_text_that_do_match_on_sqlite_are_a_join_that_works(tmp_path: Path) -> None:
    # codes kept as text in one table and as numbers in the other, as CSV imports leave them: SQLite joins them
    db = _db(tmp_path, "mixed", "CREATE TABLE orders(id INTEGER, customer_ref TEXT, total REAL);"
                                "CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT);"
                                "INSERT INTO customers VALUES (1, 'Ann'), (2, 'Bo');"
                                "INSERT INTO orders VALUES (1, '1', 3.0), (2, '1', 4.0), (3, '2', 5.0);")
    try:
        sql = "SELECT c.name, SUM(o.total) FROM orders o JOIN customers c ON o.customer_ref = c.id GROUP BY c.name"
        answer = _ask(db, sql)
        assert answer.ok and answer.path == "llm" and sorted(answer.rows) == [("Ann", 7.0), ("Bo", 5.0)]
    finally:
        db.close()


def test_without_a_data_check_a_lenient_database_keeps_the_join_as_written() -> None:
    schema = Schema("sqlite", (Table("journal", (Column("jid", "INTEGER"), Column("name", "TEXT"))),
                               Table("paper", (Column("title", "TEXT"), Column("jid", "INTEGER")))))
    sql = "SELECT journal.name FROM paper JOIN journal ON paper.title = journal.jid"
    assert validate_sql(sql, schema, "sqlite").fixes == ()


def test_postgres_rejects_a_number_compared_with_a_text_so_the_schemas_column_is_taken() -> None:
    schema = Schema("postgres", (
        Table("journal", (Column("jid", "bigint"), Column("name", "text"))),
        Table("paper", (Column("title", "text"), Column("jid", "bigint")))))
    fixed = validate_sql("SELECT journal.name FROM paper JOIN journal ON journal.name = paper.jid", schema, "postgres")
    assert "journal.jid = paper.jid" in fixed.sql


def test_a_declared_key_is_preferred_to_names(tmp_path: Path) -> None:
    schema = Schema("postgres", (
        Table("users", (Column("uid", "bigint"), Column("name", "text")), primary_key=("uid",)),
        Table("notes", (Column("id", "bigint"), Column("author", "bigint"), Column("uid", "bigint"),
                        Column("body", "text")),
              foreign_keys=(ForeignKey(("author",), "users", ("uid",)),))))
    fixed = validate_sql("SELECT u.name FROM users u JOIN notes n ON u.uid = n.writer", schema, "postgres")
    assert "u.uid = n.author" in fixed.sql  # the declared key, not the same-named notes.uid


def test_two_columns_that_fit_equally_are_not_chosen_between() -> None:
    schema = Schema("postgres", (
        Table("team", (Column("tid", "bigint"), Column("name", "text"))),
        Table("game", (Column("home_team_id", "bigint"), Column("away_team_id", "bigint"), Column("tid", "bigint"),
                       Column("team_id", "bigint")))))
    # game.tid and game.team_id both fit team.tid: nothing is guessed, the unknown column is reported
    with pytest.raises(SQLValidationError, match="Unknown column"):
        validate_sql("SELECT t.name FROM team t JOIN game g ON t.tid = g.id", schema, "postgres")


def test_a_join_condition_without_qualifiers_reads_one_side_from_each_table(library) -> None:
    answer = _ask(library, "SELECT name, COUNT(*) FROM paper JOIN journal ON jid = jid GROUP BY name")
    assert answer.ok and "paper.jid = journal.jid" in (answer.sql or "")
    assert sorted(answer.rows) == [("Cell", 1), ("Nature", 2)]


def test_a_bare_key_in_a_join_condition_is_the_joined_tables(shop) -> None:
    # id is in sales and customers; s.customer_id = sales.id would relate sales to itself
    answer = _ask(shop, "SELECT c.name, SUM(s.amount) FROM sales s JOIN customers c ON s.customer_id = id "
                        "GROUP BY c.name")
    assert answer.ok and "s.customer_id = c.id" in (answer.sql or "")
    assert sorted(answer.rows) == [("Ann", 15.0), ("Bo", 7.0)]


def test_a_shared_name_tested_for_null_after_a_left_join_is_the_joined_sides() -> None:
    # "patients with no treatment": patient_id IS NULL means the treatments side; read from the preserved side it
    # would confidently answer "none" (a kept row whose own join key is NULL is not what "no match" asks), so the
    # anti-join's test is the joined table's (repair/joins/_ambiguous), and the note says why.
    schema = Schema("sqlite", (Table("patients", (Column("patient_id", "INTEGER"), Column("first_name", "TEXT"))),
                               Table("treatments", (Column("treatment_id", "INTEGER"), Column("patient_id", "INTEGER")))))
    fixed = validate_sql("SELECT patient_id, first_name FROM patients p LEFT JOIN treatments t "
                         "ON patient_id = patient_id WHERE patient_id IS NULL", schema, "sqlite")
    assert "ON p.patient_id = t.patient_id" in fixed.sql
    assert "WHERE t.patient_id IS NULL" in fixed.sql  # not p.patient_id
    assert any("only the joined table's can be" in f for f in fixed.fixes)
    assert fixed.sql.startswith("SELECT p.patient_id")  # the list shows the preserved side's value


# --- found by hand: each of these once gave a confident wrong answer ------------------------------------------------

AUTHORS = """
CREATE TABLE author(aid INTEGER, name TEXT);
CREATE TABLE writes(author_id INTEGER, pid INTEGER);
INSERT INTO author VALUES (1, 'Ann'), (2, 'Bo'), (3, 'Cy');
INSERT INTO writes VALUES (1, 10), (1, 11), (2, 12);
"""


@pytest.fixture()
def authors(tmp_path: Path):
    db = _db(tmp_path, "authors", AUTHORS)
    yield db
    db.close()


@pytest.mark.parametrize("on", ["w.aid = aid", "aid = w.aid"])
def test_a_bare_side_that_only_one_table_has_is_not_made_a_comparison_with_itself(authors, on) -> None:
    answer = _ask(authors, f"SELECT a.name, COUNT(*) FROM writes w JOIN author a ON {on} GROUP BY a.name")
    assert not answer.ok or sorted(answer.rows) == [("Ann", 2), ("Bo", 1)]  # never 3, 3, 3 (every pair)


def test_a_join_condition_comparing_a_column_with_itself_is_read_as_its_one_relation_else_an_error(authors) -> None:
    for on in ("a.aid = a.aid", "w.author_id = w.author_id"):  # the joined table's side, or the one before it
        answer = _ask(authors, f"SELECT a.name, COUNT(*) FROM writes w JOIN author a ON {on} GROUP BY a.name")
        assert answer.ok and sorted(answer.rows) == [("Ann", 2), ("Bo", 1)]  # never 3, 3, 3 (every pair)
        assert "compared a column with itself" in " ".join(answer.notes)
    # a self-join: the same column of the other copy; a derived table: its own column of that name
    same = _ask(authors, "SELECT w2.pid FROM writes w1 JOIN writes w2 ON w2.author_id = w2.author_id "
                "WHERE w1.pid = 10 AND w2.pid <> 10")
    assert same.ok and same.rows == ((11,),)  # Ann's other paper, not every paper
    derived = _ask(authors, "SELECT a.name, t.n FROM author a JOIN (SELECT author_id AS aid, COUNT(*) AS n FROM "
                   "writes GROUP BY author_id) t ON a.aid = a.aid ORDER BY a.name")
    assert derived.ok and derived.rows == (("Ann", 2), ("Bo", 1))
    # nothing of writes pairs with author.name: no reading, an error
    answer = _ask(authors, "SELECT a.aid, COUNT(*) FROM writes w JOIN author a ON a.name = a.name GROUP BY a.aid")
    assert not answer.ok and "with itself" in (answer.error or "")


def test_a_join_related_in_where_is_left_as_written(shop) -> None:
    sql = ("SELECT a.name, b.name FROM customers a JOIN customers b WHERE a.state = b.state AND a.id < b.id")
    answer = _ask(shop, sql)
    assert answer.ok and answer.rows == (("Bo", "Cy"),)


def test_an_explicit_on_true_is_a_cross_join_as_written(shop) -> None:
    answer = _ask(shop, "SELECT c.name, s.id FROM customers c JOIN sales s ON TRUE")
    assert answer.ok and len(answer.rows) == 9


def test_a_join_without_on_onto_many_rows_of_a_cte_takes_the_key_its_columns_name_else_is_an_error(shop) -> None:
    answer = _ask(shop, "WITH totals AS (SELECT customer_id, SUM(amount) AS total FROM sales GROUP BY customer_id) "
                        "SELECT c.name, t.total FROM customers c JOIN totals t")
    assert answer.ok and sorted(answer.rows) == [("Ann", 15.0), ("Bo", 7.0)]  # customer_id names customers' key
    unrelated = _ask(shop, "WITH totals AS (SELECT SUM(amount) AS total, COUNT(*) AS n FROM sales GROUP BY amount > 6) "
                           "SELECT c.name, t.total FROM customers c JOIN totals t")
    assert not unrelated.ok and "has no ON condition" in (unrelated.error or "")


def test_two_keys_between_the_tables_and_a_bare_id_guess_are_not_settled() -> None:
    schema = Schema("postgres", (
        Table("employee", (Column("id", "bigint"), Column("dept_id", "bigint"), Column("name", "text")),
              primary_key=("id",), foreign_keys=(ForeignKey(("dept_id",), "department", ("dept_id",)),)),
        Table("department", (Column("dept_id", "bigint"), Column("head_id", "bigint"), Column("name", "text")),
              primary_key=("dept_id",), foreign_keys=(ForeignKey(("head_id",), "employee", ("id",)),))))
    with pytest.raises(SQLValidationError):
        validate_sql("SELECT d.name, COUNT(*) FROM employee e JOIN department d ON e.id = d.id GROUP BY d.name",
                     schema, "postgres")


@pytest.mark.parametrize("sql", ["SELECT TO_CHAR(amount, 'FM999990.00') FROM sales",
                                 "SELECT DATE_FORMAT(created_at, '%M %Y') FROM sales",
                                 "SELECT strftime('%B', created_at) FROM sales"])
def test_a_date_format_sqlite_cannot_honour_is_refused_not_shown_as_one_text_on_every_row(sql) -> None:
    from core.errors import SQLRejected
    from core.sql import guard

    with pytest.raises(SQLRejected, match="strftime"):
        guard(sql, "sqlite")


@pytest.mark.parametrize("keys", [" PRIMARY KEY", ""])
def test_a_key_named_for_the_other_table_is_never_the_tables_own_key(tmp_path: Path, keys: str) -> None:
    # orders.customer_id does not exist; orders.id is the order's own key, not the customer it points to (cust_id)
    db = _db(tmp_path, "own", f"CREATE TABLE customers(id INTEGER{keys}, name TEXT);"
                              f"CREATE TABLE orders(id INTEGER{keys}, cust_id INTEGER, amount REAL);"
                              "INSERT INTO customers VALUES (1, 'Ann'), (2, 'Raj'), (4, 'Zed');"
                              "INSERT INTO orders VALUES (1, 2, 10), (2, 2, 20), (4, 1, 40), (5, 1, 50);")
    try:
        answer = _ask(db, "SELECT c.name, SUM(o.amount) FROM orders o JOIN customers c ON o.customer_id = c.id "
                          "GROUP BY c.name")
        assert "o.id = c.id" not in (answer.sql or "")
        assert not answer.ok or sorted(answer.rows) == [("Ann", 90.0), ("Raj", 30.0)]
    finally:
        db.close()


def test_a_key_named_for_the_other_table_in_a_pair_table_is_its_pointer(tmp_path: Path) -> None:
    # domain_author's key is the pair (aid, did): did points at domain, whose key is did
    db = _db(tmp_path, "pair", "CREATE TABLE domain(did INTEGER PRIMARY KEY, name TEXT);"
                               "CREATE TABLE domain_author(aid INTEGER, did INTEGER, PRIMARY KEY (aid, did));"
                               "INSERT INTO domain VALUES (1, 'ML'), (2, 'DB');"
                               "INSERT INTO domain_author VALUES (7, 1), (7, 2), (8, 1);")
    try:
        answer = _ask(db, "SELECT domain_author.aid FROM domain_author WHERE domain_author.domain_id = 2")
        assert answer.ok and list(answer.rows) == [(7,)]
    finally:
        db.close()


def test_a_left_join_without_on_takes_the_key_the_schema_gives(shop) -> None:
    answer = _ask(shop, "SELECT c.name FROM customers c LEFT JOIN sales s WHERE s.id IS NULL")
    assert answer.ok and answer.rows == (("Cy",),)  # a cross join would keep no customer
    assert "ON c.id = s.customer_id" in (answer.sql or "")


def test_a_bare_id_on_a_table_whose_one_key_is_spelled_otherwise_is_that_key(library) -> None:
    answer = _ask(library, "SELECT journal.name, COUNT(paper.pid) FROM journal JOIN paper ON paper.jid = journal.id "
                           "GROUP BY journal.name")
    assert answer.ok and sorted(answer.rows) == [("Cell", 1), ("Nature", 2)]
    counted = _ask(library, "SELECT COUNT(DISTINCT journal.id) FROM journal")
    assert counted.ok and counted.rows == ((3,),) and "journal.jid" in (counted.sql or "")


def test_a_bare_id_beside_a_column_named_table_id_is_that_column_not_the_key(tmp_path: Path) -> None:
    db = _db(tmp_path, "yelp", "CREATE TABLE business(bid INTEGER PRIMARY KEY, business_id TEXT, name TEXT);"
                               "INSERT INTO business VALUES (1, 'b-x', 'Cafe');")
    try:
        answer = _ask(db, "SELECT business.id FROM business")
        assert answer.ok and answer.rows == (("b-x",),)  # found before this round by its name, kept so
    finally:
        db.close()


def test_a_join_comparing_a_column_with_itself_is_shown_to_the_model_before_it_is_read(authors) -> None:
    bad = "SELECT a.name, COUNT(*) FROM writes w JOIN author a ON a.aid = a.aid GROUP BY a.name"
    good = "SELECT a.name, COUNT(*) FROM writes w JOIN author a ON w.author_id = a.aid GROUP BY a.name"
    llm = ScriptedLLM(bad, good)
    answer = AskPipeline(authors, llm, Settings()).ask("papers per author")
    assert answer.ok and answer.sql is not None and "w.author_id = a.aid" in answer.sql
    assert len(llm.history) == 2 and "compared a column with itself" in llm.history[1].user
    assert not any("compared a column with itself" in n for n in answer.notes)  # the model's own query ran


def test_a_guess_taken_after_the_model_kept_its_query_is_said_as_a_guess(authors) -> None:
    bad = "SELECT a.name, COUNT(*) FROM writes w JOIN author a ON a.aid = a.aid GROUP BY a.name"
    answer = _ask(authors, bad)  # the model repeats its query every round
    [note] = [n for n in answer.notes if n.startswith("Fixed") and "compared a column with itself" in n]
    assert "(a guess)" in note and "asked first" not in note


def test_a_key_written_as_its_table_s_name_and_id_in_one_word_relates_the_tables() -> None:
    """fresh26 (scholar): ``keyphrase.keyphraseid`` names its table as ``keyphrase_id`` would, so a join whose ON was
    copied from the previous join is joined on it."""
    from core.schema import Column, Schema, Table
    from core.sql import validate_sql

    schema = Schema("postgres", (
        Table("paper", (Column("paperid", "integer"), Column("title", "text"))),
        Table("paperkeyphrase", (Column("paperid", "integer"), Column("keyphraseid", "integer"))),
        Table("keyphrase", (Column("keyphraseid", "integer"), Column("keyphrasename", "text")))))
    checked = validate_sql("SELECT paper.title FROM paper JOIN paperkeyphrase ON paper.paperid = paperkeyphrase.paperid "
                           "JOIN keyphrase ON paper.paperid = paperkeyphrase.paperid", schema, "postgres")
    assert "JOIN keyphrase ON keyphrase.keyphraseid = paperkeyphrase.keyphraseid" in checked.sql
