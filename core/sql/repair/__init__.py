"""Schema-driven repairs of model-written SQL: tables, columns, GROUP BY, needless JOINs, SQLite dates.

Each repair takes a parsed query and the schema and returns a repaired query; only :mod:`core.sql` calls them.
"""

from core.sql.repair._aliases import (ALIAS_CLASH_FIX, assigned_aliases, output_names_in_expressions,
                                     repair_alias_clashes, unqualified_output_names)
from core.sql.repair._columns import AMBIGUOUS_FIX, UNKNOWN_ALIAS_FIX, repair_columns
from core.sql.repair._concat import repair_concat
from core.sql.repair._dates import bare_intervals, rewrite_sqlite_dates
from core.sql.repair._dates_sqlite import DAYS_COUNTED, rewrite_postgres_dates
from core.sql.repair.idioms import (cross_joins_on_true, orm_idioms, python_idioms, rewrite_foreign_idioms,
                                   typed_idioms)
from core.sql.repair._shown import numbers_as_numbers, rounded_doubles
from core.sql.repair.filters import anti_joins, dates_on_date_columns, words_on_text_columns, flags_as_filters, one_value_twice_per_row, second_on_sibling, timestamps_as_days, values_as_held
from core.sql.repair.grouping import (GROUP_BY_FIX, constant_counts, counts_by_max_key, counts_for_lists,
                                      dead_sort_keys, distinct_sorted_apart, filters_in_aggregates, flipped_latest, limits_before_order, positions_from_zero, inverted_counts, joined_on, keys_joined_with_and,
                                      labels_as_stored, nth_as_top, repair_group_by, threshold_as_top,
                                      unasked_breakdowns, unasked_partitions, unasked_ranks, unasked_windows,
                                      window_orders, zero_based_ranks)
from core.sql.repair.joins import FORGOTTEN_JOIN_FIX, JoinMatches, join_candidates, join_forgotten, repair_join_keys
from core.sql.repair.joins import bridged_joins, conditions_distributed, joins_in_order, outer_join_conditions, natural_joins, stray_joins, strip_joins
from core.sql.repair._keywords import quote_keywords
from core.sql.repair._names import GUESSED, Meaning, Named, is_reserved, needs_quotes
from core.sql.repair._scope import group_keys
from core.sql.repair._tables import repair_tables
from core.sql.repair._unquoted import date_arithmetic, quoted_columns, unquoted_dates
from core.sql.repair._text_numbers import as_number, compare_text_numbers, empty_as_null, holds_numbers_as_text

__all__ = ["python_idioms", "typed_idioms", "words_on_text_columns", "dates_on_date_columns", "ALIAS_CLASH_FIX", "DAYS_COUNTED", "anti_joins", "GUESSED", "JoinMatches", "Meaning", "Named", "AMBIGUOUS_FIX", "GROUP_BY_FIX", "UNKNOWN_ALIAS_FIX", "as_number", "assigned_aliases", "bare_intervals", "bridged_joins", "compare_text_numbers", "conditions_distributed", "constant_counts", "counts_by_max_key", "counts_for_lists", "cross_joins_on_true", "date_arithmetic", "dead_sort_keys", "distinct_sorted_apart", "positions_from_zero", "empty_as_null", "filters_in_aggregates", "flags_as_filters", "flipped_latest", "group_keys", "holds_numbers_as_text", "inverted_counts", "is_reserved", "joined_on", "join_candidates", "joins_in_order", "keys_joined_with_and", "labels_as_stored", "limits_before_order", "join_forgotten", "natural_joins", "needs_quotes", "nth_as_top", "numbers_as_numbers", "one_value_twice_per_row", "orm_idioms", "outer_join_conditions", "output_names_in_expressions", "repair_alias_clashes", "repair_columns", "repair_concat", "repair_group_by", "repair_join_keys", "quote_keywords", "quoted_columns", "repair_tables", "rounded_doubles", "second_on_sibling", "rewrite_foreign_idioms", "rewrite_postgres_dates", "rewrite_sqlite_dates", "silences_an_error", "stray_joins", "strip_joins", "threshold_as_top", "timestamps_as_days", "unqualified_output_names", "unasked_breakdowns", "unasked_partitions", "unasked_ranks", "unasked_windows", "unquoted_dates", "values_as_held", "window_orders", "zero_based_ranks"]




def silences_an_error(fix: str) -> bool:
    """Whether a repair's note is one that makes a database error go away by a guess (an ambiguous column
    qualified, a clashing alias renamed, an unknown alias read as the one table holding the column, a forgotten
    join added, a second WHERE read as AND): the model should see that error first."""
    return fix.endswith((AMBIGUOUS_FIX, UNKNOWN_ALIAS_FIX, FORGOTTEN_JOIN_FIX, GUESSED)) or ALIAS_CLASH_FIX in fix

