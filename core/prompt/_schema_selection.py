"""Pick the tables a question needs when the whole schema does not fit the model's prompt budget.

Lexical scoring first (works offline, deterministic, no model): question words are matched against each
table's name, column names, comments and value hints, with identifiers split on ``_``/camelCase/digits,
plural and common abbreviations folded, and rare words weighted up (IDF over tables). An optional
embedding function adds semantic similarity. The best table is taken, then further tables by score,
each together with a bridge table that joins it to those already chosen when it has no direct link,
and finally unmatched neighbours, for as long as the rendered block fits the budget.

Links are declared foreign keys plus, for tables that declare none, shared key-like column names
(``writes.aid`` ~ ``author.aid``): many real schemas never declare their foreign keys.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from core.schema import Schema, Table
from core.prompt._schema_block import estimate_tokens, render_schema_block, render_table_line

__all__ = ["score_tables", "select_tables", "split_words"]

logger = logging.getLogger(__name__)

Embed = Callable[[list[str]], list[list[float]]]

# Weight of a match by where it was found.
W_TABLE = 3.0
W_COLUMN = 1.5
W_VALUE = 2.0
W_TABLE_COMMENT = 1.0
W_COLUMN_COMMENT = 0.5
FUZZY = 0.6  # a prefix / substring match counts this much of an exact one
EMBED_WEIGHT = 1.0
NEIGHBOUR_BONUS = 0.25  # share of the best score given per link to a chosen table
MAX_LINK_BONUS = 2

_STOP = frozenset(
    """a an the and or of to in on for by with from at as is are was were be been being do does did what which
    who whom whose when where why how many much more most less least than then there their they them this that
    these those it its into per each every all any some show list give find get return returns tell me my our
    we you your i please also only just not no yes have has had between over under above below about across
    after before during since until within without among top first last next same other such both either
    neither one two three four five six seven eight nine ten can could should would will shall may might must
    if else while ever never very number count total sum average avg max min maximum minimum value values
    data table tables record records row rows column columns""".split()
)

# Common identifier abbreviations, folded to the word a question would use.
_ABBREV = {
    "txn": "transaction", "tx": "transaction", "trx": "transaction", "trans": "transaction",
    "qty": "quantity", "amt": "amount", "num": "number", "no": "number", "nbr": "number",
    "dt": "date", "ts": "timestamp", "addr": "address", "desc": "description", "descr": "description",
    "cust": "customer", "emp": "employee", "dept": "department", "org": "organization",
    "acct": "account", "inv": "invoice", "prod": "product", "cat": "category", "mgr": "manager",
    "loc": "location", "wh": "warehouse", "po": "purchase", "so": "sale", "pmt": "payment",
    "pay": "payment", "doc": "doctor", "diag": "diagnosis", "pct": "percent", "avg": "average",
    "crtd": "created", "upd": "updated", "ccy": "currency", "curr": "currency", "msg": "message",
    "usr": "user", "dob": "birth", "yr": "year", "mo": "month", "ctry": "country", "st": "state",
}

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*|\d+")


def _stem(word: str) -> str:
    """Fold plurals (and nothing else: light, predictable)."""
    w = word.lower()
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("sses", "xes", "ches", "shes", "uses")):  # statuses, bonuses: status, bonus
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def split_words(text: str) -> list[str]:
    """Identifier or prose -> lower-case stems: ``sbCustEmail`` -> sb, customer, email."""
    out: list[str] = []
    for raw in _WORD.findall(text.replace("_", " ")):
        for part in _CAMEL.findall(raw) or [raw]:
            w = part.lower()
            w = _ABBREV.get(w, w)
            out.append(_stem(w))
    return out


def _question_terms(question: str) -> list[str]:
    seen: dict[str, None] = {}
    for w in split_words(question):
        if w not in _STOP and (len(w) > 1 or w.isdigit()):
            seen.setdefault(w, None)
    return list(seen)


@dataclass(frozen=True)
class _TableDoc:
    """A table's words, each with the best field weight it occurs in."""

    words: dict[str, float]
    raw_names: tuple[str, ...]  # lower-cased names without separators, for substring matches


def _doc(table: Table, *, keys: bool = True) -> _TableDoc:
    """``keys=False`` leaves out key columns: ``orders.customer_id`` names the customers table, not orders."""
    words: dict[str, float] = {}
    key_columns = {c.lower() for fk in table.foreign_keys for c in fk.columns} | {c.lower() for c in table.primary_key}

    def add(text: str, weight: float) -> None:
        for w in split_words(text):
            if len(w) > 1 and words.get(w, 0.0) < weight:
                words[w] = weight

    # A table named after the word ("merchants") outranks one that merely contains it
    # ("wallet_merchant_balance_daily").
    name_words = [w for w in split_words(table.name) if len(w) > 1]
    add(table.name, W_TABLE * (0.5 + 0.5 / max(1, len(name_words))))
    if table.comment:
        add(table.comment, W_TABLE_COMMENT)
    for col in table.columns:
        if not keys and col.name.lower() in key_columns:
            continue
        add(col.name, W_COLUMN)
        if col.comment:
            add(col.comment, W_COLUMN_COMMENT)
        for v in col.value_hints:
            add(str(v), W_VALUE)
    raw = (table.name.lower().replace("_", ""),) + tuple(c.name.lower().replace("_", "") for c in table.columns
                                                         if keys or c.name.lower() not in key_columns)
    return _TableDoc(words, raw)


def _match(term: str, doc: _TableDoc) -> float:
    exact = doc.words.get(term)
    if exact is not None:
        return exact
    best = 0.0
    if len(term) >= 4:
        for w, weight in doc.words.items():
            if len(w) >= 4 and (w.startswith(term) or term.startswith(w)):
                best = max(best, weight * FUZZY)
            elif len(w) >= 5 and len(term) >= 5 and w[:5] == term[:5]:
                best = max(best, weight * FUZZY * 0.8)
        if best < W_TABLE * FUZZY and any(term in raw for raw in doc.raw_names[:1]):
            best = W_TABLE * FUZZY
        elif best < W_COLUMN * FUZZY and any(term in raw for raw in doc.raw_names[1:]):
            best = max(best, W_COLUMN * FUZZY)
    return best


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


def _embed_text(table: Table) -> str:
    cols = ", ".join(c.name for c in table.columns)
    text = f"{table.qualified_name}: {cols}"
    if table.comment:
        text += f". {table.comment[:200]}"
    return text


def _lexical(docs: Sequence[_TableDoc], terms: Sequence[str]) -> list[float]:
    """Each table's sum over the question's terms of its best field weight times the term's rarity."""
    n = len(docs)
    lexical = [0.0] * n
    for term in terms:
        matches = [_match(term, d) for d in docs]
        df = sum(1 for m in matches if m > 0)
        if df == 0:
            continue
        idf = math.log((n + 1) / (df + 0.5)) + 0.1
        for i, m in enumerate(matches):
            lexical[i] += m * idf
    return lexical


def score_tables(schema: Schema, question: str, *, embed: Embed | None = None) -> dict[str, float]:
    """Relevance of every table (by qualified name) to ``question``; higher is better, 0 for no evidence."""
    lexical = _lexical([_doc(t) for t in schema.tables], _question_terms(question))
    n = len(lexical)
    top = max(lexical, default=0.0)
    scores = [s / top if top > 0 else 0.0 for s in lexical]
    if embed is not None and n:
        vectors = embed([question] + [_embed_text(t) for t in schema.tables])
        if len(vectors) == n + 1:
            sims = [_cosine(vectors[0], v) for v in vectors[1:]]
            lo, hi = min(sims), max(sims)
            spread = hi - lo
            for i, s in enumerate(sims):
                scores[i] += EMBED_WEIGHT * ((s - lo) / spread if spread > 0 else 0.0)
        else:
            logger.warning("embedding function returned %d vectors for %d texts; ignored", len(vectors), n + 1)
    return {t.qualified_name: s for t, s in zip(schema.tables, scores, strict=True)}


_KEYISH = re.compile(r"(id|key|code|no|num|number)$", re.IGNORECASE)


def _links(schema: Schema) -> dict[str, set[str]]:
    """Undirected join graph: declared foreign keys, plus shared key-like column names for tables that
    declare no foreign key at all."""
    graph: dict[str, set[str]] = {t.qualified_name: set() for t in schema.tables}
    for t in schema.tables:
        for fk in t.foreign_keys:
            ref = schema.table(fk.ref_table)
            if ref is not None and ref.qualified_name != t.qualified_name:
                graph[t.qualified_name].add(ref.qualified_name)
                graph[ref.qualified_name].add(t.qualified_name)
    declared = {t.qualified_name for t in schema.tables if any(not fk.inferred for fk in t.foreign_keys)}
    for t in schema.tables:
        for fk in t.foreign_keys:
            ref = schema.table(fk.ref_table)
            if ref is not None and not fk.inferred:
                declared.add(ref.qualified_name)
    by_column: dict[str, list[str]] = {}
    for t in schema.tables:
        if t.qualified_name in declared:
            continue
        for c in t.columns:
            if _KEYISH.search(c.name) and len(c.name) > 2 or c.name in t.primary_key:
                by_column.setdefault(c.name.lower(), []).append(t.qualified_name)
    for names in by_column.values():
        if 1 < len(names) <= max(3, len(schema.tables) // 3):
            for a in names:
                for b in names:
                    if a != b:
                        graph[a].add(b)
    return graph


def select_tables(schema: Schema, question: str, budget_tokens: int, *, embed: Embed | None = None) -> Schema:
    """The schema itself when its block fits ``budget_tokens``, else the most relevant tables that fit.

    Always keeps at least the best table, even when it alone is over budget (the caller decides then).
    Deterministic for the same inputs; the result keeps the schema's table order.
    """
    if not schema.tables:
        return schema
    lines = {t.qualified_name: render_table_line(t, schema) for t in schema.tables}
    if estimate_tokens("\n".join(lines[t.qualified_name] for t in schema.tables)) <= budget_tokens:
        return schema
    scores = score_tables(schema, question, embed=embed)
    order = {t.qualified_name: i for i, t in enumerate(schema.tables)}
    ranked = sorted(order, key=lambda q: (-scores[q], order[q]))
    graph = _links(schema)

    # Sum of per-line estimates: never below the estimate of the joined block.
    cost = {q: estimate_tokens(line + "\n") for q, line in lines.items()}
    chosen: list[str] = []
    used = 0

    def fits(extra: Sequence[str]) -> bool:
        return used + sum(cost[q] for q in extra if q not in chosen) <= budget_tokens

    def take(names: Sequence[str]) -> None:
        nonlocal used
        for q in names:
            if q not in chosen:
                chosen.append(q)
                used += cost[q]

    take([ranked[0]])
    best = scores[ranked[0]] or 1.0
    remaining = [q for q in ranked if q not in chosen]
    while remaining:
        chosen_set = set(chosen)

        def priority(q: str, chosen_set: set[str] = chosen_set) -> tuple[float, int]:
            links = min(MAX_LINK_BONUS, len(graph[q] & chosen_set))
            return (-(scores[q] + NEIGHBOUR_BONUS * best * links), order[q])

        q = min(remaining, key=priority)
        remaining.remove(q)
        group = [q]
        if scores[q] > 0 and not graph[q] & chosen_set:
            bridges = [b for b in graph[q] if b not in chosen_set and graph[b] & chosen_set]
            if bridges:
                group.append(max(bridges, key=lambda b: (scores[b], -order[b])))
        if fits(group):
            take(group)
        elif len(group) > 1 and fits(group[:1]):
            take(group[:1])
        remaining = [r for r in remaining if r not in chosen]
    result = schema.subset(chosen)
    # Lines were rendered against the full schema; check the real block and drop the last added if needed.
    while len(chosen) > 1 and estimate_tokens(render_schema_block(result)) > budget_tokens:
        chosen.pop()
        result = schema.subset(chosen)
    logger.debug("selected %d of %d tables for a %d-token budget", len(chosen), len(schema.tables), budget_tokens)
    return result


def named_tables(schema: Schema, question: str) -> set[str]:
    """The tables (qualified names) the question's own words point at: a table's name, a column's name or a
    known value of one of its columns. Empty when no word points anywhere ("how many in the last week?"): then
    nothing can be told apart and the caller keeps everything. A guess for what to *show* before the SQL exists,
    never for what to enforce: enforcement reads the tables of the SQL itself."""
    scores = _lexical([_doc(t, keys=False) for t in schema.tables], _question_terms(question))
    return {t.qualified_name for t, score in zip(schema.tables, scores, strict=True) if score > 0}


def tables_called_by_name(schema: Schema, question: str) -> set[str]:
    """The tables (qualified names) whose own name the question says, every word of it ("courses per teacher"
    names course and teacher; "employee names" names no ``dept`` table through its ``dname`` column). Stricter
    than :func:`named_tables`: for deciding that a join to a table is meant."""
    said = set(split_words(question))
    return {t.qualified_name for t in schema.tables
            if (name := [w for w in split_words(t.name) if len(w) > 1]) and set(name) <= said}



_LABEL_OR_KEY = frozenset({"name", "id", "no", "num", "number", "code", "key", "title", "label"})


def column_said(question: str, name: str, table: str = "") -> bool:
    """Whether the question says what a column is about: one of its own words beside name/id/code... ("city" of
    ``city_name``, "state" of ``sbCustState``, "dataset" of ``datasetid``), or, for a column that is only a label
    or key of its table (``name``, ``did``), the table's name. For deciding that a split by that column is meant."""
    said = set(split_words(question))
    words = []
    for word in split_words(name):
        for end in ("name", "id"):  # run-together names: datasetid, authorname
            if word.endswith(end) and len(word) > len(end) + 2:
                word = _stem(word[: -len(end)])
        if len(word) > 2 and not word.isdigit() and word not in _LABEL_OR_KEY:
            words.append(word)
    if any(w in said for w in words):
        return True
    if words and not all(len(w) <= 3 for w in words):
        return False
    table_words = [w for w in split_words(table) if len(w) > 1]
    return bool(table_words) and set(table_words) <= said
