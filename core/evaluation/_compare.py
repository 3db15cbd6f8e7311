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

__all__ = ["ABS_TOL", "REL_TOL", "Comparison", "compare_results", "gold_orders", "normalize", "order_keys",
           "same_cell"]

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
    """Two normalized cells are equal: whole numbers exactly (a count, an id, a sum of whole amounts), other numbers
    within the tolerance, anything else as it is."""
    numeric_a, numeric_b = isinstance(a, (int, float)), isinstance(b, (int, float))
    if numeric_a and numeric_b:
        if float(a).is_integer() and float(b).is_integer():  # type: ignore[arg-type]
            return a == b
        return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL)  # type: ignore[arg-type]
    return a == b


def _rank(cell: Cell) -> tuple[int, Any]:
    if cell is None:
        return (0, 0)
    if isinstance(cell, (int, float)):
        return (1, cell)
    return (2, cell)


def _text_part(row: Sequence[Cell]) -> tuple[Any, ...]:
    """What must match exactly: everything but the numbers (which match within the tolerance)."""
    return tuple(None if isinstance(c, (int, float)) else ("t", c) if c is not None else ("n",) for c in row)


def _same_sequence(a: Sequence[Cell], b: Sequence[Cell]) -> bool:
    return len(a) == len(b) and all(same_cell(x, y) for x, y in zip(a, b))


def _same_column(gold: Column, got: Column, ordered: bool) -> bool:
    if gold == got:
        return True
    if ordered:
        return _same_sequence(gold, got)
    return Counter(gold) == Counter(got) or _same_sequence(sorted(gold, key=_rank), sorted(got, key=_rank))


def _same_bag(gold: Sequence[tuple[Cell, ...]], got: Sequence[tuple[Cell, ...]]) -> bool:
    """The same rows, duplicates counted, in any order: rows are grouped by their text and NULLs, and within a
    group the numbers are paired after sorting, so a value off by float noise still finds its row."""
    if len(gold) != len(got):
        return False
    if Counter(gold) == Counter(got):
        return True
    groups: dict[tuple[Any, ...], list[list[tuple[Cell, ...]]]] = {}
    for side, rows in enumerate((gold, got)):
        for row in rows:
            groups.setdefault(_text_part(row), [[], []])[side].append(row)
    for mine, theirs in groups.values():
        if len(mine) != len(theirs):
            return False
        key = lambda row: tuple(_rank(c) for c in row)  # noqa: E731
        if not all(_same_sequence(a, b) for a, b in zip(sorted(mine, key=key), sorted(theirs, key=key))):
            return False
    return True


def _same_rows(gold: list[tuple[Cell, ...]], got: list[tuple[Cell, ...]], ordered: bool,
               keys: Sequence[int] | None) -> bool:
    if not ordered:
        return _same_bag(gold, got)
    if not keys:
        return all(_same_sequence(g, r) for g, r in zip(gold, got))
    # Ordered by known key columns: the rows must follow the gold's key order; rows tied on every key may come
    # in any order among themselves (the database is free to break ties either way).
    start = 0
    for end in range(1, len(gold) + 1):
        if end == len(gold) or not all(same_cell(gold[end][k], gold[start][k]) for k in keys):
            if not _same_bag(gold[start:end], got[start:end]):
                return False
            start = end
    return True


def order_keys(tree: exp.Expression | None) -> tuple[int, ...] | None:
    """The positions, in the gold's output, of the columns its outermost ORDER BY sorts by; None when a sort key
    is not an output column (then the whole order must match)."""
    while isinstance(tree, (exp.Subquery, exp.Paren)) and tree.args.get("order") is None:
        tree = tree.this
    order = tree.args.get("order") if tree is not None else None
    if order is None or not isinstance(tree, exp.Select):
        return None
    projections = tree.expressions
    names = [p.alias_or_name.lower() for p in projections]
    keys = []
    for ordered in order.expressions:
        key = ordered.this
        if isinstance(key, exp.Literal) and key.is_int and 0 < int(key.this) <= len(projections):
            keys.append(int(key.this) - 1)
            continue
        found = next((i for i, p in enumerate(projections) if p.unalias() == key), None)
        if found is None and isinstance(key, exp.Column) and names.count(key.name.lower()) == 1:
            found = names.index(key.name.lower())
        if found is None:
            return None
        keys.append(found)
    return tuple(keys)


def gold_orders(tree: exp.Expression | None) -> bool:
    """Does the gold query order its outermost result? (A query in parentheses is looked into.)"""
    while isinstance(tree, (exp.Subquery, exp.Paren)) and tree.args.get("order") is None:
        tree = tree.this
    return tree is not None and tree.args.get("order") is not None


def _columns(rows: Sequence[Sequence[Any]], width: int) -> list[Column]:
    return [tuple(normalize(r[i]) for r in rows) for i in range(width)]


def compare_results(gold_rows: Sequence[Sequence[Any]], got_rows: Sequence[Sequence[Any]], *,
                    ordered: bool, keys: Sequence[int] | None = None) -> Comparison:
    """Compare an answer's rows with the gold rows under the rules above. ``keys``: positions of the gold's sort
    columns (:func:`order_keys`), so rows tied on them may come in any order."""
    if len(gold_rows) != len(got_rows):
        return Comparison(False, f"{len(got_rows)} rows, gold has {len(gold_rows)}")
    if not gold_rows:
        return Comparison(True)
    gold_width, got_width = len(gold_rows[0]), len(got_rows[0])
    if got_width < gold_width:
        return Comparison(False, f"{got_width} columns, gold has {gold_width}")
    gold_cols, got_cols = _columns(gold_rows, gold_width), _columns(got_rows, got_width)
    strict = ordered and not keys
    options = []
    for i, g in enumerate(gold_cols):
        mine = [j for j in range(got_width) if _same_column(g, got_cols[j], strict)]
        if not mine:
            return Comparison(False, f"no column holds the gold's column {i + 1}")
        options.append(mine)
    width = range(len(gold_rows))
    steps = 0

    def partial_ok(chosen: list[int]) -> bool:
        gold_part = [tuple(gold_cols[i][r] for i in range(len(chosen))) for r in width]
        got_part = [tuple(got_cols[j][r] for j in chosen) for r in width]
        if len(chosen) < len(options):
            return _same_bag(gold_part, got_part) if not strict else _same_rows(gold_part, got_part, True, None)
        part_keys = [k for k in keys or () if k < len(chosen)]
        return _same_rows(gold_part, got_part, ordered, part_keys if keys else None)

    def search(i: int, chosen: list[int]) -> bool:
        nonlocal steps
        steps += 1
        if steps > _MAX_STEPS:
            return False
        if i == len(options):
            return True
        tried: set[Column] = set()
        for j in options[i]:
            if j in chosen or got_cols[j] in tried:
                continue  # a column identical to one tried here would fare the same
            tried.add(got_cols[j])
            if partial_ok(chosen + [j]) and search(i + 1, chosen + [j]):
                return True
        return False

    if search(0, []):
        return Comparison(True)
    return Comparison(False, "rows differ" + (" (or their order)" if ordered else ""))
