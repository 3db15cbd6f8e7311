"""Where the words of a fact land in the schema (tables, columns, cached values) and the SQL built for them.

Nothing here guesses: a lookup that is not clear returns None or nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.tokens import Tokenizer

from core.memory.enforcement import sql_literal as _literal
from core.memory.kernel import GENERIC_COL_WORDS, STOP, demonym_of, find_seq, place_candidates, words
from core.schema import Column, Schema, Table

__all__ = [
    "OP_BUILDERS",
    "Hit",
    "column_expr",
    "filter_spec",
    "is_numeric",
    "mentioned_tables",
    "named_columns",
    "pick_column",
    "resolve_values",
    "text_columns",
    "value_hits",
]

# (table, column, values as written) -> {written: the database's spelling, or None when the column lacks it}
Lookup = Callable[[str, str, Sequence[str]], Mapping[str, "str | None"]]

OP_BUILDERS = {"=": exp.EQ, "<>": exp.NEQ, ">": exp.GT, ">=": exp.GTE, "<": exp.LT, "<=": exp.LTE}

# --- SQL building --------------------------------------------------------------------------------------------


_KEYWORDS = frozenset(k.split()[0] for k in Tokenizer.KEYWORDS)


@lru_cache(maxsize=4096)
def _needs_quotes(name: str, dialect: str) -> bool:
    safe = r"[a-z_][a-z0-9_]*" if dialect == "postgres" else r"[A-Za-z_][A-Za-z0-9_]*"
    if not re.fullmatch(safe, name) or name.upper() in _KEYWORDS:
        return True
    try:
        parsed = sqlglot.parse_one(f"SELECT {name} FROM t", read=dialect)
    except sqlglot.errors.ParseError:
        return True
    sel = parsed.selects[0] if isinstance(parsed, exp.Select) and parsed.selects else None
    return not (isinstance(sel, exp.Column) and sel.name == name)


def _ident(name: str, dialect: str) -> exp.Identifier:
    return exp.to_identifier(name, quoted=_needs_quotes(name, dialect))


def column_expr(table: str, column: str, dialect: str) -> exp.Column:
    parts = table.split(".")
    db = _ident(parts[0], dialect) if len(parts) == 2 else None
    return exp.Column(this=_ident(column, dialect), table=_ident(parts[-1], dialect), db=db)


def filter_spec(table: str, column: str, op: str, value: Any, dialect: str) -> dict[str, Any]:
    """A filter dict with its SQL built by sqlglot (quoting right for ``dialect``). ``table`` is qualified."""
    col = column_expr(table, column, dialect)
    if op in ("IN", "NOT IN"):
        values = list(value) if isinstance(value, (list, tuple)) else [value]
        cond: exp.Expression = exp.In(this=col, expressions=[_literal(v) for v in values])
        if op == "NOT IN":
            cond = exp.Not(this=cond)
        value = values
    else:
        cond = OP_BUILDERS[op](this=col, expression=_literal(value))
    return {"kind": "filter", "table": table, "column": column, "op": op, "value": value,
            "sql": cond.sql(dialect=dialect)}  # fmt: skip


# --- schema lookups ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hit:
    table: Table
    column: Column
    value: Any
    span: tuple[int, int]


def is_numeric(col: Column) -> bool:
    t = col.type.lower()
    return any(k in t for k in ("int", "numeric", "decimal", "real", "double", "float", "money", "number"))


def mentioned_tables(toks: list[str], schema: Schema) -> set[str]:
    return {t.qualified_name for t in schema.tables if find_seq(toks, words(t.name)) is not None}


def _id_like(table: Table, col: Column) -> bool:
    cw = words(col.name)
    return col.name in table.primary_key or any(w in GENERIC_COL_WORDS for w in cw[-1:])


def named_columns(toks: list[str], schema: Schema, *, numeric: bool | None) -> list[tuple[Table, Column, int]]:
    """Columns the text names: all their words (strength 2), or a distinctive one of them (strength 1)."""
    present = set(toks)
    out: list[tuple[Table, Column, int]] = []
    for t in schema.tables:
        twords = set(words(t.name))
        for c in t.columns:
            if numeric is not None and is_numeric(c) != numeric:
                continue
            if _id_like(t, c):
                continue
            cw = [w for w in words(c.name) if w not in GENERIC_COL_WORDS]
            if cw and find_seq(toks, cw) is not None:
                out.append((t, c, 2))
            elif any(w in present and w not in twords and w not in STOP and len(w) > 2 for w in cw):
                out.append((t, c, 1))
    return out


def pick_column(cands: list[tuple[Table, Column, int]], mentioned: set[str]) -> tuple[Table, Column] | None:
    """The one clearly named column: strongest match, then one in a mentioned table; None when tied."""
    if not cands:
        return None
    best = max(s for _t, _c, s in cands)
    top = [(t, c) for t, c, s in cands if s == best]
    if len(top) > 1:
        top = [(t, c) for t, c in top if t.qualified_name in mentioned] or top
    return top[0] if len(top) == 1 else None


def value_hits(toks: list[str], schema: Schema, masked: set[int]) -> list[Hit]:
    hits: list[Hit] = []
    for t in schema.tables:
        for c in t.columns:
            for hint in c.value_hints:
                hw = words(hint)
                if not hw or (len(hw) == 1 and (hw[0] in STOP or len(hw[0]) < 2)):
                    continue
                span = find_seq(toks, hw)
                if span is None and len(hw) == 1:
                    for i, w in enumerate(toks):
                        if demonym_of(w, hw[0]):
                            span = (i, i + 1)
                            break
                if span is None and len(hw) == 1 and len(hw[0]) >= _TYPO_MIN:
                    span = _typo_of(toks, hw[0])
                if span is not None and not any(i in masked for i in range(*span)):
                    hits.append(Hit(t, c, hint, span))
    return hits


_TYPO_MIN = 6  # "pendng" for "pending", "Germny" for "Germany": one slip in a long value


def _typo_of(toks: list[str], value: str) -> tuple[int, int] | None:
    """The one token that is ``value`` with one letter dropped, added, changed or two swapped (same first
    letter, so "retail" never reads "detail")."""
    found = [i for i, w in enumerate(toks) if len(w) >= _TYPO_MIN - 1 and w[0] == value[0] and w != value
             and _one_edit(w, value)]  # fmt: skip
    return (found[0], found[0] + 1) if len(found) == 1 else None


def _one_edit(a: str, b: str) -> bool:
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
                                  and a[diff[1]] == b[diff[0]])  # fmt: skip
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


def text_columns(table: Table) -> list[Column]:
    """Columns that hold words (not numbers, dates or keys)."""
    return [c for c in table.columns if not is_numeric(c) and not _id_like(table, c)
            and not any(k in c.type.lower() for k in ("date", "time", "bool"))]  # fmt: skip


def _by_demonym(table: Table, column: Column, found: dict[str, str | None], lookup: Lookup) -> dict[str, str | None]:
    """Values the column lacks as written that name a place it holds ("Indian" for India): looked up once."""
    tries = {w: place_candidates(w) for w, v in found.items() if v is None}
    wanted = sorted({c for cs in tries.values() for c in cs})
    if not wanted:
        return found
    try:
        answer = lookup(table.qualified_name, column.name, wanted)
    except Exception:  # noqa: BLE001 - a lookup that fails finds nothing
        return found
    out = dict(found)
    for w, cands in tries.items():
        hits = list(dict.fromkeys(answer[c] for c in cands if answer.get(c)))
        if len(hits) == 1:
            out[w] = hits[0]
    return out


def resolve_values(
    table: Table, column: Column, written: Sequence[str], lookup: Lookup | None
) -> tuple[list[str], list[str]] | None:
    """The database's spelling of each value named (in order, none dropped) and those the column lacks.

    With ``lookup`` the data answers. Without it the cached hints answer: Cairn's introspection caches hints
    only for a column with at most MAX_VALUE_HINTS distinct values in the rows it read, so a column that has
    hints has them all, and a value outside them is unknown; a column without hints cannot tell, and the
    value is kept as written without being flagged. None when the lookup fails.
    """
    by_lower = {h.lower(): h for h in column.value_hints}
    found: dict[str, str | None] = {}
    if lookup is not None:
        try:
            answer = lookup(table.qualified_name, column.name, list(written))
        except Exception:  # noqa: BLE001 - a lookup that fails falls back on the hints
            answer = None
        if answer is not None:
            found = {w: answer.get(w) for w in written}
    if not found:
        complete = bool(column.value_hints)
        found = {w: by_lower.get(w.lower(), None if complete else w) for w in written}
    if lookup is not None and found and any(v is None for v in found.values()):
        found = _by_demonym(table, column, found, lookup)
    values, unknown = [], []
    for w in written:
        spelled = found.get(w)
        values.append(spelled if spelled is not None else w)
        if spelled is None:
            unknown.append(w)
    return list(dict.fromkeys(values)), list(dict.fromkeys(unknown))
