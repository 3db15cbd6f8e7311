"""Per-stage latency of the pipeline with an instant fake LLM, on the embedded sample database.

Prints p50/p95 per stage over >= 200 questions, the total without the model call, introspection time for
the sample database and the largest defog schema, and prompt token counts for large schemas.

    .venv/bin/python -m bench.pipeline_overhead
"""

from __future__ import annotations

import datetime as dt
import statistics
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.config import Settings  # noqa: E402
from core.databases import open_database  # noqa: E402
from core.databases import EmbeddedPostgres  # noqa: E402
from core.pipeline import AskPipeline  # noqa: E402
from core.prompt import build_sql_prompt  # noqa: E402
from core.databases import ensure_sample_database  # noqa: E402
from core.prompt import estimate_tokens, render_schema_block  # noqa: E402

COUNTRIES = ["India", "USA", "UK", "Germany", "France", "Brazil", "Japan", "Australia", "Canada", "Singapore"]
STATUSES = ["delivered", "shipped", "cancelled", "returned", "pending"]
SEGMENTS = ["retail", "wholesale", "corporate"]
PAYMENTS = ["credit_card", "debit_card", "upi", "paypal", "bank_transfer", "cash_on_delivery"]


def workload() -> dict[str, str]:
    """Question -> the SQL an ideal model would write (varied shapes: filters, joins, groups, windows)."""
    qa: dict[str, str] = {}
    for c in COUNTRIES:
        qa[f"How many customers are in {c}?"] = f"SELECT count(*) FROM customers WHERE country = '{c}'"
        qa[f"Total order value from {c}"] = (
            "SELECT sum(o.total_amount) FROM orders o JOIN customers c ON c.customer_id = o.customer_id "
            f"WHERE c.country = '{c}'"
        )
        for s in STATUSES:
            qa[f"How many {s} orders did customers from {c} place last year?"] = (
                "SELECT count(*) FROM orders o JOIN customers c ON c.customer_id = o.customer_id "
                f"WHERE c.country = '{c}' AND o.status = '{s}' AND o.order_date >= date_trunc('year', "
                "current_date) - interval '1 year' AND o.order_date < date_trunc('year', current_date)"
            )
        for seg in SEGMENTS:
            qa[f"Top 5 {seg} customers in {c} by spend"] = (
                "SELECT c.name, sum(o.total_amount) AS spend FROM customers c JOIN orders o "
                f"ON o.customer_id = c.customer_id WHERE c.segment = '{seg}' AND c.country = '{c}' "
                "GROUP BY c.customer_id, c.name ORDER BY spend DESC LIMIT 5"
            )
            qa[f"Monthly revenue of {seg} customers in {c}"] = (
                "SELECT date_trunc('month', o.order_date) AS month, sum(o.total_amount) FROM orders o JOIN "
                f"customers c ON c.customer_id = o.customer_id WHERE c.segment = '{seg}' AND c.country = '{c}' "
                "GROUP BY 1 ORDER BY 1"
            )
        for pm in PAYMENTS:
            qa[f"Average {pm} order in {c} per month this year"] = (
                "SELECT extract(month FROM o.order_date) AS m, avg(o.total_amount) FROM orders o JOIN customers c "
                f"ON c.customer_id = o.customer_id WHERE o.payment_method = '{pm}' AND c.country = '{c}' AND "
                "o.order_date >= date_trunc('year', current_date) GROUP BY 1 ORDER BY 1"
            )
    for s in STATUSES:
        qa[f"List {s} orders"] = f"SELECT order_id, order_date, total_amount FROM orders WHERE status = '{s}'"
        qa[f"Running total of {s} order value by day"] = (
            "SELECT order_date, sum(sum(total_amount)) OVER (ORDER BY order_date) FROM orders "
            f"WHERE status = '{s}' GROUP BY order_date ORDER BY order_date"
        )
    return qa


class InstantLLM:
    model = "instant"

    def __init__(self, answers: Mapping[str, str]) -> None:
        self.answers = answers

    def chat(self, system: str, user: str, *, options: Any = None, format: Any = None) -> str:  # noqa: A002
        question = user.rsplit("Question: ", 1)[1].strip().strip('"')
        return self.answers[question]


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def main() -> None:
    root = Path(tempfile.mkdtemp(prefix="cairn-bench-"))
    server = EmbeddedPostgres(root)
    uri = ensure_sample_database(server)
    db = open_database(uri)
    t = time.perf_counter()
    db.schema(refresh=True)
    sample_introspect = time.perf_counter() - t

    qa = workload()
    pipe = AskPipeline(db, InstantLLM(qa), Settings(), today=dt.date.today)
    pipe.ask(next(iter(qa)))  # warm the pool and caches
    per_stage: dict[str, list[float]] = {}
    overhead: list[float] = []
    failures = 0
    for question in qa:
        answer = pipe.ask(question)
        failures += not answer.ok
        for stage, secs in answer.timings.items():
            per_stage.setdefault(stage, []).append(secs * 1000)
        overhead.append(sum(v for k, v in answer.timings.items() if k not in ("generate", "execute")) * 1000)
    print(f"questions: {len(qa)}  failures: {failures}")
    print(f"{'stage':<14}{'p50 ms':>10}{'p95 ms':>10}")
    for stage in ("load_schema", "build_prompt", "generate", "guard", "validate", "execute"):
        vals = per_stage.get(stage, [0.0])
        print(f"{stage:<14}{statistics.median(vals):>10.2f}{pct(vals, 0.95):>10.2f}")
    print(f"{'all but LLM and DB':<20}{statistics.median(overhead):>4.2f} ms p50, {pct(overhead, 0.95):.2f} ms p95")
    print(f"introspection, sample database: {sample_introspect * 1000:.1f} ms")

    try:
        from tests.defog_loader import load_defog
        from tests.wide_schema import wide_schema

        atis_uri = load_defog(server, "atis")
        atis = open_database(atis_uri)
        t = time.perf_counter()
        atis_schema = atis.schema(refresh=True)
        print(f"introspection, defog atis ({len(atis_schema.tables)} tables): {(time.perf_counter() - t) * 1000:.1f} ms")
        print(f"prompt tokens, atis full block: {estimate_tokens(render_schema_block(atis_schema))}")
        p = build_sql_prompt("Which flights leave Boston for Denver on Monday?", atis_schema, today=dt.date.today())
        print(f"prompt tokens, atis prompt: {p.tokens} ({len(p.schema.tables)} tables shown)")
        wide = wide_schema()
        print(f"prompt tokens, 200-table full block: {estimate_tokens(render_schema_block(wide))}")
        t = time.perf_counter()
        p = build_sql_prompt("Total invoice amount per supplier last quarter", wide, today=dt.date.today())
        print(
            f"prompt tokens, 200-table prompt: {p.tokens} ({len(p.schema.tables)} tables shown, "
            f"built in {(time.perf_counter() - t) * 1000:.1f} ms)"
        )
        atis.close()
    except FileNotFoundError as exc:
        print(f"defog data not found ({exc}); skipped large-schema figures")
    db.close()
    server.stop()


if __name__ == "__main__":
    main()
