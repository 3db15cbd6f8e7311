"""The words for the parts of a SQL query: values (columns, literals, dates, aggregates, window functions) and
conditions (comparisons, IN lists, BETWEEN, LIKE, IS NULL, date ranges), for :mod:`core.replies._describe`.

A part without a plain reading is quoted as SQL, so the words are never wrong, only terse.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sqlglot import exp

from core.schema import Schema, Table

__all__ = ["AGGREGATES", "MAX_DEPTH", "MAX_LISTED", "SqlWords", "and_list"]

MAX_LISTED = 8  # values of an IN list, columns shown: the rest are counted
MAX_DEPTH = 2  # subqueries inside subqueries are named, not described

_DATE_TEXT = re.compile(r"^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$")
_DATE_TYPES = ("date", "time")
_TEXT_TYPES = ("char", "text", "string", "clob")
_NUMBER_TYPES = ("int", "numeric", "decimal", "real", "double", "float", "money", "number")

# Aggregates: (verb phrase, noun phrase); "{x}" is the argument, rows when it is *.
AGGREGATES: dict[type[exp.Expression], tuple[str, str]] = {
    exp.Count: ("counts {x}", "the number of {x}"),
    exp.Sum: ("sums {x}", "the total of {x}"),
    exp.Avg: ("averages {x}", "the average of {x}"),
    exp.Min: ("finds the smallest {x}", "the smallest {x}"),
    exp.Max: ("finds the largest {x}", "the largest {x}"),
}
for _name, _words in (("GroupConcat", ("joins the {x} values into one text", "the {x} values joined")),
                      ("ArrayAgg", ("collects {x} into a list", "the list of {x}")),
                      ("Median", ("finds the median {x}", "the median {x}")),
                      ("Stddev", ("works out the spread (standard deviation) of {x}", "the standard deviation of {x}")),
                      ("Variance", ("works out the variance of {x}", "the variance of {x}"))):
    if hasattr(exp, _name):
        AGGREGATES[getattr(exp, _name)] = _words

_COMPARISONS: dict[type[exp.Expression], tuple[str, str]] = {  # (plain, for dates)
    exp.EQ: ("is", "is"),
    exp.NEQ: ("is not", "is not"),
    exp.GT: ("is more than", "is after"),
    exp.GTE: ("is at least", "is on or after"),
    exp.LT: ("is less than", "is before"),
    exp.LTE: ("is at most", "is on or before"),
}
_TIME_FORMATS = {"%Y": "the year of {x}", "%Y-%m": "the year and month of {x}", "%m": "the month number of {x}",
                 "%Y-%m-%d": "the day of {x}", "%d": "the day of the month of {x}", "%H": "the hour of {x}",
                 "%W": "the week number of {x}", "%w": "the weekday of {x}"}
_ARITHMETIC: dict[type[exp.Expression], str] = {
    exp.Add: "plus", exp.Sub: "minus", exp.Mul: "times", exp.Div: "divided by", exp.Mod: "modulo",
}


def and_list(items: Sequence[str]) -> str:
    """"a, b and c" (empty items left out)."""
    items = [i for i in items if i]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


class SqlWords:
    """Reads values and conditions; ``_scopes`` maps each visible alias to the name shown for it (innermost last).

    Describing a subquery is the query reader's job: :meth:`_inline` is given by the subclass."""

    def __init__(self, dialect: str | None, schema: Schema | None) -> None:
        self.dialect = dialect
        self.schema = schema
        self._scopes: list[dict[str, str]] = []
        self._depth = 0

    def _inline(self, node: exp.Expression) -> str:
        """A query described in one clause (for subqueries)."""
        raise NotImplementedError

    # -- aggregates and windows ------------------------------------------------------------------------------------
    def _aggregate(self, node: exp.Expression, *, verb: bool) -> str:
        verb_words, noun_words = AGGREGATES[type(node)]
        arg = node.this
        distinct = isinstance(arg, exp.Distinct)
        if distinct:
            arg = arg.expressions[0] if arg.expressions else None
        if arg is None or isinstance(arg, exp.Star):
            x = "the rows"
        else:
            x = self._value(arg)
        if isinstance(node, exp.Count):
            if x == "the rows":
                return "counts the rows" if verb else "the number of rows"
            what = f"distinct values of {x}" if distinct else f"rows with a {x}"
            return f"counts the {what}" if verb else f"the number of {what}"
        if distinct:
            x = f"the distinct values of {x}"
        return (verb_words if verb else noun_words).format(x=x)

    def _window(self, node: exp.Window) -> str:
        fn = node.this
        partition = node.args.get("partition_by") or []
        order = node.args.get("order")
        ordered = order is not None and bool(order.expressions)
        arg = self._value(fn.this) if isinstance(fn.this, exp.Expression) else ""
        if isinstance(fn, exp.RowNumber):
            what = "numbers the rows 1, 2, 3…"
        elif isinstance(fn, exp.Rank):
            what = "ranks the rows (ties share a rank, then a gap)"
        elif isinstance(fn, exp.DenseRank):
            what = "ranks the rows (ties share a rank, no gaps)"
        elif isinstance(fn, exp.Ntile):
            what = f"splits the rows into {arg} equal buckets"
        elif isinstance(fn, (exp.Lag, exp.Lead)):
            offset = fn.args.get("offset")
            k = self._value(offset) if offset is not None else "1"
            where = "before" if isinstance(fn, exp.Lag) else "after"
            what = f"takes {arg} from the row {k} {where} each row" if k != "1" else \
                f"takes {arg} from the {'previous' if where == 'before' else 'next'} row"
        elif isinstance(fn, exp.FirstValue):
            what = f"takes the first {arg}"
        elif isinstance(fn, exp.LastValue):
            what = f"takes the last {arg}"
        elif isinstance(fn, tuple(AGGREGATES)):
            noun = self._aggregate(fn, verb=False)
            what = f"works out a running {noun.removeprefix('the ')}" if ordered and \
                isinstance(fn, (exp.Sum, exp.Count, exp.Avg)) else f"works out {noun}"
        else:
            what = "works out " + self._sql(fn)
        what += " (a window function)"
        if partition:
            what += " within each " + and_list([self._value(p) for p in partition])
        elif isinstance(fn, tuple(AGGREGATES)) and not ordered:
            what += " across all rows"
        if ordered:
            what += ", in order of " + ", then ".join(
                self._value(o.this) + (" descending" if o.args.get("desc") else "") for o in order.expressions)
        return what

    # -- conditions --------------------------------------------------------------------------------------------------
    def _cond(self, node: exp.Expression) -> str:
        while isinstance(node, exp.Paren):
            node = node.this
        if isinstance(node, exp.And):
            parts = list(node.flatten())
            return and_list(self._grouped_ranges(parts))
        if isinstance(node, exp.Or):
            parts = [p.unnest() for p in node.flatten()]
            same = self._same_column_values(parts)
            if same is not None:
                return same
            words = [self._cond(p) for p in parts]
            words = [f"({w})" if " and " in w else w for w in words]
            return "either " + " or ".join(words)
        if isinstance(node, exp.Not):
            return self._negated(node.this)
        if node.args.get("negate"):  # newer sqlglot writes `x IS NOT NULL`, `x NOT LIKE y` as a flag, not a Not
            plain = node.copy()
            plain.set("negate", None)
            return self._negated(plain)
        if isinstance(node, tuple(_COMPARISONS)):
            left, right = node.this, node.expression
            if isinstance(left, exp.Column) and isinstance(right, exp.Column) and isinstance(node, exp.EQ):
                return f"{self._value(left)} matches {self._value(right)}"
            return f"{self._value(left)} {self._compare(node)} {self._value(right)}"
        if isinstance(node, exp.Between):
            low, high = node.args.get("low"), node.args.get("high")
            if self._is_date(node.this) or self._is_date(low) or self._is_date(high):
                return f"{self._value(node.this)} is from {self._value(low)} to {self._value(high)}"
            return f"{self._value(node.this)} is between {self._value(low)} and {self._value(high)} (inclusive)"
        if isinstance(node, exp.In):
            return f"{self._value(node.this)} is " + self._in_words(node)
        if isinstance(node, (exp.Like, exp.ILike)):
            return f"{self._value(node.this)} " + self._like(node)
        if isinstance(node, exp.Is):
            if isinstance(node.expression, exp.Null):
                return f"{self._value(node.this)} is empty (NULL)"
            return f"{self._value(node.this)} is {self._sql(node.expression).lower()}"
        if isinstance(node, exp.Exists):
            return "there is a matching row in a subquery that " + self._inline(node.this)
        if isinstance(node, exp.Column):
            return f"{self._value(node)} is true"
        return self._sql(node)

    def _negated(self, inner: exp.Expression) -> str:
        while isinstance(inner, exp.Paren):
            inner = inner.this
        if isinstance(inner, exp.In):
            return f"{self._value(inner.this)} is not " + self._in_words(inner)
        if isinstance(inner, (exp.Like, exp.ILike)):
            return f"{self._value(inner.this)} does not " + self._like(inner).split(" ", 1)[0].removesuffix("s") \
                + " " + self._like(inner).split(" ", 1)[1]
        if isinstance(inner, exp.Is) and isinstance(inner.expression, exp.Null):
            return f"{self._value(inner.this)} is not empty (not NULL)"
        if isinstance(inner, exp.Exists):
            return "there is no matching row in a subquery that " + self._inline(inner.this)
        if isinstance(inner, exp.Between):
            return f"{self._value(inner.this)} is outside {self._value(inner.args.get('low'))} to " \
                   f"{self._value(inner.args.get('high'))}"
        if isinstance(inner, exp.Column):
            return f"{self._value(inner)} is not true"
        return f"it is not the case that {self._cond(inner)}"

    def _compare(self, node: exp.Expression) -> str:
        plain, dated = _COMPARISONS[type(node)]
        return dated if self._is_date(node.this) or self._is_date(node.expression) else plain

    def _grouped_ranges(self, parts: list[exp.Expression]) -> list[str]:
        """Conditions joined by AND; two bounds on one column read as one range ("from … and before …")."""
        words: list[str] = []
        subjects: dict[str, int] = {}
        for part in parts:
            part = part.unnest()
            if isinstance(part, (exp.GT, exp.GTE, exp.LT, exp.LTE)) and not isinstance(part.expression, exp.Column):
                key = part.this.sql()
                phrase = f"{self._compare(part)} {self._value(part.expression)}"
                if key in subjects:
                    words[subjects.pop(key)] += " and " + phrase.removeprefix("is ")
                    continue
                subjects[key] = len(words)
                words.append(f"{self._value(part.this)} {phrase}")
                continue
            text = self._cond(part)
            words.append(f"({text})" if text.startswith("either ") else text)
        return words

    def _same_column_values(self, parts: list[exp.Expression]) -> str | None:
        """``a = 'x' OR a = 'y'`` reads as "a is 'x' or 'y'"."""
        if not all(isinstance(p, exp.EQ) and not isinstance(p.expression, exp.Column) for p in parts):
            return None
        if len({p.this.sql() for p in parts}) != 1:
            return None
        return f"{self._value(parts[0].this)} is " + " or ".join(self._value(p.expression) for p in parts)

    def _in_words(self, node: exp.In) -> str:
        query = node.args.get("query")
        if query is not None:
            return "among the values of a subquery that " + self._inline(query)
        values = [self._value(v) for v in node.expressions]
        if len(values) == 1:
            return values[0]
        more = f" and {len(values) - MAX_LISTED} more" if len(values) > MAX_LISTED else ""
        return "one of " + ", ".join(values[:MAX_LISTED]) + more

    def _like(self, node: exp.Expression) -> str:
        case = " (ignoring case)" if isinstance(node, exp.ILike) else ""
        pattern = node.expression
        if isinstance(pattern, exp.Literal) and pattern.is_string:
            text = pattern.this
            core_text = text.strip("%")
            if "%" not in core_text and "_" not in core_text and core_text:
                if text.startswith("%") and text.endswith("%") and len(text) > 1:
                    return f"contains '{core_text}'{case}"
                if text.endswith("%"):
                    return f"starts with '{core_text}'{case}"
                if text.startswith("%"):
                    return f"ends with '{core_text}'{case}"
                return f"is exactly '{core_text}'{case}"
            return f"matches the pattern '{text}' (% is any text, _ any one character){case}"
        return f"matches the pattern {self._value(pattern)}{case}"

    # -- values ------------------------------------------------------------------------------------------------------
    def _value(self, node: exp.Expression | None) -> str:
        if node is None:
            return ""
        if isinstance(node, exp.Paren):
            return self._value(node.this)
        if isinstance(node, exp.Column):
            if isinstance(node.this, exp.Star):
                return f"every column of {self._shown(node.table)}"
            here = bool(self._scopes) and node.table.lower() in self._scopes[-1]
            if not node.table or (self._single_source() and here):
                return node.name
            shown = self._shown(node.table)
            if not here and self._scopes and shown in self._scopes[-1].values():
                return f"the outer {shown} row's {node.name}"  # a correlated subquery on the same table
            return f"{shown}.{node.name}"
        if isinstance(node, exp.Literal):
            if node.is_string:
                return node.this if _DATE_TEXT.match(node.this) else f"'{node.this}'"
            return str(node.this)
        if isinstance(node, exp.Null):
            return "empty (NULL)"
        if isinstance(node, exp.Boolean):
            return "true" if node.this else "false"
        if isinstance(node, tuple(AGGREGATES)):
            return self._aggregate(node, verb=False)
        if isinstance(node, exp.Window):
            return self._window(node).removeprefix("works out ")
        if isinstance(node, tuple(_ARITHMETIC)):
            return f"{self._value(node.this)} {_ARITHMETIC[type(node)]} {self._value(node.expression)}" \
                if not self._date_shift(node) else self._date_shift(node)  # type: ignore[return-value]
        if isinstance(node, exp.Alias):
            return node.alias
        if isinstance(node, exp.TimeToStr) and isinstance(node.args.get("format"), exp.Literal):
            words = _TIME_FORMATS.get(node.args["format"].this)
            inner = node.this.this if isinstance(node.this, (exp.TsOrDsToTimestamp, exp.Cast)) else node.this
            if words:
                return words.format(x=self._value(inner))
        if isinstance(node, exp.Neg):
            return f"minus {self._value(node.this)}"
        if isinstance(node, exp.CurrentDate):
            return "today"
        if isinstance(node, (exp.CurrentTimestamp, exp.CurrentDatetime)):
            return "now"
        if isinstance(node, exp.Cast) and isinstance(node.this, exp.Literal):
            return self._value(node.this)
        if isinstance(node, exp.Cast):
            return self._value(node.this)
        if isinstance(node, exp.Interval):
            amount = self._value(node.this).strip("'")
            unit = self._sql(node.args.get("unit")).lower() if node.args.get("unit") else ""
            return f"{amount} {unit}".strip()
        if isinstance(node, exp.Round):
            places = node.args.get("decimals")
            return f"{self._value(node.this)} rounded" + (f" to {self._value(places)} decimal places" if places
                                                           else "")
        if isinstance(node, exp.Coalesce):
            others = [self._value(e) for e in node.expressions]
            return f"{self._value(node.this)} (or {' or '.join(others)} when it is empty)"
        if isinstance(node, (exp.DateTrunc, exp.TimestampTrunc)):
            unit = self._sql(node.args.get("unit")).strip("'").lower()
            if isinstance(node.this, (exp.CurrentDate, exp.CurrentTimestamp, exp.CurrentDatetime)):
                return f"the start of this {unit}"
            return f"the start of the {unit} of {self._value(node.this)}"
        if isinstance(node, exp.Extract):
            return f"the {self._sql(node.this).lower()} of {self._value(node.expression)}"
        if isinstance(node, (exp.Year, exp.Month, exp.Day)):
            return f"the {node.key} of {self._value(node.this)}"
        if isinstance(node, (exp.Subquery, exp.Select)):
            return "the result of a subquery that " + self._inline(node)
        if isinstance(node, exp.Case):
            return "a value chosen case by case (" + self._sql(node) + ")"
        if isinstance(node, exp.Anonymous) and node.name.upper() in ("DATE", "DATETIME"):
            return self._sqlite_date(node)
        return self._sql(node)

    def _date_shift(self, node: exp.Expression) -> str | None:
        """``CURRENT_DATE - INTERVAL '30 days'`` reads as "30 days before today"."""
        if isinstance(node, (exp.Add, exp.Sub)) and isinstance(node.expression, exp.Interval):
            where = "before" if isinstance(node, exp.Sub) else "after"
            return f"{self._value(node.expression)} {where} {self._value(node.this)}"
        return None

    def _sqlite_date(self, node: exp.Anonymous) -> str:
        """SQLite's ``date('now', '-30 days', 'start of month')`` in words."""
        args = [a.this if isinstance(a, exp.Literal) and a.is_string else None for a in node.expressions]
        if not args or any(a is None for a in args):
            return self._sql(node)
        base = args[0].lower()  # type: ignore[union-attr]
        text = "today" if base == "now" else self._value(node.expressions[0])
        for modifier in args[1:]:
            m = modifier.strip().lower()  # type: ignore[union-attr]
            shift = re.match(r"^([+-])\s*(\d+(?:\.\d+)?)\s+(\w+)$", m)
            if shift:
                where = "before" if shift.group(1) == "-" else "after"
                text = f"{shift.group(2)} {shift.group(3)} {where} {text}"
            elif m.startswith("start of "):
                text = f"the {m} of {text}" if text != "today" else f"the {m.replace('start of ', 'start of this ')}"
            else:
                text = f"{text} ({m})"
        return text

    # -- types and names ---------------------------------------------------------------------------------------------
    def _is_date(self, node: exp.Expression | None) -> bool:
        if node is None:
            return False
        if isinstance(node, exp.Literal):
            return node.is_string and bool(_DATE_TEXT.match(node.this))
        if isinstance(node, exp.Cast):
            return node.to.is_type(*exp.DataType.TEMPORAL_TYPES) or self._is_date(node.this)
        if isinstance(node, (exp.CurrentDate, exp.CurrentTimestamp, exp.CurrentDatetime, exp.DateTrunc,
                             exp.TimestampTrunc)):
            return True
        if isinstance(node, (exp.Add, exp.Sub)) and isinstance(node.expression, exp.Interval):
            return True
        if isinstance(node, exp.Anonymous) and node.name.upper() in ("DATE", "DATETIME"):
            return True
        return self._type_of(node) == "date"

    def _type_of(self, node: exp.Expression) -> str:
        """"date", "text", "number" or "" (not known) for a column whose type the schema knows."""
        if not isinstance(node, exp.Column) or self.schema is None:
            return ""
        for table in self._tables_for(node):
            col = table.column(node.name)
            if col is not None:
                low = col.type.lower()
                if any(t in low for t in _DATE_TYPES):
                    return "date"
                if any(t in low for t in _TEXT_TYPES):
                    return "text"
                return "number" if any(t in low for t in _NUMBER_TYPES) else ""
        return ""

    def _tables_for(self, column: exp.Column) -> list[Table]:
        assert self.schema is not None
        names: list[str] = []
        if column.table:
            names.append(self._shown(column.table).split(" (")[0])
        else:
            for scope in reversed(self._scopes):
                names.extend(v.split(" (")[0] for v in scope.values())
        return [t for t in (self.schema.table(n) for n in names) if t is not None]

    def _shown(self, alias: str) -> str:
        for scope in reversed(self._scopes):
            if alias.lower() in scope:
                return scope[alias.lower()]
        return alias

    def _single_source(self) -> bool:
        return bool(self._scopes) and len(self._scopes[-1]) == 1

    def _sql(self, node: exp.Expression | None) -> str:
        return node.sql(dialect=self.dialect) if node is not None else ""
