"""A reply that is a printed Python object carrying the query — LlamaIndex's ``Response(response='…',
metadata={'…': {'sql_query': 'SELECT …', …}})``, DSPy's ``Prediction(sql='…')``, any dict or call with a
``sql_query``/``sql``/``query`` key in single quotes (as Python prints it and JSON never writes it) or keyword —:
the Python string read with ``ast.literal_eval``, as a SQL block after the text, where it starts a query and the reply
holds no query of its own (``cur.execute(query='…')`` after a SQL block is an example of how to run it).

(An agent's own formats — Aider's SEARCH/REPLACE block, Cline's ``<execute_command>``, DSPy's ``[[ ## sql_query ## ]]``
fields — need no reader of their own: the general readers take them, ``tests/test_agent_layouts.py``.)
"""

from __future__ import annotations

import ast
import re

from core.sql.layout._markup import QUERY_START

__all__ = ["printed_values_read"]

_PY_STRING = r"[rRuU]?(?:'''[\s\S]*?'''|\"\"\"[\s\S]*?\"\"\"|'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\")"
_PY_VALUE = re.compile(r"(?:'(?:final_sql|sql_query|sql|query)'\s*:|[(,]\s*(?:final_sql|sql_query|sql|query)"
                       rf"\s*=)\s*({_PY_STRING})", re.IGNORECASE)


_OWN_QUERY = re.compile(r"```|^[ \t]*(?:SELECT|WITH)\b", re.IGNORECASE | re.MULTILINE)


def printed_values_read(text: str) -> str:
    """``text`` with the last query a printed Python object carries appended as a SQL block, where the reply has no
    query of its own (no code block, no line starting a query): beside one, a printed value is an example or a draft."""
    if "sql" not in text.lower() and "query" not in text.lower() or _OWN_QUERY.search(text):
        return text
    found = []
    for match in _PY_VALUE.finditer(text):
        try:
            value = ast.literal_eval(match[1])
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            continue
        if isinstance(value, str) and QUERY_START.match(value.strip()):
            found.append(value.strip())
    return text if not found else f"{text}\n\n```sql\n{found[-1]}\n```\n"
