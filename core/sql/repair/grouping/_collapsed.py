"""A question that asks which things, answered with one number that counts them (``Which authors …?`` →
``SELECT COUNT(DISTINCT author.name) FROM …``): the query runs and shows one row, an answer to "how many", never to
"which". Read as the list it counts where the count says what that is — ``COUNT(DISTINCT x)`` counts the distinct
values of ``x``, so ``SELECT DISTINCT x`` with the same FROM and WHERE lists exactly them (a guess the model sees
first, ``GUESSED``) —, and refused with what to write otherwise (``COUNT(*)`` says nothing of what to show): the
model is asked again, and without a model nothing wrong is shown.

Only the outermost SELECT, only where every item is a COUNT (nothing grouped, no HAVING, no window, no LIMIT or
ORDER BY), only for a question in English words that starts by asking for things (which, who, list, show, return,
"what are" …) and says no word of a number or a statistic anywhere ("how many", "number of", "total", "average",
"ratio", "kitne" …: a number in a filter, "over 200 miles", asks for none; an extreme, "which city has the most",
asks for the thing, which a count never names); a question in another script is not read here.
"""

from __future__ import annotations

import re

from sqlglot import exp

from core.errors import SQLValidationError
from core.sql.repair._names import GUESSED

__all__ = ["counts_for_lists"]

_THINGS_ASKED = re.compile(
    r"^\W*(?:please\s+|can you\s+|could you\s+|now\s+)?(?:which|who|whom|whose|list|show|return|give|get|find|name|"
    r"display|enumerate|fetch|retrieve|provide|identify|what\s+(?:are|were)|what're|what\s+(?:\w+\s+){1,3}"
    r"(?:are|were|have|had|do|did|does))\b", re.IGNORECASE)
_NUMBER_ASKED = re.compile(  # a number, an amount or a statistic asked for (a number in a filter asks for none)
    r"\b(?:how\s+(?:many|much)|numbers?\s+of|no\.?\s+of|count\w*|totals?|totall?ing|sum|summed|sums|average\w*|avg|"
    r"mean|median|ratios?|percent\w*|per\s*cent|proportions?|share|fractions?|tally|quantit\w+|frequen\w+|often|"
    r"kitn[aei]|ginti|sankhya|kul|statistics?|stats|summary|summari[sz]e|distribution)\b", re.IGNORECASE)


def counts_for_lists(tree: exp.Expression, dialect: str, fixes: list[str], question: str) -> None:
    """The outermost SELECT shows only COUNTs while the question asks which things: ``COUNT(DISTINCT x)`` read as
    ``SELECT DISTINCT x`` (a guess); any other COUNT refused (``SQLValidationError``) with what to write."""
    if not question or not question.isascii() or not _THINGS_ASKED.search(question) or _NUMBER_ASKED.search(question):
        return
    if not isinstance(tree, exp.Select) or not tree.expressions or any(
            tree.args.get(arg) for arg in ("group", "having", "order", "limit", "offset", "qualify", "distinct")):
        return
    counts = [item.unalias() for item in tree.expressions]
    if not all(isinstance(c, exp.Count) and not c.find(exp.Window) for c in counts) or tree.find(exp.Window):
        return
    counted = counts[0].this
    if len(counts) == 1 and isinstance(counted, exp.Distinct) and len(counted.expressions) == 1:
        value = counted.expressions[0].copy()
        written = tree.expressions[0].sql(dialect=dialect)
        tree.set("expressions", [value])
        tree.set("distinct", exp.Distinct())
        fixes.append(f"SELECT {written}: one number, while the question asks which ones -> SELECT DISTINCT "
                     f"{value.sql(dialect=dialect)}, the values it counts" + GUESSED)
        return
    raise SQLValidationError(
        f"The question asks which ones, and the query only counts them ({', '.join(c.sql(dialect=dialect) for c in counts)}"
        "): one number is no answer to it.",
        hint="Select the rows' columns the question asks for (their names or ids) instead of COUNT.")
