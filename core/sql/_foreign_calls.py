"""Functions of another dialect inside an otherwise native query, translated one call at a time.

A model writing for SQLite may borrow one MySQL or PostgreSQL function (``DATE_FORMAT(created_at, '%Y-%m')``,
``TO_CHAR(start_dt, 'YYYY-MM')``) beside SQLite's own (``date('now', 'start of month', '-2 months')``). Reading the
whole query as MySQL would translate the borrowed call and mangle the native ones (MySQL's DATE() takes one
argument, so the modifiers vanish). Each borrowed call is read alone in a dialect that has it and written back in the
target; the rest of the query stays as written. A translation that drops a value the writer gave (a format, a
modifier) is not used.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.tokens import TokenType

from core.sql._slips import PARSE_FAILURES
from core.dialects import is_postgres_like

__all__ = ["FOREIGN_FUNCTIONS", "MYSQL_READ", "call_name", "convert_misread", "other_language_forms", "date_part_of_difference", "strings", "top_as_limit", "translate_calls",
           "unknown_strftime_codes", "untranslated_strftime"]


MYSQL_READ = "cairnmysql"  # CairnMysql (core.sql._guard), registered by sqlglot under its lower-cased class name
# Functions a model borrows from another dialect, by target: name -> dialects that know it.
_TSQL = ("tsql",)
_MYSQL = (MYSQL_READ,)
_BIGQUERY = ("bigquery",)
_SPARK = ("spark",)
_SPARK_CASTS = ("DOUBLE", "FLOAT", "STRING")  # Spark's casts written as calls, DOUBLE(x); INT(x) only where CAST
# truncates as Spark does (SQLite; PostgreSQL rounds 2.7 to 3), BOOLEAN(x) nowhere (SQLite casts 'true' to 0)
# MySQL's ISNULL(x), a test (T-SQL's ISNULL(x, d) is a default); Snowflake's division that gives 0, or NULL, for /0
_BOTH = {"ISNULL(x)": _MYSQL, "DIV0": ("snowflake",), "DIV0NULL": ("snowflake",)}
FOREIGN_FUNCTIONS: dict[str, dict[str, tuple[str, ...]]] = {
    "postgres": {
        "TOP": _TSQL, "ISNULL": _TSQL, "GETDATE": _TSQL, "GETUTCDATE": _TSQL, "SYSDATETIME": _TSQL,
        "DATEADD": ("tsql", "snowflake"), "DATEPART": _TSQL, "DATENAME": _TSQL, "EOMONTH": _TSQL,
        "LEN": _TSQL, "CHARINDEX": _TSQL, "DATEFROMPARTS": _TSQL, "IFNULL": (MYSQL_READ, "sqlite"),
        "NVL": ("oracle", "snowflake"), "DATE_FORMAT": _MYSQL, "STR_TO_DATE": _MYSQL, "CURDATE": _MYSQL,
        "CURTIME": _MYSQL, "SUBSTRING_INDEX": _MYSQL, "UNIX_TIMESTAMP": _MYSQL, "FROM_UNIXTIME": _MYSQL,
        "LOCATE": _MYSQL, "INSTR": (MYSQL_READ, "sqlite"), "DAYOFWEEK": _MYSQL, "DAYOFMONTH": _MYSQL,
        "LAST_DAY": _MYSQL, "GROUP_CONCAT": (MYSQL_READ, "sqlite"), "STRFTIME": ("sqlite",),
        "JULIANDAY": ("sqlite",), "DATETIME": ("sqlite",), "FORMAT": _TSQL, "FORMAT_DATE": _BIGQUERY,
        "PARSE_DATE": _BIGQUERY, "FLOAT64": _BIGQUERY, "INT64": _BIGQUERY, "BIGNUMERIC": _BIGQUERY,
        "DATE_TRUNC(date, part)": _BIGQUERY,  # BigQuery's order of DATE_TRUNC's arguments
        **{name: _SPARK for name in _SPARK_CASTS}, **_BOTH,
    },
    "sqlite": {
        "TOP": _TSQL, "ISNULL": _TSQL, "GETDATE": _TSQL, "GETUTCDATE": _TSQL, "SYSDATETIME": _TSQL,
        "DATEADD": ("tsql", "snowflake"), "DATEPART": _TSQL, "DATENAME": _TSQL, "EOMONTH": _TSQL,
        "LEN": _TSQL, "CHARINDEX": _TSQL, "NVL": ("oracle", "snowflake"), "DATE_FORMAT": _MYSQL,
        "STR_TO_DATE": _MYSQL, "CURDATE": _MYSQL, "CURTIME": _MYSQL, "NOW": ("postgres", MYSQL_READ),
        "TO_CHAR": ("postgres",), "DATE_PART": ("postgres",), "AGE": ("postgres",), "FORMAT": _TSQL,
        "DATE_TRUNC(date, part)": _BIGQUERY, **{name: _SPARK for name in (*_SPARK_CASTS, "INT")}, **_BOTH,
    },
}  # fmt: skip
FOREIGN_FUNCTIONS["mysql"] = {  # what a model borrows writing for MySQL/MariaDB
    "STRFTIME": ("sqlite",), "JULIANDAY": ("sqlite",), "DATETIME": ("sqlite",), "DATE_TRUNC": ("postgres",),
    "TO_CHAR": ("postgres",), "AGE": ("postgres",), "DATE_PART": ("postgres",), "TOP": _TSQL, "GETDATE": _TSQL,
    "DATEADD": ("tsql", "snowflake"), "DATEPART": _TSQL, "LEN": _TSQL, "CHARINDEX": _TSQL, "NVL": ("oracle",),
    "FORMAT": _TSQL,
}


def call_name(call: exp.Anonymous) -> str:
    """A call's name as ``FOREIGN_FUNCTIONS`` keys it: ``ISNULL(x)`` for MySQL's one-argument test, ISNULL for T-SQL's
    two-argument default."""
    name = call.name.upper()
    return "ISNULL(x)" if name == "ISNULL" and len(call.expressions) == 1 else name


def strings(tree: exp.Expression) -> int:
    """How many string values an expression holds."""
    return sum(1 for node in tree.find_all(exp.Literal) if node.is_string)


def translate_calls(tree: exp.Expression, target: str, calls: Sequence[tuple[exp.Expression, Sequence[str]]],
                    still_foreign: Callable[[exp.Expression], bool]) -> str | None:
    """Replace, in ``tree``, each of ``calls`` (a borrowed call and the dialects that know it) by its translation
    into ``target``. Returns the dialect used for the first one, or None (``tree`` unchanged) unless every call
    translates to something ``target`` has without losing a string value."""
    done: list[tuple[exp.Expression, exp.Expression]] = []
    used: str | None = None
    for node, dialects in calls:
        for dialect in dialects:
            try:
                text = node.sql(dialect=dialect)
                if dialect == "spark":  # FLOAT(x) means a float as the standard reads one (8 bytes), not Spark's 4
                    text = re.sub(r"^FLOAT\(", "DOUBLE(", text, flags=re.IGNORECASE)
                read = sqlglot.parse_one(text, read=dialect)
                back = sqlglot.parse_one(read.sql(dialect=target), read=target)
            except PARSE_FAILURES:
                continue
            if still_foreign(back) or strings(back) < strings(node):
                continue
            done.append((node, back))
            used = used or dialect
            break
        else:
            return None
    for node, back in done:
        node.replace(back)
    return used


def date_part_of_difference(tree: exp.Expression) -> str | None:
    """SQLite's ``strftime(fmt, a - b)``: SQLite has no interval, so ``a - b`` of two dates is a number of years (or
    0) and a date part of it means nothing. It is what PostgreSQL's ``DATE_PART('day', a - b)`` becomes when
    translated; the SQL of a real difference in days is ``julianday(a) - julianday(b)``. The call, or None."""
    for node in tree.find_all(exp.TimeToStr):
        value = node.this.this if isinstance(node.this, exp.TsOrDsToTimestamp) else node.this
        while isinstance(value, exp.Paren):
            value = value.this
        if isinstance(value, exp.Sub) and not isinstance(value.expression, exp.Literal):
            return (f"{node.sql(dialect='sqlite')} takes a date part of a difference, which SQLite has no type for: "
                    "for days between two dates use julianday(a) - julianday(b)")
    return None


# strftime's codes in every SQLite Cairn may meet (3.40 ships with Debian 12; %e, %F, %u, %V, %b … came in 3.44+).
_STRFTIME_CODES = frozenset("dfHjJmMsSwWY%")


def unknown_strftime_codes(tree: exp.Expression) -> str | None:
    """A strftime format SQLite cannot honour: a code it lacks (``%B`` month names give NULL on every row) or
    letters that are no code at all (``'Mon YYYY'`` or ``'FM999.00'`` from another dialect: the same text on every
    row). The reason, or None."""
    for node in tree.find_all(exp.TimeToStr):
        fmt = node.args.get("format")
        if not isinstance(fmt, exp.Literal) or not fmt.is_string:
            continue
        text = fmt.name
        codes = re.findall(r"%(.)", text)
        bad = sorted({c for c in codes if c not in _STRFTIME_CODES})
        rest = re.sub(r"%.", "", text)
        if bad or not codes or re.search(r"[A-Za-z]", rest):
            what = f"has no %{', %'.join(bad)}" if bad else "reads letters outside % codes as text"
            return (f"SQLite's strftime {what} (format '{text}'): every row would get the same text or NULL. Use "
                    "%Y, %m, %d, %H, %M, %S, %w, %j or %W, and CASE for month or day names.")
    return None


_MISREAD_CODES = frozenset("uwW")  # %u (Monday = 1) is written 'D' (Sunday = 1); %w, %W are left as they are


def untranslated_strftime(tree: exp.Expression, text: str, target: str) -> str | None:
    """A strftime format (SQLite's, written in ``text`` and read into ``tree``) that another database's date formatting
    would not say the same way: a code the translation leaves as it is or turns into another day numbering. The
    reason, or None (no strftime written: a native TO_CHAR(d, 'D') is the database's own)."""
    if "strftime" not in text.lower() or not is_postgres_like(target):
        return None
    for node in tree.find_all(exp.TimeToStr):
        fmt = node.args.get("format")
        if not isinstance(fmt, exp.Literal) or not fmt.is_string:
            continue
        bad = sorted({c for c in re.findall(r"%(.)", fmt.name) if c in _MISREAD_CODES})
        if bad or "%" in node.sql(dialect="postgres").replace(fmt.name, ""):
            return (f"strftime's %{', %'.join(bad) or '?'} has no same-meaning format on this database (format "
                    f"'{fmt.name}'): use EXTRACT(DOW FROM x) for the day of the week (Sunday 0), "
                    "EXTRACT(ISODOW FROM x) (Monday 1) or EXTRACT(WEEK FROM x)")
    return None


_NOT_ONE_QUERY = (TokenType.LIMIT, TokenType.FETCH, TokenType.UNION, TokenType.EXCEPT, TokenType.INTERSECT,
                  TokenType.WITH)


def top_as_limit(text: str, dialect: str) -> str:
    """T-SQL's ``SELECT [DISTINCT] TOP n …`` (the query's only SELECT with TOP, the outermost) written as ``… LIMIT n``,
    which means the same (TOP counts after ORDER BY); ``text`` unchanged when that is not the one reading (TOP n
    PERCENT or WITH TIES, TOP in a subquery or a union, a LIMIT already written)."""
    try:
        tokens = list(Dialect.get_or_raise(dialect).tokenize(text))
    except PARSE_FAILURES:
        return text
    tops = [i for i, t in enumerate(tokens) if t.text.upper() == "TOP" and i > 0 and (
        tokens[i - 1].token_type == TokenType.SELECT or (tokens[i - 1].token_type == TokenType.DISTINCT and i > 1
                                                         and tokens[i - 2].token_type == TokenType.SELECT))]
    selects = [t for t in tokens if t.token_type == TokenType.SELECT]
    depth, outer = 0, []  # the tokens outside every bracket
    for t in tokens:
        depth += (t.token_type == TokenType.L_PAREN) - (t.token_type == TokenType.R_PAREN)
        if depth == 0:
            outer.append(t)
    kinds = [t.token_type for t in outer]
    if len(tops) != 1 or not selects or tokens[tops[0] - 1 - (tokens[tops[0] - 1].token_type == TokenType.DISTINCT)] \
            is not selects[0] or selects[0] not in outer or any(k in _NOT_ONE_QUERY for k in kinds):
        return text  # the TOP of a CTE or a subquery, a set operation, a limit already written
    i = tops[0]
    paren = i + 1 < len(tokens) and tokens[i + 1].token_type == TokenType.L_PAREN
    at = i + 2 if paren else i + 1
    if at >= len(tokens) or tokens[at].token_type != TokenType.NUMBER:
        return text
    end = at + 1 + paren
    if paren and tokens[at + 1].token_type != TokenType.R_PAREN:
        return text
    if end < len(tokens) and (tokens[end].text.upper() in ("PERCENT", "WITH") or tokens[end].token_type in (
            TokenType.PLUS, TokenType.DASH, TokenType.SLASH, TokenType.MOD, TokenType.DOT)):
        return text  # TOP 5 PERCENT, WITH TIES, TOP 2+1: not a count this rewrite reads
    last = max(k for k, t in enumerate(tokens) if t.token_type != TokenType.SEMICOLON)  # a comment after it goes
    if any(t.token_type == TokenType.SEMICOLON for t in tokens[:last]):
        return text  # more than one statement: the guard refuses it as written
    return f"{text[: tokens[i].start]}{text[tokens[end - 1].end + 1: tokens[last].end + 1]} LIMIT {tokens[at].text}"


_TYPE_NAMES = frozenset({"FLOAT", "REAL", "INT", "INTEGER", "BIGINT", "SMALLINT", "DECIMAL", "NUMERIC", "MONEY", "DATE",
                         "DATETIME", "DATETIME2", "TIME", "VARCHAR", "NVARCHAR", "CHAR", "NCHAR", "TEXT", "BIT"})


def convert_misread(tree: exp.Expression) -> list[str]:
    """T-SQL's ``CONVERT(FLOAT, COUNT(*))`` read by another dialect as a cast of a column named FLOAT to a type
    called COUNT: a reading no database can run, so T-SQL's (``CAST(COUNT(*) AS FLOAT)``) should win."""
    return ["CONVERT" for cast in tree.find_all(exp.Cast) if isinstance(cast.this, exp.Column) and not cast.this.table
            and cast.this.name.upper() in _TYPE_NAMES and isinstance(cast.to, exp.DataType)
            and cast.to.this == exp.DataType.Type.USERDEFINED and cast.to.expressions]  # a call read as a type
    # (``COUNT(*)``); a plain name (``CONVERT(FLOAT, amount)``) is read back by repair.idioms, as DOUBLE


# Functions written as another language's methods (``name.lower()``, ``rating.avg()``, ``(a + b).round(2)``): a closed
# set of SQL's own functions, with as many arguments as the method form can carry (``pg_catalog.lower(name)``, a
# schema's function, has one argument and is left).
_METHODS = {name: 0 for name in "LOWER UPPER LENGTH TRIM LTRIM RTRIM ABS CEIL CEILING FLOOR AVG SUM MIN MAX".split()}
_METHODS["ROUND"] = 1


def other_language_forms(tree: exp.Expression) -> list[str]:
    """Rewrite, in place, what another language writes for SQL: a method call as the function of its receiver
    (``x.lower()`` -> ``LOWER(x)``), and Hive's ``SORT BY`` / ``CLUSTER BY`` of the outermost query (one reducer's
    order, which sqlglot drops writing PostgreSQL or SQLite) as ``ORDER BY``, its ``DISTRIBUTE BY`` dropped; a window
    written in WHERE (``WHERE RANK() OVER (ORDER BY x DESC) <= 3``, which no database evaluates there) as the filter on
    its value that QUALIFY writes, after the grouping — only where the SELECT has no ORDER BY, LIMIT, OFFSET or
    DISTINCT (which the subquery would apply before the filter) and every item is a column or named; a select list
    wrapped in one pair of brackets (``SELECT (a, b) FROM t``: a record on PostgreSQL) as its columns; a locking
    clause (``FOR UPDATE``, ``FOR SHARE``, which a read-only session refuses) dropped. Notes back."""
    notes: list[str] = []
    for dot in list(tree.find_all(exp.Dot)):
        call = dot.expression
        most = _METHODS.get(call.name.upper()) if isinstance(call, exp.Anonymous) else None
        receiver = _operand(dot.this)
        if most is None or receiver is None or len(call.expressions) > most or (
                call.expressions and isinstance(dot.this, exp.Identifier)):
            continue
        try:
            dot.replace(sqlglot.parse_one(f"{call.name.upper()}({', '.join(e.sql() for e in (receiver, *call.expressions))})"))
        except PARSE_FAILURES:
            continue
        notes.append(f"x.{call.name}() -> {call.name.upper()}(x)")
    if isinstance(tree, exp.Select) and tree.args.get("order") is None:
        sort = tree.args.get("sort") or tree.args.get("cluster")
        if sort is not None:
            keys = [k.copy() if isinstance(k, exp.Ordered) else exp.Ordered(this=k.copy()) for k in sort.expressions]
            tree.set("order", exp.Order(expressions=keys))
            for clause in ("sort", "cluster", "distribute"):
                tree.set(clause, None)
            notes.append("SORT BY -> ORDER BY")
    for select in list(tree.find_all(exp.Select)):  # a window in WHERE, which no database evaluates there: the
        where = select.args.get("where")  # filter on the window's value that QUALIFY writes (written as a subquery)
        if where is None or select.args.get("qualify") is not None or where.find(exp.Window) is None or any(
                select.args.get(k) for k in ("order", "limit", "offset", "distinct")) or not all(
                isinstance(i, exp.Column) and not isinstance(i.this, exp.Star) or isinstance(i, exp.Alias)
                for i in select.expressions):
            continue  # an order, a limit or DISTINCT would act before the filter: left to fail visibly
        parts = list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]
        ranked = [p for p in parts if p.find(exp.Window) is not None]
        if any(p.find(exp.Or) for p in ranked) or any(isinstance(p, exp.Subquery) for p in ranked):
            continue
        kept = [p for p in parts if p.find(exp.Window) is None]
        select.set("where", exp.Where(this=exp.and_(*kept)) if kept else None)
        select.set("qualify", exp.Qualify(this=exp.and_(*ranked)))
        notes.append("a window in WHERE read as a filter on its value (QUALIFY)")
    for select in list(tree.find_all(exp.Select)):  # ``SELECT (a, b, c) FROM …``: one row value on PostgreSQL (a
        items = select.expressions  # record column), an error on SQLite; its values, each a column
        if len(items) == 1 and isinstance(items[0], exp.Tuple) and len(items[0].expressions) >= 2:
            select.set("expressions", [e.copy() for e in items[0].expressions])
            for clause in (select.args.get("group"), select.args.get("order")):  # GROUP BY (a, b) with it
                keys = clause.expressions if clause is not None else []
                if len(keys) == 1 and isinstance(bare := (keys[0].this if isinstance(keys[0], exp.Ordered) else
                                                          keys[0]), exp.Tuple):
                    made = [e.copy() if not isinstance(keys[0], exp.Ordered) else exp.Ordered(
                        this=e.copy(), desc=keys[0].args.get("desc"), nulls_first=keys[0].args.get("nulls_first"))
                        for e in bare.expressions]
                    clause.set("expressions", made)
            notes.append("a select list in brackets, SELECT (a, b), read as its columns")
    locks = list(tree.find_all(exp.Lock))  # FOR UPDATE / FOR SHARE [NOWAIT | SKIP LOCKED]: a read that takes locks
    for lock in locks:  # gives the same rows without them (SKIP LOCKED skips rows only other writers hold)
        lock.pop()
    if locks and not any(lock.args.get("wait") is False for lock in locks):
        notes.append("a locking clause dropped (FOR UPDATE, FOR SHARE, LOCK IN SHARE MODE): Cairn only reads, and the "
                     "rows are the same")
    elif locks:
        notes.append("a locking clause dropped, its SKIP LOCKED with it: Cairn only reads, and rows other sessions "
                     "lock are read too")
    return notes


def _operand(node: exp.Expression) -> exp.Expression | None:
    """A method's receiver as an operand: ``a.name`` (read as two names) a column; None when it is no value."""
    if isinstance(node, exp.Identifier):
        return exp.Column(this=node.copy())
    if isinstance(node, exp.Dot) and isinstance(node.this, exp.Identifier) and isinstance(node.expression, exp.Identifier):
        return exp.Column(this=node.expression.copy(), table=node.this.copy())
    return node.copy() if isinstance(node, (exp.Column, exp.Paren, exp.Func, exp.Literal)) else None
