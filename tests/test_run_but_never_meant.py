"""Queries a database runs (or PostgreSQL rejects) whose form has one meaning it does not compute: an IN list
joined with OR, GROUP BY keys joined with AND, ``IS 'value'``, a LIKE pattern written as a regular expression, an
unpadded date compared as text, a value with spaces at its ends. Each read as meant; the guesses are said."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.databases import open_database
from core.schema import Column, Schema, Table
from core.sql import guard, validate_sql
from tests.scripted_asking import ask


@pytest.fixture()
def shop(tmp_path: Path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE customers(customer_id INTEGER PRIMARY KEY, name TEXT, city TEXT, status TEXT, vip BOOLEAN);"
            "CREATE TABLE orders(order_id INTEGER PRIMARY KEY, customer_id INTEGER, amount REAL, ordered_on DATE);"
            "INSERT INTO customers VALUES (1,'Asha Jain','Pune','active',1),(2,'Bilal Lopez','Agra','closed',0),"
            "(3,'Chen Li','Pune','active',0),(4,'Dev','Agra',NULL,1);"
            "INSERT INTO orders VALUES (1,1,10,'2023-01-10'),(2,1,30,'2023-02-01'),(3,2,5,'2023-03-02'),"
            "(4,3,7,'2023-12-12');")
    db = open_database(str(path))
    yield db
    db.close()


@pytest.mark.parametrize("dialect", ["sqlite", "postgres"])
def test_an_in_list_joined_with_or_is_the_list(dialect: str) -> None:
    out = guard("SELECT name FROM customers WHERE status IN ('active' OR 'closed')", dialect)
    assert "IN ('active', 'closed')" in out.sql, out.sql
    kept = guard("SELECT name FROM customers WHERE status IN ('active') OR city = 'Pune'", dialect)
    assert "IN ('active') OR" in kept.sql


def test_group_by_keys_joined_with_and_are_the_keys_unless_they_are_yes_no(shop) -> None:
    answer = ask(shop, "Customers per city and status",
                 "SELECT city, status, COUNT(*) FROM customers GROUP BY city AND status")
    assert sorted(answer.rows, key=str) == sorted([("Agra", "closed", 1), ("Agra", None, 1), ("Pune", "active", 2)],
                                                  key=str), answer.sql
    schema = Schema(dialect="sqlite", tables=(Table("customers", (Column("vip", "BOOLEAN"), Column("city", "TEXT"),
                                                                  Column("status", "TEXT"))),))
    sql = "SELECT COUNT(*) FROM customers GROUP BY vip AND status"
    assert validate_sql(sql, schema, "sqlite").sql == sql  # a yes/no key: its AND may be meant
    keyed = ask(shop, "Customers per name", "SELECT name, COUNT(*) AS n FROM customers GROUP BY name AND customer_id")
    assert "GROUP BY name, customer_id" in keyed.sql and len(keyed.rows) == 4  # one key shown apart is enough
    named = ask(shop, "Customers per city initial and status", "SELECT SUBSTR(city, 1, 1) AS initial, status, COUNT(*) "
                "FROM customers GROUP BY initial AND status")
    assert "GROUP BY initial, status" in named.sql, named.sql  # an output name is a key too


def test_is_with_a_value_on_postgresql_is_equality_and_is_not_a_guess() -> None:
    out = guard("SELECT name FROM customers WHERE status IS 'active' AND city IS NOT 'Pune'", "postgres")
    assert "status = 'active'" in out.sql and "city <> 'Pune'" in out.sql and "(a guess" in out.mended
    assert "IS NULL" in guard("SELECT name FROM customers WHERE status IS NULL", "postgres").sql
    assert "status IS 'active'" in guard("SELECT name FROM customers WHERE status IS 'active'", "sqlite").sql


@pytest.mark.parametrize(("written", "meant"), [
    ("'.*Li.*'", "'%Li%'"), ("'^Asha.*'", "'Asha%'"), ("'.*Jain$'", "'%Jain'"), ("'^Dev$'", "'Dev'"),
])
def test_a_like_pattern_written_as_a_regular_expression_is_read_as_like_a_guess(shop, written, meant) -> None:
    answer = ask(shop, "Which customers match?", f"SELECT name FROM customers WHERE name LIKE {written}")
    assert f"LIKE {meant}" in answer.sql and answer.rows, (answer.sql, answer.notes)
    assert any("(a guess)" in n for n in answer.notes)


@pytest.mark.parametrize("kept", ["'50%'", "'a.b'", "'[A-C]%'", "'US$'", "'.*'"])
def test_like_patterns_that_are_not_regular_expressions_are_left(kept: str) -> None:
    assert f"LIKE {kept}" in guard(f"SELECT name FROM customers WHERE name LIKE {kept}", "sqlite").sql


def test_an_unpadded_date_beside_a_date_column_on_sqlite_is_padded_a_guess(shop) -> None:
    answer = ask(shop, "Orders since February 2023", "SELECT order_id FROM orders WHERE ordered_on >= '2023-2-1'")
    assert sorted(answer.rows) == [(2,), (3,), (4,)] and "'2023-02-01'" in answer.sql, answer.sql
    (written,) = [a for a in answer.alternatives if a.label == "As the model wrote it"]
    assert "'2023-2-1'" in written.sql
    kept = ask(shop, "Customers named 2023-2-1", "SELECT name FROM customers WHERE name = '2023-2-1'")
    assert "'2023-2-1'" in kept.sql  # not a date column


def test_a_value_with_spaces_at_its_ends_that_no_row_holds_is_read_without_them(shop) -> None:
    answer = ask(shop, "Total of active customers' orders", "SELECT SUM(o.amount) FROM orders o JOIN customers c "
                 "ON o.customer_id = c.customer_id WHERE c.status = ' active'")
    assert answer.rows == ((47.0,),) and any("spaces at its ends" in n for n in answer.notes), answer.notes


def test_a_text_search_that_minds_capitals_is_offered_ignoring_case_when_that_keeps_other_rows(shop) -> None:
    answer = ask(shop, "Customers with li in their name", "SELECT name FROM customers WHERE instr(name, 'LI') > 0")
    assert answer.rows == ()  # the query that ran stays the answer
    (other,) = [a for a in answer.alternatives if a.label == "Ignoring case"]
    assert shop.execute(other.sql).rows == (("Chen Li",),)
    same = ask(shop, "Customers with Li in their name", "SELECT name FROM customers WHERE instr(name, 'Li') > 0")
    assert not [a for a in same.alternatives if a.label == "Ignoring case"]  # no other rows: nothing said


def test_a_quotient_of_whole_numbers_cast_after_the_division_is_cast_before_it_a_guess(shop) -> None:
    answer = ask(shop, "Orders per day over 3 days", "SELECT CAST(COUNT(*) / 3 AS FLOAT) AS per_day FROM orders")
    assert answer.rows[0][0] == pytest.approx(4 / 3) and any("(a guess)" in n for n in answer.notes), (answer.sql, answer.notes)
    fraction = ask(shop, "Average amount share", "SELECT CAST(SUM(amount) / COUNT(*) AS FLOAT) AS a FROM orders")
    assert "CAST(SUM(amount) / COUNT(*)" in fraction.sql  # a REAL column: no fraction lost, left


def test_attack_round_20_a_truth_value_grouped_and_shown_is_left(tmp_path: Path) -> None:
    path = tmp_path / "users.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE users(id INTEGER, is_active INTEGER, is_verified INTEGER, city TEXT);"
                           "INSERT INTO users VALUES (1,1,1,'a'),(2,1,0,'a'),(3,0,1,'b'),(4,0,0,'b'),(5,1,1,'a');")
    db = open_database(str(path))
    try:
        answer = ask(db, "How many users are both active and verified, and how many are not?",
                     "SELECT is_active AND is_verified AS fully_onboarded, COUNT(*) AS users FROM users "
                     "GROUP BY is_active AND is_verified")
        assert sorted(answer.rows) == [(0, 3), (1, 2)], answer.sql
        hidden = ask(db, "Users per city", "SELECT COUNT(*) FROM users GROUP BY city AND is_active")
        assert "AND is_active" in hidden.sql  # the keys are not shown apart: nothing proves the list
    finally:
        db.close()


def test_attack_round_20_a_regex_looking_pattern_the_data_holds_as_written_is_left(tmp_path: Path) -> None:
    path = tmp_path / "rules.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE rules(id INTEGER, pattern TEXT);"
                           "INSERT INTO rules VALUES (1,'.*spam.*'),(2,'spam'),(3,'no spam here'),(4,'^admin$'),"
                           "(5,'admin');")
    db = open_database(str(path))
    try:
        held = ask(db, "How many rules have the pattern text .*spam.* ?",
                   "SELECT COUNT(*) FROM rules WHERE pattern LIKE '.*spam.*'")
        assert held.rows == ((1,),) and "'.*spam.*'" in held.sql, held.sql
        anchored = ask(db, "Rules written ^admin$", "SELECT id FROM rules WHERE pattern LIKE '^admin$'")
        assert anchored.rows == ((4,),)
    finally:
        db.close()


def test_attack_round_20_an_unpadded_date_the_column_stores_unpadded_is_left(tmp_path: Path) -> None:
    path = tmp_path / "visits.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE visits(id INTEGER, visit_date TEXT);"
                           "INSERT INTO visits VALUES (1,'2023-4-1'),(2,'2023-4-1'),(3,'2023-4-12');")
    db = open_database(str(path))
    try:
        answer = ask(db, "How many visits were on 2023-4-1?", "SELECT COUNT(*) FROM visits WHERE visit_date = '2023-4-1'")
        assert answer.rows == ((2,),) and "'2023-4-1'" in answer.sql, answer.sql
    finally:
        db.close()


def test_attack_round_20_a_search_the_question_says_minds_case_is_not_doubted(shop) -> None:
    answer = ask(shop, "Customers whose name has the uppercase letters LI (case-sensitive)",
                 "SELECT name FROM customers WHERE instr(name, 'LI') > 0")
    assert not [a for a in answer.alternatives if a.label == "Ignoring case"]


def test_an_aggregate_divided_by_itself_is_said_and_the_condition_counted_in_the_dividend_offered(shop) -> None:
    answer = ask(shop, "Share of orders over 8 per customer", "SELECT customer_id, COUNT(*) * 1.0 / COUNT(*) AS share "
                 "FROM orders WHERE amount > 8 GROUP BY customer_id")
    assert any("divides a value by itself" in n for n in answer.notes), answer.notes
    (other,) = [a for a in answer.alternatives if a.label.startswith("Counting ")]
    assert sorted(shop.execute(other.sql).rows) == [(1, 1.0), (2, 0.0), (3, 0.0)]
    ratio = ask(shop, "Average order per customer", "SELECT SUM(amount) / COUNT(*) FROM orders")
    assert not any("divides a value by itself" in n for n in ratio.notes)


@pytest.mark.parametrize("dialect", ["postgres", "sqlite"])
def test_join_conditions_written_after_the_last_join_are_each_put_on_their_join(dialect: str) -> None:
    schema = Schema(dialect=dialect, tables=(
        Table("organization", (Column("oid", "integer"), Column("name", "text"))),
        Table("author", (Column("aid", "integer"), Column("oid", "integer"))),
        Table("writes", (Column("aid", "integer"), Column("pid", "integer")))))
    sql = ("SELECT DISTINCT o.name FROM organization o JOIN author a JOIN writes w ON o.oid = a.oid AND a.aid = w.aid "
           "WHERE o.name = 'x'")
    out = validate_sql(guard(sql, dialect).sql, schema, dialect).sql
    assert "JOIN author AS a ON o.oid = a.oid JOIN writes AS w ON a.aid = w.aid" in out, out
    left = "SELECT o.name FROM organization o LEFT JOIN author a JOIN writes w ON o.oid = a.oid AND a.aid = w.aid"
    fixes = validate_sql(guard(left, dialect).sql, schema, dialect).fixes
    assert not any("put each on its own join" in f for f in fixes)  # an outer join among them: not this reading


def test_a_ratio_whose_dividend_condition_went_into_the_where_is_offered_with_it_counted(shop) -> None:
    answer = ask(shop, "Ratio of orders over 8 to orders of 8 or less", "SELECT CAST(COUNT(*) AS REAL) / NULLIF(COUNT("
                 "CASE WHEN amount <= 8 THEN 1 END), 0) AS ratio FROM orders WHERE amount > 8")
    assert answer.rows == ((None,),)  # the query that ran stays the answer
    (other,) = [a for a in answer.alternatives if a.label.startswith("Counting ")]
    assert shop.execute(other.sql).rows == ((1.0,),)


def test_an_outer_join_without_its_on_reads_the_where_s_join_equality_as_its_on_a_guess(tmp_path: Path) -> None:
    path = tmp_path / "org.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE organization(oid INTEGER, continent TEXT);"
                           "CREATE TABLE author(aid INTEGER, oid INTEGER);"
                           "INSERT INTO organization VALUES (1,'Asia'),(2,'Asia'),(3,'Europe');"
                           "INSERT INTO author VALUES (10,1),(11,1),(12,3);")
    db = open_database(str(path))
    try:
        sql = ("SELECT o.oid, COUNT(a.aid) AS authors FROM organization o LEFT JOIN author a WHERE a.oid = o.oid AND "
               "o.continent = 'Asia' GROUP BY o.oid")
        answer = ask(db, "Authors per Asian organization, including those with none", sql)
        assert sorted(answer.rows) == [(1, 2), (2, 0)], (answer.sql, answer.notes)  # the one without a match kept
        assert any("(a guess)" in n for n in answer.notes)
    finally:
        db.close()
    schema = Schema(dialect="postgres", tables=(Table("organization", (Column("oid", "integer"),
                                                                       Column("continent", "text"))),
                                                Table("author", (Column("aid", "integer"), Column("oid", "integer")))))
    out = validate_sql(guard(sql, "postgres").sql, schema, "postgres").sql
    assert "LEFT JOIN author AS a ON a.oid = o.oid WHERE o.continent = 'Asia'" in out, out


def test_attack_round_21_ratios_with_two_conditions_answer_and_a_population_filter_is_not_doubted(shop) -> None:
    two = ask(shop, "Share of big orders since February", "SELECT COUNT(*) * 1.0 / COUNT(*) FROM orders WHERE amount > "
              "6 AND ordered_on >= '2023-02-01'")
    assert two.ok and any("divides a value by itself" in n for n in two.notes)  # it crashed the answer
    population = ask(shop, "Ratio of small to all orders since March", "SELECT SUM(amount) / NULLIF(SUM(CASE WHEN "
                     "amount < 8 THEN amount END), 0) FROM orders WHERE ordered_on >= '2023-03-01'")
    assert population.ok and not [a for a in population.alternatives if a.label.startswith("Counting ")]


@pytest.mark.parametrize("sql", [
    "SELECT a.name FROM customers a JOIN orders w USING (customer_id) JOIN orders p ON p.order_id = w.order_id AND "
    "a.customer_id = w.customer_id",
    "SELECT a.name FROM customers a NATURAL LEFT JOIN orders w WHERE w.customer_id = a.customer_id",
])
def test_attack_round_21_using_and_natural_joins_keep_their_own_terms(shop, sql: str) -> None:
    answer = ask(shop, "Customers with orders", sql)
    assert answer.ok, (answer.sql, answer.notes)
    assert "USING" in answer.sql or "NATURAL" in answer.sql, answer.sql


def test_attack_round_21_a_name_joined_only_from_unquoted_pieces_that_spell_a_column() -> None:
    from core.sql import guard_named
    schema = Schema(dialect="sqlite", tables=(Table("paper", (Column("paperid", "integer"),)),
                                              Table("npapers", (Column("x", "integer"),))))
    for kept in ("SELECT c.n papers FROM (SELECT COUNT(*) AS n FROM paper) c",  # a table's name: not joined
                 'SELECT "pap erid" FROM paper', "SELECT [pap erid] FROM paper"):
        assert guard_named(kept, schema).mended == "", kept
