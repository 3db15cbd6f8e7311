"""A NATURAL JOIN on more than the tables' key, joined on the key.

``NATURAL JOIN`` joins on every column name the two sides share. Models write it for the key join ("authors with
their papers"), but tables often share more than their key — ``name``, ``created_at``, ``status`` — and then the
join also asks those to be equal, which keeps almost no pair of rows: an answer to another question, with no error.
Where the schema's one key between the two sides (declared or inferred) is not what the shared names join on —
they hold it and more, or not its names at all (``salespersons.id`` = ``sales.id`` where sales points to its
salesperson by ``salesperson_id``) — or, with no such key, the shared names hold one column that identifies or
names a row of either table (never a bare ``id``) and more, the join is written ``ON`` that key. The change is a
reading of what the model meant, so it is a guess (``GUESSED``): the model sees it first. A NATURAL JOIN that
shares exactly the key, or nothing, or with two keys or a key of several columns between the tables, is left as
written; so is any under ``SELECT *`` (the columns it shows would change), or where a shared name is read bare
(``ON`` would make it ambiguous).
"""

from __future__ import annotations

from sqlglot import exp

from core.schema import Schema
from core.sql.repair._names import GUESSED, identifier
from core.sql.repair._scope import Source, scope_sources, scopes
from core.sql.repair.joins._keys import _key_of_either, _refers, _relations

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
            if key is None or _composite(new, earlier) or any(
                    not c.table and c.name.lower() in key[3] for c in select.find_all(exp.Column)):
                continue  # a key of several columns; or a shared name read bare, which ON would make ambiguous
            side, left, right, shared = key
            ends = [exp.Column(this=identifier(name, dialect), table=s.key_ident.copy() if s.key_ident
                               else exp.to_identifier(s.key)) for s, name in ((side, left), (new, right))]
            join.set("method", None)
            join.set("on", exp.EQ(this=ends[0], expression=ends[1]))
            fixes.append(f"NATURAL JOIN {new.key} joined on every column the tables share ({', '.join(shared)}); "
                         f"joined on their key {side.key}.{left} = {new.key}.{right}" + GUESSED)


def _the_key(new: Source, earlier: list[Source]) -> tuple[Source, str, str, list[str]] | None:
    """The one key between an earlier source and ``new`` the join should be on — (that source, its column, new's
    column, every name the join shares) —; None where NATURAL JOIN already joins on exactly it, or nothing settles
    one. The schema's keys decide (declared or inferred): the one between the tables, when the join shares more
    names than it or not its names at all (``salespersons.id`` with ``sales.id``, where sales points to salespersons
    by ``salesperson_id``); without one, the one shared name that identifies or names a row of either table, never
    a bare ``id``, when the join shares more than it."""
    mine = {c.name.lower() for c in new.table.columns}  # type: ignore[union-attr]
    shared = list(dict.fromkeys(c.name.lower() for s in earlier for c in s.table.columns  # type: ignore[union-attr]
                                if c.name.lower() in mine))
    if not shared:
        return None  # a cross join as written; the join checks say so
    related = [(src, a.lower(), b.lower()) for src in earlier
               for a, b in _relations(src.table, new.table)]  # type: ignore[arg-type]
    if len(related) == 1:
        src, a, b = related[0]
        if a == b and shared == [a]:
            return None  # exactly the key join
        return src, _spelled(src, a), _spelled(new, b), shared
    if related or len(shared) < 2:
        return None
    found = [(src, name) for src in earlier for name in shared if name != "id"
             and name in {c.name.lower() for c in src.table.columns}  # type: ignore[union-attr]
             and _key_of_either(name, src.table, new.table)]  # type: ignore[arg-type]
    if len(found) != 1:
        return None
    src, name = found[0]
    return src, _spelled(src, name), _spelled(new, name), shared


def _composite(new: Source, earlier: list[Source]) -> bool:
    """Whether a key of several columns relates ``new`` and an earlier table (``(doc_id, version)``): the join is on
    all of them, which one column does not say."""
    return any(len(fk.columns) > 1 and _refers(fk.ref_table, b.table) for src in earlier  # type: ignore[arg-type]
               for a, b in ((src, new), (new, src)) for fk in a.table.foreign_keys)  # type: ignore[union-attr]


def _spelled(src: Source, name: str) -> str:
    return next(c.name for c in src.table.columns if c.name.lower() == name)  # type: ignore[union-attr]
