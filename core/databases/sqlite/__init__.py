"""SQLite files, opened read-only: `_database` (`SqliteDatabase`: introspection, value hints, the row and byte
caps, a time limit through the progress handler, inferred join keys where none are declared)."""

from core.databases.sqlite._database import SqliteDatabase

__all__ = [
    "SqliteDatabase",
]
