"""Clause keywords misspelt by one keystroke (``SELCT``, ``FORM``, ``WHRE``, ``GRUOP BY``, ``ORDERBY``, ``JION``),
written twice (``WHERE WHERE``), glued to the word before them (``author.nameFROM``), comparisons written back
to front (``=>``), a sort direction written as a call (``ORDER BY desc(total)``, an ORM's way: SQLAlchemy's), a
``;`` between a WITH list and its query (and, through ``_forms``, the forms of a clause no dialect has), and C's ``&&`` and ``||`` between conditions (``c_logic``: read as AND and
OR only where every AND and OR of the query then joins conditions, so ``first || ' ' || last`` stays a
concatenation and ``tags && ARRAY[…]`` an overlap).

A misspelt keyword leaves a statement no dialect reads (``FROM users WHRE id = 1`` reads ``WHRE`` as an alias and
then stops), and a misspelt ``SELECT`` leaves no statement to find at all. The keywords of a clause are a closed
set, so a word one edit away from exactly one of them — a letter dropped, added or changed, two neighbours swapped,
a space lost or moved (``GROUPBY``, ``GROUP YB``) — in the same case as the statement's keywords, can only be that
keyword when the block reads as one statement with it and did not without it, and another clause keyword is spelled
right (words with none, ``SELEC nothing useful``, are no evidence of SQL). Short keywords (``ON``, ``AS``,
``OR``, ``BY`` alone) have too many neighbours to guess and are never targets; words inside quotes or comments are
never read. A block that already reads is left exactly as written.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import combinations

from sqlglot import exp

from core.sql._slips import PARSE_FAILURES
from core.sql.written._forms import OTHER_FORMS
from core.sql.written._misplaced import MISPLACED, comma_directions, names_rejoined

__all__ = ["c_logic", "spelled_keywords", "spelled_statement_start"]

_TARGETS = ("SELECT", "FROM", "WHERE", "GROUPBY", "ORDERBY", "JOIN", "HAVING", "DISTINCT", "LIMIT")  # LEFT, RIGHT,
# INNER, UNION have names one letter off them in every schema (light, night, inter)
_WRITTEN = {"GROUPBY": "GROUP BY", "ORDERBY": "ORDER BY"}
_WORD = re.compile(r"'(?:[^']|'')*'|\"[^\"]*\"|`[^`]*`|--[^\n]*|[A-Za-z_]+(?:[ \t]+[A-Za-z]{2}\b(?!\.))?")  # a
# two-letter word after it (``GROUP YB``), never a qualifier (``GROUPBY sp.name``: the word alone)
_MAX_CHARS = 20_000


def _one_edit(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by exactly one edit: a letter changed, added or dropped, or two neighbours
    swapped (Damerau-Levenshtein distance 1)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
                                  and a[diff[1]] == b[diff[0]])
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = next((k for k, (x, y) in enumerate(zip(short, long, strict=False)) if x != y), len(short))
    return short[i:] == long[i + 1:]


def _keyword(word: str) -> str | None:
    """The one clause keyword ``word`` (a word, or a word and a two-letter word after it) is a slip of, or None."""
    squeezed = re.sub(r"\s+", "", word).upper()
    if squeezed in _TARGETS:
        return _WRITTEN.get(squeezed) if " " not in word and squeezed in _WRITTEN else None
    near = [t for t in _TARGETS if _one_edit(squeezed, t)]
    return _WRITTEN.get(near[0], near[0]) if len(near) == 1 else None


def _in_a_list(block: str, start: int, end: int) -> bool:
    """A word beside a comma or a dot (``light, night``, ``t.form``): an item of a list or a qualified name, never a
    keyword."""
    before, after = block[:start].rstrip()[-1:], block[end:].lstrip()[:1]
    return before in (",", ".") or after in (",", ".")


def _placed(block: str, reads: Callable[[str], bool]) -> str:
    """``block`` with the misplaced words and marks of ``_misplaced`` put right, where it does not read as written:
    the first one alone that makes it read, else all of them together where they do; else ``block`` itself."""
    written = [w for w in (rewrite(block) for rewrite in MISPLACED) if w != block]
    if not written or reads(block):
        return block  # nothing misplaced, or it reads as written: no parse more than needed
    for one in written:
        if reads(one):
            return one
    together = block
    for rewrite in MISPLACED:
        together = rewrite(together)
    return together if together != block and reads(together) else block


def spelled_keywords(block: str, reads: Callable[[str], bool]) -> str:
    """``block`` with its misspelt clause keywords written right, when it then ``reads`` (as one statement) and did
    not as written; else ``block`` itself."""
    if len(block) > _MAX_CHARS or not block.strip():
        return block
    keywords = re.findall(r"\b(?:SELECT|FROM|WHERE|JOIN|GROUP|ORDER|select|from|where|join|group|order)\b", block)
    if not keywords:
        return block  # "SELEC nothing useful": no clause spelled right, so nothing says the words are SQL
    directed = _directions_written(block)
    if directed != block and not reads(block) and reads(directed):
        block = directed
    block = c_logic(block, reads)
    worded = _OTHER_WORDING.sub(_reworded, block)
    if worded != block and not _in_values_any(block) and not reads(block) and reads(worded):
        block = worded  # ``DESCENDING``, ``NULLS LAST DESC``, Cassandra's ``ALLOW FILTERING``
    teradata = _SEL.sub(r"\1\2SELECT", block)
    if teradata != block and not reads(block) and reads(teradata):
        block = teradata  # Teradata's ``SEL a FROM t``, ``IN (SEL …)``
    for rewrite in (*OTHER_FORMS, comma_directions, names_rejoined):
        written = rewrite(block)  # no dialect has these forms, though sqlglot reads ``IN 'a', 'b'`` (as IN 'a' and a
        if written != block and reads(written):  # table named b) and ``4.5f`` (as a name)
            block = written
    block = _placed(block, reads)
    joined = _CTE_SPLIT.sub(r")\1", block, count=1) if re.match(r"\s*WITH\b", block, re.IGNORECASE) else block
    if joined != block and not reads(block) and reads(joined):
        block = joined  # ``WITH t AS (…);`` then ``SELECT … FROM t``: one statement with its WITH list
    lower = sum(k.islower() for k in keywords) > len(keywords) / 2
    edits: list[tuple[int, int, str]] = []
    for match in _WORD.finditer(block):
        word = match.group(0)
        if word[0] in "'\"`-" or _in_a_list(block, match.start(), match.end()):
            continue
        first = word.split()[0]
        if not (first.isupper() or first.islower() and lower):
            continue
        keyword = _keyword(word) or (_keyword(first) if " " in word else None)
        if keyword is None:
            continue
        end = match.end() if _keyword(word) else match.start() + len(first)
        edits.append((match.start(), end, keyword.lower() if lower else keyword))
    edits += _stutters_and_glue(block)
    quoted = [m.span() for m in re.finditer(r"'(?:[^']|'')*'|\"[^\"]*\"|`[^`]*`|--[^\n]*", block)]
    twice = repeated_keywords(block, lambda at: not any(a <= at < b for a, b in quoted))
    if twice:  # read whether or not the block parses as written: ``FROM FROM t`` parses, as a table named FROM
        mended = block
        for start, end, keyword in sorted(twice, reverse=True):
            mended = mended[:start] + keyword + mended[end:]
        return spelled_keywords(mended, reads)
    if edits and _glue_proven(block):  # ``SELECT author.nameFROM author`` reads, as a column aliased author
        mended = block
        for start, end, keyword in sorted(edits, reverse=True):
            mended = mended[:start] + keyword + mended[end:]
        if reads(mended):
            return mended
    if not edits or reads(block):
        return block
    edits.sort()
    for chosen in [edits, *([e] for e in edits)] if len(edits) > 1 else [edits]:  # all, then each alone
        mended = block
        for start, end, keyword in reversed(chosen):
            mended = mended[:start] + keyword + mended[end:]
        if reads(mended):
            return mended
    return block


_REPEATED = re.compile(r"\b(SELECT|FROM|WHERE|JOIN|ON|AND|OR|HAVING|LIMIT|DISTINCT|GROUP[ \t]+BY|ORDER[ \t]+BY)"
                       r"(\s+)\1\b", re.IGNORECASE)
_GLUED = re.compile(r"(?<=[a-z0-9\]\"`])(FROM|WHERE|GROUP BY|ORDER BY|HAVING|LIMIT|JOIN|UNION|ON|AND|OR|ASC|DESC|"
                    r"INNER|LEFT)\b|\b(?:DESC|ASC|LAST|FIRST|END)(?=(FROM|WHERE|GROUP BY|ORDER BY|HAVING|LIMIT|"
                    r"UNION)\b)")
# A value of several capitalised words written without its quotes after a comparison or in an IN list
# (``= Utility Company AND``, ``IN ('Machine Learning', Data Science)``): SQL never sets two such names side by side.
_BARE_NAME = re.compile(r"(?:[=(,]|<>|!=)[ \t]*((?:[A-Z][a-z]+)(?:[ \t]+[A-Z][a-z]+){1,3})(?=[ \t]*(?:[,);\n]|$|AND\b|"
                        r"OR\b|GROUP\b|ORDER\b|LIMIT\b))")
# JavaScript's strict equality (``===``, ``!==``) and LINQ's ``on a.k equals b.k``: SQL's = and <>.
_OTHER_EQUALS = re.compile(r"(?<![<>!=])(?:===|!==)(?!=)|(?<=[\w)\]\"'`])[ \t]+equals[ \t]+(?=[\w(\"'`])", re.IGNORECASE)
# A join's words written as one (``LEFTJOIN``, ``leftouterjoin``): no name is spelled so, and no keyword either.
_GLUED_JOIN = re.compile(r"\b(LEFT|RIGHT|FULL|INNER|CROSS|NATURAL)(OUTER)?(JOIN)\b", re.IGNORECASE)
_BACKWARDS = {"=>": ">=", "=<": "<=", "=!": "!=", "><": "<>", "≥": ">=", "≤": "<=", "≠": "<>"}


_DIRECTION_CALL = re.compile(r"\b(desc|asc)\s*\(", re.IGNORECASE)


def _directions_written(block: str) -> str:
    """``ORDER BY desc(total), asc(name)``: each call after an ORDER BY, outside quotes, as ``total DESC``."""
    order = re.search(r"\bORDER\s+BY\b", block, re.IGNORECASE)
    calls = [c for c in _DIRECTION_CALL.finditer(block) if order is not None and c.start() > order.start()]
    for call in reversed(calls[:20]):  # a handful at most in a real query
        before = block[:call.start()]
        if before.count("'") % 2:
            continue
        depth, at = 1, call.end()
        while at < min(len(block), call.end() + 2_000) and depth:
            depth += {"(": 1, ")": -1}.get(block[at], 0)
            at += 1
        if depth:
            continue
        block = block[:call.start()] + block[call.end():at - 1].strip() + " " + call.group(1).upper() + block[at:]
    return block


def _in_values(block: str, at: int) -> bool:
    """Whether ``at`` is inside an ``IN (…)`` list (a comma of a SELECT or FROM list sets an alias after a name)."""
    opened = [m.end() for m in re.finditer(r"\bIN\s*\(", block[:at + 1], re.IGNORECASE)]
    return bool(opened) and ")" not in block[opened[-1]:at + 1] and "(" not in block[opened[-1]:at + 1]


def _glue_proven(block: str) -> bool:
    """Whether a glued keyword is proven by what the block lacks or holds, though it reads as written: the last
    SELECT has no FROM but a word glued to one (``total_salesFROM t``), or a join kind glued to the table before it
    stands before JOIN (``FROM organizationLEFT JOIN``)."""
    last = block[max((m.start() for m in re.finditer(r"\bSELECT\b", block, re.IGNORECASE)), default=0):]
    return bool(re.search(r"[a-z0-9](?:LEFT|RIGHT|INNER|FULL|CROSS)(?:[ \t]+OUTER)?[ \t]+JOIN\b", block)) or (
        bool(re.search(r"[a-z0-9]FROM\b", last)) and not re.search(r"(?<![\w.])FROM\b", last, re.IGNORECASE))


def repeated_keywords(block: str, outside: Callable[[int], bool] = lambda at: True) -> list[tuple[int, int, str]]:
    """``FROM FROM t``, ``WHERE WHERE``: a clause keyword written twice in a row (in the same case), outside quotes:
    the edits that write it once. Never meant: ``FROM FROM t`` reads only as a table called "FROM"."""
    return [(m.start(), m.end(), m.group(1)) for m in _REPEATED.finditer(block) if outside(m.start())
            and m.group(1).split()[0].isupper() == m.group(0)[m.end(2) - m.start():].split()[0].isupper()]


def _stutters_and_glue(block: str) -> list[tuple[int, int, str]]:
    """Edits outside quotes and comments: a clause keyword written twice in a row (``WHERE WHERE``, ``ON ON``) once;
    a join's words glued (``LEFTJOIN``) apart;
    a keyword in capitals glued to the word before it when a line break was lost (``author.nameFROM``,
    ``pidGROUP BY``, ``DESCLIMIT``) set apart; a comparison written back to front (``=>``, ``=<``, ``><``) or as a glyph (``≥``) the right way,
    or as JavaScript (``===``, ``!==``) or LINQ (``equals``) write it; a value of several
    capitalised words left unquoted after a comparison or in an IN list (``= Utility Company``) quoted."""
    quoted = [m.span() for m in re.finditer(r"'(?:[^']|'')*'|\"[^\"]*\"|`[^`]*`|--[^\n]*", block)]

    def outside(at: int) -> bool:
        return not any(a <= at < b for a, b in quoted)

    edits = repeated_keywords(block, outside)
    for m in _GLUED.finditer(block):
        if outside(m.start()):
            at = m.start(1) if m.group(1) else m.end()
            edits.append((at, at, " "))
    edits += [(m.start(1), m.end(1), "'" + m.group(1) + "'") for m in _BARE_NAME.finditer(block)
              if outside(m.start(1)) and (m.group(0)[0] not in "(," or _in_values(block, m.start()))]
    edits += [(m.start(), m.end(), f" {_BACKWARDS[m.group(0)]} ") for m in re.finditer(
        r"(?<![<>!=:])(?:=>|=<|=!|><)(?![=>])|[≥≤≠]", block) if outside(m.start())]
    edits += [(m.start(), m.end(), {"!==": "<>", "===": "="}.get(m.group(0), " = ")) for m in
              _OTHER_EQUALS.finditer(block) if outside(m.start())]
    edits += [(m.start(), m.end(), " ".join(filter(None, m.groups()))) for m in _GLUED_JOIN.finditer(block)
              if outside(m.start())]
    return edits

def spelled_statement_start(text: str, reads: Callable[[str], bool]) -> str:
    """A reply with no code block whose query (``SELECT``, ``WITH``, or a misspelt ``SELCT``, on its own line or
    after a label such as ``Query:``) holds a misspelt keyword (``WHRE publication.year = 2021``, where the statement
    would otherwise end): the longest run of lines from there that reads as one statement once its keywords are
    spelled right, put back in its place; else ``text`` itself."""
    lines = text.split("\n")
    for i, line in enumerate(lines[:200]):
        start = re.match(r"\s*(?:[\w ]{1,20}:\s*)?([A-Za-z]+)\b", line)
        if start is None or start.group(1).upper() not in ("SELECT", "WITH") and _keyword(start.group(1)) != "SELECT":
            continue
        head = line[: start.start(1)]
        for end in range(min(len(lines), i + 30), i, -1):
            piece = "\n".join([line[start.start(1):], *lines[i + 1:end]])
            mended = spelled_keywords(piece, reads)
            if mended != piece:
                return "\n".join([*lines[:i], head + mended, *lines[end:]])
    return text


# Other tools' wording of a clause: LINQ's and pandas' sort words, the direction after NULLS FIRST/LAST (it goes
# before), Cassandra's ALLOW FILTERING (a permission its engine asks for; SQL has none to give).
_OTHER_WORDING = re.compile(r"\b(?:DESCENDING|ASCENDING)\b|\b(NULLS[ \t]+(?:FIRST|LAST))[ \t]+(ASC|DESC)\b|"
                            r"[ \t]+ALLOW[ \t]+FILTERING\b", re.IGNORECASE)
_REWORDED = {"DESCENDING": "DESC", "ASCENDING": "ASC"}
_SEL = re.compile(r"(^|[()]|\bUNION[ \t]+(?:ALL[ \t]+)?)([ \t]*)SEL(?=[ \t]+[\w*(\"])", re.IGNORECASE | re.MULTILINE)  # Teradata's
# SEL where a statement starts (a WITH list's query after its ``)``)


def _reworded(match: re.Match[str]) -> str:
    if match[1]:
        return f"{match[2]} {match[1]}"  # NULLS LAST DESC -> DESC NULLS LAST
    return _REWORDED.get(match[0].upper(), "")  # DESC for DESCENDING; ALLOW FILTERING dropped


def _in_values_any(block: str) -> bool:
    """Whether one of ``_OTHER_WORDING``'s matches stands inside a quoted value (then nothing is reworded)."""
    return any(re.search(r"(?i)descending|ascending|nulls|allow", v) for v in re.findall(r"'(?:[^']|'')*'", block))


_CTE_SPLIT = re.compile(r"\)[ \t]*;((?:[ \t]*(?:--[^\n]*)?\r?\n)+\s*SELECT\b)", re.IGNORECASE)  # comment lines too
_C_MARK = re.compile(r"'(?:[^']|'')*'|\"[^\"]*\"|`[^`]*`|\$(\w*)\$.*?\$\1\$|--[^\n]*|/\*.*?\*/|(?P<mark>&&|\|\|)",
                     re.DOTALL)  # the marks outside values, names, dollar-quoted text and comments


def c_logic(block: str, reads: Callable[[str], bool]) -> str:
    """``block`` with C's ``&&`` / ``||`` between conditions written AND / OR: the most of them whose reading leaves
    every AND and OR of the query between conditions (a comparison, IN, LIKE, IS, NOT, EXISTS…), when the block then
    ``reads``; else ``block`` itself. At most eight marks are weighed (every choice of them is parsed)."""
    if "&&" not in block and "||" not in block:
        return block
    marks = [m.span("mark") for m in _C_MARK.finditer(block) if m.group("mark")]
    if not marks or len(marks) > 8:
        return block
    written = _tree(block)
    if written is not None and not any(_condition(side) for node in written.find_all(
            exp.Predicate, exp.DPipe, exp.ArrayOverlaps) if isinstance(node, exp.Binary)
            for side in (node.this, node.expression)):
        return block  # it reads, and no comparison or concatenation takes a condition as its operand
    for size in range(len(marks), 0, -1):
        readings = set()
        for chosen in combinations(marks, size):
            mended = block
            for start, end in reversed(chosen):  # the line breaks stay: a mark that starts a line after a comment
                mended = f"{mended[:start].rstrip(' ')} {'AND' if block[start] == '&' else 'OR'} {mended[end:].lstrip(' ')}"
            tree = _tree(mended)
            if tree is not None and all(_condition(side) for node in tree.find_all(exp.Connector)
                                        for side in (node.this, node.expression)) and reads(mended):
                readings.add(mended)
        if readings:  # two readings of as many marks (``LIKE '%' || 'n' || '%' || name LIKE 'C%'``): no guess
            return readings.pop() if len(readings) == 1 else block
    return block


def _tree(sql: str) -> exp.Expression | None:
    """``sql`` read as one statement of PostgreSQL, else of SQLite; None when neither reads it."""
    from core.sql._guard import parse_statements  # the guard reads the same blocks: imported where used

    for dialect in ("postgres", "sqlite"):
        try:
            trees = parse_statements(sql.strip().rstrip(";"), dialect)
        except (*PARSE_FAILURES, RecursionError):
            continue
        return trees[0] if len(trees) == 1 else None
    return None


def _condition(node: exp.Expression) -> bool:
    while isinstance(node, exp.Paren):
        node = node.this
    return isinstance(node, (exp.Predicate, exp.Connector, exp.Not, exp.Boolean, exp.Exists))
