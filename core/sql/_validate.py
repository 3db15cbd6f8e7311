"""Validate model-written SQL against the real schema and repair the faults small models make, before any retry.

Passes, each in place on a copy of the query: table names (``sql_repair_tables``), column names and
identifier case/quoting (``sql_repair_columns``), missing GROUP BY columns (``sql_repair_groupby``), and
joins that contribute nothing (``sql_repair_joins``). Every change is listed in ``Validated.fixes``; a query
that needs none comes back as it was. A name that cannot be repaired with confidence raises
:class:`SQLValidationError` naming it and its closest candidates.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace

import sqlglot
from sqlglot import exp

from core.dialects import dialect_info
from core.errors import SQLValidationError
from core.schema import Schema
from core.sql.repair import (Meaning, Named, assigned_aliases, compare_text_numbers, repair_alias_clashes, repair_columns,
                              repair_concat, unqualified_output_names)
from core.sql._guard import GuardedSQL, guard
from core.sql._slips import PARSE_FAILURES
from core.sql.written import names_joined
from core.sql.repair import (GROUP_BY_FIX, anti_joins, constant_counts, counts_by_max_key, counts_for_lists,
                              dead_sort_keys, filters_in_aggregates, flags_as_filters, flipped_latest,
                              inverted_counts, labels_as_stored, limits_before_order, nth_as_top, numbers_as_numbers,
                              positions_from_zero, distinct_sorted_apart, keys_joined_with_and,
                              repair_group_by, threshold_as_top, unasked_breakdowns, unasked_partitions,
                              unasked_ranks, unasked_windows, values_as_held, window_orders, zero_based_ranks)
from core.sql.repair import (JoinMatches, bridged_joins, date_arithmetic, join_forgotten, quote_keywords,
                              repair_join_keys, strip_joins, unquoted_dates)
from core.sql.repair import (bare_intervals, conditions_distributed, joins_in_order, one_value_twice_per_row,
                              outer_join_conditions, output_names_in_expressions, quoted_columns, rounded_doubles,
                              second_on_sibling, stray_joins, timestamps_as_days)
from core.sql.repair import (dates_on_date_columns, empty_as_null, natural_joins, orm_idioms, repair_tables,
                              typed_idioms, words_on_text_columns)

__all__ = ["Validated", "schema_mapping", "validate", "validate_sql"]

logger = logging.getLogger(__name__)



@dataclass(frozen=True)
class Validated:
    sql: str  # the query to run, in the target dialect
    expression: exp.Expression
    fixes: tuple[str, ...]  # human-readable notes, e.g. "column full_name -> name"
    # Do no harm: a repair that changes a query the database may already run (SQLite runs a SELECT whose column
    # is neither grouped nor aggregated, taking one row's value) is applied only when it keeps the rows. When
    # there is one, ``as_written`` is the query with every other repair but not it; the caller runs both and
    # keeps the repair only if the rows are the same (or the query as written fails).
    as_written: Validated | None = None
    unproven: tuple[str, ...] = ()  # the fixes missing from ``as_written``
    # The GROUP BY was completed on a query that had none (``SELECT grade, COUNT(*) FROM t``): standard SQL rejects
    # it, SQLite answers one arbitrary row. Which was meant is the question's to say (see ``AskPipeline._check``).
    ungrouped: bool = False


def schema_mapping(schema: Schema) -> dict[str, object]:
    """sqlglot ``MappingSchema``-style nesting of column types: ``{table: {col: type}}``, or
    ``{namespace: {table: {col: type}}}`` when any table lives in a PostgreSQL namespace."""
    namespaced = any(t.schema is not None for t in schema.tables)
    out: dict[str, object] = {}
    for table in schema.tables:
        columns = {c.name: c.type or "unknown" for c in table.columns}
        if namespaced:
            bucket = out.setdefault(table.schema or "public", {})
            assert isinstance(bucket, dict)
            bucket.setdefault(table.name, columns)
        else:
            out.setdefault(table.name, columns)
    return out


def validate(expression: exp.Expression, schema: Schema, dialect: str, *,
             join_matches: JoinMatches | None = None, meaning: Meaning | None = None,
             named: Named | None = None, question: str = "") -> Validated:
    """Check every table and column of ``expression`` against ``schema`` and repair what is surely meant.

    ``expression`` is not changed. Raises :class:`SQLValidationError` when a name cannot be repaired.
    ``join_matches`` runs the bounded queries some join repairs need on a lenient database (see ``repair.joins``);
    ``meaning`` says how close in meaning names are (a sentence encoder), for a synonym no spelling rule reads;
    ``named`` gives the column the question's words name for a name a table lacks (taken as a guess); ``question``
    says whether a label folded to one case was asked so (``labels_as_stored``, with ``join_matches``' probe).
    """
    if dialect_info(dialect) is None:
        raise SQLValidationError(f"Unsupported SQL dialect {dialect!r}: a backend must use a dialect of core.dialects")
    _no_placeholders(expression)
    repaired = _validate(expression, schema, dialect, complete_groups=True, join_matches=join_matches,
                         meaning=meaning, named=named, question=question)
    grouped = tuple(f for f in repaired.fixes if f.endswith(GROUP_BY_FIX))
    if dialect != "sqlite" or not grouped:
        return repaired  # PostgreSQL rejects an ungrouped column: completing GROUP BY changes no running query
    # An aggregate beside bare columns with no GROUP BY at all (``SELECT grade, COUNT(*) FROM t``) is an error in
    # standard SQL (PostgreSQL says so); SQLite answers with one arbitrary row. The completion is taken when the
    # question names the columns it splits by, else the caller weighs both (the lone MIN/MAX idiom is left alone by
    # the repair).
    ungrouped = not _had_group_where_added(expression, repaired.expression)
    as_written = _validate(expression, schema, dialect, complete_groups=False, join_matches=join_matches,
                           meaning=meaning, named=named, question=question)
    return Validated(repaired.sql, repaired.expression, repaired.fixes, as_written=as_written, unproven=grouped,
                     ungrouped=ungrouped)


def _no_placeholders(expression: exp.Expression) -> None:
    """A parameter where a value belongs (``= ?``, ``= :year``, ``= %s``, ``= $1``, ``= {year}``) runs with no value
    or not at all: refused, with what to write instead (the model's repair round sees it). A quoted ``'<city>'`` is
    a value: data holds ``'<unk>'`` and ``'{name}'`` too."""
    for node in expression.find_all(exp.Placeholder, exp.Parameter, exp.Struct, exp.Column):
        if isinstance(node, exp.Column) and not (node.name[:1] in "$@:" and not node.args["this"].quoted):
            continue  # SQLite reads ``$make`` as a name: it is its parameter syntax
        if isinstance(node, exp.Struct) and not (len(node.expressions) == 1 and isinstance(
                node.expressions[0], exp.Column)):
            continue  # a real struct, not ``{year}``
        raise SQLValidationError(
            f"the query has a parameter placeholder ({node.sql()}) where a value must be written; write the value "
            "the question gives into the SQL itself (Cairn runs the query as it is, with no parameters)",
            hint="Ask again, giving the value in the question (a name, a date, a number).")


def _had_group_where_added(before: exp.Expression, after: exp.Expression) -> bool:
    """Whether a SELECT the GROUP BY repair touched had a GROUP BY already (the repairs add or remove no SELECT,
    so the two trees' SELECTs pair up in order)."""
    olds, news = list(before.find_all(exp.Select)), list(after.find_all(exp.Select))
    if len(olds) != len(news):
        return True  # cannot pair them up: treat as the cautious case
    return any(old.args.get("group") is not None and new.args.get("group") is not None
               and len(new.args["group"].expressions) > len(old.args["group"].expressions)
               for old, new in zip(olds, news, strict=True))


def _validate(expression: exp.Expression, schema: Schema, dialect: str, *, complete_groups: bool,
              join_matches: JoinMatches | None = None, meaning: Meaning | None = None,
              named: Named | None = None, question: str = "") -> Validated:
    tree = expression.copy()
    fixes: list[str] = []
    try:
        repair_alias_clashes(tree, schema, dialect, fixes)
        repair_tables(tree, schema, dialect, fixes, meaning)
        positions_from_zero(tree, dialect, fixes)
        keys_joined_with_and(tree, schema, dialect, fixes)
        conditions_distributed(tree, fixes)
        outer_join_conditions(tree, fixes)
        joins_in_order(tree, fixes)
        orm_idioms(tree, schema, dialect, fixes)
        unqualified_output_names(tree, schema, fixes)
        output_names_in_expressions(tree, schema, dialect, fixes)
        assigned_aliases(tree, schema, dialect, fixes)
        quoted_columns(tree, schema, dialect, fixes)
        join_forgotten(tree, schema, dialect, fixes)
        natural_joins(tree, schema, dialect, fixes)
        stray_joins(tree, schema, dialect, fixes, question)
        repair_join_keys(tree, schema, dialect, fixes, join_matches)
        bridged_joins(tree, schema, dialect, fixes)
        repair_columns(tree, schema, dialect, fixes, meaning, named)
        unquoted_dates(tree, schema, dialect, fixes, join_matches)
        date_arithmetic(tree, schema, dialect, fixes)
        bare_intervals(tree, dialect, fixes, question)
        dates_on_date_columns(tree, schema, dialect, fixes)
        words_on_text_columns(tree, schema, dialect, fixes)
        repair_concat(tree, schema, dialect, fixes)
        compare_text_numbers(tree, schema, dialect, fixes)
        typed_idioms(tree, schema, dialect, fixes)
        empty_as_null(tree, schema, dialect, fixes)
        second_on_sibling(tree, schema, dialect, fixes, question)
        one_value_twice_per_row(tree, dialect, fixes)  # after the sibling's reading, which needs the question
        values_as_held(tree, schema, dialect, fixes, join_matches, question)
        timestamps_as_days(tree, schema, dialect, fixes, join_matches, question)
        anti_joins(tree, schema, dialect, fixes)
        if complete_groups:
            repair_group_by(tree, schema, dialect, fixes)
        labels_as_stored(tree, schema, dialect, fixes, join_matches, question)
        distinct_sorted_apart(tree, dialect, fixes)
        dead_sort_keys(tree, dialect, fixes, question)
        limits_before_order(tree, dialect, fixes, question)
        unasked_windows(tree, dialect, fixes, question)
        zero_based_ranks(tree, dialect, fixes)
        window_orders(tree, schema, dialect, fixes, question)
        flipped_latest(tree, schema, dialect, fixes, question)
        counts_for_lists(tree, dialect, fixes, question)
        counts_by_max_key(tree, dialect, fixes, question)
        unasked_breakdowns(tree, schema, dialect, fixes, question)
        inverted_counts(tree, schema, dialect, fixes, question)
        constant_counts(tree, schema, dialect, fixes, question)
        unasked_partitions(tree, schema, dialect, fixes, question, join_matches)
        unasked_ranks(tree, dialect, fixes, question)
        nth_as_top(tree, dialect, fixes, question)
        threshold_as_top(tree, dialect, fixes, question)
        flags_as_filters(tree, dialect, fixes, question)
        filters_in_aggregates(tree, dialect, fixes, question)
        numbers_as_numbers(tree, dialect, fixes, question)
        rounded_doubles(tree, dialect, fixes, question)
        strip_joins(tree, schema, dialect, fixes)
        quote_keywords(tree, dialect)
        sql = tree.sql(dialect=dialect)
    except SQLValidationError:
        raise
    except (*PARSE_FAILURES, RecursionError) as exc:
        # The repairs must never turn a query the database might accept into a crash: keep it as written.
        logger.warning("SQL repair failed internally (%s); keeping the query as written", exc, exc_info=True)
        tree = expression.copy()
        fixes = []
        try:
            sql = tree.sql(dialect=dialect)
        except PARSE_FAILURES as gen_exc:
            raise SQLValidationError(f"Cannot write the query back as SQL: {gen_exc}") from gen_exc
    fixes = list(dict.fromkeys(fixes))  # the same repair at several places is one note
    if fixes:
        logger.info("repaired SQL: %s", "; ".join(fixes))
    return Validated(sql=sql, expression=tree, fixes=tuple(fixes))


def guard_named(sql: str, schema: Schema) -> GuardedSQL:
    """:func:`guard` for ``schema``'s dialect, with a column name broken by a space written whole first (``paper.pap
    erid``: the two pieces together, and neither apart, a column of the schema; never inside quotes)."""
    joined = names_joined(sql, schema.column_names)
    guarded = guard(joined, schema.dialect)
    if joined == sql:
        return guarded
    said = "a name broken by a space written whole"
    return replace(guarded, mended="; ".join(filter(None, [said, guarded.mended])))


def validate_sql(sql: str, schema: Schema, dialect: str) -> Validated:
    """Parse ``sql`` (one statement) and :func:`validate` it; a convenience for tests and tools."""
    try:
        expression = sqlglot.parse_one(sql, read=dialect)
    except PARSE_FAILURES as exc:
        raise SQLValidationError(f"Cannot parse the SQL: {exc}") from exc
    return validate(expression, schema, dialect)
