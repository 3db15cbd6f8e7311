"""A scripted LLM for pipeline tests: queue replies with ``enqueue``, read prompts back from ``history``."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.errors import CairnError


@dataclass(frozen=True)
class Turn:
    system: str
    user: str
    options: Mapping[str, Any] | None


class ScriptedLLM:
    model = "scripted"

    def __init__(self, *replies: str | CairnError) -> None:
        self._queue: deque[str | CairnError] = deque(replies)
        self.history: list[Turn] = []

    def enqueue(self, *replies: str | CairnError) -> None:
        self._queue.extend(replies)

    def chat(self, system: str, user: str, *, options: Mapping[str, Any] | None = None) -> str:
        self.history.append(Turn(system, user, options))
        if not self._queue:
            raise AssertionError(f"ScriptedLLM has no reply queued for: {user[-200:]!r}")
        reply = self._queue.popleft()
        if isinstance(reply, CairnError):
            raise reply
        return reply
