"""An edit of the previous query without a model: drop the conditions on a column the person names, change the
row limit, or change the sort, applied to the last SQL with sqlglot. Anything else needs the local model (the
assistant sends the edit request with the previous SQL) and this returns None.

Only the outermost SELECT is edited; the result is SQL to run through the same guard and checks as any other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sqlglot
from sqlglot import exp

from core.schema import Schema

__all__ = ["RefineResult", "refine_by_rules"]

_REMOVE = re.compile(r"\b(remove|drop|take\s+(?:\w+\s+){0,4}off|take\s+off|without|hata\w*|clear|lift|get\s+rid\s+of|"
                     r"undo|no\s+more|ignore|skip|delete)\b", re.IGNORECASE)
_LIMIT = re.compile(r"\b(?:top|first|only|limit(?:\s+to)?|just)\s+(\d{1,6})\b|\b(\d{1,6})\s+(?:rows|results|records)\b",
                    re.IGNORECASE)
_SORT = re.compile(r"\b(?:sort(?:ed)?|order(?:ed)?)\s+(?:it\s+|them\s+)?by\s+(?:the\s+)?([\w ]+?)"
                   r"(?:\s+(asc\w*|desc\w*|highest|lowest|largest|smallest|newest|oldest))?(?:\s+(?:first|instead))?[.!]?$",
                   re.IGNORECASE)
_DATE_WORDS = {"date", "time", "day", "month", "year", "period", "when", "tarikh"}


@dataclass(frozen=True)
class RefineResult:
    sql: str
    change: str  # what was changed, in words


def _word_set(text: str) -> set[str]:
    return {w.rstrip("s") for w in re.findall(r"[a-z0-9]+", text.replace("_", " ").lower())}


def _columns_named(message: str, schema: Schema) -> set[str]:
    said = _word_set(message)
    out: set[str] = set()
    for t in schema.tables:
        for c in t.columns:
            parts = _word_set(c.name)
            is_date = any(k in c.type.lower() for k in ("date", "time")) or "date" in parts
            if (parts and parts <= said) or (is_date and said & _DATE_WORDS):
                out.add(c.name.lower())
    return out


def _strip_conditions(where: exp.Expression, columns: set[str]) -> exp.Expression | None:
    """The WHERE condition without the AND-ed parts that use any of ``columns`` (None when nothing is left)."""
    parts = list(where.flatten()) if isinstance(where, exp.And) else [where]
    kept = [p for p in parts if not any(c.name.lower() in columns for c in p.find_all(exp.Column))]
    if len(kept) == len(parts):
        return where
    if not kept:
        return None
    out = kept[0]
    for p in kept[1:]:
        out = exp.and_(out, p)
    return out


def refine_by_rules(message: str, last_sql: str, schema: Schema) -> RefineResult | None:
    try:
        tree = sqlglot.parse_one(last_sql, read=schema.dialect)
    except sqlglot.errors.SqlglotError:
        return None
    select = tree if isinstance(tree, exp.Select) else None
    if select is None:
        return None
    changes: list[str] = []
    if _REMOVE.search(message):
        columns = _columns_named(message, schema)
        where = select.args.get("where")
        if columns and where is not None:
            left = _strip_conditions(where.this, columns)
            if left is not where.this:
                select.set("where", exp.Where(this=left) if left is not None else None)
                changes.append("removed the condition on " + ", ".join(sorted(columns)))
    m = _LIMIT.search(message)
    if m:
        n = int(m.group(1) or m.group(2))
        select.set("limit", exp.Limit(expression=exp.Literal.number(n)))
        changes.append(f"limit {n}")
    s = _SORT.search(message.strip())
    if s:
        named = _columns_named(s.group(1), schema)
        projected = {e.alias_or_name.lower() for e in select.expressions}
        grouped = bool(select.args.get("group")) or any(e.find(exp.AggFunc) for e in select.expressions)
        shown = [c for c in sorted(named) if c in projected]
        # a grouped answer can only be ordered by what it shows; a plain listing by any column it reads
        target = shown[0] if shown else None if grouped else next(iter(sorted(named)), None)
        if target is not None:
            word = (s.group(2) or "").lower()
            desc = word.startswith("desc") or word in {"highest", "largest", "newest"}
            select.set("order", exp.Order(expressions=[exp.Ordered(this=exp.column(target), desc=desc)]))
            changes.append(f"sorted by {target}{' descending' if desc else ''}")
    if not changes:
        return None
    return RefineResult(select.sql(dialect=schema.dialect), "; ".join(changes))
