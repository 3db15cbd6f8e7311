"""Column-name repair, scope by scope: spell each column as the schema does, or point it at the one column
it surely means.

Qualified columns are checked against their table or alias; unqualified ones against the FROM/JOIN sources
of their SELECT, then the enclosing query (correlation), then the SELECT's own aliases. A column qualified
with the wrong alias moves to the one source that has it; an unqualified column that two joined tables
share is qualified with the first when the join equates them.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

from sqlglot import exp
from sqlglot.optimizer.scope import Scope

from core.dialects import exact_table_names
from core.errors import SQLValidationError
from core.schema import Schema
from core.sql.repair.joins import named_key, self_comparison, settle_ambiguous
from core.sql.repair._types import narrow_by_type, narrow_by_values
from core.sql.repair._unquoted import compared_kind
from core.sql.repair._names import (GUESSED, Candidate, Meaning, Named, abbreviates, closest, effective, identifier,
                                    matches, pick, suggested, tokens)
from core.sql.repair._scope import (
    PSEUDO_COLUMNS,
    Source,
    ancestors,
    find_source,
    passed_through,
    scope_sources,
    scopes,
    select_aliases,
    shared_column_owner,
)

__all__ = ["repair_columns"]

logger = logging.getLogger(__name__)
UNKNOWN_ALIAS_FIX = " (an alias the query never gave)"  # a qualifier that names no table, read as the column's
AMBIGUOUS_FIX = " (ambiguous)"  # how the note of a qualified ambiguous column ends: it makes an error go away


class _Repairer:
    def __init__(self, schema: Schema, dialect: str, fixes: list[str], meaning: Meaning | None = None,
                 named: Named | None = None) -> None:
        self.schema, self.dialect, self.fixes, self.meaning, self.named = schema, dialect, fixes, meaning, named
        self._sources: dict[int, list[Source]] = {}
        self._names: frozenset[str] | None = None

    def sources(self, scope: Scope) -> list[Source]:
        key = id(scope)
        if key not in self._sources:
            self._sources[key] = scope_sources(scope, self.schema, self.dialect)
        return self._sources[key]

    def outer_sources(self, scope: Scope) -> list[Source]:
        out: list[Source] = []
        for parent in ancestors(scope):
            out.extend(self.sources(parent))
        return out

    # -- edits ---------------------------------------------------------------------------------------
    def _set_name(self, col: exp.Column, name: str) -> None:
        before = col.sql(dialect=self.dialect)
        col.set("this", identifier(name, self.dialect))
        self.fixes.append(f"column {before} -> {col.sql(dialect=self.dialect)}")

    def _set_qualifier(self, col: exp.Column, src: Source, name: str | None = None) -> None:
        before = col.sql(dialect=self.dialect)
        ident = src.key_ident.copy() if src.key_ident is not None else exp.to_identifier(src.key)
        col.set("table", ident)
        col.set("db", None)
        col.set("catalog", None)
        if name is not None:
            col.set("this", identifier(name, self.dialect))
        self.fixes.append(f"column {before} -> {col.sql(dialect=self.dialect)}")

    def _typed(self, col: exp.Column, candidates: list[Candidate]) -> list[Candidate]:
        """The candidates the use of ``col`` allows by type, and by the values it is compared with (see ``_types``)."""

        def column_of(cand: object) -> Any:
            src = cand.target  # type: ignore[attr-defined]
            return src.table.column(cand.name) if src.table is not None else None  # type: ignore[attr-defined]

        def type_of(cand: object) -> str | None:
            column = column_of(cand)
            return column.type if column is not None else None

        def values_of(cand: object) -> tuple[str, ...]:
            column = column_of(cand)
            return tuple(column.value_hints) if column is not None else ()

        typed = narrow_by_type(col, candidates, type_of, self.dialect, values_of)
        return narrow_by_values(col, typed, values_of)  # type: ignore[return-value]

    def _owner_keys(self, scope: Scope) -> Callable[[exp.Column], list[str]]:
        """The source keys a bare column may read in ``scope``."""
        return lambda col: [s.key for s in self.sources(scope) if s.has(col.this, self.dialect) is not None]

    def _fail(self, col: exp.Column, where: list[Source], names: list[str]) -> SQLValidationError:
        """The error for a name no rule reads, with the columns it may mean: the closest by meaning first (``score``:
        rating), for the model's repair round and the person — never taken on that closeness alone."""
        tables = ", ".join(s.table.qualified_name if s.table else s.key for s in where) or "the query"
        near = names or closest(col.name, [c for s in where for c in s.columns])
        if self.meaning is not None:
            near = list(dict.fromkeys([*suggested(col.name, [c for s in where for c in s.columns], self.meaning),
                                       *near]))[:4]
        message = f"Unknown column {col.sql(dialect=self.dialect)} in {tables}"
        if near:
            message += f"; closest columns: {', '.join(near)}"
        return SQLValidationError(message, hint=f"Use a column of {tables}, e.g. {', '.join(near)}." if near else None)

    # -- checks --------------------------------------------------------------------------------------
    def qualified(self, col: exp.Column, scope: Scope) -> None:
        local = self.sources(scope)
        qualifier = col.args["table"]
        stutter = col.args.get("db")  # ``domain.domain.name``: the qualifier written twice, no schema of that name
        if isinstance(stutter, exp.Identifier) and stutter.this.lower() == qualifier.this.lower() and not any(
                (t.schema or "").lower() == stutter.this.lower() for t in self.schema.tables):
            before = col.sql(dialect=self.dialect)
            col.set("db", None)
            self.fixes.append(f"column {before}: its qualifier written twice -> {col.sql(dialect=self.dialect)}")
        src = find_source(qualifier, local) or find_source(qualifier, self.outer_sources(scope))
        turned = find_source(col.this, local) if src is None and isinstance(col.this, exp.Identifier) else None
        if turned is not None and turned.has(qualifier, self.dialect) is not None and not any(
                s.has(col.this, self.dialect) is not None for s in local):  # ``name.author``: the column, then its
            written = col.sql(dialect=self.dialect)  # table, where the table is the query's and has that column
            col.set("this", qualifier.copy())
            self._set_qualifier(col, turned)
            self.fixes[-1] = f"column {written} -> {col.sql(dialect=self.dialect)} (table and column the other way round)"
            return
        if src is None:
            by_table = [s for s in local if s.table is not None and s.table.name.lower() == qualifier.this.lower()]
            if len(by_table) == 1:  # table name used although the table has an alias
                src = by_table[0]
                if not isinstance(col.this, exp.Star) and src.has(col.this, self.dialect) is None:
                    src = None
                else:
                    self._set_qualifier(col, src)
                    return
        if isinstance(col.this, exp.Star):
            if src is None:
                raise SQLValidationError(f"Unknown table or alias {qualifier.sql()} in {col.sql()}")
            return
        if src is None:
            owners = [s for s in local if s.has(col.this, self.dialect) is not None]
            unjoined = self._unjoined(qualifier.this, col, local)
            meant = owners[0] if len(owners) == 1 else _undeclared_alias(qualifier.this, owners)
            # ``s.id`` with ``FROM sales JOIN salespersons sp``: the alias sales never got. Not when the qualifier
            # names a table the query forgot to join rather than this one (``writes.pid`` is not ``publication.pid``,
            # ``d.name`` not ``author.name``), nor to make a join compare a table with itself.
            named = meant is not None and meant.table is not None and abbreviates(qualifier.this, meant.table.name)
            if meant is not None and (named or not unjoined) and not self_comparison(col, meant.key,
                                                                                      self._owner_keys(scope)):
                self._set_qualifier(col, meant)
                if not named:  # ``m.first_name`` read as ``e.first_name``: a guess (a self-join may be meant)
                    self.fixes[-1] += UNKNOWN_ALIAS_FIX
                return
            if (passed := passed_through(scope, qualifier.this, col.name)) is not None:  # read through a CTE
                self._set_qualifier(col, next(s for s in local if s.key == passed[0]), passed[1])
                self.fixes[-1] += f" (passed on by {passed[0]})"
                return
            hint = f"Join {' or '.join(unjoined)} before reading its columns." if unjoined else None
            raise SQLValidationError(
                f"Unknown table or alias {qualifier.sql()} in {col.sql(dialect=self.dialect)}; "
                f"the query reads {', '.join(s.key for s in local) or 'no table'}"
                + (f" and does not join {', '.join(unjoined)}" if unjoined else ""), hint=hint)
        self._fix_qualifier_spelling(col, src)
        if src.has(col.this, self.dialect) is not None:
            return
        if src.open:
            return
        spelled = self._spelling(col.name, [src])
        if spelled is not None:
            self._set_name(col, spelled)
            return
        joining = isinstance(col.parent, exp.EQ) and col.find_ancestor(exp.Join) is not None
        own_key = named_key(col.name, src) if joining and src.table is not None and tokens(col.name)[:-1] == tokens(
            src.table.name) and not self_comparison(col, src.key, self._owner_keys(scope)) else None
        if own_key is not None:  # ``JOIN … ON c.car_id = lis.car_id`` where cars' key is id: the car's own id
            self._set_name(col, own_key)
            return
        owners = [s for s in local if s is not src and s.has(col.this, self.dialect) is not None]
        if len(owners) > 1 and not _outer_joined(scope, owners):  # ``author.pid`` where writes and publication,
            owners = [o] if (o := shared_column_owner(scope, owners, col.name, self.dialect)) else owners  # joined
            # on pid, both have it: either reads the same value
        if len(owners) == 1 and not self_comparison(col, owners[0].key, self._owner_keys(scope)):  # wrong alias
            self._set_qualifier(col, owners[0])
            return
        if len(owners) > 1:  # the name is right and the qualifier wrong: never a look-alike of this table (pid -> aid)
            keys = ", ".join(o.key for o in owners)
            raise SQLValidationError(f"{col.sql(dialect=self.dialect)}: {src.key} has no column {col.name}; {keys} "
                                     "have it", hint=f"Qualify {col.name} with the table it belongs to ({keys}).")
        key = named_key(col.name, src, self.schema, col)
        if key is not None:  # ``publication.publication_id`` where publication's key is pid
            self._set_name(col, key)
            return
        best, near = pick(col.name, self._typed(col, [Candidate(c, src, src.context) for c in src.columns]))
        if best is not None:
            self._set_name(col, best.name)
            return
        owners = [s for s in local if s is not src and self._spelling(col.name, [s]) is not None]
        if len(owners) == 1 and not self_comparison(col, owners[0].key, self._owner_keys(scope)):
            self._set_qualifier(col, owners[0], self._spelling(col.name, owners))
            return
        if not self._named_by_question(col, [src]):
            raise self._fail(col, [src], near)

    def _named_by_question(self, col: exp.Column, where: list[Source]) -> bool:
        """A name no table of ``where`` has and no rule reads, where the question's words name one column its use
        allows (``named``): that one, as a guess the model is asked about first."""
        if isinstance(col.parent, exp.Is) or self.named is None:
            return False  # ``deleted_at IS NULL``: a flag of a state, never some other date's
        allowed = {(c.target.key, c.name) for c in self._typed(col, [Candidate(c, s, s.context) for s in where
                                                                       for c in s.columns])}
        chosen = {(s, n) for s in where if s.table is not None and self.named is not None
                  and (n := self.named(s.table, col.name)) is not None and (s.key, n) in allowed}
        if len(chosen) != 1:
            return False
        self._set_qualifier(col, *chosen.pop())
        self.fixes[-1] += GUESSED
        return True

    def _unjoined(self, qualifier: str, col: exp.Column, local: list[Source]) -> list[str]:
        """Tables the query does not read that ``qualifier`` names and that hold ``col``, or that it names exactly
        (``journal.title`` names journal, title or not): a join left out."""
        read = {s.table.qualified_name.lower() for s in local if s.table is not None}
        return [t.name for t in self.schema.tables if t.qualified_name.lower() not in read and (
            tokens(t.name) == tokens(qualifier) or abbreviates(qualifier, t.name) and any(
                matches(col.this, c, self.dialect) for c in t.column_names))]

    def _fix_qualifier_spelling(self, col: exp.Column, src: Source) -> None:
        """PostgreSQL: ``Customer.x`` does not reach a table spelt "Customer"; MySQL: ``A.x`` does not reach alias
        ``a``. The qualifier takes the source's spelling."""
        qualifier = col.args["table"]
        if src.key_ident is not None and exact_table_names(self.dialect) and qualifier.this != src.key_ident.this:
            before = col.sql(dialect=self.dialect)  # MySQL on Linux: an alias or table name only as spelled
            col.set("table", src.key_ident.copy())
            self.fixes.append(f"column {before} -> {col.sql(dialect=self.dialect)}")
            return
        if self.dialect != "postgres" or src.key_ident is None:
            return
        if qualifier.quoted == src.key_ident.quoted and qualifier.this == src.key_ident.this:
            return
        want = src.key_ident.this if src.key_ident.quoted else src.key_ident.this.lower()
        have = qualifier.this if qualifier.quoted else qualifier.this.lower()
        if want != have:
            before = col.sql(dialect=self.dialect)
            col.set("table", src.key_ident.copy())
            self.fixes.append(f"column {before} -> {col.sql(dialect=self.dialect)}")

    def _spelling(self, name: str, where: list[Source]) -> str | None:
        """The real spelling of ``name`` when only case or quoting is off."""
        found = {c for s in where for c in s.columns if c.lower() == name.lower()}
        return next(iter(found)) if len(found) == 1 else None

    def _column_names(self) -> frozenset[str]:
        if self._names is None:
            self._names = frozenset(c.name.lower() for t in self.schema.tables for c in t.columns)
        return self._names

    def unqualified(self, col: exp.Column, scope: Scope) -> None:
        local = self.sources(scope)
        ident = col.this
        if any(s.has(ident, self.dialect) is not None for s in local):
            return
        name = col.name
        if name.lower() in select_aliases(scope) or self._alias_written_otherwise(col, scope):
            self._respell_alias(col, scope)
            return
        if name.lower() in PSEUDO_COLUMNS:
            spelled = self._spelling(name, local)  # "Oid" on a table with a real oid column
            if spelled is not None:
                self._set_name(col, spelled)
            return
        if any(s.key.lower() == name.lower() for s in local):
            if isinstance(col.parent, (exp.Group, exp.Ordered)):  # ``GROUP BY publication.`` cut after the dot
                clause, verb = ("GROUP BY", "group") if isinstance(col.parent, exp.Group) else ("ORDER BY", "sort")
                raise SQLValidationError(f"{name} in {clause} names a table, not a column: it would {verb} by "
                                         "whole rows", hint=f"Name the column of {name} to use.")
            return  # whole-row reference (``row_to_json(p)``, ``COUNT(p)``)
        if ident.quoted and "." in name and self._split_quoted(col, scope, local):
            return
        outer = self.outer_sources(scope)
        if any(s.has(ident, self.dialect) is not None for s in outer):
            return
        if any(s.open for s in local) or any(s.open for s in outer) or not local and not outer:
            return  # cannot tell
        for where in (local, outer):
            spelled = self._spelling(name, where)
            if spelled is not None:
                self._set_name(col, spelled)
                return
        quoted_in_sqlite = self.dialect == "sqlite" and ident.quoted
        if quoted_in_sqlite and _value_position(col, self._column_names()):
            return  # SQLite reads an unknown "name" compared with a column as a string: status = "active"
        if ident.quoted and _value_position(col, self._column_names()):
            # PostgreSQL rejects the unknown name; the writer meant a string, as MySQL and SQLite read it
            before = col.sql(dialect=self.dialect)
            col.replace(exp.Literal.string(name))
            self.fixes.append(f"{before} -> '{name}' (a value, not a column)")
            return
        keyed = [(s, key) for s in local if (key := named_key(name, s, self.schema)) is not None]
        if len(keyed) == 1:  # ``publication_id`` where publication's key is pid
            self._set_qualifier(col, keyed[0][0], keyed[0][1])
            return
        candidates = self._typed(col, [Candidate(c, s, s.context) for s in local for c in s.columns])
        best, near = pick(name, candidates)
        if best is None:
            if quoted_in_sqlite:
                return  # no column it surely means: SQLite reads it as a string, as written
            if not ident.quoted and name.lower() not in self._column_names() and compared_kind(
                    col, local, self.dialect) == "text":
                col.replace(exp.Literal.string(name))  # to_airport = JFK: no column anywhere, a text beside it
                self.fixes.append(f"{name} -> '{name}' (a value written without quotes)")
                return
            if not self._named_by_question(col, local):
                raise self._fail(col, local, near)
            return
        owners = [s for s in local if best.name in s.columns]
        if len(owners) > 1:
            owner = shared_column_owner(scope, owners, best.name, self.dialect)
            if owner is None:
                raise SQLValidationError(
                    f"Unknown column {name}; {best.name} is in several tables "
                    f"({', '.join(s.key for s in owners)}) and it is unclear which is meant"
                )
            self._set_qualifier(col, owner, best.name)
            return
        self._set_name(col, best.name)

    def _split_quoted(self, col: exp.Column, scope: Scope, local: list[Source]) -> bool:
        """```c.id``` or ``"c.id"``: a qualified name quoted as one identifier (SQLite would read it as the string
        'c.id'). It is split when the part before the dot names a source of the query and the rest is its column."""
        qualifier, _, name = col.name.rpartition(".")
        src = find_source(exp.to_identifier(qualifier), local) or find_source(exp.to_identifier(qualifier),
                                                                              self.outer_sources(scope))
        real = src.has(name, self.dialect) if src is not None else None
        if src is None or real is None:
            return False
        before = col.sql(dialect=self.dialect)
        col.set("this", identifier(real, self.dialect))
        col.set("table", src.key_ident.copy() if src.key_ident is not None else exp.to_identifier(src.key))
        self.fixes.append(f"{before} -> {col.sql(dialect=self.dialect)} (a qualified name quoted as one)")
        return True

    @staticmethod
    def _alias_written_otherwise(col: exp.Column, scope: Scope) -> bool:
        """``ORDER BY total_citations`` for ``AS 'Total Citations'``: in ORDER BY, GROUP BY or HAVING, a name that is
        one output alias written in snake case (its words joined by ``_``, lower case)."""
        return col.find_ancestor(exp.Order, exp.Group, exp.Having) is not None and sum(
            _snake(a) == col.name.lower() for a in select_aliases(scope)) == 1

    def _respell_alias(self, col: exp.Column, scope: Scope) -> None:
        """``ORDER BY "Total"`` for ``AS total``: spell the reference as the output alias is spelt (``total_citations``
        for ``AS "Total Citations"`` too)."""
        for proj in scope.expression.expressions:
            alias = proj.args.get("alias") if isinstance(proj, exp.Alias) else None
            if not isinstance(alias, exp.Identifier) or _snake(alias.this) != _snake(col.name):
                continue
            if not matches(col.this, effective(alias, self.dialect), self.dialect):
                before = col.sql(dialect=self.dialect)
                col.set("this", alias.copy())
                self.fixes.append(f"column {before} -> {col.sql(dialect=self.dialect)}")
            return

    def ambiguous(self, col: exp.Column, scope: Scope) -> None:
        """PostgreSQL and SQLite reject an unqualified column two joined tables share; qualify it when the join equates
        them (either side then reads the same value), or when, in a join condition, every owner but one would compare
        the column with itself."""
        local = self.sources(scope)
        owners = [s for s in local if s.has(col.this, self.dialect) is not None]
        if len(owners) < 2:
            return
        if _using_columns(scope) & {col.name.lower()}:
            return
        owner = shared_column_owner(scope, owners, col.name, self.dialect)
        if owner is not None and _outer_joined(scope, owners) and not _plainly_shown(col):
            owner = None  # an outer join leaves one side NULL: IS NULL, COUNT() or COALESCE() of either differ
        if owner is not None:
            before = col.sql(dialect=self.dialect)
            ident = owner.key_ident.copy() if owner.key_ident is not None else exp.to_identifier(owner.key)
            col.set("table", ident)
            self.fixes.append(f"column {before} -> {col.sql(dialect=self.dialect)}{AMBIGUOUS_FIX}")
            return
        others = [s for s in owners if self_comparison(col, s.key, self._owner_keys(scope))]
        rest = [s for s in owners if s not in others]
        if others and len(rest) == 1:  # ``JOIN domain ON did = dp.did``: dp.did = dp.did is true of every pair
            before = col.sql(dialect=self.dialect)
            self._set_qualifier(col, rest[0])
            self.fixes[-1] = (f"column {before} -> {col.sql(dialect=self.dialect)} (the other side of its join "
                              "condition already reads the other table)")
        elif settled := settle_ambiguous(col, scope, owners, self.dialect):
            before = col.sql(dialect=self.dialect)
            self._set_qualifier(col, settled[0])
            self.fixes[-1] = f"column {before} -> {col.sql(dialect=self.dialect)} ({settled[1]})" + (
                AMBIGUOUS_FIX if settled[2] else "")  # a table joined only for its condition: the model goes first


def _outer_joined(scope: Scope, owners: list[Source]) -> bool:
    """Whether any of ``owners`` after the first comes in by an outer join (its columns are NULL where it has no
    partner, so it does not read the same value as the first everywhere)."""
    first = min(owners, key=lambda s: s.order)
    return any(join.side for join in scope.expression.args.get("joins") or []
               if any(s is not first and s.node is join.this for s in owners))


def _plainly_shown(col: exp.Column) -> bool:
    """A column listed as it is (maybe renamed) in the SELECT list, GROUP BY or ORDER BY: the preserved side's value
    is the one shown. Inside a function, a condition or an aggregate the two sides may differ."""
    parent = col.parent
    if isinstance(parent, exp.Alias):
        parent = parent.parent
    if isinstance(parent, exp.Ordered):
        parent = parent.parent
    return isinstance(parent, (exp.Select, exp.Group, exp.Order)) and col.find_ancestor(exp.Where, exp.Having) is None


def _undeclared_alias(qualifier: str, owners: list[Source]) -> Source | None:
    """Of the sources holding the column, the one table written without an alias whose name the qualifier
    abbreviates (its first letters, or the initials of its words: ``da`` for domain_author); None unless exactly one."""
    fits = [src for src in owners if src.table is not None and src.key.lower() == src.table.name.lower()
            and abbreviates(qualifier, src.table.name)]  # a table with an alias of its own: the model would use that
    return fits[0] if len(fits) == 1 else None


def _using_columns(scope: Scope) -> set[str]:
    out: set[str] = set()
    for join in scope.expression.args.get("joins") or []:
        for ident in join.args.get("using") or []:
            out.add(ident.name.lower())
        if join.args.get("method"):
            out.add("*")
    return out


_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Like, exp.ILike, exp.Is, exp.NullSafeEQ,
                exp.NullSafeNEQ)


def _value_position(col: exp.Column, columns: frozenset[str]) -> bool:
    """A double-quoted name where SQL wants a value: compared with, or listed IN against, an expression that reads
    a real column (``status = "active"``, ``LOWER(city) IN ("pune", "delhi")``). Standard SQL reads "x" as an
    identifier
    and SQLite falls back to a string; there the writer meant the string. ``columns``: the schema's column names,
    lower case."""
    node: exp.Expression = col
    parent = node.parent
    while isinstance(parent, (exp.Paren, exp.Lower, exp.Upper, exp.Trim)):
        node, parent = parent, parent.parent

    def real(expr: exp.Expression | None) -> bool:  # a real column, maybe in LOWER()/TRIM()/CAST(): not a subquery
        while isinstance(expr, (exp.Paren, exp.Lower, exp.Upper, exp.Trim, exp.Cast)):
            expr = expr.this
        return isinstance(expr, exp.Column) and expr.name.lower() in columns

    if isinstance(parent, exp.In):
        return node is not parent.this and real(parent.this)
    if isinstance(parent, _COMPARISONS):
        return real(parent.expression if node is parent.this else parent.this)
    return False


def repair_columns(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str],
                   meaning: Meaning | None = None, named: Named | None = None) -> None:
    """Repair every column reference of ``tree`` in place, inner scopes first; ``meaning`` (a sentence encoder's
    closeness of names) orders the columns an error suggests for a name no rule reads; ``named`` gives the column
    the question's words name for such a name, taken as a guess."""
    repairer = _Repairer(schema, dialect, fixes, meaning, named)
    for scope in scopes(tree):
        for col in [n for n in scope.walk() if isinstance(n, exp.Column)]:
            if not isinstance(col.this, (exp.Identifier, exp.Star)):
                continue
            if isinstance(col.args.get("table"), exp.Identifier):
                repairer.qualified(col, scope)
            elif isinstance(col.this, exp.Identifier):
                repairer.unqualified(col, scope)
                if col.table:  # the repair qualified it ("c.id" quoted as one name, split)
                    continue
                if not _in_alias_position(col, scope):  # PostgreSQL and SQLite both reject it as written
                    repairer.ambiguous(col, scope)


def _snake(name: str) -> str:
    return "_".join(re.findall(r"[a-z0-9]+", name.lower()))


def _in_alias_position(col: exp.Column, scope: Scope) -> bool:
    """ORDER BY / GROUP BY may name an output column, which PostgreSQL prefers over input columns."""
    if col.name.lower() not in select_aliases(scope):
        return False
    return col.find_ancestor(exp.Order, exp.Group) is not None
