"""Code fences written wrong, and a query written as a list of its lines, read back to a plain SQL block:

- **a fence's label run into the query** (```` ```sqlSELECT … ````: no line break after the label): the label and
  the query on two lines, where the label is one of SQL's (or none) and a statement's first word follows it;
- **a closing fence with no opening one** (the query, then ```` ``` ```` alone on its line, as the first fence of
  the reply, and no query after it — else it opens a block never closed): the query from the first line before it
  that starts one and reads, with all that follows it up to the fence, as one statement (a UNION's last SELECT
  alone reads too);
- **a query as a list of its lines** (a JSON array ``["SELECT a", "FROM t"]``, or a Python list ``query_lines =
  [...]`` joined with ``"\\n".join``): the lines joined, where the first starts a query and all of them read as one
  statement — never one line alone (``SELECT a`` reads as a query by itself, and is not the one written), and never
  where the code around the list adds other text to it (``+ "\\nHAVING …"``).

Each layout is read only where the result is one statement the parser reads; anything else is left as written.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from core.sql.layout._markup import QUERY_START, STRING_LITERAL, literal_value

__all__ = ["fences_read"]

_FUSED = re.compile(r"^([ \t]*(?:```|~~~))([A-Za-z0-9+-]*?)((?:SELECT|WITH)\b)", re.MULTILINE | re.IGNORECASE)
_MARK = re.compile(r"^[ \t]*(?:```|~~~)([^\n]*)$", re.MULTILINE)
_LINE_START = re.compile(r"^[ \t]*\(*[ \t]*(?:SELECT|WITH)\b", re.MULTILINE | re.IGNORECASE)
_LIST = re.compile(rf"\[\s*(?:(?:{STRING_LITERAL})\s*,\s*)+(?:{STRING_LITERAL})\s*,?\s*\]")
_ADDED = re.compile(r"\+=?\s*[fFrRbBuU]?[\"']|[\"']\s*\+|\.format\(|%\s*\(")  # text added to a string
_BLOCK = re.compile(r"(```|~~~)[^\n]*\n(.*?)\1", re.DOTALL)
_MAX_CHARS = 20_000


def fences_read(text: str, sql_langs: frozenset[str], reads: Callable[[str], bool]) -> str:
    """``text`` with the layouts above read back (``reads(sql)``: whether ``sql`` is one statement the parser
    reads, in either dialect)."""
    if len(text) > _MAX_CHARS:
        return text
    text = _FUSED.sub(lambda m: f"{m[1]}{m[2]}\n{m[3]}" if m[2].lower() in sql_langs | {""} else m[0], text)
    return _closed_only(_lines_joined(text, reads), reads)


def _closed_only(text: str, reads: Callable[[str], bool]) -> str:
    """The query before a closing fence that no fence opened (see the module's docstring)."""
    marks = list(_MARK.finditer(text))
    if len(marks) % 2 == 0 or marks[0][1].strip():
        return text  # fences in pairs, or the first one opens a block (it has a label)
    fence = marks[0]
    head = text[:fence.start()]
    if _LINE_START.search(text, fence.end()):
        return text  # a query follows the fence: it opens a block it never closed, and the text before is prose
    for start in [m.start() for m in _LINE_START.finditer(head)]:  # the first start that reads to the fence: the
        sql = head[start:].strip()  # whole statement (a UNION's or a WITH's later SELECT alone reads too)
        if reads(sql.rstrip(";")):
            return f"{head[:start]}```sql\n{sql}\n{text[fence.start():].lstrip()}"
    return text


def _lines_joined(text: str, reads: Callable[[str], bool]) -> str:
    """A list of a query's lines, as the query (see the module's docstring): the code block holding the list is
    replaced by a SQL block, or the list itself where it stands in prose."""
    for match in _LIST.finditer(text):
        lines = _strings(match[0])
        if lines is None or len(lines) < 2 or not QUERY_START.match(lines[0]):
            continue
        sql = "\n".join(line.rstrip() for line in lines).strip()
        block = next((b for b in _BLOCK.finditer(text) if b.start() < match.start() < b.end()), None)
        rest = (block[0] if block else "").replace(match[0], "")
        if _ADDED.search(rest):
            continue  # the code adds other text to the lines (``+ "\nHAVING …"``): not the query as listed
        if reads(sql.rstrip(";")):
            start, end = (block.start(), block.end()) if block else (match.start(), match.end())
            return f"{text[:start]}```sql\n{sql}\n```{text[end:]}"
    return text


def _strings(listed: str) -> list[str] | None:
    """The string items of a JSON or Python list literal, as the language reads them; None where neither does."""
    items = literal_value(listed)
    return items if isinstance(items, list) and all(isinstance(i, str) for i in items) else None
