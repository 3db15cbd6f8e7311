"""Which of a standing filter's links to other tables hold in the open database."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["valid_links"]


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
