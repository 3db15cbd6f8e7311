"""Bench: where MiniLM puts pairs of analyst memories, against the seed's 0.95 / 0.70 update bands.

Run from the repository root: ``.venv/bin/python -m bench.similarity_bands [--pairs]``.

The seed decides what a new memory does to the closest old one by similarity alone: > 0.95 NOOP, 0.70-0.95 ask
the model (DELETE / UPDATE / NOOP), < 0.70 ADD. Four kinds of hand-written pairs (e-commerce schema: customers,
orders) show what the bands get wrong by themselves:
  paraphrase     same meaning             right: NOOP      bands: < 0.70 keeps a duplicate
  enhancement    the new one adds detail  right: UPDATE    bands: > 0.95 drops the detail, < 0.70 keeps both
  contradiction  same subject, new value  right: DELETE    bands: > 0.95 drops the new value, < 0.70 keeps both
  unrelated      different subjects       right: ADD       bands: >= 0.70 hands them to the model to merge
A pair in the 0.70-0.95 band is "model-dependent": right only if the LLM's one-word verdict is. The last
columns run Cairn's real update cycle (core.memory.cycle._update.apply_fact, structured forms first, no LLM) on each
pair, so the figure the bands leave open can be compared with what the structured rules settle.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.memory import MiniLMEmbedder  # noqa: E402
from core.memory import Fact  # noqa: E402
from core.memory import Category  # noqa: E402
from core.memory import JsonMemoryStore  # noqa: E402
from core.memory import SIMILARITY_ASK, SIMILARITY_NOOP, apply_fact  # noqa: E402
from core.schema import Column, Schema, Table  # noqa: E402

SCHEMA = Schema(
    "postgres",
    (
        Table("customers", (
            Column("customer_id", "integer"), Column("name", "text"), Column("email", "text"),
            Column("city", "text", value_hints=("Mumbai", "Bangalore", "Berlin", "Paris")),
            Column("country", "text", value_hints=("India", "Germany", "Nepal", "United States", "France")),
            Column("segment", "text", value_hints=("retail", "wholesale", "corporate")),
        )),
        Table("orders", (
            Column("order_id", "integer"), Column("customer_id", "integer"),
            Column("status", "text", value_hints=("delivered", "shipped", "pending", "cancelled", "returned")),
            Column("order_date", "date"), Column("total_amount", "numeric(12,2)"),
            Column("payment_method", "text", value_hints=("credit_card", "upi", "paypal", "cash_on_delivery")),
        )),
    ),
)  # fmt: skip

# (category, existing memory, new memory)
PAIRS: dict[str, list[tuple[Category, str, str]]] = {
    "paraphrase": [
        ("preference", "Only show customers from India", "Restrict results to Indian customers"),
        ("preference", "Exclude cancelled orders", "Never include orders that were cancelled"),
        ("preference", "Show amounts in Indian rupees", "Display all money values in INR"),
        ("terminology", "A high value order is an order over 10000",
         "Orders with a total amount above 10000 count as high value"),
        ("terminology", "Repeat customers are customers with more than one order",
         "A repeat customer has placed at least two orders"),
        ("metric", "Revenue is the sum of total amount over delivered orders",
         "Revenue means total_amount summed across delivered orders"),
        ("terminology", "Churned customers have not ordered in 180 days",
         "A customer counts as churned after 180 days without an order"),
        ("metric", "Average order value is total amount divided by the number of orders",
         "AOV equals the sum of order totals divided by the order count"),
        ("entity", "I regularly work with the payment_method column", "The payment method column is one I check often"),
        ("entity", "Mumbai and Bangalore are our flagship cities", "Our flagship cities are Bangalore and Mumbai"),
        ("preference", "Sort results by order date, newest first", "Show the most recent orders first"),
    ],
    "enhancement": [
        ("preference", "Only show customers from India", "Only show customers from India in the retail segment"),
        ("preference", "Exclude cancelled orders", "Exclude cancelled orders and also returned ones"),
        ("terminology", "A high value order is an order over 10000",
         "A high value order is an order over 10000, counted before tax"),
        ("metric", "Revenue is the sum of total amount", "Revenue is the sum of total amount over delivered orders only"),
        ("terminology", "Repeat customers are customers with more than one order",
         "Repeat customers are customers with more than one order in the same calendar year"),
        ("preference", "Show amounts in rupees", "Show amounts in rupees, rounded to the nearest whole rupee"),
        ("terminology", "Churned customers have not ordered in 180 days",
         "Churned customers have not ordered in 180 days but did order at least once before"),
        ("entity", "Mumbai is a flagship city", "Mumbai is a flagship city and home of our wholesale team"),
        ("entity", "I regularly check the payment_method column",
         "I regularly check the payment_method column, mostly for UPI payments"),
        ("metric", "Cancellation rate is cancelled orders divided by all orders",
         "Cancellation rate is cancelled orders divided by all orders, computed per month"),
    ],
    "contradiction": [
        ("preference", "Only show customers from India", "Only show customers from Germany"),
        ("terminology", "A high value order is an order over 10000", "A high value order is an order over 50000"),
        ("preference", "Show amounts in Indian rupees", "Show amounts in US dollars"),
        ("terminology", "Churned customers have not ordered in 180 days",
         "Churned customers have not ordered in 90 days"),
        ("preference", "Exclude cancelled orders", "Only show cancelled orders"),
        ("terminology", "Repeat customers are customers with more than one order",
         "Repeat customers are customers with more than three orders"),
        ("metric", "Revenue is the sum of total amount over delivered orders",
         "Revenue is the sum of total amount over all orders whatever their status"),
        ("preference", "Only show the retail segment", "Only show the corporate segment"),
        ("preference", "Sort results by order date, newest first", "Sort results by order date, oldest first"),
        ("entity", "Our flagship city is Mumbai", "Our flagship city is Bangalore"),
        ("preference", "Only show orders paid by credit card", "Only show orders paid with UPI"),
    ],
    "unrelated": [
        ("preference", "Only show customers from India",
         "Average order value is total amount divided by the number of orders"),
        ("preference", "Exclude cancelled orders", "Mumbai and Bangalore are our flagship cities"),
        ("preference", "Show amounts in rupees", "Repeat customers are customers with more than one order"),
        ("terminology", "A high value order is an order over 10000", "I regularly check the payment_method column"),
        ("terminology", "Churned customers have not ordered in 180 days", "Show amounts in Indian rupees"),
        ("entity", "The corporate segment is handled by my key accounts team",
         "Cancellation rate is cancelled orders divided by all orders"),
        ("metric", "Revenue is the sum of total amount over delivered orders", "Sort results by customer name"),
        ("preference", "Only show orders paid by credit card", "Churned customers have not ordered in 180 days"),
        ("terminology", "Digital wallet payments means upi or paypal", "Only show customers from Germany"),
        ("metric", "Customer lifetime value is everything a customer has spent", "Exclude returned orders"),
    ],
}
# An enhancement replaced by its fuller wording (DELETE-and-replace) ends like an UPDATE: one memory, all detail.
RIGHT = {"paraphrase": {"NOOP"}, "enhancement": {"UPDATE", "DELETE"}, "contradiction": {"DELETE", "UPDATE"}, "unrelated": {"ADD"}}


def band(sim: float) -> str:
    if sim > SIMILARITY_NOOP:
        return "NOOP"
    if sim >= SIMILARITY_ASK:
        return "ASK"
    return "ADD"


def cycle(kind_pairs: list[tuple[Category, str, str]], embedder: MiniLMEmbedder) -> list[str]:
    """Cairn's own verdict for each pair: the first memory stored, then the second applied, no LLM."""
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (category, old, new) in enumerate(kind_pairs):
            store = JsonMemoryStore(Path(tmp) / f"pair{i}")
            kw = {"user": "bench", "database_id": "shop", "store": store, "embedder": embedder, "llm": None,
                  "schema": SCHEMA, "source": "bench"}  # fmt: skip
            apply_fact(Fact(category, old), **kw)  # type: ignore[arg-type]
            out.append(apply_fact(Fact(category, new), **kw).operation)  # type: ignore[arg-type]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", action="store_true", help="print every pair with its similarity and verdicts")
    args = ap.parse_args(argv)
    embedder = MiniLMEmbedder()
    print(f"bands: > {SIMILARITY_NOOP} NOOP, {SIMILARITY_ASK}-{SIMILARITY_NOOP} ask the model, < {SIMILARITY_ASK} ADD")
    print(f"{'kind':14} {'n':>3} {'min':>5} {'median':>6} {'max':>5}   {'>0.95':>5} {'ask':>4} {'<0.70':>5}"
          f"   {'bands wrong':>11} {'model-dep.':>10}   {'Cairn right (no LLM)':>20}")  # fmt: skip
    for kind, pairs in PAIRS.items():
        vecs = embedder.embed_batch([t for _, a, b in pairs for t in (a, b)])
        sims = [float(vecs[2 * i] @ vecs[2 * i + 1]) for i in range(len(pairs))]
        bands = [band(s) for s in sims]
        wrong = sum(1 for b in bands if b != "ASK" and b not in RIGHT[kind])
        ask = bands.count("ASK")
        ops = cycle(pairs, embedder)
        right = sum(1 for op in ops if op in RIGHT[kind])
        n = len(pairs)
        print(f"{kind:14} {n:3d} {min(sims):5.2f} {statistics.median(sims):6.2f} {max(sims):5.2f}   "
              f"{bands.count('NOOP'):5d} {ask:4d} {bands.count('ADD'):5d}   "
              f"{wrong:4d} ({wrong / n:4.0%}) {ask:3d} ({ask / n:4.0%})   {right:9d}/{n} ({right / n:4.0%})")  # fmt: skip
        if args.pairs:
            for (_, a, b), s, bd, op in zip(pairs, sims, bands, ops, strict=True):
                print(f"    {s:5.2f} {bd:4} cairn={op:6} {a!r} -> {b!r}")
    print("'bands wrong': a verdict the bands make on their own (NOOP above 0.95, ADD below 0.70) that is wrong"
          " for the kind; 'model-dep.': left to the LLM's one word. Cairn right: apply_fact without an LLM"
          " (structured slots first; a 0.70-0.95 pair it cannot structure is a NOOP).")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
