"""What the model manager shows: Ollama's installed, loaded and recommended models and this computer, as rows and text.

Pure drawing from already-fetched data; :class:`desktop.models.model_manager.ModelManagerDialog` fetches it off
the GUI thread.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QIcon
from PySide6.QtWidgets import QTableWidget, QTableWidgetItem

from core.llm import GpuInfo, LoadedModel, ModelInfo, OllamaStatus, Recommendation, format_bytes

__all__ = [
    "Machine",
    "OllamaSnapshot",
    "fill_installed_table",
    "fill_recommended_table",
    "loaded_models_text",
    "machine_text",
]

GiB = 1024**3


@dataclass(frozen=True)
class OllamaSnapshot:
    """What Ollama said on one refresh: its status and, when it runs, its installed and loaded models."""

    status: OllamaStatus
    models: list[ModelInfo] = field(default_factory=list)
    loaded: list[LoadedModel] = field(default_factory=list)


@dataclass(frozen=True)
class Machine:
    """This computer's GPU and memory, which decide what a model needs to fit."""

    gpu: GpuInfo
    ram_bytes: int


def machine_text(machine: Machine) -> str:
    """One line about the GPU (or its absence) and the memory models can use."""
    gpu = machine.gpu
    ram = f"{machine.ram_bytes / GiB:.0f} GB RAM" if machine.ram_bytes else "unknown RAM"
    if gpu.kind == "nvidia":
        return f"{gpu.name}, {gpu.vram_bytes / GiB:.0f} GB VRAM · {ram}"
    if gpu.kind == "apple":
        return f"{gpu.name}, {gpu.vram_bytes / GiB:.0f} GB unified memory (about 2/3 usable by models)"
    return f"No GPU found, models run on the CPU (slow) · {ram}"


def fill_installed_table(
    table: QTableWidget, snapshot: OllamaSnapshot, current_model: str, current_icon: QIcon,
) -> None:
    """A row per installed model (name, size, parameters, quantization); the current one marked and selected."""
    table.setRowCount(0)
    loaded = {m.name for m in snapshot.loaded}
    for model in snapshot.models:
        row = table.rowCount()
        table.insertRow(row)
        name = QTableWidgetItem(model.name)
        name.setData(Qt.ItemDataRole.UserRole, model.name)
        if model.name == current_model:
            name.setIcon(current_icon)
            name.setToolTip("The model Cairn uses now")
            font = QFont(name.font())
            font.setBold(True)
            name.setFont(font)
        if model.name in loaded:
            name.setToolTip((name.toolTip() + "\n" if name.toolTip() else "") + "Loaded in memory now")
        table.setItem(row, 0, name)
        for col, text in enumerate((format_bytes(model.size_bytes), model.parameter_size, model.quantization), 1):
            table.setItem(row, col, QTableWidgetItem(text))
        if model.name == current_model:
            table.selectRow(row)


def loaded_models_text(snapshot: OllamaSnapshot, current_model: str) -> str:
    """Which models are in memory now, and a warning when the current model is not installed."""
    if snapshot.loaded:
        parts = [f"{m.name} ({format_bytes(m.vram_bytes or m.size_bytes)}"
                 f"{' on GPU' if m.vram_bytes else ''})" for m in snapshot.loaded]
        text = "In memory now: " + ", ".join(parts)
    elif snapshot.status.running:
        text = "No model is loaded in memory right now."
    else:
        text = ""
    if snapshot.status.running and current_model not in {m.name for m in snapshot.models}:
        text += f"\nThe current model {current_model} is not installed: pull it or pick another."
    return text


def fill_recommended_table(
    table: QTableWidget, recommendations: list[Recommendation], installed: Collection[str],
    icon: Callable[[str], QIcon], warning: QIcon,
) -> None:
    """A row per recommended model: name, download size, whether it is installed or fits, and a note."""
    table.setRowCount(0)
    for rec in recommendations:
        row = table.rowCount()
        table.insertRow(row)
        name = QTableWidgetItem(rec.name)
        name.setData(Qt.ItemDataRole.UserRole, rec.name)
        name.setToolTip(rec.description)
        table.setItem(row, 0, name)
        table.setItem(row, 1, QTableWidgetItem(format_bytes(rec.size_bytes)))
        table.setItem(row, 2, _fit_item(rec, rec.name in installed, icon, warning))
        note = QTableWidgetItem(rec.note)
        note.setToolTip(f"{rec.description}\n{rec.note}")
        table.setItem(row, 3, note)


def _fit_item(rec: Recommendation, installed: bool, icon: Callable[[str], QIcon], warning: QIcon) -> QTableWidgetItem:
    if installed:
        item = QTableWidgetItem(icon("fa5s.check-circle"), "Installed")
    elif rec.fits:
        item = QTableWidgetItem(icon("fa5s.check"), "Fits")
    else:
        item = QTableWidgetItem(warning, "Too big")
    item.setToolTip(rec.note)
    return item
