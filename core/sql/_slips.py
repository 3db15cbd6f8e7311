"""Syntax slips with one reading: a connective with nothing after it (``WHERE a = 1 AND`` then ``GROUP BY`` or the
end), a parenthesis or an END too many or too few, a comma missing between select items.

Applied only to a query the target dialect cannot parse as written (and no other dialect reads); the slip is mended
only where every way of mending it that parses gives the same query, and nothing else changes.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import SqlglotError
from sqlglot.tokens import TokenType

__all__ = ["drop_dangling_connectives", "mend_syntax"]

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


_ENDS_EXPR = (TokenType.VAR, TokenType.IDENTIFIER, TokenType.R_PAREN, TokenType.NUMBER, TokenType.STRING,
              TokenType.STAR, TokenType.END)
_NOT_NAMES = frozenset("""select from where as and or on join left right inner outer full cross group order by having
limit offset case when then else end distinct union all in is not null between like ilike asc desc nulls first last
with over partition exists interval using natural fetch""".split())  # fmt: skip
_BEFORE_CLOSE = (TokenType.FROM, TokenType.WHERE, TokenType.GROUP_BY, TokenType.ORDER_BY, TokenType.LIMIT,
                 TokenType.HAVING, TokenType.ALIAS, TokenType.COMMA, TokenType.AND, TokenType.OR, TokenType.R_PAREN,
                 TokenType.SEMICOLON, TokenType.JOIN, TokenType.ON, TokenType.UNION, TokenType.THEN, TokenType.WHEN,
                 TokenType.ELSE, TokenType.END, TokenType.EQ, TokenType.GT, TokenType.GTE, TokenType.LT,
                 TokenType.LTE, TokenType.NEQ, TokenType.DESC, TokenType.ASC)
_MAX_TRIES = 120


def mend_syntax(text: str, dialect: str, parses: Callable[[str], str | None]) -> tuple[str, str] | None:
    """The one reading of a query that does not parse, by one edit: a ')' too many (where the parentheses first
    close more than they opened), a ')' or an END missing, or a comma missing between two select items. Each place
    the edit may go is tried; ``parses`` gives a parsed query's normalised SQL (None: it does not parse). The edit
    is made only when every place that parses gives the same query: (mended text, what was done), else None."""
    try:
        tokens = list(Dialect.get_or_raise(dialect).tokenize(text))
    except SqlglotError:
        return None
    edits: list[tuple[str, str]] = []
    depth, opened = 0, []
    for i, t in enumerate(tokens):
        if t.token_type == TokenType.L_PAREN:
            depth += 1
            opened.append(i)
        elif t.token_type == TokenType.R_PAREN:
            depth -= 1
            if depth < 0:  # this one, or one before it that closed too early
                edits += [(text[:c.start] + text[c.end + 1:], "removed a ')' too many") for c in tokens[:i + 1]
                          if c.token_type == TokenType.R_PAREN]
                break
            opened.pop()
    if depth > 0 and opened:
        after = opened[-1]
        edits += [(_insert(text, t.start, ") "), "added the missing ')'") for t in tokens[after + 1:]
                  if t.token_type in _BEFORE_CLOSE]
        edits.append((text.rstrip().rstrip(";") + ")", "added the missing ')'"))
    cases = sum(t.token_type == TokenType.CASE for t in tokens) - sum(t.token_type == TokenType.END for t in tokens)
    if cases > 0:
        last_case = max(i for i, t in enumerate(tokens) if t.token_type == TokenType.CASE)
        edits += [(_insert(text, t.start, "END "), "added the END of CASE") for t in tokens[last_case + 1:]
                  if t.token_type in (TokenType.ALIAS, TokenType.COMMA, TokenType.FROM, TokenType.R_PAREN)]
    for a, b, c in zip(tokens, tokens[1:], [*tokens[2:], None], strict=False):
        ends = a.token_type in _ENDS_EXPR or _word(a.text)
        if ends and _word(b.text) and c is not None and c.token_type in (TokenType.DOT, TokenType.L_PAREN) and (
                a.end + 1 <= b.start):
            edits.append((_insert(text, b.start, ", "), "added a missing comma between select items"))
    readings: dict[str, tuple[str, str]] = {}
    for mended, said in edits[:_MAX_TRIES]:
        normal = parses(mended)
        if normal is not None:
            readings.setdefault(normal, (mended, said))
    return next(iter(readings.values())) if len(readings) == 1 else None


def _word(text: str) -> bool:
    """A name or a function name (not a keyword of the statement's structure)."""
    return bool(re.fullmatch(r"[A-Za-z_][\w$]*|\"[^\"]+\"|`[^`]+`", text)) and text.lower() not in _NOT_NAMES


def _insert(text: str, at: int, what: str) -> str:
    return text[:at] + what + text[at:]
