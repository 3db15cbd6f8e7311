"""How faithfully remembered statements become typed forms, scored on the data (not on the SQL's spelling).

    .venv/bin/python -m bench.forms [--set dev|heldout|all] [--errors]

Rows come from tests/data/forms_dev.json ("dev") and tests/heldout/forms.json ("heldout", when present), each
{database: shop|chinook, category, content, expect}. The shop database is built in memory from the sample
generator; Chinook is opened read-only. The schema is read by Cairn's own SQLite introspection and values are
looked up in the data (``ValueLookup``). A filter or term is right when it selects the same rows of the gold
table as the gold condition; a metric when it computes the same value; presentation forms when their fields
match; a "context" row when no form (or only an entity) comes back. ``--errors`` prints the dev rows that
failed; it never prints held-out rows.
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import sys
import tempfile
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.databases import SqliteDatabase  # noqa: E402
from core.databases.embedded._sample import _DDL, generate_rows  # noqa: E402
from core.memory import Fact  # noqa: E402
from core.memory.forms._structured import structure  # noqa: E402
from core.schema import Schema  # noqa: E402

DEV = ROOT / "tests" / "data" / "forms_dev.json"
HELDOUT = ROOT / "tests" / "heldout" / "forms.json"
CHINOOK = ROOT.parent / "shared" / "data" / "chinook" / "Chinook_Sqlite.sqlite"
SHOP_CREATED = date(2025, 6, 1)
_DAYS = {"day": 1, "week": 7, "month": 30, "quarter": 91, "year": 365}


# --- databases -----------------------------------------------------------------------------------------------


def shop_connection() -> sqlite3.Connection:
    """The sample shop as an in-memory SQLite database (the PostgreSQL DDL without comments)."""
    conn = sqlite3.connect(":memory:")
    ddl = "\n".join(line for line in _DDL.splitlines() if not line.startswith("COMMENT ON"))
    conn.executescript(ddl)
    customers, orders = generate_rows(SHOP_CREATED)
    conn.executemany("INSERT INTO customers VALUES (?, ?, ?, ?, ?, ?)", customers)
    conn.executemany("INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?)",
                     [(o[0], o[1], o[2], o[3].isoformat(), o[4], o[5]) for o in orders])  # type: ignore[union-attr]
    conn.commit()
    return conn


def introspect(conn: sqlite3.Connection) -> Schema:
    """Cairn's own SQLite introspection, run on a copy of ``conn`` in a temporary file."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "db.sqlite"
        out = sqlite3.connect(path)
        conn.backup(out)
        out.close()
        db = SqliteDatabase(path)
        try:
            return db.schema(refresh=True)
        finally:
            db.close()


def make_lookup(conn: sqlite3.Connection):  # noqa: ANN201 - a ValueLookup
    def lookup(table: str, column: str, values: Sequence[str]) -> Mapping[str, str | None]:
        q = f'SELECT DISTINCT "{column}" FROM "{table}" WHERE lower("{column}") IN ({",".join("?" * len(values))})'
        rows = conn.execute(q, [v.lower() for v in values]).fetchall()
        by_lower = {str(r[0]).lower(): str(r[0]) for r in rows}
        return {v: by_lower.get(v.lower()) for v in values}

    return lookup


# --- scoring -------------------------------------------------------------------------------------------------


def _rows(conn: sqlite3.Connection, table: str, where: str) -> set[int]:
    return {r[0] for r in conn.execute(f'SELECT rowid FROM "{table}" WHERE {where}')}


def _same(a: Any, b: Any) -> bool:
    return str(a).strip().lower() == str(b).strip().lower()


def _value(conn: sqlite3.Connection, sql: str) -> float | None:
    row = conn.execute(sql).fetchone()
    return None if row is None or row[0] is None else float(row[0])


def score(conn: sqlite3.Connection, expect: Mapping[str, Any], ours: Mapping[str, Any] | None) -> tuple[bool, str]:
    kind = expect["kind"]
    if kind == "context":
        # No form, an entity, or a term/metric kept as its words only (no SQL reaches a query).
        free = ours is None or ours.get("kind") == "entity" or (ours.get("kind") in ("term", "metric")
                                                                 and not ours.get("sql"))  # fmt: skip
        return free, "expected no form"
    if ours is None:
        return False, "no form"
    if ours.get("kind") != kind:
        return False, f"kind {ours.get('kind')}"
    try:
        if kind in ("filter", "term"):
            if not ours.get("sql"):
                return False, "no sql"
            table = expect["table"]
            if kind == "filter" and not _same(ours.get("table"), table):
                return False, f"table {ours.get('table')}"
            gold, mine = _rows(conn, table, expect["where"]), _rows(conn, table, ours["sql"])
            return gold == mine, f"{len(mine)} rows, gold {len(gold)}"
        if kind == "metric":
            if not ours.get("sql"):
                return False, "no sql"
            gold = _value(conn, expect["value_sql"])
            mine = _value(conn, f'SELECT {ours["sql"]} FROM "{expect["table"]}"')
            ok = gold is not None and mine is not None and abs(gold - mine) <= 1e-6 * max(1.0, abs(gold))
            return ok, f"value {mine}, gold {gold}"
        if kind == "window":
            days = int(ours.get("amount", 0)) * _DAYS.get(str(ours.get("unit")), 0)
            ok = _same(ours.get("table"), expect["table"]) and _same(ours.get("column"), expect["column"])
            return ok and days == int(expect["days"]), f"{ours.get('column')} {days} days"
        if kind == "sort":
            fields = ("table", "column", "direction")
        elif kind == "limit":
            fields = ("value",)
        elif kind == "display":
            fields = ("setting", "value")
        elif kind == "include":
            fields = ("table", "column", "value")
        elif kind == "columns":
            ok = _same(ours.get("table"), expect["table"]) and _same(ours.get("when"), expect["when"])
            return ok and {str(c).lower() for c in ours.get("add", [])} == {c.lower() for c in expect["add"]}, ""
        else:
            return False, f"unknown kind {kind}"
        return all(_same(ours.get(f), expect.get(f)) for f in fields), ""
    except (sqlite3.Error, KeyError, TypeError, ValueError) as exc:
        return False, f"error {exc}"


def run(rows: list[dict[str, Any]], dbs: dict[str, tuple[sqlite3.Connection, Schema]]):  # noqa: ANN201
    results = []
    for row in rows:
        conn, schema = dbs[row["database"]]
        ours = structure(Fact(row["category"], row["content"]), schema, lookup=make_lookup(conn))
        ok, why = score(conn, row["expect"], ours)
        results.append((row, ours, ok, why))
    return results


def report(name: str, results: list[Any]) -> None:
    total, right = Counter(), Counter()
    for row, _ours, ok, _why in results:
        total[row["expect"]["kind"]] += 1
        right[row["expect"]["kind"]] += ok
    n, k = sum(total.values()), sum(right.values())
    print(f"{name}: {k}/{n} = {k / max(1, n):.1%}")
    for kind in sorted(total):
        print(f"  {kind:<8} {right[kind]:>3}/{total[kind]:<3} {right[kind] / total[kind]:.0%}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", choices=("dev", "heldout", "all"), default="dev")
    ap.add_argument("--errors", action="store_true", help="print the dev rows that failed (never held-out rows)")
    args = ap.parse_args(argv)
    shop = shop_connection()
    chinook = sqlite3.connect(CHINOOK.as_uri() + "?mode=ro", uri=True)
    dbs = {"shop": (shop, introspect(shop)), "chinook": (chinook, introspect(chinook))}
    sets = {"dev": [DEV], "heldout": [HELDOUT], "all": [DEV, HELDOUT]}[args.set]
    for path in sets:
        label = "heldout" if path == HELDOUT else "dev"
        if not path.exists():
            print(f"{label}: {path.relative_to(ROOT)} not found")
            continue
        results = run(json.loads(path.read_text(encoding="utf-8")), dbs)
        report(label, results)
        if args.errors and label == "heldout":
            print("heldout: errors are not printed (the held-out set stays unseen)")
        elif args.errors:
            for row, ours, ok, why in results:
                if not ok:
                    exp_text = re.sub(r"\s+", " ", json.dumps(row["expect"]))
                    print(f"- [{row['database']}/{row['category']}] {row['content']!r}\n    gold {exp_text}\n"
                          f"    ours {json.dumps(ours)}  ({why})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
