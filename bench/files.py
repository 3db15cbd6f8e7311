"""Bench: opening and asking data files through DuckDB — a large CSV queried in place, a 100k-row Excel workbook.

Run from the repository root: ``.venv/bin/python -m bench.files [--csv-mb 1024] [--xlsx-rows 100000]``.

A CSV of about ``--csv-mb`` MB (sales: id, region, customer, amount with a thousands separator, day) and an Excel
workbook of ``--xlsx-rows`` rows are generated in a temporary folder (DuckDB's COPY and openpyxl; not timed). Each
is then opened in a fresh process, as ``cairn ask --db FILE`` would: ``FilesDatabase`` + ``schema()`` (types,
number formats, value hints, key proof) is "open", then one aggregate question's SQL through the read-only executor
is "first answer"; the child reports its own peak RSS (``getrusage``). Goals (issue 28): open under 2 s and RSS under
500 MB for the CSV. Figures are printed, not judged; the Excel open includes its one-time conversion to a cached CSV.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

QUERY = "SELECT region, COUNT(*) AS n, SUM(amount) AS total FROM {table} GROUP BY region ORDER BY total DESC"


def make_csv(path: Path, megabytes: int) -> None:
    import duckdb

    rows = max(1000, megabytes * 1024 * 1024 // 52)  # about 52 bytes a row
    conn = duckdb.connect()
    conn.execute(f"""
        COPY (SELECT range AS id,
                     ['North', 'South', 'East', 'West', 'Central'][1 + range % 5] AS region,
                     'customer ' || (range % 50000) AS customer,
                     format('{{:,.2f}}', (range % 100000) * 1.37) AS amount,
                     DATE '2024-01-01' + CAST(range % 365 AS INTEGER) AS day
              FROM range({rows}))
        TO '{path}' (HEADER, DELIMITER ',')""")
    conn.close()


def make_xlsx(path: Path, rows: int) -> None:
    from openpyxl import Workbook

    book = Workbook(write_only=True)
    sheet = book.create_sheet("sales")
    sheet.append(["id", "region", "customer", "amount", "day"])
    regions = ("North", "South", "East", "West", "Central")
    for i in range(rows):
        sheet.append([i, regions[i % 5], f"customer {i % 5000}", round((i % 100000) * 1.37, 2), f"2024-01-{1 + i % 28:02d}"])
    book.save(path)


def child(path: str, cache: str) -> None:
    """In a fresh process: open, then answer; prints one JSON line."""
    from core.databases import FilesDatabase

    started = time.perf_counter()
    db = FilesDatabase([Path(path)], cache_dir=Path(cache))
    schema = db.schema()
    opened = time.perf_counter() - started
    table = schema.tables[0]
    result = db.execute(QUERY.format(table=table.name))
    answered = time.perf_counter() - started
    db.close()
    import resource

    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"open_s": opened, "first_answer_s": answered, "rows": len(result.rows), "peak_rss_mb": peak_mb,
                      "types": {c.name: c.type for c in table.columns}, "comment": table.comment}))


def measure(path: Path, cache: Path) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-m", "bench.files", "--child", str(path), str(cache)], cwd=ROOT,
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"the child failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--csv-mb", type=int, default=1024)
    parser.add_argument("--xlsx-rows", type=int, default=100_000)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(*args.child)
        return
    folder = Path(tempfile.mkdtemp(prefix="cairn-files-"))
    try:
        csv_path, xlsx_path = folder / "sales.csv", folder / "sales.xlsx"
        started = time.perf_counter()
        make_csv(csv_path, args.csv_mb)
        print(f"CSV: {csv_path.stat().st_size / 2**20:,.0f} MB written in {time.perf_counter() - started:.0f} s")
        started = time.perf_counter()
        make_xlsx(xlsx_path, args.xlsx_rows)
        print(f"Excel: {args.xlsx_rows:,} rows, {xlsx_path.stat().st_size / 2**20:,.1f} MB written in "
              f"{time.perf_counter() - started:.0f} s")
        for label, path in (("CSV", csv_path), ("Excel", xlsx_path), ("Excel, converted before", xlsx_path)):
            got = measure(path, folder / "cache")
            print(f"{label:24} open {got['open_s']:6.2f} s   first answer {got['first_answer_s']:6.2f} s   "
                  f"peak RSS {got['peak_rss_mb']:6.0f} MB   types {got['types']}   ({got['comment']})")
    finally:
        for path in sorted(folder.rglob("*"), reverse=True):
            path.unlink() if path.is_file() else path.rmdir()
        folder.rmdir()


if __name__ == "__main__":
    main()
