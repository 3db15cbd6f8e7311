"""A chart written to a file: a fixed width whatever the window's size, with what shaped its rows under it."""

from __future__ import annotations

from PySide6.QtCharts import QChartView
from PySide6.QtCore import QRect, QRectF, QSize
from PySide6.QtGui import QFontMetricsF, QImage, QPainter, QPalette

from desktop.toolkit.widgets import wrap_words

__all__ = ["EXPORT_WIDTH", "export_chart"]

EXPORT_WIDTH = 1600  # pixels: an exported chart is this wide whatever the window's size
_MARGIN = 24


def export_chart(view: QChartView, path: str, *, title: str, caption: str) -> None:
    """``view``'s chart to ``path``: SVG when it ends in .svg, else PNG, ``EXPORT_WIDTH`` pixels wide (drawn as
    vectors at that size, not a screenshot stretched), ``caption`` under it. Raises OSError when it cannot."""
    shown = view.size()
    width = EXPORT_WIDTH
    height = round(shown.height() * width / max(1, shown.width()))
    font = view.font()
    font.setPointSizeF(max(font.pointSizeF(), 9.0) * width / max(1, shown.width()))
    metrics = QFontMetricsF(font)
    lines = [line for text in caption.splitlines() for line in wrap_words(text, metrics, width - 2 * _MARGIN)]
    below = round(len(lines) * metrics.lineSpacing() + (2 * _MARGIN if lines else 0))
    palette = view.palette()

    def paint(painter: QPainter) -> None:
        view.render(painter, QRectF(0, 0, width, height), view.rect())
        painter.setFont(font)
        painter.setPen(palette.color(QPalette.ColorRole.WindowText))
        y = height + _MARGIN + metrics.ascent()
        for line in lines:
            painter.drawText(_MARGIN, round(y), line)
            y += metrics.lineSpacing()

    if not path.lower().endswith(".svg"):
        image = QImage(width, height + below, QImage.Format.Format_ARGB32)
        image.fill(palette.color(QPalette.ColorRole.Window))
        painter = QPainter(image)
        try:
            paint(painter)
        finally:
            painter.end()
        if not image.save(path, "PNG"):
            raise OSError(f"Could not write {path}")
        return
    from PySide6.QtSvg import QSvgGenerator

    generator = QSvgGenerator()
    generator.setFileName(path)
    generator.setSize(QSize(width, height + below))
    generator.setViewBox(QRect(0, 0, width, height + below))
    generator.setTitle(title or "Cairn chart")
    generator.setDescription(caption)
    painter = QPainter(generator)
    try:
        paint(painter)
    finally:
        painter.end()
