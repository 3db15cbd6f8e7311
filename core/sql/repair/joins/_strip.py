"""Strip a JOIN that cannot matter: its table is read nowhere and the join cannot change the row count.

Small models often join a table "just in case". Such a join is removed only when both hold:
- no column, filter, grouping or ordering anywhere in the query reads the joined table (its own ON aside);
- an INNER join goes from a NOT NULL foreign key to the key it references (every row matches exactly once),
  or a LEFT join lands on a primary/unique key (at most one match, and unmatched rows stay).
Anything else (RIGHT/FULL/CROSS/NATURAL/USING joins, extra ON conditions, ``SELECT *``) is never touched.
"""

from __future__ import annotations

import logging

from sqlglot import exp
from sqlglot.optimizer.scope import Scope

from core.schema import Schema
from core.sql.repair._scope import Source, column_sources, find_source, is_within, scope_sources, scopes

__all__ = ["strip_joins"]

logger = logging.getLogger(__name__)


def _read_elsewhere(src: Source, join: exp.Join, here: Scope, all_scopes: list[Scope], sources: dict[int, list[Source]],
                    dialect: str) -> bool:
    """Does any column outside this join's own ON read ``src``?"""
    on = join.args.get("on")
    for scope in all_scopes:
        local = sources[id(scope)]
        for col in (n for n in scope.walk() if isinstance(n, exp.Column)):
            if is_within(col, on):
                continue
            if scope is here:
                owners = column_sources(col, local, dialect)
                if src in owners and not _ambiguous_elsewhere(col, src, owners, here):
                    return True
                continue
            qualifier = col.args.get("table")
            if isinstance(qualifier, exp.Identifier):
                if find_source(qualifier, local) is None and qualifier.this.lower() == src.key.lower():
                    return True
            elif isinstance(col.this, exp.Identifier):
                if not any(s.has(col.this, dialect) for s in local) and src.has(col.this, dialect):
                    return True
    return False


def _ambiguous_elsewhere(col: exp.Column, src: Source, owners: list[Source], scope: Scope) -> bool:
    """An unqualified column that ``src`` shares with an earlier source is ambiguous as written (an error in
    PostgreSQL and SQLite); without the join it reads the earlier source, so it does not keep the join."""
    if isinstance(col.args.get("table"), exp.Identifier) or len(owners) < 2 or any(s.open for s in owners):
        return False
    if any(j.args.get("using") or j.args.get("method") for j in scope.expression.args.get("joins") or []):
        return False
    return min(owners, key=lambda s: s.order) is not src


def _pairs(on: exp.Expression, src: Source, local: list[Source], dialect: str) -> list[tuple[str, exp.Expression]] | None:
    """ON as (column of ``src``, expression not reading ``src``) equalities, or None if it is anything else."""
    conds = list(on.flatten()) if isinstance(on, exp.And) else [on]
    out: list[tuple[str, exp.Expression]] = []
    for cond in conds:
        if isinstance(cond, exp.Paren):
            cond = cond.unnest()
        if not isinstance(cond, exp.EQ):
            return None
        found = None
        for mine, other in ((cond.this, cond.expression), (cond.expression, cond.this)):
            if isinstance(mine, exp.Column) and column_sources(mine, local, dialect) == [src]:
                if all(src not in column_sources(c, local, dialect) for c in other.find_all(exp.Column)):
                    name = src.has(mine.this, dialect)
                    if name is not None:
                        found = (name, other)
                        break
        if found is None:
            return None
        out.append(found)
    return out


def _inner_is_lossless(
    src: Source, pairs: list[tuple[str, exp.Expression]], local: list[Source], joins: list[exp.Join],
    schema: Schema, dialect: str,
) -> bool:
    """Every row of the other side has exactly one partner: a NOT NULL foreign key onto a unique key."""
    assert src.table is not None
    others: set[int] = set()
    mapping: dict[str, str] = {}  # other table's column -> src column
    other: Source | None = None
    for name, expr in pairs:
        if not isinstance(expr, exp.Column):
            return False
        owners = column_sources(expr, local, dialect)
        if len(owners) != 1 or owners[0].table is None:
            return False
        other = owners[0]
        others.add(id(other))
        col = other.has(expr.this, dialect)
        if col is None:
            return False
        mapping[col.lower()] = name.lower()
    if other is None or len(others) != 1 or other.table is None:
        return False
    for join in joins:  # the other side must not be null-extended by a LEFT join
        if join.this is other.node and join.side:
            return False
    if not src.table.is_unique(mapping.values()):
        return False
    for fk in other.table.foreign_keys:
        if fk.inferred:
            continue  # a key the database does not enforce proves nothing about the row count
        ref = schema.table(fk.ref_table)
        if ref is None or ref.qualified_name != src.table.qualified_name:
            continue
        fk_map = {c.lower(): r.lower() for c, r in zip(fk.columns, fk.ref_columns, strict=False)}
        if fk_map != mapping:
            continue
        cols = [other.table.column(c) for c in fk.columns]
        if all(c is not None and not c.nullable for c in cols):
            return True
    return False


def _strip_one(scope: Scope, all_scopes: list[Scope], sources: dict[int, list[Source]], schema: Schema,
               dialect: str, fixes: list[str]) -> bool:
    select = scope.expression
    if not isinstance(select, exp.Select):
        return False
    joins: list[exp.Join] = list(select.args.get("joins") or [])
    if not joins or any(j.side in ("RIGHT", "FULL") for j in joins):
        return False
    if any(isinstance(p, exp.Star) or (isinstance(p, exp.Column) and isinstance(p.this, exp.Star))
           for p in select.expressions):
        return False
    local = sources[id(scope)]
    for join in reversed(joins):
        src = next((s for s in local if s.node is join.this), None)
        if src is None or src.table is None or not isinstance(join.this, exp.Table):
            continue
        if join.args.get("using") or join.args.get("method") or join.args.get("on") is None:
            continue
        kind = (join.kind or "").upper()
        side = (join.side or "").upper()
        if kind not in ("", "INNER", "OUTER") or side not in ("", "LEFT"):
            continue
        if _read_elsewhere(src, join, scope, all_scopes, sources, dialect):
            continue
        pairs = _pairs(join.args["on"], src, local, dialect)
        if not pairs:
            continue
        if side == "LEFT":
            ok = src.table.is_unique(name for name, _ in pairs)
        else:
            ok = kind in ("", "INNER") and _inner_is_lossless(src, pairs, local, joins, schema, dialect)
        if not ok:
            continue
        label = join.this.sql(dialect=dialect)
        join.pop()
        fixes.append(f"removed JOIN {label}: contributes nothing")
        logger.debug("stripped join %s", label)
        return True
    return False


def strip_joins(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str]) -> None:
    """Remove unneeded joins one at a time (removing one may free another), in place."""
    for _ in range(32):
        all_scopes = scopes(tree)
        sources = {id(s): scope_sources(s, schema, dialect) for s in all_scopes}
        if not any(_strip_one(s, all_scopes, sources, schema, dialect, fixes) for s in all_scopes):
            return
