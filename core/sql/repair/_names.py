"""Name matching for SQL repair: how a dialect resolves an identifier, how close two names are, how to spell one.

Small models misspell names in predictable ways (case, quoting, singular/plural, snake vs camel, a table
prefix, a typo). :func:`name_score` ranks a candidate for one such near-miss; :func:`pick` accepts the best
candidate only when it is good enough and clearly ahead of the next, so a repair is never a guess.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any
from dataclasses import dataclass
from difflib import SequenceMatcher

from sqlglot import exp
from core.dialects import is_postgres_like

__all__ = [
    "COUNTED_THING", "counted_thing", "word_forms",
    "ACCEPT",
    "KEY_WORDS",
    "abbreviates",
    "Candidate",
    "closest",
    "effective",
    "embedded_run",
    "identifier",
    "matches",
    "name_score",
    "is_reserved",
    "needs_quotes",
    "pick",
    "pick_scored",
    "ranked",
    "tokens",
    "words_of",
]

logger = logging.getLogger(__name__)

ACCEPT = 0.6  # lowest score a repair may use
MARGIN = 0.05  # the winner must lead the runner-up by this much

# PostgreSQL reserved key words (cannot be bare column or table names).
_PG_RESERVED = frozenset(
    """all analyse analyze and any array as asc asymmetric authorization binary both case cast check collate
    collation column concurrently constraint create cross current_catalog current_date current_role
    current_schema current_time current_timestamp current_user default deferrable desc distinct do else end
    except false fetch for foreign freeze from full grant group having ilike in initially inner intersect into
    is isnull join lateral leading left like limit localtime localtimestamp natural not notnull null offset on
    only or order outer overlaps placing primary references returning right select session_user similar some
    symmetric system_user table tablesample then to trailing true union unique user using variadic verbose
    when where window with""".split()
)
_SQLITE_RESERVED = frozenset(
    """abort action add after all alter always analyze and as asc attach autoincrement before begin between by
    cascade case cast check collate column commit conflict constraint create cross current current_date
    current_time current_timestamp database default deferrable deferred delete desc detach distinct do drop
    each else end escape except exclude exclusive exists explain fail filter first following for foreign from
    full generated glob group groups having if ignore immediate in index indexed initially inner insert
    instead intersect into is isnull join key last left like limit match materialized natural no not nothing
    notnull null nulls of offset on or order others outer over partition plan pragma preceding primary query
    raise range recursive references regexp reindex release rename replace restrict returning right rollback
    row rows savepoint select set table temp temporary then ties to transaction trigger unbounded union unique
    update using vacuum values view virtual when where window with without""".split()
)
_PG_BARE = re.compile(r"[a-z_][a-z0-9_$]*")
_SQLITE_BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_IRREGULAR = {"people": "person", "children": "child", "men": "man", "women": "woman", "data": "datum"}


def effective(ident: exp.Identifier | str, dialect: str) -> str:
    """The name the database sees: PostgreSQL folds unquoted names to lower case."""
    if isinstance(ident, str):
        return ident.lower() if dialect == "postgres" else ident
    if dialect == "postgres" and not ident.quoted:
        return ident.this.lower()
    return ident.this


def matches(ident: exp.Identifier | str, name: str, dialect: str) -> bool:
    """Does ``ident`` as written resolve to the real ``name`` (SQLite: case-insensitive)?"""
    if dialect == "postgres":
        return effective(ident, dialect) == name
    text = ident if isinstance(ident, str) else ident.this
    return text.lower() == name.lower()


def is_reserved(name: str, dialect: str) -> bool:
    """Is ``name`` a key word the dialect will not take as a bare name?"""
    return name.lower() in (_PG_RESERVED if is_postgres_like(dialect) else _SQLITE_RESERVED)


def needs_quotes(name: str, dialect: str) -> bool:
    if dialect == "postgres":
        return not _PG_BARE.fullmatch(name) or name in _PG_RESERVED
    return not _SQLITE_BARE.fullmatch(name) or is_reserved(name, dialect)  # DuckDB: any case, PostgreSQL's words


def identifier(name: str, dialect: str) -> exp.Identifier:
    """``name`` spelled exactly as the schema has it, quoted only when the dialect needs it."""
    return exp.Identifier(this=name, quoted=needs_quotes(name, dialect))


def _singular(word: str) -> str:
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word[:-1] in KEY_WORDS and word.endswith("s"):
        return word[:-1]  # "ids", "nos"
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ses", "xes", "ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return _IRREGULAR.get(word[:-1], word[:-1])  # "peoples": a plural made plural again
    return word


# Words a key column ends in, one convention or another: ``student_no`` and ``student_id`` name one column.
KEY_WORDS = frozenset({"id", "no", "num", "nr", "number", "code", "key"})
# Words for the one column that labels a row: ``title`` asked of a table whose label is ``name``.
_LABEL_WORDS = frozenset({"name", "title", "label"})
_AGENT_ENDINGS = frozenset({"er", "or", "ers", "ors", "ee", "ees", "ist"})  # review / reviewer: another thing
WHEN_WORDS = frozenset({"at", "on", "date", "dt", "time", "ts", "timestamp", "datetime"})  # the last word of a
# column saying when something happened
# Words a column name may carry after its subject without changing it: ``cylinders_name`` for ``cylinders``.
_TRAILING = frozenset({"name", "value", "val", "count", "number", "num", "amount", "text"})
# A unit of measure a writer adds to a number's name (``sale_price_dollars``, ``duration_minutes``): the same value,
# so the same column. Never one that scales it (cents, thousands).
_UNITS = frozenset({"usd", "dollars", "dollar", "inr", "rupees", "rs", "eur", "euros", "gbp", "seconds", "secs", "sec",
                    "minutes", "mins", "hours", "hrs", "days", "km", "kms", "miles", "kg", "kgs", "lbs", "pct",
                    "percent", "percentage"})


_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def tokens(name: str) -> tuple[str, ...]:
    """Words of a snake_case / camelCase / PascalCase name, lower case and singular."""
    return tuple(_singular(w.lower()) for w in _WORD.findall(name))


def embedded_run(wanted: str, candidate: str) -> tuple[int, int] | None:
    """Where ``candidate``'s whole name is a run of ``wanted``'s words with more words around it (``flight_table``,
    ``tbl_sbTicker``, ``course_offering_info``): the run as (first word, past the last), or None. Singular and
    plural are one word; the words are compared whole, never a word's letters."""
    words = words_of(wanted)
    whole = _singular(_norm(candidate))
    for i in range(len(words)):
        for j in range(i + 1, len(words) + 1):
            if (i, j) != (0, len(words)) and _singular("".join(words[i:j])) == whole:
                return i, j
    return None


COUNTED_THING = re.compile(r"\b(?:number|count|no\.?|numbers|counts)\s+of\s+(?:(?:the|all|distinct|unique|different|"
                           r"individual)\s+)?([a-z]+)(?:['’]s?)?(?:\s+([a-z]+))?|\bhow\s+many\s+(?:(?:distinct|unique|"
                           r"different)\s+)?([a-z]+)(?:['’]s?)?(?:\s+([a-z]+))?", re.IGNORECASE)  # "number of authors",
# "how many shops", "the number of the customer's orders" (a possessive: the noun after it)
_NOT_A_NOUN = frozenset({"in", "for", "per", "by", "of", "on", "at", "from", "with", "that", "which", "who", "whose",
                         "are", "is", "was", "were", "do", "does", "did", "have", "has", "had", "each", "every",
                         "there", "and", "or", "to", "the", "a", "an", "across", "between", "made", "placed"})


def counted_thing(said: re.Match[str]) -> str:
    """The noun a :data:`COUNTED_THING` match counts: the head of "customer orders" (orders), else its one word."""
    first, second = (said.group(1), said.group(2)) if said.group(1) else (said.group(3), said.group(4))
    return (second if second and second.lower() not in _NOT_A_NOUN and second.lower().endswith("s") else first).lower()


def word_forms(word: str) -> set[str]:
    """The singular forms a plural ``word`` may have (``courses``: course; ``businesses``: business; ``cities``:
    city), as :func:`tokens` writes a name's words."""
    word = word.lower()
    stems = [word, word[:-1], word[:-2], word[:-3] + "y" if word.endswith("ies") else word]
    return {form for stem in stems if len(stem) > 2 for form in tokens(stem)}


def words_of(name: str) -> list[str]:
    """The written words of a name, lower case, as written (not made singular)."""
    return [w.lower() for w in _WORD.findall(name)]


def abbreviates(qualifier: str, table_name: str) -> bool:
    """Whether a qualifier names a table: its name (singular or plural), its first letters, or the initials of its
    words (``da`` for domain_author); a trailing number is an instance (``a1``, ``da2``)."""
    q = re.sub(r"\d+$", "", qualifier).lower()
    if not q:
        return False
    words = [w for w in re.split(r"_|(?<=[a-z])(?=[A-Z])", table_name) if w]
    return (table_name.lower().startswith(q) or "".join(w[0] for w in words).lower() == q
            or tokens(qualifier) == tokens(table_name))


def _norm(name: str) -> str:
    return re.sub(r"[^0-9a-z]", "", name.lower())


def _distance(a: str, b: str) -> int:
    """Optimal-string-alignment edit distance (a swap of two letters counts once)."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


def _subsequence(short: str, long: str) -> bool:
    it = iter(long)
    return all(ch in it for ch in short)


def similar_words(a: str, b: str) -> bool:
    """Two words that may be one: equal, an abbreviation (``cust``/``customer``, ``qty``/``quantity``,
    ``dept``/``department``: same first letter, the shorter's three or four letters in order in the longer; two
    a
    longer "abbreviation" is a word of its own, as ``paper`` in ``paperkeyphrase``), one stem with endings of up to
    three letters (``depart``/``departure``; never the one who does it, ``reviewer`` for ``review``), or a one-letter
    typo in words of four letters or more."""
    if a == b:
        return True
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    if short.isdigit() or long.isdigit():
        return False
    if 3 <= len(short) <= 4 < len(long) and short[0] == long[0] and _subsequence(short, long) and (
            short[1] == long[1] or not set(short) & set("aeiou")):
        return True  # cust, dept, qty, mgr — never a word of its own (area is no abbreviation of abbreviation)
    stem = len(_common_prefix(short, long))
    if stem >= 5 and len(short) - stem <= 3 and len(long) - stem <= 3 and not {
            short[stem:], long[stem:]} & _AGENT_ENDINGS:
        return True  # depart and departure, created and creation: one stem, another ending (not review/reviewer)
    return len(short) >= 4 and _distance(a, b) == 1


def _common_prefix(a: str, b: str) -> str:
    n = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return a[:n]


def _aligned(wanted: tuple[str, ...], cand: tuple[str, ...]) -> tuple[int, int, int]:
    """(matched words, of which abbreviations or typos, unmatched words of ``cand``): each word of ``wanted``
    takes one word of ``cand``, equal ones first."""
    free = list(cand)
    matched = fuzzy = 0
    pending = []
    for w in wanted:
        if w in free:
            free.remove(w)
            matched += 1
        else:
            pending.append(w)
    for w in pending:
        hit = next((c for c in free if similar_words(w, c)), None)
        if hit is not None:
            free.remove(hit)
            matched += 1
            fuzzy += 1
    return matched, fuzzy, len(free)


def _piece_once(name: str) -> set[str]:
    """``name`` with one piece of three letters or more that stands twice in a row written once (``citatcitation_num``:
    ``citation_num``; ``publicatiocation``: ``publication``), each way it can be."""
    return {name[:i] + name[i + n:] for n in range(3, len(name) // 2 + 1) for i in range(len(name) - 2 * n + 1)
            if name[i:i + n] == name[i + n:i + 2 * n]} if len(name) <= 80 else set()


def name_score(wanted: str, candidate: str, context: Iterable[str] = ()) -> float:
    """How surely ``candidate`` is the name meant by ``wanted`` (1.0 same, below ACCEPT: not a match).

    ``context`` holds words a column name may carry or drop, e.g. the words of its table's name and the prefix
    its table's columns share (``customer_name`` on customers means ``name``; ``sbCustomerName`` on sbCustomer,
    whose columns start ``sbCust``, means ``sbCustName``).
    """
    if wanted == candidate:
        return 1.0
    if wanted.lower() == candidate.lower():
        return 0.98
    nw, nc = _norm(wanted), _norm(candidate)
    if not nw or not nc:
        return 0.0
    if nw == nc:
        return 0.95
    tw, tc = tokens(wanted), tokens(candidate)
    if tw and tw == tc or _singular(nw) == _singular(nc):  # sbCustCountries -> sbcustcountry (folded, one word)
        return 0.9
    if candidate.lower() in _piece_once(wanted.lower()):  # citatcitation_num: a streamed piece delivered twice
        return 0.9
    best = 0.0
    ctx = {_singular(c.lower()) for c in context}
    tw, tc = _run_together(tw, tc, nw, nc, ctx)
    rw = tuple(t for t in tw if t not in ctx and not any(similar_words(t, c) for c in ctx)) or tw  # emp_id
    rc = tuple(t for t in tc if t not in ctx) or tc
    if ctx and rw == rc:
        best = 0.85
    matched, fuzzy, extra = _aligned(rw, rc)
    if rw and matched == len(rw) and extra == 0:
        best = max(best, 0.8 if fuzzy else 0.85)  # sbTxCustomerId -> sbTxCustId; qty -> quantity
    sw, sc = set(tw), set(tc)
    pointer = len(tc) == 1 and tc[0] in KEY_WORDS and len(rw) > 1  # vendor_id on payments: another table's key,
    # never the row's own id (the table's own name, customer_id on customers, is its context: rw is then "id")
    if sw and sc and (sw < sc or sc < sw) and tw[-1] == tc[-1] and not pointer:
        dropped = sw - sc
        best = max(best, 0.7 if not dropped or len(rw) <= len(rc) else 0.66)  # full_name -> name, id -> customer_id
    elif rw and matched == len(rw) and extra and len(rw) >= 1 and not fuzzy:
        best = max(best, 0.64)  # salary -> salary_amount, phone -> phone_number: every word kept, one added
    if len(tw) == len(tc) and tw[:-1] == tc[:-1] and {tw[-1], tc[-1]} <= KEY_WORDS:
        best = max(best, 0.8)  # student_no -> student_id
    if len(tw) == len(tc) >= 2 and _aligned(tw[:-1], tc[:-1])[0] == len(tw) - 1 and {tw[-1], tc[-1]} <= WHEN_WORDS:
        best = max(best, 0.66)  # created_date -> created_at, sale_at -> sale_date: when it happened
    if len(rw) == len(rc) == 1 and {rw[0], rc[0]} <= _LABEL_WORDS:
        best = max(best, 0.66)  # title -> name: the row's label, however it is called
    if len(tw) > len(tc) >= 1 and tw[: len(tc)] == tc and set(tw[len(tc):]) <= _TRAILING | _UNITS:
        best = max(best, 0.66)  # cylinders_name -> cylinders (a rival column "name" ties it: see _with_rivals);
        # sale_price_dollars -> sale_price
    common = set(rw) & set(rc)
    resid_w = "".join(t for t in rw if t not in common) or nw
    resid_c = "".join(t for t in rc if t not in common) or nc
    dist = _distance(resid_w, resid_c)
    shortest = min(len(resid_w), len(resid_c))
    if any(resid_w == resid_c + e or resid_c == resid_w + e for e in _AGENT_ENDINGS):
        dist = 99  # review and reviewer: two letters apart, two things
    if dist == 1 and shortest >= 3:
        best = max(best, 0.68)
    elif dist == 2 and shortest >= 6:
        best = max(best, 0.62)
    ratio = SequenceMatcher(None, nw, nc).ratio()
    if ratio >= 0.85 and shortest >= 4:
        best = max(best, 0.5 + (ratio - 0.85) * 1.2)
    return best


def _run_together(tw: tuple[str, ...], tc: tuple[str, ...], nw: str, nc: str,
                  ctx: set[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The words of a name written run together in lower case (``sbcustid``, ``saleid``), read by the other name's
    words (``sbCustomerId``: sb, cust, id) or its table's and its own (``saleid`` for sales' ``id``): each piece the
    word or an abbreviation of it (``similar_words``). The names' own words when no such reading exists."""
    if len(tc) == 1 < len(tw) and (pieces := _segment(nc, tw)):
        return tw, pieces
    if len(tw) == 1 < len(tc) and (pieces := _segment(nw, tc)):
        return pieces, tc
    if len(tw) == 1 and len(tc) == 1 and nw != nc:
        for word in sorted(ctx):
            if pieces := _segment(nw, (word, *tc)):
                return pieces, tc
    return tw, tc


def _segment(run: str, words: tuple[str, ...]) -> tuple[str, ...] | None:
    """``run`` cut into ``len(words)`` pieces, each equal to its word or an abbreviation of it, or None."""
    if not words:
        return () if not run else None
    if len(words) > 6 or len(run) > 60:
        return None
    for end in range(1, len(run) + 1):
        piece = run[:end]
        if piece == words[0] or similar_words(piece, words[0]):
            rest = _segment(run[end:], words[1:])
            if rest is not None:
                return (words[0] if piece == words[0] else piece, *rest)
    return None


# How close in meaning a name is to each of some names (a sentence encoder's cosine, -1..1): it orders the columns an
# error suggests (``score``: rating first), never a repair by itself — on a held-out set of invented names, taking
# the closest made one wrong answer for every three right (bench.column_meaning).
Meaning = Callable[[str, Sequence[str]], Sequence[float]]
# The one column of a table that the question's words name for a name the table lacks (``transaction_date`` where
# the question speaks of sales: ``sale_date``), or None; given by the caller, who has the question.
GUESSED = " (a guess: the model is asked first)"  # how the note of any other reading that silences an error ends
Named = Callable[[Any, str], str | None]


def suggested(wanted: str, names: Sequence[str], meaning: Meaning, n: int = 2) -> list[str]:
    """The ``n`` names closest to ``wanted`` in meaning, best first (their words, as the encoder reads them)."""
    unique = list(dict.fromkeys(names))
    if not unique:
        return []
    try:
        scores = meaning(" ".join(tokens(wanted)), [" ".join(tokens(u)) for u in unique])
    except Exception:  # noqa: BLE001 - suggestions are a courtesy: an encoder that fails leaves the spelling ones
        logger.warning("column suggestions by meaning failed", exc_info=True)
        return []
    return [u for _, u in sorted(zip(scores, unique, strict=True), key=lambda p: -p[0])[:n]]


@dataclass(frozen=True)
class Candidate:
    """One possible meaning of a misspelt name; ``target`` is whatever the caller needs back."""

    name: str
    target: object
    context: tuple[str, ...] = ()


def ranked(wanted: str, candidates: Sequence[Candidate]) -> list[tuple[float, Candidate]]:
    scored = [(name_score(wanted, c.name, c.context), c) for c in candidates]
    scored = _with_rivals(wanted, scored)
    scored.sort(key=lambda sc: -sc[0])
    return scored


def _with_rivals(wanted: str, scored: list[tuple[float, Candidate]]) -> list[tuple[float, Candidate]]:
    """``city_name`` on a table with both ``name`` and ``city``: matching ``name`` drops the word "city", which is
    itself a column of the same table, so ``city`` is as likely meant. Such a rival gets the same score, and the
    tie makes :func:`pick_scored` choose neither (the model is shown both) instead of silently taking one.
    Words of the table's own name are not a rival (``customer_name`` on customers means ``name``)."""
    words = tokens(wanted)
    out = list(scored)
    for score, cand in scored:
        if score < ACCEPT or not words:
            continue
        ctx = {_singular(c.lower()) for c in cand.context}
        have = tokens(cand.name)
        dropped = tuple(w for w in words if w not in have and w not in ctx)
        if not dropped:
            continue
        for i, (other_score, other) in enumerate(out):
            if other is not cand and other.target is cand.target and tokens(other.name) == dropped:
                if other_score < score:
                    out[i] = (score, other)
    return out


def pick(wanted: str, candidates: Sequence[Candidate]) -> tuple[Candidate | None, list[str]]:
    """The one candidate ``wanted`` surely means, or None; also the closest names, for an error message.

    Candidates with the same ``name`` count as one name (the caller decides whether that is ambiguous).
    """
    return pick_scored(wanted, ranked(wanted, candidates), [c.name for c in candidates])


def pick_scored(
    wanted: str, scored: list[tuple[float, Candidate]], names: Sequence[str]
) -> tuple[Candidate | None, list[str]]:
    """:func:`pick` over scores the caller computed (best first)."""
    scored = sorted(scored, key=lambda sc: -sc[0])
    closest_names = closest(wanted, names)
    if not scored or scored[0][0] < ACCEPT:
        return None, closest_names
    best_score, best = scored[0]
    for score, cand in scored[1:]:
        if cand.name != best.name:
            if best_score - score < MARGIN:
                logger.debug("ambiguous repair of %s: %s vs %s", wanted, best.name, cand.name)
                tied = [c.name for sc, c in scored if best_score - sc < MARGIN]
                return None, list(dict.fromkeys([*tied, *closest_names]))[: max(3, len(tied))]
            break
    return best, closest_names


def closest(wanted: str, names: Iterable[str], n: int = 3) -> list[str]:
    """The ``n`` names nearest ``wanted``, best first, for an error message."""
    scored = sorted(
        set(names), key=lambda c: (-name_score(wanted, c), -SequenceMatcher(None, wanted.lower(), c.lower()).ratio())
    )
    return scored[:n]
