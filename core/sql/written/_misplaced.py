"""A word or a mark of SQL put where the grammar has no place for it, each with one reading (``MISPLACED``, applied by
``_keywords.spelled_keywords`` only to a block that does not read as written — but for the first, which sqlglot
reads as a column named DESC, and ``names_rejoined`` —, and kept only where it then reads):

- a comma before a sort direction (``ORDER BY total, DESC``): a direction never follows a comma, it is the key's;
- an output name inside an aggregate's brackets (``SUM(amount AS total)``): the name after the call (never in
  CAST, whose ``AS`` names the type);
- DISTINCT outside an aggregate's brackets (``COUNT DISTINCT(x)``, ``COUNT DISTINCT x``): ``COUNT(DISTINCT x)``;
- CAST's type after a comma (``CAST(x, FLOAT)``, as other languages' casts write it): ``CAST(x AS FLOAT)``;
- a WITH query's body without its brackets (``WITH t AS SELECT … SELECT … FROM t``): the body up to the next name of
  the list or the statement's own SELECT, bracketed;
- the Hindi-English ``aur`` (and) and ``ya`` (or) between a WHERE's or HAVING's conditions, outside quoted values;
- WHERE for a join's ON (``JOIN orders o WHERE o.cid = c.id JOIN …``): a WHERE right after a joined table that has
  no ON, where another JOIN or WHERE of the same query follows it (one query has one WHERE) or the join is inner
  (then the two readings keep the same rows); a lone outer join's is left as written;
- a window without its brackets (``RANK() OVER PARTITION BY a ORDER BY b AS r``): bracketed up to its name (AS), or,
  with no name, up to FROM where no comma stands before it (a comma there may end the window or list a tie-break);
- PARTITION BY at a SELECT's own level, in no window (``… FROM t PARTITION BY make``): GROUP BY, what it partitions
  by.
"""

from __future__ import annotations

import re

from sqlglot.tokens import Token, TokenType

from core.sql.written._forms import after_table, block_tokens, bracket_depths, edited

__all__ = ["MISPLACED", "comma_directions", "names_joined", "names_rejoined"]

_AGGREGATES = frozenset({"SUM", "AVG", "COUNT", "MIN", "MAX", "TOTAL", "ROUND", "COALESCE", "GROUP_CONCAT",
                         "STRING_AGG", "ARRAY_AGG", "MEDIAN", "STDDEV", "VARIANCE"})
_COUNTED = frozenset({"SUM", "AVG", "COUNT", "MIN", "MAX", "TOTAL", "GROUP_CONCAT", "STRING_AGG", "ARRAY_AGG"})
_NAMES = (TokenType.VAR, TokenType.IDENTIFIER)
_SPOKEN = {"AUR": "AND", "YA": "OR"}
_BEFORE_A_NAME = frozenset({"AS", "SELECT", "FROM", "JOIN", "ON", "BY", "WHERE", "AND", "OR", "NOT", "DISTINCT", "WITH",
                            "USING", "THEN", "ELSE", "WHEN", "CASE", "IN", "IS", "LIKE", "HAVING", "UNION", "ALL",
                            "INTO", "TABLE", "OVER", "PARTITION", "LIMIT", "OFFSET", "SET", "RETURNING", "END"})
_WORD = re.compile(r"[A-Za-z0-9_]+")  # a name as written, unquoted (a keyword too: ``departure_ time``)


def _closing(tokens: tuple[Token, ...], depths: list[int], at: int) -> int | None:
    """The index of the bracket closing the one opened at ``at``."""
    for j in range(at + 1, len(tokens)):
        if depths[j] < depths[at]:
            return j
    return None


def names_rejoined(block: str) -> str:
    """``o.customer _id``, ``customer_ id``: a name broken by a space beside its underscore (sqlglot reads the piece as
    an alias), written whole — only where the space stands right before or after an underscore, on one line. Applied
    whether or not the block reads, like ``comma_directions``."""
    if " _" not in block and "_ " not in block:
        return block
    tokens = block_tokens(block)
    return edited(block, [(a.end + 1, b.start, "") for a, b in zip(tokens, tokens[1:], strict=False)
                           if _WORD.fullmatch(block[a.start:a.end + 1]) and _WORD.fullmatch(block[b.start:b.end + 1])
                           and a.end + 1 < b.start and (a.text.endswith("_") or b.text.startswith("_"))
                           and a.text.upper() not in _BEFORE_A_NAME
                           and a.text.strip("_") and b.text.strip("_") and not block[a.end + 1:b.start].strip(" \t")])


def names_joined(block: str, names: frozenset[str]) -> str:
    """``paper.pap erid``, ``u.coun try``: a name of the schema broken by a space anywhere (a tokenizer's slip),
    written whole — only where the two pieces together are one of ``names`` (lower case: the schema's columns) and
    neither piece is one, unquoted, on one line."""
    tokens = block_tokens(block)
    return edited(block, [(a.end + 1, b.start, "") for a, b in zip(tokens, tokens[1:], strict=False)
                          if a.token_type == b.token_type == TokenType.VAR and a.end + 1 < b.start
                          and not block[a.end + 1:b.start].strip(" \t") and (a.text + b.text).lower() in names
                          and a.text.lower() not in names and b.text.lower() not in names
                          and block[a.start - 1:a.start] not in ("[", "`", '"')])  # never inside quotes


def comma_directions(block: str) -> str:
    """``ORDER BY total, DESC``: sqlglot reads the direction as a column named DESC, so this one is applied whether
    or not the block reads as written (an unquoted DESC is never a name)."""
    tokens = block_tokens(block)
    return edited(block, [(tokens[i - 1].start, tokens[i - 1].end + 1, " ") for i in range(1, len(tokens))
                           if tokens[i].token_type in (TokenType.DESC, TokenType.ASC)
                           and tokens[i - 1].token_type == TokenType.COMMA])


def _aliases_in_calls(block: str) -> str:
    tokens = block_tokens(block)
    depths = bracket_depths(tokens)
    edits: list[tuple[int, int, str]] = []
    for i in range(len(tokens) - 1):
        if tokens[i].text.upper() not in _AGGREGATES or tokens[i + 1].token_type != TokenType.L_PAREN:
            continue
        close = _closing(tokens, depths, i + 1)
        alias = close - 2 if close is not None and close >= i + 4 else None
        if alias is None or tokens[alias].token_type != TokenType.ALIAS or depths[alias] != depths[i + 1] or \
                tokens[alias + 1].token_type not in _NAMES:
            continue
        name = block[tokens[alias + 1].start:tokens[alias + 1].end + 1]
        edits += [(tokens[alias - 1].end + 1, tokens[close].start, ""), (tokens[close].end + 1, tokens[close].end + 1,
                                                                           f" AS {name}")]
    return edited(block, edits)


def _distinct_outside(block: str) -> str:
    tokens = block_tokens(block)
    depths = bracket_depths(tokens)
    edits: list[tuple[int, int, str]] = []
    for i in range(len(tokens) - 2):
        if tokens[i].text.upper() not in _COUNTED or tokens[i + 1].token_type != TokenType.DISTINCT:
            continue
        if tokens[i + 2].token_type == TokenType.L_PAREN:
            close = _closing(tokens, depths, i + 2)
            if close is None:
                continue
            inner = block[tokens[i + 2].end + 1:tokens[close].start]
            edits.append((tokens[i].end + 1, tokens[close].end + 1, f"(DISTINCT {inner.strip()})"))
        elif tokens[i + 2].token_type in _NAMES:
            end = i + 2
            while end + 2 < len(tokens) and tokens[end + 1].token_type == TokenType.DOT and tokens[
                    end + 2].token_type in _NAMES:
                end += 2  # t.col
            edits.append((tokens[i].end + 1, tokens[end].end + 1,
                          f"(DISTINCT {block[tokens[i + 2].start:tokens[end].end + 1]})"))
    return edited(block, edits)


def _cast_commas(block: str) -> str:
    tokens = block_tokens(block)
    depths = bracket_depths(tokens)
    edits: list[tuple[int, int, str]] = []
    for i in range(len(tokens) - 1):
        if tokens[i].text.upper() not in ("CAST", "TRY_CAST") or tokens[i + 1].token_type != TokenType.L_PAREN:
            continue
        close = _closing(tokens, depths, i + 1)
        commas = [j for j in range(i + 2, close or i) if depths[j] == depths[i + 1] and tokens[
            j].token_type == TokenType.COMMA]
        if len(commas) == 1 and commas[0] + 1 < (close or 0) and tokens[commas[0] + 1].token_type != TokenType.STRING:
            edits.append((tokens[commas[0]].start, tokens[commas[0]].end + 1, " AS"))
    return edited(block, edits)


def _bodies_bracketed(block: str) -> str:
    tokens = block_tokens(block)
    if not tokens or tokens[0].token_type != TokenType.WITH:
        return block
    depths = bracket_depths(tokens)
    edits: list[tuple[int, int, str]] = []
    for i in range(1, len(tokens) - 1):
        if not (tokens[i].token_type == TokenType.ALIAS and tokens[i + 1].token_type == TokenType.SELECT
                and depths[i] == 0 and tokens[i - 1].token_type in _NAMES):
            continue
        end = None
        for j in range(i + 2, len(tokens)):
            if depths[j] != 0:
                continue
            kind = tokens[j].token_type
            if kind == TokenType.SELECT and tokens[j - 1].token_type not in (
                    TokenType.UNION, TokenType.INTERSECT, TokenType.EXCEPT, TokenType.ALL, TokenType.DISTINCT):
                end = j  # the statement's own SELECT
            elif kind == TokenType.COMMA and j + 2 < len(tokens) and tokens[j + 1].token_type in _NAMES and tokens[
                    j + 2].token_type == TokenType.ALIAS:
                end = j  # the next name of the WITH list
            if end is not None:
                break
        if end is None:
            return block
        last = end - 1
        edits += [(tokens[i + 1].start, tokens[i + 1].start, "("), (tokens[last].end + 1, tokens[last].end + 1, ")")]
    return edited(block, edits)


_OPERAND_ENDS = frozenset({TokenType.VAR, TokenType.IDENTIFIER, TokenType.STRING, TokenType.NUMBER,
                           TokenType.R_PAREN, TokenType.NULL, TokenType.TRUE, TokenType.FALSE})
_NOT_AFTER = frozenset({TokenType.EQ, TokenType.NEQ, TokenType.GT, TokenType.GTE, TokenType.LT, TokenType.LTE,
                        TokenType.DOT, TokenType.COMMA, TokenType.R_PAREN, TokenType.IS, TokenType.IN,
                        TokenType.LIKE, TokenType.BETWEEN, TokenType.ALIAS})


def _spoken_conjunctions(block: str) -> str:
    tokens = block_tokens(block)
    edits: list[tuple[int, int, str]] = []
    clause = None
    for k, token in enumerate(tokens):
        if token.token_type in (TokenType.WHERE, TokenType.HAVING, TokenType.SELECT, TokenType.FROM,
                                TokenType.GROUP_BY, TokenType.ORDER_BY, TokenType.ON):
            clause = token.token_type
        elif token.token_type == TokenType.VAR and token.text.upper() in _SPOKEN and clause in (
                TokenType.WHERE, TokenType.HAVING, TokenType.ON) and 0 < k < len(tokens) - 1 and tokens[
                k - 1].token_type in _OPERAND_ENDS and tokens[k + 1].token_type not in _NOT_AFTER:
            edits.append((token.start, token.end + 1, _SPOKEN[token.text.upper()]))  # between two conditions:
            # never a column named so (``WHERE ya = 1``)
    return edited(block, edits)


_JOIN_SIDES = frozenset({TokenType.LEFT, TokenType.RIGHT, TokenType.FULL, TokenType.OUTER})
_QUERY_END = frozenset({TokenType.GROUP_BY, TokenType.ORDER_BY, TokenType.HAVING, TokenType.LIMIT, TokenType.UNION,
                        TokenType.EXCEPT, TokenType.INTERSECT, TokenType.SEMICOLON})


def _wheres_as_on(block: str) -> str:
    tokens = block_tokens(block)
    depths = bracket_depths(tokens)
    edits: list[tuple[int, int, str]] = []
    for i, token in enumerate(tokens):
        if token.token_type != TokenType.JOIN:
            continue
        j = after_table(tokens, i + 1)
        if j is None or j >= len(tokens) or tokens[j].token_type != TokenType.WHERE:
            continue
        later = False
        for k in range(j + 1, len(tokens)):
            if depths[k] < depths[j] or depths[k] == depths[j] and tokens[k].token_type in _QUERY_END:
                break
            if depths[k] == depths[j] and tokens[k].token_type in (TokenType.JOIN, TokenType.WHERE):
                later = True
                break
        outer = i > 0 and tokens[i - 1].token_type in _JOIN_SIDES or i > 1 and tokens[i - 2].token_type in _JOIN_SIDES
        if later or not outer:
            edits.append((tokens[j].start, tokens[j].end + 1, "ON"))
    return edited(block, edits)


_WINDOW_ENDS = frozenset({TokenType.ALIAS, TokenType.FROM, TokenType.COMMA, TokenType.R_PAREN, TokenType.SEMICOLON})


def _windows_bracketed(block: str) -> str:
    tokens = block_tokens(block)
    depths = bracket_depths(tokens)
    edits: list[tuple[int, int, str]] = []
    for i in range(len(tokens) - 1):
        if tokens[i].token_type != TokenType.OVER or tokens[i + 1].token_type not in (TokenType.PARTITION_BY,
                                                                                       TokenType.ORDER_BY):
            continue
        ends = [j for j in range(i + 2, len(tokens)) if depths[j] < depths[i] or depths[j] == depths[i] and tokens[
            j].token_type in _WINDOW_ENDS]
        end = next((j for j in ends if tokens[j].token_type != TokenType.COMMA), len(tokens))
        if (end == len(tokens) or tokens[end].token_type != TokenType.ALIAS) and any(j < end for j in ends):
            continue  # no name after the window and a comma before FROM: the next column, or the window's own
            # list (a tie-break)? Either reads; neither is taken (attack round 23)
        if end - 1 <= i + 1:
            continue
        edits += [(tokens[i + 1].start, tokens[i + 1].start, "("), (tokens[end - 1].end + 1, tokens[end - 1].end + 1,
                                                                   ")")]
    return edited(block, edits)


def _partitions_as_groups(block: str) -> str:
    tokens = block_tokens(block)
    depths = bracket_depths(tokens)
    edits: list[tuple[int, int, str]] = []
    for i, token in enumerate(tokens):
        if token.token_type != TokenType.PARTITION_BY or i and tokens[i - 1].token_type == TokenType.OVER:
            continue  # ``OVER PARTITION BY``: a window without its brackets (``_windows_bracketed``)
        bracket = next((j for j in range(i - 1, -1, -1) if depths[j] < depths[i]), -1) + 1  # the bracket it is in
        if depths[i] == 0 or tokens[bracket + 1].token_type in (TokenType.SELECT, TokenType.WITH):
            edits.append((token.start, token.end + 1, "GROUP BY"))  # at a SELECT's own level: no window's
    return edited(block, edits)


MISPLACED = (_wheres_as_on, _aliases_in_calls, _distinct_outside, _cast_commas, _bodies_bracketed,
             _spoken_conjunctions, _windows_bracketed, _partitions_as_groups)
