"""Table-name repair: point every table reference of a query at a real table of the schema.

CTE names and derived-table aliases are not tables and are left alone; aliases keep working because only
the table name (and its namespace) changes. A renamed table without an alias is also renamed where a
column is qualified with it (``singers.name`` -> ``singer.name``). A CTE named for the table its own body reads
(``WITH sales AS (SELECT * FROM sales …)``, a circular reference to SQLite) is renamed, as PostgreSQL reads it.
"""

from __future__ import annotations

import logging

from sqlglot import exp

from core.dialects import exact_table_names
from core.errors import SQLValidationError
from core.schema import Schema, Table
from core.sql.repair._names import (
    ACCEPT, GUESSED, Candidate, Meaning, effective, embedded_run, identifier, matches, name_score, pick_scored, tokens,
    words_of,
)

__all__ = ["cte_names", "repair_tables", "resolve_table"]

logger = logging.getLogger(__name__)

_DEFAULT_NAMESPACES = (None, "public", "main")
_SPELLING = 0.9  # a score this high is the same name spelt otherwise (case, plural, snake or camel case)
# Words that name a table as a table and say nothing of its rows (singular, as ``tokens`` gives them).
_TABLE_WORDS = frozenset({"table", "tbl", "tab", "tb", "t", "info", "datum", "data", "detail", "record", "list",
                          "master", "dim", "fact", "view", "vw", "entity"})  # t_orders, tb_orders: a table prefix
_EMBEDDED = 0.66  # a table's whole name inside the written one: enough to repair, not to beat a closer name
_BELOW = ACCEPT - 0.01  # a score too low to repair with


def cte_names(tree: exp.Expression) -> set[str]:
    """Lower-case names of every CTE in the query (a reference to one is not a table)."""
    return {cte.alias.lower() for cte in tree.find_all(exp.CTE) if cte.alias}


def _namespace(table: Table) -> str | None:
    return None if table.schema in _DEFAULT_NAMESPACES else table.schema


def resolve_table(node: exp.Table, schema: Schema, dialect: str) -> Table | None:
    """The schema table ``node`` names, resolved exactly as the database would, or None."""
    name = node.this
    if not isinstance(name, exp.Identifier):
        return None
    db = node.args.get("db")
    for table in schema.tables:
        if not matches(name, table.name, dialect):
            continue
        if db is None:
            if _namespace(table) is None:
                return table
        elif dialect == "postgres":
            if effective(db, dialect) == (table.schema or "public"):
                return table
        elif db.this.lower() in ("main", "temp") or (table.schema and db.this.lower() == table.schema.lower()):
            return table
    return None


def _spelled(node: exp.Table) -> str:
    parts = [node.args["db"].sql() if node.args.get("db") else "", node.this.sql()]
    return ".".join(p for p in parts if p)


def _score(node: exp.Table, table: Table) -> float:
    """Closeness of a table reference to ``table``; the namespace may be missing or wrong at a small cost."""
    name = node.this.this
    db = node.args.get("db")
    score = name_score(name, table.name)
    extra = set(tokens(name)) - set(tokens(table.name))
    if extra and set(tokens(table.name)) < set(tokens(name)) and not extra <= _TABLE_WORDS:
        score = min(score, _BELOW)  # ``cancelled_flight`` is not the table flight: the word says which rows
    if "." in name:  # a quoted "schema.table"
        score = max(score, name_score(name, table.qualified_name) - 0.01)
    given = db.this.lower() if db is not None else None
    wanted_ns = _namespace(table)
    if given not in (None, "public", "main") or wanted_ns is not None:
        if given is None or wanted_ns is None or given != wanted_ns.lower():
            score -= 0.01
    return score


def _embedded(written: str, schema: Schema) -> set[str]:
    """Tables whose whole name the written name holds between words that only say "a table" (``flight_table``,
    ``tbl_sbTicker``, ``course_offering_info``): the longest such name only (course_offering, not course). A word
    that says which rows — ``returned_orders``, ``delayed_flight_log``, ``customer_2023`` — is a filter the table
    does not hold: no such reading."""
    words = words_of(written)
    runs = {t.qualified_name: run for t in schema.tables if (run := embedded_run(written, t.name)) is not None}
    out = set()
    for name, (i, j) in runs.items():
        if any(a <= i and j <= b and (a, b) != (i, j) for a, b in runs.values()):
            continue  # inside a longer table name the written name also holds
        around = [*words[:i], *words[j:]]
        if not all(tokens(w) and tokens(w)[0] in _TABLE_WORDS for w in around):
            continue  # a word that says which rows (``returned_orders``, ``customer_list_2023``), or a key word
        out.add(name)
    return out


def _plain_reference(node: exp.Table, schema: Schema) -> bool:
    """Whether a table name found inside the written one may be read: not under a namespace the schema lacks
    (``checkin.business_id`` is a column read as a table)."""
    db = node.args.get("db")
    return db is None or db.name.lower() in {(t.schema or "").lower() for t in schema.tables} | {"main", "public"}


def _near_cte(node: exp.Table, ctes: dict[str, exp.Identifier], table_score: float, fixes: list[str]) -> bool:
    """An unknown name that shares a word with one of the query's CTEs means that CTE (``vip_customers`` beside
    ``WITH vip_customer AS …``) rather than a table the name is not a spelling of (case, plural: ``table_score``
    0.9 or more): respelt when it is surely that one (True), an error naming the CTEs when it is not
    (``big_customer`` beside ``big``: the CTE or the table customer)."""
    if node.args.get("db") is not None or table_score >= _SPELLING:
        return False
    words = set(tokens(node.name))
    near = [name for name in ctes if words & set(tokens(name))]
    if not near:
        return False
    sure = [name for name in near if name_score(node.name, name) >= ACCEPT]
    if len(sure) != 1:
        raise SQLValidationError(f"Unknown table {node.name}; the query's own tables (WITH): {', '.join(near)}",
                                 hint=f"Read from one of: {', '.join(near)}.")
    before = _spelled(node)
    node.set("this", ctes[sure[0]].copy())
    fixes.append(f"table {before} -> {_spelled(node)}")
    return True


def _columns_fit(node: exp.Table, schema: Schema, qualified_name: str, tree: exp.Expression) -> bool:
    """Whether every column the query reads through ``node`` is a column of that table as written — the proof a
    table name found inside the written one needs (``domain_writer`` holds ``domain``, but ``da.aid`` is no column
    of domain: the junction table domain_author was meant, and no name says so)."""
    table = next(t for t in schema.tables if t.qualified_name == qualified_name)
    have = {c.name.lower() for c in table.columns}
    qualifier = (node.alias or node.name).lower()
    only_table = len(list(tree.find_all(exp.Table))) == 1
    for col in tree.find_all(exp.Column):
        named = col.table.lower()
        if (named == qualifier or (not named and only_table)) and col.name.lower() not in have:
            if not named and col.name.lower() in _output_names(tree):
                continue  # ORDER BY an alias of the select list
            return False
    return True


def _holding_all_read(node: exp.Table, schema: Schema, tree: exp.Expression) -> Table | None:
    """The one table that has every column the query reads through ``node``'s name or alias, when it reads two or
    more (``research_area.did``, ``research_area.name``: domain) — a name no spelling rule reads, proved by the
    columns; None when none or several tables hold them all."""
    read = _read_through(node, tree)
    if len(read) < 2:
        return None
    held = [t for t in schema.tables if read <= {c.name.lower() for c in t.columns} and not _names_more_than(node, t)]
    return held[0] if len(held) == 1 and (node.alias or not _taken(node, tree, held[0].name)) else None


def _names_more_than(node: exp.Table, table: Table) -> bool:
    """``us_orders``, ``orders_2023``, ``customers_with_orders``: a written name holding ``table``'s name and more
    words, which may pick out its rows (a filter the name implies): never read as that table by its columns."""
    return set(tokens(table.name)) < set(tokens(node.name))


def _read_through(node: exp.Table, tree: exp.Expression) -> set[str]:
    """The columns the query reads through ``node``'s name — qualified with it or with the alias of any entry
    written with that name (``writer a1 JOIN writer a2``: one table, read as one) — and, when it is the query's only
    table, written bare."""
    tables = list(tree.find_all(exp.Table))
    qualifiers = {(t.alias or t.name).lower() for t in tables if t.name.lower() == node.name.lower()}
    only = len(tables) == 1
    return {c.name.lower() for c in tree.find_all(exp.Column) if c.table.lower() in qualifiers or only and not c.table}


_CLEAR_LEAD = 0.1  # how much closer in meaning the chosen table must be than the next one


def _closest_holder(node: exp.Table, schema: Schema, tree: exp.Expression, meaning: Meaning | None) -> Table | None:
    """Of the tables holding every column the query reads through ``node`` (one or more), the one clearly closest in
    meaning to the written name (``article``: publication) — a guess the model is asked about first; None without
    the encoder, or when no one is clearly closest."""
    read = _read_through(node, tree)
    held = [t for t in schema.tables if read and read <= {c.name.lower() for c in t.columns}
            and (node.alias or not _taken(node, tree, t.name)) and not _names_more_than(node, t)]
    if meaning is None or not held:
        return None
    try:
        scores = list(meaning(" ".join(tokens(node.name)), [" ".join(tokens(t.name)) for t in held]))
    except Exception:  # noqa: BLE001 - the encoder is a courtesy: without it, the error stands
        return None
    ranked = sorted(zip(scores, range(len(held)), strict=True), reverse=True)
    if len(ranked) > 1 and ranked[0][0] - ranked[1][0] < _CLEAR_LEAD:
        return None
    return held[ranked[0][1]]


def _taken(node: exp.Table, tree: exp.Expression, name: str) -> bool:
    """Whether another table of ``node``'s SELECT is already read under ``name`` (its name or alias)."""
    select = node.find_ancestor(exp.Select)
    return any((t.alias_or_name or "").lower() == name.lower() for t in tree.find_all(exp.Table)
               if t is not node and t.find_ancestor(exp.Select) is select)


def _output_names(tree: exp.Expression) -> set[str]:
    return {sel.alias.lower() for select in tree.find_all(exp.Select) for sel in select.expressions if sel.alias}


def _without_project(node: exp.Table, schema: Schema, dialect: str) -> Table | None:
    """The one table a name of several parts reads as its last part (the part before it as its namespace when the
    database has that one): ``project.dataset.table`` written as one quoted name or with a catalog. None for a name
    of one part, or when the last part is no table."""
    parts = node.name.split(".") if node.this.quoted and "." in node.name else (
        [p.name for p in (node.args.get("catalog"), node.args.get("db")) if p is not None] + [node.name]
        if node.args.get("catalog") is not None else [])
    if len(parts) < 2 or not all(parts):
        return None
    readings = [exp.Table(this=identifier(parts[-1], dialect), db=identifier(parts[-2], dialect)),
                exp.Table(this=identifier(parts[-1], dialect))]
    found = next((t for r in readings if (t := resolve_table(r, schema, dialect)) is not None), None)
    if found is None and dialect == "postgres":  # a dataset named for the database: the one table of that name
        named = [t for t in schema.tables if t.name.lower() == parts[-1].lower()]
        found = named[0] if len(named) == 1 else None
    return found


def _rename(node: exp.Table, table: Table, dialect: str) -> None:
    node.set("this", identifier(table.name, dialect))
    db = node.args.get("db")
    if table.schema is None or (dialect == "sqlite" and table.schema == "main"):
        if db is not None and db.this.lower() not in ("main", "temp"):
            node.set("db", None)
    elif _namespace(table) is None:  # public: keep an explicit public, drop a wrong namespace
        if db is not None and effective(db, dialect) != table.schema:
            node.set("db", None)
    else:
        node.set("db", identifier(table.schema, dialect))


def _shadowing_ctes(tree: exp.Expression, schema: Schema, fixes: list[str]) -> None:
    """``WITH sales AS (SELECT * FROM sales WHERE …) SELECT … FROM sales``: a CTE named for the table its own body
    reads. PostgreSQL reads the inner ``sales`` as the table (a CTE that is not RECURSIVE cannot read itself); SQLite
    calls it a circular reference. The CTE renamed, each read of it after its definition aliased with the name as
    written (so ``sales.amount`` still reads it): PostgreSQL's reading, on every database."""
    taken = {t.name.lower() for t in schema.tables} | cte_names(tree)
    for with_ in list(tree.find_all(exp.With)):
        if with_.args.get("recursive") or with_.parent is None:
            continue
        ctes = list(with_.expressions)
        for at, cte in enumerate(ctes):
            name = cte.alias_or_name.lower()
            if schema.table(name) is None or not any(
                    t.name.lower() == name and not t.args.get("db") for t in cte.this.find_all(exp.Table)):
                continue
            earlier = [c.this for c in ctes[:at + 1]]  # the table there: the CTE is not yet defined
            if not _reads_where_qualified(with_.parent, name, earlier):
                continue  # ``journal.name`` where no FROM reads journal: the CTE, not a table to join (left)
            new = next(f"{name}_{n}" for n in range(1, 1000) if f"{name}_{n}" not in taken)
            taken.add(new)
            written = cte.alias_or_name
            cte.set("alias", exp.TableAlias(this=exp.to_identifier(new)))
            for node in list(with_.parent.find_all(exp.Table)):
                if node.name.lower() != name or node.args.get("db") or any(
                        node is b or b in _ancestors(node) for b in earlier):
                    continue
                node.set("this", exp.to_identifier(new))
                if not node.alias:
                    node.set("alias", exp.TableAlias(this=exp.to_identifier(written)))
            fixes.append(f"the CTE {written}, named for the table its body reads, renamed {new}")


def _reads_where_qualified(query: exp.Expression, name: str, bodies: list[exp.Expression]) -> bool:
    """Whether each SELECT outside ``bodies`` that qualifies a column with ``name`` reads ``name`` in its FROM."""
    for col in query.find_all(exp.Column):
        select = col.find_ancestor(exp.Select)
        if col.table.lower() != name or select is None or any(b is select or b in _ancestors(select) for b in bodies):
            continue
        if not any(t.name.lower() == name and t.find_ancestor(exp.Select) is select for t in select.find_all(exp.Table)):
            return False
    return True


def _ancestors(node: exp.Expression) -> list[exp.Expression]:
    out, parent = [], node.parent
    while parent is not None:
        out.append(parent)
        parent = parent.parent
    return out


def repair_tables(tree: exp.Expression, schema: Schema, dialect: str, fixes: list[str],
                  meaning: Meaning | None = None) -> None:
    """Repair every unknown table in ``tree`` in place; raise when one cannot be repaired with confidence."""
    _shadowing_ctes(tree, schema, fixes)
    ctes = cte_names(tree)
    cte_spelling = {cte.alias.lower(): cte.args["alias"].this for cte in tree.find_all(exp.CTE)
                    if cte.alias and isinstance(cte.args["alias"].this, exp.Identifier)}  # fmt: skip
    renamed: dict[str, exp.Table] = {}
    for node in list(tree.find_all(exp.Table)):
        if not isinstance(node.this, exp.Identifier):
            continue  # table function such as generate_series(...)
        if node.args.get("db") is None and node.name.lower() in ctes:
            _respell_cte(node, cte_spelling.get(node.name.lower()), dialect, fixes)
            continue
        found = resolve_table(node, schema, dialect)
        if found is not None and node.args.get("catalog") is not None:  # proj.shop.orders: no other catalog here
            before = f"{node.args['catalog'].sql()}.{_spelled(node)}"
            node.set("catalog", None)
            fixes.append(f"table {before} -> {_spelled(node)} (a project the database does not have)")
        if found is not None:
            if exact_table_names(dialect):  # MySQL on Linux: "Orders" is not "orders", nor is Orders.id
                if node.name != found.name:
                    before = _spelled(node)
                    node.set("this", identifier(found.name, dialect))
                    fixes.append(f"table {before} -> {_spelled(node)}")
                if not node.alias:
                    renamed[node.name.lower()] = node
            continue
        before = _spelled(node)
        prefixed = _without_project(node, schema, dialect)
        if prefixed is not None:  # `my-project.sales.orders`: BigQuery's project and dataset before the table
            _rename(node, prefixed, dialect)
            node.set("catalog", None)
            fixes.append(f"table {before} -> {_spelled(node)} (a project and dataset the database does not have)")
            continue
        embedded = {name for name in _embedded(node.name, schema) if _columns_fit(node, schema, name, tree)} if (
            _plain_reference(node, schema)) else set()
        scored = [(max(_score(node, t), _EMBEDDED if t.qualified_name in embedded else 0.0),
                   Candidate(t.qualified_name, t)) for t in schema.tables]  # fmt: skip
        if _near_cte(node, cte_spelling, max((sc for sc, _ in scored), default=0.0), fixes):
            continue
        best, near = pick_scored(node.name, scored, [t.qualified_name for t in schema.tables])
        if best is not None and not node.alias and _taken(node, tree, best.target.name):  # type: ignore[union-attr]
            best = None  # ``FROM writer JOIN writes``: writer is no second writes (both unaliased: one name)
        held = _holding_all_read(node, schema, tree)
        if best is not None and held is not None and held is not best.target and not _read_through(node, tree) <= {
                c.name.lower() for c in best.target.columns}:  # type: ignore[union-attr]
            best = None  # ``writer a1 … a1.name``: writes (spelt near) has no name; author has every column read
        held = held if best is None else None
        guess = _closest_holder(node, schema, tree, meaning) if best is None and held is None else None
        if held is not None or guess is not None:  # ``paper_author.aid``, ``.pid``: writes, the one with both
            old_name = node.name
            _rename(node, held or guess, dialect)  # type: ignore[arg-type]
            # Both are guesses the model is asked about first: the columns prove a table holds them, not that
            # the question is about it (``FROM employees e … e.name, e.email`` with only customers holding both).
            fixes.append(f"table {before} -> {_spelled(node)} (the one table with every column the query reads "
                         f"from it){GUESSED}" if held is not None else f"table {before} -> {_spelled(node)} (of the "
                         f"tables with every column the query reads from it, the closest in meaning){GUESSED}")
            if not node.alias:
                renamed[old_name.lower()] = node
            continue
        if best is None:
            raise SQLValidationError(
                f"Unknown table {before}" + (f"; closest tables: {', '.join(near)}" if near else ""),
                hint=f"Use one of the schema's tables, e.g. {', '.join(near)}." if near else None,
            )
        assert isinstance(best.target, Table)
        old_name = node.name
        _rename(node, best.target, dialect)
        fixes.append(f"table {before} -> {_spelled(node)}")
        if not node.alias:
            renamed[old_name.lower()] = node
    if renamed:
        _requalify(tree, renamed)


def _respell_cte(node: exp.Table, spelled: exp.Identifier | None, dialect: str, fixes: list[str]) -> None:
    """PostgreSQL: ``WITH Totals AS (...) ... FROM "Totals"`` does not find ``totals``; spell it as the CTE is."""
    if spelled is None or matches(node.this, effective(spelled, dialect), dialect):
        return
    before = _spelled(node)
    node.set("this", spelled.copy())
    fixes.append(f"table {before} -> {_spelled(node)}")


def _requalify(tree: exp.Expression, renamed: dict[str, exp.Table]) -> None:
    """Columns qualified with an old table name follow the table to its new name."""
    for col in tree.find_all(exp.Column):
        qualifier = col.args.get("table")
        if not isinstance(qualifier, exp.Identifier):
            continue
        node = renamed.get(qualifier.this.lower())
        if node is None:
            continue
        col.set("table", node.this.copy())
        if col.args.get("db") is not None:
            db = node.args.get("db")
            col.set("db", db.copy() if db is not None else None)
