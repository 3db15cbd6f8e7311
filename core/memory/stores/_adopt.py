"""Memories left in a store that is not the active one, and bringing them into the active one.

Older Cairn versions wrote memories to JSON files when the embedded server was unavailable; those memories
were invisible afterwards. ``stray_memories`` finds such files (``cairn doctor`` reports them), and
``adopt_memories`` copies their memories into the active store — skipping ids it already holds — then renames
each file to ``*.adopted`` so nothing is deleted and nothing is offered twice.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from core.memory.kernel import embed_one
from core.memory.stores._store_json import JsonMemoryStore

__all__ = ["StrayMemories", "adopt_memories", "forget_stray_memories", "stray_memories"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class StrayMemories:
    user: str
    count: int
    path: Path


def stray_memories(data_dir: Path, active_kind: str) -> list[StrayMemories]:
    """JSON memory files under ``data_dir/memory`` while the active store is another one (else nothing)."""
    if active_kind == "json":
        return []
    root = Path(data_dir) / "memory"
    found = []
    for path in sorted(root.glob("*.json")) if root.is_dir() else ():
        try:
            body = json.loads(path.read_bytes().decode("utf-8"))
            user, memories = body["user"], body["memories"]
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
            logger.warning("skipping unreadable memory file %s: %s", path, exc)
            continue
        if isinstance(user, str) and isinstance(memories, list) and memories:
            found.append(StrayMemories(user, len(memories), path))
    return found


def adopt_memories(data_dir: Path, target: Any, *, user: str | None = None, embedder: Any = None) -> int:
    """Copy stray JSON memories (of ``user``, or everyone's) into ``target``; returns how many were added.

    With ``embedder`` each memory is embedded again, so it matches the active store's model whatever wrote it.
    """
    root = Path(data_dir) / "memory"
    source = JsonMemoryStore(root)
    added = 0
    for stray in stray_memories(data_dir, "other"):
        if user is not None and stray.user != user:
            continue
        have = {m.id for m in target.list(stray.user)}
        new = [m for m in source.list(stray.user) if m.id not in have]
        for memory in new:
            if embedder is not None:
                memory = replace(memory, embedding=tuple(embed_one(embedder, memory.content)))
            target.put(memory)
        added += len(new)
        stray.path.rename(stray.path.with_name(stray.path.name + ".adopted"))
        logger.info("adopted %d memories of %r from %s", len(new), stray.user, stray.path)
    return added


def forget_stray_memories(data_dir: Path, user: str) -> list[Path]:
    """Delete ``user``'s memories left in JSON files (and their ``*.adopted`` copies) beside the active store:
    ``memory clear`` forgets a person everywhere Cairn kept them. Returns the files deleted."""
    path = JsonMemoryStore(Path(data_dir) / "memory").path_for(user)
    gone = []
    for file in (path, path.with_name(path.name + ".adopted")):
        if file.is_file():
            file.unlink()
            gone.append(file)
    return gone
