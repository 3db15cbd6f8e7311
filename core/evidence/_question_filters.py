"""Conditions the question says that the query leaves out, joins otherwise or adds: "rating higher than 4" with no
comparison with 4, "active merchants" where ``status`` holds 'active' and the query never filters on it, ``a OR b``
between two different columns when the question never says "or", a filter on a text value the question, the
memory shown to the model and the column's own name never mention (``engine_type = 'Inline 4'``), and a filter on a
column the question does not name beside the one column of its table and kind it does (``capacity > 200`` for "a
cruising speed over 200"), and a column used where the question names its sibling (``SUM(reference_num)`` for
"citations received").

Each finding is the query with the one condition the words and the schema settle (a column its words name, a value
the column is known to hold), run under the guard and offered when its rows differ; the query that ran stays.
"""

from __future__ import annotations

import re

from sqlglot import exp

from core.evidence._aliases import is_key
from core.evidence._asked import Asked, read_question
from core.evidence._common import holds_numbers, owner
from core.evidence._question_columns import _NAME_WORD, COMMON_WORDS, LABEL_WORDS, label_column, name_words, word_matches
from core.evidence._question_dates import DATE_WORDS, dated
from core.fallback import singular
from core.schema import Column, Schema, Table
from core.sql import Named

__all__ = ["NOT_ONLY", "asks_for", "column_kind", "date_column_finding", "date_column_named", "filter_column", "missing_bound",
           "group_column", "column_named", "missing_value", "or_finding", "query_tables", "sibling_column", "unasked_filter", "with_condition"]

_NODES = {"gt": exp.GT, "ge": exp.GTE, "lt": exp.LT, "le": exp.LTE}
_FREE_TEXT = frozenset({"text", "description", "comment", "message", "note", "body", "review", "summary", "content",
                        "title", "name", "address", "street"})
_OR_WORDS = frozenset({"or", "either", "ya", "any", "one", "plus", "also", "well", "alternatively", "otherwise"})
# Words that make a value after them a verb or a negation, not a filter: "has … paid", "never sold".
_NOT_ASKED_AFTER = frozenset({"has", "have", "had", "was", "were", "is", "are", "been", "be", "did", "do", "does", "get",
                              "got", "never", "not", "no", "nahi", "nahin", "didn't", "hasn't", "haven't", "wasn't",
                              "weren't"})
# Words before a value that make it no filter of the answer: "every carrier, including UA", "other than UA".
NOT_ONLY = frozenset({"including", "include", "includes", "incl", "except", "excluding", "exclude", "besides", "than",
                       "not", "no", "never", "without", "also", "plus", "vs", "versus", "alongside"})
Finding = tuple[str, str, exp.Expression]


def query_tables(tree: exp.Select, schema: Schema) -> list[tuple[str, Table]]:
    """(alias, table) of each table the SELECT reads directly."""
    out = []
    for node in tree.find_all(exp.Table):
        if node.find_ancestor(exp.Select) is tree:
            table = schema.table(node.name)
            if table is not None:
                out.append((node.alias_or_name, table))
    return out


def with_condition(tree: exp.Select, condition: exp.Expression) -> exp.Select:
    return tree.where(condition, append=True, copy=False)


def _numbers(tree: exp.Expression) -> set[str]:
    return {lit.this for lit in tree.find_all(exp.Literal) if not lit.is_string}


def missing_bound(asked: Asked, tree: exp.Select, schema: Schema) -> Finding | None:
    """A bound the question says ("rating higher than 4") whose number the query never writes: the condition on the
    one number column of the query's tables the words just before it name."""
    written = [float(v) for v in _numbers(tree) if _is_number(v)]
    for bound in asked.bounds:
        if bound.percent or any(abs(v - float(bound.value)) <= 1 for v in written):
            continue  # written, maybe as > 4 for "at least 5": the bound checks judge it
        words = {w for w in bound.before if w.isalpha()}
        hits = [(alias, c) for alias, t in query_tables(tree, schema) for c in t.columns
                if holds_numbers(c.type) and not is_key(c.name) and c.name not in t.primary_key
                and words & _with_singular(name_words(c.name))]
        if len(hits) != 1:
            continue
        alias, column = hits[0]
        node = _NODES[bound.op](this=exp.column(column.name, table=alias), expression=exp.Literal.number(
            str(bound.value)))
        return (f"The question says “{' '.join(bound.before[-1:])} {bound.words}” and the query has no such "
                "condition", "Add the condition", with_condition(tree, node))
    return None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _with_singular(words: set[str]) -> set[str]:
    return words | {w + "s" for w in words}


def missing_value(asked: Asked, tree: exp.Select, schema: Schema) -> Finding | None:
    """A value one text column of the query's tables is known to hold, said in the question as a word of its own
    ("active merchants"), that the query writes nowhere, on a column its WHERE does not filter: ``col = 'value'``."""
    literals = " ".join(lit.this.lower() for lit in tree.find_all(exp.Literal) if lit.is_string)
    where = tree.args.get("where")
    filtered = {c.name.lower() for c in where.find_all(exp.Column)} if where is not None else set()
    hits: list[tuple[str, Column, str]] = []
    for alias, table in query_tables(tree, schema):
        for column in table.columns:
            if column.name.lower() in filtered or name_words(column.name) & _FREE_TEXT:
                continue
            for value in column.value_hints:
                low = value.lower().strip()
                initials = "".join(w[0] for w in low.split()) if " " in low else low  # New York written 'NY'
                if low not in literals and initials not in literals.split() and asks_for(asked.text, value):
                    hits.append((alias, column, value))
    if len({v for _, _, v in hits}) == 1 and len({(a, c.name) for a, c, _ in hits}) > 1:
        hits = [h for h in hits if _names_next(asked.text, h[2], _table_of(tree, schema, h[0]))]  # "active merchants"
    if len({(a, c.name) for a, c, _ in hits}) != 1 or len({v for _, _, v in hits}) != 1:
        return None
    alias, column, value = hits[0]
    condition = exp.EQ(this=exp.column(column.name, table=alias), expression=exp.Literal.string(value))
    return (f"The question says “{value}”, a value of {column.name}, and the query does not filter on it",
            f"Only {value}", with_condition(tree, condition))


def asks_for(text: str, value: str) -> bool:
    """Whether the question's (lower-case) ``text`` says ``value`` as a word of its own, as what it asks for: "active
    merchants", 'success' as "successful" (never a plural: "emails" are the addresses), not after a verb or a negation
    ("has … paid", "not active", "other than cash"; "have received a cash payment" is asked, an article between)."""
    low = value.lower().strip()
    if len(low) < 3 or low.isdigit():
        return False
    said = re.search(rf"((?:\w+\s+){{0,3}})(?<![\w-]){re.escape(low)}(?![\w-])", text)
    stem = re.search(rf"((?:\w+\s+){{0,3}})(?<![\w-]){re.escape(low)}(\w+)", text)
    if said is None and stem and low.isalpha() and word_matches(low, low + stem.group(2)) and stem.group(
            2) not in ("s", "es"):
        said = stem
    before = said.group(1).split() if said else []
    blocked = NOT_ONLY | (set() if before[-1:] in (["a"], ["an"], ["the"]) else _NOT_ASKED_AFTER)
    return said is not None and not set(before) & blocked


def _table_of(tree: exp.Select, schema: Schema, alias: str) -> Table | None:
    return next((t for a, t in query_tables(tree, schema) if a == alias), None)


def _names_next(text: str, value: str, table: Table | None) -> bool:
    """Whether one of the three words after ``value`` in the question names ``table`` ("active retail merchants":
    the status of merchants, not of their coupons)."""
    after = re.search(rf"(?<![\w-]){re.escape(value.lower().strip())}(?![\w-])((?:\W+\w+){{1,3}})", text)
    return table is not None and after is not None and bool(name_words(table.name) & {
        singular(w) for w in re.findall(r"\w+", after.group(1))})


def or_finding(asked: Asked, tree: exp.Select, schema: Schema) -> Finding | None:
    """``a OR b`` at the top of WHERE between conditions on different columns, when the question says no "or":
    the query with AND."""
    where = tree.args.get("where")
    if where is None or asked.words & _OR_WORDS:
        return None
    for node in where.find_all(exp.Or):
        if node.find_ancestor(exp.Select) is not tree or node.find_ancestor(exp.Not):
            continue
        left = {c.name.lower() for c in node.this.find_all(exp.Column)}
        right = {c.name.lower() for c in node.expression.find_all(exp.Column)}
        if not left or not right or left & right:
            continue
        node.replace(exp.And(this=exp.Paren(this=node.this.copy()), expression=exp.Paren(
            this=node.expression.copy())))
        return ("The query keeps rows that meet either condition (OR) and the question does not say “or”",
                "Both conditions (AND)", tree)
    return None


# Name words too general to say that a question asks for a column's value ("type", "status" name no value).
_VAGUE = frozenset({"id", "type", "code", "status", "name", "flag", "is", "has", "kind", "category", "value", "val",
                    "desc", "description", "text", "detail"})


def _mentioned(value: str, words: set[str]) -> bool:
    """Whether the words hold a word of ``value`` (or its start: "successful" for 'success'), a short code's expansion
    (its letters in order in a word of its first letter: 'CA' "california") or a shorter code ("US" for 'USA')."""
    parts = [w for w in re.findall(r"[a-z0-9]+", value.lower()) if len(w) >= 2]
    return any(w in words or any(word_matches(w, q) for q in words) or (len(w) <= 3 and w.isalpha() and any(
        q.startswith(w[0]) and (_in_order(w, q) or (len(q) >= 2 and w.startswith(q))) for q in words)) for w in parts)


def _in_order(letters: str, word: str) -> bool:
    rest = iter(word)
    return all(letter in rest for letter in letters)


def _initials(value: str, text: str) -> bool:
    letters = re.sub(r"[^a-z]", "", value.lower())
    words = re.findall(r"[a-z]+", text)
    return 2 <= len(letters) <= 3 and any("".join(w[0] for w in words[i:i + len(letters)]) == letters
                                          for i in range(len(words)))


def unasked_filter(asked: Asked, tree: exp.Select, schema: Schema, context: str = "",
                   written: frozenset[str] = frozenset()) -> Finding | None:
    """A WHERE condition ``col = 'value'`` (IN, LIKE, and their negations: ``status <> 'cancelled'``) that the model wrote (``written``: its literals) whose value is
    said nowhere in the question or the ``context`` it was shown, on a column the question does not name: the query
    without it. A filter Cairn added from memory is not the model's, and is not doubted."""
    text = f"{asked.text} {context.lower()}"
    words = set(re.findall(r"[a-z0-9]+", text)) | set(asked.words)
    for where in tree.find_all(exp.Where):
        conditions = list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]
        for cond in conditions:
            test = cond.this if isinstance(cond, exp.Not) else cond  # NOT x IN (…), x <> 'v': a value kept out
            side = test.this if isinstance(test, (exp.EQ, exp.NEQ, exp.In, exp.Like, exp.ILike)) else None
            while isinstance(side, (exp.Lower, exp.Upper, exp.Trim)):
                side = side.this
            values = test.expressions if isinstance(test, exp.In) else [test.expression] if side is not None else []
            if not isinstance(side, exp.Column) or not values or not all(
                    isinstance(v, exp.Literal) and v.is_string and v.this in written for v in values):
                continue
            texts = [v.this.strip("%") for v in values]
            if any(not re.search(r"[a-z0-9]{2}", t.lower()) or _mentioned(t, words) or _initials(t, text)
                   or t.lower() in text for t in texts):
                continue
            if any(word_matches(w, q) for w in name_words(side.name) - _VAGUE for q in words):
                continue  # "round-trip fares": round_trip_required = 'YES' is what the words ask
            rest = [c for c in conditions if c is not cond]
            shown = cond.sql(dialect=schema.dialect)
            if rest:
                where.set("this", exp.and_(*[c.copy() for c in rest]))
            else:
                where.pop()
            return (f"The query keeps only rows where {shown}, and the question does not say so",
                    f"Without {shown}"[:80], tree)
    return None


def column_kind(column: Column) -> str:
    return "number" if holds_numbers(column.type) else "date" if re.search(r"date|time", column.type or "",
                                                                            re.I) else "text"


def _said_words(name: str, words: set[str]) -> set[str]:
    return {q for q in words if q not in COMMON_WORDS and any(word_matches(w, q) for w in name_words(name) - {"id"})}


def filter_column(asked: Asked, tree: exp.Select, schema: Schema) -> Finding | None:
    """A WHERE comparison of a column with a constant (not a text the question says) where no word of the column's
    name is in the question, and exactly one other column of its table, of its kind (number, text, date), not a key
    and not filtered already, has its name's words there: the comparison on that column."""
    words = set(asked.words)
    for where in tree.find_all(exp.Where):
        filtered = {c.name.lower() for c in where.find_all(exp.Column)}
        for cond in where.find_all(exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Like, exp.ILike, exp.In,
                                   exp.Between):
            side = cond.this
            while isinstance(side, (exp.Lower, exp.Upper, exp.Trim)):
                side = side.this
            constants = cond.expressions if isinstance(cond, exp.In) else [cond.args.get("low"), cond.args.get(
                "high")] if isinstance(cond, exp.Between) else [cond.expression]
            if not isinstance(side, exp.Column) or not all(isinstance(c, exp.Literal) for c in constants):
                continue
            if any(c.is_string and (c.this.strip("%").lower() in asked.text or _mentioned(c.this, words))
                   for c in constants):
                continue  # "meals in first class": the value names the column (compartment = 'first class')
            found = owner(side, tree, schema)
            if found is None or _said_words(found[1].name, words):
                continue
            table, column = found
            others = [c for c in table.columns if c is not column and column_kind(c) == column_kind(column)
                      and c.name.lower() not in filtered and not is_key(c.name) and c.name not in table.primary_key
                      and _said_words(c.name, words)]
            if len(others) != 1:
                continue
            side.set("this", exp.to_identifier(others[0].name))
            return (f"The question names {others[0].name}, not {found[1].name}, which the query filters on",
                    f"Filter on {others[0].name}", tree)
    return None


def sibling_column(asked: Asked, tree: exp.Select, schema: Schema) -> Finding | None:
    """A column shown, aggregated, grouped or sorted by where the question names its sibling instead: another column
    of its table, of its kind, that shares a word of its name (``citation_num`` / ``reference_num``,
    ``city_name`` / ``street_name``, ``arrival_time`` / ``departure_time``) and whose own other words the question
    says while it says none of the column's ("citations received" against ``SUM(reference_num)``). One such column
    in the query, with one such sibling: the query with the sibling in its place (joins and filters are left to
    ``filter_column`` and the join checks)."""
    words = set(asked.words)
    swaps: dict[tuple[str, str], tuple[Table, Column, Column]] = {}
    for col in tree.find_all(exp.Column):
        if col.find_ancestor(exp.Join, exp.Where) is not None:
            continue
        found = owner(col, tree, schema)
        if found is None:
            continue
        table, column = found
        own = name_words(table.name) | {"id"}
        mine = name_words(column.name) - own
        siblings = []
        for other in table.columns:
            theirs = name_words(other.name) - own
            if other is column or column_kind(other) != column_kind(column) or is_key(other.name) != is_key(column.name):
                continue
            if not (mine & theirs) or not (mine - theirs) or not (theirs - mine):
                continue
            if _named_all(theirs - mine, words) and not _said_any(mine - theirs, words) and not _beside(col, other):
                siblings.append(other)
        if len(siblings) == 1:
            swaps[(table.qualified_name, column.name.lower())] = (table, column, siblings[0])
    if len(swaps) != 1:
        return None
    table, column, instead = next(iter(swaps.values()))
    _put_in_place(tree, schema, table, column, instead, (exp.Join, exp.Where))
    return (f"The question names {instead.name}, not {column.name}, which the query uses",
            f"Use {instead.name}", tree)


def group_column(asked: Asked, tree: exp.Select, schema: Schema) -> Finding | None:
    """A GROUP BY column whose own words the question never says, of a table whose word or another column's words it
    does: exactly one other column of that table, of its kind, no id and read nowhere in the query, whose own words
    the question all says (a code may be: "coupon codes") ("the top 5 countries" grouped by ``city``: ``country``); else, where the question
    names the table ("the top 2 merchants" grouped by ``contact_name``), its one label column. The query with that
    column in its place wherever it reads the grouped one outside WHERE and JOIN."""
    group = tree.args.get("group")
    if group is None:
        return None
    words = set(asked.words)
    used = {c.name.lower() for c in tree.find_all(exp.Column)}
    swaps: list[tuple[Table, Column, Column]] = []
    for item in group.expressions:
        found = owner(item, tree, schema)
        if found is None or is_key(found[1].name) or found[1].name in found[0].primary_key:
            continue
        table, column = found
        mine = name_words(column.name) - name_words(table.name) - LABEL_WORDS
        if not mine or _said_any(mine, words):
            continue
        named = [c for c in table.columns if column_kind(c) == column_kind(column) and c.name.lower() not in used
                 and not c.name.lower().endswith("id") and c.name not in table.primary_key and (own := name_words(
                     c.name) - name_words(table.name) - LABEL_WORDS) and _named_all(own, words)]
        label = label_column(table)
        if len(named) != 1 and label is not None and label.name.lower() not in used and column_kind(
                column) == "text" and _said_any(name_words(table.name), words):
            named = [label]  # "each author", grouped by homepage: the author, by its label
        if len(named) == 1:
            swaps.append((table, column, named[0]))
    if len(swaps) != 1:
        return None
    table, column, instead = swaps[0]
    _put_in_place(tree, schema, table, column, instead, (exp.Join, exp.Where))
    return (f"The query groups by {column.name}, which the question never names; it names {instead.name}",
            f"Group by {instead.name}", tree)


def _put_in_place(tree: exp.Select, schema: Schema, table: Table, column: Column, instead: Column,
                  outside: tuple[type[exp.Expression], ...]) -> None:
    """``instead`` wherever the query reads ``column`` of ``table``, except inside ``outside`` clauses."""
    for col in list(tree.find_all(exp.Column)):
        found = owner(col, tree, schema)
        if found is not None and found[0] is table and found[1] is column and col.find_ancestor(*outside) is None:
            col.set("this", exp.to_identifier(instead.name))


def _beside(col: exp.Column, other: Column) -> bool:
    """Whether the item ``col`` stands in (a select item, a sort key, an argument list) also reads ``other``:
    ``julianday(termination_date) - julianday(hire_date)`` uses both on purpose."""
    item: exp.Expression = col
    while item.parent is not None and not isinstance(item.parent, (exp.Select, exp.Order, exp.Group)):
        item = item.parent
    return any(c.name.lower() == other.name.lower() for c in item.find_all(exp.Column))


def _named_all(parts: set[str], words: set[str]) -> bool:
    return bool(parts) and all(any(q not in COMMON_WORDS and word_matches(w, q) for q in words) for w in parts)


def _said_any(parts: set[str], words: set[str]) -> bool:
    return any(word_matches(w, q) for w in parts for q in words)


def _own(table: Table, column: Column) -> set[str]:
    """A date column's own words: not its table's, not a date word (``hire`` of hire_date; none of sales.sale_date)."""
    return name_words(column.name) - name_words(table.name) - DATE_WORDS


def _dates_named(table: Table, columns: list[Column], words: set[str]) -> list[Column]:
    """Of ``columns`` (dates of ``table``), those whose own words the question all says, else those with none."""
    named = [c for c in columns if _own(table, c) and _named_all(_own(table, c), words)]
    return named or [c for c in columns if not _own(table, c)]


# Words that name no event of their own (``transaction_date``, ``event_time``, ``record_ts``): the date of the row.
_NO_EVENT = frozenset({"transaction", "txn", "trans", "event", "record", "entry", "row", "activity", "log", "data"})
_WHEN = frozenset({"date", "time", "timestamp", "datetime"})  # a name holding one says when, as one ending "at", "on"…


def date_column_named(question: str) -> Named:
    """For the repairs (``core.sql.Named``): a name a table lacks that says when, read as its one date column with
    the same own words (``date_created``: created_at); a name whose own words name no event (``transaction_date``,
    ``event_time``) also as the one the question names (as ``date_column_finding`` does), else its only one. A name
    of another event (``deleted_at``, ``paid_at``) is never read as some other date."""
    words = set(read_question(question).words)

    def named(table: Table, wanted: str) -> str | None:
        parts = [w.lower() for w in _NAME_WORD.findall(wanted)]
        if not (_WHEN & set(parts) or parts[-1:] and parts[-1] in {"at", "ts", "dt", "on"}):
            return None
        dates = [c for c in table.columns if dated(c) and not is_key(c.name)]
        mine = name_words(wanted) - name_words(table.name) - DATE_WORDS
        if mine - _NO_EVENT:  # deleted_at, paid_at: an event of its own, read only as a date of that same event
            same = [c for c in dates if _own(table, c) == mine]
            return same[0].name if len(same) == 1 else None
        instead = _dates_named(table, dates, words) or (dates if len(dates) == 1 else [])  # event_time: its one date
        return instead[0].name if len(instead) == 1 else None

    return named


def column_named(question: str) -> Named:
    """For the repairs (``core.sql.Named``): ``date_column_named``, else a name the model shortened (``num``,
    ``amount``) that the words settle — of the table's columns whose names hold all of its words (``citation_num``,
    ``reference_num``), the one whose other own words the question says ("citations received")."""
    dates = date_column_named(question)
    words = set(read_question(question).words)

    def named(table: Table, wanted: str) -> str | None:
        found = dates(table, wanted)
        if found is not None:
            return found
        parts = name_words(wanted)
        longer = [c for c in table.columns if parts and parts < name_words(c.name)]
        said = [c for c in longer if _named_all(name_words(c.name) - parts - name_words(table.name), words)]
        return said[0].name if len(said) == 1 else None

    return named


def date_column_finding(asked: Asked, tree: exp.Select, schema: Schema) -> Finding | None:
    """A date column whose own words the question never says (``crtd_ts`` for "sales in the past 7 days") where its
    table has another date column, read nowhere in the query, that the words name (``termination_date`` for "from
    hire to termination"), else exactly one named for its table (``sale_date`` of sales): that one in its place."""
    used: dict[tuple[str, str], tuple[Table, Column]] = {}
    for found in filter(None, (owner(col, tree, schema) for col in tree.find_all(exp.Column))):
        used[(found[0].qualified_name, found[1].name.lower())] = found
    swaps = []
    for table, column in used.values():
        mine = _own(table, column)
        if not dated(column) or not mine or _said_any(mine, set(asked.words)) or any(
                len(w) >= 3 and q[:1] == w[:1] and _in_order(w, q) for w in mine for q in asked.words):
            continue  # its words said, or shortened ("crtd" for "created")
        others = [c for c in table.columns if c is not column and dated(c) and not is_key(c.name)
                  and (table.qualified_name, c.name.lower()) not in used]
        instead = _dates_named(table, others, set(asked.words))
        if len(instead) == 1:
            swaps.append((table, column, instead[0]))
    if len(swaps) != 1:
        return None
    table, column, instead = swaps[0]
    _put_in_place(tree, schema, table, column, instead, (exp.Join,))
    return (f"The question's dates read as {instead.name} of {table.name}, not {column.name}, which the query uses",
            f"Use {instead.name}", tree)
