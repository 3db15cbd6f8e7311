"""The shape a question's answer will have: one value ("how many orders last month?") or a list of rows
("list the orders", "revenue by city", "top 5 customers").

Presentation preferences (a default row limit, a default sort, columns always shown together) only mean
something for a list, so recall offers them to list questions alone; the SQL-level rule in ``_presentation``
still has the last word once the query exists (it skips a single aggregate row). The reading is deliberately
simple and closed-class: interrogatives, aggregate words and grouping words in English and Hindi-English,
never domain nouns.
"""

from __future__ import annotations

import re

__all__ = ["asks_for_rows"]

# "per X" / "by X" / "each X" / "har X" / "X-wise" / "A vs B": one row per group.
_GROUPING = re.compile(
    r"\b(?:per|each|every|har|across|breakdown|broken\s+down|split|grouped|group\s+by|wise|"
    r"monthly|weekly|daily|yearly|quarterly|trend|over\s+time|month\s+by\s+month|year\s+by\s+year|"
    r"vs|versus|compared\s+(?:to|with))\b|"
    r"\w+-wise\b|\bfor\s+(?:all|every)\b",
    re.IGNORECASE,
)
# "by X" groups unless it names who did something ("paid by card", "albums by Queen").
_BY = re.compile(r"\b(\w+)\s+by\s+(?!far\b|the\s+way\b)", re.IGNORECASE)
_AGENT_VERBS = {"paid", "made", "sold", "bought", "done", "run", "written", "held", "owned", "sent", "won"}
# Lists named outright: the answer is rows whatever else the question says.
_LIST = re.compile(
    r"^\s*(?:please\s+|pls\s+|can\s+you\s+|could\s+you\s+)?(?:list|which|who|whose|kaun\w*|konse|konsa)\b|"
    r"\b(?:list|lists|listing|top\s+\d+|bottom\s+\d+|top\s+(?:ten|five|three|twenty)|names?\s+of|"
    r"ki\s+list|details|rows)\b",
    re.IGNORECASE,
)
# One number: counts, totals, averages, shares.
_VALUE = re.compile(
    r"\b(?:how\s+(?:many|much|long|big)|kitn[aeiy]|count|number\s+of|no\.?\s+of|total|totl|sum|summed|"
    r"average|avg|mean|median|percentage|percent|pct|share|fraction|ratio|rate|proportion|kul|is\s+there|are\s+there|"
    r"revenue|sales|turnover|spend|spent|earnings|bikri|kamai|"
    r"what(?:'s|\s+is|\s+was|s)\s+(?:the|our|my))s?\b|%",
    re.IGNORECASE,
)
# "show me customers in Delhi": a plural noun shown outright is a list, whatever follows it.
_SHOW_PLURAL = re.compile(
    r"\b(?:show|dikhao|display|give|get|find|fetch|pull)\s+(?:me\s+|us\s+)?(?:all\s+|the\s+|our\s+|my\s+)?"
    r"(?!(?:total|average|sum|count|number|share|rate|ratio|percentage|revenue|sales)\b)[a-z]+s\b"
    r"(?!\s+(?:count|total|number|share))",
    re.IGNORECASE,
)
_RATE_PER = re.compile(r"\b(?:average|avg|mean|rate|ratio)\b[^?.!]*\bper\b", re.IGNORECASE)


def _groups(text: str) -> bool:
    if _GROUPING.search(text) and not _RATE_PER.search(text):
        return True
    return any(m.group(1).lower() not in _AGENT_VERBS and not m.group(1).lower().endswith("ed")
               for m in _BY.finditer(text))  # fmt: skip


def asks_for_rows(question: str, *, names: tuple[str, ...] = ()) -> bool:
    """True unless ``question`` asks for one value and does not group it.

    ``names`` are term or metric names the question uses ("revenue per buyer"): their words are not read as
    grouping ("per buyer") or as a value cue on their own.
    """
    text = question.replace("_", " ")
    for name in names:
        if name:
            text = re.sub(re.escape(name), " metric ", text, flags=re.IGNORECASE)  # "<metric> by city" groups
    if _LIST.search(text) or _SHOW_PLURAL.search(text) or _groups(text):
        return True
    return not (names or _VALUE.search(text))
