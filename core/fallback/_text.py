"""Tokens and phrase matching for the rule-based fallback: every word of a question must be explained.

Words are compared whole (``country`` never contains ``count``); schema names are split on ``_``, ``-`` and
camelCase and compared on a crude singular stem so ``orders`` matches ``order`` and ``countries`` ``country``.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import date

from core.fallback._inflect import singular
from core.schema import Column, Schema, Table

__all__ = [
    "KEYWORDS",
    "Matcher",
    "Meaning",
    "Mention",
    "Token",
    "is_date_type",
    "is_numeric_type",
    "is_text_type",
    "split_name",
    "stem",
    "tokenize",
]

logger = logging.getLogger(__name__)

_TOKEN_RE = re.compile(
    r"(?P<date>\b\d{4}-\d{2}-\d{2}\b)"
    r"|(?<![\w'])'(?P<sq>[^']+)'(?![\w])"
    r'|"(?P<dq>[^"]+)"'
    r"|\$?(?P<num>\d[\d,]*(?:\.\d+)?)(?![\w])"
    r"|(?P<word>[A-Za-z][A-Za-z0-9_]*)(?:'s|')?"
    r"|(?P<op>>=|<=|!=|<>|=|<|>)"
    r"|(?P<punct>[,.?!;:()\-])"
    r"|(?P<other>\S)"
)
_CAMEL_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


@dataclass(frozen=True)
class Token:
    text: str  # lower-case surface form
    kind: str  # "word" | "number" | "date" | "quoted" | "op" | "other"
    stem: str = ""
    number: float | None = None
    day: date | None = None
    raw: str = ""  # original text of a quoted literal


def split_name(name: str) -> list[str]:
    """``total_amount`` / ``sbCustName`` / ``order-items`` -> lower-case words."""
    words: list[str] = []
    for part in re.split(r"[_\-\s.]+", name):
        words.extend(w.lower() for w in _CAMEL_RE.findall(part))
    return [w for w in words if w]


def stem(word: str) -> str:
    """The matching key of a word: its singular, so ``orders``/``order`` and ``people``/``person`` meet."""
    return singular(word)


_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "twelve": 12,
}  # fmt: skip


def tokenize(question: str) -> list[Token]:
    """Split a question into tokens; punctuation that carries no meaning is dropped."""
    out: list[Token] = []
    for m in _TOKEN_RE.finditer(question):
        if m.group("date"):
            try:
                day = date.fromisoformat(m.group("date"))
            except ValueError:
                out.append(Token(m.group("date"), "other"))
                continue
            out.append(Token(m.group("date"), "date", day=day))
        elif m.group("sq") is not None or m.group("dq") is not None:
            raw = m.group("sq") if m.group("sq") is not None else m.group("dq")
            out.append(Token(raw.lower(), "quoted", raw=raw))
        elif m.group("num"):
            text = m.group("num").replace(",", "")
            try:
                out.append(Token(text, "number", number=float(text)))
            except ValueError:
                out.append(Token(text, "other"))
        elif m.group("word"):
            # Only underscores split a typed word: camelCase splitting would turn "IDs" into "i ds".
            for w in (p for p in m.group("word").lower().split("_") if p):
                if w.isdigit():
                    out.append(Token(w, "number", number=float(w)))
                elif w in _NUMBER_WORDS:
                    out.append(Token(w, "number", stem=w, number=float(_NUMBER_WORDS[w])))
                else:
                    out.append(Token(w, "word", stem=stem(w)))
        elif m.group("op"):
            out.append(Token(m.group("op"), "op"))
        elif m.group("punct"):
            continue
        else:
            out.append(Token(m.group("other"), "other"))
    return out


def is_numeric_type(type_: str) -> bool:
    t = type_.lower()
    return any(k in t for k in ("int", "numeric", "decimal", "real", "double", "float", "money", "number"))


def is_date_type(type_: str) -> bool:
    t = type_.lower()
    return t.startswith(("date", "timestamp")) or t in ("datetime", "timestamptz")


def is_text_type(type_: str) -> bool:
    t = type_.lower()
    return any(k in t for k in ("char", "text", "string", "clob", "enum")) or t in ("name", "citext")


@dataclass(frozen=True)
class Meaning:
    """One reading of a span: a table, a column, a column value, or a keyword (kw, arg)."""

    kind: str  # "table" | "column" | "value" | "kw"
    table: Table | None = None
    column: Column | None = None
    value: str | None = None
    kw: str = ""
    arg: str = ""


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    meanings: tuple[Meaning, ...]

    def of(self, kind: str) -> list[Meaning]:
        return [m for m in self.meanings if m.kind == kind]

    def kw(self, kw: str) -> Meaning | None:
        return next((m for m in self.meanings if m.kind == "kw" and m.kw == kw), None)


def _kw(spec: dict[str, list[str]]) -> dict[tuple[str, ...], list[tuple[str, str]]]:
    out: dict[tuple[str, ...], list[tuple[str, str]]] = {}
    for key, phrases in spec.items():
        kw, _, arg = key.partition(":")
        for p in phrases:
            out.setdefault(tuple(p.split()), []).append((kw, arg))
    return out


# Keywords are matched on the surface form (not stems); each is (kind, argument).
KEYWORDS = _kw(
    {
        "count": ["how many", "number of", "count", "count of", "total number of", "count the"],
        "howmuch": ["how much"],
        "list": ["list", "show", "display", "give", "find", "get", "return", "what are", "retrieve", "fetch",
                 "see", "view"],
        "which": ["which", "who"],
        "what": ["what", "what is", "what was"],
        "agg:sum": ["sum", "sum of", "sum up", "add up"],
        "total": ["total", "combined", "overall"],
        "agg:avg": ["average", "avg", "mean"],
        "agg:max": ["maximum", "max", "highest", "largest", "biggest"],
        "agg:min": ["minimum", "min", "lowest", "smallest"],
        "distinct": ["distinct", "unique", "different"],
        "top:desc": ["top"],
        "top:asc": ["bottom"],
        "top:first": ["first"],
        "rank:desc": ["most", "highest", "largest", "biggest", "greatest"],
        "rank:asc": ["fewest", "least", "lowest", "smallest"],
        "rankdate:desc": ["most recent", "most recently", "latest", "newest"],
        "rankdate:asc": ["oldest", "earliest"],
        "neg": ["without", "no", "not", "never", "with no", "with zero", "zero"],
        "group": ["per", "by", "each", "for each", "for every", "in each", "grouped by", "group by",
                  "broken down by", "split by", "breakdown by", "across"],
        "cmp:>": ["more than", "greater than", "over", "above", "exceeding", "exceeds", "higher than",
                  "larger than", "bigger than", ">"],
        "cmp:>=": ["at least", "no less than", "not less than", "or more", ">="],
        "cmp:<": ["less than", "under", "below", "lower than", "smaller than", "fewer than", "<"],
        "cmp:<=": ["at most", "no more than", "not more than", "up to", "or less", "<="],
        "cmp:=": ["equal to", "equals", "exactly", "=", "is equal to"],
        "between": ["between"],
        "and": ["and", "as well as"],
        "or": ["or"],
        "timeunit:day": ["day", "daily"],
        "timeunit:week": ["week", "weekly"],
        "timeunit:month": ["month", "monthly"],
        "timeunit:quarter": ["quarter", "quarterly"],
        "timeunit:year": ["year", "yearly", "annually", "annual"],
        "stop": ["the", "a", "an", "of", "in", "on", "at", "to", "from", "with", "for", "did", "do", "does",
                 "is", "are", "was", "were", "be", "been", "that", "whose", "there", "their", "its", "it",
                 "they", "them", "all", "me", "please", "i", "we", "you", "our", "my", "your", "have", "has",
                 "had", "having", "place", "placed", "make", "made", "tell", "can", "could", "would",
                 "currently", "those", "these", "any", "where", "located", "based", "in total", "so far",
                 "altogether", "records", "rows", "entries", "us", "of all"],
    }
)

_MAX_PHRASE = 6
# Leading table-name prefixes that carry no meaning (``tbl_orders``, ``sbCustomer``).
_NOISE_PREFIX_LEN = 2


def _schema_lexicon(schema: Schema) -> dict[tuple[str, ...], list[Meaning]]:
    """Stemmed phrase -> meanings: table names, column names (with and without the table prefix), values."""
    lex: dict[tuple[str, ...], list[Meaning]] = {}

    def add(words: list[str], meaning: Meaning) -> None:
        key = tuple(stem(w) for w in words)
        if not key:
            return
        bucket = lex.setdefault(key, [])
        if meaning not in bucket:
            bucket.append(meaning)

    for t in schema.tables:
        tw = split_name(t.name)
        variants = [tw]
        if len(tw) > 1 and len(tw[0]) <= _NOISE_PREFIX_LEN:
            variants.append(tw[1:])
        for v in variants:
            add(v, Meaning("table", table=t))
        if len(tw) > 1 and "_" not in t.name:  # a camelCase name typed as one word: "sbCustomer"
            add([t.name.lower()], Meaning("table", table=t))
        table_stems = [[stem(w) for w in v] for v in variants]
        for c in t.columns:
            cw = split_name(c.name)
            cvars = [cw]
            if len(cw) > 1 and len(cw[0]) <= _NOISE_PREFIX_LEN:
                cvars.append(cw[1:])
            for cv in list(cvars):
                cs = [stem(w) for w in cv]
                for ts in table_stems:
                    if len(cs) > len(ts) and cs[: len(ts)] == ts and cv[len(ts) :] != ["id"]:
                        cvars.append(cv[len(ts) :])
            for cv in list(cvars):
                for v in variants:  # "customer country" for customers.country
                    if [stem(w) for w in cv[: len(v)]] != [stem(w) for w in v]:
                        cvars.append(v + cv)
            for cv in cvars:
                add(cv, Meaning("column", table=t, column=c))
            if len(cw) > 1 and "_" not in c.name:
                add([c.name.lower()], Meaning("column", table=t, column=c))
            for value in c.value_hints:
                vw = [w for w in re.split(r"[\s_\-]+", value.strip().lower()) if w]
                if vw:
                    add(vw, Meaning("value", table=t, column=c, value=value))
    return lex


class Matcher:
    """Greedy longest match of schema phrases and keywords at a token position."""

    def __init__(self, schema: Schema) -> None:
        self._lex = _schema_lexicon(schema)

    def match_at(self, tokens: list[Token], i: int) -> Mention | None:
        """The longest phrase starting at ``i``, with every reading of it; ``None`` if nothing explains it.

        Where a schema phrase and a keyword are equally long, both readings are kept and the planner picks
        from context.
        """
        for length in range(min(_MAX_PHRASE, len(tokens) - i), 0, -1):
            span = tokens[i : i + length]
            if any(t.kind not in ("word", "op") for t in span):
                continue
            meanings: list[Meaning] = list(self._lex.get(tuple(t.stem or t.text for t in span), []))
            for kw, arg in KEYWORDS.get(tuple(t.text for t in span), []):
                meanings.append(Meaning("kw", kw=kw, arg=arg))
            if meanings:
                return Mention(i, i + length, tuple(meanings))
        return None
