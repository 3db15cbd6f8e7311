"""A count that is 1 in every group by its construction: ``COUNT(DISTINCT publication.year) … GROUP BY
publication.year`` — within a group the key has one value, so the column says nothing, whatever the data. Read as the
count of the thing the question counts ("the number of publications"), else the thing the count's name says
(``total_publications``) — a guess the model is shown first (``GUESSED``), with the query as written one click away on
the answer:

- a table of the query the word names (whole before a link table holding it; a name PostgreSQL folded to one word,
  ``sbtransaction``, by the word it ends with), by its own key — ``COUNT(DISTINCT publication.pid)``; a table's own
  key is its one-column primary key, ``id``, its initial and ``id`` (``table_keys``; never on a link table named for
  two tables, whose ``did`` is domain's), else the one column named for it and ``id`` (``flight_id`` on flight,
  ``paperid`` on paper, ``sbTxId``/``sbtxid`` on sbTransaction, whose columns all start ``sbTx``);
- else the one column the word names as a reference (``patient_id`` for "patients", ``sbTxCustId`` for "customers",
  ``aid`` on domain_author for "authors"): ``COUNT(DISTINCT patient_id)``;
- else, in a query of one table where nothing at all is named, its rows — ``COUNT(*)``, the group's size.

The count's copies in ORDER BY and HAVING are read with it. Left as written where the question and the count's name
name different things, where they name nothing of the query ("units") or a table it does not read, where what is
named is the group's key again (a key, or joined equal to one), and inside an expression (a ratio's term): the
answer's check then offers each group's rows (``evidence._groups.constant_count_evidence``). Only a
``COUNT(DISTINCT x)`` that is a whole select item and whose one argument is a GROUP BY key of its SELECT (or the
expression a key's output name stands for); a plain ``COUNT(x)`` (the group's size), a count of another column and a
count in a query with no GROUP BY vary and are left.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from sqlglot import exp

from core.sql.repair._names import COUNTED_THING, GUESSED, KEY_WORDS, counted_thing, tokens, word_forms
from core.sql.repair._scope import Source, column_prefix, group_keys, scope_sources, scopes
from core.sql.repair.joins import table_keys
from core.schema import Column, Schema

__all__ = ["constant_counts"]

_NOT_A_THING = frozenset({"number", "num", "no", "count", "cnt", "total", "of", "distinct", "unique", "the", "n"})


def constant_counts(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str], question: str) -> None:
    """``COUNT(DISTINCT k)`` grouped by ``k``: the count of the named thing (a guess), or left as written."""
    for scope in scopes(tree):
        select = scope.expression
        keys = group_keys(select) if isinstance(select, exp.Select) else []
        if not keys:
            continue
        for count in list(select.find_all(exp.Count)):
            distinct = count.this
            if count.find_ancestor(exp.Select) is not select or not isinstance(distinct, exp.Distinct) or len(
                    distinct.expressions) != 1 or not any(distinct.expressions[0].unnest() == k.unnest() for k in keys):
                continue
            written = count.sql(dialect=dialect)
            item = count.parent if isinstance(count.parent, exp.Alias) else count
            if item not in select.expressions:
                continue  # inside an expression (a ratio's term): what it stands for is not said
            sources = scope_sources(scope, schema, dialect)
            counted = _counted(item.alias if item is not count else "", question, sources, schema)
            if counted is None or _still_the_key(counted, keys, select):
                continue  # nothing named, or what is named is the group's key again: left to the answer's check
            replacement = exp.Count(this=counted) if isinstance(counted, exp.Star) else exp.Count(
                this=exp.Distinct(expressions=[counted]))
            for same in [c for c in select.find_all(exp.Count) if c == count and c.find_ancestor(exp.Select) is select]:
                same.replace(replacement.copy())  # its copies in ORDER BY and HAVING too: one count, read once
            said = "the rows of each group" if isinstance(counted, exp.Star) else "the thing it names"
            fixes.append(f"{written} is 1 in every group (it counts the group's own key): counted "
                         f"{replacement.sql(dialect=dialect)}, {said}" + GUESSED)


def _still_the_key(counted: exp.Expression, keys: list[exp.Expression], select: exp.Select) -> bool:
    """Whether the count read is the group's key again: a key itself, or a column a join condition equates with
    one (``da.did`` grouped by ``d.did``, ``JOIN … ON da.did = d.did``)."""
    if isinstance(counted, exp.Star):
        return False
    same = {counted.sql()}
    for join in select.args.get("joins") or []:
        for eq in (join.args.get("on") or exp.true()).find_all(exp.EQ):
            sides = {eq.this.sql(), eq.expression.sql()}
            if same & sides:
                same |= sides
    names = {exp.to_column(n).name.lower() for n in same}
    return any(k.unnest().sql() in same or (isinstance(k, exp.Column) and not k.table and k.name.lower() in names)
               for k in keys)


def _counted(alias: str, question: str, sources: list[Source], schema: Schema) -> exp.Expression | None:
    """What the count counts: what the question's "number of …" names — else the count's name — among the sources
    (a column, or ``*`` for the rows of a query's one table where nothing is named at all); None where the two name
    different things, or the words name nothing of the query."""
    said = COUNTED_THING.search(question or "")
    named = {w for word in tokens(alias) if word not in _NOT_A_THING for w in word_forms(word)}
    names = frozenset("_".join(tokens(t.name)) for t in schema.tables)
    by_name = _reading(named, sources, names) if named else None
    if said:
        words = word_forms(counted_thing(said))
        asked = _reading(words, sources, names)
        if asked is not None:  # the question decides; a name that says another thing makes it unsure
            return asked if by_name is None or _same(asked, by_name, sources) else None
        if _elsewhere(words, sources, schema) or by_name is None:
            return None  # the question counts a thing the query does not read, or one nothing names ("units")
    if by_name is not None or named:
        return by_name  # a name that names nothing of the query ("units_sold") says no count to take
    return _rows(sources)  # nothing named at all: a one-table query's rows


def _same(a: exp.Expression, b: exp.Expression, sources: list[Source]) -> bool:
    """The same count: one column, or a query's one table's rows and its key."""
    return a == b or (len(sources) == 1 and (isinstance(a, exp.Star) or isinstance(b, exp.Star)))


def _reading(words: set[str], sources: list[Source], names: frozenset[str]) -> exp.Expression | None:
    """The column ``words`` name for counting: the own key of the one table they name (whole before a table holding
    them), else the one column naming them as a reference; ``*`` where a query's one table is named or holds
    several such columns."""
    tables = [s for s in sources if s.table is not None and _names(s.table.name, words)]
    whole = [s for s in tables if _names(s.table.name, words, whole=True)]  # author before domain_author
    keyed = {(s.key, key) for s in (whole or tables) if (key := _own_key(s, names)) is not None}
    if len(keyed) == 1:
        alias, key = keyed.pop()
        return exp.column(key, table=alias)
    if keyed:
        return None
    refs = {(s.key, c.name) for s in sources if s.table is not None for c in s.table.columns if _refers(c.name, s, words)}
    if len(refs) == 1:
        alias, column = refs.pop()
        return exp.column(column, table=alias)
    return _rows(sources) if tables or refs else None


def _rows(sources: list[Source]) -> exp.Expression | None:
    """``*`` where the query reads one table: its rows are what a group holds."""
    return exp.Star() if len(sources) == 1 and sources[0].table is not None else None


def _elsewhere(words: set[str], sources: list[Source], schema: Schema) -> bool:
    """Whether ``words`` name a table of the schema the query does not read (then the query lacks the thing)."""
    read = {id(s.table) for s in sources}
    return any(_names(t.name, words) for t in schema.tables if id(t) not in read)


def _names(name: str, words: set[str], whole: bool = False) -> bool:
    """Whether ``words`` name the table ``name`` (with ``whole``: every word of it, ``author`` but not
    ``domain_author``); a name folded to one word (``sbtransaction``, PostgreSQL's fold of sbTransaction) is named by
    the word it ends with, whole where at most three letters stand before it."""
    parts = tokens(name)
    if len(parts) > 1 or parts[0] in words:
        return set(parts) <= words if whole else bool(words & set(parts))
    ends = [len(name) - len(w) for w in words if len(w) >= 4 and name.lower().endswith(w)]
    return bool(ends) and (not whole or min(ends) <= 3)


def _own_key(source: Source, tables: frozenset[str]) -> str | None:
    """The column that identifies a row of ``source``'s table (``table_keys``), else the one column named for the
    table and ``id`` — ``flight_id``, ``paperid``, ``sbTxId`` (or ``sbtxid``) where the table's columns all start so."""
    table = source.table
    assert table is not None
    words = tokens(table.name)
    declared = table_keys(table)
    if declared and (table.primary_key or declared[0].lower() == "id" or not _links(words, tables)):
        return declared[0]  # a link table's initial and id (``did`` on domain_author) is the other table's key
    own = {("id",), words + ("id",), ("".join(words), "id")}
    found = [c.name for c in table.columns if _rest(c.name, source) in own]
    return found[0] if len(found) == 1 else None


def _links(words: tuple[str, ...], tables: frozenset[str]) -> bool:
    """Whether a table's name is two or more of the schema's table names (``domain_author``): a link table."""
    return len(words) >= 2 and all(word in tables for word in words)


def _refers(column: str, source: Source, words: set[str]) -> bool:
    """``patient_id`` / ``sbTxCustId`` / ``authorid`` / ``visitor`` refer to the thing ``words`` name: the thing's
    word (or its first letters), then a key word, after the words every column of the table starts with; on a table
    named for the thing (``domain_author``), its initial and ``id`` (``aid``)."""
    rest = _rest(column, source)
    if len(rest) == 2 and rest[1] == "id" and len(rest[0]) == 1 and source.table is not None:
        return any(w in tokens(source.table.name) and w.startswith(rest[0]) for w in words)  # ``aid`` on domain_author
    if len(rest) == 2 and rest[1] in KEY_WORDS:
        return rest[0] in words or (len(rest[0]) >= 3 and any(w.startswith(rest[0]) for w in words))
    return len(rest) == 1 and any(rest[0] in (w, w + "id") for w in words)


def _rest(column: str, source: Source) -> tuple[str, ...]:
    """A column's words after the leading words its table's columns share, a trailing ``id`` split off a name
    written as one word: ``sbTxCustId`` or ``sbtxcustid`` on sbTransaction: cust, id; ``paperid``: paper, id."""
    table = source.table
    assert table is not None
    words = tokens(column)
    if len(words) > 1:
        prefix = column_prefix(table.columns)
        return words[len(prefix):] if words[:len(prefix)] == prefix and len(words) > len(prefix) else words
    name = column.lower()
    name = name[len(_letters_shared(table.columns)):] or name
    return (name[:-2], "id") if name.endswith("id") and len(name) > 2 else ("id",) if name == "id" else (name,)


def _letters_shared(columns: Sequence[Column]) -> str:
    """The longest run of first letters at least three quarters of the columns share (``sbtx`` of sbtxid,
    sbtxcustid, …; none under three columns), ending before a column's last two letters."""
    names = [c.name.lower() for c in columns]
    shared = ""
    if len(names) < 3:
        return shared
    for size in range(1, max(map(len, names))):
        head, count = Counter(n[:size] for n in names if len(n) > size + 1).most_common(1)[0] if any(
            len(n) > size + 1 for n in names) else ("", 0)
        if count * 4 < len(names) * 3:
            break
        shared = head
    return shared
