"""Numbers that come out other than the words mean, with no error: a division of whole numbers that drops the
fraction, a COUNT of a CASE that counts every row, a COUNT(*) that counts the rows a LEFT JOIN keeps empty; and, read
against the question, a percentage where it asks for a ratio (or the other way) and a ratio written the wrong way
up; a difference of two dates below zero on every row (the operands the other way round); and, on SQLite, an order or
an extreme of a text column holding numbers ('9' after '100'); on PostgreSQL and DuckDB, the seconds field of a length of
time, ``EXTRACT(SECOND FROM a - b)``, where the question asks for its length in seconds."""

from __future__ import annotations

import logging
import re
from decimal import Decimal, InvalidOperation
from collections.abc import Callable

from sqlglot import exp
from sqlglot.optimizer.annotate_types import annotate_types
from sqlglot.optimizer.qualify import qualify

from core.answer import Alternative
from core.databases import QueryResult
from core.evidence._common import Execute, offer, owner, parse
from core.schema import Column, Schema
from core.sql import PARSE_FAILURES, as_number, holds_numbers_as_text, schema_mapping

__all__ = ["count_evidence", "division_evidence", "length_field_finding", "order_evidence", "ratio_finding",
           "reversed_difference_evidence", "rounding_finding", "scale_finding", "self_ratio_evidence", "unit_finding"]

logger = logging.getLogger(__name__)
_WHOLE = exp.DataType.INTEGER_TYPES


def division_evidence(sql: str, result: QueryResult, schema: Schema,
                      execute: Execute) -> tuple[list[str], list[Alternative]]:
    """SQLite and PostgreSQL divide whole numbers as whole numbers (7 / 2 is 3): a ratio or an average of counts
    loses its fraction. The types come from the schema (sqlglot's type annotation); the query with each such
    division's dividend read as a decimal is run and offered when its rows differ. DuckDB divides as decimals."""
    tree = parse(sql, schema.dialect) if schema.dialect in ("sqlite", "postgres") else None
    if tree is None:
        return [], []
    divisions = list(tree.find_all(exp.Div))
    if not divisions:
        return [], []
    try:
        typed = annotate_types(qualify(tree.copy(), schema=schema_mapping(schema), dialect=schema.dialect,
                                       validate_qualify_columns=False, identify=False),
                               schema=schema_mapping(schema), dialect=schema.dialect)
    except (*PARSE_FAILURES, RecursionError) as exc:
        logger.info("division check skipped: %s", exc)
        return [], []
    typed_divisions = list(typed.find_all(exp.Div))
    if len(typed_divisions) != len(divisions):
        return [], []
    whole = [div for div, seen in zip(divisions, typed_divisions, strict=True)
             if seen.this.type is not None and seen.this.type.is_type(*_WHOLE)
             and seen.expression.type is not None and seen.expression.type.is_type(*_WHOLE)]
    if not whole:
        return [], []
    shown = whole[0].sql(dialect=schema.dialect)
    decimal = "REAL" if schema.dialect == "sqlite" else "NUMERIC"
    for div in whole:
        div.set("this", exp.Cast(this=div.this.copy(), to=exp.DataType.build(decimal)))
    return offer(tree.sql(dialect=schema.dialect), "Keep the fraction", lambda how: (
        f"{shown} divides whole numbers, so the fraction is dropped (7 / 2 gives 3); kept as a fraction, {how}."),
        schema, execute, result)


def _core(node: exp.Expression) -> exp.Expression:
    """A side of a division without what keeps its value: brackets, a cast, NULLIF(x, 0), a constant factor."""
    while True:
        node = node.unnest()
        if isinstance(node, (exp.Cast, exp.Nullif)):
            node = node.this
        elif isinstance(node, exp.Mul) and isinstance(node.expression, exp.Literal):
            node = node.this
        elif isinstance(node, exp.Mul) and isinstance(node.this, exp.Literal):
            node = node.expression
        else:
            return node


def _conditional(aggregate: exp.AggFunc, condition: exp.Expression) -> exp.Expression:
    """``COUNT(*)`` counted only where ``condition`` holds (``SUM(CASE WHEN c THEN 1 ELSE 0 END)``); SUM, AVG, COUNT of
    a value over those rows."""
    value = aggregate.this
    if isinstance(aggregate, exp.Count) and (value is None or isinstance(value, exp.Star)):
        return exp.Sum(this=exp.Case(ifs=[exp.If(this=condition.copy(), true=exp.Literal.number(1))],
                                     default=exp.Literal.number(0)))
    kept = exp.Case(ifs=[exp.If(this=condition.copy(), true=value.copy())],
                    default=exp.Literal.number(0) if isinstance(aggregate, exp.Sum) else None)
    return aggregate.__class__(this=kept)


def _quotients(select: exp.Select) -> list[exp.Div]:
    return [d for item in select.expressions for d in item.find_all(exp.Div)]


def _no_value(select: exp.Select, div: exp.Div, tree: exp.Expression, result: QueryResult) -> bool:
    """Whether the outermost SELECT's item holding ``div`` is NULL or 0 on every row of the result."""
    if select is not tree or not result.rows:
        return False
    at = next((i for i, item in enumerate(select.expressions) if div in item.find_all(exp.Div)), None)
    return at is not None and all(at < len(row) and row[at] in (None, 0) for row in result.rows)


def self_ratio_evidence(sql: str, result: QueryResult, schema: Schema,
                        execute: Execute) -> tuple[list[str], list[Alternative]]:
    """An aggregate divided by itself, ``COUNT(*) * 1.0 / COUNT(*)``: 1 on every row, whatever the data — a share whose
    condition went into the WHERE clause (which then filters both) — said; or an unconditional aggregate divided by a
    conditional one, ``COUNT(*) / COUNT(CASE WHEN rating < 4 THEN 1 END) … WHERE rating > 4`` (the divisor's rows
    are ones the WHERE dropped). For each of the WHERE's conditions (two at most), the ratio with that condition
    counted in the dividend and out of the WHERE is run and offered where its rows differ."""
    tree = parse(sql, schema.dialect)
    if tree is None or result.truncated:
        return [], []
    for at_select, select in enumerate(tree.find_all(exp.Select)):
        for at_div, div in enumerate(_quotients(select)):
            top, bottom = _core(div.this), _core(div.expression)
            same = top.sql() == bottom.sql()
            if not isinstance(top, exp.AggFunc) or top.find(exp.Case) or not (same or isinstance(
                    bottom, exp.AggFunc) and bottom.find(exp.Case) and _no_value(select, div, tree, result)):
                continue  # the dividend counts what the WHERE kept, the divisor the rows of a condition: the
                # dividend's own condition may have gone into the WHERE, which the divisor's rows then fail (no
                # ratio on any row: a WHERE that only narrows the population leaves numbers, and is left)
            shown = div.sql(dialect=schema.dialect)
            where = select.args.get("where")
            conditions = (list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]) if where \
                else []
            notes: list[str] = [f"{shown} divides a value by itself: the same on every row, whatever the data."] \
                if same else []
            alternatives: list[Alternative] = []
            for k, condition in enumerate(conditions[:2]):
                other = tree.copy()
                other_select = list(other.find_all(exp.Select))[at_select]  # a copy walks in the same order
                other_div = _quotients(other_select)[at_div]
                other_top = _core(other_div.this)
                other_top.replace(_conditional(other_top, condition.unnest()))
                kept = [c.copy() for j, c in enumerate(conditions) if j != k]
                other_select.set("where", exp.Where(this=exp.and_(*kept)) if kept else None)
                said = condition.unnest().sql(dialect=schema.dialect)
                label = f"Counting {said}, not filtering"[:80]
                found = offer(other.sql(dialect=schema.dialect), label, lambda how, said=said: (
                    f"Counting {said} in the dividend instead of filtering both by it, {how}."), schema, execute,
                    result)
                notes, alternatives = notes + found[0], alternatives + found[1]
            return notes, alternatives
    return [], []


def count_evidence(sql: str, result: QueryResult, schema: Schema,
                   execute: Execute) -> tuple[list[str], list[Alternative]]:
    """COUNT counts what is not NULL: ``COUNT(CASE WHEN x THEN 1 ELSE 0 END)`` counts every row (the 0 too), and
    ``COUNT(*)`` over ``a LEFT JOIN b`` counts one row for each ``a`` with no ``b``. The query counting only the
    matches (no ELSE; a column of ``b`` from the join condition) is run and offered when its rows differ."""
    tree = parse(sql, schema.dialect)
    if tree is None:
        return [], []
    said: list[str] = []
    for count in list(tree.find_all(exp.Count)):
        case = count.this
        if isinstance(case, exp.Case) and _never_null(case.args.get("default")) and all(
                _never_null(branch.args.get("true")) for branch in case.args.get("ifs") or ()):  # fmt: skip
            said.append(f"{count.sql(dialect=schema.dialect)} counts every row, the ELSE too")
            case.set("default", None)
        elif isinstance(case, exp.Star):
            column = _left_joined_column(count)
            if column is not None:
                said.append(f"COUNT(*) counts one row for each row the LEFT JOIN finds no {column.table} for")
                count.set("this", column)
    if not said:
        return [], []
    return offer(tree.sql(dialect=schema.dialect), "Count only the matches",
                 lambda how: f"{'; '.join(said)}: counting only the matches, {how}.", schema, execute, result)


def _never_null(node: exp.Expression | None) -> bool:
    return isinstance(node, exp.Literal)


def _left_joined_column(count: exp.Count) -> exp.Column | None:
    """For a COUNT(*) of a grouped SELECT whose one LEFT JOIN is on ``a.k = b.k``: ``b.k`` (the joined side)."""
    select = count.find_ancestor(exp.Select)
    if select is None or not select.args.get("group"):
        return None
    lefts = [j for j in select.args.get("joins") or () if j.side == "LEFT"]
    if len(lefts) != 1 or not isinstance(lefts[0].this, exp.Table):
        return None
    joined = lefts[0].this.alias_or_name
    on = lefts[0].args.get("on")
    for eq in on.find_all(exp.EQ) if on is not None else ():
        for col in (eq.this, eq.expression):
            if isinstance(col, exp.Column) and col.table == joined:
                return col.copy()
    return None


# --- a ratio the question asks for as a percentage, or the other way; a ratio written the wrong way up ----------

_PERCENT = re.compile(r"\bper\s?cent(?:age)?s?\b|%|\bpct\b|\bpratishat\b|प्रतिशत")
_RATIO = re.compile(r"\b(?:ratio|proportion|fraction)s?\b|\banupat\b")
_RATIO_OF = re.compile(r"\b(?:ratio|proportion)\s+(?:of|between)\s+(?:the\s+)?(.+?)\s+(?:to|and|against|over)\s+"
                       r"(?:the\s+)?(.+?)(?=\s+(?:for|in|per|by|of each|across|among|over|from|where|when|that|who|"
                       r"which|and|during|differ)\b|[?.,;]|$)")


def _hundred(node: exp.Expression) -> bool:
    return isinstance(node, exp.Literal) and not node.is_string and node.this in ("100", "100.0", "100.00")


def _scaled(item: exp.Expression) -> exp.Mul | None:
    """The ``100 * …`` (or ``… * 100``) of a division in a select item."""
    for mul in item.find_all(exp.Mul):
        if (_hundred(mul.this) or _hundred(mul.expression)) and mul.find(exp.Div):
            return mul
    for div in item.find_all(exp.Div):  # 100 * a / b parses as (100 * a) / b
        if isinstance(div.this, exp.Mul) and (_hundred(div.this.this) or _hundred(div.this.expression)):
            return div.this
    return None


def scale_finding(text: str, tree: exp.Select) -> tuple[str, str, exp.Expression] | None:
    """The question asks for a ratio (a proportion, a fraction) and says no percent while the query multiplies a
    division by 100, or asks for a percentage while a division shown is never multiplied by 100: the other scale."""
    percent, ratio = bool(_PERCENT.search(text)), bool(_RATIO.search(text))
    if percent == ratio:
        return None
    for item in tree.expressions:
        mul = _scaled(item)
        if ratio and mul is not None:
            mul.replace((mul.expression if _hundred(mul.this) else mul.this).copy())
            return ("The question asks for a ratio and the query multiplies it by 100 (a percentage)",
                    "As a ratio, not × 100", tree)
        division = next((d for d in item.find_all(exp.Div) if d.find_ancestor(exp.AggFunc) is None), None)
        if percent and mul is None and division is not None and not item.find(exp.Window) and not any(
                _hundred(n) for n in item.find_all(exp.Literal)):
            division.replace(exp.Mul(this=exp.Literal.number("100.0"), expression=exp.Paren(this=division.copy())))
            return ("The question asks for a percentage and the query's division is never multiplied by 100",
                    "As a percentage, × 100", tree)
    return None


# Words that ask for a measure in a unit of their own: then a constant factor is the conversion asked for
_UNIT_WORDS = re.compile(
    r"\b(?:thousands?|millions?|billions?|lakhs?|crores?|k|mn|bn|cents?|paise|percent\w*|pct|per\s?cent|seconds?|"
    r"secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|km|kms|kilomet\w*|miles?|kgs?|kilo\w*|pounds?|"
    r"lbs?|grams?|inch\w*|cm|centimet\w*|met(?:er|re)s?|feet|foot|usd|inr|eur|rupees?|dollars?|euros?|scale|"
    r"rupay\w*|hazaar|hazar|ghante|din|saal|mahin\w*|hafte|tonnes?|tons?|gbp|sterling|yen|jpy|yuan|cny|aud|"
    r"cad|chf|dozens?|out\s+of|twice|double[ds]?|triple[ds]?|half|halved|quarter|times|score[ds]?|rating|rated|"
    r"convert\w*|unit|units)\b|%|₹|\$|€|£|¥", re.IGNORECASE)  # attack round 23: "out of 10", "twice", "in GBP"


def _number_said(written: str) -> str | None:
    """A number as a question would write it: ``1000.0`` and ``1000`` as ``1000``, ``0.50`` as ``0.5``."""
    try:
        value = Decimal(written).normalize()
    except (InvalidOperation, ValueError):
        return None
    return format(value, "f")


def unit_finding(text: str, tree: exp.Select) -> tuple[str, str, exp.Expression] | None:
    """A measure shown multiplied or divided by a constant (``SUM(price) / 1000.0``, ``AVG(cost) * 83``,
    ``weight * 2.2046``) where the question names no unit and not that number, nor the column its own
    (``AVG(minutes) / 60``): a unit the model assumed (money "stored in cents", another currency, thousands). The
    measures as stored; never 10 or 100 (a percentage, ``scale_finding``'s), never a ratio's own division."""
    if _UNIT_WORDS.search(text):
        return None
    factors: list[tuple[exp.Expression, exp.Expression, str]] = []
    for select in tree.find_all(exp.Select):
        for item in select.expressions:
            node = item.unalias()
            while isinstance(node, exp.Paren):
                node = node.this
            if not isinstance(node, (exp.Mul, exp.Div)):
                continue
            sides = [node.this, node.expression] if isinstance(node, exp.Mul) else [node.expression]
            constant = next((c for c in sides if isinstance(c, exp.Literal) and not c.is_string), None)
            measure = node.this if constant is not node.this else node.expression
            number = _number_said(constant.this) if constant is not None else None
            if number is None or number in ("1", "10", "100") or number in re.findall(r"\d+(?:\.\d+)?", text.replace(
                    ",", "")) or not measure.find(exp.AggFunc, exp.Column) or measure.find(exp.Div) or any(
                    _UNIT_WORDS.search(c.name.replace("_", " ")) for c in measure.find_all(exp.Column)):
                continue  # ``AVG(minutes) / 60``, ``price_cents / 100``: the column's own unit, converted
            factors.append((node, measure, constant.sql()))
    if not factors:
        return None
    for node, measure, _ in factors:
        node.replace(measure.copy())
    said = ", ".join(dict.fromkeys(f"{'×' if isinstance(n, exp.Mul) else '÷'} {c}" for n, _, c in factors))
    return (f"The query shows a measure scaled ({said}) in a unit the question never asks for",
            "The measure as stored", tree)


def ratio_finding(text: str, tree: exp.Select, words_of: Callable[[exp.Expression], set[str]],
                  matches: Callable[[str, str], bool]) -> tuple[str, str, exp.Expression] | None:
    """"The ratio of X to Y" where the query divides what names Y by what names X: the division the other way up.
    ``words_of`` gives the words a side of the division reads (its columns' and their tables' names)."""
    found = _RATIO_OF.search(text)
    if found is None:
        return None
    first, second = (set(re.findall(r"[a-z]{3,}", part)) for part in found.groups())
    for item in tree.expressions:
        for div in item.find_all(exp.Div):
            top, bottom = words_of(div.this), words_of(div.expression)

            def score(side: set[str], said: set[str]) -> int:
                return sum(any(matches(w, s) for s in said) for w in side)
            if score(top, second) > score(top, first) and score(bottom, first) > score(bottom, second):
                div.replace(exp.Div(this=div.expression.copy(), expression=div.this.copy()))
                return (f"The question asks for the ratio of {found[1]} to {found[2]}, and the query divides the "
                        "second by the first", "The ratio the other way up", tree)
    return None


_RATIO_ASKED = re.compile(r"\b(?:ratio|proportion|percentage|fraction)s?\b|\bwhat percent\b|\bshare of\b|"
                          r"\bas a share\b|\bout of (?:all|the total)\b", re.IGNORECASE)  # words, never a % of a value
_STORED_RATIO = re.compile(r"ratio|rate|pct|percent|share|proportion|fraction", re.IGNORECASE)


def undivided_ratio(text: str, tree: exp.Expression) -> str | None:
    """The question asks for a ratio (a proportion, a percentage, a share) and the query divides nothing — no
    division, no average (a share of a 0/1 flag), no column that stores a ratio: it shows one side of the ratio.
    A note, with no other query to offer (the denominator is the question's to say)."""
    if not _RATIO_ASKED.search(text) or tree.find(exp.Div, exp.Avg, exp.IntDiv) is not None:
        return None
    if any(_STORED_RATIO.search(col.name) for col in tree.find_all(exp.Column)):
        return None
    return ("The question asks for a ratio, and the query divides nothing: it shows one side of the ratio alone "
            "(check what it should be divided by)")


def smoothing_finding(text: str, tree: exp.Select) -> tuple[str, str, exp.Expression] | None:
    """A ratio whose divisor has 1 added (``a / (b + 1)``, smoothing) where the question asks for no smoothing: the
    ratio itself, ``a / NULLIF(b, 0)``."""
    if re.search(r"smooth|plus one|\+ ?1|add(?:ing)? one|laplace|inclusive|both ends|counting", text, re.IGNORECASE):
        return None
    for item in tree.expressions:
        for div in item.find_all(exp.Div):
            divisor = div.expression.unnest()
            if isinstance(divisor, exp.Add) and divisor.expression.sql() == "1" and not isinstance(
                    divisor.this.unnest(), (exp.Literal, exp.Sub)):  # MAX - MIN + 1 counts both ends
                div.set("expression", exp.Nullif(this=divisor.this.copy(), expression=exp.Literal.number(0)))
                return ("The query adds 1 to the divisor, which the question does not ask", "The ratio itself", tree)
    return None


_ROUNDING_ASKED = re.compile(r"\bround|\bwhole\b|\bfull\b|\bcomplete\b|\binteger|\bnearest\b|\bno decimals?\b|"
                             r"\bdecimal places?\b")
_WHOLE_TYPES = ("INT", "INTEGER", "BIGINT", "SMALLINT")


def rounding_finding(text: str, tree: exp.Select) -> tuple[str, str, exp.Expression] | None:
    """An average or a division shown rounded to a whole number (``ROUND(AVG(rating))``, ``CAST(x / y AS INT)``),
    or each value rounded before a sum or an average adds them up (``AVG(ROUND(rating))``), where the question asks
    for no rounding: the value with its fraction."""
    if _ROUNDING_ASKED.search(text):
        return None
    for item in tree.expressions:
        for node in item.find_all(exp.Round):
            if node.args.get("decimals") is None and isinstance(node.parent, (exp.Sum, exp.Avg)) and \
                    node.find_ancestor(exp.Select) is tree:
                node.replace(node.this.copy())
                return ("The query rounds each value to a whole number before adding them up, which the question "
                        "does not ask", "Without rounding each value", tree)
        for node in item.find_all(exp.Round, exp.Cast):
            whole = (isinstance(node, exp.Round) and node.args.get("decimals") is None) or (
                isinstance(node, exp.Cast) and node.to.this.name in _WHOLE_TYPES)
            if whole and node.find_ancestor(exp.Select) is tree and (node.this.find(exp.Avg) or node.this.find(
                    exp.Div)):
                what = "an average" if node.this.find(exp.Avg) else "a division"
                node.replace(node.this.copy())
                return (f"The query rounds {what} to a whole number, which the question does not ask",
                        "With its fraction", tree)
    return None


_FIELD_UNITS = {"SECOND": 1, "MINUTE": 60, "HOUR": 3600}


def length_field_finding(text: str, tree: exp.Select) -> tuple[str, str, exp.Expression] | None:
    """``EXTRACT(SECOND FROM end_ts - start_ts)`` (MINUTE, HOUR; PostgreSQL, DuckDB): the seconds field of the length
    of time (0 to 59), where the question asks for a length in that unit ("the total duration in seconds") and no
    other field of it is added in: the whole length, ``EXTRACT(EPOCH FROM …)`` over the unit's seconds."""
    for node in tree.find_all(exp.Extract):
        field = node.this.name.upper()
        length = node.expression.unnest()
        if field not in _FIELD_UNITS or not isinstance(length, (exp.Sub, exp.Anonymous)) or (
                isinstance(length, exp.Anonymous) and length.name.upper() != "AGE"):
            continue
        if not re.search(rf"\b{field.lower()}s?\b", text) or re.search(
                rf"\b{field.lower()}s? (?:part|field|component)\b", text):
            continue
        if any(isinstance(e, exp.Extract) and e is not node and e.expression.unnest() == length
               for e in tree.find_all(exp.Extract)):
            continue  # HOUR * 60 + MINUTE: the fields added up on purpose
        whole: exp.Expression = exp.Extract(this=exp.var("EPOCH"), expression=node.expression.copy())
        if _FIELD_UNITS[field] > 1:
            whole = exp.Div(this=whole, expression=exp.Literal.number(_FIELD_UNITS[field]))
        node.replace(exp.Paren(this=whole) if _FIELD_UNITS[field] > 1 else whole)
        return (f"EXTRACT({field} FROM …) of a length of time is only its {field.lower()}s field (0 to "
                f"{59 if field != 'HOUR' else 23}), not the whole length in {field.lower()}s the question asks for",
                f"The whole length in {field.lower()}s", tree)
    return None


# --- SQLite: an order or an extreme taken of a text column that holds numbers ('9' after '100') ---------------------

def order_evidence(sql: str, result: QueryResult, schema: Schema,
                   execute: Execute) -> tuple[list[str], list[Alternative]]:
    """On SQLite, an ORDER BY key or a MIN/MAX argument that is a text column holding numbers of several lengths
    orders them as text ('9' after '100'): the query reading it as a number is run, and offered when its rows or
    their order differ. Codes with leading zeros ('007') keep their text order."""
    tree = parse(sql, schema.dialect) if schema.dialect == "sqlite" else None
    if tree is None:
        return [], []
    cast: list[str] = []
    for col in list(tree.find_all(exp.Column)):
        parent = col.parent.parent if isinstance(col.parent, exp.Ordered) else col.parent
        if not isinstance(parent, (exp.Order, exp.Max, exp.Min)) or not isinstance(col.this, exp.Identifier):
            continue
        column = _numbers_as_text(col, tree, schema)
        if column is not None:
            col.replace(as_number(col, column))
            cast.append(column.name)
    if not cast:
        return [], []
    names = ", ".join(dict.fromkeys(cast))
    return offer(tree.sql(dialect=schema.dialect), f"Read {names} as numbers", lambda how: (
        f"{names} holds numbers stored as text, so this answer orders them as text ('9' after '100'); read as "
        f"numbers, {how}."), schema, execute, result, ordered=True)


def _numbers_as_text(col: exp.Column, tree: exp.Expression, schema: Schema) -> Column | None:
    """The table column ``col`` reads when it holds numbers of several lengths as text, else None."""
    found = owner(col, tree, schema)
    if found is None or not holds_numbers_as_text(found[1]):
        return None
    column = found[1]
    hints = [str(v).strip().lstrip("+-") for v in column.value_hints]
    lengths = {len(v.split(".")[0]) for v in hints}
    if len(lengths) < 2 or any(len(v) > 1 and v.startswith("0") and not v.startswith("0.") for v in hints):
        return None
    return column


def reversed_difference_evidence(sql: str, result: QueryResult, schema: Schema,
                                 execute: Execute) -> tuple[list[str], list[Alternative]]:
    """A shown difference of two dates (``hire_date - termination_date``, ``julianday(a) - julianday(b)``, inside an
    aggregate or not) that is below zero on every row: a length of time counted backwards, the operands the other way
    round offered."""
    tree = parse(sql, schema.dialect)
    if not isinstance(tree, exp.Select) or result.truncated or not result.rows or len(result.columns) != len(
            tree.expressions):
        return [], []
    for i, item in enumerate(tree.expressions):
        subs = [s for s in item.find_all(exp.Sub) if all(_reads_a_date(side, tree, schema) for side in (
            s.this, s.expression))]
        values = [_days(row[i]) for row in result.rows if row[i] is not None]
        if len(subs) != 1 or not values or None in values or max(values) >= 0:  # type: ignore[type-var, operator]
            continue
        sub = subs[0]
        written = sub.sql(dialect=schema.dialect)
        sub.replace(exp.Sub(this=sub.expression.copy(), expression=sub.this.copy()))
        return offer(tree.sql(dialect=schema.dialect), "The other way round", lambda how, written=written: (
            f"{written} is below zero on every row: a length of time counted backwards."), schema, execute, result)
    return [], []


def _reads_a_date(side: exp.Expression, tree: exp.Expression, schema: Schema) -> bool:
    from core.evidence._question_dates import dated

    found = [owner(c, tree, schema) for c in side.find_all(exp.Column)]
    return bool(found) and all(f is not None and dated(f[1]) for f in found)


def _days(value: object) -> float | None:
    """A difference as a number (a ``timedelta`` in days); None for what is no number."""
    import datetime as _dt
    from decimal import Decimal

    if isinstance(value, _dt.timedelta):
        return value.total_seconds() / 86400
    if isinstance(value, (int, float, Decimal)) and not isinstance(value, bool):
        return float(value)
    return None
