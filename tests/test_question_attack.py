"""Attack findings on the question checks (core.evidence._question, _question_columns, _asked, _question_dates),
the spelling check (_values) and the join on the pair the names settle (_joins._named_pair).

Each test is a realistic question with a query that answers it correctly (or, for the crash, an ordinary wrong one)
and asserts what Cairn should do: answer without doubting it. Real SQLite through Cairn's backend; the model is
scripted and writes the same query again when shown a finding, so the query that ran stays the answer.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.config import Settings
from core.databases import open_database
from core.pipeline import AskPipeline
from tests.fakes.scripted_llm import ScriptedLLM


def _db(tmp_path: Path, script: str, name: str = "db.sqlite"):
    path = tmp_path / name
    with sqlite3.connect(path) as conn:  # no declared keys
        conn.executescript(script)
    return open_database(str(path))


def _ask(db, question: str, sql: str):
    return AskPipeline(db, ScriptedLLM(sql, sql, sql, sql), Settings()).ask(question)


@pytest.fixture()
def shop(tmp_path: Path):
    db = _db(tmp_path, """
        CREATE TABLE customers(customer_id INTEGER, name TEXT, city TEXT, signup_date TEXT, age INTEGER);
        CREATE TABLE orders(order_id INTEGER, customer_id INTEGER, order_date TEXT, amount REAL, discount REAL);
        CREATE TABLE products(product_id INTEGER, product_name TEXT, category TEXT, price REAL);
        CREATE TABLE order_items(order_id INTEGER, product_id INTEGER, quantity INTEGER, unit_price REAL);
        INSERT INTO customers VALUES (1,'Asha','Pune','2021-01-05',34),(2,'Bilal','Agra','2021-06-01',51),
            (3,'Chen','Pune','2022-02-03',28),(4,'Dora','Rome','2022-03-04',45),(5,'Eve','Rome','2023-01-01',19);
        INSERT INTO orders VALUES (1,1,'2021-01-10',100,0),(2,1,'2021-02-10',250,0.1),(3,2,'2021-03-01',75,0),
            (4,3,'2022-01-01',500,0.2),(5,1,'2022-05-05',60,0),(6,3,'2022-06-06',60,0),(7,4,'2023-01-01',1000,0.05);
        INSERT INTO products VALUES (1,'Pen','stationery',10),(2,'Book','books',300),(3,'Lamp','home',1500),
            (4,'Mug','home',250),(5,'Pencil','stationery',5);
        INSERT INTO order_items VALUES (1,1,1,10),(2,2,3,300),(3,4,2,250),(4,3,5,1500),(5,1,1,10),(6,5,1,5),
            (7,2,10,300);
    """)
    yield db
    db.close()


# --- a crash: the whole question fails ------------------------------------------------------------------------------

@pytest.mark.parametrize("sql", ["SELECT SUM(DISTINCT amount) FROM orders", "SELECT MAX(DISTINCT amount) FROM orders"])
def test_an_aggregate_over_distinct_values_does_not_crash_the_answer(shop, sql) -> None:
    # _aggregate_finding reads Distinct.this (None) as the argument: AttributeError out of ask(), no answer at all.
    answer = _ask(shop, "What is the average order amount?", sql)
    assert answer.ok and answer.rows


# --- false doubts on correct queries ---------------------------------------------------------------------------------

def test_a_join_on_a_text_column_holding_the_other_tables_name_is_not_offered_on_name_equals_name(tmp_path) -> None:
    # employees.department holds departments.name. With no key declared, _named_pair "settles" name = name (both
    # tables have a column called name) and the note claims the schema relates them so: 0 rows instead of 3.
    db = _db(tmp_path, """
        CREATE TABLE employees(emp_id INTEGER, name TEXT, department TEXT, salary REAL);
        CREATE TABLE departments(dept_id INTEGER, name TEXT, budget REAL);
        INSERT INTO employees VALUES (1,'Ana','Sales',100),(2,'Ben','Ops',200),(3,'Cy','Sales',300);
        INSERT INTO departments VALUES (1,'Sales',1000),(2,'Ops',500);
    """)
    answer = _ask(db, "What is the budget of each employee's department?",
                  "SELECT e.name, d.budget FROM employees e JOIN departments d ON e.department = d.name")
    assert not answer.alternatives
    assert not any("relates them by" in n for n in answer.notes)
    db.close()


def test_units_sold_is_not_read_as_the_unit_price_column(shop) -> None:
    # "units" matches unit_price of order_items: SUM(quantity) is offered as SUM(unit_price).
    answer = _ask(shop, "How many units of each product were sold in total?",
                  "SELECT p.product_name, SUM(oi.quantity) FROM products p JOIN order_items oi "
                  "ON oi.product_id = p.product_id GROUP BY p.product_name")
    assert not answer.alternatives


@pytest.mark.parametrize(("question", "sql"), [
    ("Which customer has been with us the longest?", "SELECT name FROM customers ORDER BY signup_date ASC LIMIT 1"),
    ("What are the 3 most affordable products?", "SELECT product_name, price FROM products ORDER BY price LIMIT 3"),
    ("What is the price of the most affordable product?", "SELECT MIN(price) FROM products"),
])
def test_a_superlative_whose_direction_depends_on_the_column_is_not_read_as_highest_first(shop, question, sql) -> None:
    # "longest" (tenure: the earliest date) and "most affordable" (the lowest price) are read as "the highest
    # first": the query is offered ordered DESC / with MAX, i.e. the newest customer and the dearest product.
    assert not _ask(shop, question, sql).alternatives


@pytest.mark.parametrize(("question", "sql"), [
    ("Top 3 fastest laps", "SELECT driver, lap_ms FROM laps ORDER BY lap_ms ASC LIMIT 3"),
    ("Top 3 ranked players", "SELECT player FROM players ORDER BY world_rank ASC LIMIT 3"),
    ("top 2 youngest customers", "SELECT name FROM customers ORDER BY age ASC LIMIT 2"),
])
def test_top_n_of_an_ascending_superlative_is_not_read_as_highest_first(tmp_path, question, sql) -> None:
    # "top" alone sets the direction to DESC, whatever superlative follows ("fastest", "youngest", rank 1).
    db = _db(tmp_path, """
        CREATE TABLE laps(driver TEXT, lap INTEGER, lap_ms INTEGER);
        INSERT INTO laps VALUES ('X',1,90000),('X',2,88000),('Y',1,87000),('Y',2,95000),('Z',1,86000);
        CREATE TABLE players(player TEXT, world_rank INTEGER);
        INSERT INTO players VALUES ('A',1),('B',2),('C',3),('D',4),('E',5);
        CREATE TABLE customers(name TEXT, age INTEGER);
        INSERT INTO customers VALUES ('P',34),('Q',51),('R',28),('S',45),('T',19);
    """)
    assert not _ask(db, question, sql).alternatives
    db.close()


@pytest.mark.parametrize(("question", "sql"), [
    ("How many customers signed up after 2021?", "SELECT COUNT(*) FROM customers WHERE signup_date >= '2022-01-01'"),
    ("How many orders were placed by the end of 2022?", "SELECT COUNT(*) FROM orders WHERE order_date < '2023-01-01'"),
])
def test_a_year_boundary_written_as_the_next_years_first_day_is_not_another_year(shop, question, sql) -> None:
    # "after 2021" is >= '2022-01-01'; the year check rewrites it to >= '2021-01-01' ("the question says 2021").
    assert not _ask(shop, question, sql).alternatives


def test_a_bound_in_other_units_than_the_column_is_not_offered_as_the_bare_number(tmp_path) -> None:
    # "over 5 minutes" against milliseconds: the query is offered as milliseconds > 5.
    db = _db(tmp_path, """
        CREATE TABLE tracks(track_id INTEGER, title TEXT, milliseconds INTEGER);
        INSERT INTO tracks VALUES (1,'a',200000),(2,'b',320000),(3,'c',400000);
    """)
    assert not _ask(db, "Which tracks are over 5 minutes long?",
                    "SELECT title FROM tracks WHERE milliseconds > 300000").alternatives
    db.close()


def test_a_negative_bound_is_read_with_its_sign(tmp_path) -> None:
    # "below -5" is read as "below 5": the note misquotes the question and the alternative drops the minus sign.
    db = _db(tmp_path, """
        CREATE TABLE weather(day TEXT, mean_temp REAL);
        INSERT INTO weather VALUES ('2015-01-01',-7),('2015-01-02',3),('2015-01-03',-1),('2015-01-04',10);
    """)
    answer = _ask(db, "Which days had a mean temp below -5?", "SELECT day FROM weather WHERE mean_temp < -5")
    assert not answer.alternatives
    db.close()


def test_a_role_word_is_not_read_as_the_column_pointing_at_that_role(tmp_path) -> None:
    # "manager" names manager_id (the employee's boss): the managers' names are offered as their bosses' ids.
    db = _db(tmp_path, """
        CREATE TABLE employees(emp_id INTEGER, name TEXT, job_title TEXT, department TEXT, manager_id INTEGER,
                               salary REAL);
        INSERT INTO employees VALUES (1,'Ana','Manager','Sales',NULL,9000),(2,'Ben','Rep','Sales',1,4000),
            (3,'Cy','Manager','Ops',NULL,8000),(4,'Di','Rep','Ops',3,3500);
    """)
    for question, sql in (
            ("Who is the manager of the Sales department?",
             "SELECT name FROM employees WHERE department = 'Sales' AND job_title = 'Manager'"),
            ("Who earns the least among managers?",
             "SELECT name FROM employees WHERE job_title = 'Manager' ORDER BY salary LIMIT 1")):
        assert not _ask(db, question, sql).alternatives, question
    db.close()


@pytest.mark.parametrize(("question", "sql"), [
    ("Top 2 products in each category by price",
     "SELECT category, product_name, price FROM (SELECT category, product_name, price, ROW_NUMBER() OVER "
     "(PARTITION BY category ORDER BY price DESC) AS rn FROM products) WHERE rn <= 2 ORDER BY category, rn"),
    ("List all orders placed by the top 2 customers by spend, newest first",
     "SELECT o.order_id, o.order_date FROM orders o WHERE o.customer_id IN (SELECT customer_id FROM orders "
     "GROUP BY customer_id ORDER BY SUM(amount) DESC LIMIT 2) ORDER BY o.order_date DESC"),
])
def test_top_n_that_the_query_keeps_per_group_or_in_a_subquery_is_not_a_limit_on_the_answer(shop, question,
                                                                                            sql) -> None:
    # "top 2" is kept by ROW_NUMBER() <= 2 / a LIMIT inside the subquery: "Keep 2" cuts the answer to 2 rows.
    assert not _ask(shop, question, sql).alternatives


def test_overall_is_not_read_as_a_total(tmp_path) -> None:
    # "overall" is in the sum words: an overall rating (AVG) is offered as SUM, and the date of the first order
    # "overall" (MIN) as SUM(order_date), a number that is no date.
    db = _db(tmp_path, """
        CREATE TABLE reviews(review_id INTEGER, product TEXT, stars INTEGER);
        INSERT INTO reviews VALUES (1,'Pen',5),(2,'Pen',3),(3,'Mug',4),(4,'Mug',4),(5,'Lamp',2);
        CREATE TABLE orders(order_id INTEGER, order_date TEXT);
        INSERT INTO orders VALUES (1,'2021-01-10'),(2,'2022-05-05');
    """)
    for question, sql in (("What is the overall rating of each product?",
                           "SELECT product, AVG(stars) FROM reviews GROUP BY product"),
                          ("When was the first order placed overall?", "SELECT MIN(order_date) FROM orders")):
        assert not _ask(db, question, sql).alternatives, question
    db.close()


def test_an_aggregate_word_inside_a_column_name_is_not_an_aggregate_asked_for(tmp_path) -> None:
    # "mean" names the mean_temperature column: MAX(mean_temperature) for "the highest mean temperature" is offered
    # as AVG(mean_temperature).
    db = _db(tmp_path, """
        CREATE TABLE weather(day TEXT, mean_temperature REAL);
        INSERT INTO weather VALUES ('2015-01-01',-7),('2015-01-02',3),('2015-01-03',10),('2016-01-01',-3);
    """)
    assert not _ask(db, "What was the highest mean temperature in 2015?",
                    "SELECT MAX(mean_temperature) FROM weather WHERE day LIKE '2015%'").alternatives
    db.close()


def test_a_year_taken_from_a_date_is_not_offered_as_the_year_column_inside_the_date_function(tmp_path) -> None:
    # "per year" names sale_year; the alternative is strftime('%Y', sale_year): SQLite reads 2021 as a Julian day.
    db = _db(tmp_path, """
        CREATE TABLE sale(sale_id INTEGER, amount REAL, sold_on TEXT, sale_year INTEGER);
        INSERT INTO sale VALUES (1,10,'2021-01-04',2021),(2,20,'2021-02-01',2021),(3,5,'2022-03-01',2022);
    """)
    assert not _ask(db, "Number of sales per year",
                    "SELECT strftime('%Y', sold_on) AS yr, COUNT(*) FROM sale GROUP BY yr").alternatives
    db.close()


def test_a_value_beyond_the_hint_sample_is_not_said_to_be_missing(tmp_path) -> None:
    # Hints come from the first 10,000 rows: 'Premium' (later rows) is absent, and the note says the column holds
    # 'Premium Plus', not 'Premium', though the query counted 500 'Premium' rows.
    path = tmp_path / "subs.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE subscriptions(sub_id INTEGER, plan TEXT)")
        conn.executemany("INSERT INTO subscriptions VALUES (?, ?)",
                         [(i, "Basic" if i % 2 else "Premium Plus") for i in range(10_000)])
        conn.executemany("INSERT INTO subscriptions VALUES (?, 'Premium')", [(10_000 + i,) for i in range(500)])
    db = open_database(str(path))
    answer = _ask(db, "How many subscriptions are on the Premium plan?",
                  "SELECT COUNT(*) FROM subscriptions WHERE plan = 'Premium'")
    assert answer.rows == ((500,),)
    assert not answer.alternatives
    db.close()


def test_m_after_a_number_is_metres_not_million(tmp_path) -> None:
    # "over 2 m" is read as over 2,000,000.
    db = _db(tmp_path, """
        CREATE TABLE people(name TEXT, height_m REAL);
        INSERT INTO people VALUES ('P',1.8),('Q',2.1),('R',1.6),('S',2.3);
    """)
    assert not _ask(db, "Which people are over 2 m tall?", "SELECT name FROM people WHERE height_m > 2").alternatives
    db.close()


def test_a_negated_comparison_is_not_flipped_into_its_opposite(shop) -> None:
    # NOT amount > 100 keeps "not more than 100"; the note says the query keeps amount > 100 and the alternative
    # NOT amount <= 100 keeps the orders over 100.
    assert not _ask(shop, "Orders of not more than 100", "SELECT order_id FROM orders WHERE NOT amount > 100").alternatives


def test_scientific_notation_in_the_question_is_not_read_as_its_mantissa(shop) -> None:
    # "over 1e5" is read as "over 1": amount > 100000 is offered as amount > 1.
    assert not _ask(shop, "orders with amount over 1e5", "SELECT order_id FROM orders WHERE amount > 100000").alternatives


# --- the filter checks in progress (core/evidence/_question_filters.py, uncommitted when this was written) --------

@pytest.fixture()
def shop_with_status(tmp_path: Path):
    db = _db(tmp_path, """
        CREATE TABLE orders(order_id INTEGER, customer_id INTEGER, amount REAL, status TEXT);
        INSERT INTO orders VALUES (1,1,100,'paid'),(2,1,250,'paid'),(3,2,75,'refunded'),(4,3,500,'paid'),
            (5,1,60,'pending'),(6,3,600,'refunded'),(7,4,1000,'paid');
    """)
    yield db
    db.close()


def test_a_verb_that_spells_a_status_value_is_not_a_filter_on_that_status(shop_with_status) -> None:
    # "paid" (the verb) is a value of orders.status: the total per customer is offered as "Only paid".
    answer = _ask(shop_with_status, "How much has each customer paid us overall?",
                  "SELECT customer_id, SUM(amount) FROM orders GROUP BY customer_id")
    assert not answer.alternatives


def test_plus_between_two_conditions_is_not_read_as_and(shop_with_status) -> None:
    # "refunded orders, plus every order above 500" is a union: OR is offered as AND (0 rows instead of 3).
    answer = _ask(shop_with_status, "Show refunded orders, plus every order above 500",
                  "SELECT order_id FROM orders WHERE status = 'refunded' OR amount > 500")
    assert not answer.alternatives
