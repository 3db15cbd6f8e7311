"""The guard's size check: no query builds one value of unbounded size on the server.

A row cap and a cell cap bound what comes back, not what the server builds first: ``string_agg`` over a whole
table, or ``repeat('x', 1e9)``, grows the database backend by gigabytes before a single row is sent (issue 32:
1.9 GB per 1 GB aggregate). Two rules, checked on the tree that will run:

* A **collecting aggregate** (``string_agg``, ``array_agg``, ``json_agg``, ``group_concat``, ``listagg`` …, and
  ``ARRAY(SELECT …)``) must read a bounded number of rows. It is accepted when its rows are bounded at the source —
  its SELECT reads only subqueries or CTEs with a LIMIT (or VALUES, or nothing), at most ``MAX_COLLECTED_ROWS``
  rows together — or when it is grouped: its SELECT has a GROUP BY (it is not a window) and that SELECT or one
  around it has a LIMIT of at most ``MAX_GROUPS``. A LIMIT on an ungrouped aggregate's own SELECT bounds nothing
  (it returns one row whatever it read), so it does not count.
* A **string or blob maker** whose size is an argument (``repeat``, ``lpad``/``rpad``, ``space``, ``zeroblob``,
  ``randomblob``, ``array_fill``, a ``format``/``printf`` width) must have a size known to be at most
  ``MAX_GENERATED``: a number, arithmetic on numbers, or ``LEAST(…, n)``. A size read from the data is refused.

Neither rule can bound everything (a grouped aggregate with one huge group, a recursive CTE that doubles a string):
the database server's own memory limit is the last line (``core/databases/embedded``). What the rules do is refuse
the plain forms with a hint that says how to write them bounded.
"""

from __future__ import annotations

import math
import re

from sqlglot import exp

from core.errors import SQLUnbounded

__all__ = ["MAX_COLLECTED_ROWS", "MAX_GENERATED", "MAX_GROUPS", "check_bounds"]

MAX_COLLECTED_ROWS = 10_000  # rows an ungrouped collecting aggregate may read (a LIMITed subquery's LIMIT)
MAX_GROUPS = 1_000  # the LIMIT a grouped one needs (Cairn's result rows are capped at a few thousand anyway)
MAX_GENERATED = 100_000  # characters or bytes one repeat/lpad/zeroblob/format width may make

_COLLECTING_CLASSES: tuple[type[exp.Expression], ...] = tuple(
    k for k in (getattr(exp, name, None) for name in (
        "GroupConcat", "ArrayAgg", "ArrayConcatAgg", "ArrayUniqueAgg", "JSONArrayAgg", "JSONObjectAgg",
        "JSONBObjectAgg", "ObjectAgg", "XMLAgg", "ListAgg", "StringAgg")) if isinstance(k, type))
_COLLECTING_NAMES = frozenset({
    "string_agg", "group_concat", "array_agg", "array_concat_agg", "json_agg", "jsonb_agg", "json_object_agg",
    "jsonb_object_agg", "json_objectagg", "json_arrayagg", "json_group_array", "json_group_object", "xmlagg",
    "listagg", "list_agg", "list", "array_agg_distinct", "histogram", "map_agg", "string_agg_distinct",
})
# name -> which argument (0-based) is a size; -1: every argument after the first (array_fill's dimensions)
_SIZED_NAMES = {"repeat": 1, "replicate": 1, "lpad": 1, "rpad": 1, "space": 0, "zeroblob": 0, "randomblob": 0,
                "array_fill": 1}
_FORMAT_NAMES = frozenset({"format", "printf"})
_FORMAT_SIZE = re.compile(r"%[-+ #0]*(\*|\d+)?(?:\.(\*|\d+))?")

_HINT_AGGREGATE = (f"Aggregate a bounded set of rows: read them from a subquery with a LIMIT, e.g. "
                   f"string_agg(name, ', ') FROM (SELECT name FROM t LIMIT 1000) AS s, or group the aggregate "
                   f"(GROUP BY) and add a LIMIT of at most {MAX_GROUPS:,} to the query.")
_HINT_SIZE = (f"Give the size as a number of at most {MAX_GENERATED:,}, or bound one read from the data with "
              f"LEAST(size, {MAX_GENERATED:,}).")


def check_bounds(tree: exp.Expression, dialect: str) -> None:
    """Raise SQLUnbounded when ``tree`` (in ``dialect``) would build a value of unbounded size (see the rules)."""
    for node in tree.walk():
        if isinstance(node, exp.Func) and _is_collecting(node):
            _check_collecting(node, _function_name(node, dialect))
        elif isinstance(node, exp.Array) and any(isinstance(e, (exp.Query, exp.Subquery)) for e in node.expressions):
            inner = next(e for e in node.expressions if isinstance(e, (exp.Query, exp.Subquery)))
            query = inner.this if isinstance(inner, exp.Subquery) else inner
            limit = _limit(query)
            if limit is None or limit > MAX_COLLECTED_ROWS:
                raise SQLUnbounded("ARRAY(SELECT …) collects every row of its query into one value, with no LIMIT "
                                   f"of at most {MAX_COLLECTED_ROWS:,}", hint=_HINT_AGGREGATE)
        elif isinstance(node, exp.Func):
            _check_size(node)


# -- collecting aggregates --------------------------------------------------------------------------------------


def _function_name(node: exp.Func, dialect: str) -> str:
    """The function's name as ``dialect`` writes it (GROUP_CONCAT is string_agg in PostgreSQL)."""
    if isinstance(node, exp.Anonymous):
        return node.name.lower()
    written = node.sql(dialect=dialect).split("(", 1)[0].strip().lower()
    return written if re.fullmatch(r"[a-z_]+", written) else node.sql_name().lower()


def _is_collecting(node: exp.Func) -> bool:
    if isinstance(node, _COLLECTING_CLASSES):
        return True
    return isinstance(node, exp.Anonymous) and node.name.lower() in _COLLECTING_NAMES


def _check_collecting(node: exp.Func, name: str) -> None:
    select = node.find_ancestor(exp.Select)
    if select is None:
        return
    windowed = isinstance(node.parent, exp.Window) or node.find_ancestor(exp.Window) is not None
    rows = _source_rows(select)
    if rows is not None and rows <= MAX_COLLECTED_ROWS:
        return
    if not windowed and select.args.get("group") is not None and _limited_around(select):
        return
    how = " as a window (one growing value per row)" if windowed else ""
    raise SQLUnbounded(f"{name}{how} collects every row it reads into one value, and nothing bounds how many it "
                       "reads: on a large table that is gigabytes of server memory", hint=_HINT_AGGREGATE)


def _limited_around(select: exp.Select) -> bool:
    """Whether ``select`` or a query around it returns at most MAX_GROUPS rows by a LIMIT."""
    node: exp.Expression | None = select
    while node is not None:
        if isinstance(node, exp.Query):
            limit = _limit(node)
            if limit is not None and limit <= MAX_GROUPS:
                return True
        node = node.parent
    return False


def _source_rows(select: exp.Select) -> float | None:
    """At most how many rows ``select`` reads before grouping: the product of its sources' bounds, or None."""
    sources = []
    from_ = select.args.get("from_") or select.args.get("from")
    if from_ is not None:
        sources.append(from_.this)
    sources.extend(join.this for join in select.args.get("joins") or ())
    if select.args.get("laterals"):
        return None
    total = 1.0
    for source in sources:
        rows = _relation_rows(source, select)
        if rows is None:
            return None
        total *= rows
    return total


def _relation_rows(source: exp.Expression, select: exp.Select) -> float | None:
    if isinstance(source, exp.Subquery):
        return _query_rows(source.this)
    if isinstance(source, exp.Values):
        return float(len(source.expressions))
    if isinstance(source, exp.Table) and not source.args.get("db"):
        cte = _cte_named(select, source.name)
        if cte is not None:
            return _query_rows(cte.this)
    return None


def _query_rows(query: exp.Expression) -> float | None:
    if isinstance(query, exp.Values):
        return float(len(query.expressions))
    limit = _limit(query) if isinstance(query, exp.Query) else None
    if limit is not None:
        return limit
    if isinstance(query, exp.Select) and query.args.get("group") is None and not _has_set_returning(query) and any(
            isinstance(e.unalias(), exp.AggFunc) for e in query.expressions):
        return 1.0  # an ungrouped aggregate query returns one row
    return None


def _has_set_returning(query: exp.Select) -> bool:
    return any(isinstance(f, exp.Anonymous) and f.name.lower() in {"generate_series", "unnest", "regexp_split_to_table"}
               or isinstance(f, (exp.Explode, exp.Unnest)) for f in query.expressions)


def _cte_named(node: exp.Expression, name: str) -> exp.CTE | None:
    """The CTE ``name`` in scope at ``node`` (a WITH of an enclosing query), not a recursive one."""
    scope: exp.Expression | None = node
    while scope is not None:
        with_ = scope.args.get("with_") or scope.args.get("with") if isinstance(scope, exp.Query) else None
        if with_ is not None:
            for cte in with_.expressions:
                if cte.alias_or_name.lower() == name.lower():
                    return None if with_.args.get("recursive") else cte
        scope = scope.parent
    return None


def _limit(query: exp.Expression) -> float | None:
    """The number of rows a query's own LIMIT / FETCH FIRST / TOP allows, when it is a known number."""
    clause = query.args.get("limit")
    if clause is None:
        return None
    if isinstance(clause, exp.Fetch):
        count = clause.args.get("count")
        return _upper(count) if count is not None else 1.0
    return _upper(clause.expression if isinstance(clause, exp.Limit) else clause)


# -- sized string makers ----------------------------------------------------------------------------------------


def _check_size(node: exp.Func) -> None:
    name = node.name.lower() if isinstance(node, exp.Anonymous) else type(node).__name__.lower()
    sizes: list[exp.Expression] = []
    if isinstance(node, exp.Repeat):
        sizes = [node.args["times"]]
    elif isinstance(node, exp.Pad):
        name = "lpad" if node.args.get("is_left") else "rpad"
        sizes = [node.expression]
    elif isinstance(node, exp.Space):
        sizes = [node.this]
    elif isinstance(node, exp.Anonymous) and name in _SIZED_NAMES:
        where = _SIZED_NAMES[name]
        sizes = list(node.expressions[where:where + 1]) if where >= 0 else list(node.expressions[1:])
    elif name in _FORMAT_NAMES or isinstance(node, exp.Format):
        _check_format(node, name if name in _FORMAT_NAMES else "format")
        return
    for size in sizes:
        bound = _upper(size)
        if bound is None:
            raise SQLUnbounded(f"{name}'s size {size.sql()!r} is read from the data, so nothing bounds the value it "
                               "makes", hint=_HINT_SIZE)
        if bound > MAX_GENERATED:
            raise SQLUnbounded(f"{name} would make a value of {_count(bound)} characters or bytes (at most "
                               f"{MAX_GENERATED:,} are allowed)", hint=_HINT_SIZE)


def _check_format(node: exp.Func, name: str) -> None:
    fmt = node.this if not isinstance(node, exp.Anonymous) else (node.expressions[0] if node.expressions else None)
    if not isinstance(fmt, exp.Literal) or not fmt.is_string:
        return
    for width, precision in _FORMAT_SIZE.findall(fmt.name):
        for part in (width, precision):
            if part == "*":
                raise SQLUnbounded(f"{name}'s format takes a width from an argument ('*'), which nothing bounds",
                                   hint=f"Write the width in the format, at most {MAX_GENERATED:,}.")
            if part and int(part) > MAX_GENERATED:
                raise SQLUnbounded(f"{name}'s format asks for a width of {_count(int(part))} characters (at most "
                                   f"{MAX_GENERATED:,} are allowed)", hint=_HINT_SIZE)


def _upper(node: exp.Expression | None) -> float | None:
    """An upper bound of a number expression known without the data, or None."""
    value = _constant(node)
    if value is not None:
        return value
    if isinstance(node, exp.Paren):
        return _upper(node.this)
    if isinstance(node, exp.Least):
        known = [b for b in (_upper(a) for a in (node.this, *node.expressions)) if b is not None]
        return min(known) if known else None
    if isinstance(node, (exp.Cast, exp.TryCast)):
        return _upper(node.this)
    return None


def _constant(node: exp.Expression | None) -> float | None:
    """The value of a number expression made of numbers only (arithmetic, casts, parentheses), or None."""
    try:
        if isinstance(node, exp.Literal) and not node.is_string:
            return float(node.this)
        if isinstance(node, exp.Literal) and node.is_string and re.fullmatch(r"\s*[-+]?\d+(\.\d*)?\s*", node.this):
            return float(node.this)  # '1000000000'::int
        if isinstance(node, (exp.Paren, exp.Cast, exp.TryCast)):
            return _constant(node.this)
        if isinstance(node, exp.Neg):
            inner = _constant(node.this)
            return None if inner is None else -inner
        if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.IntDiv, exp.Pow)):
            a, b = _constant(node.this), _constant(node.expression)
            if a is None or b is None:
                return None
            if isinstance(node, exp.Add):
                value = a + b
            elif isinstance(node, exp.Sub):
                value = a - b
            elif isinstance(node, exp.Mul):
                value = a * b
            elif isinstance(node, exp.Pow):
                value = math.inf if abs(b) > 1000 else float(a) ** b
            else:
                value = a / b if b else math.inf
            return value if isinstance(value, float) and not math.isnan(value) else math.inf
    except (ValueError, OverflowError, ZeroDivisionError):
        return math.inf
    return None


def _count(value: float) -> str:
    return "more than 10^15" if not math.isfinite(value) or value > 1e15 else f"{int(value):,}"
