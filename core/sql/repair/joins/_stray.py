"""Tables a query joins to every row without meaning to: the rows run, multiplied, with no error.

- **A table listed and never read**: ``FROM sales s JOIN cars c ON …, reps`` — nothing of ``reps`` is shown, filtered,
  grouped, ordered or joined on, and no bare column could be one of its own, so the comma pairs every row with every
  rep (the counts and sums come out multiplied, or empty where it has no rows). Dropped.
- **A join whose ON reads nothing of its table**: ``JOIN b ON a.id = b.aid JOIN c ON a.id = b.aid`` — the second ON
  is a copy of a condition already there, so every row meets every row of ``c``. Its ON is the one key the schema
  gives between ``c`` and exactly one table joined before it (declared, inferred, or a column naming it).
- **Per-group measures computed apart and never joined**: ``FROM (SELECT city, COUNT(*) … GROUP BY city) a, (SELECT
  city, SUM(x) … GROUP BY city) b`` with no condition between them — every city of one beside every city of the
  other. Joined on the columns both group by and show, ``a.city = b.city`` (every one the later result groups by
  and shows; a third such result is joined to the first).

Each is a guess the model is shown first (``GUESSED``): an analyst may mean a cross join, but none writes one by a
comma (or CROSS JOIN, as SQLite reads a comma) and leaves it unread while reading the others, nor an ON that reads
nothing of its table. Never a star that shows the table's columns, a query that reads no table's column at all
(``COUNT(*) FROM products CROSS JOIN stores`` counts the pairs), a question that asks for pairs ("combinations", "every
possible"), or per-group results its WHERE reads at all (a
benchmark, ``b.region = 'north' AND a.total < b.total``, or pairs, ``a.region < b.region``).
"""

from __future__ import annotations

import re

from sqlglot import exp

from core.schema import Schema
from core.sql.repair._aliases import source_columns
from core.sql.repair._names import GUESSED
from core.sql.repair.joins._forgotten import links

__all__ = ["stray_joins"]


def _comma(join: exp.Join) -> bool:
    """A table listed after a comma (SQLite's reading calls it a CROSS JOIN, as a CROSS JOIN written is)."""
    return (join.kind or "").upper() in ("", "CROSS") and not join.side and join.args.get("on") is None and \
        join.args.get("using") is None and not join.args.get("method")


def _alias(node: exp.Expression) -> str:
    return (node.alias_or_name or "").lower()


def _read_by_qualifier(select: exp.Select, alias: str, join: exp.Join) -> bool:
    return any(c.table.lower() == alias and not _nested_source(c, select) for c in select.find_all(exp.Column)
               if c.find_ancestor(exp.Join) is not join or c.find_ancestor(exp.Join) is None)


_PAIRS_ASKED = re.compile(r"\b(?:combination|pair|cartesian|cross[ -]?join|every possible|all possible|each possible|"
                          r"repeated for each)", re.IGNORECASE)


def stray_joins(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str], question: str = "") -> None:
    """The three joins of the module docstring, mended in place as guesses."""
    pairs = bool(_PAIRS_ASKED.search(question))  # "order-day combinations": every pair is what is asked
    for select in list(tree.find_all(exp.Select)):
        joins = list(select.args.get("joins") or ())
        source = select.args.get("from_")
        if not joins or source is None or any(isinstance(e, exp.Star) or e.find(exp.Star) and not e.find(exp.Count)
                                              for e in select.expressions):
            continue
        if not pairs:
            _unread_tables(select, joins, schema, fixes)
        _copied_conditions(select, source, schema, dialect, fixes)
        _unjoined_measures(select, source, fixes)


def _own_columns(select: exp.Select, named: set[str]) -> list[exp.Column]:
    """The columns ``select`` itself reads: those of its own clauses, and those of a subquery or CTE inside it
    qualified by one of its sources' names (a correlated reference, or a name reused inside: read, to be safe); a
    subquery's bare or own-qualified columns are the subquery's."""
    return [c for c in select.find_all(exp.Column) if c.find_ancestor(exp.Select) is select or (
        c.table.lower() in named and not _nested_source(c, select))]


def _nested_source(col: exp.Column, select: exp.Select) -> bool:
    """Whether a SELECT between ``col`` and ``select`` has a source ``col``'s qualifier names (the subquery's own)."""
    inner = col.find_ancestor(exp.Select)
    while inner is not None and inner is not select:
        sources = [inner.args["from_"].this] if inner.args.get("from_") else []
        sources += [j.this for j in inner.args.get("joins") or ()]
        if col.table.lower() in {n for s in sources for n in (_alias(s), (s.name or "").lower())}:
            return True
        inner = inner.find_ancestor(exp.Select)
    return False


def _unread_tables(select: exp.Select, joins: list[exp.Join], schema: Schema, fixes: list[str]) -> None:
    sources = [select.args["from_"].this, *(j.this for j in joins)]
    named = {n for s in sources for n in (_alias(s), (s.name or "").lower())}
    own = _own_columns(select, named)
    bare = {c.name.lower() for c in own if not c.table} - {
        e.alias.lower() for e in select.expressions if e.alias}  # ``ORDER BY total``: the select list's own name
    if {c.table.lower() for c in own if c.table} - named:
        return  # ``aid.author``: a qualifier no source has, the column repair's to read first
    for join in joins:
        table = schema.table(join.this.name) if isinstance(join.this, exp.Table) else None
        if not _comma(join) or table is None or bare & {c.name.lower() for c in table.columns}:
            continue  # a bare name it holds too may be read from it (as written, an ambiguous name fails)
        others = [source_columns(s, schema, select.root()) for s in sources if s is not join.this]
        if not all(others) or bare - set().union(*others):
            continue  # a bare name the other sources do not give may be this table's (``labels``, a whole row ``c``)
        if any(_read_by_qualifier(select, name, join) for name in (_alias(join.this), join.this.name.lower())):
            continue  # read; by its name too (``author COMMAND`` read as ``author.aid``: the alias is a slip)
        if not bare and not any(_read_by_qualifier(select, _alias(o), join) for o in sources if o is not join.this):
            continue  # ``SELECT COUNT(*) FROM products CROSS JOIN stores``: no table is read, the pairs are counted
        join.pop()
        fixes.append(f"{join.this.sql()} listed after a comma and never read (every row paired with each of its "
                     f"rows) dropped{GUESSED}")


def _copied_conditions(select: exp.Select, source: exp.From, schema: Schema, dialect: str, fixes: list[str]) -> None:
    joins = list(select.args.get("joins") or ())
    before = [source.this]
    where = select.args.get("where")
    conditions = [] if where is None else list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]
    keys = frozenset(k.lower() for t in schema.tables for k in t.primary_key)
    for at, join in enumerate(joins):
        on = join.args.get("on")
        alias = _alias(join.this)
        table = schema.table(join.this.name) if isinstance(join.this, exp.Table) else None
        readers = {c.table.lower() for c in on.find_all(exp.Column)} if on is not None else set()
        earlier = [j.args["on"] for j in joins[:at] if j.args.get("on") is not None] + conditions
        if on is None or table is None or not readers or "" in readers or alias in readers or (
                join.side or "").upper() not in ("", "INNER") or not any(on == e for e in earlier):
            before.append(join.this)
            continue  # only a copy of a condition already there (``a.aid = a.aid`` is the key repair's)
        tables = {_alias(b): schema.table(b.name) for b in before if isinstance(b, exp.Table)}
        if any(tables.get(c.table.lower()) is None or tables[c.table.lower()].column(c.name) is None
               for c in on.find_all(exp.Column)):
            before.append(join.this)
            continue  # ``c.id = c.car_id`` with no such column: a name slip, the column repair's to read
        found = [(b, mine, theirs) for b in before if isinstance(b, exp.Table) and (other := schema.table(b.name))
                 is not None for mine, theirs in links(table, other, keys)]
        before.append(join.this)
        if len(found) != 1:
            continue
        other, mine, theirs = found[0]
        condition = exp.EQ(this=exp.column(mine, table=alias), expression=exp.column(theirs, table=_alias(other)))
        written = on.sql(dialect=dialect)
        join.set("on", condition)
        fixes.append(f"the ON of {join.this.sql(dialect=dialect)} read nothing of it ({written}): joined on "
                     f"{condition.sql(dialect=dialect)}, the key the schema gives{GUESSED}")


def _group_outputs(node: exp.Expression) -> set[str]:
    body = node.this if isinstance(node, exp.Subquery) else None
    group = body.args.get("group") if isinstance(body, exp.Select) else None
    if group is None:
        return set()
    grouped = {g.sql().lower() for g in group.expressions}
    return {e.alias_or_name.lower() for e in body.expressions if e.unalias().sql().lower() in grouped}


def _unjoined_measures(select: exp.Select, source: exp.From, fixes: list[str]) -> None:
    where = select.args.get("where")
    compared = {c.table.lower() for c in where.find_all(exp.Column)} if where is not None else set()
    joined = [source.this]
    for join in list(select.args.get("joins") or ()):
        mine = _group_outputs(join.this)
        if not _comma(join) or not mine:
            joined.append(join.this)
            continue
        shared = [other for other in joined if mine & _group_outputs(other)]
        joined.append(join.this)
        if not shared or any(mine & _group_outputs(o) != mine for o in shared) or _alias(join.this) in compared or \
                any(_alias(o) in compared for o in shared):
            continue  # ``b.region = 'north' AND a.total < b.total``: a benchmark or pairs, compared on purpose; or
            # groups that share some keys and not others
        other = shared[0]  # every earlier result on these keys is joined on them already: the first stands for all
        condition = exp.and_(*(exp.EQ(this=exp.column(name, table=_alias(other)), expression=exp.column(
            name, table=_alias(join.this))) for name in sorted(mine)))
        join.set("kind", None)
        join.set("on", condition)
        fixes.append(f"two per-group results listed side by side with no condition joined on {condition.sql()}, "
                     f"the columns both group by{GUESSED}")
