"""Find the one SQL statement in a model's reply, however it is wrapped.

Small models put SQL in fences, after "Here is the query:", before "This query counts...", with or without
semicolons. Rather than clean with regexes (which glue prose onto the SQL or drop good replies), this finds where a
statement starts and keeps the longest stretch from there that sqlglot reads as exactly one statement; whatever
follows is prose and is dropped. A write statement is kept as written: the guard rejects it later with a reason.
"""

from __future__ import annotations

import logging
import re

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ParseError
from sqlglot.tokens import TokenType

from core.errors import LLMReplyError, SQLRejected
from core.sql._explanations import clause_later, clauses_after_notes, explanations_as_comments, sentence as _sentence
from core.sql.written import spelled_keywords, spelled_statement_start, with_ended
from core.sql._guard import BACKTICK_POSTGRES_READ, guard, parse_statements
from core.sql.layout import (CLIENT_SETTING, CURLY_PAIR, THINK, continues, document_queries, extends, laid_out,
                             sql_end, unknown_layout_readings, without_fences)
from core.sql.repair import is_reserved
from core.sql._spoken import read_as_sql
from core.sql._tails import GOES_ON, LABEL, TAIL_WORD, looser_limit, program_goes_on, prose_tail
from core.sql._slips import (PARSE_FAILURES, balanced, cut_off_reply, drop_dangling_connectives, mendable,
                             plausible, reading, stops_in_block)

__all__ = ["extract_queries", "extract_sql"]
logger = logging.getLogger(__name__)

# Dialects tried when reading a candidate; the guard later fixes foreign idioms for the target.
_READ_DIALECTS = ("postgres", "sqlite", "mysql", BACKTICK_POSTGRES_READ, "tsql", "duckdb")
_QUERY_KEYWORDS = ("SELECT", "WITH", "VALUES")
# Write or admin statements: only recognised in capitals, since the words are common English.
_OTHER_KEYWORDS = (
    "INSERT", "UPDATE", "DELETE", "MERGE", "CREATE", "DROP", "ALTER", "TRUNCATE", "GRANT", "REVOKE",
    "REPLACE", "COPY", "PRAGMA", "ATTACH", "DETACH", "EXPLAIN", "CALL", "VACUUM", "SET", "LOCK",
)  # fmt: skip
_KEYWORD = re.compile(r"\b(" + "|".join(_QUERY_KEYWORDS + _OTHER_KEYWORDS) + r")\b", re.IGNORECASE)
_FENCE = re.compile(r"(?:```|~~~)[ \t]*([\w+-]*)[^\n]*\n(.*?)(?:```|~~~|\Z)", re.DOTALL)
_TAGGED = re.compile(r"[<\[](sql|query|answer)[>\]](.*?)[<\[]/\1[>\]]|\[(code)(=(?:sql|postgres\w*|sqlite3?|mysql|"
                     r"tsql))?\](.*?)\[/code\]", re.DOTALL | re.IGNORECASE)  # <sql>…</sql>, [SQL]…[/SQL], BBCode's
# [code=sql]…[/code] (never HTML's <code>, which prose uses for a word or an example)
_INLINE = re.compile(r"(?<!`)`((?:SELECT|WITH)\b[^`\n]+)`(?!`)", re.IGNORECASE)  # `SELECT …` inside a sentence
_SQL_LANGS = frozenset({"", "sql", "postgres", "postgresql", "psql", "pgsql", "plpgsql", "sqlite", "sqlite3",
                        "mysql", "tsql", "duckdb", "ansi"})  # fmt: skip
# A line after the start that reads as prose ends the statement: ends like a sentence, or is a bullet/heading.
_PROSE_LINE = re.compile(r"^\s*(?:\d+[.)]\s|#|\*\*|>|[^\x00-\x7f'\"`(])|[A-Za-z)\]][.!?:]\s*$|\u0964\s*$")
_BULLET = re.compile(r"[-*+]\s+(?=[A-Z][a-z])")  # "- This counts …" is a bullet; "+ UnitsOnOrder < ReorderLevel" is SQL
# (a line that starts with a letter of another script — Devanagari prose after the query — or ends with a danda)
_CLAUSE_LINE = re.compile(r"(?:FROM|WHERE|AND|OR|JOIN|INNER JOIN|LEFT JOIN|RIGHT JOIN|FULL JOIN|CROSS JOIN|ON|"
                          r"GROUP BY|ORDER BY|HAVING|LIMIT|UNION|SELECT)\s")  # in capitals: SQL, not a sentence
_SENTENCE_END = re.compile(r"[.!?:\u0964](?=\s)|`")
_MAX_CUTS, _MAX_STARTS, _MAX_WORD_CUTS = 60, 12, 40  # bound the work on long replies
_CORRECTED = re.compile(r"\b(?:wait|actually|correct\w*|oops|instead|sorry|mistake|wrong|fix\w*|rather|my bad|"
                        r"should (?:be|have)|galti|sahi (?:query|wala))\b", re.IGNORECASE)  # a draft, then its fix
_MAX_MEND_CHARS = 2_000  # a longer statement with a slip goes back to the model rather than being searched


def extract_sql(reply: str, dialect: str | None = None) -> str:
    """The SQL statement of ``reply`` that answers, without trailing semicolons (see :func:`extract_queries`);
    raises ``LLMReplyError`` when the reply holds no SQL statement."""
    return extract_queries(reply, dialect)[0]


def extract_queries(reply: str, dialect: str | None = None, *, finished: bool = False) -> list[str]:
    """The statement that answers, then the reply's other queries (to offer, never to run unseen).

    A reply with several SQL code blocks is a draft and its correction ("Wait, that misses the LIMIT. Corrected:"),
    a look at the data and then the query, or a schema echoed as CREATE TABLE before the query: the answer is the
    last block holding a query (SELECT/WITH/VALUES), and with the target ``dialect`` known, the last one written in
    it (not "the same for MySQL" after it). The other queries come after it, for the person to choose.
    A reply with no query keeps its first statement, for the guard to refuse with a reason. A reply that stops
    inside a code block it never closed, on a statement without ``;``, is cut off (``stops_in_block``) unless the
    model said it ``finished`` (Ollama's done_reason "stop": it forgot the closing fence). A reply that gives one
    query per number asked — the same rows, grouping and limit, each showing its own aggregate — answers with one
    query showing them all (``_measures_merged``), each as written offered after it.

    Raises:
        LLMReplyError: when the reply holds no SQL statement, or ends on AND/OR (cut off: ``cut_off_reply``).
    """
    text, ended = laid_out(reply or "", _SQL_LANGS)  # turn-end tokens, Python programs, parts, loops
    finished = finished or ended
    if (last := cut_off_reply(text)) is not None:
        raise LLMReplyError(f"the reply stops after {last!r}, where more must follow: it looks cut off")
    if not finished and stops_in_block(text):
        raise LLMReplyError("the reply stops inside its SQL block before the statement ends (no ';', no closing "
                            "fence): it looks cut off")
    outside_think = THINK.sub("", text)
    sources = [outside_think, text] if outside_think != text else [text]
    straight = CURLY_PAIR.sub(lambda m: f'"{m.group(2)}"' if m.group(2) is not None else f"'{m.group(1) or m[3]}'",
                               outside_think)
    if straight != outside_think:  # ‘2023-01-01’ typed by a word processor: read as the quotes meant
        sources.insert(0, straight)
    for source in sources:
        native = (lambda b: _reads_as(b, dialect)) if dialect else None  # noqa: E731
        blocks = [_spelled(explanations_as_comments(b, native)) for b in _sql_blocks(source)]
        blocks = [r for b in blocks for r in dict.fromkeys((b, clauses_after_notes(b, native or _reads)))]  # as
        # written, then with a clause a mid-line note swallowed: the answer, the reading as written offered beside it
        found = [sql for sql in (_statement_in(b) for b in blocks if not continues(b)) if sql]  # no fragment
        if not found:  # a misspelt keyword in a query with no code block is mended before its end is looked for
            found = [sql for sql in (_statement_in(r) for r in _regions(spelled_statement_start(source, _reads)))
                     if sql][:1]
        if found:
            queries = [sql for sql in found if _is_query(sql)]
            native = [sql for sql in queries if dialect and _native(sql, dialect)] if len(queries) > 1 else []
            answer = native[-1] if native else queries[-1] if queries else found[0]
            seen = {_normal(answer)}
            others = [q for q in queries if _normal(q) not in seen and not seen.add(_normal(q))]
            if not _CORRECTED.search(source) and (merged := _measures_merged(queries, dialect)) is not None:  # one
                # query per number asked: all of them (never a draft and its correction)
                answer, others = merged, [answer, *others]
            logger.debug("extracted SQL: %s (%d other queries)", answer, len(others))
            return [answer, *others]
    broken = [b.strip().rstrip(";").strip() for b in _sql_blocks(outside_think)
              if re.match(r"\s*(?:SELECT|WITH)\b", b, re.IGNORECASE)]
    if broken:  # a query in its block that does not parse: the guard says why (a ')' missing), not "no SQL"
        return broken[-1:]
    raise LLMReplyError("the model's reply holds no SQL query")


def _normal(sql: str, first: str | None = None) -> str:
    """One spelling of a statement, to tell a query from the same query in another dialect or layout."""
    for dialect in (first, *_READ_DIALECTS) if first else _READ_DIALECTS:
        try:
            tree = parse_statements(sql, dialect)[0]
        except (*PARSE_FAILURES, RecursionError):
            continue
        for ident in tree.find_all(exp.Identifier):
            ident.set("quoted", False)
        for ordered in tree.find_all(exp.Ordered):
            ordered.set("nulls_first", None)
        return tree.sql(dialect="postgres").lower()
    return " ".join(sql.lower().split())


def _native(sql: str, dialect: str) -> bool:
    """Whether ``sql`` runs in ``dialect`` as written: the guard rewrites no idiom borrowed from another."""
    try:
        return _normal(guard(sql, dialect).sql, dialect) == _normal(sql, dialect)
    except (SQLRejected, ValueError):
        return False


def _is_query(sql: str) -> bool:
    return bool(re.match(r"\s*\(*\s*(SELECT|WITH|VALUES)\b", sql, re.IGNORECASE))


def _sql_blocks(text: str) -> list[str]:
    fenced = [m.group(2) for m in _FENCE.finditer(text) if m.group(1).lower() in _SQL_LANGS]
    return fenced or _tagged(text)


def _tagged(text: str) -> list[str]:
    """The tagged blocks; those tagged as SQL (``[sql]``, ``[code=sql]``) alone where there are any: a plain
    ``[code]`` beside them is another kind of code, or a look at the data."""
    found = [(m.group(2), True) if m.group(1) else (m.group(5), bool(m.group(4))) for m in _TAGGED.finditer(text)]
    return [b for b, sql in found if sql] or [b for b, _ in found]


def _regions(text: str) -> list[str]:
    """Where to look, best first: SQL-looking fenced blocks, other fenced blocks, ``<sql>…</sql>`` tags, inline
    code spans that start with a query word ("You can get this with `SELECT …`, which…"), then the whole reply."""
    sql_blocks: list[str] = []
    other_blocks: list[str] = []
    for match in _FENCE.finditer(text):
        block = drop_dangling_connectives(match.group(2), "")  # "… WHERE a = 1 AND" closing the block
        (sql_blocks if match.group(1).lower() in _SQL_LANGS else other_blocks).append(block)
    tagged = _tagged(text)
    inline = [m.group(1) for m in _INLINE.finditer(_FENCE.sub(" ", text))]
    return [*document_queries(text), *sql_blocks, *other_blocks, *tagged, *inline, without_fences(text)]


def _starts(text: str) -> list[tuple[int, bool]]:
    """Plausible statement starts, best first, each with whether a command fallback parse may count.

    Tiers: capitals at a line start, capitals, any case at a line start, any case. Lower-case write or
    admin words ("update", "set", "drop") are common English: they count only at a line start, and only
    when sqlglot reads a real statement from them, not its catch-all ``Command``.
    """
    ranked: list[tuple[int, int, bool]] = []  # (tier, start, command allowed): by tier, then position
    for match in _KEYWORD.finditer(text):
        word = match.group(1)
        upper = word.isupper()
        line_head = text[text.rfind("\n", 0, match.start()) + 1 : match.start()]
        at_line_start = not line_head.strip() or bool(re.fullmatch(r"\s*(?:[\w ]{1,20}:|`|\(+)\s*", line_head))
        if word.upper() in _OTHER_KEYWORDS and not (upper or at_line_start):
            continue
        tier = 0 if upper and at_line_start else 1 if upper else 2 if at_line_start else 3
        start = match.start()
        while start > 0 and text[start - 1] in "( \t" and "(" in text[text.rfind("\n", 0, start) + 1 : start]:
            start -= 1  # include opening parentheses: (SELECT ...) UNION (SELECT ...)
        ranked.append((tier, start, upper))
    return [(start, command_ok) for _, start, command_ok in sorted(ranked)]


def _statement_in(region: str) -> str | None:
    """The statement ``region`` holds as written, or a reading for a layout no reader knows (``_unknown``) gives."""
    written = _statement_written(region)
    for text in unknown_layout_readings(region):
        if (sql := _statement_written(text, 2)) and (written is None or extends(sql, written)):
            return sql
    return written


def _statement_written(region: str, starts: int = _MAX_STARTS) -> str | None:
    first = None  # a client's settings before the query (SET PAGESIZE) are not its statement
    for start, command_ok in _starts(region)[:starts]:
        text = _cut_prose(region[start:])
        sql = _longest_statement(text, command_ok)
        if sql is None and _mid_sentence(region, start):
            sql = _statement_before_words(text, command_ok)
        elif sql is None and len(text) <= _MAX_MEND_CHARS:
            sql = _statement_before_mark(text, command_ok)  # "SELECT … LIMIT 1 - isse aapko …" from the line's start
        if sql and (_is_query(sql) or not CLIENT_SETTING.match(sql)):
            return sql if _is_query(sql) else first or sql
        first = first or sql
    return first


_BEFORE_WORD = re.compile(r"\s+(?=([a-z][a-z']*)\b)")  # a space before a lower-case word
_SEPARATOR = re.compile(r"\s+(?:-|\u2013|\u2014|<-+|\u2190|->|\u2192|=>|\u21d2)\s+(?=[a-z])")  # " - isse …", " <- bas …"
_JOINING_WORDS = frozenset({"aur", "ya", "evam", "tatha"})  # Hindi-English "and"/"or": the condition goes on


def _mid_sentence(region: str, start: int) -> bool:
    """Whether the statement starts after words on its own line (``You can run SELECT …``), not at a line's start."""
    return bool(TAIL_WORD.search(region[region.rfind("\n", 0, start) + 1 : start]))


def _statement_before_words(text: str, command_ok: bool) -> str | None:
    """``… running SELECT … LIMIT 1 against the database, which returns …``: a query begun inside a sentence that
    ends where the sentence goes on. The longest statement cut before a lower-case word that does not go on with a
    clause (``GOES_ON``; nor a Hindi-English "and"/"or"), outside every bracket and string, where all that is
    dropped reads as a sentence — mostly words that are not SQL's, no SQL word in capitals, no comparison, no
    bracket it closes. Only where the statement starts after words on its line (``_mid_sentence``), and only for a
    reply of ordinary length. A last word read as an alias no one uses (``FROM flight against``) is the sentence's
    when the statement also reads without it."""
    if len(text) > _MAX_MEND_CHARS:
        return None
    if marked := _statement_before_mark(text, command_ok):
        return marked
    readings: list[tuple[str, str]] = []
    for match in reversed(list(_BEFORE_WORD.finditer(text))[-_MAX_WORD_CUTS:]):
        word = match.group(1)
        if word in GOES_ON or word in _JOINING_WORDS or not _sentence(text[match.start():]):
            continue
        if found := _statement_before(text, match.start(), command_ok):
            readings.append(found)
            if len(readings) == 2:
                break
    if not readings:
        return None
    longest, dialect = readings[0]
    if len(readings) == 2 and _ends_on_unused_alias(longest, dialect) and \
            readings[1][0] == longest.rsplit(None, 1)[0].rstrip():
        longest, dialect = readings[1]
    return _strip_semicolons(longest, dialect)


def _statement_before_mark(text: str, command_ok: bool) -> str | None:
    """``… LIMIT 1 - isse aapko saare records mil jayenge``, ``… GROUP BY m.name <- bas isko chala dijiye``: the
    statement ends at a dash or an arrow set off by spaces when what follows it is a sentence (the same test as a cut
    before a word) and what precedes it is one statement. The last such mark outside brackets and strings: a dash
    further left is more likely the query's own minus."""
    for match in reversed(list(_SEPARATOR.finditer(text))[-_MAX_WORD_CUTS:]):
        rest = text[match.end():]
        first = TAIL_WORD.match(rest)
        if first is None or first.group(0) in GOES_ON or first.group(0) in _JOINING_WORDS or not _sentence(rest):
            continue
        if found := _statement_before(text, match.start(), command_ok):
            return _strip_semicolons(*found)
    return None


def _statement_before(text: str, cut: int, command_ok: bool) -> tuple[str, str] | None:
    """(the text before ``cut``, its dialect) when it is one statement, every bracket closed, no JOIN without ON."""
    candidate = text[:cut].strip()
    if not balanced(candidate, "postgres"):
        return None
    dialect = _one_statement_dialect(candidate, command_ok)
    return (candidate, dialect) if dialect and not _join_without_condition(candidate) else None


def _join_without_condition(sql: str) -> bool:
    """``… JOIN orders o`` cut before ``on …``: the last JOIN lost its condition (not a CROSS or NATURAL join)."""
    kinds = [t.token_type for t in Dialect.get_or_raise("postgres").tokenize(sql)]
    joins = [i for i, k in enumerate(kinds) if k == TokenType.JOIN]
    if not joins or kinds[joins[-1] - 1] in (TokenType.CROSS, TokenType.NATURAL):
        return False
    return not any(k in (TokenType.ON, TokenType.USING) for k in kinds[joins[-1]:])


def _ends_on_unused_alias(sql: str, dialect: str) -> bool:
    """Whether the statement ends on a table alias written without AS and used nowhere else in it."""
    last = re.search(r"(?<![.\w])([A-Za-z_]\w*)\s*$", sql)
    if last is None or len(re.findall(rf"\b{re.escape(last.group(1))}\b", sql, re.IGNORECASE)) != 1:
        return False
    tree = parse_statements(sql, dialect)[0]
    return any(t.alias.lower() == last.group(1).lower() for t in tree.find_all(exp.Table) if t.alias)


def _cut_prose(text: str) -> str:
    """Drop everything from the first prose-looking line after the first one. A line that starts with a clause
    word (``ORDER BY publication.``) is the statement's, a prose list item right before one a comment, and so is a
    prose line with a clause of the statement on a later line (``clause_later``)."""
    lines = text.split("\n")
    for i, line in enumerate(lines[1:], start=1):
        stripped = line.strip()
        if stripped.startswith("--") or _CLAUSE_LINE.match(stripped):
            continue
        bullet = _BULLET.match(stripped)
        if bullet and _sentence(stripped[bullet.end():]) and i + 1 < len(lines) and _CLAUSE_LINE.match(
                lines[i + 1].strip()):
            lines[i] = "-- " + stripped  # "- Keep only the active staff" with WHERE next: a note between clauses
            continue
        if _PROSE_LINE.search(stripped) or bullet and _sentence(stripped[bullet.end():]):
            if clause_later("\n".join(lines[i:])) and "--" not in stripped:
                lines[i] = "-- " + stripped  # "चरण 3: शर्त लगाओ" with a WHERE after it: a note between clauses
                continue
            return "\n".join(lines[:i]) + "\n"  # the line end stays: a '.' before it ended a sentence
    return "\n".join(lines)


def _longest_statement(text: str, command_ok: bool) -> str | None:
    """The longest prefix, cut at a semicolon, line or sentence end, that parses as exactly one statement."""
    cuts = {len(text)}
    cuts.update(i + 1 for i, ch in enumerate(text) if ch == ";")
    cuts.update(i for i, ch in enumerate(text) if ch == "\n")
    cuts.update(m.start() for m in _SENTENCE_END.finditer(text))
    end = sql_end(text)  # once: "… NULLS LAST यह query सही result देगी।"
    cuts = {c for c in cuts if c <= end} | {end}
    for cut in sorted(cuts, reverse=True)[:_MAX_CUTS]:
        candidate = text[:cut].strip()
        if text.startswith(":", cut) and LABEL.match(text[text.rfind("\n", 0, cut) + 1:cut + 2]):
            continue  # "Observation:" split from its colon: the label word is no alias
        if not (prose_tail(text[cut:]) or looser_limit(candidate, text[cut:]) or program_goes_on(candidate, text, cut)):
            continue  # what would be dropped is more SQL: a prefix that parses would silently lose clauses
        dialect = _one_statement_dialect(candidate, command_ok) if candidate.rstrip(";").strip() else None
        if not dialect and (quoted := _keyword_names_quoted(candidate)):
            candidate, dialect = quoted, _one_statement_dialect(quoted, command_ok)
        if dialect:
            return _strip_semicolons(candidate, dialect)
        if cut == len(text) and _is_query(candidate) and _mendable(candidate):
            return _strip_semicolons(candidate, "postgres")  # a slip the guard mends (a ')' or a comma missing)
    return None


_SHORT = 800  # a statement this short is also searched for two or three readings (each edit is parsed again)


def _mendable(sql: str) -> bool:
    """Whether one edit gives the statement a single reading (``_slips.mend_syntax``; the guard makes it), or two or
    three the data may settle (``slip_readings``). Read as
    PostgreSQL only, and only for a statement of ordinary length: this runs on every reply that does not parse."""
    def parses(text: str) -> str | None:
        try:
            tree = parse_statements(text, "postgres")
        except (*PARSE_FAILURES, RecursionError):
            return None
        if len(tree) != 1 or not plausible(tree[0]):
            return None
        return reading(tree[0])
    read = read_as_sql(sql, "postgres")[0]  # a form no SQL writes read first (``x IS IN``), as the guard does
    return len(sql) <= _MAX_MEND_CHARS and (read != sql and parses(read) is not None or mendable(
        read, "postgres", parses, most=3 if len(sql) <= _SHORT else 1))


_UNQUOTED = re.compile(r"'(?:[^'\\]|''|\\.)*'|\"[^\"]*\"|--[^\n]*|/\*.*?\*/", re.DOTALL)
_MORE_AFTER = re.compile(r";\s*(?=[^\s;])")


_AS_NAME = re.compile(r"\b(?:AS|FROM|JOIN)\s+([A-Za-z_]\w*)", re.IGNORECASE)  # where a name is written
_MAX_KEYWORD_QUOTES = 8


def _keyword_names_quoted(sql: str) -> str | None:
    """``AS order ... ORDER BY order``, ``FROM Like``: a key word the writer chose as a name (after AS, FROM or
    JOIN: an alias or a table named like a key word), quoted wherever the
    parser stops on it, until the statement parses; None when it still does not. Quoting in lower case names
    what the bare word would have named (PostgreSQL folds it; SQLite ignores case)."""
    named = {m.group(1).lower() for m in _AS_NAME.finditer(sql)}
    named = {w for w in named if is_reserved(w, "postgres") or is_reserved(w, "sqlite")}
    if not named:
        return None
    dialect = Dialect.get_or_raise("postgres")
    for _ in range(_MAX_KEYWORD_QUOTES):
        try:
            parse_statements(sql, "postgres")
            return sql
        except ParseError as exc:
            where = (exc.errors[0].get("line"), exc.errors[0].get("col")) if exc.errors else None
        except (*PARSE_FAILURES, RecursionError):
            return None
        try:
            tokens = dialect.tokenize(sql)
        except (*PARSE_FAILURES, RecursionError):
            return None
        # The parser may stop at the key word or a little after it (``FROM (SELECT * FROM Order) x`` stops at
        # ``)``): the last such word at or before where it stopped.
        hit = None
        for token in tokens:
            if where is None or (token.line, token.col) > where:
                break
            if token.text.lower() in named and token.token_type.name != "IDENTIFIER":
                hit = token
        if hit is None:
            return None
        sql = f'{sql[: hit.start]}"{hit.text.lower()}"{sql[hit.end + 1 :]}'
    return None


def _strip_semicolons(sql: str, dialect: str) -> str:
    """Drop trailing ``;`` tokens (and comments after them), never one inside a string (an open one is kept as is)."""
    try:
        tokens = Dialect.get_or_raise(dialect).tokenize(sql)
    except PARSE_FAILURES:
        return sql.rstrip()
    while tokens and tokens[-1].token_type == TokenType.SEMICOLON:
        sql = sql[: tokens.pop().start]
    return sql.rstrip()


def _spelled(block: str) -> str:
    """A code block with its misspelt keywords mended: the whole block, else the run of lines its query fills."""
    mended = spelled_keywords(block, _reads)
    mended = mended if mended != block else spelled_statement_start(block, _reads)
    ended = with_ended(block) if mended == block else block  # ``WITH result AS (…)``, the whole block: its rows
    return ended if ended != block and not _reads(block) and _reads(ended) else mended


def _reads(sql: str) -> bool:
    return _one_statement_dialect(sql.strip().rstrip(";"), False) is not None


def _reads_as(sql: str, dialect: str) -> bool:  # one statement of ``dialect`` as written
    try:
        return len(parse_statements(sql.strip().rstrip(";"), dialect)) == 1
    except (*PARSE_FAILURES, RecursionError):
        return False


def _one_statement_dialect(sql: str, command_ok: bool) -> str | None:
    """The first dialect that reads ``sql`` as exactly one statement (none where, outside quotes and comments, two
    ``;`` stand before more text: several statements, which no dialect reads as one — not parsed six times)."""
    if len(_MORE_AFTER.findall(_UNQUOTED.sub(" ", sql))) >= 2:
        return None
    for dialect in _READ_DIALECTS:
        try:
            statements = parse_statements(sql, dialect)
        except (*PARSE_FAILURES, RecursionError):  # IndexError: a parser of sqlglot's ran off the end
            continue
        if len(statements) == 1 and (command_ok or not isinstance(statements[0], exp.Command)):
            return dialect
    return None


def _measures_merged(queries: list[str], dialect: str | None) -> str | None:
    """Two to six queries the same but for the measures they show — one FROM, joins, WHERE, GROUP BY, HAVING, LIMIT
    and ORDER BY; each shows an aggregate the others do not, beside items they all show (the groups' labels) — as one
    query showing every item once, in the order written. None otherwise (and the caller never merges a reply that says it corrects itself: "wait", "actually")."""
    if not 2 <= len(queries) <= 6:
        return None
    try:
        trees = [sqlglot.parse_one(q, read=dialect) for q in queries]
    except (*PARSE_FAILURES, RecursionError):
        return None
    if not all(isinstance(t, exp.Select) for t in trees):
        return None

    def skeleton(tree: exp.Expression) -> str:
        bare = tree.copy()
        bare.set("expressions", [exp.Null()])
        bare.set("order", None)
        return bare.sql(dialect=dialect)

    orders = {t.args["order"].sql() if t.args.get("order") else "" for t in trees}
    if len({skeleton(t) for t in trees}) != 1 or len(orders) > 1:
        return None  # each ordered by its own measure: a correction, or rankings the merge could not keep
    items = [{e.sql() for e in t.expressions} for t in trees]
    if not set.intersection(*items):
        return None  # nothing shown in common (``COUNT(*)`` "or" ``COUNT(tid)``): two ways to one number
    for tree, own in zip(trees, items, strict=True):
        rest = set().union(*(other for other in items if other is not own))
        mine = [e for e in tree.expressions if e.sql() not in rest]
        if not mine or any(e.find(exp.AggFunc) is None for e in mine):
            return None
    merged = trees[0].copy()
    shown = {e.sql() for e in merged.expressions}
    merged.set("expressions", [*merged.expressions, *(e.copy() for t in trees[1:] for e in t.expressions
                                                      if e.sql() not in shown and not shown.add(e.sql()))])
    names = [e.alias_or_name.lower() for e in merged.expressions]
    return merged.sql(dialect=dialect) if len(names) == len(set(names)) else None
