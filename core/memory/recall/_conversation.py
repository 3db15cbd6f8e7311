"""Recent turns and a rolling summary per user, so "how many of those..." works, also days later."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from core.memory.kernel import Message

if TYPE_CHECKING:  # a type only: recall runs without loading the stores
    from core.memory.stores import ConversationStore

__all__ = ["KEEP_MESSAGES", "Conversation"]

logger = logging.getLogger(__name__)

KEEP_MESSAGES = 20
SUMMARY_CHARS = 1200


class Conversation:
    def __init__(self, store: ConversationStore) -> None:
        self.store = store

    def record(self, user: str, question: str, *, answer_text: str, sql: str | None,
               database_id: str | None = None) -> None:
        """Append one exchange; what falls out of the last 20 messages is folded into the summary."""
        before = self.store.recent_messages(user, limit=KEEP_MESSAGES)
        overflow = max(0, len(before) + 2 - KEEP_MESSAGES)
        if overflow:
            folded = [m for m in before[:overflow] if m.role == "user"]
            if folded:
                self._fold(user, folded)
        self.store.append_message(user, Message("user", question, database_id=database_id), keep=KEEP_MESSAGES)
        self.store.append_message(user, Message("assistant", answer_text, sql=sql, database_id=database_id),
                                  keep=KEEP_MESSAGES)  # fmt: skip

    def _fold(self, user: str, messages: list[Message]) -> None:
        summary = self.store.summary(user)
        added = "; ".join(" ".join(m.content.split())[:160] for m in messages)
        merged = f"{summary}; {added}" if summary else f"Earlier questions: {added}"
        if len(merged) > SUMMARY_CHARS:
            merged = "Earlier questions: …" + merged[-(SUMMARY_CHARS - 22):]
        self.store.set_summary(user, merged)

    def prompt_lines(self, user: str, *, turns: int = 3, database_id: str | None = None) -> list[str]:
        """The last few exchanges as 'Q: ... -> SQL: ...' lines (oldest first), after the summary if any.
        With ``database_id`` only the turns about that database (and older turns that did not record one):
        SQL written for another database is no context for this one."""
        messages = [m for m in self.store.recent_messages(user, limit=KEEP_MESSAGES)
                    if database_id is None or m.database_id in (None, database_id)]  # fmt: skip
        lines: list[str] = []
        pending: str | None = None
        for m in messages:
            if m.role == "user":
                pending = m.content
            elif pending is not None:
                lines.append(f"Q: {pending} -> SQL: {m.sql}" if m.sql else f"Q: {pending} -> {m.content}")
                pending = None
        lines = lines[-turns:]
        summary = self.store.summary(user)
        return ([summary] if summary else []) + lines

    def last_reply(self, user: str, database_id: str | None = None) -> str | None:
        """"sql" when the last reply (on this database) answered with SQL — what an edit or a follow-up refers
        to —, "words" when it did not (a statement stored, chit-chat), None when there was none."""
        for m in reversed(self.store.recent_messages(user, limit=4)):
            if m.role == "assistant" and (database_id is None or m.database_id in (None, database_id)):
                return "sql" if m.sql else "words"
        return None

    def has_history(self, user: str, database_id: str | None = None) -> bool:
        recent = self.store.recent_messages(user, limit=2)
        return any(database_id is None or m.database_id in (None, database_id) for m in recent)
