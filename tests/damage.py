"""Deterministic damage for recovery tests and benches: turn a gold query into the reply a small model writes.

Each kind imitates one fault seen from 7B models, and only damage a careful engineer could undo from the
schema and the reply alone: a renamed table or column must point back at exactly one real name, a foreign
idiom must mean the same as what it replaced, a join that is added cannot change the rows. :func:`damage`
returns None when a kind does not apply to a query (no LIMIT to turn into TOP, no GROUP BY to break...).
Everything is decided by a ``random.Random`` seeded from the seed, the kind and the SQL, so a run repeats.
"""

from __future__ import annotations

import logging
import random
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from core.schema import Schema, Table

__all__ = ["DAMAGE_KINDS", "Damaged", "damage", "render"]

logger = logging.getLogger(__name__)

DAMAGE_KINDS = (
    "clean", "prose_fences", "trailing_prose", "semicolons", "table_name", "column_name",
    "identifier_case", "dialect", "group_by", "extra_join", "fetch_limit", "mixed",
)  # fmt: skip
# Kinds that rebuild the query from its tree (the rest only wrap the text).
TREE_KINDS = frozenset({"table_name", "column_name", "identifier_case", "dialect", "group_by", "extra_join",
                        "fetch_limit", "mixed"})  # fmt: skip


@dataclass(frozen=True)
class Damaged:
    kind: str
    reply: str  # what the fake model answers
    note: str  # what was damaged, for reports


_BEFORE = (
    "Here is the SQL query to answer your question:\n\n",
    "Sure! The following query should work:\n",
    "To answer this, we need to query the database.\n\n",
    "",
)
_AFTER = (
    "\n\nThis query returns the requested rows.",
    "\n\nExplanation:\n- We select the needed columns.\n- We filter and sort as asked.",
    "\nLet me know if you need anything else!",
    "",
)
_TRAILING = (
    "\n\nThis query will give you the answer.",
    " This should return what you asked for.",
    "\n\nNote: adjust the filters if needed.",
    "\nHope this helps!",
)


def damage(gold_sql: str, schema: Schema, kind: str, seed: int = 0) -> Damaged | None:
    """The damaged reply of ``kind`` for ``gold_sql``, or None when the kind does not apply to it."""
    if kind not in DAMAGE_KINDS:
        raise ValueError(f"unknown damage kind {kind!r}")
    rng = random.Random(zlib.crc32(f"{seed}|{kind}|{gold_sql}".encode()))
    sql = gold_sql.strip().rstrip(";").strip()
    if kind == "clean":
        return Damaged(kind, sql, "unchanged")
    if kind == "prose_fences":
        fence = rng.choice(("```sql", "```SQL", "```", "```postgresql"))
        reply = f"{rng.choice(_BEFORE)}{fence}\n{sql}{rng.choice(('', ';'))}\n```{rng.choice(_AFTER)}"
        return Damaged(kind, reply, "fenced, with prose")
    if kind == "trailing_prose":
        return Damaged(kind, f"{sql};{rng.choice(_TRAILING)}", "trailing sentence")
    if kind == "semicolons":
        return Damaged(kind, sql + rng.choice((";", " ;", ";\n", ";;")), "trailing semicolon")
    if kind == "mixed":
        return _mixed(sql, schema, rng)
    try:
        tree = sqlglot.parse_one(sql, read=schema.dialect)
    except SqlglotError:
        return None
    return _TREE_DAMAGE[kind](tree, schema, rng)


def _mixed(sql: str, schema: Schema, rng: random.Random) -> Damaged | None:
    """Two or three faults at once, in prose: a name or two off, then maybe a foreign idiom or a dropped GROUP BY."""
    names = rng.sample(["table_name", "column_name", "identifier_case"], k=rng.choice((1, 2)))
    last = rng.choice(("dialect", "group_by", "extra_join", "fetch_limit", None))
    notes: list[str] = []
    for kind in [*names, *([last] if last else [])]:
        try:
            tree = sqlglot.parse_one(sql, read=schema.dialect)
        except SqlglotError:
            break
        damaged = _TREE_DAMAGE[kind](tree, schema, rng)
        if damaged is not None:
            sql, notes = damaged.reply, [*notes, damaged.note]
    if len(notes) < 2:
        return None
    wrap = rng.choice(("```sql\n{}\n```", "Here is the query:\n\n```\n{};\n```\nIt lists the rows.", "{};\n\nHope this helps!"))
    return Damaged("mixed", wrap.format(sql), "; ".join(notes))


def render(sql: str, dialect: str) -> str | None:
    """``sql`` as the tree-based kinds write it back (None when sqlglot cannot); benches check it is faithful."""
    try:
        return sqlglot.parse_one(sql, read=dialect).sql(dialect=dialect)
    except SqlglotError:
        return None


# -- helpers ---------------------------------------------------------------------------------------------------


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return word[:-1]
    return word


def _plural_toggle(word: str) -> str:
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + ("es" if word.endswith(("s", "x", "ch", "sh")) else "s")


def _key(name: str, drop: tuple[str, ...] = ()) -> str:
    """What an engineer compares: words, singular, without the table's own words, without separators."""
    words = [_singular(w) for w in re.findall(r"[a-z]+|\d+", _split_camel(name).lower())]
    kept = [w for w in words if w not in drop] or words
    return "".join(kept)


def _split_camel(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)


def _pascal(name: str) -> str:
    return "".join(w[:1].upper() + w[1:] for w in re.split(r"_+", name) if w)


def _table_words(table: Table) -> tuple[str, ...]:
    return tuple(_singular(w) for w in re.findall(r"[a-z]+", _split_camel(table.name).lower()))


def _ctes(tree: exp.Expression) -> set[str]:
    return {c.alias.lower() for c in tree.find_all(exp.CTE) if c.alias}


def _table_of(node: exp.Table, schema: Schema) -> Table | None:
    db = node.args.get("db")
    for table in schema.tables:
        if table.name.lower() != node.name.lower():
            continue
        if db is None or (table.schema or "").lower() == db.name.lower():
            return table
    return None


def _sources(select: exp.Select, schema: Schema, ctes: set[str]) -> dict[str, Table]:
    """Alias (or table name) -> schema table, for the FROM/JOIN tables of one SELECT."""
    out: dict[str, Table] = {}
    frm = select.args.get("from_") or select.args.get("from")
    nodes = [frm.this] if isinstance(frm, exp.From) else []
    nodes += [j.this for j in select.args.get("joins") or []]
    for node in nodes:
        if isinstance(node, exp.Table) and node.name.lower() not in ctes:
            table = _table_of(node, schema)
            if table is not None:
                out[(node.alias or node.name).lower()] = table
    return out


def _owner(col: exp.Column, schema: Schema, ctes: set[str]) -> Table | None:
    """The schema table a column reads, when its own SELECT makes that certain."""
    select = col.find_ancestor(exp.Select)
    if select is None:
        return None
    sources = _sources(select, schema, ctes)
    if col.table:
        return sources.get(col.table.lower())
    owners = [t for t in sources.values() if t.column(col.name.lower()) or t.column(col.name)]
    return owners[0] if len(owners) == 1 else None


def _identifiers(tree: exp.Expression) -> set[str]:
    return {i.name.lower() for i in tree.find_all(exp.Identifier)}


def _out(tree: exp.Expression, schema: Schema, kind: str, note: str, rng: random.Random, text: str = "") -> Damaged:
    sql = text or tree.sql(dialect=schema.dialect, pretty=rng.random() < 0.3)
    return Damaged(kind, sql, note)


# -- tree kinds ------------------------------------------------------------------------------------------------


def _table_name(tree: exp.Expression, schema: Schema, rng: random.Random) -> Damaged | None:
    ctes = _ctes(tree)
    refs = [n for n in tree.find_all(exp.Table) if n.name.lower() not in ctes and _table_of(n, schema)]
    rng.shuffle(refs)
    for node in refs:
        table = _table_of(node, schema)
        assert table is not None
        name = table.name
        variants = [_plural_toggle(name), _pascal(_plural_toggle(name)), name.replace("_", "")]
        rng.shuffle(variants)
        for variant in variants:
            if _norm(variant) == _norm(name) and variant.lower() == name.lower():
                continue
            same = [t for t in schema.tables if _key(t.name) == _key(variant)]
            if same != [table] or any(t.name.lower() == variant.lower() for t in schema.tables):
                continue
            if variant.lower() in _identifiers(tree):
                continue
            old = node.name.lower()
            bare = False
            for ref in list(tree.find_all(exp.Table)):
                if ref.name.lower() == old and _table_of(ref, schema) is table:
                    bare = bare or not ref.alias
                    ref.set("this", exp.to_identifier(variant))
            if bare:
                for col in tree.find_all(exp.Column):
                    if col.table.lower() == old:
                        col.set("table", exp.to_identifier(variant))
            return _out(tree, schema, "table_name", f"table {name} -> {variant}", rng)
    return None


def _column_variants(column: str, table: Table) -> list[str]:
    words = _table_words(table)
    prefix = words[-1] if words else ""
    out = [column.replace("_", ""), _plural_toggle(column)]
    if prefix and re.fullmatch(r"[a-z]+", column):  # models prefix short generic names (name -> customer_name)
        out.append(f"{prefix}_{column}")
    if prefix and column.lower().startswith(prefix + "_"):
        out.append(column[len(prefix) + 1 :])
    if column.lower() == "name":
        out.append("full_name")
    return [v for v in out if v and v.lower() != column.lower()]


def _column_name(tree: exp.Expression, schema: Schema, rng: random.Random) -> Damaged | None:
    ctes = _ctes(tree)
    cols = [c for c in tree.find_all(exp.Column) if isinstance(c.this, exp.Identifier) and _owner(c, schema, ctes)]
    rng.shuffle(cols)
    taken = _identifiers(tree)
    for col in cols:
        table = _owner(col, schema, ctes)
        assert table is not None
        real = col.name
        for variant in rng.sample(_column_variants(real, table), k=len(_column_variants(real, table))):
            if variant.lower() in taken or any(t.column(variant.lower()) for t in schema.tables):
                continue
            drop = _table_words(table)
            near = [c for c in table.column_names if _key(c, drop) == _key(variant, drop)]
            if len(near) != 1 or near[0].lower() != real.lower():
                continue
            for other in tree.find_all(exp.Column):
                if other.name.lower() == real.lower() and _owner(other, schema, ctes) is table:
                    other.set("this", exp.to_identifier(variant))
            return _out(tree, schema, "column_name", f"column {table.name}.{real} -> {variant}", rng)
    return None


def _identifier_case(tree: exp.Expression, schema: Schema, rng: random.Random) -> Damaged | None:
    """Quote names in PascalCase (``"Customer"."CustomerId"``): PostgreSQL then no longer folds them."""
    ctes = _ctes(tree)
    changed: list[str] = []
    cols = [c for c in tree.find_all(exp.Column) if isinstance(c.this, exp.Identifier) and _owner(c, schema, ctes)]
    refs = [n for n in tree.find_all(exp.Table) if n.name.lower() not in ctes and _table_of(n, schema)]
    names = sorted({n.name.lower() for n in refs})
    chosen = {n for n in names if rng.random() < 0.7}
    aliases = {a.name.lower() for a in tree.find_all(exp.TableAlias) if a.name}
    for node in refs:
        if node.name.lower() in chosen:
            changed.append(node.name)
            node.set("this", exp.to_identifier(_pascal(node.name), quoted=True))
    for col in cols:
        if col.table.lower() in chosen and col.table.lower() not in aliases:
            col.set("table", exp.to_identifier(_pascal(col.table), quoted=True))
        if rng.random() < 0.6 and _pascal(col.name) != col.name:
            changed.append(col.name)
            col.set("this", exp.to_identifier(_pascal(col.name), quoted=True))
    if not changed:
        return None
    return _out(tree, schema, "identifier_case", "quoted PascalCase: " + ", ".join(sorted(set(changed))), rng)


_MARK = "cairn_top_marker__"


def _dialect(tree: exp.Expression, schema: Schema, rng: random.Random) -> Damaged | None:
    """Idioms of T-SQL, MySQL or SQLite that mean exactly what the PostgreSQL they replace means."""
    if schema.dialect != "postgres":
        return None
    families = ["tsql", "mysql", "sqlite"]
    rng.shuffle(families)
    for family in families:
        damaged = _foreign_idioms(tree.copy(), schema, rng, family)
        if damaged is not None:
            return damaged
    return None


def _foreign_idioms(tree: exp.Expression, schema: Schema, rng: random.Random, family: str) -> Damaged | None:
    done: list[str] = []
    for node in list(tree.find_all(exp.Sub, exp.Add)):
        shifted = _date_shift(node, family)
        if shifted is not None:
            node.replace(shifted)
            done.append(shifted.name.upper() + "()")
    for node in list(tree.find_all(exp.Coalesce)):
        if len(node.expressions) == 1:
            name = {"tsql": "ISNULL", "mysql": "IFNULL", "sqlite": "IFNULL"}[family]
            node.replace(exp.Anonymous(this=name, expressions=[node.this, node.expressions[0]]))
            done.append(name)
    for node in list(tree.find_all(exp.CurrentDate)):
        repl = {
            "tsql": exp.Cast(this=exp.Anonymous(this="GETDATE"), to=exp.DataType.build("date")),
            "mysql": exp.Anonymous(this="CURDATE"),
            "sqlite": exp.Anonymous(this="date", expressions=[exp.Literal.string("now")]),
        }[family]
        node.replace(repl)
        done.append(repl.sql())
    for node in list(tree.find_all(exp.CurrentTimestamp)):
        if family == "tsql":
            node.replace(exp.Anonymous(this="GETDATE"))
            done.append("GETDATE()")
    for node in list(tree.find_all(exp.Extract)):
        unit = node.this.name.upper()
        if family in ("tsql", "mysql") and unit in ("YEAR", "MONTH", "DAY") and isinstance(node.expression, exp.Column):
            node.replace(exp.Anonymous(this=unit, expressions=[node.expression]))
            done.append(f"{unit}()")
    text = ""
    limit = tree.args.get("limit") if isinstance(tree, exp.Select) else None
    offset = tree.args.get("offset") if isinstance(tree, exp.Select) else None
    if isinstance(limit, exp.Limit) and isinstance(limit.expression, exp.Literal):
        n = limit.expression.name
        if family == "tsql" and offset is None and not tree.args.get("distinct"):
            tree.set("limit", None)
            tree.expressions.insert(0, exp.column(_MARK))
            text = tree.sql(dialect="postgres").replace(f"SELECT {_MARK}, ", f"SELECT TOP {n} ", 1)
            done.append("TOP")
        elif family == "mysql" and isinstance(offset, exp.Offset) and isinstance(offset.expression, exp.Literal):
            tree.set("limit", None)
            tree.set("offset", None)
            text = f"{tree.sql(dialect='postgres')} LIMIT {offset.expression.name}, {n}"
            done.append("LIMIT x,y")
    if family == "mysql" and not text and not any('"' in lit.name for lit in tree.find_all(exp.Literal)):
        text = _backtick(tree)
        done.append("backticks")
    if not done:
        return None
    return _out(tree, schema, "dialect", f"{family}: " + ", ".join(dict.fromkeys(done)), rng, text)


_UNITS = {"DAY": "day", "DAYS": "day", "WEEK": "week", "WEEKS": "week", "MONTH": "month", "MONTHS": "month",
          "YEAR": "year", "YEARS": "year"}  # fmt: skip


def _date_shift(node: exp.Expression, family: str) -> exp.Expression | None:
    """``CURRENT_DATE - INTERVAL '30 days'`` as T-SQL ``DATEADD(day, -30, ...)`` or SQLite ``date('now', '-30 days')``."""
    base, interval = node.this, node.expression
    if not isinstance(base, exp.CurrentDate) or not isinstance(interval, exp.Interval):
        return None
    amount, unit = interval.this, interval.args.get("unit")
    if not isinstance(amount, exp.Literal) or not amount.name.isdigit() or unit is None:
        return None
    word = _UNITS.get(unit.name.upper())
    if word is None:
        return None
    n = int(amount.name) * (-1 if isinstance(node, exp.Sub) else 1)
    if family == "tsql":
        today = exp.Cast(this=exp.Anonymous(this="GETDATE"), to=exp.DataType.build("date"))
        return exp.Anonymous(this="DATEADD", expressions=[exp.var(word), exp.Literal.number(n), today])
    if family == "sqlite" and word != "week":
        return exp.Anonymous(this="date", expressions=[exp.Literal.string("now"), exp.Literal.string(f"{n:+d} {word}s")])
    return None


def _backtick(tree: exp.Expression) -> str:
    """PostgreSQL text with every column and table name in backticks (MySQL style)."""
    for ident in tree.find_all(exp.Identifier):
        if isinstance(ident.parent, (exp.Column, exp.Table)):
            ident.set("quoted", True)
    return tree.sql(dialect="postgres").replace('"', "`")


def _group_by(tree: exp.Expression, schema: Schema, rng: random.Random) -> Damaged | None:
    """Drop a selected column from GROUP BY (the query still selects it)."""
    selects = [s for s in tree.find_all(exp.Select) if s.args.get("group") is not None]
    rng.shuffle(selects)
    for select in selects:
        group = select.args["group"]
        projected = [p.unalias() for p in select.expressions]
        items = [g for g in group.expressions if isinstance(g, exp.Column) and any(g == p for p in projected)]
        if not items:
            continue
        victim = rng.choice(items)
        victim.pop()
        if not group.expressions:
            if not any(isinstance(n, exp.AggFunc) for p in select.expressions for n in p.find_all(exp.AggFunc)):
                return None
            select.set("group", None)
        return _out(tree, schema, "group_by", f"dropped {victim.sql()} from GROUP BY", rng)
    return None


def _extra_join(tree: exp.Expression, schema: Schema, rng: random.Random) -> Damaged | None:
    """LEFT JOIN a table on its primary key from a column that names it: at most one match, rows unchanged."""
    if not isinstance(tree, exp.Select) or any(j.side in ("RIGHT", "FULL") for j in tree.args.get("joins") or []):
        return None
    if any(isinstance(p, exp.Star) or isinstance(p, exp.Column) and isinstance(p.this, exp.Star)
           for p in tree.expressions):
        return None  # SELECT * would gain the joined table's columns
    ctes = _ctes(tree)
    sources = _sources(tree, schema, ctes)
    used = {t.qualified_name for t in sources.values()}
    options: list[tuple[str, Table, str, Table]] = []
    for alias, table in sources.items():
        for fk in table.foreign_keys:
            ref = schema.table(fk.ref_table)
            if ref is not None and ref.qualified_name not in used and len(fk.columns) == 1 and ref.is_unique(
                fk.ref_columns
            ):
                options.append((alias, table, fk.columns[0] + "=" + fk.ref_columns[0], ref))
        for col in table.column_names:
            for ref in schema.tables:
                if ref.qualified_name in used or col in table.primary_key or tuple(ref.primary_key) != (col,):
                    continue
                options.append((alias, table, f"{col}={col}", ref))
    if not options:
        return None
    alias, _, pair, ref = rng.choice(sorted(options, key=lambda o: (o[0], o[2], o[3].qualified_name)))
    mine, theirs = pair.split("=")
    ref_alias = "x_" + ref.name[:1].lower()
    target = f"{ref.schema}.{ref.name}" if ref.schema not in (None, "public") else ref.name
    join = sqlglot.parse_one(
        f"SELECT 1 FROM t LEFT JOIN {target} AS {ref_alias} ON {alias}.{mine} = {ref_alias}.{theirs}",
        read=schema.dialect,
    ).args["joins"][0]
    tree.append("joins", join)
    return _out(tree, schema, "extra_join", f"LEFT JOIN {ref.name} on its key", rng)


def _fetch_limit(tree: exp.Expression, schema: Schema, rng: random.Random) -> Damaged | None:
    """``FETCH FIRST n ROWS ONLY`` for the LIMIT, then ``LIMIT 20`` added after it."""
    if schema.dialect != "postgres" or not isinstance(tree, (exp.Select, exp.SetOperation)):
        return None
    limit = tree.args.get("limit")
    if not isinstance(limit, exp.Limit) or not isinstance(limit.expression, exp.Literal) or tree.args.get("offset"):
        return None
    n = limit.expression.name
    tree.set("limit", None)
    extra = rng.choice(("20", "100", "10"))
    text = f"{tree.sql(dialect='postgres')}\nFETCH FIRST {n} ROWS ONLY\nLIMIT {extra}"
    return _out(tree, schema, "fetch_limit", f"FETCH FIRST {n} then LIMIT {extra}", rng, text)


_TREE_DAMAGE: dict[str, Callable[[exp.Expression, Schema, random.Random], Damaged | None]] = {
    "table_name": _table_name,
    "column_name": _column_name,
    "identifier_case": _identifier_case,
    "dialect": _dialect,
    "group_by": _group_by,
    "extra_join": _extra_join,
    "fetch_limit": _fetch_limit,
}
