"""When two words are the same word for recall: one spelling for the words analysts use interchangeably.

A saved term or metric applies when the question *names* it (see ``_recall.names_term``). People name things
in many spellings: "avg" and "average", "%" and "rate", "songs" and "tracks", "lambe" (Hindi) and "long", a
typo ("revnue"), an acronym ("aov" for "average order value"). This module folds those onto one canonical
word, so naming is decided by meaning classes written once, not by similarity scores (MiniLM rates "total
revenue" as close to "revenue per customer" as to "net revenue": similarity picks were wrong five times in
six on the development sets).

Only closed, general classes live here: quantity words (ratio, average, total, count), common business
abbreviations, Hindi-English words for sizes, money and time, and a few everyday synonyms of table nouns.
Nothing here names a value of anyone's data.
"""

from __future__ import annotations

import re

__all__ = ["acronyms", "canonical", "one_edit", "same_word"]

# canonical word: the spellings that mean it (each already singular: recall's words are stemmed first)
_CLASSES: dict[str, str] = {
    # quantity words: what a metric computes
    "rate": "rate share ratio percentage percent pct fraction proportion hissa pratishat",
    "average": "average avg mean typical ausat aust",
    "total": "total sum kul",
    "count": "count number ginti",
    # money
    "revenue": "revenue rev sale turnover bikri kamai earning income",
    "amount": "amount amt",
    "price": "price keemat kimat daam dam",
    # people and things analysts name loosely
    "customer": "customer cust buyer client shopper spender purchaser grahak",
    "track": "track song gana gaana",
    "employee": "employee emp staff",
    "representative": "representative rep",
    "invoice": "invoice inv",
    "quantity": "quantity qty",
    "department": "department dept",
    "manager": "manager mgr",
    "transaction": "transaction txn",
    "account": "account acct",
    # sizes, ages, places, times (Hindi-English)
    "long": "long lamba lambe lambi lengthy",
    "duration": "duration length runtime playtime millisecond",
    "short": "short chhota chhote chhoti",
    "big": "big large bada bade badi bara bare bari huge",
    "small": "small tiny little",
    "new": "new naya naye nayi",
    "old": "old purana purane purani",
    "expensive": "expensive costly mehenga mehnga mehenge mehnge mehngi",
    "cheap": "cheap sasta saste sasti",
    "return": "return returned wapas wapsi",
    "city": "city shehar sheher shahar shehron shaharon",
    "country": "country desh",
    "month": "month mahina mahine mth",
    "year": "year saal yr",
    "week": "week hafta hafte wk",
}
_CANON = {spelling: canon for canon, spellings in _CLASSES.items() for spelling in spellings.split()}
_PREFIX = 5  # "churn"/"churned", "cancel"/"cancellation" share their first five letters
_TYPO_MIN = 6  # one slip of the keyboard is read as the word only in words this long ("revnue", "custmers")


def canonical(word: str) -> str:
    """The one spelling recall compares: ``canonical("avg") == "average"``, ``canonical("lambe") == "long"``."""
    return _CANON.get(word, word)


def one_edit(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` differ by one insertion, deletion, substitution or swap of neighbours."""
    if a == b:
        return True
    la, lb = len(a), len(b)
    if abs(la - lb) > 1:
        return False
    if la == lb:
        diff = [i for i in range(la) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])  # fmt: skip
    short, long_ = (a, b) if la < lb else (b, a)
    i = 0
    while i < len(short) and short[i] == long_[i]:
        i += 1
    return short[i:] == long_[i + 1:]


_SUFFIXES = ("s", "es", "d", "ed", "ing", "er", "ers", "ion", "ions", "ation", "ations", "lation", "led", "ling",
             "ly", "al", "ally", "ment", "ments", "ity", "y", "ies", "ied", "ness", "ive")  # fmt: skip


def same_word(a: str, b: str) -> bool:
    """Equal after folding spellings; one the other plus an ending ("churn"/"churned", "digital"/"digitally",
    not "count"/"country"); sharing a long start ("cancelled"/"cancellation"); or one slip apart: a letter
    missing or extra in words of six letters or more ("revnue"), a letter changed or two swapped only in words
    of eight or more ("detail" is not "retail")."""
    a, b = canonical(a), canonical(b)
    if a == b:
        return True
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    if len(short) >= _PREFIX and long_.startswith(short):
        return long_[len(short):] in _SUFFIXES
    common = len(_common_prefix(a, b))
    if common >= _PREFIX + 1 and min(len(a), len(b)) >= _PREFIX + 1:
        return True
    if len(a) != len(b):
        return len(short) >= _TYPO_MIN and one_edit(a, b)
    return len(short) >= _SWAP_MIN and one_edit(a, b)


_SWAP_MIN = 8


def _common_prefix(a: str, b: str) -> str:
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    return a[:i]


_TOKEN = re.compile(r"[a-z0-9]+")
_SKIP = {"a", "an", "the", "of", "per", "and", "to", "in", "on", "for", "by"}


def acronyms(text: str, *, longest: int = 4) -> set[str]:
    """The initials of every run of three to ``longest`` consecutive words (small words skipped):
    "average order value this month" gives "aov", "ovt", "aovt", ... A name like "AOV" is named by them.
    Two-letter initials are left out: "upi sales" is not "US"."""
    tokens = [t for t in _TOKEN.findall(text.lower().replace("_", " ")) if t not in _SKIP and not t.isdigit()]
    out: set[str] = set()
    for i in range(len(tokens)):
        for n in range(3, longest + 1):
            if i + n <= len(tokens):
                out.add("".join(t[0] for t in tokens[i:i + n]))
    return out
