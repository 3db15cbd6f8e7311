"""What Cairn needs to know about each SQL dialect it answers in, by the sqlglot name the backends report.

Checks and repairs ask about a behaviour, never about a name: ``strict_grouping("duckdb")`` is True because DuckDB,
like PostgreSQL, rejects a column that is neither grouped nor aggregated. A new backend whose SQL is close to one
of these adds its row here and is handled by every stage (guard, validation, repairs, prompt, fallback, memory).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DIALECTS", "Dialect", "dialect_info", "exact_table_names", "is_postgres_like", "is_sqlite",
           "register_dialect"]


@dataclass(frozen=True)
class Dialect:
    name: str  # sqlglot's name
    label: str  # for people and the prompt
    family: str  # "postgres" | "sqlite": whose behaviour the checks and repairs follow
    strict_grouping: bool  # rejects a column neither grouped nor aggregated (SQLite shows one row's value)
    folds_lower: bool  # unquoted names fold to lower case and quoted ones must match exactly (PostgreSQL)
    groups_by_key: bool = True  # a grouped primary key covers its table's other columns (PostgreSQL, SQLite)
    exact_tables: bool = False  # table names match only as spelled, whatever the quoting (MySQL on Linux)


DIALECTS: dict[str, Dialect] = {
    "postgres": Dialect("postgres", "PostgreSQL", "postgres", strict_grouping=True, folds_lower=True),
    "sqlite": Dialect("sqlite", "SQLite", "sqlite", strict_grouping=False, folds_lower=False),
    # DuckDB reads PostgreSQL's SQL (||, INTERVAL, date_trunc, ::casts, strict GROUP BY); names match in any case.
    "duckdb": Dialect("duckdb", "DuckDB", "postgres", strict_grouping=True, folds_lower=False, groups_by_key=False),
    # MySQL/MariaDB: backticks, CONCAT, DATE_SUB; `+` on text is arithmetic and GROUP BY is lenient, as in SQLite.
    "mysql": Dialect("mysql", "MySQL/MariaDB", "sqlite", strict_grouping=False, folds_lower=False, exact_tables=True),
}


def dialect_info(name: str) -> Dialect | None:
    return DIALECTS.get((name or "").lower())


def is_postgres_like(name: str) -> bool:
    """PostgreSQL or a dialect that behaves like it for the checks (DuckDB)."""
    info = dialect_info(name)
    return info is not None and info.family == "postgres"


def exact_table_names(name: str) -> bool:
    """Whether the database matches table names only as spelled (MySQL/MariaDB on Linux)."""
    info = dialect_info(name)
    return info is not None and info.exact_tables


def is_sqlite(name: str) -> bool:
    return (name or "").lower() == "sqlite"


def register_dialect(dialect: Dialect) -> None:
    """A backend plugin's dialect (its sqlglot name, and which family's checks it follows): call it when the
    plugin's module is imported. A built-in dialect cannot be replaced."""
    if dialect.name in ("postgres", "sqlite", "duckdb", "mysql"):
        raise ValueError(f"{dialect.name} is built in")
    if dialect.family not in ("postgres", "sqlite"):
        raise ValueError(f"family must be 'postgres' or 'sqlite', not {dialect.family!r}")
    DIALECTS[dialect.name] = dialect
