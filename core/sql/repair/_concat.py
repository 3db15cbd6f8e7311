"""String concatenation written with ``+`` (T-SQL, Access): ``first_name + ' ' + last_name``.

Standard SQL has no ``+`` between text values: PostgreSQL rejects it, and SQLite runs it as arithmetic on each
text's numeric prefix (``'Ada' + ' ' + 'Byron'`` is 0). Neither is a query that already runs correctly, so such an
addition becomes ``||`` when an operand is surely words: a string literal that is not a number, an interval or a
date (``price + '10'`` and ``order_date + '1 day'`` are left alone), another concatenation, or a text column of the
schema. On SQLite a text column counts only when its known values include words: one holding numbers as text
(``'12' + '3'`` is 15, as meant) or whose values are unknown is left as written.
"""

from __future__ import annotations

import re

from sqlglot import exp

from core.schema import Schema
from core.sql.repair._scope import column_sources, scope_sources, scopes

__all__ = ["repair_concat"]

_TEXT_TYPES = re.compile(r"char|text|string|citext|name\b", re.IGNORECASE)
_NOT_TEXT_LITERAL = re.compile(
    r"\s*[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?\s*|\s*[+-]?\d+\s*[a-z]+(\s+[+-]?\d+\s*[a-z]+)*\s*|\s*\d{1,4}[-/:].*",
    re.IGNORECASE,
)  # numbers, intervals ('1 day'), dates and times: PostgreSQL reads them as the other operand's type
_NUMBER = re.compile(r"[-+]?(\d+(\.\d*)?|\.\d+)(e[-+]?\d+)?", re.IGNORECASE)


def _text_type(col: exp.Column, sources: list, dialect: str) -> bool:
    owners = column_sources(col, sources, dialect)
    if len(owners) != 1 or owners[0].table is None:
        return False
    name = owners[0].has(col.this, dialect)
    column = next((c for c in owners[0].table.columns if c.name == name), None)
    if column is None or not _TEXT_TYPES.search(column.type or ""):
        return False
    return dialect != "sqlite" or any(not _NUMBER.fullmatch(str(v).strip()) for v in column.value_hints)


def repair_concat(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str]) -> None:
    """Turn ``+`` between text values into ``||``, in place."""
    for scope in scopes(tree):
        sources = scope_sources(scope, schema, dialect)

        def text(node: exp.Expression) -> bool:
            node = node.unnest() if isinstance(node, exp.Paren) else node
            if isinstance(node, exp.Literal):
                return node.is_string and not _NOT_TEXT_LITERAL.fullmatch(node.this)
            if isinstance(node, (exp.DPipe, exp.Concat, exp.Upper, exp.Lower, exp.Trim)):
                return True
            return isinstance(node, exp.Column) and isinstance(node.this, exp.Identifier) and _text_type(
                node, sources, dialect)

        adds = [n for n in scope.walk() if isinstance(n, exp.Add)]
        for node in reversed(adds):  # innermost first: (a + ' ') + b
            if text(node.this) or text(node.expression):
                other = node.expression if text(node.this) else node.this
                if isinstance(other, exp.Literal) and not other.is_string:
                    continue  # text + 1: not a concatenation either; leave it to the database
                new = exp.DPipe(this=node.this, expression=node.expression, safe=True)
                node.replace(new)
                fixes.append("text joined with + -> ||")
