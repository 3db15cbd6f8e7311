"""A NATURAL JOIN on more than the tables' key, joined on the key.

``NATURAL JOIN`` joins on every column name the two sides share. Models write it for the key join ("authors with
their papers"), but tables often share more than their key — ``name``, ``created_at``, ``status`` — and then the
join also asks those to be equal, which keeps almost no pair of rows: an answer to another question, with no error.
Where the shared names hold exactly one key between the two sides (a declared or inferred key of the schema, or a
column that identifies or names a row of one of them) and something else besides, the join is written ``ON`` that
key. The change is a reading of what the model meant, so it is a guess (``GUESSED``): the model sees it first. A
NATURAL JOIN that shares only the key, or no key, or two, is left as written; so is any under ``SELECT *`` (the
columns it shows would change).
"""

from __future__ import annotations

from sqlglot import exp

from core.schema import Schema
from core.sql.repair._names import GUESSED, identifier
from core.sql.repair._scope import Source, scope_sources, scopes
from core.sql.repair.joins._keys import _key_of_either, _relations

__all__ = ["natural_joins"]


def natural_joins(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str]) -> None:
    """Each NATURAL JOIN of ``tree`` that shares more than one key column with what comes before it, joined ON
    that key (see the module docstring); a note for each in ``fixes``."""
    for scope in scopes(tree):
        select = scope.expression
        if not isinstance(select, exp.Select) or any(
                isinstance(p, exp.Star) or isinstance(p, exp.Column) and isinstance(p.this, exp.Star)
                for p in select.expressions):
            continue
        sources = scope_sources(scope, schema, dialect)
        for join in select.args.get("joins") or ():
            if str(join.args.get("method") or "").upper() != "NATURAL":
                continue
            new = next((s for s in sources if s.node is join.this), None)
            earlier = [s for s in sources if new is not None and s.order < new.order]
            if new is None or new.table is None or not earlier or any(s.table is None for s in earlier):
                continue
            key = _the_key(new, earlier)
            if key is None:
                continue
            side, name, shared = key
            ends = [exp.Column(this=identifier(_spelled(s, name), dialect), table=s.key_ident.copy() if s.key_ident
                               else exp.to_identifier(s.key)) for s in (side, new)]
            join.set("method", None)
            join.set("on", exp.EQ(this=ends[0], expression=ends[1]))
            fixes.append(f"NATURAL JOIN {new.key} joined on every column the tables share ({', '.join(shared)}); "
                         f"joined on their key {side.key}.{name} = {new.key}.{name}" + GUESSED)


def _the_key(new: Source, earlier: list[Source]) -> tuple[Source, str, list[str]] | None:
    """The one earlier source and shared column name that is a key between it and ``new``, with every name the join
    shares; None unless the join shares that key and more."""
    mine = {c.name.lower() for c in new.table.columns}  # type: ignore[union-attr]
    shared = [name for s in earlier for name in (c.name for c in s.table.columns)  # type: ignore[union-attr]
              if name.lower() in mine]
    shared = list(dict.fromkeys(n.lower() for n in shared))
    if len(shared) < 2:
        return None
    found: list[tuple[Source, str]] = []
    for src in earlier:
        names = {c.name.lower() for c in src.table.columns}  # type: ignore[union-attr]
        related = {a.lower() for a, b in _relations(src.table, new.table) if a.lower() == b.lower()}  # type: ignore[arg-type]
        for name in shared:
            if name in names and (name in related or _key_of_either(name, src.table, new.table)):  # type: ignore[arg-type]
                found.append((src, name))
    if len({name for _, name in found}) != 1 or len(found) != 1:
        return None
    return found[0][0], found[0][1], shared


def _spelled(src: Source, name: str) -> str:
    return next(c.name for c in src.table.columns if c.name.lower() == name)  # type: ignore[union-attr]
