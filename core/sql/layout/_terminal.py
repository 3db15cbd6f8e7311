"""SQL written as it is typed at a terminal, or as a writer formats it, read back to plain SQL blocks.

Each is a way a small model shows its query, read from the reply's own structure; none changes what the query says:

- **A database shell's transcript**: ``shop=> SELECT …`` then ``shop-> FROM …`` (psql), ``sqlite> `` and ``...> ``,
  ``mysql> `` and ``-> ``. The prompts go; the query's lines stay (its result table after ``;`` is prose).
- **A shell command that carries the query**: ``psql -d shop -c "SELECT …"``, ``sqlite3 shop.db 'SELECT …'``,
  ``mysql -e "…"``, or a heredoc (``psql <<'SQL'`` … ``SQL``): the quoted or enclosed query, as a SQL block.
- **An agent's transcript** (``Action Input: SELECT …`` lines between ``Thought:`` and ``Observation:``): each input
  a SQL block, so the last one — the query the agent settled on, after a look at the data or a failed try — answers.
- **A Windows command that carries the query**: PowerShell's ``Invoke-Sqlcmd … -Query "SELECT …"``, ``sqlcmd -Q
  "…"``: the quoted query (PowerShell's ``""`` and backtick escapes read), as a SQL block.
- **An HTTP call that posts the query** (``curl … -d '{"query": "SELECT …"}'``): the shell's ``'\\''`` read as the
  quote it writes, so the JSON body reads (``_documents`` takes its query).
- **A session variable set, then read**: ``SET @vendor = 'Utility Company';`` or ``DECLARE @d DATE = '2023-03-31';``
  (MySQL, T-SQL), or psql's ``\\set vendor 'x'``, then ``= @vendor`` / ``= :'vendor'``: the value written where it is
  read, the setting dropped. Only a value written as a literal, and only when every use is replaced.
- **A session set up around the query** (``SET statement_timeout = '30s';``, ``SET search_path TO shop;``,
  ``PRAGMA …;``, ``BEGIN;`` … ``COMMIT;``, ``\\timing``, ``.headers on``) on lines of their own: dropped.
- **MySQL's client ``DELIMITER $$``**, the query ended by ``$$``, then ``DELIMITER ;``: the directives dropped and the
  statement ended by ``;`` (only where the new mark ends a line, outside quoted values).
- **A query drawn in an ASCII box** (a ``+-----+`` line, each line of the query between ``| `` and `` |``, a
  ``+-----+`` line): the query without its frame.
- **A Markdown block quote** (``> SELECT …`` on every line): the marks dropped.
- **Markdown's escapes** (``first\\_name``, ``COUNT(\\*)``) outside quoted values: read unescaped.
- **A look-alike letter** of another script in a word of Latin letters (``FRОM`` with a Cyrillic О): the Latin
  letter; a word all in one script (a Russian column name) is left.
- **Invisible characters** (a zero-width space or joiner, a word joiner, a byte-order mark) between two ASCII
  characters, outside quoted values: dropped (the scripts that join letters with them keep theirs).
- **The MySQL client's ``\\G``** (or ``\\g``, psql's too) ending a statement at a line's end: read as ``;``.
- **A comment written with a typographic dash** (``– source table``, ``— Final query``) at a line's start or after
  two spaces, before words: ``--``.
- **Full-width punctuation** (``，``, ``（``, ``）``, ``；``, ``＝``) outside quoted values: the ASCII character.
- **An arrow that annotates a line** (``LIMIT 1  <- only the top rows``, ``FROM sales ⬅ start here``) followed by
  prose: dropped with its prose.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from core.sql._explanations import sentence

__all__ = ["CLIENT_SETTING", "terminal_read"]

CLIENT_SETTING = re.compile(r"(?i)\s*(?:SET\s+(?:PAGES(?:IZE)?|LINES(?:IZE)?|FEEDBACK|HEADING|ECHO|TERMOUT|VERIFY|TRIMSPOOL|"
                            r"SERVEROUTPUT|COLSEP|NUMWIDTH|LONG|WRAP|TIMING)|COL(?:UMN)?\s+\w+\s+FORMAT|[TB]TITLE|SPOOL)\b")  # SQL*Plus's
# settings before a query in its block: not its statement (a SET a database reads, search_path, stays)

_QUERY = r"(?:SELECT|WITH)\b"
# A database shell's prompt at a line's start: psql (``shop=>``, ``shop=#``, ``shop->``, ``shop(>``), SQLite
# (``sqlite>``, ``...>``), MySQL/MariaDB (``mysql>``, ``MariaDB [shop]>``, ``->``).
_PROMPT = re.compile(r"^[ \t]*(?:[A-Za-z_][\w.-]*(?:=|-|\(|'|\")[>#]|sqlite>|\.\.\.>|(?:mysql|mariadb)>|"
                     r"MariaDB \[[^\]\n]*\]>|->)[ \t]?", re.MULTILINE | re.IGNORECASE)
_COMMAND = re.compile(r"^[ \t]*\$?[ \t]*(?:psql|sqlite3|mysql|mariadb|duckdb)\b[^\n]*?(?:\s-[ce]|\s--command=?|\s)"
                      r"\s*(\"(?:[^\"\\]|\\.)*\"|'(?:[^']|'\\'')*')[^\n]*", re.MULTILINE | re.IGNORECASE)  # '\'' a quote
_HEREDOC = re.compile(r"^[ \t]*\$?[ \t]*(?:psql|sqlite3|mysql|mariadb|duckdb)\b[^\n]*<<-?[ \t]*(['\"]?)(\w+)\1[^\n]*\n"
                      r"(.*?)\n[ \t]*\2[ \t]*$", re.MULTILINE | re.DOTALL | re.IGNORECASE)
_LITERAL = r"(?:'(?:[^']|'')*'|-?\d+(?:\.\d+)?|(?:DATE|TIMESTAMP)\s*'[^']*')"
_SETTING = re.compile(rf"^[ \t]*(?:SET[ \t]+@(\w+)[ \t]*:?=[ \t]*({_LITERAL})|DECLARE[ \t]+@(\w+)[ \t]+[\w() ,]+?"
                      rf"[ \t]*=[ \t]*({_LITERAL})|\\set[ \t]+(\w+)[ \t]+({_LITERAL}))[ \t]*;?[ \t]*$",
                      re.MULTILINE | re.IGNORECASE)
# A statement that sets up a session around a query — a setting, a transaction, a shell's dot command — on a line of
# its own, before a query (or a transaction's end after one). Cairn only reads, and names every table itself.
_SESSION = re.compile(r"[ \t]*(?:SET[ \t]+(?!@)[\w.]+[ \t]*(?:=|TO\b)[^;\n]*|PRAGMA[ \t]+\w+[^;\n]*|"
                      r"BEGIN(?:[ \t]+TRANSACTION)?|START[ \t]+TRANSACTION|USE[ \t]+\w+|\\(?:timing|x)\b[^\n]*|"
                      r"\.(?:headers|mode|timer)\b[^\n]*)[ \t]*;?[ \t]*", re.IGNORECASE)
_TRANSACTION_END = re.compile(r"[ \t]*(?:COMMIT|ROLLBACK|END)(?:[ \t]+TRANSACTION)?[ \t]*;?[ \t]*", re.IGNORECASE)
_QUOTE_MARK = re.compile(r"^[ \t]*>[ \t]?", re.MULTILINE)
_MD_ESCAPE = re.compile(r"\\([_*#\[\]()`|])")
# An invisible character between two ASCII ones, one of them perhaps a space (``W\u200bHERE``, ``GROUP\u200b BY``):
# Persian, Urdu and Indic scripts
# write ZWNJ/ZWJ inside their words, so only a split keyword or Latin name is joined.
_INVISIBLE = re.compile(r"(?<=[!-~])[\u200b\u200c\u200d\u2060\ufeff]+(?=[ -~])|"
                        r"(?<=[ -~])[\u200b\u200c\u200d\u2060\ufeff]+(?=[!-~])")  # beside a space too: GROUP\u200b BY
_CLIENT_END = re.compile(r"(?<=[\w)'\"`*])[ \t]*\\(?:[Gg]|gx)(?:[ \t]+[\w./-]+)?[ \t]*;?[ \t]*$",
                         re.MULTILINE)  # SELECT …\G, psql's \gx or \g file: a terminator
_ARROW = re.compile(r"(?<![ \t])[ \t]+(?:<-{1,2}|←|⬅|⇐|⟵)[ \t]+(\S[^\n]*)$", re.MULTILINE)  # linear on runs of spaces


def terminal_read(text: str) -> str:
    """``text`` with each layout of the module docstring read back to plain SQL."""
    text = _HEREDOC.sub(lambda m: f"```sql\n{m[3]}\n```" if re.match(rf"\s*\(*\s*{_QUERY}", m[3], re.I) else m[0],
                        text)
    text = _AGENT_INPUT.sub(lambda m: f"```sql\n{m[1].strip()}\n```", text) if "Action Input" in text else text
    text = _COMMAND.sub(_command_query, text)
    text = _SQLCMD.sub(_sqlcmd_query, text) if "qlcmd" in text.lower() else text
    text = _CURL.sub(lambda m: m[0].replace("'\\''", "'"), text) if "curl" in text else text
    text = _prompts_dropped(text)
    text = _block_quote(text)
    text = _BOX.sub(_unboxed, text) if re.search(r"[+┌╔][-─═]", text) else text
    text = _outside_values(text, _plain_characters)
    text = _DASH_NOTE.sub("-- ", text) if "\u2013" in text or "\u2014" in text else text
    text = _CLIENT_END.sub(";", text) if "\\" in text else text
    text = _variables_read(text)
    text = _delimiters_read(text)
    text = _session_dropped(text)
    return "\n".join(_ARROW.sub(_annotation, line) for line in text.split("\n"))


def _annotation(match: re.Match[str]) -> str:
    """An arrow and what follows it to the line's end, outside quoted values: dropped when it is prose (any text after
    a picture arrow or ``<--``, ``⬅ main table``; after ``<-``, words with no comparison, bracket, quote or number)."""
    if match.string[:match.start()].count("'") % 2:
        return match[0]
    rest = match[1]
    ascii_arrow = match[0].lstrip().startswith("<-") and not match[0].lstrip().startswith("<--")  # <-- is no SQL
    words = re.fullmatch(r"[^\W\d_][^=<>()'\d]*", rest.strip())  # words, in any script: no SQL operand
    if ascii_arrow and re.search(r"\[\w*\|\s*$|^[\w.]+\s*\(", rest):
        return match[0]  # code: Haskell's ``rows <- query_ conn [sql|``, R's ``df <- dbGetQuery(con, "…")``
    if ascii_arrow and not (sentence(rest) or words and (" " in rest.strip() or not rest.isascii())):
        return match[0]
    return ""


def _command_query(match: re.Match[str]) -> str:
    """``psql … -c "SELECT …"``: the query the command carries, as a SQL block (a quoted command that is no query,
    ``-c "\\dt"``, is left)."""
    quoted = match[1]
    body = quoted[1:-1].replace('\\"', '"') if quoted.startswith('"') else quoted[1:-1].replace("'\\''", "'")
    return _carried(match, body)


def _carried(match: re.Match[str], body: str) -> str:
    """A command's line (what it pipes into too) replaced by the query it carries: as a SQL block, or as the lines
    of the code block the command stands in (a block inside a block would be read as two). Not a query: left."""
    if not re.match(rf"\s*\(*\s*{_QUERY}", body, re.I):
        return match[0]
    inside = len(re.findall(r"^[ \t]*(?:```|~~~)", match.string[:match.start()], re.MULTILINE)) % 2 == 1
    return f"{body}\n" if inside else f"```sql\n{body}\n```"


_SQLCMD = re.compile(r"^[ \t]*(?:Invoke-Sqlcmd|sqlcmd(?:\.exe)?)\b[^\n]*?\s-(?:Query|Q|q)[ \t]+(\"(?:[^\"`]|\"\"|`.)*\"|"
                     r"'(?:[^']|'')*')[^\n]*", re.MULTILINE | re.IGNORECASE)
_AGENT_INPUT = re.compile(r"^[ \t]*Action Input[ \t]*:[ \t]*((?:SELECT|WITH)\b[^\n]*)$", re.MULTILINE | re.IGNORECASE)
_DASH_NOTE = re.compile(r"(?:(?<=^)|(?<=^[ \t])|(?<=[ \t]{2}))[\u2013\u2014][ \t]+(?=[A-Za-z])", re.MULTILINE)  # not a minus
_CURL = re.compile(r"^[ \t]*\$?[ \t]*curl\b(?:[^\n]*\\[ \t]*\n)*[^\n]*", re.MULTILINE)  # with its continued lines


def _sqlcmd_query(match: re.Match[str]) -> str:
    """``Invoke-Sqlcmd … -Query "SELECT …"``: the query, PowerShell's quoting read, as a SQL block."""
    quoted = match[1]
    if quoted.startswith('"') and re.search(r"(?<!`)\$\w", quoted):
        return match[0]  # PowerShell fills $city in from a variable: no query to read as written
    escapes = {"n": "\n", "t": "\t", "r": ""}
    body = (re.sub(r"`(.)", lambda m: escapes.get(m[1], m[1]), quoted[1:-1]).replace('""', '"')
            if quoted.startswith('"') else quoted[1:-1].replace("''", "'"))
    return _carried(match, body)


def _prompts_dropped(text: str) -> str:
    """The prompts of a database shell's transcript, where a prompted line starts a query: every prompt of the run of
    prompted lines from there dropped, and the result printed after it up to a blank line or a fence (a line of
    prose that merely starts with ``->`` is left)."""
    out: list[str] = []
    run = output = False
    for line in text.split("\n"):
        prompt = _PROMPT.match(line)
        rest = line[prompt.end():] if prompt else line
        ended = run and prompt is None  # the query's result follows its last prompted line, up to a blank or a fence
        run = prompt is not None and (run or re.match(rf"\s*\(*\s*{_QUERY}", rest, re.I) is not None)
        output = (output or ended) and not run and bool(line.strip()) and not line.lstrip().startswith(("```", "~~~"))
        if not output:
            out.append(rest if run else line)
    return "\n".join(out)


_BOX = re.compile(r"^[ \t]*[+┌╔][-─═]{3,}[+┐╗][ \t]*\n((?:[ \t]*[|│║][^\n]*[|│║][ \t]*\n)+)[ \t]*[+└╚][-─═]{3,}[+┘╝][ \t]*$",
                  re.MULTILINE)  # +---+ | … | +---+, or drawn with box characters


def _unboxed(match: re.Match[str]) -> str:
    """A query drawn in an ASCII box: its lines without the frame (a box around anything else is left)."""
    lines = [re.sub(r"^[ \t]*[|│║] ?|[ \t]*[|│║][ \t]*$", "", line) for line in match[1].rstrip("\n").split("\n")]
    body = "\n".join(line.rstrip() for line in lines)
    return body if re.match(rf"\s*\(*\s*{_QUERY}", body, re.I) else match[0]


def _block_quote(text: str) -> str:
    """A run of lines each marked ``>`` whose first line starts a query: the marks dropped, the run a SQL block."""
    def unquoted(match: re.Match[str]) -> str:
        body = _QUOTE_MARK.sub("", match[0]).strip("\n")
        return f"```sql\n{body}\n```\n" if re.match(rf"\s*\(*\s*{_QUERY}", body, re.I) else match[0]

    return re.sub(r"(?:^[ \t]*>[^\n]*(?:\n|$))+", unquoted, text, flags=re.MULTILINE)


# Cyrillic and Greek letters drawn like Latin ones. A word that mixes them with Latin letters (``FRОM`` with a
# Cyrillic О, ``аuthor``) is a Latin word with a look-alike slipped in; a word all in one script is left as written.
_LOOK_ALIKE = str.maketrans("АВЕКМНОРСТХУаеорсухіјѕԁԛԝІЈЅΑΒΕΖΗΙΚΜΝΟΡΤΥΧοιν", "ABEKMHOPCTXYaeopcyxijsdqwIJSABEZHIKMNOPTYXoiv")
_MIXED = re.compile(r"[^\W\d_]*(?:[A-Za-z][^\W\d_]*[\u0370-\u03ff\u0400-\u04ff\u0500-\u052f]|[\u0370-\u03ff\u0400-\u04ff"
                    r"\u0500-\u052f][^\W\d_]*[A-Za-z])[^\W\d_]*")


def _plain_characters(part: str) -> str:
    """Outside quoted values: Markdown's escapes read (``first\\_name``), invisible characters dropped, full-width
    punctuation as ASCII, and look-alike letters in a word of Latin letters as those letters (``_LOOK_ALIKE``)."""
    part = _MD_ESCAPE.sub(r"\1", part)
    if not part.isascii():
        part = _INVISIBLE.sub("", part)
        part = _MIXED.sub(lambda m: m[0].translate(_LOOK_ALIKE), part)
    return "".join(chr(ord(c) - 0xFEE0) if "\uff01" <= c <= "\uff5e" else " " if c == "\u3000" else
                   "," if c == "\u3001" else c for c in part)


def _outside_values(text: str, change: Callable[[str], str]) -> str:
    """``text`` with ``change`` applied to everything outside single-quoted values (a line's quotes pair up)."""
    out = []
    for line in text.split("\n"):
        pieces = line.split("'")
        if len(pieces) % 2 == 0:  # an apostrophe in prose ("it's"): the line has no values to keep
            out.append(change(line))
            continue
        out.append("'".join(change(p) if i % 2 == 0 else p for i, p in enumerate(pieces)))
    return "\n".join(out)


def _variables_read(text: str) -> str:
    """Session variables set to a literal and read later: each use replaced by its value (outside quoted values),
    the setting dropped. Left as written when a variable is set twice."""
    settings = list(_SETTING.finditer(text))
    values: dict[str, str] = {}
    for match in settings:
        name, value = next((match[i], match[i + 1]) for i in (1, 3, 5) if match[i])
        if name.lower() in values:
            return text
        values[name.lower()] = value
    if not values:
        return text
    rest = _SETTING.sub("", text)
    rest = re.sub(r":'(\w+)'", lambda m: values.get(m[1].lower(), m[0]), rest)  # psql's quoted use, :'vendor'
    use = re.compile(r"@(\w+)\b|(?<![:\w]):(\w+)\b")
    return _outside_values(rest, lambda part: use.sub(lambda m: values.get((m[1] or m[2]).lower(), m[0]), part))


_DELIMITER = re.compile(r"[ \t]*DELIMITER[ \t]+([^\w\s]+)[ \t\r]*", re.IGNORECASE)  # ``$$``, ``//``: never ``delimiter DESC``


def _delimiters_read(text: str) -> str:
    """A client's ``DELIMITER $$`` directive: the lines it governs end their statements with ``;`` instead, the
    directives dropped (``DELIMITER ;`` sets the usual mark back)."""
    if "delimiter" not in text.lower():
        return text
    out: list[str] = []
    mark: str | None = None
    for line in text.split("\n"):
        if directive := _DELIMITER.fullmatch(line):
            mark = None if directive[1] == ";" else directive[1]
            continue
        stripped = line.rstrip()
        if mark and stripped.endswith(mark) and stripped[:-len(mark)].count("'") % 2 == 0:
            line = stripped[:-len(mark)] + ";"
        out.append(line)
    return "\n".join(out)


def _session_dropped(text: str) -> str:
    """Lines that set up a session (``_SESSION``) before a query, and a transaction's end after one, dropped."""
    lines = text.split("\n")
    setup = [bool(_SESSION.fullmatch(line)) for line in lines]
    query_next = [False] * (len(lines) + 1)  # whether the next line that is no setup, blank or comment starts a query
    for i in range(len(lines) - 1, -1, -1):
        rest = lines[i]
        quiet = setup[i] or not rest.strip() or rest.lstrip().startswith("--")
        query_next[i] = query_next[i + 1] if quiet else bool(re.match(rf"\s*\(*\s*{_QUERY}", rest, re.I))
    out: list[str] = []
    for i, line in enumerate(lines):
        if setup[i] and query_next[i + 1]:
            continue
        if _TRANSACTION_END.fullmatch(line) and any(re.match(rf"\s*\(*\s*{_QUERY}", o, re.I) for o in out):
            continue
        out.append(line)
    return "\n".join(out)
