"""An inner join that adds no column but changes the rows: dropped parents without children, or multiplied ones."""

from __future__ import annotations

from core.answer import Alternative
from core.databases import QueryResult
from core.evidence._common import Execute, difference, other_rows, parse
from core.prompt import tables_called_by_name
from core.schema import Schema
from core.sql import joins_adding_no_column

__all__ = ["join_evidence"]


def join_evidence(question: str, sql: str, result: QueryResult, schema: Schema,
                  execute: Execute) -> tuple[list[str], list[Alternative]]:
    """Notes and alternatives for the joins of ``sql`` that add no column but change its rows. A join to a table
    the question calls by its name ("courses per teacher") is meant: its rows are what is counted."""
    tree = parse(sql, schema.dialect)
    if tree is None or result.truncated:
        return [], []
    notes: list[str] = []
    alternatives: list[Alternative] = []
    named = {t.split(".")[-1].lower() for t in tables_called_by_name(schema, question)}
    for check in joins_adding_no_column(tree, schema, schema.dialect):
        if check.table.split(".")[-1].lower() in named:
            continue
        found = other_rows(check.without, schema, execute, result)
        if found is None:
            continue
        other_sql, other = found
        why = (f"The join to {check.table} adds no column to this answer but changes it: without it, "
               f"{difference(result.rows, other.rows)}.")
        notes.append(why + " See the other query below the answer.")
        alternatives.append(Alternative(f"Without the join to {check.table}", other_sql, why))
    return notes, alternatives
