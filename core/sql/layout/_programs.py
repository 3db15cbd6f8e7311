"""A query written as another language's string in a program that runs it, in that language's own string grammar,
read back to a plain SQL block after the program's block (the program is left as it is):

- **a multi-line raw string with a margin** (Kotlin's ``\"\"\"|SELECT …\"\"\".trimMargin()``, Scala's
  ``.stripMargin``, a Java text block or Kotlin's ``.trimIndent()``): the margin ``|`` (or the one given to
  ``trimMargin("#")``) and the indentation dropped from each line;
- **a string built line by line in one variable** (VBA's ``s = "SELECT … "`` then ``s = s & "FROM … "``, or
  literals joined by ``& _`` continued lines; also ``s &= "…"``, ``s += "…"``, PHP's ``$s .= "…"``): the pieces joined in order, only where every assignment to that
  variable adds a string literal (``s = s & id`` is a value the query does not hold);
- **adjacent string literals** that C, C++ and Python join (``"SELECT … " "FROM … "``);
- **a Python session** (``>>> cur.execute(`` … ``... FROM …``): the prompts dropped, the output lines with them,
  before the strings are read;
- **Perl's quote-like strings** (``$dbh->prepare(q{SELECT …})``, ``qq{…}``, ``q(…)``, ``q[…]``), where the text
  holds no ``$`` or ``@`` to interpolate in ``qq``;
- **a Power Query (M) string** (``Value.NativeQuery(Source, "SELECT …#(lf)FROM …")``): ``#(lf)``, ``#(cr)``,
  ``#(tab)`` as the characters they name and ``""`` as one quote.

Only in a reply with no plain query block (beside one, the program shows how to run it) and under 100,000
characters; a string that does not start a query is no query.
"""

from __future__ import annotations

import re

from core.sql.layout._markup import FENCE as _FENCED
from core.sql.layout._markup import QUERY_START as _QUERY

__all__ = ["program_queries"]

_MAX_CHARS = 100_000
_SQL_LABELS = frozenset({"sql", "postgres", "postgresql", "psql", "sqlite", "sqlite3", "mysql", "plsql", "tsql", ""})
_RAW = re.compile(r'(?:"""(.*?)"""|\'\'\'(.*?)\'\'\')(\s*\.\s*(?:trimMargin\s*\(\s*(?:"([^"\n]+)")?\s*\)|stripMargin\b|trimIndent\s*\(\s*\)))?',
                  re.DOTALL)
_STRING = r'"((?:[^"\\\n]|\\.|"")*)"'
_ASSIGN = re.compile(r"^[ \t]*(?:(?:Dim|Let|Set|var|let|const|string|String|my)[ \t]+)?(\$?[A-Za-z_]\w*)[ \t]*"
                     r"(&=|\+=|\.=|=)([^\n]*)$", re.MULTILINE)
_ADJACENT = re.compile(_STRING + r"(?:\s*" + _STRING + r")+")
_M_STRING = re.compile(r'"((?:[^"]|"")*)"')
_M_ESCAPE = {"lf": "\n", "cr": "", "tab": "\t", "#": "#"}


def program_queries(text: str) -> str:
    """``text`` with each program block followed by SQL blocks of the queries its strings hold (see the module
    docstring); a reply with a plain query block, or too long, as it is."""
    if len(text) > _MAX_CHARS or any(_QUERY.match(re.sub(r"^(?:\s*--[^\n]*\n)*", "", f[3])) for f in _FENCED.finditer(
            text) if f[2].lower() in _SQL_LABELS):
        return text

    def read(fence: re.Match[str]) -> str:
        if fence[2].lower() in _SQL_LABELS:
            return fence[0]
        found = [q.strip() for q in _queries(_without_prompts(fence[3])) if _QUERY.match(q)]
        return fence[0] + "".join(f"\n```sql\n{q}\n```\n" for q in dict.fromkeys(found))

    return _FENCED.sub(read, text)


def _queries(code: str) -> list[str]:
    return [*_raw_strings(code), *_built(code), *_adjacent(code), *_perl(code), *_power_query(code)]


def _without_prompts(code: str) -> str:
    """A Python session's code: the lines after ``>>>`` or ``...`` prompts, its output lines left out."""
    if not re.search(r"^[ \t]*>>>", code, re.MULTILINE):
        return code
    return "\n".join(m[1] for m in re.finditer(r"^[ \t]*(?:>>>|\.\.\.)(?: |$)(.*)$", code, re.MULTILINE))


def _raw_strings(code: str) -> list[str]:
    """Triple-quoted strings, their margin dropped where ``trimMargin``/``stripMargin`` says so."""
    found = []
    for match in _RAW.finditer(code):
        body, call, margin = match[1] if match[1] is not None else match[2], match[3] or "", match[4] or "|"
        if "trimMargin" in call or "stripMargin" in call:
            body = "\n".join(re.sub(r"^[ \t]*" + re.escape(margin), "", line) for line in body.split("\n"))
        found.append(body)
    return found


def _built(code: str) -> list[str]:
    """A variable given a string literal and then only more literals added to it, in order: the joined text."""
    pieces: dict[str, list[str]] = {}
    spoiled: set[str] = set()
    code = re.sub(r"[ \t]+_[ \t]*\r?\n[ \t]*", " ", code)  # VB's line continuation: one logical line
    for match in _ASSIGN.finditer(code):
        name, op, value = match[1], match[2], _value(match[3])
        chain = re.fullmatch(_STRING + r"(?:[ \t]*[&+][ \t]*" + _STRING + r")*", value)
        if op == "=" and chain is not None:
            pieces[name] = [_unescaped(p) for p in re.findall(_STRING, value)]
            continue
        added = re.fullmatch(re.escape(name) + r"[ \t]*(?:&|\+|\.)[ \t]*" + _STRING, value) if op == "=" else None
        literal = added or (re.fullmatch(_STRING, value) if op != "=" else None)
        if name in pieces and literal is not None:
            pieces[name].append(_unescaped(literal[1]))
        elif name in pieces and (op != "=" or re.match(re.escape(name) + r"\b", value)):
            spoiled.add(name)  # a value added that is no literal: no whole query here
    return ["".join(parts) for name, parts in pieces.items() if len(parts) > 1 and name not in spoiled]


def _value(text: str) -> str:
    """An assignment's value without the blanks, ``;`` and comment (``' …``, ``// …``) after its last quote."""
    end = text.rfind('"')
    if end >= 0 and re.fullmatch(r"[ \t]*;?[ \t]*(?:(?:'|//)[^\n]*)?", text[end + 1:]):
        text = text[:end + 1]
    return text.strip()


def _adjacent(code: str) -> list[str]:
    """String literals written one after another with only blanks between (C, C++ and Python join them)."""
    return ["".join(_unescaped(p) for p in re.findall(_STRING, m[0])) for m in _ADJACENT.finditer(code)]


def _perl(code: str) -> list[str]:
    """Perl's ``q{…}`` and ``qq{…}`` (braces nest, as Perl reads them; also ``q(…)``, ``q[…]``), where nothing in a
    ``qq`` string would be interpolated."""
    found = []
    for match in re.finditer(r"\b(qq?)\s*([{(\[])", code):
        close, depth, at = {"{": "}", "(": ")", "[": "]"}[match[2]], 1, match.end()
        while at < len(code) and depth:
            depth += {match[2]: 1, close: -1}.get(code[at], 0)
            at += 1
        body = code[match.end():at - 1]
        if depth == 0 and not (match[1] == "qq" and re.search(r"[$@]\w", body)):
            found.append(body)
    return found


def _power_query(code: str) -> list[str]:
    """Power Query (M) strings that hold its escapes: ``#(lf)``, ``#(cr)``, ``#(tab)``, ``""``."""
    if "#(" not in code:
        return []
    return [re.sub(r"#\((lf|cr|tab|#)\)", lambda e: _M_ESCAPE[e[1]], m[1]).replace('""', '"')
            for m in _M_STRING.finditer(code) if "#(" in m[1]]


def _unescaped(piece: str) -> str:
    """A C-like string literal's text: ``\\n``, ``\\t``, ``\\"`` read; VBA's ``""`` as one quote."""
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m[1], m[1]), piece).replace('""', '"')
