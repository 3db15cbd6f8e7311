"""The pieces a condition is made of: number and comparison patterns, tokens with their places, filler words,
and one atom (a condition on one column) with its SQL."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from core.memory.enforcement import ordered_bounds, like_node, sql_literal
from core.memory.forms._schema_match import OP_BUILDERS, column_expr, is_numeric
from core.memory.kernel import STOP, normalize, singular
from core.schema import Column, Table

__all__ = ["CMP_OPS", "CMP_RE", "FILLER", "INVERT", "Atom", "number_of", "numbers_in"]

CMP_OPS: dict[str, str] = {
    "no less than": ">=", "not less than": ">=", "at least": ">=", "minimum of": ">=", "min": ">=",
    ">=": ">=", "no more than": "<=", "not more than": "<=", "at most": "<=", "up to": "<=",
    "maximum of": "<=", "max": "<=", "<=": "<=", "more than": ">", "greater than": ">", "higher than": ">",
    "larger than": ">", "bigger than": ">", "exceeding": ">", "exceeds": ">", "exceed": ">", "over": ">",
    "above": ">", "beyond": ">", "less than": "<", "fewer than": "<", "lower than": "<", "smaller than": "<",
    "under": "<", "below": "<", "equal to": "=", "equals": "=", "exactly": "=", "<>": "<>", "!=": "<>",
    ">": ">", "<": "<", "=": "=", "longer than": ">", "longr than": ">", "shorter than": "<",
}  # fmt: skip
NUM = r"[$€£₹]?\s?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s?(?P<mult>k|m|thousand|million|lakhs?|crores?)?\b"
CMP_RE = re.compile(
    r"(?P<cmp>" + "|".join(re.escape(p) if not p[0].isalpha() else r"\b" + re.escape(p) + r"\b"
                           for p in sorted(CMP_OPS, key=len, reverse=True)) + r")\s*(?:of\s+)?" + NUM,
    re.IGNORECASE,
)  # fmt: skip
_SUFFIX_RE = re.compile(NUM + r"\s*(?P<cmp>or more|or above|and above|or higher|or over|or less|or below|"
                        r"and below|or fewer|or under|\+)", re.IGNORECASE)  # fmt: skip
_BETWEEN_RE = re.compile(r"\b(?:between|from)\s+" + NUM.replace("num>", "lo>").replace("mult>", "lm>") + r"\s*(?:and|to|-)\s*"
                         + NUM.replace("num>", "hi>").replace("mult>", "hm>"), re.IGNORECASE)  # fmt: skip
EMAIL_RE = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_DOMAIN_RE = re.compile(r"@[\w-]+(?:\.[\w-]+)+|\b[\w-]+\.(?:com|org|net|io|co|in|de|uk|edu)\b", re.IGNORECASE)
_AFFIX_RE = re.compile(r"\b(?P<how>start(?:s|ing)?\s+with|begin(?:s|ning)?\s+with|end(?:s|ing)?\s+(?:with|in)|"
                       r"contain(?:s|ing)?|like)\s+[\"']?(?P<pat>[^\s\"',]+(?:'[^\s\"',]+)*)[\"']?", re.IGNORECASE)  # fmt: skip
_MULT = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "lakh": 1e5, "lakhs": 1e5, "crore": 1e7,
         "crores": 1e7}  # fmt: skip
INVERT = {"=": "<>", "<>": "=", ">": "<=", ">=": "<", "<": ">=", "<=": ">", "IN": "NOT IN", "NOT IN": "IN",
          "LIKE": "NOT LIKE", "NOT LIKE": "LIKE", "BETWEEN": "NOT BETWEEN", "NOT BETWEEN": "BETWEEN"}  # fmt: skip
_BOUNDARY = re.compile(r"[;,!?]|\.\s|\s[-–—]+\s|\b(?:but|however|and|or|that|which|who|whose|where|with|having|while|"
                       r"though)\b",
                       re.IGNORECASE)
_TOK = re.compile(r"[A-Za-z0-9]+")
FILLER = STOP | {singular(w) for w in {
    "one", "those", "these", "them", "they", "their", "who", "which", "whose", "where", "have", "ha", "had",
    "was", "were", "been", "being", "do", "doe", "did", "placed", "made", "having", "than", "more", "less",
    "at", "least", "most", "over", "under", "above", "below", "always", "please", "default", "whenever",
    "consider", "considered", "count", "counted", "treat", "mean", "means", "when", "if", "status", "value",
    "just", "exclude", "excluding", "except", "not", "never", "without", "hide", "ignore", "only", "any",
    "also", "include", "including", "want", "don", "t", "dont", "every", "each", "whose", "there", "here",
    "everything", "thing", "everyone", "record", "row", "result", "data", "then", "else", "like", "such",
    "between", "into", "out", "up", "greater", "fewer", "lower", "higher", "exactly", "equal", "number",
    "focus", "care", "about", "restrict", "limit", "keep", "leave", "interested", "anymore", "longer", "mat",
    "nahi", "karna", "karo", "kabhi", "hai", "ho", "ka", "ki", "ke", "mein", "se", "chahiye", "do", "sirf",
    "bhi", "ye", "yeh", "woh", "wo", "hum", "mujhe", "exclusively", "instead", "rather", "now", "on", "anyone",
    "anything", "something", "someone", "whatever", "anybody",
    "period", "call", "called", "refer", "defined", "define", "where", "whereas", "i", "we", "our", "us",
    "who", "ever", "either", "neither", "nor", "both", "also", "too", "still", "yet", "should", "must", "can",
    "will", "would", "could", "may", "might", "get", "got", "see", "look", "looking", "list", "paid", "pay",
    "using", "via", "through", "bought", "ordered", "based", "located", "living", "live", "coming", "come",
    "showing", "shown", "displaying", "display", "from", "belonging", "belong", "whose", "marked", "set",
    "flagged", "state", "category", "type", "kind", "people", "user", "users", "client", "clients", "buyer",
    "cases", "case", "entry", "thank", "thanks", "kindly", "pls", "plz", "going", "forward", "onward",
    "actually", "okay", "ok", "hey", "so", "well", "basically", "really", "report", "query", "answer",
    "analysis", "dashboard", "future", "again", "sorry", "correction", "change", "changed", "switch", "update",
    "make", "sure", "let", "use", "apply", "applied", "filter", "filtered", "time", "from", "onward", "ahead",
    "forget", "hain", "wala", "har", "jagah", "ab", "dena", "lena", "matter", "everything", "consider", "ko", "par", "pe", "toh", "hi", "jo", "e", "mail", "mails", "bhai", "yaar", "na",
    "onwards", "henceforth", "but", "however", "though", "although", "while", "sab", "saare", "sare", "all", "karo", "kar", "dena", "rakho", "rakhna",
}}  # fmt: skip



@dataclass
class Atom:
    table: Table
    expr: exp.Expression  # boolean condition on ``table`` (columns qualified)
    span: tuple[int, int]  # token indexes
    column: Column | None = None
    op: str = "="
    value: Any = None
    unknown: list[str] = field(default_factory=list)
    negated: bool = False
    numeric: bool = False
    fixed: bool = False  # its own polarity is inside it ("with no orders")


def number_of(m: re.Match[str], num: str = "num", mult: str = "mult") -> int | float:
    value = float(m.group(num).replace(",", "")) * _MULT.get((m.group(mult) or "").lower(), 1.0)
    return int(value) if value.is_integer() else value


def numbers_in(text: str) -> list[float]:
    """Every number ``text`` names, multipliers applied ("20k", "1 lakh", "10 se zyada"), in order."""
    return [float(number_of(m)) for m in re.finditer(NUM, normalize(text), re.IGNORECASE)]


@dataclass
class _Text:
    text: str
    toks: list[tuple[str, int, int]]  # (singular lower word, start, end)

    @property
    def words(self) -> list[str]:
        return [t[0] for t in self.toks]

    def tok_span(self, start: int, end: int) -> tuple[int, int]:
        idx = [i for i, (_w, s, e) in enumerate(self.toks) if s < end and e > start]
        return (idx[0], idx[-1] + 1) if idx else (0, 0)

    def gap(self, i: int) -> str:
        """The characters between token i-1 and token i."""
        return self.text[self.toks[i - 1][2] : self.toks[i][1]] if 0 < i < len(self.toks) else ""


def _tokens(text: str) -> _Text:
    text = re.sub(r"n't\b", " not", normalize(text))
    return _Text(text, [(singular(m.group().lower()), m.start(), m.end()) for m in _TOK.finditer(text)])


def _cond(col: exp.Expression, op: str, value: Any) -> exp.Expression:
    if op in ("IN", "NOT IN"):
        node: exp.Expression = exp.In(this=col, expressions=[sql_literal(v) for v in value])
        return exp.Not(this=node) if op == "NOT IN" else node
    if op in ("BETWEEN", "NOT BETWEEN"):
        low, high = ordered_bounds(value[0], value[1])
        node = exp.Between(this=col, low=sql_literal(low), high=sql_literal(high))
        return exp.Not(this=node) if op == "NOT BETWEEN" else node
    if op in ("LIKE", "NOT LIKE"):
        node = like_node(col, str(value))
        return exp.Not(this=node) if op == "NOT LIKE" else node
    return OP_BUILDERS[op](this=col, expression=sql_literal(value))


def _col_atom(table: Table, col: Column, op: str, value: Any, span: tuple[int, int], dialect: str,
              unknown: list[str] | None = None) -> Atom:  # fmt: skip
    if op in ("IN", "NOT IN") and len(value) == 1:
        op, value = ("=" if op == "IN" else "<>"), value[0]
    expr = _cond(column_expr(table.qualified_name, col.name, dialect), op, value)
    return Atom(table, expr, span, col, op, value, unknown or [], numeric=is_numeric(col))


def _fk(child: Table, parent: Table) -> tuple[str, str] | None:
    """(child column, parent column) of a one-column foreign key from ``child`` to ``parent``."""
    for fk in child.foreign_keys:
        if len(fk.columns) == 1 and fk.ref_table.lower() in (parent.qualified_name.lower(), parent.name.lower()):
            return fk.columns[0], fk.ref_columns[0]
    return None


def _name_words(name: str) -> list[str]:
    return [singular(w) for w in re.findall(r"[a-z0-9]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", name).lower())]
