"""How smooth the result grid is with 100,000 rows x 8 columns, offscreen.

    QT_QPA_PLATFORM=offscreen .venv/bin/python -m bench.grid_100k

Prints: time to load the rows into the model and the view, to sort by a numeric and a text column,
to render after scrolling to 10 positions, the slowest single data() call path, and memory (the
Python allocations the grid adds on top of the rows, via tracemalloc, and the process RSS delta).
"""

from __future__ import annotations

import datetime as dt
import decimal
import os
import random
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from desktop.panels.result_view import ResultView  # noqa: E402

ROWS = 100_000
COLUMNS = ("order_id", "customer", "city", "status", "order_date", "ordered_at", "total_amount", "discount")


def _rss_mib() -> float:
    with open("/proc/self/statm") as handle:
        pages = int(handle.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def make_rows(n: int = ROWS) -> tuple[tuple[object, ...], ...]:
    rng = random.Random(7)
    cities = [f"City {i}" for i in range(300)] + ["Zürich", "São Paulo", "東京"]
    statuses = ("paid", "shipped", "cancelled", "refunded", None)
    start = dt.datetime(2021, 1, 1)
    return tuple(
        (
            i + 1,
            f"Customer {rng.randrange(20_000):05d}",
            rng.choice(cities),
            rng.choice(statuses),
            (start + dt.timedelta(days=rng.randrange(1200))).date(),
            start + dt.timedelta(seconds=rng.randrange(100_000_000)),
            decimal.Decimal(rng.randrange(100, 1_000_000)) / 100,
            None if rng.random() < 0.3 else round(rng.random() / 4, 3),
        )
        for i in range(n)
    )


def _timed(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def main() -> None:
    app = QApplication.instance() or QApplication(sys.argv)
    rows = make_rows()
    view = ResultView()
    view.resize(1280, 800)
    view.show()
    app.processEvents()

    rss_before = _rss_mib()
    load_ms = _timed(lambda: (view.show_rows(COLUMNS, rows), app.processEvents()))
    model = view.model
    sort_num = [_timed(lambda: model.sort(6, Qt.SortOrder.DescendingOrder)) for _ in range(3)]
    sort_text = [_timed(lambda: model.sort(1, Qt.SortOrder.AscendingOrder)) for _ in range(3)]
    sort_dec_nulls = [_timed(lambda: model.sort(7, Qt.SortOrder.AscendingOrder)) for _ in range(3)]
    header_click = _timed(lambda: (view.table.sortByColumn(4, Qt.SortOrder.AscendingOrder), app.processEvents()))

    # memory in a second pass: tracemalloc slows allocation, so it stays out of the timings
    view.clear()
    tracemalloc.start()
    view.show_rows(COLUMNS, rows)
    app.processEvents()
    after_load, _ = tracemalloc.get_traced_memory()
    model.sort(6, Qt.SortOrder.DescendingOrder)
    model.sort(1, Qt.SortOrder.AscendingOrder)
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    positions = [0, 99_999, 50_000, 12_345, 87_654, 1, 66_666, 33_333, 99_000, 500]
    scroll = []
    for row in positions:
        def go(row: int = row) -> None:
            view.table.scrollTo(model.index(row, 3))
            view.table.viewport().repaint()  # a synchronous paint of the visible cells
            app.processEvents()

        scroll.append(_timed(go))
    grab_ms = _timed(lambda: view.table.grab())
    visible = view.table.rowAt(view.table.viewport().height() - 1) - view.table.rowAt(0) + 1
    rss_after = _rss_mib()

    print(f"grid bench: {ROWS:,} rows x {len(COLUMNS)} columns, offscreen, Python {sys.version.split()[0]}")
    print(f"  {'load (set_result, size, paint):':34s} {load_ms:6.1f} ms")
    for label, runs in (
        ("sort numeric (Decimal) desc", sort_num),
        ("sort text (case-insensitive)", sort_text),
        ("sort float, 30% NULL", sort_dec_nulls),
    ):
        print(f"  {label + ':':34s} first {runs[0]:6.1f} ms, median of 3 {statistics.median(runs):6.1f} ms")
    print(f"  {'sort by date via the view + paint:':34s} {header_click:6.1f} ms")
    print(f"  scrollTo + repaint ({visible} visible rows), 10 positions: "
          f"median {statistics.median(scroll):.1f} ms, max {max(scroll):.1f} ms")
    print(f"  full grab of the table: {grab_ms:.1f} ms")
    print(f"  tracemalloc: after load {after_load / 2**20:.2f} MiB, after sorts {current / 2**20:.2f} MiB, "
          f"peak {peak / 2**20:.2f} MiB (rows themselves excluded)")
    print(f"  RSS delta (load, sorts, scrolls): {rss_after - rss_before:+.1f} MiB")
    view.close()


if __name__ == "__main__":
    main()
