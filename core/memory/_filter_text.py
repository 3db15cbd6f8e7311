"""A standing preference in plain words (or already as SQL) -> one filter on a real column, or None.

"Only customers from India", "exclude cancelled orders", "orders over 10k", "country = 'India'".
"""

from __future__ import annotations

import logging
import re
from typing import Any

import sqlglot
from sqlglot import exp

from core.memory._schema_match import (
    Hit,
    filter_spec,
    mentioned_tables,
    named_columns,
    pick_column,
    value_hits,
)
from core.memory._words import NEGATION, POSITIVE_CUES, currency_spans, words
from core.schema import Column, Schema, Table

__all__ = ["filter_from_text"]

logger = logging.getLogger(__name__)

_CMP_PHRASES: tuple[tuple[str, str], ...] = (
    ("no less than", ">="), ("not less than", ">="), ("at least", ">="), ("minimum of", ">="), (">=", ">="),
    ("no more than", "<="), ("not more than", "<="), ("at most", "<="), ("up to", "<="), ("maximum of", "<="),
    ("<=", "<="), ("more than", ">"), ("greater than", ">"), ("higher than", ">"), ("larger than", ">"),
    ("bigger than", ">"), ("exceeding", ">"), ("exceeds", ">"), ("over", ">"), ("above", ">"), ("beyond", ">"),
    ("less than", "<"), ("fewer than", "<"), ("lower than", "<"), ("smaller than", "<"), ("under", "<"),
    ("below", "<"), ("equal to", "="), ("equals", "="), ("exactly", "="), ("<>", "<>"), ("!=", "<>"),
    (">", ">"), ("<", "<"), ("=", "="),
)  # fmt: skip
_NUM = r"[$€£₹]?\s?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s?(?P<mult>k|m|thousand|million|lakhs?|crores?)?\b"
_CMP_RE = re.compile(
    r"(?P<cmp>" + "|".join(re.escape(p) if not p[0].isalpha() else r"\b" + re.escape(p) + r"\b"
                           for p, _ in _CMP_PHRASES) + r")\s*" + _NUM,
    re.IGNORECASE,
)
_SUFFIX_CMP_RE = re.compile(
    _NUM + r"\s*(?P<cmp>or more|or above|and above|or higher|or less|or below|and below|or fewer|\+)",
    re.IGNORECASE,
)
_MULT = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "lakh": 1e5, "lakhs": 1e5, "crore": 1e7,
         "crores": 1e7}  # fmt: skip
_INVERT = {"=": "<>", "<>": "=", ">": "<=", ">=": "<", "<": ">=", "<=": ">", "IN": "NOT IN", "NOT IN": "IN"}
_SQL_OPS = {exp.EQ: "=", exp.NEQ: "<>", exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<="}
_CLAUSE = re.compile(r"[;,]|\bbut\b|\bhowever\b", re.IGNORECASE)
_SQLISH = re.compile(r"[A-Za-z_][\w.\"]*\s*(?:=|<>|!=|>=|<=|>|<|\s(?:not\s+)?in\s*\()", re.IGNORECASE)



def _negated(text: str, toks: list[str]) -> bool:
    low = text.lower()
    if re.search(r"\b(filter|leave|rule|keep|cut)\s+out\b", low) or re.search(r"\bother than\b", low):
        return True
    return any(w in NEGATION for w in toks)


# --- preference filters --------------------------------------------------------------------------------------


def _from_sql(text: str, schema: Schema) -> dict[str, Any] | None:
    """A preference already written as SQL ("country = 'India'"), checked against the schema."""
    m = _SQLISH.search(text)
    if not m:
        return None
    try:
        cond = sqlglot.condition(text[m.start() :].rstrip(" .;"), dialect=schema.dialect)
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError, ValueError):
        return None
    negate = False
    if isinstance(cond, exp.Not):
        negate, cond = True, cond.this
    if isinstance(cond, exp.Paren):
        cond = cond.this
    if isinstance(cond, exp.In) and isinstance(cond.this, exp.Column):
        if not all(isinstance(e, exp.Literal) for e in cond.expressions):
            return None
        col_node, op, value = cond.this, ("NOT IN" if negate else "IN"), [_lit_value(e) for e in cond.expressions]
    elif type(cond) in _SQL_OPS and isinstance(cond.this, exp.Column) and isinstance(cond.expression, exp.Literal):
        col_node, op, value = cond.this, _SQL_OPS[type(cond)], _lit_value(cond.expression)
        if negate:
            op = _INVERT[op]
    else:
        return None
    found = _resolve_column(col_node, schema)
    if found is None:
        return None
    table, column = found
    value = _canonical_values(column, value)
    if op in ("IN", "NOT IN") and len(value) == 1:
        op, value = ("=" if op == "IN" else "<>"), value[0]
    return filter_spec(table.qualified_name, column.name, op, value, schema.dialect)


def _lit_value(node: exp.Literal) -> Any:
    if node.is_string:
        return node.this
    text = node.this
    return int(text) if re.fullmatch(r"-?\d+", text) else float(text)


def _resolve_column(node: exp.Column, schema: Schema) -> tuple[Table, Column] | None:
    qualifier = ".".join(p for p in (node.text("db"), node.table) if p)
    if qualifier:
        t = schema.table(qualifier)
        c = t.column(node.name) if t else None
        return (t, c) if t and c else None
    owners = [(t, c) for t in schema.tables if (c := t.column(node.name)) is not None]
    return owners[0] if len(owners) == 1 else None


def _canonical_values(column: Column, value: Any) -> Any:
    """Values written in another case take the spelling the database uses ("india" -> "India")."""
    by_lower = {h.lower(): h for h in column.value_hints}

    def fix(v: Any) -> Any:
        return by_lower.get(v.lower(), v) if isinstance(v, str) else v

    return [fix(v) for v in value] if isinstance(value, list) else fix(value)


def _number(m: re.Match[str]) -> int | float:
    raw = float(m.group("num").replace(",", ""))
    mult = (m.group("mult") or "").lower()
    value = raw * _MULT.get(mult, 1.0)
    return int(value) if value.is_integer() else value


def _comparison(text: str) -> tuple[str, int | float, tuple[int, int]] | None:
    m = _CMP_RE.search(text)
    if m:
        op = dict(_CMP_PHRASES)[m.group("cmp").lower()]
        return op, _number(m), m.span()
    m = _SUFFIX_CMP_RE.search(text)
    if m:
        cmp = m.group("cmp").lower()
        op = ">=" if cmp == "+" or any(k in cmp for k in ("more", "above", "higher")) else "<="
        return op, _number(m), m.span()
    return None


def filter_from_text(text: str, schema: Schema) -> dict[str, Any] | None:
    """A preference in plain words -> one filter on a real column, or None when nothing maps with confidence."""
    sql_form = _from_sql(text, schema)
    if sql_form is not None:
        return sql_form
    toks = words(text)
    mentioned = mentioned_tables(toks, schema)
    hits: list[tuple[Hit, bool]] = []  # (hit, negated): each clause has its own polarity
    negated = False
    for clause in _CLAUSE.split(text):
        ctoks = words(clause)
        masked = {i for _code, span in currency_spans(clause) for i in range(*span)}
        # A list clause ("never show cancelled, returned or pending") keeps the polarity before it.
        if _negated(clause, ctoks):
            negated = True
        elif POSITIVE_CUES & set(ctoks):
            negated = False
        hits.extend((h, negated) for h in sorted(value_hits(ctoks, schema, masked), key=lambda h: h.span))
    if hits:
        groups: dict[tuple[str, str], list[tuple[Hit, bool]]] = {}
        for h, neg in hits:
            groups.setdefault((h.table.qualified_name, h.column.name), []).append((h, neg))

        def rank(g: list[tuple[Hit, bool]]) -> tuple[int, bool]:
            return len({h.value for h, _ in g}), g[0][0].table.qualified_name in mentioned

        ranked = sorted(groups.values(), key=rank, reverse=True)
        if len(ranked) > 1 and rank(ranked[0]) == rank(ranked[1]):
            logger.debug("preference values match several columns; kept as text")
            return None
        best = ranked[0]
        # "India, but not Germany": the kept values say it all; only all-negative clauses make an exclusion.
        negate = all(neg for _h, neg in best)
        values = list(dict.fromkeys(h.value for h, neg in best if neg == negate))
        table, column = best[0][0].table.qualified_name, best[0][0].column.name
        if len(values) == 1:
            return filter_spec(table, column, "<>" if negate else "=", values[0], schema.dialect)
        return filter_spec(table, column, "NOT IN" if negate else "IN", values, schema.dialect)
    cmp = _comparison(text)
    if cmp is None:
        return None
    op, number, span = cmp
    rest = text[: span[0]] + " " + text[span[1] :]
    picked = pick_column(named_columns(words(rest), schema, numeric=True), mentioned)
    if picked is None:
        return None
    if _negated(rest, words(rest)):
        op = _INVERT[op]
    return filter_spec(picked[0].qualified_name, picked[1].name, op, number, schema.dialect)
