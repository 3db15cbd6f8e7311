"""Text helpers for the message classifier: normalisation, tokens and the small lexical tests the rules share.

Kept free of any model so the rule path stays fast (well under a millisecond) and fully deterministic.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from functools import cached_property

__all__ = [
    "asks_something",
    "Text",
    "anaphora_cue",
    "has_arithmetic",
    "has_condition",
    "is_interrogative",
    "is_request_start",
    "one_off_cue",
    "presentation_cue",
    "standing_cue",
    "strip_fillers",
]

logger = logging.getLogger(__name__)

_CONTRACTIONS: tuple[tuple[str, str], ...] = (
    (r"\bwon'?t\b", "will not"),
    (r"\bcan'?t\b", "can not"),
    (r"\bcannot\b", "can not"),
    (r"\b(do|does|did|is|are|was|were|should|would|could|has|have|had)n'?t\b", r"\1 not"),
    (r"\bi'?m\b", "i am"),
    (r"\bi'(ve|d|ll)\b", r"i \1"),
    (r"\blet'?s\b", "let us"),
    (r"\b(what|that|it|there|who|where|how|here)'s\b", r"\1 is"),
    (r"\b(whats|thats|wats)\b", "what is"),
    (r"\b(you|we|they)'(re|ve|ll|d)\b", r"\1 \2"),
)
_EXPAND_AFTER = {"ve": "have", "d": "would", "ll": "will", "re": "are"}

# Common typos of the words the rules key on; anything else falls back to an adjacent-swap check below.
_TYPOS = {
    "shwo": "show", "sho": "show", "hw": "how", "pls": "please", "plz": "please", "pleae": "please",
    "alwys": "always", "allways": "always", "alway": "always", "awlays": "always", "u": "you", "ur": "your",
    "thes": "these", "thos": "those", "tho": "those", "wich": "which", "whcih": "which", "teh": "the",
    "forgot": "forget", "dont": "do not", "doesnt": "does not", "didnt": "did not", "isnt": "is not",
    "im": "i am", "ive": "i have", "lets": "let us", "intrested": "interested", "intersted": "interested",
    "exlude": "exclude", "excldue": "exclude", "untill": "until", "nomore": "no more", "anymroe": "anymore",
}
_KEYWORDS = (
    "always", "exclude", "include", "interested", "forget", "preference", "filter", "default", "forward",
    "whenever", "define", "defined", "means", "divided", "those", "these", "which", "where", "stands",
    "refers", "ignore", "remove", "never", "only", "show",
)
_SWAP_INDEX: dict[tuple[int, str], str] = {(len(k), "".join(sorted(k))): k for k in _KEYWORDS}

_TOKEN_RE = re.compile(r"[a-z0-9_]+(?:\.[a-z0-9_]+)*|[=/*+?:,;%<>()-]")


def _fix_token(tok: str) -> str:
    if tok in _TYPOS:
        return _TYPOS[tok]
    if len(tok) >= 5 and tok.isalpha():
        cand = _SWAP_INDEX.get((len(tok), "".join(sorted(tok))))
        if cand and cand != tok and sum(a != b for a, b in zip(cand, tok)) == 2:
            return cand
    return tok


@dataclass(frozen=True)
class Text:
    """One message, normalised: lower case, contractions expanded, typos fixed, hyphens split."""

    raw: str

    @cached_property
    def tokens(self) -> tuple[str, ...]:
        s = self.raw.strip().lower()
        s = s.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
        for pat, rep in _CONTRACTIONS:
            s = re.sub(pat, rep, s)
        s = re.sub(r"\bi (ve|d|ll)\b", lambda m: "i " + _EXPAND_AFTER[m.group(1)], s)
        s = re.sub(r"\b(you|we|they) (re|ve|ll|d)\b", lambda m: m.group(1) + " " + _EXPAND_AFTER[m.group(2)], s)
        s = re.sub(r"(?<=[a-z])-(?=[a-z])", " ", s)  # on-time -> on time; keep "a - b" arithmetic
        out: list[str] = []
        for tok in _TOKEN_RE.findall(s):
            out.extend(_fix_token(tok).split())
        return tuple(out)

    @cached_property
    def words(self) -> tuple[str, ...]:
        """Tokens without punctuation (operators = / * + - stay: they carry meaning)."""
        return tuple(t for t in self.tokens if t not in {"?", ",", ";", "(", ")", "%"})

    @cached_property
    def s(self) -> str:
        """Space-joined words with a leading and trailing space, for phrase regexes."""
        return " " + " ".join(self.words) + " "

    @property
    def ends_with_question_mark(self) -> bool:
        return self.raw.rstrip().endswith("?")


FILLERS = frozenset(
    {"hey", "hi", "hello", "ok", "okay", "so", "please", "kindly", "also", "then", "well", "oh", "cool",
     "great", "thanks", "right", "alright", "now", "and", "but", "or", "just"}
)


def strip_fillers(words: tuple[str, ...]) -> tuple[str, ...]:
    i = 0
    while i < len(words) and words[i] in FILLERS and not (words[i] == "now" and words[i + 1 : i + 2] == ("on",)):
        i += 1
    return words[i:]


WH = frozenset({"what", "how", "which", "who", "whom", "whose", "when", "where", "why"})
AUX = frozenset(
    {"is", "are", "was", "were", "do", "does", "did", "can", "could", "would", "will", "should", "shall",
     "has", "have", "had", "may", "might", "am"}
)
REQUEST_VERBS = frozenset(
    {"show", "list", "give", "get", "find", "display", "tell", "pull", "fetch", "compare", "break", "count",
     "sum", "plot", "chart", "graph", "sort", "order", "rank", "group", "split", "drill", "add", "help",
     "calculate", "compute", "run", "return", "report", "export", "retrieve", "look", "search", "check",
     "summarize", "summarise", "bring", "pick", "select", "identify", "apply", "repeat", "redo", "break",
     "total", "average", "filter", "narrow", "limit", "restrict", "remove", "exclude", "include", "top",
     "which", "what", "how", "who", "name", "provide", "generate", "produce", "visualize", "visualise"}
)
# Verbs that, imperatively and without a one-off cue, set a standing filter rather than ask for data.
RESTRICT_VERBS = frozenset(
    {"exclude", "ignore", "omit", "hide", "skip", "drop", "remove", "filter", "restrict", "limit", "keep",
     "focus", "default", "leave", "include", "use", "round", "sort", "treat", "assume", "stick"}
)


def is_interrogative(t: Text) -> bool:
    """A question by form: '?' at the end, or a wh-word / auxiliary first (not 'do not ...')."""
    w = strip_fillers(t.words)
    if not w:
        return t.ends_with_question_mark
    if w[0] in WH:
        return True
    if w[0] in AUX and w[1:2] != ("not",):
        return True
    return t.ends_with_question_mark


# Request verbs that change what is kept or how it is shown ("add Canada to that", "drop Brazil", "sort by
# name"): they start rule changes as often as one-off requests, so they alone do not make a message a request.
_EDIT_VERBS = frozenset({"add", "remove", "exclude", "include", "filter", "narrow", "limit", "restrict", "sort",
                         "order", "rank", "group", "split", "apply", "pick", "select", "top", "name", "repeat",
                         "redo", "help"})


def asks_something(message: str) -> bool:
    """A question by form or a show/list/give-me request for data: what a statement to remember is not."""
    t = Text(message)
    w = strip_fillers(t.words)
    return is_interrogative(t) or bool(w) and w[0] in REQUEST_VERBS - _EDIT_VERBS


def is_request_start(t: Text) -> bool:
    """An imperative data request: show / list / give me ... or 'i want to know / i would like'."""
    w = strip_fillers(t.words)
    if not w:
        return False
    return w[0] in REQUEST_VERBS - {"exclude", "include", "remove", "filter", "limit", "restrict"}


# --- standing-time markers -------------------------------------------------------------------------------
_STRONG_STANDING = re.compile(
    r" ((in|for|across|on|from|to|out of) (my|our) (\w+ )?(queries|reports|answers|questions|results|analyses|"
    r"dashboards)|from now on|from here on|going forward|moving forward|henceforth|by default|as a default|"
    r"default to|"
    r"in (the )?future|every time|each time|whenever|all the time|from today on|"
    r"when(ever)? (i|we) (ask|query|look|search|talk|check|enquire|inquire)( \w+)? (about|for|at|into)|"
    r"unless i say otherwise|unless i ask otherwise|unless told otherwise|as a rule|"
    r"(in|for|across|on|from|to) (all|every|each|any) (of )?(my |our |the |future |later |)(\w+ )?"
    r"(queries|query|reports|report|answers|answer|questions|question|results|analyses|analysis|dashboards|charts|"
    r"searches)|(all|any) (of )?(my|future|later) (\w+ )?(queries|reports|answers|questions|analyses|results)|"
    r"(every|each) (future |later )?(\w+ )?(query|report|answer|question|analysis|dashboard|chart|result)|"
    r"remember (that|to)|keep in mind|make a note|note that|take note|for future reference) "
)
_DIRECTIVE_AFTER = frozenset(
    {"show", "include", "exclude", "filter", "sort", "use", "give", "display", "list", "limit", "round", "apply",
     "want", "need", "treat", "report", "return", "hide", "ignore", "leave", "keep", "put", "start", "order",
     "group", "present", "format", "express", "convert", "count", "assume", "be", "look", "care", "consider"}
)


def standing_cue(t: Text) -> str | None:
    """A marker that the statement is meant to hold for future questions, or None."""
    m = _STRONG_STANDING.search(t.s)
    if m:
        return m.group(1)
    # "From today, only delivered orders count" / "… billed to USA and Canada from now": a rule from a moment on
    # ("orders from today" at the end is a date, not a rule)
    m = re.match(r" (from (?:now|today)(?: on| onwards?)?) ", t.s) or re.search(r" (from now(?: on| onwards?)?) $", t.s)
    if m:
        return m.group(1)
    w = t.words
    for i, tok in enumerate(w):
        if tok not in {"always", "never", "anymore"}:
            continue
        if tok == "anymore":
            return "anymore"
        prev = w[i - 1] if i else ""
        nxt = w[i + 1] if i + 1 < len(w) else ""
        if prev in {"that", "who", "which", "whose", "where"}:
            continue  # relative clause: 'customers that always order on weekends'
        if i <= 1 or prev in {"please", "i", "we", "should", "to", "must", "and", ","} or nxt in _DIRECTIVE_AFTER:
            return tok
    return None


# --- one-off / anaphora -----------------------------------------------------------------------------------
_TIME_ONE_OFF = re.compile(
    r" (yesterday|today|tonight|tomorrow|right now|for now|just now|this time|"
    r"(last|this|next|previous|past) (\d+ )?(day|days|week|weeks|month|months|quarter|quarters|year|years|fy)|"
    r"(in|from|during|since|for) (january|february|march|april|may|june|july|august|september|october|november|"
    r"december|q[1-4]|\d{4})) "
)
_RESULT_NOUNS = frozenset(
    {"list", "result", "results", "table", "query", "chart", "data", "report", "breakdown", "output", "one",
     "ones", "number", "numbers", "figure", "figures", "answer", "view", "set", "graph", "again", "down",
     "by", "to", "for", "per", "into", "as", "in", "on", "with", "?", "too", "instead", "please", "more"}
)
_THAT_PREV = frozenset(
    {"is", "was", "does", "did", "of", "to", "from", "with", "for", "about", "in", "on", "at", "than", "like",
     "break", "sort", "filter", "split", "show", "export", "group", "plot", "chart", "compare", "add", "remove",
     "exclude", "drill", "limit", "rank", "repeat", "redo", "do", "make", "and", "but", "why", "into", "over"}
)
_THIS_VERBS = frozenset(
    {"compare", "compares", "look", "looks", "change", "changed", "mean", "means", "include", "includes", "is", "was",
     "broken", "split", "sorted", "grouped", "filtered", "exclude", "show", "shows", "break", "vs", "versus", "and"}
)
_PLURAL_STOP = frozenset({"is", "was", "has", "does", "this", "us", "plus", "minus", "as", "its", "his", "yes"})


def anaphora_cue(t: Text) -> str | None:
    """A word or opening that points back at the previous answer, or None."""
    w = strip_fillers(t.words)
    raw = t.words
    if not w:
        return None
    lead = raw[0] if raw else ""
    if lead in {"and", "but", "or", "also"} and len(raw) <= 10:
        return f"opens with '{lead}'"
    if w[0] in {"by", "per"} or (w[0] == "same" or w[:2] == ("the", "same")):
        return f"fragment '{w[0]}'"
    if re.search(r" (what|how) about ", t.s):
        return "what about"
    if re.search(r" (the|that|this) same ", t.s) or w[0] == "same":
        return "the same"
    for i, tok in enumerate(raw):
        prev = raw[i - 1] if i else ""
        nxt = raw[i + 1] if i + 1 < len(raw) else ""
        if tok in {"those", "these"} and nxt not in {"who", "with", "that", "which", "where", "whose", "whom"}:
            return tok
        if tok in {"them", "they", "it"} and _noun_before(raw[:i]):
            continue  # 'which customers ... and how much did they spend' refers inside the message
        if tok in {"them", "they"}:
            return tok
        if tok == "it" and prev not in {"is", "was", "keep"} and nxt not in {"possible", "true", "is"}:
            return tok
        if tok == "that" and (prev in _THAT_PREV or nxt in _RESULT_NOUNS or i == len(raw) - 1):
            return tok
        if tok == "this" and (nxt in _RESULT_NOUNS or nxt in _THIS_VERBS or i == len(raw) - 1):
            return f"this {nxt}".strip()
        if tok in {"ones", "one"} and prev not in {"no", "any", "every", "each", "with", "only"} and not _digit(prev):
            earlier = raw[:i]
            if tok == "ones" and _noun_before(earlier):
                continue
            if tok == "one" and not (prev in {"first", "second", "third", "last", "top", "other", "that",
                                               "this", "which", "same", "biggest", "largest"}):
                continue
            return tok
    return None


def _noun_before(earlier: tuple[str, ...]) -> bool:
    """Crude: a plural-looking word earlier in the message that a pronoun could point to."""
    return any(e.endswith("s") and len(e) > 3 and e not in _PLURAL_STOP for e in earlier)


def _digit(tok: str) -> bool:
    return tok.isdigit()


def one_off_cue(t: Text) -> str | None:
    """A cue that a filter is meant for this answer only: anaphora, a bounded time, 'now' (not 'from now on')."""
    a = anaphora_cue(t)
    if a:
        return a
    m = _TIME_ONE_OFF.search(t.s)
    if m:
        return m.group(1)
    if re.search(r" now ", t.s) and not re.search(r" (from now on|now on|for now on) ", t.s):
        return "now"
    return None


# --- what a definition's right-hand side looks like --------------------------------------------------------
_ARITH = re.compile(
    r" (divided by|/|\*|times|multiplied by|minus|plus|\+|-|over (the|total|all|a|an|number|count|sum|average)|"
    r"sum of|total of|average of|the average|an average|avg of|mean of|median of|ratio|percentage|percent|share of|"
    r"proportion|fraction|number of|count of|count distinct|sum|avg|rate of|per cent|% of|as a percentage) "
)
_COND = re.compile(
    r" (anyone|anybody|someone|somebody|any|those|one|ones|with|without|who|whose|that|which|where|when|if|"
    r"more than|less than|fewer than|greater than|at least|at most|over \d|above|below|under|exceed|exceeds|"
    r"exceeding|older|newer|before|after|between|within|no|not|from|in the last|since|>|<|>=|<=|to) "
)


def has_arithmetic(s: str) -> bool:
    return _ARITH.search(s) is not None


def has_condition(s: str) -> bool:
    return _COND.search(s) is not None


# --- presentation settings (unit / format / ordering) ------------------------------------------------------
_UNITS = (
    r"(inr|usd|eur|gbp|jpy|cny|aud|cad|chf|sgd|aed|zar|brl|mxn|euro|euros|dollar|dollars|rupee|rupees|pound|pounds|"
    r"sterling|yen|yuan|thousand|thousands|million|millions|billion|billions|lakh|lakhs|crore|crores|k|percent|"
    r"percentages|kilograms|kilogram|kg|kgs|grams|lbs|km|kilometers|kilometres|miles|hours|minutes|seconds|utc|"
    r"gmt|ist|est|pst|cet|local time)"
)
_FORMAT = re.compile(
    r" ((in|to|into) (\w+ ){0,2}" + _UNITS + r"|" + _UNITS + r" (as|for) (the |a )?(currency|unit|units|default)|"
    r"use " + _UNITS + r"|(as|in) (\w+ ){0,2}(format|formats|notation)|(dd|mm|yyyy|yy) ([/-] )?(dd|mm|yyyy|yy)|"
    r"(\d+|one|two|three|four|zero|no) (decimal|decimals|dp|significant)|(nearest|whole) (number|numbers|integer|"
    r"dollar|thousand)|thousands? separators?|(24|12) (- )?hour|(newest|latest|oldest|earliest|most recent) first|"
    r"as (whole numbers|percentages|percents|integers|fractions|decimals)) "
)
# Words that may accompany a presentation setting without naming anything to fetch.
_PRESENTATION_WORDS = frozenset(
    {"use", "show", "display", "give", "me", "us", "round", "rounded", "format", "formatted", "express",
     "expressed", "convert", "converted", "present", "presented", "put", "write", "print", "keep", "sort",
     "sorted", "order", "ordered", "always", "by", "default", "please", "all", "every", "the", "a", "an", "my",
     "our", "with", "and", "in", "to", "into", "as", "for", "of", "on", "at", "first", "everything", "amounts",
     "amount", "numbers", "number", "figures", "figure", "values", "value", "prices", "price", "money",
     "monetary", "currency", "currencies", "dates", "date", "times", "time", "timestamps", "timestamp",
     "datetimes", "percentages", "percentage", "percents", "decimals", "decimal", "places", "place", "results",
     "weights", "weight", "distances", "distance", "durations", "duration", "separators", "separator", "format",
     "formats", "notation", "dd", "mm", "yyyy", "yy", "/", "-", "european", "us", "american", "british", "iso",
     "indian", "hour", "local", "utc", "nearest", "whole", "integer", "integers", "one", "two", "three", "four",
     "zero", "no", "digits", "significant", "dp", "newest", "latest", "oldest", "earliest", "most", "recent",
     "ascending", "descending", "fractions", "unit", "units", "should", "be", "are", "is", "want", "i", "like",
     "would", "prefer", "thousand", "thousands"}
)
_UNIT_WORDS = frozenset(_UNITS.strip("()").split("|")) - {"local time"} | {"local"}


def presentation_cue(t: Text) -> str | None:
    """A unit / format / ordering setting with nothing else to fetch ('Show amounts in INR'), or None.

    The test is the object, not the verb: once the format phrase and generic value words (amounts, dates,
    numbers ...) are taken away, nothing may be left; 'Show revenue in INR for last month' keeps 'revenue' and
    a time, so it is a data request.
    """
    w = strip_fillers(t.words)
    m = _FORMAT.search(" " + " ".join(w) + " ")
    if not m:
        return None
    left = [x for x in w if x not in _PRESENTATION_WORDS and x not in _UNIT_WORDS and not x.isdigit()]
    return None if left else m.group(1).strip()
