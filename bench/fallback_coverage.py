"""Bench: how many defog questions does the rule-based fallback answer, and are its answers right?

Run from the repository root: ``.venv/bin/python -m bench.fallback_coverage [--dbs restaurants yelp] [--gold]``.
``--sample`` instead runs ``SAMPLE_QUESTIONS`` (written for this bench, not taken from any question set) on the
sample e-commerce database: ``right`` = the hand-written query's columns are among the answer's, same rows.

Two schema builds per database: ``json`` (only ``<db>.json``: names and types, no keys, no value hints, as
the brief describes) and ``dump`` (``tests.defog_loader.defog_schema``: keys and value hints parsed from the
dump, as introspection would give). With ``--gold`` the dumps are loaded into an embedded PostgreSQL and
each answered question is run beside its gold query: ``exact`` = same rows (any order), ``cols`` = the gold
columns are among the fallback's columns with the same rows.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
import tempfile
from collections import Counter
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.fallback import FallbackSQL, fallback_with_reason  # noqa: E402
from core.schema import Column, Schema, Table  # noqa: E402
from tests.conftest import SHARED_DATA  # noqa: E402
from tests.defog_gold import expand_alternatives, split_statements  # noqa: E402
from tests.defog_loader import DEFOG_DATABASES, defog_schema  # noqa: E402

# Questions about the sample database with hand-written answers ({ly0}.. are filled from today's date). Some
# are beyond the fallback on purpose: it should refuse them, not answer them.
SAMPLE_QUESTIONS: list[tuple[str, str]] = [
    ("How many customers are there?", "SELECT count(*) FROM customers"),
    ("how many customers per country", "SELECT country, count(*) FROM customers GROUP BY 1"),
    ("list wholesale customers", "SELECT * FROM customers WHERE segment = 'wholesale'"),
    ("total amount of orders by payment method", "SELECT payment_method, sum(total_amount) FROM orders GROUP BY 1"),
    ("What is the average total amount?", "SELECT avg(total_amount) FROM orders"),
    ("How many delivered orders did customers from India place last year?",
     "SELECT count(*) FROM orders o JOIN customers c USING (customer_id) WHERE o.status = 'delivered' "
     "AND c.country = 'India' AND o.order_date >= '{ly0}' AND o.order_date < '{ly1}'"),
    ("number of orders by month this year",
     "SELECT date_trunc('month', order_date)::date, count(*) FROM orders WHERE order_date >= '{ty0}' "
     "AND order_date < '{ty1}' GROUP BY 1"),
    ("What are the payment methods?", "SELECT DISTINCT payment_method FROM orders"),
    ("how many different cities are customers from", "SELECT count(DISTINCT city) FROM customers"),
    ("list cancelled or returned orders from the last 30 days",
     "SELECT * FROM orders WHERE status IN ('cancelled', 'returned') AND order_date >= '{d30}' "
     "AND order_date < '{tomorrow}'"),
    ("top 5 cities by number of customers",
     "SELECT city, count(*) FROM customers GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 5"),
    ("Which 3 countries have the most orders?",
     "SELECT c.country, count(*) FROM orders JOIN customers c USING (customer_id) GROUP BY 1 "
     "ORDER BY 2 DESC, 1 LIMIT 3"),
    ("top 10 orders by total amount", "SELECT * FROM orders ORDER BY total_amount DESC, order_id LIMIT 10"),
    ("the 5 most recent orders", "SELECT * FROM orders ORDER BY order_date DESC, order_id LIMIT 5"),
    ("3 smallest orders by total amount", "SELECT * FROM orders ORDER BY total_amount, order_id LIMIT 3"),
    ("bottom 2 segments by number of customers",
     "SELECT segment, count(*) FROM customers GROUP BY 1 ORDER BY 2, 1 LIMIT 2"),
    ("Which country has the most customers?",
     "SELECT country FROM customers GROUP BY 1 HAVING count(*) = "
     "(SELECT max(n) FROM (SELECT count(*) AS n FROM customers GROUP BY country) t)"),
    ("which order has the highest total amount?",
     "SELECT order_id FROM orders WHERE total_amount = (SELECT max(total_amount) FROM orders)"),
    ("which customer has the most orders",
     "SELECT customer_id FROM orders GROUP BY 1 HAVING count(*) = "
     "(SELECT max(n) FROM (SELECT count(*) AS n FROM orders GROUP BY customer_id) t)"),
    ("which payment method has the most orders last year",
     "WITH t AS (SELECT payment_method, count(*) AS n FROM orders WHERE order_date >= '{ly0}' "
     "AND order_date < '{ly1}' GROUP BY 1) SELECT payment_method FROM t WHERE n = (SELECT max(n) FROM t)"),
    ("number of orders for each customer",
     "SELECT c.customer_id, count(o.order_id) FROM customers c LEFT JOIN orders o USING (customer_id) GROUP BY 1"),
    ("total amount per customer",
     "SELECT c.customer_id, coalesce(sum(o.total_amount), 0) FROM customers c LEFT JOIN orders o "
     "USING (customer_id) GROUP BY 1"),
    ("average total amount per customer",
     "SELECT c.customer_id, avg(o.total_amount) FROM customers c LEFT JOIN orders o USING (customer_id) GROUP BY 1"),
    ("top 5 customers by total amount",
     "SELECT customer_id, sum(total_amount) FROM orders GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 5"),
    ("top 3 customers by number of delivered orders",
     "SELECT customer_id, count(*) FROM orders WHERE status = 'delivered' GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 3"),
    ("which segment has the highest average total amount",
     "WITH t AS (SELECT c.segment, avg(o.total_amount) AS a FROM orders o JOIN customers c USING (customer_id) "
     "GROUP BY 1) SELECT segment FROM t WHERE a = (SELECT max(a) FROM t)"),
    ("customers who placed orders last month",
     "SELECT * FROM customers WHERE customer_id IN (SELECT customer_id FROM orders "
     "WHERE order_date >= '{lm0}' AND order_date < '{lm1}')"),
    ("how many customers without orders last month",
     "SELECT count(*) FROM customers WHERE customer_id NOT IN (SELECT customer_id FROM orders "
     "WHERE order_date >= '{lm0}' AND order_date < '{lm1}')"),
    ("customers with no cancelled orders",
     "SELECT * FROM customers WHERE customer_id NOT IN (SELECT customer_id FROM orders WHERE status = 'cancelled')"),
    ("how many customers have placed orders this year",
     "SELECT count(DISTINCT customer_id) FROM orders WHERE order_date >= '{ty0}' AND order_date < '{ty1}'"),
    ("top 5 corporate customers by total amount last year",
     "SELECT c.customer_id, sum(o.total_amount) FROM orders o JOIN customers c USING (customer_id) "
     "WHERE c.segment = 'corporate' AND o.order_date >= '{ly0}' AND o.order_date < '{ly1}' GROUP BY 1 "
     "ORDER BY 2 DESC, 1 LIMIT 5"),
    ("which city has the fewest customers",
     "SELECT city FROM customers GROUP BY 1 HAVING count(*) = "
     "(SELECT min(n) FROM (SELECT count(*) AS n FROM customers GROUP BY city) t)"),
    ("total amount of orders per customer country",
     "SELECT c.country, sum(o.total_amount) FROM orders o JOIN customers c USING (customer_id) GROUP BY 1"),
    ("how many orders per status", "SELECT status, count(*) FROM orders GROUP BY 1"),
    ("which status has the most orders",
     "SELECT status FROM orders GROUP BY 1 ORDER BY count(*) DESC LIMIT 1"),
    ("average total amount of orders per customer segment",
     "SELECT c.segment, avg(o.total_amount) FROM orders o JOIN customers c USING (customer_id) GROUP BY 1"),
    ("Who are our top 5 customers by lifetime value?",
     "SELECT customer_id, sum(total_amount) FROM orders GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 5"),
    ("What share of orders were cancelled?",
     "SELECT avg((status = 'cancelled')::int) FROM orders"),
    ("how many customers have more than 10 orders",
     "SELECT count(*) FROM (SELECT customer_id FROM orders GROUP BY 1 HAVING count(*) > 10) t"),
    ("Which month had the highest total amount last year?",
     "SELECT date_trunc('month', order_date)::date FROM orders WHERE order_date >= '{ly0}' "
     "AND order_date < '{ly1}' GROUP BY 1 ORDER BY sum(total_amount) DESC LIMIT 1"),
]  # fmt: skip

QUESTION_FILES = ("questions_gen_postgres.csv", "instruct_basic_postgres.csv", "instruct_advanced_postgres.csv")


def json_schema(name: str) -> Schema:
    """Names and types from ``<db>.json`` only: no keys, no value hints."""
    meta = json.loads((SHARED_DATA / "defog" / name / f"{name}.json").read_text(encoding="utf-8"))
    tables = []
    for raw, cols in meta["table_metadata"].items():
        schema_name, _, bare = raw.rpartition(".")
        columns = tuple(Column(c["column_name"].lower(), c.get("data_type", "")) for c in cols)
        tables.append(Table(bare.lower(), columns, schema=schema_name.lower() or "public"))
    return Schema("postgres", tuple(tables), database_id=f"defog_{name}")


def questions(name: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for file in QUESTION_FILES:
        path = SHARED_DATA / "defog" / "questions" / file
        with path.open(newline="", encoding="utf-8") as handle:
            out += [(r["question"], r["query"]) for r in csv.DictReader(handle) if r["db_name"] == name]
    return out


def _norm(value: Any) -> Any:
    if isinstance(value, (Decimal, float)):
        return round(float(value), 4)
    if isinstance(value, (date,)):
        return value.isoformat()
    return value


def _rows(conn: Any, sql: str) -> list[tuple[Any, ...]] | None:
    try:
        with conn.transaction():
            conn.execute("SET LOCAL statement_timeout = '10s'")
            rows = conn.execute(sql).fetchall()
    except Exception:  # noqa: BLE001 - a failing gold or fallback query just counts as no match
        return None
    return sorted((tuple(_norm(v) for v in r) for r in rows), key=repr)


def _cols_match(got: list[tuple[Any, ...]], want: list[tuple[Any, ...]]) -> bool:
    """Every gold column is some fallback column, and the rows agree on them."""
    if len(got) != len(want) or not want:
        return got == want
    picks: list[int] = []
    for j in range(len(want[0])):
        wcol = sorted((r[j] for r in want), key=repr)
        i = next((i for i in range(len(got[0])) if i not in picks
                  and sorted((r[i] for r in got), key=repr) == wcol), None)  # fmt: skip
        if i is None:
            return False
        picks.append(i)
    projected = sorted((tuple(r[i] for i in picks) for r in got), key=repr)
    return projected == want


def _fill(sql: str, today: date) -> str:
    first = today.replace(day=1)
    prev = (first - timedelta(days=1)).replace(day=1)
    return sql.format(
        ly0=date(today.year - 1, 1, 1), ly1=date(today.year, 1, 1), ty0=date(today.year, 1, 1),
        ty1=date(today.year + 1, 1, 1), lm0=prev, lm1=first, d30=today - timedelta(days=30),
        tomorrow=today + timedelta(days=1),
    )  # fmt: skip


def run_sample(today: date, show: bool) -> None:
    """``SAMPLE_QUESTIONS`` on a fresh sample database, with the schema as introspection gives it."""
    import psycopg

    from core.databases import PostgresDatabase
    from core.databases import EmbeddedPostgres
    from core.databases import ensure_sample_database

    server = EmbeddedPostgres(Path(tempfile.mkdtemp(prefix="cairn-fb-")))
    server.start()
    counts: Counter[str] = Counter()
    try:
        uri = ensure_sample_database(server)
        db = PostgresDatabase(uri)
        try:
            schema = db.schema()
        finally:
            db.close()
        with psycopg.connect(uri, autocommit=True) as conn:
            for question, gold in SAMPLE_QUESTIONS:
                result = fallback_with_reason(question, schema, today=today)
                if not isinstance(result, FallbackSQL):
                    counts["refused"] += 1
                    print(f"  refused  {question}  ({result})")
                    continue
                counts["answered"] += 1
                got, want = _rows(conn, result.sql), _rows(conn, _fill(gold, today))
                right = got is not None and want is not None and (got == want or _cols_match(got, want))
                counts["right" if right else "wrong"] += 1
                if show or not right:
                    print(f"  {'right' if right else 'WRONG'}    {question}\n      {result.sql}")
    finally:
        server.stop()
    print(f"sample questions: {len(SAMPLE_QUESTIONS)}  answered: {counts['answered']}  right: {counts['right']}  "
          f"wrong: {counts['wrong']}  refused: {counts['refused']}")  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--dbs", nargs="*", default=list(DEFOG_DATABASES))
    parser.add_argument("--gold", action="store_true", help="load dumps and compare answers with gold results")
    parser.add_argument("--show", action="store_true", help="print each answered question and its SQL")
    parser.add_argument("--sample", action="store_true", help="run the sample-database questions instead")
    args = parser.parse_args(argv)
    today = date.today()
    if args.sample:
        run_sample(today, args.show)
        return

    server = None
    if args.gold:
        from core.databases import EmbeddedPostgres

        server = EmbeddedPostgres(Path(tempfile.mkdtemp(prefix="cairn-fb-")))
        server.start()
    totals: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    try:
        print(f"{'database':16} {'questions':>9} {'json:answered':>13} {'dump:answered':>13} {'exact':>5} {'cols':>5}")
        for name in args.dbs:
            qs = questions(name)
            schemas = {"json": json_schema(name), "dump": defog_schema(name)}
            conn = None
            if server is not None:
                import psycopg

                from tests.defog_loader import load_defog

                conn = psycopg.connect(load_defog(server, name), autocommit=True)
            counts: Counter[str] = Counter()
            for question, gold in qs:
                for kind, schema in schemas.items():
                    result = fallback_with_reason(question, schema, today=today)
                    if not isinstance(result, FallbackSQL):
                        reasons[re.sub(r"'[^']*'", "'…'", result)] += kind == "dump"
                        continue
                    counts[kind] += 1
                    if args.show:
                        print(f"  [{kind}] {question}\n      {result.sql}")
                    if kind != "dump" or conn is None:
                        continue
                    got = _rows(conn, result.sql)
                    if got is None:
                        counts["error"] += 1
                        continue
                    wants = [_rows(conn, v) for s in split_statements(gold) for v in expand_alternatives(s)]
                    wants_ok = [w for w in wants if w is not None]
                    exact = any(got == w for w in wants_ok)
                    counts["exact"] += exact
                    counts["cols"] += exact or any(_cols_match(got, w) for w in wants_ok)
                    if args.show:
                        print(f"      exact={exact}")
            if conn is not None:
                conn.close()
            gold_cols = f"{counts['exact']:>5} {counts['cols']:>5}" if server else f"{'-':>5} {'-':>5}"
            print(f"{name:16} {len(qs):>9} {counts['json']:>13} {counts['dump']:>13} {gold_cols}")
            totals.update(counts)
            totals["questions"] += len(qs)
        gold_cols = f"{totals['exact']:>5} {totals['cols']:>5}" if server else f"{'-':>5} {'-':>5}"
        print(f"{'TOTAL':16} {totals['questions']:>9} {totals['json']:>13} {totals['dump']:>13} {gold_cols}")
        if totals["error"]:
            print(f"fallback SQL that failed to run: {totals['error']}")
        print("top refusal reasons (dump schemas):")
        for reason, count in reasons.most_common(8):
            print(f"  {count:4}  {reason}")
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    main()
