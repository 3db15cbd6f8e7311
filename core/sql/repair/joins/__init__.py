"""Repairs of joins: conditions the schema settles (``_keys``, which also reads a column named for the table it
points to, ``journal_id`` for ``jid``), joins the query used but never wrote (``_forgotten``), joins that cannot
matter, removed (``_strip``), a NATURAL JOIN that shares more than the key, joined on it (``_natural``), and a column two joined tables share, written bare, where the query leaves one reading
(``_ambiguous``), two tables' own keys joined where only a link table relates them, joined through it (``_bridges``), inner joins written in an order their ON conditions cannot be read in, put in order
(``_sequence``), tables joined to every row by a slip — listed and never read, an ON that reads nothing of its table,
per-group results side by side — mended as guesses (``_stray``)."""

from core.sql.repair.joins._ambiguous import settle_ambiguous
from core.sql.repair.joins._bridges import bridged_joins
from core.sql.repair.joins._forgotten import FORGOTTEN_JOIN_FIX, join_forgotten
from core.sql.repair.joins._keys import (JoinMatches, join_candidates, named_key, repair_join_keys, self_comparison,
                                        table_keys)
from core.sql.repair.joins._natural import natural_joins
from core.sql.repair.joins._sequence import conditions_distributed, joins_in_order, outer_join_conditions
from core.sql.repair.joins._stray import stray_joins
from core.sql.repair.joins._strip import strip_joins

__all__ = ["FORGOTTEN_JOIN_FIX", "JoinMatches", "bridged_joins", "conditions_distributed", "joins_in_order", "join_candidates", "join_forgotten", "named_key", "natural_joins", "outer_join_conditions", "repair_join_keys",
           "self_comparison", "settle_ambiguous", "stray_joins", "strip_joins", "table_keys"]
