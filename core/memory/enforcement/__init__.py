"""Standing forms applied to the model's SQL: filters and time windows in every SELECT that reads their table
(`_filters`, which also builds the SQL conditions the forms hold) and presentation (sort, limit, columns) on the
outermost query only (`_presentation`); `_links` keeps the links of a filter that hold in the database. sqlglot alone: no words, stores or recall."""

from core.memory.enforcement._filters import (
    FilterOutcome,
    enforce_filters,
    escape_like,
    filter_condition,
    like_condition,
    like_node,
    ordered_bounds,
    referencing_links,
    sql_literal,
)
from core.memory.enforcement._links import enforced_tables, usable_forms, valid_links
from core.memory.enforcement._presentation import PresentationOutcome, apply_presentation

__all__ = [
    "enforced_tables",
    "FilterOutcome",
    "PresentationOutcome",
    "apply_presentation",
    "enforce_filters",
    "escape_like",
    "filter_condition",
    "like_condition",
    "like_node",
    "ordered_bounds",
    "referencing_links",
    "sql_literal",
    "usable_forms",
    "valid_links",
]
