"""GROUP BY repair: a selected column that is neither aggregated nor grouped is added to GROUP BY; an aggregate
written into GROUP BY (an error everywhere) leaves it.

Before that, filters are put on the right side of the grouping, where the database rejects them as written: a
WHERE condition that aggregates (``WHERE COUNT(*) > 2``, an error in PostgreSQL and SQLite) moves to HAVING, and in
PostgreSQL a HAVING condition that reads a row column neither grouped nor aggregated moves to WHERE. An aggregate
only in ORDER BY (``ORDER BY COUNT(*) DESC``) makes the query aggregate like one in the select list does.

PostgreSQL rejects such a query; SQLite runs it but returns an arbitrary row's value, which is never what
the question meant. A column is already fine when it is grouped, when the whole selected expression is
grouped (by expression, output alias or position), or when its table's primary key is grouped (functional
dependency). In SQLite a lone MIN()/MAX() makes bare columns come from that row on purpose: left alone.
A row's label (``name``, ``title``, ``…_name``) added over joined rows brings its table's key along: "the
customer with the most orders" is one customer, not every customer of that name together.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from sqlglot import exp
from sqlglot.optimizer.scope import Scope, walk_in_scope

from core.dialects import dialect_info, is_postgres_like
from core.schema import Schema
from core.sql.repair.grouping._aggregate_filters import aggregates_over_rows
from core.sql.repair._scope import Source, column_sources, is_within, scope_sources, scopes

__all__ = ["GROUP_BY_FIX", "joined_on", "repair_group_by"]

GROUP_BY_FIX = " to GROUP BY"  # how the notes of this repair end

logger = logging.getLogger(__name__)


def _local_nodes(expr: exp.Expression) -> list[exp.Expression]:
    """Nodes of ``expr`` outside subqueries."""
    return list(walk_in_scope(expr))


def _aggregates(expr: exp.Expression) -> list[exp.AggFunc]:
    """Aggregate calls of this query level (not window functions, not in subqueries)."""
    return [
        n
        for n in _local_nodes(expr)
        if isinstance(n, exp.AggFunc) and not isinstance(n.parent, exp.Window) and n.find_ancestor(exp.Window) is None
    ]


def _has_window(expr: exp.Expression) -> bool:
    return any(isinstance(n, exp.Window) for n in _local_nodes(expr))


class _GroupCheck:
    def __init__(self, scope: Scope, sources: list[Source], dialect: str) -> None:
        self.scope = scope
        self.sources = sources
        self.dialect = dialect
        select = scope.expression
        group = select.args.get("group")
        self.items: list[exp.Expression] = list(group.expressions) if group is not None else []
        self.projections = list(select.expressions)
        self.keys: set[tuple[int, str]] = set()
        for item in self._expanded_items():
            if isinstance(item, exp.Column):
                self.keys |= self._keys(item)

    def _expanded_items(self) -> list[exp.Expression]:
        """GROUP BY items with positions and output aliases replaced by the selected expression."""
        aliases = {p.alias.lower(): p.unalias() for p in self.projections if isinstance(p, exp.Alias)}
        out: list[exp.Expression] = []
        for item in self.items:
            if isinstance(item, exp.Literal) and item.is_int and 0 < int(item.this) <= len(self.projections):
                out.append(self.projections[int(item.this) - 1].unalias())
            elif isinstance(item, exp.Column) and not item.table and item.name.lower() in aliases:
                out.append(item)
                out.append(aliases[item.name.lower()])
            else:
                out.append(item)
        return out

    def _keys(self, col: exp.Column) -> set[tuple[int, str]]:
        owners = column_sources(col, self.sources, self.dialect)
        return {(id(s), col.name.lower()) for s in owners}

    def _dependent(self, col: exp.Column) -> bool:
        """The column's table has its whole primary key grouped (and the dialect knows it: DuckDB does not)."""
        info = dialect_info(self.dialect)
        if info is not None and not info.groups_by_key:
            return False
        owners = column_sources(col, self.sources, self.dialect)
        if len(owners) != 1 or owners[0].table is None or not owners[0].table.primary_key:
            return False
        src = owners[0]
        return all((id(src), k.lower()) in self.keys for k in src.table.primary_key)

    def covers(self, expr: exp.Expression) -> bool:
        """Does ``expr`` (not a select-list item) read only grouped columns, or constants for this level?"""
        return self._columns_covered(expr, self._expanded_items())

    def covered(self, index: int, proj: exp.Expression) -> bool:
        inner = proj.unalias()
        expanded = self._expanded_items()
        if any(inner == item for item in expanded):
            return True
        if isinstance(proj, exp.Alias) and any(
            isinstance(i, exp.Column) and not i.table and i.name.lower() == proj.alias.lower() for i in self.items
        ):
            return True
        if any(isinstance(i, exp.Literal) and i.is_int and int(i.this) == index + 1 for i in self.items):
            return True
        return self._columns_covered(inner, expanded)

    def _columns_covered(self, inner: exp.Expression, expanded: list[exp.Expression]) -> bool:
        local_sources = {id(s) for s in self.sources}
        compound = [i for i in expanded if not isinstance(i, (exp.Column, exp.Literal))]
        grouped_parts = [n for n in _local_nodes(inner) if any(n == g for g in compound)] if compound else []
        for col in (n for n in _local_nodes(inner) if isinstance(n, exp.Column)):
            if any(is_within(col, part) for part in grouped_parts):
                continue  # inside a grouped expression, e.g. CAST(DATE_TRUNC(...)) over GROUP BY DATE_TRUNC(...)
            owners = column_sources(col, self.sources, self.dialect)
            if not owners or not {id(s) for s in owners} & local_sources:
                continue  # correlated or unknown: a constant for this query level
            if self._keys(col) & self.keys or self._dependent(col):
                continue
            return False
        return True


def _conjuncts(cond: exp.Expression | None) -> list[exp.Expression]:
    if cond is None:
        return []
    return list(cond.flatten()) if isinstance(cond, exp.And) else [cond]


def _and(parts: list[exp.Expression]) -> exp.Expression | None:
    return exp.and_(*parts) if parts else None


_CLAUSES = {"where": (exp.Where, "WHERE"), "having": (exp.Having, "HAVING")}


def _move(select: exp.Select, source: str, moves: Callable[[exp.Expression], bool], dialect: str,
          fixes: list[str]) -> None:
    """Move the conditions of clause ``source`` (AND-ed parts) for which ``moves`` holds to the other clause."""
    target = "having" if source == "where" else "where"
    clause = select.args.get(source)
    parts = _conjuncts(clause.this if clause is not None else None)
    moved = [p for p in parts if moves(p)]
    if not moved:
        return
    kept = _and([p for p in parts if p not in moved])
    select.set(source, _CLAUSES[source][0](this=kept) if kept is not None else None)
    other = select.args.get(target)
    combined = _and([*_conjuncts(other.this if other is not None else None), *(m.copy() for m in moved)])
    select.set(target, _CLAUSES[target][0](this=combined))
    for m in moved:
        fixes.append(f"moved {m.sql(dialect=dialect)} from {_CLAUSES[source][1]} to {_CLAUSES[target][1]}")


def _inline_aliases(select: exp.Select, sources: list[Source], dialect: str, fixes: list[str]) -> None:
    """``SUM(x) AS total ... HAVING total > 10``: PostgreSQL knows output names only in ORDER BY and GROUP BY, and
    no database filters rows by an aggregate's name in WHERE. Such a name (one no table in FROM has) is replaced by
    the expression it names. SQLite reads output names in WHERE and HAVING, so there only an aggregate's name in
    WHERE (an error) is replaced. A window's PARTITION BY and ORDER BY read no output name in any database: there the
    name is the expression too (``RANK() OVER (ORDER BY total DESC)`` beside ``SUM(x) AS total``)."""
    aliases = {p.alias.lower(): p.this for p in select.expressions if isinstance(p, exp.Alias) and p.alias}
    if not aliases:
        return
    for key in ("where", "having"):
        clause = select.args.get(key)
        if clause is None:
            continue
        for col in [c for c in _local_nodes(clause) if isinstance(c, exp.Column) and not c.table]:
            target = aliases.get(col.name.lower())
            if target is None or any(s.has(col.this, dialect) or s.open for s in sources):
                continue
            if dialect == "sqlite" and (key == "having" or not _aggregates(target)):
                continue
            col.replace(_operand(target))
            fixes.append(f"{col.name} in {key.upper()} -> {target.sql(dialect=dialect)}")
    _lateral_aliases(select, sources, dialect, fixes)
    for window in [w for item in select.expressions for w in _local_nodes(item) if isinstance(w, exp.Window)]:
        for col in [c for c in window.find_all(exp.Column) if not c.table and c.find_ancestor(exp.Window) is window]:
            target = aliases.get(col.name.lower())  # a window reads its SELECT's rows, never its output names
            if target is None or target.find(exp.Window) or any(s.has(col.this, dialect) or s.open for s in sources):
                continue
            col.replace(_operand(target))
            fixes.append(f"{col.name} in a window's OVER (…) -> {target.sql(dialect=dialect)}")


def _operand(target: exp.Expression) -> exp.Expression:
    """A copy of the expression an output name stands for, bracketed where it would bind otherwise in its place."""
    copied = target.copy()
    return copied if isinstance(copied, (exp.Column, exp.Func, exp.Literal, exp.Paren)) else exp.Paren(this=copied)


def _lateral_aliases(select: exp.Select, sources: list[Source], dialect: str, fixes: list[str]) -> None:
    """``SELECT COUNT(*) AS n, n * 1.0 / 7 AS per_day``: an item reading an earlier item's name, which DuckDB allows
    and PostgreSQL and SQLite reject, reads the expression that name stands for (the one reading); never a name a
    table of the query has, never an aggregate's name inside another aggregate."""
    earlier: dict[str, exp.Expression] = {}
    for item in select.expressions:
        body = item.this if isinstance(item, exp.Alias) else item
        for col in [c for c in _local_nodes(body) if isinstance(c, exp.Column) and not c.table]:
            target = earlier.get(col.name.lower())
            if target is None or target.find(exp.Window) or any(s.has(col.this, dialect) or s.open for s in sources) \
                    or (_aggregates(target) and col.find_ancestor(exp.AggFunc) is not None):
                continue
            col.replace(_operand(target))
            fixes.append(f"{col.name}, the name of an item before it -> {target.sql(dialect=dialect)}")
        if isinstance(item, exp.Alias) and item.alias:
            earlier[item.alias.lower()] = item.this


def _move_aggregate_filters(select: exp.Select, dialect: str, fixes: list[str]) -> None:
    """``WHERE ... AND COUNT(*) > 2`` -> ``HAVING COUNT(*) > 2``: rows cannot be filtered by an aggregate. A row
    compared with its own aggregate (``WHERE price = MAX(price)``) is a subquery instead (``_aggregate_filters``)."""
    aggregates_over_rows(select, dialect, fixes)
    _move(select, "where", lambda p: bool(_aggregates(p)) and not _has_window(p), dialect, fixes)


def _move_row_filters(select: exp.Select, check: _GroupCheck, dialect: str, fixes: list[str]) -> None:
    """PostgreSQL: ``GROUP BY a HAVING status = 'x'`` (status neither grouped nor aggregated) -> ``WHERE``."""
    _move(select, "having", lambda p: not _aggregates(p) and not _has_window(p) and not check.covers(p), dialect,
          fixes)


def _drop_grouped_aggregates(select: exp.Select, sources: list[Source], dialect: str, fixes: list[str]) -> None:
    """``GROUP BY name, COUNT(*)`` (or the alias or position of an aggregate): an error in every database, since a
    group cannot be keyed by what it aggregates. The aggregate leaves GROUP BY; nothing else changes. A name that is
    also a column of the tables read is that column (the databases read it so), and positions are not read when
    the select list holds a ``*`` (what it expands to decides them)."""
    group = select.args.get("group")
    if group is None:
        return
    aliases = {p.alias.lower(): p.this for p in select.expressions if isinstance(p, exp.Alias) and p.alias}
    starred = any(isinstance(p, exp.Star) or (isinstance(p, exp.Column) and isinstance(p.this, exp.Star))
                  for p in select.expressions)
    dropped = []
    for item in list(group.expressions):
        target = item
        if isinstance(item, exp.Column) and not item.table and item.name.lower() in aliases:
            if any(s.open or s.has(item.this, dialect) is not None for s in sources):
                continue  # a column of that name: GROUP BY reads the column, not the alias
            target = aliases[item.name.lower()]
        elif isinstance(item, exp.Literal) and item.is_int and not starred and (
                0 < int(item.this) <= len(select.expressions)):
            target = select.expressions[int(item.this) - 1].unalias()
        if _aggregates(target) and not _has_window(target):
            dropped.append(item.sql(dialect=dialect))
            item.pop()
    if not dropped:
        return
    if not group.expressions:
        select.set("group", None)
    fixes.append(f"removed {', '.join(dropped)} from GROUP BY (a group cannot be keyed by an aggregate)")


def repair_group_by(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str]) -> None:
    """Add uncovered selected expressions to GROUP BY, in every SELECT that aggregates."""
    for scope in scopes(tree):
        select = scope.expression
        if not isinstance(select, exp.Select):
            continue
        sources = scope_sources(scope, schema, dialect)
        _nested_aggregates(select, dialect, fixes)
        _inline_aliases(select, sources, dialect, fixes)
        _move_aggregate_filters(select, dialect, fixes)
        _drop_grouped_aggregates(select, sources, dialect, fixes)
        _repeated_window_rows(select, dialect, fixes)
        group = select.args.get("group")
        if group is not None and group.args.get("all"):  # DuckDB's GROUP BY ALL: by every column shown, added below
            group.set("all", None)
            if not group.expressions and not any(not _aggregates(p) and p.find(exp.Column)
                                                 for p in select.expressions):
                select.set("group", None)  # nothing shown to group by: one group, as DuckDB reads it
                group = None
        if group is not None and any(
            isinstance(i, (exp.Rollup, exp.Cube, exp.GroupingSets)) for i in group.expressions
        ) or group is not None and (group.args.get("rollup") or group.args.get("cube") or group.args.get(
            "grouping_sets"
        )):
            continue
        aggs = [a for p in select.expressions for a in _aggregates(p)]
        having = select.args.get("having")
        if having is not None:
            aggs += _aggregates(having)
        order = select.args.get("order")
        if order is not None:
            aggs += [a for o in order.expressions for a in _aggregates(o)]
        if group is None and not aggs:
            continue
        if dialect == "sqlite" and aggs and all(isinstance(a, (exp.Min, exp.Max)) for a in aggs) and len(aggs) == 1 \
                and not joined_on(select):
            continue  # SQLite's row with the extreme — not in a CTE the rest of the query joins on a column of
        if any(isinstance(p, exp.Star) or (isinstance(p, exp.Column) and isinstance(p.this, exp.Star))
               for p in select.expressions):
            continue
        check = _GroupCheck(scope, sources, dialect)
        if is_postgres_like(dialect) and group is not None:
            _move_row_filters(select, check, dialect, fixes)
        added: list[exp.Expression] = []
        for index, proj in enumerate(select.expressions):
            if _aggregates(proj) or _has_window(proj):
                continue
            if check.covered(index, proj):
                continue
            # over one table, grouping by its key makes groups of one: only an aggregate over joined rows is per row
            key = _key_of_label(proj.unalias(), sources, dialect) if len(sources) > 1 else None
            if key is not None and not check.covers(key) and all(key != a for a in added):
                added.append(key)  # "name" labels a row: grouped by the row's key too, namesakes stay apart
            added.append(proj.unalias().copy())
        if not added:
            continue
        if group is None:
            select.set("group", exp.Group(expressions=added))
        else:
            for item in added:
                group.append("expressions", item)
        for item in added:
            fixes.append(f"added {item.sql(dialect=dialect)}{GROUP_BY_FIX}")


def _repeated_window_rows(select: exp.Select, dialect: str, fixes: list[str]) -> None:
    """``SELECT city, SUM(amount) OVER (PARTITION BY city) FROM sales`` with no GROUP BY: each city's row once per
    sale, all alike — a GROUP BY's rows, repeated. Read with DISTINCT (noted), which keeps every row and only drops
    the copies, where that is proven: every window aggregates over the same partition keys with no order or frame,
    and every other column shown is a key (so rows of a partition are equal), a key among them (two partitions'
    rows differ but where they agree on every column shown — what a GROUP BY would show as two equal rows). An
    ORDER BY must name what is shown (DISTINCT sorts by the rows shown)."""
    if select.args.get("group") is not None or select.args.get("distinct") is not None or _aggregates(select) or \
            select.find_ancestor(exp.Subquery, exp.CTE, exp.Union, exp.In, exp.Exists) is not None:
        return  # only the rows shown: inside a subquery or CTE its rows may be counted, and copies count
    windows = [n for p in select.expressions for n in _local_nodes(p) if isinstance(n, exp.Window)]
    if not windows or any(isinstance(n, exp.Subquery) for p in select.expressions for n in _local_nodes(p)):
        return
    keys = {_column_key(k) for k in windows[0].args.get("partition_by") or []}
    for window in windows:
        part = {_column_key(k) for k in window.args.get("partition_by") or []}
        if (not isinstance(window.this, exp.AggFunc) or window.args.get("order") or window.args.get("spec")
                or None in part or None in keys or not all(_is_key(k, part) for k in keys)  # type: ignore[arg-type]
                or not all(_is_key(k, keys) for k in part)):  # type: ignore[arg-type]
            return
    shown: set[tuple[str, str]] = set()
    for proj in select.expressions:
        outside = [n for n in _local_nodes(proj) if n.find_ancestor(exp.Window) is None]
        columns = [_column_key(n) for n in outside if isinstance(n, exp.Column)]
        if not all(_is_key(c, keys) for c in columns):
            return
        if isinstance(proj.unalias(), exp.Column):
            shown.add(_column_key(proj.unalias()))  # type: ignore[arg-type]
    if not keys or not any(_is_key(k, shown) for k in keys):
        return  # no key shown: a list of bare totals, where two groups' equal totals are two rows
    order = select.args.get("order")
    outputs = {p.alias_or_name.lower() for p in select.expressions} | {p.unalias().sql().lower()
                                                                         for p in select.expressions}
    if order is not None and not all(o.this.is_int or o.this.sql().lower() in outputs for o in order.expressions):
        return
    select.set("distinct", exp.Distinct())
    fixes.append(f"each row was repeated once per row of its {', '.join(sorted(k[1] for k in keys))} (aggregates "
                 "OVER (PARTITION BY …) with no GROUP BY): shown once, with DISTINCT")


def _column_key(node: exp.Expression) -> tuple[str, str] | None:
    return (node.table.lower(), node.name.lower()) if isinstance(node, exp.Column) else None


def _is_key(column: tuple[str, str] | None, keys: set[tuple[str, str]]) -> bool:
    return column is not None and any(column[1] == k[1] and (not column[0] or not k[0] or column[0] == k[0])
                                      for k in keys)


_OF_ONE_VALUE = (exp.Sum, exp.Avg, exp.Min, exp.Max)  # of one value, each is that value


def _nested_aggregates(select: exp.Select, dialect: str, fixes: list[str]) -> None:
    """``SUM(COUNT(*))``: an aggregate of an aggregate, which no database runs in one SELECT. Where the query has no
    GROUP BY, or shows its groups (a column beside it), each group has one inner value and the outer aggregate of it
    is that value: read as the inner one. Where it is grouped and shows only such aggregates and constants
    (``SELECT AVG(COUNT(*)) … GROUP BY seller``, ``MAX(COUNT(*)) - MIN(COUNT(*))``), numbers over the groups are
    meant: each outer aggregate read over a derived table of the groups' inner values. Anything else (a HAVING, a
    column read outside the nested aggregates) is left to fail, for the model to write."""
    nested = [a for p in select.expressions for a in _aggregates(p) if isinstance(a, _OF_ONE_VALUE)
              and isinstance(a.this, exp.AggFunc)]
    if not nested or not (select.args.get("from_") or select.args.get("from")) or select.find_ancestor(
            exp.Where, exp.Having):
        return  # ``HAVING n = (SELECT MAX(COUNT(x)))`` reads the outer query's groups: the aggregate-filter repair's
    group = select.args.get("group")
    shown = [p for p in select.expressions if not _aggregates(p) and p.find(exp.Column)]
    if group is None or shown:
        for outer in nested:
            before = outer.sql(dialect=dialect)
            outer.replace(outer.this.copy())
            fixes.append(f"{before} -> {outer.this.sql(dialect=dialect)} (one value per group: an aggregate of it "
                         "is that value)")
        return
    inside = {id(n) for a in nested for n in a.walk()}
    if select.args.get("having") or select.find(exp.Window) or any(
            id(n) not in inside for p in select.expressions for n in p.find_all(exp.Column, exp.AggFunc)):
        return  # a column or another aggregate outside the nested ones: no reading of it over the groups
    inner = select.copy()
    values: dict[str, str] = {}
    for outer in nested:
        values.setdefault(outer.this.sql(dialect=dialect), f"group_value_{len(values) + 1}")
    inner.set("expressions", [exp.alias_(exp.maybe_parse(sql, dialect=dialect), name) for sql, name in values.items()])
    for clause in ("order", "limit", "offset", "distinct"):
        inner.set(clause, None)
    items = [p.copy() for p in select.expressions]
    for item in items:
        for outer in [a for a in item.find_all(*_OF_ONE_VALUE) if isinstance(a.this, exp.AggFunc)]:
            outer.set("this", exp.column(values[outer.this.sql(dialect=dialect)]))
    before = ", ".join(p.sql(dialect=dialect) for p in select.expressions)
    rebuilt = exp.select(*items).from_(exp.Subquery(this=inner, alias=exp.TableAlias(
        this=exp.to_identifier("per_group"))))
    for key in ("expressions", "from_", "joins", "where", "group", "having", "qualify"):
        select.set(key, rebuilt.args.get(key))
    fixes.append(f"{before} read over the groups' values (each outer aggregate over one value per group)")


def joined_on(select: exp.Select, column: str | None = None) -> bool:
    """Whether ``select`` is a CTE or derived table the rest of the query joins on one of its columns (on
    ``column``, when given): one row, the extreme's, could not be what such a join pairs up."""
    holder = select.parent
    if not isinstance(holder, (exp.CTE, exp.Subquery)) or not holder.alias_or_name:
        return False
    name = holder.alias_or_name.lower()
    return any(c.table.lower() == name and (column is None or c.name.lower() == column.lower())
               and c.find_ancestor(exp.Join) is not None and c.find_ancestor(exp.Select) is not select
               for c in select.root().find_all(exp.Column))


_LABELS = frozenset({"name", "title", "label"})


def _key_of_label(expr: exp.Expression, sources: list[Source], dialect: str) -> exp.Column | None:
    """The one-column key of the table whose label column (``name``, ``title``, ``…_name``) ``expr`` is, qualified
    as ``expr`` is; None for anything else (a category such as ``city`` is what the rows are grouped by)."""
    if not isinstance(expr, exp.Column):
        return None
    words = expr.name.lower().replace("-", "_").split("_")
    if not (_LABELS & set(words)) and not expr.name.lower().endswith("name"):
        return None
    owners = column_sources(expr, sources, dialect)
    owner = owners[0] if len(owners) == 1 else None
    table = owner.table if owner is not None else None
    if table is None or len(table.primary_key) != 1 or table.primary_key[0].lower() == expr.name.lower():
        return None
    if any(ix.unique and len(ix.columns) == 1 and ix.columns[0].lower() == expr.name.lower() for ix in table.indexes):
        return None  # a unique label has no namesakes
    assert owner is not None
    qualifier = owner.key_ident.copy() if owner.key_ident is not None else exp.to_identifier(owner.key)
    return exp.column(table.primary_key[0], table=qualifier)
