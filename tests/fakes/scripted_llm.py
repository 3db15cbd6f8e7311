"""A scripted LLM for pipeline tests: queue replies with ``enqueue``, read prompts back from ``history``."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from core.errors import CairnError, LLMError


@dataclass(frozen=True)
class Turn:
    system: str
    user: str
    options: Mapping[str, Any] | None


class ScriptedLLM:
    model = "scripted"

    def __init__(self, *replies: str | CairnError, forms: Callable[[str, str], str] | None = None) -> None:
        self._queue: deque[str | CairnError] = deque(replies)
        self.history: list[Turn] = []
        # Calls for structured output (a JSON schema in ``format``: the second reading of a preference) are
        # answered by ``forms`` and never take a queued reply; without it they fail as a model without
        # structured output would, and the rules' reading stands.
        self.forms = forms
        self.form_requests: list[Turn] = []

    def enqueue(self, *replies: str | CairnError) -> None:
        self._queue.extend(replies)

    def chat(self, system: str, user: str, *, options: Mapping[str, Any] | None = None,
             format: Mapping[str, Any] | None = None) -> str:  # noqa: A002
        if format is not None:
            self.form_requests.append(Turn(system, user, options))
            if self.forms is None:
                raise LLMError("this scripted model gives no structured output")
            return self.forms(system, user)
        self.history.append(Turn(system, user, options))
        if not self._queue:
            raise AssertionError(f"ScriptedLLM has no reply queued for: {user[-200:]!r}")
        reply = self._queue.popleft()
        if isinstance(reply, CairnError):
            raise reply
        return reply
