"""Where the main window opens and how big: from the screen it is on, then as the person last left it.

The first time, the window takes at most 1360×820 and never more than the available screen (a 1366×768 laptop
gets a window that fits, taskbar and all). On close its geometry is kept in ``window.json`` beside the settings;
the next start restores it when it still fits a screen.
"""

from __future__ import annotations

import base64
import json
import logging

from PySide6.QtCore import QByteArray, QEvent, QObject, QRect, QSize
from PySide6.QtWidgets import QDialog, QWidget

from core.config import config_dir, write_json_atomic

__all__ = ["DialogFitter", "fit_dialog", "fit_to_screen", "restore_geometry", "save_geometry"]

logger = logging.getLogger(__name__)

PREFERRED = QSize(1360, 820)


def _path():  # noqa: ANN202 - a Path
    return config_dir() / "window.json"


def fit_to_screen(window: QWidget, available: QRect | None = None) -> None:
    """Size and centre ``window`` on its screen's available area (or ``available``)."""
    if available is None:
        screen = window.screen()
        if screen is None:
            window.resize(PREFERRED)
            return
        available = screen.availableGeometry()
    width = min(PREFERRED.width(), int(available.width() * 0.96))
    height = min(PREFERRED.height(), int(available.height() * 0.94))
    window.resize(width, height)
    window.move(available.x() + (available.width() - width) // 2, available.y() + (available.height() - height) // 2)


def fit_dialog(dialog: QWidget, available: QRect | None = None) -> None:
    """A dialog as big as it asks to be, never bigger than the available screen, and wholly on it: at 14 pt on a
    1280×720 screen its buttons stay reachable (its layout scrolls or wraps inside what is left)."""
    if available is None:
        screen = dialog.screen()
        if screen is None:
            return
        available = screen.availableGeometry()
    room = QSize(int(available.width() * 0.96), int(available.height() * 0.94))
    wanted = dialog.size().expandedTo(dialog.sizeHint())
    size = wanted.boundedTo(room)
    if size != dialog.size():
        dialog.resize(size)
    frame = dialog.frameGeometry()
    x = min(max(frame.x(), available.x()), available.right() - frame.width() + 1)
    y = min(max(frame.y(), available.y()), available.bottom() - frame.height() + 1)
    if (x, y) != (frame.x(), frame.y()):
        dialog.move(x, y)


class DialogFitter(QObject):
    """Installed on the application: every dialog is fitted to its screen as it is shown (one mechanism for all
    dialogs, present and future, instead of a size rule in each)."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt naming
        if event.type() == QEvent.Type.Show and isinstance(watched, QDialog) and watched.isWindow():
            fit_dialog(watched)
        return False


def save_geometry(window: QWidget) -> None:
    """Remember the window's geometry (a failure is only logged: it is a convenience)."""
    try:
        data = bytes(window.saveGeometry().data())
        write_json_atomic(_path(), {"geometry": base64.b64encode(data).decode("ascii")})
    except (OSError, ValueError) as exc:
        logger.info("window geometry not saved: %s", exc)


def restore_geometry(window: QWidget) -> bool:
    """Put the window where it was last closed; False (nothing changed) when there is nothing usable."""
    try:
        payload = json.loads(_path().read_text(encoding="utf-8"))
        data = base64.b64decode(payload["geometry"], validate=True)
    except (OSError, ValueError, KeyError, TypeError):
        return False
    if not window.restoreGeometry(QByteArray(data)):
        return False
    screen = window.screen()
    if screen is not None and not screen.availableGeometry().intersects(window.frameGeometry()):
        return False  # a screen that is gone: start from the current one instead
    return True
