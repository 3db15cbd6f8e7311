"""Memory export files: write a person's memories to JSON and add those of a file back to the bank.

Plain blocking functions, without Qt, that :class:`desktop.memory.memory_bank.MemoryBankView` runs off the GUI thread.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from core.config import write_json_atomic
from core.errors import InputError, MemoryStoreError
from core.memory import Memory, MemoryBank

__all__ = ["export_to_file", "import_from_file"]


def export_to_file(bank: MemoryBank, user: str, path: Path) -> int:
    """Write all of ``user``'s memories to ``path`` (atomically); returns how many were written."""
    payload = bank.export(user)
    try:
        write_json_atomic(Path(path), payload)
    except OSError as exc:
        raise MemoryStoreError(f"Could not write {path}: {exc.strerror or exc}.",
                               hint="Choose a folder you can write to.") from exc
    return len(payload["memories"])


def import_from_file(bank: MemoryBank, user: str, path: Path) -> tuple[list[Memory], int]:
    """Add the memories of an export file; returns those added and how many the file held."""
    try:
        payload: Any = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"Cannot read {path}: {exc}.",
                         hint="Choose a file made by Export… or `cairn memory export`.") from exc
    total = len(payload.get("memories") or []) if isinstance(payload, dict) else 0
    return bank.import_(user, payload), total
