"""A form's *slot*: what it is about. Two forms in one slot cannot both stand unless they agree.

A filter's table and column, a term's or metric's name, a display setting, a window's table, the one default sort
or limit. Used by the update cycle (which of two forms wins) and by recall (which enforced rule a pending
statement holds back)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.memory.kernel import name_key

__all__ = ["slot_key", "slots_clash"]

_NUMBER_FORMAT = ("currency", "decimals")  # one memory says how numbers look: "EUR", then "with two decimals"


def _table(name: Any) -> str:
    return str(name).split(".")[-1].lower()


def slot_key(st: Mapping[str, Any] | None) -> tuple[str, ...] | None:
    """What a structured form is *about*: two forms with one slot cannot both stand unless they agree."""
    if not st:
        return None
    kind = st.get("kind")
    if kind == "filter" and st.get("table") and st.get("column"):
        return ("filter", _table(st["table"]), str(st["column"]).lower())
    if kind in ("term", "metric") and st.get("name"):
        return ("name", name_key(str(st["name"])))
    if kind == "display" and st.get("setting"):
        setting = str(st["setting"])
        return ("display", "number format" if setting in _NUMBER_FORMAT else setting)
    if kind == "include" and st.get("table") and st.get("column"):
        return ("filter", _table(st["table"]), str(st["column"]).lower())
    if kind == "window" and st.get("table"):
        return ("window", _table(st["table"]))
    if kind == "sort":  # one default order per table; a sort for every list ("*") meets every table's
        return ("sort", _table(st.get("table") or "*"))
    if kind == "limit":
        return ("limit",)
    if kind == "columns" and st.get("table") and st.get("when"):
        return ("columns", _table(st["table"]), str(st["when"]).lower())
    return None


def slots_clash(a: tuple[str, ...] | None, b: tuple[str, ...] | None) -> bool:
    """Two forms about the same slot: equal slots, or two default sorts of which one is for every list. People
    keep one default order: "oldest first from now" after "newest invoices first" changes it (the labelled
    pairs agree), while default sorts for two different tables both stay."""
    if a is None or b is None:
        return False
    return a == b or (a[0] == b[0] == "sort" and "*" in (a[1], b[1]))
