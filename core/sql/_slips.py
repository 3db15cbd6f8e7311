"""Syntax slips with one reading: a connective with nothing after it (``WHERE a = 1 AND`` then ``GROUP BY`` or the
end), a parenthesis or an END too many or too few, a comma missing between select items, the ON of a JOIN left out,
a quoted value left open, an alias of several words left unquoted (``AS total revenue FROM``).

Applied only to a query the target dialect cannot parse as written (and no other dialect reads); the slip is mended
only where every way of mending it that parses gives the same query, and nothing else changes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import SqlglotError
from sqlglot.parser import Parser
from sqlglot.tokens import TokenType

from core.sql._spoken import pieces_once, spoken_forms, written_otherwise
from core.sql.repair import GUESSED

__all__ = ["PARSE_FAILURES", "balanced", "cut_off_reply", "drop_dangling_connectives", "ended_in", "mend_syntax",
           "mendable", "plausible", "reading", "slip_readings", "stops_in_block", "unfinished"]

# What sqlglot may raise on input it cannot read: its own errors, and on odd enough text its parser's internal ones
# (an assertion in a function builder, a ValueError, an index run off the end). Every parse of a reply catches all.
PARSE_FAILURES: tuple[type[Exception], ...] = (SqlglotError, ValueError, IndexError, KeyError, TypeError,
                                               AttributeError, AssertionError)  # a RecursionError: said where caught

_CONNECTIVES = (TokenType.AND, TokenType.OR)
_NAMES = (TokenType.VAR, TokenType.IDENTIFIER)
_AT_END = "\0"  # marks an edit made at the very end of the text
_CLAUSE_ENDS = (TokenType.GROUP_BY, TokenType.ORDER_BY, TokenType.LIMIT, TokenType.HAVING, TokenType.R_PAREN,
                TokenType.SEMICOLON, TokenType.UNION, TokenType.EXCEPT, TokenType.INTERSECT, TokenType.WINDOW)
_LIST_ENDS = (*_CLAUSE_ENDS, TokenType.FROM, TokenType.WHERE)  # a comma before these ends no list


# Tokens a finished query never ends with: a reply that stops on one was cut off (the model's length limit, a
# dropped connection), and whatever completes it is a guess.
_NEEDS_MORE = frozenset(getattr(TokenType, name) for name in (
    "COMMA", "L_PAREN", "AND", "OR", "NOT", "WHERE", "ON", "GROUP_BY", "ORDER_BY", "HAVING", "SELECT", "FROM", "JOIN",
    "ALIAS", "THEN", "WHEN", "ELSE", "CASE", "LIKE", "ILIKE", "IN", "BETWEEN", "EQ", "NEQ", "GT", "GTE", "LT", "LTE",
    "PLUS", "DASH", "SLASH", "DOT", "LIMIT", "OFFSET", "DISTINCT", "UNION", "INTERSECT", "EXCEPT", "WITH", "USING",
    "IS", "DPIPE", "PARTITION_BY", "INNER", "LEFT", "RIGHT", "FULL", "OUTER", "CROSS", "NATURAL", "EXISTS"))
# The first word of a two-word clause, read as a name when the second is missing (``FROM cars ORDER``).
_HALF_CLAUSES = frozenset({"ORDER", "GROUP", "PARTITION"})


def unfinished(text: str, dialect: str) -> str | None:
    """The last word of a query that stops where more must follow (``… GROUP BY``, ``date('now',``), else None.
    A connective (AND, OR) is not judged here: closing a block it is a slip (``drop_dangling_connectives``), ending
    the whole reply it is where the reply was cut (``cut_off_reply``)."""
    try:
        tokens = list(Dialect.get_or_raise(dialect).tokenize(text.rstrip().rstrip(";")))
    except PARSE_FAILURES:
        return None
    if not tokens:
        return None
    last = tokens[-1]
    if last.token_type in _NEEDS_MORE - set(_CONNECTIVES) or (
            last.token_type in _NAMES + (TokenType.PARTITION,) and last.text.upper() in _HALF_CLAUSES):
        return last.text
    outer = next((i for i in range(len(tokens) - 1, max(len(tokens) - 5, -1), -1)
                  if tokens[i].token_type == TokenType.JOIN), None)
    if outer is not None and any(t.token_type in (TokenType.LEFT, TokenType.RIGHT, TokenType.FULL)
                                 for t in tokens[max(outer - 2, 0):outer]) and all(
            t.token_type in (*_NAMES, TokenType.ALIAS, TokenType.DOT) for t in tokens[outer + 1:]):
        return tokens[outer + 1].text if outer + 1 < len(tokens) else last.text  # an outer JOIN with no ON yet
    return None


def balanced(text: str, dialect: str) -> bool:
    """Whether every bracket of ``text`` is closed (False when it cannot be read into tokens: a string left open)."""
    try:
        kinds = [t.token_type for t in Dialect.get_or_raise(dialect).tokenize(text)]
    except PARSE_FAILURES:
        return False
    return kinds.count(TokenType.L_PAREN) == kinds.count(TokenType.R_PAREN)


def ended_in(reply: str, sql: str) -> bool:
    """Whether the model ended the statement it wrote: something follows the SQL in its reply (a ';', the closing
    fence, prose). A reply that stops right where the SQL stops may have been cut there."""
    tail = sql.rstrip().rstrip(";").rstrip()[-40:]
    at = reply.rfind(tail) if tail else -1
    return at >= 0 and bool(reply[at + len(tail):].strip())


def cut_off_reply(reply: str) -> str | None:
    """The connective a model's reply ends with where that end is SQL: inside a code block never closed, or a reply
    without blocks whose last line reads as SQL (a comparison, a bracket, a quote or a clause word): where the
    generation stopped, else None. Prose after a closed block that ends on "and" is the prose's."""
    text = reply.rstrip()
    found = re.search(r"\b(AND|OR)$", text, re.I)
    if found is None:
        return None
    fences = len(re.findall(r"^\s*(?:```|~~~)", text, re.M))
    if fences % 2 == 1:
        return found.group(1)  # the block is still open
    last_line = text.rsplit("\n", 1)[-1]
    sql_like = re.search(r"[=<>()']|\b(?:SELECT|FROM|WHERE|JOIN|ON|HAVING|BETWEEN|LIKE|IN|IS)\b", last_line, re.I)
    return found.group(1) if fences == 0 and sql_like else None


def stops_in_block(reply: str) -> bool:
    """Whether the reply ends inside a code block it opened and never closed, on a statement it did not end with
    ``;``: where a generation cut at its length limit stops (``… JOIN salespersons``, ``… HAVING SUM(x) >``). A
    query read from there may have lost its last clauses and still run. A block whose last paragraph is a sentence
    of prose after a blank line was not cut in its SQL: the model wrote on and forgot the closing fence."""
    text = reply.rstrip()
    fences = list(re.finditer(r"^\s*(?:```|~~~)[^\n]*$", text, re.M))
    if len(fences) % 2 == 0:
        return False
    inside = text[fences[-1].end():].strip()
    if not inside or inside.endswith(";"):
        return False
    last = inside.splitlines()[-1].strip()  # "Explanation: the WHERE keeps the matching rows.": the model went on in
    return not (re.search(r"[.!?\u0964]$", last) and len(re.findall(r"[^\W\d_]+", last)) >= 4  # prose, never
                and not re.search(r"[=<>();']", last) and "\n\n" in inside)  # closing the fence: no cut in SQL


def drop_dangling_connectives(text: str, dialect: str) -> str:
    """``text`` without each AND/OR that ends its clause, and each comma that ends its list (``SELECT a, b, FROM``,
    ``ORDER BY x, LIMIT 5``): the text itself when there is none."""
    try:
        tokens = list(Dialect.get_or_raise(dialect).tokenize(text))
    except PARSE_FAILURES:
        return text
    spans = [(t.start, t.end + 1) for t, after in zip(tokens, [*tokens[1:], None][:len(tokens)], strict=True)
             if t.token_type in _CONNECTIVES and (after is None or after.token_type in _CLAUSE_ENDS)
             or t.token_type == TokenType.COMMA and (after is None or after.token_type in _LIST_ENDS)]
    for start, end in reversed(spans):
        text = text[:start] + text[end:]
    return text


_ENDS_EXPR = (TokenType.VAR, TokenType.IDENTIFIER, TokenType.R_PAREN, TokenType.NUMBER, TokenType.STRING,
              TokenType.STAR, TokenType.END)
_NOT_NAMES = frozenset("""select from where as and or on join left right inner outer full cross group order by having
limit offset case when then else end distinct union all in is not null between like ilike asc desc nulls first last
with over partition exists interval using natural fetch""".split())  # fmt: skip
_TABLE_BEFORE = (TokenType.FROM, TokenType.JOIN)  # a '(' after these starts a subquery, not an operand
_MAX_TOKENS = 300  # a longer statement is not searched: too many places, and too slow to try them all
_MAX_TRIES = 150  # more places than this: not all can be tried, so no reading is known to be the only one


def plausible(tree: exp.Expression) -> bool:
    """Whether a mended text reads as something a person writes: no alias inside a call's arguments
    (``f(x AS y)``), no row of values outside IN or VALUES (``SELECT (a, b) AS t``), no value read as a table
    joined by a comma (``WHERE fuel IN ('petrol'), 'diesel'``), no true/false handed to a function of text, dates
    or numbers (``LOWER(city LIKE '%york%')``, ``strftime('%w', d IN ('0', '6'))``: only aggregates, casts and
    the conditional functions take a condition), no aggregate of an aggregate."""
    if any(_predicate_argument(f) for f in tree.find_all(exp.Func)):
        return False
    if any(a.args.get("columns") and isinstance(a.parent, exp.Table) for a in tree.find_all(exp.TableAlias)):
        return False  # ``, d IN ('0', '6')`` read as a table d aliased IN with columns '0' and '6'
    if any(isinstance(c.this, _COMPARED) or isinstance(c.expression, _COMPARED) for c in tree.find_all(*_COMPARED)):
        return False  # ``a = 'x AND b' = 'y'``: nobody compares the truth of a comparison without brackets
    if any(_nested_aggregate(a) for a in tree.find_all(exp.AggFunc)):
        return False  # ``SUM(price - SUM(cost))``: SQL has no aggregate of an aggregate (the database refuses it)

    return not any(isinstance(a.parent, exp.Func) for a in tree.find_all(exp.Alias)) and not any(
        not isinstance(t.parent, (exp.In, exp.Values)) for t in tree.find_all(exp.Tuple)) and not any(
        isinstance(j.this, exp.Table) and isinstance(j.this.this, exp.Identifier) and j.this.this.quoted
        and (j.args.get("kind") or "").upper() == "CROSS" for j in tree.find_all(exp.Join))


_TAKES_CONDITIONS = (exp.AggFunc, exp.Cast, exp.TryCast, exp.If, exp.Coalesce, exp.Nullif, exp.Case, exp.Not,
                     exp.And, exp.Or, exp.Xor, exp.Greatest, exp.Least, exp.Anonymous)  # Anonymous: a function
# sqlglot does not know (SQLite's TOTAL is an aggregate) may take anything
_CONDITIONS = (exp.Predicate, exp.And, exp.Or, exp.Not)
_COMPARED = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Like, exp.ILike)


def _nested_aggregate(agg: exp.AggFunc) -> bool:
    """An aggregate inside another one's arguments, not through a subquery or a window (``SUM(COUNT(*)) OVER ()``)."""
    if agg.find_ancestor(exp.Window) is not None:
        return False
    outer = agg.find_ancestor(exp.AggFunc, exp.Select)
    return isinstance(outer, exp.AggFunc)


def _predicate_argument(func: exp.Func) -> bool:
    if isinstance(func, _TAKES_CONDITIONS):
        return False
    return any(isinstance(arg, (*_CONDITIONS, exp.Order)) for arg in func.iter_expressions())  # ORDER BY: aggregates


def reading(tree: exp.Expression) -> str:
    """What a parsed statement means, parentheses aside: two texts that differ only by redundant parentheses
    (``(SUM(x))`` and ``SUM(x)``, ``AS ((SELECT …))`` and ``AS (SELECT …)``) read the same; ``(a - b) * 2`` and
    ``a - b * 2`` do not (their trees differ)."""
    return repr(tree.transform(lambda n: n.this if isinstance(n, exp.Paren) or _doubled(n) else n))


def _doubled(node: exp.Expression) -> bool:
    """A query in brackets of its own inside brackets that already hold it: ``AS ((SELECT …))``."""
    return isinstance(node, exp.Subquery) and not node.alias and len([v for v in node.args.values() if v]) == 1 \
        and isinstance(node.parent, (exp.CTE, exp.Subquery))


def mend_syntax(text: str, dialect: str, parses: Callable[[str], str | None]) -> tuple[str, str] | None:
    """The one reading of a query that does not parse, by one edit: a ')' too many, a ')' missing, an END of CASE
    missing, or a comma missing between two items. Every place the edit (and the edit that would make the same
    parentheses balance the other way: an '(' added before a ')' too many) may go is tried; ``parses`` gives a parsed
    text's :func:`reading` (None: it does not parse). The edit is made only when every place that parses gives the
    same reading: (mended text, what was done), else None. A reading that closing the text at its very end gives is
    taken only when the writer ended the statement (a ``;``: see ``ended_in``): a reply cut off inside a bracket
    (``IN (SELECT car_id FROM sales``) may have lost what the bracket held."""
    return _one_reading(text, _edits(text, dialect), parses)


def slip_readings(text: str, dialect: str, parses: Callable[[str], str | None]) -> list[tuple[str, str]]:
    """Every distinct reading the edits of ``mend_syntax`` give (mended text, what was done), when there are two or
    three — for the data to settle (``core.sql._readings``) — else []. A reading that closes what the text left open
    at its very end is not one (the text may have been cut there)."""
    readings = _readings(text, _edits(text, dialect), parses, most=3)
    return [] if len(readings) < 2 or any(said.startswith(_AT_END) for _, said in readings) else readings


def mendable(text: str, dialect: str, parses: Callable[[str], str | None], *, most: int) -> bool:
    """Whether ``mend_syntax`` gives a reading (``most`` 1), or ``slip_readings`` two to ``most``: each edit is made
    and parsed once for both questions."""
    readings = _readings(text, _edits(text, dialect), parses, most=most)
    return bool(readings) and not any(said.startswith(_AT_END) for _, said in readings)


def _edits(text: str, dialect: str) -> list[tuple[str, str]]:
    """The one-edit mendings of ``text`` to try (see ``mend_syntax``)."""
    written = written_otherwise(text)  # another tool's spelling of a quote or a date, read the SQL way
    try:
        tokens = list(Dialect.get_or_raise(dialect).tokenize(text))
    except PARSE_FAILURES:
        return written + _closing_quotes(text) + _opening_quotes(text) + _apostrophes(text)
    if len(tokens) > _MAX_TOKENS:
        return written
    edits: list[tuple[str, str]] = written + spoken_forms(text, tokens)
    depth, opened = 0, []
    for i, t in enumerate(tokens):
        if t.token_type == TokenType.L_PAREN:
            depth += 1
            opened.append(i)
        elif t.token_type == TokenType.R_PAREN:
            depth -= 1
            if depth < 0:  # this one, one before it that closed too early, or an '(' that is missing
                edits += [(text[:c.start] + text[c.end + 1:], "removed a ')' too many") for c in tokens[:i + 1]
                          if c.token_type == TokenType.R_PAREN]
                edits += [(_insert(text, c.start, "("), "added the missing '('") for k, c in enumerate(tokens[1:i], 1)
                          if not _ends(tokens[k - 1]) and tokens[k - 1].token_type not in _TABLE_BEFORE
                          and tokens[k - 1].token_type != TokenType.DOT]  # ``publication.(pid)``: nobody writes it
                break
            opened.pop()
    if depth > 0 and opened:
        first = opened[-1] + 1
        edits += [(_insert(text, t.start, ")"), "added the missing ')'") for k, t in enumerate(tokens[first + 1:],
                                                                                           first + 1)
                  if _ends(tokens[k - 1]) and t.token_type != TokenType.DOT]  # where an operand may end (never
        # inside a qualified name: ``SUM(fare).cost`` reads as a field of the sum, which nobody writes)
        edits.append((text.rstrip().rstrip(";") + ")", _AT_END + "added the missing ')'"))
    cases = sum(t.token_type == TokenType.CASE for t in tokens) - sum(t.token_type == TokenType.END for t in tokens)
    if cases > 0:
        last_case = max(i for i, t in enumerate(tokens) if t.token_type == TokenType.CASE)
        edits += [(_insert(text, t.start, "END"), "added the END of CASE") for k, t in enumerate(
            tokens[last_case + 2:], last_case + 2) if _ends(tokens[k - 1])]
        edits.append((text.rstrip().rstrip(";") + " END", _AT_END + "added the END of CASE"))
    for a, b, c in zip(tokens, tokens[1:], [*tokens[2:], None], strict=False):
        if _ends(a) and _word(b.text) and c is not None and c.token_type in (TokenType.DOT, TokenType.L_PAREN) and (
                a.end + 1 <= b.start):
            edits.append((_insert(text, b.start, ","), "added a missing comma"))
    edits += [(_insert(text, tokens[k].start, "ON"), "added the ON of a JOIN") for k in _conditions_without_on(tokens)]
    edits += _second_where(text, tokens)
    edits += _spaced_aliases(text, tokens)
    edits += [e for e in _apostrophes(text) if e[1].endswith("values")]
    return edits + pieces_once(text)


_WHERE_ENDS = (TokenType.SELECT, TokenType.FROM, TokenType.GROUP_BY, TokenType.ORDER_BY, TokenType.HAVING,
               TokenType.LIMIT, TokenType.UNION, TokenType.SEMICOLON, TokenType.JOIN, TokenType.LEFT, TokenType.RIGHT,
               TokenType.INNER, TokenType.OUTER, TokenType.FULL, TokenType.CROSS, TokenType.NATURAL, TokenType.ON)


def _top_level(tokens: list[Any]) -> list[tuple[int, Any]]:
    """(index, token) of the tokens outside brackets, up to the bracket that closes the stretch or a clause's end."""
    out, depth = [], 0
    for n, token in enumerate(tokens):
        depth += (token.token_type == TokenType.L_PAREN) - (token.token_type == TokenType.R_PAREN)
        if depth < 0 or (depth == 0 and token.token_type in _WHERE_ENDS):
            break
        if depth == 0 and token.token_type != TokenType.R_PAREN:
            out.append((n, token))
    return out


def _second_where(text: str, tokens: list[Any]) -> list[tuple[str, str]]:
    """``WHERE a = 1 WHERE b = 2``: the second WHERE of one clause read as AND. Not where an OR stands outside
    brackets in either condition (AND binds tighter: the reading would change what the OR joins), nor where the
    second denies the first (``x IS NULL WHERE x IS NOT NULL``: together no row, and which one was meant is unsaid)."""
    for i, first in enumerate(tokens):
        if first.token_type != TokenType.WHERE:
            continue
        clause = _top_level(tokens[i + 1:])
        if any(t.token_type == TokenType.OR for _, t in clause):
            return []
        second = next((n for n, t in clause if t.token_type == TokenType.WHERE), None)
        if second is None:
            continue
        where = tokens[i + 1 + second]
        if _denies(text[first.end + 1:where.start], text[where.end + 1:clause[-1][1].end + 1]):
            return []
        return [(text[:where.start] + "AND" + text[where.end + 1:], "read a second WHERE as AND" + GUESSED)]
    return []


_OPPOSITES = {exp.EQ: exp.NEQ, exp.NEQ: exp.EQ, exp.GT: exp.LTE, exp.LTE: exp.GT, exp.LT: exp.GTE, exp.GTE: exp.LT}


def _denies(first: str, second: str) -> bool:
    """Whether one condition is the other negated (``NOT``, ``IS NOT NULL``, ``<>`` for ``=``, ``<=`` for ``>``)."""
    try:
        a, b = (sqlglot.parse_one(f"SELECT 1 WHERE {c.strip().rstrip(';')}").args["where"].this for c in (first, second))
    except (*PARSE_FAILURES, AttributeError, KeyError, IndexError):
        return False
    a, b = _plain_condition(a), _plain_condition(b)
    return a == exp.Not(this=b) or b == exp.Not(this=a) or (_OPPOSITES.get(type(a)) is type(b) and a.this == b.this
                                                           and a.expression == b.expression)


_FLIPPED = {exp.GT: exp.LT, exp.LT: exp.GT, exp.GTE: exp.LTE, exp.LTE: exp.GTE, exp.EQ: exp.EQ, exp.NEQ: exp.NEQ}


def _plain_condition(node: exp.Expression) -> exp.Expression:
    """A condition written plainly to compare: columns without qualifier in lower case, a value on the right
    (``50 > amount`` as ``amount < 50``)."""
    node = node.transform(lambda n: exp.column(n.name.lower()) if isinstance(n, exp.Column) else n)
    if type(node) in _FLIPPED and not isinstance(node.this, exp.Column) and isinstance(node.expression, exp.Column):
        node = _FLIPPED[type(node)](this=node.expression, expression=node.this)
    return node


def _readings(text: str, edits: list[tuple[str, str]], parses: Callable[[str], str | None],
              most: int) -> list[tuple[str, str]]:
    """The distinct readings of the edits that parse, one edit each (what was done marked ``_AT_END`` when any edit
    giving it closes the text at its end, unless the writer ended it with ';'); [] when more than ``most``."""
    if not edits or len(edits) > _MAX_TRIES:
        return []
    readings: dict[str, tuple[str, str]] = {}
    at_end: set[str] = set()
    ended = text.rstrip().endswith(";")
    for mended, said in edits:
        key = parses(mended)
        if key is not None:
            readings.setdefault(key, (mended, said.removeprefix(_AT_END)))
            if said.startswith(_AT_END) and not ended:
                at_end.add(key)
            if len(readings) > most:
                return []
    return [(m, _AT_END + said if key in at_end else said) for key, (m, said) in readings.items()]


def _one_reading(text: str, edits: list[tuple[str, str]], parses: Callable[[str], str | None]) -> tuple[str, str] | None:
    """The edit every parsing way of mending gives the same reading of (see ``mend_syntax``), else None. Not one
    that closes what the text left open at its end: it may have been cut there."""
    readings = _readings(text, edits, parses, most=1)
    return readings[0] if readings and not readings[0][1].startswith(_AT_END) else None


_QUOTE_OPENS = re.compile(r"(?<![\w'])'")  # a quote after an operator, a space, a bracket or a comma
_QUOTE_CLOSES = re.compile(r"(?<=[^\s';])(?=[\s),;]|$)")  # where a value may end: before a space, ')', ',', ';'
_SQL_IN_VALUE = re.compile(r"[=<>]|\b(?:AND|OR|FROM|WHERE|GROUP|ORDER|JOIN|SELECT|LIMIT|HAVING|THEN|END)\b")
_MAX_QUOTED = 120  # a value longer than this, left open, is not searched for its end


def _apostrophes(text: str) -> list[tuple[str, str]]:
    """An apostrophe inside a word of a value (``'McDonald's'``, ``'%Women's%'``) left single: it doubled, as SQL
    writes it (for an odd number of quotes); and every such apostrophe doubled at once (``IN ('McDonald's',
    'Wendy's')``, an even number)."""
    inside = list(re.finditer(r"(?<=[A-Za-z])'(?=[A-Za-z])", text))
    each = [(text[:m.start()] + "'" + text[m.start():], "doubled the apostrophe inside a value")
            for m in inside][:_MAX_TRIES] if text.count("'") % 2 else []
    if len(inside) > 1:
        each.append((re.sub(r"(?<=[A-Za-z])'(?=[A-Za-z])", "''", text), "doubled the apostrophes inside values"))
    return each


def _closing_quotes(text: str) -> list[tuple[str, str]]:
    """A string literal left open (``WHERE city = 'Pune AND …``, ``LIKE LOWER('%york%)``): a closing quote tried
    where each value that may have been opened could end — before a space, ')', ',' or ';' within _MAX_QUOTED
    characters of its quote, up to the next quote. Only for an odd number of quotes (none of them doubled)."""
    if text.count("'") % 2 == 0 or "''" in text or text.count("'") > 2 * _MAX_TRIES:
        return []
    edits: list[tuple[str, str]] = []
    for opened in _QUOTE_OPENS.finditer(text):
        start = opened.end()
        stop = text.find("'", start)
        stop = len(text) if stop < 0 else stop
        for end in _QUOTE_CLOSES.finditer(text, start + 1, min(stop, start + _MAX_QUOTED) + 1):
            at = end.start()
            if at < len(text) and text[at] not in " \t\r\n),;" or text[at:].lstrip().startswith("'"):
                continue  # the search window's edge, not a value's end; or two values side by side ('a' 'b')
            if _SQL_IN_VALUE.search(text, start, at):
                break  # a value does not hold a comparison or a clause word in capitals: the query went on
            said = "closed a quoted value left open"
            edits.append((text[:at] + "'" + text[at:], _AT_END + said if not text[at:].strip(" ;\n") else said))
    return edits


_QUOTE_ENDS = re.compile(r"(?<=[^\s'(,=])'(?=[\s),;]|$)")  # a quote that may close a value: after its last letter
_VALUE_STARTS = re.compile(r"(?:(?<=[\s(,=<>])|^)(?=[^\s'(),=<>])")  # where a value's first word may begin
# What stands right before a value, never inside one: a comparison, a bracket, a comma, an operator set off by spaces,
# a word that takes a value (any case), or AND/OR/NOT/IN/IS in capitals (in lower case they are a value's words too).
_BEFORE_VALUE = re.compile(r"[(,=<>\n]|\s[-+*/|]\s|\b(?i:i?like|interval|between|then|when|else|similar\s+to)\b|"
                           r"\b(?:AND|OR|NOT|IN|IS)\b")


def _opening_quotes(text: str) -> list[tuple[str, str]]:
    """A string literal whose opening quote is missing (``WHERE name = Machine Learning'``, ``date_part(day', …)``):
    an opening quote tried before each word the value may have begun with, back from its closing quote to the
    comparison, bracket or comma before it, within _MAX_QUOTED characters. Only for an odd number of quotes."""
    if text.count("'") % 2 == 0 or "''" in text or text.count("'") > 2 * _MAX_TRIES:
        return []
    edits: list[tuple[str, str]] = []
    for closing in _QUOTE_ENDS.finditer(text):
        at = closing.start()
        begin = max([at - _MAX_QUOTED, text.rfind("'", 0, at) + 1,
                     *(m.end() for m in _BEFORE_VALUE.finditer(text, max(0, at - _MAX_QUOTED), at))])
        for start in _VALUE_STARTS.finditer(text, begin, at):
            if not _SQL_IN_VALUE.search(text, start.start(), at):
                edits.append((text[:start.start()] + "'" + text[start.start():], "opened a quoted value left unopened"))
    return edits


def _spaced_aliases(text: str, tokens: list[Any]) -> list[tuple[str, str]]:
    """``SUM(x) AS total revenue FROM``: an alias of several words after AS, written without quotes, ending where a
    comma, FROM, a ')' or the statement's end follows: the words quoted as one name."""
    edits, spans = [], []
    for k, t in enumerate(tokens):
        if t.token_type != TokenType.ALIAS:
            continue
        j = k + 1
        while j < len(tokens) and (tokens[j].token_type in _NAMES or tokens[j].token_type in Parser.TYPE_TOKENS) \
                and _word(tokens[j].text):  # "sale number", "due date": a type's name is a word of an alias too
            j += 1
        if j - k - 1 >= 2 and (j == len(tokens) or tokens[j].token_type in (
                TokenType.COMMA, TokenType.FROM, TokenType.R_PAREN, TokenType.SEMICOLON)):
            start, end = tokens[k + 1].start, tokens[j - 1].end + 1
            spans.append((start, end))
            edits.append((f'{text[:start]}"{text[start:end]}"{text[end:]}', "quoted an alias of several words"))
    uses = []  # ``AS num flights … ORDER BY num flights``: the one alias used again, quoted there too
    if len(spans) == 1:
        a, b = spans[0]
        phrase = r"(?<![\w\"])" + r"\s+".join(map(re.escape, text[a:b].split())) + r"(?![\w\"])"
        uses = [(m.start(), m.end()) for m in re.compile(phrase).finditer(text, b)]
    if len(spans) > 1 or uses:
        quoted = text
        for start, end in sorted([*spans, *uses], reverse=True):
            quoted = f'{quoted[:start]}"{quoted[start:end]}"{quoted[end:]}'
        edits.append((quoted, "quoted the aliases of several words"))
    return edits


def _conditions_without_on(tokens: list[Any]) -> list[int]:
    """Where a JOIN's condition starts with no ON before it (``JOIN journal j j.jid = p.jid``): a qualified name right
    after the joined table or its alias."""
    found = []
    for j, t in enumerate(tokens):
        if t.token_type != TokenType.JOIN or j + 1 >= len(tokens) or tokens[j + 1].token_type not in _NAMES:
            continue
        k = j + 2
        while k + 1 < len(tokens) and tokens[k].token_type == TokenType.DOT and tokens[k + 1].token_type in _NAMES:
            k += 2  # schema.table
        for p in (k, k + 1, k + 2):
            if p + 1 < len(tokens) and tokens[p].token_type in _NAMES and tokens[p + 1].token_type == TokenType.DOT and (
                    tokens[p - 1].token_type != TokenType.DOT) and all(
                    x.token_type in (*_NAMES, TokenType.ALIAS, TokenType.DOT) for x in tokens[j + 1:p]):
                found.append(p)
    return found


def _ends(token: Any) -> bool:
    """Whether an operand may end with ``token`` (a name, a value, ')', '*', END)."""
    return token.token_type in _ENDS_EXPR or _word(token.text)


def _word(text: str) -> bool:
    """A name or a function name (not a keyword of the statement's structure)."""
    return bool(re.fullmatch(r"[A-Za-z_][\w$]*|\"[^\"]+\"|`[^`]+`", text)) and text.lower() not in _NOT_NAMES


def _insert(text: str, at: int, what: str) -> str:
    return f"{text[:at]} {what} {text[at:]}"
