"""A query carried inside something else — another statement, a formula, a writer's marks — read back to the query
alone, as a plain SQL block (another language's string pieces joined by ``+`` are read by ``_unknown``, with every
other way of joining strings).

Each wrapper is a way small models write a query they were asked for, and each is read from its own grammar, never
guessed at; what the wrapper adds is dropped and the query inside is kept exactly as written:

- **A statement around the query**: ``EXPLAIN [ANALYZE | QUERY PLAN | (options)] SELECT …`` (the plan instead of the
  rows: the rows are what was asked), ``COPY (SELECT …) TO …`` and psql's ``\\copy (SELECT …) TO 'f.csv' …`` (the rows
  into a file Cairn does not write), ``PREPARE q [(types)] AS SELECT …; EXECUTE q [(args)]`` (``$1`` … read as the
  arguments ``EXECUTE`` passes, written as literals; a parameter with no literal for it leaves the whole as written).
- **A formula**: LaTeX's ``\\boxed{…}`` (a maths-trained model's final answer), its ``\\text{…}`` and escapes
  (``\\_``, ``\\%``, ``\\&``, ``\\{``): the query inside, as a SQL block.
- **A writer's marks inside SQL**: Markdown's bold around a whole clause at a line's end (``**WHERE x = 1**``; not a
  keyword alone, not a clause that prose follows: ``**ORDER BY price** sorts …`` is prose) and a backslash that
  continues a line (``SELECT a \\`` as in a shell or Python): the marks dropped. A line so marked is SQL, never prose
  to cut the statement at (that had left out the emphasised WHERE, and the rest ran without it).

The statements and strings around a query are read only in a reply with no plain query block (beside one they are
illustrations: a plan to check, an export, a call from Java with another value) and under 100,000 characters.
"""

from __future__ import annotations

import re

from sqlglot.tokens import Tokenizer, TokenType

from core.sql._slips import PARSE_FAILURES
from core.sql.layout._markup import FENCE as _FENCED
from core.sql.layout._markup import QUERY_START as _QUERY

__all__ = ["wrappers_read"]

_MAX_CHARS = 100_000  # a reply longer than this is read as written: each reading below scans it
_SCAN = 20_000  # how far one reading looks for its closing brace or parenthesis
_EXPLAIN = re.compile(r"^([ \t]*)EXPLAIN(?:[ \t]+QUERY[ \t]+PLAN|[ \t]*\([^()\n]*\)|"
                      r"(?:[ \t]+(?:ANALYZE|ANALYSE|VERBOSE|FORMAT[ \t]+\w+))*)[ \t]*\n?[ \t]*(?=(?:SELECT|WITH)\b)",
                      re.IGNORECASE | re.MULTILINE)
_COPY = re.compile(r"^[ \t]*\\?copy[ \t]*\(", re.IGNORECASE | re.MULTILINE)
_PREPARE = re.compile(r"^[ \t]*PREPARE[ \t]+(\w+)[ \t]*(?:\(([\w ,]*)\))?[ \t]*AS[ \t]*\n?", re.IGNORECASE | re.MULTILINE)
_LITERAL = r"'(?:[^']|'')*'|-?\d+(?:\.\d+)?"
_BOXED = re.compile(r"\\boxed\s*\{")
_TEX_ESCAPE = re.compile(r"\\([_%&#${}])")
_CLAUSE = (r"(?:SELECT|WITH|FROM|WHERE|GROUP[ \t]+BY|ORDER[ \t]+BY|HAVING|LIMIT|OFFSET|UNION|AND|OR|ON|"
           r"(?:(?:LEFT|RIGHT|FULL|INNER|CROSS)[ \t]+)?(?:OUTER[ \t]+)?JOIN)\b")
# the marks around a clause and what follows its keyword; a quoted value inside it is read whole (it may hold
# anything, ** included); nothing but a comment or a ';' after the marks (``**ORDER BY price** sorts …`` is prose)
_EMPHASIS = re.compile(r"\*\*(" + _CLAUSE + r"(?:'[^'\n]*'|[^'*\n]|\*(?!\*))*?)\*\*(?=[ \t]*;?[ \t]*(?:--[^\n]*)?$)",
                       re.IGNORECASE)
_KEYWORD_ONLY = re.compile(_CLAUSE + r"[ \t;]*", re.IGNORECASE)
_CONTINUED = re.compile(r"(?<![ \t])[ \t]+\\[ \t]*$")  # from the first space of a run: linear on long runs


def wrappers_read(text: str) -> str:
    """``text`` with each wrapper of the module docstring read back to the query it carries. The statements and
    strings around a query are read only where the reply holds no plain query block: beside one, they are the
    model's illustrations (a plan to check, an export, a call from Java, another value), never its answer."""
    text = "\n".join(_emphasis_dropped(line) for line in text.split("\n"))
    text = _continuations_dropped(text)
    if len(text) > _MAX_CHARS or _plain_query_block(text):
        return text
    text = _boxed_read(text)
    text = _EXPLAIN.sub(lambda m: m[1], text)
    text = _copied_read(text)
    return _prepared_read(text)


def _plain_query_block(text: str) -> bool:
    """Whether a fenced block of ``text`` starts with a query (comments and blank lines before it aside)."""
    return any(_QUERY.match(re.sub(r"^(?:\s*--[^\n]*\n)*", "", fence[3])) for fence in _FENCED.finditer(text))


def _emphasis_dropped(line: str) -> str:
    """``line`` with Markdown emphasis around a clause dropped, where the marks stand outside quoted values."""
    def outside(at: int) -> bool:
        return line[:at].count("'") % 2 == 0

    return _EMPHASIS.sub(lambda m: m[1] if outside(m.start()) and outside(m.end()) and not _KEYWORD_ONLY.fullmatch(
        m[1]) else m[0], line)


def _boxed_read(text: str) -> str:
    """``\\boxed{…}`` whose content (inside ``\\text{…}`` or not) starts a query: that content, unescaped, as a SQL
    block, the formula's delimiters (``$``, ``\\[ \\]``) with it."""
    out, at = [], 0
    for found in list(_BOXED.finditer(text))[:20]:  # a reply boxes one answer, or a few
        if found.start() < at:
            continue
        inner, end = _braced(text, found.end())
        if inner is None:
            continue
        body = inner.strip()
        text_call = re.fullmatch(r"\\text(?:tt)?\s*\{(.*)\}", body, re.DOTALL)
        body = _TEX_ESCAPE.sub(r"\1", text_call[1] if text_call else body).replace("\\textbackslash{}", "\\")
        if not _QUERY.match(body):
            continue
        start = found.start()
        before = text[:start].rstrip()
        opener = "$$" if before.endswith("$$") else "\\[" if before.endswith("\\[") else "$" if before.endswith(
            "$") else ""
        closer = {"$$": "$$", "\\[": "\\]", "$": "$"}.get(opener, "")
        after = text[end:]
        if closer and after.lstrip(" \t\n").startswith(closer):
            start = len(before) - len(opener)
            end += len(after) - len(after.lstrip(" \t\n")) + len(closer)
        out.append(text[at:start] + f"\n```sql\n{body.strip()}\n```\n")
        at = end
    return "".join(out) + text[at:]


def _braced(text: str, start: int) -> tuple[str | None, int]:
    """The text from ``start`` to the brace that closes the one before it (escaped braces skipped), and the index
    after that brace; (None, start) when it never closes."""
    depth, i = 1, start
    while i < min(len(text), start + _SCAN):
        if text[i] == "\\":
            i += 2
            continue
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text[start:i], i + 1
        i += 1
    return None, start


def _continuations_dropped(text: str) -> str:
    """A run of lines each ending with a backslash that continues it, the run starting a query: the backslashes
    dropped (SQL never ends a line with one; psql would read it as a command)."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if _QUERY.match(lines[i]) and _CONTINUED.search(lines[i]):
            j = i
            while j < len(lines) and _CONTINUED.search(lines[j]):
                lines[j] = _CONTINUED.sub("", lines[j])
                j += 1
            i = j
        i += 1
    return "\n".join(lines)


def _copied_read(text: str) -> str:
    """``COPY (query) TO …`` / ``\\copy (query) TO …``: the query, the rest of the statement dropped."""
    copies = list(_COPY.finditer(text))[:50]  # a reply exports a query or a few
    for found, following in reversed(list(zip(copies, [*copies[1:], None][:len(copies)], strict=True))):
        close = _closing_paren(text[:following.start()] if following else text, found.end())
        if close is None or not _QUERY.match(text[found.end():close]):
            continue
        tail = re.match(r"\s*TO\b[^\n;]*(?:\n[ \t]*(?:WITH|CSV|HEADER|DELIMITER|FORMAT|NULL|ENCODING|QUOTE|FORCE)\b"
                        r"[^\n;]*)*;?", text[close + 1:], re.IGNORECASE)
        if tail is None:
            continue
        text = text[:found.start()] + text[found.end():close].strip() + ";" + text[close + 1 + tail.end():]
    return text


def _closing_paren(text: str, start: int) -> int | None:
    """The index of the ``)`` that closes the ``(`` just before ``start``, by sqlglot's tokens (quotes and comments
    read as SQL reads them); None when it never closes or the text does not tokenize."""
    window = text[start:start + _SCAN]
    fence = window.find("```")
    try:
        tokens = Tokenizer().tokenize(window if fence < 0 else window[:fence])
    except PARSE_FAILURES:
        return None
    depth = 1
    for token in tokens:
        depth += (token.token_type == TokenType.L_PAREN) - (token.token_type == TokenType.R_PAREN)
        if depth == 0:
            return start + token.start
    return None


def _prepared_read(text: str) -> str:
    """``PREPARE q [(types)] AS query; EXECUTE q(args);``: the query with ``$n`` read as the n-th literal argument —
    cast to its declared type, else in parentheses (``price-$1`` with -5 is ``price-(-5)``), never inside a quoted
    value —; left as written when a parameter has no literal, or the statement is never executed."""
    found = _PREPARE.search(text)
    if found is None or not _QUERY.match(text[found.end():]):
        return text
    execute = re.compile(rf"^[ \t]*EXECUTE[ \t]+{re.escape(found[1])}\b[ \t]*(?:\((.*?)\))?[ \t]*;?[ \t]*$",
                         re.IGNORECASE | re.MULTILINE)
    call = execute.search(text, found.end())
    if call is None:
        return text
    args = re.findall(_LITERAL, call[1] or "")
    if call[1] and re.sub(r"\s", "", ",".join(args)) != re.sub(r"\s", "", call[1]):
        return text  # an argument that is no literal (an expression, a column): not read
    types = [t.strip() for t in found[2].split(",")] if found[2] else []
    body = text[found.end():call.start()]
    if any(int(n) > len(args) for n in re.findall(r"\$(\d+)", body)) or (types and len(types) != len(args)):
        return text

    def value(m: re.Match[str]) -> str:
        n = int(m[1]) - 1
        return f"CAST({args[n]} AS {types[n]})" if types else f"({args[n]})"

    pieces = body.split("'")  # a quoted value's $1 is text
    body = "'".join(re.sub(r"\$(\d+)", value, p) if i % 2 == 0 else p for i, p in enumerate(pieces))
    return text[:found.start()] + body.rstrip() + "\n" + text[call.end():]
