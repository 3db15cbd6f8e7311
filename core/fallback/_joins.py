"""How the fallback reaches a second table: only along one declared foreign key, never by guessing a join."""

from __future__ import annotations

import logging

from core.fallback._model import ColRef, Condition, Group, Link, Measure, PerEntity, Refusal
from core.fallback._text import is_text_type, split_name, stem
from core.schema import Column, ForeignKey, Schema, Table

__all__ = ["links_for", "per_entity", "table_key"]

logger = logging.getLogger(__name__)

_LABEL_WORDS = ("name", "title")


def table_key(t: Table) -> str:
    return t.qualified_name.lower()


def _fks_between(schema: Schema, child: Table, parent: Table) -> list[ForeignKey]:
    return [fk for fk in child.foreign_keys if (r := schema.table(fk.ref_table)) and table_key(r) == table_key(parent)]


def links_for(
    schema: Schema,
    target: Table,
    mentioned: dict[str, Table],
    conditions: list[Condition],
    groups: list[Group],
    projection: list[ColRef],
    measures: list[Measure],
    negated: frozenset[str] = frozenset(),
    skip: str | None = None,
) -> list[Link]:
    """One foreign key between the target and each other table, or Refusal.

    ``negated`` tables must have no related rows (NOT EXISTS); ``skip`` is a per-entity table handled apart.
    """
    shown = {table_key(c.table) for c in projection} | {table_key(g.col.table) for g in groups}
    shown |= {table_key(m.col.table) for m in measures if m.col}
    filtered = {table_key(c.col.table) for c in conditions}
    others: dict[str, Table] = dict(mentioned)
    for c in [*projection, *(g.col for g in groups), *(m.col for m in measures if m.col),
              *(c.col for c in conditions)]:  # fmt: skip
        others[table_key(c.table)] = c.table
    others.pop(table_key(target), None)
    if skip is not None:
        others.pop(skip, None)
    if negated - set(others):
        raise Refusal("'without' names the table being asked about")
    links: list[Link] = []
    for key, t in others.items():
        out = _fks_between(schema, target, t)
        inc = _fks_between(schema, t, target)
        if len(out) + len(inc) != 1:
            raise Refusal(f"no single foreign key between {target.name} and {t.name}")
        if out:
            if key in negated:
                raise Refusal(f"'without {t.name}' where each {target.name} has one {t.name}")
            if not t.is_unique(out[0].ref_columns):
                raise Refusal(f"{t.name}.{','.join(out[0].ref_columns)} is not unique")
            if key in shown or key in filtered:
                links.append(Link(t, "join", out[0]))
            # a table only named ("orders that customers placed") needs no join
        else:
            if key in shown:
                raise Refusal(f"showing {t.name} columns per {target.name} would repeat rows")
            links.append(Link(t, "not_exists" if key in negated else "exists", inc[0]))
    return links


def _labels(t: Table, keys: tuple[str, ...]) -> tuple[Column, ...]:
    """A readable name for a row: ``name``/``title``/``<table>_name``, else up to two ``*_name`` columns."""
    own = [stem(w) for w in split_name(t.name)]
    cands = [
        c for c in t.columns
        if c.name not in keys and is_text_type(c.type) and split_name(c.name)[-1:] in ([w] for w in _LABEL_WORDS)
    ]  # fmt: skip
    exact = [c for c in cands if split_name(c.name) in (["name"], ["title"]) or
             [stem(w) for w in split_name(c.name)[:-1]] == own[-1:]]  # fmt: skip
    if exact:
        return (exact[0],)
    return tuple(cands) if len(cands) <= 2 else ()


def per_entity(schema: Schema, target: Table, table: Table) -> PerEntity:
    """``target`` aggregated per row of ``table``, which it must reference along exactly one foreign key."""
    if table_key(table) == table_key(target):
        raise Refusal(f"{target.name} per {target.name}")
    fks = _fks_between(schema, target, table)
    if len(fks) != 1 or _fks_between(schema, table, target):
        raise Refusal(f"no single foreign key from {target.name} to {table.name}")
    if not table.is_unique(fks[0].ref_columns):
        raise Refusal(f"{table.name}.{','.join(fks[0].ref_columns)} is not unique")
    return PerEntity(table, fks[0], _labels(table, fks[0].ref_columns))
