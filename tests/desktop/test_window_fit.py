"""The window fits the screen it opens on and reopens where it was left; a real dark palette with readable
contrast; the font size goes back to the default without a restart (issue 13, items 3 and 4)."""

from __future__ import annotations

from PySide6.QtCore import QRect
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow

from core.config import Settings
from desktop.shell.app import apply_theme, dark_palette
from desktop.shell.window_geometry import fit_to_screen, restore_geometry, save_geometry
from desktop.toolkit.widgets import contrast


def test_a_laptop_screen_gets_a_window_that_fits(qtbot) -> None:
    window = QMainWindow()
    qtbot.addWidget(window)
    fit_to_screen(window, QRect(0, 0, 1366, 728))  # 1366×768 less a taskbar
    assert window.width() <= 1366 and window.height() <= 728
    fit_to_screen(window, QRect(0, 0, 1920, 1040))
    assert (window.width(), window.height()) == (1360, 820)


def test_the_window_reopens_where_it_was_left(qtbot) -> None:
    window = QMainWindow()
    qtbot.addWidget(window)
    window.setGeometry(40, 50, 700, 500)  # the offscreen screen is 800×600
    window.show()
    qtbot.waitExposed(window)
    save_geometry(window)
    again = QMainWindow()
    qtbot.addWidget(again)
    assert restore_geometry(again) and (again.width(), again.height()) == (700, 500)


def test_dark_palette_is_readable_and_font_size_resets() -> None:
    palette = dark_palette()
    role = QPalette.ColorRole
    for fg, bg in ((role.Text, role.Base), (role.WindowText, role.Window), (role.ButtonText, role.Button),
                   (role.HighlightedText, role.Highlight), (role.ToolTipText, role.ToolTipBase)):
        assert contrast(palette.color(fg), palette.color(bg)) >= 4.5
    app = QApplication.instance()
    default = app.font().pointSize()
    apply_theme(app, Settings(theme="dark", font_size=14))
    assert app.font().pointSize() == 14 and app.palette().color(role.Base).name() == "#1e1f22"
    apply_theme(app, Settings(theme="system"))
    assert app.font().pointSize() == default and app.palette().color(role.Base).name() != "#1e1f22"


def test_muted_notes_read_at_4_5_to_1() -> None:
    from desktop.toolkit.widgets import muted_color

    app = QApplication.instance()
    for palette in (dark_palette(), app.style().standardPalette()):
        colour = QColor(muted_color(palette))
        assert contrast(colour, palette.color(QPalette.ColorRole.Window)) >= 4.5
        assert colour != palette.color(QPalette.ColorRole.WindowText)  # still quieter than the text


def test_quiet_text_follows_a_live_switch_of_theme_at_4_5_to_1(qtbot) -> None:
    from core.config import Settings
    from desktop.chat.chat_panel import ChatPanel
    from desktop.panels.result_view import ResultView
    from desktop.shell.app import apply_theme

    app = QApplication.instance()
    chat, results = ChatPanel(), ResultView()
    for widget in (chat, results):
        qtbot.addWidget(widget)
        widget.show()
    chat.add_note("Learned from your question.")
    quiet = [label for label in chat.findChildren(QLabel) + results.findChildren(QLabel)
             if label.property("muted") and label.isVisible()]
    assert quiet and results.empty_label in quiet and results.empty_label.isEnabled()
    try:
        for theme in ("light", "dark", "light"):  # switched while the widgets are open
            apply_theme(app, Settings(theme=theme))
            app.processEvents()
            for label in quiet:
                colour = label.palette().color(label.foregroundRole())
                background = app.palette().color(QPalette.ColorRole.Window)
                assert contrast(colour, background) >= 4.5, (theme, label.objectName(), colour.name())
    finally:
        apply_theme(app, Settings())
