"""Bounded evidence about an answer that ran: what could make it wrong, measured, with the other query.

Each check finds a construct that may not mean what the question says, runs the query without it (one more
bounded query under the guard), and when the rows differ says how ("4 instead of 3") and offers the other query
(``Answer.alternatives``). Nothing is changed on a guess: the person decides, and the model, shown the finding,
may rewrite its query (``AskPipeline._review``).

- ``_readings`` (before the answer): a syntax slip with two or three readings, taken only when all give the same
  rows;
- ``_joins``: an inner join that adds no column but drops or multiplies rows; a join on columns the schema does not
  relate between tables it relates by a key; a join Cairn put back (the model read a table it never joined), kept
  as LEFT JOIN; rows without a match asked for with an inner join (never any), or shown by the side that has no
  match (NULL on every row), or asked for ("not", "without") with a LEFT JOIN that tests nothing (every row kept);
  a join on either of two keys of one table (``ON u.uid = t.sender_id OR u.uid = t.receiver_id``), each key alone;
- ``_groups``: an aggregate beside bare columns with no GROUP BY as written (one total, or one row per value); a
  count of the group's own key, ``COUNT(DISTINCT k) … GROUP BY k`` (1 in every group: each group's rows offered); a
  GROUP BY of the key of the table whose columns are aggregated (one row per group); a column shown but neither
  grouped nor aggregated that Cairn grouped by too (the model's own GROUP BY offered); a GROUP BY column not
  shown, not a key, that splits the rows shown (one label on several rows);
- ``_labels``: rows that do not say what they are about (a grouped query showing only its aggregates, a ranking
  showing only numbers of the table the question names), a GROUP BY computing nothing where a measure is asked, and
  a row of totals added under the groups by UNION ALL;
- ``_arithmetic``: a division of whole numbers that drops the fraction, a COUNT that counts the non-matches; each value
  rounded before a SUM or AVG adds them up; a ratio the question asks for where nothing is divided (a note); on
  SQLite an order or extreme of a text column holding numbers ('9' after '100');
- ``_duplicates``: rows, keys or namesakes a join repeats or merges (DISTINCT, COUNT(DISTINCT key), GROUP BY key);
  and what the query writes twice where two things were likely meant (one value under two names, one condition
  twice, a range from a value to itself): doubts, said, with nothing offered — the model is asked once;
- ``_values``: a text filter whose value the column spells otherwise ('Paid' where the data holds 'paid'), a
  comparison with NULL that is never true (``x = NULL``), a LIKE pattern with another tool's wildcards (``'*x*'``),
  a formatted date compared with text the format never writes
  (``strftime('%Y-%m', d) = '2023'``), a value no row holds that another table's column of that name does (or
  another text column of its table),
  conditions that contradict each other or cover every row;
- ``_aliases``: an aggregate its own alias names otherwise (``COUNT(price) AS total_revenue``);
- ``_question`` (reading the question with ``_asked``; dates in ``_question_dates``): a bound, a count of rows, a
  direction, an aggregate, a DISTINCT, a column, a year or a span back from today that the question's words say
  otherwise than the query ("at least 5" against ``> 5``, "average" against SUM, "the last 30 days" against
  ``'+30 days'``, "between 5 and 20" against ``IN (5, 20)``); values the question quotes or names that the query leaves out or writes otherwise in
  ``_question_values`` (and a value kept out, ``status <> 'failed'``, where the question names the one it asks for).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from core.answer import Alternative
from core.databases import QueryResult
from core.evidence._aliases import alias_evidence
from core.evidence._arithmetic import (count_evidence, division_evidence, order_evidence, reversed_difference_evidence,
                                      self_ratio_evidence)
from core.evidence._common import Execute, difference, offer, other_rows
from core.evidence._duplicates import copy_doubts, duplicate_evidence
from core.evidence._groups import (completion_evidence, extended_group_evidence, extreme_group_evidence, rank_evidence,
                                   hidden_group_evidence, key_group_evidence, splits_asked,
                                   constant_count_evidence)
from core.evidence._labels import (counted_entity_evidence, dropped_measure_evidence, total_row_evidence,
                                  unlabelled_rows_evidence)
from core.evidence._joins import (added_join_evidence, anti_join_evidence, either_key_evidence, join_evidence,
                                  join_key_evidence, left_join_filter_evidence, shared_column_evidence,
                                  unmatched_evidence)
from core.evidence._question import question_evidence
from core.evidence._question_values import position_evidence
from core.evidence._question_filters import column_named, date_column_named
from core.evidence._question_columns import a_look, answering_query
from core.evidence._readings import agreeing_reading
from core.evidence._values import (contradiction_evidence, elsewhere_evidence, format_evidence, null_evidence,
                                  value_evidence, wildcard_evidence)
from core.schema import Schema

__all__ = ["AS_WRITTEN", "Checked", "added_join_evidence", "agreeing_reading", "alias_evidence", "answering_query", "anti_join_evidence", "check_answer", "column_named", "contradiction_evidence", "date_column_named", "elsewhere_evidence", "completion_evidence", "extended_group_evidence", "extreme_group_evidence", "count_evidence", "hidden_group_evidence", "division_evidence", "dropped_measure_evidence", "unlabelled_rows_evidence", "counted_entity_evidence", "reversed_difference_evidence",
           "duplicate_evidence", "format_evidence",
           "constant_count_evidence", "join_evidence", "join_key_evidence", "key_group_evidence", "null_evidence", "order_evidence", "question_evidence", "rank_evidence",
           "splits_asked", "unmatched_evidence", "value_evidence"]


class Checked(NamedTuple):
    """What the checks found about an answer: notes to show, other queries to offer, and the notes among them that
    doubt the query without another to offer (the model is asked once about those too)."""

    notes: list[str]
    alternatives: list[Alternative]
    doubts: list[str]


AS_WRITTEN = "As the model wrote it"  # the query before Cairn's guesses: offered, never a reason to ask the model again


def _same_words(sql: str, flat: str) -> bool:
    return bool(flat) and " ".join(sql.strip().rstrip(";").split()) == flat.rstrip(";").rstrip()


def check_answer(question: str, sql: str, result: QueryResult, schema: Schema, execute: Execute,
                 written: str | None = None, others: Sequence[str] = (), context: str = "",
                 guessed: Sequence[str] = ()) -> Checked:
    """Notes and alternatives of every check, the joins' first, and the notes that doubt the query with nothing to
    offer (``Checked.doubts``, ``copy_doubts``); ``written`` is the query before Cairn's repairs,
    ``others`` the other queries of the model's reply (offered when their rows differ), ``context`` what else the
    model was shown (memory, the conversation), ``guessed`` the repairs taken that were guesses (the query as
    written offered beside the answer where it runs and its rows differ)."""
    doubts = copy_doubts(sql, schema)
    notes, alternatives = join_evidence(question, sql, result, schema, execute)
    if guessed and written:
        found = offer(written, AS_WRITTEN, lambda d: f"Cairn guessed what the model's query meant "
                      f"({'; '.join(guessed)}); as the model wrote it: {d}.", schema,
                      execute, result)
        notes, alternatives = notes + found[0], alternatives + found[1]
    flat = " ".join((written or "").split())  # the same words as the query that ran: the reading of a swallowed note
    for other in [o for o in others if _same_words(o, flat) or not a_look(o, schema.dialect)][:2]:  # a look at
        found = other_rows(other, schema, execute, result)  # the data is no answer
        if found is not None:
            why = (f"A '--' note in the model's reply ran on into a clause, and Cairn read the clause as part of the "
                   f"query; read as written, the note hides it and the query gives "
                   f"{difference(result.rows, found[1].rows)}." if _same_words(other, flat) else
                   f"The model's reply held another query, which gives {difference(result.rows, found[1].rows)}; "
                   "Cairn ran the last one written for this database, unless only another reads what the question "
                   "names.")
            notes.append(why)
            alternatives.append(Alternative("Another query in the model's reply", found[0], why))
    for check in (join_key_evidence(sql, result, schema, execute), shared_column_evidence(question, sql, result, schema, execute),
                  anti_join_evidence(sql, result, schema, execute),
                  left_join_filter_evidence(sql, result, schema, execute),
                  either_key_evidence(question, sql, result, schema, execute),
                  key_group_evidence(sql, result, schema, execute), hidden_group_evidence(sql, result, schema, execute),
                  constant_count_evidence(sql, result, schema, execute),
                  elsewhere_evidence(sql, result, schema, execute), position_evidence(question, sql, result, schema, execute),
                  contradiction_evidence(sql, result, schema, execute),
                  value_evidence(sql, result, schema, execute),
                  null_evidence(sql, result, schema, execute), format_evidence(sql, result, schema, execute),
                  wildcard_evidence(sql, result, schema, execute),
                  alias_evidence(sql, result, schema, execute),
                  order_evidence(sql, result, schema, execute), division_evidence(sql, result, schema, execute),
                  self_ratio_evidence(sql, result, schema, execute),
                  count_evidence(sql, result, schema, execute), duplicate_evidence(sql, result, schema, execute),
                  rank_evidence(sql, result, schema, execute),
                  unlabelled_rows_evidence(question, sql, result, schema, execute),
                  dropped_measure_evidence(question, sql, result, schema, execute),
                  counted_entity_evidence(question, sql, result, schema, execute),
                  total_row_evidence(question, sql, result, schema, execute),
                  reversed_difference_evidence(sql, result, schema, execute),
                  completion_evidence(question, written, sql, result, schema, execute) if written else ([], []),
                  added_join_evidence(written, sql, result, schema, execute) if written else ([], []),
                  extended_group_evidence(question, written, sql, result, schema, execute) if written else ([], []),
                  extreme_group_evidence(question, sql, result, schema, execute),
                  unmatched_evidence(question, sql, result, schema, execute),
                  question_evidence(question, sql, result, schema, execute, context=context, written=written)):
        notes += check[0]
        alternatives += check[1]
    return Checked(*_once(notes + doubts, alternatives), doubts)


def _once(notes: list[str], alternatives: list[Alternative]) -> tuple[list[str], list[Alternative]]:
    """Each other query offered once: two checks that find the same query (a value spelled as the data spells it,
    and as the question writes it) keep the first one's note."""
    kept: list[Alternative] = []
    for alternative in alternatives:
        if any(k.sql == alternative.sql for k in kept):
            notes = [n for n in notes if not n.startswith(alternative.why)]
        else:
            kept.append(alternative)
    return notes, kept
