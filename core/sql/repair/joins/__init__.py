"""Repairs of joins: conditions the schema settles (``_keys``) and joins that cannot matter, removed (``_strip``)."""

from core.sql.repair.joins._keys import JoinMatches, join_candidates, repair_join_keys, self_comparison
from core.sql.repair.joins._strip import strip_joins

__all__ = ["JoinMatches", "join_candidates", "repair_join_keys", "self_comparison", "strip_joins"]
