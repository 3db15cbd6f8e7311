"""A host language's way of writing a piece of a query, read as the SQL it stands for; each is what no SQL means:

- **a chained comparison**, ``'2023-01-01' <= d <= '2023-03-31'`` (Python's range test): SQL compares the first
  comparison's TRUE or FALSE with the last value (PostgreSQL rejects it; SQLite keeps every row, or none) — read as
  both comparisons, ``'2023-01-01' <= d AND d <= '2023-03-31'``, each as strict as written;
- **Python's ``timedelta(days=30)``** (``weeks``, ``hours``, ``minutes``, ``seconds``; one argument) and dateutil's
  ``relativedelta(months=6)`` (``years``) — no SQL function — read as the interval they are, ``INTERVAL '30 DAY'``
  (the dialect's date arithmetic then writes it: ``date('now', '-30 days')`` on SQLite);
- **Spark's ``ILIKE(x, pattern)``** (and ``LIKE(x, pattern)``) called as a function, which PostgreSQL does not have
  for ILIKE and SQLite reads the other way round (``like(X, Y)`` is ``Y LIKE X``): read as ``x ILIKE pattern``.
"""

from __future__ import annotations

from sqlglot import exp

__all__ = ["python_idioms"]

_UPWARD = (exp.LT, exp.LTE)
_DOWNWARD = (exp.GT, exp.GTE)
_UNITS = {"days": "DAY", "weeks": "WEEK", "hours": "HOUR", "minutes": "MINUTE", "seconds": "SECOND",
          "months": "MONTH", "years": "YEAR"}


def python_idioms(tree: exp.Expression, notes: list[str]) -> None:
    """Read, in place, the idioms of the module docstring; notes back."""
    for node in list(tree.find_all(*_UPWARD, *_DOWNWARD)):
        inner = node.this
        same = _UPWARD if isinstance(node, _UPWARD) else _DOWNWARD
        if isinstance(inner, same) and not isinstance(inner.this, (*_UPWARD, *_DOWNWARD)) and not isinstance(
                node.parent, (*_UPWARD, *_DOWNWARD)):  # ``1 < a < 5 < 9``: a longer chain is left whole
            before = node.sql()
            both = exp.And(this=inner.copy(), expression=type(node)(this=inner.expression.copy(),
                                                                    expression=node.expression.copy()))
            node.replace(exp.Paren(this=both) if isinstance(node.parent, (exp.Or, exp.Not)) else both)
            notes.append(f"{before} (a chained comparison, as Python writes a range) -> {both.sql()}")
    for call in list(tree.find_all(exp.Anonymous)):
        name = call.name.lower()
        if name in ("timedelta", "relativedelta"):
            interval = _interval(call)
            if interval is not None:
                notes.append(f"{call.sql()} (Python's) -> {interval.sql()}")
                call.replace(interval)
        elif name in ("ilike", "like") and len(call.expressions) == 2:
            kind = exp.ILike if name == "ilike" else exp.Like
            read = kind(this=call.expressions[0].copy(), expression=call.expressions[1].copy())
            notes.append(f"{call.sql()} (a LIKE called as a function) -> {read.sql()}")
            call.replace(read)


def _interval(call: exp.Anonymous) -> exp.Expression | None:
    """``timedelta(days=30, hours=2)`` as ``INTERVAL '30' DAY + INTERVAL '2' HOUR``; None where an argument is no
    ``unit=number`` of the units read here."""
    if len(call.expressions) != 1:
        return None  # ``timedelta(days=30, hours=2)``: a sum of intervals SQLite's date modifiers cannot write
    parts: list[exp.Expression] = []
    for arg in call.expressions:
        if not (isinstance(arg, exp.EQ) and isinstance(arg.this, exp.Column) and not arg.this.table
                and isinstance(arg.expression, exp.Literal) and not arg.expression.is_string
                and arg.this.name.lower() in _UNITS):
            return None
        parts.append(exp.Interval(this=exp.Literal.string(arg.expression.this),
                                  unit=exp.var(_UNITS[arg.this.name.lower()])))
    if not parts:
        return None
    total = parts[0]
    for part in parts[1:]:
        total = exp.Add(this=total, expression=part)
    return exp.Paren(this=total) if len(parts) > 1 else total
