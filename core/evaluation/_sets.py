"""Question sets for ``cairn eval``: CSV or JSON lines with a question, its gold SQL and a database.

Column names accepted (the defog CSVs load as they are): ``question``; ``gold_sql`` or ``query``; ``db`` (a
PostgreSQL URL or a SQLite path) or ``db_name`` (a name, resolved with ``db_url`` — a URL template with ``{db}`` —
or against ``data_dir``, where ``<name>.sqlite``, ``<name>.db``, ``<name>.sqlite3`` or ``<name>/<name>.sqlite``
is looked for); ``category`` or ``query_category``; an optional ``id``.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.errors import InputError
from core.evaluation._gold import gold_variants

__all__ = ["EvalItem", "load_set", "set_digest"]

MAX_SET_BYTES = 64 << 20
MAX_FIELD_CHARS = 1 << 20
_SUFFIXES = (".sqlite", ".db", ".sqlite3")
_HINT = ("Each row needs question, gold_sql (or query) and a database: db (URL or SQLite path) or db_name with "
         "--db-url 'postgresql://…/{db}' or --data-dir FOLDER.")


@dataclass(frozen=True)
class EvalItem:
    index: int  # 0-based position in the set: the key of --resume
    id: str
    question: str
    gold: tuple[str, ...]  # concrete gold queries; an answer matching any one is right
    db: str  # URL or SQLite path
    category: str = ""


def _resolve(row: dict[str, Any], where: str, base: Path, data_dir: Path | None, db_url: str | None,
             db: str | None) -> str:
    if db:
        return db
    given = str(row.get("db") or "").strip()
    if given:
        if "://" in given:
            return given
        path = Path(given).expanduser()
        if not path.is_absolute() and (base / path).exists():
            path = base / path
        return str(path)
    name = str(row.get("db_name") or "").strip()
    if not name:
        raise InputError(f"{where}: no database (db or db_name)", hint=_HINT)
    if db_url:
        return db_url.replace("{db}", name)
    for folder in (data_dir, base) if data_dir else (base,):
        for candidate in (*(folder / f"{name}{s}" for s in _SUFFIXES), folder / name / f"{name}.sqlite"):
            if candidate.is_file():
                return str(candidate)
    raise InputError(f"{where}: database {name!r} not found", hint=_HINT)


def _rows(path: Path, text: str) -> Iterable[tuple[str, dict[str, Any]]]:
    if path.suffix.lower() in (".jsonl", ".json", ".ndjson"):
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"{path.name} line {number}: not JSON ({exc.msg})", hint=_HINT) from exc
            if not isinstance(row, dict):
                raise InputError(f"{path.name} line {number}: not a JSON object", hint=_HINT)
            yield f"{path.name} line {number}", row
        return
    # Gold SQL with long literals outgrows the csv module's default of 128 KiB per field (a process-wide limit:
    # raised, never lowered).
    if csv.field_size_limit() < MAX_FIELD_CHARS:
        csv.field_size_limit(MAX_FIELD_CHARS)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    start = 1  # the line a record starts on
    try:
        if not reader.fieldnames or "question" not in reader.fieldnames:
            raise InputError(f"{path.name}: no 'question' column in the CSV header", hint=_HINT)
        while True:
            start = reader.line_num + 1
            row = next(reader, None)
            if row is None:
                return
            yield f"{path.name} line {start}", row
    except csv.Error as exc:
        raise InputError(f"{path.name} line {start}: not valid CSV ({exc})",
                         hint=f"A field may hold at most {MAX_FIELD_CHARS >> 20} MB; quote fields that hold commas, "
                              "quotes or line breaks.") from exc


def set_digest(path: Path) -> str:
    """The sha256 of the set file's bytes: what ``--resume`` checks the set has not changed by."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:
        raise InputError(f"Cannot read {path}: {exc}", hint="The set must be a readable file.") from exc
    return digest.hexdigest()


def load_set(path: Path, *, data_dir: Path | None = None, db_url: str | None = None, db: str | None = None,
             limit: int | None = None) -> list[EvalItem]:
    """The items of a set file, every row checked before anything runs. Raises InputError."""
    try:
        size = path.stat().st_size
        if size > MAX_SET_BYTES:
            raise InputError(f"{path} is {size >> 20} MB; a set may be at most {MAX_SET_BYTES >> 20} MB",
                             hint="Split the set into smaller files.")
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError as exc:
        raise InputError(f"No set file at {path}", hint="Give the path of a CSV or JSON-lines file.") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"Cannot read {path}: {exc}", hint="The set must be a UTF-8 text file.") from exc
    items: list[EvalItem] = []
    for where, row in _rows(path, text):
        question = str(row.get("question") or "").strip()
        cell = str(row.get("gold_sql") or row.get("query") or "").strip()
        if not question or not cell:
            raise InputError(f"{where}: {'question' if not question else 'gold SQL'} is empty", hint=_HINT)
        gold = tuple(gold_variants(cell))
        target = _resolve(row, where, path.parent, data_dir, db_url, db)
        category = str(row.get("category") or row.get("query_category") or "")
        items.append(EvalItem(len(items), str(row.get("id") or len(items) + 1), question, gold, target, category))
        if limit is not None and len(items) >= limit:
            break
    if not items:
        raise InputError(f"{path} holds no questions", hint=_HINT)
    return items
