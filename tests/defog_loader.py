"""Defog evaluation databases for tests and benches: load a dump into the embedded server, or build its
``Schema`` offline (no database) from the ``.json`` descriptions plus keys and values parsed from the dump.

Loading runs the whole dump in one transaction that ends by stamping the database comment, so a database
is either complete (stamped, skipped next time) or empty. Dumps may hold psql meta-commands
(``\\connect``, ``\\set``...) which are dropped, and ``COPY ... FROM stdin`` blocks which go through COPY.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot import exp

from core.errors import DatabaseError
from core.schema import Column, ForeignKey, Schema, Table
from tests.conftest import shared_data_path

__all__ = ["DEFOG_DATABASES", "PgTable", "defog_schema", "load_defog", "pg_tables", "split_dump"]

logger = logging.getLogger(__name__)

DEFOG_DATABASES = (
    "academic", "advising", "atis", "broker", "car_dealership", "derm_treatment",
    "ewallet", "geography", "restaurants", "scholar", "yelp",
)

_COPY_FROM_STDIN = re.compile(r"^\s*COPY\b.*\bFROM\s+stdin\b", re.IGNORECASE)
_loaded: dict[tuple[str, str], str] = {}


def split_dump(text: str) -> list[tuple[str, str | list[str]]]:
    """The dump as ("sql", text) chunks and ("copy", [statement, data lines...]) blocks, meta-commands out."""
    parts: list[tuple[str, Any]] = []
    sql: list[str] = []
    lines = iter(text.splitlines())
    for line in lines:
        if _COPY_FROM_STDIN.match(line):
            if sql:
                parts.append(("sql", "\n".join(sql)))
                sql = []
            block = [line.rstrip().rstrip(";")]
            for data in lines:
                if data.strip() == "\\.":
                    break
                block.append(data)
            parts.append(("copy", block))
        elif line.lstrip().startswith("\\"):
            logger.debug("dropping psql meta-command %r", line[:60])
        else:
            sql.append(line)
    if any(s.strip() for s in sql):
        parts.append(("sql", "\n".join(sql)))
    return parts


def load_defog(embedded_pg: Any, name: str) -> str:
    """URI of database ``defog_<name>`` on ``embedded_pg``, loaded from ``defog/<name>/<name>.sql`` once."""
    import psycopg
    from psycopg import sql as pgsql

    dump = shared_data_path("defog", name, f"{name}.sql")
    dbname = f"defog_{name}"
    uri = embedded_pg.uri(dbname)
    key = (uri, name)
    if key in _loaded:
        return _loaded[key]
    text = dump.read_text(encoding="utf-8")
    stamp = f"cairn defog {name} sha256:{hashlib.sha256(text.encode()).hexdigest()[:16]}"
    embedded_pg.ensure_database(dbname)
    try:
        with psycopg.connect(uri) as conn:
            row = conn.execute(
                "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = %s", (dbname,)
            ).fetchone()
            if row and row[0] == stamp:
                _loaded[key] = uri
                return uri
            conn.rollback()
            with conn.transaction():
                for kind, part in split_dump(text):
                    if kind == "sql":
                        conn.execute(part)  # type: ignore[arg-type]  # no params: multi-statement allowed
                    else:
                        with conn.cursor().copy(part[0]) as copy:  # type: ignore[index]
                            for data in part[1:]:
                                copy.write(data + "\n")
                conn.execute(
                    pgsql.SQL("COMMENT ON DATABASE {} IS {}").format(pgsql.Identifier(dbname), pgsql.Literal(stamp))
                )
    except psycopg.Error as exc:
        raise DatabaseError(f"Could not load the defog dump {dump}: {exc}") from exc
    logger.info("loaded defog database %s", dbname)
    _loaded[key] = uri
    return uri


# ---- offline Schema ------------------------------------------------------------------------------------------

MAX_HINT_VALUES = 10


def _name(ident: exp.Expression | None) -> str:
    """An identifier as PostgreSQL stores it: unquoted names fold to lower case."""
    if not isinstance(ident, exp.Identifier):
        return ident.name if ident is not None else ""
    return ident.this if ident.quoted else ident.this.lower()


def _table_key(table: exp.Table) -> str:
    db = _name(table.args.get("db"))
    name = _name(table.this)
    return name if db in ("", "public") else f"{db}.{name}"


def _ref(reference: exp.Reference) -> tuple[str, tuple[str, ...]]:
    target = reference.this
    if isinstance(target, exp.Schema):
        return _table_key(target.this), tuple(_name(e) for e in target.expressions)
    return _table_key(target), ()


def _parse_dump(text: str) -> tuple[dict[str, dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """Per table: columns, pk, fks from CREATE/ALTER; and literal rows from INSERT."""
    ddl: dict[str, dict[str, Any]] = {}
    rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for stmt in sqlglot.parse(text, read="postgres"):
        if isinstance(stmt, exp.Create) and stmt.kind == "TABLE" and isinstance(stmt.this, exp.Schema):
            key = _table_key(stmt.this.this)
            info: dict[str, Any] = {"columns": [], "pk": (), "fks": []}
            for item in stmt.this.expressions:
                if isinstance(item, exp.ColumnDef):
                    col = _name(item.this)
                    info["columns"].append((col, item.args["kind"].sql("postgres") if item.args.get("kind") else ""))
                    for cons in item.args.get("constraints") or []:
                        kind = cons.args.get("kind")
                        if isinstance(kind, exp.PrimaryKeyColumnConstraint):
                            info["pk"] = (col,)
                        elif isinstance(kind, exp.Reference):
                            ref_table, ref_cols = _ref(kind)
                            info["fks"].append(((col,), ref_table, ref_cols))
                elif isinstance(item, exp.PrimaryKey):
                    info["pk"] = tuple(_name(e) for e in item.expressions)
                elif isinstance(item, exp.ForeignKey):
                    ref_table, ref_cols = _ref(item.args["reference"])
                    info["fks"].append((tuple(_name(e) for e in item.expressions), ref_table, ref_cols))
            ddl[key] = info
        elif isinstance(stmt, exp.Alter) and isinstance(stmt.this, exp.Table):
            key = _table_key(stmt.this)
            for fk in stmt.find_all(exp.ForeignKey):
                ref_table, ref_cols = _ref(fk.args["reference"])
                ddl.setdefault(key, {"columns": [], "pk": (), "fks": []})["fks"].append(
                    (tuple(_name(e) for e in fk.expressions), ref_table, ref_cols)
                )
        elif isinstance(stmt, exp.Insert) and isinstance(stmt.expression, exp.Values):
            target = stmt.this
            table = target.this if isinstance(target, exp.Schema) else target
            cols = [_name(e) for e in target.expressions] if isinstance(target, exp.Schema) else None
            key = _table_key(table)
            for tup in stmt.expression.expressions:
                values = [e.this if isinstance(e, exp.Literal) and e.is_string else None for e in tup.expressions]
                if cols is None:
                    cols = [c for c, _ in ddl.get(key, {}).get("columns", [])]
                rows[key].append(dict(zip(cols, values, strict=False)))
    return ddl, rows


def _value_hints(table_rows: list[dict[str, Any]], column: str, sql_type: str) -> tuple[str, ...]:
    """Distinct values of a low-cardinality text column, as introspection would sample them."""
    if not re.match(r"(text|varchar|character|char)", sql_type.lower()):
        return ()
    values = [r.get(column) for r in table_rows]
    present = [v for v in values if v is not None]
    distinct = sorted(set(present))
    if not present or len(distinct) > MAX_HINT_VALUES or len(present) < 2 * len(distinct):
        return ()
    if any(len(v) > 40 for v in distinct):
        return ()
    return tuple(distinct)


def defog_schema(name: str) -> Schema:
    """The ``Schema`` introspection would give for defog database ``name``, built without a database."""
    base = shared_data_path("defog", name)
    meta = json.loads((base / f"{name}.json").read_text(encoding="utf-8"))["table_metadata"]
    ddl, rows = _parse_dump((base / f"{name}.sql").read_text(encoding="utf-8"))
    tables: list[Table] = []
    for raw_table, cols in meta.items():
        schema_name, _, bare = raw_table.rpartition(".")
        key = raw_table.lower()
        info = ddl.get(key, {"columns": [], "pk": (), "fks": []})
        types = dict(info["columns"])
        columns = []
        for c in cols:
            col_name = c["column_name"].lower()
            col_type = types.get(col_name) or c.get("data_type", "")
            columns.append(
                Column(
                    name=col_name,
                    type=col_type,
                    comment=c.get("column_description") or None,
                    value_hints=_value_hints(rows.get(key, []), col_name, col_type),
                )
            )
        tables.append(
            Table(
                name=bare.lower(),
                schema=schema_name.lower() or "public",
                columns=tuple(columns),
                primary_key=tuple(info["pk"]),
                foreign_keys=tuple(ForeignKey(tuple(c), t, tuple(r)) for c, t, r in info["fks"]),
            )
        )
    return Schema(dialect="postgres", tables=tuple(tables), database_id=f"defog_{name}")


@dataclass(frozen=True)
class PgTable:
    name: str
    columns: list[tuple[str, str, str]]  # (name, data_type, is_nullable)
    primary_key: list[str]
    rows: list[tuple[Any, ...]]


def pg_tables(conn: Any) -> Iterator[PgTable]:
    """Every base table of a PostgreSQL connection with its columns, primary key and rows, for copying it into
    another engine; a table of another namespace is taken by its bare name, once (public first)."""
    tables = conn.execute(
        "SELECT table_schema, table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE' "
        "AND table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY table_schema <> 'public', "
        "table_schema, table_name").fetchall()  # fmt: skip
    done: set[str] = set()
    for namespace, table in tables:
        if table.lower() in done:
            continue
        done.add(table.lower())
        qualified = '"' + namespace.replace('"', '""') + '"."' + table.replace('"', '""') + '"'
        cols = conn.execute(
            "SELECT column_name, data_type, is_nullable FROM information_schema.columns "
            "WHERE table_schema = %s AND table_name = %s ORDER BY ordinal_position", (namespace, table)).fetchall()
        pk = [r[0] for r in conn.execute(
            "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid "
            "AND a.attnum = ANY(i.indkey) WHERE i.indrelid = %s::regclass AND i.indisprimary "
            "ORDER BY array_position(i.indkey, a.attnum)", (qualified,))]  # fmt: skip
        names = ", ".join('"' + c.replace('"', '""') + '"' for c, _, _ in cols)
        rows = conn.execute(f"SELECT {names} FROM {qualified}").fetchall()
        yield PgTable(table, [tuple(c) for c in cols], pk, rows)
