"""A syntax slip with two or three readings, settled by the data.

``SUM(amount * 100 END`` lost a ')': it may close after ``amount`` or after ``100``, two readings the guard alone
cannot choose between (``_slips.slip_readings``). Every reading is checked and run, bounded as any query; when all
give the same rows, the answer is the same whichever was meant, and the first is shown with a note saying so. When
any reading fails or the rows differ, nothing is chosen: the parse error stands and the model is asked again.
"""

from __future__ import annotations

from collections.abc import Callable

from core.databases import QueryResult
from core.errors import CairnError, SQLReadings

__all__ = ["agreeing_reading"]


def agreeing_reading(slip: SQLReadings, check: Callable[[str], str],
                     execute: Callable[[str], QueryResult]) -> tuple[str, str]:
    """(the first reading's text, what was done) when every reading of ``slip``, made runnable by ``check``, runs and
    gives the same rows, whole (none cut by a row or byte cap); raises ``slip`` otherwise."""
    runs: list[tuple[str, QueryResult]] = []
    for text, _ in slip.readings:
        try:
            sql = check(text)
            runs.append((sql, execute(sql)))
        except CairnError:
            raise slip from None
    first = runs[0][1]
    if any(r.truncated or not _same(first, r, "ORDER BY" in sql.upper()) for sql, r in runs):
        raise slip
    said = slip.readings[0][1]
    return slip.readings[0][0], f"{said} (it may go in {len(runs)} places, which give the same rows)"


def _same(a: QueryResult, b: QueryResult, ordered: bool) -> bool:
    if len(a.columns) != len(b.columns):
        return False
    if ordered:
        return list(a.rows) == list(b.rows)
    return sorted(map(repr, a.rows)) == sorted(map(repr, b.rows))
