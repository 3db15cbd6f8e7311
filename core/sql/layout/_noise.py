"""Marks a tool or a model leaves inside a reply that are no part of it, dropped before the reply is read:

- **fill-in-the-middle tokens** of a code model (``<fim_prefix>``, ``<fim_suffix>``, ``<|fim_middle|>``,
  DeepSeek's ``<｜fim▁hole｜>``), anywhere — the text around them is the query, in order;
- **a terminal's colour codes** (ANSI escapes, ``ESC[1;34m``), as a reply copied from a coloured console holds them;
- **a chat tool's source citations** (``【6†schema.sql】``: a number and a dagger; other text in 【】 is data);
- **Markdown strikethrough** (``~~domain.did~~ domain.name``): the struck words are what the writer took back — only a
  span whose marks touch its words on the inside and a blank on the outside, so PostgreSQL's ``x ~~ 'a%'``,
  ``x~~'a%'`` and ``!~~`` (LIKE, NOT LIKE) are operators, not marks;
- **an evaluation file's line** (Spider's gold files: the query, a tab, the database's name): the name after the tab
  on the statement's last line, where the query ends before it and the name is no SQL word (``ORDER BY age<TAB>DESC``).

Never inside a quoted value (``'~~draft~~ final'``, ``'【6†x】'`` are data).

None of these can be SQL where it stands: a FIM token and an escape character are no SQL characters, 【】 are none
either, and ``~~word~~`` is no PostgreSQL expression.
"""

from __future__ import annotations

import re

from sqlglot.tokens import Tokenizer

__all__ = ["OPEN_END", "noise_dropped"]

_KEYWORDS = frozenset(k.upper() for k in Tokenizer.KEYWORDS)  # ``ORDER BY age<TAB>DESC``: SQL, not a name

_FIM = re.compile(r"<\|?fim[_-](?:prefix|suffix|middle|pad|hole|begin|end)\|?>|<｜fim▁(?:begin|hole|end)｜>",
                  re.IGNORECASE)
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")  # colours; a title set (OSC)
_QUOTED = r"'(?:[^'\n]|'')*'"  # a value on its line: kept as it is
_CITATION = re.compile(_QUOTED + r"|[ \t]?【\d+(?::\d+)?†[^】\n]{0,120}】")  # a chat tool's: a number and a dagger
_STRUCK = re.compile(_QUOTED + r"|(?<![^\s(])~~(?=[^\s~])[^~\n']{1,200}?(?<=[^\s~])~~(?![^\s),;])[ \t]?")  # never
# PostgreSQL's ``x~~'a%'`` or ``!~~``: a mark stands after a blank and before one
_TAB_NAME = re.compile(r"^([ \t]*(?:SELECT|WITH)\b[^\t\n]*?[^\s,(])\t+([A-Za-z_][\w.-]*)[ \t]*(?=\n[ \t]*(?:```|~~~)|\s*\Z)",
                       re.IGNORECASE | re.MULTILINE)  # on the statement's last line: nothing follows but a fence
OPEN_END = re.compile(r"(?:\b(?:UNION|ALL|INTERSECT|EXCEPT|DISTINCT|AND|OR|NOT|WHERE|ON|JOIN|FROM|SELECT|BY|HAVING|AS|"
                      r"WITH|THEN|ELSE|WHEN|CASE|IN|IS|LIKE|BETWEEN|LIMIT|OFFSET)|[,(=<>+*/-])$", re.IGNORECASE)  # a
# statement that stops here needs more (shared with ``_blocks``)


def noise_dropped(text: str) -> str:
    """``text`` without the marks of the module docstring."""
    text = _FIM.sub("", text)
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    if "【" in text:
        text = _CITATION.sub(_unless_quoted, text)
    if "~~" in text:
        text = _STRUCK.sub(_unless_quoted, text)
    if "\t" in text:
        text = _TAB_NAME.sub(lambda m: m[0] if OPEN_END.search(m[1]) or m[2].upper() in _KEYWORDS else m[1], text)
    return text


def _unless_quoted(match: re.Match[str]) -> str:
    return match[0] if match[0].startswith("'") else ""
