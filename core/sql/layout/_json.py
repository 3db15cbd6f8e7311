"""A reply that gives its query as JSON (``{"sql": "SELECT …", "explanation": "…"}``), as models asked for
structured output do, or a tool call's arguments: the values of answer keys, best key first."""

from __future__ import annotations

import json
import re

__all__ = ["json_queries"]

_ANSWER_KEYS = ("final_sql", "final_query", "corrected_sql", "fixed_sql", "sql", "query", "sql_query", "answer",
                "statement", "code")  # best first
_NOT_ANSWER = re.compile(r"draft|bad|wrong|example|sample|old|previous|check|explan|step|test|alternative|original",
                         re.IGNORECASE)


def json_queries(text: str) -> list[str]:
    """The statements a reply gives as JSON (``{"sql": "SELECT …", "explanation": …}``): the values of answer keys
    (``final_sql`` before ``sql``/``query``), never one under a draft, example, check or step key, nor prose."""
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
        stack: list[tuple[object, str, bool]] = [(data, "", True)]
        while stack:
            item, key, usable = stack.pop()
            if isinstance(item, dict):
                stack += [(v, str(k).lower(), usable and not _NOT_ANSWER.search(str(k))) for k, v in item.items()]
            elif isinstance(item, list):
                stack += [(v, key, usable) for v in item]
            elif isinstance(item, str) and usable and key in _ANSWER_KEYS and item.strip():
                found.append((_ANSWER_KEYS.index(key), item))
        position = text.find("{", end)
    return [value for _, value in sorted(found, key=lambda f: f[0])]
