"""Redaction enforced by code: a shared insight keeps no literal of the question, the SQL or the rows.

The model is asked not to write values, but its words are checked here whatever it wrote, with no model
involved:

- **entities** must be ``table:<t>`` or ``column:<t>.<c>`` naming a table or column that exists in the schema —
  a typed form proven from the schema, so ``account_id:4471`` or ``customer:Priya Sharma`` cannot pass;
- a **follow-up** that contains a literal (or looks like SQL) is dropped; the others stay;
- a **summary** that contains a literal (or looks like SQL, or an e-mail address) rejects the whole record:
  words cut out of a sentence would leave a broken one, and a sentence built around a value says it anyway.

A literal is found in a text by its folded words in order, by its words squeezed together across spacing and
punctuation ("O'Brien" ~ "OBrien"), by a distinctive single word of a longer value ("Sharma"), by its number
(separators, rounding to 1 %, "48.2k"), by the digits of an identifier or a phone number, and by its date in any
common spelling.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from core.insights._literals import (
    EMAIL,
    STOPWORDS,
    Literal,
    Literals,
    dates_in,
    days_in,
    fold_words,
    numbers_in,
    without_dates,
)
from core.insights._record import MAX_FOLLOWUPS, InsightDraft, followup_key
from core.insights._spelled import holiday_days, spelled_digit_runs, spelled_numbers
from core.insights._vocabulary import is_number_word, unknown_words
from core.text import clean_text, counted

__all__ = ["Redaction", "find_leaks", "redact"]

MAX_SUMMARY_CHARS = 600
MAX_FOLLOWUP_CHARS = 200
_SQL_SHAPE = re.compile(r"\bselect\b[\s\S]+\bfrom\b|\b(?:insert\s+into|delete\s+from|update\s+\w+\s+set)\b|;\s*$",
                        re.IGNORECASE)
_DURATION = re.compile(r"^\s*(?:days?|weeks?|months?|quarters?|years?|hours?|minutes?|mahine|din|saal)\b", re.I)
_ENTITY = re.compile(r"^(table|column):([A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*)*)$")
_DIGITS = re.compile(r"\d[\d\s().+-]*\d")
SMALL_NUMBER = 10  # integers below this are generic ("top 5", "3 months"), never a value that gives data away
NUMBER_TOLERANCE = 0.01  # a number within 1 % of a value of 100 or more is that value, rounded


@dataclass(frozen=True)
class Redaction:
    """The record as it may be shared (None: nothing is shared) and what was taken out, by kind, never by value."""

    draft: InsightDraft | None
    reason: str = ""
    dropped_entities: int = 0
    dropped_followups: int = 0


def redact(draft: InsightDraft, literals: Literals,
           schema: Mapping[str, Sequence[str]] | None) -> Redaction:
    """``draft`` with every entity and follow-up that leaks removed, or None when the summary leaks.

    ``schema`` maps each table name to its column names; entities are checked against it (None: none pass)."""
    if not draft.worth_sharing:
        return Redaction(None, "the model found nothing worth sharing")
    summary = visible(draft.insight_summary)
    if not summary:
        return Redaction(None, "no insight summary")
    if len(summary) > MAX_SUMMARY_CHARS:
        return Redaction(None, "the insight summary is too long")
    if _SQL_SHAPE.search(summary):
        return Redaction(None, "the insight summary contains SQL")
    leaks = find_leaks(summary, literals)
    if leaks:
        return Redaction(None, f"the insight summary contains {leaks[0]}")
    names = _names(schema, literals)
    unknown = unknown_words(summary, names)
    if unknown:  # default deny: a name, a code, a number or a word in another script Cairn cannot vouch for
        return Redaction(None, f"the insight summary has {counted(len(unknown), 'word')} outside the shared "
                               "vocabulary (a name, a code or a number)")
    entities = _entities(draft.entities, schema)
    followups: list[str] = []
    for text in draft.suggested_followups:
        text = visible(str(text))
        if not text or len(text) > MAX_FOLLOWUP_CHARS or _SQL_SHAPE.search(text) or unknown_words(text, names) \
                or find_leaks(text, literals):
            continue
        if followup_key(text) not in {followup_key(f) for f in followups}:
            followups.append(text)
    followups = followups[:MAX_FOLLOWUPS]
    kept = InsightDraft(True, summary, tuple(entities), tuple(followups))
    return Redaction(kept, dropped_entities=len(draft.entities) - len(entities),
                     dropped_followups=len(draft.suggested_followups) - len(followups))


def _names(schema: Mapping[str, Sequence[str]] | None, literals: Literals) -> list[str]:
    """The schema's table and column names, which a summary may always use."""
    names = [*literals.schema_words]
    for table, columns in (schema or {}).items():
        names.append(table)
        names.extend(columns)
    return names


def visible(text: str) -> str:
    """``text`` as a person sees it: compatibility forms folded (fullwidth digits), invisible format characters
    (zero-width joiners, soft hyphens, bidi overrides, tags) removed rather than left to split a word, control
    characters and escapes gone, spacing collapsed. Checked and stored in this form."""
    text = unicodedata.normalize("NFKC", text)
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    return " ".join(clean_text(text).split())


def find_leaks(text: str, literals: Literals) -> list[str]:
    """What in ``text`` gives a literal away, by kind ("a value from the rows"), never the value itself."""
    text = visible(text)
    found: list[str] = []
    if EMAIL.search(text):
        found.append("an e-mail address")
    if any(_mixed_scripts(token) for token in re.findall(r"\w+", text)):
        found.append("look-alike letters of another alphabet")
    words = fold_words(text)
    raw_words = _join_spelled(fold_words(text, singular=False))
    if any(_names_in(name, words) for name in literals.hidden_names):
        found.append("a hidden column's name")
    if _copies(words, literals.question_words):
        found.append("the question's own wording")
    partial = literals.partial_tokens
    # numbers in digits and in words ("eleven", "four dozen"); a number of days/months is a window only when the
    # question set that window itself ("over the last 47 days" is the data's 47 otherwise)
    text_numbers = _numbers_outside_durations(text, _windows(literals.question_words)) + spelled_numbers(text)
    text_dates = set(dates_in(text))
    text_days = set(days_in(text)) | holiday_days(words)  # "15 March", "March 2024", "Boxing Day": part of a date
    text_digits = ["".join(ch for ch in m.group(0) if ch.isdigit()) for m in _DIGITS.finditer(text)]
    spelled_runs = spelled_digit_runs(text)  # "four then seven then one then nine"
    text_numbers += [float(run) for run in spelled_runs]
    # every digit of the text in order: an id cut into pieces ("the last 77 days, then 41 days, then 99 …")
    text_digits += [*spelled_runs, "".join(text_digits)]
    for literal in literals.items:
        if literals.is_vocabulary(literal):
            continue
        if _ordinary_words(literal):  # a status or category in plain words ("returned", "cold prep"): a word
            if literal.source == "user":  # a name that is also a word ("Baker"): a leak where written as a name
                if re.search(rf"(?<!\w){re.escape(literal.text)}(?!\w)", text):
                    found.append(_kind(literal))
            elif _next_to_number(literal.words, words):  # …never a value tied to a count ("48 returned")
                found.append(_kind(literal))
            continue
        if literal.date is not None and ((literal.date.month, literal.date.day) in text_days
                                         or (literal.date.year, literal.date.month, 0) in text_days):
            found.append(_kind(literal))
        elif _leaks(literal, words, raw_words, text_numbers, text_dates, text_digits, literals.schema_words):
            found.append(_kind(literal))
    found.extend(_kind(partial[w]) for w in words if w in partial and not _ordinary_words(partial[w]))
    return found


def _names_in(name: tuple[str, ...], words: tuple[str, ...]) -> bool:
    """Is a name (folded words: ``date_of_birth`` → date, of, birth) in ``words``, spaced, hyphenated or run
    together ("DateOfBirth", "e-mail" for ``email``), with a plural or verb ending ("emailed")?"""
    squeezed = "".join(name)
    for i in range(len(words)):
        run = ""
        for word in words[i:i + len(name) + 2]:
            run += word
            if run == squeezed or (len(squeezed) > 3 and run.startswith(squeezed) and len(run) - len(squeezed) <= 2):
                return True
            if len(run) >= len(squeezed):
                break
    return False


def _ordinary_words(literal: Literal) -> bool:
    """A value written only in the shared vocabulary's words, not as a name ("Express Saver", "Acme Corp" have two
    capitals): the default deny lets such words through, so they are not a leak by themselves."""
    capitalised = sum(w[:1].isupper() for w in literal.text.split())
    return literal.number is None and literal.date is None and bool(literal.words) and capitalised < 2 and \
        not unknown_words(literal.text) and not any(ch.isdigit() for ch in literal.text)  # "Acme Corp": a name


def _next_to_number(value: tuple[str, ...], words: tuple[str, ...]) -> bool:
    """Does ``value`` stand in ``words`` within two words of a number (digits or a number word)?"""
    n = len(value)
    for i in range(len(words) - n + 1):
        if words[i:i + n] == value:
            near = words[max(0, i - 2):i] + words[i + n:i + n + 2]
            if any(w.isdigit() or is_number_word(w) for w in near):
                return True
    return False


def _leaks(literal: Literal, words: tuple[str, ...], raw_words: tuple[str, ...], numbers: list[float],
           dates: set, digit_runs: list[str], schema_words: frozenset[str]) -> bool:
    if literal.date is not None and literal.date in dates:
        return True
    if literal.number is not None:
        return _number_in(literal.number, numbers) or _digits_in(literal.text, digit_runs)
    if _digits_in(literal.text, digit_runs):
        return True
    lw = literal.words
    if not lw or all(w in STOPWORDS or w in schema_words or len(w) < 2 for w in lw):
        return False  # a value that is only generic words or the schema's own names gives nothing away
    if len(lw) == 1 and lw[0].isdigit() and len(lw[0]) < 3:
        return False
    n = len(lw)
    if any(words[i:i + n] == lw for i in range(len(words))):
        return True
    target = literal.squeezed
    if len(target) < 3:
        return False
    for i in range(len(raw_words)):  # the value's letters run together across spacing and punctuation
        squeezed = ""
        for j in range(i, min(len(raw_words), i + n + 2)):
            squeezed += raw_words[j]
            if squeezed == target or (squeezed.startswith(target) and len(squeezed) - len(target) <= 2):
                return True  # also with a plural or possessive ending ("BbbbsBbbbbs")
            if len(squeezed) >= len(target):
                break
    return False


def _number_in(value: float, numbers: list[float]) -> bool:
    if value.is_integer() and abs(value) < SMALL_NUMBER:
        return False
    ratio = 0 < abs(value) < 1 and _significant(value) >= 3  # 0.4273 may be written 42.7 % or 0.43
    for n in numbers:
        if n == value:
            return True
        close = abs(n - value) <= NUMBER_TOLERANCE * abs(value)
        if (abs(value) >= 100 or ratio) and close and _significant(n) >= 2:
            return True
        if ratio and abs(n - 100 * value) <= NUMBER_TOLERANCE * 100 * abs(value) and _significant(n) >= 2:
            return True
    return False


def _mixed_scripts(token: str) -> bool:
    """A word of Latin letters with Cyrillic or Greek look-alikes in it ("Priyа" with a Cyrillic а)."""
    scripts = {unicodedata.name(ch, "").split(" ", 1)[0] for ch in token if ch.isalpha()}
    return "LATIN" in scripts and bool(scripts & {"CYRILLIC", "GREEK"})


def _join_spelled(words: tuple[str, ...]) -> tuple[str, ...]:
    """Runs of three or more single letters or digits joined ("N a i r o b i", "N.a.i.r.o.b.i" → "nairobi")."""
    out: list[str] = []
    run: list[str] = []
    for word in (*words, ""):
        if len(word) == 1:
            run.append(word)
            continue
        out.extend(["".join(run)] if len(run) >= 3 else run)
        run = []
        if word:
            out.append(word)
    return tuple(out)


COPIED_WORDS = 8  # this many of the question's words in a row is its wording (a short restatement is its shape)


def _copies(words: tuple[str, ...], question: tuple[str, ...]) -> bool:
    if len(question) < COPIED_WORDS:
        return False
    grams = {question[i:i + COPIED_WORDS] for i in range(len(question) - COPIED_WORDS + 1)}
    return any(words[i:i + COPIED_WORDS] in grams for i in range(len(words) - COPIED_WORDS + 1))


def _digits_in(text: str, digit_runs: list[str]) -> bool:
    """An identifier's or phone number's digits (5 or more) written in the text, separators aside; a local
    number's leading 0 aside too ("0712 345 678" of "+254 712 345 678")."""
    digits = "".join(ch for ch in text if ch.isdigit())
    if len(digits) < 5:
        return False
    for run in digit_runs:
        if len(run) >= 5 and (run in digits or digits in run):
            return True
        local = run.lstrip("0")
        if len(local) >= 7 and local != run and local in digits:
            return True
    return False


def _numbers_outside_durations(text: str, windows: frozenset[float]) -> list[float]:
    """Numbers of the text, less the windows of time the question itself set ("last 30 days" when it asked for
    the last 30 days) and the small ones ("last 12 months"): those are the asker's or anyone's, not data. Any
    other number of days is a number like any other ("47 days" when a count was 47)."""
    out: list[float] = []
    text = without_dates(EMAIL.sub(" ", text))
    for match in re.finditer(r"\d[\d,._\u202f]*(?:\s?[kKmMbB](?:n|illion)?\b)?", text):
        values = numbers_in(match.group(0))
        if not values:
            continue
        if (values[0] <= 12 or values[0] in windows) and _DURATION.match(text[match.end():]):
            continue
        out.extend(values)
    return out


def _windows(question_words: tuple[str, ...]) -> frozenset[float]:
    """The numbers the question puts before a unit of time ("last 30 days", "90-day"), in digits or words."""
    out: set[float] = set()
    for i, word in enumerate(question_words[:-1]):
        if _DURATION.match(question_words[i + 1]):
            out.update(numbers_in(word) if word.isdigit() else spelled_numbers(word))
    return frozenset(out)


def _significant(n: float) -> int:
    digits = f"{abs(n):.10g}".replace(".", "").lstrip("0").rstrip("0")
    return len(digits)


def _entities(entities: Iterable[str], schema: Mapping[str, Sequence[str]] | None) -> list[str]:
    """Only ``table:<t>`` / ``column:<t>.<c>`` of the schema, spelled as the schema spells them."""
    if schema is None:
        return []
    tables = {t.casefold(): t for t in schema}
    columns = {(t.casefold(), c.casefold()): (t, c) for t, cols in schema.items() for c in cols}
    out: list[str] = []
    for raw in entities:
        match = _ENTITY.match(str(raw).strip().replace(" ", ""))
        if match is None:
            continue
        kind, name = match.group(1), match.group(2)
        if kind == "table" and name.casefold() in tables:
            entity = f"table:{tables[name.casefold()]}"
        elif kind == "column" and "." in name:
            table, _, column = name.rpartition(".")
            key = (table.rpartition(".")[2].casefold(), column.casefold())
            if key not in columns:
                continue
            entity = "column:{}.{}".format(*columns[key])
        else:
            continue
        if entity not in out:
            out.append(entity)
    return out


def _kind(literal: Literal) -> str:
    return {"sql": "a value from the SQL", "row": "a value from the rows", "hidden": "a hidden value",
            "question": "a value from the question", "user": "the user's name"}.get(literal.source, "a value")
