"""A syntax slip with two or three readings, settled by the data.

``SUM(amount * 100 END`` lost a ')': it may close after ``amount`` or after ``100``, two readings the guard alone
cannot choose between (``_slips.slip_readings``). Every reading is checked and run, bounded as any query; when all
give the same rows, the answer is the same whichever was meant, and the first is shown with a note saying so. A
reading the schema or the database rejects (``DATE_TRUNC('month, CURRENT_DATE')``: one argument) is no query at all;
when the ones left agree, they are the answer, as a guess the model is asked about first. When the rows differ, none
runs, or one stopped for time or size, nothing is chosen: the parse error stands and the model is asked again.
"""

from __future__ import annotations

from collections.abc import Callable

from core.databases import QueryResult
from core.errors import CairnError, QueryFailed, SQLReadings, SQLValidationError
from core.sql import GUESSED

__all__ = ["agreeing_reading"]


def agreeing_reading(slip: SQLReadings, check: Callable[[str], str],
                     execute: Callable[[str], QueryResult]) -> tuple[str, str]:
    """(the first reading's text, what was done) when every reading of ``slip``, made runnable by ``check``, runs and
    gives the same rows, whole (none cut by a row or byte cap); raises ``slip`` otherwise."""
    runs: list[tuple[str, str, QueryResult]] = []
    for text, said in slip.readings:
        try:
            sql = check(text)
            runs.append((text, said, execute(sql)))
        except (SQLValidationError, QueryFailed):
            continue  # the schema or the database rejects this reading: it is not one
        except CairnError:
            raise slip from None
    if not runs:
        raise slip
    first = runs[0][2]
    if any(r.truncated or not _same(first, r, "ORDER BY" in text.upper()) for text, _, r in runs):
        raise slip
    text, said, _ = runs[0]
    if len(runs) < len(slip.readings):
        ran = "the one reading" if len(runs) == 1 else f"the {len(runs)} readings, which give the same rows,"
        return text, f"{said} ({ran} of {len(slip.readings)} that the database runs){GUESSED}"
    return text, f"{said} (it may go in {len(runs)} places, which give the same rows)"


def _same(a: QueryResult, b: QueryResult, ordered: bool) -> bool:
    if len(a.columns) != len(b.columns):
        return False
    if ordered:
        return list(a.rows) == list(b.rows)
    return sorted(map(repr, a.rows)) == sorted(map(repr, b.rows))
