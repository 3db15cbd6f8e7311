"""Inner joins written in an order their conditions cannot be read in: ``FROM cars c JOIN reps r ON r.id = s.rep_id
JOIN sales s ON c.id = s.car_id`` — the first ON reads ``s`` before it is joined (PostgreSQL: "missing FROM-clause
entry for table s"). Inner joins may be taken in any order with the same rows (each ON is a condition on the
combined row), so the joins are put in the first order in which every ON reads only tables already joined, and
nothing else changes. Never where an outer, cross or lateral join stands among them, where the order cannot be
found, or where the joins already read in order.

And inner joins whose conditions were all written after the last one, ``FROM a JOIN b JOIN c ON a.id = b.aid AND b.id =
c.bid`` (PostgreSQL: a JOIN needs its ON): each condition put on the first join after which every table it reads is
joined — the same rows, since inner joins are the cross product filtered by all their conditions wherever they stand.
Only where every condition names its tables, each join then has one, and no outer, cross or lateral join stands
among them.

And an outer join written without its ON and a WHERE for it, ``FROM organization o LEFT JOIN author a WHERE a.oid =
o.oid AND o.continent = 'Asia'`` (PostgreSQL rejects a JOIN without ON; SQLite runs it as a cross join the WHERE then
filters, so the rows without a match — what LEFT asks for — are lost): the WHERE's equalities of a column of the
joined table with one of a table joined before it read as the join's ON, the other conditions kept in the WHERE — a
guess the model is shown first."""

from __future__ import annotations

from sqlglot import exp

from core.sql.repair._names import GUESSED

__all__ = ["conditions_distributed", "joins_in_order", "outer_join_conditions"]


def _alias(node: exp.Expression) -> str:
    return (node.alias_or_name or "").lower()


def _reads(join: exp.Join) -> set[str]:
    on = join.args.get("on")
    return {c.table.lower() for c in on.find_all(exp.Column) if c.table} if on is not None else set()


def _on(join: exp.Join) -> exp.Expression | None:
    """A join's condition; None for none, or ``ON TRUE`` (how a JOIN written without one is carried)."""
    on = join.args.get("on")
    return None if on is None or isinstance(on, exp.Boolean) and on.this is True else on


def _plain(join: exp.Join) -> bool:
    """A join whose condition, if any, is its ON: no USING, not NATURAL (those join on their own terms)."""
    return not join.args.get("using") and not join.args.get("method")


def _inner(joins: list[exp.Join]) -> bool:
    return all((j.side or j.kind or "INNER").upper() in ("INNER", "") and isinstance(j.this, (exp.Table, exp.Subquery))
               and _plain(j) for j in joins)


def joins_in_order(tree: exp.Expression, fixes: list[str]) -> None:
    """The joins of each SELECT of ``tree`` put in an order their conditions read, where they are all inner joins."""
    for select in tree.find_all(exp.Select):
        joins = list(select.args.get("joins") or ())
        source = select.args.get("from_")
        if len(joins) < 2 or source is None or not _inner(joins) or any(j.args.get("on") is None for j in joins):
            continue
        names = {_alias(source.this), *(_alias(j.this) for j in joins)}
        placed, left, order = {_alias(source.this)}, list(joins), []
        while left:
            ready = next((j for j in left if _reads(j) & names <= placed | {_alias(j.this)}), None)
            if ready is None:
                break
            order.append(ready)
            placed.add(_alias(ready.this))
            left.remove(ready)
        if left or order == joins:
            continue
        select.set("joins", [j.copy() for j in order])
        fixes.append("inner joins put in the order their ON conditions read (the same rows)")


def conditions_distributed(tree: exp.Expression, fixes: list[str]) -> None:
    """The conditions of inner joins written together after the last of them, each put on its own join (see above)."""
    for select in tree.find_all(exp.Select):
        joins = list(select.args.get("joins") or ())
        source = select.args.get("from_")
        ons = [_on(j) for j in joins]
        if len(joins) < 2 or source is None or not _inner(joins) or all(on is not None for on in ons):
            continue
        conditions = [c for on in ons if on is not None for c in (on.flatten() if isinstance(on, exp.And) else [on])]
        reads = [{c.table.lower() for c in cond.find_all(exp.Column)} for cond in conditions]
        if not conditions or any(not r or "" in r for r in reads):
            continue  # a condition without its tables named: where it belongs is unsaid
        placed: set[str] = {_alias(source.this)}
        assigned: list[list[exp.Expression]] = [[] for _ in joins]
        for k, join in enumerate(joins):
            placed.add(_alias(join.this))
            for cond, read in zip(conditions, reads, strict=True):
                if read <= placed and not any(cond is c for done in assigned for c in done):
                    assigned[k].append(cond)
        if any(not a for a in assigned) or sum(map(len, assigned)) != len(conditions):
            continue
        for join, own in zip(joins, assigned, strict=True):
            join.set("on", exp.and_(*(c.copy() for c in own)))
        fixes.append("the join conditions written after the last JOIN put each on its own join (the same rows)")


def outer_join_conditions(tree: exp.Expression, fixes: list[str]) -> None:
    """The outer join without an ON whose conditions were written in the WHERE, read as its ON (see above)."""
    for select in tree.find_all(exp.Select):
        joins = list(select.args.get("joins") or ())
        source, where = select.args.get("from_"), select.args.get("where")
        if source is None or where is None:
            continue
        placed = {_alias(source.this)}
        for join in joins:
            alias = _alias(join.this)
            conditions = list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]
            pairs = [{alias, earlier} for earlier in placed if earlier != alias]
            own = [c for c in conditions if isinstance(c, exp.EQ) and isinstance(c.this, exp.Column) and isinstance(
                c.expression, exp.Column) and {c.this.table.lower(), c.expression.table.lower()} in pairs]
            if (join.side or "").upper() in ("LEFT", "RIGHT", "FULL") and _on(join) is None and _plain(join) and own:
                join.set("on", exp.and_(*(c.copy() for c in own)))
                kept = [c.copy() for c in conditions if not any(c is o for o in own)]
                select.set("where", exp.Where(this=exp.and_(*kept)) if kept else None)
                where = select.args.get("where")
                fixes.append(f"{join.side} JOIN {alias} had no ON: {' AND '.join(c.sql() for c in own)} from the "
                             "WHERE read as its ON" + GUESSED)
                if where is None:
                    break
            placed.add(alias)
