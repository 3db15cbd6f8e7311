"""The rule-based SQL generator used when the model cannot answer: it answers only what it fully understands.

Reads the question and the schema; never calls the model.
"""

from core.fallback._generate import FallbackSQL, fallback_sql, fallback_with_reason
from core.fallback._inflect import singular

__all__ = ["FallbackSQL", "fallback_sql", "fallback_with_reason", "singular"]
