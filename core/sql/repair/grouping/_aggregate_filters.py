"""An aggregate compared with the rows it aggregates: ``WHERE price = MAX(price)``, ``HAVING COUNT(*) = MAX(COUNT(*))``.

Both are errors everywhere (a WHERE cannot aggregate; aggregates cannot nest), and the writer's meaning is plain:
the rows whose value equals the aggregate over the rows the query considers, which SQL spells as a scalar subquery
over the same tables and the same other conditions (``WHERE price = (SELECT MAX(price) FROM … WHERE …)``), and the
groups whose count equals the largest count (``HAVING COUNT(*) = (SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM …
GROUP BY …))``). Moving such a condition to HAVING instead would group by the compared value and make it true of
every row. A condition comparing only aggregates (``WHERE COUNT(*) > 2``) is left for the move to HAVING.
"""

from __future__ import annotations

from sqlglot import exp

__all__ = ["aggregates_over_rows"]


def _local(expr: exp.Expression) -> list[exp.Expression]:
    """Nodes of this query level (not inside a subquery)."""
    return [n for n in expr.walk() if n is expr or not any(isinstance(a, (exp.Subquery, exp.Select)) and a is not expr
                                                             for a in _ancestors(n, expr))]


def _ancestors(node: exp.Expression, stop: exp.Expression) -> list[exp.Expression]:
    out, parent = [], node.parent
    while parent is not None and parent is not stop:
        out.append(parent)
        parent = parent.parent
    return out


def _aggregates(expr: exp.Expression) -> list[exp.AggFunc]:
    return [n for n in _local(expr) if isinstance(n, exp.AggFunc) and n.find_ancestor(exp.Window) is None]


def _outside_aggregates(expr: exp.Expression) -> bool:
    """Whether ``expr`` reads a row column outside any aggregate."""
    return any(isinstance(n, exp.Column) and n.find_ancestor(exp.AggFunc) is None for n in _local(expr))


def _conjuncts(condition: exp.Expression) -> list[exp.Expression]:
    return list(condition.flatten()) if isinstance(condition, exp.And) else [condition]


def _rows(select: exp.Select, where: list[exp.Expression], group: exp.Group | None = None) -> exp.Select:
    """A SELECT over ``select``'s FROM and JOINs with the ``where`` conditions (and ``group``), no columns yet."""
    sub = exp.Select()
    sub.set("from_", select.args["from_"].copy())
    sub.set("joins", [j.copy() for j in select.args.get("joins") or []] or None)
    if where:
        sub.set("where", exp.Where(this=exp.and_(*[c.copy() for c in where])))
    if group is not None:
        sub.set("group", group.copy())
    return sub


def aggregates_over_rows(select: exp.Select, dialect: str, fixes: list[str]) -> None:
    """Rewrite, in place, the comparisons of rows with their own aggregate in ``select``'s WHERE and HAVING."""
    if select.args.get("from_") is None:
        return
    where = select.args.get("where")
    grouped = select.args.get("group") is not None or any(_aggregates(p) for p in select.expressions)
    if where is not None and not grouped:
        conds = _conjuncts(where.this)
        for cond in conds:
            aggs = _aggregates(cond)
            if not aggs or not _outside_aggregates(cond) or not isinstance(cond, (exp.EQ, exp.GT, exp.GTE, exp.LT,
                                                                                    exp.LTE, exp.NEQ)):
                continue
            rest = [c for c in conds if c is not cond and not _aggregates(c)]
            before = cond.sql(dialect=dialect)
            for agg in aggs:
                sub = _rows(select, rest)
                sub.set("expressions", [agg.copy()])
                agg.replace(exp.Subquery(this=sub))
            fixes.append(f"{before} -> {cond.sql(dialect=dialect)} (an aggregate over the rows considered)")
    having = select.args.get("having")
    if having is None or select.args.get("group") is None:
        return
    for outer in [a for a in _aggregates(having.this) if any(isinstance(n, exp.AggFunc) for n in a.this.walk())]:
        inner = next(n for n in outer.this.walk() if isinstance(n, exp.AggFunc))
        if inner is not outer.this:
            continue  # MAX(COUNT(x) + 1): not the plain "largest count"
        before, name = outer.sql(dialect=dialect), outer.sql_name()
        where_conds = _conjuncts(where.this) if where is not None else []
        per_group = _rows(select, where_conds, select.args["group"])
        per_group.set("expressions", [exp.alias_(inner.copy(), "n")])
        top = exp.Select(expressions=[outer.__class__(this=exp.column("n"))])
        top.set("from_", exp.From(this=exp.Subquery(this=per_group, alias=exp.TableAlias(this=exp.to_identifier("g")))))
        outer.replace(exp.Subquery(this=top))
        fixes.append(f"{before} -> the {name} over the groups")

