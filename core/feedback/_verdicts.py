"""A thumb on an answer: the verdict is logged, then the verified examples follow it.

    up    -> log, then keep (question, SQL) as a verified example of the database
    down  -> log, then remove the database's verified examples with that SQL (one may have misled the model)
    clear -> log, then remove the example this answer's thumbs-up made (the thumb was taken back)

The log is written first: a verdict is a fact even when the examples file cannot be changed afterwards, and a
log that cannot be written changes nothing.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import cast

from core.errors import InputError
from core.feedback._examples import ExampleStore, VerifiedExample, check_example
from core.feedback._log import VERDICTS, FeedbackEvent, FeedbackLog, Verdict, cairn_version

__all__ = ["FeedbackOutcome", "FeedbackRecorder"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class FeedbackOutcome:
    verdict: Verdict
    stored: VerifiedExample | None = None
    removed: tuple[VerifiedExample, ...] = ()

    @property
    def text(self) -> str:
        """One line for a person: what the thumb did."""
        if self.verdict == "up":
            return "Thanks: kept as a verified example; similar questions will be shown it."
        n = len(self.removed)
        gone = f" Removed {n} verified example{'s' if n != 1 else ''} with this SQL." if n else ""
        if self.verdict == "down":
            return "Thanks: noted that this answer was wrong." + gone
        return "Feedback taken back." + gone


class FeedbackRecorder:
    """Records thumbs for one data folder; ``model`` and the Cairn version go into every log line."""

    def __init__(self, examples: ExampleStore, log: FeedbackLog, *, version: str | None = None) -> None:
        self.examples = examples
        self.log = log
        self.version = version if version is not None else cairn_version()

    def record(self, verdict: str, *, user: str, database_id: str, question: str, sql: str,
               model: str = "") -> FeedbackOutcome:
        if verdict not in VERDICTS:
            raise InputError(f"Unknown feedback {verdict!r}.", hint="Use up, down or clear.")
        kind = cast(Verdict, verdict)
        question, sql = check_example(question, sql)
        removed: list[VerifiedExample] = []
        if verdict != "up":
            # Which examples would go, so the log line says so; the removal itself follows the log.
            removed = [e for e in self.examples.list(user, database_id=database_id)
                       if _matches(e, verdict, database_id, question, sql)]
        event = FeedbackEvent(verdict=kind, question=question, sql=sql, database_id=database_id, model=model,
                              version=self.version, removed=len(removed))
        self.log.append(user, event)
        if verdict == "up":
            return FeedbackOutcome("up", stored=self.examples.add(user, database_id, question, sql))
        gone = self.examples.remove_matching(user, database_id, sql,
                                             question=question if verdict == "clear" else None)
        return FeedbackOutcome(kind, removed=tuple(gone))

    def thumbs_up(self, user: str, database_id: str, question: str, sql: str, *, model: str = "") -> FeedbackOutcome:
        return self.record("up", user=user, database_id=database_id, question=question, sql=sql, model=model)

    def thumbs_down(self, user: str, database_id: str, question: str, sql: str, *,
                    model: str = "") -> FeedbackOutcome:
        return self.record("down", user=user, database_id=database_id, question=question, sql=sql, model=model)

    def forget(self, user: str) -> None:
        """Delete ``user``'s verified examples and feedback log (part of "forget everything about me")."""
        self.examples.clear(user)
        self.log.forget(user)


def _matches(example: VerifiedExample, verdict: str, database_id: str, question: str, sql: str) -> bool:
    if verdict == "clear":
        return example.same_as(database_id, question, sql)
    return example.database_id == database_id and example.same_as(database_id, example.question, sql)
