"""The window's icon and style sheet come from resources/ (the same path a packaged build uses)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QApplication

from core.config import Settings
from desktop.shell.app import app_icon, apply_theme


def test_app_icon_has_every_packaged_size(qapp: Any) -> None:
    icon = app_icon()
    assert not icon.isNull()
    sizes = {s.width() for s in icon.availableSizes()}
    assert {16, 32, 48, 256} <= sizes


def test_theme_applies_the_packaged_style_sheet(qapp: Any) -> None:
    app = QApplication.instance()
    before = app.styleSheet()
    try:
        apply_theme(app, Settings())
        assert "#memoryChip" in app.styleSheet()
    finally:
        app.setStyleSheet(before)


def test_icons_take_the_dark_theme_s_text_colour(qapp) -> None:
    import qtawesome as qta

    from core.config import Settings
    from desktop.shell.app import apply_theme

    try:
        apply_theme(qapp, Settings(theme="dark"))
        image = qta.icon("fa5s.copy").pixmap(32, 32).toImage()
        inked = [image.pixelColor(x, y) for x in range(32) for y in range(32) if image.pixelColor(x, y).alpha() > 200]
        assert inked and min(c.lightness() for c in inked) > 150  # light ink on the dark window, not black
    finally:
        apply_theme(qapp, Settings())
