"""Join conditions the schema can settle: a key guessed by convention, USING on a column one side lacks, a JOIN
written without its condition.

Small models guess join keys (``c.id`` where customers' key is ``customer_id``, ``c.customer_id`` where it is
``id``), write ``USING (x)`` although only one side has ``x``, or drop ``ON`` altogether. Standard SQL rejects each
of these; SQLite and MySQL read the last one as a cross join and answer with every pair of rows. The condition is
rebuilt only from what the schema says, and only when exactly one column fits:

1. a key between the two tables the schema knows (declared, or inferred from names and checked on the data) with the
   intact side at one end: the other end;
2. else the column of the same name as the intact side, never a bare ``id`` (``a.id = b.id`` is the classic guess;
   for a JOIN without any condition, only a name that identifies a row of one table or names it, ``course_id``);
   when two keys relate the tables, a bare ``id`` side is not settled;
3. else the table's key when the intact column names that table (``customer_id`` onto customers), or a column
   naming the intact side's table when the intact column is that table's key (``users.uid`` onto
   ``notifications.user_id``);

always of a kind (number, text, date) that can equal the intact side. An equality of a number column with a text
or date column (``flight.flight_id = airline.airline_code``) is rejected by PostgreSQL and standard SQL; SQLite and
MySQL run it and match nothing, or match by accident. It is repaired when exactly one of its two sides can be
replaced by the rules above, and on a lenient database only once a bounded query shows that the condition as
written matches no pair of rows (a text column holding numbers that do match is a join that works). When no single
column fits, a JOIN without
its condition onto a table is an error that says so (never a cross join); the other faults are left to the column
repair, which names the closest columns. A comparison of a column with itself is never produced.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp
from sqlglot.optimizer.scope import Scope

from core.dialects import is_postgres_like
from core.errors import SQLValidationError
from core.schema import Column, Schema, Table
from core.sql.repair._names import GUESSED, KEY_WORDS, identifier, tokens
from core.sql.repair._scope import Source, find_source, scope_sources, scopes
from core.sql.repair._text_numbers import holds_numbers_as_text
from core.sql.repair._types import kind_of

__all__ = ["JoinMatches", "join_candidates", "named_key", "repair_join_keys", "self_comparison", "table_keys"]

# Runs a bounded query (``SELECT 1 FROM a JOIN b ON … LIMIT 1``) under the read-only guard: True when it finds a row,
# False when none, None when it could not tell (failed, timed out).
JoinMatches = Callable[[str], "bool | None"]



def _same_table(a: Table, b: Table) -> bool:
    return a.qualified_name.lower() == b.qualified_name.lower()


def _refers(fk_table: str, table: Table) -> bool:
    name = fk_table.lower()
    return name in (table.qualified_name.lower(), table.name.lower()) or name.split(".")[-1] == table.name.lower()


def table_keys(table: Table) -> list[str]:
    """The columns that identify a row of ``table``: its one-column primary key, else a column called ``id`` or the
    table's initial and ``id`` (``aid`` on author, ``jid`` on journal)."""
    if len(table.primary_key) == 1:
        return [table.primary_key[0]]
    initial = table.name[:1].lower()
    return [c.name for c in table.columns if c.name.lower() in ("id", f"{initial}id", f"{initial}_id")]


def _names_table(column: str, table: Table) -> bool:
    """``customer_id`` / ``customerNo`` names customers: the column's words are the table's, then a key word; or the
    table's name and ``id`` or ``key`` written as one word (``paperid`` on paper, ``keyphraseid`` on keyphrase)."""
    words, glued = tokens(column), column.lower().removeprefix(table.name.lower())
    return len(words) >= 2 and words[-1] in KEY_WORDS and words[:-1] == tokens(table.name) or (
        len(words) == 1 and glued != column.lower() and glued in ("id", "key"))  # never postcode, phonenumber


def _relations(a: Table, b: Table) -> list[tuple[str, str]]:
    """(column of ``a``, column of ``b``) of each one-column key, declared or inferred, between the two tables."""
    pairs = [(fk.columns[0], fk.ref_columns[0]) for fk in a.foreign_keys
             if len(fk.columns) == 1 and _refers(fk.ref_table, b)]
    pairs += [(fk.ref_columns[0], fk.columns[0]) for fk in b.foreign_keys
              if len(fk.columns) == 1 and _refers(fk.ref_table, a)]
    return pairs


def _key_of_either(name: str, a: Table, b: Table) -> bool:
    """A column both tables have is their join key when it identifies a row of one of them or names one of them
    (``course_id`` in course and course_offering)."""
    return any(name.lower() in (k.lower() for k in table_keys(t)) or _names_table(name, t) for t in (a, b))


def _kinds_agree(a: str | None, b: str | None) -> bool:
    ka, kb = kind_of(a or ""), kind_of(b or "")
    return ka is None or kb is None or ka == kb or {ka, kb} == {"text", "date"}


def join_candidates(table: Table, other: Table, other_column: str) -> list[str]:
    """Columns of ``table`` that ``other.other_column`` may join onto, by the rules of the module docstring."""
    intact = other.column(other_column)
    if intact is None or _same_table(table, other):
        return []
    relations = _relations(table, other)
    by_key = [mine for mine, theirs in relations if theirs.lower() == intact.name.lower()]
    if len(relations) > 1 and tokens(intact.name) == ("id",):
        return []  # two keys relate the tables and the intact side is the classic bare id guess: which one?
    if by_key:
        found = list(dict.fromkeys(by_key))
    else:
        found = []
        same = table.column(intact.name)
        if same is not None and tokens(intact.name) != ("id",):
            found.append(same.name)
        if _names_table(intact.name, table):
            found += table_keys(table)
        if intact.name in table_keys(other):
            found += [c.name for c in table.columns if _names_table(c.name, other)]
    out = []
    for name in dict.fromkeys(found):
        column = table.column(name)
        if column is not None and _kinds_agree(column.type, intact.type):
            out.append(column.name)
    return out


def self_comparison(col: exp.Column, qualifier: str, owners: Callable[[exp.Column], list[str]] | None = None) -> bool:
    """Whether qualifying ``col`` with ``qualifier`` would make a join's ON equality compare two columns of one
    table (``s.customer_id = s.customer_id`` is true of every row: the join becomes a cross join)."""
    parent = col.parent
    while isinstance(parent, exp.Paren):
        parent = parent.parent
    join = col.find_ancestor(exp.Join)
    if not isinstance(parent, exp.EQ) or join is None or col.find_ancestor(exp.Select) is not join.parent:
        return False
    if not any(node is parent for node in (join.args.get("on") or exp.true()).walk()):
        return False
    other = parent.expression if parent.this is col else parent.this
    if not isinstance(other, exp.Column):
        return False
    if other.table:
        return other.table.lower() == qualifier.lower()
    found = owners(other) if owners is not None else []  # a bare other side reads its one owner
    return len(found) == 1 and found[0].lower() == qualifier.lower()


class _Joins:
    def __init__(self, schema: Schema, dialect: str, fixes: list[str], join_matches: JoinMatches | None) -> None:
        self.schema, self.dialect, self.fixes = schema, dialect, fixes
        self.join_matches = join_matches

    def scope(self, scope: Scope) -> None:
        joins = scope.expression.args.get("joins") or []
        if not joins:
            return
        local = scope_sources(scope, self.schema, self.dialect)
        for join in joins:
            on = join.args.get("on")
            if _missing_condition(join):
                self.missing(join, local)
            elif on is not None:
                for cond in on.flatten() if isinstance(on, exp.And) else [on]:
                    cond = cond.unnest() if isinstance(cond, exp.Paren) else cond
                    if isinstance(cond, exp.EQ):
                        self.qualify(join, cond, local)
                        self.equality(cond, local)
                        self.tautology(join, cond, local)
            elif join.args.get("using"):
                self.using(join, local)

    def _source(self, col: exp.Column, local: list[Source]) -> Source | None:
        if not col.table:
            owners = [s for s in local if s.table is not None and s.has(col.this, self.dialect) is not None]
            return owners[0] if len(owners) == 1 and not any(s.open for s in local) else None
        src = find_source(exp.to_identifier(col.table), local)
        if src is None:
            named = [s for s in local if s.table is not None and s.table.name.lower() == col.table.lower()]
            src = named[0] if len(named) == 1 else None
        return src if src is not None and src.table is not None else None

    def tautology(self, join: exp.Join, cond: exp.EQ, local: list[Source]) -> None:
        """``ON a.aid = a.aid``: true of every row, the join pairs every row with every row. Never what is meant: a
        join's condition relates the joined table to one before it. When exactly one column can stand on the other
        side — of the joined table (``JOIN writes ON author.aid = author.aid``: ``writes.aid``), or, where both
        sides name the joined table, of one table before it (``JOIN journal ON journal.jid = journal.jid``:
        ``publication.jid``), by the schema's keys and names — it is read so, said; else an error."""
        left, right = cond.this, cond.expression
        if not (isinstance(left, exp.Column) and isinstance(right, exp.Column)):
            return
        a, b = self._source(left, local), self._source(right, local)
        if a is None or a is not b or left.name.lower() != right.name.lower():
            return
        new = next((s for s in local if join.this is s.node or join.this is s.node.parent), None)  # derived: its SELECT
        assert a.table is not None
        if new is not None and new is not a:  # the joined table's pair of a.x (a derived table's own x)
            options = [(new, c) for c in join_candidates(new.table, a.table, left.name)] if new.table is not None \
                else [(new, left.name)] if new.has(left.this, self.dialect) is not None else []
        elif new is a:  # a table before it; in a self-join, the same column of the other copy
            options = [(s, c) for s in local if s.order < a.order and s.table is not None
                       for c in (join_candidates(s.table, a.table, left.name) or ([left.name] if s.table is a.table
                                 and left.name.lower() not in map(str.lower, table_keys(a.table))
                                 else []))]  # a self-join on a key never pairs a row with itself
        else:
            options = []
        if len(options) != 1:
            raise SQLValidationError(
                f"The join condition {cond.sql(dialect=self.dialect)} compares {a.key}.{left.name} with itself, so "
                "it relates nothing (every row would pair with every row)",
                hint="Compare a column of the joined table with a column of a table before it.")
        before = cond.sql(dialect=self.dialect)
        src, column = options[0]
        right.set("table", src.key_ident.copy() if src.key_ident is not None else exp.to_identifier(src.key))
        right.set("this", identifier(column, self.dialect))
        self.fixes.append(f"join {before} -> {cond.sql(dialect=self.dialect)} (it compared a column with itself; "
                          f"the one column the schema pairs it with on the other table){GUESSED}")

    def qualify(self, join: exp.Join, cond: exp.EQ, local: list[Source]) -> None:
        """``JOIN writes ON aid = aid``, ``JOIN customers c ON s.customer_id = id``: a side written without a
        qualifier although several tables before it have that name (an error: it is ambiguous). A join's condition
        relates the joined table to one before it, so each side is read from a different table, the joined table
        being one of them; it is qualified when that leaves exactly one table for it."""
        sides = (cond.this, cond.expression)
        if not all(isinstance(c, exp.Column) and isinstance(c.this, exp.Identifier) for c in sides):
            return
        new = next((s for s in local if s.node is join.this), None)
        if new is None or any(s.open for s in local if s.order <= new.order):
            return

        def owners(col: exp.Column) -> list[Source]:
            if col.table:
                src = self._source(col, local)
                return [src] if src is not None else []
            return [s for s in local if s.order <= new.order and s.has(col.this, self.dialect) is not None]

        left, right = (owners(c) for c in sides)
        if not left or not right or (len(left) == 1 and len(right) == 1):
            return  # unknown, or already one table each
        readings = [(a, b) for a in left for b in right if a is not b and new in (a, b)]
        if sides[0].name.lower() == sides[1].name.lower():  # aid = aid: either way round reads the same
            readings = [r for r in readings if r[0].order < r[1].order]
        if len(readings) != 1:
            return
        before = cond.sql(dialect=self.dialect)
        for col, src in zip(sides, readings[0], strict=True):
            if not col.table:
                col.set("table", src.key_ident.copy() if src.key_ident is not None else exp.to_identifier(src.key))
        self.fixes.append(f"join {before} -> {cond.sql(dialect=self.dialect)} (one side from each table)")

    def equality(self, cond: exp.EQ, local: list[Source]) -> None:
        """``a.x = b.y`` where one side's table has no such column and no other source of the query has it but
        the intact side's own: the column the schema says ``b.y`` joins onto."""
        left, right = cond.this, cond.expression
        if not (isinstance(left, exp.Column) and isinstance(right, exp.Column)):
            return
        a, b = self._source(left, local), self._source(right, local)
        if a is None or b is None or a is b:
            return
        assert a.table is not None and b.table is not None
        ca, cb = a.table.column(left.name), b.table.column(right.name)
        if ca is not None and cb is not None:
            self.mismatch(cond, (left, a, ca), (right, b, cb))
            return
        for bad, bad_src, good, good_src in ((left, a, right, b), (right, b, left, a)):
            assert bad_src.table is not None and good_src.table is not None
            if bad_src.table.column(bad.name) is not None or good_src.table.column(good.name) is None:
                continue
            elsewhere = [s for s in local if s is not bad_src and s.has(bad.name, self.dialect) is not None]
            if any(s is not good_src for s in elsewhere):
                return  # a column of a third table under the wrong alias: the column repair's case
            found = join_candidates(bad_src.table, good_src.table, good.name)
            if len(found) != 1:
                return
            before, was = cond.sql(dialect=self.dialect), bad.name
            bad.set("this", identifier(found[0], self.dialect))
            self.fixes.append(f"join {before} -> {cond.sql(dialect=self.dialect)} ({bad_src.key}.{was} is "
                              "not a column; the one the schema's keys and names pair with the other side)")
            return

    def mismatch(self, cond: exp.EQ, *sides: tuple[exp.Column, Source, Column]) -> None:
        """``a.x = b.y`` of a number and a text or date column: the one side the schema can replace."""
        (_, _, ca), (_, _, cb) = sides
        kinds = {kind_of(ca.type or ""), kind_of(cb.type or "")}
        if "number" not in kinds or not kinds & {"text", "date"} or any(holds_numbers_as_text(c) for c in (ca, cb)):
            return
        options = []
        for (bad, bad_src, _), (_, good_src, good) in (sides, sides[::-1]):
            assert bad_src.table is not None and good_src.table is not None
            if good_src.table.column(good.name) is not None:
                options += [(bad, name) for name in join_candidates(bad_src.table, good_src.table, good.name)]
        if len(options) != 1:
            return
        if not is_postgres_like(self.dialect) and self._matches_as_written(sides) is not False:
            return  # a lenient database may join them as written: keep it unless it surely matches nothing
        bad, name = options[0]
        before = cond.sql(dialect=self.dialect)
        bad.set("this", identifier(name, self.dialect))
        self.fixes.append(f"join {before} -> {cond.sql(dialect=self.dialect)} (it compared a number with a "
                          "text; the column the schema's keys and names pair with the other side)")

    def _matches_as_written(self, sides: tuple[tuple[exp.Column, Source, Column], ...]) -> bool | None:
        if self.join_matches is None:
            return None
        (_, a, ca), (_, b, cb) = sides
        left, right = a.node.copy(), b.node.copy()
        if not isinstance(left, exp.Table) or not isinstance(right, exp.Table):
            return None
        left.set("alias", exp.TableAlias(this=exp.to_identifier("l")))
        right.set("alias", exp.TableAlias(this=exp.to_identifier("r")))
        on = exp.EQ(this=exp.column(identifier(ca.name, self.dialect), table="l"),
                    expression=exp.column(identifier(cb.name, self.dialect), table="r"))
        probe = exp.select("1").from_(left).join(right, on=on).limit(1)
        return self.join_matches(probe.sql(dialect=self.dialect))

    def using(self, join: exp.Join, local: list[Source]) -> None:
        """``JOIN b USING (x)`` where one side lacks ``x``: ON with the column the schema gives that side."""
        names = [i.name for i in join.args["using"]]
        if len(names) != 1:
            return
        new = next((s for s in local if s.node is join.this), None)
        if new is None or new.table is None:
            return
        earlier = [s for s in local if s.order < new.order and s.table is not None]
        holders = [s for s in earlier if s.has(names[0], self.dialect) is not None]
        mine = new.has(names[0], self.dialect)
        if (mine is None) == (not holders):
            return  # both sides have it (fine), or neither does (nothing to stand on)
        if mine is None:  # the joined table lacks it: the column of it the one holder's column joins onto
            theirs = holders[0].has(names[0], self.dialect) if len(holders) == 1 else None
            options = [(holders[0], theirs, c) for c in join_candidates(new.table, holders[0].table, theirs)] \
                if theirs is not None and holders[0].table is not None else []
        else:  # the tables before it lack it: the column of one of them it joins onto
            options = [(s, c, mine) for s in earlier if s.table is not None
                       for c in join_candidates(s.table, new.table, mine)]
        if len(options) == 1:
            other, left, right = options[0]
            self._set_on(join, other, left, new, right, f"USING ({names[0]})")

    def missing(self, join: exp.Join, local: list[Source]) -> None:
        """``FROM a JOIN b`` with no condition: the one key the schema gives between b and an earlier table, else an
        error (standard SQL rejects it; SQLite would pair every row with every row)."""
        new = next((s for s in local if s.node is join.this), None)
        if new is None or _related_in_where(join, new, local, self.dialect):
            return  # FROM a JOIN b WHERE a.x = b.y: SQLite reads it as the comma join it is written as
        if new.table is None:
            if _one_row(new.node):
                return  # JOIN (SELECT COUNT(*) …) t: a row of totals beside every row, as meant
            derived = _derived_options(new, [s for s in local if s.order < new.order and s.table is not None])
            if len(derived) == 1:  # WITH ls AS (SELECT car_id, …) … FROM cars c JOIN ls: on the car's key
                left, key, column = derived[0]
                self._set_on(join, left, key, new, column, "no condition", "the key the schema gives" if key in
                             table_keys(left.table) else "the one column both have")  # type: ignore[arg-type]
                return
            raise SQLValidationError(
                f"JOIN {new.key} has no ON condition and nothing relates it to the tables before it, so every row "
                "would pair with every row of it",
                hint=f"Write the condition: JOIN {new.key} ON <column of {new.key}> = <column of a table before it>.")
        earlier = [s for s in local if s.order < new.order and s.table is not None
                   and not _same_table(s.table, new.table)]  # a table joined to itself on its own key: itself
        options = []
        for s in earlier:
            assert s.table is not None
            relations = _relations(s.table, new.table)
            if not relations:
                shared = {c.name.lower(): c.name for c in s.table.columns}
                relations = [(shared[c.name.lower()], c.name) for c in new.table.columns if c.name.lower() in shared
                             and tokens(c.name) != ("id",) and _key_of_either(c.name, s.table, new.table)]
            options += [(s, mine, theirs) for mine, theirs in dict.fromkeys(relations)]
        if len(options) != 1:
            tables = ", ".join(s.key for s in earlier) or "the table before it"
            raise SQLValidationError(
                f"JOIN {new.key} has no ON condition, and the schema does not say how {new.key} joins {tables}",
                hint=f"Write the condition: JOIN {new.key} ON <column of {new.key}> = <column of {tables}>.")
        other, mine, theirs = options[0]
        self._set_on(join, other, mine, new, theirs, "no condition")

    def _set_on(self, join: exp.Join, left: Source, left_col: str, right: Source, right_col: str, was: str,
                because: str = "the key the schema gives") -> None:
        def column(src: Source, name: str) -> exp.Column:
            qualifier = src.key_ident.copy() if src.key_ident is not None else exp.to_identifier(src.key)
            return exp.Column(this=identifier(name, self.dialect), table=qualifier)

        on = exp.EQ(this=column(left, left_col), expression=column(right, right_col))
        join.set("using", None)
        join.set("on", on)
        self.fixes.append(f"JOIN {right.key} {was} -> ON {on.sql(dialect=self.dialect)} ({because})")


def _derived_options(new: Source, earlier: list[Source]) -> list[tuple[Source, str, str]]:
    """(earlier table, its column, the same column of a CTE or derived table) for each output column of ``new`` that is
    an earlier table's one key by name (``car_id`` or ``id`` of ``cars``, read through a CTE); with none, each column
    ``new`` shares by name with an earlier table (``ls.snapshot_date`` with ``inv.snapshot_date``)."""
    options = []
    for s in earlier:
        assert s.table is not None
        keys = table_keys(s.table)
        if len(keys) != 1:
            continue
        options += [(s, keys[0], c) for c in new.columns if c.lower() == keys[0].lower() and keys[0].lower() != "id"
                    or _names_table(c, s.table)]
    if not options:  # else the one column it shares by name with one earlier table (the column it was made from)
        options = [(s, held, c) for s in earlier for c in new.columns if s.table is not None and (
            held := next((x.name for x in s.table.columns if x.name.lower() == c.lower()), None)) is not None]
    return options


def _related_in_where(join: exp.Join, new: Source, local: list[Source], dialect: str) -> bool:
    """Whether the WHERE of the join's SELECT compares a column of ``new`` with one of another table."""
    select = join.parent
    where = select.args.get("where") if isinstance(select, exp.Select) else None
    if where is None:
        return False
    for cond in where.find_all(exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE):
        sides = [[s for s in local if (c.table and s.key.lower() == c.table.lower())
                  or (not c.table and s.has(c.this, dialect) is not None)]
                 for c in (cond.this, cond.expression) if isinstance(c, exp.Column)]
        if len(sides) == 2 and any(new in x for x in sides) and any(s is not new for x in sides for s in x):
            return True
    return False


def _one_row(node: exp.Expression) -> bool:
    """A derived table that is one row: an aggregate without GROUP BY, or LIMIT 1."""
    select = node.this if isinstance(node, exp.Subquery) else node
    if not isinstance(select, exp.Select):
        return False
    limit = select.args.get("limit")
    if limit is not None and isinstance(limit.expression, exp.Literal) and limit.expression.name == "1":
        return True
    return select.args.get("group") is None and any(p.find(exp.AggFunc) for p in select.expressions)


def _missing_condition(join: exp.Join) -> bool:
    """A ``JOIN`` keyword, inner or outer (``LEFT JOIN sales s WHERE …``), with neither ON nor USING (sqlglot reads
    SQLite's as ``ON TRUE``, and keeps a ``pivots`` slot on a JOIN keyword and none on a comma); a comma, CROSS JOIN,
    NATURAL JOIN or LATERAL is meant so."""
    on = join.args.get("on")
    if (on is not None and on != exp.true()) or join.args.get("using") or join.args.get("method"):
        return False
    if (join.args.get("kind") or "INNER").upper() not in ("INNER", "OUTER"):
        return False  # CROSS JOIN, and the like
    if isinstance(join.this, (exp.Lateral, exp.Unnest)):
        return False
    return "pivots" in join.args or bool(join.args.get("side")) or bool(join.args.get("kind"))


def repair_join_keys(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str],
                     join_matches: JoinMatches | None = None) -> None:
    """Settle the join conditions of every SELECT of ``tree`` in place (see the module docstring). Without
    ``join_matches`` a lenient database's number-with-text join is left as written."""
    joins = _Joins(schema, dialect, fixes, join_matches)
    for scope in scopes(tree):
        joins.scope(scope)


def named_key(name: str, src: Source, schema: Schema | None = None, col: exp.Column | None = None) -> str | None:
    """The key of ``src``'s table when ``name`` is ``id`` and the table's one key is spelled otherwise (``author.id`` for
    aid), or that table's name and a key word (``publication_id``,
    ``customerNo``) and the table's key is spelled otherwise (``pid``, ``id``); or, with the ``schema``, the column
    of ``src`` spelled as the key of the table ``name`` names (``journal_id`` for publication's ``jid``, journal's
    key: the column that points there, by the name the schema gives it). ``col``: where the name stands."""
    if src.table is None:
        return None
    words = tokens(name)
    if words == ("id",) and col is not None:  # ``author.id`` where author's one key is aid (qualified)
        if any(tokens(c) == (*tokens(src.table.name), "id") for c in src.table.column_names):
            return None  # ``business.id`` beside business_id: that column, by its name (the spelling repair's)
        keys = table_keys(src.table)
        return keys[0] if len(keys) == 1 and keys[0].lower() != name.lower() and _pairs_with(col, keys[0]) else None
    if len(words) < 2 or words[-1] not in KEY_WORDS:
        return None
    if words[:-1] != tokens(src.table.name):
        named = [t for t in (schema.tables if schema else ()) if t is not src.table and tokens(t.name) == words[:-1]]
        keys = [k for t in named for k in table_keys(t) if len(table_keys(t)) == 1 and _key_names(k, t)]
        own = {k.lower() for k in (*src.table.primary_key[:1], "id")} if len(src.table.primary_key) < 2 else set()
        # orders.id (its declared key, or "id") is the order, never the customer it points to; a key only guessed
        # from initials (domain_author.did) may be a pointer
        held = [c for c in src.table.column_names
                if len(keys) == 1 and c.lower() == keys[0].lower() != name.lower() and c.lower() not in own]
        return held[0] if len(named) == 1 and held else None
    keys = table_keys(src.table)
    if any(tokens(c) in (words, words[-1:]) and c not in keys for c in src.table.column_names):
        return None  # ``BusinessId`` where business has business_id besides its key bid, ``coupon_code`` where
        # coupons has code besides its key cid: that column, by its name (``cars.car_id`` is cars' key id)
    return keys[0] if len(keys) == 1 and keys[0].lower() != name.lower() else None


def _pairs_with(col: exp.Column | None, key: str) -> bool:
    """Whether a bare ``id`` read as its table's key ``key`` fits where it stands: anywhere but a join's equality, and
    there only beside a column of that name (``writes.aid = author.id``; ``e.id = d.id`` is no relation)."""
    test = col.parent if col is not None else None
    if not isinstance(test, exp.EQ) or test.find_ancestor(exp.Join) is None:
        return True
    other = test.expression if test.this is col else test.this
    return isinstance(other, exp.Column) and other.name.lower() == key.lower()


def _key_names(key: str, table: Table) -> bool:
    """Whether a key's name says whose key it is (``jid`` for journal, ``journal_id``): then a column of that name
    in another table points there. A generic one (``id``, ``uuid``, ``code``) is every table's own key as well."""
    words = tokens(key)
    return bool(set(words) & set(tokens(table.name))) or (
        len(key) <= 4 and key[:1].lower() == table.name[:1].lower() and key.lower().endswith("id") and key.lower() != "id")
