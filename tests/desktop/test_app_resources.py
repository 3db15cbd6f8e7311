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
