"""A query carried inside something else — another statement, another language's strings, a formula, a writer's
marks — read back to the query alone, as a plain SQL block.

Each wrapper is a way small models write a query they were asked for, and each is read from its own grammar, never
guessed at; what the wrapper adds is dropped and the query inside is kept exactly as written:

- **A statement around the query**: ``EXPLAIN [ANALYZE | QUERY PLAN | (options)] SELECT …`` (the plan instead of the
  rows: the rows are what was asked), ``COPY (SELECT …) TO …`` and psql's ``\\copy (SELECT …) TO 'f.csv' …`` (the rows
  into a file Cairn does not write), ``PREPARE q [(types)] AS SELECT …; EXECUTE q [(args)]`` (``$1`` … read as the
  arguments ``EXECUTE`` passes, written as literals; a parameter with no literal for it leaves the whole as written).
- **Another language's string pieces**: ``String sql = "SELECT … " + "FROM … " + …;`` (Java, C#, JavaScript, Go):
  string literals joined by ``+`` whose first starts a query, read as that language reads them (``\\"``, ``\\n``).
- **A formula**: LaTeX's ``\\boxed{…}`` (a maths-trained model's final answer), its ``\\text{…}`` and escapes
  (``\\_``, ``\\%``, ``\\&``, ``\\{``): the query inside, as a SQL block.
- **A writer's marks inside SQL**: Markdown emphasis around a clause (``**WHERE x = 1**``) and a backslash that
  continues a line (``SELECT a \\`` as in a shell or Python): the marks dropped. A line so marked is SQL, never prose
  to cut the statement at (that had left out the emphasised WHERE, and the rest ran without it).
"""

from __future__ import annotations

import re

from sqlglot.tokens import Tokenizer, TokenType

from core.sql._slips import PARSE_FAILURES

__all__ = ["wrappers_read"]

_QUERY = re.compile(r"\s*\(*\s*(?:SELECT|WITH)\b", re.IGNORECASE)
_EXPLAIN = re.compile(r"^([ \t]*)EXPLAIN(?:[ \t]+QUERY[ \t]+PLAN|[ \t]*\([^()\n]*\)|"
                      r"(?:[ \t]+(?:ANALYZE|ANALYSE|VERBOSE|FORMAT[ \t]+\w+))*)[ \t]*\n?[ \t]*(?=(?:SELECT|WITH)\b)",
                      re.IGNORECASE | re.MULTILINE)
_COPY = re.compile(r"^[ \t]*\\?copy[ \t]*\(", re.IGNORECASE | re.MULTILINE)
_PREPARE = re.compile(r"^[ \t]*PREPARE[ \t]+(\w+)[ \t]*(?:\([^()]*\))?[ \t]+AS[ \t]*\n?", re.IGNORECASE | re.MULTILINE)
_LITERAL = r"'(?:[^']|'')*'|-?\d+(?:\.\d+)?"
_STRING = r'"((?:[^"\\\n]|\\.)*)"'
# only literals: a piece joined to a variable or a call (``+ where``, ``+ id``) is no whole query
_CONCAT = re.compile(r"(?<![+\w]\s)(?<![+\w])" + _STRING + r"(?:\s*\+\s*" + _STRING + r")+(?!\s*\+)")
_FENCED = re.compile(r"(```|~~~)[ \t]*([\w+-]*)[^\n]*\n(.*?)(?:\1|\Z)", re.DOTALL)
_PIECE = re.compile(_STRING)
_BOXED = re.compile(r"\\boxed\s*\{")
_TEX_ESCAPE = re.compile(r"\\([_%&#${}])")
_CLAUSE = (r"(?:SELECT|WITH|FROM|WHERE|GROUP[ \t]+BY|ORDER[ \t]+BY|HAVING|LIMIT|OFFSET|UNION|AND|OR|ON|"
           r"(?:(?:LEFT|RIGHT|FULL|INNER|CROSS)[ \t]+)?(?:OUTER[ \t]+)?JOIN)\b")
# the marks around a clause; a quoted value inside it is read whole (it may hold anything, ** included)
_EMPHASIS = re.compile(r"(\*\*|__)(" + _CLAUSE + r"(?:'[^'\n]*'|[^'*\n]|\*(?!\*))*?)\1", re.IGNORECASE)
_CONTINUED = re.compile(r"[ \t]+\\[ \t]*$")


def wrappers_read(text: str) -> str:
    """``text`` with each wrapper of the module docstring read back to the query it carries."""
    text = _boxed_read(text)
    text = _concatenations(text)
    text = "\n".join(_emphasis_dropped(line) for line in text.split("\n"))
    text = _continuations_dropped(text)
    text = _EXPLAIN.sub(lambda m: m[1], text)
    text = _copied_read(text)
    return _prepared_read(text)


def _emphasis_dropped(line: str) -> str:
    """``line`` with Markdown emphasis around a clause dropped, where the marks stand outside quoted values."""
    def outside(at: int) -> bool:
        return line[:at].count("'") % 2 == 0

    return _EMPHASIS.sub(lambda m: m[2] if outside(m.start()) and outside(m.end()) else m[0], line)


def _concatenations(text: str) -> str:
    """Queries written as another language's string literals joined by ``+``: in a fenced block of that language,
    a SQL block of each after it (the code is left as it is); elsewhere, in its place."""
    def inline(part: str) -> str:
        return _CONCAT.sub(lambda m: f"\n```sql\n{q}\n```\n" if (q := _joined(m)) else m[0], part)

    out, at = [], 0
    for fence in _FENCED.finditer(text):
        found = [q for q in map(_joined, _CONCAT.finditer(fence[3])) if q]
        out += [inline(text[at:fence.start()]), fence[0], *(f"\n```sql\n{q}\n```\n" for q in found)]
        at = fence.end()
    return "".join([*out, inline(text[at:])])


def _joined(match: re.Match[str]) -> str | None:
    """The contents of string literals joined by ``+``, unescaped, when the first starts a query; else None."""
    pieces = [p[1] for p in _PIECE.finditer(match[0])]
    if not _QUERY.match(pieces[0]):
        return None
    body = "".join(re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m[1], m[1]), p) for p in pieces)
    return body.strip()


def _boxed_read(text: str) -> str:
    """``\\boxed{…}`` whose content (inside ``\\text{…}`` or not) starts a query: that content, unescaped, as a SQL
    block, the formula's delimiters (``$``, ``\\[ \\]``) with it."""
    out, at = [], 0
    for found in _BOXED.finditer(text):
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
    while i < len(text):
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
    for found in reversed(list(_COPY.finditer(text))):
        close = _closing_paren(text, found.end())
        if close is None or not _QUERY.match(text[found.end():close]):
            continue
        tail = re.match(r"\s*TO\b[^\n;]*;?", text[close + 1:], re.IGNORECASE)
        if tail is None:
            continue
        text = text[:found.start()] + text[found.end():close].strip() + ";" + text[close + 1 + tail.end():]
    return text


def _closing_paren(text: str, start: int) -> int | None:
    """The index of the ``)`` that closes the ``(`` just before ``start``, by sqlglot's tokens (quotes and comments
    read as SQL reads them); None when it never closes or the text does not tokenize."""
    try:
        tokens = Tokenizer().tokenize(text[start:])
    except PARSE_FAILURES:
        return None
    depth = 1
    for token in tokens:
        depth += (token.token_type == TokenType.L_PAREN) - (token.token_type == TokenType.R_PAREN)
        if depth == 0:
            return start + token.start
    return None


def _prepared_read(text: str) -> str:
    """``PREPARE q AS query; EXECUTE q(args);``: the query with ``$n`` read as the n-th literal argument; left as
    written when a parameter has no literal, or the statement is never executed."""
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
    body = text[found.end():call.start()]
    if any(int(n) > len(args) for n in re.findall(r"\$(\d+)", body)):
        return text
    body = re.sub(r"\$(\d+)(?:::\w+)?", lambda m: args[int(m[1]) - 1], body)
    return text[:found.start()] + body.rstrip() + "\n" + text[call.end():]
