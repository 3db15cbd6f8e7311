"""Repairs of what a filter compares: ``_vacuous`` (comparisons that run but always or never hold, read as the one
that can mean something) and ``_held_values`` (a value no row holds because a word naming its column or table was
written into it, read as the value the data holds), ``_anti_join`` (a LEFT JOIN anti-join that tests the kept side's
key for NULL, read on the joined side), ``_flags`` (a filter turned into a yes/no column, read as the filter), ``_days`` (a timestamp that stores times of
day compared with a day by ``=``, read as its day), ``_siblings`` (one column equal to two values on one row, the second read
on its one sibling column: ``from_airport = 'LAX' AND from_airport = 'ORD'``), ``_kinds`` (a column that holds no
dates compared with a date, read on the date column the query means, or refused; on PostgreSQL a number column
compared with words, read on the text column of its table that holds them)."""

from core.sql.repair.filters._anti_join import anti_joins
from core.sql.repair.filters._days import timestamps_as_days
from core.sql.repair.filters._flags import flags_as_filters
from core.sql.repair.filters._kinds import dates_on_date_columns, words_on_text_columns
from core.sql.repair.filters._held_values import values_as_held
from core.sql.repair.filters._siblings import second_on_sibling
from core.sql.repair.filters._vacuous import never_true, one_value_twice_per_row

__all__ = ["anti_joins", "dates_on_date_columns", "flags_as_filters", "never_true", "one_value_twice_per_row", "second_on_sibling", "timestamps_as_days", "values_as_held", "words_on_text_columns"]
