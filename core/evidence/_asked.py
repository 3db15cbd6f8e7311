"""What a question asks, read into a small typed form: the numbers it bounds, how many rows and in which direction
it ranks, which aggregates it names, and its words.

The reading is deliberately narrow: a phrase it does not know leaves its field empty, and an empty field checks
nothing. Where the words point both ways ("the highest and the lowest") the field is empty too. English and the
Hindi-English forms analysts type ("5 se zyada", "sabse kam", "ausat").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from core.fallback import singular

__all__ = ["AGGREGATE_WORDS", "Asked", "Bound", "Span", "read_question"]

_TOKEN = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?%?(?![a-z])|\d+|[a-z]+|[<>]=?|≥|≤")
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                 "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "fifty": 50,
                 "hundred": 100}  # fmt: skip
_SCALE = {"k": 1_000, "thousand": 1_000, "lakh": 100_000, "lakhs": 100_000, "million": 1_000_000,
          "mn": 1_000_000, "crore": 10_000_000, "crores": 10_000_000, "billion": 1_000_000_000, "bn": 1_000_000_000}

# Phrases before a number, and the comparison they mean (longest first when read).
_BEFORE = {
    "gt": ("more than", "greater than", "higher than", "larger than", "bigger than", "over", "above", "exceeding",
           "exceeds", "exceed", "in excess of", ">", "se zyada", "se jyada", "se adhik"),
    "ge": ("at least", "no less than", "not less than", "no fewer than", "minimum of", "a minimum of", ">=", "≥",
           "kam se kam"),
    "lt": ("less than", "fewer than", "lower than", "smaller than", "under", "below", "<", "se kam"),
    "le": ("at most", "no more than", "not more than", "up to", "maximum of", "a maximum of", "<=", "≤",
           "zyada se zyada", "jyada se jyada"),
}
# Phrases after a number ("5 or more", "5 se zyada").
_AFTER = {
    "ge": ("or more", "or higher", "or above", "or greater", "or over", "and above", "and more", "and over",
           "ya usse zyada", "ya zyada", "ya adhik"),
    "le": ("or less", "or fewer", "or lower", "or below", "or under", "and below", "and under", "and less",
           "ya usse kam", "ya kam"),
    "gt": ("se zyada", "se jyada", "se adhik", "se upar"),
    "lt": ("se kam", "se neeche"),
}
# Superlatives whose direction does not depend on the column ("oldest" does: an age or a birth date).
_UP = {"highest", "most", "largest", "biggest", "greatest", "maximum", "max", "top", "latest", "newest", "recent",
       "priciest", "costliest", "adhiktam"}
_DOWN = {"lowest", "least", "smallest", "fewest", "minimum", "min", "bottom", "earliest", "cheapest", "nyuntam"}
# After "most"/"least", words that keep their direction ("most expensive" is the highest price); another
# adjective decides it by its meaning ("most affordable" is the lowest), so the question reads no direction.
_RISING = {"expensive", "costly", "popular", "recent", "frequent", "common", "valuable", "profitable", "active",
           "ordered", "sold", "purchased", "bought", "visited", "used", "reviewed", "rated", "played", "watched"}
_DOWN_OF_TOP = {"top", "bottom", "most", "least"}  # words that only rank; with another superlative it decides
_ADJECTIVE = re.compile(r"(?:able|ible|ive|ful|ent|ant|ous|ic|al|ed|y)$")
AGGREGATE_WORDS = {
    "avg": {"average", "averages", "avg", "mean", "ausat", "averaged"},
    "sum": {"total", "totals", "sum", "summed", "combined", "altogether", "kul", "jod", "cumulative"},
    "count": {"count", "counts", "kitne", "kitni", "kitna", "ginti"},
}
_COUNT_PHRASES = ("how many", "number of", "no of", "no. of", "kitne", "kitni")
_SPAN_UNITS = {"day": "day", "days": "day", "din": "day", "dino": "day", "week": "week", "weeks": "week",
               "hafte": "week", "hafta": "week", "month": "month", "months": "month", "mahine": "month",
               "mahina": "month", "year": "year", "years": "year", "saal": "year", "sal": "year", "hour": "hour",
               "hours": "hour", "ghante": "hour", "minute": "minute", "minutes": "minute"}
_SPAN_WORDS = ("last", "past", "previous", "recent", "pichhle", "pichle", "pichhli", "pichli", "trailing")
_YEAR = re.compile(r"(?<![\d-])(19\d\d|20\d\d)(?![\d-])")
# Words that count from now: "today", "this month", "last year", "so far", "aaj", "is mahine".
_FROM_TODAY = re.compile(
    r"\b(?:today|today's|todays|now|yesterday|tomorrow|current(?:ly)?|so far|to date|till date|ytd|mtd|aaj|abhi|"
    r"(?:this|last|previous|past|next|is|pichhle|pichle|pichhli|pichli|agle)\s+(?:day|week|month|quarter|year|"
    r"hafte|hafta|mahine|mahina|saal|sal)s?)\b")
_TIME_UNITS = {"day", "days", "week", "weeks", "month", "months", "year", "years", "hour", "hours", "minute",
               "minutes", "quarter", "quarters", "din", "mahine", "saal", "hafte"}


@dataclass(frozen=True)
class Bound:
    """``op`` (gt, ge, lt, le) ``value``, as the question words it ("more than 5" is gt 5)."""

    op: str
    value: Decimal
    words: str  # the phrase as typed, for the note
    percent: bool = False
    before: tuple[str, ...] = ()  # the two words before the phrase ("rating higher than 4": "the", "rating")


@dataclass(frozen=True)
class Span:
    """A span back from today: "the last 30 days" is 30 day."""

    count: int
    unit: str  # day, week, month, year, hour, minute
    words: str


@dataclass(frozen=True)
class Asked:
    words: frozenset[str]  # the question's words, lower case and singular
    text: str = ""  # the question, lower case, its spaces as one
    bounds: tuple[Bound, ...] = ()
    limit: int | None = None  # "top 5", "the 3 largest"
    direction: str | None = None  # "desc" (highest, most, latest) or "asc" (lowest, least, earliest); None: both/none
    aggregates: frozenset[str] = frozenset()  # avg, sum, count
    ranks: bool = False  # a superlative of either direction ("highest", "least", "sabse zyada")
    years: tuple[str, ...] = ()  # "in 2021"; not the years of full dates ("2021-03-01")
    span: Span | None = None  # "in the past 30 days"
    from_today: bool = False  # counts from now: a span, "today", "this month", "last year", "so far", "aaj"
    one: bool = False  # a superlative of one thing: "the customer who spent the most", "which author had the most"


def read_question(question: str) -> Asked:
    text = " ".join(question.lower().replace("’", "'").split())
    tokens = _TOKEN.findall(text)
    joined = " ".join(tokens)
    bounds = _bounds(tokens)
    plain = re.sub(r"\b(?:at most|at least|most of|the most part|almost|kam se kam|zyada se zyada|"
                   r"jyada se jyada|se zyada|se jyada|se kam)\b", " ", joined)
    words = plain.split()
    up, down = bool(_UP & set(words)) or "sabse zyada" in joined, bool(_DOWN & set(words)) or "sabse kam" in joined
    direction = "desc" if up and not down else "asc" if down and not up else None
    if any(w in ("most", "least") and i + 1 < len(words) and words[i + 1] not in _RISING
           and _ADJECTIVE.search(words[i + 1]) for i, w in enumerate(words)):
        direction = None  # "most affordable", "least efficient": the adjective decides, and it is not read
    others = {w for w in words if w.endswith("est") and w not in _UP | _DOWN and len(w) > 4} | (
        {"ranked", "rank", "ranking"} & set(words))
    if others and set(words) & _UP & _DOWN_OF_TOP:
        direction = None  # "top 3 fastest", "top 2 youngest": the other superlative decides
    aggregates = {kind for kind, names in AGGREGATE_WORDS.items() if names & set(tokens)}
    if any(re.search(rf"\b{re.escape(p)}\b", text) for p in _COUNT_PHRASES):
        aggregates.add("count")
    return Asked(words=frozenset(singular(t) for t in tokens if t.isalpha()), text=text, bounds=tuple(bounds),
                 limit=_limit(tokens), direction=direction, aggregates=frozenset(aggregates), ranks=up or down,
                 years=tuple(_YEAR.findall(text)), span=(span := _span(tokens)),
                 from_today=span is not None or bool(_FROM_TODAY.search(text)),
                 one=(up or down) and _limit(tokens) is None and _one_thing(text))


def _number(tokens: list[str], i: int) -> tuple[Decimal, bool, int] | None:
    """The number starting at ``tokens[i]`` (digits or a number word, with a scale word after it): its value,
    whether it is a percentage, and how many tokens it took."""
    if i >= len(tokens):
        return None
    token = tokens[i]
    percent = token.endswith("%")
    if token in _NUMBER_WORDS:
        value = Decimal(_NUMBER_WORDS[token])
    elif token.lstrip("-")[:1].isdigit():
        try:
            value = Decimal(token.rstrip("%").replace(",", ""))
        except InvalidOperation:
            return None
    else:
        return None
    used = 1
    if i + 1 < len(tokens) and tokens[i + 1] in _SCALE:
        value, used = value * _SCALE[tokens[i + 1]], 2
    if i + used < len(tokens) and tokens[i + used] in ("percent", "pct", "pc", "pratishat"):
        percent, used = True, used + 1
    return value, percent, used


def _bounds(tokens: list[str]) -> list[Bound]:
    found: list[Bound] = []
    befores = sorted(((p.split(), op) for op, ps in _BEFORE.items() for p in ps), key=lambda x: -len(x[0]))
    afters = sorted(((p.split(), op) for op, ps in _AFTER.items() for p in ps), key=lambda x: -len(x[0]))
    i = 0
    while i < len(tokens):
        if tokens[i] == "between":  # "between 10 and 20": both ends kept
            low = _number(tokens, i + 1)
            high = _number(tokens, i + 2 + low[2]) if low and tokens[i + 1 + low[2]:i + 2 + low[2]] == ["and"] else None
            if low is not None and high is not None:
                words = " ".join(tokens[i:i + 2 + low[2] + high[2]])
                before = tuple(tokens[max(0, i - 2):i])
                found += [Bound("ge", low[0], words, low[1], before), Bound("le", high[0], words, high[1], before)]
                i += 2 + low[2] + high[2]
                continue
        for phrase, op in befores:
            if tokens[i:i + len(phrase)] == phrase:
                start = i + len(phrase)
                if start < len(tokens) and tokens[start] in ("rs", "inr", "usd", "eur", "the"):
                    start += 1
                number = _number(tokens, start)
                if number is not None:
                    found.append(Bound(op, number[0], " ".join(tokens[i:start + number[2]]), number[1],
                                       tuple(tokens[max(0, i - 2):i])))
                    i = start + number[2] - 1
                    break
        else:
            number = _number(tokens, i)
            if number is not None:
                rest = i + number[2]
                skip = 1 if rest < len(tokens) and tokens[rest].isalpha() and tokens[rest] not in ("or", "and", "se",
                                                                                                   "ya") else 0
                for phrase, op in afters:
                    at = rest + skip
                    if tokens[at:at + len(phrase)] == phrase:
                        found.append(Bound(op, number[0], " ".join(tokens[i:at + len(phrase)]), number[1],
                                           tuple(tokens[max(0, i - 2):i]) + tuple(tokens[rest:rest + skip])))
                        i = at + len(phrase) - 1
                        break
        i += 1
    return found


def _span(tokens: list[str]) -> Span | None:
    """"the last 30 days", "past 3 months", "pichhle 2 saal", "the past week" (one): one such span, else None ("last
    month" alone is a calendar month, not a span, and is left)."""
    found: list[Span] = []
    for i, token in enumerate(tokens):
        if token in _SPAN_WORDS:
            number = _number(tokens, i + 1)
            if number is None and token in ("past", "trailing") and tokens[i + 1:i + 2] in (["week"], ["month"],
                                                                                            ["year"]):
                number = (Decimal(1), False, 0)  # "the past week": the 7 days back from today
            if number is not None and not number[1] and i + 1 + number[2] < len(tokens):
                unit = _SPAN_UNITS.get(tokens[i + 1 + number[2]])
                if unit is not None and _whole(number[0]):
                    found.append(Span(int(number[0]), unit, " ".join(tokens[i:i + 2 + number[2]])))
    return found[0] if len(found) == 1 else None


# "which author had", "the customer who", "the salesperson with": one thing, named in the singular, then what ranks it
_ONE_THING = re.compile(r"\b(?:which|what|the)\s+([a-z]+)\s+(?:who|that|which|with|has|had|have|is|was|made|got|"
                        r"received|sold|earned|spent|did)\b")
_NOT_A_THING = frozenset({"most", "least", "top", "same", "one", "total", "number", "average", "highest", "lowest",
                          "other", "first", "last", "best", "worst", "data", "query", "result"})


def _one_thing(text: str) -> bool:
    return any(m.group(1) not in _NOT_A_THING and (not m.group(1).endswith("s") or m.group(1).endswith(("ss", "us")))
               and not m.group(1).endswith("est") for m in _ONE_THING.finditer(text))


def _limit(tokens: list[str]) -> int | None:
    """"top 5", "first 3", "bottom 10", "the 5 most ...", "5 highest", "3 sabse ...": how many rows are asked for."""
    found: set[int] = set()
    for i, token in enumerate(tokens):
        if token in ("top", "first", "bottom") and i + 1 < len(tokens):
            number = _number(tokens, i + 1)
            if number is not None and not number[1] and _whole(number[0]) and (
                    i + 1 + number[2] >= len(tokens) or tokens[i + 1 + number[2]] not in _TIME_UNITS):
                found.add(int(number[0]))
        number = _number(tokens, i)
        if number is not None and not number[1] and _whole(number[0]) and i + number[2] < len(tokens):
            after = tokens[i + number[2]]
            if after in ("most", "least", "sabse") or (after.endswith("est") and after not in ("interest", "test",
                                                                                             "request", "forest")):
                found.add(int(number[0]))
    return found.pop() if len(found) == 1 else None


def _whole(value: Decimal) -> bool:
    return value == value.to_integral_value() and 0 < value < 10_000
