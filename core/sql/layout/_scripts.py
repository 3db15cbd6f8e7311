"""A SQL block that holds more than the query, or holds it in a form no database here reads, read back to the
query alone (each reading applies to a fenced SQL block, or an unlabelled one, and only where it leaves a query):

- **a PL/pgSQL block that runs the query** (``DO $$ … FOR r IN SELECT … LOOP RAISE NOTICE …; END LOOP; END $$``, or a
  function's ``RETURN QUERY SELECT …;``): the query it loops over or returns;
- **sample data written before the query** (``CREATE TABLE author (aid INTEGER, …); INSERT INTO author VALUES …;``
  then the query): the fixture dropped, only where every statement before the query defines a table by its columns,
  fills one with VALUES, or drops one; the query then reads the real tables of those names;
- **DuckDB's files read as tables** (``FROM read_parquet('data/orders.parquet') AS o``, ``read_csv_auto('x.csv')``,
  ``FROM 'orders.csv'``): the file's name without its folder and extension as the table (which the schema then
  checks: a name it lacks fails visibly);
- **JSON's escapes of quotes and marks** (``\\u0027paid\\u0027``), in a block whose every quote is so escaped: the
  characters they stand for;
- **T-SQL's query hint after the query** (``OPTION (RECOMPILE)``, ``OPTION (MAXDOP 1)``, ``OPTION (HASH JOIN)``): dropped
  (PostgreSQL would read ``OPTION (RECOMPILE)`` as a table alias naming its columns);
- **a database's error echoed before the query** (psql's ``ERROR:``, ``LINE 1: …``, the ``^`` under it, ``HINT:``;
  SQLite's ``Parse error: …`` / ``Runtime error: …``): those lines dropped, the statement that failed with them.
"""

from __future__ import annotations

import re

from core.sql.layout._markup import FENCE as _FENCED
from core.sql.layout._markup import QUERY_START as _QUERY

__all__ = ["scripts_read"]

_MAX_CHARS = 100_000
_SQL_LABELS = frozenset({"sql", "postgres", "postgresql", "psql", "plpgsql", "pgsql", "sqlite", "sqlite3", "mysql",
                         "duckdb", ""})
_LOOPED = re.compile(r"\bFOR\s+\w+\s+IN\s+((?:SELECT|WITH)\b.*?)\s+LOOP\b|\bRETURN\s+QUERY\s+((?:SELECT|WITH)\b.*?);",
                     re.IGNORECASE | re.DOTALL)
_PROCEDURAL = re.compile(r"^\s*(?:DO\b|CREATE\s+(?:OR\s+REPLACE\s+)?(?:FUNCTION|PROCEDURE)\b)", re.IGNORECASE)
_FIXTURE = re.compile(r"\s*(?:--[^\n]*\n\s*)*(?:CREATE\s+(?:TEMP(?:ORARY)?\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?[\w.\"]+\s*"
                      r"\((?!\s*SELECT\b)|INSERT\s+INTO\s+[\w.\"]+\s*(?:\([^()]*\)\s*)?VALUES\b|DROP\s+TABLE\b)",
                      re.IGNORECASE)
_FILE_READ = re.compile(r"\bread_(?:parquet|csv|csv_auto|json|json_auto|ndjson)\s*\(\s*'([^'\n]*?)'(?:\s*,[^()]*)?\)|"
                        r"(?<=\bFROM\s)'([^'\n]+\.(?:csv|parquet|json|tsv))'|(?<=\bJOIN\s)'([^'\n]+\.(?:csv|parquet|json|tsv))'",
                        re.IGNORECASE)
_HINT = re.compile(r"\bOPTION[ \t]*\([ \t]*(?:(?:RECOMPILE|MAXDOP\s+\d+|FAST\s+\d+|(?:HASH|LOOP|MERGE)\s+(?:JOIN|UNION)|"
                   r"FORCE\s+ORDER|KEEPFIXED\s+PLAN|KEEP\s+PLAN|OPTIMIZE\s+FOR\s+UNKNOWN|(?:HASH|ORDER)\s+GROUP|"
                   r"MAXRECURSION\s+\d+)[ \t]*(?:,[ \t]*)?)+\)(?=[ \t]*;|\s*$)", re.IGNORECASE)
_JSON_ESCAPE = re.compile(r"\\u00([2-7][0-9a-fA-F])")
_ERROR_LINE = re.compile(r"^[ \t]*(?:Parse|Runtime) error\b[^\n]*\n(?:[^\n]*\n)?[ \t]*\^[^\n]*(?:\n|$)|"  # SQLite's, the
                         r"^[ \t]*(?:(?:ERROR|LINE \d+|HINT|DETAIL|CONTEXT|QUERY|STATEMENT|WARNING|NOTICE):|"  # line it
                         r"(?:Parse|Runtime) error\b|Error: (?:near|in prepare|no such)|\^)[^\n]*(?:\n|$)",  # echoes
                         re.MULTILINE)


def scripts_read(text: str) -> str:
    """``text`` with each SQL block read as the module docstring says."""
    if len(text) > _MAX_CHARS:
        return text
    return _FENCED.sub(lambda f: f[0] if f[2].lower() not in _SQL_LABELS else f[0].replace(f[3], _read(f[3]), 1), text)


def _read(block: str) -> str:
    if "OPTION" in block.upper():
        block = _HINT.sub("", block)
    if "\\u0027" in block and "'" not in block:  # the whole block JSON-escaped: never one value's text
        block = _JSON_ESCAPE.sub(lambda m: chr(int(m[1], 16)), block)
    if re.search(r"^[ \t]*(?:ERROR|HINT|LINE \d+):|^[ \t]*(?:Parse|Runtime) error\b", block, re.MULTILINE):
        block = _ERROR_LINE.sub("", block)
    if _PROCEDURAL.match(block) and (looped := _LOOPED.search(block)):
        block = (looped[1] or looped[2]).strip() + "\n"
    if _FIXTURE.match(block):
        block = _fixture_dropped(block)
    if "read_" in block or re.search(r"\b(?:FROM|JOIN)\s'", block, re.IGNORECASE):
        block = _FILE_READ.sub(lambda m: _stem(next(g for g in m.groups() if g is not None)), block)
    return block


def _fixture_dropped(block: str) -> str:
    """The statements after a fixture (tables defined by their columns, filled by VALUES, or dropped), where what is
    left starts with a query; else the block as it is."""
    statements = _split(block)
    at = 0
    while at < len(statements) and _FIXTURE.match(statements[at]):
        at += 1
    rest = ";".join(statements[at:])
    return rest.lstrip("\n") if at and _QUERY.match(re.sub(r"^(?:\s*--[^\n]*\n)*", "", rest)) else block


def _split(block: str) -> list[str]:
    """The block cut after each ``;`` outside quoted values and comments (each piece keeps what follows its ``;``)."""
    pieces, start = [], 0
    for match in re.finditer(r"'(?:[^']|'')*'|\"[^\"]*\"|--[^\n]*|(;)", block):
        if match[1]:
            pieces.append(block[start:match.start()])
            start = match.end()
    return [*pieces, block[start:]]


def _stem(path: str) -> str:
    """A file's name without its folders and extension, as a table name (``data/orders.parquet`` → ``orders``)."""
    name = re.split(r"[\\/]", path)[-1]
    name = re.sub(r"(?:\.(?:csv|parquet|json|ndjson|tsv|gz|txt))+$", "", name, flags=re.IGNORECASE)
    return name if re.fullmatch(r"[A-Za-z_]\w*", name) else f'"{name}"'
