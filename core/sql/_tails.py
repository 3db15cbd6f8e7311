"""What a cut of a reply's text drops after a statement: prose (a sentence, a note, a table of made-up results, the
end of its markup) or more of the statement (a clause word, an operator, a qualified name) — so a prefix that parses
never silently loses clauses — and the few tails that are neither (a looser LIMIT after FETCH FIRST, a program's next
step after ``;``: ``EXEC SQL OPEN c``)."""

from __future__ import annotations

import re

from core.sql._explanations import clause_later

__all__ = ["GOES_ON", "LABEL", "TAIL_WORD", "looser_limit", "program_goes_on", "prose_tail"]

_TABLE_ROW = re.compile(r"\|[^|\n]*\|[^\n]*\|?\s*\n\s*\|\s*:?-{3}")  # a markdown table: a header row, then |---

# Words that continue a statement: a cut before one of them would drop part of the query, not prose after it.
_CONTINUES = frozenset(
    """where and or on join inner left right full cross natural using group order having limit offset union
    intersect except window qualify fetch from""".split()
)  # fmt: skip
# Words that go on with a statement's clause or expression: a sentence does not start with them ("on" may: a JOIN
# left without its condition is checked instead).
GOES_ON = (_CONTINUES - {"on"}) | frozenset("""select not by desc asc nulls rows between like ilike is as distinct all
any case when then else end over partition filter within escape collate""".split())
TAIL_WORD = re.compile(r"[A-Za-z_][\w']*")
LABEL = re.compile(r"[A-Z][a-z]+(?: [A-Za-z]+){0,2}:(?:[ \t]|$)", re.MULTILINE)
_STRING_ENDS = ("|]", "]]", '"""', "'''", ')"')  # a program's string closing after the query
_SQL_MARKS = re.compile(r"[=<>(),.`\"']|::")


_PROGRAM_STEP = re.compile(r"\s*(?:EXEC|OPEN|FETCH(?!\s+(?:FIRST|NEXT)\b)|CLOSE|DISPLAY|PERFORM)\b", re.IGNORECASE)
_QUERY_LATER = re.compile(r"(?:^|;)\s*(?:SELECT|WITH)\b", re.IGNORECASE | re.MULTILINE)


def program_goes_on(candidate: str, text: str, cut: int) -> bool:
    """``… ORDER BY month;`` then ``EXEC SQL OPEN result_cursor;``: after its ``;``, the next step of a program that
    runs the query (embedded SQL's cursor), not more of it — never ``FETCH FIRST 5 ROWS ONLY`` (the query's limit), and
    never where a query follows later (a listing's last query answers)."""
    return candidate.endswith(";") and _PROGRAM_STEP.match(text, cut) is not None and \
        _QUERY_LATER.search(text, cut) is None


def prose_tail(rest: str) -> bool:
    """Is ``rest`` (what a cut drops) prose or nothing, rather than more of the statement?

    Nothing, a comment, a sentence ("This counts...", "Note: ...") or a bullet is prose. A tail that starts with
    a clause word (WHERE, AND, JOIN...), an operator or a qualified name is SQL. Otherwise the tail is prose when
    it reads like words, not like an expression: few SQL marks per word.
    """
    tail = rest.lstrip(" \t\r\n;:.!?`")
    if tail.startswith(("--", "#")) and clause_later(tail):
        return False  # a note, then ``JOIN writes ON …``: the query goes on after its comment
    if not tail or tail.startswith(("--", "/*", "#", "*", "- ", "\u2022")) or _TABLE_ROW.match(tail) or \
            _CLOSING_TAG.match(tail):
        return True  # prose, a table of made-up results (``| total |``), the end of its markup (``[/code]``)
    if tail.startswith(_STRING_ENDS):
        return True  # the end of the string a program holds the query in: Haskell's ``|]``, Lua's ``]]``
    if tail[0] in "=<>!~|&+-*/%^),.'\"[":
        return False
    if LABEL.match(tail) and re.match(r"[ \t]*\r?\n", rest):
        return True  # "Observation: …" on a line of its own, as in an agent's transcript; no SQL reads so
    head = tail[:300]
    words = TAIL_WORD.findall(head)
    if not words:
        return True
    if words[0].lower() in _CONTINUES or re.match(r"[\w\"]+\s*(?:\.|=|<|>|\()", head):
        return False
    if clause_later(tail):
        return False
    return len(_SQL_MARKS.findall(head)) <= max(1, len(words) // 3)


_CLOSING_TAG = re.compile(r"(?:\[/[A-Za-z]\w*\]|</[A-Za-z]\w*>)[ \t\r]*(?:\n|$)")  # BBCode, HTML
_FETCH_FIRST = re.compile(r"\bFETCH\s+(?:FIRST|NEXT)\s+(\d+)\s+ROWS?\s+ONLY\s*;?\s*$", re.IGNORECASE)
_LIMIT_ONLY = re.compile(r"^\s*LIMIT\s+(\d+)\s*;?\s*$", re.IGNORECASE)


def looser_limit(candidate: str, rest: str) -> bool:
    """``... FETCH FIRST 5 ROWS ONLY`` then ``LIMIT 100``: the second limit cannot change the rows (5 <= 100)."""
    fetch, limit = _FETCH_FIRST.search(candidate), _LIMIT_ONLY.match(rest)
    return bool(fetch and limit and int(fetch.group(1)) <= int(limit.group(1)))
