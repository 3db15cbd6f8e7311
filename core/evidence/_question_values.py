"""Values the question quotes or names, read in the data: "the domain 'Machine Learning'", "authors like Martin",
"flights to ORD". A quoted value, or a run of capitalised words or a code the question types, is probed in the text
columns of the query's tables (bounded ``LIMIT 1`` probes under the guard): one that exactly one column holds and
that no literal of the query writes is offered as a filter (``missing_quoted``); a text literal no row of its column
holds where the question's value is one that column holds is offered in its place (``unheld_value``); a value kept
out, ``status <> 'failed'``, that the question never says, where it names one value that column holds ("successful",
"male patients", "the vendor 'Utility Company'"), is offered as that value kept (``negated_value``); one value
written for two columns, ``from_airport = 'LAX' AND to_airport = 'LAX'``, where the question names another value the
second column holds ("from LAX to ORD"), is offered with it there (``repeated_value``); a search for a piece of text
that minds its capitals, ``INSTR(name, 'LI') > 0``, where the question says nothing of case, is offered ignoring case
(``position_evidence``). The query that ran stays the answer.
"""

from __future__ import annotations

import re

from sqlglot import exp

from core.answer import Alternative
from core.databases import QueryResult
from core.errors import CairnError
from core.evidence._aliases import is_key
from core.evidence._asked import Asked
from core.evidence._common import Execute, offer, owner, parse
from core.evidence._question_columns import COMMON_WORDS, name_words
from core.evidence._question_filters import NOT_ONLY, Finding, asks_for, column_kind, query_tables, with_condition
from core.schema import Column, Schema, Table
from core.sql import guard

__all__ = ["missing_quoted", "negated_value", "position_evidence", "repeated_value", "unheld_value"]

_QUOTED = re.compile(r"[\"“]([^\"”\n]{2,60})[\"”]|(?:(?<=\s)|^)'([^'\n]{2,60})'(?=[\s.,?!;:)]|$)")
# A name or a code as typed: capitalised words in a run ("Orlando International Airport"), or one word in capitals
# or mixing letters and digits ("ORD", "M5"). Only a probe of the data makes one a value.
_NAMED = re.compile(r"(?<![\w'’])(?:[A-Z][\w&'’.-]*|\d+[A-Za-z][\w-]*)(?:\s+(?:[A-Z][\w&'’.-]*|\d+[A-Za-z]\w*))*")
_SENTENCE_START = re.compile(r"(?:^|[.?!:;]\s+|\n)\s*[\"“'(]?$")
_CALENDAR = frozenset("""january february march april may june july august september october november december jan feb
mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday mon tue wed thu fri sat
sun mondays tuesdays wednesdays thursdays fridays saturdays sundays q1 q2 q3 q4 h1 h2 ytd mtd""".split())  # fmt: skip
_MAX_PROBES = 12


def _named_values(question: str, schema: Schema) -> list[str]:
    """Names and codes the question types without quotes, for ``missing_quoted`` to probe: a run of capitalised
    words or a code, less a sentence's first word, calendar words and the schema's own names."""
    schema_words = {w for t in schema.tables for n in (t.name, *t.column_names)
                    for w in (n.lower(), n.lower().replace("_", " "), *name_words(n))}
    out: list[str] = []
    question = _QUOTED.sub(" _ ", question)  # a quoted value is probed whole, never by its capitalised words
    for match in _NAMED.finditer(question):
        if set(re.findall(r"[a-z']+", question[:match.start()].lower())[-3:]) & NOT_ONLY:
            continue  # "every carrier, including UA", "other than UA": not "only UA"
        words = match.group(0).rstrip(".'’").split()
        if _SENTENCE_START.search(question[:match.start()]):
            words = words[1:]  # "Which", "Return", "Calculate": capitalised for the sentence, not a name
        while words and (words[0].lower() in COMMON_WORDS or words[0].lower() in _CALENDAR):
            words = words[1:]
        while words and (words[-1].lower() in _CALENDAR or words[-1].isdigit()):
            words = words[:-1]
        value = " ".join(words)
        for form in dict.fromkeys((re.sub(r"['’]s$", "", value), value)):  # "Martin's papers": Martin first
            if len(form) >= 2 and form.lower() not in schema_words | COMMON_WORDS and form not in out:
                out.append(form)
    return out


def _question_values(question: str, schema: Schema) -> list[str]:
    """The values the question quotes, then those it names (``_named_values``), each once, quoted ones first."""
    quoted = [(m.group(1) or m.group(2) or "").strip() for m in _QUOTED.finditer(question)]
    return [v for v in dict.fromkeys([*quoted, *_named_values(question, schema)]) if v]


def missing_quoted(asked: Asked, tree: exp.Select, schema: Schema, execute: Execute,
                   question: str) -> Finding | None:
    """A value the question quotes ("the domain 'Machine Learning'"), or names as a name or a code ("authors in the
    same domain as Martin", "flights to ORD"), that no literal of the query holds: the one text column of the query's
    tables that holds it (bounded probes, ``LIMIT 1`` each), compared with it. Quoted values are probed first."""
    literals = " ".join(lit.this.lower() for lit in tree.find_all(exp.Literal) if lit.is_string)
    where = tree.args.get("where")
    filtered = {c.name.lower() for c in where.find_all(exp.Column)} if where is not None else set()
    probes = _MAX_PROBES * 2  # in all, however many values the question quotes or names
    values = _question_values(question, schema)
    for value in values:
        initials = "".join(w[0] for w in value.lower().split()) if " " in value else None  # New York written 'NY'
        if not value or value.lower() in literals or any(w in literals for w in value.lower().split() if len(w) > 3) \
                or initials in literals.split():
            continue
        columns = [(alias, table, c) for alias, table in query_tables(tree, schema) for c in table.columns
                   if column_kind(c) == "text" and not is_key(c.name) and c.name.lower() not in filtered][:min(_MAX_PROBES,
                                                                                                          probes)]
        probes -= len(columns)
        if not columns:
            break
        hits = [(alias, c) for alias, table, c in columns if _holds(table, c, value, schema, execute)]
        if len(hits) != 1:
            continue
        alias, column = hits[0]
        table = next(t for a, t, c in columns if a == alias and c is column)
        others = [v for v in values if v.lower() != value.lower()][:max(0, probes)]
        if any(_holds(table, column, v, schema, execute) for v in others):
            return None  # "Tata or Maruti": two values of one column, not "only" the first
        condition = exp.EQ(this=exp.Lower(this=exp.column(column.name, table=alias)),
                           expression=exp.Lower(this=exp.Literal.string(value)))
        return (f"The question says “{value}”, which {column.name} holds, and the query never filters on it",
                f"Only {value}"[:80], with_condition(tree, condition))
    return None


def _holds(table: Table, column: Column, value: str, schema: Schema, execute: Execute) -> bool:
    return _spelling(table, column, value, schema, execute) is not None


def _spelling(table: Table, column: Column, value: str, schema: Schema, execute: Execute) -> str | None:
    """The column's own spelling of ``value`` (in any capitals), from one bounded probe; None when no row holds it."""
    probe = exp.select(exp.column(column.name)).from_(exp.to_table(table.qualified_name)).where(exp.EQ(
        this=exp.Lower(this=exp.column(column.name)), expression=exp.Lower(this=exp.Literal.string(value)))).limit(1)
    try:
        rows = execute(guard(probe.sql(dialect=schema.dialect), schema.dialect).sql).rows
    except CairnError:
        return None
    return str(rows[0][0]) if rows and rows[0][0] is not None else None


def unheld_value(asked: Asked, tree: exp.Select, schema: Schema, execute: Execute, question: str) -> Finding | None:
    """``domain.name = 'ML'`` or ``vendor_name = 'Utility_Company'``, a text no row of its column holds, where the
    question quotes or names a value ("Machine Learning", 'Utility Company') that no literal of the query writes and
    exactly one that column holds (bounded probes): the column's spelling of the question's value in its place."""
    literals = {lit.this.lower() for lit in tree.find_all(exp.Literal) if lit.is_string}
    values = [v for v in _question_values(question, schema) if v.lower() not in literals]
    probes = _MAX_PROBES
    for literal in list(tree.find_all(exp.Literal)) if values else ():
        test = literal.parent
        side = test.this if isinstance(test, (exp.EQ, exp.In)) and literal.arg_key in ("expression",
                                                                                      "expressions") else None
        case = str.lower if isinstance(side, exp.Lower) else str.upper if isinstance(side, exp.Upper) else str
        while isinstance(side, (exp.Lower, exp.Upper, exp.Trim)):
            side = side.this
        found = owner(side, tree, schema) if literal.is_string and isinstance(side, exp.Column) else None
        if found is None or column_kind(found[1]) != "text" or probes < 1 + len(values):
            continue
        probes -= 1 + len(values)
        if _holds(*found, literal.this, schema, execute):
            continue
        hits = [h for v in values if (h := _spelling(*found, v, schema, execute)) is not None]
        if len(hits) != 1:
            continue
        written = literal.this
        literal.replace(exp.Literal.string(case(hits[0])))  # ``LOWER(country) = 'usa'``: 'us', as LOWER writes it
        name = f"{found[0].name}.{found[1].name}"
        return (f"No {name} is '{written}'; the question says “{hits[0]}”, which {name} holds",
                f"{name} = '{hits[0]}'"[:80], tree)
    return None


def negated_value(asked: Asked, tree: exp.Select, schema: Schema, execute: Execute, question: str,
                  written: frozenset[str], context: str = "") -> Finding | None:
    """``status <> 'failed'`` (``!=``, ``NOT IN``, ``NOT x = …``) that the model wrote (``written``: its literals),
    keeping every value of a text column but ones the question and ``context`` never say, where the question names
    exactly one value that column holds — quoted, typed as a name or a code, or said as a word of its own
    ("successful", "male patients") — that no literal of the query writes: the query keeping that value only. Where
    the question says "not", "other than" … before the value, it is no value asked for."""
    text = f"{asked.text} {context.lower()}"
    literals = {lit.this.lower() for lit in tree.find_all(exp.Literal) if lit.is_string}
    named = [v for v in _question_values(question, schema) if v.lower() not in literals and not set(
        re.findall(r"[a-z']+", asked.text[:max(0, asked.text.find(v.lower()))])[-3:]) & NOT_ONLY]
    probes = _MAX_PROBES
    for node in list(tree.find_all(exp.NEQ, exp.Not)):
        test = node.this if isinstance(node, exp.Not) else node
        if isinstance(node, exp.Not) and not isinstance(test, (exp.EQ, exp.In)):
            continue
        side = test.this
        case = str.lower if isinstance(side, exp.Lower) else str.upper if isinstance(side, exp.Upper) else str
        while isinstance(side, (exp.Lower, exp.Upper, exp.Trim)):
            side = side.this
        kept_out = test.expressions if isinstance(test, exp.In) else [test.expression]
        found = owner(side, tree, schema)
        if found is None or column_kind(found[1]) != "text" or not kept_out or not all(
                isinstance(v, exp.Literal) and v.is_string and v.this in written and v.this.lower() not in text
                and not _said(v.this, text) for v in kept_out):
            continue
        table, column = found
        hits = {v for v in column.value_hints if v.lower() not in literals and asks_for(asked.text, v)
                and not _included(asked.text, v)}
        for value in named[:max(0, probes)]:
            probes -= 1
            if (spelled := _spelling(table, column, value, schema, execute)) is not None:
                hits.add(spelled)
        if len({h.lower() for h in hits}) != 1:
            continue
        value = hits.pop()
        shown = node.sql(dialect=schema.dialect)
        node.replace(exp.EQ(this=test.this.copy(), expression=exp.Literal.string(case(value))))
        return (f"The query keeps every {column.name} but {', '.join(repr(v.this) for v in kept_out)} ({shown}), "
                f"which the question never says; the question says “{value}”, which {column.name} holds",
                f"Only {value}"[:80], tree)
    return None


def _said(value: str, text: str) -> bool:
    """A word of ``value`` (two letters or more) stands in the question's text."""
    return any(re.search(rf"(?<![\w-]){re.escape(w)}", text) for w in re.findall(r"[a-z0-9]{2,}", value.lower()))


def repeated_value(asked: Asked, tree: exp.Select, schema: Schema, execute: Execute, question: str) -> Finding | None:
    """One text literal compared with two different columns, ``from_airport = 'LAX' AND to_airport = 'LAX'``, where the
    question names exactly one value no literal of the query writes and the later column holds it (bounded probes):
    that value in the later comparison."""
    literals = {lit.this.lower() for lit in tree.find_all(exp.Literal) if lit.is_string}
    missing = [v for v in _question_values(question, schema) if v.lower() not in literals]
    if not missing or len(missing) > 3:
        return None
    seen: dict[str, exp.Column] = {}
    for node in list(tree.find_all(exp.EQ)):
        side, literal = node.this, node.expression
        if not (isinstance(side, exp.Column) and isinstance(literal, exp.Literal) and literal.is_string):
            continue
        first = seen.setdefault(literal.this.lower(), side)
        if first is side or first.name.lower() == side.name.lower():
            continue
        found = owner(side, tree, schema)
        if found is None or column_kind(found[1]) != "text":
            continue
        hits = [h for v in missing if (h := _spelling(*found, v, schema, execute)) is not None]
        if len(hits) != 1:
            return None
        written = literal.this
        literal.replace(exp.Literal.string(hits[0]))
        return (f"The query compares both {first.name} and {side.name} with '{written}'; the question also says "
                f"“{hits[0]}”, which {side.name} holds", f"{side.name} = '{hits[0]}'"[:80], tree)
    return None


_INCLUDED = re.compile(r"\b(?:even|counting|count|also|incl\w*)\b")


def _included(text: str, value: str) -> bool:
    """The question takes ``value`` in beside others: "even if delayed", "counting delayed ones too", "delayed count
    as operated" — no value asked for alone."""
    at = text.find(value.lower())
    if at < 0:
        return False
    before, after = text[max(0, at - 30):at], text[at + len(value):at + len(value) + 25]
    return bool(_INCLUDED.search(before) or re.search(r"\b(?:too|also|as well|bhi|count|counts|counted)\b", after))


_CASE_WORDS = re.compile(r"\b(?:case|capital\w*|upper\w*|lower\w*|exact\w*|as written|spelled)\b", re.IGNORECASE)


def position_evidence(question: str, sql: str, result: QueryResult, schema: Schema,
                      execute: Execute) -> tuple[list[str], list[Alternative]]:
    """``INSTR(name, 'Li') > 0`` (``STRPOS``, ``POSITION``): a search for a piece of text that minds its capitals,
    where LIKE on SQLite and the question's words do not. The search ignoring case is run and offered when it keeps
    other rows (the first such search of the query only); never where the question speaks of case or capitals."""
    tree = parse(sql, schema.dialect)
    if tree is None or result.truncated or _CASE_WORDS.search(question):
        return [], []
    for test in tree.find_all(exp.GT, exp.GTE, exp.NEQ):
        found, bound = test.this, test.expression
        if not (isinstance(found, exp.StrPosition) and isinstance(bound, exp.Literal) and not bound.is_string
                and bound.this in ("0", "1") and (bound.this == "1") == isinstance(test, exp.GTE)):
            continue
        col, piece = found.this, found.args.get("substr")
        if not (isinstance(col, exp.Column) and isinstance(piece, exp.Literal) and piece.is_string) or re.search(
                r"[%_\\]", piece.this) or piece.this.lower() == piece.this.upper():
            continue
        was = test.sql(dialect=schema.dialect)
        test.replace(exp.Like(this=exp.Lower(this=col.copy()), expression=exp.Literal.string(
            f"%{piece.this.lower()}%")))
        return offer(tree.sql(dialect=schema.dialect), "Ignoring case", lambda how, was=was, text=piece.this: (
            f"{was} finds '{text}' only in those capitals: ignoring case, {how}."), schema, execute, result)
    return [], []
