"""A filter value that no row holds because a word naming its own column or table was written into it
(``domain.name = 'Machine Learning domain'``, ``food_type LIKE '%Italian food%'``, ``from_airport = 'LAX from
airport'``): the value without those words, where the data proves it — a bounded query finds no row holding the
value as written and one holding it without them; and so a value with spaces at its ends (``= ' Toyota'``, a space a
tokenizer wrote at its start), no ``%`` in it, and a LIKE pattern written as a regular expression (``LIKE
'.*Science.*'``, ``'^J.*'``: LIKE reads ``.``, ``*``, ``^`` and ``$`` as letters) read as LIKE's, ``'%Science%'``.
The filter as written keeps no row, so the answer would be empty or an aggregate over nothing; the value the data
holds is a guess the model is shown first (``GUESSED``).

Only words of the column's or its table's own name are dropped, from either end of the value (singular and plural
are one word), only words written in small letters — in the value, or where the value is all small letters, in the
question's words for it: a capital makes the word part of a proper name (``'Mexico City'``, ``'The Jungle Book'``,
``'Love Song'``) —, and at least one word of the value stays; a value the data holds as written is never touched, a
value whose words are not names (``'Italian cuisine'`` on ``food_type``) is left to fail visibly, and so is a
negated test (``NOT x IN (…)``) or one with an ESCAPE. At most ``_MAX_PROBES`` bounded queries for one query; where
its values would need more, none is read (never some values of a list and not the others).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from sqlglot import exp

from core.schema import Schema
from core.sql.repair._names import GUESSED, tokens
from core.sql.repair._scope import filtered_columns

__all__ = ["values_as_held"]

_MAX_PROBES = 6
_FOLDS = (exp.Lower, exp.Upper, exp.Trim)
_LAST_WORD = re.compile(r"[\s_\-]+([^\W\d_]+)$")
_FIRST_WORD = re.compile(r"^([^\W\d_]+)[\s_\-]+")


def values_as_held(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str],
                   matches: Callable[[str], bool | None] | None, question: str = "") -> None:
    """Each ``col = 'v'``, ``col LIKE '%v%'``, ``col IN ('v', …)`` (either side folded by LOWER/UPPER/TRIM) whose
    value carries words of ``col``'s or its table's name at an end: the value without them where ``matches`` says no
    row holds it as written and some row holds it without them."""
    if matches is None:
        return
    found: list[tuple[exp.Expression, exp.Column, exp.Table, str, exp.Literal, str, str]] = []
    for node, column, owner in filtered_columns(tree, schema, dialect, (exp.EQ, exp.Like, exp.ILike, exp.In),
                                                lambda n: c if isinstance(c := _bare(n.this), exp.Column) and _values(
                                                    n) else None):
        names = set(tokens(column.name)) | set(tokens(owner.table.name))
        for literal in _values(node):
            held, why = _without_names(literal.this, names, question), "names"
            trimmed = literal.this.strip()
            if held is None and "%" not in literal.this and trimmed and trimmed != literal.this:
                held, why = trimmed, "spaces"  # ``= ' Toyota'``: a space a tokenizer put at its start
            if held is None and isinstance(node, (exp.Like, exp.ILike)):
                held, why = _regex_as_like(literal.this), "regex"  # ``LIKE '.*Science.*'``
            if held is not None:
                found.append((node, column, owner.node, owner.table.name, literal, held, why))
    if not found or 2 * len(found) > _MAX_PROBES:
        return  # none, or more than the bound allows: none is read rather than some
    probes = [_MAX_PROBES]
    for node, column, table, table_name, literal, held, why in found:
        if _holds(node, literal, literal.this, table, dialect, matches, probes) is not False:
            continue  # the data holds it as written (or could not tell)
        if not _holds(node, literal, held, table, dialect, matches, probes):
            continue
        written = literal.this
        literal.replace(exp.Literal.string(held))
        if why == "regex":
            fixes.append(f"LIKE '{written}' (a regular expression's marks, which LIKE reads as letters): no row of "
                         f"{table_name}.{column.name} matches it, and as LIKE's pattern some do -> '{held}'" + GUESSED)
            continue
        named = "column" if set(tokens(written)) - set(tokens(held)) <= set(tokens(column.name)) else "table"
        dropped = "the spaces at its ends" if why == "spaces" else f"the words that name its {named}"
        fixes.append(f"'{written}': no row of {table_name}.{column.name} holds it, and without {dropped} it is in "
                     f"the data -> '{held}'" + GUESSED)


_REGEX_MARKS = re.compile(r"[\[+?\\|(){}%]")


def _regex_as_like(text: str) -> str | None:
    """A LIKE pattern written as a regular expression (``'.*Science.*'``, ``'^J.*'``, ``'^Jo$'``) as LIKE's (``.*``
    as ``%``, open at an end no ``^`` or ``$`` anchors); None where it has no ``.*`` and not both anchors, or any
    other mark of a regular expression (a lone ``.``, ``[``, ``+``, ``?``, a backslash, ``|``, brackets, ``%``)."""
    start, end = text.startswith("^"), text.endswith("$")
    body = text[1 if start else 0:len(text) - 1 if end else len(text)]
    if _REGEX_MARKS.search(body) or not ((start and end) or ".*" in text) or not body.replace(".*", ""):
        return None
    body = re.sub(r"(?:\.\*)+", "%", body)
    if "." in body:
        return None
    return ("" if start or body.startswith("%") else "%") + body + ("" if end or body.endswith("%") else "%")


def _bare(node: exp.Expression) -> exp.Expression:
    while isinstance(node, _FOLDS):
        node = node.this
    return node


def _values(node: exp.Expression) -> list[exp.Literal]:
    """The text values ``node`` compares its column with."""
    candidates = list(node.expressions) if isinstance(node, exp.In) else [node.expression]
    return [v for v in (_bare(c) for c in candidates if c is not None) if isinstance(v, exp.Literal) and v.is_string]


def _without_names(text: str, names: set[str], question: str) -> str | None:
    """``text`` (LIKE's ``%`` kept at its ends) without the name words at either end of its words, or None when it
    has none or nothing of it would stay. A word is dropped only in small letters (see the module docstring)."""
    lead = len(text) - len(text.lstrip("%"))
    trail = len(text) - len(text.rstrip("%"))
    body = text[lead:len(text) - trail]
    start = body
    said = _as_said(body, question)
    while (last := _LAST_WORD.search(body)) and _droppable(last.group(1), names, said):
        body = body[:last.start()]
    while (first := _FIRST_WORD.match(body)) and _droppable(first.group(1), names, said):
        body = body[first.end():]
    if body == start or len(body.strip("%_ ")) < 2 or not re.search(r"[^\W_]", body):
        return None
    return text[:lead] + body + text[len(text) - trail:]


def _as_said(body: str, question: str) -> str:
    """The value's words as the question writes them, where the value is all small letters and the question has
    them (``'%mexico city%'`` for "Mexico City"); else the value itself."""
    if body != body.lower():
        return body
    words = [w for w in re.split(r"[\s%_]+", body) if w]
    said = re.search(r"[\s\W]+".join(re.escape(w) for w in words), question, re.IGNORECASE) if words else None
    return said.group(0) if said else body


def _droppable(word: str, names: set[str], said: str) -> bool:
    """A name word of the column or table, in small letters where the value is said."""
    written = re.search(rf"\b{re.escape(word)}\b", said, re.IGNORECASE)
    return bool(tokens(word)) and set(tokens(word)) <= names and (written is None or written.group(0).islower())


def _holds(node: exp.Expression, literal: exp.Literal, value: str, table: exp.Expression, dialect: str,
           matches: Callable[[str], bool | None], probes: list[int]) -> bool | None:
    """Whether some row of ``table`` passes ``node`` with ``literal`` as ``value`` (one bounded query)."""
    probes[0] -= 1
    test = node.copy()
    if isinstance(test, exp.In):  # only the one value: the others may hold rows
        position = next(i for i, c in enumerate(node.expressions) if literal is c or literal is _bare(c))
        test.set("expressions", [test.expressions[position]])
    for found in test.find_all(exp.Literal):
        if found.is_string and found.this == literal.this:
            found.replace(exp.Literal.string(value))
    probe = exp.select("1").from_(table.copy()).where(test).limit(1)
    return matches(probe.sql(dialect=dialect))
