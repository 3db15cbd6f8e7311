"""Comparisons that run but always or never hold, read as the one that can mean something, each a guess the model
sees first (``GUESSED``). None of them can be what was meant: a query that keeps no row, or every row, by a test
written the wrong way round.

Never holds: ``BETWEEN 500 AND 100`` (or two ISO dates the wrong way round) with its bounds swapped; one column equal
to two different values in one AND (``name = 'ML' AND name = 'Data Science'``, an IN list written as a chain) as
``name IN ('ML', 'Data Science')``, where a query around it counts the values apart (``HAVING COUNT(DISTINCT …)``) or
it is the WHEN of a CASE an aggregate adds up (``COUNT(CASE WHEN day = 'Sat' AND day = 'Sun' THEN 1 END)``: one row's
test; never one HAVING tests, ``HAVING MAX(CASE … THEN 1 ELSE 0 END) = 1`` may ask for groups holding both; a number
and its own text, ``day = 0 AND day = '0'``, are one value); ``LOWER(x) = 'Paris'`` (LOWER writes no capital; UPPER no
small letter) compares with ``'paris'``, also in an IN list (ASCII letters only: SQLite folds no other); ``x GLOB
'%Ital%'`` (LIKE's wildcards, none of GLOB's: it matches only those letters) with GLOB's, ``'*Ital*'`` (LIKE where
there is no GLOB), never a percent after a number (``'50%'``); ``x = '%Paris%'`` (a value that
starts with LIKE's ``%`` before a word, or ends with it after a letter: ``'J%'``, not ``'100%'`` or ``'% of GDP'``) is
``LIKE``.

Holds on every row, or never: a position (``INSTR``, ``STRPOS``, ``POSITION``: 0 when the text is not found, never below 0) compared with
-1, Python's ``find() != -1`` (true on every row): ``> 0``, or ``= 0`` for ``= -1``; a pattern on the left of LIKE
and a column on its right (``'%pat%' LIKE name``: the name is read as the pattern; only a literal that starts or ends
with ``%``, since ``'SAVE 50% today' LIKE pattern`` tests a text against a table of patterns): the two sides swapped; a LIKE
pattern of SQL's one-character wildcard around a word of four letters or more (``'_Italian_'``, no ``%``: exactly one
character each side; ``'_X12_'``, a code of fixed length, is left) with ``%``; ``COUNT(x > 5)`` (it counts true and false alike, every row where x is known) as the rows where the
condition holds, ``COUNT(CASE WHEN x > 5 THEN 1 END)``; a LIKE pattern with T-SQL's classes of one letter in
either case (``'%[Ii]talian%'``, where a bracket matches only a bracket) as the case-insensitive ``ILIKE '%italian%'``
(only where every class is such a pair).

An IN list of values joined with OR, ``status IN ('active' OR 'closed')`` (PostgreSQL rejects it; SQLite reads
``'active' OR 'closed'`` as 0, a value no text equals): the list ``IN ('active', 'closed')``, its one reading, where
every item joined is a literal.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from sqlglot import exp

from core.sql.repair._names import GUESSED
from core.sql.repair._types import ISO_DATE

__all__ = ["never_true", "one_value_twice_per_row"]


def _value(literal: exp.Literal) -> object:
    """A literal's value, a number and its text as one (``1``, ``1.0`` and ``'1'``: SQLite compares a text column
    with a number as text, so ``day = 0 AND day = '0'`` can hold)."""
    try:
        return float(literal.this)
    except ValueError:
        return literal.this


def _counted_apart(chain: exp.Expression) -> bool:
    """Whether a query around the chain counts the values it keeps apart (``HAVING COUNT(DISTINCT x) = 2``): then
    rows of either value are what it needs ("authors in both ML and Data Science"); without it, "either" may answer
    "both", so the chain is left (the answer's check offers the conditions that can hold)."""
    return any(s.args.get("having") is not None and any(isinstance(c.this, exp.Distinct) for c in s.args[
        "having"].find_all(exp.Count)) for s in [chain.find_ancestor(exp.Select), *_outer_selects(chain)] if s)


def _aggregated_per_row(chain: exp.Expression) -> bool:
    """Whether the chain is a CASE's WHEN inside an aggregate (``COUNT(CASE WHEN day = 'Sat' AND day = 'Sun' THEN 1
    END)``): a test of one row, where "both" cannot be meant, and a column 0 by construction."""
    at = chain
    while isinstance(at.parent, exp.Paren):
        at = at.parent
    when = at.parent
    aggregate = when.find_ancestor(exp.AggFunc, exp.Select) if isinstance(when, exp.If) else None
    if not (isinstance(when, exp.If) and when.this is at and isinstance(when.parent, exp.Case)
            and isinstance(aggregate, exp.AggFunc)) or aggregate.find_ancestor(exp.Having) is not None:
        return False  # in HAVING it may test the group ("bought both"): left
    select = aggregate.find_ancestor(exp.Select)
    named = aggregate.parent.alias.lower() if isinstance(aggregate.parent, exp.Alias) else ""
    having = select.args.get("having") if select is not None else None
    return not (named and having is not None and any(c.name.lower() == named for c in having.find_all(exp.Column)))


def _outer_selects(node: exp.Expression) -> list[exp.Select]:
    found, at = [], node.find_ancestor(exp.Select)
    while at is not None:
        at = at.find_ancestor(exp.Select) if at.parent is not None else None
        if at is not None:
            found.append(at)
    return found


def one_value_twice_per_row(tree: exp.Expression, target: str, notes: list[str]) -> None:
    """``COUNT(CASE WHEN day = 'Sat' AND day = 'Sun' THEN 1 END)`` (one row's test inside an aggregate) as an IN
    list. Run in validation, after ``filters.second_on_sibling`` had its reading (``from_airport = 'LAX' AND
    from_airport = 'ORD'`` where the question says "to ORD" is the sibling's), which needs the schema and question."""
    _one_value_twice(tree, target, notes, _aggregated_per_row)


def _one_value_twice(tree: exp.Expression, target: str, notes: list[str],
                     meant: Callable[[exp.Expression], bool] = _counted_apart) -> None:
    """``x = 'a' AND x = 'b'`` (one column equal to two different values on one row) as ``x IN ('a', 'b')``, where
    ``meant(chain)`` says the values were meant apart."""
    for chain in [a for a in tree.find_all(exp.And) if not isinstance(a.parent, exp.And)]:
        if chain.find_ancestor(exp.Not) is not None or not meant(chain):
            continue
        parts = list(chain.flatten())
        equal: dict[str, list[exp.EQ]] = {}
        for part in parts:
            inner = part.unnest() if isinstance(part, exp.Paren) else part
            if isinstance(inner, exp.EQ) and isinstance(inner.expression, exp.Literal) and not isinstance(
                    inner.this, exp.Literal):
                equal.setdefault(inner.this.sql(dialect=target), []).append(inner)
        twice = {k: v for k, v in equal.items() if len({_value(e.expression) for e in v}) > 1}
        if not twice:
            continue
        dropped = {id(e) for v in twice.values() for e in v[1:]}
        kept = []
        for part in parts:
            inner = part.unnest() if isinstance(part, exp.Paren) else part
            if id(inner) in dropped:
                continue
            same = twice.get(inner.this.sql(dialect=target)) if isinstance(inner, exp.EQ) else None
            kept.append(exp.In(this=inner.this.copy(), expressions=list({e.expression.sql(): e.expression.copy()
                                                                          for e in same}.values()))
                        if same and inner is same[0] else part)
        chain.replace(exp.and_(*kept) if len(kept) > 1 else kept[0])
        for column, found in twice.items():
            notes.append(f"{column} = {found[0].expression.sql(dialect=target)} AND {column} = "
                         f"{found[1].expression.sql(dialect=target)} holds on no row (one value cannot be two): read "
                         f"as {column} IN (…)" + GUESSED)


def never_true(tree: exp.Expression, target: str, notes: list[str]) -> None:
    """The comparisons of the module docstring that always or never hold, read as the one meant (each a guess)."""
    _always_or_never(tree, target, notes)
    _or_lists(tree, target, notes)
    _one_value_twice(tree, target, notes)  # counted apart; one row's test in an aggregate: one_value_twice_per_row
    for between in list(tree.find_all(exp.Between)):
        low, high = between.args.get("low"), between.args.get("high")
        if _ordered(high, low) and not isinstance(between.parent, exp.Not):
            between.set("low", high.copy())  # type: ignore[union-attr]
            between.set("high", low.copy())  # type: ignore[union-attr]
            notes.append(f"BETWEEN {low.sql(dialect=target)} AND {high.sql(dialect=target)} holds no value (the "  # type: ignore[union-attr]
                         "low bound is above the high one): bounds swapped" + GUESSED)
    for glob in list(tree.find_all(exp.Glob)):  # GLOB '%Ital%': LIKE's wildcards, none of GLOB's (* ? [)
        pattern = _uncased(glob.expression)  # LOWER('%x%') too
        if not (isinstance(pattern, exp.Literal) and pattern.is_string) or re.search(r"[*?\[]", pattern.this) or \
                not re.search(r"(?<!\d)%", pattern.this):
            continue  # GLOB's own pattern, or a percent sign after a number ('50%'): as written
        if target == "sqlite":  # GLOB's case as written, its wildcards for LIKE's
            wild = pattern.this.replace("%", "*").replace("_", "?")
            pattern.replace(exp.Literal.string(wild))
        else:  # no GLOB elsewhere: LIKE
            wild = pattern.this
            glob.replace(exp.Like(this=glob.this.copy(), expression=glob.expression.copy()))
        notes.append(f"GLOB '{pattern.this}' (LIKE's wildcards, which GLOB reads as letters) -> "
                     f"{'GLOB ' + repr(wild) if target == 'sqlite' else 'LIKE'}" + GUESSED)
    for node in list(tree.find_all(exp.EQ, exp.NEQ, exp.In)):
        pattern = _uncased(node.expression) if isinstance(node, exp.EQ) else None
        if isinstance(pattern, exp.Literal) and pattern.is_string and isinstance(_uncased(node.this), exp.Column) and \
                re.fullmatch(r"%[^%\s].*|.*[^\W\d_]%", pattern.this):  # LOWER(x) = LOWER('%a%') too
            node.replace(exp.Like(this=node.this.copy(), expression=node.expression.copy()))
            notes.append(f"= '{pattern.this}' (LIKE's % written with =) -> LIKE" + GUESSED)
            continue
        cased = node.this if isinstance(node.this, (exp.Lower, exp.Upper)) else None
        values = list(node.expressions) if isinstance(node, exp.In) else [node.expression]
        if cased is None and isinstance(node.expression, (exp.Lower, exp.Upper)) and not isinstance(node, exp.In):
            cased, values = node.expression, [node.this]
        texts = [v for v in values if isinstance(v, exp.Literal) and v.is_string]
        spell = _ascii_lower if isinstance(cased, exp.Lower) else _ascii_upper  # SQLite folds ASCII only; ß stays
        wrong = [t for t in texts if spell(t.this) != t.this] if cased is not None else []
        for literal in wrong:
            literal.replace(exp.Literal.string(spell(literal.this)))
        if wrong:
            notes.append(f"{cased.sql(dialect=target)} never equals {', '.join(repr(t.this) for t in wrong)} "  # type: ignore[union-attr]
                         f"({cased.key.upper()} writes no {'capital' if spell is _ascii_lower else 'small letter'}): "  # type: ignore[union-attr]
                         f"compared with {', '.join(repr(spell(t.this)) for t in wrong)}" + GUESSED)


def _or_lists(tree: exp.Expression, target: str, notes: list[str]) -> None:
    """``x IN ('a' OR 'b')`` as ``x IN ('a', 'b')`` (see the module's docstring)."""
    for node in list(tree.find_all(exp.In)):
        items = node.expressions
        if len(items) != 1 or not isinstance(items[0], exp.Or):
            continue
        values = list(items[0].flatten())
        if all(isinstance(v, exp.Literal) for v in values):
            before = node.sql(dialect=target)
            node.set("expressions", [v.copy() for v in values])
            notes.append(f"{before} (values joined with OR) -> {node.sql(dialect=target)}")


def _ordered(low: exp.Expression | None, high: exp.Expression | None) -> bool:
    """Whether ``low`` < ``high``, both numbers or both ISO dates written as literals."""
    if not (isinstance(low, exp.Literal) and isinstance(high, exp.Literal)) or low.is_string != high.is_string:
        return False
    if low.is_string:
        return bool(ISO_DATE.fullmatch(low.this) and ISO_DATE.fullmatch(high.this)) and low.this < high.this
    try:
        return float(low.this) < float(high.this)
    except ValueError:
        return False


def _ascii_lower(text: str) -> str:
    return "".join(c.lower() if c.isascii() else c for c in text)


def _ascii_upper(text: str) -> str:
    return "".join(c.upper() if c.isascii() else c for c in text)


def _uncased(node: exp.Expression) -> exp.Expression:
    return node.this if isinstance(node, (exp.Lower, exp.Upper)) else node


def _always_or_never(tree: exp.Expression, target: str, notes: list[str]) -> None:
    """The comparisons of the docstring's last paragraph: positions against -1, LIKE's sides, ``_`` for ``%``,
    COUNT of a condition."""
    for node in list(tree.find_all(exp.NEQ, exp.EQ, exp.GT, exp.GTE)):
        if not isinstance(node.this, exp.StrPosition) or not isinstance(node.expression, (exp.Neg, exp.Literal)):
            continue
        value = node.expression.sql()
        if value == "-1" and not isinstance(node, exp.GTE) or value == "0" and isinstance(node, exp.GTE):
            found = node.this.copy()
            node.replace(exp.EQ(this=found, expression=exp.Literal.number(0)) if isinstance(node, exp.EQ) else
                         exp.GT(this=found, expression=exp.Literal.number(0)))
            notes.append(f"{node.sql(dialect=target)}: a position is 0 when the text is not found, never below "
                         f"(the test {'never holds' if isinstance(node, exp.EQ) else 'holds on every row'}) -> "
                         f"{'= 0' if isinstance(node, exp.EQ) else '> 0'}" + GUESSED)
    for like in list(tree.find_all(exp.Like, exp.ILike)):  # either side may be folded: LOWER(x) LIKE LOWER('%a%')
        left, right = like.this, like.expression
        pattern = _bare(left)
        if isinstance(pattern, exp.Literal) and pattern.is_string and re.fullmatch(r"%.+|.+%", pattern.this) and \
                isinstance(_bare(right), exp.Column):  # 'SAVE 50% today' LIKE pattern tests text against patterns
            like.set("this", right.copy())
            like.set("expression", left.copy())
            notes.append(f"'{pattern.this}' LIKE {right.sql(dialect=target)} (the column read as the pattern) -> "
                         f"{right.sql(dialect=target)} LIKE '{pattern.this}'" + GUESSED)
        pattern = _bare(like.expression)
        if isinstance(pattern, exp.Literal) and pattern.is_string and re.fullmatch(r"_[^\W\d_](?:[^\W\d_]| ){3,}_",
                                                                                    pattern.this):  # '_X12_' is a code
            pattern.replace(exp.Literal.string("%" + pattern.this[1:-1] + "%"))
            notes.append(f"LIKE '{pattern.this}' (one character each side) -> LIKE '%{pattern.this[1:-1]}%'" + GUESSED)
        classes = re.findall(r"\[([^\]]*)\]", pattern.this) if isinstance(pattern, exp.Literal) and pattern.is_string else []
        if classes and all(len(c) == 2 and c.isalpha() and c[0] != c[1] and c[0].lower() == c[1].lower() for c in classes):
            text = re.sub(r"\[([A-Za-z])[A-Za-z]\]", lambda m: m[1].lower(), pattern.this)
            like.replace(exp.ILike(this=like.this.copy(), expression=exp.Literal.string(text),
                                   negate=like.args.get("negate")))
            notes.append(f"LIKE '{pattern.this}' (T-SQL's classes of a letter in either case; a bracket is a letter "
                         f"here) -> ILIKE '{text}'" + GUESSED)
    for count in list(tree.find_all(exp.Count)):
        condition = count.this.unnest() if isinstance(count.this, exp.Expression) else None
        if isinstance(condition, (exp.Predicate, exp.Connector, exp.Not)) and not isinstance(condition, exp.Distinct):
            count.set("this", exp.Case(ifs=[exp.If(this=condition.copy(), true=exp.Literal.number(1))]))
            notes.append(f"COUNT({condition.sql(dialect=target)}) counts the rows where it is false too -> "
                         f"COUNT(CASE WHEN {condition.sql(dialect=target)} THEN 1 END)" + GUESSED)


def _bare(node: exp.Expression) -> exp.Expression:
    """``node`` without the LOWER()/UPPER() folds around it (SQLite's reading of ILIKE folds both sides)."""
    while isinstance(node, (exp.Lower, exp.Upper)):
        node = node.this
    return node

