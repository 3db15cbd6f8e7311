"""An unqualified column two joined tables share, settled where the query itself leaves one reading.

PostgreSQL and SQLite reject ``SELECT id FROM sales s JOIN cars c ON …``; a qualifier is only added where every
reading but one is ruled out by SQL's rules or by the schema, never by a guess at the question:

- **the join's scope**: a column in a JOIN's ON condition can only read the tables joined so far (standard SQL,
  and how PostgreSQL resolves it); SQLite looks at every table of the FROM and calls it ambiguous;
- **the same count either way**: ``COUNT(id)`` over inner joins counts joined rows, and every owner's column is
  a key or NOT NULL: each reading counts the same rows;
- **an anti-join**: ``LEFT JOIN treatments t ON p.patient_id = t.patient_id WHERE patient_id IS NULL`` — the
  preserved side's join column is never NULL in a row it keeps, so only the joined side's reading can hold; and
  once ``t.x IS NULL`` keeps only rows without a partner, every column of ``t`` is NULL: a column shown or used
  elsewhere is the preserved side's;
- **the column with itself**: ``population / NULLIF(state.population, 0)`` read as state's would divide a value by
  itself (and ``x - s.x``, ``x = s.x`` alike): the other owner is meant.

Each returns the source meant and the reason, which the fix's note carries.
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.optimizer.scope import Scope

from core.schema import Table
from core.sql.repair._scope import Source

__all__ = ["settle_ambiguous"]

_WRAPPERS = (exp.Paren, exp.Cast, exp.TryCast, exp.Lower, exp.Upper, exp.Trim, exp.Abs)
_WITH_ITSELF = (exp.Div, exp.Sub, exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)


def settle_ambiguous(col: exp.Column, scope: Scope, owners: list[Source], dialect: str
                     ) -> tuple[Source, str, bool] | None:
    """The one of ``owners`` (the scope's sources holding ``col``'s name) the query can mean, why, and whether
    another owner is read nowhere but in join conditions (a join the question may not need, which made the column
    ambiguous: the model should see the error before the repair is taken); else None."""
    joins = scope.expression.args.get("joins") or []
    if any(j.side in ("RIGHT", "FULL") for j in joins):
        return None
    for settle in (_join_scope, _same_count, _anti_join, _not_itself):
        found = settle(col, scope, owners, dialect)
        if found is not None:
            chosen, why = found
            needless = settle is not _join_scope and any(
                _only_in_conditions(scope, s) for s in owners if s is not chosen)
            return chosen, why, needless
    return None


def _only_in_conditions(scope: Scope, src: Source) -> bool:
    """Whether every column read through ``src`` in this scope is inside a JOIN's ON condition."""
    for node in scope.expression.find_all(exp.Column):
        if node.find_ancestor(exp.Select) is not scope.expression or node.table.lower() != src.key.lower():
            continue
        join = node.find_ancestor(exp.Join)
        if join is None or join.parent is not scope.expression:
            return False
    return True


def _join_of(col: exp.Column, scope: Scope) -> exp.Join | None:
    """The JOIN of this scope whose ON condition holds ``col`` (not one of a subquery inside it)."""
    join = col.find_ancestor(exp.Join)
    if join is None or join.parent is not scope.expression or col.find_ancestor(exp.Select) is not scope.expression:
        return None
    on = join.args.get("on")
    return join if on is not None and any(node is col for node in on.walk()) else None


def _join_scope(col: exp.Column, scope: Scope, owners: list[Source], dialect: str) -> tuple[Source, str] | None:
    join = _join_of(col, scope)
    if join is None:
        return None
    limit = (scope.expression.args.get("joins") or []).index(join) + 1  # the FROM entry is 0, each JOIN after it
    visible = [s for s in owners if s.order <= limit]
    if len(visible) == 1 and len(owners) > 1:
        return visible[0], "a join condition reads only the tables joined before it"
    return None


def _never_null(src: Source, name: str, dialect: str) -> bool:
    """Whether the schema says ``src``'s column ``name`` holds no NULL: declared NOT NULL, or the table's one-column
    primary key (on SQLite only an INTEGER one: SQLite lets other key columns hold NULL)."""
    table: Table | None = src.table
    if table is None:
        return False
    column = next((c for c in table.columns if c.name.lower() == name.lower()), None)
    if column is None:
        return False
    if not column.nullable:
        return True
    if [k.lower() for k in table.primary_key] != [column.name.lower()]:
        return False
    return dialect != "sqlite" or column.type.upper().startswith("INT")


def _join_bringing(scope: Scope, src: Source) -> exp.Join | None:
    return next((j for j in scope.expression.args.get("joins") or [] if j.this is src.node or j.this is src.node.parent),
                None)


def _outer(scope: Scope, src: Source) -> bool:
    join = _join_bringing(scope, src)
    return join is not None and bool(join.side)


def _same_count(col: exp.Column, scope: Scope, owners: list[Source], dialect: str) -> tuple[Source, str] | None:
    parent = col.parent
    if not isinstance(parent, exp.Count) or parent.this is not col or col.find_ancestor(exp.Window) is not None:
        return None
    if any(_outer(scope, s) for s in owners) or not all(_never_null(s, col.name, dialect) for s in owners):
        return None
    if col.find_ancestor(exp.Select) is not scope.expression:
        return None
    return min(owners, key=lambda s: s.order), "every table's column is never NULL: COUNT counts the same rows"


def _where_conjuncts(scope: Scope) -> list[exp.Expression]:
    where = scope.expression.args.get("where")
    if where is None:
        return []
    return list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]


def _is_null(node: exp.Expression) -> exp.Expression | None:
    """The operand of ``x IS NULL`` (not IS NOT NULL: that is a Not around it), else None."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
        return node.this
    return None


def _on_names(scope: Scope, src: Source, name: str) -> bool:
    """Whether ``src``'s join condition equates its column ``name`` with a column of another table."""
    join = _join_bringing(scope, src)
    on = join.args.get("on") if join is not None else None
    if on is None:
        return False
    for eq in on.find_all(exp.EQ):
        sides = [eq.this, eq.expression]
        if all(isinstance(s, exp.Column) for s in sides) and any(
                s.name.lower() == name.lower() and s.table.lower() == src.key.lower() for s in sides):
            return True
    return False


def _anti_join(col: exp.Column, scope: Scope, owners: list[Source], dialect: str) -> tuple[Source, str] | None:
    conjuncts = _where_conjuncts(scope)
    left = [s for s in owners if _outer(scope, s)]
    kept = [s for s in owners if not _outer(scope, s)]
    if not left or not kept:
        return None
    if any(_is_null(c) is col for c in conjuncts):  # ``WHERE patient_id IS NULL`` itself
        joined = [s for s in left if _on_names(scope, s, col.name)]
        if len(joined) == 1 and all(_never_null(s, col.name, dialect) or _on_names_other(scope, s, col.name, joined[0])
                                    for s in kept):
            return joined[0], "the kept table's join column is never NULL: only the joined table's can be"
        return None
    empty = {s.key.lower() for s in left if any(
        isinstance(op := _is_null(c), exp.Column) and op.table.lower() == s.key.lower() and _on_names(scope, s, op.name)
        for c in conjuncts)}
    if len(kept) == 1 and {s.key.lower() for s in left} <= empty:
        return kept[0], "the joined table's columns are NULL on every row the anti-join keeps"
    return None


def _on_names_other(scope: Scope, kept: Source, name: str, joined: Source) -> bool:
    """Whether ``joined``'s ON condition is ``kept.name = joined.name``: the anti-join idiom's test is then of the
    joined side (a kept row whose own key is NULL is not what "has no match" asks)."""
    join = _join_bringing(scope, joined)
    on = join.args.get("on") if join is not None else None
    return on is not None and any(
        isinstance(eq.this, exp.Column) and isinstance(eq.expression, exp.Column)
        and {eq.this.table.lower(), eq.expression.table.lower()} == {kept.key.lower(), joined.key.lower()}
        and eq.this.name.lower() == eq.expression.name.lower() == name.lower() for eq in on.find_all(exp.EQ))


def _operand(node: exp.Expression) -> exp.Expression:
    """``node`` without the wrappers that keep its value's identity (brackets, casts, case, NULLIF's first argument)."""
    while True:
        if isinstance(node, _WRAPPERS):
            node = node.this
        elif isinstance(node, (exp.Nullif, exp.Coalesce)):
            node = node.this
        else:
            return node


def _not_itself(col: exp.Column, scope: Scope, owners: list[Source], dialect: str) -> tuple[Source, str] | None:
    node: exp.Expression = col
    parent = node.parent
    while isinstance(parent, _WRAPPERS) or (isinstance(parent, (exp.Nullif, exp.Coalesce)) and parent.this is node):
        node, parent = parent, parent.parent
    if not isinstance(parent, _WITH_ITSELF):
        return None
    other = _operand(parent.expression if node is parent.this else parent.this)
    if not isinstance(other, exp.Column) or not other.table or other.name.lower() != col.name.lower():
        return None
    rest = [s for s in owners if s.key.lower() != other.table.lower()]
    if len(rest) == 1 and len(rest) < len(owners):
        return rest[0], f"read as {other.table}'s it would be set against itself"
    return None
