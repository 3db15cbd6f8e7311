"""Render resources/icons/cairn.svg to the PNG sizes the window and installers use.

    QT_QPA_PLATFORM=offscreen .venv/bin/python scripts/render_icons.py
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from resources import ICON_SIZES  # noqa: E402

ICONS = Path(__file__).resolve().parents[1] / "resources" / "icons"


def main() -> None:
    _app = QGuiApplication.instance() or QGuiApplication(sys.argv)
    renderer = QSvgRenderer(str(ICONS / "cairn.svg"))
    for size in ICON_SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        out = ICONS / f"cairn-{size}.png"
        image.save(str(out))
        print(out.relative_to(ICONS.parents[1]), out.stat().st_size, "bytes")


if __name__ == "__main__":
    main()
