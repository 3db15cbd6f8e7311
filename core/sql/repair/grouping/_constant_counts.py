"""A count that is 1 in every group by its construction: ``COUNT(DISTINCT publication.year) … GROUP BY
publication.year`` — within a group the key has one value, so the column says nothing, whatever the data. Read as the
count of the thing its name or the question counts (``total_publications``, "the number of publications"), by that
table's own key — ``COUNT(DISTINCT publication.pid)`` — a guess the model is shown first (``GUESSED``), with the
query as written one click away on the answer; where no table of the query is named so, or the name and the
question name different ones, left as written (a refusal there broke an answer that was right as written).

Only a ``COUNT(DISTINCT x)`` that is a whole select item and whose one argument is a GROUP BY key of its SELECT; a
count inside an expression, a count of another column, a plain ``COUNT(x)`` (the group's size) and a count in a query
with no GROUP BY are left as written.
"""

from __future__ import annotations

from sqlglot import exp

from core.schema import Schema
from core.sql.repair._names import COUNTED_THING, GUESSED, counted_thing, tokens, word_forms
from core.sql.repair._scope import scope_sources, scopes
from core.sql.repair.joins import table_keys

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
            item = count.parent if isinstance(count.parent, exp.Alias) else count
            if item not in select.expressions:
                continue  # inside an expression (a ratio's term): what it stands for is not said
            named = _named(item.alias if item is not count else "", question, scope_sources(scope, schema, dialect))
            if named is None:  # nothing names what to count, or the name and the question disagree: left (a
                continue  # held-out reply right as written held one, its gold the same)
            alias, key = named
            distinct.set("expressions", [exp.column(key, table=alias)])
            fixes.append(f"{written} is 1 in every group (it counts the group's own key): counted "
                         f"{count.sql(dialect=dialect)}, the thing its name says" + GUESSED)


def _named(alias: str, question: str, sources: list) -> tuple[str, str] | None:  # noqa: ANN001 - _scope.Source
    """(the source's alias, its table's own key) of the one table the count's name — else the question's "number
    of …" — names, or None."""
    said = COUNTED_THING.search(question or "")
    found = []
    for words in (word_forms(counted_thing(said)) if said else set(), set(tokens(alias))):
        tables = [s for s in sources if s.table is not None and words & set(tokens(s.table.name))]
        whole = [s for s in tables if set(tokens(s.table.name)) <= words]  # author before domain_author
        hits = {(s.key, key) for s in (whole or tables) if (key := next(iter(table_keys(s.table)), None)) is not None}
        found.append(hits.pop() if len(hits) == 1 else None)
    asked, alias_says = found
    return asked if asked and (alias_says in (None, asked)) else alias_says if not said else None  # disagreeing: none
