"""An aggregate the query's own name for it contradicts: ``COUNT(sale_price) AS total_revenue``,
``MAX(rating) AS average_rating``, ``MIN(payment_date) AS latest_payment``; or no aggregate at all where the names say
totals (``s.sale_price AS total_revenue`` in a query that groups nothing).

The model names a column for what it means to compute; when the function says otherwise, one of the two is a slip.
The query with the function its name says is run and offered when its rows differ (in any SELECT of the query, a
CTE's too: an alias is local to its SELECT).
"""

from __future__ import annotations

from sqlglot import exp

from core.answer import Alternative
from core.databases import QueryResult
from core.evidence._common import AGGREGATE_NAMES, Execute, holds_numbers, offer, owner, parse
from core.evidence._question_columns import name_words
from core.schema import Schema

__all__ = ["alias_evidence", "is_amount", "is_key"]

_SAYS: dict[type[exp.AggFunc], frozenset[str]] = {
    exp.Avg: frozenset({"avg", "average", "mean"}),
    exp.Sum: frozenset({"total", "sum", "revenue", "amount"}),
    exp.Max: frozenset({"max", "maximum", "highest", "latest", "largest", "newest", "biggest", "peak"}),
    exp.Min: frozenset({"min", "minimum", "lowest", "earliest", "smallest", "oldest", "first", "cheapest"}),
}
_COUNT_WORDS = frozenset({"count", "num", "number", "no", "cnt", "n", "how", "many", "frequency", "times"})


def is_amount(node: exp.Expression, tree: exp.Expression, schema: Schema) -> bool:
    """A column of numbers that is not a key or a code: what a total adds up."""
    found = owner(node, tree, schema)
    if found is None:
        return False
    table, column = found
    return holds_numbers(column.type) and not is_key(
        column.name) and column.name not in table.primary_key


def is_key(name: str) -> bool:
    """A name that identifies or codes rather than measures: ``id``, ``pid``, ``paperId``, ``order_no``, ``zip_code``."""
    return bool(name_words(name) & {"id", "no", "code", "key"}) or name.lower().endswith("id")


def _said(alias: str, aggregate: exp.AggFunc, tree: exp.Expression, schema: Schema) -> type[exp.AggFunc] | None:
    """The one aggregate the alias's words name, when it is not the one written."""
    words = name_words(alias)
    said = [kind for kind, names in _SAYS.items() if words & names]
    if len(said) != 1 or isinstance(aggregate, said[0]) or isinstance(aggregate.this, (exp.Star, exp.Distinct)):
        return None
    if isinstance(aggregate, exp.Count):  # "total_orders" counts; "total_revenue" adds up amounts
        entities = {w for t in schema.tables for w in name_words(t.name)}
        if said[0] is not exp.Sum or words & (_COUNT_WORDS | entities) or not is_amount(aggregate.this, tree, schema):
            return None
    elif said[0] is exp.Sum and words & _COUNT_WORDS:
        return None
    return said[0]


def alias_evidence(sql: str, result: QueryResult, schema: Schema,
                   execute: Execute) -> tuple[list[str], list[Alternative]]:
    tree = parse(sql, schema.dialect)
    if tree is None:
        return [], []
    said: list[str] = []
    for alias in list(tree.find_all(exp.Alias)):
        aggregate = alias.this
        if not isinstance(aggregate, tuple(AGGREGATE_NAMES)) or not alias.alias:
            continue
        wanted = _said(alias.alias, aggregate, tree, schema)
        if wanted is None:
            continue
        said.append(f"{AGGREGATE_NAMES[type(aggregate)]}(…) is named {alias.alias}")
        aggregate.replace(wanted(this=aggregate.this.copy()))
    if not said:
        return _unrolled(tree, schema, execute, result)
    return offer(tree.sql(dialect=schema.dialect), "As the query names it", lambda how: (
        f"{'; '.join(said)}: computed as its name says, {how}."), schema, execute, result)


def _unrolled(tree: exp.Expression, schema: Schema, execute: Execute,
              result: QueryResult) -> tuple[list[str], list[Alternative]]:
    """A SELECT that aggregates nothing but names columns for totals (``s.sale_price AS total_revenue``, ``s.id AS
    total_sales``, ``s.customer_id AS unique_customers``): each computed as its name says — a sum of an amount, a
    count of anything else, distinct where the name says unique — grouped by the other columns shown."""
    select = tree if isinstance(tree, exp.Select) else None
    if select is None or select.args.get("group") is not None or select.find(exp.AggFunc, exp.Window):
        return [], []
    named: list[tuple[exp.Alias, exp.Expression]] = []
    for item in select.expressions:
        if not isinstance(item, exp.Alias) or not isinstance(item.this, exp.Column):
            continue
        words = name_words(item.alias)
        if words & {"unique", "distinct"} and not words & _SAYS[exp.Avg]:
            named.append((item, exp.Count(this=exp.Distinct(expressions=[item.this.copy()]))))
        elif words & (_COUNT_WORDS | _SAYS[exp.Sum]) - {"n", "no", "how"} and len(words) > 1:
            sums = words & _SAYS[exp.Sum] and not words & _COUNT_WORDS and is_amount(item.this, tree, schema)
            named.append((item, (exp.Sum if sums else exp.Count)(this=item.this.copy())))
        elif said := [kind for kind in (exp.Avg, exp.Max, exp.Min) if words & _SAYS[kind] and len(words) > 1]:
            if said[0] is not exp.Avg or is_amount(item.this, tree, schema):
                named.append((item, said[0](this=item.this.copy())))
    if not named:
        return [], []
    groups = [e.unalias().copy() for e in select.expressions if all(e is not item for item, _ in named)]
    if any(g.find(exp.Star) for g in groups):
        return [], []
    for item, aggregate in named:
        item.set("this", aggregate)
    if groups:
        select.set("group", exp.Group(expressions=groups))
    names = ", ".join(item.alias for item, _ in named)
    return offer(select.sql(dialect=schema.dialect), "Totals as the query names them", lambda how: (
        f"{names} name totals but the query shows each row's own value; computed as named, {how}."), schema,
        execute, result)

