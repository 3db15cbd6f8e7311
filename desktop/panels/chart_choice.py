"""What a chart of a result should show, decided from the values alone (no Qt objects): which column labels
the x axis, which measures share one y axis, when a list of detail rows gets no chart, which bars are kept,
and how the y axis is scaled and labelled.

:mod:`desktop.panels.chart_view` only draws what these functions decide, so every rule here is testable headless.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from core.number_format import NumberFormat
from desktop.panels.result_model import (
    column_kind,
    display_text,
    is_identifier_column,
    is_numeric_kind,
)

__all__ = [
    "MAX_BARS",
    "MAX_SERIES",
    "ChartPlan",
    "bar_rows",
    "format_tick",
    "iso_date",
    "msecs",
    "nice_scale",
    "number",
    "plan_chart",
    "unique_labels",
    "unit_of",
]

ChartKind = Literal["line", "bar", "none"]
XKind = Literal["time", "value", "category", "ordered_category"]

MAX_SERIES = 3
MAX_BARS = 20
MAX_MEASURES = 12
MAX_SCALE_RATIO = 50.0  # measures further apart than this in size do not share an axis
_CATEGORICAL_KINDS = frozenset({"text", "boolean", "uuid", "mixed"})
_TEMPORAL_KINDS = frozenset({"date", "timestamp", "time"})
_PERCENT = re.compile(r"(?:^|[^a-z])(?:pct|percent|percentage|rate|ratio|share|fraction)(?:[^a-z]|$)", re.IGNORECASE)
_AVERAGE = re.compile(r"(?:^|[^a-z])(?:avg|average|mean|median)(?:[^a-z]|$)", re.IGNORECASE)
_SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "INR": "₹", "JPY": "¥"}


@dataclass(frozen=True)
class ChartPlan:
    """What to draw: the chart kind, the x column and its axis kind, the measures shown on one axis
    (``series``) and every group of measures that could be shown instead (``groups``)."""

    kind: ChartKind
    x: int = -1
    x_kind: XKind = "category"
    series: tuple[int, ...] = ()
    reason: str = ""
    groups: tuple[tuple[int, ...], ...] = ()

    @property
    def drawable(self) -> bool:
        return self.x >= 0 and bool(self.series)


def plan_chart(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> ChartPlan:
    """Line for a date/time or ordered first column, bars for a category column, else no chart.

    Measures of different units or sizes (a count and an amount) go in separate groups: the first is
    shown, the others can be chosen. Many detail rows whose labels repeat get no chart, with the reason."""
    if not rows or not columns:
        return ChartPlan("none", reason="The result has no rows.")
    kinds = [column_kind(rows, c) for c in range(len(columns))]
    numeric = [c for c, k in enumerate(kinds) if is_numeric_kind(k)]
    if not numeric:
        return ChartPlan("none", reason="The result has no numeric column to plot.")
    x = 0
    if is_numeric_kind(kinds[0]):
        labels = [c for c, k in enumerate(kinds) if k in _CATEGORICAL_KINDS or k in _TEMPORAL_KINDS]
        if labels:
            x = labels[0]
    groups = _measure_groups(columns, rows, _measure_columns(columns, numeric, x))
    if not groups:
        return ChartPlan("none", reason="A chart needs a label or date column and a numeric column.")
    series = groups[0]
    kind = kinds[x]
    if kind in _TEMPORAL_KINDS:
        return ChartPlan("line", x, "time", series, groups=groups)
    if is_numeric_kind(kind):
        if _is_monotonic([row[x] for row in rows]):
            return ChartPlan("line", x, "value", series, groups=groups)
        return _bars_or_detail(columns, rows, x, series, groups)
    if kind == "text" and _all_iso_dates([row[x] for row in rows]):
        return ChartPlan("line", x, "ordered_category", series, groups=groups)
    if kind in _CATEGORICAL_KINDS:
        return _bars_or_detail(columns, rows, x, series, groups)
    return ChartPlan("none", reason=f"The first column ({kind}) cannot label a chart.")


def _bars_or_detail(columns: Sequence[str], rows: Sequence[Sequence[Any]], x: int, series: tuple[int, ...],
                    groups: tuple[tuple[int, ...], ...]) -> ChartPlan:
    """Bars, unless there are more rows than bars and their labels repeat: a list of detail rows
    (orders with their customer), which bars per row would only blur."""
    if len(rows) > MAX_BARS and len({row[x] for row in rows}) < len(rows):
        measure = columns[series[0]]
        return ChartPlan(
            "none",
            reason=(f"{len(rows):,} detail rows: a chart needs a grouped answer. "
                    f"Ask for example \"{measure} by {columns[x]}\" or \"{measure} by month\"."),
        )
    return ChartPlan("bar", x, "category", series, groups=groups)


def _measure_columns(columns: Sequence[str], numeric: list[int], x: int) -> list[int]:
    candidates = [c for c in numeric if c != x]
    measures = [c for c in candidates if not is_identifier_column(columns[c])]
    return (measures or candidates)[:MAX_MEASURES]


def unit_of(column: str) -> str:
    """What a measure counts, by its name: "money", "percent", "average" or "other" (counts, quantities)."""
    if NumberFormat().is_money(column):
        return "money"
    words = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", column).replace("_", " ")
    if _PERCENT.search(words):
        return "percent"
    if _AVERAGE.search(words):
        return "average"
    return "other"


def _measure_groups(columns: Sequence[str], rows: Sequence[Sequence[Any]],
                    measures: list[int]) -> tuple[tuple[int, ...], ...]:
    """Measures that can share one y axis, in column order: the same unit and sizes within
    ``MAX_SCALE_RATIO`` of the group's first measure, at most ``MAX_SERIES`` a group."""
    size = {c: max((abs(v) for v in (number(row[c]) for row in rows[:2000]) if v is not None), default=0.0)
            for c in measures}
    groups: list[list[int]] = []
    for column in measures:
        for group in groups:
            lead = group[0]
            if len(group) < MAX_SERIES and unit_of(columns[lead]) == unit_of(columns[column]) and _close(
                size[lead], size[column]
            ):
                group.append(column)
                break
        else:
            groups.append([column])
    return tuple(tuple(group) for group in groups)


def _close(a: float, b: float) -> bool:
    if a == 0.0 or b == 0.0:
        return True
    return max(a, b) / min(a, b) <= MAX_SCALE_RATIO


def bar_rows(columns: Sequence[str], rows: Sequence[Sequence[Any]], plan: ChartPlan, series: tuple[int, ...],
             limit: int = MAX_BARS) -> tuple[list[Sequence[Any]], str]:
    """The rows drawn as bars (at most ``limit``) and a note on what was left out: the largest by the first
    measure for categories, the first ones for an ordered x (dates shown as bars)."""
    kept = list(rows)
    if len(kept) <= limit:
        return kept, ""
    rest = len(kept) - limit
    if plan.x_kind == "category":
        first = series[0]
        kept.sort(key=lambda row: -(number(row[first]) or 0.0))
        note = (f"Top {limit} of {len(rows):,} rows by {columns[first]}, largest first; "
                f"the other {rest:,} are in the table")
    else:
        note = f"First {limit} of {len(rows):,} rows; the other {rest:,} are in the table"
    return kept[:limit], note


def nice_scale(low: float, high: float, *, zero: bool, whole: bool = False,
               ticks: int = 5) -> tuple[float, float, float]:
    """An axis range and step on round numbers (1, 2, 2.5 or 5 times a power of ten) covering
    ``low``..``high``; with ``zero`` the range includes 0 (bars are measured from it); with ``whole``
    (counts) the step is a whole number."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return 0.0, 1.0, 0.2
    if zero:
        low, high = min(low, 0.0), max(high, 0.0)
    if low == high:
        low, high = ((0.0 if zero else -1.0), 1.0) if low == 0 else (low - abs(low) * 0.1, high + abs(high) * 0.1)
    raw = (high - low) / max(1, ticks)
    power = 10.0 ** math.floor(math.log10(raw))
    steps = [m * power for m in (1.0, 2.0, 2.5, 5.0, 10.0)]
    if whole:
        steps = [s for s in steps if s >= 1 and float(s).is_integer()] or [1.0]
    step = next((s for s in steps if s >= raw * (1 - 1e-9)), steps[-1])
    start = math.floor(low / step + 1e-9) * step
    end = math.ceil(high / step - 1e-9) * step
    return start, end, step


def format_tick(value: float, step: float, *, currency: str | None = None) -> str:
    """A y-axis label: thousands separators, as many decimals as the step needs, never 1e+06;
    with a currency, its symbol (or code) in front."""
    decimals = min(10, max(0, -math.floor(math.log10(step) + 1e-9) + (1 if _half(step) else 0)))
    if abs(value) < step / 1e6:
        value = 0.0
    text = f"{abs(value):,.{decimals}f}"
    if currency:
        symbol = _SYMBOLS.get(currency)
        text = f"{symbol}{text}" if symbol else f"{currency} {text}"
    return f"-{text}" if value < 0 else text


def _half(step: float) -> bool:
    """A step like 0.25 or 0.025 needs one decimal more than its power of ten."""
    scaled = step / 10.0 ** math.floor(math.log10(step))
    return abs(scaled - round(scaled)) > 1e-6


def number(value: Any) -> float | None:
    """A finite float for a numeric cell, else None (text, NULL, NaN)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float, decimal.Decimal)):
        result = float(value)
        return result if math.isfinite(result) else None
    return None


def iso_date(text: Any) -> _dt.date | None:
    """``2024-03`` or ``2024-03-01`` (a to_char month or day) as a date, else None."""
    if not isinstance(text, str):
        return None
    candidate = text.strip()
    if len(candidate) == 7:
        candidate += "-01"
    try:
        return _dt.date.fromisoformat(candidate[:10])
    except ValueError:
        return None


def _is_monotonic(values: list[Any]) -> bool:
    present = [v for v in values if v is not None]
    if len(present) < 2:
        return False
    try:
        return all(a <= b for a, b in itertools.pairwise(present)) or all(
            a >= b for a, b in itertools.pairwise(present)
        )
    except TypeError:
        return False


def _all_iso_dates(values: list[Any]) -> bool:
    """Text like ``2024-03`` or ``2024-03-01`` (a to_char month): ordered, so a line fits."""
    present = [v for v in values if v is not None][:200]
    return bool(present) and all(iso_date(text) is not None for text in present)


def msecs(value: Any) -> float | None:
    """Milliseconds since the epoch, naive values read as local time (as QDateTimeAxis shows them)."""
    if isinstance(value, _dt.datetime):
        return value.timestamp() * 1000.0
    if isinstance(value, _dt.date):
        return _dt.datetime.combine(value, _dt.time.min).timestamp() * 1000.0
    if isinstance(value, _dt.time):
        return _dt.datetime.combine(_dt.date(1970, 1, 2), value).timestamp() * 1000.0
    return None


def unique_labels(values: Sequence[Any]) -> list[str]:
    """Category labels in full, unique (the axis drops repeats), NULL and empty shown as words."""
    seen: dict[str, int] = {}
    labels = []
    for value in values:
        label = "(empty)" if value == "" else display_text(value)
        count = seen.get(label, 0) + 1
        seen[label] = count
        labels.append(label if count == 1 else f"{label} ({count})")
    return labels
