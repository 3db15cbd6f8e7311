"""Join keys a database does not declare, inferred from naming conventions and checked against its data.

Most SQLite files (and many PostgreSQL databases) declare no foreign keys, so neither the model's schema block nor
the rule-based fallback can see how tables join. A column is taken to reference another table's single-column
primary key when the names say so and the data does not contradict it:

- same name: ``orders.customer_id`` -> ``customers.customer_id`` (not for a key named just ``id``);
- ``<table>_id`` / ``<table>id`` -> ``<table>.id`` (singular or plural table name, any case style);
- the key's last two words end the column's name: ``sbTxCustId`` -> ``sbCustomer.sbCustId``;

exactly one table may match, the types must agree (numbers with numbers, text with text), and a sample of the
column's values (the first :data:`SAMPLE_ROWS` non-null ones) must all exist in the referenced key. A check that
fails or times out drops the candidate. Inferred keys are marked ``inferred=True``: they guide the prompt and the
fallback's joins, but no repair relies on them as a proof.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import replace

from core.schema import Column, ForeignKey, Schema, Table

__all__ = ["SAMPLE_ROWS", "candidate_keys", "with_inferred_keys"]

logger = logging.getLogger(__name__)

SAMPLE_ROWS = 10_000
MAX_CANDIDATES = 200  # a schema with more guesses than this gets none checked beyond it

_WORDS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_NUMERIC = re.compile(r"int|serial|numeric|decimal|real|double|float|number", re.IGNORECASE)


def _words(name: str) -> tuple[str, ...]:
    return tuple(w.lower() for w in _WORDS.findall(name))


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ses", "xes", "ches", "shes")) and len(word) > 4:
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def _kind(col: Column) -> str:
    return "number" if _NUMERIC.search(col.type or "") else "text"


def _declared(table: Table) -> set[str]:
    return {c.lower() for fk in table.foreign_keys for c in fk.columns}


def candidate_keys(schema: Schema) -> list[tuple[Table, Column, Table, Column]]:
    """(table, column, referenced table, its key column) by naming convention, before any data check."""
    keys: dict[str, tuple[Table, Column]] = {}
    for t in schema.tables:
        if len(t.primary_key) == 1:
            col = next((c for c in t.columns if c.name == t.primary_key[0]), None)
            if col is not None:
                keys[t.qualified_name] = (t, col)
    out: list[tuple[Table, Column, Table, Column]] = []
    for table in schema.tables:
        declared = _declared(table)
        for col in table.columns:
            if col.name.lower() in declared or (len(table.primary_key) == 1 and col.name == table.primary_key[0]):
                continue
            cw = _words(col.name)
            matches = []
            for ref, key in keys.values():
                if ref is table or _kind(key) != _kind(col):
                    continue
                kw, tw = _words(key.name), tuple(_singular(w) for w in _words(ref.name))
                same_name = col.name.lower() == key.name.lower() and kw != ("id",)
                table_id = kw == ("id",) and len(cw) >= 2 and cw[-1] == "id" and tuple(
                    _singular(w) for w in cw[:-1]) == tw
                # sbTxCustId -> sbCustomer.sbCustId: the key's last two words end the column's name
                tail = len(kw) >= 2 and kw[-1] == "id" and len(cw) > len(kw) and cw[-2:] == kw[-2:]
                if same_name or table_id or tail:
                    matches.append((ref, key))
            if len(matches) == 1:
                out.append((table, col, *matches[0]))
    return out


def with_inferred_keys(schema: Schema, orphan_found: Callable[[Table, Column, Table, Column], bool]) -> Schema:
    """``schema`` with the candidate keys whose sampled values all exist in the referenced key added as inferred
    foreign keys. ``orphan_found`` runs the check (True: a value without a match, or the check failed)."""
    added: dict[str, list[ForeignKey]] = {}
    for table, col, ref, key in candidate_keys(schema)[:MAX_CANDIDATES]:
        try:
            if orphan_found(table, col, ref, key):
                continue
        except Exception as exc:  # noqa: BLE001 - any failure of a guess only drops the guess
            logger.info("join key %s.%s -> %s not checked: %s", table.name, col.name, ref.name, exc)
            continue
        fk = ForeignKey((col.name,), ref.qualified_name, (key.name,), inferred=True)
        added.setdefault(table.qualified_name, []).append(fk)
    if not added:
        return schema
    logger.info("inferred %d join keys", sum(len(v) for v in added.values()))
    tables = tuple(replace(t, foreign_keys=t.foreign_keys + tuple(added.get(t.qualified_name, ()))) for t in schema.tables)
    return replace(schema, tables=tables)
