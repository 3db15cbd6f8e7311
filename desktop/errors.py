"""The one place the desktop shows an error to a person: the message, and the hint of what to do."""

from __future__ import annotations

import logging

from PySide6.QtWidgets import QMessageBox, QWidget

from core.errors import CairnError

__all__ = ["error_text", "show_error"]

logger = logging.getLogger(__name__)


def error_text(exc: BaseException) -> tuple[str, str]:
    """(message, hint) for any exception; unexpected ones get a generic hint and are logged."""
    if isinstance(exc, CairnError):
        return str(exc), exc.hint
    logger.error("unexpected error", exc_info=exc)
    return f"Something went wrong: {type(exc).__name__}: {exc}", "The details are in the log; try again."


def show_error(parent: QWidget | None, exc: BaseException, *, title: str = "Cairn") -> None:
    message, hint = error_text(exc)
    box = QMessageBox(QMessageBox.Icon.Warning, title, message, QMessageBox.StandardButton.Ok, parent)
    box.setInformativeText(hint)
    box.setObjectName("errorBox")
    box.open()
