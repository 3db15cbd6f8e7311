"""Two filters on one column: do they combine, replace each other, or say the same thing?

Exclusions accumulate ("exclude cancelled", later "exclude returned": both stay out), and so do excluded
patterns (test and demo e-mail domains); a second positive filter replaces the first unless the person says
"also"; a lower and an upper bound make a range; excluding one value of a kept list removes it from the list.
Fixed periods too: "from 1 Feb 2024 onwards", later "and nothing after 30 Sept 2024", make one period.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from core.memory.enforcement import filter_condition, like_condition
from core.memory.forms import column_expr, filter_spec

__all__ = ["NEGATIVE", "POSITIVE", "as_list", "merge_filters", "merge_periods", "value_key"]

POSITIVE = ("=", "IN")
NEGATIVE = ("<>", "NOT IN")
_POSITIVE, _NEGATIVE = POSITIVE, NEGATIVE
_LOWER = (">", ">=")
_UPPER = ("<", "<=")
_PATTERN = ("LIKE", "NOT LIKE")
Verdict = Literal["ADD", "UPDATE", "DELETE", "NOOP"]


def merge_filters(
    old: Mapping[str, Any], new: Mapping[str, Any], additive: bool, dialect: str
) -> tuple[Verdict, dict[str, Any] | None, str]:
    """The verdict for two filters on one column: (operation, merged filter for UPDATE, reason)."""
    oa, ob = str(old.get("op")), str(new.get("op"))
    if oa in _PATTERN and oa == ob and (oa == "NOT LIKE" or additive):
        # two excluded patterns (test and demo e-mail domains) both stay out; "also" adds an allowed pattern
        merged = as_list(old.get("value")) + [v for v in as_list(new.get("value"))
                                               if value_key(v) not in {value_key(x) for x in as_list(old.get("value"))}]
        if len(merged) == len(as_list(old.get("value"))):
            return "NOOP", None, "the pattern is already part of the filter"
        col = column_expr(str(old["table"]), str(old["column"]), dialect)
        cond = like_condition(col, oa, merged)
        if cond is None:
            return "DELETE", None, "a new pattern on the same column replaces the old one"
        spec = {**old, "value": merged, "sql": cond.sql(dialect=dialect)}
        return "UPDATE", spec, "adds a pattern to the same filter"
    if oa in _LOWER + _UPPER and ob in _LOWER + _UPPER and (oa in _LOWER) != (ob in _LOWER):
        return "ADD", None, "one bound below and one above on the same column: a range, both kept"
    old_vals = as_list(old.get("value"))
    new_vals = as_list(new.get("value"))
    same_sign = (oa in _POSITIVE and ob in _POSITIVE) or (oa in _NEGATIVE and ob in _NEGATIVE)
    # Exclusions accumulate ("exclude cancelled", later "exclude returned": both stay out); a second positive
    # filter replaces the first unless the person says "also".
    if same_sign and (additive or oa in _NEGATIVE):
        merged = old_vals + [v for v in new_vals if value_key(v) not in {value_key(x) for x in old_vals}]
        if len(merged) == len(old_vals):
            return "NOOP", None, "the values are already part of the filter"
        positive = oa in _POSITIVE
        spec = filter_spec(str(old["table"]), str(old["column"]), "IN" if positive else "NOT IN", merged, dialect)
        return "UPDATE", _scoped(old, spec), "adds values to the same filter"
    if oa in _POSITIVE and ob in _NEGATIVE and len(old_vals) > 1:
        dropped = {value_key(v) for v in new_vals}
        kept = [v for v in old_vals if value_key(v) not in dropped]
        if kept and len(kept) < len(old_vals):
            op, value = ("=", kept[0]) if len(kept) == 1 else ("IN", kept)
            spec = filter_spec(str(old["table"]), str(old["column"]), op, value, dialect)
            return "UPDATE", _scoped(old, spec), "removes values from the same filter"
    if oa in _POSITIVE and ob in _NEGATIVE and not {value_key(v) for v in new_vals} & {value_key(v) for v in old_vals}:
        # "only delivered", then "also exclude cancelled": both hold, and the kept values already leave it out
        return "NOOP", None, f"already left out: only {', '.join(map(str, old_vals))} is kept on this column"
    return "DELETE", None, "a new condition on the same column replaces the old one"


_SCOPE_KEYS = ("also_on", "only_through")  # "when I ask about tracks, …": where the rule holds, kept by merges


def _scoped(old: Mapping[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    return {**spec, **{k: old[k] for k in _SCOPE_KEYS if k in old}}


def as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def value_key(value: Any) -> Any:
    return value.lower() if isinstance(value, str) else value


def merge_periods(old: Mapping[str, Any], new: Mapping[str, Any], dialect: str) -> dict[str, Any] | None:
    """One fixed period from a saved bound and a new bound on the other side of the same date column ("on or after
    1 Feb 2024", then "nothing after 30 Sept 2024"); None when they are not one start and one end, or when the
    period they make would be empty (then the newer statement replaces the older, as for any other rule)."""
    if old.get("kind") != "window" or new.get("kind") != "window" or old.get("current") or new.get("current"):
        return None
    if str(old.get("table")).lower() != str(new.get("table")).lower() or \
            str(old.get("column")).lower() != str(new.get("column")).lower():
        return None
    start = new.get("start") if new.get("start") and not new.get("end") else None
    end = new.get("end") if new.get("end") and not new.get("start") else None
    if start and old.get("end") and not old.get("start"):
        end = old["end"]
    elif end and old.get("start") and not old.get("end"):
        start = old["start"]
    else:
        return None
    if not (start and end) or str(start) >= str(end):
        return None
    form: dict[str, Any] = {"kind": "window", "table": new["table"], "column": new["column"], "start": start,
                            "end": end}
    cond = filter_condition(form, str(new["table"]).split(".")[-1], dialect=dialect)
    return {**form, "sql": cond.sql(dialect=dialect)} if cond is not None else None
