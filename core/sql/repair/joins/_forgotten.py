"""A join the query uses but never wrote: ``SELECT journal.name … FROM publication`` reads a table it never joined.

Small models drop a JOIN while its columns stay in the SELECT, WHERE or another join's ON. The database answers
"missing FROM-clause entry" (PostgreSQL) or "no such column" (SQLite). The join is put back only when the schema
settles all of it:

1. the qualifier names exactly one table of the schema that the query does not read and that holds every column
   read through it: its name (singular or plural), its first letters or the initials of its words (``da`` for
   domain_author, ``j`` for journal when no other j-table holds the columns), else its letters in order (``sp`` for
   salespersons); or, when it names none, the one
   table of the whole schema that holds every column read through it (``t.txid``: no table of the query, and
   no other table, has a txid — were one of the query's tables to hold them, the qualifier is a slip of its alias),
   only in a query of one SELECT (a CTE, a derived table or an enclosing query may be what the qualifier meant);
2. exactly one source the new join may reach (those before the first join whose ON already uses the qualifier,
   else every source) is related to that table by exactly one key, counting all of: declared or inferred by the
   schema, a column both have that identifies a row of one of them or of any table (``pid``, publication's key,
   relates writes and domain_publication), a column naming the other table
   (``journal_id`` onto journal's key); never ``id = id``;
3. no table of the query has a key column the qualifier names that names no table (``m`` beside
   ``employee.manager_id``: a self-join is meant), and no CTE has the qualifier's name;
4. the query joins nothing with a comma (``FROM a, b JOIN c ON c.k = a.k`` cannot reach ``a`` on PostgreSQL).

The join is inner, unless the WHERE asks that a column of the table be NULL: that is the anti-join idiom
(``LEFT JOIN sales s … WHERE s.car_id IS NULL``: cars never sold), which an inner join would answer with no rows.

Anything else is left to the column repair, which fails with the error and the model sees it. The note says which
join was added, and the pipeline asks the model first (``FORGOTTEN_JOIN_FIX`` is among the
repairs that make an error go away by a guess), running this repair only when the model does no better.
"""

from __future__ import annotations

import re
from collections import defaultdict

from sqlglot import exp
from sqlglot.optimizer.scope import Scope

from core.schema import Schema, Table
from core.sql.repair._names import KEY_WORDS, abbreviates, identifier, matches, tokens
from core.sql.repair._scope import Source, ancestors, find_source, scope_sources, scopes
from core.sql.repair.joins._keys import _key_of_either, _kinds_agree, _names_table, _relations, table_keys

__all__ = ["FORGOTTEN_JOIN_FIX", "join_forgotten"]

FORGOTTEN_JOIN_FIX = "a table the query read without joining it, joined on the key the schema gives"


def links(table: Table, other: Table, keys: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    """(column of ``table``, column of ``other``) of each key that relates the two tables (see the docstring);
    ``keys``: the key names of every table of the schema (``pid`` of publication relates writes and
    domain_publication, which both point there)."""
    pairs: list[tuple[str, str]] = list(_relations(table, other))  # declared ones and those the names give, all
    for col in table.columns:
        same = other.column(col.name)
        if same is not None and tokens(col.name) != ("id",) and (_key_of_either(col.name, table, other)
                                                                  or col.name.lower() in keys):
            pairs.append((col.name, same.name))
        if _names_table(col.name, other):
            pairs += [(col.name, key) for key in table_keys(other)]
    for col in other.columns:
        if _names_table(col.name, table):
            pairs += [(key, col.name) for key in table_keys(table)]
    return [(a, b) for a, b in dict.fromkeys(pairs)
            if _kinds_agree(_type(table, a), _type(other, b))]


def _type(table: Table, name: str) -> str | None:
    column = table.column(name)
    return column.type if column is not None else None


class _Forgotten:
    def __init__(self, schema: Schema, dialect: str, fixes: list[str], ctes: set[str], plain: bool) -> None:
        self.schema, self.dialect, self.fixes = schema, dialect, fixes
        self.ctes = ctes  # names a qualifier may read that are no table of the schema
        # one SELECT over tables only: a CTE, a derived table or an enclosing query may hold what a qualifier reads
        self.plain = plain

    def scope(self, scope: Scope) -> None:
        select = scope.expression
        if not isinstance(select, exp.Select) or select.args.get("from_") is None:
            return
        joins = select.args.get("joins") or []
        if any(j.args.get("on") in (None, exp.true()) and not j.args.get("using") for j in joins):
            return  # a comma or cross join: a JOIN's ON cannot reach the tables before it on PostgreSQL
        local = scope_sources(scope, self.schema, self.dialect)
        for qualifier, cols in self._unknown_qualifiers(scope, local).items():
            self.add(select, qualifier, cols, local)
            local = scope_sources(scope, self.schema, self.dialect)

    def _unknown_qualifiers(self, scope: Scope, local: list[Source]) -> dict[str, list[exp.Column]]:
        """Columns of ``scope`` by a qualifier that names no source here nor in an enclosing query."""
        outer = [s for parent in ancestors(scope) for s in scope_sources(parent, self.schema, self.dialect)]
        found: dict[str, list[exp.Column]] = defaultdict(list)
        for col in scope.columns:
            qualifier = col.args.get("table")
            if not isinstance(qualifier, exp.Identifier) or col.args.get("db") is not None:
                continue
            if col.find_ancestor(exp.Select) is not scope.expression:
                continue  # sqlglot lists a subquery's columns it cannot place as its enclosing query's
            if find_source(qualifier, local) or find_source(qualifier, outer):
                continue
            if any(s.table is not None and s.table.name.lower() == qualifier.this.lower() for s in local):
                continue  # the table's name although it has an alias: the column repair's
            if qualifier.this.lower() in self.ctes:
                continue  # a CTE of that name shadows the table: not the table's columns
            found[qualifier.this].append(col)
        return found

    def _table(self, qualifier: str, cols: list[exp.Column], local: list[Source]) -> Table | None:
        """The one table outside the query that ``qualifier`` names and that holds every column read through it;
        None when a table of the query has a key column the qualifier names that names no table (``m`` beside
        ``manager_id``: a self-join is meant, not a table starting with m)."""
        read = {s.table.qualified_name.lower() for s in local if s.table is not None}
        tables = {tokens(t.name) for t in self.schema.tables}
        if any(abbreviates(qualifier, "_".join(tokens(c.name)[:-1])) for s in local if s.table is not None
               for c in s.table.columns if len(tokens(c.name)) > 1 and tokens(c.name)[-1] in KEY_WORDS
               and tokens(c.name)[:-1] not in tables):  # manager_id names no table: a row of its own table
            return None
        holders = [t for t in self.schema.tables
                   if all(any(matches(c.this, name, self.dialect) for name in t.column_names) for c in cols)]
        outside = [t for t in holders if t.qualified_name.lower() not in read]
        fits = [t for t in outside if abbreviates(qualifier, t.name)]
        exact = [t for t in fits if tokens(t.name) == tokens(qualifier)]
        fits = exact or fits or [t for t in outside if _letters_of(qualifier, t.name)]
        if not fits and len(outside) == len(holders) == 1 and self.plain:
            return outside[0]  # ``t.txid``: no name, but one table of the schema has every column read through it
        return fits[0] if len(fits) == 1 else None

    def add(self, select: exp.Select, qualifier: str, cols: list[exp.Column], local: list[Source]) -> None:
        table = self._table(qualifier, cols, local)
        if table is None:
            return
        joins = select.args.get("joins") or []
        at = next((i for i, j in enumerate(joins)
                   if any(c.table.lower() == qualifier.lower() for c in (j.args.get("on") or exp.true()).find_all(
                       exp.Column))), len(joins))
        reachable = [s for s in local if s.table is not None and s.order <= at]
        keys = frozenset(k.lower() for t in self.schema.tables for k in table_keys(t))
        found = [(s, pair) for s in reachable for pair in links(table, s.table, keys)]  # type: ignore[arg-type]
        if len(found) != 1:
            return
        source, (mine, theirs) = found[0]
        alias = qualifier if qualifier.lower() != table.name.lower() else None
        on = exp.EQ(this=exp.column(identifier(mine, self.dialect), table=identifier(qualifier, self.dialect)),
                    expression=exp.column(identifier(theirs, self.dialect), table=source.key_ident.copy()
                                          if source.key_ident is not None else exp.to_identifier(source.key)))
        node = exp.Table(this=identifier(table.name, self.dialect))
        if table.schema and self.dialect != "sqlite" and table.schema != "public":
            node.set("db", identifier(table.schema, self.dialect))
        if alias is not None:
            node.set("alias", exp.TableAlias(this=identifier(alias, self.dialect)))
        join = exp.Join(this=node, on=on)
        if any(_tested_null(c) for c in cols):  # ``WHERE s.car_id IS NULL``: rows without a match, an anti-join
            join.set("side", "LEFT")
        joins.insert(at, join)
        select.set("joins", joins)
        self.fixes.append(f"{join.side + ' ' if join.side else ''}JOIN {node.sql(dialect=self.dialect)} ON {on.sql(dialect=self.dialect)} added: "
                          f"{FORGOTTEN_JOIN_FIX}")


def _letters_of(qualifier: str, name: str) -> bool:
    """``sp`` for salespersons: two or more letters, the first the table's, the rest in order in its name (a
    compound word's initials), read only where no table's name or initials fit."""
    q = re.sub(r"\d+$", "", qualifier).lower()
    rest = iter(name.lower()[1:])
    return len(q) >= 2 and q[0] == name[:1].lower() and all(letter in rest for letter in q[1:])


def _tested_null(col: exp.Column) -> bool:
    """Whether the WHERE asks that ``col`` be NULL (not under a NOT)."""
    parent = col.parent
    return (isinstance(parent, exp.Is) and isinstance(parent.expression, exp.Null)
            and col.find_ancestor(exp.Where) is not None and parent.find_ancestor(exp.Not) is None)


def join_forgotten(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str]) -> None:
    """Add, in place, each join the schema settles that ``tree`` reads but never wrote (module docstring)."""
    plain = len(list(tree.find_all(exp.Select))) == 1
    forgotten = _Forgotten(schema, dialect, fixes, {cte.alias.lower() for cte in tree.find_all(exp.CTE) if cte.alias},
                           plain)
    for scope in scopes(tree):
        forgotten.scope(scope)
