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


def _quoted_spans(sql: str) -> list[tuple[int, int]]:
    """Where string literals and quoted names are: braces there are text (``'{' || x || '}'``, ``'{1,2}'``)."""
    spans = []
    i, n = 0, len(sql)
    while i < n:
        if sql[i] in "'\"":
            quote, start = sql[i], i
            i += 1
            while i < n and not (sql[i] == quote and (i + 1 >= n or sql[i + 1] != quote)):
                i += 2 if sql[i] == quote else 1
            spans.append((start, i))
        i += 1
    return spans


def expand_alternatives(sql: str) -> list[str]:
    """Every concrete query of one statement: each ``{a, b}`` picks one option, ``{}`` repeats the last pick.

    Only braces outside quotes count; the first :data:`_MAX_VARIANTS` combinations are kept."""
    spans = _quoted_spans(sql)
    braces = [m for m in _BRACES.finditer(sql) if not any(a <= m.start() <= b for a, b in spans)]
    groups = [m for m in braces if m.group(1).strip()]
    if not groups:
        return [sql]
    options = [[o.strip() for o in m.group(1).split(",") if o.strip()] for m in groups]
    variants: list[str] = []
    for choice in itertools.islice(itertools.product(*options), _MAX_VARIANTS):
        picks = iter(choice)
        last = ""
        out, at = [], 0
        for match in braces:
            if match.group(1).strip():
                last = next(picks)
            out += [sql[at:match.start()], last]
            at = match.end()
        variants.append("".join(out) + sql[at:])
    return variants


def gold_variants(cell: str) -> list[str]:
    """Every concrete query a gold cell stands for, in order."""
    return [sql for statement in split_statements(cell) for sql in expand_alternatives(statement)]
