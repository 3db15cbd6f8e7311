"""Rows that do not say what they are about, and groups that compute nothing.

- A grouped query that shows only what it computes (``SELECT SUM(x) … GROUP BY author.name``): its rows are numbers
  the person cannot tell apart. Offered with the columns it groups by shown first.
- A ranking (``ORDER BY … LIMIT``) that shows only numbers of the rows it ranks, where the question names their
  table ("the top 3 publications with the most citations" answered with three counts): offered with that table's one
  label (else its key) shown first.
- A GROUP BY with no aggregate anywhere (a list of distinct values) where the question asks how many, what total or
  what average: offered with that measure per group — a count of the rows, or the sum or average of the one number
  column the question names.
- A count of distinct keys of one table where the question counts another the query reads ("how many sales",
  ``COUNT(DISTINCT s.customer_id)``): offered counting the table the words count, by its own key.
- A grouped query with a row of totals added under it (``… GROUP BY country UNION ALL SELECT 'Total', SUM(x) …``,
  the same rows read: its tables among theirs and the same WHERE, a total of the groups, not another group such as
  'Other'): a row
  that is no group, counted with the groups and ranked among them. Offered without it, unless the words ask for a
  total row (a grand, overall or combined total, the whole, "plus a total").

The query that ran stays the answer; the other is run under the guard and offered (with a model: shown it first).
"""

from __future__ import annotations

import re

from sqlglot import exp

from core.answer import Alternative
from core.databases import QueryResult
from core.evidence._asked import read_question
from core.evidence._common import Execute, holds_numbers, offer, owner, parse, select_tables
from core.evidence._question_columns import KEY_WORDS, is_key_of, label_column, name_words
from core.fallback import singular
from core.schema import Schema, Table

__all__ = ["counted_entity_evidence", "dropped_measure_evidence", "total_row_evidence", "unlabelled_rows_evidence"]


def _shown_first(tree: exp.Select, items: list[exp.Expression]) -> exp.Select | None:
    """``tree`` with ``items`` shown before its own columns; None where an ORDER BY position would move."""
    order = tree.args.get("order")
    if order is not None and any(isinstance(o.this, exp.Literal) for o in order.expressions):
        return None
    other = tree.copy()
    other.set("expressions", [*(i.copy() for i in items), *other.expressions])
    return other


def unlabelled_rows_evidence(question: str, sql: str, result: QueryResult, schema: Schema,
                             execute: Execute) -> tuple[list[str], list[Alternative]]:
    """Groups shown without their columns, or a ranking shown without what it ranks (see the module)."""
    tree = parse(sql, schema.dialect)
    if not isinstance(tree, exp.Select) or result.truncated or not result.rows or tree.find(exp.Window) or any(
            isinstance(p.unalias(), exp.Star) for p in tree.expressions):
        return [], []
    ranked = tree.args.get("limit") is not None and tree.args.get("order") is not None
    group = tree.args.get("group")
    if group is not None:
        keys = list(group.expressions)
        if not keys or any(isinstance(k, exp.Literal) or not k.find(exp.Column) for k in keys) or any(
                not p.find(exp.AggFunc) for p in tree.expressions) or len(result.rows) < 2 and not ranked:
            return [], []  # a column shown says which group; one group with no ranking is the one the filter chose
        names = ", ".join(k.sql(dialect=schema.dialect) for k in keys)
        other = _shown_first(tree, keys)
        return ([], []) if other is None else offer(
            other.sql(dialect=schema.dialect), f"Also show {names}"[:80], lambda how: (
                f"The query groups by {names} but shows only what it computes, so its rows do not say which "
                f"{names} each one is."), schema, execute, result)
    if not ranked or tree.find(exp.AggFunc) or tree.args.get("distinct"):
        return [], []
    return _unlabelled_ranking(question, tree, result, schema, execute)


def _unlabelled_ranking(question: str, tree: exp.Select, result: QueryResult, schema: Schema,
                        execute: Execute) -> tuple[list[str], list[Alternative]]:
    shown = [owner(c, tree, schema) for p in tree.expressions for c in p.find_all(exp.Column)]
    if not shown or any(f is None or not holds_numbers(f[1].type) or is_key_of(f[1].name, f[0])
                        or name_words(f[1].name) & KEY_WORDS for f in shown):
        return [], []  # a label, a key or a value of text shown says which row each is
    ordered = [owner(c, tree, schema) for o in tree.args["order"].expressions for c in o.find_all(exp.Column)]
    tables = {f[0].qualified_name: f[0] for f in ordered if f is not None}
    words = read_question(question).words
    if len(tables) != 1:
        return [], []
    table = next(iter(tables.values()))
    if not name_words(table.name) & words:
        return [], []  # "the 3 highest citation counts": the numbers are what is asked
    label = label_column(table)
    column = label.name if label is not None else next((c.name for c in table.columns if is_key_of(c.name, table)),
                                                       None)
    alias = next((a for a, t in select_tables(tree, schema).items() if t is table), None)
    if column is None or alias is None:
        return [], []
    other = _shown_first(tree, [exp.column(column, table=alias)])
    return ([], []) if other is None else offer(
        other.sql(dialect=schema.dialect), f"Also show {column}"[:80], lambda how: (
            f"The query ranks {table.name} but shows only numbers, so its rows do not say which of them each one "
            f"is; {column} shown beside them says it."), schema, execute, result)


def dropped_measure_evidence(question: str, sql: str, result: QueryResult, schema: Schema,
                             execute: Execute) -> tuple[list[str], list[Alternative]]:
    """A GROUP BY that computes nothing where the question asks for a measure (see the module)."""
    tree = parse(sql, schema.dialect)
    if not isinstance(tree, exp.Select) or result.truncated or tree.args.get("group") is None or tree.find(
            exp.AggFunc, exp.Window, exp.Subquery) or any(isinstance(p.unalias(), exp.Star) for p in tree.expressions):
        return [], []
    asked = read_question(question).aggregates
    if not asked:  # "how many", "total", "average"
        return [], []
    grouped = {(f[0].qualified_name, f[1].name.lower()) for g in tree.args["group"].expressions
               if (f := owner(g, tree, schema)) is not None}
    words = read_question(question).words
    numbers = [(alias, c.name) for alias, t in select_tables(tree, schema).items() if t is not None
               for c in t.columns if holds_numbers(c.type) and (t.qualified_name, c.name.lower()) not in grouped
               and not is_key_of(c.name, t) and not name_words(c.name) & KEY_WORDS and not any(
                   c.name in fk.columns for fk in t.foreign_keys) and name_words(c.name) - name_words(t.name) & words]
    kind = "avg" if "avg" in asked else "sum" if "sum" in asked and len(numbers) == 1 else "count"
    if kind != "count" and len(numbers) != 1 or kind == "count" and "count" not in asked:
        return [], []  # a total or an average of no number the words name: no guess
    measure: exp.Expression = exp.Count(this=exp.Star()) if kind == "count" else (
        exp.Avg if kind == "avg" else exp.Sum)(this=exp.column(numbers[0][1], table=numbers[0][0]))
    other = tree.copy()
    other.set("expressions", [*other.expressions, exp.alias_(measure, "total" if kind == "sum" else kind)])
    said = {"count": "the number of rows per group", "avg": f"the average {numbers[0][1] if numbers else ''}",
            "sum": f"the total {numbers[0][1] if numbers else ''}"}[kind]
    return offer(other.sql(dialect=schema.dialect), f"Also show {said}"[:80], lambda how: (
        f"The question asks for {said.removeprefix('the ')}, but the query groups without computing anything: it "
        "only lists each group once."), schema, execute, result)


_COUNTED = re.compile(r"\b(?:how\s+many|number\s+of|count\s+of|count\s+the|kitne|kitni)\s+(?:distinct\s+|unique\s+|"
                      r"different\s+)?([a-z]+)")


def counted_entity_evidence(question: str, sql: str, result: QueryResult, schema: Schema,
                            execute: Execute) -> tuple[list[str], list[Alternative]]:
    """A count of distinct keys of one table where the question counts another that the query also reads ("how
    many sales", ``COUNT(DISTINCT s.customer_id)``: customers counted): offered counting the rows of the table the
    words count, by its own key."""
    tree = parse(sql, schema.dialect)
    said = _COUNTED.search(" ".join(question.lower().split()))
    if not isinstance(tree, exp.Select) or result.truncated or said is None:
        return [], []
    noun = singular(said.group(1))
    sources = {a: t for a, t in select_tables(tree, schema).items() if t is not None}
    counted = [(a, t) for a, t in sources.items() if {singular(w) for w in name_words(t.name)} == {noun}] or [
        (a, t) for a, t in sources.items() if noun in {singular(w) for w in name_words(t.name)}]
    if len({t.qualified_name for _, t in counted}) != 1:
        return [], []
    alias, table = counted[0]
    key = next((c.name for c in table.columns if is_key_of(c.name, table)), None)
    for count in tree.find_all(exp.Count):
        distinct = count.this
        if not isinstance(distinct, exp.Distinct) or len(distinct.expressions) != 1:
            continue
        found = owner(distinct.expressions[0], tree, schema)
        if found is None or key is None or found[0] is table and found[1].name == key:
            continue
        other = _entity_of(found[0], found[1].name, schema)
        if other is None or other is table:
            continue
        before = count.sql(dialect=schema.dialect)
        distinct.set("expressions", [exp.column(key, table=alias)])
        why = f"The question counts {said.group(1)}, but {before} counts {other.name}."
        return offer(tree.sql(dialect=schema.dialect), f"Count {table.name}"[:80], lambda how, why=why: why, schema,
                     execute, result)
    return [], []


def _entity_of(table: Table, column: str, schema: Schema) -> Table | None:
    """The table whose rows ``column`` of ``table`` names: the one table declaring it as its primary key, else the
    one whose own key it is by name (``jid``: journal; ``aid`` of author), else the table a ``<name>_id`` names."""
    owners = [t for t in schema.tables if t.column(column) is not None and tuple(t.primary_key) == (
        t.column(column).name,)]  # type: ignore[union-attr]
    owners = owners or [t for t in schema.tables if t.column(column) is not None and is_key_of(column, t)]
    if len(owners) > 1:  # ``did`` in domain and in domain_author, domain_keyword…: the one of one word is the entity
        owners = [t for t in owners if len(name_words(t.name)) == 1]
    if len(owners) == 1:
        return owners[0]
    words = name_words(column) - KEY_WORDS
    named = [t for t in schema.tables if words and {singular(w) for w in name_words(t.name)} == {singular(w)
                                                                                                 for w in words}]
    return named[0] if len(named) == 1 else None


_ASKS_TOTAL = re.compile(r"\b(?:grand|overall|sub)[ -]?totals?\b|\btotals?[ -](?:row|line)s?\b|\bin total\b|"
                         r"\baltogether\b|\bwhole\b|\b(?:plus|and|with|add)\s+(?:a|the)\s+total\b|\bcombined\b",
                         re.IGNORECASE)


def total_row_evidence(question: str, sql: str, result: QueryResult, schema: Schema,
                       execute: Execute) -> tuple[list[str], list[Alternative]]:
    """A grouped query and, by ``UNION ALL``, a row of totals with a constant label and no GROUP BY: offered as the
    grouped query alone (its ORDER BY and LIMIT kept), unless the question asks for a total row."""
    tree = parse(sql, schema.dialect)
    if not isinstance(tree, exp.Union) or tree.args.get("distinct") or _ASKS_TOTAL.search(question):
        return [], []
    grouped, total = tree.left, tree.right
    if not (isinstance(grouped, exp.Select) and isinstance(total, exp.Select) and grouped.args.get("group")
            and not total.args.get("group") and any(isinstance(e.unalias(), exp.Literal) and e.unalias().is_string
                                                    for e in total.expressions)
            and total.find(exp.AggFunc) is not None and _same_rows_read(grouped, total)):
        return [], []
    alone = grouped.copy()
    for part in ("order", "limit", "offset"):  # the union's own, written after its last SELECT
        if tree.args.get(part) is not None:
            alone.set(part, tree.args[part].copy())
    return offer(alone.sql(dialect=schema.dialect), "Without the total row", lambda how: (
        "The query adds a row of totals under the groups (UNION ALL), counted and ranked with them; without it, "
        f"{how}."), schema, execute, result)


def _same_rows_read(grouped: exp.Select, total: exp.Select) -> bool:
    """Whether the totals SELECT reads the rows the grouped one does (its tables among the grouped one's, the same
    WHERE): a total of the groups, not another group (``'Other' … WHERE category <> 'Office'``)."""
    def rows(select: exp.Select) -> tuple[list[str], str]:
        tables = sorted(t.name.lower() for t in select.find_all(exp.Table))
        where = select.args.get("where")
        return tables, where.this.sql() if where is not None else ""

    def unqualified(sql: str) -> str:
        return re.sub(r"\b\w+\.", "", sql).lower()

    (a_tables, a_where), (b_tables, b_where) = rows(grouped), rows(total)
    return set(b_tables) <= set(a_tables) and unqualified(a_where) == unqualified(b_where)
