"""Explanations a model writes inside its SQL block, turned into SQL comments before the block is read.

Small models annotate their query line by line: ``FROM sales AS s  # main table``, ``JOIN c ON …  // bring in
customers``, or a line of prose between clauses (``Start from sales:``, ``Top rows only:``). SQLite and PostgreSQL
have no ``#`` or ``//`` comments, and a dialect that reads ``#`` as one (MySQL) reads the rest of the query its own
way (its ``DATE()`` takes one argument: ``DATE('now', '-3 months')`` became today). A prose line cuts the statement
short where the extractor looks for its end.

Only a fenced SQL block is rewritten, and only:

- ``#`` or ``//`` after a space (or at a line's start), outside quotes, followed by two words or more and no
  operator, bracket, comma, quote or SQL word in capitals, or by a sentence (two words side by side that are no
  word of SQL: ``# main table, one row per sale``): a comment. PostgreSQL's ``#`` and DuckDB's ``//`` operators
  stand between operands (``a # b``, ``a // b + c``), and SQL never sets two plain words side by side but a name and
  its alias;
- a whole line of prose between two lines of the statement — no quote, bracket, comparison or comma, not starting
  with a word of SQL, ending with ``:`` or read as a comment line, a list item that reads as a sentence
  (``- Keep only the active staff``), a note after a label (``Step 1: pehle table chuno``) or in Devanagari
  (``चरण 3: शर्त लगाओ``), or a line of lower-case words in a block whose keywords are in capitals (``ab join
  lagao``) — when a clause follows it: a comment.

A block that reads as one statement of the target dialect as written is left alone, but for one thing
(``clauses_after_notes``): a ``--`` note written mid-line before a clause in capitals that goes on with the query
(``FROM author -- apply the filter WHERE author.aid IN (…);``) has lost its line break. Read as written, the note
swallows the clause and the query answers another question; the clause goes back on a line of its own when the
block then reads as one statement and the note's words suggest nothing (``-- could add WHERE …`` stays a note).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from sqlglot.tokens import Tokenizer

__all__ = ["clause_later", "clauses_after_notes", "explanations_as_comments", "sentence"]

_MARK = re.compile(r"(^|\s)(#|//)(?=\s+[A-Za-z])")
_SQL_START = re.compile(r"\s*(?:SELECT|FROM|WHERE|AND|OR|JOIN|INNER|LEFT|RIGHT|FULL|CROSS|ON|GROUP|ORDER|HAVING|LIMIT|"
                        r"OFFSET|UNION|WITH|CASE|WHEN|THEN|ELSE|END|AS|NOT|IN|EXISTS|--)\b", re.IGNORECASE)
_CLAUSE = re.compile(r"\s*(?:FROM|WHERE|AND|OR|JOIN|INNER|LEFT|RIGHT|FULL|CROSS|ON|GROUP|ORDER|HAVING|LIMIT|UNION|"
                     r"SELECT|WITH)\b", re.IGNORECASE)
_CAPITAL_SQL = re.compile(r"\b(?:SELECT|FROM|WHERE|JOIN|GROUP|ORDER|LIMIT|HAVING|AND|OR|ON|AS|BY)\b")
_SQL_WORDS = frozenset("""select from where and or not in is null by on join inner left right full cross outer as asc
desc group order having limit offset union all distinct between like ilike case when then else end exists with over
partition interval true false""".split())
_PROSE = re.compile(r"^\s*[A-Za-z][\w ]*[\w)]\s*:\s*$")  # "Start from sales:", "Link inventory_snapshots:"


def explanations_as_comments(block: str, reads: Callable[[str], bool] | None = None) -> str:
    """``block`` with its explanations written as ``--`` comments (the text itself when it has none, or when it
    ``reads`` as one statement of the target dialect as written: DuckDB's ``a // b c``, PostgreSQL's ``a # b AS x``)."""
    if reads is not None and reads(block):
        return block
    lines = block.split("\n")
    later = [False] * len(lines)  # a clause follows line i (from the end: one pass, however long the block)
    for i in range(len(lines) - 2, -1, -1):
        later[i] = later[i + 1] or bool(_CLAUSE.match(lines[i + 1]))
    out: list[str] = []
    keywords = re.findall(r"\b(?:select|from|where|join|group|order)\b", block, re.IGNORECASE)
    capitals = sum(k.isupper() for k in keywords) > len(keywords) / 2  # in such a block, "ab join lagao" is a note
    for i, line in enumerate(lines):
        plain = not re.search(r"['\"()=<>,]", line)
        lower_words = capitals and bool(re.fullmatch(r"\s*[a-z]+(?: [a-z]+)+\s*", line)) and not _SQL_START.match(
            line) and sum(w not in _SQL_WORDS for w in line.split()) >= 2  # never "and not deleted", "region is null"
        if later[i] and plain and (_PROSE.match(line) and not _SQL_START.match(line) or _bullet(line) or _note(line)
                                   or lower_words):
            out.append("-- " + line.strip())
            continue
        out.append(_trailing(line))
    return "\n".join(out)


def _trailing(line: str) -> str:
    """The line with a ``#`` or ``//`` comment outside quotes written ``--``."""
    for match in _MARK.finditer(line):
        rest = line[match.end(2):]
        words = re.findall(r"[A-Za-z_]+", rest)
        if line[: match.start(2)].count("'") % 2 or line[: match.start(2)].count('"') % 2 or len(words) < 2:
            continue
        if not re.search(r"[=<>(),'\"+*/%|]", rest) and not _CAPITAL_SQL.search(rest) or _prose(rest):
            return line[: match.start(2)] + "--" + rest
    return line


_LABELLED = re.compile(r"\s*[A-Za-z][\w ]{0,25}:(?!:)\s+(\S.*)$")  # "Step 1: pehle table chuno"
_DEVANAGARI = re.compile(r"[\u0900-\u097F]")


def _note(line: str) -> bool:
    """A note between clauses in another script (``चरण 3: शर्त लगाओ``), after a label (``Step 1: pehle table
    chuno``) or as a sentence in lower case (``aakhir mein order set karo``): no SQL word in capitals, and not a line
    of SQL (which never sets two plain words side by side but a name and its alias)."""
    if _CAPITAL_SQL.search(line) or _SQL_START.match(line):
        return False
    labelled = _LABELLED.match(line)
    if labelled is not None and re.match(r"\s*[A-Za-z]+ \d+:", line):
        return True  # "Step 5: sort karo": a numbered step
    return bool(_DEVANAGARI.search(line)) or _prose(labelled.group(1) if labelled else line) and (
        labelled is not None or line.strip().islower())


def _bullet(line: str) -> bool:
    """``- Keep only the active staff`` between two clauses: a list item of prose, three words or more, no SQL word
    in capitals (``+ Bonus AS pay`` and ``- UnitsOnOrder < ReorderLevel`` go on with the statement)."""
    item = re.match(r"\s*[-*+]\s+(?=[A-Z][a-z])", line)
    return item is not None and _prose(line[item.end():]) and not _CAPITAL_SQL.search(line)


def _prose(text: str) -> bool:
    """Words of a sentence: three or more, two of them side by side that are no word of SQL (``main table, one row
    per sale``, ``we use DATE('now') here``). SQL puts an operator, comma or keyword between its names; only an alias
    follows a name directly."""
    words = text.split()
    return len(words) >= 3 and any(_plain(a) and _plain(b) for a, b in zip(words, words[1:], strict=False))


def _plain(word: str) -> bool:
    word = word.rstrip(".:!?")
    return bool(re.fullmatch(r"[A-Za-z][a-z']*|\d+", word)) and word.lower() not in _SQL_WORDS


_WORD = re.compile(r"[A-Za-z_][\w']*")
_CAPITAL_CLAUSE = re.compile(r"\b(?:SELECT|FROM|WHERE|JOIN|ON|AND|OR|NOT|GROUP|ORDER|BY|HAVING|LIMIT|UNION|AS|CASE|"
                             r"WHEN)\b")
_CLAUSE_TAIL = re.compile(r"\b(?:group\s+by|order\s+by|limit\s+\d|asc|desc|having)\b", re.IGNORECASE)
_OPEN_QUOTE = re.compile(r"(?<![\w'])'(?=[^']*$)")  # a quote that opens a value no later quote closes


def sentence(rest: str) -> bool:
    """Whether ``rest`` reads as prose: mostly words that are not SQL's, none in capitals, no comparison or bracket,
    not two clauses' words (``… group by c.name order by total desc``), no value left open (``interval '3 months``)."""
    head = rest[:300]
    words = _WORD.findall(head)
    sql_words = sum(w.upper() in Tokenizer.KEYWORDS for w in words)
    return (len(words) >= 2 and 2 * sql_words < len(words) and not _CAPITAL_CLAUSE.search(head)
            and not re.search(r"[=<>()]", head) and len(_CLAUSE_TAIL.findall(head)) < 2
            and not _OPEN_QUOTE.search(rest))


_LATER_CLAUSE = re.compile(r"[ \t]*(?:FROM|WHERE|GROUP[ \t]+BY|ORDER[ \t]+BY|HAVING|LIMIT|AND|OR|ON|(?:(?:INNER|LEFT|RIGHT|"
                           r"FULL|CROSS)[ \t]+(?:OUTER[ \t]+)?)?JOIN)[ \t]+(\S.*)$", re.IGNORECASE)
_NEXT_STATEMENT = re.compile(r"[ \t]*(?:SELECT|WITH)\b", re.IGNORECASE)
_SUGGESTS = re.compile(r"\b(?:add|adding|append|consider|could|can be|if you|optional(?:ly)?|alternatively|instead|"
                       r"you may|you might|to also|jod(?:na|o|iye)|chahein|chahe)\b", re.IGNORECASE)


def clause_later(tail: str) -> bool:
    """Whether a later line of ``tail``, before any next statement, goes on with the query's clauses
    (``चरण 3: शर्त लगाओ`` then ``WHERE author.aid IN (…)``): cutting before such a tail would drop a condition
    and answer another question."""
    lines = tail.split("\n", 40)[:40]
    for n, line in enumerate(lines[1:], 1):
        if _NEXT_STATEMENT.match(line) or _SUGGESTS.search(lines[n - 1]):
            return False  # "If you only want VIP ones, add:" then ``AND tier = 'vip'``: a suggestion, not the query
        clause = _LATER_CLAUSE.match(line)
        if clause is not None and (line.split()[0].isupper() and re.search(r"[.=(),'<>*]", clause.group(1))
                                   or not sentence(clause.group(1))):
            return True  # "ORDER BY t.x ASC" in capitals is the query's; "Where the ..." may be a sentence
    return False


_SWALLOWED = re.compile(r"--(?P<note>[ \t]*[A-Za-z](?:[A-Za-z',]|[ \t](?=[A-Za-z',]))*)[ \t]+(?P<clause>(?:WHERE|GROUP[ \t]+BY|ORDER[ \t]+BY|"
                        r"HAVING|LIMIT|AND|OR|UNION|(?:(?:INNER|LEFT|RIGHT|FULL|CROSS)[ \t]+(?:OUTER[ \t]+)?)?JOIN)"
                        r"[ \t]+\S.*)$")  # the keyword in capitals, as the rest of the query writes it


def clauses_after_notes(block: str, reads: Callable[[str], bool]) -> str:
    """``block`` with each clause a mid-line ``--`` note swallowed put back on a line of its own (see the module's
    docstring): only where the line holds SQL before the note, the clause has an operand (``.``, ``=``, ``(``, a
    quote or a digit), the note's words are plain words that suggest nothing, and the block then ``reads``."""
    lines = block.split("\n")
    changed = False
    for i, line in enumerate(lines):
        start = _comment_start(line)
        if start is None or not line[:start].strip() or len(line) - start > 2_000:
            continue
        found = _SWALLOWED.match(line, start)
        if found is None or not _plain_note(found["note"]) or not re.search(r"[.=(),'<>*\d]", found["clause"]):
            continue
        head = " ".join(found["clause"].split()[:3])
        if head in " ".join(" ".join(lines[i + 1:]).split()):
            continue  # the note previews a clause the next lines write: ``-- then JOIN c ON …`` above ``JOIN c ON …``
        lines[i] = f"{line[:start].rstrip()} --{found['note'].rstrip()}\n{found['clause']}"
        changed = True
    return "\n".join(lines) if changed and reads("\n".join(lines)) else block


# Words that say a clause in a note is not the query's: suggested, past, removed, negated, kept for testing.
_NOT_THE_QUERY = re.compile(r"\b(?:rather|removed?|was|were|previous(?:ly)?|old|not|no|don'?t|never|without|"
                            r"uncomment(?:ed)?|todo|e\.?g|eg|example|debug(?:ging)?|test(?:ing)?|if|needed|instead|"
                            r"skip(?:ped)?|ignored?|drop(?:ped)?|disabled?|alternative|optional|use|using|then|"
                            r"nahi|mat|hatao|hata)\b", re.IGNORECASE)


def _plain_note(note: str) -> bool:
    """A note of a few plain words (``apply the filter``), none of SQL in capitals (``-- ORDER BY total DESC LIMIT 1``
    is a clause commented out), none that says the clause is not the query's."""
    words = note.split()
    return 0 < len(words) <= 8 and not any(len(w) > 1 and w.isupper() for w in words) and not _SUGGESTS.search(
        note) and not _NOT_THE_QUERY.search(note)


def _comment_start(line: str) -> int | None:
    """Where a ``--`` comment starts on ``line``, outside quoted values and names."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif line.startswith("--", i):
            return i
    return None
