"""Readings for a layout no reader above knows: the general shapes every way of wrapping a query shares, so a host
language, tool or editor Cairn has never seen still gives its query.

- **a query in string literals of any program**: the literals of a block (``"…"``, ``'…'``, ``\"\"\"…\"\"\"``,
  ``'''…'''``, ``@"…"``, `` `…` ``, Lua's ``[[…]]``, C++'s ``R"(…)"``, Haskell's ``[sql|…|]``, Stata's `` `"…"' ``),
  read with the escapes every C-like language shares (``\\n``, ``\\t``, ``\\"``, ``\\u0027``, a doubled quote), joined
  where only concatenation stands between them — blanks, ``+``, ``&``, ``.``, ``..``, ``||``, a line continued with
  ``_`` or ``\\``, a comment — or a next line that only adds to a string (``s += "…"``, ``s = s & "…"``,
  ``sb.append("…")``; a line: ``Query1.SQL.Add('…')``, ``sb.AppendLine("…")``). A chain a value is joined to (``"… = "
  + id``, or ``${id}`` inside it) holds no whole query and gives none;
- **a margin on every line** (``|``, ``>``, ``*``, ``//``, ``#``, ``!``, ``:``, ``;``, ``%``, a session's ``...``):
  two or more lines in a row that start with the same marks — and with one word in capitals after them on two thirds
  of them, no SQL word (a Databricks notebook's ``# MAGIC``), that word too — read without them (a Kotlin margin string, a quoted or
  commented listing, a Javadoc block) — never where a line of SQL stands beside them unmarked: there the marks are
  comments, and a commented-out condition stays out.

A reading is a candidate only: the extractor uses its statement where the text as written gives none, or where it
*extends* the one as written (the same words, read further — ``SELECT a`` cut at a margin, ``SELECT a FROM t`` read
without it), never one that says something else. Texts over 8,000 characters (a reply is ~1,600) are read as written.
"""

from __future__ import annotations

import re

__all__ = ["extends", "string_queries", "unknown_layout_readings"]

_MAX_CHARS = 8_000  # a longer text is read as written: each reading is parsed again
_MAX_READINGS = 8
_LITERAL = re.compile(
    r"(?P<f>(?m:^[ \t]*(?:```|~~~)[^\n]*$))"  # a Markdown fence: no literal, and no literal goes on past it
    r'|(?<![\w"])(?:u8|[uUL])?R"(?P<rd>[^()\\\s"]{0,16})\((?P<r>.*?)\)(?P=rd)"'  # C++'s raw string R"(…)"
    r'|"""(?P<t2>.*?)"""' r"|'''(?P<t1>.*?)'''" r'|@"(?P<v>(?:[^"]|"")*)"'
    r'|"(?P<qd>\s*(?:SELECT|WITH)\b(?:[^"\\]|\\.|"")*)"' r"|'(?P<qs>\s*(?:SELECT|WITH)\b(?:[^'\\]|\\.|'')*)'"
    r'|"(?P<d>(?:[^"\\\n]|\\.|"")*)"' r"|'(?P<s>(?:[^'\\\n]|\\.|'')*)'"
    r"|`\"(?P<st>[^`]*?)\"'"  # Stata's compound quotes `"…"' (never across a backtick: JS's `"…"`)
    r"|`(?P<b>[^`]*)`|\[\[(?P<l>.*?)\]\]|\[\w+\|(?P<h>.*?)\|\]"  # Haskell's quasi-quote [sql| … |]
    r"|(?P<c>(?://|#(?!\d{1,3}(?:#|\s*\+))|(?<!\S)--)[^\n]*)", re.DOTALL | re.IGNORECASE)  # a comment: no literal
# in it (a line commented
# out stays out); a string spans lines only where it starts a query: elsewhere a quote left open pairs every one after
_COMMENT = r"(?://|--|#)[^\n]*"
_CHARS = r"(?:#\d{1,3})++"  # Pascal's characters by number, ``#13#10`` (a line break) between two literals
_GLUE = re.compile(r"(?:\s|\\\n|[+&|]|\.+|_(?=[ \t]*\r?\n)|" + _CHARS + "|" + _COMMENT + r")*+")  # possessive: linear
_ADDED = re.compile(  # the next line adds to a string: `s += "…"`, `s = s & "…"`, `sb.append("…")`
    r"[ \t]*+\)?[ \t]*+;?[ \t]*+(?:" + _COMMENT + r")?\r?\n\s*+"
    r"(?:\$?[\w.]+\.(?:AppendLine|appendLine|WriteLine|writeln|Add|add)\(\)[ \t]*+;?[ \t]*+\r?\n\s*+)*+"  # an empty line
    r"(?:\$?[\w.]+[ \t]*+(?:\+=|&=|\.=)"
    r"|(?P<n>\$?[\w.]+)[ \t]*+=[ \t]*+(?P=n)[ \t]*+(?:\+|&|\.|\|\|)"
    r"|\$?[\w.]+[ \t]*+\.[ \t]*+(?:append|Append|push_str|concat|write|Write|WriteString|"
    r"(?P<line>appendLine|AppendLine|Add|add|push|Push|WriteLine|writeln|Writeln))[ \t]*+\()[ \t]*+")  # a method
# adding a line (Delphi's ``SQL.Add``, C#'s ``AppendLine``): a line break between
_VALUE_JOINED = re.compile(  # `+ id` (on this line or the next), `% city`, `.format(city)` (on this line: Elixir's
    # `%{rows: …} = …` on the next is a statement of its own): a value, not a literal
    r"\s*+(?:\+|&|\|\||\.\.|\.(?![\w(.]))\s*+(?:_\s*+)?(?![\"'`@]|[rRfFbBuU$]{1,2}[\"'])"
    r"|[ \t]*+(?:%|\.\s*+(?:format|replace|formatted)\s*+\()")
_FORMAT_CALL = re.compile(r"(?:format|Format|sprintf|Sprintf|printf|format!|glue\w*|paste0?)\s*\(\s*$")
_MARKERS = re.compile(r"%\(\w+\)[sd]|\{\d*\}|=\s*'?%[sdif]\b")  # `%(city)s`, `{}`, `{0}`, `= %s`: a value goes there
_ANY_QUERY = re.compile(r"\b(?:SELECT|WITH)\b")  # a statement written in capitals anywhere on a line
_LINE_QUERY = re.compile(r"^[ \t]*(?:SELECT|WITH)\b", re.MULTILINE | re.IGNORECASE)  # a statement's start on its line
_MAX_STARTS = 6  # a reading with more lines that start a statement is a listing of queries: read as written (a long
# query's many SELECTs inside one line — UNION ALL SELECT 1 UNION ALL SELECT 2 … — are one statement)
_JOINED_TO = re.compile(r"[\w)\]]\s*(?:\+|&|\|\||\.)\s*\(?\s*$")  # `base + "SELECT …"`: a value before it
_GIVEN = re.compile(r"(\$?[A-Za-z_][\w.]*)\s*(?::=|=)\s*\(?\s*$")  # `q = "SELECT …"`: the variable given it
_FORMATTED = re.compile(r"(?<![\w$@])(?:[fF][rR]?|[rR][fF]|\$@?|@\$|s)\Z")
_INTERPOLATED = re.compile(r"[$#]\{")  # `${id}`, `#{id}`: a value the query does not hold
_QUERY = re.compile(r"\s*+\(*+\s*+(?:SELECT|WITH)\b", re.IGNORECASE)
_CLAUSE = re.compile(r"\s*+\(*+\s*+(?:SELECT|WITH|FROM|WHERE|AND|OR|JOIN|INNER|LEFT|GROUP|ORDER|HAVING|LIMIT|UNION)\b",
                     re.IGNORECASE)
_MARK = re.compile(r"^([ \t]*)(//+|\.{3}(?=[ \t]|$)|[|>!:;%*#]+(?!/))[ \t]?")  # `...`: a session's
# prompt; `*/` ends a comment, no margin
_TAG_AFTER = re.compile(r"([A-Z]{3,12})(?:[ \t]+|$)")  # ``# MAGIC SELECT …``: a word every line of a margin carries
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)", re.DOTALL)
_ESCAPED = {"n": "\n", "t": "\t", "r": "", "0": ""}


def unknown_layout_readings(text: str) -> list[str]:
    """Other readings of ``text`` (see the module docstring): the queries its string literals hold, then the text
    without a margin on its lines; none that is the text itself."""
    if len(text) > _MAX_CHARS:
        return []
    unmarked = margins_dropped(text)
    chains = [*string_queries(text), *(string_queries(unmarked) if unmarked != text else [])][::-1]  # the last
    readings = [*chains, unmarked]  # written answers, as the last block does
    return [r for r in dict.fromkeys(readings) if r != text and len(_LINE_QUERY.findall(r)) <= _MAX_STARTS][
        :_MAX_READINGS]


def extends(reading: str, written: str) -> bool:
    """Whether the statement ``reading`` is ``written`` read further: its words, in order, and more around them (a
    subquery found as written, ``(SELECT code FROM flight …)``, inside the whole query a reading gives)."""
    longer, shorter = _squashed(reading), _squashed(written)
    return len(longer) > len(shorter) and shorter in longer


def margins_dropped(text: str, least: int = 2) -> str:
    """``text`` with each run of ``least`` or more lines that start with the same marks read without them (a string's
    text: one line, Kotlin's ``\"\"\"|SELECT …\"\"\".trimMargin()``)."""
    lines = text.split("\n")
    marks = [_MARK.match(line) for line in lines]
    out, at, kept = list(lines), 0, []
    while at < len(lines):
        mark = marks[at]
        end = at + 1
        while mark and end < len(lines) and (marks[end] and marks[end][2] == mark[2] or not lines[end].strip()):
            end += 1
        while end > at and not lines[end - 1].strip():
            end -= 1
        if mark and "--" not in mark[2] and sum(1 for m in marks[at:end] if m) >= least:
            tag = _common_tag([lines[i][marks[i].end():] for i in range(at, end) if marks[i]])
            for i in range(at, end):
                rest = lines[i][marks[i].end():] if marks[i] else lines[i]
                out[i] = rest[len(tag):].lstrip(" \t") if marks[i] and tag and rest.startswith(tag) else rest
        else:
            kept += lines[at:max(end, at + 1)]
        at = max(end, at + 1)
    if any(_CLAUSE.match(line) or _ANY_QUERY.search(line) for line in kept):
        return text  # SQL written beside the marked lines: the marks make comments there, not a layout
    return "\n".join(out)


def _common_tag(rest: list[str]) -> str | None:
    """The word in capitals, no SQL word, that two or more and two thirds of the marked lines go on with (Databricks'
    ``# MAGIC``; its ``# Databricks notebook source`` and ``# COMMAND ----`` lines aside): a tag of the margin, read
    off with it."""
    lines = [line for line in rest if line.strip()]
    words = [m[1] for line in lines if (m := _TAG_AFTER.match(line))]
    if not words:
        return None
    word = max(set(words), key=words.count)
    return word if words.count(word) >= max(2, 2 * len(lines) / 3) and not _CLAUSE.match(word) else None


def string_queries(code: str) -> list[str]:
    """The chains of string literals in ``code`` whose joined text starts a query, in the order written."""
    found: list[str] = []
    chain: list[str] = []
    start = end = 0
    for match in _LITERAL.finditer(code):
        if match.lastgroup == "c":
            continue  # the gap's glue reads it
        text = _read(match) if match.lastgroup != "f" else ""  # f-strings', $"…"'s, s"…"'s braces hold values: marked
        another = bool(_QUERY.match(text) and chain and _QUERY.match(chain[0]))
        lines = bool(chain) and chain[-1].endswith("\n") and code[end:match.start()].strip() == ","  # a notebook's
        # source: a list of a text's lines, each ending in its line break
        gap = code[end:match.start()]
        if chain and (match.lastgroup == "f" or another or not (lines or _joins(gap))):
            found += _whole(chain, code[:start], code[end:])
            chain = []
        elif chain and ((added := _ADDED.fullmatch(gap)) and added["line"] or re.search(r"#1[03]\b", gap)) and \
                not chain[-1].endswith("\n"):
            chain[-1] += "\n"  # Delphi's ``SQL.Add('…')`` and ``+ #13#10 +``, C#'s ``AppendLine("…")``: a line
        if match.lastgroup != "f":
            start = match.start() if not chain else start
            formatted = _FORMATTED.search(code[max(0, match.start() - 4):match.start()])
            chain.append(text.replace("{", "${") if formatted else text)
        end = match.end()
    if chain:
        found += _whole(chain, code[:start], code[end:])
    return found


def _joins(gap: str) -> bool:
    return _GLUE.fullmatch(gap) is not None or _ADDED.fullmatch(gap) is not None


def _whole(chain: list[str], before: str, after: str) -> list[str]:
    """The joined chain where it starts a query and nothing else is joined to it: no value before or after it
    (``base + "…"``, ``"…" + id``, ``${id}``), and no variable it is given is joined to more later
    (``q = "SELECT …"`` then ``q2 = q + " WHERE …"``)."""
    joined = re.sub(r"^(?:[ \t]*--[^\n]*\n)+", "", margins_dropped("".join(chain), 1))  # Kotlin's `|` margin; a
    # comment line first (a notebook cell's ``-- top authors``)
    if not _QUERY.match(joined) or _VALUE_JOINED.match(after) or _INTERPOLATED.search(joined) or _MARKERS.search(
            joined) or _JOINED_TO.search(before[-200:]) or _FORMAT_CALL.search(before[-200:]):
        return []
    given = _GIVEN.search(before[-200:])
    if given and _used_to_build(given[1], after[:20_000]):
        return []
    return [joined.strip()]


def _used_to_build(name: str, after: str) -> bool:
    """Whether the variable ``name`` is later joined to more (``q + …``, ``q += …``, ``{q}``, ``[q, …]``, ``f(q,
    "…")``), rather than only run (``execute(q)``, ``dbGetQuery(con, q)``)."""
    for use in re.finditer(rf"(?<![\w.$]){re.escape(name)}(?![\w$])", after):
        left, right = after[max(0, use.start() - 12):use.start()], after[use.end():use.end() + 40]
        if re.search(r"(?:[{\[+&%]|\|\||\$\{|\.\.)\s*$", left) or re.match(
                r"\s*(?:[+&.%}\[]|\|\||\+=|&=|\.=|,\s*[\"'`])", right):
            return True
    return False


def _read(match: re.Match[str]) -> str:
    kind = match.lastgroup
    body = (match[kind] or "").replace("\\(", "${")  # Swift's \(id): a value, as ${id}
    if kind in ("b", "l", "h", "r", "st"):
        return body  # Go's raw strings, Lua's long brackets, Haskell's quasi-quotes, Stata's `"…"' read no escapes
    if kind == "v":
        return body.replace('""', '"')
    if kind in ("d", "s", "qd", "qs"):
        body = body.replace('""', '"') if kind in ("d", "qd") else body.replace("''", "'")
        if kind in ("d", "qd"):  # PowerShell's, PHP's, Perl's, Kotlin's "… '$city'": a value, as ${city}
            body = re.sub(r"\$(?=[A-Za-z_])", "${", body)
    return _ESCAPE.sub(_escape, body)


def _escape(match: re.Match[str]) -> str:
    code = match[1]
    if len(code) > 1:
        return chr(int(code[1:], 16))
    return _ESCAPED.get(code, code)


def _squashed(sql: str) -> str:
    return re.sub(r"[\W_]+", "", sql).lower()
