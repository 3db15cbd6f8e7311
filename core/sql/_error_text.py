"""Database error text made safe to show the model: values the database quoted from rows are removed.

An error such as ``invalid input syntax for type integer: "ann@example.com"`` quotes data, possibly from a
column hidden from the model. Anything quoted in the error that the SQL itself does not contain and that is
not a table or column name came from the data: it becomes ``<value>``. The person still sees the full error.
"""

from __future__ import annotations

import re

from core.schema import Schema

__all__ = ["redact_error_values"]

# "…", '…', and the parenthesised values of "Key (email)=(ann@example.com)" details.
_QUOTED = re.compile(r'"((?:[^"\\]|\\.|"")*)"|\'((?:[^\'\\]|\\.|\'\')*)\'|=\(([^()]*)\)')
PLACEHOLDER = "<value>"


def redact_error_values(error: str, sql: str, schema: Schema | None) -> str:
    """``error`` with every quoted value that is neither in ``sql`` nor a schema name replaced by ``<value>``."""
    names = _schema_names(schema)
    sql_lower = sql.lower()

    def keep(text: str) -> bool:
        stripped = text.strip()
        if not stripped:
            return True
        low = stripped.lower()
        return low in names or low in sql_lower or all(part in names for part in low.split("."))

    def replace(match: re.Match[str]) -> str:
        inner = next(g for g in match.groups() if g is not None) if any(g is not None for g in match.groups()) else ""
        if keep(inner):
            return match.group(0)
        if match.group(0).startswith("=("):
            return f"=({PLACEHOLDER})"
        quote = match.group(0)[0]
        return f"{quote}{PLACEHOLDER}{quote}"

    return _QUOTED.sub(replace, error)


def _schema_names(schema: Schema | None) -> set[str]:
    if schema is None:
        return set()
    names: set[str] = set()
    for table in schema.tables:
        names.add(table.name.lower())
        names.add(table.qualified_name.lower())
        names.update(c.name.lower() for c in table.columns)
    return names
