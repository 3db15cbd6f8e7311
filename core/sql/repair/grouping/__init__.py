"""Repairs of how a query groups and orders its rows: ``_groupby`` (GROUP BY completed, filters on the right side of
the grouping, aggregates of aggregates, window aggregates written for a GROUP BY), ``_aggregate_filters`` (a row
compared with its own aggregate), ``_labels`` (a label folded to one case, shown as stored), ``_order`` (sort keys after
the grouped ones, which never decide the order, read as the ranking; a LIMIT with no order inside a CTE ordered outside, read after the order; positions counted from 0; DISTINCT sorted by a column it does not show), ``_windows`` (a share of the total or a running
total over the groups that the question does not ask for), ``_collapsed`` (one count where the question asks which
things: the list it counts, or refused), ``_conditional`` (a filter written inside every aggregate, moved to WHERE), ``_window_order`` (a ranking
window with no order, given the order shown or asked; a row number per group kept = 1 numbered the other way from the question's latest or earliest), ``_ranks`` (a rank shown for the measure it ranks by, the
n-th row for the top n, a row number compared with 0 for the first), ``_breakdown`` (one total split by a column the question never names), ``_inverted`` (a count
per group read the wrong way round: the number of the grouped things per the counted column), ``_constant_counts``
(``COUNT(DISTINCT k)`` grouped by ``k``, 1 in every group: the count of the thing its name says, or refused),
``_partitions`` (a top n ranked within groups the question never asks for: one ranking over all rows)."""

from core.sql.repair.grouping._breakdown import unasked_breakdowns
from core.sql.repair.grouping._collapsed import counts_by_max_key, counts_for_lists
from core.sql.repair.grouping._conditional import filters_in_aggregates
from core.sql.repair.grouping._constant_counts import constant_counts
from core.sql.repair.grouping._inverted import inverted_counts
from core.sql.repair.grouping._partitions import unasked_partitions
from core.sql.repair.grouping._groupby import GROUP_BY_FIX, joined_on, repair_group_by
from core.sql.repair.grouping._labels import labels_as_stored
from core.sql.repair.grouping._order import (dead_sort_keys, distinct_sorted_apart, keys_joined_with_and,
                                             limits_before_order, positions_from_zero)
from core.sql.repair.grouping._ranks import nth_as_top, threshold_as_top, unasked_ranks, zero_based_ranks
from core.sql.repair.grouping._window_order import flipped_latest, window_orders
from core.sql.repair.grouping._windows import unasked_windows

__all__ = ["GROUP_BY_FIX", "distinct_sorted_apart", "limits_before_order", "positions_from_zero", "flipped_latest", "constant_counts", "counts_by_max_key", "counts_for_lists", "filters_in_aggregates", "dead_sort_keys", "inverted_counts", "joined_on", "keys_joined_with_and", "labels_as_stored", "nth_as_top", "repair_group_by", "threshold_as_top", "unasked_breakdowns", "unasked_partitions", "unasked_ranks", "unasked_windows", "window_orders", "zero_based_ranks"]
