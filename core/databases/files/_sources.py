"""The files a person opens, each turned into one table: names, readers, and what DuckDB inferred.

A CSV/TSV, Parquet, JSON/JSONL or Excel file becomes a view over DuckDB's reader of that file, so the data is
queried where it lies (a 1 GB CSV is scanned, never loaded). Excel has no reader without a DuckDB extension,
which is never downloaded: its first sheet is written once to a CSV in Cairn's cache (by openpyxl, streaming)
and read from there. Numbers written with separators ("1,200.50", Indian "1,20,000", European "1.200,50") are
read as numbers when every sampled value agrees on one format; what was inferred is said in the table's comment.
"""

from __future__ import annotations

import csv
import hashlib
import logging
import os
import re
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from zipfile import BadZipFile

from core.errors import ConfigError

__all__ = ["DATA_SUFFIXES", "Source", "discover", "reader_sql", "table_name", "utf8_copy"]

logger = logging.getLogger(__name__)

CSV_SUFFIXES = (".csv", ".tsv", ".tab")
DATA_SUFFIXES = (*CSV_SUFFIXES, ".parquet", ".pq", ".json", ".jsonl", ".ndjson", ".xlsx", ".xlsm")
_FILE_HINT = "Open a .csv, .tsv, .parquet, .json, .jsonl or .xlsx file, a folder of them, or a .duckdb database."


@dataclass
class Source:
    """One file and the table it becomes."""

    path: Path
    table: str
    kind: str  # "csv" | "parquet" | "json" | "xlsx"
    options: dict[str, str] = field(default_factory=dict)  # extra read_csv options (separators, encoding)
    read_path: Path | None = None  # what DuckDB reads (the cached CSV of an Excel sheet), else ``path``
    types: dict[str, str] = field(default_factory=dict)  # columns read as a type the sniffer did not see
    notes: list[str] = field(default_factory=list)  # what was inferred, for the table's comment

    @property
    def reads(self) -> Path:
        return self.read_path or self.path


def discover(paths: Sequence[Path]) -> list[Source]:
    """The data files named (a folder: the data files directly in it), each with a clean, unique table name."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():  # a link inside the folder may point anywhere on the machine: not followed
            inside = sorted(p for p in path.iterdir()
                            if p.is_file() and not p.is_symlink() and p.suffix.lower() in DATA_SUFFIXES)
            if not inside:
                raise ConfigError(f"The folder {path} holds no data files.", hint=_FILE_HINT)
            files.extend(inside)
        elif path.suffix.lower() in DATA_SUFFIXES:
            files.append(path)
        else:
            raise ConfigError(f"Cairn cannot read {path.name} as a table.", hint=_FILE_HINT)
    taken: set[str] = set()
    sources = []
    for file in files:
        name = table_name(file.stem, taken)
        taken.add(name)
        suffix = file.suffix.lower()
        kind = ("parquet" if suffix in (".parquet", ".pq") else "json" if suffix in (".json", ".jsonl", ".ndjson")
                else "xlsx" if suffix in (".xlsx", ".xlsm") else "csv")
        sources.append(Source(file, name, kind))
    return sources


def table_name(stem: str, taken: Iterable[str] = ()) -> str:
    """A lower-case SQL name from a file name: ``Sales Q1 (2024)`` -> ``sales_q1_2024``; unique among ``taken``."""
    base = re.sub(r"[^0-9a-z]+", "_", stem.lower()).strip("_") or "data"
    if base[0].isdigit():
        base = "t_" + base
    name, n = base, 2
    used = set(taken)
    while name in used:
        name, n = f"{base}_{n}", n + 1
    return name


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def reader_sql(source: Source) -> str:
    """The DuckDB table function that reads ``source`` with its options."""
    path = _literal(str(source.reads))
    if source.kind == "parquet":
        return f"read_parquet({path})"
    if source.kind == "json":
        return f"read_json_auto({path})"
    options = "".join(f", {key}={_literal(value)}" for key, value in sorted(source.options.items()))
    if source.types:
        options += ", types={" + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in sorted(source.types.items())) + "}"
    return f"read_csv({path}{options})"


# -- number formats ----------------------------------------------------------------------------------------

# 1,200.50 and Indian 1,20,000.50 (the last group three digits, those before it two or three)
_COMMA_THOUSANDS = re.compile(r"[-+]?(\d{1,3}(,\d{3})+|\d{1,2}(,\d{2})*,\d{3})(\.\d+)?|[-+]?\d+(\.\d+)?")
_DOT_THOUSANDS = re.compile(r"[-+]?\d{1,3}(\.\d{3})+(,\d+)?|[-+]?\d+(,\d+)?")  # 1.200,50 and 12,50
_AMBIGUOUS = re.compile(r"[-+]?\d{1,3},\d{3}")  # 1,250: a thousand and a quarter, or one and a quarter?


def number_format(values: Sequence[str]) -> dict[str, str] | None:
    """read_csv options that read ``values`` (one text column's sample) as numbers, or None when they are not all
    numbers in one format, or when every value with a separator could be read either way ("1,250" alone):
    then the column stays text, as written, rather than a guess. At least one value must use a separator."""
    texts = [v.strip() for v in values if v and v.strip()]
    if not texts or not any("," in t for t in texts):
        return None
    if all(_AMBIGUOUS.fullmatch(t) or "," not in t and "." not in t for t in texts):
        return None
    if all(_COMMA_THOUSANDS.fullmatch(t) for t in texts):
        return {"thousands": ","}
    if all(_DOT_THOUSANDS.fullmatch(t) for t in texts):
        return {"decimal_separator": ",", "thousands": "."}
    return None


# -- Excel -------------------------------------------------------------------------------------------------


def excel_as_csv(source: Source, cache_dir: Path) -> None:
    """Write the first sheet of an Excel file to a CSV in ``cache_dir`` (once per file version) and read that."""
    try:
        stat = source.path.stat()
    except OSError as exc:
        raise ConfigError(f"Cannot read {source.path}: {exc}") from exc
    key = hashlib.sha256(f"{source.path.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}".encode()).hexdigest()[:24]
    target = cache_dir / f"{key}.csv"
    source.read_path = target
    source.options = {"header": "true"}
    if target.exists():
        return
    try:
        from openpyxl import load_workbook
        from openpyxl.utils.exceptions import InvalidFileException
    except ImportError as exc:  # pragma: no cover - a dependency of the project
        raise ConfigError("Reading Excel files needs openpyxl.", hint="Reinstall Cairn.") from exc
    cache_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        book = load_workbook(source.path, read_only=True, data_only=True)
    except (InvalidFileException, BadZipFile, OSError, KeyError, ValueError) as exc:
        raise ConfigError(f"{source.path.name} is not a readable Excel workbook: {exc}",
                          hint="Save it again as .xlsx, or export the sheet as CSV.") from exc
    try:
        sheet = book.worksheets[0]
        fd, partial = tempfile.mkstemp(prefix=".xlsx-", suffix=".csv", dir=cache_dir)
        rows = 0
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as out:
            writer = csv.writer(out)
            for row in sheet.iter_rows(values_only=True):
                if rows == 0 and not any(cell is not None for cell in row):
                    continue  # leading empty rows before the header
                writer.writerow(["" if cell is None else cell for cell in row])
                rows += 1
        if rows == 0:
            os.unlink(partial)
            raise ConfigError(f"The first sheet of {source.path.name} is empty.",
                              hint="Put the table on the first sheet, with a header row.")
        os.replace(partial, target)  # never a half-written cache file
        if len(book.worksheets) > 1:
            source.notes.append(f"first sheet \"{sheet.title}\" of {len(book.worksheets)}")
    finally:
        book.close()


# -- text that is not UTF-8 ---------------------------------------------------------------------------------------


def utf8_copy(source: Source, cache_dir: Path) -> None:
    """A CSV that is not UTF-8, re-written once as UTF-8 in ``cache_dir`` and read from there.

    A file that is UTF-8 but for a few broken bytes is refused with the line to fix (reading it all as Windows-1252
    would turn every "München" into "MÃ¼nchen"); a file with no UTF-8 in it is read as Windows-1252 (Excel's
    exports), its few bytes that code page lacks as Latin-1, and the table's comment says so."""
    raw = source.path.read_bytes()
    text = raw.decode("utf-8", errors="replace")
    broken = text.count("\ufffd")
    if any(ord(ch) > 127 and ch != "\ufffd" for ch in text):
        line = text[: text.index("\ufffd")].count("\n") + 1
        raise ConfigError(f"{source.path.name} is UTF-8 but has {broken} byte(s) that are not, the first on line {line}.",
                          hint="Fix or remove those characters, or save the file again as UTF-8.")
    try:
        decoded = raw.decode("cp1252")
        label = "Windows-1252"
    except UnicodeDecodeError:
        decoded = raw.decode("latin-1")
        label = "Latin-1"
    stat = source.path.stat()
    key = hashlib.sha256(f"{source.path.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}".encode()).hexdigest()[:24]
    cache_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    target = cache_dir / f"{key}{source.path.suffix.lower()}"
    if not target.exists():
        fd, partial = tempfile.mkstemp(prefix=".utf8-", suffix=source.path.suffix, dir=cache_dir)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
            out.write(decoded)
        os.replace(partial, target)
    source.read_path = target
    source.notes.append(f"read as {label}, not UTF-8")
