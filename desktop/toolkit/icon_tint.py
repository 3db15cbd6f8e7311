"""Icons that follow a theme changed while the window is open.

Cairn's icons are font glyphs (qtawesome) drawn in the palette's text colour when they are made, so after a live
switch from light to dark the ones on screen stay black on dark grey until a restart. ``retint_icons`` repaints
those on buttons, actions and tabs in the new text colour: an icon is repainted only when its ink is the old text
colour (a red "failed" mark or the highlight-coloured logo keep theirs), keeping its shape by its alpha."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import QAbstractButton, QApplication, QTabBar, QToolButton

__all__ = ["retint_icons"]

_SIZES = (16, 20, 24, 32, 48)
_CLOSE = 60  # how near (0-255 per channel, summed) the ink must be to the old colour


def retint_icons(app: QApplication, old: QColor, new: QColor, new_disabled: QColor) -> int:
    """Repaint every theme-coloured icon of the application's widgets from ``old`` to ``new``; how many."""
    done: set[int] = set()
    count = 0

    def retint(icon: QIcon, size: QSize) -> QIcon | None:
        if icon.isNull() or not _inked_with(icon, size, old):
            return None
        return _painted(icon, new, new_disabled)

    for widget in app.allWidgets():
        for action in widget.actions():
            if id(action) not in done:
                done.add(id(action))
                tinted = retint(action.icon(), QSize(16, 16))
                if tinted is not None:
                    action.setIcon(tinted)
                    count += 1
        if isinstance(widget, QAbstractButton) and not (isinstance(widget, QToolButton) and widget.defaultAction()):
            tinted = retint(widget.icon(), widget.iconSize())
            if tinted is not None:
                widget.setIcon(tinted)
                count += 1
        if isinstance(widget, QTabBar):
            for index in range(widget.count()):
                tinted = retint(widget.tabIcon(index), widget.iconSize())
                if tinted is not None:
                    widget.setTabIcon(index, tinted)
                    count += 1
    return count


def _inked_with(icon: QIcon, size: QSize, colour: QColor) -> bool:
    """Is the icon's most opaque ink ``colour``?"""
    image = icon.pixmap(size if size.isValid() and not size.isEmpty() else QSize(16, 16)).toImage()
    best = None
    for y in range(image.height()):
        for x in range(image.width()):
            pixel = image.pixelColor(x, y)
            if best is None or pixel.alpha() > best.alpha():
                best = pixel
                if pixel.alpha() == 255:
                    break
        if best is not None and best.alpha() == 255:
            break
    if best is None or best.alpha() < 128:
        return False
    return abs(best.red() - colour.red()) + abs(best.green() - colour.green()) + abs(best.blue() - colour.blue()) \
        <= _CLOSE


def _painted(icon: QIcon, colour: QColor, disabled: QColor) -> QIcon:
    """The icon's shapes in ``colour`` (and ``disabled`` for its disabled mode), at the usual sizes."""
    out = QIcon()
    for side in _SIZES:
        shape = icon.pixmap(QSize(side, side))
        for mode, ink in ((QIcon.Mode.Normal, colour), (QIcon.Mode.Disabled, disabled)):
            pixmap = QPixmap(shape.size())
            pixmap.setDevicePixelRatio(shape.devicePixelRatio())
            pixmap.fill(QColor(0, 0, 0, 0))
            painter = QPainter(pixmap)
            painter.drawPixmap(0, 0, shape)
            painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceIn)  # keep the alpha
            painter.fillRect(pixmap.rect(), ink)
            painter.end()
            out.addPixmap(pixmap, mode)
    return out
