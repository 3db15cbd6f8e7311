"""How a question names a memory: the words recall compares, a term's name, an entity's handle.

A term or metric applies when the question names it (``names_term``); an entity when the question calls it by
its handle or makes the same noun its own ("my artists" for "the artists I manage": ``entity_named_by``). Words
are compared after ``_word_match`` folds spellings, typos, acronyms and Hindi-English.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from core.memory.kernel import Memory, canonical, same_word

__all__ = ["entity_context", "entity_handle", "entity_named_by", "names_entity", "names_term", "table_words",
           "words"]

_WORD = re.compile(r"[a-z0-9]+")
_STOP = {"a", "an", "the", "of", "to", "in", "on", "for", "and", "or", "is", "are", "with", "by", "me", "my"}

def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("xes", "ches", "shes", "sses", "zzes")):
        return word[:-2]  # "boxes", "batches", "dishes", "classes"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def words(text: str) -> set[str]:
    """The words recall compares: lower case, singular, small words dropped, spellings folded ("avg" ->
    "average", "songs" -> "track", "%" -> "rate"; see ``_word_match``)."""
    text = text.replace("_", " ").replace("%", " percent ").lower()
    return {canonical(_stem(w)) for w in _WORD.findall(text) if w not in _STOP}


def names_term(question_words: set[str], name: str, table_words: Iterable[str] = (),
               question_acronyms: Iterable[str] = ()) -> bool:
    """The question names the term: every word of ``name`` other than table nouns occurs in it (any order,
    plurals, endings, typos and spellings folded). "Churned customers" is named by "which accounts churned",
    "upi share" by "% of orders paid via upi"; a name made only of table nouns needs all its words. An
    acronym names its words and the other way round ("aov" / "avg order value"), given the question's
    ``question_acronyms`` (see ``_word_match.acronyms``)."""
    alias = re.fullmatch(r"\s*(.+?)\s*\((.+)\)\s*", name)  # "aov (average order value)": either names it
    if alias:
        return any(names_term(question_words, part, table_words, question_acronyms) for part in alias.groups())
    name = name.strip(" '\"`")
    wanted = words(name)
    # "revenue per customer": the noun after "per" says what the ratio is over, table noun or not
    per = {canonical(_stem(w)) for w in re.findall(r"\bper\s+([a-z]+)", name.lower())}
    distinctive = (wanted - set(table_words)) | (per & wanted) or wanted
    # "premium tier" is named by "premium tracks": a generic head noun is dropped when a word beside it says more
    distinctive = distinctive - _GENERIC_HEADS or distinctive
    if distinctive and all(any(same_word(w, q) for q in question_words) for w in distinctive):
        return True
    compact = re.sub(r"[^a-z]", "", name.lower())
    if 3 <= len(compact) <= 5 and len(wanted) == 1 and compact in set(question_acronyms):
        return True  # the question spells out the acronym the term is saved as
    tokens = [t for t in re.findall(r"[a-z0-9]+", name.lower()) if t not in _STOP and t != "per"]
    return len(tokens) >= 3 and "".join(t[0] for t in tokens) in question_words  # "aov" names "average order value"


_GENERIC_HEADS = {"tier", "type", "category", "class", "level", "group", "bucket", "band", "kind", "segment",
                  "bracket", "grade"}


def table_words(table_names: Sequence[str] | None) -> set[str]:
    out: set[str] = set()
    for t in table_names or ():
        out |= words(t.split(".")[-1])
    return out


_FIRST_PERSON = re.compile(r"\b(?:my|mere|meri|mera|apne|apni|apna)\s+(?:[a-z]+\s+)?([a-z]+)|"
                           r"\b([a-z]+)\s+(?:that\s+|which\s+|do\s+|did\s+)?i\s+(?:[a-z]+)", re.IGNORECASE)
_HANDLE_STOP = {
    "is", "are", "was", "were", "am", "be", "mean", "means", "meaning", "look", "looks", "after", "run", "runs",
    "manage", "managed", "handle", "handles", "cover", "covers", "support", "supports", "own", "owns", "one",
    "ones", "im", "i", "we", "our", "us", "called", "call", "refer", "refers", "these", "those", "they", "them",
    "their", "which", "who", "whose", "jo", "hai", "hain", "ka", "ki", "ke", "mera", "meri", "mere", "apne",
    "that", "this", "it", "as", "at", "all", "also", "just", "only", "when", "say", "said", "talk", "about",
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "both", "main", "some", "few",
}  # fmt: skip


def _first_person_words(text: str) -> set[str]:
    """Nouns the text makes its own: "my artists", "meri territory", "the customers I look after"."""
    out: set[str] = set()
    for m in _FIRST_PERSON.finditer(text.lower()):
        word = m.group(1) or m.group(2)
        if word and word not in _HANDLE_STOP:
            out |= words(word)
    for m in re.finditer(r"\b(?:my|mere|meri|mera|apne|apni|apna)\s+([a-z]+)", text.lower()):
        out |= words(m.group(1)) - _HANDLE_STOP
    # "I manage Jane Peacock's customers": what comes after a verb of looking after is the person's own
    for m in re.finditer(r"\b(?:i|we)\s+(?:manage|handle|look\s+after|cover|own|support|run|lead|oversee)\s+"
                         r"((?:[\w']+\s+){0,3}[\w']+)", text.lower()):
        out |= words(m.group(1).replace("'s", "")) - _HANDLE_STOP
    return out


def entity_handle(memory: Memory, st: dict[str, Any], context_words: set[str]) -> set[str]:
    """The words that name an entity memory ("key accounts", "franchise partner", "territory"): its words
    other than its values, the schema's table and column nouns, and verbs of belonging."""
    value_words: set[str] = set()
    for v in st.get("values") or []:
        value_words |= words(str(v))
    named = _DEFINED.match(memory.content)
    if named:  # "watchlist = customers 88, 131 (credit-risk flags)": the name, not the explanation
        handle = {w for w in words(named.group("name")) - value_words - context_words - _HANDLE_STOP
                  if not w.isdigit() and len(w) > 2}  # fmt: skip
        alias = _ALIAS.search(memory.content)
        handle |= words(alias.group(1)) if alias else set()  # "My region is APAC: Singapore, Japan"
        possessive = re.search(r"^\s*(?:my|our|mere|meri|mera|hamare|hamara|apne)\b|\b(?:i|we|mine|ours)\b",
                               named.group("name"), re.IGNORECASE)  # "the accounts I manage: …" is theirs too
        if handle and not possessive:
            return handle  # ("my reps are …" keeps every word: "rep" alone names any support rep)
    return {w for w in words(memory.content) - value_words - context_words - _HANDLE_STOP
            if not w.isdigit() and len(w) > 2 and not w.endswith("id")
            and not any(w.startswith(c) for c in context_words if len(c) > 3)}  # fmt: skip ("employeeid")


# "<name> = …", "<name>: …", "<name> are …", "<name> matlab …": a short name first, then what it stands for
_DEFINED = re.compile(r"^\s*['\"]?(?P<name>(?:[\w'-]+\s+){0,4}?[\w'-]+)['\"]?\s*(?:=|:|->|\s(?:are|is|means|matlab|"
                      r"bolun\s+toh|refers\s+to)\s)", re.IGNORECASE)
_ALIAS = re.compile(r"\b(?:is|are)\s+([A-Z][\w-]+)\s*[:(,–-]")


def entity_named_by(text: str, memory: Memory, table_names: Sequence[str]) -> bool:
    """True when ``text`` calls the entity ``memory`` is about by its handle (see ``_names_entity``)."""
    st = dict(memory.structured or {})
    return names_entity(text, words(text), memory, st, entity_context(st, table_words(table_names))) is not None


def entity_context(st: dict[str, Any], table_words: set[str]) -> set[str]:
    """Schema nouns that never name an entity: the tables, and the columns its form is about."""
    return table_words | {w for c in st.get("columns") or [] for w in words(str(c).split(".")[-1])}


def names_entity(question: str, q_words: set[str], memory: Memory, st: dict[str, Any],
                  context_words: set[str]) -> str | None:
    """The words by which the question refers to an entity memory, or None.

    An entity is used when the question calls it by its handle (at least two of its words, or its only one)
    or makes the same noun its own ("my artists" for "the artists I manage"). Naming one of its values is not
    enough: "customers in Germany" does not mean "my EMEA countries are UK, Germany and France".
    """
    handle = entity_handle(memory, st, context_words)
    hits = {w for w in handle if any(same_word(w, q) for q in q_words)}
    if handle and len(hits) >= min(2, len(handle)):
        return " ".join(sorted(hits))
    shared = _first_person_words(question) & _first_person_words(memory.content)
    if shared:
        return "my " + " ".join(sorted(shared))
    return None
