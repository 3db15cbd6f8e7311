"""Questions asked while Cairn cannot ask them yet: shown at once, asked in order when it can, never dropped."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["PendingQuestions"]


@dataclass(frozen=True)
class _Waiting:
    text: str  # what is asked
    exclude: list[str] | None  # memories left out for it
    note: Any = None  # the chat's "Asked as soon as…" line under it, changed when it is asked or taken back
    until: str = ""


class PendingQuestions:
    """Holds what the person asked while the database connects (at start, or switching) or while another answer is
    being made. Each question shows in the chat the moment it is asked, with a note that it waits and why;
    ``release`` asks the next one (the window calls it when it can ask: connected and idle); ``give_back`` (the
    database did not connect, or Esc) puts the first back in the question box unless the person is typing there,
    so nothing typed is lost; ``drop`` forgets them (the window closes)."""

    def __init__(self, chat: Any, ask: Callable[[str, list[str] | None], None]) -> None:
        self._chat = chat
        self._ask = ask
        self._waiting: list[_Waiting] = []

    def __len__(self) -> int:
        return len(self._waiting)

    def hold(self, text: str, exclude: list[str] | None, *, shown_as: str, behind_answer: bool) -> None:
        """Keep ``text`` (shown as ``shown_as``) until the answer being made is done (``behind_answer``) or else
        until the database is connected."""
        self._chat.add_question(shown_as)
        ahead = len(self._waiting)
        after = f", after {ahead} earlier question{'s' if ahead > 1 else ''}" if ahead else ""
        until, stop = (("this answer is done", " and stops the answer being made") if behind_answer else
                       ("the database is connected", ""))
        note = self._chat.add_note(f"Asked as soon as {until}{after}. Esc or Stop takes it back{stop}.")
        self._waiting.append(_Waiting(text, exclude, note, until))
        self._chat.set_waiting(len(self._waiting))

    def release(self) -> bool:
        """Ask the next waiting question (its bubble is on screen already); False when none waits."""
        if not self._waiting:
            return False
        first = self._waiting.pop(0)
        _say(first.note, f"Waited until {first.until}; asked now.")
        self._chat.set_waiting(len(self._waiting))
        self._ask(first.text, first.exclude)
        return True

    def give_back(self, reason: str) -> None:
        """Ask none of them: say why, and put the first back in the question box (unless something is typed)."""
        if not self._waiting:
            return
        texts = [w.text for w in self._waiting]
        for waiting in self._waiting:
            _say(waiting.note, "Not asked: taken back.")
        self._waiting.clear()
        self._chat.set_waiting(0)
        box = self._chat.input
        where = "It is back in the question box." if len(texts) == 1 else \
            "The first is back in the question box (Up and Down reach the others)."
        if box.text().strip():
            where = "Up and Down in the question box reach them."
        else:
            box.setText(texts[0])
        self._chat.add_note(f"{reason} Not asked: {'; '.join(texts)}. {where}")

    def drop(self) -> None:
        self._waiting.clear()
        self._chat.set_waiting(0)


def _say(note: Any, text: str) -> None:
    """Change a waiting question's note, if it is still on screen (a chat cleared by a switch has deleted it)."""
    import shiboken6

    if note is not None and shiboken6.isValid(note):
        note.setText(text)
