"""A scripted 'model' for the fake Ollama server: answers SQL prompts and extraction prompts by content.

Routes on the system message, so one callable serves the whole app (SQL, extraction, update decisions).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any


def _question(user: str) -> str:
    m = re.search(r'Question: "(.*)"\s*$', user, re.S)
    return m.group(1) if m else user


def _message(user: str) -> str:
    m = re.search(r"<user_message>\s*(.*?)\s*</user_message>", user, re.S)
    return m.group(1) if m else user


def analyst_model(
    sql_for: Mapping[str, str], facts_for: Mapping[str, str] | None = None
) -> Callable[[dict[str, Any]], str]:
    """``sql_for``: substring of the question -> SQL; ``facts_for``: substring of the message -> tagged facts."""
    facts_for = facts_for or {}

    def reply(body: dict[str, Any]) -> str:
        system = body["messages"][0]["content"]
        user = body["messages"][-1]["content"]
        if system.startswith("You extract"):
            text = _message(user).lower()
            for key, facts in facts_for.items():
                if key.lower() in text:
                    return facts
            return "NONE"
        if "compare two remembered facts" in system:
            return "UPDATE"
        question = _question(user).lower()
        for key, sql in sql_for.items():
            if key.lower() in question:
                return f"```sql\n{sql}\n```"
        return "SELECT 1"

    return reply
