"""Syntax slips with one reading: a connective with nothing after it (``WHERE a = 1 AND`` then ``GROUP BY`` or the end).

Applied only to a query the target dialect cannot parse as written; the slip is dropped and nothing else changes.
"""

from __future__ import annotations

from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import SqlglotError
from sqlglot.tokens import TokenType

__all__ = ["drop_dangling_connectives"]

_CONNECTIVES = (TokenType.AND, TokenType.OR)
_CLAUSE_ENDS = (TokenType.GROUP_BY, TokenType.ORDER_BY, TokenType.LIMIT, TokenType.HAVING, TokenType.R_PAREN,
                TokenType.SEMICOLON, TokenType.UNION, TokenType.EXCEPT, TokenType.INTERSECT, TokenType.WINDOW)


def drop_dangling_connectives(text: str, dialect: str) -> str:
    """``text`` without each AND/OR that ends its clause (the text itself when there is none)."""
    try:
        tokens = list(Dialect.get_or_raise(dialect).tokenize(text))
    except SqlglotError:
        return text
    spans = [(t.start, t.end + 1) for t, after in zip(tokens, [*tokens[1:], None], strict=True)
             if t.token_type in _CONNECTIVES and (after is None or after.token_type in _CLAUSE_ENDS)]
    for start, end in reversed(spans):
        text = text[:start] + text[end:]
    return text
