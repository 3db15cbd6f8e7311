"""A count per group read the wrong way round: "the number of authors per domain" answered with
``SELECT a.aid, COUNT(DISTINCT d.name) … GROUP BY a.aid`` — a row per author counting its domains. The question
counts the very thing the query groups by, one group per author, so the number it asks for is in no row. Read as
the number of the grouped things per the counted column — ``SELECT d.name, COUNT(DISTINCT a.aid) … GROUP BY
d.name``, the same FROM, WHERE, ORDER BY and LIMIT — a guess the model is shown first (``GUESSED``), and the query
as written is one click away on the answer.

Only the outermost SELECT of exactly two items, the GROUP BY column and one ``COUNT([DISTINCT] column)``, no HAVING
and no window; only where the question counts a thing ("number of authors", "how many restaurants", "count of
papers", in English words) that the grouped column is the key of — the table's own key (``author.aid``, declared
or by its name), or a ``<thing>_id`` column (``location.restaurant_id``) — and never the thing the counted column is
or belongs to; and only where the question names the counted column or its table ("each type of food":
``food_type``; "per conference": ``conference.name``). Anything else is left as written.
"""

from __future__ import annotations

import re

from sqlglot import exp

from core.schema import Schema, Table
from core.sql.repair._names import COUNTED_THING, GUESSED, counted_thing, tokens, word_forms
from core.sql.repair._scope import column_sources, scope_sources, scopes
from core.sql.repair.joins import table_keys

__all__ = ["inverted_counts"]

_BOUND = re.compile(r"\b(?:more|fewer|less|greater)\s+than\b|\bat\s+(?:least|most)\b|\bor\s+(?:more|fewer|less)\b|"
                    r"\b(?:over|under|above|below|exceed\w*)\s+\d", re.IGNORECASE)
_KEY_WORDS = frozenset({"id", "key", "no", "num", "number", "code", "pk", "uuid"})
_GENERIC = frozenset({"name", "title", "label", "description", "desc", "value", "type"})


def inverted_counts(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str], question: str) -> None:
    """A count of one column per key of the thing the question counts: the count of that key per the column."""
    if not question or not question.isascii() or not isinstance(tree, exp.Select) or tree.args.get("having") or \
            tree.find(exp.Window) or _BOUND.search(question):
        return  # "customers who ordered more than one product": a count per customer, asked
    said = COUNTED_THING.search(question)
    group = tree.args.get("group")
    if said is None or group is None or len(group.expressions) != 1 or len(tree.expressions) != 2:
        return
    key = group.expressions[0]
    counts = [item for item in tree.expressions if isinstance(item.unalias(), exp.Count)]
    shown = [item for item in tree.expressions if item.unalias() == key]
    if not isinstance(key, exp.Column) or len(counts) != 1 or len(shown) != 1:
        return
    count = counts[0].unalias()
    distinct = isinstance(count.this, exp.Distinct)
    counted = count.this.expressions[0] if distinct and len(count.this.expressions) == 1 else count.this
    if not isinstance(counted, exp.Column) or counted == key:
        return
    sources = scope_sources(scopes(tree)[-1], schema, dialect)
    key_owner, counted_owner = (column_sources(c, sources, dialect) for c in (key, counted))
    tables = [s.table.name.lower() for s in sources if s.table is not None]
    if len(key_owner) != 1 or len(counted_owner) != 1 or key_owner[0].table is None or counted_owner[0].table is None \
            or len(tables) != len(set(tables)):  # a self-join (managers of employees) is left
        return
    thing = word_forms(counted_thing(said))
    entity = _keyed(key.name, key_owner[0].table)
    counted_words = set(tokens(counted.name)) | (set() if counted_owner[0].table is key_owner[0].table else set(
        tokens(counted_owner[0].table.name)))  # a column of the thing itself (``restaurant.food_type``) is its own
    named = set(tokens(counted.name)) - _GENERIC or set(tokens(counted_owner[0].table.name))
    asked = {t for word in re.findall(r"[A-Za-z]+", question) for t in tokens(word)} - thing
    if not thing & entity or thing & counted_words or not named & asked:
        return
    new_key, new_counted = counted.copy(), key.copy()
    count.set("this", exp.Distinct(expressions=[new_counted]) if distinct else new_counted)
    for item in list(tree.expressions):
        if item is key or item == key:
            item.replace(new_key.copy())
        elif item.unalias() == key:
            item.set("this", new_key.copy())
    group.set("expressions", [new_key.copy()])
    for order in (tree.args.get("order").expressions if tree.args.get("order") else []):
        if order.this == key:
            order.set("this", new_key.copy())
    fixes.append(f"the question counts {said.group(1) or said.group(2)}, and the query counted "
                 f"{counted.sql(dialect=dialect)} per {key.sql(dialect=dialect)}, one group per "
                 f"{' '.join(tokens(key_owner[0].table.name))}: read as the number of {key.sql(dialect=dialect)} per "
                 f"{counted.sql(dialect=dialect)}" + GUESSED)


def _keyed(name: str, table: Table) -> set[str]:
    """The words of the thing ``name`` is the key of: its table's where it is the table's own key (``table_keys``:
    ``aid`` of author), else the words of a ``<thing>_id`` name; none otherwise."""
    words = set(tokens(name))
    if name.lower() in (k.lower() for k in table_keys(table)) or not words - _KEY_WORDS:
        return set(tokens(table.name))
    return words - _KEY_WORDS if words & _KEY_WORDS else set()
