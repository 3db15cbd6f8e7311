"""Every dialog fits a 1280×720 screen at 14 pt, and so does the main window with its docks (issue 13)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
import qtawesome as qta
from PySide6.QtCore import QRect
from PySide6.QtWidgets import QApplication, QDialog, QWidget

from core.config import Settings
from core.databases import ConnectionStore, default_connections_path
from core.databases.connections._secrets import SessionSecretStore
from core.llm import GpuInfo, OllamaAdmin
from desktop.shell.app import apply_theme
from desktop.shell.window_geometry import fit_dialog
from tests.desktop.test_main_window import window  # noqa: F401 - the fixture

SCREEN = QRect(0, 0, 1280, 680)  # 1280×720 less a taskbar


@pytest.fixture
def big_font() -> Iterator[None]:
    app = QApplication.instance()
    apply_theme(app, Settings(font_size=14))
    yield
    apply_theme(app, Settings())


def _dialogs(parent: QWidget, ollama_url: str) -> dict[str, Callable[[], QDialog]]:
    from desktop.connections.connection_dialog import ConnectionDialog
    from desktop.dialogs.login import LoginDialog
    from desktop.dialogs.quality_view import QualityDialog
    from desktop.dialogs.settings_dialog import SettingsDialog
    from desktop.memory.memory_edit_dialog import MemoryEditDialog
    from desktop.models.gguf_import_dialog import GgufImportDialog
    from desktop.models.model_manager import ModelManagerDialog

    return {
        "settings": lambda: SettingsDialog(Settings(), parent=parent),
        "login": lambda: LoginDialog(["priya", "a-very-long-user-name-for-testing"], parent=parent),
        "gguf import": lambda: GgufImportDialog(parent, icon=qta.icon("fa5s.cog")),
        "quality": lambda: QualityDialog(Settings(), parent=parent, feedback=lambda: []),
        "connections": lambda: ConnectionDialog(ConnectionStore(default_connections_path()), SessionSecretStore(),
                                                parent=parent),
        "models": lambda: ModelManagerDialog(OllamaAdmin(ollama_url), current_model="qwen2.5-coder:7b",
                                             gpu_detector=lambda: GpuInfo(None, None, None),
                                             ram_detector=lambda: 16 * 2**30, parent=parent),
        "memory": lambda: MemoryEditDialog(None, parent=parent),
    }


def test_every_dialog_fits_1280x720_at_14pt(qtbot, big_font, fake_ollama) -> None:
    parent = QWidget()
    qtbot.addWidget(parent)
    for name, make in _dialogs(parent, fake_ollama.url).items():
        dialog = make()
        dialog.show()
        qtbot.waitExposed(dialog)
        fit_dialog(dialog, SCREEN)
        need = dialog.minimumSizeHint()
        assert need.width() <= SCREEN.width() and need.height() <= SCREEN.height(), (name, need)
        assert SCREEN.contains(dialog.frameGeometry()), (name, dialog.frameGeometry())
        assert dialog.width() >= need.width() and dialog.height() >= need.height(), name
        dialog.close()


def test_settings_shows_the_whole_ollama_address(qtbot) -> None:
    from desktop.dialogs.settings_dialog import SettingsDialog

    dialog = SettingsDialog(Settings())
    qtbot.addWidget(dialog)
    dialog.show()
    metrics = dialog.host.fontMetrics()
    assert dialog.host.width() > metrics.horizontalAdvance("http://127.0.0.1:11434")


def test_a_dialog_too_big_for_the_screen_is_cut_to_it_and_moved_onto_it(qtbot) -> None:
    dialog = QDialog()
    qtbot.addWidget(dialog)
    dialog.resize(2000, 1500)
    dialog.move(900, 400)
    fit_dialog(dialog, SCREEN)
    assert dialog.width() <= SCREEN.width() and dialog.height() <= SCREEN.height()
    assert dialog.x() + dialog.width() <= SCREEN.right() + 1 and dialog.y() >= 0


def test_the_main_window_fits_1280x720_at_14pt(qtbot, big_font, window) -> None:  # noqa: F811
    window.show()
    qtbot.waitExposed(window)
    need = window.minimumSizeHint()
    assert need.width() <= SCREEN.width() and need.height() <= SCREEN.height(), need
    window.resize(SCREEN.size())
    window._size_docks()
    QApplication.processEvents()
    assert window.tabs.width() >= window._memory_dock.width()  # the answer gets more room than the memory bank

