"""A filter that cannot mean what it says: a text value the column spells otherwise (``status = 'Paid'`` where the
column holds 'paid'), a comparison with NULL (``x = NULL`` is never true), a date formatted otherwise than the text
it is compared with (``strftime('%Y-%m', d) = '2023'`` is never true), a value no row of its table holds that a
column of the same name in another table of the query does, or another text column of its table, conditions that contradict each other (``col = 'a' AND
col = 'b'``) or cover every row (``col >= a OR col < b``)."""

from __future__ import annotations

import re

from sqlglot import exp

from core.answer import Alternative
from core.databases import QueryResult
from core.evidence._common import Execute, holds_numbers, offer, owner, parse, select_tables
from core.fallback import singular
from core.errors import CairnError
from core.schema import Column, Schema, Table
from core.sql import guard

__all__ = ["contradiction_evidence", "elsewhere_evidence", "format_evidence", "null_evidence", "value_evidence",
           "wildcard_evidence"]

_PROBES = 8  # values spelled otherwise looked up in the database, at most, per answer


def _key(text: str) -> str:
    return " ".join(text.casefold().split())


def _loose(text: str) -> str:
    """The words of a value, each singular: 'Actives' and 'active', 'Italians' and 'Italian', 'Data_Science' and
    'Data Science' meet."""
    return " ".join(singular(w) for w in re.findall(r"[^\W_]+", text.casefold()))


def _spelled(value: str, hints: tuple[str, ...]) -> str | None:
    """The one known value that ``value`` spells otherwise: equal but for case and spacing, else but for plurals,
    else one starting with the other ('successful' / 'success', 'New York City' / 'New York', at least 4 letters)."""
    for key in (_key, _loose):
        same = [h for h in hints if key(h) == key(value)]
        if same:
            return same[0] if len(same) == 1 else None
    loose = _loose(value)
    starts = [h for h in hints if min(len(_loose(h)), len(loose)) >= 4 and abs(len(_loose(h).split()) - len(
        loose.split())) <= 1 and (_loose(h).startswith(loose) or loose.startswith(_loose(h)))]
    return starts[0] if len(starts) == 1 else None


def _held(table: Table, column: str, test: exp.Expression, literal: exp.Literal, schema: Schema,
          execute: Execute, *, empty: bool = True) -> bool:
    """Whether a row of ``table`` meets the filter as written (one bounded query; when it fails, ``empty``: by default
    say held, so that nothing is doubted on a probe that did not run)."""
    condition = exp.EQ(this=test.this.copy(), expression=literal.copy()) if isinstance(test, exp.In) else test.copy()
    for col in condition.find_all(exp.Column):
        col.set("table", None)
    probe = exp.select("1").from_(exp.to_table(table.qualified_name)).where(condition).limit(1)
    try:
        return bool(execute(guard(probe.sql(dialect=schema.dialect), schema.dialect).sql).rows)
    except CairnError:
        return empty


def value_evidence(sql: str, result: QueryResult, schema: Schema,
                   execute: Execute) -> tuple[list[str], list[Alternative]]:
    """For ``col = 'x'`` / ``col IN ('x', …)`` / ``col LIKE '%x%'`` on a text column whose known values (all of
    them: the hints are kept only for columns with few values) do not hold 'x' but hold exactly one value that
    spells it otherwise (case, spacing, a plural, a longer or shorter form): the query with that spelling is run and
    offered when its rows differ (the filter as written may match nothing). Nothing is changed on a spelling."""
    tree = parse(sql, schema.dialect)
    if tree is None:
        return [], []
    said: list[str] = []
    owners: dict[tuple[str, str], tuple[Table, Column] | None] = {}  # per column: a long IN list reads one
    probes = _PROBES
    for literal in list(tree.find_all(exp.Literal)):
        parent = literal.parent
        column = None
        if isinstance(parent, (exp.EQ, exp.NEQ, exp.Like, exp.ILike)):
            column = parent.expression if parent.this is literal else parent.this
        elif isinstance(parent, exp.In) and literal.arg_key == "expressions":
            column = parent.this
        if not literal.is_string or not isinstance(column, exp.Column):
            continue
        named = (column.table.lower(), column.name.lower())
        found = owners[named] if named in owners else owners.setdefault(named, owner(column, tree, schema))
        hints = found[1].value_hints if found is not None else ()
        like = isinstance(parent, (exp.Like, exp.ILike))
        text = literal.this.strip("%") if like else literal.this
        if not hints or not text or ("%" in text or "_" in text if like else literal.this in hints):
            continue
        if like and any(text.casefold() in h.casefold() for h in hints):
            continue
        spelled = _spelled(text, hints)
        if spelled is None or spelled == text or probes == 0:
            continue
        probes -= 1  # each probe is one bounded query: a few of them, however many values are written
        if _held(found[0], found[1].name, parent, literal, schema, execute):
            continue  # the hints are a sample: a value written that the column holds beyond it is left
        said.append(f"{column.sql(dialect=schema.dialect)} holds '{spelled}', not '{text}'")
        literal.replace(exp.Literal.string(literal.this.replace(text, spelled) if like else spelled))
    if not said:
        return [], []
    return offer(tree.sql(dialect=schema.dialect), "As the data spells it",
                 lambda how: f"{'; '.join(said)}: spelled as the data spells it, {how}.", schema, execute, result)


def null_evidence(sql: str, result: QueryResult, schema: Schema,
                  execute: Execute) -> tuple[list[str], list[Alternative]]:
    """``x = NULL`` and ``x <> NULL`` are never true (a comparison with NULL is unknown), so the filter keeps no row:
    the query with ``x IS NULL`` / ``x IS NOT NULL`` is run and offered when its rows differ."""
    tree = parse(sql, schema.dialect)
    if tree is None:
        return [], []
    said: list[str] = []
    for node in list(tree.find_all(exp.EQ, exp.NEQ)):
        side = node.this if isinstance(node.expression, exp.Null) else node.expression if isinstance(
            node.this, exp.Null) else None
        if side is None or isinstance(side, exp.Null):
            continue
        said.append(node.sql(dialect=schema.dialect))
        test: exp.Expression = exp.Is(this=side.copy(), expression=exp.Null())
        node.replace(test if isinstance(node, exp.EQ) else exp.Not(this=test))
    if not said:
        return [], []
    return offer(tree.sql(dialect=schema.dialect), "Test for NULL with IS", lambda how: (
        f"{', '.join(said)} is never true (a comparison with NULL is unknown); with IS NULL, {how}."),
        schema, execute, result)


def wildcard_evidence(sql: str, result: QueryResult, schema: Schema,
                      execute: Execute) -> tuple[list[str], list[Alternative]]:
    """A LIKE pattern written with another tool's wildcards — ``*`` and ``?`` (Access, a shell's glob), never ``%``
    or ``_`` —: LIKE reads them as the characters themselves. The query with ``%`` and ``_`` in their place is run
    and offered when its rows differ (a value holding a real star keeps the answer as it is)."""
    tree = parse(sql, schema.dialect)
    if tree is None:
        return [], []
    said: list[str] = []
    for node in tree.find_all(exp.Like, exp.ILike):
        pattern = node.expression
        while isinstance(pattern, (exp.Lower, exp.Upper)):  # ILIKE on SQLite: LOWER(x) LIKE LOWER('J*')
            pattern = pattern.this
        if not (isinstance(pattern, exp.Literal) and pattern.is_string) or not re.search(r"[*?]", pattern.this) or (
                re.search(r"[%_]", pattern.this)):
            continue
        said.append(f"'{pattern.this}'")
        pattern.replace(exp.Literal.string(pattern.this.replace("*", "%").replace("?", "_")))
    if not said:
        return [], []
    return offer(tree.sql(dialect=schema.dialect), "With LIKE's wildcards", lambda how: (
        f"{', '.join(said)} uses * or ? as a wildcard, which LIKE reads as that character; with % and _, {how}."),
        schema, execute, result)


# What each directive of a date format writes (strftime's, as sqlglot reads PostgreSQL's to_char too).
_DIRECTIVES = {"%Y": r"\d{4}", "%m": r"(?:0[1-9]|1[0-2])", "%d": r"(?:0[1-9]|[12]\d|3[01])", "%w": r"[0-6]",
               "%W": r"[0-5]\d", "%j": r"[0-3]\d\d", "%H": r"[0-2]\d", "%M": r"[0-5]\d", "%S": r"[0-5]\d"}
_FORMATS = ("%Y", "%Y-%m", "%Y-%m-%d", "%m", "%d", "%w", "%W", "%Y-%W", "%j", "%H")


def _shape(fmt: str) -> re.Pattern[str] | None:
    """A pattern of what ``fmt`` can write; None when it holds a directive not known here."""
    parts = re.split(r"(%.)", fmt)
    if any(p.startswith("%") and p not in _DIRECTIVES for p in parts):
        return None
    return re.compile("".join(_DIRECTIVES.get(p, re.escape(p)) for p in parts))


def format_evidence(sql: str, result: QueryResult, schema: Schema,
                    execute: Execute) -> tuple[list[str], list[Alternative]]:
    """A formatted date compared with text it can never write (``strftime('%Y-%m', d) = '2023'``, ``strftime('%d', d)
    IN ('0', '6')``) keeps no row: the query with the one format of the usual ones that writes every value compared
    (of those using only the written format's directives, when several do) is run and offered."""
    tree = parse(sql, schema.dialect)
    if tree is None:
        return [], []
    said: list[str] = []
    for call in list(tree.find_all(exp.TimeToStr)):
        fmt, parent = call.args.get("format"), call.parent
        if not isinstance(fmt, exp.Literal) or (shape := _shape(fmt.this)) is None:
            continue
        if isinstance(parent, (exp.EQ, exp.NEQ)):
            values = [parent.expression if parent.this is call else parent.this]
        elif isinstance(parent, exp.In) and parent.this is call:
            values = list(parent.expressions)
        else:
            continue
        if not values or not all(isinstance(v, exp.Literal) and v.is_string for v in values):
            continue
        texts = [v.this for v in values]
        if any(shape.fullmatch(t) for t in texts):
            continue
        fits = [f for f in _FORMATS if all(_shape(f).fullmatch(t) for t in texts)]  # type: ignore[union-attr]
        if len(fits) > 1:
            fits = [f for f in fits if set(re.findall(r"%.", f)) <= set(re.findall(r"%.", fmt.this))]
        if len(fits) != 1:
            continue
        before = call.sql(dialect=schema.dialect)
        fmt.replace(exp.Literal.string(fits[0]))
        said.append(f"{before} never writes {', '.join(repr(t) for t in texts[:3])}")
    if not said:
        return [], []
    return offer(tree.sql(dialect=schema.dialect), "Format the date as compared", lambda how: (
        f"{'; '.join(said)}, so the filter keeps no row; formatted as the values compared, {how}."),
        schema, execute, result)


def elsewhere_evidence(sql: str, result: QueryResult, schema: Schema,
                       execute: Execute) -> tuple[list[str], list[Alternative]]:
    """``organization.name = 'Machine Learning'`` that no row of organization holds, in a query that also reads a
    table whose column of the same name does (``domain.name``): one bounded probe per table, and the query with
    the filter on that table is run and offered. With no such table, the one other text column of its own table
    that holds it (``airport.country_name = 'Orlando International Airport'``: airport_name does). A value or a LIKE
    pattern the column holds only in other capitals is offered ignoring case."""
    tree = parse(sql, schema.dialect)
    if tree is None or result.truncated:
        return [], []
    for select in tree.find_all(exp.Select):
        where = select.args.get("where")
        tables = select_tables(select, schema)
        for test in where.find_all(exp.EQ, exp.Like, exp.ILike) if where is not None else ():
            col, literal = test.this, test.expression
            while isinstance(col, (exp.Lower, exp.Upper, exp.Trim)):
                col = col.this
            if isinstance(literal, (exp.Lower, exp.Upper)):
                literal = literal.this
            if not isinstance(col, exp.Column) or not isinstance(literal, exp.Literal) or not literal.is_string:
                continue
            found = owner(col, select, schema)
            table = found[0] if found is not None else None
            if table is None or table.column(col.name) is None or _held(table, col.name, test, literal, schema,
                                                                          execute):
                continue
            spelled = found[1].value_hints if found is not None else ()
            kind = type(test)
            pattern = kind is exp.Like  # a pattern spells no one value: only its case is doubted (never one with an
            if pattern and isinstance(test.parent, exp.Escape):  # ESCAPE, which the probe would drop)
                continue
            if kind in (exp.EQ, exp.Like) and test.this is col and (pattern or not _spelled(literal.this, spelled)) \
                    and _held(table, col.name, kind(
                    this=exp.Lower(this=col.copy()), expression=exp.Lower(this=literal.copy())), literal, schema,
                    execute, empty=False):  # 'ACTIVE' where the column holds 'active', LIKE '%retail%' where it
                # holds 'Retail' (PostgreSQL's LIKE minds case): offered without case
                was = test.sql(dialect=schema.dialect)
                test.replace(kind(this=exp.Lower(this=col.copy()), expression=exp.Lower(this=literal.copy())))
                return offer(tree.sql(dialect=schema.dialect), "Ignoring case", lambda how, was=was: (
                    f"no row has {was} as written, and some have it in other capitals: ignoring case, {how}."),
                    schema, execute, result)
            holders = [alias for alias, other in tables.items() if other is not None and other is not table
                       and other.column(col.name) is not None
                       and _held(other, col.name, test, literal, schema, execute, empty=False)]
            if not holders:  # ``country_name = 'Orlando International Airport'``: the value is another column's
                found_in = _sibling_holder(table, col, test, literal, schema, execute)
                if found_in is not None:
                    was = col.sql(dialect=schema.dialect)
                    col.set("this", exp.to_identifier(found_in))
                    why = f"no row of {table.name} has {was} {literal.sql(dialect=schema.dialect)}; {found_in} holds it"
                    return offer(tree.sql(dialect=schema.dialect), f"Filter on {found_in}",
                                 lambda how, why=why: f"{why}: filtered there, {how}.", schema, execute, result)
            if len(holders) != 1:
                continue
            was = col.sql(dialect=schema.dialect)
            col.set("table", exp.to_identifier(holders[0]))
            why = (f"no row of {table.name} has {was} {literal.sql(dialect=schema.dialect)}, and "
                   f"{holders[0]}.{col.name} holds it")
            return offer(tree.sql(dialect=schema.dialect), f"Filter on {holders[0]}.{col.name}",
                         lambda how, why=why: f"{why}: filtered there, {how}.", schema, execute, result)
    return [], []



_SIBLING_PROBES = 8  # other text columns of the table asked for a value no row of the filtered column holds


def _sibling_holder(table: Table, col: exp.Column, test: exp.Expression, literal: exp.Literal, schema: Schema,
                    execute: Execute) -> str | None:
    """The one other text column of ``table`` (a code too; at most ``_SIBLING_PROBES`` asked) where a row meets the
    filter as written, with its column in place of ``col``; None when none or several do."""
    others = [c for c in table.columns if c.name.lower() != col.name.lower() and not holds_numbers(c.type)
              and not re.search(r"date|time|bool", c.type or "", re.I)][:_SIBLING_PROBES]
    found = []
    for other in others:
        swapped = test.copy()
        for node in swapped.find_all(exp.Column):
            if node.name.lower() == col.name.lower():
                node.set("this", exp.to_identifier(other.name))
        if _held(table, other.name, swapped, literal, schema, execute, empty=False):
            found.append(other.name)
    return found[0] if len(found) == 1 else None


_LOWER_BOUNDS, _UPPER_BOUNDS = (exp.GT, exp.GTE), (exp.LT, exp.LTE)


def _constant(node: exp.Expression) -> exp.Literal | None:
    return node if isinstance(node, exp.Literal) else None


def _bound(node: exp.Expression) -> tuple[str, str, exp.Literal, bool] | None:
    """(column as written, "lower"/"upper", value, whether the value itself is kept) of ``col >= v`` / ``col < v``
    (either side), else None."""
    if not isinstance(node, (*_LOWER_BOUNDS, *_UPPER_BOUNDS)):
        return None
    col, value, lower = node.this, _constant(node.expression), isinstance(node, _LOWER_BOUNDS)
    if value is None and isinstance(node.expression, exp.Column):
        col, value, lower = node.expression, _constant(node.this), not lower
    if not isinstance(col, exp.Column) or value is None:
        return None
    return col.sql(), "lower" if lower else "upper", value, isinstance(node, (exp.GTE, exp.LTE))


def _covers(low: tuple[str, str, exp.Literal, bool], high: tuple[str, str, exp.Literal, bool]) -> bool:
    """Whether ``col >= low OR col < high`` keeps every value: low below high, or equal with one of them kept
    (``> 20 OR < 20`` leaves out 20 itself: "not 20"). Numbers, or texts (ISO dates compare as text)."""
    a, b = low[2], high[2]
    if a.is_string != b.is_string:
        return False
    try:
        x, y = (a.this, b.this) if a.is_string else (float(a.this), float(b.this))
    except ValueError:
        return False
    return x < y or (x == y and (low[3] or high[3]))


def contradiction_evidence(sql: str, result: QueryResult, schema: Schema,
                           execute: Execute) -> tuple[list[str], list[Alternative]]:
    """A WHERE that cannot mean what it says: ``col = 'a' AND col = 'b'`` keeps no row (one value is not two): as
    ``col IN ('a', 'b')``; two bounds of one column in one direction, one of which does nothing: as a range
    (``_one_way_bounds``); ``col >= a OR col < b`` with a <= b keeps every row that has a value: as AND."""
    tree = parse(sql, schema.dialect)
    if tree is None or result.truncated:
        return [], []
    said: list[str] = []
    for node in list(tree.find_all(exp.And)):
        if isinstance(node.parent, exp.And):
            continue  # the top of a chain of ANDs is read once
        parts = list(node.flatten())
        equal: dict[str, list[exp.EQ]] = {}
        for part in parts:
            if isinstance(part, exp.EQ) and isinstance(part.this, exp.Column) and _constant(part.expression):
                equal.setdefault(part.this.sql(), []).append(part)
        for column, tests in equal.items():
            values = {t.expression.sql() for t in tests}
            if len(tests) < 2 or len(values) < 2:
                continue
            kept = [p.copy() for p in parts if p not in tests]
            one = exp.In(this=tests[0].this.copy(), expressions=[t.expression.copy() for t in tests])
            node.replace(exp.and_(one, *kept) if kept else one)
            said.append(f"{column} cannot equal {' and '.join(sorted(values))} at once, so nothing is kept; as one "
                        "of them (IN)")
            break
    ranged = not said
    if ranged:
        said = _one_way_bounds(tree, schema, execute) or _empty_range(tree, schema, execute)
        ranged = bool(said)
    for node in list(tree.find_all(exp.Or)):
        first, second = _bound(node.this.unnest()), _bound(node.expression.unnest())
        if first is None or second is None or first[0] != second[0] or first[1] == second[1]:
            continue
        low, high = (first, second) if first[1] == "lower" else (second, first)
        if _covers(low, high):
            node.replace(exp.Paren(this=exp.And(this=node.this.copy(), expression=node.expression.copy())))
            said.append(f"{low[0]} at or after one bound OR before another keeps every row with a value; as AND")
    if not said:
        return [], []
    return offer(tree.sql(dialect=schema.dialect), "As a range" if ranged else "Conditions that can hold",
                 lambda how: f"{'; '.join(said)}, {how}.", schema, execute, result)


_FLIPPED = {exp.GT: exp.LT, exp.GTE: exp.LTE, exp.LT: exp.GT, exp.LTE: exp.GTE}


def _fixed(node: exp.Expression) -> bool:
    """A value that is the same on every row: no column, no subquery (a literal, ``CURRENT_DATE - INTERVAL ...``)."""
    return not any(isinstance(n, (exp.Column, exp.Select, exp.Star)) for n in node.walk())


def _fixed_bounds(node: exp.And, *, numbers: bool) -> dict[str, list[tuple[exp.Expression, exp.Expression, bool]]]:
    """Per column, (condition, value, lower?) of each bound of a chain of ANDs by a value that is the same on every row
    (``_fixed``); plain numbers too only with ``numbers``."""
    sides: dict[str, list[tuple[exp.Expression, exp.Expression, bool]]] = {}
    for part in node.flatten():
        if not isinstance(part, (*_LOWER_BOUNDS, *_UPPER_BOUNDS)):
            continue
        col, value, lower = part.this, part.expression, isinstance(part, _LOWER_BOUNDS)
        if not isinstance(col, exp.Column):
            col, value, lower = part.expression, part.this, not lower
        if isinstance(col, exp.Column) and _fixed(value) and (numbers or not (isinstance(value, exp.Literal) and not
                                                                              value.is_string)):
            sides.setdefault(col.sql(), []).append((part, value, lower))
    return sides


def _one_way_bounds(tree: exp.Expression, schema: Schema, execute: Execute) -> list[str]:
    """``d >= '2023-01-01' AND d >= '2023-03-31'``: two bounds of one column from the same side, so the looser one
    does nothing. The only reading in which both act is the range between them: the tighter bound turned round
    (``d <= '2023-03-31'``). Text (dates) and computed bounds only: ``delay > 0 AND delay >= 30`` is a guard
    written twice more often than a slip. Which is tighter is asked of the database (``SELECT a < b``), so computed
    bounds (``CURRENT_DATE - INTERVAL '8 weeks'``) compare as the database computes them. Edits ``tree``; says what."""
    for node in list(tree.find_all(exp.And)):
        if isinstance(node.parent, exp.And):
            continue
        sides = _fixed_bounds(node, numbers=False)  # > 0 AND >= 30: a guard written twice
        for column, bounds in sides.items():
            if len(bounds) != 2 or bounds[0][2] != bounds[1][2]:
                continue  # a range already, or more than one reading
            (first, a, lower), (second, b, _) = bounds
            probe = f"SELECT CASE WHEN ({a.sql(dialect=schema.dialect)}) < ({b.sql(dialect=schema.dialect)}) THEN 1 " \
                    f"WHEN ({a.sql(dialect=schema.dialect)}) > ({b.sql(dialect=schema.dialect)}) THEN 2 END"
            try:
                order = execute(guard(probe, schema.dialect).sql).rows[0][0]
            except (CairnError, IndexError):
                continue
            if order not in (1, 2):
                continue  # the same bound twice, or values that do not compare
            smaller, larger = (first, second) if order == 1 else (second, first)
            tighter = larger if lower else smaller
            turned = _FLIPPED[type(tighter)](this=tighter.this.copy(), expression=tighter.expression.copy())
            written = tighter.sql(dialect=schema.dialect)
            tighter.replace(turned)
            return [f"The query bounds {column} from the same side twice, so one bound does nothing; with "
                    f"{written} turned round ({turned.sql(dialect=schema.dialect)}), a range between the two"]
    return []


_SHIFT = re.compile(r"^(\s*)([+-])(\s*\d+\s+[a-z]+\s*)$", re.I)  # SQLite's date modifier: '+7 days'


def _shifts(value: exp.Expression) -> list[exp.Expression]:
    """Where a fixed bound is moved by a length of time: ``… + INTERVAL '1 week'``, SQLite's ``'-30 days'``."""
    return [n for n in value.walk() if isinstance(n, (exp.Add, exp.Sub)) and isinstance(n.expression, exp.Interval)
            or isinstance(n, exp.Literal) and n.is_string and _SHIFT.match(n.this)]


def _flip(shift: exp.Expression) -> None:
    if isinstance(shift, exp.Literal):
        found = _SHIFT.match(shift.this)
        assert found is not None
        shift.replace(exp.Literal.string(f"{found[1]}{'-' if found[2] == '+' else '+'}{found[3]}"))
    else:
        shift.replace((exp.Sub if isinstance(shift, exp.Add) else exp.Add)(this=shift.this.copy(),
                                                                          expression=shift.expression.copy()))


def _empty_range(tree: exp.Expression, schema: Schema, execute: Execute) -> list[str]:
    """``d >= DATE_TRUNC('week', CURRENT_DATE) + INTERVAL '1 week' AND d < DATE_TRUNC('week', CURRENT_DATE)``: a
    range whose start is after its end keeps no row (the database says which is later). The one length of time that
    moves a bound turned the other way (a sign slip: the previous week, not the next), else the bounds swapped.
    Edits ``tree``; says what."""
    for node in list(tree.find_all(exp.And)):
        if isinstance(node.parent, exp.And):
            continue
        sides = _fixed_bounds(node, numbers=True)
        for column, bounds in sides.items():
            lows, highs = [b for b in bounds if b[2]], [b for b in bounds if not b[2]]
            if len(lows) != 1 or len(highs) != 1:
                continue
            (low_part, low, _), (high_part, high, _) = lows[0], highs[0]
            both_kept = isinstance(low_part, exp.GTE) and isinstance(high_part, exp.LTE)
            a, b = low.sql(dialect=schema.dialect), high.sql(dialect=schema.dialect)
            probe = f"SELECT CASE WHEN ({a}) > ({b}) THEN 2 WHEN ({a}) = ({b}) THEN 1 ELSE 0 END"
            try:
                later = execute(guard(probe, schema.dialect).sql).rows[0][0]
            except (CairnError, IndexError):
                continue
            if later not in (1, 2) or (later == 1 and both_kept):
                continue
            shifts = _shifts(low) + _shifts(high)
            if len(shifts) == 1:
                _flip(shifts[0])
                how = "with its length of time turned the other way"
            else:
                low.replace(high.copy())
                high.replace(exp.maybe_parse(a, dialect=schema.dialect))
                how = "with its bounds swapped"
            return [f"The range of {column} starts at or after its end ({a} against {b}), so it keeps no row; {how}"]
    for between in list(tree.find_all(exp.Between)):  # d BETWEEN date('2024-02-10', '+30 days') AND '2024-02-10'
        low, high = between.args.get("low"), between.args.get("high")
        if not isinstance(between.this, exp.Column) or low is None or high is None or not (_fixed(low) and _fixed(
                high)):
            continue
        a, b = low.sql(dialect=schema.dialect), high.sql(dialect=schema.dialect)
        try:
            later = execute(guard(f"SELECT CASE WHEN ({a}) > ({b}) THEN 1 ELSE 0 END", schema.dialect).sql).rows[0][0]
        except (CairnError, IndexError):
            continue
        if later != 1:
            continue
        shifts = _shifts(low) + _shifts(high)
        if len(shifts) == 1:
            _flip(shifts[0])
        else:
            between.set("low", high.copy())
            between.set("high", low.copy())
        how = "with its length of time turned the other way" if len(shifts) == 1 else "with its bounds swapped"
        return [f"The range of {between.this.sql()} starts after its end ({a} against {b}), so it keeps no row; {how}"]
    return []
