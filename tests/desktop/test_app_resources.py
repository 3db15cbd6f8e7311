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


def test_icons_on_screen_follow_a_theme_switched_live(qtbot, qapp) -> None:
    import qtawesome as qta
    from PySide6.QtWidgets import QPushButton

    from core.config import Settings
    from desktop.shell.app import apply_theme

    def lightest_ink(icon: object) -> int:
        image = icon.pixmap(24, 24).toImage()  # type: ignore[attr-defined]
        inked = [image.pixelColor(x, y) for x in range(24) for y in range(24) if image.pixelColor(x, y).alpha() > 200]
        assert inked
        return min(c.lightness() for c in inked)

    try:
        apply_theme(qapp, Settings(theme="light"))
        button = QPushButton(qta.icon("fa5s.copy"), "Copy")  # made on the light theme: dark ink
        red = QPushButton(qta.icon("fa5s.times-circle", color="#d64545"), "Failed")  # a colour of its own
        qtbot.addWidget(button)
        qtbot.addWidget(red)
        assert lightest_ink(button.icon()) < 100
        apply_theme(qapp, Settings(theme="dark"))  # Settings → Theme → Save, the window open
        assert lightest_ink(button.icon()) > 150  # light ink on the dark window, not black
        assert lightest_ink(qta.icon("fa5s.copy")) > 150  # and the icons made from now on
        image = red.icon().pixmap(24, 24).toImage()
        assert any(image.pixelColor(x, y).red() > 180 and image.pixelColor(x, y).green() < 120
                   for x in range(24) for y in range(24))  # the red mark stays red
    finally:
        apply_theme(qapp, Settings())
