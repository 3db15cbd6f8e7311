"""Type evidence for a misspelt column: what the query does with it says which kind of column it can be.

``SUM(x)``, ``x * 2`` or ``x > 100`` need a number; ``x LIKE 'A%'`` or ``x = 'paid'`` a text; ``x >= '2024-01-01'``
or ``EXTRACT(YEAR FROM x)`` a date. Candidates of a kind the use rules out are dropped before names are compared
(``SUM(total)`` with columns ``total_amount`` and ``total_label`` can only mean the number), unless that would leave
none: the evidence only ever narrows a choice, it never invents one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from sqlglot import exp

__all__ = ["COMPARISONS", "ISO_DATE", "NUMBER_TEXT", "expected_kind", "kind_of", "narrow_by_type", "narrow_by_values"]

_NUMBER_TYPES = re.compile(r"int|numeric|decimal|real|double|float|money|number|serial", re.IGNORECASE)
_DATE_TYPES = re.compile(r"date|time", re.IGNORECASE)
_TEXT_TYPES = re.compile(r"char|text|string|clob|enum|citext", re.IGNORECASE)
_DATE_TEXT = re.compile(r"\d{4}-\d{2}(-\d{2})?([ T].*)?")
NUMBER_TEXT = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")  # a number written as text
ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[ T][\d:.]+)?")  # a date (and time) as SQL writes it
_NUMERIC_AGGREGATES = (exp.Sum, exp.Avg, exp.Stddev, exp.Variance)
_ARITHMETIC = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod)
COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)
_DATE_PARTS = (exp.Extract, exp.DateTrunc, exp.TimestampTrunc, exp.Year, exp.Month, exp.Day)


def kind_of(type_: str) -> str | None:
    """"number", "date" or "text" for a column type, None when it says nothing."""
    if _DATE_TYPES.search(type_ or ""):
        return "date"
    if _NUMBER_TYPES.search(type_ or ""):
        return "number"
    if _TEXT_TYPES.search(type_ or ""):
        return "text"
    return None


def _literal_kind(node: exp.Expression) -> str | None:
    if isinstance(node, exp.Neg):
        node = node.this
    if not isinstance(node, exp.Literal):
        return None
    if not node.is_string:
        return "number"
    return "date" if _DATE_TEXT.fullmatch(node.this) else "text"


def expected_kind(col: exp.Column) -> str | None:
    """The kind of column the query's use of ``col`` requires, or None when the use allows any."""
    parent = col.parent
    if isinstance(parent, _NUMERIC_AGGREGATES):
        return "number"
    if isinstance(parent, _DATE_PARTS):
        return "date"
    if isinstance(parent, (exp.Like, exp.ILike)) and parent.this is col:
        return "text"
    if isinstance(parent, _ARITHMETIC):
        other = parent.expression if parent.this is col else parent.this
        return "number" if _literal_kind(other) == "number" or isinstance(parent, (exp.Mul, exp.Div)) else None
    if isinstance(parent, COMPARISONS):
        other = parent.expression if parent.this is col else parent.this
        return _literal_kind(other)
    if isinstance(parent, exp.Between) and parent.this is col:
        return _literal_kind(parent.args["low"])
    return None


def narrow_by_type(col: exp.Column, candidates: Sequence[object], type_of: Callable[[object], str | None],
                   dialect: str, values_of: Callable[[object], Sequence[str]] | None = None) -> list[object]:
    """``candidates`` whose kind the use of ``col`` allows; all of them when the use says nothing or none fits.
    SQLite keeps what a column holds, not what it declares: a date kept as text may stand where a date is wanted,
    and a text column whose known values are all numbers (or whose values are not known) where a number is."""
    want = expected_kind(col)
    if want is None:
        return list(candidates)

    def fits(cand: object) -> bool:
        have = kind_of(type_of(cand) or "")
        if have is None or have == want:
            return True
        if dialect != "sqlite" or have != "text":
            return False
        if want == "date":
            return True
        values = values_of(cand) if values_of is not None else ()
        return want == "number" and all(NUMBER_TEXT.fullmatch(str(v).strip()) for v in values)

    kept = [c for c in candidates if fits(c)]
    return kept or list(candidates)


def _compared_strings(col: exp.Column) -> list[str]:
    """The string literals ``col`` is compared with for equality (``=``, ``<>``, ``IN (...)``), lower case."""
    parent = col.parent
    while isinstance(parent, (exp.Lower, exp.Upper, exp.Trim, exp.Paren)):
        col, parent = parent, parent.parent
    if isinstance(parent, (exp.EQ, exp.NEQ)):
        other = parent.expression if parent.this is col else parent.this
        return [other.this.lower()] if isinstance(other, exp.Literal) and other.is_string else []
    if isinstance(parent, exp.In) and parent.this is col:
        return [e.this.lower() for e in parent.expressions if isinstance(e, exp.Literal) and e.is_string]
    return []


def narrow_by_values(col: exp.Column, candidates: Sequence[object],
                     values_of: Callable[[object], Sequence[str]]) -> list[object]:
    """``candidates`` whose known values hold every string ``col`` is compared with (``city_name = 'Pune'`` on a
    table with ``city`` and ``name``: the column that holds 'Pune'); all of them when none does or nothing is
    compared. Data only ever narrows a choice the names left open."""
    wanted = _compared_strings(col)
    if not wanted:
        return list(candidates)
    kept = [c for c in candidates if set(wanted) <= {str(v).lower() for v in values_of(c)}]
    return kept or list(candidates)
