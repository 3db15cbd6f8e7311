"""Is an answer's result the gold result? The rules ``cairn eval`` scores by, the way execution accuracy is
usually measured (defog's sql-eval, Spider's test-suite accuracy):

- the rows must be the same, duplicates counted; their order matters only when the gold query orders its
  outermost result (``ORDER BY``);
- columns are matched by content, not by name or position, and the answer may show extra columns (a name beside
  an id); every gold column must be found;
- numbers compare by value (``Decimal('2.50')`` = ``2.5``; ten significant digits, so PostgreSQL's and SQLite's
  float arithmetic agree), an integral float equals the integer; NULL equals NULL; dates and times compare as
  their ISO text (SQLite stores them as text).
"""

from __future__ import annotations

import datetime as _dt
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlglot import exp

__all__ = ["Comparison", "compare_results", "gold_orders", "normalize"]

_MAX_STEPS = 20_000  # column assignments tried before giving up (wide results with many equal columns)


@dataclass(frozen=True)
class Comparison:
    same: bool
    reason: str = ""  # why not, for the report


def normalize(value: Any) -> Any:
    """One cell as the comparison sees it."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, (float, Decimal)):
        number = float(value)
        if math.isnan(number):
            return "nan"
        if math.isinf(number):
            return "inf" if number > 0 else "-inf"
        if number.is_integer() and abs(number) < 2**53:
            return int(number)
        return float(f"{number:.10g}")
    if isinstance(value, _dt.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, (_dt.date, _dt.time)):
        return value.isoformat()
    if isinstance(value, _dt.timedelta):
        return value.total_seconds()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    return str(value)


def gold_orders(tree: exp.Expression | None) -> bool:
    """Does the gold query order its outermost result?"""
    return tree is not None and tree.args.get("order") is not None


def _columns(rows: Sequence[Sequence[Any]], width: int) -> list[tuple[Any, ...]]:
    return [tuple(normalize(r[i]) for r in rows) for i in range(width)]


def compare_results(gold_rows: Sequence[Sequence[Any]], got_rows: Sequence[Sequence[Any]], *,
                    ordered: bool) -> Comparison:
    """Compare an answer's rows with the gold rows under the rules above."""
    if len(gold_rows) != len(got_rows):
        return Comparison(False, f"{len(got_rows)} rows, gold has {len(gold_rows)}")
    if not gold_rows:
        return Comparison(True)
    gold_width, got_width = len(gold_rows[0]), len(got_rows[0])
    if got_width < gold_width:
        return Comparison(False, f"{got_width} columns, gold has {gold_width}")
    gold_cols, got_cols = _columns(gold_rows, gold_width), _columns(got_rows, got_width)
    key = (lambda col: col) if ordered else (lambda col: Counter(col))
    options = [[j for j in range(got_width) if key(got_cols[j]) == key(g)] for g in gold_cols]
    if any(not o for o in options):
        missing = next(i for i, o in enumerate(options) if not o)
        return Comparison(False, f"no column holds the gold's column {missing + 1}")
    gold_rows_n = [tuple(c[i] for c in gold_cols) for i in range(len(gold_rows))]
    target = gold_rows_n if ordered else Counter(gold_rows_n)
    steps = 0

    def search(i: int, chosen: list[int]) -> bool:
        nonlocal steps
        steps += 1
        if steps > _MAX_STEPS:
            return False
        if i == len(options):
            projected = [tuple(got_cols[j][r] for j in chosen) for r in range(len(got_rows))]
            return (projected if ordered else Counter(projected)) == target
        return any(search(i + 1, chosen + [j]) for j in options[i] if j not in chosen)

    if search(0, []):
        return Comparison(True)
    return Comparison(False, "rows differ" + (" (or their order)" if ordered else ""))
