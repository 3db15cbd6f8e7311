"""Which of a standing filter's links to other tables hold in the open database."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.memory.enforcement._filters import referencing_links

__all__ = ["enforced_tables", "valid_links"]


def valid_links(content: str, spec: Mapping[str, Any], table: Any, schema: Any) -> tuple[list[Any], list[str]]:
    """The ``also_on`` links that hold in this schema (a table referencing the filter's table by a column and key
    that exist), and a note naming the memory for each bad one (a hand-edited memory file): it is dropped."""
    raw = spec.get("also_on")
    links = raw if isinstance(raw, list) else []
    good, notes = [], []
    for link in links:
        if isinstance(link, Mapping):
            other = schema.table(str(link.get("table") or ""))
            if (other is not None and table is not None and other.column(str(link.get("column") or ""))
                    and table.column(str(link.get("key") or ""))):  # fmt: skip
                good.append(link)
                continue
        notes.append(f"Part of your saved preference \"{content}\" was not applied: it names a link this database "
                     f"does not have ({str(link)[:80]}). Edit or re-add it.")
    if not isinstance(raw, list) and raw:
        notes.append(f"Part of your saved preference \"{content}\" was not applied: its links to other tables are "
                     "unreadable. Edit or re-add it.")
    return good, notes


def enforced_tables(form: Mapping[str, Any], schema: Any) -> set[str]:
    """The tables (bare names, lower case) a standing filter is enforced on: its own (unless it holds only through
    its links), the tables that reference it by a foreign key, and its extra links. A hand-edited memory file may
    hold anything in ``also_on``: only ``{"table": …}`` links count."""
    extra = form.get("also_on")
    links = [*(extra if isinstance(extra, list) else ()), *referencing_links(schema, str(form.get("table") or ""))]
    own = [] if form.get("only_through") else [form.get("table")]
    return {str(t).split(".")[-1].lower()
            for t in [*own, *(link.get("table") for link in links if isinstance(link, Mapping))] if t}

