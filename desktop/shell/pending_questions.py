"""Questions asked before the database is connected: shown at once, asked in order when it is, never dropped."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["PendingQuestions"]


class PendingQuestions:
    """Holds what the person asked while Cairn starts or switches databases. Each question shows in the chat
    the moment it is asked, with a note that it waits; ``release`` asks the next one (the window calls it when
    the database is ready and after each answer); ``give_back`` (the database did not connect, or Stop) puts the
    first back in the question box (the others are in its Up/Down history), so nothing typed is lost."""

    def __init__(self, chat: Any, ask: Callable[[str, list[str] | None], None]) -> None:
        self._chat = chat
        self._ask = ask
        self._waiting: list[tuple[str, list[str] | None]] = []

    def __len__(self) -> int:
        return len(self._waiting)

    def hold(self, text: str, exclude: list[str] | None = None) -> None:
        self._waiting.append((text, exclude))
        self._chat.add_question(text)
        ahead = len(self._waiting) - 1
        self._chat.add_note("Asked as soon as the database is connected" +
                            (f", after {ahead} earlier question{'s' if ahead > 1 else ''}." if ahead else ".") +
                            " Esc takes it back.")

    def release(self) -> bool:
        """Ask the next waiting question (already shown); False when none waits."""
        if not self._waiting:
            return False
        text, exclude = self._waiting.pop(0)
        self._ask(text, exclude)
        return True

    def give_back(self, reason: str) -> None:
        """Ask none of them: say why, and put the words back in the question box."""
        if not self._waiting:
            return
        texts = [text for text, _ in self._waiting]
        self._waiting.clear()
        self._chat.add_note(f"{reason} Not asked: {'; '.join(texts)}. The first is back in the question box "
                            "(Up and Down reach the others).")
        self._chat.input.setText(texts[0])
