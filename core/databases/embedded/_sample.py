"""The sample e-commerce database Cairn creates on first start, so a new user can ask right away.

Deterministic (seeded) and realistic: 600 customers in 10 countries, 3 segments, and about 6,000 orders
spread over the two years before the database was created, so "last month" and "last year" always have
rows. The creation date is kept in the database comment; the prompt states today's date.
"""

from __future__ import annotations

import logging
import random
from datetime import date, timedelta

__all__ = ["SAMPLE_DATABASE", "create_sample_database", "ensure_sample_database"]

logger = logging.getLogger(__name__)

SAMPLE_DATABASE = "cairn_sample"
_MARKER = "Cairn sample e-commerce database"

N_CUSTOMERS = 600
N_ORDERS = 6000

_CITIES: dict[str, list[str]] = {
    "India": ["Delhi", "Mumbai", "Chennai", "Bangalore", "Kolkata", "Hyderabad", "Pune"],
    "USA": ["New York", "Chicago", "Austin", "Seattle", "Boston"],
    "UK": ["London", "Manchester", "Leeds", "Bristol"],
    "Germany": ["Berlin", "Munich", "Hamburg", "Cologne"],
    "France": ["Paris", "Lyon", "Marseille"],
    "Brazil": ["Sao Paulo", "Rio de Janeiro", "Curitiba"],
    "Japan": ["Tokyo", "Osaka", "Nagoya"],
    "Australia": ["Sydney", "Melbourne", "Perth"],
    "Canada": ["Toronto", "Vancouver", "Montreal"],
    "Singapore": ["Singapore"],
}
# India is the largest market of this fictional shop.
_COUNTRY_WEIGHTS = [30, 16, 10, 10, 7, 7, 6, 5, 5, 4]
_SEGMENTS = ["retail", "wholesale", "corporate"]
_SEGMENT_WEIGHTS = [60, 25, 15]
_STATUSES = ["delivered", "shipped", "processing", "pending", "cancelled", "returned"]
_STATUS_WEIGHTS = [62, 10, 6, 5, 10, 7]
_PAYMENTS = ["credit_card", "debit_card", "upi", "paypal", "bank_transfer", "cash_on_delivery"]
_FIRST = (
    "Aarav Priya Rahul Ananya Vikram Sneha Arjun Kavya Rohan Meera James Olivia Liam Emma Noah Ava Lucas "
    "Sophie Hannah Felix Lea Jonas Camille Hugo Chloe Lucas Gabriel Ana Pedro Yuki Haruto Sakura Ren Jack "
    "Chloe Ethan Grace Wei Mei"
).split()
_LAST = (
    "Sharma Patel Iyer Reddy Gupta Nair Singh Khan Das Mehta Smith Johnson Brown Taylor Wilson Clark Evans "
    "Walker Muller Schmidt Fischer Weber Martin Bernard Dubois Silva Santos Oliveira Sato Suzuki Tanaka "
    "Kelly Murphy Chen Tan Lim"
).split()

_DDL = """
CREATE TABLE customers (
    customer_id  integer PRIMARY KEY,
    name         text NOT NULL,
    email        text NOT NULL UNIQUE,
    city         text NOT NULL,
    country      text NOT NULL,
    segment      text NOT NULL
);
COMMENT ON TABLE customers IS 'People and companies that buy from the shop';
COMMENT ON COLUMN customers.customer_id IS 'Unique customer number';
COMMENT ON COLUMN customers.name IS 'Full name of the customer';
COMMENT ON COLUMN customers.email IS 'Contact e-mail address (personal data)';
COMMENT ON COLUMN customers.city IS 'City the customer is based in';
COMMENT ON COLUMN customers.country IS 'Country the customer is based in';
COMMENT ON COLUMN customers.segment IS 'Customer segment: retail, wholesale or corporate';

CREATE TABLE orders (
    order_id        integer PRIMARY KEY,
    customer_id     integer NOT NULL REFERENCES customers(customer_id),
    status          text NOT NULL,
    order_date      date NOT NULL,
    total_amount    numeric(12, 2) NOT NULL,
    payment_method  text NOT NULL
);
COMMENT ON TABLE orders IS 'Orders placed by customers, one row per order';
COMMENT ON COLUMN orders.order_id IS 'Unique order number';
COMMENT ON COLUMN orders.customer_id IS 'Customer who placed the order';
COMMENT ON COLUMN orders.status IS 'Fulfilment status of the order';
COMMENT ON COLUMN orders.order_date IS 'Date the order was placed';
COMMENT ON COLUMN orders.total_amount IS 'Order value in the shop currency';
COMMENT ON COLUMN orders.payment_method IS 'How the order was paid';
CREATE INDEX orders_customer_id_idx ON orders (customer_id);
CREATE INDEX orders_order_date_idx ON orders (order_date);
"""


def generate_rows(created: date, seed: int = 20240601) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    """The sample rows, a pure function of the creation date and the seed."""
    rng = random.Random(seed)
    countries = list(_CITIES)
    customers: list[tuple[object, ...]] = []
    used_emails: set[str] = set()
    for cid in range(1, N_CUSTOMERS + 1):
        first, last = rng.choice(_FIRST), rng.choice(_LAST)
        country = rng.choices(countries, weights=_COUNTRY_WEIGHTS)[0]
        city = rng.choice(_CITIES[country])
        segment = rng.choices(_SEGMENTS, weights=_SEGMENT_WEIGHTS)[0]
        email = f"{first}.{last}{cid}@example.com".lower()
        used_emails.add(email)
        customers.append((cid, f"{first} {last}", email, city, country, segment))

    # Busier customers order more often; wholesale orders are larger.
    activity = [rng.paretovariate(1.5) for _ in customers]
    start = created - timedelta(days=730)
    orders: list[tuple[object, ...]] = []
    for oid in range(1, N_ORDERS + 1):
        cust = rng.choices(customers, weights=activity)[0]
        segment = str(cust[5])
        day = start + timedelta(days=rng.randrange(730))
        # Recent orders are often not finished yet.
        age = (created - day).days
        if age < 7:
            status = rng.choice(["pending", "processing", "shipped"])
        elif age < 21:
            status = rng.choices(["shipped", "delivered", "cancelled", "processing"], [40, 45, 10, 5])[0]
        else:
            status = rng.choices(_STATUSES, weights=_STATUS_WEIGHTS)[0]
            if status in ("pending", "processing", "shipped"):
                status = "delivered"
        base = {"retail": 900.0, "corporate": 4000.0, "wholesale": 9000.0}[segment]
        amount = round(min(base * rng.lognormvariate(0, 0.9), 95000.0) + 20, 2)
        payment = rng.choice(_PAYMENTS if cust[4] == "India" else [p for p in _PAYMENTS if p != "upi"])
        orders.append((oid, cust[0], status, day, amount, payment))
    return customers, orders


def create_sample_database(uri: str, created: date | None = None) -> None:
    """Fill an empty database at ``uri``: schema, comments and rows, in one transaction."""
    import psycopg

    created = created or date.today()
    customers, orders = generate_rows(created)
    with psycopg.connect(uri) as conn:  # one transaction: all or nothing
        conn.execute(_DDL)
        with conn.cursor() as cur:
            with cur.copy("COPY customers (customer_id, name, email, city, country, segment) FROM STDIN") as cp:
                for row in customers:
                    cp.write_row(row)
            with cur.copy(
                "COPY orders (order_id, customer_id, status, order_date, total_amount, payment_method) FROM STDIN"
            ) as cp:
                for row in orders:
                    cp.write_row(row)
        dbname = conn.info.dbname
        conn.execute(
            psycopg.sql.SQL("COMMENT ON DATABASE {} IS {}").format(
                psycopg.sql.Identifier(dbname), psycopg.sql.Literal(f"{_MARKER}, created {created.isoformat()}")
            )
        )
        conn.execute("ANALYZE customers; ANALYZE orders")
    logger.info("sample database filled: %d customers, %d orders", len(customers), len(orders))


def ensure_sample_database(server: object, created: date | None = None) -> str:
    """Create the sample database on the embedded server if missing or unfinished; return its URI."""
    from psycopg import sql

    from core.databases.embedded._server import EmbeddedPostgres

    assert isinstance(server, EmbeddedPostgres)
    with server.setup_lock() as conn:  # a second Cairn process waits here instead of racing to create it
        row = conn.execute(
            "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = %s", (SAMPLE_DATABASE,)
        ).fetchone()
        if not (row is not None and row[0] and str(row[0]).startswith(_MARKER)):
            if row is not None:  # an earlier creation was interrupted: start again
                logger.warning("sample database is incomplete; recreating it")
                conn.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(SAMPLE_DATABASE)))
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(SAMPLE_DATABASE)))
            try:
                create_sample_database(server.uri(SAMPLE_DATABASE), created)  # as the superuser, once
            except BaseException:
                conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                    sql.Identifier(SAMPLE_DATABASE)))
                raise
    return server.grant_read_only(SAMPLE_DATABASE)  # questions run as the read-only role
