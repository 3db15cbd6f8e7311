"""Idioms of one dialect that the other rejects as written, rewritten to the same meaning in the target.

PostgreSQL: ``TOP n WITH TIES`` / ``LIMIT n WITH TIES`` -> ``FETCH FIRST n ROWS WITH TIES``; SQLite's
``COLLATE NOCASE`` (no such collation) -> ``ILIKE`` for a pattern, ``LOWER()`` on both sides of a comparison, and
``LOWER()`` of a sort key; SQLite's ``julianday(x)`` -> the same number from the epoch.
SQLite: ``N'text'`` -> ``'text'``; ``CONCAT(a, b)`` -> ``COALESCE(a, '') || COALESCE(b, '')`` (what CONCAT means:
NULL as empty; SQLite before 3.44 has no CONCAT).
SQLite and PostgreSQL: MySQL's ``TO_DAYS``, ``DAYOFWEEK``, ``DAYOFMONTH`` and ``UNIX_TIMESTAMP`` by their definitions.
Every dialect: ClickHouse's ``countIf(cond)``, ``sumIf(x, cond)`` (and AVG, MIN, MAX) -> the aggregate of
``CASE WHEN cond THEN … END``, ``uniqExact(x)`` -> ``COUNT(DISTINCT x)``; pandas' and spreadsheets' ``nunique(x)`` / ``mean(x)`` / ``fillna(x, v)`` -> ``COUNT(DISTINCT x)`` /
``AVG(x)`` / ``COALESCE(x, v)``; MySQL's ``COUNT(DISTINCT a, b)`` -> the count of distinct pairs, and
``COUNT(DISTINCT *)`` (no database reads it) -> ``COUNT(*)`` (SQLite, PostgreSQL); T-SQL's ``CONVERT(FLOAT, x)`` -> ``CAST(x AS FLOAT)`` (read otherwise, a cast to a type named x);
``JOIN t`` with no condition -> ``JOIN t ON TRUE``, what SQLite and MySQL read it as (PostgreSQL
rejects it; written back it would become a comma join no later check could tell from one meant so); the validator
then gives it the schema's key or says it has none.
Every one of these is an error in the target as written (CONCAT aside, where the rewrite is the definition), so no
running query changes.

Comparisons that run but always or never hold are read as the one comparison meant (``filters.never_true``),
as guesses the model sees first.
"""

from __future__ import annotations

import re

from sqlglot import exp
from sqlglot.errors import SqlglotError
from core.dialects import is_postgres_like
from core.errors import SQLRejected
from core.sql.repair._names import GUESSED

from core.sql.repair.filters import never_true

__all__ = ["cross_joins_on_true", "rewrite_foreign_idioms"]


def _nocase(node: exp.Expression) -> bool:
    return isinstance(node, exp.Collate) and node.expression.name.upper() == "NOCASE"


def _postgres(tree: exp.Expression, notes: list[str]) -> None:
    for limit in list(tree.find_all(exp.Limit)):
        options = limit.args.get("limit_options")
        if options is not None and options.args.get("with_ties"):
            fetch = exp.Fetch(direction="FIRST", count=limit.expression.copy(),
                              limit_options=exp.LimitOptions(percent=False, rows=True, with_ties=True))
            limit.replace(fetch)
            notes.append("LIMIT … WITH TIES -> FETCH FIRST … ROWS WITH TIES")
    for collate in list(tree.find_all(exp.Collate)):
        if not _nocase(collate):
            continue
        parent, plain = collate.parent, collate.this.copy()
        collate.replace(plain)  # the collation goes; the comparison it served becomes case-insensitive
        if isinstance(parent, exp.Like):
            parent.replace(exp.ILike(this=parent.this.copy(), expression=parent.expression.copy(),
                                     negate=parent.args.get("negate")))
        elif isinstance(parent, (exp.EQ, exp.NEQ)):
            for side in (parent.this, parent.expression):
                if not isinstance(side, exp.Lower):
                    side.replace(exp.Lower(this=side.copy()))
        else:
            plain.replace(exp.Lower(this=plain.copy()))
        notes.append("COLLATE NOCASE -> case-insensitive comparison")
    _is_values(tree, notes)
    for call in list(tree.find_all(exp.Anonymous)):
        if call.name.upper() == "JULIANDAY" and len(call.expressions) == 1:
            arg = call.expressions[0]
            when = exp.CurrentTimestamp() if isinstance(arg, exp.Literal) and arg.name.lower() == "now" else \
                exp.Cast(this=arg.copy(), to=exp.DataType.build("TIMESTAMP"))
            epoch = exp.Extract(this=exp.var("EPOCH"), expression=when)
            call.replace(exp.Paren(this=exp.Add(this=exp.Div(this=epoch, expression=exp.Literal.number(86400)),
                                                expression=exp.Literal.number("2440587.5"))))
            notes.append("julianday() -> days from the epoch")


def _is_values(tree: exp.Expression, notes: list[str]) -> None:
    """``status IS 'active'`` (IS takes only NULL, TRUE or FALSE in PostgreSQL; SQLite's IS compares any value): as
    ``=``; ``IS NOT 'x'`` as ``<>``, a guess the model is shown first (SQLite's would also keep the rows with no
    value)."""
    for node in list(tree.find_all(exp.Is)):
        if not (isinstance(node.expression, exp.Literal) and (node.expression.is_string or node.expression.is_number)):
            continue
        if isinstance(node.parent, exp.Not):
            node.parent.replace(exp.NEQ(this=node.this.copy(), expression=node.expression.copy()))
            notes.append(f"IS NOT {node.expression.sql()} (IS takes NULL, TRUE or FALSE) -> <>" + GUESSED)
        else:
            node.replace(exp.EQ(this=node.this.copy(), expression=node.expression.copy()))
            notes.append(f"IS {node.expression.sql()} (IS takes NULL, TRUE or FALSE) -> =")


def _sqlite(tree: exp.Expression, notes: list[str]) -> None:
    for regex in list(tree.find_all(exp.RegexpLike)):  # SQLite has no REGEXP function: LIKE, in any case as MySQL's
        pattern = regex.expression  # REGEXP matches
        alternatives = pattern.this.split("|") if isinstance(pattern, exp.Literal) and pattern.is_string else []
        likes = [_as_like(a) for a in alternatives if "\\" not in pattern.this]
        if not likes or None in likes or regex.args.get("flag"):
            continue
        tests = [exp.Like(this=regex.this.copy(), expression=exp.Literal.string(g)) for g in likes]
        regex.replace(exp.Paren(this=exp.or_(*tests)) if len(tests) > 1 else tests[0])
        notes.append(f"REGEXP '{pattern.this}' (SQLite has none) -> " + " OR ".join(f"LIKE '{g}'" for g in likes)
                     + ", in any case" + GUESSED)
    for national in list(tree.find_all(exp.National)):
        national.replace(exp.Literal.string(national.name))
        notes.append("N'…' -> '…'")
    for concat in list(tree.find_all(exp.Concat)):
        parts = [p.copy() if isinstance(p, exp.Literal) else exp.Coalesce(this=p.copy(), expressions=[
            exp.Literal.string("")]) for p in concat.expressions]
        if len(parts) < 2:
            continue
        joined: exp.Expression = parts[0]
        for part in parts[1:]:
            joined = exp.DPipe(this=joined, expression=part, safe=True)
        concat.replace(exp.Paren(this=joined))
        notes.append("CONCAT(…) -> ||")


def _as_like(body: str) -> str | None:
    """A regular expression of literal characters, ``.``, ``.*`` and the anchors ``^``/``$`` as the LIKE pattern
    that matches the same texts (unanchored: anywhere in the text); None for anything more (classes, groups, repeats,
    escapes) or a literal ``%`` or ``_``, which are left to fail."""
    start, end = body.startswith("^"), body.endswith("$")
    body = body[1 if start else 0:len(body) - 1 if end else len(body)]
    out = []
    for piece in re.findall(r"\.\*|.", body, re.DOTALL):
        if piece in "^$()[]{}+?*%_":
            return None
        out.append("%" if piece == ".*" else "_" if piece == "." else piece)
    return ("" if start else "%") + "".join(out) + ("" if end else "%") if body else None


def rewrite_foreign_idioms(tree: exp.Expression, target: str) -> list[str]:
    """Rewrite, in place, the idioms ``target`` rejects; notes back."""
    notes: list[str] = []
    if tree.find(exp.Select) is None:
        return notes
    _rownum(tree, notes)
    _spreadsheet_names(tree, notes)
    _conditional_aggregates(tree, notes)
    _warehouse_calls(tree, notes)
    _count_distinct_pairs(tree, target, notes)
    _count_of_rows(tree, target, notes)
    never_true(tree, target, notes)
    _tsql_convert(tree, notes)
    _oracle_now(tree, notes)
    _oracle_trunc(tree, target, notes)
    for join in tree.find_all(exp.Join):
        bare = "pivots" in join.args and not any(join.args.get(k) for k in ("on", "using", "method", "side")) and (
            join.args.get("kind") or "INNER").upper() == "INNER"
        if bare and not isinstance(join.this, (exp.Lateral, exp.Unnest)):
            join.set("on", exp.true())
    if is_postgres_like(target) or target == "sqlite":
        _mysql_days(tree, target, notes)
    if is_postgres_like(target):
        _postgres(tree, notes)
    elif target == "sqlite":
        _sqlite(tree, notes)
    return notes


def _mysql_days(tree: exp.Expression, target: str, notes: list[str]) -> None:
    """MySQL's day functions, which neither SQLite nor PostgreSQL has, by their definitions: ``TO_DAYS(x)`` a day
    number (differences of two are days), ``DAYOFWEEK(x)`` 1 (Sunday) to 7, ``DAYOFMONTH(x)``, ``UNIX_TIMESTAMP(x)``
    seconds since 1970."""
    sqlite = target == "sqlite"

    def strftime(code: str, value: exp.Expression) -> exp.Expression:
        return exp.Cast(this=exp.Anonymous(this="strftime", expressions=[exp.Literal.string(code), value]),
                        to=exp.DataType.build("INTEGER"))

    def extract(part: str, value: exp.Expression) -> exp.Expression:
        return exp.Extract(this=exp.var(part), expression=exp.Cast(this=value, to=exp.DataType.build("TIMESTAMP")))

    for node in list(tree.find_all(exp.ToDays, exp.DayOfWeek, exp.DayOfMonth, exp.Anonymous)):
        if isinstance(node, exp.Anonymous) and (node.name.upper() != "UNIX_TIMESTAMP" or len(node.expressions) > 1):
            continue
        value = (node.expressions[0] if node.expressions else None) if isinstance(node, exp.Anonymous) else node.this
        if value is None:
            value = exp.Literal.string("now") if sqlite else exp.CurrentTimestamp()
        value = value.copy()
        if isinstance(node, exp.ToDays):
            new: exp.Expression = exp.Cast(this=exp.Anonymous(this="julianday", expressions=[exp.Anonymous(
                this="date", expressions=[value])]), to=exp.DataType.build("INTEGER")) if sqlite else exp.Paren(
                this=exp.Sub(this=exp.Cast(this=value, to=exp.DataType.build("DATE")),
                             expression=exp.Cast(this=exp.Literal.string("0001-01-01"), to=exp.DataType.build("DATE"))))
        elif isinstance(node, exp.DayOfWeek):
            new = exp.Paren(this=exp.Add(this=strftime("%w", value) if sqlite else extract("DOW", value),
                                         expression=exp.Literal.number(1)))
        elif isinstance(node, exp.DayOfMonth):
            new = strftime("%d", value) if sqlite else extract("DAY", value)
        else:
            new = strftime("%s", value) if sqlite else extract("EPOCH", value)
        node.replace(new)
        notes.append(f"{node.sql(dialect='mysql').split('(')[0]}() -> {target}'s equivalent")


def _tsql_convert(tree: exp.Expression, notes: list[str]) -> None:
    """T-SQL's ``CONVERT(FLOAT, x)`` read as MySQL's ``CONVERT(expr, type)``: a cast of a column named FLOAT to a
    type named x, which no database has. Written the T-SQL way round: ``CAST(x AS FLOAT)``."""
    for cast in list(tree.find_all(exp.Cast)):
        to, this = cast.args.get("to"), cast.this
        if not (isinstance(to, exp.DataType) and to.this == exp.DataType.Type.USERDEFINED and not to.expressions
                and isinstance(this, exp.Column) and not this.table):
            continue
        kind = to.args.get("kind")
        if isinstance(kind, exp.Dot) and all(isinstance(p, exp.Identifier) for p in (kind.this, kind.expression)):
            value = exp.column(kind.expression.copy(), table=kind.this.copy())  # CONVERT(FLOAT, t.col)
        elif isinstance(kind, exp.Identifier):
            value = exp.column(kind.copy())
        elif isinstance(kind, str) and re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)?", kind):
            value = exp.column(*reversed(kind.split(".")))
        else:
            continue
        try:
            # T-SQL's FLOAT is double precision (FLOAT(53)); sqlglot would write PostgreSQL's 4-byte REAL
            wanted = exp.DataType.build("DOUBLE" if this.name.upper() == "FLOAT" else this.name, dialect="tsql")
        except (ValueError, SqlglotError):
            continue
        if wanted.this == exp.DataType.Type.USERDEFINED:
            continue
        cast.replace(exp.Cast(this=value, to=wanted))
        notes.append(f"CONVERT({this.name}, …) -> CAST(… AS {this.name})")


def _oracle_now(tree: exp.Expression, notes: list[str]) -> None:
    """Oracle's ``SYSDATE`` / ``SYSTIMESTAMP``, written without brackets, read as a column no table has: the
    current date and time (a table's own column of that name is qualified or listed by the schema check first)."""
    for col in list(tree.find_all(exp.Column)):
        if not col.table and not col.this.quoted and col.name.upper() in ("SYSDATE", "SYSTIMESTAMP") and not any(
                isinstance(a, exp.Alias) and a.alias.upper() == col.name.upper() for a in tree.find_all(exp.Alias)):
            col.replace(exp.CurrentTimestamp())
            notes.append(f"{col.name.upper()} -> CURRENT_TIMESTAMP")


_ORACLE_UNITS = {"MM": "month", "MON": "month", "MONTH": "month", "RM": "month", "YYYY": "year", "YYY": "year",
                 "YY": "year", "Y": "year", "YEAR": "year", "SYYYY": "year", "DD": "day", "DDD": "day", "J": "day",
                 "Q": "quarter", "IW": "week", "HH": "hour", "HH24": "hour", "MI": "minute"}


def _oracle_trunc(tree: exp.Expression, target: str, notes: list[str]) -> None:
    """Oracle's ``TRUNC(d, 'MM')`` — a date cut to the start of its month, year, day … (a format, where a number of
    decimals goes for a number) — and ``DATE_TRUNC('MM', d)`` read from it: PostgreSQL's ``DATE_TRUNC('month', d)``;
    on SQLite ``DATE(d, 'start of month')`` for month, year and day (other units are left for the database). On SQLite
    a number's ``TRUNC(x, 2)`` is refused: its trunc() takes no decimals (sqlglot would drop them, and a CAST cuts
    0.29 to 0.28 in floating point)."""
    for node in list(tree.find_all(exp.Trunc, exp.DateTrunc)):
        unit = node.args.get("decimals") if isinstance(node, exp.Trunc) else node.args.get("unit")
        if target == "sqlite" and isinstance(node, exp.Trunc) and unit is not None and not (
                isinstance(unit, exp.Literal) and unit.is_string):
            raise SQLRejected(f"{node.sql(dialect='postgres')}: SQLite's trunc() takes no number of decimals (they "
                              "would be dropped, or cut wrong in floating point)", hint="Use ROUND(x, n), or "
                              "TRUNC(x) for whole numbers.")
        name = _ORACLE_UNITS.get(unit.name.upper()) if isinstance(unit, exp.Literal) and unit.is_string else None
        if name is None or isinstance(node, exp.DateTrunc) and unit.name.lower() == name:
            continue
        if is_postgres_like(target):
            new = exp.DateTrunc(unit=exp.Literal.string(name), this=node.this.copy())
        elif target == "sqlite" and name in ("month", "year", "day"):
            new = exp.Anonymous(this="DATE", expressions=[node.this.copy()] + (
                [exp.Literal.string(f"start of {name}")] if name != "day" else []))
        else:
            continue
        notes.append(f"{node.sql(dialect=target)} -> {new.sql(dialect=target)}")
        node.replace(new)


def _rownum(tree: exp.Expression, notes: list[str]) -> None:
    """Oracle's ``WHERE ROWNUM <= n`` (a top-level condition, no LIMIT written): ``LIMIT n``. Oracle numbers rows
    before ORDER BY; a model writing it for another database means the first n of the ordered result."""
    for select in list(tree.find_all(exp.Select)):
        where = select.args.get("where")
        if where is None or select.args.get("limit") is not None:
            continue
        conjuncts = list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]
        for cond in conjuncts:
            if not isinstance(cond, (exp.LTE, exp.LT)) or not isinstance(cond.this, exp.Column):
                continue
            if cond.this.name.upper() != "ROWNUM" or cond.this.table or not cond.expression.is_int:
                continue
            n = int(cond.expression.name) - (1 if isinstance(cond, exp.LT) else 0)
            rest = [c for c in conjuncts if c is not cond]
            select.set("where", exp.Where(this=exp.and_(*[c.copy() for c in rest])) if rest else None)
            select.set("limit", exp.Limit(expression=exp.Literal.number(max(n, 0))))
            notes.append(f"ROWNUM <= {n} -> LIMIT {n}")
            break


def cross_joins_on_true(tree: exp.Expression) -> None:
    """``JOIN t ON TRUE`` written so: ``CROSS JOIN t``, the same rows, so that no later check reads it as a JOIN
    missing its condition. (An outer join ON TRUE is left: it keeps the rows of a side with no partner.)"""
    for join in tree.find_all(exp.Join):
        inner = (join.args.get("kind") or "INNER").upper() == "INNER" and not join.args.get("side")
        if inner and join.args.get("on") == exp.true() and not isinstance(join.this, (exp.Lateral, exp.Unnest)):
            join.set("on", None)
            join.set("kind", "CROSS")

_SPREADSHEET = {"NUNIQUE": "count distinct", "COUNTUNIQUE": "count distinct", "COUNTD": "count distinct", "MEAN": "AVG",
                "AVERAGE": "AVG", "COUNTA": "COUNT", "FILLNA": "COALESCE"}  # pandas', spreadsheets' and Tableau's
# names (COUNTA: the non-empty; COUNTD: Tableau's distinct count)
_CYPHER = {"TOLOWER": exp.Lower, "TOUPPER": exp.Upper, "TOFLOAT": "DOUBLE", "TOINTEGER": "INT", "TOSTRING": "TEXT"}


def _spreadsheet_names(tree: exp.Expression, notes: list[str]) -> None:
    """``nunique(x)``, ``mean(x)``, ``AVERAGE(x)``, ``COUNTD(x)``: pandas', spreadsheets' and Tableau's names of SQL's
    aggregates, one argument each (no SQL database here has a function of these names); Cypher's ``toLower(x)``,
    ``toUpper(x)``, ``toFloat(x)``, ``toInteger(x)``, ``toString(x)`` as LOWER, UPPER and casts."""
    for call in reversed(list(tree.find_all(exp.Anonymous))):  # the innermost first: toLower(toLower(x))
        cypher = _CYPHER.get(call.name.upper())
        if cypher is not None and len(call.expressions) == 1:
            arg = call.expressions[0].copy()
            call.replace(exp.cast(arg, cypher) if isinstance(cypher, str) else cypher(this=arg))
            notes.append(f"{call.name}(x) (Cypher) -> {cypher if isinstance(cypher, str) else cypher.key.upper()}")
            continue
        kind = _SPREADSHEET.get(call.name.upper())
        if kind is None or len(call.expressions) != (2 if kind == "COALESCE" else 1):
            continue
        arg = call.expressions[0].copy()
        call.replace(exp.Count(this=exp.Distinct(expressions=[arg])) if kind == "count distinct" else exp.Coalesce(
            this=arg, expressions=[call.expressions[1].copy()]) if kind == "COALESCE" else exp.Count(this=arg)
            if kind == "COUNT" else exp.Avg(this=arg))
        notes.append(f"{call.name}() -> {'COUNT(DISTINCT …)' if kind == 'count distinct' else kind + '()'}")


_IF_AGGREGATES = {"COUNTIF": exp.Count, "SUMIF": exp.Sum, "AVGIF": exp.Avg, "MINIF": exp.Min, "MAXIF": exp.Max}


def _conditional_aggregates(tree: exp.Expression, notes: list[str]) -> None:
    """ClickHouse's aggregates: the ``-If`` combinator, ``countIf(cond)`` / ``sumIf(x, cond)``, as the aggregate of a
    CASE that keeps the rows where the condition holds (``COUNT(CASE WHEN cond THEN 1 END)``, 0 over no row as in
    ClickHouse), and ``uniqExact(x)`` / ``uniq(x)`` (its estimate) as ``COUNT(DISTINCT x)``. The last argument is a
    condition or a flag column (``countIf(paid)``): a spreadsheet's ``COUNTIF(range, "criterion")`` (which sqlglot
    reads dropping the criterion) is refused with what to write."""
    for count in list(tree.find_all(exp.CountIf)):  # COUNTIF, countIf: read by sqlglot as BigQuery's
        condition = count.this.unnest() if isinstance(count.this, exp.Expression) else None
        if count.args.get("zero_on_all_null") is not None or condition is None or isinstance(condition, exp.Literal):
            raise SQLRejected("COUNTIF(range, criterion) is a spreadsheet's function, which SQL does not have",
                              hint="count the rows that match with COUNT(CASE WHEN column = 'value' THEN 1 END)")
        count.replace(exp.Count(this=exp.Case(ifs=[exp.If(this=count.this.copy(), true=exp.Literal.number(1))])))
        notes.append("COUNTIF(condition) -> COUNT(CASE WHEN condition THEN 1 END)")
    for call in list(tree.find_all(exp.Anonymous)):
        name, args = call.name.upper(), call.expressions
        if name in ("UNIQ", "UNIQEXACT") and len(args) == 1:
            call.replace(exp.Count(this=exp.Distinct(expressions=[args[0].copy()])))
            notes.append(f"{call.name}(x) -> COUNT(DISTINCT x)")
            continue
        aggregate = _IF_AGGREGATES.get(name)
        condition = args[-1].unnest() if args else None
        if aggregate is None or len(args) not in ((1, 2) if name == "COUNTIF" else (2,)) or condition is None or \
                isinstance(condition, exp.Literal):  # a flag column is a condition too; a 'criterion' is not
            continue
        value = args[0].copy() if len(args) == 2 else exp.Literal.number(1)
        call.replace(aggregate(this=exp.Case(ifs=[exp.If(this=args[-1].copy(), true=value)])))
        notes.append(f"{call.name}(…, condition) -> {name[:-2]}(CASE WHEN condition THEN … END)")


def _warehouse_calls(tree: exp.Expression, notes: list[str]) -> None:
    """A warehouse's estimate ``APPROX_COUNT_DISTINCT(x)`` as the exact ``COUNT(DISTINCT x)``; T-SQL's full-text
    ``CONTAINS(col, 'word')`` (a word search in any case, which neither database has) as ``col ILIKE '%word%'``, a
    guess: a substring is not a word. Only a plain word or phrase: full-text syntax (``"a*"``, ``NEAR``, ``AND``) is left to fail."""
    for estimate in list(tree.find_all(exp.ApproxDistinct)):
        estimate.replace(exp.Count(this=exp.Distinct(expressions=[estimate.this.copy()])))
        notes.append("APPROX_COUNT_DISTINCT(x) -> COUNT(DISTINCT x) (the exact count)")
    for contains in list(tree.find_all(exp.Contains)):
        word = contains.expression
        if not (isinstance(word, exp.Literal) and word.is_string and re.fullmatch(r"[\w' -]+", word.this) and not
                re.search(r"\b(?:AND|OR|NEAR|NOT)\b", word.this)):
            continue
        contains.replace(exp.ILike(this=contains.this.copy(), expression=exp.Literal.string(f"%{word.this}%")))
        notes.append(f"CONTAINS(…, '{word.this}') (a full-text search, in any case) -> ILIKE '%{word.this}%'" + GUESSED)


def _count_distinct_pairs(tree: exp.Expression, target: str, notes: list[str]) -> None:
    """``COUNT(DISTINCT a, b)`` (MySQL: the distinct pairs, a row with a NULL in either not counted), which SQLite and
    PostgreSQL reject: the same count of one value made of both, NULL when either is."""
    if not (is_postgres_like(target) or target == "sqlite"):
        return
    for count in list(tree.find_all(exp.Count)):
        distinct = count.this
        if isinstance(distinct, exp.Distinct) and [type(e) for e in distinct.expressions] == [exp.Star]:
            count.set("this", exp.Star())  # COUNT(DISTINCT *), which no database reads: the rows counted
            notes.append("COUNT(DISTINCT *) -> COUNT(*)" + GUESSED)
            continue
        if not isinstance(distinct, exp.Distinct) or len(distinct.expressions) < 2:
            continue
        parts = [exp.Cast(this=e.copy(), to=exp.DataType.build("TEXT")) for e in distinct.expressions]
        joined: exp.Expression = parts[0]
        unit = exp.Anonymous(this="char" if target == "sqlite" else "chr", expressions=[exp.Literal.number(31)])
        for part in parts[1:]:  # a separator no value holds (the unit separator) keeps (1, 23) apart from (12, 3)
            joined = exp.DPipe(this=exp.DPipe(this=joined, expression=unit.copy()), expression=part)
        count.set("this", exp.Distinct(expressions=[joined]))
        notes.append("COUNT(DISTINCT a, b) -> the count of distinct pairs" + GUESSED)  # MySQL's meaning; a slip for
        # COUNT(DISTINCT a) reads the same way: the model is shown the error first


def _count_of_rows(tree: exp.Expression, target: str, notes: list[str]) -> None:
    """PostgreSQL's ``COUNT(t.*)`` (the rows where t's row is there), which SQLite rejects: ``COUNT(*)`` where the
    SELECT has no outer join (every row has its t then), else left to fail with the error."""
    if target != "sqlite":
        return
    for count in list(tree.find_all(exp.Count)):
        if not (isinstance(count.this, exp.Column) and isinstance(count.this.this, exp.Star)):
            continue
        select = count.find_ancestor(exp.Select)
        if select is None or any(join.args.get("side") for join in select.find_all(exp.Join)):
            continue
        notes.append(f"{count.sql(dialect=target)} -> COUNT(*)")
        count.set("this", exp.Star())
