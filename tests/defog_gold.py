"""Defog gold queries, expanded into plain SQL, so several test modules can check against the same corpus.

A gold cell may hold several ``;``-separated queries, and a query may say ``{a, b}`` (either column is
acceptable) with ``GROUP BY {}`` repeating the chosen one. :func:`gold_queries` turns each cell into every
concrete query it stands for.
"""

from __future__ import annotations

import csv
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["GoldQuery", "expand_alternatives", "gold_queries", "split_statements"]

_BRACES = re.compile(r"\{([^{}]*)\}")
_MAX_VARIANTS = 16


@dataclass(frozen=True)
class GoldQuery:
    """One concrete gold query and where it came from."""

    source: str  # csv file name
    row: int  # 1-based data row in that file
    db_name: str
    sql: str


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


def gold_queries(questions_dir: Path, dialect: str) -> Iterator[GoldQuery]:
    """All concrete gold queries of the ``*_<dialect>.csv`` files in ``questions_dir``."""
    for path in sorted(questions_dir.glob(f"*_{dialect}.csv")):
        with path.open(newline="", encoding="utf-8") as handle:
            for row_no, row in enumerate(csv.DictReader(handle), start=1):
                for statement in split_statements(row.get("query") or ""):
                    for sql in expand_alternatives(statement):
                        yield GoldQuery(path.name, row_no, row.get("db_name", ""), sql)
