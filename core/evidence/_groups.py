"""Groupings that may not mean what they say: the other reading of an aggregate beside bare columns that had no
GROUP BY as written, a GROUP BY of the key of the very table whose columns are aggregated, and the groups with the
largest value where the question asks for the top n."""

from __future__ import annotations

import re

from sqlglot import exp

from core.answer import Alternative
from core.databases import QueryResult
from core.evidence._aliases import is_key
from core.evidence._asked import Asked, read_question
from core.evidence._question_columns import KEY_WORDS, LABEL_WORDS, is_key_of, label_column, name_words
from core.evidence._question_dates import asked_grain
from core.evidence._common import (Execute, holds_numbers, offer, other_rows, owner, parse, rows_word,
                                   select_tables)
from core.fallback import singular
from core.prompt import column_said
from core.sql import group_keys, joined_on
from core.schema import Schema, Table

__all__ = ["rank_evidence", "completion_evidence", "extreme_group_evidence", "hidden_group_evidence", "key_group_evidence",
           "split_finding", "splits_asked"]


_LABELS_AND_KEYS = LABEL_WORDS | KEY_WORDS | {"num"}
# Words that ask for one row per something ("per month", "each city", "by region", "state-wise", "har din").
_SPLIT_WORDS = frozenset({"per", "each", "every", "by", "har", "wise", "breakdown", "split", "group", "grouped",
                          "across", "pratyek"})


def splits_asked(question: str, completed: exp.Expression, schema: Schema) -> bool:
    """Whether the question names every column a GROUP BY completion split by ("per grade", "each item" for
    ``items.name``, "per month" for ``strftime('%Y-%m', d) AS month`` or any date bucket): the split was asked
    for, so the completion is the reading to run."""
    asked = read_question(question)
    cue = bool(asked.words & _SPLIT_WORDS or asked.ranks or asked.limit is not None or asked.one)
    said = []
    grain = asked_grain(" ".join(question.lower().split()))
    for select in completed.find_all(exp.Select):
        aliases = {p.unalias(): p.alias for p in select.expressions if isinstance(p, exp.Alias)}
        inner = _inner_name(select, completed)
        for item in (select.args.get("group") or exp.Group()).expressions:
            alias = next((a for e, a in aliases.items() if e == item), "")
            if inner and isinstance(item, exp.Column) and _split_used(item, alias, select, schema):
                said.append(True)  # a CTE joined on its column, or grouped by its table's key: made per that column
                continue
            if isinstance(item, exp.Column):
                found = owner(item, select, schema)
                table = found[0].name if found else ""
                # its own words said ("each year" for year, "by state" for sbCustState) split by it; a label, a key
                # or a column named for its table (restaurant.name, business_id, sales.sale_date) is said by the
                # table's name alone ("the ratio of open businesses"): a split by it needs words that split
                own = name_words(item.name) - name_words(table) - _LABELS_AND_KEYS
                named = bool(own & asked.words) or bool(alias and (name_words(alias) - _LABELS_AND_KEYS) & asked.words)
                key_said = bool(name_words(item.name) & asked.words & _LABELS_AND_KEYS) and column_said(
                    question, item.name, table)  # "the customer id", "each author's name"
                said.append(named or key_said or (cue and column_said(question, item.name, table)))
            else:  # an expression: by its alias, or a date bucket when the words group by a period
                said.append(bool(alias and column_said(question, alias)) or (grain is not None and isinstance(
                    item, (exp.Anonymous, exp.TimeToStr, exp.DateTrunc, exp.TimestampTrunc, exp.Extract,
                           exp.Year, exp.Month, exp.Date))))
    return bool(said) and all(said)


def _inner_name(select: exp.Select, tree: exp.Expression) -> str:
    """The name the rest of the query reads ``select`` by: its CTE's or derived table's alias ("" for the outermost
    query, a branch of a union or a subquery with no name)."""
    holder = select.parent
    if isinstance(holder, (exp.CTE, exp.Subquery)) and select is not tree:
        return holder.alias_or_name
    return ""


def _split_used(item: exp.Column, alias: str, select: exp.Select, schema: Schema) -> bool:
    """Whether a column a CTE or derived table is grouped by shows the split was meant: the rest of the query joins
    on it (``JOIN ec ON ec.merchant_id = m.mid``: one row could not be joined on), or it is its table's own key
    (``s.id`` beside ``MAX(p.payment_date)``: one value per sale)."""
    found = owner(item, select, schema)
    if found is not None and (found[1].name in found[0].primary_key[:1] or found[1].name.lower() == "id"):
        return True
    return joined_on(select, alias or item.name)


def completion_evidence(question: str, written: str, sql: str, result: QueryResult, schema: Schema,
                        execute: Execute) -> tuple[list[str], list[Alternative]]:
    """Completed (``SELECT region, SUM(amount) FROM sales`` grouped by region), the question may have asked for one
    total: the aggregates alone are offered, unless the question says what every column splits by ("per region").
    Kept as SQLite's one-extreme idiom (``SELECT name, MAX(price)``: the row with the highest price), the question
    may have asked per name: the grouped query is offered."""
    before, after = parse(written, schema.dialect), parse(sql, schema.dialect)
    if (not isinstance(before, exp.Select) or not isinstance(after, exp.Select) or before.args.get("group")
            or after.args.get("having") or after.find(exp.Window)):  # fmt: skip
        return [], []
    totals = [p for p in after.expressions if p.find(exp.AggFunc)]
    bare = [p for p in after.expressions if not p.find(exp.AggFunc) and not isinstance(p.unalias(), exp.Literal)]
    if not totals or not bare or any(isinstance(p, exp.Star) or p.find(exp.Star) for p in bare):
        return [], []
    names = ", ".join(p.alias_or_name for p in bare)
    grouped = bool(after.args.get("group"))
    if grouped and all(column_said(question, p.alias_or_name, _table_of(p.unalias(), after, schema)) for p in bare):
        return [], []
    other_tree = after.copy()
    if grouped:
        other_tree.set("expressions", [p.copy() for p in totals])
        for clause in ("group", "order", "limit", "offset"):
            other_tree.set(clause, None)
    else:  # SQLite's idiom ran: bare columns from the row holding the extreme
        other_tree.set("group", exp.Group(expressions=[p.unalias().copy() for p in bare]))
    found = other_rows(other_tree.sql(dialect=schema.dialect), schema, execute, result)
    if found is None:
        return [], []
    other_sql, other = found
    if grouped:
        value = f" ({other.rows[0][0]})" if len(other.rows) == 1 and len(other.rows[0]) == 1 else ""
        why = (f"The query had no GROUP BY; Cairn split its totals by {names}. If you asked for one total{value}, "
               "run the other query.")
        return [why], [Alternative(f"One total, not split by {names}", other_sql, why)]
    extreme = all(isinstance(a, (exp.Max, exp.Min)) for p in totals for a in p.find_all(exp.AggFunc))
    source = "the one row holding the extreme" if extreme else "one row SQLite picks"
    why = (f"The query has no GROUP BY, so {names} come from {source}. If you asked for one "
           f"row per {names} ({rows_word(len(other.rows))}), run the other query.")
    return [why], [Alternative(f"One row per {names}", other_sql, why)]


def extended_group_evidence(question: str, written: str, sql: str, result: QueryResult, schema: Schema,
                            execute: Execute) -> tuple[list[str], list[Alternative]]:
    """The model grouped by some columns and showed another it neither grouped nor aggregated (PostgreSQL rejects
    it); Cairn grouped by that one too, which may split every group. Unless the question names the column, the
    query without it (the model's own GROUP BY) is offered when its rows differ."""
    before, after = parse(written, schema.dialect), parse(sql, schema.dialect)
    if not isinstance(before, exp.Select) or not isinstance(after, exp.Select) or not before.args.get("group") or \
            not after.args.get("group"):
        return [], []
    had = {e.sql() for e in before.args["group"].expressions}
    added = [e for e in after.args["group"].expressions if e.sql() not in had]
    if not added or len(added) == len(after.args["group"].expressions):
        return [], []
    added_sql = {e.sql() for e in added}
    shown = [p for p in after.expressions if p.unalias().sql() in added_sql]
    if not shown or any(column_said(question, p.alias_or_name, _table_of(p.unalias(), after, schema)) for p in shown):
        return [], []
    other_tree = after.copy()
    other_tree.set("expressions", [p.copy() for p in after.expressions if p.unalias().sql() not in added_sql])
    other_tree.set("group", exp.Group(expressions=[e.copy() for e in after.args["group"].expressions
                                                   if e.sql() not in added_sql]))
    names = ", ".join(p.alias_or_name for p in shown)
    found = other_rows(other_tree.sql(dialect=schema.dialect), schema, execute, result)
    if found is None or len(found[1].rows) == len(result.rows):
        return [], []  # the same groups: the column only says more about each (a name beside its key)
    why = (f"The model's query showed {names} without grouping or aggregating it; Cairn grouped by it too, which "
           f"splits the groups: {rows_word(len(result.rows))} instead of {len(found[1].rows):,}.")
    return [why + " See the other query below the answer."], [
        Alternative(f"Grouped as written, without {names}"[:80], found[0], why)]


def hidden_group_evidence(sql: str, result: QueryResult, schema: Schema,
                          execute: Execute) -> tuple[list[str], list[Alternative]]:
    """A GROUP BY column the query does not show, not a key (a key keeps namesakes apart), where the rows shown
    repeat: the groups are split by values the answer never shows (``GROUP BY state, city`` showing state: one
    state on several rows). The query grouped without it (read nowhere else) is run and offered."""
    tree = parse(sql, schema.dialect)
    if not isinstance(tree, exp.Select) or tree.args.get("group") is None or result.truncated or tree.find(
            exp.Window) or tree.args.get("distinct"):
        return [], []
    shown = [p.unalias() for p in tree.expressions]
    labels = [i for i, p in enumerate(shown) if not p.find(exp.AggFunc)]
    if not labels or any(isinstance(p, exp.Star) for p in shown) or len(
            {tuple(row[i] for i in labels) for row in result.rows}) == len(result.rows):
        return [], []  # every row its own label: nothing split unseen
    aliases = {p.alias.lower() for p in tree.expressions if isinstance(p, exp.Alias)}
    elsewhere = [c for clause in ("order", "having") if tree.args.get(clause) for c in tree.args[clause].find_all(
        exp.Column)]
    def read(col: exp.Column) -> tuple[str, str]:
        found = owner(col, tree, schema)
        return (found[0].qualified_name, found[1].name.lower()) if found else ("", col.name.lower())

    seen = {read(c) for part in (*shown, *elsewhere) for c in ([part] if isinstance(part, exp.Column) else
                                                                part.find_all(exp.Column))}
    hidden = []
    for item in tree.args["group"].expressions:
        if not isinstance(item, exp.Column) or item.name.lower() in aliases or read(item) in seen:
            continue
        found = owner(item, tree, schema)
        if found is None or found[1].name in found[0].primary_key or is_key(found[1].name) or name_words(
                found[1].name) & KEY_WORDS:
            continue
        hidden.append(item)
    if not hidden or len(hidden) == len(tree.args["group"].expressions):
        return [], []
    other = tree.copy()
    other.set("group", exp.Group(expressions=[e.copy() for e in tree.args["group"].expressions if e not in hidden]))
    names = ", ".join(h.sql(dialect=schema.dialect) for h in hidden)
    return offer(other.sql(dialect=schema.dialect), f"Not split by {names}"[:80], lambda how: (
        f"The query also groups by {names}, which it does not show, so rows with the same values shown repeat; "
        f"grouped without it, {how}."), schema, execute, result)


def _table_of(col: exp.Expression, tree: exp.Expression, schema: Schema) -> str:
    found = owner(col, tree, schema)
    return found[0].name if found else ""


def key_group_evidence(sql: str, result: QueryResult, schema: Schema,
                       execute: Execute) -> tuple[list[str], list[Alternative]]:
    """A GROUP BY of a table's own primary key (``GROUP BY s.id``) beside aggregates of that table's columns
    (``COUNT(s.id)``, ``SUM(s.price)``): each group is one of its rows, so each aggregate reads one value. When one
    other table of the query has a column of that name (``sp.id``), the grouping by it is run and offered."""
    tree = parse(sql, schema.dialect)
    if tree is None or result.truncated:
        return [], []
    for select in tree.find_all(exp.Select):
        group = select.args.get("group")
        tables = select_tables(select, schema)
        for col in group.expressions if group is not None else ():
            found = owner(col, select, schema) if isinstance(col, exp.Column) and col.table else None
            if found is None or found[0].primary_key != (found[1].name,):
                continue
            aggregated = [c for agg in select.find_all(exp.AggFunc) for c in agg.find_all(exp.Column)
                          if agg.find_ancestor(exp.Select) is select]
            if not aggregated or any(c.table.lower() != col.table.lower() for c in aggregated):
                continue
            others = [alias for alias, t in tables.items() if t is not None and alias != col.table.lower()
                      and t.column(col.name) is not None]
            if len(others) != 1:
                continue
            was = col.sql(dialect=schema.dialect)
            for node in list(select.find_all(exp.Column)):
                if node.table.lower() == col.table.lower() and node.name == col.name and node.find_ancestor(
                        exp.AggFunc) is None and node.find_ancestor(exp.Join, exp.Where) is None:
                    node.set("table", exp.to_identifier(others[0]))
            why = (f"The query groups by {was}, the key of {found[0].name}, so each group is one of its rows and "
                   f"each aggregate reads one value; grouped by {others[0]}.{col.name}")
            return offer(tree.sql(dialect=schema.dialect), f"Group by {others[0]}.{col.name}",
                         lambda how, why=why: f"{why}, {how}.", schema, execute, result)
    return [], []


def constant_count_evidence(sql: str, result: QueryResult, schema: Schema,
                            execute: Execute) -> tuple[list[str], list[Alternative]]:
    """``COUNT(DISTINCT k)`` grouped by ``k`` that the repairs left (nothing said what to count, or it is a ratio's
    term): 1 in every group by construction. The count of each group's rows, ``COUNT(*)``, is run and offered."""
    tree = parse(sql, schema.dialect)
    if tree is None or result.truncated:
        return [], []
    for select in tree.find_all(exp.Select):
        keys = group_keys(select)  # an output name also as the expression it names
        for count in [c for c in select.find_all(exp.Count) if keys and c.find_ancestor(
                exp.Select) is select and isinstance(c.this, exp.Distinct) and len(c.this.expressions) == 1]:
            if any(count.this.expressions[0].unnest() == key.unnest() for key in keys):
                was = count.sql(dialect=schema.dialect)
                count.set("this", exp.Star())
                why = f"{was} counts the group's own key, so it is 1 in every group; counting each group's rows"
                return offer(tree.sql(dialect=schema.dialect), "Count the rows of each group",
                             lambda how, why=why: f"{why}, {how}.", schema, execute, result)
    return [], []


def extreme_group_evidence(question: str, sql: str, result: QueryResult, schema: Schema,
                           execute: Execute) -> tuple[list[str], list[Alternative]]:
    """``HAVING COUNT(*) = (SELECT MAX(n) FROM (SELECT COUNT(*) AS n … GROUP BY …) AS g)`` — the groups with the
    largest count, how Cairn reads ``HAVING COUNT(*) = MAX(COUNT(*))`` — where the question asks for more rows than
    that gives ("the top 3 payment methods"): the groups in that order, as many as asked, are offered."""
    tree = parse(sql, schema.dialect)
    asked = read_question(question).limit
    having = tree.args.get("having") if isinstance(tree, exp.Select) else None
    if having is None or asked is None or asked <= len(result.rows):
        return [], []
    parts = list(having.this.flatten()) if isinstance(having.this, exp.And) else [having.this]
    for part in parts:
        extreme = _extreme_of_groups(part)
        if extreme is None:
            continue
        other = tree.copy()
        rest = [p.copy() for p in parts if p is not part]
        other.set("having", exp.Having(this=exp.and_(*rest)) if rest else None)
        other.set("order", exp.Order(expressions=[exp.Ordered(this=extreme[0].copy(), desc=extreme[1])]))
        other.set("limit", exp.Limit(expression=exp.Literal.number(asked)))
        which = "largest" if extreme[1] else "smallest"
        return offer(other.sql(dialect=schema.dialect), f"The top {asked} groups",
                     lambda how: f"The question asks for {asked} rows; the query keeps only the groups with the "
                                 f"{which} value: in that order, {how}.", schema, execute, result)  # noqa: B023
    return [], []


def _extreme_of_groups(part: exp.Expression) -> tuple[exp.Expression, bool] | None:
    """(the aggregate, largest?) of ``agg = (SELECT MAX(n) FROM (SELECT agg AS n …) AS g)``, else None."""
    if not isinstance(part, exp.EQ) or not isinstance(part.expression, exp.Subquery):
        return None
    top = part.expression.this
    if not isinstance(top, exp.Select) or len(top.expressions) != 1 or not isinstance(
            top.expressions[0], (exp.Max, exp.Min)):
        return None
    return part.this, isinstance(top.expressions[0], exp.Max)


# "per city", "for each state", "grouped by region"; a bare "by" is no cue ("reviews posted by users", "made by")
_SPLIT_CUE = re.compile(r"\b(?:per|each|every|har|pratyek|(?:grouped|broken\s+down|split|group)\s+by)\s+"
                        r"(?:the\s+|of\s+)?([a-z_]+)(?:'s)?(?:\s+([a-z_]+))?")
# The things ranked: "the top 5 domains", "which author had the most …" (only where the words rank, ``Asked.ranks``).
_RANKED = re.compile(r"\b(?:top\s+(?:\d+\s+|[a-z]+\s+)?|which\s+)([a-z_]+)")


def _row_key(table: Table) -> str | None:
    """The column that names a row of ``table``: its one-column primary key, else its one own key by name."""
    if len(table.primary_key) == 1:
        return table.primary_key[0]
    found = [c.name for c in table.columns if is_key_of(c.name, table)]
    return found[0] if len(found) == 1 else None


def _split_columns(alias: str, table: Table, word: str, aggregated: set[str],
                   tables: list[tuple[str, Table]]) -> list[tuple[str, str]]:
    """The columns a split word names in ``table``: a column whose own words hold it (``year``, ``city``), else, when
    the word names the table itself ("each author") and the query reads another table too, its key and its one label
    column (``aid``, ``name``)."""
    own = name_words(table.name)
    named = [(alias, c.name) for c in table.columns if c.name.lower() not in aggregated and word in name_words(
        c.name) - own and (not holds_numbers(c.type) or name_words(c.name) - own == {word})]
    if named or word not in own or len(tables) < 2:
        return named  # "the price of every book" over books alone: one row per book is no split, all books are meant
    label, key = label_column(table), _row_key(table)
    return [(alias, c) for c in ([key] if key else []) + ([label.name] if label else [])]


def split_finding(asked: Asked, tree: exp.Select, schema: Schema) -> tuple[str, str, exp.Expression] | None:
    """One total (aggregates only, no GROUP BY) where the question splits ("per city", "for each state", "grouped by
    region"): the one column of the query's tables the split's words name, shown and grouped by, ranked by the
    first total when the query keeps a LIMIT. A bare "by" is no split ("reviews posted by users")."""
    if not isinstance(tree, exp.Select) or tree.args.get("group") is not None or tree.find(exp.Window) or not all(
            e.find(exp.AggFunc) for e in tree.expressions):
        return None
    tables = [(n.alias_or_name, t) for n in tree.find_all(exp.Table)
              if n.find_ancestor(exp.Select) is tree and (t := schema.table(n.name)) is not None]
    aggregated = {c.name.lower() for e in tree.expressions for c in e.find_all(exp.Column)}
    where = tree.args.get("where")
    aggregated |= {t.this.name.lower() for t in (where.find_all(exp.EQ) if where is not None else ())
                   if isinstance(t.this, exp.Column)}  # "sales by status shipped": one value, fixed, not a split
    cues = [*_SPLIT_CUE.finditer(asked.text), *(_RANKED.finditer(asked.text) if asked.ranks else ())]
    splits: set[tuple[tuple[str, str], ...]] = set()
    for match in cues:
        words = [singular(w) for w in match.groups() if w]
        pairs = [(a, t, words[1]) for a, t in tables if len(words) == 2 and words[0] in name_words(t.name)]
        found = [f for a, t, w in pairs if (f := _split_columns(a, t, w, aggregated, tables))] or [
            f for w in words for a, t in tables if (f := _split_columns(a, t, w, aggregated, tables))]  # domain name
        splits |= {tuple(f) for f in found}
    if len(splits) != 1:
        return None
    columns = [exp.column(name, table=alias or None) for alias, name in splits.pop()]
    tree.set("expressions", [*(c.copy() for c in columns), *tree.expressions])
    tree.set("group", exp.Group(expressions=[c.copy() for c in columns]))
    if tree.args.get("limit") is not None and tree.args.get("order") is None and asked.direction:
        first = tree.expressions[len(columns)]
        tree.set("order", exp.Order(expressions=[exp.Ordered(this=exp.column(first.alias) if first.alias else
                                                             first.unalias().copy(), desc=asked.direction == "desc")]))
    name = " and ".join(c.name for c in columns)
    return (f"The question asks for a split by {name} and the query gives one total", f"Per {name}", tree)


# --- a rank per group computed and never used: ROW_NUMBER() OVER (PARTITION BY …) AS rn, and no rn = 1 -------------

def rank_evidence(sql: str, result: QueryResult, schema: Schema,
                  execute: Execute) -> tuple[list[str], list[Alternative]]:
    """A CTE or derived table that numbers the rows of each group (``ROW_NUMBER() OVER (PARTITION BY user_id ORDER
    BY updated_at DESC) AS rn``, or RANK/DENSE_RANK) whose number nothing outside it reads: the filter that keeps
    each group's first row was left out, and every row is kept. The query reading only ``rn = 1`` is offered."""
    tree = parse(sql, schema.dialect)
    for node in tree.find_all(exp.CTE, exp.Subquery) if tree is not None else ():
        inner = node.this
        if not isinstance(inner, exp.Select) or not node.alias:
            continue
        for item in inner.expressions:
            window = item.this if isinstance(item, exp.Alias) else None
            if not (isinstance(window, exp.Window) and window.args.get("partition_by") and (isinstance(
                    window.this, exp.RowNumber) or window.this.sql_name() in ("RANK", "DENSE_RANK"))) or any(
                    c.name.lower() == item.alias.lower() for c in tree.find_all(exp.Column)
                    if c.find_ancestor(exp.Select) is not inner):
                continue  # no rank per group, or one read somewhere
            readers = _readers(tree, node)
            if len(readers) != 1 or readers[0][0].find(exp.Star):
                continue
            reader, qualifier = readers[0]
            reader.where(exp.EQ(this=exp.column(item.alias, table=qualifier), expression=exp.Literal.number(1)),
                         append=True, copy=False)
            groups = ", ".join(e.sql(dialect=schema.dialect) for e in window.args["partition_by"])
            why = f"The query numbers the rows of each {groups} ({item.alias}) but never keeps only the first"
            return offer(tree.sql(dialect=schema.dialect), f"Only the first row per {groups}"[:80],
                         lambda how, why=why: f"{why}; keeping it, {how}.", schema, execute, result)
    return [], []


def _readers(tree: exp.Expression, node: exp.CTE | exp.Subquery) -> list[tuple[exp.Select, str]]:
    """The SELECTs that read a CTE or derived table in their own FROM or JOIN, each with the name it goes by."""
    if isinstance(node, exp.Subquery):
        outer = node.parent_select
        return [(outer, node.alias)] if outer is not None else []
    return [(s, t.alias_or_name) for s in tree.find_all(exp.Select) if s is not node.this
            for t in s.find_all(exp.Table) if t.find_ancestor(exp.Select) is s and t.name.lower() == node.alias.lower()]
