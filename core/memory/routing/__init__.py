"""Route one message: a data question, an edit of the last query, small talk or a question about Cairn, or
something to remember. `_classifier` decides: the learned `_router` (weights and training set in `data/`) when
MiniLM is there, the local model when it is unsure, the rule cascade (`_classify_rules` over `_classify_text`)
alone without MiniLM. Imports no store and no form."""

from core.memory.routing._classifier import (
    DATA_KINDS,
    KINDS,
    MEMORY_KINDS,
    TALK_KINDS,
    Route,
    RouteKind,
    classify,
    is_memory_statement,
    route_group,
    router_applies,
    withdraws,
)
from core.memory.routing._classify_text import asks_something

__all__ = [
    "asks_something",
    "DATA_KINDS",
    "KINDS",
    "MEMORY_KINDS",
    "TALK_KINDS",
    "Route",
    "RouteKind",
    "classify",
    "is_memory_statement",
    "route_group",
    "router_applies",
    "withdraws",
]
