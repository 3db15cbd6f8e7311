"""Ways of writing SQL that another tool, a spreadsheet's locale or a speaker uses, each read back by one edit of the
text that ``_slips.mend_syntax`` tries like any other (taken only where it is the one reading that parses):
every quote written twice, MS Access's ``#date#``, a select list in brackets with its aliases, arguments split by
``;`` — and the forms no SQL writes that have one reading, read before the text is parsed (``read_as_sql``); and a
piece of a streamed reply delivered twice in a row (``ORDER ORDER BY``, ``JOIN da ON da ON``), written once
(``pieces_once``)."""

from __future__ import annotations

import datetime
import re
from typing import Any

from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import SqlglotError
from sqlglot.tokens import TokenType

__all__ = ["pieces_once", "quotes_halved", "read_as_sql", "spoken_forms", "written_otherwise"]

_SPLIT_OPERATORS = frozenset({">=", "<=", "<>", "!=", "||", "::"})  # written with a blank inside: `> =`, `| |`
_ACCESS_DATE = re.compile(r"#(?:(\d{4})-(\d{1,2})-(\d{1,2})|(\d{1,2})/(\d{1,2})/(\d{4}))(?:[ T](\d{1,2}:\d{2}(?::\d{2})?))?#")


def _access_date(m: re.Match[str]) -> str:
    """``#2023-3-1#``, ``#3/1/2023 10:00#`` (Access reads m/d/y) as ISO text; a day no calendar has is left."""
    year, month, day = (m[1], m[2], m[3]) if m[1] else (m[6], m[4], m[5])
    try:
        text = datetime.date(int(year), int(month), int(day)).isoformat()
    except ValueError:
        return m[0]
    return f"'{text} {m[7]}'" if m[7] else f"'{text}'"


def quotes_halved(text: str, *, touching: bool = True) -> str | None:
    """``text`` with every quote written twice written once, where every run of quotes is of an even length and one
    pair is a literal's (``''Pune''``); with ``touching``, only where a pair touches a word on the inside
    (``''%martin%''``, ``INTERVAL ''30 days''``: an empty text written against a name, which no one means — SQL that
    parses all the same, as ``'' % martin % ''``)."""
    runs = re.findall(r"'+", text)
    if not runs or any(len(run) % 2 for run in runs) or not any(len(run) == 2 for run in runs):
        return None
    if touching and not re.search(r"(?<!')''[\w%]|[\w%]''(?!')", text):
        return None
    return re.sub(r"'+", lambda m: "'" * (len(m[0]) // 2), text)


def read_as_sql(text: str, dialect: str) -> tuple[str, list[str]]:
    """``text`` with the forms no SQL writes and only one reading has read back before it is parsed (some parse as
    something else: ``'' % martin % ''``), and what was done: every quote written twice (``quotes_halved``),
    ``x IS [NOT] IN (…)``, ``BETWEEN a TO b``, Oracle's ``SELECT UNIQUE``, an operator of two
    characters written with a blank inside (``> =``, ``| |``), a statement's ``;`` left inside its brackets
    (``(SELECT COUNT(*) FROM t;)``), and where the text cannot even be split into words as written, a quote inside
    a value escaped with a backslash (``'O\\'Brien'``, MySQL's and C's way) written twice (SQLite, PostgreSQL and
    DuckDB read a backslash as itself)."""
    said = []
    if (halved := quotes_halved(text)) is not None:
        text, said = halved, ["every quote was written twice"]
    try:
        tokens = list(Dialect.get_or_raise(dialect).tokenize(text))
    except (SqlglotError, ValueError):
        doubled = re.sub(r"(?<!\\)\\'", "''", text)  # ``'O\'Brien'``, as MySQL and C escape a quote: SQL doubles it
        if doubled == text or dialect not in ("sqlite", "postgres", "duckdb"):
            return text, said
        try:
            tokens = list(Dialect.get_or_raise(dialect).tokenize(doubled))
        except (SqlglotError, ValueError):
            return text, said
        text, said = doubled, [*said, "a quote escaped with a backslash written twice"]
    edits: list[tuple[int, int, str, str]] = []  # (start, end, replacement, what)
    for k, t in enumerate(tokens):
        after = [u.token_type for u in tokens[k + 1:k + 3]]
        if t.token_type == TokenType.IS and (after[:1] == [TokenType.IN] or after == [TokenType.NOT, TokenType.IN]):
            edits.append((t.start, t.end + 1, "", "x IS IN (…) -> x IN (…)"))
        elif t.token_type == TokenType.BETWEEN:
            at = next((u for u in tokens[k + 2:k + 12] if u.text.upper() in ("TO", "AND")), None)
            if at is not None and at.text.upper() == "TO":
                edits.append((at.start, at.end + 1, "AND", "BETWEEN a TO b -> AND"))
        elif t.token_type == TokenType.SELECT and after[:1] == [TokenType.UNIQUE]:
            edits.append((tokens[k + 1].start, tokens[k + 1].end + 1, "DISTINCT", "SELECT UNIQUE -> SELECT DISTINCT"))
        elif k + 1 < len(tokens) and t.text + tokens[k + 1].text in _SPLIT_OPERATORS and t.end + 1 < tokens[
                k + 1].start and not text[t.end + 1:tokens[k + 1].start].strip():
            edits.append((t.end + 1, tokens[k + 1].start, "", f"'{t.text} {tokens[k + 1].text}' -> "
                                                                f"'{t.text}{tokens[k + 1].text}'"))
        elif t.token_type == TokenType.SEMICOLON and after[:1] == [TokenType.R_PAREN]:
            edits.append((t.start, t.end + 1, "", "a ';' before ')' dropped"))
    for start, end, put, _ in sorted(edits, reverse=True):
        text = text[:start] + put + text[end:]
    return text, said + list(dict.fromkeys(what for *_, what in edits))


def written_otherwise(text: str) -> list[tuple[str, str]]:
    """Edits of the whole text: every quote written twice (``''Machine Learning''``: the reply's quotes escaped for a
    string it was copied from) once; MS Access's date literals ``#2023-01-01#`` and ``#1/15/2023#`` (month first)
    quoted."""
    edits = []
    if (halved := quotes_halved(text, touching=False)) is not None:
        edits.append((halved, "every quote was written twice"))
    if (dated := _ACCESS_DATE.sub(_access_date, text)) != text:
        edits.append((dated, "#date# (MS Access, month first) -> 'date'"))
    return edits


def spoken_forms(text: str, tokens: list[Any]) -> list[tuple[str, str]]:
    """Edits for ways of writing SQL it does not read: a select list wrapped in brackets (``SELECT (a AS x, b)
    FROM``), arguments split by ``;`` (a spreadsheet's locale: ``ROUND(x; 2)``)."""
    edits = []
    depth, opened, inner_semicolons = 0, [], []
    for k, t in enumerate(tokens):
        kind = t.token_type
        if kind == TokenType.L_PAREN:
            depth += 1
            opened.append(k)
        elif kind == TokenType.R_PAREN and opened:
            depth -= 1
            start = opened.pop()
            if start > 0 and tokens[start - 1].token_type in (TokenType.SELECT, TokenType.DISTINCT) and (
                    k + 1 == len(tokens) or tokens[k + 1].token_type in (TokenType.FROM, TokenType.SEMICOLON)):
                edits.append((text[:tokens[start].start] + " " + text[tokens[start].end + 1:t.start] + " "
                              + text[t.end + 1:], "SELECT (a, b) FROM -> SELECT a, b FROM"))
        elif kind == TokenType.SEMICOLON and depth > 0:
            inner_semicolons.append(t)
    if inner_semicolons:
        out = text
        for t in reversed(inner_semicolons):
            out = out[:t.start] + "," + out[t.end + 1:]
        edits.append((out, "arguments split by ';' -> ','"))
    return edits


_MAX_PIECE = 60


def pieces_once(text: str) -> list[tuple[str, str]]:
    """``text`` with one piece that stands twice in a row — two words or more, or a word of four letters or more, at
    least one of them a letter — written once, each way it can be (``_slips`` keeps the one reading that parses)."""
    if len(text) > 4000:
        return []
    out: dict[str, str] = {}
    for n in range(4, min(_MAX_PIECE, len(text) // 2) + 1):
        for i in range(len(text) - 2 * n + 1):
            piece = text[i:i + n]
            if piece == text[i + n:i + 2 * n] and re.search(r"[A-Za-z]", piece) and piece.strip():
                out.setdefault(text[:i] + text[i + n:], f"wrote once the piece {piece.strip()!r} that stood twice")
    return [(t, said) for t, said in out.items()]
