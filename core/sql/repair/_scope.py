"""What a column can refer to at one point of a query: the FROM/JOIN sources of each SELECT scope.

A source is a schema table (its columns known from the schema), a CTE or derived table (its columns are
the SELECT's output names), or something whose columns we cannot name (a table function without a column
list, a ``SELECT *`` inside a subquery). Columns of an "open" source are never repaired or rejected.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from sqlglot import exp
from sqlglot.optimizer.scope import Scope, ScopeType, traverse_scope

from core.schema import Column, Schema, Table
from core.sql.repair._names import effective, matches, tokens
from core.sql.repair._tables import resolve_table

__all__ = ["schema_column", "column_source", 
    "PSEUDO_COLUMNS",
    "Source",
    "ancestors",
    "column_sources",
    "filtered_columns",
    "passed_through",
    "find_source",
    "group_key_forms",
    "group_keys",
    "output_names",
    "scope_sources",
    "scopes",
    "select_aliases",
]

logger = logging.getLogger(__name__)

# Names that are valid without being a column of any table.
PSEUDO_COLUMNS = frozenset(
    {"rowid", "oid", "_rowid_", "ctid", "xmin", "xmax", "cmin", "cmax", "tableoid", "user", "current_user",
     "session_user", "current_role", "current_schema", "current_catalog", "localtime", "localtimestamp"}
)


@dataclass(frozen=True, eq=False)
class Source:
    """One FROM/JOIN entry of a SELECT scope."""

    key: str  # the alias, or the table name when there is none
    key_ident: exp.Identifier | None
    node: exp.Expression  # the exp.Table in FROM/JOIN, or the derived table's SELECT
    table: Table | None  # the schema table, for a real table
    columns: tuple[str, ...]  # names as the database sees them
    open: bool  # may hold columns we cannot name
    order: int  # position in FROM/JOINs

    @property
    def context(self) -> tuple[str, ...]:
        """Words a column of this source may carry or drop: its table's name (``customer_name`` on customers) and
        the words most of its columns start with (``sb``, ``cust`` on sbCustomer's sbCustId, sbCustName...)."""
        if self.table is None:
            return ()
        return tokens(self.table.name) + column_prefix(self.table.columns)

    def has(self, ident: exp.Identifier | str, dialect: str) -> str | None:
        """The real column ``ident`` resolves to here, as written, or None."""
        for name in self.columns:
            if matches(ident, name, dialect):
                return name
        return None


def column_prefix(columns: Sequence[Column]) -> tuple[str, ...]:
    """The leading words at least three quarters of a table's columns share (``sbTx`` of sbTxId, sbTxAmount...)."""
    words = [tokens(c.name) for c in columns]
    if len(words) < 3:
        return ()
    prefix: tuple[str, ...] = ()
    for depth in (1, 2):
        heads = Counter(w[:depth] for w in words if len(w) > depth)
        if not heads:
            break
        head, count = heads.most_common(1)[0]
        if count * 4 < len(words) * 3:
            break
        prefix = head
    return prefix


def is_within(node: exp.Expression, container: exp.Expression | None) -> bool:
    """True when ``node`` is ``container`` or lies inside it (walks the parent links)."""
    current: exp.Expression | None = node
    while container is not None and current is not None:
        if current is container:
            return True
        current = current.parent
    return False


def scopes(tree: exp.Expression) -> list[Scope]:
    """All scopes, inner ones first (a CTE or subquery before the query that reads it)."""
    return list(traverse_scope(tree))


def _plain_derived(scope: Scope) -> bool:
    if scope.scope_type != ScopeType.DERIVED_TABLE:
        return False
    return scope.expression.find_ancestor(exp.Lateral) is None


def ancestors(scope: Scope) -> Iterator[Scope]:
    """Enclosing scopes whose sources a correlated subquery may read (a CTE cannot, nor a derived table in FROM
    unless it is LATERAL: ``FROM (SELECT a FROM t) AS x`` never reads x)."""
    current = scope
    while current.parent is not None and current.scope_type != ScopeType.CTE and not _plain_derived(current):
        current = current.parent
        yield current


def output_names(expr: exp.Expression, dialect: str) -> tuple[tuple[str, ...], bool]:
    """Output column names of a SELECT / set operation, and whether some are unknown."""
    while isinstance(expr, (exp.SetOperation, exp.Subquery)):
        expr = expr.this
    if not isinstance(expr, exp.Select):
        return (), True
    names: list[str] = []
    is_open = False
    for proj in expr.expressions:
        if isinstance(proj, exp.Alias) and isinstance(proj.args.get("alias"), exp.Identifier):
            names.append(effective(proj.args["alias"], dialect))
        elif isinstance(proj, exp.Column) and isinstance(proj.this, exp.Identifier):
            names.append(effective(proj.this, dialect))
        else:
            is_open = True
    return tuple(names), is_open


def _alias_columns(node: exp.Expression | None, dialect: str) -> tuple[str, ...]:
    alias = node.args.get("alias") if node is not None else None
    if isinstance(alias, exp.TableAlias) and alias.columns:
        return tuple(effective(c, dialect) for c in alias.columns if isinstance(c, exp.Identifier))
    return ()


def _cte_scope(scope: Scope, name: str) -> Scope | None:
    for current in (scope, *ancestors(scope)):
        for key, source in current.sources.items():
            if isinstance(source, Scope) and source.is_cte and key.lower() == name.lower():
                return source
    return None


def _from_order(select: exp.Expression) -> list[exp.Expression]:
    """FROM and JOIN entries in written order."""
    out: list[exp.Expression] = []
    frm = select.args.get("from_") or select.args.get("from")
    if isinstance(frm, exp.From):
        out.append(frm.this)
    for join in select.args.get("joins") or []:
        out.append(join.this)
    return out


def scope_sources(scope: Scope, schema: Schema, dialect: str) -> list[Source]:
    """The FROM/JOIN sources of ``scope``, in written order."""
    order = {id(n): i for i, n in enumerate(_from_order(scope.expression))}
    out: list[Source] = []
    for key, (node, source) in scope.selected_sources.items():
        pos = order.get(id(node), order.get(id(node.parent), len(order)))
        key_ident = None
        alias = node.args.get("alias") if isinstance(node, exp.Table) else None
        if alias is None and node.parent is not None and isinstance(node.parent, exp.Subquery):
            alias = node.parent.args.get("alias")
        if isinstance(alias, exp.TableAlias) and isinstance(alias.this, exp.Identifier):
            key_ident = alias.this
        elif isinstance(node, exp.Table) and isinstance(node.this, exp.Identifier):
            key_ident = node.this
        table: Table | None = None
        if isinstance(source, exp.Table) and isinstance(source.this, exp.Identifier):
            cte = _cte_scope(scope, source.name) if source.args.get("db") is None else None
            if cte is not None:
                source = cte
            else:
                table = resolve_table(source, schema, dialect)
        if table is not None:
            cols, is_open = table.column_names, False
        elif isinstance(source, Scope):
            renamed = _alias_columns(node, dialect) or _alias_columns(source.expression.parent, dialect)
            cols, is_open = output_names(source.expression, dialect)
            if renamed:
                cols, is_open = renamed, False
        else:
            cols, is_open = _alias_columns(node, dialect), True
        out.append(Source(key, key_ident, node, table, tuple(cols), is_open, pos))
    out.sort(key=lambda s: s.order)
    return out


def find_source(qualifier: exp.Identifier, sources: list[Source]) -> Source | None:
    """The source a column qualifier names (matched case-insensitively, as models mostly mean it)."""
    for src in sources:
        if src.key.lower() == qualifier.this.lower():
            return src
    return None


def select_aliases(scope: Scope) -> set[str]:
    """Lower-case output aliases of a SELECT scope (usable in ORDER BY, GROUP BY, HAVING)."""
    expr = scope.expression
    if not isinstance(expr, exp.Select):
        return set()
    return {p.alias.lower() for p in expr.expressions if isinstance(p, exp.Alias) and p.alias}


def group_key_forms(select: exp.Select) -> list[list[exp.Expression]]:
    """Each GROUP BY key of a SELECT with the expression its output name stands for (``GROUP BY month`` beside
    ``STRFTIME('%Y-%m', d) AS month``: ``[month, STRFTIME(…)]``)."""
    group = select.args.get("group")
    named = {p.alias.lower(): p.this for p in select.expressions if isinstance(p, exp.Alias) and p.alias}
    return [[k, named[k.name.lower()]] if isinstance(k, exp.Column) and not k.table and k.name.lower() in named else [k]
            for k in (group.expressions if group is not None else [])]


def group_keys(select: exp.Select) -> list[exp.Expression]:
    """Every form of a SELECT's GROUP BY keys (``group_key_forms``), in one list."""
    return [form for forms in group_key_forms(select) for form in forms]


def column_sources(col: exp.Column, sources: list[Source], dialect: str) -> list[Source]:
    """Sources an already-valid column may read from (all of them when it cannot be told)."""
    qualifier = col.args.get("table")
    if isinstance(qualifier, exp.Identifier):
        src = find_source(qualifier, sources)
        return [src] if src is not None else []
    if isinstance(col.this, exp.Star):
        return list(sources)
    hits = [s for s in sources if s.has(col.this, dialect) is not None]
    if hits:
        return hits
    if any(s.key.lower() == col.name.lower() for s in sources):  # whole-row reference
        return [s for s in sources if s.key.lower() == col.name.lower()]
    return [s for s in sources if s.open]


def column_source(col: exp.Column, sources: list[Source], dialect: str) -> Source | None:
    """The one source of ``col``: by its qualifier, else the one source that has such a column; None where none or
    several could be."""
    if col.table:
        return find_source(exp.to_identifier(col.table), sources)
    owners = [s for s in sources if s.has(col.this, dialect) is not None]
    return owners[0] if len(owners) == 1 else None


def schema_column(col: exp.Column, sources: list[Source], dialect: str) -> tuple[Source, Column] | None:
    """The table source of ``col`` (``column_source``) and its column in the schema; None where it is no one table's."""
    source = column_source(col, sources, dialect)
    column = source.table.column(col.name) if source is not None and source.table is not None else None
    return (source, column) if column is not None else None


def passed_through(scope: Scope, qualifier: str, column: str) -> tuple[str, str] | None:
    """``WITH x AS (SELECT a.name, … FROM author a …) SELECT author.name FROM x``: a column qualified by a table the
    outer query only reads through a CTE or derived table that passes that very column on unchanged (a bare
    ``a.name`` in its SELECT list). The (source key, output name) it is read by there, when exactly one source
    passes it on; else None. The value is the same on every row: it is the same column, passed on."""
    found: list[tuple[str, str]] = []
    for key, (_, source) in scope.selected_sources.items():
        inner = source if isinstance(source, Scope) else (
            _cte_scope(scope, source.name) if isinstance(source, exp.Table) and source.args.get("db") is None else None)
        if inner is None or not isinstance(inner.expression, exp.Select):
            continue
        names = {k.lower() for k, (node, src) in inner.selected_sources.items()
                 if k.lower() == qualifier.lower() or (isinstance(src, exp.Table) and src.name.lower() == qualifier.lower())}
        if not names:
            continue
        alone = len(inner.selected_sources) == 1
        for projection in inner.expression.expressions:
            value = projection.unalias()
            if isinstance(value, exp.Column) and value.name.lower() == column.lower() and (
                    value.table.lower() in names or (not value.table and alone)):
                found.append((key, projection.alias_or_name))
    return found[0] if len(found) == 1 else None


def shared_column_owner(scope: Scope, owners: list[Source], name: str, dialect: str) -> Source | None:
    """The first of ``owners`` when JOIN ... ON conditions equate ``name`` across all of them, else None."""
    joins = scope.expression.args.get("joins") or []
    if any(j.side in ("RIGHT", "FULL") for j in joins):
        return None
    group = {id(s): id(s) for s in owners}

    def root(k: int) -> int:
        while group[k] != k:
            k = group[k]
        return k

    by_key = {s.key.lower(): s for s in owners}
    for join in joins:
        on = join.args.get("on")
        if on is None:
            continue
        for cond in on.flatten() if isinstance(on, exp.And) else [on]:
            if not isinstance(cond, exp.EQ):
                continue
            left, right = cond.this, cond.expression
            if not (isinstance(left, exp.Column) and isinstance(right, exp.Column)):
                continue
            if left.name.lower() != name.lower() or right.name.lower() != name.lower():
                continue
            a, b = by_key.get(left.table.lower()), by_key.get(right.table.lower())
            if a is not None and b is not None:
                group[root(id(a))] = root(id(b))
    if len({root(id(s)) for s in owners}) != 1:
        return None
    return min(owners, key=lambda s: s.order)


def filtered_columns(tree: exp.Expression, schema: Schema, dialect: str, kinds: tuple[type[exp.Expression], ...],
                     column_of: Callable[[exp.Expression], exp.Column | None]) -> Iterator[tuple[
                         exp.Expression, exp.Column, Source]]:
    """Each test of ``kinds`` in ``tree`` (never a negated one, ``NOT x IN``, ``x NOT LIKE``, nor one with an ESCAPE)
    whose column — ``column_of`` the test — reads one table of the schema in its scope, with that table's source."""
    for scope in scopes(tree):
        sources = None
        for node in list(scope.find_all(*kinds)):
            column = column_of(node)
            if column is None or isinstance(node.parent, (exp.Not, exp.Escape)) or node.args.get("negate"):
                continue
            if sources is None:
                sources = scope_sources(scope, schema, dialect)
            owners = column_sources(column, sources, dialect)
            if len(owners) == 1 and owners[0].table is not None and isinstance(owners[0].node, exp.Table):
                yield node, column, owners[0]
