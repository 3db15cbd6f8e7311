"""First half of planning: read a question into items and give every item a role, or refuse.

``scan`` turns tokens into items (schema mentions, keywords, numbers, quoted literals, time ranges) and drops
stop words; ``assign_roles`` walks the items once and records what each one does (a filter, a grouping, a
measure, a ranking, a negated relation). Anything without a role is a ``Refusal``: nothing is guessed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import date

from core.fallback._model import Refusal
from core.fallback._text import KEYWORDS, Matcher, Meaning, Mention, Token, is_date_type, is_numeric_type, tokenize
from core.fallback._time_range import DateRange, match_time
from core.schema import Schema

__all__ = ["Item", "Rank", "Roles", "assign_roles", "date_cols", "numeric_cols", "scan"]

logger = logging.getLogger(__name__)

_STOP = {k[0] for k, v in KEYWORDS.items() if len(k) == 1 and ("stop", "") in v}
_STRUCTURAL = {"count", "list", "which", "what", "and", "or", "distinct"}
# "placed by customers" names who did it; "orders by customer" groups. Past participles mark the first.
_PARTICIPLES = {"made", "paid", "sold", "bought", "taken", "given", "written", "held", "won", "done", "kept",
                "run", "sent", "built", "owned", "seen", "shown", "driven", "flown", "chosen"}  # fmt: skip
_MAX_RANK = 1000


@dataclass
class Item:
    pos: int
    kind: str  # "m" (mention) | "time" | "number" | "quoted"
    mention: Mention | None = None
    range: DateRange | None = None
    number: float | None = None
    text: str = ""
    used: bool = False
    prev_word: str = ""  # the token right before the item, stop words included

    def kws(self) -> dict[str, Meaning]:
        return {m.kw: m for m in self.mention.of("kw")} if self.mention else {}

    def schema(self, kind: str) -> list[Meaning]:
        return self.mention.of(kind) if self.mention else []

    def is_table(self) -> bool:
        return bool(self.schema("table")) and not self.schema("column")


@dataclass
class Rank:
    """A "top N" / "which ... the most" request, filled in as its words are read."""

    anchor: int  # position of the first word of the request; its subject comes after it
    n: int | None = None
    ties: bool = False
    direction: str | None = None  # "desc" | "asc" | "first" (ascending, only for dates and text)
    key_col: Item | None = None  # "by total amount", "the highest total amount"
    key_agg: str | None = None  # "by average total amount"
    key_count: bool = False  # "the most orders", "by number of customers"
    count_item: Item | None = None  # the table counted, when named
    key_date: bool = False  # "most recent", "oldest": the subject's own date column

    def has_key(self) -> bool:
        return self.key_col is not None or self.key_count or self.key_date


@dataclass
class Roles:
    count: bool = False
    listing: bool = False
    which: bool = False
    which_pos: int | None = None  # "which X" / "what X": where a top-1 request would start
    distinct: bool = False
    total: bool = False
    measures: list[tuple[str, Item | None]] = field(default_factory=list)
    groups: list[tuple[Item, str | None]] = field(default_factory=list)  # (mention, time unit)
    numeric: list[tuple[Item | None, str, tuple[float, ...], int]] = field(default_factory=list)
    literal: list[tuple[Item, object, str]] = field(default_factory=list)  # (column/table item, value, how)
    times: list[tuple[Item, Item | None]] = field(default_factory=list)
    ors: list[int] = field(default_factory=list)
    ands: list[int] = field(default_factory=list)
    pers: list[Item] = field(default_factory=list)  # "per customer": tables to aggregate per row of
    negated: list[Item] = field(default_factory=list)  # "without orders": tables that must have no rows
    rank: Rank | None = None


def scan(question: str, schema: Schema, today: date) -> list[Item]:
    """Items of the question in order; an unexplained word is a Refusal."""
    tokens: list[Token] = tokenize(question)
    if not tokens:
        raise Refusal("empty question")
    matcher = Matcher(schema)
    items: list[Item] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        before = tokens[i - 1].text if i else ""
        timed = match_time(tokens, i, today)
        if timed is not None:
            items.append(Item(len(items), "time", range=timed[1], prev_word=before))
            i = timed[0]
            continue
        if tok.kind == "number":
            items.append(Item(len(items), "number", number=tok.number, text=tok.text, prev_word=before))
            i += 1
            continue
        if tok.kind == "quoted":
            items.append(Item(len(items), "quoted", text=tok.raw, prev_word=before))
            i += 1
            continue
        mention = matcher.match_at(tokens, i) if tok.kind in ("word", "op") else None
        if mention is None:
            raise Refusal(f"unexplained word {tok.text!r}")
        meanings = mention.meanings
        is_stop = any(m.kind == "kw" and m.kw == "stop" for m in meanings)
        has_struct = any(m.kind in ("table", "column") for m in meanings)
        if is_stop and (not has_struct or (mention.end - mention.start == 1 and tok.text in _STOP)):
            i = mention.end  # a stop word, even if it is also a short value such as 'IN'
            continue
        text = " ".join(t.text for t in tokens[mention.start : mention.end])
        items.append(Item(len(items), "m", mention=mention, text=text, prev_word=before))
        i = mention.end
    return items


def numeric_cols(item: Item | None) -> list[Meaning]:
    return [m for m in (item.schema("column") if item else []) if m.column and is_numeric_type(m.column.type)]


def date_cols(item: Item | None) -> list[Meaning]:
    return [m for m in (item.schema("column") if item else []) if m.column and is_date_type(m.column.type)]


def _is_participle(word: str) -> bool:
    return word in _PARTICIPLES or (len(word) > 4 and word.endswith("ed"))


class _Reader:
    """One pass over the items; each ``_on_*`` method returns the next position, or None if it does not apply."""

    def __init__(self, items: list[Item]) -> None:
        self.items = items
        self.st = Roles()

    def at(self, p: int) -> Item | None:
        return self.items[p] if 0 <= p < len(self.items) else None

    def free(self, p: int) -> Item | None:
        it = self.at(p)
        return it if it is not None and not it.used else None

    def run(self) -> Roles:
        p = 0
        while p < len(self.items):
            it = self.items[p]
            if it.used:
                p += 1
                continue
            for handler in (self._on_time, self._on_number, self._on_top, self._on_negation, self._on_compare,
                            self._on_superlative, self._on_group, self._on_aggregate, self._on_structural):
                nxt = handler(it, p)
                if nxt is not None:
                    p = nxt
                    break
            else:
                p += 1
        return self.st

    def table_after(self, p: int) -> Item | None:
        """The free table item at ``p``, skipping values that may qualify it ("delivered orders")."""
        while (cand := self.free(p)) is not None and cand.schema("value") and not cand.schema("table"):
            p += 1
        cand = self.free(p)
        return cand if cand is not None and cand.is_table() else None

    def _on_time(self, it: Item, p: int) -> int | None:
        if it.kind != "time":
            return None
        prev = self.free(p - 1)
        qual = prev if prev is not None and date_cols(prev) else None
        if qual is not None:
            qual.used = True
        self.st.times.append((it, qual))
        it.used = True
        return p + 1

    def _rank(self, anchor: int) -> Rank:
        if self.st.rank is None:
            self.st.rank = Rank(anchor)
        return self.st.rank

    def _set_n(self, value: float | None, anchor: int) -> None:
        if value is None or not value.is_integer() or not 0 < value <= _MAX_RANK:
            raise Refusal("a 'top N' that is not a small whole number")
        rank = self._rank(anchor)
        if rank.n is not None:
            raise Refusal("two counts for one ranking")
        rank.n = int(value)

    def _on_number(self, it: Item, p: int) -> int | None:
        if it.kind not in ("number", "quoted"):
            return None
        prev, nxt = self.at(p - 1), self.at(p + 1)
        if prev is not None and prev.kind == "m" and (prev.schema("column") or prev.schema("table")):
            self.st.literal.append((prev, it.number if it.kind == "number" else it.text, it.kind))
            it.used = True
            return p + 1
        if it.kind == "number" and nxt is not None and nxt.kind == "m":
            lead = prev is None or bool(prev.kws().keys() & {"list", "which", "what"})
            ranked = "rank" in nxt.kws() or "rankdate" in nxt.kws()
            if ranked or (lead and (nxt.schema("table") or nxt.schema("column") or nxt.schema("value"))):
                # "5 largest orders", "which 3 countries", "list 10 orders with the highest ..."
                anchor = self.st.which_pos if prev is not None and prev.pos == self.st.which_pos else p
                self._set_n(it.number, anchor if anchor is not None else p)
                it.used = True
                return p + 1
        raise Refusal(f"unexplained literal {it.text!r}")

    def _on_top(self, it: Item, p: int) -> int | None:
        top = it.kws().get("top")
        nxt = self.at(p + 1)
        if top is None:
            return None
        if nxt is None or nxt.kind != "number":
            if it.schema("column") or it.schema("value") or it.schema("table"):
                return None
            raise Refusal(f"{it.text!r} without a number")
        self._set_n(nxt.number, p)
        rank = self._rank(p)
        rank.direction = top.arg
        it.used = nxt.used = True
        return p + 2

    def _on_negation(self, it: Item, p: int) -> int | None:
        if "neg" not in it.kws():
            return None
        cand = self.table_after(p + 1)  # "without delivered orders": values of the negated table may come first
        if cand is not None:
            self.st.negated.append(cand)
            it.used = True
            return p + 1
        if it.schema("value") or it.schema("column"):
            return None
        raise Refusal(f"{it.text!r} is not followed by a related table")

    def _on_compare(self, it: Item, p: int) -> int | None:
        kws = it.kws()
        if "cmp" not in kws and "between" not in kws:
            return None
        items, n = self.items, len(self.items)
        want = 2 if "between" in kws else 1
        nums: list[float] = []
        q = p + 1
        while q < n and items[q].kind == "number" and len(nums) < want:
            nums.append(items[q].number or 0.0)
            q += 1
            if want == 2 and len(nums) == 1 and q < n and "and" in items[q].kws():
                q += 1
        if len(nums) != want:
            raise Refusal("a comparison without a number")
        op = "between" if "between" in kws else kws["cmp"].arg
        prev = self.at(p - 1)
        target: Item | None = None
        if prev is not None and not prev.used and numeric_cols(prev):
            target = prev
        elif q < n and numeric_cols(items[q]) and not items[q].used:
            target = items[q]
            q += 1
        if target is None:
            raise Refusal("a comparison that names no numeric column")
        target.used = True
        self.st.numeric.append((target, op, tuple(nums), p))
        for k in range(p, q):
            items[k].used = True
        return q

    def _on_superlative(self, it: Item, p: int) -> int | None:
        """ "the most orders", "the highest total amount", "most recent" inside a top-N or which-question."""
        kws = it.kws()
        word = kws.get("rank") or kws.get("rankdate")
        if word is None:
            return None
        if self.st.rank is None:
            if self.st.which_pos is None:
                return None  # "the highest total amount" alone is MAX (handled as an aggregate)
            self._rank(self.st.which_pos)
        rank = self.st.rank
        assert rank is not None
        if rank.n is None:
            rank.n, rank.ties = 1, True
        if rank.direction not in (None, word.arg):
            raise Refusal("a ranking asked both ways")
        rank.direction = word.arg
        it.used = True
        nxt, after = self.free(p + 1), self.free(p + 2)
        if "rankdate" in kws:
            if date_cols(nxt):
                assert nxt is not None
                rank.key_col, nxt.used = nxt, True
                return p + 2
            rank.key_date = True
            return p + 1
        if nxt is None:
            return p + 1
        nk = nxt.kws()
        agg = nk.get("agg") or (nk.get("total") and Meaning("kw", kw="agg", arg="sum"))
        if agg is not None and numeric_cols(after) and not nxt.schema("column"):
            assert after is not None
            rank.key_col, rank.key_agg = after, agg.arg
            nxt.used = after.used = True
            return p + 3
        if numeric_cols(nxt):
            rank.key_col, nxt.used = nxt, True
            return p + 2
        counted = self.table_after(p + 2)
        if "count" in nk and counted is not None:  # "the highest number of (delivered) orders"
            rank.key_count, rank.count_item, nxt.used = True, counted, True
            return p + 2
        counted = self.table_after(p + 1)
        if counted is not None and it.text in ("most", "fewest", "least"):  # "the most (delivered) orders"
            rank.key_count, rank.count_item = True, counted
            return p + 1
        return p + 1

    def _on_rank_by(self, it: Item, p: int) -> int | None:
        """ "by total amount" / "by number of customers" after a "top N": the sort key, not a grouping."""
        rank = self.st.rank
        nxt, after = self.free(p + 1), self.free(p + 2)
        if rank is None or rank.has_key() or it.text != "by" or nxt is None:
            return None
        nk = nxt.kws()
        if numeric_cols(nxt) or date_cols(nxt):
            rank.key_col, nxt.used = nxt, True
            it.used = True
            return p + 2
        agg = nk.get("agg") or (nk.get("total") and Meaning("kw", kw="agg", arg="sum"))
        if agg is not None and numeric_cols(after):
            assert after is not None
            rank.key_col, rank.key_agg = after, agg.arg
            it.used = nxt.used = after.used = True
            return p + 3
        if "count" in nk:
            rank.key_count = True
            it.used = nxt.used = True
            rank.count_item = self.table_after(p + 2)
            return p + 2
        raise Refusal("a ranking by something that is not a number, a date or a count")

    def _on_group(self, it: Item, p: int) -> int | None:
        kws = it.kws()
        nxt = self.at(p + 1)
        if "group" not in kws or nxt is None or nxt.kind != "m":
            return None
        ranked = self._on_rank_by(it, p)
        if ranked is not None:
            return ranked
        nk = nxt.kws()
        if nxt.schema("column"):
            self.st.groups.append((nxt, None))
        elif "timeunit" in nk:
            self.st.groups.append((nxt, nk["timeunit"].arg))
        elif nxt.schema("table"):
            if it.text == "by" and _is_participle(it.prev_word):  # "placed by customers": who, not a grouping
                it.used = True
                return p + 1
            self.st.pers.append(nxt)
        else:
            raise Refusal("'per'/'by' is not followed by a column")
        it.used = nxt.used = True
        return p + 2

    def _on_aggregate(self, it: Item, p: int) -> int | None:
        kws = it.kws()
        agg = kws.get("agg")
        if agg is None and "total" not in kws and "howmuch" not in kws:
            return None
        has_schema = bool(it.schema("table") or it.schema("column") or it.schema("value"))
        nxt = self.at(p + 1)
        if nxt is not None and numeric_cols(nxt) and not nxt.used:
            self.st.measures.append((agg.arg if agg else "sum", nxt))
            it.used = nxt.used = True
            return p + 2
        if "total" in kws and not has_schema:
            self.st.total = True
            it.used = True
            return p + 1
        if not has_schema:
            raise Refusal("an aggregate without a numeric column")
        return None

    def _on_structural(self, it: Item, p: int) -> int | None:
        kws = it.kws()
        has_schema = bool(it.schema("table") or it.schema("column") or it.schema("value"))
        if has_schema and not kws.keys() & _STRUCTURAL:
            return p + 1  # a schema mention: resolved by the planner
        st = self.st
        nxt = self.at(p + 1)
        if "count" in kws:
            st.count = True
        elif "list" in kws:
            st.listing = True
        elif "which" in kws:
            st.which = True
            st.which_pos = p
        elif "what" in kws:
            if nxt is not None and nxt.kind == "m" and (nxt.schema("table") or nxt.schema("column")):
                st.which_pos = p  # "what city has the most customers"
        elif "distinct" in kws:
            st.distinct = True
        elif "and" in kws:
            st.ands.append(p)
        elif "or" in kws:
            st.ors.append(p)
        else:
            raise Refusal(f"unexpected word {it.text!r}")
        it.used = True
        return p + 1


def assign_roles(items: list[Item]) -> Roles:
    """Give every item a role; raise Refusal for anything left over."""
    return _Reader(items).run()
