"""Defog gold queries, expanded into plain SQL, so several test modules can check against the same corpus.

A gold cell may hold several ``;``-separated queries, and a query may say ``{a, b}`` (either column is
acceptable) with ``GROUP BY {}`` repeating the chosen one. :func:`gold_queries` turns each cell into every
concrete query it stands for.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from core.evaluation import expand_alternatives, split_statements

__all__ = ["GoldQuery", "expand_alternatives", "gold_queries", "split_statements"]


@dataclass(frozen=True)
class GoldQuery:
    """One concrete gold query and where it came from."""

    source: str  # csv file name
    row: int  # 1-based data row in that file
    db_name: str
    sql: str


def gold_queries(questions_dir: Path, dialect: str) -> Iterator[GoldQuery]:
    """All concrete gold queries of the ``*_<dialect>.csv`` files in ``questions_dir``."""
    for path in sorted(questions_dir.glob(f"*_{dialect}.csv")):
        with path.open(newline="", encoding="utf-8") as handle:
            for row_no, row in enumerate(csv.DictReader(handle), start=1):
                for statement in split_statements(row.get("query") or ""):
                    for sql in expand_alternatives(statement):
                        yield GoldQuery(path.name, row_no, row.get("db_name", ""), sql)
