"""When two memory forms are about the same thing (their *slot*) and when they say the same thing.

A slot is what a form is about: a filter's table and column, a term's or metric's name, a display setting, a
window's table, the one default sort or limit. Two forms in one slot cannot both stand unless they agree; the
update cycle (``_update``) decides which wins. "Say the same thing" folds spellings: "= India" and
"IN ('india')", a list in another order, "the last 90 days" and "the past 3 months".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from core.memory.cycle._filter_merge import NEGATIVE as _NEGATIVE
from core.memory.cycle._filter_merge import POSITIVE as _POSITIVE
from core.memory.cycle._in_context import listed_values
from core.memory.forms import numbers_in, slot_key, slots_clash
from core.memory.recall import words as _recall_words
from core.memory.kernel import NUMBER_WORDS, name_key, same_word

__all__ = ["norm", "numbers_agree", "restates", "same_definition", "same_structure", "slot_key", "slots_clash"]

_CONDITION_WORDS = re.compile(r"\b(?:not|no|never|except|excluding|without|only|minus|plus|divided|per|times)\b")


def _values(st: Mapping[str, Any]) -> frozenset[Any]:
    raw = st.get("value")
    items = raw if isinstance(raw, (list, tuple)) else [raw]
    return frozenset(v.lower() if isinstance(v, str) else v for v in items)


def numbers_agree(old: str, new: str) -> bool:
    """Whether two statements name the same numbers ("20k" is 20000, "five" is 5): two that differ only in a number
    ("orders over 100" and "over 500", "region 7" and "region 8", "the top five" and "the top ten") never say the
    same, however close their vectors."""
    return _numbers(old) == _numbers(new)


def _numbers(text: str) -> list[float]:
    spelled = [float(NUMBER_WORDS[w]) for w in re.findall(r"[a-z]+(?:-[a-z]+)?", text.lower())
               if w in NUMBER_WORDS and w not in ("a", "an")]  # "a customer" names no number
    return sorted([*numbers_in(text), *spelled])


def norm(text: Any) -> str:
    return " ".join(str(text or "").lower().split())


def same_structure(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> bool:
    """Equal meaning: "= India" and "IN ('india')" agree; a term with the same SQL (or wording) agrees."""
    if not a or not b or a.get("kind") != b.get("kind") and {a.get("kind"), b.get("kind")} != {"term", "metric"}:
        return False
    kind = a.get("kind")
    if kind == "filter":
        if slot_key(a) != slot_key(b):
            return False
        oa, ob = str(a.get("op")), str(b.get("op"))
        for group in (_POSITIVE, _NEGATIVE):
            if oa in group and ob in group:
                return _values(a) == _values(b)
        return oa == ob and _values(a) == _values(b)
    if kind in ("term", "metric"):
        if a.get("sql") and b.get("sql"):
            return norm(a["sql"]) == norm(b["sql"])
        da, db = str(a.get("definition", "")), str(b.get("definition", ""))
        if name_key(da) == name_key(db):
            return True
        # Kept as words: "a customer who spent over 20000" and "customers with total spend above 20k" state the
        # same numbers and no other condition word; a redefinition changes a number or adds a condition.
        na, nb = sorted(numbers_in(da)), sorted(numbers_in(db))
        return bool(na) and na == nb and not (_CONDITION_WORDS.findall(da.lower()) != _CONDITION_WORDS.findall(
            db.lower()))  # fmt: skip
    if kind == "display":
        return a.get("setting") == b.get("setting") and a.get("value") == b.get("value") and \
            a.get("decimals") == b.get("decimals")
    if kind == "window" and norm(a.get("table")) == norm(b.get("table")) and norm(a.get("column")) == norm(
            b.get("column")):  # fmt: skip
        if any(f.get(k) for f in (a, b) for k in ("start", "end", "current")):  # fixed or calendar bounds
            return all(norm(a.get(k)) == norm(b.get(k)) for k in ("start", "end", "current", "first_month"))
        da, db = _window_days(a), _window_days(b)  # "the last 90 days" and "the past 3 months": the same window
        return da is not None and db is not None and abs(da - db) <= 0.05 * max(da, db)
    if kind in ("sort", "limit", "window", "columns", "include"):
        keys = {"sort": ("table", "column", "by", "direction"), "limit": ("value",),
                "window": ("table", "column", "amount", "unit"), "columns": ("table", "when", "add"),
                "include": ("table", "column", "value")}[str(kind)]
        return all(norm(a.get(k)) == norm(b.get(k)) for k in keys)
    if kind == "entity":
        return all(sorted(a.get(k) or []) == sorted(b.get(k) or []) for k in ("tables", "columns", "values"))
    return dict(a) == dict(b)


_DAYS = {"day": 1, "week": 7, "month": 30.44, "quarter": 91.3, "year": 365.25}


def _window_days(form: Mapping[str, Any]) -> float | None:
    try:
        return float(form.get("amount")) * _DAYS[str(form.get("unit") or "").lower().rstrip("s")]  # type: ignore[arg-type]
    except (TypeError, ValueError, KeyError):
        return None


def same_definition(a: Mapping[str, Any], b: Mapping[str, Any], dialect: str) -> bool:
    """The same SQL, or the same column kept to the same values in another order."""
    if norm(a.get("sql")) == norm(b.get("sql")):
        return True
    la, lb = listed_values(a, dialect), listed_values(b, dialect)
    return la is not None and lb is not None and la[0] == lb[0] and {str(v).lower() for v in la[1]} == {
        str(v).lower() for v in lb[1]}


# Words that shape a definition without adding to it: "X means …", "X matlab jinke …", "when I say X, …".
_DEFINING = {
    "mean", "meaning", "matlab", "define", "defined", "definition", "call", "called", "say", "said", "when",
    "refer", "refers", "like", "just", "basically", "simply", "again", "already", "told", "you", "know",
    "remember", "please", "was", "am", "be", "been", "it", "that", "this", "these", "those", "as", "at", "we",
    "i", "our", "us", "they", "them", "their", "who", "whose", "which", "what", "jo", "jinke", "jinka", "jiske",
    "jisne", "jis", "wo", "woh", "ye", "yeh", "hai", "hain", "ka", "ki", "ke", "ko", "se", "ho", "hota", "hoti",
    "kehte", "bolte", "yaani", "yani", "nu", "ne", "one", "ones", "thing", "thi", "tha", "mein", "me", "par",
    "pe", "wala", "wale", "wali", "out", "of", "among", "any", "or", "ya", "usse", "isse", "has", "have", "been",
    "with", "bolun", "bolu", "toh", "to", "equal", "equals", "having",
}  # fmt: skip
# spellings of one idea inside definitions: "ratio"/"share"/"/", "all"/"total"/"every"
_SAME_IDEA = {"ratio": "divided", "share": "divided", "proportion": "divided", "fraction": "divided",
              "percentage": "divided", "percent": "divided", "rate": "divided", "total": "all", "every": "all",
              "overall": "all", "sab": "all", "saare": "all", "sare": "all", "kul": "all"}  # fmt: skip


def restates(old: str, new: str, name: str = "") -> bool:
    """``new`` says nothing ``old`` does not: the same numbers, and every content word of ``new`` (its name and
    the words that only frame a definition aside) found in ``old`` after folding spellings, typos and
    Hindi-English. "AOV matlab delivered orders ka average total_amount" restates "AOV = average total_amount
    over delivered orders"; "whale now means over 50000" (a new number) and "basket size means lines per
    invoice, not the amount" (new words) do not. A stated change ("now", "should", "instead") is never a
    restatement."""
    if _CHANGE.search(new):
        return False
    if sorted(numbers_in(old)) != sorted(numbers_in(new)):
        return False
    known = _content_words(old) | _content_words(name)
    extra = [w for w in _content_words(new) - _DEFINING
             if not w.isdigit() and not any(same_word(w, k) for k in known)]
    return not extra


_MORE = {"more", "over", "above", "greater", "exceeding", "exceed", "exceeds", "zyada", "jyada", "upar", "plus",
         "least", "min", "minimum", "beyond"}  # fmt: skip
_LESS = {"less", "under", "below", "fewer", "kam", "neeche", "most", "max", "maximum", "within"}


def _content_words(text: str) -> set[str]:
    """``_naming.words`` with comparisons folded: "10+", "more than 10", "10 se zyada" all say ">"."""
    text = re.sub(r"(\d)\s*\+", r"\1 more ", text)
    text = text.replace("*", " times ").replace("×", " times ").replace("/", " divided ")
    out = set()
    for w in _recall_words(text):
        out.add(">" if w in _MORE else "<" if w in _LESS else _SAME_IDEA.get(w, w))
    return out - {"than", "se", "by", "multiplied"}


_CHANGE = re.compile(r"\b(?:now|should|changed?|redefine[ds]?|instead|rather|anymore|any\s+more|no\s+longer|"
                     r"ab|abhi\s+se|from\s+now|also|too|as\s+well|plus|additionally|bhi)\b", re.IGNORECASE)
