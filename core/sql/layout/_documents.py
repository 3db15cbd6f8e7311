"""A reply that gives its query as a value of a structured document: JSON (``{"sql": "SELECT …", "explanation":
"…"}``), as models asked for structured output do, a tool call's arguments, or TOML (``sql = '''SELECT …'''`` under
an ``[answer]`` table, read with the standard library's ``tomllib``): the values of answer keys, best key first; or the
query given clause by clause (``{"select": […], "from": "…", "where": "…"}``), written in SQL's order.

Two envelopes are read back to the text they carry before anything else: **a model's raw token stream** (Ollama's
NDJSON, ``{"response": "SEL", "done": false}`` a line, or ``message.content``; an OpenAI-style ``data: {"choices":
[{"delta": {"content": …}}]}`` stream; each with its stream's own keys, ``done``/``model`` or ``delta``; the Vercel AI
SDK's data stream of typed parts, ``0:"SEL"`` a text part, ``f:{…}``/``d:{…}`` its own), its pieces joined, where at
least three lines and nearly all of them are such objects and the text holds a query; and, in a
reply with no query of its own, **a query in a link** (``http://127.0.0.1:8001/shop?sql=SELECT+…``, Datasette's and many tools' ``sql=``,
``query=`` or ``q=`` parameter), URL-decoded, as a SQL block after the reply where it starts a query."""

from __future__ import annotations

import json
import re
import tomllib
from urllib.parse import unquote_plus

from core.sql.layout._markup import QUERY_START, STRING_LITERAL, literal_value

__all__ = ["document_queries", "envelopes_read"]

_STREAM_LINE = re.compile(r"^[ \t]*(?:data:[ \t]*)?(\{.*\})[ \t]*$")
_PART_LINE = re.compile(r"^([0-9a-z]):(.+)$")  # the Vercel AI SDK's data stream: ``0:"SEL"`` a text part, ``f:{…}``,
# ``e:{…}``, ``d:{…}`` (message start, step end, finish) and others its own
_LINK_QUERY = re.compile(r"https?://[^\s?#]+\?(?:[^\s#]*&)?(?:sql|query|q)=([^&\s#)\]>\"']+)", re.IGNORECASE)
_QUERY_WORD = re.compile(r"\b(?:SELECT|WITH)\b", re.IGNORECASE)
_LINE_QUERY = re.compile(r"^[ \t]*(?:SELECT|WITH)\b", re.IGNORECASE | re.MULTILINE)

_ANSWER_KEYS = ("final_sql", "final_query", "corrected_sql", "fixed_sql", "sql", "query", "sql_query", "answer",
                "statement", "code")  # best first
_NOT_ANSWER = re.compile(r"draft|bad|wrong|example|sample|old|previous|check|explan|step|test|alternative|original",
                         re.IGNORECASE)
# A TOML document: a fenced ```toml block, or a reply whose first line is a [table] header or a key = value line.
_TOML_BLOCK = re.compile(r"(?:```|~~~)[ \t]*toml[ \t]*\n(.*?)(?:```|~~~)", re.DOTALL | re.IGNORECASE)
_TOML_START = re.compile(r"\s*(?:#[^\n]*\n\s*)*(?:\[\[?[\w.\"' -]+\]\]?|[\w.-]+[ \t]*=)")  # comments first too
_CLAUSES = {"with": ("WITH", ", "), "select": ("SELECT", ", "), "from": ("FROM", ", "), "joins": ("", "\n"), "join": ("", "\n"),
            "where": ("WHERE", " AND "), "group by": ("GROUP BY", ", "), "having": ("HAVING", " AND "),
            "order by": ("ORDER BY", ", "), "limit": ("LIMIT", ", "), "offset": ("OFFSET", ", ")}  # a query's clauses, in SQL's order
_MAX_TOML = 100_000  # characters: a longer reply is no answer written as a document


def document_queries(text: str) -> list[str]:
    """The statements a reply gives as values of answer keys in JSON or TOML (``final_sql`` before
    ``sql``/``query``), never one under a draft, example, check or step key, nor prose."""
    found = [*_json_values(text), *_toml_values(text)]
    return [value for _, value in sorted(found, key=lambda f: f[0])]


def _json_values(text: str) -> list[tuple[int, str]]:
    decoder = json.JSONDecoder()
    found: list[tuple[int, str]] = []
    position = text.find("{")
    tries = 0
    while position >= 0 and tries < 20:
        tries += 1
        try:
            data, end = decoder.raw_decode(text, position)
        except (ValueError, RecursionError):
            position = text.find("{", position + 1)
            continue
        found += _answers(data)
        position = text.find("{", end)
    return found


def _toml_values(text: str) -> list[tuple[int, str]]:
    """The answers of the reply's TOML documents: each ```toml block, or the whole reply when it starts as one."""
    if len(text) > _MAX_TOML or ("'''" not in text and '"""' not in text and "=" not in text):
        return []
    documents = [m[1] for m in _TOML_BLOCK.finditer(text)]
    if not documents and _TOML_START.match(text):
        documents = [text]
    found: list[tuple[int, str]] = []
    for document in documents:
        try:
            found += _answers(tomllib.loads(document))
        except (tomllib.TOMLDecodeError, RecursionError):
            continue
    return found


def _from_clauses(item: dict[object, object]) -> str | None:
    """A query given clause by clause (``{"select": ["name"], "from": "author", "where": "…"}``), written in SQL's
    order: only where every key names a clause and each value is text or a list of texts (a list of conditions is
    joined by AND, of anything else by commas); None otherwise."""
    keys = {re.sub(r"[\s_-]+", " ", str(k)).strip().lower(): v for k, v in item.items()}
    if not {"select", "from"} <= keys.keys() or not keys.keys() <= _CLAUSES.keys():
        return None
    parts = []
    for clause, (written, joiner) in _CLAUSES.items():
        value = keys.get(clause)
        if value is None or value == [] or value == "":
            continue
        items = value if isinstance(value, list) else [value]
        if not all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in items):
            return None
        texts = [f"({v})" if joiner == " AND " and len(items) > 1 else str(v) for v in items]  # `a OR b` kept whole
        parts.append(f"{written} {joiner.join(texts)}" if written else joiner.join(texts))
    return "\n".join(parts)


def _answers(data: object) -> list[tuple[int, str]]:
    """The string values under answer keys in a document's data (a key under a draft or example key is none)."""
    found: list[tuple[int, str]] = []
    stack: list[tuple[object, str, bool]] = [(data, "", True)]
    while stack:
        item, key, usable = stack.pop()
        if isinstance(item, dict) and usable and (built := _from_clauses(item)) is not None:
            found.append((len(_ANSWER_KEYS), built))
        elif isinstance(item, dict):
            stack += [(v, str(k).lower(), usable and not _NOT_ANSWER.search(str(k))) for k, v in item.items()]
        elif isinstance(item, list):
            stack += [(v, key, usable) for v in item]
        elif isinstance(item, str) and usable and key in _ANSWER_KEYS and item.strip():
            found.append((_ANSWER_KEYS.index(key), item))
    return found


def envelopes_read(text: str) -> str:
    """``text`` read out of a token stream and out of a string it was printed as, and with the queries its links
    carry as SQL blocks after it."""
    text = _strings_read(_streamed(text))
    if "=" in text and "://" in text and "```" not in text and not _LINE_QUERY.search(text):  # beside a query of
        # its own, a link is a draft or a look: the reply's query answers
        queries = [q for m in _LINK_QUERY.finditer(text) if QUERY_START.match(q := unquote_plus(m[1]))]
        text += "".join(f"\n\n```sql\n{q.strip()}\n```\n" for q in queries)
    return text


_STRING = re.compile(STRING_LITERAL)
_ESCAPED_REPLY = re.compile(r"(?:^|\\n)\s*(?:```|~~~)")  # a whole reply, its fenced block escaped in the string


def _strings_read(text: str) -> str:
    """A reply printed as a string inside another program's output — a chat history as JSON (``[["ask", "Sure:\\n
    \\n```sql\\nSELECT …\\n```"]]``), a Python repr (``AIMessage(content='```\\nSELECT …\\n```', …)``,
    ``[{'generated_text': "…"}]``) —: each one-line string whose escaped text holds a fenced block, read back to
    that text (by Python's own reading of the literal, which JSON's strings follow), on lines of
    its own. Only in a reply whose own lines hold no fence opening a block and no line starting a query."""
    if "\\n" not in text or re.search(r"^[ \t]*(?:```|~~~)|^[ \t]*(?:SELECT|WITH)\b", text, re.IGNORECASE | re.MULTILINE):
        return text

    def read(match: re.Match[str]) -> str:
        literal = match[0]
        if not _ESCAPED_REPLY.search(literal[1:-1]):
            return literal
        value = literal_value(literal)
        return f"\n{value}\n" if isinstance(value, str) else literal

    return _STRING.sub(read, text)


def _streamed(text: str) -> str:
    """The text a stream of JSON objects carries, its pieces joined; ``text`` itself when it is no such stream."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) >= 3 and _PART_LINE.match(lines[0].strip()):
        return _parts(lines) or text
    if len(lines) < 3 or not lines[0].lstrip().startswith(("{", "data:")):
        return text
    pieces: list[str] = []
    for line in lines:
        match = _STREAM_LINE.match(line)
        try:
            piece = _piece(json.loads(match[1])) if match else None
        except (ValueError, RecursionError):
            piece = None
        if piece is not None or line.strip() == "data: [DONE]":
            pieces.append(piece or "")
    joined = "".join(pieces)
    return joined if len(pieces) >= 0.9 * len(lines) and _QUERY_WORD.search(joined) else text


def _parts(lines: list[str]) -> str | None:
    """The text of a data stream of typed parts (``0:"SEL"``, ``0:"ECT …"``, ``d:{"finishReason":"stop"}``), its text
    parts joined, where nearly every line is such a part, one at least is text, and the text holds a query."""
    pieces: list[str] = []
    texts = 0
    for line in lines:
        match = _PART_LINE.match(line.strip())
        try:
            value = json.loads(match[2]) if match else None
        except (ValueError, RecursionError):
            match = None
        if match is None:
            continue
        texts += match[1] == "0" and isinstance(value, str)
        pieces.append(value if match[1] == "0" and isinstance(value, str) else "")
    joined = "".join(pieces)
    return joined if texts and len(pieces) >= 0.9 * len(lines) and _QUERY_WORD.search(joined) else None


def _piece(data: object) -> str | None:
    """The text one stream object carries (Ollama's ``response`` or ``message.content``, OpenAI's
    ``choices[0].delta.content`` or ``choices[0].text``), else None."""
    if not isinstance(data, dict):
        return None
    ollama = "done" in data or "model" in data  # a stream's own keys, never a table's rows shown as JSON lines
    if ollama and isinstance(data.get("response"), str):
        return data["response"]
    message = data.get("message")
    if ollama and isinstance(message, dict) and isinstance(message.get("content"), str):
        return message["content"]
    choices = data.get("choices") if "id" in data or "object" in data or "model" in data or "delta" in str(
        data.get("choices"))[:200] else None
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        delta = choices[0].get("delta")
        if isinstance(delta, dict):
            return delta.get("content") if isinstance(delta.get("content"), str) else ""
        return choices[0]["text"] if isinstance(choices[0].get("text"), str) else None
    return None
