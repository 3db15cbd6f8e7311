"""A query written as another language's string in a program that runs it, in that language's own string grammar,
read back to a plain SQL block after the program's block (the program is left as it is):

- **Perl's quote-like strings** (``$dbh->prepare(q{SELECT …})``, ``qq{…}``, ``q(…)``, ``q[…]``), where the text
  holds no ``$`` or ``@`` to interpolate in ``qq``;
- **a Power Query (M) string** (``Value.NativeQuery(Source, "SELECT …#(lf)FROM …")``): ``#(lf)``, ``#(cr)``,
  ``#(tab)`` as the characters they name and ``""`` as one quote.

The shapes many languages share — a Kotlin margin string, VBA's string built line by line, C's adjacent literals, a
Python session's prompts — are read by ``_unknown`` (string literals joined by concatenation, margins), which replaced
the readers this module had for them.

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
        found = [q.strip() for q in _queries(fence[3]) if _QUERY.match(q)]
        return fence[0] + "".join(f"\n```sql\n{q}\n```\n" for q in dict.fromkeys(found))

    return _FENCED.sub(read, text)


def _queries(code: str) -> list[str]:
    return [*_perl(code), *_power_query(code)]


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
