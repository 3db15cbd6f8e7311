"""Shared set-up of the memory benches: the two databases their data is written for, opened read-only through
Cairn's own SQLite backend, and a fresh store per case.

"shop" is the sample database (core/databases/embedded/_sample.py) rebuilt as a SQLite file from the same seeded rows;
"chinook" is ../shared/data/chinook/Chinook_Sqlite.sqlite.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
from datetime import date
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHINOOK = ROOT.parent / "shared" / "data" / "chinook" / "Chinook_Sqlite.sqlite"
HELDOUT = ROOT / "tests" / "heldout"
DEV = ROOT / "tests" / "data"

_SHOP_DDL = """
CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE,
    city TEXT NOT NULL, country TEXT NOT NULL, segment TEXT NOT NULL);
CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(customer_id),
    status TEXT NOT NULL, order_date DATE NOT NULL, total_amount NUMERIC NOT NULL, payment_method TEXT NOT NULL);
"""


@cache
def shop_path() -> Path:
    from core.databases.embedded._sample import generate_rows

    path = Path(tempfile.mkdtemp(prefix="cairn-bench-")) / "shop.sqlite"
    customers, orders = generate_rows(date(2026, 1, 1))
    with sqlite3.connect(path) as conn:
        conn.executescript(_SHOP_DDL)
        conn.executemany("INSERT INTO customers VALUES (?,?,?,?,?,?)", customers)
        conn.executemany("INSERT INTO orders VALUES (?,?,?,?,?,?)",
                         [(o[0], o[1], o[2], str(o[3]), float(o[4]), o[5]) for o in orders])  # type: ignore[arg-type]
    return path


@cache
def database(name: str) -> Any:
    from core.databases import SqliteDatabase

    return SqliteDatabase(shop_path() if name == "shop" else CHINOOK)


@cache
def pipeline(name: str) -> Any:
    from core.pipeline import AskPipeline

    return AskPipeline(database(name), None)


def grounding(name: str) -> Any:
    from core.memory import Grounding

    p = pipeline(name)
    return Grounding(schema=p.load_schema(), lookup=p.lookup_values, database_id=p.database.id)


def fresh_store() -> Any:
    from core.memory import JsonMemoryStore

    return JsonMemoryStore(Path(tempfile.mkdtemp(prefix="cairn-bench-store-")))


def load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


# Held-out sets, oldest first, each written by a helper who never read the code. Only the newest is "heldout";
# the earlier ones had their aggregate figures looked at and changes followed, so they are development data now.
FRESH_SUFFIXES = ("", "_fresh", "_fresh2", "_fresh3", "_fresh4", "_fresh5", "_fresh6")


def sets(stem: str, which: str) -> list[tuple[str, Path]]:
    """[(label, path)] of the files for ``stem``: dev (tests/data/<stem>_dev.json), seen (the earlier held-out
    sets) and heldout (the newest one, measured once)."""
    out = []
    if which in ("dev", "all"):
        out.append(("dev", DEV / f"{stem}_dev.json"))
    present = [path for path in (HELDOUT / f"{stem}{suffix}.json" for suffix in FRESH_SUFFIXES) if path.exists()]
    if which in ("seen", "all"):
        out += [("seen", path) for path in present[:-1]]
    if which in ("heldout", "all") and present:
        out.append(("heldout", present[-1]))
    return out


def bench_main(stem: str, run: Callable[[Path, Any, bool], Any], doc: str | None, argv: list[str] | None) -> int:
    """The command line every memory bench shares: --set dev|seen|heldout|all, --errors (never for the held-out set)."""
    import argparse

    ap = argparse.ArgumentParser(description=doc)
    ap.add_argument("--set", choices=["dev", "seen", "heldout", "all"], default="all")
    ap.add_argument("--errors", action="store_true", help="list misses (development and seen sets; never the held-out one)")
    args = ap.parse_args(argv)
    from core.memory import MiniLMEmbedder

    embedder = MiniLMEmbedder()
    for label, path in sets(stem, args.set):
        print(f"{label}: {path.relative_to(ROOT)}")
        run(path, embedder, args.errors and label != "heldout")
    return 0
