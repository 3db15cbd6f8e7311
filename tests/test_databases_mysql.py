"""MySQL/MariaDB on a real MariaDB server started by the tests: introspection (columns, comments, keys, value hints),
read-only sessions whatever the account may do, the server's own time limit and KILL QUERY on cancel, MySQL's
dialect through the guard and the repairs, and the shared backend contract."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from core.cancellation import Cancellation
from core.config import Settings
from core.databases import QueryLimits, open_database
from core.errors import AuthenticationFailed, CairnError, QueryCancelled, QueryTimeout
from core.pipeline import AskPipeline
from core.sql import guard
from tests.backend_contract import contract_failures
from tests.fakes.scripted_llm import ScriptedLLM
from tests.mariadb_server import MariaDB

HEAVY = "SELECT COUNT(*) FROM t a, t b, t c, t d, t e, t f, t g, t h, t i, t j, t k, t l, t m, t n, t o, t p"
pytestmark = pytest.mark.skipif(not MariaDB.available(), reason="MariaDB is not installed (scripts/install.sh)")


@pytest.fixture(scope="module")
def mariadb() -> Iterator[MariaDB]:
    server = MariaDB()
    server.start()
    with server.admin() as conn, conn.cursor() as cur:
        cur.execute("CREATE DATABASE shop")
        cur.execute("USE shop")
        cur.execute("CREATE TABLE customers (customer_id INT PRIMARY KEY, name VARCHAR(50) COMMENT 'Full name', "
                    "city VARCHAR(30)) COMMENT 'People who buy'")
        cur.execute("CREATE TABLE orders (order_id INT PRIMARY KEY, customer_id INT, status VARCHAR(20), "
                    "amount DECIMAL(10,2), placed DATE, FOREIGN KEY (customer_id) REFERENCES customers(customer_id))")
        cur.execute("INSERT INTO customers VALUES (1,'Asha','Pune'),(2,'Ravi','Delhi'),(3,'Meera','Pune')")
        cur.execute("INSERT INTO orders VALUES (1,1,'paid',120.50,'2024-03-01'),(2,1,'paid',80,'2024-04-02'),"
                    "(3,2,'cancelled',300,'2024-04-03')")
        cur.execute("CREATE TABLE t (a INT)")
        cur.execute("INSERT INTO t VALUES (1),(2),(3)")
        cur.execute("CREATE USER 'reader'@'localhost' IDENTIFIED BY 'pw'")
        cur.execute("GRANT SELECT ON shop.* TO 'reader'@'localhost'")
    yield server
    server.stop()


def test_introspection_reads_columns_comments_keys_and_value_hints(mariadb: MariaDB) -> None:
    db = open_database(mariadb.url("shop"))
    try:
        schema = db.schema()
        customers, orders = schema.table("customers"), schema.table("orders")
        assert db.dialect == "mysql" and customers.comment == "People who buy"
        assert customers.column("name").comment == "Full name" and customers.primary_key == ("customer_id",)
        (fk,) = orders.foreign_keys
        assert fk.columns == ("customer_id",) and fk.ref_table == "customers" and not fk.inferred
        assert orders.column("status").value_hints == ("paid", "cancelled")
    finally:
        db.close()


def test_the_contract_holds_even_for_an_account_that_may_write(mariadb: MariaDB) -> None:
    """root may write anything; the read-only transaction refuses it all the same."""
    db = open_database(mariadb.url("shop"))
    try:
        assert contract_failures(db, ("INSERT INTO t VALUES (99)", "UPDATE t SET a = 0", "DELETE FROM t",
                                      "DROP TABLE t", "CREATE TABLE evil (a INT)", "TRUNCATE TABLE t",
                                      "SET SESSION TRANSACTION READ WRITE", "CREATE TEMPORARY TABLE tmp (a INT)",
                                      "GRANT ALL ON *.* TO 'reader'@'localhost'", "SELECT * FROM t INTO OUTFILE '/tmp/x'"),
                                 runaway=HEAVY) == []
    finally:
        db.close()


def test_timeout_and_cancel_stop_the_server_too(mariadb: MariaDB) -> None:
    db = open_database(mariadb.url("shop"))
    heavy = HEAVY
    try:
        started = time.perf_counter()
        with pytest.raises(QueryTimeout):
            db.execute(heavy, limits=QueryLimits(timeout_s=0.5))
        assert time.perf_counter() - started < 10
        cancel = Cancellation()
        threading.Timer(0.5, cancel.cancel).start()
        with pytest.raises(QueryCancelled):
            db.execute(heavy, cancel=cancel)
        with mariadb.admin() as conn, conn.cursor() as cur:  # nothing left running on the server
            time.sleep(0.3)
            cur.execute("SELECT COUNT(*) FROM information_schema.processlist WHERE info LIKE 'SELECT COUNT(*) FROM t a%'")
            assert cur.fetchone()[0] == 0
    finally:
        db.close()


def test_a_wrong_password_is_said_as_such(mariadb: MariaDB) -> None:
    db = open_database(mariadb.url("shop", "reader", "wrong"))
    with pytest.raises(AuthenticationFailed):
        db.schema()


@pytest.mark.parametrize(("sql", "reason"), [
    ("SELECT * FROM orders INTO OUTFILE '/tmp/stolen.csv'", ""),
    ("LOAD DATA INFILE '/etc/passwd' INTO TABLE t", "not allowed"),
    ("SELECT SLEEP(10)", "not allowed"),
    ("SELECT BENCHMARK(100000000, MD5('x'))", "not allowed"),
    ("SELECT LOAD_FILE('/etc/passwd')", "not allowed"),
    ("SELECT @x := 1", "not allowed"),
    ("SET @x = 1", "not allowed"),
    ("DO SLEEP(1)", "not allowed"),
])
def test_mysql_specials_are_refused_by_the_guard(sql: str, reason: str) -> None:
    with pytest.raises(CairnError) as err:
        guard(sql, "mysql")
    assert reason in str(err.value)


def test_a_question_runs_in_mysql_with_postgres_habits_translated(mariadb: MariaDB) -> None:
    """The model writes || and a misspelt column; the guard makes CONCAT, the repair finds the column."""
    db = open_database(mariadb.url("shop", "reader", "pw"))
    llm = ScriptedLLM("SELECT name || ' (' || city || ')' AS who, SUM(amont) AS total FROM customers c "
                      "JOIN orders o ON o.customer_id = c.customer_id WHERE o.status = 'paid' GROUP BY name, city",
                      "x", "x", "x")
    try:
        answer = AskPipeline(db, llm, Settings()).ask("paid totals per customer")
        assert answer.ok, answer.error
        assert [tuple(r) for r in answer.rows] == [("Asha (Pune)", pytest.approx(200.5))]
        assert "MySQL" in llm.history[0].system
    finally:
        db.close()


def test_doctor_reports_the_accounts_powers_and_the_sql_for_a_read_only_one(mariadb: MariaDB) -> None:
    from core.cli._doctor import check_database_role

    root = check_database_role(mariadb.url("shop"))
    assert root.status == "warn" and "ALL PRIVILEGES" in root.detail and "GRANT SELECT, SHOW VIEW ON `shop`.*" in root.hint
    reader = check_database_role(mariadb.url("shop", "reader", "pw"))
    assert reader.status == "ok" and "can only read" in reader.detail


def test_the_rule_based_fallback_answers_in_mysql(mariadb: MariaDB) -> None:
    db = open_database(mariadb.url("shop", "reader", "pw"))
    try:
        by_month = AskPipeline(db, None, Settings()).ask("number of orders per month")
        assert by_month.ok and by_month.path == "fallback", by_month.error
        assert sorted(by_month.rows) == [("2024-03", 1), ("2024-04", 2)]
        per_city = AskPipeline(db, None, Settings()).ask("total amount per customer city")
        assert per_city.ok and sorted((r[0], float(r[1])) for r in per_city.rows) == [("Delhi", 300.0), ("Pune", 200.5)]
    finally:
        db.close()


def test_a_saved_mysql_connection_keeps_its_password_in_the_secret_store(mariadb: MariaDB) -> None:
    from core.databases import SavedConnection, connection_url
    from core.databases.connections._secrets import SessionSecretStore

    conn, password = SavedConnection.from_url("Shop", mariadb.url("shop", "reader", "pw"))
    assert conn.kind == "mysql" and password == "pw" and "pw" not in conn.to_json().values()
    secrets = SessionSecretStore()
    secrets.set(conn.secret_key(), password)
    db = open_database(connection_url(conn, secrets))
    try:
        assert db.execute("SELECT COUNT(*) FROM customers").rows == ((3,),)
    finally:
        db.close()


def test_the_connect_form_makes_a_mysql_connection(qtbot) -> None:
    from core.databases.connections._secrets import SessionSecretStore
    from desktop.connections.connection_form import POSTGRES_TAB, ConnectionForm

    form = ConnectionForm(SessionSecretStore())
    qtbot.addWidget(form)
    form.tabs.setCurrentIndex(POSTGRES_TAB)
    form.server_combo.setCurrentIndex(form.server_combo.findData("mysql"))
    for edit, text in ((form.name_edit, "Shop"), (form.host_edit, "db.local"), (form.database_edit, "shop"),
                       (form.user_edit, "reader")):
        edit.setText(text)
    conn = form.form_connection()
    assert conn.kind == "mysql" and conn.port == 3306 and conn.url() == "mysql://reader@db.local:3306/shop"
    assert not form.ssl_combo.isEnabled()
    form.fill_from_url("postgresql://ann@pg.local/sales")
    assert form.server_combo.currentData() == "postgres" and form.form_connection().kind == "postgres"


def test_executable_comments_are_refused_by_the_guard_and_the_executor(mariadb: MariaDB, tmp_path) -> None:
    """/*! … */ is a comment to every parser and code to the server (root may write files with INTO OUTFILE)."""
    db = open_database(mariadb.url("shop"))
    out = tmp_path / "stolen.txt"
    try:
        for sql in (f"SELECT * FROM customers /*!50000 INTO OUTFILE '{out}' */",
                    "SELECT name FROM customers WHERE 1=1 /*!UNION SELECT LOAD_FILE('/etc/hostname')*/",
                    "SELECT name FROM customers /*M! INTO DUMPFILE '/tmp/x' */"):
            with pytest.raises(CairnError):
                guard(sql, "mysql")
            with pytest.raises(CairnError):
                db.execute(sql)
    finally:
        db.close()
    assert not out.exists()


def test_a_stalled_server_is_given_up_not_waited_for(mariadb: MariaDB) -> None:
    import os
    import signal

    from core.errors import DatabaseError

    db = open_database(mariadb.url("shop"))
    pid = mariadb._proc.pid
    os.kill(pid, signal.SIGSTOP)
    try:
        started = time.perf_counter()
        with pytest.raises(DatabaseError):
            db.execute("SELECT 1", limits=QueryLimits(timeout_s=1))
        assert time.perf_counter() - started < 30
    finally:
        os.kill(pid, signal.SIGCONT)
        db.close()


def test_an_unreachable_mysql_server_is_a_message_without_the_password(capsys) -> None:
    from core.cli import main

    code = main(["ask", "How many?", "--db", "mysql://u:s3cretpw@127.0.0.1:1/db", "--json"])
    out, err = capsys.readouterr()
    assert code == 3 and "s3cretpw" not in out + err and "Cannot reach" in out


def test_table_and_alias_names_are_spelled_as_mysql_on_linux_wants_them(mariadb: MariaDB) -> None:
    """MySQL on Linux matches table names and aliases only as spelled; columns in any case."""
    db = open_database(mariadb.url("shop", "reader", "pw"))
    sql = "SELECT Customers.Name, COUNT(*) FROM Customers JOIN Orders o ON O.customer_id = Customers.customer_id GROUP BY Customers.Name"
    try:
        answer = AskPipeline(db, ScriptedLLM(sql, "x", "x", "x"), Settings()).ask("orders per customer")
        assert answer.ok, answer.error
        assert sorted(answer.rows) == [("Asha", 2), ("Ravi", 1)]
        assert "FROM customers" in answer.sql and "o.customer_id" in answer.sql
    finally:
        db.close()
