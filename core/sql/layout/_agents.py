"""A reply written in a coding agent's or an LLM framework's own format, read back to plain SQL blocks:

- **Aider's edit block** (a file's name, then ``<<<<<<< SEARCH`` … ``=======`` … ``>>>>>>> REPLACE``; the older
  ``ORIGINAL``/``UPDATED`` markers too): the text after the change, the REPLACE part; the SEARCH part is the draft
  it replaces;
- **an agent's XML tool call** (Cline's and Roo's ``<execute_command><command>sqlite3 shop.db "SELECT …"</command>``,
  ``<write_to_file>`` with a ``.sql`` path and its ``<content>``): the command on a line of its own (the terminal
  reader takes the query from ``psql -c``/``sqlite3 file "…"``), the file's content as a SQL block; XML's entities
  read;
- **DSPy's output fields** (``[[ ## reasoning ## ]]`` … ``[[ ## sql_query ## ]]`` … ``[[ ## completed ## ]]``): the
  text of the field named for SQL or a query as a SQL block, the markers dropped, other fields left as prose;
- **a printed Python object that carries the query** (LlamaIndex's ``Response(response='…', metadata={'…':
  {'sql_query': 'SELECT …', …}})``, ``Prediction(sql='…')``, any dict or call with a ``sql_query``/``sql``/``query``
  key — in single quotes, as Python prints it and JSON never writes it — or keyword): the Python string read with
  ``ast.literal_eval``, as a SQL block after the text, where it starts a query.

None of these markers is SQL, and each format says which part is the answer.
"""

from __future__ import annotations

import ast
import html
import re

from core.sql.layout._markup import QUERY_START

__all__ = ["agent_formats_read"]

_AIDER = re.compile(r"^[ \t]*<{5,9}[ \t]*(SEARCH|ORIGINAL)[ \t]*\n(.*?)^[ \t]*={5,9}[ \t]*\n(.*?)^[ \t]*>{5,9}[ \t]*"
                    r"(?:REPLACE|UPDATED)[ \t]*$", re.MULTILINE | re.DOTALL)
_COMMAND = re.compile(r"<execute_command>\s*<command>(.*?)</command>.*?</execute_command>", re.DOTALL)
_WRITE = re.compile(r"<write_to_file>\s*<path>[^<]*\.sql\s*</path>\s*<content>(.*?)</content>.*?</write_to_file>",
                    re.DOTALL | re.IGNORECASE)
_FIELD = re.compile(r"^[ \t]*\[\[ ## (\w+) ## \]\][ \t]*$", re.MULTILINE)
_SQL_FIELD = re.compile(r"sql|query", re.IGNORECASE)
_PY_STRING = r"[rRuU]?(?:'''[\s\S]*?'''|\"\"\"[\s\S]*?\"\"\"|'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\")"
_PY_VALUE = re.compile(r"(?:'(?:final_sql|sql_query|sql|query)'\s*:|[(,]\s*(?:final_sql|sql_query|sql|query)"
                       rf"\s*=)\s*({_PY_STRING})", re.IGNORECASE)


def agent_formats_read(text: str) -> str:
    """``text`` with the formats of the module docstring read back to SQL blocks."""
    if "<<<<<" in text:
        text = _AIDER.sub(lambda m: _as_block(text, m.start(), m[3]), text)
    if "<execute_command>" in text:
        text = _COMMAND.sub(lambda m: "\n" + html.unescape(m[1]).strip() + "\n", text)
    if "<write_to_file>" in text:
        text = _WRITE.sub(lambda m: _as_block(text, m.start(), html.unescape(m[1])), text)
    if "[[ ## " in text:
        text = _fields_read(text)
    if "sql" in text.lower() or "query" in text.lower():
        text = _python_values_read(text)
    return text


def _as_block(text: str, at: int, sql: str) -> str:
    """``sql`` as it stands inside a fence already open at ``at``, else as a fenced SQL block of its own."""
    sql = sql.strip("\n")
    return sql if text[:at].count("```") % 2 == 1 else f"\n```sql\n{sql}\n```\n"


def _fields_read(text: str) -> str:
    """DSPy's fields: the SQL field's text as a block, every marker dropped."""
    marks = list(_FIELD.finditer(text))
    if not marks or not any(_SQL_FIELD.search(m[1]) for m in marks):
        return text
    out = [text[:marks[0].start()]]
    for mark, after in zip(marks, [*marks[1:], None], strict=True):
        body = text[mark.end():after.start() if after is not None else len(text)]
        if _SQL_FIELD.search(mark[1]) and "```" not in body and QUERY_START.match(body.strip()):
            body = f"\n```sql\n{body.strip()}\n```\n"
        out.append(body)
    return "".join(out)


def _python_values_read(text: str) -> str:
    """A query given as a Python string under an answer key or keyword: appended as a SQL block."""
    found = []
    for match in _PY_VALUE.finditer(text):
        try:
            value = ast.literal_eval(match[1])
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            continue
        if isinstance(value, str) and QUERY_START.match(value.strip()):
            found.append(value.strip())
    return text if not found else text + "".join(f"\n\n```sql\n{q}\n```\n" for q in found[-1:])
