"""Numbers and dates as people spell them out, so redaction compares them with the data like digits.

The default deny (``_vocabulary``) lets small number words and common words through ("eleven", "four dozen", "a
gross", "New Year's Eve"): each is harmless alone, but can spell a value of the rows. Here they are read back to
what they say — a number, digits in order, a day of the year — and ``_redact`` checks that against the literals
of the answer as it checks "48" or "2024-12-31". Nothing here decides alone: a spelled number is a leak only when
the data holds it.
"""

from __future__ import annotations

import re

__all__ = ["holiday_days", "spelled_digit_runs", "spelled_numbers"]

_UNITS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
          "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
          "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}
# Words that multiply what comes before them (or stand for their value alone after "a"/"one").
_SCALES = {"hundred": 100, "thousand": 1_000, "lakh": 100_000, "lac": 100_000, "million": 1_000_000,
           "crore": 10_000_000, "billion": 1_000_000_000}
_GROUPS = {"dozen": 12, "score": 20, "gross": 144}  # counted in groups: "four dozen", "four score", "a gross"
_DIGITS = {k: v for k, v in _UNITS.items() if v < 10} | {"nought": 0}
_WORD = re.compile(r"[a-z]+|[^\sa-z]", re.IGNORECASE)  # words, and each punctuation mark (it ends a number)


def spelled_numbers(text: str) -> list[float]:
    """Every number written in words in ``text``: "eleven", "forty-eight thousand", "four dozen", "four score and
    seven", "a gross", "two lakh" (each maximal run of number words, "and"/"a" inside it)."""
    words = [w.casefold() for w in _WORD.findall(text.replace("-", " "))]
    out: list[float] = []
    i = 0
    while i < len(words):
        value, end = _read_number(words, i)
        if end > i:
            out.append(float(value))
            i = end
        else:
            i += 1
    return out


def _read_number(words: list[str], start: int) -> tuple[int, int]:
    """The number that starts at ``words[start]`` and the index after it ((0, start) when none does)."""
    total, current, i, read = 0, 0, start, False
    while i < len(words):
        word = words[i]
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if word in _UNITS:
            current += _UNITS[word]
        elif word in _TENS:
            current += _TENS[word]
        elif word in ("a", "an") and (nxt in _SCALES or nxt in _GROUPS) and not read:
            current = 1
        elif word in _GROUPS and (read or (i > start and words[i - 1] in ("a", "an"))):
            current = max(current, 1) * _GROUPS[word]
        elif word in _SCALES and (read or current):
            scale = _SCALES[word]
            if scale == 100:
                current = max(current, 1) * 100
            else:
                total += max(current, 1) * scale
                current = 0
        elif word == "and" and read and (nxt in _UNITS or nxt in _TENS):
            i += 1
            continue
        else:
            break
        read = read or word not in ("a", "an")
        i += 1
    if not read:
        return 0, start
    return total + current, i


def spelled_digit_runs(text: str) -> list[str]:
    """Digits spelled one word each, in order, even with a filler between them ("four then seven then one then
    nine" → "4719"): runs of three or more."""
    words = [w.casefold() for w in _WORD.findall(text)]
    runs: list[str] = []
    run, gap = "", 0
    for word in words:
        if word in _DIGITS:
            run, gap = run + str(_DIGITS[word]), 0
            continue
        gap += 1
        if gap > 1 or word in ".;:!?":  # a sentence's end ends the run too
            if len(run) >= 3:
                runs.append(run)
            run = ""
    if len(run) >= 3:
        runs.append(run)
    return runs


# Days of the year known by a name (fixed dates only; a moveable feast depends on the year and is rarely how a
# value is disguised). Each is (month, day) and the words that name it, folded.
_NAMED_DAYS: tuple[tuple[int, int, tuple[str, ...]], ...] = (
    (1, 1, ("new", "year", "day")), (12, 31, ("new", "year", "eve")), (2, 14, ("valentine",)),
    (3, 15, ("ides", "march")), (3, 17, ("patrick",)), (4, 1, ("april", "fool")), (5, 1, ("may", "day")),
    (5, 1, ("labour", "day")), (10, 31, ("halloween",)), (11, 5, ("guy", "fawkes")), (11, 5, ("bonfire", "night")),
    (12, 24, ("christmas", "eve")), (12, 25, ("christmas",)), (12, 26, ("boxing", "day")),
    (7, 4, ("independence", "day")), (8, 15, ("independence", "day")), (1, 26, ("republic", "day")),
    (1, 26, ("australia", "day")), (7, 1, ("canada", "day")), (7, 14, ("bastille",)), (10, 2, ("gandhi", "jayanti")),
    (11, 11, ("armistice",)), (11, 11, ("veteran", "day")), (11, 11, ("remembrance", "day")),
    (2, 29, ("leap", "day")), (6, 24, ("midsummer",)),
)


def holiday_days(words: tuple[str, ...]) -> set[tuple[int, int]]:
    """The (month, day) of every named day whose words all appear in ``words`` (folded, singular) within a span of
    five words: "New Year's Eve" → (12, 31), "the ides of March" → (3, 15)."""
    found: set[tuple[int, int]] = set()
    for month, day, name in _NAMED_DAYS:
        for i, word in enumerate(words):
            if word == name[0] and set(name) <= set(words[i:i + len(name) + 3]):
                found.add((month, day))
                break
    return found
