"""Bench: how many defog questions does the rule-based fallback answer, and are its answers right?

Run from the repository root: ``.venv/bin/python -m bench.fallback_coverage [--dbs restaurants yelp] [--gold]``.

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
import sys
import tempfile
from collections import Counter
from datetime import date
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--dbs", nargs="*", default=list(DEFOG_DATABASES))
    parser.add_argument("--gold", action="store_true", help="load dumps and compare answers with gold results")
    parser.add_argument("--show", action="store_true", help="print each answered question and its SQL")
    args = parser.parse_args(argv)
    today = date.today()

    server = None
    if args.gold:
        from core.embedded_postgres import EmbeddedPostgres

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
                        reasons[result.split("'")[0].strip()] += kind == "dump"
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
