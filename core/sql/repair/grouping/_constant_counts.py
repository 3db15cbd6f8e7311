"""A count that is 1 in every group by its construction: ``COUNT(DISTINCT publication.year) … GROUP BY
publication.year`` — within a group the key has one value, so the column says nothing, whatever the data. Read as the
count of the thing its name or the question counts (``total_publications``, "the number of publications"), by that
table's own key — ``COUNT(DISTINCT publication.pid)`` — a guess the model is shown first (``GUESSED``), with the
query as written one click away on the answer; where no table of the query is named so, refused with what to write
(the model is asked again, and without a model nothing wrong is shown).

Only a ``COUNT(DISTINCT x)`` whose one argument is a GROUP BY key of its own SELECT; a count of another column, a
plain ``COUNT(x)`` (the group's size) and a count in a query with no GROUP BY are left as written.
"""

from __future__ import annotations

from sqlglot import exp

from core.errors import SQLValidationError
from core.schema import Schema, Table
from core.sql.repair._names import COUNTED_THING, GUESSED, tokens, word_forms
from core.sql.repair._scope import scope_sources, scopes

__all__ = ["constant_counts"]


def constant_counts(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str], question: str) -> None:
    """``COUNT(DISTINCT k)`` grouped by ``k``: the count of the named thing's key (a guess), or refused."""
    for scope in scopes(tree):
        select = scope.expression
        group = select.args.get("group") if isinstance(select, exp.Select) else None
        if group is None:
            continue
        keys = list(group.expressions)
        for count in list(select.find_all(exp.Count)):
            distinct = count.this
            if count.find_ancestor(exp.Select) is not select or not isinstance(distinct, exp.Distinct) or len(
                    distinct.expressions) != 1 or not any(distinct.expressions[0] == k for k in keys):
                continue
            written = count.sql(dialect=dialect)
            item = count.find_ancestor(exp.Alias)
            named = _named(item.alias if item is not None else "", question, scope_sources(scope, schema, dialect))
            if named is None:
                raise SQLValidationError(
                    f"{written} counts the group's own key: it is 1 in every group",
                    hint="Count what the question counts: COUNT(*) for the rows of each group, or COUNT(DISTINCT "
                         "<key of the counted table>).")
            alias, key = named
            distinct.set("expressions", [exp.column(key, table=alias)])
            fixes.append(f"{written} is 1 in every group (it counts the group's own key): counted "
                         f"{count.sql(dialect=dialect)}, the thing its name says" + GUESSED)


def _named(alias: str, question: str, sources: list) -> tuple[str, str] | None:  # noqa: ANN001 - _scope.Source
    """(the source's alias, its table's own key) of the one table the count's name — else the question's "number
    of …" — names, or None."""
    said = COUNTED_THING.search(question or "")
    for words in (set(tokens(alias)), word_forms(said.group(1) or said.group(2)) if said else set()):
        hits = {(s.key, key) for s in sources if s.table is not None and words & set(tokens(s.table.name))
                and (key := _own_key(s.table)) is not None}
        if len(hits) == 1:
            return hits.pop()
    return None


def _own_key(table: Table) -> str | None:
    """The table's own key: its one-column primary key, else ``id``, ``<table>_id`` or a short ``?id`` by name."""
    if len(table.primary_key) == 1:
        return table.primary_key[0]
    own = set(tokens(table.name))
    for column in table.columns:
        low, words = column.name.lower(), set(tokens(column.name))
        if low == "id" or "id" in words and words - {"id"} <= own or (
                len(low) <= 4 and low.endswith("id") and low[0] == table.name[:1].lower()):
            return column.name
    return None
