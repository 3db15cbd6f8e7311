"""What a list answer is of: the table whose rows a question lists, read from its words.

Presentation preferences that belong to one table — columns shown together, a default sort for that table, a
"when you list tracks …" rule kept as words — mean something only for a list of that table's rows, not for a
count, a breakdown by another column, or the rows of another table ("orders of customer 131"). A words-only
format rule ("durations as m:ss") applies where the answer shows what it formats. Closed-class reading:
list verbs, grouping words, possessives and the schema's table nouns, never domain phrases.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from core.memory.recall._naming import words
from core.memory.kernel import same_word

__all__ = ["lists_another_table", "lists_table", "listing_table", "shares_subject"]

_LIST_HEAD = re.compile(r"^\s*(?:which|what|list|show(?:\s+me)?|give\s+me|kaun\s*se|konse|kaunse)\s+"
                        r"(?:all\s+|the\s+|of\s+the\s+|our\s+|my\s+)?(?P<head>[a-z]+)", re.IGNORECASE)
_GROUPED_BY = re.compile(r"\b(?:per|by|each|every|har)\s+(?:the\s+)?(?P<by>[a-z]+)|\b(?P<wise>[a-z]+)[-\s]wise\b",
                         re.IGNORECASE)


def lists_table(question: str, q_words: set[str], st: dict[str, Any], used_tables: set[str],
                 table_names: Sequence[str] = ()) -> bool:
    """A "columns shown together" form applies when the answer lists its table's rows: the question names the
    table or the column the form is about, or uses a term or entity defined on that table, and the rows it
    lists are not something else ("which countries have more than 3 customers", "customer count per city",
    "orders of customer 131")."""
    table = str(st.get("table") or "").split(".")[-1]
    wanted = words(table) | words(str(st.get("when") or ""))

    def ours(word: str) -> bool:
        return any(same_word(w, x) for w in wanted for x in words(word))

    # "orders of customer 131", "email of customer 38": one row named by its id is not a list of that table
    q_words = words(_ONE_ROW.sub(" ", question)) if _ONE_ROW.search(question) else q_words
    when = words(str(st.get("when") or "")) - _NAME_PARTS - words(table)
    if when and all(any(same_word(w, q) for q in q_words) for w in when) and any(
            same_word(w, q) for w in words(table) for q in q_words):  # fmt: skip
        return True  # "list the orders with customer names": the names are shown, whatever is listed
    nouns = {w for t in table_names for w in words(t.split(".")[-1])}
    listed = _list_phrase(question)
    if listed:
        if any(ours(w) for w in listed):
            return True  # "list customers from Brazil with how many orders each placed"
        if any(same_word(w, n) for w in listed for n in nouns):
            return False  # a list of another table's rows
        return table.lower() in used_tables  # "list the whales", "list my book": what the term is about
    ranked = re.search(r"\b(?:top|bottom|rank\w*|sort\w*|order(?:ed)?\s+by|highest|lowest|most|least|biggest|"
                       r"largest|smallest|best|worst)\b", question,
                       re.IGNORECASE)  # "top customers by spend": "by" orders the list, it does not group it
    for m in () if ranked else _GROUPED_BY.finditer(question):
        by = m.group("by") or m.group("wise")
        if by and by[:1].isupper() and m.group("by"):
            continue  # "tracks by AC/DC": who made them, not a grouping
        if by and by.lower() not in _NOT_NOUNS and not ours(by):
            return False
    # the first table the question names is what it is about: "customers who ordered in May" lists customers,
    # "orders from Bangalore customers" lists orders
    text = _ONE_ROW.sub(" ", question)
    # "my artists' tracks", "genre wale tracks": a possessive or a Hindi-English "wale" marks a modifier
    text = re.sub(r"\b[a-z]+(?:s'|'s)(?=\s)|\b[a-z]+\s+(?:wale|wali|wala)\b", " ", text, flags=re.IGNORECASE).lower()
    for tok in re.findall(r"[a-z]+", text):
        if not tok.endswith(("ed", "ing")) and any(same_word(tok, n) for n in nouns):  # "ordered" is a verb
            return ours(tok)
    return table.lower() in used_tables or any(same_word(w, q) for w in wanted for q in q_words)




_LIST_VERB = re.compile(r"^\s*(?:please\s+|pls\s+|can\s+you\s+|could\s+you\s+)?(?:which|what|list|show(?:\s+me)?|"
                        r"give\s+me|kaun\s*se|konse|kaunse)\s+", re.IGNORECASE)
_LIST_SKIP = {"all", "the", "of", "our", "my", "me", "us", "a", "an", "most", "recent", "latest", "top", "few", "some",
              "mere", "meri", "hamare"}
_LIST_STOP = {"with", "from", "in", "of", "by", "per", "for", "who", "which", "that", "whose", "where", "have", "has",
              "had", "are", "is", "was", "were", "do", "does", "did", "placed", "made", "and", "or", "ke", "ki", "ka",
              "jo", "jinke", "jinhone", "se", "mein", "above", "below", "over", "under", "than", "on", "at", "to"}


def listing_table(text: str, table_names: Sequence[str]) -> str | None:
    """The table a "when you list X …" preference is about: the first table its words name after the word
    for listing ("Whenever you list tracks, show the album title" -> Track)."""
    m = re.search(r"\b(?:list|lists|listing|listed|listings)\b", text, re.IGNORECASE)
    if m is None:
        return None
    nouns = [(t, words(t.split(".")[-1])) for t in table_names]
    around = text[max(0, m.start() - 40) :]  # "whenever customers are listed": the noun may come first
    for tok in re.findall(r"[a-z]+", around.lower()):
        for t, tw in nouns:
            if len(tw) == 1 and any(same_word(tok, w) for w in tw):
                return t.split(".")[-1]
    return None


_FORMAT_WORDS = {"show", "display", "write", "print", "render", "format", "formatted", "as", "in", "please", "pls",
                 "never", "always", "raw", "not", "instead", "like", "e", "g", "eg", "with", "and", "the", "my",
                 "number", "value", "them", "it", "everything", "all", "s", "m", "ss", "mm", "hh", "dd", "yyyy"}


def shares_subject(text: str, q_words: set[str]) -> bool:
    """A words-only format preference ("durations as m:ss") applies where the question asks for what it
    formats: a word of its subject (folded: "length" is a duration) occurs in the question."""
    subject = {w for w in words(text) if w not in _FORMAT_WORDS and not w.isdigit() and len(w) > 2}
    subject |= {x for w in subject for x in _IMPLIED.get(w, ())}
    return any(same_word(w, q) for w in subject for q in q_words)


_IMPLIED = {"duration": ("long", "longer", "longest", "short", "shorter", "shortest")}  # "the longest track" shows a duration


def _list_phrase(question: str) -> list[str]:
    """The words naming what a list is of: "Show the 10 most recent orders" -> ["orders"], "list in-transit
    orders above 5000" -> ["in-transit", "orders"]; empty when the question does not open as a list."""
    m = _LIST_VERB.match(question)
    if m is None:
        return []
    out: list[str] = []
    for tok in re.findall(r"[a-z][a-z'-]*|\d+", question[m.end() :].lower())[:6]:
        if out and (tok in _LIST_STOP or tok.endswith("ed") or tok in ("more", "less", "fewer", "most")):
            break
        if tok.isdigit() or tok in _LIST_SKIP or tok in _LIST_STOP:
            continue
        if tok in _NOT_NOUNS:
            return []  # "what is …", "which are …": not a list head
        out.append(tok)
    return out[-3:]


def lists_another_table(question: str, q_words: set[str], st: dict[str, Any], table_names: Sequence[str]) -> bool:
    """"List tracks" with a saved sort on invoices: the list is of another table the question names, and the
    sort's own table is not named at all."""
    if not st.get("table"):
        return False  # a sort for every list ("newest first")
    own = words(str(st.get("table") or "").split(".")[-1]) | words(str(st.get("column") or ""))
    if any(same_word(w, q) for w in own for q in q_words):
        return False
    head = _LIST_HEAD.match(question) or _SHOW_HEAD.search(question)
    if head is None:
        return False
    noun = words(head.group("head"))
    mine = words(str(st.get("table") or "").split(".")[-1])
    others = [words(t.split(".")[-1]) for t in table_names]
    return any(noun and noun <= other and other != mine for other in others)


_SHOW_HEAD = re.compile(r"\b(?:show|list|dikhao|display)\s+(?:me\s+)?(?:all\s+|the\s+|our\s+|my\s+)?(?P<head>[a-z]+)",
                        re.IGNORECASE)
_NAME_PARTS = {"id", "first", "last", "full"}  # "FirstName": the column is a name
_ONE_ROW = re.compile(r"\b[a-z]+\s+(?:#|no\.?\s*|number\s+|id\s+)?\d+\b", re.IGNORECASE)  # "customer 131"
_NOT_NOUNS = {"are", "is", "was", "were", "of", "do", "does", "did", "have", "has", "me", "us", "you", "can",
              "a", "an", "one", "ones", "hain", "hai", "ke", "ki", "ka", "far", "default"}
