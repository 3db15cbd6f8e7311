"""A number the query formats as text for display (``printf('%.2f', AVG(x))``, ``FORMAT('%.1f', x)``,
``TO_CHAR(SUM(x), 'FM999990.00')``): shown as the number. Cairn's display formats numbers itself; as text a number
sorts as text ('9.50' after '10.00'), cannot be charted and is cut to the written decimals. Where the question asks
for decimals ("to 2 decimal places", "rounded"), the number rounded to them (``ROUND(x, 2)``), still a number. Only
an item of the outermost select list, only a format of one number (digits, a point, a grouping mark: no date, no
words), only around a computed number (an aggregate, arithmetic, a rounding).
"""

from __future__ import annotations

import re

from sqlglot import exp

__all__ = ["numbers_as_numbers"]

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
