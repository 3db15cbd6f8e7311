"""The follow-ups this agent turned down (thumbs-down): kept in its own folder, never in the shared store.

Another agent's record is that agent's alone to change (it is signed), so a thumbs-down hides the follow-up from
this agent's suggestions only. The list is a small JSON file written atomically (0600); the newest entries are
kept when it grows past ``MAX_ENTRIES``. Without a path it lives in memory (tests, one-off use).
"""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path

from core.config import write_json_atomic
from core.insights._record import followup_key

__all__ = ["MAX_ENTRIES", "RejectedFollowups"]

logger = logging.getLogger(__name__)

MAX_ENTRIES = 5_000


class RejectedFollowups:
    """(record id, follow-up) pairs this agent does not want suggested again, case and spacing aside."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self._lock = threading.Lock()
        self._pairs: dict[tuple[str, str], None] | None = None  # ordered: oldest first

    def __contains__(self, pair: tuple[str, str]) -> bool:
        record_id, text = pair
        with self._lock:
            return (record_id, followup_key(text)) in self._loaded()

    def add(self, record_id: str, text: str) -> bool:
        """Hide ``text`` of ``record_id`` from now on; False when it was hidden already. Raises OSError when the
        file cannot be written."""
        pair = (record_id, followup_key(text))
        with self._lock:
            if self.path is not None:
                self._pairs = None  # another window or command of this agent may have added some meanwhile
            pairs = self._loaded()
            if pair in pairs:
                return False
            pairs[pair] = None
            while len(pairs) > MAX_ENTRIES:
                del pairs[next(iter(pairs))]
            if self.path is not None:
                write_json_atomic(self.path, {"rejected": [list(p) for p in pairs]})
            return True

    def _loaded(self) -> dict[tuple[str, str], None]:
        if self._pairs is None:
            self._pairs = self._read()
        return self._pairs

    def _read(self) -> dict[tuple[str, str], None]:
        """The pairs in the file; none when it is missing or unreadable (a thumbs-down is a preference, not data
        worth failing over)."""
        if self.path is None:
            return {}
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
            return {(str(r), str(f)): None for r, f in raw["rejected"]}
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, KeyError, TypeError) as exc:
            logger.warning("the list of turned-down suggestions in %s is unreadable (%s); starting afresh",
                           self.path, type(exc).__name__)
            return {}
