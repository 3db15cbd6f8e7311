"""Read a PostgreSQL catalogue into a Schema: a handful of bulk catalogue queries plus cheap value hints.

Every readable table, view, materialized view and foreign table in every user schema is listed (partitions
fold into their parent; objects that belong to extensions are left out). Value hints for text-like columns
come from enum labels, then from ``pg_stats`` when the table is analysed, and only otherwise from a bounded
sample query under a short statement timeout, so introspection stays fast on big databases.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any

from core.databases._inferred_keys import SAMPLE_ROWS, with_inferred_keys
from core.databases._shared import HINT_SAMPLE_ROWS, HINT_TIMEOUT_S, MAX_HINT_VALUE_CHARS, MAX_VALUE_HINTS, clean_hints
from core.schema import Column, ForeignKey, Index, Schema, Table

__all__ = ["introspect"]

logger = logging.getLogger(__name__)

HINT_TOTAL_BUDGET_S = 20.0  # past this, remaining tables get no sampled hints

_TABLES_SQL = """
SELECT c.oid, n.nspname, c.relname, obj_description(c.oid, 'pg_class'), c.reltuples
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f')
  AND NOT c.relispartition
  AND c.relpersistence <> 't'
  AND n.nspname NOT IN ('pg_catalog', 'information_schema')
  AND n.nspname NOT LIKE 'pg\\_toast%'
  AND n.nspname NOT LIKE 'pg\\_temp\\_%'
  AND NOT EXISTS (
      SELECT 1 FROM pg_depend d
      WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')
  AND has_schema_privilege(n.oid, 'USAGE')
  AND (has_table_privilege(c.oid, 'SELECT') OR has_any_column_privilege(c.oid, 'SELECT'))
ORDER BY n.nspname <> 'public', n.nspname, c.relname
"""

_COLUMNS_SQL = """
SELECT a.attrelid, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
       pg_get_expr(d.adbin, d.adrelid), col_description(a.attrelid, a.attnum),
       t.typcategory, t.typtype, a.atttypid, a.attgenerated, a.attidentity
FROM pg_attribute a
JOIN pg_type t ON t.oid = a.atttypid
LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE a.attrelid = ANY(%(oids)s) AND a.attnum > 0 AND NOT a.attisdropped
  AND has_column_privilege(a.attrelid, a.attnum, 'SELECT')
ORDER BY a.attrelid, a.attnum
"""

_CONSTRAINTS_SQL = """
SELECT con.conrelid, con.contype, con.convalidated,
       ARRAY(SELECT a.attname FROM unnest(con.conkey) WITH ORDINALITY k(num, ord)
             JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num ORDER BY k.ord),
       fn.nspname, fc.relname,
       ARRAY(SELECT a.attname FROM unnest(con.confkey) WITH ORDINALITY k(num, ord)
             JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.num ORDER BY k.ord)
FROM pg_constraint con
LEFT JOIN pg_class fc ON fc.oid = con.confrelid
LEFT JOIN pg_namespace fn ON fn.oid = fc.relnamespace
WHERE con.conrelid = ANY(%(oids)s) AND con.contype IN ('p', 'f') AND con.conparentid = 0
ORDER BY con.conrelid, con.conname
"""

_INDEXES_SQL = """
SELECT i.indrelid, ic.relname, i.indisunique AND i.indpred IS NULL,
       ARRAY(SELECT CASE WHEN i.indkey[k - 1] <> 0
                         THEN (SELECT a.attname::text FROM pg_attribute a
                               WHERE a.attrelid = i.indrelid AND a.attnum = i.indkey[k - 1])
                         ELSE pg_get_indexdef(i.indexrelid, k, true) END
             FROM generate_series(1, i.indnkeyatts) k ORDER BY k)
FROM pg_index i
JOIN pg_class ic ON ic.oid = i.indexrelid
WHERE i.indrelid = ANY(%(oids)s)
ORDER BY i.indrelid, ic.relname
"""

_ENUMS_SQL = """
SELECT enumtypid, array_agg(enumlabel::text ORDER BY enumsortorder)
FROM pg_enum WHERE enumtypid = ANY(%(oids)s) GROUP BY enumtypid
"""

_STATS_SQL = """
SELECT schemaname, tablename, attname, n_distinct, null_frac, most_common_vals::text::text[]
FROM pg_stats
WHERE schemaname = ANY(%(schemas)s) AND NOT inherited
UNION ALL
SELECT s.schemaname, s.tablename, s.attname, s.n_distinct, s.null_frac, s.most_common_vals::text::text[]
FROM pg_stats s
JOIN pg_namespace n ON n.nspname = s.schemaname
JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = s.tablename AND c.relkind = 'p'
WHERE s.schemaname = ANY(%(schemas)s) AND s.inherited
"""


@dataclass
class _ColumnInfo:
    name: str
    type: str
    nullable: bool
    default: str | None
    comment: str | None
    text_like: bool
    enum_oid: int | None
    hints: tuple[str, ...] = ()


@dataclass
class _TableInfo:
    oid: int
    schema: str
    name: str
    comment: str | None
    reltuples: float
    columns: list[_ColumnInfo] = field(default_factory=list)
    primary_key: tuple[str, ...] = ()
    foreign_keys: list[ForeignKey] = field(default_factory=list)
    indexes: list[Index] = field(default_factory=list)


def qualify(schema: str, name: str) -> str:
    """The same spelling as ``Table.qualified_name``: bare in ``public``, else ``schema.name``."""
    return name if schema == "public" else f"{schema}.{name}"


def introspect(conn: Any, database_id: str) -> Schema:
    """Build the Schema over an open psycopg connection (read-only transactions, rolled back or committed)."""
    started = time.perf_counter()
    tables = _read_catalogue(conn)
    conn.rollback()
    _add_value_hints(conn, tables)
    schema = Schema(
        dialect="postgres",
        database_id=database_id,
        tables=tuple(
            Table(
                name=t.name,
                schema=t.schema,
                columns=tuple(
                    Column(
                        name=c.name,
                        type=c.type,
                        nullable=c.nullable,
                        default=c.default,
                        comment=c.comment,
                        value_hints=c.hints,
                    )
                    for c in t.columns
                ),
                primary_key=t.primary_key,
                foreign_keys=tuple(t.foreign_keys),
                indexes=tuple(t.indexes),
                comment=t.comment,
            )
            for t in tables
        ),
    )
    schema = with_inferred_keys(schema, lambda *key: _orphan_found(conn, *key))
    logger.info("introspected %s: %d tables in %.2fs", database_id, len(tables), time.perf_counter() - started)
    return schema


def _orphan_found(conn: Any, table: Table, col: Column, ref: Table, key: Column) -> bool:
    """Does a sampled value of ``table.col`` have no match in ``ref.key``? (A failed check counts as yes.)"""
    from psycopg import Error, sql

    query = sql.SQL(
        "SELECT 1 FROM (SELECT {c} AS v FROM {t} WHERE {c} IS NOT NULL LIMIT {n}) AS s "
        "WHERE NOT EXISTS (SELECT 1 FROM {r} AS r WHERE r.{k} = s.v) LIMIT 1"
    ).format(c=sql.Identifier(col.name), t=sql.Identifier(table.schema or "public", table.name),
             n=sql.Literal(SAMPLE_ROWS), r=sql.Identifier(ref.schema or "public", ref.name), k=sql.Identifier(key.name))
    try:
        with conn.transaction():
            conn.execute("SELECT set_config('statement_timeout', %s, true)", (str(int(HINT_TIMEOUT_S * 1000)),))
            return conn.execute(query).fetchone() is not None
    except Error as exc:
        logger.info("join key %s.%s -> %s not checked: %s", table.name, col.name, ref.name, str(exc).splitlines()[0])
        return True


def _read_catalogue(conn: Any) -> list[_TableInfo]:
    tables = [
        _TableInfo(oid=r[0], schema=r[1], name=r[2], comment=r[3], reltuples=float(r[4] or 0))
        for r in conn.execute(_TABLES_SQL).fetchall()
    ]
    by_oid = {t.oid: t for t in tables}
    params = {"oids": list(by_oid)}
    for r in conn.execute(_COLUMNS_SQL, params).fetchall():
        rel, name, typ, notnull, default, comment, category, typtype, typoid, generated, identity = r
        if generated:
            default = f"GENERATED ALWAYS AS ({default})"
        elif identity:
            default = "GENERATED AS IDENTITY"
        by_oid[rel].columns.append(
            _ColumnInfo(
                name=name,
                type=typ,
                nullable=not notnull,
                default=default,
                comment=comment,
                text_like=category == "S",
                enum_oid=typoid if typtype == "e" else None,
            )
        )
    rows = conn.execute(_CONSTRAINTS_SQL, params).fetchall()
    for rel, contype, validated, cols, ref_schema, ref_name, ref_cols in rows:
        table = by_oid[rel]
        if contype == "p":
            table.primary_key = tuple(cols)
        elif ref_name is not None:  # NOT VALID: rows before it may break it, so it plans joins but proves nothing
            table.foreign_keys.append(ForeignKey(tuple(cols), qualify(ref_schema, ref_name), tuple(ref_cols),
                                                 inferred=not validated))
    for rel, name, unique, cols in conn.execute(_INDEXES_SQL, params).fetchall():
        by_oid[rel].indexes.append(Index(name=name, columns=tuple(cols), unique=bool(unique)))
    enum_oids = sorted({c.enum_oid for t in tables for c in t.columns if c.enum_oid is not None})
    if enum_oids:
        labels = dict(conn.execute(_ENUMS_SQL, {"oids": enum_oids}).fetchall())
        for t in tables:
            for c in t.columns:
                if c.enum_oid is not None:
                    c.hints = clean_hints(labels.get(c.enum_oid, ()))
    return tables


def _add_value_hints(conn: Any, tables: list[_TableInfo]) -> None:
    """Hints from pg_stats where ANALYZE has seen every value; a bounded sample query for the rest."""
    schemas = sorted({t.schema for t in tables})
    stats: dict[tuple[str, str, str], tuple[float, float, list[str] | None]] = {}
    if schemas:
        with conn.transaction():
            for sch, tab, col, n_distinct, null_frac, mcv in conn.execute(_STATS_SQL, {"schemas": schemas}):
                stats[(sch, tab, col)] = (float(n_distinct or 0), float(null_frac or 0), mcv)
    deadline = time.monotonic() + HINT_TOTAL_BUDGET_S
    for table in tables:
        to_sample: list[_ColumnInfo] = []
        for col in table.columns:
            if not col.text_like or col.enum_oid is not None:
                continue
            decided = _hints_from_stats(stats.get((table.schema, table.name, col.name)), table.reltuples)
            if decided is None:
                to_sample.append(col)
            else:
                col.hints = decided
        if not to_sample:
            continue
        if time.monotonic() > deadline:
            logger.warning("value hints skipped for %s.%s: introspection budget spent", table.schema, table.name)
            continue
        _sample_hints(conn, table, to_sample)


def _hints_from_stats(row: tuple[float, float, list[str] | None] | None, reltuples: float) -> tuple[str, ...] | None:
    """Hints decided from statistics, () for "too many values", or None when a sample must decide."""
    if row is None:
        return None
    n_distinct, null_frac, mcv = row
    if null_frac >= 1.0:
        return ()
    if n_distinct > 0:
        distinct = n_distinct
    elif n_distinct < 0 and reltuples > 0:
        distinct = -n_distinct * reltuples
    else:
        return None
    if distinct > MAX_VALUE_HINTS + 0.5:
        return ()
    if mcv and len(mcv) >= round(distinct):
        return clean_hints(mcv)
    return None  # ANALYZE left rare values out of the list: count them


def _sample_hints(conn: Any, table: _TableInfo, columns: list[_ColumnInfo]) -> None:
    from psycopg import Error, sql

    cols = [sql.Identifier(c.name) for c in columns]
    per_column = [
        sql.SQL(
            "ARRAY(SELECT v FROM (SELECT left({c}::text, {w}) AS v FROM s WHERE {c} IS NOT NULL) x "
            'GROUP BY v ORDER BY count(*) DESC, v COLLATE "C" LIMIT {n})'
        ).format(c=c, w=sql.Literal(MAX_HINT_VALUE_CHARS + 1), n=sql.Literal(MAX_VALUE_HINTS + 1))
        for c in cols
    ]
    query = sql.SQL("WITH s AS MATERIALIZED (SELECT {cols} FROM {table} LIMIT {limit}) SELECT {arrays}").format(
        cols=sql.SQL(", ").join(cols),
        table=sql.Identifier(table.schema, table.name),
        limit=sql.Literal(HINT_SAMPLE_ROWS),
        arrays=sql.SQL(", ").join(per_column),
    )
    try:
        with conn.transaction():
            conn.execute("SELECT set_config('statement_timeout', %s, true)", (str(int(HINT_TIMEOUT_S * 1000)),))
            row = conn.execute(query).fetchone()
    except Error as exc:
        logger.info("no value hints for %s.%s: %s", table.schema, table.name, str(exc).splitlines()[0])
        return
    for col, values in zip(columns, row or (), strict=False):
        col.hints = clean_hints(values or ())
