"""Hidden columns stay out of every query: a ``*`` is narrowed to the visible columns, and any other way of reading
a whole row of a table that hides columns is refused, before anything runs.

Hiding ``people.ssn`` takes it out of the schema the model sees and validation checks names against, but a query
can read it without naming it: ``SELECT *`` or ``p.*`` (kept, narrowed to the visible columns in the same order
with the same names), a whole row used as a value (``row_to_json(p)``, ``to_jsonb(p)``, ``p::text``,
``CAST(p AS text)``, ``ROW(p.*)``, ``hstore(p)``, ``json_agg(p)``, PostgreSQL's ``ssn(p)`` and ``(p).ssn``,
DuckDB's struct ``p`` and ``p['ssn']``), a column-alias list that renames columns by position
(``people AS p(a, b, c)``), DuckDB's ``COLUMNS(…)``, ``* LIKE`` and positional ``#3``, ``NATURAL JOIN`` and
``USING`` over a hidden name, and a position (``ORDER BY 3``) past the narrowed columns. Each is found in the parse
tree, scope by scope (a CTE or subquery named like a table is not that table); ``COUNT(*)`` reads no column and
stays. A hidden column named outright is unknown, as in validation (which a ``VALUES`` statement skips). A query
that reads no table with hidden columns comes back untouched.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp
from sqlglot.optimizer.scope import Scope, traverse_scope, walk_in_scope

from core.errors import HiddenColumnRefused, SQLValidationError
from core.schema import Schema, Table
from core.sql.repair import needs_quotes
from core.sql._slips import PARSE_FAILURES

__all__ = ["HiddenColumns", "keep_hidden_out", "keep_hidden_out_sql"]


@dataclass(frozen=True)
class HiddenColumns:
    """What one connection hides: tables whose columns are partly hidden (by folded qualified name: their visible
    columns, in table order) and tables hidden whole, looked up in the full schema."""

    schema: Schema
    visible: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    hidden: Mapping[str, frozenset[str]] = field(default_factory=dict)  # folded hidden column names
    tables: frozenset[str] = frozenset()

    @classmethod
    def of(cls, schema: Schema, hidden: Iterable[str]) -> HiddenColumns:
        """From the full ``schema`` and the settings' ``table`` / ``table.column`` names (as ``Schema.without``)."""
        shown = {t.qualified_name.casefold(): t for t in schema.without(list(hidden)).tables}
        visible: dict[str, tuple[str, ...]] = {}
        hidden_cols: dict[str, frozenset[str]] = {}
        gone: set[str] = set()
        for table in schema.tables:
            key = table.qualified_name.casefold()
            if key not in shown:
                gone.add(key)
            elif len(shown[key].columns) < len(table.columns):
                visible[key] = shown[key].column_names
                hidden_cols[key] = frozenset(c.casefold() for c in table.column_names) - {
                    c.casefold() for c in visible[key]}
        return cls(schema, visible, hidden_cols, frozenset(gone))

    def __bool__(self) -> bool:
        return bool(self.visible or self.tables)

    def schema_table(self, node: exp.Table) -> Table | None:
        """The schema's table a base-table node names. A qualifier the schema does not list (SQLite's and DuckDB's
        ``main``, a DuckDB file's catalog: ``shop.main.customers``) names the table of that bare name: the same
        table, which must not escape its hidden columns by being written in full."""
        table = self.schema.table(f"{node.db}.{node.name}" if node.db else node.name)
        if table is None and (node.db or node.catalog):
            table = self.schema.table(node.name)
        return table

    def lookup(self, node: exp.Table) -> tuple[str, Table] | None:
        """The folded name and full table of a base-table node that hides something (columns or all of it)."""
        if not isinstance(node.this, exp.Identifier):
            return None  # a table function, not a table
        table = self.schema_table(node)
        if table is None:
            return None
        key = table.qualified_name.casefold()
        return (key, table) if key in self.visible or key in self.tables else None


def keep_hidden_out_sql(sql: str, hidden: HiddenColumns | None, dialect: str) -> str:
    """``sql`` as it may run: unchanged when it reads nothing hidden, else with its stars narrowed; raises
    :class:`HiddenColumnRefused` for any other way to a hidden column."""
    if not hidden:
        return sql
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (*PARSE_FAILURES, RecursionError) as exc:
        raise HiddenColumnRefused("Cairn could not read which columns this query uses") from exc
    narrowed = keep_hidden_out(tree, hidden, dialect)
    return sql if narrowed is tree else narrowed.sql(dialect=dialect)


def keep_hidden_out(expression: exp.Expression, hidden: HiddenColumns, dialect: str) -> exp.Expression:
    """``expression`` itself when it reads no table that hides columns, else a copy with every ``*`` over such a
    table narrowed to its visible columns; raises :class:`HiddenColumnRefused` for a whole-row reference and the
    other forms in the module's docstring."""
    if not hidden or not any(hidden.lookup(t) for t in expression.find_all(exp.Table)):
        return expression
    tree = expression.copy()
    for node in tree.find_all(exp.Summarize, exp.Describe):  # DuckDB: every column's min, max and more, by name
        found = hidden.lookup(node.this) if isinstance(node.this, exp.Table) else None
        if found is not None:
            raise _refuse(found[1], hidden, "summarises every column of {t}, its values included")
    unread = HiddenColumnRefused("Cairn could not read which columns this query uses, and it reads a table with "
                                 "columns hidden from the model", hint="Write it as one plain SELECT that names the "
                                 "columns it needs.")
    # scopes start at a query: a statement of another kind (VALUES with a subquery) is read query by query
    roots = [tree] if isinstance(tree, exp.Query) else [
        q for q in tree.find_all(exp.Query) if q.find_ancestor(exp.Query) is None]
    try:
        scopes = [scope for root in roots for scope in traverse_scope(root)]
    except (*PARSE_FAILURES, RecursionError) as exc:
        raise unread from exc
    seen = {id(t) for scope in scopes for t in scope.tables}  # tables and references to a CTE
    if any(hidden.lookup(t) and id(t) not in seen for t in tree.find_all(exp.Table)):
        raise unread  # a table no scope reads as a source: its columns cannot be followed
    narrowed = False
    for scope in scopes:
        narrowed = _Check(scope, hidden, dialect).run() or narrowed
    return tree if narrowed else expression


def _refuse(table: Table, hidden: HiddenColumns, how: str) -> HiddenColumnRefused:
    """``how``: what the query does, with ``{t}`` where the table's name goes."""
    shown = hidden.visible.get(table.qualified_name.casefold(), ())
    return HiddenColumnRefused(
        f"The query {how.format(t=table.qualified_name)}, and {table.qualified_name} has columns hidden from the "
        "model: name the columns you need instead",
        hint=f"Name the columns you need ({', '.join(shown[:6])}{', …' if len(shown) > 6 else ''}); some columns "
             f"of {table.qualified_name} are hidden (settings: hidden).")


class _Check:
    """One scope (a SELECT, a set operation): its sources that hide columns, then every node of it."""

    def __init__(self, scope: Scope, hidden: HiddenColumns, dialect: str) -> None:
        self.scope, self.hidden, self.dialect = scope, hidden, dialect
        self.sources: dict[str, tuple[exp.Table, Table]] = {}  # folded name in scope -> node, full table
        for name, source in scope.sources.items():
            found = hidden.lookup(source) if isinstance(source, exp.Table) else None
            if found is None:
                continue
            if found[0] in hidden.tables:  # validation calls it unknown first; here only if a path skipped it
                raise SQLValidationError(f"Unknown table {source.name}")
            self.sources[name.casefold()] = (source, found[1])
            alias = source.args.get("alias")
            if alias is not None and alias.columns:
                raise _refuse(found[1], hidden, "renames the columns of {t} by position")

    def chain(self) -> Iterator[Scope]:
        scope: Scope | None = self.scope
        while scope is not None:
            yield scope
            scope = scope.parent

    def source(self, name: str) -> tuple[bool, Table | None]:
        """Whether ``name`` is a source here or in an enclosing scope (the nearest wins), and the table that hides
        columns it stands for (None: another table, a CTE or a subquery)."""
        for scope in self.chain():
            for key, source in scope.sources.items():
                if key.casefold() == name.casefold():
                    found = self.hidden.lookup(source) if isinstance(source, exp.Table) else None
                    return True, (found[1] if found else None)
        return False, None

    def resolve(self, name: str) -> Table | None:
        return self.source(name)[1]

    def run(self) -> bool:
        """Check the scope, narrowing its stars in place; whether any star was narrowed."""
        select = self.scope.expression
        narrowed = False
        if isinstance(select, exp.Select) and self.sources:
            self.joins(select)
            narrowed = self.narrow_stars(select)
        for node in list(walk_in_scope(select)):
            if isinstance(node, exp.Column):
                self.column(node)
            elif isinstance(node, exp.Star) and not isinstance(node.parent, (exp.Count, exp.Column)):
                if node.parent is not select or node.args.get("except_") or node.args.get("replace") \
                        or node.args.get("rename"):
                    self.any_source("reads columns of {t} by a pattern or a * inside an expression")
            elif isinstance(node, exp.Columns):
                self.any_source("reads columns of {t} by a pattern (COLUMNS)")
            elif isinstance(node, exp.PositionalColumn):  # DuckDB's #3: the third column of the FROM, hidden or not
                self.any_source("reads a column of {t} by its position (#n)")
        return narrowed

    def any_source(self, how: str) -> None:
        for scope in self.chain():
            for source in scope.sources.values():
                found = self.hidden.lookup(source) if isinstance(source, exp.Table) else None
                if found:
                    raise _refuse(found[1], self.hidden, how)

    def joins(self, select: exp.Select) -> None:
        for join in select.args.get("joins") or ():
            if join.method.upper() == "NATURAL":
                raise _refuse(next(iter(self.sources.values()))[1], self.hidden,
                              "joins {t} on every shared column (NATURAL JOIN)")
            for ident in join.args.get("using") or ():
                for _, table in self.sources.values():
                    if ident.name.casefold() in self.hidden.hidden.get(table.qualified_name.casefold(), ()):
                        raise _refuse(table, self.hidden, "joins {t} with USING on a column it hides")

    def column(self, col: exp.Column) -> None:
        if isinstance(col.this, exp.Star):  # p.* outside the SELECT list (ROW(p.*), count(p.*), p.*::text)
            table = self.resolve(col.table) if col.table else None
            if table is not None:
                raise _refuse(table, self.hidden, f"reads whole rows of {{t}} ({col.sql(dialect=self.dialect)})")
            return
        name = col.name.casefold()
        if col.table:
            known, table = self.source(col.table)
            if table is not None and name in self.hidden.hidden.get(table.qualified_name.casefold(), ()):
                raise SQLValidationError(f"Unknown column {col.table}.{col.name}")
            if known:
                return
            row = self.resolve(col.name)  # schema.table as a whole row (public.people)
            if row is not None:
                raise _refuse(row, self.hidden, f"reads whole rows of {{t}} ({col.sql(dialect=self.dialect)})")
            return
        if self.output_alias(col) or name in self.known_columns():
            return
        for scope in self.chain():
            for source in scope.sources.values():
                found = self.hidden.lookup(source) if isinstance(source, exp.Table) else None
                if found and name in self.hidden.hidden.get(found[0], ()):
                    raise SQLValidationError(f"Unknown column {col.name}")
        row = self.resolve(col.name)
        if row is not None:  # a table or alias used as a value: the whole row (PostgreSQL record, DuckDB struct)
            raise _refuse(row, self.hidden, f"uses a whole row of {{t}} as a value ({col.name})")

    def output_alias(self, col: exp.Column) -> bool:
        """An ORDER BY / GROUP BY name that is one of the SELECT's own output names."""
        select = self.scope.expression
        clause = col.find_ancestor(exp.Order, exp.Group, exp.Select)
        return isinstance(clause, (exp.Order, exp.Group)) and clause.parent is select and \
            col.name.casefold() in {n.casefold() for n in select.named_selects}

    def known_columns(self) -> set[str]:
        """Visible column names of every source in reach (a table's schema columns, a subquery's output names)."""
        out: set[str] = set()
        chain = list(self.chain())
        for scope in chain:
            for source in scope.sources.values():
                if any(source is mine for mine in chain):
                    continue  # this very query seen from outside: its own output names resolve nothing in it
                if isinstance(source, exp.Table):
                    found = self.hidden.lookup(source)
                    table = found[1] if found else self.hidden.schema_table(source)
                    hidden = self.hidden.hidden.get(found[0], frozenset()) if found else frozenset()
                    if table is not None:
                        out.update(c.casefold() for c in table.column_names if c.casefold() not in hidden)
                elif isinstance(source, Scope) and isinstance(source.expression, exp.Query):
                    out.update(n.casefold() for n in source.expression.named_selects)
        return out

    def narrow_stars(self, select: exp.Select) -> bool:
        """``*`` and ``p.*`` in the SELECT list over a table that hides columns: its visible columns, qualified."""
        items: list[exp.Expression] = []
        safe: int | None = None  # output positions that keep their meaning (ORDER BY 2): those before the first
        width: int | None = 0  # narrowed column; the output columns so far (None: a * of unknown width came first)
        for item in select.expressions:
            parts = self.star_parts(select, item)
            if parts is None:
                items.append(item)
                starred = isinstance(item, exp.Star) or isinstance(item, exp.Column) and isinstance(item.this, exp.Star)
                width = None if width is None or starred else width + 1
                continue
            if safe is None:
                safe = (width + self.kept_prefix(select, item)) if width is not None else 0
            items.extend(parts)
        if safe is None:
            return False
        distinct = select.args.get("distinct")
        for clause in (select.args.get("order"), select.args.get("group"), distinct and distinct.args.get("on")):
            for node in (clause.find_all(exp.Literal) if clause else ()):
                at_top = any(node.parent is p for p in (clause, *(clause.expressions or ())))
                if node.is_int and at_top and int(node.this) > safe:
                    raise _refuse(next(iter(self.sources.values()))[1], self.hidden, "refers to a column by its "
                                  "position after a * over {t}")
        select.set("expressions", items)
        return True

    def star_parts(self, select: exp.Select, item: exp.Expression) -> list[exp.Expression] | None:
        """What ``item`` becomes (None: it stays as it is)."""
        if isinstance(item, exp.Column) and isinstance(item.this, exp.Star):
            table = self.sources.get(item.table.casefold()) if item.table else None
            if table is None:
                return None
            if any(item.this.args.get(k) for k in ("except_", "replace", "rename")):
                raise _refuse(table[1], self.hidden, "reads columns of {t} by a pattern")
            return self.visible(table[1], item.args.get("table"), item.args.get("db"), item.args.get("catalog"))
        if not isinstance(item, exp.Star):
            return None
        if any(item.args.get(k) for k in ("except_", "replace", "rename")):
            self.any_source("reads columns of {t} by a pattern")
            return None
        sources = self.from_items(select)
        if not any(s.alias_or_name.casefold() in self.sources for s in sources):
            return None
        if any(j.args.get("using") for j in select.args.get("joins") or ()):
            raise _refuse(next(iter(self.sources.values()))[1], self.hidden, "reads * over {t} joined with USING")
        parts: list[exp.Expression] = []
        for source in sources:
            name = source.alias_or_name
            if name.casefold() in self.sources:
                node, table = self.sources[name.casefold()]
                alias = node.args.get("alias")
                if alias is not None and alias.this:
                    parts += self.visible(table, alias.this)
                else:
                    parts += self.visible(table, node.this, node.args.get("db"), node.args.get("catalog"))
            elif name:
                parts.append(exp.Column(this=exp.Star(), table=exp.to_identifier(name, quoted=_quoted(source))))
            else:  # a source without a name cannot be spelled alone
                raise _refuse(next(iter(self.sources.values()))[1], self.hidden, "reads * over {t} and a source "
                              "without a name")
        return parts

    def kept_prefix(self, select: exp.Select, item: exp.Expression) -> int:
        """How many of ``item``'s output columns keep their position when it is narrowed (before the first hidden)."""
        if isinstance(item, exp.Column):
            first = self.sources[item.table.casefold()][1]
        else:
            first_source = self.from_items(select)[0]
            if first_source.alias_or_name.casefold() not in self.sources:
                return 0
            first = self.sources[first_source.alias_or_name.casefold()][1]
        hidden = self.hidden.hidden[first.qualified_name.casefold()]
        return next(i for i, c in enumerate(first.column_names) if c.casefold() in hidden)

    @staticmethod
    def from_items(select: exp.Select) -> list[exp.Expression]:
        start = select.args.get("from_") or select.args.get("from")
        return ([start.this] if start else []) + [j.this for j in select.args.get("joins") or ()]

    def visible(self, table: Table, qualifier: exp.Identifier | None, db: exp.Identifier | None = None,
                catalog: exp.Identifier | None = None) -> list[exp.Expression]:
        return [exp.Column(this=exp.to_identifier(c, quoted=needs_quotes(c, self.dialect)),
                           table=qualifier.copy() if qualifier else None, db=db.copy() if db else None,
                           catalog=catalog.copy() if catalog else None)
                for c in self.hidden.visible[table.qualified_name.casefold()]]


def _quoted(source: exp.Expression) -> bool:
    alias = source.args.get("alias")
    ident = alias.this if alias is not None and alias.this else source.this
    return bool(isinstance(ident, exp.Identifier) and ident.quoted)
