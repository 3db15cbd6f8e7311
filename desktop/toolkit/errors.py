"""The one place the desktop shows an error to a person: the message, and the hint of what to do."""

from __future__ import annotations

import logging
import re

from PySide6.QtWidgets import QMessageBox, QWidget

from core.errors import CairnError

__all__ = ["error_text", "show_error", "window_hint"]

logger = logging.getLogger(__name__)

# The engine's hints are written for both the CLI and the window; where one names a command-line way, the window
# says its own way. Only Cairn's own commands and flags are here (other programs' commands, such as
# "ollama serve", are the same in both and stay, in quotes instead of backticks).
_WINDOW_WORDS: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p), r) for p, r in (
    (r"Run `cairn schema` to see them", "The Schema panel lists them"),
    (r"`cairn schema`", "the Schema panel"),
    (r"`cairn memory list`", "the Memory bank"),
    (r"[Ee]xport again with `cairn memory export`", "Export again from the Memory bank"),
    (r"`cairn feedback list[^`]*`", "the Verified examples tab of the Memory bank"),
    (r"with --model\b", "in Models…"),
    (r"--model\b", "Models…"),
    (r"--csv or Export CSV", "Export CSV"),
    (r"--csv\b", "Export CSV"),
    (r"OLLAMA_HOST", "the Ollama host in Settings…"),
    (r",? or `cairn memory keep`", ""),
    (r"run `cairn settings --fix` to write the defaults for the bad keys \(or `cairn settings --reset` for all of "
     r"them\)", "save Settings… to write good values"),
))


def window_hint(hint: str) -> str:
    """``hint`` in the window's words: its menus and panels instead of command-line flags, quotes, not backticks."""
    for pattern, words in _WINDOW_WORDS:
        hint = pattern.sub(words, hint)
    return re.sub(r"`([^`]*)`", "“\\1”", hint)


def error_text(exc: BaseException) -> tuple[str, str]:
    """(message, hint) for any exception; unexpected ones get a generic hint and are logged."""
    if isinstance(exc, CairnError):
        return str(exc), window_hint(exc.hint)
    logger.error("unexpected error", exc_info=exc)
    return f"Something went wrong: {type(exc).__name__}: {exc}", "The details are in the log; try again."


def show_error(parent: QWidget | None, exc: BaseException, *, title: str = "Cairn") -> None:
    message, hint = error_text(exc)
    box = QMessageBox(QMessageBox.Icon.Warning, title, message, QMessageBox.StandardButton.Ok, parent)
    box.setInformativeText(hint)
    box.setObjectName("errorBox")
    box.open()
