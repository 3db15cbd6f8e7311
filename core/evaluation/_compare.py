"""Is an answer's result the gold result? The rules ``cairn eval`` and ``bench/recovery.py`` score by, the way
execution accuracy is usually measured (defog's sql-eval, Spider's test-suite accuracy):

- the rows must be the same, duplicates counted; their order matters only when the gold query orders its
  outermost result (``ORDER BY``);
- columns are matched by content, not by name or position, and the answer may show extra columns (a name beside
  an id); every gold column must be found;
- numbers compare by value: integers exactly, anything inexact (a float, a ``Decimal``) within a relative
  ``1e-6`` or absolute ``1e-9`` (``Decimal('2.50')`` = ``2.5``; PostgreSQL's ``real`` sums and SQLite's doubles
  agree); NULL equals NULL; dates and times compare as their ISO text (SQLite stores them as text).
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

__all__ = ["ABS_TOL", "REL_TOL", "Comparison", "compare_results", "gold_orders", "normalize", "same_cell"]

REL_TOL = 1e-6
ABS_TOL = 1e-9
_MAX_STEPS = 20_000  # column assignments tried before giving up (wide results with many equal columns)

Cell = None | int | float | str
Column = tuple[Cell, ...]


@dataclass(frozen=True)
class Comparison:
    same: bool
    reason: str = ""  # why not, for the report


def normalize(value: Any) -> Cell:
    """One cell as the comparison sees it: None, an int, a float (inexact numbers) or text."""
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
        return number
    if isinstance(value, _dt.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, (_dt.date, _dt.time)):
        return value.isoformat()
    if isinstance(value, _dt.timedelta):
        return value.total_seconds()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    return str(value)


def same_cell(a: Cell, b: Cell) -> bool:
    """Two normalized cells are equal: integers exactly, inexact numbers within the tolerance."""
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, (int, float)) and isinstance(b, (int, float)):
            return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL)
        return False
    return a == b


def _sort_key(cell: Cell, *, coarse: bool = False) -> tuple[int, Any]:
    if cell is None:
        return (0, 0)
    if isinstance(cell, (int, float)):
        # The coarse key puts numbers that are equal within the tolerance next to each other in both results.
        return (1, float(f"{cell:.5g}") if coarse else cell)
    return (2, cell)


def _row_key(row: Sequence[Cell]) -> tuple[tuple[int, Any], ...]:
    return tuple(_sort_key(c, coarse=True) for c in row) + tuple(_sort_key(c) for c in row)


def _same_sequence(a: Sequence[Cell], b: Sequence[Cell]) -> bool:
    return all(same_cell(x, y) for x, y in zip(a, b, strict=True))


def _same_column(gold: Column, got: Column, ordered: bool) -> bool:
    if gold == got:
        return True
    if ordered:
        return _same_sequence(gold, got)
    if Counter(gold) == Counter(got):
        return True
    return _same_sequence(sorted(gold, key=_sort_key), sorted(got, key=_sort_key))


def _same_rows(gold: list[tuple[Cell, ...]], got: list[tuple[Cell, ...]], ordered: bool) -> bool:
    if ordered:
        return all(_same_sequence(g, r) for g, r in zip(gold, got, strict=True))
    if Counter(gold) == Counter(got):
        return True
    return all(_same_sequence(g, r) for g, r in zip(sorted(gold, key=_row_key), sorted(got, key=_row_key),
                                                    strict=True))


def gold_orders(tree: exp.Expression | None) -> bool:
    """Does the gold query order its outermost result? (A query in parentheses is looked into.)"""
    while isinstance(tree, (exp.Subquery, exp.Paren)) and tree.args.get("order") is None:
        tree = tree.this
    return tree is not None and tree.args.get("order") is not None


def _columns(rows: Sequence[Sequence[Any]], width: int) -> list[Column]:
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
    options = [[j for j in range(got_width) if _same_column(g, got_cols[j], ordered)] for g in gold_cols]
    if any(not o for o in options):
        missing = next(i for i, o in enumerate(options) if not o)
        return Comparison(False, f"no column holds the gold's column {missing + 1}")
    target = [tuple(c[i] for c in gold_cols) for i in range(len(gold_rows))]
    steps = 0

    def search(i: int, chosen: list[int]) -> bool:
        nonlocal steps
        steps += 1
        if steps > _MAX_STEPS:
            return False
        if i == len(options):
            projected = [tuple(got_cols[j][r] for j in chosen) for r in range(len(got_rows))]
            return _same_rows(target, projected, ordered)
        return any(search(i + 1, chosen + [j]) for j in options[i] if j not in chosen)

    if search(0, []):
        return Comparison(True)
    return Comparison(False, "rows differ" + (" (or their order)" if ordered else ""))
