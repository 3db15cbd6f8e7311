"""The column the question names against the column the query shows: ``SELECT pid … GROUP BY pid`` for "in each
year", ``SELECT food_type … WHERE food_type LIKE '%Italian%'`` for "the names of the restaurants that serve Italian
food", ``SELECT zip_code AS customer_id``.

A shown column counts as asked for when the question's words (or the query's own alias for it) name it. It is in
doubt when they do not, or when it is shown twice, or when the query fixes its value in WHERE (the question gave
that value; it did not ask for it). The query with the one column of the same table that the words name, and the
query reads nowhere, in its place is the finding.
"""

from __future__ import annotations

import re

import sqlglot
from sqlglot import exp

from core.sql import PARSE_FAILURES
from core.evidence._asked import Asked, read_question
from core.evidence._common import holds_numbers, owner
from core.fallback import singular
from core.prompt import tables_called_by_name
from core.schema import Column, Schema, Table

__all__ = ["COMMON_WORDS", "alias_column_finding", "asked_column_finding", "key_label_finding", "label_column", "KEY_WORDS", "LABEL_WORDS", "a_look", "answering_query", "label_finding", "name_words", "twin_table_finding",
           "word_matches"]

_NAME_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
# Question words too common to name a column on their own ("what is the number of ...").
COMMON_WORDS = frozenset("""a an the of in on at for by and or to is are was were be been what which who whom whose how
many much each every per with from all any list show give me find get their its it that this these those have has
had do does did there than more most least number total average count sum top first last our my your i we they
as so if no not into over under since when where then only also return returns show shows along
kya hai ka ki ke se me mein aur""".split())  # fmt: skip
LABEL_WORDS = frozenset({"name", "title", "label"})
KEY_WORDS = frozenset({"id", "code", "no", "key", "number"})

# Where a shown column stands as itself (not inside a date function or an expression): a swap keeps its meaning.
_BARE = (exp.Select, exp.Alias, exp.Sum, exp.Avg, exp.Min, exp.Max, exp.Distinct)
Finding = tuple[str, str, exp.Expression]


def name_words(name: str) -> set[str]:
    """The words of a column or table name, lower case and singular: ``sbCustName`` -> {sb, cust, name}."""
    return {singular(w.lower()) for w in _NAME_WORD.findall(name)}


def word_matches(token: str, word: str) -> bool:
    if token == word:
        return True
    short, long = sorted((token, word), key=len)
    return len(short) >= 4 and long.startswith(short) and len(short) >= 0.7 * len(long)


def _named(words: set[str], question: frozenset[str] | set[str]) -> set[str]:
    """The question's words, common ones aside, that name one of ``words``."""
    return {q for q in question if q not in COMMON_WORDS and any(word_matches(w, q) for w in words)}


def _all_said(words: set[str], question: frozenset[str] | set[str]) -> bool:
    """Every word of a column's name is in the question ("last name" names last_name, common words included)."""
    return bool(words) and all(any(word_matches(w, q) for q in question) for w in words)


def _fixed_in_where(tree: exp.Select, table: Table, column: Column, schema: Schema) -> bool:
    """The WHERE compares the column with a constant (=, IN, LIKE): its value is given, not asked."""
    where = tree.args.get("where")
    for node in where.find_all(exp.EQ, exp.In, exp.Like, exp.ILike) if where is not None else ():
        side = node.this
        while isinstance(side, (exp.Lower, exp.Upper, exp.Trim)):
            side = side.this
        constant = node.expressions if isinstance(node, exp.In) else [node.expression]
        if isinstance(side, exp.Column) and all(isinstance(c, exp.Literal) for c in constant):
            found = owner(side, tree, schema)
            if found is not None and found[0] is table and found[1] is column:
                return True
    return False


def _entity_label(asked: Asked, table: Table, column: Column, used: dict[tuple[str, str], tuple[Table, Column]]
                  ) -> list[Column]:
    """"each author" showing ``author.homepage``: the question names the table, not the shown text column (no key, no
    label), and the table has one label column (``name``, ``title``, ``airline_name``) the query reads nowhere."""
    own, words = name_words(table.name), name_words(column.name)
    if not _named(own, asked.words) or words & (LABEL_WORDS | KEY_WORDS) or holds_numbers(column.type) or re.search(
            r"date|time", column.type or "", re.I):
        return []
    return [c for c in table.columns if name_words(c.name) & LABEL_WORDS and name_words(c.name) - own <= LABEL_WORDS
            and (table.qualified_name, c.name.lower()) not in used]


def label_finding(asked: Asked, tree: exp.Select, schema: Schema) -> Finding | None:
    if tree.find(exp.Star) and not tree.find(exp.Count):
        return None
    used: dict[tuple[str, str], tuple[Table, Column]] = {}
    for col in tree.find_all(exp.Column):
        found = owner(col, tree, schema)
        if found is not None:
            used[(found[0].qualified_name, found[1].name.lower())] = found
    tables = [t for t in (schema.table(n.name) for n in tree.find_all(exp.Table)) if t is not None]
    entities = set().union(*(name_words(t.name) for t in schema.tables))
    accounted = set().union(*(_named(name_words(c.name), asked.words) for _, c in used.values()),
                            *(_named(name_words(t.name), asked.words) for t in tables))
    shown = [c for item in tree.expressions for c in item.find_all(exp.Column)
             if c.find_ancestor(exp.Select) is tree and isinstance(c.parent, _BARE)
             and not (isinstance(c.parent, exp.Distinct) and isinstance(c.parent.parent, exp.Count))]  # counted
    times: dict[tuple[str, str], int] = {}
    for col in shown:
        found = owner(col, tree, schema)
        if found is not None and isinstance(col.parent, exp.Alias | exp.Select):
            key = (found[0].qualified_name, found[1].name.lower())
            times[key] = times.get(key, 0) + 1
    pairs: list[tuple[Table, Column, Column]] = []
    for col in shown:
        found = owner(col, tree, schema)
        if found is None:
            continue
        table, column = found
        own = name_words(table.name)
        alias = col.parent.alias if isinstance(col.parent, exp.Alias) else ""
        words = name_words(column.name)
        doubted = times.get((table.qualified_name, column.name.lower()), 0) > 1 or _fixed_in_where(
            tree, table, column, schema)
        if not doubted:
            if _named(words - own, asked.words) or (words <= own and _named(words, asked.words)) or _key_asked(
                    table, column, asked):
                continue
            if words & LABEL_WORDS and _named(own, asked.words) and len({c.name.lower() for c in shown}) > 1:
                continue  # a table the question names, labelled by its name beside what is asked
            if alias and (name_words(alias) - own) <= words:
                continue  # the query's own name for it says what it is
        summed = isinstance(col.parent, (exp.Sum, exp.Avg))
        said_by_alias = name_words(alias) - own if alias else set()
        candidates = []
        for c in table.columns:
            if (table.qualified_name, c.name.lower()) in used or (summed and not holds_numbers(c.type)):
                continue
            mine = name_words(c.name) - own
            keyish = bool(name_words(c.name) & KEY_WORDS)
            if keyish and not asked.words & KEY_WORDS and not said_by_alias:
                continue  # "the manager" is a person, manager_id points at one: a key is named with its key word
            free = _named(mine - {"id"}, asked.words) - accounted - (set() if keyish else entities)
            whole = _all_said(mine, asked.words) and bool(_named(mine, asked.words) - accounted)
            if (whole if summed else free or whole) or (said_by_alias and said_by_alias <= (mine or name_words(
                    c.name))):
                candidates.append(c)
        if not candidates and isinstance(col.parent, (exp.Select, exp.Alias)):  # shown bare, not MAX(price)
            candidates = _entity_label(asked, table, column, used)
        if len(candidates) == 1:
            pairs.append((table, column, candidates[0]))
    if len({(t.qualified_name, c.name) for t, c, _ in pairs}) != 1:
        return None
    table, column, instead = pairs[0]
    twice = times.get((table.qualified_name, column.name.lower()), 0) > 1
    kept: set[str] = set()
    for col in list(tree.find_all(exp.Column)):
        found = owner(col, tree, schema)
        if found is None or found[0] is not table or found[1] is not column or col.find_ancestor(exp.Join) or (
                col.find_ancestor(exp.Where)):
            continue
        part = "group" if col.find_ancestor(exp.Group) else "order" if col.find_ancestor(exp.Order) else "select"
        if twice and part not in kept:
            kept.add(part)  # shown twice: the first stays, the second becomes the named column
            continue
        col.set("this", exp.to_identifier(instead.name))
    return (f"The question names {instead.name} of {table.name} and the query shows {column.name}",
            f"Show {instead.name}", tree)


def answering_query(question: str, queries: list[str], schema: Schema) -> int:
    """Of a reply's queries (the extractor's answer first, then the others as written), the index of the one to run:
    the extractor's (the last written), unless it is only a look at the data — every row of one table
    (``SELECT * FROM t LIMIT 5``) or its count (``SELECT COUNT(*) FROM t``), nothing joined, filtered or grouped —
    and another query is not (the answer, then "to check: ``SELECT COUNT(*) FROM sales``"); or unless it reads no
    column the question names and exactly one other query does. A draft and its fix both read the question's columns:
    the extractor's choice stands."""
    words = {w for w in re.findall(r"[a-z]+", question.lower()) if w not in COMMON_WORDS}
    words |= {singular(w) for w in words}
    trees = [_parsed(sql, schema.dialect) for sql in queries]
    if len(queries) < 2 or trees[0] is None:
        return 0
    if _a_look(trees[0]):
        asked = read_question(question)
        limit = trees[0].args.get("limit")
        size = limit.expression.name if isinstance(limit, exp.Limit) else ""
        if size.isdigit() and (size == str(asked.limit) or re.search(rf"(?<![\d.]){size}(?![\d.])", question)):
            return 0  # "show me any 3 orders": the sample of 3 is the answer, not the look at the data before it
        asks_count = "count" in asked.aggregates
        answers = [i for i, tree in enumerate(trees[1:], 1) if tree is not None and not _a_look(tree)]
        if answers:
            return answers[-1]
        counts = [i for i, tree in enumerate(trees) if tree is not None and tree.find(exp.Count) is not None]
        if asks_count and len(counts) == 1:
            return counts[0]  # "how many …": the count, not the sample of rows shown beside it
        rows = [i for i, tree in enumerate(trees) if tree is not None and not _a_count(tree)]
        if not asks_count and _a_count(trees[0]) and len(rows) == 1:
            return rows[0]  # "list all employees", then "if you only need the number: SELECT COUNT(*)"

    def names_asked(tree: exp.Expression) -> bool:
        tables = set().union(*(name_words(t.name) for t in tree.find_all(exp.Table)))
        return any(_named(name_words(c.name) - tables - KEY_WORDS, words) for c in tree.find_all(exp.Column))

    if names_asked(trees[0]):
        return 0
    fits = [i for i, tree in enumerate(trees[1:], 1) if tree is not None and names_asked(tree)]
    return fits[0] if len(fits) == 1 else 0


def _parsed(sql: str, dialect: str) -> exp.Expression | None:
    try:
        return sqlglot.parse_one(sql, read=dialect)
    except (*PARSE_FAILURES, RecursionError):
        return None


def _a_look(tree: exp.Expression) -> bool:
    """``SELECT * FROM t [LIMIT n]``, ``SELECT a, b FROM t LIMIT n`` or ``SELECT COUNT(*) FROM t``: one table's rows
    as stored, a sample of its columns, or their number. Sorted rows are an answer ("the 3 most recent")."""
    if not isinstance(tree, exp.Select) or tree.args.get("joins") or any(
            tree.args.get(k) for k in ("where", "group", "having", "with", "distinct", "order")):
        return False
    if len(list(tree.find_all(exp.Table))) != 1 or tree.find(exp.Subquery) is not None:
        return False
    items = [p.unalias() for p in tree.expressions]
    if len(items) == 1 and (isinstance(items[0], exp.Star) or _a_count(tree)):
        return True
    return tree.args.get("limit") is not None and all(isinstance(i, exp.Column) for i in items)


def _a_count(tree: exp.Expression) -> bool:
    """``SELECT COUNT(*) FROM …``: one count of every row."""
    items = [p.unalias() for p in tree.expressions] if isinstance(tree, exp.Select) else []
    return len(items) == 1 and isinstance(items[0], exp.Count) and isinstance(items[0].this, (exp.Star, exp.Literal))


def a_look(sql: str, dialect: str) -> bool:
    """Whether ``sql`` is only a look at the data (``SELECT * FROM t LIMIT 5``, ``SELECT COUNT(*) FROM t``)."""
    tree = _parsed(sql, dialect)
    return tree is not None and _a_look(tree)


def alias_column_finding(tree: exp.Select, schema: Schema) -> Finding | None:
    """``s.id AS customer_id`` where the query reads customers too: the query's own name for the column says it is the
    customers' key (``c.id``), not the sales' — else, a column of another table named exactly so (``s.customer_id``).
    Key columns only: an id shown under another table's name is the slip a join makes easy."""
    tables = {(n.alias_or_name or "").lower(): t for n in tree.find_all(exp.Table)
              if n.find_ancestor(exp.Select) is tree and (t := schema.table(n.name)) is not None}
    for item in tree.expressions:
        col = item.this if isinstance(item, exp.Alias) else None
        found = owner(col, tree, schema) if isinstance(col, exp.Column) else None
        alias = item.alias.lower()
        if found is None or alias == col.name.lower() or not (name_words(alias) & KEY_WORDS) or not (
                name_words(col.name) & KEY_WORDS) or name_words(alias) - KEY_WORDS <= name_words(found[0].name):
            continue  # ``c.id AS car_id`` on cars: the alias names the column's own table
        named = [(a, t.primary_key[0] if len(t.primary_key) == 1 else "id") for a, t in tables.items()
                 if t is not found[0] and name_words(alias) - KEY_WORDS == name_words(t.name)
                 and t.column(t.primary_key[0] if len(t.primary_key) == 1 else "id") is not None]
        same = [(a, t.column(alias).name) for a, t in tables.items() if t is not found[0] and t.column(alias)]
        options = named or same
        if len(options) != 1:
            continue
        was = col.sql(dialect=schema.dialect)
        item.set("this", exp.column(options[0][1], table=options[0][0]))
        return (f"The query shows {was} as {item.alias}, which names {options[0][0]}.{options[0][1]}",
                f"Show {options[0][0]}.{options[0][1]}", tree)
    return None


# --- a column the question asks to return that the query does not show --------------------------------------------

# What a question asks to see: "Return the name and phone number …", "showing the number of …", "list the make …".
_RETURNED = re.compile(r"\b(?:return|returns|returning|show|showing|list|display|give me|include|including|"
                       r"along with)\b(.*?)(?=[.?!;(]|\b(?:that|which|who|whom|whose|where|when|with|having|in|from|"
                       r"for|of|by|to|on|if|whether|per|each|ordered|sorted)\b|$)")  # up to what says which rows
_GENERIC = frozenset({"date", "time", "at", "ts", "day", "id", "number", "no", "code", "key", "type", "status"})


def asked_column_finding(asked: Asked, tree: exp.Select, schema: Schema) -> Finding | None:
    """A column the question asks to return ("Return the name and phone number of the salesperson", "the car id,
    make, model and year"), or splits by ("split by the payment_method") while the query groups by it, that the query
    does not show: offered shown after the other columns it shows (and grouped by, when the query groups). Only a
    column of the query's own tables whose every own word the question says there (a key: its table's word and
    "id"), and none a shown name already says (``SUM(price) AS total_revenue`` says revenue)."""
    if not isinstance(tree, exp.Select) or tree.find(exp.Star) or isinstance(tree.parent, exp.SetOperation) or \
            tree.find(exp.CTE) or any(isinstance(n.this, exp.Subquery) for n in tree.find_all(exp.From, exp.Join)):
        return None  # what a CTE or a derived table passes on is not read here
    said = {singular(w) for m in _RETURNED.finditer(asked.text) for w in re.findall(r"[a-z]+", m.group(1))}
    sources = [(n.alias_or_name, t) for n in tree.find_all(exp.Table)
               if n.find_ancestor(exp.Select) is tree and (t := schema.table(n.name)) is not None]
    shown = {(f[0].qualified_name, f[1].name.lower()) for item in tree.expressions for col in item.find_all(exp.Column)
             if (f := owner(col, tree, schema)) is not None}
    named = set().union(*(name_words(item.alias_or_name) for item in tree.expressions))
    group = tree.args.get("group")
    grouped = {(f[0].qualified_name, f[1].name.lower()) for g in (group.expressions if group else ())
               if isinstance(g, exp.Column) and (f := owner(g, tree, schema)) is not None}
    missing: list[tuple[exp.Column, tuple[str, str]]] = []
    for alias, table in sources:
        own = name_words(table.name)
        for column in table.columns:
            key = (table.qualified_name, column.name.lower())
            mine = name_words(column.name) - own
            if key in shown or mine <= named and mine or not mine and not name_words(column.name) & KEY_WORDS:
                continue
            if name_words(column.name) & KEY_WORDS or column.name.lower().endswith("id"):
                keys_shown = any((table.qualified_name, c.name.lower()) in shown for c in table.columns
                                 if name_words(c.name) & KEY_WORDS or c.name.lower().endswith("id"))
                asked_for = not keys_shown and _key_asked(table, column, asked)  # "flight ids": flight_id shown
            elif mine <= _GENERIC:
                asked_for = False  # sale_date for "the date": too generic to say which column
            else:
                asked_for = _all_said(mine, said) or key in grouped and _all_said(mine, set(asked.words))
            if asked_for:
                missing.append((exp.column(column.name, table=alias), key))
    if not missing or len(missing) > 2:
        return None
    plain = [i + 1 for i, e in enumerate(tree.expressions) if isinstance(e.unalias(), exp.Column)]
    at = max(plain or [i + 1 for i, e in enumerate(tree.expressions) if not e.find(exp.AggFunc)] or [0])
    tree.set("expressions", [*tree.expressions[:at], *(c for c, _ in missing), *tree.expressions[at:]])
    if group is not None:
        group.set("expressions", [*group.expressions, *(c.copy() for c, key in missing if key not in grouped)])
    names = ", ".join(c.name for c, _ in missing)
    return (f"The question asks for {names}, which the query does not show", f"Also show {names}"[:80], tree)


def twin_table_finding(asked: Asked, tree: exp.Select, schema: Schema) -> Finding | None:
    """A table the question never names, read where exactly one table it does name — not read by the query — has
    every column the query reads from it, two or more, or one where the two names share a word (``payments_made``
    for "payments received", ``tip`` for "reviews"): the query on that table."""
    named = tables_called_by_name(schema, asked.text)
    read_tables = {t.qualified_name for n in tree.find_all(exp.Table) if (t := schema.table(n.name)) is not None}
    swaps = []
    for node in tree.find_all(exp.Table):
        table = schema.table(node.name)
        if table is None or table.qualified_name in named:
            continue
        read = {f[1].name.lower() for c in tree.find_all(exp.Column) if (f := owner(c, tree, schema)) is not None
                and f[0] is table}
        twins = [t for t in schema.tables if t.qualified_name in named and t.qualified_name not in read_tables
                 and read and read <= {c.name.lower() for c in t.columns}
                 and (len(read) >= 2 or name_words(t.name) & name_words(table.name))]  # one shared column alone
        # (``customer`` of orders and of customers) is no likeness
        if len(twins) == 1:
            swaps.append((node, twins[0]))
    if len(swaps) != 1:
        return None
    node, twin = swaps[0]
    was = node.name
    if not node.alias:
        node.set("alias", exp.TableAlias(this=exp.to_identifier(was)))
    node.set("this", exp.to_identifier(twin.name))
    return (f"The question names {twin.name}, which has every column the query reads from {was}", f"Read {twin.name}"
            f" instead of {was}"[:80], tree)


def _key_asked(table: Table, column: Column, asked: Asked) -> bool:
    """Whether the question asks for a table's key by the table's name and "id" ("the merchant id" for ``mid``)."""
    key = (is_key_of(column.name, table) or name_words(column.name) <= name_words(table.name) | KEY_WORDS
           or column.name.lower() in table.primary_key)
    return key and _ids_asked(table, asked)


def _ids_asked(table: Table, asked: Asked) -> bool:
    """Whether the question says the table's word and "id" ("the merchant id", "author ids")."""
    own = name_words(table.name)
    return bool(own) and bool(re.search(rf"\b(?:{'|'.join(map(re.escape, own))})s?\s+ids?\b", asked.text))


def label_column(table: Table) -> Column | None:
    """A table's one label column: ``name``, ``title``, ``author_name``, ``full_name`` (none when several)."""
    own = name_words(table.name)
    labels = [c for c in table.columns if name_words(c.name) & LABEL_WORDS and not holds_numbers(c.type)
              and name_words(c.name) - own - {"full", "display"} <= LABEL_WORDS]
    return labels[0] if len(labels) == 1 else None


def key_label_finding(asked: Asked, tree: exp.Select, schema: Schema) -> Finding | None:
    """A key shown where the question names its table ("each author", "the top 5 domains"): ``writes.aid``, which the
    join equates with author's key, or ``domain.did``. The table's one label column, not shown, offered beside it
    (grouped by it too when the query groups): the person asked for authors, not their numbers."""
    if not isinstance(tree, exp.Select) or tree.find(exp.Star):
        return None
    sources = {n.alias_or_name.lower(): t for n in tree.find_all(exp.Table)
               if n.find_ancestor(exp.Select) is tree and (t := schema.table(n.name)) is not None}
    shown = {(f[0].qualified_name, f[1].name.lower()) for item in tree.expressions for col in item.find_all(exp.Column)
             if (f := owner(col, tree, schema)) is not None}
    equal: dict[str, set[str]] = {}  # a column as written -> the columns the joins equate it with
    for eq in (e for j in tree.args.get("joins") or [] for e in (j.args.get("on") or exp.true()).find_all(exp.EQ)):
        if isinstance(eq.this, exp.Column) and isinstance(eq.expression, exp.Column):
            equal.setdefault(eq.this.sql().lower(), set()).add(eq.expression.sql().lower())
            equal.setdefault(eq.expression.sql().lower(), set()).add(eq.this.sql().lower())
    for index, item in enumerate(tree.expressions):
        col = item.unalias()
        if not isinstance(col, exp.Column) or not (found := owner(col, tree, schema)) or not (
                name_words(found[1].name) & KEY_WORDS or found[1].name.lower().endswith("id")):
            continue
        same = {col.sql().lower(), *equal.get(col.sql().lower(), ())}
        for alias, table in sources.items():
            label = label_column(table)
            keys = {f"{alias}.{k}".lower() for k in (*table.primary_key, *(c.name for c in table.columns
                                                                            if is_key_of(c.name, table)))}
            if label is None or (table.qualified_name, label.name.lower()) in shown or not same & keys or not _named(
                    name_words(table.name), asked.words) or _ids_asked(table, asked):
                continue  # "author ids": the keys are what is asked
            shown_label = exp.column(label.name, table=alias)
            tree.set("expressions", [*tree.expressions[:index + 1], shown_label, *tree.expressions[index + 1:]])
            if tree.args.get("group") is not None:
                tree.args["group"].append("expressions", shown_label.copy())
            return (f"The query shows {col.sql()}, a key, where the question names {table.name}",
                    f"Also show {table.name}'s {label.name}"[:80], tree)
    return None


def is_key_of(name: str, table: Table) -> bool:
    """Whether a column name is its table's own key: ``id``, ``<table>_id``, or a short ``?id`` (aid of author)."""
    low, own = name.lower(), name_words(table.name)
    return low == "id" or name_words(name) <= own | {"id"} and "id" in name_words(name) or (
        len(low) <= 4 and low.endswith("id") and low[:1] == table.name[:1].lower())
