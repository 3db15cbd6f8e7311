"""Small factories for the named, tool-tipped widgets the dialogs and panels build over and over.

One place sets object names, tips, shortcuts and the usual flags, so every button and field is made alike.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import qtawesome as qta
from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QColor, QIcon, QKeySequence, QPalette, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QStyle,
    QTableWidget,
    QWidget,
)

__all__ = [
    "ButtonRow", "ElidingLabel", "StatusLine", "mark_muted", "muted_style", "wrap_words",
    "contrast", "item_table", "line_edit", "muted_color", "push_button", "selectable_label"]


def line_edit(parent: QWidget, name: str, placeholder: str, tip: str = "") -> QLineEdit:
    """A named line edit with a placeholder and, if given, a tool tip."""
    edit = QLineEdit(parent)
    edit.setObjectName(name)
    edit.setPlaceholderText(placeholder)
    if tip:
        edit.setToolTip(tip)
    return edit


def push_button(
    parent: QWidget, icon: QIcon | str | None, text: str, name: str, tip: str, slot: Callable[[], None],
    shortcut: QKeySequence | QKeySequence.StandardKey | str | None = None,
) -> QPushButton:
    """A named button that calls ``slot`` when clicked; ``icon`` is a QIcon or a qtawesome name."""
    if isinstance(icon, str):
        icon = qta.icon(icon)
    button = QPushButton(icon, text, parent) if icon is not None else QPushButton(text, parent)
    button.setObjectName(name)
    button.setToolTip(tip)
    if shortcut is not None:
        button.setShortcut(QKeySequence(shortcut))
    button.clicked.connect(lambda _checked=False: slot())
    return button


class ButtonRow(QWidget):
    """Buttons in a row that show their text when there is room and only their icons (tooltips say what they do)
    when there is not: a narrow dock or a large font never forces the panel wider."""

    def __init__(self, parent: QWidget | None, left: Sequence[QPushButton], right: Sequence[QPushButton] = ()) -> None:
        super().__init__(parent)
        self._buttons = [*left, *right]
        self._texts = {id(b): b.text() for b in self._buttons}
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        for button in left:
            row.addWidget(button)
        row.addStretch(1)
        for button in right:
            row.addWidget(button)
        self._full = self.sizeHint().width()  # with every text shown
        self.compact = False
        for button in self._buttons:  # an explicit minimum lets the layout squeeze a button to its icon
            button.setMinimumWidth(self._icon_width(button))

    @staticmethod
    def _icon_width(button: QPushButton) -> int:
        margin = button.style().pixelMetric(QStyle.PixelMetric.PM_ButtonMargin)
        return button.iconSize().width() + 2 * margin + 8

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt naming
        """Room for the icons alone."""
        icons = sum(self._icon_width(b) for b in self._buttons)
        return QSize(icons + 6 * len(self._buttons), super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt naming
        super().resizeEvent(event)
        self.set_compact(event.size().width() < self._full)

    def set_compact(self, compact: bool) -> None:
        """Icons only (``True``) or icons with their text."""
        if compact == self.compact:
            return
        self.compact = compact
        for button in self._buttons:
            button.setText("" if compact else self._texts[id(button)])


def selectable_label(object_name: str, text: str) -> QLabel:
    """A named, word-wrapped label whose text can be selected (and so copied) with the mouse."""
    label = QLabel(text)
    label.setObjectName(object_name)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def item_table(object_name: str, headers: list[str]) -> QTableWidget:
    """A read-only table that selects one whole row at a time, its last column stretched."""
    table = QTableWidget(0, len(headers))
    table.setObjectName(object_name)
    table.setHorizontalHeaderLabels(headers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().setVisible(False)
    table.setAlternatingRowColors(True)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setStretchLastSection(True)
    return table


def _luminance(colour: QColor) -> float:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(colour.redF()) + 0.7152 * channel(colour.greenF()) + 0.0722 * channel(colour.blueF())


def contrast(a: QColor, b: QColor) -> float:
    """WCAG contrast ratio of two colours (1 to 21)."""
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


_W = TypeVar("_W", bound=QWidget)


def mark_muted(widget: _W) -> _W:
    """Draw ``widget``'s text in the quieter colour of notes, hints and empty states: the application's style sheet
    (``muted_style``, rebuilt by every theme change) colours it, so it follows a live switch to dark."""
    widget.setProperty("muted", True)
    widget.style().unpolish(widget)
    widget.style().polish(widget)
    return widget


def muted_style(palette: QPalette) -> str:
    """The style sheet rule for widgets marked muted, for ``palette`` (added to the application's by the theme)."""
    return f'*[muted="true"] {{ color: {muted_color(palette)}; }}\n'


def muted_color(palette: QPalette) -> str:
    """A quieter text colour for notes and hints that still reads at 4.5:1 on the window background: the text
    colour blended towards the background as far as that allows (``palette(mid)`` reads at about 2.5:1)."""
    text = palette.color(QPalette.ColorRole.WindowText)
    back = palette.color(QPalette.ColorRole.Window)
    for step in range(40, -1, -5):  # percent of the way from the text colour to the background
        mix = QColor(
            round(text.red() + (back.red() - text.red()) * step / 100),
            round(text.green() + (back.green() - text.green()) * step / 100),
            round(text.blue() + (back.blue() - text.blue()) * step / 100),
        )
        if contrast(mix, back) >= 4.5:
            return mix.name()
    return text.name()


class StatusLine(QLabel):
    """A status message that keeps its height (``lines`` lines), so the buttons beside it never move as it
    changes; a longer message is cut there and whole in its tooltip."""

    def __init__(self, parent: QWidget, object_name: str, *, lines: int = 3) -> None:
        super().__init__(parent)
        self.lines = lines
        self.setObjectName(object_name)
        self.setWordWrap(True)
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self._fit()

    def _fit(self) -> None:
        self.setFixedHeight(self.fontMetrics().lineSpacing() * self.lines + 2)

    def setText(self, text: str) -> None:  # noqa: N802 - Qt naming
        super().setText(text)
        self.setToolTip(text)

    def clear(self) -> None:
        super().clear()
        self.setToolTip("")

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt naming
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._fit()


def wrap_words(text: str, metrics: Any, width: float) -> list[str]:
    """``text`` in lines no wider than ``width`` for ``metrics`` (QFontMetrics or QFontMetricsF), filled word by
    word; a word longer than that gets a line of its own."""
    lines: list[str] = []
    for word in text.split():
        if lines and metrics.horizontalAdvance(f"{lines[-1]} {word}") <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines


class ElidingLabel(QLabel):
    """One line of text that gives up width when the window is narrow: cut with "…" instead of holding the
    window wide (the status bar's labels at a large font)."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._full = ""
        self.setText(text)

    def setText(self, text: str) -> None:  # noqa: N802 - Qt naming
        self._full = text
        self._elide()
        self.updateGeometry()

    def text(self) -> str:  # noqa: D102 - the whole text, not the cut one on screen
        return self._full

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt naming
        return QSize(self.fontMetrics().horizontalAdvance(self._full) + 8, super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt naming
        return QSize(self.fontMetrics().horizontalAdvance("Wwww…") + 8, super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt naming
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        super().setText(self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight, max(8, self.width())))
