"""Values named in a condition: runs of words grouped into lists ("Sweden, Norway and Denmark"), each list
placed in one column (cached hints first, then the data through the lookup), every value kept."""

from __future__ import annotations

import re

from core.memory.forms._atom_text import FILLER, Atom, _col_atom, _name_words, _Text
from core.memory.forms._schema_match import Lookup, named_columns, resolve_values, text_columns, value_hits
from core.memory.kernel import NEGATION
from core.schema import Column, Schema, Table

__all__ = ["value_atoms"]


def _items(t: _Text, skip: set[int], schema: Schema) -> list[list[tuple[int, int]]]:
    """Runs of content words, grouped into lists ("Sweden, Norway and Denmark")."""
    table_words = {w for s in schema.tables for w in _name_words(s.name)}
    col_words = {w for s in schema.tables for c in s.columns for w in _name_words(c.name)}
    content = [i not in skip and t.toks[i][0] not in FILLER and t.toks[i][0] not in NEGATION
               and t.toks[i][0] not in table_words and t.toks[i][0] not in col_words
               and not t.toks[i][0].isdigit() for i in range(len(t.toks))]  # fmt: skip
    runs: list[tuple[int, int]] = []
    i = 0
    while i < len(t.toks):
        if content[i]:
            j = i + 1
            while j < len(t.toks) and content[j] and not re.search(r"[,;/&]", t.gap(j)):
                j += 1
            runs.append((i, j))
            i = j
        else:
            i += 1
    groups: list[list[tuple[int, int]]] = []
    for r in runs:
        if groups:
            prev = groups[-1][-1]
            between = [t.toks[k][0] for k in range(prev[1], r[0])]
            sep = re.search(r"[,;/&]", t.gap(r[0]) if r[0] == prev[1] else "") or (
                between in (["and"], ["or"], ["aur"], ["ya"]) and r[0] == prev[1] + 1) or (
                between == [] and re.search(r"[,;/&]", t.gap(r[0])))  # fmt: skip
            if r[0] == prev[1] + 1 and between in (["and"], ["or"]) and re.search(r",", t.gap(prev[1])):
                sep = True
            if sep:
                groups[-1].append(r)
                continue
        groups.append([r])
    return groups


def value_atoms(t: _Text, schema: Schema, lookup: Lookup | None, scope: list[Table], skip: set[int],
                 d: str, context: list[str]) -> list[Atom]:  # fmt: skip
    tw = t.words
    in_scope = {s.qualified_name for s in scope}
    hits = [h for h in value_hits(tw, schema, skip) if not in_scope or h.table.qualified_name in in_scope]
    groups = _items(t, skip, schema)
    for h in hits:  # hint hits made of stop or column words ("United States") are items too
        if not any(a <= h.span[0] < b for g in groups for a, b in g):
            groups.append([h.span])
    atoms: list[Atom] = []
    for g in groups:
        texts = [t.text[t.toks[a][1] : t.toks[b - 1][2]] for a, b in g]
        span = (g[0][0], g[-1][1])
        ghits = [h for h in hits if any(a <= h.span[0] < b for a, b in g)]
        target: tuple[Table, Column] | None = None
        if ghits:
            counts: dict[tuple[str, str], int] = {}
            for h in ghits:
                counts[(h.table.qualified_name, h.column.name)] = counts.get((h.table.qualified_name, h.column.name),
                                                                              0) + 1  # fmt: skip
            ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0][0] not in in_scope))
            if len(ranked) > 1 and ranked[0][1] == ranked[1][1] and (ranked[0][0][0] in in_scope) == (
                    ranked[1][0][0] in in_scope):  # fmt: skip
                continue
            tq, cn = ranked[0][0]
            tb = schema.table(tq)
            target = (tb, tb.column(cn)) if tb and tb.column(cn) else None
            if target is not None and len(g) == 1:  # the hit's own words, not the whole run
                texts = [str(ghits[0].value)]
                span = ghits[0].span
        elif lookup is not None:
            target = _probe(schema, lookup, scope or list(schema.tables), tw + context, texts)
            if target is None:  # "TV Shows" ("shows" is a small word), "Sci Fi & Fantasy" (one value with "&")
                for wide, wide_span in _wider(t, g, schema):
                    target = _probe(schema, lookup, scope or list(schema.tables), tw + context, [wide])
                    if target is not None:
                        g, texts, span = [wide_span], [wide], wide_span
                        break
        if target is None:
            continue
        if len(g) > 1:
            texts = _joined(t, g, texts, target, lookup)
        resolved = resolve_values(target[0], target[1], texts, lookup)
        if resolved is None:
            continue
        values, unknown = resolved
        clauses = [u for u in unknown if _is_clause(u)]  # "Brazil, another team owns those": a reason, not a value
        if clauses and len(clauses) < len(values):
            values = [v for v in values if v not in clauses]
            unknown = [u for u in unknown if u not in clauses]
        if not unknown and ghits and lookup is not None and not scope:
            # Hinted in one column, named with no table: "only Canada" is Employee.Country in the hints, and also
            # Customer.Country and Invoice.BillingCountry in the data. No column is meant with confidence.
            holders = _holders(schema, lookup, list(schema.tables), tw + context, texts)
            if any(n >= len(values) and (s.qualified_name, c.name) != (target[0].qualified_name, target[1].name)
                   for n, s, c in holders):  # fmt: skip
                continue
        if unknown and ghits and lookup is not None:
            # The cached hints cover few columns (short value lists): "Canada" is hinted in Employee.Country,
            # "USA" nowhere. A column whose data holds more of the values named is the one meant.
            holders = _holders(schema, lookup, scope or list(schema.tables), tw + context, texts)
            if holders and holders[0][0] > len(texts) - len(unknown):
                better = _probe(schema, lookup, scope or list(schema.tables), tw + context, texts)
                again = resolve_values(better[0], better[1], texts, lookup) if better else None
                if better is None or again is None:
                    continue  # columns that hold more of the values tie: no column is meant with confidence
                target, (values, unknown) = better, again
        if ghits and len(g) == 1 and not unknown:
            values = [str(ghits[0].value)]
        atom = _col_atom(target[0], target[1], "IN", values, span, d, unknown)
        atoms.append(atom)
    return atoms


_CLAUSE_WORDS = {"they", "them", "those", "these", "their", "we", "our", "us", "i", "you", "another", "because", "since",
                 "owns", "own", "handles", "handle", "is", "are", "was", "were", "has", "have", "does", "do", "team",
                 "matter", "matters", "wala", "hai", "hain"}  # fmt: skip


def _is_clause(text: str) -> bool:
    """Three or more words with a pronoun or a verb among them: a sentence, not a value a column holds."""
    said = re.findall(r"[a-z']+", text.lower())
    return len(said) >= 3 and bool(set(said) & _CLAUSE_WORDS)


def _wider(t: _Text, g: list[tuple[int, int]], schema: Schema) -> list[tuple[str, tuple[int, int]]]:
    """Other readings of a group of words that named no value: the whole group as one value, and a single run
    widened over one small neighbouring word on either side (never a negation, a table or column noun)."""
    table_words = {w for s in schema.tables for w in _name_words(s.name)}
    col_words = {w for s in schema.tables for c in s.columns for w in _name_words(c.name)}

    def small(i: int) -> bool:
        return (0 <= i < len(t.toks) and t.toks[i][0] in FILLER and t.toks[i][0] not in NEGATION
                and t.toks[i][0] not in table_words | col_words and not t.toks[i][0].isdigit())  # fmt: skip

    lo, hi = g[0][0], g[-1][1]
    spans = [(lo, hi)] if len(g) > 1 else []
    if len(g) == 1:
        spans += [(a, b) for a, b in ((lo, hi + 1), (lo - 1, hi), (lo - 1, hi + 1))
                  if all(small(i) for i in range(a, lo)) and all(small(i) for i in range(hi, b))]  # fmt: skip
    return [(t.text[t.toks[a][1] : t.toks[b - 1][2]], (a, b)) for a, b in spans if 0 <= a < b <= len(t.toks)]


def _joined(t: _Text, g: list[tuple[int, int]], texts: list[str], target: tuple[Table, Column],
            lookup: Lookup | None) -> list[str]:
    """"Alternative & Punk" and "Research and Development" are one value when the column holds them so: two
    neighbouring items joined by "&" or "and" are merged where the joined words are a value of the column."""
    hints = {str(h).lower() for h in target[1].value_hints}
    spans = [(t.toks[a][1], t.toks[b - 1][2]) for a, b in g]
    out: list[str] = []
    i = 0
    while i < len(texts):
        if i + 1 < len(texts) and re.fullmatch(r"\s*(?:&|and)\s*", t.text[spans[i][1] : spans[i + 1][0]],
                                              re.IGNORECASE):  # fmt: skip
            both = t.text[spans[i][0] : spans[i + 1][1]]
            known = both.lower() in hints
            if not known and lookup is not None:
                try:
                    known = lookup(target[0].qualified_name, target[1].name, [both]).get(both) is not None
                except Exception:  # noqa: BLE001 - a failing lookup finds nothing
                    known = False
            if known:
                out.append(both)
                i += 2
                continue
        out.append(texts[i])
        i += 1
    return out


def _holders(schema: Schema, lookup: Lookup, scope: list[Table], tw: list[str],
             texts: list[str]) -> list[tuple[int, Table, Column]]:  # fmt: skip
    """(values found, table, column) of the text columns that hold any of ``texts`` in their data, most
    first: the columns the words name, else those of ``scope`` and the tables it points at."""
    tables = list(scope)
    for s in scope:
        for fk in s.foreign_keys:
            parent = schema.table(fk.ref_table)
            if parent is not None and parent not in tables:
                tables.append(parent)
    named = [(s, c) for s, c, strength in named_columns(tw, schema, numeric=False) if s in tables and strength == 2]
    cands = named or [(s, c) for s in tables for c in text_columns(s)]
    best: list[tuple[int, Table, Column]] = []
    for s, c in cands[:40]:
        try:
            found = lookup(s.qualified_name, c.name, texts)
        except Exception:  # noqa: BLE001 - a failing lookup finds nothing
            continue
        n = sum(1 for v in found.values() if v is not None)
        if n:
            best.append((n, s, c))
    best.sort(key=lambda x: -x[0])
    return best


def _probe(schema: Schema, lookup: Lookup, scope: list[Table], tw: list[str],
           texts: list[str]) -> tuple[Table, Column] | None:  # fmt: skip
    """The one text column (named ones first, then the scope's, then their parents') that holds these words."""
    best = _holders(schema, lookup, scope, tw, texts)
    if not best:
        return None
    if len(best) > 1 and best[0][0] == best[1][0] and best[0][1] is not best[1][1]:
        tied = [b for b in best if b[0] == best[0][0]]
        own = [b for b in tied if scope and b[1] is scope[0]]
        if len(own) != 1:  # "billed to the USA": the column whose name shares a stem with the words
            own = [b for b in tied if _stem_named(b[2], tw)]
        if len(own) != 1:
            return None
        return own[0][1], own[0][2]
    return best[0][1], best[0][2]


def _stem_named(column: Column, tw: list[str]) -> bool:
    """A word of the text shares its first four letters with a word of the column's name ("billed" /
    "BillingCountry"), other than the words every such column has ("name", "country" are the values' kind)."""
    said = {w[:4] for w in tw if len(w) >= 4}
    return any(w[:4] in said for w in _name_words(column.name) if len(w) >= 4 and w not in _KIND_WORDS)


_KIND_WORDS = {"name", "names", "country", "city", "state", "type", "code", "title", "status"}
