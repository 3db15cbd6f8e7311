"""Ways of writing SQL that another tool, a spreadsheet's locale or a speaker uses, each read back by one edit of the
text that ``_slips.mend_syntax`` tries like any other (taken only where it is the one reading that parses):
every quote written twice, MS Access's ``#date#``, ``x IS IN (…)``, ``BETWEEN a TO b``, a select list in brackets
with its aliases, arguments split by ``;``."""

from __future__ import annotations

import datetime
import re
from typing import Any

from sqlglot.tokens import TokenType

__all__ = ["spoken_forms", "written_otherwise"]

_ACCESS_DATE = re.compile(r"#(?:(\d{4})-(\d{1,2})-(\d{1,2})|(\d{1,2})/(\d{1,2})/(\d{4}))(?:[ T](\d{1,2}:\d{2}(?::\d{2})?))?#")


def _access_date(m: re.Match[str]) -> str:
    """``#2023-3-1#``, ``#3/1/2023 10:00#`` (Access reads m/d/y) as ISO text; a day no calendar has is left."""
    year, month, day = (m[1], m[2], m[3]) if m[1] else (m[6], m[4], m[5])
    try:
        text = datetime.date(int(year), int(month), int(day)).isoformat()
    except ValueError:
        return m[0]
    return f"'{text} {m[7]}'" if m[7] else f"'{text}'"


def written_otherwise(text: str) -> list[tuple[str, str]]:
    """Edits of the whole text: every quote written twice (``''Machine Learning''``: the reply's quotes escaped for a
    string it was copied from) once; MS Access's date literals ``#2023-01-01#`` and ``#1/15/2023#`` (month first)
    quoted."""
    edits = []
    runs = re.findall(r"'+", text)
    if runs and all(len(run) % 2 == 0 for run in runs) and any(len(run) == 2 for run in runs):
        edits.append((re.sub(r"'+", lambda m: "'" * (len(m[0]) // 2), text), "every quote was written twice"))
    if (dated := _ACCESS_DATE.sub(_access_date, text)) != text:
        edits.append((dated, "#date# (MS Access, month first) -> 'date'"))
    return edits


def spoken_forms(text: str, tokens: list[Any]) -> list[tuple[str, str]]:
    """Edits for ways of saying SQL it does not write: ``x IS IN (…)``, ``BETWEEN a TO b``, a select list wrapped in
    brackets (``SELECT (a AS x, b) FROM``), arguments split by ``;`` (a spreadsheet's locale: ``ROUND(x; 2)``)."""
    edits = []
    depth, opened, inner_semicolons = 0, [], []
    for k, t in enumerate(tokens):
        kind = t.token_type
        if kind == TokenType.IS and k + 1 < len(tokens) and tokens[k + 1].token_type == TokenType.IN:
            edits.append((text[:t.start] + text[t.end + 1:], "x IS IN (…) -> x IN (…)"))
        elif kind == TokenType.IS and k + 2 < len(tokens) and tokens[k + 1].token_type == TokenType.NOT and \
                tokens[k + 2].token_type == TokenType.IN:
            edits.append((text[:t.start] + text[t.end + 1:], "x IS NOT IN (…) -> x NOT IN (…)"))
        elif kind == TokenType.BETWEEN:
            at = next((j for j in range(k + 2, min(k + 12, len(tokens)))
                       if tokens[j].text.upper() in ("TO", "AND")), None)
            if at is not None and tokens[at].text.upper() == "TO":
                edits.append((text[:tokens[at].start] + "AND" + text[tokens[at].end + 1:], "BETWEEN a TO b -> AND"))
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
