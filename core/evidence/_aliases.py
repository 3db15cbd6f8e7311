"""An aggregate the query's own name for it contradicts: ``COUNT(sale_price) AS total_revenue``,
``MAX(rating) AS average_rating``, ``MIN(payment_date) AS latest_payment``.

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
        return [], []
    return offer(tree.sql(dialect=schema.dialect), "As the query names it", lambda how: (
        f"{'; '.join(said)}: computed as its name says, {how}."), schema, execute, result)
