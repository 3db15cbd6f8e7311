"""Spreadsheets and data files (CSV/TSV, Parquet, JSON, Excel, a folder of them) and DuckDB databases, read through
DuckDB's embedded engine: :class:`FilesDatabase`."""

from core.databases.files._database import DUCKDB_SUFFIXES, FilesDatabase, is_duckdb_file
from core.databases.files._sources import DATA_SUFFIXES, table_name

__all__ = ["DATA_SUFFIXES", "DUCKDB_SUFFIXES", "FilesDatabase", "is_duckdb_file", "table_name"]
