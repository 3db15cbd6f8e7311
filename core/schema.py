"""The typed picture of a database that every pipeline stage reads: tables, columns, keys, hints."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

__all__ = ["Column", "ForeignKey", "Index", "Schema", "Table"]


@dataclass(frozen=True)
class Column:
    name: str
    type: str
    nullable: bool = True
    default: str | None = None
    comment: str | None = None
    # Distinct values of a low-cardinality text column (e.g. status), for WHERE clauses.
    value_hints: tuple[str, ...] = ()


@dataclass(frozen=True)
class ForeignKey:
    columns: tuple[str, ...]
    ref_table: str  # qualified the same way as Table.qualified_name
    ref_columns: tuple[str, ...]
    # Not declared by the database: inferred from naming conventions and checked against a sample of the data
    # (core.databases._inferred_keys). Good enough to show the model and to plan joins; never a proof.
    inferred: bool = False


@dataclass(frozen=True)
class Index:
    name: str
    columns: tuple[str, ...]
    unique: bool = False


@dataclass(frozen=True)
class Table:
    name: str
    columns: tuple[Column, ...]
    schema: str | None = None  # PostgreSQL namespace; None for SQLite
    primary_key: tuple[str, ...] = ()
    foreign_keys: tuple[ForeignKey, ...] = ()
    indexes: tuple[Index, ...] = ()
    comment: str | None = None

    @property
    def qualified_name(self) -> str:
        """``name`` in the default namespace (public / SQLite), else ``schema.name``."""
        if self.schema in (None, "public", "main"):
            return self.name
        return f"{self.schema}.{self.name}"

    def column(self, name: str) -> Column | None:
        """Exact match first, then case-insensitive."""
        for col in self.columns:
            if col.name == name:
                return col
        low = name.lower()
        for col in self.columns:
            if col.name.lower() == low:
                return col
        return None

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    def is_unique(self, columns: Iterable[str]) -> bool:
        """True when ``columns`` cover the primary key or a unique index (so a join on them is at most 1:1)."""
        cols = {c.lower() for c in columns}
        if self.primary_key and {c.lower() for c in self.primary_key} <= cols:
            return True
        return any(ix.unique and {c.lower() for c in ix.columns} <= cols for ix in self.indexes)


@dataclass(frozen=True)
class Schema:
    dialect: str  # sqlglot dialect name: "postgres" or "sqlite"
    tables: tuple[Table, ...]
    database_id: str = ""
    _by_name: dict[str, Table] = field(default_factory=dict, init=False, repr=False, compare=False)
    column_names: frozenset[str] = field(default=frozenset(), init=False, repr=False, compare=False)  # every
    # table's columns' names, lower case

    def __post_init__(self) -> None:
        index: dict[str, Table] = {}
        for t in self.tables:
            index.setdefault(t.qualified_name, t)
            index.setdefault(t.qualified_name.lower(), t)
            if t.schema:
                index.setdefault(f"{t.schema}.{t.name}".lower(), t)
            index.setdefault(t.name.lower(), t)
        object.__setattr__(self, "_by_name", index)
        object.__setattr__(self, "column_names", frozenset(n.lower() for t in self.tables for n in t.column_names))

    def table(self, name: str) -> Table | None:
        """Find a table by qualified or bare name, exact then case-insensitive."""
        return self._by_name.get(name) or self._by_name.get(name.lower())

    @property
    def table_names(self) -> tuple[str, ...]:
        return tuple(t.qualified_name for t in self.tables)

    def subset(self, names: Iterable[str]) -> Schema:
        """The same schema with only the named tables (order kept)."""
        wanted = {n.lower() for n in names}
        kept = tuple(t for t in self.tables if t.qualified_name.lower() in wanted)
        return replace(self, tables=kept)

    def without(self, hidden: Iterable[str]) -> Schema:
        """Hide tables (``table``) and columns (``table.column``) that must never reach the model.

        Foreign keys that point at or from a hidden column are dropped with it.
        """
        hidden_l = {h.lower() for h in hidden}
        if not hidden_l:
            return self
        tables: list[Table] = []
        for t in self.tables:
            tname = t.qualified_name.lower()
            if tname in hidden_l or t.name.lower() in hidden_l:
                continue

            def is_hidden(col: str, tname: str = tname, bare: str = t.name.lower()) -> bool:
                c = col.lower()
                return f"{tname}.{c}" in hidden_l or f"{bare}.{c}" in hidden_l

            cols = tuple(c for c in t.columns if not is_hidden(c.name))
            fks = tuple(
                fk
                for fk in t.foreign_keys
                if not any(is_hidden(c) for c in fk.columns) and fk.ref_table.lower() not in hidden_l
            )
            tables.append(replace(t, columns=cols, foreign_keys=fks))
        return replace(self, tables=tuple(tables))

    def neighbours(self, name: str) -> set[str]:
        """Qualified names of tables linked to ``name`` by a foreign key in either direction."""
        me = self.table(name)
        if me is None:
            return set()
        out: set[str] = set()
        for fk in me.foreign_keys:
            ref = self.table(fk.ref_table)
            if ref is not None:
                out.add(ref.qualified_name)
        for t in self.tables:
            for fk in t.foreign_keys:
                ref = self.table(fk.ref_table)
                if ref is not None and ref.qualified_name == me.qualified_name:
                    out.add(t.qualified_name)
        out.discard(me.qualified_name)
        return out
