"""Default deny: the words a shared summary or follow-up may hold, and the ones it may not.

A value can be spelled in more ways than any list of values can catch (base64, a name in another script, an
amount in words, a date as a holiday, a city with one letter changed). So the text itself is checked against what
it may contain, and anything else is refused:

- common English words: those SCOWL's spell-checker lists write in lower case (proper nouns are capitalised
  there, so "india", "patrick" and "christmas" are not in it), with their usual endings and prefixes;
- analytics words, units and Hindi-English words kept by hand (``data/analytics_words.txt``);
- the schema's own names (tables and columns, whole or by their parts);
- small whole numbers (at most twelve: "top 5") and ordinals up to "12th", and a window of time ("30 days",
  "90-day", "24 hours": a whole number up to 365 before a unit of time); no other number, in digits or in words
  ("forty-eight thousand", "1.2 lakh");
- two common words written together in lower case ("endpoints"); a proper noun made of two ("Newcastle") is
  capitalised and stays unknown.

Everything else — a name, a code, a larger number, a word in another script, a single spelled-out letter — is
an unknown word. The literal matching in ``_redact`` stays as the second line: a common word that is also a value
of the rows (a status) passes here as a word and is still refused there when it carries a value.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from importlib.resources import files

__all__ = ["SMALL_NUMBER_MAX", "allowed_words", "is_number_word", "unknown_words"]

SMALL_NUMBER_MAX = 12
_TOKEN = re.compile(r"[^\W_]+(?:_[^\W_]+)*", re.UNICODE)  # words, numbers, snake_case names; not punctuation
_POSSESSIVE = re.compile(r"(?<=\w)['’]s\b")
_DOTTED = re.compile(r"\b[^\W_]+(?:\.[^\W_]+)+\b")  # a domain, a handle or a table.column: no space after the dot
_DIGIT_WORDS = ("zero", "oh", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_SPELLED_DIGITS = re.compile(r"\b(?:" + "|".join(_DIGIT_WORDS) + r")(?:[\s,-]+(?:" + "|".join(_DIGIT_WORDS)
                             + r")){2,}\b", re.IGNORECASE)
_HYPHENATED = re.compile(r"\b[^\W_]+(?:-[^\W_]+)+\b")
_TENS = {"thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
         "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}
_UNITS = r"hours?|hrs?|days?|weeks?|months?|quarters?|years?|minutes?|mins?|"
_WINDOW = re.compile(r"\b(\d{1,3}|" + "|".join(_TENS) + r")(?:\s+|-)(?:" + _UNITS +
                     r"din|mahine|saal)\b", re.IGNORECASE)
WINDOW_MAX = 365
_SPLIT = re.compile(r"[_]|(?<=[a-z])(?=\d)|(?<=\d)(?=[a-z])")
_ORDINAL = re.compile(r"^(\d+)(st|nd|rd|th)$")
_SUFFIXES = ("ies", "es", "s", "ed", "d", "ing", "ly", "er", "ers", "est", "ness", "ment", "ments", "al", "wise",
             "ity", "ation", "ations")
_PREFIXES = ("re", "un", "non", "pre", "sub", "over", "under", "multi", "inter", "cross", "co", "mid", "self",
             "out", "in", "de", "dis", "mis", "post", "semi")
_SMALL_NUMBER_WORDS = frozenset({"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                                 "ten", "eleven", "twelve", "first", "second", "third", "fourth", "fifth", "sixth",
                                 "seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth", "half", "quarter",
                                 "twice", "once", "double", "single", "dozen"})
_NUMBER_WORDS = frozenset({"thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
                           "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
                           "hundred", "hundreds", "thousand", "thousands", "million", "millions", "billion",
                           "billions", "trillion", "lakh", "lakhs", "crore", "crores", "grand", "dozens",
                           "thirteenth", "fifteenth", "twentieth", "thirtieth", "hundredth", "thousandth"})


@lru_cache(maxsize=1)
def allowed_words() -> frozenset[str]:
    """The shipped vocabulary: common English and the hand-kept analytics and Hindi-English words."""
    data = files("core.insights").joinpath("data")
    words: set[str] = set()
    for name in ("english_words.txt", "analytics_words.txt"):
        for line in data.joinpath(name).read_text(encoding="utf-8").splitlines():
            if not line.startswith("#"):
                words.update(w for w in line.split() if "-" not in w)
    return frozenset(words - _NUMBER_WORDS)


def unknown_words(text: str, schema_words: Iterable[str] = ()) -> list[str]:
    """The words of ``text`` that Cairn cannot vouch for (empty: the text may be shared). ``schema_words``: table
    and column names (any case). The caller reports them by count or kind, never by value."""
    vocabulary = allowed_words()
    schema = {w.casefold() for w in schema_words if w}
    schema |= {part for name in schema for part in _SPLIT.split(name) if part}
    text = _POSSESSIVE.sub("", text)  # "last week's" is "last week"
    text = _WINDOW.sub(lambda m: m.group(0) if _window_number(m.group(1)) > WINDOW_MAX else "window", text)
    text = _HYPHENATED.sub(lambda m: _joined(m.group(0), vocabulary, schema), text)
    unknown: list[str] = []
    for dotted in _DOTTED.findall(text):  # schema names ("orders.status") or abbreviations ("e.g") only
        parts = dotted.casefold().split(".")
        abbreviation = len(parts) <= 3 and all(len(p) == 1 and p.isalpha() for p in parts)  # "e.g", not "V.I.N.O.D"
        if not (all(p in schema for p in parts) or abbreviation):
            unknown.append(dotted)
    text = _DOTTED.sub(" ", text)
    unknown.extend(m.group(0) for m in _SPELLED_DIGITS.finditer(text))  # "four one seven": a number, digit by digit
    text = _SPELLED_DIGITS.sub(" ", text)
    for token in _TOKEN.findall(text):
        folded = _latin(token).casefold()
        if folded in schema or _is_allowed(folded, vocabulary, schema):
            continue
        if token.islower() and token.isascii() and token.isalpha() and folded not in _NUMBER_WORDS \
                and _compound(token, vocabulary):
            continue
        unknown.append(token)
    return unknown


def is_number_word(word: str) -> bool:
    """A number written as a word, small or large ("three", "forty", "lakh")."""
    folded = word.casefold()
    return folded in _NUMBER_WORDS or (folded in _SMALL_NUMBER_WORDS and folded not in ("single", "double", "half",
                                                                                     "quarter", "second"))


def _window_number(text: str) -> int:
    return int(text) if text.isdigit() else _TENS.get(text.casefold(), WINDOW_MAX + 1)


# Hindi verbs as analysts write them in Latin letters: a stem and one of its usual endings ("badh", "badhta",
# "badhne", "dekho", "lagane", "rehti"). The stems are generic actions; a name never has this shape by chance
# often enough to matter, and the literal matching still looks at every word.
_HINDI_STEMS = ("badh", "ghat", "dekh", "kar", "ho", "reh", "rah", "le", "de", "lag", "bech", "khareed", "kharid",
                "chal", "ruk", "aa", "ja", "mil", "bata", "dikha", "samajh", "soch", "gin", "jod", "bik", "bana",
                "nikal", "bhej", "aay", "gir", "uth", "ban", "pad", "padh", "sikh", "kama", "kho", "bach", "bhar",
                "ghum", "pahunch", "lauta", "laut", "chuk", "sak", "paa", "pa", "baith", "khul", "band", "tut")
_HINDI_ENDINGS = ("", "a", "e", "i", "o", "na", "ne", "ni", "ta", "te", "ti", "kar", "ke", "ega", "egi", "enge",
                  "iye", "ao", "aa", "ya", "yi", "ye", "ata", "ate", "ati", "ana", "ane", "ani", "aya", "aye", "ayi",
                  "oge", "unga", "engi")
_HINDI_VERB = re.compile(r"^(?:" + "|".join(sorted(_HINDI_STEMS, key=len, reverse=True)) + r")(?:"
                         + "|".join(sorted(_HINDI_ENDINGS, key=len, reverse=True)) + r")$")


def _joined(compound: str, vocabulary: frozenset[str], schema: set[str]) -> str:
    """A hyphenated word as one when that is a word ("e-mail"), else its parts ("month-on-month")."""
    whole = compound.replace("-", "")
    return whole if _is_allowed(whole.casefold(), vocabulary, schema) else compound.replace("-", " ")


def _is_allowed(token: str, vocabulary: frozenset[str], schema: set[str]) -> bool:
    if token.isdigit():
        return int(token) <= SMALL_NUMBER_MAX and not (len(token) > 1 and token.startswith("0"))
    ordinal = _ORDINAL.match(token)
    if ordinal:
        return int(ordinal.group(1)) <= SMALL_NUMBER_MAX
    if token in _NUMBER_WORDS:
        return False
    if token in vocabulary or token in _SMALL_NUMBER_WORDS:
        return len(token) > 1 or token in ("a", "i")
    if len(token) >= 3 and _HINDI_VERB.match(token):
        return True
    if "_" in token:  # a snake_case name: each part a schema or common word
        return all(p in schema or _is_allowed(p, vocabulary, schema) for p in token.split("_") if p)
    if not token.isascii() or not token.isalpha() or len(token) < 3:
        return False
    return _known_stem(token, vocabulary)


def _compound(token: str, vocabulary: frozenset[str]) -> bool:
    """Two common words of three letters or more run together ("endpoints", "datapoint")."""
    return any(_known_stem(token[:i], vocabulary) and _known_stem(token[i:], vocabulary)
               for i in range(3, len(token) - 2))


def _known_stem(token: str, vocabulary: frozenset[str]) -> bool:
    """A common word with an ending or a prefix the lists leave out ("readmissions", "cohorting", "rebooked")."""
    stems = {token}
    for prefix in _PREFIXES:
        if token.startswith(prefix) and len(token) - len(prefix) >= 4:
            stems.add(token[len(prefix):])
    for stem in list(stems):
        for suffix in _SUFFIXES:
            if stem.endswith(suffix) and len(stem) - len(suffix) >= 3:
                base = stem[: -len(suffix)]
                stems.update({base, base + "e", base + "y", base + "ing"}
                             if suffix in ("ies", "ed", "d", "ing", "er", "ers", "est") else {base})
    return any(s in vocabulary and s not in _NUMBER_WORDS for s in stems - {token}) or token in vocabulary


def _latin(token: str) -> str:
    """Accents off Latin letters ("café" → "cafe"); other scripts stay as they are (and are unknown words)."""
    decomposed = unicodedata.normalize("NFKD", token)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return stripped if stripped.isascii() else token
