"""A plain-English reading of a SQL query from its sqlglot parse tree: what it reads and how the tables are joined,
which rows it keeps, how it groups, what it works out, which groups it keeps, the order and the row limit; CTEs,
subqueries, DISTINCT and window functions are named. Nothing is run: the words come from the text alone.

Each part is said in the words a person would use ("keeps only the rows where status is 'shipped'", "sums
total_amount"); anything without a plain reading is quoted as SQL, so the description is never wrong, only terse.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlglot
from sqlglot import exp

from core.replies._sql_words import (
    AGGREGATES,
    MAX_DEPTH,
    MAX_LISTED,
    SqlWords,
    and_list,
)
from core.schema import Schema

__all__ = ["describe_sql", "read_sql"]

_STATEMENTS = (exp.Select, exp.SetOperation, exp.Subquery, exp.Insert, exp.Update, exp.Delete, exp.Merge,
               exp.Create, exp.Drop, exp.Alter, exp.Command)


def read_sql(sql: str, schema: Schema | None = None, *, dialect: str | None = None) -> str | None:
    """The plain reading of ``sql``, or None when sqlglot cannot parse it."""
    dialect = schema.dialect if schema is not None else dialect
    try:
        trees = [t for t in sqlglot.parse(sql, read=dialect) if t is not None]
    except sqlglot.errors.SqlglotError:
        return None
    if not trees or not all(isinstance(t, _STATEMENTS) for t in trees):
        return None  # e.g. "SELEC x" parses as an alias: not a statement at all
    reader = _Reader(dialect, schema)
    if len(trees) == 1:
        return reader.statement(trees[0])
    return "\n".join(f"Statement {i}: {reader.statement(t)}" for i, t in enumerate(trees, 1))


def describe_sql(sql: str, schema: Schema | None = None, *, dialect: str | None = None) -> str:
    """What ``sql`` does, in plain English, from its structure (the dialect is the schema's when given)."""
    if not sql.strip():
        return "There is no SQL to explain."
    text = read_sql(sql, schema, dialect=dialect)
    if text is None:
        return "This SQL could not be read (it does not parse), so there is nothing to describe from its structure."
    return text


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "?", "!")) else ".")


class _Reader(SqlWords):
    """Walks one statement: queries, CTEs, set operations, one SELECT's clauses."""

    # -- statements ----------------------------------------------------------------------------------------------
    def statement(self, tree: exp.Expression) -> str:
        if isinstance(tree, (exp.Select, exp.SetOperation, exp.Subquery)):
            return " ".join(_sentence(s) for s in self._query(tree))
        kind = (tree.name if isinstance(tree, exp.Command) else tree.key).upper()
        article = "an" if kind[:1] in "AEIOU" else "a"
        if isinstance(tree, (exp.Insert, exp.Update, exp.Delete, exp.Merge)):
            return (f"This is {article} {kind} statement: it would change data, not read it. Cairn only runs "
                    "read-only queries, so it would refuse to run it.")
        if isinstance(tree, (exp.Create, exp.Drop, exp.Alter)):
            return (f"This is {article} {kind} statement: it would change the database's structure. Cairn only "
                    "runs read-only queries, so it would refuse to run it.")
        return f"This is {article} {kind} command, not a query that reads rows."

    def _query(self, node: exp.Expression) -> list[str]:
        """Sentences for a query (a SELECT, a UNION…, or a query with CTEs)."""
        while isinstance(node, exp.Subquery):
            node = node.this
        out: list[str] = []
        with_ = node.args.get("with_") or node.args.get("with")
        self._scopes.append({})
        try:
            if with_ is not None:
                for i, cte in enumerate(with_.expressions):
                    out.append(f"{'first' if i == 0 else 'next'} it works out a step called {cte.alias_or_name}: "
                               + self._inline(cte.this))
                if out:
                    out.append("then, using " + ("that step" if len(out) == 1 else "those steps") + ":")
            if isinstance(node, exp.SetOperation):
                out.extend(self._set_operation(node))
            elif isinstance(node, exp.Select):
                out.extend("it " + c for c in self._select(node))
            else:
                out.append("it reads " + self._sql(node))
        finally:
            self._scopes.pop()
        return self._merge_then(out)

    @staticmethod
    def _merge_then(out: list[str]) -> list[str]:
        """"then, using that step:" joins the sentence after it."""
        merged: list[str] = []
        for s in out:
            if merged and merged[-1].endswith(":") and merged[-1].startswith("then"):
                merged[-1] = merged[-1] + " " + s
            else:
                merged.append(s)
        return merged

    def _set_operation(self, node: exp.SetOperation) -> list[str]:
        parts: list[exp.Expression] = []

        def flatten(n: exp.Expression) -> None:
            if type(n) is type(node) and n.args.get("distinct") == node.args.get("distinct") \
                    and not n.args.get("order") and not n.args.get("limit"):
                flatten(n.this)
                flatten(n.expression)
            else:
                parts.append(n)

        flatten(node.this)
        flatten(node.expression)
        distinct = node.args.get("distinct") is not False
        how = {
            exp.Union: "puts together the rows of {n} queries" + (", dropping duplicates" if distinct
                                                                   else ", keeping duplicates"),
            exp.Intersect: "keeps only the rows that all {n} queries return",
            exp.Except: "keeps the rows of the first query that the other{s} do not return",
        }
        words = next((w for t, w in how.items() if isinstance(node, t)), "combines {n} queries")
        out = ["it " + words.format(n=len(parts), s="s" if len(parts) > 2 else "")]
        ordinals = ["first", "second", "third", "fourth", "fifth"]
        for i, part in enumerate(parts):
            name = ordinals[i] if i < len(ordinals) else f"number {i + 1}"
            out.append(f"the {name} query " + self._inline(part))
        first = parts[0]
        while isinstance(first, (exp.Subquery, exp.SetOperation)):
            first = first.this
        out.extend("it " + c for c in self._order_and_limit(node, getattr(first, "expressions", [])))
        return out

    def _inline(self, node: exp.Expression) -> str:
        """A query described in one clause ("reads orders, keeps only …"), for CTEs and subqueries."""
        if self._depth >= MAX_DEPTH:
            return "(a further subquery)"
        self._depth += 1
        try:
            sentences = self._query(node)
        finally:
            self._depth -= 1
        clauses = [s.removeprefix("it ") for s in sentences]
        return and_list(clauses)

    # -- one SELECT ------------------------------------------------------------------------------------------------
    def _select(self, select: exp.Select) -> list[str]:
        scope = self._scopes[-1]
        sources = self._sources(select)
        for alias, shown in sources:
            scope[alias.lower()] = shown
        reads = self._reads(select)
        out = [reads] if reads else []
        where = select.args.get("where")
        if where is not None:
            out.append("keeps only the rows where " + self._cond(where.this))
        group = select.args.get("group")
        grouped = group is not None and bool(group.expressions)
        if grouped:
            out.append("groups the rows by " + and_list([self._group_key(self._positional(e, select, keep_alias=True))
                                                     for e in group.expressions]))
        projected = self._projections(select, grouped)
        if not reads and projected:
            projected[0] += " without reading any table"
        out.extend(projected)
        having = select.args.get("having")
        if having is not None:
            out.append("keeps only the groups where " + self._cond(having.this))
        return out + self._order_and_limit(select, select.expressions)

    def _sources(self, select: exp.Select) -> list[tuple[str, str]]:
        """(alias, shown name) of each table or subquery in FROM and JOIN."""
        nodes: list[exp.Expression] = []
        from_ = select.args.get("from_") or select.args.get("from")
        if from_ is not None:
            nodes.append(from_.this)
        nodes.extend(j.this for j in select.args.get("joins") or [])
        names = [self._table_name(n) for n in nodes if isinstance(n, exp.Table)]
        out = []
        for n in nodes:
            alias = n.alias_or_name
            if isinstance(n, exp.Table):
                shown = self._table_name(n)
                if names.count(shown) > 1 and n.alias:
                    shown = f"{shown} ({n.alias})"
            else:
                shown = n.alias or "the subquery"
            out.append((alias, shown))
        return out

    def _table_name(self, table: exp.Table) -> str:
        return ".".join(p for p in (table.db, table.name) if p)

    def _source_words(self, node: exp.Expression) -> str:
        if isinstance(node, exp.Table):
            name = self._table_name(node)
            shown = self._shown(node.alias_or_name)
            if node.alias and shown != name:
                return f"{name} (called {node.alias})"
            return name
        if isinstance(node, (exp.Subquery, exp.Select)):
            alias = f" called {node.alias}" if node.alias else ""
            return f"a subquery{alias} that " + self._inline(node)
        return self._sql(node)

    def _reads(self, select: exp.Select) -> str:
        from_ = select.args.get("from_") or select.args.get("from")
        if from_ is None:
            return ""
        text = "reads " + self._source_words(from_.this)
        first = self._source_words(from_.this) if isinstance(from_.this, exp.Table) else "the rows so far"
        for i, join in enumerate(select.args.get("joins") or []):
            left = first if i == 0 else "the rows so far"
            text += ", " + self._join(join, left)
        return text

    def _join(self, join: exp.Join, left: str) -> str:
        other = self._source_words(join.this)
        on = join.args.get("on")
        using = join.args.get("using")
        if using:
            how = "where they have the same " + and_list([self._sql(u) for u in using])
        elif on is not None:
            how = "where " + self._cond(on)
        else:
            how = ""
        side = (join.args.get("side") or "").upper()
        kind = (join.args.get("kind") or "").upper()
        if kind == "CROSS" or (not how and not side):
            return f"with every row of {other} (every combination)"
        if side == "LEFT":
            return f"with the matching rows of {other} {how}, keeping {left} rows that have no match"
        if side == "RIGHT":
            return f"with the matching rows of {other} {how}, keeping {other.split(' ')[0]} rows that have no match"
        if side == "FULL":
            return f"with the rows of {other} {how}, keeping unmatched rows from both sides"
        return f"joined with {other} {how}"

    def _projections(self, select: exp.Select, grouped: bool) -> list[str]:
        if isinstance(select.parent, exp.Exists) or (isinstance(select.parent, exp.Subquery)
                                                     and isinstance(select.parent.parent, exp.Exists)):
            return []  # what EXISTS selects does not matter, only whether a row is there
        shown: list[str] = []
        aggregates: list[str] = []
        windows: list[str] = []
        others: list[str] = []
        for item in select.expressions:
            alias = item.alias if isinstance(item, exp.Alias) else ""
            node = item.this if isinstance(item, exp.Alias) else item
            if isinstance(node, exp.Star):
                shown.append("every column")
                continue
            if isinstance(node, exp.Column) and isinstance(node.this, exp.Star):
                shown.append(f"every column of {self._shown(node.table)}")
                continue
            named = f" (shown as {alias})" if alias else ""
            if isinstance(node, tuple(AGGREGATES)):
                aggregates.append(self._aggregate(node, verb=True) + named)
            elif isinstance(node, exp.Window):
                windows.append(self._window(node) + named)
            elif isinstance(node, exp.Column):
                shown.append(self._value(node) + (f" as {alias}" if alias and alias != node.name else ""))
            elif alias:
                others.append(f"{alias} as {self._value(node)}")
            else:
                others.append(self._value(node))
        out = []
        if shown:
            extra = f" and {len(shown) - MAX_LISTED} more columns" if len(shown) > MAX_LISTED else ""
            out.append("shows " + and_list(shown[:MAX_LISTED]) + extra)
        if aggregates:
            where = "for each group" if grouped else "over all the rows" + (
                " it keeps" if select.args.get("where") is not None else "")
            out.append(and_list(aggregates) + " " + where)
        if others:
            out.append("works out " + and_list(others))
        out.extend(windows)
        distinct = select.args.get("distinct")
        if distinct is not None:
            on = distinct.args.get("on")
            if on is not None:
                cols = on.expressions if isinstance(on, exp.Tuple) else [on]
                out.append("keeps only one row for each " + and_list([self._value(c) for c in cols])
                           + " (the first in the sort order)")
            else:
                out.append("keeps each distinct row only once (duplicates removed)")
        return out

    def _order_and_limit(self, node: exp.Expression, projections: Sequence[exp.Expression]) -> list[str]:
        out = []
        order = node.args.get("order")
        if order is not None and order.expressions:
            keys = []
            named = {p.alias.lower(): p.this for p in projections if isinstance(p, exp.Alias)}
            for o in order.expressions:
                target = self._positional(o.this, node, projections)
                typed = named.get(target.name.lower(), target) if isinstance(target, exp.Column) \
                    and not target.table else target
                desc = bool(o.args.get("desc"))
                keys.append(self._value(target) + " " + self._direction(typed, desc))
            out.append("sorts the result by " + ", then by ".join(keys))
        limit = node.args.get("limit")
        count = limit.args.get("expression") if limit is not None else None
        if limit is not None and count is None:
            count = limit.this if isinstance(limit, exp.Limit) else limit.args.get("count")
        offset = node.args.get("offset")
        skip = f", skipping the first {self._value(offset.expression)}" if offset is not None and offset.expression \
            else ""
        if count is not None:
            n = self._value(count)
            out.append(f"returns only {'the first row' if n == '1' else f'the first {n} rows'}{skip}"
                       if order is not None else f"returns at most {'1 row' if n == '1' else f'{n} rows'}{skip}")
        elif skip:
            out.append("returns the rows" + skip)
        return out

    def _direction(self, node: exp.Expression, desc: bool) -> str:
        kind = "number" if isinstance(node, (exp.Count, exp.Sum, exp.Avg)) else \
            "date" if self._is_date(node) else self._type_of(node)
        hints = {"date": ("earliest first", "latest first"), "text": ("A to Z", "Z to A"),
                 "number": ("smallest first", "largest first")}
        word = "descending" if desc else "ascending"
        return f"{word} ({hints[kind][desc]})" if kind in hints else word

    def _positional(self, node: exp.Expression, owner: exp.Expression,
                    projections: Sequence[exp.Expression] | None = None, *, keep_alias: bool = False) -> exp.Expression:
        """ORDER BY 2 / GROUP BY 1: the select item it points at (its name when it has one)."""
        items = projections if projections is not None else getattr(owner, "expressions", [])
        if isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit():
            i = int(node.this) - 1
            if 0 <= i < len(items):
                item = items[i]
                return exp.column(item.alias) if isinstance(item, exp.Alias) and not keep_alias else item
        return node

    def _group_key(self, node: exp.Expression) -> str:
        if isinstance(node, exp.Alias):
            inner = node.this
            return node.alias if isinstance(inner, exp.Column) else f"{node.alias} ({self._value(inner)})"
        return self._value(node)

