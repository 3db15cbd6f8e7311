"""Rule-based SQL for when the LLM is down or its SQL cannot be made to work.

It answers only questions it understands completely (see ``core.fallback._plan``) and otherwise returns
None: a guess shown as an answer is worse than an honest failure. SQL is built as sqlglot expressions, so
names are quoted where needed and literals are always escaped.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import date, timedelta

from sqlglot import exp
from sqlglot.tokens import Tokenizer

from core.dialects import is_postgres_like
from core.fallback._model import ColRef, Condition, Group, Link, Measure, Plan, Refusal
from core.fallback._plan import plan_question
from core.fallback._text import is_date_type, split_name, stem
from core.schema import Schema, Table

__all__ = ["FallbackSQL", "fallback_sql", "fallback_with_reason"]

logger = logging.getLogger(__name__)

_SAFE = re.compile(r"[a-z_][a-z0-9_]*")
_RESERVED = {
    "all", "analyse", "analyze", "and", "any", "array", "as", "asc", "both", "case", "cast", "check", "collate",
    "column", "constraint", "create", "current_date", "current_role", "current_time", "current_timestamp",
    "current_user", "default", "deferrable", "desc", "distinct", "do", "else", "end", "except", "false",
    "fetch", "for", "foreign", "from", "grant", "group", "having", "in", "initially", "intersect", "into",
    "lateral", "leading", "limit", "localtime", "localtimestamp", "not", "null", "offset", "on", "only", "or",
    "order", "placing", "primary", "references", "returning", "select", "session_user", "some", "symmetric",
    "table", "then", "to", "trailing", "true", "union", "unique", "user", "using", "variadic", "when", "where",
    "window", "with", "authorization", "binary", "cross", "full", "inner", "join", "left", "right", "natural",
    "outer", "like", "ilike", "is", "isnull", "notnull", "similar", "verbose", "freeze", "overlaps",
}  # fmt: skip
_AGG = {"sum": exp.Sum, "avg": exp.Avg, "max": exp.Max, "min": exp.Min}
_AGG_WORD = {"sum": "total", "avg": "average", "max": "highest", "min": "lowest"}
_OPS = {"=": exp.EQ, ">": exp.GT, ">=": exp.GTE, "<": exp.LT, "<=": exp.LTE}


@dataclass(frozen=True)
class FallbackSQL:
    sql: str
    explanation: str


def fallback_sql(question: str, schema: Schema, *, today: date) -> FallbackSQL | None:
    """SQL for ``question`` when every word of it is understood, else None."""
    result = fallback_with_reason(question, schema, today=today)
    return result if isinstance(result, FallbackSQL) else None


def fallback_with_reason(question: str, schema: Schema, *, today: date) -> FallbackSQL | str:
    """Like ``fallback_sql``, but a refusal comes back as a short reason (for logs and the benchmark)."""
    try:
        plan = plan_question(question, schema, today)
        builder = _Builder(plan, schema.dialect)
        return builder.build_per_entity() if plan.per is not None else builder.build()
    except Refusal as refusal:
        logger.debug("fallback refused %r: %s", question, refusal)
        return str(refusal)


def _ident(name: str) -> exp.Identifier:
    quoted = not _SAFE.fullmatch(name) or name in _RESERVED or name.upper() in Tokenizer.KEYWORDS
    return exp.Identifier(this=name, quoted=quoted)


def _table(t: Table) -> exp.Table:
    db = None if t.schema in (None, "public", "main") else _ident(t.schema)
    return exp.Table(this=_ident(t.name), db=db)


def _label(t: Table) -> str:
    return " ".join(split_name(t.name)) or t.name


def _one(t: Table) -> str:
    """``customers`` -> ``customer``: one row of a table, for "per customer"."""
    words = split_name(t.name) or [t.name]
    return " ".join([*words[:-1], stem(words[-1])])


def _literal(value: object) -> exp.Expression:
    if isinstance(value, float) and value.is_integer():
        return exp.Literal.number(int(value))
    if isinstance(value, (int, float)):
        return exp.Literal.number(value)
    return exp.Literal.string(str(value))


def _num_text(value: object) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


class _Builder:
    def __init__(self, plan: Plan, dialect: str) -> None:
        self.plan = plan
        self.dialect = dialect
        self.qualify = bool(plan.links) or plan.per is not None

    def col(self, ref: ColRef) -> exp.Column:
        table = _ident(ref.table.name) if self.qualify else None
        return exp.Column(this=_ident(ref.column.name), table=table)

    def col_text(self, ref: ColRef) -> str:
        if ref.table is self.plan.target or ref.table.qualified_name == self.plan.target.qualified_name:
            return ref.column.name
        return f"{ref.table.name}.{ref.column.name}"

    def date_literal(self, d: date) -> exp.Expression:
        lit = exp.Literal.string(d.isoformat())
        return exp.cast(lit, exp.DataType.build("date")) if is_postgres_like(self.dialect) else lit

    def condition(self, c: Condition) -> tuple[exp.Expression, str]:
        col = self.col(c.col)
        name = self.col_text(c.col)
        if c.op == "in":
            vals = [str(v) for v in c.values]
            if len(vals) == 1:
                return col.eq(exp.Literal.string(vals[0])), f"{name} = '{vals[0]}'"
            quoted = ", ".join(f"'{v}'" for v in vals)
            return col.isin(*[exp.Literal.string(v) for v in vals]), f"{name} is one of {quoted}"
        if c.op == "between":
            lo, hi = c.values
            expr = exp.Between(this=col, low=_literal(lo), high=_literal(hi))
            return expr, f"{name} is between {_num_text(lo)} and {_num_text(hi)}"
        if c.op == "range":
            start, end = c.values
            parts: list[exp.Expression] = []
            if isinstance(start, date):
                parts.append(exp.GTE(this=col.copy(), expression=self.date_literal(start)))
            if isinstance(end, date):
                parts.append(exp.LT(this=col.copy(), expression=self.date_literal(end)))
            expr = parts[0] if len(parts) == 1 else exp.and_(*parts)
            span = _span_text(start if isinstance(start, date) else None, end if isinstance(end, date) else None)
            return expr, (
                f"{name} is in {c.label} ({span})" if c.label else f"{name} is {'from ' if start and end else ''}{span}"
            )
        value = c.values[0]
        return _OPS[c.op](this=col, expression=_literal(value)), f"{name} {c.op} {_num_text(value)}"

    def group_expr(self, g: Group) -> tuple[exp.Expression, str]:
        col = self.col(g.col)
        if g.unit is None:
            return col, g.col.column.name
        pg = is_postgres_like(self.dialect)
        if self.dialect == "mysql":
            return self._mysql_group(col, g.unit)
        if g.unit == "year":
            if pg:
                return exp.Extract(this=exp.var("YEAR"), expression=col), "year"
            fn = exp.Anonymous(this="STRFTIME", expressions=[exp.Literal.string("%Y"), col])
            return exp.cast(fn, exp.DataType.build("int")), "year"
        if g.unit == "day":
            day = exp.cast(col, exp.DataType.build("date")) if pg else exp.Anonymous(this="DATE", expressions=[col])
            return day, "day"
        if pg:
            fn = exp.Anonymous(this="DATE_TRUNC", expressions=[exp.Literal.string(g.unit), col])
            return exp.cast(fn, exp.DataType.build("date")), g.unit
        if g.unit == "month":
            return exp.Anonymous(this="STRFTIME", expressions=[exp.Literal.string("%Y-%m"), col]), "month"
        if g.unit == "week":
            args = [col, exp.Literal.string("weekday 0"), exp.Literal.string("-6 days")]
            return exp.Anonymous(this="DATE", expressions=args), "week"
        raise Refusal(f"grouping by {g.unit} is not supported in {self.dialect}")

    @staticmethod
    def _mysql_group(col: exp.Expression, unit: str) -> tuple[exp.Expression, str]:
        if unit == "year":
            return exp.Anonymous(this="YEAR", expressions=[col]), "year"
        if unit == "day":
            return exp.cast(col, exp.DataType.build("date")), "day"
        if unit == "month":
            return exp.Anonymous(this="DATE_FORMAT", expressions=[col, exp.Literal.string("%Y-%m")]), "month"
        raise Refusal(f"grouping by {unit} is not supported on MySQL yet")

    def measure(self, m: Measure) -> tuple[exp.Expression, str, str]:
        """(expression, alias, words for the explanation)."""
        target = _label(self.plan.target)
        if m.op == "count":
            words = split_name(self.plan.target.name) or ["row"]
            alias = f"{stem(words[-1])}_count"
            return exp.Count(this=exp.Star()), alias, f"counted {target}"
        assert m.col is not None
        col = self.col(m.col)
        name = m.col.column.name
        if m.op == "count_distinct":
            expr = exp.Count(this=exp.Distinct(expressions=[col]))
            return expr, f"{name}_count", f"counted distinct {name} of {target}"
        alias = name if m.op == "sum" and split_name(name)[:1] == ["total"] else f"{_AGG_WORD[m.op]}_{name}"
        if m.op == "sum":
            return exp.Sum(this=col), alias, f"summed {name} of {target}"
        return _AGG[m.op](this=col), alias, f"computed the {_AGG_WORD[m.op]} {name} of {target}"

    def build(self) -> FallbackSQL:
        plan = self.plan
        where: list[exp.Expression] = []
        texts: list[str] = []
        exists: dict[str, list[Condition]] = {lk.table.qualified_name: [] for lk in plan.links if lk.kind != "join"}
        for c in plan.conditions:
            if c.col.table.qualified_name in exists:
                exists[c.col.table.qualified_name].append(c)
                continue
            expr, text = self.condition(c)
            where.append(expr)
            texts.append(text)
        for lk in plan.links:
            if lk.kind != "join":
                expr, text = self.exists(lk, exists[lk.table.qualified_name])
                where.append(expr)
                texts.append(text)

        select: list[exp.Expression] = []
        group_by: list[exp.Expression] = []
        group_words: list[str] = []
        for g in plan.groups:
            expr, alias = self.group_expr(g)
            select.append(exp.alias_(expr, _ident(alias)) if g.unit else expr)
            group_by.append(expr.copy())
            group_words.append(g.unit or self.col_text(g.col))
        measure_words: list[str] = []
        measure_keys: list[tuple[exp.Expression, str]] = []
        for m in plan.measures:
            expr, alias, words = self.measure(m)
            select.append(exp.alias_(expr, _ident(alias)))
            measure_words.append(words)
            measure_keys.append((expr, alias))
        if not plan.measures:
            cols = plan.projection or tuple(ColRef(plan.target, c) for c in plan.target.columns)
            select.extend(self.col(c) for c in cols)
        query = exp.select(*select).from_(_table(plan.target))
        if plan.distinct and not plan.measures:
            query = query.distinct()
        for lk in plan.links:
            if lk.kind == "join":
                on = [
                    exp.column(_ident(rc), table=_ident(lk.table.name)).eq(
                        exp.column(_ident(fc), table=_ident(plan.target.name))
                    )
                    for fc, rc in zip(lk.fk.columns, lk.fk.ref_columns, strict=True)
                ]
                query = query.join(_table(lk.table), on=exp.and_(*on) if len(on) > 1 else on[0])
        if where:
            query = query.where(exp.and_(*where) if len(where) > 1 else where[0])
        if group_by:
            query = query.group_by(*group_by)
        order_text = ""
        if plan.ranking is not None:
            rk = plan.ranking.key
            key = (self.col(rk), self.col_text(rk)) if rk is not None else measure_keys[0]
            pk = [ColRef(plan.target, c) for n in plan.target.primary_key if (c := plan.target.column(n))]
            tie_break = group_by if plan.measures else [self.col(c) for c in pk]
            query, order_text = self.rank(query, key, tie_break, is_date_type(rk.column.type) if rk else False)
        elif group_by:
            query = query.order_by(*[e.copy() for e in group_by])

        if plan.measures:
            verb = " and ".join(measure_words)
        else:
            shown = ", ".join(self.col_text(c) for c in plan.projection)
            of = f"{shown} of " if shown else ""
            verb = f"listed {'distinct ' if plan.distinct else ''}{of}{_label(plan.target)}"
        sentence = verb[0].upper() + verb[1:]
        if texts:
            sentence += " where " + _join_words(texts)
        if group_words:
            sentence += (", " if texts else " ") + "per " + " and ".join(group_words)
        return FallbackSQL(sql=query.sql(dialect=self.dialect), explanation=sentence + order_text + ".")

    def build_per_entity(self) -> FallbackSQL:
        """One row per parent row (LEFT JOIN, so a parent without children shows 0), e.g. orders per customer."""
        plan, per = self.plan, self.plan.per
        assert per is not None
        child, parent = plan.target, per.table
        on: list[exp.Expression] = [
            exp.column(_ident(fc), table=_ident(child.name)).eq(exp.column(_ident(rc), table=_ident(parent.name)))
            for fc, rc in zip(per.fk.columns, per.fk.ref_columns, strict=True)
        ]
        where: list[exp.Expression] = []
        child_texts: list[str] = []
        parent_texts: list[str] = []
        for c in plan.conditions:
            expr, text = self.condition(c)
            if c.col.table.qualified_name == child.qualified_name:
                on.append(expr)
                child_texts.append(text)
            elif c.col.table.qualified_name == parent.qualified_name:
                where.append(expr)
                parent_texts.append(text)
            else:
                raise Refusal(f"a filter on {c.col.table.name} beside per-{parent.name} totals")
        keys = [ColRef(parent, col) for n in per.fk.ref_columns if (col := parent.column(n))] + [
            ColRef(parent, col) for col in per.labels
        ]
        group_by = [self.col(k) for k in keys]
        select: list[exp.Expression] = [e.copy() for e in group_by]
        words: list[str] = []
        measure_keys: list[tuple[exp.Expression, str]] = []
        for m in plan.measures:
            expr, alias, text = self.measure(m)
            if m.op == "count":  # count child rows, not the parent row a LEFT JOIN keeps
                expr = exp.Count(this=exp.column(_ident(per.fk.columns[0]), table=_ident(child.name)))
            elif m.op == "sum":
                expr = exp.Coalesce(this=expr, expressions=[exp.Literal.number(0)])
            select.append(exp.alias_(expr, _ident(alias)))
            measure_keys.append((expr, alias))
            words.append(text)
        query = exp.select(*select).from_(_table(parent))
        query = query.join(_table(child), on=exp.and_(*on) if len(on) > 1 else on[0], join_type="left")
        if where:
            query = query.where(exp.and_(*where) if len(where) > 1 else where[0])
        query = query.group_by(*group_by)
        order_text = ""
        if plan.ranking is not None:
            query, order_text = self.rank(query, measure_keys[0], group_by[: len(per.fk.ref_columns)], False)
        else:
            query = query.order_by(*[e.copy() for e in group_by])
        sentence = " and ".join(words)
        sentence = sentence[0].upper() + sentence[1:]
        if child_texts:
            sentence += " where " + _join_words(child_texts)
        shown = ", ".join(k.column.name for k in keys)
        sentence += f", per {_one(parent)} ({shown})"
        if parent_texts:
            sentence += f", for {_label(parent)} where " + _join_words(parent_texts)
        zero = plan.measures[0].op in ("count", "count_distinct", "sum")
        sentence += f"; {_label(parent)} without {_label(child)} show " + ("0" if zero else "no value")
        return FallbackSQL(sql=query.sql(dialect=self.dialect), explanation=sentence + order_text + ".")

    def rank(
        self, query: exp.Select, key: tuple[exp.Expression, str], tie_break: list[exp.Expression], is_date: bool
    ) -> tuple[exp.Select, str]:
        """ORDER BY the key (NULLs last) and LIMIT; a top-1 in PostgreSQL keeps every tied row."""
        r = self.plan.ranking
        assert r is not None
        ties = r.ties and self.dialect == "postgres"
        ordered = [exp.Ordered(this=key[0].copy(), desc=r.desc, nulls_first=False)]
        if not ties:
            ordered += [exp.Ordered(this=e.copy(), desc=False, nulls_first=False) for e in tie_break]
        query = query.order_by(*ordered)
        if ties:
            opts = exp.LimitOptions(rows=True, with_ties=True)
            query.set("limit", exp.Fetch(direction="FIRST", count=exp.Literal.number(r.limit), limit_options=opts))
        else:
            query = query.limit(r.limit)
        way = ("latest" if r.desc else "earliest") if is_date else ("highest" if r.desc else "lowest")
        which = "the one" if r.limit == 1 else f"the {r.limit}"
        text = f", keeping {which} with the {way} {key[1]}"
        if ties:
            text += " (all rows tied for that place are shown)"
        elif tie_break:
            text += f" (ties broken by {', '.join(e.sql(dialect=self.dialect) for e in tie_break)})"
        else:
            text += " (rows tied at the cut-off are picked arbitrarily)"
        return query, text

    def exists(self, lk: Link, conds: list[Condition]) -> tuple[exp.Expression, str]:
        on = [
            exp.column(_ident(fc), table=_ident(lk.table.name)).eq(
                exp.column(_ident(rc), table=_ident(self.plan.target.name))
            )
            for fc, rc in zip(lk.fk.columns, lk.fk.ref_columns, strict=True)
        ]
        parts: list[exp.Expression] = list(on)
        texts: list[str] = []
        for c in conds:
            expr, text = self.condition(c)
            parts.append(expr)
            texts.append(text)
        cond = exp.and_(*parts) if len(parts) > 1 else parts[0]
        sub = exp.select(exp.Literal.number(1)).from_(_table(lk.table)).where(cond)
        have = "have no" if lk.kind == "not_exists" else "have"
        text = f"they {have} {_label(lk.table)}" + (f" where {_join_words(texts)}" if texts else "")
        found = exp.Exists(this=sub)
        return (exp.Not(this=found), text) if lk.kind == "not_exists" else (found, text)


def _join_words(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _span_text(start: date | None, end: date | None) -> str:
    if start and end:
        return f"{start.isoformat()} to {(end - timedelta(days=1)).isoformat()}"
    if start:
        return f"on or after {start.isoformat()}"
    assert end is not None
    return f"before {end.isoformat()}"
