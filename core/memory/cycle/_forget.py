"""Retractions: "I no longer care about India", "forget the INR rule", "stop filtering by country".

The thing to forget is found by structure first (a filter's value or column, a term's name, a currency
setting), then by the words of the memory, and only then by similarity of the retraction's object phrase.
Nothing new is stored. A value named out of a multi-value filter narrows it (UPDATE) instead of dropping it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

from core.memory.kernel import Embedder, Memory, currency_code, embed_one, mentions_value, name_key, same_word, words
from core.memory.cycle._extraction import Fact
from core.memory.stores import MemoryStore
from core.memory.forms import filter_spec, structure
from core.memory.cycle._sameness import same_structure, slot_key, slots_clash
from core.memory.cycle._update import UpdateReport
from core.memory.cycle._writes import replace as replace_memory
from core.schema import Schema

__all__ = ["FORGET_MIN_SIMILARITY", "forget", "retraction_object"]

logger = logging.getLogger(__name__)

FORGET_MIN_SIMILARITY = 0.5

_LEADS = (
    r"(?:please\s+|can\s+you\s+|could\s+you\s+|you\s+can\s+|ok(?:ay)?,?\s+|actually,?\s+)*",
)
_PATTERNS = tuple(
    re.compile(_LEADS[0] + p, re.IGNORECASE)
    for p in (
        r"(?:i|we)\s+(?:no\s+longer|don'?t|do\s+not)\s+(?:really\s+)?(?:care|want|need)\s+"
        r"(?:about|to\s+see|for|to\s+filter\s+(?:by|on))?\s*(?P<obj>.+)$",
        r"(?:stop|quit|no\s+longer)\s+(?:filtering|limiting|restricting|narrowing)\s+"
        r"(?:results\s+|everything\s+|it\s+)?(?:by|on|to|for)\s+(?P<obj>.+)$",
        r"(?:stop|quit)\s+(?:using|applying|showing\s+only|only\s+showing)\s+(?P<obj>.+)$",
        r"(?:forget|drop|remove|delete|clear|discard|scrap|undo|cancel|reset|ignore|lose)\s+"
        r"(?:about\s+)?(?P<obj>.+)$",
        r"never\s*mind\s+(?:about\s+)?(?P<obj>.+)$",
        r"no\s+(?:more|longer)\s+(?P<obj>.+)$",
    )
)
_NOISE_HEAD = re.compile(r"^(?:(?:the|my|our|that|this|a|an|any|all)\s+)+", re.IGNORECASE)
_NOISE_TAIL = re.compile(
    r"(?:\s+(?:rule|rules|definition|definitions|preference|preferences|filter|filters|setting|settings|"
    r"memory|memories|term|metric|condition|thing|any\s?more|please|from\s+now\s+on|now|again|thanks))+$",
    re.IGNORECASE,
)
_WEAK = {"the", "a", "an", "of", "about", "my", "our", "by", "on", "to", "for", "customer", "order", "only"}


def retraction_object(message: str) -> str:
    """The phrase being retracted: "forget the INR rule" -> "INR"."""
    text = " ".join(message.split()).strip().rstrip(".!?")
    for pattern in _PATTERNS:
        m = pattern.match(text)
        if m:
            text = m.group("obj")
            break
    prev = None
    while prev != text:
        prev = text
        text = _NOISE_TAIL.sub("", _NOISE_HEAD.sub("", text.strip(" ,\"'"))).strip(" ,\"'")
    return text


def forget(
    message: str,
    *,
    user: str,
    database_id: str,
    store: MemoryStore,
    embedder: Embedder,
    schema: Schema | None,
    dry_run: bool = False,
) -> UpdateReport:
    """Delete (or narrow) the memory ``message`` retracts; NOOP with a reason when nothing matches. ``dry_run``:
    the report only, nothing written."""
    obj = retraction_object(message)
    if not obj:
        return UpdateReport("NOOP", (), (), (), "could not tell what to forget")
    memories = store.list(user, database_id=database_id)
    if not memories:
        return UpdateReport("NOOP", (), (), (), "there are no memories to forget")
    dialect = schema.dialect if schema is not None else "postgres"

    forms = {m.id: m.structured or (structure(Fact(m.category, m.content), schema) if schema is not None else None)
             for m in memories}  # fmt: skip
    matched, narrowed = _by_structure(obj, memories, forms, dialect)
    how = "by structure"
    if not matched and not narrowed:  # "you can include videos again, drop that rule": look past the verbs
        for phrase in _pointing_clauses(message):
            matched, narrowed = _by_structure(phrase, memories, forms, dialect)
            if matched or narrowed:
                obj = phrase
                break
    if not matched and not narrowed:
        matched = [m for m in memories if _names_words(obj, m.content)]
        how = "by its words"
    if not matched and not narrowed:
        for phrase in _pointing_clauses(message):
            best = _best_by_words(phrase, memories)
            if best is not None:
                matched, obj, how = [best], phrase, "by its words"
                break
    if not matched and not narrowed:
        hits = store.search(user, embed_one(embedder, obj), k=1, database_id=database_id)
        if hits and hits[0].similarity >= FORGET_MIN_SIMILARITY:
            matched = [hits[0].memory]
            how = f"by similarity ({hits[0].similarity:.2f})"
        else:
            best = f"{hits[0].similarity:.2f}" if hits else "none"
            return UpdateReport("NOOP", (), (), (), f'no memory matches "{obj}" (best similarity {best})')

    own = structure(Fact("preference", message), schema) if matched and schema is not None and not dry_run else None
    if own and own.get("kind") == "display":
        # "no decimals anymore, round everything" after "two decimals": a new setting, not none
        old = next((m for m in matched if slots_clash(slot_key(m.structured), slot_key(own))
                    and not same_structure(m.structured, own)), None)  # fmt: skip
        if old is not None:
            new = Memory(user=user, category=old.category, content=message, database_id=database_id,
                         structured=own, source=old.source, embedding=tuple(float(x) for x in embed_one(embedder, message)))
            return replace_memory(old, new, store, "a new display setting replaces the old one")
    if matched:
        if not dry_run:
            store.delete(user, [m.id for m in matched])
        logger.info("forgot %d memorie(s) %s", len(matched), how)
        return UpdateReport(
            "DELETE", tuple(m.id for m in matched), tuple(matched), (), f'forgot "{obj}" ({how})'
        )
    after = tuple(old.edited(structured=spec, content=_narrowed_text(old.content, spec)) for old, spec in narrowed)
    for m in after if not dry_run else ():
        store.put(m)  # same id: each is one atomic replace
    return UpdateReport(
        "UPDATE", tuple(m.id for m in after), tuple(m for m, _ in narrowed), after,
        f'removed "{obj}" from a filter with several values',
    )  # fmt: skip


def _by_structure(
    phrase: str, memories: list[Memory], forms: Mapping[str, Mapping[str, Any] | None], dialect: str,
) -> tuple[list[Memory], list[tuple[Memory, dict[str, Any]]]]:
    """The memories ``phrase`` names by structure: whole ones, and multi-value filters it narrows."""
    matched: list[Memory] = []
    narrowed: list[tuple[Memory, dict[str, Any]]] = []
    for m in memories:
        verdict = _structural_match(phrase, forms[m.id], dialect)
        if verdict is True:
            matched.append(m)
        elif isinstance(verdict, dict):
            narrowed.append((m, verdict))
    return matched, narrowed


def _structural_match(obj: str, st: Mapping[str, Any] | None, dialect: str) -> bool | dict[str, Any]:
    """True: forget the whole memory; a dict: the narrowed filter; False: not this one."""
    if not st:
        return False
    kind = st.get("kind")
    okey = name_key(obj)
    if kind in ("term", "metric"):
        nkey = name_key(str(st.get("name") or ""))
        return bool(nkey) and (nkey == okey or f" {nkey} " in f" {okey} ")
    if kind == "display":
        code = currency_code(obj)
        return (code is not None and code == st.get("value")) or str(st.get("setting")) in words(obj)
    if kind in _SETTING_WORDS:  # "no row limit anymore", "the 2023 cutoff", "drop the default sort"
        said = f" {' '.join(words(obj))} "
        if any(f" {w} " in said for w in _SETTING_WORDS[str(kind)]):
            return True
        years = {str(st.get(k) or "")[:4] for k in ("start", "end")} - {""}
        return kind == "window" and bool(years & set(re.findall(r"\b(?:19|20)\d\d\b", obj)))
    if kind != "filter":
        return False
    column = str(st.get("column") or "")
    table = str(st.get("table") or "").split(".")[-1]
    col_words = [w for w in words(column) if w not in ("id",)]
    if col_words and f" {' '.join(col_words)} " in f" {' '.join(words(obj))} ":
        return True  # "stop filtering by country"
    values = st.get("value")
    items = list(values) if isinstance(values, (list, tuple)) else [values]
    named = [v for v in items if mentions_value(obj, v) or _names_a_value_word(obj, v)]
    if not named:
        return False
    kept = [v for v in items if v not in named]
    if not kept or str(st.get("op")) not in ("IN", "NOT IN"):
        return True
    positive = st.get("op") == "IN"
    op, value = (("=" if positive else "<>"), kept[0]) if len(kept) == 1 else (str(st.get("op")), kept)
    return filter_spec(str(st.get("table") or table), column, op, value, dialect)


# the words by which people name a setting that has no value of its own (singular: ``words`` folds plurals)
_SETTING_WORDS = {
    "window": ("date range", "time range", "default range", "window", "time window", "period", "default period",
               "cutoff", "cut off", "date filter", "time filter", "date limit", "year filter"),
    "limit": ("row limit", "limit", "row cap", "cap", "max row", "row count"),
    "sort": ("sort", "sorting", "default sort", "ordering", "sort order", "default order"),
    "columns": ("extra column", "shown together", "column rule"),
}  # fmt: skip


def _names_a_value_word(obj: str, value: object) -> bool:
    """"videos wala filter" names "Protected MPEG-4 video file": a long word of the value, plural folded."""
    said = set(words(obj))
    return isinstance(value, str) and any(len(w) >= 5 and w in said for w in words(value))


def _narrowed_text(content: str, spec: Mapping[str, Any]) -> str:
    return f"{content.rstrip(' .;')} (now: {spec.get('sql')})"


# words that say "withdraw it" rather than what: verbs, fillers, Hindi-English helpers, kinds of memory
_WITHDRAWING = {
    "forget", "drop", "remove", "delete", "clear", "discard", "scrap", "undo", "cancel", "reset", "ignore", "lose",
    "stop", "hata", "hatao", "hatado", "do", "karo", "kar", "kardo", "wala", "wale", "wali", "filter", "rule",
    "setting", "thing", "stuff", "list", "again", "anymore", "any", "more", "longer", "need", "needed", "include",
    "can", "could", "you", "fine", "seeing", "see", "showing", "show", "no", "not", "dont", "don", "t", "have",
    "ha", "that", "this", "it", "please", "now", "use", "using", "all", "bother", "go", "back", "khatam", "band",
    "mat", "nahi", "ok", "okay", "just", "want", "care", "apply", "applying", "default", "i", "im", "m", "we",
    "re", "are", "is", "be", "was", "with", "ab", "bhi", "wapas", "dikhao", "saved", "earlier", "said", "told",
    "what", "about", "on", "one", "those", "these", "there", "here", "get", "rid", "off", "turn", "instead",
    "us", "me", "my", "our", "the", "a", "an", "of", "to", "for", "by", "in", "and", "or", "from", "data", "top",
}  # fmt: skip
_CLAUSE = re.compile(r"\s*(?:[,;]|\s-\s|\.\s|\b(?:because|since|as|but|coz|kyunki|so)\b)\s*", re.IGNORECASE)


def _pointing_clauses(message: str) -> list[str]:
    """The clauses of ``message`` that still name something once the withdrawing words are gone, first first:
    "forget my artists list, I'm not on that roster anymore" -> ["artists", "roster"]."""
    out = []
    for clause in _CLAUSE.split(message):
        kept = [w for w in re.findall(r"[\w'-]+", clause) if w.lower().replace("'", "") not in _WITHDRAWING]
        if kept:
            out.append(" ".join(kept))
    return out


def _best_by_words(phrase: str, memories: list[Memory]) -> Memory | None:
    """The one memory sharing the most of ``phrase``'s words (spellings, plurals and typos folded), when it
    shares at least half of them and no other memory shares as many."""
    said = [w for w in words(phrase) if w not in _WEAK]
    if not said:
        return None
    scored = []
    for m in memories:
        have = words(m.content)
        scored.append((sum(any(same_word(w, h) for h in have) for w in said), m))
    scored.sort(key=lambda x: x[0], reverse=True)
    top = scored[0][0]
    if top == 0 or 2 * top < len(said) or (len(scored) > 1 and scored[1][0] == top):
        return None
    return scored[0][1]


def _names_words(obj: str, content: str) -> bool:
    """All the strong words of the object phrase occur in the memory ("INR" in "show amounts in INR")."""
    strong = [w for w in words(obj) if w not in _WEAK]
    have = set(words(content))
    return bool(strong) and all(w in have for w in strong)
