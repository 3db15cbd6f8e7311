"""A reply that gives its query as a value of a structured document: JSON (``{"sql": "SELECT …", "explanation":
"…"}``), as models asked for structured output do, a tool call's arguments, or TOML (``sql = '''SELECT …'''`` under
an ``[answer]`` table, read with the standard library's ``tomllib``): the values of answer keys, best key first; or the
query given clause by clause (``{"select": […], "from": "…", "where": "…"}``), written in SQL's order."""

from __future__ import annotations

import json
import re
import tomllib

__all__ = ["document_queries"]

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
