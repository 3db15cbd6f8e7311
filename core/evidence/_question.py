"""What the question says against what the query does: a bound, a count of rows, a direction, an aggregate or a
column the words name that the query writes otherwise.

Each finding edits one thing of the query to what the question's words say (``_asked``), runs it under the guard
and, when its rows differ, says so on the answer and offers it; with a model the finding goes to the review round.
The query that ran stays the answer: the words are read narrowly, and a reading is a reason to look, not a proof.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from decimal import Decimal, InvalidOperation

from sqlglot import exp

from core.answer import Alternative
from core.databases import QueryResult
from core.evidence._asked import AGGREGATE_WORDS, Asked, Bound, read_question
from core.evidence._aliases import is_amount, is_key
from core.evidence._arithmetic import (length_field_finding, ratio_finding, rounding_finding, scale_finding,
                                      smoothing_finding, undivided_ratio, unit_finding)
from core.evidence._groups import split_finding
from core.evidence._common import AGGREGATE_NAMES, Execute, holds_numbers, offer, owner, parse
from core.evidence._question_columns import (alias_column_finding, asked_column_finding, key_label_finding,
                                             label_finding, name_words, twin_table_finding, word_matches)
from core.evidence._question_dates import (asked_grain, date_finding, grain_finding, missing_date, part_finding,
                                           span_finding, today_finding, year_finding)
from core.evidence._question_values import missing_quoted, negated_value, repeated_value, unheld_value
from core.evidence._question_filters import (date_column_finding, filter_column, group_column, missing_bound,
                                             missing_value, or_finding, sibling_column, unasked_filter)
from core.fallback import singular
from core.schema import Schema

__all__ = ["question_evidence"]

_OPS: dict[type[exp.Expression], str] = {exp.GT: "gt", exp.GTE: "ge", exp.LT: "lt", exp.LTE: "le"}
_NODES = {v: k for k, v in _OPS.items()}
_FLIP = {"gt": "lt", "ge": "le", "lt": "gt", "le": "ge"}
_SYMBOL = {"gt": ">", "ge": ">=", "lt": "<", "le": "<="}
_PER_GROUP = frozenset({"each", "per", "every", "har", "within"})
_DATED = re.compile(r"date|time", re.I)
_DATE_WORDS = frozenset({"latest", "newest", "recent", "earliest", "oldest", "last", "first"})
Finding = tuple[str, str, exp.Expression] | tuple[str, str, exp.Expression, bool]  # (what the words say, label, the
# other query[, offered only when it has more rows])


def question_evidence(question: str, sql: str, result: QueryResult, schema: Schema, execute: Execute, *,
                      context: str = "", written: str | None = None) -> tuple[list[str], list[Alternative]]:
    """Notes and alternatives for each thing the question's words say otherwise than the query (at most one
    of each kind; each costs one bounded query). ``context``: what else the model was shown (memory, the
    conversation); ``written``: the model's query before Cairn's repairs and memory."""
    tree = parse(sql, schema.dialect)
    if not isinstance(tree, exp.Select):
        return [], []
    asked = read_question(question)
    model = parse(written, schema.dialect) if written else tree
    literals = frozenset(lit.this for lit in model.find_all(exp.Literal) if lit.is_string) if model else frozenset()
    notes: list[str] = []
    alternatives: list[Alternative] = []
    checks: tuple[Callable[[Asked, exp.Select, Schema], Finding | None], ...] = (
        _bound_finding, _limit_finding, _unasked_limit, _unasked_offset, _unordered_limit, _direction_finding, _aggregate_finding, _distinct_finding, label_finding,
        _sort_key_finding, _range_finding,
        lambda asked, tree, schema: rounding_finding(asked.text, tree),
        lambda asked, tree, schema: smoothing_finding(asked.text, tree),
        lambda asked, tree, schema: length_field_finding(asked.text, tree) if schema.dialect in (
            "postgres", "duckdb") else None,
        lambda asked, tree, schema: alias_column_finding(tree, schema), asked_column_finding, key_label_finding,
        twin_table_finding,
        lambda asked, tree, schema: split_finding(asked, tree, schema),
        lambda asked, tree, schema: year_finding(asked.years, tree),
        lambda asked, tree, schema: date_finding(asked.text, tree),
        lambda asked, tree, schema: part_finding(asked.text, tree),
        lambda asked, tree, schema: scale_finding(asked.text, tree),
        lambda asked, tree, schema: unit_finding(asked.text, tree),
        lambda asked, tree, schema: ratio_finding(asked.text, tree, lambda side: _side_words(side, tree, schema),
                                                  word_matches),
        lambda asked, tree, schema: span_finding(asked.span, tree, schema.dialect) if asked.span else None,
        lambda asked, tree, schema: today_finding(asked.from_today, asked.text, tree, schema.dialect),
        lambda asked, tree, schema: grain_finding(asked_grain(asked.text), tree, schema.dialect, asked.text),
        missing_bound, missing_value, missing_date, or_finding, filter_column, sibling_column, group_column,
        date_column_finding,
        lambda asked, tree, schema: negated_value(asked, tree, schema, execute, question, literals, context),
        lambda asked, tree, schema: unasked_filter(asked, tree, schema, context, literals),
        lambda asked, tree, schema: missing_quoted(asked, tree, schema, execute, question),
        lambda asked, tree, schema: unheld_value(asked, tree, schema, execute, question),
        lambda asked, tree, schema: repeated_value(asked, tree, schema, execute, question))
    for check in checks:
        found = check(asked, tree.copy(), schema)
        if found is None:
            continue
        said, label, other, *merged = found  # a fourth item: offered only when it finds groups the query merged
        n, a = offer(other.sql(dialect=schema.dialect), label, lambda how, said=said: f"{said}: as the words say it, {how}.",
                     schema, execute, result, more_rows=bool(merged and merged[0]))
        notes += n
        alternatives += a
    if (undivided := undivided_ratio(asked.text, tree)) is not None:
        notes.append(undivided + ".")
    return notes, alternatives


def _side_words(side: exp.Expression, tree: exp.Expression, schema: Schema) -> set[str]:
    """The words of the columns one side of a division reads, and of their tables."""
    words: set[str] = set()
    for col in side.find_all(exp.Column):
        found = owner(col, tree, schema)
        words |= name_words(col.name) | (name_words(found[0].name) if found else set())
    return words - {"id"}


_BETWEEN = re.compile(r"\bbetween\s+['\"]?([\w.:/-]+)['\"]?\s+(?:and|to|&)\s+['\"]?([\w.:/-]+)", re.IGNORECASE)


def _range_finding(asked: Asked, tree: exp.Select, schema: Schema) -> Finding | None:
    """"Between 10 and 20" where the query keeps only the two ends, ``x IN (10, 20)``: the range between them."""
    if re.search(r"\b(?:compar\w*|differ\w*|versus|vs)\b", asked.text, re.IGNORECASE):
        return None  # "the difference between 2020 and 2022": two things set side by side, not a range
    said = [(m[1].lower().rstrip("."), m[2].lower().rstrip(".")) for m in _BETWEEN.finditer(asked.text)]
    grouped = tree.args["group"].expressions if tree.args.get("group") else []
    for node in tree.find_all(exp.In):
        ends = node.expressions
        if len(ends) != 2 or not all(isinstance(e, exp.Literal) and (not e.is_string or re.fullmatch(
                r"\d{4}-\d{2}-\d{2}.*", e.this)) for e in ends) or node.find_ancestor(exp.Not) or any(
                g == node.this for g in grouped):  # numbers or dates only: names have no range between them
            continue
        written = {e.this.lower() for e in ends}
        if any({low, high} == written for low, high in said):
            low, high = sorted(ends, key=lambda e: (Decimal(e.this) if not e.is_string else 0, e.this))
            node.replace(exp.Between(this=node.this.copy(), low=low.copy(), high=high.copy()))
            return (f"The question asks for values between {low.this} and {high.this}, and the query keeps only those "
                    "two", "The whole range", tree)
    return None


# --- bounds: "more than 5" is > 5, not >= 5 -------------------------------------------------------------------------

def _comparisons(tree: exp.Expression) -> Iterator[tuple[exp.Expression, str, Decimal]]:
    """(node, op, number) of each comparison of something with a number, the number read on the right."""
    for node in tree.find_all(exp.GT, exp.GTE, exp.LT, exp.LTE):
        if node.find_ancestor(exp.Not):
            continue  # NOT a > 5 keeps the other rows: not read
        right, left = _literal(node.expression), _literal(node.this)
        if right is not None and left is None:
            yield node, _OPS[type(node)], right
        elif left is not None and right is None:
            yield node, _FLIP[_OPS[type(node)]], left


def _literal(node: exp.Expression | None) -> Decimal | None:
    negative = isinstance(node, exp.Neg)
    if negative:
        node = node.this  # type: ignore[union-attr]
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            value = Decimal(node.this)
        except InvalidOperation:
            return None
        return -value if negative else value
    return None


def _same(op: str, value: Decimal, bound: Bound) -> bool:
    """True when ``op value`` keeps the rows ``bound`` keeps (on whole numbers, > 4 is >= 5)."""
    for target in (bound.value, bound.value / 100) if bound.percent else (bound.value,):
        if (op, value) == (bound.op, target):
            return True
        if target == target.to_integral_value() and value == value.to_integral_value():
            if {"ge": ("gt", target - 1), "gt": ("ge", target + 1), "le": ("lt", target + 1),
                    "lt": ("le", target - 1)}[bound.op] == (op, value):  # fmt: skip
                return True
    return False


def _bound_finding(asked: Asked, tree: exp.Select, schema: Schema) -> Finding | None:
    if not asked.bounds or tree.find(exp.Between):
        return None
    found = list(_comparisons(tree))
    said: list[str] = []
    for bound in asked.bounds:
        if any(_same(op, value, bound) for _, op, value in found):
            continue
        targets = {bound.value, bound.value / 100} if bound.percent else {bound.value}
        same_number = [(n, op, v) for n, op, v in found if v in targets]
        same_way = [(n, op, v) for n, op, v in found if op[0] == bound.op[0]]
        if len(same_number) == 1:
            node, op, value = same_number[0]
        elif not same_number and len(same_way) == 1 and sum(b.op[0] == bound.op[0] for b in asked.bounds) == 1 and (
                _names_compared(bound, same_way[0][0])):
            node, op, value = same_way[0]
            value = bound.value / 100 if bound.percent and same_way[0][2] < 1 else bound.value
        else:
            continue
        column = node.this if _literal(node.expression) is not None else node.expression
        said.append(f"the question says “{bound.words}” and the query keeps {column.sql(dialect=schema.dialect)} "
                    f"{_SYMBOL[op]} {next(v for n, _, v in found if n is node)}")
        node.replace(_NODES[bound.op](this=column.copy(), expression=exp.Literal.number(str(value))))
        found = list(_comparisons(tree))
    if not said:
        return None
    text = "; ".join(said)
    return text[0].upper() + text[1:], "Keep the bound the question says", tree


def _names_compared(bound: Bound, node: exp.Expression) -> bool:
    """The words just before the bound name the column compared ("rating higher than 4" and ``rating > 5``): only
    then is another number read as a slip (``milliseconds > 300000`` for "over 5 minutes" is the same bound)."""
    words = {singular(w) for w in bound.before if w.isalpha()}
    return any(words & name_words(c.name) for c in node.find_all(exp.Column))


# --- how many rows, and from which end ------------------------------------------------------------------------------

def _limit_finding(asked: Asked, tree: exp.Select, schema: Schema) -> Finding | None:
    limit = tree.args.get("limit")
    if asked.one and asked.limit is None:  # "the customer who spent the most": one row
        asked = replace(asked, limit=1)
    if asked.limit is None or not tree.args.get("order") or tree.find(exp.Window) or asked.words & _PER_GROUP or any(
            select.args.get("limit") for select in tree.find_all(exp.Select) if select is not tree):
        return None  # "top 2 in each category", or kept inside: not a limit on the answer
    if isinstance(limit, exp.Limit):
        shown = _literal(limit.expression)
        if shown is None or shown == asked.limit:
            return None
        said = f"The question asks for {asked.limit} rows and the query keeps {shown}"
    elif limit is None:
        said = f"The question asks for {asked.limit} rows and the query keeps every row"
    else:
        return None
    return said, f"Keep {asked.limit}", tree.limit(asked.limit, copy=False)


# Words that ask for a few rows without a number, or for an extreme: a LIMIT may be what they mean.
_FEW_WORDS = frozenset({"some", "sample", "few", "example", "one", "single", "first", "last", "latest", "recent",
                        "newest", "oldest", "top", "bottom", "best", "worst", "max", "maximum", "min", "minimum",
                        "most", "least", "kuch", "ek"})


_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                 "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty")


# Words that ask for the whole list in an order: "sorted in descending order", "ordered from the longest to the
# shortest". With them an extreme orders the list ("the longest rivers, ordered from longest to shortest") and asks
# for no one row of it. "Sort by salary" after "which employee earns the most" says only how to order the one row.
_LISTED = re.compile(r"\bin (?:ascending|descending|alphabetical|reverse|increasing|decreasing) order\b|"
                     r"\bfrom (?:the )?(?:\w+est|most|least|highest|lowest|top|bottom) to (?:the )?\w+")
_FEW_ROWS = frozenset({"some", "sample", "few", "example", "one", "single", "top", "bottom", "first", "kuch", "ek"})


def _column_words(text: str, schema: Schema) -> set[str]:
    """The words of ``text`` that stand in a column's name of two words or more, written as words in order there
    (``first name`` for first_name, ``last order date``): names, not the question's own words."""
    lowered = " ".join(re.findall(r"[a-z0-9]+", text.lower()))
    found: set[str] = set()
    for table in schema.tables:
        for column in table.columns:
            parts = [p for p in re.split(r"[_\W]+|(?<=[a-z])(?=[A-Z])", column.name) if p]
            if len(parts) >= 2 and re.search(rf"\b{' '.join(p.lower() for p in parts)}\b", lowered):
                found.update(p.lower() for p in parts)
    return found


def _unasked_limit(asked: Asked, tree: exp.Select, schema: Schema) -> Finding | None:
    """A LIMIT on the answer where the question asks for no number of rows and no extreme ("the total for each
    city", "the titles ordered alphabetically"), or asks for a list of several things in an order ("which rivers are
    the longest, ordered from longest to shortest"): the query keeping every row."""
    limit = tree.args.get("limit")
    words = asked.words - _column_words(asked.text, schema)  # "first name", "last name": a column, not a count
    listed = bool(_LISTED.search(asked.text)) and not asked.one and not words & _FEW_ROWS
    if not isinstance(limit, exp.Limit) or asked.limit is not None or asked.one or tree.args.get(
            "offset") or tree.find(exp.Window) or not listed and (asked.ranks or words & _FEW_WORDS or any(
            w.endswith("est") and len(w) > 4 for w in words)):
        return None
    shown = _literal(limit.expression)
    if shown is None or re.search(rf"(?<![\d.]){shown}(?![\d.])", asked.text) or (
            0 < shown < len(_NUMBER_WORDS) and re.search(rf"\b{_NUMBER_WORDS[int(shown)]}\b", asked.text)):
        return None  # "two teachers by name": the number of rows is said
    tree.set("limit", None)
    return (f"The query keeps only the first {shown} row{'s' if shown != 1 else ''} and the question asks for no "
            "such number", "Every row", tree)


def _unordered_limit(asked: Asked, tree: exp.Select, schema: Schema) -> Finding | None:
    """A LIMIT with no ORDER BY where the question ranks ("the top 3 by total revenue", "the shortest time"): which
    rows it keeps is the database's whim. Offered ordered by the one measure shown that the words name (else the one
    measure shown), in the direction the words say. A query with neither, where the words ask for a number of rows
    from one end ("the top 5 states by total revenue", not "in each"), every row shown unranked: offered ranked the
    same way and cut to that number."""
    limit = tree.args.get("limit")
    unranked = limit is None and asked.limit is not None and not tree.args.get("offset") and not (
        asked.words & _PER_GROUP or tree.find(exp.Window) or any(
            select.args.get("limit") for select in tree.find_all(exp.Select) if select is not tree) or any(
            not n.is_string and n.this == str(asked.limit) for n in tree.find_all(exp.Literal)))  # cut inside, or the
    # number asked written (``WHERE (SELECT COUNT(*) … > s.revenue) < 5``: a top 5 that keeps its ties)
    if not (isinstance(limit, exp.Limit) or unranked) or tree.args.get("order") is not None or not (
            asked.ranks or asked.limit) or asked.direction is None:
        return None
    shown = [e for e in tree.expressions if e.alias_or_name]
    measures = [e for e in shown if not isinstance(e.unalias(), exp.Column)]
    by = {singular(w) for m in re.finditer(r"\bby\s+((?:[a-z]+\s*){1,4})", asked.text) for w in m.group(1).split()}
    named = [e for e in measures if name_words(e.alias_or_name) & asked.words]
    ranked_by = [e for e in (shown if unranked else measures) if name_words(e.alias_or_name) <= by]  # "by total
    # revenue"; a column of a derived table's aggregate too (``b.total_revenue``), where nothing is cut yet
    chosen = ranked_by if len(ranked_by) == 1 else named if len(named) == 1 else measures if len(measures) == 1 else []
    if not chosen:
        return None
    key = exp.column(chosen[0].alias) if chosen[0].alias else chosen[0].copy()
    tree.set("order", exp.Order(expressions=[exp.Ordered(this=key, desc=asked.direction == "desc")]))
    if unranked:
        tree.limit(asked.limit, copy=False)
        return (f"The question asks for the {'top' if asked.direction == 'desc' else 'bottom'} {asked.limit} and the "
                "query keeps every row, unranked", f"Top {asked.limit} by {chosen[0].alias_or_name}"[:80], tree)
    return (f"The query keeps {tree.args['limit'].expression.sql()} rows with no order, and the question ranks them",
            f"Ranked by {chosen[0].alias_or_name}"[:80], tree)


# Words that ask to skip rows: "the second highest", "the 3rd", "the next 5", "after the first 10", "page 2".
_SKIPS = re.compile(r"\b(?:second|third|fourth|fifth|\d+(?:st|nd|rd|th)|next|skip\w*|after\s+the\s+(?:first|top)|"
                    r"page|excluding\s+the\s+(?:first|top)|other\s+than\s+the\s+(?:first|top)|offset|"
                    r"runner.up|d[ou]{1,2}sr[aei]|teesr[aei])\b")  # Hindi-English: doosra, teesra


def _unasked_offset(asked: Asked, tree: exp.Select, schema: Schema) -> Finding | None:
    """An OFFSET that skips rows where the question asks for no skipping ("the top 5", "the highest"): rows counted
    from 1 rather than 0, the first ones lost. The query without it."""
    offset = tree.args.get("offset")
    if offset is None or _SKIPS.search(asked.text):
        return None
    tree.set("offset", None)
    return "The query skips its first rows (OFFSET) and the question asks to skip none", "Without the OFFSET", tree


def _direction_finding(asked: Asked, tree: exp.Select, schema: Schema) -> Finding | None:
    order = tree.args.get("order")
    if asked.direction is None or order is None or not order.expressions or not (
            tree.args.get("limit") or asked.limit):
        return None
    first = next((o for o in order.expressions if not _null_placement(o.this)), None)
    if first is None:
        return None
    found = owner(first.this, tree, schema) if isinstance(first.this, exp.Column) else None
    if found is not None and _DATED.search(found[1].type or "") and not asked.words & _DATE_WORDS:
        return None  # "the longest at the company" orders a date from its earliest: words of time decide
    descending = bool(first.args.get("desc"))
    if descending == (asked.direction == "desc"):
        return None
    first.set("desc", not descending)
    first.set("nulls_first", None)
    way = "the highest first" if asked.direction == "desc" else "the lowest first"
    return (f"The question asks for {way} and the query orders {first.this.sql(dialect=schema.dialect)} "
            f"{'descending' if descending else 'ascending'}"), "Order from the other end", tree


_LENGTH = {"longest": "desc", "shortest": "asc"}  # a duration or a length ranks by its own size


def _sort_key_finding(asked: Asked, tree: exp.Select, schema: Schema) -> Finding | None:
    """"The top 5 states by total revenue" ordered by ``c.state`` (a label or a key, not a measure) before its LIMIT:
    ranked by the one measure shown (an aggregate or a computed number) whose name the question says, or the only
    one, in the direction the words rank."""
    order, limit = tree.args.get("order"), tree.args.get("limit")
    way = asked.direction or next((d for w, d in _LENGTH.items() if w in asked.text), None)
    if order is None or limit is None or way is None or len(order.expressions) != 1:
        return None
    key = order.expressions[0].this
    aliases = {e.alias.lower(): e.unalias() for e in tree.expressions if e.alias}
    keyed = aliases.get(key.name.lower(), key) if isinstance(key, exp.Column) and not key.table else key
    found = owner(keyed, tree, schema) if isinstance(keyed, exp.Column) else None
    if found is None or (holds_numbers(found[1].type) and not is_key(found[1].name)):
        return None  # ranked by a measure already (or by what Cairn cannot place)
    measures = [e for e in tree.expressions if e.unalias().find(exp.AggFunc) or isinstance(
        e.unalias(), (exp.Sub, exp.Div, exp.Mul, exp.Add))]
    named = [e for e in measures if e.alias and _named_by(e.alias, asked.words)]
    by = {singular(w) for m in re.finditer(r"\bby\s+((?:[a-z]+\s*){1,3})", asked.text) for w in m[1].split()}
    if isinstance(keyed, exp.Column) and _named_by(keyed.name, by):
        return None  # "the top 2 customers by name": ranked by what the words name
    ranked = [e for e in named if _named_by(e.alias, by)]  # "the top 5 states by total revenue"
    pick = ranked if len(ranked) == 1 else named if len(named) == 1 else measures if len(measures) == 1 else []
    if not pick:
        return None
    target = exp.column(pick[0].alias) if pick[0].alias else pick[0].unalias().copy()
    order.set("expressions", [exp.Ordered(this=target, desc=way == "desc")])
    return (f"The question ranks by {pick[0].alias or pick[0].sql(dialect=schema.dialect)} and the query orders by "
            f"{key.sql(dialect=schema.dialect)} before its LIMIT", f"Rank by {pick[0].alias_or_name}"[:80], tree)


def _named_by(alias: str, said: frozenset[str] | set[str]) -> bool:
    words = {w for w in name_words(alias) if len(w) > 2}
    return bool(words) and all(any(word_matches(w, q) for q in said) for w in words)


def _null_placement(node: exp.Expression) -> bool:
    """``CASE WHEN x IS NULL THEN 1 ELSE 0 END``: a sort key that only puts NULLs first or last (how NULLS FIRST is
    written where the dialect lacks it), not the ranking."""
    ifs = node.args.get("ifs") if isinstance(node, exp.Case) else None
    return bool(ifs) and len(ifs) == 1 and isinstance(ifs[0].this, exp.Is) and isinstance(
        ifs[0].this.expression, exp.Null) and all(isinstance(v, exp.Literal) for v in (ifs[0].args.get("true"),
                                                                                        node.args.get("default")))


# --- aggregates: "average" is AVG, "highest" is MAX ----------------------------------------------------------------

def _aggregates(tree: exp.Select) -> list[exp.AggFunc]:
    """The aggregates of the SELECT list, not those of a subquery."""
    return [node for item in tree.expressions for node in item.find_all(exp.AggFunc)
            if node.find_ancestor(exp.Select) is tree and type(node) in AGGREGATE_NAMES]


def _aggregate_finding(asked: Asked, tree: exp.Select, schema: Schema) -> Finding | None:
    aliases = {e.alias.lower() for e in tree.expressions if e.alias}  # ORDER BY total_spent names no column
    named = set().union(*(name_words(c.name) for c in tree.find_all(exp.Column) if c.table or c.name.lower() not in
                          aliases))
    said = set()
    for kind in asked.aggregates:  # "mean" of mean_temperature names a column, not an average
        triggers = set(AGGREGATE_WORDS.get(kind, ())) & asked.words
        if not triggers or not triggers <= named:
            said.add(kind)
    asked = replace(asked, aggregates=frozenset(said))
    shown = [a for a in _aggregates(tree) if a.this is not None and not isinstance(a.this, exp.Distinct)]
    kinds = {type(a) for a in shown}
    divides = tree.find(exp.Div) is not None
    wanted: type[exp.AggFunc] | None = None
    candidates: list[exp.AggFunc] = []
    if "avg" in asked.aggregates and exp.Avg not in kinds and not divides and tree.find(exp.Avg) is None:
        wanted = exp.Avg
        candidates = [a for a in shown if isinstance(a, (exp.Sum, exp.Max, exp.Min)) or (
            isinstance(a, exp.Count) and isinstance(a.this, exp.Column))]
    elif "sum" in asked.aggregates and "avg" not in asked.aggregates and exp.Sum not in kinds and exp.Avg in kinds:
        wanted, candidates = exp.Sum, [a for a in shown if isinstance(a, exp.Avg)]
    elif not asked.ranks and asked.aggregates & {"avg", "sum"} and (
            kinds & {exp.Max, exp.Min}) and not kinds & {exp.Avg, exp.Sum}:
        wanted = exp.Avg if "avg" in asked.aggregates else exp.Sum
        candidates = [a for a in shown if isinstance(a, (exp.Max, exp.Min))]
    elif asked.aggregates in ({"sum"}, {"sum", "count"}) and not kinds & {exp.Sum, exp.Avg} and (counted := [
            a for a in shown if isinstance(a, exp.Count) and is_amount(a.this, tree, schema) and (
                asked.aggregates == {"sum"} or name_words(a.this.name) & _COUNTS_HELD)]):
        wanted = exp.Sum  # "the total cost" counted: the total of a number column that is not a key; with "number
        candidates = counted  # of" too ("the total number of students"), only a column that holds counts itself
    elif asked.direction is not None and not tree.args.get("limit"):
        wrong, wanted = (exp.Min, exp.Max) if asked.direction == "desc" else (exp.Max, exp.Min)
        candidates = [a for a in shown if isinstance(a, wrong)] if wanted not in kinds else []
    if "avg" in asked.aggregates and "median" not in asked.words and exp.Avg not in kinds and not candidates and len(
            medians := _medians(tree)) == 1:
        medians[0][0].replace(exp.Avg(this=medians[0][1].copy()))  # "the average cost": a median is no average
        return "The question says an average and the query computes the median", "Use AVG", tree
    if wanted is None or len(candidates) != 1 or isinstance(candidates[0].this, exp.Star):
        return None
    old = candidates[0]
    if wanted in (exp.Avg, exp.Sum) and not _numbers(old.this, tree, schema):
        return None  # an average of dates, a total of names: not what the words can mean
    old.replace(wanted(this=old.this.copy()))
    return (f"The question says {_says(wanted)} and the query computes {AGGREGATE_NAMES[type(old)]}",
            f"Use {AGGREGATE_NAMES[wanted]}", tree)


def _medians(tree: exp.Select) -> list[tuple[exp.Expression, exp.Expression]]:
    """Each median of the SELECT list, ``PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY x)`` or ``MEDIAN(x)``, with the
    value it takes the median of."""
    found: list[tuple[exp.Expression, exp.Expression]] = []
    for item in tree.expressions:
        for node in item.find_all(exp.WithinGroup, exp.Median):
            if node.find_ancestor(exp.Select) is not tree:
                continue
            if isinstance(node, exp.Median):
                found.append((node, node.this))
            elif isinstance(node.this, exp.PercentileCont) and node.this.this.sql() in ("0.5", ".5") and isinstance(
                    node.expression, exp.Order) and len(node.expression.expressions) == 1:
                found.append((node, node.expression.expressions[0].this))
    return found


_COUNTS_HELD = frozenset({"num", "count", "number", "quantity", "qty", "cnt"})  # a column that holds counts


def _numbers(node: exp.Expression, tree: exp.Select, schema: Schema) -> bool:
    """Whether ``node`` holds numbers as far as the schema says (a column of a number type; anything else: yes)."""
    columns = list(node.find_all(exp.Column))
    found = [owner(c, tree, schema) for c in columns]
    return all(f is None or not re.search(r"date|time|char|text|bool", f[1].type or "", re.I) for f in found)


def _distinct_finding(asked: Asked, tree: exp.Select, schema: Schema) -> Finding | None:
    """SUM(DISTINCT x) / AVG(DISTINCT x) adds each value once: two sales of the same amount count as one. Unless
    the question asks for distinct values, the aggregate over every row."""
    if asked.words & {"distinct", "unique", "different", "alag", "separate"}:
        return None
    found = [a for a in tree.find_all(exp.Sum, exp.Avg) if isinstance(a.this, exp.Distinct)
             and len(a.this.expressions) == 1]
    if not found:
        return None
    for aggregate in found:
        aggregate.set("this", aggregate.this.expressions[0].copy())
    return (f"{AGGREGATE_NAMES[type(found[0])]}(DISTINCT …) counts each value once (two equal amounts as one) and "
            "the question does not ask for distinct values", "Every row's value", tree)


def _says(kind: type[exp.AggFunc]) -> str:
    return {exp.Avg: "an average", exp.Sum: "a total", exp.Max: "the highest", exp.Min: "the lowest"}[kind]
