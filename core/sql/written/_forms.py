"""Forms of a clause that no dialect's grammar has, each with one reading, read where the block then reads as one
statement (``OTHER_FORMS``, applied by ``_keywords.spelled_keywords``; sqlglot's parser does read some of them as
something else — ``IN 'a', 'b'`` as ``IN 'a'`` and a table named b, ``4.5f`` as a name):

- a sort direction before its key (``ORDER BY DESC total``);
- a searched CASE without its first WHEN (``CASE x > 5 THEN``: only a condition can stand there), or written as a
  simple CASE whose branches start with a comparison (``CASE x WHEN > 5 THEN``);
- an IN list of values without its brackets (``IN 'a', 'b' ORDER BY``; never POSITION's IN), or in a Python
  list's square brackets (``IN ['a', 'b']``, which SQLite reads as a quoted name);
- a number with another language's type suffix (``4.5f``, ``2021L``);
- ``a / NULLIF(b)``: NULLIF's second argument left out of a divisor, ``NULLIF(b, 0)``;
- other tools' marks: PL/SQL's ``END CASE`` closing a CASE expression, Metabase's optional clause ``[[AND …]]``, a
  linkifier's ``[author.name](http://author.name)``;
- a whole statement written as a derived table, ``(SELECT …) AS result;``;
- commas between a CASE's branches (``THEN 1, ELSE 0``: a comma never stands there);
- a sort direction on a GROUP BY key (``GROUP BY city DESC``, MySQL 5's implicit sort): grouped, and sorted so where
  no ORDER BY says otherwise;
- an output name carried into ORDER BY or GROUP BY with its key (``ORDER BY SUM(x) AS total DESC``): dropped;
- a table listed after a comma with a join's ON (``FROM cars c, sales s ON c.id = s.car_id``): the JOIN.

And ``with_ended`` (``_extract`` applies it to a whole block only): ``WITH result AS (…)`` with no query after the list
read as the last one's rows.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import accumulate

from sqlglot.tokens import Token, Tokenizer, TokenType

from core.sql._slips import PARSE_FAILURES

__all__ = ["OTHER_FORMS", "after_table", "block_tokens", "bracket_depths", "edited", "with_ended"]

_MAX_CHARS = 20_000


# Three slips of a clause's order, each with one reading and in no dialect's grammar (sqlglot's parser does read
# ``IN 'a', 'b'``, as ``IN 'a'`` and a table named b), read where the block then reads: a sort direction before its key (``ORDER BY DESC total``), a searched CASE without its first WHEN
# (``CASE x > 5 THEN``: only a condition can stand there, and a simple CASE's operand is followed by WHEN), and an IN
# list of values without its brackets (``IN 'a', 'b' ORDER BY``: values and commas only, so nothing else is taken in).
_ORDER_ITEM_END = frozenset({TokenType.COMMA, TokenType.LIMIT, TokenType.OFFSET, TokenType.FETCH, TokenType.SEMICOLON,
                             TokenType.UNION, TokenType.EXCEPT, TokenType.INTERSECT, TokenType.R_PAREN})
_VALUE = frozenset({TokenType.STRING, TokenType.NUMBER, TokenType.NATIONAL_STRING})


@lru_cache(maxsize=16)
def block_tokens(block: str) -> tuple[Token, ...]:
    """The block's tokens, once per block for all the forms (none past ``_MAX_CHARS`` or where it cannot be read)."""
    try:
        return tuple(Tokenizer().tokenize(block)) if len(block) <= _MAX_CHARS else ()
    except PARSE_FAILURES:
        return ()


def edited(block: str, edits: list[tuple[int, int, str]]) -> str:
    for start, end, text in sorted(edits, reverse=True):
        block = block[:start] + text + block[end:]
    return block


def bracket_depths(tokens: tuple[Token, ...]) -> list[int]:
    """Each token's bracket depth (an opening bracket counts inside, its closing one outside)."""
    return list(accumulate({TokenType.L_PAREN: 1, TokenType.R_PAREN: -1}.get(t.token_type, 0) for t in tokens))


def after_table(tokens: tuple[Token, ...], j: int) -> int | None:
    """The index after the table reference starting at ``tokens[j]`` (``[schema.]table [AS] [alias]``), or None."""
    names = (TokenType.VAR, TokenType.IDENTIFIER)
    while j + 2 < len(tokens) and tokens[j].token_type in names and tokens[j + 1].token_type == TokenType.DOT:
        j += 2  # schema.table
    if j >= len(tokens) or tokens[j].token_type not in names:
        return None
    j += 1
    if j < len(tokens) and tokens[j].token_type == TokenType.ALIAS:
        j += 1
    if j < len(tokens) and tokens[j].token_type in names:
        j += 1
    return j


def _directions_after(block: str) -> str:
    """``ORDER BY DESC total, ASC name``: each direction written before its key, after it."""
    if not re.search(r"(?i)\b(?:DESC|ASC)\b", block):
        return block
    tokens = block_tokens(block)
    edits: list[tuple[int, int, str]] = []
    for i, token in enumerate(tokens[1:], start=1):
        if token.token_type not in (TokenType.DESC, TokenType.ASC) or tokens[i - 1].token_type not in (
                TokenType.ORDER_BY, TokenType.COMMA) or i + 1 >= len(tokens):
            continue
        if tokens[i - 1].token_type == TokenType.COMMA and not _in_order_list(tokens, i - 1):
            continue
        depth, j = 0, i + 1
        while j < len(tokens) and not (depth == 0 and (tokens[j].token_type in _ORDER_ITEM_END or tokens[j].token_type
                                                       in (TokenType.DESC, TokenType.ASC) or tokens[j].text.upper()
                                                       == "NULLS")):
            depth += {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1}.get(tokens[j].token_type, 0)
            if depth < 0:
                break
            j += 1
        if j == i + 1:
            continue
        edits += [(token.start, tokens[i + 1].start, ""), (tokens[j - 1].end + 1, tokens[j - 1].end + 1,
                                                            f" {token.text}")]
    return edited(block, edits)


def _in_order_list(tokens: tuple[Token, ...], at: int) -> bool:
    """Whether the comma at ``at`` separates the items of an ORDER BY (no clause keyword since the ORDER BY)."""
    depth = 0
    for k in range(at - 1, -1, -1):
        kind = tokens[k].token_type
        depth += {TokenType.R_PAREN: 1, TokenType.L_PAREN: -1}.get(kind, 0)
        if depth < 0:
            return False
        if depth == 0 and kind == TokenType.ORDER_BY:
            return True
        if depth == 0 and kind in (TokenType.SELECT, TokenType.FROM, TokenType.WHERE, TokenType.GROUP_BY):
            return False
    return False


def _case_when(block: str) -> str:
    """``CASE x > 5 THEN 'big' …``: a CASE whose first THEN comes before any WHEN, with WHEN written after CASE."""
    if not re.search(r"(?i)\bCASE\b", block):
        return block
    tokens = block_tokens(block)
    edits: list[tuple[int, int, str]] = []
    for i, token in enumerate(tokens):
        if token.token_type != TokenType.CASE:
            continue
        depth = 0
        for nxt in tokens[i + 1:]:
            depth += {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1, TokenType.CASE: 1, TokenType.END: -1}.get(
                nxt.token_type, 0)
            if depth < 0:
                break
            if depth == 0 and nxt.token_type == TokenType.WHEN:
                break
            if depth == 0 and nxt.token_type == TokenType.THEN:
                if nxt is not tokens[i + 1]:
                    edits.append((token.end + 1, token.end + 1, " WHEN"))
                break
    return edited(block, edits)


def _in_brackets(block: str) -> str:
    """``x IN 'a', 'b'``: a list of values after IN, written without its brackets, in them."""
    if not re.search(r"(?i)\bIN\s*(?:['\d.]|N')", block):  # a value's token after IN
        return block
    tokens = block_tokens(block)
    edits: list[tuple[int, int, str]] = []
    for i, token in enumerate(tokens[:-1]):
        if token.token_type != TokenType.IN or tokens[i + 1].token_type not in _VALUE or _in_position(tokens, i):
            continue
        j = i + 1
        while j + 2 < len(tokens) and tokens[j + 1].token_type == TokenType.COMMA and tokens[j + 2].token_type in _VALUE:
            j += 2
        edits += [(tokens[i + 1].start, tokens[i + 1].start, "("), (tokens[j].end + 1, tokens[j].end + 1, ")")]
    return edited(block, edits)


def _in_position(tokens: tuple[Token, ...], at: int) -> bool:
    """Whether the IN at ``at`` is POSITION's (``POSITION('a' IN name)``), inside that call's brackets."""
    depth = 0
    for k in range(at - 1, -1, -1):
        depth += {TokenType.R_PAREN: 1, TokenType.L_PAREN: -1}.get(tokens[k].token_type, 0)
        if depth < 0:
            return k > 0 and tokens[k - 1].text.upper() == "POSITION"
    return False


# A number with another language's type suffix (C's and Java's ``4.5f``, ``2021L``, ``1.0d``), outside quotes; and an
# IN list written as a Python list, ``IN ['a', 'b']`` (SQLite reads the brackets as a quoted name).
_LIST_VALUE = r"(?:'(?:[^']|'')*'|-?\d+(?:\.\d+)?)"  # a comma between each two: no value split two ways (linear)
_SUFFIXED = re.compile(r"'(?:[^']|'')*'|\"[^\"]*\"|`[^`]*`|\[[^\]\n]*[A-Za-z_ ][^\]\n]*\]|--[^\n]*|"
                       r"(?<![\w.])(\d+(?:\.\d+)?)[fFdDlL]\b|"
                       rf"\b(IN)\s*\[(\s*{_LIST_VALUE}(?:\s*,\s*{_LIST_VALUE})*\s*)\]", re.IGNORECASE)


def _numbers_unsuffixed(block: str) -> str:
    """``x > 4.5f``, ``year = 2021L``: the number without its suffix; ``IN ['a', 'b']``: ``IN ('a', 'b')``."""
    if not re.search(r"\d[fFdDlL]\b|\[", block):
        return block
    return _SUFFIXED.sub(lambda m: m[1] if m[1] else f"{m[2]} ({m[3].strip()})" if m[2] else m[0], block)


def _divisor_guarded(block: str) -> str:
    """``a / NULLIF(b)``: NULLIF written with its one argument as the divisor, read ``NULLIF(b, 0)`` (what a
    divisor is guarded against; NULLIF takes two arguments everywhere)."""
    if "nullif" not in block.lower():
        return block
    tokens = block_tokens(block)
    edits: list[tuple[int, int, str]] = []
    for i, token in enumerate(tokens[:-2]):
        if token.text.upper() != "NULLIF" or tokens[i + 1].token_type != TokenType.L_PAREN or i == 0 or \
                tokens[i - 1].token_type != TokenType.SLASH:
            continue
        depth, j = 0, i + 1
        while j < len(tokens):
            depth += {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1}.get(tokens[j].token_type, 0)
            if depth == 1 and tokens[j].token_type == TokenType.COMMA or depth == 0:
                break
            j += 1
        if j < len(tokens) and depth == 0 and j > i + 2:
            edits.append((tokens[j].start, tokens[j].start, ", 0"))
    return edited(block, edits)


_LAST_CTE = re.compile(r"(?:\bWITH(?:\s+RECURSIVE)?|,)\s*(\"[^\"]+\"|\w+)(?:\s*\([^()]*\))?\s+AS\s*(?:NOT\s+)?"
                       r"(?:MATERIALIZED\s*)?\(", re.IGNORECASE)


def with_ended(block: str) -> str:
    """``WITH result AS (SELECT …)`` with no query after the list: ``… SELECT * FROM result``, the rows of the last
    one (the writer named the answer and stopped)."""
    text = block.strip().rstrip(";").rstrip()
    if not re.match(r"WITH\b", text, re.IGNORECASE) or not text.endswith(")"):
        return block
    depth, depths, opened = 0, {}, {}  # brackets open before each token's start; where each bracket closes
    stack: list[int] = []
    for token in block_tokens(text):
        depths[token.start] = depth
        if token.token_type == TokenType.L_PAREN:
            depth += 1
            stack.append(token.start)
        elif token.token_type == TokenType.R_PAREN and stack:
            depth -= 1
            opened[stack.pop()] = token.start
    names = [m for m in _LAST_CTE.finditer(text) if _depth_at(depths, m.start()) == 0]
    if not names or opened.get(names[-1].end() - 1) != len(text) - 1:
        return block
    return f"{text}\nSELECT * FROM {names[-1][1]}"


def _depth_at(depths: dict[int, int], at: int) -> int:
    """Brackets open at ``at``: those open before the first token at or after it."""
    return next((depths[start] for start in sorted(depths) if start >= at), 0)


def _close_of(text: str, at: int) -> int | None:
    """Where the bracket opened at ``at`` closes (outside quoted values), or None."""
    depth = 0
    for token in block_tokens(text[at:]):
        depth += {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1}.get(token.token_type, 0)
        if depth == 0:
            return at + token.start
    return None


# Marks other tools leave in a query: PL/SQL's ``END CASE`` closing a CASE expression, Metabase's optional clause
# ``[[AND x = 1]]`` (kept: it holds no variable to leave out), a linkifier's ``[author.name](http://author.name)``.
_TOOL_MARK = re.compile(r"'(?:[^']|'')*'|--[^\n]*|\b(END)[ \t]+CASE\b|\[\[([^\[\]{}\n]+)\]\]|"
                        r"\[([\w.]+)\]\((?:https?://)?([\w.]+?)/?\)", re.IGNORECASE)


def _tool_marks(block: str) -> str:
    """``END CASE`` as END, ``[[AND …]]`` as its clause, a Markdown link whose text is its address as the text."""
    if not re.search(r"(?i)\bEND[ \t]+CASE\b|\[\[|\]\(", block):
        return block

    def read(m: re.Match[str]) -> str:
        if m[1]:
            return m[1]
        if m[2]:
            return m[2]
        return m[3] if m[3] and m[3].lower() == (m[4] or "").lower() else m[0]
    return _TOOL_MARK.sub(read, block)


_WRAPPED = re.compile(r"\s*\((\s*(?:SELECT|WITH)\b.*)\)\s*(?:AS\s+)?[A-Za-z_]\w*\s*;?\s*", re.IGNORECASE | re.DOTALL)


def _unwrapped(block: str) -> str:
    """``(SELECT …) AS result;``: a whole statement written as a derived table, its query alone."""
    found = _WRAPPED.fullmatch(block)
    if found is None or _close_of(block, block.index("(")) != found.end(1):
        return block
    return found[1].strip()


_COMPARING = frozenset({TokenType.GT, TokenType.LT, TokenType.GTE, TokenType.LTE, TokenType.EQ, TokenType.NEQ,
                        TokenType.LIKE, TokenType.ILIKE, TokenType.IN, TokenType.BETWEEN, TokenType.IS})


def _case_operand_spread(block: str) -> str:
    """``CASE rating WHEN > 4 THEN 'high' WHEN > 2 THEN 'mid' END``: a simple CASE whose branches start with a
    comparison, read as the searched CASE it means (``CASE WHEN rating > 4 …``), only where every WHEN does."""
    if not re.search(r"(?i)\bCASE\b", block):
        return block
    tokens = block_tokens(block)
    edits: list[tuple[int, int, str]] = []
    for i, token in enumerate(tokens):
        if token.token_type != TokenType.CASE:
            continue
        depth, whens, first = 0, [], None
        for j in range(i + 1, len(tokens)):
            kind = tokens[j].token_type
            if depth == 0 and kind == TokenType.END:
                break
            depth += {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1, TokenType.CASE: 1, TokenType.END: -1}.get(kind, 0)
            if depth == 0 and kind == TokenType.WHEN:
                whens.append(j)
                first = j if first is None else first
        if first is None or first == i + 1 or not all(j + 1 < len(tokens) and tokens[j + 1].token_type in _COMPARING
                                                      for j in whens):
            continue
        operand = block[tokens[i + 1].start:tokens[first - 1].end + 1]
        edits.append((tokens[i + 1].start, tokens[first].start, ""))
        edits += [(tokens[j].end + 1, tokens[j].end + 1, f" {operand}") for j in whens]
    return edited(block, edits)


_CLAUSE_END = frozenset({TokenType.HAVING, TokenType.ORDER_BY, TokenType.LIMIT, TokenType.OFFSET, TokenType.FETCH,
                         TokenType.SEMICOLON, TokenType.UNION, TokenType.EXCEPT, TokenType.INTERSECT, TokenType.WINDOW,
                         TokenType.QUALIFY})


def _case_commas(block: str) -> str:
    """``CASE WHEN x THEN 1, ELSE 0 END``: a comma before a CASE's WHEN or ELSE (never one inside brackets) dropped."""
    if not re.search(r"(?i)\bCASE\b", block) or "," not in block:
        return block
    tokens = block_tokens(block)
    edits, depth, cases = [], 0, []  # the bracket depth of each open CASE
    for i, token in enumerate(tokens):
        kind = token.token_type
        depth += {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1}.get(kind, 0)
        if kind == TokenType.CASE:
            cases.append(depth)
        elif kind == TokenType.END and cases and cases[-1] == depth:
            cases.pop()
        elif kind == TokenType.COMMA and cases and cases[-1] == depth and i + 1 < len(tokens) and tokens[
                i + 1].token_type in (TokenType.WHEN, TokenType.ELSE):
            edits.append((token.start, token.end + 1, ""))
    return edited(block, edits)


def _group_directions(block: str) -> str:
    """``GROUP BY city DESC``: the direction dropped from the grouping and, where the SELECT has no ORDER BY, the rows
    sorted so (MySQL 5 sorted grouped rows by the GROUP BY keys in the direction written)."""
    if not re.search(r"(?i)\bGROUP\s+BY\b[^;]*\b(?:DESC|ASC)\b", block):
        return block
    tokens = block_tokens(block)
    edits: list[tuple[int, int, str]] = []
    depths = bracket_depths(tokens)
    for i, token in enumerate(tokens):
        if token.token_type != TokenType.GROUP_BY:
            continue
        level, j = depths[i], i + 1
        while j < len(tokens) and not (depths[j] == level and tokens[j].token_type in _CLAUSE_END) and depths[j] >= level:
            j += 1
        directions = [k for k in range(i + 1, j) if depths[k] == level and tokens[k].token_type in (
            TokenType.DESC, TokenType.ASC)]
        if not directions:
            continue
        keys = block[tokens[i + 1].start:tokens[j - 1].end + 1]
        edits += [(tokens[k - 1].end + 1, tokens[k].end + 1, "") for k in directions]
        end = j
        while end < len(tokens) and depths[end] >= level and not (depths[end] == level and tokens[end].token_type in (
                TokenType.ORDER_BY, TokenType.LIMIT, TokenType.OFFSET, TokenType.FETCH, TokenType.SEMICOLON,
                TokenType.UNION, TokenType.EXCEPT, TokenType.INTERSECT)):
            end += 1
        if end < len(tokens) and tokens[end].token_type == TokenType.ORDER_BY:
            continue  # its own ORDER BY decides the order
        at = tokens[end - 1].end + 1
        edits.append((at, at, f" ORDER BY {keys}"))
    return edited(block, edits)


def _sort_key_aliases(block: str) -> str:
    """``ORDER BY SUM(price) AS total DESC``: an output name carried with its key into ORDER BY or GROUP BY, where no
    name can be given, dropped (the key stays)."""
    if not re.search(r"(?i)\b(?:ORDER|GROUP)\s+BY\b[^;]*\bAS\b", block):
        return block
    tokens = block_tokens(block)
    depths = bracket_depths(tokens)
    edits: list[tuple[int, int, str]] = []
    for i, token in enumerate(tokens):
        if token.token_type not in (TokenType.ORDER_BY, TokenType.GROUP_BY):
            continue
        level, j = depths[i], i + 1
        while j < len(tokens) and depths[j] >= level and not (depths[j] == level and tokens[j].token_type in (
                _CLAUSE_END | {TokenType.GROUP_BY})):
            if tokens[j].token_type == TokenType.ALIAS and depths[j] == level and j + 1 < len(tokens) and tokens[
                    j + 1].token_type in (TokenType.VAR, TokenType.IDENTIFIER):
                edits.append((tokens[j - 1].end + 1, tokens[j + 1].end + 1, ""))
            j += 1
    return edited(block, edits)


def _comma_joins(block: str) -> str:
    """``FROM cars c, sales s ON c.id = s.car_id``: a table listed after a comma with the ON of a join, read as the
    JOIN its ON says (a comma takes no ON)."""
    if "," not in block or not re.search(r"(?i)\bON\b", block):
        return block
    tokens = block_tokens(block)
    depths = bracket_depths(tokens)
    edits: list[tuple[int, int, str]] = []
    clause: dict[int, TokenType] = {}
    for i, token in enumerate(tokens):
        if token.token_type in (TokenType.SELECT, TokenType.FROM, TokenType.WHERE, TokenType.GROUP_BY,
                                TokenType.ORDER_BY, TokenType.HAVING):
            clause[depths[i]] = token.token_type
        if token.token_type != TokenType.COMMA or clause.get(depths[i]) != TokenType.FROM:
            continue
        j = after_table(tokens, i + 1)
        if j is not None and j < len(tokens) and tokens[j].token_type == TokenType.ON:
            edits.append((token.start, token.end + 1, " JOIN"))
    return edited(block, edits)


OTHER_FORMS = (_directions_after, _case_when, _in_brackets, _numbers_unsuffixed, _divisor_guarded, _tool_marks,
               _unwrapped, _case_operand_spread, _case_commas, _group_directions, _sort_key_aliases, _comma_joins)
