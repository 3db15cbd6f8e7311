"""The read-only guard: one query, no writes, no side-effect functions, in the target dialect.

Models mix dialects (``TOP``, backticks, ``ISNULL``, ``LIMIT x, y``), so the guard parses in the target
dialect first and, if that fails or leaves foreign functions behind, tries the dialects models borrow from
and transpiles to the target. The SQL that is returned is *regenerated* from the checked tree (without
comments), so what runs is exactly what was checked: tokenizer differences between sqlglot and the
database (nested comments, escapes, dollar quotes) cannot smuggle a second statement past the guard.

Read-only helpers stay allowed: ``current_setting`` (reads a setting; ``set_config`` is denied), ``currval``
and ``lastval`` (read the session's sequence state; ``nextval``/``setval`` are denied), describing
``pg_*`` functions (sizes, definitions, visibility). Catalogues that hold credentials, server config
files or other sessions' SQL (``pg_authid``, ``pg_shadow``, ``pg_stat_activity``...) are refused even
where the connected role could read them. tests/adversarial_corpus.py holds the cases this must refuse.
"""

from __future__ import annotations

import copy
import logging
import re
import threading
import unicodedata
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.dialects.mysql import MySQL
from sqlglot.dialects.postgres import Postgres
from sqlglot.errors import ErrorLevel, ParseError, SqlglotError
from sqlglot.tokens import TokenType

from core.dialects import dialect_info
from core.errors import SQLReadings, SQLRejected
from core.sql._bounds import check_bounds
from core.sql._catalogue import ALLOWED_PG_FUNCTIONS as _ALLOWED_PG_FUNCTIONS
from core.sql._catalogue import DENIED_CALLS as _DENIED_CALLS
from core.sql._catalogue import DENIED_FUNCTIONS as _DENIED_FUNCTIONS
from core.sql._catalogue import DENIED_PREFIXES as _DENIED_PREFIXES
from core.sql._catalogue import DENIED_RELATIONS as _DENIED_RELATIONS
from core.sql._foreign_calls import (FOREIGN_FUNCTIONS as _FOREIGN_FUNCTIONS, MYSQL_READ as _MYSQL_READ, call_name, convert_misread, other_language_forms,
                                     strings, top_as_limit, translate_calls, untranslated_strftime)
from core.sql._spoken import read_as_sql
from core.sql._slips import (PARSE_FAILURES, balanced, drop_dangling_connectives, mend_syntax, plausible, reading,
                             slip_readings, unfinished)
from core.sql._sqlite_modifiers import sqlite_meaningless, sqlite_notation
from core.sql.repair import (DAYS_COUNTED, GUESSED, cross_joins_on_true, python_idioms, rewrite_foreign_idioms,
                             rewrite_postgres_dates, rewrite_sqlite_dates)

__all__ = ["GuardedSQL", "guard", "parse_statements"]

logger = logging.getLogger(__name__)

_TARGETS = {"postgres": "postgres", "postgresql": "postgres", "sqlite": "sqlite", "duckdb": "duckdb", "mysql": "mysql"}


class CairnMysql(MySQL):
    """MySQL idioms inside SQL meant for PostgreSQL/SQLite (ANSI mode): ``||`` concatenates, "x" names a column.
    A model that writes backticks or ``IFNULL`` for a PostgreSQL database still means ``a || b`` as text and
    ``"Name"`` as an identifier; plain MySQL would read them as OR and as a string."""

    DPIPE_IS_STRING_CONCAT = True

    class Tokenizer(MySQL.Tokenizer):
        QUOTES = ["'"]
        IDENTIFIERS = ["`", '"']
        STRING_ESCAPES = ["'", "\\"]

    class Parser(MySQL.Parser):
        DISJUNCTION = {k: v for k, v in MySQL.Parser.DISJUNCTION.items() if k != TokenType.DPIPE}




class CairnMysqlTarget(MySQL):
    """SQL meant for a MySQL/MariaDB database: MySQL's own reading, except that ``a || b`` is a concatenation (what
    a model writing it means; MySQL would read OR and answer 0 or 1). Generated as MySQL's ``CONCAT``."""

    DPIPE_IS_STRING_CONCAT = True

    class Parser(MySQL.Parser):
        DISJUNCTION = {k: v for k, v in MySQL.Parser.DISJUNCTION.items() if k != TokenType.DPIPE}


_MYSQL_TARGET_READ = "cairnmysqltarget"


class CairnPostgres(Postgres):
    """PostgreSQL written with MySQL's backtick identifiers: `t`.`name` ~ '^A' (MySQL itself cannot read ``~``)."""

    class Tokenizer(Postgres.Tokenizer):
        IDENTIFIERS = ['"', "`"]


BACKTICK_POSTGRES_READ = "cairnpostgres"

# Dialects models borrow idioms from, tried in this order when the target parse fails.
_FALLBACK_DIALECTS = (_MYSQL_READ, BACKTICK_POSTGRES_READ, "tsql", "postgres", "sqlite", "duckdb", "bigquery", "snowflake", "oracle")

# Statement nodes that change data, schema, privileges or session state.
_FORBIDDEN_NODES: tuple[tuple[type[exp.Expression], str], ...] = (
    (exp.Insert, "INSERT"),
    (exp.Update, "UPDATE"),
    (exp.Delete, "DELETE"),
    (exp.Merge, "MERGE"),
    (exp.Create, "CREATE"),
    (exp.Drop, "DROP"),
    (exp.Alter, "ALTER"),
    (exp.TruncateTable, "TRUNCATE"),
    (exp.Grant, "GRANT"),
    (exp.Revoke, "REVOKE"),
    (exp.Copy, "COPY"),
    (exp.Set, "SET"),
    (exp.Use, "USE"),
    (exp.Pragma, "PRAGMA"),
    (exp.Attach, "ATTACH"),
    (exp.Detach, "DETACH"),
    (exp.Analyze, "ANALYZE"),
    (exp.Comment, "COMMENT"),
    (exp.Transaction, "BEGIN"),
    (exp.Commit, "COMMIT"),
    (exp.Rollback, "ROLLBACK"),
    (exp.LoadData, "LOAD DATA"),
    (exp.Kill, "KILL"),
    (exp.Refresh, "REFRESH"),
    (exp.Cache, "CACHE"),
    (exp.Uncache, "UNCACHE"),
    (exp.Declare, "DECLARE"),
    (exp.Execute, "EXECUTE"),
    (exp.Describe, "DESCRIBE"),
    (exp.Show, "SHOW"),
    (exp.Export, "EXPORT"),
    (exp.Install, "INSTALL"),
)

# Statement words named in the reason when a statement cannot be parsed at all ("NOTIFY ..."), so the
# person (and the model, in a repair round) learns it is refused, not merely misspelt.
_COMMAND_WORDS = frozenset(
    """abort alter analyze attach begin call checkpoint close cluster comment commit copy create deallocate
    declare delete detach discard do drop end execute explain export fetch force grant import insert install listen load lock merge
    move notify pragma prepare reassign refresh reindex release replace reset revoke rollback savepoint security
    set show start truncate unlisten update upsert use vacuum""".split()
)
_PG_GET_DEF = re.compile(r"pg_get_\w*def")
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")
_FILE_LIKE = re.compile(r"[/\\*~]|\.(csv|tsv|txt|parquet|json|jsonl|ndjson|xlsx?|db|duckdb|sqlite3?|gz|zst)$", re.I)

_FOREIGN_FUNCTIONS["duckdb"] = {  # DuckDB reads PostgreSQL's functions and has IFNULL, INSTR and GROUP_CONCAT
    name: dialects for name, dialects in _FOREIGN_FUNCTIONS["postgres"].items()
    if name not in ("IFNULL", "INSTR", "GROUP_CONCAT")
}
_DATE_PARTS = frozenset(
    "year yy yyyy quarter qq q month mm m week wk ww day dd d dayofyear dy y hour hh minute mi n "
    "second ss s millisecond ms microsecond mcs".split()
)
_UNIT_FIRST_FUNCS = (exp.DateDiff, exp.DateAdd, exp.DateSub, exp.TimestampDiff, exp.TimestampAdd)


@dataclass(frozen=True)
class GuardedSQL:
    """A statement the guard accepted: the SQL to run, its tree, and the dialect it was read in."""
    sql: str
    expression: exp.Expression
    read_dialect: str
    mended: str = ""  # a syntax slip mended to read it ("added the missing ')'"), else empty


class _ArithmeticLimitParser:
    """Mixin: ``LIMIT 2 - n % 2`` is valid PostgreSQL/SQLite; sqlglot stops at ``%`` (T-SQL's PERCENT)."""

    def _parse_term(self, parse_mod: bool = True) -> exp.Expression | None:
        return super()._parse_term(parse_mod=True)  # type: ignore[misc, no-any-return]


_PARSERS: dict[str, type[Any]] = {}


def _parser_class(dialect: Dialect, name: str) -> type[Any]:
    if name in ("postgres", "sqlite") and name not in _PARSERS:  # dialects where LIMIT has no PERCENT form
        _PARSERS[name] = type(f"Cairn{name.title()}Parser", (_ArithmeticLimitParser, dialect.parser_class), {})
    return _PARSERS.get(name, dialect.parser_class)


_FAILED: OrderedDict[tuple[str, str], SqlglotError] = OrderedDict()  # the last texts that did not parse, per dialect
_FAILED_LOCK = threading.Lock()


def parse_statements(sql: str, dialect: str) -> list[exp.Expression]:
    """Parse ``sql`` in ``dialect`` into its statements (empty ones dropped). Raises ``SqlglotError``, also for what
    sqlglot trips on deep in its parser (a ``ValueError``, an assertion: ``PARSE_FAILURES``): unreadable SQL. A text
    that failed in a dialect fails again at once: a reply's cuts are tried in every dialect from several places."""
    with _FAILED_LOCK:
        failed = _FAILED.get((sql, dialect))
    if failed is not None:
        raise copy.copy(failed)
    dia = Dialect.get_or_raise(dialect)
    try:
        parser = _parser_class(dia, dialect)(error_level=ErrorLevel.IMMEDIATE, dialect=dia)
        return [e for e in parser.parse(dia.tokenize(sql), sql) if e is not None and not isinstance(e, exp.Semicolon)]
    except (SqlglotError, ValueError, TypeError, AttributeError, IndexError, KeyError, AssertionError) as exc:
        error = exc if isinstance(exc, SqlglotError) else ParseError(  # not its own: unreadable all the same
            f"the SQL could not be read ({type(exc).__name__}: {exc})".replace(": )", ")"))
        with _FAILED_LOCK:
            _FAILED[(sql, dialect)] = copy.copy(error)
            while len(_FAILED) > 64:
                _FAILED.popitem(last=False)
        raise error from (None if error is exc else exc)


def guard(sql: str, dialect: str) -> GuardedSQL:
    """Accept exactly one read-only query and return it transpiled to ``dialect``.

    Raises:
        SQLRejected: with a specific reason (several statements, a write, a denied function...).
    """
    target = _TARGETS.get(dialect.lower()) or (dialect.lower() if dialect_info(dialect) is not None else None)
    if target is None:
        raise ValueError(f"unsupported target dialect: {dialect!r}")
    text = sql.strip()
    if not text.rstrip(";").strip():
        raise SQLRejected("the SQL is empty")
    if target == "mysql" and re.search(r"/\*\s*M?!", text):
        raise SQLRejected("MySQL executable comments (/*! … */) are not allowed: the server runs what is inside them")
    text, said = read_as_sql(text, target)  # ``= ''%martin%''`` (parsed as '' % martin % ''), ``x IS IN (…)``
    try:
        tree, read = _read(text, target)
        mended = "; ".join([*said, *filter(None, [tree.meta.get("mended", "")])])
        if read != target:
            _target_null_order(tree, target, text)
        if _written_on_true(text, target):
            cross_joins_on_true(tree)  # JOIN t ON TRUE as written: a cross join, not a JOIN missing its condition
        python_idioms(tree, hosted := [])  # ``timedelta(days=30)`` first: an interval the date rewrites then write
        rewrite_sqlite_dates(tree, target)
        counted = [n for n in rewrite_postgres_dates(tree, target) if n.endswith(DAYS_COUNTED)]  # a guess: said
        forms = [n for n in other_language_forms(tree) if "QUALIFY" in n or "brackets" in n or "lock" in n]  # not
        # said: ``name.lower()`` or Hive's SORT BY
        guessed = [n for n in rewrite_foreign_idioms(tree, target) if n.endswith(GUESSED)]  # the model sees it first
        mended = "; ".join(filter(None, [mended, *hosted, *counted, *forms, *guessed]))  # a chained comparison ran
        mended = sqlite_notation(tree, mended) if target == "sqlite" else mended  # '-P7D' is '-7 days'
        try:
            out = tree.sql(dialect=target, comments=False, unsupported_level=ErrorLevel.IGNORE)
            # Check what will run: the regenerated text, read back in the target dialect.
            final = _single(parse_statements(out, target), out)
        except PARSE_FAILURES as exc:
            raise SQLRejected(f"the SQL could not be rewritten for {target}: {_first_line(exc)}") from exc
        _check(tree)
        _check(final)
        check_bounds(final, target)  # no value of unbounded size built on the server (SQLUnbounded)
        if (cut := unfinished(text, target)) is not None:  # a read-only query, but one the parser completed
            raise SQLRejected(f"the query stops after {cut!r}, where more must follow: it looks cut off")
        if why := sqlite_meaningless(final) if target == "sqlite" else untranslated_strftime(final, text, target):
            raise SQLRejected(why)
    except RecursionError as exc:
        raise SQLRejected("the SQL is nested too deeply to check") from exc
    logger.debug("guard accepted (%s -> %s): %s", read, target, out)
    shown = {_MYSQL_READ: "mysql", BACKTICK_POSTGRES_READ: "postgres"}.get(read, read)
    return GuardedSQL(sql=out, expression=final, read_dialect=shown, mended=mended)


def _read(text: str, target: str) -> tuple[exp.Expression, str]:
    """The tree in the target dialect, or in the borrowed dialect that reads it with fewer foreign idioms."""
    try:
        tree = _single(parse_statements(text, _MYSQL_TARGET_READ if target == "mysql" else target), text)
    except PARSE_FAILURES as exc:
        error: SqlglotError | None = exc
        tree = None
        dropped = drop_dangling_connectives(text, target)  # WHERE a = 1 AND <end>: the one reading there is
        if (mended := top_as_limit(dropped, target)) != text:  # T-SQL's SELECT TOP 3 …: … LIMIT 3
            tree, read = _read(mended, target)
            return tree, "tsql" if mended != dropped and read == target else read
    else:
        error = None
        _check(tree, as_written=True)  # unsafe as written: rejected before any reading (a lock is read off later)
        markers = _foreign_markers(tree, target)
        if not markers:
            return tree, target
        used = _translate(tree, target, markers)
        if used is not None:
            return tree, used
    best: tuple[exp.Expression, str] | None = (tree, target) if tree is not None else None
    best_score = len(_foreign_markers(tree, target)) if tree is not None else 1 << 30
    known = _anonymous(tree) if tree is not None else set()
    for candidate in _candidates(tree, target) if tree is not None or balanced(text, target) else ():
        try:  # a bracket left open is mend_syntax's to read (one reading), never a lenient parser's to close
            other = _single(parse_statements(text, candidate), text)
        except PARSE_FAILURES:
            continue
        _check(other)  # every reading must be safe, not only the one that wins
        try:
            back = _single(parse_statements(other.sql(dialect=target, comments=False), target), text)
        except PARSE_FAILURES:
            continue
        if target == "sqlite" and strings(back) < strings(tree if tree is not None else other):
            continue  # SQLite's dates live in string arguments (DATE(x, 'start of month'), STRFTIME('%Y', x)) that
            # another dialect's reading may drop (MySQL's DATE() takes one): the reading lost meaning
        left = _foreign_markers(back, target)
        if left and _translate(back, target, left) is not None:
            other = back  # `backticks` read, and CURDATE() translated alone
        score = len(_foreign_markers(back, target)) + len(_anonymous(back) - known)
        if score < best_score:
            best, best_score = (other, candidate), score
            if score == 0:
                break
    if best is None:
        assert error is not None
        mended = mend_syntax(text, target, lambda t: _normal(t, target))
        if mended is not None:
            logger.info("syntax slip mended: %s", mended[1])
            tree, read = _read(mended[0], target)
            tree.meta["mended"] = mended[1]
            return tree, read
        word = _leading_command(text, target)
        if word is not None:
            raise SQLRejected(f"{word} is not allowed: only a SELECT query can run") from error
        message, readings = f"the SQL could not be parsed: {_first_line(error)}", slip_readings(
            text, target, lambda t: _normal(t, target))  # two or three: the data may settle them (sql._readings)
        raise (SQLReadings(message, readings) if readings else SQLRejected(message)) from error
    return best


def _normal(text: str, target: str) -> str | None:
    """A mended text's one spelling, or None when it does not parse or names a value inside a call's arguments."""
    try:
        tree = _single(parse_statements(text, target), text)
    except PARSE_FAILURES:
        return None
    return reading(tree) if plausible(tree) else None


def _leading_command(text: str, target: str) -> str | None:
    """The statement word an unparsable text starts with, when it is a write/admin command, else None."""
    tokens = [t for t in _tokens(text, target) if t.token_type != TokenType.L_PAREN]
    word = unicodedata.normalize("NFKC", tokens[0].text).upper() if tokens else ""
    return word if word and word.lower() in _COMMAND_WORDS else None


def _target_null_order(tree: exp.Expression, target: str, text: str) -> None:
    """Sort NULLs as the target does: a model borrowing ``TOP`` or backticks does not mean T-SQL's NULL order.

    Without this, reading in the borrowed dialect adds ``NULLS FIRST`` and changes which rows a LIMIT keeps.
    Explicit ``NULLS FIRST/LAST`` in the reply are kept.
    """
    if any(t.text.upper() == "NULLS" and t.token_type != TokenType.STRING for t in _tokens(text, target)):
        return
    ordering = Dialect.get_or_raise(target).NULL_ORDERING
    for node in tree.find_all(exp.Ordered):
        desc = bool(node.args.get("desc"))
        if ordering == "nulls_are_small":
            node.set("nulls_first", not desc)
        elif ordering == "nulls_are_large":
            node.set("nulls_first", desc)
        else:
            node.set("nulls_first", False)


def _tokens(text: str, dialect: str) -> list[Any]:
    try:
        return list(Dialect.get_or_raise(dialect).tokenize(text))
    except PARSE_FAILURES:
        return []


def _candidates(tree: exp.Expression | None, target: str) -> list[str]:
    order: list[str] = []
    if tree is not None:
        for marker in _foreign_markers(tree, target):
            order.extend(_FOREIGN_FUNCTIONS.get(target, {}).get(marker, ("tsql", "snowflake", _MYSQL_READ)))
    else:
        order.extend(_FALLBACK_DIALECTS)
    return [d for d in dict.fromkeys(order) if d != target]


def _written_on_true(text: str, target: str) -> bool:
    """Whether the text itself says ``ON TRUE`` (SQLite's parser reads a bare JOIN as ON TRUE too)."""
    tokens = [t.token_type for t in _tokens(text, target)]
    return any(a == TokenType.ON and b == TokenType.TRUE for a, b in zip(tokens, tokens[1:]))


def _translate(tree: exp.Expression, target: str, markers: list[str]) -> str | None:
    """When every foreign idiom of ``tree`` is a call, translate each alone (see ``_foreign_calls``), in place."""
    calls = [(node, _FOREIGN_FUNCTIONS.get(target, {}).get(name, ())) for node, name in _foreign_calls(tree, target)]
    if len(calls) != len(markers):
        return None
    return translate_calls(tree, target, calls, lambda node: bool(_foreign_markers(node, target)))


def _foreign_calls(tree: exp.Expression, target: str) -> list[tuple[exp.Expression, str]]:
    """Calls of functions the target does not have, with their names (outermost first). SQLite's parser knows
    PostgreSQL's TO_CHAR but writes it back as a plain CAST, dropping the format: it counts as borrowed."""
    foreign = _FOREIGN_FUNCTIONS.get(target, {})
    found = [(f, name) for f in tree.find_all(exp.Anonymous) if (name := call_name(f)) in foreign]
    if target == "sqlite" and "TO_CHAR" in foreign:
        found += [(f, "TO_CHAR") for f in tree.find_all(exp.ToChar)]
    inner = {id(n) for f, _ in found for n in f.walk() if n is not f}
    return [(f, name) for f, name in found if id(f) not in inner]


def _foreign_markers(tree: exp.Expression, target: str) -> list[str]:
    """Names of idioms in ``tree`` that the target database does not have."""
    foreign = _FOREIGN_FUNCTIONS.get(target, {})
    markers = [name for _, name in _foreign_calls(tree, target)] + convert_misread(tree)
    for node in tree.find_all(exp.Format):  # T-SQL's FORMAT(value, 'yyyy-MM'), not printf's format('%d', x)
        pattern = node.expressions[0] if node.expressions else None
        if (not (isinstance(node.this, exp.Literal) and "%" in node.this.name) and isinstance(pattern, exp.Literal)
                and pattern.is_string and "%" not in pattern.name and "FORMAT" in foreign):  # fmt: skip
            markers.append("FORMAT")
    for node in tree.find_all(*_UNIT_FIRST_FUNCS):  # DATEDIFF(day, a, b): unit first, read as a column
        first = node.this
        if isinstance(first, exp.Column) and not first.table and first.name.lower() in _DATE_PARTS:
            markers.append(type(node).__name__.upper())
    markers += [kind for t in tree.find_all(exp.DataType) if (kind := str(t.args.get("kind") or "").upper()) in foreign]
    markers += ["DATE_TRUNC(date, part)" for t in tree.find_all(exp.DateTrunc, exp.TimestampTrunc) if isinstance(
        t.this, exp.Column) and t.this.name.lower() in _DATE_PARTS and "DATE_TRUNC(date, part)" in foreign]
    return markers


def _anonymous(tree: exp.Expression) -> set[str]:
    """Functions sqlglot does not know: a rewrite that invents new ones made things worse."""
    return {f.name.upper() for f in tree.find_all(exp.Anonymous)}


def _single(statements: list[exp.Expression], text: str) -> exp.Expression:
    if not statements:
        raise SQLRejected("the SQL is empty")
    if len(statements) > 1:
        kinds = ", ".join(_statement_kind(s) for s in statements)
        raise SQLRejected(f"only one statement is allowed (found {len(statements)}: {kinds})")
    return statements[0]


def _check(tree: exp.Expression, *, as_written: bool = False) -> None:
    """Reject anything that is not a plain read-only query, wherever it hides in the tree."""
    for node in tree.walk():
        if isinstance(node, exp.Command):
            kind = _statement_kind(node)
            rest = node.expression.name if isinstance(node.expression, exp.Literal) else ""
            if kind == "EXPLAIN" and "ANALYZE" in re.sub(r"[(),]", " ", rest.upper()).split()[:2]:
                kind = "EXPLAIN ANALYZE"
            raise SQLRejected(f"{kind} is not allowed: Cairn only reads")
        for klass, kind in _FORBIDDEN_NODES:
            if isinstance(node, klass):
                where = " (inside a WITH clause)" if node is not tree and node.find_ancestor(exp.CTE) else ""
                raise SQLRejected(f"{kind} is not allowed{where}: Cairn only reads")
        if isinstance(node, exp.Into):
            raise SQLRejected("SELECT ... INTO is not allowed: it creates a table, and Cairn only reads")
        if isinstance(node, exp.Lock) and not as_written:
            raise SQLRejected("locking clauses (FOR UPDATE / FOR SHARE) are not allowed: Cairn only reads")
        if isinstance(node, exp.PropertyEQ) and isinstance(node.this, (exp.Parameter, exp.SessionParameter)):
            raise SQLRejected("assigning a variable (@x := ...) is not allowed: it changes the session, and Cairn only "
                              "reads")
        if isinstance(node, exp.NextValueFor):
            raise SQLRejected("NEXT VALUE FOR is not allowed: it advances a sequence")
        if isinstance(node, exp.Func):
            _check_function(node)
        if isinstance(node, exp.Table) and (isinstance(node.this, exp.Literal) or _FILE_LIKE.search(node.name)):
            # DuckDB reads FROM 'file.csv' or FROM "/path/*.parquet" as that file
            raise SQLRejected("reading a file named in the query is not allowed: ask about the tables Cairn opened")
        if isinstance(node, exp.Table) and isinstance(node.this, exp.Identifier):
            if node.name.lower() in _DENIED_RELATIONS:
                raise SQLRejected(
                    f"reading {node.name.lower()} is not allowed: it holds credentials, server settings "
                    "or other sessions' queries, not your data"
                )
    if not isinstance(tree, (exp.Query, exp.Values)):
        raise SQLRejected(f"{_statement_kind(tree)} is not allowed: only a SELECT query can run")


def _check_function(node: exp.Func) -> None:
    if isinstance(node, exp.Anonymous):
        names = [node.name]
    else:
        names = [*type(node).sql_names(), node.sql_name()]
    for raw in names:
        if not _PLAIN_NAME.fullmatch(raw):
            raise SQLRejected(f"function {raw!r} is not allowed: its name is not a plain identifier")
        name = raw.lower()
        if (
            name in _DENIED_FUNCTIONS
            or (name in _DENIED_CALLS and isinstance(node, exp.Anonymous))
            or name.startswith(_DENIED_PREFIXES)
            or (name.startswith("pg_") and name not in _ALLOWED_PG_FUNCTIONS and not _PG_GET_DEF.fullmatch(name))
        ):
            raise SQLRejected(f"function {name} is not allowed: it has side effects or reaches outside the data")


def _statement_kind(node: exp.Expression) -> str:
    if isinstance(node, exp.Command):
        return str(node.this).upper() or "this command"
    for klass, kind in _FORBIDDEN_NODES:
        if isinstance(node, klass):
            return kind
    if isinstance(node, (exp.Query, exp.Values)):
        return "SELECT"
    first = node.sql().split(maxsplit=1)
    return first[0].upper() if first else type(node).__name__.upper()


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
