"""A join of two tables' own keys that relate nothing: ``author JOIN publication ON author.aid = publication.pid``
pairs author 1 with publication 1 — the two tables meet only through a link table (``writes(aid, pid)``), which the
query skipped. Joined through that table, ``JOIN writes ON author.aid = writes.aid JOIN publication ON writes.pid =
publication.pid`` — a guess the model is shown first (``GUESSED``), with the query as written one click away.

Only an inner JOIN whose ON is one equality of the two tables' own keys of different names (their one-column primary
keys, else ``id`` or the table's initial and ``id``; ``person.id = employee.id`` may be one row's two parts), where no
key the schema declares or the names give relates the two, exactly one table of the schema links both keys, and the
query does not read it already; anything else is left as written.
"""

from __future__ import annotations

from sqlglot import exp

from core.schema import Schema, Table
from core.sql.repair._names import GUESSED
from core.sql.repair._scope import find_source, scope_sources, scopes
from core.sql.repair.joins._forgotten import links
from core.sql.repair.joins._keys import table_keys

__all__ = ["bridged_joins"]


def bridged_joins(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str]) -> None:
    """Each JOIN on two unrelated tables' own keys, joined through the one table that links them (a guess)."""
    for scope in scopes(tree):
        select = scope.expression
        if not isinstance(select, exp.Select):
            continue
        sources = scope_sources(scope, schema, dialect)
        for join in list(select.args.get("joins") or []):
            on = join.args.get("on")
            if not isinstance(on, exp.EQ) or not all(isinstance(c, exp.Column) and c.table for c in (on.this,
                                                                                                 on.expression)):
                continue
            found = [find_source(c.args["table"], sources) for c in (on.this, on.expression)]
            ends = [s for s in found if s is not None and s.table is not None]
            if len(ends) != 2 or ends[0].table is ends[1].table:
                continue
            a, b, ca, cb = ends[0].table, ends[1].table, on.this.name, on.expression.name
            if join.side or join.kind or ca.lower() == cb.lower() or not _own_key(ca, a) or not _own_key(cb, b) or (
                    ca.lower(), cb.lower()) in {
                    (x.lower(), y.lower()) for x, y in links(a, b)}:
                continue
            read = {s.table.name.lower() for s in sources if s.table is not None}
            bridges = [(t, la, lb) for t in schema.tables if t is not a and t is not b
                       for la in _link(t, a, ca) for lb in _link(t, b, cb)]
            if any(t.name.lower() in read for t, _, _ in bridges):
                continue  # the link table is read already: the join is something else
            if len(bridges) != 1:
                continue
            table, la, lb = bridges[0]
            used = {s.key.lower() for s in sources}
            alias = table.name if table.name.lower() not in used else f"{table.name}_link"
            first, second = ends if join.this is not ends[0].node else ends[::-1]
            link_first, link_second = (la, lb) if first is ends[0] else (lb, la)
            key_first, key_second = (ca, cb) if first is ends[0] else (cb, ca)
            linked = exp.to_table(table.name)
            bridge = exp.Join(this=linked.as_(alias) if alias != table.name else linked, on=exp.EQ(
                this=exp.column(key_first, table=first.key), expression=exp.column(link_first, table=alias)))
            join.set("on", exp.EQ(this=exp.column(link_second, table=alias), expression=exp.column(
                key_second, table=second.key)))
            at = select.args["joins"].index(join)
            select.set("joins", [*select.args["joins"][:at], bridge, *select.args["joins"][at:]])
            fixes.append(f"{on.sql(dialect=dialect)} pairs two tables' own keys that relate nothing: joined through "
                         f"{table.name}, which links them" + GUESSED)
            sources = scope_sources(scope, schema, dialect)


def _own_key(column: str, table: Table) -> bool:
    return column.lower() in (k.lower() for k in table_keys(table))


def _link(bridge: Table, table: Table, key: str) -> list[str]:
    """The columns of ``bridge`` that point at ``table``'s key ``key``."""
    return [b for b, t in links(bridge, table) if t.lower() == key.lower() and b.lower() not in (
        k.lower() for k in table_keys(bridge))]
