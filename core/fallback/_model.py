"""The query plan the rule-based fallback builds SQL from, and the refusal it raises instead of guessing."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from core.schema import Column, ForeignKey, Table

__all__ = ["ColRef", "Condition", "Group", "Link", "Measure", "PerEntity", "Plan", "Ranking", "Refusal"]

logger = logging.getLogger(__name__)


class Refusal(Exception):
    """The question is not understood with confidence; the message says which part."""


@dataclass(frozen=True)
class ColRef:
    table: Table
    column: Column


@dataclass(frozen=True)
class Condition:
    col: ColRef
    op: str  # "in" (text values), "=", ">", ">=", "<", "<=", "between", "range" (dates)
    values: tuple[object, ...]
    label: str = ""  # for time ranges: the phrase as understood


@dataclass(frozen=True)
class Measure:
    op: str  # "count" | "count_distinct" | "sum" | "avg" | "max" | "min"
    col: ColRef | None = None


@dataclass(frozen=True)
class Group:
    col: ColRef
    unit: str | None = None  # time bucket for a date column: day/week/month/quarter/year


@dataclass(frozen=True)
class Link:
    """How a second table reaches the target along one foreign key."""

    table: Table
    kind: str  # "join" (target -> table, many-to-one) | "exists" / "not_exists" (table -> target, one-to-many)
    fk: ForeignKey


@dataclass(frozen=True)
class PerEntity:
    """Aggregate per row of a parent table the target points at ("orders per customer").

    Every parent row is kept (a LEFT JOIN), so a customer without orders shows 0, not nothing.
    """

    table: Table
    fk: ForeignKey  # on the target, referencing ``table``
    labels: tuple[Column, ...]  # readable columns (name/title) shown beside the key


@dataclass(frozen=True)
class Ranking:
    """ORDER BY ... LIMIT: by a column (a listing) or, when ``key`` is None, by the first measure."""

    key: ColRef | None
    desc: bool
    limit: int
    ties: bool = False  # keep every row tied with the last one (where the dialect can)


@dataclass(frozen=True)
class Plan:
    target: Table
    measures: tuple[Measure, ...]  # empty: a listing
    projection: tuple[ColRef, ...]  # listing columns; empty: all columns of the target
    distinct: bool
    conditions: tuple[Condition, ...]
    groups: tuple[Group, ...]
    links: tuple[Link, ...]
    per: PerEntity | None = None
    ranking: Ranking | None = None
