"""The contract every database backend keeps, runnable against any ``Database`` — a built-in one or a plugin's
(``core/databases/_plugins.py``): a plugin package's own tests call :func:`contract_failures` on its backend.

1. its schema lists the table the test made;
2. writes sent straight to ``execute`` (no guard) fail, and leave the data as it was;
3. the row cap stops the rows and says so; a runaway query stops at the timeout; a cancel stops it;
4. after all that, the connection still answers.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from core.cancellation import Cancellation
from core.databases import Database, QueryLimits
from core.errors import CairnError, QueryCancelled, QueryTimeout

__all__ = ["GENERIC_WRITES", "contract_failures"]

GENERIC_WRITES = (
    "INSERT INTO t VALUES (99)",
    "UPDATE t SET a = 0",
    "DELETE FROM t",
    "DROP TABLE t",
    "CREATE TABLE evil (a INTEGER)",
    "ALTER TABLE t ADD COLUMN evil INTEGER",
)
_COUNTING = "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c{stop}) SELECT {what} FROM c"


def contract_failures(db: Database, writes: Sequence[str] = GENERIC_WRITES, table: str = "t",
                      runaway: str | None = None) -> list[str]:
    """What ``db`` (holding a table ``table`` with rows) does not keep of the contract; empty when it keeps it all.
    ``runaway``: a query that would run for minutes on this backend (default: an endless recursive count)."""
    failures: list[str] = []
    if table not in {t.name.lower() for t in db.schema().tables}:
        failures.append(f"schema: no table {table!r}")
    before = db.execute(f"SELECT COUNT(*) FROM {table}").rows
    for sql in writes:
        try:
            db.execute(sql)
            failures.append(f"write ran: {sql}")
        except CairnError:
            pass
    if db.execute(f"SELECT COUNT(*) FROM {table}").rows != before:
        failures.append("the data changed")
    capped = db.execute(_COUNTING.format(stop=" WHERE n < 5000", what="n"), limits=QueryLimits(max_rows=10))
    if len(capped.rows) != 10 or not capped.truncated or not capped.note:
        failures.append(f"row cap: {len(capped.rows)} rows, truncated={capped.truncated}")
    runaway = runaway or _COUNTING.format(stop="", what="COUNT(*)")
    started = time.perf_counter()
    try:
        db.execute(runaway, limits=QueryLimits(timeout_s=0.3))
        failures.append("timeout: the runaway query finished")
    except QueryTimeout:
        if time.perf_counter() - started > 10:
            failures.append(f"timeout: stopped after {time.perf_counter() - started:.1f} s, not about 0.3 s")
    except CairnError as exc:
        failures.append(f"timeout: {type(exc).__name__}: {exc}")
    cancel = Cancellation()
    threading.Timer(0.3, cancel.cancel).start()
    try:
        db.execute(runaway, limits=QueryLimits(timeout_s=30), cancel=cancel)
        failures.append("cancel: the runaway query finished")
    except QueryCancelled:
        pass
    except CairnError as exc:
        failures.append(f"cancel: {type(exc).__name__}: {exc}")
    if db.execute("SELECT 1").rows != ((1,),):
        failures.append("the connection no longer answers")
    return failures
