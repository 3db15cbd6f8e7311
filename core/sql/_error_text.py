"""Database error text made safe to show the model: it is untrusted data, so only what the schema proves is kept.

An error such as ``invalid input syntax for type integer: "ann@example.com"`` quotes data, possibly from a
column hidden from the model; a crafted query can also pack a value into a number the error prints
(``chr(ascii(…) + 1000000)``) or make the error confirm a guess the SQL spells out. So a quoted part of an error
is kept only when it is a table or column name of the schema the model sees, a type name, or an identifier the
SQL itself uses as one (``column "nam" does not exist`` tells the model its slip); everything else quoted becomes
``<value>``, and a number outside a position (``LINE 2``, ``position 14``, ``$1``) becomes ``<n>``. The person
still sees the full error.
"""

from __future__ import annotations

import re

from core.schema import Schema

__all__ = ["redact_error_values"]

# "…", '…', and the parenthesised values of "Key (email)=(ann@example.com)" details.
_QUOTED = re.compile(r'"((?:[^"\\]|\\.|"")*)"|\'((?:[^\'\\]|\\.|\'\')*)\'|=\(([^()]*)\)')
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_$]{0,62}(?:\.[A-Za-z_][A-Za-z0-9_$]{0,62}){0,2}")
_SQL_NOISE = re.compile(r"--[^\n]*|/\*.*?\*/|'(?:[^']|'')*'", re.S)  # comments and string literals
_NUMBER = re.compile(r"(?<![\w$.])(?<!LINE )(?<!line )(?<!position )(?<!character )(?<!column )\d+(?:\.\d+)?(?![\w])")
_TYPES = frozenset("""
integer int int2 int4 int8 bigint smallint numeric decimal real double float float4 float8 text varchar char
character boolean bool date time timestamp timestamptz interval json jsonb uuid bytea money inet cidr xml
array record oid regclass bit varbit tsvector
""".split())
PLACEHOLDER = "<value>"


def redact_error_values(error: str, sql: str, schema: Schema | None) -> str:
    """``error`` with every quoted part that the schema or the SQL's own identifiers do not prove replaced by
    ``<value>``, and numbers that are not positions by ``<n>``."""
    names = _schema_names(schema)
    words = {w.lower() for w in _IDENTIFIER.findall(_SQL_NOISE.sub(" ", sql))}

    def keep(text: str) -> bool:
        stripped = text.strip()
        if not stripped:
            return True
        low = stripped.lower()
        if low in names or low in _TYPES or all(part in names for part in low.split(".")):
            return True
        return bool(_IDENTIFIER.fullmatch(stripped)) and low in words  # a name the SQL itself wrote

    def replace(match: re.Match[str]) -> str:
        inner = next(g for g in match.groups() if g is not None) if any(g is not None for g in match.groups()) else ""
        if keep(inner):
            return match.group(0)
        if match.group(0).startswith("=("):
            return f"=({PLACEHOLDER})"
        quote = match.group(0)[0]
        return f"{quote}{PLACEHOLDER}{quote}"

    quoted = _QUOTED.sub(replace, error)
    lines = quoted.split("\n")
    # The echo of the SQL ("LINE 1: SELECT …") is the model's own text: its numbers stay.
    return "\n".join(line if line.startswith("LINE ") else _NUMBER.sub("<n>", line) for line in lines)


def _schema_names(schema: Schema | None) -> set[str]:
    if schema is None:
        return set()
    names: set[str] = set()
    for table in schema.tables:
        names.add(table.name.lower())
        names.add(table.qualified_name.lower())
        names.update(c.name.lower() for c in table.columns)
    return names
