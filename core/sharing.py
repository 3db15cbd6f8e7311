"""What one answered question hands to ``InsightSharing.share``: the glue between an Answer and core.insights.

It sits at the composition layer because it reads the pipeline's schema, the person's memories and the hidden
columns, none of which core.insights may import. It decides nothing about redaction — core.insights does that
by code — it only makes sure every value that must never leave the machine is named to it: the answer's SQL
and rows (there already), the values of hidden columns when an answer happens to show one, the person's name,
and the values the memories applied to this answer put into its SQL (a standing filter's "India").

Nothing here ever touches the SQL prompt: shared text goes to people (the window, ``cairn ask --json``) only.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.answer import Answer
from core.schema import Schema

__all__ = ["ShareInputs", "applied_memories", "hidden_names", "memory_values", "share_inputs", "suggestion_json",
           "tables_used"]

logger = logging.getLogger(__name__)

# Memory form fields that hold values of the data (docs/memory_forms.md); sort, limit and display hold none.
_VALUE_FIELDS = ("value", "values", "unknown_values", "start", "end")


@dataclass(frozen=True)
class ShareInputs:
    """The keyword arguments of ``InsightSharing.share`` for one answer (``llm`` aside)."""

    question: str
    sql: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    schema: Mapping[str, tuple[str, ...]]
    hidden_values: tuple[Any, ...]
    private_words: tuple[str, ...]
    dialect: str | None
    hidden_names: tuple[str, ...] = ()

    def kwargs(self) -> dict[str, Any]:
        return {"question": self.question, "sql": self.sql, "columns": self.columns, "rows": self.rows,
                "schema": dict(self.schema), "hidden_values": self.hidden_values,
                "private_words": self.private_words, "dialect": self.dialect, "hidden_names": self.hidden_names}


def share_inputs(answer: Answer, schema: Schema, *, question: str | None = None, hidden: Iterable[str] = (),
                 user: str | None = None, memories: Iterable[Any] = ()) -> ShareInputs | None:
    """What to share for ``answer`` (None: an answer without rows from SQL has nothing to share).

    ``schema``: the pipeline's schema (hidden names already out); ``hidden``: the connection's hidden
    ``table`` / ``table.column`` names; ``memories``: the Memory objects applied to the answer."""
    if not answer.ok or not answer.sql:
        return None
    used = tables_used(answer.sql, schema.dialect)
    tables = {t.qualified_name: tuple(c.name for c in t.columns) for t in schema.tables
              if t.qualified_name.casefold() in used or t.name.casefold() in used}
    private = [user.strip()] if user and user.strip() else []
    for memory in memories:
        private.extend(memory_values(memory, schema.dialect))
    hidden = list(hidden)
    names = hidden_names(hidden, schema)
    columns = tuple(f"column_{i}" if c.casefold() in names else c for i, c in enumerate(answer.columns, 1))
    return ShareInputs(
        question=question if question is not None else answer.question, sql=answer.sql,
        columns=columns, rows=tuple(tuple(r) for r in answer.rows), schema=tables,
        hidden_values=tuple(_hidden_values(answer, used, hidden)),
        private_words=tuple(dict.fromkeys(p for p in private if p)), dialect=schema.dialect,
        hidden_names=tuple(sorted(names)))


def hidden_names(hidden: Iterable[str], schema: Schema) -> set[str]:
    """The folded names of hidden tables and columns that are no name of ``schema`` (the pipeline's, hidden names
    already out): a shared summary must not hold them, nor a result column carry one to the summary's model."""
    shown = {n.casefold() for t in schema.tables for n in (t.name, t.qualified_name, *t.column_names)}
    return {part for name in hidden for part in [name.casefold().rpartition(".")[2]] if part and part not in shown}


def tables_used(sql: str, dialect: str | None) -> set[str]:
    """The folded names (bare and qualified) of the tables ``sql`` reads; empty when it does not parse."""
    try:
        import sqlglot
        from sqlglot import exp

        names: set[str] = set()
        for tree in sqlglot.parse(sql, read=dialect):
            if tree is None:
                continue
            for table in tree.find_all(exp.Table):
                if not table.name:
                    continue
                names.add(table.name.casefold())
                if table.db:
                    names.add(f"{table.db}.{table.name}".casefold())
        return names
    except Exception:  # noqa: BLE001 - SQL that ran but sqlglot cannot read: no entity can be proven
        logger.debug("tables of the SQL not read", exc_info=True)
        return set()


def memory_values(memory: Any, dialect: str | None = None) -> list[str]:
    """The values a memory puts into SQL — its filter values and window bounds, the literals of its ``sql``."""
    form = getattr(memory, "structured", None)
    if not isinstance(form, Mapping):
        return []
    out: list[str] = []
    for key in _VALUE_FIELDS:
        value = form.get(key)
        items = value if isinstance(value, (list, tuple)) else [value]
        out.extend(str(v) for v in items if v is not None and not isinstance(v, (bool, dict)) and str(v).strip())
    sql = form.get("sql")
    if isinstance(sql, str) and sql.strip():
        from core.insights import collect_literals

        for lit in collect_literals(question="", sql=sql, dialect=dialect).items:
            whole = lit.number is not None and lit.number.is_integer()
            out.append(str(int(lit.number)) if whole else lit.text)  # type: ignore[arg-type]
    return out


def _hidden_values(answer: Answer, used: set[str], hidden: Iterable[str]) -> list[Any]:
    """Values of hidden columns the rows happen to hold (hand-written SQL can show one); normally none."""
    hidden_columns: set[str] = set()
    for name in hidden:
        table, _, column = name.casefold().rpartition(".")
        if table and (table in used or table.rpartition(".")[2] in used):
            hidden_columns.add(column)
    positions = [i for i, c in enumerate(answer.columns) if c.casefold() in hidden_columns]
    return [row[i] for row in answer.rows for i in positions if i < len(row) and row[i] is not None]


def suggestion_json(suggestion: Any) -> dict[str, Any]:
    """One suggestion as ``cairn ask --json`` prints it."""
    return {"text": suggestion.text, "record_id": suggestion.record_id, "agent_id": suggestion.agent_id,
            "author": suggestion.author, "db_kind": suggestion.db_kind,
            "similarity": round(float(suggestion.similarity), 4)}


def applied_memories(store: Any, user: str | None, answer: Answer) -> Sequence[Any]:
    """The Memory objects behind ``answer.memories`` (the chips), read from ``store``; none without a user."""
    ids = {m.id for m in answer.memories}
    if not user or not ids:
        return []
    return [m for m in store.list(user) if m.id in ids]  # a store that is down raises: nothing is shared then
