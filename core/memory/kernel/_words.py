"""The words of a remembered fact: singular forms, name keys, currencies, and the demonyms that name a value.

Shared by the structured forms, recall and forget; plain text in, plain text out.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = [
    "GENERIC_COL_WORDS",
    "INCLUDE_CUES",
    "NEGATION",
    "NUMBER_WORDS",
    "POSITIVE_CUES",
    "RESTRICTIVE",
    "STOP",
    "currency_code",
    "currency_spans",
    "demonym_of",
    "find_seq",
    "is_additive",
    "mentions_value",
    "name_key",
    "normalize",
    "place_candidates",
    "singular",
    "words",
]

_WORD = re.compile(r"[a-z0-9]+")
# numbers written as words ("the last three months", "ten rows", "give me thirty"); "a"/"an" are one
NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                "nine": 9, "ten": 10, "twelve": 12, "fifteen": 15, "twenty": 20, "twenty-five": 25, "thirty": 30,
                "forty": 40, "fifty": 50, "hundred": 100, "a": 1, "an": 1}  # fmt: skip
STOP = {
    "a", "an", "the", "of", "to", "in", "on", "for", "and", "or", "is", "are", "be", "me", "my", "i", "we",
    "show", "only", "all", "with", "from", "by", "that", "this", "it", "as", "at", "any", "yes", "no", "none",
    "other", "new", "true", "false", "null", "unknown", "na", "n", "y",
}  # fmt: skip
GENERIC_COL_WORDS = {"id", "key", "no", "num", "nr", "code", "pk", "fk", "uuid"}
NEGATION = {
    "exclude", "excluding", "excludes", "except", "without", "never", "hide", "hiding", "omit", "omitting",
    "ignore", "ignoring", "skip", "skipping", "not", "no", "stop", "remove", "drop", "non",
}  # fmt: skip
NEGATION |= {"mat", "nahi", "nahin", "hata", "hatao", "chhod", "chhodo", "bina", "leave"}
NEGATION |= {"dont", "doesnt", "didnt", "shouldnt", "wont", "cant", "mustnt", "neednt"}  # typed without apostrophes
NEGATION |= {"strip", "purge", "eliminate"}  # "strip status = returned out of everything"
POSITIVE_CUES = {"only", "show", "include", "just", "keep", "want", "prefer", "focus", "exclusively", "restrict",
                 "limit", "sirf", "keval", "bas", "care"}  # fmt: skip
RESTRICTIVE = re.compile(
    r"\b(?:only|just|exclusively|restrict(?:ed)?\s+to|focus(?:ed|ing)?\s+on|limit(?:ed)?\s+to|care\s+about|"
    r"sirf|keval|bas)\b", re.IGNORECASE)
INCLUDE_CUES = re.compile(
    r"\b(?:include|including|includes|count|keep|add)\b|\b(?:do\s+not|never|stop)\s+(?:exclud|hid|filter|"
    r"drop|remov|ignor|skip)\w*", re.IGNORECASE)
# Hindi-English words mapped onto the English the parsers read; SOV order ("10 se zyada") turned around.
_HINGLISH: tuple[tuple[str, str], ...] = (
    # "UPI ke alawa kuch mat dikhao" (nothing other than UPI): only UPI
    (r"^(.+?)\s+ke\s+(?:alawa|alava|allawa|siva|siwa|sivay|sivaay|sivaa)\s+(?:kuch|kuchh|koi|kisi)(?:\s+\w+){0,2}?\s+"
     r"(?:mat|nahi|nahin|na)\b.*$", r"only \1"),
    (r"(\d[\d,.]*\s*(?:k|lakhs?|crores?)?)\s+se\s+(?:zyada|jyada|zayada|adhik|upar|jada)", r"more than \1"),
    (r"(\d[\d,.]*\s*(?:k|lakhs?|crores?)?)\s+se\s+(?:kam|neeche|niche)", r"less than \1"),
    (r"(\d[\d,.]*\s*(?:k|lakhs?|crores?)?)\s+(?:ya|or)\s+(?:usse\s+)?(?:zyada|jyada)", r"\1 or more"),
    (r"\b(?:matlab|yaani|yani|ka\s+matlab\s+hai|ka\s+matlab)\b", "means"),
    (r"\b(?:jiske|jinke|jiska|jinka|jisme|jinme|jo|jiski|jinki)\b", "with"),
    (r"\b(?:pichle|pichhle|last\s+ke)\b", "last"), (r"\bdin\b", "days"), (r"\b(?:mahine|mahina)\b", "months"),
    (r"\b(?:hafte|hafta)\b", "weeks"), (r"\bsaal\b", "years"), (r"\b(?:aur|evam)\b", "and"),
    (r"\b(?:sirf|keval)\b", "only"), (r"\bya\b", "or"), (r"\bhamesha\b", "always"), (r"\bpehle\b", "first"),
    (r"\b(?:dikhana|dikhao|dekho)\b", "show"), (r"\bwale\b|\bwaale\b|\bwali\b|\bwaali\b", " "),
    (r"\bse\s+bhag\b|\bbhag\b", "divided by"), (r"\bka\s+ratio\b", "ratio"),
    (r"\b(?:dikhao|dikhana|dikhaye)\b", "show"),
)


def normalize(text: str) -> str:
    """Hindi-English and typographic variants put into the English the parsers read ("10 se zyada" -> "more
    than 10", "matlab" -> "means"); other text unchanged."""
    out = " ".join(text.replace("’", "'").replace("“", '"').replace("”", '"').split())
    for pattern, repl in _HINGLISH:
        out = re.sub(pattern, repl, out, flags=re.IGNORECASE)
    return " ".join(out.split())
_ADDITIVE = re.compile(r"\b(also|too|as well|additionally|in addition|plus|along with|add)\b", re.IGNORECASE)
_DEMONYM_SUFFIXES = ("n", "an", "ian", "ese", "ish", "i")
_DEMONYMS = {
    "french": "france", "spanish": "spain", "dutch": "netherlands", "british": "united kingdom",
    "english": "england", "swiss": "switzerland", "swedish": "sweden", "danish": "denmark", "irish": "ireland",
    "norwegian": "norway", "polish": "poland", "finnish": "finland", "turkish": "turkey", "greek": "greece",
    "thai": "thailand", "filipino": "philippines", "american": "united states", "emirati": "united arab emirates",
    "saudi": "saudi arabia", "kiwi": "new zealand", "portuguese": "portugal", "welsh": "wales",
    "scottish": "scotland", "belgian": "belgium", "peruvian": "peru", "chilean": "chile",
}  # fmt: skip
_CURRENCIES: dict[str, tuple[str, ...]] = {
    "INR": ("inr", "rupee", "indian rupee", "₹"),
    "USD": ("usd", "dollar", "us dollar", "american dollar", "$"),
    "EUR": ("eur", "euro", "€"),
    "GBP": ("gbp", "pound", "pound sterling", "sterling", "british pound", "£"),
    "JPY": ("jpy", "yen", "japanese yen", "¥"),
    "CNY": ("cny", "rmb", "yuan", "renminbi", "chinese yuan"),
    "AUD": ("aud", "australian dollar"),
    "CAD": ("cad", "canadian dollar"),
    "CHF": ("chf", "swiss franc", "franc"),
    "SGD": ("sgd", "singapore dollar"),
    "AED": ("aed", "dirham", "uae dirham"),
    "BRL": ("brl", "brazilian real"),
    "NPR": ("npr", "nepalese rupee", "nepali rupee"),
}


# --- words ---------------------------------------------------------------------------------------------------


def singular(word: str) -> str:
    w = word.lower()
    if len(w) <= 3 or not w.endswith("s") or w.endswith(("ss", "us", "is")):
        return w
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith(("sses", "shes", "ches", "xes")):
        return w[:-2]
    return w[:-1]


def words(text: str) -> list[str]:
    """Lower-case singular words; ``total_amount`` and ``totalAmount`` split like "total amount"."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text).replace("_", " ").lower().replace("n't", " not")
    return [singular(w) for w in _WORD.findall(spaced)]


def name_key(name: str) -> str:
    """The comparison key of a term name: "High-value orders" and "high value order" meet."""
    return " ".join(w for w in words(name) if w not in ("a", "an", "the"))


def is_additive(text: str) -> bool:
    """The fact adds to what is there ("also include Nepal") rather than replacing it."""
    return bool(_ADDITIVE.search(text))


_SWAP = re.compile(r"\b(?:swap\w*|switch\w*|instead|replac\w*|chang\w*|chnage\w*|mov(?:e|es|ed|ing)|"
                   r"ki\s+jagah|ke\s+badle|badal\w*|badlo)\b", re.IGNORECASE)


def says_change(text: str) -> bool:
    """The words say a change of something ("swap Germany for Japan", "move it from Canada to Brazil", "Paris ki
    jagah Lyon"): a statement of what replaces what, not a list of what to keep."""
    return bool(_SWAP.search(text))


def currency_code(text: str) -> str | None:
    """The one currency a text talks about ("Indian rupees" -> INR), else None."""
    found = {code for code, _span in currency_spans(text)}
    return found.pop() if len(found) == 1 else None


def currency_spans(text: str) -> list[tuple[str, tuple[int, int]]]:
    toks = words(text)
    out: list[tuple[str, tuple[int, int]]] = []
    for code, aliases in _CURRENCIES.items():
        for alias in aliases:
            if not alias[0].isalnum():
                if alias in text:
                    out.append((code, (-1, -1)))
                continue
            if alias == code.lower() and not re.search(rf"\b{code}\b", text):
                continue  # a code counts only written in capitals: "real" and "rs" are words too
            span = find_seq(toks, words(alias))
            if span is not None:
                out.append((code, span))
    # "Indian rupees" is INR, not "rupee" (also INR) plus a country: keep the longest span per start.
    return out


def find_seq(toks: list[str], seq: list[str]) -> tuple[int, int] | None:
    n = len(seq)
    if not n:
        return None
    for i in range(len(toks) - n + 1):
        if toks[i : i + n] == seq:
            return (i, i + n)
    return None


def mentions_value(text: str, value: Any) -> bool:
    """``text`` names ``value`` as words ("Indian customers" names "India", "credit cards" "credit_card")."""
    toks, vw = words(text), words(str(value))
    if find_seq(toks, vw) is not None:
        return True
    return len(vw) == 1 and any(demonym_of(w, vw[0]) for w in toks)


def place_candidates(word: str) -> list[str]:
    """The places a demonym may name, to look up in the data: "Indian" -> India, "Singaporean" -> Singapore,
    "Brazilian" -> Brazil, "Japanese" -> Japan, "Canadian" -> Canada, "German" -> Germany."""
    w = word.strip().lower()
    if " " in w or len(w) < 4:
        return []
    out = [_DEMONYMS[w]] if w in _DEMONYMS else []
    for suffix in ("ean", "ian", "ese", "ish", "an", "n", "i"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            stem = w[: -len(suffix)]
            out += [stem, stem + "a", stem + "y", stem + "e"]
    return [c.title() for c in dict.fromkeys(out) if c != w]


def demonym_of(word: str, hint: str) -> bool:
    """"indian" names "india", "german" names "germany", "chinese" names "china"."""
    if len(word) < 4 or len(hint) < 4 or " " in hint:
        return False
    if _DEMONYMS.get(word) == hint:
        return True
    stems = {hint}
    if hint[-1] in "aeiouy":
        stems.add(hint[:-1])
    return any(word == s + suffix for s in stems for suffix in _DEMONYM_SUFFIXES) or word == hint[:-1]


