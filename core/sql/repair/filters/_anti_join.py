"""An anti-join that tests the kept side's key for NULL (``FROM a LEFT JOIN b ON a.id = b.a_id WHERE a.id IS NULL``):
``a.id`` is a key that is never NULL, so the test keeps no row, and a row with no key would never match anyway. The
LEFT JOIN with an ``IS NULL`` test is the idiom for the rows without a match, so the test is read on the joined side
of that equality, ``b.a_id IS NULL`` — a guess the model is shown first (``GUESSED``).

Only where the tested column cannot be NULL (the primary key of its table, or declared NOT NULL: a nullable column
tested for NULL may mean "not assigned"), of the table the query starts from or one it joins inner (a table that is
itself the optional side of a LEFT JOIN is tested for NULL on purpose), a plain conjunct of the WHERE clause, and
only where exactly one LEFT JOIN's ON equates that column with a column of the joined table.
"""

from __future__ import annotations

from sqlglot import exp

from core.schema import Schema
from core.sql.repair._names import GUESSED
from core.sql.repair._scope import column_sources, scope_sources, scopes

__all__ = ["anti_joins"]


def anti_joins(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str]) -> None:
    """``a.id IS NULL`` after ``LEFT JOIN b ON a.id = b.a_id``, ``a.id`` never NULL: ``b.a_id IS NULL`` (a guess)."""
    for scope in scopes(tree):
        select = scope.expression
        where = select.args.get("where") if isinstance(select, exp.Select) else None
        if where is None:
            continue
        optional = {(j.this.alias_or_name or "").lower() for j in select.args.get("joins") or [] if j.side}
        pairs: dict[exp.Column, list[exp.Column]] = {}
        for join in select.args.get("joins") or []:
            joined = join.this
            if (join.side or "").upper() != "LEFT" or not isinstance(joined, exp.Table) or join.args.get("on") is None:
                continue
            name = joined.alias_or_name.lower()
            for eq in _conjuncts(join.args["on"]):
                if not isinstance(eq, exp.EQ) or not all(isinstance(s, exp.Column) for s in (eq.this, eq.expression)):
                    continue
                for kept, other in ((eq.this, eq.expression), (eq.expression, eq.this)):
                    if other.table.lower() == name and kept.table and kept.table.lower() not in optional:
                        pairs.setdefault(kept, []).append(other)
        sources = None
        for test in _conjuncts(where.this):
            if not isinstance(test, exp.Is) or not isinstance(test.expression, exp.Null) or len(
                    pairs.get(test.this, [])) != 1:
                continue
            sources = sources if sources is not None else scope_sources(scope, schema, dialect)
            owners = column_sources(test.this, sources, dialect)
            table = owners[0].table if len(owners) == 1 else None
            column = next((c for c in table.columns if c.name.lower() == test.this.name.lower()), None) if table else None
            if column is None or column.nullable and column.name.lower() not in {k.lower() for k in table.primary_key}:
                continue  # a column that may be NULL: "not assigned" may be what is asked
            written = test.sql(dialect=dialect)
            test.set("this", pairs[test.this][0].copy())
            fixes.append(f"{written}: the key of a row a LEFT JOIN keeps is never NULL, so the test keeps no row -> "
                         f"{test.sql(dialect=dialect)}, the rows without a match" + GUESSED)


def _conjuncts(node: exp.Expression) -> list[exp.Expression]:
    node = node.unnest()
    return [*_conjuncts(node.this), *_conjuncts(node.expression)] if isinstance(node, exp.And) else [node]
