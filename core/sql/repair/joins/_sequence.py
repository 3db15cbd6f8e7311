"""Inner joins written in an order their conditions cannot be read in: ``FROM cars c JOIN reps r ON r.id = s.rep_id
JOIN sales s ON c.id = s.car_id`` — the first ON reads ``s`` before it is joined (PostgreSQL: "missing FROM-clause
entry for table s"). Inner joins may be taken in any order with the same rows (each ON is a condition on the
combined row), so the joins are put in the first order in which every ON reads only tables already joined, and
nothing else changes. Never where an outer, cross or lateral join stands among them, where the order cannot be
found, or where the joins already read in order."""

from __future__ import annotations

from sqlglot import exp

__all__ = ["joins_in_order"]


def _alias(node: exp.Expression) -> str:
    return (node.alias_or_name or "").lower()


def _reads(join: exp.Join) -> set[str]:
    on = join.args.get("on")
    return {c.table.lower() for c in on.find_all(exp.Column) if c.table} if on is not None else set()


def joins_in_order(tree: exp.Expression, fixes: list[str]) -> None:
    """The joins of each SELECT of ``tree`` put in an order their conditions read, where they are all inner joins."""
    for select in tree.find_all(exp.Select):
        joins = list(select.args.get("joins") or ())
        source = select.args.get("from_")
        if len(joins) < 2 or source is None or any(
                (j.side or j.kind or "INNER").upper() not in ("INNER", "") or j.args.get("on") is None
                or not isinstance(j.this, (exp.Table, exp.Subquery)) for j in joins):
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
