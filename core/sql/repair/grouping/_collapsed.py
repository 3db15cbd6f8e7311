"""Counts in the wrong shape for the question. A question that asks which things, answered with one number that counts
them (``Which authors …?`` →
``SELECT COUNT(DISTINCT author.name) FROM …``): the query runs and shows one row, an answer to "how many", never to
"which". Read as the list it counts where the count says what that is — ``COUNT(DISTINCT x)`` counts the distinct
values of ``x``, so ``SELECT DISTINCT x`` with the same FROM and WHERE lists exactly them (a guess the model sees
first, ``GUESSED``) —, and refused with what to write otherwise (``COUNT(*)`` says nothing of what to show): the
model is asked again, and without a model nothing wrong is shown.

Only the outermost SELECT, only where its one item is a COUNT (nothing grouped, no HAVING, no window, no LIMIT or
ORDER BY; two counts may compare things, "which is bigger"), a distinct count read only of one column (the NULL it
never counted left out), only for a question in English words that starts by asking for things (which, who, list,
"return the", "what are" …) and says no word of a number, a size, a yes/no or a statistic anywhere ("how many",
"number", "total", "unique", "size", "whether", "are there any", "#", "kitne", "tadaad" …: a number in a filter,
"over 200 miles", asks for none; an extreme, "which city has the most", asks for the thing, which a count never
names); a question in another script is not read here.

And a question that asks how many, answered with the largest key (``SELECT MAX(o.id) FROM orders o WHERE …``, as if
keys were a running count — they have gaps, and a filter leaves any of them out): the count of that key's distinct
values (a join may repeat them), a guess the
model is shown first; only the one item ``MAX(<a column named id or *_id>)``, never where the question asks for a
largest, last or latest anything.
"""

from __future__ import annotations

import re

from sqlglot import exp

from core.errors import SQLValidationError
from core.sql.repair._names import GUESSED

__all__ = ["counts_by_max_key", "counts_for_lists"]

_THINGS_ASKED = re.compile(
    r"^\W*(?:please\s+|can you\s+|could you\s+|now\s+)?(?:which|who|whom|whose|list|enumerate|name\s+the|"
    r"return\s+the|what\s+(?:are|were)|what're|what\s+(?:\w+\s+){1,3}(?:are|were|have|had|do|did|does))\b",
    re.IGNORECASE)
_NUMBER_ASKED = re.compile(  # a number, an amount, a size or a yes/no asked for (a number in a filter asks for none)
    r"\b(?:how|numbers?|no\.?\s+of|count\w*|totals?|totall?ing|sum|summed|sums|average\w*|avg|mean|median|ratios?|"
    r"percent\w*|per\s*cent|proportions?|share|fractions?|tally|quantit\w+|qty|frequen\w+|often|unique|distinct|"
    r"dau|mau|wau|reach|cardinality|figure|variety|headcount|size|sized|amount|volume|big|bigger|biggest|more|fewer|"
    r"less|whether|(?:is|are|do|does|did|has|have|was|were)\s+any|exist\w*|is\s+there|are\s+there|ever|tadaad|ginti|ginati|kitn[aei]|sankhya|kul|statistics?|"
    r"stats|summary|summari[sz]e|distribution)\b|#", re.IGNORECASE)


def counts_for_lists(tree: exp.Expression, dialect: str, fixes: list[str], question: str) -> None:
    """The outermost SELECT shows only COUNTs while the question asks which things: ``COUNT(DISTINCT x)`` read as
    ``SELECT DISTINCT x`` (a guess); any other COUNT refused (``SQLValidationError``) with what to write."""
    if not question or not question.isascii() or not _THINGS_ASKED.search(question) or _NUMBER_ASKED.search(question):
        return
    if not isinstance(tree, exp.Select) or not tree.expressions or any(
            tree.args.get(arg) for arg in ("group", "having", "order", "limit", "offset", "qualify", "distinct")):
        return
    counts = [item.unalias() for item in tree.expressions]
    if len(counts) != 1 or not isinstance(counts[0], exp.Count) or tree.find(exp.Window):
        return  # several counts may compare things ("which is bigger"): not one number for a list
    counted = counts[0].this
    if isinstance(counted, exp.Distinct) and len(counted.expressions) == 1 and isinstance(
            counted.expressions[0], exp.Column):
        value = counted.expressions[0].copy()
        written = tree.expressions[0].sql(dialect=dialect)
        tree.set("expressions", [value])
        tree.set("distinct", exp.Distinct())
        tree.where(exp.Not(this=exp.Is(this=value.copy(), expression=exp.Null())), append=True, copy=False)
        fixes.append(f"SELECT {written}: one number, while the question asks which ones -> SELECT DISTINCT "
                     f"{value.sql(dialect=dialect)}, the values it counts" + GUESSED)
        return
    raise SQLValidationError(
        f"The question asks which ones, and the query only counts them ({', '.join(c.sql(dialect=dialect) for c in counts)}"
        "): one number is no answer to it.",
        hint="Select the rows' columns the question asks for (their names or ids) instead of COUNT.")


_HOW_MANY = re.compile(r"\b(?:how\s+many|number\s+of|count\s+of|total\s+number|kitn[aei]|tadaad|ginti)\b", re.IGNORECASE)
_EXTREME = re.compile(r"\b(?:highest|largest|biggest|greatest|max\w*|latest|newest|most\s+recent|top|id|ids|first|"
                      r"last(?!\s+(?:\d+|few|several|couple|two|three|four|five|six|ten|twelve)\b|\s+(?:years?|"
                      r"months?|weeks?|days?|quarters?|hours?)\b)|number\s+of\s+the)\b",
                      re.IGNORECASE)


def counts_by_max_key(tree: exp.Expression, dialect: str, fixes: list[str], question: str) -> None:
    """``SELECT MAX(o.id)`` where the question asks how many and for no largest: ``COUNT(DISTINCT o.id)`` (a guess)."""
    if not question or not question.isascii() or not _HOW_MANY.search(question) or _EXTREME.search(question):
        return
    if not isinstance(tree, exp.Select) or len(tree.expressions) != 1 or any(
            tree.args.get(arg) for arg in ("group", "having")) or tree.find(exp.Window):
        return
    item = tree.expressions[0]
    largest = item.unalias()
    key = largest.this if isinstance(largest, exp.Max) else None
    if not isinstance(key, exp.Column) or not re.fullmatch(r"[a-z]?(?:id|ID|Id)|\w+_(?:id|ID)|\w*[a-z]Id", key.name):
        return
    written = largest.sql(dialect=dialect)
    largest.replace(exp.Count(this=exp.Distinct(expressions=[key.copy()])))
    fixes.append(f"{written}: the largest key, where the question asks how many (keys have gaps and filters) -> "
                 f"COUNT(DISTINCT {key.sql(dialect=dialect)})" + GUESSED)
