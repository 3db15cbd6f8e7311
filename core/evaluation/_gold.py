"""Gold SQL as question sets write it: several ``;``-separated queries in one cell, and defog's ``{a, b}``
(either column is acceptable) with ``GROUP BY {}`` repeating the chosen one. :func:`gold_variants` turns one cell
into every concrete query it stands for; an answer is right when it matches any of them.
"""

from __future__ import annotations

import itertools
import re

__all__ = ["expand_alternatives", "gold_variants", "split_statements"]

_BRACES = re.compile(r"\{([^{}]*)\}")
_MAX_VARIANTS = 16


def split_statements(cell: str) -> list[str]:
    """Split on ``;`` outside quotes ('...', "...", $tag$...$tag$) and comments; drop empty parts."""
    parts: list[str] = []
    start = 0
    i = 0
    n = len(cell)
    while i < n:
        ch = cell[i]
        if ch in ("'", '"'):
            end = cell.find(ch, i + 1)
            while end != -1 and end + 1 < n and cell[end + 1] == ch:  # doubled quote escapes itself
                end = cell.find(ch, end + 2)
            i = n if end == -1 else end + 1
            continue
        if ch == "$":
            tag = re.match(r"\$[A-Za-z_]*\$", cell[i:])
            if tag:
                end = cell.find(tag.group(0), i + len(tag.group(0)))
                i = n if end == -1 else end + len(tag.group(0))
                continue
        if cell.startswith("--", i):
            end = cell.find("\n", i)
            i = n if end == -1 else end
            continue
        if cell.startswith("/*", i):
            end = cell.find("*/", i + 2)
            i = n if end == -1 else end + 2
            continue
        if ch == ";":
            parts.append(cell[start:i])
            start = i + 1
        i += 1
    parts.append(cell[start:])
    return [p.strip() for p in parts if p.strip()]


def expand_alternatives(sql: str) -> list[str]:
    """Every concrete query of one statement: each ``{a, b}`` picks one option, ``{}`` repeats the last pick."""
    groups = [m for m in _BRACES.finditer(sql) if m.group(1).strip()]
    if not groups:
        return [sql]
    options = [[o.strip() for o in m.group(1).split(",") if o.strip()] for m in groups]
    variants: list[str] = []
    for choice in itertools.islice(itertools.product(*options), _MAX_VARIANTS):
        picks = iter(choice)
        last = ""

        def fill(match: re.Match[str]) -> str:
            nonlocal last
            if match.group(1).strip():
                last = next(picks)
            return last

        variants.append(_BRACES.sub(fill, sql))
    return variants


def gold_variants(cell: str) -> list[str]:
    """Every concrete query a gold cell stands for, in order."""
    return [sql for statement in split_statements(cell) for sql in expand_alternatives(statement)]
