"""Which of a standing filter's links to other tables hold in the open database."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.memory.enforcement._filters import filter_condition, referencing_links

__all__ = ["enforced_tables", "usable_forms", "valid_links"]


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



def usable_forms(picked: list[tuple[Any, dict[str, Any]]], schema: Any) -> tuple[list[tuple[Any, dict[str, Any]]], list[str]]:
    """The (recalled memory, form) pairs whose columns exist in this database, each with the links that hold here
    (its own valid ones and every table referencing it by a key), and a note for each left out: a memory kept for
    every database may name a column another database lacks, and it is then never forced into the SQL."""
    usable, notes = [], []
    for recalled, spec in picked:
        content = recalled.memory.content
        table = schema.table(str(spec.get("table") or "")) if spec.get("table") else None
        names = [spec.get("column"), spec.get("when"), *(spec.get("add") or [])]
        missing = [str(n) for n in names if n and (table is None or table.column(str(n)) is None)]
        if spec.get("table") and (table is None or missing):
            notes.append(f"Your saved preference \"{content}\" was not applied: this database has no "
                         f"{spec.get('table')}.{missing[0] if missing else spec.get('column')}.")
            continue
        if spec.get("kind") in ("filter", "window") and table is not None and filter_condition(
                spec, table.name, dialect=schema.dialect) is None:  # fmt: skip
            notes.append(f"Your saved preference \"{content}\" was not applied: its saved rule cannot be read (an "
                         "impossible date, an unknown period or operator). Edit or re-add it.")
            continue
        if "also_on" in spec:
            links, bad = valid_links(content, spec, table, schema)
            spec = {**spec, "also_on": links}
            notes.extend(bad)
        if spec.get("kind") in ("filter", "window") and table is not None:
            # A standing filter on invoices holds for their lines too: a query reading only the rows that belong
            # to the filtered table (one foreign key away) gets it through the key.
            linked = {str(link.get("table")) for link in spec.get("also_on") or () if isinstance(link, Mapping)}
            more = [link for link in referencing_links(schema, table.qualified_name) if link["table"] not in linked]
            if more:
                spec = {**spec, "also_on": [*(spec.get("also_on") or []), *more]}
        usable.append((recalled, spec))
    return usable, notes
