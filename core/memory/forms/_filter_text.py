"""A standing preference in plain words (or already as SQL) -> one filter on a real column, or None.

"Only customers from India", "exclude cancelled orders", "orders over 10k", "country = 'India'".
"""

from __future__ import annotations

import logging
import re
from typing import Any

import sqlglot
from sqlglot import exp

from core.memory.forms._condition_text import Atom, parse_condition
from core.memory.enforcement import referencing_links
from core.memory.forms._schema_match import Lookup, filter_spec, mentioned_tables
from core.memory.kernel import INCLUDE_CUES, NEGATION, RESTRICTIVE, normalize, words
from core.schema import Column, Schema, Table

__all__ = ["filter_from_text", "include_from_text"]

logger = logging.getLogger(__name__)

_INVERT = {"=": "<>", "<>": "=", ">": "<=", ">=": "<", "<": ">=", "<=": ">", "IN": "NOT IN", "NOT IN": "IN"}
_SQL_OPS = {exp.EQ: "=", exp.NEQ: "<>", exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<="}
_SQLISH = re.compile(r"[A-Za-z_][\w.\"]*\s*(?:=|<>|!=|>=|<=|>|<|\s(?:not\s+)?in\s*\()", re.IGNORECASE)



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
    negate = bool(set(words(text[: m.start()])) & NEGATION)  # "exclude status = 'returned'"
    if isinstance(cond, exp.Not):
        cond = cond.this
        negate = not negate
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


def _atom_form(atom: Atom, schema: Schema, unknown: list[str]) -> dict[str, Any] | None:
    if atom.column is None:
        return None
    op, value = atom.op, atom.value
    if op == "NOT BETWEEN":
        return None
    out = {"kind": "filter", "table": atom.table.qualified_name, "column": atom.column.name, "op": op,
           "value": value, "sql": atom.expr.sql(dialect=schema.dialect)}  # fmt: skip
    if unknown:
        out["unknown_values"] = unknown
    return out


def include_from_text(text: str, schema: Schema, lookup: Lookup | None = None) -> dict[str, Any] | None:
    """"include cancelled orders in all results" / "don't exclude returns": lifts an exclusion, never a filter."""
    flat = re.sub(r"n't\b", " not", normalize(text))
    cue = INCLUDE_CUES.search(flat)
    if cue is None or RESTRICTIVE.search(flat) or re.search(r"\b(?:keep|kept|take|hold)\b.*\bout\b", flat, re.I):
        return None  # "keep wholesale customers out of my numbers" excludes
    double_negative = bool(re.match(r"(?:do\s+not|never|stop)\s", cue.group(), re.IGNORECASE))
    if not double_negative and (set(words(flat)) & NEGATION):
        return None
    cond = parse_condition(flat, schema, lookup, infer=False)
    if cond is None or any(any(ch.isdigit() for ch in w) for w in cond.leftover):  # words around it are fine
        return None
    cols = {(a.table.qualified_name, a.column.name) for a in cond.atoms if a.column is not None}
    if len(cols) != 1 or len(cond.atoms) != 1 or cond.atoms[0].op not in ("=", "IN", "<>", "NOT IN"):
        return None
    a = cond.atoms[0]
    assert a.column is not None
    return {"kind": "include", "table": a.table.qualified_name, "column": a.column.name, "value": a.value}


def filter_from_text(text: str, schema: Schema, lookup: Lookup | None = None) -> dict[str, Any] | None:
    """A preference in plain words -> one filter on a real column, or None when nothing maps with confidence.

    A clause with a negation cue excludes; a restrictive cue (only, focus on) or a bare statement keeps; when
    both name values of one column ("not retail any more, focus on wholesale") the positive part wins.
    """
    sql_form = _from_sql(text, schema)
    if sql_form is not None:
        return sql_form
    found = _filter_from_words(text, schema, lookup)
    if found is None:
        cut = _REASON.search(text)  # "leave out invoices billed to the USA - another team owns those"
        if cut is not None and cut.start() > 0 and not re.search(r"\b\d", text[cut.end() :]):  # "B2B" is no number
            reason = parse_condition(text[cut.end() :], schema, lookup, infer=False)
            if reason is None or not any(a.column is not None for a in reason.atoms):
                found = _filter_from_words(text[: cut.start()], schema, lookup)
    return found


# a justification after the rule: it names no value, so the rule is read without it
_REASON = re.compile(r"\s+[-–—]+\s+|\s*;\s*|\s+(?:because|kyunki|coz|cause)\s+|"
                     r"\s+as\s+(?=(?:they|those|these|we|i|another|the\s+other|that)\b)", re.IGNORECASE)


def _filter_from_words(text: str, schema: Schema, lookup: Lookup | None) -> dict[str, Any] | None:
    cond = parse_condition(text, schema, lookup, infer=True)
    # A preference is mostly words around one condition ("matter to me", "har jagah"); a number left over is
    # a condition not understood, and then no filter is better than half of one.
    if cond is None or any(any(ch.isdigit() for ch in w) for w in cond.leftover):
        if cond is not None:
            logger.debug("preference words not mapped: %s", cond.leftover)
        return None
    atoms = cond.atoms
    if any(a.column is None for a in atoms):
        return None
    cols = {(a.table.qualified_name, a.column.name) for a in atoms if a.column is not None}
    if len(cols) != 1:
        return None
    if len(atoms) > 1 and any(not a.negated for a in atoms) and any(a.negated for a in atoms):
        atoms = [a for a in atoms if not a.negated]
    if len(atoms) != 1:
        return None
    form = _atom_form(atoms[0], schema, atoms[0].unknown)
    return _through_referrer(form, text, schema) if form is not None else None


def _through_referrer(form: dict[str, Any], text: str, schema: Schema) -> dict[str, Any]:
    """"When I ask about tracks, skip the video files (media type '…')": the condition is on a lookup table
    (MediaType) and the person names a table that references it (Track). Enforced on MediaType alone it would
    never reach a question about tracks, so the form also lists the referencing tables it names (each by a
    one-column foreign key): a query reading Track and not MediaType gets the condition through the key."""
    lookup_table = schema.table(str(form["table"]))
    if lookup_table is None:
        return form
    named = mentioned_tables(words(text), schema) - {lookup_table.qualified_name}
    links = [link for link in referencing_links(schema, lookup_table.qualified_name) if link["table"] in named]
    if not links:
        return form
    scope = _SCOPE.search(text)  # "when I ask about tracks, …": the rule is for tracks, not for media types
    scoped = scope is not None and bool(mentioned_tables(words(scope.group("what")), schema) & {
        str(link["table"]) for link in links})  # fmt: skip
    return {**form, "also_on": links, **({"only_through": True} if scoped else {})}


_SCOPE = re.compile(r"\b(?:when(?:ever)?|if)\s+(?:i|we)\s+(?:ask|look|query|talk|search|check)\w*\s+(?:about|at|for|"
                    r"into)\s+(?P<what>[^,.;]+)", re.IGNORECASE)
