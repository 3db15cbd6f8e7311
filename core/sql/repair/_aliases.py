"""Two FROM/JOIN entries of one SELECT under the same alias (``customers t1 JOIN orders T1``, Spider-style
``T1``/``t1``, or ``a``/``a``): both databases reject it ("specified more than once"), PostgreSQL and SQLite
alike since neither tells ``t1`` from ``T1`` unquoted.

The later entry gets a fresh alias and each column qualified with the clashing name is pointed at the entry it
can only mean: the one whose spelling it copies exactly (``T1.x`` when the entries are ``t1`` and ``T1``), else the
only one of the two tables with that column. A column both tables have, written with the shared spelling, keeps
the first entry (as the writer's first mention). The query fails as written, so no running query changes.
"""

from __future__ import annotations

from sqlglot import exp

from core.schema import Schema

__all__ = ["ALIAS_CLASH_FIX", "assigned_aliases", "output_names_in_expressions", "repair_alias_clashes",
           "source_columns", "unqualified_output_names"]

ALIAS_CLASH_FIX = " (also used for "  # in the note of a renamed clashing alias: it makes an error go away


def _entries(select: exp.Select) -> list[exp.Expression]:
    out: list[exp.Expression] = []
    source = select.args.get("from_") or select.args.get("from")
    if source is not None:
        out.append(source.this)
    out += [j.this for j in select.args.get("joins") or []]
    return out


def _name(entry: exp.Expression) -> str:
    return entry.alias_or_name


def _columns_of(entry: exp.Expression, schema: Schema) -> set[str]:
    if isinstance(entry, exp.Table):
        table = schema.table(entry.name) if not entry.db else schema.table(f"{entry.db}.{entry.name}")
        return {c.name.lower() for c in table.columns} if table is not None else set()
    if isinstance(entry, exp.Subquery) and isinstance(entry.this, exp.Select):
        return {p.alias_or_name.lower() for p in entry.this.expressions}
    return set()


def _reads(col: exp.Column, select: exp.Select, name: str) -> bool:
    """Does qualified ``col`` resolve in ``select`` (no nearer SELECT defines ``name``)?"""
    node = col.parent
    while node is not None and node is not select:
        if isinstance(node, exp.Select) and any(_name(e).lower() == name for e in _entries(node)):
            return False
        node = node.parent
    return node is select


def _join_sides(entry: exp.Expression, name: str) -> dict[int, bool]:
    """In the clashing entry's own ON, ``a.k = a.k`` joins the two entries: the left side is the first entry, the
    right side the later one (otherwise the condition would compare a column with itself)."""
    join = entry.parent
    on = join.args.get("on") if isinstance(join, exp.Join) else None
    out: dict[int, bool] = {}
    for eq in on.find_all(exp.EQ) if on is not None else ():
        left, right = eq.this, eq.expression
        if isinstance(left, exp.Column) and isinstance(right, exp.Column) and left.table.lower() == name \
                and right.table.lower() == name and left.table == right.table:
            out[id(left)], out[id(right)] = False, True
    return out


def repair_alias_clashes(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str]) -> None:
    """Give every clashing FROM/JOIN alias of every SELECT a unique one, in place."""
    for select in list(tree.find_all(exp.Select)):
        entries = _entries(select)
        seen: dict[str, exp.Expression] = {}
        taken = {_name(e).lower() for e in entries}
        for entry in entries:
            name = _name(entry).lower()
            first = seen.setdefault(name, entry)
            if first is entry or not name:
                continue
            fresh = next(f"{name}_{n}" for n in range(2, 100) if f"{name}_{n}" not in taken)
            taken.add(fresh)
            first_spelling, later_spelling = _name(first), _name(entry)
            first_cols, later_cols = _columns_of(first, schema), _columns_of(entry, schema)
            forced = _join_sides(entry, name)
            for col in [c for c in select.find_all(exp.Column) if c.table.lower() == name]:
                if not _reads(col, select, name):
                    continue
                spelt = col.table
                if id(col) in forced:
                    later = forced[id(col)]
                elif first_spelling != later_spelling and spelt in (first_spelling, later_spelling):
                    later = spelt == later_spelling
                else:
                    later = col.name.lower() in later_cols and col.name.lower() not in first_cols
                if later:
                    col.set("table", exp.to_identifier(fresh))
            entry.set("alias", exp.TableAlias(this=exp.to_identifier(fresh)))
            fixes.append(f"alias {later_spelling}{ALIAS_CLASH_FIX}{first_spelling}) -> {fresh}")


def assigned_aliases(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str]) -> None:
    """T-SQL's ``SELECT total = SUM(x)``: a select item ``name = expression`` whose ``name`` is a bare word no table
    of its SELECT has (so it compares nothing and fails as written), read as ``SUM(x) AS total``, in place."""
    ctes = {cte.alias.lower(): cte.this for cte in tree.find_all(exp.CTE) if isinstance(cte.this, exp.Select)}
    entries = [e for select in tree.find_all(exp.Select) for e in _entries(select)]
    if any(isinstance(e, exp.Table) and e.name.lower() not in ctes and not _columns_of(e, schema) or not isinstance(
            e, (exp.Table, exp.Subquery)) for e in entries):
        return  # a source whose columns Cairn cannot list: a name may be one of them
    columns = set().union(*({p.alias_or_name.lower() for p in ctes[e.name.lower()].expressions}
                            if isinstance(e, exp.Table) and e.name.lower() in ctes else _columns_of(e, schema)
                            for e in entries))  # every source of the query: a correlated name is a column too
    for select in list(tree.find_all(exp.Select)):
        joined = _join_equalities(select)
        for item in list(select.expressions):
            name = item.this if isinstance(item, exp.EQ) else None
            if not isinstance(name, exp.Column) or name.table or not item.expression.find(
                    exp.Column, exp.AggFunc, exp.Func):
                continue  # ``x = 5`` compares
            constant = (name.name.lower(), item.expression.sql().lower()) in joined
            if name.name.lower() in columns and not constant:
                continue  # a name a table of the query has is a column, not an alias
            before = item.sql(dialect=dialect)
            item.replace(exp.alias_(item.expression.copy(), name.name, quoted=name.this.quoted))
            fixes.append(f"{before} -> {item.expression.sql(dialect=dialect)} AS {name.name} (T-SQL's alias = "
                         "expression" + ("; as a comparison its join makes it the same on every row)" if constant
                                         else ")"))


def _join_equalities(select: exp.Select) -> set[tuple[str, str]]:
    """(a column's bare name, the other side as written) of each equality of two columns in the SELECT's join
    conditions, both ways round: ``ON c.id = s.customer_id`` gives (customer_id, c.id) and (id, s.customer_id). A
    select item ``customer_id = c.id`` that is one of them compares what the join already equates: true (or NULL) on
    every row, never a question's answer — T-SQL's ``alias = expression``."""
    pairs: set[tuple[str, str]] = set()
    for join in select.args.get("joins") or []:
        for eq in join.args["on"].find_all(exp.EQ) if join.args.get("on") is not None else ():
            if isinstance(eq.this, exp.Column) and isinstance(eq.expression, exp.Column):
                pairs |= {(eq.this.name.lower(), eq.expression.sql().lower()),
                          (eq.expression.name.lower(), eq.this.sql().lower())}
    return pairs


def unqualified_output_names(tree: exp.Expression, schema: Schema, fixes: list[str]) -> None:
    """``ORDER BY a.author_count`` where ``author_count`` names an item of the select list and the table behind
    ``a`` has no such column: the item, by its name (an error as written)."""
    for select in tree.find_all(exp.Select):
        named = {p.alias.lower() for p in select.expressions if p.alias}
        entries = {_name(e).lower(): e for e in _entries(select)}
        for clause in (select.args.get(k) for k in ("order", "group", "having")):
            for col in list(clause.find_all(exp.Column)) if clause is not None else ():
                entry = entries.get(col.table.lower()) if col.table else None
                if entry is None or col.name.lower() not in named or col.find_ancestor(exp.Select) is not select:
                    continue
                if col.name.lower() in _columns_of(entry, schema) or not _columns_of(entry, schema):
                    continue
                before, owner = col.sql(), col.table
                col.set("table", None)
                fixes.append(f"{before} -> {col.sql()} (the select list's name, not a column of {owner})")


def output_names_in_expressions(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str]) -> None:
    """``ORDER BY COALESCE(total, 0)`` or ``HAVING total > 5`` where ``total`` names an item of the select list and
    no table the SELECT reads has such a column: PostgreSQL takes an output name only as a whole ORDER BY key ("column
    total does not exist"), SQLite and MySQL read it as the item. The item's expression in its place, as they read
    it (PostgreSQL-like databases only; the others run it as written)."""
    if dialect not in ("postgres", "duckdb", "redshift"):
        return
    for select in tree.find_all(exp.Select):
        items = {p.alias.lower(): p.this for p in select.expressions if isinstance(p, exp.Alias) and p.alias}
        if not items:
            continue
        known: set[str] = set()
        for entry in _entries(select):
            columns = source_columns(entry, schema, tree)
            if not columns:
                break
            known |= columns
        else:
            for clause in (select.args.get("order"), select.args.get("having")):
                for col in list(clause.find_all(exp.Column)) if clause is not None else ():
                    name = col.name.lower()
                    if col.table or name not in items or name in known or col.find_ancestor(exp.Select) is not select:
                        continue
                    if isinstance(col.parent, exp.Ordered):
                        continue  # a whole ORDER BY key: PostgreSQL reads the name itself
                    if items[name].find(exp.Window) is not None and clause is select.args.get("having"):
                        continue
                    col.replace(items[name].copy())
                    fixes.append(f"{name} inside an expression of ORDER BY or HAVING read as the select list's item")


def source_columns(entry: exp.Expression, schema: Schema, tree: exp.Expression) -> set[str]:
    """The column names a FROM entry gives — a table's, a derived table's, or a CTE of ``tree``'s output names —;
    empty where they are not known (a table function, a star)."""
    columns = _columns_of(entry, schema)
    if not columns and isinstance(entry, exp.Table):
        cte = next((c for c in tree.find_all(exp.CTE) if c.alias.lower() == entry.name.lower()), None)
        body = cte.this if cte is not None else None
        columns = {p.alias_or_name.lower() for p in body.expressions} if isinstance(body, exp.Select) else set()
    return set() if "*" in columns else columns
