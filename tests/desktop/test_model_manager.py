"""The model manager dialog against the real-HTTP FakeOllama and a fake GPU detector."""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTableWidget
from pytestqt.qtbot import QtBot

from core.llm import GpuInfo
from core.llm import OllamaAdmin
from desktop.models.model_manager import ModelManagerDialog
from tests.fakes.fake_ollama import FakeOllama

GiB = 1024**3
RTX = GpuInfo("nvidia", "NVIDIA GeForce RTX 4060", 8 * GiB, 300 * 1024**2)


@pytest.fixture
def open_dialog(qtbot: QtBot) -> Iterator[Callable[..., ModelManagerDialog]]:
    admins: list[OllamaAdmin] = []
    dialogs: list[ModelManagerDialog] = []

    def make(host: str, *, current_model: str = "qwen2.5-coder:7b", gpu: GpuInfo = RTX) -> ModelManagerDialog:
        admin = OllamaAdmin(host, timeout_s=2)
        dialog = ModelManagerDialog(admin, current_model=current_model, gpu_detector=lambda: gpu,
                                    ram_detector=lambda: 32 * GiB)
        qtbot.addWidget(dialog)  # not shown: the offscreen plugin warns on show() (propagateSizeHints)
        admins.append(admin)
        dialogs.append(dialog)
        # wait for the first refresh and the GPU detection
        qtbot.waitUntil(lambda: dialog.refresh_button.isEnabled() and dialog.recommended_table.rowCount() > 0)
        return dialog

    yield make
    for dialog in dialogs:
        dialog.cancel_operation()
        qtbot.waitUntil(lambda d=dialog: not d.busy)
    for admin in admins:
        admin.close()


def _column(table: QTableWidget, col: int) -> list[str]:
    return [table.item(row, col).text() for row in range(table.rowCount())]


def _row_of(table: QTableWidget, name: str) -> int:
    return _column(table, 0).index(name)


def test_lists_installed_loaded_and_recommended_models(open_dialog: Callable[..., ModelManagerDialog],
                                                       fake_ollama: FakeOllama) -> None:
    fake_ollama.add_model("sqlcoder:7b", size=4_108_928_574, parameter_size="7B", quantization_level="Q4_0")
    fake_ollama.loaded.add("sqlcoder:7b")
    dialog = open_dialog(fake_ollama.url)

    assert fake_ollama.version in dialog.status_label.text()
    assert "RTX 4060" in dialog.gpu_label.text() and "8 GB VRAM" in dialog.gpu_label.text()
    table = dialog.installed_table
    assert _column(table, 0) == ["qwen2.5-coder:7b", "sqlcoder:7b"]
    row = _row_of(table, "sqlcoder:7b")
    assert [table.item(row, c).text() for c in range(1, 4)] == ["4.1 GB", "7B", "Q4_0"]
    assert "sqlcoder:7b" in dialog.loaded_label.text()
    assert dialog.use_button.isEnabled()  # the current model is preselected

    recs = dialog.recommended_table
    assert _column(recs, 0)[0] == "qwen2.5-coder:7b"
    fits = dict(zip(_column(recs, 0), _column(recs, 2), strict=True))
    assert fits["qwen2.5-coder:7b"] == "Installed" and fits["qwen2.5-coder:3b"] == "Fits"
    assert fits["qwen2.5-coder:32b"] == "Too big"
    big = recs.item(_row_of(recs, "qwen2.5-coder:32b"), 2)
    assert not big.icon().isNull() and "Too big" in big.toolTip()


def test_pull_shows_progress_and_completes(open_dialog: Callable[..., ModelManagerDialog], qtbot: QtBot,
                                           fake_ollama: FakeOllama) -> None:
    fake_ollama.pull_chunks = 6
    fake_ollama.pull_chunk_delay_s = 0.01
    dialog = open_dialog(fake_ollama.url)
    dialog.recommended_table.selectRow(_row_of(dialog.recommended_table, "qwen2.5-coder:3b"))
    assert dialog.pull_name.text() == "qwen2.5-coder:3b"
    values: list[int] = []
    dialog.progress_bar.valueChanged.connect(values.append)

    with qtbot.waitSignal(dialog.model_installed, timeout=5000) as installed:
        qtbot.mouseClick(dialog.pull_button, Qt.MouseButton.LeftButton)
        assert dialog.busy and dialog.cancel_button.isVisibleTo(dialog) and not dialog.pull_button.isEnabled()
    assert installed.args == ["qwen2.5-coder:3b"]
    assert len([v for v in values if 0 < v < 1000]) >= 3 and values[-1] == 1000
    assert "installed" in dialog.pull_status.text()
    assert not dialog.busy and dialog.pull_button.isEnabled() and not dialog.cancel_button.isVisibleTo(dialog)
    qtbot.waitUntil(lambda: "qwen2.5-coder:3b" in _column(dialog.installed_table, 0))


def test_pull_cancelled_midway_returns_to_idle(open_dialog: Callable[..., ModelManagerDialog], qtbot: QtBot,
                                              fake_ollama: FakeOllama) -> None:
    fake_ollama.pull_chunks = 40
    fake_ollama.pull_chunk_delay_s = 0.05
    dialog = open_dialog(fake_ollama.url)
    dialog.pull_name.setText("qwen2.5-coder:14b")
    qtbot.mouseClick(dialog.pull_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.progress_bar.maximum() == 1000 and dialog.progress_bar.value() > 0)

    qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.busy, timeout=2000)
    assert "Stopped" in dialog.pull_status.text()
    assert dialog.pull_button.isEnabled() and not dialog.cancel_button.isVisibleTo(dialog)
    assert not dialog.progress_bar.isVisibleTo(dialog)
    assert fake_ollama.find_model("qwen2.5-coder:14b") is None
    qtbot.waitUntil(lambda: fake_ollama.cancelled_streams == 1)


def test_use_this_model_emits_model_chosen(open_dialog: Callable[..., ModelManagerDialog], qtbot: QtBot,
                                           fake_ollama: FakeOllama) -> None:
    fake_ollama.add_model("sqlcoder:7b")
    dialog = open_dialog(fake_ollama.url)
    dialog.installed_table.selectRow(_row_of(dialog.installed_table, "sqlcoder:7b"))
    with qtbot.waitSignal(dialog.model_chosen, timeout=1000) as chosen:
        qtbot.mouseClick(dialog.use_button, Qt.MouseButton.LeftButton)
    assert chosen.args == ["sqlcoder:7b"]
    assert dialog.result() == dialog.DialogCode.Accepted


def test_import_gguf_from_the_dialog(open_dialog: Callable[..., ModelManagerDialog], qtbot: QtBot,
                                     fake_ollama: FakeOllama, tmp_path: Path) -> None:
    path = tmp_path / "Local-SQL.Q4_K_M.gguf"
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 0) + b"\0" * 4096)
    dialog = open_dialog(fake_ollama.url)
    with qtbot.waitSignal(dialog.model_installed, timeout=3000) as installed:
        dialog.start_import(path, "local-sql:q4")
    assert installed.args == ["local-sql:q4"]
    qtbot.waitUntil(lambda: "local-sql:q4" in _column(dialog.installed_table, 0))


def test_ollama_down_shows_install_hint(open_dialog: Callable[..., ModelManagerDialog]) -> None:
    dialog = open_dialog("http://127.0.0.1:9", gpu=GpuInfo("none", "", 0, note="No NVIDIA GPU found."))
    text = dialog.status_label.text()
    assert "not running" in text and "ollama serve" in text and "install" in text
    assert not dialog.pull_button.isEnabled() and not dialog.import_button.isEnabled()
    assert dialog.installed_empty.isVisibleTo(dialog) and "Start Ollama" in dialog.installed_empty.text()
    assert "No GPU" in dialog.gpu_label.text()
    assert not dialog.use_button.isEnabled()


def test_closing_the_dialog_stops_the_download(open_dialog: Callable[..., ModelManagerDialog], qtbot: QtBot,
                                               fake_ollama: FakeOllama) -> None:
    fake_ollama.pull_chunks = 40
    fake_ollama.pull_chunk_delay_s = 0.05
    dialog = open_dialog(fake_ollama.url)
    dialog.start_pull("qwen2.5-coder:14b")
    qtbot.waitUntil(lambda: dialog.progress_bar.value() > 0)
    dialog.reject()
    qtbot.waitUntil(lambda: not dialog.busy, timeout=2000)
    assert fake_ollama.find_model("qwen2.5-coder:14b") is None
