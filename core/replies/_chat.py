"""Small talk: a greeting, thanks or an acknowledgement gets a short, useful reply and no SQL."""

from __future__ import annotations

import re

__all__ = ["chat_reply"]

_THANKS = re.compile(r"\b(thanks?|thank you|thx|ty|shukriya|dhanyavaad|dhanyavad|cheers)\b", re.IGNORECASE)
_BYE = re.compile(r"\b(bye|goodbye|good night|see you|later)\b", re.IGNORECASE)
_GREETING = re.compile(r"\b(hi|hello|hey|hii+|namaste|good (morning|afternoon|evening)|yo)\b", re.IGNORECASE)

HELP_LINE = (
    "Ask a question about your data (\"revenue by month this year\"), or tell me something to remember "
    "(\"only show customers from India\", \"a big order is one over 5,000\"). Ask \"what can you do?\" for more."
)


def chat_reply(message: str) -> str:
    if _THANKS.search(message):
        return "You're welcome. Ask the next question whenever you like."
    if _BYE.search(message):
        return "Bye for now. Your preferences stay remembered for next time."
    if _GREETING.search(message):
        return "Hello! " + HELP_LINE
    if re.search(r"\d", message) or len(message.split()) > 3:  # "2022 through 2025": not small talk, not kept
        said = " ".join(message.split())[:120]
        return (f'I did not store or run anything for that. To keep it as a standing preference, say "remember: '
                f'{said}"; to see data, ask a question. ' + HELP_LINE)
    return "Noted. " + HELP_LINE
