"""A form the model proposes, checked against the live schema and data before anything is stored.

The model proposes (``cycle/_proposal.py`` asks it for JSON in the shape of ``PROPOSAL_SCHEMA``); this module
verifies: the table and column exist, the operator fits the column's type, every text value is found in its
column (and takes the data's spelling), numbers are numbers, dates are exact ``YYYY-MM-DD`` days, a window is
a positive number of days, weeks, months or years. The stored form is then *built by code* the same way the
rules build theirs (``filter_spec``, the window forms) — no SQL the model wrote is ever kept. Anything that does
not check out is refused with the reason, never repaired by a guess.

``meaning`` turns a form — the rules' or a verified proposal — into what it enforces (a set of values, a
comparison, a period with exact bounds, a number of days, a limit, a sort), so two readings of one statement
can be compared by meaning rather than by spelling: ``on or after 1 Jan 2024`` read as ``>= '2024-01-01'`` and
as a period starting on 2024-01-01 are the same rule.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import Any

from core.memory.enforcement import filter_condition
from core.memory.forms._presentation_text import MAX_WINDOW_DAYS, relative_window
from core.memory.forms._schema_match import filter_spec, is_numeric
from core.memory.forms._structured import ValueLookup
from core.schema import Column, Schema, Table

__all__ = ["ENFORCED_KINDS", "PROPOSAL_SCHEMA", "meaning", "same_meaning", "verify_proposal"]

ENFORCED_KINDS = ("filter", "window", "limit", "sort")
_OPS = ("=", "<>", "IN", "NOT IN", ">", ">=", "<", "<=", "BETWEEN")
_UNITS = {"day": 1, "week": 7, "month": 31, "year": 366}
_MAX_VALUES = 50
MAX_LIMIT = 100_000

PROPOSAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "kind": {"type": "string", "enum": ["filter", "window", "limit", "sort", "none"]},
        "table": {"type": "string"},
        "column": {"type": "string"},
        "op": {"type": "string", "enum": list(_OPS)},
        "values": {"type": "array", "items": {"type": ["string", "number"]}},
        "amount": {"type": "integer"},
        "unit": {"type": "string", "enum": list(_UNITS)},
        "limit": {"type": "integer"},
        "direction": {"type": "string", "enum": ["asc", "desc"]},
    },
    "required": ["kind"],
}


def verify_proposal(proposal: Any, schema: Schema, lookup: ValueLookup | None) -> tuple[dict[str, Any] | None, str]:
    """(form, "") when every part checks out — ``{"kind": "none"}`` when the model read no standing rule — or
    (None, why) when something does not."""
    if not isinstance(proposal, Mapping):
        return None, "not a form"
    kind = proposal.get("kind")
    if kind == "none":
        return {"kind": "none"}, ""
    if kind == "limit":
        n = proposal.get("limit")
        if not isinstance(n, int) or isinstance(n, bool) or not 0 < n <= MAX_LIMIT:
            return None, f"a row limit must be a whole number from 1 to {MAX_LIMIT:,}"
        return {"kind": "limit", "value": n}, ""
    if kind not in ("filter", "window", "sort"):
        return None, f"unknown kind {kind!r}"
    table = schema.table(str(proposal.get("table") or ""))
    if table is None:
        return None, f"no table {proposal.get('table')!r}"
    column = table.column(str(proposal.get("column") or ""))
    if column is None:
        return None, f"no column {proposal.get('column')!r} in {table.qualified_name}"
    if kind == "sort":
        direction = str(proposal.get("direction") or "").upper()
        if direction not in ("ASC", "DESC"):
            return None, "a sort needs the direction asc or desc"
        return {"kind": "sort", "table": table.qualified_name, "column": column.name, "direction": direction}, ""
    if kind == "window":
        return _window(proposal, table, column, schema)
    return _filter(proposal, table, column, schema, lookup)


def _window(proposal: Mapping[str, Any], table: Table, column: Column, schema: Schema
            ) -> tuple[dict[str, Any] | None, str]:
    if not _is_date(column):
        return None, f"{table.qualified_name}.{column.name} is not a date"
    amount, unit = proposal.get("amount"), proposal.get("unit")
    if not isinstance(amount, int) or isinstance(amount, bool) or unit not in _UNITS:
        return None, "a time range needs a whole number of days, weeks, months or years"
    if not 0 < amount * _UNITS[str(unit)] <= MAX_WINDOW_DAYS:
        return None, "that time range is empty or longer than a century"
    return relative_window(table, column, amount, str(unit), schema.dialect), ""


def _filter(proposal: Mapping[str, Any], table: Table, column: Column, schema: Schema, lookup: ValueLookup | None
            ) -> tuple[dict[str, Any] | None, str]:
    op = " ".join(str(proposal.get("op") or "").upper().split())
    values = proposal.get("values")
    if op not in _OPS:
        return None, f"unknown operator {proposal.get('op')!r}"
    if not isinstance(values, list) or not values or len(values) > _MAX_VALUES:
        return None, "a filter needs its values"
    if any(isinstance(v, bool) or not isinstance(v, (str, int, float)) for v in values):
        return None, "values must be text or numbers"
    if op in ("=", "<>", ">", ">=", "<", "<=") and len(values) != 1 or op == "BETWEEN" and len(values) != 2:
        return None, f"{op} takes {'two values' if op == 'BETWEEN' else 'one value'}"
    where = f"{table.qualified_name}.{column.name}"
    if _is_date(column):
        return _period(op, values, table, column, schema)
    if is_numeric(column):
        numbers = [_number(v) for v in values]
        if any(n is None for n in numbers):
            return None, f"{where} holds numbers"
        return _spec(table, column, op, numbers, schema), ""
    if op not in ("=", "<>", "IN", "NOT IN"):
        return None, f"{op} does not fit the text column {where}"
    found = _found(table, column, [str(v) for v in values], lookup)
    missing = [v for v, real in found.items() if real is None]
    if missing:
        return None, f"not found in {where}: {', '.join(missing)}"
    return _spec(table, column, op, [str(found[str(v)]) for v in values], schema), ""


def _spec(table: Table, column: Column, op: str, values: Sequence[Any], schema: Schema) -> dict[str, Any]:
    if op == "BETWEEN":
        low, high = sorted(values)
        spec = {"kind": "filter", "table": table.qualified_name, "column": column.name, "op": "BETWEEN",
                "value": [low, high]}
        cond = filter_condition(spec, table.name, dialect=schema.dialect)
        return {**spec, "sql": cond.sql(dialect=schema.dialect) if cond is not None else ""}
    if op in ("IN", "NOT IN") and len(values) == 1:
        op = "=" if op == "IN" else "<>"
    elif op in ("=", "<>") and len(values) > 1:
        op = "IN" if op == "=" else "NOT IN"
    value: Any = list(values) if op in ("IN", "NOT IN") else values[0]
    return filter_spec(table.qualified_name, column.name, op, value, schema.dialect)


def _period(op: str, values: Sequence[Any], table: Table, column: Column, schema: Schema
            ) -> tuple[dict[str, Any] | None, str]:
    """A comparison with exact days -> the fixed-period form the rules store (start inside, end the day after)."""
    days = [_day(v) for v in values]
    if any(d is None for d in days):
        return None, "dates must be exact days written YYYY-MM-DD"
    one = datetime.timedelta(days=1)
    d0 = days[0]
    assert d0 is not None
    bounds: dict[str, dict[str, datetime.date]] = {
        ">=": {"start": d0}, ">": {"start": d0 + one}, "<": {"end": d0}, "<=": {"end": d0 + one},
        "=": {"start": d0, "end": d0 + one},
    }
    if op == "BETWEEN":
        low, high = sorted(d for d in days if d is not None)
        span = {"start": low, "end": high + one}
    elif op in bounds:
        span = bounds[op]
    else:
        return None, f"{op} does not fit the date column {table.qualified_name}.{column.name}"
    form: dict[str, Any] = {"kind": "window", "table": table.qualified_name, "column": column.name,
                            **{k: v.isoformat() for k, v in span.items()}}
    cond = filter_condition(form, table.name, dialect=schema.dialect)
    if cond is None:
        return None, "that period cannot be enforced"
    return {**form, "sql": cond.sql(dialect=schema.dialect)}, ""


def _found(table: Table, column: Column, values: list[str], lookup: ValueLookup | None) -> dict[str, str | None]:
    """Each value with its spelling in the data, or None. The look-up asks the database; without one, only the
    column's cached hints can prove a value."""
    if lookup is not None:
        try:
            got = lookup(table.qualified_name, column.name, values)
            return {v: (got.get(v) if got.get(v) is not None else None) for v in values}
        except Exception:  # noqa: BLE001 - a look-up that fails proves nothing
            return dict.fromkeys(values)
    hints = {str(h).casefold(): str(h) for h in column.value_hints}
    return {v: hints.get(v.casefold()) for v in values}


def _is_date(column: Column) -> bool:
    t = column.type.lower()
    return "date" in t or "time" in t


def _number(value: Any) -> float | int | None:
    if isinstance(value, (int, float)):
        return value
    try:
        number = float(str(value).replace(",", "").strip())
    except ValueError:
        return None
    return int(number) if number.is_integer() else number


def _day(value: Any) -> datetime.date | None:
    text = str(value).strip()
    if len(text) != 10:
        return None
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        return None


# --- what a form enforces --------------------------------------------------------------------------------------


def meaning(form: Mapping[str, Any] | None) -> tuple[Any, ...] | None:
    """What an enforced form does, comparable across spellings; None for a form that enforces nothing."""
    if not form:
        return None
    kind = form.get("kind")
    table = str(form.get("table") or "").lower()
    column = str(form.get("column") or "").lower()
    if kind == "limit":
        return ("limit", _number(form.get("value")))
    if kind == "sort":
        return ("sort", table, column or str(form.get("by") or ""), str(form.get("direction") or "ASC").upper())
    if kind == "window":
        if form.get("current"):
            return ("current", table, column, form.get("current"), form.get("first_month"))
        if form.get("start") or form.get("end"):
            return ("period", table, column, form.get("start"), form.get("end"))
        unit = str(form.get("unit") or "")
        per = {"day": 1, "week": 7, "month": 30, "year": 365}
        if unit not in per or not isinstance(form.get("amount"), int):
            return None
        return ("window", table, column, form["amount"] * per[unit])
    if kind != "filter":
        return None
    op = " ".join(str(form.get("op") or "=").upper().split())
    value = form.get("value")
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    if op in ("=", "IN", "<>", "NOT IN"):
        keys = frozenset(str(v).casefold() if isinstance(v, str) else _number(v) for v in values)
        return ("values", table, column, op in ("<>", "NOT IN"), keys)
    days = [_day(v) for v in values]
    if all(d is not None for d in days) and op in (">=", ">", "<", "<=", "BETWEEN"):
        one = datetime.timedelta(days=1)
        d0 = days[0]
        assert d0 is not None
        span = {">=": (d0, None), ">": (d0 + one, None), "<": (None, d0), "<=": (None, d0 + one)}.get(op)
        if op == "BETWEEN":
            low, high = sorted(d for d in days if d is not None)
            span = (low, high + one)
        start, end = span if span else (None, None)
        return ("period", table, column, start.isoformat() if start else None, end.isoformat() if end else None)
    return ("compare", table, column, op, tuple(_number(v) if _number(v) is not None else str(v) for v in values))


def same_meaning(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> bool:
    """Whether two forms enforce the same thing (two enforcing nothing are the same too)."""
    return meaning(a) == meaning(b)
