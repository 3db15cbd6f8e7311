"""A number the query formats as text for display (``printf('%.2f', AVG(x))``, ``FORMAT('%.1f', x)``,
``TO_CHAR(SUM(x), 'FM999990.00')``): shown as the number. Cairn's display formats numbers itself; as text a number
sorts as text ('9.50' after '10.00'), cannot be charted and is cut to the written decimals. Where the question asks
for decimals ("to 2 decimal places", "rounded"), the number rounded to them (``ROUND(x, 2)``), still a number. Only
an item of the outermost select list, only a format of one number (digits, a point, a grouping mark: no date, no
words), only around a computed number (an aggregate, arithmetic, a rounding).

And ``ROUND(CAST(a AS FLOAT) / b, 3)`` on PostgreSQL, which has no ROUND of a double to places ("function
round(double precision, integer) does not exist"): read, as the display reads numbers, as the number itself where the
question asks for no decimals or rounding, else rounded as a NUMERIC (``ROUND(CAST(… AS DECIMAL), 3)``).
"""

from __future__ import annotations

import re

from sqlglot import exp

__all__ = ["numbers_as_numbers", "rounded_doubles"]

_PRINTF = re.compile(r"%[-+ 0#,']*\d*(?:\.(\d+))?[fdi]")  # one number: %.2f, %d, %,.1f
_PICTURE = re.compile(r"(?:FM)?[9G,0]*(?:[.D]([09]+))?", re.IGNORECASE)  # TO_CHAR's number picture: 999G990D00
_DECIMALS_ASKED = re.compile(r"\bdecimals?\b|\bround|\bplaces?\b|\bdigits?\b|\bformat", re.IGNORECASE)
_COMPUTED = (exp.AggFunc, exp.Binary, exp.Round, exp.Paren)


def numbers_as_numbers(tree: exp.Expression, dialect: str, fixes: list[str], question: str = "") -> None:
    """Each item of the outermost select list that only formats a computed number as text: the number itself
    (rounded to the written decimals when the question asks for decimals)."""
    if not isinstance(tree, exp.Select):
        return
    for item in tree.expressions:
        node = item.unalias()
        found = _formatted(node)
        if found is None:
            continue
        value, decimals = found
        number = exp.Round(this=value.copy(), decimals=exp.Literal.number(decimals)) if (
            decimals is not None and _DECIMALS_ASKED.search(question)) else value.copy()
        fixes.append(f"{node.sql(dialect=dialect)} -> {number.sql(dialect=dialect)}: the number itself (Cairn's "
                     "display formats numbers; as text they sort and chart as text)")
        node.replace(number)


def _formatted(node: exp.Expression) -> tuple[exp.Expression, int | None] | None:
    """(the number, its written decimals) when ``node`` only formats one computed number as text; else None."""
    pattern: exp.Expression | None = None
    value: exp.Expression | None = None
    if isinstance(node, exp.Anonymous) and node.name.upper() in ("PRINTF", "FORMAT") and len(node.expressions) == 2:
        pattern, value = node.expressions
        shape = _PRINTF
    elif isinstance(node, exp.Format) and len(node.expressions) == 1:
        pattern, value = node.this, node.expressions[0]
        shape = _PRINTF
    elif isinstance(node, exp.TimeToStr) or isinstance(node, exp.Anonymous) and node.name.upper() == "TO_CHAR":
        value = node.this if isinstance(node, exp.TimeToStr) else (node.expressions[0] if node.expressions else None)
        pattern = node.args.get("format") if isinstance(node, exp.TimeToStr) else (
            node.expressions[1] if len(node.expressions) == 2 else None)
        shape = _PICTURE
    else:
        return None
    if not (isinstance(pattern, exp.Literal) and pattern.is_string and isinstance(value, _COMPUTED)):
        return None
    matched = shape.fullmatch(pattern.this.strip())
    if matched is None or (shape is _PICTURE and not re.search(r"[09]", pattern.this)):
        return None
    if matched[1]:  # %.2f: two decimals; a picture's 00 after its point: two
        return value, int(matched[1]) if shape is _PRINTF else len(matched[1])
    return value, 0 if shape is _PRINTF and "f" not in pattern.this else None


_DOUBLE = ("DOUBLE", "FLOAT", "REAL", "DOUBLE PRECISION")


def rounded_doubles(tree: exp.Expression, dialect: str, fixes: list[str], question: str = "") -> None:
    """PostgreSQL's missing ROUND of a double to places, of the module docstring."""
    if dialect not in ("postgres", "redshift"):
        return
    for node in list(tree.find_all(exp.Round)):
        value = node.this
        if node.args.get("decimals") is None or isinstance(value, exp.Cast) and not _double_cast(value) or not any(
                _double_cast(c) and c.find_ancestor(exp.Round) is node for c in value.find_all(exp.Cast)):
            continue  # only a double the writer made: a column's own type is not known here
        asked = bool(_DECIMALS_ASKED.search(question))
        new = exp.Round(this=exp.Cast(this=value.copy(), to=exp.DataType.build("DECIMAL")),
                        decimals=node.args["decimals"].copy()) if asked else value.copy()
        fixes.append(f"{node.sql(dialect=dialect)} (PostgreSQL rounds no double to places) -> "
                     f"{new.sql(dialect=dialect)}" + ("" if asked else ": the number itself, as the question asks "
                                                           "for no rounding"))
        node.replace(new)


def _double_cast(node: exp.Expression) -> bool:
    return isinstance(node, exp.Cast) and node.to.sql(dialect="postgres").upper() in _DOUBLE
